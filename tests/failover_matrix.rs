//! The failover matrix against a 3-broker mock cluster (librdkafka's, see
//! tests/mock_cluster/): every retriable error of the APIs a producer, a
//! transactional producer and a group consumer use, injected once and
//! three times in a row; the work must then complete with nothing lost, no
//! duplicates and each partition in order (librdkafka retries each of these
//! errors inside the client: none reaches the application). Each API runs
//! on its own cluster, the APIs in parallel; the table of what happened is
//! printed.
//!
//! Every scenario runs on librdkafka's mock cluster and on gregor's own
//! (src/mock) at once, with the same code and assertions, their figures side
//! by side (tests/mock_cluster/any.rs; `GREGOR_FAILOVER_MOCKS=librdkafka` or
//! `gregor` runs one of them only; `GREGOR_FAILOVER_MATRIX=subset` runs the
//! first code of each API only on gregor's).
//!
//!     cargo test --test failover_matrix -- --nocapture

mod mock_cluster;

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use gregor::config::Config;
use gregor::consumer::{Consumer, TopicPartitionOffset as Tpo};
use gregor::message::{offset, ProducerRecord};
use gregor::producer::Producer;
use mock_cluster::any::{on_each, Cluster, Kind};

fn config(bootstrap: &str, extra: &[(&str, &str)]) -> Config {
    let mut c = Config::from_pairs([("bootstrap.servers", bootstrap)]).unwrap();
    for (k, v) in extra {
        c.set(k, v).unwrap();
    }
    c
}

const PARTITIONS: i32 = 3;
const HEARTBEAT: i16 = 12;
const N: usize = 60;

/// What one scenario showed.
#[derive(Debug, Default)]
struct Outcome {
    /// The error that reached the application, if any.
    error: Option<String>,
    read: usize,
    lost: usize,
    duplicated: usize,
    reordered: usize,
    /// Requests of the injected API the cluster received.
    requests: usize,
}

/// Sends "v{i}" for i in `range`, keyed "k{i % 6}", and waits for every
/// report; returns the errors reported.
fn produce(p: &Producer, topic: &str, range: std::ops::Range<usize>) -> Vec<String> {
    let errors = Arc::new(std::sync::Mutex::new(Vec::new()));
    let done = Arc::new(AtomicUsize::new(0));
    {
        let (errors, done) = (errors.clone(), done.clone());
        p.set_delivery_callback(Some(Box::new(move |dr| {
            if let Some(e) = &dr.error {
                errors.lock().unwrap().push(e.to_string());
            }
            done.fetch_add(1, Ordering::SeqCst);
        })));
    }
    let n = range.len();
    for i in range {
        let (k, v) = (format!("k{}", i % 6), format!("v{i}"));
        p.send(
            &ProducerRecord {
                topic,
                partition: None,
                key: Some(k.as_bytes()),
                value: Some(v.as_bytes()),
                headers: &[],
                timestamp: None,
            },
            i,
        )
        .unwrap();
    }
    if let Err(e) = p.flush(Duration::from_secs(20)) {
        errors.lock().unwrap().push(format!("flush: {e}"));
    }
    assert_eq!(done.load(Ordering::SeqCst), n, "every message reported");
    let e = errors.lock().unwrap().clone();
    e
}

/// Reads until `n` messages came (or `max` passed), then a little longer
/// for duplicates; (partition, key, value number) of each.
fn consume(c: &Consumer, n: usize, max: Duration) -> (Vec<(i32, String, u64)>, Option<String>) {
    let mut out = Vec::new();
    let mut error = None;
    let until = Instant::now() + max;
    let mut extra_until = None;
    loop {
        let now = Instant::now();
        if now > until || extra_until.is_some_and(|t| now > t) {
            break;
        }
        if out.len() >= n && extra_until.is_none() {
            extra_until = Some(now + Duration::from_millis(300));
        }
        match c.poll(Duration::from_millis(50)) {
            Ok(Some(m)) => match &m.error {
                Some(e) => error = Some(e.to_string()),
                None => out.push((
                    m.partition,
                    String::from_utf8_lossy(m.key.as_deref().unwrap_or_default()).into_owned(),
                    std::str::from_utf8(m.value.as_deref().unwrap())
                        .unwrap()
                        .trim_start_matches('v')
                        .parse()
                        .unwrap(),
                )),
            },
            Ok(None) => {}
            Err(e) => error = Some(e.to_string()),
        }
    }
    (out, error)
}

fn check(o: &mut Outcome, got: &[(i32, String, u64)], range: std::ops::Range<usize>) {
    let mut seen: HashMap<u64, usize> = HashMap::new();
    for (_, _, v) in got {
        *seen.entry(*v).or_default() += 1;
    }
    o.read = got.len();
    o.lost = range.filter(|v| !seen.contains_key(&(*v as u64))).count();
    o.duplicated = seen.values().filter(|&&c| c > 1).count();
    let mut per_key: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
    for (_, k, v) in got {
        per_key.entry(k).or_default().push(*v);
    }
    o.reordered = per_key
        .values()
        .filter(|vs| vs.windows(2).any(|w| w[0] >= w[1]))
        .count();
}

fn reader(bootstrap: &str, extra: &[(&str, &str)]) -> Consumer {
    Consumer::new(&config(bootstrap, extra)).unwrap()
}

fn assign_all(c: &Consumer, topic: &str) {
    let tps: Vec<Tpo> = (0..PARTITIONS)
        .map(|p| Tpo::new(topic, p, offset::BEGINNING))
        .collect();
    c.assign(&tps).unwrap();
}

/// The work each API's errors are injected into.
#[derive(Clone, Copy, Debug)]
enum Work {
    /// An idempotent producer (acks=all) sends N keyed messages.
    Produce,
    /// N messages are there; a consumer assigned from the beginning reads them.
    Read,
    /// N messages are there; a group member reads them, stays a second
    /// (heartbeats) and commits; a second member of the group then starts
    /// from the committed offsets and must find nothing left.
    Group,
    /// A transactional producer commits N messages; a read_committed
    /// consumer reads them.
    Transaction,
}

fn run(cluster: &Cluster, work: Work, topic: &str, api: i16, code: i16, count: usize) -> Outcome {
    let bs = &cluster.bootstrap;
    cluster.topic(topic, PARTITIONS, 3);
    let mut o = Outcome::default();
    let fill = |range| {
        let p = Producer::new(&config(bs, &[])).unwrap();
        let e = produce(&p, topic, range);
        assert!(e.is_empty(), "{e:?}");
    };
    let mut tracked_from = 0;
    let mut inject = |_: &mut Outcome| {
        tracked_from = cluster.tracked().len();
        cluster.err(api, code, count);
    };
    match work {
        Work::Produce => {
            inject(&mut o);
            let p = Producer::new(&config(
                bs,
                &[
                    ("enable.idempotence", "true"),
                    ("acks", "all"),
                    ("retry.backoff.ms", "20"),
                ],
            ))
            .unwrap();
            let e = produce(&p, topic, 0..N);
            o.error = e.first().cloned();
            let c = reader(bs, &[]);
            assign_all(&c, topic);
            let (got, _) = consume(&c, N, Duration::from_secs(20));
            c.close();
            check(&mut o, &got, 0..N);
        }
        Work::Read => {
            fill(0..N);
            inject(&mut o);
            let c = reader(bs, &[("fetch.error.backoff.ms", "20")]);
            assign_all(&c, topic);
            let (got, e) = consume(&c, N, Duration::from_secs(20));
            c.close();
            o.error = e;
            check(&mut o, &got, 0..N);
        }
        Work::Group => {
            fill(0..N);
            let group = format!("{topic}-g");
            let gcfg = [
                ("group.id", group.as_str()),
                ("auto.offset.reset", "earliest"),
                ("enable.auto.commit", "false"),
                ("heartbeat.interval.ms", "100"),
                // the mock holds a rejoin for the session timeout less 1 s
                ("session.timeout.ms", "2000"),
                ("retry.backoff.ms", "20"),
            ];
            // Heartbeat's errors come once the member is in the group and
            // has committed what it read (with the eager protocol a rejoin
            // starts again from the committed offsets)
            if api != HEARTBEAT {
                inject(&mut o);
            }
            let c = reader(bs, &gcfg);
            c.subscribe(&[topic]).unwrap();
            let (got, e) = consume(&c, N, Duration::from_secs(20));
            let committed = c.commit(None, Duration::from_secs(10));
            if api == HEARTBEAT {
                inject(&mut o);
            }
            // heartbeats (and rejoins: the mock holds each 1 s): nothing
            // more to read
            let stay = match (api, code) {
                (HEARTBEAT, 27) => 1000 + 1200 * count as u64,
                (HEARTBEAT, _) => 800,
                _ => 500,
            };
            let (more, e2) = consume(&c, usize::MAX, Duration::from_millis(stay));
            c.close();
            o.error = e
                .or(e2)
                .or_else(|| committed.as_ref().err().map(ToString::to_string));
            let mut all = got;
            all.extend(more);
            check(&mut o, &all, 0..N);
            // every message read was committed (each partition from 0)
            if let Ok(list) = committed {
                let total: i64 = list.iter().map(|t| t.offset).sum();
                if total != all.len() as i64 {
                    o.error = Some(format!("committed {total} of {} read: {list:?}", all.len()));
                }
            }
        }
        Work::Transaction => {
            // before the producer exists: it may ask for its id at once
            inject(&mut o);
            let p = Producer::new(&config(
                bs,
                &[
                    ("transactional.id", &format!("{topic}-t")),
                    ("retry.backoff.ms", "20"),
                ],
            ))
            .unwrap();
            let r = p
                .init_transactions(Duration::from_secs(20))
                .and_then(|()| p.begin_transaction());
            if let Err(e) = r {
                o.error = Some(e.to_string());
            } else {
                let e = produce(&p, topic, 0..N);
                o.error = e.first().cloned();
                if let Err(e) = p.commit_transaction(Duration::from_secs(20)) {
                    o.error = Some(e.to_string());
                }
            }
            let c = reader(bs, &[("isolation.level", "read_committed")]);
            assign_all(&c, topic);
            let (got, _) = consume(&c, N, Duration::from_secs(20));
            c.close();
            check(&mut o, &got, 0..N);
        }
    }
    o.requests = cluster.tracked()[tracked_from..]
        .iter()
        .filter(|r| r.api_key == api)
        .count();
    o
}

/// (API name, key, the work, its retriable error codes).
const MATRIX: &[(&str, i16, Work, &[i16])] = &[
    // NOT_LEADER_OR_FOLLOWER, REQUEST_TIMED_OUT, NOT_ENOUGH_REPLICAS,
    // LEADER_NOT_AVAILABLE, KAFKA_STORAGE_ERROR
    ("Produce", 0, Work::Produce, &[6, 7, 19, 5, 56]),
    // NOT_LEADER_OR_FOLLOWER, UNKNOWN_TOPIC_OR_PARTITION, REPLICA_NOT_AVAILABLE,
    // KAFKA_STORAGE_ERROR, UNKNOWN_LEADER_EPOCH
    ("Fetch", 1, Work::Read, &[6, 3, 9, 56, 75]),
    // NOT_LEADER_OR_FOLLOWER, LEADER_NOT_AVAILABLE, OFFSET_NOT_AVAILABLE
    ("ListOffsets", 2, Work::Read, &[6, 5, 78]),
    // COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR
    ("OffsetCommit", 8, Work::Group, &[14, 15, 16]),
    ("OffsetFetch", 9, Work::Group, &[14, 15, 16]),
    ("FindCoordinator", 10, Work::Group, &[14, 15]),
    ("JoinGroup", 11, Work::Group, &[14, 15, 16]),
    // ... and REBALANCE_IN_PROGRESS (rejoin)
    ("SyncGroup", 14, Work::Group, &[15, 16, 27]),
    ("Heartbeat", 12, Work::Group, &[15, 16, 27]),
    // ... and CONCURRENT_TRANSACTIONS
    ("InitProducerId", 22, Work::Transaction, &[14, 15, 16, 51]),
    ("AddPartitionsToTxn", 24, Work::Transaction, &[15, 16, 51]),
    ("EndTxn", 26, Work::Transaction, &[15, 16, 51]),
];

/// The error codes of an API the matrix injects: every one, unless
/// `GREGOR_FAILOVER_MATRIX=subset` (the first of each API, once and three
/// times) for a quicker run on gregor's mock.
fn codes_for(kind: Kind, codes: &'static [i16]) -> &'static [i16] {
    let subset = std::env::var("GREGOR_FAILOVER_MATRIX").is_ok_and(|v| v == "subset");
    if kind == Kind::Gregor && subset {
        &codes[..1]
    } else {
        codes
    }
}

/// One matrix row: (cluster, API name, code, times) and what happened.
type Row = (Kind, &'static str, i16, usize, Outcome, Duration);

/// The outcome columns of one row, or blanks when the row did not run.
fn columns(row: Option<&Row>) -> String {
    match row {
        Some((_, _, _, _, o, took)) => format!(
            "{:>4} {:>4} {:>3} {:>3} {:>4} {:>6}",
            o.read,
            o.lost,
            o.duplicated,
            o.reordered,
            o.requests,
            took.as_millis()
        ),
        None => format!("{:>29}", "not run"),
    }
}

#[test]
fn every_retriable_error_once_and_repeatedly_loses_nothing() {
    let t0 = Instant::now();
    let kinds = Kind::selected();
    // every API of every cluster on its own cluster, all at once
    let rows: Vec<Row> = kinds
        .iter()
        .flat_map(|&kind| {
            MATRIX.iter().map(move |&(name, api, work, codes)| {
                thread::spawn(move || {
                    let cluster = Cluster::start(kind, 3);
                    cluster.rebalance_delay(0);
                    cluster.track_start();
                    let mut rows = Vec::new();
                    for &code in codes_for(kind, codes) {
                        for count in [1, 3] {
                            let topic = format!("multi-{}-{code}-{count}", name.to_lowercase());
                            let t = Instant::now();
                            let o = run(&cluster, work, &topic, api, code, count);
                            rows.push((kind, name, code, count, o, t.elapsed()));
                        }
                    }
                    rows
                })
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .flat_map(|h| h.join().expect("matrix thread"))
        .collect();
    let find = |kind: Kind, name: &str, code: i16, count: usize| {
        rows.iter()
            .find(|r| r.0 == kind && r.1 == name && r.2 == code && r.3 == count)
    };
    let head = format!(
        "{:>4} {:>4} {:>3} {:>3} {:>4} {:>6}",
        "read", "lost", "dup", "ord", "reqs", "ms"
    );
    println!(
        "failover matrix, {N} messages each; per cluster: messages read, lost, duplicated, keys \
         reordered, requests of the injected API, time"
    );
    println!(
        "{:<30} | {} | same | error reaching the application",
        "",
        kinds
            .iter()
            .map(|k| format!("{:<29}", k.name()))
            .collect::<Vec<_>>()
            .join(" | "),
    );
    println!(
        "{:<18} {:>4} {:>5} | {} |",
        "API",
        "code",
        "times",
        kinds
            .iter()
            .map(|_| head.as_str())
            .collect::<Vec<_>>()
            .join(" | ")
    );
    let mut bad = Vec::new();
    let mut differ = Vec::new();
    for &(name, _, _, codes) in MATRIX {
        for &code in codes {
            for count in [1, 3] {
                let here: Vec<Option<&Row>> =
                    kinds.iter().map(|&k| find(k, name, code, count)).collect();
                let outcome =
                    |r: &&Row| (r.4.error.is_some(), r.4.lost, r.4.duplicated, r.4.reordered);
                let ran: Vec<&Row> = here.iter().flatten().copied().collect();
                let same = if ran.len() < 2 {
                    "-"
                } else if ran.iter().all(|r| outcome(r) == outcome(&ran[0])) {
                    "yes"
                } else {
                    differ.push(format!("{name} {code} x{count}"));
                    "NO"
                };
                let errors: Vec<String> = ran
                    .iter()
                    .filter_map(|r| r.4.error.as_ref().map(|e| format!("{}: {e}", r.0.name())))
                    .collect();
                println!(
                    "{name:<18} {code:>4} {count:>5} | {} | {same:>4} | {}",
                    here.iter()
                        .map(|r| columns(*r))
                        .collect::<Vec<_>>()
                        .join(" | "),
                    if errors.is_empty() {
                        "-".to_string()
                    } else {
                        errors.join("; ")
                    }
                );
                for (kind, _, _, _, o, _) in ran {
                    let k = kind.name();
                    if o.lost > 0 || o.duplicated > 0 || o.reordered > 0 || o.error.is_some() {
                        bad.push(format!("{k}: {name} {code} x{count}: {o:?}"));
                    }
                    // the error was there to be met: the API was asked again after it
                    if o.requests <= count {
                        bad.push(format!(
                            "{k}: {name} {code} x{count}: only {} request(s) of the API",
                            o.requests
                        ));
                    }
                }
            }
        }
    }
    for &kind in &kinds {
        let mut per_api: BTreeMap<&str, Duration> = BTreeMap::new();
        let mut n = 0;
        for (_, name, _, _, _, took) in rows.iter().filter(|r| r.0 == kind) {
            *per_api.entry(name).or_default() += *took;
            n += 1;
        }
        println!(
            "{}: {n} scenarios; time per API: {}",
            kind.name(),
            per_api
                .iter()
                .map(|(n, d)| format!("{n} {:.1} s", d.as_secs_f64()))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    println!(
        "failover matrix: {} scenarios on {} in {:.1} s; outcomes differ in {differ:?}",
        rows.len(),
        kinds
            .iter()
            .map(|k| k.name())
            .collect::<Vec<_>>()
            .join(" and "),
        t0.elapsed().as_secs_f64()
    );
    assert!(bad.is_empty(), "{bad:#?}");
}

/// Requests per broker per second of `api` (None: every API) in `t`.
fn rate(requests: &[mock_cluster::Tracked], brokers: i32, t: Duration) -> Vec<f64> {
    (1..=brokers)
        .map(|b| requests.iter().filter(|r| r.broker == b).count() as f64 / t.as_secs_f64())
        .collect()
}

#[test]
fn idle_producer_and_consumer_make_a_few_requests_per_second_per_broker() {
    on_each(
        "idle_producer_and_consumer_make_a_few_requests_per_second_per_broker",
        None,
        |kind, r| {
            let cluster = Cluster::start(kind, 3);
            cluster.rebalance_delay(0);
            cluster.topic("multi-idle", PARTITIONS, 3);
            let p = Producer::new(&config(
                &cluster.bootstrap,
                &[("enable.idempotence", "true")],
            ))
            .unwrap();
            assert!(produce(&p, "multi-idle", 0..N).is_empty());
            let c = reader(
                &cluster.bootstrap,
                &[
                    ("group.id", "multi-idle-g"),
                    ("auto.offset.reset", "earliest"),
                ],
            );
            c.subscribe(&["multi-idle"]).unwrap();
            let (got, _) = consume(&c, N, Duration::from_secs(20));
            assert_eq!(got.len(), N);
            // both idle now: the producer has nothing to send, the consumer
            // nothing to read (long-polling fetches, heartbeats, auto commits)
            cluster.track_start();
            cluster.track_clear();
            let idle = Duration::from_secs(2);
            let t0 = Instant::now();
            while t0.elapsed() < idle {
                p.poll(Duration::from_millis(50));
                assert!(c
                    .poll(Duration::from_millis(50))
                    .unwrap()
                    .is_none_or(|m| m.error.is_some()));
            }
            let requests = cluster.tracked();
            let all = rate(&requests, 3, idle);
            let mut by_api: BTreeMap<i16, usize> = BTreeMap::new();
            for r in &requests {
                *by_api.entry(r.api_key).or_default() += 1;
            }
            r.say(format!(
        "idle producer + consumer for {} s: requests per broker per second {:?}; by API key {:?}",
        idle.as_secs(),
        all.iter().map(|r| format!("{r:.1}")).collect::<Vec<_>>(),
        by_api
    ));
            c.close();
            // librdkafka idles at about two Fetch a second per broker
            // (fetch.wait.max.ms 500) plus a heartbeat every 3 s
            assert!(all.iter().all(|&r| r <= 5.0), "{all:?} {by_api:?}");
        },
    );
}

#[test]
fn group_follows_its_coordinator_when_the_coordinators_broker_goes_down() {
    on_each(
        "group_follows_its_coordinator_when_the_coordinators_broker_goes_down",
        None,
        |kind, r| {
            let cluster = Cluster::start(kind, 3);
            cluster.rebalance_delay(0);
            let topic = "multi-cdown";
            cluster.topic(topic, PARTITIONS, 3);
            // the data stays on brokers 2 and 3; broker 1 coordinates the group
            for p in 0..PARTITIONS {
                cluster.leader(topic, p, 2 + p % 2);
            }
            cluster.coordinator("group", "multi-cdown-g", 1);
            let fill = Producer::new(&config(&cluster.bootstrap, &[])).unwrap();
            assert!(produce(&fill, topic, 0..N).is_empty());
            let gcfg = [
                ("group.id", "multi-cdown-g"),
                ("auto.offset.reset", "earliest"),
                ("enable.auto.commit", "false"),
                ("heartbeat.interval.ms", "100"),
                ("session.timeout.ms", "2000"),
            ];
            let c = reader(&cluster.bootstrap, &gcfg);
            c.subscribe(&[topic]).unwrap();
            let (mut got, _) = consume(&c, N, Duration::from_secs(20));
            c.commit(None, Duration::from_secs(10)).unwrap();
            let t0 = Instant::now();
            cluster.coordinator("group", "multi-cdown-g", 2);
            cluster.down(1);
            assert!(produce(&fill, topic, N..2 * N).is_empty());
            let (more, _) = consume(&c, N, Duration::from_secs(20));
            got.extend(more);
            let committed = c.commit(None, Duration::from_secs(10));
            let took = t0.elapsed();
            c.close();
            let mut o = Outcome::default();
            check(&mut o, &got, 0..2 * N);
            r.say(format!(
        "group coordinator's broker down: read {} (lost {}, duplicated {}, reordered {}) in {:.2} s; commit {:?}",
        o.read,
        o.lost,
        o.duplicated,
        o.reordered,
        took.as_secs_f64(),
        committed.as_ref().map(|l| l.iter().map(|t| t.offset).sum::<i64>())
    ));
            assert_eq!((o.lost, o.duplicated, o.reordered), (0, 0, 0));
            let total: i64 = committed.unwrap().iter().map(|t| t.offset).sum();
            assert_eq!(total, 2 * N as i64);
        },
    );
}

#[test]
fn transactions_across_a_transaction_coordinator_move_and_its_broker_down() {
    on_each(
        "transactions_across_a_transaction_coordinator_move_and_its_broker_down",
        None,
        |kind, r| {
            let cluster = Cluster::start(kind, 3);
            let topic = "multi-txn";
            cluster.topic(topic, PARTITIONS, 3);
            for p in 0..PARTITIONS {
                cluster.leader(topic, p, 2 + p % 2);
            }
            cluster.coordinator("txn", "multi-txn-t", 1);
            let p = Producer::new(&config(
                &cluster.bootstrap,
                &[
                    ("transactional.id", "multi-txn-t"),
                    ("retry.backoff.ms", "20"),
                ],
            ))
            .unwrap();
            p.init_transactions(Duration::from_secs(20)).unwrap();
            cluster.track_start();
            let t0 = Instant::now();
            let mut errors = Vec::new();
            // transaction 1 on broker 1; 2 after the coordinator moved to broker
            // 2; 3 after broker 1 went down; 4 after it moved back to a broker 1
            // that is down (found on broker 3 then)
            for (i, step) in ["", "move", "down", "move3"].iter().enumerate() {
                match *step {
                    "move" => cluster.coordinator("txn", "multi-txn-t", 2),
                    "down" => cluster.down(1),
                    "move3" => cluster.coordinator("txn", "multi-txn-t", 3),
                    _ => {}
                }
                p.begin_transaction().unwrap();
                errors.extend(produce(&p, topic, i * N..(i + 1) * N));
                if let Err(e) = p.commit_transaction(Duration::from_secs(20)) {
                    errors.push(format!("commit {i}: {e}"));
                }
            }
            let took = t0.elapsed();
            let end_txn: Vec<i32> = cluster
                .versions()
                .iter()
                .filter(|(_, n, _)| n == "EndTxn")
                .map(|(b, _, _)| *b)
                .collect();
            let c = reader(&cluster.bootstrap, &[("isolation.level", "read_committed")]);
            assign_all(&c, topic);
            let (got, _) = consume(&c, 4 * N, Duration::from_secs(20));
            c.close();
            let mut o = Outcome::default();
            check(&mut o, &got, 0..4 * N);
            r.say(format!(
        "transactions across coordinator moves and its broker down: 4 × {N} messages committed in {:.2} s, \
         read {} (lost {}, duplicated {}, reordered {}); EndTxn by broker {end_txn:?}; errors {errors:?}",
        took.as_secs_f64(),
        o.read,
        o.lost,
        o.duplicated,
        o.reordered
    ));
            assert!(errors.is_empty(), "{errors:?}");
            assert_eq!((o.lost, o.duplicated, o.reordered), (0, 0, 0));
            assert_eq!(
                end_txn,
                [1, 2, 2, 3],
                "each commit at the coordinator of its time"
            );
        },
    );
}

/// A confluent-kafka (librdkafka) group member in a Python process: prints
/// "ready" once made, then "p o v" for each message; commits automatically
/// (and on revoke, as librdkafka does); closes when its stdin closes.
const PY_MEMBER: &str = r#"
import sys, threading
from confluent_kafka import Consumer
bootstrap, topic, group = sys.argv[1:4]
c = Consumer({"bootstrap.servers": bootstrap, "group.id": group,
              "auto.offset.reset": "earliest", "enable.auto.commit": True,
              "auto.commit.interval.ms": 100, "heartbeat.interval.ms": 100,
              "session.timeout.ms": 2000, "retry.backoff.ms": 20})
c.subscribe([topic], on_assign=lambda c, ps: print("assigned", len(ps), flush=True))
stop = threading.Event()
threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
print("ready", flush=True)
while not stop.is_set():
    m = c.poll(0.05)
    if m is None or m.error():
        continue
    print(m.partition(), m.offset(), m.value().decode(), flush=True)
c.close()
print("closed", flush=True)
"#;

#[test]
fn mixed_group_of_gregor_and_librdkafka_consumes_exactly_once_across_a_coordinator_failover() {
    on_each(
        "mixed_group_of_gregor_and_librdkafka_consumes_exactly_once_across_a_coordinator_failover",
        None,
        |kind, r| {
            use std::io::{BufRead, BufReader};
            use std::process::{Command, Stdio};
            if !Command::new("python3")
                .args(["-c", "import confluent_kafka"])
                .status()
                .is_ok_and(|s| s.success())
            {
                r.say("mixed group: skipped, python3 has no confluent_kafka");
                return;
            }
            let cluster = Cluster::start(kind, 3);
            cluster.rebalance_delay(0);
            let topic = "multi-mixed";
            let group = "multi-mixed-g";
            cluster.topic(topic, 4, 3);
            for p in 0..4 {
                cluster.leader(topic, p, 2 + p % 2);
            }
            cluster.coordinator("group", group, 1);
            let fill = Producer::new(&config(&cluster.bootstrap, &[])).unwrap();
            let mut py = Command::new("python3")
                .args(["-c", PY_MEMBER, &cluster.bootstrap, topic, group])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .expect("python3 runs");
            let py_got = Arc::new(std::sync::Mutex::new(Vec::new()));
            let py_assigned = Arc::new(AtomicUsize::new(0));
            let reader_thread = {
                let out = BufReader::new(py.stdout.take().unwrap());
                let (py_got, py_assigned) = (py_got.clone(), py_assigned.clone());
                thread::spawn(move || {
                    for l in out.lines().map_while(Result::ok) {
                        let f: Vec<&str> = l.split(' ').collect();
                        if let ["assigned", n] = f[..] {
                            py_assigned.store(n.parse().unwrap(), Ordering::SeqCst);
                        } else if let [p, _, v] = f[..] {
                            let n: u64 = v.trim_start_matches('v').parse().unwrap();
                            py_got.lock().unwrap().push((
                                p.parse::<i32>().unwrap(),
                                String::new(),
                                n,
                            ));
                        }
                    }
                })
            };
            let c = reader(
                &cluster.bootstrap,
                &[
                    ("group.id", group),
                    ("auto.offset.reset", "earliest"),
                    ("auto.commit.interval.ms", "100"),
                    ("heartbeat.interval.ms", "100"),
                    ("session.timeout.ms", "2000"),
                    ("retry.backoff.ms", "20"),
                ],
            );
            c.subscribe(&[topic]).unwrap();
            let mut got = Vec::new();
            // both in the group, each with partitions, before the data comes
            let until = Instant::now() + Duration::from_secs(20);
            while (c.assignment().is_empty() || py_assigned.load(Ordering::SeqCst) == 0)
                && Instant::now() < until
            {
                got.extend(consume(&c, usize::MAX, Duration::from_millis(100)).0);
            }
            assert!(!c.assignment().is_empty(), "gregor has partitions");
            assert!(
                py_assigned.load(Ordering::SeqCst) > 0,
                "librdkafka has partitions"
            );
            assert!(produce(&fill, topic, 0..N).is_empty());
            let total = |got: &Vec<(i32, String, u64)>| got.len() + py_got.lock().unwrap().len();
            let until = Instant::now() + Duration::from_secs(30);
            while total(&got) < N && Instant::now() < until {
                got.extend(consume(&c, usize::MAX, Duration::from_millis(100)).0);
            }
            // the coordinator moves and its broker goes down; more messages come
            cluster.coordinator("group", group, 2);
            cluster.down(1);
            assert!(produce(&fill, topic, N..2 * N).is_empty());
            let until = Instant::now() + Duration::from_secs(30);
            while total(&got) < 2 * N && Instant::now() < until {
                got.extend(consume(&c, usize::MAX, Duration::from_millis(100)).0);
            }
            // a little longer: a duplicate would show now
            got.extend(consume(&c, usize::MAX, Duration::from_millis(800)).0);
            drop(py.stdin.take());
            c.close();
            let _ = py.wait();
            reader_thread.join().unwrap();
            let py_got = py_got.lock().unwrap().clone();
            let mut all: Vec<(i32, String, u64)> = got.clone();
            all.extend(py_got.iter().cloned());
            let mut o = Outcome::default();
            // keys are per partition here: order is checked per partition
            for m in &mut all {
                m.1 = m.0.to_string();
            }
            check(&mut o, &all, 0..2 * N);
            r.say(format!(
                "mixed group across a coordinator failover: gregor read {}, librdkafka read {}; \
         lost {}, duplicated {}, reordered {}",
                got.len(),
                py_got.len(),
                o.lost,
                o.duplicated,
                o.reordered
            ));
            assert!(!got.is_empty() && !py_got.is_empty(), "both members read");
            assert_eq!((o.lost, o.duplicated), (0, 0));
        },
    );
}
