//! Purge (librdkafka's `rd_kafka_purge`) and what delivery reports say
//! beyond the outcome (persistence status, latency, the message's key,
//! value and headers), against the real broker; in-flight requests are
//! held by the fault proxy (tests/common/proxy.rs) blackholing the
//! connection, so they stay unanswered while the test purges them.

mod common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use common::proxy::{self, Proxy};
use gregor::config::Config;
use gregor::error::local;
use gregor::message::ProducerRecord;
use gregor::producer::{purge, DeliveryReport, MessageStatus, Producer};

/// What a report said, kept per opaque.
#[derive(Debug, Clone)]
struct Seen {
    code: i32,
    status: MessageStatus,
    latency_us: i64,
    broker_id: i32,
    offset: i64,
    key: Option<Vec<u8>>,
    value: Option<Vec<u8>>,
    headers: Vec<(String, Option<Vec<u8>>)>,
}

type Reports = Arc<Mutex<Vec<(usize, Seen)>>>;

fn recording(p: &Producer) -> Reports {
    let seen: Reports = Arc::default();
    let s2 = seen.clone();
    p.set_delivery_callback(Some(Box::new(move |dr: &DeliveryReport| {
        let (key, value, headers) = dr.key_value_headers();
        s2.lock().unwrap().push((
            dr.opaque,
            Seen {
                code: dr.error.as_ref().map_or(0, |e| e.code()),
                status: dr.status,
                latency_us: dr.latency_us,
                broker_id: dr.broker_id,
                offset: dr.offset,
                key: key.map(|k| k.to_vec()),
                value: value.map(|v| v.to_vec()),
                headers: headers
                    .iter()
                    .map(|h| {
                        (
                            String::from_utf8_lossy(&h.key).into_owned(),
                            h.value.as_ref().map(|v| v.to_vec()),
                        )
                    })
                    .collect(),
            },
        ));
    })));
    seen
}

/// Reports by opaque; fails on a second report for the same message.
fn by_opaque(seen: &Reports) -> HashMap<usize, Seen> {
    let mut m = HashMap::new();
    for (o, s) in seen.lock().unwrap().iter() {
        assert!(
            m.insert(*o, s.clone()).is_none(),
            "message {o} got a second report: {s:?}"
        );
    }
    m
}

fn key(i: usize) -> Vec<u8> {
    format!("k{i}").into_bytes()
}

fn value(i: usize) -> Vec<u8> {
    format!("value {i} {}", "x".repeat(i % 50)).into_bytes()
}

fn send_numbered(p: &Producer, topic: &str, range: std::ops::Range<usize>) {
    for i in range {
        let (k, v) = (key(i), value(i));
        let hv = i.to_string();
        let headers = [("n", Some(hv.as_bytes())), ("empty", None)];
        p.send(
            &ProducerRecord {
                topic,
                partition: Some(0),
                key: Some(&k),
                value: Some(&v),
                headers: &headers,
                timestamp: None,
            },
            i,
        )
        .unwrap();
    }
}

/// The report carries the message as it was sent.
fn check_message(i: usize, s: &Seen) {
    assert_eq!(s.key.as_deref(), Some(&key(i)[..]), "key of {i}");
    assert_eq!(s.value.as_deref(), Some(&value(i)[..]), "value of {i}");
    assert_eq!(
        s.headers,
        vec![
            ("n".to_string(), Some(i.to_string().into_bytes())),
            ("empty".to_string(), None)
        ],
        "headers of {i}"
    );
    assert!(s.latency_us >= 0, "latency of {i}: {}", s.latency_us);
}

fn through(px: &Proxy, extra: &[(&str, &str)]) -> Config {
    let mut c = Config::from_pairs([("bootstrap.servers", px.addr.as_str())]).unwrap();
    for (k, v) in extra {
        c.set(k, v).unwrap();
    }
    c
}

/// Polls until `n` reports came or `timeout` passed.
fn poll_until(p: &Producer, seen: &Reports, n: usize, timeout: Duration) {
    let until = Instant::now() + timeout;
    while seen.lock().unwrap().len() < n && Instant::now() < until {
        p.poll(Duration::from_millis(50));
    }
}

#[test]
fn purge_of_queued_messages_reports_each_once_not_persisted_and_the_producer_goes_on() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("purge-queue");
    common::create_topic(&topic, 1);
    for codec in ["none", "lz4"] {
        // a long linger keeps everything queued
        let p = Producer::new(&common::config(&[
            ("linger.ms", "60000"),
            ("compression.type", codec),
        ]))
        .unwrap();
        let seen = recording(&p);
        send_numbered(&p, &topic, 0..300);
        assert_eq!(p.len(), 300);
        p.purge(purge::QUEUE).unwrap();
        assert_eq!(p.poll(Duration::from_secs(5)), 300);
        assert_eq!(p.len(), 0, "nothing outstanding after the purge's reports");
        let got = by_opaque(&seen);
        assert_eq!(got.len(), 300);
        for (i, s) in &got {
            assert_eq!(s.code, local::PURGE_QUEUE, "message {i}");
            assert_eq!(s.status, MessageStatus::NotPersisted, "message {i}");
            assert_eq!(s.offset, -1);
            assert_eq!(s.broker_id, -1, "message {i} was never sent");
            check_message(*i, s);
        }
        // reusable: the next messages are delivered, persisted
        seen.lock().unwrap().clear();
        send_numbered(&p, &topic, 1000..1010);
        p.flush(Duration::from_secs(20)).unwrap();
        let got = by_opaque(&seen);
        assert_eq!(got.len(), 10);
        for (i, s) in &got {
            assert_eq!(s.code, 0, "message {i}");
            assert_eq!(s.status, MessageStatus::Persisted, "message {i}");
            assert!(s.offset >= 0);
            assert!(
                s.broker_id >= 0,
                "message {i}: sent to broker {}",
                s.broker_id
            );
            check_message(*i, s);
        }
        assert_eq!(p.len(), 0);
        // nothing to purge: still fine; unknown flags are refused
        p.purge(purge::QUEUE | purge::INFLIGHT).unwrap();
        assert_eq!(p.poll(Duration::from_millis(50)), 0);
        assert_eq!(
            p.purge(0x8).unwrap_err().code(),
            local::INVALID_ARG,
            "unknown flag"
        );
    }
}

#[test]
fn purge_in_flight_through_a_stalled_broker_reports_each_once_and_ignores_the_late_answer() {
    if !common::broker_up() {
        return;
    }
    purge_in_flight("false");
}

/// The same with idempotence: the purged sequence numbers are given up (a
/// new epoch), so the next messages are accepted in order.
#[test]
fn purge_in_flight_of_an_idempotent_producer() {
    if !common::broker_up() {
        return;
    }
    purge_in_flight("true");
}

fn purge_in_flight(idempotence: &str) {
    let topic = common::unique_topic("purge-inflight");
    common::create_topic(&topic, 1);
    let px = proxy::start_faulty(&common::broker());
    // one request in flight at a time: the second batch stays queued behind it
    let p = Producer::new(&through(
        &px,
        &[
            ("linger.ms", "50"),
            ("max.in.flight.requests.per.connection", "1"),
            ("enable.idempotence", idempotence),
        ],
    ))
    .unwrap();
    let seen = recording(&p);
    // warm up: metadata and the produce connection
    send_numbered(&p, &topic, 10_000..10_001);
    p.flush(Duration::from_secs(20)).unwrap();
    seen.lock().unwrap().clear();

    px.faults.set_blackhole(true);
    send_numbered(&p, &topic, 0..100);
    thread::sleep(Duration::from_millis(600)); // batch 1 written, unanswered
    send_numbered(&p, &topic, 100..130);
    thread::sleep(Duration::from_millis(300)); // batch 2 queued behind it
    assert_eq!(p.len(), 130);
    assert_eq!(p.poll(Duration::from_millis(10)), 0, "nothing answered yet");

    p.purge(purge::QUEUE | purge::INFLIGHT).unwrap();
    poll_until(&p, &seen, 130, Duration::from_secs(5));
    assert_eq!(p.len(), 0, "nothing outstanding after the purge's reports");
    let got = by_opaque(&seen);
    assert_eq!(got.len(), 130);
    for (i, s) in &got {
        if *i < 100 {
            assert_eq!(s.code, local::PURGE_INFLIGHT, "message {i}");
            assert_eq!(s.status, MessageStatus::PossiblyPersisted, "message {i}");
        } else {
            assert_eq!(s.code, local::PURGE_QUEUE, "message {i}");
            assert_eq!(s.status, MessageStatus::NotPersisted, "message {i}");
        }
        check_message(*i, s);
    }

    // the broker answers again: the late answer for the purged request is
    // ignored, the producer delivers new messages
    px.faults.set_blackhole(false);
    send_numbered(&p, &topic, 200..220);
    p.flush(Duration::from_secs(30)).unwrap();
    thread::sleep(Duration::from_millis(200));
    p.poll(Duration::from_millis(50));
    let got = by_opaque(&seen); // fails on any second report
    assert_eq!(got.len(), 150);
    for i in 200..220 {
        let s = &got[&i];
        assert_eq!(s.code, 0, "message {i}: {s:?}");
        assert_eq!(s.status, MessageStatus::Persisted);
        check_message(i, s);
    }
    assert_eq!(p.len(), 0);
}

#[test]
fn purge_without_blocking_and_of_messages_waiting_for_metadata() {
    if !common::broker_up() {
        return;
    }
    // a broker that never answers: the messages wait for metadata
    let px = proxy::start_faulty(&common::broker());
    px.faults.set_blackhole(true);
    let p = Producer::new(&through(&px, &[("linger.ms", "0")])).unwrap();
    let seen = recording(&p);
    let topic = common::unique_topic("purge-ua");
    send_numbered(&p, &topic, 0..20);
    thread::sleep(Duration::from_millis(200));
    p.purge(purge::QUEUE | purge::INFLIGHT | purge::NON_BLOCKING)
        .unwrap();
    poll_until(&p, &seen, 20, Duration::from_secs(5));
    let got = by_opaque(&seen);
    assert_eq!(got.len(), 20);
    for (i, s) in &got {
        assert_eq!(s.code, local::PURGE_QUEUE, "message {i}");
        assert_eq!(s.status, MessageStatus::NotPersisted);
        check_message(*i, s);
    }
    assert_eq!(p.len(), 0);
    px.faults.set_blackhole(false);
}

#[test]
fn status_of_messages_timed_out_in_flight_and_in_queue() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("purge-status");
    common::create_topic(&topic, 1);
    let px = proxy::start_faulty(&common::broker());
    let p = Producer::new(&through(
        &px,
        &[
            ("linger.ms", "0"),
            ("message.timeout.ms", "1500"),
            ("socket.timeout.ms", "400"),
            ("request.timeout.ms", "400"),
        ],
    ))
    .unwrap();
    let seen = recording(&p);
    send_numbered(&p, &topic, 10_000..10_001);
    p.flush(Duration::from_secs(20)).unwrap();
    assert_eq!(
        by_opaque(&seen)[&10_000].status,
        MessageStatus::Persisted,
        "acknowledged"
    );
    seen.lock().unwrap().clear();
    // sent, then the request times out: possibly persisted, to the end
    px.faults.set_blackhole(true);
    send_numbered(&p, &topic, 0..5);
    poll_until(&p, &seen, 5, Duration::from_secs(15));
    let got = by_opaque(&seen);
    assert_eq!(got.len(), 5);
    for (i, s) in &got {
        assert_eq!(s.code, local::MSG_TIMED_OUT, "message {i}: {s:?}");
        assert_eq!(s.status, MessageStatus::PossiblyPersisted, "message {i}");
        check_message(*i, s);
    }
    px.faults.set_blackhole(false);

    // never left the client (no metadata ever came): not persisted
    let px2 = proxy::start_faulty(&common::broker());
    px2.faults.set_blackhole(true);
    let p2 = Producer::new(&through(
        &px2,
        &[
            ("linger.ms", "0"),
            ("message.timeout.ms", "800"),
            // the sender waits for metadata no longer than this
            ("socket.timeout.ms", "300"),
        ],
    ))
    .unwrap();
    let seen2 = recording(&p2);
    send_numbered(&p2, &topic, 0..3);
    poll_until(&p2, &seen2, 3, Duration::from_secs(10));
    let got = by_opaque(&seen2);
    assert_eq!(got.len(), 3);
    for (i, s) in &got {
        assert_eq!(s.code, local::MSG_TIMED_OUT, "message {i}");
        assert_eq!(s.status, MessageStatus::NotPersisted, "message {i}");
        check_message(*i, s);
    }
    px2.faults.set_blackhole(false);
}

#[test]
fn delivery_report_only_error_reports_failures_only() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("purge-only-error");
    common::create_topic(&topic, 1);
    let p = Producer::new(&common::config(&[
        ("delivery.report.only.error", "true"),
        ("linger.ms", "60000"),
    ]))
    .unwrap();
    let seen = recording(&p);
    send_numbered(&p, &topic, 0..5);
    p.flush(Duration::from_secs(20)).unwrap();
    assert_eq!(p.len(), 0);
    assert!(
        seen.lock().unwrap().is_empty(),
        "no report for delivered ones"
    );
    send_numbered(&p, &topic, 5..8);
    p.purge(purge::QUEUE).unwrap();
    assert_eq!(p.poll(Duration::from_secs(5)), 3);
    let got = by_opaque(&seen);
    assert_eq!(got.len(), 3);
    assert!(got.values().all(|s| s.code == local::PURGE_QUEUE));
}

/// Reports not served yet hold their messages' records, so they count
/// against `queue.buffering.max.messages` until poll/flush serves them
/// (librdkafka's rule); without a delivery callback nothing is held.
#[test]
fn unserved_reports_count_against_the_queue_until_served() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("purge-held");
    common::create_topic(&topic, 1);
    let probe = |p: &Producer| {
        p.send(
            &ProducerRecord {
                topic: &topic,
                partition: Some(0),
                value: Some(b"probe"),
                ..Default::default()
            },
            99,
        )
    };
    let cfg = common::config(&[("linger.ms", "0"), ("queue.buffering.max.messages", "10")]);

    // with a callback: delivered but unserved, the ten still fill the queue
    let p = Producer::new(&cfg).unwrap();
    let seen = recording(&p);
    send_numbered(&p, &topic, 0..10);
    thread::sleep(Duration::from_millis(1500)); // delivered meanwhile (not served)
    assert_eq!(p.len(), 10);
    assert_eq!(probe(&p).unwrap_err().code(), local::QUEUE_FULL);
    assert_eq!(p.poll(Duration::from_secs(5)), 10);
    assert_eq!(by_opaque(&seen).len(), 10);
    assert!(by_opaque(&seen).values().all(|s| s.code == 0));
    probe(&p).unwrap(); // served: room again
    p.flush(Duration::from_secs(20)).unwrap();
    assert_eq!(p.len(), 0);

    // send_blocking on the only thread: it serves the reports that fill
    // the queue itself instead of waiting for a poll that cannot come
    seen.lock().unwrap().clear();
    for i in 100..150 {
        let v = value(i);
        p.send_blocking(
            &ProducerRecord {
                topic: &topic,
                partition: Some(0),
                key: Some(&key(i)),
                value: Some(&v),
                ..Default::default()
            },
            i,
            Duration::from_secs(20),
        )
        .unwrap();
    }
    p.flush(Duration::from_secs(20)).unwrap();
    let got = by_opaque(&seen);
    assert_eq!(got.len(), 50);
    assert!(got.values().all(|s| s.code == 0));

    // without one, room comes back as soon as they are delivered
    let p = Producer::new(&cfg).unwrap();
    send_numbered(&p, &topic, 0..10);
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        match probe(&p) {
            Ok(()) => break,
            Err(e) => assert_eq!(e.code(), local::QUEUE_FULL),
        }
        assert!(Instant::now() < until, "no room without polling");
        thread::sleep(Duration::from_millis(20));
    }
    p.flush(Duration::from_secs(20)).unwrap();
}
