//! OffsetDelete (API key 47): deletes a group's committed offsets for
//! partitions it no longer consumes (KIP-496). Version 0 only, not flexible.

use super::codec::{kafka_message, kafka_struct};
use super::Request;

kafka_struct! {
    /// Asks to delete committed offsets of a group.
    pub struct OffsetDeleteRequest {
        /// The group ID.
        group_id: String {},
        /// The topics whose offsets to delete.
        topics: Vec<OffsetDeleteRequestTopic> {},
    }

    /// One topic.
    pub struct OffsetDeleteRequestTopic {
        /// The topic name.
        name: String {},
        /// The partitions.
        partitions: Vec<OffsetDeleteRequestPartition> {},
    }

    /// One partition.
    pub struct OffsetDeleteRequestPartition {
        /// The partition index.
        partition_index: i32 {},
    }

    /// Per-partition results.
    pub struct OffsetDeleteResponse {
        /// The top-level error code.
        error_code: i16 {},
        /// Throttle time in ms.
        throttle_time_ms: i32 { ignorable = true },
        /// One entry per topic.
        topics: Vec<OffsetDeleteResponseTopic> {},
    }

    /// One topic's results.
    pub struct OffsetDeleteResponseTopic {
        /// The topic name.
        name: String {},
        /// One entry per partition.
        partitions: Vec<OffsetDeleteResponsePartition> {},
    }

    /// One partition's result.
    pub struct OffsetDeleteResponsePartition {
        /// The partition index.
        partition_index: i32 {},
        /// The error code, 0 on success.
        error_code: i16 {},
    }
}

kafka_message!(OffsetDeleteRequest, key = 47, versions = 0..=0);
kafka_message!(OffsetDeleteResponse, key = 47, versions = 0..=0);

impl Request for OffsetDeleteRequest {
    type Response = OffsetDeleteResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    #[test]
    fn v0_request_bytes() {
        let bytes = [
            0, 1, b'g', // group_id
            0, 0, 0, 1, // topics: 1
            0, 1, b't', // name
            0, 0, 0, 2, // partitions: 2
            0, 0, 0, 0, // partition_index
            0, 0, 0, 3, // partition_index
        ];
        let req = OffsetDeleteRequest {
            group_id: "g".into(),
            topics: vec![OffsetDeleteRequestTopic {
                name: "t".into(),
                partitions: vec![
                    OffsetDeleteRequestPartition {
                        partition_index: 0,
                        ..Default::default()
                    },
                    OffsetDeleteRequestPartition {
                        partition_index: 3,
                        ..Default::default()
                    },
                ],
                ..Default::default()
            }],
            ..Default::default()
        };
        assert_eq!(req.to_bytes(0).unwrap(), bytes);
        assert_eq!(OffsetDeleteRequest::from_bytes(&bytes, 0).unwrap(), req);
        assert!(req.to_bytes(1).is_err());
    }

    #[test]
    fn v0_response_bytes() {
        let bytes = [
            0, 0, // error_code
            0, 0, 0, 5, // throttle_time_ms
            0, 0, 0, 1, // topics: 1
            0, 1, b't', // name
            0, 0, 0, 1, // partitions: 1
            0, 0, 0, 3, // partition_index
            0, 86, // error_code GROUP_SUBSCRIBED_TO_TOPIC
        ];
        let resp = OffsetDeleteResponse::from_bytes(&bytes, 0).unwrap();
        assert_eq!(resp.throttle_time_ms, 5);
        assert_eq!(resp.topics[0].partitions[0].error_code, 86);
        assert_eq!(resp.to_bytes(0).unwrap(), bytes);
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<OffsetDeleteRequest, kp::OffsetDeleteRequest>();
        crate::protocol::tests::check::<OffsetDeleteResponse, kp::OffsetDeleteResponse>();
    }
}
