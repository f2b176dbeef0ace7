//! The network slice against the real broker (scripts/services.sh): metadata
//! with topic IDs, produce with acks and every codec, consume from every kind
//! of start offset, headers and null keys/values byte for byte.

mod common;

use std::time::Duration;

use gregor::consumer::{Consumer, TopicPartitionOffset};
use gregor::message::{offset, ProducerRecord};
use gregor::producer::Producer;

const T: Duration = Duration::from_secs(20);

fn consume(topic: &str, partition: i32, from: i64, n: usize) -> Vec<gregor::message::Message> {
    let c = Consumer::new(&common::config(&[])).unwrap();
    c.assign(&[TopicPartitionOffset::new(topic, partition, from)])
        .unwrap();
    let mut out = Vec::new();
    let deadline = std::time::Instant::now() + T;
    while out.len() < n && std::time::Instant::now() < deadline {
        if let Some(m) = c.poll(Duration::from_millis(500)).unwrap() {
            assert!(m.error.is_none(), "consumer error: {:?}", m.error);
            out.push(m);
        }
    }
    out
}

#[test]
fn metadata_lists_brokers_and_topic_ids() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("meta");
    common::create_topic(&topic, 3);
    let p = Producer::new(&common::config(&[])).unwrap();
    let md = p.cluster().fetch_metadata(None, false, T).unwrap();
    assert!(!md.brokers.is_empty());
    let t = &md.topics[&topic];
    assert_eq!(t.partitions.len(), 3);
    assert!(!t.id.is_zero(), "topic id from Metadata v10+");
    for part in &t.partitions {
        assert!(md.brokers.contains_key(&part.leader));
    }
}

#[test]
fn produce_and_consume_byte_for_byte_with_every_codec() {
    if !common::broker_up() {
        return;
    }
    for codec in ["none", "gzip", "snappy", "lz4", "zstd"] {
        let topic = common::unique_topic(&format!("codec-{codec}"));
        common::create_topic(&topic, 1);
        let p = Producer::new(&common::config(&[("compression.type", codec)])).unwrap();
        let big = vec![b'x'; 10_000];
        let headers: [(&str, Option<&[u8]>); 2] = [("h1", Some(b"v1")), ("nil", None)];
        let records = [
            ProducerRecord {
                topic: &topic,
                partition: Some(0),
                key: Some(b"k0"),
                value: Some(b"v0"),
                headers: &headers,
                timestamp: Some(1_700_000_000_000),
            },
            ProducerRecord {
                topic: &topic,
                partition: Some(0),
                key: None,
                value: Some(&big),
                ..Default::default()
            },
            ProducerRecord {
                topic: &topic,
                partition: Some(0),
                key: Some(b""),
                value: None,
                ..Default::default()
            },
        ];
        let mut offsets = Vec::new();
        for r in &records {
            let d = p.send_sync(r, Some(T)).unwrap();
            assert_eq!((d.topic.as_str(), d.partition), (topic.as_str(), 0));
            offsets.push(d.offset);
        }
        assert_eq!(
            offsets,
            vec![offsets[0], offsets[0] + 1, offsets[0] + 2],
            "{codec}"
        );
        let got = consume(&topic, 0, offset::BEGINNING, 3);
        assert_eq!(got.len(), 3, "{codec}");
        for (m, r) in got.iter().zip(&records) {
            assert_eq!(m.key.as_deref(), r.key, "{codec}");
            assert_eq!(m.value.as_deref(), r.value, "{codec}");
        }
        assert_eq!(got[0].timestamp, 1_700_000_000_000);
        assert_eq!(got[0].headers.len(), 2);
        assert_eq!(&*got[0].headers[0].key, b"h1");
        assert_eq!(got[0].headers[0].value.as_deref(), Some(&b"v1"[..]));
        assert_eq!(got[0].headers[1].value, None);
        assert_eq!(got.iter().map(|m| m.offset).collect::<Vec<_>>(), offsets);
    }
}

#[test]
fn start_offsets_beginning_end_tail_and_absolute() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("offsets");
    common::create_topic(&topic, 1);
    let p = Producer::new(&common::config(&[])).unwrap();
    for i in 0..10 {
        let v = format!("m{i}");
        p.send_sync(
            &ProducerRecord {
                topic: &topic,
                partition: Some(0),
                value: Some(v.as_bytes()),
                ..Default::default()
            },
            Some(T),
        )
        .unwrap();
    }
    let values = |ms: Vec<gregor::message::Message>| -> Vec<String> {
        ms.iter()
            .map(|m| String::from_utf8(m.value.as_deref().unwrap().to_vec()).unwrap())
            .collect()
    };
    assert_eq!(
        values(consume(&topic, 0, offset::tail(3), 3)),
        ["m7", "m8", "m9"]
    );
    assert_eq!(values(consume(&topic, 0, 4, 2)), ["m4", "m5"]);
    assert_eq!(values(consume(&topic, 0, offset::BEGINNING, 1)), ["m0"]);
    // from the end: nothing old, then what is produced next
    let c = Consumer::new(&common::config(&[])).unwrap();
    c.assign(&[TopicPartitionOffset::new(&topic, 0, offset::END)])
        .unwrap();
    assert!(c.poll(Duration::from_millis(700)).unwrap().is_none());
    p.send_sync(
        &ProducerRecord {
            topic: &topic,
            partition: Some(0),
            value: Some(b"new"),
            ..Default::default()
        },
        Some(T),
    )
    .unwrap();
    let m = (0..20)
        .find_map(|_| c.poll(Duration::from_millis(500)).unwrap())
        .expect("new message");
    assert_eq!(m.value.as_deref(), Some(&b"new"[..]));
    assert_eq!(m.offset, 10);
    let (lo, hi) = c.watermarks(&topic, 0, T).unwrap();
    assert_eq!((lo, hi), (0, 11));
}

#[test]
fn keyed_messages_follow_the_partitioner_and_acks_settings_work() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("keyed");
    common::create_topic(&topic, 6);
    for acks in ["0", "1", "all"] {
        let p = Producer::new(&common::config(&[
            ("acks", acks),
            ("partitioner", "murmur2"),
        ]))
        .unwrap();
        let d = p
            .send_sync(
                &ProducerRecord {
                    topic: &topic,
                    key: Some(b"user-42"),
                    value: Some(b"x"),
                    ..Default::default()
                },
                Some(T),
            )
            .unwrap();
        let want = gregor::producer::Partitioner::Murmur2
            .partition(Some(b"user-42"), 6)
            .unwrap();
        assert_eq!(d.partition, want, "acks={acks}");
        if acks == "0" {
            assert_eq!(d.offset, -1);
        } else {
            assert!(d.offset >= 0);
        }
    }
}

#[test]
fn unknown_partition_is_a_clear_error() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("nopart");
    common::create_topic(&topic, 2);
    let p = Producer::new(&common::config(&[])).unwrap();
    let e = p
        .send_sync(
            &ProducerRecord {
                topic: &topic,
                partition: Some(5),
                value: Some(b"x"),
                ..Default::default()
            },
            Some(T),
        )
        .unwrap_err();
    assert_eq!(e.code(), gregor::error::local::UNKNOWN_PARTITION, "{e}");
}

#[test]
fn connection_cut_mid_produce_is_retried_on_a_new_connection_exactly_once() {
    if !common::broker_up() {
        return;
    }
    use common::proxy::{self, Verdict};
    use std::sync::atomic::{AtomicBool, Ordering};
    let topic = common::unique_topic("cut");
    common::create_topic(&topic, 1);
    let cut = AtomicBool::new(false);
    let px = proxy::start(&common::broker(), move |_, key| {
        if key == 0 && !cut.swap(true, Ordering::SeqCst) {
            Verdict::Cut
        } else {
            Verdict::Forward
        }
    });
    let mut cfg = common::config(&[("retry.backoff.ms", "50")]);
    cfg.set("bootstrap.servers", &px.addr).unwrap();
    let p = Producer::new(&cfg).unwrap();
    let rec = ProducerRecord {
        topic: &topic,
        partition: Some(0),
        value: Some(b"once"),
        ..Default::default()
    };
    let d = p
        .send_sync(&rec, Some(T))
        .expect("delivered after reconnecting");
    assert_eq!(d.offset, 0);
    let conns = px.connections.load(std::sync::atomic::Ordering::SeqCst);
    assert!(
        conns >= 3,
        "bootstrap, the cut produce connection and its replacement: {conns}"
    );
    let c = Consumer::new(&common::config(&[])).unwrap();
    assert_eq!(
        c.watermarks(&topic, 0, T).unwrap(),
        (0, 1),
        "the cut request never reached the broker: one copy"
    );
    let got = consume(&topic, 0, offset::BEGINNING, 1);
    assert_eq!(got[0].value.as_deref(), Some(&b"once"[..]));
}

#[test]
fn broker_dying_mid_request_without_retries_errs_within_the_timeout() {
    if !common::broker_up() {
        return;
    }
    use common::proxy::{self, Verdict};
    let topic = common::unique_topic("dying");
    common::create_topic(&topic, 1);
    let px = proxy::start(&common::broker(), |_, key| {
        if key == 0 {
            Verdict::Cut
        } else {
            Verdict::Forward
        }
    });
    let mut cfg = common::config(&[("retries", "0")]);
    cfg.set("bootstrap.servers", &px.addr).unwrap();
    let p = Producer::new(&cfg).unwrap();
    let t = std::time::Instant::now();
    let rec = ProducerRecord {
        topic: &topic,
        partition: Some(0),
        value: Some(b"x"),
        ..Default::default()
    };
    let e = p
        .send_sync(&rec, Some(Duration::from_secs(10)))
        .unwrap_err();
    assert_eq!(e.code(), gregor::error::local::TRANSPORT, "{e}");
    assert!(
        e.to_string().contains("127.0.0.1:"),
        "names the broker: {e}"
    );
    assert!(
        t.elapsed() < Duration::from_secs(5),
        "took {:?}",
        t.elapsed()
    );
}
