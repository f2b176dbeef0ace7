//! The sender thread: moves ready batches to the partition leaders and turns
//! produce responses into reports, retries and epoch bumps.

use std::collections::BTreeMap;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use super::accumulator::{Batch, Tp};
use super::Shared;
use crate::cluster::Purpose;
use crate::compression::Codec;
use crate::error::{local, Error, Result};
use crate::net::BrokerConn;
use crate::protocol::init_producer_id::InitProducerIdRequest;
use crate::protocol::produce::{
    PartitionProduceData, ProduceRequest, ProduceResponse, TopicProduceData,
};
use crate::protocol::{ErrorAction, KafkaCode};
use crate::record::{DecodeOptions, MessageSetBuilder, RecordBatch};
use crate::wire::Bytes;

/// What one pass of the loop found to do outside the lock.
#[derive(Default)]
struct Work {
    metadata: Vec<Arc<str>>,
    sends: BTreeMap<i32, Vec<Batch>>,
    expired: Vec<BrokerConn>,
    init_pid: bool,
}

impl Work {
    fn is_empty(&self) -> bool {
        self.metadata.is_empty()
            && self.sends.is_empty()
            && self.expired.is_empty()
            && !self.init_pid
    }
}

/// The sender thread's body.
pub(crate) fn run(sh: &Arc<Shared>) {
    let mut acc = sh.acc();
    loop {
        if acc.closing {
            return;
        }
        let now = Instant::now();
        acc.clock_base = (now, crate::message::now_ms());
        let mut work = Work::default();
        let mut next = now + Duration::from_secs(1);
        let mut soonest = |t: Option<Instant>| {
            if let Some(t) = t {
                next = next.min(t);
            }
        };
        soonest(acc.expire(now));
        soonest(acc.close_due(now));
        // producer id first (idempotence), and after a sequence gap wait for
        // the partitions to drain before bumping the epoch
        let idem = sh.settings.idempotence;
        if idem && (acc.producer.is_none() || acc.need_epoch_bump) {
            let drained = acc.all_drained();
            match acc.pid_retry_at {
                Some(at) if at > now => soonest(Some(at)),
                _ if drained || acc.producer.is_none() => work.init_pid = true,
                _ => {}
            }
        }
        // topics waiting for metadata
        for (t, tq) in &mut acc.topics {
            if tq.partitions == 0 || !tq.unassigned.is_empty() {
                let retry = sh.settings.fast_refresh_after(tq.fast.saturating_sub(1));
                match tq.asked {
                    Some(at) if at + retry > now => soonest(Some(at + retry)),
                    _ => {
                        tq.asked = Some(now);
                        tq.fast += 1;
                        work.metadata.push(t.clone());
                    }
                }
            }
        }
        let may_send = !idem || (acc.producer.is_some() && !acc.need_epoch_bump);
        if may_send {
            collect_sends(sh, &mut acc, now, &mut work, &mut soonest);
        }
        acc.requests.retain(|(conn, _, deadline)| {
            if *deadline <= now {
                work.expired.push(conn.clone());
                false
            } else {
                true
            }
        });
        for (_, _, d) in &acc.requests {
            soonest(Some(*d));
        }
        if work.is_empty() {
            // A floor well under a millisecond: a wake-up a hair before a
            // linger deadline must not sleep a whole extra millisecond.
            let wait = next
                .saturating_duration_since(Instant::now())
                .max(Duration::from_micros(50));
            // appends compare a new batch's linger deadline with this
            acc.sender_wakes_at = Some(Instant::now() + wait);
            acc = sh
                .wake
                .wait_timeout(acc, wait)
                .map_or_else(|e| e.into_inner().0, |r| r.0);
            acc.sender_wakes_at = None;
            continue;
        }
        drop(acc);
        for conn in work.expired {
            conn.fail_timed_out("produce request");
        }
        if work.init_pid {
            init_producer_id(sh);
        }
        if !work.metadata.is_empty() {
            refresh_metadata(sh, &work.metadata);
        }
        for (leader, batches) in work.sends {
            send_batches(sh, leader, batches);
        }
        sh.changed.notify_all();
        acc = sh.acc();
    }
}

/// Takes ready batches whose leader is known, up to the in-flight limit.
fn collect_sends(
    sh: &Shared,
    acc: &mut super::accumulator::Acc,
    now: Instant,
    work: &mut Work,
    soonest: &mut impl FnMut(Option<Instant>),
) {
    let max_in_flight = sh.settings.max_in_flight;
    let mut need_meta = Vec::new();
    let producer = acc.producer;
    for (tq, (p, pq)) in acc.topics.values_mut().flat_map(|tq| {
        let name = tq.name.clone();
        tq.parts
            .iter_mut()
            .enumerate()
            .map(move |x| (name.clone(), x))
    }) {
        if pq.ready.is_empty() || pq.in_flight >= max_in_flight {
            continue;
        }
        let Some(leader) = sh.cluster.cached_leader(&tq, p as i32) else {
            need_meta.push(tq);
            continue;
        };
        while pq.in_flight < max_in_flight {
            match pq.ready.front() {
                Some(b) if b.retry_at.is_none_or(|at| at <= now) => {}
                Some(b) => {
                    soonest(b.retry_at);
                    break;
                }
                None => break,
            }
            let mut b = pq.ready.pop_front().expect("front");
            if producer.is_some() && b.base_sequence < 0 {
                b.base_sequence = pq.next_seq;
                pq.next_seq = pq.next_seq.wrapping_add(b.msgs.len() as i32) & i32::MAX;
            }
            pq.in_flight += 1;
            work.sends.entry(leader).or_default().push(b);
        }
    }
    for t in need_meta {
        if let Some(tq) = acc.topics.get_mut(&t) {
            let retry = sh.settings.fast_refresh_after(tq.fast.saturating_sub(1));
            match tq.asked {
                Some(at) if at + retry > now => soonest(Some(at + retry)),
                _ => {
                    tq.asked = Some(now);
                    tq.fast += 1;
                    if !work.metadata.contains(&t) {
                        work.metadata.push(t);
                    }
                }
            }
        }
    }
}

fn refresh_metadata(sh: &Shared, topics: &[Arc<str>]) {
    for t in topics {
        sh.cluster.invalidate(t);
    }
    let names: Vec<&str> = topics.iter().map(|t| &**t).collect();
    let result = sh.cluster.fetch_metadata(
        Some(&names),
        sh.settings.auto_create,
        sh.settings.socket_timeout,
    );
    let mut acc = sh.acc();
    if let Ok(md) = result {
        for t in topics {
            if let Some(info) = md.topics.get(&**t) {
                if info.error.is_ok() && !info.partitions.is_empty() {
                    if info.partitions.iter().all(|p| p.leader >= 0) {
                        // leaders known: the next loss starts fast again
                        if let Some(tq) = acc.topics.get_mut(&**t) {
                            tq.fast = 0;
                        }
                    }
                    acc.assign_unassigned(sh, t, info.partitions.len() as i32);
                } else if !info.error.is_ok() && !info.error.is_retriable() {
                    // an invalid or forbidden topic will not become valid by waiting
                    acc.fail_topic(t, Error::kafka(info.error, format!("topic {t}")));
                }
            }
        }
    }
    // failures: the topics stay waiting and are asked again after
    // topic.metadata.refresh.fast.interval.ms, doubling up to retry.backoff.max.ms
    sh.wake.notify_all();
}

fn init_producer_id(sh: &Shared) {
    let (current, bump) = {
        let acc = sh.acc();
        (acc.producer, acc.need_epoch_bump)
    };
    let result = if let Some(txn_id) = &sh.settings.transactional_id {
        super::txn::init_pid_transactional(sh, txn_id, current.filter(|_| bump))
    } else {
        init_pid_idempotent(sh, current.filter(|_| bump))
    };
    let mut acc = sh.acc();
    match result {
        Ok((pid, epoch)) => {
            acc.producer = Some((pid, epoch));
            acc.need_epoch_bump = false;
            acc.pid_retry_at = None;
            acc.renumber_all(pid, epoch);
        }
        Err(e)
            if e.is_retriable()
                || matches!(
                    e.kafka_code().map(KafkaCode::action),
                    Some(ErrorAction::Retry | ErrorAction::RefreshMetadataAndRetry)
                ) =>
        {
            acc.pid_retry_at =
                Some(Instant::now() + sh.settings.retry_backoff.max(Duration::from_millis(100)));
        }
        Err(e) => {
            let fatal = Error::local(local::FAIL, format!("fatal: cannot get a producer id: {e}"));
            acc.fatal = Some(if let Error::Kafka { code, .. } = e {
                Error::kafka(code, "InitProducerId")
            } else {
                fatal
            });
            let f = acc.fatal.clone().expect("set");
            acc.fail_all(f);
        }
    }
    sh.wake.notify_all();
    sh.changed.notify_all();
}

/// InitProducerId without a transactional id, at any broker; with
/// `bump`, asks for the next epoch of the current id (v3+, KIP-360).
fn init_pid_idempotent(sh: &Shared, bump: Option<(i64, i16)>) -> Result<(i64, i16)> {
    let conn = sh
        .cluster
        .any_conn(Purpose::Metadata, sh.settings.socket_timeout)?;
    let deadline = Instant::now() + sh.settings.socket_timeout;
    let version = conn.version_for::<InitProducerIdRequest>(deadline)?;
    let mut req = InitProducerIdRequest {
        transaction_timeout_ms: i32::MAX,
        ..Default::default()
    };
    if let (Some((pid, epoch)), true) = (bump, version >= 3) {
        req.producer_id = pid;
        req.producer_epoch = epoch;
    }
    let resp = conn
        .send_at(&req, version, deadline)?
        .wait_until(deadline)?;
    if resp.error_code != 0 {
        return Err(Error::kafka(KafkaCode(resp.error_code), "InitProducerId"));
    }
    Ok((resp.producer_id, resp.producer_epoch))
}

/// Finishes a batch's bytes for `version` (v2 batches for Produce v3+,
/// message sets below), stamped with the producer id and sequence.
fn finish(
    sh: &Shared,
    b: &mut Batch,
    version: i16,
    producer: Option<(i64, i16)>,
    txn: bool,
) -> Result<Bytes> {
    let codec = sh.settings.codec;
    if let Some(bytes) = &b.bytes {
        return Ok(bytes.clone());
    }
    let mut builder = b.builder.take().expect("unfinished batch has a builder");
    if version >= 3 {
        if codec == Codec::Zstd && version < 7 {
            return Err(Error::local(
                local::UNSUPPORTED_FEATURE,
                format!("zstd needs a broker with Produce v7+ (this one speaks v{version})"),
            ));
        }
        if let Some((pid, epoch)) = producer {
            builder = builder.producer(pid, epoch, b.base_sequence);
        }
        let bytes = Bytes::from(
            builder
                .transactional(txn)
                .finish(codec, sh.settings.level)?,
        );
        b.bytes = Some(bytes.clone());
        return Ok(bytes);
    }
    // an old broker: re-encode as a message set (magic 1 for Produce v2, else 0)
    let plain = Bytes::from(builder.finish(Codec::None, None)?);
    let (batch, _) = RecordBatch::decode(&plain, &DecodeOptions::default())?;
    if batch.records.iter().any(|r| !r.headers.is_empty()) {
        return Err(Error::local(
            local::UNSUPPORTED_FEATURE,
            format!("headers need a broker with Produce v3+ (this one speaks v{version})"),
        ));
    }
    if codec == Codec::Zstd {
        return Err(Error::local(
            local::UNSUPPORTED_FEATURE,
            "zstd needs a broker with Produce v7+",
        ));
    }
    let magic = if version == 2 { 1 } else { 0 };
    let mut ms = MessageSetBuilder::new(magic)?;
    for r in &batch.records {
        let ts = if magic == 0 {
            crate::record::NO_TIMESTAMP
        } else {
            r.timestamp
        };
        ms.append(ts, r.key.as_deref(), r.value.as_deref())?;
    }
    let bytes = Bytes::from(ms.finish(codec, sh.settings.level)?);
    b.bytes = Some(bytes.clone());
    Ok(bytes)
}

fn send_batches(sh: &Arc<Shared>, leader: i32, mut batches: Vec<Batch>) {
    let deadline = Instant::now()
        + sh.settings.socket_timeout
        + Duration::from_millis(sh.settings.ack_timeout_ms as u64);
    let conn = match sh.cluster.conn(leader, Purpose::Produce) {
        Ok(c) => c,
        Err(e) => return fail_request(sh, batches, &e),
    };
    let version = match conn.version_for::<ProduceRequest>(deadline) {
        Ok(v) => v,
        Err(e) => return fail_request(sh, batches, &e),
    };
    let producer = sh.acc().producer;
    let txn = sh.settings.transactional_id.clone();
    if txn.is_some() {
        if let Err(e) = super::txn::add_partitions(sh, &batches) {
            return fail_request(sh, batches, &e);
        }
    }
    // one batch per partition per request (Kafka's rule): split repeats
    while !batches.is_empty() {
        let mut this = Vec::new();
        let mut rest = Vec::new();
        for b in batches {
            if this.iter().any(|x: &Batch| x.tp == b.tp) {
                rest.push(b);
            } else {
                this.push(b);
            }
        }
        batches = rest;
        let mut topics: Vec<TopicProduceData> = Vec::new();
        let mut failed = Vec::new();
        let mut ok = Vec::new();
        for mut b in this {
            match finish(sh, &mut b, version, producer, txn.is_some()) {
                Ok(records) => {
                    let pd = PartitionProduceData {
                        index: b.tp.1,
                        records: Some(records),
                        ..Default::default()
                    };
                    match topics.iter_mut().find(|t| *t.name == *b.tp.0) {
                        Some(t) => t.partition_data.push(pd),
                        None => topics.push(TopicProduceData {
                            name: b.tp.0.to_string(),
                            partition_data: vec![pd],
                            ..Default::default()
                        }),
                    }
                    b.sent = true;
                    ok.push(b);
                }
                Err(e) => failed.push((b, e)),
            }
        }
        for (b, e) in failed {
            let mut acc = sh.acc();
            if let Some(pq) = acc.part_mut(&b.tp) {
                pq.in_flight -= 1;
            }
            acc.complete(b, Err(e));
        }
        if ok.is_empty() {
            continue;
        }
        let req = ProduceRequest {
            transactional_id: txn.clone(),
            acks: sh.settings.acks,
            timeout_ms: sh.settings.ack_timeout_ms,
            topic_data: topics,
            ..Default::default()
        };
        if sh.settings.acks == 0 {
            let r = conn.send_oneway(&req, version, deadline);
            let mut acc = sh.acc();
            for b in ok {
                if let Some(pq) = acc.part_mut(&b.tp) {
                    pq.in_flight -= 1;
                }
                match &r {
                    Ok(()) => acc.complete(b, Ok((-1, -1))),
                    Err(e) => acc.complete(b, Err(e.clone())),
                }
            }
            continue;
        }
        let weak: Weak<Shared> = Arc::downgrade(sh);
        let conn2 = conn.clone();
        let token = {
            let mut acc = sh.acc();
            acc.next_request_token += 1;
            let token = acc.next_request_token;
            acc.requests.push((conn.clone(), token, deadline));
            token
        };
        // the callback runs exactly once, whatever happens to the request
        let _ = conn.send_with(
            &req,
            version,
            deadline,
            move |r: Result<ProduceResponse>| {
                if let Some(sh) = weak.upgrade() {
                    on_response(&sh, &conn2, token, ok, r);
                }
            },
        );
    }
}

/// A request that could not even be sent: every batch takes the retry path.
fn fail_request(sh: &Shared, batches: Vec<Batch>, e: &Error) {
    let mut acc = sh.acc();
    for b in batches {
        if let Some(pq) = acc.part_mut(&b.tp) {
            pq.in_flight -= 1;
        }
        retry_or_fail(sh, &mut acc, b, e.clone());
    }
    drop(acc);
    sh.wake.notify_all();
    sh.changed.notify_all();
}

fn on_response(
    sh: &Shared,
    conn: &BrokerConn,
    token: u64,
    batches: Vec<Batch>,
    r: Result<ProduceResponse>,
) {
    let mut acc = sh.acc();
    let name = conn.name().to_string();
    acc.requests.retain(|(_, t, _)| *t != token);
    for mut b in batches {
        if let Some(pq) = acc.part_mut(&b.tp) {
            pq.in_flight -= 1;
        }
        let resp = match &r {
            Ok(resp) => resp,
            Err(e) => {
                retry_or_fail(sh, &mut acc, b, e.clone());
                continue;
            }
        };
        let p = resp
            .responses
            .iter()
            .filter(|t| *t.name == *b.tp.0)
            .flat_map(|t| t.partition_responses.iter())
            .find(|p| p.index == b.tp.1);
        let Some(p) = p else {
            let e = Error::local(
                local::BAD_MSG,
                format!("{name}: produce response lacks {} [{}]", b.tp.0, b.tp.1),
            );
            retry_or_fail(sh, &mut acc, b, e);
            continue;
        };
        let code = KafkaCode(p.error_code);
        if code.is_ok() || code == KafkaCode::DUPLICATE_SEQUENCE_NUMBER {
            acc.complete(b, Ok((p.base_offset, p.log_append_time_ms)));
            continue;
        }
        let detail = p
            .error_message
            .as_deref()
            .map_or(String::new(), |m| format!(" ({m})"));
        let e = Error::kafka(code, format!("{} [{}]{detail}", b.tp.0, b.tp.1));
        match code {
            KafkaCode::UNKNOWN_PRODUCER_ID | KafkaCode::OUT_OF_ORDER_SEQUENCE_NUMBER
                if sh.settings.idempotence =>
            {
                let earlier = earlier_outstanding(&acc, &b.tp, b.seq_no);
                if !earlier {
                    // a real gap: new epoch, sequences from 0 (KIP-360)
                    acc.need_epoch_bump = true;
                }
                let at = Instant::now();
                acc.requeue(b, at);
            }
            KafkaCode::INVALID_PRODUCER_EPOCH
            | KafkaCode::PRODUCER_FENCED
            | KafkaCode::TRANSACTIONAL_ID_AUTHORIZATION_FAILED
            | KafkaCode::CLUSTER_AUTHORIZATION_FAILED
            | KafkaCode::INVALID_PRODUCER_ID_MAPPING => {
                acc.fatal = Some(e.clone());
                acc.complete(b, Err(e.clone()));
                acc.fail_all(e);
            }
            // KIP-951: the answer names the new leader; retry there at
            // once, without a metadata refresh
            KafkaCode::NOT_LEADER_OR_FOLLOWER | KafkaCode::FENCED_LEADER_EPOCH
                if sh.cluster.update_leader(
                    &b.tp.0,
                    b.tp.1,
                    p.current_leader.leader_id,
                    p.current_leader.leader_epoch,
                    resp.node_endpoints
                        .iter()
                        .find(|n| n.node_id == p.current_leader.leader_id)
                        .map(|n| crate::cluster::BrokerInfo {
                            id: n.node_id,
                            host: n.host.clone(),
                            port: n.port,
                            rack: n.rack.clone(),
                        }),
                ) =>
            {
                if b.attempts >= sh.settings.retries
                    || b.msgs.iter().any(|m| m.deadline <= Instant::now())
                {
                    retry_or_fail(sh, &mut acc, b, e);
                } else {
                    b.attempts += 1;
                    acc.requeue(b, Instant::now());
                }
            }
            _ => retry_or_fail(sh, &mut acc, b, e),
        }
    }
    drop(acc);
    sh.wake.notify_all();
    sh.changed.notify_all();
}

/// True if an earlier batch of the partition is waiting for a retry or in flight.
fn earlier_outstanding(acc: &super::accumulator::Acc, tp: &Tp, seq_no: u64) -> bool {
    acc.part(tp)
        .is_some_and(|pq| pq.ready.iter().any(|b| b.seq_no < seq_no) || pq.in_flight > 0)
}

fn retry_or_fail(sh: &Shared, acc: &mut super::accumulator::Acc, mut b: Batch, e: Error) {
    let action = match &e {
        Error::Kafka { code, .. } => code.action(),
        e if e.is_retriable() => ErrorAction::Retry,
        _ => ErrorAction::Fail,
    };
    if action == ErrorAction::RefreshMetadataAndRetry {
        sh.cluster.invalidate(&b.tp.0);
        if let Some(tq) = acc.topics.get_mut(&b.tp.0) {
            tq.asked = None;
        }
    }
    let retriable = matches!(
        action,
        ErrorAction::Retry | ErrorAction::RefreshMetadataAndRetry
    );
    b.attempts += 1;
    let expired = b.msgs.iter().any(|m| m.deadline <= Instant::now());
    if !retriable || b.attempts > sh.settings.retries || expired || acc.closing {
        if sh.settings.idempotence && b.sent && b.base_sequence >= 0 {
            acc.need_epoch_bump = true;
        }
        let e = if expired && retriable {
            Error::local(
                local::MSG_TIMED_OUT,
                format!("{} [{}]: message timed out: {e}", b.tp.0, b.tp.1),
            )
        } else {
            e
        };
        if sh.settings.transactional_id.is_some() {
            super::txn::abortable(sh, &e);
        }
        acc.complete(b, Err(e));
        return;
    }
    let exp = (b.attempts - 1).min(16);
    let backoff = sh
        .settings
        .retry_backoff
        .saturating_mul(1 << exp)
        .min(sh.settings.retry_backoff_max.max(sh.settings.retry_backoff));
    acc.requeue(b, Instant::now() + backoff);
}
