//! Partition assignors: the group leader's choice of which member consumes
//! which partition. Pure functions of the members' subscriptions and the
//! partition counts — no I/O — so the membership code in `consumer/group`
//! and the tests can call them directly.
//!
//! The names are the protocol names the Java client and librdkafka put in
//! JoinGroup (`range`, `roundrobin`, `cooperative-sticky`), so a mixed
//! group agrees on one.
//!
//! Rack awareness (KIP-881): members put `client.rack` in their
//! subscription (ConsumerProtocol v3), the leader reads each partition's
//! replica racks from Metadata, and `range` and `cooperative-sticky` prefer
//! giving a member partitions with a replica in its rack — as the Java
//! client (3.5+) and librdkafka (2.3+) do, and only when Java's
//! `useRackAwareAssignment` says so: some member has a rack, some partition
//! has a replica in a member's rack, and not every partition has replicas
//! in the same set of racks (else every choice would be as local).
//! `roundrobin` ignores racks, as in Java and librdkafka.

mod cooperative_sticky;
mod range;
mod roundrobin;

use std::collections::{BTreeMap, BTreeSet};

/// A member's decoded subscription (Kafka's ConsumerProtocolSubscription
/// schema) and its parts, as an assignor reads them.
pub use crate::protocol::codec::RawTaggedField;
pub use crate::protocol::consumer_protocol::{ConsumerProtocolSubscription, TopicPartition};
use crate::wire::Bytes;

pub use cooperative_sticky::CooperativeSticky;
pub use range::Range;
pub use roundrobin::RoundRobin;

/// How a group using an assignor rebalances.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RebalanceProtocol {
    /// Every member gives up all its partitions before the new assignment.
    Eager,
    /// Members only give up the partitions that move (KIP-429).
    Cooperative,
}

/// One member of the group as the leader sees it in JoinGroup.
#[derive(Debug, Clone)]
pub struct Member {
    /// The member id the coordinator gave it.
    pub member_id: String,
    /// Its static membership id (KIP-345), if any.
    pub group_instance_id: Option<String>,
    /// Its decoded subscription: topics, user data, owned partitions,
    /// generation and rack.
    pub subscription: ConsumerProtocolSubscription,
}

/// An assignment: member id → topic → partitions (sorted).
pub type Assignment = BTreeMap<String, BTreeMap<String, Vec<i32>>>;

/// Where partitions' replicas live (KIP-881): topic → for each partition,
/// by number, the racks of its replicas (brokers without a rack add
/// nothing). A topic or partition missing here has no known racks.
pub type PartitionRacks = BTreeMap<String, Vec<BTreeSet<String>>>;

/// A partition assignment strategy.
pub trait Assignor: Send + Sync {
    /// The protocol name in JoinGroup.
    fn name(&self) -> &'static str;

    /// Eager or cooperative.
    fn protocol(&self) -> RebalanceProtocol;

    /// The user data this member puts in its subscription (none by default).
    fn user_data(&self) -> Option<Bytes> {
        None
    }

    /// Assigns the partitions of `partitions` (topic → partition count;
    /// topics missing from it have no metadata and are not assigned) to the
    /// members subscribed to each topic. Every member appears in the answer,
    /// with an empty map if it gets nothing.
    fn assign(&self, members: &[Member], partitions: &BTreeMap<String, i32>) -> Assignment;

    /// [`Assignor::assign`] knowing where the partitions' replicas are:
    /// rack-aware assignors prefer partitions with a replica in a member's
    /// `rack_id` (KIP-881). The default ignores racks.
    fn assign_with_racks(
        &self,
        members: &[Member],
        partitions: &BTreeMap<String, i32>,
        racks: &PartitionRacks,
    ) -> Assignment {
        let _ = racks;
        self.assign(members, partitions)
    }
}

/// The assignor for a `partition.assignment.strategy` name.
pub fn by_name(name: &str) -> Option<Box<dyn Assignor>> {
    match name {
        "range" => Some(Box::new(Range)),
        "roundrobin" => Some(Box::new(RoundRobin)),
        "cooperative-sticky" => Some(Box::new(CooperativeSticky)),
        _ => None,
    }
}

/// Members in the order assignors hand out partitions: by static id where
/// both have one, else by member id — the Java client's `MemberInfo` order.
pub(crate) fn sorted(members: &[Member]) -> Vec<&Member> {
    let mut v: Vec<&Member> = members.iter().collect();
    v.sort_by(|a, b| match (&a.group_instance_id, &b.group_instance_id) {
        (Some(x), Some(y)) => x.cmp(y).then_with(|| a.member_id.cmp(&b.member_id)),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.member_id.cmp(&b.member_id),
    });
    v
}

/// A member's rack: its subscription's `rack_id`, if set and not empty
/// (the Java client ignores an empty one too).
pub(crate) fn member_rack(m: &Member) -> Option<&str> {
    m.subscription.rack_id.as_deref().filter(|r| !r.is_empty())
}

/// The racks of partition `p` of `topic`, if known.
pub(crate) fn replica_racks<'a>(
    racks: &'a PartitionRacks,
    topic: &str,
    p: i32,
) -> Option<&'a BTreeSet<String>> {
    usize::try_from(p)
        .ok()
        .and_then(|i| racks.get(topic)?.get(i))
}

/// Java's `AbstractPartitionAssignor.useRackAwareAssignment`: rack-aware
/// assignment is worth doing when some member has a rack, some partition
/// has a replica in one of those racks, and the partitions' replica racks
/// are not all the same set (if every partition had replicas on every
/// rack, any assignment would be equally local).
pub(crate) fn use_rack_aware<'a>(
    member_racks: &BTreeSet<&str>,
    partition_racks: impl Iterator<Item = Option<&'a BTreeSet<String>>> + Clone,
) -> bool {
    if member_racks.is_empty() {
        return false;
    }
    let all: BTreeSet<&str> = partition_racks
        .clone()
        .flatten()
        .flat_map(|s| s.iter().map(String::as_str))
        .collect();
    if member_racks.is_disjoint(&all) {
        return false;
    }
    !partition_racks.into_iter().all(|s| {
        let n = s.map_or(0, BTreeSet::len);
        n == all.len() && s.is_none_or(|s| s.iter().all(|r| all.contains(r.as_str())))
    })
}

/// An empty assignment naming every member.
pub(crate) fn empty(members: &[Member]) -> Assignment {
    members
        .iter()
        .map(|m| (m.member_id.clone(), BTreeMap::new()))
        .collect()
}

#[cfg(test)]
pub(crate) mod testutil {
    use super::*;

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
}
