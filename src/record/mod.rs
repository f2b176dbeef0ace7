//! Kafka's message formats, as "Message Format" in Kafka's implementation
//! docs describes them: message sets of magic 0 and 1 (KIP-32 added the
//! timestamp of magic 1) in [`message_set`], and record batches of magic 2
//! (KIP-98) in [`batch`].
//!
//! Decoding yields one [`RecordBatch`] per entry whatever its format, each
//! holding unified [`Record`]s; [`RecordsReader`] walks the `records` field of
//! a fetch response, where formats may be mixed and the last entry may be cut
//! short by the broker. Record keys, values and headers share the fetched
//! buffer when the entry is not compressed, or the one decompressed buffer of
//! the entry when it is.
//!
//! Hostile input is an error, never a panic or an allocation beyond what the
//! bytes in hand (or [`DecodeOptions::decompress_limit`]) allow.

use std::fmt;

use crate::compression::{Codec, CompressionError};
use crate::wire::{Bytes, DecodeError, Reader};

pub mod batch;
pub mod crc32c;
pub mod message_set;
#[cfg(test)]
mod tests;

pub use batch::{BatchRecords, ControlRecord, ControlRecordType, RecordBatchBuilder};
pub use message_set::MessageSetBuilder;

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

    /// The transaction marker of a control batch: its first record's key, decoded.
    /// `None` for batches that are not control batches.
    ///
    /// # Errors
    /// If the control record's key is missing or too short.
    pub fn control_record(&self) -> Result<Option<ControlRecord>, RecordError> {
        if !self.is_control {
            return Ok(None);
        }
        let record = self.records.first().ok_or_else(|| RecordError::Malformed {
            offset: self.base_offset,
            error: Reader::new(&[]).error("control batch without records"),
        })?;
        ControlRecord::from_record(record)
            .map(Some)
            .map_err(|error| RecordError::Malformed {
                offset: record.offset,
                error,
            })
    }

    /// Decodes the entry (batch or message, any magic) at the start of `buf`,
    /// returning it and the bytes it took. Unlike [`RecordsReader`], an entry
    /// cut short is an error here.
    ///
    /// # Errors
    /// See [`RecordError`].
    pub fn decode(
        buf: &Bytes,
        options: &DecodeOptions,
    ) -> Result<(RecordBatch, usize), RecordError> {
        let mut r = Reader::shared(buf);
        match entry_len(r.rest()) {
            EntryLen::Complete(n) => {
                let mut entry = r
                    .sub(n, "entry")
                    .map_err(|error| RecordError::Malformed { offset: -1, error })?;
                decode_entry(&mut entry, options).map(|b| (b, n))
            }
            EntryLen::Partial => Err(RecordError::Malformed {
                offset: peek_offset(r.rest()),
                error: r.error(format!("entry truncated: {} bytes present", r.remaining())),
            }),
            EntryLen::Bad(error) => Err(RecordError::Malformed {
                offset: peek_offset(r.rest()),
                error,
            }),
        }
    }
}

impl RecordBatch {
    /// As [`RecordBatch::decode`], but a record batch's records are left
    /// to the returned iterator, decoded one at a time, and `records` of
    /// the batch is empty (message sets, magic 0/1, are decoded whole and
    /// handed to the iterator).
    ///
    /// # Errors
    /// See [`RecordError`]; a malformed record comes out of the iterator.
    pub fn decode_lazy(
        buf: &Bytes,
        options: &DecodeOptions,
    ) -> Result<(RecordBatch, BatchRecords, usize), RecordError> {
        let mut r = Reader::shared(buf);
        let n = match entry_len(r.rest()) {
            EntryLen::Complete(n) => n,
            EntryLen::Partial => {
                return Err(RecordError::Malformed {
                    offset: peek_offset(r.rest()),
                    error: r.error(format!("entry truncated: {} bytes present", r.remaining())),
                })
            }
            EntryLen::Bad(error) => {
                return Err(RecordError::Malformed {
                    offset: peek_offset(r.rest()),
                    error,
                })
            }
        };
        let mut entry = r
            .sub(n, "entry")
            .map_err(|error| RecordError::Malformed { offset: -1, error })?;
        let rest = entry.rest();
        match rest[16] as i8 {
            2 => batch::decode_batch_lazy(&mut entry, options).map(|(b, rs)| (b, rs, n)),
            0 | 1 => {
                let mut b = message_set::decode_message(&mut entry, options)?;
                let records = std::mem::take(&mut b.records);
                Ok((b, BatchRecords::from_records(records), n))
            }
            magic => Err(RecordError::UnsupportedMagic {
                offset: peek_offset(rest),
                magic,
            }),
        }
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

enum EntryLen {
    /// The whole entry (header included) is present and this long.
    Complete(usize),
    /// The entry continues past the end of the buffer.
    Partial,
    /// The length field is impossible.
    Bad(DecodeError),
}

/// Reads the framing of the entry at the start of `b`.
fn entry_len(b: &[u8]) -> EntryLen {
    if b.len() < LOG_OVERHEAD {
        return EntryLen::Partial;
    }
    let len = i32::from_be_bytes([b[8], b[9], b[10], b[11]]);
    // Magic 0 is the smallest: crc 4, magic 1, attributes 1, key 4, value 4.
    if len < message_set::MIN_MESSAGE_LEN_V0 as i32 {
        return EntryLen::Bad(Reader::new(b).error(format!("entry length {len} is too small")));
    }
    let total = LOG_OVERHEAD + len as usize;
    if total > b.len() {
        EntryLen::Partial
    } else {
        EntryLen::Complete(total)
    }
}

fn peek_offset(b: &[u8]) -> i64 {
    match b.get(..8) {
        Some(s) => i64::from_be_bytes([s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]]),
        None => -1,
    }
}

/// Decodes one complete entry; `r` holds exactly its bytes.
fn decode_entry(r: &mut Reader<'_>, options: &DecodeOptions) -> Result<RecordBatch, RecordError> {
    let rest = r.rest();
    let offset = peek_offset(rest);
    // The magic byte sits at 16 in every format: after offset and length, behind
    // partitionLeaderEpoch (magic 2) or the CRC (magic 0/1).
    match rest[16] as i8 {
        0 | 1 => message_set::decode_message(r, options),
        2 => batch::decode_batch(r, options),
        magic => Err(RecordError::UnsupportedMagic { offset, magic }),
    }
}

/// Iterates over the entries of a fetched `records` buffer, yielding one
/// [`RecordBatch`] per entry, whatever its format.
///
/// A last entry cut short (brokers return partial batches at the end of a
/// fetch) ends the iteration cleanly; [`RecordsReader::truncated_tail`] then
/// says so. An entry that fails to decode yields an error and iteration goes
/// on with the next entry, since its length is known; an impossible length
/// yields an error and ends the iteration.
#[derive(Debug, Clone)]
pub struct RecordsReader<'a> {
    data: &'a Bytes,
    pos: usize,
    options: DecodeOptions,
    truncated: bool,
    done: bool,
}

impl<'a> RecordsReader<'a> {
    /// A reader over a fetched `records` buffer.
    pub fn new(data: &'a Bytes, options: DecodeOptions) -> Self {
        RecordsReader {
            data,
            pos: 0,
            options,
            truncated: false,
            done: false,
        }
    }

    /// True once iteration stopped at a partial trailing entry.
    pub fn truncated_tail(&self) -> bool {
        self.truncated
    }

    /// Bytes of the buffer consumed so far.
    pub fn position(&self) -> usize {
        self.pos
    }
}

impl Iterator for RecordsReader<'_> {
    type Item = Result<RecordBatch, RecordError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let mut r = Reader::shared(self.data);
        // `pos` never passes the end: it only advances by complete entries.
        r.skip(self.pos).ok()?;
        let rest = r.rest();
        if rest.is_empty() {
            self.done = true;
            return None;
        }
        match entry_len(rest) {
            EntryLen::Partial => {
                self.done = true;
                self.truncated = true;
                None
            }
            EntryLen::Bad(mut error) => {
                self.done = true;
                error.offset += self.pos;
                error.len = self.data.len();
                Some(Err(RecordError::Malformed {
                    offset: peek_offset(rest),
                    error,
                }))
            }
            EntryLen::Complete(n) => {
                self.pos += n;
                let mut entry = r.sub(n, "entry").ok()?;
                Some(decode_entry(&mut entry, &self.options))
            }
        }
    }
}

impl std::iter::FusedIterator for RecordsReader<'_> {}
