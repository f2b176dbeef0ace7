//! The classic group protocol's requests that are not the coordinator
//! thread's loop (thread.rs): the member's subscription bytes, the
//! leader's assignment (ConsumerProtocol, as the Java client and librdkafka
//! write it), and LeaveGroup.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use super::commit::coordinator;
use super::membership::Group;
use crate::cluster::Cluster;
use crate::consumer::assignor::{self, Assignor, PartitionRacks};
use crate::error::{Error, Result};
use crate::protocol::consumer_protocol::{
    decode_subscription, encode_assignment, encode_subscription, AssignmentTopicPartition,
    ConsumerProtocolAssignment, ConsumerProtocolSubscription, TopicPartition,
};
use crate::protocol::leave_group::{LeaveGroupRequest, MemberIdentity};
use crate::protocol::KafkaCode;
use crate::wire::Bytes;

/// The ConsumerProtocol version this member writes its subscription in
/// (v3: owned partitions, generation, rack — as Java 3.x and librdkafka 2.x).
const SUBSCRIPTION_VERSION: i16 = 3;

/// LeaveGroup for this member at the negotiated version (the classic
/// protocol).
///
/// # Errors
/// The request's or the coordinator's error.
pub(crate) fn leave(
    group: &Group,
    cluster: &Cluster,
    member_id: &str,
    deadline: Instant,
) -> Result<()> {
    let s = &group.settings;
    let conn = coordinator(group, cluster, deadline)?;
    let version = conn.version_for::<LeaveGroupRequest>(deadline)?;
    let req = if version >= 3 {
        LeaveGroupRequest {
            group_id: s.group_id.clone(),
            members: vec![MemberIdentity {
                member_id: member_id.to_string(),
                group_instance_id: s.instance_id.clone(),
                reason: (version >= 5).then(|| "the consumer is leaving the group".to_string()),
                ..Default::default()
            }],
            ..Default::default()
        }
    } else {
        LeaveGroupRequest {
            group_id: s.group_id.clone(),
            member_id: member_id.to_string(),
            ..Default::default()
        }
    };
    let resp = conn
        .send_at(&req, version, deadline)?
        .wait_until(deadline)?;
    let code = KafkaCode(resp.error_code);
    let member = resp
        .members
        .iter()
        .map(|m| KafkaCode(m.error_code))
        .find(|c| !c.is_ok());
    match (code.is_ok(), member) {
        (true, None) => Ok(()),
        (false, _) => Err(Error::kafka(code, format!("leave group {:?}", s.group_id))),
        (true, Some(c)) => Err(Error::kafka(c, format!("leave group {:?}", s.group_id))),
    }
}

/// Runs `assignor` over the members' JoinGroup metadata and the
/// partition counts: the SyncGroup assignments (ConsumerProtocol bytes, in
/// the lowest subscription version any member wrote, at most 3) and the
/// topics the group subscribes to.
///
/// # Errors
/// If an assignment cannot be encoded.
pub(crate) fn leader_assignments(
    assignor: &dyn Assignor,
    members: &[(String, Option<String>, Bytes)],
    counts: &BTreeMap<String, i32>,
    racks: &PartitionRacks,
) -> Result<Vec<(String, Vec<u8>)>> {
    let mut version = SUBSCRIPTION_VERSION;
    let mut decoded = Vec::new();
    for (id, instance, meta) in members {
        let subscription = match decode_subscription(meta) {
            Ok((v, s)) => {
                version = version.min(v.max(0));
                s
            }
            // a member we cannot read gets nothing (as librdkafka)
            Err(_) => ConsumerProtocolSubscription::default(),
        };
        decoded.push(assignor::Member {
            member_id: id.clone(),
            group_instance_id: instance.clone(),
            subscription,
        });
    }
    let result = assignor.assign_with_racks(&decoded, counts, racks);
    let mut out = Vec::new();
    for m in &decoded {
        let parts = result.get(&m.member_id).cloned().unwrap_or_default();
        let a = ConsumerProtocolAssignment {
            assigned_partitions: parts
                .into_iter()
                .filter(|(_, ps)| !ps.is_empty())
                .map(|(topic, partitions)| AssignmentTopicPartition {
                    topic,
                    partitions,
                    ..Default::default()
                })
                .collect(),
            user_data: None,
            ..Default::default()
        };
        out.push((m.member_id.clone(), encode_assignment(&a, version)?));
    }
    Ok(out)
}

/// The partition counts of the usable topics in `meta` (no error, at least
/// one partition) and where each partition's replicas are: the racks of
/// the brokers in its replica list, by partition number (KIP-881).
pub(crate) fn counts_and_racks(
    meta: &crate::cluster::Metadata,
) -> (BTreeMap<String, i32>, PartitionRacks) {
    let mut counts = BTreeMap::new();
    let mut racks = PartitionRacks::new();
    for t in meta
        .topics
        .values()
        .filter(|t| t.error.is_ok() && !t.partitions.is_empty())
    {
        let n = t.partitions.len();
        counts.insert(t.name.clone(), n as i32);
        let mut per = vec![BTreeSet::new(); n];
        for p in &t.partitions {
            // ids outside 0..n (a torn answer) carry no racks
            let Some(slot) = usize::try_from(p.id).ok().and_then(|i| per.get_mut(i)) else {
                continue;
            };
            for b in &p.replicas {
                if let Some(r) = meta.brokers.get(b).and_then(|b| b.rack.as_ref()) {
                    slot.insert(r.clone());
                }
            }
        }
        racks.insert(t.name.clone(), per);
    }
    (counts, racks)
}

/// The topics named in members' subscriptions.
pub(crate) fn subscribed_topics(members: &[(String, Option<String>, Bytes)]) -> BTreeSet<String> {
    members
        .iter()
        .filter_map(|(_, _, meta)| decode_subscription(meta).ok())
        .flat_map(|(_, s)| s.topics)
        .collect()
}

/// This member's subscription bytes for `assignor`.
pub(crate) fn subscription_bytes(
    assignor: &dyn Assignor,
    topics: &BTreeSet<String>,
    owned: &BTreeSet<(String, i32)>,
    generation: i32,
    rack: Option<&str>,
) -> Result<Vec<u8>> {
    let mut by_topic: BTreeMap<&str, Vec<i32>> = BTreeMap::new();
    for (t, p) in owned {
        by_topic.entry(t).or_default().push(*p);
    }
    let s = ConsumerProtocolSubscription {
        topics: topics.iter().cloned().collect(),
        user_data: assignor.user_data(),
        owned_partitions: by_topic
            .into_iter()
            .map(|(t, ps)| TopicPartition {
                topic: t.to_string(),
                partitions: ps,
                ..Default::default()
            })
            .collect(),
        generation_id: generation,
        rack_id: rack.map(str::to_string),
        ..Default::default()
    };
    Ok(encode_subscription(&s, SUBSCRIPTION_VERSION)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::consumer::assignor::Range;
    use crate::protocol::consumer_protocol::decode_assignment;

    fn sub(topics: &[&str]) -> Bytes {
        let t: BTreeSet<String> = topics.iter().map(|s| s.to_string()).collect();
        Bytes::from(subscription_bytes(&Range, &t, &BTreeSet::new(), -1, None).unwrap())
    }

    #[test]
    fn subscription_bytes_are_v3_as_java_writes_them() {
        let owned: BTreeSet<(String, i32)> = [("t".to_string(), 1)].into();
        let t: BTreeSet<String> = ["t".to_string()].into();
        let b = subscription_bytes(&Range, &t, &owned, 7, None).unwrap();
        let want = [
            0, 3, // version 3
            0, 0, 0, 1, 0, 1, b't', // topics ["t"]
            0xff, 0xff, 0xff, 0xff, // user data null
            0, 0, 0, 1, 0, 1, b't', 0, 0, 0, 1, 0, 0, 0, 1, // owned t [1]
            0, 0, 0, 7, // generation 7
            0xff, 0xff, // rack null
        ];
        assert_eq!(b, want);
        // client.rack rides in rack_id (KIP-881)
        let b = subscription_bytes(&Range, &t, &owned, 7, Some("r1")).unwrap();
        let (v, s) = decode_subscription(&b).unwrap();
        assert_eq!((v, s.rack_id.as_deref()), (3, Some("r1")));
        assert_eq!(&b[..b.len() - 4], &want[..want.len() - 2]);
        assert_eq!(&b[b.len() - 4..], &[0, 2, b'r', b'1']);
    }

    #[test]
    fn the_leader_reads_racks_from_metadata_and_assigns_by_them() {
        use crate::cluster::{BrokerInfo, Metadata, PartitionInfo, TopicInfo};
        // partitions 0 and 2 on broker 1 (rack r1), 1 and 3 on broker 2
        // (rack r2), broker 3 without a rack holds a second replica of 3
        let broker = |id: i32, rack: Option<&str>| BrokerInfo {
            id,
            host: "h".into(),
            port: 1,
            rack: rack.map(str::to_string),
        };
        let part = |id: i32, replicas: Vec<i32>| PartitionInfo {
            id,
            error: KafkaCode::NONE,
            leader: replicas[0],
            leader_epoch: 0,
            isr: replicas.clone(),
            replicas,
            offline: vec![],
        };
        let meta = Metadata {
            brokers: [
                (1, broker(1, Some("r1"))),
                (2, broker(2, Some("r2"))),
                (3, broker(3, None)),
            ]
            .into(),
            topics: [(
                "t".to_string(),
                TopicInfo {
                    name: "t".into(),
                    id: crate::wire::Uuid([0; 16]),
                    error: KafkaCode::NONE,
                    is_internal: false,
                    partitions: vec![
                        part(0, vec![1]),
                        part(1, vec![2]),
                        part(2, vec![1]),
                        part(3, vec![2, 3]),
                    ],
                },
            )]
            .into(),
            ..Default::default()
        };
        let (counts, racks) = counts_and_racks(&meta);
        assert_eq!(counts, [("t".to_string(), 4)].into());
        let set = |r: &str| -> BTreeSet<String> { [r.to_string()].into() };
        assert_eq!(racks["t"], vec![set("r1"), set("r2"), set("r1"), set("r2")]);
        let t: BTreeSet<String> = ["t".to_string()].into();
        let racked = |rack: &str| {
            Bytes::from(subscription_bytes(&Range, &t, &BTreeSet::new(), -1, Some(rack)).unwrap())
        };
        // "a" sorts first, so plain range would give it 0 and 1
        let members = vec![
            ("a".to_string(), None, racked("r2")),
            ("b".to_string(), None, racked("r1")),
        ];
        let out = leader_assignments(&Range, &members, &counts, &racks).unwrap();
        for (id, bytes) in &out {
            let (_, a) = decode_assignment(bytes).unwrap();
            let want = if id == "a" { vec![1, 3] } else { vec![0, 2] };
            assert_eq!(a.assigned_partitions[0].partitions, want, "{id}");
        }
    }

    #[test]
    fn the_leader_assigns_in_the_lowest_member_version() {
        // a v0 subscription (an old client) makes the assignments v0
        let v0 = Bytes::from(vec![0, 0, 0, 0, 0, 1, 0, 1, b't', 0xff, 0xff, 0xff, 0xff]);
        let members = vec![
            ("a".to_string(), None, v0),
            ("b".to_string(), None, sub(&["t"])),
        ];
        let counts: BTreeMap<String, i32> = [("t".to_string(), 4)].into();
        let out = leader_assignments(&Range, &members, &counts, &PartitionRacks::new()).unwrap();
        assert_eq!(out.len(), 2);
        for (id, bytes) in &out {
            let (v, a) = decode_assignment(bytes).unwrap();
            assert_eq!(v, 0);
            let parts = &a.assigned_partitions[0];
            assert_eq!(parts.topic, "t");
            assert_eq!(
                parts.partitions,
                if id == "a" { vec![0, 1] } else { vec![2, 3] }
            );
        }
        assert_eq!(
            subscribed_topics(&members),
            ["t".to_string()].into_iter().collect()
        );
    }
}
