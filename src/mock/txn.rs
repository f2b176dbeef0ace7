//! The transaction coordinator (KIP-98): producer IDs and epochs,
//! AddPartitionsToTxn / AddOffsetsToTxn, and EndTxn, which writes a commit
//! or abort control record to every partition of the transaction, records
//! aborted transactions for read_committed fetches, and applies or drops
//! the offsets committed in the transaction.
//!
//! With the cluster's finalized `transaction.version` at 2 or more
//! (transactions v2, KIP-890 part 2) a transactional Produce v12+ adds its
//! partition to the transaction, and EndTxn v5+ bumps the producer epoch
//! (a new producer id when the epoch is exhausted) and returns it: the
//! control records carry the new epoch, and a Produce, AddPartitionsToTxn,
//! AddOffsetsToTxn or EndTxn under the old one is fenced. Otherwise
//! (transactions v1) a transactional Produce must name a partition
//! AddPartitionsToTxn added (the verification of KIP-890 part 1).

use std::time::{SystemTime, UNIX_EPOCH};

use super::ctx::Ctx;
use super::state::{State, StoredBatch, Txn};
use crate::compression::Codec;
use crate::protocol::add_offsets_to_txn::*;
use crate::protocol::add_partitions_to_txn::*;
use crate::protocol::end_txn::*;
use crate::protocol::init_producer_id::*;
use crate::protocol::KafkaCode;
use crate::record::batch::{ControlRecord, ControlRecordType, RecordBatchBuilder};

fn not_coordinator(ctx: &Ctx<'_>, st: &State, tid: &str) -> Option<i16> {
    if let Some(e) = ctx.inject {
        return Some(e);
    }
    (st.coordinator(1, tid) != ctx.broker).then_some(KafkaCode::NOT_COORDINATOR.0)
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// Ends `tid`'s ongoing transaction: a control record in each of its
/// partitions, its group offsets applied or dropped.
fn finish(st: &mut State, tid: &str, commit: bool) {
    let Some(t) = st.txns.get_mut(tid) else {
        return;
    };
    let (pid, epoch) = (t.producer_id, t.epoch);
    let partitions = std::mem::take(&mut t.partitions);
    let groups = std::mem::take(&mut t.groups);
    t.ongoing = false;
    t.last_result = Some(commit);
    for (topic, p) in partitions {
        let Some(part) = st.topics.get_mut(&topic).and_then(|t| {
            usize::try_from(p)
                .ok()
                .and_then(|i| t.partitions.get_mut(i))
        }) else {
            continue;
        };
        let first = part.ongoing.remove(&pid);
        let base = part.end;
        let kind = if commit {
            ControlRecordType::Commit
        } else {
            ControlRecordType::Abort
        };
        let key = ControlRecord { version: 0, kind }.encode_key();
        // The marker's value: version 0, coordinator epoch (KIP-98 "Control Messages").
        let value = [0u8, 0, 0, 0, 0, 0];
        let mut b = RecordBatchBuilder::new()
            .base_offset(base)
            .partition_leader_epoch(part.leader_epoch)
            .producer(pid, epoch, -1)
            .transactional(true)
            .control(true);
        if b.append(now_ms(), Some(&key), Some(&value), &[]).is_err() {
            continue;
        }
        let Ok(bytes) = b.finish(Codec::None, None) else {
            continue;
        };
        if !commit {
            if let Some(first) = first {
                part.aborted.push((pid, first, base));
            }
        }
        part.push(StoredBatch {
            base,
            last: base,
            max_timestamp: now_ms(),
            bytes,
        });
    }
    for g in groups {
        super::groups::end_txn_offsets(st, &g, pid, commit);
    }
}

pub(crate) fn init_producer_id(
    ctx: &Ctx<'_>,
    req: InitProducerIdRequest,
) -> Option<InitProducerIdResponse> {
    let mut st = ctx.shared.lock();
    let fail = |e: i16| {
        Some(InitProducerIdResponse {
            error_code: e,
            producer_id: -1,
            producer_epoch: -1,
            ..Default::default()
        })
    };
    let Some(tid) = req.transactional_id.clone().filter(|t| !t.is_empty()) else {
        if let Some(e) = ctx.inject {
            return fail(e);
        }
        // An idempotent producer: any broker hands out a new ID.
        let pid = st.next_producer_id;
        st.next_producer_id += 1;
        return Some(InitProducerIdResponse {
            producer_id: pid,
            producer_epoch: 0,
            ..Default::default()
        });
    };
    if let Some(e) = not_coordinator(ctx, &st, &tid) {
        return fail(e);
    }
    if req.transaction_timeout_ms <= 0 || req.transaction_timeout_ms > 900_000 {
        // transaction.max.timeout.ms defaults to 15 minutes: INVALID_TRANSACTION_TIMEOUT.
        return fail(50);
    }
    let ongoing = st.txns.get(&tid).is_some_and(|t| t.ongoing);
    if let Some(t) = st.txns.get(&tid) {
        // KIP-360: a producer that names its ID and epoch must name the current ones.
        if req.producer_id >= 0
            && (req.producer_id != t.producer_id || req.producer_epoch != t.epoch)
        {
            return fail(KafkaCode::PRODUCER_FENCED.0);
        }
    }
    if ongoing {
        // A new incarnation fences the old one and aborts what it left open.
        finish(&mut st, &tid, false);
    }
    let next = st.next_producer_id;
    let t = st.txns.entry(tid).or_insert(Txn {
        producer_id: -1,
        epoch: -1,
        ongoing: false,
        partitions: Default::default(),
        groups: Default::default(),
        last_result: None,
        before_bump: None,
    });
    let mut new_pid = false;
    if t.producer_id < 0 || t.epoch >= i16::MAX - 1 {
        t.producer_id = next;
        t.epoch = 0;
        new_pid = true;
    } else {
        t.epoch += 1;
    }
    t.last_result = None;
    let (pid, epoch) = (t.producer_id, t.epoch);
    if new_pid {
        st.next_producer_id += 1;
    }
    drop(st);
    ctx.shared.changed.notify_all();
    Some(InitProducerIdResponse {
        producer_id: pid,
        producer_epoch: epoch,
        ..Default::default()
    })
}

/// The checks every transactional request makes of producer ID and epoch.
fn check_producer(st: &State, tid: &str, pid: i64, epoch: i16) -> Option<i16> {
    match st.txns.get(tid) {
        None => Some(KafkaCode::INVALID_PRODUCER_ID_MAPPING.0),
        Some(t) if t.producer_id != pid => Some(KafkaCode::INVALID_PRODUCER_ID_MAPPING.0),
        Some(t) if t.epoch != epoch => Some(KafkaCode::PRODUCER_FENCED.0),
        _ => None,
    }
}

fn add_partitions(
    ctx: &Ctx<'_>,
    st: &mut State,
    tid: &str,
    pid: i64,
    epoch: i16,
    topics: &[AddPartitionsToTxnTopic],
) -> Vec<AddPartitionsToTxnTopicResult> {
    let mut err = not_coordinator(ctx, st, tid).or_else(|| check_producer(st, tid, pid, epoch));
    let unknown: Vec<(String, i32)> = topics
        .iter()
        .flat_map(|t| t.partitions.iter().map(move |p| (t.name.clone(), *p)))
        .filter(|(t, p)| {
            st.topics
                .get(t)
                .is_none_or(|tt| *p < 0 || *p as usize >= tt.partitions.len())
        })
        .collect();
    let any_unknown = !unknown.is_empty();
    if err.is_none() && !any_unknown {
        if let Some(t) = st.txns.get_mut(tid) {
            t.ongoing = true;
            t.last_result = None;
            for tp in topics {
                for p in &tp.partitions {
                    t.partitions.insert((tp.name.clone(), *p));
                }
            }
        }
    }
    if err.is_none() && any_unknown {
        err = Some(KafkaCode::OPERATION_NOT_ATTEMPTED.0);
    }
    topics
        .iter()
        .map(|t| AddPartitionsToTxnTopicResult {
            name: t.name.clone(),
            results_by_partition: t
                .partitions
                .iter()
                .map(|p| AddPartitionsToTxnPartitionResult {
                    partition_index: *p,
                    partition_error_code: if unknown.contains(&(t.name.clone(), *p)) {
                        KafkaCode::UNKNOWN_TOPIC_OR_PARTITION.0
                    } else {
                        err.unwrap_or(KafkaCode::NONE.0)
                    },
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        })
        .collect()
}

pub(crate) fn add_partitions_to_txn(
    ctx: &Ctx<'_>,
    req: AddPartitionsToTxnRequest,
) -> Option<AddPartitionsToTxnResponse> {
    let mut st = ctx.shared.lock();
    if ctx.version >= 4 {
        let results_by_transaction = req
            .transactions
            .iter()
            .map(|t| AddPartitionsToTxnResult {
                transactional_id: t.transactional_id.clone(),
                topic_results: add_partitions(
                    ctx,
                    &mut st,
                    &t.transactional_id,
                    t.producer_id,
                    t.producer_epoch,
                    &t.topics,
                ),
                ..Default::default()
            })
            .collect();
        return Some(AddPartitionsToTxnResponse {
            results_by_transaction,
            ..Default::default()
        });
    }
    let results_by_topic_v3_and_below = add_partitions(
        ctx,
        &mut st,
        &req.v3_and_below_transactional_id,
        req.v3_and_below_producer_id,
        req.v3_and_below_producer_epoch,
        &req.v3_and_below_topics,
    );
    Some(AddPartitionsToTxnResponse {
        results_by_topic_v3_and_below,
        ..Default::default()
    })
}

pub(crate) fn add_offsets_to_txn(
    ctx: &Ctx<'_>,
    req: AddOffsetsToTxnRequest,
) -> Option<AddOffsetsToTxnResponse> {
    let mut st = ctx.shared.lock();
    let error_code = not_coordinator(ctx, &st, &req.transactional_id)
        .or_else(|| {
            check_producer(
                &st,
                &req.transactional_id,
                req.producer_id,
                req.producer_epoch,
            )
        })
        .unwrap_or(KafkaCode::NONE.0);
    if error_code == KafkaCode::NONE.0 {
        if let Some(t) = st.txns.get_mut(&req.transactional_id) {
            t.ongoing = true;
            t.last_result = None;
            t.groups.insert(req.group_id.clone());
        }
    }
    Some(AddOffsetsToTxnResponse {
        error_code,
        ..Default::default()
    })
}

/// The transaction check of one produced batch (KIP-98, KIP-890): a
/// transactional batch of a producer the coordinator knows must carry its
/// current epoch (INVALID_PRODUCER_EPOCH, as Kafka's Produce answers a
/// fenced producer) and go to a partition of its open transaction
/// (INVALID_TXN_STATE), except that with transactions v2 a Produce v12+
/// adds the partition itself. Batches of producers no coordinator handed
/// out are left to the idempotence checks.
#[allow(clippy::too_many_arguments)]
pub(crate) fn produce_in_txn(
    st: &mut State,
    tid: Option<&str>,
    version: i16,
    topic: &str,
    partition: i32,
    transactional: bool,
    producer_id: i64,
    producer_epoch: i16,
) -> Result<(), i16> {
    if !transactional || producer_id < 0 {
        return Ok(());
    }
    let v2 = st.transactions_v2() && version >= 12;
    let t = match tid.filter(|t| !t.is_empty()) {
        Some(tid) => st.txns.get_mut(tid),
        None => st.txns.values_mut().find(|t| t.producer_id == producer_id),
    };
    let Some(t) = t else {
        return Ok(());
    };
    if t.producer_id != producer_id || t.epoch != producer_epoch {
        return Err(
            if t.before_bump.is_some_and(|(p, _)| p == producer_id) || t.producer_id == producer_id
            {
                KafkaCode::INVALID_PRODUCER_EPOCH.0
            } else {
                KafkaCode::INVALID_PRODUCER_ID_MAPPING.0
            },
        );
    }
    let tp = (topic.to_owned(), partition);
    if t.ongoing && t.partitions.contains(&tp) {
        return Ok(());
    }
    if !v2 {
        return Err(KafkaCode::INVALID_TXN_STATE.0);
    }
    t.ongoing = true;
    t.last_result = None;
    t.partitions.insert(tp);
    Ok(())
}

/// Transactions v2 (KIP-890 part 2): the epoch after `tid`'s EndTxn, or a
/// new producer id at epoch 0 when the epoch is exhausted.
fn bump_epoch(st: &mut State, tid: &str) {
    let next = st.next_producer_id;
    let Some(t) = st.txns.get_mut(tid) else {
        return;
    };
    t.before_bump = Some((t.producer_id, t.epoch));
    if t.epoch >= i16::MAX - 1 {
        t.producer_id = next;
        t.epoch = 0;
        st.next_producer_id += 1;
    } else {
        t.epoch += 1;
    }
}

pub(crate) fn end_txn(ctx: &Ctx<'_>, req: EndTxnRequest) -> Option<EndTxnResponse> {
    let mut st = ctx.shared.lock();
    let tid = req.transactional_id.clone();
    let v2 = st.transactions_v2() && ctx.version >= 5;
    let retry_after_bump = v2
        && st.txns.get(&tid).is_some_and(|t| {
            !t.ongoing
                && t.before_bump == Some((req.producer_id, req.producer_epoch))
                && t.last_result == Some(req.committed)
        });
    let mut error_code = not_coordinator(ctx, &st, &tid)
        .or_else(|| {
            if retry_after_bump {
                // the answer to the EndTxn that bumped the epoch was lost:
                // the same outcome again, with the new epoch
                None
            } else {
                check_producer(&st, &tid, req.producer_id, req.producer_epoch)
            }
        })
        .unwrap_or(KafkaCode::NONE.0);
    if error_code == KafkaCode::NONE.0 && !retry_after_bump {
        let t = &st.txns[&tid];
        if t.ongoing {
            let exhausted = t.epoch >= i16::MAX - 1;
            if v2 && !exhausted {
                // the control records carry the bumped epoch
                bump_epoch(&mut st, &tid);
            }
            finish(&mut st, &tid, req.committed);
            if v2 && exhausted {
                bump_epoch(&mut st, &tid);
            }
        } else if v2 && !req.committed {
            // Transactions v2 (KIP-890 part 2): the producer cannot know
            // whether a Produce that failed added its partition, so an
            // abort of a transaction the coordinator never saw is allowed;
            // it bumps the epoch all the same.
            bump_epoch(&mut st, &tid);
            if let Some(t) = st.txns.get_mut(&tid) {
                t.last_result = Some(false);
            }
        } else if t.last_result != Some(req.committed) {
            // Ending a transaction that is not open (a retry of the same end is fine).
            error_code = KafkaCode::INVALID_TXN_STATE.0;
        }
    }
    let (pid, epoch) = st
        .txns
        .get(&tid)
        .map_or((-1, -1), |t| (t.producer_id, t.epoch));
    drop(st);
    ctx.shared.changed.notify_all();
    Some(EndTxnResponse {
        error_code,
        producer_id: if ctx.version >= 5 { pid } else { -1 },
        producer_epoch: if ctx.version >= 5 { epoch } else { -1 },
        ..Default::default()
    })
}
