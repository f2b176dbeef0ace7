//! OffsetFetch (API key 9): reads a group's committed offsets. Versions 0–9,
//! flexible from 6; v8+ asks for several groups at once (KIP-709), v9 adds
//! the member ID and epoch of the new group protocol (KIP-848).

use super::codec::{kafka_message, kafka_struct};
use super::Request;

kafka_struct! {
    /// Asks for committed offsets of one group (v0–7) or several (v8+).
    pub struct OffsetFetchRequest {
        /// The group ID.
        group_id: String { versions = ..=7 },
        /// The partitions to fetch; null (v2–7) for all of the group's.
        topics: Option<Vec<OffsetFetchRequestTopic>> {
            versions = ..=7,
            nullable = 2..=7,
            default = Some(Vec::new()),
        },
        /// The groups to fetch.
        groups: Vec<OffsetFetchRequestGroup> { versions = 8.. },
        /// Whether to wait for pending transactional offsets instead of failing.
        require_stable: bool { versions = 7.. },
    }

    /// One topic's partitions to fetch (v0–7).
    pub struct OffsetFetchRequestTopic {
        /// The topic name.
        name: String {},
        /// The partition indexes.
        partition_indexes: Vec<i32> {},
    }

    /// One group to fetch (v8+).
    pub struct OffsetFetchRequestGroup {
        /// The group ID.
        group_id: String {},
        /// The member ID, or null.
        member_id: Option<String> { versions = 9.., nullable = 9.., ignorable = true },
        /// The member epoch, -1 if none.
        member_epoch: i32 { versions = 9.., default = -1, ignorable = true },
        /// The partitions to fetch, or null for all of the group's.
        topics: Option<Vec<OffsetFetchRequestTopics>> {
            nullable = 8..,
            default = Some(Vec::new()),
        },
    }

    /// One topic's partitions to fetch within a group (v8+).
    pub struct OffsetFetchRequestTopics {
        /// The topic name.
        name: String {},
        /// The partition indexes.
        partition_indexes: Vec<i32> {},
    }

    /// Committed offsets of one group (v0–7) or several (v8+).
    pub struct OffsetFetchResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 { versions = 3.., ignorable = true },
        /// One entry per topic.
        topics: Vec<OffsetFetchResponseTopic> { versions = ..=7 },
        /// The group-level error code.
        error_code: i16 { versions = 2..=7, ignorable = true },
        /// One entry per group.
        groups: Vec<OffsetFetchResponseGroup> { versions = 8.. },
    }

    /// One topic's offsets (v0–7).
    pub struct OffsetFetchResponseTopic {
        /// The topic name.
        name: String {},
        /// One entry per partition.
        partitions: Vec<OffsetFetchResponsePartition> {},
    }

    /// One partition's committed offset (v0–7).
    pub struct OffsetFetchResponsePartition {
        /// The partition index.
        partition_index: i32 {},
        /// The committed offset, -1 if none.
        committed_offset: i64 {},
        /// The leader epoch of the committed offset, or -1.
        committed_leader_epoch: i32 { versions = 5..=7, default = -1, ignorable = true },
        /// The metadata committed with the offset, or null.
        metadata: Option<String> { nullable = 0.., default = Some(String::new()) },
        /// The partition's error code.
        error_code: i16 {},
    }

    /// One group's offsets (v8+).
    pub struct OffsetFetchResponseGroup {
        /// The group ID.
        group_id: String {},
        /// One entry per topic.
        topics: Vec<OffsetFetchResponseTopics> {},
        /// The group-level error code.
        error_code: i16 {},
    }

    /// One topic's offsets within a group (v8+).
    pub struct OffsetFetchResponseTopics {
        /// The topic name.
        name: String {},
        /// One entry per partition.
        partitions: Vec<OffsetFetchResponsePartitions> {},
    }

    /// One partition's committed offset within a group (v8+).
    pub struct OffsetFetchResponsePartitions {
        /// The partition index.
        partition_index: i32 {},
        /// The committed offset, -1 if none.
        committed_offset: i64 {},
        /// The leader epoch of the committed offset, or -1.
        committed_leader_epoch: i32 { default = -1, ignorable = true },
        /// The metadata committed with the offset, or null.
        metadata: Option<String> { nullable = 0.., default = Some(String::new()) },
        /// The partition's error code.
        error_code: i16 {},
    }
}

kafka_message!(OffsetFetchRequest, key = 9, versions = 0..=9, flexible = 6);
kafka_message!(OffsetFetchResponse, key = 9, versions = 0..=9, flexible = 6);

impl Request for OffsetFetchRequest {
    type Response = OffsetFetchResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    #[test]
    fn v1_response_bytes() {
        let bytes = [
            0, 0, 0, 1, // topics: 1
            0, 1, b't', // name
            0, 0, 0, 1, // partitions: 1
            0, 0, 0, 2, // partition_index
            0, 0, 0, 0, 0, 0, 1, 0, // committed_offset 256
            0, 2, b'm', b'd', // metadata "md"
            0, 0, // error_code
        ];
        let resp = OffsetFetchResponse {
            topics: vec![OffsetFetchResponseTopic {
                name: "t".into(),
                partitions: vec![OffsetFetchResponsePartition {
                    partition_index: 2,
                    committed_offset: 256,
                    metadata: Some("md".into()),
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        };
        assert_eq!(OffsetFetchResponse::from_bytes(&bytes, 1).unwrap(), resp);
        assert_eq!(resp.to_bytes(1).unwrap(), bytes);
        // the group-level error code is ignorable: v1 drops it, v2 carries it
        let err = OffsetFetchResponse {
            error_code: 16,
            ..resp
        };
        assert_eq!(err.to_bytes(1).unwrap(), bytes);
        assert_eq!(err.to_bytes(2).unwrap()[bytes.len()..], [0, 16]);
    }

    #[test]
    fn v8_request_bytes() {
        let bytes = [
            3, // groups: 2
            3, b'g', b'1', // group_id
            0,    // topics null: all partitions
            0,    // group tagged fields
            3, b'g', b'2', // group_id
            2,    // topics: 1
            2, b't', // name
            3, 0, 0, 0, 0, 0, 0, 0, 7, // partition_indexes [0, 7]
            0, // topic tagged fields
            0, // group tagged fields
            1, // require_stable
            0, // request tagged fields
        ];
        let req = OffsetFetchRequest {
            groups: vec![
                OffsetFetchRequestGroup {
                    group_id: "g1".into(),
                    topics: None,
                    ..Default::default()
                },
                OffsetFetchRequestGroup {
                    group_id: "g2".into(),
                    topics: Some(vec![OffsetFetchRequestTopics {
                        name: "t".into(),
                        partition_indexes: vec![0, 7],
                        ..Default::default()
                    }]),
                    ..Default::default()
                },
            ],
            require_stable: true,
            ..Default::default()
        };
        assert_eq!(OffsetFetchRequest::from_bytes(&bytes, 8).unwrap(), req);
        assert_eq!(req.to_bytes(8).unwrap(), bytes);
        // several groups cannot be carried by v7
        assert!(req.to_bytes(7).is_err());
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<OffsetFetchRequest, kp::OffsetFetchRequest>();
        crate::protocol::tests::check::<OffsetFetchResponse, kp::OffsetFetchResponse>();
    }
}
