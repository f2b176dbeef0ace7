//! Setting SASL credentials at run time in C (librdkafka's
//! `rd_kafka_sasl_set_credentials`): authentications that start after the
//! call (new connections, reconnections) use the new user name and password;
//! connections already authenticated are left as they are.

use std::ffi::{c_char, c_int};
use std::ptr;

use super::consumer::gregor_consumer;
use super::guard::guard_code;
use super::lifetime::enter;
use super::producer::gregor_producer;
use super::raw::c_str;
use crate::cluster::Cluster;
use crate::error::Error;

fn set(cluster: &Cluster, username: *const c_char, password: *const c_char) -> Result<(), Error> {
    let u = c_str(username, "username")?;
    let p = c_str(password, "password")?;
    cluster.set_sasl_credentials(u, p);
    Ok(())
}

/// Sets the SASL user name and password (both NUL-terminated, copied) the
/// producer authenticates with from now on (PLAIN and SCRAM). As librdkafka,
/// the values are accepted even when SASL is not configured. Returns 0 or
/// `GREGOR_ERR__INVALID_ARG` (a NULL argument, text not UTF-8). Does not
/// block. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_producer_set_sasl_credentials(
    producer: *const gregor_producer,
    username: *const c_char,
    password: *const c_char,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let p = enter(producer)?;
        set(p.inner.cluster(), username, password)
    })
}

/// As `gregor_producer_set_sasl_credentials`, for a consumer.
#[no_mangle]
pub extern "C" fn gregor_consumer_set_sasl_credentials(
    consumer: *const gregor_consumer,
    username: *const c_char,
    password: *const c_char,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let c = enter(consumer)?;
        set(c.inner.cluster(), username, password)
    })
}

/// As `gregor_producer_set_sasl_credentials`, for an admin client
/// (`GREGOR_ERR__NOT_IMPLEMENTED` in a build without the `admin` feature).
#[cfg(feature = "admin")]
#[no_mangle]
pub extern "C" fn gregor_admin_set_sasl_credentials(
    admin: *const super::admin::gregor_admin,
    username: *const c_char,
    password: *const c_char,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let a = enter(admin)?;
        set(a.inner.cluster(), username, password)
    })
}

/// cbindgen:ignore
#[cfg(not(feature = "admin"))]
#[no_mangle]
pub extern "C" fn gregor_admin_set_sasl_credentials(
    _admin: *const super::admin::gregor_admin,
    _username: *const c_char,
    _password: *const c_char,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        Err(Error::local(
            crate::error::local::NOT_IMPLEMENTED,
            "gregor_admin_set_sasl_credentials: built without the admin feature",
        ))
    })
}
