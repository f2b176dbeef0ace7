//! Helpers shared by the client handles' C functions (producer, consumer,
//! admin): each family's `gregor_<client>_*` functions are in its own
//! module and call these. What the helpers serve, by topic:
//!
//! Client events and fatal errors in C:
//!
//! - error callbacks with librdkafka's `error_cb` semantics
//!   (`rd_kafka_conf_set_error_cb`): `_TRANSPORT`, `_RESOLVE`, `_SSL`,
//!   `_AUTHENTICATION`, `_ALL_BROKERS_DOWN` (every known broker down, once
//!   per transition), `_FATAL`, …;
//! - throttle callbacks (`rd_kafka_conf_set_throttle_cb`): broker name, id
//!   and throttle time, for every response with `throttle_time_ms` > 0;
//! - `gregor_producer_fatal_error` / `gregor_consumer_fatal_error`
//!   (`rd_kafka_fatal_error`);
//! - (the error object, `gregor_error_t`, is in src/ffi/error_object.rs).
//!
//! The callbacks are set on the handle, as `gregor_producer_set_stats_cb`,
//! rather than on the configuration: events are queued in the handle from
//! the moment it is created and run only inside `gregor_producer_poll` /
//! `gregor_producer_flush` / `gregor_consumer_poll` on the calling thread
//! (as librdkafka serves them from `rd_kafka_poll`), so setting the
//! callback right after `_new` misses nothing — a connection that fails
//! before the first poll is reported at that poll. Errors of `_new` itself
//! come back in its `errstr`, as always.
//!
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
//!
//! SASL/OAUTHBEARER tokens in C, as librdkafka's
//! `rd_kafka_conf_set_oauthbearer_token_refresh_cb`,
//! `rd_kafka_oauthbearer_set_token`, `rd_kafka_oauthbearer_set_token_failure`
//! and `rd_kafka_sasl_background_callbacks_enable` (the Rust side is
//! src/net/sasl/token.rs).
//!
//! Setting SASL credentials at run time in C (librdkafka's
//! `rd_kafka_sasl_set_credentials`): authentications that start after the
//! call (new connections, reconnections) use the new user name and password;
//! connections already authenticated are left as they are.
//!
//! Statistics callbacks in C: `statistics.interval.ms` JSON (librdkafka's
//! STATISTICS.md shape) delivered inside `gregor_producer_poll` /
//! `gregor_producer_flush` / `gregor_consumer_poll` on the calling thread.

use std::ffi::{c_char, c_int, c_void, CString};
use std::sync::Arc;

use super::raw::{bytes, c_str, write_errstr};
#[cfg(feature = "sasl")]
use super::raw::{c_strs, opt_c_str};
use crate::cluster::Cluster;
use crate::error::{local, Error, Result};
use crate::net::wakeup::Trigger;
use crate::net::{ErrorCallback, ThrottleCallback, ThrottleEvent};
use crate::stats::StatsCallback;

/// A text as a C string: interior NULs (never in gregor's messages) cut it.
pub(crate) fn cstring(s: &str) -> CString {
    CString::new(s.split('\0').next().unwrap_or_default()).unwrap_or_default()
}

pub(crate) fn wrap_error<H: 'static>(
    cb: extern "C" fn(*const H, c_int, *const c_char, *mut c_void),
    h: *const H,
    opaque: *mut c_void,
) -> ErrorCallback {
    // pointers travel as integers: the closure must be Send, and runs only
    // on the polling thread
    let (h, opaque) = (h as usize, opaque as usize);
    Box::new(move |e: &Error| {
        let reason = cstring(&crate::net::client_events::event_reason(e));
        cb(
            h as *const H,
            e.code(),
            reason.as_ptr(),
            opaque as *mut c_void,
        );
    })
}

pub(crate) fn wrap_throttle<H: 'static>(
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

/// Writes a fatal error's text to `errstr`; returns its code (0: none).
pub(crate) fn fatal_out(e: Option<Error>, errstr: *mut c_char, errstr_size: usize) -> c_int {
    match e {
        Some(e) => {
            write_errstr(errstr, errstr_size, &e.to_string());
            e.code()
        }
        None => 0,
    }
}

/// Wraps a C callback: the JSON gets its NUL, pointers travel as integers
/// (the closure must be `Send`; it only runs on the polling thread).
pub(crate) fn wrap_stats<H: 'static>(
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

/// The most bytes an io-event payload may have (an eventfd needs 8, a pipe 1).
///
/// cbindgen:ignore
pub(crate) const MAX_PAYLOAD: usize = 1024;

/// The trigger that writes `payload` to `fd`, or none for fd -1.
pub(crate) fn fd_trigger(
    fd: c_int,
    payload: *const c_void,
    size: usize,
) -> Result<Option<Trigger>> {
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
pub(crate) fn cb_trigger<T: 'static>(
    cb: Option<extern "C" fn(*const T, *mut c_void)>,
    h: *const T,
    opaque: *mut c_void,
) -> Option<Trigger> {
    let cb = cb?;
    let (h, opaque) = (h as usize, opaque as usize);
    Some(Arc::new(move || cb(h as *const T, opaque as *mut c_void)))
}

#[cfg(feature = "sasl")]
pub(crate) fn set_token(
    cluster: &Cluster,
    token: *const c_char,
    lifetime_ms: i64,
    principal: *const c_char,
    extensions: *const *const c_char,
    extension_size: usize,
) -> Result<(), Error> {
    let ob = cluster.oauthbearer()?;
    let token = c_str(token, "token_value")?;
    let principal = opt_c_str(principal, "md_principal_name")?.unwrap_or("");
    if extension_size % 2 != 0 {
        return Err(Error::local(
            local::INVALID_ARG,
            format!(
                "Incorrect extension size (must be a non-negative multiple of 2): {extension_size}"
            ),
        ));
    }
    let ext = c_strs(extensions, extension_size, "extensions")?;
    let pairs: Vec<(String, String)> = ext
        .chunks(2)
        .map(|kv| (kv[0].to_string(), kv[1].to_string()))
        .collect();
    ob.set_token(token, lifetime_ms, principal, &pairs)
}

#[cfg(not(feature = "sasl"))]
pub(crate) fn set_token(
    _cluster: &Cluster,
    _token: *const c_char,
    _lifetime_ms: i64,
    _principal: *const c_char,
    _extensions: *const *const c_char,
    _extension_size: usize,
) -> Result<(), Error> {
    Err(not_built())
}

#[cfg(not(feature = "sasl"))]
pub(crate) fn not_built() -> Error {
    Error::local(
        local::NOT_IMPLEMENTED,
        "SASL/OAUTHBEARER: built without the sasl feature",
    )
}

pub(crate) fn set_failure(cluster: &Cluster, reason: *const c_char) -> Result<(), Error> {
    #[cfg(feature = "sasl")]
    {
        let ob = cluster.oauthbearer()?;
        let reason = opt_c_str(reason, "errstr")?.unwrap_or("");
        ob.set_token_failure(reason)
    }
    #[cfg(not(feature = "sasl"))]
    {
        let _ = (cluster, reason);
        Err(not_built())
    }
}

pub(crate) fn background(cluster: &Cluster) -> Result<(), Error> {
    #[cfg(feature = "sasl")]
    {
        cluster.oauthbearer()?.enable_background_callbacks();
        Ok(())
    }
    #[cfg(not(feature = "sasl"))]
    {
        let _ = cluster;
        Err(not_built())
    }
}

pub(crate) fn set_sasl(
    cluster: &Cluster,
    username: *const c_char,
    password: *const c_char,
) -> Result<(), Error> {
    let u = c_str(username, "username")?;
    let p = c_str(password, "password")?;
    cluster.set_sasl_credentials(u, p);
    Ok(())
}
