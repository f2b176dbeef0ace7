//! The admin client's SASL / OAUTHBEARER setters, as the producer's
//! (src/ffi/producer/callbacks.rs): `gregor_admin_set_sasl_credentials`,
//! librdkafka's `rd_kafka_oauthbearer_set_token` and
//! `rd_kafka_oauthbearer_set_token_failure` (the helpers they share with
//! the producer and consumer are in src/ffi/client.rs). Without the `admin`
//! feature build.rs's stubs stand in for them, as for every admin call.

use std::ffi::{c_char, c_int};
use std::ptr;

use super::super::client::{set_sasl_credentials, set_token, set_token_failure, ClientHandle};
use super::super::guard::guard_code;
use super::gregor_admin;
use crate::cluster::Cluster;

impl ClientHandle for gregor_admin {
    fn cluster(&self) -> &Cluster {
        self.inner.cluster()
    }
}

/// As `gregor_producer_oauthbearer_set_token`, for an admin client
/// (`GREGOR_ERR__NOT_IMPLEMENTED` in a build without the `admin` feature).
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn gregor_admin_oauthbearer_set_token(
    admin: *const gregor_admin,
    token_value: *const c_char,
    md_lifetime_ms: i64,
    md_principal_name: *const c_char,
    extensions: *const *const c_char,
    extension_size: usize,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        set_token(
            admin,
            token_value,
            md_lifetime_ms,
            md_principal_name,
            extensions,
            extension_size,
        )
    })
}

/// As `gregor_producer_oauthbearer_set_token_failure`, for an admin client.
#[no_mangle]
pub extern "C" fn gregor_admin_oauthbearer_set_token_failure(
    admin: *const gregor_admin,
    errstr: *const c_char,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || set_token_failure(admin, errstr))
}

/// As `gregor_producer_set_sasl_credentials`, for an admin client
/// (`GREGOR_ERR__NOT_IMPLEMENTED` in a build without the `admin` feature).
#[no_mangle]
pub extern "C" fn gregor_admin_set_sasl_credentials(
    admin: *const gregor_admin,
    username: *const c_char,
    password: *const c_char,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        set_sasl_credentials(admin, username, password)
    })
}
