//! The consumer. This first slice consumes explicitly assigned partitions:
//! [`Consumer::assign`] with start offsets (absolute, beginning, end, or n
//! before the end), then [`Consumer::poll`]. One fetch per leader broker is
//! kept in flight on that broker's fetch connection; records are decoded
//! from the response buffer without copying keys and values.
//!
//! `isolation.level=read_committed` (the default, as in librdkafka) drops
//! the records of aborted transactions using the fetch response's aborted
//! transaction list; control records are never returned.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::cluster::{Cluster, Purpose};
use crate::config::{Config, Role};
use crate::error::{local, Error, Result};
use crate::message::{offset, Message};
use crate::net::PendingResponse;
use crate::protocol::fetch::{
    FetchPartition, FetchRequest, FetchResponse, FetchTopic, PartitionData,
};
use crate::protocol::list_offsets::{ListOffsetsPartition, ListOffsetsRequest, ListOffsetsTopic};
use crate::protocol::{ErrorAction, KafkaCode};
use crate::record::batch::ControlRecordType;
use crate::record::{DecodeOptions, RecordsReader};
use crate::wire::Uuid;

/// A topic-partition with an offset (absolute, or one of [`offset`]'s constants).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TopicPartitionOffset {
    /// Topic name.
    pub topic: String,
    /// Partition.
    pub partition: i32,
    /// Offset or logical offset.
    pub offset: i64,
}

impl TopicPartitionOffset {
    /// A new entry.
    pub fn new(topic: impl Into<String>, partition: i32, offset: i64) -> Self {
        TopicPartitionOffset {
            topic: topic.into(),
            partition,
            offset,
        }
    }
}

#[derive(Debug)]
struct PartState {
    topic: Arc<str>,
    partition: i32,
    /// Next offset to fetch; logical (< 0) until resolved.
    position: i64,
    /// Leader epoch seen in metadata, sent with fetches.
    leader_epoch: i32,
    /// High watermark of the last fetch.
    high_watermark: i64,
    /// EOF already reported at this position.
    eof_reported: bool,
    /// A fetch for this partition is in flight.
    in_flight: bool,
}

struct InFlight {
    broker: i32,
    /// The partitions asked for.
    parts: Vec<(Arc<str>, i32)>,
    pending: PendingResponse<FetchRequest>,
    /// (topic id, name) for responses by topic ID (Fetch v13+).
    names: HashMap<Uuid, Arc<str>>,
}

struct State {
    parts: BTreeMap<(Arc<str>, i32), PartState>,
    queue: VecDeque<Message>,
    fetches: Vec<InFlight>,
}

/// A Kafka consumer of assigned partitions. Thread-safe; calls are serialized.
pub struct Consumer {
    cluster: Cluster,
    state: Mutex<State>,
    max_wait_ms: i32,
    min_bytes: i32,
    max_bytes: i32,
    partition_max_bytes: i32,
    read_committed: bool,
    reset: String,
    partition_eof: bool,
    decode: DecodeOptions,
    socket_timeout: Duration,
}

impl Consumer {
    /// A consumer for `cfg`. Connects lazily.
    ///
    /// # Errors
    /// On a bad configuration (a producer property, no `bootstrap.servers`).
    pub fn new(cfg: &Config) -> Result<Consumer> {
        cfg.check_role(Role::Consumer)?;
        cfg.check_not_yet(
            &["group.id", "enable.auto.commit", "auto.commit.interval.ms", "queued.max.messages.kbytes"],
            "this consumer reads assigned partitions; groups and committed offsets come with consumer groups",
        )?;
        let cluster = Cluster::new(cfg)?;
        Ok(Consumer {
            cluster,
            state: Mutex::new(State {
                parts: BTreeMap::new(),
                queue: VecDeque::new(),
                fetches: Vec::new(),
            }),
            max_wait_ms: cfg.int("fetch.wait.max.ms") as i32,
            min_bytes: cfg.int("fetch.min.bytes") as i32,
            max_bytes: cfg.int("fetch.max.bytes") as i32,
            partition_max_bytes: cfg.int("max.partition.fetch.bytes") as i32,
            read_committed: cfg.str("isolation.level") == "read_committed",
            reset: cfg.str("auto.offset.reset").to_string(),
            partition_eof: cfg.bool("enable.partition.eof"),
            decode: DecodeOptions {
                check_crcs: cfg.bool("check.crcs"),
                ..DecodeOptions::default()
            },
            socket_timeout: cfg.ms("socket.timeout.ms"),
        })
    }

    /// The consumer's view of the cluster.
    pub fn cluster(&self) -> &Cluster {
        &self.cluster
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Replaces the assignment. Offsets may be absolute or logical
    /// ([`offset::BEGINNING`], [`offset::END`], [`offset::tail`]); they are
    /// resolved on the next poll. Buffered messages of partitions no longer
    /// assigned are dropped.
    ///
    /// # Errors
    /// `_INVALID_ARG` for a negative partition or an offset that is neither
    /// absolute nor one of the logical ones.
    pub fn assign(&self, tps: &[TopicPartitionOffset]) -> Result<()> {
        for tp in tps {
            let logical = [offset::BEGINNING, offset::END].contains(&tp.offset)
                || tp.offset <= offset::TAIL_BASE;
            if tp.partition < 0 || (tp.offset < 0 && !logical) {
                return Err(Error::invalid_arg(format!(
                    "{} [{}]: invalid partition or offset {}",
                    tp.topic, tp.partition, tp.offset
                )));
            }
        }
        let mut st = self.state();
        st.parts.clear();
        st.fetches.clear();
        for tp in tps {
            let topic: Arc<str> = Arc::from(tp.topic.as_str());
            st.parts.insert(
                (topic.clone(), tp.partition),
                PartState {
                    topic,
                    partition: tp.partition,
                    position: tp.offset,
                    leader_epoch: -1,
                    high_watermark: -1,
                    eof_reported: false,
                    in_flight: false,
                },
            );
        }
        let keep: HashSet<(Arc<str>, i32)> = st.parts.keys().cloned().collect();
        st.queue
            .retain(|m| keep.contains(&(m.topic.clone(), m.partition)));
        Ok(())
    }

    /// The current assignment with each partition's next offset.
    pub fn assignment(&self) -> Vec<TopicPartitionOffset> {
        self.state()
            .parts
            .values()
            .map(|p| TopicPartitionOffset::new(&*p.topic, p.partition, p.position))
            .collect()
    }

    /// The next message, or an error/event as a message with `error` set;
    /// `Ok(None)` if nothing arrived within `timeout`.
    ///
    /// # Errors
    /// Only for failures of the consumer as a whole; per-partition problems
    /// come back as messages with `error` set, as librdkafka does.
    pub fn poll(&self, timeout: Duration) -> Result<Option<Message>> {
        let deadline = Instant::now() + timeout;
        let mut st = self.state();
        loop {
            if let Some(m) = st.queue.pop_front() {
                return Ok(Some(m));
            }
            if st.parts.is_empty() {
                drop(st);
                std::thread::sleep(
                    deadline
                        .saturating_duration_since(Instant::now())
                        .min(Duration::from_millis(100)),
                );
                if Instant::now() >= deadline {
                    return Ok(None);
                }
                st = self.state();
                continue;
            }
            self.resolve_offsets(&mut st, deadline);
            self.start_fetches(&mut st, deadline);
            if st.queue.is_empty() {
                self.collect(&mut st, deadline);
            }
            if st.queue.is_empty() && Instant::now() >= deadline {
                return Ok(None);
            }
        }
    }

    /// The low and high watermarks of a partition, asked of its leader.
    ///
    /// # Errors
    /// Broker and network errors.
    pub fn watermarks(&self, topic: &str, partition: i32, timeout: Duration) -> Result<(i64, i64)> {
        let low = self.list_offset(topic, partition, offset::BEGINNING, timeout)?;
        let high = self.list_offset(topic, partition, offset::END, timeout)?;
        Ok((low, high))
    }

    /// ListOffsets for one partition: `-2` earliest, `-1` latest, else the
    /// first offset whose timestamp is at or after `ts`.
    ///
    /// # Errors
    /// Broker and network errors.
    pub fn list_offset(
        &self,
        topic: &str,
        partition: i32,
        ts: i64,
        timeout: Duration,
    ) -> Result<i64> {
        let deadline = Instant::now() + timeout;
        let (leader, epoch) = self.cluster.leader(topic, partition, timeout)?;
        let conn = self.cluster.conn(leader, Purpose::Fetch)?;
        let version = conn.version_for::<ListOffsetsRequest>(deadline)?;
        let req = ListOffsetsRequest {
            replica_id: -1,
            isolation_level: i8::from(self.read_committed && version >= 2),
            topics: vec![ListOffsetsTopic {
                name: topic.to_string(),
                partitions: vec![ListOffsetsPartition {
                    partition_index: partition,
                    current_leader_epoch: if version >= 4 { epoch } else { -1 },
                    timestamp: ts,
                    max_num_offsets: 1,
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        };
        let resp = conn
            .send_at(&req, version, deadline)?
            .wait_until(deadline)?;
        let p = resp
            .topics
            .iter()
            .flat_map(|t| t.partitions.iter())
            .find(|p| p.partition_index == partition)
            .ok_or_else(|| {
                Error::local(
                    local::BAD_MSG,
                    format!("{}: ListOffsets lacks {topic} [{partition}]", conn.name()),
                )
            })?;
        if p.error_code != 0 {
            let code = KafkaCode(p.error_code);
            if code.action() == ErrorAction::RefreshMetadataAndRetry {
                self.cluster.invalidate(topic);
            }
            return Err(Error::kafka(
                code,
                format!("{topic} [{partition}] list offsets"),
            ));
        }
        Ok(if version == 0 {
            p.old_style_offsets.first().copied().unwrap_or(-1)
        } else {
            p.offset
        })
    }

    fn resolve_offsets(&self, st: &mut State, deadline: Instant) {
        let logical: Vec<(Arc<str>, i32, i64)> = st
            .parts
            .values()
            .filter(|p| p.position < 0)
            .map(|p| (p.topic.clone(), p.partition, p.position))
            .collect();
        for (topic, partition, logical) in logical {
            let timeout = deadline
                .saturating_duration_since(Instant::now())
                .max(self.socket_timeout);
            let resolved = if logical <= offset::TAIL_BASE {
                let n = offset::TAIL_BASE - logical;
                self.watermarks(&topic, partition, timeout)
                    .map(|(lo, hi)| (hi - n).max(lo))
            } else {
                self.list_offset(&topic, partition, logical, timeout)
            };
            match resolved {
                Ok(o) => {
                    if let Some(p) = st.parts.get_mut(&(topic, partition)) {
                        p.position = o;
                    }
                }
                Err(e) => {
                    let retriable = e.is_retriable();
                    st.queue
                        .push_back(Message::event(topic, partition, logical, e));
                    if !retriable {
                        // leave it logical: the next poll tries again
                    }
                }
            }
        }
    }

    fn start_fetches(&self, st: &mut State, deadline: Instant) {
        // group partitions that are ready by leader
        let mut by_leader: BTreeMap<i32, Vec<(Arc<str>, i32)>> = BTreeMap::new();
        let keys: Vec<(Arc<str>, i32)> = st
            .parts
            .values()
            .filter(|p| p.position >= 0 && !p.in_flight)
            .map(|p| (p.topic.clone(), p.partition))
            .collect();
        for (topic, partition) in keys {
            let timeout = deadline
                .saturating_duration_since(Instant::now())
                .max(self.socket_timeout);
            match self.cluster.leader(&topic, partition, timeout) {
                Ok((leader, epoch)) => {
                    if let Some(p) = st.parts.get_mut(&(topic.clone(), partition)) {
                        p.leader_epoch = epoch;
                    }
                    by_leader
                        .entry(leader)
                        .or_default()
                        .push((topic, partition));
                }
                Err(e) => {
                    let pos = st
                        .parts
                        .get(&(topic.clone(), partition))
                        .map_or(-1, |p| p.position);
                    st.queue.push_back(Message::event(topic, partition, pos, e));
                }
            }
        }
        for (leader, parts) in by_leader {
            if st.fetches.iter().any(|f| f.broker == leader) {
                continue;
            }
            match self.send_fetch(st, leader, &parts) {
                Ok(f) => {
                    for k in &parts {
                        if let Some(p) = st.parts.get_mut(k) {
                            p.in_flight = true;
                        }
                    }
                    st.fetches.push(f);
                }
                Err(e) => {
                    for (topic, partition) in parts {
                        let pos = st
                            .parts
                            .get(&(topic.clone(), partition))
                            .map_or(-1, |p| p.position);
                        st.queue
                            .push_back(Message::event(topic, partition, pos, e.clone()));
                    }
                }
            }
        }
    }

    fn send_fetch(&self, st: &State, leader: i32, parts: &[(Arc<str>, i32)]) -> Result<InFlight> {
        let conn = self.cluster.conn(leader, Purpose::Fetch)?;
        let net_deadline =
            Instant::now() + self.socket_timeout + Duration::from_millis(self.max_wait_ms as u64);
        let version = conn.version_for::<FetchRequest>(net_deadline)?;
        let mut topics: Vec<FetchTopic> = Vec::new();
        let mut names = HashMap::new();
        for (topic, partition) in parts {
            let p = &st.parts[&(topic.clone(), *partition)];
            let fp = FetchPartition {
                partition: *partition,
                current_leader_epoch: if version >= 9 { p.leader_epoch } else { -1 },
                fetch_offset: p.position,
                partition_max_bytes: self.partition_max_bytes,
                ..Default::default()
            };
            let topic_id = if version >= 13 {
                let info = self.cluster.topic(topic, false, self.socket_timeout)?;
                if info.id.is_zero() {
                    return Err(Error::local(
                        local::UNSUPPORTED_FEATURE,
                        format!("{topic}: broker speaks Fetch v{version} but gave no topic ID"),
                    ));
                }
                names.insert(info.id, topic.clone());
                info.id
            } else {
                Uuid::ZERO
            };
            match topics
                .iter_mut()
                .find(|t| t.topic == **topic && t.topic_id == topic_id)
            {
                Some(t) => t.partitions.push(fp),
                None => topics.push(FetchTopic {
                    topic: if version <= 12 {
                        topic.to_string()
                    } else {
                        String::new()
                    },
                    topic_id,
                    partitions: vec![fp],
                    ..Default::default()
                }),
            }
        }
        let req = FetchRequest {
            replica_id: -1,
            max_wait_ms: self.max_wait_ms,
            min_bytes: self.min_bytes,
            max_bytes: self.max_bytes,
            isolation_level: i8::from(self.read_committed),
            session_id: 0,
            session_epoch: -1,
            topics,
            ..Default::default()
        };
        let pending = conn.send_at(&req, version, net_deadline)?;
        Ok(InFlight {
            broker: leader,
            parts: parts.to_vec(),
            pending,
            names,
        })
    }

    /// Waits (until `deadline`) for in-flight fetches and turns what arrived into messages.
    fn collect(&self, st: &mut State, deadline: Instant) {
        let mut i = 0;
        while i < st.fetches.len() {
            // wait on the first fetch with the remaining time, then poll the rest
            let wait = if i == 0 {
                deadline.saturating_duration_since(Instant::now())
            } else {
                Duration::ZERO
            };
            match st.fetches[i].pending.wait(wait) {
                Ok(None) => i += 1,
                Ok(Some(resp)) => {
                    let f = st.fetches.remove(i);
                    self.absorb(st, &f, resp);
                }
                Err(e) => {
                    // The connection failed or timed out: report it once per
                    // partition and fetch again (after a metadata refresh).
                    let f = st.fetches.remove(i);
                    for key in &f.parts {
                        self.cluster.invalidate(&key.0);
                        if let Some(p) = st.parts.get_mut(key) {
                            p.in_flight = false;
                            let ev = Message::event(key.0.clone(), key.1, p.position, e.clone());
                            st.queue.push_back(ev);
                        }
                    }
                }
            }
        }
    }

    fn absorb(&self, st: &mut State, f: &InFlight, resp: FetchResponse) {
        for key in &f.parts {
            if let Some(p) = st.parts.get_mut(key) {
                p.in_flight = false;
            }
        }
        if resp.error_code != 0 {
            let e = Error::kafka(
                KafkaCode(resp.error_code),
                format!("fetch from broker {}", f.broker),
            );
            for key in &f.parts {
                let pos = st.parts.get(key).map_or(-1, |p| p.position);
                st.queue
                    .push_back(Message::event(key.0.clone(), key.1, pos, e.clone()));
            }
            return;
        }
        for t in resp.responses {
            let topic: Arc<str> = if t.topic_id.is_zero() {
                Arc::from(t.topic.as_str())
            } else {
                match f.names.get(&t.topic_id) {
                    Some(n) => n.clone(),
                    None => continue,
                }
            };
            for pd in t.partitions {
                let key = (topic.clone(), pd.partition_index);
                self.absorb_partition(st, &key, pd);
            }
        }
    }

    fn absorb_partition(&self, st: &mut State, key: &(Arc<str>, i32), pd: PartitionData) {
        let Some(part) = st.parts.get_mut(key) else {
            return;
        };
        let (topic, partition) = (key.0.clone(), key.1);
        if pd.error_code != 0 {
            let code = KafkaCode(pd.error_code);
            if code == KafkaCode::OFFSET_OUT_OF_RANGE && self.reset != "error" {
                part.position = if self.reset == "earliest" {
                    offset::BEGINNING
                } else {
                    offset::END
                };
                return;
            }
            if code.action() == ErrorAction::RefreshMetadataAndRetry {
                self.cluster.invalidate(&topic);
                return;
            }
            let pos = part.position;
            st.queue.push_back(Message::event(
                topic,
                partition,
                pos,
                Error::kafka(code, "fetch"),
            ));
            return;
        }
        part.high_watermark = pd.high_watermark;
        let records = pd.records.unwrap_or_default();
        let mut aborted: Vec<(i64, i64)> = if self.read_committed {
            pd.aborted_transactions
                .unwrap_or_default()
                .iter()
                .map(|a| (a.producer_id, a.first_offset))
                .collect()
        } else {
            Vec::new()
        };
        aborted.sort_by_key(|a| a.1);
        let mut aborting: HashSet<i64> = HashSet::new();
        let mut next = part.position;
        let mut out = Vec::new();
        let mut problem = None;
        for entry in RecordsReader::new(&records, self.decode.clone()) {
            let batch = match entry {
                Ok(b) => b,
                Err(e) => {
                    problem = Some(Error::local(
                        local::BAD_MSG,
                        format!("{topic} [{partition}]: {e}"),
                    ));
                    break;
                }
            };
            let batch_end = batch.base_offset + i64::from(batch.last_offset_delta) + 1;
            // transactions that start at or before this batch are open-and-aborted
            while let Some(&(pid, first)) = aborted.first() {
                if first > batch.base_offset && batch.magic >= 2 {
                    break;
                }
                aborting.insert(pid);
                aborted.remove(0);
            }
            if batch.is_control {
                if let Ok(Some(c)) = batch.control_record() {
                    if c.kind == ControlRecordType::Abort {
                        aborting.remove(&batch.producer_id);
                    }
                }
                next = next.max(batch_end);
                continue;
            }
            if batch.is_transactional && aborting.contains(&batch.producer_id) {
                next = next.max(batch_end);
                continue;
            }
            for r in batch.records {
                if r.offset < next {
                    continue;
                }
                next = r.offset + 1;
                out.push(crate::message::Message {
                    topic: topic.clone(),
                    partition,
                    offset: r.offset,
                    key: r.key,
                    value: r.value,
                    headers: r.headers,
                    timestamp: r.timestamp,
                    timestamp_type: r.timestamp_type,
                    leader_epoch: r.leader_epoch,
                    error: None,
                });
            }
            if batch.magic >= 2 {
                next = next.max(batch_end);
            }
        }
        part.position = next;
        if !out.is_empty() {
            part.eof_reported = false;
        }
        st.queue.extend(out);
        if let Some(e) = problem {
            st.queue
                .push_back(Message::event(topic.clone(), partition, next, e));
        }
        let part = &mut st.parts.get_mut(key).expect("partition present");
        if self.partition_eof && part.position >= part.high_watermark && !part.eof_reported {
            part.eof_reported = true;
            let e = Error::local(
                local::PARTITION_EOF,
                format!(
                    "{topic} [{partition}] reached end at offset {}",
                    part.position
                ),
            );
            st.queue
                .push_back(Message::event(topic, partition, part.position, e));
        }
    }
}
