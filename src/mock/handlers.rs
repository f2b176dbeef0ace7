//! The data-plane and admin APIs: Metadata, Produce, Fetch, ListOffsets,
//! OffsetForLeaderEpoch, FindCoordinator, and the topic / config / cluster
//! admin requests. Each handler takes its decoded request and returns the
//! response (`None` for a Produce with acks=0, which Kafka never answers).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use super::ctx::Ctx;
use super::state::{valid_topic_name, FetchSession, Partition, State, StoredBatch};
use crate::protocol::create_partitions::*;
use crate::protocol::create_topics::*;
use crate::protocol::delete_records::*;
use crate::protocol::delete_topics::*;
use crate::protocol::describe_cluster::*;
use crate::protocol::describe_configs::*;
use crate::protocol::fetch::{self, FetchRequest, FetchResponse};
use crate::protocol::find_coordinator::*;
use crate::protocol::incremental_alter_configs::*;
use crate::protocol::list_offsets::*;
use crate::protocol::metadata::*;
use crate::protocol::offset_for_leader_epoch::*;
use crate::protocol::produce::*;
use crate::protocol::KafkaCode;
use crate::record::crc32c::crc32c;
use crate::wire::{Bytes, Uuid};

/// Kafka's `max.incremental.fetch.session.cache.slots` default.
const MAX_FETCH_SESSIONS: usize = 1000;

/// Kafka's own cap on a Fetch's wait (a client asking more waits this long).
const MAX_FETCH_WAIT: Duration = Duration::from_secs(30);

/// The partition `p` of `topic`, if both exist.
fn part<'a>(st: &'a State, topic: &str, p: i32) -> Option<&'a Partition> {
    st.topics
        .get(topic)
        .and_then(|t| usize::try_from(p).ok().and_then(|i| t.partitions.get(i)))
}

/// Creates `name` with the default partition count and replication.
fn auto_create(st: &mut State, name: &str) {
    let replicas = (0..st.default_partitions)
        .map(|p| st.place(p, st.default_replication))
        .collect();
    st.add_topic(name, replicas, BTreeMap::new());
}

pub(crate) fn metadata(ctx: &Ctx<'_>, req: MetadataRequest) -> Option<MetadataResponse> {
    let v = ctx.version;
    // KIP-1102: an injected REBOOTSTRAP_REQUIRED is the whole answer of a
    // v13+ request, in its top-level error code (other injected errors go
    // to every topic, as before v13)
    if v >= 13 && ctx.inject == Some(KafkaCode::REBOOTSTRAP_REQUIRED.0) {
        return Some(MetadataResponse {
            error_code: KafkaCode::REBOOTSTRAP_REQUIRED.0,
            ..Default::default()
        });
    }
    let mut st = ctx.shared.lock();
    // v0 has no null: an empty list means every topic; v1+ null means every topic.
    let wanted: Option<Vec<MetadataRequestTopic>> = match req.topics {
        Some(t) if !(t.is_empty() && v == 0) => Some(t),
        _ => None,
    };
    let allow_create = v < 4 || req.allow_auto_topic_creation;
    let mut names: Vec<(Option<String>, Uuid)> = Vec::new();
    match &wanted {
        None => names.extend(st.topics.keys().map(|n| (Some(n.clone()), Uuid::ZERO))),
        Some(ts) => {
            for t in ts {
                let name = match &t.name {
                    Some(n) => Some(n.clone()),
                    None => st.topic_by_id(&t.topic_id).map(|(n, _)| n.clone()),
                };
                names.push((name, t.topic_id));
            }
        }
    }
    let mut topics = Vec::new();
    for (name, id) in names {
        let Some(name) = name else {
            topics.push(MetadataResponseTopic {
                error_code: KafkaCode::UNKNOWN_TOPIC_ID.0,
                name: None,
                topic_id: id,
                ..Default::default()
            });
            continue;
        };
        if !st.topics.contains_key(&name) {
            let err = if !valid_topic_name(&name) {
                KafkaCode::INVALID_TOPIC_EXCEPTION.0
            } else if st.auto_create && allow_create && ctx.inject.is_none() {
                auto_create(&mut st, &name);
                KafkaCode::NONE.0
            } else {
                KafkaCode::UNKNOWN_TOPIC_OR_PARTITION.0
            };
            if err != KafkaCode::NONE.0 {
                topics.push(MetadataResponseTopic {
                    error_code: err,
                    name: Some(name),
                    ..Default::default()
                });
                continue;
            }
        }
        let t = &st.topics[&name];
        topics.push(MetadataResponseTopic {
            error_code: ctx.inject.unwrap_or(KafkaCode::NONE.0),
            name: Some(name.clone()),
            topic_id: if v >= 10 { t.id } else { Uuid::ZERO },
            partitions: t
                .partitions
                .iter()
                .enumerate()
                .map(|(i, p)| MetadataResponsePartition {
                    error_code: if p.leader == -1 {
                        KafkaCode::LEADER_NOT_AVAILABLE.0
                    } else {
                        KafkaCode::NONE.0
                    },
                    partition_index: i as i32,
                    leader_id: p.leader,
                    leader_epoch: p.leader_epoch,
                    replica_nodes: p.replicas.clone(),
                    isr_nodes: p.replicas.clone(),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        });
    }
    let brokers = st
        .brokers
        .iter()
        .filter(|b| b.up)
        .map(|b| MetadataResponseBroker {
            node_id: b.id,
            host: "127.0.0.1".into(),
            port: i32::from(b.port),
            rack: b.rack.clone(),
            ..Default::default()
        })
        .collect();
    let controller_id = st.brokers.iter().find(|b| b.up).map_or(-1, |b| b.id);
    drop(st);
    ctx.shared.changed.notify_all();
    Some(MetadataResponse {
        brokers,
        cluster_id: Some(ctx.shared.lock().cluster_id.clone()),
        controller_id,
        topics,
        ..Default::default()
    })
}

/// The fields of a record batch header (magic 2) the mock needs.
struct BatchHeader {
    len: usize,
    attributes: i16,
    last_offset_delta: i32,
    max_timestamp: i64,
    producer_id: i64,
    producer_epoch: i16,
    base_sequence: i32,
    count: i32,
}

fn be_i16(b: &[u8], at: usize) -> i16 {
    i16::from_be_bytes([b[at], b[at + 1]])
}
fn be_i32(b: &[u8], at: usize) -> i32 {
    i32::from_be_bytes(b[at..at + 4].try_into().unwrap_or([0; 4]))
}
fn be_i64(b: &[u8], at: usize) -> i64 {
    i64::from_be_bytes(b[at..at + 8].try_into().unwrap_or([0; 8]))
}

/// Checks that `b` is exactly one well-formed record batch (magic 2, CRC-32C
/// over attributes..end, as KIP-98's format defines) and reads its header.
fn parse_batch(b: &[u8]) -> Result<BatchHeader, i16> {
    const HEADER: usize = crate::record::batch::HEADER_LEN;
    if b.len() < HEADER {
        return Err(KafkaCode::CORRUPT_MESSAGE.0);
    }
    let batch_len = usize::try_from(be_i32(b, 8)).map_err(|_| KafkaCode::CORRUPT_MESSAGE.0)?;
    let len = batch_len + 12;
    if b[16] != 2 {
        return Err(43); // UNSUPPORTED_FOR_MESSAGE_FORMAT
    }
    if len != b.len() {
        // Produce v3+ carries exactly one batch per partition: Kafka answers
        // INVALID_RECORD (87) otherwise, CORRUPT_MESSAGE for a short one.
        return Err(if len < b.len() {
            87
        } else {
            KafkaCode::CORRUPT_MESSAGE.0
        });
    }
    if crc32c(&b[21..len]) != be_i32(b, 17) as u32 {
        return Err(KafkaCode::CORRUPT_MESSAGE.0);
    }
    let h = BatchHeader {
        len,
        attributes: be_i16(b, 21),
        last_offset_delta: be_i32(b, 23),
        max_timestamp: be_i64(b, 35),
        producer_id: be_i64(b, 43),
        producer_epoch: be_i16(b, 51),
        base_sequence: be_i32(b, 53),
        count: be_i32(b, 57),
    };
    if h.count < 1 || h.last_offset_delta != h.count - 1 {
        return Err(KafkaCode::CORRUPT_MESSAGE.0);
    }
    Ok(h)
}

/// Kafka's sequence check (KIP-98): `Ok(Some(offset))` for a duplicate of
/// one of the producer's last five batches (acknowledged again at its first
/// offset, not appended), `Ok(None)` to append.
fn check_sequence(p: &Partition, h: &BatchHeader) -> Result<Option<i64>, i16> {
    if h.producer_id < 0 {
        return Ok(None);
    }
    let Some(ps) = p.producers.get(&h.producer_id) else {
        // No state for this producer (new, or its records were deleted):
        // Kafka accepts any sequence.
        return Ok(None);
    };
    if h.producer_epoch < ps.epoch {
        return Err(KafkaCode::INVALID_PRODUCER_EPOCH.0);
    }
    if h.producer_epoch > ps.epoch {
        return if h.base_sequence == 0 {
            Ok(None)
        } else {
            Err(KafkaCode::OUT_OF_ORDER_SEQUENCE_NUMBER.0)
        };
    }
    let last_seq = h.base_sequence.wrapping_add(h.count - 1);
    if let Some(&(_, _, off)) = ps
        .recent
        .iter()
        .find(|(f, l, _)| *f == h.base_sequence && *l == last_seq)
    {
        return Ok(Some(off));
    }
    let Some(&(_, prev_last, _)) = ps.recent.back() else {
        return Ok(None);
    };
    let next = if prev_last == i32::MAX {
        0
    } else {
        prev_last + 1
    };
    if h.base_sequence == next {
        return Ok(None);
    }
    let oldest = ps.recent.front().map_or(next, |r| r.0);
    if h.base_sequence < oldest && h.base_sequence >= 0 && h.base_sequence < next {
        Err(KafkaCode::DUPLICATE_SEQUENCE_NUMBER.0)
    } else {
        Err(KafkaCode::OUT_OF_ORDER_SEQUENCE_NUMBER.0)
    }
}

/// Appends one produced batch; returns its base offset.
fn append(p: &mut Partition, mut bytes: Vec<u8>, h: &BatchHeader) -> Result<i64, i16> {
    if let Some(off) = check_sequence(p, h)? {
        return Ok(off);
    }
    let base = p.end;
    bytes[0..8].copy_from_slice(&base.to_be_bytes());
    // The partition leader epoch is outside the CRC (it starts at attributes).
    bytes[12..16].copy_from_slice(&p.leader_epoch.to_be_bytes());
    if h.producer_id >= 0 {
        let ps = p.producers.entry(h.producer_id).or_default();
        if ps.epoch != h.producer_epoch {
            ps.recent.clear();
        }
        ps.epoch = h.producer_epoch;
        ps.recent.push_back((
            h.base_sequence,
            h.base_sequence.wrapping_add(h.count - 1),
            base,
        ));
        while ps.recent.len() > 5 {
            ps.recent.pop_front();
        }
    }
    if h.attributes & crate::record::batch::ATTR_TRANSACTIONAL != 0 && h.producer_id >= 0 {
        p.ongoing.entry(h.producer_id).or_insert(base);
    }
    p.push(StoredBatch {
        base,
        last: base + i64::from(h.last_offset_delta),
        max_timestamp: h.max_timestamp,
        bytes,
    });
    Ok(base)
}

fn leader_hint(st: &State, topic: &str, p: i32) -> (i32, i32) {
    part(st, topic, p).map_or((-1, -1), |p| (p.leader, p.leader_epoch))
}

fn endpoint(st: &State, id: i32) -> Option<(i32, String, i32, Option<String>)> {
    st.broker(id).map(|b| {
        (
            b.id,
            "127.0.0.1".to_owned(),
            i32::from(b.port),
            b.rack.clone(),
        )
    })
}

pub(crate) fn produce(ctx: &Ctx<'_>, req: ProduceRequest) -> Option<ProduceResponse> {
    let v = ctx.version;
    let mut st = ctx.shared.lock();
    let mut responses = Vec::new();
    let mut leaders = Vec::new();
    for t in req.topic_data {
        let mut prs = Vec::new();
        for pd in t.partition_data {
            let mut r = PartitionProduceResponse {
                index: pd.index,
                base_offset: -1,
                ..Default::default()
            };
            let result = match (ctx.inject, part(&st, &t.name, pd.index)) {
                (Some(e), _) => Err(e),
                (None, None) => Err(KafkaCode::UNKNOWN_TOPIC_OR_PARTITION.0),
                (None, Some(p)) if p.leader != ctx.broker => {
                    Err(KafkaCode::NOT_LEADER_OR_FOLLOWER.0)
                }
                (None, Some(_)) => {
                    let bytes = pd.records.map(Bytes::into_vec).unwrap_or_default();
                    match parse_batch(&bytes) {
                        Err(e) => Err(e),
                        Ok(h) => {
                            let _ = h.len;
                            super::txn::produce_in_txn(
                                &mut st,
                                req.transactional_id.as_deref(),
                                v,
                                &t.name,
                                pd.index,
                                h.attributes & crate::record::batch::ATTR_TRANSACTIONAL != 0,
                                h.producer_id,
                                h.producer_epoch,
                            )
                            .and_then(|()| {
                                let p = st.partition_mut(&t.name, pd.index).expect("checked");
                                append(p, bytes, &h)
                            })
                        }
                    }
                }
            };
            match result {
                Ok(base) => {
                    r.base_offset = base;
                    r.log_start_offset = part(&st, &t.name, pd.index).map_or(-1, |p| p.log_start);
                }
                Err(e) => {
                    r.error_code = e;
                    if e == KafkaCode::NOT_LEADER_OR_FOLLOWER.0 && v >= 10 {
                        // KIP-951: name the new leader so the client need not ask Metadata.
                        let (leader_id, leader_epoch) = leader_hint(&st, &t.name, pd.index);
                        r.current_leader = LeaderIdAndEpoch {
                            leader_id,
                            leader_epoch,
                            ..Default::default()
                        };
                        if !leaders.contains(&leader_id) {
                            leaders.push(leader_id);
                        }
                    }
                }
            }
            prs.push(r);
        }
        responses.push(TopicProduceResponse {
            name: t.name,
            partition_responses: prs,
            ..Default::default()
        });
    }
    let node_endpoints = leaders
        .into_iter()
        .filter_map(|id| endpoint(&st, id))
        .map(|(node_id, host, port, rack)| NodeEndpoint {
            node_id,
            host,
            port,
            rack,
            ..Default::default()
        })
        .collect();
    drop(st);
    ctx.shared.changed.notify_all();
    if req.acks == 0 {
        return None;
    }
    Some(ProduceResponse {
        responses,
        node_endpoints,
        ..Default::default()
    })
}

/// One partition's part of a Fetch, computed under the lock.
fn fetch_partition(
    st: &State,
    ctx: &Ctx<'_>,
    topic: &str,
    fp: &fetch::FetchPartition,
    read_committed: bool,
    rack: &str,
    budget: &mut usize,
) -> fetch::PartitionData {
    let mut d = fetch::PartitionData {
        partition_index: fp.partition,
        high_watermark: -1,
        last_stable_offset: -1,
        log_start_offset: -1,
        aborted_transactions: None,
        // Kafka answers an error or a redirect with empty records, not null
        // (FetchResponse.partitionResponse: MemoryRecords.EMPTY); librdkafka
        // cannot parse a null MessageSet.
        records: Some(Vec::new().into()),
        ..Default::default()
    };
    let Some(p) = part(st, topic, fp.partition) else {
        d.error_code = KafkaCode::UNKNOWN_TOPIC_OR_PARTITION.0;
        return d;
    };
    if let Some(e) = ctx.inject {
        d.error_code = e;
        return d;
    }
    // KIP-392: the follower named with set_partition_follower serves a
    // consumer's fetches (Fetch v11+ carries the consumer's rack; Kafka lets
    // such a consumer read from any in-sync replica).
    let on_follower = ctx.version >= 11 && p.follower == ctx.broker;
    if p.leader != ctx.broker && !on_follower {
        d.error_code = KafkaCode::NOT_LEADER_OR_FOLLOWER.0;
        if ctx.version >= 12 {
            d.current_leader = fetch::LeaderIdAndEpoch {
                leader_id: p.leader,
                leader_epoch: p.leader_epoch,
                ..Default::default()
            };
        }
        return d;
    }
    if fp.current_leader_epoch >= 0 && fp.current_leader_epoch < p.leader_epoch {
        d.error_code = KafkaCode::FENCED_LEADER_EPOCH.0;
        return d;
    }
    if fp.current_leader_epoch > p.leader_epoch {
        d.error_code = KafkaCode::UNKNOWN_LEADER_EPOCH.0;
        return d;
    }
    d.high_watermark = p.end;
    d.last_stable_offset = p.last_stable();
    d.log_start_offset = p.log_start;
    if ctx.version >= 11
        && !rack.is_empty()
        && p.leader == ctx.broker
        && p.follower != -1
        && p.follower != ctx.broker
    {
        // KIP-392: the leader names the preferred read replica to a consumer
        // that sent its rack, with no records (as Kafka's ReplicaManager does
        // when its replica selector picks another replica).
        d.preferred_read_replica = p.follower;
        return d;
    }
    if fp.fetch_offset < p.log_start || fp.fetch_offset > p.end {
        d.error_code = KafkaCode::OFFSET_OUT_OF_RANGE.0;
        return d;
    }
    let upper = if read_committed {
        p.last_stable()
    } else {
        p.end
    };
    let max = usize::try_from(fp.partition_max_bytes).unwrap_or(0);
    let mut out = Vec::new();
    let mut last = -1;
    for b in p
        .log
        .iter()
        .filter(|b| b.last >= fp.fetch_offset && b.base < upper)
    {
        // KIP-74: the first batch is returned even if it is over the limits.
        if !out.is_empty() && (out.len() + b.bytes.len() > max || b.bytes.len() > *budget) {
            break;
        }
        *budget = budget.saturating_sub(b.bytes.len());
        out.extend_from_slice(&b.bytes);
        last = b.last;
    }
    if read_committed {
        d.aborted_transactions = Some(
            p.aborted
                .iter()
                .filter(|(_, first, marker)| *marker >= fp.fetch_offset && *first <= last)
                .map(
                    |&(producer_id, first_offset, _)| fetch::AbortedTransaction {
                        producer_id,
                        first_offset,
                        ..Default::default()
                    },
                )
                .collect(),
        );
    }
    d.records = Some(out.into());
    d
}

/// One partition a Fetch reads: from the request, or from its fetch session.
struct Want {
    topic: Option<String>,
    topic_id: Uuid,
    fp: fetch::FetchPartition,
    /// In an incremental session: (high watermark, last stable offset, log
    /// start) last sent, `None` for a partition the client just added.
    last: Option<(i64, i64, i64)>,
}

/// Sets up the fetch session (KIP-227) the request names and returns the
/// partitions to read, the session ID to answer with and whether the
/// answer is incremental; or a top-level error code.
fn session_wants(
    st: &mut State,
    ctx: &Ctx<'_>,
    req: &FetchRequest,
) -> Result<(Vec<Want>, i32, bool), i16> {
    let name_of = |st: &State, t: &fetch::FetchTopic| {
        if ctx.version >= 13 {
            st.topic_by_id(&t.topic_id).map(|(n, _)| n.clone())
        } else {
            Some(t.topic.clone())
        }
    };
    let from_request = |st: &State| -> Vec<Want> {
        req.topics
            .iter()
            .flat_map(|t| {
                let name = name_of(st, t);
                t.partitions.iter().map(move |fp| Want {
                    topic: name.clone(),
                    topic_id: t.topic_id,
                    fp: fp.clone(),
                    last: None,
                })
            })
            .collect()
    };
    // Session ID 0, epoch -1: a full fetch outside any session. A session ID
    // with epoch -1 closes that session (and is a full fetch too).
    if req.session_epoch == -1 {
        if req.session_id != 0 {
            st.fetch_sessions.remove(&req.session_id);
        }
        return Ok((from_request(st), 0, false));
    }
    if req.session_epoch == 0 {
        // A new session (replacing the one named, if any).
        if req.session_id != 0 {
            st.fetch_sessions.remove(&req.session_id);
        }
        if st.fetch_sessions.len() >= MAX_FETCH_SESSIONS {
            // Kafka's answer when its session cache is full: a full fetch,
            // session ID 0 (no session).
            return Ok((from_request(st), 0, false));
        }
        let mut id = 0;
        while id == 0 || st.fetch_sessions.contains_key(&id) {
            id = (super::state::random_u64() & 0x7fff_ffff) as i32;
        }
        let mut sess = FetchSession {
            broker: ctx.broker,
            next_epoch: 1,
            parts: BTreeMap::new(),
        };
        let wants = from_request(st);
        for w in &wants {
            if let Some(t) = &w.topic {
                sess.parts.insert(
                    (t.clone(), w.fp.partition),
                    (w.topic_id, w.fp.clone(), (-1, -1, -1)),
                );
            }
        }
        st.fetch_sessions.insert(id, sess);
        return Ok((wants, id, false));
    }
    let Some(sess) = st.fetch_sessions.get(&req.session_id) else {
        return Err(70); // FETCH_SESSION_ID_NOT_FOUND
    };
    if sess.broker != ctx.broker {
        return Err(70);
    }
    if sess.next_epoch != req.session_epoch {
        return Err(71); // INVALID_FETCH_SESSION_EPOCH
    }
    // Forgotten partitions leave; the ones in the request are added or updated.
    let mut updates = Vec::new();
    for t in &req.topics {
        let Some(name) = name_of(st, t) else { continue };
        for fp in &t.partitions {
            updates.push((name.clone(), t.topic_id, fp.clone()));
        }
    }
    let forgotten: Vec<(String, i32)> = req
        .forgotten_topics_data
        .iter()
        .flat_map(|f| {
            let name = if ctx.version >= 13 {
                st.topic_by_id(&f.topic_id).map(|(n, _)| n.clone())
            } else {
                Some(f.topic.clone())
            };
            f.partitions
                .iter()
                .filter_map(move |p| name.clone().map(|n| (n, *p)))
        })
        .collect();
    let sess = st.fetch_sessions.get_mut(&req.session_id).expect("checked");
    for k in forgotten {
        sess.parts.remove(&k);
    }
    for (name, id, fp) in updates {
        let last = sess
            .parts
            .get(&(name.clone(), fp.partition))
            .map_or((-1, -1, -1), |p| p.2);
        sess.parts.insert((name, fp.partition), (id, fp, last));
    }
    sess.next_epoch = if sess.next_epoch == i32::MAX {
        1
    } else {
        sess.next_epoch + 1
    };
    let wants = sess
        .parts
        .iter()
        .map(|((t, _), (id, fp, last))| Want {
            topic: Some(t.clone()),
            topic_id: *id,
            fp: fp.clone(),
            last: Some(*last),
        })
        .collect();
    Ok((wants, req.session_id, true))
}

pub(crate) fn fetch(ctx: &Ctx<'_>, req: FetchRequest) -> Option<FetchResponse> {
    let read_committed = req.isolation_level == 1;
    let wait =
        Duration::from_millis(u64::try_from(req.max_wait_ms).unwrap_or(0)).min(MAX_FETCH_WAIT);
    let deadline = Instant::now() + wait;
    let mut st = ctx.shared.lock();
    let (wants, session_id, incremental) = match session_wants(&mut st, ctx, &req) {
        Ok(w) => w,
        Err(error_code) => {
            return Some(FetchResponse {
                error_code,
                ..Default::default()
            })
        }
    };
    loop {
        let mut budget = usize::try_from(req.max_bytes).unwrap_or(0);
        let mut total = 0usize;
        let mut any_error = false;
        let mut leaders = Vec::new();
        let mut datas = Vec::new();
        for w in &wants {
            let d = match &w.topic {
                Some(n) => fetch_partition(
                    &st,
                    ctx,
                    n,
                    &w.fp,
                    read_committed,
                    &req.rack_id,
                    &mut budget,
                ),
                None => fetch::PartitionData {
                    partition_index: w.fp.partition,
                    error_code: KafkaCode::UNKNOWN_TOPIC_ID.0,
                    high_watermark: -1,
                    records: Some(Vec::new().into()),
                    ..Default::default()
                },
            };
            let records = d.records.as_ref().map_or(0, |r| r.len());
            total += records;
            // A redirect to the preferred read replica is answered at once.
            if d.error_code != KafkaCode::NONE.0 || d.preferred_read_replica != -1 {
                any_error = true;
                if d.error_code == KafkaCode::NOT_LEADER_OR_FOLLOWER.0
                    && !leaders.contains(&d.current_leader.leader_id)
                {
                    leaders.push(d.current_leader.leader_id);
                }
            }
            // An incremental answer carries only what changed (KIP-227).
            let now = (d.high_watermark, d.last_stable_offset, d.log_start_offset);
            let include = !incremental
                || records > 0
                || d.error_code != KafkaCode::NONE.0
                || w.last != Some(now);
            datas.push((include, d));
        }
        let now = Instant::now();
        let enough = total > 0 && total >= usize::try_from(req.min_bytes).unwrap_or(0);
        if !(enough || any_error || now >= deadline || st.shutdown) {
            st = ctx
                .shared
                .changed
                .wait_timeout(st, deadline - now)
                .map(|(g, _)| g)
                .unwrap_or_else(|e| e.into_inner().0);
            continue;
        }
        let mut responses: Vec<fetch::FetchableTopicResponse> = Vec::new();
        let mut sent = Vec::new();
        for (w, (include, d)) in wants.iter().zip(datas) {
            if !include {
                continue;
            }
            if let Some(t) = &w.topic {
                sent.push((
                    (t.clone(), w.fp.partition),
                    (d.high_watermark, d.last_stable_offset, d.log_start_offset),
                ));
            }
            let name = if ctx.version >= 13 {
                String::new()
            } else {
                w.topic.clone().unwrap_or_default()
            };
            let id = if ctx.version >= 13 {
                w.topic_id
            } else {
                Uuid::ZERO
            };
            let same_topic = responses
                .last()
                .is_some_and(|r| r.topic == name && r.topic_id == id);
            if same_topic {
                responses.last_mut().expect("checked").partitions.push(d);
            } else {
                responses.push(fetch::FetchableTopicResponse {
                    topic: name,
                    topic_id: id,
                    partitions: vec![d],
                    ..Default::default()
                });
            }
        }
        if let Some(sess) = st.fetch_sessions.get_mut(&session_id) {
            for (k, v) in sent {
                if let Some(p) = sess.parts.get_mut(&k) {
                    p.2 = v;
                }
            }
        }
        let node_endpoints = if ctx.version >= 16 {
            leaders
                .into_iter()
                .filter_map(|id| endpoint(&st, id))
                .map(|(node_id, host, port, rack)| fetch::NodeEndpoint {
                    node_id,
                    host,
                    port,
                    rack,
                    ..Default::default()
                })
                .collect()
        } else {
            Vec::new()
        };
        return Some(FetchResponse {
            session_id,
            responses,
            node_endpoints,
            ..Default::default()
        });
    }
}

/// The first offset whose record has a timestamp ≥ `ts`, and that timestamp.
fn offset_for_time(p: &Partition, ts: i64) -> Option<(i64, i64)> {
    let opts = crate::record::DecodeOptions::default();
    for b in p.log.iter().filter(|b| b.max_timestamp >= ts) {
        let bytes: Bytes = b.bytes.clone().into();
        if let Ok((batch, _)) = crate::record::RecordBatch::decode(&bytes, &opts) {
            if batch.is_control {
                continue;
            }
            if let Some(r) = batch.records.iter().find(|r| r.timestamp >= ts) {
                return Some((r.offset, r.timestamp));
            }
        }
    }
    None
}

/// The offset of the record with the largest timestamp (KIP-734).
fn max_timestamp_offset(p: &Partition) -> Option<(i64, i64)> {
    let opts = crate::record::DecodeOptions::default();
    let mut best: Option<(i64, i64)> = None;
    for b in &p.log {
        let bytes: Bytes = b.bytes.clone().into();
        if let Ok((batch, _)) = crate::record::RecordBatch::decode(&bytes, &opts) {
            for r in batch.records.iter().filter(|_| !batch.is_control) {
                if best.is_none_or(|(_, t)| r.timestamp > t) {
                    best = Some((r.offset, r.timestamp));
                }
            }
        }
    }
    best
}

pub(crate) fn list_offsets(ctx: &Ctx<'_>, req: ListOffsetsRequest) -> Option<ListOffsetsResponse> {
    let st = ctx.shared.lock();
    let topics = req
        .topics
        .into_iter()
        .map(|t| ListOffsetsTopicResponse {
            partitions: t
                .partitions
                .iter()
                .map(|lp| {
                    let mut r = ListOffsetsPartitionResponse {
                        partition_index: lp.partition_index,
                        timestamp: -1,
                        offset: -1,
                        leader_epoch: -1,
                        ..Default::default()
                    };
                    let p = match (ctx.inject, part(&st, &t.name, lp.partition_index)) {
                        (Some(e), _) => {
                            r.error_code = e;
                            return r;
                        }
                        (None, None) => {
                            r.error_code = KafkaCode::UNKNOWN_TOPIC_OR_PARTITION.0;
                            return r;
                        }
                        (None, Some(p)) => p,
                    };
                    if p.leader != ctx.broker {
                        r.error_code = KafkaCode::NOT_LEADER_OR_FOLLOWER.0;
                        return r;
                    }
                    if lp.current_leader_epoch >= 0 && lp.current_leader_epoch < p.leader_epoch {
                        r.error_code = KafkaCode::FENCED_LEADER_EPOCH.0;
                        return r;
                    }
                    let found = match lp.timestamp {
                        -1 if req.isolation_level == 1 => Some((p.last_stable(), -1)),
                        -1 => Some((p.end, -1)),
                        -2 => Some((p.log_start, -1)),
                        -3 => max_timestamp_offset(p),
                        ts => offset_for_time(p, ts),
                    };
                    let (offset, timestamp) = found.unwrap_or((-1, -1));
                    r.offset = offset;
                    r.timestamp = timestamp;
                    r.leader_epoch = p.leader_epoch;
                    if ctx.version == 0 {
                        r.old_style_offsets = if offset >= 0 {
                            vec![offset]
                        } else {
                            Vec::new()
                        };
                    }
                    r
                })
                .collect(),
            name: t.name,
            ..Default::default()
        })
        .collect();
    Some(ListOffsetsResponse {
        topics,
        ..Default::default()
    })
}

pub(crate) fn offset_for_leader_epoch(
    ctx: &Ctx<'_>,
    req: OffsetForLeaderEpochRequest,
) -> Option<OffsetForLeaderEpochResponse> {
    let st = ctx.shared.lock();
    let topics = req
        .topics
        .into_iter()
        .map(|t| OffsetForLeaderTopicResult {
            partitions: t
                .partitions
                .iter()
                .map(|op| {
                    let mut r = EpochEndOffset {
                        partition: op.partition,
                        leader_epoch: -1,
                        end_offset: -1,
                        ..Default::default()
                    };
                    let Some(p) = part(&st, &t.topic, op.partition) else {
                        r.error_code = KafkaCode::UNKNOWN_TOPIC_OR_PARTITION.0;
                        return r;
                    };
                    r.error_code = if let Some(e) = ctx.inject {
                        e
                    } else if p.leader != ctx.broker {
                        KafkaCode::NOT_LEADER_OR_FOLLOWER.0
                    } else if op.current_leader_epoch >= 0
                        && op.current_leader_epoch < p.leader_epoch
                    {
                        KafkaCode::FENCED_LEADER_EPOCH.0
                    } else if op.current_leader_epoch > p.leader_epoch {
                        KafkaCode::UNKNOWN_LEADER_EPOCH.0
                    } else {
                        KafkaCode::NONE.0
                    };
                    if r.error_code != KafkaCode::NONE.0 {
                        return r;
                    }
                    // The largest epoch ≤ the one asked for, and where the next one starts
                    // (KIP-101 / KIP-320).
                    let i = p.epochs.iter().rposition(|(e, _)| *e <= op.leader_epoch);
                    if let Some(i) = i {
                        r.leader_epoch = p.epochs[i].0;
                        r.end_offset = p.epochs.get(i + 1).map_or(p.end, |n| n.1);
                    }
                    r
                })
                .collect(),
            topic: t.topic,
            ..Default::default()
        })
        .collect();
    Some(OffsetForLeaderEpochResponse {
        topics,
        ..Default::default()
    })
}

pub(crate) fn find_coordinator(
    ctx: &Ctx<'_>,
    req: FindCoordinatorRequest,
) -> Option<FindCoordinatorResponse> {
    let st = ctx.shared.lock();
    let one = |key: &str| -> (i16, i32, String, i32) {
        if let Some(e) = ctx.inject {
            return (e, -1, String::new(), -1);
        }
        if req.key_type > 1 {
            return (KafkaCode::INVALID_REQUEST.0, -1, String::new(), -1);
        }
        let id = st.coordinator(req.key_type, key);
        match st.broker(id) {
            Some(b) if b.up => (KafkaCode::NONE.0, id, "127.0.0.1".into(), i32::from(b.port)),
            _ => (
                KafkaCode::COORDINATOR_NOT_AVAILABLE.0,
                -1,
                String::new(),
                -1,
            ),
        }
    };
    if ctx.version >= 4 {
        let coordinators = req
            .coordinator_keys
            .iter()
            .map(|k| {
                let (error_code, node_id, host, port) = one(k);
                Coordinator {
                    key: k.clone(),
                    node_id,
                    host,
                    port,
                    error_code,
                    error_message: None,
                    ..Default::default()
                }
            })
            .collect();
        return Some(FindCoordinatorResponse {
            coordinators,
            ..Default::default()
        });
    }
    let (error_code, node_id, host, port) = one(&req.key);
    Some(FindCoordinatorResponse {
        error_code,
        error_message: None,
        node_id,
        host,
        port,
        ..Default::default()
    })
}

pub(crate) fn create_topics(
    ctx: &Ctx<'_>,
    req: CreateTopicsRequest,
) -> Option<CreateTopicsResponse> {
    let mut st = ctx.shared.lock();
    let n = st.brokers.len();
    let mut topics = Vec::new();
    for t in req.topics {
        let mut r = CreatableTopicResult {
            name: t.name.clone(),
            error_message: None,
            configs: None,
            ..Default::default()
        };
        let partitions = if t.num_partitions == -1 && t.assignments.is_empty() {
            st.default_partitions
        } else if !t.assignments.is_empty() {
            t.assignments.len() as i32
        } else {
            t.num_partitions
        };
        let replication = if t.replication_factor == -1 {
            if t.assignments.is_empty() {
                st.default_replication
            } else {
                t.assignments[0].broker_ids.len() as i16
            }
        } else {
            t.replication_factor
        };
        let error = if let Some(e) = ctx.inject {
            Some((e, "injected".to_owned()))
        } else if !valid_topic_name(&t.name) {
            Some((
                KafkaCode::INVALID_TOPIC_EXCEPTION.0,
                format!("bad topic name {:?}", t.name),
            ))
        } else if st.topics.contains_key(&t.name) {
            Some((
                KafkaCode::TOPIC_ALREADY_EXISTS.0,
                format!("Topic '{}' already exists.", t.name),
            ))
        } else if !(1..=100_000).contains(&partitions) {
            Some((
                KafkaCode::INVALID_PARTITIONS.0,
                "Number of partitions must be larger than 0.".into(),
            ))
        } else if replication < 1 || replication as usize > n {
            Some((
                KafkaCode::INVALID_REPLICATION_FACTOR.0,
                format!("Replication factor: {replication} larger than available brokers: {n}."),
            ))
        } else if t.assignments.iter().any(|a| {
            a.broker_ids.is_empty() || a.broker_ids.iter().any(|b| st.broker(*b).is_none())
        }) {
            Some((
                KafkaCode::INVALID_REQUEST.0,
                "assignment names an unknown broker".into(),
            ))
        } else {
            None
        };
        if let Some((e, m)) = error {
            r.error_code = e;
            r.error_message = Some(m);
        } else {
            r.num_partitions = partitions;
            r.replication_factor = replication;
            if ctx.version >= 5 {
                r.configs = Some(Vec::new());
            }
            if !req.validate_only {
                let replicas = if t.assignments.is_empty() {
                    (0..partitions).map(|p| st.place(p, replication)).collect()
                } else {
                    let mut a = t.assignments.clone();
                    a.sort_by_key(|a| a.partition_index);
                    a.into_iter().map(|a| a.broker_ids).collect()
                };
                let configs = t
                    .configs
                    .iter()
                    .filter_map(|c| c.value.clone().map(|v| (c.name.clone(), v)))
                    .collect();
                r.topic_id = st.add_topic(&t.name, replicas, configs);
            }
        }
        topics.push(r);
    }
    drop(st);
    ctx.shared.changed.notify_all();
    Some(CreateTopicsResponse {
        topics,
        ..Default::default()
    })
}

pub(crate) fn delete_topics(
    ctx: &Ctx<'_>,
    req: DeleteTopicsRequest,
) -> Option<DeleteTopicsResponse> {
    let mut st = ctx.shared.lock();
    let wanted: Vec<(Option<String>, Uuid)> = if ctx.version >= 6 {
        req.topics
            .into_iter()
            .map(|t| (t.name, t.topic_id))
            .collect()
    } else {
        req.topic_names
            .into_iter()
            .map(|n| (Some(n), Uuid::ZERO))
            .collect()
    };
    let mut responses = Vec::new();
    for (name, id) in wanted {
        let name = name.or_else(|| st.topic_by_id(&id).map(|(n, _)| n.clone()));
        let mut r = DeletableTopicResult {
            name: name.clone(),
            topic_id: id,
            ..Default::default()
        };
        r.error_code = match (ctx.inject, &name) {
            (Some(e), _) => e,
            (None, None) => KafkaCode::UNKNOWN_TOPIC_ID.0,
            (None, Some(n)) => match st.topics.remove(n) {
                Some(t) => {
                    r.topic_id = if ctx.version >= 6 { t.id } else { Uuid::ZERO };
                    KafkaCode::NONE.0
                }
                None => KafkaCode::UNKNOWN_TOPIC_OR_PARTITION.0,
            },
        };
        responses.push(r);
    }
    drop(st);
    ctx.shared.changed.notify_all();
    Some(DeleteTopicsResponse {
        responses,
        ..Default::default()
    })
}

pub(crate) fn create_partitions(
    ctx: &Ctx<'_>,
    req: CreatePartitionsRequest,
) -> Option<CreatePartitionsResponse> {
    let mut st = ctx.shared.lock();
    let mut results = Vec::new();
    for t in req.topics {
        let current = st.topics.get(&t.name).map(|t| t.partitions.len() as i32);
        let replication = st
            .topics
            .get(&t.name)
            .and_then(|t| t.partitions.first())
            .map_or(1, |p| p.replicas.len() as i16);
        let (error_code, error_message) = match (ctx.inject, current) {
            (Some(e), _) => (e, Some("injected".to_owned())),
            (None, None) => (
                KafkaCode::UNKNOWN_TOPIC_OR_PARTITION.0,
                Some("unknown topic".into()),
            ),
            (None, Some(c)) if t.count <= c || t.count > 100_000 => (
                KafkaCode::INVALID_PARTITIONS.0,
                Some(format!(
                    "Topic currently has {c} partitions, {} is not an increase.",
                    t.count
                )),
            ),
            (None, Some(c)) => {
                let extra: Vec<Vec<i32>> = match &t.assignments {
                    Some(a) => a.iter().map(|a| a.broker_ids.clone()).collect(),
                    None => (c..t.count).map(|p| st.place(p, replication)).collect(),
                };
                if extra.len() as i32 != t.count - c
                    || extra
                        .iter()
                        .any(|r| r.is_empty() || r.iter().any(|b| st.broker(*b).is_none()))
                {
                    (
                        KafkaCode::INVALID_REQUEST.0,
                        Some("bad replica assignment".into()),
                    )
                } else {
                    if !req.validate_only {
                        let topic = st.topics.get_mut(&t.name).expect("checked");
                        topic
                            .partitions
                            .extend(extra.into_iter().map(|r| Partition::new(r[0], r)));
                    }
                    (KafkaCode::NONE.0, None)
                }
            }
        };
        results.push(CreatePartitionsTopicResult {
            name: t.name,
            error_code,
            error_message,
            ..Default::default()
        });
    }
    drop(st);
    ctx.shared.changed.notify_all();
    Some(CreatePartitionsResponse {
        results,
        ..Default::default()
    })
}

pub(crate) fn delete_records(
    ctx: &Ctx<'_>,
    req: DeleteRecordsRequest,
) -> Option<DeleteRecordsResponse> {
    let mut st = ctx.shared.lock();
    let broker = ctx.broker;
    let topics = req
        .topics
        .into_iter()
        .map(|t| DeleteRecordsTopicResult {
            partitions: t
                .partitions
                .iter()
                .map(|dp| {
                    let mut r = DeleteRecordsPartitionResult {
                        partition_index: dp.partition_index,
                        low_watermark: -1,
                        ..Default::default()
                    };
                    r.error_code = match (ctx.inject, st.partition_mut(&t.name, dp.partition_index))
                    {
                        (Some(e), _) => e,
                        (None, None) => KafkaCode::UNKNOWN_TOPIC_OR_PARTITION.0,
                        (None, Some(p)) if p.leader != broker => {
                            KafkaCode::NOT_LEADER_OR_FOLLOWER.0
                        }
                        (None, Some(p)) => {
                            // -1 means up to the high watermark (DeleteRecords' contract).
                            let to = if dp.offset == -1 { p.end } else { dp.offset };
                            if to < 0 || to > p.end {
                                KafkaCode::OFFSET_OUT_OF_RANGE.0
                            } else {
                                p.log_start = p.log_start.max(to);
                                let start = p.log_start;
                                p.log.retain(|b| b.last >= start);
                                r.low_watermark = p.log_start;
                                KafkaCode::NONE.0
                            }
                        }
                    };
                    r
                })
                .collect(),
            name: t.name,
            ..Default::default()
        })
        .collect();
    Some(DeleteRecordsResponse {
        topics,
        ..Default::default()
    })
}

/// Topic configs the mock reports by default (Kafka's defaults).
const TOPIC_DEFAULTS: &[(&str, &str)] = &[
    ("cleanup.policy", "delete"),
    ("compression.type", "producer"),
    ("max.message.bytes", "1048588"),
    ("message.timestamp.type", "CreateTime"),
    ("min.insync.replicas", "1"),
    ("retention.bytes", "-1"),
    ("retention.ms", "604800000"),
    ("segment.bytes", "1073741824"),
];

pub(crate) fn describe_configs(
    ctx: &Ctx<'_>,
    req: DescribeConfigsRequest,
) -> Option<DescribeConfigsResponse> {
    let st = ctx.shared.lock();
    let results = req
        .resources
        .into_iter()
        .map(|res| {
            let mut r = DescribeConfigsResult {
                resource_type: res.resource_type,
                resource_name: res.resource_name.clone(),
                ..Default::default()
            };
            // Resource types: 2 topic, 4 broker (Kafka's ConfigResource.Type).
            let entries: Vec<(String, String, bool)> = match (ctx.inject, res.resource_type) {
                (Some(e), _) => {
                    r.error_code = e;
                    return r;
                }
                (None, 2) => match st.topics.get(&res.resource_name) {
                    None => {
                        r.error_code = KafkaCode::UNKNOWN_TOPIC_OR_PARTITION.0;
                        return r;
                    }
                    Some(t) => {
                        let mut all: BTreeMap<String, (String, bool)> = TOPIC_DEFAULTS
                            .iter()
                            .map(|(k, v)| ((*k).to_owned(), ((*v).to_owned(), true)))
                            .collect();
                        for (k, v) in &t.configs {
                            all.insert(k.clone(), (v.clone(), false));
                        }
                        all.into_iter().map(|(k, (v, d))| (k, v, d)).collect()
                    }
                },
                (None, 4) => vec![
                    ("broker.id".into(), res.resource_name.clone(), true),
                    (
                        "auto.create.topics.enable".into(),
                        st.auto_create.to_string(),
                        true,
                    ),
                    (
                        "num.partitions".into(),
                        st.default_partitions.to_string(),
                        true,
                    ),
                ],
                (None, _) => {
                    r.error_code = KafkaCode::INVALID_REQUEST.0;
                    r.error_message = Some("unsupported resource type".into());
                    return r;
                }
            };
            r.configs = entries
                .into_iter()
                .filter(|(k, _, _)| {
                    res.configuration_keys
                        .as_ref()
                        .is_none_or(|ks| ks.contains(k))
                })
                .map(|(name, value, is_default)| DescribeConfigsResourceResult {
                    name,
                    value: Some(value),
                    is_default: ctx.version == 0 && is_default,
                    // ConfigSource: 1 DYNAMIC_TOPIC_CONFIG, 5 DEFAULT_CONFIG.
                    config_source: if is_default { 5 } else { 1 },
                    ..Default::default()
                })
                .collect();
            r
        })
        .collect();
    Some(DescribeConfigsResponse {
        results,
        ..Default::default()
    })
}

pub(crate) fn incremental_alter_configs(
    ctx: &Ctx<'_>,
    req: IncrementalAlterConfigsRequest,
) -> Option<IncrementalAlterConfigsResponse> {
    let mut st = ctx.shared.lock();
    let responses = req
        .resources
        .into_iter()
        .map(|res| {
            let mut r = AlterConfigsResourceResponse {
                resource_type: res.resource_type,
                resource_name: res.resource_name.clone(),
                ..Default::default()
            };
            if let Some(e) = ctx.inject {
                r.error_code = e;
                return r;
            }
            if res.resource_type != 2 {
                r.error_code = KafkaCode::INVALID_REQUEST.0;
                r.error_message = Some("only topic configs can be altered on the mock".into());
                return r;
            }
            let Some(t) = st.topics.get_mut(&res.resource_name) else {
                r.error_code = KafkaCode::UNKNOWN_TOPIC_OR_PARTITION.0;
                return r;
            };
            if req.validate_only {
                return r;
            }
            for c in res.configs {
                // OpType: 0 SET, 1 DELETE, 2 APPEND, 3 SUBTRACT (KIP-339).
                match (c.config_operation, c.value) {
                    (0, Some(v)) => {
                        t.configs.insert(c.name, v);
                    }
                    (1, _) => {
                        t.configs.remove(&c.name);
                    }
                    (2, Some(v)) => {
                        let e = t.configs.entry(c.name).or_default();
                        if !e.split(',').any(|x| x == v) {
                            if !e.is_empty() {
                                e.push(',');
                            }
                            e.push_str(&v);
                        }
                    }
                    (3, Some(v)) => {
                        if let Some(e) = t.configs.get_mut(&c.name) {
                            *e = e
                                .split(',')
                                .filter(|x| *x != v)
                                .collect::<Vec<_>>()
                                .join(",");
                        }
                    }
                    _ => {
                        r.error_code = KafkaCode::INVALID_REQUEST.0;
                        r.error_message = Some(format!("bad operation on {}", c.name));
                    }
                }
            }
            r
        })
        .collect();
    Some(IncrementalAlterConfigsResponse {
        responses,
        ..Default::default()
    })
}

pub(crate) fn describe_cluster(
    ctx: &Ctx<'_>,
    _req: DescribeClusterRequest,
) -> Option<DescribeClusterResponse> {
    let st = ctx.shared.lock();
    Some(DescribeClusterResponse {
        error_code: ctx.inject.unwrap_or(KafkaCode::NONE.0),
        cluster_id: st.cluster_id.clone(),
        controller_id: st.brokers.iter().find(|b| b.up).map_or(-1, |b| b.id),
        brokers: st
            .brokers
            .iter()
            .filter(|b| b.up)
            .map(|b| DescribeClusterBroker {
                broker_id: b.id,
                host: "127.0.0.1".into(),
                port: i32::from(b.port),
                rack: b.rack.clone(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    })
}
