//! A blocking client for one Kafka 0.7 broker: PRODUCE, MULTIPRODUCE,
//! FETCH, MULTIFETCH and OFFSETS (what Kafka 0.7's `SyncProducer` and
//! `SimpleConsumer` do).

use crate::sync::MutexExt;
use std::sync::Mutex;
use std::time::Duration;

use super::conn::Conn;
use super::message::{self, decode_message_set, FetchedMessage, MAGIC_0, MAGIC_1};
use super::protocol::{
    ErrorCode07, FetchRequest, FetchResponse, MultiFetchResponse, OffsetsRequest, OffsetsResponse,
    ProduceRequest, Request, EARLIEST_TIME, LATEST_TIME,
};
use crate::compression::Codec;
use crate::error::{local, Error};
use crate::protocol::KafkaCode;
use crate::wire::Bytes;

/// Client settings. The defaults are Kafka 0.7's own (its property names in
/// brackets) where it had one.
#[derive(Debug, Clone)]
pub struct Options {
    /// How long connecting may take (`connect.timeout.ms`, 5 s).
    pub connect_timeout: Duration,
    /// How long one read or write on the socket may block (`socket.timeout.ms`, 30 s).
    pub socket_timeout: Duration,
    /// The largest response accepted; a RESPONSE_LENGTH above it is an error
    /// before anything is allocated (100 MiB).
    pub max_response_bytes: usize,
    /// The most bytes the compressed messages of one fetched set may
    /// decompress to (100 MiB).
    pub max_decompressed_bytes: usize,
    /// The largest payload produced, after compression (`max.message.size`, 1000000).
    pub max_message_size: usize,
    /// MAGIC of produced messages: 1 (Kafka 0.7), or 0 for a 0.6 broker.
    pub magic: i8,
    /// Compression of produced message sets (`compression.codec`: none).
    pub compression: Codec,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            connect_timeout: Duration::from_secs(5),
            socket_timeout: Duration::from_secs(30),
            max_response_bytes: 100 << 20,
            max_decompressed_bytes: 100 << 20,
            max_message_size: 1_000_000,
            magic: MAGIC_1,
            compression: Codec::None,
        }
    }
}

impl Options {
    /// Checks the values a user can get wrong.
    ///
    /// # Errors
    /// A magic other than 0 or 1; compression other than none, gzip or
    /// snappy; compression with magic 0; a zero timeout.
    pub fn validate(&self) -> Result<(), Error> {
        if self.magic != MAGIC_0 && self.magic != MAGIC_1 {
            return Err(Error::invalid_arg(format!(
                "Kafka 0.7 messages have magic 0 or 1, not {}",
                self.magic
            )));
        }
        if !matches!(self.compression, Codec::None | Codec::Gzip | Codec::Snappy) {
            return Err(Error::invalid_arg(format!(
                "Kafka 0.7 compresses with gzip or snappy, not {}",
                self.compression
            )));
        }
        if self.magic == MAGIC_0 && self.compression != Codec::None {
            return Err(Error::invalid_arg(
                "magic 0 messages cannot be compressed (they have no COMPRESSION byte)",
            ));
        }
        if self.connect_timeout.is_zero() || self.socket_timeout.is_zero() {
            return Err(Error::invalid_arg("timeouts must be above zero"));
        }
        Ok(())
    }
}

/// One topic-partition's messages for [`Client::multi_produce`].
#[derive(Debug, Clone, Copy)]
pub struct ProduceSet<'a> {
    /// The topic.
    pub topic: &'a str,
    /// The partition.
    pub partition: i32,
    /// The payloads, one message each.
    pub payloads: &'a [&'a [u8]],
}

/// What one FETCH returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchResult {
    /// The topic.
    pub topic: String,
    /// The partition.
    pub partition: i32,
    /// The offset fetched from.
    pub offset: i64,
    /// The whole messages received, compressed wrappers expanded.
    pub messages: Vec<FetchedMessage>,
    /// Where the next fetch starts: after the last whole message (or
    /// wrapper), always a message boundary. Equal to `offset` when nothing
    /// whole came back (the end of the log).
    pub next_offset: i64,
    /// Bytes of messages the broker sent.
    pub bytes: usize,
    /// Bytes of a message cut off at the end by MAX_SIZE (not returned;
    /// the next fetch gets it whole).
    pub partial_bytes: usize,
}

/// A connection to one Kafka 0.7 broker. Thread-safe: requests from several
/// threads take turns (0.7 has no correlation ids, so one connection carries
/// one request at a time). A failed connection is dropped and made again on
/// the next call.
#[derive(Debug)]
pub struct Client {
    addr: String,
    opts: Options,
    conn: Mutex<Option<Conn>>,
}

fn tp(topic: &str, partition: i32) -> String {
    format!("{topic}/{partition}")
}

impl Client {
    /// Connects to the broker at `addr` ("host:port").
    ///
    /// # Errors
    /// Bad options, a name that does not resolve, a refused or timed-out connection.
    pub fn connect(addr: &str, opts: Options) -> Result<Client, Error> {
        opts.validate()?;
        let conn = Conn::connect(
            addr,
            opts.connect_timeout,
            opts.socket_timeout,
            opts.max_response_bytes,
        )?;
        Ok(Client {
            addr: addr.to_string(),
            opts,
            conn: Mutex::new(Some(conn)),
        })
    }

    /// The broker's "host:port".
    pub fn addr(&self) -> &str {
        &self.addr
    }

    /// The options in force.
    pub fn options(&self) -> &Options {
        &self.opts
    }

    /// Sends a request and, if `reply`, reads its response; drops the
    /// connection on any failure.
    fn call(&self, req: &Request, reply: bool) -> Result<Option<Bytes>, Error> {
        let frame = req.encode()?;
        let mut guard = self.conn.locked();
        if guard.is_none() {
            *guard = Some(Conn::connect(
                &self.addr,
                self.opts.connect_timeout,
                self.opts.socket_timeout,
                self.opts.max_response_bytes,
            )?);
        }
        let Some(conn) = guard.as_mut() else {
            return Err(Error::local(local::STATE, "no connection"));
        };
        let res = conn.send(&frame).and_then(|()| {
            if reply {
                conn.receive().map(Some)
            } else {
                Ok(None)
            }
        });
        if res.is_err() {
            *guard = None;
        }
        res
    }

    fn decode_err(&self, what: &str, e: crate::wire::DecodeError) -> Error {
        Error::Decode {
            broker: Some(format!("{} ({what})", self.addr)),
            error: e,
        }
    }

    /// Encodes `payloads` as one message set with the client's magic and
    /// compression, checking `max_message_size`.
    ///
    /// # Errors
    /// A payload (or the compressed wrapper) over `max_message_size`.
    pub fn message_set(&self, payloads: &[&[u8]]) -> Result<Bytes, Error> {
        let max = self.opts.max_message_size;
        if let Some(p) = payloads.iter().find(|p| p.len() > max) {
            return Err(too_large(p.len(), max));
        }
        let set = message::encode_message_set(payloads, self.opts.magic, self.opts.compression)?;
        if self.opts.compression != Codec::None && set.len() - 10 > max {
            return Err(too_large(set.len() - 10, max));
        }
        Ok(Bytes::from(set))
    }

    /// PRODUCE: sends `payloads` as one message set to `topic`/`partition`.
    ///
    /// Kafka 0.7 does not answer a PRODUCE, so success means the request was
    /// written to the socket. A broker that rejects it (a corrupt message, a
    /// partition it does not have) closes the connection, which the next call
    /// on this client reports.
    ///
    /// # Errors
    /// An empty topic, a payload over `max_message_size`, a transport failure.
    pub fn produce(&self, topic: &str, partition: i32, payloads: &[&[u8]]) -> Result<(), Error> {
        let messages = self.message_set(payloads)?;
        self.produce_raw(ProduceRequest {
            topic: topic.to_string(),
            partition,
            messages,
        })
    }

    /// PRODUCE of an already encoded message set, sent as it is.
    ///
    /// # Errors
    /// An empty topic, a transport failure.
    pub fn produce_raw(&self, req: ProduceRequest) -> Result<(), Error> {
        self.call(&Request::Produce(req), false).map(|_| ())
    }

    /// MULTIPRODUCE: one request carrying a message set per topic-partition.
    /// No response, as for [`Client::produce`].
    ///
    /// # Errors
    /// As [`Client::produce`], and more than 32767 sets.
    pub fn multi_produce(&self, sets: &[ProduceSet<'_>]) -> Result<(), Error> {
        let reqs = sets
            .iter()
            .map(|s| {
                Ok(ProduceRequest {
                    topic: s.topic.to_string(),
                    partition: s.partition,
                    messages: self.message_set(s.payloads)?,
                })
            })
            .collect::<Result<Vec<_>, Error>>()?;
        self.call(&Request::MultiProduce(reqs), false).map(|_| ())
    }

    /// FETCH: up to `max_size` bytes of `topic`/`partition` from byte `offset`.
    ///
    /// The broker returns raw log bytes, so the last message may be cut
    /// off: it is left out, and [`FetchResult::next_offset`] points at it.
    ///
    /// # Errors
    /// The broker's code (OffsetOutOfRange, WrongPartition, …) as
    /// [`Error::Kafka`]; InvalidFetchSize (4) when data came back but not one
    /// whole message (the message at `offset` is bigger than `max_size`);
    /// corrupt messages; transport failures.
    pub fn fetch(
        &self,
        topic: &str,
        partition: i32,
        offset: i64,
        max_size: i32,
    ) -> Result<FetchResult, Error> {
        let req = FetchRequest {
            topic: topic.to_string(),
            partition,
            offset,
            max_size,
        };
        let body = self
            .call(&Request::Fetch(req.clone()), true)?
            .ok_or_else(|| Error::local(local::STATE, "no response"))?;
        let resp = FetchResponse::decode(&body).map_err(|e| self.decode_err("FETCH", e))?;
        self.fetch_result(&req, resp)
    }

    fn fetch_result(&self, req: &FetchRequest, resp: FetchResponse) -> Result<FetchResult, Error> {
        let ctx = || {
            format!(
                "fetch {} at offset {}",
                tp(&req.topic, req.partition),
                req.offset
            )
        };
        resp.error.check(ctx())?;
        let set = decode_message_set(&resp.messages, req.offset, self.opts.max_decompressed_bytes)?;
        let bytes = resp.messages.len();
        if set.valid_bytes == 0 && bytes > 0 {
            let need = match set.partial_length {
                Some(n) => format!("the message there is {} bytes", i64::from(n) + 4),
                None => "not even its LENGTH fits".to_string(),
            };
            return Err(Error::kafka(
                KafkaCode(ErrorCode07::INVALID_FETCH_SIZE.0),
                format!(
                    "{}: MAX_SIZE {} is smaller than the message at that offset ({need}); \
                     Kafka 0.7 InvalidFetchSize (4)",
                    ctx(),
                    req.max_size
                ),
            ));
        }
        Ok(FetchResult {
            topic: req.topic.clone(),
            partition: req.partition,
            offset: req.offset,
            next_offset: req.offset + set.valid_bytes as i64,
            partial_bytes: bytes - set.valid_bytes,
            bytes,
            messages: set.messages,
        })
    }

    /// MULTIFETCH: several fetches in one request. The outer result fails
    /// for the request as a whole (transport, a malformed response); each
    /// inner result is that fetch's, as [`Client::fetch`] would give it.
    ///
    /// # Errors
    /// More than 32767 fetches, transport failures, a response with a
    /// different number of parts than fetches asked for.
    pub fn multi_fetch(
        &self,
        reqs: &[FetchRequest],
    ) -> Result<Vec<Result<FetchResult, Error>>, Error> {
        let body = self
            .call(&Request::MultiFetch(reqs.to_vec()), true)?
            .ok_or_else(|| Error::local(local::STATE, "no response"))?;
        let resp =
            MultiFetchResponse::decode(&body).map_err(|e| self.decode_err("MULTIFETCH", e))?;
        resp.error.check("multifetch")?;
        if resp.parts.len() != reqs.len() {
            return Err(Error::local(
                local::BAD_MSG,
                format!(
                    "{}: MULTIFETCH of {} partitions answered with {} parts",
                    self.addr,
                    reqs.len(),
                    resp.parts.len()
                ),
            ));
        }
        Ok(reqs
            .iter()
            .zip(resp.parts)
            .map(|(req, part)| self.fetch_result(req, part))
            .collect())
    }

    /// OFFSETS: up to `max_number` offsets of the segments written before
    /// `time` (milliseconds since the epoch; [`LATEST_TIME`] −1 or
    /// [`EARLIEST_TIME`] −2), in descending order, as the broker lists them.
    ///
    /// The broker knows segment start offsets and the high water mark, not
    /// message times, so this is coarse: see OFFSETS in the Kafka wiki's
    /// "Writing a Driver for Kafka".
    ///
    /// # Errors
    /// A negative `max_number`, the broker's error code, a response with
    /// more offsets than asked for, transport failures.
    pub fn offsets_before(
        &self,
        topic: &str,
        partition: i32,
        time: i64,
        max_number: i32,
    ) -> Result<Vec<i64>, Error> {
        if max_number < 0 {
            return Err(Error::invalid_arg(format!(
                "MAX_NUMBER must not be negative, not {max_number}"
            )));
        }
        let req = Request::Offsets(OffsetsRequest {
            topic: topic.to_string(),
            partition,
            time,
            max_number,
        });
        let body = self
            .call(&req, true)?
            .ok_or_else(|| Error::local(local::STATE, "no response"))?;
        let resp = OffsetsResponse::decode(&body).map_err(|e| self.decode_err("OFFSETS", e))?;
        resp.error
            .check(format!("offsets of {} before {time}", tp(topic, partition)))?;
        if resp.offsets.len() > max_number as usize {
            return Err(Error::local(
                local::BAD_MSG,
                format!(
                    "{}: OFFSETS asked for at most {max_number} offsets, got {}",
                    self.addr,
                    resp.offsets.len()
                ),
            ));
        }
        Ok(resp.offsets)
    }

    /// The earliest offset still on the broker (OFFSETS with TIME −2).
    ///
    /// # Errors
    /// As [`Client::offsets_before`], and an empty answer.
    pub fn earliest_offset(&self, topic: &str, partition: i32) -> Result<i64, Error> {
        self.single_offset(topic, partition, EARLIEST_TIME)
    }

    /// The offset the next message will be written at (OFFSETS with TIME −1).
    ///
    /// # Errors
    /// As [`Client::offsets_before`], and an empty answer.
    pub fn latest_offset(&self, topic: &str, partition: i32) -> Result<i64, Error> {
        self.single_offset(topic, partition, LATEST_TIME)
    }

    fn single_offset(&self, topic: &str, partition: i32, time: i64) -> Result<i64, Error> {
        self.offsets_before(topic, partition, time, 1)?
            .first()
            .copied()
            .ok_or_else(|| {
                Error::local(
                    local::BAD_MSG,
                    format!("{}: OFFSETS answered no offset", self.addr),
                )
            })
    }
}

fn too_large(n: usize, max: usize) -> Error {
    Error::kafka(
        KafkaCode(10),
        format!("a {n}-byte message is over max_message_size {max}"),
    )
}
