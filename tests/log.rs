//! Logging: librdkafka's `debug` contexts and log lines over a
//! produce / consume / group / transaction run on librdkafka's mock cluster
//! (tests/mock_cluster/), with a leader move and injected produce errors.
//! With `debug=all` the lines an operator needs are there (a leader change,
//! group join-state transitions, a retry with its reason, transaction
//! states); with `debug` unset nothing is written, neither to the log
//! callback nor, without one, to stderr (checked on a child process).

mod mock_cluster;

use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use gregor::config::Config;
use gregor::consumer::Consumer;
use gregor::log::LogCallback;
use gregor::message::ProducerRecord;
use gregor::producer::Producer;
use mock_cluster::MockCluster;

const PRODUCE: i16 = 0;
const NOT_ENOUGH_REPLICAS: i16 = 19;

/// (level, facility, client name, message)
type Line = (i32, String, String, String);
type Lines = Arc<Mutex<Vec<Line>>>;

fn config(bootstrap: &str, extra: &[(&str, &str)], lines: &Lines) -> Config {
    let mut c = Config::from_pairs([("bootstrap.servers", bootstrap)]).unwrap();
    for (k, v) in extra {
        c.set(k, v).unwrap();
    }
    let l2 = lines.clone();
    c.set_log_callback(Some(LogCallback::new(move |lvl, fac, name, buf| {
        l2.lock()
            .unwrap()
            .push((lvl, fac.to_string(), name.to_string(), buf.to_string()));
    })));
    c
}

fn send(p: &Producer, topic: &str, from: usize, to: usize) {
    for i in from..to {
        let v = format!("m{i}");
        p.send(
            &ProducerRecord {
                topic,
                partition: Some(0),
                value: Some(v.as_bytes()),
                ..Default::default()
            },
            i,
        )
        .unwrap();
    }
    p.flush(Duration::from_secs(30)).unwrap();
}

/// The whole run, on a fresh cluster, with `debug` as given (or unset);
/// every line any client wrote.
fn run(debug: Option<&str>, tag: &str) -> Vec<Line> {
    let cluster = MockCluster::start(3);
    cluster.rebalance_delay(0);
    let topic = format!("log-{tag}");
    cluster.topic(&topic, 1, 3);
    cluster.leader(&topic, 0, 1);
    let lines: Lines = Arc::default();
    let extra: Vec<(&str, &str)> = debug.map(|d| ("debug", d)).into_iter().collect();
    let cfg = config(&cluster.bootstrap, &extra, &lines);
    let mut pcfg = cfg.clone();
    pcfg.set("retry.backoff.ms", "10").unwrap();
    pcfg.set("linger.ms", "0").unwrap();

    // produce; then two injected NOT_ENOUGH_REPLICAS answers are retried
    let p = Producer::new(&pcfg).unwrap();
    send(&p, &topic, 0, 5);
    cluster.err(PRODUCE, NOT_ENOUGH_REPLICAS, 2);
    send(&p, &topic, 5, 10);
    // the leader moves: the old leader's answer names the new one (KIP-951)
    cluster.leader(&topic, 0, 2);
    send(&p, &topic, 10, 15);
    drop(p);

    // a group member reads everything
    let mut ccfg = cfg.clone();
    ccfg.set("group.id", &format!("log-g-{tag}")).unwrap();
    ccfg.set("auto.offset.reset", "earliest").unwrap();
    let c = Consumer::new(&ccfg).unwrap();
    c.subscribe(&[topic.as_str()]).unwrap();
    let mut got = 0;
    let until = Instant::now() + Duration::from_secs(30);
    while got < 15 && Instant::now() < until {
        if let Some(m) = c.poll(Duration::from_millis(100)).unwrap() {
            if m.error.is_none() {
                got += 1;
            }
        }
    }
    c.close();
    assert_eq!(got, 15);

    // a transaction
    let mut tcfg = pcfg.clone();
    tcfg.set("transactional.id", &format!("log-txn-{tag}"))
        .unwrap();
    let t = Producer::new(&tcfg).unwrap();
    t.init_transactions(Duration::from_secs(30)).unwrap();
    t.begin_transaction().unwrap();
    send(&t, &topic, 15, 17);
    t.commit_transaction(Duration::from_secs(30)).unwrap();
    t.close(Duration::from_secs(5));
    drop(t);
    let v = lines.lock().unwrap().clone();
    v
}

fn find<'a>(lines: &'a [Line], fac: &str, parts: &[&str]) -> Option<&'a Line> {
    lines
        .iter()
        .find(|l| l.1 == fac && parts.iter().all(|p| l.3.contains(p)))
}

#[test]
fn debug_all_writes_the_lines_an_operator_needs_and_unset_writes_nothing() {
    let lines = run(Some("all"), "all");
    let show = |l: &[Line]| {
        l.iter()
            .map(|(lvl, fac, name, buf)| format!("%{lvl}|{fac}|{name}| {buf}"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    println!("{} lines with debug=all", lines.len());
    let must = [
        // a leader change (librdkafka's TOPIC "BROKER" line)
        (
            "BROKER",
            vec!["log-all [0]: leader 1 epoch", "-> leader 2 epoch"],
        ),
        // a retry with its reason
        (
            "RETRY",
            vec!["log-all [0]: retrying", "NOT_ENOUGH_REPLICAS (19)"],
        ),
        // the error the retry follows, with the broker that answered
        ("MSGSET", vec!["encountered error", "NOT_ENOUGH_REPLICAS"]),
        // group state transitions
        (
            "CGRPJOINSTATE",
            vec!["Group \"log-g-all\" changed join state init -> wait-join"],
        ),
        ("CGRPJOINSTATE", vec!["-> steady"]),
        ("JOINGROUP", vec!["JoinGroup response: GenerationId"]),
        ("ASSIGN", vec!["log-all [0]"]),
        // transaction states
        (
            "TXNSTATE",
            vec!["Transaction state change READY -> IN_TRANSACTION"],
        ),
        ("TXNSTATE", vec!["-> COMMITTING_TRANSACTION"]),
        ("PIDSTATE", vec!["Acquired PID"]),
        // connections and their API versions, metadata
        ("CONNECT", vec!["/bootstrap: Connecting to 127.0.0.1:"]),
        ("CONNECTED", vec!["Connected to"]),
        ("APIVERSION", vec!["broker supports"]),
        ("METADATA", vec!["Received metadata"]),
        ("INIT", vec!["initializing (debug 0xfffff)"]),
    ];
    for (fac, parts) in &must {
        let found = find(&lines, fac, parts);
        assert!(
            found.is_some(),
            "no {fac} line with {parts:?} in:\n{}",
            show(&lines)
        );
        println!("{fac}: {}", found.unwrap().3);
    }
    for (lvl, _, name, buf) in &lines {
        assert!((0..=7).contains(lvl));
        assert!(
            name.starts_with("gregor#producer-") || name.starts_with("gregor#consumer-"),
            "{name}"
        );
        assert!(buf.starts_with("[thrd:"), "{buf}");
    }
    // the consumer's lines carry its own name
    assert!(lines
        .iter()
        .any(|l| l.1 == "CGRPJOINSTATE" && l.2.starts_with("gregor#consumer-")));

    let quiet = run(None, "quiet");
    assert!(quiet.is_empty(), "debug unset wrote:\n{}", show(&quiet));
}

/// One context only: `debug=cgrp` lets the group's lines through and no
/// broker or topic line.
#[test]
fn one_debug_context_enables_only_its_lines() {
    let cluster = MockCluster::start(1);
    cluster.rebalance_delay(0);
    cluster.topic("log-ctx", 1, 1);
    let lines: Lines = Arc::default();
    let cfg = config(
        &cluster.bootstrap,
        &[
            ("debug", "cgrp"),
            ("group.id", "log-ctx-g"),
            ("auto.offset.reset", "earliest"),
        ],
        &lines,
    );
    let c = Consumer::new(&cfg).unwrap();
    c.subscribe(&["log-ctx"]).unwrap();
    let until = Instant::now() + Duration::from_secs(20);
    while Instant::now() < until
        && find(&lines.lock().unwrap(), "CGRPJOINSTATE", &["-> steady"]).is_none()
    {
        let _ = c.poll(Duration::from_millis(100));
    }
    c.close();
    let v = lines.lock().unwrap().clone();
    assert!(find(&v, "CGRPJOINSTATE", &["-> steady"]).is_some(), "{v:?}");
    assert!(
        v.iter()
            .all(|l| !["CONNECT", "CONNECTED", "APIVERSION", "BROKER"].contains(&l.1.as_str())),
        "{v:?}"
    );
}

/// `log.queue`: lines wait for `poll` / `flush` and reach the callback on
/// the polling thread; lines of the client's creation included.
#[test]
fn log_queue_lines_reach_the_callback_on_the_polling_thread() {
    let cluster = MockCluster::start(1);
    cluster.topic("log-q", 1, 1);
    let lines: Arc<Mutex<Vec<(String, String)>>> = Arc::default();
    let l2 = lines.clone();
    let mut cfg = Config::from_pairs([
        ("bootstrap.servers", cluster.bootstrap.as_str()),
        ("debug", "broker,generic"),
        ("log.queue", "true"),
    ])
    .unwrap();
    cfg.set_log_callback(Some(LogCallback::new(move |_, fac, _, _| {
        let t = std::thread::current().name().unwrap_or("").to_string();
        l2.lock().unwrap().push((fac.to_string(), t));
    })));
    let p = Producer::new(&cfg).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    assert!(lines.lock().unwrap().is_empty(), "served before poll");
    send(&p, "log-q", 0, 3);
    let me = std::thread::current().name().unwrap_or("").to_string();
    let v = lines.lock().unwrap().clone();
    assert!(v.iter().any(|(f, _)| f == "INIT"), "{v:?}");
    assert!(v.iter().any(|(f, _)| f == "CONNECTED"), "{v:?}");
    assert!(v.iter().all(|(_, t)| *t == me), "{v:?}");
}

/// Without a callback the lines go to stderr in librdkafka's format; with
/// `debug` unset a run writes nothing there. Runs this test binary again
/// as a child with GREGOR_LOG_CHILD set (the child test below).
#[test]
fn stderr_has_librdkafka_format_and_nothing_without_debug() {
    let cluster = MockCluster::start(1);
    cluster.topic("log-stderr", 1, 1);
    let child = |debug: &str| {
        let out = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "stderr_child", "--nocapture", "--test-threads=1"])
            .env("GREGOR_LOG_CHILD", &cluster.bootstrap)
            .env("GREGOR_LOG_CHILD_DEBUG", debug)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stderr).unwrap()
    };
    let quiet = child("");
    assert_eq!(quiet, "", "debug unset wrote to stderr");
    let loud = child("broker,topic,msg");
    let re_ok = |l: &str| {
        // %7|1700000000.123|CONNECT|gregor#producer-1| [thrd:...]: ...
        let f: Vec<&str> = l.splitn(5, '|').collect();
        f.len() == 5
            && f[0] == "%7"
            && f[1]
                .split_once('.')
                .is_some_and(|(s, ms)| s.len() >= 10 && s.parse::<u64>().is_ok() && ms.len() == 3)
            && !f[2].is_empty()
            && f[2]
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
            && f[3].starts_with("gregor#producer-")
            && f[4].starts_with(" [thrd:")
    };
    let lines: Vec<&str> = loud.lines().collect();
    assert!(lines.len() > 3, "{loud}");
    for l in &lines {
        assert!(re_ok(l), "not librdkafka's format: {l}");
    }
    assert!(lines.iter().any(|l| l.contains("|CONNECTED|")), "{loud}");
    println!("stderr sample: {}", lines[0]);
}

/// The child of the test above: does nothing unless GREGOR_LOG_CHILD names
/// a cluster.
#[test]
fn stderr_child() {
    let Ok(bootstrap) = std::env::var("GREGOR_LOG_CHILD") else {
        return;
    };
    let debug = std::env::var("GREGOR_LOG_CHILD_DEBUG").unwrap_or_default();
    let mut cfg = Config::from_pairs([("bootstrap.servers", bootstrap.as_str())]).unwrap();
    if !debug.is_empty() {
        cfg.set("debug", &debug).unwrap();
    }
    let p = Producer::new(&cfg).unwrap();
    send(&p, "log-stderr", 0, 3);
    p.close(Duration::from_secs(5));
}

#[test]
fn bad_debug_context_and_log_level_are_errors_naming_the_property() {
    let e = Config::new().set("debug", "broker,cgroup").unwrap_err();
    assert!(
        e.to_string().contains("debug") && e.to_string().contains("cgroup"),
        "{e}"
    );
    let e = Config::new().set("log_level", "8").unwrap_err();
    assert!(e.to_string().contains("log_level"), "{e}");
    Config::new().set("debug", "all").unwrap();
    Config::new().set("log.connection.close", "false").unwrap();
}

/// `debug=security`: the TLS handshake and the SASL steps of a SASL_SSL
/// (SCRAM-SHA-256) connection are logged, and the password is in no line.
/// Against the SASL_SSL test broker ($GREGOR_TEST_BROKER_SASL_SSL,
/// default 127.0.0.1:9095; scripts/services.sh start security).
#[test]
fn tls_and_sasl_steps_are_logged_without_the_password() {
    let addr = std::env::var("GREGOR_TEST_BROKER_SASL_SSL")
        .unwrap_or_else(|_| "127.0.0.1:9095".to_string());
    let up = addr
        .parse()
        .ok()
        .and_then(|a| std::net::TcpStream::connect_timeout(&a, Duration::from_secs(1)).ok())
        .is_some();
    if !up {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "SASL_SSL broker {addr} down"
        );
        eprintln!("SKIPPED: the SASL_SSL test broker {addr} is not running");
        return;
    }
    let certs = std::env::var("GREGOR_TEST_CERTS")
        .unwrap_or_else(|_| "/tmp/gregor-services/certs".to_string());
    let lines: Lines = Arc::default();
    let ca = format!("{certs}/ca.pem");
    let cfg = config(
        &addr,
        &[
            ("debug", "security"),
            ("security.protocol", "sasl_ssl"),
            ("sasl.mechanisms", "SCRAM-SHA-256"),
            ("sasl.username", "gregor256"),
            ("sasl.password", "gregor-pw-256"),
            ("ssl.ca.location", &ca),
        ],
        &lines,
    );
    let p = Producer::new(&cfg).unwrap();
    p.cluster()
        .fetch_metadata(None, false, Duration::from_secs(20))
        .unwrap();
    drop(p);
    let v = lines.lock().unwrap().clone();
    assert!(find(&v, "SSL", &["SSL handshake done"]).is_some(), "{v:?}");
    assert!(
        find(
            &v,
            "SASLAUTH",
            &["Authenticated with SASL mechanism SCRAM-SHA-256"]
        )
        .is_some(),
        "{v:?}"
    );
    assert!(
        find(&v, "SASLMECHS", &["SCRAM-SHA-256", "gregor256"]).is_some(),
        "{v:?}"
    );
    assert!(v.iter().all(|l| !l.3.contains("gregor-pw-256")), "{v:?}");
}

/// Configuration warnings (librdkafka's CONFWARN, level 4) reach the log
/// callback while the client is created: a property gregor does not act on
/// and a consumer property on a producer, each named.
#[test]
fn configuration_warnings_reach_the_log_callback_during_creation() {
    let lines: Lines = Arc::default();
    let cfg = config(
        "127.0.0.1:1",
        &[("enable.random.seed", "true"), ("group.id", "g")],
        &lines,
    );
    let p = Producer::new(&cfg).unwrap();
    let v = lines.lock().unwrap().clone();
    drop(p);
    let warn = |what: &str| {
        v.iter()
            .find(|l| l.0 == 4 && l.1 == "CONFWARN" && l.3.contains(what))
            .unwrap_or_else(|| panic!("no CONFWARN naming {what}: {v:?}"))
    };
    assert!(warn("enable.random.seed").2.starts_with("gregor#producer-"));
    warn("group.id");
}

/// A transactional producer destroyed before it got a producer id (its
/// broker never answered) logs that at debug level, not as a fatal error:
/// the application ended it, nothing failed.
#[test]
fn destroying_a_producer_waiting_for_its_id_is_not_an_error() {
    let lines: Lines = Arc::default();
    let cfg = config(
        "127.0.0.1:1",
        &[("transactional.id", "log-destroy"), ("debug", "eos")],
        &lines,
    );
    let p = Producer::new(&cfg).unwrap();
    assert!(p.init_transactions(Duration::from_millis(300)).is_err());
    drop(p);
    let v = lines.lock().unwrap().clone();
    // (the refused connection itself is an error line, as in librdkafka)
    let errors: Vec<_> = v.iter().filter(|l| l.0 <= 3 && l.1 != "FAIL").collect();
    assert!(errors.is_empty(), "error-level lines: {errors:?}");
    assert!(
        v.iter()
            .any(|l| l.1 == "PIDSTATE" && l.3.contains("destroyed")),
        "no debug line about the id never acquired: {v:?}"
    );
}
