//! `gregor_config_dump`: the effective configuration as name/value pairs,
//! as librdkafka's `rd_kafka_conf_dump` / `rd_kafka_conf_dump_free`.

use std::ffi::{c_char, CString};
use std::ptr;

use super::guard::{guard, handle, put};
use super::handles::gregor_config;

/// The effective configuration of `conf`: every property with its value or
/// default, as an array of `*cntp` strings alternating name and value
/// (`*cntp` is twice the number of properties). Aliases and callbacks are
/// left out; secrets (`sasl.password`, `ssl.key.password`, `ssl.key.pem`,
/// `sasl.oauthbearer.client.secret`, `sasl.oauthbearer.token`, ...) are
/// shown as `[redacted]`, set or not. Free with `gregor_config_dump_free`
/// and the same count. Returns NULL (and leaves `*cntp`) if `conf` or `cntp`
/// is NULL. Borrows `conf`.
#[no_mangle]
pub extern "C" fn gregor_config_dump(
    conf: *const gregor_config,
    cntp: *mut usize,
) -> *mut *mut c_char {
    guard(ptr::null_mut(), || {
        let Ok(conf) = handle(conf, "conf") else {
            return ptr::null_mut();
        };
        if cntp.is_null() {
            return ptr::null_mut();
        }
        let mut out: Vec<*mut c_char> = Vec::new();
        for (name, value) in conf.inner.dump() {
            for s in [name, value.as_str()] {
                // A value set from Rust may hold a NUL; C sees it cut there.
                let s = s.split('\0').next().unwrap_or_default();
                out.push(CString::new(s).unwrap_or_default().into_raw());
            }
        }
        let n = out.len();
        let boxed: Box<[*mut c_char]> = out.into_boxed_slice();
        put(cntp, n);
        Box::into_raw(boxed).cast::<*mut c_char>()
    })
}

/// Frees an array from `gregor_config_dump`; `cnt` is the count it gave.
/// NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_config_dump_free(arr: *mut *mut c_char, cnt: usize) {
    guard((), || {
        if arr.is_null() {
            return;
        }
        // SAFETY: `arr` and `cnt` come from gregor_config_dump, which made
        // the array with Box<[*mut c_char]> of exactly `cnt` entries, each
        // from CString::into_raw.
        unsafe {
            let slice: Box<[*mut c_char]> = Box::from_raw(ptr::slice_from_raw_parts_mut(arr, cnt));
            for s in slice.iter() {
                if !s.is_null() {
                    drop(CString::from_raw(*s));
                }
            }
        }
    })
}
