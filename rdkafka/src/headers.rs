//! Message headers (KIP-82): `rd_kafka_headers_t` of rdkafka.h, an opaque
//! ordered list of (name, value) pairs, a name possibly repeated, a value
//! possibly NULL.
//!
//! Behaviour is librdkafka 2.12.1's, as rdkafka.h documents it and as
//! `rdkafka/tests/lists.c` compares it against the real library:
//!
//! - `header_add`: a `name_size` of -1 means `strlen(name)`, a
//!   `value_size` of -1 `strlen(value)`; a NULL value is a null value (its
//!   size 0). Name and value are copied, each followed by a NUL.
//! - `header_get_last` / `header_get(idx)`: the last / the `idx`-th header
//!   whose name is exactly `name`; `header_get_all(idx)`: the `idx`-th
//!   header; `RD_KAFKA_RESP_ERR__NOENT` when there is none. The pointers
//!   they answer stay valid until that header is removed or the set
//!   destroyed.
//! - `header_remove`: every header named `name`; `RD_KAFKA_RESP_ERR__NOENT`
//!   if none was.
//! - `headers_copy`: a deep copy.
//! - A set the library marks read-only (rdkafka.h: "if the headers are
//!   read-only") refuses `add` and `remove` with
//!   `RD_KAFKA_RESP_ERR__READ_ONLY`; librdkafka 2.12.1 itself marks none,
//!   and neither does anything here yet (`Headers::set_read_only`).
//!
//! Where librdkafka would crash (NULL headers or names) these answer
//! `RD_KAFKA_RESP_ERR__INVALID_ARG`, NOENT, 0 or NULL.
//!
//! For the rest of the crate: `Headers::from_gregor`,
//! `Headers::to_gregor`, `Headers::iter`, `Headers::into_raw` and
//! `Headers::from_raw`.

#![allow(unsafe_code)] // `#[no_mangle]`, and the `access` module's raw pointers

use std::ffi::{c_char, c_int, c_void};
use std::ptr;

use gregor::message::Header as GregorHeader;

use crate::guard::guard;
use crate::raw;

/// `RD_KAFKA_RESP_ERR__NOENT`.
pub const RESP_ERR__NOENT: c_int = -156;
/// `RD_KAFKA_RESP_ERR__READ_ONLY`.
pub const RESP_ERR__READ_ONLY: c_int = -157;
/// `RD_KAFKA_RESP_ERR__INVALID_ARG`.
pub const RESP_ERR__INVALID_ARG: c_int = -186;

/// One header: name, NUL, value, NUL in one allocation, so the pointers
/// handed out stay put while the set's vector moves.
#[derive(Debug, Clone)]
struct Header {
    buf: Box<[u8]>,
    name_len: usize,
    /// `None` for a null value.
    value_len: Option<usize>,
}

impl Header {
    fn new(name: &[u8], value: Option<&[u8]>) -> Self {
        let mut buf = Vec::with_capacity(name.len() + value.map_or(0, <[u8]>::len) + 2);
        buf.extend_from_slice(name);
        buf.push(0);
        if let Some(v) = value {
            buf.extend_from_slice(v);
            buf.push(0);
        }
        Header {
            buf: buf.into_boxed_slice(),
            name_len: name.len(),
            value_len: value.map(<[u8]>::len),
        }
    }

    fn name(&self) -> &[u8] {
        &self.buf[..self.name_len]
    }

    fn value(&self) -> Option<&[u8]> {
        let start = self.name_len + 1;
        self.value_len.map(|n| &self.buf[start..start + n])
    }

    /// The NUL-terminated name.
    fn name_ptr(&self) -> *const c_char {
        self.buf.as_ptr().cast()
    }

    /// The NUL-terminated value, NULL for a null value.
    fn value_ptr(&self) -> *const c_void {
        match self.value_len {
            Some(_) => self.buf[self.name_len + 1..].as_ptr().cast(),
            None => ptr::null(),
        }
    }

    /// The name as C's `strcmp` sees it: up to its first NUL.
    fn c_name(&self) -> &[u8] {
        let name = self.name();
        name.iter()
            .position(|&b| b == 0)
            .map_or(name, |n| &name[..n])
    }
}

/// `rd_kafka_headers_t`.
#[derive(Debug, Clone, Default)]
pub struct Headers {
    list: Vec<Header>,
    read_only: bool,
}

impl Headers {
    /// A set of gregor's headers (a record's), in order.
    #[allow(dead_code)] // for the message functions
    pub(crate) fn from_gregor(headers: &[GregorHeader]) -> Self {
        Headers {
            list: headers
                .iter()
                .map(|h| Header::new(&h.key, h.value.as_deref()))
                .collect(),
            read_only: false,
        }
    }

    /// gregor's headers of this set, in order (to produce them).
    #[allow(dead_code)] // for the producer's functions
    pub(crate) fn to_gregor(&self) -> Vec<GregorHeader> {
        self.iter()
            .map(|(k, v)| GregorHeader {
                key: k.to_vec().into(),
                value: v.map(|v| v.to_vec().into()),
            })
            .collect()
    }

    /// (name, value) of each header, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&[u8], Option<&[u8]>)> {
        self.list.iter().map(|h| (h.name(), h.value()))
    }

    /// The number of headers.
    pub(crate) fn len(&self) -> usize {
        self.list.len()
    }

    /// Marks the set read-only (or not): `add` and `remove` then fail
    /// with `RD_KAFKA_RESP_ERR__READ_ONLY`.
    #[allow(dead_code)] // for the message functions
    pub(crate) fn set_read_only(&mut self, read_only: bool) {
        self.read_only = read_only;
    }

    /// Appends a header.
    pub(crate) fn add(&mut self, name: &[u8], value: Option<&[u8]>) -> c_int {
        if self.read_only {
            return RESP_ERR__READ_ONLY;
        }
        self.list.push(Header::new(name, value));
        0
    }

    /// Removes every header whose name (as `strcmp` reads it) is `name`.
    pub(crate) fn remove(&mut self, name: &[u8]) -> c_int {
        if self.read_only {
            return RESP_ERR__READ_ONLY;
        }
        let before = self.list.len();
        self.list.retain(|h| h.c_name() != name);
        if self.list.len() == before {
            RESP_ERR__NOENT
        } else {
            0
        }
    }

    /// The `idx`-th header named exactly `name`.
    fn get(&self, idx: usize, name: &[u8]) -> Option<&Header> {
        self.list.iter().filter(|h| h.name() == name).nth(idx)
    }

    /// The last header named exactly `name`.
    fn get_last(&self, name: &[u8]) -> Option<&Header> {
        self.list.iter().rev().find(|h| h.name() == name)
    }

    /// Gives the set to C as a `rd_kafka_headers_t *`.
    pub(crate) fn into_raw(self) -> *mut Headers {
        Box::into_raw(Box::new(self))
    }

    /// Takes back a set given to C (NULL is `None`).
    ///
    /// # Safety
    /// `p` is NULL or from [`Headers::into_raw`], not used again.
    #[allow(dead_code)] // for the message functions
    pub(crate) unsafe fn from_raw(p: *mut Headers) -> Option<Self> {
        // SAFETY: the caller's promise above.
        (!p.is_null()).then(|| *unsafe { Box::from_raw(p) })
    }
}

/// Every dereference of the caller's pointers.
mod access {
    use super::*;

    /// The set behind `rd_kafka_headers_t *`; `None` for NULL.
    pub(super) fn headers<'a>(p: *const Headers) -> Option<&'a Headers> {
        // SAFETY: rdkafka.h: a non-NULL `rd_kafka_headers_t *` is a live set
        // (from `rd_kafka_headers_new` / `_copy` or a message's).
        unsafe { p.as_ref() }
    }

    /// As [`headers`], to change it.
    pub(super) fn headers_mut<'a>(p: *mut Headers) -> Option<&'a mut Headers> {
        // SAFETY: as `headers`; not used elsewhere during the call.
        unsafe { p.as_mut() }
    }

    /// Frees a set.
    pub(super) fn destroy(p: *mut Headers) {
        // SAFETY: rdkafka.h: the application destroys its own set once.
        drop(unsafe { Headers::from_raw(p) });
    }

    /// The caller's name: `size` bytes, or up to the NUL for -1.
    pub(super) fn name<'a>(p: *const c_char, size: isize) -> Option<&'a [u8]> {
        match usize::try_from(size) {
            Ok(n) if !p.is_null() => {
                // SAFETY: rdkafka.h: `name` holds `name_size` bytes.
                Some(unsafe { crate::mem::bytes(p.cast(), n) })
            }
            // SAFETY: rdkafka.h: `name` is NUL-terminated for a size of -1.
            _ => unsafe { crate::mem::cstr_bytes(p) },
        }
    }

    /// The caller's value: `size` bytes, up to the NUL for -1; `None` for
    /// NULL.
    pub(super) fn value<'a>(p: *const c_void, size: isize) -> Option<&'a [u8]> {
        if p.is_null() {
            return None;
        }
        match usize::try_from(size) {
            // SAFETY: rdkafka.h: `value` holds `value_size` bytes.
            Ok(n) => Some(unsafe { crate::mem::bytes(p, n) }),
            // SAFETY: rdkafka.h: `value` is NUL-terminated for a size of -1.
            Err(_) => unsafe { crate::mem::cstr_bytes(p.cast()) },
        }
    }
}

/// `rd_kafka_headers_new`: an empty set with room for `initial_count`.
#[no_mangle]
pub extern "C" fn rd_kafka_headers_new(initial_count: usize) -> *mut Headers {
    guard(ptr::null_mut(), || {
        Headers {
            list: Vec::with_capacity(initial_count.min(1024)),
            read_only: false,
        }
        .into_raw()
    })
}

/// `rd_kafka_headers_destroy`; NULL is nothing.
#[no_mangle]
pub extern "C" fn rd_kafka_headers_destroy(hdrs: *mut Headers) {
    guard((), || access::destroy(hdrs))
}

/// `rd_kafka_headers_copy`: a deep copy (writable, as librdkafka's).
#[no_mangle]
pub extern "C" fn rd_kafka_headers_copy(src: *const Headers) -> *mut Headers {
    guard(ptr::null_mut(), || match access::headers(src) {
        Some(h) => Headers {
            list: h.list.clone(),
            read_only: false,
        }
        .into_raw(),
        None => ptr::null_mut(),
    })
}

/// `rd_kafka_header_add`.
#[no_mangle]
pub extern "C" fn rd_kafka_header_add(
    hdrs: *mut Headers,
    name: *const c_char,
    name_size: isize,
    value: *const c_void,
    value_size: isize,
) -> c_int {
    guard(RESP_ERR__INVALID_ARG, || {
        let (Some(h), Some(name)) = (access::headers_mut(hdrs), access::name(name, name_size))
        else {
            return RESP_ERR__INVALID_ARG;
        };
        h.add(name, access::value(value, value_size))
    })
}

/// `rd_kafka_header_remove`.
#[no_mangle]
pub extern "C" fn rd_kafka_header_remove(hdrs: *mut Headers, name: *const c_char) -> c_int {
    guard(RESP_ERR__INVALID_ARG, || {
        let (Some(h), Some(name)) = (access::headers_mut(hdrs), access::name(name, -1)) else {
            return RESP_ERR__INVALID_ARG;
        };
        h.remove(name)
    })
}

/// Answers a header through the caller's out-parameters.
fn answer(
    hdr: Option<&Header>,
    namep: *mut *const c_char,
    valuep: *mut *const c_void,
    sizep: *mut usize,
) -> c_int {
    let Some(hdr) = hdr else {
        return RESP_ERR__NOENT;
    };
    raw::write_out(namep, hdr.name_ptr());
    raw::write_out(valuep, hdr.value_ptr());
    raw::write_out(sizep, hdr.value_len.unwrap_or(0));
    0
}

/// `rd_kafka_header_get_last`.
#[no_mangle]
pub extern "C" fn rd_kafka_header_get_last(
    hdrs: *const Headers,
    name: *const c_char,
    valuep: *mut *const c_void,
    sizep: *mut usize,
) -> c_int {
    guard(RESP_ERR__NOENT, || {
        let (Some(h), Some(name)) = (access::headers(hdrs), access::name(name, -1)) else {
            return RESP_ERR__NOENT;
        };
        answer(h.get_last(name), ptr::null_mut(), valuep, sizep)
    })
}

/// `rd_kafka_header_get`: the `idx`-th header named `name`.
#[no_mangle]
pub extern "C" fn rd_kafka_header_get(
    hdrs: *const Headers,
    idx: usize,
    name: *const c_char,
    valuep: *mut *const c_void,
    sizep: *mut usize,
) -> c_int {
    guard(RESP_ERR__NOENT, || {
        let (Some(h), Some(name)) = (access::headers(hdrs), access::name(name, -1)) else {
            return RESP_ERR__NOENT;
        };
        answer(h.get(idx, name), ptr::null_mut(), valuep, sizep)
    })
}

/// `rd_kafka_header_get_all`: the `idx`-th header.
#[no_mangle]
pub extern "C" fn rd_kafka_header_get_all(
    hdrs: *const Headers,
    idx: usize,
    namep: *mut *const c_char,
    valuep: *mut *const c_void,
    sizep: *mut usize,
) -> c_int {
    guard(RESP_ERR__NOENT, || {
        let hdr = access::headers(hdrs).and_then(|h| h.list.get(idx));
        answer(hdr, namep, valuep, sizep)
    })
}

/// `rd_kafka_header_cnt`; 0 for NULL.
#[no_mangle]
pub extern "C" fn rd_kafka_header_cnt(hdrs: *const Headers) -> usize {
    guard(0, || access::headers(hdrs).map_or(0, Headers::len))
}

#[cfg(test)]
#[path = "headers_tests.rs"]
mod tests;
