//! Consumed messages, consumer events and delivery reports' messages (`gregor_message_*`).

use std::ffi::{c_char, c_int, CString};
use std::ptr;
use std::sync::OnceLock;

use super::guard::{field, guard, guard_code};
use super::raw::*;
use crate::error::{local, Error};
use crate::message::Message;
use crate::producer::DeliveryReport;
use crate::record::TimestampType;

/// A consumed message or consumer event. Immutable; thread-safe to read.
pub struct gregor_message {
    pub(crate) inner: Message,
    /// Made on first use: most consumers never ask.
    pub(crate) topic: OnceLock<CString>,
    pub(crate) errstr: OnceLock<CString>,
    /// A delivery report's message: its status and latency (µs), see
    /// `gregor_message_status`. `None` for a consumed message.
    pub(crate) produced: Option<(crate::message::MessageStatus, i64)>,
}

// ----- messages -----

pub(crate) fn into_handle(msg: Message) -> *mut gregor_message {
    Box::into_raw(Box::new(gregor_message {
        inner: msg,
        topic: OnceLock::new(),
        errstr: OnceLock::new(),
        produced: None,
    }))
}

/// The message's topic, NUL-terminated, valid until the message is freed
/// (empty string for a NULL message).
#[no_mangle]
pub extern "C" fn gregor_message_topic(msg: *const gregor_message) -> *const c_char {
    field(msg, static_cstr(c""), |m| {
        Some({
            m.topic
                .get_or_init(|| CString::new(m.inner.topic.as_bytes()).unwrap_or_default())
                .as_ptr()
        })
    })
}

/// The message's partition (-1 for NULL).
#[no_mangle]
pub extern "C" fn gregor_message_partition(msg: *const gregor_message) -> i32 {
    field(msg, -1, |m| Some(m.inner.partition))
}

/// The message's offset (-1 for NULL).
#[no_mangle]
pub extern "C" fn gregor_message_offset(msg: *const gregor_message) -> i64 {
    field(msg, -1, |m| Some(m.inner.offset))
}

/// The key: `ptr` NULL for a null key. Valid until the message is freed.
#[no_mangle]
pub extern "C" fn gregor_message_key(msg: *const gregor_message) -> gregor_slice {
    guard(gregor_slice::of(None), || {
        gregor_slice::of(handle(msg, "msg").ok().and_then(|m| m.inner.key.as_deref()))
    })
}

/// The value: `ptr` NULL for a null value. Valid until the message is freed.
#[no_mangle]
pub extern "C" fn gregor_message_value(msg: *const gregor_message) -> gregor_slice {
    guard(gregor_slice::of(None), || {
        gregor_slice::of(
            handle(msg, "msg")
                .ok()
                .and_then(|m| m.inner.value.as_deref()),
        )
    })
}

/// The timestamp in ms since the epoch (-1 if none); writes its type to
/// `*tstype` if not NULL: 0 not available, 1 create time, 2 log append time.
#[no_mangle]
pub extern "C" fn gregor_message_timestamp(msg: *const gregor_message, tstype: *mut c_int) -> i64 {
    guard(-1, || match handle(msg, "msg") {
        Ok(m) => {
            put(
                tstype,
                match m.inner.timestamp_type {
                    TimestampType::NotAvailable => 0,
                    TimestampType::CreateTime => 1,
                    TimestampType::LogAppendTime => 2,
                },
            );
            m.inner.timestamp
        }
        Err(_) => -1,
    })
}

/// The leader epoch of the message's batch, or -1.
#[no_mangle]
pub extern "C" fn gregor_message_leader_epoch(msg: *const gregor_message) -> i32 {
    guard(-1, || {
        handle(msg, "msg")
            .ok()
            .and_then(|m| m.inner.leader_epoch)
            .unwrap_or(-1)
    })
}

/// Number of headers (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_message_header_count(msg: *const gregor_message) -> usize {
    field(msg, 0, |m| Some(m.inner.headers.len()))
}

/// Header `idx`: its name (not NUL-terminated) and value (`ptr` NULL for a
/// null value), valid until the message is freed. Returns 0, or
/// `GREGOR_ERR__INVALID_ARG` for a NULL `msg` or `idx` out of range (then
/// nothing is written). `name` and `value` may each be NULL if not wanted.
#[no_mangle]
pub extern "C" fn gregor_message_header(
    msg: *const gregor_message,
    idx: usize,
    name: *mut gregor_slice,
    value: *mut gregor_slice,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let m = handle(msg, "msg")?;
        let h = m
            .inner
            .headers
            .get(idx)
            .ok_or_else(|| Error::invalid_arg(format!("header index {idx} out of range")))?;
        put(name, gregor_slice::of(Some(&h.key)));
        put(value, gregor_slice::of(h.value.as_deref()));
        Ok(())
    })
}

/// 0 for a message; the error code for an error or event (e.g.
/// `GREGOR_ERR__PARTITION_EOF`). `GREGOR_ERR__INVALID_ARG` for NULL.
#[no_mangle]
pub extern "C" fn gregor_message_err(msg: *const gregor_message) -> c_int {
    guard(local::FAIL, || match handle(msg, "msg") {
        Ok(m) => m.inner.error.as_deref().map_or(0, Error::code),
        Err(e) => e.code(),
    })
}

/// The error's text, NUL-terminated ("" for a message without error), valid
/// until the message is freed.
#[no_mangle]
pub extern "C" fn gregor_message_errstr(msg: *const gregor_message) -> *const c_char {
    field(msg, static_cstr(c""), |m| {
        Some({
            m.errstr
                .get_or_init(|| {
                    CString::new(
                        m.inner
                            .error
                            .as_ref()
                            .map_or(String::new(), ToString::to_string),
                    )
                    .unwrap_or_default()
                })
                .as_ptr()
        })
    })
}

/// Frees a message. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_message_free(msg: *mut gregor_message) {
    guard((), || free(msg))
}

// ----- delivery reports' messages: status (rd_kafka_message_status) and latency -----

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

    #[test]
    fn constants_are_librdkafkas() {
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
