//! Consumer group membership (Kafka's classic group protocol): the
//! coordinator thread that joins, syncs, heartbeats and leaves, the
//! leader's assignment, offset commits, and the rebalance events `poll`
//! serves.
//!
//! One coordinator thread per consumer with a `group.id` (docs/ARCHITECTURE.md),
//! on the coordinator's group-purpose connection: it finds the coordinator
//! (FindCoordinator), joins (JoinGroup, rejoining with the member id a
//! MEMBER_ID_REQUIRED answer gives, KIP-394), runs the assignor as leader
//! with ConsumerProtocol subscription/assignment bytes as the Java client
//! and librdkafka write them, syncs (SyncGroup), heartbeats every
//! `heartbeat.interval.ms`, commits stored offsets every
//! `auto.commit.interval.ms`, and re-checks regex subscriptions and
//! partition counts every `topic.metadata.refresh.interval.ms`.
//!
//! Decisions (librdkafka's where it and Java differ, unless said):
//! - The rebalance timeout is `max.poll.interval.ms`, as both clients do.
//! - Eager assignors revoke everything before JoinGroup; when every
//!   assignor offered is cooperative (KIP-429) only the partitions that
//!   move are revoked, and the member rejoins at once after giving them up.
//! - Auto commit commits offsets stored for messages `poll` returned
//!   (at-least-once), before partitions are revoked, and on close.
//! - ILLEGAL_GENERATION / UNKNOWN_MEMBER_ID / FENCED_INSTANCE_ID lose the
//!   partitions (no commit); UNKNOWN_MEMBER_ID also forgets the member id,
//!   FENCED_INSTANCE_ID stops the member for good (a fatal error event).
//! - No heartbeat answered within `session.timeout.ms`: partitions lost,
//!   rejoin. Coordinator errors (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE,
//!   a lost connection) find the coordinator again without rejoining.
//! - `max.poll.interval.ms` without a poll: the member leaves the group
//!   (not a static one: LeaveGroup would end its static membership),
//!   its partitions are lost, and poll returns `_MAX_POLL_EXCEEDED`; the
//!   next poll rejoins.
//! - Static members (`group.instance.id`, KIP-345) send no LeaveGroup on
//!   close, as the Java client, so a restart keeps the assignment.
//! - `client.rack` goes into the subscription (v3 `rack_id`, KIP-881); the
//!   leader hands the assignor every partition's replica racks from the
//!   Metadata it fetched (brokers' racks), for rack-aware assignment.

use crate::sync::MutexExt;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::assignor::{self, Assignor, PartitionRacks, RebalanceProtocol};
use super::coordinator;
use super::group_events::GroupEvent;
pub use super::group_events::RebalanceEvent;
use super::session::Tp;
use super::state::Shared;
use super::TopicPartitionOffset;
use crate::cluster::Cluster;
use crate::config::Config;
use crate::error::{local, Error, Result};
use crate::message::{offset, Message};
use crate::net::BrokerConn;
use crate::protocol::consumer_protocol::{
    decode_assignment, decode_subscription, encode_assignment, encode_subscription,
    AssignmentTopicPartition, ConsumerProtocolAssignment, ConsumerProtocolSubscription,
    TopicPartition,
};
use crate::protocol::heartbeat::HeartbeatRequest;
use crate::protocol::join_group::{JoinGroupRequest, JoinGroupRequestProtocol, JoinGroupResponse};
use crate::protocol::leave_group::{LeaveGroupRequest, MemberIdentity};
use crate::protocol::offset_commit::{
    OffsetCommitRequest, OffsetCommitRequestPartition, OffsetCommitRequestTopic,
};
use crate::protocol::sync_group::{SyncGroupRequest, SyncGroupRequestAssignment};
use crate::protocol::KafkaCode;
use crate::wire::Bytes;

pub(crate) mod kip848;
mod thread;

pub(crate) use thread::Coordinator;

/// The ConsumerProtocol version this member writes its subscription in
/// (v3: owned partitions, generation, rack — as Java 3.x and librdkafka 2.x).
const SUBSCRIPTION_VERSION: i16 = 3;

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
struct Subscription {
    /// As given.
    given: Vec<String>,
    names: BTreeSet<String>,
    patterns: Vec<regex::Regex>,
}

impl Subscription {
    fn parse(topics: &[&str]) -> Result<Subscription> {
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

    fn matches(&self, topic: &str) -> bool {
        self.names.contains(topic) || self.patterns.iter().any(|p| p.is_match(topic))
    }
}

/// The member's state, under `Group::m`.
pub(crate) struct Member {
    sub: Subscription,
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
    pub coord: Option<BrokerConn>,
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
    last_error: Option<i32>,
}

/// A consumer's group: settings, member state, and what poll and the
/// coordinator thread tell each other.
pub(crate) struct Group {
    pub settings: GroupSettings,
    pub m: Mutex<Member>,
    pub cv: Condvar,
    base: Instant,
    /// ms since `base` of the last poll's start or end.
    last_poll: AtomicU64,
    /// Polls running now.
    polling: AtomicUsize,
    /// The member left for `max.poll.interval.ms`: the next poll rejoins.
    poll_exceeded: AtomicBool,
    pub has_rebalance_cb: AtomicBool,
    pub has_commit_cb: AtomicBool,
    /// True while one of the member's OffsetCommit requests is in flight
    /// (see [`commit`]): one at a time, as librdkafka's group thread and
    /// the Java consumer's one thread send them.
    committing: Mutex<bool>,
    commit_done: Condvar,
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
    fn commit_turn(&self, deadline: Instant) -> bool {
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

    fn commit_turn_end(&self) {
        *self.committing.locked() = false;
        self.commit_done.notify_all();
    }

    pub fn lock(&self) -> MutexGuard<'_, Member> {
        self.m.locked()
    }

    fn now_ms(&self) -> u64 {
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
    fn poll_overdue(&self) -> bool {
        self.polling.load(Ordering::Acquire) == 0
            && self
                .now_ms()
                .saturating_sub(self.last_poll.load(Ordering::Relaxed))
                > self.settings.max_poll_interval.as_millis() as u64
    }

    /// When the poll interval runs out, from now.
    fn poll_deadline(&self) -> Instant {
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

// ---------------------------------------------------------------------------
// Offsets: stored positions, commits

/// The stored offsets not committed yet, of `only` (or every assigned
/// partition), as commit entries: what an automatic or an application's
/// commit sends (librdkafka skips a partition whose stored offset is
/// committed already).
pub(crate) fn uncommitted(shared: &Shared, only: Option<&[Tp]>) -> Vec<TopicPartitionOffset> {
    stored_offsets(shared, only, false)
}

fn stored_offsets(shared: &Shared, only: Option<&[Tp]>, all: bool) -> Vec<TopicPartitionOffset> {
    let mut st = shared.lock();
    st.fold_stored();
    let mut out: Vec<TopicPartitionOffset> = st
        .parts
        .iter()
        .filter(|(k, _)| only.is_none_or(|o| o.contains(k)))
        .filter(|(_, p)| p.stored >= 0 && (all || p.stored != p.committed))
        .map(|(k, p)| {
            let mut t = TopicPartitionOffset::new(&*k.0, k.1, p.stored);
            t.leader_epoch = (p.stored_epoch >= 0).then_some(p.stored_epoch);
            t.metadata = p.stored_meta.clone();
            t
        })
        .collect();
    out.sort_by(|a, b| (&a.topic, a.partition).cmp(&(&b.topic, b.partition)));
    out
}

/// Removes partitions from the consumer and returns their stored offsets,
/// committed or not, as the final commit sends them (so nothing more is handed out
/// for them before the commit that gives them up).
pub(crate) fn take_parts(shared: &Shared, keys: &[Tp]) -> Vec<TopicPartitionOffset> {
    let stored = {
        let mut st = shared.lock();
        st.fold_stored();
        let mut out = Vec::new();
        for k in keys {
            if let Some(p) = st.parts.get(k) {
                if p.stored >= 0 {
                    let mut t = TopicPartitionOffset::new(&*k.0, k.1, p.stored);
                    t.leader_epoch = (p.stored_epoch >= 0).then_some(p.stored_epoch);
                    t.metadata = p.stored_meta.clone();
                    out.push(t);
                }
            }
            super::remove_part(shared, &mut st, k);
        }
        out
    };
    shared.work.notify_all();
    stored
}

/// OffsetCommit of `offsets` for the group, as the member it is now
/// (generation and member id when joined; -1 and "" otherwise, as a
/// consumer of assigned partitions commits). Retries coordinator errors
/// until `deadline`. Answers the entries with their errors.
///
/// # Errors
/// `_NO_OFFSET` for nothing to commit; the coordinator lookup's or the
/// request's error.
pub(crate) fn commit(
    group: &Group,
    cluster: &Cluster,
    shared: &Shared,
    offsets: &[TopicPartitionOffset],
    deadline: Instant,
) -> Result<Vec<TopicPartitionOffset>> {
    if offsets.is_empty() {
        return Err(Error::local(local::NO_OFFSET, "no offsets to commit"));
    }
    commit_with(group, cluster, shared, deadline, |_| offsets.to_vec())
}

/// Commits the stored offsets of `only` (or of every assigned partition):
/// those not committed yet ([`uncommitted`]), or with `all` every one,
/// committed or not — what the commit before giving partitions up sends
/// (on a revocation and on close), as the Java consumer commits all
/// consumed positions then: Kafka orders commits only per connection, so
/// an earlier commit a slow network delivered late (after its connection
/// was given up) can set a partition's committed offset back, and
/// restating every position in the member's last commit puts it right
/// before the partition moves. Each attempt, a retry included, reads them again
/// when its turn comes, so a retry never sends an offset older than one
/// another commit of this member has made since: a retried automatic
/// commit would otherwise set back what the commit on close had just
/// committed, and the partition's next owner would read it all again.
///
/// # Errors
/// `_NO_OFFSET` when there is nothing to commit; as [`commit`].
pub(crate) fn commit_stored(
    group: &Group,
    cluster: &Cluster,
    shared: &Shared,
    only: Option<&[Tp]>,
    all: bool,
    deadline: Instant,
) -> Result<Vec<TopicPartitionOffset>> {
    if stored_offsets(shared, only, all).is_empty() {
        return Err(Error::local(local::NO_OFFSET, "no offsets to commit"));
    }
    commit_with(group, cluster, shared, deadline, |_| {
        stored_offsets(shared, only, all)
    })
}

/// The commit loop: `offsets(retry)` gives each attempt's offsets when its
/// turn comes (one OffsetCommit of the member in flight at a time); an
/// attempt with nothing left to commit ends the loop.
fn commit_with(
    group: &Group,
    cluster: &Cluster,
    shared: &Shared,
    deadline: Instant,
    mut offsets: impl FnMut(u32) -> Vec<TopicPartitionOffset>,
) -> Result<Vec<TopicPartitionOffset>> {
    let mut retries = 0;
    loop {
        let backoff = cluster.retry_backoff(retries);
        if !group.commit_turn(deadline) {
            return Err(Error::local(
                local::TIMED_OUT,
                "offset commit: another commit of this member was still in flight",
            ));
        }
        let now = offsets(retries);
        if now.is_empty() {
            group.commit_turn_end();
            return Ok(Vec::new());
        }
        let attempt = commit_once(group, cluster, &now, deadline);
        group.commit_turn_end();
        let retry = match &attempt {
            Err(e) => e.is_retriable() || e.code() == local::TRANSPORT,
            Ok(entries) => entries.iter().any(|e| {
                e.error
                    .as_ref()
                    .and_then(Error::kafka_code)
                    // KIP-848: a stale member epoch is retried with the
                    // epoch the next heartbeat brings
                    .is_some_and(|c| coordinator_moved(c) || c == KafkaCode::STALE_MEMBER_EPOCH)
            }),
        };
        if retry {
            crate::log::debug!(
                cluster.log(),
                crate::log::ctx::CGRP,
                "COMMIT",
                "Group \"{}\": offset commit retried: {}",
                group.settings.group_id,
                match &attempt {
                    Err(e) => e.to_string(),
                    Ok(entries) => first_error(entries)
                        .err()
                        .map(|e| e.to_string())
                        .unwrap_or_default(),
                }
            );
            group.lock().coord = None;
            if Instant::now() + backoff < deadline {
                std::thread::sleep(backoff);
                retries += 1;
                continue;
            }
        }
        let entries = attempt?;
        // remember what is committed, so auto commit skips it
        {
            let mut st = shared.lock();
            for e in entries.iter().filter(|e| e.error.is_none()) {
                if let Some(p) = st.parts.get_mut(&e.key()) {
                    p.committed = e.offset;
                }
            }
        }
        // a generation that is gone: rejoin (the heartbeat learns the rest)
        if entries.iter().any(|e| {
            e.error
                .as_ref()
                .and_then(Error::kafka_code)
                .is_some_and(|c| {
                    matches!(
                        c,
                        KafkaCode::ILLEGAL_GENERATION
                            | KafkaCode::UNKNOWN_MEMBER_ID
                            | KafkaCode::REBALANCE_IN_PROGRESS
                    )
                })
        }) {
            let mut m = group.lock();
            if m.joined {
                m.rejoin = true;
            }
            drop(m);
            group.cv.notify_all();
        }
        return Ok(entries);
    }
}

fn coordinator_moved(c: KafkaCode) -> bool {
    matches!(
        c,
        KafkaCode::NOT_COORDINATOR
            | KafkaCode::COORDINATOR_NOT_AVAILABLE
            | KafkaCode::COORDINATOR_LOAD_IN_PROGRESS
            | KafkaCode::REQUEST_TIMED_OUT
    )
}

/// The coordinator's connection, cached in the member state.
fn coordinator(group: &Group, cluster: &Cluster, deadline: Instant) -> Result<BrokerConn> {
    if let Some(c) = group.lock().coord.clone() {
        return Ok(c);
    }
    let c = coordinator::coordinator(cluster, &group.settings.group_id, deadline)?;
    group.lock().coord = Some(c.clone());
    Ok(c)
}

fn commit_once(
    group: &Group,
    cluster: &Cluster,
    offsets: &[TopicPartitionOffset],
    deadline: Instant,
) -> Result<Vec<TopicPartitionOffset>> {
    let s = &group.settings;
    let conn = coordinator(group, cluster, deadline)?;
    let version = conn.version_for::<OffsetCommitRequest>(deadline)?;
    let (member_id, generation) = {
        let m = group.lock();
        if m.joined {
            (m.member_id.clone(), m.generation)
        } else {
            (String::new(), -1)
        }
    };
    let mut topics: Vec<OffsetCommitRequestTopic> = Vec::new();
    for o in offsets {
        let part = OffsetCommitRequestPartition {
            partition_index: o.partition,
            committed_offset: o.offset,
            committed_leader_epoch: if version >= 6 {
                o.leader_epoch.unwrap_or(-1)
            } else {
                -1
            },
            commit_timestamp: -1,
            committed_metadata: Some(o.metadata.clone().unwrap_or_default()),
            ..Default::default()
        };
        match topics.iter_mut().find(|t| t.name == o.topic) {
            Some(t) => t.partitions.push(part),
            None => topics.push(OffsetCommitRequestTopic {
                name: o.topic.clone(),
                partitions: vec![part],
                ..Default::default()
            }),
        }
    }
    let req = OffsetCommitRequest {
        group_id: s.group_id.clone(),
        generation_id_or_member_epoch: generation,
        member_id,
        group_instance_id: if version >= 7 && generation >= 0 {
            s.instance_id.clone()
        } else {
            None
        },
        retention_time_ms: -1,
        topics,
        ..Default::default()
    };
    let resp = match conn.send_at(&req, version, deadline) {
        Ok(p) => p.wait_until(deadline),
        Err(e) => Err(e),
    };
    // as librdkafka's "COMMIT" debug line: what was committed, as which
    // member, and the answer
    crate::log::debug!(
        cluster.log(),
        crate::log::ctx::CGRP,
        "COMMIT",
        "Group \"{}\": OffsetCommit v{version} (generation {generation}) of {} to {}: {}",
        s.group_id,
        fmt_offsets(offsets),
        conn.name(),
        match &resp {
            Ok(r) => match r
                .topics
                .iter()
                .flat_map(|t| t.partitions.iter().map(move |p| (&t.name, p)))
                .find(|(_, p)| p.error_code != 0)
            {
                None => "Success".to_string(),
                Some((t, p)) => format!(
                    "{t} [{}]: {}",
                    p.partition_index,
                    KafkaCode(p.error_code).name()
                ),
            },
            Err(e) => e.to_string(),
        }
    );
    let resp = match resp {
        Ok(r) => r,
        Err(e) => {
            if e.code() == local::TRANSPORT || e.code() == local::TIMED_OUT {
                group.lock().coord = None;
            }
            return Err(e);
        }
    };
    Ok(offsets
        .iter()
        .map(|o| {
            let code = resp
                .topics
                .iter()
                .filter(|t| t.name == o.topic)
                .flat_map(|t| t.partitions.iter())
                .find(|p| p.partition_index == o.partition)
                .map(|p| p.error_code);
            let mut e = o.clone();
            e.error = match code {
                Some(0) => None,
                Some(c) => Some(Error::kafka(
                    KafkaCode(c),
                    format!(
                        "{} [{}] offset commit of group {:?}",
                        o.topic, o.partition, s.group_id
                    ),
                )),
                None => Some(Error::local(
                    local::BAD_MSG,
                    format!("OffsetCommit answer lacks {} [{}]", o.topic, o.partition),
                )),
            };
            e
        })
        .collect())
}

/// The first entry error of a commit answer.
pub(crate) fn first_error(entries: &[TopicPartitionOffset]) -> Result<()> {
    match entries.iter().find_map(|e| e.error.clone()) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// LeaveGroup for this member at the negotiated version.
///
/// # Errors
/// The request's or the coordinator's error.
pub(crate) fn leave(
    group: &Group,
    cluster: &Cluster,
    member_id: &str,
    deadline: Instant,
) -> Result<()> {
    let s = &group.settings;
    if s.consumer_protocol {
        return kip848::leave(group, cluster, member_id, deadline);
    }
    let conn = coordinator(group, cluster, deadline)?;
    let version = conn.version_for::<LeaveGroupRequest>(deadline)?;
    let req = if version >= 3 {
        LeaveGroupRequest {
            group_id: s.group_id.clone(),
            members: vec![MemberIdentity {
                member_id: member_id.to_string(),
                group_instance_id: s.instance_id.clone(),
                reason: (version >= 5).then(|| "the consumer is leaving the group".to_string()),
                ..Default::default()
            }],
            ..Default::default()
        }
    } else {
        LeaveGroupRequest {
            group_id: s.group_id.clone(),
            member_id: member_id.to_string(),
            ..Default::default()
        }
    };
    let resp = conn
        .send_at(&req, version, deadline)?
        .wait_until(deadline)?;
    let code = KafkaCode(resp.error_code);
    let member = resp
        .members
        .iter()
        .map(|m| KafkaCode(m.error_code))
        .find(|c| !c.is_ok());
    match (code.is_ok(), member) {
        (true, None) => Ok(()),
        (false, _) => Err(Error::kafka(code, format!("leave group {:?}", s.group_id))),
        (true, Some(c)) => Err(Error::kafka(c, format!("leave group {:?}", s.group_id))),
    }
}

// ---------------------------------------------------------------------------
// The leader's assignment

/// Runs `assignor` over the members' JoinGroup metadata and the
/// partition counts: the SyncGroup assignments (ConsumerProtocol bytes, in
/// the lowest subscription version any member wrote, at most 3) and the
/// topics the group subscribes to.
///
/// # Errors
/// If an assignment cannot be encoded.
pub(crate) fn leader_assignments(
    assignor: &dyn Assignor,
    members: &[(String, Option<String>, Bytes)],
    counts: &BTreeMap<String, i32>,
    racks: &PartitionRacks,
) -> Result<Vec<(String, Vec<u8>)>> {
    let mut version = SUBSCRIPTION_VERSION;
    let mut decoded = Vec::new();
    for (id, instance, meta) in members {
        let subscription = match decode_subscription(meta) {
            Ok((v, s)) => {
                version = version.min(v.max(0));
                s
            }
            // a member we cannot read gets nothing (as librdkafka)
            Err(_) => ConsumerProtocolSubscription::default(),
        };
        decoded.push(assignor::Member {
            member_id: id.clone(),
            group_instance_id: instance.clone(),
            subscription,
        });
    }
    let result = assignor.assign_with_racks(&decoded, counts, racks);
    let mut out = Vec::new();
    for m in &decoded {
        let parts = result.get(&m.member_id).cloned().unwrap_or_default();
        let a = ConsumerProtocolAssignment {
            assigned_partitions: parts
                .into_iter()
                .filter(|(_, ps)| !ps.is_empty())
                .map(|(topic, partitions)| AssignmentTopicPartition {
                    topic,
                    partitions,
                    ..Default::default()
                })
                .collect(),
            user_data: None,
            ..Default::default()
        };
        out.push((m.member_id.clone(), encode_assignment(&a, version)?));
    }
    Ok(out)
}

/// The partition counts of the usable topics in `meta` (no error, at least
/// one partition) and where each partition's replicas are: the racks of
/// the brokers in its replica list, by partition number (KIP-881).
pub(crate) fn counts_and_racks(
    meta: &crate::cluster::Metadata,
) -> (BTreeMap<String, i32>, PartitionRacks) {
    let mut counts = BTreeMap::new();
    let mut racks = PartitionRacks::new();
    for t in meta
        .topics
        .values()
        .filter(|t| t.error.is_ok() && !t.partitions.is_empty())
    {
        let n = t.partitions.len();
        counts.insert(t.name.clone(), n as i32);
        let mut per = vec![BTreeSet::new(); n];
        for p in &t.partitions {
            // ids outside 0..n (a torn answer) carry no racks
            let Some(slot) = usize::try_from(p.id).ok().and_then(|i| per.get_mut(i)) else {
                continue;
            };
            for b in &p.replicas {
                if let Some(r) = meta.brokers.get(b).and_then(|b| b.rack.as_ref()) {
                    slot.insert(r.clone());
                }
            }
        }
        racks.insert(t.name.clone(), per);
    }
    (counts, racks)
}

/// The topics named in members' subscriptions.
pub(crate) fn subscribed_topics(members: &[(String, Option<String>, Bytes)]) -> BTreeSet<String> {
    members
        .iter()
        .filter_map(|(_, _, meta)| decode_subscription(meta).ok())
        .flat_map(|(_, s)| s.topics)
        .collect()
}

/// This member's subscription bytes for `assignor`.
pub(crate) fn subscription_bytes(
    assignor: &dyn Assignor,
    topics: &BTreeSet<String>,
    owned: &BTreeSet<(String, i32)>,
    generation: i32,
    rack: Option<&str>,
) -> Result<Vec<u8>> {
    let mut by_topic: BTreeMap<&str, Vec<i32>> = BTreeMap::new();
    for (t, p) in owned {
        by_topic.entry(t).or_default().push(*p);
    }
    let s = ConsumerProtocolSubscription {
        topics: topics.iter().cloned().collect(),
        user_data: assignor.user_data(),
        owned_partitions: by_topic
            .into_iter()
            .map(|(t, ps)| TopicPartition {
                topic: t.to_string(),
                partitions: ps,
                ..Default::default()
            })
            .collect(),
        generation_id: generation,
        rack_id: rack.map(str::to_string),
        ..Default::default()
    };
    Ok(encode_subscription(&s, SUBSCRIPTION_VERSION)?)
}

fn tpos(parts: &BTreeSet<(String, i32)>) -> Vec<TopicPartitionOffset> {
    parts
        .iter()
        .map(|(t, p)| TopicPartitionOffset::new(t.as_str(), *p, offset::INVALID))
        .collect()
}

fn keys(parts: &BTreeSet<(String, i32)>) -> Vec<Tp> {
    parts
        .iter()
        .map(|(t, p)| (Arc::from(t.as_str()), *p))
        .collect()
}

// What the classic member (thread.rs) and the KIP-848 member
// (kip848.rs) both hand to poll: one piece of code each, so both
// queue through `Shared::queued` (the io-event wakeup) the same way.

/// Queues a rebalance event for poll; returns its id.
fn post_rebalance(group: &Group, shared: &Shared, event: RebalanceEvent, cooperative: bool) -> u64 {
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
fn report_error(shared: &Shared, e: Error) {
    let mut st = shared.lock();
    st.events
        .push_back(Message::event(Arc::from(""), -1, -1, e));
    shared.queued(st);
}

/// Queues a commit's outcome for the commit callback, when there is one
/// (`asked`: the offsets reported when the whole request failed).
fn queue_commit_result(
    group: &Group,
    shared: &Shared,
    r: Result<Vec<TopicPartitionOffset>>,
    asked: Vec<TopicPartitionOffset>,
) {
    if !group.has_commit_cb.load(Ordering::Acquire) {
        return;
    }
    let (result, offsets) = match r {
        Ok(entries) => (first_error(&entries), entries),
        Err(e) => (Err(e), asked),
    };
    let mut st = shared.lock();
    st.group_events
        .push_back(GroupEvent::Commit { result, offsets });
    shared.queued(st);
}

/// `enable.auto.commit`: commits what poll returned and is not committed yet.
fn auto_commit(group: &Group, cluster: &Cluster, shared: &Shared) {
    let offsets = uncommitted(shared, None);
    if offsets.is_empty() {
        return;
    }
    let deadline = Instant::now() + group.settings.socket_timeout;
    let r = commit_stored(group, cluster, shared, None, false, deadline);
    if matches!(&r, Ok(e) if e.is_empty()) {
        // another commit of this member took them meanwhile
        return;
    }
    queue_commit_result(group, shared, r, offsets);
}

/// `commit_async`: the given offsets, or what is not committed yet.
fn async_commit(
    group: &Group,
    cluster: &Cluster,
    shared: &Shared,
    offsets: Option<Vec<TopicPartitionOffset>>,
) {
    let deadline = Instant::now() + group.settings.socket_timeout;
    let (r, offsets) = match offsets {
        Some(o) if o.is_empty() => (
            Err(Error::local(local::NO_OFFSET, "no offsets to commit")),
            o,
        ),
        Some(o) => (commit(group, cluster, shared, &o, deadline), o),
        None => (
            commit_stored(group, cluster, shared, None, false, deadline),
            uncommitted(shared, None),
        ),
    };
    queue_commit_result(group, shared, r, offsets);
}

/// "topic [p] @ offset, …" for log lines (at most 20 named).
fn fmt_offsets(offsets: &[TopicPartitionOffset]) -> String {
    let mut out: Vec<String> = offsets
        .iter()
        .take(20)
        .map(|o| format!("{} [{}] @ {}", o.topic, o.partition, o.offset))
        .collect();
    if offsets.len() > 20 {
        out.push(format!("and {} more", offsets.len() - 20));
    }
    out.join(", ")
}

/// "topic [p], topic [q]" for log lines (at most 20 named).
fn fmt_parts(parts: &BTreeSet<(String, i32)>) -> String {
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
    use crate::consumer::assignor::Range;

    fn sub(topics: &[&str]) -> Bytes {
        let t: BTreeSet<String> = topics.iter().map(|s| s.to_string()).collect();
        Bytes::from(subscription_bytes(&Range, &t, &BTreeSet::new(), -1, None).unwrap())
    }

    #[test]
    fn subscription_bytes_are_v3_as_java_writes_them() {
        let owned: BTreeSet<(String, i32)> = [("t".to_string(), 1)].into();
        let t: BTreeSet<String> = ["t".to_string()].into();
        let b = subscription_bytes(&Range, &t, &owned, 7, None).unwrap();
        let want = [
            0, 3, // version 3
            0, 0, 0, 1, 0, 1, b't', // topics ["t"]
            0xff, 0xff, 0xff, 0xff, // user data null
            0, 0, 0, 1, 0, 1, b't', 0, 0, 0, 1, 0, 0, 0, 1, // owned t [1]
            0, 0, 0, 7, // generation 7
            0xff, 0xff, // rack null
        ];
        assert_eq!(b, want);
        // client.rack rides in rack_id (KIP-881)
        let b = subscription_bytes(&Range, &t, &owned, 7, Some("r1")).unwrap();
        let (v, s) = decode_subscription(&b).unwrap();
        assert_eq!((v, s.rack_id.as_deref()), (3, Some("r1")));
        assert_eq!(&b[..b.len() - 4], &want[..want.len() - 2]);
        assert_eq!(&b[b.len() - 4..], &[0, 2, b'r', b'1']);
    }

    #[test]
    fn the_leader_reads_racks_from_metadata_and_assigns_by_them() {
        use crate::cluster::{BrokerInfo, Metadata, PartitionInfo, TopicInfo};
        // partitions 0 and 2 on broker 1 (rack r1), 1 and 3 on broker 2
        // (rack r2), broker 3 without a rack holds a second replica of 3
        let broker = |id: i32, rack: Option<&str>| BrokerInfo {
            id,
            host: "h".into(),
            port: 1,
            rack: rack.map(str::to_string),
        };
        let part = |id: i32, replicas: Vec<i32>| PartitionInfo {
            id,
            error: KafkaCode::NONE,
            leader: replicas[0],
            leader_epoch: 0,
            isr: replicas.clone(),
            replicas,
            offline: vec![],
        };
        let meta = Metadata {
            brokers: [
                (1, broker(1, Some("r1"))),
                (2, broker(2, Some("r2"))),
                (3, broker(3, None)),
            ]
            .into(),
            topics: [(
                "t".to_string(),
                TopicInfo {
                    name: "t".into(),
                    id: crate::wire::Uuid([0; 16]),
                    error: KafkaCode::NONE,
                    is_internal: false,
                    partitions: vec![
                        part(0, vec![1]),
                        part(1, vec![2]),
                        part(2, vec![1]),
                        part(3, vec![2, 3]),
                    ],
                },
            )]
            .into(),
            ..Default::default()
        };
        let (counts, racks) = counts_and_racks(&meta);
        assert_eq!(counts, [("t".to_string(), 4)].into());
        let set = |r: &str| -> BTreeSet<String> { [r.to_string()].into() };
        assert_eq!(racks["t"], vec![set("r1"), set("r2"), set("r1"), set("r2")]);
        let t: BTreeSet<String> = ["t".to_string()].into();
        let racked = |rack: &str| {
            Bytes::from(subscription_bytes(&Range, &t, &BTreeSet::new(), -1, Some(rack)).unwrap())
        };
        // "a" sorts first, so plain range would give it 0 and 1
        let members = vec![
            ("a".to_string(), None, racked("r2")),
            ("b".to_string(), None, racked("r1")),
        ];
        let out = leader_assignments(&Range, &members, &counts, &racks).unwrap();
        for (id, bytes) in &out {
            let (_, a) = decode_assignment(bytes).unwrap();
            let want = if id == "a" { vec![1, 3] } else { vec![0, 2] };
            assert_eq!(a.assigned_partitions[0].partitions, want, "{id}");
        }
    }

    #[test]
    fn the_leader_assigns_in_the_lowest_member_version() {
        // a v0 subscription (an old client) makes the assignments v0
        let v0 = Bytes::from(vec![0, 0, 0, 0, 0, 1, 0, 1, b't', 0xff, 0xff, 0xff, 0xff]);
        let members = vec![
            ("a".to_string(), None, v0),
            ("b".to_string(), None, sub(&["t"])),
        ];
        let counts: BTreeMap<String, i32> = [("t".to_string(), 4)].into();
        let out = leader_assignments(&Range, &members, &counts, &PartitionRacks::new()).unwrap();
        assert_eq!(out.len(), 2);
        for (id, bytes) in &out {
            let (v, a) = decode_assignment(bytes).unwrap();
            assert_eq!(v, 0);
            let parts = &a.assigned_partitions[0];
            assert_eq!(parts.topic, "t");
            assert_eq!(
                parts.partitions,
                if id == "a" { vec![0, 1] } else { vec![2, 3] }
            );
        }
        assert_eq!(
            subscribed_topics(&members),
            ["t".to_string()].into_iter().collect()
        );
    }

    #[test]
    fn patterns_and_names() {
        let s = Subscription::parse(&["a", "^b.*x$"]).unwrap();
        assert!(s.matches("a") && s.matches("bzzx") && !s.matches("bzz") && !s.matches("ab"));
        assert!(Subscription::parse(&["^("]).is_err());
        assert!(Subscription::parse(&[""]).is_err());
    }
}
