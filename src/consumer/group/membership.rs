//! A consumer's group membership as poll and the group thread share it:
//! the group settings, the subscription, the member's state, and what
//! either member (classic or KIP-848) hands to poll.

use crate::sync::MutexExt;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::cgrp_stats::{CgrpState, CgrpTrack};
use crate::cluster::Metadata;
use crate::config::Config;
use crate::consumer::assignor::{self, Assignor, RebalanceProtocol};
use crate::consumer::group_events::{GroupEvent, RebalanceEvent};
use crate::consumer::session::Tp;
use crate::consumer::state::Shared;
use crate::consumer::TopicPartitionOffset;
use crate::error::{Error, Result};
use crate::message::{offset, Message};
use crate::net::BrokerConn;
use crate::protocol::KafkaCode;

/// The group properties, read once.
pub(crate) struct GroupSettings {
    pub group_id: String,
    pub instance_id: Option<String>,
    pub session_timeout: Duration,
    pub heartbeat_interval: Duration,
    pub max_poll_interval: Duration,
    pub assignors: Vec<Box<dyn Assignor>>,
    pub auto_commit: bool,
    pub auto_commit_interval: Duration,
    pub refresh_interval: Duration,
    pub socket_timeout: Duration,
    /// `group.protocol=consumer`: the KIP-848 protocol (kip848.rs).
    pub consumer_protocol: bool,
    /// `group.remote.assignor`, for the consumer protocol.
    pub remote_assignor: Option<String>,
    /// `client.rack`: the classic subscription's `rack_id` (KIP-881) and
    /// the consumer protocol's heartbeats.
    pub rack: Option<String>,
}

impl GroupSettings {
    /// The group settings of `cfg`, or `None` without `group.id`.
    ///
    /// # Errors
    /// An unknown assignor in `partition.assignment.strategy`.
    pub fn from_config(cfg: &Config) -> Result<Option<GroupSettings>> {
        let group_id = cfg.str("group.id");
        if group_id.is_empty() {
            return Ok(None);
        }
        let mut assignors: Vec<Box<dyn Assignor>> = Vec::new();
        for name in cfg
            .str("partition.assignment.strategy")
            .split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty())
        {
            match assignor::by_name(name) {
                Some(a) => {
                    if !assignors.iter().any(|x| x.name() == a.name()) {
                        assignors.push(a)
                    }
                }
                None => {
                    return Err(Error::Config {
                        key: "partition.assignment.strategy".into(),
                        reason: format!("unknown assignor {name:?}"),
                    })
                }
            }
        }
        if assignors.is_empty() {
            return Err(Error::Config {
                key: "partition.assignment.strategy".into(),
                reason: "names no assignor".into(),
            });
        }
        let kinds: BTreeSet<bool> = assignors
            .iter()
            .map(|a| a.protocol() == RebalanceProtocol::Cooperative)
            .collect();
        if kinds.len() > 1 {
            // librdkafka refuses this mix too: the group could not agree
            // on how to rebalance
            return Err(Error::Config {
                key: "partition.assignment.strategy".into(),
                reason: "mixes eager and cooperative assignors".into(),
            });
        }
        let instance = cfg.str("group.instance.id");
        let refresh = cfg.int("topic.metadata.refresh.interval.ms");
        let session = cfg.ms("session.timeout.ms");
        Ok(Some(GroupSettings {
            group_id: group_id.to_string(),
            instance_id: (!instance.is_empty()).then(|| instance.to_string()),
            session_timeout: session,
            heartbeat_interval: cfg.ms("heartbeat.interval.ms"),
            max_poll_interval: cfg.ms("max.poll.interval.ms"),
            assignors,
            auto_commit: cfg.bool("enable.auto.commit"),
            auto_commit_interval: cfg.ms("auto.commit.interval.ms"),
            refresh_interval: if refresh > 0 {
                Duration::from_millis(refresh as u64)
            } else {
                Duration::from_secs(300)
            },
            socket_timeout: cfg.ms("socket.timeout.ms"),
            consumer_protocol: cfg.str("group.protocol") == "consumer",
            remote_assignor: Some(cfg.str("group.remote.assignor"))
                .filter(|a| !a.is_empty())
                .map(str::to_string),
            rack: cfg
                .get("client.rack")
                .filter(|r| !r.is_empty())
                .map(str::to_string),
        }))
    }

    /// True when every assignor is cooperative (KIP-429), and for the
    /// consumer protocol, whose rebalances are incremental (librdkafka's
    /// `rd_kafka_rebalance_protocol` says COOPERATIVE for it too).
    pub fn cooperative(&self) -> bool {
        self.consumer_protocol
            || self
                .assignors
                .iter()
                .all(|a| a.protocol() == RebalanceProtocol::Cooperative)
    }
}

/// A topic list or `^regex` subscription.
#[derive(Default)]
pub(super) struct Subscription {
    /// As given.
    pub(super) given: Vec<String>,
    pub(super) names: BTreeSet<String>,
    pub(super) patterns: Vec<regex::Regex>,
}

impl Subscription {
    pub(super) fn parse(topics: &[&str]) -> Result<Subscription> {
        let mut s = Subscription::default();
        for t in topics {
            if t.is_empty() {
                return Err(Error::invalid_arg("empty topic name in subscription"));
            }
            if t.starts_with('^') {
                let re = regex::Regex::new(t)
                    .map_err(|e| Error::invalid_arg(format!("subscription pattern {t:?}: {e}")))?;
                s.patterns.push(re);
            } else {
                s.names.insert((*t).to_string());
            }
            s.given.push((*t).to_string());
        }
        Ok(s)
    }

    pub(super) fn matches(&self, topic: &str) -> bool {
        self.names.contains(topic) || self.patterns.iter().any(|p| p.is_match(topic))
    }
}

/// The member's state, under `Group::m`.
pub(crate) struct Member {
    pub(super) sub: Subscription,
    /// The topics subscribed now (names plus pattern matches).
    pub topics: BTreeSet<String>,
    pub member_id: String,
    pub generation: i32,
    pub protocol: Option<String>,
    /// The partitions the group gave this member (and it has not given up).
    pub owned: BTreeSet<(String, i32)>,
    /// In a generation (SyncGroup done, not left or lost since).
    pub joined: bool,
    /// A rejoin is wanted.
    pub rejoin: bool,
    pub leader: bool,
    /// Partition counts of the topics last seen (subscribed, and the
    /// group's when leader): a change rejoins.
    pub counts: BTreeMap<String, i32>,
    /// The coordinator's connection; set and cleared through
    /// [`Member::set_coord`] and [`Member::clear_coord`], which keep
    /// `cgrp.state`.
    coord: Option<BrokerConn>,
    /// The coordinator thread waits in JoinGroup/SyncGroup.
    pub in_join: bool,
    pub fatal: Option<Error>,
    /// Async commits queued: `None` commits the stored offsets.
    pub async_commits: VecDeque<Option<Vec<TopicPartitionOffset>>>,
    /// Leave the group (unsubscribe).
    pub leave: bool,
    /// Look at metadata now (a new subscription).
    pub refresh_now: bool,
    pub next_event: u64,
    pub handled: u64,
    pub closing: bool,
    pub exited: bool,
    /// The last join error reported (not repeated while it lasts).
    pub(super) last_error: Option<i32>,
    /// Subscribed topic names the last metadata lacked or answered with an
    /// error, and that error's code: each is reported once while it lasts.
    pub(super) errored_topics: BTreeMap<String, i32>,
    /// What the statistics' `cgrp` object reports.
    pub(super) cgrp: CgrpTrack,
}

/// A consumer's group: settings, member state, and what poll and the
/// coordinator thread tell each other.
pub(crate) struct Group {
    pub settings: GroupSettings,
    pub m: Mutex<Member>,
    pub cv: Condvar,
    pub(super) base: Instant,
    /// ms since `base` of the last poll's start or end.
    pub(super) last_poll: AtomicU64,
    /// Polls running now.
    pub(super) polling: AtomicUsize,
    /// The member left for `max.poll.interval.ms`: the next poll rejoins.
    pub(super) poll_exceeded: AtomicBool,
    pub has_rebalance_cb: AtomicBool,
    pub has_commit_cb: AtomicBool,
    /// True while one of the member's OffsetCommit requests is in flight
    /// (see [`commit`]): one at a time, as librdkafka's group thread and
    /// the Java consumer's one thread send them.
    pub(super) committing: Mutex<bool>,
    pub(super) commit_done: Condvar,
}

impl Group {
    pub fn new(settings: GroupSettings) -> Group {
        Group {
            settings,
            m: Mutex::new(Member {
                sub: Subscription::default(),
                topics: BTreeSet::new(),
                member_id: String::new(),
                generation: -1,
                protocol: None,
                owned: BTreeSet::new(),
                joined: false,
                rejoin: false,
                leader: false,
                counts: BTreeMap::new(),
                coord: None,
                in_join: false,
                fatal: None,
                async_commits: VecDeque::new(),
                leave: false,
                refresh_now: false,
                next_event: 0,
                handled: 0,
                closing: false,
                exited: false,
                last_error: None,
                errored_topics: BTreeMap::new(),
                cgrp: CgrpTrack::default(),
            }),
            cv: Condvar::new(),
            base: Instant::now(),
            last_poll: AtomicU64::new(0),
            polling: AtomicUsize::new(0),
            poll_exceeded: AtomicBool::new(false),
            has_rebalance_cb: AtomicBool::new(false),
            has_commit_cb: AtomicBool::new(false),
            committing: Mutex::new(false),
            commit_done: Condvar::new(),
        }
    }

    /// Waits (until `deadline`) until no other commit of this member is in
    /// flight and takes the turn; false if the deadline came first.
    pub(super) fn commit_turn(&self, deadline: Instant) -> bool {
        let mut busy = self.committing.locked();
        while *busy {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            busy = self
                .commit_done
                .wait_timeout(busy, left)
                .map_or_else(|e| e.into_inner().0, |r| r.0);
        }
        *busy = true;
        true
    }

    pub(super) fn commit_turn_end(&self) {
        *self.committing.locked() = false;
        self.commit_done.notify_all();
    }

    pub fn lock(&self) -> MutexGuard<'_, Member> {
        self.m.locked()
    }

    pub(super) fn now_ms(&self) -> u64 {
        self.base.elapsed().as_millis() as u64
    }

    /// Marks a poll's start (`true`) or end.
    pub fn poll_mark(&self, start: bool) {
        self.last_poll.store(self.now_ms(), Ordering::Relaxed);
        if start {
            self.polling.fetch_add(1, Ordering::AcqRel);
            if self.poll_exceeded.swap(false, Ordering::AcqRel) {
                let mut m = self.lock();
                m.rejoin = true;
                drop(m);
                self.cv.notify_all();
            }
        } else {
            self.polling.fetch_sub(1, Ordering::AcqRel);
        }
    }

    /// True when no poll ran for `max.poll.interval.ms`.
    pub(super) fn poll_overdue(&self) -> bool {
        self.polling.load(Ordering::Acquire) == 0
            && self
                .now_ms()
                .saturating_sub(self.last_poll.load(Ordering::Relaxed))
                > self.settings.max_poll_interval.as_millis() as u64
    }

    /// When the poll interval runs out, from now.
    pub(super) fn poll_deadline(&self) -> Instant {
        let last = self.base + Duration::from_millis(self.last_poll.load(Ordering::Relaxed));
        last + self.settings.max_poll_interval + Duration::from_millis(1)
    }

    /// Replaces the subscription.
    ///
    /// # Errors
    /// `_INVALID_ARG` for an empty list, an empty name or a bad pattern.
    pub fn subscribe(&self, topics: &[&str]) -> Result<()> {
        if topics.is_empty() {
            return Err(Error::invalid_arg("subscribe needs at least one topic"));
        }
        let sub = Subscription::parse(topics)?;
        let mut m = self.lock();
        if m.fatal.is_some() {
            return Err(m.fatal.clone().expect("checked"));
        }
        m.topics = sub.names.clone();
        m.sub = sub;
        m.leave = false;
        m.refresh_now = true;
        m.rejoin = true;
        drop(m);
        self.last_poll.store(self.now_ms(), Ordering::Relaxed);
        self.cv.notify_all();
        Ok(())
    }

    /// Drops the subscription: the member gives its partitions up and
    /// leaves the group.
    pub fn unsubscribe(&self) {
        let mut m = self.lock();
        m.sub = Subscription::default();
        m.topics.clear();
        m.leave = true;
        drop(m);
        self.cv.notify_all();
    }

    /// The subscription as given.
    pub fn subscription(&self) -> Vec<String> {
        self.lock().sub.given.clone()
    }

    /// Marks rebalance event `id` served.
    pub fn handled(&self, id: u64) {
        let mut m = self.lock();
        m.handled = m.handled.max(id);
        drop(m);
        self.cv.notify_all();
    }

    /// The statistics' `cgrp` object: the member's state now.
    pub fn cgrp_stats(&self) -> crate::stats::Cgrp {
        let m = self.lock();
        m.cgrp.stats(m.owned.len())
    }

    /// The member id, "" before joining.
    pub fn member_id(&self) -> String {
        self.lock().member_id.clone()
    }

    /// "COOPERATIVE" or "EAGER", as librdkafka's `rd_kafka_rebalance_protocol`
    /// ("NONE" without a joined group).
    pub fn rebalance_protocol(&self) -> &'static str {
        if !self.lock().joined {
            "NONE"
        } else if self.settings.cooperative() {
            "COOPERATIVE"
        } else {
            "EAGER"
        }
    }
}

pub(super) fn tpos(parts: &BTreeSet<(String, i32)>) -> Vec<TopicPartitionOffset> {
    parts
        .iter()
        .map(|(t, p)| TopicPartitionOffset::new(t.as_str(), *p, offset::INVALID))
        .collect()
}

pub(super) fn keys(parts: &BTreeSet<(String, i32)>) -> Vec<Tp> {
    parts
        .iter()
        .map(|(t, p)| (Arc::from(t.as_str()), *p))
        .collect()
}

// What the classic member (thread.rs) and the KIP-848 member
// (kip848.rs) both hand to poll: one piece of code each, so both
// queue through `Shared::queued` (the io-event wakeup) the same way.

/// Queues a rebalance event for poll; returns its id.
pub(super) fn post_rebalance(
    group: &Group,
    shared: &Shared,
    event: RebalanceEvent,
    cooperative: bool,
) -> u64 {
    let id = {
        let mut m = group.lock();
        m.next_event += 1;
        m.next_event
    };
    let mut st = shared.lock();
    st.group_events.push_back(GroupEvent::Rebalance {
        id,
        event,
        cooperative,
    });
    shared.queued(st);
    id
}

/// Queues an error for poll.
pub(super) fn report_error(shared: &Shared, e: Error) {
    let mut st = shared.lock();
    st.events
        .push_back(Message::event(Arc::from(""), -1, -1, e));
    shared.queued(st);
}

/// Queues a subscribed topic's error for `poll` (partition -1, offset
/// INVALID), as librdkafka's consumer error for a topic.
pub(super) fn report_topic_error(shared: &Shared, topic: &str, e: Error) {
    let mut st = shared.lock();
    st.events
        .push_back(Message::event(Arc::from(topic), -1, offset::INVALID, e));
    shared.queued(st);
}

impl Member {
    /// The coordinator's connection, if known.
    pub fn coord(&self) -> Option<&BrokerConn> {
        self.coord.as_ref()
    }

    /// Found the coordinator: the group handler is up.
    pub(super) fn set_coord(&mut self, c: BrokerConn) {
        self.coord = Some(c);
        self.cgrp.set_state(CgrpState::Up);
    }

    /// The coordinator moved or its connection failed: it is looked up
    /// again (librdkafka's group handler goes back to `query-coord`).
    pub fn clear_coord(&mut self) {
        self.coord = None;
        if self.cgrp.state() == CgrpState::Up {
            self.cgrp.set_state(CgrpState::QueryCoord);
        }
    }

    /// Notes the subscribed names (not patterns) that `meta` lacks or
    /// answers with an error, and returns the ones to report: those new or
    /// with a new error since the last look. A topic that comes back is
    /// forgotten, so a later error is reported again. As librdkafka's
    /// "Subscribed topic not available" consumer error (a missing topic is
    /// `UNKNOWN_TOPIC_OR_PARTITION`).
    pub(super) fn note_unavailable(&mut self, meta: &Metadata) -> Vec<(String, Error)> {
        let mut now = BTreeMap::new();
        for name in &self.sub.names {
            let code = match meta.topics.get(name) {
                None => KafkaCode::UNKNOWN_TOPIC_OR_PARTITION,
                Some(t) if !t.error.is_ok() => t.error,
                Some(_) => continue,
            };
            now.insert(name.clone(), code);
        }
        let report = now
            .iter()
            .filter(|(t, c)| self.errored_topics.get(*t) != Some(&c.0.into()))
            .map(|(t, c)| {
                let e = Error::kafka(*c, format!("Subscribed topic not available: {t}"));
                (t.clone(), e)
            })
            .collect();
        self.errored_topics = now.into_iter().map(|(t, c)| (t, c.0.into())).collect();
        report
    }
}

/// "topic [p], topic [q]" for log lines (at most 20 named).
pub(super) fn fmt_parts(parts: &BTreeSet<(String, i32)>) -> String {
    let mut out: Vec<String> = parts
        .iter()
        .take(20)
        .map(|(t, p)| format!("{t} [{p}]"))
        .collect();
    if parts.len() > 20 {
        out.push(format!("and {} more", parts.len() - 20));
    }
    out.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    pub(super) fn patterns_and_names() {
        let s = Subscription::parse(&["a", "^b.*x$"]).unwrap();
        assert!(s.matches("a") && s.matches("bzzx") && !s.matches("bzz") && !s.matches("ab"));
        assert!(Subscription::parse(&["^("]).is_err());
        assert!(Subscription::parse(&[""]).is_err());
    }
}
