//! The producer against the real broker (and, for transactions, the one test
//! broker that completes them): batching, delivery reports, queue limits,
//! partitioners, idempotence under dropped connections, transactions, close.

mod common;

use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::proxy::{self, Verdict};
use gregor::config::Config;
use gregor::consumer::{Consumer, TopicPartitionOffset};
use gregor::error::local;
use gregor::message::{offset, Message, ProducerRecord};
use gregor::producer::{DeliveryReport, Partitioner, Producer};

const T: Duration = Duration::from_secs(30);

fn collect_reports(p: &Producer) -> Arc<Mutex<Vec<DeliveryReport>>> {
    let got = Arc::new(Mutex::new(Vec::new()));
    let g2 = got.clone();
    p.set_delivery_callback(Some(Box::new(move |dr| {
        g2.lock().unwrap().push(dr.clone())
    })));
    got
}

fn read_all(cfg: &Config, topic: &str, partitions: i32, n: usize) -> Vec<Message> {
    let c = Consumer::new(cfg).unwrap();
    let tps: Vec<_> = (0..partitions)
        .map(|p| TopicPartitionOffset::new(topic, p, offset::BEGINNING))
        .collect();
    c.assign(&tps).unwrap();
    let mut out = Vec::new();
    let deadline = Instant::now() + T;
    while out.len() < n && Instant::now() < deadline {
        if let Some(m) = c.poll(Duration::from_millis(200)).unwrap() {
            assert!(m.error.is_none(), "{:?}", m.error);
            out.push(m);
        }
    }
    out
}

#[test]
fn batches_and_delivery_reports_carry_every_opaque_once_with_offsets() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("dr");
    common::create_topic(&topic, 3);
    let p = Producer::new(&common::config(&[
        ("linger.ms", "20"),
        ("compression.type", "lz4"),
    ]))
    .unwrap();
    let got = collect_reports(&p);
    for i in 0..3000usize {
        let key = format!("k{}", i % 50);
        let value = format!("value-{i}");
        let rec = ProducerRecord {
            topic: &topic,
            key: Some(key.as_bytes()),
            value: Some(value.as_bytes()),
            ..Default::default()
        };
        p.send(&rec, i).unwrap();
    }
    p.flush(T).unwrap();
    assert_eq!(p.len(), 0);
    let reports = got.lock().unwrap().clone();
    assert_eq!(reports.len(), 3000);
    let opaques: HashSet<usize> = reports.iter().map(|r| r.opaque).collect();
    assert_eq!(opaques.len(), 3000, "every opaque exactly once");
    let mut per_part: BTreeMap<i32, Vec<i64>> = BTreeMap::new();
    for r in &reports {
        assert!(r.error.is_none(), "{:?}", r.error);
        per_part.entry(r.partition).or_default().push(r.offset);
    }
    for offs in per_part.values_mut() {
        offs.sort();
        assert_eq!(
            *offs,
            (0..offs.len() as i64).collect::<Vec<_>>(),
            "offsets contiguous"
        );
    }
    // what the broker holds matches the reports
    let msgs = read_all(&common::config(&[]), &topic, 3, 3000);
    assert_eq!(msgs.len(), 3000);
    for r in reports.iter().filter(|r| r.opaque % 97 == 0) {
        let m = msgs
            .iter()
            .find(|m| m.partition == r.partition && m.offset == r.offset)
            .unwrap();
        assert_eq!(
            m.value.as_deref(),
            Some(format!("value-{}", r.opaque).as_bytes())
        );
        let want = Partitioner::ConsistentRandom
            .partition(Some(format!("k{}", r.opaque % 50).as_bytes()), 3)
            .unwrap();
        assert_eq!(r.partition, want, "keyed messages follow the partitioner");
    }
}

#[test]
fn queue_limits_give_queue_full_and_blocking_send_waits() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("qfull");
    common::create_topic(&topic, 1);
    let cfg = common::config(&[
        ("queue.buffering.max.messages", "10"),
        ("linger.ms", "60000"),
    ]);
    let p = Producer::new(&cfg).unwrap();
    let rec = ProducerRecord {
        topic: &topic,
        partition: Some(0),
        value: Some(b"x"),
        ..Default::default()
    };
    // let metadata arrive so messages sit in the partition queue
    p.send_sync(&rec, Some(T)).unwrap();
    for i in 0..10 {
        p.send(&rec, i).unwrap();
    }
    let e = p.send(&rec, 10).unwrap_err();
    assert_eq!(e.code(), local::QUEUE_FULL, "{e}");
    let t = Instant::now();
    let e = p
        .send_blocking(&rec, 10, Duration::from_millis(300))
        .unwrap_err();
    assert_eq!(e.code(), local::QUEUE_FULL);
    assert!(t.elapsed() >= Duration::from_millis(300));
    // flushing makes room: a blocked sender goes through
    std::thread::scope(|s| {
        s.spawn(|| p.send_blocking(&rec, 11, T).unwrap());
        std::thread::sleep(Duration::from_millis(100));
        p.flush(T).unwrap();
    });
    p.flush(T).unwrap();
    let c = Consumer::new(&common::config(&[])).unwrap();
    assert_eq!(c.watermarks(&topic, 0, T).unwrap(), (0, 12));
}

#[test]
fn keyless_messages_stick_to_one_partition_per_batch() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("sticky");
    common::create_topic(&topic, 6);
    let p = Producer::new(&common::config(&[("linger.ms", "60000")])).unwrap();
    p.send_sync(
        &ProducerRecord {
            topic: &topic,
            partition: Some(0),
            value: Some(b"warm"),
            ..Default::default()
        },
        Some(T),
    )
    .unwrap();
    let got = collect_reports(&p);
    for i in 0..200 {
        p.send(
            &ProducerRecord {
                topic: &topic,
                value: Some(b"v"),
                ..Default::default()
            },
            i,
        )
        .unwrap();
    }
    p.flush(T).unwrap();
    let parts: HashSet<i32> = got.lock().unwrap().iter().map(|r| r.partition).collect();
    assert_eq!(parts.len(), 1, "one batch, one partition: {parts:?}");
}

#[test]
fn murmur2_partitions_like_librdkafka_and_the_java_client() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("murmur");
    common::create_topic(&topic, 7);
    // librdkafka's murmur2_random is the Java client's partitioner
    let script = r#"
import sys
from confluent_kafka import Producer
p = Producer({"bootstrap.servers": sys.argv[1], "partitioner": "murmur2_random"})
res = {}
for i in range(40):
    k = ("user-%d" % i).encode()
    p.produce(sys.argv[2], key=k, value=b"x", on_delivery=lambda e, m: res.__setitem__(m.key().decode(), m.partition()))
p.flush(20)
for k in sorted(res): print(k, res[k])
"#;
    let out = std::process::Command::new("python3")
        .args(["-c", script, &common::broker(), &topic])
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 40);
    let p = Producer::new(&common::config(&[("partitioner", "murmur2_random")])).unwrap();
    for line in text.lines() {
        let (key, part) = line.split_once(' ').unwrap();
        let d = p
            .send_sync(
                &ProducerRecord {
                    topic: &topic,
                    key: Some(key.as_bytes()),
                    value: Some(b"y"),
                    ..Default::default()
                },
                Some(T),
            )
            .unwrap();
        assert_eq!(d.partition.to_string(), part, "key {key}");
    }
}

#[test]
fn idempotent_producer_through_dropped_connections_delivers_each_message_once_in_order() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("idem");
    common::create_topic(&topic, 3);
    // cut the connection on every 7th produce request
    let px = proxy::start(&common::broker(), |n, key| {
        if key == 0 && n % 7 == 3 {
            Verdict::Cut
        } else {
            Verdict::Forward
        }
    });
    let mut cfg = common::config(&[
        ("enable.idempotence", "true"),
        ("linger.ms", "2"),
        ("batch.num.messages", "50"),
        ("retry.backoff.ms", "20"),
    ]);
    cfg.set("bootstrap.servers", &px.addr).unwrap();
    let p = Producer::new(&cfg).unwrap();
    let got = collect_reports(&p);
    let n = 3000usize;
    for i in 0..n {
        let value = format!("{i}");
        p.send(
            &ProducerRecord {
                topic: &topic,
                partition: Some((i % 3) as i32),
                value: Some(value.as_bytes()),
                ..Default::default()
            },
            i,
        )
        .unwrap();
        if i % 500 == 0 {
            p.poll(Duration::ZERO);
        }
    }
    p.flush(Duration::from_secs(60)).unwrap();
    let reports = got.lock().unwrap().clone();
    assert_eq!(reports.len(), n);
    assert!(
        reports.iter().all(|r| r.error.is_none()),
        "{:?}",
        reports.iter().find(|r| r.error.is_some())
    );
    assert!(
        px.connections.load(std::sync::atomic::Ordering::SeqCst) > 3,
        "connections were cut and remade"
    );
    let msgs = read_all(&common::config(&[]), &topic, 3, n + 1);
    // every value stored more than once, with its partition and offsets
    let mut at: std::collections::BTreeMap<&[u8], Vec<(i32, i64)>> = Default::default();
    for m in &msgs {
        at.entry(m.value.as_deref().unwrap())
            .or_default()
            .push((m.partition, m.offset));
    }
    let dups: Vec<_> = at
        .iter()
        .filter(|(_, o)| o.len() > 1)
        .map(|(v, o)| (String::from_utf8_lossy(v), o))
        .collect();
    assert_eq!(msgs.len(), n, "no duplicates: {dups:?}");
    for part in 0..3 {
        let values: Vec<usize> = msgs
            .iter()
            .filter(|m| m.partition == part)
            .map(|m| {
                std::str::from_utf8(m.value.as_deref().unwrap())
                    .unwrap()
                    .parse()
                    .unwrap()
            })
            .collect();
        let want: Vec<usize> = (0..n).filter(|i| i % 3 == part as usize).collect();
        assert_eq!(
            values, want,
            "partition {part}: every message once, in order"
        );
    }
}

#[test]
fn close_returns_within_its_timeout_with_the_broker_gone() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("gone");
    common::create_topic(&topic, 1);
    let alive = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let a2 = alive.clone();
    let px = proxy::start(&common::broker(), move |_, key| {
        if key == 0 && !a2.load(std::sync::atomic::Ordering::SeqCst) {
            Verdict::Cut
        } else {
            Verdict::Forward
        }
    });
    let mut cfg = common::config(&[("linger.ms", "5")]);
    cfg.set("bootstrap.servers", &px.addr).unwrap();
    let p = Producer::new(&cfg).unwrap();
    let got = collect_reports(&p);
    p.send_sync(
        &ProducerRecord {
            topic: &topic,
            partition: Some(0),
            value: Some(b"ok"),
            ..Default::default()
        },
        Some(T),
    )
    .unwrap();
    alive.store(false, std::sync::atomic::Ordering::SeqCst);
    for i in 0..100 {
        p.send(
            &ProducerRecord {
                topic: &topic,
                partition: Some(0),
                value: Some(b"lost"),
                ..Default::default()
            },
            i,
        )
        .unwrap();
    }
    let t = Instant::now();
    p.close(Duration::from_millis(500));
    assert!(
        t.elapsed() < Duration::from_secs(2),
        "close took {:?}",
        t.elapsed()
    );
    let reports = got.lock().unwrap().clone();
    assert_eq!(reports.len(), 100, "every message gets a report");
    assert!(reports.iter().all(|r| r.error.is_some()));
}

#[test]
fn transactions_commit_and_abort_leave_the_right_markers_in_the_log() {
    if !common::broker_up() {
        return;
    }
    let tansu = common::tansu::Tansu::start();
    let base = |extra: &[(&str, &str)]| {
        let mut c = Config::from_pairs([("bootstrap.servers", tansu.addr.as_str())]).unwrap();
        for (k, v) in extra {
            c.set(k, v).unwrap();
        }
        c
    };
    let topic = common::unique_topic("txn");
    let p = Producer::new(&base(&[("transactional.id", "gregor-test-txn")])).unwrap();
    // sends outside a transaction are refused
    let rec = |v: &'static [u8]| ProducerRecord {
        topic: &topic,
        partition: Some(0),
        value: Some(v),
        ..Default::default()
    };
    assert_eq!(p.send(&rec(b"early"), 0).unwrap_err().code(), local::STATE);
    p.init_transactions(T).unwrap();
    p.begin_transaction().unwrap();
    p.send(&rec(b"committed-1"), 1).unwrap();
    p.send(&rec(b"committed-2"), 2).unwrap();
    p.send_offsets_to_transaction(&[(&topic, 0, 42)], "gregor-txn-group", T)
        .unwrap();
    p.commit_transaction(T).unwrap();
    p.begin_transaction().unwrap();
    p.send(&rec(b"aborted"), 3).unwrap();
    p.flush(T).unwrap();
    p.abort_transaction(T).unwrap();
    p.begin_transaction().unwrap();
    p.send(&rec(b"committed-3"), 4).unwrap();
    p.commit_transaction(T).unwrap();

    // What the broker stored: each transaction's batches flagged
    // transactional under our producer id, each closed by its COMMIT or ABORT
    // marker. (This broker returns no aborted-transactions list in Fetch, so
    // a read_committed consumer — librdkafka's too — cannot filter here; the
    // consumer's read_committed filtering is tested on independent bytes.)
    let log = raw_log(&tansu.addr, &topic);
    let want = [
        ("data", "committed-1"),
        ("data", "committed-2"),
        ("marker", "Commit"),
        ("data", "aborted"),
        ("marker", "Abort"),
        ("data", "committed-3"),
        ("marker", "Commit"),
    ];
    let got: Vec<(&str, String)> = log.iter().map(|(k, v, _)| (*k, v.clone())).collect();
    assert_eq!(
        got,
        want.iter()
            .map(|(k, v)| (*k, v.to_string()))
            .collect::<Vec<_>>()
    );
    let pids: HashSet<i64> = log.iter().map(|(_, _, pid)| *pid).collect();
    assert_eq!(pids.len(), 1, "one producer id throughout");
    assert!(pids.iter().all(|p| *p >= 0));
    // the offsets sent within the committed transaction are the group's now
    assert_eq!(
        committed_offset(&tansu.addr, "gregor-txn-group", &topic, 0),
        42
    );
}

fn committed_offset(addr: &str, group: &str, topic: &str, partition: i32) -> i64 {
    use gregor::cluster::Cluster;
    use gregor::protocol::offset_fetch::{OffsetFetchRequest, OffsetFetchRequestTopic};
    let cl = Cluster::new(&Config::from_pairs([("bootstrap.servers", addr)]).unwrap()).unwrap();
    let conn = cl.coordinator(group, 0, T).unwrap();
    let mut t = OffsetFetchRequestTopic::default();
    t.name = topic.to_string();
    t.partition_indexes = vec![partition];
    let mut req = OffsetFetchRequest::default();
    req.group_id = group.to_string();
    req.topics = Some(vec![t]);
    // ask at v7 at most: the single-group form
    let deadline = Instant::now() + T;
    let v = conn.apis(deadline).unwrap().pick(9, 1, 7).unwrap();
    let resp = conn
        .send_at(&req, v, deadline)
        .unwrap()
        .wait_until(deadline)
        .unwrap();
    resp.topics[0].partitions[0].committed_offset
}

/// Every record of partition 0 as (kind, value or marker type, producer id),
/// fetched read_uncommitted with control batches kept.
fn raw_log(addr: &str, topic: &str) -> Vec<(&'static str, String, i64)> {
    use gregor::cluster::{Cluster, Purpose};
    use gregor::protocol::fetch::{FetchPartition, FetchRequest, FetchTopic};
    use gregor::record::{DecodeOptions, RecordsReader};
    let cl = Cluster::new(&Config::from_pairs([("bootstrap.servers", addr)]).unwrap()).unwrap();
    let info = cl.topic(topic, false, T).unwrap();
    let conn = cl.conn(info.partitions[0].leader, Purpose::Fetch).unwrap();
    let mut fp = FetchPartition::default();
    fp.partition_max_bytes = 1 << 20;
    let mut ft = FetchTopic::default();
    ft.topic = topic.to_string();
    ft.topic_id = info.id;
    ft.partitions = vec![fp];
    let mut req = FetchRequest::default();
    req.replica_id = -1;
    req.max_wait_ms = 100;
    req.min_bytes = 1;
    req.topics = vec![ft];
    let resp = conn.call(&req, Some(T)).unwrap();
    let records = resp.responses[0].partitions[0].records.clone().unwrap();
    let mut out = Vec::new();
    for b in RecordsReader::new(&records, DecodeOptions::default()) {
        let b = b.unwrap();
        assert!(
            b.is_transactional,
            "every batch of a transactional producer is flagged"
        );
        if b.is_control {
            let kind = format!("{:?}", b.control_record().unwrap().unwrap().kind);
            out.push(("marker", kind, b.producer_id));
        } else {
            for r in &b.records {
                out.push((
                    "data",
                    String::from_utf8(r.value.as_deref().unwrap().to_vec()).unwrap(),
                    b.producer_id,
                ));
            }
        }
    }
    out
}

#[test]
fn transactions_refused_by_the_broker_are_a_fatal_typed_error() {
    if !common::broker_up() {
        return;
    }
    // nisshi answers TRANSACTIONAL_ID_AUTHORIZATION_FAILED (docs/TEST-SERVICES.md)
    let p = Producer::new(&common::config(&[("transactional.id", "gregor-refused")])).unwrap();
    let e = p.init_transactions(T).unwrap_err();
    assert_eq!(
        e.kafka_code(),
        Some(gregor::protocol::KafkaCode::TRANSACTIONAL_ID_AUTHORIZATION_FAILED),
        "{e}"
    );
    // fatal: later calls fail the same way
    assert!(p.begin_transaction().is_err());
}

/// An `init_transactions` that timed out goes on getting its producer id:
/// until it succeeds, the other transactional calls fail with `_CONFLICT`
/// (retriable, not requiring an abort), as librdkafka's "in progress"
/// answer; a call with `init_transactions` never made is `_STATE`.
#[test]
fn transactional_calls_during_an_unfinished_init_are_conflicts() {
    // a port nothing listens on: the producer id never arrives
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut cfg = Config::new();
    cfg.set("bootstrap.servers", &format!("127.0.0.1:{port}"))
        .unwrap();
    cfg.set("transactional.id", "conflict-test").unwrap();
    let p = Producer::new(&cfg).unwrap();
    let e = p.begin_transaction().unwrap_err();
    assert_eq!(e.code(), local::STATE, "{e}");
    let e = p.init_transactions(Duration::from_millis(300)).unwrap_err();
    assert_eq!(e.code(), local::TIMED_OUT, "{e}");
    for e in [
        p.begin_transaction().unwrap_err(),
        p.commit_transaction(Duration::from_millis(100))
            .unwrap_err(),
        p.abort_transaction(Duration::from_millis(100)).unwrap_err(),
        p.send_offsets_to_transaction(&[("t", 0, 1)], "g", Duration::from_millis(100))
            .unwrap_err(),
    ] {
        assert_eq!(e.code(), local::CONFLICT, "{e}");
        let flags = p.txn_error_flags(&e);
        assert!(
            flags.retriable && !flags.fatal && !flags.txn_requires_abort,
            "{e}"
        );
    }
}

/// A producer without brokers (`bootstrap.servers` empty, librdkafka's
/// "local mode") whose messages wait for a partition count is dropped at
/// once: the messages fail with `_DESTROY` and the wait for a broker to
/// ask ends with the client (librdkafka's `rd_kafka_destroy` does not
/// wait for them either).
#[test]
fn a_producer_without_brokers_is_dropped_at_once() {
    let cfg = Config::from_pairs([("bootstrap.servers", "")]).unwrap();
    let p = Producer::new(&cfg).unwrap();
    let failed = Arc::new(Mutex::new(Vec::new()));
    let f = failed.clone();
    p.set_delivery_callback(Some(Box::new(move |dr: &DeliveryReport| {
        f.lock().unwrap().push(dr.error.as_ref().map(|e| e.code()));
    })));
    let rec = ProducerRecord {
        topic: "no_brokers",
        partition: None,
        key: None,
        value: Some(b"v"),
        headers: &[],
        timestamp: None,
    };
    for _ in 0..10 {
        p.send(&rec, 0).unwrap();
    }
    // the sender is asking for the topic's metadata by now
    std::thread::sleep(Duration::from_millis(100));
    let t = Instant::now();
    drop(p);
    let took = t.elapsed();
    assert!(took < Duration::from_millis(200), "drop took {took:?}");
    assert_eq!(*failed.lock().unwrap(), vec![Some(local::DESTROY); 10]);
}
