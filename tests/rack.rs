//! Rack-aware partition assignment (KIP-881) against librdkafka's mock
//! cluster (tests/mock_cluster/): two brokers on racks r1 and r2, a topic
//! whose partitions have one replica each, alternately on either broker,
//! and group members with `client.rack` r1 and r2. Each member must end up
//! with exactly the partitions whose replica is in its rack — which plain
//! range (contiguous runs) and plain cooperative-sticky never give here.
//! The member's rack travels in its classic subscription (v3 `rack_id`);
//! the leader reads replica racks from Metadata. Mixed with a librdkafka
//! member (confluent-kafka, range), whichever leads.
//!
//!     cargo test --test rack -- --nocapture

mod mock_cluster;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use gregor::admin::{AdminClient, AdminOptions};
use gregor::config::Config;
use gregor::consumer::Consumer;
use mock_cluster::MockCluster;

const PARTS: i32 = 6;

fn config(bootstrap: &str, extra: &[(&str, &str)]) -> Config {
    let mut c = Config::from_pairs([("bootstrap.servers", bootstrap)]).unwrap();
    for (k, v) in extra {
        c.set(k, v).unwrap();
    }
    c
}

/// A two-broker cluster (broker 1 on rack r1, broker 2 on r2) with
/// `topic` (PARTS partitions, one replica each); returns it and, per rack,
/// the partitions whose replica is there (read back with describe_topics).
fn cluster(topic: &str) -> (MockCluster, BTreeMap<String, BTreeSet<i32>>) {
    let cluster = MockCluster::start(2);
    cluster.rebalance_delay(0);
    cluster.rack(1, "r1");
    cluster.rack(2, "r2");
    cluster.topic(topic, PARTS, 1);
    let admin = AdminClient::new(&config(&cluster.bootstrap, &[])).unwrap();
    let d = admin
        .describe_topics(&[topic], false, &AdminOptions::default())
        .unwrap()
        .remove(0)
        .result
        .unwrap();
    let mut local: BTreeMap<String, BTreeSet<i32>> = BTreeMap::new();
    for p in &d.partitions {
        assert_eq!(p.replicas.len(), 1, "{p:?}");
        local
            .entry(format!("r{}", p.replicas[0]))
            .or_default()
            .insert(p.partition);
    }
    // both racks hold some, and not a contiguous run (so plain range
    // cannot be rack-aligned by chance)
    assert_eq!(local.len(), 2, "{local:?}");
    for ps in local.values() {
        let v: Vec<i32> = ps.iter().copied().collect();
        assert!(v.windows(2).any(|w| w[1] != w[0] + 1), "{local:?}");
    }
    (cluster, local)
}

fn member(bootstrap: &str, group: &str, rack: &str, strategy: &str) -> Consumer {
    Consumer::new(&config(
        bootstrap,
        &[
            ("group.id", group),
            ("client.rack", rack),
            ("partition.assignment.strategy", strategy),
            ("auto.offset.reset", "earliest"),
            // the mock waits session.timeout.ms - 1 s for members to rejoin
            ("session.timeout.ms", "2500"),
            ("heartbeat.interval.ms", "300"),
            (
                "debug",
                if std::env::var("RACK_DEBUG").is_ok() {
                    "cgrp"
                } else {
                    ""
                },
            ),
        ],
    ))
    .unwrap()
}

fn assigned(c: &Consumer) -> BTreeSet<i32> {
    c.assignment().iter().map(|t| t.partition).collect()
}

/// Polls `members` in turn until each has `want[i]`, or 30 s pass.
fn settle(members: &[&Consumer], want: &[&BTreeSet<i32>]) -> Vec<BTreeSet<i32>> {
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        for c in members {
            let _ = c.poll(Duration::from_millis(20));
        }
        let got: Vec<BTreeSet<i32>> = members.iter().map(|c| assigned(c)).collect();
        if got.iter().zip(want).all(|(g, w)| g == *w) || Instant::now() > until {
            return got;
        }
    }
}

fn gregor_members(strategy: &str, topic: &str, group: &str) {
    let (cluster, local) = cluster(topic);
    let start = Instant::now();
    let a = member(&cluster.bootstrap, group, "r1", strategy);
    a.subscribe(&[topic]).unwrap();
    // a alone first: everything, rack or not
    let all: BTreeSet<i32> = (0..PARTS).collect();
    assert_eq!(settle(&[&a], &[&all]), vec![all.clone()]);
    let b = member(&cluster.bootstrap, group, "r2", strategy);
    b.subscribe(&[topic]).unwrap();
    let got = settle(&[&a, &b], &[&local["r1"], &local["r2"]]);
    println!(
        "{strategy}: r1 member {:?}, r2 member {:?} (local {local:?}) in {:?}",
        got[0],
        got[1],
        start.elapsed()
    );
    assert_eq!(got, vec![local["r1"].clone(), local["r2"].clone()]);
    b.close();
    a.close();
}

#[test]
fn range_gives_each_member_its_racks_partitions() {
    gregor_members("range", "rack-range", "rack-range-g");
}

#[test]
fn cooperative_sticky_gives_each_member_its_racks_partitions() {
    gregor_members("cooperative-sticky", "rack-coop", "rack-coop-g");
}

/// A librdkafka member (confluent-kafka, classic protocol, range) on the
/// rack given; prints its assignment on every rebalance.
const PY_MEMBER: &str = r#"
import json, select, sys
from confluent_kafka import Consumer
bootstrap, group, topic, rack = sys.argv[1:5]
c = Consumer({"bootstrap.servers": bootstrap, "group.id": group,
              "client.rack": rack, "partition.assignment.strategy": "range",
              "auto.offset.reset": "earliest",
              "session.timeout.ms": 2500, "heartbeat.interval.ms": 300})
def on_assign(c, parts):
    print(json.dumps(sorted(p.partition for p in parts)), flush=True)
c.subscribe([topic], on_assign=on_assign)
while True:
    r, _, _ = select.select([sys.stdin], [], [], 0)
    if r:
        break
    c.poll(0.05)
c.close()
"#;

/// The mock's leader is the first member to join. Led by gregor, the
/// librdkafka member is on r2: gregor's assignor reads its rack from its
/// subscription. Led by librdkafka, that member is on r9, where no broker
/// is: only gregor's rack (r1, sent in its subscription) can make
/// librdkafka's range rack-aware, and without it gregor would get a
/// contiguous run.
fn mixed(python_leads: bool, topic: &str, group: &str) {
    let (cluster, local) = cluster(topic);
    let py_rack = if python_leads { "r9" } else { "r2" };
    let mut py = Command::new("python3")
        .args(["-c", PY_MEMBER, &cluster.bootstrap, group, topic, py_rack])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("python3 runs");
    let (tx, rx) = mpsc::channel::<BTreeSet<i32>>();
    let out = BufReader::new(py.stdout.take().unwrap());
    let reader = std::thread::spawn(move || {
        for line in out.lines() {
            let Ok(line) = line else { break };
            match serde_json::from_str::<Vec<i32>>(&line) {
                Ok(v) => {
                    let _ = tx.send(v.into_iter().collect());
                }
                Err(_) => eprintln!("python member: {line}"),
            }
        }
    });
    let all: BTreeSet<i32> = (0..PARTS).collect();
    let mut py_has = BTreeSet::new();
    let drain = |py_has: &mut BTreeSet<i32>| {
        while let Ok(v) = rx.try_recv() {
            *py_has = v;
        }
    };
    if python_leads {
        // the librdkafka member joins first (and so leads)
        let until = Instant::now() + Duration::from_secs(30);
        while py_has != all && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
            drain(&mut py_has);
        }
        assert_eq!(py_has, all, "the librdkafka member alone");
    }
    let g = member(&cluster.bootstrap, group, "r1", "range");
    g.subscribe(&[topic]).unwrap();
    if !python_leads {
        assert_eq!(settle(&[&g], &[&all]), vec![all.clone()]);
    }
    let until = Instant::now() + Duration::from_secs(30);
    let mut mine = BTreeSet::new();
    while Instant::now() < until {
        let _ = g.poll(Duration::from_millis(20));
        mine = assigned(&g);
        drain(&mut py_has);
        if mine == local["r1"] && py_has == local["r2"] {
            break;
        }
    }
    println!(
        "mixed ({} leads): gregor (r1) {mine:?}, librdkafka ({py_rack}) {py_has:?}, local {local:?}",
        if python_leads { "librdkafka" } else { "gregor" }
    );
    g.close();
    if let Some(stdin) = py.stdin.as_mut() {
        let _ = writeln!(stdin, "stop");
    }
    let until = Instant::now() + Duration::from_secs(10);
    while Instant::now() < until && matches!(py.try_wait(), Ok(None)) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = py.kill();
    let _ = py.wait();
    let _ = reader.join();
    assert_eq!(mine, local["r1"]);
    assert_eq!(py_has, local["r2"]);
}

#[test]
fn mixed_with_librdkafka_gregor_leading() {
    mixed(false, "rack-mix-g", "rack-mix-g");
}

#[test]
fn mixed_with_librdkafka_librdkafka_leading() {
    mixed(true, "rack-mix-l", "rack-mix-l");
}
