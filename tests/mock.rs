//! gregor's own mock cluster (`gregor::mock`): gregor's producer, consumer
//! group and transactions round-trip on it; the control API (leader moves,
//! broker down/up, injected errors, version caps, request tracking) does
//! what it says; Produce's sequence checks answer as Kafka does, seen with
//! raw requests; `test.mock.num.brokers` gives a client a private cluster.
//!
//!     cargo test --test mock

mod common;

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use gregor::compression::Codec;
use gregor::config::Config;
use gregor::consumer::{Consumer, TopicPartitionOffset as Tpo};
use gregor::message::{offset, ProducerRecord};
use gregor::mock::Cluster;
use gregor::producer::Producer;
use gregor::protocol::api_versions::ApiVersionsRequest;
use gregor::protocol::produce::{PartitionProduceData, ProduceRequest, TopicProduceData};
use gregor::protocol::{decode_response, encode_request, Request};
use gregor::record::batch::RecordBatchBuilder;
use gregor::wire::{Reader, Writer};

fn config(bootstrap: &str, extra: &[(&str, &str)]) -> Config {
    let mut c = Config::from_pairs([("bootstrap.servers", bootstrap)]).unwrap();
    for (k, v) in extra {
        c.set(k, v).unwrap();
    }
    c
}

fn cluster() -> Cluster {
    Cluster::builder()
        .brokers(3)
        .group_initial_rebalance_delay(Duration::from_millis(50))
        .build()
        .unwrap()
}

fn send(p: &Producer, topic: &str, key: &str, value: &str) {
    p.send_sync(
        &ProducerRecord {
            topic,
            partition: None,
            key: Some(key.as_bytes()),
            value: Some(value.as_bytes()),
            headers: &[],
            timestamp: None,
        },
        Some(Duration::from_secs(20)),
    )
    .unwrap();
}

/// Polls `c` until `n` messages came (or 20 s), then 300 ms more for extras.
fn poll_n(c: &Consumer, n: usize) -> Vec<(i32, i64, String, String)> {
    common::poll_messages(c, n, Duration::from_millis(300))
        .into_iter()
        .map(|m| {
            (
                m.partition,
                m.offset,
                String::from_utf8_lossy(m.key.as_deref().unwrap_or_default()).into_owned(),
                String::from_utf8_lossy(m.value.as_deref().unwrap_or_default()).into_owned(),
            )
        })
        .collect()
}

#[test]
fn gregor_producer_and_consumer_group_round_trip() {
    let mc = cluster();
    let bs = mc.bootstrap_servers();
    mc.create_topic("mock-rt", 3, 2).unwrap();
    let p = Producer::new(&config(
        &bs,
        &[("enable.idempotence", "true"), ("compression.codec", "lz4")],
    ))
    .unwrap();
    for i in 0..300 {
        send(&p, "mock-rt", &format!("k{}", i % 10), &i.to_string());
    }
    p.flush(Duration::from_secs(10)).unwrap();
    let hw: i64 = (0..3)
        .map(|i| mc.high_watermark("mock-rt", i).unwrap())
        .sum();
    assert_eq!(hw, 300, "high watermarks add up to what was sent");

    let group = [("group.id", "mock-rt-g"), ("auto.offset.reset", "earliest")];
    let c = Consumer::new(&config(&bs, &group)).unwrap();
    c.subscribe(&["mock-rt"]).unwrap();
    let got = poll_n(&c, 300);
    assert_eq!(got.len(), 300, "every message read exactly once");
    // Each key's values in the order they were sent.
    let mut by_key: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    for (_, _, k, v) in &got {
        by_key
            .entry(k.clone())
            .or_default()
            .push(v.parse().unwrap());
    }
    for (k, vs) in &by_key {
        assert!(
            vs.windows(2).all(|w| w[0] < w[1]),
            "{k} out of order: {vs:?}"
        );
        assert_eq!(vs.len(), 30);
    }
    c.commit(None, Duration::from_secs(10)).unwrap();
    let committed = c
        .committed(
            &(0..3)
                .map(|i| Tpo::new("mock-rt", i, offset::INVALID))
                .collect::<Vec<_>>(),
            Duration::from_secs(10),
        )
        .unwrap();
    assert_eq!(committed.iter().map(|t| t.offset).sum::<i64>(), 300);
    c.close();
    // A new member of the group resumes from the committed offsets: nothing left.
    let c2 = Consumer::new(&config(&bs, &group)).unwrap();
    c2.subscribe(&["mock-rt"]).unwrap();
    let until = Instant::now() + Duration::from_secs(2);
    while Instant::now() < until {
        if let Some(m) = c2.poll(Duration::from_millis(50)).unwrap() {
            assert!(
                m.error.is_some(),
                "nothing after the committed offsets: {m:?}"
            );
        }
    }
    assert_eq!(
        c2.assignment().len(),
        3,
        "the new member got every partition"
    );
    c2.close();
}

#[test]
fn gregor_transactions_commit_and_abort_on_the_mock() {
    let mc = cluster();
    let bs = mc.bootstrap_servers();
    mc.create_topic("mock-txn", 2, 1).unwrap();
    let p = Producer::new(&config(&bs, &[("transactional.id", "mock-txn-1")])).unwrap();
    p.init_transactions(Duration::from_secs(10)).unwrap();
    p.begin_transaction().unwrap();
    for i in 0..4 {
        p.send(
            &ProducerRecord {
                topic: "mock-txn",
                partition: Some(i % 2),
                key: None,
                value: Some(format!("c{i}").as_bytes()),
                headers: &[],
                timestamp: None,
            },
            0,
        )
        .unwrap();
    }
    p.commit_transaction(Duration::from_secs(10)).unwrap();
    p.begin_transaction().unwrap();
    for i in 0..3 {
        p.send(
            &ProducerRecord {
                topic: "mock-txn",
                partition: Some(i % 2),
                key: None,
                value: Some(format!("a{i}").as_bytes()),
                headers: &[],
                timestamp: None,
            },
            0,
        )
        .unwrap();
    }
    p.flush(Duration::from_secs(10)).unwrap();
    p.abort_transaction(Duration::from_secs(10)).unwrap();
    let read = |iso: &str, n: usize| {
        let c = Consumer::new(&config(&bs, &[("isolation.level", iso)])).unwrap();
        c.assign(&[
            Tpo::new("mock-txn", 0, offset::BEGINNING),
            Tpo::new("mock-txn", 1, offset::BEGINNING),
        ])
        .unwrap();
        let mut v: Vec<String> = poll_n(&c, n).into_iter().map(|m| m.3).collect();
        v.sort();
        c.close();
        v
    };
    assert_eq!(read("read_committed", 4), ["c0", "c1", "c2", "c3"]);
    assert_eq!(read("read_uncommitted", 7).len(), 7);
    // 7 records and 2 markers per partition... 4+3 data, 2 commit + 2 abort markers.
    let hw: i64 = (0..2)
        .map(|i| mc.high_watermark("mock-txn", i).unwrap())
        .sum();
    assert_eq!(hw, 11);
}

#[test]
fn producer_follows_leader_moves_and_a_broker_restart() {
    let mc = cluster();
    let bs = mc.bootstrap_servers();
    mc.create_topic("mock-fo", 1, 3).unwrap();
    mc.set_partition_leader("mock-fo", 0, 1).unwrap();
    let dbg = std::env::var("MOCK_TEST_DEBUG").unwrap_or_default();
    let mut extra = vec![("enable.idempotence", "true")];
    if !dbg.is_empty() {
        extra.push(("debug", dbg.as_str()));
    }
    let p = Producer::new(&config(&bs, &extra)).unwrap();
    mc.start_request_tracking();
    for i in 0..20 {
        send(&p, "mock-fo", "k", &i.to_string());
    }
    mc.set_partition_leader("mock-fo", 0, 2).unwrap();
    for i in 20..40 {
        send(&p, "mock-fo", "k", &i.to_string());
    }
    mc.broker_down(2).unwrap();
    assert!(
        TcpStream::connect(mc.bootstrap_servers().split(',').nth(1).unwrap()).is_err(),
        "a broker that is down refuses connections"
    );
    // The leader is down: the producer retries until it is back up.
    std::thread::scope(|s| {
        s.spawn(|| {
            for i in 40..50 {
                send(&p, "mock-fo", "k", &i.to_string());
            }
        });
        std::thread::sleep(Duration::from_millis(500));
        mc.broker_up(2).unwrap();
    });
    mc.set_partition_leader("mock-fo", 0, 3).unwrap();
    for i in 50..60 {
        send(&p, "mock-fo", "k", &i.to_string());
    }
    mc.push_request_errors(0, &[6, 6]); // NOT_LEADER_OR_FOLLOWER twice
    for i in 60..80 {
        send(&p, "mock-fo", "k", &i.to_string());
    }
    let produce_brokers: std::collections::BTreeSet<i32> = mc
        .requests()
        .iter()
        .filter(|r| r.api_key == 0)
        .map(|r| r.broker)
        .collect();
    assert_eq!(produce_brokers.into_iter().collect::<Vec<_>>(), [1, 2, 3]);
    assert_eq!(
        mc.high_watermark("mock-fo", 0).unwrap(),
        80,
        "no duplicates, nothing lost"
    );
    let c = Consumer::new(&config(&bs, &[])).unwrap();
    c.assign(&[Tpo::new("mock-fo", 0, offset::BEGINNING)])
        .unwrap();
    let vals: Vec<u32> = poll_n(&c, 80)
        .into_iter()
        .map(|m| m.3.parse().unwrap())
        .collect();
    assert_eq!(vals, (0..80).collect::<Vec<u32>>());
}

#[test]
fn test_mock_num_brokers_gives_a_client_its_own_cluster() {
    let cfg = Config::from_pairs([("test.mock.num.brokers", "2")]).unwrap();
    let p = Producer::new(&cfg).unwrap();
    let mc = p.cluster().mock_cluster().expect("a private mock cluster");
    assert_eq!(mc.broker_ids(), [1, 2]);
    send(&p, "mock-private", "k", "v"); // auto-created on the mock
    let hw: i64 = (0..4)
        .map(|i| mc.high_watermark("mock-private", i).unwrap())
        .sum();
    assert_eq!(hw, 1);
}

/// One raw request/response exchange with a broker.
fn exchange<R: Request>(s: &mut TcpStream, v: i16, req: &R) -> Option<R::Response> {
    let mut w = Writer::new();
    encode_request(&mut w, 7, Some("raw"), v, req).unwrap();
    s.write_all(w.as_slice()).unwrap();
    let mut size = [0u8; 4];
    s.read_exact(&mut size).ok()?;
    let mut buf = vec![0u8; i32::from_be_bytes(size) as usize];
    s.read_exact(&mut buf).ok()?;
    let (h, resp) = decode_response::<R>(&mut Reader::new(&buf), v).unwrap();
    assert_eq!(h.correlation_id, 7);
    Some(resp)
}

fn produce_seq(s: &mut TcpStream, pid: i64, epoch: i16, seq: i32, n: usize) -> (i16, i64) {
    let mut b = RecordBatchBuilder::new().producer(pid, epoch, seq);
    for i in 0..n {
        b.append(1, None, Some(format!("v{i}").as_bytes()), &[])
            .unwrap();
    }
    let mut part = PartitionProduceData::default();
    part.index = 0;
    part.records = Some(b.finish(Codec::None, None).unwrap().into());
    let mut topic = TopicProduceData::default();
    topic.name = "mock-seq".into();
    topic.partition_data = vec![part];
    let mut req = ProduceRequest::default();
    req.acks = -1;
    req.timeout_ms = 5000;
    req.topic_data = vec![topic];
    let r = exchange(s, 9, &req).unwrap();
    let p = &r.responses[0].partition_responses[0];
    (p.error_code, p.base_offset)
}

#[test]
fn produce_sequence_checks_answer_as_kafka() {
    let mc = Cluster::new(1).unwrap();
    mc.create_topic("mock-seq", 1, 1).unwrap();
    let mut s = TcpStream::connect(mc.bootstrap_servers()).unwrap();
    assert_eq!(produce_seq(&mut s, 5, 0, 0, 2), (0, 0));
    assert_eq!(produce_seq(&mut s, 5, 0, 2, 2), (0, 2));
    // A retry of the last batch: acknowledged again at its offset, not appended.
    assert_eq!(produce_seq(&mut s, 5, 0, 2, 2), (0, 2));
    // A gap: OUT_OF_ORDER_SEQUENCE_NUMBER.
    assert_eq!(produce_seq(&mut s, 5, 0, 9, 1).0, 45);
    for seq in (4..14).step_by(2) {
        assert_eq!(produce_seq(&mut s, 5, 0, seq, 2).0, 0);
    }
    // Older than the five batches remembered: DUPLICATE_SEQUENCE_NUMBER.
    assert_eq!(produce_seq(&mut s, 5, 0, 0, 2).0, 46);
    // An old epoch is fenced; a new epoch must start at sequence 0.
    assert_eq!(produce_seq(&mut s, 5, 1, 3, 1).0, 45);
    assert_eq!(produce_seq(&mut s, 5, 1, 0, 1), (0, 14));
    assert_eq!(produce_seq(&mut s, 5, 0, 14, 1).0, 47);
    assert_eq!(mc.high_watermark("mock-seq", 0).unwrap(), 15);
}

#[test]
fn api_versions_caps_and_unserved_apis() {
    let mc = Cluster::new(1).unwrap();
    mc.set_api_version(3, 0, 4).unwrap();
    assert!(
        mc.set_api_version(4, 0, 1).is_err(),
        "LeaderAndIsr is not served"
    );
    let mut s = TcpStream::connect(mc.bootstrap_servers()).unwrap();
    let r = exchange(&mut s, 3, &ApiVersionsRequest::default()).unwrap();
    assert_eq!(r.error_code, 0);
    let md = r.api_keys.iter().find(|k| k.api_key == 3).unwrap();
    assert_eq!((md.min_version, md.max_version), (0, 4));
    assert!(
        r.api_keys.iter().all(|k| k.api_key != 4),
        "unserved APIs are not advertised"
    );
    // A version above the cap closes the connection, as Kafka does.
    let md_req = gregor::protocol::metadata::MetadataRequest::default();
    assert!(exchange(&mut s, 9, &md_req).is_none());
    // ApiVersions above what is served: v0 answer with UNSUPPORTED_VERSION (KIP-511).
    let mut s = TcpStream::connect(mc.bootstrap_servers()).unwrap();
    let mut w = Writer::new();
    w.i32(10);
    w.i16(18);
    w.i16(99);
    w.i32(1);
    w.i16(-1);
    s.write_all(w.as_slice()).unwrap();
    let mut size = [0u8; 4];
    s.read_exact(&mut size).unwrap();
    let mut buf = vec![0u8; i32::from_be_bytes(size) as usize];
    s.read_exact(&mut buf).unwrap();
    let (_, r) = decode_response::<ApiVersionsRequest>(&mut Reader::new(&buf), 0).unwrap();
    assert_eq!(r.error_code, 35);
    assert!(!r.api_keys.is_empty());
}

#[test]
fn incremental_fetch_sessions_carry_only_what_changed() {
    use gregor::protocol::fetch::{FetchPartition, FetchRequest, FetchTopic};
    let mc = Cluster::new(1).unwrap();
    mc.create_topic("mock-seq", 2, 1).unwrap();
    let mut s = TcpStream::connect(mc.bootstrap_servers()).unwrap();
    let fetch = |s: &mut TcpStream, id: i32, epoch: i32, parts: &[(i32, i64)]| {
        let mut req = FetchRequest::default();
        req.max_wait_ms = 10;
        req.min_bytes = 1;
        req.session_id = id;
        req.session_epoch = epoch;
        if !parts.is_empty() {
            let mut t = FetchTopic::default();
            t.topic = "mock-seq".into();
            t.partitions = parts
                .iter()
                .map(|&(p, off)| {
                    let mut fp = FetchPartition::default();
                    fp.partition = p;
                    fp.fetch_offset = off;
                    fp.partition_max_bytes = 1 << 20;
                    fp
                })
                .collect();
            req.topics = vec![t];
        }
        let r = exchange(s, 12, &req).unwrap();
        let parts: Vec<(i32, i64, usize)> = r
            .responses
            .iter()
            .flat_map(|t| t.partitions.iter())
            .map(|p| {
                (
                    p.partition_index,
                    p.high_watermark,
                    p.records.as_ref().map_or(0, |r| r.len()),
                )
            })
            .collect();
        (r.error_code, r.session_id, parts)
    };
    // A new session: every partition in the answer.
    let (e, id, parts) = fetch(&mut s, 0, 0, &[(0, 0), (1, 0)]);
    assert_eq!((e, parts.len()), (0, 2));
    assert_ne!(id, 0, "a session was created");
    // Nothing changed: an empty incremental answer.
    let (e, id2, parts) = fetch(&mut s, id, 1, &[]);
    assert_eq!((e, id2, parts.len()), (0, id, 0));
    // Partition 0 gets a record: only it is in the next answer, with the data.
    let mut p = TcpStream::connect(mc.bootstrap_servers()).unwrap();
    assert_eq!(produce_seq(&mut p, -1, -1, -1, 1).0, 0);
    let (e, _, parts) = fetch(&mut s, id, 2, &[]);
    assert_eq!(e, 0);
    assert_eq!(parts.len(), 1);
    assert_eq!((parts[0].0, parts[0].1), (0, 1));
    assert!(parts[0].2 > 0, "the record came");
    // The client moves its offset: nothing new to send.
    let (_, _, parts) = fetch(&mut s, id, 3, &[(0, 1)]);
    assert!(parts.is_empty(), "{parts:?}");
    // A wrong epoch, an unknown session.
    assert_eq!(fetch(&mut s, id, 9, &[]).0, 71);
    assert_eq!(fetch(&mut s, id + 1, 1, &[]).0, 70);
    // Epoch -1 closes the session: a full answer without one.
    let (e, id3, parts) = fetch(&mut s, id, -1, &[(0, 0), (1, 0)]);
    assert_eq!((e, id3, parts.len()), (0, 0, 2));
    assert_eq!(fetch(&mut s, id, 4, &[]).0, 70);
}

/// KIP-392: with a follower named, the leader sends a consumer that gives
/// its rack (`client.rack`) there, and it reads everything from it; a
/// consumer without a rack reads from the leader only. Each request's time
/// is recorded, in order.
#[test]
fn preferred_read_replica_is_named_to_a_consumer_with_a_rack_only() {
    let mc = cluster();
    let bs = mc.bootstrap_servers();
    mc.create_topic("mock-ffr", 1, 3).unwrap();
    mc.set_partition_leader("mock-ffr", 0, 1).unwrap();
    let p = Producer::new(&config(&bs, &[])).unwrap();
    for i in 0..10 {
        send(&p, "mock-ffr", "k", &i.to_string());
    }
    mc.set_partition_follower("mock-ffr", 0, 2).unwrap();
    assert!(mc.set_partition_follower("mock-ffr", 0, 9).is_err());
    assert!(mc.set_partition_follower("mock-ffr", 5, 2).is_err());
    mc.start_request_tracking();
    for rack in ["", "rack2"] {
        mc.clear_requests();
        let mut extra = vec![("enable.auto.commit", "false")];
        if !rack.is_empty() {
            extra.push(("client.rack", rack));
        }
        let c = Consumer::new(&config(&bs, &extra)).unwrap();
        c.assign(&[Tpo::new("mock-ffr", 0, offset::BEGINNING)])
            .unwrap();
        let got = poll_n(&c, 10);
        c.close();
        let values: Vec<String> = got.into_iter().map(|m| m.3).collect();
        let expected: Vec<String> = (0..10).map(|i| i.to_string()).collect();
        assert_eq!(values, expected, "rack {rack:?}");
        let reqs = mc.requests();
        let fetches = |b: i32| {
            reqs.iter()
                .filter(|r| r.api_key == 1 && r.broker == b)
                .count()
        };
        println!(
            "client.rack {rack:?}: Fetch requests to the leader {}, to the follower {}",
            fetches(1),
            fetches(2)
        );
        if rack.is_empty() {
            assert!(fetches(1) >= 1 && fetches(2) == 0, "{reqs:?}");
        } else {
            assert!(fetches(2) >= 1 && fetches(1) <= 5, "{reqs:?}");
        }
        assert!(reqs.windows(2).all(|w| w[0].at <= w[1].at), "{reqs:?}");
    }
}
