//! Consumer groups against the real broker (nisshi's group coordinator):
//! membership and assignment split with gregor and librdkafka
//! (confluent-kafka) members in one group, rebalances while producing,
//! auto commit at-least-once, manual commits with metadata, static
//! membership, the poll interval; and against a scripted coordinator
//! (independently encoded bytes, the `kafka-protocol` crate) for old
//! protocol versions and coordinator errors the broker will not show.

mod common;
#[allow(dead_code)]
#[path = "consumer_support/scripted.rs"]
mod scripted;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use gregor::consumer::{Consumer, RebalanceEvent, TopicPartitionOffset as Tpo};
use gregor::error::local;
use gregor::message::{offset, ProducerRecord};
use gregor::producer::Producer;

const T: Duration = Duration::from_secs(30);

/// What callbacks record, shared with the test.
type Shared<X> = Arc<Mutex<Vec<X>>>;

fn group_name(prefix: &str) -> String {
    common::unique_topic(prefix)
}

fn producer() -> Producer {
    Producer::new(&common::config(&[("linger.ms", "1")])).unwrap()
}

/// Produces `n` messages "prefix-i" round-robin over `partitions`.
fn produce(p: &Producer, topic: &str, partitions: i32, prefix: &str, n: usize) {
    for i in 0..n {
        let v = format!("{prefix}-{i}");
        p.send_sync(
            &ProducerRecord {
                topic,
                partition: Some(i as i32 % partitions),
                value: Some(v.as_bytes()),
                ..Default::default()
            },
            Some(T),
        )
        .unwrap();
    }
}

fn member(group: &str, extra: &[(&str, &str)]) -> Consumer {
    let mut cfg = common::config(&[
        ("group.id", group),
        ("auto.offset.reset", "earliest"),
        ("fetch.wait.max.ms", "100"),
        ("session.timeout.ms", "10000"),
        ("heartbeat.interval.ms", "500"),
        ("topic.metadata.refresh.interval.ms", "1000"),
    ]);
    for (k, v) in extra {
        cfg.set(k, v).unwrap();
    }
    Consumer::new(&cfg).unwrap()
}

/// What a polling member saw.
#[derive(Default, Debug)]
struct Seen {
    /// (partition, offset) -> value
    msgs: BTreeMap<(i32, i64), String>,
    /// messages returned, duplicates included
    count: usize,
    events: Vec<String>,
}

fn poll_into(c: &Consumer, seen: &mut Seen, d: Duration) {
    let until = Instant::now() + d;
    while Instant::now() < until {
        if let Some(m) = c.poll(Duration::from_millis(50)).unwrap() {
            match &m.error {
                Some(e) => seen.events.push(e.to_string()),
                None => {
                    seen.count += 1;
                    let v = String::from_utf8_lossy(m.value.as_deref().unwrap_or_default());
                    seen.msgs.insert((m.partition, m.offset), v.into_owned());
                }
            }
        }
    }
}

fn partitions_of(c: &Consumer) -> BTreeSet<i32> {
    c.assignment().iter().map(|t| t.partition).collect()
}

/// Polls both until their assignments cover `n` partitions between them,
/// disjointly, and neither is empty.
fn wait_split(a: &Consumer, b: &Consumer, n: usize, sa: &mut Seen, sb: &mut Seen) {
    let until = Instant::now() + Duration::from_secs(60);
    loop {
        poll_into(a, sa, Duration::from_millis(100));
        poll_into(b, sb, Duration::from_millis(100));
        let (pa, pb) = (partitions_of(a), partitions_of(b));
        if !pa.is_empty() && !pb.is_empty() && pa.len() + pb.len() == n && pa.is_disjoint(&pb) {
            return;
        }
        assert!(Instant::now() < until, "no split: {pa:?} {pb:?}");
    }
}

#[test]
fn two_gregor_members_split_a_topic_and_consume_each_message_once() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("grp-split");
    common::create_topic(&topic, 6);
    let group = group_name("g-split");
    let a = member(&group, &[]);
    let b = member(&group, &[]);
    a.subscribe(&[&topic]).unwrap();
    b.subscribe(&[&topic]).unwrap();
    assert_eq!(a.subscription(), vec![topic.clone()]);
    let (mut sa, mut sb) = (Seen::default(), Seen::default());
    wait_split(&a, &b, 6, &mut sa, &mut sb);
    assert!(!a.member_id().is_empty() && a.member_id() != b.member_id());
    assert_eq!(a.rebalance_protocol(), "EAGER");
    let p = producer();
    produce(&p, &topic, 6, "m", 300);
    let until = Instant::now() + T;
    while sa.msgs.len() + sb.msgs.len() < 300 && Instant::now() < until {
        poll_into(&a, &mut sa, Duration::from_millis(100));
        poll_into(&b, &mut sb, Duration::from_millis(100));
    }
    assert_eq!(
        sa.msgs.len() + sb.msgs.len(),
        300,
        "{:?} {:?}",
        sa.events,
        sb.events
    );
    assert_eq!(sa.count + sb.count, 300, "each message exactly once");
    let ka: BTreeSet<i32> = sa.msgs.keys().map(|k| k.0).collect();
    let kb: BTreeSet<i32> = sb.msgs.keys().map(|k| k.0).collect();
    assert!(ka.is_disjoint(&kb) && !ka.is_empty() && !kb.is_empty());
    a.close();
    b.close();
}

#[test]
fn auto_commit_commits_only_what_poll_returned() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("grp-autocommit");
    common::create_topic(&topic, 2);
    let group = group_name("g-autocommit");
    let p = producer();
    produce(&p, &topic, 2, "m", 40);
    let c = member(
        &group,
        &[
            ("auto.commit.interval.ms", "200"),
            ("queued.max.messages.kbytes", "1"),
        ],
    );
    c.subscribe(&[&topic]).unwrap();
    // take 7 messages, then stop polling for a while: only those count
    let mut last: BTreeMap<i32, i64> = BTreeMap::new();
    let until = Instant::now() + T;
    let mut n = 0;
    while n < 7 && Instant::now() < until {
        if let Some(m) = c.poll(Duration::from_millis(100)).unwrap() {
            if m.error.is_none() {
                last.insert(m.partition, m.offset);
                n += 1;
            }
        }
    }
    assert_eq!(n, 7);
    // the auto commit runs on its own while the application does not poll
    std::thread::sleep(Duration::from_millis(1500));
    let asked: Vec<Tpo> = (0..2)
        .map(|p| Tpo::new(&topic, p, offset::INVALID))
        .collect();
    let committed = c.committed(&asked, T).unwrap();
    for t in &committed {
        let want = last.get(&t.partition).map_or(offset::INVALID, |o| o + 1);
        assert_eq!(t.offset, want, "partition {}: {committed:?}", t.partition);
    }
    // on close the rest of what was returned is committed
    let mut more = 0;
    while more < 5 {
        if let Some(m) = c.poll(Duration::from_millis(100)).unwrap() {
            if m.error.is_none() {
                last.insert(m.partition, m.offset);
                more += 1;
            }
        }
    }
    c.close();
    let d = member(&group, &[]);
    let committed = d.committed(&asked, T).unwrap();
    for t in &committed {
        let want = last.get(&t.partition).map_or(offset::INVALID, |o| o + 1);
        assert_eq!(t.offset, want, "after close, partition {}", t.partition);
    }
    // a new member starts where the first stopped: nothing lost, nothing twice
    d.subscribe(&[&topic]).unwrap();
    let mut seen = Seen::default();
    let until = Instant::now() + T;
    while seen.count < 40 - 12 && Instant::now() < until {
        poll_into(&d, &mut seen, Duration::from_millis(100));
    }
    assert_eq!(seen.count, 28);
    for (p, o) in seen.msgs.keys() {
        assert!(*o > last.get(p).copied().unwrap_or(-1));
    }
}

#[test]
fn manual_commits_sync_and_async_with_metadata() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("grp-manual");
    common::create_topic(&topic, 1);
    let group = group_name("g-manual");
    let p = producer();
    produce(&p, &topic, 1, "m", 10);
    let c = member(&group, &[("enable.auto.commit", "false")]);
    let results: Shared<(i32, Vec<Tpo>)> = Arc::default();
    let r2 = results.clone();
    c.set_commit_callback(move |_, r, offsets| {
        r2.lock()
            .unwrap()
            .push((r.err().map_or(0, |e| e.code()), offsets.to_vec()));
    });
    c.subscribe(&[&topic]).unwrap();
    let mut seen = Seen::default();
    let until = Instant::now() + T;
    while seen.count < 10 && Instant::now() < until {
        poll_into(&c, &mut seen, Duration::from_millis(100));
    }
    assert_eq!(seen.count, 10);
    // sync, the consumed positions
    let done = c.commit(None, T).unwrap();
    assert_eq!(done.len(), 1);
    assert_eq!(done[0].offset, 10);
    let asked = [Tpo::new(&topic, 0, offset::INVALID)];
    assert_eq!(c.committed(&asked, T).unwrap()[0].offset, 10);
    // nothing new to commit
    assert_eq!(c.commit(None, T).unwrap_err().code(), local::NO_OFFSET);
    // explicit, with metadata, sync
    let explicit = [Tpo::new(&topic, 0, 4).with_metadata("four")];
    c.commit(Some(&explicit), T).unwrap();
    let got = c.committed(&asked, T).unwrap();
    // nisshi keeps no commit metadata (librdkafka reads none back either):
    // the metadata's bytes are checked on the scripted coordinator
    assert_eq!(got[0].offset, 4);
    // async, the result in poll through the callback
    let explicit = [Tpo::new(&topic, 0, 7).with_metadata("seven")];
    c.commit_async(Some(&explicit)).unwrap();
    let until = Instant::now() + T;
    while results.lock().unwrap().is_empty() && Instant::now() < until {
        c.poll(Duration::from_millis(50)).unwrap();
    }
    let r = results.lock().unwrap().clone();
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].0, 0);
    assert_eq!(r[0].1[0].offset, 7);
    let got = c.committed(&asked, T).unwrap();
    assert_eq!(got[0].offset, 7);
    // store_offsets + commit of the stored ones
    c.store_offsets(&[Tpo::new(&topic, 0, 9).with_metadata("nine")])
        .unwrap();
    assert_eq!(c.commit(None, T).unwrap()[0].offset, 9);
    let got = c.committed(&asked, T).unwrap();
    assert_eq!(got[0].offset, 9);
    c.close();
}

#[test]
fn rebalance_callback_sees_assigned_and_revoked() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("grp-cb");
    common::create_topic(&topic, 4);
    let group = group_name("g-cb");
    let a = member(&group, &[]);
    let events: Shared<(i32, BTreeSet<i32>)> = Arc::default();
    let e2 = events.clone();
    a.set_rebalance_callback(move |c, ev| {
        let parts: BTreeSet<i32> = ev.partitions().iter().map(|t| t.partition).collect();
        e2.lock().unwrap().push((ev.code(), parts));
        // the application assigns itself, at offset 1 to see it was used
        if let RebalanceEvent::Assigned(p) = &ev {
            let at: Vec<Tpo> = p
                .iter()
                .map(|t| Tpo::new(&t.topic, t.partition, 1))
                .collect();
            c.assign(&at).unwrap();
        }
    });
    a.subscribe(&[&topic]).unwrap();
    let p = producer();
    produce(&p, &topic, 4, "m", 8);
    let mut sa = Seen::default();
    let until = Instant::now() + T;
    while sa.count < 4 && Instant::now() < until {
        poll_into(&a, &mut sa, Duration::from_millis(100));
    }
    // offset 0 of each partition skipped: the callback's assign was used
    assert_eq!(sa.count, 4, "{:?}", sa.events);
    assert!(sa.msgs.keys().all(|(_, o)| *o == 1));
    assert_eq!(events.lock().unwrap()[0], (1, (0..4).collect()));
    // a second member: a revoke of everything (eager), then a smaller assignment
    let b = member(&group, &[]);
    b.subscribe(&[&topic]).unwrap();
    let mut sb = Seen::default();
    wait_split(&a, &b, 4, &mut sa, &mut sb);
    let ev = events.lock().unwrap().clone();
    assert!(ev.iter().any(|(k, p)| *k == 2 && p.len() == 4), "{ev:?}");
    assert_eq!(ev.last().unwrap().0, 1);
    assert_eq!(ev.last().unwrap().1, partitions_of(&a));
    // close revokes through the callback
    a.close();
    let ev = events.lock().unwrap().clone();
    assert_eq!(ev.last().unwrap().0, 2);
    b.close();
}

#[test]
fn regex_subscription_finds_new_topics() {
    if !common::broker_up() {
        return;
    }
    let prefix = common::unique_topic("grp-re");
    let t1 = format!("{prefix}-a");
    common::create_topic(&t1, 1);
    let group = group_name("g-re");
    let c = member(&group, &[]);
    let pattern = format!("^{}-.*", regex_escape(&prefix));
    c.subscribe(&[&pattern]).unwrap();
    let mut seen = Seen::default();
    let until = Instant::now() + T;
    while c.assignment().is_empty() && Instant::now() < until {
        poll_into(&c, &mut seen, Duration::from_millis(100));
    }
    assert_eq!(c.assignment().len(), 1);
    let t2 = format!("{prefix}-b");
    common::create_topic(&t2, 2);
    let until = Instant::now() + T;
    while c.assignment().len() < 3 && Instant::now() < until {
        poll_into(&c, &mut seen, Duration::from_millis(100));
    }
    let topics: BTreeSet<String> = c.assignment().into_iter().map(|t| t.topic).collect();
    assert_eq!(topics, [t1, t2].into_iter().collect());
    c.unsubscribe().unwrap();
    assert!(c.subscription().is_empty());
    let until = Instant::now() + T;
    while !c.assignment().is_empty() && Instant::now() < until {
        poll_into(&c, &mut seen, Duration::from_millis(100));
    }
    assert!(c.assignment().is_empty());
    c.close();
}

fn regex_escape(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_string()
            } else {
                format!("\\{c}")
            }
        })
        .collect()
}

#[test]
fn max_poll_interval_exceeded_leaves_and_the_next_poll_rejoins() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("grp-maxpoll");
    common::create_topic(&topic, 2);
    let group = group_name("g-maxpoll");
    let c = member(&group, &[("max.poll.interval.ms", "1500")]);
    let events: Arc<Mutex<Vec<i32>>> = Arc::default();
    let e2 = events.clone();
    c.set_rebalance_callback(move |_, ev| e2.lock().unwrap().push(ev.code()));
    c.subscribe(&[&topic]).unwrap();
    let mut seen = Seen::default();
    let until = Instant::now() + T;
    while c.assignment().len() < 2 && Instant::now() < until {
        poll_into(&c, &mut seen, Duration::from_millis(100));
    }
    assert_eq!(c.assignment().len(), 2);
    let first = c.member_id();
    std::thread::sleep(Duration::from_millis(3000));
    // the next poll: the error, and the partitions lost
    let mut err = None;
    let until = Instant::now() + Duration::from_secs(5);
    while err.is_none() && Instant::now() < until {
        if let Some(m) = c.poll(Duration::from_millis(100)).unwrap() {
            if let Some(e) = m.error {
                if e.code() == local::MAX_POLL_EXCEEDED {
                    err = Some(e);
                }
            }
        }
    }
    assert!(err.is_some(), "no _MAX_POLL_EXCEEDED");
    assert!(
        events.lock().unwrap().contains(&3),
        "{:?}",
        events.lock().unwrap()
    );
    // polling again rejoins, with a new member id, and gets the partitions back
    let until = Instant::now() + T;
    while (c.assignment().len() < 2 || c.member_id().is_empty()) && Instant::now() < until {
        poll_into(&c, &mut seen, Duration::from_millis(100));
    }
    assert_eq!(c.assignment().len(), 2);
    assert_ne!(c.member_id(), first);
    c.close();
}

#[test]
fn static_member_rejoin_keeps_its_assignment() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("grp-static");
    common::create_topic(&topic, 4);
    let group = group_name("g-static");
    let a = member(&group, &[("group.instance.id", "a-1")]);
    let b = member(&group, &[("group.instance.id", "b-1")]);
    a.subscribe(&[&topic]).unwrap();
    b.subscribe(&[&topic]).unwrap();
    let (mut sa, mut sb) = (Seen::default(), Seen::default());
    wait_split(&a, &b, 4, &mut sa, &mut sb);
    let before_b = partitions_of(&b);
    let before_a = partitions_of(&a);
    // a restarts: no LeaveGroup, so no rebalance: b keeps its partitions
    let b_events: Arc<Mutex<Vec<i32>>> = Arc::default();
    let e2 = b_events.clone();
    b.set_rebalance_callback(move |_, ev| e2.lock().unwrap().push(ev.code()));
    a.close();
    drop(a);
    let a2 = member(&group, &[("group.instance.id", "a-1")]);
    a2.subscribe(&[&topic]).unwrap();
    let mut sa2 = Seen::default();
    let until = Instant::now() + T;
    while partitions_of(&a2).is_empty() && Instant::now() < until {
        poll_into(&a2, &mut sa2, Duration::from_millis(100));
        poll_into(&b, &mut sb, Duration::from_millis(100));
    }
    assert_eq!(partitions_of(&a2), before_a);
    poll_into(&b, &mut sb, Duration::from_millis(1500));
    assert_eq!(partitions_of(&b), before_b);
    assert!(
        b_events.lock().unwrap().is_empty(),
        "{:?}",
        b_events.lock().unwrap()
    );
    a2.close();
    b.close();
}

// ---------------------------------------------------------------------------
// With librdkafka in the group

/// A confluent-kafka consumer in a child python3: prints "A p,p,..." on
/// assignment, "M partition offset value" per message; stops on stdin EOF
/// (closing, so it commits and leaves).
fn librdkafka_member(group: &str, topic: &str, strategy: &str) -> Child {
    let script = r#"
import sys, threading
from confluent_kafka import Consumer
b, g, t, strategy = sys.argv[1:5]
c = Consumer({'bootstrap.servers': b, 'group.id': g, 'auto.offset.reset': 'earliest',
              'session.timeout.ms': 10000, 'heartbeat.interval.ms': 500,
              'partition.assignment.strategy': strategy, 'fetch.wait.max.ms': 100})
stop = threading.Event()
def watch():
    sys.stdin.read()
    stop.set()
threading.Thread(target=watch, daemon=True).start()
def on_assign(c, parts):
    if strategy == 'cooperative-sticky':
        c.incremental_assign(parts)
    print('A ' + ','.join(str(p.partition) for p in parts), flush=True)
def on_revoke(c, parts):
    if strategy == 'cooperative-sticky':
        c.incremental_unassign(parts)
    print('R ' + ','.join(str(p.partition) for p in parts), flush=True)
c.subscribe([t], on_assign=on_assign, on_revoke=on_revoke)
while not stop.is_set():
    m = c.poll(0.1)
    if m is None:
        continue
    if m.error():
        print('E ' + str(m.error()), flush=True)
        continue
    print('M %d %d %s' % (m.partition(), m.offset(), m.value().decode()), flush=True)
c.close()
print('CLOSED', flush=True)
"#;
    Command::new("python3")
        .args(["-c", script, &common::broker(), group, topic, strategy])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("python3 with confluent-kafka")
}

/// The child's output lines, gathered by a thread.
fn lines_of(child: &mut Child) -> Arc<Mutex<Vec<String>>> {
    let out = child.stdout.take().unwrap();
    let lines: Arc<Mutex<Vec<String>>> = Arc::default();
    let l2 = lines.clone();
    std::thread::spawn(move || {
        for l in BufReader::new(out).lines() {
            let Ok(l) = l else { return };
            l2.lock().unwrap().push(l);
        }
    });
    lines
}

fn rd_messages(lines: &[String]) -> Vec<(i32, i64, String)> {
    lines
        .iter()
        .filter_map(|l| l.strip_prefix("M "))
        .map(|l| {
            let mut it = l.splitn(3, ' ');
            (
                it.next().unwrap().parse().unwrap(),
                it.next().unwrap().parse().unwrap(),
                it.next().unwrap().to_string(),
            )
        })
        .collect()
}

/// The partitions of the child's last assignment (eager: "A" replaces).
fn rd_assigned(lines: &[String]) -> BTreeSet<i32> {
    let mut out = BTreeSet::new();
    for l in lines {
        if let Some(a) = l.strip_prefix("A ") {
            out = a
                .split(',')
                .filter(|s| !s.is_empty())
                .map(|s| s.parse().unwrap())
                .collect();
        } else if l.starts_with("R ") {
            out.clear();
        }
    }
    out
}

fn stop(child: &mut Child, lines: &Arc<Mutex<Vec<String>>>) {
    drop(child.stdin.take());
    let until = Instant::now() + T;
    while !lines.lock().unwrap().iter().any(|l| l == "CLOSED") && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn a_mixed_group_with_librdkafka_splits_the_topic_and_consumes_each_message_once() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("grp-mixed");
    common::create_topic(&topic, 6);
    let group = group_name("g-mixed");
    let g = member(&group, &[]);
    g.subscribe(&[&topic]).unwrap();
    let mut child = librdkafka_member(&group, &topic, "range,roundrobin");
    let lines = lines_of(&mut child);
    let mut seen = Seen::default();
    let until = Instant::now() + Duration::from_secs(60);
    loop {
        poll_into(&g, &mut seen, Duration::from_millis(100));
        let mine = partitions_of(&g);
        let theirs = rd_assigned(&lines.lock().unwrap());
        if !mine.is_empty()
            && !theirs.is_empty()
            && mine.len() + theirs.len() == 6
            && mine.is_disjoint(&theirs)
        {
            break;
        }
        assert!(
            Instant::now() < until,
            "no split: {mine:?} {theirs:?} {:?}",
            lines.lock().unwrap()
        );
    }
    let p = producer();
    produce(&p, &topic, 6, "x", 600);
    let until = Instant::now() + Duration::from_secs(60);
    loop {
        poll_into(&g, &mut seen, Duration::from_millis(100));
        let rd = rd_messages(&lines.lock().unwrap());
        if seen.count + rd.len() >= 600 || Instant::now() > until {
            break;
        }
    }
    poll_into(&g, &mut seen, Duration::from_millis(500));
    let rd = rd_messages(&lines.lock().unwrap());
    let mut all: BTreeMap<(i32, i64), usize> = BTreeMap::new();
    for k in seen.msgs.keys() {
        *all.entry(*k).or_default() += 1;
    }
    for (p, o, _) in &rd {
        *all.entry((*p, *o)).or_default() += 1;
    }
    assert_eq!(all.len(), 600, "every message consumed");
    assert_eq!(seen.count + rd.len(), 600, "each exactly once");
    let mine: BTreeSet<i32> = seen.msgs.keys().map(|k| k.0).collect();
    let theirs: BTreeSet<i32> = rd.iter().map(|m| m.0).collect();
    assert!(mine.is_disjoint(&theirs) && !mine.is_empty() && !theirs.is_empty());
    stop(&mut child, &lines);
    g.close();
}

#[test]
fn members_join_and_leave_while_producing_and_nothing_is_lost() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("grp-churn");
    common::create_topic(&topic, 6);
    let group = group_name("g-churn");
    let p = Arc::new(producer());
    let a = member(&group, &[("auto.commit.interval.ms", "300")]);
    a.subscribe(&[&topic]).unwrap();
    let produced = Arc::new(Mutex::new(0usize));
    let (p2, t2, n2) = (p.clone(), topic.clone(), produced.clone());
    let producer_thread = std::thread::spawn(move || {
        for round in 0..30 {
            produce(&p2, &t2, 6, &format!("r{round}"), 12);
            *n2.lock().unwrap() += 12;
            std::thread::sleep(Duration::from_millis(100));
        }
    });
    let mut sa = Seen::default();
    poll_into(&a, &mut sa, Duration::from_secs(1));
    // a librdkafka member joins
    let mut child = librdkafka_member(&group, &topic, "range,roundrobin");
    let lines = lines_of(&mut child);
    poll_into(&a, &mut sa, Duration::from_secs(3));
    // and a gregor member joins, then leaves
    let b = member(&group, &[("auto.commit.interval.ms", "300")]);
    b.subscribe(&[&topic]).unwrap();
    let mut sb = Seen::default();
    for _ in 0..20 {
        poll_into(&a, &mut sa, Duration::from_millis(100));
        poll_into(&b, &mut sb, Duration::from_millis(100));
    }
    b.close();
    producer_thread.join().unwrap();
    let total = *produced.lock().unwrap();
    let until = Instant::now() + Duration::from_secs(60);
    loop {
        poll_into(&a, &mut sa, Duration::from_millis(200));
        let rd = rd_messages(&lines.lock().unwrap());
        let mut keys: BTreeSet<(i32, i64)> = sa.msgs.keys().cloned().collect();
        keys.extend(sb.msgs.keys().cloned());
        keys.extend(rd.iter().map(|m| (m.0, m.1)));
        if keys.len() >= total || Instant::now() > until {
            break;
        }
    }
    let rd = rd_messages(&lines.lock().unwrap());
    let mut keys: BTreeSet<(i32, i64)> = sa.msgs.keys().cloned().collect();
    keys.extend(sb.msgs.keys().cloned());
    keys.extend(rd.iter().map(|m| (m.0, m.1)));
    assert_eq!(keys.len(), total, "every message consumed at least once");
    let returned = sa.count + sb.count + rd.len();
    let dups = returned - total;
    // duplicates only from what was returned but not committed when a
    // partition moved; offsets are committed before every revocation, so
    // that is at most a few in-flight messages per rebalance (0 here when
    // measured), never a replay of everything
    assert!(dups <= total / 10, "{dups} duplicates of {total}");
    eprintln!("churn: {total} messages, {dups} duplicates");
    stop(&mut child, &lines);
    a.close();
}

#[test]
fn subscribe_needs_a_group_and_sane_topics() {
    if !common::broker_up() {
        return;
    }
    let c = Consumer::new(&common::config(&[])).unwrap();
    assert_eq!(c.subscribe(&["t"]).unwrap_err().code(), local::INVALID_ARG);
    let c = member(&group_name("g-bad"), &[]);
    assert_eq!(c.subscribe(&[]).unwrap_err().code(), local::INVALID_ARG);
    assert_eq!(c.subscribe(&[""]).unwrap_err().code(), local::INVALID_ARG);
    assert_eq!(c.subscribe(&["^("]).unwrap_err().code(), local::INVALID_ARG);
    assert!(c.member_id().is_empty());
    let mut cfg = common::config(&[("group.id", "g")]);
    cfg.set("partition.assignment.strategy", "nope").unwrap();
    assert!(Consumer::new(&cfg).is_err());
}

#[test]
fn cooperative_sticky_moves_only_what_moves_and_keeps_consuming_the_rest() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("grp-coop");
    common::create_topic(&topic, 6);
    let group = group_name("g-coop");
    let coop = [("partition.assignment.strategy", "cooperative-sticky")];
    let a = member(&group, &coop);
    let events: Shared<(i32, BTreeSet<i32>)> = Arc::default();
    let e2 = events.clone();
    a.set_rebalance_callback(move |_, ev| {
        let parts: BTreeSet<i32> = ev.partitions().iter().map(|t| t.partition).collect();
        e2.lock().unwrap().push((ev.code(), parts));
    });
    a.subscribe(&[&topic]).unwrap();
    let mut sa = Seen::default();
    let until = Instant::now() + T;
    while a.assignment().len() < 6 && Instant::now() < until {
        poll_into(&a, &mut sa, Duration::from_millis(100));
    }
    assert_eq!(a.assignment().len(), 6);
    assert_eq!(a.rebalance_protocol(), "COOPERATIVE");
    // a librdkafka member with cooperative-sticky joins while messages flow
    let p = Arc::new(producer());
    let (p2, t2) = (p.clone(), topic.clone());
    let feeder = std::thread::spawn(move || {
        for round in 0..25 {
            produce(&p2, &t2, 6, &format!("r{round}"), 6);
            std::thread::sleep(Duration::from_millis(120));
        }
    });
    poll_into(&a, &mut sa, Duration::from_millis(600));
    let mut child = librdkafka_member(&group, &topic, "cooperative-sticky");
    let lines = lines_of(&mut child);
    let until = Instant::now() + Duration::from_secs(60);
    while a.assignment().len() != 3 && Instant::now() < until {
        poll_into(&a, &mut sa, Duration::from_millis(100));
    }
    assert_eq!(a.assignment().len(), 3, "{:?}", events.lock().unwrap());
    feeder.join().unwrap();
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        poll_into(&a, &mut sa, Duration::from_millis(200));
        let rd = rd_messages(&lines.lock().unwrap());
        let mut keys: BTreeSet<(i32, i64)> = sa.msgs.keys().cloned().collect();
        keys.extend(rd.iter().map(|m| (m.0, m.1)));
        if keys.len() >= 150 || Instant::now() > until {
            break;
        }
    }
    let kept: BTreeSet<i32> = partitions_of(&a);
    let ev = events.lock().unwrap().clone();
    // one assignment of all six, one revocation of exactly the three that
    // moved; the kept ones were never revoked
    assert_eq!(ev[0], (1, (0..6).collect()), "{ev:?}");
    let revoked: BTreeSet<i32> = ev
        .iter()
        .filter(|(k, _)| *k == 2)
        .flat_map(|(_, p)| p.iter().cloned())
        .collect();
    assert_eq!(revoked.len(), 3, "{ev:?}");
    assert!(revoked.is_disjoint(&kept), "{ev:?}");
    // the kept partitions were consumed without a gap from 0 to the end
    for part in &kept {
        let offsets: Vec<i64> = sa
            .msgs
            .keys()
            .filter(|k| k.0 == *part)
            .map(|k| k.1)
            .collect();
        assert_eq!(offsets, (0..25).collect::<Vec<i64>>(), "partition {part}");
    }
    // and every message reached one of the two
    let rd = rd_messages(&lines.lock().unwrap());
    let mut keys: BTreeSet<(i32, i64)> = sa.msgs.keys().cloned().collect();
    keys.extend(rd.iter().map(|m| (m.0, m.1)));
    assert_eq!(keys.len(), 150);
    stop(&mut child, &lines);
    a.close();
}

// ---------------------------------------------------------------------------
// A scripted coordinator (kafka-protocol's bytes): old versions, errors

use kafka_protocol::messages::find_coordinator_response::Coordinator as FcCoordinator;
use kafka_protocol::messages::join_group_response::JoinGroupResponseMember;
use kafka_protocol::messages::offset_fetch_response::{
    OffsetFetchResponsePartition, OffsetFetchResponseTopic,
};
use kafka_protocol::messages::{
    ApiKey, BrokerId, FindCoordinatorResponse, HeartbeatResponse, JoinGroupResponse,
    LeaveGroupResponse, OffsetFetchResponse, RequestKind, ResponseKind, SyncGroupResponse,
};

/// What the scripted coordinator answers, in order, per API; once a list
/// runs out its last entry repeats.
#[derive(Default)]
struct Script {
    find: Vec<i16>,
    /// (error, member id given, generation)
    join: Vec<(i16, &'static str, i32)>,
    sync: Vec<i16>,
    heartbeat: Vec<i16>,
    counts: BTreeMap<&'static str, usize>,
}

impl Script {
    fn next<T: Clone>(&mut self, api: &'static str, list: fn(&Script) -> &Vec<T>) -> T {
        let n = self.counts.entry(api).or_default();
        let i = *n;
        *n += 1;
        let l = list(self);
        l[i.min(l.len() - 1)].clone()
    }
}

fn coordinator_apis(old: bool) -> Vec<(ApiKey, i16, i16)> {
    if old {
        vec![
            (ApiKey::Metadata, 0, 12),
            (ApiKey::FindCoordinator, 0, 0),
            (ApiKey::JoinGroup, 0, 0),
            (ApiKey::SyncGroup, 0, 0),
            (ApiKey::Heartbeat, 0, 0),
            (ApiKey::LeaveGroup, 0, 0),
            (ApiKey::OffsetCommit, 1, 1),
            (ApiKey::OffsetFetch, 1, 1),
        ]
    } else {
        vec![
            (ApiKey::Metadata, 0, 12),
            (ApiKey::FindCoordinator, 0, 4),
            (ApiKey::JoinGroup, 0, 9),
            (ApiKey::SyncGroup, 0, 5),
            (ApiKey::Heartbeat, 0, 4),
            (ApiKey::LeaveGroup, 0, 5),
            (ApiKey::OffsetCommit, 0, 9),
            (ApiKey::OffsetFetch, 0, 9),
        ]
    }
}

fn scripted_coordinator(old: bool, script: Script) -> scripted::Scripted {
    let script = Arc::new(Mutex::new(script));
    scripted::start(&coordinator_apis(old), move |addr, version, req| {
        let port: i32 = addr.rsplit(':').next().unwrap().parse().unwrap();
        let mut s = script.lock().unwrap();
        Some(match req {
            RequestKind::Metadata(_) => scripted::metadata(addr, &[("t", [3; 16], 2, 0)]),
            RequestKind::FindCoordinator(_) => {
                let code = s.next("find", |s| &s.find);
                let mut r = FindCoordinatorResponse::default();
                if version >= 4 {
                    let mut c = FcCoordinator::default();
                    c.key = scripted::sb("g");
                    c.error_code = code;
                    c.node_id = BrokerId(scripted::NODE);
                    c.host = scripted::sb("127.0.0.1");
                    c.port = port;
                    r.coordinators = vec![c];
                } else {
                    r.error_code = code;
                    r.node_id = BrokerId(scripted::NODE);
                    r.host = scripted::sb("127.0.0.1");
                    r.port = port;
                }
                ResponseKind::FindCoordinator(r)
            }
            RequestKind::JoinGroup(j) => {
                let (code, id, generation) = s.next("join", |s| &s.join);
                let mut r = JoinGroupResponse::default();
                r.error_code = code;
                r.member_id = scripted::sb(id);
                r.generation_id = generation;
                if code == 0 {
                    r.protocol_name = Some(j.protocols[0].name.clone());
                    r.protocol_type = Some(scripted::sb("consumer"));
                    r.leader = scripted::sb(id);
                    let mut m = JoinGroupResponseMember::default();
                    m.member_id = scripted::sb(id);
                    m.group_instance_id = if version >= 5 {
                        j.group_instance_id.clone()
                    } else {
                        None
                    };
                    m.metadata = j.protocols[0].metadata.clone();
                    r.members = vec![m];
                } else if version >= 7 {
                    r.protocol_name = None;
                }
                ResponseKind::JoinGroup(r)
            }
            RequestKind::SyncGroup(sg) => {
                let code = s.next("sync", |s| &s.sync);
                let mut r = SyncGroupResponse::default();
                r.error_code = code;
                if code == 0 {
                    // the leader's own assignment, echoed
                    r.assignment = sg
                        .assignments
                        .iter()
                        .find(|a| a.member_id == sg.member_id)
                        .map(|a| a.assignment.clone())
                        .unwrap_or_default();
                    if version >= 5 {
                        r.protocol_type = Some(scripted::sb("consumer"));
                        r.protocol_name = sg.protocol_name.clone();
                    }
                }
                ResponseKind::SyncGroup(r)
            }
            RequestKind::Heartbeat(_) => {
                let mut r = HeartbeatResponse::default();
                r.error_code = s.next("heartbeat", |s| &s.heartbeat);
                ResponseKind::Heartbeat(r)
            }
            RequestKind::LeaveGroup(_) => ResponseKind::LeaveGroup(LeaveGroupResponse::default()),
            RequestKind::OffsetCommit(c) => scripted::commit_accepted(c),
            RequestKind::OffsetFetch(_) => {
                let mut r = OffsetFetchResponse::default();
                let mut t = OffsetFetchResponseTopic::default();
                t.name = kafka_protocol::messages::TopicName(scripted::sb("t"));
                t.partitions = (0..2)
                    .map(|p| {
                        let mut rp = OffsetFetchResponsePartition::default();
                        rp.partition_index = p;
                        rp.committed_offset = -1;
                        rp
                    })
                    .collect();
                r.topics = vec![t];
                ResponseKind::OffsetFetch(r)
            }
            _ => return None,
        })
    })
}

/// A member of the scripted group that records rebalance events and keeps
/// no partitions (its callback assigns nothing, so nothing is fetched).
fn scripted_member(addr: &str, extra: &[(&str, &str)]) -> (Consumer, Shared<(i32, usize)>) {
    let mut cfg = gregor::config::Config::from_pairs([
        ("bootstrap.servers", addr),
        ("group.id", "g"),
        ("heartbeat.interval.ms", "100"),
        ("session.timeout.ms", "6000"),
        ("enable.auto.commit", "false"),
    ])
    .unwrap();
    for (k, v) in extra {
        cfg.set(k, v).unwrap();
    }
    let c = Consumer::new(&cfg).unwrap();
    let events: Arc<Mutex<Vec<(i32, usize)>>> = Arc::default();
    let e2 = events.clone();
    c.set_rebalance_callback(move |c, ev| {
        e2.lock().unwrap().push((ev.code(), ev.partitions().len()));
        c.assign(&[]).unwrap();
    });
    (c, events)
}

fn seen_of(b: &scripted::Scripted, f: impl Fn(&RequestKind) -> bool) -> Vec<scripted::Seen> {
    b.seen
        .lock()
        .unwrap()
        .iter()
        .filter(|s| f(&s.body))
        .cloned()
        .collect()
}

fn poll_until(
    c: &Consumer,
    what: &str,
    mut done: impl FnMut() -> bool,
) -> Vec<gregor::message::Message> {
    let mut out = Vec::new();
    let until = Instant::now() + T;
    while !done() {
        assert!(Instant::now() < until, "timed out waiting for {what}");
        if let Some(m) = c.poll(Duration::from_millis(50)).unwrap() {
            out.push(m);
        }
    }
    out
}

#[test]
fn oldest_versions_join_sync_heartbeat_commit_and_leave() {
    let b = scripted_coordinator(
        true,
        Script {
            find: vec![0],
            join: vec![(0, "m-1", 5), (0, "m-1", 6)],
            sync: vec![0],
            // a rebalance after two heartbeats: rejoin with the same id
            heartbeat: vec![0, 0, 27, 0],
            ..Default::default()
        },
    );
    let (c, events) = scripted_member(&b.addr, &[]);
    c.subscribe(&["t"]).unwrap();
    let joins = || seen_of(&b, |r| matches!(r, RequestKind::JoinGroup(_)));
    poll_until(&c, "two joins and syncs", || {
        events.lock().unwrap().iter().filter(|e| e.0 == 1).count() >= 2
    });
    let j = joins();
    assert!(j.iter().all(|s| s.version == 0));
    let RequestKind::JoinGroup(first) = &j[0].body else {
        unreachable!()
    };
    assert_eq!(first.member_id.as_str(), "");
    assert_eq!(first.session_timeout_ms, 6000);
    assert_eq!(first.protocol_type.as_str(), "consumer");
    // librdkafka's default strategy list, in order
    let names: Vec<&str> = first.protocols.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["range", "roundrobin"]);
    let RequestKind::JoinGroup(second) = &j[1].body else {
        unreachable!()
    };
    assert_eq!(second.member_id.as_str(), "m-1");
    // the subscription is ConsumerProtocol v3 to ["t"], as Java writes it
    let meta = &first.protocols[0].metadata;
    assert_eq!(&meta[..2], &[0, 3]);
    assert_eq!(&meta[2..9], &[0, 0, 0, 1, 0, 1, b't']);
    // the leader's SyncGroup v0 assigns both partitions
    let syncs = seen_of(&b, |r| matches!(r, RequestKind::SyncGroup(_)));
    assert!(syncs.iter().all(|s| s.version == 0));
    let RequestKind::SyncGroup(sg) = &syncs[1].body else {
        unreachable!()
    };
    assert_eq!(sg.generation_id, 6);
    let a = &sg.assignments[0].assignment;
    // version 3, one topic "t", partitions [0, 1], null user data
    assert_eq!(
        &a[..],
        &[
            0, 3, 0, 0, 0, 1, 0, 1, b't', 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0xff, 0xff, 0xff,
            0xff
        ]
    );
    let ev = events.lock().unwrap().clone();
    assert_eq!(ev[0], (1, 2));
    // heartbeats at v0 with the generation
    let hb = seen_of(&b, |r| matches!(r, RequestKind::Heartbeat(_)));
    assert!(hb.iter().all(|s| s.version == 0));
    // a commit at v1 (with a commit timestamp), metadata included
    c.commit(Some(&[Tpo::new("t", 1, 42).with_metadata("md")]), T)
        .unwrap();
    let commits = seen_of(&b, |r| matches!(r, RequestKind::OffsetCommit(_)));
    let RequestKind::OffsetCommit(oc) = &commits[0].body else {
        unreachable!()
    };
    assert_eq!(commits[0].version, 1);
    assert_eq!(
        (oc.generation_id_or_member_epoch, oc.member_id.as_str()),
        (6, "m-1")
    );
    let p = &oc.topics[0].partitions[0];
    assert_eq!((p.partition_index, p.committed_offset), (1, 42));
    assert_eq!(
        p.committed_metadata.as_ref().map(|m| m.as_str()),
        Some("md")
    );
    assert_eq!(p.commit_timestamp, -1);
    // close: LeaveGroup v0 naming the member
    c.close();
    let leaves = seen_of(&b, |r| matches!(r, RequestKind::LeaveGroup(_)));
    assert_eq!(leaves.len(), 1);
    assert_eq!(leaves[0].version, 0);
    let RequestKind::LeaveGroup(l) = &leaves[0].body else {
        unreachable!()
    };
    assert_eq!(l.member_id.as_str(), "m-1");
}

#[test]
fn coordinator_errors_are_handled_as_the_java_client_does() {
    // FindCoordinator: not available, then found. JoinGroup: member id
    // required (KIP-394), then NOT_COORDINATOR (find again), then joined;
    // SyncGroup: rebalance in progress (join again); heartbeats:
    // UNKNOWN_MEMBER_ID (lost, rejoin with no id), ILLEGAL_GENERATION
    // (lost, rejoin with the id)
    let b = scripted_coordinator(
        false,
        Script {
            find: vec![15, 0],
            join: vec![
                (79, "m-req", -1),
                (16, "", -1),
                (0, "m-req", 1),
                (0, "m-req", 2),
                (0, "m-new", 3),
                (0, "m-new", 4),
            ],
            sync: vec![27, 0],
            heartbeat: vec![0, 25, 0, 22, 0],
            ..Default::default()
        },
    );
    let (c, events) = scripted_member(&b.addr, &[]);
    c.subscribe(&["t"]).unwrap();
    poll_until(&c, "generation 4", || {
        seen_of(&b, |r| matches!(r, RequestKind::JoinGroup(_))).len() >= 6
            && events.lock().unwrap().iter().filter(|e| e.0 == 1).count() >= 3
    });
    let ids: Vec<String> = seen_of(&b, |r| matches!(r, RequestKind::JoinGroup(_)))
        .iter()
        .map(|s| match &s.body {
            RequestKind::JoinGroup(j) => j.member_id.to_string(),
            _ => unreachable!(),
        })
        .collect();
    assert_eq!(ids, ["", "m-req", "m-req", "m-req", "", "m-new"]);
    let finds = seen_of(&b, |r| matches!(r, RequestKind::FindCoordinator(_)));
    assert!(
        finds.len() >= 3,
        "found again after NOT_COORDINATOR: {}",
        finds.len()
    );
    // assigned (gen 2), lost (unknown member), assigned (gen 3), lost
    // (illegal generation), assigned (gen 4)
    let ev = events.lock().unwrap().clone();
    let kinds: Vec<i32> = ev.iter().map(|e| e.0).collect();
    assert_eq!(kinds, [1, 3, 1, 3, 1], "{ev:?}");
    assert_eq!(c.member_id(), "m-new");
    c.close();
}

#[test]
fn a_fenced_static_member_stops_with_a_fatal_error() {
    let b = scripted_coordinator(
        false,
        Script {
            find: vec![0],
            join: vec![(0, "m-s", 1)],
            sync: vec![0],
            heartbeat: vec![0, 82],
            ..Default::default()
        },
    );
    let (c, events) = scripted_member(&b.addr, &[("group.instance.id", "inst-1")]);
    c.subscribe(&["t"]).unwrap();
    let mut fenced = None;
    let until = Instant::now() + T;
    while fenced.is_none() && Instant::now() < until {
        if let Some(m) = c.poll(Duration::from_millis(50)).unwrap() {
            if let Some(e) = m.error {
                fenced = Some(e);
            }
        }
    }
    let e = fenced.expect("a fatal error");
    assert_eq!(e.code(), 82, "{e}");
    let joins = seen_of(&b, |r| matches!(r, RequestKind::JoinGroup(_)));
    let RequestKind::JoinGroup(j) = &joins[0].body else {
        unreachable!()
    };
    assert_eq!(
        j.group_instance_id.as_ref().map(|s| s.as_str()),
        Some("inst-1")
    );
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(
        seen_of(&b, |r| matches!(r, RequestKind::JoinGroup(_))).len(),
        1,
        "no rejoin"
    );
    assert_eq!(
        events.lock().unwrap().last().unwrap().0,
        3,
        "partitions lost"
    );
    assert_eq!(c.subscribe(&["t"]).unwrap_err().code(), 82);
    // a static member sends no LeaveGroup on close
    c.close();
    assert!(seen_of(&b, |r| matches!(r, RequestKind::LeaveGroup(_))).is_empty());
}
