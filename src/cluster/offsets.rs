//! ListOffsets on the partitions' leaders, for every kind of client: a
//! consumer's start offsets, `offsets_for_times` and watermarks, and the
//! watermarks a producer asks for (librdkafka's
//! `rd_kafka_query_watermark_offsets` takes any handle).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Instant;

use super::{Cluster, Purpose};
use crate::error::{local, Error, Result};
use crate::protocol::list_offsets::{ListOffsetsPartition, ListOffsetsRequest, ListOffsetsTopic};
use crate::protocol::{ErrorAction, KafkaCode};

/// ListOffsets' timestamp for the log start offset (the low watermark).
pub(crate) const EARLIEST: i64 = -2;
/// ListOffsets' timestamp for the end of the log (the high watermark, or
/// the last stable offset under read_committed).
pub(crate) const LATEST: i64 = -1;

/// One answer of offsets for times: the offset found and its leader
/// epoch if known, or the entry's error.
pub type OffsetForTime = Result<(i64, Option<i32>)>;

/// A partition: topic name and index.
pub(crate) type Tp = (Arc<str>, i32);

/// ListOffsets for each (partition, timestamp): `-2` earliest, `-1` latest
/// (the last stable offset under read_committed), else the first offset at
/// or after the timestamp (-1 if none). One request per leader and
/// timestamp kind, all in flight at once. Answers (offset, leader epoch) per
/// query.
pub(crate) fn list_offsets(
    cluster: &Cluster,
    read_committed: bool,
    queries: &[(Tp, i64)],
    deadline: Instant,
) -> HashMap<(Tp, i64), Result<(i64, i32)>> {
    let mut out = HashMap::new();
    // one request may name a partition once: split by leader and round
    // (leader, round) -> (partition, timestamp, leader epoch)
    type Query = (Tp, i64, i32);
    let mut groups: BTreeMap<(i32, usize), Vec<Query>> = BTreeMap::new();
    let mut rounds: HashMap<(i32, Tp), usize> = HashMap::new();
    for (tp, ts) in queries {
        let left = deadline.saturating_duration_since(Instant::now());
        match cluster.leader(&tp.0, tp.1, left) {
            Ok((leader, epoch)) => {
                let r = rounds.entry((leader, tp.clone())).or_insert(0);
                groups
                    .entry((leader, *r))
                    .or_default()
                    .push((tp.clone(), *ts, epoch));
                *r += 1;
            }
            Err(e) => {
                out.insert((tp.clone(), *ts), Err(e));
            }
        }
    }
    let mut pending = Vec::new();
    for ((leader, _), entries) in groups {
        let sent = cluster
            // not the fetch connection: a long-polling Fetch there would
            // hold the answer back for up to fetch.wait.max.ms
            .conn(leader, Purpose::Metadata)
            .and_then(|conn| {
                let version = conn.version_for::<ListOffsetsRequest>(deadline)?;
                let mut topics: Vec<ListOffsetsTopic> = Vec::new();
                for (tp, ts, epoch) in &entries {
                    if version == 0 && *ts != EARLIEST && *ts != LATEST {
                        return Err(Error::local(
                            local::UNSUPPORTED_FEATURE,
                            format!("{}: ListOffsets v0 cannot look up timestamps", conn.name()),
                        ));
                    }
                    let part = ListOffsetsPartition {
                        partition_index: tp.1,
                        current_leader_epoch: if version >= 4 { *epoch } else { -1 },
                        timestamp: *ts,
                        max_num_offsets: 1,
                        ..Default::default()
                    };
                    match topics.iter_mut().find(|t| *t.name == *tp.0) {
                        Some(t) => t.partitions.push(part),
                        None => topics.push(ListOffsetsTopic {
                            name: tp.0.to_string(),
                            partitions: vec![part],
                            ..Default::default()
                        }),
                    }
                }
                let req = ListOffsetsRequest {
                    replica_id: -1,
                    isolation_level: i8::from(read_committed && version >= 2),
                    topics,
                    ..Default::default()
                };
                Ok((
                    conn.send_at(&req, version, deadline)?,
                    version,
                    conn.name().to_string(),
                ))
            });
        pending.push((entries, sent));
    }
    for (entries, sent) in pending {
        let answer = sent.and_then(|(p, v, name)| p.wait_until(deadline).map(|r| (r, v, name)));
        match answer {
            Ok((resp, version, name)) => {
                for (tp, ts, _) in entries {
                    let p = resp
                        .topics
                        .iter()
                        .filter(|t| *t.name == *tp.0)
                        .flat_map(|t| t.partitions.iter())
                        .find(|p| p.partition_index == tp.1);
                    let r = match p {
                        None => Err(Error::local(
                            local::BAD_MSG,
                            format!("{name}: ListOffsets answer lacks {} [{}]", tp.0, tp.1),
                        )),
                        Some(p) if p.error_code != 0 => Err(Error::kafka(
                            KafkaCode(p.error_code),
                            format!("{} [{}] list offsets ({name})", tp.0, tp.1),
                        )),
                        Some(p) if version == 0 => {
                            Ok((p.old_style_offsets.first().copied().unwrap_or(-1), -1))
                        }
                        Some(p) => Ok((p.offset, p.leader_epoch)),
                    };
                    if matches!(&r, Err(e) if e.kafka_code().map(KafkaCode::action) == Some(ErrorAction::RefreshMetadataAndRetry))
                    {
                        cluster.invalidate(&tp.0);
                    }
                    out.insert((tp, ts), r);
                }
            }
            Err(e) => {
                for (tp, ts, _) in entries {
                    cluster.invalidate(&tp.0);
                    out.insert((tp, ts), Err(e.clone()));
                }
            }
        }
    }
    out
}

/// The low and high watermarks of a partition, asked of its leader (the
/// high one is the last stable offset under read_committed), within
/// `deadline`.
///
/// # Errors
/// Broker and network errors; `_TIMED_OUT` when the leader has not
/// answered by the deadline.
pub(crate) fn watermarks(
    cluster: &Cluster,
    read_committed: bool,
    topic: &str,
    partition: i32,
    deadline: Instant,
) -> Result<(i64, i64)> {
    let key: Tp = (Arc::from(topic), partition);
    let queries = [(key.clone(), EARLIEST), (key.clone(), LATEST)];
    let mut found = list_offsets(cluster, read_committed, &queries, deadline);
    let mut take = |ts| {
        found
            .remove(&(key.clone(), ts))
            .unwrap_or_else(|| Err(Error::timed_out("watermarks")))
            .map(|x| x.0)
    };
    let lo = take(EARLIEST)?;
    let hi = take(LATEST)?;
    Ok((lo, hi))
}

/// The first offset whose timestamp is at or after each (topic,
/// partition, timestamp), with its leader epoch if known, or the entry's
/// error (`_TIMED_OUT` for one not answered in time): librdkafka's
/// `rd_kafka_offsets_for_times`, for any client (a producer's too, as
/// kcat's `-Q` asks through one). `read_committed` answers below the last
/// stable offset.
///
/// # Errors
/// `_INVALID_ARG` for an entry without a topic or with a negative partition.
pub(crate) fn offsets_for_times(
    cluster: &Cluster,
    read_committed: bool,
    entries: &[(&str, i32, i64)],
    timeout: std::time::Duration,
) -> Result<Vec<OffsetForTime>> {
    if let Some((topic, partition, _)) = entries.iter().find(|(t, p, _)| *p < 0 || t.is_empty()) {
        return Err(Error::invalid_arg(format!(
            "{topic:?} [{partition}]: invalid topic or partition"
        )));
    }
    let queries: Vec<(Tp, i64)> = entries
        .iter()
        .map(|(t, p, ts)| ((Arc::from(*t), *p), *ts))
        .collect();
    let found = list_offsets(cluster, read_committed, &queries, Instant::now() + timeout);
    Ok(queries
        .iter()
        .map(|q| match found.get(q) {
            Some(Ok((o, epoch))) => Ok((*o, (*epoch >= 0).then_some(*epoch))),
            Some(Err(e)) => Err(e.clone()),
            None => Err(Error::timed_out("offsets for times")),
        })
        .collect())
}
