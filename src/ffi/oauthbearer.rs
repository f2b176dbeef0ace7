//! SASL/OAUTHBEARER tokens in C, as librdkafka's
//! `rd_kafka_conf_set_oauthbearer_token_refresh_cb`,
//! `rd_kafka_oauthbearer_set_token`, `rd_kafka_oauthbearer_set_token_failure`
//! and `rd_kafka_sasl_background_callbacks_enable` (the Rust side is
//! src/net/sasl/token.rs).

use std::ffi::{c_char, c_int};
use std::ptr;

use super::consumer::gregor_consumer;
use super::guard::guard_code;
use super::lifetime::enter;
use super::producer::gregor_producer;
#[cfg(feature = "sasl")]
use super::raw::{c_str, c_strs, opt_c_str};
use crate::cluster::Cluster;
use crate::error::{local, Error};

#[cfg(feature = "sasl")]
fn set_token(
    cluster: &Cluster,
    token: *const c_char,
    lifetime_ms: i64,
    principal: *const c_char,
    extensions: *const *const c_char,
    extension_size: usize,
) -> Result<(), Error> {
    let ob = cluster.oauthbearer()?;
    let token = c_str(token, "token_value")?;
    let principal = opt_c_str(principal, "md_principal_name")?.unwrap_or("");
    if extension_size % 2 != 0 {
        return Err(Error::local(
            local::INVALID_ARG,
            format!(
                "Incorrect extension size (must be a non-negative multiple of 2): {extension_size}"
            ),
        ));
    }
    let ext = c_strs(extensions, extension_size, "extensions")?;
    let pairs: Vec<(String, String)> = ext
        .chunks(2)
        .map(|kv| (kv[0].to_string(), kv[1].to_string()))
        .collect();
    ob.set_token(token, lifetime_ms, principal, &pairs)
}

#[cfg(not(feature = "sasl"))]
fn set_token(
    _cluster: &Cluster,
    _token: *const c_char,
    _lifetime_ms: i64,
    _principal: *const c_char,
    _extensions: *const *const c_char,
    _extension_size: usize,
) -> Result<(), Error> {
    Err(not_built())
}

#[cfg(not(feature = "sasl"))]
fn not_built() -> Error {
    Error::local(
        local::NOT_IMPLEMENTED,
        "SASL/OAUTHBEARER: built without the sasl feature",
    )
}

fn set_failure(cluster: &Cluster, reason: *const c_char) -> Result<(), Error> {
    #[cfg(feature = "sasl")]
    {
        let ob = cluster.oauthbearer()?;
        let reason = opt_c_str(reason, "errstr")?.unwrap_or("");
        ob.set_token_failure(reason)
    }
    #[cfg(not(feature = "sasl"))]
    {
        let _ = (cluster, reason);
        Err(not_built())
    }
}

fn background(cluster: &Cluster) -> Result<(), Error> {
    #[cfg(feature = "sasl")]
    {
        cluster.oauthbearer()?.enable_background_callbacks();
        Ok(())
    }
    #[cfg(not(feature = "sasl"))]
    {
        let _ = cluster;
        Err(not_built())
    }
}

/// Sets the producer's SASL/OAUTHBEARER token, as librdkafka's
/// `rd_kafka_oauthbearer_set_token`: `token_value` (NUL-terminated,
/// copied), `md_lifetime_ms` when it expires (ms since the epoch),
/// `md_principal_name` (NULL: empty), and `extension_size` strings at
/// `extensions` alternating key and value (RFC 7628 section 3.1: keys
/// 1*ALPHA and not `auth`; values VCHAR, SP, HTAB, CR, LF). Authentications
/// from now on (new connections and KIP-368 re-authentications) use it;
/// connections waiting for a token go on; the next refresh is due 80 %
/// through its lifetime. Returns 0; `GREGOR_ERR__INVALID_ARG` with the
/// reason in `errstr` (never quoting the token) for an expired token, an odd
/// `extension_size`, a malformed key or value; `GREGOR_ERR__STATE` when
/// OAUTHBEARER is not the configured mechanism. Thread-safe; may be called
/// from the refresh callback.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn gregor_producer_oauthbearer_set_token(
    producer: *const gregor_producer,
    token_value: *const c_char,
    md_lifetime_ms: i64,
    md_principal_name: *const c_char,
    extensions: *const *const c_char,
    extension_size: usize,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let p = enter(producer)?;
        set_token(
            p.inner.cluster(),
            token_value,
            md_lifetime_ms,
            md_principal_name,
            extensions,
            extension_size,
        )
    })
}

/// As `gregor_producer_oauthbearer_set_token`, for a consumer.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn gregor_consumer_oauthbearer_set_token(
    consumer: *const gregor_consumer,
    token_value: *const c_char,
    md_lifetime_ms: i64,
    md_principal_name: *const c_char,
    extensions: *const *const c_char,
    extension_size: usize,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let c = enter(consumer)?;
        set_token(
            c.inner.cluster(),
            token_value,
            md_lifetime_ms,
            md_principal_name,
            extensions,
            extension_size,
        )
    })
}

/// Reports that the producer's token could not be had, as librdkafka's
/// `rd_kafka_oauthbearer_set_token_failure`: `errstr` is the reason (a
/// non-empty NUL-terminated string). A token still valid stays in use; the
/// next refresh is 10 s later; an `_AUTHENTICATION` error event carries the
/// reason; connections waiting for a token fail with it. Returns 0,
/// `GREGOR_ERR__INVALID_ARG` (NULL or empty reason) or `GREGOR_ERR__STATE`.
#[no_mangle]
pub extern "C" fn gregor_producer_oauthbearer_set_token_failure(
    producer: *const gregor_producer,
    errstr: *const c_char,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let p = enter(producer)?;
        set_failure(p.inner.cluster(), errstr)
    })
}

/// As `gregor_producer_oauthbearer_set_token_failure`, for a consumer.
#[no_mangle]
pub extern "C" fn gregor_consumer_oauthbearer_set_token_failure(
    consumer: *const gregor_consumer,
    errstr: *const c_char,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let c = enter(consumer)?;
        set_failure(c.inner.cluster(), errstr)
    })
}

/// Runs the producer's token refresh callback on a gregor thread instead
/// of inside poll, as librdkafka's `rd_kafka_sasl_background_callbacks_enable`
/// (for applications that do not poll). Returns 0 or `GREGOR_ERR__STATE`.
#[no_mangle]
pub extern "C" fn gregor_producer_sasl_background_callbacks_enable(
    producer: *const gregor_producer,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let p = enter(producer)?;
        background(p.inner.cluster())
    })
}

/// As `gregor_producer_sasl_background_callbacks_enable`, for a consumer.
#[no_mangle]
pub extern "C" fn gregor_consumer_sasl_background_callbacks_enable(
    consumer: *const gregor_consumer,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let c = enter(consumer)?;
        background(c.inner.cluster())
    })
}

/// As `gregor_producer_oauthbearer_set_token`, for an admin client
/// (`GREGOR_ERR__NOT_IMPLEMENTED` in a build without the `admin` feature).
#[cfg(feature = "admin")]
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn gregor_admin_oauthbearer_set_token(
    admin: *const super::admin::gregor_admin,
    token_value: *const c_char,
    md_lifetime_ms: i64,
    md_principal_name: *const c_char,
    extensions: *const *const c_char,
    extension_size: usize,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        set_token(
            a.inner.cluster(),
            token_value,
            md_lifetime_ms,
            md_principal_name,
            extensions,
            extension_size,
        )
    })
}

/// As `gregor_producer_oauthbearer_set_token_failure`, for an admin client.
#[cfg(feature = "admin")]
#[no_mangle]
pub extern "C" fn gregor_admin_oauthbearer_set_token_failure(
    admin: *const super::admin::gregor_admin,
    errstr: *const c_char,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let a = enter(admin)?;
        set_failure(a.inner.cluster(), errstr)
    })
}

/// cbindgen:ignore
#[cfg(not(feature = "admin"))]
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn gregor_admin_oauthbearer_set_token(
    _admin: *const super::admin::gregor_admin,
    _token_value: *const c_char,
    _md_lifetime_ms: i64,
    _md_principal_name: *const c_char,
    _extensions: *const *const c_char,
    _extension_size: usize,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        Err(Error::local(
            local::NOT_IMPLEMENTED,
            "gregor_admin_oauthbearer_set_token: built without the admin feature",
        ))
    })
}

/// cbindgen:ignore
#[cfg(not(feature = "admin"))]
#[no_mangle]
pub extern "C" fn gregor_admin_oauthbearer_set_token_failure(
    _admin: *const super::admin::gregor_admin,
    _errstr: *const c_char,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        Err(Error::local(
            local::NOT_IMPLEMENTED,
            "gregor_admin_oauthbearer_set_token_failure: built without the admin feature",
        ))
    })
}
