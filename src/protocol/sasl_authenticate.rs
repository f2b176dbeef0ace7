//! SaslAuthenticate (API key 36): carries SASL tokens inside Kafka frames
//! (KIP-152), with the session lifetime for re-authentication from v1
//! (KIP-368). Versions 0–2, flexible from 2.

use super::codec::{kafka_message, kafka_struct};
use super::Request;
use crate::wire::Bytes;

kafka_struct! {
    /// One SASL token from the client.
    pub struct SaslAuthenticateRequest {
        /// The client's SASL token, as the mechanism defines it.
        auth_bytes: Bytes {},
    }

    /// The broker's answer to one SASL token.
    pub struct SaslAuthenticateResponse {
        /// The error code, 0 if there was no error.
        error_code: i16 {},
        /// The error message, or null.
        error_message: Option<String> { nullable = 0.. },
        /// The broker's SASL token, as the mechanism defines it.
        auth_bytes: Bytes {},
        /// Ms after which the session must re-authenticate, 0 for never.
        session_lifetime_ms: i64 { versions = 1.., ignorable = true },
    }
}

kafka_message!(
    SaslAuthenticateRequest,
    key = 36,
    versions = 0..=2,
    flexible = 2
);
kafka_message!(
    SaslAuthenticateResponse,
    key = 36,
    versions = 0..=2,
    flexible = 2
);

impl Request for SaslAuthenticateRequest {
    type Response = SaslAuthenticateResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    #[test]
    fn v0_request_bytes() {
        let bytes: &[u8] = &[
            0, 0, 0, 5, // auth_bytes: length 5
            0, b'u', 0, b'p', b'w', // PLAIN token: authzid "", user "u", password "pw"
        ];
        let req = SaslAuthenticateRequest {
            auth_bytes: Bytes::from(&b"\0u\0pw"[..]),
            ..Default::default()
        };
        assert_eq!(SaslAuthenticateRequest::from_bytes(bytes, 0).unwrap(), req);
        assert_eq!(req.to_bytes(0).unwrap(), bytes);
    }

    #[test]
    fn v1_response_bytes() {
        let bytes: &[u8] = &[
            0, 0, // error_code
            0xff, 0xff, // error_message: null
            0, 0, 0, 0, // auth_bytes: empty
            0, 0, 0, 0, 0, 0x36, 0xee, 0x80, // session_lifetime_ms 3_600_000
        ];
        let resp = SaslAuthenticateResponse {
            session_lifetime_ms: 3_600_000,
            ..Default::default()
        };
        assert_eq!(
            SaslAuthenticateResponse::from_bytes(bytes, 1).unwrap(),
            resp
        );
        assert_eq!(resp.to_bytes(1).unwrap(), bytes);
        // v0 cannot say the lifetime; it is dropped
        assert_eq!(resp.to_bytes(0).unwrap(), bytes[..8]);
    }

    #[test]
    fn v2_response_bytes() {
        let bytes: &[u8] = &[
            0, 58, // error_code 58 (SASL_AUTHENTICATION_FAILED)
            4, b'b', b'a', b'd', // error_message: compact length 3 + 1, "bad"
            1,    // auth_bytes: compact length 0 + 1
            0, 0, 0, 0, 0, 0, 0, 0, // session_lifetime_ms 0
            0, // tagged fields: none
        ];
        let resp = SaslAuthenticateResponse {
            error_code: 58,
            error_message: Some("bad".into()),
            ..Default::default()
        };
        assert_eq!(
            SaslAuthenticateResponse::from_bytes(bytes, 2).unwrap(),
            resp
        );
        assert_eq!(resp.to_bytes(2).unwrap(), bytes);
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<SaslAuthenticateRequest, kp::SaslAuthenticateRequest>();
        crate::protocol::tests::check::<SaslAuthenticateResponse, kp::SaslAuthenticateResponse>();
    }
}
