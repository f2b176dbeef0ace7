//! ZooKeeper-era clusters: the legacy (ZooKeeper-stored) consumer groups and
//! their offsets, and the ZooKeeper-balanced consumer. The registry reader
//! they build on (broker discovery, cluster inspection, sessions) is
//! [`crate::registry`], below the cluster; it is re-exported here so
//! `gregor::zk::ZkClient` and the other paths keep working.
//!
//! - [`groups`]: legacy consumer groups, their offsets and the migration to Kafka and back;
//! - [`balanced`]: [`BalancedConsumer`], the ZooKeeper-balanced (Kafka 0.8 high-level) consumer;
//! - re-exported from [`crate::registry`]: [`brokers`], [`bootstrap`],
//!   [`session`], [`json`], [`inspect`] and their items.

pub mod balanced;
pub mod groups;

pub use crate::registry::{bootstrap, brokers, inspect, json, session};
pub use crate::registry::{
    parse_registration, read_brokers, watch_brokers, AdminPartition, BrokerWatch, Controller,
    Endpoint, Notification, PartitionState, TopicAssignment, ZkBroker, ZkClient,
};
pub use balanced::BalancedConsumer;
pub use groups::{Direction, GroupMember, Offsets, PartitionOwner};
