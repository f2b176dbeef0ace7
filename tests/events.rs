//! Client events (librdkafka's `error_cb` and `throttle_cb` semantics),
//! fatal errors and transactional error flags:
//! - every broker down (a port nothing listens on) → `_TRANSPORT`, then
//!   `_ALL_BROKERS_DOWN` within 2 × `reconnect.backoff.max.ms`, once per
//!   transition, through the error callback inside poll;
//! - a wrong SCRAM password (the SASL broker, 127.0.0.1:9094) → `_AUTHENTICATION`;
//! - an untrusted TLS certificate (the TLS broker, 127.0.0.1:9093, without
//!   its CA) → `_SSL`;
//! - a fatal idempotence error (librdkafka's mock cluster answers Produce
//!   with INVALID_PRODUCER_EPOCH) → `_FATAL` event, and
//!   [`Producer::fatal_error`] names the cause afterwards;
//! - a response carrying `throttle_time_ms` (a scripted peer) → the
//!   throttle callback with the broker's name, id and time.

mod common;
mod mock_cluster;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use gregor::config::Config;
use gregor::consumer::{Consumer, TopicPartitionOffset};
use gregor::error::{local, Error};
use gregor::events::ThrottleEvent;
use gregor::message::ProducerRecord;
use gregor::producer::Producer;
use gregor::protocol::api_versions::{ApiVersion, ApiVersionsResponse};
use gregor::protocol::metadata::{MetadataResponse, MetadataResponseBroker};
use gregor::protocol::Message;
use mock_cluster::MockCluster;

fn cfg(pairs: &[(&str, &str)]) -> Config {
    let mut c = Config::new();
    for (k, v) in pairs {
        c.set(k, v).unwrap();
    }
    c
}

/// A port on 127.0.0.1 nothing listens on.
fn unused_port() -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let a = l.local_addr().unwrap().to_string();
    drop(l);
    a
}

/// Errors seen by a callback: (code, reason, when).
type Seen = Arc<Mutex<Vec<(i32, String, Instant)>>>;

fn recorder() -> (Seen, gregor::events::ErrorCallback) {
    let seen: Seen = Arc::default();
    let s2 = seen.clone();
    let cb = Box::new(move |e: &Error| {
        s2.lock()
            .unwrap()
            .push((e.code(), e.to_string(), Instant::now()));
    });
    (seen, cb)
}

fn codes(seen: &Seen) -> Vec<i32> {
    seen.lock().unwrap().iter().map(|s| s.0).collect()
}

/// Polls `producer` until `seen` holds `code` or `limit` passes; returns
/// when it came.
fn poll_until(p: &Producer, seen: &Seen, code: i32, limit: Duration) -> Option<Instant> {
    let until = Instant::now() + limit;
    while Instant::now() < until {
        p.poll(Duration::from_millis(100));
        if let Some(s) = seen.lock().unwrap().iter().find(|s| s.0 == code) {
            return Some(s.2);
        }
    }
    None
}

#[test]
fn producer_with_every_broker_down_hears_all_brokers_down_within_two_backoffs() {
    let backoff_max = Duration::from_millis(1000);
    let p = Producer::new(&cfg(&[
        ("bootstrap.servers", &unused_port()),
        ("reconnect.backoff.ms", "100"),
        ("reconnect.backoff.max.ms", "1000"),
        ("message.timeout.ms", "300000"),
    ]))
    .unwrap();
    let (seen, cb) = recorder();
    p.set_error_callback(Some(cb));
    let start = Instant::now();
    p.send(&ProducerRecord::new("events-down", b"v"), 1)
        .unwrap();
    let at = poll_until(&p, &seen, local::ALL_BROKERS_DOWN, backoff_max * 2)
        .unwrap_or_else(|| panic!("no _ALL_BROKERS_DOWN; seen {:?}", codes(&seen)));
    eprintln!("_ALL_BROKERS_DOWN after {:?}", at.duration_since(start));
    assert!(
        at - start < backoff_max * 2,
        "took {:?}",
        at.duration_since(start)
    );
    let first = codes(&seen);
    assert_eq!(first[0], local::TRANSPORT, "{first:?}");
    let reason = seen.lock().unwrap()[0].1.clone();
    assert!(reason.contains("127.0.0.1"), "{reason}");
    // The message is still queued (not failed at once) and the condition
    // is not reported again while it lasts: reconnects keep failing the
    // same way, and the queue stays as it was.
    for _ in 0..15 {
        p.poll(Duration::from_millis(100));
    }
    let all: Vec<i32> = codes(&seen);
    assert_eq!(
        all.iter()
            .filter(|c| **c == local::ALL_BROKERS_DOWN)
            .count(),
        1,
        "{all:?}"
    );
    assert_eq!(all.len(), first.len(), "{all:?}");
    assert_eq!(p.len(), 1);
    drop(p);
}

#[test]
fn consumer_with_every_broker_down_hears_all_brokers_down_in_poll() {
    let c = Consumer::new(&cfg(&[
        ("bootstrap.servers", &unused_port()),
        ("reconnect.backoff.ms", "100"),
        ("reconnect.backoff.max.ms", "500"),
    ]))
    .unwrap();
    let (seen, cb) = recorder();
    c.set_error_callback(Some(cb));
    c.assign(&[TopicPartitionOffset::new("events-down", 0, -2)])
        .unwrap();
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(1)
        && !codes(&seen).contains(&local::ALL_BROKERS_DOWN)
    {
        let _ = c.poll(Duration::from_millis(100));
    }
    let got = codes(&seen);
    assert!(got.contains(&local::ALL_BROKERS_DOWN), "{got:?}");
    assert!(got.contains(&local::TRANSPORT), "{got:?}");
    c.close();
}

fn security_up() -> bool {
    ["127.0.0.1:9093", "127.0.0.1:9094"]
        .iter()
        .all(|a| common::service_up("the TLS and SASL test brokers", a))
}

#[test]
fn wrong_scram_password_is_an_authentication_event() {
    if !security_up() {
        return;
    }
    let p = Producer::new(&cfg(&[
        ("bootstrap.servers", "127.0.0.1:9094"),
        ("security.protocol", "sasl_plaintext"),
        ("sasl.mechanisms", "SCRAM-SHA-256"),
        ("sasl.username", "gregor256"),
        ("sasl.password", "events-wrong-password"),
    ]))
    .unwrap();
    let (seen, cb) = recorder();
    p.set_error_callback(Some(cb));
    p.send(&ProducerRecord::new("events-auth", b"v"), 1)
        .unwrap();
    poll_until(&p, &seen, local::AUTHENTICATION, Duration::from_secs(5))
        .unwrap_or_else(|| panic!("no _AUTHENTICATION; seen {:?}", seen.lock().unwrap()));
    let s = seen.lock().unwrap();
    let (_, reason, _) = s.iter().find(|s| s.0 == local::AUTHENTICATION).unwrap();
    assert!(!reason.contains("events-wrong-password"), "{reason}");
}

#[test]
fn untrusted_tls_certificate_is_an_ssl_event() {
    if !security_up() {
        return;
    }
    let p = Producer::new(&cfg(&[
        ("bootstrap.servers", "127.0.0.1:9093"),
        ("security.protocol", "ssl"),
    ]))
    .unwrap();
    let (seen, cb) = recorder();
    p.set_error_callback(Some(cb));
    p.send(&ProducerRecord::new("events-tls", b"v"), 1).unwrap();
    poll_until(&p, &seen, local::SSL, Duration::from_secs(5))
        .unwrap_or_else(|| panic!("no _SSL; seen {:?}", seen.lock().unwrap()));
    let s = seen.lock().unwrap();
    let (_, reason, _) = s.iter().find(|s| s.0 == local::SSL).unwrap();
    assert!(reason.contains("certificate"), "{reason}");
}

#[test]
fn fatal_idempotence_error_is_an_event_and_queryable_afterwards() {
    let cluster = MockCluster::start(1);
    cluster.topic("events-fatal", 1, 1);
    let p = Producer::new(&cfg(&[
        ("bootstrap.servers", &cluster.bootstrap),
        ("enable.idempotence", "true"),
        ("linger.ms", "0"),
    ]))
    .unwrap();
    let (seen, cb) = recorder();
    p.set_error_callback(Some(cb));
    // a first message gets the producer id and partition leader
    p.send_sync(
        &ProducerRecord::new("events-fatal", b"ok"),
        Some(Duration::from_secs(10)),
    )
    .unwrap();
    assert!(p.fatal_error().is_none());
    // Produce (API key 0) answered with INVALID_PRODUCER_EPOCH (47)
    cluster.err(0, 47, 1);
    let e = p
        .send_sync(
            &ProducerRecord::new("events-fatal", b"fenced"),
            Some(Duration::from_secs(10)),
        )
        .unwrap_err();
    assert_eq!(e.code(), 47, "{e}");
    poll_until(&p, &seen, local::FATAL, Duration::from_secs(5))
        .unwrap_or_else(|| panic!("no _FATAL; seen {:?}", seen.lock().unwrap()));
    let fatal = p.fatal_error().expect("a fatal error is kept");
    assert_eq!(fatal.code(), 47, "{fatal}");
    // every later send fails with it
    let again = p
        .send(&ProducerRecord::new("events-fatal", b"x"), 2)
        .unwrap_err();
    assert_eq!(again.code(), 47);
    // and the flags say it: fatal, nothing else
    let f = p.txn_error_flags(&again);
    assert!(f.fatal && !f.retriable && !f.txn_requires_abort, "{f:?}");
}

// ----- a scripted peer answering with throttle_time_ms -----

struct Req {
    api_key: i16,
    version: i16,
    corr: i32,
}

fn read_req(s: &mut TcpStream) -> Option<Req> {
    let mut size = [0u8; 4];
    s.read_exact(&mut size).ok()?;
    let n = i32::from_be_bytes(size);
    if !(8..1 << 20).contains(&n) {
        return None;
    }
    let mut buf = vec![0u8; n as usize];
    s.read_exact(&mut buf).ok()?;
    Some(Req {
        api_key: i16::from_be_bytes([buf[0], buf[1]]),
        version: i16::from_be_bytes([buf[2], buf[3]]),
        corr: i32::from_be_bytes([buf[4], buf[5], buf[6], buf[7]]),
    })
}

use common::response_frame as frame;

/// Serves ApiVersions (ApiVersions 0–4, Metadata 0–12) and answers every
/// Metadata request with no topics, broker 7 and `throttle_ms`.
fn throttling_peer(throttle_ms: i32) -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap().to_string();
    thread::spawn(move || {
        for s in l.incoming() {
            let Ok(mut s) = s else { return };
            thread::spawn(move || {
                while let Some(r) = read_req(&mut s) {
                    let out = match r.api_key {
                        18 => {
                            let mut resp = ApiVersionsResponse::default();
                            resp.api_keys = [(18, 0, 4), (3, 0, 12)]
                                .iter()
                                .map(|&(k, lo, hi)| {
                                    let mut v = ApiVersion::default();
                                    v.api_key = k;
                                    v.min_version = lo;
                                    v.max_version = hi;
                                    v
                                })
                                .collect();
                            resp.throttle_time_ms = throttle_ms;
                            frame(r.corr, 0, &resp.to_bytes(r.version).unwrap())
                        }
                        3 => {
                            let mut b = MetadataResponseBroker::default();
                            b.node_id = 7;
                            b.host = "127.0.0.1".into();
                            b.port = 1;
                            let mut resp = MetadataResponse::default();
                            resp.brokers = vec![b];
                            resp.throttle_time_ms = throttle_ms;
                            let hv = if r.version >= 9 { 1 } else { 0 };
                            frame(r.corr, hv, &resp.to_bytes(r.version).unwrap())
                        }
                        _ => return,
                    };
                    if s.write_all(&out).is_err() {
                        return;
                    }
                }
            });
        }
    });
    addr
}

#[test]
fn throttled_response_reaches_the_throttle_callback_in_poll() {
    let addr = throttling_peer(250);
    let p = Producer::new(&cfg(&[("bootstrap.servers", &addr)])).unwrap();
    let seen: Arc<Mutex<Vec<ThrottleEvent>>> = Arc::default();
    let s2 = seen.clone();
    p.set_throttle_callback(Some(Box::new(move |t: &ThrottleEvent| {
        s2.lock().unwrap().push(t.clone());
    })));
    let md = p
        .cluster()
        .fetch_metadata(None, false, Duration::from_secs(5))
        .unwrap();
    assert!(md.brokers.contains_key(&7));
    // nothing runs on gregor's threads: the event waits for poll
    assert!(seen.lock().unwrap().is_empty());
    assert!(p.poll(Duration::from_millis(100)) >= 1);
    let got = seen.lock().unwrap().clone();
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].throttle_time_ms, 250);
    assert_eq!(got[0].broker_id, -1, "a bootstrap connection has no id yet");
    assert_eq!(got[0].broker_name, format!("{addr}/bootstrap"));
    // a response without throttling raises nothing
    let quiet = throttling_peer(0);
    let q = Producer::new(&cfg(&[("bootstrap.servers", &quiet)])).unwrap();
    let n = Arc::new(Mutex::new(0));
    let n2 = n.clone();
    q.set_throttle_callback(Some(Box::new(move |_: &ThrottleEvent| {
        *n2.lock().unwrap() += 1;
    })));
    q.cluster()
        .fetch_metadata(None, false, Duration::from_secs(5))
        .unwrap();
    q.poll(Duration::from_millis(50));
    assert_eq!(*n.lock().unwrap(), 0);
}
