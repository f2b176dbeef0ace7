//! SASL at run time (rdkafka.h's SASL section): credentials
//! (`rd_kafka_sasl_set_credentials`), the OAUTHBEARER token an application
//! supplies (`rd_kafka_oauthbearer_set_token`, `_set_token_failure`) and
//! its refresh callback (`rd_kafka_conf_set_oauthbearer_token_refresh_cb`,
//! installed here when a handle is made), and
//! `rd_kafka_sasl_background_callbacks_enable`. Each is gregor's
//! [`gregor::sasl::Sasl`] of the handle's client.
//!
//! As librdkafka's: the refresh callback runs inside `rd_kafka_poll` /
//! `rd_kafka_consumer_poll` on the polling thread, or on a gregor thread
//! once background callbacks are enabled, which needs the SASL queue
//! (`rd_kafka_conf_enable_sasl_queue`) and OAUTHBEARER, or it is
//! `_NOT_CONFIGURED`. `rd_kafka_queue_get_sasl` is not built yet (NULL, as
//! librdkafka's without a SASL queue).

#![allow(unsafe_code)] // `#[no_mangle]`

use std::ffi::{c_char, c_int, c_void};

use gregor::error::{local, Error};
use gregor::sasl::Sasl;

use crate::error_object::ErrorObject;
use crate::guard::guard;
use crate::handle::{Client, Handle};
use crate::headers::RESP_ERR__INVALID_ARG;
use crate::raw;

/// `RD_KAFKA_RESP_ERR__NOT_CONFIGURED`.
const RESP_ERR__NOT_CONFIGURED: c_int = -145;

/// The handle's client's SASL controls.
fn sasl(h: &Handle) -> Sasl<'_> {
    match h.client() {
        Client::Producer(p) => p.sasl(),
        Client::Consumer(c) => c.sasl(),
    }
}

/// The reason alone, as librdkafka writes it into `errstr` (gregor's text
/// starts with the code's name).
fn reason(e: &Error) -> String {
    let text = e.to_string();
    let name = gregor::error::code_name(e.code());
    text.strip_prefix(&format!("{name}: "))
        .map_or_else(|| text.clone(), str::to_string)
}

/// Installs the conf's `oauthbearer_token_refresh_cb` on a new handle
/// (`rk` is its address). Nothing without OAUTHBEARER.
pub(crate) fn install_callbacks(h: &Handle, rk: usize) {
    let Some(cb) = h.conf().callbacks.oauthbearer_token_refresh else {
        return;
    };
    let opaque = h.conf().opaque as usize;
    let s = sasl(h);
    if !s.is_oauthbearer() {
        return;
    }
    let _ = s.set_refresh_callback(Some(Box::new(move |config: &str| {
        let config = raw::c_string(config);
        raw::call_oauthbearer_refresh(cb, rk, &config, opaque);
    })));
}

/// Sets the OAUTHBEARER token (`rd_kafka_oauthbearer_set_token`):
/// `md_lifetime_ms` is its expiry (ms since the epoch), `extensions`
/// `extension_size` strings as key, value, …. 0, or `_INVALID_ARG` (bad
/// arguments, an expired token, an odd `extension_size`) or `_STATE`
/// (OAUTHBEARER is not the mechanism), with the reason in `errstr`.
#[no_mangle]
pub extern "C" fn rd_kafka_oauthbearer_set_token(
    rk: *mut Handle,
    token_value: *const c_char,
    md_lifetime_ms: i64,
    md_principal_name: *const c_char,
    extensions: *const *const c_char,
    extension_size: usize,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard(RESP_ERR__INVALID_ARG, || {
        let result = set_token(
            rk,
            token_value,
            md_lifetime_ms,
            md_principal_name,
            extensions,
            extension_size,
        );
        match result {
            Ok(()) => 0,
            Err(e) => {
                raw::write_errstr(errstr, errstr_size, &reason(&e));
                e.code()
            }
        }
    })
}

fn set_token(
    rk: *mut Handle,
    token: *const c_char,
    lifetime_ms: i64,
    principal: *const c_char,
    extensions: *const *const c_char,
    extension_size: usize,
) -> Result<(), Error> {
    let h = raw::object(rk).ok_or_else(|| Error::invalid_arg("NULL handle"))?;
    let s = sasl(h);
    if !s.is_oauthbearer() {
        // librdkafka checks the mechanism before the arguments
        return Err(Error::local(
            local::STATE,
            "SASL/OAUTHBEARER is not the configured authentication mechanism",
        ));
    }
    let token = raw::read_cstr(token).ok_or_else(|| Error::invalid_arg("token_value is NULL"))?;
    if extension_size % 2 != 0 {
        return Err(Error::invalid_arg(format!(
            "Incorrect extension size (must be a non-negative multiple of 2): {extension_size}"
        )));
    }
    let mut pairs = Vec::with_capacity(extension_size / 2);
    if extension_size > 0 {
        if extensions.is_null() {
            return Err(Error::invalid_arg("extensions is NULL"));
        }
        for kv in raw::read_array(extensions, extension_size).chunks(2) {
            let (Some(k), Some(v)) = (raw::read_cstr(kv[0]), raw::read_cstr(kv[1])) else {
                return Err(Error::invalid_arg("NULL extension key or value"));
            };
            pairs.push((k.into_owned(), v.into_owned()));
        }
    }
    let principal = raw::read_cstr(principal).unwrap_or_default();
    s.set_token(&token, lifetime_ms, &principal, &pairs)
}

/// Reports that no token could be had
/// (`rd_kafka_oauthbearer_set_token_failure`): 0, `_INVALID_ARG` for a
/// NULL or empty `errstr`, `_STATE` when OAUTHBEARER is not the mechanism.
#[no_mangle]
pub extern "C" fn rd_kafka_oauthbearer_set_token_failure(
    rk: *mut Handle,
    errstr: *const c_char,
) -> c_int {
    guard(RESP_ERR__INVALID_ARG, || {
        let Some(h) = raw::object(rk) else {
            return RESP_ERR__INVALID_ARG;
        };
        let s = sasl(h);
        let why = raw::read_cstr(errstr).unwrap_or_default();
        if s.is_oauthbearer() && why.is_empty() {
            return RESP_ERR__INVALID_ARG;
        }
        s.set_token_failure(&why).map_or_else(|e| e.code(), |()| 0)
    })
}

/// Runs the refresh callback on a gregor thread from now on
/// (`rd_kafka_sasl_background_callbacks_enable`): NULL, or an error object
/// (`_NOT_CONFIGURED` without OAUTHBEARER and the SASL queue).
#[no_mangle]
pub extern "C" fn rd_kafka_sasl_background_callbacks_enable(rk: *mut Handle) -> *mut c_void {
    guard(std::ptr::null_mut(), || {
        let Some(h) = raw::object(rk) else {
            return ErrorObject::boxed(RESP_ERR__INVALID_ARG, "NULL handle");
        };
        let s = sasl(h);
        if !s.is_oauthbearer() || !h.conf().sasl_queue {
            return ErrorObject::boxed(
                RESP_ERR__NOT_CONFIGURED,
                "No SASL mechanism using callbacks is configured",
            );
        }
        s.enable_background_callbacks().map_or_else(
            |e| ErrorObject::boxed(e.code(), &reason(&e)),
            |()| std::ptr::null_mut(),
        )
    })
}

/// Sets the SASL user name and password of the authentications still to
/// come (`rd_kafka_sasl_set_credentials`): NULL, or an `_INVALID_ARG` error
/// object when either is NULL.
#[no_mangle]
pub extern "C" fn rd_kafka_sasl_set_credentials(
    rk: *mut Handle,
    username: *const c_char,
    password: *const c_char,
) -> *mut c_void {
    guard(std::ptr::null_mut(), || {
        let (Some(h), Some(u), Some(p)) = (
            raw::object(rk),
            raw::read_cstr(username),
            raw::read_cstr(password),
        ) else {
            return ErrorObject::boxed(RESP_ERR__INVALID_ARG, "Username and password are required");
        };
        sasl(h).set_credentials(&u, &p);
        std::ptr::null_mut()
    })
}
