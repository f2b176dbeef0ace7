//! Log callbacks in C: librdkafka's `rd_kafka_conf_set_log_cb` on a
//! `gregor_config`, so every client made from it (and the lines it writes
//! while it is being created) reaches the callback instead of stderr.
//!
//! Which thread calls it: by default the thread that logs, which is one of
//! gregor's own threads (a broker connection's I/O thread, the producer's
//! sender, the consumer's fetch or group thread) as often as the
//! application's; the callback must be thread-safe and must not call back
//! into the client. With `log.queue=true` lines wait in the client (at most
//! 10,000; later ones are counted and reported) and the callback runs inside
//! `gregor_producer_poll` / `gregor_producer_flush` / `gregor_consumer_poll` /
//! `gregor_consumer_close` on the calling thread, as librdkafka's log queue
//! forwarded to the main queue does.

use std::ffi::{c_char, c_int, c_void, CString};

use super::config::gregor_config;
use super::guard::guard_code;
use crate::error::Error;
use crate::log::LogCallback;

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
