//! gregor: a synchronous Kafka client library with a Rust core and a stable C ABI.
//!
//! Layers, bottom up (docs/ARCHITECTURE.md): [`wire`] primitives, [`protocol`]
//! codecs for every API, [`record`] message formats, [`compression`] codecs.
//! Nothing in these layers touches a socket.

#![deny(unsafe_code)]
#![warn(missing_docs)]

#[cfg(feature = "admin")]
pub mod admin;
pub mod api_keys;
pub mod cluster;
pub mod compression;
pub mod config;
pub mod consumer;
pub mod error;
#[allow(unsafe_code)]
pub mod ffi;
#[cfg(feature = "legacy07")]
pub mod legacy07;
pub mod log;
pub mod message;
#[cfg(feature = "mock")]
pub mod mock;
pub mod net;
pub mod producer;
pub mod protocol;
pub mod record;
#[cfg(feature = "zookeeper")]
pub mod registry;
pub mod stats;
pub(crate) mod sync;
pub mod wire;
#[cfg(feature = "zookeeper")]
pub mod zk;
