//! `rd_kafka_Uuid_t` of rdkafka.h: a Kafka UUID (topic ids, KIP-516) as
//! its two 64-bit halves, opaque to the application.
//!
//! `rd_kafka_Uuid_base64str` answers the 16 bytes (most significant half
//! first, big-endian) in standard base64 without the padding, 22
//! characters, made on first call and kept with the object, as librdkafka
//! does; `rdkafka/tests/lists.c` compares it with the real library's.

#![allow(unsafe_code)] // `#[no_mangle]`, and the caller's objects

use std::ffi::{c_char, CString};
use std::ptr;
use std::sync::OnceLock;

use crate::guard::guard;

/// `rd_kafka_Uuid_t`.
#[derive(Debug)]
pub struct Uuid {
    msb: i64,
    lsb: i64,
    base64: OnceLock<CString>,
}

impl Uuid {
    /// A UUID of its two halves.
    pub(crate) fn new(msb: i64, lsb: i64) -> Self {
        Uuid {
            msb,
            lsb,
            base64: OnceLock::new(),
        }
    }

    /// The base64 text of its 16 bytes, without padding.
    fn base64(&self) -> &CString {
        self.base64.get_or_init(|| {
            let mut bytes = [0u8; 16];
            bytes[..8].copy_from_slice(&self.msb.to_be_bytes());
            bytes[8..].copy_from_slice(&self.lsb.to_be_bytes());
            CString::new(base64_unpadded(&bytes)).expect("base64 has no NUL")
        })
    }
}

/// Standard base64 (RFC 4648 §4) of `bytes`, without `=` padding.
fn base64_unpadded(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
        }
    }
    out
}

/// The caller's UUID; `None` for NULL.
fn read<'a>(p: *const Uuid) -> Option<&'a Uuid> {
    // SAFETY: rdkafka.h: a non-NULL `rd_kafka_Uuid_t *` is a live UUID
    // (from `rd_kafka_Uuid_new` / `_copy`, or a result's).
    unsafe { p.as_ref() }
}

/// Frees a UUID the application owns.
fn free(p: *mut Uuid) {
    if !p.is_null() {
        // SAFETY: rdkafka.h: `rd_kafka_Uuid_destroy` is given a UUID of
        // `rd_kafka_Uuid_new` / `_copy` (boxed here), once.
        drop(unsafe { Box::from_raw(p) });
    }
}

/// `rd_kafka_Uuid_new`.
#[no_mangle]
pub extern "C" fn rd_kafka_Uuid_new(
    most_significant_bits: i64,
    least_significant_bits: i64,
) -> *mut Uuid {
    guard(ptr::null_mut(), || {
        Box::into_raw(Box::new(Uuid::new(
            most_significant_bits,
            least_significant_bits,
        )))
    })
}

/// `rd_kafka_Uuid_copy`; NULL for NULL.
#[no_mangle]
pub extern "C" fn rd_kafka_Uuid_copy(uuid: *const Uuid) -> *mut Uuid {
    guard(ptr::null_mut(), || match read(uuid) {
        Some(u) => Box::into_raw(Box::new(Uuid::new(u.msb, u.lsb))),
        None => ptr::null_mut(),
    })
}

/// `rd_kafka_Uuid_destroy`; NULL is nothing.
#[no_mangle]
pub extern "C" fn rd_kafka_Uuid_destroy(uuid: *mut Uuid) {
    guard((), || free(uuid))
}

/// `rd_kafka_Uuid_most_significant_bits`.
#[no_mangle]
pub extern "C" fn rd_kafka_Uuid_most_significant_bits(uuid: *const Uuid) -> i64 {
    guard(0, || read(uuid).map_or(0, |u| u.msb))
}

/// `rd_kafka_Uuid_least_significant_bits`.
#[no_mangle]
pub extern "C" fn rd_kafka_Uuid_least_significant_bits(uuid: *const Uuid) -> i64 {
    guard(0, || read(uuid).map_or(0, |u| u.lsb))
}

/// `rd_kafka_Uuid_base64str`: valid while the UUID is.
#[no_mangle]
pub extern "C" fn rd_kafka_Uuid_base64str(uuid: *const Uuid) -> *const c_char {
    guard(ptr::null(), || {
        read(uuid).map_or(ptr::null(), |u| u.base64().as_ptr())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    #[test]
    fn base64_is_rfc_4648_without_padding() {
        assert_eq!(base64_unpadded(b""), "");
        assert_eq!(base64_unpadded(b"f"), "Zg");
        assert_eq!(base64_unpadded(b"fo"), "Zm8");
        assert_eq!(base64_unpadded(b"foo"), "Zm9v");
        assert_eq!(base64_unpadded(b"foob"), "Zm9vYg");
        assert_eq!(base64_unpadded(&[0xff; 16]), "/////////////////////w");
    }

    #[test]
    fn new_copy_bits_base64_destroy() {
        let u = rd_kafka_Uuid_new(1, 2);
        let c = rd_kafka_Uuid_copy(u);
        rd_kafka_Uuid_destroy(u);
        assert_eq!(rd_kafka_Uuid_most_significant_bits(c), 1);
        assert_eq!(rd_kafka_Uuid_least_significant_bits(c), 2);
        // SAFETY: valid while `c` is.
        let s = unsafe { CStr::from_ptr(rd_kafka_Uuid_base64str(c)) };
        assert_eq!(s.to_str().unwrap(), "AAAAAAAAAAEAAAAAAAAAAg");
        rd_kafka_Uuid_destroy(c);
        rd_kafka_Uuid_destroy(ptr::null_mut());
        assert!(rd_kafka_Uuid_copy(ptr::null()).is_null());
    }
}
