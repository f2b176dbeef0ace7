//! The admin client's C API (`gregor_admin_*`).
//!
//! Every operation is one blocking call: it takes a `gregor_admin`, the
//! entities (arrays of builder handles, strings, or a `gregor_tpl` for
//! partitions), and optional `gregor_admin_options` (NULL: defaults); on
//! success it returns 0 and stores a result object the caller owns (free
//! it with its `_free`). A non-zero return is an error for the call as a
//! whole (no broker reachable, an API the broker does not speak:
//! `GREGOR_ERR__UNSUPPORTED_FEATURE`, …), with the reason in `errstr`.
//! Each entity of a result has its own error code (the broker's Kafka code
//! unchanged, e.g. `GREGOR_ERR_TOPIC_ALREADY_EXISTS`, or a local code) and
//! error string, read with the result's `_err` / `_errstr` accessors.
//!
//! Accessors take indexes; out of range they return NULL (strings), -1
//! (numbers), `GREGOR_ERR__INVALID_ARG` (error codes) or 0 (counts).
//! Strings are borrowed: valid until the result is freed. Every handle is
//! immutable once built and may be read from several threads; builders are
//! not thread-safe while being built. `gregor_admin` itself is thread-safe.

#![allow(missing_docs)]

use std::ffi::{c_char, c_int, CString};
use std::ptr;

use super::config::gregor_config;
use super::guard::{count, field, guard, guard_code, impl_items, item, Items};
use super::lifetime::{destroy, enter, handle_registry, register, Handle, Life};
use super::metadata::gregor_metadata;
use super::raw::*;
use super::tpl::gregor_tpl;
use crate::admin::*;
use crate::error::{local, Error, Result};
use crate::wire::Uuid;

mod acls;
mod auth;
mod cluster;
mod configs;
mod groups;
mod partitions;
mod quotas;
mod scram;
mod topics;
mod transactions;

pub use acls::*;
pub use auth::*;
pub use cluster::*;
pub use configs::*;
pub use groups::*;
pub use partitions::*;
pub use quotas::*;
pub use scram::*;
pub use topics::*;
pub use transactions::*;

// ----- constants -----

// The ACL, resource, config, SCRAM and election constants are generated
// from crate::protocol::enums into codes.rs (see descriptors.rs).
/// Client-quota filter match types.
pub const GREGOR_QUOTA_MATCH_EXACT: c_int = 0;
pub const GREGOR_QUOTA_MATCH_DEFAULT: c_int = 1;
pub const GREGOR_QUOTA_MATCH_ANY: c_int = 2;
/// List-offsets specs (the `offset` of a `gregor_tpl` entry; >= 0 is a timestamp in ms).
pub const GREGOR_OFFSET_SPEC_LATEST: i64 = -1;
pub const GREGOR_OFFSET_SPEC_EARLIEST: i64 = -2;
pub const GREGOR_OFFSET_SPEC_MAX_TIMESTAMP: i64 = -3;

// ----- helpers -----

/// An entity's error: code and text.
pub(crate) struct CErr {
    code: c_int,
    text: CString,
}

fn cerr_of(e: Option<&Error>) -> CErr {
    match e {
        None => CErr {
            code: 0,
            text: CString::default(),
        },
        Some(e) => CErr {
            code: e.code(),
            text: cs(&e.to_string()),
        },
    }
}

fn cerr<T>(r: &Result<T>) -> CErr {
    cerr_of(r.as_ref().err())
}

/// A result object whose items each carry an error.
trait Errs: Items {
    fn err(item: &Self::Item) -> &CErr;
}

/// `impl Errs` where the item's error is the field (or expression) given.
macro_rules! impl_errs {
    ($($t:ty: |$x:ident| $e:expr),* $(,)?) => {$(
        impl Errs for $t {
            fn err($x: &<$t as Items>::Item) -> &CErr {
                $e
            }
        }
    )*};
}
use impl_errs;

/// Item `i`'s error code (`GREGOR_ERR__INVALID_ARG` for NULL or out of range).
fn item_err<R: Errs>(r: *const R, i: usize) -> c_int {
    item(r, i, local::INVALID_ARG, |x| R::err(x).code)
}

/// Item `i`'s error text ("" on success; NULL for NULL or out of range).
fn item_errstr<R: Errs>(r: *const R, i: usize) -> *const c_char {
    item(r, i, ptr::null(), |x| R::err(x).text.as_ptr())
}

fn opts_of(o: *const gregor_admin_options) -> Result<AdminOptions> {
    if o.is_null() {
        Ok(AdminOptions::default())
    } else {
        Ok(handle(o, "options")?.inner.clone())
    }
}

fn ops_ints(ops: &Option<Vec<AclOperation>>) -> Option<Vec<c_int>> {
    ops.as_ref()
        .map(|v| v.iter().map(|o| c_int::from(o.0)).collect())
}

/// Copies up to `max` operations; returns how many there are, or -1 if not known.
fn copy_ops(ops: &Option<Vec<c_int>>, out: *mut c_int, max: usize) -> c_int {
    match ops {
        None => -1,
        Some(v) => {
            copy_out(&v[..v.len().min(max)], out);
            c_int::try_from(v.len()).unwrap_or(c_int::MAX)
        }
    }
}

/// An optional C string argument, copied (NULL: `None`).
pub(super) fn opt_str(p: *const c_char, name: &str) -> Result<Option<String>> {
    Ok(opt_c_str(p, name)?.map(str::to_string))
}

fn i8_of(v: c_int, name: &str) -> Result<i8> {
    i8::try_from(v).map_err(|_| Error::invalid_arg(format!("{name} {v} is out of range")))
}

fn tps(tpl: &gregor_tpl) -> Vec<TopicPartition> {
    tpl.inner
        .iter()
        .map(|t| TopicPartition::new(t.topic.clone(), t.partition))
        .collect()
}

// ----- the client and options -----

/// An admin client. Thread-safe.
pub struct gregor_admin {
    pub(crate) inner: AdminClient,
    life: Life,
}

impl Handle for gregor_admin {
    const NAME: &'static str = "admin";
    handle_registry!();
    fn life(&self) -> &Life {
        &self.life
    }
    /// Requests waiting for a response fail, and their retries find the
    /// connections closed for good.
    fn shutdown(&self) {
        self.inner.cluster().shutdown();
    }
}

/// Options of one admin call. Not thread-safe while being set.
pub struct gregor_admin_options {
    inner: AdminOptions,
}

/// A new admin client for `conf` (copied; the caller keeps and frees
/// `conf`). Returns NULL on a bad configuration (or a producer- or
/// consumer-only property), with the reason in `errstr`. Connects lazily.
/// Caller owns it: free with `gregor_admin_free`.
#[no_mangle]
pub extern "C" fn gregor_admin_new(
    conf: *const gregor_config,
    errstr: *mut c_char,
    errstr_size: usize,
) -> *mut gregor_admin {
    let mut out = ptr::null_mut();
    guard_code(errstr, errstr_size, || {
        let conf = handle(conf, "conf")?;
        let a = AdminClient::new(&conf.inner)?;
        let cluster = a.cluster().clone();
        out = register(Box::new(gregor_admin {
            inner: a,
            life: Life::new(),
        }));
        // an admin client has no poll: its refresh callback runs on a gregor thread
        crate::ffi::config::install(conf, &cluster, out.cast(), true);
        Ok(())
    });
    out
}

/// Frees an admin client, closing its connections. NULL is a no-op.
///
/// Lifetime: safe while other threads are inside calls on the handle (see
/// the header's preamble): new calls fail with `GREGOR_ERR__DESTROY`, calls
/// in flight are woken and return `GREGOR_ERR__DESTROY`, and this waits for
/// them to leave before releasing anything. A second free of the same
/// pointer is a no-op.
#[no_mangle]
pub extern "C" fn gregor_admin_free(admin: *mut gregor_admin) {
    guard((), || destroy(admin))
}

/// As `gregor_producer_metadata`, through an admin client.
#[no_mangle]
pub extern "C" fn gregor_admin_metadata(
    admin: *const gregor_admin,
    topic: *const c_char,
    timeout_ms: c_int,
    metadata: *mut *mut gregor_metadata,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        super::metadata::metadata_of(a.inner.cluster(), topic, timeout_ms, metadata)
    })
}

/// Closes the admin client's connections for good: requests in flight on
/// other threads return promptly with an error (`GREGOR_ERR__DESTROY` or
/// `GREGOR_ERR__TRANSPORT`), later ones fail at once with
/// `GREGOR_ERR__DESTROY`. The handle stays valid until `gregor_admin_free`
/// (a binding can close, wait for its own calls to return, then free).
/// Returns 0, or `GREGOR_ERR__INVALID_ARG` for NULL. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_close(admin: *const gregor_admin) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        enter(admin)?.inner.cluster().shutdown();
        Ok(())
    })
}

/// New call options: request and operation timeouts `socket.timeout.ms`,
/// not validate-only. Caller owns them: free with `gregor_admin_options_free`.
#[no_mangle]
pub extern "C" fn gregor_admin_options_new() -> *mut gregor_admin_options {
    guard(ptr::null_mut(), || {
        Box::into_raw(Box::new(gregor_admin_options {
            inner: AdminOptions::default(),
        }))
    })
}

/// How long the whole call may take, in ms (-1: `socket.timeout.ms`).
/// Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_admin_options_set_request_timeout(
    opts: *mut gregor_admin_options,
    timeout_ms: i64,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        handle_mut(opts, "opts")?.inner.request_timeout =
            (timeout_ms >= 0).then(|| timeout64(timeout_ms));
        Ok(())
    })
}

/// How long the broker waits for the operation, in ms (-1:
/// `socket.timeout.ms`; 0: start it and answer at once). Returns 0 or
/// `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_admin_options_set_operation_timeout(
    opts: *mut gregor_admin_options,
    timeout_ms: i64,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        handle_mut(opts, "opts")?.inner.operation_timeout =
            (timeout_ms >= 0).then(|| timeout64(timeout_ms));
        Ok(())
    })
}

/// Non-zero: only validate; the broker changes nothing. Returns 0 or
/// `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_admin_options_set_validate_only(
    opts: *mut gregor_admin_options,
    validate_only: c_int,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        handle_mut(opts, "opts")?.inner.validate_only = validate_only != 0;
        Ok(())
    })
}

/// Frees options. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_admin_options_free(opts: *mut gregor_admin_options) {
    guard((), || free(opts))
}
