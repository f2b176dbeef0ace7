//! The Kafka 0.7 requests and responses, byte for byte as the Kafka wiki's
//! "Writing a Driver for Kafka" lays them out (and as Kafka 0.7's
//! `kafka.api` and `kafka.server` write them).
//!
//! ```text
//! request header        REQUEST_LENGTH int32   bytes after this field
//!                       REQUEST_TYPE   int16   0 PRODUCE .. 4 OFFSETS
//!                       TOPIC_LENGTH   int16
//!                       TOPIC          bytes
//!                       PARTITION      int32
//! multi-request header  REQUEST_LENGTH int32, REQUEST_TYPE int16,
//!                       TOPICPARTITION_COUNT int16
//! PRODUCE               header, MESSAGES_LENGTH int32, MESSAGES
//! MULTIPRODUCE          multi header, n × (TOPIC_LENGTH, TOPIC, PARTITION,
//!                       MESSAGES_LENGTH, MESSAGES)
//! FETCH                 header, OFFSET int64, MAX_SIZE int32
//! MULTIFETCH            multi header, n × (TOPIC_LENGTH, TOPIC, PARTITION,
//!                       OFFSET, MAX_SIZE)
//! OFFSETS               header, TIME int64, MAX_NUMBER int32
//!
//! response header       RESPONSE_LENGTH int32  bytes after this field
//!                       ERROR_CODE      int16
//! FETCH response        header, MESSAGES (RESPONSE_LENGTH - 2 bytes)
//! MULTIFETCH response   header (ERROR_CODE 0), then per fetch, in request
//!                       order, a whole FETCH response (its own length,
//!                       error code and messages)
//! OFFSETS response      header, NUMBER_OFFSETS int32, OFFSETS int64[]
//! ```
//!
//! PRODUCE and MULTIPRODUCE have no response. The MULTIFETCH response is not
//! drawn in the driver guide; its layout is that of Kafka 0.7's
//! `MultiMessageSetSend` (a 6-byte header, then each `MessageSetSend`).

use std::fmt;

use crate::error::Error;
use crate::protocol::KafkaCode;
use crate::wire::{Bytes, DecodeError, EncodeError, Reader, Writer};

/// A Kafka 0.7 response error code (the driver guide's table).
///
/// The five codes coincide in number and meaning with today's Kafka codes
/// (`UNKNOWN_SERVER_ERROR`, `OFFSET_OUT_OF_RANGE`, `CORRUPT_MESSAGE`,
/// `UNKNOWN_TOPIC_OR_PARTITION`, `INVALID_FETCH_SIZE`), so they cross the C
/// boundary unchanged as gregor error codes.
///
/// cbindgen:ignore
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ErrorCode07(pub i16);

impl ErrorCode07 {
    /// Unknown Error (−1): the broker failed in an unexpected way.
    ///
    /// cbindgen:ignore
    pub const UNKNOWN: ErrorCode07 = ErrorCode07(-1);
    /// NoError (0).
    ///
    /// cbindgen:ignore
    pub const NO_ERROR: ErrorCode07 = ErrorCode07(0);
    /// OffsetOutOfRange (1): the offset is no longer (or not yet) on the broker.
    ///
    /// cbindgen:ignore
    pub const OFFSET_OUT_OF_RANGE: ErrorCode07 = ErrorCode07(1);
    /// InvalidMessage (2): a message failed its checksum.
    ///
    /// cbindgen:ignore
    pub const INVALID_MESSAGE: ErrorCode07 = ErrorCode07(2);
    /// WrongPartition (3): the partition is not between 0 and num_partitions − 1.
    ///
    /// cbindgen:ignore
    pub const WRONG_PARTITION: ErrorCode07 = ErrorCode07(3);
    /// InvalidFetchSize (4): the fetch size is smaller than the message to fetch.
    ///
    /// cbindgen:ignore
    pub const INVALID_FETCH_SIZE: ErrorCode07 = ErrorCode07(4);

    /// The driver guide's name for the code ("WrongPartition"), or "Unknown code" for
    /// a value outside its table.
    pub fn name(self) -> &'static str {
        match self.0 {
            -1 => "Unknown",
            0 => "NoError",
            1 => "OffsetOutOfRange",
            2 => "InvalidMessage",
            3 => "WrongPartition",
            4 => "InvalidFetchSize",
            _ => "Unknown code",
        }
    }

    /// The driver guide's description of the code.
    pub fn description(self) -> &'static str {
        match self.0 {
            -1 => "Unknown Error",
            0 => "Success",
            1 => "Offset requested is no longer available on the server",
            2 => "A message you sent failed its checksum and is corrupt",
            3 => "You tried to access a partition that doesn't exist (was not between 0 and (num_partitions - 1))",
            4 => "The size you requested for fetching is smaller than the message you're trying to fetch",
            _ => "A code Kafka 0.7 does not define",
        }
    }

    /// True for NoError.
    pub fn is_ok(self) -> bool {
        self.0 == 0
    }

    /// `Ok(())` for NoError, else the broker error with `context` (which
    /// names the request, topic and partition).
    ///
    /// # Errors
    /// [`Error::Kafka`] carrying this code unchanged.
    pub fn check(self, context: impl fmt::Display) -> Result<(), Error> {
        if self.is_ok() {
            return Ok(());
        }
        Err(Error::kafka(
            KafkaCode(self.0),
            format!("{context}: Kafka 0.7 broker error {self}"),
        ))
    }
}

impl fmt::Display for ErrorCode07 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.name(), self.0)
    }
}

/// REQUEST_TYPE, the second field of every request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(i16)]
pub enum RequestType {
    /// Send a group of messages to a topic and partition (0).
    Produce = 0,
    /// Fetch a group of messages from a topic and partition (1).
    Fetch = 1,
    /// Several FETCH requests chained together (2).
    MultiFetch = 2,
    /// Several PRODUCE requests chained together (3).
    MultiProduce = 3,
    /// Offsets before a time (4).
    Offsets = 4,
}

impl RequestType {
    /// The type with this REQUEST_TYPE value, if any.
    pub fn from_i16(v: i16) -> Option<RequestType> {
        Some(match v {
            0 => RequestType::Produce,
            1 => RequestType::Fetch,
            2 => RequestType::MultiFetch,
            3 => RequestType::MultiProduce,
            4 => RequestType::Offsets,
            _ => return None,
        })
    }

    /// The driver guide's name ("MULTIFETCH").
    pub fn name(self) -> &'static str {
        match self {
            RequestType::Produce => "PRODUCE",
            RequestType::Fetch => "FETCH",
            RequestType::MultiFetch => "MULTIFETCH",
            RequestType::MultiProduce => "MULTIPRODUCE",
            RequestType::Offsets => "OFFSETS",
        }
    }
}

/// OFFSETS `TIME` meaning "the latest offset" (the high water mark).
///
/// cbindgen:ignore
pub const LATEST_TIME: i64 = -1;
/// OFFSETS `TIME` meaning "the earliest offset".
///
/// cbindgen:ignore
pub const EARLIEST_TIME: i64 = -2;

/// One topic-partition's messages to produce: the body of PRODUCE, and one
/// entry of MULTIPRODUCE.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ProduceRequest {
    /// TOPIC.
    pub topic: String,
    /// PARTITION (Kafka 0.7 brokers also take −1 for "any partition").
    pub partition: i32,
    /// MESSAGES: an encoded message set (see `legacy07::message`).
    pub messages: Bytes,
}

/// One topic-partition to fetch from: the body of FETCH, and one entry of MULTIFETCH.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FetchRequest {
    /// TOPIC.
    pub topic: String,
    /// PARTITION.
    pub partition: i32,
    /// OFFSET: the byte offset to read from.
    pub offset: i64,
    /// MAX_SIZE: the most bytes of messages to return.
    pub max_size: i32,
}

/// The body of OFFSETS.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OffsetsRequest {
    /// TOPIC.
    pub topic: String,
    /// PARTITION.
    pub partition: i32,
    /// TIME: milliseconds since the epoch, or [`LATEST_TIME`] / [`EARLIEST_TIME`].
    pub time: i64,
    /// MAX_NUMBER: return up to this many offsets.
    pub max_number: i32,
}

/// A whole Kafka 0.7 request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// PRODUCE (0).
    Produce(ProduceRequest),
    /// FETCH (1).
    Fetch(FetchRequest),
    /// MULTIFETCH (2).
    MultiFetch(Vec<FetchRequest>),
    /// MULTIPRODUCE (3).
    MultiProduce(Vec<ProduceRequest>),
    /// OFFSETS (4).
    Offsets(OffsetsRequest),
}

fn put_topic(w: &mut Writer, topic: &str) -> Result<(), EncodeError> {
    if topic.is_empty() {
        return Err(EncodeError::Invalid("topic name is empty".into()));
    }
    w.str_opt(false, Some(topic))
}

fn put_count(w: &mut Writer, n: usize) -> Result<(), EncodeError> {
    let n = i16::try_from(n).map_err(|_| EncodeError::TooLong {
        what: "TOPICPARTITION_COUNT",
        len: n,
    })?;
    w.i16(n);
    Ok(())
}

fn put_messages(w: &mut Writer, m: &[u8]) -> Result<(), EncodeError> {
    w.length(false, true, Some(m.len()), "MESSAGES")?;
    w.put(m);
    Ok(())
}

fn put_fetch(w: &mut Writer, f: &FetchRequest) -> Result<(), EncodeError> {
    put_topic(w, &f.topic)?;
    w.i32(f.partition);
    w.i64(f.offset);
    w.i32(f.max_size);
    Ok(())
}

fn put_produce(w: &mut Writer, p: &ProduceRequest) -> Result<(), EncodeError> {
    put_topic(w, &p.topic)?;
    w.i32(p.partition);
    put_messages(w, &p.messages)
}

fn read_topic(r: &mut Reader<'_>) -> Result<String, DecodeError> {
    let n = r.i16()?;
    if n <= 0 {
        return Err(r.error(format!("TOPIC_LENGTH {n}")));
    }
    let s = r.take(n as usize, "TOPIC")?;
    std::str::from_utf8(s)
        .map(str::to_owned)
        .map_err(|_| r.error("TOPIC is not UTF-8"))
}

fn read_fetch(r: &mut Reader<'_>) -> Result<FetchRequest, DecodeError> {
    Ok(FetchRequest {
        topic: read_topic(r)?,
        partition: r.i32()?,
        offset: r.i64()?,
        max_size: r.i32()?,
    })
}

fn read_produce(r: &mut Reader<'_>) -> Result<ProduceRequest, DecodeError> {
    let topic = read_topic(r)?;
    let partition = r.i32()?;
    let n = r.i32()?;
    if n < 0 {
        return Err(r.error(format!("MESSAGES_LENGTH {n}")));
    }
    Ok(ProduceRequest {
        topic,
        partition,
        messages: r.bytes(n as usize, "MESSAGES")?,
    })
}

/// Reads TOPICPARTITION_COUNT entries, never reserving more than the bytes
/// left could hold (an entry is at least `min_entry` bytes).
fn read_entries<T>(
    r: &mut Reader<'_>,
    min_entry: usize,
    mut one: impl FnMut(&mut Reader<'_>) -> Result<T, DecodeError>,
) -> Result<Vec<T>, DecodeError> {
    let n = r.i16()?;
    if n < 0 {
        return Err(r.error(format!("TOPICPARTITION_COUNT {n}")));
    }
    let mut v = Vec::with_capacity((n as usize).min(r.remaining() / min_entry));
    for _ in 0..n {
        v.push(one(r)?);
    }
    Ok(v)
}

impl Request {
    /// This request's REQUEST_TYPE.
    pub fn request_type(&self) -> RequestType {
        match self {
            Request::Produce(_) => RequestType::Produce,
            Request::Fetch(_) => RequestType::Fetch,
            Request::MultiFetch(_) => RequestType::MultiFetch,
            Request::MultiProduce(_) => RequestType::MultiProduce,
            Request::Offsets(_) => RequestType::Offsets,
        }
    }

    /// Encodes the whole request, REQUEST_LENGTH first.
    ///
    /// # Errors
    /// An empty topic name, a topic longer than 32767 bytes, more than 32767
    /// entries in a multi-request, or a request over 2 GiB.
    pub fn encode(&self) -> Result<Vec<u8>, EncodeError> {
        let mut w = Writer::with_capacity(64);
        let len_at = w.reserve_i32();
        w.i16(self.request_type() as i16);
        match self {
            Request::Produce(p) => put_produce(&mut w, p)?,
            Request::Fetch(f) => put_fetch(&mut w, f)?,
            Request::MultiFetch(fs) => {
                put_count(&mut w, fs.len())?;
                for f in fs {
                    put_fetch(&mut w, f)?;
                }
            }
            Request::MultiProduce(ps) => {
                put_count(&mut w, ps.len())?;
                for p in ps {
                    put_produce(&mut w, p)?;
                }
            }
            Request::Offsets(o) => {
                put_topic(&mut w, &o.topic)?;
                w.i32(o.partition);
                w.i64(o.time);
                w.i32(o.max_number);
            }
        }
        let len = i32::try_from(w.len() - 4).map_err(|_| EncodeError::TooLong {
            what: "request",
            len: w.len(),
        })?;
        w.patch_i32(len_at, len);
        Ok(w.into_vec())
    }

    /// Decodes a request from the bytes after REQUEST_LENGTH (a broker's
    /// view; the scripted 0.7 broker of the tests and tools use it). Every
    /// byte must be consumed.
    ///
    /// # Errors
    /// An unknown REQUEST_TYPE, a truncated or over-long body, a negative
    /// length or count, a topic that is empty or not UTF-8.
    pub fn decode(body: &Bytes) -> Result<Request, DecodeError> {
        let mut r = Reader::shared(body);
        let t = r.i16()?;
        let t =
            RequestType::from_i16(t).ok_or_else(|| r.error(format!("unknown REQUEST_TYPE {t}")))?;
        let req = match t {
            RequestType::Produce => Request::Produce(read_produce(&mut r)?),
            RequestType::Fetch => Request::Fetch(read_fetch(&mut r)?),
            RequestType::MultiFetch => {
                Request::MultiFetch(read_entries(&mut r, 2 + 1 + 4 + 8 + 4, read_fetch)?)
            }
            RequestType::MultiProduce => {
                Request::MultiProduce(read_entries(&mut r, 2 + 1 + 4 + 4, read_produce)?)
            }
            RequestType::Offsets => Request::Offsets(OffsetsRequest {
                topic: read_topic(&mut r)?,
                partition: r.i32()?,
                time: r.i64()?,
                max_number: r.i32()?,
            }),
        };
        if !r.is_empty() {
            return Err(r.error(format!(
                "{} bytes after the end of {}",
                r.remaining(),
                t.name()
            )));
        }
        Ok(req)
    }
}

/// A FETCH response, and one part of a MULTIFETCH response.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FetchResponse {
    /// ERROR_CODE.
    pub error: ErrorCode07,
    /// MESSAGES: the log's bytes from the requested offset, which may end
    /// in the middle of a message.
    pub messages: Bytes,
}

impl FetchResponse {
    /// Appends this part as it travels: RESPONSE_LENGTH, ERROR_CODE, MESSAGES.
    ///
    /// # Errors
    /// Messages over 2 GiB.
    pub(crate) fn write_into(&self, w: &mut Writer) -> Result<(), EncodeError> {
        w.length(false, true, Some(2 + self.messages.len()), "response")?;
        w.i16(self.error.0);
        w.put(&self.messages);
        Ok(())
    }

    /// [`Self::write_into`], public for the tests with the crate's
    /// `internals` feature.
    #[cfg(feature = "internals")]
    #[doc(hidden)]
    pub fn encode_into(&self, w: &mut Writer) -> Result<(), EncodeError> {
        self.write_into(w)
    }

    /// The whole FETCH response (a broker's view).
    ///
    /// # Errors
    /// Messages over 2 GiB.
    pub fn encode(&self) -> Result<Vec<u8>, EncodeError> {
        let mut w = Writer::with_capacity(6 + self.messages.len());
        self.write_into(&mut w)?;
        Ok(w.into_vec())
    }

    /// Decodes the bytes after RESPONSE_LENGTH. The messages share `body`.
    ///
    /// # Errors
    /// A body shorter than the error code.
    pub fn decode(body: &Bytes) -> Result<FetchResponse, DecodeError> {
        let mut r = Reader::shared(body);
        let error = ErrorCode07(r.i16()?);
        let messages = r.bytes(r.remaining(), "MESSAGES")?;
        Ok(FetchResponse { error, messages })
    }
}

/// A MULTIFETCH response.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MultiFetchResponse {
    /// The outer ERROR_CODE (Kafka 0.7 always sends 0 here).
    pub error: ErrorCode07,
    /// One part per fetch of the request, in its order.
    pub parts: Vec<FetchResponse>,
}

impl MultiFetchResponse {
    /// The whole MULTIFETCH response (a broker's view).
    ///
    /// # Errors
    /// A response over 2 GiB.
    pub fn encode(&self) -> Result<Vec<u8>, EncodeError> {
        let mut w = Writer::new();
        let len_at = w.reserve_i32();
        w.i16(self.error.0);
        for p in &self.parts {
            p.write_into(&mut w)?;
        }
        let len = i32::try_from(w.len() - 4).map_err(|_| EncodeError::TooLong {
            what: "response",
            len: w.len(),
        })?;
        w.patch_i32(len_at, len);
        Ok(w.into_vec())
    }

    /// Decodes the bytes after RESPONSE_LENGTH: the outer error code, then
    /// parts until the end. Each part's messages share `body`.
    ///
    /// # Errors
    /// A part whose length is below 2 or runs past the end.
    pub fn decode(body: &Bytes) -> Result<MultiFetchResponse, DecodeError> {
        let mut r = Reader::shared(body);
        let error = ErrorCode07(r.i16()?);
        let mut parts = Vec::new();
        while !r.is_empty() {
            let n = r.i32()?;
            if n < 2 {
                return Err(r.error(format!("part RESPONSE_LENGTH {n}")));
            }
            let mut p = r.sub(n as usize, "MULTIFETCH part")?;
            let error = ErrorCode07(p.i16()?);
            let messages = p.bytes(p.remaining(), "MESSAGES")?;
            parts.push(FetchResponse { error, messages });
        }
        Ok(MultiFetchResponse { error, parts })
    }
}

/// An OFFSETS response.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OffsetsResponse {
    /// ERROR_CODE.
    pub error: ErrorCode07,
    /// OFFSETS, in the broker's (descending) order.
    pub offsets: Vec<i64>,
}

impl OffsetsResponse {
    /// The whole OFFSETS response (a broker's view).
    ///
    /// # Errors
    /// More offsets than an int32 counts.
    pub fn encode(&self) -> Result<Vec<u8>, EncodeError> {
        let mut w = Writer::with_capacity(10 + 8 * self.offsets.len());
        let len_at = w.reserve_i32();
        w.i16(self.error.0);
        w.length(false, true, Some(self.offsets.len()), "OFFSETS")?;
        for o in &self.offsets {
            w.i64(*o);
        }
        let len = (w.len() - 4) as i32;
        w.patch_i32(len_at, len);
        Ok(w.into_vec())
    }

    /// Decodes the bytes after RESPONSE_LENGTH. A response with a non-zero
    /// error code may stop after the code (nothing follows it then).
    ///
    /// # Errors
    /// A negative NUMBER_OFFSETS, fewer offsets than it says, or bytes after them.
    pub fn decode(body: &[u8]) -> Result<OffsetsResponse, DecodeError> {
        let mut r = Reader::new(body);
        let error = ErrorCode07(r.i16()?);
        if !error.is_ok() && r.is_empty() {
            return Ok(OffsetsResponse {
                error,
                offsets: Vec::new(),
            });
        }
        let n = r.i32()?;
        if n < 0 {
            return Err(r.error(format!("NUMBER_OFFSETS {n}")));
        }
        let n = n as usize;
        if n > r.remaining() / 8 {
            return Err(r.error(format!(
                "NUMBER_OFFSETS {n} with {} bytes left",
                r.remaining()
            )));
        }
        let mut offsets = Vec::with_capacity(n);
        for _ in 0..n {
            offsets.push(r.i64()?);
        }
        if !r.is_empty() {
            return Err(r.error(format!("{} bytes after the offsets", r.remaining())));
        }
        Ok(OffsetsResponse { error, offsets })
    }
}
