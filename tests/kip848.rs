//! The KIP-848 consumer group protocol (`group.protocol=consumer`) against
//! librdkafka's mock cluster (tests/mock_cluster/), which implements the
//! broker side of ConsumerGroupHeartbeat: gregor members alone and mixed
//! with librdkafka members (confluent-kafka, `group.protocol=consumer`)
//! consume a topic while members join and leave, a static member restarts,
//! the coordinator moves and heartbeats fail. Every message must be
//! consumed exactly once, and no partition may be owned by two members at
//! once — checked from the members' own rebalance callbacks and messages,
//! each stamped with the wall clock.
//!
//! The paths the mock cannot show are in `scripted_coordinator`
//! (tests/consumer_support/kip848_scripted.rs), against a scripted
//! coordinator.
//!
//!     cargo test --test kip848 -- --nocapture --test-threads 1

mod mock_cluster;
#[path = "consumer_support/scripted.rs"]
#[allow(dead_code)]
mod scripted;
#[path = "consumer_support/kip848_scripted.rs"]
mod scripted_coordinator;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use gregor::config::Config;
use gregor::consumer::{Consumer, RebalanceEvent, TopicPartitionOffset as Tpo};
use gregor::message::ProducerRecord;
use gregor::producer::Producer;
use mock_cluster::MockCluster;

const CONSUMER_GROUP_HEARTBEAT: i16 = 68;

fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

/// What members report: rebalance events and messages, stamped.
#[derive(Default)]
struct Log {
    /// (time, member, "assign"|"revoke"|"lost", partitions)
    events: Vec<(f64, String, String, Vec<i32>)>,
    /// (time, member, partition, offset)
    msgs: Vec<(f64, String, i32, i64)>,
    commit_errors: Vec<String>,
    /// librdkafka members' commits retried after STALE_MEMBER_EPOCH
    commit_retries: usize,
    errors: Vec<String>,
}

type Shared = Arc<Mutex<Log>>;

fn config(bootstrap: &str, extra: &[(&str, &str)]) -> Config {
    let mut c = Config::from_pairs([("bootstrap.servers", bootstrap)]).unwrap();
    for (k, v) in extra {
        c.set(k, v).unwrap();
    }
    c
}

fn produce(bootstrap: &str, topic: &str, partitions: i32, per_partition: usize) {
    let p = Producer::new(&config(bootstrap, &[])).unwrap();
    for part in 0..partitions {
        for i in 0..per_partition {
            let v = format!("p{part}m{i}");
            p.send(
                &ProducerRecord {
                    topic,
                    partition: Some(part),
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
    p.flush(Duration::from_secs(30)).unwrap();
}

/// A gregor member in its own thread: polls, records each message, commits
/// it synchronously (so a message is consumed exactly once unless its
/// commit fails), until `stop`; then closes.
struct GregorMember {
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
}

impl GregorMember {
    fn start(
        bootstrap: &str,
        name: &str,
        group: &str,
        topic: &str,
        extra: &[(&str, &str)],
        log: &Shared,
    ) -> GregorMember {
        let mut pairs = vec![
            ("group.id", group),
            ("group.protocol", "consumer"),
            ("auto.offset.reset", "earliest"),
            ("enable.auto.commit", "false"),
        ];
        pairs.extend_from_slice(extra);
        let debug = std::env::var("KIP848_DEBUG").ok().map(|d| {
            // KIP848_DEBUG=1: the group's debug log; or the contexts to log
            if d == "1" {
                "cgrp".to_string()
            } else {
                d
            }
        });
        if let Some(d) = &debug {
            pairs.push(("debug", d));
        }
        let cfg = config(bootstrap, &pairs);
        let stop = Arc::new(AtomicBool::new(false));
        let (stop2, log2, name, topic) = (
            stop.clone(),
            log.clone(),
            name.to_string(),
            topic.to_string(),
        );
        let handle = thread::spawn(move || {
            let c = Consumer::new(&cfg).unwrap();
            let (log3, name3) = (log2.clone(), name.clone());
            c.set_rebalance_callback(move |_, ev| {
                let (kind, parts) = match &ev {
                    RebalanceEvent::Assigned(p) => ("assign", p),
                    RebalanceEvent::Revoked(p) => ("revoke", p),
                    RebalanceEvent::Lost(p) => ("lost", p),
                };
                let ps: Vec<i32> = parts.iter().map(|t| t.partition).collect();
                log3.lock()
                    .unwrap()
                    .events
                    .push((now(), name3.clone(), kind.into(), ps));
            });
            c.subscribe(&[topic.as_str()]).unwrap();
            while !stop2.load(Ordering::Acquire) {
                match c.poll(Duration::from_millis(50)) {
                    Ok(Some(m)) => {
                        if let Some(e) = &m.error {
                            log2.lock().unwrap().errors.push(format!("{name}: {e}"));
                            continue;
                        }
                        log2.lock().unwrap().msgs.push((
                            now(),
                            name.clone(),
                            m.partition,
                            m.offset,
                        ));
                        // a little work per message, so rebalances happen
                        // while partitions are being consumed
                        thread::sleep(Duration::from_millis(2));
                        let t = Tpo::new(&*m.topic, m.partition, m.offset + 1);
                        if let Err(e) = c.commit(Some(&[t]), Duration::from_secs(10)) {
                            log2.lock()
                                .unwrap()
                                .commit_errors
                                .push(format!("{name} [{}] @{}: {e}", m.partition, m.offset));
                        }
                    }
                    Ok(None) => {}
                    Err(e) => log2.lock().unwrap().errors.push(format!("{name}: {e}")),
                }
            }
            c.close();
        });
        GregorMember {
            stop,
            handle: Some(handle),
        }
    }

    fn stop(mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(h) = self.handle.take() {
            h.join().unwrap();
        }
    }
}

/// A librdkafka member (confluent-kafka, `group.protocol=consumer`) in a
/// Python process, doing what [`GregorMember`] does; its stdout lines go
/// to the log.
struct PythonMember {
    child: Child,
    reader: Option<JoinHandle<()>>,
}

const PY_MEMBER: &str = r#"
import json, sys, time
from confluent_kafka import Consumer
bootstrap, group, topic, name = sys.argv[1:5]
def out(*a):
    print(json.dumps(a), flush=True)
def ev(kind):
    def cb(c, parts):
        out("event", time.time(), name, kind, [p.partition for p in parts])
    return cb
import os
conf = {"bootstrap.servers": bootstrap, "group.id": group,
        "group.protocol": "consumer", "auto.offset.reset": "earliest",
        "enable.auto.commit": False}
if os.environ.get("KIP848_RDK_DEBUG"):
    conf["debug"] = os.environ["KIP848_RDK_DEBUG"]
c = Consumer(conf)
c.subscribe([topic], on_assign=ev("assign"), on_revoke=ev("revoke"), on_lost=ev("lost"))
import select
while True:
    r, _, _ = select.select([sys.stdin], [], [], 0)
    if r and sys.stdin.readline().strip() == "stop":
        break
    m = c.poll(0.05)
    if m is None:
        continue
    if m.error():
        out("error", name, str(m.error()))
        continue
    out("msg", time.time(), name, m.partition(), m.offset())
    time.sleep(0.002)
    # STALE_MEMBER_EPOCH: the commit raced a heartbeat that moved the
    # member epoch on. The Java client retries such a commit with the new
    # epoch; librdkafka leaves it to the application, so this one does.
    for attempt in range(20):
        try:
            c.commit(message=m, asynchronous=False)
            break
        except Exception as e:
            if "STALE_MEMBER_EPOCH" in str(e) and attempt < 19:
                out("commit_retry", name, m.partition(), m.offset(), str(e))
                time.sleep(0.05)
                continue
            out("commit_error", name, m.partition(), m.offset(), str(e))
            break
c.close()
out("closed", name)
"#;

impl PythonMember {
    fn start(bootstrap: &str, name: &str, group: &str, topic: &str, log: &Shared) -> PythonMember {
        let mut child = Command::new("python3")
            .args(["-c", PY_MEMBER, bootstrap, group, topic, name])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(match std::env::var("KIP848_RDK_LOGDIR") {
                // librdkafka's debug log of each member in a file of its own
                Ok(dir) => Stdio::from(
                    std::fs::File::create(format!("{dir}/{name}.log")).expect("log file"),
                ),
                Err(_) => Stdio::inherit(),
            })
            .spawn()
            .expect("python3 runs");
        let out = BufReader::new(child.stdout.take().unwrap());
        let log = log.clone();
        let reader = thread::spawn(move || {
            for line in out.lines() {
                let Ok(line) = line else { break };
                let v: serde_json::Value = match serde_json::from_str(&line) {
                    Ok(v) => v,
                    Err(_) => {
                        eprintln!("python member: {line}");
                        continue;
                    }
                };
                let a = v.as_array().unwrap();
                let s = |i: usize| a[i].as_str().unwrap_or_default().to_string();
                let mut l = log.lock().unwrap();
                match a[0].as_str().unwrap() {
                    "event" => l.events.push((
                        a[1].as_f64().unwrap(),
                        s(2),
                        s(3),
                        a[4].as_array()
                            .unwrap()
                            .iter()
                            .map(|p| p.as_i64().unwrap() as i32)
                            .collect(),
                    )),
                    "msg" => l.msgs.push((
                        a[1].as_f64().unwrap(),
                        s(2),
                        a[3].as_i64().unwrap() as i32,
                        a[4].as_i64().unwrap(),
                    )),
                    "commit_error" => l.commit_errors.push(line.clone()),
                    "commit_retry" => l.commit_retries += 1,
                    "error" => l.errors.push(line.clone()),
                    _ => {}
                }
            }
        });
        PythonMember {
            child,
            reader: Some(reader),
        }
    }

    fn stop(mut self) {
        use std::io::Write;
        if let Some(stdin) = self.child.stdin.as_mut() {
            let _ = writeln!(stdin, "stop");
            let _ = stdin.flush();
        }
        let until = Instant::now() + Duration::from_secs(20);
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                break;
            }
            thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(r) = self.reader.take() {
            r.join().unwrap();
        }
    }
}

/// Waits until `n` distinct messages were consumed (or `d` passed).
fn wait_consumed(log: &Shared, n: usize, d: Duration) -> usize {
    let until = Instant::now() + d;
    loop {
        let got: BTreeSet<(i32, i64)> = log
            .lock()
            .unwrap()
            .msgs
            .iter()
            .map(|m| (m.2, m.3))
            .collect();
        if got.len() >= n || Instant::now() >= until {
            return got.len();
        }
        thread::sleep(Duration::from_millis(20));
    }
}

/// Waits until `more` messages more than now were consumed (at most 30 s,
/// and not once `total` distinct messages were: a phase that finds the
/// topic consumed would wait out the 30 s for nothing).
fn wait_progress_of(log: &Shared, more: usize, total: usize) {
    let distinct = |l: &Log| {
        l.msgs
            .iter()
            .map(|m| (m.2, m.3))
            .collect::<BTreeSet<_>>()
            .len()
    };
    let from = log.lock().unwrap().msgs.len();
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        let l = log.lock().unwrap();
        if l.msgs.len() >= from + more || distinct(&l) >= total || Instant::now() >= until {
            return;
        }
        drop(l);
        thread::sleep(Duration::from_millis(10));
    }
}

/// [`wait_progress_of`] without a total.
fn wait_progress(log: &Shared, more: usize) {
    wait_progress_of(log, more, usize::MAX);
}

/// Checks that messages were consumed after each phase began (by anyone,
/// and by the members named), so every membership change, the coordinator
/// move and the injected errors happened while the topic was being
/// consumed, not after it ran dry.
fn check_phases(log: &Log, phases: &[(&str, f64, &[&str])]) {
    for (name, at, who) in phases {
        let after: Vec<&(f64, String, i32, i64)> = log.msgs.iter().filter(|m| m.0 > *at).collect();
        assert!(!after.is_empty(), "nothing consumed after phase {name:?}");
        for w in *who {
            assert!(
                after.iter().any(|m| m.1 == *w),
                "{w} consumed nothing after phase {name:?}"
            );
        }
    }
}

/// Waits until `member` was assigned partitions.
fn wait_assigned(log: &Shared, member: &str) {
    let until = Instant::now() + Duration::from_secs(30);
    while Instant::now() < until {
        if log
            .lock()
            .unwrap()
            .events
            .iter()
            .any(|e| e.1 == member && e.2 == "assign" && !e.3.is_empty())
        {
            return;
        }
        thread::sleep(Duration::from_millis(10));
    }
    panic!("{member} got no partitions within 30 s");
}

/// One member's ownership of a partition: (member, from, to, ended by a
/// `lost` event).
type Owned = (String, f64, f64, bool);

/// The ownership intervals of each partition, from the members' events;
/// `to` is +inf while still owned.
fn ownership(log: &Log) -> BTreeMap<i32, Vec<Owned>> {
    let mut open: BTreeMap<(String, i32), f64> = BTreeMap::new();
    let mut out: BTreeMap<i32, Vec<Owned>> = BTreeMap::new();
    let mut events = log.events.clone();
    events.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap());
    for (t, member, kind, parts) in &events {
        for p in parts {
            let key = (member.clone(), *p);
            if kind == "assign" {
                open.insert(key, *t);
            } else if let Some(from) = open.remove(&key) {
                out.entry(*p)
                    .or_default()
                    .push((member.clone(), from, *t, kind == "lost"));
            }
        }
    }
    for ((member, p), from) in open {
        out.entry(p)
            .or_default()
            .push((member, from, f64::INFINITY, false));
    }
    out
}

/// Checks: every message of `partitions` × `per` consumed exactly once
/// (`exactly`) or at least once; no partition owned by two members at
/// once; every message consumed by a member owning its partition.
fn check(log: &Log, partitions: i32, per: i64, exactly: bool) {
    let mut count: BTreeMap<(i32, i64), usize> = BTreeMap::new();
    for (_, _, p, o) in &log.msgs {
        *count.entry((*p, *o)).or_default() += 1;
    }
    for p in 0..partitions {
        for o in 0..per {
            let n = count.get(&(p, o)).copied().unwrap_or(0);
            assert!(n >= 1, "message [{p}] @{o} never consumed");
            if exactly {
                assert_eq!(n, 1, "message [{p}] @{o} consumed {n} times");
            }
        }
    }
    let own = ownership(log);
    for (p, intervals) in &own {
        for (i, a) in intervals.iter().enumerate() {
            for b in &intervals[i + 1..] {
                // a fenced member's partitions are handed on without
                // waiting for it (KIP-848): its `lost` comes when its poll
                // learns of it, possibly after the next owner's assign
                if a.0 != b.0 && !a.3 && !b.3 {
                    assert!(
                        a.2 <= b.1 || b.2 <= a.1,
                        "partition {p} owned by {} ({:.3}..{:.3}) and {} ({:.3}..{:.3}) at once",
                        a.0,
                        a.1,
                        a.2,
                        b.0,
                        b.1,
                        b.2
                    );
                }
            }
        }
    }
    for (t, member, p, o) in &log.msgs {
        let owned = own.get(p).is_some_and(|iv| {
            iv.iter()
                .any(|(m, from, to, _)| m == member && from <= t && t <= to)
        });
        assert!(
            owned,
            "{member} consumed [{p}] @{o} at {t:.3} without owning the partition"
        );
    }
}

fn summary(log: &Log) -> String {
    if std::env::var("KIP848_DEBUG").is_ok() {
        for e in &log.events {
            eprintln!("event {:.3} {} {} {:?}", e.0, e.1, e.2, e.3);
        }
        // who consumed what, when: (member, partition) -> offsets, times
        // (lowest offset, highest, first time, last time, count)
        type Run = (i64, i64, f64, f64, usize);
        let mut runs: BTreeMap<(&str, i32), Run> = BTreeMap::new();
        for (t, m, p, o) in &log.msgs {
            let r = runs
                .entry((m, *p))
                .or_insert((i64::MAX, i64::MIN, f64::MAX, f64::MIN, 0));
            *r = (r.0.min(*o), r.1.max(*o), r.2.min(*t), r.3.max(*t), r.4 + 1);
        }
        for ((m, p), (lo, hi, t0, t1, n)) in runs {
            eprintln!("consumed {m} [{p}] @{lo}..@{hi} ({n}) from {t0:.3} to {t1:.3}");
        }
    }
    let mut by_member: BTreeMap<&str, usize> = BTreeMap::new();
    for m in &log.msgs {
        *by_member.entry(&m.1).or_default() += 1;
    }
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    for e in &log.events {
        *kinds.entry(&e.2).or_default() += 1;
    }
    format!(
        "messages by member {by_member:?}; events {kinds:?}; commit errors {}; \
         librdkafka commits retried after STALE_MEMBER_EPOCH {}; errors {}",
        log.commit_errors.len(),
        log.commit_retries,
        log.errors.len()
    )
}

fn mock(topic: &str, partitions: i32) -> MockCluster {
    let cluster = MockCluster::start(3);
    // Heartbeats every 200 ms; a member is forgotten after 15 s without
    // one (Kafka's default is 45 s). With 5 s a librdkafka member, whose
    // heartbeats pause while it looks for a moved or failing coordinator,
    // was once forgotten on a loaded machine and its next commit failed
    // with UNKNOWN_MEMBER_ID (1 run in 20); no test here waits for a
    // session to expire.
    cluster.consumer_group(200, 15_000);
    cluster.topic(topic, partitions, 3);
    cluster
}

#[test]
fn gregor_members_alone_share_a_topic_exactly_once() {
    const PARTS: i32 = 6;
    const PER: usize = 150;
    let cluster = mock("k848a", PARTS);
    cluster.coordinator("group", "kip848-a", 1);
    produce(&cluster.bootstrap, "k848a", PARTS, PER);
    let log: Shared = Arc::default();
    let start = Instant::now();
    let a = GregorMember::start(&cluster.bootstrap, "a", "kip848-a", "k848a", &[], &log);
    wait_progress(&log, 60);
    let b = GregorMember::start(&cluster.bootstrap, "b", "kip848-a", "k848a", &[], &log);
    wait_assigned(&log, "b");
    wait_progress(&log, 60);
    let s1 = GregorMember::start(
        &cluster.bootstrap,
        "static1",
        "kip848-a",
        "k848a",
        &[("group.instance.id", "kip848-static")],
        &log,
    );
    wait_assigned(&log, "static1");
    wait_progress(&log, 60);
    // the coordinator moves
    cluster.coordinator("group", "kip848-a", 2);
    wait_progress(&log, 60);
    // heartbeats fail with coordinator errors (retried, not fenced)
    cluster.err(CONSUMER_GROUP_HEARTBEAT, 15, 2); // COORDINATOR_NOT_AVAILABLE
    cluster.err(CONSUMER_GROUP_HEARTBEAT, 14, 2); // COORDINATOR_LOAD_IN_PROGRESS
    cluster.err(CONSUMER_GROUP_HEARTBEAT, 16, 2); // NOT_COORDINATOR
    wait_progress(&log, 60);
    // the static member restarts (leaves with epoch -2, comes back)
    s1.stop();
    let s2 = GregorMember::start(
        &cluster.bootstrap,
        "static2",
        "kip848-a",
        "k848a",
        &[("group.instance.id", "kip848-static")],
        &log,
    );
    wait_assigned(&log, "static2");
    wait_progress(&log, 60);
    b.stop();
    let n = wait_consumed(&log, PARTS as usize * PER, Duration::from_secs(60));
    a.stop();
    s2.stop();
    let l = log.lock().unwrap();
    println!(
        "gregor alone: {n} distinct messages in {:?}; {}",
        start.elapsed(),
        summary(&l)
    );
    assert!(l.commit_errors.is_empty(), "{:?}", l.commit_errors);
    // KIP-848 static membership: the restarted instance gets back what its
    // predecessor gave up on close (its last revocation)
    let pick = |who: &str, kind: &str, first: bool| {
        let mut it = l
            .events
            .iter()
            .filter(|e| e.1 == who && e.2 == kind && !e.3.is_empty());
        let e = if first { it.next() } else { it.next_back() };
        e.map(|e| e.3.clone())
    };
    assert_eq!(
        pick("static2", "assign", true),
        pick("static1", "revoke", false),
        "{:?}",
        l.events
    );
    check(&l, PARTS, PER as i64, true);
}

#[test]
fn one_member_smoke() {
    let cluster = mock("k848s", 2);
    produce(&cluster.bootstrap, "k848s", 2, 10);
    let log: Shared = Arc::default();
    let a = GregorMember::start(&cluster.bootstrap, "a", "kip848-s", "k848s", &[], &log);
    let n = wait_consumed(&log, 20, Duration::from_secs(20));
    a.stop();
    let l = log.lock().unwrap();
    println!("smoke: {n}; {}", summary(&l));
    check(&l, 2, 10, true);
}

/// The statistics' `cgrp` object of a KIP-848 member (librdkafka's
/// STATISTICS.md): the coordinator found, the assignment taken on
/// (`steady`), its size, and the rebalances that brought it; after
/// unsubscribing, the revoke counted with its reason.
#[test]
fn a_members_statistics_show_its_group() {
    let cluster = mock("k848st", 2);
    let c = Consumer::new(&config(
        &cluster.bootstrap,
        &[
            ("group.id", "kip848-st"),
            ("group.protocol", "consumer"),
            ("statistics.interval.ms", "100"),
        ],
    ))
    .unwrap();
    let last: Arc<Mutex<serde_json::Value>> = Arc::default();
    let l2 = last.clone();
    c.set_stats_callback(Some(Box::new(move |json: &str| {
        *l2.lock().unwrap() = serde_json::from_str(json).unwrap();
    })));
    c.subscribe(&["k848st"]).unwrap();
    let wait = |done: &dyn Fn(&serde_json::Value) -> bool| {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            c.poll(Duration::from_millis(50)).unwrap();
            let v = last.lock().unwrap()["cgrp"].clone();
            if done(&v) || Instant::now() > deadline {
                return v;
            }
        }
    };
    let g = wait(&|g| {
        g["join_state"] == "steady" && g["assignment_size"] == 2 && c.assignment().len() == 2
    });
    assert_eq!(g["state"], "up", "{g}");
    assert_eq!(g["join_state"], "steady", "{g}");
    assert_eq!(g["assignment_size"], 2, "{g}");
    // one incremental assign of both partitions (the broker may split it)
    let cnt = g["rebalance_cnt"].as_u64().unwrap();
    assert!(cnt >= 1, "{g}");
    assert_eq!(g["rebalance_reason"], "", "{g}");
    c.unsubscribe().unwrap();
    let g = wait(&|g| g["assignment_size"] == 0 && g["rebalance_reason"] == "unsubscribe");
    assert_eq!(g["assignment_size"], 0, "{g}");
    assert_eq!(g["rebalance_reason"], "unsubscribe", "{g}");
    assert!(g["rebalance_cnt"].as_u64().unwrap() > cnt, "{g}");
    c.close();
}

/// gregor and librdkafka members in one group, through joins, leaves, a
/// coordinator move and injected heartbeat errors. 600 messages per
/// partition, so the topic is still being consumed in every phase (with
/// 150 the members used to drain it by the time the second librdkafka
/// member joined, and each later phase then waited out its 30 s: the runs
/// of 31 s and 61 s); [`check_phases`] checks it.
#[test]
fn gregor_and_librdkafka_members_share_a_topic_exactly_once() {
    const PARTS: i32 = 6;
    const PER: usize = 600;
    const TOTAL: usize = PARTS as usize * PER;
    let cluster = mock("k848m", PARTS);
    cluster.coordinator("group", "kip848-m", 1);
    produce(&cluster.bootstrap, "k848m", PARTS, PER);
    let log: Shared = Arc::default();
    let start = Instant::now();
    let mut phases: Vec<(&str, f64, &[&str])> = Vec::new();
    let progress = |log: &Shared| wait_progress_of(log, 60, TOTAL);
    let g1 = GregorMember::start(&cluster.bootstrap, "g1", "kip848-m", "k848m", &[], &log);
    wait_assigned(&log, "g1");
    progress(&log);
    phases.push(("r1 joins", now(), &["r1"]));
    let r1 = PythonMember::start(&cluster.bootstrap, "r1", "kip848-m", "k848m", &log);
    wait_assigned(&log, "r1");
    progress(&log);
    phases.push(("g2 joins", now(), &["g2"]));
    let g2 = GregorMember::start(&cluster.bootstrap, "g2", "kip848-m", "k848m", &[], &log);
    wait_assigned(&log, "g2");
    progress(&log);
    // the coordinator moves, then heartbeats fail with coordinator errors
    // (whichever members' heartbeats come next get them)
    phases.push(("coordinator moves", now(), &[]));
    cluster.coordinator("group", "kip848-m", 3);
    progress(&log);
    phases.push(("heartbeat errors", now(), &[]));
    cluster.err(CONSUMER_GROUP_HEARTBEAT, 15, 2); // COORDINATOR_NOT_AVAILABLE
    cluster.err(CONSUMER_GROUP_HEARTBEAT, 14, 2); // COORDINATOR_LOAD_IN_PROGRESS
    cluster.err(CONSUMER_GROUP_HEARTBEAT, 16, 2); // NOT_COORDINATOR
    progress(&log);
    phases.push(("r2 joins", now(), &["r2"]));
    let r2 = PythonMember::start(&cluster.bootstrap, "r2", "kip848-m", "k848m", &log);
    wait_assigned(&log, "r2");
    progress(&log);
    phases.push(("g1 leaves", now(), &[]));
    g1.stop();
    progress(&log);
    phases.push(("r1 leaves", now(), &[]));
    r1.stop();
    let n = wait_consumed(&log, TOTAL, Duration::from_secs(60));
    g2.stop();
    r2.stop();
    let l = log.lock().unwrap();
    println!(
        "gregor + librdkafka: {n} distinct messages in {:?}; {}",
        start.elapsed(),
        summary(&l)
    );
    assert!(l.commit_errors.is_empty(), "{:?}", l.commit_errors);
    check(&l, PARTS, PER as i64, true);
    check_phases(&l, &phases);
}

/// FENCED_MEMBER_EPOCH on a heartbeat: the member's partitions are lost
/// (the callback sees `Lost`), it rejoins at epoch 0 and consumes on; no
/// message is missed (at least once: what was consumed but not committed
/// before the fencing may come again).
#[test]
fn a_fenced_member_loses_its_partitions_and_rejoins() {
    const PARTS: i32 = 4;
    const PER: usize = 100;
    let cluster = mock("k848f", PARTS);
    produce(&cluster.bootstrap, "k848f", PARTS, PER);
    let log: Shared = Arc::default();
    let a = GregorMember::start(&cluster.bootstrap, "a", "kip848-f", "k848f", &[], &log);
    let b = GregorMember::start(&cluster.bootstrap, "b", "kip848-f", "k848f", &[], &log);
    wait_assigned(&log, "a");
    wait_assigned(&log, "b");
    wait_progress(&log, 40);
    cluster.err(CONSUMER_GROUP_HEARTBEAT, 110, 1); // FENCED_MEMBER_EPOCH
    let until = Instant::now() + Duration::from_secs(20);
    while !log.lock().unwrap().events.iter().any(|e| e.2 == "lost") {
        assert!(Instant::now() < until, "no member saw its partitions lost");
        thread::sleep(Duration::from_millis(10));
    }
    // UNKNOWN_MEMBER_ID once both members own partitions again (injected
    // earlier, it may hit the fenced member's rejoining heartbeat, which
    // owns nothing to lose)
    let owns = |l: &Log, who: &str| {
        ownership(l)
            .values()
            .any(|iv| iv.iter().any(|o| o.0 == who && o.2.is_infinite()))
    };
    let until = Instant::now() + Duration::from_secs(20);
    while !(owns(&log.lock().unwrap(), "a") && owns(&log.lock().unwrap(), "b")) {
        assert!(Instant::now() < until, "the fenced member got nothing back");
        thread::sleep(Duration::from_millis(10));
    }
    cluster.err(CONSUMER_GROUP_HEARTBEAT, 25, 1); // UNKNOWN_MEMBER_ID
    let until = Instant::now() + Duration::from_secs(20);
    while log
        .lock()
        .unwrap()
        .events
        .iter()
        .filter(|e| e.2 == "lost")
        .count()
        < 2
    {
        assert!(
            Instant::now() < until,
            "UNKNOWN_MEMBER_ID: no partitions lost"
        );
        thread::sleep(Duration::from_millis(10));
    }
    let n = wait_consumed(&log, PARTS as usize * PER, Duration::from_secs(60));
    a.stop();
    b.stop();
    let l = log.lock().unwrap();
    println!("fenced: {n} distinct messages; {}", summary(&l));
    let lost: Vec<_> = l.events.iter().filter(|e| e.2 == "lost").collect();
    assert!(lost.len() >= 2, "{:?}", l.events);
    // after losing its partitions, the member got partitions again
    let (t, who) = (lost[0].0, lost[0].1.clone());
    assert!(
        l.events
            .iter()
            .any(|e| e.1 == who && e.2 == "assign" && e.0 > t && !e.3.is_empty()),
        "{:?}",
        l.events
    );
    check(&l, PARTS, PER as i64, false);
}

/// Heartbeat errors the Java client treats as fatal stop the member: poll
/// reports the error, the partitions are lost, and the consumer refuses to
/// subscribe again.
#[test]
fn fatal_heartbeat_errors_stop_the_member() {
    for (code, name) in [
        (81i16, "GROUP_MAX_SIZE_REACHED"),
        (111, "UNRELEASED_INSTANCE_ID"),
        (112, "UNSUPPORTED_ASSIGNOR"),
    ] {
        let cluster = mock("k848x", 2);
        produce(&cluster.bootstrap, "k848x", 2, 5);
        let c = Consumer::new(&config(
            &cluster.bootstrap,
            &[
                ("group.id", "kip848-x"),
                ("group.protocol", "consumer"),
                ("group.remote.assignor", "uniform"),
                ("auto.offset.reset", "earliest"),
            ],
        ))
        .unwrap();
        c.subscribe(&["k848x"]).unwrap();
        // consume the 10 messages: the member is stable
        let mut got = 0;
        let until = Instant::now() + Duration::from_secs(20);
        while got < 10 && Instant::now() < until {
            if let Some(m) = c.poll(Duration::from_millis(50)).unwrap() {
                if m.error.is_none() {
                    got += 1;
                }
            }
        }
        assert_eq!(got, 10);
        cluster.err(CONSUMER_GROUP_HEARTBEAT, code, 1);
        let until = Instant::now() + Duration::from_secs(10);
        let mut seen = None;
        while seen.is_none() && Instant::now() < until {
            if let Ok(Some(m)) = c.poll(Duration::from_millis(50)) {
                if let Some(e) = m.error {
                    seen = Some(e.to_string());
                }
            }
        }
        let seen = seen.unwrap_or_else(|| panic!("{name}: no error from poll"));
        assert!(seen.contains(name), "{name}: {seen}");
        assert!(c.assignment().is_empty(), "{name}: partitions kept");
        assert!(
            c.subscribe(&["k848x"]).is_err(),
            "{name}: subscribe after a fatal error"
        );
        println!("{name}: {seen}");
        c.close();
    }
}

/// Admin describe_groups of a KIP-848 group (ConsumerGroupDescribe, which
/// the mock serves from its own group state: tests/mock_cluster/patches/
/// 0004): two gregor members, one static; the group's type, epochs and
/// assignor, each member's epoch, subscription and current and target
/// assignment, which together cover the topic once. An unknown group falls
/// back to DescribeGroups (GROUP_ID_NOT_FOUND from ConsumerGroupDescribe,
/// as librdkafka falls back); the mock has no DescribeGroups, so it ends
/// in `_UNSUPPORTED_FEATURE` for that group alone. Classic groups are
/// described on the test broker (tests/admin_groups.rs).
#[test]
fn describe_groups_shows_a_consumer_group_members_epochs_and_assignments() {
    use gregor::admin::{AdminClient, AdminOptions};
    const PARTS: i32 = 4;
    let cluster = mock("k848d", PARTS);
    cluster.coordinator("group", "kip848-d", 2);
    produce(&cluster.bootstrap, "k848d", PARTS, 5);
    let log: Shared = Arc::default();
    let a = GregorMember::start(&cluster.bootstrap, "a", "kip848-d", "k848d", &[], &log);
    let b = GregorMember::start(
        &cluster.bootstrap,
        "b",
        "kip848-d",
        "k848d",
        &[("group.instance.id", "kip848-d-static")],
        &log,
    );
    wait_assigned(&log, "a");
    wait_assigned(&log, "b");
    wait_consumed(&log, PARTS as usize * 5, Duration::from_secs(20));
    let admin = AdminClient::new(&config(&cluster.bootstrap, &[])).unwrap();
    let opts = AdminOptions::with_timeout(Duration::from_secs(10));
    // the members settle: every member's current assignment is its target
    let until = Instant::now() + Duration::from_secs(20);
    let g = loop {
        let r = admin
            .describe_groups(&["kip848-d", "kip848-nope"], true, &opts)
            .unwrap();
        let unknown = r[1].1.as_ref().unwrap_err();
        assert_eq!(
            unknown.code(),
            gregor::error::local::UNSUPPORTED_FEATURE,
            "{unknown}"
        );
        let g = r[0].1.as_ref().unwrap().clone();
        let settled = g.members.len() == 2
            && g.members.iter().all(|m| {
                let c = m.consumer.as_ref().unwrap();
                !c.assignment.is_empty() && c.assignment == c.target_assignment
            });
        if settled || Instant::now() > until {
            break g;
        }
        thread::sleep(Duration::from_millis(100));
    };
    println!("{g:#?}");
    assert_eq!(g.group_type, "consumer");
    assert_eq!(
        (g.protocol_type.as_str(), g.protocol.as_str()),
        ("consumer", "range")
    );
    assert_eq!(g.state, "Stable");
    let epoch = g.group_epoch.unwrap();
    assert!(epoch >= 2, "two members joined: epoch {epoch}");
    assert_eq!(g.assignment_epoch, Some(epoch));
    assert_eq!(g.coordinator.id, 2);
    assert!(g.authorized_operations.is_some());
    let mut covered = Vec::new();
    for m in &g.members {
        let c = m.consumer.as_ref().unwrap();
        assert_eq!(c.member_epoch, epoch, "{m:?}");
        assert_eq!(c.subscribed_topic_names, ["k848d"]);
        assert_eq!(c.assignment, c.target_assignment);
        // the classic accessors see the current assignment and subscription
        let asg = m.assignment.as_ref().unwrap().as_ref().unwrap();
        assert_eq!((asg.version, &asg.partitions), (-1, &c.assignment));
        let sub = m.subscription.as_ref().unwrap().as_ref().unwrap();
        assert_eq!(sub.topics, ["k848d"]);
        assert_eq!(m.member_id.len(), 22, "a client-generated member id");
        assert!(m.client_host.starts_with("/127.0.0.1"), "{}", m.client_host);
        covered.extend(c.assignment.iter().map(|t| (t.topic.clone(), t.partition)));
    }
    covered.sort();
    assert_eq!(
        covered,
        (0..PARTS)
            .map(|p| ("k848d".to_string(), p))
            .collect::<Vec<_>>()
    );
    assert_eq!(
        g.members
            .iter()
            .filter_map(|m| m.group_instance_id.as_deref())
            .collect::<Vec<_>>(),
        ["kip848-d-static"]
    );
    // `gregor admin groups describe` shows the same
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gregor"))
        .args([
            "admin",
            "groups",
            "describe",
            "kip848-d",
            "-b",
            &cluster.bootstrap,
        ])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run the gregor binary");
    let text = String::from_utf8_lossy(&out.stdout);
    println!("{text}");
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains(&format!(
            "group kip848-d: state Stable, protocol type consumer, protocol range, type consumer (group epoch {epoch}, assignment epoch {epoch})"
        )),
        "{text}"
    );
    assert_eq!(
        text.matches(&format!(": epoch {epoch}, ")).count(),
        2,
        "{text}"
    );
    assert_eq!(
        text.matches("    target assignment: [k848d:").count(),
        2,
        "{text}"
    );
    assert!(text.contains("(instance kip848-d-static)"), "{text}");
    a.stop();
    b.stop();
}
