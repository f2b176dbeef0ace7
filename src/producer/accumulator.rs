//! Per-partition queues of record batches, bounded by
//! `queue.buffering.max.messages` / `.kbytes`, and the bookkeeping that turns
//! broker answers into delivery reports.

use crate::sync::MutexExt;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use byteorder::{BigEndian, ByteOrder};

use super::partitioner;
use super::report::DeliveryReport;
use super::settings::Settings;
use super::topic_map::FxBuild;
use super::topic_map::TopicMap;
use crate::cluster::Cluster;
use crate::error::{local, Error, Result};
use crate::message::{now_ms, MessageStatus, ProducerRecord};
use crate::protocol::KafkaCode;
use crate::record::batch::HEADER_LEN;
use crate::record::{BatchRecords, RecordBatchBuilder};
use crate::window::Window;
use crate::wire::Bytes;
use std::mem;

/// A topic-partition. Topic names are shared `Arc`s, so equality usually
/// settles on the pointer before comparing text.
#[derive(Debug, Clone, PartialOrd, Ord)]
pub(crate) struct Tp(pub Arc<str>, pub i32);

impl PartialEq for Tp {
    #[inline]
    fn eq(&self, other: &Tp) -> bool {
        self.1 == other.1 && (Arc::ptr_eq(&self.0, &other.0) || self.0 == other.0)
    }
}

impl Eq for Tp {}

impl std::hash::Hash for Tp {
    #[inline]
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.0.hash(h);
        h.write_i32(self.1);
    }
}

/// Where [`super::Producer::send_sync`] waits for its one report.
#[derive(Default)]
pub(crate) struct SyncSlot {
    report: Mutex<Option<DeliveryReport>>,
    ready: Condvar,
}

impl SyncSlot {
    fn fill(&self, dr: DeliveryReport) {
        *self.report.locked() = Some(dr);
        self.ready.notify_all();
    }

    /// The report, or `None` at the deadline.
    pub fn wait(&self, deadline: Instant) -> Option<DeliveryReport> {
        let mut g = self.report.locked();
        loop {
            if let Some(r) = g.take() {
                return Some(r);
            }
            let now = Instant::now();
            if now >= deadline {
                return None;
            }
            g = self
                .ready
                .wait_timeout(g, deadline - now)
                .map_or_else(|e| e.into_inner().0, |r| r.0);
        }
    }
}

/// One message in a batch, as far as reporting goes.
pub(crate) struct MsgMeta {
    pub opaque: usize,
    pub timestamp: i64,
    /// Bytes counted against `queue.buffering.max.kbytes`.
    pub size: usize,
    pub deadline: Instant,
    pub sync: Option<Arc<SyncSlot>>,
}

/// A batch of one partition: open (appending), ready, or in flight.
pub(crate) struct Batch {
    pub tp: Tp,
    pub builder: Option<RecordBatchBuilder>,
    /// The finished bytes (kept for retries: same bytes, same sequence).
    pub bytes: Option<Bytes>,
    pub msgs: Vec<MsgMeta>,
    /// Sum of the messages' sizes.
    pub total_size: usize,
    /// Sum of the messages' key and value lengths: what librdkafka's
    /// statistics count as message bytes (`txmsg_bytes`, `txbytes`).
    pub payload_bytes: u64,
    /// Some message waits in `send_sync`.
    pub has_sync: bool,
    pub created: Instant,
    /// The earliest message deadline.
    pub deadline: Instant,
    /// Order of creation within the producer, to keep retries in order.
    pub seq_no: u64,
    /// Idempotence: the first record's sequence (-1 until numbered).
    pub base_sequence: i32,
    pub attempts: u32,
    pub retry_at: Option<Instant>,
    /// True once it has been sent at least once.
    pub sent: bool,
    /// The encoded records, uncompressed, once the batch is finished (the
    /// finished bytes themselves without compression, else the buffer they
    /// were compressed from): what the reports read keys and values from.
    pub records: Option<Bytes>,
    /// An attempt was sent and then failed in a way that may have written
    /// it (a timeout, a lost connection, a purge in flight): its status
    /// can no longer be `NotPersisted` (librdkafka's rule).
    pub possibly_persisted: bool,
    /// The broker it was last sent to (-1 before it was sent).
    pub broker: i32,
}

impl Batch {
    /// The encoded records for the reports, taken without copying.
    fn take_records(&mut self) -> Option<Bytes> {
        if let Some(r) = self.records.take() {
            return Some(r);
        }
        let builder = self.builder.take().filter(|b| !b.is_empty())?;
        Some(records_of(&Bytes::from(builder.into_buffer())))
    }
}

/// The records of a v2 batch's bytes: everything after its header.
pub(crate) fn records_of(batch: &Bytes) -> Bytes {
    batch.slice(HEADER_LEN.min(batch.len())..batch.len())
}

/// Microseconds from a message's send (its deadline less
/// `message.timeout.ms`) to `now`; -1 if unknown.
pub(crate) fn latency_us(now: Instant, deadline: Instant, message_timeout: Duration) -> i64 {
    deadline.checked_sub(message_timeout).map_or(-1, |sent| {
        i64::try_from(now.saturating_duration_since(sent).as_micros()).unwrap_or(i64::MAX)
    })
}

/// A partition's queue.
#[derive(Default)]
pub(crate) struct PartQ {
    pub open: Option<Batch>,
    pub ready: VecDeque<Batch>,
    pub in_flight: usize,
    /// Statistics: messages queued to the partition, and those finished
    /// (delivered or failed), since the producer started.
    pub msgs: u64,
    pub done_msgs: u64,
    /// Idempotence: the next sequence to hand out.
    pub next_seq: i32,
    /// Statistics: messages delivered (acknowledged), and their bytes.
    pub txmsgs: u64,
    pub txmsg_bytes: u64,
}

/// A message whose topic has no metadata yet: kept as owned bytes.
pub(crate) struct Unassigned {
    key: Option<Vec<u8>>,
    value: Option<Vec<u8>>,
    headers: Vec<(String, Option<Vec<u8>>)>,
    partition: Option<i32>,
    timestamp: i64,
    meta: MsgMeta,
}

/// A topic's state, with its partitions' queues.
pub(crate) struct TopicQ {
    pub name: Arc<str>,
    /// Partition count (0 until known).
    pub partitions: i32,
    /// Keyless messages stick to this partition until the instant given
    /// (`sticky.partitioning.linger.ms` after it was picked, KIP-480 as
    /// librdkafka).
    pub sticky: Option<(i32, Instant)>,
    pub unassigned: VecDeque<Unassigned>,
    /// Last metadata request for it.
    pub asked: Option<Instant>,
    /// Metadata requests since its leaders were last all known: the next
    /// waits `topic.metadata.refresh.fast.interval.ms` doubled this often.
    pub fast: u32,
    /// Queues by partition index.
    pub parts: Vec<PartQ>,
    /// Statistics: the sizes (bytes) and message counts of the batches
    /// taken to be sent since the last snapshot.
    pub batch_size: Window,
    pub batch_cnt: Window,
    /// When the producer first had the topic (statistics' `age`).
    pub created: Instant,
}

impl TopicQ {
    fn new(name: Arc<str>) -> TopicQ {
        TopicQ {
            name,
            partitions: 0,
            sticky: None,
            unassigned: VecDeque::new(),
            asked: None,
            fast: 0,
            parts: Vec::new(),
            batch_size: Window::default(),
            batch_cnt: Window::default(),
            created: Instant::now(),
        }
    }

    fn set_partitions(&mut self, n: i32) {
        self.partitions = n;
        if self.parts.len() < n as usize {
            self.parts.resize_with(n as usize, PartQ::default);
        }
    }
}

/// Messages that got their outcome, waiting for poll/flush to report them
/// (a whole batch moves here at once; reports are made on the caller's thread).
pub(crate) struct Done {
    pub tp: Tp,
    /// Base offset (-1 if none), log append time (-1 if none), or the error.
    pub result: std::result::Result<(i64, i64), Error>,
    pub msgs: Vec<MsgMeta>,
    pub status: MessageStatus,
    /// The messages' encoded records, in order (None if unknown).
    pub records: Option<Bytes>,
    /// The broker the batch was last sent to (-1: never sent).
    pub broker: i32,
}

/// How many of `msgs` get a report in poll/flush: all but `send_sync`'s,
/// whose outcome goes to the caller waiting for it. `Acc::done_msgs` counts
/// these, as does a thread serving them (`Acc::serving`).
fn reported_msgs(msgs: &[MsgMeta]) -> usize {
    msgs.iter().filter(|m| m.sync.is_none()).count()
}

impl Done {
    /// The messages of this outcome that get a report ([`reported_msgs`]).
    pub fn reported_msgs(&self) -> usize {
        reported_msgs(&self.msgs)
    }

    /// Calls `f` with each message's report; latencies are measured to `now`.
    pub fn each(self, now: Instant, message_timeout: Duration, f: &mut dyn FnMut(&DeliveryReport)) {
        let mut dr = DeliveryReport {
            topic: self.tp.0,
            partition: self.tp.1,
            offset: -1,
            timestamp: -1,
            error: None,
            opaque: 0,
            status: self.status,
            latency_us: -1,
            broker_id: self.broker,
            records: self.records,
            record_pos: 0,
        };
        if let Err(e) = &self.result {
            dr.error = Some(e.clone());
        }
        let mut pos = 0;
        for (i, m) in self.msgs.into_iter().enumerate() {
            dr.record_pos = pos;
            if let Some(data) = &dr.records {
                pos = BatchRecords::record_end(data, pos).unwrap_or(data.len());
            }
            if m.sync.is_some() {
                continue;
            }
            dr.latency_us = latency_us(now, m.deadline, message_timeout);
            (dr.offset, dr.timestamp) = match self.result {
                Ok((base, lat)) => (
                    if base >= 0 { base + i as i64 } else { -1 },
                    if lat >= 0 { lat } else { m.timestamp },
                ),
                Err(_) => (-1, m.timestamp),
            };
            dr.opaque = m.opaque;
            f(&dr);
        }
    }
}

/// The accumulator: everything queued, in flight and reported.
pub(crate) struct Acc {
    pub topics: TopicMap<TopicQ>,
    /// (monotonic, wall-clock ms) read together, refreshed by the sender, so a
    /// message costs one clock read.
    pub clock_base: (Instant, i64),
    /// Messages not yet reported, and their bytes.
    pub queued_msgs: usize,
    pub queued_bytes: usize,
    /// Outcomes waiting for poll/flush, and how many messages they hold.
    pub done: VecDeque<Done>,
    pub done_msgs: usize,
    /// Reports a thread took from `done` and is still serving, per thread:
    /// `flush` waits for other threads' (as librdkafka's, whose message
    /// counts fall only after each delivery callback returned).
    pub serving: Vec<(std::thread::ThreadId, usize)>,
    /// Reports taken from `done` whose delivery callback has not returned
    /// yet, by any thread. Raised under the lock with `serving`, lowered
    /// without it as each callback returns, so the producer's length falls
    /// message by message as librdkafka's `rd_kafka_outq_len` does.
    pub in_service: Arc<AtomicUsize>,
    pub flushing: usize,
    pub flush_requested_for_sync: usize,
    pub closing: bool,
    /// A fatal error (fenced, unauthorized): every send fails with it.
    pub fatal: Option<Error>,
    pub next_seq_no: u64,
    /// Idempotence: producer id and epoch, once known.
    pub producer: Option<(i64, i16)>,
    /// Idempotence: producer ids or epochs acquired so far (statistics).
    pub epoch_cnt: u64,
    /// Statistics: the idempotence state (librdkafka's name) as last
    /// noted, and since when.
    pub idemp_seen: (&'static str, Instant),
    /// Idempotence: the sequence space must be reset with a new epoch.
    pub need_epoch_bump: bool,
    /// No InitProducerId before this (after a failure).
    pub pid_retry_at: Option<Instant>,
    /// Produce requests written: (connection, token, deadline).
    pub requests: Vec<(crate::net::BrokerConn, u64, Instant)>,
    /// The sender's requests by token, from the moment it takes their
    /// batches off the queues until the answer: not yet written (token not
    /// in `requests`: still purged as queued) or written (in flight). A
    /// purge takes them from here, so a later answer finds nothing.
    pub inflight: HashMap<u64, Vec<Batch>, FxBuild>,
    /// Statistics: per leader broker, how long messages waited in the
    /// producer (from the send call until taken into a request), in µs,
    /// since the last snapshot (librdkafka's `int_latency`).
    pub int_latency: BTreeMap<i32, Window>,
    /// Requests the sender has taken out of `inflight` to encode them
    /// (outside the lock); a blocking purge waits for them.
    pub encoding: usize,
    /// Bumped by each purge of the queues: batches being encoded meanwhile
    /// are purged by the sender when it puts them back.
    pub purge_gen: u64,
    /// acks=0: a sent message is only possibly persisted.
    acks0: bool,
    /// A delivery callback is set: reports keep their batch's records (the
    /// key, value and headers) until served. Without one (and for
    /// `send_sync`, which reports no key or value) they are freed at once.
    pub keep_records: bool,
    /// Messages (and their bytes) of `done` whose reports hold records.
    pub held_msgs: usize,
    pub held_bytes: usize,
    pub next_request_token: u64,
    /// Statistics: messages delivered (acknowledged), and their bytes.
    pub txmsgs: u64,
    pub txmsg_bytes: u64,
    /// While the sender thread sleeps: when it will wake by itself. A batch
    /// opened now whose `linger.ms` ends earlier must wake it, or the batch
    /// would wait out the sender's whole sleep.
    pub sender_wakes_at: Option<Instant>,
    /// Times the sender thread woke from its sleep, and times a `poll`
    /// woke while waiting for reports (counted to keep both at one per
    /// message under a trickle: each extra wake-up is a thread competing
    /// for the CPU and the lock on the delivery path).
    pub sender_wakeups: u64,
    pub poll_wakeups: u64,
    /// Blocking purges waiting for `encoding` to drop to zero: the sender
    /// notifies `changed` after an encoding only while one waits.
    pub purge_waiting: usize,
    linger: Duration,
    batch_size: usize,
    batch_num_messages: usize,
    max_messages: usize,
    max_bytes: usize,
    max_message_bytes: usize,
    message_timeout: Duration,
    /// `delivery.report.only.error`: successes make no report.
    dr_only_error: bool,
    /// The application's event-loop trigger (io / callback event), run when
    /// a report is queued (see `crate::net::wakeup`).
    pub wakeup: Arc<crate::net::wakeup::Wakeup>,
    /// `Producer::yield_now` was called: the next `poll` / `flush` that
    /// would wait returns at once instead.
    pub yielded: bool,
}

impl Acc {
    pub fn new(s: &Settings) -> Acc {
        Acc {
            topics: TopicMap::default(),
            clock_base: (Instant::now(), now_ms()),
            queued_msgs: 0,
            queued_bytes: 0,
            done: VecDeque::new(),
            done_msgs: 0,
            serving: Vec::new(),
            in_service: Arc::new(AtomicUsize::new(0)),
            flushing: 0,
            flush_requested_for_sync: 0,
            closing: false,
            fatal: None,
            next_seq_no: 0,
            producer: None,
            need_epoch_bump: false,
            epoch_cnt: 0,
            idemp_seen: ("Init", Instant::now()),
            pid_retry_at: None,
            requests: Vec::new(),
            inflight: HashMap::default(),
            int_latency: BTreeMap::new(),
            encoding: 0,
            purge_gen: 0,
            acks0: s.acks == 0,
            keep_records: false,
            held_msgs: 0,
            held_bytes: 0,
            next_request_token: 0,
            txmsgs: 0,
            txmsg_bytes: 0,
            sender_wakes_at: None,
            sender_wakeups: 0,
            poll_wakeups: 0,
            purge_waiting: 0,
            linger: s.linger,
            batch_size: s.batch_size,
            batch_num_messages: s.batch_num_messages,
            max_messages: s.max_messages,
            max_bytes: s.max_bytes,
            max_message_bytes: s.max_message_bytes,
            message_timeout: s.message_timeout,
            dr_only_error: s.dr_only_error,
            wakeup: crate::net::wakeup::Wakeup::new(),
            yielded: false,
        }
    }

    /// Messages not reported yet.
    pub fn outstanding(&self) -> usize {
        self.queued_msgs
    }

    /// `n` reports taken by this thread ([`Acc::take_done`]) are served.
    pub fn served(&mut self, n: usize) {
        let me = std::thread::current().id();
        if let Some(i) = self.serving.iter().position(|s| s.0 == me) {
            self.serving[i].1 = self.serving[i].1.saturating_sub(n);
            if self.serving[i].1 == 0 {
                self.serving.swap_remove(i);
            }
        }
    }

    /// Reports other threads took and are still serving.
    pub fn serving_elsewhere(&self) -> usize {
        let me = std::thread::current().id();
        self.serving.iter().filter(|s| s.0 != me).map(|s| s.1).sum()
    }

    /// True while batches should leave without waiting for `linger.ms`.
    pub fn hurry(&self) -> bool {
        self.flushing > 0 || self.flush_requested_for_sync > 0 || self.closing
    }

    /// A partition's queue.
    pub fn part(&self, tp: &Tp) -> Option<&PartQ> {
        self.topics.get(&tp.0)?.parts.get(tp.1 as usize)
    }

    /// A partition's queue, mutably.
    pub fn part_mut(&mut self, tp: &Tp) -> Option<&mut PartQ> {
        self.topics.get_mut(&tp.0)?.parts.get_mut(tp.1 as usize)
    }

    /// True when no batch is in flight.
    pub fn all_drained(&self) -> bool {
        self.topics
            .values()
            .all(|t| t.parts.iter().all(|p| p.in_flight == 0))
    }

    /// Takes the outcomes for reporting outside the lock.
    pub fn take_done(&mut self) -> VecDeque<Done> {
        if self.done_msgs > 0 {
            let me = std::thread::current().id();
            match self.serving.iter_mut().find(|s| s.0 == me) {
                Some(s) => s.1 += self.done_msgs,
                None => self.serving.push((me, self.done_msgs)),
            }
            self.in_service.fetch_add(self.done_msgs, Ordering::Relaxed);
        }
        self.done_msgs = 0;
        self.held_msgs = 0;
        self.held_bytes = 0;
        mem::take(&mut self.done)
    }

    /// Queues one record. Returns whether the sender should wake now.
    pub fn append(
        &mut self,
        s: &Settings,
        cluster: &Cluster,
        rec: &ProducerRecord<'_>,
        opaque: usize,
        sync: Option<Arc<SyncSlot>>,
    ) -> Result<bool> {
        if let Some(f) = &self.fatal {
            return Err(f.clone());
        }
        if self.closing {
            return Err(Error::local(local::DESTROY, "producer is closing"));
        }
        if rec.partition.is_some_and(|p| p < 0) {
            return Err(Error::invalid_arg(format!(
                "invalid partition {:?}",
                rec.partition
            )));
        }
        // Checked: lengths a caller chose (the C ABI's `key_len`) must not
        // wrap the sum into a small size that passes the limit.
        let size = RecordBatchBuilder::record_size_upper_bound(rec.key, rec.value, rec.headers);
        let size = match size {
            Some(n) if n <= self.max_message_bytes => n,
            _ => {
                let n = size.map_or_else(|| "more than usize::MAX".into(), |n| n.to_string());
                return Err(Error::kafka(
                    KafkaCode::MESSAGE_TOO_LARGE,
                    format!(
                        "{}: message of {n} bytes exceeds message.max.bytes ({})",
                        rec.topic, self.max_message_bytes
                    ),
                ));
            }
        };
        // reports not served yet hold their messages' records: they count
        // against the limits until poll/flush serves them (librdkafka's
        // rule: a message leaves the queue's count when its report is served)
        let (held_msgs, held_bytes) = (self.held_msgs, self.held_bytes);
        let over = |queued: usize, held: usize, more: usize, max: usize| {
            queued
                .checked_add(held)
                .and_then(|n| n.checked_add(more))
                .is_none_or(|n| n > max)
        };
        if over(self.queued_msgs, held_msgs, 1, self.max_messages)
            || over(self.queued_bytes, held_bytes, size, self.max_bytes)
        {
            return Err(Error::local(
                local::QUEUE_FULL,
                format!(
                    "{} messages / {} bytes queued, {held_msgs} / {held_bytes} awaiting their \
                     delivery reports (poll or flush serves them)",
                    self.queued_msgs, self.queued_bytes
                ),
            ));
        }
        let now = Instant::now();
        let timestamp = rec.timestamp.unwrap_or_else(|| {
            self.clock_base.1 + now.saturating_duration_since(self.clock_base.0).as_millis() as i64
        });
        let meta = MsgMeta {
            opaque,
            timestamp,
            size,
            deadline: now + self.message_timeout,
            sync,
        };
        let wake_now = self.hurry() || self.linger.is_zero();
        let wake_new = self.new_batch_wakes(now);
        let limits = (self.batch_size, self.batch_num_messages);
        // one map lookup per message: the topic's queue, borrowed alongside
        // the counters (a second one only for a topic's first message)
        let Acc {
            topics,
            next_seq_no,
            queued_msgs,
            queued_bytes,
            ..
        } = self;
        let place = |tq: &mut TopicQ| -> Result<bool> {
            if tq.partitions == 0 {
                if let Some(n) = cluster.cached_partition_count(rec.topic) {
                    tq.set_partitions(n);
                }
            }
            if tq.partitions == 0 || !tq.unassigned.is_empty() {
                // copied first, counted once queued: nothing is counted for a
                // message the queue never holds
                let u = Unassigned {
                    key: rec.key.map(<[u8]>::to_vec),
                    value: rec.value.map(<[u8]>::to_vec),
                    headers: rec
                        .headers
                        .iter()
                        .map(|(k, v)| ((*k).to_string(), v.map(<[u8]>::to_vec)))
                        .collect(),
                    partition: rec.partition,
                    timestamp,
                    meta,
                };
                tq.unassigned.push_back(u);
                *queued_msgs += 1;
                *queued_bytes += size;
                return Ok(true);
            }
            let p = pick_partition(tq, rec.key, rec.partition, s, now)?;
            let wake = append_to(
                tq,
                next_seq_no,
                limits,
                (wake_now, wake_new),
                p,
                rec.key,
                rec.value,
                rec.headers,
                timestamp,
                meta,
            )
            .map_err(|(e, _)| e)?;
            *queued_msgs += 1;
            *queued_bytes += size;
            Ok(wake)
        };
        match topics.get_mut(rec.topic) {
            Some(tq) => place(tq),
            None => place(topics.get_or_insert_with(rec.topic, TopicQ::new)),
        }
    }

    /// Makes `topic` known to the producer before its first message: it
    /// joins the topics waiting for metadata (the sender asks for it, with
    /// auto-creation if the producer allows it). Whether it was new.
    /// librdkafka's name of the idempotent producer's state (its state
    /// machine is finer; these are the states gregor's can be in).
    pub fn idemp_state(&self) -> &'static str {
        if self.fatal.is_some() {
            "FatalError"
        } else if self.need_epoch_bump {
            "DrainBump"
        } else if self.producer.is_some() {
            "Assigned"
        } else if self.pid_retry_at.is_some() {
            "RequestPID"
        } else {
            "WaitPID"
        }
    }

    /// Notes the idempotence state, and the time it changed if it did: the
    /// sender notes it on each wake-up, a statistics snapshot too.
    pub fn note_idemp_state(&mut self) {
        let now = self.idemp_state();
        if now != self.idemp_seen.0 {
            self.idemp_seen = (now, Instant::now());
        }
    }

    pub fn add_topic(&mut self, cluster: &Cluster, topic: &str) -> bool {
        if self.topics.contains_key(topic) {
            return false;
        }
        let name: Arc<str> = Arc::from(topic);
        let mut tq = TopicQ::new(name.clone());
        if let Some(n) = cluster.cached_partition_count(topic) {
            tq.set_partitions(n);
        }
        self.topics.insert(name, tq);
        true
    }

    /// Places a topic's waiting messages once its partition count is known.
    pub fn assign_unassigned(&mut self, s: &Settings, topic: &Arc<str>, partitions: i32) {
        let Some(tq) = self.topics.get_mut(topic) else {
            return;
        };
        tq.set_partitions(partitions);
        let waiting: Vec<Unassigned> = tq.unassigned.drain(..).collect();
        let now = Instant::now();
        for u in waiting {
            let tq = self.topics.get_mut(topic).expect("present");
            let p = match pick_partition(tq, u.key.as_deref(), u.partition, s, now) {
                Ok(p) => p,
                Err(e) => {
                    let partition = u.partition.unwrap_or(-1);
                    self.fail_one(topic, u, partition, e);
                    continue;
                }
            };
            let limits = (self.batch_size, self.batch_num_messages);
            let wake_now = self.hurry() || self.linger.is_zero();
            let wake_new = self.new_batch_wakes(now);
            let tq = self.topics.get_mut(topic).expect("present");
            let Unassigned {
                key,
                value,
                headers,
                partition,
                timestamp,
                meta,
            } = u;
            let hs: Vec<(&str, Option<&[u8]>)> = headers
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_deref()))
                .collect();
            let placed = append_to(
                tq,
                &mut self.next_seq_no,
                limits,
                (wake_now, wake_new),
                p,
                key.as_deref(),
                value.as_deref(),
                &hs,
                timestamp,
                meta,
            );
            drop(hs);
            if let Err((e, meta)) = placed {
                let u = Unassigned {
                    key,
                    value,
                    headers,
                    partition,
                    timestamp,
                    meta,
                };
                self.fail_one(topic, u, p, e);
            }
        }
    }

    /// Whether the sender has work after a produce response touched the
    /// partitions `tps`: a batch of theirs to send (a retry, or one held
    /// back by the in-flight limit), an epoch to bump, a fatal error. A
    /// response that only completed batches leaves it nothing: waking it
    /// then would make it compete with the application's `poll` for the
    /// CPU and this lock, just as the report is served (librdkafka's broker
    /// thread likewise sleeps on until its queues or timers need it).
    pub fn sender_needed_after(&self, tps: &[Tp]) -> bool {
        self.need_epoch_bump
            || self.fatal.is_some()
            || self.closing
            || tps
                .iter()
                .any(|tp| self.part(tp).is_some_and(|pq| !pq.ready.is_empty()))
    }

    /// Whether a batch opened at `now` must wake the sleeping sender: its
    /// linger ends before the sender's own wake-up.
    fn new_batch_wakes(&self, now: Instant) -> bool {
        self.sender_wakes_at.is_some_and(|t| now + self.linger < t)
    }

    /// Closes open batches that are due (linger, flush, full); returns the next linger deadline.
    pub fn close_due(&mut self, now: Instant) -> Option<Instant> {
        let hurry = self.hurry();
        let mut next: Option<Instant> = None;
        for tq in self.topics.values_mut() {
            for pq in &mut tq.parts {
                let Some(open) = &pq.open else { continue };
                let due = open.created + self.linger;
                if hurry || due <= now {
                    let b = pq.open.take().expect("open");
                    pq.ready.push_back(b);
                } else {
                    next = Some(next.map_or(due, |n: Instant| n.min(due)));
                }
            }
        }
        next
    }

    /// Fails queued (not in flight) messages past their deadline.
    pub fn expire(&mut self, now: Instant) -> Option<Instant> {
        let mut next: Option<Instant> = None;
        let mut expired = Vec::new();
        let mut soonest = |d: Instant| next = Some(next.map_or(d, |n: Instant| n.min(d)));
        for tq in self.topics.values_mut() {
            for pq in &mut tq.parts {
                if pq.ready.iter().any(|b| b.deadline <= now) {
                    let (gone, keep): (VecDeque<Batch>, VecDeque<Batch>) =
                        pq.ready.drain(..).partition(|b| b.deadline <= now);
                    expired.extend(gone);
                    pq.ready = keep;
                }
                if pq.open.as_ref().is_some_and(|b| b.deadline <= now) {
                    expired.extend(pq.open.take());
                }
                for b in pq.ready.iter().chain(pq.open.iter()) {
                    soonest(b.deadline);
                }
            }
            while tq
                .unassigned
                .front()
                .is_some_and(|u| u.meta.deadline <= now)
            {
                let u = tq.unassigned.pop_front().expect("front");
                expired.push(unassigned_batch(&tq.name, u));
            }
            if let Some(u) = tq.unassigned.front() {
                soonest(u.meta.deadline);
            }
        }
        for b in expired {
            if b.sent && b.base_sequence >= 0 {
                // a numbered batch that may or may not have been written: the
                // sequence space can no longer be trusted
                self.need_epoch_bump = true;
            }
            let e = Error::local(
                local::MSG_TIMED_OUT,
                format!("{} [{}]: message timed out", b.tp.0, b.tp.1),
            );
            self.complete(b, Err(e));
        }
        next
    }

    /// Records the outcome of every message of a batch:
    /// `Ok((base offset, log append time))` or an error.
    pub fn complete(&mut self, mut b: Batch, result: std::result::Result<(i64, i64), Error>) {
        let status = match &result {
            Ok(_) if self.acks0 => MessageStatus::PossiblyPersisted,
            Ok(_) => MessageStatus::Persisted,
            Err(_) if b.possibly_persisted => MessageStatus::PossiblyPersisted,
            Err(_) => MessageStatus::NotPersisted,
        };
        let records = if self.keep_records {
            b.take_records()
        } else {
            None
        };
        self.queued_msgs -= b.msgs.len();
        self.queued_bytes -= b.total_size;
        let (n, bytes) = (b.msgs.len() as u64, b.payload_bytes);
        if result.is_ok() {
            self.txmsgs += n;
            self.txmsg_bytes += bytes;
        }
        if let Some(p) = self.part_mut(&b.tp) {
            p.done_msgs += n;
            if result.is_ok() {
                p.txmsgs += n;
                p.txmsg_bytes += bytes;
            }
        }
        if b.has_sync {
            let now = Instant::now();
            let mut pos = 0;
            for (i, m) in b.msgs.iter().enumerate() {
                let record_pos = pos;
                if let Some(data) = &records {
                    pos = BatchRecords::record_end(data, pos).unwrap_or(data.len());
                }
                if let Some(s) = &m.sync {
                    let (offset, timestamp, error) = match &result {
                        Ok((base, lat)) => (
                            if *base >= 0 { base + i as i64 } else { -1 },
                            if *lat >= 0 { *lat } else { m.timestamp },
                            None,
                        ),
                        Err(e) => (-1, m.timestamp, Some(e.clone())),
                    };
                    s.fill(DeliveryReport {
                        topic: b.tp.0.clone(),
                        partition: b.tp.1,
                        offset,
                        timestamp,
                        error,
                        opaque: m.opaque,
                        status,
                        latency_us: latency_us(now, m.deadline, self.message_timeout),
                        broker_id: b.broker,
                        records: records.clone(),
                        record_pos,
                    });
                }
            }
        }
        self.done_msgs += reported_msgs(&b.msgs);
        if records.is_some() {
            for m in b.msgs.iter().filter(|m| m.sync.is_none()) {
                self.held_msgs += 1;
                self.held_bytes += m.size;
            }
        }
        let reports =
            b.msgs.iter().any(|m| m.sync.is_none()) && !(self.dr_only_error && result.is_ok());
        self.done.push_back(Done {
            tp: b.tp,
            result,
            msgs: b.msgs,
            status,
            records,
            broker: b.broker,
        });
        if reports {
            self.wakeup.signal();
        }
    }

    /// Purges the messages not sent yet (librdkafka's `RD_KAFKA_PURGE_F_QUEUE`):
    /// open and ready batches, messages waiting for metadata, and requests
    /// the sender has taken but not written; each gets a `_PURGE_QUEUE`
    /// report. Batches the sender is encoding now are purged when it puts
    /// them back (`purge_gen`).
    pub fn purge_queue(&mut self) {
        self.purge_gen += 1;
        let mut batches = Vec::new();
        for tq in self.topics.values_mut() {
            for pq in &mut tq.parts {
                batches.extend(pq.ready.drain(..));
                batches.extend(pq.open.take());
            }
            tq.sticky = None;
            let name = tq.name.clone();
            batches.extend(tq.unassigned.drain(..).map(|u| unassigned_batch(&name, u)));
        }
        batches.extend(self.take_unsent());
        for b in batches {
            if b.base_sequence >= 0 {
                // numbered and never to be sent: the sequence must start afresh
                self.need_epoch_bump = true;
            }
            let e = Error::local(
                local::PURGE_QUEUE,
                format!("{} [{}]: purged from the queue", b.tp.0, b.tp.1),
            );
            self.complete(b, Err(e));
        }
    }

    /// Purges the messages whose produce requests are written and not yet
    /// answered (librdkafka's `RD_KAFKA_PURGE_F_INFLIGHT`): each gets a
    /// `_PURGE_INFLIGHT` report, possibly persisted; the broker's answer,
    /// when it comes, finds nothing to report. Returns how many messages
    /// were purged.
    pub fn purge_in_flight(&mut self, s: &Settings) -> usize {
        let written: Vec<u64> = self.requests.iter().map(|r| r.1).collect();
        let mut n = 0;
        for t in written {
            for mut b in self.inflight.remove(&t).unwrap_or_default() {
                if let Some(pq) = self.part_mut(&b.tp) {
                    pq.in_flight -= 1;
                }
                if s.idempotence && b.base_sequence >= 0 {
                    // written or not: the sequence space can no longer be trusted
                    self.need_epoch_bump = true;
                }
                b.possibly_persisted = true;
                let e = Error::local(
                    local::PURGE_INFLIGHT,
                    format!("{} [{}]: purged in flight", b.tp.0, b.tp.1),
                );
                n += b.msgs.len();
                self.complete(b, Err(e));
            }
        }
        n
    }

    fn fail_one(&mut self, topic: &Arc<str>, u: Unassigned, partition: i32, e: Error) {
        let mut b = unassigned_batch(topic, u);
        b.tp.1 = partition;
        self.complete(b, Err(e));
    }

    /// Fails a topic's messages waiting for metadata.
    pub fn fail_topic(&mut self, topic: &Arc<str>, e: Error) {
        let Some(tq) = self.topics.get_mut(topic) else {
            return;
        };
        let name = tq.name.clone();
        let waiting: Vec<Batch> = tq
            .unassigned
            .drain(..)
            .map(|u| unassigned_batch(&name, u))
            .collect();
        for b in waiting {
            self.complete(b, Err(e.clone()));
        }
    }

    /// Fails everything not in flight (close, fatal errors).
    pub fn fail_all(&mut self, e: Error) {
        let mut batches = Vec::new();
        for tq in self.topics.values_mut() {
            for pq in &mut tq.parts {
                batches.extend(pq.ready.drain(..));
                batches.extend(pq.open.take());
            }
            let name = tq.name.clone();
            batches.extend(tq.unassigned.drain(..).map(|u| unassigned_batch(&name, u)));
        }
        for b in batches {
            self.complete(b, Err(e.clone()));
        }
    }

    /// Takes the sender's requests not written yet out of `inflight`.
    fn take_unsent(&mut self) -> Vec<Batch> {
        let written: Vec<u64> = self.requests.iter().map(|r| r.1).collect();
        let unsent: Vec<u64> = self
            .inflight
            .keys()
            .copied()
            .filter(|t| !written.contains(t))
            .collect();
        let mut batches = Vec::new();
        for t in unsent {
            for b in self.inflight.remove(&t).unwrap_or_default() {
                if let Some(pq) = self.part_mut(&b.tp) {
                    pq.in_flight -= 1;
                }
                batches.push(b);
            }
        }
        batches
    }

    /// Puts a batch back for another try, in creation order.
    pub fn requeue(&mut self, mut b: Batch, at: Instant) {
        b.retry_at = Some(at);
        let seq_no = b.seq_no;
        let Some(pq) = self.part_mut(&b.tp) else {
            let e = Error::local(
                local::UNKNOWN_PARTITION,
                format!("{} [{}]: partition gone", b.tp.0, b.tp.1),
            );
            return self.complete(b, Err(e));
        };
        let pos = pq
            .ready
            .iter()
            .position(|x| x.seq_no > seq_no)
            .unwrap_or(pq.ready.len());
        pq.ready.insert(pos, b);
    }

    /// Idempotence: after a new producer id or epoch, numbers every waiting
    /// batch of each partition afresh from 0, restamping finished ones.
    pub fn renumber_all(&mut self, pid: i64, epoch: i16) {
        for tq in self.topics.values_mut() {
            for pq in &mut tq.parts {
                pq.next_seq = 0;
                for b in pq.ready.iter_mut() {
                    if let Some(bytes) = &b.bytes {
                        b.base_sequence = pq.next_seq;
                        b.bytes = Some(restamp(bytes, pid, epoch, b.base_sequence));
                        pq.next_seq = pq.next_seq.wrapping_add(b.msgs.len() as i32) & i32::MAX;
                    } else {
                        b.base_sequence = -1;
                    }
                }
            }
        }
    }
}

/// Appends one record to its partition's open batch (closing a full one
/// first). Returns whether the sender should wake now.
#[allow(clippy::too_many_arguments)]
fn append_to(
    tq: &mut TopicQ,
    next_seq_no: &mut u64,
    (batch_size, batch_num): (usize, usize),
    (wake_now, wake_new): (bool, bool),
    partition: i32,
    key: Option<&[u8]>,
    value: Option<&[u8]>,
    headers: &[(&str, Option<&[u8]>)],
    timestamp: i64,
    meta: MsgMeta,
) -> std::result::Result<bool, (Error, MsgMeta)> {
    let mut wake = wake_now || meta.sync.is_some();
    let pq = &mut tq.parts[partition as usize];
    if let Some(open) = &pq.open {
        let b = open.builder.as_ref().expect("open batch has a builder");
        if open.msgs.len() >= batch_num || b.size_in_bytes().saturating_add(meta.size) > batch_size
        {
            let full = pq.open.take().expect("open");
            pq.ready.push_back(full);
            wake = true;
        }
    }
    let name = &tq.name;
    let pq = &mut tq.parts[partition as usize];
    wake |= wake_new && pq.open.is_none();
    let open = pq.open.get_or_insert_with(|| {
        *next_seq_no += 1;
        Batch {
            tp: Tp(name.clone(), partition),
            builder: Some(RecordBatchBuilder::with_capacity(batch_size.min(1 << 20))),
            bytes: None,
            msgs: Vec::with_capacity(batch_num.min(1024)),
            total_size: 0,
            payload_bytes: 0,
            has_sync: false,
            created: Instant::now(),
            deadline: meta.deadline,
            seq_no: *next_seq_no,
            base_sequence: -1,
            attempts: 0,
            retry_at: None,
            sent: false,
            records: None,
            possibly_persisted: false,
            broker: -1,
        }
    });
    let b = open.builder.as_mut().expect("builder");
    if let Err(e) = b.append(timestamp, key, value, headers) {
        return Err((e.into(), meta));
    }
    open.total_size += meta.size;
    open.payload_bytes += (key.map_or(0, <[u8]>::len) + value.map_or(0, <[u8]>::len)) as u64;
    open.has_sync |= meta.sync.is_some();
    open.deadline = open.deadline.min(meta.deadline);
    open.msgs.push(meta);
    if open.msgs.len() >= batch_num || b.size_in_bytes() >= batch_size {
        wake = true;
    }
    tq.parts[partition as usize].msgs += 1;
    Ok(wake)
}

fn pick_partition(
    tq: &mut TopicQ,
    key: Option<&[u8]>,
    explicit: Option<i32>,
    s: &Settings,
    now: Instant,
) -> Result<i32> {
    let n = tq.partitions;
    if let Some(p) = explicit {
        if p >= n {
            return Err(Error::local(
                local::UNKNOWN_PARTITION,
                format!("{} [{p}]: no such partition ({n} partitions)", tq.name),
            ));
        }
        return Ok(p);
    }
    if let Some(p) = s.partitioner.partition(key, n) {
        return Ok(p);
    }
    // keyless: sticky partitioning (KIP-480): one random partition for
    // sticky.partitioning.linger.ms, then another (0: a random one per message)
    let random = || (partitioner::random_u32() % n.max(1) as u32) as i32;
    let linger = s.sticky_linger;
    if linger.is_zero() {
        return Ok(random());
    }
    match tq.sticky {
        Some((p, until)) if now < until && p < n => Ok(p),
        _ => {
            let p = random();
            tq.sticky = Some((p, now + linger));
            Ok(p)
        }
    }
}

fn one_message_batch(tp: Tp, meta: MsgMeta) -> Batch {
    Batch {
        tp,
        builder: None,
        bytes: None,
        total_size: meta.size,
        payload_bytes: 0,
        has_sync: meta.sync.is_some(),
        created: Instant::now(),
        deadline: meta.deadline,
        msgs: vec![meta],
        seq_no: 0,
        base_sequence: -1,
        attempts: 0,
        retry_at: None,
        sent: false,
        records: None,
        possibly_persisted: false,
        broker: -1,
    }
}

/// A message that never reached a batch, as a batch of its own for its
/// report (its record encoded once, for the key, value and headers).
fn unassigned_batch(topic: &Arc<str>, u: Unassigned) -> Batch {
    let mut b = one_message_batch(Tp(topic.clone(), u.partition.unwrap_or(-1)), u.meta);
    b.msgs[0].timestamp = u.timestamp;
    let hs: Vec<(&str, Option<&[u8]>)> = u
        .headers
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_deref()))
        .collect();
    let mut builder = RecordBatchBuilder::new();
    if builder
        .append(u.timestamp, u.key.as_deref(), u.value.as_deref(), &hs)
        .is_ok()
    {
        b.builder = Some(builder);
    }
    b
}

/// Rewrites a finished v2 batch's producer id, epoch and base sequence and
/// recomputes its CRC-32C (which covers attributes to the end).
pub(crate) fn restamp(bytes: &Bytes, pid: i64, epoch: i16, seq: i32) -> Bytes {
    let mut v = bytes.to_vec();
    if v.len() >= crate::record::batch::HEADER_LEN {
        BigEndian::write_i64(&mut v[43..51], pid);
        BigEndian::write_i16(&mut v[51..53], epoch);
        BigEndian::write_i32(&mut v[53..57], seq);
        let crc = crate::record::crc32c::crc32c(&v[21..]);
        BigEndian::write_u32(&mut v[17..21], crc);
    }
    Bytes::from(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    /// A producer's settings and cluster for `linger.ms`.
    fn setup(linger_ms: &str) -> (Settings, Cluster) {
        let cfg = Config::from_pairs([
            ("bootstrap.servers", "127.0.0.1:1"),
            ("linger.ms", linger_ms),
        ])
        .unwrap();
        let settings = Settings::from_config(&cfg).unwrap();
        (settings, Cluster::new(&cfg).unwrap())
    }

    fn rec(topic: &str) -> ProducerRecord<'_> {
        ProducerRecord {
            topic,
            partition: Some(0),
            key: None,
            value: Some(b"v"),
            headers: &[],
            timestamp: None,
        }
    }

    /// F2: a batch opened while the sender sleeps past its linger deadline
    /// wakes the sender; a message joining an open batch, or a batch whose
    /// linger ends after the sender wakes anyway, does not.
    #[test]
    fn a_new_batch_wakes_the_sender_only_when_it_sleeps_past_the_batchs_linger() {
        let (s, cluster) = setup("5");
        let mut acc = Acc::new(&s);
        let name: Arc<str> = Arc::from("t");
        let mut tq = TopicQ::new(name.clone());
        tq.set_partitions(1);
        acc.topics.insert(name, tq);

        // the sender is awake (working): it looks at the new batch itself
        acc.sender_wakes_at = None;
        assert!(!acc.append(&s, &cluster, &rec("t"), 0, None).unwrap());
        acc.topics.get_mut("t").unwrap().parts[0].open = None;

        // it sleeps for a second: the new batch's 5 ms linger must wake it
        acc.sender_wakes_at = Some(Instant::now() + Duration::from_secs(1));
        assert!(acc.append(&s, &cluster, &rec("t"), 1, None).unwrap());
        // the batch is open now; the sender already knows its deadline
        assert!(!acc.append(&s, &cluster, &rec("t"), 2, None).unwrap());
        acc.topics.get_mut("t").unwrap().parts[0].open = None;

        // it wakes before the linger ends anyway
        acc.sender_wakes_at = Some(Instant::now());
        assert!(!acc.append(&s, &cluster, &rec("t"), 3, None).unwrap());
    }

    /// A produce answer wakes the sender only if it left it work: a batch
    /// of an answered partition to send (a retry, or one held back by the
    /// in-flight limit), an epoch to bump, a fatal error.
    #[test]
    fn an_answer_wakes_the_sender_only_when_it_left_work() {
        let (s, cluster) = setup("0");
        let mut acc = Acc::new(&s);
        let name: Arc<str> = Arc::from("t");
        let mut tq = TopicQ::new(name.clone());
        tq.set_partitions(2);
        acc.topics.insert(name.clone(), tq);
        let tp0 = Tp(name.clone(), 0);
        let tp1 = Tp(name.clone(), 1);

        // the answered batch was the partition's only one: nothing to do
        assert!(!acc.sender_needed_after(std::slice::from_ref(&tp0)));

        // a batch of the partition waits (a retry requeued, or held back
        // by max.in.flight): the sender must send it
        acc.append(&s, &cluster, &rec("t"), 0, None).unwrap();
        acc.close_due(Instant::now());
        assert!(!acc.part(&tp0).unwrap().ready.is_empty());
        assert!(acc.sender_needed_after(std::slice::from_ref(&tp0)));
        // ... but not if the answer was for another partition
        assert!(!acc.sender_needed_after(std::slice::from_ref(&tp1)));
        acc.topics.get_mut("t").unwrap().parts[0].ready.clear();

        // an epoch bump waits for the answers (KIP-360)
        acc.need_epoch_bump = true;
        assert!(acc.sender_needed_after(std::slice::from_ref(&tp1)));
        acc.need_epoch_bump = false;
        acc.fatal = Some(Error::local(local::FATAL, "fenced"));
        assert!(acc.sender_needed_after(&[]));
    }
}
