//! ZooKeeper-era clusters: the legacy (ZooKeeper-stored) consumer groups and
//! their offsets, and the ZooKeeper-balanced consumer. The registry reader
//! they build on (broker discovery, cluster inspection, sessions,
//! [`ZkClient`](crate::registry::ZkClient)) is [`crate::registry`], below
//! the cluster, and has that one path.
//!
//! - [`groups`]: legacy consumer groups, their offsets and the migration to Kafka and back;
//! - [`balanced`]: [`BalancedConsumer`], the ZooKeeper-balanced (Kafka 0.8 high-level) consumer.

pub mod balanced;
pub mod groups;

pub use balanced::BalancedConsumer;
pub use groups::{Direction, GroupMember, Offsets, PartitionOwner};
