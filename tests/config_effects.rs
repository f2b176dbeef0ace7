//! The cheap librdkafka properties gregor implements, each shown having its
//! effect against the real broker (`$GREGOR_TEST_BROKER`, default
//! 127.0.0.1:9092): socket options read back with getsockopt,
//! `broker.address.family`, `connections.max.idle.ms` (an idle connection
//! closed, the next request reconnecting), `client.dns.lookup`,
//! `allow.auto.create.topics` (a consumer subscribing to a missing topic does
//! not create it unless allowed), and a client without `bootstrap.servers`.

mod common;

use std::time::{Duration, Instant};

use gregor::cluster::{Cluster, Purpose};
use gregor::config::Config;
use gregor::error::local;
use gregor::net::{BrokerConn, NetConfig};
use gregor::protocol::metadata::MetadataRequest;

fn conn_for(extra: &[(&str, &str)]) -> BrokerConn {
    let c = common::config(extra);
    BrokerConn::new(
        "test",
        common::broker(),
        NetConfig::from_config(&c).unwrap(),
    )
}

fn meta(c: &BrokerConn) -> gregor::error::Result<()> {
    let mut req = MetadataRequest::default();
    req.topics = Some(Vec::new());
    c.call(&req, Some(Duration::from_secs(10))).map(|_| ())
}

#[test]
fn socket_options_are_set_on_broker_sockets() {
    if !common::broker_up() {
        return;
    }
    let plain = conn_for(&[]);
    meta(&plain).unwrap();
    let (keepalive, _, _) = plain.socket_options().expect("connected");
    assert!(!keepalive, "keep-alive is off by default");

    let c = conn_for(&[
        ("socket.keepalive.enable", "true"),
        ("socket.send.buffer.bytes", "65536"),
        ("socket.receive.buffer.bytes", "98304"),
    ]);
    meta(&c).unwrap();
    let (keepalive, snd, rcv) = c.socket_options().expect("connected");
    assert!(keepalive, "SO_KEEPALIVE");
    // Linux reports twice the size asked for (its bookkeeping overhead, socket(7))
    assert!(snd == 65536 || snd == 2 * 65536, "SO_SNDBUF {snd}");
    assert!(rcv == 98304 || rcv == 2 * 98304, "SO_RCVBUF {rcv}");
}

#[test]
fn broker_address_family_filters_addresses() {
    if !common::broker_up() {
        return;
    }
    let b = common::broker();
    if !b.starts_with("127.") {
        return; // the check below needs an IPv4 literal
    }
    meta(&conn_for(&[("broker.address.family", "v4")])).unwrap();
    let e = meta(&conn_for(&[("broker.address.family", "v6")])).unwrap_err();
    assert_eq!(e.code(), local::RESOLVE, "{e}");
    assert!(e.to_string().contains("IPv6"), "{e}");
}

#[test]
fn idle_connections_are_closed_after_connections_max_idle_ms() {
    if !common::broker_up() {
        return;
    }
    let c = conn_for(&[("connections.max.idle.ms", "1000")]);
    meta(&c).unwrap();
    assert!(c.is_connected());
    // still busy: requests within the idle time keep it open (100 ms apart,
    // a tenth of the idle time, so a loaded machine's delays stay within it)
    for _ in 0..4 {
        std::thread::sleep(Duration::from_millis(100));
        meta(&c).unwrap();
    }
    assert_eq!(c.take_stats().disconnects, 0);
    let until = Instant::now() + Duration::from_secs(5);
    while c.is_connected() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!c.is_connected(), "idle connection still open");
    let s = c.take_stats();
    assert_eq!((s.connects, s.disconnects), (1, 1));
    // the next request reconnects
    meta(&c).unwrap();
    assert_eq!(c.take_stats().connects, 2);

    // 0 (the default): never closed
    let c = conn_for(&[]);
    meta(&c).unwrap();
    std::thread::sleep(Duration::from_millis(700));
    assert!(c.is_connected());
    assert_eq!(c.take_stats().disconnects, 0);
}

#[test]
fn client_dns_lookup_canonical_bootstrap_names() {
    if !common::broker_up() {
        return;
    }
    let b = common::broker();
    let Some(port) = b.strip_prefix("127.0.0.1:") else {
        return;
    };
    let c = Config::from_pairs([
        ("bootstrap.servers", b.as_str()),
        (
            "client.dns.lookup",
            "resolve_canonical_bootstrap_servers_only",
        ),
    ])
    .unwrap();
    let cluster = Cluster::new(&c).unwrap();
    // 127.0.0.1's name, as getnameinfo(3) gives it (/etc/hosts: localhost)
    let names = cluster.bootstrap();
    assert_eq!(names.len(), 1, "{names:?}");
    assert!(!names[0].starts_with("127.0.0.1"), "{names:?}");
    assert!(names[0].ends_with(&format!(":{port}")), "{names:?}");
    cluster
        .any_conn(Purpose::Metadata, Duration::from_secs(10))
        .expect("connects through the canonical name");
    // the default keeps the name as given
    let c = common::config(&[]);
    assert_eq!(Cluster::new(&c).unwrap().bootstrap(), vec![b.clone()]);
}

fn topic_exists(name: &str) -> bool {
    let cluster = Cluster::new(&common::config(&[])).unwrap();
    let md = cluster
        .fetch_metadata(Some(&[name]), false, Duration::from_secs(10))
        .unwrap();
    md.topics.get(name).is_some_and(|t| t.error.is_ok())
}

fn subscribe_for_a_while(topic: &str, extra: &[(&str, &str)]) {
    let group = common::unique_topic("config-group");
    let mut pairs = vec![("group.id", group.as_str())];
    pairs.extend_from_slice(extra);
    let c = gregor::consumer::Consumer::new(&common::config(&pairs)).unwrap();
    c.subscribe(&[topic]).unwrap();
    let until = Instant::now() + Duration::from_secs(6);
    while Instant::now() < until {
        let _ = c.poll(Duration::from_millis(200));
        if topic_exists(topic) {
            break;
        }
    }
    c.close();
}

#[test]
fn allow_auto_create_topics_on_a_consumer() {
    if !common::broker_up() {
        return;
    }
    let missing = common::unique_topic("config-nocreate");
    subscribe_for_a_while(&missing, &[]);
    assert!(
        !topic_exists(&missing),
        "the consumer's default (false) created {missing}"
    );
    let created = common::unique_topic("config-create");
    subscribe_for_a_while(&created, &[("allow.auto.create.topics", "true")]);
    assert!(
        topic_exists(&created),
        "allow.auto.create.topics=true did not create {created}"
    );
}

#[test]
fn a_client_without_bootstrap_servers_is_created_and_fails_later() {
    let c = Config::new();
    let p = gregor::producer::Producer::new(&c).expect("producer without brokers");
    let k = gregor::consumer::Consumer::new(&c).expect("consumer without brokers");
    let a = gregor::admin::AdminClient::new(&c).expect("admin without brokers");
    let t0 = Instant::now();
    let e = a
        .cluster()
        .fetch_metadata(None, false, Duration::from_millis(300))
        .unwrap_err();
    assert_eq!(e.code(), local::TRANSPORT, "{e}");
    assert!(
        t0.elapsed() >= Duration::from_millis(250),
        "waits for a broker first"
    );
    assert!(t0.elapsed() < Duration::from_secs(2));
    drop((p, k, a));
}

/// Produces `n` keyless messages in rounds of `per_round`, sleeping `pause`
/// between rounds; the partitions their reports name, round by round.
fn keyless_rounds(
    extra: &[(&str, &str)],
    topic: &str,
    rounds: usize,
    per_round: usize,
    pause: Duration,
) -> Vec<std::collections::BTreeSet<i32>> {
    use gregor::message::ProducerRecord;
    use gregor::producer::{DeliveryReport, Producer};
    use std::sync::{Arc, Mutex};
    let p = Producer::new(&common::config(extra)).unwrap();
    let got: Arc<Mutex<Vec<(usize, i32)>>> = Arc::default();
    let g = got.clone();
    p.set_delivery_callback(Some(Box::new(move |r: &DeliveryReport| {
        assert!(r.error.is_none(), "{:?}", r.error);
        g.lock().unwrap().push((r.opaque, r.partition));
    })));
    for round in 0..rounds {
        for _ in 0..per_round {
            let rec = ProducerRecord {
                topic,
                value: Some(b"v"),
                ..Default::default()
            };
            p.send(&rec, round).unwrap();
        }
        std::thread::sleep(pause);
    }
    p.flush(Duration::from_secs(30)).unwrap();
    let mut out = vec![std::collections::BTreeSet::new(); rounds];
    for (round, part) in got.lock().unwrap().iter() {
        out[*round].insert(*part);
    }
    out
}

#[test]
fn sticky_partitioning_linger_ms_decides_how_long_keyless_messages_stick() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("config-sticky");
    common::create_topic(&topic, 6);
    // 0: a random partition per message
    let r = keyless_rounds(
        &[("sticky.partitioning.linger.ms", "0"), ("linger.ms", "50")],
        &topic,
        1,
        200,
        Duration::ZERO,
    );
    assert!(r[0].len() > 1, "sticky.partitioning.linger.ms=0: {r:?}");
    // 150 ms: each round of messages (sent within a few ms) sticks to one
    // partition, and later rounds move on (5 rounds all on one of 6: 1/6^4)
    let r = keyless_rounds(
        &[("sticky.partitioning.linger.ms", "150"), ("linger.ms", "1")],
        &topic,
        5,
        50,
        Duration::from_millis(250),
    );
    assert!(r.iter().all(|s| s.len() == 1), "{r:?}");
    let all: std::collections::BTreeSet<i32> = r.iter().flatten().copied().collect();
    assert!(all.len() > 1, "the sticky partition never changed: {r:?}");
}

/// The `next_offset` (next offset to fetch) of partition 0 in the stats,
/// after the consumer got one message and then had time to prefetch.
fn prefetched(topic: &str, extra: &[(&str, &str)]) -> i64 {
    use gregor::consumer::{Consumer, TopicPartitionOffset};
    use std::sync::{Arc, Mutex};
    let mut pairs = vec![("statistics.interval.ms", "100")];
    pairs.extend_from_slice(extra);
    let c = Consumer::new(&common::config(&pairs)).unwrap();
    let last: Arc<Mutex<Option<String>>> = Arc::default();
    let l = last.clone();
    c.set_stats_callback(Some(Box::new(move |s: &str| {
        *l.lock().unwrap() = Some(s.to_string());
    })));
    c.assign(&[TopicPartitionOffset::new(topic, 0, 0)]).unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut first = None;
    while first.is_none() && Instant::now() < deadline {
        first = c.poll(Duration::from_millis(100)).unwrap();
    }
    assert!(first.is_some_and(|m| m.error.is_none()));
    std::thread::sleep(Duration::from_secs(2));
    // poll serves the latest statistics (and hands out one more message at most)
    *last.lock().unwrap() = None;
    let until = Instant::now() + Duration::from_secs(5);
    while last.lock().unwrap().is_none() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(150));
        let _ = c.poll(Duration::ZERO);
    }
    let s = last.lock().unwrap().clone().expect("statistics");
    let v: serde_json::Value = serde_json::from_str(&s).unwrap();
    c.close();
    v["topics"][topic]["partitions"]["0"]["next_offset"]
        .as_i64()
        .unwrap()
}

#[test]
fn queued_min_messages_bounds_prefetching() {
    if !common::broker_up() {
        return;
    }
    use gregor::message::ProducerRecord;
    use gregor::producer::Producer;
    let topic = common::unique_topic("config-queued");
    common::create_topic(&topic, 1);
    // 40 batches of 50 messages
    let p = Producer::new(&common::config(&[("linger.ms", "0")])).unwrap();
    for _ in 0..40 {
        for _ in 0..50 {
            let rec = ProducerRecord {
                topic: &topic,
                partition: Some(0),
                value: Some(&[b'x'; 100]),
                ..Default::default()
            };
            p.send(&rec, 0).unwrap();
        }
        p.flush(Duration::from_secs(30)).unwrap();
    }
    // small fetches (about one batch each), so the prefetch grows step by step
    let small = [
        ("max.partition.fetch.bytes", "1000"),
        ("fetch.max.bytes", "1000"),
    ];
    let all = prefetched(&topic, &small);
    assert_eq!(all, 2000, "the default (100000) prefetches everything");
    let mut bounded = small.to_vec();
    bounded.push(("queued.min.messages", "100"));
    let some = prefetched(&topic, &bounded);
    assert!(
        some <= 300,
        "queued.min.messages=100 prefetched up to {some}"
    );
}

mod scripted {
    //! A scripted broker: ApiVersions, Metadata naming itself, and
    //! FindCoordinator answering COORDINATOR_NOT_AVAILABLE `refusals` times.
    use std::io::{Read, Write};
    use std::net::{TcpListener, TcpStream};
    use std::sync::{Arc, Mutex};
    use std::time::Instant;

    use gregor::protocol::api_versions::{ApiVersion, ApiVersionsResponse};
    use gregor::protocol::find_coordinator::FindCoordinatorResponse;
    use gregor::protocol::metadata::{MetadataResponse, MetadataResponseBroker};
    use gregor::protocol::{Message, ResponseHeader};
    use gregor::wire::Writer;

    fn frame(corr: i32, body: &[u8]) -> Vec<u8> {
        let mut w = Writer::new();
        let at = w.reserve_i32();
        ResponseHeader {
            correlation_id: corr,
            ..Default::default()
        }
        .encode(&mut w, 0)
        .unwrap();
        w.put(body);
        let n = w.len() as i32 - 4;
        w.patch_i32(at, n);
        w.into_vec()
    }

    /// When each request arrived: (API key, time).
    pub type Seen = Arc<Mutex<Vec<(i16, Instant)>>>;

    fn serve(mut s: TcpStream, port: u16, refusals: usize, seen: Seen) {
        loop {
            let mut size = [0u8; 4];
            if s.read_exact(&mut size).is_err() {
                return;
            }
            let mut buf = vec![0u8; i32::from_be_bytes(size) as usize];
            if s.read_exact(&mut buf).is_err() {
                return;
            }
            let key = i16::from_be_bytes([buf[0], buf[1]]);
            let version = i16::from_be_bytes([buf[2], buf[3]]);
            let corr = i32::from_be_bytes([buf[4], buf[5], buf[6], buf[7]]);
            let n = {
                let mut seen = seen.lock().unwrap();
                seen.push((key, Instant::now()));
                seen.iter().filter(|(k, _)| *k == key).count()
            };
            let body = match key {
                18 => {
                    let mut r = ApiVersionsResponse::default();
                    // non-flexible versions only: response header v0 throughout
                    r.api_keys = [(18, 0, 2), (3, 0, 8), (10, 0, 2)]
                        .iter()
                        .map(|&(k, lo, hi)| {
                            let mut v = ApiVersion::default();
                            v.api_key = k;
                            v.min_version = lo;
                            v.max_version = hi;
                            v
                        })
                        .collect();
                    r.to_bytes(version).unwrap()
                }
                3 => {
                    let mut b = MetadataResponseBroker::default();
                    b.node_id = 1;
                    b.host = "127.0.0.1".into();
                    b.port = i32::from(port);
                    let mut r = MetadataResponse::default();
                    r.brokers = vec![b];
                    r.controller_id = 1;
                    r.to_bytes(version).unwrap()
                }
                10 => {
                    let mut r = FindCoordinatorResponse::default();
                    if n <= refusals {
                        r.error_code = 15; // COORDINATOR_NOT_AVAILABLE
                        r.node_id = -1;
                    } else {
                        r.node_id = 1;
                        r.host = "127.0.0.1".into();
                        r.port = i32::from(port);
                    }
                    r.to_bytes(version).unwrap()
                }
                _ => return,
            };
            if s.write_all(&frame(corr, &body)).is_err() {
                return;
            }
        }
    }

    /// The broker's address and the requests it got.
    pub fn broker(refusals: usize) -> (String, Seen) {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        let seen: Seen = Arc::default();
        let s2 = seen.clone();
        std::thread::spawn(move || {
            for s in l.incoming().flatten() {
                let seen = s2.clone();
                std::thread::spawn(move || serve(s, port, refusals, seen));
            }
        });
        (format!("127.0.0.1:{port}"), seen)
    }
}

/// The gaps between FindCoordinator attempts of a coordinator lookup that
/// is refused four times, with `extra` settings.
fn coordinator_retry_gaps(extra: &[(&str, &str)]) -> Vec<Duration> {
    let (addr, seen) = scripted::broker(4);
    let mut c = Config::from_pairs([("bootstrap.servers", addr.as_str())]).unwrap();
    for (k, v) in extra {
        c.set(k, v).unwrap();
    }
    let cluster = Cluster::new(&c).unwrap();
    cluster
        .coordinator("config-g", 0, Duration::from_secs(20))
        .expect("found after four refusals");
    gaps(&seen, 10)
}

/// The gaps between the requests of API `key` the scripted broker got.
fn gaps(seen: &scripted::Seen, key: i16) -> Vec<Duration> {
    let t: Vec<Instant> = seen
        .lock()
        .unwrap()
        .iter()
        .filter(|(k, _)| *k == key)
        .map(|(_, t)| *t)
        .collect();
    t.windows(2).map(|w| w[1] - w[0]).collect()
}

#[test]
fn retry_backoff_ms_paces_coordinator_retries_for_every_client() {
    // retry.backoff.ms doubling up to retry.backoff.max.ms
    let gaps =
        coordinator_retry_gaps(&[("retry.backoff.ms", "150"), ("retry.backoff.max.ms", "400")]);
    for (gap, want) in gaps.iter().zip([150u64, 300, 400, 400]) {
        let want = Duration::from_millis(want);
        assert!(
            *gap >= want && *gap < want + Duration::from_millis(150),
            "gaps {gaps:?}, wanted about {want:?}"
        );
    }
    // the defaults: 100 ms doubling (up to 1000 ms)
    let gaps = coordinator_retry_gaps(&[]);
    for (gap, want) in gaps.iter().zip([100u64, 200, 400, 800]) {
        let want = Duration::from_millis(want);
        assert!(
            *gap >= want && *gap < want + Duration::from_millis(150),
            "gaps {gaps:?}, wanted about {want:?}"
        );
    }
}

/// The gaps between the producer's metadata requests for a topic the
/// scripted broker does not know (so its leaders stay unknown).
fn leaderless_refresh_gaps(extra: &[(&str, &str)]) -> Vec<Duration> {
    use gregor::message::ProducerRecord;
    let (addr, seen) = scripted::broker(0);
    let mut c = Config::from_pairs([("bootstrap.servers", addr.as_str())]).unwrap();
    for (k, v) in extra {
        c.set(k, v).unwrap();
    }
    let p = gregor::producer::Producer::new(&c).unwrap();
    let rec = ProducerRecord {
        topic: "config-leaderless",
        value: Some(b"v"),
        ..Default::default()
    };
    p.send(&rec, 0).unwrap();
    std::thread::sleep(Duration::from_millis(1800));
    drop(p);
    gaps(&seen, 3)
}

#[test]
fn topic_metadata_refresh_fast_interval_ms_paces_leader_lookups() {
    let g = leaderless_refresh_gaps(&[
        ("topic.metadata.refresh.fast.interval.ms", "100"),
        ("retry.backoff.max.ms", "400"),
    ]);
    assert!(g.len() >= 5, "{g:?}");
    for (gap, want) in g.iter().zip([100u64, 200, 400, 400, 400]) {
        let want = Duration::from_millis(want);
        assert!(
            // the time is taken when the sender decides, the request leaves a little later
            *gap + Duration::from_millis(50) >= want && *gap < want + Duration::from_millis(150),
            "gaps {g:?}, wanted about {want:?}"
        );
    }
    // a slower start
    let g = leaderless_refresh_gaps(&[
        ("topic.metadata.refresh.fast.interval.ms", "300"),
        ("retry.backoff.max.ms", "600"),
    ]);
    for (gap, want) in g.iter().zip([300u64, 600, 600]) {
        let want = Duration::from_millis(want);
        assert!(
            // the time is taken when the sender decides, the request leaves a little later
            *gap + Duration::from_millis(50) >= want && *gap < want + Duration::from_millis(150),
            "gaps {g:?}, wanted about {want:?}"
        );
    }
}
