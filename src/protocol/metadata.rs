//! Metadata (API key 3): brokers, topics (with topic IDs from v10,
//! KIP-516), partitions, leaders and replicas. Versions 0–13, flexible from 9;
//! v13 (KIP-1102, Kafka 4.0) adds the response's top-level error code, by
//! which a broker tells the client to re-bootstrap (REBOOTSTRAP_REQUIRED).

use super::codec::{kafka_message, kafka_struct};
use super::Request;
use crate::wire::Uuid;

kafka_struct! {
    /// Asks for the cluster's brokers and the given topics' partitions.
    pub struct MetadataRequest {
        /// The topics to describe; null asks for all topics, empty for none.
        topics: Option<Vec<MetadataRequestTopic>> { nullable = 1.. },
        /// Whether the broker may auto-create the requested topics.
        allow_auto_topic_creation: bool { versions = 4.., default = true },
        /// Whether to return the cluster's authorized operations.
        include_cluster_authorized_operations: bool { versions = 8..=10 },
        /// Whether to return each topic's authorized operations.
        include_topic_authorized_operations: bool { versions = 8.. },
    }

    /// One topic to describe, by name or (v10+) by ID.
    pub struct MetadataRequestTopic {
        /// The topic ID.
        topic_id: Uuid { versions = 10.., ignorable = true },
        /// The topic name; null when asking by ID.
        name: Option<String> { nullable = 10.. },
    }

    /// The cluster's brokers and the requested topics.
    pub struct MetadataResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 { versions = 3.., ignorable = true },
        /// Every broker in the cluster.
        brokers: Vec<MetadataResponseBroker> {},
        /// The cluster ID.
        cluster_id: Option<String> { versions = 2.., nullable = 2.., ignorable = true },
        /// The controller's broker ID.
        controller_id: i32 { versions = 1.., default = -1, ignorable = true },
        /// One entry per topic.
        topics: Vec<MetadataResponseTopic> {},
        /// The cluster's authorized operations bit field.
        cluster_authorized_operations: i32 { versions = 8..=10, default = i32::MIN },
        /// The top-level error code (v13+, KIP-1102), or 0.
        error_code: i16 { versions = 13.., ignorable = true },
    }

    /// One broker.
    pub struct MetadataResponseBroker {
        /// The broker ID.
        node_id: i32 {},
        /// Its host name.
        host: String {},
        /// Its port.
        port: i32 {},
        /// Its rack, or null.
        rack: Option<String> { versions = 1.., nullable = 1.., ignorable = true },
    }

    /// One topic.
    pub struct MetadataResponseTopic {
        /// The topic's error code.
        error_code: i16 {},
        /// The topic name; null for an unknown topic asked for by ID.
        name: Option<String> { nullable = 12.. },
        /// The topic ID.
        topic_id: Uuid { versions = 10.., ignorable = true },
        /// Whether the topic is internal.
        is_internal: bool { versions = 1.., ignorable = true },
        /// One entry per partition.
        partitions: Vec<MetadataResponsePartition> {},
        /// The topic's authorized operations bit field.
        topic_authorized_operations: i32 { versions = 8.., default = i32::MIN },
    }

    /// One partition.
    pub struct MetadataResponsePartition {
        /// The partition's error code.
        error_code: i16 {},
        /// The partition index.
        partition_index: i32 {},
        /// The leader's broker ID.
        leader_id: i32 {},
        /// The leader epoch.
        leader_epoch: i32 { versions = 7.., default = -1, ignorable = true },
        /// All replicas.
        replica_nodes: Vec<i32> {},
        /// The in-sync replicas.
        isr_nodes: Vec<i32> {},
        /// Offline replicas.
        offline_replicas: Vec<i32> { versions = 5.., ignorable = true },
    }
}

kafka_message!(MetadataRequest, key = 3, versions = 0..=13, flexible = 9);
kafka_message!(MetadataResponse, key = 3, versions = 0..=13, flexible = 9);

impl Request for MetadataRequest {
    type Response = MetadataResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    #[test]
    fn v0_request_bytes() {
        let req = MetadataRequest {
            topics: Some(vec![MetadataRequestTopic {
                name: Some("t".into()),
                ..Default::default()
            }]),
            ..Default::default()
        };
        assert_eq!(req.to_bytes(0).unwrap(), [0, 0, 0, 1, 0, 1, b't']);
        // null topics cannot be carried by v0; false auto-create cannot by v3
        assert!(MetadataRequest {
            topics: None,
            ..Default::default()
        }
        .to_bytes(0)
        .is_err());
        let no_auto = MetadataRequest {
            allow_auto_topic_creation: false,
            ..Default::default()
        };
        assert!(no_auto.to_bytes(3).is_err());
        assert!(no_auto.to_bytes(4).is_ok());
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<MetadataRequest, kp::MetadataRequest>();
        // kafka-protocol 0.15 stops at v12, without v13's top-level error code
        crate::protocol::tests::check_except::<MetadataResponse, kp::MetadataResponse>(&[
            "last:error_code",
        ]);
    }
}
