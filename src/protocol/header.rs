//! Request header v0–v2 and response header v0–v1 (Kafka's RequestHeader and
//! ResponseHeader schemas). The header version follows from the API's
//! flexible versions ([`super::Request::request_header_version`]);
//! ApiVersions responses always use header v0 (KIP-511).

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

impl RequestHeader {
    /// Appends the header at `header_version` (0, 1 or 2).
    ///
    /// # Errors
    /// If the client id is too long.
    pub fn encode(&self, w: &mut Writer, header_version: i16) -> Result<(), EncodeError> {
        w.i16(self.api_key);
        w.i16(self.api_version);
        w.i32(self.correlation_id);
        if header_version >= 1 {
            w.str_opt(false, self.client_id.as_deref())?;
        }
        if header_version >= 2 {
            write_tagged(w, Vec::new(), &[])?;
        }
        Ok(())
    }

    /// Decodes a header at `header_version`; unknown tagged fields are skipped.
    ///
    /// # Errors
    /// On truncated or malformed input.
    pub fn decode(r: &mut Reader<'_>, header_version: i16) -> Result<Self, DecodeError> {
        let api_key = r.i16()?;
        let api_version = r.i16()?;
        let correlation_id = r.i32()?;
        let client_id = if header_version >= 1 {
            r.str_opt(false)?.map(str::to_owned)
        } else {
            None
        };
        if header_version >= 2 {
            skip_tagged(r)?;
        }
        Ok(RequestHeader {
            api_key,
            api_version,
            correlation_id,
            client_id,
        })
    }
}

/// The header in front of every response.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ResponseHeader {
    /// The request's correlation id.
    pub correlation_id: i32,
    /// Tagged fields of header v1, kept as read.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl ResponseHeader {
    /// Appends the header at `header_version` (0 or 1).
    ///
    /// # Errors
    /// Never for valid data; the `Result` matches the other encoders.
    pub fn encode(&self, w: &mut Writer, header_version: i16) -> Result<(), EncodeError> {
        w.i32(self.correlation_id);
        if header_version >= 1 {
            write_tagged(w, Vec::new(), &self.unknown_tagged_fields)?;
        }
        Ok(())
    }

    /// Decodes a header at `header_version`.
    ///
    /// # Errors
    /// On truncated or malformed input.
    pub fn decode(r: &mut Reader<'_>, header_version: i16) -> Result<Self, DecodeError> {
        let correlation_id = r.i32()?;
        let mut unknown_tagged_fields = Vec::new();
        if header_version >= 1 {
            let n = read_tag_count(r)?;
            for _ in 0..n {
                let tag = r.uvarint()?;
                let size = r.uvarint()? as usize;
                let data = r.bytes(size, "tagged field")?;
                unknown_tagged_fields.push(RawTaggedField { tag, data });
            }
        }
        Ok(ResponseHeader {
            correlation_id,
            unknown_tagged_fields,
        })
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
