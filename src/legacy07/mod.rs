//! The Kafka 0.7 wire protocol, for programs that still face 0.7-era
//! brokers: a separate client with its own request types, as the Kafka
//! wiki's "Writing a Driver for Kafka" (the 0.7 protocol, by Dave Lin of Datadog) and
//! Kafka 0.7's sources document it.
//!
//! Nothing here shares code with the modern protocol: 0.7 has no API
//! versions, no correlation ids, no client id, byte offsets instead of
//! message numbers, and no response to a produce.
//!
//! - `protocol` (inside): PRODUCE (0), FETCH (1), MULTIFETCH (2), MULTIPRODUCE (3),
//!   OFFSETS (4), their headers, responses and error codes.
//! - `message` (inside; [`Message`] and the magic bytes re-exported): messages with MAGIC 0 and 1, CRC-32 of the payload,
//!   gzip and snappy wrappers, byte offsets.
//! - [`client`]: a blocking client for one broker.
//! - [`zk`]: discovery from the ZooKeeper registry; [`producer`]: a
//!   producer on top of it that follows the driver guide's rule for new topics.
//!
//! No 0.7 broker runs anywhere this was built; how it was verified instead
//! is in README.md ("Kafka 0.7").

pub mod client;
mod conn;
// The 0.7 wire codecs: the client's inside (public with the crate's
// `internals` feature, for the tests and fuzz targets).
inside!(message);
pub mod producer;
inside!(protocol);
pub mod zk;

pub use client::{Client, FetchResult, Options, ProduceSet};
pub use message::{FetchedMessage, Message, MAGIC_0, MAGIC_1};
pub use producer::Producer07;
pub use protocol::{
    ErrorCode07, FetchRequest, ProduceRequest, RequestType, EARLIEST_TIME, LATEST_TIME,
};
pub use zk::{BrokerInfo, BrokerPartition, Registry};
