//! Client events, fatal errors and error objects in C:
//!
//! - error callbacks with librdkafka's `error_cb` semantics
//!   (`rd_kafka_conf_set_error_cb`): `_TRANSPORT`, `_RESOLVE`, `_SSL`,
//!   `_AUTHENTICATION`, `_ALL_BROKERS_DOWN` (every known broker down, once
//!   per transition), `_FATAL`, …;
//! - throttle callbacks (`rd_kafka_conf_set_throttle_cb`): broker name, id
//!   and throttle time, for every response with `throttle_time_ms` > 0;
//! - `gregor_producer_fatal_error` / `gregor_consumer_fatal_error`
//!   (`rd_kafka_fatal_error`);
//! - `gregor_error_t` (`rd_kafka_error_t`), returned by the `gregor_producer_txn_*`
//!   calls with librdkafka's retriable / fatal / abortable flags.
//!
//! The callbacks are set on the handle, as `gregor_producer_set_stats_cb`,
//! rather than on the configuration: events are queued in the handle from
//! the moment it is created and run only inside `gregor_producer_poll` /
//! `gregor_producer_flush` / `gregor_consumer_poll` on the calling thread
//! (as librdkafka serves them from `rd_kafka_poll`), so setting the
//! callback right after `_new` misses nothing — a connection that fails
//! before the first poll is reported at that poll. Errors of `_new` itself
//! come back in its `errstr`, as always.

use std::ffi::{c_char, c_int, c_void, CString};
use std::ptr;
use std::time::Duration;

use super::consumer::gregor_consumer;
use super::guard::{guard, guard_code};
use super::lifetime::enter;
use super::producer::gregor_producer;
use super::raw::{c_str, handle, write_errstr};
use super::tpl::gregor_tpl;
use crate::error::Error;
use crate::net::{ErrorCallback, ThrottleCallback, ThrottleEvent};
use crate::producer::Producer;

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

/// A consumer's error callback: as `gregor_producer_error_cb`.
pub type gregor_consumer_error_cb = Option<
    extern "C" fn(
        consumer: *const gregor_consumer,
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

/// A text as a C string: interior NULs (never in gregor's messages) cut it.
fn cstring(s: &str) -> CString {
    CString::new(s.split('\0').next().unwrap_or_default()).unwrap_or_default()
}

fn wrap_error<H: 'static>(
    cb: extern "C" fn(*const H, c_int, *const c_char, *mut c_void),
    h: *const H,
    opaque: *mut c_void,
) -> ErrorCallback {
    // pointers travel as integers: the closure must be Send, and runs only
    // on the polling thread
    let (h, opaque) = (h as usize, opaque as usize);
    Box::new(move |e: &Error| {
        let reason = cstring(&crate::net::events::event_reason(e));
        cb(
            h as *const H,
            e.code(),
            reason.as_ptr(),
            opaque as *mut c_void,
        );
    })
}

fn wrap_throttle<H: 'static>(
    cb: extern "C" fn(*const H, *const c_char, i32, c_int, *mut c_void),
    h: *const H,
    opaque: *mut c_void,
) -> ThrottleCallback {
    let (h, opaque) = (h as usize, opaque as usize);
    Box::new(move |t: &ThrottleEvent| {
        let name = cstring(&t.broker_name);
        cb(
            h as *const H,
            name.as_ptr(),
            t.broker_id,
            t.throttle_time_ms,
            opaque as *mut c_void,
        );
    })
}

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
    guard_code(ptr::null_mut(), 0, || {
        let p = enter(producer)?;
        p.inner
            .set_error_callback(cb.map(|cb| wrap_error(cb, producer, cb_opaque)));
        Ok(())
    })
}

/// Sets (or with NULL `cb`, clears) the consumer's error callback, run
/// inside `gregor_consumer_poll` on the calling thread with `cb_opaque`.
/// Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_consumer_set_error_cb(
    consumer: *const gregor_consumer,
    cb: gregor_consumer_error_cb,
    cb_opaque: *mut c_void,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let c = enter(consumer)?;
        c.inner
            .set_error_callback(cb.map(|cb| wrap_error(cb, consumer, cb_opaque)));
        Ok(())
    })
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
        let p = enter(producer)?;
        p.inner
            .set_throttle_callback(cb.map(|cb| wrap_throttle(cb, producer, cb_opaque)));
        Ok(())
    })
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
        let c = enter(consumer)?;
        c.inner
            .set_throttle_callback(cb.map(|cb| wrap_throttle(cb, consumer, cb_opaque)));
        Ok(())
    })
}

/// Writes a fatal error's text to `errstr`; returns its code (0: none).
fn fatal_out(e: Option<Error>, errstr: *mut c_char, errstr_size: usize) -> c_int {
    match e {
        Some(e) => {
            write_errstr(errstr, errstr_size, &e.to_string());
            e.code()
        }
        None => 0,
    }
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
    let mut code = 0;
    let r = guard_code(ptr::null_mut(), 0, || {
        code = fatal_out(enter(producer)?.inner.fatal_error(), errstr, errstr_size);
        Ok(())
    });
    if r != 0 {
        r
    } else {
        code
    }
}

/// The error that stopped the consumer for good (a fenced static group
/// member), as `gregor_producer_fatal_error`.
#[no_mangle]
pub extern "C" fn gregor_consumer_fatal_error(
    consumer: *const gregor_consumer,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    let mut code = 0;
    let r = guard_code(ptr::null_mut(), 0, || {
        code = fatal_out(enter(consumer)?.inner.fatal_error(), errstr, errstr_size);
        Ok(())
    });
    if r != 0 {
        r
    } else {
        code
    }
}

// ----- error objects -----

/// An error with librdkafka's flags (`rd_kafka_error_t`): returned by the
/// `gregor_producer_txn_*` calls (NULL on success); the caller owns it and
/// frees it with `gregor_error_destroy`.
pub struct gregor_error_t {
    code: c_int,
    name: CString,
    text: CString,
    retriable: bool,
    fatal: bool,
    txn_requires_abort: bool,
}

impl gregor_error_t {
    fn new(e: &Error, retriable: bool, fatal: bool, txn_requires_abort: bool) -> *mut Self {
        Box::into_raw(Box::new(gregor_error_t {
            code: e.code(),
            name: cstring(&crate::error::code_name(e.code())),
            text: cstring(&e.to_string()),
            retriable,
            fatal,
            txn_requires_abort,
        }))
    }
}

/// The error's code; 0 for NULL.
#[no_mangle]
pub extern "C" fn gregor_error_code(error: *const gregor_error_t) -> c_int {
    guard(0, || handle(error, "error").map_or(0, |e| e.code))
}

/// The code's name ("_TIMED_OUT", "PRODUCER_FENCED"), valid as long as the
/// error; "" for NULL.
#[no_mangle]
pub extern "C" fn gregor_error_name(error: *const gregor_error_t) -> *const c_char {
    guard(c"".as_ptr(), || {
        handle(error, "error").map_or(c"".as_ptr(), |e| e.name.as_ptr())
    })
}

/// The error's text, valid as long as the error; "" for NULL.
#[no_mangle]
pub extern "C" fn gregor_error_string(error: *const gregor_error_t) -> *const c_char {
    guard(c"".as_ptr(), || {
        handle(error, "error").map_or(c"".as_ptr(), |e| e.text.as_ptr())
    })
}

/// 1 if the call may be retried as it is (a timeout, a coordinator moving).
#[no_mangle]
pub extern "C" fn gregor_error_is_retriable(error: *const gregor_error_t) -> c_int {
    guard(0, || {
        handle(error, "error").map_or(0, |e| c_int::from(e.retriable))
    })
}

/// 1 if the producer is unusable for good (see `gregor_producer_fatal_error`).
#[no_mangle]
pub extern "C" fn gregor_error_is_fatal(error: *const gregor_error_t) -> c_int {
    guard(0, || {
        handle(error, "error").map_or(0, |e| c_int::from(e.fatal))
    })
}

/// 1 if the open transaction must be aborted
/// (`gregor_producer_txn_abort`) before a new one can begin.
#[no_mangle]
pub extern "C" fn gregor_error_txn_requires_abort(error: *const gregor_error_t) -> c_int {
    guard(0, || {
        handle(error, "error").map_or(0, |e| c_int::from(e.txn_requires_abort))
    })
}

/// Frees an error object. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_error_destroy(error: *mut gregor_error_t) {
    guard((), || super::raw::free(error))
}

// ----- transactions with error objects -----

/// librdkafka's timeout rule: negative waits forever (here: a year).
fn timeout(ms: c_int) -> Duration {
    if ms < 0 {
        Duration::from_secs(365 * 86_400)
    } else {
        Duration::from_millis(ms as u64)
    }
}

/// Runs a transactional call; NULL on success, else its error with the
/// flags the producer's state after the call gives it. A bad argument is
/// `GREGOR_ERR__INVALID_ARG` with no flag set.
pub(crate) fn txn_call(
    producer: *const gregor_producer,
    f: impl FnOnce(&Producer) -> Result<(), Error>,
) -> *mut gregor_error_t {
    let mut out = ptr::null_mut();
    let mut caught: Option<Error> = None;
    let code = guard_code(ptr::null_mut(), 0, || {
        let p = enter(producer).inspect_err(|e| caught = Some(e.clone()))?;
        if let Err(e) = f(&p.inner) {
            let fl = p.inner.txn_error_flags(&e);
            out = gregor_error_t::new(&e, fl.retriable, fl.fatal, fl.txn_requires_abort);
        }
        Ok(())
    });
    if out.is_null() && code != 0 {
        let e = caught.unwrap_or_else(|| {
            Error::local(
                code,
                "internal error in a transactional call (panic caught)",
            )
        });
        out = gregor_error_t::new(&e, false, false, false);
    }
    out
}

/// As `gregor_producer_init_transactions`, returning an error object
/// (NULL on success; librdkafka's `rd_kafka_init_transactions`). A negative
/// `timeout_ms` waits forever.
#[no_mangle]
pub extern "C" fn gregor_producer_txn_init(
    producer: *const gregor_producer,
    timeout_ms: c_int,
) -> *mut gregor_error_t {
    txn_call(producer, |p| p.init_transactions(timeout(timeout_ms)))
}

/// As `gregor_producer_begin_transaction`, returning an error object.
#[no_mangle]
pub extern "C" fn gregor_producer_txn_begin(
    producer: *const gregor_producer,
) -> *mut gregor_error_t {
    txn_call(producer, Producer::begin_transaction)
}

/// As `gregor_producer_send_offsets_to_transaction`, returning an error
/// object. A negative `timeout_ms` waits forever.
#[no_mangle]
pub extern "C" fn gregor_producer_txn_send_offsets(
    producer: *const gregor_producer,
    offsets: *const gregor_tpl,
    group_id: *const c_char,
    timeout_ms: c_int,
) -> *mut gregor_error_t {
    txn_call(producer, |p| {
        let list = handle(offsets, "offsets")?;
        let group = c_str(group_id, "group_id")?;
        let offs: Vec<(&str, i32, i64)> = list
            .inner
            .iter()
            .map(|t| (t.topic.as_str(), t.partition, t.offset))
            .collect();
        p.send_offsets_to_transaction(&offs, group, timeout(timeout_ms))
    })
}

/// As `gregor_producer_commit_transaction`, returning an error object
/// (`txn_requires_abort` set when only an abort can follow). A negative
/// `timeout_ms` waits forever.
#[no_mangle]
pub extern "C" fn gregor_producer_txn_commit(
    producer: *const gregor_producer,
    timeout_ms: c_int,
) -> *mut gregor_error_t {
    txn_call(producer, |p| p.commit_transaction(timeout(timeout_ms)))
}

/// As `gregor_producer_abort_transaction`, returning an error object. A
/// negative `timeout_ms` waits forever.
#[no_mangle]
pub extern "C" fn gregor_producer_txn_abort(
    producer: *const gregor_producer,
    timeout_ms: c_int,
) -> *mut gregor_error_t {
    txn_call(producer, |p| p.abort_transaction(timeout(timeout_ms)))
}
