//! DeleteRecords (API key 21): moves partitions' log start offsets forward,
//! deleting the records before them (KIP-107). Versions 0–2, flexible from 2.

use super::codec::{kafka_message, kafka_struct};
use super::Request;

kafka_struct! {
    /// Deletes records before the given offsets.
    pub struct DeleteRecordsRequest {
        /// One entry per topic.
        topics: Vec<DeleteRecordsTopic> {},
        /// How long to wait for the deletion, in ms.
        timeout_ms: i32 {},
    }

    /// One topic.
    pub struct DeleteRecordsTopic {
        /// The topic name.
        name: String {},
        /// One entry per partition.
        partitions: Vec<DeleteRecordsPartition> {},
    }

    /// One partition.
    pub struct DeleteRecordsPartition {
        /// The partition index.
        partition_index: i32 {},
        /// Records before this offset are deleted (-1: the high watermark).
        offset: i64 {},
    }

    /// The new low watermarks.
    pub struct DeleteRecordsResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 {},
        /// One entry per topic.
        topics: Vec<DeleteRecordsTopicResult> {},
    }

    /// One topic's results.
    pub struct DeleteRecordsTopicResult {
        /// The topic name.
        name: String {},
        /// One entry per partition.
        partitions: Vec<DeleteRecordsPartitionResult> {},
    }

    /// One partition's result.
    pub struct DeleteRecordsPartitionResult {
        /// The partition index.
        partition_index: i32 {},
        /// The partition's new low watermark.
        low_watermark: i64 {},
        /// The error code, or 0.
        error_code: i16 {},
    }
}

kafka_message!(
    DeleteRecordsRequest,
    key = 21,
    versions = 0..=2,
    flexible = 2
);
kafka_message!(
    DeleteRecordsResponse,
    key = 21,
    versions = 0..=2,
    flexible = 2
);

impl Request for DeleteRecordsRequest {
    type Response = DeleteRecordsResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<DeleteRecordsRequest, kp::DeleteRecordsRequest>();
        crate::protocol::tests::check::<DeleteRecordsResponse, kp::DeleteRecordsResponse>();
    }

    fn sample() -> DeleteRecordsResponse {
        DeleteRecordsResponse {
            throttle_time_ms: 1,
            topics: vec![DeleteRecordsTopicResult {
                name: "t".into(),
                partitions: vec![DeleteRecordsPartitionResult {
                    partition_index: 2,
                    low_watermark: 300,
                    error_code: 0,
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    #[test]
    fn v1_response_bytes() {
        #[rustfmt::skip]
        let bytes = [
            0, 0, 0, 1,                 // throttle_time_ms 1
            0, 0, 0, 1,                 // topics: 1
            0, 1, b't',                 //   name "t"
            0, 0, 0, 1,                 //   partitions: 1
            0, 0, 0, 2,                 //     partition_index 2
            0, 0, 0, 0, 0, 0, 0x01, 0x2c, // low_watermark 300
            0, 0,                       //     error_code 0
        ];
        assert_eq!(
            DeleteRecordsResponse::from_bytes(&bytes, 1).unwrap(),
            sample()
        );
        assert_eq!(sample().to_bytes(1).unwrap(), bytes);
    }

    #[test]
    fn v2_response_bytes() {
        #[rustfmt::skip]
        let bytes = [
            0, 0, 0, 1,                 // throttle_time_ms 1
            2,                          // topics: compact 1
            2, b't',                    //   name "t"
            2,                          //   partitions: compact 1
            0, 0, 0, 2,                 //     partition_index 2
            0, 0, 0, 0, 0, 0, 0x01, 0x2c, // low_watermark 300
            0, 0,                       //     error_code 0
            0,                          //     tagged fields: 0
            0,                          //   tagged fields: 0
            0,                          // tagged fields: 0
        ];
        assert_eq!(
            DeleteRecordsResponse::from_bytes(&bytes, 2).unwrap(),
            sample()
        );
        assert_eq!(sample().to_bytes(2).unwrap(), bytes);
    }
}
