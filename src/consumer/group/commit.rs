//! The member's offsets: the stored positions, OffsetCommit (one of the
//! member's in flight at a time, retried on coordinator errors), the
//! coordinator's connection, and commit results for poll.

use std::sync::atomic::Ordering;
use std::time::Instant;

use super::cgrp_stats::CgrpState;
use super::membership::Group;
use crate::cluster::Cluster;
use crate::consumer::coordinator;
use crate::consumer::group_events::GroupEvent;
use crate::consumer::session::Tp;
use crate::consumer::state::Shared;
use crate::consumer::TopicPartitionOffset;
use crate::error::{local, Error, Result};
use crate::net::BrokerConn;
use crate::protocol::offset_commit::{
    OffsetCommitRequest, OffsetCommitRequestPartition, OffsetCommitRequestTopic,
};
use crate::protocol::KafkaCode;

/// The stored offsets not committed yet, of `only` (or every assigned
/// partition), as commit entries: what an automatic or an application's
/// commit sends (librdkafka skips a partition whose stored offset is
/// committed already).
pub(crate) fn uncommitted(shared: &Shared, only: Option<&[Tp]>) -> Vec<TopicPartitionOffset> {
    stored_offsets(shared, only, false)
}

pub(super) fn stored_offsets(
    shared: &Shared,
    only: Option<&[Tp]>,
    all: bool,
) -> Vec<TopicPartitionOffset> {
    let mut st = shared.lock();
    st.fold_stored();
    let mut out: Vec<TopicPartitionOffset> = st
        .parts
        .iter()
        .filter(|(k, _)| only.is_none_or(|o| o.contains(k)))
        .filter(|(_, p)| p.stored >= 0 && (all || p.stored != p.committed))
        .map(|(k, p)| {
            let mut t = TopicPartitionOffset::new(&*k.0, k.1, p.stored);
            t.leader_epoch = (p.stored_epoch >= 0).then_some(p.stored_epoch);
            t.metadata = p.stored_meta.clone();
            t
        })
        .collect();
    out.sort_by(|a, b| (&a.topic, a.partition).cmp(&(&b.topic, b.partition)));
    out
}

/// Removes partitions from the consumer and returns their stored offsets,
/// committed or not, as the final commit sends them (so nothing more is handed out
/// for them before the commit that gives them up).
pub(crate) fn take_parts(shared: &Shared, keys: &[Tp]) -> Vec<TopicPartitionOffset> {
    let stored = {
        let mut st = shared.lock();
        st.fold_stored();
        let mut out = Vec::new();
        for k in keys {
            if let Some(p) = st.parts.get(k) {
                if p.stored >= 0 {
                    let mut t = TopicPartitionOffset::new(&*k.0, k.1, p.stored);
                    t.leader_epoch = (p.stored_epoch >= 0).then_some(p.stored_epoch);
                    t.metadata = p.stored_meta.clone();
                    out.push(t);
                }
            }
            crate::consumer::assignment::remove_part(shared, &mut st, k);
        }
        out
    };
    shared.work.notify_all();
    stored
}

/// OffsetCommit of `offsets` for the group, as the member it is now
/// (generation and member id when joined; -1 and "" otherwise, as a
/// consumer of assigned partitions commits). Retries coordinator errors
/// until `deadline`. Answers the entries with their errors.
///
/// # Errors
/// `_NO_OFFSET` for nothing to commit; the coordinator lookup's or the
/// request's error.
pub(crate) fn commit(
    group: &Group,
    cluster: &Cluster,
    shared: &Shared,
    offsets: &[TopicPartitionOffset],
    deadline: Instant,
) -> Result<Vec<TopicPartitionOffset>> {
    if offsets.is_empty() {
        return Err(Error::local(local::NO_OFFSET, "no offsets to commit"));
    }
    commit_with(group, cluster, shared, deadline, |_| offsets.to_vec())
}

/// Commits the stored offsets of `only` (or of every assigned partition):
/// those not committed yet ([`uncommitted`]), or with `all` every one,
/// committed or not — what the commit before giving partitions up sends
/// (on a revocation and on close), as the Java consumer commits all
/// consumed positions then: Kafka orders commits only per connection, so
/// an earlier commit a slow network delivered late (after its connection
/// was given up) can set a partition's committed offset back, and
/// restating every position in the member's last commit puts it right
/// before the partition moves. Each attempt, a retry included, reads them again
/// when its turn comes, so a retry never sends an offset older than one
/// another commit of this member has made since: a retried automatic
/// commit would otherwise set back what the commit on close had just
/// committed, and the partition's next owner would read it all again.
///
/// # Errors
/// `_NO_OFFSET` when there is nothing to commit; as [`commit`].
pub(crate) fn commit_stored(
    group: &Group,
    cluster: &Cluster,
    shared: &Shared,
    only: Option<&[Tp]>,
    all: bool,
    deadline: Instant,
) -> Result<Vec<TopicPartitionOffset>> {
    if stored_offsets(shared, only, all).is_empty() {
        return Err(Error::local(local::NO_OFFSET, "no offsets to commit"));
    }
    commit_with(group, cluster, shared, deadline, |_| {
        stored_offsets(shared, only, all)
    })
}

/// The commit loop: `offsets(retry)` gives each attempt's offsets when its
/// turn comes (one OffsetCommit of the member in flight at a time); an
/// attempt with nothing left to commit ends the loop.
pub(super) fn commit_with(
    group: &Group,
    cluster: &Cluster,
    shared: &Shared,
    deadline: Instant,
    mut offsets: impl FnMut(u32) -> Vec<TopicPartitionOffset>,
) -> Result<Vec<TopicPartitionOffset>> {
    let mut retries = 0;
    loop {
        let backoff = cluster.retry_backoff(retries);
        if !group.commit_turn(deadline) {
            return Err(Error::local(
                local::TIMED_OUT,
                "offset commit: another commit of this member was still in flight",
            ));
        }
        let now = offsets(retries);
        if now.is_empty() {
            group.commit_turn_end();
            return Ok(Vec::new());
        }
        let attempt = commit_once(group, cluster, &now, deadline);
        group.commit_turn_end();
        let retry = match &attempt {
            Err(e) => e.is_retriable() || e.code() == local::TRANSPORT,
            Ok(entries) => entries.iter().any(|e| {
                e.error
                    .as_ref()
                    .and_then(Error::kafka_code)
                    // KIP-848: a stale member epoch is retried with the
                    // epoch the next heartbeat brings
                    .is_some_and(|c| coordinator_moved(c) || c == KafkaCode::STALE_MEMBER_EPOCH)
            }),
        };
        if retry {
            crate::log::debug!(
                cluster.log(),
                crate::log::ctx::CGRP,
                "COMMIT",
                "Group \"{}\": offset commit retried: {}",
                group.settings.group_id,
                match &attempt {
                    Err(e) => e.to_string(),
                    Ok(entries) => first_error(entries)
                        .err()
                        .map(|e| e.to_string())
                        .unwrap_or_default(),
                }
            );
            group.lock().clear_coord();
            if Instant::now() + backoff < deadline {
                std::thread::sleep(backoff);
                retries += 1;
                continue;
            }
        }
        let entries = attempt?;
        // remember what is committed, so auto commit skips it
        {
            let mut st = shared.lock();
            for e in entries.iter().filter(|e| e.error.is_none()) {
                if let Some(p) = st.parts.get_mut(&e.key()) {
                    p.committed = e.offset;
                    p.committed_epoch = e.leader_epoch.unwrap_or(-1);
                }
            }
        }
        // a generation that is gone: rejoin (the heartbeat learns the rest)
        if let Some(code) = entries
            .iter()
            .filter_map(|e| e.error.as_ref().and_then(Error::kafka_code))
            .find(|c| {
                matches!(
                    *c,
                    KafkaCode::ILLEGAL_GENERATION
                        | KafkaCode::UNKNOWN_MEMBER_ID
                        | KafkaCode::REBALANCE_IN_PROGRESS
                )
            })
        {
            let mut m = group.lock();
            if m.joined {
                m.rejoin = true;
                // the classic member rebalances for it (the KIP-848 one
                // only heartbeats sooner), as librdkafka
                if !group.settings.consumer_protocol && code != KafkaCode::REBALANCE_IN_PROGRESS {
                    m.cgrp
                        .reason(format!("OffsetCommit error: {}", code.name()));
                }
            }
            drop(m);
            group.cv.notify_all();
        }
        return Ok(entries);
    }
}

pub(super) fn coordinator_moved(c: KafkaCode) -> bool {
    matches!(
        c,
        KafkaCode::NOT_COORDINATOR
            | KafkaCode::COORDINATOR_NOT_AVAILABLE
            | KafkaCode::COORDINATOR_LOAD_IN_PROGRESS
            | KafkaCode::REQUEST_TIMED_OUT
    )
}

/// The coordinator's connection, cached in the member state.
pub(super) fn coordinator(
    group: &Group,
    cluster: &Cluster,
    deadline: Instant,
) -> Result<BrokerConn> {
    {
        let mut m = group.lock();
        if let Some(c) = m.coord() {
            return Ok(c.clone());
        }
        m.cgrp.set_state(CgrpState::QueryCoord);
    }
    let c = coordinator::coordinator(cluster, &group.settings.group_id, deadline)?;
    group.lock().set_coord(c.clone());
    Ok(c)
}

pub(super) fn commit_once(
    group: &Group,
    cluster: &Cluster,
    offsets: &[TopicPartitionOffset],
    deadline: Instant,
) -> Result<Vec<TopicPartitionOffset>> {
    let s = &group.settings;
    let conn = coordinator(group, cluster, deadline)?;
    let version = conn.version_for::<OffsetCommitRequest>(deadline)?;
    let (member_id, generation) = {
        let m = group.lock();
        if m.joined {
            (m.member_id.clone(), m.generation)
        } else {
            (String::new(), -1)
        }
    };
    let mut topics: Vec<OffsetCommitRequestTopic> = Vec::new();
    for o in offsets {
        let part = OffsetCommitRequestPartition {
            partition_index: o.partition,
            committed_offset: o.offset,
            committed_leader_epoch: if version >= 6 {
                o.leader_epoch.unwrap_or(-1)
            } else {
                -1
            },
            commit_timestamp: -1,
            committed_metadata: Some(o.metadata.clone().unwrap_or_default()),
            ..Default::default()
        };
        match topics.iter_mut().find(|t| t.name == o.topic) {
            Some(t) => t.partitions.push(part),
            None => topics.push(OffsetCommitRequestTopic {
                name: o.topic.clone(),
                partitions: vec![part],
                ..Default::default()
            }),
        }
    }
    let req = OffsetCommitRequest {
        group_id: s.group_id.clone(),
        generation_id_or_member_epoch: generation,
        member_id,
        group_instance_id: if version >= 7 && generation >= 0 {
            s.instance_id.clone()
        } else {
            None
        },
        retention_time_ms: -1,
        topics,
        ..Default::default()
    };
    let resp = match conn.send_at(&req, version, deadline) {
        Ok(p) => p.wait_until(deadline),
        Err(e) => Err(e),
    };
    // as librdkafka's "COMMIT" debug line: what was committed, as which
    // member, and the answer
    crate::log::debug!(
        cluster.log(),
        crate::log::ctx::CGRP,
        "COMMIT",
        "Group \"{}\": OffsetCommit v{version} (generation {generation}) of {} to {}: {}",
        s.group_id,
        fmt_offsets(offsets),
        conn.name(),
        match &resp {
            Ok(r) => match r
                .topics
                .iter()
                .flat_map(|t| t.partitions.iter().map(move |p| (&t.name, p)))
                .find(|(_, p)| p.error_code != 0)
            {
                None => "Success".to_string(),
                Some((t, p)) => format!(
                    "{t} [{}]: {}",
                    p.partition_index,
                    KafkaCode(p.error_code).name()
                ),
            },
            Err(e) => e.to_string(),
        }
    );
    let resp = match resp {
        Ok(r) => r,
        Err(e) => {
            if e.code() == local::TRANSPORT || e.code() == local::TIMED_OUT {
                group.lock().clear_coord();
            }
            return Err(e);
        }
    };
    Ok(offsets
        .iter()
        .map(|o| {
            let code = resp
                .topics
                .iter()
                .filter(|t| t.name == o.topic)
                .flat_map(|t| t.partitions.iter())
                .find(|p| p.partition_index == o.partition)
                .map(|p| p.error_code);
            let mut e = o.clone();
            e.error = match code {
                Some(0) => None,
                Some(c) => Some(Error::kafka(
                    KafkaCode(c),
                    format!(
                        "{} [{}] offset commit of group {:?}",
                        o.topic, o.partition, s.group_id
                    ),
                )),
                None => Some(Error::local(
                    local::BAD_MSG,
                    format!("OffsetCommit answer lacks {} [{}]", o.topic, o.partition),
                )),
            };
            e
        })
        .collect())
}

/// The first entry error of a commit answer.
pub(crate) fn first_error(entries: &[TopicPartitionOffset]) -> Result<()> {
    match entries.iter().find_map(|e| e.error.clone()) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Queues a commit's outcome for the commit callback, when there is one
/// (`asked`: the offsets reported when the whole request failed).
pub(super) fn queue_commit_result(
    group: &Group,
    shared: &Shared,
    r: Result<Vec<TopicPartitionOffset>>,
    asked: Vec<TopicPartitionOffset>,
) {
    if !group.has_commit_cb.load(Ordering::Acquire) {
        return;
    }
    let (result, offsets) = match r {
        Ok(entries) => (first_error(&entries), entries),
        Err(e) => (Err(e), asked),
    };
    let mut st = shared.lock();
    st.group_events
        .push_back(GroupEvent::Commit { result, offsets });
    shared.queued(st);
}

/// `enable.auto.commit`: commits what poll returned and is not committed yet.
pub(super) fn auto_commit(group: &Group, cluster: &Cluster, shared: &Shared) {
    let offsets = uncommitted(shared, None);
    if offsets.is_empty() {
        return;
    }
    let deadline = Instant::now() + group.settings.socket_timeout;
    let r = commit_stored(group, cluster, shared, None, false, deadline);
    if matches!(&r, Ok(e) if e.is_empty()) {
        // another commit of this member took them meanwhile
        return;
    }
    queue_commit_result(group, shared, r, offsets);
}

/// `commit_async`: the given offsets, or what is not committed yet.
pub(super) fn async_commit(
    group: &Group,
    cluster: &Cluster,
    shared: &Shared,
    offsets: Option<Vec<TopicPartitionOffset>>,
) {
    let deadline = Instant::now() + group.settings.socket_timeout;
    let (r, offsets) = match offsets {
        Some(o) if o.is_empty() => (
            Err(Error::local(local::NO_OFFSET, "no offsets to commit")),
            o,
        ),
        Some(o) => (commit(group, cluster, shared, &o, deadline), o),
        None => (
            commit_stored(group, cluster, shared, None, false, deadline),
            uncommitted(shared, None),
        ),
    };
    queue_commit_result(group, shared, r, offsets);
}

/// "topic [p] @ offset, …" for log lines (at most 20 named).
pub(super) fn fmt_offsets(offsets: &[TopicPartitionOffset]) -> String {
    let mut out: Vec<String> = offsets
        .iter()
        .take(20)
        .map(|o| format!("{} [{}] @ {}", o.topic, o.partition, o.offset))
        .collect();
    if offsets.len() > 20 {
        out.push(format!("and {} more", offsets.len() - 20));
    }
    out.join(", ")
}
