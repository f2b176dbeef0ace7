//! The C ABI: every `gregor_*` function of `include/gregor.h`.
//!
//! Conventions (ARCHITECTURE.md, modelled on rustls-ffi and librdkafka):
//! - opaque handles, created by `gregor_<object>_new` and released by
//!   `gregor_<object>_free`; `_free(NULL)` does nothing;
//! - integer error codes: `0` success, `> 0` the broker's Kafka error code,
//!   `< 0` a local error (librdkafka's numbers); `gregor_err_name` and
//!   `gregor_err_str` name and describe them;
//! - detail text goes into a caller-owned `errstr` of `errstr_size` bytes,
//!   always NUL-terminated (truncated if needed); `errstr` may be NULL;
//! - out-parameters are written only on success; every pointer is checked
//!   for NULL; every body runs inside a panic guard, so no panic crosses into C;
//! - memory gregor allocates is freed only by gregor's `_free` functions.
//!
//! This module holds all of gregor's `unsafe` code that touches C pointers,
//! and `raw` holds the helpers through which the others reach it.

#![allow(non_camel_case_types)]

// One module per C object family, as src/ has one per Rust one.
#[cfg_attr(not(feature = "admin"), path = "off/admin.rs")]
pub mod admin;
mod client;
pub mod codes;
pub mod config;
pub mod consumer;
pub mod descriptors;
pub mod error;
pub mod error_object;
pub mod features;
pub mod group_metadata;
mod guard;
pub mod headers;
#[cfg_attr(not(feature = "legacy07"), path = "off/legacy07.rs")]
pub mod legacy07;
mod lifetime;
pub mod message;
pub mod metadata;
#[cfg_attr(not(feature = "mock"), path = "off/mock.rs")]
pub mod mock;
pub mod producer;
mod raw;
pub mod rdkafka_compat;
pub mod tpl;
#[cfg_attr(not(feature = "zookeeper"), path = "off/zk.rs")]
pub mod zk;

pub use admin::*;
pub use codes::*;
pub use config::*;
pub use consumer::*;
pub use descriptors::*;
pub use error::*;
pub use error_object::*;
pub use features::*;
pub use group_metadata::*;
pub use headers::*;
pub use legacy07::*;
pub use message::*;
pub use metadata::*;
pub use mock::*;
pub use producer::*;
pub use raw::gregor_slice;
pub use rdkafka_compat::*;
pub use tpl::*;
pub use zk::*;
