//! SaslHandshake (API key 17): picks the SASL mechanism before authenticating.
//! Versions 0–1, never flexible; v1 means the tokens follow in SaslAuthenticate
//! requests (KIP-152) rather than as raw frames.

use super::codec::{kafka_message, kafka_struct};
use super::Request;

kafka_struct! {
    /// Names the SASL mechanism the client wants to use.
    pub struct SaslHandshakeRequest {
        /// The chosen mechanism, e.g. "PLAIN" or "SCRAM-SHA-256".
        mechanism: String {},
    }

    /// Whether the mechanism is accepted, and which ones are enabled.
    pub struct SaslHandshakeResponse {
        /// The error code, 0 if the mechanism is accepted.
        error_code: i16 {},
        /// The mechanisms the broker has enabled.
        mechanisms: Vec<String> {},
    }
}

kafka_message!(SaslHandshakeRequest, key = 17, versions = 0..=1);
kafka_message!(SaslHandshakeResponse, key = 17, versions = 0..=1);

impl Request for SaslHandshakeRequest {
    type Response = SaslHandshakeResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    #[test]
    fn request_bytes() {
        let bytes: &[u8] = &[0, 5, b'P', b'L', b'A', b'I', b'N']; // mechanism: length 5, "PLAIN"
        let req = SaslHandshakeRequest {
            mechanism: "PLAIN".into(),
            ..Default::default()
        };
        for v in 0..=1 {
            assert_eq!(SaslHandshakeRequest::from_bytes(bytes, v).unwrap(), req);
            assert_eq!(req.to_bytes(v).unwrap(), bytes);
        }
    }

    #[test]
    fn v1_response_bytes() {
        let bytes: &[u8] = &[
            0, 33, // error_code 33 (UNSUPPORTED_SASL_MECHANISM)
            0, 0, 0, 2, // mechanisms: 2 entries
            0, 5, b'P', b'L', b'A', b'I', b'N', // "PLAIN"
            0, 6, b'G', b'S', b'S', b'A', b'P', b'I', // "GSSAPI"
        ];
        let resp = SaslHandshakeResponse {
            error_code: 33,
            mechanisms: vec!["PLAIN".into(), "GSSAPI".into()],
            ..Default::default()
        };
        assert_eq!(SaslHandshakeResponse::from_bytes(bytes, 1).unwrap(), resp);
        assert_eq!(resp.to_bytes(1).unwrap(), bytes);
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<SaslHandshakeRequest, kp::SaslHandshakeRequest>();
        crate::protocol::tests::check::<SaslHandshakeResponse, kp::SaslHandshakeResponse>();
    }
}
