//! The consumer's control thread and the offset requests it makes.
//!
//! The thread finds partitions' leaders (starting a fetch thread per
//! leader), turns logical start offsets into absolute ones (ListOffsets for
//! beginning, end and tails; OffsetFetch to the group coordinator for the
//! committed offset), checks positions after a leader change with
//! OffsetForLeaderEpoch (KIP-320), and looks at the leaders of assigned
//! partitions every `topic.metadata.refresh.interval.ms`. The same request
//! helpers serve the blocking calls of [`super::Consumer`].

use crate::sync::MutexExt;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::coordinator::{coordinator, retrying};
use super::fetcher::Fetcher;
use super::session::Tp;
use super::state::{Item, Phase, Running, Shared, State};
use crate::cluster::offsets::list_offsets;
use crate::cluster::{Cluster, Purpose};
use crate::error::{local, Error, Result};
use crate::message::{offset, Message};
use crate::protocol::offset_fetch::{
    OffsetFetchRequest, OffsetFetchRequestGroup, OffsetFetchRequestTopic, OffsetFetchRequestTopics,
};
use crate::protocol::offset_for_leader_epoch::{
    OffsetForLeaderEpochRequest, OffsetForLeaderPartition, OffsetForLeaderTopic,
};
use crate::protocol::{ErrorAction, KafkaCode};

/// Threads of a consumer, joined on close.
pub(crate) type Threads = Arc<Mutex<Vec<JoinHandle<()>>>>;

/// Work found under the lock, done without it.
#[derive(Default)]
struct Work {
    /// Partitions without a known leader, with their version.
    route: Vec<(Tp, u64)>,
    /// Logical offsets to resolve: (partition, version, logical offset, leader).
    resolve: Vec<(Tp, u64, i64, i32)>,
    /// Positions to validate: (partition, version, leader, leader epoch, fetch epoch).
    validate: Vec<(Tp, u64, i32, i32, i32)>,
    refresh: bool,
}

/// The control thread.
pub(crate) struct Control {
    shared: Arc<Shared>,
    cluster: Cluster,
    threads: Threads,
    next_refresh: Instant,
}

impl Control {
    pub fn new(shared: Arc<Shared>, cluster: Cluster, threads: Threads) -> Self {
        let next_refresh = Instant::now() + shared.settings.refresh_interval;
        Control {
            shared,
            cluster,
            threads,
            next_refresh,
        }
    }

    /// Runs until the consumer closes.
    pub fn run(mut self) {
        while let Some(work) = self.wait_for_work() {
            if !work.route.is_empty() {
                self.route(&work.route);
            }
            if !work.resolve.is_empty() {
                self.resolve(work.resolve);
            }
            if !work.validate.is_empty() {
                self.validate(work.validate);
            }
            if work.refresh {
                self.refresh();
            }
        }
    }

    fn wait_for_work(&mut self) -> Option<Work> {
        let shared = self.shared.clone();
        let mut st = shared.lock();
        loop {
            if st.closed {
                return None;
            }
            // fetch threads for the read replicas leaders named (KIP-392)
            for id in std::mem::take(&mut st.want_fetchers) {
                self.ensure_fetcher(&mut st, id);
            }
            let now = Instant::now();
            let mut work = Work::default();
            let mut wake = self.next_refresh;
            for (tp, p) in &st.parts {
                if p.phase == Phase::Stopped {
                    continue;
                }
                if let Some(t) = p.retry_at.filter(|t| *t > now) {
                    wake = wake.min(t);
                    continue;
                }
                let stored = matches!(p.phase, Phase::Resolve(l) if l == offset::STORED || l == offset::INVALID);
                if p.leader < 0 && !stored {
                    work.route.push((tp.clone(), p.version));
                    continue;
                }
                match p.phase {
                    Phase::Resolve(l) => work.resolve.push((tp.clone(), p.version, l, p.leader)),
                    Phase::Validate => work.validate.push((
                        tp.clone(),
                        p.version,
                        p.leader,
                        p.leader_epoch,
                        p.fetch_epoch,
                    )),
                    _ => {}
                }
            }
            if now >= self.next_refresh {
                self.next_refresh = now + shared.settings.refresh_interval;
                work.refresh = !st.parts.is_empty();
            }
            if !work.route.is_empty()
                || !work.resolve.is_empty()
                || !work.validate.is_empty()
                || work.refresh
            {
                return Some(work);
            }
            st = shared
                .work
                .wait_timeout(st, wake.saturating_duration_since(now))
                .map_or_else(|e| e.into_inner().0, |r| r.0);
        }
    }

    /// `allow.auto.create.topics` (false by default for consumers, as librdkafka).
    fn auto_create(&self) -> bool {
        self.cluster.config().bool("allow.auto.create.topics")
    }

    fn timeout(&self) -> Duration {
        self.shared.settings.socket_timeout
    }

    /// Starts the fetch thread of broker `id` if it has none.
    fn ensure_fetcher(&self, st: &mut State, id: i32) {
        if st.closed || st.fetchers.contains(&id) {
            return;
        }
        st.fetchers.push(id);
        let f = Fetcher::new(self.shared.clone(), self.cluster.clone(), id);
        st.running += 1;
        let guard = Running(self.shared.clone());
        match std::thread::Builder::new()
            .name(format!("gregor fetch {id}"))
            .spawn(move || {
                let _running = guard;
                f.run();
            }) {
            Ok(h) => self.threads.locked().push(h),
            Err(e) => {
                st.fetchers.retain(|b| *b != id);
                st.events.push_back(Message::event(
                    Arc::from(""),
                    -1,
                    -1,
                    Error::local(local::FAIL, format!("cannot start fetch thread: {e}")),
                ));
            }
        }
    }

    /// Looks up leaders (and topic IDs) of partitions that have none.
    fn route(&self, parts: &[(Tp, u64)]) {
        let mut topics: BTreeMap<Arc<str>, Vec<(i32, u64)>> = BTreeMap::new();
        for ((t, p), v) in parts {
            topics.entry(t.clone()).or_default().push((*p, *v));
        }
        let s = &self.shared.settings;
        for (topic, parts) in topics {
            let info = self
                .cluster
                .topic(&topic, self.auto_create(), self.timeout());
            let shared = self.shared.clone();
            let mut st = shared.lock();
            let retry = Instant::now() + s.error_backoff;
            let mut changed = false;
            for (partition, version) in parts {
                let key = (topic.clone(), partition);
                let ev = match &info {
                    Ok(info) => {
                        let Some(p) = st.parts.get_mut(&key).filter(|p| p.version == version)
                        else {
                            continue;
                        };
                        let recreated = !p.topic_id.is_zero() && p.topic_id != info.id;
                        p.topic_id = info.id;
                        match info.partitions.iter().find(|x| x.id == partition) {
                            Some(meta) if meta.leader >= 0 => {
                                if p.leader_epoch >= 0
                                    && meta.leader_epoch > p.leader_epoch
                                    && p.fetch_epoch >= 0
                                    && p.phase == Phase::Active
                                {
                                    p.phase = Phase::Validate;
                                }
                                p.leader = meta.leader;
                                p.leader_epoch = meta.leader_epoch;
                                p.replica = -1;
                                p.retry_at = None;
                                changed = true;
                                let leader = meta.leader;
                                let ev = if recreated {
                                    self.recreated(&mut st, &key)
                                } else {
                                    None
                                };
                                self.ensure_fetcher(&mut st, leader);
                                ev
                            }
                            Some(_) => {
                                p.retry_at = Some(retry);
                                None
                            }
                            None => {
                                p.retry_at =
                                    Some(retry.max(Instant::now() + Duration::from_secs(1)));
                                p.report(Error::local(
                                    local::UNKNOWN_PARTITION,
                                    format!(
                                        "{topic} [{partition}]: no such partition ({} partitions)",
                                        info.partitions.len()
                                    ),
                                ))
                            }
                        }
                    }
                    Err(e) => {
                        let Some(p) = st.parts.get_mut(&key).filter(|p| p.version == version)
                        else {
                            continue;
                        };
                        p.retry_at = Some(retry);
                        p.report(e.clone())
                    }
                };
                if let Some(m) = ev {
                    st.push(&key, Item::Event(m));
                    shared.wake_pollers(&st);
                }
            }
            if changed {
                shared.work.notify_all();
            }
        }
    }

    /// A topic came back with another ID: it was deleted and created again,
    /// and the position means nothing in the new one. Reset it by
    /// `auto.offset.reset` and tell the application.
    fn recreated(&self, st: &mut State, key: &Tp) -> Option<Message> {
        let version = st.version();
        st.sync_current();
        st.purge(key, usize::MAX);
        let p = st.parts.get_mut(key)?;
        p.version = version;
        p.fetch_epoch = -1;
        p.leader_epoch = -1;
        let at = p.fetch_pos;
        let what = match self.shared.settings.reset.logical() {
            Some(l) => {
                p.phase = Phase::Resolve(l);
                "position reset by auto.offset.reset"
            }
            None => {
                p.phase = Phase::Stopped;
                "stopped (auto.offset.reset=error)"
            }
        };
        p.last_error = Some(i32::from(KafkaCode::UNKNOWN_TOPIC_ID.0));
        Some(Message::event(
            key.0.clone(),
            key.1,
            at,
            Error::kafka(
                KafkaCode::UNKNOWN_TOPIC_ID,
                format!(
                    "{} [{}]: the topic was deleted and created again (new topic ID {}); {what}",
                    key.0, key.1, p.topic_id
                ),
            ),
        ))
    }

    /// Resolves logical offsets.
    fn resolve(&self, work: Vec<(Tp, u64, i64, i32)>) {
        let s = &self.shared.settings;
        let deadline = Instant::now() + self.timeout();
        let mut queries: Vec<(Tp, i64)> = Vec::new();
        let mut stored: Vec<(Tp, u64, i64)> = Vec::new();
        for (tp, _, l, _) in &work {
            match *l {
                offset::STORED | offset::INVALID => {}
                l if l <= offset::TAIL_BASE => {
                    queries.push((tp.clone(), offset::END));
                    queries.push((tp.clone(), offset::BEGINNING));
                }
                l => queries.push((tp.clone(), l)),
            }
        }
        for (tp, v, l, _) in &work {
            if *l == offset::STORED || *l == offset::INVALID {
                stored.push((tp.clone(), *v, *l));
            }
        }
        let found = list_offsets(&self.cluster, s.read_committed, &queries, deadline);
        let committed = if stored.is_empty() {
            HashMap::new()
        } else if let Some(group) = &s.group_id {
            let tps: Vec<Tp> = stored.iter().map(|x| x.0.clone()).collect();
            match offset_fetch(
                &self.cluster,
                group,
                Some(&self.shared),
                s.read_committed,
                &tps,
                deadline,
            ) {
                Ok(m) => m,
                Err(e) => tps.into_iter().map(|tp| (tp, Err(e.clone()))).collect(),
            }
        } else {
            HashMap::new()
        };
        let shared = self.shared.clone();
        let mut st = shared.lock();
        let retry = Instant::now() + s.error_backoff;
        let mut changed = false;
        for (tp, version, l, _) in work {
            let outcome: Result<(i64, i32)> = if l == offset::STORED || l == offset::INVALID {
                match (&s.group_id, committed.get(&tp)) {
                    (Some(_), Some(r)) => r.clone(),
                    (Some(_), None) => Err(Error::local(
                        local::BAD_MSG,
                        format!(
                            "{} [{}]: OffsetFetch answer lacks the partition",
                            tp.0, tp.1
                        ),
                    )),
                    // no group: nothing can be committed
                    (None, _) => Ok((-1, -1)),
                }
            } else if l <= offset::TAIL_BASE {
                let n = offset::TAIL_BASE - l;
                match (
                    get(&found, &tp, offset::END),
                    get(&found, &tp, offset::BEGINNING),
                ) {
                    (Ok((hi, _)), Ok((lo, _))) => Ok(((hi - n).max(lo), -1)),
                    (Err(e), _) | (_, Err(e)) => Err(e),
                }
            } else {
                get(&found, &tp, l).map(|(o, _)| (o, -1))
            };
            let Some(p) = st.parts.get_mut(&tp).filter(|p| p.version == version) else {
                continue;
            };
            if p.phase != Phase::Resolve(l) {
                continue;
            }
            let mut queued = false;
            let ev = match outcome {
                Ok((o, epoch)) if o >= 0 => {
                    p.start_at(o, (epoch >= 0).then_some(epoch));
                    changed = true;
                    None
                }
                Ok(_) => {
                    // no committed offset (or none at all): auto.offset.reset
                    match s.reset.logical() {
                        Some(r) => {
                            p.phase = Phase::Resolve(r);
                            changed = true;
                            None
                        }
                        None => {
                            p.phase = Phase::Stopped;
                            Some(Message::event(
                                tp.0.clone(),
                                tp.1,
                                l,
                                Error::local(
                                    local::AUTO_OFFSET_RESET,
                                    // librdkafka's reason quotes the
                                    // text of `_NO_OFFSET`
                                    format!(
                                        "{} [{}]: no previously committed offset available for group {:?}: {}, auto.offset.reset=error",
                                        tp.0,
                                        tp.1,
                                        s.group_id.as_deref().unwrap_or(""),
                                        crate::error::code_description(local::NO_OFFSET)
                                    ),
                                ),
                            ))
                        }
                    }
                }
                Err(e) => {
                    p.retry_at = Some(retry);
                    if e.kafka_code().map(KafkaCode::action)
                        == Some(ErrorAction::RefreshMetadataAndRetry)
                        || e.code() == local::UNKNOWN_PARTITION
                    {
                        p.leader = -1;
                        self.cluster.invalidate(&tp.0);
                    }
                    // As librdkafka: a temporary error is retried quietly;
                    // only a permanent one reaches the application.
                    if e.is_retriable() {
                        None
                    } else if l == offset::STORED || l == offset::INVALID {
                        p.report(e)
                    } else {
                        // A logical offset the leader will not look up:
                        // auto.offset.reset decides, as librdkafka's
                        // (rd_kafka_offset_reset on a permanent ListOffsets
                        // error, before the error itself).
                        match s.reset.logical() {
                            Some(r) => {
                                p.phase = Phase::Resolve(r);
                            }
                            None => {
                                p.phase = Phase::Stopped;
                                let broker = match p.leader {
                                    b if b >= 0 => format!(" (broker {b})"),
                                    _ => String::new(),
                                };
                                let reset = Message::event(
                                    tp.0.clone(),
                                    tp.1,
                                    l,
                                    Error::local(
                                        local::AUTO_OFFSET_RESET,
                                        format!(
                                            "{} [{}]: failed to query logical offset: {}{broker}, auto.offset.reset=error",
                                            tp.0,
                                            tp.1,
                                            librdkafka_text(&e)
                                        ),
                                    ),
                                );
                                st.push(&tp, Item::Event(reset));
                                queued = true;
                            }
                        }
                        st.parts.get_mut(&tp).and_then(|p| p.report(e))
                    }
                }
            };
            if let Some(m) = ev {
                st.push(&tp, Item::Event(m));
                queued = true;
            }
            if queued {
                shared.wake_pollers(&st);
            }
        }
        if changed {
            shared.work.notify_all();
        }
    }

    /// Checks positions against the leader's log after a leader change.
    fn validate(&self, work: Vec<(Tp, u64, i32, i32, i32)>) {
        let s = &self.shared.settings;
        let deadline = Instant::now() + self.timeout();
        let mut by_leader: BTreeMap<i32, Vec<(Tp, u64, i32, i32)>> = BTreeMap::new();
        for (tp, v, leader, le, fe) in work {
            by_leader.entry(leader).or_default().push((tp, v, le, fe));
        }
        for (leader, parts) in by_leader {
            let answer = offset_for_leader_epoch(&self.cluster, leader, &parts, deadline);
            let shared = self.shared.clone();
            let mut st = shared.lock();
            let retry = Instant::now() + s.error_backoff;
            for (tp, version, _, _) in &parts {
                if !st
                    .parts
                    .get(tp)
                    .is_some_and(|p| p.version == *version && p.phase == Phase::Validate)
                {
                    continue;
                }
                let ev = match &answer {
                    // the broker cannot validate: go on, as librdkafka does
                    Ok(None) => {
                        if let Some(p) = st.parts.get_mut(tp) {
                            p.phase = Phase::Active;
                        }
                        None
                    }
                    Ok(Some(m)) => match m.get(tp) {
                        Some(Ok((epoch, end))) => {
                            st.truncated(tp, *epoch, *end, s.reset, "offset validation")
                        }
                        Some(Err(e)) => {
                            let p = st.parts.get_mut(tp).expect("checked");
                            p.retry_at = Some(retry);
                            if e.kafka_code().map(KafkaCode::action)
                                == Some(ErrorAction::RefreshMetadataAndRetry)
                            {
                                p.leader = -1;
                                self.cluster.invalidate(&tp.0);
                                None
                            } else {
                                p.report(e.clone())
                            }
                        }
                        None => {
                            let p = st.parts.get_mut(tp).expect("checked");
                            p.retry_at = Some(retry);
                            None
                        }
                    },
                    Err(e) => {
                        let p = st.parts.get_mut(tp).expect("checked");
                        p.retry_at = Some(retry);
                        p.leader = -1;
                        p.report(e.clone())
                    }
                };
                if let Some(m) = ev {
                    st.push(tp, Item::Event(m));
                    shared.wake_pollers(&st);
                }
            }
            shared.work.notify_all();
        }
    }

    /// Looks at the leaders of assigned partitions, moving partitions whose
    /// leader changed and validating their positions.
    fn refresh(&self) {
        let topics: Vec<Arc<str>> = {
            let st = self.shared.lock();
            let mut t: Vec<Arc<str>> = st.parts.keys().map(|k| k.0.clone()).collect();
            t.sort();
            t.dedup();
            t
        };
        for topic in topics {
            let Ok(info) = self
                .cluster
                .topic(&topic, self.auto_create(), self.timeout())
            else {
                continue;
            };
            let shared = self.shared.clone();
            let mut st = shared.lock();
            let mut moved = Vec::new();
            for meta in &info.partitions {
                let key = (topic.clone(), meta.id);
                let Some(p) = st.parts.get_mut(&key) else {
                    continue;
                };
                if p.leader < 0 || meta.leader < 0 {
                    continue;
                }
                // KIP-392: a replica is fetched from for a metadata refresh
                // interval; then the leader is asked again (it may name
                // another one, or none).
                if p.replica >= 0
                    && p.replica_at
                        .is_none_or(|t| t.elapsed() >= shared.settings.refresh_interval)
                {
                    p.replica = -1;
                    moved.push(p.leader);
                }
                if meta.leader != p.leader || meta.leader_epoch > p.leader_epoch {
                    if meta.leader_epoch > p.leader_epoch
                        && p.leader_epoch >= 0
                        && p.fetch_epoch >= 0
                        && p.phase == Phase::Active
                    {
                        p.phase = Phase::Validate;
                    }
                    p.leader = meta.leader;
                    p.leader_epoch = meta.leader_epoch;
                    p.replica = -1;
                    moved.push(meta.leader);
                }
            }
            for id in moved {
                self.ensure_fetcher(&mut st, id);
            }
            shared.work.notify_all();
        }
    }
}

/// The error's code as librdkafka's `rd_kafka_err2str` puts it
/// ("Broker: Topic authorization failed"), which librdkafka's reasons for
/// an offset reset quote.
fn librdkafka_text(e: &Error) -> String {
    match e.kafka_code() {
        Some(k) => k.librdkafka_desc(),
        None => crate::error::code_description(e.code()),
    }
}

fn get(found: &HashMap<(Tp, i64), Result<(i64, i32)>>, tp: &Tp, ts: i64) -> Result<(i64, i32)> {
    found.get(&(tp.clone(), ts)).cloned().unwrap_or_else(|| {
        Err(Error::local(
            local::BAD_MSG,
            format!(
                "{} [{}]: ListOffsets answer lacks the partition",
                tp.0, tp.1
            ),
        ))
    })
}

/// (partition, error code, committed offset, leader epoch, metadata) of one topic.
type Rows = Vec<(i32, i16, i64, i32, Option<String>)>;

/// A committed offset: (offset or -1, leader epoch or -1, metadata).
pub(crate) type Committed = (i64, i32, Option<String>);

/// [`offset_fetch_full`] without the metadata.
///
/// # Errors
/// As [`offset_fetch_full`].
pub(crate) fn offset_fetch(
    cluster: &Cluster,
    group: &str,
    member: Option<&Shared>,
    require_stable: bool,
    tps: &[Tp],
    deadline: Instant,
) -> Result<HashMap<Tp, Result<(i64, i32)>>> {
    Ok(
        offset_fetch_full(cluster, group, member, require_stable, tps, deadline)?
            .into_iter()
            .map(|(k, v)| (k, v.map(|(o, e, _)| (o, e))))
            .collect(),
    )
}

/// The committed offsets of `group` for `tps`: (offset or -1 for none,
/// leader epoch or -1), per partition. Needs no group membership; a
/// KIP-848 member (`member`'s [`Shared::member_epoch`]) sends its member id
/// and epoch (OffsetFetch v9+, KIP-848), and a `STALE_MEMBER_EPOCH` answer
/// is retried with the epoch the next heartbeat brings, as the Java client
/// retries it while the member has an epoch.
///
/// # Errors
/// When the coordinator cannot be found or the request fails as a whole.
pub(crate) fn offset_fetch_full(
    cluster: &Cluster,
    group: &str,
    member: Option<&Shared>,
    require_stable: bool,
    tps: &[Tp],
    deadline: Instant,
) -> Result<HashMap<Tp, Result<Committed>>> {
    let mut stale = 0;
    loop {
        let me = member.and_then(Shared::member_epoch);
        let r = offset_fetch_once(cluster, group, me.as_ref(), require_stable, tps, deadline);
        let backoff = cluster.retry_backoff(stale);
        match r {
            Err(e)
                if me.is_some()
                    && e.kafka_code() == Some(KafkaCode::STALE_MEMBER_EPOCH)
                    && Instant::now() + backoff < deadline =>
            {
                std::thread::sleep(backoff);
                stale += 1;
            }
            r => return r,
        }
    }
}

/// One [`offset_fetch_full`], retrying coordinator errors.
fn offset_fetch_once(
    cluster: &Cluster,
    group: &str,
    member: Option<&(String, i32)>,
    require_stable: bool,
    tps: &[Tp],
    deadline: Instant,
) -> Result<HashMap<Tp, Result<Committed>>> {
    retrying(cluster, deadline, || {
        let conn = coordinator(cluster, group, deadline)?;
        let version = conn.version_for::<OffsetFetchRequest>(deadline)?;
        let mut by_topic: BTreeMap<&str, Vec<i32>> = BTreeMap::new();
        for (t, p) in tps {
            by_topic.entry(t).or_default().push(*p);
        }
        let req = if version >= 8 {
            OffsetFetchRequest {
                groups: vec![OffsetFetchRequestGroup {
                    group_id: group.to_string(),
                    member_id: member.map(|m| m.0.clone()),
                    member_epoch: member.map_or(-1, |m| m.1),
                    topics: Some(
                        by_topic
                            .iter()
                            .map(|(t, ps)| OffsetFetchRequestTopics {
                                name: t.to_string(),
                                partition_indexes: ps.clone(),
                                ..Default::default()
                            })
                            .collect(),
                    ),
                    ..Default::default()
                }],
                require_stable,
                ..Default::default()
            }
        } else {
            OffsetFetchRequest {
                group_id: group.to_string(),
                topics: Some(
                    by_topic
                        .iter()
                        .map(|(t, ps)| OffsetFetchRequestTopic {
                            name: t.to_string(),
                            partition_indexes: ps.clone(),
                            ..Default::default()
                        })
                        .collect(),
                ),
                require_stable: require_stable && version >= 7,
                ..Default::default()
            }
        };
        let resp = conn
            .send_at(&req, version, deadline)?
            .wait_until(deadline)?;
        let mut out: HashMap<Tp, Result<Committed>> = HashMap::new();
        let mut put = |name: &str,
                       p: i32,
                       code: i16,
                       off: i64,
                       epoch: i32,
                       meta: Option<String>|
         -> Result<()> {
            let code = KafkaCode(code);
            if matches!(
                code,
                KafkaCode::COORDINATOR_LOAD_IN_PROGRESS
                    | KafkaCode::NOT_COORDINATOR
                    | KafkaCode::COORDINATOR_NOT_AVAILABLE
                    | KafkaCode::UNSTABLE_OFFSET_COMMIT
            ) {
                return Err(Error::kafka(
                    code,
                    format!("offset fetch of group {group:?}"),
                ));
            }
            let tp: Tp = (Arc::from(name), p);
            out.insert(
                tp,
                if code.is_ok() {
                    Ok((off, epoch, meta))
                } else {
                    Err(Error::kafka(
                        code,
                        format!("{name} [{p}] committed offset of group {group:?}"),
                    ))
                },
            );
            Ok(())
        };
        // v8+ answers per group; before, for the one group
        let (top, topics): (i16, Vec<(&str, Rows)>) = if version >= 8 {
            let g = resp
                .groups
                .iter()
                .find(|g| g.group_id == group)
                .ok_or_else(|| {
                    Error::local(local::BAD_MSG, "OffsetFetch answer lacks the group")
                })?;
            let rows = g.topics.iter().map(|t| {
                let ps = t.partitions.iter().map(|p| {
                    (
                        p.partition_index,
                        p.error_code,
                        p.committed_offset,
                        p.committed_leader_epoch,
                        p.metadata.clone(),
                    )
                });
                (t.name.as_str(), ps.collect())
            });
            (g.error_code, rows.collect())
        } else {
            let rows = resp.topics.iter().map(|t| {
                let ps = t.partitions.iter().map(|p| {
                    (
                        p.partition_index,
                        p.error_code,
                        p.committed_offset,
                        p.committed_leader_epoch,
                        p.metadata.clone(),
                    )
                });
                (t.name.as_str(), ps.collect())
            });
            (resp.error_code, rows.collect())
        };
        if top != 0 {
            return Err(Error::kafka(
                KafkaCode(top),
                format!("offset fetch of group {group:?}"),
            ));
        }
        for (name, rows) in topics {
            for (p, code, off, epoch, meta) in rows {
                put(name, p, code, off, epoch, meta)?;
            }
        }
        Ok(out)
    })
}

/// OffsetForLeaderEpoch to `leader` for (partition, version, current leader
/// epoch, epoch to look up): (epoch, end offset) per partition, or `None`
/// when the broker cannot answer it (below v2, or not at all).
///
/// # Errors
/// When the request fails on the way.
#[allow(clippy::type_complexity)]
fn offset_for_leader_epoch(
    cluster: &Cluster,
    leader: i32,
    parts: &[(Tp, u64, i32, i32)],
    deadline: Instant,
) -> Result<Option<HashMap<Tp, Result<(i32, i64)>>>> {
    let conn = cluster.conn(leader, Purpose::Metadata)?;
    let version = match conn.version_for::<OffsetForLeaderEpochRequest>(deadline) {
        Ok(v) if v >= 2 => v,
        Ok(_) => return Ok(None),
        Err(e) if e.code() == local::UNSUPPORTED_FEATURE => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut topics: Vec<OffsetForLeaderTopic> = Vec::new();
    for (tp, _, current, epoch) in parts {
        let part = OffsetForLeaderPartition {
            partition: tp.1,
            current_leader_epoch: *current,
            leader_epoch: *epoch,
            ..Default::default()
        };
        match topics.iter_mut().find(|t| *t.topic == *tp.0) {
            Some(t) => t.partitions.push(part),
            None => topics.push(OffsetForLeaderTopic {
                topic: tp.0.to_string(),
                partitions: vec![part],
                ..Default::default()
            }),
        }
    }
    let req = OffsetForLeaderEpochRequest {
        replica_id: -1,
        topics,
        ..Default::default()
    };
    let resp = conn
        .send_at(&req, version, deadline)?
        .wait_until(deadline)?;
    let mut out = HashMap::new();
    for t in &resp.topics {
        for p in &t.partitions {
            let tp: Tp = (Arc::from(t.topic.as_str()), p.partition);
            out.insert(
                tp.clone(),
                if p.error_code == 0 {
                    Ok((p.leader_epoch, p.end_offset))
                } else {
                    Err(Error::kafka(
                        KafkaCode(p.error_code),
                        format!("{} [{}] offset for leader epoch", tp.0, tp.1),
                    ))
                },
            );
        }
    }
    Ok(Some(out))
}
