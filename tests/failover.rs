//! Failover against a 3-broker cluster: leaders move and a broker goes down and comes back
//! while an idempotent producer (acks=all) sends keyed messages; every
//! message must then be read back exactly once, each key's messages in the
//! order they were sent. Prints what it measured.
//!
//! Each scenario runs on librdkafka's mock cluster (tests/mock_cluster/) and
//! on gregor's own (src/mock) at once, with the same code and assertions, and
//! prints the figures of both side by side (tests/mock_cluster/any.rs;
//! `GREGOR_FAILOVER_MOCKS=librdkafka` or `gregor` runs one of them only).
//!
//!     cargo test --test failover -- --nocapture

mod mock_cluster;

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use gregor::config::Config;
use gregor::consumer::{Consumer, TopicPartitionOffset as Tpo};
use gregor::message::{offset, ProducerRecord};
use gregor::producer::Producer;
use mock_cluster::any::{on_each, Cluster, Kind, Report};

const PRODUCE: i16 = 0;
const FETCH: i16 = 1;
const METADATA: i16 = 3;
/// How many transactions a transactional [`Producing`] run makes.
const TRANSACTIONS: usize = 5;

fn config(bootstrap: &str, extra: &[(&str, &str)]) -> Config {
    let mut c = Config::from_pairs([("bootstrap.servers", bootstrap)]).unwrap();
    for (k, v) in extra {
        c.set(k, v).unwrap();
    }
    c
}

/// Waits until `f` holds, up to `d`.
fn wait_for(d: Duration, what: &str, f: impl Fn() -> bool) {
    let until = Instant::now() + d;
    while !f() {
        assert!(Instant::now() < until, "timed out waiting for {what}");
        thread::sleep(Duration::from_millis(5));
    }
}

/// Reads `n` messages from every partition of `topic`, from the beginning,
/// at `isolation.level` `isolation`.
fn read_back(
    bootstrap: &str,
    topic: &str,
    partitions: i32,
    n: usize,
    isolation: &str,
) -> Vec<(i32, i64, String, u64)> {
    let c = Consumer::new(&config(
        bootstrap,
        &[
            ("enable.auto.commit", "false"),
            ("isolation.level", isolation),
        ],
    ))
    .unwrap();
    let tps: Vec<Tpo> = (0..partitions)
        .map(|p| Tpo::new(topic, p, offset::BEGINNING))
        .collect();
    c.assign(&tps).unwrap();
    let mut out = Vec::new();
    let until = Instant::now() + Duration::from_secs(60);
    while out.len() < n && Instant::now() < until {
        let Some(m) = c.poll(Duration::from_millis(200)).unwrap() else {
            continue;
        };
        if let Some(e) = &m.error {
            eprintln!("consumer event: {e}");
            continue;
        }
        let key = String::from_utf8(m.key.as_deref().unwrap().to_vec()).unwrap();
        let value: u64 = std::str::from_utf8(m.value.as_deref().unwrap())
            .unwrap()
            .parse()
            .unwrap();
        out.push((m.partition, m.offset, key, value));
    }
    // anything beyond n would be a duplicate: look a little longer
    let until = Instant::now() + Duration::from_millis(500);
    while Instant::now() < until {
        if let Some(m) = c.poll(Duration::from_millis(100)).unwrap() {
            if m.error.is_none() {
                let key = String::from_utf8(m.key.as_deref().unwrap().to_vec()).unwrap();
                let value = std::str::from_utf8(m.value.as_deref().unwrap())
                    .unwrap()
                    .parse()
                    .unwrap();
                out.push((m.partition, m.offset, key, value));
            }
        }
    }
    c.close();
    out
}

/// An idempotent producer (acks=all) sending `n` keyed messages (values
/// "0".."n-1", keys "k{i % keys}") from its own thread, one about every
/// millisecond, counting delivery reports.
struct Producing {
    delivered: Arc<AtomicUsize>,
    failed: Arc<Mutex<Vec<String>>>,
    worst: Arc<Mutex<Duration>>,
    t0: Instant,
    thread: thread::JoinHandle<()>,
}

impl Producing {
    fn start(bootstrap: &str, topic: &'static str, n: usize, keys: usize) -> Producing {
        Producing::start_with(
            bootstrap,
            topic,
            n,
            keys,
            None,
            &[
                ("enable.idempotence", "true"),
                ("acks", "all"),
                ("linger.ms", "5"),
                ("retry.backoff.ms", "20"),
                ("message.timeout.ms", "60000"),
            ],
        )
    }

    /// As [`Producing::start`] with the producer's configuration `cfg`, and
    /// with `per_sec`, message i sent at i / `per_sec` seconds from the
    /// start (else a millisecond's sleep after each message). With a
    /// `transactional.id` in `cfg`, the messages go in [`TRANSACTIONS`]
    /// committed transactions of equal size.
    fn start_with(
        bootstrap: &str,
        topic: &'static str,
        n: usize,
        keys: usize,
        per_sec: Option<u32>,
        cfg: &[(&str, &str)],
    ) -> Producing {
        let producer = Producer::new(&config(bootstrap, cfg)).unwrap();
        let delivered = Arc::new(AtomicUsize::new(0));
        let failed = Arc::new(Mutex::new(Vec::new()));
        let sent_at = Arc::new(Mutex::new(vec![None::<Instant>; n]));
        let worst = Arc::new(Mutex::new(Duration::ZERO));
        {
            let (delivered, failed, sent_at, worst) = (
                delivered.clone(),
                failed.clone(),
                sent_at.clone(),
                worst.clone(),
            );
            producer.set_delivery_callback(Some(Box::new(move |dr| {
                if let Some(e) = &dr.error {
                    failed.lock().unwrap().push(format!("{}: {e}", dr.opaque));
                } else if let Some(at) = sent_at.lock().unwrap()[dr.opaque] {
                    let mut w = worst.lock().unwrap();
                    *w = (*w).max(at.elapsed());
                }
                delivered.fetch_add(1, Ordering::SeqCst);
            })));
        }
        let per_txn = cfg
            .iter()
            .any(|(k, _)| *k == "transactional.id")
            .then(|| n.div_ceil(TRANSACTIONS));
        if per_txn.is_some() {
            producer.init_transactions(Duration::from_secs(30)).unwrap();
        }
        let t0 = Instant::now();
        let thread = thread::spawn(move || {
            for i in 0..n {
                if per_txn.is_some_and(|k| i % k == 0) {
                    producer.begin_transaction().unwrap();
                }
                if let Some(rate) = per_sec {
                    let at = t0 + Duration::from_secs_f64(i as f64 / f64::from(rate));
                    thread::sleep(at.saturating_duration_since(Instant::now()));
                }
                let key = format!("k{}", i % keys);
                let value = i.to_string();
                sent_at.lock().unwrap()[i] = Some(Instant::now());
                producer
                    .send_blocking(
                        &ProducerRecord {
                            topic,
                            partition: None,
                            key: Some(key.as_bytes()),
                            value: Some(value.as_bytes()),
                            headers: &[],
                            timestamp: None,
                        },
                        i,
                        Duration::from_secs(30),
                    )
                    .unwrap();
                producer.poll(Duration::ZERO);
                if per_txn.is_some_and(|k| (i + 1) % k == 0 || i + 1 == n) {
                    producer
                        .commit_transaction(Duration::from_secs(60))
                        .unwrap();
                }
                if per_sec.is_none() {
                    thread::sleep(Duration::from_millis(1));
                }
            }
            producer.flush(Duration::from_secs(60)).unwrap();
        });
        Producing {
            delivered,
            failed,
            worst,
            t0,
            thread,
        }
    }

    fn delivered(&self) -> usize {
        self.delivered.load(Ordering::SeqCst)
    }

    /// Waits until `k` messages were reported.
    fn wait_for(&self, k: usize) {
        wait_for(Duration::from_secs(60), &format!("{k} deliveries"), || {
            self.delivered() >= k
        });
    }

    fn ms(&self) -> u128 {
        self.t0.elapsed().as_millis()
    }

    /// Waits for the end; every message must be delivered. Returns the time
    /// it took and the slowest delivery.
    fn finish(self, n: usize) -> (Duration, Duration) {
        self.thread.join().expect("producer thread");
        let took = self.t0.elapsed();
        assert_eq!(
            self.delivered.load(Ordering::SeqCst),
            n,
            "every message reported"
        );
        let failed = self.failed.lock().unwrap();
        assert!(failed.is_empty(), "{failed:?}");
        let worst = *self.worst.lock().unwrap();
        (took, worst)
    }
}

/// What reading back showed: (lost, duplicated, keys reordered).
fn check(got: &[(i32, i64, String, u64)], n: usize) -> (Vec<u64>, Vec<u64>, Vec<String>) {
    let mut seen: HashMap<u64, usize> = HashMap::new();
    for (_, _, _, v) in got {
        *seen.entry(*v).or_default() += 1;
    }
    let lost: Vec<u64> = (0..n as u64).filter(|v| !seen.contains_key(v)).collect();
    let dups: Vec<u64> = seen
        .iter()
        .filter(|(_, &c)| c > 1)
        .map(|(v, _)| *v)
        .collect();
    // each key in one partition, in the order sent
    let mut per_key: BTreeMap<String, (i32, Vec<u64>)> = BTreeMap::new();
    for (p, _, k, v) in got {
        let e = per_key.entry(k.clone()).or_insert((*p, Vec::new()));
        assert_eq!(e.0, *p, "key {k} in partitions {} and {p}", e.0);
        e.1.push(*v);
    }
    let reordered: Vec<String> = per_key
        .iter()
        .filter(|(_, (_, vs))| vs.windows(2).any(|w| w[0] >= w[1]))
        .map(|(k, _)| k.clone())
        .collect();
    (lost, dups, reordered)
}

/// Requests of `api` per broker 1..=3.
fn per_broker(requests: &[mock_cluster::Tracked], api: i16) -> Vec<usize> {
    (1..=3)
        .map(|b| {
            requests
                .iter()
                .filter(|r| r.api_key == api && r.broker == b)
                .count()
        })
        .collect()
}

/// Reads `n` messages back (committed ones only when `committed`), prints
/// the figures and asserts exactly once, in order per key.
#[allow(clippy::too_many_arguments)]
fn read_back_and_check(
    cluster: &Cluster,
    r: &Report,
    name: &str,
    topic: &str,
    partitions: i32,
    n: usize,
    (took, worst): (Duration, Duration),
    committed: bool,
) {
    let requests = cluster.tracked();
    let t1 = Instant::now();
    let isolation = if committed {
        "read_committed"
    } else {
        "read_uncommitted"
    };
    let got = read_back(&cluster.bootstrap, topic, partitions, n, isolation);
    let read_time = t1.elapsed();
    let all_requests = cluster.tracked();
    let (lost, dups, reordered) = check(&got, n);
    r.say(format!(
        "{name}: produced {n} in {:.2} s, slowest delivery {:.0} ms; Produce requests per broker {:?}, \
         Metadata {:?}",
        took.as_secs_f64(),
        worst.as_secs_f64() * 1e3,
        per_broker(&requests, PRODUCE),
        per_broker(&requests, METADATA)
    ));
    r.say(format!(
        "{name}: read back {} in {:.2} s (Fetch per broker {:?}): lost {}, duplicated {}, keys reordered {}",
        got.len(),
        read_time.as_secs_f64(),
        per_broker(&all_requests[requests.len().min(all_requests.len())..], FETCH),
        lost.len(),
        dups.len(),
        reordered.len()
    ));
    assert!(lost.is_empty(), "lost {lost:?}");
    assert!(dups.is_empty(), "duplicated {dups:?}");
    assert!(reordered.is_empty(), "reordered keys {reordered:?}");
}

#[test]
fn idempotent_producer_through_leader_moves_and_a_broker_restart_loses_nothing() {
    on_each(
        "idempotent_producer_through_leader_moves_and_a_broker_restart_loses_nothing",
        None,
        |kind, r| {
            const N: usize = 3000;
            const PARTITIONS: i32 = 3;
            let cluster = Cluster::start(kind, 3);
            let topic = "failover";
            cluster.topic(topic, PARTITIONS, 3);
            // partition p led by broker p+1
            let mut leaders = vec![1, 2, 3];
            for p in 0..PARTITIONS {
                cluster.leader(topic, p, p + 1);
            }
            cluster.track_start();
            let run = Producing::start(&cluster.bootstrap, topic, N, 24);
            let mut rotate = |why: &str, ms: u128| {
                for (p, l) in leaders.iter_mut().enumerate() {
                    *l = *l % 3 + 1;
                    cluster.leader(topic, p as i32, *l);
                }
                r.note(format!("{ms:>6} ms: {why}: leaders now {leaders:?}"));
            };
            run.wait_for(500);
            rotate("leader move 1", run.ms());
            run.wait_for(1200);
            // broker 2 goes down; its partition gets a new leader (as a controller
            // would elect one), then it comes back
            cluster.down(2);
            // after move 1 broker 2 leads partition 0
            cluster.leader(topic, 0, 3);
            r.note(format!(
                "{:>6} ms: broker 2 down, partition 0 to broker 3",
                run.ms()
            ));
            thread::sleep(Duration::from_millis(500));
            cluster.up(2);
            r.note(format!("{:>6} ms: broker 2 up", run.ms()));
            run.wait_for(2000);
            rotate("leader move 2", run.ms());
            let figures = run.finish(N);
            r.say(format!(
                "failover: {N} messages, 24 keys, {PARTITIONS} partitions on 3 brokers; \
         2 leader moves + broker 2 down 500 ms"
            ));
            read_back_and_check(
                &cluster, r, "failover", topic, PARTITIONS, N, figures, false,
            );
        },
    );
}

/// Brokers that go away while produce requests are in flight whose batches
/// they had already appended: every broker answers 300 ms late, so those
/// answers are lost with the connection. An idempotent producer must send
/// such a batch again as it was (same producer id, epoch and base sequence,
/// never re-split), before the partition's later batches and in sequence
/// order, so that the broker, which keeps the last 5 batches of each
/// producer and partition, acknowledges it as a duplicate instead of writing
/// it twice (KIP-98); nothing may be written twice or out of order.
/// 16,000 keyed messages at 2,000 a second; broker 2 down at 3.0 s and up
/// at 3.5 s, broker 3 down at 5.0 s and up at 5.5 s.
#[test]
fn idempotent_producer_resends_the_unacknowledged_batches_of_a_lost_broker_once_in_order() {
    on_each(
        "idempotent_producer_resends_the_unacknowledged_batches_of_a_lost_broker_once_in_order",
        None,
        |kind, r| in_flight_to_a_lost_broker(kind, r, false),
    );
}

/// The same with a transactional producer: 5 committed transactions, read
/// back read_committed.
#[test]
fn transactional_producer_commits_through_a_lost_broker_exactly_once_in_order() {
    on_each(
        "transactional_producer_commits_through_a_lost_broker_exactly_once_in_order",
        None,
        |kind, r| in_flight_to_a_lost_broker(kind, r, true),
    );
}

/// 16,000 keyed messages at 2,000/s to 3 brokers answering 300 ms late, so
/// about 5 requests per connection are appended but not yet answered when
/// brokers 2 and 3 go down for 500 ms each: the lost answers must be retried
/// with their sequence, and every message read back once, in order per key.
/// With idempotence acks is all (librdkafka and the Java client refuse
/// anything else), so there is no acks variant to run.
fn in_flight_to_a_lost_broker(kind: Kind, r: &Report, transactional: bool) {
    const N: usize = 16_000;
    const PER_SEC: u32 = 2_000;
    const PARTITIONS: i32 = 6;
    const RTT_MS: u32 = 300;
    let cluster = Cluster::start(kind, 3);
    let topic = if transactional {
        "inflight-txn"
    } else {
        "inflight"
    };
    cluster.topic(topic, PARTITIONS, 3);
    // broker b leads partitions b-1 and b+2
    for p in 0..PARTITIONS {
        cluster.leader(topic, p, p % 3 + 1);
    }
    for b in 1..=3 {
        cluster.rtt(b, RTT_MS);
    }
    cluster.track_start();
    let mut cfg = vec![
        ("enable.idempotence", "true"),
        ("message.timeout.ms", "60000"),
    ];
    if transactional {
        cfg.push(("transactional.id", "failover-in-flight"));
        cfg.push(("transaction.timeout.ms", "60000"));
    }
    let run = Producing::start_with(&cluster.bootstrap, topic, N, 24, Some(PER_SEC), &cfg);
    let at = |ms: u64| {
        thread::sleep(
            (run.t0 + Duration::from_millis(ms)).saturating_duration_since(Instant::now()),
        );
    };
    for (b, down_ms) in [(2, 3000), (3, 5000)] {
        at(down_ms);
        cluster.down(b);
        r.note(format!(
            "{:>6} ms: broker {b} down ({} delivered)",
            run.ms(),
            run.delivered()
        ));
        at(down_ms + 500);
        cluster.up(b);
        r.note(format!("{:>6} ms: broker {b} up", run.ms()));
    }
    let figures = run.finish(N);
    for b in 1..=3 {
        cluster.rtt(b, 0);
    }
    let what = if transactional {
        format!("{TRANSACTIONS} committed transactions")
    } else {
        "idempotent".to_string()
    };
    r.say(format!(
        "in flight to a lost broker: {N} messages at {PER_SEC}/s, {what}, 24 keys, {PARTITIONS} \
         partitions on 3 brokers answering {RTT_MS} ms late; brokers 2 and 3 down 500 ms each"
    ));
    read_back_and_check(
        &cluster,
        r,
        "in flight",
        topic,
        PARTITIONS,
        N,
        figures,
        transactional,
    );
}

/// Produce answers with retriable errors (NOT_ENOUGH_REPLICAS from one
/// broker, NOT_LEADER_OR_FOLLOWER from any) and a slow broker: every message
/// is still written exactly once, in order per key.
#[test]
fn idempotent_producer_through_produce_errors_and_a_slow_broker_loses_nothing() {
    on_each(
        "idempotent_producer_through_produce_errors_and_a_slow_broker_loses_nothing",
        None,
        |kind, r| {
            const N: usize = 2000;
            const PARTITIONS: i32 = 3;
            const NOT_LEADER_OR_FOLLOWER: i16 = 6;
            const NOT_ENOUGH_REPLICAS: i16 = 19;
            let cluster = Cluster::start(kind, 3);
            let topic = "errors";
            cluster.topic(topic, PARTITIONS, 3);
            for p in 0..PARTITIONS {
                cluster.leader(topic, p, p + 1);
            }
            cluster.track_start();
            let run = Producing::start(&cluster.bootstrap, topic, N, 24);
            run.wait_for(300);
            cluster.broker_err(1, PRODUCE, NOT_ENOUGH_REPLICAS, 5, 0);
            r.note(format!(
                "{:>6} ms: broker 1: 5 × NOT_ENOUGH_REPLICAS",
                run.ms()
            ));
            run.wait_for(800);
            cluster.err(PRODUCE, NOT_LEADER_OR_FOLLOWER, 5);
            r.note(format!(
                "{:>6} ms: any broker: 5 × NOT_LEADER_OR_FOLLOWER",
                run.ms()
            ));
            run.wait_for(1300);
            cluster.rtt(2, 200);
            r.note(format!("{:>6} ms: broker 2 answers 200 ms late", run.ms()));
            run.wait_for(1600);
            cluster.rtt(2, 0);
            r.note(format!("{:>6} ms: broker 2 on time again", run.ms()));
            let figures = run.finish(N);
            r.say(format!(
                "produce errors: {N} messages, 24 keys, {PARTITIONS} partitions on 3 brokers; \
         5 × NOT_ENOUGH_REPLICAS, 5 × NOT_LEADER_OR_FOLLOWER, broker 2 200 ms slow"
            ));
            read_back_and_check(
                &cluster,
                r,
                "produce errors",
                topic,
                PARTITIONS,
                N,
                figures,
                false,
            );
        },
    );
}

/// F1 against the mock itself: its UNSUPPORTED_VERSION answer to a v4
/// ApiVersions request is not a v0 body; gregor asks again at v0 and gets on
/// with the cluster, on every broker it connects to.
#[test]
fn connects_to_the_mock_cluster_by_asking_api_versions_again_at_v0() {
    on_each("connects_to_the_mock_cluster_by_asking_api_versions_again_at_v0", Some((Kind::Gregor, "a quirk of librdkafka's mock: its UNSUPPORTED_VERSION answer to ApiVersions v4 is not a v0 body; gregor's mock serves ApiVersions v0-v4")), |kind, r| {
    let cluster = Cluster::start(kind, 3);
    cluster.topic("f1", 3, 1);
    for p in 0..3 {
        cluster.leader("f1", p, p + 1);
    }
    cluster.track_start();
    let p = Producer::new(&config(&cluster.bootstrap, &[])).unwrap();
    for i in 0..3 {
        p.send(
            &ProducerRecord {
                topic: "f1",
                partition: Some(i),
                key: None,
                value: Some(b"v"),
                headers: &[],
                timestamp: None,
            },
            0,
        )
        .unwrap();
    }
    p.flush(Duration::from_secs(30)).unwrap();
    let versions = cluster.versions();
    let api_versions: Vec<(i32, i16)> = versions
        .iter()
        .filter(|(_, name, _)| name == "ApiVersion")
        .map(|(b, _, v)| (*b, *v))
        .collect();
    r.say(format!("ApiVersions requests (broker, version): {api_versions:?}"));
    for b in 1..=3 {
        let on_b: Vec<i16> = api_versions
            .iter()
            .filter(|(x, _)| *x == b)
            .map(|(_, v)| *v)
            .collect();
        assert!(
            on_b.len() >= 2 && on_b[0] > 3 && on_b[1] == 0,
            "broker {b}: {on_b:?}"
        );
    }
    assert!(versions.iter().any(|(_, name, _)| name == "Produce"));
    });
}

/// KIP-951: after a leader move, the old leader's NOT_LEADER_OR_FOLLOWER
/// answer to Produce names the new leader (and its endpoint); the producer
/// sends there at once, without asking for metadata, and nothing is lost or
/// reordered.
#[test]
fn producer_follows_the_new_leader_named_in_a_not_leader_answer_without_metadata() {
    on_each(
        "producer_follows_the_new_leader_named_in_a_not_leader_answer_without_metadata",
        None,
        |kind, r| {
            let cluster = Cluster::start(kind, 3);
            cluster.topic("kip951", 1, 3);
            cluster.leader("kip951", 0, 1);
            let p = Producer::new(&config(
                &cluster.bootstrap,
                &[("enable.idempotence", "true"), ("linger.ms", "0")],
            ))
            .unwrap();
            send_range(&p, "kip951", 0, "m", 0..10);
            p.flush(Duration::from_secs(30)).unwrap();
            cluster.track_start();
            cluster.leader("kip951", 0, 2);
            send_range(&p, "kip951", 0, "m", 10..20);
            p.flush(Duration::from_secs(30)).unwrap();
            let versions = cluster.versions();
            let produce: Vec<i32> = versions
                .iter()
                .filter(|(_, n, _)| n == "Produce")
                .map(|(b, _, _)| *b)
                .collect();
            let metadata = versions.iter().filter(|(_, n, _)| n == "Metadata").count();
            r.say(format!("KIP-951: Produce requests by broker after the move {produce:?}, Metadata requests {metadata}"));
            // pipelined requests may all reach the old leader; then only the new one
            assert_eq!(produce.first(), Some(&1), "{versions:?}");
            assert_eq!(produce.last(), Some(&2), "{versions:?}");
            assert!(produce.windows(2).all(|w| w[0] <= w[1]), "{versions:?}");
            assert_eq!(metadata, 0, "no metadata round trip: {versions:?}");
            let c = Consumer::new(&config(&cluster.bootstrap, &[])).unwrap();
            c.assign(&[Tpo::new("kip951", 0, offset::BEGINNING)])
                .unwrap();
            let mut got = Vec::new();
            let until = Instant::now() + Duration::from_secs(20);
            while got.len() < 20 && Instant::now() < until {
                if let Some(m) = c.poll(Duration::from_millis(100)).unwrap() {
                    got.push(String::from_utf8(m.value.as_deref().unwrap().to_vec()).unwrap());
                }
            }
            let expected: Vec<String> = (0..20).map(|i| format!("m{i}")).collect();
            assert_eq!(got, expected);
        },
    );
}

/// KIP-951 for the consumer: after a leader move, the old leader's
/// NOT_LEADER_OR_FOLLOWER answer to Fetch names the new leader and its
/// endpoint; the consumer fetches there without asking for metadata.
#[test]
fn consumer_follows_the_new_leader_named_in_a_not_leader_answer_without_metadata() {
    on_each(
        "consumer_follows_the_new_leader_named_in_a_not_leader_answer_without_metadata",
        None,
        |kind, r| {
            let cluster = Cluster::start(kind, 3);
            cluster.topic("kip951c", 1, 3);
            cluster.leader("kip951c", 0, 1);
            produce_n(&cluster.bootstrap, "kip951c", 10);
            let c = Consumer::new(&config(&cluster.bootstrap, &[("fetch.wait.max.ms", "100")]))
                .unwrap();
            c.assign(&[Tpo::new("kip951c", 0, offset::BEGINNING)])
                .unwrap();
            let mut got = Vec::new();
            let mut poll_until = |n: usize| {
                let until = Instant::now() + Duration::from_secs(20);
                while got.len() < n && Instant::now() < until {
                    if let Some(m) = c.poll(Duration::from_millis(100)).unwrap() {
                        assert!(m.error.is_none(), "{:?}", m.error);
                        got.push(String::from_utf8(m.value.as_deref().unwrap().to_vec()).unwrap());
                    }
                }
            };
            poll_until(10);
            // a producer that knows the topic already (and follows the move by KIP-951 too)
            let p = Producer::new(&config(&cluster.bootstrap, &[])).unwrap();
            p.cluster()
                .topic("kip951c", false, Duration::from_secs(10))
                .unwrap();
            cluster.track_start();
            cluster.leader("kip951c", 0, 2);
            send_range(&p, "kip951c", 0, "m", 10..20);
            p.flush(Duration::from_secs(30)).unwrap();
            poll_until(20);
            let versions = cluster.versions();
            // every Fetch after the move went to 1 until an answer named 2, then to 2
            let fetches: Vec<i32> = versions
                .iter()
                .filter(|(_, n, _)| n == "Fetch")
                .map(|(b, _, _)| *b)
                .collect();
            let metadata = versions.iter().filter(|(_, n, _)| n == "Metadata").count();
            r.say(format!("KIP-951 consumer: Fetch by broker after the move {fetches:?}, Metadata requests {metadata}"));
            let expected: Vec<String> = (0..20).map(|i| format!("m{i}")).collect();
            assert_eq!(got, expected);
            assert!(fetches.windows(2).all(|w| w[0] <= w[1]), "{fetches:?}");
            assert_eq!(fetches.last(), Some(&2), "{fetches:?}");
            assert_eq!(metadata, 0, "no metadata round trip: {versions:?}");
        },
    );
}

/// A consumer group whose coordinator moves to another broker while it
/// consumes: the member finds the new coordinator, keeps its assignment and
/// commits there; every message is read once.
#[test]
fn consumer_group_follows_its_coordinator_to_another_broker() {
    on_each(
        "consumer_group_follows_its_coordinator_to_another_broker",
        None,
        |kind, r| {
            let cluster = Cluster::start(kind, 3);
            cluster.rebalance_delay(0);
            cluster.topic("grp", 2, 3);
            cluster.coordinator("group", "g1", 1);
            for p in 0..2 {
                let prod = Producer::new(&config(&cluster.bootstrap, &[])).unwrap();
                send_range(&prod, "grp", p, &format!("p{p}m"), 0..10);
                prod.flush(Duration::from_secs(30)).unwrap();
            }
            let c = Consumer::new(&config(
                &cluster.bootstrap,
                &[
                    ("group.id", "g1"),
                    ("auto.offset.reset", "earliest"),
                    ("enable.auto.commit", "false"),
                ],
            ))
            .unwrap();
            c.subscribe(&["grp"]).unwrap();
            let mut got = Vec::new();
            let poll_until = |got: &mut Vec<String>, n: usize| {
                let until = Instant::now() + Duration::from_secs(30);
                while got.len() < n && Instant::now() < until {
                    if let Some(m) = c.poll(Duration::from_millis(100)).unwrap() {
                        if let Some(e) = &m.error {
                            r.note(format!("event: {e}"));
                            continue;
                        }
                        got.push(String::from_utf8(m.value.as_deref().unwrap().to_vec()).unwrap());
                    }
                }
            };
            poll_until(&mut got, 20);
            c.commit(None, Duration::from_secs(10)).unwrap();
            cluster.track_start();
            cluster.coordinator("group", "g1", 2);
            // more messages; read and committed through the new coordinator
            let prod = Producer::new(&config(&cluster.bootstrap, &[])).unwrap();
            send_range(&prod, "grp", 0, "p0m", 10..20);
            prod.flush(Duration::from_secs(30)).unwrap();
            poll_until(&mut got, 30);
            let committed = c.commit(None, Duration::from_secs(10));
            let versions = cluster.versions();
            c.close();
            let commits: Vec<i32> = versions
                .iter()
                .filter(|(_, n, _)| n == "OffsetCommit")
                .map(|(b, _, _)| *b)
                .collect();
            r.say(format!("coordinator move: read {}; OffsetCommit by broker after the move {commits:?}; commit {committed:?}", got.len()));
            got.sort();
            let mut expected: Vec<String> = (0..20).map(|i| format!("p0m{i}")).collect();
            expected.extend((0..10).map(|i| format!("p1m{i}")));
            expected.sort();
            assert_eq!(got, expected);
            committed.unwrap();
            assert_eq!(commits.last(), Some(&2), "{versions:?}");
        },
    );
}

/// Produces `n` messages "m0".."m{n-1}" to partition 0 of `topic`.
fn produce_n(bootstrap: &str, topic: &str, n: usize) {
    let p = Producer::new(&config(bootstrap, &[])).unwrap();
    send_range(&p, topic, 0, "m", 0..n);
    p.flush(Duration::from_secs(30)).unwrap();
}

/// Queues "{prefix}{i}" for each `i` of `range` (opaque `i`, no key) to
/// `partition` of `topic`; the caller flushes.
fn send_range(
    p: &Producer,
    topic: &str,
    partition: i32,
    prefix: &str,
    range: std::ops::Range<usize>,
) {
    for i in range {
        let v = format!("{prefix}{i}");
        p.send(
            &ProducerRecord {
                topic,
                partition: Some(partition),
                key: None,
                value: Some(v.as_bytes()),
                headers: &[],
                timestamp: None,
            },
            i,
        )
        .unwrap();
    }
}

/// F4: `gregor -C` recovers from fetch errors a leader move causes
/// (NOT_LEADER_OR_FOLLOWER) without printing them, as kcat does (librdkafka
/// handles them inside its fetcher); both print every message.
#[test]
fn cli_consume_recovers_from_not_leader_without_printing_an_error_like_kcat() {
    on_each(
        "cli_consume_recovers_from_not_leader_without_printing_an_error_like_kcat",
        None,
        |kind, r| {
            const NOT_LEADER_OR_FOLLOWER: i16 = 6;
            let cluster = Cluster::start(kind, 3);
            cluster.topic("f4", 1, 3);
            cluster.leader("f4", 0, 1);
            produce_n(&cluster.bootstrap, "f4", 20);
            let expected: String = (0..20).map(|i| format!("m{i}\n")).collect();
            let kcat = format!(
                "{}/.local/share/gregor-deps/librdkafka/bin/kcat",
                std::env::var("HOME").unwrap()
            );
            let kcat = std::env::var("GREGOR_KCAT").unwrap_or(kcat);
            for prog in [env!("CARGO_BIN_EXE_gregor"), kcat.as_str()] {
                // the leader answers the next Fetch requests NOT_LEADER_OR_FOLLOWER
                cluster.broker_err(1, FETCH, NOT_LEADER_OR_FOLLOWER, 3, 0);
                let out = std::process::Command::new(prog)
                    .args([
                        "-C",
                        "-b",
                        &cluster.bootstrap,
                        "-t",
                        "f4",
                        "-o",
                        "beginning",
                        "-e",
                    ])
                    .output()
                    .unwrap_or_else(|e| panic!("cannot run {prog}: {e}"));
                let stderr = String::from_utf8_lossy(&out.stderr);
                r.say(format!(
                    "{prog}: exit {:?}, stderr {stderr:?}",
                    out.status.code()
                ));
                assert!(out.status.success(), "{prog}: {stderr}");
                assert_eq!(String::from_utf8_lossy(&out.stdout), expected, "{prog}");
                // no error, nor librdkafka's error-level log ("%3|...": a
                // protocol parse failure, say)
                assert!(
                    !stderr.contains("ERROR") && !stderr.contains("%3|"),
                    "{prog}: {stderr}"
                );
            }
        },
    );
}

/// F3 and KIP-392: the leader names broker 2 as the preferred read replica
/// (librdkafka's mock names it whatever the rack, gregor's to a consumer
/// that sends one; a real broker picks one in the consumer's `client.rack`). The consumer reads everything from broker 2;
/// before, it asked the leader again at once, in a loop, and read nothing.
/// At the end of the partition it does not loop either.
#[test]
fn consumer_fetches_from_the_preferred_read_replica_without_a_busy_loop() {
    on_each(
        "consumer_fetches_from_the_preferred_read_replica_without_a_busy_loop",
        None,
        |kind, r| {
            const N: usize = 50;
            let cluster = Cluster::start(kind, 3);
            for b in 1..=3 {
                cluster.rack(b, &format!("rack{b}"));
            }
            cluster.topic("ffr", 1, 3);
            cluster.leader("ffr", 0, 1);
            produce_n(&cluster.bootstrap, "ffr", N);
            cluster.follower("ffr", 0, 2);
            cluster.track_start();

            let c = Consumer::new(&config(
                &cluster.bootstrap,
                &[("client.rack", "rack2"), ("enable.auto.commit", "false")],
            ))
            .unwrap();
            c.assign(&[Tpo::new("ffr", 0, offset::BEGINNING)]).unwrap();
            let mut got = Vec::new();
            let until = Instant::now() + Duration::from_secs(30);
            while got.len() < N && Instant::now() < until {
                if let Some(m) = c.poll(Duration::from_millis(100)).unwrap() {
                    assert!(m.error.is_none(), "{:?}", m.error);
                    got.push(String::from_utf8(m.value.as_deref().unwrap().to_vec()).unwrap());
                }
            }
            let read = cluster.tracked();
            // a second at the end of the partition
            let idle_from = read.len();
            let until = Instant::now() + Duration::from_secs(1);
            while Instant::now() < until {
                assert!(c.poll(Duration::from_millis(100)).unwrap().is_none());
            }
            let all = cluster.tracked();
            c.close();
            let fetches = |rs: &[mock_cluster::Tracked], b: i32| {
                rs.iter()
                    .filter(|r| r.api_key == FETCH && r.broker == b)
                    .count()
            };
            let idle = &all[idle_from..];
            r.say(format!(
        "fetch from follower: read {} of {N}; Fetch requests while reading: leader {}, follower {}, \
         other {}; in 1 s idle at the end: leader {}, follower {}",
        got.len(),
        fetches(&read, 1),
        fetches(&read, 2),
        fetches(&read, 3),
        fetches(idle, 1),
        fetches(idle, 2),
    ));
            let expected: Vec<String> = (0..N).map(|i| format!("m{i}")).collect();
            assert_eq!(got, expected);
            assert!(fetches(&read, 2) >= 1, "read from the follower");
            assert!(
                fetches(&read, 1) <= 5,
                "the leader was asked again and again"
            );
            assert_eq!(fetches(&read, 3), 0);
            // fetch.wait.max.ms is 500: a handful of fetches in a second, not thousands
            assert!(
                fetches(idle, 1) + fetches(idle, 2) <= 10,
                "busy loop at the end"
            );
        },
    );
}

/// What a client pair did when its cluster was replaced by another.
struct Replaced {
    /// Messages sent after the replacement: delivered, failed.
    delivered: usize,
    failed: usize,
    /// "after" messages the consumer read.
    consumed: Vec<String>,
    /// Requests the new cluster received from the clients.
    new_cluster_requests: usize,
    took: Duration,
}

/// KIP-899: a producer and a consumer whose `bootstrap.servers` lists two
/// 1-broker clusters, A and B; they learn A's broker, A goes away for good
/// and 20 messages are sent. With `metadata.recovery.strategy=rebootstrap`
/// they go back to the bootstrap list and carry on with B; with `none`
/// they keep asking A's broker (as librdkafka 2.10+).
fn replace_cluster(kind: Kind, strategy: &str) -> Replaced {
    let a = Cluster::start(kind, 1);
    let b = Cluster::start(kind, 1);
    a.topic("rb", 1, 1);
    b.topic("rb", 1, 1);
    let both = format!("{},{}", a.bootstrap, b.bootstrap);
    // without re-bootstrap nothing will arrive: wait less for it
    let (timeout, wait) = if strategy == "none" {
        ("2500", 3)
    } else {
        ("5000", 7)
    };
    let extra = [
        ("metadata.recovery.strategy", strategy),
        ("message.timeout.ms", timeout),
        ("retry.backoff.ms", "20"),
        ("reconnect.backoff.max.ms", "200"),
    ];
    let producer = Producer::new(&config(&both, &extra)).unwrap();
    let ok = Arc::new(AtomicUsize::new(0));
    let failed = Arc::new(AtomicUsize::new(0));
    {
        let (ok, failed) = (ok.clone(), failed.clone());
        producer.set_delivery_callback(Some(Box::new(move |dr| {
            if dr.error.is_some() {
                failed.fetch_add(1, Ordering::SeqCst);
            } else {
                ok.fetch_add(1, Ordering::SeqCst);
            }
        })));
    }
    let mut cextra = extra.to_vec();
    cextra.push(("auto.offset.reset", "earliest"));
    let consumer = Consumer::new(&config(&both, &cextra)).unwrap();
    consumer
        .assign(&[Tpo::new("rb", 0, offset::BEGINNING)])
        .unwrap();
    send_range(&producer, "rb", 0, "before", 0..5);
    producer.flush(Duration::from_secs(10)).unwrap();
    assert_eq!(ok.load(Ordering::SeqCst), 5, "delivered to cluster A");
    ok.store(0, Ordering::SeqCst);
    let mut before = 0;
    let until = Instant::now() + Duration::from_secs(10);
    while before < 5 && Instant::now() < until {
        if let Some(m) = consumer.poll(Duration::from_millis(50)).unwrap() {
            if m.error.is_none() {
                before += 1;
            }
        }
    }
    assert_eq!(before, 5, "read from cluster A");

    drop(a);
    b.track_start();
    let t0 = Instant::now();
    send_range(&producer, "rb", 0, "after", 0..20);
    let mut consumed = Vec::new();
    // the consumer's position (5) is valid on B once B has 5 messages, so
    // it reads at least after5..after19 (all of them if it resets first)
    let until = Instant::now() + Duration::from_secs(wait);
    let late = |v: &String| {
        v.strip_prefix("after")
            .and_then(|n| n.parse::<u32>().ok())
            .is_some_and(|n| n >= 5)
    };
    while consumed.iter().filter(|v| late(v)).count() < 15 && Instant::now() < until {
        producer.poll(Duration::ZERO);
        if let Some(m) = consumer.poll(Duration::from_millis(50)).unwrap() {
            if m.error.is_none() {
                consumed.push(String::from_utf8(m.value.as_deref().unwrap().to_vec()).unwrap());
            }
        }
    }
    let _ = producer.flush(Duration::from_secs(10));
    let took = t0.elapsed();
    let new_cluster_requests = b.tracked().len();
    consumer.close();
    Replaced {
        delivered: ok.load(Ordering::SeqCst),
        failed: failed.load(Ordering::SeqCst),
        consumed,
        new_cluster_requests,
        took,
    }
}

#[test]
fn producer_and_consumer_rebootstrap_when_their_cluster_is_replaced() {
    on_each(
        "producer_and_consumer_rebootstrap_when_their_cluster_is_replaced",
        None,
        |kind, r| {
            let rr = replace_cluster(kind, "rebootstrap");
            r.say(format!(
        "re-bootstrap: after the cluster was replaced, delivered {}/20 (failed {}), consumed {} \
         in {:.2} s; requests to the new cluster {}",
        rr.delivered,
        rr.failed,
        rr.consumed.len(),
        rr.took.as_secs_f64(),
        rr.new_cluster_requests
    ));
            assert_eq!((rr.delivered, rr.failed), (20, 0));
            for i in 5..20 {
                let v = format!("after{i}");
                assert_eq!(
                    rr.consumed.iter().filter(|c| **c == v).count(),
                    1,
                    "{v} in {:?}",
                    rr.consumed
                );
            }
        },
    );
}

#[test]
fn with_recovery_strategy_none_clients_do_not_rebootstrap() {
    on_each(
        "with_recovery_strategy_none_clients_do_not_rebootstrap",
        None,
        |kind, r| {
            let rr = replace_cluster(kind, "none");
            r.say(format!(
        "strategy none: after the cluster was replaced, delivered {}/20 (failed {}), consumed {}; \
         requests to the new cluster {}",
        rr.delivered,
        rr.failed,
        rr.consumed.len(),
        rr.new_cluster_requests
    ));
            assert_eq!((rr.delivered, rr.failed), (0, 20));
            assert!(rr.consumed.is_empty(), "{:?}", rr.consumed);
            assert_eq!(rr.new_cluster_requests, 0);
        },
    );
}
