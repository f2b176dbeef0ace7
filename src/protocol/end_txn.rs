//! EndTxn (API key 26): commits or aborts a transaction (KIP-98); from v5 the
//! epoch is bumped on every transaction and returned (KIP-890 part 2).
//! Versions 0–5, flexible from 3.

use super::codec::{kafka_message, kafka_struct};
use super::Request;

kafka_struct! {
    /// Commits or aborts the producer's transaction.
    pub struct EndTxnRequest {
        /// The transactional ID.
        transactional_id: String {},
        /// The producer ID.
        producer_id: i64 {},
        /// The producer epoch.
        producer_epoch: i16 {},
        /// True to commit, false to abort.
        committed: bool {},
    }

    /// The outcome, with the producer's new ID and epoch from v5.
    pub struct EndTxnResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 {},
        /// The error code, 0 if there was no error.
        error_code: i16 {},
        /// The producer ID.
        producer_id: i64 { versions = 5.., default = -1, ignorable = true },
        /// The producer's new epoch.
        producer_epoch: i16 { versions = 5.., default = -1, ignorable = true },
    }
}

kafka_message!(EndTxnRequest, key = 26, versions = 0..=5, flexible = 3);
kafka_message!(EndTxnResponse, key = 26, versions = 0..=5, flexible = 3);

impl Request for EndTxnRequest {
    type Response = EndTxnResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    #[test]
    fn v0_request_bytes() {
        let bytes: &[u8] = &[
            0, 2, b't', b'x', // transactional_id "tx"
            0, 0, 0, 0, 0, 0, 0, 9, // producer_id 9
            0, 1, // producer_epoch 1
            1, // committed true
        ];
        let req = EndTxnRequest {
            transactional_id: "tx".into(),
            producer_id: 9,
            producer_epoch: 1,
            committed: true,
            ..Default::default()
        };
        assert_eq!(EndTxnRequest::from_bytes(bytes, 0).unwrap(), req);
        assert_eq!(req.to_bytes(0).unwrap(), bytes);
    }

    #[test]
    fn response_bytes() {
        let v0: &[u8] = &[
            0, 0, 0, 0, // throttle_time_ms 0
            0, 48, // error_code 48 (INVALID_TXN_STATE)
        ];
        let resp = EndTxnResponse {
            error_code: 48,
            ..Default::default()
        };
        assert_eq!(EndTxnResponse::from_bytes(v0, 0).unwrap(), resp);
        assert_eq!(resp.to_bytes(0).unwrap(), v0);

        // v5 is newer than kafka-protocol 0.15.1, so this fixture is its only outside check
        let v5: &[u8] = &[
            0, 0, 0, 0, // throttle_time_ms 0
            0, 0, // error_code 0
            0, 0, 0, 0, 0, 0, 0, 9, // producer_id 9
            0, 2, // producer_epoch 2 (bumped)
            0, // tagged fields: none
        ];
        let resp = EndTxnResponse {
            producer_id: 9,
            producer_epoch: 2,
            ..Default::default()
        };
        assert_eq!(EndTxnResponse::from_bytes(v5, 5).unwrap(), resp);
        assert_eq!(resp.to_bytes(5).unwrap(), v5);
        // older versions drop the new ID and epoch
        assert_eq!(resp.to_bytes(4).unwrap(), [0, 0, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<EndTxnRequest, kp::EndTxnRequest>();
        // kafka-protocol 0.15.1 stops at v4 and has no v5 producer_id/producer_epoch.
        crate::protocol::tests::check_except::<EndTxnResponse, kp::EndTxnResponse>(&[
            "producer_id",
            "producer_epoch",
        ]);
    }
}
