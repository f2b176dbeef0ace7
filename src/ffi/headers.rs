//! Message headers for producing (`gregor_headers_*`).

use std::ffi::{c_char, c_int};
use std::ptr;

use super::guard::{guard, guard_code};
use super::raw::*;

/// Message headers for producing: an ordered list of (name, value or null).
pub struct gregor_headers {
    pub(crate) inner: Vec<(String, Option<Vec<u8>>)>,
}

// ----- headers -----

/// A new, empty header list. Caller owns it: free with `gregor_headers_free`.
#[no_mangle]
pub extern "C" fn gregor_headers_new() -> *mut gregor_headers {
    guard(ptr::null_mut(), || {
        Box::into_raw(Box::new(gregor_headers { inner: Vec::new() }))
    })
}

/// Appends a header: `name` (UTF-8, NUL-terminated) and `value_len` bytes at
/// `value`, or a null value if `value` is NULL. Copies both. Returns 0 or
/// `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_headers_add(
    headers: *mut gregor_headers,
    name: *const c_char,
    value: *const u8,
    value_len: usize,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let h = handle_mut(headers, "headers")?;
        let name = c_str(name, "name")?;
        let value = bytes(value, value_len, "value")?.map(<[u8]>::to_vec);
        h.inner.push((name.to_string(), value));
        Ok(())
    })
}

/// Frees a header list. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_headers_free(headers: *mut gregor_headers) {
    guard((), || free(headers))
}
