//! The consumer of assigned partitions: assign (whole or incremental),
//! seek, pause/resume, positions, committed offsets, watermarks and offsets
//! by timestamp, and [`Consumer::poll`]; and, with `group.id`, a consumer
//! group member: [`Consumer::subscribe`], commits, rebalance and commit
//! callbacks served in poll (see [`group`]).
//!
//! Threads (docs/ARCHITECTURE.md): a control thread finds leaders, resolves
//! logical start offsets and validates positions after leader changes
//! (`control.rs`); one fetch thread per leader broker keeps a Fetch in
//! flight on that broker's fetch connection, within an incremental fetch
//! session (KIP-227) where the broker keeps them (`fetcher.rs`,
//! `session.rs`), sending the next request as soon as an answer is framed.
//! The fetch thread only frames the answer and drops what the application
//! must not see (control batches, aborted transactions); `poll` decodes
//! records one at a time on the caller's thread (decompressing a batch
//! when it reaches it), and keys, values and headers borrow the fetched
//! (or decompressed) buffer. Prefetching stops while
//! `queued.max.messages.kbytes` of fetched data waits.
//!
//! `isolation.level=read_committed` (the default, as in librdkafka) drops
//! the records of aborted transactions using the fetch response's aborted
//! transaction list; control records never reach the application. Errors
//! reach the application as messages with `error` set, as in librdkafka:
//! `_PARTITION_EOF` (with `enable.partition.eof`), `_AUTO_OFFSET_RESET`
//! (offset out of range, or no committed offset, with
//! `auto.offset.reset=error`), unknown topics and partitions, broker errors.
//!
//! Decisions where librdkafka and Java differ or the protocol is silent:
//! - [`Consumer::position`] is the offset after the last message handed
//!   out; before any, the start offset once known, else `offset::INVALID`.
//! - A topic that comes back with a new topic ID was deleted and created
//!   again: the partition's position is reset by `auto.offset.reset` and an
//!   `UNKNOWN_TOPIC_ID` event says so.
//! - Log truncation found after a leader change (OffsetForLeaderEpoch) or
//!   by a Fetch's diverging epoch moves the position back to where the
//!   logs agree, as librdkafka does, or stops the partition with
//!   `_AUTO_OFFSET_RESET` when `auto.offset.reset=error`. Brokers without
//!   OffsetForLeaderEpoch v2 skip validation, as with librdkafka.
//! - `offset::STORED` needs `group.id`; `offset::INVALID` means "the
//!   committed offset, else auto.offset.reset" (with no group.id: just
//!   auto.offset.reset).
//! - A paused partition keeps what was already fetched for it and hands it
//!   out after resume; nothing more is fetched meanwhile.

mod assignment;
pub mod assignor;
mod cluster_view;
mod control;
mod coordinator;
mod fetcher;
pub mod group;
mod group_events;
mod poll;
pub(crate) mod session;
mod state;
mod stats;
mod topic_partition;

use crate::sync::MutexExt;
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::cluster::{offsets, Cluster};
use crate::config::{ClientKind, Config};
use crate::error::{local, Error, Result};
use crate::message::offset;
use crate::record::DecodeOptions;
use assignment::{add_part, assign_parts, remove_part};
use control::{Control, Threads};
use group::{Coordinator, Group, GroupSettings};
use group_events::GroupEvent;
pub use group_events::RebalanceEvent;
use session::Tp;
use state::{Reset, Running, Settings, Shared};
pub use topic_partition::TopicPartitionOffset;

/// The rebalance callback: runs inside [`Consumer::poll`] (and
/// [`Consumer::close`]) on the caller's thread.
pub type RebalanceCallback = Box<dyn FnMut(&Consumer, RebalanceEvent) + Send>;

/// The commit callback: the result of an async or automatic commit, with
/// the offsets (and their entry errors); runs inside [`Consumer::poll`].
pub type CommitCallback = Box<dyn FnMut(&Consumer, Result<()>, &[TopicPartitionOffset]) + Send>;

/// A Kafka consumer: of assigned partitions, or a member of a consumer
/// group ([`Consumer::subscribe`]). Thread-safe.
pub struct Consumer {
    cluster: Cluster,
    shared: Arc<Shared>,
    threads: Threads,
    closed: AtomicBool,
    /// `statistics.interval.ms` and the statistics callback (see stats.rs).
    stats: crate::stats::Emitter,
    group: Option<Arc<Group>>,
    group_thread: Mutex<Option<JoinHandle<()>>>,
    rebalance_cb: Mutex<Option<RebalanceCallback>>,
    commit_cb: Mutex<Option<CommitCallback>>,
    /// Counts assignment changes by the application (assign, unassign,
    /// incremental ones), to see whether a rebalance callback made one.
    assign_ops: AtomicU64,
    /// The group took the assignment away without a rebalance and nothing
    /// was assigned since (`rd_kafka_assignment_lost`).
    assignment_lost: AtomicBool,
    /// Set once the close (blocking or started by `close_start`) is over.
    close_done: Arc<AtomicBool>,
    /// The thread of a close started by [`Consumer::close_start`].
    close_thread: Mutex<Option<JoinHandle<()>>>,
}

fn valid_offset(o: i64) -> bool {
    o >= 0
        || o == offset::BEGINNING
        || o == offset::END
        || o == offset::STORED
        || o == offset::INVALID
        || o <= offset::TAIL_BASE
}

impl Consumer {
    /// A consumer for `cfg`. Connects lazily; starts its control thread.
    ///
    /// # Errors
    /// On a bad configuration (a malformed `bootstrap.servers`,
    /// a group-commit property not supported yet).
    pub fn new(cfg: &Config) -> Result<Consumer> {
        let group_settings = GroupSettings::from_config(cfg)?;
        let log = cfg.logger("consumer");
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
        let group = cfg.str("group.id");
        let refresh = cfg.int("topic.metadata.refresh.interval.ms");
        let max_bytes = cfg.int("fetch.max.bytes") as i32;
        let settings = Settings {
            max_wait_ms: cfg.int("fetch.wait.max.ms") as i32,
            min_bytes: cfg.int("fetch.min.bytes") as i32,
            max_bytes,
            partition_max_bytes: cfg.int("max.partition.fetch.bytes") as i32,
            read_committed: cfg.str("isolation.level") == "read_committed",
            reset: match cfg.str("auto.offset.reset") {
                "earliest" => Reset::Earliest,
                "error" => Reset::Error,
                _ => Reset::Latest,
            },
            partition_eof: cfg.bool("enable.partition.eof"),
            decode: DecodeOptions {
                check_crcs: cfg.bool("check.crcs"),
                ..DecodeOptions::default()
            },
            socket_timeout: cfg.ms("socket.timeout.ms"),
            max_buffered: (cfg.int("queued.max.messages.kbytes") as usize) * 1024,
            queued_min: cfg.int("queued.min.messages"),
            error_backoff: cfg.ms("fetch.error.backoff.ms"),
            rack: cfg.get("client.rack").unwrap_or_default().to_string(),
            group_id: (!group.is_empty()).then(|| group.to_string()),
            refresh_interval: if refresh > 0 {
                Duration::from_millis(refresh as u64)
            } else {
                cfg.ms("metadata.max.age.ms")
            },
            max_partition_fetch: max_bytes.max(cfg.int("max.partition.fetch.bytes") as i32),
            auto_store: !group.is_empty() && cfg.bool("enable.auto.offset.store"),
        };
        let shared = Arc::new(Shared::new(settings));
        // Client events (connection errors, throttling) wake poll.
        let weak = Arc::downgrade(&shared);
        cluster.events().set_waker(Some(Arc::new(move || {
            if let Some(sh) = weak.upgrade() {
                crate::net::client_events::notify_locked(&sh.state, &sh.data);
                sh.wakeup.signal();
            }
        })));
        let threads: Threads = Arc::new(Mutex::new(Vec::new()));
        let control = Control::new(shared.clone(), cluster.clone(), threads.clone());
        shared.lock().running += 1;
        let guard = Running(shared.clone());
        let spawned = std::thread::Builder::new()
            .name("gregor consumer".into())
            .spawn(move || {
                let _running = guard;
                control.run();
            })
            .map_err(|e| Error::local(local::FAIL, format!("cannot start consumer thread: {e}")))?;
        threads.locked().push(spawned);
        let group = group_settings.map(|s| Arc::new(Group::new(s)));
        let mut group_thread = None;
        if let Some(g) = &group {
            let coord = Coordinator::new(g.clone(), shared.clone(), cluster.clone());
            let h = std::thread::Builder::new()
                .name("gregor group".into())
                .spawn(move || coord.run())
                .map_err(|e| {
                    Error::local(local::FAIL, format!("cannot start group thread: {e}"))
                })?;
            group_thread = Some(h);
        }
        crate::config::log_warnings(cfg, ClientKind::Consumer, cluster.log());
        Ok(Consumer {
            cluster,
            shared,
            threads,
            closed: AtomicBool::new(false),
            stats: crate::stats::Emitter::new(cfg, "consumer"),
            group,
            group_thread: Mutex::new(group_thread),
            rebalance_cb: Mutex::new(None),
            commit_cb: Mutex::new(None),
            assign_ops: AtomicU64::new(0),
            assignment_lost: AtomicBool::new(false),
            close_done: Arc::new(AtomicBool::new(false)),
            close_thread: Mutex::new(None),
        })
    }

    /// Sets the callback that receives client-level errors (librdkafka's
    /// `error_cb`: `_TRANSPORT`, `_RESOLVE`, `_SSL`, `_AUTHENTICATION`,
    /// `_ALL_BROKERS_DOWN`, `_FATAL`, …) inside [`Consumer::poll`] on the
    /// calling thread. Events wait from the consumer's creation until a poll
    /// serves them. `None` removes it.
    pub fn set_error_callback(&self, cb: Option<crate::net::ErrorCallback>) {
        self.cluster.events().set_error_callback(cb);
    }

    /// Sets the callback that receives brokers' throttle reports (KIP-219)
    /// inside [`Consumer::poll`]. `None` removes it.
    pub fn set_throttle_callback(&self, cb: Option<crate::net::ThrottleCallback>) {
        self.cluster.events().set_throttle_callback(cb);
    }

    /// Sets the callback that receives the consumer's statistics as JSON
    /// (librdkafka's STATISTICS.md; see the README's "Statistics") every
    /// `statistics.interval.ms`, inside [`Consumer::poll`] on the calling
    /// thread. `None` removes it. Nothing is gathered while
    /// `statistics.interval.ms` is 0 or no callback is set.
    pub fn set_stats_callback(&self, cb: Option<crate::stats::StatsCallback>) {
        self.stats.set_callback(cb);
    }

    /// Delivers a statistics snapshot if one is due.
    fn emit_stats(&self) -> bool {
        self.stats.emit_if_due(&self.cluster, || {
            stats::snapshot(&self.shared, self.group.as_ref().map(|g| g.cgrp_stats()))
        })
    }

    /// The error that stopped the consumer for good (a fenced static group
    /// member, KIP-345), as librdkafka's `rd_kafka_fatal_error`; `None`
    /// while it is healthy.
    pub fn fatal_error(&self) -> Option<Error> {
        self.group.as_ref().and_then(|g| g.lock().fatal.clone())
    }

    /// Checks entries: `offsets` (start offsets) also checks the offsets
    /// and that no partition is listed twice.
    fn check(&self, tps: &[TopicPartitionOffset], offsets: bool) -> Result<()> {
        let mut seen = HashSet::new();
        for tp in tps {
            if tp.partition < 0 || tp.topic.is_empty() {
                return Err(Error::invalid_arg(format!(
                    "{:?} [{}]: invalid topic or partition",
                    tp.topic, tp.partition
                )));
            }
            if offsets && !seen.insert((tp.topic.as_str(), tp.partition)) {
                return Err(Error::invalid_arg(format!(
                    "{} [{}] is listed twice",
                    tp.topic, tp.partition
                )));
            }
            if offsets {
                if !valid_offset(tp.offset) {
                    return Err(Error::invalid_arg(format!(
                        "{} [{}]: invalid offset {}",
                        tp.topic, tp.partition, tp.offset
                    )));
                }
                if tp.offset == offset::STORED && self.shared.settings.group_id.is_none() {
                    return Err(Error::invalid_arg(format!(
                        "{} [{}]: the stored (committed) offset needs group.id",
                        tp.topic, tp.partition
                    )));
                }
            }
        }
        Ok(())
    }

    fn add(&self, st: &mut state::State, tp: &TopicPartitionOffset) {
        add_part(&self.shared, st, tp);
    }

    fn remove(&self, st: &mut state::State, key: &Tp) -> bool {
        remove_part(&self.shared, st, key)
    }

    /// Replaces the assignment. Offsets may be absolute or logical
    /// ([`offset::BEGINNING`], [`offset::END`], [`offset::tail`],
    /// [`offset::STORED`], [`offset::INVALID`]); logical ones are resolved
    /// in the background, except that a partition assigned already and
    /// given again with `STORED` or `INVALID` keeps its position. Data
    /// queued for the old assignment is dropped.
    ///
    /// # Errors
    /// `_INVALID_ARG` (and nothing changes) for a negative partition, a
    /// partition listed twice, an invalid offset, or `STORED` without `group.id`;
    /// `_STATE` for a non-empty assignment once the consumer is closed.
    pub fn assign(&self, tps: &[TopicPartitionOffset]) -> Result<()> {
        // an empty assignment is how a revocation callback running inside
        // close gives the partitions up (librdkafka's rd_kafka_assign(NULL))
        if !tps.is_empty() {
            self.check_open()?;
        }
        self.check(tps, true)?;
        self.assign_ops.fetch_add(1, Ordering::AcqRel);
        let mut st = self.shared.lock();
        // A partition assigned already and given again without an offset
        // (INVALID or STORED) goes on from the application's position, as
        // the Java client's assign() keeps the state of partitions that
        // stay; fetching the committed offset again would deliver again
        // what was read since the last commit.
        let tps: Vec<TopicPartitionOffset> = tps
            .iter()
            .map(|tp| {
                let mut tp = tp.clone();
                if tp.offset == offset::INVALID || tp.offset == offset::STORED {
                    if let Some(pos) = st.app_pos(&tp.key()).filter(|&p| p >= 0) {
                        tp.offset = pos;
                    }
                }
                tp
            })
            .collect();
        let keys: Vec<Tp> = st.parts.keys().cloned().collect();
        for k in &keys {
            self.remove(&mut st, k);
        }
        st.current = None;
        st.buffered = 0;
        for tp in &tps {
            self.add(&mut st, tp);
        }
        drop(st);
        self.shared.work.notify_all();
        Ok(())
    }

    /// Removes every partition.
    ///
    /// # Errors
    /// None in practice; as [`Consumer::assign`].
    pub fn unassign(&self) -> Result<()> {
        self.assign(&[])
    }

    /// Adds partitions to the assignment (KIP-429's incremental assign).
    ///
    /// # Errors
    /// `_INVALID_ARG` (and nothing changes) as [`Consumer::assign`];
    /// `_CONFLICT` for a partition already assigned, as librdkafka.
    pub fn incremental_assign(&self, tps: &[TopicPartitionOffset]) -> Result<()> {
        if !tps.is_empty() {
            self.check_open()?;
        }
        self.check(tps, true)?;
        self.assign_ops.fetch_add(1, Ordering::AcqRel);
        let mut st = self.shared.lock();
        if let Some(tp) = tps.iter().find(|tp| st.parts.contains_key(&tp.key())) {
            return Err(Error::local(
                local::CONFLICT,
                format!(
                    "{} [{}] is already part of the current assignment",
                    tp.topic, tp.partition
                ),
            ));
        }
        for tp in tps {
            self.add(&mut st, tp);
        }
        drop(st);
        self.shared.work.notify_all();
        Ok(())
    }

    /// Removes partitions from the assignment, with their queued data.
    ///
    /// # Errors
    /// `_INVALID_ARG` (and nothing changes) for a partition not assigned.
    pub fn incremental_unassign(&self, tps: &[TopicPartitionOffset]) -> Result<()> {
        self.check(tps, false)?;
        let distinct: HashSet<(&str, i32)> = tps
            .iter()
            .map(|t| (t.topic.as_str(), t.partition))
            .collect();
        if distinct.len() != tps.len() {
            return Err(Error::invalid_arg("a partition is listed twice"));
        }
        self.assign_ops.fetch_add(1, Ordering::AcqRel);
        let mut st = self.shared.lock();
        if let Some(tp) = tps.iter().find(|tp| !st.parts.contains_key(&tp.key())) {
            // librdkafka's answer (an application error, not a missing partition)
            return Err(Error::invalid_arg(format!(
                "{} [{}] can't be unassigned since it is not in the current assignment",
                tp.topic, tp.partition
            )));
        }
        let mut freed = false;
        for tp in tps {
            freed |= self.remove(&mut st, &tp.key());
        }
        drop(st);
        if freed {
            self.shared.work.notify_all();
        }
        Ok(())
    }

    fn require_assigned(&self, st: &state::State, tps: &[TopicPartitionOffset]) -> Result<()> {
        match tps.iter().find(|tp| !st.parts.contains_key(&tp.key())) {
            Some(tp) => Err(Error::local(
                local::UNKNOWN_PARTITION,
                format!("{} [{}] is not assigned", tp.topic, tp.partition),
            )),
            None => Ok(()),
        }
    }

    /// The current assignment, each partition with its position (as
    /// [`Consumer::position`]), in topic and partition order.
    pub fn assignment(&self) -> Vec<TopicPartitionOffset> {
        let st = self.shared.lock();
        let mut out: Vec<TopicPartitionOffset> = st
            .parts
            .keys()
            .map(|k| {
                TopicPartitionOffset::new(&*k.0, k.1, st.app_pos(k).unwrap_or(offset::INVALID))
            })
            .collect();
        out.sort_by(|a, b| (&a.topic, a.partition).cmp(&(&b.topic, b.partition)));
        out
    }

    /// Moves a partition's position: the next message polled is at `offset`
    /// (absolute or logical). Data already fetched for it is dropped.
    ///
    /// # Errors
    /// `_UNKNOWN_PARTITION` if not assigned, `_INVALID_ARG` for a bad offset.
    pub fn seek(&self, topic: &str, partition: i32, offset: i64) -> Result<()> {
        self.seek_partitions(&[TopicPartitionOffset::new(topic, partition, offset)])
    }

    /// [`Consumer::seek`] for several partitions at once; an entry with a
    /// leader epoch has its offset validated against the leader's log.
    ///
    /// # Errors
    /// As [`Consumer::seek`]; nothing changes on error.
    pub fn seek_partitions(&self, tps: &[TopicPartitionOffset]) -> Result<()> {
        self.check(tps, true)?;
        let mut st = self.shared.lock();
        self.require_assigned(&st, tps)?;
        for tp in tps {
            let key = tp.key();
            let version = st.version();
            st.purge(&key, usize::MAX);
            if let Some(p) = st.parts.get_mut(&key) {
                p.version = version;
                p.start_at(tp.offset, tp.leader_epoch);
            }
        }
        drop(st);
        self.shared.work.notify_all();
        Ok(())
    }

    /// Stops fetching partitions and handing out their messages; what was
    /// fetched is kept for [`Consumer::resume`].
    ///
    /// # Errors
    /// `_UNKNOWN_PARTITION` (and nothing changes) for a partition not assigned.
    pub fn pause(&self, tps: &[TopicPartitionOffset]) -> Result<()> {
        self.set_paused(tps, true)
    }

    /// Resumes paused partitions.
    ///
    /// # Errors
    /// As [`Consumer::pause`].
    pub fn resume(&self, tps: &[TopicPartitionOffset]) -> Result<()> {
        self.set_paused(tps, false)
    }

    fn set_paused(&self, tps: &[TopicPartitionOffset], paused: bool) -> Result<()> {
        self.check(tps, false)?;
        let mut st = self.shared.lock();
        self.require_assigned(&st, tps)?;
        for tp in tps {
            let key = tp.key();
            if paused && st.current.as_ref().is_some_and(|(k, _)| *k == key) {
                st.sync_current();
                st.park_current();
            }
            let p = st.parts.get_mut(&key).expect("checked");
            p.paused = paused;
            if !paused && !p.queue.is_empty() && !p.in_ready {
                p.in_ready = true;
                st.ready.push_back(key);
            }
        }
        self.shared.wake_pollers(&st);
        drop(st);
        self.shared.work.notify_all();
        Ok(())
    }

    /// The positions of assigned partitions: the offset after the last
    /// message handed out (before any: the start offset once known, else
    /// `offset::INVALID`). Unassigned entries get `_UNKNOWN_PARTITION`.
    pub fn position(&self, tps: &[TopicPartitionOffset]) -> Vec<TopicPartitionOffset> {
        let st = self.shared.lock();
        tps.iter()
            .map(|tp| match st.app_pos(&tp.key()) {
                Some(o) => TopicPartitionOffset::new(&tp.topic, tp.partition, o),
                None => TopicPartitionOffset::new(&tp.topic, tp.partition, offset::INVALID).failed(
                    Error::local(
                        local::UNKNOWN_PARTITION,
                        format!("{} [{}] is not assigned", tp.topic, tp.partition),
                    ),
                ),
            })
            .collect()
    }

    /// The committed offsets of `group.id` for `tps` (OffsetFetch to the
    /// group coordinator; no group membership needed): `offset::INVALID`
    /// where the group committed nothing, the leader epoch when the broker
    /// stored one, an entry error where the broker gave one.
    ///
    /// # Errors
    /// `_INVALID_ARG` without `group.id`; when the coordinator cannot be
    /// found or the request fails as a whole within `timeout`.
    pub fn committed(
        &self,
        tps: &[TopicPartitionOffset],
        timeout: Duration,
    ) -> Result<Vec<TopicPartitionOffset>> {
        self.check(tps, false)?;
        let group = self
            .shared
            .settings
            .group_id
            .as_deref()
            .ok_or_else(|| Error::invalid_arg("committed offsets need group.id to be set"))?;
        let keys: Vec<Tp> = tps.iter().map(TopicPartitionOffset::key).collect();
        let deadline = Instant::now() + timeout;
        let found = control::offset_fetch_full(
            &self.cluster,
            group,
            Some(&self.shared),
            self.shared.settings.read_committed,
            &keys,
            deadline,
        )?;
        Ok(tps
            .iter()
            .zip(&keys)
            .map(|(tp, k)| {
                let base = TopicPartitionOffset::new(&tp.topic, tp.partition, offset::INVALID);
                match found.get(k) {
                    Some(Ok((o, epoch, meta))) => {
                        let mut t = base;
                        t.offset = if *o >= 0 { *o } else { offset::INVALID };
                        t.leader_epoch = (*epoch >= 0).then_some(*epoch);
                        t.metadata = meta.clone().filter(|m| *o >= 0 && !m.is_empty());
                        t
                    }
                    Some(Err(e)) => base.failed(e.clone()),
                    None => base.failed(Error::local(
                        local::BAD_MSG,
                        format!("OffsetFetch answer lacks {} [{}]", tp.topic, tp.partition),
                    )),
                }
            })
            .collect())
    }

    /// For each entry, whose `offset` is a timestamp in ms: the first offset
    /// whose timestamp is at or after it (-1 if none), with its leader
    /// epoch, from the partition's leader (ListOffsets v1+). Failed entries
    /// carry their error.
    ///
    /// # Errors
    /// `_INVALID_ARG` for a bad entry.
    pub fn offsets_for_times(
        &self,
        tps: &[TopicPartitionOffset],
        timeout: Duration,
    ) -> Result<Vec<TopicPartitionOffset>> {
        self.check(tps, false)?;
        offsets_for_times(
            &self.cluster,
            self.shared.settings.read_committed,
            tps,
            timeout,
        )
    }

    /// The low and high watermarks of a partition, asked of its leader (the
    /// high one is the last stable offset under read_committed).
    ///
    /// # Errors
    /// Broker and network errors.
    pub fn watermarks(&self, topic: &str, partition: i32, timeout: Duration) -> Result<(i64, i64)> {
        offsets::watermarks(
            &self.cluster,
            self.shared.settings.read_committed,
            topic,
            partition,
            Instant::now() + timeout,
        )
    }

    /// The watermarks the last fetch of an assigned partition brought back
    /// (log start offset, high watermark), without asking the broker;
    /// `offset::INVALID` for what is not known yet.
    ///
    /// # Errors
    /// `_UNKNOWN_PARTITION` if not assigned.
    pub fn cached_watermarks(&self, topic: &str, partition: i32) -> Result<(i64, i64)> {
        let st = self.shared.lock();
        let p = st
            .parts
            .get(&(Arc::from(topic), partition))
            .ok_or_else(|| {
                Error::local(
                    local::UNKNOWN_PARTITION,
                    format!("{topic} [{partition}] is not assigned"),
                )
            })?;
        Ok((p.lo, p.hi))
    }

    /// ListOffsets for one partition: `-2` earliest, `-1` latest, else the
    /// first offset whose timestamp is at or after `ts` (-1 if none).
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
        let key: Tp = (Arc::from(topic), partition);
        let mut found = offsets::list_offsets(
            &self.cluster,
            self.shared.settings.read_committed,
            &[(key.clone(), ts)],
            Instant::now() + timeout,
        );
        found
            .remove(&(key, ts))
            .unwrap_or_else(|| Err(Error::timed_out("list offsets")))
            .map(|x| x.0)
    }

    // -----------------------------------------------------------------
    // Consumer groups

    fn group(&self) -> Result<&Arc<Group>> {
        self.group
            .as_ref()
            .ok_or_else(|| Error::invalid_arg("consumer groups need group.id to be set"))
    }

    /// Joins the group (`group.id`) subscribed to `topics`: names, or
    /// regular expressions when they start with `^` (as librdkafka; matched
    /// against the cluster's topics every
    /// `topic.metadata.refresh.interval.ms`). Replaces an earlier
    /// subscription. Partitions come through rebalances, served in
    /// [`Consumer::poll`].
    ///
    /// # Errors
    /// `_INVALID_ARG` without `group.id`, for an empty list, an empty name
    /// or a bad pattern; the fatal error of a fenced static member; `_STATE`
    /// once the consumer is closed.
    pub fn subscribe(&self, topics: &[&str]) -> Result<()> {
        self.check_open()?;
        self.group()?.subscribe(topics)
    }

    /// Drops the subscription: the partitions are given up (offsets
    /// committed first with `enable.auto.commit`) and the member leaves the
    /// group, in the background.
    ///
    /// # Errors
    /// `_INVALID_ARG` without `group.id`.
    pub fn unsubscribe(&self) -> Result<()> {
        self.group()?.unsubscribe();
        Ok(())
    }

    /// The subscription, as given to [`Consumer::subscribe`] (empty if none).
    pub fn subscription(&self) -> Vec<String> {
        self.group
            .as_ref()
            .map_or_else(Vec::new, |g| g.subscription())
    }

    /// The member id the group coordinator gave this consumer ("" before
    /// joining or without a group).
    pub fn member_id(&self) -> String {
        self.group
            .as_ref()
            .map_or_else(String::new, |g| g.member_id())
    }

    /// The consumer's group membership for the producer's
    /// `send_offsets_to_transaction_with` (KIP-447, librdkafka's
    /// `rd_kafka_consumer_group_metadata`): group id, generation, member
    /// id, group instance id, as now (generation -1 and "" before joining).
    /// `None` without `group.id`.
    pub fn group_metadata(&self) -> Option<crate::message::ConsumerGroupMetadata> {
        let g = self.group.as_ref()?;
        let m = g.lock();
        Some(crate::message::ConsumerGroupMetadata {
            group_id: g.settings.group_id.clone(),
            generation_id: m.generation,
            member_id: m.member_id.clone(),
            group_instance_id: g.settings.instance_id.clone(),
        })
    }

    /// "EAGER" or "COOPERATIVE" once in a group, else "NONE" (librdkafka's
    /// `rd_kafka_rebalance_protocol`).
    pub fn rebalance_protocol(&self) -> &'static str {
        self.group
            .as_ref()
            .map_or("NONE", |g| g.rebalance_protocol())
    }

    /// Sets the rebalance callback (set it before subscribing). It runs
    /// inside [`Consumer::poll`] on the caller's thread; if it calls
    /// `assign`/`unassign`/`incremental_assign`/`incremental_unassign`,
    /// that is the event's outcome, otherwise the library applies the event
    /// after it returns. Without one the library applies every event
    /// itself.
    pub fn set_rebalance_callback(
        &self,
        cb: impl FnMut(&Consumer, RebalanceEvent) + Send + 'static,
    ) {
        *self.rebalance_cb.locked() = Some(Box::new(cb));
        if let Some(g) = &self.group {
            g.has_rebalance_cb.store(true, Ordering::Release);
        }
    }

    /// Removes the rebalance callback.
    pub fn clear_rebalance_callback(&self) {
        *self.rebalance_cb.locked() = None;
        if let Some(g) = &self.group {
            g.has_rebalance_cb.store(false, Ordering::Release);
        }
    }

    /// Sets the commit callback: the results of async and automatic
    /// commits, served in [`Consumer::poll`] (librdkafka's
    /// `offset_commit_cb`).
    pub fn set_commit_callback(
        &self,
        cb: impl FnMut(&Consumer, Result<()>, &[TopicPartitionOffset]) + Send + 'static,
    ) {
        *self.commit_cb.locked() = Some(Box::new(cb));
        if let Some(g) = &self.group {
            g.has_commit_cb.store(true, Ordering::Release);
        }
    }

    /// Removes the commit callback.
    pub fn clear_commit_callback(&self) {
        *self.commit_cb.locked() = None;
        if let Some(g) = &self.group {
            g.has_commit_cb.store(false, Ordering::Release);
        }
    }

    /// Stores offsets (the offset of the next message to consume, with
    /// optional metadata) for the next commit — librdkafka's
    /// `rd_kafka_offsets_store`, for use with `enable.auto.offset.store=false`.
    ///
    /// # Errors
    /// `_INVALID_ARG` without `group.id` or for a negative offset;
    /// `_UNKNOWN_PARTITION` (and nothing is stored) for a partition not
    /// assigned.
    pub fn store_offsets(&self, tps: &[TopicPartitionOffset]) -> Result<()> {
        self.group()?;
        self.check(tps, false)?;
        if let Some(tp) = tps.iter().find(|t| t.offset < 0) {
            return Err(Error::invalid_arg(format!(
                "{} [{}]: cannot store offset {}",
                tp.topic, tp.partition, tp.offset
            )));
        }
        let mut st = self.shared.lock();
        self.require_assigned(&st, tps)?;
        st.fold_stored();
        for tp in tps {
            if let Some(p) = st.parts.get_mut(&tp.key()) {
                p.stored = tp.offset;
                p.stored_epoch = tp.leader_epoch.unwrap_or(-1);
                p.stored_meta = tp.metadata.clone();
            }
        }
        Ok(())
    }

    /// Commits offsets and waits for the answer: `offsets` as given (with
    /// their metadata), or with `None` the stored offsets of the assigned
    /// partitions (what poll returned, with `enable.auto.offset.store`).
    /// Returns the entries committed.
    ///
    /// # Errors
    /// `_INVALID_ARG` without `group.id`; `_NO_OFFSET` when there is
    /// nothing to commit; the first entry error; coordinator errors.
    pub fn commit(
        &self,
        offsets: Option<&[TopicPartitionOffset]>,
        timeout: Duration,
    ) -> Result<Vec<TopicPartitionOffset>> {
        let entries = self.commit_each(offsets, timeout)?;
        group::first_error(&entries)?;
        Ok(entries)
    }

    /// [`Consumer::commit`] that returns the entries committed with each
    /// one's own error, when the request itself went through: the
    /// partitions the broker refused are in it with their error
    /// (librdkafka's `rd_kafka_commit_queue` hands such a list to its
    /// callback, each partition's `err` set).
    ///
    /// # Errors
    /// `_INVALID_ARG` without `group.id`; `_NO_OFFSET` when there is
    /// nothing to commit; coordinator errors.
    pub fn commit_each(
        &self,
        offsets: Option<&[TopicPartitionOffset]>,
        timeout: Duration,
    ) -> Result<Vec<TopicPartitionOffset>> {
        let g = self.group()?;
        let deadline = Instant::now() + timeout;
        let entries = match offsets {
            Some(o) => {
                self.check(o, false)?;
                if let Some(tp) = o.iter().find(|t| t.offset < 0) {
                    return Err(Error::invalid_arg(format!(
                        "{} [{}]: cannot commit offset {}",
                        tp.topic, tp.partition, tp.offset
                    )));
                }
                group::commit(g, &self.cluster, &self.shared, o, deadline)?
            }
            None => group::commit_stored(g, &self.cluster, &self.shared, None, false, deadline)?,
        };
        Ok(entries)
    }

    /// Commits in the background: the result comes to the commit callback
    /// in [`Consumer::poll`]. `None` commits the stored offsets as they are
    /// when the commit is sent.
    ///
    /// # Errors
    /// `_INVALID_ARG` without `group.id` or for a bad entry.
    pub fn commit_async(&self, offsets: Option<&[TopicPartitionOffset]>) -> Result<()> {
        let g = self.group()?;
        if let Some(o) = offsets {
            self.check(o, false)?;
        }
        let mut m = g.lock();
        m.async_commits.push_back(offsets.map(<[_]>::to_vec));
        drop(m);
        g.cv.notify_all();
        Ok(())
    }

    /// Serves a group event on the caller's thread.
    fn serve(&self, ev: GroupEvent) {
        match ev {
            GroupEvent::Commit { result, offsets } => {
                let cb = self.commit_cb.locked().take();
                if let Some(mut cb) = cb {
                    cb(self, result, &offsets);
                    let mut slot = self.commit_cb.locked();
                    if slot.is_none() {
                        *slot = Some(cb);
                    }
                }
            }
            GroupEvent::Rebalance {
                id,
                event,
                cooperative,
            } => {
                self.rebalance(&event, cooperative);
                if let Some(g) = &self.group {
                    g.handled(id);
                }
            }
        }
    }

    /// Runs the rebalance callback for `event` (committing first what is
    /// stored for revoked partitions), then applies the event unless the
    /// callback changed the assignment itself.
    fn rebalance(&self, event: &RebalanceEvent, cooperative: bool) {
        let Some(g) = &self.group else { return };
        match event {
            RebalanceEvent::Lost(_) => self.assignment_lost.store(true, Ordering::Release),
            RebalanceEvent::Assigned(_) => self.assignment_lost.store(false, Ordering::Release),
            RebalanceEvent::Revoked(_) => {}
        }
        if let RebalanceEvent::Revoked(parts) = event {
            if g.settings.auto_commit {
                let keys: Vec<Tp> = parts.iter().map(TopicPartitionOffset::key).collect();
                let deadline = Instant::now() + g.settings.socket_timeout;
                let _ = group::commit_stored(
                    g,
                    &self.cluster,
                    &self.shared,
                    Some(&keys),
                    true,
                    deadline,
                );
            }
        }
        let before = self.assign_ops.load(Ordering::Acquire);
        let cb = self.rebalance_cb.locked().take();
        if let Some(mut cb) = cb {
            cb(self, event.clone());
            let mut slot = self.rebalance_cb.locked();
            if slot.is_none() {
                *slot = Some(cb);
            }
        }
        if self.assign_ops.load(Ordering::Acquire) != before {
            return;
        }
        let parts = event.partitions();
        match event {
            RebalanceEvent::Assigned(_) => {
                let _ = assign_parts(&self.shared, parts, cooperative);
            }
            RebalanceEvent::Revoked(_) | RebalanceEvent::Lost(_) => {
                if cooperative {
                    let keys: Vec<Tp> = parts.iter().map(TopicPartitionOffset::key).collect();
                    group::take_parts(&self.shared, &keys);
                } else {
                    let _ = assign_parts(&self.shared, &[], false);
                }
            }
        }
    }

    /// A group member's part of close.
    fn close_group(&self, g: &Arc<Group>) {
        let s = &g.settings;
        let deadline = Instant::now() + s.socket_timeout.min(Duration::from_secs(10));
        // events already queued (an assignment...) are served first, so the
        // revocation below covers what the application holds
        loop {
            let ev = self.shared.lock().group_events.pop_front();
            match ev {
                Some(ev) => self.serve(ev),
                None => break,
            }
        }
        let owned = {
            let mut m = g.lock();
            m.closing = true;
            if let Some(c) = m.coord().cloned().filter(|_| m.in_join) {
                // free the coordinator thread from a JoinGroup wait
                c.close();
                m.clear_coord();
            }
            std::mem::take(&mut m.owned)
        };
        g.cv.notify_all();
        // the group thread may be waiting for a broker to appear
        self.cluster.wake_pauses();
        if s.auto_commit {
            let _ = group::commit_stored(g, &self.cluster, &self.shared, None, true, deadline);
        }
        if !owned.is_empty() {
            let parts: Vec<TopicPartitionOffset> = owned
                .iter()
                .map(|(t, p)| TopicPartitionOffset::new(t.as_str(), *p, offset::INVALID))
                .collect();
            let before = self.assign_ops.load(Ordering::Acquire);
            let cb = self.rebalance_cb.locked().take();
            if let Some(mut cb) = cb {
                cb(self, RebalanceEvent::Revoked(parts));
            }
            if self.assign_ops.load(Ordering::Acquire) == before {
                let _ = assign_parts(&self.shared, &[], false);
            }
        }
        // wait for the coordinator thread (bounded), then leave
        let handle = self.group_thread.locked().take();
        {
            let mut m = g.lock();
            while !m.exited && Instant::now() < deadline {
                m =
                    g.cv.wait_timeout(m, Duration::from_millis(50))
                        .map_or_else(|e| e.into_inner().0, |r| r.0);
            }
        }
        if let Some(h) = handle.filter(|h| h.is_finished()) {
            let _ = h.join();
        }
        let member_id = g.member_id();
        // a KIP-848 static member leaves too, with epoch -2
        if !member_id.is_empty() && (s.instance_id.is_none() || s.consumer_protocol) {
            let _ = group::leave(g, &self.cluster, &member_id, deadline);
        }
        let mut m = g.lock();
        m.member_id.clear();
        m.joined = false;
    }

    /// Stops fetching, closes the connections for good and ends the
    /// consumer's threads. Later polls fail with `_STATE`, requests to
    /// brokers with `_DESTROY`. Called on drop too.
    ///
    /// A group member first commits its stored offsets (with
    /// `enable.auto.commit`), gives its partitions up (the rebalance
    /// callback runs here with `Revoked`) and leaves the group (a static
    /// member does not, to keep its assignment over a restart). Bounded by
    /// `socket.timeout.ms` and 10 s.
    pub fn close(&self) {
        if self.closed.swap(true, Ordering::SeqCst) {
            // a close started by close_start: serve what it queues (the
            // revocation) here, as the blocking close does, until it ends
            // (it is bounded)
            let t = self.close_thread.locked().take();
            if let Some(t) = t {
                while !t.is_finished() {
                    let ev = self.shared.lock().group_events.pop_front();
                    match ev {
                        Some(ev) => self.serve(ev),
                        None => std::thread::sleep(Duration::from_millis(5)),
                    }
                }
                let _ = t.join();
            }
            return;
        }
        self.close_blocking();
        self.close_done.store(true, Ordering::Release);
    }

    /// `_STATE` once [`Consumer::close`] (or `close_start`) began: a closed
    /// consumer takes no new subscription or assignment, which would
    /// otherwise be accepted and never served.
    fn check_open(&self) -> Result<()> {
        if self.closed.load(Ordering::SeqCst) {
            Err(Error::local(
                local::STATE,
                "the consumer is closed or closing",
            ))
        } else {
            Ok(())
        }
    }

    /// True once the consumer is closed: by [`Consumer::close`], or by the
    /// close [`Consumer::close_start`] began, once it ended
    /// (`rd_kafka_consumer_closed`).
    pub fn closed(&self) -> bool {
        self.close_done.load(Ordering::Acquire)
    }

    /// True if the group took this consumer's partitions away without a
    /// rebalance (session expired, fenced, `max.poll.interval.ms`
    /// exceeded: a [`RebalanceEvent::Lost`] was served) and no assignment
    /// came since (`rd_kafka_assignment_lost`).
    pub fn assignment_lost(&self) -> bool {
        self.assignment_lost.load(Ordering::Acquire)
    }

    /// Starts closing the consumer without blocking
    /// (`rd_kafka_consumer_close_queue`): a gregor thread commits the stored
    /// offsets (with `enable.auto.commit`), hands the partitions back,
    /// leaves the group and ends the consumer's threads, as
    /// [`Consumer::close`] does. The revocation is served by
    /// [`Consumer::poll`] on the application's thread (the rebalance
    /// callback runs there, with `Revoked`), so keep polling until
    /// [`Consumer::closed`] is true; polls answer `_STATE` ("the consumer
    /// is closed") once the fetchers stopped. The end of the close also
    /// runs the event-loop trigger. A revocation not served within the
    /// close's bound (`socket.timeout.ms`, at most 10 s) is applied
    /// without the callback.
    ///
    /// # Errors
    /// `_STATE` if the consumer is closed or closing already.
    pub fn close_start(&self) -> Result<()> {
        if self.closed.swap(true, Ordering::SeqCst) {
            return Err(Error::local(
                local::STATE,
                "the consumer is closed or closing",
            ));
        }
        let group = self.group.clone();
        let group_thread = self.group_thread.locked().take();
        let shared = self.shared.clone();
        let cluster = self.cluster.clone();
        let threads = self.threads.clone();
        let done = self.close_done.clone();
        let t = std::thread::Builder::new()
            .name("gregor close".into())
            .spawn(move || {
                if let Some(g) = &group {
                    close_group_async(g, &shared, &cluster, group_thread);
                }
                stop_threads(&shared, &cluster, &threads);
                done.store(true, Ordering::Release);
                // the end is observable from the event loop: poll answers
                // _STATE from now on
                shared.wakeup.served(false);
                shared.wakeup.signal();
                let st = shared.lock();
                shared.data.notify_all();
                drop(st);
            })
            .map_err(|e| Error::local(local::FAIL, format!("cannot start close thread: {e}")))?;
        *self.close_thread.locked() = Some(t);
        Ok(())
    }

    fn close_blocking(&self) {
        if let Some(g) = &self.group {
            self.close_group(g);
        }
        stop_threads(&self.shared, &self.cluster, &self.threads);
        self.cluster.log().serve();
    }
}

/// [`Consumer::offsets_for_times`] on the cluster: each entry as asked,
/// with the offset found (and its leader epoch), or its error.
///
/// # Errors
/// `_INVALID_ARG` for an entry without a topic or with a negative partition.
fn offsets_for_times(
    cluster: &Cluster,
    read_committed: bool,
    tps: &[TopicPartitionOffset],
    timeout: Duration,
) -> Result<Vec<TopicPartitionOffset>> {
    let entries: Vec<(&str, i32, i64)> = tps
        .iter()
        .map(|tp| (&*tp.topic, tp.partition, tp.offset))
        .collect();
    let found = offsets::offsets_for_times(cluster, read_committed, &entries, timeout)?;
    Ok(tps
        .iter()
        .zip(found)
        .map(|(tp, found)| {
            let base = TopicPartitionOffset::new(&tp.topic, tp.partition, -1);
            match found {
                Ok((o, epoch)) => {
                    let mut t = base;
                    t.offset = o;
                    t.leader_epoch = epoch;
                    t
                }
                Err(e) => base.failed(e),
            }
        })
        .collect())
}

/// Marks the state closed, shuts the connections and waits (bounded) for
/// the consumer's threads to end.
fn stop_threads(shared: &Shared, cluster: &Cluster, threads: &Threads) {
    {
        let mut st = shared.lock();
        st.closed = true;
        shared.work.notify_all();
        shared.data.notify_all();
    }
    // Threads blocked on the network are freed by closing the
    // connections; one may open a new one just then, so close again
    // until all are out. A thread stuck in a connect to a silent broker
    // is left to end on its own after 500 ms, so close stays bounded:
    // it holds only the shared state, which it frees when it ends.
    let deadline = Instant::now() + Duration::from_millis(500);
    loop {
        cluster.shutdown();
        let st = shared.lock();
        if st.running == 0 || Instant::now() >= deadline {
            break;
        }
        let _ = shared.data.wait_timeout(st, Duration::from_millis(50));
    }
    let handles: Vec<_> = threads.locked().drain(..).collect();
    for h in handles {
        if h.is_finished() {
            let _ = h.join();
        }
    }
}

/// The group part of a close started by `close_start`, on its own thread:
/// as `Consumer::close_group`, but the revocation goes to `poll` as a
/// rebalance event (the callback runs on the application's thread), and is
/// applied here if no poll serves it within the close's bound.
fn close_group_async(
    g: &Arc<Group>,
    shared: &Arc<Shared>,
    cluster: &Cluster,
    group_thread: Option<JoinHandle<()>>,
) {
    let s = &g.settings;
    let deadline = Instant::now() + s.socket_timeout.min(Duration::from_secs(10));
    let owned = {
        let mut m = g.lock();
        m.closing = true;
        if let Some(c) = m.coord().cloned().filter(|_| m.in_join) {
            c.close();
            m.clear_coord();
        }
        std::mem::take(&mut m.owned)
    };
    g.cv.notify_all();
    // the group thread may be waiting for a broker to appear
    cluster.wake_pauses();
    // the coordinator thread ends first, so it posts nothing after the
    // revocation below
    {
        let mut m = g.lock();
        while !m.exited && Instant::now() < deadline {
            m =
                g.cv.wait_timeout(m, Duration::from_millis(50))
                    .map_or_else(|e| e.into_inner().0, |r| r.0);
        }
    }
    if let Some(h) = group_thread.filter(|h| h.is_finished()) {
        let _ = h.join();
    }
    if !owned.is_empty() {
        let parts: Vec<TopicPartitionOffset> = owned
            .iter()
            .map(|(t, p)| TopicPartitionOffset::new(t.as_str(), *p, offset::INVALID))
            .collect();
        let id = {
            let mut m = g.lock();
            m.next_event += 1;
            m.next_event
        };
        let mut st = shared.lock();
        st.group_events.push_back(GroupEvent::Rebalance {
            id,
            event: RebalanceEvent::Revoked(parts),
            cooperative: g.rebalance_protocol() == "COOPERATIVE",
        });
        shared.queued(st);
        // poll serves it (committing the stored offsets first with
        // enable.auto.commit, as for any revocation)
        let mut m = g.lock();
        while m.handled < id && Instant::now() < deadline {
            m =
                g.cv.wait_timeout(m, Duration::from_millis(50))
                    .map_or_else(|e| e.into_inner().0, |r| r.0);
        }
        let served = m.handled >= id;
        drop(m);
        if !served {
            let mut st = shared.lock();
            st.group_events
                .retain(|e| !matches!(e, GroupEvent::Rebalance { id: i, .. } if *i == id));
            drop(st);
            if s.auto_commit {
                let _ = group::commit_stored(g, cluster, shared, None, true, deadline);
            }
            let _ = assign_parts(shared, &[], false);
        }
    } else if s.auto_commit {
        let _ = group::commit_stored(g, cluster, shared, None, true, deadline);
    }
    let member_id = g.member_id();
    if !member_id.is_empty() && s.instance_id.is_none() {
        // a revocation nobody polled for used the bound up: leaving still
        // gets a moment, so the group rebalances now rather than after
        // session.timeout.ms
        let floor = Instant::now() + s.socket_timeout.min(Duration::from_secs(2));
        let _ = group::leave(g, cluster, &member_id, deadline.max(floor));
    }
    let mut m = g.lock();
    m.member_id.clear();
    m.joined = false;
}

impl Drop for Consumer {
    fn drop(&mut self) {
        self.close();
    }
}
