//! Kafka transactions (KIP-98) for a producer with `transactional.id`:
//! [`Producer::init_transactions`](super::Producer::init_transactions), [`Producer::begin_transaction`](super::Producer::begin_transaction),
//! [`Producer::send_offsets_to_transaction`](super::Producer::send_offsets_to_transaction),
//! [`Producer::commit_transaction`](super::Producer::commit_transaction) and [`Producer::abort_transaction`](super::Producer::abort_transaction),
//! with librdkafka's error classes: a fenced or unauthorized producer is
//! fatal (every later call fails); a failed send inside a transaction makes
//! it abortable (commit fails, abort recovers).
//!
//! Two transaction protocols, as the Java client 4.x: transactions v1
//! (KIP-98) and, when the cluster's finalized `transaction.version` feature
//! (ApiVersions v3+, KIP-584) is 2 or more, transactions v2 (KIP-890 part 2).
//! In v2 a transactional Produce v12 adds its partitions to the transaction
//! (no AddPartitionsToTxn for them), and the coordinator bumps the producer
//! epoch on every EndTxn v5+, returning the producer id and epoch the next
//! transaction must use. In v1 Produce stays at v11 or below and EndTxn at
//! v4 or below, so a 4.x coordinator never bumps the epoch behind the
//! producer's back. AddOffsetsToTxn and TxnOffsetCommit are sent in both.

use std::time::{Duration, Instant};

use super::accumulator::Tp;
use super::shared::Shared;
use super::txn_state::Phase;
use crate::error::{local, Error, Result};
use crate::log::{self, ctx};
use crate::message::ConsumerGroupMetadata;
use crate::protocol::add_offsets_to_txn::AddOffsetsToTxnRequest;
use crate::protocol::add_partitions_to_txn::{AddPartitionsToTxnRequest, AddPartitionsToTxnTopic};
use crate::protocol::end_txn::EndTxnRequest;
use crate::protocol::init_producer_id::InitProducerIdRequest;
use crate::protocol::txn_offset_commit::{
    TxnOffsetCommitRequest, TxnOffsetCommitRequestPartition, TxnOffsetCommitRequestTopic,
};
use crate::protocol::{ErrorAction, KafkaCode, Message};

/// The highest Produce version of a transactions v1 producer: v12 would
/// add partitions implicitly (KIP-890 part 2).
pub(crate) const PRODUCE_MAX_VERSION_V1: i16 = 11;
/// The highest EndTxn version of a transactions v1 producer: v5 makes the
/// coordinator bump the epoch (KIP-890 part 2).
const END_TXN_MAX_VERSION_V1: i16 = 4;
/// The lowest EndTxn version that returns the bumped epoch (KIP-890 part 2).
const END_TXN_MIN_VERSION_V2: i16 = 5;

/// Marks the open transaction abortable after a failed send.
pub(crate) fn abortable(sh: &Shared, e: &Error) {
    let mut t = sh.txn();
    if matches!(t.phase, Phase::InTxn) {
        t.set_phase(Phase::Abortable(e.clone()), sh.cluster.log());
    }
}

fn retriable(code: KafkaCode) -> bool {
    // A fenced group member (KIP-447): the transaction must be aborted,
    // as librdkafka (ILLEGAL_GENERATION 22, UNKNOWN_MEMBER_ID 25,
    // FENCED_INSTANCE_ID 82 make TxnOffsetCommit fail permanently).
    if matches!(code.0, 22 | 25 | 82) {
        return false;
    }
    code.is_retriable()
        || matches!(
            code,
            KafkaCode::CONCURRENT_TRANSACTIONS | KafkaCode::COORDINATOR_LOAD_IN_PROGRESS
        )
        || code.action() != ErrorAction::Fail
}

/// Runs `attempt` until it succeeds, fails for good, or `deadline` passes;
/// `attempt` returns the broker's code (0 for success).
fn with_retries<T>(
    sh: &Shared,
    deadline: Instant,
    mut attempt: impl FnMut() -> Result<std::result::Result<T, KafkaCode>>,
    what: &str,
) -> Result<T> {
    let backoff = sh.settings.retry_backoff.max(Duration::from_millis(20));
    loop {
        let code = match attempt() {
            Ok(Ok(v)) => return Ok(v),
            Ok(Err(code)) if retriable(code) => Error::kafka(code, what),
            Ok(Err(code)) => return Err(Error::kafka(code, what)),
            Err(e) if e.is_retriable() => e,
            Err(e) => return Err(e),
        };
        if Instant::now() + backoff >= deadline {
            return Err(Error::timed_out(format!("{what}: {code}")));
        }
        log::debug!(
            sh.cluster.log(),
            ctx::EOS | ctx::PROTOCOL,
            "RETRY",
            "Retrying {what} in {} ms: {code}",
            backoff.as_millis()
        );
        std::thread::sleep(backoff);
    }
}

/// InitProducerId for a transactional id, at its coordinator.
pub(crate) fn init_pid_transactional(
    sh: &Shared,
    txn_id: &str,
    bump: Option<(i64, i16)>,
) -> Result<(i64, i16)> {
    let deadline = Instant::now() + sh.settings.socket_timeout;
    with_retries(
        sh,
        deadline,
        || {
            let conn = sh
                .cluster
                .coordinator(txn_id, 1, sh.settings.socket_timeout)?;
            let version = conn.version_for::<InitProducerIdRequest>(deadline)?;
            sh.txn().cluster_v2 = conn.apis(deadline)?.transaction_v2();
            let mut req = InitProducerIdRequest {
                transactional_id: Some(txn_id.to_string()),
                transaction_timeout_ms: sh.settings.transaction_timeout_ms,
                ..Default::default()
            };
            if let (Some((pid, epoch)), true) = (bump, version >= 3) {
                req.producer_id = pid;
                req.producer_epoch = epoch;
            }
            let resp = conn
                .send_at(&req, version, deadline)?
                .wait_until(deadline)?;
            Ok(match KafkaCode(resp.error_code) {
                c if c.is_ok() => Ok((resp.producer_id, resp.producer_epoch)),
                c => Err(c),
            })
        },
        "InitProducerId",
    )
}

fn pid(sh: &Shared) -> Result<(i64, i16)> {
    let acc = sh.acc();
    if let Some(f) = &acc.fatal {
        return Err(f.clone());
    }
    acc.producer
        .ok_or_else(|| Error::local(local::STATE, "no producer id yet: call init_transactions"))
}

/// Adds the partitions to the open transaction (AddPartitionsToTxn, client versions 0–3).
pub(crate) fn add_partitions(sh: &Shared, tps: &[Tp]) -> Result<()> {
    let new: Vec<Tp> = {
        let t = sh.txn();
        let mut v: Vec<Tp> = tps
            .iter()
            .filter(|tp| !t.partitions.contains(tp))
            .cloned()
            .collect();
        v.sort();
        v.dedup();
        v
    };
    if new.is_empty() {
        return Ok(());
    }
    let txn_id = sh.settings.transactional_id.clone().unwrap_or_default();
    let (producer_id, producer_epoch) = pid(sh)?;
    let deadline = Instant::now() + sh.settings.socket_timeout;
    with_retries(
        sh,
        deadline,
        || {
            let conn = sh
                .cluster
                .coordinator(&txn_id, 1, sh.settings.socket_timeout)?;
            let apis = conn.apis(deadline)?;
            let version = apis
                .pick(AddPartitionsToTxnRequest::API_KEY, 0, 3)
                .ok_or_else(|| {
                    Error::local(
                        local::UNSUPPORTED_FEATURE,
                        "broker does not support AddPartitionsToTxn v0-3",
                    )
                })?;
            let mut topics: Vec<AddPartitionsToTxnTopic> = Vec::new();
            for Tp(t, p) in &new {
                match topics.iter_mut().find(|x| *x.name == **t) {
                    Some(x) => x.partitions.push(*p),
                    None => topics.push(AddPartitionsToTxnTopic {
                        name: t.to_string(),
                        partitions: vec![*p],
                        ..Default::default()
                    }),
                }
            }
            let req = AddPartitionsToTxnRequest {
                v3_and_below_transactional_id: txn_id.clone(),
                v3_and_below_producer_id: producer_id,
                v3_and_below_producer_epoch: producer_epoch,
                v3_and_below_topics: topics,
                ..Default::default()
            };
            let resp = conn
                .send_at(&req, version, deadline)?
                .wait_until(deadline)?;
            let worst = resp
                .results_by_topic_v3_and_below
                .iter()
                .flat_map(|t| t.results_by_partition.iter())
                .map(|p| KafkaCode(p.partition_error_code))
                .find(|c| !c.is_ok());
            Ok(match worst {
                None => Ok(()),
                Some(c) => Err(c),
            })
        },
        "AddPartitionsToTxn",
    )?;
    sh.txn().partitions.extend(new);
    Ok(())
}

/// Transactions v2 (KIP-890 part 2): the partitions a Produce v12+ is
/// about to carry join the transaction with it, with no AddPartitionsToTxn.
pub(crate) fn added_implicitly(sh: &Shared, tps: Vec<Tp>) {
    sh.txn().partitions.extend(tps);
}

fn fatal_check(sh: &Shared, e: Error) -> Error {
    if matches!(
        e.kafka_code(),
        Some(
            KafkaCode::PRODUCER_FENCED
                | KafkaCode::INVALID_PRODUCER_EPOCH
                | KafkaCode::TRANSACTIONAL_ID_AUTHORIZATION_FAILED
        )
    ) {
        let mut acc = sh.acc();
        sh.set_fatal(&mut acc, e.clone());
        acc.fail_all(e.clone());
        drop(acc);
        sh.changed.notify_all();
    }
    e
}

/// What a failed transactional call means, as librdkafka's
/// `rd_kafka_error_t` flags (confluent-kafka's `KafkaError.retriable()`,
/// `.fatal()`, `.txn_requires_abort()`): at most one is set.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TxnErrorFlags {
    /// The call may be retried as is (a timeout, a coordinator moving).
    pub retriable: bool,
    /// The producer is unusable (fenced, unauthorized): see
    /// [`Producer::fatal_error`](super::Producer::fatal_error); only
    /// destroying it is left.
    pub fatal: bool,
    /// The transaction cannot commit: call
    /// [`Producer::abort_transaction`](super::Producer::abort_transaction),
    /// then start a new one.
    pub txn_requires_abort: bool,
}

/// [`Producer::txn_error_flags`](super::Producer::txn_error_flags).
pub(super) fn error_flags(sh: &Shared, e: &Error) -> TxnErrorFlags {
    let fatal = sh.acc().fatal.is_some() || e.code() == local::FATAL;
    let abort = !fatal && matches!(sh.txn().phase, Phase::Abortable(_));
    let retriable = !fatal
        && !abort
        && (e.is_retriable()
            || e.code() == local::CONFLICT
            || e.kafka_code().is_some_and(retriable));
    TxnErrorFlags {
        retriable,
        fatal,
        txn_requires_abort: abort,
    }
}

/// The transactional id, or `_STATE` without one.
fn transactional_id(sh: &Shared) -> Result<String> {
    sh.settings
        .transactional_id
        .clone()
        .ok_or_else(|| Error::local(local::STATE, "the producer has no transactional.id"))
}

/// [`Producer::init_transactions`](super::Producer::init_transactions).
pub(super) fn init(sh: &Shared, timeout: Duration) -> Result<()> {
    transactional_id(sh)?;
    sh.txn().init_started = true;
    let deadline = Instant::now() + timeout;
    let mut acc = sh.acc();
    loop {
        if let Some(f) = acc.fatal.clone() {
            // nothing is in progress any more: later calls get `_STATE`
            drop(acc);
            sh.txn().init_started = false;
            return Err(f);
        }
        if acc.producer.is_some() {
            break;
        }
        sh.wake.notify_all();
        let now = Instant::now();
        if now >= deadline {
            return Err(Error::timed_out("init_transactions: no producer id yet"));
        }
        acc = sh
            .changed
            .wait_timeout(acc, (deadline - now).min(Duration::from_millis(100)))
            .map_or_else(|e| e.into_inner().0, |r| r.0);
    }
    drop(acc);
    sh.txn().set_phase(Phase::Ready, sh.cluster.log());
    Ok(())
}

/// [`Producer::begin_transaction`](super::Producer::begin_transaction).
pub(super) fn begin(sh: &Shared) -> Result<()> {
    transactional_id(sh)?;
    let mut t = sh.txn();
    if !matches!(t.phase, Phase::Ready) {
        return Err(t.wrong_phase("cannot begin a transaction now"));
    }
    t.set_phase(Phase::InTxn, sh.cluster.log());
    t.partitions.clear();
    t.offsets_added = false;
    t.v2 = t.cluster_v2;
    Ok(())
}

/// [`Producer::send_offsets_to_transaction_with`](super::Producer::send_offsets_to_transaction_with).
pub(super) fn send_offsets(
    sh: &Shared,
    offsets: &[(&str, i32, i64)],
    group: &ConsumerGroupMetadata,
    timeout: Duration,
) -> Result<()> {
    let group_id = group.group_id.as_str();
    if group_id.is_empty() {
        return Err(Error::invalid_arg("the group id is empty"));
    }
    let txn_id = transactional_id(sh)?;
    {
        let t = sh.txn();
        if !matches!(t.phase, Phase::InTxn) {
            return Err(t.wrong_phase("no open transaction"));
        }
    }
    let (producer_id, producer_epoch) = pid(sh)?;
    let deadline = Instant::now() + timeout;
    let r = with_retries(
        sh,
        deadline,
        || {
            let conn = sh.cluster.coordinator(&txn_id, 1, timeout)?;
            let req = AddOffsetsToTxnRequest {
                transactional_id: txn_id.clone(),
                producer_id,
                producer_epoch,
                group_id: group_id.to_string(),
                ..Default::default()
            };
            let resp = conn.call(
                &req,
                Some(deadline.saturating_duration_since(Instant::now())),
            )?;
            Ok(if resp.error_code == 0 {
                Ok(())
            } else {
                Err(KafkaCode(resp.error_code))
            })
        },
        "AddOffsetsToTxn",
    )
    .and_then(|()| {
        sh.txn().offsets_added = true;
        with_retries(
            sh,
            deadline,
            || {
                let conn = sh.cluster.coordinator(group_id, 0, timeout)?;
                let mut topics: Vec<TxnOffsetCommitRequestTopic> = Vec::new();
                for (t, p, o) in offsets {
                    let part = TxnOffsetCommitRequestPartition {
                        partition_index: *p,
                        committed_offset: *o,
                        committed_metadata: Some(String::new()),
                        ..Default::default()
                    };
                    match topics.iter_mut().find(|x| x.name == *t) {
                        Some(x) => x.partitions.push(part),
                        None => topics.push(TxnOffsetCommitRequestTopic {
                            name: (*t).to_string(),
                            partitions: vec![part],
                            ..Default::default()
                        }),
                    }
                }
                // KIP-447's fields exist from v3; a broker before it
                // gets the request without them (as librdkafka), and
                // does not fence zombie members
                let v = conn.version_for::<TxnOffsetCommitRequest>(deadline)?;
                let kip447 = v >= 3;
                let req = TxnOffsetCommitRequest {
                    transactional_id: txn_id.clone(),
                    group_id: group_id.to_string(),
                    producer_id,
                    producer_epoch,
                    generation_id: if kip447 { group.generation_id } else { -1 },
                    member_id: if kip447 {
                        group.member_id.clone()
                    } else {
                        String::new()
                    },
                    group_instance_id: if kip447 {
                        group.group_instance_id.clone()
                    } else {
                        None
                    },
                    topics,
                    ..Default::default()
                };
                let resp = conn.call(
                    &req,
                    Some(deadline.saturating_duration_since(Instant::now())),
                )?;
                let worst = resp
                    .topics
                    .iter()
                    .flat_map(|t| t.partitions.iter())
                    .map(|p| KafkaCode(p.error_code))
                    .find(|c| !c.is_ok());
                Ok(match worst {
                    None => Ok(()),
                    Some(c) => Err(c),
                })
            },
            "TxnOffsetCommit",
        )
    });
    r.map_err(|e| {
        let e = fatal_check(sh, e);
        abortable(sh, &e);
        e
    })
}

/// [`Producer::commit_transaction`](super::Producer::commit_transaction),
/// with the producer's flush.
pub(super) fn commit(
    sh: &Shared,
    timeout: Duration,
    flush: impl FnOnce(Duration) -> Result<()>,
) -> Result<()> {
    let deadline = Instant::now() + timeout;
    let phase = sh.txn().phase.clone();
    match phase {
        Phase::InTxn => {}
        Phase::Abortable(e) => {
            return Err(Error::local(
                local::STATE,
                format!("the transaction must be aborted: {e}"),
            ))
        }
        _ => return Err(sh.txn().wrong_phase("no open transaction")),
    }
    flush(deadline.saturating_duration_since(Instant::now()))?;
    if let Phase::Abortable(e) = sh.txn().phase.clone() {
        return Err(Error::local(
            local::STATE,
            format!("the transaction must be aborted: {e}"),
        ));
    }
    end_txn(sh, true, deadline)
}

/// [`Producer::abort_transaction`](super::Producer::abort_transaction),
/// with the producer's flush.
pub(super) fn abort(
    sh: &Shared,
    timeout: Duration,
    flush: impl FnOnce(Duration) -> Result<()>,
) -> Result<()> {
    let deadline = Instant::now() + timeout;
    {
        let t = sh.txn();
        if !matches!(t.phase, Phase::InTxn | Phase::Abortable(_)) {
            return Err(t.wrong_phase("no open transaction"));
        }
    }
    sh.acc().fail_all(Error::local(
        local::STATE,
        "purged: the transaction was aborted",
    ));
    flush(deadline.saturating_duration_since(Instant::now()))?;
    end_txn(sh, false, deadline)
}

/// EndTxn (commit or abort) of the open transaction, when it added
/// anything, and the phase after it.
fn end_txn(sh: &Shared, commit: bool, deadline: Instant) -> Result<()> {
    let txn_id = transactional_id(sh)?;
    let added = {
        let t = sh.txn();
        !t.partitions.is_empty() || t.offsets_added
    };
    let (producer_id, producer_epoch) = pid(sh)?;
    log::debug!(
        sh.cluster.log(),
        ctx::EOS,
        "TXNSTATE",
        "Transaction state change {} -> {}",
        sh.txn().phase.name(),
        if commit {
            "COMMITTING_TRANSACTION"
        } else {
            "ABORTING_TRANSACTION"
        }
    );
    let v2 = sh.txn().v2;
    let r = if added {
        with_retries(
            sh,
            deadline,
            || {
                let conn = sh
                    .cluster
                    .coordinator(&txn_id, 1, sh.settings.socket_timeout)?;
                let apis = conn.apis(deadline)?;
                let version = if v2 {
                    apis.pick(
                        EndTxnRequest::API_KEY,
                        END_TXN_MIN_VERSION_V2,
                        EndTxnRequest::MAX_VERSION,
                    )
                } else {
                    apis.pick(
                        EndTxnRequest::API_KEY,
                        EndTxnRequest::MIN_VERSION,
                        END_TXN_MAX_VERSION_V1,
                    )
                }
                .ok_or_else(|| {
                    Error::local(
                        local::UNSUPPORTED_FEATURE,
                        format!(
                            "the transaction coordinator does not support EndTxn for \
                             transactions v{}",
                            if v2 { 2 } else { 1 }
                        ),
                    )
                })?;
                let req = EndTxnRequest {
                    transactional_id: txn_id.clone(),
                    producer_id,
                    producer_epoch,
                    committed: commit,
                    ..Default::default()
                };
                let resp = conn
                    .send_at(&req, version, deadline)?
                    .wait_until(deadline)?;
                sh.txn().cluster_v2 = apis.transaction_v2();
                Ok(match KafkaCode(resp.error_code) {
                    c if c.is_ok() && version >= END_TXN_MIN_VERSION_V2 => {
                        Ok(Some((resp.producer_id, resp.producer_epoch)))
                    }
                    c if c.is_ok() => Ok(None),
                    c => Err(c),
                })
            },
            if commit {
                "EndTxn(commit)"
            } else {
                "EndTxn(abort)"
            },
        )
        .and_then(|next| match next {
            // KIP-890 part 2: the coordinator bumped the epoch (or, at
            // the last epoch, gave a new producer id); the next
            // transaction runs under them, its sequences from 0.
            Some((pid, epoch)) if pid >= 0 && epoch >= 0 => {
                let mut acc = sh.acc();
                if acc.producer != Some((pid, epoch)) {
                    log::debug!(
                        sh.cluster.log(),
                        ctx::EOS,
                        "PIDSTATE",
                        "EndTxn: producer id and epoch now \
                         {{producer_id:{pid},producer_epoch:{epoch}}}"
                    );
                    acc.producer = Some((pid, epoch));
                    acc.renumber_all(pid, epoch);
                }
                Ok(())
            }
            Some((pid, epoch)) => Err(Error::local(
                local::BAD_MSG,
                format!("EndTxn v5+ answered no producer id and epoch ({pid}, {epoch})"),
            )),
            None => Ok(()),
        })
    } else {
        Ok(())
    };
    match r {
        Ok(()) => {
            let mut t = sh.txn();
            t.set_phase(Phase::Ready, sh.cluster.log());
            t.partitions.clear();
            t.offsets_added = false;
            Ok(())
        }
        Err(e) => Err(fatal_check(sh, e)),
    }
}
