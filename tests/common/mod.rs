//! Shared by the integration tests: the services under test and small helpers.
//! The broker is the one `scripts/services.sh start` runs (127.0.0.1:9092),
//! or `$GREGOR_TEST_BROKER`; ZooKeeper 127.0.0.1:2181 or
//! `$GREGOR_TEST_ZOOKEEPER`. A test that needs one begins with
//! `if !common::broker_up() { return; }` (or `zookeeper_up`): without the
//! service it is skipped, with one line on stderr per test binary, so
//! `cargo test` on a fresh clone runs the codec and scripted-broker tests;
//! under `CI=true` a missing service fails the test instead.
#![allow(dead_code)]

pub mod proxy;
pub mod tansu;
pub mod zk;

use std::collections::BTreeSet;
use std::io::Write;
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use gregor::cluster::{Cluster, Purpose};
use gregor::config::Config;
use gregor::protocol::create_topics::{CreatableTopic, CreateTopicsRequest};

/// host:port of the broker under test.
pub fn broker() -> String {
    std::env::var("GREGOR_TEST_BROKER").unwrap_or_else(|_| "127.0.0.1:9092".to_string())
}

/// host:port of the ZooKeeper under test.
pub fn zookeeper() -> String {
    std::env::var("GREGOR_TEST_ZOOKEEPER").unwrap_or_else(|_| "127.0.0.1:2181".to_string())
}

/// Whether `what` accepts connections at `addr`. When it does not: under
/// `CI=true` a panic (a missing service is a failure there), otherwise
/// `false` after one line on stderr per service and test binary, written
/// past the test harness's capture so `cargo test` shows it.
pub fn service_up(what: &str, addr: &str) -> bool {
    let up = addr.to_socket_addrs().is_ok_and(|mut a| {
        a.any(|a| TcpStream::connect_timeout(&a, Duration::from_secs(2)).is_ok())
    });
    if up {
        return true;
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!(
            "{what} is not answering at {addr} (CI=true: start it with scripts/services.sh start)"
        );
    }
    static SAID: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());
    if SAID
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(what.to_string())
    {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: the tests of this file that need {what} ({addr} is not answering; \
             start it with scripts/services.sh start, or set CI=true to fail instead)"
        );
    }
    false
}

/// Whether the test broker answers (see [`service_up`]).
pub fn broker_up() -> bool {
    service_up("the test broker", &broker())
}

/// Whether the test ZooKeeper answers (see [`service_up`]).
pub fn zookeeper_up() -> bool {
    service_up("the test ZooKeeper", &zookeeper())
}

/// Runs the `gregor` binary with `args` and no stdin: (exit code, stdout,
/// stderr). The command-line code lives in the binary, not the library.
pub fn run_gregor(args: &[&str]) -> (i32, Vec<u8>, Vec<u8>) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gregor"))
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run the gregor binary");
    (out.status.code().unwrap_or(-1), out.stdout, out.stderr)
}

/// A configuration pointing at the test broker, plus `extra`.
pub fn config(extra: &[(&str, &str)]) -> Config {
    let b = broker();
    let mut c = Config::from_pairs([("bootstrap.servers", b.as_str())]).unwrap();
    for (k, v) in extra {
        c.set(k, v).unwrap();
    }
    c
}

/// A topic name no other test (or earlier run) uses.
pub fn unique_topic(prefix: &str) -> String {
    static N: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!(
        "{prefix}-{}-{nanos}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    )
}

/// Creates a topic with `partitions` partitions and waits until its leaders are known.
pub fn create_topic(name: &str, partitions: i32) {
    let cluster = Cluster::new(&config(&[])).unwrap();
    let conn = cluster
        .any_conn(Purpose::Metadata, Duration::from_secs(10))
        .unwrap();
    let mut t = CreatableTopic::default();
    t.name = name.to_string();
    t.num_partitions = partitions;
    t.replication_factor = 1;
    let mut req = CreateTopicsRequest::default();
    req.topics = vec![t];
    req.timeout_ms = 10_000;
    let resp = conn.call(&req, Some(Duration::from_secs(15))).unwrap();
    assert_eq!(
        resp.topics[0].error_code, 0,
        "create {name}: {:?}",
        resp.topics[0]
    );
    for _ in 0..100 {
        if let Ok(t) = cluster.topic(name, false, Duration::from_secs(5)) {
            if t.partitions.len() == partitions as usize
                && t.partitions.iter().all(|p| p.leader >= 0)
            {
                return;
            }
        }
        cluster.invalidate(name);
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("topic {name} did not get leaders");
}

/// A response frame as a broker writes it: size, a response header
/// (`header_version` 0 or 1) for `corr`, then `body`. For the scripted
/// peers of the network, security and event tests.
pub fn response_frame(corr: i32, header_version: i16, body: &[u8]) -> Vec<u8> {
    let mut w = gregor::wire::Writer::new();
    let at = w.reserve_i32();
    gregor::protocol::ResponseHeader {
        correlation_id: corr,
        ..Default::default()
    }
    .encode(&mut w, header_version)
    .unwrap();
    w.put(body);
    let n = w.len() as i32 - 4;
    w.patch_i32(at, n);
    w.into_vec()
}

/// The path of a test certificate written by `scripts/services.sh start
/// security` (`$GREGOR_TEST_CERTS`).
pub fn cert(name: &str) -> String {
    let dir = std::env::var("GREGOR_TEST_CERTS")
        .unwrap_or_else(|_| "/tmp/gregor-services/certs".to_string());
    let p = format!("{dir}/{name}");
    assert!(
        std::path::Path::new(&p).is_file(),
        "{p} missing: run scripts/services.sh start security"
    );
    p
}

/// Polls `c` until `n` messages without an error came (or 20 s), then for
/// `extra` more to catch any that should not be there.
pub fn poll_messages(
    c: &gregor::consumer::Consumer,
    n: usize,
    extra: Duration,
) -> Vec<gregor::message::Message> {
    let mut out = Vec::new();
    let until = std::time::Instant::now() + Duration::from_secs(20);
    let mut extra_until = None;
    loop {
        let now = std::time::Instant::now();
        if out.len() >= n && extra_until.is_none() {
            extra_until = Some(now + extra);
        }
        if now > until || extra_until.is_some_and(|t| now > t) {
            break;
        }
        if let Some(m) = c.poll(Duration::from_millis(50)).unwrap() {
            if m.error.is_none() {
                out.push(m);
            }
        }
    }
    out
}
