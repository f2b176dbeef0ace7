//! What every message format decodes to and encodes from: the unified
//! [`Record`] and [`RecordBatch`] (magic 0, 1 and 2 alike), the values a
//! field holds when its format does not carry it, [`DecodeOptions`] and
//! [`RecordError`] ("Message Format" in Kafka's implementation docs).

use std::fmt;

use crate::compression::{Codec, CompressionError};
use crate::wire::{Bytes, DecodeError};

/// The timestamp a record carries when it has none (magic 0, or a producer that set none).
///
/// cbindgen:ignore
pub const NO_TIMESTAMP: i64 = -1;
/// The producer id of a batch written without one (no idempotence, or magic 0/1).
///
/// cbindgen:ignore
pub const NO_PRODUCER_ID: i64 = -1;
/// The producer epoch of a batch written without one.
///
/// cbindgen:ignore
pub const NO_PRODUCER_EPOCH: i16 = -1;
/// The base sequence of a batch written without one.
///
/// cbindgen:ignore
pub const NO_SEQUENCE: i32 = -1;
/// The partition leader epoch of a batch that carries none.
///
/// cbindgen:ignore
pub const NO_PARTITION_LEADER_EPOCH: i32 = -1;

/// What a record's timestamp means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TimestampType {
    /// No timestamp (magic 0).
    NotAvailable,
    /// Set by the producer when the record was created.
    #[default]
    CreateTime,
    /// Set by the broker when it appended the record (`message.timestamp.type=LogAppendTime`).
    LogAppendTime,
}

/// A record header (magic 2 only, KIP-82): a string key and a nullable value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Header {
    /// The key's bytes, UTF-8 as producers write it (see [`Header::key_str`]).
    pub key: Bytes,
    /// The value, or `None` for null.
    pub value: Option<Bytes>,
}

impl Header {
    /// The key as text.
    ///
    /// # Errors
    /// If the key is not UTF-8 (decoding does not check it, to stay zero-copy).
    pub fn key_str(&self) -> Result<&str, std::str::Utf8Error> {
        std::str::from_utf8(&self.key)
    }
}

/// One record, as a consumer sees it, whatever format it arrived in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The record's offset in its partition.
    pub offset: i64,
    /// Milliseconds since the epoch, or [`NO_TIMESTAMP`].
    pub timestamp: i64,
    /// What the timestamp means.
    pub timestamp_type: TimestampType,
    /// The key, or `None` for null.
    pub key: Option<Bytes>,
    /// The value, or `None` for null (a tombstone on compacted topics).
    pub value: Option<Bytes>,
    /// Headers, in order (magic 2 only; empty otherwise).
    pub headers: Vec<Header>,
    /// The partition leader epoch of the batch (magic 2), if it carries one.
    pub leader_epoch: Option<i32>,
    /// The producer id of the batch (magic 2), if it carries one.
    pub producer_id: Option<i64>,
}

/// One entry of a `records` field, decoded: a record batch (magic 2), or a
/// message (magic 0/1) with, when it is a compressed wrapper, its inner
/// messages as the records.
///
/// Fields that magic 0/1 do not carry hold their "none" values
/// ([`NO_PRODUCER_ID`], …); `base_offset` and `last_offset_delta` are then
/// those of the first and last record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordBatch {
    /// The message format version: 0, 1 or 2.
    pub magic: i8,
    /// The offset of the first record (magic 2: `baseOffset`).
    pub base_offset: i64,
    /// The last offset minus the base offset. Compaction may leave fewer
    /// records than this implies.
    pub last_offset_delta: i32,
    /// `partitionLeaderEpoch` (magic 2), else [`NO_PARTITION_LEADER_EPOCH`].
    pub partition_leader_epoch: i32,
    /// The stored CRC: CRC-32C for magic 2, the wrapper's CRC-32 for magic 0/1.
    pub crc: u32,
    /// The raw attributes (magic 0/1: the message's one-byte attributes).
    pub attributes: i16,
    /// The compression codec (attribute bits 0–2).
    pub codec: Codec,
    /// The timestamp type (attribute bit 3; [`TimestampType::NotAvailable`] for magic 0).
    pub timestamp_type: TimestampType,
    /// Attribute bit 4 (magic 2): written by a transactional producer.
    pub is_transactional: bool,
    /// Attribute bit 5 (magic 2): a control batch (transaction markers, KIP-98).
    pub is_control: bool,
    /// Attribute bit 6 (magic 2, KIP-534): `base_timestamp` is the delete horizon.
    pub has_delete_horizon: bool,
    /// `baseTimestamp` (magic 2); for magic 0/1 the first record's timestamp.
    pub base_timestamp: i64,
    /// `maxTimestamp` (magic 2); for magic 0/1 the (wrapper) message's timestamp.
    pub max_timestamp: i64,
    /// `producerId`, or [`NO_PRODUCER_ID`].
    pub producer_id: i64,
    /// `producerEpoch`, or [`NO_PRODUCER_EPOCH`].
    pub producer_epoch: i16,
    /// `baseSequence`, or [`NO_SEQUENCE`].
    pub base_sequence: i32,
    /// The records, in offset order.
    pub records: Vec<Record>,
}

impl RecordBatch {
    /// The offset of the last record the batch was written with.
    pub fn last_offset(&self) -> i64 {
        self.base_offset + i64::from(self.last_offset_delta)
    }

    /// The offset after this batch: where the next fetch starts.
    pub fn next_offset(&self) -> i64 {
        self.last_offset() + 1
    }

    /// The delete horizon (KIP-534), when the batch has one.
    pub fn delete_horizon_ms(&self) -> Option<i64> {
        self.has_delete_horizon.then_some(self.base_timestamp)
    }
}

/// How to decode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeOptions {
    /// Verify each batch's CRC (librdkafka's `check.crcs`). Default: on.
    pub check_crcs: bool,
    /// The most bytes one compressed entry may decompress to. Default: 64 MiB.
    pub decompress_limit: usize,
}

impl DecodeOptions {
    /// The default decompression limit: 64 MiB.
    ///
    /// cbindgen:ignore
    pub const DEFAULT_DECOMPRESS_LIMIT: usize = 64 << 20;
}

impl Default for DecodeOptions {
    fn default() -> Self {
        DecodeOptions {
            check_crcs: true,
            decompress_limit: Self::DEFAULT_DECOMPRESS_LIMIT,
        }
    }
}

/// Why an entry could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RecordError {
    /// The bytes do not parse as the format says.
    Malformed {
        /// The base offset of the entry (or of the record) in error; -1 when not known.
        offset: i64,
        /// Where in the entry, and why.
        error: DecodeError,
    },
    /// The stored CRC does not match the entry's bytes.
    CrcMismatch {
        /// The base offset of the entry.
        offset: i64,
        /// The CRC the entry carries.
        stored: u32,
        /// The CRC of the bytes.
        computed: u32,
    },
    /// A compressed entry would not decompress (or would pass the limit).
    Compression {
        /// The base offset of the entry.
        offset: i64,
        /// Why.
        error: CompressionError,
    },
    /// A magic byte this library does not know.
    UnsupportedMagic {
        /// The base offset of the entry.
        offset: i64,
        /// The magic byte.
        magic: i8,
    },
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordError::Malformed { offset, error } => {
                write!(f, "malformed records at offset {offset}: {error}")
            }
            RecordError::CrcMismatch {
                offset,
                stored,
                computed,
            } => {
                write!(f, "CRC mismatch at offset {offset}: stored {stored:#010x}, computed {computed:#010x}")
            }
            RecordError::Compression { offset, error } => {
                write!(f, "records at offset {offset}: {error}")
            }
            RecordError::UnsupportedMagic { offset, magic } => {
                write!(
                    f,
                    "unsupported message format (magic {magic}) at offset {offset}"
                )
            }
        }
    }
}

impl std::error::Error for RecordError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RecordError::Malformed { error, .. } => Some(error),
            RecordError::Compression { error, .. } => Some(error),
            _ => None,
        }
    }
}

/// The bytes before an entry's payload: offset (8) and length (4).
pub(crate) const LOG_OVERHEAD: usize = 12;
