//! Kafka 0.7 messages and message sets (the Kafka wiki's "Writing a Driver
//! for Kafka", and Kafka 0.7's
//! `kafka.message.Message` / `ByteBufferMessageSet`).
//!
//! ```text
//! MAGIC 0   LENGTH int32 | MAGIC int8 = 0 | CHECKSUM uint32 | PAYLOAD
//! MAGIC 1   LENGTH int32 | MAGIC int8 = 1 | COMPRESSION int8 | CHECKSUM uint32 | PAYLOAD
//! ```
//!
//! LENGTH counts the bytes after itself; CHECKSUM is the CRC-32 (IEEE) of the
//! PAYLOAD only; COMPRESSION's low two bits name the codec (0 none, 1 gzip,
//! 2 snappy). A message set is messages back to back, nothing between them.
//!
//! Offsets are byte positions in the partition's log: the message at offset
//! `o` with length `LENGTH` is followed by the one at `o + 4 + LENGTH`.
//!
//! A compressed message is a wrapper whose PAYLOAD is a whole message set,
//! compressed: gzip as `java.util.zip.GZIPOutputStream` writes it, snappy as
//! snappy-java's `SnappyOutputStream` (the "Xerial" framing, 32 KiB blocks),
//! which is what Kafka 0.7's `CompressionUtils` wrote. The broker only sees
//! the wrapper, so the only offsets that exist are the wrappers': every
//! message inside one reports the wrapper's offset, and the next offset to
//! fetch is the one after the wrapper.

use crc::{Crc, CRC_32_ISO_HDLC};

use crate::compression::{self, Codec};
use crate::error::{local, Error};
use crate::wire::{Bytes, EncodeError, Reader, Writer};

/// MAGIC 0: no COMPRESSION byte (Kafka 0.6 and before).
///
/// cbindgen:ignore
pub const MAGIC_0: i8 = 0;
/// MAGIC 1: a COMPRESSION byte follows MAGIC (Kafka 0.7).
///
/// cbindgen:ignore
pub const MAGIC_1: i8 = 1;
/// COMPRESSION's codec bits.
///
/// cbindgen:ignore
pub const COMPRESSION_MASK: i8 = 0x03;
/// How deep compressed messages may nest inside each other before the data
/// is refused (Kafka 0.7 never nests them; its reader would recurse).
///
/// cbindgen:ignore
pub const MAX_NESTING: usize = 4;

const CRC32: Crc<u32> = Crc::<u32>::new(&CRC_32_ISO_HDLC);

/// The CRC-32 (IEEE) of `payload`, as CHECKSUM holds it.
pub fn checksum(payload: &[u8]) -> u32 {
    CRC32.checksum(payload)
}

/// The codecs a 0.7 message can name.
fn codec_of(attributes: i8) -> Result<Codec, u8> {
    match attributes & COMPRESSION_MASK {
        0 => Ok(Codec::None),
        1 => Ok(Codec::Gzip),
        2 => Ok(Codec::Snappy),
        c => Err(c as u8),
    }
}

/// One message as it travels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// MAGIC: 0 or 1.
    pub magic: i8,
    /// COMPRESSION (magic 1 only; 0 for magic 0).
    pub attributes: i8,
    /// CHECKSUM as it was on the wire.
    pub checksum: u32,
    /// PAYLOAD.
    pub payload: Bytes,
}

impl Message {
    /// An uncompressed message with a correct checksum.
    pub fn new(magic: i8, payload: impl Into<Bytes>) -> Message {
        let payload = payload.into();
        Message {
            magic,
            attributes: 0,
            checksum: checksum(&payload),
            payload,
        }
    }

    /// The codec COMPRESSION names (always none for magic 0).
    ///
    /// # Errors
    /// Codec bits 3, which Kafka 0.7 does not define.
    pub fn codec(&self) -> Result<Codec, Error> {
        if self.magic == MAGIC_0 {
            return Ok(Codec::None);
        }
        codec_of(self.attributes).map_err(|c| {
            Error::local(
                local::BAD_COMPRESSION,
                format!("Kafka 0.7 message names compression codec {c}, which does not exist"),
            )
        })
    }

    /// True when CHECKSUM is the CRC-32 of PAYLOAD.
    pub fn is_valid(&self) -> bool {
        self.checksum == checksum(&self.payload)
    }

    /// The bytes after LENGTH.
    pub fn size(&self) -> usize {
        self.header_len() + self.payload.len()
    }

    fn header_len(&self) -> usize {
        if self.magic == MAGIC_0 {
            5
        } else {
            6
        }
    }

    /// Appends LENGTH and the message.
    ///
    /// # Errors
    /// A magic other than 0 or 1, attributes on a magic 0 message, or a
    /// payload over 2 GiB.
    pub(crate) fn write_into(&self, w: &mut Writer) -> Result<(), EncodeError> {
        if self.magic != MAGIC_0 && self.magic != MAGIC_1 {
            return Err(EncodeError::Invalid(format!(
                "Kafka 0.7 messages have magic 0 or 1, not {}",
                self.magic
            )));
        }
        if self.magic == MAGIC_0 && self.attributes != 0 {
            return Err(EncodeError::FieldNotAvailable {
                field: "COMPRESSION",
                version: 0,
            });
        }
        w.length(false, true, Some(self.size()), "message")?;
        w.i8(self.magic);
        if self.magic == MAGIC_1 {
            w.i8(self.attributes);
        }
        w.u32(self.checksum);
        w.put(&self.payload);
        Ok(())
    }

    /// [`Self::write_into`], public for the tests with the crate's
    /// `internals` feature.
    #[cfg(feature = "internals")]
    #[doc(hidden)]
    pub fn encode_into(&self, w: &mut Writer) -> Result<(), EncodeError> {
        self.write_into(w)
    }
}

/// Encodes `payloads` as a message set of `magic` messages, compressed into
/// one wrapper message when `codec` is gzip or snappy (the wrapper is magic
/// 1, as Kafka 0.7 writes it; its inner messages have the given magic).
///
/// # Errors
/// A codec other than none, gzip or snappy; compression with magic 0 (it
/// has no COMPRESSION byte); a magic other than 0 or 1.
pub fn encode_message_set(
    payloads: &[&[u8]],
    magic: i8,
    codec: Codec,
) -> Result<Vec<u8>, EncodeError> {
    let mut w = Writer::with_capacity(payloads.iter().map(|p| p.len() + 10).sum());
    for p in payloads {
        Message::new(magic, *p).write_into(&mut w)?;
    }
    if codec == Codec::None {
        return Ok(w.into_vec());
    }
    if !matches!(codec, Codec::Gzip | Codec::Snappy) {
        return Err(EncodeError::Invalid(format!(
            "Kafka 0.7 compresses with gzip or snappy, not {codec}"
        )));
    }
    if magic == MAGIC_0 {
        return Err(EncodeError::FieldNotAvailable {
            field: "COMPRESSION",
            version: 0,
        });
    }
    let mut compressed = Vec::new();
    compression::compress(codec, None, w.as_slice(), &mut compressed)
        .map_err(|e| EncodeError::Invalid(e.to_string()))?;
    let payload = Bytes::from(compressed);
    let wrapper = Message {
        magic: MAGIC_1,
        attributes: codec.id() as i8,
        checksum: checksum(&payload),
        payload,
    };
    let mut out = Writer::with_capacity(wrapper.size() + 4);
    wrapper.write_into(&mut out)?;
    Ok(out.into_vec())
}

/// A message read from a fetched message set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchedMessage {
    /// Byte offset of the message in the log, or of the compressed wrapper it
    /// came in (the only offsets a 0.7 broker knows).
    pub offset: i64,
    /// Offset of the message (or wrapper) after it: where to fetch next once
    /// this one is consumed. The same for every message of one wrapper.
    pub next_offset: i64,
    /// The message's own MAGIC.
    pub magic: i8,
    /// The codec of the wrapper it came in, or none.
    pub compression: Codec,
    /// PAYLOAD.
    pub payload: Bytes,
}

/// A fetched message set, decoded.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DecodedSet {
    /// The messages, wrappers expanded, in log order.
    pub messages: Vec<FetchedMessage>,
    /// Bytes of whole messages at the front of the data: the data's start
    /// offset plus this is where the next fetch starts.
    pub valid_bytes: usize,
    /// LENGTH of the incomplete message at the end, when at least its LENGTH
    /// arrived (so a caller can tell how big a fetch it needs).
    pub partial_length: Option<i32>,
}

impl DecodedSet {
    /// Bytes after the whole messages: a message the fetch size cut off.
    pub fn partial_bytes(&self, data_len: usize) -> usize {
        data_len - self.valid_bytes
    }
}

fn corrupt(offset: i64, reason: impl std::fmt::Display) -> Error {
    Error::local(
        local::BAD_MSG,
        format!("Kafka 0.7 message at offset {offset}: {reason}"),
    )
}

/// Reads one message from exactly its bytes (those after LENGTH).
///
/// # Errors
/// A magic other than 0 or 1, or fewer bytes than the header.
pub fn decode_message(r: &mut Reader<'_>, offset: i64) -> Result<Message, Error> {
    let magic = r.i8().map_err(|e| corrupt(offset, e))?;
    let attributes = match magic {
        MAGIC_0 => 0,
        MAGIC_1 => r.i8().map_err(|e| corrupt(offset, e))?,
        m => return Err(corrupt(offset, format!("unknown MAGIC {m}"))),
    };
    let checksum = r.u32().map_err(|e| corrupt(offset, e))?;
    let payload = r
        .bytes(r.remaining(), "PAYLOAD")
        .map_err(|e| corrupt(offset, e))?;
    Ok(Message {
        magic,
        attributes,
        checksum,
        payload,
    })
}

/// Decodes a fetched message set whose first byte is at log offset `base`.
///
/// A message cut off at the end (the fetch size ended inside it) is not an
/// error: it is left out and reported in [`DecodedSet::partial_length`].
/// Compressed wrappers are expanded; their data, all levels together, may
/// not decompress to more than `decompress_limit` bytes.
///
/// # Errors
/// A checksum mismatch, an unknown magic or codec, a LENGTH below the
/// smallest message, corrupt compressed data or data over the limit, or an
/// incomplete message inside a compressed set.
pub fn decode_message_set(
    data: &Bytes,
    base: i64,
    decompress_limit: usize,
) -> Result<DecodedSet, Error> {
    let mut out = DecodedSet::default();
    let mut budget = decompress_limit;
    let mut r = Reader::shared(data);
    while r.remaining() >= 4 {
        let start = r.pos();
        let offset = base + start as i64;
        let len = r.i32().map_err(|e| corrupt(offset, e))?;
        if len < 5 {
            return Err(corrupt(offset, format!("LENGTH {len}")));
        }
        if len as usize > r.remaining() {
            out.partial_length = Some(len);
            break;
        }
        let mut m = r
            .sub(len as usize, "message")
            .map_err(|e| corrupt(offset, e))?;
        let next = offset + 4 + i64::from(len);
        let msg = decode_message(&mut m, offset)?;
        expand(
            msg,
            offset,
            next,
            Codec::None,
            0,
            &mut budget,
            &mut out.messages,
        )?;
        out.valid_bytes = r.pos();
    }
    Ok(out)
}

/// Checks `msg` and appends it, or what its compressed payload holds.
fn expand(
    msg: Message,
    offset: i64,
    next: i64,
    outer_codec: Codec,
    depth: usize,
    budget: &mut usize,
    out: &mut Vec<FetchedMessage>,
) -> Result<(), Error> {
    if !msg.is_valid() {
        return Err(corrupt(
            offset,
            format!(
                "CHECKSUM {:#010x} but the payload's CRC-32 is {:#010x}",
                msg.checksum,
                checksum(&msg.payload)
            ),
        ));
    }
    let codec = msg.codec().map_err(|e| corrupt(offset, e))?;
    if codec == Codec::None {
        out.push(FetchedMessage {
            offset,
            next_offset: next,
            magic: msg.magic,
            compression: outer_codec,
            payload: msg.payload,
        });
        return Ok(());
    }
    if depth >= MAX_NESTING {
        return Err(corrupt(
            offset,
            format!("compressed messages nested more than {MAX_NESTING} deep"),
        ));
    }
    let inner = compression::decompress(codec, &msg.payload, *budget).map_err(|e| {
        Error::local(
            local::BAD_COMPRESSION,
            format!("Kafka 0.7 message at offset {offset}: {e}"),
        )
    })?;
    *budget -= inner.len();
    let inner = Bytes::from(inner);
    let mut r = Reader::shared(&inner);
    while !r.is_empty() {
        let len = r.i32().map_err(|e| corrupt(offset, e))?;
        if len < 5 || len as usize > r.remaining() {
            return Err(corrupt(
                offset,
                format!(
                    "compressed set holds a message of LENGTH {len} with {} bytes left",
                    r.remaining()
                ),
            ));
        }
        let mut m = r
            .sub(len as usize, "message")
            .map_err(|e| corrupt(offset, e))?;
        let inner_msg = decode_message(&mut m, offset)?;
        expand(inner_msg, offset, next, codec, depth + 1, budget, out)?;
    }
    Ok(())
}
