//! `gregor`: kcat's core command lines on gregor.
//!
//!     gregor -b BROKERS -C -t TOPIC [-p N] [-o OFFSET] [-e] [-c N] [-f FMT | -J] [-K D] [-D D]
//!     gregor -b BROKERS -P -t TOPIC [-p N] [-z CODEC] [-K D] [-D D] [-H K=V]... [-l FILE...]
//!     gregor -b BROKERS -L [-t TOPIC] [-J]
//!     ... [-X prop=value]... [-q] [-v]
//!
//! `-o`: `beginning`, `end`, `stored` (needs `-X group.id=…`), an offset,
//! `-N` (N before the end), `s@MS` (the first message at or after a
//! timestamp); `e@MS` stops before a timestamp. `-f` takes kcat's `%t %p %o
//! %k %s %K %S %T %h %%` and `\n \t \r \\` escapes. The consumer is
//! `Consumer::poll` — the call `gregor_consumer_poll` wraps: a message, an
//! error as a message, or nothing at the timeout. The producer sends each
//! message with `send_sync`.

use std::io::{Read, Write};
use std::process::ExitCode;
use std::time::Duration;

use gregor::config::Config;
use gregor::consumer::{Consumer, TopicPartitionOffset};
use gregor::error::{local, Error};
use gregor::message::{offset, Message, ProducerRecord, TimestampType};
use gregor::producer::Producer;

const USAGE: &str = "usage: gregor -b BROKERS (-C | -P | -L) [-t TOPIC] [options]
  -C            consume: -p N, -o beginning|end|stored|N|-N|s@MS|e@MS, -e (exit at end),
                -c N (exit after N), -f FMT (%t %p %o %k %s %K %S %T %h), -J (JSON)
  -P            produce lines of stdin (or -l FILE... one message each): -p N,
                -z none|gzip|snappy|lz4|zstd, -H NAME=VALUE
  -L            list metadata (-J for JSON)
  -K D          key delimiter; -D D message delimiter (default newline)
  -X PROP=VAL   a configuration property (librdkafka's names); -q quiet; -v verbose";

#[derive(Default)]
struct Args {
    mode: Option<char>,
    brokers: Option<String>,
    topic: Option<String>,
    partition: Option<i32>,
    offset: Option<String>,
    exit_at_end: bool,
    count: Option<u64>,
    format: Option<String>,
    json: bool,
    key_delim: Option<String>,
    delim: String,
    codec: Option<String>,
    headers: Vec<(String, Option<String>)>,
    files: bool,
    rest: Vec<String>,
    props: Vec<(String, String)>,
    verbosity: i32,
}

fn fail(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("% ERROR: {msg}");
    ExitCode::FAILURE
}

/// kcat's escapes in delimiters and formats.
fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('0') => out.push('\0'),
            Some(o) => out.push(o),
            None => out.push('\\'),
        }
    }
    out
}

fn parse(argv: Vec<String>) -> Result<Args, String> {
    let mut a = Args {
        delim: "\n".into(),
        verbosity: 1,
        ..Default::default()
    };
    // getopt style: a flag's value may follow it or be attached ("-K:")
    let mut expanded = Vec::new();
    for arg in argv {
        let b = arg.as_bytes();
        if b.len() > 2 && b[0] == b'-' && b"btpocfKDzHX".contains(&b[1]) {
            expanded.push(arg[..2].to_string());
            expanded.push(arg[2..].to_string());
        } else {
            expanded.push(arg);
        }
    }
    let mut it = expanded.into_iter();
    let value = |it: &mut std::vec::IntoIter<String>, flag: &str| {
        it.next().ok_or_else(|| format!("{flag} needs a value"))
    };
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "-C" | "-P" | "-L" => a.mode = arg.chars().nth(1),
            "-b" => a.brokers = Some(value(&mut it, "-b")?),
            "-t" => a.topic = Some(value(&mut it, "-t")?),
            "-p" => {
                let v = value(&mut it, "-p")?;
                a.partition = Some(v.parse().map_err(|_| format!("-p {v}: not a partition"))?);
            }
            "-o" => a.offset = Some(value(&mut it, "-o")?),
            "-e" => a.exit_at_end = true,
            "-c" => {
                let v = value(&mut it, "-c")?;
                a.count = Some(v.parse().map_err(|_| format!("-c {v}: not a count"))?);
            }
            "-f" => a.format = Some(unescape(&value(&mut it, "-f")?)),
            "-J" => a.json = true,
            "-K" => a.key_delim = Some(unescape(&value(&mut it, "-K")?)),
            "-D" => a.delim = unescape(&value(&mut it, "-D")?),
            "-z" => a.codec = Some(value(&mut it, "-z")?),
            "-H" => {
                let v = value(&mut it, "-H")?;
                a.headers.push(match v.split_once('=') {
                    Some((k, v)) => (k.to_string(), Some(v.to_string())),
                    None => (v, None),
                });
            }
            "-l" => a.files = true,
            "-X" => {
                let v = value(&mut it, "-X")?;
                let (k, v) = v
                    .split_once('=')
                    .ok_or_else(|| format!("-X {v}: expected property=value"))?;
                a.props.push((k.to_string(), v.to_string()));
            }
            "-q" => a.verbosity = 0,
            "-v" => a.verbosity += 1,
            "-h" | "--help" => return Err(String::new()),
            s if s.starts_with('-') && s.len() > 1 => return Err(format!("unknown option {s}")),
            _ => a.rest.push(arg),
        }
    }
    Ok(a)
}

fn config(a: &Args) -> Result<Config, Error> {
    let mut c = Config::new();
    if let Some(b) = &a.brokers {
        c.set("bootstrap.servers", b)?;
    }
    for (k, v) in &a.props {
        c.set(k, v)?;
    }
    Ok(c)
}

fn main() -> ExitCode {
    let a = match parse(std::env::args().skip(1).collect()) {
        Ok(a) => a,
        Err(e) if e.is_empty() => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => return fail(format!("{e}\n{USAGE}")),
    };
    if a.brokers.is_none() && !a.props.iter().any(|(k, _)| k == "bootstrap.servers") {
        return fail(format!("-b BROKERS is needed\n{USAGE}"));
    }
    let r = match a.mode {
        Some('C') => consume(&a),
        Some('P') => produce(&a),
        Some('L') => list(&a),
        _ => return fail(format!("one of -C, -P, -L is needed\n{USAGE}")),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(e),
    }
}

/// The start offset of `-o`, and the timestamp to stop at (`e@`).
fn start_offset(o: Option<&str>) -> Result<(Option<i64>, i64, Option<i64>), Error> {
    let bad = || Error::invalid_arg(format!("-o {}: not an offset", o.unwrap_or("")));
    Ok(match o {
        None | Some("end") => (None, offset::END, None),
        Some("beginning") => (None, offset::BEGINNING, None),
        Some("stored") => (None, offset::STORED, None),
        Some(s) if s.starts_with("s@") => {
            (Some(s[2..].parse().map_err(|_| bad())?), offset::END, None)
        }
        Some(s) if s.starts_with("e@") => (
            None,
            offset::BEGINNING,
            Some(s[2..].parse().map_err(|_| bad())?),
        ),
        Some(s) if s.starts_with('-') => {
            let n: i64 = s[1..].parse().map_err(|_| bad())?;
            (None, offset::tail(n), None)
        }
        Some(s) => (None, s.parse().map_err(|_| bad())?, None),
    })
}

fn consume(a: &Args) -> Result<(), Error> {
    let topic = a
        .topic
        .as_deref()
        .ok_or_else(|| Error::invalid_arg("-C needs -t TOPIC"))?;
    let mut cfg = config(a)?;
    if a.exit_at_end {
        cfg.set("enable.partition.eof", "true")?;
    }
    let c = Consumer::new(&cfg)?;
    let timeout = Duration::from_secs(10);
    let partitions: Vec<i32> = match a.partition {
        Some(p) => vec![p],
        None => c
            .cluster()
            .topic(topic, false, timeout)?
            .partitions
            .iter()
            .map(|p| p.id)
            .collect(),
    };
    let (from_time, start, stop_time) = start_offset(a.offset.as_deref())?;
    let mut tps: Vec<TopicPartitionOffset> = partitions
        .iter()
        .map(|p| TopicPartitionOffset::new(topic, *p, start))
        .collect();
    if let Some(ts) = from_time {
        let q: Vec<TopicPartitionOffset> = partitions
            .iter()
            .map(|p| TopicPartitionOffset::new(topic, *p, ts))
            .collect();
        for (t, found) in tps.iter_mut().zip(c.offsets_for_times(&q, timeout)?) {
            if let Some(e) = found.error {
                return Err(e);
            }
            t.offset = if found.offset >= 0 {
                found.offset
            } else {
                offset::END
            };
        }
    }
    c.assign(&tps)?;
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    let mut seen = 0u64;
    let mut at_end: std::collections::HashSet<i32> = std::collections::HashSet::new();
    let mut stopped: std::collections::HashSet<i32> = std::collections::HashSet::new();
    loop {
        if a.count.is_some_and(|n| seen >= n) {
            break;
        }
        let Some(m) = c.poll(Duration::from_millis(500))? else {
            continue;
        };
        if let Some(e) = &m.error {
            if e.code() == local::PARTITION_EOF {
                if a.verbosity > 0 {
                    eprintln!(
                        "% Reached end of topic {} [{}] at offset {}",
                        m.topic, m.partition, m.offset
                    );
                }
                at_end.insert(m.partition);
                if a.exit_at_end && at_end.len() + stopped.len() >= partitions.len() {
                    break;
                }
                continue;
            }
            eprintln!("% ERROR: {} [{}]: {e}", m.topic, m.partition);
            continue;
        }
        at_end.remove(&m.partition);
        if let Some(stop) = stop_time {
            if m.timestamp >= stop {
                // this partition is done; the others go on
                if stopped.insert(m.partition) {
                    c.pause(&[TopicPartitionOffset::new(topic, m.partition, 0)])?;
                }
                if stopped.len() >= partitions.len() {
                    break;
                }
                continue;
            }
        }
        write_message(&mut out, a, &m).map_err(|e| Error::local(local::FAIL, e.to_string()))?;
        seen += 1;
    }
    out.flush()
        .map_err(|e| Error::local(local::FAIL, e.to_string()))?;
    c.close();
    Ok(())
}

fn json_str(b: Option<&[u8]>) -> String {
    match b {
        None => "null".into(),
        Some(b) => {
            let s = String::from_utf8_lossy(b);
            let mut o = String::from("\"");
            for c in s.chars() {
                match c {
                    '"' => o.push_str("\\\""),
                    '\\' => o.push_str("\\\\"),
                    '\n' => o.push_str("\\n"),
                    '\r' => o.push_str("\\r"),
                    '\t' => o.push_str("\\t"),
                    c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
                    c => o.push(c),
                }
            }
            o.push('"');
            o
        }
    }
}

fn write_message(out: &mut impl Write, a: &Args, m: &Message) -> std::io::Result<()> {
    let key = m.key.as_deref();
    let value = m.value.as_deref();
    if a.json {
        let ts_type = match m.timestamp_type {
            TimestampType::CreateTime => "create",
            TimestampType::LogAppendTime => "logappend",
            TimestampType::NotAvailable => "none",
        };
        let headers: Vec<String> = m
            .headers
            .iter()
            .flat_map(|h| [json_str(Some(&h.key)), json_str(h.value.as_deref())])
            .collect();
        return writeln!(
            out,
            "{{\"topic\":{},\"partition\":{},\"offset\":{},\"tstype\":\"{ts_type}\",\"ts\":{},\"broker\":-1,\"headers\":[{}],\"key\":{},\"payload\":{}}}",
            json_str(Some(m.topic.as_bytes())),
            m.partition,
            m.offset,
            m.timestamp,
            headers.join(","),
            json_str(key),
            json_str(value)
        );
    }
    let Some(fmt) = &a.format else {
        if let Some(d) = &a.key_delim {
            out.write_all(key.unwrap_or_default())?;
            out.write_all(d.as_bytes())?;
        }
        out.write_all(value.unwrap_or_default())?;
        return out.write_all(a.delim.as_bytes());
    };
    let mut it = fmt.chars();
    while let Some(c) = it.next() {
        if c != '%' {
            write!(out, "{c}")?;
            continue;
        }
        match it.next() {
            Some('t') => write!(out, "{}", m.topic)?,
            Some('p') => write!(out, "{}", m.partition)?,
            Some('o') => write!(out, "{}", m.offset)?,
            Some('k') => out.write_all(key.unwrap_or_default())?,
            Some('s') => out.write_all(value.unwrap_or_default())?,
            Some('K') => write!(out, "{}", key.map_or(-1, |k| k.len() as i64))?,
            Some('S') => write!(out, "{}", value.map_or(-1, |v| v.len() as i64))?,
            Some('T') => write!(out, "{}", m.timestamp)?,
            Some('h') => {
                let hs: Vec<String> = m
                    .headers
                    .iter()
                    .map(|h| {
                        format!(
                            "{}={}",
                            String::from_utf8_lossy(&h.key),
                            h.value
                                .as_deref()
                                .map_or(String::new(), |v| String::from_utf8_lossy(v).into_owned())
                        )
                    })
                    .collect();
                write!(out, "{}", hs.join(","))?;
            }
            Some('%') => write!(out, "%")?,
            Some(o) => write!(out, "%{o}")?,
            None => write!(out, "%")?,
        }
    }
    Ok(())
}

fn produce(a: &Args) -> Result<(), Error> {
    let topic = a
        .topic
        .as_deref()
        .ok_or_else(|| Error::invalid_arg("-P needs -t TOPIC"))?;
    let mut cfg = config(a)?;
    if let Some(z) = &a.codec {
        cfg.set("compression.type", z)?;
    }
    let p = Producer::new(&cfg)?;
    let io = |e: std::io::Error| Error::local(local::FAIL, e.to_string());
    let messages: Vec<Vec<u8>> = if a.files {
        a.rest
            .iter()
            .map(|f| std::fs::read(f).map_err(|e| Error::invalid_arg(format!("{f}: {e}"))))
            .collect::<Result<_, _>>()?
    } else {
        let mut all = Vec::new();
        std::io::stdin().lock().read_to_end(&mut all).map_err(io)?;
        let d = a.delim.as_bytes();
        let mut out = Vec::new();
        let mut rest = &all[..];
        while !rest.is_empty() {
            match rest.windows(d.len().max(1)).position(|w| w == d) {
                Some(i) => {
                    out.push(rest[..i].to_vec());
                    rest = &rest[i + d.len()..];
                }
                None => {
                    out.push(rest.to_vec());
                    break;
                }
            }
        }
        out
    };
    let headers: Vec<(&str, Option<&[u8]>)> = a
        .headers
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_deref().map(str::as_bytes)))
        .collect();
    for m in &messages {
        let (key, value) = match &a.key_delim {
            Some(d) if !d.is_empty() => {
                let d = d.as_bytes();
                match m.windows(d.len()).position(|w| w == d) {
                    Some(i) => (Some(&m[..i]), &m[i + d.len()..]),
                    None => (None, &m[..]),
                }
            }
            _ => (None, &m[..]),
        };
        let d = p.send_sync(
            &ProducerRecord {
                topic,
                partition: a.partition,
                key,
                value: Some(value),
                headers: &headers,
                timestamp: None,
            },
            None,
        )?;
        if a.verbosity > 1 {
            eprintln!(
                "% Delivered to {} [{}] at offset {}",
                d.topic, d.partition, d.offset
            );
        }
    }
    Ok(())
}

fn list(a: &Args) -> Result<(), Error> {
    let cfg = config(a)?;
    let c = Consumer::new(&cfg)?;
    let topics: Option<Vec<&str>> = a.topic.as_deref().map(|t| vec![t]);
    let md = c
        .cluster()
        .fetch_metadata(topics.as_deref(), false, Duration::from_secs(10))?;
    let ids = |v: &[i32]| {
        v.iter()
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    if a.json {
        let brokers: Vec<String> = md
            .brokers
            .values()
            .map(|b| {
                format!(
                    "{{\"id\":{},\"name\":{}}}",
                    b.id,
                    json_str(Some(b.addr().as_bytes()))
                )
            })
            .collect();
        let topics: Vec<String> = md
            .topics
            .values()
            .map(|t| {
                let parts: Vec<String> = t
                    .partitions
                    .iter()
                    .map(|p| {
                        let rs: Vec<String> = p
                            .replicas
                            .iter()
                            .map(|r| format!("{{\"id\":{r}}}"))
                            .collect();
                        let is: Vec<String> =
                            p.isr.iter().map(|r| format!("{{\"id\":{r}}}")).collect();
                        format!(
                            "{{\"partition\":{},\"leader\":{},\"replicas\":[{}],\"isrs\":[{}]}}",
                            p.id,
                            p.leader,
                            rs.join(","),
                            is.join(",")
                        )
                    })
                    .collect();
                format!(
                    "{{\"topic\":{},\"partitions\":[{}]}}",
                    json_str(Some(t.name.as_bytes())),
                    parts.join(",")
                )
            })
            .collect();
        println!(
            "{{\"originating_broker\":{{\"name\":{}}},\"query\":{{\"topic\":{}}},\"controllerid\":{},\"brokers\":[{}],\"topics\":[{}]}}",
            json_str(Some(md.orig_broker.as_bytes())),
            json_str(Some(a.topic.as_deref().unwrap_or("*").as_bytes())),
            md.controller_id,
            brokers.join(","),
            topics.join(",")
        );
        return Ok(());
    }
    println!(
        "Metadata for {} (from broker {}):",
        a.topic
            .as_deref()
            .map_or("all topics".to_string(), |t| format!("topic {t}")),
        md.orig_broker
    );
    println!(" {} brokers:", md.brokers.len());
    for b in md.brokers.values() {
        let ctl = if b.id == md.controller_id {
            " (controller)"
        } else {
            ""
        };
        println!("  broker {} at {}{ctl}", b.id, b.addr());
    }
    println!(" {} topics:", md.topics.len());
    for t in md.topics.values() {
        let err = if t.error.is_ok() {
            String::new()
        } else {
            format!(": {:?}", t.error)
        };
        println!(
            "  topic \"{}\" with {} partitions{err}:",
            t.name,
            t.partitions.len()
        );
        for p in &t.partitions {
            println!(
                "    partition {}, leader {}, replicas: {}, isrs: {}",
                p.id,
                p.leader,
                ids(&p.replicas),
                ids(&p.isr)
            );
        }
    }
    Ok(())
}
