//! `-C`: consume one topic's partitions (all, or `-p`) from `-o`, writing
//! each message in the `-f`/`-K`/`-J` layout; and `-Q`: offsets by timestamp.
//!
//! End of partition comes from the consumer's `_PARTITION_EOF` events
//! (`enable.partition.eof=true`, which kcat sets too): with `-e` a partition
//! stops at its first end, and the run ends when every assigned partition
//! has stopped.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use gregor::config::Role;
use gregor::consumer::{Consumer, RebalanceEvent, TopicPartitionOffset};
use gregor::error::local;
use gregor::message::offset;

use super::args::{parse_delim, Options, Start};
use super::format::{default_format, json_str, parse_format, Output};
use super::{build_config, info, CliError};

/// How long one poll waits before the output is flushed.
const POLL: Duration = Duration::from_millis(200);
/// Longest time consumed output stays in the buffer.
const FLUSH: Duration = Duration::from_millis(500);

fn fatal(e: impl std::fmt::Display) -> CliError {
    CliError::Fatal(e.to_string())
}

/// A retriable error the broker answered a fetch with (a leader moved:
/// NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH, ...). The consumer recovers
/// by itself, refreshing metadata and fetching again; librdkafka does the
/// same inside its fetcher and never hands these to kcat, which prints
/// nothing. Shown only at `-vv`, and not as an error.
fn recovered_by_consumer(e: &gregor::error::Error) -> bool {
    matches!(e, gregor::error::Error::Kafka { .. }) && e.is_retriable()
}

/// The verbosity at which [`recovered_by_consumer`] errors are shown.
const RECOVERED_VERBOSITY: i32 = 3;

/// What a consume loop does next with a message that carries an error.
enum Triage {
    /// Read on.
    Next,
    /// End the run with this outcome.
    Stop(Result<i32, CliError>),
    /// Not one of the errors both loops handle alike: the loop decides.
    Other,
}

/// The error handling both consume loops share, as kcat's: the end of a
/// partition (`eof_done` records it and says whether that ends the run),
/// all brokers down (kcat's error callback ends the run unless `-E`), and
/// the errors the consumer recovers from by itself.
fn triage(
    e: &gregor::error::Error,
    m: &gregor::message::Message,
    o: &Options,
    eof_done: impl FnOnce() -> bool,
) -> Triage {
    if e.code() == local::PARTITION_EOF {
        let done = eof_done();
        info(
            1,
            format_args!(
                "Reached end of topic {} [{}] at offset {}{}",
                m.topic,
                m.partition,
                m.offset,
                if done { ": exiting" } else { "" }
            ),
        );
        return if done {
            Triage::Stop(Ok(0))
        } else {
            Triage::Next
        };
    }
    if e.code() == local::ALL_BROKERS_DOWN {
        if !o.keep_going {
            return Triage::Stop(Err(fatal(format!("{e}: terminating"))));
        }
        eprintln!("% ERROR: {e}");
        return Triage::Next;
    }
    if recovered_by_consumer(e) {
        info(
            RECOVERED_VERBOSITY,
            format_args!("Topic {} [{}]: retrying: {e}", m.topic, m.partition),
        );
        return Triage::Next;
    }
    Triage::Other
}

fn consumer(o: &Options) -> Result<Consumer, CliError> {
    let mut cfg = build_config(o, Some(Role::Consumer))?;
    cfg.set("enable.partition.eof", "true").map_err(fatal)?;
    Consumer::new(&cfg).map_err(fatal)
}

fn output(o: &Options) -> Result<Output, CliError> {
    let delim = parse_delim(&o.delim)?;
    let key_delim = o.key_delim.as_deref().map(parse_delim).transpose()?;
    let tokens = match &o.format {
        Some(f) if !o.json => parse_format(f)?,
        _ => default_format(key_delim.as_deref(), &delim),
    };
    Ok(Output {
        tokens,
        json: o.json,
        delim,
        null_str: o.null_empty,
    })
}

/// Runs `-C`.
///
/// # Errors
/// Bad options or configuration, an unknown topic or partition, a
/// non-retriable consumer error, all brokers down (unless `-E`).
pub fn run(o: &Options, out: &mut dyn Write) -> Result<i32, CliError> {
    let topic = o.topic.as_deref().unwrap_or_default();
    let fmt = output(o)?;
    let c = consumer(o)?;
    let md = c
        .metadata(Some(&[topic]), o.metadata_timeout)
        .map_err(|e| fatal(format!("Failed to query metadata for topic {topic}: {e}")))?;
    let t = md
        .topics
        .get(topic)
        .ok_or_else(|| fatal(format!("No such topic in cluster: {topic}")))?;
    if !t.error.is_ok() {
        return Err(fatal(format!("Topic {topic} error: {}", t.error)));
    }
    if t.partitions.is_empty() {
        return Err(fatal(format!("Topic {topic} has no partitions")));
    }
    let parts: Vec<i32> = match o.partition {
        Some(p) if t.partitions.iter().any(|x| x.id == p) => vec![p],
        Some(p) => {
            return Err(fatal(format!(
                "Topic {topic} (with partitions 0..{}): partition {p} does not exist",
                t.partitions.len() - 1
            )))
        }
        None => t.partitions.iter().map(|p| p.id).collect(),
    };
    let leaders: HashMap<i32, i32> = t.partitions.iter().map(|p| (p.id, p.leader)).collect();

    let mut tps = Vec::new();
    for &p in &parts {
        let start = match o.start {
            None => offset::BEGINNING,
            Some(Start::Offset(n)) => n,
            // -1 (no such message yet) is offset::END, as in librdkafka.
            Some(Start::Timestamp(ts)) => c
                .list_offset(topic, p, ts, o.metadata_timeout)
                .map_err(|e| fatal(format!("offsets_for_times failed: {e}")))?,
            // the committed offset of -X group.id (an error without one)
            Some(Start::Stored) => offset::STORED,
        };
        tps.push(TopicPartitionOffset::new(topic, p, start));
    }
    c.assign(&tps).map_err(fatal)?;

    let mut stopped: HashSet<i32> = HashSet::new();
    let mut received: u64 = 0;
    let mut buf = Vec::new();
    let line_buffered = o.unbuffered || std::io::stdout().is_terminal();
    let mut last_flush = Instant::now();
    let mut last_error = String::new();
    let result = loop {
        let m = match c.poll(POLL) {
            Ok(Some(m)) => m,
            Ok(None) => {
                out.flush()?;
                last_flush = Instant::now();
                continue;
            }
            Err(e) => break Err(fatal(format!("Consumer error: {e}"))),
        };
        if stopped.contains(&m.partition) {
            continue;
        }
        if let Some(e) = &m.error {
            let eof_done = || {
                if o.exit_eof {
                    stopped.insert(m.partition);
                }
                stopped.len() >= parts.len()
            };
            match triage(e, &m, o, eof_done) {
                Triage::Next => continue,
                Triage::Stop(r) => break r,
                Triage::Other => {}
            }
            if e.is_retriable() {
                // librdkafka retries these itself and only logs them (once
                // here, not once per partition).
                let text = e.to_string();
                if text != last_error {
                    info(1, format_args!("ERROR: {text}"));
                    last_error = text;
                }
                continue;
            }
            break Err(fatal(format!(
                "Topic {} [{}] error: {e}",
                m.topic, m.partition
            )));
        }
        if let Some(stop) = o.stop_ts {
            if m.timestamp >= stop {
                stopped.insert(m.partition);
                let done = stopped.len() >= parts.len();
                info(
                    1,
                    format_args!(
                        "Reached stop timestamp for topic {} [{}] at offset {}{}",
                        m.topic,
                        m.partition,
                        m.offset,
                        if done { ": exiting" } else { "" }
                    ),
                );
                if done {
                    break Ok(0);
                }
                continue;
            }
        }
        buf.clear();
        let broker = leaders.get(&m.partition).copied().unwrap_or(-1);
        fmt.render(&m, broker, &mut buf);
        out.write_all(&buf)?;
        // Flush per message when asked (-u) or for a terminal (C's line
        // buffering); else at least every FLUSH, so a trickle shows up.
        if line_buffered || last_flush.elapsed() >= FLUSH {
            out.flush()?;
            last_flush = Instant::now();
        }
        received += 1;
        if o.count == Some(received) {
            break Ok(0);
        }
    };
    out.flush()?;
    c.close();
    result
}

/// Runs `-Q`: prints `topic [partition] offset N` per query, sorted, or
/// kcat's JSON map with `-J`.
///
/// # Errors
/// Bad configuration.
pub fn query(o: &Options, out: &mut dyn Write) -> Result<i32, CliError> {
    let c = consumer(o)?;
    let mut qs = o.queries.clone();
    qs.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    let mut rc = 0;
    let mut results = Vec::new();
    for (topic, p, ts) in &qs {
        match c.list_offset(topic, *p, *ts, o.metadata_timeout) {
            Ok(off) => results.push((topic, *p, off, None)),
            Err(e) => {
                rc = 1;
                results.push((topic, *p, -1, Some(e.to_string())));
            }
        }
    }
    c.close();
    let mut s = Vec::new();
    if o.json {
        s.push(b'{');
        let mut last: Option<&String> = None;
        for (topic, p, off, err) in &results {
            if last != Some(*topic) {
                if last.is_some() {
                    s.extend_from_slice(b"},");
                }
                json_str(topic.as_bytes(), &mut s);
                s.extend_from_slice(b":{\"topic\":");
                json_str(topic.as_bytes(), &mut s);
                last = Some(*topic);
            }
            s.extend_from_slice(
                format!(",\"{p}\":{{\"partition\":{p},\"offset\":{off}").as_bytes(),
            );
            if let Some(e) = err {
                s.extend_from_slice(b",\"error\":");
                json_str(e.as_bytes(), &mut s);
            }
            s.push(b'}');
        }
        if last.is_some() {
            s.push(b'}');
        }
        s.push(b'}');
    } else {
        for (topic, p, off, err) in &results {
            s.extend_from_slice(format!("{topic} [{p}] offset {off}").as_bytes());
            if let Some(e) = err {
                s.extend_from_slice(format!(": {e}").as_bytes());
            }
            s.push(b'\n');
        }
    }
    out.write_all(&s)?;
    out.flush()?;
    Ok(rc)
}

fn partition_list(parts: &[TopicPartitionOffset]) -> String {
    parts
        .iter()
        .map(|t| format!("{} [{}]", t.topic, t.partition))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Runs `-G group topic..`: a member of a balanced consumer group (kcat's
/// KafkaConsumer mode). Rebalances are reported as kcat reports them; `-o`
/// sets where each assigned partition starts (as kcat does in its
/// rebalance callback), else the committed offset or `auto.offset.reset`;
/// with `-e` the run ends when every assigned partition reached its end.
///
/// # Errors
/// Bad options or configuration, no topics, a non-retriable consumer
/// error, all brokers down (unless `-E`).
pub fn run_group(o: &Options, out: &mut dyn Write) -> Result<i32, CliError> {
    let group = o.group.clone().unwrap_or_default();
    let mut topics: Vec<String> = o.operands.clone();
    if let Some(t) = &o.topic {
        topics.insert(0, t.clone());
    }
    if topics.is_empty() {
        return Err(CliError::Usage(
            "-G requires one or more topics to subscribe to".into(),
        ));
    }
    let fmt = output(o)?;
    let mut cfg = build_config(o, Some(Role::Consumer))?;
    cfg.set("enable.partition.eof", "true").map_err(fatal)?;
    cfg.set("group.id", &group).map_err(fatal)?;
    let c = Consumer::new(&cfg).map_err(fatal)?;
    let start = o.start;
    let timeout = o.metadata_timeout;
    // the assignment as the rebalance callback leaves it, and partitions
    // that reached their end since they were assigned
    let assigned: Arc<Mutex<BTreeSet<(String, i32)>>> = Arc::default();
    let stopped: Arc<Mutex<BTreeSet<(String, i32)>>> = Arc::default();
    let (a2, s2, g2) = (assigned.clone(), stopped.clone(), group.clone());
    c.set_rebalance_callback(move |c, ev| {
        let cooperative = c.rebalance_protocol() == "COOPERATIVE";
        let (what, parts) = match &ev {
            RebalanceEvent::Assigned(p) => ("assigned", p),
            RebalanceEvent::Revoked(p) | RebalanceEvent::Lost(p) => ("revoked", p),
        };
        info(
            1,
            format_args!(
                "Group {g2} rebalanced (memberid {}): {what}: {}",
                c.member_id(),
                partition_list(parts)
            ),
        );
        let mut a = a2.lock().unwrap_or_else(|e| e.into_inner());
        let mut st = s2.lock().unwrap_or_else(|e| e.into_inner());
        match &ev {
            RebalanceEvent::Assigned(p) => {
                let at: Vec<TopicPartitionOffset> = p
                    .iter()
                    .map(|t| {
                        let off = match start {
                            None | Some(Start::Stored) => offset::INVALID,
                            Some(Start::Offset(n)) => n,
                            Some(Start::Timestamp(ts)) => c
                                .list_offset(&t.topic, t.partition, ts, timeout)
                                .unwrap_or(offset::END),
                        };
                        TopicPartitionOffset::new(&t.topic, t.partition, off)
                    })
                    .collect();
                if !cooperative {
                    a.clear();
                    st.clear();
                }
                for t in &at {
                    a.insert((t.topic.clone(), t.partition));
                    st.remove(&(t.topic.clone(), t.partition));
                }
                let r = if cooperative {
                    c.incremental_assign(&at)
                } else {
                    c.assign(&at)
                };
                if let Err(e) = r {
                    eprintln!("% ERROR: assign failed: {e}");
                }
            }
            RebalanceEvent::Revoked(p) | RebalanceEvent::Lost(p) => {
                for t in p {
                    a.remove(&(t.topic.clone(), t.partition));
                    st.remove(&(t.topic.clone(), t.partition));
                }
                let r = if cooperative {
                    c.incremental_unassign(p)
                } else {
                    c.unassign()
                };
                if let Err(e) = r {
                    eprintln!("% ERROR: unassign failed: {e}");
                }
            }
        }
    });
    let names: Vec<&str> = topics.iter().map(String::as_str).collect();
    c.subscribe(&names).map_err(fatal)?;
    info(1, format_args!("Waiting for group rebalance"));

    let mut received: u64 = 0;
    let mut buf = Vec::new();
    let line_buffered = o.unbuffered || std::io::stdout().is_terminal();
    let mut last_flush = Instant::now();
    let mut last_error = String::new();
    let result = loop {
        let m = match c.poll(POLL) {
            Ok(Some(m)) => m,
            Ok(None) => {
                out.flush()?;
                last_flush = Instant::now();
                continue;
            }
            Err(e) => break Err(fatal(format!("Consumer error: {e}"))),
        };
        let key = (m.topic.to_string(), m.partition);
        if stopped
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains(&key)
        {
            continue;
        }
        if let Some(e) = &m.error {
            let eof_done = || {
                let mut st = stopped.lock().unwrap_or_else(|e| e.into_inner());
                if o.exit_eof {
                    st.insert(key);
                }
                let a = assigned.lock().unwrap_or_else(|e| e.into_inner());
                o.exit_eof && !a.is_empty() && a.iter().all(|k| st.contains(k))
            };
            match triage(e, &m, o, eof_done) {
                Triage::Next => continue,
                Triage::Stop(r) => break r,
                Triage::Other => {}
            }
            // group and partition errors are reported, and consuming goes
            // on, as kcat's KafkaConsumer mode does
            let text = e.to_string();
            if text != last_error {
                eprintln!("% ERROR: Consumer error: {text}");
                last_error = text;
            }
            continue;
        }
        buf.clear();
        let broker = c.cached_leader(&m.topic, m.partition).unwrap_or(-1);
        fmt.render(&m, broker, &mut buf);
        out.write_all(&buf)?;
        if line_buffered || last_flush.elapsed() >= FLUSH {
            out.flush()?;
            last_flush = Instant::now();
        }
        received += 1;
        if o.count == Some(received) {
            break Ok(0);
        }
    };
    out.flush()?;
    // commits (enable.auto.commit), revokes through the callback, leaves
    c.close();
    result
}
