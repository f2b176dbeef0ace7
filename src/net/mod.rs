//! The network layer: framed TCP or TLS connections to brokers, SASL
//! authentication, one I/O thread per connection, pipelined requests
//! matched to responses by correlation id. Knows nothing of producers or
//! consumers.

pub mod broker;
pub mod client_events;
pub mod conn;
pub mod deadline;
pub mod errors;
#[cfg_attr(not(feature = "sasl"), path = "sasl_off.rs")]
pub mod sasl;
#[cfg_attr(not(feature = "tls"), path = "tls_off.rs")]
pub mod tls;
pub mod wakeup;

pub use broker::{BrokerConn, NetConfig, PendingResponse};
pub use client_events::{ClientEvent, ErrorCallback, Events, ThrottleCallback, ThrottleEvent};
