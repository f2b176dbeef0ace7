//! InitProducerId (API key 22): gets a producer ID and epoch for idempotent or
//! transactional producing (KIP-98); v3+ can resume an existing one (KIP-360).
//! Versions 0–5, flexible from 2.

use super::codec::{kafka_message, kafka_struct};
use super::Request;

kafka_struct! {
    /// Asks for a producer ID, optionally bound to a transactional ID.
    pub struct InitProducerIdRequest {
        /// The transactional ID, or null for an idempotent-only producer.
        transactional_id: Option<String> { nullable = 0.. },
        /// Ms before an idle transaction is aborted (transactional producers only).
        transaction_timeout_ms: i32 {},
        /// The current producer ID, -1 if none.
        producer_id: i64 { versions = 3.., default = -1 },
        /// The current producer epoch, -1 if none.
        producer_epoch: i16 { versions = 3.., default = -1 },
    }

    /// The producer ID and epoch to use.
    pub struct InitProducerIdResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 { ignorable = true },
        /// The error code, 0 if there was no error.
        error_code: i16 {},
        /// The producer ID.
        producer_id: i64 { default = -1 },
        /// The producer epoch.
        producer_epoch: i16 {},
    }
}

kafka_message!(
    InitProducerIdRequest,
    key = 22,
    versions = 0..=5,
    flexible = 2
);
kafka_message!(
    InitProducerIdResponse,
    key = 22,
    versions = 0..=5,
    flexible = 2
);

impl Request for InitProducerIdRequest {
    type Response = InitProducerIdResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    #[test]
    fn v0_request_bytes() {
        let bytes: &[u8] = &[
            0xff, 0xff, // transactional_id: null
            0, 0, 0xea, 0x60, // transaction_timeout_ms 60000
        ];
        let req = InitProducerIdRequest {
            transaction_timeout_ms: 60_000,
            ..Default::default()
        };
        assert_eq!(InitProducerIdRequest::from_bytes(bytes, 0).unwrap(), req);
        assert_eq!(req.to_bytes(0).unwrap(), bytes);
        // resuming a producer ID needs v3
        let resume = InitProducerIdRequest {
            producer_id: 7,
            producer_epoch: 2,
            ..req
        };
        assert!(resume.to_bytes(2).is_err());
    }

    #[test]
    fn v4_request_bytes() {
        let bytes: &[u8] = &[
            3, b't', b'x', // transactional_id: compact length 2 + 1, "tx"
            0, 0, 0xea, 0x60, // transaction_timeout_ms 60000
            0, 0, 0, 0, 0, 0, 0, 7, // producer_id 7
            0, 2, // producer_epoch 2
            0, // tagged fields: none
        ];
        let req = InitProducerIdRequest {
            transactional_id: Some("tx".into()),
            transaction_timeout_ms: 60_000,
            producer_id: 7,
            producer_epoch: 2,
            ..Default::default()
        };
        assert_eq!(InitProducerIdRequest::from_bytes(bytes, 4).unwrap(), req);
        assert_eq!(req.to_bytes(4).unwrap(), bytes);
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<InitProducerIdRequest, kp::InitProducerIdRequest>();
        crate::protocol::tests::check::<InitProducerIdResponse, kp::InitProducerIdResponse>();
    }
}
