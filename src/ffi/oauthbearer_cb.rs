//! The SASL/OAUTHBEARER token refresh callback of a C configuration, as
//! librdkafka's `rd_kafka_conf_set_oauthbearer_token_refresh_cb`, and its
//! installation on the clients made from it (the token calls are in
//! src/ffi/oauthbearer.rs).

use std::ffi::{c_char, c_int, c_void};
use std::ptr;

use super::config::gregor_config;
use super::guard::guard_code;
use super::raw::handle_mut;
use crate::cluster::Cluster;

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
