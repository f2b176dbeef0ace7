//! The ZooKeeper-balanced consumer (Kafka 0.8's high-level consumer)
//! against the real ZooKeeper and the real broker. Each test writes what a
//! ZooKeeper-mode Kafka writes (Kafka's broker registration and topic
//! assignment formats, pointing at the test broker as node 111) under its
//! own chroot, so helpers running side by side never meet.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::zk::{Chroot, T};
use gregor::config::Config;
use gregor::message::ProducerRecord;
use gregor::producer::Producer;
use gregor::zk::BalancedConsumer;
use zookeeper::{Acl, CreateMode};

fn zk_addr() -> String {
    common::zookeeper()
}

/// A fresh chroot with broker 111 (the test broker) and `topic` registered
/// as a ZooKeeper-mode Kafka would; removed when dropped.
fn chroot(name: &str, topic: &str, partitions: i32) -> Chroot {
    let c = Chroot::with_test_broker(name);
    let parts: Vec<String> = (0..partitions).map(|i| format!("\"{i}\":[111]")).collect();
    c.put(
        &format!("/brokers/topics/{topic}"),
        &format!(
            r#"{{"version":2,"partitions":{{{}}},"adding_replicas":{{}},"removing_replicas":{{}}}}"#,
            parts.join(",")
        ),
    );
    c
}

/// `/consumers/<g>/owners/<t>/*`: partition → owner.
fn owners(root: &Chroot, group: &str, topic: &str) -> BTreeMap<i32, String> {
    by_partition(root, &format!("/consumers/{group}/owners/{topic}"), |o| o)
}

/// `/consumers/<g>/offsets/<t>/*`: partition → offset.
fn offsets(root: &Chroot, group: &str, topic: &str) -> BTreeMap<i32, i64> {
    by_partition(root, &format!("/consumers/{group}/offsets/{topic}"), |o| {
        o.parse().unwrap()
    })
}

/// The znodes under `dir`, one per partition, by partition, their data read
/// by `value`.
fn by_partition<T>(root: &Chroot, dir: &str, value: impl Fn(String) -> T) -> BTreeMap<i32, T> {
    root.children(dir)
        .into_iter()
        .filter_map(|p| {
            let o = root.get(&format!("{dir}/{p}"))?;
            Some((p.parse().unwrap(), value(o)))
        })
        .collect()
}

fn config(connect: &str, group: &str, extra: &[(&str, &str)]) -> Config {
    let mut c = Config::from_pairs([
        ("zookeeper.connect", connect),
        ("group.id", group),
        ("auto.offset.reset", "smallest"),
        ("auto.commit.interval.ms", "300"),
        ("rebalance.backoff.ms", "3000"),
    ])
    .unwrap();
    for (k, v) in extra {
        c.set(k, v).unwrap();
    }
    c
}

fn wait_for(what: &str, limit: Duration, mut ok: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !ok() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// What the polling threads saw: (member, partition, offset, value).
type Seen = Arc<Mutex<Vec<(usize, i32, i64, String)>>>;

/// Polls `c` on a thread until it is closed, recording messages as member `idx`.
fn poller(idx: usize, c: Arc<BalancedConsumer>, seen: Seen) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || loop {
        match c.poll(Duration::from_millis(200)) {
            Ok(Some(m)) => {
                if let Some(e) = &m.error {
                    eprintln!("member {idx}: event {e}");
                    continue;
                }
                let v =
                    String::from_utf8_lossy(m.value.as_deref().unwrap_or_default()).into_owned();
                seen.lock().unwrap().push((idx, m.partition, m.offset, v));
            }
            Ok(None) => {}
            Err(_) => return, // closed
        }
    })
}

fn produce(p: &Producer, topic: &str, from: usize, n: usize, partitions: i32) {
    for i in from..from + n {
        let v = format!("m-{i}");
        let mut r = ProducerRecord::new(topic, v.as_bytes());
        r.partition = Some(i as i32 % partitions);
        p.send_blocking(&r, i, T).unwrap();
    }
    p.flush(T).unwrap();
}

fn distinct(seen: &Seen) -> BTreeSet<String> {
    seen.lock().unwrap().iter().map(|x| x.3.clone()).collect()
}

#[test]
fn three_members_share_six_partitions_and_one_leaves() {
    if !common::broker_up() {
        return;
    }
    if !common::zookeeper_up() {
        return;
    }
    let topic = common::unique_topic("zkbal");
    common::create_topic(&topic, 6);
    let root = chroot("zkbal", &topic, 6);
    let group = common::unique_topic("zkbal-g");
    let cfg = config(&root.connect(), &group, &[]);
    let members: Vec<Arc<BalancedConsumer>> = (0..3)
        .map(|_| Arc::new(BalancedConsumer::new(&cfg, &[topic.as_str()]).unwrap()))
        .collect();
    let threads: Vec<String> = members.iter().map(|m| m.thread_id().to_string()).collect();
    for m in &members {
        assert!(m.id().starts_with(&format!("{group}_")), "{}", m.id());
        assert_eq!(m.thread_id(), format!("{}-0", m.id()));
    }
    // Registrations in Kafka's format.
    let ids = root.children(&format!("/consumers/{group}/ids"));
    assert_eq!(ids.len(), 3);
    let reg = root
        .get(&format!("/consumers/{group}/ids/{}", members[0].id()))
        .unwrap();
    let v: serde_json::Value = serde_json::from_str(&reg).unwrap();
    assert_eq!(v["version"], 1);
    assert_eq!(v["pattern"], "static");
    assert_eq!(v["subscription"][&topic], 1);
    assert!(v["timestamp"].as_str().unwrap().parse::<i64>().is_ok());
    // Intermediate nodes name their creator.
    let creator = root.get(&format!("/consumers/{group}")).unwrap();
    assert!(ids.contains(&creator), "{creator}");

    // Steady state: two partitions each, owners in ZooKeeper = the three threads.
    let mut sorted = threads.clone();
    sorted.sort();
    let expect: BTreeMap<i32, String> = (0..6)
        .map(|p| (p, sorted[p as usize / 2].clone()))
        .collect();
    wait_for("the range assignment", Duration::from_secs(60), || {
        owners(&root, &group, &topic) == expect && members.iter().all(|m| m.owned().len() == 2)
    });
    for (i, m) in members.iter().enumerate() {
        let mine: Vec<i32> = expect
            .iter()
            .filter(|(_, o)| **o == threads[i])
            .map(|(p, _)| *p)
            .collect();
        let owned: Vec<i32> = m.owned().into_iter().map(|(_, p)| p).collect();
        assert_eq!(owned, mine, "member {i}");
    }

    let seen: Seen = Arc::new(Mutex::new(Vec::new()));
    let pollers: Vec<_> = members
        .iter()
        .enumerate()
        .map(|(i, m)| poller(i, m.clone(), seen.clone()))
        .collect();
    let producer = Producer::new(&common::config(&[])).unwrap();
    produce(&producer, &topic, 0, 300, 6);
    wait_for("300 messages", T * 3, || distinct(&seen).len() == 300);
    std::thread::sleep(Duration::from_millis(500));
    {
        let s = seen.lock().unwrap();
        assert_eq!(s.len(), 300, "steady state: every message exactly once");
        for (idx, p, _, _) in s.iter() {
            assert_eq!(
                expect[p], threads[*idx],
                "partition {p} read by member {idx}"
            );
        }
    }

    // Member 1 leaves while messages keep coming.
    let bg = {
        let topic = topic.clone();
        std::thread::spawn(move || {
            let producer = Producer::new(&common::config(&[])).unwrap();
            for k in 0..30 {
                produce(&producer, &topic, 300 + k * 20, 20, 6);
                std::thread::sleep(Duration::from_millis(50));
            }
        })
    };
    std::thread::sleep(Duration::from_millis(300));
    members[1].close();
    bg.join().unwrap();
    let total = 300 + 30 * 20;
    wait_for("every message after the leave", T * 6, || {
        distinct(&seen).len() == total
    });
    std::thread::sleep(Duration::from_millis(500));
    let s = seen.lock().unwrap().clone();
    let mut count: BTreeMap<(i32, i64), usize> = BTreeMap::new();
    for (_, p, o, _) in &s {
        *count.entry((*p, *o)).or_default() += 1;
    }
    let duplicates: usize = count.values().map(|n| n - 1).sum();
    eprintln!(
        "{} messages, {} received, {duplicates} duplicates",
        total,
        s.len()
    );
    // Closing committed what member 1 handed out, so nothing repeats.
    assert_eq!(duplicates, 0);
    assert_eq!(count.len(), total);

    // Survivors: 3 partitions each, as Kafka's range over two threads.
    let mut two = [threads[0].clone(), threads[2].clone()];
    two.sort();
    let expect2: BTreeMap<i32, String> = (0..6).map(|p| (p, two[p as usize / 3].clone())).collect();
    wait_for("owners after the leave", T, || {
        owners(&root, &group, &topic) == expect2
    });
    assert_eq!(root.children(&format!("/consumers/{group}/ids")).len(), 2);
    // Offsets in ZooKeeper = last consumed + 1, per partition.
    let mut last: BTreeMap<i32, i64> = BTreeMap::new();
    for (p, o) in count.keys() {
        let e = last.entry(*p).or_insert(*o);
        *e = (*e).max(*o);
    }
    let want: BTreeMap<i32, i64> = last.iter().map(|(p, o)| (*p, o + 1)).collect();
    assert_eq!(want.values().sum::<i64>(), total as i64);
    wait_for("offsets committed", T, || {
        offsets(&root, &group, &topic) == want
    });

    for m in &members {
        m.close();
    }
    for p in pollers {
        p.join().unwrap();
    }
    assert!(root.children(&format!("/consumers/{group}/ids")).is_empty());
    assert!(owners(&root, &group, &topic).is_empty());
    assert_eq!(offsets(&root, &group, &topic), want);
}

/// A TCP proxy to ZooKeeper that can cut the line: while cut, connections
/// are dropped and new ones accepted but never answered, so the client's
/// session times out and ZooKeeper expires it.
struct ZkProxy {
    port: u16,
    cut: Arc<AtomicBool>,
    live: Arc<Mutex<Vec<TcpStream>>>,
}

impl ZkProxy {
    fn start() -> ZkProxy {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        let cut = Arc::new(AtomicBool::new(false));
        let live: Arc<Mutex<Vec<TcpStream>>> = Arc::new(Mutex::new(Vec::new()));
        let (cut2, live2) = (cut.clone(), live.clone());
        std::thread::spawn(move || {
            for s in l.incoming() {
                let Ok(client) = s else { return };
                live2.lock().unwrap().push(client.try_clone().unwrap());
                if cut2.load(Ordering::SeqCst) {
                    continue; // held, silent
                }
                let Ok(server) = TcpStream::connect(zk_addr()) else {
                    continue;
                };
                live2.lock().unwrap().push(server.try_clone().unwrap());
                for (mut a, mut b) in [
                    (client.try_clone().unwrap(), server.try_clone().unwrap()),
                    (server, client),
                ] {
                    std::thread::spawn(move || {
                        let mut buf = [0u8; 16384];
                        while let Ok(n) = a.read(&mut buf) {
                            if n == 0 || b.write_all(&buf[..n]).is_err() {
                                break;
                            }
                        }
                        let _ = a.shutdown(Shutdown::Both);
                        let _ = b.shutdown(Shutdown::Both);
                    });
                }
            }
        });
        ZkProxy { port, cut, live }
    }

    fn drop_all(&self) {
        for s in self.live.lock().unwrap().drain(..) {
            let _ = s.shutdown(Shutdown::Both);
        }
    }

    fn cut(&self) {
        self.cut.store(true, Ordering::SeqCst);
        self.drop_all();
    }

    fn restore(&self) {
        self.cut.store(false, Ordering::SeqCst);
        self.drop_all();
    }
}

#[test]
fn session_expiry_reregisters_and_consumption_continues() {
    if !common::broker_up() {
        return;
    }
    if !common::zookeeper_up() {
        return;
    }
    let topic = common::unique_topic("zkexp");
    common::create_topic(&topic, 4);
    let root = chroot("zkexp", &topic, 4);
    let group = common::unique_topic("zkexp-g");
    let proxy = ZkProxy::start();
    let connect = format!("127.0.0.1:{}{}", proxy.port, root.root);
    // The member under test talks to ZooKeeper through the proxy; a second
    // member talks to it directly and takes over while the first is gone.
    let cfg = config(
        &connect,
        &group,
        &[("zookeeper.session.timeout.ms", "4000")],
    );
    let a = Arc::new(BalancedConsumer::new(&cfg, &[topic.as_str()]).unwrap());
    let b = Arc::new(
        BalancedConsumer::new(&config(&root.connect(), &group, &[]), &[topic.as_str()]).unwrap(),
    );
    let id_path = format!("/consumers/{group}/ids/{}", a.id());
    wait_for(
        "two members with two partitions each",
        Duration::from_secs(60),
        || a.owned().len() == 2 && b.owned().len() == 2 && owners(&root, &group, &topic).len() == 4,
    );
    let stat_before = root.zk.exists(&id_path, false).unwrap().unwrap();

    let seen: Seen = Arc::new(Mutex::new(Vec::new()));
    let pa = poller(0, a.clone(), seen.clone());
    let pb = poller(1, b.clone(), seen.clone());
    let producer = Producer::new(&common::config(&[])).unwrap();
    produce(&producer, &topic, 0, 100, 4);
    wait_for("the first 100", T * 3, || distinct(&seen).len() == 100);
    wait_for("their offsets committed", T, || {
        offsets(&root, &group, &topic).values().sum::<i64>() == 100
    });

    // Cut A from ZooKeeper for longer than its session timeout: ZooKeeper
    // expires the session, A's registration and owner nodes vanish, B
    // takes every partition.
    proxy.cut();
    wait_for(
        "A's registration to expire",
        Duration::from_secs(30),
        || root.zk.exists(&id_path, false).unwrap().is_none(),
    );
    wait_for("B to own everything", Duration::from_secs(30), || {
        let o = owners(&root, &group, &topic);
        o.len() == 4 && o.values().all(|x| x == b.thread_id())
    });
    produce(&producer, &topic, 100, 100, 4);
    std::thread::sleep(Duration::from_secs(2));
    proxy.restore();

    // A registers again under the same id in a new session, and the two
    // share the partitions again.
    wait_for("A's new registration", Duration::from_secs(60), || {
        root.zk
            .exists(&id_path, false)
            .unwrap()
            .is_some_and(|s| s.ephemeral_owner != stat_before.ephemeral_owner)
    });
    wait_for(
        "the shared assignment again",
        Duration::from_secs(60),
        || {
            let o = owners(&root, &group, &topic);
            o.len() == 4
                && o.values().filter(|x| *x == a.thread_id()).count() == 2
                && a.owned().len() == 2
                && b.owned().len() == 2
        },
    );
    produce(&producer, &topic, 200, 100, 4);
    wait_for("all 300", T * 6, || distinct(&seen).len() == 300);
    let s = seen.lock().unwrap().clone();
    let after: BTreeSet<String> = s.iter().filter(|x| x.0 == 0).map(|x| x.3.clone()).collect();
    // A consumed after coming back (its partitions got messages 200..300).
    assert!(
        (200..300).any(|i| after.contains(&format!("m-{i}"))),
        "A consumed nothing after re-registering"
    );
    let dups = s.len() - distinct(&seen).len();
    eprintln!("{} received, {dups} duplicates across the expiry", s.len());
    // A hands nothing out while cut off, and everything was committed
    // before the cut: nothing is read twice.
    assert_eq!(dups, 0);
    a.close();
    b.close();
    pa.join().unwrap();
    pb.join().unwrap();
}

/// Runs the gregor binary, killing it after a minute.
fn gregor(args: &[&str]) -> std::process::Output {
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_gregor"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("gregor {args:?} did not finish");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn cli_consume_and_znode_commands() {
    if !common::broker_up() {
        return;
    }
    if !common::zookeeper_up() {
        return;
    }
    let topic = common::unique_topic("zkcli");
    common::create_topic(&topic, 3);
    let root = chroot("zkcli", &topic, 3);
    let group = common::unique_topic("zkcli-g");
    let producer = Producer::new(&common::config(&[])).unwrap();
    for i in 0..9 {
        let v = format!("line-{i}");
        let k = format!("k{i}");
        let mut r = ProducerRecord::new(&topic, v.as_bytes());
        r.partition = Some(i % 3);
        r.key = Some(k.as_bytes());
        producer.send_sync(&r, Some(T)).unwrap();
    }
    let connect = root.connect();
    // Two runs of 5 and 4: the second starts where the first committed
    // (a partition the first read nothing from: where it started, as Kafka).
    let o = gregor(&[
        "zk",
        "-z",
        &connect,
        "consume",
        "-g",
        &group,
        "-c",
        "5",
        "-X",
        "auto.offset.reset=earliest",
        &topic,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let first = String::from_utf8(o.stdout).unwrap();
    assert_eq!(first.lines().count(), 5, "{first}");
    assert_eq!(offsets(&root, &group, &topic).values().sum::<i64>(), 5);
    let o = gregor(&[
        "zk",
        "-z",
        &connect,
        "consume",
        "-g",
        &group,
        "-c",
        "4",
        "-K",
        ":",
        "-X",
        "auto.offset.reset=earliest",
        &topic,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let second = String::from_utf8(o.stdout).unwrap();
    let mut all: Vec<String> = first.lines().map(String::from).collect();
    for l in second.lines() {
        let (k, v) = l.split_once(':').unwrap();
        assert_eq!(k[1..], v["line-".len()..], "{l}");
        all.push(v.to_string());
    }
    all.sort();
    let want: Vec<String> = (0..9).map(|i| format!("line-{i}")).collect();
    assert_eq!(all, want, "every message once over the two runs");
    assert_eq!(
        offsets(&root, &group, &topic),
        (0..3).map(|p| (p, 3)).collect()
    );
    // The member left: no registration, no owners.
    assert!(root.children(&format!("/consumers/{group}/ids")).is_empty());
    assert!(owners(&root, &group, &topic).is_empty());

    // Usage errors.
    let o = gregor(&["zk", "-z", &connect, "consume", &topic]);
    assert_eq!(o.status.code(), Some(2));
    let o = gregor(&["zk", "-z", &connect, "consume", "-g", &group]);
    assert_eq!(o.status.code(), Some(2));
    let o = gregor(&[
        "zk", "-z", &connect, "consume", "-g", &group, "-X", "nope=1", &topic,
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("nope"));

    // get / put / delete.
    let o = gregor(&["zk", "-z", &connect, "put", "/x/y/z", "{\"a\":1}"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(root.get("/x/y/z").as_deref(), Some("{\"a\":1}"));
    let o = gregor(&["zk", "-z", &connect, "get", "/x/y/z"]);
    assert_eq!(String::from_utf8_lossy(&o.stdout), "{\"a\":1}\n");
    let o = gregor(&["zk", "-z", &connect, "delete", "/x"]);
    assert!(o.status.success());
    assert!(root.get("/x/y").is_none() && root.get("/x").is_none());
    let o = gregor(&["zk", "-z", &connect, "get", "/x"]);
    assert_eq!(o.status.code(), Some(1));
    let o = gregor(&["zk", "-z", &connect, "delete", "/"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn rebalances_on_partitions_members_and_stuck_owners() {
    if !common::broker_up() {
        return;
    }
    if !common::zookeeper_up() {
        return;
    }
    let topic = common::unique_topic("zkreb");
    common::create_topic(&topic, 4);
    // ZooKeeper lists two of the topic's four partitions at first.
    let root = chroot("zkreb", &topic, 2);
    let group = common::unique_topic("zkreb-g");
    let cfg = config(
        &root.connect(),
        &group,
        &[
            ("consumer.id", "aaa"),
            ("rebalance.backoff.ms", "300"),
            ("rebalance.max.retries", "1"),
        ],
    );
    let a = BalancedConsumer::new(&cfg, &[topic.as_str()]).unwrap();
    assert_eq!(a.id(), format!("{group}_aaa"));
    let owned = |n: usize| {
        (0..n as i32)
            .map(|p| (topic.clone(), p))
            .collect::<Vec<_>>()
    };
    wait_for("two partitions", T, || a.owned() == owned(2));

    // The topic grows (the partitions watch): four.
    let parts = r#"{"0":[111],"1":[111],"2":[111],"3":[111]}"#;
    root.put(
        &format!("/brokers/topics/{topic}"),
        &format!(r#"{{"version":1,"partitions":{parts}}}"#),
    );
    wait_for("four partitions", T, || a.owned() == owned(4));

    // A member registered by a Kafka 0.8 consumer (a version 1 registration) joins:
    // range over [aaa-0, zzz-0] gives it partitions 2 and 3, which A lets go.
    let other = format!("{group}_zzz");
    let eph = |path: &str, data: &str| {
        root.zk
            .create(
                path,
                data.as_bytes().to_vec(),
                Acl::open_unsafe().clone(),
                CreateMode::Ephemeral,
            )
            .unwrap();
    };
    eph(
        &format!("/consumers/{group}/ids/{other}"),
        &format!(
            "{{\n  \"version\": 1,\n  \"subscription\": {{\n    \"{topic}\": 1\n  }},\n  \"pattern\": \"white_list\",\n  \"timestamp\": \"1558617131642\"\n}}"
        ),
    );
    wait_for("A to keep 0 and 1", T, || a.owned() == owned(2));
    wait_for("2 and 3 released", T, || {
        owners(&root, &group, &topic).len() == 2
    });
    // The other member claims them as Kafka does.
    for p in [2, 3] {
        eph(
            &format!("/consumers/{group}/owners/{topic}/{p}"),
            &format!("{other}-0"),
        );
    }

    // It leaves but its owner node for 3 stays (a stuck previous owner):
    // A takes 2, retries 3 for rebalance.backoff.ms, then reports the
    // failed rebalance through poll and keeps retrying.
    root.zk
        .delete(&format!("/consumers/{group}/owners/{topic}/2"), None)
        .unwrap();
    root.zk
        .delete(&format!("/consumers/{group}/ids/{other}"), None)
        .unwrap();
    let deadline = Instant::now() + T;
    let e = loop {
        assert!(Instant::now() < deadline, "no rebalance failure reported");
        if let Some(m) = a.poll(Duration::from_millis(100)).unwrap() {
            if let Some(e) = m.error {
                break e;
            }
        }
    };
    assert_eq!(e.code(), gregor::error::local::FAIL, "{e}");
    let text = e.to_string();
    assert!(
        text.contains("still owned by") && text.contains(&format!("{other}-0")),
        "{text}"
    );
    assert_eq!(a.owned(), owned(3));
    // The stuck owner goes: A gets 3 on a retry.
    root.zk
        .delete(&format!("/consumers/{group}/owners/{topic}/3"), None)
        .unwrap();
    wait_for("all four again", T, || a.owned() == owned(4));
    let o = owners(&root, &group, &topic);
    assert!(
        o.len() == 4 && o.values().all(|x| x == a.thread_id()),
        "{o:?}"
    );

    // Its registration deleted by hand: A registers again (a new session)
    // and claims everything anew.
    let id_path = format!("/consumers/{group}/ids/{}", a.id());
    let before = root.zk.exists(&id_path, false).unwrap().unwrap();
    root.zk.delete(&id_path, None).unwrap();
    wait_for("A registered again", T, || {
        root.zk
            .exists(&id_path, false)
            .unwrap()
            .is_some_and(|s| s.ephemeral_owner != before.ephemeral_owner)
    });
    wait_for("all four in the new session", T, || {
        a.owned() == owned(4)
            && (0..4).all(|p| {
                root.zk
                    .exists(&format!("/consumers/{group}/owners/{topic}/{p}"), false)
                    .unwrap()
                    .is_some_and(|s| s.ephemeral_owner != before.ephemeral_owner)
            })
    });
    a.close();
    assert!(owners(&root, &group, &topic).is_empty());
}
