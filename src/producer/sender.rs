//! The sender thread: moves ready batches to the partition leaders and turns
//! produce responses into reports, retries and epoch bumps.

use std::collections::BTreeMap;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use super::accumulator::{records_of, Batch, Tp};
use super::shared::Shared;
use crate::cluster::Purpose;
use crate::compression::Codec;
use crate::error::{local, Error, Result};
use crate::log::{self, ctx, level};
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
    /// Requests by leader: tokens of `Acc::inflight`.
    sends: BTreeMap<i32, Vec<u64>>,
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
        let reports = acc.done.len();
        soonest(acc.expire(now));
        if acc.done.len() != reports {
            // expired messages: their reports are ready
            sh.changed.notify_all();
        }
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
        for (t, tq) in acc.topics.iter_mut() {
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
            acc.sender_wakeups += 1;
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
        for (leader, tokens) in work.sends {
            send_batches(sh, leader, tokens);
        }
        // Each step above notifies `changed` itself when it queued reports
        // or changed what a waiter waits for; a notify here for nothing
        // would wake the application's `poll` while the request is on its
        // way, to compete for the CPU with the broker and this thread.
        acc = sh.acc();
        if sh.settings.idempotence && sh.settings.stats {
            acc.note_idemp_state();
        }
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
    let mut taken: BTreeMap<i32, Vec<Batch>> = BTreeMap::new();
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
            b.broker = leader;
            taken.entry(leader).or_default().push(b);
        }
    }
    // one batch per partition per request (Kafka's rule): split repeats;
    // the requests wait in `inflight` (where a purge finds them) until sent
    for (leader, batches) in taken {
        if sh.settings.stats {
            record_taken(acc, leader, &batches, now, sh.settings.message_timeout);
        }
        let mut requests: Vec<Vec<Batch>> = Vec::new();
        for b in batches {
            match requests.iter_mut().find(|r| r.iter().all(|x| x.tp != b.tp)) {
                Some(r) => r.push(b),
                None => requests.push(vec![b]),
            }
        }
        for r in requests {
            acc.next_request_token += 1;
            let token = acc.next_request_token;
            acc.inflight.insert(token, r);
            work.sends.entry(leader).or_default().push(token);
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
                        if let Some(tq) = acc.topics.get_mut(t) {
                            tq.fast = 0;
                        }
                    }
                    acc.assign_unassigned(&sh.settings, t, info.partitions.len() as i32);
                } else if !info.error.is_ok() && !info.error.is_retriable() {
                    // an invalid or forbidden topic will not become valid by waiting
                    acc.fail_topic(t, Error::kafka(info.error, format!("topic {t}")));
                }
            }
        }
    }
    // failures: the topics stay waiting and are asked again after
    // topic.metadata.refresh.fast.interval.ms, doubling up to retry.backoff.max.ms
    drop(acc);
    sh.wake.notify_all();
    // messages of a failed topic (or partition) have their reports now
    sh.changed.notify_all();
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
            log::debug!(
                sh.cluster.log(),
                ctx::EOS,
                "PIDSTATE",
                "Acquired PID {{producer_id:{pid},producer_epoch:{epoch}}}{}",
                if bump { " (epoch bump)" } else { "" }
            );
            acc.producer = Some((pid, epoch));
            acc.epoch_cnt += 1;
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
            let backoff = sh.settings.retry_backoff.max(Duration::from_millis(100));
            log::debug!(
                sh.cluster.log(),
                ctx::EOS | ctx::PROTOCOL,
                "RETRY",
                "InitProducerId failed, retrying in {} ms: {e}",
                backoff.as_millis()
            );
            acc.pid_retry_at = Some(Instant::now() + backoff);
        }
        // the producer is being destroyed: nothing to report (librdkafka
        // is quiet here too)
        Err(e) if e.code() == local::DESTROY => {
            log::debug!(
                sh.cluster.log(),
                ctx::EOS,
                "PIDSTATE",
                "No producer id acquired before the producer was destroyed"
            );
        }
        Err(e) => {
            log::at!(
                sh.cluster.log(),
                level::ERR,
                "PIDSTATE",
                "Fatal error acquiring a producer id: {e}"
            );
            let fatal = Error::local(local::FAIL, format!("fatal: cannot get a producer id: {e}"));
            let f = if let Error::Kafka { code, .. } = e {
                Error::kafka(code, "InitProducerId")
            } else {
                fatal
            };
            sh.set_fatal(&mut acc, f);
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

/// Statistics of batches taken to be sent to `leader`: each message's wait
/// in the producer (`int_latency`), each batch's size and message count
/// (`batchsize`, `batchcnt` of its topic).
fn record_taken(
    acc: &mut super::accumulator::Acc,
    leader: i32,
    batches: &[Batch],
    now: Instant,
    message_timeout: Duration,
) {
    let lat = acc.int_latency.entry(leader).or_default();
    for b in batches {
        for m in &b.msgs {
            let us = super::accumulator::latency_us(now, m.deadline, message_timeout);
            lat.add(us.max(0) as u64);
        }
    }
    for b in batches {
        if let Some(tq) = acc.topics.get_mut(&b.tp.0) {
            let size = match (&b.bytes, &b.builder) {
                (Some(bytes), _) => bytes.len(),
                (None, Some(builder)) => builder.size_in_bytes(),
                (None, None) => b.total_size,
            };
            tq.batch_size.add(size as u64);
            tq.batch_cnt.add(b.msgs.len() as u64);
        }
    }
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
        let (batch, plain) = builder
            .transactional(txn)
            .finish_keeping(codec, sh.settings.level)?;
        let bytes = Bytes::from(batch);
        // the reports read keys and values from the uncompressed records
        b.records = Some(match plain {
            Some(p) => records_of(&Bytes::from(p)),
            None => records_of(&bytes),
        });
        b.bytes = Some(bytes.clone());
        return Ok(bytes);
    }
    // an old broker: re-encode as a message set (magic 1 for Produce v2, else 0)
    let plain = Bytes::from(builder.finish(Codec::None, None)?);
    b.records = Some(records_of(&plain));
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

fn send_batches(sh: &Arc<Shared>, leader: i32, tokens: Vec<u64>) {
    let deadline = Instant::now()
        + sh.settings.socket_timeout
        + Duration::from_millis(sh.settings.ack_timeout_ms as u64);
    let conn = match sh.cluster.conn(leader, Purpose::Produce) {
        Ok(c) => c,
        Err(e) => return fail_request(sh, &tokens, &e, true),
    };
    let mut version = match conn.version_for::<ProduceRequest>(deadline) {
        Ok(v) => v,
        Err(e) => return fail_request(sh, &tokens, &e, conn.cannot_connect()),
    };
    let producer = sh.acc().producer;
    let txn = sh.settings.transactional_id.clone();
    if txn.is_some() {
        // KIP-890 part 2: with transactions v2 a Produce v12+ adds its
        // partitions to the transaction itself; in v1 (or to a leader
        // without v12) the partitions are added first and Produce stays
        // below v12.
        let v2 = sh.txn().v2;
        if !v2 {
            version = version.min(super::txn::PRODUCE_MAX_VERSION_V1);
        }
        let tps: Vec<Tp> = {
            let acc = sh.acc();
            tokens
                .iter()
                .filter_map(|t| acc.inflight.get(t))
                .flatten()
                .map(|b| b.tp.clone())
                .collect()
        };
        if v2 && version > super::txn::PRODUCE_MAX_VERSION_V1 {
            super::txn::added_implicitly(sh, tps);
        } else if let Err(e) = super::txn::add_partitions(sh, &tps) {
            return fail_request(sh, &tokens, &e, false);
        }
    }
    for token in tokens {
        // taken out to encode outside the lock; a purge meanwhile shows in purge_gen
        let (this, gen) = {
            let mut acc = sh.acc();
            let Some(this) = acc.inflight.remove(&token) else {
                continue; // purged while the connection was being made
            };
            // An earlier batch of the partition went back to its queue while
            // this request waited its turn (its connection dropped between
            // two writes): this one must not overtake it. With idempotence a
            // partition's batches are sent in sequence order, a retry before
            // the later ones (KIP-98; the Java producer's and librdkafka's
            // rule), so it goes back too, behind it, with its sequence.
            let (this, behind): (Vec<Batch>, Vec<Batch>) = this.into_iter().partition(|b| {
                !acc.part(&b.tp)
                    .is_some_and(|pq| pq.ready.iter().any(|x| x.seq_no < b.seq_no))
            });
            let now = Instant::now();
            for b in behind {
                if let Some(pq) = acc.part_mut(&b.tp) {
                    pq.in_flight -= 1;
                }
                acc.requeue(b, now);
            }
            if this.is_empty() {
                continue;
            }
            acc.encoding += 1;
            (this, acc.purge_gen)
        };
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
                    ok.push(b);
                }
                Err(e) => failed.push((b, e)),
            }
        }
        let mut acc = sh.acc();
        let reports = !failed.is_empty();
        for (b, e) in failed {
            if let Some(pq) = acc.part_mut(&b.tp) {
                pq.in_flight -= 1;
            }
            acc.complete(b, Err(e));
        }
        if acc.purge_gen != gen {
            // the queues were purged while these were being encoded
            acc.encoding -= 1;
            for b in ok {
                if let Some(pq) = acc.part_mut(&b.tp) {
                    pq.in_flight -= 1;
                }
                if b.base_sequence >= 0 {
                    acc.need_epoch_bump = true;
                }
                let e = Error::local(
                    local::PURGE_QUEUE,
                    format!("{} [{}]: purged from the queue", b.tp.0, b.tp.1),
                );
                acc.complete(b, Err(e));
            }
            drop(acc);
            sh.changed.notify_all();
            continue;
        }
        if ok.is_empty() {
            acc.encoding -= 1;
            drop(acc);
            sh.changed.notify_all();
            continue;
        }
        for b in &mut ok {
            b.sent = true;
        }
        let req = ProduceRequest {
            transactional_id: txn.clone(),
            acks: sh.settings.acks,
            timeout_ms: sh.settings.ack_timeout_ms,
            topic_data: topics,
            ..Default::default()
        };
        if sh.settings.acks == 0 {
            drop(acc);
            let r = conn.send_oneway(&req, version, deadline);
            let mut acc = sh.acc();
            acc.encoding -= 1;
            for mut b in ok {
                if let Some(pq) = acc.part_mut(&b.tp) {
                    pq.in_flight -= 1;
                }
                match &r {
                    Ok(()) => acc.complete(b, Ok((-1, -1))),
                    Err(e) => {
                        b.possibly_persisted |= possibly_persisted(e);
                        acc.complete(b, Err(e.clone()));
                    }
                }
            }
            drop(acc);
            sh.changed.notify_all();
            continue;
        }
        // written from here on, as far as a purge goes: it reports these
        // as purged in flight and the answer finds nothing
        acc.encoding -= 1;
        acc.inflight.insert(token, ok);
        acc.requests.push((conn.clone(), token, deadline));
        let notify = reports || acc.purge_waiting > 0;
        drop(acc);
        let weak: Weak<Shared> = Arc::downgrade(sh);
        let conn2 = conn.clone();
        // the callback runs exactly once, whatever happens to the request
        let _ = conn.send_with(
            &req,
            version,
            deadline,
            move |r: Result<ProduceResponse>| {
                if let Some(sh) = weak.upgrade() {
                    on_response(&sh, &conn2, token, r);
                }
            },
        );
        // Only a purge waiting for the encoding to end, or the reports of
        // batches that failed to encode, concern the waiters on `changed`;
        // they hear of it after the write. The application thread, usually
        // waiting in poll, is not woken for nothing while the request is
        // on its way.
        if notify {
            sh.changed.notify_all();
        }
    }
}

/// Errors after which a written request may have been written to the log
/// (librdkafka's `RD_KAFKA_ERR_ACTION_MSG_POSSIBLY_PERSISTED` cases).
fn possibly_persisted(e: &Error) -> bool {
    match e {
        Error::Kafka { code, .. } => matches!(
            *code,
            KafkaCode::REQUEST_TIMED_OUT | KafkaCode::NOT_ENOUGH_REPLICAS_AFTER_APPEND
        ),
        e => matches!(
            e.code(),
            local::TRANSPORT
                | local::SSL
                | local::TIMED_OUT
                | local::MSG_TIMED_OUT
                | local::BAD_MSG
                | local::PURGE_INFLIGHT
        ),
    }
}

/// Requests that could not even be sent: every batch takes the retry path
/// (not persisted: nothing was written).
fn fail_request(sh: &Shared, tokens: &[u64], e: &Error, broker_down: bool) {
    let mut acc = sh.acc();
    for t in tokens {
        for b in acc.inflight.remove(t).unwrap_or_default() {
            if let Some(pq) = acc.part_mut(&b.tp) {
                pq.in_flight -= 1;
            }
            retry_or_fail(sh, &mut acc, b, e.clone(), broker_down);
        }
    }
    drop(acc);
    sh.wake.notify_all();
    sh.changed.notify_all();
}

fn on_response(sh: &Shared, conn: &BrokerConn, token: u64, r: Result<ProduceResponse>) {
    let mut acc = sh.acc();
    let name = conn.name().to_string();
    acc.requests.retain(|(_, t, _)| *t != token);
    let Some(batches) = acc.inflight.remove(&token) else {
        // purged in flight: the answer is ignored (librdkafka's rule)
        return;
    };
    let tps: Vec<Tp> = batches.iter().map(|b| b.tp.clone()).collect();
    for mut b in batches {
        if let Some(pq) = acc.part_mut(&b.tp) {
            pq.in_flight -= 1;
        }
        let resp = match &r {
            Ok(resp) => resp,
            Err(e) => {
                b.possibly_persisted |= possibly_persisted(e);
                retry_or_fail(sh, &mut acc, b, e.clone(), conn.cannot_connect());
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
            b.possibly_persisted = true;
            retry_or_fail(sh, &mut acc, b, e, false);
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
        b.possibly_persisted |= possibly_persisted(&e);
        log::debug!(
            sh.cluster.log(),
            ctx::MSG,
            "MSGSET",
            "{name}: {} [{}]: MessageSet with {} message(s) (attempt {}) encountered error: {e}",
            b.tp.0,
            b.tp.1,
            b.msgs.len(),
            b.attempts + 1
        );
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
                sh.set_fatal(&mut acc, e.clone());
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
                    retry_or_fail(sh, &mut acc, b, e, false);
                } else {
                    b.attempts += 1;
                    log::debug!(
                        sh.cluster.log(),
                        ctx::MSG | ctx::PROTOCOL,
                        "RETRY",
                        "{} [{}]: retrying {} message(s) at once (retry {}/{}): \
                         leader moved to {}: {e}",
                        b.tp.0,
                        b.tp.1,
                        b.msgs.len(),
                        b.attempts,
                        sh.settings.retries,
                        p.current_leader.leader_id
                    );
                    acc.requeue(b, Instant::now());
                }
            }
            _ => retry_or_fail(sh, &mut acc, b, e, false),
        }
    }
    let wake_sender = acc.sender_needed_after(&tps);
    drop(acc);
    // the application first (its report is ready), then the sender if the
    // answer left it work (a retry, a batch held back by the in-flight
    // limit, an epoch bump)
    sh.changed.notify_all();
    if wake_sender {
        sh.wake.notify_all();
    }
}

/// True if an earlier batch of the partition is waiting for a retry or in flight.
fn earlier_outstanding(acc: &super::accumulator::Acc, tp: &Tp, seq_no: u64) -> bool {
    acc.part(tp)
        .is_some_and(|pq| pq.ready.iter().any(|b| b.seq_no < seq_no) || pq.in_flight > 0)
}

fn retry_or_fail(
    sh: &Shared,
    acc: &mut super::accumulator::Acc,
    mut b: Batch,
    e: Error,
    broker_down: bool,
) {
    let action = match &e {
        Error::Kafka { code, .. } => code.action(),
        // The leader cannot be reached (its connection cannot be made): the
        // leader may have moved, or the whole cluster (KIP-899 re-bootstrap
        // starts from a metadata request), as librdkafka refreshes metadata
        // when a broker goes down. A connection that dropped while the
        // broker still accepts new ones is retried without the refresh, which
        // would hold every partition of the topic back behind a metadata
        // round trip at each drop.
        e if e.code() == local::TRANSPORT && broker_down => ErrorAction::RefreshMetadataAndRetry,
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
        log::debug!(
            sh.cluster.log(),
            ctx::MSG,
            "MSGSET",
            "{} [{}]: {} message(s) failed after {} attempt(s): {e}",
            b.tp.0,
            b.tp.1,
            b.msgs.len(),
            b.attempts
        );
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
    log::debug!(
        sh.cluster.log(),
        ctx::MSG | ctx::PROTOCOL,
        "RETRY",
        "{} [{}]: retrying {} message(s) in {} ms (retry {}/{}{}): {e}",
        b.tp.0,
        b.tp.1,
        b.msgs.len(),
        backoff.as_millis(),
        b.attempts,
        sh.settings.retries,
        if action == ErrorAction::RefreshMetadataAndRetry {
            ", metadata refresh"
        } else {
            ""
        }
    );
    acc.requeue(b, Instant::now() + backoff);
}
