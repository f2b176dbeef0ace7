//! librdkafka's allocator: the C heap (`malloc`, `calloc`, `realloc`,
//! `free`), both for `rd_kafka_mem_malloc` / `_calloc` / `_free` and for
//! every piece of a plain-data object that C code may allocate or free on
//! its side. rdkafka.h lets the application put its own `malloc`ed
//! `metadata` into a `rd_kafka_topic_partition_t` that the library frees
//! with the list, and tells it to free with `rd_kafka_mem_free` what the
//! library allocated for it; so those objects must live on the C heap, not
//! on Rust's allocator.
//!
//! Every raw allocation of the crate goes through the helpers here, each
//! `unsafe` block saying what makes it sound.

#![allow(unsafe_code)] // the C heap, and `#[no_mangle]`

use std::ffi::{c_char, c_void, CStr};
use std::ptr;

use crate::guard::guard;

mod c {
    use std::ffi::c_void;

    extern "C" {
        pub fn malloc(size: usize) -> *mut c_void;
        pub fn calloc(num: usize, size: usize) -> *mut c_void;
        pub fn realloc(p: *mut c_void, size: usize) -> *mut c_void;
        pub fn free(p: *mut c_void);
    }
}

/// `size` bytes of the C heap, uninitialized; NULL if the heap is out of
/// memory (or for a size of 0, as `malloc` may answer).
pub(crate) fn malloc(size: usize) -> *mut c_void {
    // SAFETY: `malloc` has no precondition.
    unsafe { c::malloc(size) }
}

/// `num * size` zeroed bytes of the C heap; NULL if the product overflows
/// or the heap is out of memory.
pub(crate) fn calloc(num: usize, size: usize) -> *mut c_void {
    // SAFETY: `calloc` has no precondition (it checks the product itself).
    unsafe { c::calloc(num, size) }
}

/// Resizes `p` (NULL or a block of this heap) to `size` bytes; NULL (with
/// `p` untouched) if the heap is out of memory.
///
/// # Safety
/// `p` is NULL or a live block from [`malloc`], [`calloc`], [`realloc`] or
/// C's own allocator, not used again unless NULL is returned.
pub(crate) unsafe fn realloc(p: *mut c_void, size: usize) -> *mut c_void {
    // SAFETY: the caller's promise above is `realloc`'s precondition.
    unsafe { c::realloc(p, size) }
}

/// Frees `p` (NULL is nothing).
///
/// # Safety
/// `p` is NULL or a live block of the C heap, not used again.
pub(crate) unsafe fn free(p: *mut c_void) {
    // SAFETY: the caller's promise above is `free`'s precondition.
    unsafe { c::free(p) }
}

/// A zeroed `T` on the C heap; aborts (as librdkafka's `rd_calloc` does)
/// when the heap is out of memory. `T` must be valid all-zero: the
/// plain-data structs of rdkafka.h (integers and pointers) are.
pub(crate) fn alloc_zeroed<T>() -> *mut T {
    let p = calloc(1, std::mem::size_of::<T>().max(1)).cast::<T>();
    if p.is_null() {
        std::alloc::handle_alloc_error(std::alloc::Layout::new::<T>());
    }
    p
}

/// `bytes` and a NUL on the C heap, as C's `strndup` of them; NULL when
/// the heap is out of memory.
pub(crate) fn try_strdup_bytes(bytes: &[u8]) -> *mut c_char {
    let p = malloc(bytes.len() + 1).cast::<u8>();
    if !p.is_null() {
        // SAFETY: `p` is a fresh block of `len + 1` bytes, distinct from `bytes`.
        unsafe {
            ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len());
            *p.add(bytes.len()) = 0;
        }
    }
    p.cast()
}

/// [`try_strdup_bytes`], aborting when the heap is out of memory.
pub(crate) fn strdup_bytes(bytes: &[u8]) -> *mut c_char {
    let p = try_strdup_bytes(bytes);
    if p.is_null() {
        std::alloc::handle_alloc_error(
            std::alloc::Layout::array::<u8>(bytes.len() + 1).expect("a string's layout"),
        );
    }
    p
}

/// A copy of `bytes` on the C heap (no NUL added); NULL for an empty slice.
pub(crate) fn memdup(bytes: &[u8]) -> *mut c_void {
    if bytes.is_empty() {
        return ptr::null_mut();
    }
    let p = malloc(bytes.len()).cast::<u8>();
    if p.is_null() {
        std::alloc::handle_alloc_error(
            std::alloc::Layout::array::<u8>(bytes.len()).expect("a block's layout"),
        );
    }
    // SAFETY: `p` is a fresh block of `len` bytes, distinct from `bytes`.
    unsafe { ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len()) };
    p.cast()
}

/// The bytes of the NUL-terminated string `p` (without the NUL); `None`
/// for NULL.
///
/// # Safety
/// `p` is NULL or a NUL-terminated string that lives and does not change
/// for `'a`.
pub(crate) unsafe fn cstr_bytes<'a>(p: *const c_char) -> Option<&'a [u8]> {
    // SAFETY: the caller's promise above.
    (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_bytes())
}

/// The `len` bytes at `p`; empty for NULL or 0.
///
/// # Safety
/// `p` is NULL, or `len` readable bytes that live and do not change for
/// `'a`.
pub(crate) unsafe fn bytes<'a>(p: *const c_void, len: usize) -> &'a [u8] {
    if p.is_null() || len == 0 {
        return &[];
    }
    // SAFETY: the caller's promise above.
    unsafe { std::slice::from_raw_parts(p.cast::<u8>(), len) }
}

/// `rd_kafka_mem_malloc`: `size` bytes of the heap `rd_kafka_mem_free`
/// frees (`rk` is not used, as in librdkafka).
#[no_mangle]
pub extern "C" fn rd_kafka_mem_malloc(_rk: *mut c_void, size: usize) -> *mut c_void {
    guard(ptr::null_mut(), || malloc(size))
}

/// `rd_kafka_mem_calloc`: `num * size` zeroed bytes; NULL if that
/// overflows.
#[no_mangle]
pub extern "C" fn rd_kafka_mem_calloc(_rk: *mut c_void, num: usize, size: usize) -> *mut c_void {
    guard(ptr::null_mut(), || calloc(num, size))
}

/// `rd_kafka_mem_free`: frees what the library allocated for the
/// application (rdkafka.h: `rd_kafka_mem_malloc`'s memory, and the
/// buffers functions document to be freed with it); NULL is nothing.
#[no_mangle]
pub extern "C" fn rd_kafka_mem_free(_rk: *mut c_void, p: *mut c_void) {
    guard((), || give_back(p))
}

/// Frees a block the application gives back.
fn give_back(p: *mut c_void) {
    // SAFETY: rdkafka.h: what goes to `rd_kafka_mem_free` is memory the
    // library allocated (on this heap, see the module's documentation),
    // given back once.
    unsafe { free(p) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_and_blocks_round_trip() {
        let s = strdup_bytes(b"topic");
        // SAFETY: `s` was just made and is freed below.
        assert_eq!(unsafe { cstr_bytes(s) }, Some(&b"topic"[..]));
        let m = memdup(b"meta");
        // SAFETY: `m` holds 4 bytes.
        assert_eq!(unsafe { bytes(m, 4) }, b"meta");
        assert!(memdup(b"").is_null());
        rd_kafka_mem_free(ptr::null_mut(), s.cast());
        rd_kafka_mem_free(ptr::null_mut(), m);
        rd_kafka_mem_free(ptr::null_mut(), ptr::null_mut());
    }

    #[test]
    fn calloc_zeroes_and_refuses_overflow() {
        let p = rd_kafka_mem_calloc(ptr::null_mut(), 4, 8).cast::<u64>();
        assert!(!p.is_null());
        // SAFETY: 4 zeroed u64s.
        assert_eq!(unsafe { std::slice::from_raw_parts(p, 4) }, &[0; 4]);
        rd_kafka_mem_free(ptr::null_mut(), p.cast());
        assert!(rd_kafka_mem_calloc(ptr::null_mut(), usize::MAX, 2).is_null());
        let q = rd_kafka_mem_malloc(ptr::null_mut(), 16);
        assert!(!q.is_null());
        rd_kafka_mem_free(ptr::null_mut(), q);
    }
}
