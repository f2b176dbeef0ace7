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

use crate::wire::{Bytes, DecodeError, Reader};

pub mod batch;
pub mod crc32c;
pub mod message_set;
mod model;
#[cfg(test)]
mod tests;

pub use batch::{BatchRecords, ControlRecord, ControlRecordType, RecordBatchBuilder};
pub use message_set::MessageSetBuilder;
pub(crate) use model::LOG_OVERHEAD;
pub use model::{
    DecodeOptions, Header, Record, RecordBatch, RecordError, TimestampType,
    NO_PARTITION_LEADER_EPOCH, NO_PRODUCER_EPOCH, NO_PRODUCER_ID, NO_SEQUENCE, NO_TIMESTAMP,
};

impl RecordBatch {
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
