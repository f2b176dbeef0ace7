//! gregor: a synchronous Kafka client library with a Rust core and a stable C ABI.
//!
//! The API is the client modules ([`producer`], [`consumer`], [`admin`],
//! [`config`], [`message`], [`error`], [`events`], [`log`], [`stats`]), the cluster's
//! metadata ([`metadata`]), gregor's mock cluster ([`mock`]) and the
//! ZooKeeper-era and Kafka 0.7 clients ([`registry`], [`zk`],
//! [`legacy07`]). The layers below them (docs/ARCHITECTURE.md: `wire`
//! primitives, `protocol` codecs for every API, `record` message formats,
//! `compression` codecs, `net` connections, `cluster` state; none of the codecs touches a
//! socket) are the library's inside: each type the API hands out has a
//! path in it (`message::Bytes`, `metadata::Uuid`, `error::KafkaCode`, …).

#![deny(unsafe_code)]
#![warn(missing_docs)]
// every type the API hands out has a public path (in a program's build,
// without `internals`)
#![warn(unnameable_types)]

/// Declares a module of the library's inside: private to the crate in a
/// program's build; public (and left out of the documentation) with the
/// `internals` feature, which only the integration tests, benchmarks and
/// fuzz targets turn on. Dead-code warnings are off for these modules in a
/// program's build: their codecs serve the mock and the tests as well,
/// which that build does not see.
macro_rules! inside {
    ($name:ident) => {
        #[cfg(feature = "internals")]
        #[doc(hidden)]
        pub mod $name;
        #[cfg(not(feature = "internals"))]
        #[allow(dead_code, unused_imports)]
        pub(crate) mod $name;
    };
}

// The API: what programs use.
#[cfg(feature = "admin")]
pub mod admin;
pub mod config;
pub mod consumer;
pub mod error;
pub mod events;
#[cfg(feature = "legacy07")]
pub mod legacy07;
pub mod log;
pub mod message;
pub mod metadata;
#[cfg(feature = "mock")]
pub mod mock;
pub mod producer;
#[cfg(feature = "zookeeper")]
pub mod registry;
pub mod sasl;
pub mod stats;
#[cfg(feature = "zookeeper")]
pub mod zk;

// The inside (see `inside!`).
inside!(api_keys);
pub(crate) mod clock;
inside!(cluster);
inside!(compression);
// The C ABI (include/gregor.h): its Rust side is not part of the Rust API
// either, but is declared once, so cbindgen reads one set of C items.
#[doc(hidden)]
#[allow(unsafe_code)]
pub mod ffi;
inside!(net);
inside!(protocol);
inside!(record);
pub(crate) mod sync;
inside!(window);
inside!(wire);
