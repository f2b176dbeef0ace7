//! gzip (RFC 1952) over miniz_oxide's deflate: a 10-byte header, a raw
//! deflate stream, then CRC-32 and ISIZE. This is what Java's
//! `GZIPOutputStream` writes for Kafka's gzip codec.
//!
//! Reading accepts the optional header fields (FEXTRA, FNAME, FCOMMENT, FHCRC)
//! and several concatenated members. Bytes after the last member that do not
//! start another member are ignored, as Java's `GZIPInputStream` ignores them.

use miniz_oxide::deflate::core::{
    compress_to_output, create_comp_flags_from_zip_params, CompressorOxide, TDEFLFlush, TDEFLStatus,
};
use miniz_oxide::inflate::core::{decompress as inflate_core, inflate_flags, DecompressorOxide};
use miniz_oxide::inflate::TINFLStatus;

use super::codec::{Codec, CompressionError};

/// CRC-32 (IEEE 802.3, as zlib and gzip compute it), slice-by-16 tables.
static CRC32: crc::Crc<u32, crc::Table<16>> =
    crc::Crc::<u32, crc::Table<16>>::new(&crc::CRC_32_ISO_HDLC);

/// The CRC-32 that gzip trailers and Kafka's v0/v1 messages carry.
pub fn crc32(data: &[u8]) -> u32 {
    CRC32.checksum(data)
}

/// The default level, as zlib's `Z_DEFAULT_COMPRESSION` (which Java and librdkafka use).
///
/// cbindgen:ignore
pub const DEFAULT_LEVEL: i32 = 6;

const MAGIC: [u8; 2] = [0x1f, 0x8b];
const CM_DEFLATE: u8 = 8;
const FHCRC: u8 = 0x02;
const FEXTRA: u8 = 0x04;
const FNAME: u8 = 0x08;
const FCOMMENT: u8 = 0x10;
const FRESERVED: u8 = 0xe0;

fn corrupt(reason: impl Into<String>) -> CompressionError {
    CompressionError::corrupt(Codec::Gzip, reason)
}

/// Appends one gzip member holding `input` to `out`.
///
/// `level` 0–9 (`None` or a negative value: 6); larger values are clamped to 9.
pub fn compress(level: Option<i32>, input: &[u8], out: &mut Vec<u8>) {
    let level = match level {
        Some(l) if l >= 0 => l.min(9),
        _ => DEFAULT_LEVEL,
    };
    // Header as the JDK writes it: no flags, no mtime, OS "unknown".
    out.extend_from_slice(&[MAGIC[0], MAGIC[1], CM_DEFLATE, 0, 0, 0, 0, 0, 0, 0xff]);
    out.reserve(input.len() / 2 + 64);
    // window_bits 0: a raw deflate stream (no zlib wrapper).
    let flags = create_comp_flags_from_zip_params(level, 0, 0);
    let mut deflater = CompressorOxide::new(flags);
    let (status, _) = compress_to_output(&mut deflater, input, TDEFLFlush::Finish, |chunk| {
        out.extend_from_slice(chunk);
        true
    });
    // The callback never refuses output, so the compressor always finishes.
    debug_assert_eq!(status, TDEFLStatus::Done);
    out.extend_from_slice(&crc32(input).to_le_bytes());
    out.extend_from_slice(&(input.len() as u32).to_le_bytes());
}

/// Decompresses one or more gzip members, producing at most `limit` bytes.
///
/// # Errors
/// [`CompressionError::LimitExceeded`] past `limit`; [`CompressionError::Corrupt`]
/// for a bad header, a bad deflate stream, a truncated member, or a CRC-32 or
/// length trailer that does not match.
pub fn decompress(input: &[u8], limit: usize) -> Result<Vec<u8>, CompressionError> {
    let mut out = Vec::new();
    let mut pos = 0;
    loop {
        pos += parse_header(&input[pos..])?;
        let member_start = out.len();
        pos += inflate(&input[pos..], &mut out, limit)?;
        let Some(trailer) = input.get(pos..pos + 8) else {
            return Err(corrupt("truncated trailer"));
        };
        let crc = u32::from_le_bytes([trailer[0], trailer[1], trailer[2], trailer[3]]);
        let isize = u32::from_le_bytes([trailer[4], trailer[5], trailer[6], trailer[7]]);
        let member = &out[member_start..];
        if crc32(member) != crc {
            return Err(corrupt("CRC-32 mismatch"));
        }
        if member.len() as u32 != isize {
            return Err(corrupt("ISIZE does not match the decompressed length"));
        }
        pos += 8;
        if !input[pos..].starts_with(&MAGIC) {
            return Ok(out);
        }
    }
}

/// Checks a member header; returns its length.
fn parse_header(h: &[u8]) -> Result<usize, CompressionError> {
    if h.len() < 10 {
        return Err(corrupt("truncated header"));
    }
    if h[..2] != MAGIC {
        return Err(corrupt("not gzip (bad magic)"));
    }
    if h[2] != CM_DEFLATE {
        return Err(corrupt(format!("unknown compression method {}", h[2])));
    }
    let flg = h[3];
    if flg & FRESERVED != 0 {
        return Err(corrupt("reserved header flags set"));
    }
    let mut pos = 10;
    if flg & FEXTRA != 0 {
        let xlen = h
            .get(pos..pos + 2)
            .ok_or_else(|| corrupt("truncated FEXTRA"))?;
        pos += 2 + usize::from(u16::from_le_bytes([xlen[0], xlen[1]]));
        if pos > h.len() {
            return Err(corrupt("truncated FEXTRA"));
        }
    }
    for (bit, what) in [(FNAME, "FNAME"), (FCOMMENT, "FCOMMENT")] {
        if flg & bit != 0 {
            let nul = h[pos..]
                .iter()
                .position(|&b| b == 0)
                .ok_or_else(|| corrupt(format!("unterminated {what}")))?;
            pos += nul + 1;
        }
    }
    if flg & FHCRC != 0 {
        let c = h
            .get(pos..pos + 2)
            .ok_or_else(|| corrupt("truncated FHCRC"))?;
        if u16::from_le_bytes([c[0], c[1]]) != crc32(&h[..pos]) as u16 {
            return Err(corrupt("header CRC mismatch"));
        }
        pos += 2;
    }
    Ok(pos)
}

/// Inflates one raw deflate stream from `input`, appending to `out` while
/// `out` stays within `limit`; returns the input bytes consumed.
fn inflate(input: &[u8], out: &mut Vec<u8>, limit: usize) -> Result<usize, CompressionError> {
    // The whole output so far stays in one non-wrapping buffer, grown by
    // doubling and never past `limit`, so a lying stream costs at most `limit`.
    let flags = inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
    let mut state = Box::<DecompressorOxide>::default();
    let mut in_pos = 0;
    let mut out_pos = out.len();
    let first = out_pos
        .saturating_add(input.len().saturating_mul(4).max(4096))
        .min(limit);
    out.resize(first.max(out_pos), 0);
    loop {
        let (status, consumed, written) =
            inflate_core(&mut state, &input[in_pos..], out, out_pos, flags);
        in_pos += consumed;
        out_pos += written;
        match status {
            TINFLStatus::Done => {
                out.truncate(out_pos);
                return Ok(in_pos);
            }
            TINFLStatus::HasMoreOutput => {
                if out.len() >= limit {
                    return Err(CompressionError::LimitExceeded {
                        codec: Codec::Gzip,
                        limit,
                    });
                }
                let grown = out.len().saturating_mul(2).clamp(4096, limit.max(1));
                out.resize(grown.min(limit), 0);
            }
            TINFLStatus::NeedsMoreInput | TINFLStatus::FailedCannotMakeProgress => {
                return Err(corrupt("truncated deflate stream"));
            }
            other => return Err(corrupt(format!("bad deflate stream ({other:?})"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compression::test_inputs::sample;

    #[test]
    fn header_and_trailer_are_real_gzip() {
        let mut out = Vec::new();
        compress(None, b"hello", &mut out);
        assert_eq!(&out[..4], &[0x1f, 0x8b, 8, 0]);
        let n = out.len();
        assert_eq!(&out[n - 8..n - 4], &crc32(b"hello").to_le_bytes());
        assert_eq!(&out[n - 4..], &5u32.to_le_bytes());
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }

    /// `printf hello | gzip -c -n` — with the FNAME-less, mtime-less header.
    const GZIP_CLI_HELLO: &[u8] = &[
        0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xcb, 0x48, 0xcd, 0xc9, 0xc9,
        0x07, 0x00, 0x86, 0xa6, 0x10, 0x36, 0x05, 0x00, 0x00, 0x00,
    ];

    /// `printf hello > hello.txt; gzip -c hello.txt` (FNAME "hello.txt", an mtime),
    /// then the same again: two members.
    fn gzip_cli_named_two_members() -> Vec<u8> {
        let one: &[u8] = &[
            0x1f, 0x8b, 0x08, 0x08, 0xb4, 0xe4, 0x0c, 0x6b, 0x00, 0x03, 0x68, 0x65, 0x6c, 0x6c,
            0x6f, 0x2e, 0x74, 0x78, 0x74, 0x00, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00, 0x86,
            0xa6, 0x10, 0x36, 0x05, 0x00, 0x00, 0x00,
        ];
        [one, one].concat()
    }

    #[test]
    fn reads_what_the_gzip_tool_writes() {
        assert_eq!(decompress(GZIP_CLI_HELLO, 5).unwrap(), b"hello");
        assert_eq!(
            decompress(&gzip_cli_named_two_members(), 10).unwrap(),
            b"hellohello"
        );
        assert_eq!(
            decompress(&gzip_cli_named_two_members(), 9),
            Err(CompressionError::LimitExceeded {
                codec: Codec::Gzip,
                limit: 9
            })
        );
    }

    #[test]
    fn reads_fextra_fcomment_and_fhcrc() {
        let mut plain = Vec::new();
        compress(Some(9), b"payload", &mut plain);
        let body = &plain[10..];
        let mut h = vec![
            0x1f,
            0x8b,
            8,
            FEXTRA | FNAME | FCOMMENT | FHCRC,
            1,
            2,
            3,
            4,
            0,
            3,
        ];
        h.extend_from_slice(&[3, 0, b'a', b'b', b'c']); // FEXTRA
        h.extend_from_slice(b"name\0comment\0");
        let hcrc = crc32(&h) as u16;
        h.extend_from_slice(&hcrc.to_le_bytes());
        let member = [h.as_slice(), body].concat();
        assert_eq!(decompress(&member, 100).unwrap(), b"payload");
        let mut bad = member.clone();
        bad[h.len() - 1] ^= 1;
        assert!(decompress(&bad, 100).is_err(), "FHCRC is checked");
        // Every truncated prefix is an error.
        for cut in 0..member.len() {
            assert!(decompress(&member[..cut], 100).is_err(), "cut {cut}");
        }
    }

    #[test]
    fn trailing_garbage_is_ignored_like_java_but_a_broken_member_is_not() {
        let mut data = GZIP_CLI_HELLO.to_vec();
        data.extend_from_slice(&[0, 0, 0, 0]);
        assert_eq!(decompress(&data, 5).unwrap(), b"hello");
        let mut data = GZIP_CLI_HELLO.to_vec();
        data.extend_from_slice(&GZIP_CLI_HELLO[..12]);
        assert!(decompress(&data, 10).is_err());
    }

    #[test]
    fn bad_trailers_are_errors() {
        let mut out = Vec::new();
        compress(None, &sample(5000), &mut out);
        let n = out.len();
        for at in [n - 8, n - 1] {
            let mut bad = out.clone();
            bad[at] ^= 1;
            assert!(matches!(
                decompress(&bad, 5000),
                Err(CompressionError::Corrupt { .. })
            ));
        }
    }
}
