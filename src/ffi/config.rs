//! Configuration objects (`gregor_config_*`): librdkafka-named properties,
//! copied by the clients made from them.

use std::ffi::{c_char, c_int};
use std::ptr;

use super::guard::{guard, guard_code};
use super::raw::*;
use crate::config::Config;
use crate::error::Error;

/// Configuration properties (librdkafka's names). Not thread-safe.
pub struct gregor_config {
    pub(crate) inner: Config,
}

// ----- configuration -----

/// A new, empty configuration (every property at its default). Caller owns
/// it: free with `gregor_config_free`. Returns NULL only on allocation failure.
#[no_mangle]
pub extern "C" fn gregor_config_new() -> *mut gregor_config {
    guard(ptr::null_mut(), || {
        Box::into_raw(Box::new(gregor_config {
            inner: Config::new(),
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
