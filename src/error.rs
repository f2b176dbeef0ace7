//! The library's one error type, and the numeric error space shared with C.
//!
//! Numbers follow librdkafka: `0` is success, a positive number is the
//! broker's Kafka error code unchanged, a negative number is a local error
//! (the same numbers as librdkafka's `RD_KAFKA_RESP_ERR__*`, so code written
//! against librdkafka's error space reads gregor's the same way).

use std::fmt;

pub use crate::compression::CompressionError;
pub use crate::protocol::error_code::{ErrorAction, ErrorInfo, LibrdkafkaDesc};
pub use crate::protocol::KafkaCode;
pub use crate::record::RecordError;
pub use crate::wire::{DecodeError, EncodeError};

/// Local (client-side) error codes, negative like librdkafka's.
pub mod local {
    /// Declares each local code once: its constant (with its doc comment) and
    /// its row of [`TABLE`] (code, `_NAME`, librdkafka's description). Rows
    /// are written in code order, as `err_descs` requires.
    macro_rules! local_codes {
        ($($(#[doc = $doc:literal])* $name:ident = $code:literal, $text:literal;)*) => {
            $(
                $(#[doc = $doc])*
                ///
                /// cbindgen:ignore
                pub const $name: i32 = $code;
            )*
            /// The table: (code, name, description), sorted by code.
            ///
            /// cbindgen:ignore
            pub const TABLE: &[(i32, &str, &str)] = &[
                $(($name, concat!("_", stringify!($name)), $text),)*
            ];
        };
    }

    local_codes! {
        /// A message or response failed to parse or failed its CRC.
        BAD_MSG = -199, "Local: Bad message format";
        /// Compressed data could not be decompressed.
        BAD_COMPRESSION = -198, "Local: Invalid compressed data";
        /// The handle is being destroyed.
        DESTROY = -197, "Local: Broker handle destroyed";
        /// Generic failure.
        FAIL = -196, "Local: Communication failure with broker";
        /// Broker transport failure (connection refused, reset, closed).
        TRANSPORT = -195, "Local: Broker transport failure";
        /// A host name could not be resolved.
        RESOLVE = -193, "Local: Host resolution failure";
        /// A message was not delivered within `message.timeout.ms`.
        MSG_TIMED_OUT = -192, "Local: Message timed out";
        /// Reached the end of a partition.
        PARTITION_EOF = -191, "Broker: No more messages";
        /// The partition does not exist in the cluster.
        UNKNOWN_PARTITION = -190, "Local: Unknown partition";
        /// The topic does not exist in the cluster.
        UNKNOWN_TOPIC = -188, "Local: Unknown topic";
        /// No broker could be reached.
        ALL_BROKERS_DOWN = -187, "Local: All broker connections are down";
        /// An argument was invalid (NULL, out of range, malformed).
        INVALID_ARG = -186, "Local: Invalid argument or configuration";
        /// An operation timed out.
        TIMED_OUT = -185, "Local: Timed out";
        /// The producer queue is full.
        QUEUE_FULL = -184, "Local: Queue full";
        /// TLS failure: handshake, certificate verification, or a TLS alert.
        SSL = -181, "Local: SSL error";
        /// Conflicting use: e.g. an incremental assign of a partition that is
        /// already assigned (librdkafka's `RD_KAFKA_RESP_ERR__CONFLICT`).
        CONFLICT = -173, "Local: Conflicting use";
        /// The operation is not valid in the current state.
        STATE = -172, "Local: Erroneous state";
        /// Not implemented.
        NOT_IMPLEMENTED = -170, "Local: Not implemented";
        /// SASL authentication failed on the client's side (bad server
        /// signature, broker closed the connection during authentication).
        AUTHENTICATION = -169, "Local: Authentication failure";
        /// No stored offset and `auto.offset.reset` is `error`.
        NO_OFFSET = -168, "Local: No offset stored";
        /// The broker lacks a feature the operation needs.
        UNSUPPORTED_FEATURE = -165, "Local: Required feature not supported by broker";
        /// No such entry: what was looked up does not exist (a ZooKeeper
        /// znode, for `gregor_zk_get`); librdkafka's
        /// `RD_KAFKA_RESP_ERR__NOENT`.
        NOENT = -156, "Local: No such entry";
        /// A message was purged from the producer's queue before it was sent
        /// (librdkafka's `RD_KAFKA_RESP_ERR__PURGE_QUEUE`).
        PURGE_QUEUE = -152, "Local: Purged in queue";
        /// A message was purged while its request was in flight: the broker's
        /// answer, if one comes, is ignored (librdkafka's
        /// `RD_KAFKA_RESP_ERR__PURGE_INFLIGHT`).
        PURGE_INFLIGHT = -151, "Local: Purged in flight";
        /// A fatal error: the idempotent or transactional producer (or a
        /// fenced static group member) stopped for good; the handle's
        /// `fatal_error` says which error caused it (librdkafka's `_FATAL`).
        FATAL = -150, "Local: Fatal error";
        /// The application did not poll within `max.poll.interval.ms`: the
        /// member left its group (the next poll rejoins).
        MAX_POLL_EXCEEDED = -147, "Local: Maximum application poll interval (max.poll.interval.ms) exceeded";
        /// A configuration property is unknown or has a bad value.
        INVALID_CONFIG = -145, "Local: Invalid configuration property or value";
        /// Offset reset by `auto.offset.reset`.
        AUTO_OFFSET_RESET = -140, "Local: No offset to automatically reset to";
    }
}

/// Everything that can go wrong in gregor.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// A broker answered with a Kafka error code.
    Kafka {
        /// The broker's code.
        code: KafkaCode,
        /// What was being done (topic, partition, request).
        context: String,
    },
    /// A local failure with a librdkafka-style negative code (see [`local`]).
    Local {
        /// One of the [`local`] codes.
        code: i32,
        /// What happened.
        message: String,
    },
    /// A configuration property is unknown or its value is bad.
    Config {
        /// The property's name.
        key: String,
        /// What is wrong.
        reason: String,
    },
    /// A response could not be decoded.
    Decode {
        /// The broker that sent it ("host:port/id"), if from the network.
        broker: Option<String>,
        /// The parse failure.
        error: DecodeError,
    },
    /// A request could not be encoded.
    Encode(EncodeError),
}

impl Error {
    /// A local error.
    pub fn local(code: i32, message: impl Into<String>) -> Self {
        Error::Local {
            code,
            message: message.into(),
        }
    }

    /// A broker error.
    pub fn kafka(code: KafkaCode, context: impl Into<String>) -> Self {
        Error::Kafka {
            code,
            context: context.into(),
        }
    }

    /// An invalid argument.
    pub fn invalid_arg(message: impl Into<String>) -> Self {
        Error::local(local::INVALID_ARG, message)
    }

    /// A timeout.
    pub fn timed_out(message: impl Into<String>) -> Self {
        Error::local(local::TIMED_OUT, message)
    }

    /// A transport failure.
    pub fn transport(message: impl Into<String>) -> Self {
        Error::local(local::TRANSPORT, message)
    }

    /// The number in gregor's (librdkafka's) error space.
    pub fn code(&self) -> i32 {
        match self {
            Error::Kafka { code, .. } => i32::from(code.0),
            Error::Local { code, .. } => *code,
            Error::Config { .. } => local::INVALID_CONFIG,
            Error::Decode { .. } => local::BAD_MSG,
            Error::Encode(_) => local::INVALID_ARG,
        }
    }

    /// The broker's Kafka code, if this is a broker error.
    pub fn kafka_code(&self) -> Option<KafkaCode> {
        match self {
            Error::Kafka { code, .. } => Some(*code),
            _ => None,
        }
    }

    /// True if retrying the same operation may succeed.
    pub fn is_retriable(&self) -> bool {
        match self {
            Error::Kafka { code, .. } => code.is_retriable(),
            Error::Local { code, .. } => {
                matches!(
                    *code,
                    local::TRANSPORT | local::TIMED_OUT | local::ALL_BROKERS_DOWN | local::RESOLVE
                )
            }
            _ => false,
        }
    }
}

/// One code of gregor's error space, as the C descriptor table
/// (`gregor_get_err_descs`) and the bindings see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrDesc {
    /// The number (librdkafka's `rd_kafka_resp_err_t` value).
    pub code: i32,
    /// librdkafka's style of name: `_TIMED_OUT` for a local code, Kafka's
    /// name for a broker code, `NO_ERROR` for 0.
    pub name: &'static str,
    /// Human-readable description.
    pub desc: &'static str,
}

/// Every code gregor knows, local codes first, then Kafka's from -1 up: the
/// one table behind `gregor_get_err_descs`, the `GREGOR_ERR_*` constants of
/// the C header and the bindings' error names. It is made of
/// [`local::TABLE`] and Kafka's table
/// (`protocol::error_code::ERROR_TABLE`), with 0 named and described as
/// librdkafka does (`NO_ERROR`, "Success").
pub fn err_descs() -> impl Iterator<Item = ErrDesc> {
    let locals = local::TABLE
        .iter()
        .map(|&(code, name, desc)| ErrDesc { code, name, desc });
    let kafka = crate::protocol::error_code::ERROR_TABLE
        .iter()
        .map(|e| match e.librdkafka {
            Some(rd) if e.code == 0 => ErrDesc {
                code: 0,
                name: rd.name,
                desc: rd.desc,
            },
            _ => ErrDesc {
                code: i32::from(e.code),
                name: e.name,
                desc: e.description,
            },
        });
    locals.chain(kafka)
}

/// The name of an error code in gregor's space ("UNKNOWN_TOPIC_OR_PARTITION", "_TIMED_OUT").
pub fn code_name(code: i32) -> String {
    // -1 is the broker's UNKNOWN_SERVER_ERROR; local codes start at -100.
    if code < -1 {
        return local::TABLE
            .iter()
            .find(|(c, _, _)| *c == code)
            .map_or_else(|| format!("_UNKNOWN({code})"), |(_, n, _)| (*n).to_string());
    }
    match i16::try_from(code) {
        Ok(c) => KafkaCode(c).name().to_string(),
        Err(_) => format!("UNKNOWN({code})"),
    }
}

/// A human-readable description of an error code.
pub fn code_description(code: i32) -> String {
    if code < -1 {
        return local::TABLE
            .iter()
            .find(|(c, _, _)| *c == code)
            .map_or_else(
                || format!("Local: Unknown error {code}"),
                |(_, _, d)| (*d).to_string(),
            );
    }
    match i16::try_from(code) {
        Ok(c) => KafkaCode(c).description().to_string(),
        Err(_) => format!("Unknown error {code}"),
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Kafka { code, context } if context.is_empty() => write!(f, "{code}"),
            Error::Kafka { code, context } => write!(f, "{context}: {code}"),
            Error::Local { code, message } => write!(f, "{}: {message}", code_name(*code)),
            Error::Config { key, reason } => {
                write!(f, "configuration property \"{key}\": {reason}")
            }
            Error::Decode {
                broker: Some(b),
                error,
            } => write!(f, "{b}: {error}"),
            Error::Decode {
                broker: None,
                error,
            } => write!(f, "{error}"),
            Error::Encode(e) => write!(f, "cannot encode request: {e}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<EncodeError> for Error {
    fn from(e: EncodeError) -> Self {
        Error::Encode(e)
    }
}

impl From<DecodeError> for Error {
    fn from(error: DecodeError) -> Self {
        Error::Decode {
            broker: None,
            error,
        }
    }
}

/// Shorthand for results with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl From<crate::record::RecordError> for Error {
    fn from(e: crate::record::RecordError) -> Self {
        let code = match &e {
            crate::record::RecordError::Compression { .. } => local::BAD_COMPRESSION,
            _ => local::BAD_MSG,
        };
        Error::local(code, e.to_string())
    }
}

impl From<crate::compression::CompressionError> for Error {
    fn from(e: crate::compression::CompressionError) -> Self {
        Error::local(local::BAD_COMPRESSION, e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_names_cover_both_spaces() {
        assert_eq!(code_name(3), "UNKNOWN_TOPIC_OR_PARTITION");
        assert_eq!(code_name(local::TIMED_OUT), "_TIMED_OUT");
        assert_eq!(code_name(-1), "UNKNOWN_SERVER_ERROR");
        assert!(code_description(-1).contains("unexpected error"));
        assert_eq!(code_name(-2), "_UNKNOWN(-2)");
    }

    #[test]
    fn err_descs_are_sorted_unique_and_agree_with_the_names() {
        let all: Vec<ErrDesc> = err_descs().collect();
        assert_eq!(all.len(), local::TABLE.len() + 135);
        for w in all.windows(2) {
            assert!(w[0].code < w[1].code, "{:?} before {:?}", w[0], w[1]);
        }
        for d in &all {
            if d.code != 0 {
                assert_eq!(code_name(d.code), d.name);
                assert_eq!(code_description(d.code), d.desc);
            }
            assert_eq!(d.name.starts_with('_'), d.code < -1, "{d:?}");
        }
        assert_eq!(all.iter().find(|d| d.code == 0).unwrap().name, "NO_ERROR");
    }
}
