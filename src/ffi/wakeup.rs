//! Event-loop integration in C (librdkafka's
//! `rd_kafka_queue_io_event_enable`, `rd_kafka_queue_cb_event_enable`,
//! `rd_kafka_queue_yield`), per producer and consumer:
//!
//! - `gregor_*_io_event_enable(h, fd, payload, size)`: gregor writes the
//!   `size` bytes of `payload` (copied) to `fd` when the handle's queue
//!   (delivery reports and client events; messages, rebalances, commit
//!   results and client events) goes from empty to non-empty, and again
//!   after a poll that left something queued, so a loop that polls once per
//!   wakeup never polls in vain and never misses an item. `fd` -1 disables.
//!   The fd should be non-blocking (an eventfd with `EFD_NONBLOCK`, a pipe
//!   with `O_NONBLOCK`): a full pipe already holds a wakeup, so a failed
//!   write is ignored. The application keeps `fd` open until it disables
//!   the trigger or frees the handle.
//! - `gregor_*_cb_event_enable(h, cb, opaque)`: `cb(h, opaque)` instead of
//!   the write. It runs on a gregor thread, possibly with the handle's
//!   internal locks held: it must only wake the application's loop and must
//!   not call gregor. NULL `cb` disables. The io and callback forms replace
//!   each other.
//! - `gregor_*_yield(h)`: a `poll` / `flush` blocked on another thread
//!   returns at once as if its timeout ran out (0 / `GREGOR_ERR__TIMED_OUT`
//!   / NULL); with none blocked, the next one that would wait returns at
//!   once. Nothing else changes.

use std::ffi::{c_int, c_void};
use std::ptr;
use std::sync::Arc;

use super::consumer::gregor_consumer;
use super::guard::{guard, guard_code};
use super::lifetime::enter;
use super::producer::gregor_producer;
use super::raw::bytes;
use crate::error::{Error, Result};
use crate::net::wakeup::Trigger;

/// The most bytes an io-event payload may have (an eventfd needs 8, a pipe 1).
///
/// cbindgen:ignore
const MAX_PAYLOAD: usize = 1024;

/// A producer's event callback (`rd_kafka_queue_cb_event_enable`'s
/// `event_cb`): runs on a gregor thread when the producer's queue becomes
/// non-empty; must only wake the application's loop.
pub type gregor_producer_event_cb =
    Option<extern "C" fn(producer: *const gregor_producer, opaque: *mut c_void)>;

/// A consumer's event callback: as `gregor_producer_event_cb`.
pub type gregor_consumer_event_cb =
    Option<extern "C" fn(consumer: *const gregor_consumer, opaque: *mut c_void)>;

/// The trigger that writes `payload` to `fd`, or none for fd -1.
fn fd_trigger(fd: c_int, payload: *const c_void, size: usize) -> Result<Option<Trigger>> {
    if fd < 0 {
        if fd == -1 {
            return Ok(None);
        }
        return Err(Error::invalid_arg(format!(
            "fd {fd}: -1 disables, else >= 0"
        )));
    }
    if size == 0 || size > MAX_PAYLOAD {
        return Err(Error::invalid_arg(format!(
            "payload size {size}: 1 to {MAX_PAYLOAD} bytes"
        )));
    }
    let data = bytes(payload.cast(), size, "payload")?
        .ok_or_else(|| Error::invalid_arg("payload is NULL"))?
        .to_vec();
    Ok(Some(Arc::new(move || {
        // SAFETY: `data` is a live buffer of data.len() bytes; write(2)
        // on a bad or closed fd only returns an error, which is ignored
        // (a full pipe or eventfd: a wakeup is pending already).
        let _ = unsafe { libc::write(fd, data.as_ptr().cast(), data.len()) };
    })))
}

/// Runs `cb(handle, opaque)`; the pointers travel as integers so the
/// trigger is `Send + Sync` (the handle outlives its trigger: freeing the
/// handle drops it, and `opaque` is the application's).
fn cb_trigger<T: 'static>(
    cb: Option<extern "C" fn(*const T, *mut c_void)>,
    h: *const T,
    opaque: *mut c_void,
) -> Option<Trigger> {
    let cb = cb?;
    let (h, opaque) = (h as usize, opaque as usize);
    Some(Arc::new(move || cb(h as *const T, opaque as *mut c_void)))
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
        let p = enter(producer)?;
        p.inner.set_event_trigger(fd_trigger(fd, payload, size)?);
        Ok(())
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
    guard_code(ptr::null_mut(), 0, || {
        let p = enter(producer)?;
        p.inner.set_event_trigger(cb_trigger(cb, producer, opaque));
        Ok(())
    })
}

/// Makes a `gregor_producer_poll` / `gregor_producer_flush` blocked on
/// another thread return now, as if its timeout ran out (or the next one
/// that would wait). Safe from any thread; a no-op for NULL.
#[no_mangle]
pub extern "C" fn gregor_producer_yield(producer: *const gregor_producer) {
    guard((), || {
        if let Ok(p) = enter(producer) {
            p.inner.yield_now();
        }
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
        let c = enter(consumer)?;
        c.inner.set_event_trigger(fd_trigger(fd, payload, size)?);
        Ok(())
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
    guard_code(ptr::null_mut(), 0, || {
        let c = enter(consumer)?;
        c.inner.set_event_trigger(cb_trigger(cb, consumer, opaque));
        Ok(())
    })
}

/// Makes a `gregor_consumer_poll` blocked on another thread return NULL
/// now, as if its timeout ran out (or the next one that would wait). Safe
/// from any thread; a no-op for NULL.
#[no_mangle]
pub extern "C" fn gregor_consumer_yield(consumer: *const gregor_consumer) {
    guard((), || {
        if let Ok(c) = enter(consumer) {
            c.inner.yield_now();
        }
    })
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
