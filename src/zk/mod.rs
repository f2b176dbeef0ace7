//! ZooKeeper-era clusters: broker discovery from `/brokers/ids` (the
//! `zookeeper.connect` bootstrap of [`crate::cluster::Cluster`]), cluster
//! inspection, the legacy (ZooKeeper-stored) consumer groups and their
//! offsets, and the `gregor zk` command.
//!
//! - [`brokers`]: broker registrations in every format Kafka wrote (0.7,
//!   JSON versions 1–5) and the endpoint for `security.protocol`;
//! - [`bootstrap`]: the watch that keeps the cluster's broker list current;
//! - [`session`]: the ZooKeeper session helpers shared with `legacy07`;
//! - [`json`]: znode JSON with errors that name the path and the field;
//! - [`inspect`]: [`ZkClient`], typed reads of every znode a ZooKeeper-mode Kafka writes;
//! - [`groups`]: legacy consumer groups, their offsets and the migration to Kafka and back;
//! - [`balanced`]: [`BalancedConsumer`], the ZooKeeper-balanced (Kafka 0.8 high-level) consumer.

pub mod balanced;
pub mod bootstrap;
pub mod brokers;
pub mod json;
pub mod session;

pub use balanced::BalancedConsumer;
pub use bootstrap::{watch_brokers, BrokerWatch};
pub use brokers::{parse_registration, read_brokers, Endpoint, ZkBroker};
pub mod cli;
pub mod groups;
pub mod inspect;

pub use groups::{Direction, GroupMember, Offsets, PartitionOwner};
pub use inspect::{
    AdminPartition, Controller, Notification, PartitionState, TopicAssignment, ZkClient,
};
