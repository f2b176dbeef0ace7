//! Every write through a raw pointer the caller passed (`errstr`, counts,
//! out-parameters), each `unsafe` block saying what librdkafka's
//! documentation (rdkafka.h) makes the caller promise.

#![allow(unsafe_code)]

use std::borrow::Cow;
use std::ffi::{c_char, c_int, c_void, CStr, CString};

use crate::conf::{
    BackgroundEventCb, DrCb, DrMsgCb, ErrorCb, LogCb, QueueEventCb, StatsCb, ThrottleCb,
};
use crate::message::Message;

/// Copies `msg` into the caller's `errstr` of `size` bytes, truncated and
/// always NUL-terminated; nothing for a NULL `errstr` or a size of 0.
pub(crate) fn write_errstr(errstr: *mut c_char, size: usize, msg: &str) {
    if errstr.is_null() || size == 0 {
        return;
    }
    let bytes = msg.as_bytes();
    let n = bytes.len().min(size - 1);
    // SAFETY: rdkafka.h's `errstr, errstr_size` contract: `errstr` points to
    // `errstr_size` writable bytes; n + 1 <= size of them are written.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), errstr.cast::<u8>(), n);
        *errstr.add(n) = 0;
    }
}

/// `text` as a C string for the caller to read, an inner NUL (which C
/// would take for the end) shown as a space.
pub(crate) fn c_string(text: &str) -> CString {
    CString::new(text.replace('\0', " ")).unwrap_or_default()
}

/// Stores `value` in the caller's out-parameter `p`; nothing for NULL.
pub(crate) fn write_out<T>(p: *mut T, value: T) {
    if p.is_null() {
        return;
    }
    // SAFETY: a non-NULL out-parameter points to a writable `T` (rdkafka.h's
    // `cntp`, `errdescs` and the like); `write` does not read the old value.
    unsafe { p.write(value) }
}

/// Reads the caller's in-parameter `p`; `None` for NULL.
pub(crate) fn read_in<T: Copy>(p: *const T) -> Option<T> {
    // SAFETY: a non-NULL in/out parameter (rdkafka.h's `dest_size`) points
    // to a readable `T`.
    unsafe { p.as_ref().copied() }
}

/// The caller's NUL-terminated string `p` (lossily UTF-8); `None` for NULL.
pub(crate) fn read_cstr<'a>(p: *const c_char) -> Option<Cow<'a, str>> {
    if p.is_null() {
        return None;
    }
    // SAFETY: rdkafka.h's `const char *` parameters (names, values, filters)
    // are NUL-terminated strings that outlive the call.
    Some(unsafe { CStr::from_ptr(p) }.to_string_lossy())
}

/// The caller's `len` bytes at `p`; `None` for NULL (a null key or value).
pub(crate) fn read_bytes<'a>(p: *const c_void, len: usize) -> Option<&'a [u8]> {
    if p.is_null() {
        return None;
    }
    if len == 0 {
        return Some(&[]);
    }
    // SAFETY: rdkafka.h's `payload, len` / `key, keylen` pairs: a non-NULL
    // pointer addresses `len` readable bytes for the duration of the call.
    Some(unsafe { std::slice::from_raw_parts(p.cast::<u8>(), len) })
}

/// The caller's array of `cnt` `T`s at `p` (empty for NULL or 0).
pub(crate) fn read_array<'a, T>(p: *const T, cnt: usize) -> &'a [T] {
    if p.is_null() || cnt == 0 {
        return &[];
    }
    // SAFETY: rdkafka.h's `(array, cnt)` parameters (`rd_kafka_produceva`'s
    // `vus, cnt`) address `cnt` initialized elements for the call.
    unsafe { std::slice::from_raw_parts(p, cnt) }
}

/// The caller's writable array of `cnt` `T`s at `p` (empty for NULL or 0).
pub(crate) fn read_array_mut<'a, T>(p: *mut T, cnt: usize) -> &'a mut [T] {
    if p.is_null() || cnt == 0 {
        return &mut [];
    }
    // SAFETY: rdkafka.h's `rd_kafka_produce_batch`: `rkmessages` addresses
    // `message_cnt` initialized messages the library may update (`err`)
    // during the call, which nothing else touches meanwhile.
    unsafe { std::slice::from_raw_parts_mut(p, cnt) }
}

/// A shared reference to a library object C holds a pointer to (the
/// client handle, a topic handle, a message); `None` for NULL.
pub(crate) fn object<'a, T>(p: *const T) -> Option<&'a T> {
    // SAFETY: a non-NULL `rd_kafka_t *`, `rd_kafka_topic_t *`,
    // `rd_kafka_message_t *` or `rd_kafka_metadata_t *` the caller passes is
    // one this library returned and the caller has not destroyed yet
    // (rdkafka.h's lifetime rules); the objects are only read through it,
    // their mutable state sits behind locks and atomics.
    unsafe { p.as_ref() }
}

/// Takes back ownership of an object this library gave C with
/// `Box::into_raw` (`rd_kafka_destroy`, `rd_kafka_metadata_destroy`, the
/// conf `rd_kafka_new` adopts); `None` for NULL.
pub(crate) fn take_box<T>(p: *mut T) -> Option<Box<T>> {
    // SAFETY: a non-NULL `p` came from `Box::into_raw` of a `T` here, and
    // rdkafka.h's ownership rules give it back exactly once.
    (!p.is_null()).then(|| unsafe { Box::from_raw(p) })
}

extern "C" {
    #[cfg(target_os = "linux")]
    fn __errno_location() -> *mut c_int;
    fn write(fd: c_int, buf: *const c_void, count: usize) -> isize;
}

/// Writes `bytes` to the application's file descriptor `fd` once, its
/// result ignored (`rd_kafka_queue_io_event_enable`: a full pipe means a
/// wakeup is pending already, as librdkafka ignores it too).
pub(crate) fn write_fd(fd: c_int, bytes: &[u8]) {
    // SAFETY: `write(2)` reads `bytes.len()` bytes of a live slice; `fd`
    // is the descriptor the application gave for the queue's io events
    // (rdkafka.h: it stays open while enabled).
    let _ = unsafe { write(fd, bytes.as_ptr().cast(), bytes.len()) };
}

/// Runs the application's queue event callback
/// (`rd_kafka_queue_cb_event_enable`) with the handle and its opaque.
pub(crate) fn call_queue_event(cb: QueueEventCb, rk: usize, opaque: usize) {
    // SAFETY: `cb` is the function the application gave
    // `rd_kafka_queue_cb_event_enable`, called with its documented
    // arguments: the client handle and the opaque given with it.
    unsafe { cb(rk as *mut c_void, opaque as *mut c_void) }
}

/// Frees a payload the caller gave with `RD_KAFKA_MSG_F_FREE`, as
/// librdkafka does with the C library's `free`.
pub(crate) fn free_payload(p: *mut c_void) {
    // SAFETY: with `RD_KAFKA_MSG_F_FREE` rdkafka.h says the payload was
    // allocated with malloc and its ownership passes to the library once
    // the produce call succeeds; it is freed exactly once, here.
    unsafe { crate::mem::free(p) }
}

/// The C library's `free` of memory the library or the application got
/// from `malloc` (`rd_kafka_mem_free`); nothing for NULL.
pub(crate) fn c_free(p: *mut c_void) {
    // SAFETY: rdkafka.h's `rd_kafka_mem_free` contract: `p` is NULL or
    // memory the library allocated for the application (a statistics JSON
    // the stats callback kept, `rd_kafka_mem_malloc`), freed once.
    unsafe { crate::mem::free(p) }
}

/// A malloc'ed, NUL-terminated copy of `text` (NULL if memory ran out),
/// for C to own.
pub(crate) fn c_strdup(text: &str) -> *mut c_char {
    crate::mem::try_strdup_bytes(text.as_bytes())
}

/// Sets the thread's `errno`, which the legacy calls (`rd_kafka_produce`,
/// `rd_kafka_topic_new`) set beside `rd_kafka_last_error` (rdkafka.h names
/// the errno values of each failure).
pub(crate) fn set_errno(value: c_int) {
    #[cfg(target_os = "linux")]
    // SAFETY: glibc's and musl's `__errno_location` returns the calling
    // thread's own `errno`, valid for the thread's life.
    unsafe {
        *__errno_location() = value;
    }
    #[cfg(not(target_os = "linux"))]
    let _ = value;
}

/// Runs the application's `dr_msg_cb` with a delivery report.
pub(crate) fn call_dr_msg(cb: DrMsgCb, rk: usize, msg: &Message, opaque: usize) {
    // SAFETY: `cb` is the function the application registered with
    // `rd_kafka_conf_set_dr_msg_cb`, called with its documented arguments:
    // the client handle, a message valid for the call, the conf's opaque.
    unsafe {
        cb(
            rk as *mut c_void,
            (msg as *const Message).cast(),
            opaque as *mut c_void,
        )
    }
}

/// Runs the application's (deprecated) `dr_cb` with a delivery report.
pub(crate) fn call_dr(cb: DrCb, rk: usize, msg: &Message, opaque: usize) {
    // SAFETY: `cb` is the application's `rd_kafka_conf_set_dr_cb`
    // function, called with its documented arguments (payload and length
    // valid for the call, the conf's and the message's opaques).
    unsafe {
        cb(
            rk as *mut c_void,
            msg.c.payload,
            msg.c.len,
            msg.c.err,
            opaque as *mut c_void,
            msg.c.private,
        )
    }
}

/// Runs the application's `log_cb`.
pub(crate) fn call_log(cb: LogCb, rk: usize, level: c_int, fac: &CStr, buf: &CStr) {
    // SAFETY: `cb` is the application's `rd_kafka_conf_set_log_cb`
    // function; `fac` and `buf` are NUL-terminated and valid for the call,
    // `rk` is the live handle or NULL.
    unsafe { cb(rk as *const c_void, level, fac.as_ptr(), buf.as_ptr()) }
}

/// Runs the application's `stats_cb` with a malloc'ed JSON document of
/// `len` bytes; its answer (1: the application keeps `json`).
pub(crate) fn call_stats(
    cb: StatsCb,
    rk: usize,
    json: *mut c_char,
    len: usize,
    opaque: usize,
) -> c_int {
    // SAFETY: `cb` is the application's `rd_kafka_conf_set_stats_cb`
    // function, called with its documented arguments: `json` is a
    // NUL-terminated, malloc'ed buffer of `len` bytes before the NUL.
    unsafe { cb(rk as *mut c_void, json, len, opaque as *mut c_void) }
}

/// Runs the application's `throttle_cb`.
pub(crate) fn call_throttle(
    cb: ThrottleCb,
    rk: usize,
    broker: &CStr,
    id: i32,
    ms: c_int,
    opaque: usize,
) {
    // SAFETY: `cb` is the application's `rd_kafka_conf_set_throttle_cb`
    // function; `broker` is NUL-terminated and valid for the call.
    unsafe {
        cb(
            rk as *mut c_void,
            broker.as_ptr(),
            id,
            ms,
            opaque as *mut c_void,
        )
    }
}

/// Runs the application's `background_event_cb` with an event it then
/// owns (rdkafka.h: the application destroys it).
pub(crate) fn call_background_event(cb: BackgroundEventCb, rk: usize, ev: usize, opaque: usize) {
    // SAFETY: `cb` is the application's `rd_kafka_conf_set_background_event_cb`
    // function, called with the live handle, an event made by
    // `Box::into_raw` that passes to the application, and the conf's opaque.
    unsafe { cb(rk as *mut c_void, ev as *mut c_void, opaque as *mut c_void) }
}

/// Runs the application's `oauthbearer_token_refresh_cb`.
pub(crate) fn call_oauthbearer_refresh(
    cb: crate::conf::OauthbearerRefreshCb,
    rk: usize,
    config: &CStr,
    opaque: usize,
) {
    // SAFETY: `cb` is the application's
    // `rd_kafka_conf_set_oauthbearer_token_refresh_cb` function, called with
    // the live handle, `sasl.oauthbearer.config` (NUL-terminated, valid for
    // the call) and the conf's opaque.
    unsafe { cb(rk as *mut c_void, config.as_ptr(), opaque as *mut c_void) }
}

/// Runs the application's `error_cb`.
pub(crate) fn call_error(cb: ErrorCb, rk: usize, err: c_int, reason: &CStr, opaque: usize) {
    // SAFETY: `cb` is the application's `rd_kafka_conf_set_error_cb`
    // function; `reason` is NUL-terminated and valid for the call.
    unsafe {
        cb(
            rk as *mut c_void,
            err,
            reason.as_ptr(),
            opaque as *mut c_void,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errstr_is_truncated_and_terminated() {
        let mut buf = [b'x' as c_char; 8];
        write_errstr(buf.as_mut_ptr(), 4, "hello");
        assert_eq!(&buf[..5], &[b'h', b'e', b'l', 0, b'x'].map(|b| b as c_char));
        write_errstr(buf.as_mut_ptr(), 0, "untouched");
        write_errstr(std::ptr::null_mut(), 8, "nowhere");
        assert_eq!(buf[0], b'h' as c_char);
    }

    #[test]
    fn out_parameters_skip_null() {
        let mut n = 5usize;
        write_out(&mut n, 0);
        assert_eq!(n, 0);
        write_out(std::ptr::null_mut::<usize>(), 1);
    }
}
