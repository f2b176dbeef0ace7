//! Consumer groups from the admin side (KAFKA-2687): list the
//! groups every broker coordinates (ListGroups, with KIP-518's state filter
//! and KIP-848's type filter), describe them at their coordinators
//! (DescribeGroups: state, protocol, members, and for the "consumer"
//! protocol type each member's subscription and assignment decoded from the
//! embedded consumer protocol), delete them (DeleteGroups), and read, set
//! and delete a group's committed offsets (OffsetFetch, an admin
//! OffsetCommit with generation -1 and no member, OffsetDelete / KIP-496).
//!
//! Groups are routed to their coordinators (FindCoordinator, batched from
//! v4, KIP-699), and the groups of one coordinator share one request. A
//! group answered `NOT_COORDINATOR`, `COORDINATOR_NOT_AVAILABLE` or
//! `COORDINATOR_LOAD_IN_PROGRESS` is looked up and sent again until the
//! deadline, as the Java client's coordinator strategy does.

use std::collections::{BTreeMap, BTreeSet};

use super::types::{authorized_operations, AclOperation};
use super::{
    check, collapse, entity_error, last_wins, missing, retriable, send, AdminClient, AdminOptions,
    Call, PartitionResult, TopicPartition,
};
use crate::cluster::BrokerInfo;
use crate::error::{local, Error, Result};
use crate::protocol::consumer_group_describe as cgd;
use crate::protocol::consumer_protocol::{decode_assignment, decode_subscription};
use crate::protocol::delete_groups as dg;
use crate::protocol::describe_groups as dgr;
use crate::protocol::find_coordinator::FindCoordinatorRequest;
use crate::protocol::list_groups as lg;
use crate::protocol::offset_commit as oc;
use crate::protocol::offset_delete as od;
use crate::protocol::offset_fetch as of;
use crate::protocol::{KafkaCode, Request};

/// The protocol type of groups whose members embed the consumer protocol.
pub const CONSUMER_PROTOCOL_TYPE: &str = "consumer";

/// A group as ListGroups reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupListing {
    /// The group ID.
    pub group_id: String,
    /// The protocol type ("consumer", "connect", …); "" for a group that
    /// only stores offsets (a "simple" group).
    pub protocol_type: String,
    /// The state ("Stable", "Empty", …), from ListGroups v4; `None` from
    /// older brokers.
    pub state: Option<String>,
    /// The group type ("classic", "consumer"), from ListGroups v5.
    pub group_type: Option<String>,
    /// The broker that coordinates it (the one that listed it).
    pub coordinator_id: i32,
}

impl GroupListing {
    /// True for a group with no protocol type: one that only stores
    /// offsets (librdkafka's `is_simple_consumer_group`).
    pub fn is_simple_consumer_group(&self) -> bool {
        self.protocol_type.is_empty()
    }
}

/// The answer of every broker to ListGroups (librdkafka's
/// `ListConsumerGroups` result: the valid listings and the errors).
#[derive(Debug, Clone, Default)]
pub struct GroupListings {
    /// The groups, each once (a group two brokers list, while it moves, is
    /// kept as the first listed it), by broker id then the broker's order.
    pub groups: Vec<GroupListing>,
    /// The brokers that could not be asked or answered with an error.
    pub errors: Vec<(i32, Error)>,
}

/// A member's subscription: the consumer protocol's member metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberSubscription {
    /// The consumer protocol version the member wrote.
    pub version: i16,
    /// The subscribed topics.
    pub topics: Vec<String>,
    /// Assignor user data, if any.
    pub user_data: Option<Vec<u8>>,
    /// The partitions the member owned when it joined (v1+, KIP-429).
    pub owned_partitions: Vec<TopicPartition>,
    /// The generation of the owned partitions (v2+; `None` if -1 or absent).
    pub generation_id: Option<i32>,
    /// The member's rack (v3+, KIP-881).
    pub rack_id: Option<String>,
}

/// A member's assignment: the consumer protocol's member assignment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberAssignment {
    /// The consumer protocol version the leader wrote.
    pub version: i16,
    /// The assigned partitions.
    pub partitions: Vec<TopicPartition>,
    /// Assignor user data, if any.
    pub user_data: Option<Vec<u8>>,
}

/// One member of a described group.
#[derive(Debug, Clone)]
pub struct MemberDescription {
    /// The member ID the coordinator gave it.
    pub member_id: String,
    /// The static member's instance ID (DescribeGroups v4+, KIP-345).
    pub group_instance_id: Option<String>,
    /// The member's client ID.
    pub client_id: String,
    /// The member's host, as the coordinator saw it.
    pub client_host: String,
    /// The member's metadata for the group's protocol, as sent.
    pub metadata: Vec<u8>,
    /// The member's assignment, as sent.
    pub assignment_bytes: Vec<u8>,
    /// The metadata decoded as a consumer protocol subscription: `None`
    /// when the group's protocol type is not "consumer" or the coordinator
    /// sent no metadata (it sends none unless the group is Stable); an
    /// error naming the member and what failed if the bytes do not decode.
    pub subscription: Option<Result<MemberSubscription>>,
    /// The assignment decoded likewise. For a member of a "consumer"
    /// type group (KIP-848) its current assignment (version -1: not from
    /// the embedded consumer protocol), and its subscription the topic
    /// names it subscribed to, with its rack (version -1).
    pub assignment: Option<Result<MemberAssignment>>,
    /// What ConsumerGroupDescribe tells of a member of a "consumer" type
    /// group (KIP-848); `None` for a classic group's member.
    pub consumer: Option<ConsumerMemberState>,
}

/// A member of a "consumer" type group (KIP-848), from ConsumerGroupDescribe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsumerMemberState {
    /// The member's epoch.
    pub member_epoch: i32,
    /// The member's rack.
    pub rack_id: Option<String>,
    /// The topic names it subscribed to.
    pub subscribed_topic_names: Vec<String>,
    /// The regex it subscribed with (KIP-848's server-side regex).
    pub subscribed_topic_regex: Option<String>,
    /// The partitions it owns (as it last reported them).
    pub assignment: Vec<TopicPartition>,
    /// The partitions the coordinator means it to own.
    pub target_assignment: Vec<TopicPartition>,
}

/// A group described by its coordinator.
#[derive(Debug, Clone)]
pub struct GroupDescription {
    /// The group ID.
    pub group_id: String,
    /// The state ("Stable", "PreparingRebalance", "Empty", "Dead", …); an
    /// unknown group is "Dead" with no members, as Kafka answers it.
    pub state: String,
    /// The protocol type ("consumer", …; "" for a simple group).
    pub protocol_type: String,
    /// The chosen protocol (for consumers, the assignor, e.g. "range"),
    /// "" unless the group is Stable.
    pub protocol: String,
    /// The members.
    pub members: Vec<MemberDescription>,
    /// What the client may do with the group (DescribeGroups v3+, when
    /// asked); `None` if not asked or not known.
    pub authorized_operations: Option<Vec<AclOperation>>,
    /// The coordinator.
    pub coordinator: BrokerInfo,
    /// The group's type: "consumer" for a group of the KIP-848 protocol
    /// (described by ConsumerGroupDescribe), "classic" for one described by
    /// DescribeGroups. For a "consumer" group, `protocol_type` is
    /// "consumer" and `protocol` is the server-side assignor.
    pub group_type: String,
    /// The group epoch ("consumer" groups only).
    pub group_epoch: Option<i32>,
    /// The epoch of the group's target assignment ("consumer" groups only).
    pub assignment_epoch: Option<i32>,
}

/// The group type of groups described by ConsumerGroupDescribe (KIP-848).
pub const CONSUMER_GROUP_TYPE: &str = "consumer";
/// The group type of groups described by DescribeGroups.
pub const CLASSIC_GROUP_TYPE: &str = "classic";

/// A committed offset: read from a group, or to set on one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffsetAndMetadata {
    /// The offset (the next record to consume); -1 when reading a
    /// partition with no committed offset.
    pub offset: i64,
    /// The leader epoch of the last consumed record, if known
    /// (OffsetFetch v5+ / OffsetCommit v6+, KIP-320).
    pub leader_epoch: Option<i32>,
    /// The metadata committed with the offset.
    pub metadata: Option<String>,
}

impl OffsetAndMetadata {
    /// An offset with no leader epoch or metadata.
    pub fn new(offset: i64) -> Self {
        OffsetAndMetadata {
            offset,
            leader_epoch: None,
            metadata: None,
        }
    }
}

/// Codes that mean "ask FindCoordinator again and send the group again";
/// `UNSTABLE_OFFSET_COMMIT` (pending transactional offsets, OffsetFetch
/// with require_stable) too, as the Java client retries it.
fn coordinator_moved(e: &Error) -> bool {
    matches!(
        e.kafka_code(),
        Some(KafkaCode::NOT_COORDINATOR)
            | Some(KafkaCode::COORDINATOR_NOT_AVAILABLE)
            | Some(KafkaCode::COORDINATOR_LOAD_IN_PROGRESS)
            | Some(KafkaCode::UNSTABLE_OFFSET_COMMIT)
    )
}

fn group_error(code: i16, message: Option<&str>, group: &str) -> Result<()> {
    check(code, message, format!("group {group}"))
}

/// Flattens topic → partitions pairs.
fn flatten<'a>(
    topics: impl IntoIterator<Item = (&'a String, &'a Vec<i32>)>,
) -> Vec<TopicPartition> {
    topics
        .into_iter()
        .flat_map(|(t, ps)| ps.iter().map(move |p| TopicPartition::new(t.clone(), *p)))
        .collect()
}

/// Groups partitions by topic, in first-seen order.
fn by_topic(parts: &[TopicPartition]) -> Vec<(String, Vec<i32>)> {
    let mut out: Vec<(String, Vec<i32>)> = Vec::new();
    for tp in parts {
        match out.iter_mut().find(|(t, _)| *t == tp.topic) {
            Some((_, ps)) => ps.push(tp.partition),
            None => out.push((tp.topic.clone(), vec![tp.partition])),
        }
    }
    out
}

/// Decodes a member's consumer protocol metadata and assignment (KAFKA-2687:
/// "when the protocolType is consumer, the tool can use ConsumerProtocol to
/// parse the member metadata as topic subscriptions and partition
/// assignments"). Empty bytes are "not sent"; bad bytes are an error for
/// this member only.
pub fn decode_member(
    group: &str,
    protocol_type: &str,
    member_id: &str,
    metadata: &[u8],
    assignment: &[u8],
) -> (
    Option<Result<MemberSubscription>>,
    Option<Result<MemberAssignment>>,
) {
    if protocol_type != CONSUMER_PROTOCOL_TYPE {
        return (None, None);
    }
    let failed = |what: &str, len: usize, e: crate::wire::DecodeError| {
        Error::local(
            local::BAD_MSG,
            format!(
                "group {group} member {member_id}: cannot decode its {what} ({len} bytes): {e}"
            ),
        )
    };
    let sub = (!metadata.is_empty()).then(|| {
        decode_subscription(metadata)
            .map(|(version, s)| MemberSubscription {
                version,
                topics: s.topics,
                user_data: s.user_data.map(|b| b.as_slice().to_vec()),
                owned_partitions: flatten(
                    s.owned_partitions
                        .iter()
                        .map(|tp| (&tp.topic, &tp.partitions)),
                ),
                generation_id: (s.generation_id >= 0).then_some(s.generation_id),
                rack_id: s.rack_id,
            })
            .map_err(|e| failed("subscription (member metadata)", metadata.len(), e))
    });
    let asg = (!assignment.is_empty()).then(|| {
        decode_assignment(assignment)
            .map(|(version, a)| MemberAssignment {
                version,
                partitions: flatten(
                    a.assigned_partitions
                        .iter()
                        .map(|tp| (&tp.topic, &tp.partitions)),
                ),
                user_data: a.user_data.map(|b| b.as_slice().to_vec()),
            })
            .map_err(|e| failed("assignment", assignment.len(), e))
    });
    (sub, asg)
}

/// The partitions of a ConsumerGroupDescribe assignment, by name.
fn described_partitions(a: &cgd::Assignment) -> Vec<TopicPartition> {
    flatten(
        a.topic_partitions
            .iter()
            .map(|t| (&t.topic_name, &t.partitions)),
    )
}

/// A "consumer" type group from its ConsumerGroupDescribe entry.
fn consumer_type_description(
    g: cgd::DescribedGroup,
    include_authorized_operations: bool,
    coordinator: BrokerInfo,
) -> GroupDescription {
    let members = g
        .members
        .into_iter()
        .map(|m| {
            let assignment = described_partitions(&m.assignment);
            let target_assignment = described_partitions(&m.target_assignment);
            MemberDescription {
                member_id: m.member_id,
                group_instance_id: m.instance_id,
                client_id: m.client_id,
                client_host: m.client_host,
                metadata: Vec::new(),
                assignment_bytes: Vec::new(),
                subscription: Some(Ok(MemberSubscription {
                    version: -1,
                    topics: m.subscribed_topic_names.clone(),
                    user_data: None,
                    owned_partitions: Vec::new(),
                    generation_id: None,
                    rack_id: m.rack_id.clone(),
                })),
                assignment: Some(Ok(MemberAssignment {
                    version: -1,
                    partitions: assignment.clone(),
                    user_data: None,
                })),
                consumer: Some(ConsumerMemberState {
                    member_epoch: m.member_epoch,
                    rack_id: m.rack_id,
                    subscribed_topic_names: m.subscribed_topic_names,
                    subscribed_topic_regex: m.subscribed_topic_regex,
                    assignment,
                    target_assignment,
                }),
            }
        })
        .collect();
    GroupDescription {
        group_id: g.group_id,
        state: g.group_state,
        protocol_type: CONSUMER_PROTOCOL_TYPE.to_string(),
        protocol: g.assignor_name,
        members,
        authorized_operations: if include_authorized_operations {
            authorized_operations(g.authorized_operations)
        } else {
            None
        },
        coordinator,
        group_type: CONSUMER_GROUP_TYPE.to_string(),
        group_epoch: Some(g.group_epoch),
        assignment_epoch: Some(g.assignment_epoch),
    }
}

impl AdminClient {
    /// The coordinator id of each group: one FindCoordinator request for
    /// all of them from v4 (KIP-699), else one per group.
    fn group_coordinators(&self, c: &Call, groups: &[String]) -> Vec<Result<i32>> {
        let mut out: Vec<Option<Result<i32>>> = groups.iter().map(|_| None).collect();
        let mut pending: Vec<usize> = (0..groups.len()).collect();
        while !pending.is_empty() {
            let batched = self.any(c).and_then(|conn| {
                let v = conn.version_for::<FindCoordinatorRequest>(c.deadline)?;
                if v < 4 {
                    return Ok(None);
                }
                let keys: Vec<String> = pending.iter().map(|&i| groups[i].clone()).collect();
                let (resp, _) = super::call(&conn, c.deadline, |_| {
                    Ok(FindCoordinatorRequest {
                        key_type: 0,
                        coordinator_keys: keys.clone(),
                        ..Default::default()
                    })
                })?;
                Ok(Some(resp))
            });
            match batched {
                Ok(None) => {
                    for &i in &pending {
                        out[i] = Some(self.coordinator(c, 0, &groups[i]).map(|(id, _)| id));
                    }
                    pending.clear();
                }
                Ok(Some(resp)) => {
                    let mut again = Vec::new();
                    for &i in &pending {
                        let g = &groups[i];
                        let r = match resp.coordinators.iter().find(|co| co.key == *g) {
                            None => Err(missing(format!("group {g}"), "FindCoordinator")),
                            Some(co) => check(
                                co.error_code,
                                co.error_message.as_deref(),
                                format!("coordinator of group {g}"),
                            )
                            .map(|()| co.node_id),
                        };
                        if matches!(&r, Err(e) if retriable(e)) {
                            again.push(i);
                        }
                        out[i] = Some(r);
                    }
                    pending = again;
                }
                Err(e) if retriable(&e) && c.can_retry() => {}
                Err(e) => {
                    for &i in &pending {
                        out[i] = Some(Err(e.clone()));
                    }
                    pending.clear();
                }
            }
            if pending.is_empty() || !c.can_retry() {
                break;
            }
            c.backoff();
        }
        out.into_iter()
            .map(|r| r.unwrap_or_else(|| Err(Error::timed_out("no coordinator found"))))
            .collect()
    }

    /// Sends each group to its coordinator, the groups of one coordinator
    /// in one request (all coordinators' requests in flight at once):
    /// `build` makes a request for some groups at a version, `split` turns
    /// the answer into one result per group, in order (it is also given the
    /// coordinator id). Groups answered with a coordinator error, or whose
    /// coordinator could not be reached, are looked up and sent again until
    /// the deadline.
    fn to_coordinators<R: Request, O>(
        &self,
        c: &Call,
        groups: &[String],
        build: impl Fn(&[String], i16) -> Result<R>,
        split: impl Fn(R::Response, &[String], i16, i32) -> Vec<Result<O>>,
    ) -> Vec<Result<O>> {
        let mut out: Vec<Option<Result<O>>> = groups.iter().map(|_| None).collect();
        let mut pending: Vec<usize> = (0..groups.len()).collect();
        while !pending.is_empty() {
            let keys: Vec<String> = pending.iter().map(|&i| groups[i].clone()).collect();
            let found = self.group_coordinators(c, &keys);
            let mut by: BTreeMap<i32, Vec<usize>> = BTreeMap::new();
            let mut again = Vec::new();
            for (&i, f) in pending.iter().zip(found) {
                match f {
                    Ok(id) => by.entry(id).or_default().push(i),
                    Err(e) => {
                        if coordinator_moved(&e) {
                            again.push(i);
                        }
                        out[i] = Some(Err(e));
                    }
                }
            }
            let mut sent = Vec::new();
            for (id, idx) in by {
                let gs: Vec<String> = idx.iter().map(|&i| groups[i].clone()).collect();
                let s = self
                    .broker(c, id)
                    .and_then(|conn| send(&conn, c.deadline, |v| build(&gs, v)));
                sent.push((id, idx, gs, s));
            }
            for (id, idx, gs, s) in sent {
                match s.and_then(|s| s.wait(c.deadline)) {
                    Ok((resp, v)) => {
                        for (&i, r) in idx.iter().zip(split(resp, &gs, v, id)) {
                            if matches!(&r, Err(e) if coordinator_moved(e)) {
                                again.push(i);
                            }
                            out[i] = Some(r);
                        }
                    }
                    Err(e) => {
                        let retry = retriable(&e);
                        for &i in &idx {
                            if retry {
                                again.push(i);
                            }
                            out[i] = Some(Err(e.clone()));
                        }
                    }
                }
            }
            if again.is_empty() || !c.can_retry() {
                break;
            }
            pending = again;
            c.backoff();
        }
        out.into_iter()
            .map(|r| r.unwrap_or_else(|| Err(Error::timed_out("no answer from the coordinator"))))
            .collect()
    }

    /// The groups every broker coordinates (ListGroups to each broker, all
    /// at once), as librdkafka's `ListConsumerGroups`: the listings, and
    /// per broker the errors, which do not fail the call. `states` keeps
    /// only groups in those states ("Stable", "Empty", …; ListGroups v4+,
    /// KIP-518) and `types` only groups of those types ("classic",
    /// "consumer"; v5+, KIP-848); a broker too old for a filter given is
    /// an `_UNSUPPORTED_FEATURE` error for that broker (librdkafka and the
    /// Java client refuse likewise).
    ///
    /// # Errors
    /// Only if the broker list could not be had (no broker reachable).
    pub fn list_groups(
        &self,
        states: &[&str],
        types: &[&str],
        opts: &AdminOptions,
    ) -> Result<GroupListings> {
        let c = self.start(opts);
        let ids = self.broker_ids(&c)?;
        let build = |_: i16| {
            Ok(lg::ListGroupsRequest {
                states_filter: states.iter().map(|s| (*s).to_string()).collect(),
                types_filter: types.iter().map(|s| (*s).to_string()).collect(),
                ..Default::default()
            })
        };
        let mut todo: Vec<i32> = ids;
        let mut out = GroupListings::default();
        let mut seen = BTreeSet::new();
        let mut answers: BTreeMap<i32, Result<Vec<GroupListing>>> = BTreeMap::new();
        while !todo.is_empty() {
            let sent: Vec<_> = todo
                .iter()
                .map(|&id| {
                    (
                        id,
                        self.broker(&c, id)
                            .and_then(|conn| send(&conn, c.deadline, build)),
                    )
                })
                .collect();
            let mut again = Vec::new();
            for (id, s) in sent {
                let r = s.and_then(|s| s.wait(c.deadline)).and_then(|(resp, v)| {
                    check(resp.error_code, None, format!("groups of broker {id}"))?;
                    Ok(resp
                        .groups
                        .into_iter()
                        .map(|g| GroupListing {
                            group_id: g.group_id,
                            protocol_type: g.protocol_type,
                            state: (v >= 4).then_some(g.group_state),
                            group_type: (v >= 5).then_some(g.group_type),
                            coordinator_id: id,
                        })
                        .collect())
                });
                if matches!(&r, Err(e) if e.kafka_code() == Some(KafkaCode::COORDINATOR_LOAD_IN_PROGRESS))
                {
                    again.push(id);
                }
                answers.insert(id, r);
            }
            if again.is_empty() || !c.can_retry() {
                break;
            }
            todo = again;
            c.backoff();
        }
        for (id, r) in answers {
            match r {
                Ok(gs) => {
                    for g in gs {
                        if seen.insert(g.group_id.clone()) {
                            out.groups.push(g);
                        }
                    }
                }
                Err(e) => out.errors.push((id, e)),
            }
        }
        Ok(out)
    }

    /// Describes groups at their coordinators, as librdkafka's
    /// `DescribeConsumerGroups` (2.10+) and the Java client do: first with
    /// ConsumerGroupDescribe (KIP-848; one request per coordinator), which
    /// describes "consumer" type groups (their epochs, assignor, and each
    /// member's epoch, subscription, current and target assignment); a
    /// group it does not know as one (`GROUP_ID_NOT_FOUND`: a classic or
    /// unknown group; `UNSUPPORTED_VERSION`), or every group of a
    /// coordinator without ConsumerGroupDescribe, is described again with
    /// DescribeGroups ([`GroupDescription::group_type`] "classic"). One
    /// result per distinct group, in order.
    ///
    /// A ConsumerGroupDescribe answer with a negative group epoch is taken
    /// as "not a consumer group" too: Kafka never gives a consumer group a
    /// negative epoch, and a broker that answers classic groups this way
    /// (nisshi 0.8.1 answers them with epoch -1 and no members, where Kafka
    /// answers `GROUP_ID_NOT_FOUND`) would otherwise hide their members.
    ///
    /// For the "consumer" protocol type of a classic group each member's
    /// metadata and assignment are decoded too (a member whose bytes do
    /// not decode gets an error of its own; the rest of the group is still
    /// described). With `include_authorized_operations` the broker is
    /// asked for the client's operations on each group (DescribeGroups
    /// v3+; older brokers are not asked and the operations are `None`, as
    /// librdkafka does).
    ///
    /// # Errors
    /// A local error when no group could be asked; broker errors
    /// (`GROUP_AUTHORIZATION_FAILED`, …) are per group.
    pub fn describe_groups(
        &self,
        groups: &[&str],
        include_authorized_operations: bool,
        opts: &AdminOptions,
    ) -> Result<Vec<(String, Result<GroupDescription>)>> {
        let c = self.start(opts);
        let ids = distinct(groups)?;
        // a cluster whose brokers lack ConsumerGroupDescribe (judged by any
        // one of them) is asked with DescribeGroups alone; a coordinator
        // without it in a cluster that has it answers the groups it
        // coordinates `_UNSUPPORTED_FEATURE`, and they are asked again
        let kip848 = self
            .any(&c)
            .and_then(|conn| conn.version_for::<cgd::ConsumerGroupDescribeRequest>(c.deadline))
            .is_ok();
        let first = if kip848 {
            self.describe_consumer_type(&c, &ids, include_authorized_operations)
        } else {
            ids.iter()
                .map(|_| Err(super::unsupported("no ConsumerGroupDescribe")))
                .collect()
        };
        let mut out: Vec<Option<Result<GroupDescription>>> = ids.iter().map(|_| None).collect();
        let mut classic = Vec::new();
        for (i, r) in first.into_iter().enumerate() {
            match r {
                Ok(Some(g)) => out[i] = Some(Ok(g)),
                Ok(None) => classic.push(i),
                Err(e) if e.code() == local::UNSUPPORTED_FEATURE => classic.push(i),
                Err(e) => out[i] = Some(Err(e)),
            }
        }
        if !classic.is_empty() {
            let gs: Vec<String> = classic.iter().map(|&i| ids[i].clone()).collect();
            let rs = self.describe_classic(&c, &gs, include_authorized_operations);
            for (&i, r) in classic.iter().zip(rs) {
                out[i] = Some(r);
            }
        }
        let results = out
            .into_iter()
            .map(|r| r.unwrap_or_else(|| Err(Error::timed_out("no answer from the coordinator"))))
            .collect();
        Ok(ids.into_iter().zip(collapse(results)?).collect())
    }

    /// ConsumerGroupDescribe of `ids` (KIP-848): `Ok(None)` for a group to
    /// describe with DescribeGroups instead.
    fn describe_consumer_type(
        &self,
        c: &Call,
        ids: &[String],
        include_authorized_operations: bool,
    ) -> Vec<Result<Option<GroupDescription>>> {
        self.to_coordinators(
            c,
            ids,
            |gs, _| {
                Ok(cgd::ConsumerGroupDescribeRequest {
                    group_ids: gs.to_vec(),
                    include_authorized_operations,
                    ..Default::default()
                })
            },
            |resp, gs, _, coordinator_id| {
                let coordinator = self.broker_info(coordinator_id);
                let mut got: BTreeMap<String, cgd::DescribedGroup> = resp
                    .groups
                    .into_iter()
                    .map(|g| (g.group_id.clone(), g))
                    .collect();
                gs.iter()
                    .map(|id| {
                        let g = got.remove(id).ok_or_else(|| {
                            missing(format!("group {id}"), "ConsumerGroupDescribe")
                        })?;
                        if matches!(
                            KafkaCode(g.error_code),
                            KafkaCode::GROUP_ID_NOT_FOUND | KafkaCode::UNSUPPORTED_VERSION
                        ) || (g.error_code == 0 && g.group_epoch < 0)
                        {
                            return Ok(None);
                        }
                        group_error(g.error_code, g.error_message.as_deref(), id)?;
                        Ok(Some(consumer_type_description(
                            g,
                            include_authorized_operations,
                            coordinator.clone(),
                        )))
                    })
                    .collect()
            },
        )
    }

    /// The broker `id` as metadata knows it (no host, port -1 if not).
    fn broker_info(&self, id: i32) -> BrokerInfo {
        self.cluster
            .snapshot()
            .brokers
            .get(&id)
            .cloned()
            .unwrap_or(BrokerInfo {
                id,
                host: String::new(),
                port: -1,
                rack: None,
            })
    }

    /// DescribeGroups of `ids` (classic groups).
    fn describe_classic(
        &self,
        c: &Call,
        ids: &[String],
        include_authorized_operations: bool,
    ) -> Vec<Result<GroupDescription>> {
        self.to_coordinators(
            c,
            ids,
            |gs, v| {
                Ok(dgr::DescribeGroupsRequest {
                    groups: gs.to_vec(),
                    include_authorized_operations: include_authorized_operations && v >= 3,
                    ..Default::default()
                })
            },
            |resp, gs, v, coordinator_id| {
                let coordinator = self.broker_info(coordinator_id);
                let mut got: BTreeMap<String, dgr::DescribedGroup> = resp
                    .groups
                    .into_iter()
                    .map(|g| (g.group_id.clone(), g))
                    .collect();
                gs.iter()
                    .map(|id| {
                        let g = got
                            .remove(id)
                            .ok_or_else(|| missing(format!("group {id}"), "DescribeGroups"))?;
                        group_error(g.error_code, None, id)?;
                        let members = g
                            .members
                            .into_iter()
                            .map(|m| {
                                let metadata = m.member_metadata.as_slice().to_vec();
                                let assignment_bytes = m.member_assignment.as_slice().to_vec();
                                let (subscription, assignment) = decode_member(
                                    id,
                                    &g.protocol_type,
                                    &m.member_id,
                                    &metadata,
                                    &assignment_bytes,
                                );
                                MemberDescription {
                                    member_id: m.member_id,
                                    group_instance_id: m.group_instance_id,
                                    client_id: m.client_id,
                                    client_host: m.client_host,
                                    metadata,
                                    assignment_bytes,
                                    subscription,
                                    assignment,
                                    consumer: None,
                                }
                            })
                            .collect();
                        Ok(GroupDescription {
                            group_id: g.group_id,
                            state: g.group_state,
                            protocol_type: g.protocol_type,
                            protocol: g.protocol_data,
                            members,
                            authorized_operations: if v >= 3 && include_authorized_operations {
                                authorized_operations(g.authorized_operations)
                            } else {
                                None
                            },
                            coordinator: coordinator.clone(),
                            group_type: CLASSIC_GROUP_TYPE.to_string(),
                            group_epoch: None,
                            assignment_epoch: None,
                        })
                    })
                    .collect()
            },
        )
    }

    /// Deletes groups at their coordinators (DeleteGroups; only empty
    /// groups can be deleted: `NON_EMPTY_GROUP` otherwise, and
    /// `GROUP_ID_NOT_FOUND` for an unknown one); one result per distinct
    /// group, in order.
    ///
    /// # Errors
    /// A local error when no group could be sent (e.g.
    /// `_UNSUPPORTED_FEATURE` from brokers without DeleteGroups).
    pub fn delete_groups(
        &self,
        groups: &[&str],
        opts: &AdminOptions,
    ) -> Result<Vec<(String, Result<()>)>> {
        let c = self.start(opts);
        let ids = distinct(groups)?;
        let results = self.to_coordinators(
            &c,
            &ids,
            |gs, _| {
                Ok(dg::DeleteGroupsRequest {
                    groups_names: gs.to_vec(),
                    ..Default::default()
                })
            },
            |resp, gs, _, _| {
                gs.iter()
                    .map(|id| {
                        let r = resp
                            .results
                            .iter()
                            .find(|r| r.group_id == *id)
                            .ok_or_else(|| missing(format!("group {id}"), "DeleteGroups"))?;
                        group_error(r.error_code, None, id)
                    })
                    .collect()
            },
        );
        Ok(ids.into_iter().zip(collapse(results)?).collect())
    }

    /// A group's committed offsets (OffsetFetch to its coordinator): of
    /// `partitions` (one result each, in order; a partition with none
    /// committed has offset -1), or of every partition the group has
    /// offsets for when `None` (OffsetFetch v2+), sorted. `require_stable`
    /// makes the broker refuse (`UNSTABLE_OFFSET_COMMIT`, retried) while a
    /// transaction's offsets are pending (v7+, KIP-447; older brokers are
    /// not asked, as the Java client does).
    ///
    /// # Errors
    /// The group's error (`GROUP_AUTHORIZATION_FAILED`, …) or a local one.
    pub fn list_group_offsets(
        &self,
        group: &str,
        partitions: Option<&[TopicPartition]>,
        require_stable: bool,
        opts: &AdminOptions,
    ) -> Result<Vec<PartitionResult<OffsetAndMetadata>>> {
        let c = self.start(opts);
        let gid = nonempty_group(group)?;
        let wanted: Option<Vec<TopicPartition>> = partitions.map(|p| last_wins(p, Clone::clone));
        let mut results = self.to_coordinators(
            &c,
            std::slice::from_ref(&gid),
            |_, v| {
                let topics = wanted.as_ref().map(|w| by_topic(w));
                if topics.is_none() && v < 2 {
                    return Err(super::unsupported(
                        "OffsetFetch below v2 cannot fetch all of a group's offsets: name the partitions",
                    ));
                }
                let mut req = of::OffsetFetchRequest {
                    require_stable: require_stable && v >= 7,
                    ..Default::default()
                };
                if v >= 8 {
                    req.groups = vec![of::OffsetFetchRequestGroup {
                        group_id: gid.clone(),
                        topics: topics.map(|ts| {
                            ts.into_iter()
                                .map(|(name, partition_indexes)| of::OffsetFetchRequestTopics {
                                    name,
                                    partition_indexes,
                                    ..Default::default()
                                })
                                .collect()
                        }),
                        ..Default::default()
                    }];
                } else {
                    req.group_id = gid.clone();
                    req.topics = topics.map(|ts| {
                        ts.into_iter()
                            .map(|(name, partition_indexes)| of::OffsetFetchRequestTopic {
                                name,
                                partition_indexes,
                                ..Default::default()
                            })
                            .collect()
                    });
                }
                Ok(req)
            },
            |resp, _, v, _| vec![fetched_offsets(resp, &gid, v, wanted.as_deref())],
        );
        results
            .pop()
            .unwrap_or_else(|| Err(Error::timed_out("no answer")))
    }

    /// Sets a group's committed offsets (OffsetCommit to its coordinator,
    /// as an admin commit: generation -1, no member ID, so only a group
    /// with no active members accepts it — `UNKNOWN_MEMBER_ID` or
    /// `REBALANCE_IN_PROGRESS` otherwise); one result per distinct
    /// partition, in order.
    ///
    /// # Errors
    /// `_INVALID_ARG` for a negative offset or an empty group ID; a local
    /// error when nothing could be sent.
    pub fn alter_group_offsets(
        &self,
        group: &str,
        offsets: &[(TopicPartition, OffsetAndMetadata)],
        opts: &AdminOptions,
    ) -> Result<Vec<PartitionResult<()>>> {
        let c = self.start(opts);
        let gid = nonempty_group(group)?;
        let items = last_wins(offsets, |(tp, _)| tp.clone());
        if let Some((tp, o)) = items.iter().find(|(_, o)| o.offset < 0) {
            return Err(Error::invalid_arg(format!(
                "{tp}: cannot commit negative offset {}",
                o.offset
            )));
        }
        let parts: Vec<TopicPartition> = items.iter().map(|(tp, _)| tp.clone()).collect();
        let mut results = self.to_coordinators(
            &c,
            std::slice::from_ref(&gid),
            |_, _| {
                let mut req = oc::OffsetCommitRequest {
                    group_id: gid.clone(),
                    generation_id_or_member_epoch: -1,
                    member_id: String::new(),
                    group_instance_id: None,
                    retention_time_ms: -1,
                    ..Default::default()
                };
                for (tp, o) in &items {
                    let p = oc::OffsetCommitRequestPartition {
                        partition_index: tp.partition,
                        committed_offset: o.offset,
                        committed_leader_epoch: o.leader_epoch.unwrap_or(-1),
                        committed_metadata: Some(o.metadata.clone().unwrap_or_default()),
                        ..Default::default()
                    };
                    match req.topics.iter_mut().find(|t| t.name == tp.topic) {
                        Some(t) => t.partitions.push(p),
                        None => req.topics.push(oc::OffsetCommitRequestTopic {
                            name: tp.topic.clone(),
                            partitions: vec![p],
                            ..Default::default()
                        }),
                    }
                }
                Ok(req)
            },
            |resp, _, _, _| {
                let mut got = BTreeMap::new();
                for t in resp.topics {
                    for p in t.partitions {
                        got.insert(
                            TopicPartition::new(t.name.clone(), p.partition_index),
                            p.error_code,
                        );
                    }
                }
                let rs: Vec<Result<()>> = parts
                    .iter()
                    .map(|tp| match got.get(tp) {
                        None => Err(missing(tp, "OffsetCommit")),
                        Some(&code) => check(code, None, format!("group {gid} {tp}")),
                    })
                    .collect();
                // a moved coordinator is the group's error: all go again
                match rs
                    .iter()
                    .find_map(|r| r.as_ref().err().filter(|e| coordinator_moved(e)))
                {
                    Some(e) => vec![Err(e.clone())],
                    None => vec![Ok(rs)],
                }
            },
        );
        let rs = results
            .pop()
            .unwrap_or_else(|| Err(Error::timed_out("no answer")))?;
        Ok(parts
            .into_iter()
            .zip(rs)
            .map(|(partition, result)| PartitionResult { partition, result })
            .collect())
    }

    /// Deletes a group's committed offsets for some partitions (OffsetDelete,
    /// KIP-496, to its coordinator): a partition the group's active members
    /// still subscribe to answers `GROUP_SUBSCRIBED_TO_TOPIC`. One result
    /// per distinct partition, in order.
    ///
    /// # Errors
    /// The group's error (`GROUP_ID_NOT_FOUND`, `NON_EMPTY_GROUP`, …);
    /// `_UNSUPPORTED_FEATURE` from a broker without OffsetDelete.
    pub fn delete_group_offsets(
        &self,
        group: &str,
        partitions: &[TopicPartition],
        opts: &AdminOptions,
    ) -> Result<Vec<PartitionResult<()>>> {
        let c = self.start(opts);
        let gid = nonempty_group(group)?;
        let parts = last_wins(partitions, Clone::clone);
        let mut results = self.to_coordinators(
            &c,
            std::slice::from_ref(&gid),
            |_, _| {
                Ok(od::OffsetDeleteRequest {
                    group_id: gid.clone(),
                    topics: by_topic(&parts)
                        .into_iter()
                        .map(|(name, ps)| od::OffsetDeleteRequestTopic {
                            name,
                            partitions: ps
                                .into_iter()
                                .map(|p| od::OffsetDeleteRequestPartition {
                                    partition_index: p,
                                    ..Default::default()
                                })
                                .collect(),
                            ..Default::default()
                        })
                        .collect(),
                    ..Default::default()
                })
            },
            |resp, _, _, _| {
                if let Err(e) = group_error(resp.error_code, None, &gid) {
                    return vec![Err(e)];
                }
                let mut got = BTreeMap::new();
                for t in resp.topics {
                    for p in t.partitions {
                        got.insert(
                            TopicPartition::new(t.name.clone(), p.partition_index),
                            p.error_code,
                        );
                    }
                }
                vec![Ok(parts
                    .iter()
                    .map(|tp| match got.get(tp) {
                        None => Err(missing(tp, "OffsetDelete")),
                        Some(&code) => check(code, None, format!("group {gid} {tp}")),
                    })
                    .collect::<Vec<Result<()>>>())]
            },
        );
        let rs = results
            .pop()
            .unwrap_or_else(|| Err(Error::timed_out("no answer")))?;
        Ok(parts
            .into_iter()
            .zip(rs)
            .map(|(partition, result)| PartitionResult { partition, result })
            .collect())
    }
}

/// The distinct group IDs, in first order; an empty ID is refused.
fn distinct(groups: &[&str]) -> Result<Vec<String>> {
    if groups.iter().any(|g| g.is_empty()) {
        return Err(Error::invalid_arg("a group ID is empty"));
    }
    Ok(last_wins(groups, |g| (*g).to_string())
        .into_iter()
        .map(str::to_string)
        .collect())
}

fn nonempty_group(group: &str) -> Result<String> {
    if group.is_empty() {
        Err(Error::invalid_arg("the group ID is empty"))
    } else {
        Ok(group.to_string())
    }
}

/// One group's offsets from an OffsetFetch answer: in the order of
/// `wanted`, or all of them sorted.
fn fetched_offsets(
    resp: of::OffsetFetchResponse,
    group: &str,
    version: i16,
    wanted: Option<&[TopicPartition]>,
) -> Result<Vec<PartitionResult<OffsetAndMetadata>>> {
    type Row = (i64, i32, Option<String>, i16);
    let mut got: BTreeMap<TopicPartition, Row> = BTreeMap::new();
    if version >= 8 {
        let g = resp
            .groups
            .into_iter()
            .find(|g| g.group_id == group)
            .ok_or_else(|| missing(format!("group {group}"), "OffsetFetch"))?;
        group_error(g.error_code, None, group)?;
        for t in g.topics {
            for p in t.partitions {
                got.insert(
                    TopicPartition::new(t.name.clone(), p.partition_index),
                    (
                        p.committed_offset,
                        p.committed_leader_epoch,
                        p.metadata,
                        p.error_code,
                    ),
                );
            }
        }
    } else {
        group_error(resp.error_code, None, group)?;
        for t in resp.topics {
            for p in t.partitions {
                got.insert(
                    TopicPartition::new(t.name.clone(), p.partition_index),
                    (
                        p.committed_offset,
                        p.committed_leader_epoch,
                        p.metadata,
                        p.error_code,
                    ),
                );
            }
        }
    }
    // v0–1 have no group error: a coordinator error comes on the partitions
    if let Some(e) = got.values().find_map(|r| {
        let e = entity_error(r.3, None, format!("group {group}"));
        (r.3 != 0 && coordinator_moved(&e)).then_some(e)
    }) {
        return Err(e);
    }
    let row = |tp: &TopicPartition, r: Row| PartitionResult {
        partition: tp.clone(),
        result: check(r.3, None, format!("group {group} {tp}")).map(|()| OffsetAndMetadata {
            offset: r.0,
            leader_epoch: (r.1 >= 0).then_some(r.1),
            metadata: r.2,
        }),
    };
    Ok(match wanted {
        Some(w) => w
            .iter()
            .map(|tp| match got.remove(tp) {
                Some(r) => row(tp, r),
                None => PartitionResult {
                    partition: tp.clone(),
                    result: Err(missing(tp, "OffsetFetch")),
                },
            })
            .collect(),
        None => got.into_iter().map(|(tp, r)| row(&tp, r)).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::consumer_protocol as cp;
    use crate::wire::Bytes;

    #[test]
    fn members_decode_only_for_the_consumer_protocol() {
        let sub = cp::ConsumerProtocolSubscription {
            topics: vec!["t".into()],
            user_data: Some(Bytes::from(vec![7])),
            owned_partitions: vec![cp::TopicPartition {
                topic: "t".into(),
                partitions: vec![1, 2],
                ..Default::default()
            }],
            generation_id: 4,
            rack_id: Some("r".into()),
            ..Default::default()
        };
        let bytes = cp::encode_subscription(&sub, 3).unwrap();
        let (s, a) = decode_member("g", "consumer", "m", &bytes, &[]);
        let s = s.unwrap().unwrap();
        assert_eq!(s.version, 3);
        assert_eq!(
            s.owned_partitions,
            [TopicPartition::new("t", 1), TopicPartition::new("t", 2)]
        );
        assert_eq!(
            (s.generation_id, s.rack_id.as_deref()),
            (Some(4), Some("r"))
        );
        assert!(a.is_none(), "empty assignment: not sent");
        let (s, a) = decode_member("g", "connect", "m", &bytes, &bytes);
        assert!(s.is_none() && a.is_none());
    }

    #[test]
    fn garbage_is_an_error_for_the_member() {
        let (s, a) = decode_member("g1", "consumer", "m-1", &[0, 0, 0, 0, 0, 9], &[0xff]);
        let e = s.unwrap().unwrap_err();
        assert_eq!(e.code(), local::BAD_MSG);
        let t = e.to_string();
        assert!(
            t.contains("group g1 member m-1") && t.contains("subscription"),
            "{t}"
        );
        let e = a.unwrap().unwrap_err();
        assert!(e.to_string().contains("assignment (1 bytes)"), "{e}");
    }

    #[test]
    fn partitions_group_by_topic_in_order() {
        let parts = [
            TopicPartition::new("b", 1),
            TopicPartition::new("a", 0),
            TopicPartition::new("b", 0),
        ];
        assert_eq!(
            by_topic(&parts),
            [("b".to_string(), vec![1, 0]), ("a".to_string(), vec![0])]
        );
    }

    #[test]
    fn empty_group_ids_are_refused() {
        assert_eq!(distinct(&["a", ""]).unwrap_err().code(), local::INVALID_ARG);
        assert_eq!(distinct(&["a", "b", "a"]).unwrap(), ["a", "b"]);
    }
}
