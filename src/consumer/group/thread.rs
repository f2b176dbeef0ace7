//! The coordinator thread of a group member: it finds the coordinator,
//! joins and syncs (eager or cooperative), heartbeats, commits
//! automatically and on request, refreshes the subscription's metadata and
//! leaves, handing rebalances and commit results to `poll` as
//! [`GroupEvent`]s. The group's state and the requests it shares with the
//! application's calls are in membership.rs and commit.rs, the classic
//! protocol's requests in classic.rs.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::cgrp_stats::{CgrpState, JoinState};
use super::classic::{
    counts_and_racks, leader_assignments, leave, subscribed_topics, subscription_bytes,
};
use super::commit::{
    async_commit, auto_commit, commit, coordinator, coordinator_moved, queue_commit_result,
    take_parts,
};
use super::membership::{
    fmt_parts, keys, post_rebalance, report_error, report_topic_error, tpos, Group,
};
use crate::cluster::Cluster;
use crate::consumer::group_events::RebalanceEvent;
use crate::consumer::state::Shared;
use crate::consumer::TopicPartitionOffset;
use crate::error::{local, Error, Result};
use crate::log::{self, ctx};
use crate::net::BrokerConn;
use crate::protocol::consumer_protocol::decode_assignment;
use crate::protocol::heartbeat::HeartbeatRequest;
use crate::protocol::join_group::{JoinGroupRequest, JoinGroupRequestProtocol, JoinGroupResponse};
use crate::protocol::sync_group::{SyncGroupRequest, SyncGroupRequestAssignment};
use crate::protocol::KafkaCode;
use crate::wire::Bytes;

/// The rebalance reason of an eager member that rejoins for a change in
/// its topics (librdkafka gives a cooperative one, which keeps its
/// partitions, no reason).
const METADATA_CHANGED: &str = "subscribed topics' metadata changed";

/// What the coordinator thread does next.
enum Action {
    AsyncCommit(Option<Vec<TopicPartitionOffset>>),
    AutoCommit,
    Leave,
    MaxPoll,
    Join,
    Heartbeat,
    Refresh,
}

/// Why a join round ended without a generation.
enum JoinFailed {
    /// Try again at once (new member id, rebalance in progress...).
    Again,
    /// Try again after a backoff.
    Backoff(Error),
    /// Stop: fatal.
    Fatal(Error),
    /// The consumer is closing.
    Closing,
}

/// The coordinator thread of one consumer.
pub(crate) struct Coordinator {
    group: Arc<Group>,
    shared: Arc<Shared>,
    cluster: Cluster,
    next_hb: Instant,
    next_commit: Instant,
    next_refresh: Instant,
    last_hb_ok: Instant,
    join_backoff: Duration,
    join_retry_at: Option<Instant>,
}

impl Coordinator {
    pub fn new(group: Arc<Group>, shared: Arc<Shared>, cluster: Cluster) -> Self {
        let now = Instant::now();
        let s = &group.settings;
        Coordinator {
            next_hb: now,
            next_commit: now + s.auto_commit_interval,
            next_refresh: now + s.refresh_interval,
            last_hb_ok: now,
            join_backoff: Duration::from_millis(100),
            join_retry_at: None,
            group,
            shared,
            cluster,
        }
    }

    /// Runs until the consumer closes.
    pub fn run(mut self) {
        if self.group.settings.consumer_protocol {
            // group.protocol=consumer: the KIP-848 member instead
            return super::kip848::Member848::new(self.group, self.shared, self.cluster).run();
        }
        while let Some(a) = self.next_action() {
            match a {
                Action::AsyncCommit(offsets) => self.async_commit(offsets),
                Action::AutoCommit => self.auto_commit(),
                Action::Leave => self.unsubscribe(),
                Action::MaxPoll => self.max_poll_exceeded(),
                Action::Join => self.join(),
                Action::Heartbeat => self.heartbeat(),
                Action::Refresh => self.refresh(),
            }
        }
        let mut m = self.group.lock();
        m.exited = true;
        m.cgrp.set_state(CgrpState::Term);
        drop(m);
        self.group.cv.notify_all();
    }

    fn next_action(&mut self) -> Option<Action> {
        let group = self.group.clone();
        let s = &group.settings;
        let mut m = group.lock();
        loop {
            if m.closing {
                return None;
            }
            let now = Instant::now();
            if let Some(c) = m.async_commits.pop_front() {
                return Some(Action::AsyncCommit(c));
            }
            let mut wake = now + Duration::from_secs(1);
            if s.auto_commit {
                if now >= self.next_commit {
                    self.next_commit = now + s.auto_commit_interval;
                    return Some(Action::AutoCommit);
                }
                wake = wake.min(self.next_commit);
            }
            if m.leave {
                m.leave = false;
                return Some(Action::Leave);
            }
            let subscribed = !m.sub.given.is_empty() && m.fatal.is_none();
            if subscribed && !group.poll_exceeded.load(Ordering::Acquire) {
                if (m.joined || !m.member_id.is_empty()) && group.poll_overdue() {
                    return Some(Action::MaxPoll);
                }
                wake = wake.min(group.poll_deadline());
                if m.refresh_now || now >= self.next_refresh {
                    m.refresh_now = false;
                    self.next_refresh = now + s.refresh_interval;
                    return Some(Action::Refresh);
                }
                wake = wake.min(self.next_refresh);
                if m.rejoin || !m.joined {
                    match self.join_retry_at {
                        Some(t) if t > now => wake = wake.min(t),
                        _ => return Some(Action::Join),
                    }
                } else if now >= self.next_hb {
                    return Some(Action::Heartbeat);
                } else {
                    wake = wake.min(self.next_hb);
                }
            }
            m = group
                .cv
                .wait_timeout(m, wake.saturating_duration_since(now))
                .map_or_else(|e| e.into_inner().0, |r| r.0);
        }
    }

    fn cooperative(&self) -> bool {
        self.group.settings.cooperative()
    }

    /// Moves to librdkafka's join state `to`, kept in the member state for
    /// the statistics' `cgrp.join_state` and logged as librdkafka's
    /// CGRPJOINSTATE line (`cgrp` context).
    fn set_join_state(&self, to: JoinState) {
        let mut m = self.group.lock();
        let from = m.cgrp.set_join_state(to);
        let generation = m.generation;
        drop(m);
        if from != to {
            log::debug!(
                self.cluster.log(),
                ctx::CGRP,
                "CGRPJOINSTATE",
                "Group \"{}\" changed join state {} -> {} (generation {generation})",
                self.group.settings.group_id,
                from.name(),
                to.name()
            );
        }
    }

    /// The join state's name, for log lines.
    fn join_state(&self) -> &'static str {
        self.group.lock().cgrp.join_state().name()
    }

    /// Notes why the member gives its assignment up and rejoins (the
    /// statistics' `cgrp.rebalance_reason`).
    fn rebalance_reason(&self, why: impl Into<String>) {
        self.group.lock().cgrp.reason(why);
    }

    /// Queues an event for poll; returns its id.
    fn post(&self, event: RebalanceEvent) -> u64 {
        post_rebalance(&self.group, &self.shared, event, self.cooperative())
    }

    /// Queues an error for poll.
    fn report(&self, e: Error) {
        report_error(&self.shared, e);
    }

    /// Waits until poll served event `id` (or the consumer closes, or the
    /// application stopped polling for good).
    fn wait_handled(&self, id: u64) {
        let mut m = self.group.lock();
        while m.handled < id && !m.closing && !self.group.poll_overdue() {
            m = self
                .group
                .cv
                .wait_timeout(m, Duration::from_millis(100))
                .map_or_else(|e| e.into_inner().0, |r| r.0);
        }
    }

    /// Gives partitions up: commits their stored offsets first (unless
    /// lost), through the rebalance callback in poll when there is one.
    fn give_up(&self, parts: BTreeSet<(String, i32)>, lost: bool) {
        let eager = !self.cooperative();
        self.group.lock().cgrp.revoked(parts.len(), eager);
        if parts.is_empty() {
            return;
        }
        log::debug!(
            self.cluster.log(),
            ctx::CGRP | ctx::CONSUMER,
            if lost { "LOST" } else { "REVOKE" },
            "Group \"{}\": {} {} partition(s): {}",
            self.group.settings.group_id,
            if lost { "lost" } else { "revoking" },
            parts.len(),
            fmt_parts(&parts)
        );
        self.set_join_state(JoinState::WaitUnassignCall);
        self.group.lock().owned.retain(|p| !parts.contains(p));
        if self.group.has_rebalance_cb.load(Ordering::Acquire) {
            let ev = if lost {
                RebalanceEvent::Lost(tpos(&parts))
            } else {
                RebalanceEvent::Revoked(tpos(&parts))
            };
            let id = self.post(ev);
            if !lost {
                self.wait_handled(id);
            }
        } else {
            let stored = take_parts(&self.shared, &keys(&parts));
            if !lost && self.group.settings.auto_commit && !stored.is_empty() {
                let deadline = Instant::now() + self.group.settings.socket_timeout;
                let r = commit(&self.group, &self.cluster, &self.shared, &stored, deadline);
                self.commit_result(r, stored);
            }
        }
    }

    /// Takes partitions on (through the rebalance callback when there is one).
    fn take_on(&self, parts: &BTreeSet<(String, i32)>, whole: bool) {
        log::debug!(
            self.cluster.log(),
            ctx::CGRP | ctx::CONSUMER,
            "ASSIGN",
            "Group \"{}\": {} {} partition(s): {}",
            self.group.settings.group_id,
            if whole { "assigning" } else { "adding" },
            parts.len(),
            fmt_parts(parts)
        );
        self.set_join_state(JoinState::WaitAssignCall);
        self.group.lock().cgrp.assigned(whole);
        if self.group.has_rebalance_cb.load(Ordering::Acquire) {
            self.post(RebalanceEvent::Assigned(tpos(parts)));
            return;
        }
        let tps = tpos(parts);
        let r = if whole {
            crate::consumer::assign_parts(&self.shared, &tps, false)
        } else {
            crate::consumer::assign_parts(&self.shared, &tps, true)
        };
        if let Err(e) = r {
            self.report(e);
        }
    }

    fn commit_result(
        &self,
        r: Result<Vec<TopicPartitionOffset>>,
        asked: Vec<TopicPartitionOffset>,
    ) {
        queue_commit_result(&self.group, &self.shared, r, asked);
    }

    fn auto_commit(&mut self) {
        auto_commit(&self.group, &self.cluster, &self.shared);
    }

    fn async_commit(&mut self, offsets: Option<Vec<TopicPartitionOffset>>) {
        async_commit(&self.group, &self.cluster, &self.shared, offsets);
    }

    /// Unsubscribe: give everything up and leave.
    fn unsubscribe(&mut self) {
        self.rebalance_reason("unsubscribe");
        let owned = std::mem::take(&mut self.group.lock().owned);
        self.give_up(owned, false);
        self.leave_now();
    }

    /// LeaveGroup (not for static members) and forget the generation.
    fn leave_now(&mut self) {
        log::debug!(
            self.cluster.log(),
            ctx::CGRP,
            "LEAVE",
            "Group \"{}\": leaving group",
            self.group.settings.group_id
        );
        self.set_join_state(JoinState::Init);
        let member_id = {
            let mut m = self.group.lock();
            m.joined = false;
            m.generation = -1;
            std::mem::take(&mut m.member_id)
        };
        if !member_id.is_empty() && self.group.settings.instance_id.is_none() {
            let deadline = Instant::now()
                + self
                    .group
                    .settings
                    .socket_timeout
                    .min(Duration::from_secs(10));
            let _ = leave(&self.group, &self.cluster, &member_id, deadline);
        }
    }

    fn max_poll_exceeded(&mut self) {
        self.rebalance_reason("max.poll.interval.ms exceeded");
        let owned = std::mem::take(&mut self.group.lock().owned);
        self.leave_now();
        self.group.poll_exceeded.store(true, Ordering::Release);
        self.report(Error::local(
            local::MAX_POLL_EXCEEDED,
            format!(
                "Application maximum poll interval ({}ms) exceeded by the application: leaving group {:?}; the next poll rejoins",
                self.group.settings.max_poll_interval.as_millis(),
                self.group.settings.group_id
            ),
        ));
        self.give_up(owned, true);
        self.set_join_state(JoinState::Init);
    }

    /// The session is gone (error or timeout, `why`): the partitions are
    /// lost.
    fn lose(&mut self, forget_member: bool, why: String) {
        self.rebalance_reason(why);
        self.set_join_state(JoinState::Init);
        let owned = {
            let mut m = self.group.lock();
            m.joined = false;
            m.rejoin = true;
            m.generation = -1;
            if forget_member {
                m.member_id.clear();
            }
            std::mem::take(&mut m.owned)
        };
        self.give_up(owned, true);
        // lost partitions are not waited for: the member is back at the
        // start, to rejoin
        self.set_join_state(JoinState::Init);
    }

    fn fenced(&mut self, e: Error) {
        self.lose(false, format!("fatal error: {e}"));
        self.group.lock().fatal = Some(e.clone());
        self.cluster
            .events()
            .raise(crate::net::ClientEvent::Error(Error::local(
                crate::error::local::FATAL,
                format!("fatal error: {e}"),
            )));
        self.report(e);
    }

    fn heartbeat(&mut self) {
        let group = self.group.clone();
        let s = &group.settings;
        let now = Instant::now();
        self.next_hb = now + s.heartbeat_interval;
        let deadline = now + s.socket_timeout.min(s.session_timeout);
        let (member_id, generation) = {
            let m = self.group.lock();
            (m.member_id.clone(), m.generation)
        };
        let r = coordinator(&self.group, &self.cluster, deadline).and_then(|conn| {
            let version = conn.version_for::<HeartbeatRequest>(deadline)?;
            let req = HeartbeatRequest {
                group_id: s.group_id.clone(),
                generation_id: generation,
                member_id,
                group_instance_id: s.instance_id.clone(),
                ..Default::default()
            };
            conn.send_at(&req, version, deadline)?.wait_until(deadline)
        });
        let code = match r {
            Ok(resp) => KafkaCode(resp.error_code),
            Err(e) => {
                log::debug!(
                    self.cluster.log(),
                    ctx::CGRP,
                    "HEARTBEAT",
                    "Group \"{}\": heartbeat failed: {e}: coordinator lost",
                    s.group_id
                );
                self.coordinator_lost(&e);
                return;
            }
        };
        if !code.is_ok() {
            log::debug!(
                self.cluster.log(),
                ctx::CGRP,
                "HEARTBEAT",
                "Group \"{}\" heartbeat error response in state up (join-state {}, generation {generation}): {code}",
                s.group_id,
                self.join_state()
            );
        }
        match code {
            KafkaCode::NONE => self.last_hb_ok = Instant::now(),
            KafkaCode::REBALANCE_IN_PROGRESS => {
                self.last_hb_ok = Instant::now();
                let mut m = self.group.lock();
                m.rejoin = true;
                // an eager member revokes everything for it; a
                // cooperative one only rejoins (librdkafka sets no reason)
                if !self.group.settings.cooperative() {
                    m.cgrp.reason("rebalance in progress");
                }
            }
            KafkaCode::ILLEGAL_GENERATION => self.lose(false, "illegal generation".into()),
            KafkaCode::UNKNOWN_MEMBER_ID => self.lose(true, "unknown member id".into()),
            KafkaCode::FENCED_INSTANCE_ID => self.fenced(Error::kafka(
                code,
                format!(
                    "group {:?}: another consumer took group.instance.id {:?}",
                    s.group_id,
                    s.instance_id.as_deref().unwrap_or("")
                ),
            )),
            c if coordinator_moved(c) => {
                self.coordinator_lost(&Error::kafka(c, "heartbeat"));
            }
            c => {
                self.report(Error::kafka(
                    c,
                    format!("heartbeat in group {:?}", s.group_id),
                ));
            }
        }
    }

    /// The coordinator went away: find it again soon; past the session
    /// timeout the partitions are lost.
    fn coordinator_lost(&mut self, e: &Error) {
        log::debug!(
            self.cluster.log(),
            ctx::CGRP,
            "CGRPSTATE",
            "Group \"{}\" changed state up -> query-coord (join-state {}): coordinator lost: {e}",
            self.group.settings.group_id,
            self.join_state()
        );
        self.group.lock().clear_coord();
        let group = self.group.clone();
        let s = &group.settings;
        self.next_hb = Instant::now() + Duration::from_millis(200).min(s.heartbeat_interval);
        let silent = self.last_hb_ok.elapsed();
        if silent > s.session_timeout {
            let why = format!(
                "session timed out: no answer from the group coordinator for {} ms (join state {}): {e}",
                silent.as_millis(),
                self.join_state()
            );
            self.lose(false, why);
        }
    }

    /// Re-reads the subscribed topics (regex matches) and partition counts;
    /// a change rejoins.
    fn refresh(&mut self) {
        let group = self.group.clone();
        let s = &group.settings;
        let (has_patterns, mut topics, known) = {
            let m = self.group.lock();
            let mut t: BTreeSet<String> = m.sub.names.clone();
            if m.leader {
                t.extend(m.counts.keys().cloned());
            }
            (!m.sub.patterns.is_empty(), t, m.counts.clone())
        };
        let meta = if has_patterns {
            self.cluster.fetch_metadata(None, false, s.socket_timeout)
        } else if topics.is_empty() {
            return;
        } else {
            let names: Vec<&str> = topics.iter().map(String::as_str).collect();
            // allow.auto.create.topics: the subscription may create topics
            let create = self.cluster.config().bool("allow.auto.create.topics");
            self.cluster
                .fetch_metadata(Some(&names), create, s.socket_timeout)
        };
        let Ok(meta) = meta else { return };
        let mut m = self.group.lock();
        if has_patterns {
            let matched: BTreeSet<String> = meta
                .topics
                .values()
                .filter(|t| !t.is_internal && t.error.is_ok() && m.sub.matches(&t.name))
                .map(|t| t.name.clone())
                .collect();
            let mut now_topics = m.sub.names.clone();
            now_topics.extend(matched);
            if now_topics != m.topics {
                m.topics = now_topics.clone();
                m.rejoin = true;
                if !s.cooperative() {
                    m.cgrp.reason(METADATA_CHANGED);
                }
            }
            topics.extend(now_topics);
        }
        let unavailable = m.note_unavailable(&meta);
        let mut counts = BTreeMap::new();
        for t in &topics {
            if let Some(info) = meta.topics.get(t).filter(|i| i.error.is_ok()) {
                counts.insert(t.clone(), info.partitions.len() as i32);
            }
        }
        let changed = counts
            .iter()
            .any(|(t, n)| known.get(t).is_some_and(|k| k != n))
            || (m.joined
                && counts
                    .keys()
                    .any(|t| m.topics.contains(t) && !known.contains_key(t)));
        for (t, n) in counts {
            m.counts.insert(t, n);
        }
        if changed {
            m.rejoin = true;
            if !s.cooperative() {
                m.cgrp.reason(METADATA_CHANGED);
            }
        }
        drop(m);
        self.group.cv.notify_all();
        for (topic, e) in unavailable {
            log::debug!(
                self.cluster.log(),
                ctx::CONSUMER | ctx::TOPIC,
                "TOPICERR",
                "{e}"
            );
            report_topic_error(&self.shared, &topic, e);
        }
    }

    fn join(&mut self) {
        // eager: everything goes back before joining
        if !self.cooperative() {
            let owned = std::mem::take(&mut self.group.lock().owned);
            self.give_up(owned, false);
        }
        match self.join_round() {
            Ok(()) => {
                self.join_backoff = Duration::from_millis(100);
                self.join_retry_at = None;
                self.group.lock().last_error = None;
            }
            Err(JoinFailed::Again) => {}
            Err(JoinFailed::Closing) => {}
            Err(JoinFailed::Backoff(e)) => {
                log::debug!(
                    self.cluster.log(),
                    ctx::CGRP,
                    "JOINGROUP",
                    "Group \"{}\": join failed, retrying in {} ms: {e}",
                    self.group.settings.group_id,
                    self.join_backoff.as_millis()
                );
                self.set_join_state(JoinState::Init);
                let mut m = self.group.lock();
                let code = e.code();
                let new = m.last_error != Some(code);
                m.last_error = Some(code);
                drop(m);
                // transport trouble and retriable errors (the coordinator
                // moving or loading) are retried quietly, as librdkafka
                // reports only a JoinGroup / SyncGroup error it cannot retry
                if new
                    && e.code() != local::TRANSPORT
                    && e.code() != local::TIMED_OUT
                    && !e.is_retriable()
                {
                    self.report(e);
                }
                self.join_retry_at = Some(Instant::now() + self.join_backoff);
                self.join_backoff = (self.join_backoff * 2).min(Duration::from_secs(5));
            }
            Err(JoinFailed::Fatal(e)) => self.fenced(e),
        }
    }

    /// One JoinGroup + SyncGroup, and what follows from the assignment.
    fn join_round(&mut self) -> std::result::Result<(), JoinFailed> {
        let group = self.group.clone();
        let s = &group.settings;
        let deadline = Instant::now() + s.max_poll_interval + Duration::from_secs(5);
        let lookup = Instant::now() + s.socket_timeout;
        let conn = coordinator(&group, &self.cluster, lookup).map_err(JoinFailed::Backoff)?;
        let (member_id, topics, owned, generation) = {
            let mut m = group.lock();
            if m.closing {
                return Err(JoinFailed::Closing);
            }
            m.rejoin = false;
            m.in_join = true;
            (
                m.member_id.clone(),
                m.topics.clone(),
                m.owned.clone(),
                m.generation,
            )
        };
        self.set_join_state(JoinState::WaitJoin);
        let result = self.join_sync(&conn, member_id, topics, owned, generation, deadline);
        let mut m = group.lock();
        m.in_join = false;
        if m.closing {
            return Err(JoinFailed::Closing);
        }
        drop(m);
        let (assigned, leader_counts) = result?;
        // a new generation
        let (revoked, added) = {
            let mut m = group.lock();
            m.joined = true;
            if let Some(c) = leader_counts {
                m.counts.extend(c);
            }
            let revoked: BTreeSet<(String, i32)> = m.owned.difference(&assigned).cloned().collect();
            let added: BTreeSet<(String, i32)> = assigned.difference(&m.owned).cloned().collect();
            (revoked, added)
        };
        self.last_hb_ok = Instant::now();
        self.next_hb = Instant::now() + s.heartbeat_interval;
        if self.cooperative() {
            if !revoked.is_empty() {
                self.give_up(revoked, false);
                // KIP-429: the partitions given up go to their new owner
                // in the next round
                group.lock().rejoin = true;
            }
            group.lock().owned.extend(added.iter().cloned());
            if added.is_empty() {
                // librdkafka hands a cooperative member an assign after
                // every SyncGroup, of no partitions too, and counts it
                group.lock().cgrp.assigned(false);
            } else {
                self.take_on(&added, false);
            }
        } else {
            group.lock().owned = assigned.clone();
            self.take_on(&assigned, true);
        }
        self.set_join_state(JoinState::Steady);
        group.cv.notify_all();
        Ok(())
    }

    /// JoinGroup (again with the member id MEMBER_ID_REQUIRED gives) and
    /// SyncGroup: the assigned partitions, and the partition counts the
    /// assignment used when this member led.
    #[allow(clippy::type_complexity)]
    fn join_sync(
        &mut self,
        conn: &BrokerConn,
        mut member_id: String,
        topics: BTreeSet<String>,
        owned: BTreeSet<(String, i32)>,
        generation: i32,
        deadline: Instant,
    ) -> std::result::Result<(BTreeSet<(String, i32)>, Option<BTreeMap<String, i32>>), JoinFailed>
    {
        let group = self.group.clone();
        let s = &group.settings;
        let cooperative = self.cooperative();
        let mut protocols = Vec::new();
        for a in &s.assignors {
            let (own, gen) = if cooperative {
                (&owned, generation)
            } else {
                (&BTreeSet::new(), -1)
            };
            let meta = subscription_bytes(a.as_ref(), &topics, own, gen, s.rack.as_deref())
                .map_err(JoinFailed::Backoff)?;
            protocols.push(JoinGroupRequestProtocol {
                name: a.name().to_string(),
                metadata: Bytes::from(meta),
                ..Default::default()
            });
        }
        let failed = |e: Error| -> JoinFailed {
            if e.code() == local::TRANSPORT || e.code() == local::TIMED_OUT {
                group.lock().clear_coord();
            }
            JoinFailed::Backoff(e)
        };
        let version = conn
            .version_for::<JoinGroupRequest>(deadline)
            .map_err(failed)?;
        if s.instance_id.is_some() && version < 5 {
            return Err(JoinFailed::Fatal(Error::local(
                local::UNSUPPORTED_FEATURE,
                format!(
                    "{}: group.instance.id needs JoinGroup v5 (the broker has v{version})",
                    conn.name()
                ),
            )));
        }
        let join: JoinGroupResponse = loop {
            let req = JoinGroupRequest {
                group_id: s.group_id.clone(),
                session_timeout_ms: s.session_timeout.as_millis() as i32,
                rebalance_timeout_ms: s.max_poll_interval.as_millis() as i32,
                member_id: member_id.clone(),
                group_instance_id: s.instance_id.clone(),
                protocol_type: "consumer".into(),
                protocols: protocols.clone(),
                reason: None,
                ..Default::default()
            };
            let resp = conn
                .send_at(&req, version, deadline)
                .and_then(|p| p.wait_until(deadline))
                .map_err(failed)?;
            let code = KafkaCode(resp.error_code);
            match code {
                KafkaCode::NONE => break resp,
                KafkaCode::MEMBER_ID_REQUIRED => {
                    // KIP-394: join again with the id the coordinator gave
                    member_id = resp.member_id.clone();
                    group.lock().member_id = member_id.clone();
                }
                _ => return Err(self.group_error(code, "join")),
            }
            if group.lock().closing {
                return Err(JoinFailed::Closing);
            }
        };
        let protocol = join.protocol_name.clone().unwrap_or_default();
        log::debug!(
            self.cluster.log(),
            ctx::CGRP,
            "JOINGROUP",
            "{}: JoinGroup response: GenerationId {}, Protocol {protocol}, LeaderId {}{}, \
             my MemberId {}, member metadata count {}",
            conn.name(),
            join.generation_id,
            join.leader,
            if join.leader == join.member_id {
                " (me)"
            } else {
                ""
            },
            join.member_id,
            join.members.len()
        );
        {
            let mut m = group.lock();
            m.member_id = join.member_id.clone();
            m.generation = join.generation_id;
            m.protocol = Some(protocol.clone());
            m.leader = join.leader == join.member_id;
        }
        let mut leader_counts = None;
        self.set_join_state(if join.leader == join.member_id {
            JoinState::WaitMetadata
        } else {
            JoinState::WaitSync
        });
        let assignments = if join.leader == join.member_id {
            let assignor = s
                .assignors
                .iter()
                .find(|a| a.name() == protocol)
                .ok_or_else(|| {
                    JoinFailed::Backoff(Error::kafka(
                        KafkaCode::INCONSISTENT_GROUP_PROTOCOL,
                        format!("the group chose assignor {protocol:?}, which this member lacks"),
                    ))
                })?;
            let members: Vec<(String, Option<String>, Bytes)> = join
                .members
                .iter()
                .map(|m| {
                    (
                        m.member_id.clone(),
                        m.group_instance_id.clone(),
                        m.metadata.clone(),
                    )
                })
                .collect();
            let wanted = subscribed_topics(&members);
            let names: Vec<&str> = wanted.iter().map(String::as_str).collect();
            // partition counts, and replica racks for rack-aware assignors
            let (counts, racks) = if names.is_empty() {
                Default::default()
            } else {
                let create = self.cluster.config().bool("allow.auto.create.topics");
                let meta = self
                    .cluster
                    .fetch_metadata(Some(&names), create, s.socket_timeout)
                    .map_err(JoinFailed::Backoff)?;
                counts_and_racks(&meta)
            };
            let out = leader_assignments(assignor.as_ref(), &members, &counts, &racks)
                .map_err(JoinFailed::Backoff)?;
            leader_counts = Some(counts);
            out.into_iter()
                .map(|(member_id, a)| SyncGroupRequestAssignment {
                    member_id,
                    assignment: Bytes::from(a),
                    ..Default::default()
                })
                .collect()
        } else {
            Vec::new()
        };
        self.set_join_state(JoinState::WaitSync);
        let version = conn
            .version_for::<SyncGroupRequest>(deadline)
            .map_err(failed)?;
        let req = SyncGroupRequest {
            group_id: s.group_id.clone(),
            generation_id: join.generation_id,
            member_id: join.member_id.clone(),
            group_instance_id: s.instance_id.clone(),
            protocol_type: Some("consumer".into()),
            protocol_name: Some(protocol),
            assignments,
            ..Default::default()
        };
        let resp = conn
            .send_at(&req, version, deadline)
            .and_then(|p| p.wait_until(deadline))
            .map_err(failed)?;
        let code = KafkaCode(resp.error_code);
        if !code.is_ok() {
            return Err(self.group_error(code, "sync"));
        }
        let mut assigned = BTreeSet::new();
        if !resp.assignment.is_empty() {
            match decode_assignment(&resp.assignment) {
                Ok((_, a)) => {
                    for t in a.assigned_partitions {
                        for p in t.partitions {
                            assigned.insert((t.topic.clone(), p));
                        }
                    }
                }
                Err(e) => {
                    return Err(JoinFailed::Backoff(Error::Decode {
                        broker: Some(conn.name().to_string()),
                        error: e,
                    }))
                }
            }
        }
        log::debug!(
            self.cluster.log(),
            ctx::CGRP,
            "SYNCGROUP",
            "{}: SyncGroup response: {} partition(s) assigned to this member",
            conn.name(),
            assigned.len()
        );
        Ok((assigned, leader_counts))
    }

    /// What a JoinGroup/SyncGroup error code means for the next round.
    fn group_error(&mut self, code: KafkaCode, what: &str) -> JoinFailed {
        let e = Error::kafka(
            code,
            format!("{what} group {:?}", self.group.settings.group_id),
        );
        match code {
            KafkaCode::UNKNOWN_MEMBER_ID => {
                let mut m = self.group.lock();
                m.member_id.clear();
                m.generation = -1;
                m.rejoin = true;
                drop(m);
                self.lose_owned_if_cooperative(what);
                JoinFailed::Again
            }
            KafkaCode::ILLEGAL_GENERATION => {
                let mut m = self.group.lock();
                m.generation = -1;
                m.rejoin = true;
                drop(m);
                self.lose_owned_if_cooperative(what);
                JoinFailed::Again
            }
            KafkaCode::REBALANCE_IN_PROGRESS => {
                self.group.lock().rejoin = true;
                JoinFailed::Again
            }
            KafkaCode::FENCED_INSTANCE_ID => JoinFailed::Fatal(e),
            c if coordinator_moved(c) => {
                let mut m = self.group.lock();
                m.clear_coord();
                m.rejoin = true;
                JoinFailed::Backoff(e)
            }
            _ => {
                self.group.lock().rejoin = true;
                JoinFailed::Backoff(e)
            }
        }
    }

    /// Cooperative members keep partitions through a rejoin; a generation
    /// that is gone (a `what` = "join" or "sync" error) loses them.
    fn lose_owned_if_cooperative(&mut self, what: &str) {
        if self.cooperative() {
            self.rebalance_reason(if what == "join" {
                "JoinGroup error"
            } else {
                "SyncGroup error"
            });
            let owned = std::mem::take(&mut self.group.lock().owned);
            self.give_up(owned, true);
        }
    }
}
