//! ListTransactions (API key 66): lists the transactions a coordinator knows,
//! filtered by state and producer (KIP-664) and from v1 by age (KIP-994).
//! Versions 0–1, flexible from 0.

use super::codec::{kafka_message, kafka_struct};
use super::Request;

kafka_struct! {
    /// Asks for the transactions matching every given filter.
    pub struct ListTransactionsRequest {
        /// Only these states; empty for all.
        state_filters: Vec<String> {},
        /// Only these producer IDs; empty for all.
        producer_id_filters: Vec<i64> {},
        /// Only transactions running longer than this many ms; -1 for all.
        duration_filter: i64 { versions = 1.., default = -1 },
    }

    /// The matching transactions.
    pub struct ListTransactionsResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 {},
        /// The error code, 0 if there was no error.
        error_code: i16 {},
        /// State filters from the request the coordinator does not know.
        unknown_state_filters: Vec<String> {},
        /// One entry per matching transaction.
        transaction_states: Vec<TransactionState> {},
    }

    /// One transaction.
    pub struct TransactionState {
        /// The transactional ID.
        transactional_id: String {},
        /// The producer ID.
        producer_id: i64 {},
        /// The state name, e.g. "Ongoing".
        transaction_state: String {},
    }
}

kafka_message!(
    ListTransactionsRequest,
    key = 66,
    versions = 0..=1,
    flexible = 0
);
kafka_message!(
    ListTransactionsResponse,
    key = 66,
    versions = 0..=1,
    flexible = 0
);

impl Request for ListTransactionsRequest {
    type Response = ListTransactionsResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    #[test]
    fn request_bytes() {
        let v0: &[u8] = &[
            2, 8, b'O', b'n', b'g', b'o', b'i', b'n', b'g', // state_filters ["Ongoing"]
            1,    // producer_id_filters: empty
            0,    // tagged fields: none
        ];
        let req = ListTransactionsRequest {
            state_filters: vec!["Ongoing".into()],
            ..Default::default()
        };
        assert_eq!(ListTransactionsRequest::from_bytes(v0, 0).unwrap(), req);
        assert_eq!(req.to_bytes(0).unwrap(), v0);

        let v1: &[u8] = &[
            1, // state_filters: empty
            2, 0, 0, 0, 0, 0, 0, 0, 9, // producer_id_filters [9]
            0, 0, 0, 0, 0, 0, 0xea, 0x60, // duration_filter 60000
            0,    // tagged fields: none
        ];
        let req = ListTransactionsRequest {
            producer_id_filters: vec![9],
            duration_filter: 60_000,
            ..Default::default()
        };
        assert_eq!(ListTransactionsRequest::from_bytes(v1, 1).unwrap(), req);
        assert_eq!(req.to_bytes(1).unwrap(), v1);
        // v0 cannot filter by age
        assert!(req.to_bytes(0).is_err());
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<ListTransactionsRequest, kp::ListTransactionsRequest>();
        crate::protocol::tests::check::<ListTransactionsResponse, kp::ListTransactionsResponse>();
    }
}
