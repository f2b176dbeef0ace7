//! Purging a producer's messages (librdkafka's `rd_kafka_purge`) and what a
//! delivery report's message tells beyond its outcome: the persistence
//! status (`rd_kafka_message_status`) and the latency
//! (`rd_kafka_message_latency`).

use std::ffi::c_int;
use std::ptr;
use std::sync::OnceLock;

use super::guard::{guard, guard_code, handle};
use super::handles::{gregor_message, gregor_producer};
use super::lifetime::enter;
use crate::message::{Message, TimestampType};
use crate::producer::DeliveryReport;

/// Purge flag: the messages in the producer's queues, not sent yet; their
/// reports carry `GREGOR_ERR__PURGE_QUEUE` (librdkafka's
/// `RD_KAFKA_PURGE_F_QUEUE`).
pub const GREGOR_PURGE_F_QUEUE: c_int = 0x1;
/// Purge flag: the messages whose produce requests are in flight; their
/// reports carry `GREGOR_ERR__PURGE_INFLIGHT` and the broker's answer, when
/// it comes, is ignored, so whether they were written is unknown
/// (librdkafka's `RD_KAFKA_PURGE_F_INFLIGHT`).
pub const GREGOR_PURGE_F_INFLIGHT: c_int = 0x2;
/// Purge flag: do not wait for the sender thread to let go of a batch it is
/// encoding at that moment (librdkafka's `RD_KAFKA_PURGE_F_NON_BLOCKING`).
pub const GREGOR_PURGE_F_NON_BLOCKING: c_int = 0x4;

/// Message status: not in the log, safe to send again
/// (librdkafka's `RD_KAFKA_MSG_STATUS_NOT_PERSISTED`).
pub const GREGOR_MSG_STATUS_NOT_PERSISTED: c_int = 0;
/// Message status: maybe in the log (sent, then a timeout, a lost
/// connection or a purge in flight): sending it again may duplicate it
/// (librdkafka's `RD_KAFKA_MSG_STATUS_POSSIBLY_PERSISTED`).
pub const GREGOR_MSG_STATUS_POSSIBLY_PERSISTED: c_int = 1;
/// Message status: acknowledged by the broker; every consumed message
/// (librdkafka's `RD_KAFKA_MSG_STATUS_PERSISTED`).
pub const GREGOR_MSG_STATUS_PERSISTED: c_int = 2;

/// Purges the producer's messages as `flags` say (`GREGOR_PURGE_F_*`,
/// librdkafka's `rd_kafka_purge`): `GREGOR_PURGE_F_QUEUE` those not sent
/// yet, `GREGOR_PURGE_F_INFLIGHT` those in flight. Each purged message gets
/// exactly one delivery report, served by the next `gregor_producer_poll` /
/// `gregor_producer_flush`; the producer then has nothing outstanding and
/// goes on as before. Returns 0, or `GREGOR_ERR__INVALID_ARG` for a NULL
/// producer or an unknown flag. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_producer_purge(producer: *const gregor_producer, flags: c_int) -> c_int {
    guard_code(ptr::null_mut(), 0, || enter(producer)?.inner.purge(flags))
}

/// A delivery report as a message, for the C callback (on its stack, valid
/// during the call): the key, value and headers share the producer's
/// buffers.
pub(crate) fn report_message(dr: &DeliveryReport) -> gregor_message {
    let (key, value, headers) = dr.key_value_headers();
    gregor_message {
        inner: Message {
            topic: dr.topic.clone(),
            partition: dr.partition,
            offset: dr.offset,
            key,
            value,
            headers,
            timestamp: dr.timestamp,
            timestamp_type: if dr.timestamp >= 0 {
                TimestampType::CreateTime
            } else {
                TimestampType::NotAvailable
            },
            leader_epoch: None,
            error: dr.error.clone().map(Box::new),
        },
        topic: OnceLock::new(),
        errstr: OnceLock::new(),
        produced: Some((dr.status, dr.latency_us)),
    }
}

/// The message's persistence status (`GREGOR_MSG_STATUS_*`, librdkafka's
/// `rd_kafka_message_status` and its rules): on a delivery report's
/// message, `NOT_PERSISTED` for one that never left the client or that the
/// broker refused, `POSSIBLY_PERSISTED` for one sent and then timed out,
/// cut off or purged in flight (and any message with acks=0),
/// `PERSISTED` for one acknowledged; every consumed message is
/// `PERSISTED`. `GREGOR_ERR__INVALID_ARG` for NULL.
#[no_mangle]
pub extern "C" fn gregor_message_status(msg: *const gregor_message) -> c_int {
    guard(crate::error::local::FAIL, || match handle(msg, "msg") {
        Ok(m) => m
            .produced
            .map_or(GREGOR_MSG_STATUS_PERSISTED, |(s, _)| s as c_int),
        Err(e) => e.code(),
    })
}

/// Microseconds from `gregor_producer_send` to the delivery report
/// (librdkafka's `rd_kafka_message_latency`), or -1: for a consumed message,
/// NULL, or a report whose send time is unknown.
#[no_mangle]
pub extern "C" fn gregor_message_latency(msg: *const gregor_message) -> i64 {
    guard(-1, || {
        handle(msg, "msg")
            .ok()
            .and_then(|m| m.produced)
            .map_or(-1, |(_, l)| l)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::MessageStatus;
    use crate::producer::purge;

    #[test]
    fn constants_are_librdkafkas() {
        assert_eq!(GREGOR_PURGE_F_QUEUE, purge::QUEUE);
        assert_eq!(GREGOR_PURGE_F_INFLIGHT, purge::INFLIGHT);
        assert_eq!(GREGOR_PURGE_F_NON_BLOCKING, purge::NON_BLOCKING);
        // rdkafka.h: RD_KAFKA_PURGE_F_QUEUE 0x1, _INFLIGHT 0x2, _NON_BLOCKING 0x4
        assert_eq!(
            (purge::QUEUE, purge::INFLIGHT, purge::NON_BLOCKING),
            (1, 2, 4)
        );
        for (c, s) in [
            (GREGOR_MSG_STATUS_NOT_PERSISTED, MessageStatus::NotPersisted),
            (
                GREGOR_MSG_STATUS_POSSIBLY_PERSISTED,
                MessageStatus::PossiblyPersisted,
            ),
            (GREGOR_MSG_STATUS_PERSISTED, MessageStatus::Persisted),
        ] {
            assert_eq!(c, s as c_int);
        }
        assert_eq!(crate::error::local::PURGE_QUEUE, -152);
        assert_eq!(crate::error::local::PURGE_INFLIGHT, -151);
    }
}
