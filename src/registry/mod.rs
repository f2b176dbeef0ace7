//! The ZooKeeper registry of a ZooKeeper-mode Kafka cluster, read into typed
//! values: broker registrations (the `zookeeper.connect` bootstrap of
//! the cluster), topics, partition states, the controller and
//! the admin znodes. The layout is Kafka's, as `kafka.zk.ZkData` writes it
//! and the "Kafka data structures in Zookeeper" page of Kafka's wiki
//! describes it.
//!
//! This layer sits below the cluster (`crate::cluster`) and knows nothing of clusters,
//! consumers or groups; the ZooKeeper-era consumer groups and the
//! ZooKeeper-balanced consumer, which use the cluster and the consumer, are
//! in [`crate::zk`], which re-exports everything here.
//!
//! - [`brokers`]: broker registrations in every format Kafka wrote (0.7,
//!   JSON versions 1–5) and the endpoint for `security.protocol`;
//! - [`bootstrap`]: the watch that keeps the cluster's broker list current;
//! - [`session`]: the ZooKeeper session helpers shared with `legacy07`;
//! - [`json`]: znode JSON with errors that name the path and the field;
//! - [`inspect`]: [`ZkClient`], typed reads of every znode a ZooKeeper-mode Kafka writes.

pub mod bootstrap;
pub mod brokers;
pub mod inspect;
pub mod json;
pub mod session;

pub use bootstrap::{watch_brokers, BrokerWatch};
pub use brokers::{parse_registration, read_brokers, Endpoint, ZkBroker};
pub use inspect::{
    AdminPartition, Controller, Notification, PartitionState, TopicAssignment, ZkClient,
};
