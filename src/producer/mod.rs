//! The producer: an accumulator of per-partition record batches filled by
//! [`Producer::send`] on the application's threads, and one sender thread
//! that ships ready batches (full, `linger.ms` expired, or flushed) to each
//! partition leader's produce connection, pipelined, and handles the
//! answers: offsets into delivery reports, retriable errors into retries
//! (refreshing metadata on leader changes), the rest into failed reports.
//!
//! Delivery reports reach the application on its own thread, inside
//! [`Producer::poll`] and [`Producer::flush`] (a callback set with
//! [`Producer::set_delivery_callback`]), or through [`Producer::send_sync`],
//! which waits for one message's report.
//!
//! With `enable.idempotence` the producer gets a producer id (InitProducerId)
//! and numbers each partition's batches, keeps at most 5 in flight per
//! partition, resends failed batches in sequence order with the same numbers,
//! and bumps its epoch (KIP-360) when a sequence gap cannot be repaired. With
//! `transactional.id` it runs Kafka transactions (KIP-98): see [`txn`].
//!
//! The rooms, bottom up: settings.rs (the settings), report.rs (delivery
//! reports), accumulator.rs (the per-partition queues and the bookkeeping
//! that turns answers into reports; it is handed the settings and the
//! cluster it needs), txn_state.rs (where a transaction is), shared.rs
//! (the state the threads share, holding the accumulator and the
//! transaction's state), txn.rs (the transaction state machine, on the
//! shared state) and sender.rs (the sender thread). This file is the
//! [`Producer`]: its calls, the transactional ones a few lines over txn.rs.

mod accumulator;
pub mod partitioner;
mod report;
mod sender;
mod settings;
mod shared;
mod topic_map;
pub mod txn;
mod txn_state;

use crate::sync::MutexExt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::cluster::Cluster;
use crate::config::{ClientKind, Config};
use crate::error::{local, Error, Result};
pub use crate::message::{ConsumerGroupMetadata, MessageStatus};
use crate::message::{Delivery, ProducerRecord};
use crate::stats::{Emitter, Eos, PartStats, StatsCallback, TopicStats, Totals};
pub use partitioner::Partitioner;
use txn_state::Phase;

use accumulator::{Done, SyncSlot};
pub use report::{DeliveryCallback, DeliveryReport};
use settings::Settings;
use shared::Shared;
use txn::TxnErrorFlags;

/// Flags of [`Producer::purge`], librdkafka's `RD_KAFKA_PURGE_F_*` with
/// their values.
pub mod purge {
    /// Purge the messages in the producer's queues (not sent yet): their
    /// reports carry `_PURGE_QUEUE`.
    ///
    /// cbindgen:ignore
    pub const QUEUE: i32 = 0x1;
    /// Purge the messages whose produce requests are in flight: their
    /// reports carry `_PURGE_INFLIGHT`, and the broker's answer, when it
    /// comes, is ignored (so whether they were written is unknown: a
    /// retry may duplicate them).
    ///
    /// cbindgen:ignore
    pub const INFLIGHT: i32 = 0x2;
    /// Do not wait for the sender thread to let go of the batches it is
    /// encoding at that moment (they are purged by the sender itself,
    /// moments later).
    ///
    /// cbindgen:ignore
    pub const NON_BLOCKING: i32 = 0x4;
    /// Every flag.
    ///
    /// cbindgen:ignore
    pub const MASK: i32 = QUEUE | INFLIGHT | NON_BLOCKING;
}

/// How long [`Producer::send_blocking`] and [`Producer::send_sync`] wait
/// for queue space.
#[derive(Clone, Copy)]
enum Wait {
    /// This long from the moment the queue is found full.
    For(Duration),
    Until(Instant),
}

/// A Kafka producer. Thread-safe: share it by reference or `Arc`.
pub struct Producer {
    shared: Arc<Shared>,
    /// The sender thread, and what it sends when it ends.
    sender: Mutex<Option<(JoinHandle<()>, std::sync::mpsc::Receiver<()>)>>,
    /// `statistics.interval.ms` and the statistics callback.
    stats: Emitter,
    /// The thread [`Producer::start_background`] started.
    background: Mutex<Option<JoinHandle<()>>>,
}

/// One answer of [`Producer::offsets_for_times`]: the offset found and
/// its leader epoch if known, or the entry's error.
pub use crate::cluster::offsets::OffsetForTime;

impl Producer {
    /// A producer for `cfg`. Starts the sender thread; connects lazily.
    ///
    /// # Errors
    /// On a bad configuration (a malformed `bootstrap.servers`,
    /// idempotence with more than 5 in flight or acks other than all).
    pub fn new(cfg: &Config) -> Result<Producer> {
        let settings = Settings::from_config(cfg)?;
        let log = cfg.logger("producer");
        crate::log::debug!(
            log,
            crate::log::ctx::ALL,
            "INIT",
            "gregor v{} {} initializing (debug {:#x})",
            env!("CARGO_PKG_VERSION"),
            log.name(),
            crate::log::parse_debug(cfg.str("debug")).unwrap_or(0)
        );
        let cluster = Cluster::with_log(cfg, log)?;
        let shared = Arc::new(Shared::new(cluster, settings));
        // Client events (connection errors, throttling) wake poll and flush.
        let weak = Arc::downgrade(&shared);
        shared.cluster.events().set_waker(Some(Arc::new(move || {
            if let Some(sh) = weak.upgrade() {
                crate::net::client_events::notify_locked(&sh.acc, &sh.changed);
                sh.wakeup.signal();
            }
        })));
        let s2 = shared.clone();
        let (ended_tx, ended_rx) = std::sync::mpsc::channel();
        let handle = std::thread::Builder::new()
            .name("gregor producer".into())
            .spawn(move || {
                sender::run(&s2);
                let _ = ended_tx.send(());
            })
            .map_err(|e| {
                Error::local(local::FAIL, format!("cannot start the sender thread: {e}"))
            })?;
        crate::config::log_warnings(cfg, ClientKind::Producer, shared.cluster.log());
        Ok(Producer {
            shared,
            sender: Mutex::new(Some((handle, ended_rx))),
            stats: Emitter::new(cfg, "producer"),
            background: Mutex::new(None),
        })
    }

    /// `message.timeout.ms` as configured (a year for 0, "forever").
    pub fn message_timeout(&self) -> Duration {
        self.shared.settings.message_timeout
    }

    /// The private mock cluster `test.mock.num.brokers` started for this
    /// client, if any (librdkafka's `rd_kafka_handle_mock_cluster`).
    #[cfg(feature = "mock")]
    pub fn mock_cluster(&self) -> Option<&crate::mock::Cluster> {
        self.cluster().mock_cluster()
    }

    /// The client's SASL controls: credentials and OAUTHBEARER tokens at
    /// run time ([`crate::sasl`]).
    pub fn sasl(&self) -> crate::sasl::Sasl<'_> {
        crate::sasl::Sasl::new(self.cluster())
    }

    /// The producer's view of the cluster.
    #[cfg(feature = "internals")]
    #[doc(hidden)]
    pub fn cluster(&self) -> &Cluster {
        &self.shared.cluster
    }

    /// The producer's view of the cluster.
    #[cfg(not(feature = "internals"))]
    pub(crate) fn cluster(&self) -> &Cluster {
        &self.shared.cluster
    }

    /// The cluster's metadata, as librdkafka's `rd_kafka_metadata`: every
    /// topic with `None`, else the topics named; through a producer the
    /// request lets the broker create a named topic if it auto-creates
    /// topics (as a producer handle asks, which is what kcat's listing uses).
    /// The answer also refreshes the producer's metadata cache.
    ///
    /// # Errors
    /// `_ALL_BROKERS_DOWN` (with each broker's error) if no broker answered
    /// within `timeout`; `_SSL` / `_AUTHENTICATION` when all refused the
    /// connection the same way.
    pub fn metadata(
        &self,
        topics: Option<&[&str]>,
        timeout: Duration,
    ) -> Result<crate::cluster::Metadata> {
        self.cluster()
            .fetch_metadata(topics, topics.is_some(), timeout)
    }

    /// For each (topic, partition, timestamp in ms): the first offset whose
    /// timestamp is at or after it (-1 if none) and its leader epoch, from
    /// the partition's leader, as the consumer's `offsets_for_times`
    /// (librdkafka's `rd_kafka_offsets_for_times` answers on a producer
    /// handle too, as kcat's `-Q` asks). `read_committed`: below the last
    /// stable offset (librdkafka reads `isolation.level` of either handle's
    /// conf). A failed entry is its error.
    ///
    /// # Errors
    /// `_INVALID_ARG` for an entry without a topic or with a negative
    /// partition.
    pub fn offsets_for_times(
        &self,
        entries: &[(&str, i32, i64)],
        read_committed: bool,
        timeout: Duration,
    ) -> Result<Vec<OffsetForTime>> {
        crate::cluster::offsets::offsets_for_times(self.cluster(), read_committed, entries, timeout)
    }

    /// The low and high watermarks of a partition, asked of its leader
    /// (ListOffsets, earliest and latest), as librdkafka's
    /// `rd_kafka_query_watermark_offsets`, which takes a producer handle
    /// too. The high one is the high watermark (read_uncommitted: a
    /// producer has no `isolation.level`).
    ///
    /// # Errors
    /// Broker and network errors; `_TIMED_OUT` when the leader has not
    /// answered within `timeout`.
    pub fn watermarks(&self, topic: &str, partition: i32, timeout: Duration) -> Result<(i64, i64)> {
        crate::cluster::offsets::watermarks(
            self.cluster(),
            false,
            topic,
            partition,
            Instant::now() + timeout,
        )
    }

    /// Makes `topic` known before its first message, as librdkafka's
    /// `rd_kafka_topic_new` does: the sender asks for its metadata now (in
    /// the background; with auto-creation if `allow.auto.create.topics`
    /// allows, as a producer's requests do), so its partitions are known,
    /// or the broker has created it, by the time the application looks.
    pub fn add_topic(&self, topic: &str) {
        let sh = &self.shared;
        if sh.acc().add_topic(&sh.cluster, topic) {
            sh.wake.notify_all();
        }
    }

    /// Sets the callback that receives delivery reports inside [`Producer::poll`]
    /// and [`Producer::flush`] (on the calling thread). Without one, reports
    /// are dropped after counting.
    pub fn set_delivery_callback(&self, cb: Option<DeliveryCallback>) {
        // without a callback nobody reads a report's key and value: the
        // batches' buffers are freed as soon as their outcome is known
        self.shared.acc().keep_records = cb.is_some();
        *self.shared.dr_cb.locked() = cb;
    }

    /// Sets the callback that receives the producer's statistics as JSON
    /// (librdkafka's STATISTICS.md; see the README's "Statistics") every
    /// `statistics.interval.ms`, inside [`Producer::poll`] and
    /// [`Producer::flush`] on the calling thread. `None` removes it. Nothing
    /// is gathered while `statistics.interval.ms` is 0 or no callback is set.
    pub fn set_stats_callback(&self, cb: Option<StatsCallback>) {
        self.stats.set_callback(cb);
    }

    /// Sets the callback that receives client-level errors, as librdkafka's
    /// `error_cb`: connection failures (`_TRANSPORT`, `_RESOLVE`, `_SSL`,
    /// `_AUTHENTICATION`, …), `_ALL_BROKERS_DOWN` when every known broker
    /// is down, and `_FATAL` when the idempotent or transactional producer
    /// stops for good ([`Producer::fatal_error`] says why). It runs inside
    /// [`Producer::poll`] and [`Producer::flush`] on the calling thread;
    /// events wait in the producer from its creation until then, so none is
    /// missed by setting the callback after [`Producer::new`]. `None`
    /// removes it (events are then dropped when served).
    pub fn set_error_callback(&self, cb: Option<crate::net::ErrorCallback>) {
        self.shared.cluster.events().set_error_callback(cb);
    }

    /// Sets the callback that receives brokers' throttle reports (a response
    /// with `throttle_time_ms` > 0, KIP-219), as librdkafka's `throttle_cb`,
    /// inside [`Producer::poll`] and [`Producer::flush`]. `None` removes it.
    pub fn set_throttle_callback(&self, cb: Option<crate::net::ThrottleCallback>) {
        self.shared.cluster.events().set_throttle_callback(cb);
    }

    /// The error that stopped the idempotent or transactional producer for
    /// good (fenced, unauthorized, an unrecoverable sequence error), as
    /// librdkafka's `rd_kafka_fatal_error`; `None` while it is healthy.
    pub fn fatal_error(&self) -> Option<Error> {
        self.shared.acc().fatal.clone()
    }

    /// Serves the queued client events to their callbacks, on this thread.
    fn serve_events(&self) -> usize {
        self.shared.cluster.events().serve()
    }

    /// Delivers a statistics snapshot if one is due.
    fn emit_stats(&self) -> bool {
        self.stats
            .emit_if_due(&self.shared.cluster, || self.stats_snapshot())
    }

    /// An idempotent producer's `eos` figures, with librdkafka's state
    /// names (its idempotence and transaction state machines are finer;
    /// these are the states gregor's producer can be in). `txn`: the
    /// transaction's phase and since when, for a transactional producer.
    fn eos_stats(acc: &mut accumulator::Acc, txn: Option<(&Phase, Instant)>) -> Eos {
        acc.note_idemp_state();
        let (idemp_state, idemp_since) = acc.idemp_seen;
        let (txn_state, txn_may_enq) = match txn.map(|(p, _)| p) {
            None | Some(Phase::Uninit) => ("Init", false),
            Some(Phase::Ready) => ("Ready", false),
            Some(Phase::InTxn) => ("InTransaction", true),
            Some(Phase::Abortable(_)) => ("AbortableError", false),
        };
        // an idempotent producer's transaction state never leaves Init
        let txn_since = txn.map_or(acc.clock_base.0, |(_, t)| t);
        let (producer_id, producer_epoch) = acc.producer.unwrap_or((-1, -1));
        Eos {
            idemp_state,
            idemp_stateage: idemp_since.elapsed().as_millis() as u64,
            txn_state,
            txn_stateage: txn_since.elapsed().as_millis() as u64,
            txn_may_enq,
            producer_id,
            producer_epoch,
            epoch_cnt: acc.epoch_cnt,
        }
    }

    /// The producer's figures: queue depths and delivered counts from the
    /// accumulator, leaders from the metadata cache.
    fn stats_snapshot(&self) -> (Totals, TopicStats) {
        let s = &self.shared.settings;
        // the transaction's phase first: its lock is never taken under the
        // accumulator's
        let txn = s.transactional_id.as_ref().map(|_| {
            let t = self.shared.txn();
            (t.phase.clone(), t.phase_since)
        });
        let mut acc = self.shared.acc();
        let mut totals = Totals {
            replyq: acc.done_msgs as u64,
            msg_cnt: acc.queued_msgs as u64,
            msg_size: acc.queued_bytes as u64,
            msg_max: s.max_messages as u64,
            msg_size_max: s.max_bytes as u64,
            txmsgs: acc.txmsgs,
            txmsg_bytes: acc.txmsg_bytes,
            int_latency: std::mem::take(&mut acc.int_latency),
            ..Totals::default()
        };
        let mut topics = TopicStats::new();
        if s.idempotence {
            let txn = txn.as_ref().map(|(p, t)| (p, *t));
            totals.eos = Some(Self::eos_stats(&mut acc, txn));
        }
        for (name, tq) in acc.topics.iter_mut() {
            let windows = (tq.batch_size.take(), tq.batch_cnt.take());
            totals.topic_batches.insert(name.to_string(), windows);
            let age = tq.created.elapsed().as_millis() as u64;
            totals.topic_age_ms.insert(name.to_string(), age);
            let mut parts = Vec::with_capacity(tq.parts.len() + 1);
            if !tq.unassigned.is_empty() {
                // librdkafka's "UA" partition: messages waiting for metadata.
                let mut ua = PartStats::new(-1, -1);
                ua.msgq_cnt = tq.unassigned.len() as u64;
                parts.push(ua);
            }
            for (i, pq) in tq.parts.iter().enumerate() {
                let mut ps = PartStats::new(i as i32, -1);
                // the open batch is librdkafka's partition queue; batches
                // closed and waiting to be sent are its transmit queue
                if let Some(b) = &pq.open {
                    ps.msgq_cnt = b.msgs.len() as u64;
                    ps.msgq_bytes = b.total_size as u64;
                }
                for b in &pq.ready {
                    ps.xmit_msgq_cnt += b.msgs.len() as u64;
                    ps.xmit_msgq_bytes += b.total_size as u64;
                }
                ps.msgs = pq.msgs;
                ps.msgs_inflight = pq
                    .msgs
                    .saturating_sub(pq.done_msgs + ps.msgq_cnt + ps.xmit_msgq_cnt);
                ps.txmsgs = pq.txmsgs;
                ps.txbytes = pq.txmsg_bytes;
                parts.push(ps);
            }
            topics.insert(name.to_string(), parts);
        }
        drop(acc);
        for (name, parts) in topics.iter_mut() {
            for p in parts.iter_mut().filter(|p| p.partition >= 0) {
                p.leader = self
                    .shared
                    .cluster
                    .cached_leader(name, p.partition)
                    .unwrap_or(-1);
            }
        }
        (totals, topics)
    }

    /// Queues a message; returns at once. Its outcome comes as a delivery
    /// report carrying `opaque`.
    ///
    /// # Errors
    /// `_QUEUE_FULL` when `queue.buffering.max.messages` or `.kbytes` is
    /// reached; `_UNKNOWN_PARTITION` for a partition the topic does not have;
    /// `MESSAGE_TOO_LARGE` above `message.max.bytes`; a fatal error of the
    /// idempotent/transactional producer; `_STATE` outside a transaction when
    /// the producer is transactional.
    pub fn send(&self, rec: &ProducerRecord<'_>, opaque: usize) -> Result<()> {
        self.enqueue(rec, opaque, None, None)
    }

    /// As [`Producer::send`], but waits up to `timeout` for queue space
    /// instead of failing with `_QUEUE_FULL`. When what fills the queue is
    /// delivery reports not served yet, it serves them (runs the callback)
    /// on this thread.
    ///
    /// # Errors
    /// As [`Producer::send`]; `_QUEUE_FULL` if no space came in time.
    pub fn send_blocking(
        &self,
        rec: &ProducerRecord<'_>,
        opaque: usize,
        timeout: Duration,
    ) -> Result<()> {
        self.enqueue(rec, opaque, None, Some(Wait::For(timeout)))
    }

    /// Sends one message and waits for its delivery, for at most `timeout`
    /// (`None`: `message.timeout.ms`). Its report does not go to the callback.
    ///
    /// # Errors
    /// The message's delivery error; `_MSG_TIMED_OUT` if not delivered in time.
    pub fn send_sync(
        &self,
        rec: &ProducerRecord<'_>,
        timeout: Option<Duration>,
    ) -> Result<Delivery> {
        let timeout = timeout.unwrap_or(self.shared.settings.message_timeout);
        let deadline = Instant::now() + timeout;
        let slot = Arc::new(SyncSlot::default());
        self.enqueue(rec, 0, Some(slot.clone()), Some(Wait::Until(deadline)))?;
        // a lingering batch holding this message need not wait out linger.ms
        self.shared.acc().flush_requested_for_sync += 1;
        self.shared.wake.notify_all();
        let r = slot.wait(deadline);
        self.shared.acc().flush_requested_for_sync -= 1;
        let dr = r.ok_or_else(|| {
            Error::local(
                local::MSG_TIMED_OUT,
                format!("{}: not delivered within {timeout:?}", rec.topic),
            )
        })?;
        match dr.error {
            Some(e) => Err(e),
            None => Ok(Delivery {
                topic: dr.topic.to_string(),
                partition: dr.partition,
                offset: dr.offset,
                timestamp: dr.timestamp,
            }),
        }
    }

    fn enqueue(
        &self,
        rec: &ProducerRecord<'_>,
        opaque: usize,
        sync: Option<Arc<SyncSlot>>,
        mut wait: Option<Wait>,
    ) -> Result<()> {
        if self.shared.settings.transactional_id.is_some() {
            self.shared.txn().check_can_send(&self.shared.settings)?;
        }
        let mut acc = self.shared.acc();
        loop {
            match acc.append(
                &self.shared.settings,
                &self.shared.cluster,
                rec,
                opaque,
                sync.clone(),
            ) {
                Err(e) if e.code() == local::QUEUE_FULL => {
                    // the clock is read when the queue is full, not per message
                    let until = match wait {
                        None => return Err(e),
                        Some(Wait::Until(t)) => t,
                        Some(Wait::For(d)) => {
                            let t = Instant::now() + d;
                            wait = Some(Wait::Until(t));
                            t
                        }
                    };
                    if acc.held_msgs > 0 {
                        // the room is held by reports not served yet: serve
                        // them here, on the caller's thread (unless this is
                        // inside a delivery callback, or another thread serves)
                        if let Ok(cb) = self.shared.dr_cb.try_lock() {
                            let done = acc.take_done();
                            drop(acc);
                            self.serve_locked(cb, done);
                            acc = self.shared.acc();
                            continue;
                        }
                    }
                    let now = Instant::now();
                    if now >= until {
                        return Err(e);
                    }
                    acc = self
                        .shared
                        .changed
                        .wait_timeout(acc, until - now)
                        .map_or_else(|e| e.into_inner().0, |r| r.0);
                }
                Err(e) => return Err(e),
                Ok(wake) => {
                    drop(acc);
                    if wake {
                        self.shared.wake.notify_all();
                    }
                    return Ok(());
                }
            }
        }
    }

    /// Serves client events (see [`Producer::set_error_callback`]) and
    /// delivery reports to their callbacks, waiting up to `timeout` for the
    /// first. Returns how many were served.
    pub fn poll(&self, timeout: Duration) -> usize {
        // log.queue: queued log lines go to the callback here, on this thread
        let log = self.shared.cluster.log();
        log.serve();
        let n = self.poll_reports(timeout);
        log.serve();
        self.served();
        n
    }

    /// When a caller that waits until `deadline` for what [`Producer::poll`]
    /// serves should call it anyway, to emit the statistics due by then
    /// (`deadline` if none is): for an event loop that waits elsewhere and
    /// polls when the event trigger runs ([`Producer::set_event_trigger`],
    /// which statistics do not run).
    pub fn stats_wake_by(&self, deadline: Instant) -> Instant {
        self.stats.wake_by(deadline)
    }

    /// A `poll` or `flush` returned: consumes the outstanding event-loop
    /// trigger, and runs it again if reports or events still wait.
    fn served(&self) {
        if !self.shared.wakeup.enabled() {
            return;
        }
        let acc = self.shared.acc();
        let more = !acc.done.is_empty() || self.shared.cluster.events().pending();
        acc.wakeup.served(more);
    }

    /// Sets (or with `None` removes) the event-loop trigger: it runs when
    /// the producer's queue of delivery reports and client events goes from
    /// empty to non-empty, and again after a [`Producer::poll`] that left
    /// something queued (librdkafka's `rd_kafka_queue_cb_event_enable` on
    /// the main queue). It may run on a gregor thread holding internal
    /// locks: it must only signal (write an fd, wake a loop), never call the
    /// producer.
    pub fn set_event_trigger(&self, trigger: Option<crate::net::wakeup::Trigger>) {
        let acc = self.shared.acc();
        let pending = !acc.done.is_empty() || self.shared.cluster.events().pending();
        acc.wakeup.set(trigger, pending);
    }

    /// The io-event form of [`Producer::set_event_trigger`]
    /// (`rd_kafka_queue_io_event_enable`): writes `payload` to `out` (an
    /// eventfd, a pipe's write end, a socket; best non-blocking) at each
    /// trigger. Write errors (a full pipe: the reader has a wakeup pending
    /// anyway) are ignored.
    pub fn set_io_event<W: std::io::Write + Send + 'static>(&self, out: W, payload: Vec<u8>) {
        self.set_event_trigger(Some(crate::net::wakeup::writer_trigger(out, payload)));
    }

    /// Wakes a [`Producer::poll`] or [`Producer::flush`] blocked on another
    /// thread: it returns as if its timeout ran out (poll: 0, flush:
    /// `_TIMED_OUT`); nothing else changes. With no call waiting, the next
    /// one that would wait returns at once (as `rd_kafka_queue_yield`).
    pub fn yield_now(&self) {
        let mut acc = self.shared.acc();
        acc.yielded = true;
        self.shared.changed.notify_all();
        drop(acc);
    }

    fn poll_reports(&self, timeout: Duration) -> usize {
        // poll(0), once per message in a send loop, reads no clock
        let deadline = (!timeout.is_zero()).then(|| Instant::now() + timeout);
        // statistics handed to the callback count as a served event (as
        // librdkafka's rd_kafka_poll counts its stats op)
        let mut served = usize::from(self.emit_stats());
        let events = self.shared.cluster.events().clone();
        served += self.serve_events();
        loop {
            let mut acc = self.shared.acc();
            while acc.done.is_empty() {
                if served > 0 {
                    return served;
                }
                if events.pending() {
                    drop(acc);
                    served += self.serve_events();
                    acc = self.shared.acc();
                    continue;
                }
                let Some(deadline) = deadline else {
                    return 0;
                };
                let now = Instant::now();
                if now >= deadline || acc.closing {
                    return 0;
                }
                if acc.yielded {
                    acc.yielded = false;
                    return 0;
                }
                if self.stats.is_due() {
                    drop(acc);
                    served += usize::from(self.emit_stats());
                    acc = self.shared.acc();
                    continue;
                }
                let wake = self.stats.wake_by(deadline);
                acc = self
                    .shared
                    .changed
                    .wait_timeout(acc, wake.saturating_duration_since(now))
                    .map_or_else(|e| e.into_inner().0, |r| r.0);
                acc.poll_wakeups += 1;
            }
            let done = acc.take_done();
            drop(acc);
            // Outcomes of `send_sync` messages are no reports: keep waiting
            // for one until the deadline.
            let n = served + self.serve(done);
            if n > 0 || deadline.is_none_or(|d| Instant::now() >= d) {
                return n;
            }
        }
    }

    /// Turns outcomes into reports for the callback, on this thread.
    fn serve(&self, done: std::collections::VecDeque<accumulator::Done>) -> usize {
        let cb = self.shared.dr_cb.locked();
        self.serve_locked(cb, done)
    }

    /// [`Producer::serve`] with the callback's lock held.
    fn serve_locked(
        &self,
        cb: MutexGuard<'_, Option<DeliveryCallback>>,
        done: std::collections::VecDeque<accumulator::Done>,
    ) -> usize {
        serve_done(&self.shared, cb, done)
    }

    /// Serves delivery reports and client events on a gregor thread from
    /// now on, as they come, instead of inside [`Producer::poll`] (as
    /// librdkafka's background queue with `background_event_cb`): for
    /// applications with no thread to poll from. The callbacks then run on
    /// that thread, one at a time; `poll` and `flush` still work (each
    /// report is served once, by whichever takes it). The thread ends when
    /// the producer closes.
    ///
    /// # Errors
    /// `_STATE` if already started or closed; `_FAIL` if no thread starts.
    pub fn start_background(&self) -> Result<()> {
        let mut slot = self.background.locked();
        if slot.is_some() || self.shared.acc().closing {
            return Err(Error::local(
                local::STATE,
                "background serving is started already, or the producer is closed",
            ));
        }
        let sh = self.shared.clone();
        let h = std::thread::Builder::new()
            .name("gregor background".into())
            .spawn(move || background(&sh))
            .map_err(|e| {
                Error::local(
                    local::FAIL,
                    format!("cannot start the background thread: {e}"),
                )
            })?;
        *slot = Some(h);
        Ok(())
    }

    /// Sends everything queued now, and waits up to `timeout` until every
    /// message has its delivery report, serving reports as they come.
    ///
    /// # Errors
    /// `_TIMED_OUT` if messages are still outstanding at the timeout.
    pub fn flush(&self, timeout: Duration) -> Result<()> {
        let deadline = Instant::now() + timeout;
        let log = self.shared.cluster.log();
        log.serve();
        let mut acc = self.shared.acc();
        acc.flushing += 1;
        self.shared.wake.notify_all();
        let events = self.shared.cluster.events().clone();
        let result = loop {
            if events.pending() {
                drop(acc);
                self.serve_events();
                acc = self.shared.acc();
                continue;
            }
            if !acc.done.is_empty() {
                let done = acc.take_done();
                drop(acc);
                log.serve();
                self.serve(done);
                acc = self.shared.acc();
                continue;
            }
            // reports another thread (a polling thread) took and is still
            // serving are not done yet
            if acc.outstanding() == 0 && acc.serving_elsewhere() == 0 {
                break Ok(());
            }
            if acc.closing {
                break Err(Error::local(local::DESTROY, "producer closed"));
            }
            let now = Instant::now();
            if now >= deadline || acc.yielded {
                acc.yielded = false;
                break Err(Error::timed_out(format!(
                    "flush: {} message(s) still outstanding",
                    acc.outstanding()
                )));
            }
            if self.stats.is_due() {
                drop(acc);
                self.emit_stats();
                acc = self.shared.acc();
                continue;
            }
            let wake = self.stats.wake_by(deadline);
            acc = self
                .shared
                .changed
                .wait_timeout(acc, wake.saturating_duration_since(now))
                .map_or_else(|e| e.into_inner().0, |r| r.0);
        };
        acc.flushing -= 1;
        drop(acc);
        log.serve();
        self.served();
        result
    }

    /// Purges messages (librdkafka's `rd_kafka_purge`), as `flags` of
    /// [`purge`] say: [`purge::QUEUE`] those not sent yet (reports with
    /// `_PURGE_QUEUE`), [`purge::INFLIGHT`] those whose requests are in
    /// flight (reports with `_PURGE_INFLIGHT`; the broker's answer, when it
    /// comes, is ignored: they may or may not have been written). Serve the
    /// reports with [`Producer::poll`] or [`Producer::flush`]; then nothing
    /// is outstanding and the producer goes on as before. Without
    /// [`purge::NON_BLOCKING`] it waits for the sender thread to let go of
    /// a batch it is encoding at that moment (moments at most).
    ///
    /// # Errors
    /// `_INVALID_ARG` for an unknown flag.
    pub fn purge(&self, flags: i32) -> Result<()> {
        if flags & !purge::MASK != 0 {
            return Err(Error::invalid_arg(format!(
                "unknown purge flags {flags:#x}"
            )));
        }
        let mut acc = self.shared.acc();
        let mut in_flight = 0;
        if flags & purge::INFLIGHT != 0 {
            in_flight = acc.purge_in_flight(&self.shared.settings);
        }
        if flags & purge::QUEUE != 0 {
            acc.purge_queue();
            if flags & purge::NON_BLOCKING == 0 {
                // the sender notifies `changed` after an encoding while we wait
                acc.purge_waiting += 1;
                while acc.encoding > 0 && !acc.closing {
                    acc = self
                        .shared
                        .changed
                        .wait_timeout(acc, Duration::from_millis(10))
                        .map_or_else(|e| e.into_inner().0, |r| r.0);
                }
                acc.purge_waiting -= 1;
            }
        }
        drop(acc);
        if in_flight > 0 && self.shared.settings.transactional_id.is_some() {
            // messages of the transaction may or may not be written: it
            // can only be aborted (librdkafka's rule for a failed produce)
            txn::abortable(
                &self.shared,
                &Error::local(local::PURGE_INFLIGHT, "messages purged in flight"),
            );
        }
        self.shared.wake.notify_all();
        self.shared.changed.notify_all();
        Ok(())
    }

    /// Classifies `e`, just returned by one of this producer's
    /// transactional calls, by the producer's state after it: fatal when
    /// the producer has a fatal error, abortable when the open transaction
    /// must be aborted, else retriable when the error is (timeouts
    /// included, as librdkafka).
    pub fn txn_error_flags(&self, e: &Error) -> TxnErrorFlags {
        txn::error_flags(&self.shared, e)
    }

    /// Registers the transactional id with its coordinator and gets the
    /// producer id and epoch (fencing older producers with the same id).
    /// Blocks up to `timeout`.
    ///
    /// # Errors
    /// `_STATE` without `transactional.id`; the coordinator's error (e.g.
    /// TRANSACTIONAL_ID_AUTHORIZATION_FAILED, which is fatal); `_TIMED_OUT`.
    /// After a timeout the producer id is still asked for: until it arrives
    /// the other transactional calls fail with `_CONFLICT` (retriable), and
    /// calling `init_transactions` again resumes the wait, as librdkafka.
    pub fn init_transactions(&self, timeout: Duration) -> Result<()> {
        txn::init(&self.shared, timeout)
    }

    /// Opens a transaction (locally; the coordinator hears of it with the
    /// first partition or offsets added).
    ///
    /// # Errors
    /// `_STATE` unless `init_transactions` succeeded and no transaction is open.
    pub fn begin_transaction(&self) -> Result<()> {
        txn::begin(&self.shared)
    }

    /// Commits consumed offsets as part of the open transaction: AddOffsetsToTxn
    /// to the transaction coordinator, then TxnOffsetCommit to the group's
    /// coordinator. `offsets` are (topic, partition, next offset to consume).
    ///
    /// # Errors
    /// `_STATE` outside a transaction; the coordinators' errors.
    pub fn send_offsets_to_transaction(
        &self,
        offsets: &[(&str, i32, i64)],
        group_id: &str,
        timeout: Duration,
    ) -> Result<()> {
        self.send_offsets_to_transaction_with(
            offsets,
            &ConsumerGroupMetadata::new(group_id),
            timeout,
        )
    }

    /// [`Producer::send_offsets_to_transaction`] with the consumer's group
    /// metadata (`Consumer::group_metadata`, KIP-447): TxnOffsetCommit v3+
    /// carries its generation, member id and group instance id, and the
    /// group coordinator refuses the offsets of a member the group moved on
    /// from (ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID: the
    /// transaction must then be aborted, as librdkafka).
    ///
    /// # Errors
    /// As [`Producer::send_offsets_to_transaction`].
    pub fn send_offsets_to_transaction_with(
        &self,
        offsets: &[(&str, i32, i64)],
        group: &ConsumerGroupMetadata,
        timeout: Duration,
    ) -> Result<()> {
        txn::send_offsets(&self.shared, offsets, group, timeout)
    }

    /// Flushes the transaction's messages and commits it (EndTxn).
    ///
    /// # Errors
    /// `_STATE` outside a transaction or when it must be aborted (a send
    /// failed: the error says which); the coordinator's error; `_TIMED_OUT`.
    pub fn commit_transaction(&self, timeout: Duration) -> Result<()> {
        txn::commit(&self.shared, timeout, |t| self.flush(t))
    }

    /// Drops the transaction's queued messages (reported with `_PURGE_QUEUE`-like
    /// `_STATE` errors), waits for those in flight, and aborts it (EndTxn).
    ///
    /// # Errors
    /// `_STATE` without an open transaction; the coordinator's error; `_TIMED_OUT`.
    pub fn abort_transaction(&self, timeout: Duration) -> Result<()> {
        txn::abort(&self.shared, timeout, |t| self.flush(t))
    }

    /// Messages queued or in flight whose reports have not been served yet
    /// (librdkafka's `rd_kafka_outq_len`).
    pub fn len(&self) -> usize {
        let acc = self.shared.acc();
        acc.outstanding() + acc.done_msgs + acc.in_service.load(Ordering::Relaxed)
    }

    /// True when nothing is outstanding.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Flushes for up to `timeout`, then stops the sender and closes the
    /// connections for good (later requests fail with `_DESTROY`). Messages still undelivered get `_DESTROY` reports
    /// (served to the callback). Returns within `timeout` plus a few
    /// milliseconds even when the brokers are gone.
    pub fn close(&self, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        let _ = self.flush(timeout);
        self.shutdown_until(deadline);
    }

    /// Begins a shutdown from another thread than the ones using the
    /// producer: stops accepting messages, fails the queued ones with
    /// `_DESTROY` and wakes every thread blocked in [`Producer::poll`],
    /// [`Producer::flush`], [`Producer::send_blocking`] or
    /// [`Producer::send_sync`], which return promptly; the connections
    /// close for good. Dropping the producer finishes the shutdown.
    pub fn shut_down(&self) {
        {
            let mut acc = self.shared.acc();
            acc.closing = true;
            acc.fail_all(Error::local(local::DESTROY, "producer destroyed"));
        }
        self.shared.wake.notify_all();
        self.shared.changed.notify_all();
        self.shared.cluster.shutdown();
    }

    fn shutdown(&self) {
        self.shutdown_until(Instant::now() + Duration::from_millis(500));
    }

    /// Stops the sender; if it is stuck in a network call past `deadline`
    /// (a broker that swallows connects), it is left to end on its own —
    /// it holds nothing the caller can still see.
    fn shutdown_until(&self, deadline: Instant) {
        {
            let mut acc = self.shared.acc();
            acc.closing = true;
            acc.fail_all(Error::local(local::DESTROY, "producer closed"));
        }
        self.shared.wake.notify_all();
        self.shared.changed.notify_all();
        self.shared.cluster.shutdown();
        let bg = self.background.locked().take();
        // (not from its own callback: it ends by itself once it returns)
        if let Some(h) = bg.filter(|h| h.thread().id() != std::thread::current().id()) {
            let _ = h.join();
        }
        if let Some((h, ended)) = self.sender.locked().take() {
            let wait = deadline
                .saturating_duration_since(Instant::now())
                .max(Duration::from_millis(50));
            if ended.recv_timeout(wait).is_ok() {
                let _ = h.join();
            }
        }
        let done = self.shared.acc().take_done();
        self.serve(done);
    }
}

/// Turns outcomes into reports for the delivery callback `cb` (its lock
/// held), on the calling thread; returns how many.
fn serve_done(
    shared: &Shared,
    mut cb: MutexGuard<'_, Option<DeliveryCallback>>,
    done: std::collections::VecDeque<accumulator::Done>,
) -> usize {
    // their records no longer count against the queue: a blocked
    // send_blocking may go on
    shared.changed.notify_all();
    // when these are served (even if a callback panics): a flush on
    // another thread waits for them; the length counts each until its
    // callback returned (`Served::one`), as librdkafka's does
    struct Served<'a> {
        shared: &'a Shared,
        in_service: &'a AtomicUsize,
        taken: usize,
        left: usize,
    }
    impl Served<'_> {
        fn one(&mut self) {
            if self.left > 0 {
                self.left -= 1;
                self.in_service.fetch_sub(1, Ordering::Relaxed);
            }
        }
    }
    impl Drop for Served<'_> {
        fn drop(&mut self) {
            if self.taken > 0 {
                let mut acc = self.shared.acc();
                self.in_service.fetch_sub(self.left, Ordering::Relaxed);
                acc.served(self.taken);
                drop(acc);
                self.shared.changed.notify_all();
            }
        }
    }
    let taken = done.iter().map(Done::reported_msgs).sum();
    let mut served = Served {
        shared,
        in_service: &shared.in_service,
        taken,
        left: taken,
    };
    let mut n = 0;
    let only_error = shared.settings.dr_only_error;
    let timeout = shared.settings.message_timeout;
    let now = Instant::now();
    for d in done {
        if only_error && d.result.is_ok() {
            // delivery.report.only.error: no callback, served at once
            for _ in 0..d.reported_msgs() {
                served.one();
            }
            continue;
        }
        d.each(now, timeout, &mut |r| {
            n += 1;
            if let Some(cb) = cb.as_mut() {
                cb(r);
            }
            served.one();
        });
    }
    n
}

/// The thread of [`Producer::start_background`]: serves reports and client
/// events as they come, until the producer closes.
fn background(sh: &Shared) {
    let events = sh.cluster.events().clone();
    loop {
        let mut acc = sh.acc();
        while acc.done.is_empty() && !events.pending() && !acc.closing {
            acc = sh
                .changed
                .wait_timeout(acc, Duration::from_millis(200))
                .map_or_else(|e| e.into_inner().0, |r| r.0);
        }
        if acc.closing {
            return;
        }
        let done = acc.take_done();
        drop(acc);
        if !done.is_empty() {
            let cb = sh.dr_cb.locked();
            serve_done(sh, cb, done);
        }
        events.serve();
    }
}

impl Drop for Producer {
    fn drop(&mut self) {
        self.shutdown();
    }
}

// on a private mock cluster (test.mock.num.brokers)
#[cfg(all(test, feature = "mock"))]
mod tests {
    use super::*;

    /// A one-byte message to partition 0 of `topic`.
    fn one_byte_record(topic: &str) -> ProducerRecord<'_> {
        ProducerRecord {
            topic,
            partition: Some(0),
            key: None,
            value: Some(b"v"),
            headers: &[],
            timestamp: None,
        }
    }

    /// Sends `n` messages one at a time, each followed by `poll` until its
    /// report (a trickle, as benches/latency.rs), on a private mock
    /// cluster; returns how often the sender thread and the polling thread
    /// woke meanwhile.
    fn trickle(linger: &str, n: usize) -> (u64, u64) {
        let cfg = Config::from_pairs([
            ("test.mock.num.brokers", "1"),
            ("acks", "all"),
            ("linger.ms", linger),
        ])
        .unwrap();
        let p = Producer::new(&cfg).unwrap();
        let got = Arc::new(Mutex::new(0usize));
        let g = got.clone();
        p.set_delivery_callback(Some(Box::new(move |dr| {
            assert!(dr.error.is_none(), "{:?}", dr.error);
            *g.lock().unwrap() += 1;
        })));
        let rec = one_byte_record("wakeups");
        // the first message: metadata, connection, topic creation
        p.send(&rec, 0).unwrap();
        p.flush(Duration::from_secs(10)).unwrap();
        {
            let mut acc = p.shared.acc();
            acc.sender_wakeups = 0;
            acc.poll_wakeups = 0;
        }
        for i in 0..n {
            p.send(&rec, i).unwrap();
            let deadline = Instant::now() + Duration::from_secs(10);
            while *got.lock().unwrap() < i + 2 && Instant::now() < deadline {
                p.poll(Duration::from_secs(5));
            }
            assert_eq!(*got.lock().unwrap(), i + 2, "message {i} reported");
        }
        let acc = p.shared.acc();
        (acc.sender_wakeups, acc.poll_wakeups)
    }

    /// A producer asks a partition's leader for its watermarks, as
    /// librdkafka's `rd_kafka_query_watermark_offsets` on a producer
    /// handle; a leader slower than the timeout is `_TIMED_OUT`.
    #[test]
    fn watermarks_from_the_leader() {
        let cfg = Config::from_pairs([("test.mock.num.brokers", "1"), ("linger.ms", "0")]).unwrap();
        let p = Producer::new(&cfg).unwrap();
        p.send(&one_byte_record("watermarks"), 0).unwrap();
        p.flush(Duration::from_secs(10)).unwrap();
        let wait = Duration::from_secs(10);
        assert_eq!(p.watermarks("watermarks", 0, wait).unwrap(), (0, 1));
        let mock = p.mock_cluster().unwrap();
        mock.set_broker_rtt(1, Duration::from_millis(600)).unwrap();
        let e = p
            .watermarks("watermarks", 0, Duration::from_millis(100))
            .unwrap_err();
        assert_eq!(e.code(), crate::error::local::TIMED_OUT, "{e}");
    }

    /// `flush` on one thread waits for the reports a polling thread took
    /// and is still serving (librdkafka counts a message until its
    /// delivery callback returned): the Ruby binding's `purge` failed on it
    /// when its polling thread won the race.
    #[test]
    fn flush_waits_for_reports_another_thread_is_serving() {
        use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
        let cfg = Config::from_pairs([("test.mock.num.brokers", "1"), ("linger.ms", "0")]).unwrap();
        let p = Arc::new(Producer::new(&cfg).unwrap());
        let started = Arc::new(AtomicBool::new(false));
        let served = Arc::new(AtomicUsize::new(0));
        let (s2, d2) = (started.clone(), served.clone());
        p.set_delivery_callback(Some(Box::new(move |_| {
            s2.store(true, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(300));
            d2.fetch_add(1, Ordering::SeqCst);
        })));
        let rec = one_byte_record("serving");
        p.send(&rec, 0).unwrap();
        let p2 = p.clone();
        let poller = std::thread::spawn(move || {
            let until = Instant::now() + Duration::from_secs(10);
            while p2.poll(Duration::from_millis(50)) == 0 && Instant::now() < until {}
        });
        while !started.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(p.len(), 1, "a report being served still counts");
        p.flush(Duration::from_secs(10)).unwrap();
        assert_eq!(
            served.load(Ordering::SeqCst),
            1,
            "flush returned while the report was being served"
        );
        assert_eq!(p.len(), 0);
        poller.join().unwrap();
    }

    /// The length falls as each delivery callback returns, message by
    /// message, as librdkafka's `rd_kafka_outq_len` (its messages are
    /// destroyed one by one after their callbacks): a callback still sees
    /// its own message counted, and the next one sees it gone.
    #[test]
    fn len_falls_as_each_delivery_callback_returns() {
        let cfg =
            Config::from_pairs([("test.mock.num.brokers", "1"), ("linger.ms", "50")]).unwrap();
        let p = Arc::new(Producer::new(&cfg).unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (weak, seen2) = (Arc::downgrade(&p), seen.clone());
        p.set_delivery_callback(Some(Box::new(move |_| {
            if let Some(p) = weak.upgrade() {
                seen2.lock().unwrap().push(p.len());
            }
        })));
        let rec = one_byte_record("len");
        for _ in 0..3 {
            p.send(&rec, 0).unwrap();
        }
        let until = Instant::now() + Duration::from_secs(20);
        while seen.lock().unwrap().len() < 3 && Instant::now() < until {
            p.poll(Duration::from_millis(100));
        }
        assert_eq!(*seen.lock().unwrap(), vec![3, 2, 1]);
        assert_eq!(p.len(), 0);
    }

    /// Under a trickle each message wakes the sender once at linger.ms 0
    /// (to send it) and twice at 5 (to learn of its linger deadline, then
    /// at it), and the polling thread once (for its report). A produce
    /// answer that leaves the sender nothing to do does not wake it, and
    /// writing a request does not wake the poller: each such wake-up was a
    /// thread competing for the CPU on the delivery path (the latency p99).
    /// Counts, not timings: a few spare for a spurious wake-up or an idle
    /// sender's one-second tick.
    #[test]
    fn a_trickle_wakes_the_sender_and_the_poller_once_per_step() {
        let n = 20;
        let (sender, poller) = trickle("0", n);
        assert!(
            sender <= n as u64 + 3,
            "linger 0: sender woke {sender} times for {n} messages"
        );
        assert!(
            poller <= n as u64 + 3,
            "linger 0: poll woke {poller} times for {n} messages"
        );
        let (sender, poller) = trickle("5", n);
        assert!(
            sender <= 2 * n as u64 + 3,
            "linger 5: sender woke {sender} times for {n} messages"
        );
        assert!(
            poller <= n as u64 + 3,
            "linger 5: poll woke {poller} times for {n} messages"
        );
    }
}
