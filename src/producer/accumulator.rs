//! Per-partition queues of record batches, bounded by
//! `queue.buffering.max.messages` / `.kbytes`, and the bookkeeping that turns
//! broker answers into delivery reports.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use byteorder::{BigEndian, ByteOrder};

use super::{partitioner, DeliveryReport, Settings, Shared};
use crate::error::{local, Error, Result};
use crate::message::{now_ms, ProducerRecord};
use crate::protocol::KafkaCode;
use crate::record::RecordBatchBuilder;
use crate::wire::Bytes;

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

/// A fast non-cryptographic hasher (FxHash) for the accumulator's maps, whose
/// keys come from the application, not the network.
#[derive(Default, Clone, Copy)]
pub(crate) struct FxBuild;

pub(crate) struct Fx(u64);

impl std::hash::BuildHasher for FxBuild {
    type Hasher = Fx;
    #[inline]
    fn build_hasher(&self) -> Fx {
        Fx(0)
    }
}

impl Fx {
    #[inline]
    fn add(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl std::hash::Hasher for Fx {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes([
                c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7],
            ]));
        }
        let mut tail = [0u8; 8];
        let r = chunks.remainder();
        tail[..r.len()].copy_from_slice(r);
        self.add(u64::from_le_bytes(tail) ^ (r.len() as u64) << 56);
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }
    #[inline]
    fn write_i32(&mut self, i: i32) {
        self.add(u64::from(i as u32));
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
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
        *self.report.lock().unwrap_or_else(|e| e.into_inner()) = Some(dr);
        self.ready.notify_all();
    }

    /// The report, or `None` at the deadline.
    pub fn wait(&self, deadline: Instant) -> Option<DeliveryReport> {
        let mut g = self.report.lock().unwrap_or_else(|e| e.into_inner());
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
    pub created: Instant,
    /// Order of creation within the producer, to keep retries in order.
    pub seq_no: u64,
    /// Idempotence: the first record's sequence (-1 until numbered).
    pub base_sequence: i32,
    pub attempts: u32,
    pub retry_at: Option<Instant>,
    /// True once it has been sent at least once.
    pub sent: bool,
}

impl Batch {
    fn deadline(&self) -> Option<Instant> {
        self.msgs.iter().map(|m| m.deadline).min()
    }
}

/// A partition's queue.
#[derive(Default)]
pub(crate) struct PartQ {
    pub open: Option<Batch>,
    pub ready: VecDeque<Batch>,
    pub in_flight: usize,
    /// Idempotence: the next sequence to hand out.
    pub next_seq: i32,
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

/// A topic's state.
#[derive(Default)]
pub(crate) struct TopicQ {
    /// Partition count (0 until known).
    pub partitions: i32,
    /// Keyless messages stick to this partition until its batch closes.
    pub sticky: Option<i32>,
    pub unassigned: VecDeque<Unassigned>,
    /// Last metadata request for it.
    pub asked: Option<Instant>,
}

/// The accumulator: everything queued, in flight and reported.
pub(crate) struct Acc {
    pub parts: HashMap<Tp, PartQ, FxBuild>,
    pub topics: HashMap<Arc<str>, TopicQ, FxBuild>,
    /// (monotonic, wall-clock ms) read together, refreshed by the sender, so a
    /// message costs one clock read.
    pub clock_base: (Instant, i64),
    /// Messages not yet reported, and their bytes.
    pub queued_msgs: usize,
    pub queued_bytes: usize,
    /// Reports waiting for poll/flush.
    pub reports: VecDeque<DeliveryReport>,
    pub flushing: usize,
    pub flush_requested_for_sync: usize,
    pub closing: bool,
    /// A fatal error (fenced, unauthorized): every send fails with it.
    pub fatal: Option<Error>,
    pub next_seq_no: u64,
    /// Idempotence: producer id and epoch, once known.
    pub producer: Option<(i64, i16)>,
    /// Idempotence: the sequence space must be reset with a new epoch.
    pub need_epoch_bump: bool,
    /// No InitProducerId before this (after a failure).
    pub pid_retry_at: Option<Instant>,
    /// Produce requests in flight: (connection, token, deadline).
    pub requests: Vec<(crate::net::BrokerConn, u64, Instant)>,
    pub next_request_token: u64,
    linger: Duration,
    batch_size: usize,
    batch_num_messages: usize,
    max_messages: usize,
    max_bytes: usize,
    max_message_bytes: usize,
    message_timeout: Duration,
}

impl Acc {
    pub fn new(s: &Settings) -> Acc {
        Acc {
            parts: HashMap::default(),
            topics: HashMap::default(),
            clock_base: (Instant::now(), now_ms()),
            queued_msgs: 0,
            queued_bytes: 0,
            reports: VecDeque::new(),
            flushing: 0,
            flush_requested_for_sync: 0,
            closing: false,
            fatal: None,
            next_seq_no: 0,
            producer: None,
            need_epoch_bump: false,
            pid_retry_at: None,
            requests: Vec::new(),
            next_request_token: 0,
            linger: s.linger,
            batch_size: s.batch_size,
            batch_num_messages: s.batch_num_messages,
            max_messages: s.max_messages,
            max_bytes: s.max_bytes,
            max_message_bytes: s.max_message_bytes,
            message_timeout: s.message_timeout,
        }
    }

    /// Messages not reported yet.
    pub fn outstanding(&self) -> usize {
        self.queued_msgs
    }

    /// True while batches should leave without waiting for `linger.ms`.
    pub fn hurry(&self) -> bool {
        self.flushing > 0 || self.flush_requested_for_sync > 0 || self.closing
    }

    /// Queues one record. Returns whether the sender should wake now.
    pub fn append(
        &mut self,
        sh: &Shared,
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
        let size = RecordBatchBuilder::record_size_upper_bound(rec.key, rec.value, rec.headers);
        if size > self.max_message_bytes {
            return Err(Error::kafka(
                KafkaCode::MESSAGE_TOO_LARGE,
                format!(
                    "{}: message of {size} bytes exceeds message.max.bytes ({})",
                    rec.topic, self.max_message_bytes
                ),
            ));
        }
        if self.queued_msgs + 1 > self.max_messages || self.queued_bytes + size > self.max_bytes {
            return Err(Error::local(
                local::QUEUE_FULL,
                format!(
                    "{} messages / {} bytes queued",
                    self.queued_msgs, self.queued_bytes
                ),
            ));
        }
        let timestamp = rec.timestamp.unwrap_or_else(now_ms);
        let meta = MsgMeta {
            opaque,
            timestamp,
            size,
            deadline: Instant::now() + self.message_timeout,
            sync,
        };
        let topic: Arc<str> = match self.topics.get_key_value(rec.topic) {
            Some((k, _)) => k.clone(),
            None => Arc::from(rec.topic),
        };
        let tq = self.topics.entry(topic.clone()).or_default();
        if tq.partitions == 0 {
            if let Some(n) = sh.cluster.cached_partition_count(rec.topic) {
                tq.partitions = n;
            }
        }
        if tq.partitions == 0 || !tq.unassigned.is_empty() {
            tq.unassigned.push_back(Unassigned {
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
            });
            self.queued_msgs += 1;
            self.queued_bytes += size;
            return Ok(true);
        }
        let partition = self.pick_partition(&topic, rec.key, rec.partition, sh)?;
        self.queued_msgs += 1;
        self.queued_bytes += size;
        self.append_to(
            Tp(topic, partition),
            rec.key,
            rec.value,
            rec.headers,
            timestamp,
            meta,
        )
        .map_err(|(e, _)| {
            self.queued_msgs -= 1;
            self.queued_bytes -= size;
            e
        })
    }

    fn pick_partition(
        &mut self,
        topic: &Arc<str>,
        key: Option<&[u8]>,
        explicit: Option<i32>,
        sh: &Shared,
    ) -> Result<i32> {
        let tq = self.topics.get_mut(topic).expect("topic present");
        let n = tq.partitions;
        if let Some(p) = explicit {
            if p >= n {
                return Err(Error::local(
                    local::UNKNOWN_PARTITION,
                    format!("{topic} [{p}]: no such partition ({n} partitions)"),
                ));
            }
            return Ok(p);
        }
        if let Some(p) = sh.settings.partitioner.partition(key, n) {
            return Ok(p);
        }
        // keyless: sticky partitioning (KIP-480)
        Ok(*tq
            .sticky
            .get_or_insert_with(|| (partitioner::random_u32() % n.max(1) as u32) as i32))
    }

    fn append_to(
        &mut self,
        tp: Tp,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
        headers: &[(&str, Option<&[u8]>)],
        timestamp: i64,
        meta: MsgMeta,
    ) -> std::result::Result<bool, (Error, MsgMeta)> {
        let mut wake = self.hurry() || self.linger.is_zero() || meta.sync.is_some();
        let size = meta.size;
        let pq = self.parts.entry(tp.clone()).or_default();
        if let Some(open) = &pq.open {
            let b = open.builder.as_ref().expect("open batch has a builder");
            if open.msgs.len() >= self.batch_num_messages
                || b.size_in_bytes() + size > self.batch_size
            {
                let full = pq.open.take().expect("open");
                pq.ready.push_back(full);
                wake = true;
                if let Some(tq) = self.topics.get_mut(&tp.0) {
                    if tq.sticky == Some(tp.1) {
                        tq.sticky = None;
                    }
                }
            }
        }
        let pq = self.parts.get_mut(&tp).expect("present");
        if pq.open.is_none() {
            self.next_seq_no += 1;
            pq.open = Some(Batch {
                tp,
                builder: Some(RecordBatchBuilder::with_capacity(
                    self.batch_size.min(1 << 20),
                )),
                bytes: None,
                msgs: Vec::with_capacity(self.batch_num_messages.min(1024)),
                created: Instant::now(),
                seq_no: self.next_seq_no,
                base_sequence: -1,
                attempts: 0,
                retry_at: None,
                sent: false,
            });
        }
        let open = pq.open.as_mut().expect("open");
        let b = open.builder.as_mut().expect("builder");
        if let Err(e) = b.append(timestamp, key, value, headers) {
            return Err((e.into(), meta));
        }
        open.msgs.push(meta);
        if open.msgs.len() >= self.batch_num_messages || b.size_in_bytes() >= self.batch_size {
            wake = true;
        }
        Ok(wake)
    }

    /// Places a topic's waiting messages once its partition count is known.
    pub fn assign_unassigned(&mut self, sh: &Shared, topic: &Arc<str>, partitions: i32) {
        let Some(tq) = self.topics.get_mut(topic) else {
            return;
        };
        tq.partitions = partitions;
        let waiting: Vec<Unassigned> = tq.unassigned.drain(..).collect();
        for u in waiting {
            let hs: Vec<(&str, Option<&[u8]>)> = u
                .headers
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_deref()))
                .collect();
            let p = match self.pick_partition(topic, u.key.as_deref(), u.partition, sh) {
                Ok(p) => p,
                Err(e) => {
                    self.report(
                        topic,
                        u.partition.unwrap_or(-1),
                        -1,
                        u.timestamp,
                        Some(e),
                        u.meta,
                    );
                    continue;
                }
            };
            let placed = self.append_to(
                Tp(topic.clone(), p),
                u.key.as_deref(),
                u.value.as_deref(),
                &hs,
                u.timestamp,
                u.meta,
            );
            if let Err((e, meta)) = placed {
                self.report(topic, p, -1, u.timestamp, Some(e), meta);
            }
        }
    }

    /// Closes open batches that are due (linger, flush, full); returns the next linger deadline.
    pub fn close_due(&mut self, now: Instant) -> Option<Instant> {
        let hurry = self.hurry();
        let mut next: Option<Instant> = None;
        let mut unstick = Vec::new();
        for (tp, pq) in &mut self.parts {
            let Some(open) = &pq.open else { continue };
            let due = open.created + self.linger;
            if hurry || due <= now {
                let b = pq.open.take().expect("open");
                pq.ready.push_back(b);
                unstick.push(tp.clone());
            } else {
                next = Some(next.map_or(due, |n: Instant| n.min(due)));
            }
        }
        for tp in unstick {
            if let Some(tq) = self.topics.get_mut(&tp.0) {
                if tq.sticky == Some(tp.1) {
                    tq.sticky = None;
                }
            }
        }
        next
    }

    /// Fails queued (not in flight) messages past their deadline.
    pub fn expire(&mut self, now: Instant) -> Option<Instant> {
        let mut next: Option<Instant> = None;
        let mut expired = Vec::new();
        for pq in self.parts.values_mut() {
            let mut keep = VecDeque::new();
            for b in pq.ready.drain(..).chain(pq.open.take()) {
                match b.deadline() {
                    Some(d) if d <= now => expired.push(b),
                    d => {
                        if let Some(d) = d {
                            next = Some(next.map_or(d, |n: Instant| n.min(d)));
                        }
                        keep.push_back(b);
                    }
                }
            }
            // the open batch, if kept, is the newest: put it back as open
            if keep
                .back()
                .is_some_and(|b| b.builder.is_some() && b.bytes.is_none() && !b.sent)
            {
                let last = keep.pop_back().expect("back");
                pq.ready = keep;
                pq.open = Some(last);
            } else {
                pq.ready = keep;
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
        let mut timed_out = Vec::new();
        for (t, tq) in &mut self.topics {
            while tq
                .unassigned
                .front()
                .is_some_and(|u| u.meta.deadline <= now)
            {
                timed_out.push((t.clone(), tq.unassigned.pop_front().expect("front")));
            }
            if let Some(u) = tq.unassigned.front() {
                next = Some(next.map_or(u.meta.deadline, |n: Instant| n.min(u.meta.deadline)));
            }
        }
        for (t, u) in timed_out {
            let e = Error::local(
                local::MSG_TIMED_OUT,
                format!("{t}: no metadata for the topic in time"),
            );
            self.report(
                &t,
                u.partition.unwrap_or(-1),
                -1,
                u.timestamp,
                Some(e),
                u.meta,
            );
        }
        next
    }

    /// Reports every message of a batch: `Ok((base offset, log append time))` or an error.
    pub fn complete(&mut self, b: Batch, result: std::result::Result<(i64, i64), Error>) {
        let tp = b.tp.clone();
        for (i, m) in b.msgs.into_iter().enumerate() {
            let (offset, ts, err) = match &result {
                Ok((base, lat)) => (
                    if *base >= 0 { base + i as i64 } else { -1 },
                    if *lat >= 0 { *lat } else { m.timestamp },
                    None,
                ),
                Err(e) => (-1, m.timestamp, Some(e.clone())),
            };
            self.report(&tp.0, tp.1, offset, ts, err, m);
        }
    }

    fn report(
        &mut self,
        topic: &Arc<str>,
        partition: i32,
        offset: i64,
        timestamp: i64,
        error: Option<Error>,
        m: MsgMeta,
    ) {
        self.queued_msgs -= 1;
        self.queued_bytes -= m.size;
        let dr = DeliveryReport {
            topic: topic.clone(),
            partition,
            offset,
            timestamp,
            error,
            opaque: m.opaque,
        };
        match m.sync {
            Some(s) => s.fill(dr),
            None => self.reports.push_back(dr),
        }
    }

    /// Fails everything not in flight (close, fatal errors).
    pub fn fail_all(&mut self, e: Error) {
        let mut batches = Vec::new();
        for pq in self.parts.values_mut() {
            batches.extend(pq.ready.drain(..));
            batches.extend(pq.open.take());
        }
        for b in batches {
            self.complete(b, Err(e.clone()));
        }
        let mut waiting = Vec::new();
        for (t, tq) in &mut self.topics {
            waiting.extend(tq.unassigned.drain(..).map(|u| (t.clone(), u)));
        }
        for (t, u) in waiting {
            self.report(
                &t,
                u.partition.unwrap_or(-1),
                -1,
                u.timestamp,
                Some(e.clone()),
                u.meta,
            );
        }
    }

    /// Puts a batch back for another try, in creation order.
    pub fn requeue(&mut self, mut b: Batch, at: Instant) {
        b.retry_at = Some(at);
        let pq = self.parts.entry(b.tp.clone()).or_default();
        let pos = pq
            .ready
            .iter()
            .position(|x| x.seq_no > b.seq_no)
            .unwrap_or(pq.ready.len());
        pq.ready.insert(pos, b);
    }

    /// Idempotence: numbers the partition's unnumbered batches in order and
    /// restamps numbered ones after an epoch bump (`reset`).
    pub fn renumber_all(&mut self, pid: i64, epoch: i16) {
        for pq in self.parts.values_mut() {
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
