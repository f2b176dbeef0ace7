//! Wire primitives: a bounded, zero-copy [`Reader`] and a [`Writer`] with
//! reserve/backpatch, for every primitive type of the Kafka protocol
//! (see "Protocol Primitive Types" in Kafka's protocol guide).
//!
//! Every read checks the bytes remaining first and either succeeds whole or
//! leaves the reader where it was. No read allocates more than the bytes it
//! has in hand, whatever a length on the wire claims.

use std::fmt;
use std::ops::{Deref, Range};
use std::sync::{Arc, OnceLock};

use byteorder::{BigEndian, ByteOrder};

/// Why a buffer could not be decoded, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    /// API key of the message being decoded, when known.
    pub api_key: Option<i16>,
    /// Version of the message being decoded, when known.
    pub version: Option<i16>,
    /// Byte offset of the failure within the buffer.
    pub offset: usize,
    /// Length of the buffer.
    pub len: usize,
    /// What was wrong.
    pub reason: String,
}

impl DecodeError {
    /// Attaches the API key and version, keeping any already set.
    pub fn in_api(mut self, api_key: i16, version: i16) -> Self {
        self.api_key.get_or_insert(api_key);
        self.version.get_or_insert(version);
        self
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.api_key, self.version) {
            (Some(k), Some(v)) => write!(
                f,
                "protocol parse failure for {} v{} at {}/{}: {}",
                crate::api_keys::api_name(k),
                v,
                self.offset,
                self.len,
                self.reason
            ),
            _ => write!(
                f,
                "parse failure at {}/{}: {}",
                self.offset, self.len, self.reason
            ),
        }
    }
}

impl std::error::Error for DecodeError {}

/// Why a value could not be encoded.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum EncodeError {
    /// A field holds a non-default value but the chosen version cannot carry it.
    FieldNotAvailable {
        /// The field's name.
        field: &'static str,
        /// The version being encoded.
        version: i16,
    },
    /// A field is null but the chosen version does not allow null.
    NullNotAllowed {
        /// The field's name.
        field: &'static str,
        /// The version being encoded.
        version: i16,
    },
    /// The message type has no such version.
    UnsupportedVersion {
        /// The API key.
        api_key: i16,
        /// The version asked for.
        version: i16,
    },
    /// A string, byte string or array is longer than its length prefix can say.
    TooLong {
        /// What was too long.
        what: &'static str,
        /// Its length.
        len: usize,
    },
    /// Anything else that makes the value unencodable.
    Invalid(String),
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EncodeError::FieldNotAvailable { field, version } => {
                write!(
                    f,
                    "field {field} is set but version {version} cannot carry it"
                )
            }
            EncodeError::NullNotAllowed { field, version } => {
                write!(
                    f,
                    "field {field} is null but version {version} does not allow null"
                )
            }
            EncodeError::UnsupportedVersion { api_key, version } => write!(
                f,
                "{} has no version {version}",
                crate::api_keys::api_name(*api_key)
            ),
            EncodeError::TooLong { what, len } => write!(f, "{what} too long to encode ({len})"),
            EncodeError::Invalid(s) => f.write_str(s),
        }
    }
}

impl std::error::Error for EncodeError {}

/// A 128-bit UUID as Kafka uses it for topic IDs (big-endian bytes).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Uuid(pub [u8; 16]);

impl Uuid {
    /// The all-zero UUID, Kafka's "no topic ID".
    ///
    /// cbindgen:ignore
    pub const ZERO: Uuid = Uuid([0; 16]);

    /// Builds a UUID from its two 64-bit halves.
    pub fn from_u64_pair(hi: u64, lo: u64) -> Self {
        let mut b = [0u8; 16];
        BigEndian::write_u64(&mut b[..8], hi);
        BigEndian::write_u64(&mut b[8..], lo);
        Uuid(b)
    }

    /// True for the all-zero UUID.
    pub fn is_zero(&self) -> bool {
        self.0 == [0; 16]
    }

    /// Kafka's text form: URL-safe base64 without padding (as `kafka-topics` prints it).
    pub fn to_kafka_string(&self) -> String {
        const ALPHA: &[u8; 64] =
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        let mut out = String::with_capacity(22);
        for chunk in self.0.chunks(3) {
            let n = chunk.len();
            let v = (u32::from(chunk[0]) << 16)
                | (u32::from(*chunk.get(1).unwrap_or(&0)) << 8)
                | u32::from(*chunk.get(2).unwrap_or(&0));
            for i in 0..=n {
                out.push(ALPHA[((v >> (18 - 6 * i)) & 63) as usize] as char);
            }
        }
        out
    }

    /// Parses Kafka's base64 text form or the hyphenated hex form.
    pub fn parse(s: &str) -> Option<Uuid> {
        let hex: String = s.chars().filter(|c| *c != '-').collect();
        if hex.len() == 32 && s.len() == 36 {
            let mut b = [0u8; 16];
            for (i, byte) in b.iter_mut().enumerate() {
                *byte = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
            }
            return Some(Uuid(b));
        }
        if s.len() != 22 {
            return None;
        }
        let val = |c: u8| -> Option<u32> {
            Some(match c {
                b'A'..=b'Z' => c - b'A',
                b'a'..=b'z' => c - b'a' + 26,
                b'0'..=b'9' => c - b'0' + 52,
                b'-' | b'+' => 62,
                b'_' | b'/' => 63,
                _ => return None,
            } as u32)
        };
        let mut out = Vec::with_capacity(16);
        for chunk in s.as_bytes().chunks(4) {
            let mut v = 0u32;
            for (i, c) in chunk.iter().enumerate() {
                v |= val(*c)? << (18 - 6 * i);
            }
            let nbytes = chunk.len() - 1;
            for i in 0..nbytes {
                out.push((v >> (16 - 8 * i)) as u8);
            }
        }
        out.try_into().ok().map(Uuid)
    }
}

impl fmt::Debug for Uuid {
    // Hyphenated lowercase hex, as the `uuid` crate prints it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, b) in self.0.iter().enumerate() {
            if matches!(i, 4 | 6 | 8 | 10) {
                f.write_str("-")?;
            }
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_kafka_string())
    }
}

/// An immutable, cheaply cloned byte string that may share the buffer it was
/// decoded from (so fetched record data is not copied).
#[derive(Clone)]
pub struct Bytes {
    owner: Arc<Vec<u8>>,
    range: Range<usize>,
}

fn empty_owner() -> &'static Arc<Vec<u8>> {
    static EMPTY: OnceLock<Arc<Vec<u8>>> = OnceLock::new();
    EMPTY.get_or_init(|| Arc::new(Vec::new()))
}

impl Bytes {
    /// An empty byte string (no allocation).
    pub fn new() -> Self {
        Bytes {
            owner: empty_owner().clone(),
            range: 0..0,
        }
    }

    /// A view of `range` within a shared buffer.
    ///
    /// # Panics
    /// If `range` is out of bounds of `owner`.
    #[inline]
    pub fn from_shared(owner: Arc<Vec<u8>>, range: Range<usize>) -> Self {
        assert!(range.start <= range.end && range.end <= owner.len());
        Bytes { owner, range }
    }

    /// A sub-view; `range` is relative to this view.
    ///
    /// # Panics
    /// If `range` is out of bounds.
    #[inline]
    pub fn slice(&self, range: Range<usize>) -> Self {
        assert!(range.start <= range.end && range.end <= self.len());
        Bytes {
            owner: self.owner.clone(),
            range: self.range.start + range.start..self.range.start + range.end,
        }
    }

    /// The bytes as a slice.
    #[inline]
    pub fn as_slice(&self) -> &[u8] {
        &self.owner[self.range.clone()]
    }

    /// Copies out into a `Vec`, or takes the buffer when it is the sole owner of all of it.
    pub fn into_vec(self) -> Vec<u8> {
        if self.range.start == 0 && self.range.end == self.owner.len() {
            match Arc::try_unwrap(self.owner) {
                Ok(v) => v,
                Err(a) => a[self.range.clone()].to_vec(),
            }
        } else {
            self.as_slice().to_vec()
        }
    }
}

impl Default for Bytes {
    fn default() -> Self {
        Bytes::new()
    }
}

impl Deref for Bytes {
    type Target = [u8];
    #[inline]
    fn deref(&self) -> &[u8] {
        self.as_slice()
    }
}

impl AsRef<[u8]> for Bytes {
    #[inline]
    fn as_ref(&self) -> &[u8] {
        self.as_slice()
    }
}

impl From<Vec<u8>> for Bytes {
    fn from(v: Vec<u8>) -> Self {
        let len = v.len();
        Bytes {
            owner: Arc::new(v),
            range: 0..len,
        }
    }
}

impl From<&[u8]> for Bytes {
    fn from(v: &[u8]) -> Self {
        Bytes::from(v.to_vec())
    }
}

impl From<&str> for Bytes {
    fn from(v: &str) -> Self {
        Bytes::from(v.as_bytes().to_vec())
    }
}

impl PartialEq for Bytes {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for Bytes {}

impl PartialEq<[u8]> for Bytes {
    fn eq(&self, other: &[u8]) -> bool {
        self.as_slice() == other
    }
}

impl std::hash::Hash for Bytes {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state)
    }
}

impl fmt::Debug for Bytes {
    // b"..." with escapes, as the `bytes` crate prints it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("b\"")?;
        for &b in self.as_slice() {
            match b {
                b'\n' => f.write_str("\\n")?,
                b'\r' => f.write_str("\\r")?,
                b'\t' => f.write_str("\\t")?,
                b'\\' | b'"' => write!(f, "\\{}", b as char)?,
                b'\0' => f.write_str("\\0")?,
                0x20..=0x7e => write!(f, "{}", b as char)?,
                _ => write!(f, "\\x{b:02x}")?,
            }
        }
        f.write_str("\"")
    }
}

/// A bounded cursor over a byte buffer. Reads are big-endian, as on the wire.
#[derive(Clone)]
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    /// The shared buffer `buf` lies in, at `base`, for zero-copy [`Bytes`].
    owner: Option<(&'a Arc<Vec<u8>>, usize)>,
}

macro_rules! read_be {
    ($name:ident, $t:ty, $n:expr, $f:path) => {
        #[doc = concat!("Reads a big-endian `", stringify!($t), "`.")]
        #[inline]
        pub fn $name(&mut self) -> Result<$t, DecodeError> {
            let s = self.take($n, stringify!($t))?;
            Ok($f(s))
        }
    };
}

impl<'a> Reader<'a> {
    /// A reader over `buf`; byte strings read from it are copied.
    pub fn new(buf: &'a [u8]) -> Self {
        Reader {
            buf,
            pos: 0,
            owner: None,
        }
    }

    /// A reader over a shared buffer; byte strings read from it share it.
    pub fn shared(bytes: &'a Bytes) -> Self {
        Reader {
            buf: bytes.as_slice(),
            pos: 0,
            owner: Some((&bytes.owner, bytes.range.start)),
        }
    }

    /// Bytes read so far.
    #[inline]
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Bytes left.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// True when nothing is left.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// The unread part of the buffer, without consuming it.
    pub fn rest(&self) -> &'a [u8] {
        &self.buf[self.pos..]
    }

    /// An error at the current position.
    pub fn error(&self, reason: impl Into<String>) -> DecodeError {
        DecodeError {
            api_key: None,
            version: None,
            offset: self.pos,
            len: self.buf.len(),
            reason: reason.into(),
        }
    }

    /// Takes exactly `n` bytes.
    #[inline]
    pub fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], DecodeError> {
        if n > self.remaining() {
            return Err(self.error(format!(
                "{what}: need {n} bytes, {} remaining",
                self.remaining()
            )));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// Skips `n` bytes.
    pub fn skip(&mut self, n: usize) -> Result<(), DecodeError> {
        self.take(n, "skip").map(|_| ())
    }

    /// A reader over the next `n` bytes (consumed from this one), sharing the owner.
    pub fn sub(&mut self, n: usize, what: &str) -> Result<Reader<'a>, DecodeError> {
        let start = self.pos;
        let buf = self.take(n, what)?;
        Ok(Reader {
            buf,
            pos: 0,
            owner: self.owner.map(|(o, base)| (o, base + start)),
        })
    }

    /// The next `n` bytes as [`Bytes`], shared with the buffer when possible.
    pub fn bytes(&mut self, n: usize, what: &str) -> Result<Bytes, DecodeError> {
        let start = self.pos;
        let s = self.take(n, what)?;
        Ok(match self.owner {
            Some((owner, base)) => {
                Bytes::from_shared(owner.clone(), base + start..base + start + n)
            }
            None => Bytes::from(s.to_vec()),
        })
    }

    read_be!(i16, i16, 2, BigEndian::read_i16);
    read_be!(i32, i32, 4, BigEndian::read_i32);
    read_be!(i64, i64, 8, BigEndian::read_i64);
    read_be!(u16, u16, 2, BigEndian::read_u16);
    read_be!(u32, u32, 4, BigEndian::read_u32);
    read_be!(f64, f64, 8, BigEndian::read_f64);

    /// Reads an `i8`.
    #[inline]
    pub fn i8(&mut self) -> Result<i8, DecodeError> {
        Ok(self.take(1, "i8")?[0] as i8)
    }

    /// Reads a `u8`.
    #[inline]
    pub fn u8(&mut self) -> Result<u8, DecodeError> {
        Ok(self.take(1, "u8")?[0])
    }

    /// Reads a BOOLEAN (any non-zero byte is true, as Kafka reads it).
    #[inline]
    pub fn bool(&mut self) -> Result<bool, DecodeError> {
        Ok(self.take(1, "bool")?[0] != 0)
    }

    /// Reads a UUID.
    pub fn uuid(&mut self) -> Result<Uuid, DecodeError> {
        let s = self.take(16, "uuid")?;
        let mut b = [0u8; 16];
        b.copy_from_slice(s);
        Ok(Uuid(b))
    }

    /// Reads an UNSIGNED_VARINT (at most 5 bytes, fits a `u32`).
    #[inline]
    pub fn uvarint(&mut self) -> Result<u32, DecodeError> {
        let v = self.uvarlong_bounded(5, "unsigned varint")?;
        u32::try_from(v).map_err(|_| self.error("unsigned varint overflows 32 bits"))
    }

    /// Reads an unsigned 64-bit varint (at most 10 bytes).
    #[inline]
    pub fn uvarlong(&mut self) -> Result<u64, DecodeError> {
        self.uvarlong_bounded(10, "unsigned varlong")
    }

    #[inline]
    fn uvarlong_bounded(&mut self, max: usize, what: &str) -> Result<u64, DecodeError> {
        let mut v: u64 = 0;
        for i in 0..max {
            let Some(&b) = self.buf.get(self.pos + i) else {
                return Err(self.error(format!("{what}: truncated")));
            };
            v |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                self.pos += i + 1;
                return Ok(v);
            }
        }
        Err(self.error(format!("{what}: longer than {max} bytes")))
    }

    /// Reads a zigzag VARINT.
    #[inline]
    pub fn varint(&mut self) -> Result<i32, DecodeError> {
        let v = self.uvarlong_bounded(5, "varint")?;
        let v = u32::try_from(v).map_err(|_| self.error("varint overflows 32 bits"))?;
        Ok(((v >> 1) as i32) ^ -((v & 1) as i32))
    }

    /// Reads a zigzag VARLONG.
    #[inline]
    pub fn varlong(&mut self) -> Result<i64, DecodeError> {
        let v = self.uvarlong_bounded(10, "varlong")?;
        Ok(((v >> 1) as i64) ^ -((v & 1) as i64))
    }

    /// Reads a length for a string/bytes/array: `flexible` means UNSIGNED_VARINT N+1
    /// (0 = null), otherwise an `i16`/`i32` with -1 = null. Returns `None` for null.
    /// The length is checked against the bytes remaining times `min_size`.
    pub fn length(
        &mut self,
        flexible: bool,
        wide: bool,
        min_size: usize,
        what: &str,
    ) -> Result<Option<usize>, DecodeError> {
        let start = self.pos;
        let n: i64 = if flexible {
            i64::from(self.uvarint()?) - 1
        } else if wide {
            i64::from(self.i32()?)
        } else {
            i64::from(self.i16()?)
        };
        if n < 0 {
            if n == -1 {
                return Ok(None);
            }
            self.pos = start;
            return Err(self.error(format!("{what}: negative length {n}")));
        }
        let n = n as usize;
        if n.saturating_mul(min_size) > self.remaining() {
            self.pos = start;
            return Err(self.error(format!(
                "{what}: length {n} exceeds the {} bytes remaining",
                self.remaining()
            )));
        }
        Ok(Some(n))
    }

    /// Reads a (COMPACT_)(NULLABLE_)STRING as `&str`; `None` for null.
    pub fn str_opt(&mut self, flexible: bool) -> Result<Option<&'a str>, DecodeError> {
        let start = self.pos;
        let Some(n) = self.length(flexible, false, 1, "string")? else {
            return Ok(None);
        };
        let s = self.take(n, "string")?;
        match std::str::from_utf8(s) {
            Ok(s) => Ok(Some(s)),
            Err(e) => {
                self.pos = start;
                Err(self.error(format!("string is not UTF-8: {e}")))
            }
        }
    }

    /// Reads a (COMPACT_)(NULLABLE_)BYTES; `None` for null.
    pub fn bytes_opt(&mut self, flexible: bool) -> Result<Option<Bytes>, DecodeError> {
        let Some(n) = self.length(flexible, true, 1, "bytes")? else {
            return Ok(None);
        };
        self.bytes(n, "bytes").map(Some)
    }
}

/// A growable output buffer. Lengths and CRCs are written by reserving their
/// place and patching it once the content is known.
#[derive(Debug, Default, Clone)]
pub struct Writer {
    buf: Vec<u8>,
}

macro_rules! write_be {
    ($name:ident, $t:ty, $n:expr, $f:path) => {
        #[doc = concat!("Appends a big-endian `", stringify!($t), "`.")]
        #[inline]
        pub fn $name(&mut self, v: $t) {
            let mut b = [0u8; $n];
            $f(&mut b, v);
            self.buf.extend_from_slice(&b);
        }
    };
}

impl Writer {
    /// An empty writer.
    pub fn new() -> Self {
        Writer { buf: Vec::new() }
    }

    /// An empty writer with room for `n` bytes.
    pub fn with_capacity(n: usize) -> Self {
        Writer {
            buf: Vec::with_capacity(n),
        }
    }

    /// Continues writing at the end of `buf`.
    pub fn from_vec(buf: Vec<u8>) -> Self {
        Writer { buf }
    }

    /// Bytes written.
    #[inline]
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// True when nothing was written.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// The bytes written.
    #[inline]
    pub fn as_slice(&self) -> &[u8] {
        &self.buf
    }

    /// Mutable access to what was written (for in-place CRC or compression).
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        &mut self.buf
    }

    /// Takes the buffer.
    pub fn into_vec(self) -> Vec<u8> {
        self.buf
    }

    /// Drops everything after `len`.
    pub fn truncate(&mut self, len: usize) {
        self.buf.truncate(len)
    }

    /// Appends raw bytes.
    #[inline]
    pub fn put(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }

    /// Appends an `i8`.
    #[inline]
    pub fn i8(&mut self, v: i8) {
        self.buf.push(v as u8);
    }

    /// Appends a `u8`.
    #[inline]
    pub fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }

    /// Appends a BOOLEAN.
    #[inline]
    pub fn bool(&mut self, v: bool) {
        self.buf.push(v as u8);
    }

    write_be!(i16, i16, 2, BigEndian::write_i16);
    write_be!(i32, i32, 4, BigEndian::write_i32);
    write_be!(i64, i64, 8, BigEndian::write_i64);
    write_be!(u16, u16, 2, BigEndian::write_u16);
    write_be!(u32, u32, 4, BigEndian::write_u32);
    write_be!(f64, f64, 8, BigEndian::write_f64);

    /// Appends a UUID.
    pub fn uuid(&mut self, v: &Uuid) {
        self.buf.extend_from_slice(&v.0);
    }

    /// Appends an UNSIGNED_VARINT.
    #[inline]
    pub fn uvarint(&mut self, v: u32) {
        self.uvarlong(u64::from(v))
    }

    /// Appends an unsigned 64-bit varint.
    #[inline]
    pub fn uvarlong(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.buf.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.buf.push(v as u8);
    }

    /// Appends a zigzag VARINT.
    #[inline]
    pub fn varint(&mut self, v: i32) {
        self.uvarint(((v << 1) ^ (v >> 31)) as u32)
    }

    /// Appends a zigzag VARLONG.
    #[inline]
    pub fn varlong(&mut self, v: i64) {
        self.uvarlong(((v << 1) ^ (v >> 63)) as u64)
    }

    /// Appends a length prefix (see [`Reader::length`]); `None` writes null.
    pub fn length(
        &mut self,
        flexible: bool,
        wide: bool,
        n: Option<usize>,
        what: &'static str,
    ) -> Result<(), EncodeError> {
        match n {
            None if flexible => self.uvarint(0),
            None if wide => self.i32(-1),
            None => self.i16(-1),
            Some(n) => {
                let max = if flexible {
                    u32::MAX as usize - 1
                } else if wide {
                    i32::MAX as usize
                } else {
                    i16::MAX as usize
                };
                if n > max {
                    return Err(EncodeError::TooLong { what, len: n });
                }
                if flexible {
                    self.uvarint(n as u32 + 1)
                } else if wide {
                    self.i32(n as i32)
                } else {
                    self.i16(n as i16)
                }
            }
        }
        Ok(())
    }

    /// Appends a (COMPACT_)(NULLABLE_)STRING.
    pub fn str_opt(&mut self, flexible: bool, s: Option<&str>) -> Result<(), EncodeError> {
        self.length(flexible, false, s.map(str::len), "string")?;
        if let Some(s) = s {
            self.put(s.as_bytes());
        }
        Ok(())
    }

    /// Appends a (COMPACT_)(NULLABLE_)BYTES.
    pub fn bytes_opt(&mut self, flexible: bool, b: Option<&[u8]>) -> Result<(), EncodeError> {
        self.length(flexible, true, b.map(<[u8]>::len), "bytes")?;
        if let Some(b) = b {
            self.put(b);
        }
        Ok(())
    }

    /// Reserves 4 bytes to be patched later; returns their position.
    #[inline]
    pub fn reserve_i32(&mut self) -> usize {
        let at = self.buf.len();
        self.buf.extend_from_slice(&[0; 4]);
        at
    }

    /// Writes `v` into 4 bytes reserved at `at`.
    ///
    /// # Panics
    /// If `at` is not a position returned by [`Writer::reserve_i32`].
    #[inline]
    pub fn patch_i32(&mut self, at: usize, v: i32) {
        BigEndian::write_i32(&mut self.buf[at..at + 4], v);
    }

    /// Writes `v` into 4 bytes reserved at `at`.
    ///
    /// # Panics
    /// If `at` is not a position returned by [`Writer::reserve_i32`].
    #[inline]
    pub fn patch_u32(&mut self, at: usize, v: u32) {
        BigEndian::write_u32(&mut self.buf[at..at + 4], v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_and_match_known_bytes() {
        let cases: &[(i32, &[u8])] = &[
            (0, &[0x00]),
            (-1, &[0x01]),
            (1, &[0x02]),
            (63, &[0x7e]),
            (-64, &[0x7f]),
            (64, &[0x80, 0x01]),
            (i32::MAX, &[0xfe, 0xff, 0xff, 0xff, 0x0f]),
            (i32::MIN, &[0xff, 0xff, 0xff, 0xff, 0x0f]),
        ];
        for (v, bytes) in cases {
            let mut w = Writer::new();
            w.varint(*v);
            assert_eq!(w.as_slice(), *bytes, "varint {v}");
            assert_eq!(Reader::new(bytes).varint().unwrap(), *v);
        }
        for v in [0i64, -1, 1, i64::MAX, i64::MIN, 1 << 40] {
            let mut w = Writer::new();
            w.varlong(v);
            let mut r = Reader::new(w.as_slice());
            assert_eq!(r.varlong().unwrap(), v);
            assert!(r.is_empty());
        }
        for v in [0u32, 1, 127, 128, 16383, 16384, u32::MAX] {
            let mut w = Writer::new();
            w.uvarint(v);
            assert_eq!(Reader::new(w.as_slice()).uvarint().unwrap(), v);
        }
    }

    #[test]
    fn overlong_varints_are_errors() {
        assert!(Reader::new(&[0xff; 6]).uvarint().is_err());
        assert!(Reader::new(&[0xff, 0xff, 0xff, 0xff, 0x1f])
            .uvarint()
            .is_err());
        assert!(Reader::new(&[0xff; 11]).varlong().is_err());
        assert!(Reader::new(&[0x80]).uvarint().is_err());
    }

    #[test]
    fn hostile_lengths_are_errors_without_allocation() {
        // i32::MAX-long bytes with 3 bytes behind it.
        let mut r = Reader::new(&[0x7f, 0xff, 0xff, 0xff, 1, 2, 3]);
        assert!(r.bytes_opt(false).is_err());
        assert_eq!(r.pos(), 0, "a failed read does not advance");
        // string of 300 bytes with 2 bytes behind it
        assert!(Reader::new(&[0x01, 0x2c, b'a', b'b'])
            .str_opt(false)
            .is_err());
        // compact string claiming u32::MAX-1
        assert!(Reader::new(&[0xff, 0xff, 0xff, 0xff, 0x0f])
            .str_opt(true)
            .is_err());
        // -2 is not null
        assert!(Reader::new(&[0xff, 0xfe]).str_opt(false).is_err());
        assert_eq!(Reader::new(&[0xff, 0xff]).str_opt(false).unwrap(), None);
        assert_eq!(Reader::new(&[0x00]).str_opt(true).unwrap(), None);
    }

    #[test]
    fn strings_and_bytes_round_trip() {
        for flexible in [false, true] {
            let mut w = Writer::new();
            w.str_opt(flexible, Some("héllo")).unwrap();
            w.str_opt(flexible, None).unwrap();
            w.bytes_opt(flexible, Some(b"\x00\x01")).unwrap();
            w.bytes_opt(flexible, None).unwrap();
            let mut r = Reader::new(w.as_slice());
            assert_eq!(r.str_opt(flexible).unwrap(), Some("héllo"));
            assert_eq!(r.str_opt(flexible).unwrap(), None);
            assert_eq!(
                r.bytes_opt(flexible).unwrap().unwrap().as_slice(),
                b"\x00\x01"
            );
            assert_eq!(r.bytes_opt(flexible).unwrap(), None);
            assert!(r.is_empty());
        }
    }

    #[test]
    fn invalid_utf8_is_an_error() {
        assert!(Reader::new(&[0x00, 0x02, 0xc3, 0x28])
            .str_opt(false)
            .is_err());
    }

    #[test]
    fn shared_reader_does_not_copy() {
        let data = Bytes::from(vec![0, 0, 0, 3, 7, 8, 9, 1]);
        let mut r = Reader::shared(&data);
        let b = r.bytes_opt(false).unwrap().unwrap();
        assert_eq!(b.as_slice(), &[7, 8, 9]);
        assert!(std::ptr::eq(b.as_slice().as_ptr(), data[4..].as_ptr()));
        let mut sub = Reader::shared(&data);
        sub.skip(3).unwrap();
        let mut inner = sub.sub(4, "inner").unwrap();
        inner.skip(1).unwrap();
        let b = inner.bytes(2, "x").unwrap();
        assert!(std::ptr::eq(b.as_slice().as_ptr(), data[4..].as_ptr()));
    }

    #[test]
    fn uuid_text_forms() {
        let u = Uuid::from_u64_pair(0x0123_4567_89ab_cdef, 0xfedc_ba98_7654_3210);
        assert_eq!(format!("{u:?}"), "01234567-89ab-cdef-fedc-ba9876543210");
        let s = u.to_kafka_string();
        assert_eq!(s.len(), 22);
        assert_eq!(Uuid::parse(&s), Some(u));
        assert_eq!(Uuid::parse("01234567-89ab-cdef-fedc-ba9876543210"), Some(u));
        assert_eq!(Uuid::ZERO.to_kafka_string(), "AAAAAAAAAAAAAAAAAAAAAA");
    }

    #[test]
    fn backpatch() {
        let mut w = Writer::new();
        let at = w.reserve_i32();
        w.put(b"abc");
        w.patch_i32(at, 3);
        assert_eq!(w.as_slice(), &[0, 0, 0, 3, b'a', b'b', b'c']);
    }
}
