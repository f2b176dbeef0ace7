//! Message sets, magic 0 and 1 (magic 1 adds the timestamp, KIP-32), for
//! brokers before 0.11 and for data older brokers wrote.
//!
//! ```text
//! offset: int64
//! messageSize: int32        bytes after this field
//! crc: uint32               CRC-32 (IEEE) of magic..end
//! magic: int8               0 or 1
//! attributes: int8          bits 0-2 codec; magic 1: bit 3 timestamp type
//! timestamp: int64          magic 1 only
//! key: bytes                int32 length, -1 null
//! value: bytes              int32 length, -1 null
//! ```
//!
//! A compressed message is a wrapper whose value is a compressed message set.
//! In magic 0 the inner messages carry absolute offsets. In magic 1 they carry
//! offsets relative to the first (KIP-31): the wrapper's offset is that of
//! the last inner message, so an inner message's offset is the wrapper's
//! offset minus the last inner relative offset plus its own. When the
//! wrapper's timestamp type is LogAppendTime, its timestamp is every inner
//! message's.

use crate::compression::{self, Codec};
use crate::wire::{DecodeError, EncodeError, Reader, Writer};

use super::model::{
    DecodeOptions, Record, RecordBatch, RecordError, TimestampType, LOG_OVERHEAD,
    NO_PARTITION_LEADER_EPOCH, NO_PRODUCER_EPOCH, NO_PRODUCER_ID, NO_SEQUENCE, NO_TIMESTAMP,
};

/// The smallest magic 0 message after its size field: CRC, magic, attributes, key and value lengths.
///
/// cbindgen:ignore
pub const MIN_MESSAGE_LEN_V0: usize = 4 + 1 + 1 + 4 + 4;
/// The smallest magic 1 message after its size field (adds the timestamp).
///
/// cbindgen:ignore
pub const MIN_MESSAGE_LEN_V1: usize = MIN_MESSAGE_LEN_V0 + 8;
/// Attribute bit 3 (magic 1): the timestamp is LogAppendTime.
///
/// cbindgen:ignore
pub const ATTR_LOG_APPEND_TIME: i8 = 0x08;

/// One message as stored.
struct Message {
    offset: i64,
    crc: u32,
    magic: i8,
    attributes: i8,
    timestamp: i64,
    key: Option<crate::wire::Bytes>,
    value: Option<crate::wire::Bytes>,
}

/// Reads one message; `r` holds exactly it, from the offset field.
fn read_message(r: &mut Reader<'_>, options: &DecodeOptions) -> Result<Message, RecordError> {
    let offset = r
        .i64()
        .map_err(|error| RecordError::Malformed { offset: -1, error })?;
    let m = |error: DecodeError| RecordError::Malformed { offset, error };
    let size = r.i32().map_err(m)?;
    if size < MIN_MESSAGE_LEN_V0 as i32 || size as usize != r.remaining() {
        return Err(m(r.error(format!(
            "message size {size} with {} bytes in the entry",
            r.remaining()
        ))));
    }
    let crc = r.u32().map_err(m)?;
    if options.check_crcs {
        let computed = compression::gzip::crc32(r.rest());
        if computed != crc {
            return Err(RecordError::CrcMismatch {
                offset,
                stored: crc,
                computed,
            });
        }
    }
    let magic = r.i8().map_err(m)?;
    if !(0..=1).contains(&magic) {
        return Err(RecordError::UnsupportedMagic { offset, magic });
    }
    let attributes = r.i8().map_err(m)?;
    let timestamp = if magic >= 1 {
        r.i64().map_err(m)?
    } else {
        NO_TIMESTAMP
    };
    let key = r.bytes_opt(false).map_err(m)?;
    let value = r.bytes_opt(false).map_err(m)?;
    if !r.is_empty() {
        return Err(m(
            r.error(format!("{} bytes after the value", r.remaining()))
        ));
    }
    Ok(Message {
        offset,
        crc,
        magic,
        attributes,
        timestamp,
        key,
        value,
    })
}

fn timestamp_type(magic: i8, attributes: i8) -> TimestampType {
    match magic {
        0 => TimestampType::NotAvailable,
        _ if attributes & ATTR_LOG_APPEND_TIME != 0 => TimestampType::LogAppendTime,
        _ => TimestampType::CreateTime,
    }
}

fn record(offset: i64, timestamp: i64, timestamp_type: TimestampType, msg: Message) -> Record {
    Record {
        offset,
        timestamp,
        timestamp_type,
        key: msg.key,
        value: msg.value,
        headers: Vec::new(),
        leader_epoch: None,
        producer_id: None,
    }
}

/// Decodes one message (magic 0 or 1), expanding a compressed wrapper into
/// its inner messages; `r` holds exactly the entry.
pub(crate) fn decode_message(
    r: &mut Reader<'_>,
    options: &DecodeOptions,
) -> Result<RecordBatch, RecordError> {
    let msg = read_message(r, options)?;
    let wrapper_offset = msg.offset;
    let m = |error: DecodeError| RecordError::Malformed {
        offset: wrapper_offset,
        error,
    };
    let codec = Codec::from_attributes(i16::from(msg.attributes)).map_err(|error| {
        RecordError::Compression {
            offset: wrapper_offset,
            error,
        }
    })?;
    let ts_type = timestamp_type(msg.magic, msg.attributes);
    let mut batch = RecordBatch {
        magic: msg.magic,
        base_offset: wrapper_offset,
        last_offset_delta: 0,
        partition_leader_epoch: NO_PARTITION_LEADER_EPOCH,
        crc: msg.crc,
        attributes: i16::from(msg.attributes as u8),
        codec,
        timestamp_type: ts_type,
        is_transactional: false,
        is_control: false,
        has_delete_horizon: false,
        base_timestamp: msg.timestamp,
        max_timestamp: msg.timestamp,
        producer_id: NO_PRODUCER_ID,
        producer_epoch: NO_PRODUCER_EPOCH,
        base_sequence: NO_SEQUENCE,
        records: Vec::new(),
    };
    if codec == Codec::None {
        batch
            .records
            .push(record(msg.offset, msg.timestamp, ts_type, msg));
        return Ok(batch);
    }
    let Some(compressed) = &msg.value else {
        return Err(m(r.error("compressed wrapper message with a null value")));
    };
    let inner: crate::wire::Bytes =
        compression::decompress_for_magic(codec, msg.magic, compressed, options.decompress_limit)
            .map_err(|error| RecordError::Compression {
                offset: wrapper_offset,
                error,
            })?
            .into();
    let mut ir = Reader::shared(&inner);
    let mut inner_msgs = Vec::with_capacity(ir.remaining() / (LOG_OVERHEAD + MIN_MESSAGE_LEN_V0));
    while !ir.is_empty() {
        let rest = ir.rest();
        let size = rest
            .get(8..12)
            .map(|s| i32::from_be_bytes([s[0], s[1], s[2], s[3]]));
        let Some(size) = size.and_then(|s| usize::try_from(s).ok()) else {
            return Err(m(
                ir.error("inner message header truncated or negative size")
            ));
        };
        let mut one = ir
            .sub(LOG_OVERHEAD.saturating_add(size), "inner message")
            .map_err(m)?;
        let inner_msg = read_message(&mut one, options)?;
        if inner_msg.magic != msg.magic {
            return Err(m(ir.error(format!(
                "inner message magic {} in a magic {} wrapper",
                inner_msg.magic, msg.magic
            ))));
        }
        if inner_msg.attributes & 0x07 != 0 {
            return Err(m(ir.error("compressed message inside a compressed wrapper")));
        }
        inner_msgs.push(inner_msg);
    }
    let (Some(first), Some(last)) = (inner_msgs.first(), inner_msgs.last()) else {
        return Err(m(
            ir.error("compressed wrapper message with no inner messages")
        ));
    };
    // Magic 1: relative offsets, anchored at the wrapper's (the last inner message's).
    let base = if msg.magic >= 1 {
        wrapper_offset.wrapping_sub(last.offset)
    } else {
        0
    };
    batch.base_offset = base.wrapping_add(first.offset);
    batch.base_timestamp = first.timestamp;
    batch.last_offset_delta = i32::try_from(wrapper_offset.wrapping_sub(batch.base_offset))
        .map_err(|_| m(ir.error("inner offsets span more than 2^31")))?;
    batch.records.reserve_exact(inner_msgs.len());
    for inner_msg in inner_msgs {
        let offset = base.wrapping_add(inner_msg.offset);
        let (ts, tt) = match ts_type {
            TimestampType::LogAppendTime => (msg.timestamp, TimestampType::LogAppendTime),
            t => (inner_msg.timestamp, t),
        };
        batch.records.push(record(offset, ts, tt, inner_msg));
    }
    Ok(batch)
}

/// Builds a message set of magic 0 or 1, for brokers before 0.11: plain
/// messages, or (with a codec) one compressed wrapper message holding them,
/// as the Java producer writes it (magic 1 inner offsets relative, the
/// wrapper's offset the last one, its timestamp the largest).
#[derive(Debug, Clone)]
pub struct MessageSetBuilder {
    magic: i8,
    buf: Writer,
    base_offset: i64,
    count: i64,
    max_timestamp: i64,
}

impl MessageSetBuilder {
    /// An empty message set of this magic.
    ///
    /// # Errors
    /// [`EncodeError::Invalid`] unless `magic` is 0 or 1.
    pub fn new(magic: i8) -> Result<Self, EncodeError> {
        if !(0..=1).contains(&magic) {
            return Err(EncodeError::Invalid(format!(
                "message sets have magic 0 or 1, not {magic}"
            )));
        }
        Ok(MessageSetBuilder {
            magic,
            buf: Writer::new(),
            base_offset: 0,
            count: 0,
            max_timestamp: NO_TIMESTAMP,
        })
    }

    /// Sets the offset of the first message (producers leave it 0).
    pub fn base_offset(mut self, base_offset: i64) -> Self {
        self.base_offset = base_offset;
        self
    }

    /// Messages appended so far.
    pub fn len(&self) -> usize {
        self.count as usize
    }

    /// True before the first message.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The uncompressed size so far.
    pub fn size_in_bytes(&self) -> usize {
        self.buf.len()
    }

    /// Appends a message with the next offset.
    ///
    /// # Errors
    /// [`EncodeError::FieldNotAvailable`] for a timestamp other than
    /// [`NO_TIMESTAMP`] in magic 0; [`EncodeError::TooLong`] for a key or
    /// value over `i32::MAX` bytes.
    pub fn append(
        &mut self,
        timestamp: i64,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
    ) -> Result<(), EncodeError> {
        if self.magic == 0 && timestamp != NO_TIMESTAMP {
            return Err(EncodeError::FieldNotAvailable {
                field: "timestamp",
                version: 0,
            });
        }
        let offset = self.base_offset.wrapping_add(self.count);
        write_message(&mut self.buf, offset, self.magic, 0, timestamp, key, value)?;
        self.max_timestamp = self.max_timestamp.max(timestamp);
        self.count += 1;
        Ok(())
    }

    /// Returns the message set, compressed into one wrapper message when
    /// `codec` is not [`Codec::None`] (at `level`, see [`compression::compress`]).
    ///
    /// # Errors
    /// [`EncodeError::Invalid`] for an empty set, zstd (magic 2 only), or a codec failure.
    pub fn finish(self, codec: Codec, level: Option<i32>) -> Result<Vec<u8>, EncodeError> {
        if self.count == 0 {
            return Err(EncodeError::Invalid(
                "a message set needs at least one message".into(),
            ));
        }
        let mut inner = self.buf.into_vec();
        if codec == Codec::None {
            return Ok(inner);
        }
        if self.magic >= 1 && self.base_offset != 0 {
            // Inner offsets of magic 1 are relative: 0, 1, 2, …
            let mut pos = 0;
            let mut i = 0i64;
            while pos < inner.len() {
                inner[pos..pos + 8].copy_from_slice(&i.to_be_bytes());
                let size = i32::from_be_bytes([
                    inner[pos + 8],
                    inner[pos + 9],
                    inner[pos + 10],
                    inner[pos + 11],
                ]);
                pos += LOG_OVERHEAD + size as usize;
                i += 1;
            }
        }
        let mut compressed = Vec::new();
        compression::compress_for_magic(codec, self.magic, level, &inner, &mut compressed)
            .map_err(|e| EncodeError::Invalid(e.to_string()))?;
        let mut out = Writer::with_capacity(LOG_OVERHEAD + MIN_MESSAGE_LEN_V1 + compressed.len());
        let last = self.base_offset.wrapping_add(self.count - 1);
        let ts = if self.magic >= 1 {
            self.max_timestamp
        } else {
            NO_TIMESTAMP
        };
        write_message(
            &mut out,
            last,
            self.magic,
            codec.id() as i8,
            ts,
            None,
            Some(&compressed),
        )?;
        Ok(out.into_vec())
    }
}

/// Appends one message, size and CRC backpatched.
fn write_message(
    w: &mut Writer,
    offset: i64,
    magic: i8,
    attributes: i8,
    timestamp: i64,
    key: Option<&[u8]>,
    value: Option<&[u8]>,
) -> Result<(), EncodeError> {
    w.i64(offset);
    let size_at = w.reserve_i32();
    let crc_at = w.reserve_i32();
    w.i8(magic);
    w.i8(attributes);
    if magic >= 1 {
        w.i64(timestamp);
    }
    let start = size_at + 4;
    let res = w
        .bytes_opt(false, key)
        .and_then(|()| w.bytes_opt(false, value));
    if let Err(e) = res {
        w.truncate(size_at - 8);
        return Err(e);
    }
    let size = w.len() - start;
    let Ok(size32) = i32::try_from(size) else {
        w.truncate(size_at - 8);
        return Err(EncodeError::TooLong {
            what: "message",
            len: size,
        });
    };
    w.patch_i32(size_at, size32);
    let crc = compression::gzip::crc32(&w.as_slice()[crc_at + 4..]);
    w.patch_u32(crc_at, crc);
    Ok(())
}
