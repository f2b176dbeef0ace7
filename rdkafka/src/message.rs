//! `rd_kafka_message_t` of rdkafka.h as the producer hands it to
//! `dr_msg_cb`, and the message accessors (`rd_kafka_message_errstr`,
//! `_produce_errstr`, `_timestamp`, `_latency`, `_status`, `_broker_id`,
//! `_leader_epoch`).
//!
//! [`Message`] starts with the public struct ([`RdMessage`], field for
//! field rdkafka.h's), so the pointer C gets is both; what the accessors
//! answer beyond the public fields follows it. For a delivery report
//! `_private` is the message's opaque (`msg_opaque` of the produce call),
//! as rdkafka.h documents.

#![allow(unsafe_code)] // `#[no_mangle]`

use std::ffi::{c_char, c_int, c_void};

use crate::errors::rd_kafka_err2str;
use crate::guard::guard;
use crate::raw;

/// `RD_KAFKA_TIMESTAMP_NOT_AVAILABLE`.
pub const TIMESTAMP_NOT_AVAILABLE: c_int = 0;
/// `RD_KAFKA_TIMESTAMP_CREATE_TIME`.
pub const TIMESTAMP_CREATE_TIME: c_int = 1;

/// rdkafka.h's `rd_kafka_message_t`, field for field.
#[repr(C)]
#[derive(Debug)]
pub struct RdMessage {
    /// `err`: the delivery's error, 0 for success.
    pub err: c_int,
    /// `rkt`: the topic handle.
    pub rkt: *mut c_void,
    /// `partition`.
    pub partition: i32,
    /// `payload` (NULL for a null value).
    pub payload: *mut c_void,
    /// `len`.
    pub len: usize,
    /// `key` (NULL for a null key).
    pub key: *mut c_void,
    /// `key_len`.
    pub key_len: usize,
    /// `offset` (-1 when unknown).
    pub offset: i64,
    /// `_private`: the message opaque for the producer.
    pub private: *mut c_void,
}

/// A message C sees as `rd_kafka_message_t *`: the public struct, then what
/// the accessors read.
#[repr(C)]
#[derive(Debug)]
pub struct Message {
    /// The public part (must stay first).
    pub c: RdMessage,
    /// Milliseconds since the epoch, or -1.
    pub timestamp: i64,
    /// `rd_kafka_timestamp_type_t`.
    pub tstype: c_int,
    /// Produce latency in microseconds, or -1.
    pub latency_us: i64,
    /// `rd_kafka_msg_status_t`.
    pub status: c_int,
    /// The broker the message was produced to or fetched from, or -1.
    pub broker_id: i32,
    /// The leader epoch a fetched message came with, or -1.
    pub leader_epoch: i32,
    /// A delivery report's message: the headers it was produced with, for
    /// `rd_kafka_message_headers` (NULL for none), owned by whoever holds
    /// the report. A consumed message keeps its headers apart.
    pub headers: *mut crate::headers::Headers,
}

/// The message's error text (`rd_kafka_message_errstr`): NULL without an
/// error; else, as librdkafka's, the payload when there is one (a
/// consumer error event carries its text there), or the error code's
/// description.
#[no_mangle]
pub extern "C" fn rd_kafka_message_errstr(rkmessage: *const Message) -> *const c_char {
    guard(std::ptr::null(), || match raw::object(rkmessage) {
        Some(m) if m.c.err != 0 && !m.c.payload.is_null() => m.c.payload.cast_const().cast(),
        Some(m) if m.c.err != 0 => rd_kafka_err2str(m.c.err),
        _ => std::ptr::null(),
    })
}

/// The broker's error message for a failed produce
/// (`rd_kafka_message_produce_errstr`, KIP-467's per-record errors): NULL,
/// as librdkafka's when the broker gave none; gregor's reports do not
/// carry the broker's text.
#[no_mangle]
pub extern "C" fn rd_kafka_message_produce_errstr(rkmessage: *const Message) -> *const c_char {
    guard(std::ptr::null(), || {
        let _ = rkmessage;
        std::ptr::null()
    })
}

/// The partition leader's epoch the message was fetched with
/// (`rd_kafka_message_leader_epoch`), -1 if unknown (always for a
/// delivery report, as librdkafka's).
#[no_mangle]
pub extern "C" fn rd_kafka_message_leader_epoch(rkmessage: *const Message) -> i32 {
    guard(-1, || raw::object(rkmessage).map_or(-1, |m| m.leader_epoch))
}

/// The message's timestamp (`rd_kafka_message_timestamp`), its type in
/// `*tstype` if given; -1 and `NOT_AVAILABLE` when there is none.
#[no_mangle]
pub extern "C" fn rd_kafka_message_timestamp(rkmessage: *const Message, tstype: *mut c_int) -> i64 {
    guard(-1, || {
        let (ts, ty) = match raw::object(rkmessage) {
            Some(m) if m.timestamp >= 0 => (m.timestamp, m.tstype),
            _ => (-1, TIMESTAMP_NOT_AVAILABLE),
        };
        raw::write_out(tstype, ty);
        ts
    })
}

/// Microseconds from produce to delivery report
/// (`rd_kafka_message_latency`), -1 if unknown.
#[no_mangle]
pub extern "C" fn rd_kafka_message_latency(rkmessage: *const Message) -> i64 {
    guard(-1, || raw::object(rkmessage).map_or(-1, |m| m.latency_us))
}

/// Whether the message is persisted (`rd_kafka_message_status`).
#[no_mangle]
pub extern "C" fn rd_kafka_message_status(rkmessage: *const Message) -> c_int {
    guard(0, || raw::object(rkmessage).map_or(0, |m| m.status))
}

/// The broker of the message (`rd_kafka_message_broker_id`), -1 if unknown.
#[no_mangle]
pub extern "C" fn rd_kafka_message_broker_id(rkmessage: *const Message) -> i32 {
    guard(-1, || raw::object(rkmessage).map_or(-1, |m| m.broker_id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    #[test]
    fn layout_is_rdkafka_h() {
        // rdkafka.h on LP64: 4-byte err, then pointer-aligned fields.
        assert_eq!(offset_of!(RdMessage, rkt), 8);
        assert_eq!(offset_of!(RdMessage, partition), 16);
        assert_eq!(offset_of!(RdMessage, payload), 24);
        assert_eq!(offset_of!(RdMessage, offset), 56);
        assert_eq!(offset_of!(RdMessage, private), 64);
        assert_eq!(size_of::<RdMessage>(), 72);
        assert_eq!(offset_of!(Message, c), 0);
    }

    #[test]
    fn accessors() {
        let m = Message {
            c: RdMessage {
                err: 0,
                rkt: std::ptr::null_mut(),
                partition: 0,
                payload: std::ptr::null_mut(),
                len: 0,
                key: std::ptr::null_mut(),
                key_len: 0,
                offset: 5,
                private: std::ptr::null_mut(),
            },
            timestamp: 1234,
            tstype: TIMESTAMP_CREATE_TIME,
            latency_us: 99,
            status: 2,
            broker_id: 1,
            leader_epoch: -1,
            headers: std::ptr::null_mut(),
        };
        let mut ty = -1;
        assert_eq!(rd_kafka_message_timestamp(&m, &mut ty), 1234);
        assert_eq!(ty, TIMESTAMP_CREATE_TIME);
        assert!(rd_kafka_message_errstr(&m).is_null());
        assert_eq!(rd_kafka_message_latency(&m), 99);
        assert_eq!(rd_kafka_message_status(&m), 2);
        assert_eq!(rd_kafka_message_broker_id(&m), 1);
        assert_eq!(rd_kafka_message_leader_epoch(&m), -1);
        let mut failed = m;
        failed.c.err = -192;
        assert!(!rd_kafka_message_errstr(&failed).is_null());
        assert!(rd_kafka_message_produce_errstr(&failed).is_null());
        let text = b"why\0";
        failed.c.payload = text.as_ptr().cast_mut().cast();
        assert_eq!(rd_kafka_message_errstr(&failed), text.as_ptr().cast());
    }
}
