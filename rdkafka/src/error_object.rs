//! The error object, `rd_kafka_error_t` of rdkafka.h: what the
//! transactional, incremental-assignment and admin-option calls return,
//! NULL meaning success.
//!
//! An object is either the caller's, made by the library for one call and
//! freed by `rd_kafka_error_destroy`, or static: the one each
//! not-yet-implemented function returns ([`ErrorObject::not_implemented`]),
//! which must not be NULL since NULL would tell the caller the call
//! succeeded. `rd_kafka_error_destroy` frees only the former.

#![allow(unsafe_code)] // `#[no_mangle]`, and reading the caller's object

use std::ffi::{c_char, c_int, c_void, CStr, CString};

use crate::errors::{rd_kafka_err2name, RESP_ERR__NOT_IMPLEMENTED};
use crate::guard::guard;

/// The text of an error object: static, or made for it.
#[derive(Debug)]
enum Text {
    Static(&'static CStr),
    // Read by `rd_kafka_error_string`; made by the calls implemented later.
    #[allow(dead_code)]
    Owned(CString),
}

/// librdkafka's three flags of an error object.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Flags {
    /// `rd_kafka_error_is_fatal`.
    pub(crate) fatal: bool,
    /// `rd_kafka_error_is_retriable`.
    pub(crate) retriable: bool,
    /// `rd_kafka_error_txn_requires_abort`.
    pub(crate) txn_requires_abort: bool,
}

/// `rd_kafka_error_t`: a code, its text and librdkafka's three flags.
#[derive(Debug)]
pub struct ErrorObject {
    code: c_int,
    text: Text,
    fatal: bool,
    retriable: bool,
    txn_requires_abort: bool,
    /// False for a static object, which `rd_kafka_error_destroy` leaves be.
    owned: bool,
}

impl ErrorObject {
    /// The static `_NOT_IMPLEMENTED` object of a function not implemented
    /// yet, with `text` ("`<function>`: not implemented …").
    pub const fn not_implemented(text: &'static CStr) -> Self {
        ErrorObject {
            code: RESP_ERR__NOT_IMPLEMENTED,
            text: Text::Static(text),
            fatal: false,
            retriable: false,
            txn_requires_abort: false,
            owned: false,
        }
    }

    /// A new object for the caller, who frees it with `rd_kafka_error_destroy`.
    pub(crate) fn boxed(code: c_int, text: &str) -> *mut c_void {
        Self::boxed_with(code, text, Flags::default())
    }

    /// A new object for the caller with librdkafka's three flags (the
    /// transactional calls' errors).
    pub(crate) fn boxed_with(code: c_int, text: &str, flags: Flags) -> *mut c_void {
        let text = crate::raw::c_string(text);
        Box::into_raw(Box::new(ErrorObject {
            code,
            text: Text::Owned(text),
            fatal: flags.fatal,
            retriable: flags.retriable,
            txn_requires_abort: flags.txn_requires_abort,
            owned: true,
        }))
        .cast()
    }

    /// An object a result holds and hands out borrowed (as
    /// `rd_kafka_acl_result_error`): `rd_kafka_error_destroy` leaves it
    /// be, its holder drops it.
    pub(crate) fn held(code: c_int, text: &str) -> Self {
        ErrorObject {
            code,
            text: Text::Owned(crate::raw::c_string(text)),
            fatal: false,
            retriable: false,
            txn_requires_abort: false,
            owned: false,
        }
    }

    /// The pointer C gets for a static object. C only reads through it:
    /// every `rd_kafka_error_*` call but destroy takes it `const`, and
    /// destroy does not free a static object.
    pub fn as_ptr(&'static self) -> *mut c_void {
        (self as *const Self).cast_mut().cast()
    }
}

/// The object behind `error`, or `None` for NULL.
fn object<'a>(error: *const ErrorObject) -> Option<&'a ErrorObject> {
    // SAFETY: a non-NULL `rd_kafka_error_t *` is one this library returned
    // and the caller has not destroyed (rdkafka.h's ownership rules).
    unsafe { error.as_ref() }
}

/// The error's code (`rd_kafka_error_code`); `RD_KAFKA_RESP_ERR_NO_ERROR`
/// for NULL.
#[no_mangle]
pub extern "C" fn rd_kafka_error_code(error: *const ErrorObject) -> c_int {
    guard(0, || object(error).map_or(0, |e| e.code))
}

/// The code's name (`rd_kafka_error_name`, as `rd_kafka_err2name`); "" for
/// NULL.
#[no_mangle]
pub extern "C" fn rd_kafka_error_name(error: *const ErrorObject) -> *const c_char {
    guard(c"".as_ptr(), || {
        object(error).map_or(c"".as_ptr(), |e| rd_kafka_err2name(e.code))
    })
}

/// The error's text (`rd_kafka_error_string`), valid as long as the
/// object; "" for NULL.
#[no_mangle]
pub extern "C" fn rd_kafka_error_string(error: *const ErrorObject) -> *const c_char {
    guard(c"".as_ptr(), || {
        object(error).map_or(c"".as_ptr(), |e| match &e.text {
            Text::Static(t) => t.as_ptr(),
            Text::Owned(t) => t.as_ptr(),
        })
    })
}

/// 1 if the error is fatal to the client (`rd_kafka_error_is_fatal`); 0
/// for NULL.
#[no_mangle]
pub extern "C" fn rd_kafka_error_is_fatal(error: *const ErrorObject) -> c_int {
    guard(0, || object(error).map_or(0, |e| c_int::from(e.fatal)))
}

/// 1 if the call may succeed when retried (`rd_kafka_error_is_retriable`);
/// 0 for NULL.
#[no_mangle]
pub extern "C" fn rd_kafka_error_is_retriable(error: *const ErrorObject) -> c_int {
    guard(0, || object(error).map_or(0, |e| c_int::from(e.retriable)))
}

/// 1 if the current transaction must be aborted
/// (`rd_kafka_error_txn_requires_abort`); 0 for NULL.
#[no_mangle]
pub extern "C" fn rd_kafka_error_txn_requires_abort(error: *const ErrorObject) -> c_int {
    guard(0, || {
        object(error).map_or(0, |e| c_int::from(e.txn_requires_abort))
    })
}

/// Frees an error object the caller owns (`rd_kafka_error_destroy`);
/// nothing for NULL or a static object.
#[no_mangle]
pub extern "C" fn rd_kafka_error_destroy(error: *mut ErrorObject) {
    guard((), || {
        if object(error).is_some_and(|e| e.owned) {
            free(error);
        }
    })
}

/// Frees an owned object.
fn free(error: *mut ErrorObject) {
    // SAFETY: an owned object was made by `Box::into_raw` in
    // `ErrorObject::boxed`, and the caller destroys it once.
    drop(unsafe { Box::from_raw(error) });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(p: *const c_char) -> String {
        // SAFETY: the functions under test return NUL-terminated strings.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }

    #[test]
    fn a_static_object_reads_and_survives_destroy() {
        static E: ErrorObject = ErrorObject::not_implemented(c"f: not implemented");
        let p = E.as_ptr().cast::<ErrorObject>();
        assert_eq!(rd_kafka_error_code(p), -170);
        assert_eq!(text(rd_kafka_error_name(p)), "_NOT_IMPLEMENTED");
        assert_eq!(text(rd_kafka_error_string(p)), "f: not implemented");
        assert_eq!(rd_kafka_error_is_fatal(p), 0);
        rd_kafka_error_destroy(p);
        assert_eq!(rd_kafka_error_code(p), -170);
    }

    #[test]
    fn an_owned_object_is_freed() {
        let p = ErrorObject::boxed(-185, "timed out").cast::<ErrorObject>();
        assert_eq!(text(rd_kafka_error_string(p)), "timed out");
        assert_eq!(text(rd_kafka_error_name(p)), "_TIMED_OUT");
        rd_kafka_error_destroy(p);
    }

    #[test]
    fn null_is_no_error() {
        assert_eq!(rd_kafka_error_code(std::ptr::null()), 0);
        assert_eq!(text(rd_kafka_error_string(std::ptr::null())), "");
        rd_kafka_error_destroy(std::ptr::null_mut());
    }
}
