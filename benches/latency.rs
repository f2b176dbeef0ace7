//! Produce latency under a trickle, gregor side by side with librdkafka on
//! the same broker in the same run: one 100-byte message every 20 ms to one
//! partition, acks=all, idempotence off, at `linger.ms` 0 and 5; p50, p99 and
//! max from just before the send call to the message's delivery report.
//!
//!     cargo bench --bench latency          # broker: $GREGOR_TEST_BROKER or 127.0.0.1:9092
//!     GREGOR_BENCH_MESSAGES=1000 GREGOR_BENCH_ROUNDS=3 cargo bench --bench latency
//!     GREGOR_TEST_BROKER=... GREGOR_BENCH_TOPIC=t cargo bench --bench latency   # an existing topic
//!
//! Both clients run the same loop: send, then wait for delivery reports
//! (gregor: `Producer::poll`; librdkafka: `rd_kafka_poll`) until the next
//! send is due. One warm-up message (connection, metadata) is delivered
//! first and not counted. librdkafka's side is benches/latency_librdkafka.c,
//! built against the librdkafka scripts/setup.sh installs, run as its own
//! process; gregor's runs in this process. The two alternate, in a different
//! order each round, `GREGOR_BENCH_ROUNDS` times (default 1); percentiles are
//! over all of a client's messages. The CPU column is the client's process
//! time (user + system, `getrusage`: gregor's the bench process's own while
//! its side runs, librdkafka's its harness process's) per message, start-up,
//! warm-up and shutdown included.
//!
//! Last it measures the machine itself: how late a 5 ms timed wait wakes,
//! the same number of times, one every 20 ms. On a virtual machine that
//! tail (milliseconds about once in a hundred, coming and going with the
//! host's load) is most of the `linger.ms` 5 rows' p99 for both clients.
//!
//! A benchmark, not a test: it prints figures and asserts only that every
//! message was delivered.

use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use gregor::cluster::{Cluster, Purpose};
use gregor::config::Config;
use gregor::message::ProducerRecord;
use gregor::producer::Producer;

const INTERVAL_MS: u64 = 20;

/// CPU seconds (user + system) used so far by this process (`RUSAGE_SELF`)
/// or by its waited-for children (`RUSAGE_CHILDREN`).
fn cpu_seconds(who: libc::c_int) -> f64 {
    // SAFETY: rusage is plain data; getrusage fills it.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::getrusage(who, &mut ru) };
    assert_eq!(r, 0, "getrusage");
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

fn broker() -> String {
    std::env::var("GREGOR_TEST_BROKER").unwrap_or_else(|_| "127.0.0.1:9092".to_string())
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Where scripts/setup.sh installs librdkafka 2.12.1 (bin, include, lib).
fn librdkafka_dir() -> String {
    std::env::var("GREGOR_LIBRDKAFKA").unwrap_or_else(|_| {
        let home = std::env::var("HOME").unwrap_or_default();
        format!("{home}/.local/share/gregor-deps/librdkafka")
    })
}

/// Builds benches/latency_librdkafka.c against librdkafka, once per run.
fn build_c_harness() -> String {
    let dir = librdkafka_dir();
    let out = format!("{}/target/latency_librdkafka", env!("CARGO_MANIFEST_DIR"));
    let src = format!(
        "{}/benches/latency_librdkafka.c",
        env!("CARGO_MANIFEST_DIR")
    );
    let st = Command::new("cc")
        .args(["-O2", "-o", &out, &src])
        .arg(format!("-I{dir}/include"))
        .arg(format!("-L{dir}/lib"))
        .arg("-lrdkafka")
        .arg(format!("-Wl,-rpath,{dir}/lib"))
        .status()
        .expect("cc runs");
    assert!(st.success(), "building {src} against {dir} failed");
    out
}

fn create_topic(topic: &str) {
    use gregor::protocol::create_topics::{CreatableTopic, CreateTopicsRequest};
    let cfg = Config::from_pairs([("bootstrap.servers", broker().as_str())]).unwrap();
    let cluster = Cluster::new(&cfg).unwrap();
    let conn = cluster
        .any_conn(Purpose::Metadata, Duration::from_secs(10))
        .unwrap();
    let mut t = CreatableTopic::default();
    t.name = topic.to_string();
    t.num_partitions = 1;
    t.replication_factor = 1;
    let mut req = CreateTopicsRequest::default();
    req.topics = vec![t];
    req.timeout_ms = 10_000;
    let resp = conn.call(&req, Some(Duration::from_secs(15))).unwrap();
    assert_eq!(resp.topics[0].error_code, 0, "{:?}", resp.topics[0]);
    for _ in 0..100 {
        cluster.invalidate(topic);
        if let Ok(t) = cluster.topic(topic, false, Duration::from_secs(5)) {
            if t.partitions.iter().all(|p| p.leader >= 0) {
                return;
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// gregor's latencies in µs, one per message.
fn gregor(topic: &str, count: usize, linger: u64) -> Vec<f64> {
    let cfg = Config::from_pairs([
        ("bootstrap.servers", broker().as_str()),
        ("acks", "all"),
        ("enable.idempotence", "false"),
        ("linger.ms", &linger.to_string()),
    ])
    .unwrap();
    let p = Producer::new(&cfg).unwrap();
    let sent: Arc<Mutex<Vec<Option<Instant>>>> = Arc::new(Mutex::new(vec![None; count]));
    let lat: Arc<Mutex<Vec<f64>>> = Arc::new(Mutex::new(Vec::with_capacity(count)));
    let failed = Arc::new(Mutex::new(0usize));
    {
        let (sent, lat, failed) = (sent.clone(), lat.clone(), failed.clone());
        p.set_delivery_callback(Some(Box::new(move |dr| {
            let t = Instant::now();
            if dr.error.is_some() {
                *failed.lock().unwrap() += 1;
            } else if dr.opaque < count {
                if let Some(at) = sent.lock().unwrap()[dr.opaque] {
                    lat.lock().unwrap().push((t - at).as_secs_f64() * 1e6);
                }
            }
        })));
    }
    let payload = [0u8; 100];
    let rec = ProducerRecord {
        topic,
        partition: Some(0),
        key: None,
        value: Some(&payload),
        headers: &[],
        timestamp: None,
    };
    // warm-up, not counted
    p.send(&rec, usize::MAX).unwrap();
    p.flush(Duration::from_secs(30)).unwrap();
    let mut next = Instant::now();
    for i in 0..count {
        loop {
            let now = Instant::now();
            if now >= next {
                break;
            }
            p.poll(next - now);
        }
        sent.lock().unwrap()[i] = Some(Instant::now());
        p.send(&rec, i).unwrap();
        next += Duration::from_millis(INTERVAL_MS);
    }
    p.flush(Duration::from_secs(30)).unwrap();
    assert_eq!(*failed.lock().unwrap(), 0, "gregor: failed deliveries");
    let v = lat.lock().unwrap().clone();
    assert_eq!(v.len(), count, "gregor: every message reported");
    v
}

/// librdkafka's latencies in µs, one per message.
fn librdkafka(harness: &str, topic: &str, count: usize, linger: u64) -> Vec<f64> {
    let out = Command::new(harness)
        .args([
            broker(),
            topic.to_string(),
            count.to_string(),
            INTERVAL_MS.to_string(),
            linger.to_string(),
        ])
        .output()
        .expect("harness runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "librdkafka harness: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Vec<f64> = text.lines().filter_map(|l| l.parse().ok()).collect();
    assert_eq!(v.len(), count, "librdkafka: every message reported");
    v
}

/// How late this machine wakes a thread from a 5 ms timed wait (a
/// `Condvar::wait_timeout`, as gregor's sender waits out `linger.ms`;
/// librdkafka's broker thread waits in `poll` the same way), in µs, one per
/// wait, `count` waits one interval apart: the part of the `linger.ms` 5
/// rows that belongs to neither client.
fn timer_probe(count: usize) -> Vec<f64> {
    let m = Mutex::new(());
    let cv = std::sync::Condvar::new();
    let mut late = Vec::with_capacity(count);
    let mut next = Instant::now();
    for _ in 0..count {
        next += Duration::from_millis(INTERVAL_MS);
        let due = Instant::now() + Duration::from_millis(5);
        let mut g = m.lock().unwrap();
        while Instant::now() < due {
            g = cv.wait_timeout(g, due - Instant::now()).unwrap().0;
        }
        drop(g);
        late.push((Instant::now() - due).as_secs_f64() * 1e6);
        std::thread::sleep(next.saturating_duration_since(Instant::now()));
    }
    late.sort_by(|a, b| a.partial_cmp(b).unwrap());
    late
}

/// The `q` quantile (nearest rank) of sorted `v`.
fn quantile(v: &[f64], q: f64) -> f64 {
    let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
    v[rank - 1]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--list") {
        return; // `cargo test --benches` asks for the list of benchmarks
    }
    let count = env_usize("GREGOR_BENCH_MESSAGES", 500);
    let rounds = env_usize("GREGOR_BENCH_ROUNDS", 1);
    let harness = build_c_harness();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    // GREGOR_BENCH_TOPIC: an existing one-partition topic (for a broker
    // without CreateTopics, such as tests/mock_cluster's)
    let topic = std::env::var("GREGOR_BENCH_TOPIC").unwrap_or_else(|_| {
        let t = format!("gregor-bench-latency-{nanos}");
        create_topic(&t);
        t
    });
    println!(
        "produce latency: one 100-byte message every {INTERVAL_MS} ms to {topic} [0], acks=all, \
         {count} messages × {rounds} round(s) per row, broker {}",
        broker()
    );
    println!(
        "| {:<10} | {:>9} | {:>9} | {:>9} | {:>9} | {:>11} |",
        "client", "linger.ms", "p50 ms", "p99 ms", "max ms", "CPU µs/msg"
    );
    println!(
        "|{:-<12}|{:->11}|{:->11}|{:->11}|{:->11}|{:->13}|",
        "", "", "", "", "", ""
    );
    for linger in [0u64, 5] {
        let mut g = Vec::new();
        let mut l = Vec::new();
        let (mut g_cpu, mut l_cpu) = (0.0, 0.0);
        let mut run_gregor = |g: &mut Vec<f64>| {
            let t = cpu_seconds(libc::RUSAGE_SELF);
            g.extend(gregor(&topic, count, linger));
            g_cpu += cpu_seconds(libc::RUSAGE_SELF) - t;
        };
        let mut run_librdkafka = |l: &mut Vec<f64>| {
            let t = cpu_seconds(libc::RUSAGE_CHILDREN);
            l.extend(librdkafka(&harness, &topic, count, linger));
            l_cpu += cpu_seconds(libc::RUSAGE_CHILDREN) - t;
        };
        for round in 0..rounds {
            if round % 2 == 0 {
                run_gregor(&mut g);
                run_librdkafka(&mut l);
            } else {
                run_librdkafka(&mut l);
                run_gregor(&mut g);
            }
        }
        for (name, v, cpu) in [("gregor", &mut g, g_cpu), ("librdkafka", &mut l, l_cpu)] {
            v.sort_by(|a, b| a.partial_cmp(b).unwrap());
            println!(
                "| {:<10} | {:>9} | {:>9.2} | {:>9.2} | {:>9.2} | {:>11.1} |",
                name,
                linger,
                quantile(v, 0.50) / 1e3,
                quantile(v, 0.99) / 1e3,
                v[v.len() - 1] / 1e3,
                cpu * 1e6 / v.len() as f64
            );
        }
    }
    let late = timer_probe(count * rounds);
    println!(
        "this machine: a 5 ms timed wait (one every {INTERVAL_MS} ms, {} waits) woke late by \
         p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        late.len(),
        quantile(&late, 0.50) / 1e3,
        quantile(&late, 0.99) / 1e3,
        late[late.len() - 1] / 1e3
    );
}
