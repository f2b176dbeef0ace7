//! Client statistics: librdkafka's `statistics.interval.ms` and statistics
//! callback, delivering JSON shaped like librdkafka's STATISTICS.md (the
//! same names and meanings for the fields gregor has).
//!
//! The counters live where the work happens and cost no extra lock: the
//! connections count requests, bytes, errors and round trips in relaxed
//! atomics (the round-trip window sits under the connection's existing
//! state lock); the producer's accumulator counts delivered messages under
//! its own lock; the consumer's state counts the messages it hands out.
//! Every `statistics.interval.ms` the next `poll` (or the producer's
//! `flush`) on the application's thread gathers them into JSON and calls the
//! callback — as librdkafka serves its stats event from its queue. If the
//! application polls late, one snapshot is delivered, not a backlog.

use crate::clock::{coarse_us, monotonic_us};
use crate::sync::MutexExt;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{json, Map, Value};

use crate::cluster::Cluster;
use crate::config::Config;
use crate::net::broker::ConnStats;
use crate::window::{Window, WindowStats};

/// A statistics callback: gets one JSON document per interval, on the
/// thread that calls `poll` (or the producer's `flush`).
pub type StatsCallback = Box<dyn FnMut(&str) + Send>;

/// The value librdkafka shows for an offset that is not known
/// (`RD_KAFKA_OFFSET_INVALID`): gregor's own [`crate::message::offset::INVALID`].
pub use crate::message::offset::INVALID as OFFSET_INVALID;

/// Client-wide figures gathered by the producer or consumer.
#[derive(Debug, Default, Clone)]
pub(crate) struct Totals {
    pub replyq: u64,
    pub msg_cnt: u64,
    pub msg_size: u64,
    pub msg_max: u64,
    pub msg_size_max: u64,
    pub txmsgs: u64,
    pub txmsg_bytes: u64,
    pub rxmsgs: u64,
    pub rxmsg_bytes: u64,
    /// An idempotent or transactional producer's state (`eos`).
    pub eos: Option<Eos>,
    /// A producer's queue latency per leader broker id (`int_latency`), µs.
    pub int_latency: BTreeMap<i32, Window>,
    /// A producer's batch sizes (bytes) and message counts per topic
    /// (`batchsize`, `batchcnt`).
    pub topic_batches: BTreeMap<String, (Window, Window)>,
    /// How long the client has had each topic, in ms (`age`): since the
    /// producer's first message to it, or the consumer's assignment.
    pub topic_age_ms: BTreeMap<String, u64>,
    /// A consumer group member's state (`cgrp`): consumers with a
    /// `group.id` only.
    pub cgrp: Option<Cgrp>,
}

/// A consumer group member's figures, as librdkafka's `cgrp` object.
#[derive(Debug, Clone)]
pub(crate) struct Cgrp {
    /// librdkafka's group handler state name (`init`, `query-coord`, `up`, ...).
    pub state: &'static str,
    /// ms since `state` last changed; 0 while it never did.
    pub stateage: u64,
    /// librdkafka's join state name (`init`, `wait-join`, ..., `steady`).
    pub join_state: &'static str,
    /// ms since the last rebalance (assign or revoke); 0 before the first.
    pub rebalance_age: u64,
    /// Rebalances (assigns and revokes) so far.
    pub rebalance_cnt: u64,
    /// Why the last rebalance was started; "" before the first.
    pub rebalance_reason: String,
    /// Partitions the group assigns this member now.
    pub assignment_size: u64,
}

/// An idempotent producer's figures, as librdkafka's `eos` object.
#[derive(Debug, Clone)]
pub(crate) struct Eos {
    /// librdkafka's idempotence state name (`Assigned`, `DrainBump`, ...),
    /// and ms since it changed.
    pub idemp_state: &'static str,
    pub idemp_stateage: u64,
    /// librdkafka's transaction state name (`Init`, `Ready`, ...), and ms
    /// since it changed.
    pub txn_state: &'static str,
    pub txn_stateage: u64,
    /// Whether messages may be produced (inside a transaction).
    pub txn_may_enq: bool,
    /// The producer id and epoch; -1 until known.
    pub producer_id: i64,
    pub producer_epoch: i16,
    /// Producer ids or epochs acquired so far.
    pub epoch_cnt: u64,
}

/// One partition's figures.
#[derive(Debug, Clone)]
pub(crate) struct PartStats {
    pub partition: i32,
    pub leader: i32,
    pub msgq_cnt: u64,
    pub msgq_bytes: u64,
    pub txmsgs: u64,
    pub txbytes: u64,
    pub rxmsgs: u64,
    pub rxbytes: u64,
    pub fetchq_cnt: u64,
    pub fetchq_size: u64,
    pub next_offset: i64,
    pub app_offset: i64,
    pub committed_offset: i64,
    pub lo_offset: i64,
    pub hi_offset: i64,
    pub ls_offset: i64,
    pub consumer_lag: i64,
    /// As `consumer_lag`, from the stored offset instead of the position.
    pub consumer_lag_stored: i64,
    /// Assigned to (or started by) the application: a consumer's
    /// partitions are, a producer's are not (librdkafka's `desired`).
    pub desired: bool,
    /// librdkafka's fetch state name: "none" (not fetched: a producer's),
    /// "offset-query", "validate-epoch-wait", "active", "stopped".
    pub fetch_state: &'static str,
    /// The logical offset being resolved, or `OFFSET_INVALID`.
    pub query_offset: i64,
    /// The offset stored for the next commit, and its leader epoch.
    pub stored_offset: i64,
    pub stored_leader_epoch: i32,
    /// The offset of the last end-of-partition signalled.
    pub eof_offset: i64,
    /// The partition leader's epoch from metadata, -1 if unknown.
    pub leader_epoch: i32,
    /// The leader epoch committed with `committed_offset`, -1 if none.
    pub committed_leader_epoch: i32,
    /// Messages received (consumer) or produced, sent or not (producer).
    pub msgs: u64,
    /// Producer: messages in batches closed and waiting to be sent, and
    /// their bytes (librdkafka's transmit queue); messages sent and waiting
    /// for their acknowledgement.
    pub xmit_msgq_cnt: u64,
    pub xmit_msgq_bytes: u64,
    pub msgs_inflight: u64,
}

impl PartStats {
    /// A partition with nothing counted and no offsets known.
    pub fn new(partition: i32, leader: i32) -> PartStats {
        PartStats {
            partition,
            leader,
            msgq_cnt: 0,
            msgq_bytes: 0,
            txmsgs: 0,
            txbytes: 0,
            rxmsgs: 0,
            rxbytes: 0,
            fetchq_cnt: 0,
            fetchq_size: 0,
            next_offset: OFFSET_INVALID,
            app_offset: OFFSET_INVALID,
            committed_offset: OFFSET_INVALID,
            lo_offset: OFFSET_INVALID,
            hi_offset: OFFSET_INVALID,
            ls_offset: OFFSET_INVALID,
            consumer_lag: -1,
            consumer_lag_stored: -1,
            desired: false,
            fetch_state: "none",
            query_offset: OFFSET_INVALID,
            stored_offset: OFFSET_INVALID,
            stored_leader_epoch: -1,
            eof_offset: OFFSET_INVALID,
            leader_epoch: -1,
            committed_leader_epoch: -1,
            msgs: 0,
            xmit_msgq_cnt: 0,
            xmit_msgq_bytes: 0,
            msgs_inflight: 0,
        }
    }

    fn to_json(&self) -> Value {
        json!({
            "partition": self.partition,
            "leader": self.leader,
            // the broker the client produces to or fetches from: the leader
            "broker": self.leader,
            "msgq_cnt": self.msgq_cnt,
            "msgq_bytes": self.msgq_bytes,
            "fetchq_cnt": self.fetchq_cnt,
            "fetchq_size": self.fetchq_size,
            "next_offset": self.next_offset,
            "app_offset": self.app_offset,
            "committed_offset": self.committed_offset,
            // librdkafka's misspelt name for the same figure, kept for
            // dashboards built on it
            "commited_offset": self.committed_offset,
            "committed_leader_epoch": self.committed_leader_epoch,
            "lo_offset": self.lo_offset,
            "hi_offset": self.hi_offset,
            "ls_offset": self.ls_offset,
            "consumer_lag": self.consumer_lag,
            "consumer_lag_stored": self.consumer_lag_stored,
            "txmsgs": self.txmsgs,
            "txbytes": self.txbytes,
            "rxmsgs": self.rxmsgs,
            "rxbytes": self.rxbytes,
            "desired": self.desired,
            // a partition the client has is one metadata named
            "unknown": false,
            "fetch_state": self.fetch_state,
            "query_offset": self.query_offset,
            "stored_offset": self.stored_offset,
            "stored_leader_epoch": self.stored_leader_epoch,
            "eof_offset": self.eof_offset,
            "leader_epoch": self.leader_epoch,
            "msgs": self.msgs,
            "xmit_msgq_cnt": self.xmit_msgq_cnt,
            "xmit_msgq_bytes": self.xmit_msgq_bytes,
            "msgs_inflight": self.msgs_inflight,
        })
    }
}

/// Topic → its partitions' figures.
pub(crate) type TopicStats = BTreeMap<String, Vec<PartStats>>;

/// The timer and callback of one client.
pub(crate) struct Emitter {
    /// `statistics.interval.ms`; `None` when 0 (off).
    interval: Option<Duration>,
    created: Instant,
    /// When the next snapshot is due, in µs of [`monotonic_us`]; `u64::MAX`
    /// while off or without a callback, so the check on every poll is one
    /// atomic load.
    due_us: AtomicU64,
    /// The callback; taken out while it runs, so it may set a new one.
    cb: Mutex<Option<StatsCallback>>,
    /// Bumped by every [`Emitter::set_callback`].
    cb_version: AtomicU64,
    name: String,
    client_id: String,
    kind: &'static str,
}

impl Emitter {
    /// The emitter of a `kind` ("producer"/"consumer") client.
    pub fn new(cfg: &Config, kind: &'static str) -> Emitter {
        static CLIENTS: AtomicU64 = AtomicU64::new(0);
        let n = CLIENTS.fetch_add(1, Ordering::Relaxed) + 1;
        let ms = cfg.int("statistics.interval.ms");
        Emitter {
            interval: (ms > 0).then(|| Duration::from_millis(ms as u64)),
            created: Instant::now(),
            due_us: AtomicU64::new(u64::MAX),
            cb: Mutex::new(None),
            cb_version: AtomicU64::new(0),
            name: format!("gregor#{kind}-{n}"),
            client_id: cfg.str("client.id").to_string(),
            kind,
        }
    }

    /// Sets (or with `None` removes) the callback; the first snapshot comes
    /// one interval later.
    pub fn set_callback(&self, cb: Option<StatsCallback>) {
        let mut g = self.cb.locked();
        let due = match (&cb, self.interval) {
            (Some(_), Some(i)) => monotonic_us() + i.as_micros() as u64,
            _ => u64::MAX,
        };
        *g = cb;
        self.cb_version.fetch_add(1, Ordering::Relaxed);
        self.due_us.store(due, Ordering::Relaxed);
    }

    /// When the next snapshot is due, if ever.
    pub fn due(&self) -> Option<Instant> {
        let due = self.due_us.load(Ordering::Relaxed);
        if due == u64::MAX {
            return None;
        }
        let now = monotonic_us();
        Some(Instant::now() + Duration::from_micros(due.saturating_sub(now)))
    }

    /// When a caller waiting until `deadline` should wake to emit: the due
    /// time if earlier (at least a millisecond ahead, so a snapshot another
    /// thread is busy emitting cannot make the waiter spin).
    pub fn wake_by(&self, deadline: Instant) -> Instant {
        match self.due() {
            Some(d) => d
                .max(Instant::now() + Duration::from_millis(1))
                .min(deadline),
            None => deadline,
        }
    }

    /// True when a snapshot is due now.
    pub fn is_due(&self) -> bool {
        // Off costs one atomic load, no clock read; on, a coarse reading
        // (every consumer poll asks: a snapshot may come a tick late).
        let due = self.due_us.load(Ordering::Relaxed);
        due != u64::MAX && coarse_us() >= due
    }

    /// If a snapshot is due, gathers it (`gather` gives the client's own
    /// figures), renders it and calls the callback on this thread. Returns
    /// whether it did.
    pub fn emit_if_due(
        &self,
        cluster: &Cluster,
        gather: impl FnOnce() -> (Totals, TopicStats),
    ) -> bool {
        if !self.is_due() {
            return false;
        }
        // Another thread emitting now has it covered.
        let Ok(mut g) = self.cb.try_lock() else {
            return false;
        };
        let now = monotonic_us();
        let due = self.due_us.load(Ordering::Relaxed);
        let Some(interval) = self.interval else {
            return false;
        };
        if now < due {
            return false;
        }
        let Some(mut cb) = g.take() else {
            return false;
        };
        let version = self.cb_version.load(Ordering::Relaxed);
        // Keep the cadence; after a long gap, restart it from now. Stored
        // before the lock is let go, so no other poller sees it still due.
        let step = interval.as_micros() as u64;
        let next = if due + step > now {
            due + step
        } else {
            now + step
        };
        self.due_us.store(next, Ordering::Relaxed);
        drop(g);
        let (totals, topics) = gather();
        let json = self.render(cluster, &totals, &topics);
        cb(&json);
        // Back in place unless the callback was replaced meanwhile.
        let mut g = self.cb.locked();
        if self.cb_version.load(Ordering::Relaxed) == version {
            *g = Some(cb);
        }
        true
    }

    fn render(&self, cluster: &Cluster, t: &Totals, topics: &TopicStats) -> String {
        let mut by_name: BTreeMap<String, (i32, String, ConnStats)> = BTreeMap::new();
        for (id, c) in cluster.connections() {
            let s = c.take_stats();
            match by_name.get_mut(c.name()) {
                Some((_, _, acc)) => acc.merge(&s),
                None => {
                    by_name.insert(c.name().to_string(), (id, c.addr().to_string(), s));
                }
            }
        }
        let (mut tx, mut tx_bytes, mut rx, mut rx_bytes) = (0u64, 0u64, 0u64, 0u64);
        let mut brokers = Map::new();
        for (name, (id, addr, s)) in by_name {
            tx += s.tx;
            tx_bytes += s.tx_bytes;
            rx += s.rx;
            rx_bytes += s.rx_bytes;
            // the partitions this broker leads among the client's
            let mut toppars = Map::new();
            for (topic, parts) in topics {
                for p in parts.iter().filter(|p| id >= 0 && p.leader == id) {
                    toppars.insert(
                        format!("{topic}-{}", p.partition),
                        json!({ "topic": topic, "partition": p.partition }),
                    );
                }
            }
            let req: Map<String, Value> = s
                .req
                .iter()
                .map(|&(k, n)| (api_stats_name(k), json!(n)))
                .collect();
            brokers.insert(
                name.clone(),
                json!({
                    "name": name,
                    "nodeid": id,
                    "nodename": addr,
                    "source": if id < 0 { "configured" } else { "learned" },
                    "state": s.state,
                    "stateage": s.state_age,
                    "outbuf_cnt": s.outbuf_cnt,
                    "waitresp_cnt": s.waitresp_cnt,
                    "tx": s.tx,
                    "txbytes": s.tx_bytes,
                    "txerrs": s.tx_errs,
                    "txidle": s.tx_idle,
                    "req_timeouts": s.req_timeouts,
                    "rx": s.rx,
                    "rxbytes": s.rx_bytes,
                    "rxerrs": s.rx_errs,
                    "rxcorriderrs": s.rx_corrid_errs,
                    "rxidle": s.rx_idle,
                    // librdkafka documents it as deprecated and unused
                    "buf_grow": 0,
                    "connects": s.connects,
                    "disconnects": s.disconnects,
                    "rtt": window_json(&s.rtt.stats()),
                    "throttle": window_json(&s.throttle.stats()),
                    "outbuf_latency": window_json(&s.outbuf_latency.stats()),
                    "int_latency": window_json(
                        &t.int_latency.get(&id).map(Window::stats).unwrap_or_default()
                    ),
                    "req": req,
                    "toppars": toppars,
                }),
            );
        }
        let mut tj = Map::new();
        for (topic, parts) in topics {
            let mut pj = Map::new();
            for p in parts {
                pj.insert(p.partition.to_string(), p.to_json());
            }
            let (size, cnt) = t.topic_batches.get(topic).cloned().unwrap_or_default();
            let mut tv = json!({
                "topic": topic,
                "age": t.topic_age_ms.get(topic).copied().unwrap_or(0),
                "batchsize": window_json(&size.stats()),
                "batchcnt": window_json(&cnt.stats()),
                "partitions": pj,
            });
            if let Some(age) = cluster.topic_metadata_age(topic) {
                tv["metadata_age"] = json!(age.as_millis() as u64);
            }
            tj.insert(topic.clone(), tv);
        }
        let time = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let mut doc = json!({
            "name": self.name,
            "client_id": self.client_id,
            "type": self.kind,
            "ts": monotonic_us(),
            "time": time,
            "age": self.created.elapsed().as_micros() as u64,
            "replyq": t.replyq,
            "msg_cnt": t.msg_cnt,
            "msg_size": t.msg_size,
            "msg_max": t.msg_max,
            "msg_size_max": t.msg_size_max,
            "tx": tx,
            "tx_bytes": tx_bytes,
            "rx": rx,
            "rx_bytes": rx_bytes,
            "txmsgs": t.txmsgs,
            "txmsg_bytes": t.txmsg_bytes,
            "rxmsgs": t.rxmsgs,
            "rxmsg_bytes": t.rxmsg_bytes,
            // gregor keeps no legacy simple-consumer partitions apart from
            // its consumer's: every partition is counted under "topics"
            "simple_cnt": 0,
            "metadata_cache_cnt": cluster.cached_topic_count(),
            "brokers": brokers,
            "topics": tj,
        });
        if let Some(e) = &t.eos {
            doc["eos"] = json!({
                "idemp_state": e.idemp_state,
                "idemp_stateage": e.idemp_stateage,
                "txn_state": e.txn_state,
                "txn_stateage": e.txn_stateage,
                "txn_may_enq": e.txn_may_enq,
                "producer_id": e.producer_id,
                "producer_epoch": e.producer_epoch,
                "epoch_cnt": e.epoch_cnt,
            });
        }
        if let Some(g) = &t.cgrp {
            doc["cgrp"] = json!({
                "state": g.state,
                "stateage": g.stateage,
                "join_state": g.join_state,
                "rebalance_age": g.rebalance_age,
                "rebalance_cnt": g.rebalance_cnt,
                "rebalance_reason": g.rebalance_reason,
                "assignment_size": g.assignment_size,
            });
        }
        doc.to_string()
    }
}

/// A window's figures as librdkafka's window objects (`rtt`, `throttle`):
/// gregor's windows hold exact values, so none is out of range (librdkafka's
/// HDR histogram has a fixed range; its memory size, `hdrsize`, has no
/// counterpart).
fn window_json(r: &WindowStats) -> Value {
    json!({
        "min": r.min, "max": r.max, "avg": r.avg, "sum": r.sum,
        "stddev": r.stddev, "p50": r.p50, "p75": r.p75, "p90": r.p90,
        "p95": r.p95, "p99": r.p99, "p99_99": r.p99_99,
        "outofrange": 0, "cnt": r.cnt,
    })
}

/// librdkafka's name of an API in statistics' `req` (`rd_kafka_ApiKey2str`):
/// Kafka's name, but for the few librdkafka spells its own way.
fn api_stats_name(key: i16) -> String {
    match key {
        18 => "ApiVersion".into(),
        43 | 47 | 48 | 49 | 57 => format!("{}Request", crate::api_keys::api_name(key)),
        _ => crate::api_keys::api_name(key).into(),
    }
}
