//! The asynchronous producer in C: queue with `gregor_producer_send`, get
//! delivery reports through a callback run inside `gregor_producer_poll` /
//! `gregor_producer_flush` on the calling thread, and transactions. Every
//! `gregor_producer_*` function is in this folder: `txn.rs` has the
//! transactional calls returning `gregor_error_t`, `callbacks.rs` the
//! error, throttle and statistics callbacks, fatal error, wake-ups and the
//! SASL / OAUTHBEARER setters.

mod callbacks;
mod txn;
pub use callbacks::*;
pub use txn::*;

use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void, CString};
use std::ptr;

use super::config::gregor_config;
use super::guard::{guard, guard_code};
use super::headers::gregor_headers;
use super::lifetime::enter;
use super::lifetime::{destroy, handle_registry, register, Handle, Life};
use super::message::gregor_message;
use super::metadata::{gregor_metadata, metadata_of};
use super::raw::*;
use super::tpl::gregor_tpl;
use crate::error::Error;
use crate::message::ProducerRecord;
use crate::producer::DeliveryReport;
use crate::producer::Producer;

/// A producer. Thread-safe.
pub struct gregor_producer {
    pub(crate) inner: Producer,
    life: Life,
}

impl Handle for gregor_producer {
    const NAME: &'static str = "producer";
    handle_registry!();
    fn life(&self) -> &Life {
        &self.life
    }
    fn shutdown(&self) {
        self.inner.shut_down();
    }
}

// ----- producer -----

/// A new producer configured by `conf` (copied; the caller keeps and frees
/// `conf`). Returns NULL on a bad configuration, with the reason in `errstr`.
/// Does not connect yet. Caller owns the producer: free with `gregor_producer_free`.
#[no_mangle]
pub extern "C" fn gregor_producer_new(
    conf: *const gregor_config,
    errstr: *mut c_char,
    errstr_size: usize,
) -> *mut gregor_producer {
    let mut out = ptr::null_mut();
    guard_code(errstr, errstr_size, || {
        let conf = handle(conf, "conf")?;
        let p = Producer::new(&conf.inner)?;
        let cluster = p.cluster().clone();
        out = register(Box::new(gregor_producer {
            inner: p,
            life: Life::new(),
        }));
        super::config::install(conf, &cluster, out.cast(), false);
        Ok(())
    });
    out
}

/// Sends one message and blocks until the broker acknowledges it or
/// `timeout_ms` passes (-1: until its delivery report, which
/// `message.timeout.ms` bounds), retrying retriable errors.
/// `partition` -1 lets the partitioner choose. `key`/`value` NULL mean null
/// (a NULL value is a tombstone); `headers` may be NULL; `timestamp_ms` 0
/// means now. On success writes the partition and offset (offset -1 with
/// acks=0) to the non-NULL out-parameters and returns 0; else the error code,
/// with the reason in `errstr`. Borrows everything. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_producer_send_sync(
    producer: *const gregor_producer,
    topic: *const c_char,
    partition: i32,
    key: *const u8,
    key_len: usize,
    value: *const u8,
    value_len: usize,
    headers: *const gregor_headers,
    timestamp_ms: i64,
    timeout_ms: c_int,
    partition_out: *mut i32,
    offset_out: *mut i64,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let p = enter(producer)?;
        let topic = c_str(topic, "topic")?;
        if partition < -1 {
            return Err(Error::invalid_arg(format!("invalid partition {partition}")));
        }
        let hs = header_pairs(headers)?;
        let rec = ProducerRecord {
            topic,
            partition: (partition >= 0).then_some(partition),
            key: message_bytes(key, key_len, "key")?,
            value: message_bytes(value, value_len, "value")?,
            headers: &hs,
            timestamp: (timestamp_ms != 0).then_some(timestamp_ms),
        };
        // Negative: until the report, which `message.timeout.ms` bounds (the
        // producer enforces it here too: a message to an unreachable broker
        // may wait for metadata longer than that before it expires).
        let t = (timeout_ms >= 0).then(|| timeout(timeout_ms));
        let d = p.inner.send_sync(&rec, t)?;
        put(partition_out, d.partition);
        put(offset_out, d.offset);
        Ok(())
    })
}

/// Fetches cluster metadata through a producer: all topics if `topic` is
/// NULL, else that one. On success `*metadata` receives a snapshot the caller
/// owns (free with `gregor_metadata_free`). Blocks up to `timeout_ms`.
#[no_mangle]
pub extern "C" fn gregor_producer_metadata(
    producer: *const gregor_producer,
    topic: *const c_char,
    timeout_ms: c_int,
    metadata: *mut *mut gregor_metadata,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let p = enter(producer)?;
        metadata_of(p.inner.cluster(), topic, timeout_ms, metadata)
    })
}

/// Frees a producer, closing its connections and waiting for their I/O
/// threads to end; messages not delivered yet get `GREGOR_ERR__DESTROY`
/// reports (served to the delivery callback on this thread). NULL is a no-op.
///
/// Lifetime: safe while other threads are inside calls on the handle (see
/// the header's preamble): new calls fail with `GREGOR_ERR__DESTROY`, calls
/// in flight are woken and return `GREGOR_ERR__DESTROY`, and this waits for
/// them to leave before releasing anything. A second free of the same
/// pointer is a no-op.
#[no_mangle]
pub extern "C" fn gregor_producer_free(producer: *mut gregor_producer) {
    guard((), || destroy(producer))
}

/// One message's outcome, borrowed for the duration of the callback.
#[repr(C)]
pub struct gregor_delivery_report {
    /// Topic, NUL-terminated.
    pub topic: *const c_char,
    /// Partition (-1 if it never got one).
    pub partition: i32,
    /// Offset (-1 if not delivered, or with acks=0).
    pub offset: i64,
    /// Timestamp in ms since the epoch.
    pub timestamp: i64,
    /// 0 if delivered, else the error code.
    pub err: c_int,
    /// The error's text, NUL-terminated ("" when delivered).
    pub errstr: *const c_char,
    /// The `msg_opaque` given to `gregor_producer_send`.
    pub msg_opaque: *mut c_void,
    /// The report as a message, valid only during the callback (never free
    /// it): `gregor_message_key`, `_value`, `_header_count`, `_header`,
    /// `_status` and `_latency` read the produced message on it.
    pub message: *const gregor_message,
}

/// A delivery report callback: `dr` is valid only during the call.
pub type gregor_dr_cb =
    Option<extern "C" fn(dr: *const gregor_delivery_report, cb_opaque: *mut c_void)>;

/// The C callback and its opaque, called only on the thread that polls.
struct CCallback {
    cb: extern "C" fn(*const gregor_delivery_report, *mut c_void),
    opaque: usize,
    topics: HashMap<String, CString>,
}

impl CCallback {
    fn call(&mut self, dr: &DeliveryReport) {
        let topic = self
            .topics
            .entry(dr.topic.to_string())
            .or_insert_with(|| CString::new(dr.topic.as_bytes()).unwrap_or_default())
            .as_ptr();
        let errstr = CString::new(dr.error.as_ref().map_or(String::new(), ToString::to_string))
            .unwrap_or_default();
        let message = super::message::report_message(dr);
        let c = gregor_delivery_report {
            topic,
            partition: dr.partition,
            offset: dr.offset,
            timestamp: dr.timestamp,
            err: dr.error.as_ref().map_or(0, Error::code),
            errstr: errstr.as_ptr(),
            msg_opaque: dr.opaque as *mut c_void,
            message: &message,
        };
        (self.cb)(&c, self.opaque as *mut c_void);
    }
}

/// Sets (or with NULL `cb`, clears) the delivery report callback. It runs
/// inside `gregor_producer_poll` and `gregor_producer_flush`, on the thread
/// that calls them, with `cb_opaque`. Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_producer_set_dr_cb(
    producer: *const gregor_producer,
    cb: gregor_dr_cb,
    cb_opaque: *mut c_void,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let p = enter(producer)?;
        let cb = cb.map(|cb| CCallback {
            cb,
            opaque: cb_opaque as usize,
            topics: HashMap::new(),
        });
        p.inner.set_delivery_callback(
            cb.map(|mut c| Box::new(move |dr: &DeliveryReport| c.call(dr)) as _),
        );
        Ok(())
    })
}

/// Queues one message; its outcome comes as a delivery report carrying
/// `msg_opaque`. `partition` -1 lets the partitioner choose; `key`/`value`
/// NULL mean null; `headers` may be NULL; `timestamp_ms` 0 means now. With
/// `block_ms` 0 a full queue fails at once with `GREGOR_ERR__QUEUE_FULL`;
/// otherwise it waits up to `block_ms` for room (negative: as long as it
/// takes), serving delivery reports on this thread when reports not yet
/// served are what fills the queue. Copies the data. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_producer_send(
    producer: *const gregor_producer,
    topic: *const c_char,
    partition: i32,
    key: *const u8,
    key_len: usize,
    value: *const u8,
    value_len: usize,
    headers: *const gregor_headers,
    timestamp_ms: i64,
    msg_opaque: *mut c_void,
    block_ms: c_int,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let p = enter(producer)?;
        let topic = c_str(topic, "topic")?;
        if partition < -1 {
            return Err(Error::invalid_arg(format!("invalid partition {partition}")));
        }
        let hs = header_pairs(headers)?;
        let rec = ProducerRecord {
            topic,
            partition: (partition >= 0).then_some(partition),
            key: message_bytes(key, key_len, "key")?,
            value: message_bytes(value, value_len, "value")?,
            headers: &hs,
            timestamp: (timestamp_ms != 0).then_some(timestamp_ms),
        };
        if block_ms != 0 {
            p.inner
                .send_blocking(&rec, msg_opaque as usize, timeout(block_ms))
        } else {
            p.inner.send(&rec, msg_opaque as usize)
        }
    })
}

/// Serves delivery reports to the callback, waiting up to `timeout_ms` for
/// the first. Returns how many were served (0 for a NULL producer).
#[no_mangle]
pub extern "C" fn gregor_producer_poll(
    producer: *const gregor_producer,
    timeout_ms: c_int,
) -> c_int {
    guard(0, || match enter(producer) {
        Ok(p) => p.inner.poll(timeout(timeout_ms)) as c_int,
        Err(_) => 0,
    })
}

/// Sends everything queued and waits up to `timeout_ms` until every message
/// has its report, serving reports meanwhile. Returns 0, or
/// `GREGOR_ERR__TIMED_OUT` with messages still outstanding.
#[no_mangle]
pub extern "C" fn gregor_producer_flush(
    producer: *const gregor_producer,
    timeout_ms: c_int,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        enter(producer)?.inner.flush(timeout(timeout_ms))
    })
}

/// Messages queued, in flight, or with reports not yet served (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_producer_len(producer: *const gregor_producer) -> usize {
    guard(0, || enter(producer).map_or(0, |p| p.inner.len()))
}

/// Flushes for up to `timeout_ms`, then stops sending; messages still
/// undelivered get `GREGOR_ERR__DESTROY` reports (served to the callback).
/// Returns within about `timeout_ms` even with the brokers gone (-1: flushes
/// until every message has its report). The handle
/// must still be freed with `gregor_producer_free`.
#[no_mangle]
pub extern "C" fn gregor_producer_close(producer: *const gregor_producer, timeout_ms: c_int) {
    guard((), || {
        if let Ok(p) = enter(producer) {
            p.inner.close(timeout(timeout_ms));
        }
    })
}

/// Registers `transactional.id` with its coordinator (fencing older
/// producers). Blocks up to `timeout_ms`.
#[no_mangle]
pub extern "C" fn gregor_producer_init_transactions(
    producer: *const gregor_producer,
    timeout_ms: c_int,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        enter(producer)?
            .inner
            .init_transactions(timeout(timeout_ms))
    })
}

/// Opens a transaction.
#[no_mangle]
pub extern "C" fn gregor_producer_begin_transaction(
    producer: *const gregor_producer,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        enter(producer)?.inner.begin_transaction()
    })
}

/// Commits `offsets` (topic, partition, next offset to consume) for
/// `group_id` as part of the open transaction. Borrows both.
#[no_mangle]
pub extern "C" fn gregor_producer_send_offsets_to_transaction(
    producer: *const gregor_producer,
    offsets: *const gregor_tpl,
    group_id: *const c_char,
    timeout_ms: c_int,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let p = enter(producer)?;
        let list = handle(offsets, "offsets")?;
        let group = c_str(group_id, "group_id")?;
        let offs: Vec<(&str, i32, i64)> = list
            .inner
            .iter()
            .map(|t| (t.topic.as_str(), t.partition, t.offset))
            .collect();
        p.inner
            .send_offsets_to_transaction(&offs, group, timeout(timeout_ms))
    })
}

/// Flushes and commits the open transaction. Blocks up to `timeout_ms`.
#[no_mangle]
pub extern "C" fn gregor_producer_commit_transaction(
    producer: *const gregor_producer,
    timeout_ms: c_int,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        enter(producer)?
            .inner
            .commit_transaction(timeout(timeout_ms))
    })
}

/// Drops queued messages and aborts the open transaction. Blocks up to `timeout_ms`.
#[no_mangle]
pub extern "C" fn gregor_producer_abort_transaction(
    producer: *const gregor_producer,
    timeout_ms: c_int,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        enter(producer)?
            .inner
            .abort_transaction(timeout(timeout_ms))
    })
}

/// The partition `partitioner` (a `partitioner` property value:
/// "consistent_random", "consistent", "murmur2_random", "murmur2",
/// "fnv1a", "fnv1a_random", "random") gives `key` (`key_len` bytes; NULL
/// for no key) among `partition_count` partitions: the partitioners the
/// producer uses, for bindings that pick a partition themselves
/// (librdkafka's `rd_kafka_msg_partitioner_*`). Returns the partition, -1
/// when the choice is free (no key with a `*_random` partitioner, or
/// "random"), or `GREGOR_ERR__INVALID_ARG` for an unknown name or
/// `partition_count` < 1. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_partitioner(
    partitioner: *const c_char,
    key: *const u8,
    key_len: usize,
    partition_count: i32,
) -> i32 {
    guard(crate::error::local::FAIL, || {
        let Ok(name) = c_str(partitioner, "partitioner") else {
            return crate::error::local::INVALID_ARG;
        };
        match crate::producer::partitioner::Partitioner::from_name(name) {
            Some(p) if partition_count >= 1 => match bytes(key, key_len, "key") {
                Ok(key) => p.partition(key, partition_count).unwrap_or(-1),
                Err(_) => crate::error::local::INVALID_ARG,
            },
            _ => crate::error::local::INVALID_ARG,
        }
    })
}

/// A message's key or value: as `bytes`, but a length no object can have is
/// what it is for the producer, a message larger than `message.max.bytes`
/// (`MESSAGE_TOO_LARGE`, as librdkafka's `rd_kafka_produce` answers
/// `RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE` for any oversized message).
fn message_bytes<'a>(p: *const u8, len: usize, name: &str) -> Result<Option<&'a [u8]>, Error> {
    bytes(p, len, name).map_err(|_| {
        Error::kafka(
            crate::protocol::KafkaCode::MESSAGE_TOO_LARGE,
            format!("{name} of {len} bytes exceeds message.max.bytes"),
        )
    })
}

/// A header as `ProducerRecord` takes it: name, value (None: null).
type HeaderPair<'a> = (&'a str, Option<&'a [u8]>);

/// The (name, value) pairs of a message's headers; none for NULL.
fn header_pairs<'a>(headers: *const gregor_headers) -> Result<Vec<HeaderPair<'a>>, Error> {
    if headers.is_null() {
        return Ok(Vec::new());
    }
    Ok(handle(headers, "headers")?
        .inner
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_deref()))
        .collect())
}

// ----- purge (librdkafka's rd_kafka_purge) -----

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::producer::purge;

    #[test]
    fn purge_flags_are_librdkafkas() {
        assert_eq!(GREGOR_PURGE_F_QUEUE, purge::QUEUE);
        assert_eq!(GREGOR_PURGE_F_INFLIGHT, purge::INFLIGHT);
        assert_eq!(GREGOR_PURGE_F_NON_BLOCKING, purge::NON_BLOCKING);
        // rdkafka.h: RD_KAFKA_PURGE_F_QUEUE 0x1, _INFLIGHT 0x2, _NON_BLOCKING 0x4
        assert_eq!(
            (purge::QUEUE, purge::INFLIGHT, purge::NON_BLOCKING),
            (1, 2, 4)
        );
    }
}
