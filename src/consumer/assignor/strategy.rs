//! What an assignment strategy is: the [`Assignor`] trait, the members and
//! assignments it maps between, and the helpers the strategies share
//! (the Java client's member order, KIP-881's rack checks).

use std::collections::{BTreeMap, BTreeSet};

use crate::protocol::consumer_protocol::ConsumerProtocolSubscription;
use crate::wire::Bytes;

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
