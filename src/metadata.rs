//! The cluster's metadata as a client sees it: brokers, topics, partitions,
//! leaders and replicas (librdkafka's `rd_kafka_metadata_t`, the Java
//! client's `Cluster` view), from [`Producer::metadata`],
//! [`Consumer::metadata`] and `AdminClient::metadata`.
//!
//! [`Producer::metadata`]: crate::producer::Producer::metadata
//! [`Consumer::metadata`]: crate::consumer::Consumer::metadata

pub use crate::cluster::{BrokerInfo, Metadata, PartitionInfo, TopicInfo};
/// Topic IDs (KIP-516).
pub use crate::wire::Uuid;
