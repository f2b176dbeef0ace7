//! librdkafka's C ABI on gregor: a library that is `librdkafka.so.1` to
//! programs built against librdkafka 2.12.1 (kcat, confluent-kafka-python's
//! C extension, rdkafka-ruby, …), with gregor's Rust core underneath.
//!
//! build.rs names the shared library `librdkafka.so.1` and keeps the
//! symbols of the libraries it links in hidden: gregor's own `gregor_*` C
//! ABI, linked in through gregor's Rust API, is not exported, so the
//! library can be loaded beside `libgregor.so`.
//!
//! Conventions of every export: its body runs inside [`guard::guard`], so
//! no panic unwinds into C.

#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod guard;
