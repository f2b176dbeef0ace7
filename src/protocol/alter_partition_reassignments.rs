//! AlterPartitionReassignments (API key 45): starts or cancels moving
//! partitions to new replicas (KIP-455). Version 0, flexible from 0.

use super::codec::{kafka_message, kafka_struct};
use super::Request;

kafka_struct! {
    /// Asks the controller to reassign partitions.
    pub struct AlterPartitionReassignmentsRequest {
        /// How long to wait for the request, in ms.
        timeout_ms: i32 { default = 60000 },
        /// The topics to reassign.
        topics: Vec<ReassignableTopic> {},
    }

    /// One topic to reassign.
    pub struct ReassignableTopic {
        /// The topic name.
        name: String {},
        /// The partitions to reassign.
        partitions: Vec<ReassignablePartition> {},
    }

    /// One partition to reassign.
    pub struct ReassignablePartition {
        /// The partition index.
        partition_index: i32 {},
        /// The target replicas, or null to cancel a pending reassignment.
        replicas: Option<Vec<i32>> { nullable = 0.. },
    }

    /// The result of each reassignment.
    pub struct AlterPartitionReassignmentsResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 {},
        /// The top-level error code.
        error_code: i16 {},
        /// The top-level error message, or null.
        error_message: Option<String> { nullable = 0.. },
        /// One entry per topic.
        responses: Vec<ReassignableTopicResponse> {},
    }

    /// One topic's results.
    pub struct ReassignableTopicResponse {
        /// The topic name.
        name: String {},
        /// One entry per partition.
        partitions: Vec<ReassignablePartitionResponse> {},
    }

    /// One partition's result.
    pub struct ReassignablePartitionResponse {
        /// The partition index.
        partition_index: i32 {},
        /// The partition's error code.
        error_code: i16 {},
        /// The partition's error message, or null.
        error_message: Option<String> { nullable = 0.. },
    }
}

kafka_message!(
    AlterPartitionReassignmentsRequest,
    key = 45,
    versions = 0..=0,
    flexible = 0
);
kafka_message!(
    AlterPartitionReassignmentsResponse,
    key = 45,
    versions = 0..=0,
    flexible = 0
);

impl Request for AlterPartitionReassignmentsRequest {
    type Response = AlterPartitionReassignmentsResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    #[test]
    fn v0_request_bytes() {
        let req = AlterPartitionReassignmentsRequest {
            timeout_ms: 1000,
            topics: vec![ReassignableTopic {
                name: "t".into(),
                partitions: vec![
                    ReassignablePartition {
                        partition_index: 0,
                        replicas: Some(vec![1, 2]),
                        ..Default::default()
                    },
                    ReassignablePartition {
                        partition_index: 1,
                        replicas: None,
                        ..Default::default()
                    },
                ],
                ..Default::default()
            }],
            ..Default::default()
        };
        #[rustfmt::skip]
        let bytes = [
            0, 0, 0x03, 0xe8,   // timeout_ms = 1000
            2,                  // topics: compact count 1+1
            2, b't',            //   name
            3,                  //   partitions: 2
            0, 0, 0, 0,         //     partition_index
            3,                  //     replicas: 2
            0, 0, 0, 1,
            0, 0, 0, 2,
            0,                  //     tagged fields
            0, 0, 0, 1,         //     partition_index
            0,                  //     replicas: null (cancel)
            0,                  //     tagged fields
            0,                  //   tagged fields
            0,                  // tagged fields
        ];
        assert_eq!(
            AlterPartitionReassignmentsRequest::from_bytes(&bytes, 0).unwrap(),
            req
        );
        assert_eq!(req.to_bytes(0).unwrap(), bytes);
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<
            AlterPartitionReassignmentsRequest,
            kp::AlterPartitionReassignmentsRequest,
        >();
        crate::protocol::tests::check::<
            AlterPartitionReassignmentsResponse,
            kp::AlterPartitionReassignmentsResponse,
        >();
    }
}
