//! The multi-broker test cluster: librdkafka's mock cluster behind
//! tests/mock_cluster/gregor-mock-cluster.c (built by
//! `scripts/mock-cluster.sh`), one private cluster per [`MockCluster`], on
//! 127.0.0.1. Commands are the driver's stdin lines (see the C file's top
//! comment); each waits for its answer, so the cluster has changed when a
//! call returns.
#![allow(dead_code)]

pub mod any;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One request the cluster received, while tracking was on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tracked {
    /// The broker that received it.
    pub broker: i32,
    pub api_key: i16,
    /// Microseconds on the driver's monotonic clock.
    pub at_us: i64,
}

struct Io {
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

/// A running mock cluster; dropped, it shuts down.
pub struct MockCluster {
    /// host:port,... of its brokers (ids 1..=N).
    pub bootstrap: String,
    pub brokers: i32,
    child: Child,
    io: Mutex<Io>,
}

/// The driver binary, built on demand by scripts/mock-cluster.sh (once
/// per test binary).
pub fn driver() -> String {
    static PATH: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PATH.get_or_init(|| {
        let root = env!("CARGO_MANIFEST_DIR");
        let out = Command::new(format!("{root}/scripts/mock-cluster.sh"))
            .arg("path")
            .stderr(Stdio::inherit())
            .output()
            .expect("scripts/mock-cluster.sh runs");
        assert!(out.status.success(), "scripts/mock-cluster.sh path failed");
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    })
    .clone()
}

impl MockCluster {
    /// Starts an N-broker cluster (broker ids 1..=N).
    pub fn start(brokers: i32) -> MockCluster {
        let mut child = Command::new(driver())
            .arg(brokers.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("gregor-mock-cluster starts");
        let stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut bootstrap = String::new();
        stdout.read_line(&mut bootstrap).unwrap();
        let bootstrap = bootstrap.trim().to_string();
        assert_eq!(
            bootstrap.split(',').count(),
            brokers as usize,
            "bootstrap list {bootstrap:?}"
        );
        MockCluster {
            bootstrap,
            brokers,
            child,
            io: Mutex::new(Io { stdin, stdout }),
        }
    }

    /// Sends one command; returns the lines before its final answer and the
    /// answer (`ok...`), or the driver's `error: ...` as Err.
    pub fn command(&self, line: &str) -> Result<(Vec<String>, String), String> {
        let mut io = self.io.lock().unwrap_or_else(|e| e.into_inner());
        writeln!(io.stdin, "{line}").map_err(|e| e.to_string())?;
        io.stdin.flush().map_err(|e| e.to_string())?;
        let mut lines = Vec::new();
        loop {
            let mut l = String::new();
            if io.stdout.read_line(&mut l).map_err(|e| e.to_string())? == 0 {
                return Err(format!("{line}: driver exited"));
            }
            let l = l.trim_end().to_string();
            if l == "ok" || l.starts_with("ok ") {
                return Ok((lines, l));
            }
            if let Some(e) = l.strip_prefix("error: ") {
                return Err(format!("{line}: {e}"));
            }
            lines.push(l);
        }
    }

    /// Sends one command that must succeed.
    pub fn ok(&self, line: &str) {
        if let Err(e) = self.command(line) {
            panic!("mock cluster: {e}");
        }
    }

    pub fn topic(&self, name: &str, partitions: i32, replication: i32) {
        self.ok(&format!("topic {name} {partitions} {replication}"));
    }
    pub fn leader(&self, topic: &str, partition: i32, broker: i32) {
        self.ok(&format!("leader {topic} {partition} {broker}"));
    }
    pub fn follower(&self, topic: &str, partition: i32, broker: i32) {
        self.ok(&format!("follower {topic} {partition} {broker}"));
    }
    pub fn down(&self, broker: i32) {
        self.ok(&format!("down {broker}"));
    }
    pub fn up(&self, broker: i32) {
        self.ok(&format!("up {broker}"));
    }
    pub fn rtt(&self, broker: i32, ms: u32) {
        self.ok(&format!("rtt {broker} {ms}"));
    }
    pub fn rack(&self, broker: i32, rack: &str) {
        self.ok(&format!("rack {broker} {rack}"));
    }
    /// The next `count` requests of `api_key` to any broker fail with `code`.
    pub fn err(&self, api_key: i16, code: i16, count: usize) {
        self.ok(&format!("err {api_key} {code} {count}"));
    }
    /// The next `count` requests of `api_key` to `broker` fail with `code`
    /// (0: succeed), each answered after `rtt_ms`.
    pub fn broker_err(&self, broker: i32, api_key: i16, code: i16, count: usize, rtt_ms: u32) {
        self.ok(&format!("berr {broker} {api_key} {code} {count} {rtt_ms}"));
    }
    /// `kind` is "group" or "txn".
    pub fn coordinator(&self, kind: &str, key: &str, broker: i32) {
        self.ok(&format!("coord {kind} {key} {broker}"));
    }
    pub fn api_version(&self, api_key: i16, min: i16, max: i16) {
        self.ok(&format!("apiversion {api_key} {min} {max}"));
    }
    /// group.initial.rebalance.delay.ms of the cluster's groups (3 s by default).
    pub fn rebalance_delay(&self, ms: u32) {
        self.ok(&format!("rebalance_delay {ms}"));
    }
    /// KIP-848 consumer groups' heartbeat interval and session timeout.
    pub fn consumer_group(&self, heartbeat_ms: u32, session_ms: u32) {
        self.ok(&format!("consumer_group {heartbeat_ms} {session_ms}"));
    }
    pub fn track_start(&self) {
        self.ok("track start");
    }
    pub fn track_clear(&self) {
        self.ok("track clear");
    }
    /// (broker, API name as librdkafka spells it, version) of each request
    /// received since tracking started or was cleared, in order.
    pub fn versions(&self) -> Vec<(i32, String, i16)> {
        let (lines, _) = self
            .command("track versions")
            .unwrap_or_else(|e| panic!("mock cluster: {e}"));
        lines
            .iter()
            .filter_map(|l| {
                let mut f = l.strip_prefix("version ")?.split(' ');
                Some((
                    f.next()?.parse().ok()?,
                    f.next()?.to_string(),
                    f.next()?.parse().ok()?,
                ))
            })
            .collect()
    }

    /// Requests received since tracking started or was cleared.
    pub fn tracked(&self) -> Vec<Tracked> {
        let (lines, _) = self
            .command("track dump")
            .unwrap_or_else(|e| panic!("mock cluster: {e}"));
        lines
            .iter()
            .filter_map(|l| {
                let mut f = l.strip_prefix("request ")?.split(' ');
                Some(Tracked {
                    broker: f.next()?.parse().ok()?,
                    api_key: f.next()?.parse().ok()?,
                    at_us: f.next()?.parse().ok()?,
                })
            })
            .collect()
    }
}

impl Drop for MockCluster {
    fn drop(&mut self) {
        if let Ok(mut io) = self.io.lock() {
            let _ = writeln!(io.stdin, "quit");
            let _ = io.stdin.flush();
        }
        let until = Instant::now() + Duration::from_secs(5);
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
