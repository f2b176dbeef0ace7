//! librdkafka's C ABI on gregor: a library that is `librdkafka.so.1` to
//! programs built against librdkafka 2.12.1 (kcat, confluent-kafka-python's
//! C extension, rdkafka-ruby, …), with gregor's Rust core underneath.
//!
//! Every function librdkafka exports is here, by the one table
//! `abi/functions.tsv` (scripts/rdkafka-abi-table.py writes it from
//! librdkafka's `rdkafka.h`, `rdkafka_mock.h` and the library's own export
//! list). The modules below implement some by hand, each family in its
//! module; build.rs generates the rest ([`stubs`]), which fail as their
//! return type allows (`RD_KAFKA_RESP_ERR__NOT_IMPLEMENTED`, NULL, -1, …)
//! and say so in `errstr` where the function has one. build.rs also makes
//! the shared library's export list from the same table, so the library
//! exports exactly librdkafka's names: gregor's own `gregor_*` C ABI, linked
//! in through gregor's Rust API, stays hidden, and the library can be loaded
//! beside `libgregor.so`.
//!
//! By hand: [`version`], [`errors`], [`error_object`] and [`conf`]; the
//! client handle ([`handle`]), topic handles ([`topic`]), producing and
//! the delivery reports ([`producer`]), the messages reports carry
//! ([`message`]), cluster metadata ([`metadata`]) and the built-in
//! partitioners' functions ([`partitioner`]). The variadic
//! `rd_kafka_producev` is C (`csrc/producev.c`, on `rd_kafka_produceva`),
//! which build.rs compiles and links into the shared library.
//!
//! Conventions of every export: its body runs inside [`guard::guard`], so
//! no panic unwinds into C; what it writes through the caller's pointers
//! goes through [`raw`].

#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod conf;
pub mod error_object;
pub mod errors;
pub mod guard;
pub mod handle;
pub mod message;
pub mod metadata;
pub mod partitioner;
pub mod producer;
pub mod raw;
pub mod stubs;
pub mod topic;
pub mod version;
