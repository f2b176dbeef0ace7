//! The producer's callbacks and events (error, throttle, statistics, fatal
//! error, wake-ups) and its SASL / OAUTHBEARER setters, as librdkafka's
//! `rd_kafka_conf_set_error_cb`, `_throttle_cb`, `_stats_cb`,
//! `rd_kafka_fatal_error`, `rd_kafka_queue_io_event_enable` and
//! `rd_kafka_oauthbearer_set_token` (see src/ffi/client.rs for what they share).

use std::ffi::{c_char, c_int, c_void};
use std::ptr;

use super::super::client::*;
use super::super::guard::{guard, guard_code, guard_code_of};
use super::super::lifetime::enter;
use super::gregor_producer;

polled_handle!(gregor_producer);

/// An error callback: `err` is the code (`GREGOR_ERR__TRANSPORT`,
/// `GREGOR_ERR__ALL_BROKERS_DOWN`, `GREGOR_ERR__FATAL`, …), `reason` a
/// NUL-terminated text valid only during the call; `handle` is the
/// producer or consumer the callback was set on.
pub type gregor_producer_error_cb = Option<
    extern "C" fn(
        producer: *const gregor_producer,
        err: c_int,
        reason: *const c_char,
        cb_opaque: *mut c_void,
    ),
>;

/// A throttle callback: `broker_name` ("host:port/id", NUL-terminated,
/// valid during the call), `broker_id` (-1 for a bootstrap connection)
/// and how long the broker throttled the client, in milliseconds.
pub type gregor_producer_throttle_cb = Option<
    extern "C" fn(
        producer: *const gregor_producer,
        broker_name: *const c_char,
        broker_id: i32,
        throttle_time_ms: c_int,
        cb_opaque: *mut c_void,
    ),
>;

/// A producer's statistics callback. `json` is NUL-terminated, `json_len`
/// bytes long (without the NUL), and borrowed: valid only during the call.
/// `producer` is the handle the callback was set on.
pub type gregor_producer_stats_cb = Option<
    extern "C" fn(
        producer: *const gregor_producer,
        json: *const c_char,
        json_len: usize,
        cb_opaque: *mut c_void,
    ),
>;

/// A producer's event callback (`rd_kafka_queue_cb_event_enable`'s
/// `event_cb`): runs on a gregor thread when the producer's queue becomes
/// non-empty; must only wake the application's loop.
pub type gregor_producer_event_cb =
    Option<extern "C" fn(producer: *const gregor_producer, opaque: *mut c_void)>;

/// Sets (or with NULL `cb`, clears) the producer's error callback, run
/// inside `gregor_producer_poll` / `gregor_producer_flush` on the calling
/// thread with `cb_opaque` (librdkafka's `error_cb`). Events queued since
/// the producer was created are served at the next poll. Returns 0 or
/// `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_producer_set_error_cb(
    producer: *const gregor_producer,
    cb: gregor_producer_error_cb,
    cb_opaque: *mut c_void,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || set_error_cb(producer, cb, cb_opaque))
}

/// Sets (or with NULL `cb`, clears) the producer's throttle callback
/// (librdkafka's `throttle_cb`), run inside `gregor_producer_poll` /
/// `gregor_producer_flush` for every response with `throttle_time_ms` > 0.
/// Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_producer_set_throttle_cb(
    producer: *const gregor_producer,
    cb: gregor_producer_throttle_cb,
    cb_opaque: *mut c_void,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        set_throttle_cb(producer, cb, cb_opaque)
    })
}

/// Sets (or with NULL `cb`, clears) the producer's statistics callback.
/// Every `statistics.interval.ms` (0, the default: never) it gets a JSON
/// snapshot inside `gregor_producer_poll` / `gregor_producer_flush`, on the
/// calling thread, with `cb_opaque`. Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_producer_set_stats_cb(
    producer: *const gregor_producer,
    cb: gregor_producer_stats_cb,
    cb_opaque: *mut c_void,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || set_stats_cb(producer, cb, cb_opaque))
}

/// The error that stopped the idempotent or transactional producer for
/// good (librdkafka's `rd_kafka_fatal_error`): returns its code (e.g.
/// `GREGOR_ERR_INVALID_PRODUCER_EPOCH`, `GREGOR_ERR_PRODUCER_FENCED`) and
/// writes its text to `errstr`, or returns 0 (`errstr` untouched) while
/// the producer has none; `GREGOR_ERR__INVALID_ARG` for a NULL producer.
#[no_mangle]
pub extern "C" fn gregor_producer_fatal_error(
    producer: *const gregor_producer,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code_of(ptr::null_mut(), 0, || {
        fatal_error(producer, errstr, errstr_size)
    })
}

/// Writes `payload` (`size` bytes, 1 to 1024, copied) to `fd` whenever the
/// producer's queue of delivery reports and client events goes from empty
/// to non-empty, and after a poll / flush that left some queued; `fd` -1
/// disables. Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_producer_io_event_enable(
    producer: *const gregor_producer,
    fd: c_int,
    payload: *const c_void,
    size: usize,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        io_event_enable(producer, fd, payload, size)
    })
}

/// Runs `cb(producer, opaque)` (on a gregor thread) where
/// `gregor_producer_io_event_enable` would write; NULL `cb` disables.
/// Returns 0 or an error code.
#[no_mangle]
pub extern "C" fn gregor_producer_cb_event_enable(
    producer: *const gregor_producer,
    cb: gregor_producer_event_cb,
    opaque: *mut c_void,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || cb_event_enable(producer, cb, opaque))
}

/// Makes a `gregor_producer_poll` / `gregor_producer_flush` blocked on
/// another thread return now, as if its timeout ran out (or the next one
/// that would wait). Safe from any thread; a no-op for NULL.
#[no_mangle]
pub extern "C" fn gregor_producer_yield(producer: *const gregor_producer) {
    guard((), || yield_poll(producer))
}

/// Serves the producer's delivery reports and client events on a gregor
/// thread from now on, as they come, instead of inside
/// `gregor_producer_poll` (librdkafka's background queue /
/// `background_event_cb`): the callbacks then run on that thread. Poll and
/// flush still work. The thread ends when the producer is closed or freed.
/// Returns 0, or `GREGOR_ERR__STATE` if started already.
#[no_mangle]
pub extern "C" fn gregor_producer_start_background(producer: *const gregor_producer) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        enter(producer)?.inner.start_background()
    })
}

/// Sets the producer's SASL/OAUTHBEARER token, as librdkafka's
/// `rd_kafka_oauthbearer_set_token`: `token_value` (NUL-terminated,
/// copied), `md_lifetime_ms` when it expires (ms since the epoch),
/// `md_principal_name` (NULL: empty), and `extension_size` strings at
/// `extensions` alternating key and value (RFC 7628 section 3.1: keys
/// 1*ALPHA and not `auth`; values VCHAR, SP, HTAB, CR, LF). Authentications
/// from now on (new connections and KIP-368 re-authentications) use it;
/// connections waiting for a token go on; the next refresh is due 80 %
/// through its lifetime. Returns 0; `GREGOR_ERR__INVALID_ARG` with the
/// reason in `errstr` (never quoting the token) for an expired token, an odd
/// `extension_size`, a malformed key or value; `GREGOR_ERR__STATE` when
/// OAUTHBEARER is not the configured mechanism. Thread-safe; may be called
/// from the refresh callback.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn gregor_producer_oauthbearer_set_token(
    producer: *const gregor_producer,
    token_value: *const c_char,
    md_lifetime_ms: i64,
    md_principal_name: *const c_char,
    extensions: *const *const c_char,
    extension_size: usize,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        set_token(
            producer,
            token_value,
            md_lifetime_ms,
            md_principal_name,
            extensions,
            extension_size,
        )
    })
}

/// Reports that the producer's token could not be had, as librdkafka's
/// `rd_kafka_oauthbearer_set_token_failure`: `errstr` is the reason (a
/// non-empty NUL-terminated string). A token still valid stays in use; the
/// next refresh is 10 s later; an `_AUTHENTICATION` error event carries the
/// reason; connections waiting for a token fail with it. Returns 0,
/// `GREGOR_ERR__INVALID_ARG` (NULL or empty reason) or `GREGOR_ERR__STATE`.
#[no_mangle]
pub extern "C" fn gregor_producer_oauthbearer_set_token_failure(
    producer: *const gregor_producer,
    errstr: *const c_char,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || set_token_failure(producer, errstr))
}

/// Runs the producer's token refresh callback on a gregor thread instead
/// of inside poll, as librdkafka's `rd_kafka_sasl_background_callbacks_enable`
/// (for applications that do not poll). Returns 0 or `GREGOR_ERR__STATE`.
#[no_mangle]
pub extern "C" fn gregor_producer_sasl_background_callbacks_enable(
    producer: *const gregor_producer,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || sasl_background(producer))
}

/// Sets the SASL user name and password (both NUL-terminated, copied) the
/// producer authenticates with from now on (PLAIN and SCRAM). As librdkafka,
/// the values are accepted even when SASL is not configured. Returns 0 or
/// `GREGOR_ERR__INVALID_ARG` (a NULL argument, text not UTF-8). Does not
/// block. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_producer_set_sasl_credentials(
    producer: *const gregor_producer,
    username: *const c_char,
    password: *const c_char,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        set_sasl_credentials(producer, username, password)
    })
}
