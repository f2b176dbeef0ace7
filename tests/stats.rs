//! Statistics (`statistics.interval.ms` + the stats callback) against the
//! real broker: the JSON parses, has librdkafka's shape, and its counts
//! match what the test did.

mod common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use gregor::config::Config;
use gregor::consumer::{Consumer, TopicPartitionOffset as Tpo};
use gregor::message::ProducerRecord;
use gregor::producer::Producer;
use serde_json::Value;

const T: Duration = Duration::from_secs(30);

type Seen = Arc<Mutex<Vec<(Value, std::thread::ThreadId)>>>;

fn collector() -> (Seen, gregor::stats::StatsCallback) {
    let seen: Seen = Arc::default();
    let s2 = seen.clone();
    (
        seen,
        Box::new(move |json: &str| {
            let v: Value = serde_json::from_str(json).expect("stats are valid JSON");
            s2.lock().unwrap().push((v, std::thread::current().id()));
        }),
    )
}

/// Window `name` of every broker in every snapshot.
fn broker_windows(all: &[(Value, std::thread::ThreadId)], name: &str) -> Vec<Value> {
    all.iter()
        .flat_map(|(s, _)| s["brokers"].as_object().unwrap().values())
        .map(|b| b[name].clone())
        .collect()
}

/// Window `name` of `topic` in every snapshot that has the topic.
fn topic_windows(all: &[(Value, std::thread::ThreadId)], topic: &str, name: &str) -> Vec<Value> {
    all.iter()
        .filter_map(|(s, _)| s["topics"].get(topic))
        .map(|t| t[name].clone())
        .collect()
}

/// The sum of the windows' `key` figure.
fn sum(windows: &[Value], key: &str) -> u64 {
    windows.iter().map(|w| w[key].as_u64().unwrap()).sum()
}

fn last(seen: &Seen) -> Option<Value> {
    seen.lock().unwrap().last().map(|x| x.0.clone())
}

fn produce(topic: &str, n: usize, extra: &[(&str, &str)]) -> (Producer, Seen) {
    let mut cfg: Vec<(&str, &str)> = vec![
        ("statistics.interval.ms", "100"),
        ("client.id", "stats-test"),
    ];
    cfg.extend_from_slice(extra);
    let p = Producer::new(&common::config(&cfg)).unwrap();
    let (seen, cb) = collector();
    p.set_stats_callback(Some(cb));
    for i in 0..n {
        let v = format!("value-{i:04}");
        p.send(
            &ProducerRecord {
                topic,
                partition: Some((i % 2) as i32),
                value: Some(v.as_bytes()),
                ..Default::default()
            },
            0,
        )
        .unwrap();
    }
    p.flush(T).unwrap();
    (p, seen)
}

#[test]
fn producer_stats_count_what_was_sent() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("stats-p");
    common::create_topic(&topic, 2);
    let n = 200;
    let (p, seen) = produce(&topic, n, &[]);
    // Wait for a snapshot taken after every delivery.
    let deadline = Instant::now() + T;
    let mut v = Value::Null;
    while Instant::now() < deadline {
        p.poll(Duration::from_millis(100));
        if let Some(s) = last(&seen) {
            if s["txmsgs"] == n as u64 {
                v = s;
                break;
            }
        }
    }
    assert_eq!(v["txmsgs"], n as u64, "last stats: {:?}", last(&seen));
    assert_eq!(v["type"], "producer");
    assert_eq!(v["client_id"], "stats-test");
    assert!(v["name"].as_str().unwrap().starts_with("gregor#producer-"));
    // Message bytes as librdkafka counts them: keys and values (no keys
    // here), not the records' framing.
    assert_eq!(v["txmsg_bytes"], (n * "value-0000".len()) as u64);
    let parts = &v["topics"][topic.as_str()]["partitions"];
    assert_eq!(parts["0"]["txbytes"], (n / 2 * "value-0000".len()) as u64);
    assert_eq!(v["msg_cnt"], 0);
    assert_eq!(v["msg_max"], 100_000);
    assert!(v["ts"].as_u64().unwrap() > 0 && v["time"].as_u64().unwrap() > 1_600_000_000);
    assert!(v["tx"].as_u64().unwrap() > 0 && v["rx"].as_u64().unwrap() > 0);
    assert!(v["tx_bytes"].as_u64().unwrap() > (n * "value-0000".len()) as u64);
    // The brokers: the bootstrap connection and the leader's, which carried
    // the produce requests and their round trips.
    let brokers = v["brokers"].as_object().unwrap();
    assert!(brokers.values().any(|b| b["nodeid"] == -1));
    let leaders: Vec<&Value> = brokers
        .values()
        .filter(|b| b["nodeid"].as_i64() >= Some(0))
        .collect();
    assert!(!leaders.is_empty());
    for b in &leaders {
        assert_eq!(b["state"], "UP");
        assert!(b["tx"].as_u64().unwrap() > 0 && b["rx"].as_u64().unwrap() > 0);
        assert!(b["txbytes"].as_u64().unwrap() > 0 && b["rxbytes"].as_u64().unwrap() > 0);
        assert!(b["connects"].as_u64().unwrap() >= 1);
        assert_eq!(
            b["name"].as_str().unwrap(),
            format!("{}/{}", b["nodename"].as_str().unwrap(), b["nodeid"])
        );
    }
    // Each window's round trips: some window saw the produce responses.
    let all = seen.lock().unwrap().clone();
    let rtt_cnt = sum(&broker_windows(&all, "rtt"), "cnt");
    assert!(rtt_cnt > 0);
    let r = broker_windows(&all, "rtt")
        .into_iter()
        .find(|r| r["cnt"].as_u64() > Some(0))
        .unwrap();
    let (min, p50, max) = (
        r["min"].as_u64().unwrap(),
        r["p50"].as_u64().unwrap(),
        r["max"].as_u64().unwrap(),
    );
    assert!(min <= p50 && p50 <= max && max > 0, "{r}");
    // The topic's partitions, each with its share of the messages and a leader.
    let parts = v["topics"][&topic]["partitions"].as_object().unwrap();
    assert_eq!(parts.len(), 2);
    for (k, part) in parts {
        assert_eq!(part["partition"].to_string(), *k);
        assert_eq!(part["txmsgs"], (n / 2) as u64);
        assert_eq!(part["msgs"], (n / 2) as u64);
        assert_eq!(part["msgq_cnt"], 0);
        assert_eq!(part["xmit_msgq_cnt"], 0);
        assert_eq!(part["msgs_inflight"], 0);
        assert_eq!(part["fetch_state"], "none");
        assert_eq!(part["desired"], false);
        assert!(part["leader"].as_i64().unwrap() >= 0);
        assert_eq!(part["broker"], part["leader"]);
        // the leader's broker lists the partition among its toppars
        let leader = leaders
            .iter()
            .find(|b| b["nodeid"] == part["leader"])
            .expect("the leader's broker");
        assert_eq!(
            leader["toppars"][format!("{topic}-{k}")]["partition"],
            part["partition"]
        );
    }
    // Requests by kind: the produce requests, on the leaders' connections.
    let produced: u64 = leaders
        .iter()
        .map(|b| b["req"]["Produce"].as_u64().unwrap_or(0))
        .sum();
    assert!(
        produced > 0,
        "{:?}",
        leaders.iter().map(|b| &b["req"]).collect::<Vec<_>>()
    );
    for b in &leaders {
        assert!(b["txidle"].as_i64().unwrap() >= 0 && b["rxidle"].as_i64().unwrap() >= 0);
        assert_eq!(b["req_timeouts"], 0);
    }
    // Some window saw the messages wait in the producer (int_latency), the
    // requests wait to be written (outbuf_latency), and the batches
    // (batchsize, batchcnt): n messages in all.
    let int_latency = sum(&broker_windows(&all, "int_latency"), "cnt");
    assert_eq!(int_latency, n as u64);
    let outbuf = sum(&broker_windows(&all, "outbuf_latency"), "cnt");
    assert!(outbuf > 0);
    let batched = sum(&topic_windows(&all, &topic, "batchcnt"), "sum");
    assert_eq!(batched, n as u64);
    let batches = sum(&topic_windows(&all, &topic, "batchsize"), "cnt");
    assert!(batches >= 2, "{batches} batches for 2 partitions");
    // a producer without idempotence has no eos object
    assert!(v.get("eos").is_none());
    assert!(v["metadata_cache_cnt"].as_u64().unwrap() >= 1);
    // Delivered on the caller's thread, every ~100 ms (not pinned tightly:
    // the machine is loaded).
    let me = std::thread::current().id();
    assert!(all.iter().all(|(_, t)| *t == me));
    // The k-th snapshot (from 0) is due (k+1) intervals after the callback
    // was set, at the earliest; `age` counts from before that.
    for (k, (s, _)) in all.iter().enumerate() {
        let age = s["age"].as_u64().unwrap();
        assert!(
            age >= (k as u64 + 1) * 100_000,
            "snapshot {k} at age {age} µs"
        );
    }
}

#[test]
fn stats_are_off_by_default_and_without_a_callback() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("stats-off");
    common::create_topic(&topic, 2);
    let p = Producer::new(&common::config(&[])).unwrap();
    let (seen, cb) = collector();
    p.set_stats_callback(Some(cb));
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(400) {
        p.poll(Duration::from_millis(50));
    }
    assert!(seen.lock().unwrap().is_empty());
    // Removing the callback stops them.
    let p = Producer::new(&common::config(&[("statistics.interval.ms", "50")])).unwrap();
    let (seen, cb) = collector();
    p.set_stats_callback(Some(cb));
    p.poll(Duration::from_millis(300));
    assert!(
        !seen.lock().unwrap().is_empty(),
        "poll waits for and serves the stats"
    );
    p.set_stats_callback(None);
    let before = seen.lock().unwrap().len();
    p.poll(Duration::from_millis(300));
    assert_eq!(seen.lock().unwrap().len(), before);
    let p = Producer::new(&common::config(&[("statistics.interval.ms", "50")])).unwrap();
    assert!(Config::from_pairs([("statistics.interval.ms", "-1")]).is_err());
    // A callback may replace itself (it runs outside the emitter's lock).
    let p = Arc::new(p);
    let count = Arc::new(Mutex::new(0));
    let (p2, c2) = (Arc::downgrade(&p), count.clone());
    p.set_stats_callback(Some(Box::new(move |_: &str| {
        *c2.lock().unwrap() += 1;
        let c3 = c2.clone();
        if let Some(p) = p2.upgrade() {
            p.set_stats_callback(Some(Box::new(move |_: &str| *c3.lock().unwrap() += 100)));
        }
    })));
    let deadline = Instant::now() + T;
    while *count.lock().unwrap() < 101 && Instant::now() < deadline {
        p.poll(Duration::from_millis(50));
    }
    // One poll may serve more than one snapshot (a 50 ms poll against a
    // 50 ms interval, or a poll that overran on a loaded machine), so the
    // replacement may have run more than once: the hundreds count it, the
    // units the first callback.
    let n = *count.lock().unwrap();
    assert!(
        n % 100 == 1 && n >= 101,
        "the first callback ran once, then its replacement: {n}"
    );
}

#[test]
fn consumer_stats_show_lag_reaching_zero() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("stats-c");
    common::create_topic(&topic, 2);
    let n = 100;
    drop(produce(&topic, n, &[]));
    let c = Consumer::new(&common::config(&[("statistics.interval.ms", "100")])).unwrap();
    let (seen, cb) = collector();
    c.set_stats_callback(Some(cb));
    c.assign(&[Tpo::new(&topic, 0, 0), Tpo::new(&topic, 1, 0)])
        .unwrap();
    let mut got = 0;
    let deadline = Instant::now() + T;
    while got < n && Instant::now() < deadline {
        if let Some(m) = c.poll(Duration::from_millis(100)).unwrap() {
            assert!(m.error.is_none(), "{m:?}");
            got += 1;
        }
    }
    assert_eq!(got, n);
    // Keep polling until a snapshot shows everything consumed.
    let mut v = Value::Null;
    while Instant::now() < deadline {
        assert!(c
            .poll(Duration::from_millis(100))
            .unwrap()
            .is_none_or(|m| m.error.is_some()));
        if let Some(s) = last(&seen) {
            let parts = &s["topics"][&topic]["partitions"];
            if s["rxmsgs"] == n as u64
                && parts["0"]["consumer_lag"] == 0
                && parts["1"]["consumer_lag"] == 0
            {
                v = s;
                break;
            }
        }
    }
    assert_eq!(v["type"], "consumer", "last stats: {:?}", last(&seen));
    // no group.id: no group member, no `cgrp` (as librdkafka)
    assert!(v.get("cgrp").is_none(), "{v}");
    assert_eq!(v["rxmsgs"], n as u64);
    assert_eq!(v["rxmsg_bytes"], (n * "value-0000".len()) as u64);
    let parts = v["topics"][&topic]["partitions"].as_object().unwrap();
    assert_eq!(parts.len(), 2);
    for part in parts.values() {
        assert_eq!(part["rxmsgs"], (n / 2) as u64);
        assert_eq!(part["hi_offset"], (n / 2) as u64);
        assert_eq!(part["app_offset"], (n / 2) as u64);
        assert_eq!(part["next_offset"], (n / 2) as u64);
        assert_eq!(part["lo_offset"], 0);
        assert_eq!(part["consumer_lag"], 0);
        assert!(part["leader"].as_i64().unwrap() >= 0);
        assert_eq!(part["broker"], part["leader"]);
        assert_eq!(part["msgs"], (n / 2) as u64);
        assert_eq!(part["desired"], true);
        assert_eq!(part["fetch_state"], "active");
        // assigned without a group: nothing stored or committed
        assert_eq!(part["stored_offset"], -1001);
        assert_eq!(part["consumer_lag_stored"], -1);
        assert_eq!(part["committed_offset"], -1001);
        assert_eq!(part["commited_offset"], part["committed_offset"]);
        assert_eq!(part["committed_leader_epoch"], -1);
    }
    assert!(v["topics"][&topic]["age"].as_u64().is_some());
    assert!(v.get("eos").is_none());
    // Some earlier snapshot saw a lag above 0, or the data arrived in one go;
    // either way the fetch connection shows traffic.
    let fetched: u64 = v["brokers"]
        .as_object()
        .unwrap()
        .values()
        .map(|b| b["rx"].as_u64().unwrap())
        .sum();
    assert!(fetched > 0 && v["rx"].as_u64() == Some(fetched));
}

/// Polls `consumers` in turn until `done` holds for the last snapshot of
/// each (or the deadline passes); returns those snapshots.
fn poll_until(
    consumers: &[(&Consumer, &Seen)],
    deadline: Instant,
    done: impl Fn(&Consumer, &Value) -> bool,
) -> Vec<Value> {
    loop {
        for (c, _) in consumers {
            if let Some(m) = c.poll(Duration::from_millis(50)).unwrap() {
                assert!(m.error.is_none(), "{m:?}");
            }
        }
        let last: Vec<Value> = consumers
            .iter()
            .map(|(_, s)| last(s).unwrap_or(Value::Null))
            .collect();
        if Instant::now() > deadline || consumers.iter().zip(&last).all(|((c, _), v)| done(c, v)) {
            return last;
        }
    }
}

/// librdkafka's `cgrp` object: the group member's state, join state,
/// rebalances and assignment, for a consumer with a group.id only.
#[test]
fn grouped_consumer_stats_show_the_group() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("stats-g");
    common::create_topic(&topic, 3);
    let group = common::unique_topic("stats-g-group");
    let cfg = common::config(&[
        ("statistics.interval.ms", "100"),
        ("group.id", &group),
        ("auto.offset.reset", "earliest"),
    ]);
    let c1 = Consumer::new(&cfg).unwrap();
    let (seen1, cb) = collector();
    c1.set_stats_callback(Some(cb));
    c1.subscribe(&[&topic]).unwrap();
    let steady = |c: &Consumer, v: &Value| {
        v["cgrp"]["join_state"] == "steady"
            && v["cgrp"]["assignment_size"] == c.assignment().len() as u64
    };
    let v = poll_until(&[(&c1, &seen1)], Instant::now() + T, |c, v| {
        steady(c, v) && v["cgrp"]["assignment_size"] == 3
    })
    .remove(0);
    let g = &v["cgrp"];
    assert_eq!(g["state"], "up", "{v}");
    assert_eq!(g["join_state"], "steady", "{v}");
    assert_eq!(g["assignment_size"], 3, "{v}");
    assert_eq!(c1.assignment().len(), 3);
    assert!(g["rebalance_cnt"].as_u64().unwrap() >= 1, "{g}");
    // the first join gives nothing up, so it has no reason (as librdkafka)
    assert_eq!(g["rebalance_reason"], "", "{g}");
    assert!(g["stateage"].as_u64().is_some() && g["rebalance_age"].as_u64().is_some());
    // the ages grow while nothing happens
    let cnt = g["rebalance_cnt"].clone();
    let age = g["rebalance_age"].as_u64().unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let v = poll_until(&[(&c1, &seen1)], Instant::now() + T, |_, v| {
        v["cgrp"]["rebalance_age"].as_u64() >= Some(age + 300)
    })
    .remove(0);
    let g = &v["cgrp"];
    assert!(g["rebalance_age"].as_u64().unwrap() >= 300, "{g}");
    assert!(g["stateage"].as_u64().unwrap() >= 300, "{g}");
    assert_eq!(g["rebalance_cnt"], cnt, "{g}");

    // A second member: the group rebalances and the partitions are split.
    let c2 = Consumer::new(&cfg).unwrap();
    let (seen2, cb) = collector();
    c2.set_stats_callback(Some(cb));
    c2.subscribe(&[&topic]).unwrap();
    let both = [(&c1, &seen1), (&c2, &seen2)];
    let vs = poll_until(&both, Instant::now() + T, |c, v| {
        steady(c, v)
            && v["cgrp"]["assignment_size"]
                .as_u64()
                .is_some_and(|n| n > 0 && n < 3)
    });
    let sizes: Vec<u64> = vs
        .iter()
        .map(|v| v["cgrp"]["assignment_size"].as_u64().unwrap())
        .collect();
    assert_eq!(sizes.iter().sum::<u64>(), 3, "{vs:?}");
    assert_eq!(sizes[0], c1.assignment().len() as u64);
    assert_eq!(sizes[1], c2.assignment().len() as u64);
    let g1 = &vs[0]["cgrp"];
    // the first member gave its partitions up and took its share
    assert!(
        g1["rebalance_cnt"].as_u64().unwrap() >= cnt.as_u64().unwrap() + 2,
        "{g1}"
    );
    assert_ne!(g1["rebalance_reason"], "", "{g1}");
    for v in &vs {
        assert_eq!(v["cgrp"]["state"], "up", "{v}");
    }
    c2.close();
    c1.close();
}
