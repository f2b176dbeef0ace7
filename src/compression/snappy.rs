//! snappy, raw and Xerial-framed.
//!
//! Java clients write snappy through snappy-java's `SnappyOutputStream`, the
//! "Xerial" framing: a 16-byte header (magic `82 'SNAPPY' 00`, version 1,
//! minimum compatible version 1, both big-endian i32), then blocks of
//! `[i32 compressed length][raw snappy block]`, each block holding at most
//! 32 KiB of input. librdkafka and others may write one raw snappy block
//! instead. We read both, telling them apart by the magic (as
//! snappy-java and librdkafka do), and write the Xerial framing.

use snap::raw::{decompress_len, max_compress_len, Decoder, Encoder};

use super::codec::{Codec, CompressionError};

/// The first 8 bytes of a Xerial-framed stream.
///
/// cbindgen:ignore
pub const XERIAL_MAGIC: [u8; 8] = [0x82, b'S', b'N', b'A', b'P', b'P', b'Y', 0];

/// Uncompressed bytes per Xerial block, snappy-java's default.
///
/// cbindgen:ignore
pub const XERIAL_BLOCK_SIZE: usize = 32 * 1024;

const XERIAL_HEADER_LEN: usize = 16;

fn corrupt(reason: impl Into<String>) -> CompressionError {
    CompressionError::corrupt(Codec::Snappy, reason)
}

/// Appends `input`, Xerial-framed in 32 KiB blocks, to `out`.
///
/// # Errors
/// Only if the snappy library refuses a block, which it does not for blocks this small.
pub fn compress(input: &[u8], out: &mut Vec<u8>) -> Result<(), CompressionError> {
    out.reserve(
        XERIAL_HEADER_LEN
            + max_compress_len(input.len())
            + 4 * (input.len() / XERIAL_BLOCK_SIZE + 1),
    );
    out.extend_from_slice(&XERIAL_MAGIC);
    out.extend_from_slice(&1i32.to_be_bytes());
    out.extend_from_slice(&1i32.to_be_bytes());
    let mut encoder = Encoder::new();
    for block in input.chunks(XERIAL_BLOCK_SIZE) {
        let len_at = out.len();
        let start = len_at + 4;
        out.resize(start + max_compress_len(block.len()), 0);
        let n =
            encoder
                .compress(block, &mut out[start..])
                .map_err(|e| CompressionError::Internal {
                    codec: Codec::Snappy,
                    reason: e.to_string(),
                })?;
        out.truncate(start + n);
        out[len_at..start].copy_from_slice(&(n as i32).to_be_bytes());
    }
    Ok(())
}

/// Appends `input` as one raw snappy block (no framing) to `out`.
///
/// # Errors
/// If the input is too large for one snappy block (about 4 GiB).
pub fn compress_raw(input: &[u8], out: &mut Vec<u8>) -> Result<(), CompressionError> {
    let start = out.len();
    out.resize(start + max_compress_len(input.len()), 0);
    let n = Encoder::new()
        .compress(input, &mut out[start..])
        .map_err(|e| CompressionError::Internal {
            codec: Codec::Snappy,
            reason: e.to_string(),
        })?;
    out.truncate(start + n);
    Ok(())
}

/// Decompresses raw or Xerial-framed snappy, producing at most `limit` bytes.
///
/// # Errors
/// [`CompressionError::LimitExceeded`] when a block's declared length would
/// pass `limit` (checked before allocating); [`CompressionError::Corrupt`]
/// for bad framing or a bad block.
pub fn decompress(input: &[u8], limit: usize) -> Result<Vec<u8>, CompressionError> {
    let mut out = Vec::new();
    let mut decoder = Decoder::new();
    if input.len() >= XERIAL_HEADER_LEN && input[..8] == XERIAL_MAGIC {
        let mut rest = &input[XERIAL_HEADER_LEN..];
        while !rest.is_empty() {
            let Some(len) = rest.get(..4) else {
                return Err(corrupt("truncated Xerial block length"));
            };
            let len = i32::from_be_bytes([len[0], len[1], len[2], len[3]]);
            let block = usize::try_from(len)
                .ok()
                .and_then(|n| rest.get(4..4 + n))
                .ok_or_else(|| {
                    corrupt(format!(
                        "Xerial block length {len} with {} bytes left",
                        rest.len() - 4
                    ))
                })?;
            block_into(&mut decoder, block, &mut out, limit)?;
            rest = &rest[4 + block.len()..];
        }
    } else {
        block_into(&mut decoder, input, &mut out, limit)?;
    }
    Ok(out)
}

/// Decompresses one raw block onto the end of `out`, keeping `out` within `limit`.
fn block_into(
    decoder: &mut Decoder,
    block: &[u8],
    out: &mut Vec<u8>,
    limit: usize,
) -> Result<(), CompressionError> {
    let n = decompress_len(block).map_err(|e| corrupt(e.to_string()))?;
    if n > limit - out.len() {
        return Err(CompressionError::LimitExceeded {
            codec: Codec::Snappy,
            limit,
        });
    }
    let start = out.len();
    out.resize(start + n, 0);
    let written = decoder
        .decompress(block, &mut out[start..])
        .map_err(|e| corrupt(e.to_string()))?;
    if written != n {
        return Err(corrupt("block shorter than its declared length"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compression::test_inputs::sample;

    #[test]
    fn writes_xerial_framing_in_32k_blocks() {
        let input = sample(100_000);
        let mut out = Vec::new();
        compress(&input, &mut out).unwrap();
        assert_eq!(
            &out[..16],
            b"\x82SNAPPY\x00\x00\x00\x00\x01\x00\x00\x00\x01"
        );
        // Walk the blocks: 4 of them (32K, 32K, 32K, 1696).
        let (mut pos, mut blocks) = (16, 0);
        while pos < out.len() {
            let n = i32::from_be_bytes(out[pos..pos + 4].try_into().unwrap()) as usize;
            let d = decompress_len(&out[pos + 4..pos + 4 + n]).unwrap();
            assert!(d <= XERIAL_BLOCK_SIZE);
            pos += 4 + n;
            blocks += 1;
        }
        assert_eq!(blocks, 4);
    }

    #[test]
    fn reads_raw_snappy() {
        let input = sample(50_000);
        let mut raw = Vec::new();
        compress_raw(&input, &mut raw).unwrap();
        assert_ne!(raw[..8], XERIAL_MAGIC);
        assert_eq!(decompress(&raw, input.len()).unwrap(), input);
        assert!(matches!(
            decompress(&raw, input.len() - 1),
            Err(CompressionError::LimitExceeded { .. })
        ));
    }

    /// kafka-python 3.0.12 `kafka.codec.snappy_encode(b"hello snappy " * 4, xerial_blocksize=16)`
    /// (python-snappy 0.7.3): Xerial framing with 16-byte blocks.
    const KAFKA_PYTHON_XERIAL: &[u8] = &[
        0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
        0x01, 0x00, 0x00, 0x00, 0x12, 0x10, 0x3c, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x20, 0x73, 0x6e,
        0x61, 0x70, 0x70, 0x79, 0x20, 0x68, 0x65, 0x6c, 0x00, 0x00, 0x00, 0x12, 0x10, 0x3c, 0x6c,
        0x6f, 0x20, 0x73, 0x6e, 0x61, 0x70, 0x70, 0x79, 0x20, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x20,
        0x00, 0x00, 0x00, 0x12, 0x10, 0x3c, 0x73, 0x6e, 0x61, 0x70, 0x70, 0x79, 0x20, 0x68, 0x65,
        0x6c, 0x6c, 0x6f, 0x20, 0x73, 0x6e, 0x61, 0x00, 0x00, 0x00, 0x06, 0x04, 0x0c, 0x70, 0x70,
        0x79, 0x20,
    ];

    #[test]
    fn reads_kafka_python_xerial() {
        let want = b"hello snappy ".repeat(4);
        assert_eq!(decompress(KAFKA_PYTHON_XERIAL, want.len()).unwrap(), want);
        // Xerial framing has no end mark: a cut between blocks reads as the
        // blocks before it. Every other cut is an error.
        let boundaries = [16, 38, 60, 82];
        for cut in 0..KAFKA_PYTHON_XERIAL.len() {
            let res = decompress(&KAFKA_PYTHON_XERIAL[..cut], 100);
            if let Some(i) = boundaries.iter().position(|&b| b == cut) {
                assert_eq!(res.unwrap(), want[..16 * i], "cut {cut}");
            } else {
                assert!(res.is_err(), "cut {cut}");
            }
        }
    }

    #[test]
    fn hostile_block_lengths_are_errors_without_allocation() {
        let mut data = KAFKA_PYTHON_XERIAL[..16].to_vec();
        data.extend_from_slice(&i32::MAX.to_be_bytes());
        data.extend_from_slice(&[0; 8]);
        assert!(decompress(&data, 1 << 20).is_err());
        let mut data = KAFKA_PYTHON_XERIAL[..16].to_vec();
        data.extend_from_slice(&(-1i32).to_be_bytes());
        assert!(decompress(&data, 1 << 20).is_err());
        // A raw block claiming 4 GiB of output (varint 0xffffffff0f), checked
        // against the limit before anything is allocated.
        let claim = [0xff, 0xff, 0xff, 0xff, 0x0f, 0x00];
        assert!(matches!(
            decompress(&claim, 1 << 20),
            Err(CompressionError::LimitExceeded { .. })
        ));
    }
}
