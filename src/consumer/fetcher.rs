//! One fetch stream per broker: a thread that keeps one Fetch request in
//! flight on the broker's fetch connection for the partitions it leads,
//! within an incremental fetch session (KIP-227) when the broker keeps
//! them, by topic ID from Fetch v13 (KIP-516), with the leader epochs it
//! knows (KIP-320).
//!
//! Records are not decoded here: each partition's answer is framed
//! (complete entries counted, the next fetch offset read from the entry
//! headers) and its batches judged by their headers (control batches and
//! aborted transactions dropped), outside the consumer's lock; `poll`
//! decodes the records. The next request goes out at once, so the broker
//! works on it while the application reads. Fetching stops while the
//! queued data passes `queued.max.messages.kbytes`.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::session::{FetchSession, PartitionRequest, Plan, Tp};
use super::state::{prepare, Chunk, Item, Phase, Prepared, Shared, State};
use crate::cluster::{Cluster, Purpose};
use crate::error::{local, Error, Result};
use crate::log::{self, ctx};
use crate::message::Message;
use crate::protocol::fetch::{
    FetchPartition, FetchRequest, FetchResponse, FetchTopic, ForgottenTopic, NodeEndpoint,
    PartitionData,
};
use crate::protocol::{ErrorAction, KafkaCode};
use crate::wire::Uuid;

/// What was asked of a partition, to tell a current answer from a stale one.
#[derive(Debug, Clone, Copy)]
struct Asked {
    version: u64,
    fetch_pos: i64,
    topic_id: Uuid,
}

/// The fetch thread of one broker.
pub(crate) struct Fetcher {
    shared: Arc<Shared>,
    cluster: Cluster,
    broker: i32,
    session: FetchSession,
    session_ids: bool,
    /// A failure was reported and nothing succeeded since.
    failing: bool,
}

impl Fetcher {
    pub fn new(shared: Arc<Shared>, cluster: Cluster, broker: i32) -> Self {
        Fetcher {
            shared,
            cluster,
            broker,
            session: FetchSession::new(),
            session_ids: false,
            failing: false,
        }
    }

    /// Fetches until the consumer closes.
    pub fn run(mut self) {
        while let Some((wanted, asked)) = self.wait_for_work() {
            let topics: Vec<Arc<str>> = wanted.iter().map(|(tp, _)| tp.0.clone()).collect();
            let started = Instant::now();
            match self.fetch(wanted) {
                Ok((plan, version, resp)) => self.absorb(plan, version, resp, &asked, started),
                Err(e) => self.failed(e, &asked, &topics),
            }
        }
    }

    /// Blocks until some partition of this broker can be fetched (and the
    /// buffer has room); `None` once the consumer is closed.
    #[allow(clippy::type_complexity)]
    fn wait_for_work(&mut self) -> Option<(Vec<(Tp, PartitionRequest)>, HashMap<Tp, Asked>)> {
        let shared = self.shared.clone();
        let s = &shared.settings;
        let mut st = shared.lock();
        loop {
            if st.closed {
                return None;
            }
            let now = Instant::now();
            let mut wake: Option<Instant> = None;
            if st.buffered < s.max_buffered {
                let mut wanted = Vec::new();
                let mut asked = HashMap::new();
                for (tp, p) in &st.parts {
                    if p.fetchable(self.broker, now, s.queued_min) {
                        wanted.push((
                            tp.clone(),
                            PartitionRequest {
                                topic_id: p.topic_id,
                                fetch_offset: p.fetch_pos,
                                current_leader_epoch: p.leader_epoch,
                                last_fetched_epoch: p.fetch_epoch,
                                max_bytes: p.max_bytes,
                            },
                        ));
                        asked.insert(
                            tp.clone(),
                            Asked {
                                version: p.version,
                                fetch_pos: p.fetch_pos,
                                topic_id: p.topic_id,
                            },
                        );
                    } else if p.source() == self.broker && p.phase == Phase::Active && !p.paused {
                        if let Some(t) = p.retry_at {
                            wake = Some(wake.map_or(t, |w| w.min(t)));
                        }
                    }
                }
                if !wanted.is_empty() {
                    wanted.sort_by(|a, b| a.0.cmp(&b.0));
                    return Some((wanted, asked));
                }
            }
            let wait = wake.map_or(s.refresh_interval, |w| w.saturating_duration_since(now));
            st = shared
                .work
                .wait_timeout(st, wait)
                .map_or_else(|e| e.into_inner().0, |r| r.0);
        }
    }

    /// Sends one Fetch and waits for its answer.
    fn fetch(
        &mut self,
        mut wanted: Vec<(Tp, PartitionRequest)>,
    ) -> Result<(Plan, i16, FetchResponse)> {
        let s = &self.shared.settings;
        let conn = self.cluster.conn(self.broker, Purpose::Fetch)?;
        let deadline = Instant::now()
            + s.socket_timeout
            + std::time::Duration::from_millis(s.max_wait_ms as u64);
        let mut version = conn.version_for::<FetchRequest>(deadline)?;
        // Topic IDs from v13, if the broker gave every topic one.
        if version >= 13 && wanted.iter().any(|(_, r)| r.topic_id.is_zero()) {
            version = 12;
        }
        let ids = version >= 13;
        if ids != self.session_ids {
            self.session = FetchSession::new();
            self.session_ids = ids;
        }
        for (_, r) in &mut wanted {
            if !ids {
                r.topic_id = Uuid::ZERO;
            }
            if version < 9 {
                r.current_leader_epoch = -1;
            }
            if version < 12 {
                r.last_fetched_epoch = -1;
            }
        }
        let plan = self.session.plan(wanted, version >= 7);
        let req = build_request(&plan, version, s);
        let resp = conn
            .send_at(&req, version, deadline)?
            .wait_until(deadline)?;
        Ok((plan, version, resp))
    }

    /// The request failed on the way: report once, back off, look the
    /// leaders up again.
    fn failed(&mut self, e: Error, asked: &HashMap<Tp, Asked>, topics: &[Arc<str>]) {
        log::debug!(
            self.cluster.log(),
            ctx::FETCH,
            "FETCHERR",
            "broker {}: Fetch of {} partition(s) failed: {e}: retrying after fetch.error.backoff.ms {} ms",
            self.broker,
            asked.len(),
            self.shared.settings.error_backoff.as_millis()
        );
        self.session.fail(None);
        for t in topics {
            self.cluster.invalidate(t);
        }
        let shared = self.shared.clone();
        let mut st = shared.lock();
        if st.closed {
            return;
        }
        let retry = Instant::now() + shared.settings.error_backoff;
        for (tp, a) in asked {
            if let Some(p) = st.parts.get_mut(tp) {
                if p.version == a.version && p.source() == self.broker {
                    if p.replica >= 0 {
                        // an unreachable read replica: back to the leader
                        p.replica = -1;
                    } else {
                        p.leader = -1;
                    }
                    p.retry_at = Some(retry);
                }
            }
        }
        if !self.failing {
            self.failing = true;
            st.events.push_back(Message::event(
                Arc::from(""),
                -1,
                -1,
                Error::local(e.code(), format!("fetch from broker {}: {e}", self.broker)),
            ));
            shared.wake_pollers(&st);
        }
        shared.work.notify_all();
    }

    fn absorb(
        &mut self,
        plan: Plan,
        version: i16,
        mut resp: FetchResponse,
        asked: &HashMap<Tp, Asked>,
        started: Instant,
    ) {
        let endpoints = std::mem::take(&mut resp.node_endpoints);
        let shared = self.shared.clone();
        let s = &shared.settings;
        let ids: HashMap<Uuid, Arc<str>> = if version >= 13 {
            asked
                .iter()
                .map(|(tp, a)| (a.topic_id, tp.0.clone()))
                .collect()
        } else {
            HashMap::new()
        };
        let top = KafkaCode(resp.error_code);
        if top.is_ok() {
            self.session.complete(plan, resp.session_id);
        } else {
            self.session.fail(Some(top));
        }
        // Frame and filter outside the lock: poll goes on meanwhile.
        let mut fetched = Vec::new();
        for t in resp.responses {
            let name: Arc<str> = if version >= 13 {
                match ids.get(&t.topic_id) {
                    Some(n) => n.clone(),
                    None => continue,
                }
            } else {
                Arc::from(t.topic.as_str())
            };
            for pd in t.partitions {
                let key = (name.clone(), pd.partition_index);
                let Some(a) = asked.get(&key) else { continue };
                let ready = self.ready(&pd, a, version);
                fetched.push((key, *a, pd, ready));
            }
        }
        let mut st = shared.lock();
        if st.closed {
            return;
        }
        if !top.is_ok() {
            if FetchSession::is_session_error(top) {
                // just start over with a full request
                return;
            }
            let first = !self.failing;
            self.failing = true;
            let retry = Instant::now() + s.error_backoff;
            let refresh = top.action() == ErrorAction::RefreshMetadataAndRetry;
            log::debug!(
                self.cluster.log(),
                ctx::FETCH,
                "FETCHERR",
                "broker {}: Fetch response error: {top}: retrying in {} ms{}",
                self.broker,
                s.error_backoff.as_millis(),
                if refresh {
                    " after a metadata refresh"
                } else {
                    ""
                }
            );
            for (tp, a) in asked {
                if let Some(p) = st.parts.get_mut(tp) {
                    if p.version == a.version {
                        p.retry_at = Some(retry);
                        if refresh {
                            p.leader = -1;
                            self.cluster.invalidate(&tp.0);
                        }
                    }
                }
            }
            // librdkafka applies a top-level error to every partition and
            // handles leadership, replica and storage errors itself, as it
            // does per partition: the application hears only of the others.
            let internal = matches!(
                top,
                KafkaCode::OFFSET_NOT_AVAILABLE
                    | KafkaCode::UNKNOWN_TOPIC_OR_PARTITION
                    | KafkaCode::LEADER_NOT_AVAILABLE
                    | KafkaCode::NOT_LEADER_OR_FOLLOWER
                    | KafkaCode::BROKER_NOT_AVAILABLE
                    | KafkaCode::REPLICA_NOT_AVAILABLE
                    | KafkaCode::KAFKA_STORAGE_ERROR
                    | KafkaCode::UNKNOWN_LEADER_EPOCH
                    | KafkaCode::FENCED_LEADER_EPOCH
                    | KafkaCode::UNKNOWN_TOPIC_ID
            );
            if first && !internal {
                st.events.push_back(Message::event(
                    Arc::from(""),
                    -1,
                    -1,
                    Error::kafka(top, format!("fetch from broker {}", self.broker)),
                ));
                shared.wake_pollers(&st);
            }
            shared.work.notify_all();
            return;
        }
        self.failing = false;
        // An answer without records, errors or a read replica that came
        // back before fetch.wait.max.ms (fetch.min.bytes was not met, so the
        // broker should have waited): wait out the rest before fetching these
        // partitions again (at most fetch.error.backoff.ms), rather than
        // asking again at once, in a loop, for as long as it answers so.
        let max_wait = Duration::from_millis(s.max_wait_ms.max(0) as u64);
        let all_empty = fetched.iter().all(|(_, _, pd, ready)| {
            pd.error_code == 0
                && pd.preferred_read_replica < 0
                && ready.as_ref().is_some_and(|r| r.empty)
        });
        if all_empty && started.elapsed() < max_wait {
            let until = started + max_wait.min(s.error_backoff);
            for (tp, a) in asked {
                if let Some(p) = st.parts.get_mut(tp) {
                    if p.version == a.version
                        && p.fetch_pos == a.fetch_pos
                        && p.retry_at.is_none_or(|t| t <= until)
                    {
                        p.retry_at = Some(until);
                    }
                }
            }
        }
        let mut queued = false;
        let mut reroute = false;
        for (key, a, pd, ready) in fetched {
            let leader = self.new_leader(&key, &pd, &endpoints);
            match self.absorb_partition(&mut st, &key, a, version, pd, ready, leader) {
                Absorbed::Queued => queued = true,
                Absorbed::Reroute => reroute = true,
                Absorbed::Nothing => {}
            }
        }
        if queued {
            shared.wake_pollers(&st);
        }
        if reroute {
            shared.work.notify_all();
        }
    }

    /// Frames a partition's records and makes their batches ready, for an
    /// answer without error.
    fn ready(&self, pd: &PartitionData, asked: &Asked, version: i16) -> Option<Ready> {
        if pd.error_code != 0 || (version >= 12 && pd.diverging_epoch.epoch >= 0) {
            return None;
        }
        let s = &self.shared.settings;
        let records = pd.records.clone().unwrap_or_default();
        let scan = scan(&records);
        let batches = if scan.complete > 0 && scan.next > asked.fetch_pos {
            let aborted: VecDeque<(i64, i64)> = if s.read_committed {
                let mut a: Vec<(i64, i64)> = pd
                    .aborted_transactions
                    .as_deref()
                    .unwrap_or_default()
                    .iter()
                    .map(|t| (t.producer_id, t.first_offset))
                    .collect();
                a.sort_by_key(|t| t.1);
                a.into()
            } else {
                VecDeque::new()
            };
            let complete = records.slice(0..scan.complete);
            let batches = prepare(
                &complete,
                asked.fetch_pos,
                aborted,
                s.read_committed,
                &s.decode,
            );
            Some((batches, scan.complete))
        } else {
            None
        };
        Some(Ready {
            scan,
            empty: records.is_empty(),
            batches,
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn absorb_partition(
        &self,
        st: &mut State,
        key: &Tp,
        asked: Asked,
        version: i16,
        pd: PartitionData,
        ready: Option<Ready>,
        new_leader: Option<(i32, i32)>,
    ) -> Absorbed {
        let s = &self.shared.settings;
        let Some(p) = st.parts.get_mut(key) else {
            return Absorbed::Nothing;
        };
        if p.version != asked.version
            || p.fetch_pos != asked.fetch_pos
            || p.source() != self.broker
            || p.phase != Phase::Active
        {
            return Absorbed::Nothing; // seeked, moved or paused meanwhile
        }
        let code = KafkaCode(pd.error_code);
        if let Some((leader, epoch)) = new_leader.filter(|_| p.replica < 0) {
            // KIP-951: the answer names the new leader; fetch there without
            // a metadata round trip (validating the position first if the
            // epoch moved on, KIP-320)
            if epoch > p.leader_epoch
                && p.leader_epoch >= 0
                && p.fetch_epoch >= 0
                && p.phase == Phase::Active
            {
                p.phase = Phase::Validate;
            }
            p.leader = leader;
            p.leader_epoch = epoch;
            p.retry_at = None;
            if !st.fetchers.contains(&leader) && !st.want_fetchers.contains(&leader) {
                st.want_fetchers.push(leader);
            }
            return Absorbed::Reroute;
        }
        if !code.is_ok() {
            return self.partition_error(st, key, code);
        }
        if version >= 11
            && pd.preferred_read_replica >= 0
            && pd.preferred_read_replica != self.broker
        {
            return self.delegate(st, key, pd.preferred_read_replica);
        }
        p.hi = pd.high_watermark;
        p.lso = pd.last_stable_offset;
        if pd.log_start_offset >= 0 {
            p.lo = pd.log_start_offset;
        }
        if version >= 12 && pd.diverging_epoch.epoch >= 0 {
            let (epoch, end) = (pd.diverging_epoch.epoch, pd.diverging_epoch.end_offset);
            let ev = st.truncated(key, epoch, end, s.reset, "fetch");
            if let Some(m) = ev {
                st.push(key, Item::Event(m));
                return Absorbed::Queued;
            }
            return Absorbed::Reroute;
        }
        let Some(Ready {
            scan,
            empty,
            batches,
        }) = ready
        else {
            return Absorbed::Nothing;
        };
        let mut events: Vec<Message> = Vec::new();
        let mut chunk = None;
        let p = st.parts.get_mut(key).expect("checked above");
        if let Some((batches, bytes)) = batches {
            chunk = Some(Chunk {
                version: p.version,
                start: p.fetch_pos,
                end: scan.next,
                batches,
                batch: Default::default(),
                bytes,
                returned: -1,
                msgs: 0,
                msg_bytes: 0,
            });
            p.fetch_pos = scan.next;
            if scan.epoch >= 0 {
                p.fetch_epoch = scan.epoch;
            }
            p.eof_sent = false;
            p.last_error = None;
        } else if let Some(bad) = scan.bad {
            p.retry_at = Some(Instant::now() + s.error_backoff);
            events.extend(p.report(Error::local(
                local::BAD_MSG,
                format!("{} [{}] at offset {}: {bad}", key.0, key.1, p.fetch_pos),
            )));
        } else if scan.complete == 0 && !empty {
            // The first entry is larger than what was asked for (brokers
            // before KIP-74): ask for enough next time, if allowed.
            let need = scan.first_len.min(i32::MAX as usize) as i32;
            if need <= s.max_partition_fetch {
                p.max_bytes = p.max_bytes.max(need);
            } else {
                p.retry_at = Some(Instant::now() + s.error_backoff);
                events.extend(p.report(Error::kafka(
                    KafkaCode::MESSAGE_TOO_LARGE,
                    format!(
                        "{} [{}] at offset {}: a {need}-byte batch does not fit in a fetch response",
                        key.0, key.1, p.fetch_pos
                    ),
                )));
            }
        }
        let eof_at = if s.read_committed && p.lso >= 0 {
            p.lso
        } else {
            p.hi
        };
        if s.partition_eof && !p.eof_sent && eof_at >= 0 && p.fetch_pos >= eof_at {
            p.eof_sent = true;
            events.push(Message::event(
                key.0.clone(),
                key.1,
                p.fetch_pos,
                Error::local(
                    local::PARTITION_EOF,
                    format!(
                        "{} [{}] reached end at offset {}",
                        key.0, key.1, p.fetch_pos
                    ),
                ),
            ));
        }
        let queued = chunk.is_some() || !events.is_empty();
        if let Some(c) = chunk {
            st.push(key, Item::Records(c));
        }
        for m in events {
            st.push(key, Item::Event(m));
        }
        if queued {
            Absorbed::Queued
        } else {
            Absorbed::Nothing
        }
    }

    /// KIP-951: the (leader, epoch) a NOT_LEADER_OR_FOLLOWER or
    /// FENCED_LEADER_EPOCH answer names, once taken into the cluster's
    /// metadata (with its endpoint, from the answer's `node_endpoints`).
    fn new_leader(
        &self,
        key: &Tp,
        pd: &PartitionData,
        endpoints: &[NodeEndpoint],
    ) -> Option<(i32, i32)> {
        let code = KafkaCode(pd.error_code);
        if code != KafkaCode::NOT_LEADER_OR_FOLLOWER && code != KafkaCode::FENCED_LEADER_EPOCH {
            return None;
        }
        let (leader, epoch) = (pd.current_leader.leader_id, pd.current_leader.leader_epoch);
        if leader < 0 || leader == self.broker {
            return None;
        }
        let endpoint =
            endpoints
                .iter()
                .find(|n| n.node_id == leader)
                .map(|n| crate::cluster::BrokerInfo {
                    id: n.node_id,
                    host: n.host.clone(),
                    port: n.port,
                    rack: n.rack.clone(),
                });
        self.cluster
            .update_leader(&key.0, key.1, leader, epoch, endpoint)
            .then_some((leader, epoch))
    }

    /// KIP-392: the leader named another replica to fetch `key` from (one
    /// in the consumer's `client.rack`); its answer holds no records. A
    /// leader that names one again within a minute of the last time (the
    /// replica failed, or metadata is stale) is slowed down by
    /// `fetch.error.backoff.ms`, as librdkafka does.
    fn delegate(&self, st: &mut State, key: &Tp, replica: i32) -> Absorbed {
        let s = &self.shared.settings;
        let now = Instant::now();
        let p = st.parts.get_mut(key).expect("caller checked");
        if p.replica_at
            .is_some_and(|t| now.duration_since(t) < Duration::from_secs(60))
        {
            p.retry_at = Some(now + s.error_backoff);
        }
        p.replica_at = Some(now);
        p.replica = if replica == p.leader { -1 } else { replica };
        if !st.fetchers.contains(&replica) && !st.want_fetchers.contains(&replica) {
            st.want_fetchers.push(replica);
        }
        Absorbed::Reroute
    }

    fn partition_error(&self, st: &mut State, key: &Tp, code: KafkaCode) -> Absorbed {
        let s = &self.shared.settings;
        let p = st.parts.get_mut(key).expect("caller checked");
        let at = p.fetch_pos;
        log::debug!(
            self.cluster.log(),
            ctx::FETCH,
            "FETCHERR",
            "broker {}: {} [{}]: Fetch failed at offset {at} (leader epoch {}): {code}: \
             retrying in {} ms",
            self.broker,
            key.0,
            key.1,
            p.leader_epoch,
            s.error_backoff.as_millis()
        );
        if p.replica == self.broker
            && !matches!(
                code,
                KafkaCode::FENCED_LEADER_EPOCH | KafkaCode::UNKNOWN_LEADER_EPOCH
            )
        {
            // KIP-392: an error from a read replica (no longer a replica,
            // out of sync, or without the offset yet) sends the partition
            // back to the leader, which may name a replica again.
            p.replica = -1;
            return Absorbed::Reroute;
        }
        if code == KafkaCode::OFFSET_OUT_OF_RANGE {
            match s.reset.logical() {
                Some(l) => {
                    p.phase = Phase::Resolve(l);
                    return Absorbed::Reroute;
                }
                None => {
                    p.phase = Phase::Stopped;
                    let e = Error::local(
                        local::AUTO_OFFSET_RESET,
                        format!(
                            "{} [{}]: fetch failed due to requested offset not available on the broker: offset {at} out of range (broker {}), auto.offset.reset=error",
                            key.0, key.1, self.broker
                        ),
                    );
                    let m = Message::event(key.0.clone(), key.1, at, e);
                    st.push(key, Item::Event(m));
                    return Absorbed::Queued;
                }
            }
        }
        p.retry_at = Some(Instant::now() + s.error_backoff);
        let ctx = format!(
            "{} [{}] fetch at offset {at} (broker {})",
            key.0, key.1, self.broker
        );
        if code.action() == ErrorAction::RefreshMetadataAndRetry {
            self.cluster.invalidate(&key.0);
            p.leader = -1;
            // An unknown topic ID is the application's business; leadership
            // moves are not, nor is a Fetch's UNKNOWN_TOPIC_OR_PARTITION
            // (librdkafka's fetcher handles it itself: metadata refresh and
            // retry); a topic that is really gone is reported by the
            // metadata lookup that follows.
            let ev = if code == KafkaCode::UNKNOWN_TOPIC_ID {
                p.report(Error::kafka(code, ctx))
            } else {
                None
            };
            if let Some(m) = ev {
                st.push(key, Item::Event(m));
            }
            return Absorbed::Reroute;
        }
        if let Some(m) = p.report(Error::kafka(code, ctx)) {
            st.push(key, Item::Event(m));
            return Absorbed::Queued;
        }
        Absorbed::Nothing
    }
}

/// A partition's answer, framed and made ready outside the lock.
struct Ready {
    scan: Scan,
    /// The broker sent no records.
    empty: bool,
    /// The batches and their bytes, if any are new.
    batches: Option<(VecDeque<Prepared>, usize)>,
}

enum Absorbed {
    Nothing,
    Queued,
    /// The control thread has work (a lookup, a reset).
    Reroute,
}

fn build_request(plan: &Plan, version: i16, s: &super::state::Settings) -> FetchRequest {
    let ids = version >= 13;
    let mut topics: Vec<FetchTopic> = Vec::new();
    for (tp, r) in &plan.send {
        let fp = FetchPartition {
            partition: tp.1,
            current_leader_epoch: r.current_leader_epoch,
            fetch_offset: r.fetch_offset,
            last_fetched_epoch: r.last_fetched_epoch,
            log_start_offset: -1,
            partition_max_bytes: r.max_bytes,
            ..Default::default()
        };
        let same = |t: &FetchTopic| {
            if ids {
                t.topic_id == r.topic_id
            } else {
                t.topic == *tp.0
            }
        };
        match topics.last_mut().filter(|t| same(t)) {
            Some(t) => t.partitions.push(fp),
            None => topics.push(FetchTopic {
                topic: if ids { String::new() } else { tp.0.to_string() },
                topic_id: if ids { r.topic_id } else { Uuid::ZERO },
                partitions: vec![fp],
                ..Default::default()
            }),
        }
    }
    let mut forgotten: Vec<ForgottenTopic> = Vec::new();
    for (tp, id) in &plan.forget {
        let same = |t: &ForgottenTopic| {
            if ids {
                t.topic_id == *id
            } else {
                t.topic == *tp.0
            }
        };
        match forgotten.last_mut().filter(|t| same(t)) {
            Some(t) => t.partitions.push(tp.1),
            None => forgotten.push(ForgottenTopic {
                topic: if ids { String::new() } else { tp.0.to_string() },
                topic_id: if ids { *id } else { Uuid::ZERO },
                partitions: vec![tp.1],
                ..Default::default()
            }),
        }
    }
    FetchRequest {
        replica_id: -1,
        max_wait_ms: s.max_wait_ms,
        min_bytes: s.min_bytes,
        max_bytes: s.max_bytes,
        isolation_level: i8::from(s.read_committed),
        session_id: plan.session_id,
        session_epoch: plan.epoch,
        topics,
        forgotten_topics_data: forgotten,
        rack_id: s.rack.clone(),
        ..Default::default()
    }
}

/// The framing of a partition's fetched records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Scan {
    /// Bytes of complete entries at the start.
    pub complete: usize,
    /// The offset after the last complete entry (-1 if none).
    pub next: i64,
    /// The leader epoch of the last complete batch (magic 2), or -1.
    pub epoch: i32,
    /// The full length of the first entry, when it is incomplete.
    pub first_len: usize,
    /// Why framing stopped early, if an entry is impossible.
    pub bad: Option<String>,
}

/// Frames `b` by entry headers only: offset and length of every entry, the
/// last offset delta and leader epoch of record batches. The trailing entry
/// may be cut short by the broker (that is normal).
pub(crate) fn scan(b: &[u8]) -> Scan {
    const OVERHEAD: usize = 12;
    const MIN_MESSAGE: i32 = 14; // magic 0: crc, magic, attributes, key and value lengths
    const MIN_BATCH: usize = 61;
    let mut out = Scan {
        complete: 0,
        next: -1,
        epoch: -1,
        first_len: 0,
        bad: None,
    };
    let be32 = |s: &[u8]| i32::from_be_bytes([s[0], s[1], s[2], s[3]]);
    let be64 = |s: &[u8]| i64::from_be_bytes([s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]]);
    let mut pos = 0;
    while b.len() - pos >= OVERHEAD {
        let e = &b[pos..];
        let offset = be64(e);
        let len = be32(&e[8..]);
        if len < MIN_MESSAGE {
            out.bad = Some(format!("entry length {len} is impossible"));
            break;
        }
        let total = OVERHEAD + len as usize;
        if total > e.len() {
            if pos == 0 {
                out.first_len = total;
            }
            break;
        }
        match e[16] as i8 {
            2 if total >= MIN_BATCH => {
                let last_delta = be32(&e[23..]);
                let epoch = be32(&e[12..]);
                out.next = out
                    .next
                    .max(offset.saturating_add(i64::from(last_delta)) + 1);
                if epoch >= 0 {
                    out.epoch = epoch;
                }
            }
            0 | 1 => out.next = out.next.max(offset + 1),
            m => {
                out.bad = Some(format!("entry of unsupported magic {m} (length {len})"));
                break;
            }
        }
        pos += total;
    }
    out.complete = pos;
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compression::Codec;
    use crate::record::{MessageSetBuilder, RecordBatchBuilder};

    #[test]
    fn scan_frames_mixed_formats_and_stops_at_a_partial_tail() {
        let mut b = RecordBatchBuilder::new()
            .base_offset(10)
            .partition_leader_epoch(4);
        for i in 0..3 {
            b.append(1, None, Some(format!("v{i}").as_bytes()), &[])
                .unwrap();
        }
        let v2 = b.finish(Codec::Lz4, None).unwrap();
        let mut m = MessageSetBuilder::new(1).unwrap().base_offset(13);
        m.append(1, Some(b"k"), Some(b"v")).unwrap();
        let v1 = m.finish(Codec::None, None).unwrap();
        let mut all = v2.clone();
        all.extend_from_slice(&v1);
        let complete = all.len();
        all.extend_from_slice(&v2[..20]);
        let s = scan(&all);
        assert_eq!(
            (s.complete, s.next, s.epoch, s.bad),
            (complete, 14, 4, None)
        );
        let only_partial = scan(&v2[..v2.len() - 1]);
        assert_eq!(
            (only_partial.complete, only_partial.first_len),
            (0, v2.len())
        );
        let mut bad = v1.clone();
        bad[8..12].copy_from_slice(&3i32.to_be_bytes());
        assert!(scan(&bad).bad.is_some());
    }
}
