//! The group coordinator for classic groups: Kafka's generation state
//! machine (Empty → PreparingRebalance → CompletingRebalance → Stable),
//! KIP-394's MEMBER_ID_REQUIRED, session timeouts, committed offsets
//! (including those committed in a transaction), and the group admin APIs.

use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use super::ctx::Ctx;
use super::shared::Shared;
use super::state::{Committed, Group, GroupState, Member, State};
use crate::protocol::delete_groups::*;
use crate::protocol::describe_groups::*;
use crate::protocol::heartbeat::*;
use crate::protocol::join_group::*;
use crate::protocol::leave_group::*;
use crate::protocol::list_groups::*;
use crate::protocol::offset_commit::*;
use crate::protocol::offset_delete::*;
use crate::protocol::offset_fetch::*;
use crate::protocol::sync_group::*;
use crate::protocol::txn_offset_commit::*;
use crate::protocol::KafkaCode;
use crate::wire::Bytes;

/// Starts the thread that expires members and ends rebalance rounds on
/// their deadlines; it stops when the cluster is dropped.
pub(crate) fn start_ticker(shared: &Arc<Shared>) {
    let weak: Weak<Shared> = Arc::downgrade(shared);
    let _ = std::thread::Builder::new()
        .name("gregor mock groups".into())
        .spawn(move || loop {
            std::thread::sleep(Duration::from_millis(50));
            let Some(sh) = weak.upgrade() else { return };
            let mut st = sh.lock();
            if st.shutdown {
                return;
            }
            let now = Instant::now();
            let mut changed = false;
            for g in st.groups.values_mut() {
                changed |= tick(g, now);
            }
            drop(st);
            if changed {
                sh.changed.notify_all();
            }
        });
}

/// Expires members whose session ran out and completes a round whose
/// deadline passed; true if anything changed.
fn tick(g: &mut Group, now: Instant) -> bool {
    let waiting = g.state == GroupState::PreparingRebalance;
    let expired: Vec<String> = g
        .members
        .iter()
        .filter(|(_, m)| {
            !(waiting && m.joined) && now.duration_since(m.last_seen) > m.session_timeout
        })
        .map(|(id, _)| id.clone())
        .collect();
    let mut changed = false;
    for id in expired {
        g.members.remove(&id);
        changed = true;
    }
    if changed {
        rebalance(g, now);
    }
    if g.state == GroupState::PreparingRebalance {
        changed |= try_complete(g, now);
    }
    changed
}

/// Starts a rebalance round (or empties the group if nobody is left).
fn rebalance(g: &mut Group, now: Instant) {
    if g.members.is_empty() {
        if g.state != GroupState::Empty {
            g.generation += 1;
        }
        g.state = GroupState::Empty;
        g.leader = None;
        g.protocol = None;
        g.deadline = None;
        g.round += 1;
        return;
    }
    if g.state != GroupState::PreparingRebalance {
        g.state = GroupState::PreparingRebalance;
        for m in g.members.values_mut() {
            m.joined = false;
        }
        let timeout = g
            .members
            .values()
            .map(|m| m.rebalance_timeout)
            .max()
            .unwrap_or_default();
        g.deadline = Some(now + timeout);
    }
}

/// Completes the round if every member has rejoined (or the deadline
/// passed, dropping those that did not); true if it completed.
fn try_complete(g: &mut Group, now: Instant) -> bool {
    let all = g.members.values().all(|m| m.joined);
    let late = g.deadline.is_some_and(|d| now >= d);
    if !(all || late) || g.not_before.is_some_and(|t| now < t && !late) {
        return false;
    }
    g.members.retain(|_, m| m.joined);
    g.not_before = None;
    g.deadline = None;
    g.generation += 1;
    g.round += 1;
    if g.members.is_empty() {
        g.state = GroupState::Empty;
        g.leader = None;
        g.protocol = None;
        return true;
    }
    // The protocol every member supports that is most preferred by them
    // (Kafka's vote, ties to the leader's order).
    let leader = match &g.leader {
        Some(l) if g.members.contains_key(l) => l.clone(),
        _ => g.members.keys().next().cloned().unwrap_or_default(),
    };
    let candidates: Vec<String> = g.members[&leader]
        .protocols
        .iter()
        .map(|(n, _)| n.clone())
        .filter(|n| {
            g.members
                .values()
                .all(|m| m.protocols.iter().any(|(p, _)| p == n))
        })
        .collect();
    let best = candidates
        .iter()
        .max_by_key(|c| {
            let votes = g
                .members
                .values()
                .filter(|m| {
                    m.protocols
                        .iter()
                        .find(|(p, _)| candidates.contains(p))
                        .is_some_and(|(p, _)| p == *c)
                })
                .count();
            (
                votes,
                std::cmp::Reverse(candidates.iter().position(|x| x == *c)),
            )
        })
        .cloned();
    g.protocol = best;
    g.leader = Some(leader);
    for m in g.members.values_mut() {
        m.assignment = Bytes::new();
        m.last_seen = now;
    }
    g.state = GroupState::CompletingRebalance;
    true
}

fn wait<'a>(
    ctx: &Ctx<'a>,
    st: std::sync::MutexGuard<'a, State>,
    until: Instant,
) -> std::sync::MutexGuard<'a, State> {
    let d = until
        .saturating_duration_since(Instant::now())
        .min(Duration::from_millis(100));
    ctx.shared
        .changed
        .wait_timeout(st, d)
        .map(|(g, _)| g)
        .unwrap_or_else(|e| e.into_inner().0)
}

fn new_member_id(client_id: &str) -> String {
    let r = super::state::random_u64();
    format!(
        "{}-{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        if client_id.is_empty() {
            "member"
        } else {
            client_id
        },
        r >> 32,
        (r >> 16) & 0xffff,
        r & 0xffff,
        super::state::random_u64() & 0xffff,
        super::state::random_u64() & 0xffff_ffff_ffff
    )
}

/// The group-coordinator check every group API starts with.
fn not_coordinator(ctx: &Ctx<'_>, st: &State, group: &str) -> Option<i16> {
    if let Some(e) = ctx.inject {
        return Some(e);
    }
    (st.coordinator(0, group) != ctx.broker).then_some(KafkaCode::NOT_COORDINATOR.0)
}

pub(crate) fn join_group(ctx: &Ctx<'_>, req: JoinGroupRequest) -> Option<JoinGroupResponse> {
    let fail = |e: i16, member_id: String| {
        Some(JoinGroupResponse {
            error_code: e,
            generation_id: -1,
            protocol_name: if ctx.version >= 7 {
                None
            } else {
                Some(String::new())
            },
            member_id,
            ..Default::default()
        })
    };
    let mut st = ctx.shared.lock();
    if let Some(e) = not_coordinator(ctx, &st, &req.group_id) {
        return fail(e, req.member_id);
    }
    if req.group_id.is_empty() {
        return fail(KafkaCode::INVALID_GROUP_ID.0, req.member_id);
    }
    if req.protocols.is_empty() || req.protocol_type.is_empty() {
        return fail(KafkaCode::INCONSISTENT_GROUP_PROTOCOL.0, req.member_id);
    }
    let now = Instant::now();
    let delay = st.initial_rebalance_delay;
    let g = st
        .groups
        .entry(req.group_id.clone())
        .or_insert_with(|| Group::new(&req.protocol_type));
    if g.state != GroupState::Empty || !g.members.is_empty() {
        if g.protocol_type != req.protocol_type
            || !req.protocols.iter().any(|p| {
                g.members
                    .values()
                    .filter(|m| {
                        m.protocols.iter().any(|(n, _)| n == &p.name) || m.protocols.is_empty()
                    })
                    .count()
                    == g.members.len()
            })
        {
            return fail(KafkaCode::INCONSISTENT_GROUP_PROTOCOL.0, req.member_id);
        }
    } else {
        g.protocol_type = req.protocol_type.clone();
    }
    let mut member_id = req.member_id.clone();
    if member_id.is_empty() {
        member_id = new_member_id(&ctx.client_id);
        if ctx.version >= 4 {
            // KIP-394: hand out the ID and make the member join again with it.
            g.pending.insert(member_id.clone());
            return fail(KafkaCode::MEMBER_ID_REQUIRED.0, member_id);
        }
    } else if !g.members.contains_key(&member_id) && !g.pending.remove(&member_id) {
        return fail(KafkaCode::UNKNOWN_MEMBER_ID.0, member_id);
    }
    let session = Duration::from_millis(u64::try_from(req.session_timeout_ms).unwrap_or(0));
    let rebalance_ms = if req.rebalance_timeout_ms < 0 {
        req.session_timeout_ms
    } else {
        req.rebalance_timeout_ms
    };
    let was_empty = g.members.is_empty();
    let protocols: Vec<(String, Bytes)> = req
        .protocols
        .iter()
        .map(|p| (p.name.clone(), p.metadata.clone()))
        .collect();
    let same = g
        .members
        .get(&member_id)
        .is_some_and(|m| m.protocols == protocols);
    g.members.insert(
        member_id.clone(),
        Member {
            instance_id: req.group_instance_id.clone(),
            client_id: ctx.client_id.clone(),
            client_host: "/127.0.0.1".into(),
            session_timeout: session,
            rebalance_timeout: Duration::from_millis(u64::try_from(rebalance_ms).unwrap_or(0)),
            protocols,
            assignment: Bytes::new(),
            last_seen: now,
            joined: true,
        },
    );
    // A follower rejoining a stable group with unchanged metadata gets the
    // current generation back without a rebalance (as Kafka).
    let stable_rejoin =
        same && g.state == GroupState::Stable && g.leader.as_deref() != Some(member_id.as_str());
    if !stable_rejoin {
        if g.state != GroupState::PreparingRebalance {
            for m in g.members.values_mut() {
                m.joined = false;
            }
            g.state = GroupState::PreparingRebalance;
            let timeout = g
                .members
                .values()
                .map(|m| m.rebalance_timeout)
                .max()
                .unwrap_or_default();
            g.deadline = Some(now + timeout);
            if was_empty && !delay.is_zero() {
                g.not_before = Some(now + delay);
            }
        }
        if let Some(m) = g.members.get_mut(&member_id) {
            m.joined = true;
        }
        let round = g.round;
        if try_complete(g, now) {
            ctx.shared.changed.notify_all();
        }
        // Wait for the round to complete (the others rejoining, or the deadline).
        loop {
            let g = match st.groups.get(&req.group_id) {
                Some(g) => g,
                None => return fail(KafkaCode::UNKNOWN_MEMBER_ID.0, member_id),
            };
            if g.round != round || st.shutdown {
                break;
            }
            let until = g.deadline.unwrap_or(now) + Duration::from_millis(200);
            st = wait(ctx, st, until);
        }
    }
    let Some(g) = st.groups.get(&req.group_id) else {
        return fail(KafkaCode::UNKNOWN_MEMBER_ID.0, member_id);
    };
    if !g.members.contains_key(&member_id) || g.state == GroupState::Empty {
        return fail(KafkaCode::UNKNOWN_MEMBER_ID.0, member_id);
    }
    let protocol = g.protocol.clone().unwrap_or_default();
    let leader = g.leader.clone().unwrap_or_default();
    let members = if leader == member_id {
        g.members
            .iter()
            .map(|(id, m)| JoinGroupResponseMember {
                member_id: id.clone(),
                group_instance_id: m.instance_id.clone(),
                metadata: m
                    .protocols
                    .iter()
                    .find(|(n, _)| *n == protocol)
                    .map(|(_, md)| md.clone())
                    .unwrap_or_default(),
                ..Default::default()
            })
            .collect()
    } else {
        Vec::new()
    };
    Some(JoinGroupResponse {
        generation_id: g.generation,
        protocol_type: Some(g.protocol_type.clone()),
        protocol_name: Some(protocol),
        leader,
        member_id,
        members,
        ..Default::default()
    })
}

pub(crate) fn sync_group(ctx: &Ctx<'_>, req: SyncGroupRequest) -> Option<SyncGroupResponse> {
    let fail = |e: i16| {
        Some(SyncGroupResponse {
            error_code: e,
            ..Default::default()
        })
    };
    let mut st = ctx.shared.lock();
    if let Some(e) = not_coordinator(ctx, &st, &req.group_id) {
        return fail(e);
    }
    let now = Instant::now();
    let deadline = now + Duration::from_secs(300);
    loop {
        let Some(g) = st.groups.get_mut(&req.group_id) else {
            return fail(KafkaCode::UNKNOWN_MEMBER_ID.0);
        };
        let Some(m) = g.members.get_mut(&req.member_id) else {
            return fail(KafkaCode::UNKNOWN_MEMBER_ID.0);
        };
        m.last_seen = Instant::now();
        if req.generation_id != g.generation {
            return fail(KafkaCode::ILLEGAL_GENERATION.0);
        }
        match g.state {
            GroupState::Empty => return fail(KafkaCode::UNKNOWN_MEMBER_ID.0),
            GroupState::PreparingRebalance => return fail(KafkaCode::REBALANCE_IN_PROGRESS.0),
            GroupState::Stable => {
                return Some(SyncGroupResponse {
                    protocol_type: Some(g.protocol_type.clone()),
                    protocol_name: g.protocol.clone(),
                    assignment: g.members[&req.member_id].assignment.clone(),
                    ..Default::default()
                })
            }
            GroupState::CompletingRebalance => {
                if g.leader.as_deref() == Some(req.member_id.as_str()) {
                    for a in &req.assignments {
                        if let Some(m) = g.members.get_mut(&a.member_id) {
                            m.assignment = a.assignment.clone();
                        }
                    }
                    g.state = GroupState::Stable;
                    ctx.shared.changed.notify_all();
                    continue;
                }
            }
        }
        if st.shutdown || Instant::now() >= deadline {
            return fail(KafkaCode::REBALANCE_IN_PROGRESS.0);
        }
        st = wait(ctx, st, deadline);
    }
}

pub(crate) fn heartbeat(ctx: &Ctx<'_>, req: HeartbeatRequest) -> Option<HeartbeatResponse> {
    let mut st = ctx.shared.lock();
    let error_code = if let Some(e) = not_coordinator(ctx, &st, &req.group_id) {
        e
    } else {
        match st.groups.get_mut(&req.group_id) {
            None => KafkaCode::UNKNOWN_MEMBER_ID.0,
            Some(g) => match g.members.get_mut(&req.member_id) {
                None => KafkaCode::UNKNOWN_MEMBER_ID.0,
                Some(m) => {
                    m.last_seen = Instant::now();
                    if req.generation_id != g.generation {
                        KafkaCode::ILLEGAL_GENERATION.0
                    } else if g.state == GroupState::PreparingRebalance {
                        KafkaCode::REBALANCE_IN_PROGRESS.0
                    } else {
                        KafkaCode::NONE.0
                    }
                }
            },
        }
    };
    Some(HeartbeatResponse {
        error_code,
        ..Default::default()
    })
}

pub(crate) fn leave_group(ctx: &Ctx<'_>, req: LeaveGroupRequest) -> Option<LeaveGroupResponse> {
    let mut st = ctx.shared.lock();
    if let Some(e) = not_coordinator(ctx, &st, &req.group_id) {
        return Some(LeaveGroupResponse {
            error_code: e,
            ..Default::default()
        });
    }
    let ids: Vec<(String, Option<String>)> = if ctx.version >= 3 {
        req.members
            .iter()
            .map(|m| (m.member_id.clone(), m.group_instance_id.clone()))
            .collect()
    } else {
        vec![(req.member_id.clone(), None)]
    };
    let now = Instant::now();
    let mut members = Vec::new();
    let mut top = KafkaCode::NONE.0;
    match st.groups.get_mut(&req.group_id) {
        None => top = KafkaCode::UNKNOWN_MEMBER_ID.0,
        Some(g) => {
            for (id, instance) in ids {
                let id = if id.is_empty() {
                    g.members
                        .iter()
                        .find(|(_, m)| m.instance_id.is_some() && m.instance_id == instance)
                        .map(|(i, _)| i.clone())
                        .unwrap_or_default()
                } else {
                    id
                };
                let e = if g.members.remove(&id).is_some() {
                    KafkaCode::NONE.0
                } else {
                    KafkaCode::UNKNOWN_MEMBER_ID.0
                };
                if ctx.version < 3 {
                    top = e;
                    continue;
                }
                members.push(MemberResponse {
                    member_id: id,
                    group_instance_id: instance,
                    error_code: e,
                    ..Default::default()
                });
            }
            if g.state == GroupState::PreparingRebalance {
                try_complete(g, now);
            } else {
                rebalance(g, now);
            }
        }
    }
    drop(st);
    ctx.shared.changed.notify_all();
    Some(LeaveGroupResponse {
        error_code: top,
        members,
        ..Default::default()
    })
}

/// The member / generation check of a commit; `None` if it may go ahead.
fn commit_check(g: Option<&Group>, generation: i32, member: &str) -> Option<i16> {
    match g {
        None if generation < 0 => None,
        None => Some(KafkaCode::ILLEGAL_GENERATION.0),
        Some(g) if generation < 0 && member.is_empty() => {
            // A simple (non-group) commit needs an empty group.
            (!g.members.is_empty()).then_some(KafkaCode::UNKNOWN_MEMBER_ID.0)
        }
        Some(g) => {
            if !g.members.contains_key(member) {
                Some(KafkaCode::UNKNOWN_MEMBER_ID.0)
            } else if generation != g.generation {
                Some(KafkaCode::ILLEGAL_GENERATION.0)
            } else if g.state == GroupState::PreparingRebalance {
                Some(KafkaCode::REBALANCE_IN_PROGRESS.0)
            } else {
                None
            }
        }
    }
}

pub(crate) fn offset_commit(
    ctx: &Ctx<'_>,
    req: OffsetCommitRequest,
) -> Option<OffsetCommitResponse> {
    let mut st = ctx.shared.lock();
    let err = not_coordinator(ctx, &st, &req.group_id).or_else(|| {
        commit_check(
            st.groups.get(&req.group_id),
            if ctx.version == 0 {
                -1
            } else {
                req.generation_id_or_member_epoch
            },
            &req.member_id,
        )
    });
    let exists: Vec<Vec<bool>> = req
        .topics
        .iter()
        .map(|t| {
            t.partitions
                .iter()
                .map(|p| {
                    st.topics.get(&t.name).is_some_and(|tt| {
                        p.partition_index >= 0 && (p.partition_index as usize) < tt.partitions.len()
                    })
                })
                .collect()
        })
        .collect();
    let g = st
        .groups
        .entry(req.group_id.clone())
        .or_insert_with(|| Group::new("consumer"));
    let topics = req
        .topics
        .iter()
        .zip(exists)
        .map(|(t, ex)| OffsetCommitResponseTopic {
            name: t.name.clone(),
            partitions: t
                .partitions
                .iter()
                .zip(ex)
                .map(|(p, ok)| {
                    let error_code = match (err, ok) {
                        (Some(e), _) => e,
                        (None, false) => KafkaCode::UNKNOWN_TOPIC_OR_PARTITION.0,
                        (None, true) => {
                            g.offsets.insert(
                                (t.name.clone(), p.partition_index),
                                Committed {
                                    offset: p.committed_offset,
                                    leader_epoch: p.committed_leader_epoch,
                                    metadata: p.committed_metadata.clone(),
                                },
                            );
                            KafkaCode::NONE.0
                        }
                    };
                    OffsetCommitResponsePartition {
                        partition_index: p.partition_index,
                        error_code,
                        ..Default::default()
                    }
                })
                .collect(),
            ..Default::default()
        })
        .collect();
    Some(OffsetCommitResponse {
        topics,
        ..Default::default()
    })
}

/// (partition, offset, leader epoch, metadata, error code).
type FetchedOffset = (i32, i64, i32, Option<String>, i16);

/// One group's committed offsets for the asked partitions (all if `None`).
fn fetch_offsets(
    st: &State,
    group: &str,
    topics: Option<Vec<(String, Vec<i32>)>>,
    require_stable: bool,
) -> Vec<(String, Vec<FetchedOffset>)> {
    let g = st.groups.get(group);
    let wanted: Vec<(String, Vec<i32>)> = match topics {
        Some(t) => t,
        None => {
            let mut by: std::collections::BTreeMap<String, Vec<i32>> = Default::default();
            if let Some(g) = g {
                for (t, p) in g.offsets.keys() {
                    by.entry(t.clone()).or_default().push(*p);
                }
            }
            by.into_iter().collect()
        }
    };
    wanted
        .into_iter()
        .map(|(t, ps)| {
            let parts = ps
                .into_iter()
                .map(|p| {
                    let key = (t.clone(), p);
                    let pending = require_stable
                        && g.is_some_and(|g| g.txn_offsets.values().any(|m| m.contains_key(&key)));
                    if pending {
                        return (
                            p,
                            -1,
                            -1,
                            Some(String::new()),
                            KafkaCode::UNSTABLE_OFFSET_COMMIT.0,
                        );
                    }
                    match g.and_then(|g| g.offsets.get(&key)) {
                        Some(c) => (
                            p,
                            c.offset,
                            c.leader_epoch,
                            c.metadata.clone(),
                            KafkaCode::NONE.0,
                        ),
                        None => (p, -1, -1, Some(String::new()), KafkaCode::NONE.0),
                    }
                })
                .collect();
            (t, parts)
        })
        .collect()
}

pub(crate) fn offset_fetch(ctx: &Ctx<'_>, req: OffsetFetchRequest) -> Option<OffsetFetchResponse> {
    let st = ctx.shared.lock();
    if ctx.version >= 8 {
        let groups = req
            .groups
            .iter()
            .map(|gr| {
                if let Some(e) = not_coordinator(ctx, &st, &gr.group_id) {
                    return OffsetFetchResponseGroup {
                        group_id: gr.group_id.clone(),
                        error_code: e,
                        ..Default::default()
                    };
                }
                let topics = gr.topics.as_ref().map(|ts| {
                    ts.iter()
                        .map(|t| (t.name.clone(), t.partition_indexes.clone()))
                        .collect()
                });
                OffsetFetchResponseGroup {
                    group_id: gr.group_id.clone(),
                    topics: fetch_offsets(&st, &gr.group_id, topics, req.require_stable)
                        .into_iter()
                        .map(|(name, ps)| OffsetFetchResponseTopics {
                            name,
                            partitions: ps
                                .into_iter()
                                .map(
                                    |(
                                        partition_index,
                                        committed_offset,
                                        committed_leader_epoch,
                                        metadata,
                                        error_code,
                                    )| {
                                        OffsetFetchResponsePartitions {
                                            partition_index,
                                            committed_offset,
                                            committed_leader_epoch,
                                            metadata,
                                            error_code,
                                            ..Default::default()
                                        }
                                    },
                                )
                                .collect(),
                            ..Default::default()
                        })
                        .collect(),
                    ..Default::default()
                }
            })
            .collect();
        return Some(OffsetFetchResponse {
            groups,
            ..Default::default()
        });
    }
    if let Some(e) = not_coordinator(ctx, &st, &req.group_id) {
        return Some(OffsetFetchResponse {
            error_code: if ctx.version >= 2 { e } else { 0 },
            ..Default::default()
        });
    }
    let topics = req.topics.as_ref().map(|ts| {
        ts.iter()
            .map(|t| (t.name.clone(), t.partition_indexes.clone()))
            .collect()
    });
    Some(OffsetFetchResponse {
        topics: fetch_offsets(&st, &req.group_id, topics, req.require_stable)
            .into_iter()
            .map(|(name, ps)| OffsetFetchResponseTopic {
                name,
                partitions: ps
                    .into_iter()
                    .map(
                        |(
                            partition_index,
                            committed_offset,
                            committed_leader_epoch,
                            metadata,
                            error_code,
                        )| {
                            OffsetFetchResponsePartition {
                                partition_index,
                                committed_offset,
                                committed_leader_epoch,
                                metadata,
                                error_code,
                                ..Default::default()
                            }
                        },
                    )
                    .collect(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    })
}

pub(crate) fn txn_offset_commit(
    ctx: &Ctx<'_>,
    req: TxnOffsetCommitRequest,
) -> Option<TxnOffsetCommitResponse> {
    let mut st = ctx.shared.lock();
    let mut err = not_coordinator(ctx, &st, &req.group_id);
    if err.is_none() {
        // The producer must have added this group with AddOffsetsToTxn.
        let known = st.txns.get(&req.transactional_id).map(|t| {
            (
                t.producer_id,
                t.epoch,
                t.ongoing && t.groups.contains(&req.group_id),
            )
        });
        err = match known {
            None => Some(KafkaCode::INVALID_PRODUCER_ID_MAPPING.0),
            Some((pid, _, _)) if pid != req.producer_id => {
                Some(KafkaCode::INVALID_PRODUCER_ID_MAPPING.0)
            }
            Some((_, epoch, _)) if epoch != req.producer_epoch => {
                Some(KafkaCode::INVALID_PRODUCER_EPOCH.0)
            }
            Some((_, _, false)) => Some(KafkaCode::INVALID_TXN_STATE.0),
            _ if req.generation_id >= 0 => commit_check(
                st.groups.get(&req.group_id),
                req.generation_id,
                &req.member_id,
            ),
            _ => None,
        };
    }
    let g = st
        .groups
        .entry(req.group_id.clone())
        .or_insert_with(|| Group::new("consumer"));
    let topics = req
        .topics
        .iter()
        .map(|t| TxnOffsetCommitResponseTopic {
            name: t.name.clone(),
            partitions: t
                .partitions
                .iter()
                .map(|p| {
                    if err.is_none() {
                        g.txn_offsets.entry(req.producer_id).or_default().insert(
                            (t.name.clone(), p.partition_index),
                            Committed {
                                offset: p.committed_offset,
                                leader_epoch: p.committed_leader_epoch,
                                metadata: p.committed_metadata.clone(),
                            },
                        );
                    }
                    TxnOffsetCommitResponsePartition {
                        partition_index: p.partition_index,
                        error_code: err.unwrap_or(KafkaCode::NONE.0),
                        ..Default::default()
                    }
                })
                .collect(),
            ..Default::default()
        })
        .collect();
    Some(TxnOffsetCommitResponse {
        topics,
        ..Default::default()
    })
}

/// Applies (commit) or drops (abort) the offsets producer `pid` committed
/// in its transaction to `group`.
pub(crate) fn end_txn_offsets(st: &mut State, group: &str, pid: i64, commit: bool) {
    if let Some(g) = st.groups.get_mut(group) {
        if let Some(offsets) = g.txn_offsets.remove(&pid) {
            if commit {
                g.offsets.extend(offsets);
            }
        }
    }
}

pub(crate) fn list_groups(ctx: &Ctx<'_>, req: ListGroupsRequest) -> Option<ListGroupsResponse> {
    let st = ctx.shared.lock();
    if let Some(e) = ctx.inject {
        return Some(ListGroupsResponse {
            error_code: e,
            ..Default::default()
        });
    }
    let groups = st
        .groups
        .iter()
        .filter(|(id, _)| st.coordinator(0, id) == ctx.broker)
        .filter(|(_, g)| {
            req.states_filter.is_empty()
                || req
                    .states_filter
                    .iter()
                    .any(|s| s.eq_ignore_ascii_case(g.state.name()))
        })
        .filter(|_| {
            req.types_filter.is_empty()
                || req
                    .types_filter
                    .iter()
                    .any(|t| t.eq_ignore_ascii_case("classic"))
        })
        .map(|(id, g)| ListedGroup {
            group_id: id.clone(),
            protocol_type: g.protocol_type.clone(),
            group_state: g.state.name().into(),
            group_type: "classic".into(),
            ..Default::default()
        })
        .collect();
    Some(ListGroupsResponse {
        groups,
        ..Default::default()
    })
}

pub(crate) fn describe_groups(
    ctx: &Ctx<'_>,
    req: DescribeGroupsRequest,
) -> Option<DescribeGroupsResponse> {
    let st = ctx.shared.lock();
    let groups = req
        .groups
        .iter()
        .map(|id| {
            let mut d = DescribedGroup {
                group_id: id.clone(),
                ..Default::default()
            };
            if let Some(e) = not_coordinator(ctx, &st, id) {
                d.error_code = e;
                return d;
            }
            match st.groups.get(id) {
                None => d.group_state = "Dead".into(),
                Some(g) => {
                    d.group_state = g.state.name().into();
                    d.protocol_type = g.protocol_type.clone();
                    d.protocol_data = g.protocol.clone().unwrap_or_default();
                    d.members = g
                        .members
                        .iter()
                        .map(|(mid, m)| DescribedGroupMember {
                            member_id: mid.clone(),
                            group_instance_id: m.instance_id.clone(),
                            client_id: m.client_id.clone(),
                            client_host: m.client_host.clone(),
                            member_metadata: m
                                .protocols
                                .iter()
                                .find(|(n, _)| Some(n) == g.protocol.as_ref())
                                .map(|(_, md)| md.clone())
                                .unwrap_or_default(),
                            member_assignment: m.assignment.clone(),
                            ..Default::default()
                        })
                        .collect();
                }
            }
            d
        })
        .collect();
    Some(DescribeGroupsResponse {
        groups,
        ..Default::default()
    })
}

pub(crate) fn delete_groups(
    ctx: &Ctx<'_>,
    req: DeleteGroupsRequest,
) -> Option<DeleteGroupsResponse> {
    let mut st = ctx.shared.lock();
    let results = req
        .groups_names
        .iter()
        .map(|id| {
            let error_code = if let Some(e) = not_coordinator(ctx, &st, id) {
                e
            } else {
                match st.groups.get(id) {
                    None => KafkaCode::GROUP_ID_NOT_FOUND.0,
                    Some(g) if !g.members.is_empty() => KafkaCode::NON_EMPTY_GROUP.0,
                    Some(_) => {
                        st.groups.remove(id);
                        KafkaCode::NONE.0
                    }
                }
            };
            DeletableGroupResult {
                group_id: id.clone(),
                error_code,
                ..Default::default()
            }
        })
        .collect();
    Some(DeleteGroupsResponse {
        results,
        ..Default::default()
    })
}

pub(crate) fn offset_delete(
    ctx: &Ctx<'_>,
    req: OffsetDeleteRequest,
) -> Option<OffsetDeleteResponse> {
    let mut st = ctx.shared.lock();
    if let Some(e) = not_coordinator(ctx, &st, &req.group_id) {
        return Some(OffsetDeleteResponse {
            error_code: e,
            ..Default::default()
        });
    }
    let Some(g) = st.groups.get_mut(&req.group_id) else {
        return Some(OffsetDeleteResponse {
            error_code: KafkaCode::GROUP_ID_NOT_FOUND.0,
            ..Default::default()
        });
    };
    let topics = req
        .topics
        .iter()
        .map(|t| OffsetDeleteResponseTopic {
            name: t.name.clone(),
            partitions: t
                .partitions
                .iter()
                .map(|p| {
                    // GROUP_SUBSCRIBED_TO_TOPIC (86) while a stable group consumes it.
                    let subscribed = g.state == GroupState::Stable && !g.members.is_empty();
                    let error_code = if subscribed {
                        86
                    } else {
                        g.offsets.remove(&(t.name.clone(), p.partition_index));
                        KafkaCode::NONE.0
                    };
                    OffsetDeleteResponsePartition {
                        partition_index: p.partition_index,
                        error_code,
                        ..Default::default()
                    }
                })
                .collect(),
            ..Default::default()
        })
        .collect();
    Some(OffsetDeleteResponse {
        topics,
        ..Default::default()
    })
}
