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
mod strategy;
#[cfg(test)]
pub(crate) mod testutil;

/// A member's decoded subscription (Kafka's ConsumerProtocolSubscription
/// schema) and its parts, as an assignor reads them.
pub use crate::protocol::codec::RawTaggedField;
pub use crate::protocol::consumer_protocol::{ConsumerProtocolSubscription, TopicPartition};

pub use cooperative_sticky::CooperativeSticky;
pub use range::Range;
pub use roundrobin::RoundRobin;
pub use strategy::{Assignment, Assignor, Member, PartitionRacks, RebalanceProtocol};

/// The assignor for a `partition.assignment.strategy` name.
pub fn by_name(name: &str) -> Option<Box<dyn Assignor>> {
    match name {
        "range" => Some(Box::new(Range)),
        "roundrobin" => Some(Box::new(RoundRobin)),
        "cooperative-sticky" => Some(Box::new(CooperativeSticky)),
        _ => None,
    }
}
