//! What a consumer hands the application, and what a producer reports back.

use std::sync::Arc;

pub use crate::compression::{Codec, ParseCodecError};
use crate::error::Error;
pub use crate::record::{Header, TimestampType};
pub use crate::wire::Bytes;

/// Offsets with a special meaning, as librdkafka numbers them.
pub mod offset {
    /// The partition's first offset.
    ///
    /// cbindgen:ignore
    pub const BEGINNING: i64 = -2;
    /// The partition's next offset (the high watermark).
    ///
    /// cbindgen:ignore
    pub const END: i64 = -1;
    /// The group's committed offset.
    ///
    /// cbindgen:ignore
    pub const STORED: i64 = -1000;
    /// No offset.
    ///
    /// cbindgen:ignore
    pub const INVALID: i64 = -1001;
    /// `TAIL_BASE - n`: `n` messages before the end.
    ///
    /// cbindgen:ignore
    pub const TAIL_BASE: i64 = -2000;

    /// The offset `n` messages before the end of the partition.
    pub fn tail(n: i64) -> i64 {
        TAIL_BASE - n
    }
}

/// A consumed message, or a consumer event/error (then `error` is set and
/// topic/partition/offset say where it happened).
#[derive(Debug, Clone)]
pub struct Message {
    /// Topic name.
    pub topic: Arc<str>,
    /// Partition.
    pub partition: i32,
    /// Offset.
    pub offset: i64,
    /// Key, or `None` for null. Shares the fetched buffer.
    pub key: Option<Bytes>,
    /// Value, or `None` for null. Shares the fetched buffer.
    pub value: Option<Bytes>,
    /// Headers in order.
    pub headers: Vec<Header>,
    /// Milliseconds since the epoch (-1 if none).
    pub timestamp: i64,
    /// What the timestamp means.
    pub timestamp_type: TimestampType,
    /// The leader epoch of the batch, if known.
    pub leader_epoch: Option<i32>,
    /// Set for errors and events (e.g. `_PARTITION_EOF`). Boxed: messages
    /// are moved by value on the hot path, and errors are rare.
    pub error: Option<Box<Error>>,
}

impl Message {
    /// An error or event at a topic-partition.
    pub fn event(topic: Arc<str>, partition: i32, offset: i64, error: Error) -> Self {
        Message {
            topic,
            partition,
            offset,
            key: None,
            value: None,
            headers: Vec::new(),
            timestamp: -1,
            timestamp_type: TimestampType::NotAvailable,
            leader_epoch: None,
            error: Some(Box::new(error)),
        }
    }
}

/// Whether a produced message may be in the partition's log: librdkafka's
/// `rd_kafka_msg_status_t` (`rd_kafka_message_status`), same numbers.
///
/// The rules are librdkafka's: a message that never left the client, or
/// whose request the broker refused for a reason that means nothing was
/// written, is `NotPersisted`; one whose request was sent and then timed
/// out, lost its connection or was purged in flight is
/// `PossiblyPersisted` (a retry may duplicate it); an acknowledged one is
/// `Persisted` (with `acks=0`: `PossiblyPersisted`). A status never goes
/// back to `NotPersisted` once an attempt made it possibly persisted.
/// Consumed messages are `Persisted`.
///
/// cbindgen:ignore
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(i32)]
pub enum MessageStatus {
    /// Not in the log: safe to send again without duplicating it.
    NotPersisted = 0,
    /// Maybe in the log: sending it again may duplicate it.
    PossiblyPersisted = 1,
    /// Acknowledged by the broker.
    Persisted = 2,
}

/// A record to produce. Borrowed: nothing is copied until it is encoded.
#[derive(Debug, Clone, Copy, Default)]
pub struct ProducerRecord<'a> {
    /// Topic name.
    pub topic: &'a str,
    /// Partition, or `None` to let the partitioner choose.
    pub partition: Option<i32>,
    /// Key, or `None` for null.
    pub key: Option<&'a [u8]>,
    /// Value, or `None` for null (a tombstone).
    pub value: Option<&'a [u8]>,
    /// Headers (name, value or null).
    pub headers: &'a [(&'a str, Option<&'a [u8]>)],
    /// Create time in ms since the epoch; `None` for now.
    pub timestamp: Option<i64>,
}

impl<'a> ProducerRecord<'a> {
    /// A record with a value for `topic`.
    pub fn new(topic: &'a str, value: &'a [u8]) -> Self {
        ProducerRecord {
            topic,
            value: Some(value),
            ..Default::default()
        }
    }
}

/// Where a produced message went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    /// Topic name.
    pub topic: String,
    /// Partition.
    pub partition: i32,
    /// Offset (-1 with acks=0).
    pub offset: i64,
    /// The message's timestamp (the broker's with LogAppendTime).
    pub timestamp: i64,
}

/// Milliseconds since the epoch now.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// A consumer's group membership as the producer's
/// `send_offsets_to_transaction` passes it on (KIP-447, librdkafka's
/// `rd_kafka_consumer_group_metadata_t`): TxnOffsetCommit v3+ carries the
/// generation, member id and group instance id, so the group coordinator
/// fences offsets a zombie member (one the group moved on from) commits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsumerGroupMetadata {
    /// The consumer group id.
    pub group_id: String,
    /// The group generation the member is in (-1: none, the group-id-only
    /// form, which the coordinator does not check).
    pub generation_id: i32,
    /// The member id the coordinator gave ("" for none).
    pub member_id: String,
    /// `group.instance.id` of a static member (KIP-345), or none.
    pub group_instance_id: Option<String>,
}

impl ConsumerGroupMetadata {
    /// The group-id-only form (`rd_kafka_consumer_group_metadata_new`):
    /// generation -1, no member: for brokers before KIP-447 or a producer
    /// that commits offsets on a group it does not consume in.
    pub fn new(group_id: impl Into<String>) -> Self {
        ConsumerGroupMetadata {
            group_id: group_id.into(),
            generation_id: -1,
            member_id: String::new(),
            group_instance_id: None,
        }
    }
}
