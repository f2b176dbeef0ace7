//! The consumer against the real broker (scripts/services.sh): assign,
//! seek, pause and resume, watermarks and offsets for times, fetch settings,
//! every codec, committed offsets, connection cuts, unknown topics,
//! transactions (tansu), the C API and `gregor -C` against kcat. What the
//! broker cannot show runs against a scripted broker in
//! tests/consumer_scripted.rs.

mod common;
#[path = "consumer_support/helpers.rs"]
mod helpers;

use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use gregor::config::Config;
use gregor::consumer::{Consumer, TopicPartitionOffset as Tpo};
use gregor::error::local;
use gregor::message::offset;
use helpers::*;

// ---------------------------------------------------------------------------
// Against the real broker

#[path = "consumer_support/recording.rs"]
mod recording;

use gregor::message::ProducerRecord;
use gregor::producer::Producer;

fn producer(extra: &[(&str, &str)]) -> Producer {
    Producer::new(&common::config(extra)).unwrap()
}

/// Produces `values` to one partition, one request each; returns their offsets.
fn produce(p: &Producer, topic: &str, partition: i32, values: &[String]) -> Vec<i64> {
    values
        .iter()
        .map(|v| {
            p.send_sync(
                &ProducerRecord {
                    topic,
                    partition: Some(partition),
                    value: Some(v.as_bytes()),
                    ..Default::default()
                },
                Some(T),
            )
            .unwrap()
            .offset
        })
        .collect()
}

fn named(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}{i}")).collect()
}

fn consumer(extra: &[(&str, &str)]) -> Consumer {
    Consumer::new(&common::config(extra)).unwrap()
}

/// `poll_batch`: at most `max` at a time, in offset order per partition,
/// every message once, the first waiting up to the timeout and an empty
/// batch when nothing comes; a per-partition event arrives among them.
#[test]
fn poll_batch_takes_what_is_ready_in_order_up_to_max() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("poll-batch");
    common::create_topic(&topic, 2);
    let p = producer(&[("linger.ms", "5")]);
    for part in 0..2 {
        let values = named(&format!("p{part}-"), 150);
        for v in &values {
            p.send(
                &ProducerRecord {
                    topic: &topic,
                    partition: Some(part),
                    value: Some(v.as_bytes()),
                    ..Default::default()
                },
                0,
            )
            .unwrap();
        }
    }
    p.flush(T).unwrap();
    let c = consumer(&[("enable.partition.eof", "true")]);
    c.assign(&[
        Tpo::new(&topic, 0, offset::BEGINNING),
        Tpo::new(&topic, 1, offset::BEGINNING),
    ])
    .unwrap();
    let mut next = [0i64; 2];
    let mut eofs = 0;
    let mut out = std::collections::VecDeque::new();
    let deadline = Instant::now() + T;
    while (next != [150, 150] || eofs < 2) && Instant::now() < deadline {
        let n = c.poll_batch(Duration::from_secs(1), 64, &mut out).unwrap();
        assert!(n <= 64, "{n} in one batch of at most 64");
        assert_eq!(n, out.len());
        for m in out.drain(..) {
            if let Some(e) = &m.error {
                assert_eq!(e.code(), local::PARTITION_EOF, "{e}");
                eofs += 1;
                continue;
            }
            let part = m.partition as usize;
            assert_eq!(m.offset, next[part], "partition {part} out of order");
            let want = format!("p{part}-{}", next[part]);
            assert_eq!(m.value.as_deref(), Some(want.as_bytes()));
            next[part] += 1;
        }
    }
    assert_eq!(next, [150, 150]);
    assert!(eofs >= 2, "{eofs} end-of-partition events");
    let t0 = Instant::now();
    assert_eq!(
        c.poll_batch(Duration::from_millis(300), 64, &mut out)
            .unwrap(),
        0
    );
    assert!(
        t0.elapsed() >= Duration::from_millis(250),
        "returned before its timeout"
    );
}

/// librdkafka's 0051_assign_adds: three assigns in a row, each the last
/// one's partitions and one more (three topics), then every message once;
/// then an assign without the second topic, and nothing again.
#[test]
fn assigns_that_restate_partitions_deliver_each_message_once() {
    if !common::broker_up() {
        return;
    }
    let topics: Vec<String> = (0..3)
        .map(|_| common::unique_topic("assign-adds"))
        .collect();
    let p = producer(&[]);
    for t in &topics {
        common::create_topic(t, 1);
        produce(&p, t, 0, &named(&format!("{t}-"), 33));
    }
    let c = consumer(&[
        ("group.id", &common::unique_topic("assign-adds-group")),
        ("auto.offset.reset", "earliest"),
    ]);
    for n in 1..=3 {
        let tps: Vec<Tpo> = topics[..n]
            .iter()
            .map(|t| Tpo::new(t, 0, offset::INVALID))
            .collect();
        c.assign(&tps).unwrap();
    }
    let (m, _) = poll_n(&c, 99);
    assert_eq!(m.len(), 99);
    // the second topic goes; the others stay, without an offset: they go
    // on from where they are, as the Java client's and librdkafka's do
    let tps = [
        Tpo::new(&topics[0], 0, offset::INVALID),
        Tpo::new(&topics[2], 0, offset::INVALID),
    ];
    c.assign(&tps).unwrap();
    let again = poll_for(&c, Duration::from_secs(3));
    assert!(
        again.is_empty(),
        "{} messages again, first {:?} [{}] @ {}",
        again.len(),
        again.first().map(|m| m.topic.to_string()),
        again.first().map_or(-1, |m| m.partition),
        again.first().map_or(-1, |m| m.offset)
    );
}

#[test]
fn assign_incremental_assign_and_unassign() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("assign");
    common::create_topic(&topic, 3);
    let p = producer(&[]);
    for part in 0..3 {
        produce(&p, &topic, part, &named(&format!("p{part}-"), 3));
    }
    let c = consumer(&[]);
    c.assign(&[Tpo::new(&topic, 0, offset::BEGINNING)]).unwrap();
    assert_eq!(values(&poll_n(&c, 3).0), ["p0-0", "p0-1", "p0-2"]);
    c.incremental_assign(&[Tpo::new(&topic, 1, 1)]).unwrap();
    let (m, _) = poll_n(&c, 2);
    assert_eq!(values(&m), ["p1-1", "p1-2"]);
    assert!(m.iter().all(|m| m.partition == 1 && *m.topic == *topic));
    let a = c.assignment();
    assert_eq!(
        a.iter()
            .map(|t| (t.partition, t.offset))
            .collect::<Vec<_>>(),
        [(0, 3), (1, 3)],
        "assignment with positions"
    );
    // bad calls change nothing
    let e = c.incremental_assign(&[Tpo::new(&topic, 1, 0)]).unwrap_err();
    assert_eq!(e.code(), local::CONFLICT, "{e}");
    let e = c
        .incremental_unassign(&[Tpo::new(&topic, 2, 0)])
        .unwrap_err();
    assert_eq!(e.code(), local::INVALID_ARG, "{e}");
    let e = c.assign(&[Tpo::new(&topic, 0, -7)]).unwrap_err();
    assert_eq!(e.code(), local::INVALID_ARG, "{e}");
    let e = c
        .assign(&[Tpo::new(&topic, 0, offset::STORED)])
        .unwrap_err();
    assert!(e.to_string().contains("group.id"), "{e}");
    assert_eq!(c.assignment().len(), 2);

    c.incremental_unassign(&[Tpo::new(&topic, 0, 0)]).unwrap();
    produce(&p, &topic, 0, &named("late0-", 1));
    produce(&p, &topic, 1, &named("late1-", 1));
    let (m, _) = poll_n(&c, 1);
    assert_eq!(values(&m), ["late1-0"]);
    assert!(
        poll_for(&c, Duration::from_millis(500)).is_empty(),
        "partition 0 is gone"
    );
    c.unassign().unwrap();
    assert!(c.assignment().is_empty());
    produce(&p, &topic, 1, &named("after-", 1));
    assert!(poll_for(&c, Duration::from_millis(500)).is_empty());
    // a whole assign replaces everything
    c.assign(&[Tpo::new(&topic, 2, offset::tail(1))]).unwrap();
    assert_eq!(values(&poll_n(&c, 1).0), ["p2-2"]);
}

#[test]
fn seek_position_pause_and_resume() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("seek");
    common::create_topic(&topic, 2);
    let p = producer(&[]);
    produce(&p, &topic, 0, &named("a", 10));
    produce(&p, &topic, 1, &named("b", 10));
    let c = consumer(&[]);
    let tp0 = Tpo::new(&topic, 0, 0);
    let tp1 = Tpo::new(&topic, 1, 0);
    c.assign(&[Tpo::new(&topic, 0, 0)]).unwrap();
    assert_eq!(
        c.position(std::slice::from_ref(&tp0))[0].offset,
        0,
        "the start offset"
    );
    let (m, _) = poll_n(&c, 4);
    assert_eq!(values(&m), ["a0", "a1", "a2", "a3"]);
    assert_eq!(
        c.position(std::slice::from_ref(&tp0))[0].offset,
        4,
        "after the last handed out"
    );
    // back
    c.seek(&topic, 0, 1).unwrap();
    assert_eq!(c.position(std::slice::from_ref(&tp0))[0].offset, 1);
    assert_eq!(values(&poll_n(&c, 2).0), ["a1", "a2"]);
    // logical seeks
    c.seek(&topic, 0, offset::END).unwrap();
    assert!(poll_for(&c, Duration::from_millis(400)).is_empty());
    assert_eq!(c.position(std::slice::from_ref(&tp0))[0].offset, 10);
    c.seek(&topic, 0, offset::tail(2)).unwrap();
    assert_eq!(values(&poll_n(&c, 2).0), ["a8", "a9"]);
    c.seek(&topic, 0, offset::BEGINNING).unwrap();
    assert_eq!(values(&poll_n(&c, 1).0), ["a0"]);
    let e = c.seek(&topic, 1, 0).unwrap_err();
    assert_eq!(e.code(), local::UNKNOWN_PARTITION, "not assigned: {e}");
    let pos = c.position(std::slice::from_ref(&tp1));
    assert_eq!(
        pos[0].error.as_ref().unwrap().code(),
        local::UNKNOWN_PARTITION
    );

    // pause partition 0 mid-way (some of it already fetched), consume 1
    c.incremental_assign(&[Tpo::new(&topic, 1, 0)]).unwrap();
    c.pause(std::slice::from_ref(&tp0)).unwrap();
    let (m, _) = poll_n(&c, 10);
    assert!(
        m.iter().all(|m| m.partition == 1),
        "only partition 1 while 0 is paused"
    );
    assert_eq!(values(&m), named("b", 10));
    assert!(poll_for(&c, Duration::from_millis(400)).is_empty());
    c.resume(std::slice::from_ref(&tp0)).unwrap();
    let (m, _) = poll_n(&c, 9);
    assert_eq!(
        values(&m),
        named("a", 10)[1..].to_vec(),
        "nothing lost or repeated"
    );
    let e = c.pause(&[Tpo::new(&topic, 5, 0)]).unwrap_err();
    assert_eq!(e.code(), local::UNKNOWN_PARTITION);
}

#[test]
fn watermarks_cached_watermarks_and_offsets_for_times() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("times");
    common::create_topic(&topic, 1);
    let p = producer(&[]);
    let base = 1_700_000_000_000i64;
    for i in 0..10i64 {
        let v = format!("t{i}");
        p.send_sync(
            &ProducerRecord {
                topic: &topic,
                partition: Some(0),
                value: Some(v.as_bytes()),
                timestamp: Some(base + i * 1000),
                ..Default::default()
            },
            Some(T),
        )
        .unwrap();
    }
    let c = consumer(&[]);
    assert_eq!(c.watermarks(&topic, 0, T).unwrap(), (0, 10));
    let q = |ts: i64| Tpo::new(&topic, 0, ts);
    let got = c
        .offsets_for_times(
            &[
                q(base + 5000),
                q(base + 5500),
                q(base - 1),
                q(base + 60_000),
            ],
            T,
        )
        .unwrap();
    let offsets: Vec<i64> = got.iter().map(|t| t.offset).collect();
    assert_eq!(offsets, [5, 6, 0, -1]);
    assert!(got.iter().all(|t| t.error.is_none()), "{got:?}");
    let bad = c
        .offsets_for_times(&[Tpo::new(&topic, 9, base)], T)
        .unwrap();
    assert!(bad[0].error.is_some(), "no partition 9: {bad:?}");

    // cached watermarks come from fetches
    c.assign(&[Tpo::new(&topic, 0, 0)]).unwrap();
    assert_eq!(
        c.cached_watermarks(&topic, 0).unwrap(),
        (offset::INVALID, offset::INVALID)
    );
    let (m, _) = poll_n(&c, 10);
    assert_eq!(m[3].timestamp, base + 3000);
    assert_eq!(
        m[3].timestamp_type,
        gregor::message::TimestampType::CreateTime
    );
    assert_eq!(c.cached_watermarks(&topic, 0).unwrap(), (0, 10));
    assert!(c.cached_watermarks(&topic, 3).is_err());
}

fn delete_records(topic: &str, before: i64) {
    use gregor::cluster::{Cluster, Purpose};
    use gregor::protocol::delete_records::*;
    let cluster = Cluster::new(&common::config(&[])).unwrap();
    let (leader, _) = cluster.leader(topic, 0, T).unwrap();
    let conn = cluster.conn(leader, Purpose::Metadata).unwrap();
    let mut part = DeleteRecordsPartition::default();
    part.partition_index = 0;
    part.offset = before;
    let mut t = DeleteRecordsTopic::default();
    t.name = topic.to_string();
    t.partitions = vec![part];
    let mut req = DeleteRecordsRequest::default();
    req.topics = vec![t];
    req.timeout_ms = 10_000;
    let resp = conn.call(&req, Some(T)).unwrap();
    let r = &resp.topics[0].partitions[0];
    assert_eq!((r.error_code, r.low_watermark), (0, before));
}

#[test]
fn auto_offset_reset_after_delete_records() {
    if !common::broker_up() {
        return;
    }
    // The broker answers OFFSET_OUT_OF_RANGE below the log start only (past
    // the end it answers empty), so the log start is moved with DeleteRecords.
    let topic = common::unique_topic("reset");
    common::create_topic(&topic, 1);
    let p = producer(&[]);
    produce(&p, &topic, 0, &named("r", 10));
    delete_records(&topic, 5);

    let c = consumer(&[("auto.offset.reset", "earliest")]);
    c.assign(&[Tpo::new(&topic, 0, 2)]).unwrap();
    let (m, events) = poll_n(&c, 5);
    assert!(events.is_empty(), "reset silently: {events:?}");
    assert_eq!(m[0].offset, 5);
    assert_eq!(values(&m), ["r5", "r6", "r7", "r8", "r9"]);

    let c = consumer(&[("auto.offset.reset", "latest")]);
    c.assign(&[Tpo::new(&topic, 0, 2)]).unwrap();
    assert!(poll_for(&c, Duration::from_millis(700)).is_empty());
    produce(&p, &topic, 0, &named("new", 1));
    let (m, _) = poll_n(&c, 1);
    assert_eq!((m[0].offset, values(&m)[0].as_str()), (10, "new0"));

    let c = consumer(&[("auto.offset.reset", "error")]);
    c.assign(&[Tpo::new(&topic, 0, 2)]).unwrap();
    let got = poll_for(&c, Duration::from_millis(1000));
    assert_eq!(
        got.len(),
        1,
        "one error, then the partition waits for a seek: {got:?}"
    );
    let e = got[0].error.as_ref().unwrap();
    assert_eq!(e.code(), local::AUTO_OFFSET_RESET, "{e}");
    assert!(e.to_string().contains("out of range"), "{e}");
    assert_eq!((got[0].offset, got[0].partition), (2, 0));
    c.seek(&topic, 0, 8).unwrap();
    assert_eq!(values(&poll_n(&c, 2).0), ["r8", "r9"]);
}

#[test]
fn fetch_settings_reach_the_broker_by_topic_id_and_prefetch_is_bounded() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("fetchcfg");
    common::create_topic(&topic, 1);
    let p = producer(&[]);
    let big: Vec<String> = (0..100)
        .map(|i| format!("{i:04}{}", "x".repeat(2000)))
        .collect();
    produce(&p, &topic, 0, &big);
    let start = |extra: &[(&str, &str)]| {
        let proxy = recording::start(&common::broker());
        let mut cfg = common::config(&[
            ("fetch.wait.max.ms", "321"),
            ("fetch.min.bytes", "7"),
            ("fetch.max.bytes", "20000"),
            ("max.partition.fetch.bytes", "20000"),
            ("isolation.level", "read_uncommitted"),
        ]);
        for (k, v) in extra {
            cfg.set(k, v).unwrap();
        }
        cfg.set("bootstrap.servers", &proxy.addr).unwrap();
        let c = Consumer::new(&cfg).unwrap();
        c.assign(&[Tpo::new(&topic, 0, 0)]).unwrap();
        (proxy, c)
    };
    // Without polling, a consumer bounded to 1 KB of queued data fetches
    // once and stops.
    let (proxy, c) = start(&[("queued.max.messages.kbytes", "1")]);
    // the first fetch (however long a loaded machine takes to send it),
    // then time for a second one that must not come
    let deadline = Instant::now() + T;
    while proxy.fetches().is_empty() {
        assert!(Instant::now() < deadline, "the consumer fetches");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(1500));
    let before = proxy.fetches();
    assert_eq!(before.len(), 1, "one fetch fills the 1 KB prefetch bound");
    let (v, f) = &before[0];
    assert_eq!(
        (f.max_wait_ms, f.min_bytes, f.max_bytes, f.isolation_level),
        (321, 7, 20000, 0)
    );
    let fp = &f.topics[0].partitions[0];
    assert_eq!((fp.partition_max_bytes, fp.fetch_offset), (20000, 0));
    assert_eq!(f.replica_id.0, -1);
    let info = c.cluster().topic(&topic, false, T).unwrap();
    assert!(*v >= 13, "the broker speaks Fetch v17: sent v{v}");
    assert_eq!(f.topics[0].topic_id.into_bytes(), info.id.0, "by topic ID");
    assert!(f.topics[0].topic.0.is_empty());
    assert_eq!(fp.current_leader_epoch, info.partitions[0].leader_epoch);
    // Polling drains it, and fetching goes on, 20000 bytes at a time.
    let (m, _) = poll_n(&c, 100);
    assert_eq!(values(&m), big);
    let after = proxy.fetches();
    assert!(
        after.len() >= 10,
        "200 KB in 20 KB fetches: {}",
        after.len()
    );

    // With the default bound (64 MB) the same idle consumer prefetches it all.
    let (proxy, c) = start(&[]);
    std::thread::sleep(Duration::from_millis(1500));
    let fetched: Vec<i64> = proxy
        .fetches()
        .iter()
        .map(|(_, f)| {
            f.topics
                .first()
                .map_or(-1, |t| t.partitions[0].fetch_offset)
        })
        .collect();
    assert!(fetched.contains(&100), "prefetched to the end: {fetched:?}");
    assert_eq!(poll_n(&c, 100).0.len(), 100);
}

#[test]
fn every_codec_in_one_response_and_message_fields() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("codecs");
    // LogAppendTime is a topic setting: a second topic has it
    common::create_topic(&topic, 1);
    let mut want = Vec::new();
    for codec in ["none", "gzip", "snappy", "lz4", "zstd"] {
        let p = producer(&[("compression.type", codec)]);
        let hs: [(&str, Option<&[u8]>); 2] = [("codec", Some(codec.as_bytes())), ("nil", None)];
        for i in 0..3 {
            let v = format!("{codec}-{i}");
            let key = format!("k{i}");
            p.send_sync(
                &ProducerRecord {
                    topic: &topic,
                    partition: Some(0),
                    key: if i == 1 { None } else { Some(key.as_bytes()) },
                    value: if i == 2 { None } else { Some(v.as_bytes()) },
                    headers: &hs,
                    timestamp: Some(1_700_000_000_000 + i),
                },
                Some(T),
            )
            .unwrap();
            want.push((codec, i));
        }
    }
    let proxy = recording::start(&common::broker());
    let mut cfg = common::config(&[]);
    cfg.set("bootstrap.servers", &proxy.addr).unwrap();
    let c = Consumer::new(&cfg).unwrap();
    c.assign(&[Tpo::new(&topic, 0, offset::BEGINNING)]).unwrap();
    let (m, events) = poll_n(&c, 15);
    assert!(events.is_empty(), "{events:?}");
    assert_eq!(m.len(), 15);
    for (msg, (codec, i)) in m.iter().zip(&want) {
        assert_eq!(*msg.topic, *topic);
        assert_eq!(msg.partition, 0);
        let key = format!("k{i}");
        assert_eq!(
            msg.key.as_deref(),
            if *i == 1 { None } else { Some(key.as_bytes()) }
        );
        let v = format!("{codec}-{i}");
        assert_eq!(
            msg.value.as_deref(),
            if *i == 2 { None } else { Some(v.as_bytes()) }
        );
        assert_eq!(msg.timestamp, 1_700_000_000_000 + i);
        assert_eq!(
            msg.timestamp_type,
            gregor::message::TimestampType::CreateTime
        );
        assert_eq!(msg.headers.len(), 2);
        assert_eq!(&*msg.headers[0].key, b"codec");
        assert_eq!(msg.headers[0].value.as_deref(), Some(codec.as_bytes()));
        assert_eq!(msg.headers[1].value, None);
    }
    assert_eq!(
        m.iter().map(|m| m.offset).collect::<Vec<_>>(),
        (0..15).collect::<Vec<_>>()
    );
    // one response held all five codecs: the second fetch starts after them
    std::thread::sleep(Duration::from_millis(300));
    let f = proxy.fetches();
    assert_eq!(f[0].1.topics[0].partitions[0].fetch_offset, 0);
    assert_eq!(
        f[1].1.topics[0].partitions[0].fetch_offset, 15,
        "{:?}",
        f[1]
    );
}

#[test]
fn uncompressed_values_borrow_the_fetched_buffer() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("zerocopy");
    common::create_topic(&topic, 1);
    let p = producer(&[]);
    produce(&p, &topic, 0, &named("value-", 3));
    let c = consumer(&[]);
    c.assign(&[Tpo::new(&topic, 0, 0)]).unwrap();
    let (m, _) = poll_n(&c, 3);
    // one produce request a record, so three batches of one fetch response:
    // their values sit a batch apart in one buffer, not in copies
    let a = m[0].value.as_deref().unwrap().as_ptr() as usize;
    let b = m[1].value.as_deref().unwrap().as_ptr() as usize;
    let d = b.wrapping_sub(a);
    assert!(
        d > 0 && d < 200,
        "values {d} bytes apart: not borrowed from one buffer"
    );
}

const COMMIT_PY: &str = r#"
import sys
from confluent_kafka import Consumer, TopicPartition
b, g, t = sys.argv[1:4]
c = Consumer({'bootstrap.servers': b, 'group.id': g, 'enable.auto.commit': False})
offs = [TopicPartition(t, int(p), int(o)) for p, o in (x.split(':') for x in sys.argv[4:])]
for r in c.commit(offsets=offs, asynchronous=False):
    assert r.error is None, r
c.close()
"#;

#[test]
fn committed_offsets_and_stored_start_offsets_without_joining_the_group() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("committed");
    common::create_topic(&topic, 2);
    let p = producer(&[]);
    produce(&p, &topic, 0, &named("a", 10));
    produce(&p, &topic, 1, &named("b", 10));
    let group = common::unique_topic("group");
    python(
        COMMIT_PY,
        &[&common::broker(), &group, &topic, "0:4", "1:7"],
    );

    let c = consumer(&[("group.id", &group)]);
    let got = c
        .committed(&[Tpo::new(&topic, 0, 0), Tpo::new(&topic, 1, 0)], T)
        .unwrap();
    assert_eq!(got.iter().map(|t| t.offset).collect::<Vec<_>>(), [4, 7]);
    assert!(got.iter().all(|t| t.error.is_none()), "{got:?}");
    // start from the committed offsets (STORED, and INVALID which means the same)
    c.assign(&[
        Tpo::new(&topic, 0, offset::STORED),
        Tpo::new(&topic, 1, offset::INVALID),
    ])
    .unwrap();
    let (m, _) = poll_n(&c, 9);
    let mut firsts: Vec<(i32, i64)> = Vec::new();
    for part in [0, 1] {
        firsts.push((part, m.iter().find(|m| m.partition == part).unwrap().offset));
    }
    assert_eq!(firsts, [(0, 4), (1, 7)]);

    // a group that committed nothing
    let other = common::unique_topic("nogroup");
    let c = consumer(&[("group.id", &other), ("auto.offset.reset", "earliest")]);
    let got = c.committed(&[Tpo::new(&topic, 0, 0)], T).unwrap();
    assert_eq!(got[0].offset, offset::INVALID);
    c.assign(&[Tpo::new(&topic, 0, offset::STORED)]).unwrap();
    assert_eq!(poll_n(&c, 1).0[0].offset, 0, "auto.offset.reset=earliest");
    let c = consumer(&[("group.id", &other), ("auto.offset.reset", "error")]);
    c.assign(&[Tpo::new(&topic, 0, offset::STORED)]).unwrap();
    let got = poll_for(&c, Duration::from_millis(1500));
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(
        got[0].error.as_ref().unwrap().code(),
        local::AUTO_OFFSET_RESET
    );

    // without a group.id there are no committed offsets to ask for
    let e = consumer(&[])
        .committed(&[Tpo::new(&topic, 0, 0)], T)
        .unwrap_err();
    assert_eq!(e.code(), local::INVALID_ARG, "{e}");
}

#[test]
fn a_connection_cut_mid_fetch_is_reported_once_and_loses_nothing() {
    if !common::broker_up() {
        return;
    }
    use common::proxy::{self, Verdict};
    let topic = common::unique_topic("cutfetch");
    common::create_topic(&topic, 1);
    let p = producer(&[]);
    produce(&p, &topic, 0, &named("c", 5));
    let cut = Arc::new(AtomicI32::new(0));
    let c2 = cut.clone();
    // cut the connection at the third Fetch
    let px = proxy::start(&common::broker(), move |_, key| {
        if key == 1 && c2.fetch_add(1, Ordering::SeqCst) == 2 {
            Verdict::Cut
        } else {
            Verdict::Forward
        }
    });
    let mut cfg = common::config(&[
        ("fetch.error.backoff.ms", "100"),
        ("fetch.wait.max.ms", "100"),
    ]);
    cfg.set("bootstrap.servers", &px.addr).unwrap();
    let c = Consumer::new(&cfg).unwrap();
    c.assign(&[Tpo::new(&topic, 0, 0)]).unwrap();
    assert_eq!(values(&poll_n(&c, 5).0), named("c", 5));
    // by now the idle fetches passed the third: produce more
    while cut.load(Ordering::SeqCst) < 3 {
        std::thread::sleep(Duration::from_millis(20));
    }
    produce(&p, &topic, 0, &named("d", 5));
    let (m, events) = poll_n(&c, 5);
    assert_eq!(values(&m), named("d", 5), "nothing lost or repeated");
    assert_eq!(events.len(), 1, "one error for the cut: {events:?}");
    assert_eq!(events[0].error.as_ref().unwrap().code(), local::TRANSPORT);
    assert!(poll_for(&c, Duration::from_millis(300)).is_empty());
}

#[test]
fn an_unknown_topic_is_reported_once_and_found_when_created() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("later");
    let c = consumer(&[
        ("fetch.error.backoff.ms", "100"),
        ("auto.offset.reset", "earliest"),
    ]);
    c.assign(&[Tpo::new(&topic, 0, offset::BEGINNING)]).unwrap();
    let got = poll_for(&c, Duration::from_millis(1000));
    assert_eq!(got.len(), 1, "reported once: {got:?}");
    let e = got[0].error.as_ref().unwrap();
    assert_eq!(e.code(), 3, "UNKNOWN_TOPIC_OR_PARTITION: {e}");
    assert_eq!((&*got[0].topic, got[0].partition), (topic.as_str(), 0));
    common::create_topic(&topic, 1);
    produce(&producer(&[]), &topic, 0, &named("x", 2));
    assert_eq!(values(&poll_n(&c, 2).0), ["x0", "x1"]);
}

/// A subscribed topic the broker does not have (and may not create) is a
/// consumer error naming it, once while it lasts, as librdkafka's
/// "Subscribed topic not available"; once created, it is consumed.
#[test]
fn a_missing_subscribed_topic_is_reported_once_and_consumed_when_created() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("sub-later");
    let c = consumer(&[
        ("group.id", &common::unique_topic("sub-later-group")),
        ("allow.auto.create.topics", "false"),
        ("topic.metadata.refresh.interval.ms", "300"),
        ("auto.offset.reset", "earliest"),
    ]);
    c.subscribe(&[&topic]).unwrap();
    // the first error, then a second of refreshes that must not repeat it
    let mut got = Vec::new();
    let until = Instant::now() + Duration::from_secs(20);
    while got.is_empty() && Instant::now() < until {
        got = poll_for(&c, Duration::from_millis(200));
    }
    got.extend(poll_for(&c, Duration::from_secs(1)));
    assert_eq!(got.len(), 1, "reported once: {got:?}");
    let e = got[0].error.as_ref().unwrap();
    assert_eq!(e.code(), 3, "UNKNOWN_TOPIC_OR_PARTITION: {e}");
    assert!(
        e.to_string().contains("Subscribed topic not available"),
        "{e}"
    );
    assert_eq!(&*got[0].topic, topic.as_str());
    common::create_topic(&topic, 1);
    produce(&producer(&[]), &topic, 0, &named("s", 2));
    assert_eq!(values(&poll_n(&c, 2).0), ["s0", "s1"]);
}

// ---------------------------------------------------------------------------
// Transactions on a real broker

#[path = "consumer_support/tansu.rs"]
mod tansu;

const TXN_PY: &str = r#"
import sys
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic
b, t = sys.argv[1], sys.argv[2]
admin = AdminClient({'bootstrap.servers': b})
for f in admin.create_topics([NewTopic(t, 1, 1)]).values():
    f.result()
p = Producer({'bootstrap.servers': b, 'transactional.id': 'tx-' + t, 'linger.ms': 0})
p.init_transactions(20)
for name, commit in [("c1", True), ("a1", False), ("c2", True)]:
    p.begin_transaction()
    for i in range(3):
        p.produce(t, value=f"{name}-{i}".encode(), partition=0)
    p.flush()
    if commit:
        p.commit_transaction(20)
    else:
        p.abort_transaction(20)
"#;

const READ_PY: &str = r#"
import sys
from confluent_kafka import Consumer, TopicPartition
b, t, level = sys.argv[1:4]
c = Consumer({'bootstrap.servers': b, 'group.id': 'ref', 'isolation.level': level,
              'enable.auto.commit': False, 'enable.partition.eof': True})
c.assign([TopicPartition(t, 0, 0)])
while True:
    m = c.poll(10)
    if m is None or m.error():
        break
    print(m.offset(), m.value().decode())
c.close()
"#;

#[test]
fn transactions_written_by_librdkafka_read_like_librdkafka_reads_them() {
    // tansu completes transactions (commit and abort markers are in the
    // log) but answers Fetch with an empty aborted-transactions list, so no
    // client can tell aborted records from committed ones there: librdkafka
    // itself returns them under read_committed. This test checks what can
    // be checked on a real broker — control records never reach the
    // application, both isolation levels read what librdkafka reads, the
    // position passes the last marker — and
    // `read_committed_drops_aborted_transactions_from_independent_bytes`
    // checks the dropping on a response that carries the list.
    let broker = tansu::start();
    let topic = "txn";
    python(TXN_PY, &[&broker.addr, topic]);
    for level in ["read_committed", "read_uncommitted"] {
        let reference: Vec<(i64, String)> = python(READ_PY, &[&broker.addr, topic, level])
            .lines()
            .map(|l| {
                let (o, v) = l.split_once(' ').unwrap();
                (o.parse().unwrap(), v.to_string())
            })
            .collect();
        assert!(reference.len() >= 6, "{reference:?}");
        let c = Consumer::new(
            &Config::from_pairs([
                ("bootstrap.servers", broker.addr.as_str()),
                ("isolation.level", level),
                ("enable.partition.eof", "true"),
            ])
            .unwrap(),
        )
        .unwrap();
        c.assign(&[Tpo::new(topic, 0, offset::BEGINNING)]).unwrap();
        let (m, events) = poll_n(&c, reference.len());
        let got: Vec<(i64, String)> = m.iter().map(|m| m.offset).zip(values(&m)).collect();
        assert_eq!(
            got, reference,
            "{level}: as librdkafka reads it; {events:?}"
        );
        // offsets 3, 7 and 11 hold the markers
        assert!(got.iter().all(|(o, _)| ![3, 7, 11].contains(o)), "{got:?}");
        let rest = poll_for(&c, Duration::from_millis(700));
        assert!(
            rest.iter().all(|m| m
                .error
                .as_ref()
                .is_some_and(|e| e.code() == local::PARTITION_EOF)),
            "{rest:?}"
        );
        assert_eq!(
            c.position(&[Tpo::new(topic, 0, 0)])[0].offset,
            12,
            "past the last marker"
        );
    }
}

// ---------------------------------------------------------------------------
// The C API

mod c_api {
    use super::*;
    use gregor::ffi::*;
    use std::ffi::{CStr, CString};
    use std::ptr;

    fn cs(s: &str) -> CString {
        CString::new(s).unwrap()
    }

    fn text(p: *const std::ffi::c_char) -> String {
        assert!(!p.is_null());
        unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_string()
    }

    fn bytes(s: gregor_slice) -> Option<Vec<u8>> {
        (!s.ptr.is_null()).then(|| unsafe { std::slice::from_raw_parts(s.ptr, s.len) }.to_vec())
    }

    fn tpl(entries: &[(&str, i32, i64)]) -> *mut gregor_tpl {
        let t = gregor_tpl_new();
        for (topic, p, o) in entries {
            assert_eq!(gregor_tpl_add(t, cs(topic).as_ptr(), *p, *o), 0);
        }
        t
    }

    /// Polls until a message (or error message) arrives.
    fn next(c: *const gregor_consumer) -> *mut gregor_message {
        for _ in 0..100 {
            let m = gregor_consumer_poll(c, 200);
            if !m.is_null() {
                return m;
            }
        }
        panic!("no message");
    }

    #[test]
    fn poll_seek_pause_positions_and_errors_through_the_c_abi() {
        if !common::broker_up() {
            return;
        }
        let topic = common::unique_topic("capi");
        common::create_topic(&topic, 2);
        let p = producer(&[]);
        for i in 0..5i64 {
            let v = format!("v{i}");
            let hs: [(&str, Option<&[u8]>); 1] = [("h", Some(b"hv"))];
            p.send_sync(
                &ProducerRecord {
                    topic: &topic,
                    partition: Some(0),
                    key: Some(b"k"),
                    value: Some(v.as_bytes()),
                    headers: &hs,
                    timestamp: Some(1_700_000_000_000 + i),
                },
                Some(T),
            )
            .unwrap();
        }
        produce(&p, &topic, 1, &named("w", 2));
        let mut err = [0 as std::ffi::c_char; 256];
        let conf = gregor_config_new();
        assert_eq!(
            gregor_config_set(
                conf,
                cs("bootstrap.servers").as_ptr(),
                cs(&common::broker()).as_ptr(),
                err.as_mut_ptr(),
                err.len()
            ),
            0
        );
        let c = gregor_consumer_new(conf, err.as_mut_ptr(), err.len());
        assert!(!c.is_null(), "{}", text(err.as_ptr()));
        let t0 = tpl(&[(&topic, 0, GREGOR_OFFSET_BEGINNING)]);
        assert_eq!(
            gregor_consumer_assign(c, t0, err.as_mut_ptr(), err.len()),
            0
        );

        let m = next(c);
        assert_eq!(
            gregor_message_err(m),
            0,
            "{}",
            text(gregor_message_errstr(m))
        );
        assert_eq!(text(gregor_message_topic(m)), topic);
        assert_eq!(gregor_message_partition(m), 0);
        assert_eq!(gregor_message_offset(m), 0);
        assert_eq!(bytes(gregor_message_key(m)).as_deref(), Some(&b"k"[..]));
        assert_eq!(bytes(gregor_message_value(m)).as_deref(), Some(&b"v0"[..]));
        let mut ts_type = -1;
        assert_eq!(gregor_message_timestamp(m, &mut ts_type), 1_700_000_000_000);
        assert_eq!(ts_type, 1, "create time");
        assert_eq!(gregor_message_header_count(m), 1);
        let (mut hn, mut hv) = (bytes_none(), bytes_none());
        assert_eq!(gregor_message_header(m, 0, &mut hn, &mut hv), 0);
        assert_eq!(
            (bytes(hn).unwrap(), bytes(hv).unwrap()),
            (b"h".to_vec(), b"hv".to_vec())
        );
        assert_eq!(text(gregor_message_errstr(m)), "");
        gregor_message_free(m);

        // position through a list filled in place
        let pos = tpl(&[(&topic, 0, 0), (&topic, 1, 0)]);
        let rc = gregor_consumer_position(c, pos, err.as_mut_ptr(), err.len());
        assert_eq!(
            rc, GREGOR_ERR__UNKNOWN_PARTITION,
            "partition 1 is not assigned"
        );
        assert_eq!((gregor_tpl_offset(pos, 0), gregor_tpl_err(pos, 0)), (1, 0));
        assert_eq!(gregor_tpl_err(pos, 1), GREGOR_ERR__UNKNOWN_PARTITION);
        let mut e = [0 as std::ffi::c_char; 128];
        assert_eq!(gregor_tpl_errstr(pos, 1, e.as_mut_ptr(), e.len()), 0);
        assert!(text(e.as_ptr()).contains("not assigned"));
        assert_eq!(text(gregor_tpl_topic(pos, 1)), topic);
        assert_eq!(gregor_tpl_partition(pos, 1), 1);
        assert!(gregor_tpl_topic(pos, 2).is_null());

        // seek back, and read on
        assert_eq!(
            gregor_consumer_seek(c, cs(&topic).as_ptr(), 0, 3, err.as_mut_ptr(), err.len()),
            0
        );
        let m = next(c);
        assert_eq!(
            (
                gregor_message_offset(m),
                bytes(gregor_message_value(m)).unwrap()
            ),
            (3, b"v3".to_vec())
        );
        gregor_message_free(m);

        // incremental assign of partition 1 while 0 is paused
        let t1 = tpl(&[(&topic, 1, 0)]);
        assert_eq!(gregor_consumer_pause(c, t0, err.as_mut_ptr(), err.len()), 0);
        assert_eq!(
            gregor_consumer_incremental_assign(c, t1, err.as_mut_ptr(), err.len()),
            0
        );
        assert_eq!(
            gregor_consumer_incremental_assign(c, t1, err.as_mut_ptr(), err.len()),
            GREGOR_ERR__CONFLICT
        );
        for want in ["w0", "w1"] {
            let m = next(c);
            assert_eq!(gregor_message_partition(m), 1);
            assert_eq!(bytes(gregor_message_value(m)).unwrap(), want.as_bytes());
            gregor_message_free(m);
        }
        assert!(
            gregor_consumer_poll(c, 300).is_null(),
            "NULL on timeout: 0 is paused"
        );
        assert_eq!(
            gregor_consumer_resume(c, t0, err.as_mut_ptr(), err.len()),
            0
        );
        let m = next(c);
        assert_eq!(gregor_message_offset(m), 4);
        gregor_message_free(m);

        let mut a = ptr::null_mut();
        assert_eq!(gregor_consumer_assignment(c, &mut a), 0);
        assert_eq!(gregor_tpl_count(a), 2);
        assert_eq!(
            (gregor_tpl_partition(a, 0), gregor_tpl_offset(a, 0)),
            (0, 5)
        );
        gregor_tpl_free(a);
        let (mut lo, mut hi) = (0i64, 0i64);
        assert_eq!(
            gregor_consumer_get_watermark_offsets(
                c,
                cs(&topic).as_ptr(),
                0,
                &mut lo,
                &mut hi,
                err.as_mut_ptr(),
                err.len()
            ),
            0
        );
        assert_eq!((lo, hi), (0, 5));

        // offsets for times and committed
        let times = tpl(&[(&topic, 0, 1_700_000_000_002)]);
        assert_eq!(
            gregor_consumer_offsets_for_times(c, times, 10_000, err.as_mut_ptr(), err.len()),
            0
        );
        assert_eq!(gregor_tpl_offset(times, 0), 2);
        let rc = gregor_consumer_committed(c, times, 10_000, err.as_mut_ptr(), err.len());
        assert_eq!(rc, GREGOR_ERR__INVALID_ARG, "no group.id");
        assert!(text(err.as_ptr()).contains("group.id"));

        // errors come as messages: a partition that does not exist
        assert_eq!(
            gregor_consumer_incremental_unassign(c, t1, err.as_mut_ptr(), err.len()),
            0
        );
        let t9 = tpl(&[(&topic, 9, 0)]);
        assert_eq!(
            gregor_consumer_incremental_assign(c, t9, err.as_mut_ptr(), err.len()),
            0
        );
        let m = next(c);
        assert_eq!(gregor_message_err(m), GREGOR_ERR__UNKNOWN_PARTITION);
        assert_eq!(gregor_message_partition(m), 9);
        assert!(text(gregor_message_errstr(m)).contains("no such partition"));
        gregor_message_free(m);

        assert_eq!(gregor_consumer_unassign(c, err.as_mut_ptr(), err.len()), 0);
        assert_eq!(gregor_consumer_close(c), 0);
        let m = gregor_consumer_poll(c, 100);
        assert_eq!(gregor_message_err(m), GREGOR_ERR__STATE, "closed");
        gregor_message_free(m);
        for t in [t0, t1, t9, pos, times] {
            gregor_tpl_free(t);
        }
        gregor_consumer_free(c);
        gregor_config_free(conf);
        // NULLs are refused, not crashed on
        assert!(gregor_consumer_poll(ptr::null(), 0).is_null());
        assert_eq!(
            gregor_consumer_seek(ptr::null(), ptr::null(), 0, 0, ptr::null_mut(), 0),
            GREGOR_ERR__INVALID_ARG
        );
        assert_eq!(gregor_tpl_offset(ptr::null(), 0), GREGOR_OFFSET_INVALID);
        assert_eq!(
            gregor_consumer_position(ptr::null(), ptr::null_mut(), ptr::null_mut(), 0),
            GREGOR_ERR__INVALID_ARG
        );
    }

    fn bytes_none() -> gregor_slice {
        gregor_slice {
            ptr: ptr::null(),
            len: 0,
        }
    }
}

#[test]
fn a_topic_deleted_and_created_again_on_the_broker_is_followed_by_its_new_id() {
    if !common::broker_up() {
        return;
    }
    use gregor::cluster::{Cluster, Purpose};
    use gregor::protocol::delete_topics::{DeleteTopicState, DeleteTopicsRequest};
    let topic = common::unique_topic("recreate");
    common::create_topic(&topic, 1);
    let p = producer(&[]);
    produce(&p, &topic, 0, &named("old", 3));
    let c = consumer(&[
        ("auto.offset.reset", "earliest"),
        ("fetch.error.backoff.ms", "100"),
    ]);
    c.assign(&[Tpo::new(&topic, 0, 0)]).unwrap();
    assert_eq!(values(&poll_n(&c, 3).0), named("old", 3));
    let old_id = c.cluster().topic(&topic, false, T).unwrap().id;

    let admin = Cluster::new(&common::config(&[])).unwrap();
    let conn = admin.any_conn(Purpose::Metadata, T).unwrap();
    let mut req = DeleteTopicsRequest::default();
    let mut st = DeleteTopicState::default();
    st.name = Some(topic.clone());
    req.topics = vec![st];
    req.topic_names = vec![topic.clone()];
    req.timeout_ms = 10_000;
    let resp = conn.call(&req, Some(T)).unwrap();
    assert_eq!(resp.responses[0].error_code, 0, "{:?}", resp.responses[0]);
    std::thread::sleep(Duration::from_millis(300));
    common::create_topic(&topic, 1);
    produce(&p, &topic, 0, &named("new", 2));

    let (m, events) = poll_n(&c, 2);
    assert_eq!(values(&m), named("new", 2), "{events:?}");
    let new_id = c.cluster().topic(&topic, false, T).unwrap().id;
    assert_ne!(old_id, new_id);
    // what the broker answered for the old ID decides what was seen on the
    // way: UNKNOWN_TOPIC_ID, or the topic missing for a while; either way
    // the application is told the topic was recreated
    assert!(
        events
            .iter()
            .any(|e| e.error.as_ref().unwrap().code() == 100),
        "{events:?}"
    );
}

// ---------------------------------------------------------------------------
// `gregor -C`, next to kcat (librdkafka) on the same topic

fn run(cmd: &str, args: &[&str], stdin: &[u8]) -> String {
    use std::io::Write;
    let mut child = std::process::Command::new(cmd)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{cmd}: {e}"));
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{cmd} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn kcat() -> String {
    let home = std::env::var("HOME").unwrap();
    format!("{home}/.local/share/gregor-deps/librdkafka/bin/kcat")
}

#[test]
fn gregor_dash_c_reads_what_kcat_writes_as_kcat_reads_it() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("cli");
    common::create_topic(&topic, 1);
    let b = common::broker();
    let gregor = env!("CARGO_BIN_EXE_gregor");
    run(
        &kcat(),
        &["-b", &b, "-t", &topic, "-P", "-K:"],
        b"k1:v1\nk2:v2\nk3:v3\n",
    );
    let fmt = "%t [%p] %o %k=%s (%K/%S)\n";
    let ours = run(
        gregor,
        &[
            "-b",
            &b,
            "-t",
            &topic,
            "-C",
            "-o",
            "beginning",
            "-e",
            "-q",
            "-f",
            fmt,
        ],
        b"",
    );
    let theirs = run(
        &kcat(),
        &[
            "-b",
            &b,
            "-t",
            &topic,
            "-C",
            "-o",
            "beginning",
            "-e",
            "-q",
            "-f",
            fmt,
        ],
        b"",
    );
    assert_eq!(ours, theirs);
    assert_eq!(
        ours,
        format!(
            "{topic} [0] 0 k1=v1 (2/2)\n{topic} [0] 1 k2=v2 (2/2)\n{topic} [0] 2 k3=v3 (2/2)\n"
        )
    );
    // tails, counts, a key delimiter, JSON
    assert_eq!(
        run(
            gregor,
            &["-b", &b, "-t", &topic, "-C", "-o", "-1", "-e", "-q"],
            b""
        ),
        "v3\n"
    );
    assert_eq!(
        run(
            gregor,
            &[
                "-b",
                &b,
                "-t",
                &topic,
                "-C",
                "-o",
                "beginning",
                "-c",
                "2",
                "-q",
                "-K",
                "\\t"
            ],
            b""
        ),
        "k1\tv1\nk2\tv2\n"
    );
    let json = run(
        gregor,
        &[
            "-b", &b, "-t", &topic, "-C", "-o", "1", "-c", "1", "-J", "-q",
        ],
        b"",
    );
    assert!(
        json.contains("\"offset\":1")
            && json.contains("\"key\":\"k2\"")
            && json.contains("\"payload\":\"v2\""),
        "{json}"
    );
    // and the other way: what gregor -P writes, kcat reads
    let topic2 = common::unique_topic("cli2");
    common::create_topic(&topic2, 1);
    run(
        gregor,
        &["-b", &b, "-t", &topic2, "-P", "-K:", "-H", "h=1"],
        b"a:x\nb:y\n",
    );
    let got = run(
        &kcat(),
        &[
            "-b",
            &b,
            "-t",
            &topic2,
            "-C",
            "-o",
            "beginning",
            "-e",
            "-q",
            "-f",
            "%k %s %h\n",
        ],
        b"",
    );
    assert_eq!(got, "a x h=1\nb y h=1\n");
    // an offset that is not one
    let out = std::process::Command::new(gregor)
        .args(["-b", &b, "-t", &topic, "-C", "-o", "soon"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not \"soon\""));
}

/// A group consumer without brokers (`bootstrap.servers` empty) closes at
/// once: its group thread, waiting for a broker to ask for the
/// subscription's metadata, is woken by the close (librdkafka's
/// 0084_destroy_flags_local times such a destroy).
#[test]
fn a_group_consumer_without_brokers_closes_at_once() {
    let cfg = Config::from_pairs([("bootstrap.servers", ""), ("group.id", "no_brokers")]).unwrap();
    let c = Consumer::new(&cfg).unwrap();
    c.subscribe(&["no_brokers"]).unwrap();
    for _ in 0..3 {
        let _ = c.poll(Duration::from_millis(100));
    }
    let t = Instant::now();
    c.close();
    let took = t.elapsed();
    assert!(took < Duration::from_millis(200), "close took {took:?}");
}

/// A commit to partitions the cluster lacks goes through as a request;
/// `commit_each` returns every partition with its own error (what
/// librdkafka's `rd_kafka_commit_queue` hands its callback), `commit` the
/// first of them.
#[test]
fn commit_each_returns_each_partitions_error() {
    if !common::broker_up() {
        return;
    }
    let group = format!("commit_each_{}", std::process::id());
    let c = consumer(&[("group.id", &group)]);
    let topic = format!("no_such_topic_{}", std::process::id());
    let mut offsets = vec![Tpo::new(&topic, 0, 123), Tpo::new(&topic, 1, 456)];
    let entries = c
        .commit_each(Some(&offsets), Duration::from_secs(10))
        .unwrap();
    assert_eq!(entries.len(), 2);
    for e in &entries {
        let err = e.error.as_ref().expect("a per-partition error");
        assert_eq!(err.code(), 3, "{err}"); // UNKNOWN_TOPIC_OR_PARTITION
    }
    offsets.reverse();
    let err = c
        .commit(Some(&offsets), Duration::from_secs(10))
        .unwrap_err();
    assert_eq!(err.code(), 3, "{err}");
}
