//! Configuration objects (`gregor_config_*`): librdkafka-named properties,
//! copied by the clients made from them.

use std::ffi::{c_char, c_int, CString};
use std::ptr;

use super::guard::{guard, guard_code};
use super::raw::*;
use crate::config::Config;
use crate::error::Error;

/// Configuration properties (librdkafka's names). Not thread-safe.
pub struct gregor_config {
    pub(crate) inner: Config,
    /// `gregor_config_set_oauthbearer_token_refresh_cb`: the callback and
    /// its opaque (src/ffi/oauthbearer.rs).
    pub(crate) oauthbearer_cb: Option<(OAuthBearerRefreshFn, usize)>,
}

/// The C token refresh callback (src/ffi/oauthbearer.rs).
pub(crate) type OAuthBearerRefreshFn =
    extern "C" fn(*mut std::ffi::c_void, *const c_char, *mut std::ffi::c_void);

// ----- configuration -----

/// A new, empty configuration (every property at its default). Caller owns
/// it: free with `gregor_config_free`. Returns NULL only on allocation failure.
#[no_mangle]
pub extern "C" fn gregor_config_new() -> *mut gregor_config {
    guard(ptr::null_mut(), || {
        Box::into_raw(Box::new(gregor_config {
            inner: Config::new(),
            oauthbearer_cb: None,
        }))
    })
}

/// Sets property `key` to `value`. Returns 0, or `GREGOR_ERR__INVALID_CONFIG`
/// (-145) for an unknown property or a bad value, with the reason in
/// `errstr`; `GREGOR_ERR__INVALID_ARG` for NULL arguments. Borrows all
/// arguments. Not thread-safe for one `conf`.
#[no_mangle]
pub extern "C" fn gregor_config_set(
    conf: *mut gregor_config,
    key: *const c_char,
    value: *const c_char,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let conf = handle_mut(conf, "conf")?;
        let key = c_str(key, "key")?;
        let value = c_str(value, "value")?;
        conf.inner.set(key, value).map(|_| ())
    })
}

/// Copies the value of property `key` (or its default) into `dest`, a buffer
/// of `*dest_size` bytes, NUL-terminated; sets `*dest_size` to the size needed
/// (value length + 1). Returns 0, `GREGOR_ERR__INVALID_CONFIG` for an unknown
/// property, `GREGOR_ERR__INVALID_ARG` for NULL `conf`/`key`/`dest_size`.
/// `dest` may be NULL to ask for the size.
#[no_mangle]
pub extern "C" fn gregor_config_get(
    conf: *const gregor_config,
    key: *const c_char,
    dest: *mut c_char,
    dest_size: *mut usize,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let conf = handle(conf, "conf")?;
        let key = c_str(key, "key")?;
        let v = conf.inner.get(key).ok_or_else(|| Error::Config {
            key: key.to_string(),
            reason: "no such configuration property".into(),
        })?;
        let size = read(dest_size, "dest_size")?;
        write_errstr(dest, size, v);
        put(dest_size, v.len() + 1);
        Ok(())
    })
}

/// Frees a configuration. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_config_free(conf: *mut gregor_config) {
    guard((), || free(conf))
}

// ----- dump (librdkafka's rd_kafka_conf_dump / _dump_free) -----

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
