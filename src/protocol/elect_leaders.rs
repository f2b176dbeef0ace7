//! ElectLeaders (API key 43): runs preferred (or, v1+, unclean) leader
//! election for partitions (KIP-183, KIP-460). Versions 0–2, flexible from 2.

use super::codec::{kafka_message, kafka_struct};
use super::Request;

kafka_struct! {
    /// Asks the controller to elect leaders.
    pub struct ElectLeadersRequest {
        /// 0 elects the preferred replica, 1 the first live replica when none is in sync.
        election_type: i8 { versions = 1.. },
        /// The partitions to elect leaders for, or null for all.
        topic_partitions: Option<Vec<TopicPartitions>> { nullable = 0.. },
        /// How long to wait for the election, in ms.
        timeout_ms: i32 { default = 60000 },
    }

    /// One topic's partitions.
    pub struct TopicPartitions {
        /// The topic name.
        topic: String {},
        /// The partitions to elect leaders for.
        partitions: Vec<i32> {},
    }

    /// The election results.
    pub struct ElectLeadersResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 {},
        /// The top-level error code.
        error_code: i16 { versions = 1.. },
        /// One entry per topic.
        replica_election_results: Vec<ReplicaElectionResult> {},
    }

    /// One topic's results.
    pub struct ReplicaElectionResult {
        /// The topic name.
        topic: String {},
        /// One entry per partition.
        partition_result: Vec<PartitionResult> {},
    }

    /// One partition's result.
    pub struct PartitionResult {
        /// The partition index.
        partition_id: i32 {},
        /// The partition's error code.
        error_code: i16 {},
        /// The error message, or null.
        error_message: Option<String> { nullable = 0.. },
    }
}

kafka_message!(
    ElectLeadersRequest,
    key = 43,
    versions = 0..=2,
    flexible = 2
);
kafka_message!(
    ElectLeadersResponse,
    key = 43,
    versions = 0..=2,
    flexible = 2
);

impl Request for ElectLeadersRequest {
    type Response = ElectLeadersResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    fn request() -> ElectLeadersRequest {
        ElectLeadersRequest {
            topic_partitions: Some(vec![TopicPartitions {
                topic: "t".into(),
                partitions: vec![0, 2],
                ..Default::default()
            }]),
            ..Default::default()
        }
    }

    #[test]
    fn v0_request_bytes() {
        #[rustfmt::skip]
        let bytes = [
            0, 0, 0, 1,         // topic_partitions: 1
            0, 1, b't',         //   topic
            0, 0, 0, 2,         //   partitions: 2
            0, 0, 0, 0,
            0, 0, 0, 2,
            0, 0, 0xea, 0x60,   // timeout_ms = 60000
        ];
        assert_eq!(
            ElectLeadersRequest::from_bytes(&bytes, 0).unwrap(),
            request()
        );
        assert_eq!(request().to_bytes(0).unwrap(), bytes);
        // an unclean election cannot be asked for before v1
        let unclean = ElectLeadersRequest {
            election_type: 1,
            ..request()
        };
        assert!(unclean.to_bytes(0).is_err());
    }

    #[test]
    fn v2_request_bytes() {
        let req = ElectLeadersRequest {
            election_type: 1,
            topic_partitions: None,
            ..request()
        };
        #[rustfmt::skip]
        let bytes = [
            1,                  // election_type (v1+)
            0,                  // topic_partitions: null (compact)
            0, 0, 0xea, 0x60,   // timeout_ms = 60000
            0,                  // tagged fields
        ];
        assert_eq!(ElectLeadersRequest::from_bytes(&bytes, 2).unwrap(), req);
        assert_eq!(req.to_bytes(2).unwrap(), bytes);
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<ElectLeadersRequest, kp::ElectLeadersRequest>();
        crate::protocol::tests::check::<ElectLeadersResponse, kp::ElectLeadersResponse>();
    }
}
