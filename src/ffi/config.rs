//! Configuration objects (`gregor_config_*`): librdkafka-named properties,
//! copied by the clients made from them, and the callbacks set on a
//! configuration: the log callback (`rd_kafka_conf_set_log_cb`) and the
//! SASL/OAUTHBEARER token refresh callback
//! (`rd_kafka_conf_set_oauthbearer_token_refresh_cb`).

use std::ffi::{c_char, c_int, c_void, CString};
use std::ptr;

use super::guard::{guard, guard_code};
use super::raw::*;
use crate::cluster::Cluster;
use crate::config::Config;
use crate::error::Error;
use crate::log::LogCallback;

/// Configuration properties (librdkafka's names). Not thread-safe.
pub struct gregor_config {
    pub(crate) inner: Config,
    /// `gregor_config_set_oauthbearer_token_refresh_cb`: the callback and
    /// its opaque (the token calls are in src/ffi/client.rs).
    pub(crate) oauthbearer_cb: Option<(OAuthBearerRefreshFn, usize)>,
}

/// The C token refresh callback (see the end of this file).
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
    guard((), || free_c_str_array(arr, cnt))
}

// ----- the SASL/OAUTHBEARER token refresh callback (rd_kafka_conf_set_oauthbearer_token_refresh_cb) -----

/// The token refresh callback: `handle` is the `gregor_producer *`,
/// `gregor_consumer *` or `gregor_admin *` made from the configuration the
/// callback was set on; `oauthbearer_config` is the value of
/// `sasl.oauthbearer.config` (NUL-terminated, borrowed for the call);
/// `opaque` is what was given with the callback. The callback calls
/// `gregor_*_oauthbearer_set_token` or `gregor_*_oauthbearer_set_token_failure`
/// on `handle`.
pub type gregor_oauthbearer_token_refresh_cb = Option<
    extern "C" fn(handle: *mut c_void, oauthbearer_config: *const c_char, opaque: *mut c_void),
>;

/// Sets (or with NULL `cb`, clears) the OAUTHBEARER token refresh callback
/// of the clients made from `conf` afterwards. It runs when a token is
/// needed: at the start and 80 % through the current token's lifetime (10 s
/// after a failure), inside `gregor_producer_poll` / `_flush` /
/// `gregor_consumer_poll` on the polling thread, as librdkafka runs it from
/// `rd_kafka_poll`; on a gregor thread for an admin client (which has no
/// poll) or after `gregor_*_sasl_background_callbacks_enable`. Connections
/// wait for the first token. With it set, the built-in unsecured JWT and
/// OIDC refreshers are not used. Returns 0 or `GREGOR_ERR__INVALID_ARG`
/// (NULL `conf`). Not thread-safe for one `conf`.
#[no_mangle]
pub extern "C" fn gregor_config_set_oauthbearer_token_refresh_cb(
    conf: *mut gregor_config,
    cb: gregor_oauthbearer_token_refresh_cb,
    opaque: *mut c_void,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let conf = handle_mut(conf, "conf")?;
        conf.oauthbearer_cb = cb.map(|cb| (cb, opaque as usize));
        Ok(())
    })
}

/// Installs `conf`'s refresh callback on a new client whose C handle is
/// `handle`; `background` for clients without poll.
pub(crate) fn install(
    conf: &gregor_config,
    cluster: &Cluster,
    handle: *const c_void,
    background: bool,
) {
    #[cfg(feature = "sasl")]
    {
        let Ok(ob) = cluster.oauthbearer() else {
            return;
        };
        if background {
            ob.enable_background_callbacks();
        }
        if let Some((cb, opaque)) = conf.oauthbearer_cb {
            let h = handle as usize;
            ob.set_refresh_callback(Some(Box::new(move |_, config: &str| {
                let c = std::ffi::CString::new(config.replace('\0', "")).unwrap_or_default();
                cb(h as *mut c_void, c.as_ptr(), opaque as *mut c_void);
            })));
        }
    }
    #[cfg(not(feature = "sasl"))]
    let _ = (conf, cluster, handle, background);
}

// ----- log callbacks (rd_kafka_conf_set_log_cb) -----
//
// Log callbacks in C: librdkafka's `rd_kafka_conf_set_log_cb` on a
// `gregor_config`, so every client made from it (and the lines it writes
// while it is being created) reaches the callback instead of stderr.
//
// Which thread calls it: by default the thread that logs, which is one of
// gregor's own threads (a broker connection's I/O thread, the producer's
// sender, the consumer's fetch or group thread) as often as the
// application's; the callback must be thread-safe and must not call back
// into the client. With `log.queue=true` lines wait in the client (at most
// 10,000; later ones are counted and reported) and the callback runs inside
// `gregor_producer_poll` / `gregor_producer_flush` / `gregor_consumer_poll` /
// `gregor_consumer_close` on the calling thread, as librdkafka's log queue
// forwarded to the main queue does.

/// A log callback: `level` is the syslog level (0 emergency … 7 debug),
/// `fac` the facility ("CONNECT", "FAIL", "CGRPSTATE", …), `name` the
/// client's name (`<client.id>#producer-1`; librdkafka's callback gets it
/// from `rd_kafka_name(rk)`), `buf` the message (with the `[thrd:NAME]: `
/// prefix unless `log.thread.name=false`). All strings are NUL-terminated
/// and borrowed: valid only during the call.
pub type gregor_log_cb = Option<
    extern "C" fn(
        opaque: *mut c_void,
        level: c_int,
        fac: *const c_char,
        name: *const c_char,
        buf: *const c_char,
    ),
>;

/// Sets (or with NULL `cb`, clears) the log callback of clients made from
/// `conf` from now on (librdkafka's `rd_kafka_conf_set_log_cb`), lines
/// written while `gregor_*_new` runs included; without one, lines go to
/// stderr in librdkafka's format (`%7|1700000000.123|FAC|name| msg`).
/// Which lines: `log_level` (default 6) and the `debug` contexts.
///
/// Threads: by default the callback runs on the thread that logs, which is
/// often one of gregor's own (a broker connection's I/O thread, the
/// producer's sender, the consumer's fetch and group threads), possibly
/// while the client holds an internal lock: it must be thread-safe, quick,
/// and must not call into the client. With `log.queue=true` lines wait in
/// the client (at most 10,000; later ones are counted and reported) and the
/// callback runs inside `gregor_producer_poll` / `gregor_producer_flush` /
/// `gregor_consumer_poll` / `gregor_consumer_close`, on the calling thread,
/// as librdkafka's log queue forwarded to the main queue. `opaque` is
/// passed back unchanged. Returns 0, or `GREGOR_ERR__INVALID_ARG` for a
/// NULL `conf`.
#[no_mangle]
pub extern "C" fn gregor_config_set_log_cb(
    conf: *mut gregor_config,
    cb: gregor_log_cb,
    opaque: *mut c_void,
) -> c_int {
    guard_code(std::ptr::null_mut(), 0, || {
        let conf = super::raw::handle_mut(conf, "conf")?;
        let cb = cb.map(|cb| {
            let opaque = opaque as usize;
            LogCallback::new(move |level, fac, name, buf| {
                // NUL bytes cannot come from gregor's own text; a message
                // quoting one (a topic name) has it replaced.
                let c = |s: &str| {
                    CString::new(s).unwrap_or_else(|_| {
                        CString::new(s.replace('\0', "\\0")).unwrap_or_default()
                    })
                };
                let (fac, name, buf) = (c(fac), c(name), c(buf));
                cb(
                    opaque as *mut c_void,
                    level,
                    fac.as_ptr(),
                    name.as_ptr(),
                    buf.as_ptr(),
                );
            })
        });
        conf.inner.set_log_callback(cb);
        Ok::<(), Error>(())
    })
}
