//! DescribeProducers (API key 61): the active producers of partitions, for
//! finding hanging transactions (KIP-664). Version 0 only, flexible.

use super::codec::{kafka_message, kafka_struct};
use super::Request;

kafka_struct! {
    /// Asks for the active producers of the given partitions.
    pub struct DescribeProducersRequest {
        /// One entry per topic.
        topics: Vec<TopicRequest> {},
    }

    /// One topic.
    pub struct TopicRequest {
        /// The topic name.
        name: String {},
        /// The partitions to describe.
        partition_indexes: Vec<i32> {},
    }

    /// The active producers, per partition.
    pub struct DescribeProducersResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 {},
        /// One entry per topic.
        topics: Vec<TopicResponse> {},
    }

    /// One topic's results.
    pub struct TopicResponse {
        /// The topic name.
        name: String {},
        /// One entry per partition.
        partitions: Vec<PartitionResponse> {},
    }

    /// One partition's result.
    pub struct PartitionResponse {
        /// The partition index.
        partition_index: i32 {},
        /// The error code, or 0.
        error_code: i16 {},
        /// The error message, or null.
        error_message: Option<String> { nullable = 0.. },
        /// The producers with state on this partition.
        active_producers: Vec<ProducerState> {},
    }

    /// One producer's state on a partition.
    pub struct ProducerState {
        /// The producer ID.
        producer_id: i64 {},
        /// The producer epoch.
        producer_epoch: i32 {},
        /// The last sequence number written, or -1.
        last_sequence: i32 { default = -1 },
        /// The timestamp of the last write, or -1.
        last_timestamp: i64 { default = -1 },
        /// The epoch of the transaction coordinator that last wrote markers.
        coordinator_epoch: i32 {},
        /// The first offset of the open transaction, or -1.
        current_txn_start_offset: i64 { default = -1 },
    }
}

kafka_message!(
    DescribeProducersRequest,
    key = 61,
    versions = 0..=0,
    flexible = 0
);
kafka_message!(
    DescribeProducersResponse,
    key = 61,
    versions = 0..=0,
    flexible = 0
);

impl Request for DescribeProducersRequest {
    type Response = DescribeProducersResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<DescribeProducersRequest, kp::DescribeProducersRequest>();
        crate::protocol::tests::check::<DescribeProducersResponse, kp::DescribeProducersResponse>();
    }

    #[test]
    fn v0_response_bytes() {
        #[rustfmt::skip]
        let bytes = [
            0, 0, 0, 0,                 // throttle_time_ms 0
            2,                          // topics: compact 1
            2, b't',                    //   name "t"
            2,                          //   partitions: compact 1
            0, 0, 0, 1,                 //     partition_index 1
            0, 0,                       //     error_code 0
            0,                          //     error_message null
            2,                          //     active_producers: compact 1
            0, 0, 0, 0, 0, 0, 0x03, 0xe8, //     producer_id 1000
            0, 0, 0, 2,                 //       producer_epoch 2
            0, 0, 0, 9,                 //       last_sequence 9
            0, 0, 0, 0, 0, 0, 0, 50,    //       last_timestamp 50
            0, 0, 0, 1,                 //       coordinator_epoch 1
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // current_txn_start_offset -1
            0,                          //       tagged fields: 0
            0,                          //     tagged fields: 0
            0,                          //   tagged fields: 0
            0,                          // tagged fields: 0
        ];
        let resp = DescribeProducersResponse::from_bytes(&bytes, 0).unwrap();
        let p = &resp.topics[0].partitions[0];
        assert_eq!((p.partition_index, p.error_message.as_deref()), (1, None));
        let s = &p.active_producers[0];
        assert_eq!(
            (s.producer_id, s.producer_epoch, s.last_sequence),
            (1000, 2, 9)
        );
        assert_eq!(
            (
                s.last_timestamp,
                s.coordinator_epoch,
                s.current_txn_start_offset
            ),
            (50, 1, -1)
        );
        assert_eq!(resp.to_bytes(0).unwrap(), bytes);
    }
}
