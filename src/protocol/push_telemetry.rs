//! PushTelemetry (API key 72): a client pushes the metrics its telemetry
//! subscription asked for (GetTelemetrySubscriptions), encoded as an
//! OpenTelemetry `MetricsData` protobuf and compressed with one of the
//! types the broker accepts, once per push interval, and a last time with
//! `terminating` set when it closes (KIP-714, client metrics and
//! observability). Version 0, flexible from 0.

use super::codec::{kafka_message, kafka_struct};
use super::Request;
use crate::wire::{Bytes, Uuid};

kafka_struct! {
    /// One push of a client's metrics.
    pub struct PushTelemetryRequest {
        /// The client instance id GetTelemetrySubscriptions assigned.
        client_instance_id: Uuid {},
        /// The subscription id of the subscription these metrics answer.
        subscription_id: i32 {},
        /// Whether this is the client's last push: it is closing.
        terminating: bool {},
        /// How `metrics` is compressed: a record batch attribute id (0
        /// none, 1 gzip, 2 snappy, 3 lz4, 4 zstd), one the broker accepts.
        compression_type: i8 {},
        /// The metrics, an OpenTelemetry `MetricsData` (v1) protobuf,
        /// compressed with `compression_type`; at most the subscription's
        /// `TelemetryMaxBytes`.
        metrics: Bytes {},
    }

    /// The broker's answer to a push.
    pub struct PushTelemetryResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 {},
        /// The error code, 0 if there was no error (KIP-714 lists what the
        /// client does on each: UNKNOWN_SUBSCRIPTION_ID and
        /// UNSUPPORTED_COMPRESSION_TYPE, ask for the subscription again;
        /// TELEMETRY_TOO_LARGE, push less; INVALID_RECORD and
        /// INVALID_REQUEST, stop pushing).
        error_code: i16 {},
    }
}

kafka_message!(
    PushTelemetryRequest,
    key = 72,
    versions = 0..=0,
    flexible = 0
);
kafka_message!(
    PushTelemetryResponse,
    key = 72,
    versions = 0..=0,
    flexible = 0
);

impl Request for PushTelemetryRequest {
    type Response = PushTelemetryResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    #[test]
    fn v0_request_bytes() {
        #[rustfmt::skip]
        let bytes = [
            0, 0, 0, 0, 0, 0, 0, 1, // client_instance_id (high half)
            0, 0, 0, 0, 0, 0, 0, 2, // client_instance_id (low half)
            0, 0, 0, 7,             // subscription_id 7
            1,                      // terminating true
            4,                      // compression_type zstd
            4, 0x0a, 0x01, 0x02,    // metrics: compact length 3 + 1
            0,                      // tagged fields
        ];
        let req = PushTelemetryRequest {
            client_instance_id: Uuid::from_u64_pair(1, 2),
            subscription_id: 7,
            terminating: true,
            compression_type: 4,
            metrics: Bytes::from(&[0x0a, 0x01, 0x02][..]),
            ..Default::default()
        };
        assert_eq!(PushTelemetryRequest::from_bytes(&bytes, 0).unwrap(), req);
        assert_eq!(req.to_bytes(0).unwrap(), bytes);
        for n in 0..bytes.len() {
            assert!(PushTelemetryRequest::from_bytes(&bytes[..n], 0).is_err());
        }
        assert!(req.to_bytes(1).is_err(), "only v0 exists");
    }

    #[test]
    fn v0_response_bytes() {
        #[rustfmt::skip]
        let bytes = [
            0, 0, 0, 0,  // throttle_time_ms
            0, 117,      // error_code UNKNOWN_SUBSCRIPTION_ID
            0,           // tagged fields
        ];
        let resp = PushTelemetryResponse {
            error_code: 117,
            ..Default::default()
        };
        assert_eq!(PushTelemetryResponse::from_bytes(&bytes, 0).unwrap(), resp);
        assert_eq!(resp.to_bytes(0).unwrap(), bytes);
    }

    #[test]
    fn metrics_are_never_null() {
        // Kafka's schema gives `Metrics` no nullable versions.
        #[rustfmt::skip]
        let bytes = [
            0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2,
            0, 0, 0, 7, 0, 0,
            0,  // metrics: compact null
            0,
        ];
        assert!(PushTelemetryRequest::from_bytes(&bytes, 0).is_err());
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<PushTelemetryRequest, kp::PushTelemetryRequest>();
        crate::protocol::tests::check::<PushTelemetryResponse, kp::PushTelemetryResponse>();
    }
}
