//! ListPartitionReassignments (API key 46): the partition reassignments in
//! progress (KIP-455). Version 0, flexible from 0.

use super::codec::{kafka_message, kafka_struct};
use super::Request;

kafka_struct! {
    /// Asks the controller for ongoing reassignments.
    pub struct ListPartitionReassignmentsRequest {
        /// How long to wait for the request, in ms.
        timeout_ms: i32 { default = 60000 },
        /// The topics to list, or null for all.
        topics: Option<Vec<ListPartitionReassignmentsTopics>> { nullable = 0.. },
    }

    /// One topic to list.
    pub struct ListPartitionReassignmentsTopics {
        /// The topic name.
        name: String {},
        /// The partitions to list.
        partition_indexes: Vec<i32> {},
    }

    /// The ongoing reassignments.
    pub struct ListPartitionReassignmentsResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 {},
        /// The top-level error code.
        error_code: i16 {},
        /// The top-level error message, or null.
        error_message: Option<String> { nullable = 0.. },
        /// One entry per topic.
        topics: Vec<OngoingTopicReassignment> {},
    }

    /// One topic's ongoing reassignments.
    pub struct OngoingTopicReassignment {
        /// The topic name.
        name: String {},
        /// One entry per partition.
        partitions: Vec<OngoingPartitionReassignment> {},
    }

    /// One partition's ongoing reassignment.
    pub struct OngoingPartitionReassignment {
        /// The partition index.
        partition_index: i32 {},
        /// The current replica set.
        replicas: Vec<i32> {},
        /// The replicas being added.
        adding_replicas: Vec<i32> {},
        /// The replicas being removed.
        removing_replicas: Vec<i32> {},
    }
}

kafka_message!(
    ListPartitionReassignmentsRequest,
    key = 46,
    versions = 0..=0,
    flexible = 0
);
kafka_message!(
    ListPartitionReassignmentsResponse,
    key = 46,
    versions = 0..=0,
    flexible = 0
);

impl Request for ListPartitionReassignmentsRequest {
    type Response = ListPartitionReassignmentsResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    #[test]
    fn v0_response_bytes() {
        let resp = ListPartitionReassignmentsResponse {
            topics: vec![OngoingTopicReassignment {
                name: "t".into(),
                partitions: vec![OngoingPartitionReassignment {
                    partition_index: 3,
                    replicas: vec![1, 2],
                    adding_replicas: vec![2],
                    removing_replicas: vec![],
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        };
        #[rustfmt::skip]
        let bytes = [
            0, 0, 0, 0,         // throttle_time_ms
            0, 0,               // error_code
            0,                  // error_message: null (compact)
            2,                  // topics: compact count 1+1
            2, b't',            //   name
            2,                  //   partitions: 1
            0, 0, 0, 3,         //     partition_index
            3,                  //     replicas: 2
            0, 0, 0, 1,
            0, 0, 0, 2,
            2,                  //     adding_replicas: 1
            0, 0, 0, 2,
            1,                  //     removing_replicas: empty
            0,                  //     tagged fields
            0,                  //   tagged fields
            0,                  // tagged fields
        ];
        assert_eq!(
            ListPartitionReassignmentsResponse::from_bytes(&bytes, 0).unwrap(),
            resp
        );
        assert_eq!(resp.to_bytes(0).unwrap(), bytes);
    }

    #[test]
    fn v0_request_null_topics() {
        let req = ListPartitionReassignmentsRequest::default();
        // timeout_ms = 60000, topics: null, tagged fields
        assert_eq!(req.to_bytes(0).unwrap(), [0, 0, 0xea, 0x60, 0, 0]);
        assert_eq!(
            ListPartitionReassignmentsRequest::from_bytes(&[0, 0, 0xea, 0x60, 0, 0], 0).unwrap(),
            req
        );
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<
            ListPartitionReassignmentsRequest,
            kp::ListPartitionReassignmentsRequest,
        >();
        crate::protocol::tests::check::<
            ListPartitionReassignmentsResponse,
            kp::ListPartitionReassignmentsResponse,
        >();
    }
}
