//! Consumer throughput, gregor side by side with librdkafka on the same
//! broker in the same run: read 1,000,000 × 100-byte messages from a
//! 6-partition topic, uncompressed and lz4.
//!
//!     cargo bench --bench consumer            # broker: $GREGOR_TEST_BROKER or 127.0.0.1:9092
//!     GREGOR_BENCH_ROUNDS=5 cargo bench --bench consumer
//!
//! The topics are filled once with librdkafka's `rdkafka_performance -P`
//! and reused while they hold exactly the 1,000,000 messages. Each client
//! runs as its own process, alternating, `GREGOR_BENCH_ROUNDS` times
//! (default 3); the table shows medians:
//! - librdkafka: `rdkafka_performance -C -p 0 … -p 5 -o beginning -c 1000000`
//!   with its own settings (it raises queued.min.messages to 1,000,000);
//! - gregor: `Consumer::poll` with default settings (librdkafka's defaults:
//!   fetch.wait.max.ms 500, fetch.max.bytes 50 MB, max.partition.fetch.bytes
//!   1 MB, 64 MB of prefetch), and the same through the C ABI
//!   (`gregor_consumer_poll` + `gregor_message_free` per message).
//!
//! Two librdkafka rows: rdkafka_performance, as the issue names it (its
//! batch-callback mode, its own tuning and its own clock), and a C program
//! (benches/consumer_librdkafka.c, built against the same librdkafka) that
//! runs exactly gregor's loop with librdkafka's defaults: one
//! `rd_kafka_consume_queue` per message, the message freed at once.
//!
//! msgs/s and MB/s (of values) count from the first message to the last,
//! as rdkafka_performance does (so its prefetching before the first message
//! is not counted); "end-to-end" divides by the process's whole life, start
//! to exit; CPU is the process's user + system time from start to exit
//! (getrusage of the child); RSS is its peak.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use gregor::config::Config;
use gregor::consumer::{Consumer, TopicPartitionOffset};
use gregor::message::offset;

/// Log lines a child's log callback got (GREGOR_BENCH_LOGGER set: a
/// callback configured, `debug` off, so logging's cost shows in the figures).
static LOGGED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

const MESSAGES: usize = 1_000_000;
const SIZE: usize = 100;
const PARTITIONS: i32 = 6;

fn broker() -> String {
    std::env::var("GREGOR_TEST_BROKER").unwrap_or_else(|_| "127.0.0.1:9092".to_string())
}

/// Where scripts/setup.sh installs librdkafka 2.12.1 (bin, include, lib).
fn librdkafka_dir() -> String {
    std::env::var("GREGOR_LIBRDKAFKA").unwrap_or_else(|_| {
        let home = std::env::var("HOME").unwrap_or_default();
        format!("{home}/.local/share/gregor-deps/librdkafka")
    })
}

fn rdkafka_performance() -> String {
    format!("{}/bin/rdkafka_performance", librdkafka_dir())
}

/// Builds benches/consumer_librdkafka.c against librdkafka, once per run.
fn build_c_harness() -> String {
    let dir = librdkafka_dir();
    let out = format!("{}/target/consumer_librdkafka", env!("CARGO_MANIFEST_DIR"));
    let src = format!(
        "{}/benches/consumer_librdkafka.c",
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

/// What one run measured.
#[derive(Debug, Clone, Copy, Default)]
struct Run {
    /// First to last message.
    consume: f64,
    /// Process start to exit.
    wall: f64,
    /// User + system CPU seconds.
    cpu: f64,
    /// Peak RSS in MB.
    rss: f64,
}

/// Runs `cmd`, returning its stdout and what it used.
fn measure(cmd: &mut Command) -> (String, Run) {
    let start = Instant::now();
    let child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    let pid = child.id() as libc::pid_t;
    let output = {
        // read the pipes first, then reap with wait4 for the rusage
        use std::io::Read;
        let mut child = child;
        let mut out = String::new();
        let mut err = String::new();
        child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut out)
            .unwrap();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        std::mem::forget(child);
        (out, err)
    };
    let mut status = 0;
    // SAFETY: rusage is plain data; wait4 fills it for our own child.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
    let wall = start.elapsed().as_secs_f64();
    assert_eq!(r, pid, "wait4");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "{cmd:?} failed: {}{}",
        output.0,
        output.1
    );
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    let run = Run {
        consume: 0.0,
        wall,
        cpu: tv(ru.ru_utime) + tv(ru.ru_stime),
        rss: ru.ru_maxrss as f64 / 1024.0,
    };
    (output.0 + &output.1, run)
}

fn config() -> Config {
    Config::from_pairs([("bootstrap.servers", broker().as_str())]).unwrap()
}

/// The topic for `codec`, filled with exactly MESSAGES messages.
fn ensure_topic(codec: &str) -> String {
    let c = Consumer::new(&config()).unwrap();
    for attempt in 0.. {
        let topic = format!("gregor-bench-consume-{codec}-{attempt}");
        let info = c.cluster().topic(&topic, false, Duration::from_secs(10));
        match info {
            Ok(t) if t.partitions.len() == PARTITIONS as usize => {
                let total: i64 = (0..PARTITIONS)
                    .map(|p| {
                        let (lo, hi) = c.watermarks(&topic, p, Duration::from_secs(10)).unwrap();
                        if lo == 0 {
                            hi
                        } else {
                            -1_000_000_000
                        }
                    })
                    .sum();
                if total == MESSAGES as i64 {
                    return topic;
                }
                continue; // partly filled or more: take the next name
            }
            Ok(_) => continue,
            Err(_) => {}
        }
        create_topic(&c, &topic);
        eprintln!(
            "filling {topic} with {MESSAGES} × {SIZE} bytes ({codec}) by rdkafka_performance -P"
        );
        let (out, _) = measure(
            Command::new(rdkafka_performance())
                .args(["-P", "-t", &topic, "-b", &broker(), "-s", "100", "-c"])
                .arg(MESSAGES.to_string())
                .args([
                    "-a",
                    "-1",
                    "-q",
                    "-X",
                    &format!("compression.codec={codec}"),
                ]),
        );
        assert!(out.contains("delivered"), "{out}");
        return topic;
    }
    unreachable!()
}

fn create_topic(c: &Consumer, topic: &str) {
    use gregor::cluster::Purpose;
    use gregor::protocol::create_topics::{CreatableTopic, CreateTopicsRequest};
    let conn = c
        .cluster()
        .any_conn(Purpose::Metadata, Duration::from_secs(10))
        .unwrap();
    let mut t = CreatableTopic::default();
    t.name = topic.to_string();
    t.num_partitions = PARTITIONS;
    t.replication_factor = 1;
    let mut req = CreateTopicsRequest::default();
    req.topics = vec![t];
    req.timeout_ms = 10_000;
    let resp = conn.call(&req, Some(Duration::from_secs(15))).unwrap();
    assert_eq!(resp.topics[0].error_code, 0, "{:?}", resp.topics[0]);
    for _ in 0..100 {
        c.cluster().invalidate(topic);
        if let Ok(t) = c.cluster().topic(topic, false, Duration::from_secs(5)) {
            if t.partitions.iter().all(|p| p.leader >= 0) {
                return;
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn librdkafka(topic: &str) -> Run {
    let mut cmd = Command::new(rdkafka_performance());
    cmd.args([
        "-C",
        "-t",
        topic,
        "-b",
        &broker(),
        "-o",
        "beginning",
        "-q",
        "-c",
    ])
    .arg(MESSAGES.to_string());
    for p in 0..PARTITIONS {
        cmd.args(["-p", &p.to_string()]);
    }
    let (out, mut run) = measure(&mut cmd);
    // "% 1000000 messages (100000000 bytes) consumed in 416ms: ..."
    let line = out
        .lines()
        .find(|l| l.contains("consumed in"))
        .unwrap_or_else(|| panic!("unexpected rdkafka_performance output: {out}"));
    let ms: f64 = line
        .split("consumed in ")
        .nth(1)
        .and_then(|r| r.split("ms").next())
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("{line}"));
    assert!(line.contains(&format!("{MESSAGES} messages")), "{line}");
    run.consume = ms / 1000.0;
    run
}

fn librdkafka_loop(harness: &str, topic: &str) -> Run {
    let (out, mut run) = measure(Command::new(harness).args([
        &broker(),
        topic,
        &PARTITIONS.to_string(),
        &MESSAGES.to_string(),
    ]));
    run.consume = out
        .lines()
        .find_map(|l| l.strip_prefix("consumed "))
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or_else(|| panic!("unexpected harness output: {out}"));
    run
}

fn gregor(topic: &str, api: &str) -> Run {
    let exe = std::env::current_exe().unwrap();
    let (out, mut run) = measure(Command::new(exe).args(["--child", api, topic]));
    let secs: f64 = out
        .lines()
        .find_map(|l| l.strip_prefix("consumed "))
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or_else(|| panic!("unexpected child output: {out}"));
    run.consume = secs;
    run
}

/// The child: consumes MESSAGES from `topic` and prints the time from the
/// first to the last.
fn child(api: &str, topic: &str) {
    let mut first = None;
    let mut n = 0;
    let mut bytes = 0;
    if api == "c" {
        use gregor::ffi::*;
        let cstr = |s: &str| std::ffi::CString::new(s).unwrap();
        let conf = gregor_config_new();
        let (k, v) = (cstr("bootstrap.servers"), cstr(&broker()));
        assert_eq!(
            gregor_config_set(conf, k.as_ptr(), v.as_ptr(), std::ptr::null_mut(), 0),
            0
        );
        if std::env::var_os("GREGOR_BENCH_LOGGER").is_some() {
            extern "C" fn count(
                _: *mut std::ffi::c_void,
                _: std::ffi::c_int,
                _: *const std::ffi::c_char,
                _: *const std::ffi::c_char,
                _: *const std::ffi::c_char,
            ) {
                LOGGED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            assert_eq!(
                gregor_config_set_log_cb(conf, Some(count), std::ptr::null_mut()),
                0
            );
        }
        let c = gregor_consumer_new(conf, std::ptr::null_mut(), 0);
        assert!(!c.is_null());
        let tpl = gregor_tpl_new();
        let t = cstr(topic);
        for p in 0..PARTITIONS {
            gregor_tpl_add(tpl, t.as_ptr(), p, GREGOR_OFFSET_BEGINNING);
        }
        assert_eq!(gregor_consumer_assign(c, tpl, std::ptr::null_mut(), 0), 0);
        while n < MESSAGES {
            let m = gregor_consumer_poll(c, 10_000);
            assert!(!m.is_null(), "timed out after {n}");
            assert_eq!(gregor_message_err(m), 0);
            first.get_or_insert_with(Instant::now);
            bytes += gregor_message_value(m).len;
            n += 1;
            gregor_message_free(m);
        }
        println!("consumed {}", first.unwrap().elapsed().as_secs_f64());
        gregor_tpl_free(tpl);
        gregor_consumer_free(c);
        gregor_config_free(conf);
    } else {
        let mut cfg = config();
        if std::env::var_os("GREGOR_BENCH_LOGGER").is_some() {
            cfg.set_log_callback(Some(gregor::log::LogCallback::new(|_, _, _, _| {
                LOGGED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            })));
        }
        let c = Consumer::new(&cfg).unwrap();
        let tps: Vec<TopicPartitionOffset> = (0..PARTITIONS)
            .map(|p| TopicPartitionOffset::new(topic, p, offset::BEGINNING))
            .collect();
        c.assign(&tps).unwrap();
        while n < MESSAGES {
            let m = c
                .poll(Duration::from_secs(10))
                .unwrap()
                .unwrap_or_else(|| panic!("timed out after {n}"));
            assert!(m.error.is_none(), "{:?}", m.error);
            first.get_or_insert_with(Instant::now);
            bytes += m.value.as_ref().map_or(0, |v| v.len());
            n += 1;
        }
        println!("consumed {}", first.unwrap().elapsed().as_secs_f64());
    }
    assert_eq!(bytes, MESSAGES * SIZE);
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

struct Row {
    name: &'static str,
    runs: Vec<Run>,
}

impl Row {
    fn rate(&self) -> f64 {
        median(
            self.runs
                .iter()
                .map(|r| MESSAGES as f64 / r.consume)
                .collect(),
        )
    }
    fn cpu(&self) -> f64 {
        median(self.runs.iter().map(|r| r.cpu).collect())
    }
    /// Messages per second of the whole process, start to exit.
    fn end_to_end(&self) -> f64 {
        median(self.runs.iter().map(|r| MESSAGES as f64 / r.wall).collect())
    }
    fn rss(&self) -> f64 {
        median(self.runs.iter().map(|r| r.rss).collect())
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--child") {
        child(&args[i + 1], &args[i + 2]);
        return;
    }
    if args.iter().any(|a| a == "--list") {
        return; // `cargo test --benches` asks for the list of benchmarks
    }
    let rounds: usize = std::env::var("GREGOR_BENCH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    println!(
        "consumer benchmark: {MESSAGES} × {SIZE}-byte messages, {PARTITIONS} partitions, broker {}, {rounds} rounds (medians)",
        broker()
    );
    let harness = build_c_harness();
    for codec in ["none", "lz4"] {
        let topic = ensure_topic(codec);
        let mut rows = [
            Row {
                name: "librdkafka, same loop (C, consume_queue)",
                runs: Vec::new(),
            },
            Row {
                name: "librdkafka rdkafka_performance -C",
                runs: Vec::new(),
            },
            Row {
                name: "gregor Consumer::poll (Rust)",
                runs: Vec::new(),
            },
            Row {
                name: "gregor gregor_consumer_poll (C ABI)",
                runs: Vec::new(),
            },
        ];
        for round in 0..rounds {
            // alternate who goes first
            let order: [usize; 4] = if round % 2 == 0 {
                [0, 1, 2, 3]
            } else {
                [3, 2, 1, 0]
            };
            for i in order {
                let run = match i {
                    0 => librdkafka_loop(&harness, &topic),
                    1 => librdkafka(&topic),
                    2 => gregor(&topic, "rust"),
                    _ => gregor(&topic, "c"),
                };
                rows[i].runs.push(run);
            }
        }
        println!();
        println!("codec {codec} (topic {topic})");
        println!(
            "| {:<40} | {:>9} | {:>6} | {:>11} | {:>6} | {:>10} | {:>8} |",
            "client", "msgs/s", "MB/s", "end-to-end", "CPU s", "CPU ns/msg", "peak RSS"
        );
        println!(
            "|{:-<42}|{:->11}|{:->8}|{:->13}|{:->8}|{:->12}|{:->10}|",
            "", "", "", "", "", "", ""
        );
        for r in &rows {
            println!(
                "| {:<40} | {:>9.0} | {:>6.1} | {:>11.0} | {:>6.3} | {:>10.0} | {:>5.1} MB |",
                r.name,
                r.rate(),
                r.rate() * SIZE as f64 / 1e6,
                r.end_to_end(),
                r.cpu(),
                r.cpu() * 1e9 / MESSAGES as f64,
                r.rss(),
            );
        }
        for base in &rows[..2] {
            for r in &rows[2..] {
                println!(
                    "{} vs {}: {:.2}× msgs/s ({:.2}× end to end), {:.2}× CPU per message, {:.2}× peak RSS",
                    r.name,
                    base.name,
                    r.rate() / base.rate(),
                    r.end_to_end() / base.end_to_end(),
                    r.cpu() / base.cpu(),
                    r.rss() / base.rss()
                );
            }
        }
    }
}
