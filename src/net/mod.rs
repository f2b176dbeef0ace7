//! The network layer: framed TCP connections to brokers, one I/O thread per
//! connection, pipelined requests matched to responses by correlation id.
//! Knows nothing of producers or consumers.

pub mod broker;
pub mod conn;

pub use broker::{BrokerConn, NetConfig, PendingResponse};
