//! `gregor zk …`: inspect a ZooKeeper-era cluster and move legacy consumer
//! offsets.
//!
//! ```text
//! gregor zk -z HOST:PORT[/chroot] [-t SESSION_MS] COMMAND
//!   brokers                        registered brokers and their endpoints
//!   topics                         topic names
//!   topic TOPIC                    replicas, partition states, config overrides
//!   controller                     controller, controller epoch, cluster id
//!   admin                          pending deletions, reassignments, elections, notifications
//!   groups                         legacy consumer groups
//!   group GROUP                    members, owners and offsets
//!   offset-get GROUP [TOPIC]       offsets in ZooKeeper
//!   offset-set GROUP TOPIC PARTITION OFFSET
//!   migrate GROUP (--to-kafka|--to-zk) [--topic T] [--dry-run]
//!                                  through the brokers registered in ZooKeeper
//!   consume -g GROUP [-c COUNT] [-K DELIM] [-X KEY=VALUE]... TOPIC...
//!                                  join GROUP as a ZooKeeper-balanced consumer (Kafka 0.8's
//!                                  high-level consumer) and print each message's value
//!                                  (key DELIM value with -K) and a newline, as `gregor -C`;
//!                                  after COUNT messages, commit (with enable.auto.commit) and leave
//!   get PATH                       a znode's data
//!   put PATH [DATA]                write a persistent znode (parents created)
//!   delete PATH                    delete a znode and everything under it
//! ```
//!
//! Exit status: 0 success, 1 failure (message on `err`), 2 bad usage.

use std::io::Write;
use std::time::Duration;

use gregor::config::Config;
use gregor::error::Error;
use gregor::registry::inspect::ZkClient;
use gregor::zk::groups::{migrate, Direction};

const USAGE: &str = "usage: gregor zk -z HOST:PORT[/chroot] [-t SESSION_MS] \
(brokers | topics | topic TOPIC | controller | admin | groups | group GROUP | \
offset-get GROUP [TOPIC] | offset-set GROUP TOPIC PARTITION OFFSET | \
migrate GROUP (--to-kafka|--to-zk) [--topic T] [--dry-run] | \
consume -g GROUP [-c COUNT] [-K DELIM] [-X KEY=VALUE]... TOPIC... | \
get PATH | put PATH [DATA] | delete PATH)";

/// Runs `gregor zk` with `args` (the words after `zk`), writing results to
/// `out` and errors to `err`; returns the exit status.
pub fn run(args: &[String], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let mut connect = None;
    let mut timeout = Duration::from_millis(6000);
    let mut rest = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-z" | "--zookeeper" => connect = it.next().cloned(),
            "-t" => match it.next().and_then(|v| v.parse::<u64>().ok()) {
                Some(ms) if ms > 0 => timeout = Duration::from_millis(ms),
                _ => {
                    let _ = writeln!(err, "gregor zk: -t needs a positive number of ms\n{USAGE}");
                    return 2;
                }
            },
            "-h" | "--help" => {
                let _ = writeln!(out, "{USAGE}");
                return 0;
            }
            _ => rest.push(a.as_str()),
        }
    }
    let Some(connect) = connect else {
        let _ = writeln!(err, "gregor zk: -z HOST:PORT[/chroot] is required\n{USAGE}");
        return 2;
    };
    if rest.first() == Some(&"consume") {
        return match consume(&connect, timeout, &rest[1..], out, err) {
            Ok(true) => 0,
            Ok(false) => {
                let _ = writeln!(err, "gregor zk: bad command {rest:?}\n{USAGE}");
                2
            }
            Err(e) => {
                let _ = writeln!(err, "gregor zk: {e}");
                1
            }
        };
    }
    let zk = match ZkClient::connect(&connect, timeout) {
        Ok(z) => z,
        Err(e) => {
            let _ = writeln!(err, "gregor zk: {e}");
            return 1;
        }
    };
    match command(&zk, &connect, timeout, &rest, out) {
        Ok(true) => 0,
        Ok(false) => {
            let _ = writeln!(err, "gregor zk: bad command {rest:?}\n{USAGE}");
            2
        }
        Err(e) => {
            let _ = writeln!(err, "gregor zk: {e}");
            1
        }
    }
}

fn io(e: std::io::Error) -> Error {
    Error::local(gregor::error::local::FAIL, format!("write: {e}"))
}

fn ids(v: &[i32]) -> String {
    v.iter().map(i32::to_string).collect::<Vec<_>>().join(",")
}

/// Runs one command; `Ok(false)` for a usage error.
fn command(
    zk: &ZkClient,
    connect: &str,
    timeout: Duration,
    words: &[&str],
    out: &mut dyn Write,
) -> Result<bool, Error> {
    match words {
        ["brokers"] => {
            for b in zk.brokers()? {
                let eps: Vec<String> = b
                    .endpoints
                    .iter()
                    .map(|e| {
                        format!(
                            "{}({})://{}:{}",
                            e.listener, e.security_protocol, e.host, e.port
                        )
                    })
                    .collect();
                writeln!(
                    out,
                    "broker {} version {} endpoints {} rack {} jmx_port {} timestamp {}",
                    b.id,
                    b.version,
                    eps.join(" "),
                    b.rack.as_deref().unwrap_or("-"),
                    b.jmx_port,
                    b.timestamp.map_or("-".to_string(), |t| t.to_string()),
                )
                .map_err(io)?;
            }
        }
        ["topics"] => {
            for t in zk.topics()? {
                writeln!(out, "{t}").map_err(io)?;
            }
        }
        ["topic", t] => {
            let Some(a) = zk.topic(t)? else {
                return Err(Error::local(
                    gregor::error::local::UNKNOWN_TOPIC,
                    format!("no topic {t} under /brokers/topics"),
                ));
            };
            writeln!(
                out,
                "topic {t} version {} topic_id {}",
                a.version,
                a.topic_id.as_deref().unwrap_or("-")
            )
            .map_err(io)?;
            for (p, replicas) in &a.partitions {
                let state = match zk.partition_state(t, *p)? {
                    Some(s) => format!(
                        "leader {} leader_epoch {} controller_epoch {} isr {}",
                        s.leader,
                        s.leader_epoch,
                        s.controller_epoch,
                        ids(&s.isr)
                    ),
                    None => "no state".to_string(),
                };
                let mut line = format!("  partition {p} replicas {} {state}", ids(replicas));
                if let Some(r) = a.adding_replicas.get(p) {
                    line.push_str(&format!(" adding {}", ids(r)));
                }
                if let Some(r) = a.removing_replicas.get(p) {
                    line.push_str(&format!(" removing {}", ids(r)));
                }
                writeln!(out, "{line}").map_err(io)?;
            }
            for (k, v) in zk.topic_config(t)? {
                writeln!(out, "  config {k}={v}").map_err(io)?;
            }
        }
        ["controller"] => {
            match zk.controller()? {
                Some(c) => writeln!(
                    out,
                    "controller {} version {} timestamp {}",
                    c.broker_id,
                    c.version,
                    c.timestamp.map_or("-".to_string(), |t| t.to_string())
                ),
                None => writeln!(out, "controller none"),
            }
            .map_err(io)?;
            writeln!(
                out,
                "controller_epoch {}",
                zk.controller_epoch()?
                    .map_or("-".to_string(), |e| e.to_string())
            )
            .map_err(io)?;
            writeln!(out, "cluster_id {}", zk.cluster_id()?.unwrap_or("-".into())).map_err(io)?;
        }
        ["admin"] => {
            for t in zk.delete_topics()? {
                writeln!(out, "delete_topic {t}").map_err(io)?;
            }
            for r in zk.reassign_partitions()? {
                writeln!(
                    out,
                    "reassign {} [{}] to {}",
                    r.topic,
                    r.partition,
                    ids(&r.replicas)
                )
                .map_err(io)?;
            }
            for r in zk.preferred_replica_election()? {
                writeln!(
                    out,
                    "preferred_replica_election {} [{}]",
                    r.topic, r.partition
                )
                .map_err(io)?;
            }
            for n in zk.isr_change_notifications()? {
                for p in &n.partitions {
                    writeln!(out, "isr_change {} {} [{}]", n.name, p.topic, p.partition)
                        .map_err(io)?;
                }
            }
            for n in zk.config_changes()? {
                writeln!(out, "config_change {} {}", n.name, n.entity_path).map_err(io)?;
            }
        }
        ["groups"] => {
            for g in zk.groups()? {
                writeln!(out, "{g}").map_err(io)?;
            }
        }
        ["group", g] => {
            for m in zk.members(g)? {
                let sub: Vec<String> = m
                    .subscription
                    .iter()
                    .map(|(t, n)| format!("{t}:{n}"))
                    .collect();
                writeln!(
                    out,
                    "member {} subscription {} pattern {} timestamp {}",
                    m.id,
                    sub.join(","),
                    m.pattern,
                    m.timestamp.map_or("-".to_string(), |t| t.to_string())
                )
                .map_err(io)?;
            }
            for o in zk.owners(g)? {
                writeln!(out, "owner {} [{}] {}", o.topic, o.partition, o.owner).map_err(io)?;
            }
            for ((t, p), o) in zk.offsets(g, None)? {
                writeln!(out, "offset {t} [{p}] {o}").map_err(io)?;
            }
        }
        ["offset-get", g, rest @ ..] if rest.len() <= 1 => {
            for ((t, p), o) in zk.offsets(g, rest.first().copied())? {
                writeln!(out, "{t} [{p}] {o}").map_err(io)?;
            }
        }
        ["offset-set", g, t, p, o] => {
            let (Ok(p), Ok(o)) = (p.parse::<i32>(), o.parse::<i64>()) else {
                return Ok(false);
            };
            zk.set_offset(g, t, p, o)?;
            writeln!(out, "{t} [{p}] {o}").map_err(io)?;
        }
        ["migrate", g, flags @ ..] => {
            let mut direction = None;
            let mut topic = None;
            let mut dry_run = false;
            let mut f = flags.iter();
            while let Some(x) = f.next() {
                match *x {
                    "--to-kafka" => direction = Some(Direction::ZkToKafka),
                    "--to-zk" => direction = Some(Direction::KafkaToZk),
                    "--dry-run" => dry_run = true,
                    "--topic" => match f.next() {
                        Some(t) => topic = Some(*t),
                        None => return Ok(false),
                    },
                    _ => return Ok(false),
                }
            }
            let Some(direction) = direction else {
                return Ok(false);
            };
            let cfg = Config::from_pairs([
                ("zookeeper.connect", connect),
                (
                    "zookeeper.session.timeout.ms",
                    &timeout.as_millis().to_string(),
                ),
            ])?;
            let offsets = migrate(
                zk,
                &cfg,
                g,
                topic,
                direction,
                dry_run,
                timeout.max(Duration::from_secs(10)),
            );
            let (from, to) = match direction {
                Direction::ZkToKafka => ("ZooKeeper", "Kafka"),
                Direction::KafkaToZk => ("Kafka", "ZooKeeper"),
            };
            let verb = if dry_run { "would copy" } else { "copied" };
            for ((t, p), o) in offsets? {
                writeln!(out, "{verb} {g} {t} [{p}] offset {o} from {from} to {to}").map_err(io)?;
            }
        }
        ["get", path] => match zk.get(path)? {
            Some(d) => writeln!(out, "{}", String::from_utf8_lossy(&d)).map_err(io)?,
            None => {
                return Err(Error::local(
                    gregor::error::local::NOENT,
                    format!("no node {path}"),
                ))
            }
        },
        ["put", path, data @ ..] if data.len() <= 1 && path.starts_with('/') => {
            zk.put(path, data.first().copied().unwrap_or("").as_bytes())?;
        }
        ["delete", path] if path.starts_with('/') && *path != "/" => zk.delete_recursive(path)?,
        _ => return Ok(false),
    }
    Ok(true)
}

/// `consume -g GROUP [-c COUNT] [-K DELIM] [-X KEY=VALUE]... TOPIC...`;
/// `Ok(false)` for a usage error.
fn consume(
    connect: &str,
    timeout: Duration,
    words: &[&str],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<bool, Error> {
    let mut cfg = Config::from_pairs([
        ("zookeeper.connect", connect),
        (
            "zookeeper.session.timeout.ms",
            &timeout.as_millis().to_string(),
        ),
    ])?;
    let mut count: Option<u64> = None;
    let mut key_delim: Option<&str> = None;
    let mut topics = Vec::new();
    let mut it = words.iter();
    while let Some(w) = it.next() {
        match *w {
            "-g" => match it.next() {
                Some(g) => {
                    cfg.set("group.id", g)?;
                }
                None => return Ok(false),
            },
            "-c" => match it.next().and_then(|c| c.parse().ok()) {
                Some(c) => count = Some(c),
                None => return Ok(false),
            },
            "-K" => match it.next() {
                Some(d) => key_delim = Some(d),
                None => return Ok(false),
            },
            "-X" => match it.next().and_then(|kv| kv.split_once('=')) {
                Some((k, v)) => {
                    cfg.set(k, v)?;
                }
                None => return Ok(false),
            },
            t if !t.starts_with('-') => topics.push(t),
            _ => return Ok(false),
        }
    }
    if topics.is_empty() || !cfg.is_set("group.id") {
        return Ok(false);
    }
    let c = gregor::zk::balanced::BalancedConsumer::new(&cfg, &topics)?;
    let mut n = 0u64;
    let result = loop {
        if count.is_some_and(|c| n >= c) {
            break Ok(());
        }
        let m = match c.poll(Duration::from_millis(500)) {
            Ok(Some(m)) => m,
            Ok(None) => continue,
            Err(e) => break Err(e),
        };
        if let Some(e) = &m.error {
            if e.code() != gregor::error::local::PARTITION_EOF {
                let _ = writeln!(err, "% ERROR: {} [{}]: {e}", m.topic, m.partition);
            }
            continue;
        }
        let mut line = Vec::new();
        if let Some(d) = key_delim {
            line.extend_from_slice(m.key.as_deref().unwrap_or_default());
            line.extend_from_slice(d.as_bytes());
        }
        line.extend_from_slice(m.value.as_deref().unwrap_or_default());
        line.push(b'\n');
        if let Err(e) = out.write_all(&line).and_then(|()| out.flush()) {
            break Err(io(e));
        }
        n += 1;
    };
    // Commits (with enable.auto.commit, the default) and leaves the group.
    c.close();
    result.map(|()| true)
}
