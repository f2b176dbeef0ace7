//! The few helpers every export goes through: the panic guard, NULL-checked
//! pointer conversion, C strings in and error text out.

use std::ffi::{c_char, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::error::{local, Error};

/// Runs `f`, turning a panic into `on_panic` (no panic may unwind into C).
pub(crate) fn guard<T>(on_panic: T, f: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(on_panic)
}

/// Runs `f`, which returns an error code, writing any error's text to `errstr`.
pub(crate) fn guard_code(
    errstr: *mut c_char,
    errstr_size: usize,
    f: impl FnOnce() -> Result<(), Error>,
) -> i32 {
    let (r, overlapped) = super::lifetime::overlap_scope(|| catch_unwind(AssertUnwindSafe(f)));
    // A call that was still running when its handle's `_free` began ends
    // with `_DESTROY`, whatever it got (the handle is gone for the caller).
    let r = match r {
        Ok(_) if overlapped => Ok(Err(Error::local(
            local::DESTROY,
            "handle destroyed during the call",
        ))),
        r => r,
    };
    match r {
        Ok(Ok(())) => {
            write_errstr(errstr, errstr_size, "");
            0
        }
        Ok(Err(e)) => {
            write_errstr(errstr, errstr_size, &e.to_string());
            e.code()
        }
        Err(_) => {
            write_errstr(
                errstr,
                errstr_size,
                "internal error: gregor panicked (this is a bug)",
            );
            local::FAIL
        }
    }
}

/// Copies `msg` into a caller-owned buffer, truncating, always NUL-terminated.
pub(crate) fn write_errstr(errstr: *mut c_char, size: usize, msg: &str) {
    if errstr.is_null() || size == 0 {
        return;
    }
    let bytes = msg.as_bytes();
    let n = bytes.len().min(size - 1);
    // SAFETY: the caller promises `errstr` points to `size` writable bytes;
    // we write n + 1 <= size of them.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), errstr.cast::<u8>(), n);
        *errstr.add(n) = 0;
    }
}

/// A NULL-argument error.
pub(crate) fn null_arg(name: &str) -> Error {
    Error::invalid_arg(format!("{name} is NULL"))
}

/// Borrows a C string as UTF-8.
pub(crate) fn c_str<'a>(p: *const c_char, name: &str) -> Result<&'a str, Error> {
    if p.is_null() {
        return Err(null_arg(name));
    }
    // SAFETY: non-NULL, and the caller promises a NUL-terminated string that
    // outlives this call.
    unsafe { CStr::from_ptr(p) }
        .to_str()
        .map_err(|_| Error::invalid_arg(format!("{name} is not UTF-8")))
}

/// Borrows a handle.
pub(crate) fn handle<'a, T>(p: *const T, name: &str) -> Result<&'a T, Error> {
    // SAFETY: the caller promises a pointer gregor returned and has not freed.
    unsafe { p.as_ref() }.ok_or_else(|| null_arg(name))
}

/// Borrows a handle mutably.
pub(crate) fn handle_mut<'a, T>(p: *mut T, name: &str) -> Result<&'a mut T, Error> {
    // SAFETY: as `handle`, and the caller promises no concurrent use.
    unsafe { p.as_mut() }.ok_or_else(|| null_arg(name))
}

/// Borrows `len` bytes at `p`; NULL means "no value" (a null key or value).
pub(crate) fn bytes<'a>(p: *const u8, len: usize) -> Option<&'a [u8]> {
    if p.is_null() {
        return None;
    }
    // SAFETY: the caller promises `len` readable bytes at a non-NULL `p`.
    Some(unsafe { std::slice::from_raw_parts(p, len) })
}

/// Writes an out-parameter if its pointer is not NULL.
pub(crate) fn put<T>(out: *mut T, v: T) {
    if !out.is_null() {
        // SAFETY: the caller promises `out` is valid for a write of T.
        unsafe { out.write(v) }
    }
}

/// Takes back a boxed handle for freeing (NULL is fine).
pub(crate) fn free<T>(p: *mut T) {
    if !p.is_null() {
        // SAFETY: `p` came from `Box::into_raw` in gregor and is freed once.
        drop(unsafe { Box::from_raw(p) });
    }
}

/// A `'static` C string for a Rust string literal with a NUL at its end.
pub(crate) fn static_cstr(s: &'static CStr) -> *const c_char {
    s.as_ptr()
}

/// Reads a value through a non-NULL pointer.
pub(crate) fn get<T: Copy>(p: *const T, name: &str) -> Result<T, Error> {
    // SAFETY: the caller promises a valid, initialized T at a non-NULL `p`.
    unsafe { p.as_ref() }.copied().ok_or_else(|| null_arg(name))
}

/// Copies `src` to `n` = `src.len()` elements at `out` (nothing if NULL).
pub(crate) fn copy_out<T: Copy>(src: &[T], out: *mut T) {
    if !out.is_null() {
        // SAFETY: the caller promises room for `src.len()` elements at `out`.
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), out, src.len()) };
    }
}
