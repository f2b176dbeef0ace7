//! CreateTopics (API key 19): create topics with a partition count and
//! replication factor or a manual assignment (KIP-4). Versions 0–7,
//! flexible from 5; v5+ responses echo the created topic's configs.

use super::codec::{kafka_message, kafka_struct};
use super::Request;
use crate::wire::Uuid;

kafka_struct! {
    /// Asks the controller to create topics.
    pub struct CreateTopicsRequest {
        /// The topics to create.
        topics: Vec<CreatableTopic> {},
        /// How long to wait for the creation, in ms.
        timeout_ms: i32 { default = 60000 },
        /// Only check that the topics could be created.
        validate_only: bool { versions = 1.. },
    }

    /// One topic to create.
    pub struct CreatableTopic {
        /// The topic name.
        name: String {},
        /// Partition count, or -1 for the broker default or a manual assignment.
        num_partitions: i32 {},
        /// Replication factor, or -1 for the broker default or a manual assignment.
        replication_factor: i16 {},
        /// The manual assignment, empty for automatic.
        assignments: Vec<CreatableReplicaAssignment> {},
        /// Topic configs to set.
        configs: Vec<CreatableTopicConfig> {},
    }

    /// The replicas of one partition in a manual assignment.
    pub struct CreatableReplicaAssignment {
        /// The partition index.
        partition_index: i32 {},
        /// The brokers holding its replicas.
        broker_ids: Vec<i32> {},
    }

    /// One topic config to set.
    pub struct CreatableTopicConfig {
        /// The config name.
        name: String {},
        /// The config value, or null.
        value: Option<String> { nullable = 0.. },
    }

    /// The outcome for each topic.
    pub struct CreateTopicsResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 { versions = 2.., ignorable = true },
        /// One result per requested topic.
        topics: Vec<CreatableTopicResult> {},
    }

    /// The outcome for one topic.
    pub struct CreatableTopicResult {
        /// The topic name.
        name: String {},
        /// The new topic's ID.
        topic_id: Uuid { versions = 7.., ignorable = true },
        /// The error code, 0 on success.
        error_code: i16 {},
        /// The error message, or null ("" when absent, as in Kafka).
        error_message: Option<String> {
            versions = 1..,
            nullable = 0..,
            default = Some(String::new()),
            ignorable = true,
        },
        /// Config error when configs are not returned.
        topic_config_error_code: i16 { versions = 5.., tag = 0, ignorable = true },
        /// The topic's partition count.
        num_partitions: i32 { versions = 5.., default = -1, ignorable = true },
        /// The topic's replication factor.
        replication_factor: i16 { versions = 5.., default = -1, ignorable = true },
        /// The topic's configs, or null (empty when absent, as in Kafka).
        configs: Option<Vec<CreatableTopicConfigs>> {
            versions = 5..,
            nullable = 5..,
            default = Some(Vec::new()),
            ignorable = true,
        },
    }

    /// One config of a created topic (v5+).
    pub struct CreatableTopicConfigs {
        /// The config name.
        name: String { versions = 5.. },
        /// The config value, or null.
        value: Option<String> { versions = 5.., nullable = 5.. },
        /// Whether the config is read-only.
        read_only: bool { versions = 5.. },
        /// Where the value comes from.
        config_source: i8 { versions = 5.., default = -1, ignorable = true },
        /// Whether the config is sensitive.
        is_sensitive: bool { versions = 5.. },
    }
}

kafka_message!(
    CreateTopicsRequest,
    key = 19,
    versions = 0..=7,
    flexible = 5
);
kafka_message!(
    CreateTopicsResponse,
    key = 19,
    versions = 0..=7,
    flexible = 5
);

impl Request for CreateTopicsRequest {
    type Response = CreateTopicsResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    fn fixture<M: Message>(parts: &[&[u8]], version: i16, want: &M) {
        let bytes = parts.concat();
        assert_eq!(
            &M::from_bytes(&bytes, version).unwrap(),
            want,
            "v{version} decode"
        );
        assert_eq!(want.to_bytes(version).unwrap(), bytes, "v{version} encode");
    }

    #[test]
    fn v1_response_bytes() {
        let want = CreateTopicsResponse {
            topics: vec![CreatableTopicResult {
                name: "t".into(),
                error_code: 36,
                error_message: Some("exists".into()),
                ..Default::default()
            }],
            ..Default::default()
        };
        #[rustfmt::skip]
        fixture(&[
            &[0, 0, 0, 1],          // topics: 1
            &[0, 1], b"t",          //   name
            &[0, 36],               //   error_code: TOPIC_ALREADY_EXISTS
            &[0, 6], b"exists",     //   error_message
        ], 1, &want);
        // v0 drops the ignorable message; fields a version lacks decode to Kafka's defaults
        assert!(want.to_bytes(0).is_ok());
        let back = CreateTopicsResponse::from_bytes(&want.to_bytes(0).unwrap(), 0).unwrap();
        assert_eq!(back.topics[0].error_message.as_deref(), Some(""));
        assert_eq!(back.topics[0].num_partitions, -1);
    }

    #[test]
    fn v5_response_bytes() {
        let want = CreateTopicsResponse {
            throttle_time_ms: 10,
            topics: vec![CreatableTopicResult {
                name: "t".into(),
                error_message: None,
                topic_config_error_code: 29,
                num_partitions: 3,
                replication_factor: 2,
                configs: Some(vec![CreatableTopicConfigs {
                    name: "a".into(),
                    value: Some("b".into()),
                    config_source: 5,
                    ..Default::default()
                }]),
                ..Default::default()
            }],
            ..Default::default()
        };
        #[rustfmt::skip]
        fixture(&[
            &[0, 0, 0, 10],         // throttle_time_ms
            &[2],                   // topics: 1 (compact)
            &[2], b"t",             //   name
            &[0, 0],                //   error_code
            &[0],                   //   error_message: null
            &[0, 0, 0, 3],          //   num_partitions
            &[0, 2],                //   replication_factor
            &[2],                   //   configs: 1
            &[2], b"a",             //     name
            &[2], b"b",             //     value
            &[0],                   //     read_only
            &[5],                   //     config_source: DEFAULT_CONFIG
            &[0],                   //     is_sensitive
            &[0],                   //     tagged fields: none
            &[1, 0, 2, 0, 29],      //   tagged: 1 field, tag 0, 2 bytes, topic_config_error_code
            &[0],                   // tagged fields: none
        ], 5, &want);
    }

    #[test]
    fn validate_only_needs_v1() {
        let req = CreateTopicsRequest {
            validate_only: true,
            ..Default::default()
        };
        assert!(req.to_bytes(0).is_err());
        assert_eq!(req.to_bytes(1).unwrap(), [0, 0, 0, 0, 0, 0, 0xea, 0x60, 1]);
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<CreateTopicsRequest, kp::CreateTopicsRequest>();
        crate::protocol::tests::check::<CreateTopicsResponse, kp::CreateTopicsResponse>();
    }
}
