//! Shared by the integration tests: the broker under test and small helpers.
//! The broker is the one `scripts/services.sh start` runs (127.0.0.1:9092),
//! or `$GREGOR_TEST_BROKER`. These tests fail, not skip, when it is down.
#![allow(dead_code)]

pub mod proxy;
pub mod tansu;

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use gregor::cluster::{Cluster, Purpose};
use gregor::config::Config;
use gregor::protocol::create_topics::{CreatableTopic, CreateTopicsRequest};

/// host:port of the broker under test.
pub fn broker() -> String {
    std::env::var("GREGOR_TEST_BROKER").unwrap_or_else(|_| "127.0.0.1:9092".to_string())
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
