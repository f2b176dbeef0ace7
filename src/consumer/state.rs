//! The consumer's shared state: one entry per assigned partition, the
//! fetched data queued behind it, and the cursor `poll` reads from.
//!
//! Fetch threads append whole partition responses ([`Chunk`]s) without
//! decoding them; `poll` decodes one record batch at a time, on the caller's
//! thread, straight from the fetched buffer (keys, values and headers borrow
//! it), and drops control records and, under `read_committed`, the records
//! of aborted transactions.

use crate::sync::MutexExt;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::group_events::GroupEvent;
use super::session::Tp;
use crate::error::{local, Error};
use crate::message::{offset, Message};
use crate::record::{BatchRecords, ControlRecord, ControlRecordType, DecodeOptions, RecordBatch};
use crate::wire::{Bytes, Uuid};

/// What `auto.offset.reset` says to do without a valid offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reset {
    Earliest,
    Latest,
    Error,
}

impl Reset {
    /// The logical offset to resolve, or `None` for "error".
    pub fn logical(self) -> Option<i64> {
        match self {
            Reset::Earliest => Some(offset::BEGINNING),
            Reset::Latest => Some(offset::END),
            Reset::Error => None,
        }
    }
}

/// The consumer's settings, read once from the configuration.
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    pub max_wait_ms: i32,
    pub min_bytes: i32,
    pub max_bytes: i32,
    pub partition_max_bytes: i32,
    pub read_committed: bool,
    pub reset: Reset,
    pub partition_eof: bool,
    pub decode: DecodeOptions,
    pub socket_timeout: Duration,
    /// `queued.max.messages.kbytes` in bytes.
    pub max_buffered: usize,
    /// `queued.min.messages`.
    pub queued_min: i64,
    pub error_backoff: Duration,
    /// `client.rack`, sent with fetches (KIP-392).
    pub rack: String,
    pub group_id: Option<String>,
    /// How often leaders of assigned partitions are checked.
    pub refresh_interval: Duration,
    /// The largest a partition's fetch size grows to for one oversized batch.
    pub max_partition_fetch: i32,
    /// `enable.auto.offset.store` (with a group id).
    pub auto_store: bool,
}

/// Where a partition's fetching stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    /// A logical offset (`offset::BEGINNING`, `END`, `STORED`, `INVALID`,
    /// a tail) waits to be resolved.
    Resolve(i64),
    /// The position waits for OffsetForLeaderEpoch after a leader change.
    Validate,
    /// Fetching at `fetch_pos`.
    Active,
    /// Stopped by an error (auto.offset.reset=error) until the next seek.
    Stopped,
}

/// One queued item of a partition.
pub(crate) enum Item {
    /// Records of one fetch response, decoded when polled.
    Records(Chunk),
    /// An error or event, in order with the records.
    Event(Message),
}

/// A record batch made ready by the fetch thread (decompressed, its
/// header checked, transactions filtered), or what went wrong with it.
pub(crate) enum Prepared {
    Records(BatchRecords),
    /// A compressed batch (or a message set), decoded when polled: the
    /// polling thread decompresses one batch at a time into memory that is
    /// still in its cache, instead of the fetch thread holding a whole
    /// response decompressed.
    Entry(Bytes),
    Error(Error),
}

/// One partition's records from one fetch response.
pub(crate) struct Chunk {
    /// The partition's version when fetched.
    pub version: u64,
    /// Records below this offset (the fetch offset) are skipped.
    pub start: i64,
    /// The fetch position after these records.
    pub end: i64,
    /// Batches still to hand out.
    pub batches: VecDeque<Prepared>,
    /// The records of the batch being handed out, decoded one by one.
    pub batch: BatchRecords,
    /// Bytes counted against `queued.max.messages.kbytes`.
    pub bytes: usize,
    /// The offset after the last record handed out, or -1.
    pub returned: i64,
    /// Statistics: messages handed out from this chunk and their bytes
    /// (key + value), folded into the partition's counts when it is done.
    pub msgs: u64,
    pub msg_bytes: u64,
}

/// One assigned partition.
pub(crate) struct Part {
    pub topic: Arc<str>,
    pub partition: i32,
    /// Bumped by every seek/assignment: older data is dropped.
    pub version: u64,
    pub phase: Phase,
    /// Next offset to fetch (meaningful when `Active`/`Validate`).
    pub fetch_pos: i64,
    /// Leader epoch of the last fetched batch, or -1.
    pub fetch_epoch: i32,
    /// After the last message handed out (or the start offset), or `offset::INVALID`.
    pub app_pos: i64,
    /// Leader broker id, -1 to be looked up.
    pub leader: i32,
    /// The replica the leader named to fetch from instead (KIP-392), -1 for
    /// the leader itself; only meaningful while `leader` is known.
    pub replica: i32,
    /// When the leader last named a replica.
    pub replica_at: Option<Instant>,
    /// The leader epoch from metadata, -1 if unknown.
    pub leader_epoch: i32,
    /// The topic ID from metadata (zero if the broker has none).
    pub topic_id: Uuid,
    pub paused: bool,
    /// No fetch/lookup before this.
    pub retry_at: Option<Instant>,
    /// Watermarks of the last fetch: log start, high watermark, last stable offset.
    pub lo: i64,
    pub hi: i64,
    pub lso: i64,
    /// End-of-partition already reported at the current end.
    pub eof_sent: bool,
    /// The last error reported for this partition (not repeated until it changes).
    pub last_error: Option<i32>,
    /// Current `max.partition.fetch.bytes` (grows for an oversized batch).
    pub max_bytes: i32,
    pub queue: VecDeque<Item>,
    /// Listed in `State::ready`.
    pub in_ready: bool,
    /// Statistics: messages handed to the application, and their bytes
    /// (not counting the chunk being read).
    pub rxmsgs: u64,
    pub rxmsg_bytes: u64,
    /// The offset to commit next (after the last message returned by
    /// poll, with `enable.auto.offset.store`, or set by `store_offsets`),
    /// -1 if none; its leader epoch and metadata.
    pub stored: i64,
    pub stored_epoch: i32,
    pub stored_meta: Option<String>,
    /// The last offset this consumer committed for the partition, -1 if none,
    /// and the leader epoch committed with it (-1 if none).
    pub committed: i64,
    pub committed_epoch: i32,
    /// When the partition was assigned (statistics: its topic's `age`).
    pub created: Instant,
}

impl Part {
    pub fn new(topic: Arc<str>, partition: i32, version: u64, max_bytes: i32) -> Self {
        Part {
            topic,
            partition,
            version,
            phase: Phase::Resolve(offset::INVALID),
            fetch_pos: -1,
            fetch_epoch: -1,
            app_pos: offset::INVALID,
            leader: -1,
            replica: -1,
            replica_at: None,
            leader_epoch: -1,
            topic_id: Uuid::ZERO,
            paused: false,
            retry_at: None,
            lo: offset::INVALID,
            hi: offset::INVALID,
            lso: offset::INVALID,
            eof_sent: false,
            last_error: None,
            max_bytes,
            queue: VecDeque::new(),
            in_ready: false,
            rxmsgs: 0,
            rxmsg_bytes: 0,
            stored: -1,
            stored_epoch: -1,
            stored_meta: None,
            committed: -1,
            committed_epoch: -1,
            created: Instant::now(),
        }
    }

    /// Sets the start position: absolute offsets fetch at once, logical ones
    /// are resolved first.
    pub fn start_at(&mut self, at: i64, epoch: Option<i32>) {
        self.eof_sent = false;
        self.last_error = None;
        self.retry_at = None;
        self.fetch_epoch = epoch.unwrap_or(-1);
        if at >= 0 {
            self.fetch_pos = at;
            self.app_pos = at;
            self.phase = if self.fetch_epoch >= 0 {
                Phase::Validate
            } else {
                Phase::Active
            };
        } else {
            self.fetch_pos = -1;
            self.app_pos = offset::INVALID;
            self.phase = Phase::Resolve(at);
        }
    }

    /// The broker to fetch from: the preferred read replica the leader
    /// named (KIP-392), else the leader; -1 while the leader is unknown.
    pub fn source(&self) -> i32 {
        if self.leader >= 0 && self.replica >= 0 {
            self.replica
        } else {
            self.leader
        }
    }

    /// Whether the fetch thread of broker `id` may fetch this partition now.
    pub fn fetchable(&self, id: i32, now: Instant, queued_min: i64) -> bool {
        self.source() == id
            && self.phase == Phase::Active
            && !self.paused
            && self.retry_at.is_none_or(|t| t <= now)
            && !self.holds_enough(queued_min)
    }

    /// `queued.min.messages`: the partition's queue already holds that many
    /// offsets (fetched, not yet handed out), so it is not fetched again
    /// until the application consumes (librdkafka's per-partition minimum).
    fn holds_enough(&self, queued_min: i64) -> bool {
        !self.queue.is_empty() && self.app_pos >= 0 && self.fetch_pos - self.app_pos >= queued_min
    }

    /// Reports `e` unless the same code was the last one reported.
    pub fn report(&mut self, e: Error) -> Option<Message> {
        let code = e.code();
        if self.last_error == Some(code) {
            return None;
        }
        self.last_error = Some(code);
        Some(Message::event(
            self.topic.clone(),
            self.partition,
            self.fetch_pos,
            e,
        ))
    }
}

/// Everything the consumer's threads share.
pub(crate) struct State {
    pub parts: HashMap<Tp, Part>,
    /// Partitions with queued items, in the order their data arrived.
    pub ready: VecDeque<Tp>,
    /// The chunk `poll` is reading, with its partition.
    pub current: Option<(Tp, Chunk)>,
    /// Consumer-wide errors (not tied to one partition).
    pub events: VecDeque<Message>,
    /// Bytes of queued chunks.
    pub buffered: usize,
    /// Source of partition versions.
    pub next_version: u64,
    /// Brokers that have a fetch thread.
    pub fetchers: Vec<i32>,
    /// Brokers a fetch thread asks the control thread to start a fetch
    /// thread for (a preferred read replica, KIP-392).
    pub want_fetchers: Vec<i32>,
    /// Pollers waiting for data.
    pub waiting: usize,
    /// Consumer threads still running.
    pub running: usize,
    pub closed: bool,
    /// Statistics: messages handed to the application, and their bytes.
    pub rxmsgs: u64,
    pub rxmsg_bytes: u64,
    /// Rebalance and commit results waiting to be served by `poll`.
    pub group_events: VecDeque<GroupEvent>,
    /// `enable.auto.offset.store` with a group: offsets of returned
    /// messages are stored for commit.
    pub auto_store: bool,
    /// `Consumer::yield_now` was called: the next `poll` that would wait
    /// returns at once instead.
    pub yielded: bool,
}

/// Marks a consumer thread's end (held by the thread, dropped as it ends).
pub(crate) struct Running(pub Arc<Shared>);

impl Drop for Running {
    fn drop(&mut self) {
        let mut st = self.0.lock();
        st.running = st.running.saturating_sub(1);
        self.0.data.notify_all();
    }
}

/// The state and the condition variables around it.
pub(crate) struct Shared {
    pub state: Mutex<State>,
    /// Signalled when data or events are queued.
    pub data: Condvar,
    /// Signalled when the control and fetch threads may have work.
    pub work: Condvar,
    pub settings: Settings,
    /// The application's event-loop trigger (see `crate::net::wakeup`):
    /// signalled under the state's lock whenever something is queued.
    pub wakeup: Arc<crate::net::wakeup::Wakeup>,
    /// The KIP-848 member's id and epoch while it has an epoch (> 0), which
    /// OffsetFetch v9+ carries (KIP-848); `None` for classic members and
    /// consumers without a group.
    pub member_epoch: Mutex<Option<(String, i32)>>,
}

impl Shared {
    pub fn new(settings: Settings) -> Self {
        Shared {
            state: Mutex::new(State {
                parts: HashMap::new(),
                ready: VecDeque::new(),
                current: None,
                events: VecDeque::new(),
                buffered: 0,
                next_version: 1,
                fetchers: Vec::new(),
                want_fetchers: Vec::new(),
                waiting: 0,
                running: 0,
                closed: false,
                rxmsgs: 0,
                rxmsg_bytes: 0,
                group_events: VecDeque::new(),
                auto_store: settings.auto_store,
                yielded: false,
            }),
            data: Condvar::new(),
            work: Condvar::new(),
            settings,
            wakeup: crate::net::wakeup::Wakeup::new(),
            member_epoch: Mutex::new(None),
        }
    }

    /// The KIP-848 member id and epoch for OffsetFetch, if any.
    pub fn member_epoch(&self) -> Option<(String, i32)> {
        self.member_epoch.locked().clone()
    }

    pub fn lock(&self) -> MutexGuard<'_, State> {
        self.state.locked()
    }

    /// Wakes pollers if any wait, and the event loop if something is
    /// queued for `poll`.
    pub fn wake_pollers(&self, st: &State) {
        if st.waiting > 0 {
            self.data.notify_all();
        }
        if st.maybe_more() {
            self.wakeup.signal();
        }
    }

    /// Something was queued under `st` (a group event): signals the event
    /// loop under the lock, releases it and wakes the pollers.
    pub fn queued(&self, st: MutexGuard<'_, State>) {
        self.wakeup.signal();
        drop(st);
        self.data.notify_all();
    }
}

impl State {
    /// True if `poll` may find something now: a message left in the batch
    /// being read, a queued chunk or event of a partition not paused, a
    /// consumer-wide event, a group event. (A chunk whose records all lie
    /// before the fetch position or in aborted transactions yields
    /// nothing; that is the only way this says yes in vain.)
    pub fn maybe_more(&self) -> bool {
        if !self.events.is_empty() || !self.group_events.is_empty() {
            return true;
        }
        if let Some((_, c)) = &self.current {
            if c.batch.size_hint().1 != Some(0) || !c.batches.is_empty() {
                return true;
            }
        }
        self.ready.iter().any(|k| {
            self.parts
                .get(k)
                .is_some_and(|p| !p.paused && !p.queue.is_empty())
        })
    }

    pub fn version(&mut self) -> u64 {
        self.next_version += 1;
        self.next_version
    }

    /// Queues an item for a partition and lists it as ready.
    pub fn push(&mut self, key: &Tp, item: Item) {
        let Some(p) = self.parts.get_mut(key) else {
            return;
        };
        if let Item::Records(c) = &item {
            self.buffered += c.bytes;
        }
        p.queue.push_back(item);
        if !p.in_ready && !p.paused {
            p.in_ready = true;
            self.ready.push_back(key.clone());
        }
    }

    /// Drops a partition's queued data (and the cursor, if on it). Returns
    /// true if the buffer went from full to not full.
    pub fn purge(&mut self, key: &Tp, max_buffered: usize) -> bool {
        let before = self.buffered;
        self.fold_stored();
        if self.current.as_ref().is_some_and(|(k, _)| k == key) {
            if let Some((_, c)) = self.current.take() {
                self.buffered -= c.bytes;
                if let Some(p) = self.parts.get_mut(key) {
                    p.rxmsgs += c.msgs;
                    p.rxmsg_bytes += c.msg_bytes;
                }
            }
        }
        if let Some(p) = self.parts.get_mut(key) {
            for item in p.queue.drain(..) {
                if let Item::Records(c) = item {
                    self.buffered -= c.bytes;
                }
            }
        }
        before >= max_buffered && self.buffered < max_buffered
    }

    /// Puts the cursor's chunk back at the front of its partition's queue
    /// (on pause), keeping what is decoded.
    pub fn park_current(&mut self) {
        if let Some((key, mut c)) = self.current.take() {
            if let Some(p) = self.parts.get_mut(&key) {
                p.rxmsgs += std::mem::take(&mut c.msgs);
                p.rxmsg_bytes += std::mem::take(&mut c.msg_bytes);
                p.queue.push_front(Item::Records(c));
            } else {
                self.buffered -= c.bytes;
            }
        }
    }
}

/// What one step of reading found.
pub(crate) enum Next {
    Message(Message),
    /// Nothing queued.
    Empty,
}

impl State {
    /// The next queued message or event, its record decoded (and its batch
    /// decompressed) here. `freed` is set
    /// when the buffer went from full to not full.
    pub fn next(
        &mut self,
        _max_buffered: usize,
        options: &DecodeOptions,
        freed: &mut bool,
    ) -> Next {
        loop {
            if let Some((key, c)) = &mut self.current {
                if let Some(r) = c.batch.next() {
                    let r = match r {
                        Ok(r) if r.offset >= c.start => r,
                        // before the fetch offset (in a compressed batch)
                        Ok(_) => continue,
                        Err(e) => {
                            return Next::Message(Message::event(
                                key.0.clone(),
                                key.1,
                                c.returned.max(c.start),
                                Error::local(
                                    local::BAD_MSG,
                                    format!("{} [{}]: malformed record: {e}", key.0, key.1),
                                ),
                            ))
                        }
                    };
                    c.returned = r.offset + 1;
                    let size = (r.key.as_ref().map_or(0, |k| k.len())
                        + r.value.as_ref().map_or(0, |v| v.len()))
                        as u64;
                    c.msgs += 1;
                    c.msg_bytes += size;
                    self.rxmsgs += 1;
                    self.rxmsg_bytes += size;
                    return Next::Message(Message {
                        topic: key.0.clone(),
                        partition: key.1,
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
                match c.batches.pop_front() {
                    Some(Prepared::Records(b)) => {
                        c.batch = b;
                        continue;
                    }
                    Some(Prepared::Entry(b)) => {
                        match RecordBatch::decode_lazy(&b, options) {
                            Ok((_, recs, _)) => c.batch = recs,
                            Err(e) => {
                                let at = c.returned.max(c.start);
                                let e = Error::local(local::BAD_MSG, e.to_string());
                                return Next::Message(Message::event(key.0.clone(), key.1, at, e));
                            }
                        }
                        continue;
                    }
                    Some(Prepared::Error(e)) => {
                        let at = c.returned.max(c.start);
                        return Next::Message(Message::event(key.0.clone(), key.1, at, e));
                    }
                    None => {}
                }
                // the chunk is done: the position passes what it skipped too
                let (key, c) = self.current.take().expect("current is set");
                self.buffered -= c.bytes;
                // a chunk done frees room (bytes, and queued.min.messages'
                // count): the fetchers look again
                *freed = true;
                if let Some(p) = self.parts.get_mut(&key) {
                    p.rxmsgs += c.msgs;
                    p.rxmsg_bytes += c.msg_bytes;
                    if p.version == c.version {
                        p.app_pos = p.app_pos.max(c.end);
                        if self.auto_store && c.returned >= 0 {
                            p.stored = c.returned;
                            p.stored_epoch = -1;
                            p.stored_meta = None;
                        }
                    }
                }
                continue;
            }
            if let Some(m) = self.events.pop_front() {
                return Next::Message(m);
            }
            let Some(key) = self.ready.pop_front() else {
                return Next::Empty;
            };
            let Some(p) = self.parts.get_mut(&key) else {
                continue;
            };
            p.in_ready = false;
            if p.paused {
                continue;
            }
            let Some(item) = p.queue.pop_front() else {
                continue;
            };
            if !p.queue.is_empty() {
                p.in_ready = true;
                self.ready.push_back(key.clone());
            }
            match item {
                Item::Event(m) => return Next::Message(m),
                Item::Records(c) => {
                    if c.version != p.version {
                        self.buffered -= c.bytes;
                        continue;
                    }
                    self.current = Some((key, c));
                }
            }
        }
    }

    /// The app position of a partition, counting the cursor's progress.
    pub fn app_pos(&self, key: &Tp) -> Option<i64> {
        let p = self.parts.get(key)?;
        Some(match &self.current {
            Some((k, c)) if k == key && c.version == p.version => c.app_pos(p.app_pos),
            _ => p.app_pos,
        })
    }

    /// Folds the offsets the cursor's chunk returned into its partition's
    /// stored offset (with `enable.auto.offset.store`).
    pub fn fold_stored(&mut self) {
        if !self.auto_store {
            return;
        }
        if let Some((key, c)) = &self.current {
            if let Some(p) = self.parts.get_mut(key) {
                if c.version == p.version && c.returned >= 0 && c.returned != p.stored {
                    p.stored = c.returned;
                    p.stored_epoch = -1;
                    p.stored_meta = None;
                }
            }
        }
    }

    /// Folds the cursor's progress into its partition (before a seek or pause).
    pub fn sync_current(&mut self) {
        self.fold_stored();
        if let Some((key, c)) = &self.current {
            if let Some(p) = self.parts.get_mut(key) {
                if c.version == p.version {
                    p.app_pos = c.app_pos(p.app_pos);
                }
            }
        }
    }
}

impl Chunk {
    /// The position after the last record handed out from this chunk.
    fn app_pos(&self, before: i64) -> i64 {
        if self.batches.is_empty() && self.batch.size_hint().1 == Some(0) {
            before.max(self.end)
        } else {
            before.max(self.returned)
        }
    }
}

/// Makes the complete entries of `records` ready for `poll`: drops
/// batches wholly below `start`, control batches and, under
/// read_committed, the batches of aborted transactions (`aborted`: producer
/// id and first offset, in first-offset order), as Java's fetcher does.
/// Uncompressed batches are decoded up to their records; compressed ones
/// and message sets are left whole, judged by their headers alone. An entry
/// that cannot be decoded becomes an error in its place.
pub(crate) fn prepare(
    records: &Bytes,
    start: i64,
    mut aborted: VecDeque<(i64, i64)>,
    read_committed: bool,
    options: &DecodeOptions,
) -> VecDeque<Prepared> {
    let be32 = |b: &[u8]| i32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    let be64 = |b: &[u8]| i64::from_be_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
    let mut out = VecDeque::new();
    let mut aborting: Vec<i64> = Vec::new();
    let mut pos = 0;
    while pos < records.len() {
        let rest = &records[pos..];
        // complete entries were framed before: the header is there
        let n = entry_len(rest).unwrap_or(rest.len()).min(rest.len());
        let entry = records.slice(pos..pos + n);
        pos += n;
        let e: &[u8] = &entry;
        if n < 61 || e[16] as i8 != 2 {
            out.push_back(Prepared::Entry(entry)); // a message set
            continue;
        }
        let attributes = i16::from_be_bytes([e[21], e[22]]);
        let last = be64(e).saturating_add(i64::from(be32(&e[23..])));
        let producer = be64(&e[43..]);
        let control = attributes & 0x20 != 0;
        let transactional = attributes & 0x10 != 0;
        let compressed = attributes & 0x07 != 0;
        let (batch, recs) = if compressed && !control {
            (None, None)
        } else {
            match RecordBatch::decode_lazy(&entry, options) {
                Ok((b, r, _)) => (Some(b), Some(r)),
                Err(err) => {
                    out.push_back(Prepared::Error(Error::local(
                        local::BAD_MSG,
                        err.to_string(),
                    )));
                    continue;
                }
            }
        };
        if read_committed && producer >= 0 {
            // transactions that begin at or before this batch's end are open;
            // an abort marker closes its producer's
            while let Some(&(pid, first)) = aborted.front() {
                if first > last {
                    break;
                }
                aborting.push(pid);
                aborted.pop_front();
            }
            if control {
                let marker = recs
                    .and_then(|mut r| r.next())
                    .and_then(Result::ok)
                    .and_then(|r| ControlRecord::from_record(&r).ok());
                if marker.is_some_and(|c| c.kind == ControlRecordType::Abort) {
                    aborting.retain(|p| *p != producer);
                }
                continue;
            }
            if transactional && aborting.contains(&producer) {
                continue;
            }
        }
        if control || last < start {
            continue;
        }
        out.push_back(match (batch, recs) {
            (Some(_), Some(r)) => Prepared::Records(r),
            _ => Prepared::Entry(entry),
        });
    }
    out
}

/// The total length of the entry at the start of `b`, if its header is there.
pub(crate) fn entry_len(b: &[u8]) -> Option<usize> {
    let len = i32::from_be_bytes(b.get(8..12)?.try_into().ok()?);
    usize::try_from(len).ok().map(|l| l + 12)
}

impl State {
    /// Acts on where the leader's log ends for the epoch of our position
    /// (from OffsetForLeaderEpoch, or a Fetch's diverging epoch), as
    /// librdkafka does: no such epoch resets by `auto.offset.reset`; an end
    /// below our position is a truncation, and fetching goes on from there
    /// (or stops with `_AUTO_OFFSET_RESET` when the policy is "error").
    /// Returns an event to queue for the partition, if any.
    pub fn truncated(
        &mut self,
        key: &Tp,
        end_epoch: i32,
        end_offset: i64,
        reset: Reset,
        how: &str,
    ) -> Option<Message> {
        let version = self.version();
        let p = self.parts.get(key)?;
        let at = p.fetch_pos;
        let lost = end_offset < 0 || end_epoch < 0;
        if !lost && end_offset >= at {
            let p = self.parts.get_mut(key)?;
            p.phase = Phase::Active;
            return None;
        }
        let reason = if lost {
            format!(
                "{} [{}]: no leader epoch at or below {} known to the leader ({how})",
                key.0, key.1, p.fetch_epoch
            )
        } else {
            format!(
                "{} [{}]: partition log truncation detected at offset {at} (epoch {}): the leader's log ends at {end_offset} for epoch {end_epoch} ({how})",
                key.0, key.1, p.fetch_epoch
            )
        };
        if reset == Reset::Error {
            let p = self.parts.get_mut(key)?;
            p.phase = Phase::Stopped;
            return Some(Message::event(
                key.0.clone(),
                key.1,
                at,
                Error::local(local::AUTO_OFFSET_RESET, reason),
            ));
        }
        self.sync_current();
        self.purge(key, usize::MAX);
        let p = self.parts.get_mut(key)?;
        p.version = version;
        p.eof_sent = false;
        if lost {
            p.phase = Phase::Resolve(reset.logical().unwrap_or(offset::END));
            p.fetch_epoch = -1;
        } else {
            // refetch from where the application is, if that is earlier
            let from = if p.app_pos >= 0 {
                p.app_pos.min(end_offset)
            } else {
                end_offset
            };
            p.fetch_pos = from;
            p.app_pos = from;
            p.fetch_epoch = end_epoch;
            p.phase = Phase::Active;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compression::Codec;
    use crate::record::RecordBatchBuilder;

    fn batch(base: i64, values: &[&str], pid: i64, txn: bool, codec: Codec) -> Vec<u8> {
        let mut b = RecordBatchBuilder::new()
            .base_offset(base)
            .producer(pid, 0, 0)
            .transactional(txn);
        for v in values {
            b.append(1, None, Some(v.as_bytes()), &[]).unwrap();
        }
        b.finish(codec, None).unwrap()
    }

    fn marker(at: i64, pid: i64, kind: ControlRecordType) -> Vec<u8> {
        let key = ControlRecord { version: 0, kind }.encode_key();
        let mut b = RecordBatchBuilder::new()
            .base_offset(at)
            .producer(pid, 0, 0)
            .transactional(true)
            .control(true);
        b.append(1, Some(&key), Some(&[0, 0, 0, 0, 0, 0]), &[])
            .unwrap();
        b.finish(Codec::None, None).unwrap()
    }

    fn values(ready: VecDeque<Prepared>) -> Vec<String> {
        let mut out = Vec::new();
        for p in ready {
            let recs = match p {
                Prepared::Records(r) => r,
                Prepared::Entry(b) => {
                    RecordBatch::decode_lazy(&b, &DecodeOptions::default())
                        .unwrap()
                        .1
                }
                Prepared::Error(e) => panic!("{e}"),
            };
            for r in recs {
                let r = r.unwrap();
                out.push(format!(
                    "{}:{}",
                    r.offset,
                    String::from_utf8_lossy(r.value.as_deref().unwrap())
                ));
            }
        }
        out
    }

    #[test]
    fn aborted_transactions_are_followed_in_order_even_below_the_start() {
        // pid 5 aborts 0-1 (marker 2), then commits 3-4 (marker 5); pid 6's
        // compressed batch 6-7 is aborted (marker 8)
        let mut all = batch(0, &["a0", "a1"], 5, true, Codec::None);
        all.extend(marker(2, 5, ControlRecordType::Abort));
        all.extend(batch(3, &["c3", "c4"], 5, true, Codec::None));
        all.extend(marker(5, 5, ControlRecordType::Commit));
        all.extend(batch(6, &["x6", "x7"], 6, true, Codec::Lz4));
        all.extend(marker(8, 6, ControlRecordType::Abort));
        let all = Bytes::from(all);
        let aborted: VecDeque<(i64, i64)> = [(5, 0), (6, 6)].into();
        let o = DecodeOptions::default();
        assert_eq!(
            values(prepare(&all, 0, aborted.clone(), true, &o)),
            ["3:c3", "4:c4"]
        );
        // fetched from 3: the aborted transaction below the start is still
        // closed by its marker, so pid 5's next one is not taken for aborted
        let from3 = values(prepare(&all, 3, aborted.clone(), true, &o));
        assert_eq!(from3, ["3:c3", "4:c4"]);
        // read_uncommitted: everything but the markers
        assert_eq!(
            values(prepare(&all, 0, VecDeque::new(), false, &o)),
            ["0:a0", "1:a1", "3:c3", "4:c4", "6:x6", "7:x7"]
        );
    }
}
