//! The consumer's callbacks and events (error, throttle, statistics, fatal
//! error, wake-ups) and its SASL / OAUTHBEARER setters, as the producer's
//! (src/ffi/producer/callbacks.rs; see src/ffi/client.rs for what they share).

use std::ffi::{c_char, c_int, c_void};
use std::ptr;

use super::super::client::*;
use super::super::guard::{guard, guard_code, guard_code_of};
use super::gregor_consumer;

polled_handle!(gregor_consumer);

/// A consumer's error callback: as `gregor_producer_error_cb`.
pub type gregor_consumer_error_cb = Option<
    extern "C" fn(
        consumer: *const gregor_consumer,
        err: c_int,
        reason: *const c_char,
        cb_opaque: *mut c_void,
    ),
>;

/// A consumer's throttle callback: as `gregor_producer_throttle_cb`.
pub type gregor_consumer_throttle_cb = Option<
    extern "C" fn(
        consumer: *const gregor_consumer,
        broker_name: *const c_char,
        broker_id: i32,
        throttle_time_ms: c_int,
        cb_opaque: *mut c_void,
    ),
>;

/// A consumer's statistics callback: as `gregor_producer_stats_cb`.
pub type gregor_consumer_stats_cb = Option<
    extern "C" fn(
        consumer: *const gregor_consumer,
        json: *const c_char,
        json_len: usize,
        cb_opaque: *mut c_void,
    ),
>;

/// A consumer's event callback: as `gregor_producer_event_cb`.
pub type gregor_consumer_event_cb =
    Option<extern "C" fn(consumer: *const gregor_consumer, opaque: *mut c_void)>;

/// Sets (or with NULL `cb`, clears) the consumer's error callback, run
/// inside `gregor_consumer_poll` on the calling thread with `cb_opaque`.
/// Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_consumer_set_error_cb(
    consumer: *const gregor_consumer,
    cb: gregor_consumer_error_cb,
    cb_opaque: *mut c_void,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || set_error_cb(consumer, cb, cb_opaque))
}

/// Sets (or with NULL `cb`, clears) the consumer's throttle callback, run
/// inside `gregor_consumer_poll`. Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_consumer_set_throttle_cb(
    consumer: *const gregor_consumer,
    cb: gregor_consumer_throttle_cb,
    cb_opaque: *mut c_void,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        set_throttle_cb(consumer, cb, cb_opaque)
    })
}

/// Sets (or with NULL `cb`, clears) the consumer's statistics callback.
/// Every `statistics.interval.ms` (0, the default: never) it gets a JSON
/// snapshot inside `gregor_consumer_poll`, on the calling thread, with
/// `cb_opaque`. Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_consumer_set_stats_cb(
    consumer: *const gregor_consumer,
    cb: gregor_consumer_stats_cb,
    cb_opaque: *mut c_void,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || set_stats_cb(consumer, cb, cb_opaque))
}

/// The error that stopped the consumer for good (a fenced static group
/// member), as `gregor_producer_fatal_error`.
#[no_mangle]
pub extern "C" fn gregor_consumer_fatal_error(
    consumer: *const gregor_consumer,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code_of(ptr::null_mut(), 0, || {
        fatal_error(consumer, errstr, errstr_size)
    })
}

/// Writes `payload` (`size` bytes, 1 to 1024, copied) to `fd` whenever the
/// consumer's queue (messages, errors, rebalances, commit results, client
/// events) goes from empty to non-empty, and after a poll that left some
/// queued; `fd` -1 disables. Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_consumer_io_event_enable(
    consumer: *const gregor_consumer,
    fd: c_int,
    payload: *const c_void,
    size: usize,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        io_event_enable(consumer, fd, payload, size)
    })
}

/// Runs `cb(consumer, opaque)` (on a gregor thread) where
/// `gregor_consumer_io_event_enable` would write; NULL `cb` disables.
/// Returns 0 or an error code.
#[no_mangle]
pub extern "C" fn gregor_consumer_cb_event_enable(
    consumer: *const gregor_consumer,
    cb: gregor_consumer_event_cb,
    opaque: *mut c_void,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || cb_event_enable(consumer, cb, opaque))
}

/// Makes a `gregor_consumer_poll` blocked on another thread return NULL
/// now, as if its timeout ran out (or the next one that would wait). Safe
/// from any thread; a no-op for NULL.
#[no_mangle]
pub extern "C" fn gregor_consumer_yield(consumer: *const gregor_consumer) {
    guard((), || yield_poll(consumer))
}

/// As `gregor_producer_oauthbearer_set_token`, for a consumer.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn gregor_consumer_oauthbearer_set_token(
    consumer: *const gregor_consumer,
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
            consumer,
            token_value,
            md_lifetime_ms,
            md_principal_name,
            extensions,
            extension_size,
        )
    })
}

/// As `gregor_producer_oauthbearer_set_token_failure`, for a consumer.
#[no_mangle]
pub extern "C" fn gregor_consumer_oauthbearer_set_token_failure(
    consumer: *const gregor_consumer,
    errstr: *const c_char,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || set_token_failure(consumer, errstr))
}

/// As `gregor_producer_sasl_background_callbacks_enable`, for a consumer.
#[no_mangle]
pub extern "C" fn gregor_consumer_sasl_background_callbacks_enable(
    consumer: *const gregor_consumer,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || sasl_background(consumer))
}

/// As `gregor_producer_set_sasl_credentials`, for a consumer.
#[no_mangle]
pub extern "C" fn gregor_consumer_set_sasl_credentials(
    consumer: *const gregor_consumer,
    username: *const c_char,
    password: *const c_char,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        set_sasl_credentials(consumer, username, password)
    })
}
