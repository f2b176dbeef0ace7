//! Partition assignors: the group leader's choice of which member consumes
//! which partition. Pure functions of the members' subscriptions and the
//! partition counts — no I/O — so the membership code in `consumer/group`
//! and the tests can call them directly.
//!
//! The names are the protocol names the Java client and librdkafka put in
//! JoinGroup (`range`, `roundrobin`, `cooperative-sticky`), so a mixed
//! group agrees on one.

mod cooperative_sticky;
mod range;
mod roundrobin;

use std::collections::BTreeMap;

use crate::protocol::consumer_protocol::ConsumerProtocolSubscription;
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
}
