//! Every write through a raw pointer the caller passed (`errstr`, counts,
//! out-parameters), each `unsafe` block saying what librdkafka's
//! documentation (rdkafka.h) makes the caller promise.

#![allow(unsafe_code)]

use std::borrow::Cow;
use std::ffi::{c_char, CStr};

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
