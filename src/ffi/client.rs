//! Helpers shared by the client handles' C functions (producer, consumer,
//! admin): each family's `gregor_<client>_*` functions are in its own
//! module and call these. A C function that every client has the same
//! (`_set_error_cb`, `_fatal_error`, `_oauthbearer_set_token`, …) has its
//! whole body here once, generic over the handle type: the handles give
//! access to their clients through [`ClientHandle`] and [`PolledHandle`],
//! and each family's function is one call of the helper inside its panic
//! guard. What the helpers serve, by topic:
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

use super::lifetime::{enter, Handle};
use super::raw::{bytes, c_str, write_errstr};
#[cfg(feature = "sasl")]
use super::raw::{c_strs, opt_c_str};
use crate::cluster::Cluster;
use crate::error::{local, Error, Result};
use crate::net::wakeup::Trigger;
use crate::net::{ErrorCallback, ThrottleCallback, ThrottleEvent};
use crate::stats::StatsCallback;

/// A client handle (producer, consumer, admin) as the SASL and OAUTHBEARER
/// setters below use it: its client's cluster.
pub(crate) trait ClientHandle: Handle {
    /// The client's view of the cluster.
    fn cluster(&self) -> &Cluster;
}

/// A client handle whose poll serves its client's events (producer,
/// consumer): the calls the callback setters, fatal error and wake-up
/// helpers below make on its client, named as the client's own methods.
pub(crate) trait PolledHandle: ClientHandle {
    fn set_error_callback(&self, cb: Option<ErrorCallback>);
    fn set_throttle_callback(&self, cb: Option<ThrottleCallback>);
    fn set_stats_callback(&self, cb: Option<StatsCallback>);
    fn fatal_error(&self) -> Option<Error>;
    fn set_event_trigger(&self, trigger: Option<Trigger>);
    fn yield_now(&self);
}

/// Implements [`ClientHandle`] and [`PolledHandle`] for a handle whose
/// `inner` client has those methods (the producer's and the consumer's).
macro_rules! polled_handle {
    ($handle:ty) => {
        impl $crate::ffi::client::ClientHandle for $handle {
            fn cluster(&self) -> &$crate::cluster::Cluster {
                self.inner.cluster()
            }
        }

        impl $crate::ffi::client::PolledHandle for $handle {
            fn set_error_callback(&self, cb: Option<$crate::net::ErrorCallback>) {
                self.inner.set_error_callback(cb)
            }
            fn set_throttle_callback(&self, cb: Option<$crate::net::ThrottleCallback>) {
                self.inner.set_throttle_callback(cb)
            }
            fn set_stats_callback(&self, cb: Option<$crate::stats::StatsCallback>) {
                self.inner.set_stats_callback(cb)
            }
            fn fatal_error(&self) -> Option<$crate::error::Error> {
                self.inner.fatal_error()
            }
            fn set_event_trigger(&self, trigger: Option<$crate::net::wakeup::Trigger>) {
                self.inner.set_event_trigger(trigger)
            }
            fn yield_now(&self) {
                self.inner.yield_now()
            }
        }
    };
}
pub(crate) use polled_handle;

/// A C error callback of handle type `H` (`gregor_<client>_error_cb`).
pub(crate) type ErrorCb<H> = extern "C" fn(*const H, c_int, *const c_char, *mut c_void);
/// A C throttle callback (`gregor_<client>_throttle_cb`).
pub(crate) type ThrottleCb<H> = extern "C" fn(*const H, *const c_char, i32, c_int, *mut c_void);
/// A C statistics callback (`gregor_<client>_stats_cb`).
pub(crate) type StatsCb<H> = extern "C" fn(*const H, *const c_char, usize, *mut c_void);
/// A C event callback (`gregor_<client>_event_cb`).
pub(crate) type EventCb<H> = extern "C" fn(*const H, *mut c_void);

/// `gregor_<client>_set_error_cb`: sets, or with NULL `cb` clears, the
/// handle's error callback.
pub(crate) fn set_error_cb<H: PolledHandle>(
    h: *const H,
    cb: Option<ErrorCb<H>>,
    opaque: *mut c_void,
) -> Result<()> {
    enter(h)?.set_error_callback(cb.map(|cb| wrap_error(cb, h, opaque)));
    Ok(())
}

/// `gregor_<client>_set_throttle_cb`.
pub(crate) fn set_throttle_cb<H: PolledHandle>(
    h: *const H,
    cb: Option<ThrottleCb<H>>,
    opaque: *mut c_void,
) -> Result<()> {
    enter(h)?.set_throttle_callback(cb.map(|cb| wrap_throttle(cb, h, opaque)));
    Ok(())
}

/// `gregor_<client>_set_stats_cb`.
pub(crate) fn set_stats_cb<H: PolledHandle>(
    h: *const H,
    cb: Option<StatsCb<H>>,
    opaque: *mut c_void,
) -> Result<()> {
    enter(h)?.set_stats_callback(cb.map(|cb| wrap_stats(cb, h, opaque)));
    Ok(())
}

/// `gregor_<client>_fatal_error`: the fatal error's code (0: none), its
/// text written to `errstr`.
pub(crate) fn fatal_error<H: PolledHandle>(
    h: *const H,
    errstr: *mut c_char,
    errstr_size: usize,
) -> Result<c_int> {
    Ok(match enter(h)?.fatal_error() {
        Some(e) => {
            write_errstr(errstr, errstr_size, &e.to_string());
            e.code()
        }
        None => 0,
    })
}

/// `gregor_<client>_io_event_enable`: the handle is checked before the
/// payload.
pub(crate) fn io_event_enable<H: PolledHandle>(
    h: *const H,
    fd: c_int,
    payload: *const c_void,
    size: usize,
) -> Result<()> {
    let e = enter(h)?;
    e.set_event_trigger(fd_trigger(fd, payload, size)?);
    Ok(())
}

/// `gregor_<client>_cb_event_enable`.
pub(crate) fn cb_event_enable<H: PolledHandle>(
    h: *const H,
    cb: Option<EventCb<H>>,
    opaque: *mut c_void,
) -> Result<()> {
    enter(h)?.set_event_trigger(cb_trigger(cb, h, opaque));
    Ok(())
}

/// `gregor_<client>_yield`: a no-op for NULL or a handle being freed.
pub(crate) fn yield_poll<H: PolledHandle>(h: *const H) {
    if let Ok(e) = enter(h) {
        e.yield_now();
    }
}

/// A text as a C string: interior NULs (never in gregor's messages) cut it.
pub(crate) fn cstring(s: &str) -> CString {
    CString::new(s.split('\0').next().unwrap_or_default()).unwrap_or_default()
}

fn wrap_error<H: 'static>(cb: ErrorCb<H>, h: *const H, opaque: *mut c_void) -> ErrorCallback {
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

fn wrap_throttle<H: 'static>(
    cb: ThrottleCb<H>,
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

/// Wraps a C callback: the JSON gets its NUL, pointers travel as integers
/// (the closure must be `Send`; it only runs on the polling thread).
fn wrap_stats<H: 'static>(cb: StatsCb<H>, h: *const H, opaque: *mut c_void) -> StatsCallback {
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
fn cb_trigger<H: 'static>(
    cb: Option<EventCb<H>>,
    h: *const H,
    opaque: *mut c_void,
) -> Option<Trigger> {
    let cb = cb?;
    let (h, opaque) = (h as usize, opaque as usize);
    Some(Arc::new(move || cb(h as *const H, opaque as *mut c_void)))
}

/// `gregor_<client>_oauthbearer_set_token`: the handle, then the
/// mechanism (`_STATE` unless OAUTHBEARER), then the arguments.
pub(crate) fn set_token<H: ClientHandle>(
    h: *const H,
    token: *const c_char,
    lifetime_ms: i64,
    principal: *const c_char,
    extensions: *const *const c_char,
    extension_size: usize,
) -> Result<()> {
    let h = enter(h)?;
    #[cfg(feature = "sasl")]
    {
        let ob = h.cluster().oauthbearer()?;
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
    {
        let _ = (h, token, lifetime_ms, principal, extensions, extension_size);
        Err(not_built())
    }
}

#[cfg(not(feature = "sasl"))]
fn not_built() -> Error {
    Error::local(
        local::NOT_IMPLEMENTED,
        "SASL/OAUTHBEARER: built without the sasl feature",
    )
}

/// `gregor_<client>_oauthbearer_set_token_failure`.
pub(crate) fn set_token_failure<H: ClientHandle>(h: *const H, reason: *const c_char) -> Result<()> {
    let h = enter(h)?;
    #[cfg(feature = "sasl")]
    {
        let ob = h.cluster().oauthbearer()?;
        let reason = opt_c_str(reason, "errstr")?.unwrap_or("");
        ob.set_token_failure(reason)
    }
    #[cfg(not(feature = "sasl"))]
    {
        let _ = (h, reason);
        Err(not_built())
    }
}

/// `gregor_<client>_sasl_background_callbacks_enable`.
pub(crate) fn sasl_background<H: ClientHandle>(h: *const H) -> Result<()> {
    let h = enter(h)?;
    #[cfg(feature = "sasl")]
    {
        h.cluster().oauthbearer()?.enable_background_callbacks();
        Ok(())
    }
    #[cfg(not(feature = "sasl"))]
    {
        let _ = h;
        Err(not_built())
    }
}

/// `gregor_<client>_set_sasl_credentials`.
pub(crate) fn set_sasl_credentials<H: ClientHandle>(
    h: *const H,
    username: *const c_char,
    password: *const c_char,
) -> Result<()> {
    let h = enter(h)?;
    let u = c_str(username, "username")?;
    let p = c_str(password, "password")?;
    h.cluster().set_sasl_credentials(u, p);
    Ok(())
}
