//! Either mock cluster behind one interface, so that a failover scenario runs
//! unchanged against librdkafka's mock ([`MockCluster`], driven over stdin)
//! and gregor's own ([`gregor::mock::Cluster`], in-process): the same control
//! calls (leaders, brokers down and up, delays, injected errors, pinned
//! coordinators, request tracking with timestamps) on both.
//!
//! [`on_each`] runs a scenario on each cluster at once (both in parallel, so
//! the second adds little wall time), keeps what each printed, and prints the
//! two side by side; `GREGOR_FAILOVER_MOCKS=librdkafka` (or `gregor`)
//! restricts a run to one of them.
#![allow(dead_code)]

use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::{MockCluster, Tracked};

/// Which mock cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// librdkafka's (rdkafka_mock.h, tests/mock_cluster/gregor-mock-cluster.c).
    Librdkafka,
    /// gregor's own (src/mock).
    Gregor,
}

impl Kind {
    pub const ALL: [Kind; 2] = [Kind::Librdkafka, Kind::Gregor];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Librdkafka => "librdkafka",
            Kind::Gregor => "gregor",
        }
    }

    /// The kinds `GREGOR_FAILOVER_MOCKS` selects (both when unset).
    pub fn selected() -> Vec<Kind> {
        let want = std::env::var("GREGOR_FAILOVER_MOCKS").unwrap_or_default();
        Kind::ALL
            .into_iter()
            .filter(|k| want.is_empty() || want.split(',').any(|w| w.trim() == k.name()))
            .collect()
    }
}

enum Inner {
    Librdkafka(MockCluster),
    Gregor {
        mock: gregor::mock::Cluster,
        t0: Instant,
    },
}

/// A running mock cluster of either kind; dropped, it shuts down.
pub struct Cluster {
    pub kind: Kind,
    /// host:port,... of its brokers (ids 1..=N).
    pub bootstrap: String,
    pub brokers: i32,
    inner: Inner,
}

fn must<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("gregor mock: {e}"))
}

/// librdkafka's name of an API (rd_kafka_ApiKey2str), as `track versions`
/// reports it.
fn librdkafka_name(api_key: i16) -> &'static str {
    match api_key {
        18 => "ApiVersion",
        k => gregor::api_keys::api_name(k),
    }
}

impl Cluster {
    /// Starts an N-broker cluster of `kind` (broker ids 1..=N), with
    /// librdkafka's mock defaults (auto-created topics of 4 partitions, a
    /// 3 s initial rebalance delay).
    pub fn start(kind: Kind, brokers: i32) -> Cluster {
        match kind {
            Kind::Librdkafka => {
                let c = MockCluster::start(brokers);
                Cluster {
                    kind,
                    bootstrap: c.bootstrap.clone(),
                    brokers,
                    inner: Inner::Librdkafka(c),
                }
            }
            Kind::Gregor => {
                let mock = must(gregor::mock::Cluster::new(brokers as usize));
                Cluster {
                    kind,
                    bootstrap: mock.bootstrap_servers(),
                    brokers,
                    inner: Inner::Gregor {
                        mock,
                        t0: Instant::now(),
                    },
                }
            }
        }
    }

    pub fn topic(&self, name: &str, partitions: i32, replication: i32) {
        match &self.inner {
            Inner::Librdkafka(c) => c.topic(name, partitions, replication),
            Inner::Gregor { mock, .. } => must(mock.create_topic(name, partitions, replication)),
        }
    }
    pub fn leader(&self, topic: &str, partition: i32, broker: i32) {
        match &self.inner {
            Inner::Librdkafka(c) => c.leader(topic, partition, broker),
            Inner::Gregor { mock, .. } => {
                must(mock.set_partition_leader(topic, partition, broker));
            }
        }
    }
    /// The preferred read replica the leader names to consumers (KIP-392).
    pub fn follower(&self, topic: &str, partition: i32, broker: i32) {
        match &self.inner {
            Inner::Librdkafka(c) => c.follower(topic, partition, broker),
            Inner::Gregor { mock, .. } => {
                must(mock.set_partition_follower(topic, partition, broker));
            }
        }
    }
    pub fn down(&self, broker: i32) {
        match &self.inner {
            Inner::Librdkafka(c) => c.down(broker),
            Inner::Gregor { mock, .. } => must(mock.broker_down(broker)),
        }
    }
    pub fn up(&self, broker: i32) {
        match &self.inner {
            Inner::Librdkafka(c) => c.up(broker),
            Inner::Gregor { mock, .. } => must(mock.broker_up(broker)),
        }
    }
    pub fn rtt(&self, broker: i32, ms: u32) {
        match &self.inner {
            Inner::Librdkafka(c) => c.rtt(broker, ms),
            Inner::Gregor { mock, .. } => {
                must(mock.set_broker_rtt(broker, Duration::from_millis(u64::from(ms))))
            }
        }
    }
    pub fn rack(&self, broker: i32, rack: &str) {
        match &self.inner {
            Inner::Librdkafka(c) => c.rack(broker, rack),
            Inner::Gregor { mock, .. } => must(mock.set_broker_rack(broker, Some(rack))),
        }
    }
    /// The next `count` requests of `api_key` to any broker fail with `code`.
    pub fn err(&self, api_key: i16, code: i16, count: usize) {
        match &self.inner {
            Inner::Librdkafka(c) => c.err(api_key, code, count),
            Inner::Gregor { mock, .. } => mock.push_request_errors(api_key, &vec![code; count]),
        }
    }
    /// The next `count` requests of `api_key` to `broker` fail with `code`
    /// (0: succeed), each answered after `rtt_ms`.
    pub fn broker_err(&self, broker: i32, api_key: i16, code: i16, count: usize, rtt_ms: u32) {
        match &self.inner {
            Inner::Librdkafka(c) => c.broker_err(broker, api_key, code, count, rtt_ms),
            Inner::Gregor { mock, .. } => {
                let e = (code, Duration::from_millis(u64::from(rtt_ms)));
                must(mock.push_broker_request_errors(broker, api_key, &vec![e; count]));
            }
        }
    }
    /// `kind` is "group" or "txn".
    pub fn coordinator(&self, kind: &str, key: &str, broker: i32) {
        match &self.inner {
            Inner::Librdkafka(c) => c.coordinator(kind, key, broker),
            Inner::Gregor { mock, .. } => must(mock.set_coordinator(kind, key, broker)),
        }
    }
    pub fn api_version(&self, api_key: i16, min: i16, max: i16) {
        match &self.inner {
            Inner::Librdkafka(c) => c.api_version(api_key, min, max),
            Inner::Gregor { mock, .. } => must(mock.set_api_version(api_key, min, max)),
        }
    }
    /// group.initial.rebalance.delay.ms of the cluster's groups (3 s by default).
    pub fn rebalance_delay(&self, ms: u32) {
        match &self.inner {
            Inner::Librdkafka(c) => c.rebalance_delay(ms),
            Inner::Gregor { mock, .. } => {
                mock.set_group_initial_rebalance_delay(Duration::from_millis(u64::from(ms)));
            }
        }
    }
    pub fn track_start(&self) {
        match &self.inner {
            Inner::Librdkafka(c) => c.track_start(),
            Inner::Gregor { mock, .. } => mock.start_request_tracking(),
        }
    }
    pub fn track_clear(&self) {
        match &self.inner {
            Inner::Librdkafka(c) => c.track_clear(),
            Inner::Gregor { mock, .. } => mock.clear_requests(),
        }
    }
    /// (broker, API name as librdkafka spells it, version) of each request
    /// received since tracking started or was cleared, in order.
    pub fn versions(&self) -> Vec<(i32, String, i16)> {
        match &self.inner {
            Inner::Librdkafka(c) => c.versions(),
            Inner::Gregor { mock, .. } => mock
                .requests()
                .iter()
                .map(|r| {
                    (
                        r.broker,
                        librdkafka_name(r.api_key).to_string(),
                        r.api_version,
                    )
                })
                .collect(),
        }
    }
    /// Requests received since tracking started or was cleared (time in
    /// microseconds on the cluster's monotonic clock).
    pub fn tracked(&self) -> Vec<Tracked> {
        match &self.inner {
            Inner::Librdkafka(c) => c.tracked(),
            Inner::Gregor { mock, t0 } => mock
                .requests()
                .iter()
                .map(|r| Tracked {
                    broker: r.broker,
                    api_key: r.api_key,
                    at_us: r.at.saturating_duration_since(*t0).as_micros() as i64,
                })
                .collect(),
        }
    }
}

/// What one run of a scenario printed, kept to be shown beside the other's.
pub struct Report {
    pub kind: Kind,
    lines: Mutex<Vec<String>>,
}

impl Report {
    /// A figure to show side by side with the other cluster's.
    pub fn say(&self, line: impl Into<String>) {
        self.lines
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(line.into());
    }
    /// A progress note, on stderr at once.
    pub fn note(&self, line: impl std::fmt::Display) {
        eprintln!("[{}] {line}", self.kind.name());
    }
}

/// Why a scenario is not run on a cluster.
pub type Skip = Option<(Kind, &'static str)>;

/// Runs `scenario` on each selected cluster (at once, in parallel threads)
/// but `skip`'s, prints what each reported side by side (line i of each
/// together), then fails if either failed.
pub fn on_each(name: &str, skip: Skip, scenario: impl Fn(Kind, &Report) + Sync) {
    let kinds = Kind::selected();
    let reports: Vec<Report> = kinds
        .iter()
        .map(|&kind| Report {
            kind,
            lines: Mutex::new(Vec::new()),
        })
        .collect();
    let t0 = Instant::now();
    let results: Vec<Result<Duration, String>> = std::thread::scope(|s| {
        let handles: Vec<_> = reports
            .iter()
            .map(|r| {
                let scenario = &scenario;
                let skipped = skip.filter(|(k, _)| *k == r.kind);
                s.spawn(move || {
                    if let Some((_, why)) = skipped {
                        r.say(format!("not run: {why}"));
                        return Duration::ZERO;
                    }
                    let t = Instant::now();
                    scenario(r.kind, r);
                    t.elapsed()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().map_err(|e| {
                    e.downcast_ref::<String>()
                        .cloned()
                        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_else(|| "panicked".into())
                })
            })
            .collect()
    });
    let lines: Vec<Vec<String>> = reports
        .iter()
        .map(|r| r.lines.lock().unwrap_or_else(|e| e.into_inner()).clone())
        .collect();
    let rows = lines.iter().map(Vec::len).max().unwrap_or(0);
    let mut out = format!(
        "== {name} ({:.1} s on {})\n",
        t0.elapsed().as_secs_f64(),
        kinds
            .iter()
            .map(|k| k.name())
            .collect::<Vec<_>>()
            .join(" and ")
    );
    for i in 0..rows {
        for (k, l) in kinds.iter().zip(&lines) {
            if let Some(l) = l.get(i) {
                out += &format!("  {:<10} | {l}\n", k.name());
            }
        }
    }
    let mut failed = Vec::new();
    for (k, r) in kinds.iter().zip(&results) {
        match r {
            Ok(d) if !d.is_zero() => {
                out += &format!("  {:<10} | passed in {:.2} s\n", k.name(), d.as_secs_f64());
            }
            Ok(_) => {}
            Err(e) => {
                out += &format!("  {:<10} | FAILED: {e}\n", k.name());
                failed.push(format!("{}: {e}", k.name()));
            }
        }
    }
    print!("{out}");
    assert!(failed.is_empty(), "{name} failed on {failed:#?}");
}
