//! Statistics callbacks in C: `statistics.interval.ms` JSON (librdkafka's
//! STATISTICS.md shape) delivered inside `gregor_producer_poll` /
//! `gregor_producer_flush` / `gregor_consumer_poll` on the calling thread.

use std::ffi::{c_char, c_int, c_void};
use std::ptr;

use super::consumer::gregor_consumer;
use super::guard::guard_code;
use super::lifetime::enter;
use super::producer::gregor_producer;
use crate::stats::StatsCallback;

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

/// A consumer's statistics callback: as `gregor_producer_stats_cb`.
pub type gregor_consumer_stats_cb = Option<
    extern "C" fn(
        consumer: *const gregor_consumer,
        json: *const c_char,
        json_len: usize,
        cb_opaque: *mut c_void,
    ),
>;

/// Wraps a C callback: the JSON gets its NUL, pointers travel as integers
/// (the closure must be `Send`; it only runs on the polling thread).
fn wrap<H: 'static>(
    cb: extern "C" fn(*const H, *const c_char, usize, *mut c_void),
    h: *const H,
    opaque: *mut c_void,
) -> StatsCallback {
    let (h, opaque) = (h as usize, opaque as usize);
    let mut buf: Vec<u8> = Vec::new();
    Box::new(move |json: &str| {
        buf.clear();
        buf.extend_from_slice(json.as_bytes());
        buf.push(0);
        cb(
            h as *const H,
            buf.as_ptr().cast(),
            json.len(),
            opaque as *mut c_void,
        );
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
    guard_code(ptr::null_mut(), 0, || {
        let p = enter(producer)?;
        p.inner
            .set_stats_callback(cb.map(|cb| wrap(cb, producer, cb_opaque)));
        Ok(())
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
    guard_code(ptr::null_mut(), 0, || {
        let c = enter(consumer)?;
        c.inner
            .set_stats_callback(cb.map(|cb| wrap(cb, consumer, cb_opaque)));
        Ok(())
    })
}
