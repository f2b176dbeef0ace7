//! The mock cluster seen from a client's side of the wire: raw requests
//! encoded with gregor's codecs, answers checked field by field. Client
//! metrics (KIP-714): GetTelemetrySubscriptions and PushTelemetry.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use super::Cluster;
use crate::compression::{self, Codec};
use crate::protocol::api_versions::ApiVersionsRequest;
use crate::protocol::get_telemetry_subscriptions::*;
use crate::protocol::push_telemetry::*;
use crate::protocol::{decode_response, encode_request, KafkaCode, Request};
use crate::wire::{Bytes, Reader, Uuid, Writer};

/// One request and its answer over a raw connection; `None` when the
/// broker closed the connection instead.
fn exchange<R: Request>(s: &mut TcpStream, v: i16, req: &R) -> Option<R::Response> {
    let mut w = Writer::new();
    encode_request(&mut w, 7, Some("telemetry-test"), v, req).unwrap();
    s.write_all(w.as_slice()).unwrap();
    let mut size = [0u8; 4];
    s.read_exact(&mut size).ok()?;
    let mut buf = vec![0u8; usize::try_from(i32::from_be_bytes(size)).unwrap()];
    s.read_exact(&mut buf).ok()?;
    let (h, resp) = decode_response::<R>(&mut Reader::new(&buf), v).unwrap();
    assert_eq!(h.correlation_id, 7);
    Some(resp)
}

fn connect(mc: &Cluster) -> TcpStream {
    let first = mc.bootstrap_servers();
    let first = first.split(',').next().unwrap().to_owned();
    let s = TcpStream::connect(first).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s
}

fn subscribe(s: &mut TcpStream, id: Uuid) -> GetTelemetrySubscriptionsResponse {
    let req = GetTelemetrySubscriptionsRequest {
        client_instance_id: id,
        ..Default::default()
    };
    exchange(s, 0, &req).unwrap()
}

fn push(s: &mut TcpStream, id: Uuid, sub: i32, ct: i8, metrics: &[u8], last: bool) -> i16 {
    let req = PushTelemetryRequest {
        client_instance_id: id,
        subscription_id: sub,
        terminating: last,
        compression_type: ct,
        metrics: Bytes::from(metrics),
        ..Default::default()
    };
    exchange(s, 0, &req).unwrap().error_code
}

#[test]
fn both_apis_are_advertised_once_a_subscription_is_set() {
    let mc = Cluster::new(1).unwrap();
    let mut s = connect(&mc);
    let r = exchange(&mut s, 3, &ApiVersionsRequest::default()).unwrap();
    assert!(!r
        .api_keys
        .iter()
        .any(|k| k.api_key == 71 || k.api_key == 72));
    mc.set_telemetry_requested_metrics(&["org.apache.kafka."]);
    let r = exchange(&mut s, 3, &ApiVersionsRequest::default()).unwrap();
    for key in [71, 72] {
        let api = r.api_keys.iter().find(|k| k.api_key == key).unwrap();
        assert_eq!((api.min_version, api.max_version), (0, 0), "API {key}");
    }
}

#[test]
fn subscriptions_assign_an_id_and_carry_the_settings() {
    let mc = Cluster::new(2).unwrap();
    let mut s = connect(&mc);
    let r = subscribe(&mut s, Uuid::ZERO);
    assert_eq!(r.error_code, 0);
    assert!(!r.client_instance_id.is_zero());
    assert_eq!(r.subscription_id, mc.telemetry_subscription_id());
    assert_eq!(r.accepted_compression_types, [4, 3, 1, 2]);
    assert_eq!(r.push_interval_ms, 5000);
    assert_eq!(r.telemetry_max_bytes, 1 << 20);
    assert!(r.delta_temporality);
    assert!(
        r.requested_metrics.is_empty(),
        "no metrics wanted by default"
    );
    // Each zero id gets a fresh instance id; a known one comes back.
    let other = subscribe(&mut s, Uuid::ZERO).client_instance_id;
    assert_ne!(other, r.client_instance_id);
    let again = subscribe(&mut s, r.client_instance_id);
    assert_eq!(again.client_instance_id, r.client_instance_id);

    mc.set_telemetry_requested_metrics(&["org.apache.kafka.producer."]);
    mc.set_telemetry_push_interval(Duration::from_millis(250))
        .unwrap();
    assert!(mc.set_telemetry_push_interval(Duration::ZERO).is_err());
    let changed = subscribe(&mut s, r.client_instance_id);
    assert_eq!(changed.requested_metrics, ["org.apache.kafka.producer."]);
    assert_eq!(changed.push_interval_ms, 250);
    assert_ne!(changed.subscription_id, r.subscription_id);
    assert_eq!(changed.subscription_id, mc.telemetry_subscription_id());
}

#[test]
fn pushes_are_recorded_and_checked_as_kafka_does() {
    let mc = Cluster::new(1).unwrap();
    mc.set_telemetry_requested_metrics(&[""]);
    let mut s = connect(&mc);
    let sub = subscribe(&mut s, Uuid::ZERO);
    let (id, sid) = (sub.client_instance_id, sub.subscription_id);
    let before = Instant::now();

    // Accepted, uncompressed and zstd.
    assert_eq!(push(&mut s, id, sid, 0, b"otlp", false), 0);
    let mut zstd = Vec::new();
    compression::compress(Codec::Zstd, None, b"otlp zstd", &mut zstd).unwrap();
    assert_eq!(push(&mut s, id, sid, 4, &zstd, false), 0);
    // An old subscription id.
    assert_eq!(
        push(&mut s, id, sid - 1, 0, b"x", false),
        KafkaCode::UNKNOWN_SUBSCRIPTION_ID.0
    );
    // A compression type the broker did not offer.
    assert_eq!(
        push(&mut s, id, sid, 7, b"x", false),
        KafkaCode::UNSUPPORTED_COMPRESSION_TYPE.0
    );
    // Bytes that are not what the compression type says.
    assert_eq!(
        push(&mut s, id, sid, 4, b"not zstd", false),
        KafkaCode::INVALID_RECORD.0
    );
    // No instance id.
    assert_eq!(
        push(&mut s, Uuid::ZERO, sid, 0, b"x", false),
        KafkaCode::INVALID_REQUEST.0
    );
    // Above TelemetryMaxBytes (which changes the subscription id).
    mc.set_telemetry_max_bytes(8).unwrap();
    let sid = subscribe(&mut s, id).subscription_id;
    assert_eq!(
        push(&mut s, id, sid, 0, b"123456789", false),
        KafkaCode::TELEMETRY_TOO_LARGE.0
    );
    // The terminating push, then nothing more from that instance.
    assert_eq!(push(&mut s, id, sid, 0, b"bye", true), 0);
    assert_eq!(
        push(&mut s, id, sid, 0, b"late", false),
        KafkaCode::INVALID_REQUEST.0
    );

    let pushes = mc.telemetry_pushes();
    let codes: Vec<i16> = pushes.iter().map(|p| p.error_code).collect();
    assert_eq!(codes, [0, 0, 117, 76, 87, 42, 118, 0, 42]);
    let first = &pushes[0];
    assert_eq!(first.broker, 1);
    assert_eq!(first.client_instance_id, id);
    assert_eq!(first.subscription_id, sub.subscription_id);
    assert!(!first.terminating);
    assert_eq!(first.metrics, Bytes::from(&b"otlp"[..]));
    assert_eq!(first.uncompressed, Some(Bytes::from(&b"otlp"[..])));
    assert!(first.at >= before);
    assert_eq!(pushes[1].compression_type, 4);
    assert_eq!(pushes[1].metrics, Bytes::from(zstd));
    assert_eq!(pushes[1].uncompressed, Some(Bytes::from(&b"otlp zstd"[..])));
    assert_eq!(pushes[4].uncompressed, None);
    assert!(pushes[7].terminating);
    assert!(pushes.windows(2).all(|w| w[0].at <= w[1].at));
    mc.clear_telemetry_pushes();
    assert!(mc.telemetry_pushes().is_empty());
}

#[test]
fn injected_errors_answer_both_apis() {
    let mc = Cluster::new(1).unwrap();
    mc.push_request_errors(71, &[KafkaCode::THROTTLING_QUOTA_EXCEEDED.0]);
    mc.push_request_errors(72, &[KafkaCode::THROTTLING_QUOTA_EXCEEDED.0]);
    let mut s = connect(&mc);
    let r = subscribe(&mut s, Uuid::ZERO);
    assert_eq!(r.error_code, KafkaCode::THROTTLING_QUOTA_EXCEEDED.0);
    let r = subscribe(&mut s, Uuid::ZERO);
    assert_eq!(r.error_code, 0);
    let (id, sid) = (r.client_instance_id, r.subscription_id);
    assert_eq!(push(&mut s, id, sid, 0, b"m", false), 89);
    assert_eq!(push(&mut s, id, sid, 0, b"m", false), 0);
}
