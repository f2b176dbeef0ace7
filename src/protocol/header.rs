//! Request header v0–v2 and response header v0–v1 (Kafka's RequestHeader and
//! ResponseHeader schemas). The header version follows from the API's
//! flexible versions ([`super::Request::request_header_version`]);
//! ApiVersions responses always use header v0 (KIP-511).
//!
//! Each header's fields are declared once (`header_codec!`, with the same
//! `{ versions = …, nullable = … }` spelling as `kafka_struct!`); the
//! encoder, the decoder and, in tests, the field table that
//! `protocol::schemas` compares with Kafka's `RequestHeader.json` and
//! `ResponseHeader.json` all come from that declaration. The structs stay
//! plain (no `#[non_exhaustive]`) so callers may build them with literals.

use super::codec::{read_tag_count, write_tagged, RawTaggedField};
use crate::wire::{DecodeError, EncodeError, Reader, Writer};

/// The header in front of every request.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RequestHeader {
    /// The API key of the request.
    pub api_key: i16,
    /// The version of the request.
    pub api_version: i16,
    /// Echoed back in the response header.
    pub correlation_id: i32,
    /// The client's id (v1+); always a NULLABLE_STRING, even in v2.
    pub client_id: Option<String>,
}

/// The header in front of every response.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ResponseHeader {
    /// The request's correlation id.
    pub correlation_id: i32,
    /// Tagged fields of header v1, kept as read.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

/// Whether a field follows its header's flexible versions: yes by default,
/// not with `flexible_versions = none` (Kafka's field-level
/// `"flexibleVersions": "none"`, the request header's client id, which
/// keeps its two-byte length in every version so that any broker can read
/// the header of an ApiVersions request of a version it does not know).
macro_rules! field_flexible {
    () => {
        true
    };
    (none) => {
        false
    };
}

/// A field's name in Kafka's schema (snake case): the struct field's own
/// name, or the one given with `as` where they differ (Kafka's
/// `RequestApiKey` is `api_key` here, as in every release of gregor).
#[cfg(test)]
macro_rules! schema_name {
    ($field:ident) => {
        stringify!($field)
    };
    ($field:ident $kafka:ident) => {
        stringify!($kafka)
    };
}

/// Declares a header's versions and its fields in wire order (each a field
/// of the struct, with its `FieldSpec` attributes), and writes the codec of
/// those fields and their field table.
macro_rules! header_codec {
    (
        $name:ident, versions = $min:literal ..= $max:literal, flexible = $flex:literal,
        { $($field:ident $(as $kafka:ident)? : $ty:ty { $($k:ident = $v:expr),* $(,)? } $(flexible_versions = $fx:ident)?;)* }
    ) => {
        impl $name {
            /// The lowest header version (Kafka's `validVersions`).
            pub const MIN_VERSION: i16 = $min;
            /// The highest header version.
            pub const MAX_VERSION: i16 = $max;
            /// The first flexible header version (tagged fields at the end).
            pub const FIRST_FLEXIBLE: i16 = $flex;

            fn check_version(v: i16) -> Result<(), String> {
                if ($min..=$max).contains(&v) {
                    Ok(())
                } else {
                    Err(format!(
                        "{} version {v} (valid: {}-{})",
                        stringify!($name),
                        $min,
                        $max
                    ))
                }
            }

            /// Writes the declared fields at header version `v`.
            fn write_fields(&self, w: &mut Writer, v: i16) -> Result<(), EncodeError> {
                use super::codec::{Ctx, Field, FieldSpec};
                $({
                    let spec = FieldSpec::<$ty>::new()$(.$k($v))*;
                    if spec.has(v) {
                        let flexible = v >= $flex && field_flexible!($($fx)?);
                        self.$field
                            .write(w, Ctx::new(v, flexible).at(stringify!($field), spec.nullable_at(v)))?;
                    }
                })*
                Ok(())
            }

            /// Reads the declared fields at header version `v` into `this`.
            fn read_fields(this: &mut Self, r: &mut Reader<'_>, v: i16) -> Result<(), DecodeError> {
                use super::codec::{in_field, Ctx, Field, FieldSpec};
                $({
                    let spec = FieldSpec::<$ty>::new()$(.$k($v))*;
                    if spec.has(v) {
                        let flexible = v >= $flex && field_flexible!($($fx)?);
                        this.$field = <$ty as Field>::read(
                            r,
                            Ctx::new(v, flexible).at(stringify!($field), spec.nullable_at(v)),
                        )
                        .map_err(in_field(stringify!($field)))?;
                    }
                })*
                Ok(())
            }

            /// The field table, as `kafka_struct!`'s: every field as
            /// declared, in wire order.
            #[cfg(test)]
            pub(crate) fn field_table() -> Vec<super::codec::FieldInfo> {
                use super::codec::FieldSpec;
                vec![$(super::codec::FieldInfo {
                    flexible: if field_flexible!($($fx)?) { None } else { Some((1, 0)) },
                    ..FieldSpec::<$ty>::new()$(.$k($v))*.info(schema_name!($field $($kafka)?))
                },)*]
            }
        }
    };
}

header_codec!(RequestHeader, versions = 0..=2, flexible = 2, {
    api_key as request_api_key: i16 {};
    api_version as request_api_version: i16 {};
    correlation_id: i32 {};
    client_id: Option<String> { versions = 1.., nullable = 1.., ignorable = true }
        flexible_versions = none;
});

header_codec!(ResponseHeader, versions = 0..=1, flexible = 1, {
    correlation_id: i32 {};
});

impl RequestHeader {
    /// Appends the header at `header_version` (0, 1 or 2).
    ///
    /// # Errors
    /// If the client id is too long, or the header version is not 0–2.
    pub fn encode(&self, w: &mut Writer, header_version: i16) -> Result<(), EncodeError> {
        Self::check_version(header_version).map_err(EncodeError::Invalid)?;
        self.write_fields(w, header_version)?;
        if header_version >= Self::FIRST_FLEXIBLE {
            write_tagged(w, Vec::new(), &[])?;
        }
        Ok(())
    }

    /// Decodes a header at `header_version`; unknown tagged fields are skipped.
    ///
    /// # Errors
    /// On truncated or malformed input, or a header version that is not 0–2.
    pub fn decode(r: &mut Reader<'_>, header_version: i16) -> Result<Self, DecodeError> {
        Self::check_version(header_version).map_err(|e| r.error(e))?;
        let mut h = RequestHeader::default();
        Self::read_fields(&mut h, r, header_version)?;
        if header_version >= Self::FIRST_FLEXIBLE {
            skip_tagged(r)?;
        }
        Ok(h)
    }
}

impl ResponseHeader {
    /// Appends the header at `header_version` (0 or 1).
    ///
    /// # Errors
    /// A header version that is not 0 or 1; a repeated tag among the
    /// unknown tagged fields.
    pub fn encode(&self, w: &mut Writer, header_version: i16) -> Result<(), EncodeError> {
        Self::check_version(header_version).map_err(EncodeError::Invalid)?;
        self.write_fields(w, header_version)?;
        if header_version >= Self::FIRST_FLEXIBLE {
            write_tagged(w, Vec::new(), &self.unknown_tagged_fields)?;
        }
        Ok(())
    }

    /// Decodes a header at `header_version`.
    ///
    /// # Errors
    /// On truncated or malformed input, or a header version that is not 0 or 1.
    pub fn decode(r: &mut Reader<'_>, header_version: i16) -> Result<Self, DecodeError> {
        Self::check_version(header_version).map_err(|e| r.error(e))?;
        let mut h = ResponseHeader::default();
        Self::read_fields(&mut h, r, header_version)?;
        if header_version >= Self::FIRST_FLEXIBLE {
            let n = read_tag_count(r)?;
            for _ in 0..n {
                let tag = r.uvarint()?;
                let size = r.uvarint()? as usize;
                let data = r.bytes(size, "tagged field")?;
                h.unknown_tagged_fields.push(RawTaggedField { tag, data });
            }
        }
        Ok(h)
    }
}

fn skip_tagged(r: &mut Reader<'_>) -> Result<(), DecodeError> {
    let n = read_tag_count(r)?;
    for _ in 0..n {
        r.uvarint()?;
        let size = r.uvarint()? as usize;
        r.skip(size)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_header_bytes_per_version() {
        let h = RequestHeader {
            api_key: 3,
            api_version: 12,
            correlation_id: 7,
            client_id: Some("ab".into()),
        };
        let mut w = Writer::new();
        h.encode(&mut w, 2).unwrap();
        assert_eq!(
            w.as_slice(),
            &[0, 3, 0, 12, 0, 0, 0, 7, 0, 2, b'a', b'b', 0]
        );
        assert_eq!(
            RequestHeader::decode(&mut Reader::new(w.as_slice()), 2).unwrap(),
            h
        );
        let mut w = Writer::new();
        h.encode(&mut w, 0).unwrap();
        assert_eq!(w.as_slice(), &[0, 3, 0, 12, 0, 0, 0, 7]);
        let mut w = Writer::new();
        RequestHeader {
            client_id: None,
            ..h
        }
        .encode(&mut w, 1)
        .unwrap();
        assert_eq!(w.as_slice(), &[0, 3, 0, 12, 0, 0, 0, 7, 0xff, 0xff]);
    }

    #[test]
    fn response_header_v1_keeps_tags_and_rejects_truncation() {
        let bytes = [0, 0, 0, 9, 1, 5, 2, 0xaa, 0xbb];
        let h = ResponseHeader::decode(&mut Reader::new(&bytes), 1).unwrap();
        assert_eq!(h.correlation_id, 9);
        assert_eq!(h.unknown_tagged_fields[0].tag, 5);
        let mut w = Writer::new();
        h.encode(&mut w, 1).unwrap();
        assert_eq!(w.as_slice(), &bytes);
        for n in 0..bytes.len() {
            assert!(ResponseHeader::decode(&mut Reader::new(&bytes[..n]), 1).is_err());
        }
    }
}
