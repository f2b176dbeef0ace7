//! Record batches, magic 2 (KIP-98; headers KIP-82; delete horizon KIP-534).
//!
//! ```text
//! baseOffset: int64                 0
//! batchLength: int32                8   bytes after this field
//! partitionLeaderEpoch: int32      12
//! magic: int8 (= 2)                16
//! crc: uint32                      17   CRC-32C of attributes..end
//! attributes: int16                21   bits 0-2 codec, 3 timestamp type,
//!                                       4 transactional, 5 control, 6 delete horizon
//! lastOffsetDelta: int32           23
//! baseTimestamp: int64             27
//! maxTimestamp: int64              35
//! producerId: int64                43
//! producerEpoch: int16             51
//! baseSequence: int32              53
//! recordsCount: int32              57
//! records                          61   compressed as one block when a codec is set
//!
//! record: length varint, attributes int8, timestampDelta varlong,
//!         offsetDelta varint, key (varint length, -1 null), value (same),
//!         headers: count varint, then key (varint length, string), value (nullable)
//! ```

use crate::compression::{self, Codec};
use crate::wire::{Bytes, DecodeError, EncodeError, Reader, Writer};

use super::crc32c::crc32c;
use super::model::{
    DecodeOptions, Header, Record, RecordBatch, RecordError, TimestampType, LOG_OVERHEAD,
    NO_PARTITION_LEADER_EPOCH, NO_PRODUCER_EPOCH, NO_PRODUCER_ID, NO_SEQUENCE, NO_TIMESTAMP,
};

/// The magic byte of record batches.
///
/// cbindgen:ignore
pub const MAGIC: i8 = 2;
/// Bytes before the first record.
///
/// cbindgen:ignore
pub const HEADER_LEN: usize = 61;
/// The smallest `batchLength`: the header after the length field.
///
/// cbindgen:ignore
pub const MIN_BATCH_LEN: usize = HEADER_LEN - LOG_OVERHEAD;
/// Where the CRC-32C'd bytes start (the attributes).
const CRC_FROM: usize = 21;
/// The fewest bytes a record takes: length, attributes, timestamp delta,
/// offset delta, key length, value length, header count.
const MIN_RECORD_LEN: usize = 7;

/// Attribute bits 0–2: the compression codec.
///
/// cbindgen:ignore
pub const ATTR_CODEC_MASK: i16 = 0x07;
/// Attribute bit 3: timestamps are LogAppendTime.
///
/// cbindgen:ignore
pub const ATTR_LOG_APPEND_TIME: i16 = 0x08;
/// Attribute bit 4: written by a transactional producer.
///
/// cbindgen:ignore
pub const ATTR_TRANSACTIONAL: i16 = 0x10;
/// Attribute bit 5: a control batch.
///
/// cbindgen:ignore
pub const ATTR_CONTROL: i16 = 0x20;
/// Attribute bit 6: `baseTimestamp` holds the delete horizon.
///
/// cbindgen:ignore
pub const ATTR_DELETE_HORIZON: i16 = 0x40;

/// What a control record marks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ControlRecordType {
    /// Type 0: a transaction was aborted.
    Abort,
    /// Type 1: a transaction was committed.
    Commit,
    /// Any other type (KRaft's leader-change and snapshot markers, or future ones).
    Other(i16),
}

impl ControlRecordType {
    /// The type id on the wire.
    pub fn id(self) -> i16 {
        match self {
            ControlRecordType::Abort => 0,
            ControlRecordType::Commit => 1,
            ControlRecordType::Other(id) => id,
        }
    }

    /// The type with this id.
    pub fn from_id(id: i16) -> Self {
        match id {
            0 => ControlRecordType::Abort,
            1 => ControlRecordType::Commit,
            id => ControlRecordType::Other(id),
        }
    }
}

/// The key of a control record: `version: int16, type: int16`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ControlRecord {
    /// The key's version (0 today; newer versions may append fields, which are ignored).
    pub version: i16,
    /// What the record marks.
    pub kind: ControlRecordType,
}

impl ControlRecord {
    /// Decodes a control record's key.
    ///
    /// # Errors
    /// If the key is shorter than 4 bytes or its version is negative.
    pub fn parse_key(key: &[u8]) -> Result<ControlRecord, DecodeError> {
        let mut r = Reader::new(key);
        let version = r.i16()?;
        if version < 0 {
            return Err(r.error(format!("control record key version {version}")));
        }
        let kind = ControlRecordType::from_id(r.i16()?);
        Ok(ControlRecord { version, kind })
    }

    /// Decodes the key of `record`, a record of a control batch.
    ///
    /// # Errors
    /// If the key is null or does not parse (see [`ControlRecord::parse_key`]).
    pub fn from_record(record: &Record) -> Result<ControlRecord, DecodeError> {
        match &record.key {
            Some(k) => ControlRecord::parse_key(k),
            None => Err(Reader::new(&[]).error("control record without a key")),
        }
    }

    /// The key's bytes.
    pub fn encode_key(&self) -> [u8; 4] {
        let mut k = [0u8; 4];
        k[..2].copy_from_slice(&self.version.to_be_bytes());
        k[2..].copy_from_slice(&self.kind.id().to_be_bytes());
        k
    }
}

/// Decodes one record batch; `r` holds exactly the batch, from `baseOffset`.
pub(crate) fn decode_batch(
    r: &mut Reader<'_>,
    options: &DecodeOptions,
) -> Result<RecordBatch, RecordError> {
    let (mut batch, mut records) = decode_batch_lazy(r, options)?;
    let base_offset = batch.base_offset;
    let m = |error: DecodeError| RecordError::Malformed {
        offset: base_offset,
        error,
    };
    // Never trust the count for the allocation: each record takes at least 7 bytes.
    batch
        .records
        .reserve_exact(records.size_hint().1.unwrap_or(0));
    for rec in records.by_ref() {
        batch.records.push(rec.map_err(m)?);
    }
    records.finish().map_err(m)?;
    Ok(batch)
}

/// Decodes a record batch's header (checking its CRC and decompressing
/// it), leaving its records to be decoded one at a time.
pub(crate) fn decode_batch_lazy(
    r: &mut Reader<'_>,
    options: &DecodeOptions,
) -> Result<(RecordBatch, BatchRecords), RecordError> {
    let base_offset = r
        .i64()
        .map_err(|error| RecordError::Malformed { offset: -1, error })?;
    let m = |error: DecodeError| RecordError::Malformed {
        offset: base_offset,
        error,
    };
    let len = r.i32().map_err(m)?;
    if len < MIN_BATCH_LEN as i32 || len as usize != r.remaining() {
        return Err(m(r.error(format!(
            "batch length {len} with {} bytes in the entry",
            r.remaining()
        ))));
    }
    let partition_leader_epoch = r.i32().map_err(m)?;
    let magic = r.i8().map_err(m)?;
    if magic != MAGIC {
        return Err(RecordError::UnsupportedMagic {
            offset: base_offset,
            magic,
        });
    }
    let crc = r.u32().map_err(m)?;
    if options.check_crcs {
        let computed = crc32c(r.rest());
        if computed != crc {
            return Err(RecordError::CrcMismatch {
                offset: base_offset,
                stored: crc,
                computed,
            });
        }
    }
    let attributes = r.i16().map_err(m)?;
    let codec = Codec::from_attributes(attributes).map_err(|error| RecordError::Compression {
        offset: base_offset,
        error,
    })?;
    let last_offset_delta = r.i32().map_err(m)?;
    let base_timestamp = r.i64().map_err(m)?;
    let max_timestamp = r.i64().map_err(m)?;
    let producer_id = r.i64().map_err(m)?;
    let producer_epoch = r.i16().map_err(m)?;
    let base_sequence = r.i32().map_err(m)?;
    let count = r.i32().map_err(m)?;
    if count < 0 {
        return Err(m(r.error(format!("negative record count {count}"))));
    }
    let timestamp_type = if attributes & ATTR_LOG_APPEND_TIME != 0 {
        TimestampType::LogAppendTime
    } else {
        TimestampType::CreateTime
    };
    let batch = RecordBatch {
        magic,
        base_offset,
        last_offset_delta,
        partition_leader_epoch,
        crc,
        attributes,
        codec,
        timestamp_type,
        is_transactional: attributes & ATTR_TRANSACTIONAL != 0,
        is_control: attributes & ATTR_CONTROL != 0,
        has_delete_horizon: attributes & ATTR_DELETE_HORIZON != 0,
        base_timestamp,
        max_timestamp,
        producer_id,
        producer_epoch,
        base_sequence,
        records: Vec::new(),
    };
    let data: Bytes = if codec == Codec::None {
        let n = r.remaining();
        r.bytes(n, "records").map_err(m)?
    } else {
        compression::decompress(codec, r.rest(), options.decompress_limit)
            .map_err(|error| RecordError::Compression {
                offset: base_offset,
                error,
            })?
            .into()
    };
    let records = BatchRecords {
        data,
        pos: 0,
        left: count as usize,
        base_offset,
        base_timestamp,
        max_timestamp,
        timestamp_type,
        leader_epoch: (partition_leader_epoch != NO_PARTITION_LEADER_EPOCH)
            .then_some(partition_leader_epoch),
        producer_id: (producer_id != NO_PRODUCER_ID).then_some(producer_id),
        eager: None,
    };
    Ok((batch, records))
}

/// The records of one batch, decoded one at a time from the batch's buffer
/// (the fetched one, or the decompressed one): keys, values and headers
/// share it. Yields an error, and then nothing, at the first malformed
/// record.
#[derive(Debug, Clone)]
pub struct BatchRecords {
    data: Bytes,
    pos: usize,
    /// Records the header says are still to come.
    left: usize,
    base_offset: i64,
    base_timestamp: i64,
    max_timestamp: i64,
    timestamp_type: TimestampType,
    leader_epoch: Option<i32>,
    producer_id: Option<i64>,
    /// Records decoded up front (message sets).
    eager: Option<std::vec::IntoIter<Record>>,
}

impl Default for BatchRecords {
    fn default() -> Self {
        BatchRecords::from_records(Vec::new())
    }
}

/// A zigzag varint of at most `max` bytes from `b` at `*pos`.
#[inline(always)]
fn zigzag(b: &[u8], pos: &mut usize, max: usize) -> Option<i64> {
    let first = *b.get(*pos)?;
    let v = if first < 0x80 {
        *pos += 1;
        u64::from(first)
    } else {
        let mut v: u64 = 0;
        let mut i = 0;
        loop {
            if i == max {
                return None;
            }
            let byte = *b.get(*pos + i)?;
            v |= u64::from(byte & 0x7f) << (7 * i);
            i += 1;
            if byte & 0x80 == 0 {
                break;
            }
        }
        if max == 5 && v > u64::from(u32::MAX) {
            return None;
        }
        *pos += i;
        v
    };
    Some(((v >> 1) as i64) ^ -((v & 1) as i64))
}

/// A record's key and value borrowed from its encoding (`None` for a
/// null one), as [`BatchRecords::key_value_at`] reads them.
pub type KeyValue<'a> = (Option<&'a [u8]>, Option<&'a [u8]>);

/// A record's key and value, and whether it has headers.
pub type KeyValueHeaders<'a> = (Option<&'a [u8]>, Option<&'a [u8]>, bool);

impl BatchRecords {
    /// The `count` records encoded one after the other in `data` (the
    /// records of a v2 batch after its header, uncompressed), decoded one
    /// at a time; offsets count from 0.
    pub fn encoded(data: Bytes, count: usize) -> Self {
        BatchRecords {
            data,
            pos: 0,
            left: count,
            base_offset: 0,
            base_timestamp: 0,
            max_timestamp: 0,
            timestamp_type: TimestampType::CreateTime,
            leader_epoch: None,
            producer_id: None,
            eager: None,
        }
    }

    /// Where the encoded record at `pos` of `data` ends (its length prefix
    /// included), or `None` if `data` holds no whole record there.
    pub fn record_end(data: &[u8], pos: usize) -> Option<usize> {
        let mut p = pos;
        let len = usize::try_from(zigzag(data, &mut p, 5)?).ok()?;
        let end = p.checked_add(len)?;
        (end <= data.len()).then_some(end)
    }

    /// The key and value of the encoded record at `pos` of `data`,
    /// borrowed from it (`None` inside for a null one); `None` if `data`
    /// holds no whole, well-formed record there. Reads only the fields up
    /// to the value: no headers, no copies.
    pub fn key_value_at(data: &[u8], pos: usize) -> Option<KeyValue<'_>> {
        Self::key_value_headers_at(data, pos).map(|(k, v, _)| (k, v))
    }

    /// As [`key_value_at`](Self::key_value_at), and whether the record has
    /// headers (read from their count, without decoding them).
    pub fn key_value_headers_at(
        data: &[u8],
        pos: usize,
    ) -> Option<KeyValueHeaders<'_>> {
        let end = Self::record_end(data, pos)?;
        let b = &data[..end];
        let mut p = pos;
        zigzag(b, &mut p, 5)?; // the length, checked by record_end
        p += 1; // attributes
        zigzag(b, &mut p, 10)?; // timestamp delta
        zigzag(b, &mut p, 5)?; // offset delta
        let nullable = |p: &mut usize| -> Option<Option<&[u8]>> {
            let len = zigzag(b, p, 5)?;
            if len == -1 {
                return Some(None);
            }
            let n = usize::try_from(len).ok()?;
            let v = b.get(*p..p.checked_add(n)?)?;
            *p += n;
            Some(Some(v))
        };
        let key = nullable(&mut p)?;
        let value = nullable(&mut p)?;
        let headers = zigzag(b, &mut p, 5)?;
        Some((key, value, headers > 0))
    }

    /// Records decoded already (for formats without lazy decoding).
    pub fn from_records(records: Vec<Record>) -> Self {
        BatchRecords {
            data: Bytes::new(),
            pos: 0,
            left: 0,
            base_offset: 0,
            base_timestamp: 0,
            max_timestamp: 0,
            timestamp_type: TimestampType::CreateTime,
            leader_epoch: None,
            producer_id: None,
            eager: Some(records.into_iter()),
        }
    }

    /// An error at `pos` of the records.
    fn error(&self, pos: usize, reason: String) -> DecodeError {
        let mut r = Reader::new(&self.data);
        let _ = r.skip(pos.min(self.data.len()));
        r.error(reason)
    }

    /// Checks that nothing follows the last record.
    ///
    /// # Errors
    /// If bytes are left over after all the records the header counts.
    pub fn finish(&self) -> Result<(), DecodeError> {
        if self.eager.is_none() && self.left == 0 && self.pos != self.data.len() {
            return Err(self.error(
                self.pos,
                format!("{} bytes after the last record", self.data.len() - self.pos),
            ));
        }
        Ok(())
    }

    #[inline(always)]
    fn decode_one(&mut self) -> Result<Record, DecodeError> {
        let all: &[u8] = &self.data;
        let mut pos = self.pos;
        let bad = |this: &Self, at: usize, what: &str| this.error(at, format!("record {what}"));
        let len = zigzag(all, &mut pos, 5).ok_or_else(|| bad(self, pos, "length"))?;
        let Ok(len) = usize::try_from(len) else {
            return Err(self.error(pos, format!("negative record length {len}")));
        };
        if len > all.len() - pos {
            return Err(self.error(
                pos,
                format!("record: need {len} bytes, {} remaining", all.len() - pos),
            ));
        }
        let end = pos + len;
        // every read below stays within the record
        let b = &all[..end];
        if pos >= end {
            return Err(bad(self, pos, "attributes"));
        }
        pos += 1; // attributes: unused
        let ts_delta = zigzag(b, &mut pos, 10).ok_or_else(|| bad(self, pos, "timestamp delta"))?;
        let offset_delta = zigzag(b, &mut pos, 5).ok_or_else(|| bad(self, pos, "offset delta"))?;
        let key = self.nullable(b, &mut pos, "key")?;
        let value = self.nullable(b, &mut pos, "value")?;
        let count = zigzag(b, &mut pos, 5).ok_or_else(|| bad(self, pos, "header count"))?;
        let Ok(count) = usize::try_from(count) else {
            return Err(self.error(pos, format!("negative header count {count}")));
        };
        let mut headers = if count == 0 {
            Vec::new()
        } else {
            Vec::with_capacity(count.min((end - pos) / 2))
        };
        for _ in 0..count {
            let klen = zigzag(b, &mut pos, 5).ok_or_else(|| bad(self, pos, "header key"))?;
            let klen = usize::try_from(klen)
                .ok()
                .filter(|n| *n <= end - pos)
                .ok_or_else(|| self.error(pos, format!("header key length {klen}")))?;
            let key = self.data.slice(pos..pos + klen);
            pos += klen;
            let value = self.nullable(b, &mut pos, "header value")?;
            headers.push(Header { key, value });
        }
        if pos != end {
            return Err(self.error(pos, format!("{} bytes left over in a record", end - pos)));
        }
        self.pos = end;
        Ok(Record {
            offset: self.base_offset.wrapping_add(offset_delta),
            timestamp: if self.timestamp_type == TimestampType::LogAppendTime {
                self.max_timestamp
            } else {
                self.base_timestamp.wrapping_add(ts_delta)
            },
            timestamp_type: self.timestamp_type,
            key,
            value,
            headers,
            leader_epoch: self.leader_epoch,
            producer_id: self.producer_id,
        })
    }

    /// A varint-length-prefixed byte string within `b`, -1 for null.
    #[inline(always)]
    fn nullable(
        &self,
        b: &[u8],
        pos: &mut usize,
        what: &str,
    ) -> Result<Option<Bytes>, DecodeError> {
        let len =
            zigzag(b, pos, 5).ok_or_else(|| self.error(*pos, format!("{what}: bad length")))?;
        match usize::try_from(len) {
            Ok(n) if n <= b.len() - *pos => {
                let v = self.data.slice(*pos..*pos + n);
                *pos += n;
                Ok(Some(v))
            }
            Err(_) if len == -1 => Ok(None),
            _ => Err(self.error(*pos, format!("{what}: length {len}"))),
        }
    }
}

impl Iterator for BatchRecords {
    type Item = Result<Record, DecodeError>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if let Some(e) = &mut self.eager {
            return e.next().map(Ok);
        }
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        match self.decode_one() {
            Ok(r) => Some(Ok(r)),
            Err(e) => {
                self.left = 0;
                self.pos = self.data.len();
                Some(Err(e))
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.eager {
            Some(e) => e.size_hint(),
            // each record takes at least 7 bytes
            None => (
                0,
                Some(self.left.min((self.data.len() - self.pos) / MIN_RECORD_LEN)),
            ),
        }
    }
}

/// Builds one record batch (magic 2) for producing: records are written
/// straight into one buffer behind room for the header, then compressed as
/// one block, and the header, lengths and CRC filled in by [`finish`].
///
/// The base timestamp is the first record's (as the Java producer does);
/// offsets deltas count up from 0.
///
/// [`finish`]: RecordBatchBuilder::finish
#[derive(Debug, Clone)]
pub struct RecordBatchBuilder {
    buf: Writer,
    base_offset: i64,
    partition_leader_epoch: i32,
    producer_id: i64,
    producer_epoch: i16,
    base_sequence: i32,
    attributes: i16,
    base_timestamp: i64,
    max_timestamp: i64,
    count: i32,
}

impl Default for RecordBatchBuilder {
    fn default() -> Self {
        RecordBatchBuilder::new()
    }
}

/// Bytes a zigzag varint of `v` takes.
#[inline]
fn varint_len(v: i32) -> usize {
    uvarlong_len(((v << 1) ^ (v >> 31)) as u32 as u64)
}

/// Bytes a zigzag varlong of `v` takes.
#[inline]
fn varlong_len(v: i64) -> usize {
    uvarlong_len(((v << 1) ^ (v >> 63)) as u64)
}

#[inline]
fn uvarlong_len(u: u64) -> usize {
    (70 - (u | 1).leading_zeros() as usize) / 7
}

/// A length as a varint, or `TooLong`.
#[inline]
fn len_i32(len: usize, what: &'static str) -> Result<i32, EncodeError> {
    i32::try_from(len).map_err(|_| EncodeError::TooLong { what, len })
}

impl RecordBatchBuilder {
    /// An empty batch: base offset 0, no producer id, CreateTime, not transactional.
    pub fn new() -> Self {
        RecordBatchBuilder::with_capacity(0)
    }

    /// An empty batch with room for `bytes` bytes of records.
    pub fn with_capacity(bytes: usize) -> Self {
        let mut buf = Writer::with_capacity(HEADER_LEN + bytes);
        buf.put(&[0; HEADER_LEN]);
        RecordBatchBuilder {
            buf,
            base_offset: 0,
            partition_leader_epoch: NO_PARTITION_LEADER_EPOCH,
            producer_id: NO_PRODUCER_ID,
            producer_epoch: NO_PRODUCER_EPOCH,
            base_sequence: NO_SEQUENCE,
            attributes: 0,
            base_timestamp: NO_TIMESTAMP,
            max_timestamp: NO_TIMESTAMP,
            count: 0,
        }
    }

    /// Sets `baseOffset` (producers leave it 0; the broker assigns offsets).
    pub fn base_offset(mut self, base_offset: i64) -> Self {
        self.base_offset = base_offset;
        self
    }

    /// Sets `partitionLeaderEpoch` (producers leave it -1).
    pub fn partition_leader_epoch(mut self, epoch: i32) -> Self {
        self.partition_leader_epoch = epoch;
        self
    }

    /// Sets the idempotent producer's id, epoch and the sequence of the first record.
    pub fn producer(mut self, producer_id: i64, producer_epoch: i16, base_sequence: i32) -> Self {
        self.producer_id = producer_id;
        self.producer_epoch = producer_epoch;
        self.base_sequence = base_sequence;
        self
    }

    fn flag(mut self, bit: i16, on: bool) -> Self {
        if on {
            self.attributes |= bit;
        } else {
            self.attributes &= !bit;
        }
        self
    }

    /// Marks the batch as written inside a transaction.
    pub fn transactional(self, on: bool) -> Self {
        self.flag(ATTR_TRANSACTIONAL, on)
    }

    /// Marks the batch as a control batch (its records' keys should be [`ControlRecord`]s).
    pub fn control(self, on: bool) -> Self {
        self.flag(ATTR_CONTROL, on)
    }

    /// Sets the timestamp type (brokers set LogAppendTime; producers write CreateTime).
    pub fn timestamp_type(self, t: TimestampType) -> Self {
        self.flag(ATTR_LOG_APPEND_TIME, t == TimestampType::LogAppendTime)
    }

    /// Records appended so far.
    pub fn len(&self) -> usize {
        self.count as usize
    }

    /// True before the first record.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The uncompressed size of the batch so far, header included.
    pub fn size_in_bytes(&self) -> usize {
        self.buf.len()
    }

    /// The bytes a record would add to [`size_in_bytes`](Self::size_in_bytes), at most
    /// (a producer checks it against `batch.size` before appending), or
    /// `None` when that sum does not fit a `usize` (no such record can be
    /// encoded; a producer answers `MESSAGE_TOO_LARGE`).
    pub fn record_size_upper_bound(
        key: Option<&[u8]>,
        value: Option<&[u8]>,
        headers: &[(&str, Option<&[u8]>)],
    ) -> Option<usize> {
        Self::record_size_upper_bound_of(
            key.map(<[u8]>::len),
            value.map(<[u8]>::len),
            headers.iter().map(|(k, v)| (k.len(), v.map(<[u8]>::len))),
        )
    }

    /// As [`record_size_upper_bound`](Self::record_size_upper_bound), from
    /// the lengths alone: length varints of at most 5 bytes, the attributes
    /// byte, timestamp and offset deltas of at most 10 and 5.
    pub fn record_size_upper_bound_of(
        key_len: Option<usize>,
        value_len: Option<usize>,
        headers: impl IntoIterator<Item = (usize, Option<usize>)>,
    ) -> Option<usize> {
        let mut n = (5 + 1 + 10 + 5 + 5 + 5 + 5usize)
            .checked_add(key_len.unwrap_or(0))?
            .checked_add(value_len.unwrap_or(0))?;
        for (k, v) in headers {
            n = n
                .checked_add(10)?
                .checked_add(k)?
                .checked_add(v.unwrap_or(0))?;
        }
        Some(n)
    }

    /// Appends a record with the next offset.
    ///
    /// `timestamp` is milliseconds since the epoch (or [`NO_TIMESTAMP`]);
    /// headers are `(key, value)` pairs, a `None` value being null.
    ///
    /// # Errors
    /// [`EncodeError::TooLong`] for a key, value, header or record longer than
    /// `i32::MAX`, or a batch of more than `i32::MAX` records.
    pub fn append(
        &mut self,
        timestamp: i64,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
        headers: &[(&str, Option<&[u8]>)],
    ) -> Result<(), EncodeError> {
        if self.count == i32::MAX {
            return Err(EncodeError::TooLong {
                what: "record batch",
                len: self.count as usize + 1,
            });
        }
        if self.count == 0 {
            self.base_timestamp = timestamp;
            self.max_timestamp = timestamp;
        }
        let timestamp_delta = timestamp.wrapping_sub(self.base_timestamp);
        let offset_delta = self.count;
        let key_len = match key {
            Some(k) => len_i32(k.len(), "record key")?,
            None => -1,
        };
        let value_len = match value {
            Some(v) => len_i32(v.len(), "record value")?,
            None => -1,
        };
        let header_count = len_i32(headers.len(), "record headers")?;
        let mut body = 1
            + varlong_len(timestamp_delta)
            + varint_len(offset_delta)
            + varint_len(key_len)
            + key.map_or(0, <[u8]>::len)
            + varint_len(value_len)
            + value.map_or(0, <[u8]>::len)
            + varint_len(header_count);
        for (k, v) in headers {
            let v_len = match v {
                Some(v) => len_i32(v.len(), "header value")?,
                None => -1,
            };
            body += varint_len(len_i32(k.len(), "header key")?)
                + k.len()
                + varint_len(v_len)
                + v.map_or(0, <[u8]>::len);
        }
        let body_len = len_i32(body, "record")?;

        let w = &mut self.buf;
        w.varint(body_len);
        w.i8(0);
        w.varlong(timestamp_delta);
        w.varint(offset_delta);
        w.varint(key_len);
        if let Some(k) = key {
            w.put(k);
        }
        w.varint(value_len);
        if let Some(v) = value {
            w.put(v);
        }
        w.varint(header_count);
        for (k, v) in headers {
            w.varint(k.len() as i32);
            w.put(k.as_bytes());
            match v {
                Some(v) => {
                    w.varint(v.len() as i32);
                    w.put(v);
                }
                None => w.varint(-1),
            }
        }
        self.max_timestamp = self.max_timestamp.max(timestamp);
        self.count += 1;
        Ok(())
    }

    /// Compresses the records with `codec` (at `level`, see
    /// [`compression::compress`]) and returns the whole batch, lengths and
    /// CRC filled in.
    ///
    /// # Errors
    /// [`EncodeError::Invalid`] for an empty batch or a codec failure;
    /// [`EncodeError::TooLong`] for a batch over `i32::MAX` bytes.
    pub fn finish(self, codec: Codec, level: Option<i32>) -> Result<Vec<u8>, EncodeError> {
        self.finish_keeping(codec, level).map(|(batch, _)| batch)
    }

    /// As [`finish`](Self::finish), and also hands back the uncompressed
    /// buffer when `codec` compressed it (`None` without compression: the
    /// records are then the batch's own bytes after [`HEADER_LEN`]). A
    /// producer keeps it to report each message's key, value and headers
    /// without copying them again.
    ///
    /// # Errors
    /// As [`finish`](Self::finish).
    pub fn finish_keeping(
        self,
        codec: Codec,
        level: Option<i32>,
    ) -> Result<(Vec<u8>, Option<Vec<u8>>), EncodeError> {
        if self.count == 0 {
            return Err(EncodeError::Invalid(
                "a record batch needs at least one record".into(),
            ));
        }
        let mut buf = self.buf.into_vec();
        let mut plain = None;
        if codec != Codec::None {
            let mut out = Vec::with_capacity(HEADER_LEN + (buf.len() - HEADER_LEN) / 2);
            out.extend_from_slice(&[0; HEADER_LEN]);
            compression::compress(codec, level, &buf[HEADER_LEN..], &mut out)
                .map_err(|e| EncodeError::Invalid(e.to_string()))?;
            plain = Some(std::mem::replace(&mut buf, out));
        }
        let batch_len =
            i32::try_from(buf.len() - LOG_OVERHEAD).map_err(|_| EncodeError::TooLong {
                what: "record batch",
                len: buf.len(),
            })?;
        let h = &mut buf[..HEADER_LEN];
        h[0..8].copy_from_slice(&self.base_offset.to_be_bytes());
        h[8..12].copy_from_slice(&batch_len.to_be_bytes());
        h[12..16].copy_from_slice(&self.partition_leader_epoch.to_be_bytes());
        h[16] = MAGIC as u8;
        let attributes = self.attributes | i16::from(codec.id());
        h[21..23].copy_from_slice(&attributes.to_be_bytes());
        h[23..27].copy_from_slice(&(self.count - 1).to_be_bytes());
        h[27..35].copy_from_slice(&self.base_timestamp.to_be_bytes());
        h[35..43].copy_from_slice(&self.max_timestamp.to_be_bytes());
        h[43..51].copy_from_slice(&self.producer_id.to_be_bytes());
        h[51..53].copy_from_slice(&self.producer_epoch.to_be_bytes());
        h[53..57].copy_from_slice(&self.base_sequence.to_be_bytes());
        h[57..61].copy_from_slice(&self.count.to_be_bytes());
        let crc = crc32c(&buf[CRC_FROM..]);
        buf[17..21].copy_from_slice(&crc.to_be_bytes());
        Ok((buf, plain))
    }

    /// The buffer as written so far (the header still blank, records from
    /// [`HEADER_LEN`] on), without copying it: what a producer keeps of a
    /// batch that will never be sent, to report its messages.
    pub fn into_buffer(self) -> Vec<u8> {
        self.buf.into_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_size_bound_never_wraps() {
        let f = |k, v, h: &[(usize, Option<usize>)]| {
            RecordBatchBuilder::record_size_upper_bound_of(k, v, h.iter().copied())
        };
        assert_eq!(f(None, Some(3), &[]), Some(39));
        // key_len + value_len past usize::MAX, and a sum the fixed overhead
        // pushes past it: no small size that would pass message.max.bytes
        assert_eq!(f(Some(usize::MAX), Some(3), &[]), None);
        let half = isize::MAX as usize;
        assert_eq!(f(Some(half), Some(half), &[]), None);
        assert_eq!(f(None, None, &[(usize::MAX - 5, None)]), None);
        assert_eq!(f(None, None, &[(1, Some(usize::MAX))]), None);
        // the bound holds what append writes
        let mut b = RecordBatchBuilder::with_capacity(64);
        let before = b.size_in_bytes();
        b.append(0, Some(b"k"), Some(b"value"), &[("h", Some(b"v"))])
            .unwrap();
        let bound = RecordBatchBuilder::record_size_upper_bound(
            Some(b"k"),
            Some(b"value"),
            &[("h", Some(b"v"))],
        );
        assert!(b.size_in_bytes() - before <= bound.unwrap());
    }

    #[test]
    fn key_value_at_reads_a_record_in_place() {
        // two records: key "k" with a null value, then a null key with "vv"
        let data = [
            14, 0, 0, 0, 2, b'k', 1, 0, //
            16, 0, 0, 0, 1, 4, b'v', b'v', 0,
        ];
        assert_eq!(
            BatchRecords::key_value_at(&data, 0),
            Some((Some(&b"k"[..]), None))
        );
        assert_eq!(
            BatchRecords::key_value_at(&data, 8),
            Some((None, Some(&b"vv"[..])))
        );
        // the same as the full decoding
        let full: Vec<Record> = BatchRecords::encoded(Bytes::from(data.to_vec()), 2)
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(full[1].value.as_deref(), Some(&b"vv"[..]));
        // cut short, or a value longer than its record: nothing
        assert_eq!(BatchRecords::key_value_at(&data[..12], 8), None);
        let lying = [14, 0, 0, 0, 2, b'k', 20, 0];
        assert_eq!(BatchRecords::key_value_at(&lying, 0), None);
        assert_eq!(BatchRecords::key_value_at(&data, 99), None);
    }

    #[test]
    fn varint_lengths_match_the_writer() {
        for v in [0, 1, -1, 63, 64, -64, -65, 8191, 8192, i32::MAX, i32::MIN] {
            let mut w = Writer::new();
            w.varint(v);
            assert_eq!(varint_len(v), w.len(), "{v}");
        }
        for v in [0i64, 1, -1, 1 << 20, -(1 << 40), i64::MAX, i64::MIN] {
            let mut w = Writer::new();
            w.varlong(v);
            assert_eq!(varlong_len(v), w.len(), "{v}");
        }
    }

    #[test]
    fn control_record_keys() {
        let commit = ControlRecord {
            version: 0,
            kind: ControlRecordType::Commit,
        };
        assert_eq!(commit.encode_key(), [0, 0, 0, 1]);
        assert_eq!(
            ControlRecord::parse_key(&[0, 0, 0, 0]).unwrap().kind,
            ControlRecordType::Abort
        );
        assert_eq!(ControlRecord::parse_key(&[0, 0, 0, 1]).unwrap(), commit);
        assert_eq!(
            ControlRecord::parse_key(&[0, 0, 0, 3]).unwrap().kind,
            ControlRecordType::Other(3)
        );
        // A newer version with extra fields still reads.
        assert_eq!(
            ControlRecord::parse_key(&[0, 1, 0, 1, 9, 9])
                .unwrap()
                .version,
            1
        );
        assert!(ControlRecord::parse_key(&[0, 0, 0]).is_err());
        assert!(ControlRecord::parse_key(&[0xff, 0xff, 0, 0]).is_err());
    }
}
