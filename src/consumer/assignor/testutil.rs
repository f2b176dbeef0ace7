//! What the assignors' tests share: members, rack layouts and the checks
//! of Java's `AbstractPartitionAssignorTest`.

use std::collections::{BTreeMap, BTreeSet};

use super::strategy::{member_rack, replica_racks, Assignment, Assignor, Member, PartitionRacks};
use crate::protocol::consumer_protocol::ConsumerProtocolSubscription;

/// A member subscribed to `topics`.
pub fn member(id: &str, topics: &[&str]) -> Member {
    Member {
        member_id: id.to_string(),
        group_instance_id: None,
        subscription: ConsumerProtocolSubscription {
            topics: topics.iter().map(|t| t.to_string()).collect(),
            ..Default::default()
        },
    }
}

/// The Java tests' ALL_RACKS.
pub const ALL_RACKS: [&str; 6] = ["a", "b", "c", "d", "e", "f"];

/// Java's `AbstractPartitionAssignorTest.racks(n)`: brokers (or
/// consumers) 0..n on racks a, b, c, …
pub fn racks(n: usize) -> Vec<Option<&'static str>> {
    (0..n)
        .map(|i| Some(ALL_RACKS[i % ALL_RACKS.len()]))
        .collect()
}

/// The layout of Java's `AbstractPartitionAssignorTest.partitionsPerTopic`:
/// topics taken in the given order; partition i of a topic whose
/// partitions start at flat index `base` has replicas on brokers
/// `(i + j + base) % brokers` for j in 0..replication.
pub fn layout(
    topics: &[(&str, i32)],
    replication: usize,
    broker_racks: &[Option<&str>],
) -> (BTreeMap<String, i32>, PartitionRacks) {
    let mut counts = BTreeMap::new();
    let mut racks = PartitionRacks::new();
    let mut base = 0usize;
    for (t, n) in topics {
        counts.insert(t.to_string(), *n);
        let per: Vec<BTreeSet<String>> = (0..*n as usize)
            .map(|i| {
                (0..replication)
                    .filter_map(|j| broker_racks[(i + j + base) % broker_racks.len()])
                    .map(str::to_string)
                    .collect()
            })
            .collect();
        racks.insert(t.to_string(), per);
        base += *n as usize;
    }
    (counts, racks)
}

/// Java's verifyRackAssignment members: "consumer<i>" on `racks[i]`
/// subscribed to `topics[i]`.
pub fn rack_members(topics: &[&[&str]], racks: &[Option<&str>]) -> Vec<Member> {
    topics
        .iter()
        .zip(racks)
        .enumerate()
        .map(|(i, (t, r))| {
            let mut m = member(&format!("consumer{i}"), t);
            m.subscription.rack_id = r.map(str::to_string);
            m
        })
        .collect()
}

/// An assignment as Java's tests print it: one "t1-0, t1-3, …" string
/// per member, members in the order given.
pub fn printed(a: &Assignment, members: &[Member]) -> Vec<String> {
    members
        .iter()
        .map(|m| {
            let mut v: Vec<(String, i32)> = a[&m.member_id]
                .iter()
                .flat_map(|(t, ps)| ps.iter().map(move |p| (t.clone(), *p)))
                .collect();
            v.sort();
            v.iter()
                .map(|(t, p)| format!("{t}-{p}"))
                .collect::<Vec<_>>()
                .join(", ")
        })
        .collect()
}

/// Java's `AbstractPartitionAssignorTest.verifyRackAssignment`: members
/// "consumer<i>" on `consumer_racks[i]` subscribed to `topics_of[i]`,
/// owning `owned[i]` ("t1-0, t1-3" lists, Java's format) if given,
/// over `topics` laid out on `brokers` with `replication` replicas;
/// checks the assignment (and the count of partitions outside their
/// member's rack, unless `mismatch` is None).
#[allow(clippy::too_many_arguments)]
pub fn verify(
    assignor: &dyn Assignor,
    topics: &[(&str, i32)],
    replication: usize,
    brokers: &[Option<&str>],
    consumer_racks: &[Option<&str>],
    topics_of: &[&[&str]],
    owned: Option<&[&str]>,
    expected: &[&str],
    mismatch: Option<usize>,
) {
    let (counts, racks) = layout(topics, replication, brokers);
    let mut ms = rack_members(topics_of, consumer_racks);
    if let Some(owned) = owned {
        for (m, o) in ms.iter_mut().zip(owned) {
            let mut by_topic: BTreeMap<String, Vec<i32>> = BTreeMap::new();
            for tp in o.split(", ").filter(|s| !s.is_empty()) {
                let (t, p) = tp.rsplit_once('-').unwrap();
                by_topic
                    .entry(t.to_string())
                    .or_default()
                    .push(p.parse().unwrap());
            }
            m.subscription.owned_partitions = by_topic
                .into_iter()
                .map(
                    |(topic, partitions)| crate::protocol::consumer_protocol::TopicPartition {
                        topic,
                        partitions,
                        ..Default::default()
                    },
                )
                .collect();
        }
    }
    let a = assignor.assign_with_racks(&ms, &counts, &racks);
    let want: Vec<String> = expected.iter().map(|s| s.to_string()).collect();
    assert_eq!(
        printed(&a, &ms),
        want,
        "replication {replication}, brokers {brokers:?}, consumers {consumer_racks:?}"
    );
    if let Some(n) = mismatch {
        assert_eq!(mismatched(&a, &ms, &racks), n, "rack mismatches");
    }
}

/// How many assigned partitions have no replica in their member's rack
/// (Java's numPartitionsWithRackMismatch; members without a rack are
/// not counted).
pub fn mismatched(a: &Assignment, members: &[Member], racks: &PartitionRacks) -> usize {
    members
        .iter()
        .filter_map(|m| member_rack(m).map(|r| (m, r)))
        .map(|(m, r)| {
            a[&m.member_id]
                .iter()
                .flat_map(|(t, ps)| ps.iter().map(move |p| (t, *p)))
                .filter(|(t, p)| !replica_racks(racks, t, *p).is_some_and(|s| s.contains(r)))
                .count()
        })
        .sum()
}
