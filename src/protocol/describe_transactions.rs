//! DescribeTransactions (API key 65): the state of given transactional IDs
//! (KIP-664). Version 0 only, flexible from 0.

use super::codec::{kafka_message, kafka_struct};
use super::Request;

kafka_struct! {
    /// Asks for the state of some transactions.
    pub struct DescribeTransactionsRequest {
        /// The transactional IDs to describe; empty describes none.
        transactional_ids: Vec<String> {},
    }

    /// The state of each requested transaction.
    pub struct DescribeTransactionsResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 {},
        /// One entry per transactional ID.
        transaction_states: Vec<TransactionState> {},
    }

    /// One transaction's state.
    pub struct TransactionState {
        /// The error code, 0 if there was no error.
        error_code: i16 {},
        /// The transactional ID.
        transactional_id: String {},
        /// The state name, e.g. "Ongoing" or "PrepareCommit".
        transaction_state: String {},
        /// The transaction timeout in ms.
        transaction_timeout_ms: i32 {},
        /// When the transaction started, in ms since the epoch.
        transaction_start_time_ms: i64 {},
        /// The producer ID.
        producer_id: i64 {},
        /// The producer epoch.
        producer_epoch: i16 {},
        /// The partitions in the transaction still without markers.
        topics: Vec<TopicData> {},
    }

    /// One topic's partitions in a transaction.
    pub struct TopicData {
        /// The topic name.
        topic: String {},
        /// The partition indexes.
        partitions: Vec<i32> {},
    }
}

kafka_message!(
    DescribeTransactionsRequest,
    key = 65,
    versions = 0..=0,
    flexible = 0
);
kafka_message!(
    DescribeTransactionsResponse,
    key = 65,
    versions = 0..=0,
    flexible = 0
);

impl Request for DescribeTransactionsRequest {
    type Response = DescribeTransactionsResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    #[test]
    fn v0_request_bytes() {
        let bytes: &[u8] = &[
            2, // transactional_ids: compact count 1 + 1
            3, b't', b'x', // "tx"
            0,    // tagged fields: none
        ];
        let req = DescribeTransactionsRequest {
            transactional_ids: vec!["tx".into()],
            ..Default::default()
        };
        assert_eq!(
            DescribeTransactionsRequest::from_bytes(bytes, 0).unwrap(),
            req
        );
        assert_eq!(req.to_bytes(0).unwrap(), bytes);
    }

    #[test]
    fn v0_response_bytes() {
        let bytes: &[u8] = &[
            0, 0, 0, 0, // throttle_time_ms 0
            2, // transaction_states: compact count 1 + 1
            0, 0, // error_code 0
            3, b't', b'x', // transactional_id "tx"
            8, b'O', b'n', b'g', b'o', b'i', b'n', b'g', // transaction_state "Ongoing"
            0, 0, 0xea, 0x60, // transaction_timeout_ms 60000
            0, 0, 0, 0, 0, 0, 0x03, 0xe8, // transaction_start_time_ms 1000
            0, 0, 0, 0, 0, 0, 0, 9, // producer_id 9
            0, 1, // producer_epoch 1
            2, // topics: compact count 1 + 1
            2, b't', // topic "t"
            2, 0, 0, 0, 3, // partitions [3]
            0, // topic's tagged fields
            0, // state's tagged fields
            0, // response's tagged fields
        ];
        let resp = DescribeTransactionsResponse {
            transaction_states: vec![TransactionState {
                transactional_id: "tx".into(),
                transaction_state: "Ongoing".into(),
                transaction_timeout_ms: 60_000,
                transaction_start_time_ms: 1000,
                producer_id: 9,
                producer_epoch: 1,
                topics: vec![TopicData {
                    topic: "t".into(),
                    partitions: vec![3],
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        };
        assert_eq!(
            DescribeTransactionsResponse::from_bytes(bytes, 0).unwrap(),
            resp
        );
        assert_eq!(resp.to_bytes(0).unwrap(), bytes);
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<DescribeTransactionsRequest, kp::DescribeTransactionsRequest>(
        );
        crate::protocol::tests::check::<
            DescribeTransactionsResponse,
            kp::DescribeTransactionsResponse,
        >();
    }
}
