//! Every helper that touches a raw pointer, a C string or a C timeout: the
//! only place where the C API's pointers become Rust references, slices and
//! strings (each `unsafe` block states what the caller promises), and the
//! one timeout rule of every blocking call.

// Some helpers serve only the admin or ZooKeeper families: unused when a
// build leaves those Cargo features out.
#![cfg_attr(not(all(feature = "admin", feature = "zookeeper")), allow(dead_code))]

use std::ffi::{c_char, c_int, CStr, CString};
use std::ptr;
use std::time::Duration;

use crate::error::Error;

/// A borrowed view of bytes owned by gregor: `ptr` is NULL for a null
/// key/value, else `len` bytes valid as long as the object it came from.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct gregor_slice {
    /// First byte, or NULL for null.
    pub ptr: *const u8,
    /// Number of bytes.
    pub len: usize,
}

impl gregor_slice {
    pub(crate) fn of(b: Option<&[u8]>) -> Self {
        match b {
            Some(b) => gregor_slice {
                ptr: b.as_ptr(),
                len: b.len(),
            },
            None => gregor_slice {
                ptr: ptr::null(),
                len: 0,
            },
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

/// Fails when `n` elements of `T` span more than `isize::MAX` bytes: no
/// object can be that large, and `slice::from_raw_parts` on such a length is
/// undefined behaviour (its documented safety requirement), so a length past
/// it is refused before any slice is formed.
pub(crate) fn check_len<T>(n: usize, name: &str) -> Result<(), Error> {
    if n.checked_mul(std::mem::size_of::<T>().max(1))
        .is_some_and(|b| b <= isize::MAX as usize)
    {
        Ok(())
    } else {
        Err(Error::invalid_arg(format!(
            "{name}: length {n} is larger than any object can be"
        )))
    }
}

/// Borrows `len` bytes at `p`; NULL means "no value" (a null key or value,
/// `len` ignored). A length no object can have is an error (`check_len`).
pub(crate) fn bytes<'a>(p: *const u8, len: usize, name: &str) -> Result<Option<&'a [u8]>, Error> {
    if p.is_null() {
        return Ok(None);
    }
    check_len::<u8>(len, name)?;
    // SAFETY: the caller promises `len` readable bytes at a non-NULL `p`;
    // `len` is within `isize::MAX` (checked above).
    Ok(Some(unsafe { std::slice::from_raw_parts(p, len) }))
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
pub(crate) fn read<T: Copy>(p: *const T, name: &str) -> Result<T, Error> {
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

/// Borrows `n` elements at `p` (NULL is fine when `n` is 0).
pub(crate) fn slice<'a, T>(p: *const T, n: usize, name: &str) -> Result<&'a [T], Error> {
    if n == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(null_arg(name));
    }
    check_len::<T>(n, name)?;
    // SAFETY: the caller promises `n` readable elements at a non-NULL `p`,
    // valid for this call; they span at most `isize::MAX` bytes (checked).
    Ok(unsafe { std::slice::from_raw_parts(p, n) })
}

/// Borrows `n` C strings at `p` as UTF-8 (NULL is fine when `n` is 0).
pub(crate) fn c_strs<'a>(
    p: *const *const c_char,
    n: usize,
    name: &str,
) -> Result<Vec<&'a str>, Error> {
    slice(p, n, name)?.iter().map(|s| c_str(*s, name)).collect()
}

/// Borrows `n` handles at `p` (NULL is fine when `n` is 0; no element may be NULL).
pub(crate) fn handles<'a, T>(
    p: *const *const T,
    n: usize,
    name: &str,
) -> Result<Vec<&'a T>, Error> {
    slice(p, n, name)?
        .iter()
        .map(|h| handle(*h, name))
        .collect()
}

/// Borrows an optional C string (NULL: `None`) as UTF-8.
pub(crate) fn opt_c_str<'a>(p: *const c_char, name: &str) -> Result<Option<&'a str>, Error> {
    if p.is_null() {
        Ok(None)
    } else {
        c_str(p, name).map(Some)
    }
}

/// A C string of `s` (an interior NUL, which C cannot show, is dropped).
pub(crate) fn cs(s: &str) -> CString {
    CString::new(s.replace('\0', "")).unwrap_or_default()
}

/// As `cs`, for an optional string.
pub(crate) fn cso(s: Option<&str>) -> Option<CString> {
    s.map(cs)
}

/// The pointer to hand out for an optional C string: NULL for `None`.
pub(crate) fn cptr(c: &Option<CString>) -> *const c_char {
    c.as_ref().map_or(ptr::null(), |c| c.as_ptr())
}

/// Boxes `v` and stores it in the out-parameter `out` (the caller frees it
/// with the object's `_free`).
pub(crate) fn store<T>(out: *mut *mut T, v: T) {
    put(out, Box::into_raw(Box::new(v)));
}

/// Fails with `GREGOR_ERR__INVALID_ARG` for a NULL out-parameter.
pub(crate) fn need_out<T>(out: *mut *mut T) -> Result<(), Error> {
    if out.is_null() {
        Err(null_arg("out"))
    } else {
        Ok(())
    }
}

/// Copies up to `max` of `ids` into `out`; returns how many there are.
pub(crate) fn copy_ids(ids: &[i32], out: *mut i32, max: usize) -> usize {
    copy_out(&ids[..ids.len().min(max)], out);
    ids.len()
}

/// Frees an array of C strings that gregor made as a `Box<[*mut c_char]>`
/// of exactly `cnt` entries, each NULL or from `CString::into_raw`
/// (`gregor_config_dump`'s). NULL `arr` is a no-op.
pub(crate) fn free_c_str_array(arr: *mut *mut c_char, cnt: usize) {
    if arr.is_null() {
        return;
    }
    // SAFETY: the caller passes an array and count that gregor returned
    // together (gregor_config_dump), made as described above.
    unsafe {
        let slice: Box<[*mut c_char]> = Box::from_raw(ptr::slice_from_raw_parts_mut(arr, cnt));
        for s in slice.iter() {
            if !s.is_null() {
                drop(CString::from_raw(*s));
            }
        }
    }
}

// ----- timeouts -----

/// What a negative timeout waits: librdkafka's `-1` (`RD_POLL_INFINITE`),
/// "wait forever". A finite value (about 136 years) so that deadlines
/// (`Instant + timeout`) never overflow.
pub(crate) const FOREVER: Duration = Duration::from_secs(u32::MAX as u64);

/// The one timeout rule of every blocking C call, as librdkafka's: a
/// negative `timeout_ms` waits forever (`-1`, `RD_POLL_INFINITE`), 0 does
/// not block (answers from what is at hand, or times out at once), a
/// positive value waits up to that many milliseconds.
pub(crate) fn timeout(timeout_ms: c_int) -> Duration {
    timeout64(i64::from(timeout_ms))
}

/// As `timeout`, for a 64-bit millisecond count.
pub(crate) fn timeout64(timeout_ms: i64) -> Duration {
    u64::try_from(timeout_ms).map_or(FOREVER, |ms| Duration::from_millis(ms).min(FOREVER))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negative_waits_forever_zero_does_not_block() {
        assert_eq!(timeout(-1), FOREVER);
        assert_eq!(timeout(i32::MIN), FOREVER);
        assert_eq!(timeout(0), Duration::ZERO);
        assert_eq!(timeout(1500), Duration::from_millis(1500));
        assert_eq!(timeout64(i64::MAX), FOREVER);
        // A deadline that far ahead is representable.
        assert!(std::time::Instant::now().checked_add(FOREVER).is_some());
    }
}
