//! Faults on the way to the real broker, through the fault-injecting proxy
//! (tests/common/proxy.rs): connections dropped at random points, stalled,
//! truncated mid-frame, on a seeded schedule; the broker going away and
//! coming back; a broker that hangs while clients close.
//!
//! What must hold: an idempotent producer (acks=all) loses nothing,
//! duplicates nothing and keeps each partition's order; an assign-based
//! consumer loses nothing and returns nothing twice; a consumer group (a
//! member leaving and one joining midway) loses nothing, duplicates only
//! what was not yet committed, and commits the high watermarks; every
//! close/free returns within its timeout. The counts and timings are printed
//! (`cargo test --test faults -- --nocapture`) so they can be quoted.
//!
//! The schedule's seed is `GREGOR_FAULT_SEED` (default 1); a failure can be
//! replayed with the same seed (the timing still varies).

mod common;

use std::collections::HashMap;
use std::io::Read;
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use common::proxy::{self, FaultCounts, Proxy};
use gregor::config::Config;
use gregor::consumer::{Consumer, RebalanceEvent, TopicPartitionOffset};
use gregor::error::local;
use gregor::message::{offset, ProducerRecord};
use gregor::producer::Producer;

const PARTITIONS: i32 = 6;
const KEYS: u64 = 64;

fn seed() -> u64 {
    std::env::var("GREGOR_FAULT_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
}

/// A message's value: its sequence number (8 bytes, big-endian) and padding.
fn value(seq: u64) -> [u8; 16] {
    let mut v = [b'.'; 16];
    v[..8].copy_from_slice(&seq.to_be_bytes());
    v
}

fn key(seq: u64) -> String {
    format!("k{}", seq % KEYS)
}

fn through(px: &Proxy, extra: &[(&str, &str)]) -> Config {
    let mut cfg = common::config(extra);
    cfg.set("bootstrap.servers", &px.addr).unwrap();
    cfg
}

#[derive(Default)]
struct Sent {
    ok: u64,
    failed: u64,
    first_error: Option<String>,
}

/// Sends `n` keyed messages `0..n` with an idempotent producer, serving
/// reports as it goes; `during(i)` runs every 10,000 messages. Returns the
/// reports' tally and the time taken (sends plus the final flush).
fn produce(cfg: &Config, topic: &str, n: u64, mut during: impl FnMut(u64)) -> (Sent, Duration) {
    let p = Producer::new(cfg).unwrap();
    let sent = Arc::new(Mutex::new(Sent::default()));
    let s2 = sent.clone();
    p.set_delivery_callback(Some(Box::new(move |dr| {
        let mut s = s2.lock().unwrap();
        match &dr.error {
            None => s.ok += 1,
            Some(e) => {
                s.failed += 1;
                s.first_error.get_or_insert_with(|| format!("{e}"));
            }
        }
    })));
    let t = Instant::now();
    for seq in 0..n {
        let (k, v) = (key(seq), value(seq));
        let rec = ProducerRecord {
            topic,
            key: Some(k.as_bytes()),
            value: Some(&v),
            ..Default::default()
        };
        loop {
            match p.send(&rec, seq as usize) {
                Ok(()) => break,
                Err(e) if e.code() == local::QUEUE_FULL => {
                    p.poll(Duration::from_millis(5));
                }
                Err(e) => panic!("send {seq}: {e}"),
            }
        }
        if seq % 10_000 == 0 {
            p.poll(Duration::ZERO);
            during(seq);
        }
    }
    p.flush(Duration::from_secs(300)).unwrap();
    let took = t.elapsed();
    p.close(Duration::from_secs(5));
    let s = std::mem::take(&mut *sent.lock().unwrap());
    (s, took)
}

/// What reading a topic back found.
#[derive(Debug, Default)]
struct Tally {
    read: u64,
    lost: u64,
    duplicates: u64,
    /// Messages whose sequence is not above the previous one of their partition.
    out_of_order_partition: u64,
    /// … of their key.
    out_of_order_key: u64,
    /// Messages found in a partition their key does not hash to (its other messages' one).
    wrong_partition: u64,
    /// Offsets returned twice (or going backwards) within a partition.
    offset_repeats: u64,
    /// Error events the consumer returned.
    errors: u64,
}

/// Reads the whole topic (`0..n` expected) with an assign-based consumer,
/// until every partition's high watermark is reached or `limit` passes.
/// With `pace` > 0 it rests 10 ms after every `pace` messages, so faults on
/// a schedule meet the reading (a fast broker would outrun them).
fn read_back(
    cfg: &Config,
    watermarks_cfg: &Config,
    topic: &str,
    n: u64,
    limit: Duration,
    pace: u64,
) -> (Tally, Duration) {
    let check = Consumer::new(watermarks_cfg).unwrap();
    let highs: Vec<i64> = (0..PARTITIONS)
        .map(|p| {
            check
                .watermarks(topic, p, Duration::from_secs(30))
                .unwrap()
                .1
        })
        .collect();
    drop(check);
    let c = Consumer::new(cfg).unwrap();
    let tps: Vec<_> = (0..PARTITIONS)
        .map(|p| TopicPartitionOffset::new(topic, p, offset::BEGINNING))
        .collect();
    c.assign(&tps).unwrap();
    let mut seen = vec![false; n as usize];
    let mut t = Tally::default();
    let mut next: Vec<i64> = vec![0; PARTITIONS as usize];
    let mut last_seq: Vec<Option<u64>> = vec![None; PARTITIONS as usize];
    let mut last_by_key: HashMap<Vec<u8>, (i32, u64)> = HashMap::new();
    let start = Instant::now();
    let done = |next: &[i64]| next.iter().zip(&highs).all(|(a, b)| a >= b);
    while !done(&next) && start.elapsed() < limit {
        let Some(m) = c.poll(Duration::from_millis(200)).unwrap() else {
            continue;
        };
        if m.error.is_some() {
            t.errors += 1;
            continue;
        }
        let p = m.partition as usize;
        if m.offset < next[p] {
            t.offset_repeats += 1;
        }
        next[p] = next[p].max(m.offset + 1);
        t.read += 1;
        if pace > 0 && t.read % pace == 0 {
            thread::sleep(Duration::from_millis(10));
        }
        let v = m.value.as_deref().unwrap();
        let seq = u64::from_be_bytes(v[..8].try_into().unwrap());
        assert!(seq < n, "sequence {seq} out of range");
        if seen[seq as usize] {
            t.duplicates += 1;
        }
        seen[seq as usize] = true;
        if last_seq[p].is_some_and(|l| seq <= l) {
            t.out_of_order_partition += 1;
        }
        last_seq[p] = Some(seq);
        let k = m.key.as_deref().unwrap().to_vec();
        if let Some((kp, kl)) = last_by_key.get(&k) {
            if *kp != m.partition {
                t.wrong_partition += 1;
            } else if seq <= *kl {
                t.out_of_order_key += 1;
            }
        }
        last_by_key.insert(k, (m.partition, seq));
    }
    let took = start.elapsed();
    c.close();
    t.lost = seen.iter().filter(|s| !**s).count() as u64;
    let total: i64 = highs.iter().sum();
    assert!(
        done(&next),
        "read stopped at {next:?} of {highs:?} after {took:?}"
    );
    eprintln!("topic {topic}: {total} records stored, high watermarks {highs:?}");
    (t, took)
}

fn rate(n: u64, d: Duration) -> String {
    format!("{:.0} msgs/s", n as f64 / d.as_secs_f64())
}

fn produce_through_faults(n: u64) {
    let topic = common::unique_topic("faults-idem");
    common::create_topic(&topic, PARTITIONS);
    let px = proxy::start_faulty(&common::broker());
    let cfg = through(
        &px,
        &[
            ("enable.idempotence", "true"),
            ("acks", "all"),
            ("linger.ms", "5"),
            // stalls sometimes outlast a request: those are retried with the same sequence
            ("request.timeout.ms", "3000"),
            ("retry.backoff.ms", "20"),
        ],
    );
    let chaos = px.faults.chaos(
        seed(),
        Duration::from_millis(400),
        Duration::from_millis(4000),
    );
    let (sent, took) = produce(&cfg, &topic, n, |_| {});
    let faults = chaos.stop();
    eprintln!(
        "producer: {n} messages in {took:.1?} ({}) through {faults:?}, {} connections; \
         reports ok {} failed {}",
        rate(n, took),
        px.connections.load(Ordering::SeqCst),
        sent.ok,
        sent.failed
    );
    assert_eq!(sent.failed, 0, "first failure: {:?}", sent.first_error);
    assert_eq!(sent.ok, n);
    assert!(
        faults.drops + faults.truncations >= 1,
        "faults fired: {faults:?}"
    );
    // Read back directly from the broker, not through the proxy.
    let direct = common::config(&[]);
    let (t, read_took) = read_back(&direct, &direct, &topic, n, Duration::from_secs(300), 0);
    eprintln!("read back directly in {read_took:.1?}: {t:?}");
    assert_eq!(t.read, n, "{t:?}");
    assert_eq!(
        (
            t.lost,
            t.duplicates,
            t.out_of_order_partition,
            t.out_of_order_key
        ),
        (0, 0, 0, 0),
        "loss / duplicates / order: {t:?}"
    );
    assert_eq!(
        (t.wrong_partition, t.offset_repeats, t.errors),
        (0, 0, 0),
        "{t:?}"
    );
}

/// The 1,000,000 messages (about 15 s on a loaded 2-core machine).
#[test]
fn idempotent_producer_through_faults_loses_nothing_duplicates_nothing_keeps_order() {
    if !common::broker_up() {
        return;
    }
    produce_through_faults(1_000_000);
}

#[test]
fn assigned_consumer_through_faults_loses_nothing_and_repeats_nothing() {
    if !common::broker_up() {
        return;
    }
    let n = 200_000u64;
    let topic = common::unique_topic("faults-consume");
    common::create_topic(&topic, PARTITIONS);
    let direct = common::config(&[("linger.ms", "5")]);
    let (sent, took) = produce(&direct, &topic, n, |_| {});
    assert_eq!((sent.ok, sent.failed), (n, 0));
    eprintln!("produced {n} directly in {took:.1?}");
    let px = proxy::start_faulty(&common::broker());
    let cfg = through(
        &px,
        &[
            // small fetches, so many requests meet the faults
            ("fetch.max.bytes", "65536"),
            ("max.partition.fetch.bytes", "16384"),
            ("socket.timeout.ms", "3000"),
        ],
    );
    // Faults often and stalls short: an unloaded machine reads 200,000
    // messages in well under a second.
    let chaos = px.faults.chaos(
        seed() + 1,
        Duration::from_millis(50),
        Duration::from_millis(1000),
    );
    let (t, took) = read_back(
        &cfg,
        &common::config(&[]),
        &topic,
        n,
        Duration::from_secs(300),
        // about 20,000 messages/s: some 10 s of reading
        200,
    );
    let faults = chaos.stop();
    eprintln!(
        "consumer: {} messages in {took:.1?} ({}) through {faults:?}, {} connections: {t:?}",
        t.read,
        rate(t.read, took),
        px.connections.load(Ordering::SeqCst)
    );
    assert!(
        faults.drops + faults.truncations >= 1,
        "faults fired: {faults:?}"
    );
    assert_eq!(t.read, n, "{t:?}");
    assert_eq!((t.lost, t.duplicates, t.offset_repeats), (0, 0, 0), "{t:?}");
    assert_eq!(
        (t.out_of_order_partition, t.out_of_order_key),
        (0, 0),
        "{t:?}"
    );
}

/// A private broker for the restart test: nisshi with a file-backed storage
/// on a free port, or None when the installed nisshi has no such storage
/// (it needs the `libsql` feature).
struct PrivateBroker {
    child: Child,
    addr: String,
    args: Vec<String>,
    dir: std::path::PathBuf,
}

fn nisshi() -> String {
    std::env::var("GREGOR_TEST_NISSHI").unwrap_or_else(|_| "nisshi".into())
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn wait_port(addr: &str, up: bool, limit: Duration) -> bool {
    let t = Instant::now();
    while t.elapsed() < limit {
        if TcpStream::connect(addr).is_ok() == up {
            return true;
        }
        thread::sleep(Duration::from_millis(50));
    }
    false
}

impl PrivateBroker {
    fn start() -> Option<PrivateBroker> {
        let port = free_port();
        let addr = format!("127.0.0.1:{port}");
        let dir =
            std::env::temp_dir().join(format!("gregor-restart-{}-{port}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let url = format!("tcp://{addr}");
        let args = vec![
            "broker".to_string(),
            "--listener-url".into(),
            url.clone(),
            "--advertised-listener-url".into(),
            url,
            "--storage-engine".into(),
            format!("sqlite:///{}", dir.join("nisshi.db").display()),
            "--group-initial-rebalance-delay".into(),
            "0s".into(),
        ];
        let mut b = PrivateBroker {
            child: Command::new(nisshi())
                .args(&args)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .ok()?,
            addr,
            args,
            dir,
        };
        let t = Instant::now();
        while t.elapsed() < Duration::from_secs(10) && matches!(b.child.try_wait(), Ok(None)) {
            if TcpStream::connect(&b.addr).is_ok() {
                return Some(b);
            }
            thread::sleep(Duration::from_millis(50));
        }
        let _ = b.child.kill();
        let _ = b.child.wait();
        let mut err = String::new();
        if let Some(mut e) = b.child.stderr.take() {
            let _ = e.read_to_string(&mut err);
        }
        eprintln!(
            "no file-backed nisshi here ({}), so the restart is the proxy refusing connections",
            err.lines().last().unwrap_or("did not start")
        );
        None
    }

    /// SIGTERM, wait for it to go, start it again on the same port and storage.
    fn restart(&mut self, away: Duration) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let _ = self.child.wait();
        assert!(wait_port(&self.addr, false, Duration::from_secs(10)));
        thread::sleep(away);
        self.child = Command::new(nisshi())
            .args(&self.args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        assert!(wait_port(&self.addr, true, Duration::from_secs(30)));
    }
}

impl Drop for PrivateBroker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn create_topic_at(addr: &str, topic: &str) {
    let mut cfg = common::config(&[]);
    cfg.set("bootstrap.servers", addr).unwrap();
    let admin = gregor::admin::AdminClient::new(&cfg).unwrap();
    let t = gregor::admin::NewTopic::new(topic, PARTITIONS, 1);
    let r = admin
        .create_topics(
            &[t],
            &gregor::admin::AdminOptions::with_timeout(Duration::from_secs(30)),
        )
        .unwrap();
    assert!(r.iter().all(|r| r.result.is_ok()), "{r:?}");
}

/// The broker goes away twice for 4 s while an idempotent producer sends
/// 200,000 messages through the proxy: a real restart of a private broker
/// with file storage when the installed nisshi has one, else the proxy
/// dropping every connection and refusing new ones meanwhile.
#[test]
fn idempotent_producer_across_broker_restarts_loses_nothing_duplicates_nothing() {
    if !common::broker_up() {
        return;
    }
    let n = 200_000u64;
    let private = PrivateBroker::start();
    let upstream = private
        .as_ref()
        .map_or_else(common::broker, |b| b.addr.clone());
    let topic = common::unique_topic("faults-restart");
    match &private {
        Some(b) => create_topic_at(&b.addr, &topic),
        None => common::create_topic(&topic, PARTITIONS),
    }
    let px = proxy::start_faulty(&upstream);
    let cfg = through(
        &px,
        &[
            ("enable.idempotence", "true"),
            ("acks", "all"),
            ("linger.ms", "5"),
            ("request.timeout.ms", "3000"),
            ("retry.backoff.ms", "50"),
        ],
    );
    let private = Mutex::new(private);
    let outages = AtomicU64::new(0);
    let away = Duration::from_secs(4);
    // The outages run on their own thread while the producer keeps sending.
    let started = AtomicU64::new(0);
    let (sent, took) = thread::scope(|sc| {
        produce(&cfg, &topic, n, |i| {
            let k = started.load(Ordering::SeqCst);
            // The second outage may be due before the first is over (a
            // restart takes seconds while sends only queue): the lock on
            // `private` runs them one after the other.
            if k < 2 && i >= (k + 1) * n / 3 {
                started.fetch_add(1, Ordering::SeqCst);
                let (private, px, outages) = (&private, &px, &outages);
                sc.spawn(move || {
                    let t = Instant::now();
                    match &mut *private.lock().unwrap() {
                        Some(b) => b.restart(away),
                        None => {
                            px.faults.set_refuse(true);
                            thread::sleep(away);
                            px.faults.set_refuse(false);
                        }
                    }
                    outages.fetch_add(1, Ordering::SeqCst);
                    eprintln!("broker away for {:.1?} from message {i}", t.elapsed());
                });
            }
        })
    });
    let faults: FaultCounts = px.faults.counts();
    let how = if private.lock().unwrap().is_some() {
        "restarts"
    } else {
        "outages (proxy refusing)"
    };
    eprintln!(
        "producer: {n} messages in {took:.1?} ({}) across {} broker {how}, {faults:?}; ok {} failed {}",
        rate(n, took),
        outages.load(Ordering::SeqCst),
        sent.ok,
        sent.failed
    );
    assert_eq!(outages.load(Ordering::SeqCst), 2);
    assert_eq!(sent.failed, 0, "first failure: {:?}", sent.first_error);
    assert_eq!(sent.ok, n);
    let mut direct = common::config(&[]);
    direct.set("bootstrap.servers", &upstream).unwrap();
    let (t, read_took) = read_back(&direct, &direct, &topic, n, Duration::from_secs(300), 0);
    eprintln!("read back directly in {read_took:.1?}: {t:?}");
    assert_eq!(t.read, n, "{t:?}");
    assert_eq!(
        (
            t.lost,
            t.duplicates,
            t.out_of_order_partition,
            t.out_of_order_key
        ),
        (0, 0, 0, 0),
        "{t:?}"
    );
}

fn within(what: &str, limit: Duration, f: impl FnOnce()) {
    let t = Instant::now();
    f();
    let took = t.elapsed();
    eprintln!("{what}: {took:.2?} (limit {limit:?})");
    assert!(took <= limit, "{what} took {took:?}, limit {limit:?}");
}

/// With the broker hanging (the proxy accepts and forwards nothing), every
/// flush/close/free returns within its timeout, in Rust and through the C ABI.
#[test]
fn every_close_returns_within_its_timeout_with_the_broker_blackholed() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("faults-close");
    common::create_topic(&topic, 2);
    let px = proxy::start_faulty(&common::broker());
    let cfg = through(&px, &[]);

    let p = Producer::new(&through(&px, &[("linger.ms", "5")])).unwrap();
    p.send_sync(
        &ProducerRecord::new(&topic, b"before"),
        Some(Duration::from_secs(30)),
    )
    .unwrap();
    let c = Consumer::new(&cfg).unwrap();
    c.assign(&[TopicPartitionOffset::new(&topic, 0, offset::BEGINNING)])
        .unwrap();
    let admin = gregor::admin::AdminClient::new(&cfg).unwrap();
    admin
        .describe_cluster(
            false,
            &gregor::admin::AdminOptions::with_timeout(Duration::from_secs(30)),
        )
        .unwrap();

    px.faults.set_blackhole(true);
    for i in 0..100 {
        p.send(&ProducerRecord::new(&topic, b"stuck"), i).unwrap();
    }
    let _ = c.poll(Duration::from_millis(100));
    within(
        "producer flush(500 ms)",
        Duration::from_millis(1500),
        || {
            assert_eq!(
                p.flush(Duration::from_millis(500)).unwrap_err().code(),
                local::TIMED_OUT
            )
        },
    );
    within(
        "producer close(500 ms)",
        Duration::from_millis(2000),
        || p.close(Duration::from_millis(500)),
    );
    within("producer drop", Duration::from_millis(2000), || drop(p));
    within("consumer close", Duration::from_millis(2000), || c.close());
    within("consumer drop", Duration::from_millis(2000), || drop(c));
    within(
        "admin describe_cluster(1 s) fails",
        Duration::from_millis(2500),
        || {
            assert!(admin
                .describe_cluster(
                    false,
                    &gregor::admin::AdminOptions::with_timeout(Duration::from_secs(1))
                )
                .is_err())
        },
    );
    within("admin close", Duration::from_millis(2000), || admin.close());
    within("admin drop", Duration::from_millis(2000), || drop(admin));

    // The same through the C ABI, on a second proxy that goes dark.
    let px = proxy::start_faulty(&common::broker());
    c_abi_frees_return_in_time(&px, &topic);
}

#[allow(unsafe_code)]
fn c_abi_frees_return_in_time(px: &Proxy, topic: &str) {
    use gregor::ffi::*;
    use std::ffi::CString;
    let mut err = [0 as std::ffi::c_char; 256];
    let conf = gregor_config_new();
    let addr = CString::new(px.addr.clone()).unwrap();
    let set = |k: &std::ffi::CStr, v: &std::ffi::CStr, err: &mut [std::ffi::c_char]| {
        assert_eq!(
            gregor_config_set(conf, k.as_ptr(), v.as_ptr(), err.as_mut_ptr(), err.len()),
            0
        );
    };
    set(c"bootstrap.servers", &addr, &mut err);
    let t = CString::new(topic).unwrap();
    let pconf = gregor_config_new();
    assert_eq!(
        gregor_config_set(
            pconf,
            c"bootstrap.servers".as_ptr(),
            addr.as_ptr(),
            err.as_mut_ptr(),
            err.len()
        ),
        0
    );
    assert_eq!(
        gregor_config_set(
            pconf,
            c"linger.ms".as_ptr(),
            c"5".as_ptr(),
            err.as_mut_ptr(),
            err.len()
        ),
        0
    );
    let p = gregor_producer_new(pconf, err.as_mut_ptr(), err.len());
    assert!(!p.is_null());
    let (mut part, mut off) = (0i32, 0i64);
    let v = b"c-before";
    assert_eq!(
        gregor_producer_send_sync(
            p,
            t.as_ptr(),
            0,
            std::ptr::null(),
            0,
            v.as_ptr(),
            v.len(),
            std::ptr::null(),
            0,
            30_000,
            &mut part,
            &mut off,
            err.as_mut_ptr(),
            err.len()
        ),
        0
    );
    let c = gregor_consumer_new(conf, err.as_mut_ptr(), err.len());
    assert!(!c.is_null());
    let tpl = gregor_tpl_new();
    gregor_tpl_add(tpl, t.as_ptr(), 0, offset::BEGINNING);
    assert_eq!(
        gregor_consumer_assign(c, tpl, err.as_mut_ptr(), err.len()),
        0
    );
    gregor_tpl_free(tpl);
    let m = gregor_consumer_poll(c, 10_000);
    gregor_message_free(m);
    let a = gregor_admin_new(conf, err.as_mut_ptr(), err.len());
    assert!(!a.is_null());
    gregor_config_free(conf);

    px.faults.set_blackhole(true);
    for _ in 0..50 {
        let v = b"c-stuck";
        assert_eq!(
            gregor_producer_send(
                p,
                t.as_ptr(),
                0,
                std::ptr::null(),
                0,
                v.as_ptr(),
                v.len(),
                std::ptr::null(),
                0,
                std::ptr::null_mut(),
                0,
                err.as_mut_ptr(),
                err.len()
            ),
            0
        );
    }
    within(
        "gregor_producer_flush(500)",
        Duration::from_millis(1500),
        || assert_eq!(gregor_producer_flush(p, 500), local::TIMED_OUT),
    );
    within(
        "gregor_producer_close(500)",
        Duration::from_millis(2000),
        || gregor_producer_close(p, 500),
    );
    within("gregor_producer_free", Duration::from_millis(2000), || {
        gregor_producer_free(p)
    });
    // Freed with messages outstanding and no close first: free closes with
    // no wait, failing them.
    let p2 = gregor_producer_new(pconf, err.as_mut_ptr(), err.len());
    assert!(!p2.is_null());
    gregor_config_free(pconf);
    for _ in 0..50 {
        let v = b"c-stuck-2";
        assert_eq!(
            gregor_producer_send(
                p2,
                t.as_ptr(),
                0,
                std::ptr::null(),
                0,
                v.as_ptr(),
                v.len(),
                std::ptr::null(),
                0,
                std::ptr::null_mut(),
                0,
                err.as_mut_ptr(),
                err.len()
            ),
            0
        );
    }
    within(
        "gregor_producer_free without close",
        Duration::from_millis(2000),
        || gregor_producer_free(p2),
    );
    within("gregor_consumer_close", Duration::from_millis(2000), || {
        gregor_consumer_close(c);
    });
    within("gregor_consumer_free", Duration::from_millis(2000), || {
        gregor_consumer_free(c)
    });
    within("gregor_admin_free", Duration::from_millis(2000), || {
        gregor_admin_free(a)
    });
}

/// One group member's view: the rebalances it went through and, per
/// partition, the last offset it returned within its current assignment.
#[derive(Default)]
struct MemberLog {
    assigned: u64,
    revoked: u64,
    lost: u64,
    last: HashMap<i32, i64>,
    /// Offsets not above the previous one of their partition within one assignment.
    offset_repeats: u64,
    errors: u64,
    first_error: Option<String>,
    read: u64,
    /// Automatic commits that failed (their offsets may be read again).
    commits_failed: u64,
    first_commit_error: Option<String>,
    /// The member's number and the test's start, for [`Story`] lines.
    name: usize,
    start: Option<Instant>,
    /// Per partition, the last offset an automatic commit reported done
    /// (the next offset to read) and when.
    committed: HashMap<i32, (i64, u128)>,
}

/// What a failure needs to say where duplicates came from: each
/// rebalance, and each assignment that started a partition below what some
/// member had read already, with the commits the members saw succeed.
#[derive(Default)]
struct Story {
    /// Per partition, the highest offset any member returned.
    high_read: HashMap<i32, (i64, usize)>,
    lines: Vec<String>,
}

fn group_member(
    px: &Proxy,
    group: &str,
    topic: &str,
    name: usize,
    start: Instant,
    story: &Arc<Mutex<Story>>,
) -> (Consumer, Arc<Mutex<MemberLog>>) {
    let cfg = through(
        px,
        &[
            ("group.id", group),
            ("auto.offset.reset", "earliest"),
            ("enable.auto.commit", "true"),
            ("auto.commit.interval.ms", "500"),
            ("session.timeout.ms", "10000"),
            // also the rebalance timeout: how long the coordinator waits for
            // a member whose JoinGroup or LeaveGroup the faults swallowed
            ("max.poll.interval.ms", "20000"),
            ("heartbeat.interval.ms", "500"),
            ("fetch.wait.max.ms", "100"),
            // small fetches, so many requests meet the faults
            ("fetch.max.bytes", "65536"),
            ("max.partition.fetch.bytes", "16384"),
            ("socket.timeout.ms", "3000"),
            ("topic.metadata.refresh.interval.ms", "2000"),
            // a short prefetch queue, so the faults meet the consumption
            ("queued.max.messages.kbytes", "256"),
        ],
    );
    let mut cfg = cfg;
    // the commits each member sends and their answers, for the story
    cfg.set("debug", "cgrp").unwrap();
    let story0 = story.clone();
    cfg.set_log_callback(Some(gregor::log::LogCallback::new(
        move |_, fac, _, line| {
            if fac == "COMMIT" {
                story0.lock().unwrap().lines.push(format!(
                    "{} ms: member {name}: {line}",
                    start.elapsed().as_millis()
                ));
            }
        },
    )));
    let c = Consumer::new(&cfg).unwrap();
    let log = Arc::new(Mutex::new(MemberLog {
        name,
        start: Some(start),
        ..MemberLog::default()
    }));
    let l2 = log.clone();
    let story2 = story.clone();
    c.set_rebalance_callback(move |_, ev| {
        let mut l = l2.lock().unwrap();
        let what = match &ev {
            RebalanceEvent::Assigned(_) => {
                l.assigned += 1;
                "assigned"
            }
            RebalanceEvent::Revoked(_) => {
                l.revoked += 1;
                "revoked"
            }
            RebalanceEvent::Lost(_) => {
                l.lost += 1;
                "lost"
            }
        };
        story2.lock().unwrap().lines.push(format!(
            "{} ms: member {name} {what} {:?}",
            start.elapsed().as_millis(),
            ev.partitions()
                .iter()
                .map(|t| t.partition)
                .collect::<Vec<_>>()
        ));
        // a new assignment starts from the committed offsets: earlier
        // offsets may come again, from here on they must increase
        for t in ev.partitions() {
            l.last.remove(&t.partition);
        }
    });
    let l3 = log.clone();
    c.set_commit_callback(move |_, r, offsets| {
        let mut l = l3.lock().unwrap();
        match r {
            Err(e) => {
                l.commits_failed += 1;
                l.first_commit_error.get_or_insert_with(|| e.to_string());
            }
            Ok(()) => {
                let at = start.elapsed().as_millis();
                for t in offsets {
                    l.committed.insert(t.partition, (t.offset, at));
                }
            }
        }
    });
    c.subscribe(&[topic]).unwrap();
    (c, log)
}

/// Polls `c` for up to `d` or `max` messages, marking sequences seen
/// (`seen[seq]` counts).
fn poll_member(
    c: &Consumer,
    log: &Mutex<MemberLog>,
    story: &Mutex<Story>,
    seen: &mut [u32],
    d: Duration,
    max: u64,
) {
    let until = Instant::now() + d;
    let mut got = 0;
    while Instant::now() < until && got < max {
        let Some(m) = c.poll(Duration::from_millis(50)).unwrap() else {
            continue;
        };
        let mut l = log.lock().unwrap();
        if let Some(e) = &m.error {
            l.errors += 1;
            l.first_error.get_or_insert_with(|| e.to_string());
            continue;
        }
        l.read += 1;
        got += 1;
        if l.last.get(&m.partition).is_some_and(|&o| m.offset <= o) {
            l.offset_repeats += 1;
        }
        let mut st = story.lock().unwrap();
        let (high, by) = st.high_read.get(&m.partition).copied().unwrap_or((-1, 0));
        if !l.last.contains_key(&m.partition) && m.offset <= high {
            let commit = l.committed.get(&m.partition);
            st.lines.push(format!(
                "{} ms: member {} starts partition {} at {}, {} below the {} member {by} \
                 read (its last commit seen done: {commit:?})",
                l.start.map_or(0, |s| s.elapsed().as_millis()),
                l.name,
                m.partition,
                m.offset,
                high + 1 - m.offset,
                high
            ));
        }
        if m.offset > high {
            st.high_read.insert(m.partition, (m.offset, l.name));
        }
        drop(st);
        l.last.insert(m.partition, m.offset);
        let v = m.value.as_deref().unwrap();
        let seq = u64::from_be_bytes(v[..8].try_into().unwrap());
        assert!((seq as usize) < seen.len(), "sequence {seq} out of range");
        seen[seq as usize] += 1;
    }
}

/// Two members of one group consume a topic through the faults (fetch and
/// coordinator connections alike); midway one closes and a third joins, a
/// rebalance under faults. Nothing is lost, duplicates come only from
/// offsets not yet committed at a rebalance or fault (bounded loosely), each
/// member's offsets increase within an assignment, and in the end the
/// group's committed offsets, read directly from the broker, are the high
/// watermarks.
#[test]
fn consumer_group_through_faults_loses_nothing() {
    if !common::broker_up() {
        return;
    }
    let n = 100_000u64;
    let topic = common::unique_topic("faults-group");
    let group = common::unique_topic("faults-group-g");
    common::create_topic(&topic, PARTITIONS);
    let direct = common::config(&[("linger.ms", "5")]);
    let (sent, took) = produce(&direct, &topic, n, |_| {});
    assert_eq!((sent.ok, sent.failed), (n, 0));
    eprintln!("produced {n} directly in {took:.1?}");
    let check = Consumer::new(&common::config(&[("group.id", group.as_str())])).unwrap();
    let highs: Vec<i64> = (0..PARTITIONS)
        .map(|p| {
            check
                .watermarks(&topic, p, Duration::from_secs(30))
                .unwrap()
                .1
        })
        .collect();
    assert_eq!(highs.iter().sum::<i64>(), n as i64);

    let px = proxy::start_faulty(&common::broker());
    let chaos = px.faults.chaos(
        seed() + 2,
        Duration::from_millis(300),
        Duration::from_millis(3000),
    );
    let start = Instant::now();
    let limit = Duration::from_secs(90);
    let mut seen = vec![0u32; n as usize];
    let mut unseen = n as usize;
    let count_unseen = |seen: &[u32]| seen.iter().filter(|s| **s == 0).count();
    let asked: Vec<TopicPartitionOffset> = (0..PARTITIONS)
        .map(|p| TopicPartitionOffset::new(&topic, p, offset::INVALID))
        .collect();
    let committed_now = || -> Vec<i64> {
        check
            .committed(&asked, Duration::from_secs(10))
            .map(|v| v.iter().map(|t| t.offset).collect())
            .unwrap_or_default()
    };
    let story = Arc::new(Mutex::new(Story::default()));
    let (a, la) = group_member(&px, &group, &topic, 1, start, &story);
    let (b, lb) = group_member(&px, &group, &topic, 2, start, &story);
    let mut members = vec![(a, la), (b, lb)];
    let mut closed: Vec<Arc<Mutex<MemberLog>>> = Vec::new();
    let mut switched_at = None;
    while unseen > 0 {
        if start.elapsed() >= limit {
            let state: Vec<String> = members
                .iter()
                .map(|(c, l)| {
                    let l = l.lock().unwrap();
                    format!(
                        "member {}: assignment {:?}, read {} assigned {} revoked {} lost {} \
                         errors {} (first {:?}), commits failed {} (first {:?})",
                        c.member_id(),
                        c.assignment()
                            .iter()
                            .map(|t| t.partition)
                            .collect::<Vec<_>>(),
                        l.read,
                        l.assigned,
                        l.revoked,
                        l.lost,
                        l.errors,
                        l.first_error,
                        l.commits_failed,
                        l.first_commit_error
                    )
                })
                .collect();
            panic!(
                "{unseen} of {n} sequences unseen after {limit:?}, faults {:?}: {state:#?}",
                px.faults.counts()
            );
        }
        // paced (about 10,000 messages/s), so the faults and the member
        // switch meet the consumption rather than follow it
        for (c, l) in &members {
            poll_member(c, l, &story, &mut seen, Duration::from_millis(100), 100);
        }
        thread::sleep(Duration::from_millis(10));
        unseen = count_unseen(&seen);
        if switched_at.is_none() && unseen <= n as usize / 2 {
            // midway: the first member leaves, a third joins
            let (c, l) = members.remove(0);
            let positions: Vec<(i32, i64)> = c
                .position(&c.assignment())
                .iter()
                .map(|t| (t.partition, t.offset))
                .collect();
            let t = Instant::now();
            c.close();
            let committed_after = committed_now();
            eprintln!(
                "member 1 closed at {} seen in {:.1?}",
                n as usize - unseen,
                t.elapsed()
            );
            story.lock().unwrap().lines.push(format!(
                "{} ms: member 1 closed (in {:.1?}) at positions {positions:?}; its last \
                 commits seen done {:?}; the group's committed offsets just after: \
                 {committed_after:?}",
                start.elapsed().as_millis(),
                t.elapsed(),
                l.lock().unwrap().committed
            ));
            closed.push(l);
            members.push(group_member(&px, &group, &topic, 3, start, &story));
            switched_at = Some(n as usize - unseen);
        }
    }
    let consumed_in = start.elapsed();
    // Everything seen: the auto commit catches up, still under faults.
    let until = Instant::now() + Duration::from_secs(30);
    while committed_now() != highs && Instant::now() < until {
        for (c, l) in &members {
            poll_member(
                c,
                l,
                &story,
                &mut seen,
                Duration::from_millis(250),
                u64::MAX,
            );
        }
    }
    let faults = chaos.stop();
    let committed_faulted = committed_now();
    // A commit the proxy held back can reach the broker after a newer one
    // of the same generation (Kafka orders commits only per connection, and
    // a timed-out request's connection is replaced), so an offset may go
    // back after the client saw a later commit succeed; the client cannot
    // know. With the faults stopped, each member commits its positions, as
    // an application does on shutdown; what must hold is that those
    // positions are the high watermarks and that the commits reach the
    // broker.
    let mut final_commits = 0;
    if committed_faulted != highs {
        let until = Instant::now() + Duration::from_secs(20);
        while committed_now() != highs && Instant::now() < until {
            for (c, l) in &members {
                poll_member(
                    c,
                    l,
                    &story,
                    &mut seen,
                    Duration::from_millis(100),
                    u64::MAX,
                );
                let at: Vec<TopicPartitionOffset> = c
                    .position(&c.assignment())
                    .into_iter()
                    .filter(|t| t.offset >= 0)
                    .collect();
                if !at.is_empty() && c.commit(Some(&at), Duration::from_secs(5)).is_ok() {
                    final_commits += 1;
                }
            }
        }
    }
    for (c, l) in members {
        c.close();
        closed.push(l);
    }
    let committed = committed_now();
    let took = start.elapsed();

    let total_read: u64 = seen.iter().map(|s| *s as u64).sum();
    let duplicates = total_read - (n - count_unseen(&seen) as u64);
    let logs: Vec<_> = closed.iter().map(|l| l.lock().unwrap()).collect();
    let rebalances: u64 = logs.iter().map(|l| l.assigned).sum();
    let per_member: Vec<String> = logs
        .iter()
        .map(|l| {
            format!(
                "read {} assigned {} revoked {} lost {} offset repeats {}; \
                 {} error events (first {:?}); {} auto commits failed (first {:?})",
                l.read,
                l.assigned,
                l.revoked,
                l.lost,
                l.offset_repeats,
                l.errors,
                l.first_error,
                l.commits_failed,
                l.first_commit_error
            )
        })
        .collect();
    eprintln!(
        "group: {n} messages, {total_read} returned, {duplicates} duplicates, \
         all seen in {consumed_in:.1?} ({took:.1?} with the final commits); \
         member switch at {switched_at:?}; {rebalances} assignments; \
         through {faults:?}, {} connections; members: {per_member:#?}",
        px.connections.load(Ordering::SeqCst)
    );
    eprintln!(
        "high watermarks {highs:?}, committed under faults {committed_faulted:?}, \
         after close {committed:?} ({final_commits} explicit commits after the faults)"
    );
    assert_eq!(count_unseen(&seen), 0, "lost messages");
    assert!(
        faults.drops + faults.truncations > 3,
        "faults fired: {faults:?}"
    );
    assert!(rebalances >= 3, "assignments: {per_member:?}");
    let story = std::mem::take(&mut story.lock().unwrap().lines);
    eprintln!("story: {story:#?}");
    assert!(
        duplicates <= n / 10,
        "{duplicates} duplicates of {n}: {story:#?}"
    );
    for l in &logs {
        assert_eq!(l.offset_repeats, 0, "{per_member:?}");
    }
    assert_eq!(committed, highs, "committed offsets vs high watermarks");
}
