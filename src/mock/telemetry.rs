//! Client metrics (KIP-714): GetTelemetrySubscriptions hands out the
//! cluster's one subscription (set with the control API, empty by default:
//! no metrics wanted, as Kafka answers a client no subscription matches)
//! and assigns client instance ids; PushTelemetry checks a push as Kafka's
//! broker does (ClientMetricsManager's order of checks) and records it,
//! accepted or not, for [`super::Cluster::telemetry_pushes`]. Not modelled:
//! throttling a push that comes before the push interval has passed.

use std::time::Instant;

use super::ctx::Ctx;
use super::state::{new_topic_id, TelemetryPush};
use crate::compression::{self, Codec};
use crate::protocol::get_telemetry_subscriptions::*;
use crate::protocol::push_telemetry::*;
use crate::protocol::KafkaCode;
use crate::wire::{Bytes, Uuid};

/// The most a pushed payload may decompress to, as a bound on the mock's
/// memory (Kafka's broker hands the payload to its metrics plugin).
const MAX_UNCOMPRESSED: usize = 64 << 20;

pub(crate) fn get_telemetry_subscriptions(
    ctx: &Ctx<'_>,
    req: GetTelemetrySubscriptionsRequest,
) -> Option<GetTelemetrySubscriptionsResponse> {
    if let Some(e) = ctx.inject {
        return Some(GetTelemetrySubscriptionsResponse {
            error_code: e,
            ..Default::default()
        });
    }
    // A zero id asks for one (KIP-714); Kafka's broker answers with the
    // client's id every time, and the Java client insists on it.
    let client_instance_id = if req.client_instance_id.is_zero() {
        new_topic_id()
    } else {
        req.client_instance_id
    };
    let st = ctx.shared.lock();
    let t = &st.telemetry;
    Some(GetTelemetrySubscriptionsResponse {
        client_instance_id,
        subscription_id: t.subscription_id,
        accepted_compression_types: t.compression_types.clone(),
        push_interval_ms: t.push_interval_ms,
        telemetry_max_bytes: t.max_bytes,
        delta_temporality: t.delta_temporality,
        requested_metrics: t.requested_metrics.clone(),
        ..Default::default()
    })
}

/// The error code for a push, in the order Kafka's broker checks.
fn check_push(
    ctx: &Ctx<'_>,
    t: &super::state::Telemetry,
    req: &PushTelemetryRequest,
    uncompressed: Option<&Bytes>,
) -> KafkaCode {
    if let Some(e) = ctx.inject {
        return KafkaCode(e);
    }
    let id = req.client_instance_id;
    // Kafka reserves the zero UUID and the "one" UUID.
    if id.is_zero() || id == Uuid::from_u64_pair(0, 1) || t.terminated.contains(&id) {
        // KIP-714: a push after the terminating one is INVALID_REQUEST.
        return KafkaCode::INVALID_REQUEST;
    }
    if req.subscription_id != t.subscription_id {
        return KafkaCode::UNKNOWN_SUBSCRIPTION_ID;
    }
    if req.compression_type != 0 && !t.compression_types.contains(&req.compression_type) {
        return KafkaCode::UNSUPPORTED_COMPRESSION_TYPE;
    }
    if req.metrics.len() > usize::try_from(t.max_bytes).unwrap_or(0) {
        return KafkaCode::TELEMETRY_TOO_LARGE;
    }
    if uncompressed.is_none() {
        // KIP-714: the broker failed to decode the client's metrics.
        return KafkaCode::INVALID_RECORD;
    }
    KafkaCode::NONE
}

pub(crate) fn push_telemetry(
    ctx: &Ctx<'_>,
    req: PushTelemetryRequest,
) -> Option<PushTelemetryResponse> {
    let at = Instant::now();
    let uncompressed = u8::try_from(req.compression_type)
        .ok()
        .and_then(|id| Codec::from_id(id).ok())
        .and_then(|codec| compression::decompress(codec, &req.metrics, MAX_UNCOMPRESSED).ok())
        .map(Bytes::from);
    let mut st = ctx.shared.lock();
    let t = &mut st.telemetry;
    let code = check_push(ctx, t, &req, uncompressed.as_ref());
    if code == KafkaCode::NONE && req.terminating {
        t.terminated.insert(req.client_instance_id);
    }
    t.pushes.push(TelemetryPush {
        broker: ctx.broker,
        client_instance_id: req.client_instance_id,
        subscription_id: req.subscription_id,
        terminating: req.terminating,
        compression_type: req.compression_type,
        metrics: req.metrics,
        uncompressed,
        error_code: code.0,
        at,
    });
    Some(PushTelemetryResponse {
        error_code: code.0,
        ..Default::default()
    })
}
