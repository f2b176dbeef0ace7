//! The error object in C, `gregor_error_t` (librdkafka's `rd_kafka_error_t`):
//! returned by the `gregor_producer_txn_*` calls with librdkafka's
//! retriable / fatal / abortable flags.

use std::ffi::{c_char, c_int, CString};

use super::client::cstring;
use super::guard::guard;
use super::raw::handle;
use crate::error::Error;

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
    pub(crate) fn new(
        e: &Error,
        retriable: bool,
        fatal: bool,
        txn_requires_abort: bool,
    ) -> *mut Self {
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
