//! AddPartitionsToTxn (API key 24): adds partitions to a producer's ongoing
//! transaction (KIP-98). Versions 0–5, flexible from 3. Clients use v0–3 (one
//! transaction); v4+ is the brokers' batched form, which can also only verify
//! (KIP-890).

use super::codec::{kafka_message, kafka_struct};
use super::Request;

kafka_struct! {
    /// Adds partitions to one transaction (v0–3) or to several (v4+).
    pub struct AddPartitionsToTxnRequest {
        /// The transactions to add partitions to.
        transactions: Vec<AddPartitionsToTxnTransaction> { versions = 4.. },
        /// The transactional ID.
        v3_and_below_transactional_id: String { versions = 0..=3 },
        /// The producer ID.
        v3_and_below_producer_id: i64 { versions = 0..=3 },
        /// The producer epoch.
        v3_and_below_producer_epoch: i16 { versions = 0..=3 },
        /// The partitions to add.
        v3_and_below_topics: Vec<AddPartitionsToTxnTopic> { versions = 0..=3 },
    }

    /// One transaction's partitions (v4+).
    pub struct AddPartitionsToTxnTransaction {
        /// The transactional ID.
        transactional_id: String { versions = 4.. },
        /// The producer ID.
        producer_id: i64 { versions = 4.. },
        /// The producer epoch.
        producer_epoch: i16 { versions = 4.. },
        /// Only check whether the partitions are already in the transaction.
        verify_only: bool { versions = 4.. },
        /// The partitions to add.
        topics: Vec<AddPartitionsToTxnTopic> { versions = 4.. },
    }

    /// One topic's partitions to add.
    pub struct AddPartitionsToTxnTopic {
        /// The topic name.
        name: String {},
        /// The partition indexes.
        partitions: Vec<i32> {},
    }

    /// Per-partition results, by transaction (v4+) or for the one transaction (v0–3).
    pub struct AddPartitionsToTxnResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 {},
        /// The top-level error code.
        error_code: i16 { versions = 4.., ignorable = true },
        /// Results per transaction.
        results_by_transaction: Vec<AddPartitionsToTxnResult> { versions = 4.. },
        /// Results per topic.
        results_by_topic_v3_and_below: Vec<AddPartitionsToTxnTopicResult> { versions = 0..=3 },
    }

    /// One transaction's results (v4+).
    pub struct AddPartitionsToTxnResult {
        /// The transactional ID.
        transactional_id: String { versions = 4.. },
        /// Results per topic.
        topic_results: Vec<AddPartitionsToTxnTopicResult> { versions = 4.. },
    }

    /// One topic's results.
    pub struct AddPartitionsToTxnTopicResult {
        /// The topic name.
        name: String {},
        /// Results per partition.
        results_by_partition: Vec<AddPartitionsToTxnPartitionResult> {},
    }

    /// One partition's result.
    pub struct AddPartitionsToTxnPartitionResult {
        /// The partition index.
        partition_index: i32 {},
        /// The partition's error code.
        partition_error_code: i16 {},
    }
}

kafka_message!(
    AddPartitionsToTxnRequest,
    key = 24,
    versions = 0..=5,
    flexible = 3
);
kafka_message!(
    AddPartitionsToTxnResponse,
    key = 24,
    versions = 0..=5,
    flexible = 3
);

impl Request for AddPartitionsToTxnRequest {
    type Response = AddPartitionsToTxnResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    fn topic() -> AddPartitionsToTxnTopic {
        AddPartitionsToTxnTopic {
            name: "t".into(),
            partitions: vec![0, 2],
            ..Default::default()
        }
    }

    #[test]
    fn v0_request_bytes() {
        let bytes: &[u8] = &[
            0, 2, b't', b'x', // v3_and_below_transactional_id "tx"
            0, 0, 0, 0, 0, 0, 0, 9, // v3_and_below_producer_id 9
            0, 1, // v3_and_below_producer_epoch 1
            0, 0, 0, 1, // v3_and_below_topics: 1 entry
            0, 1, b't', // name "t"
            0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 2, // partitions [0, 2]
        ];
        let req = AddPartitionsToTxnRequest {
            v3_and_below_transactional_id: "tx".into(),
            v3_and_below_producer_id: 9,
            v3_and_below_producer_epoch: 1,
            v3_and_below_topics: vec![topic()],
            ..Default::default()
        };
        assert_eq!(
            AddPartitionsToTxnRequest::from_bytes(bytes, 0).unwrap(),
            req
        );
        assert_eq!(req.to_bytes(0).unwrap(), bytes);
        // the single-transaction form cannot be sent as v4
        assert!(req.to_bytes(4).is_err());
    }

    #[test]
    fn v4_request_bytes() {
        let bytes: &[u8] = &[
            2, // transactions: compact count 1 + 1
            3, b't', b'x', // transactional_id "tx"
            0, 0, 0, 0, 0, 0, 0, 9, // producer_id 9
            0, 1, // producer_epoch 1
            1, // verify_only true
            2, // topics: compact count 1 + 1
            2, b't', // name "t"
            3, 0, 0, 0, 0, 0, 0, 0, 2, // partitions [0, 2]
            0, // topic's tagged fields
            0, // transaction's tagged fields
            0, // request's tagged fields
        ];
        let req = AddPartitionsToTxnRequest {
            transactions: vec![AddPartitionsToTxnTransaction {
                transactional_id: "tx".into(),
                producer_id: 9,
                producer_epoch: 1,
                verify_only: true,
                topics: vec![topic()],
                ..Default::default()
            }],
            ..Default::default()
        };
        assert_eq!(
            AddPartitionsToTxnRequest::from_bytes(bytes, 4).unwrap(),
            req
        );
        assert_eq!(req.to_bytes(4).unwrap(), bytes);
        assert!(req.to_bytes(3).is_err());
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<AddPartitionsToTxnRequest, kp::AddPartitionsToTxnRequest>();
        crate::protocol::tests::check::<AddPartitionsToTxnResponse, kp::AddPartitionsToTxnResponse>(
        );
    }
}
