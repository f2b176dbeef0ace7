//! GetTelemetrySubscriptions (API key 71): a client asks a broker which of
//! its metrics the cluster wants pushed, how often, how large and how
//! compressed (KIP-714, client metrics and observability). The first
//! request carries a zero client instance id and the broker assigns one,
//! which the client then sends to every broker for the rest of its life.
//! Version 0, flexible from 0.

use super::codec::{kafka_message, kafka_struct};
use super::Request;
use crate::wire::Uuid;

kafka_struct! {
    /// Asks for the client's telemetry subscription.
    pub struct GetTelemetrySubscriptionsRequest {
        /// The client instance id the broker assigned, or zero on the
        /// client's first request (KIP-714).
        client_instance_id: Uuid {},
    }

    /// The client's telemetry subscription.
    pub struct GetTelemetrySubscriptionsResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 {},
        /// The error code, 0 if there was no error.
        error_code: i16 {},
        /// The client instance id: the one assigned when the request's was
        /// zero (Kafka's broker also echoes a non-zero one back).
        client_instance_id: Uuid {},
        /// The subscription set's id, which every PushTelemetry must carry;
        /// it changes when the cluster's subscriptions for the client change.
        subscription_id: i32 {},
        /// The compression types the broker accepts in PushTelemetry, in
        /// the broker's order of preference (the record batch attribute
        /// ids: 1 gzip, 2 snappy, 3 lz4, 4 zstd); empty: uncompressed only.
        accepted_compression_types: Vec<i8> {},
        /// The push interval in ms (the lowest of the matching subscriptions).
        push_interval_ms: i32 {},
        /// The largest metrics payload, in bytes, PushTelemetry accepts.
        telemetry_max_bytes: i32 {},
        /// Whether monotonic sums are pushed as deltas (true) or as
        /// cumulative values (false).
        delta_temporality: bool {},
        /// Metric name prefixes the cluster wants: empty, no metrics (push
        /// nothing but a terminating push); a single empty string, every metric.
        requested_metrics: Vec<String> {},
    }
}

kafka_message!(
    GetTelemetrySubscriptionsRequest,
    key = 71,
    versions = 0..=0,
    flexible = 0
);
kafka_message!(
    GetTelemetrySubscriptionsResponse,
    key = 71,
    versions = 0..=0,
    flexible = 0
);

impl Request for GetTelemetrySubscriptionsRequest {
    type Response = GetTelemetrySubscriptionsResponse;
}

impl GetTelemetrySubscriptionsResponse {
    /// Whether the subscription asks for no metrics at all (KIP-714: an
    /// empty `RequestedMetrics`).
    pub fn wants_no_metrics(&self) -> bool {
        self.requested_metrics.is_empty()
    }

    /// Whether the subscription asks for every metric (KIP-714: a
    /// `RequestedMetrics` holding one empty string).
    pub fn wants_all_metrics(&self) -> bool {
        self.requested_metrics.iter().any(String::is_empty)
    }

    /// Whether the metric `name` is wanted: some requested prefix starts it.
    pub fn wants_metric(&self, name: &str) -> bool {
        self.requested_metrics
            .iter()
            .any(|prefix| name.starts_with(prefix.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    #[test]
    fn v0_request_bytes() {
        #[rustfmt::skip]
        let bytes = [
            0, 0, 0, 0, 0, 0, 0, 0, // client_instance_id: zero (first request)
            0, 0, 0, 0, 0, 0, 0, 0,
            0,                      // tagged fields
        ];
        let req = GetTelemetrySubscriptionsRequest::default();
        assert_eq!(
            GetTelemetrySubscriptionsRequest::from_bytes(&bytes, 0).unwrap(),
            req
        );
        assert_eq!(req.to_bytes(0).unwrap(), bytes);
        assert!(req.to_bytes(1).is_err(), "only v0 exists");
    }

    #[test]
    fn v0_response_bytes() {
        #[rustfmt::skip]
        let bytes = [
            0, 0, 0, 0,             // throttle_time_ms
            0, 0,                   // error_code
            0, 0, 0, 0, 0, 0, 0, 1, // client_instance_id (high half)
            0, 0, 0, 0, 0, 0, 0, 2, // client_instance_id (low half)
            0, 0, 0, 7,             // subscription_id 7
            3,                      // accepted_compression_types: compact count 2 + 1
            4, 3,                   //   zstd, lz4
            0, 0, 0x13, 0x88,       // push_interval_ms 5000
            0, 0x10, 0, 0,          // telemetry_max_bytes 1 MiB
            1,                      // delta_temporality true
            3,                      // requested_metrics: compact count 2 + 1
            1,                      //   "" (compact length 0 + 1): every metric
            4, b'o', b'r', b'g',    //   "org"
            0,                      // tagged fields
        ];
        let resp = GetTelemetrySubscriptionsResponse {
            client_instance_id: Uuid::from_u64_pair(1, 2),
            subscription_id: 7,
            accepted_compression_types: vec![4, 3],
            push_interval_ms: 5000,
            telemetry_max_bytes: 1 << 20,
            delta_temporality: true,
            requested_metrics: vec![String::new(), "org".into()],
            ..Default::default()
        };
        assert_eq!(
            GetTelemetrySubscriptionsResponse::from_bytes(&bytes, 0).unwrap(),
            resp
        );
        assert_eq!(resp.to_bytes(0).unwrap(), bytes);
        assert!(resp.wants_all_metrics() && resp.wants_metric("anything"));
        assert!(!resp.wants_no_metrics());
    }

    #[test]
    fn requested_metrics_are_prefixes() {
        let mut resp = GetTelemetrySubscriptionsResponse::default();
        assert!(resp.wants_no_metrics());
        assert!(!resp.wants_all_metrics());
        assert!(!resp.wants_metric("org.apache.kafka.producer.record.queue.time.avg"));
        resp.requested_metrics = vec!["org.apache.kafka.producer.".into()];
        assert!(resp.wants_metric("org.apache.kafka.producer.record.queue.time.avg"));
        assert!(!resp.wants_metric("org.apache.kafka.consumer.poll.idle.ratio.avg"));
        assert!(!resp.wants_all_metrics());
    }

    #[test]
    fn a_truncated_response_is_an_error() {
        let resp = GetTelemetrySubscriptionsResponse {
            requested_metrics: vec!["a".into()],
            ..Default::default()
        };
        let bytes = resp.to_bytes(0).unwrap();
        for n in 0..bytes.len() {
            assert!(GetTelemetrySubscriptionsResponse::from_bytes(&bytes[..n], 0).is_err());
        }
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<
            GetTelemetrySubscriptionsRequest,
            kp::GetTelemetrySubscriptionsRequest,
        >();
        crate::protocol::tests::check::<
            GetTelemetrySubscriptionsResponse,
            kp::GetTelemetrySubscriptionsResponse,
        >();
    }
}
