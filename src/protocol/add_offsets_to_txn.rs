//! AddOffsetsToTxn (API key 25): adds a consumer group's offsets topic to a
//! transaction, before TxnOffsetCommit (KIP-98). Versions 0–4, flexible from 3.

use super::codec::{kafka_message, kafka_struct};
use super::Request;

kafka_struct! {
    /// Adds a group's offset commits to the transaction.
    pub struct AddOffsetsToTxnRequest {
        /// The transactional ID.
        transactional_id: String {},
        /// The producer ID.
        producer_id: i64 {},
        /// The producer epoch.
        producer_epoch: i16 {},
        /// The consumer group ID.
        group_id: String {},
    }

    /// Whether the group was added.
    pub struct AddOffsetsToTxnResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 {},
        /// The error code, 0 if there was no error.
        error_code: i16 {},
    }
}

kafka_message!(
    AddOffsetsToTxnRequest,
    key = 25,
    versions = 0..=4,
    flexible = 3
);
kafka_message!(
    AddOffsetsToTxnResponse,
    key = 25,
    versions = 0..=4,
    flexible = 3
);

impl Request for AddOffsetsToTxnRequest {
    type Response = AddOffsetsToTxnResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    fn req() -> AddOffsetsToTxnRequest {
        AddOffsetsToTxnRequest {
            transactional_id: "tx".into(),
            producer_id: 9,
            producer_epoch: 1,
            group_id: "g".into(),
            ..Default::default()
        }
    }

    #[test]
    fn v0_request_bytes() {
        let bytes: &[u8] = &[
            0, 2, b't', b'x', // transactional_id "tx"
            0, 0, 0, 0, 0, 0, 0, 9, // producer_id 9
            0, 1, // producer_epoch 1
            0, 1, b'g', // group_id "g"
        ];
        assert_eq!(AddOffsetsToTxnRequest::from_bytes(bytes, 0).unwrap(), req());
        assert_eq!(req().to_bytes(0).unwrap(), bytes);
    }

    #[test]
    fn v3_request_bytes() {
        let bytes: &[u8] = &[
            3, b't', b'x', // transactional_id: compact length 2 + 1, "tx"
            0, 0, 0, 0, 0, 0, 0, 9, // producer_id 9
            0, 1, // producer_epoch 1
            2, b'g', // group_id: compact length 1 + 1, "g"
            0,    // tagged fields: none
        ];
        assert_eq!(AddOffsetsToTxnRequest::from_bytes(bytes, 3).unwrap(), req());
        assert_eq!(req().to_bytes(3).unwrap(), bytes);
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<AddOffsetsToTxnRequest, kp::AddOffsetsToTxnRequest>();
        crate::protocol::tests::check::<AddOffsetsToTxnResponse, kp::AddOffsetsToTxnResponse>();
    }
}
