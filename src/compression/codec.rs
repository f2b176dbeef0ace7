//! The codecs Kafka numbers in a batch's attributes (see "Message Format"
//! in Kafka's implementation docs, and KIP-110 for zstd), the names
//! `compression.type` gives them, and why a codec can fail: what every
//! codec file and every user of [`super::compress`] share.

use std::fmt;
use std::str::FromStr;

/// A compression codec, numbered as in the attributes of a Kafka batch or message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Codec {
    /// No compression (attribute value 0).
    #[default]
    None,
    /// gzip (1).
    Gzip,
    /// snappy (2).
    Snappy,
    /// LZ4 (3), since Kafka 0.8.2.
    Lz4,
    /// zstd (4), since Kafka 2.1 (KIP-110); record batches (magic 2) only.
    Zstd,
}

impl Codec {
    /// Every codec, in attribute order.
    ///
    /// cbindgen:ignore
    pub const ALL: [Codec; 5] = [
        Codec::None,
        Codec::Gzip,
        Codec::Snappy,
        Codec::Lz4,
        Codec::Zstd,
    ];

    /// The codec named by the low three bits of a batch's or message's attributes.
    ///
    /// # Errors
    /// [`CompressionError::UnknownCodec`] for the values 5–7.
    pub fn from_attributes(attributes: i16) -> Result<Codec, CompressionError> {
        Codec::from_id((attributes & 0x07) as u8)
    }

    /// The codec with this id (0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd).
    ///
    /// # Errors
    /// [`CompressionError::UnknownCodec`] for any other value.
    pub fn from_id(id: u8) -> Result<Codec, CompressionError> {
        match id {
            0 => Ok(Codec::None),
            1 => Ok(Codec::Gzip),
            2 => Ok(Codec::Snappy),
            3 => Ok(Codec::Lz4),
            4 => Ok(Codec::Zstd),
            _ => Err(CompressionError::UnknownCodec(id)),
        }
    }

    /// The attribute bits of this codec.
    pub fn id(self) -> u8 {
        match self {
            Codec::None => 0,
            Codec::Gzip => 1,
            Codec::Snappy => 2,
            Codec::Lz4 => 3,
            Codec::Zstd => 4,
        }
    }

    /// The `compression.type` name: `none`, `gzip`, `snappy`, `lz4` or `zstd`.
    pub fn name(self) -> &'static str {
        match self {
            Codec::None => "none",
            Codec::Gzip => "gzip",
            Codec::Snappy => "snappy",
            Codec::Lz4 => "lz4",
            Codec::Zstd => "zstd",
        }
    }
}

impl fmt::Display for Codec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A `compression.type` value that names no codec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseCodecError(pub String);

impl fmt::Display for ParseCodecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown compression type {:?} (expected none, gzip, snappy, lz4 or zstd)",
            self.0
        )
    }
}

impl std::error::Error for ParseCodecError {}

impl FromStr for Codec {
    type Err = ParseCodecError;

    /// Parses a `compression.type` value. Names are matched exactly, as
    /// librdkafka and the Java client do.
    fn from_str(s: &str) -> Result<Codec, ParseCodecError> {
        match s {
            "none" => Ok(Codec::None),
            "gzip" => Ok(Codec::Gzip),
            "snappy" => Ok(Codec::Snappy),
            "lz4" => Ok(Codec::Lz4),
            "zstd" => Ok(Codec::Zstd),
            _ => Err(ParseCodecError(s.to_owned())),
        }
    }
}

/// Why data could not be compressed or decompressed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CompressionError {
    /// The output would be larger than the limit the caller gave.
    LimitExceeded {
        /// The codec.
        codec: Codec,
        /// The limit, in bytes.
        limit: usize,
    },
    /// The input is not valid data for the codec.
    Corrupt {
        /// The codec.
        codec: Codec,
        /// What was wrong.
        reason: String,
    },
    /// Attribute bits that name no codec.
    UnknownCodec(u8),
    /// The codec cannot be used with this message format version.
    UnsupportedForMagic {
        /// The codec.
        codec: Codec,
        /// The message format version (magic byte).
        magic: i8,
    },
    /// The codec library failed for a reason not about the input.
    Internal {
        /// The codec.
        codec: Codec,
        /// What the library said.
        reason: String,
    },
}

impl CompressionError {
    pub(crate) fn corrupt(codec: Codec, reason: impl Into<String>) -> Self {
        CompressionError::Corrupt {
            codec,
            reason: reason.into(),
        }
    }
}

impl fmt::Display for CompressionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompressionError::LimitExceeded { codec, limit } => {
                write!(
                    f,
                    "{codec} data decompresses to more than the {limit}-byte limit"
                )
            }
            CompressionError::Corrupt { codec, reason } => {
                write!(f, "corrupt {codec} data: {reason}")
            }
            CompressionError::UnknownCodec(id) => write!(f, "unknown compression codec id {id}"),
            CompressionError::UnsupportedForMagic { codec, magic } => {
                write!(
                    f,
                    "{codec} compression cannot be used with message format v{magic}"
                )
            }
            CompressionError::Internal { codec, reason } => write!(f, "{codec} failed: {reason}"),
        }
    }
}

impl std::error::Error for CompressionError {}
