//! zstd (RFC 8878) through the `zstd` crate's libzstd, for record batches
//! (magic 2) only (KIP-110).
//!
//! We write one frame with its content size; Java and librdkafka read that.
//! We read any sequence of frames, with or without content sizes, never
//! producing more than the caller's limit and never letting a frame header
//! ask for a window larger than needed for that limit (at least 8 MiB, at
//! most libzstd's default 128 MiB).

use std::cell::RefCell;
use std::io::Read;

use ::zstd::bulk::{Compressor, Decompressor};
use ::zstd::stream::read::Decoder;
use ::zstd::zstd_safe;

use super::codec::{Codec, CompressionError};

/// The default level, libzstd's `ZSTD_CLEVEL_DEFAULT` (what Java and librdkafka use).
///
/// cbindgen:ignore
pub const DEFAULT_LEVEL: i32 = 3;

fn corrupt(reason: impl Into<String>) -> CompressionError {
    CompressionError::corrupt(Codec::Zstd, reason)
}

fn internal(e: std::io::Error) -> CompressionError {
    CompressionError::Internal {
        codec: Codec::Zstd,
        reason: e.to_string(),
    }
}

thread_local! {
    // libzstd contexts are costly to create (hundreds of KiB); keep one per thread.
    static COMPRESSOR: RefCell<Option<Compressor<'static>>> = const { RefCell::new(None) };
    static DECOMPRESSOR: RefCell<Option<Decompressor<'static>>> = const { RefCell::new(None) };
}

/// Appends one zstd frame holding `input` to `out`.
///
/// `level`: `None` is 3; values outside libzstd's range are clamped.
///
/// # Errors
/// If libzstd fails, which it does not for valid parameters and enough room.
pub fn compress(
    level: Option<i32>,
    input: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), CompressionError> {
    let level = level
        .unwrap_or(DEFAULT_LEVEL)
        .clamp(zstd_safe::min_c_level(), zstd_safe::max_c_level());
    let start = out.len();
    out.resize(start + zstd_safe::compress_bound(input.len()), 0);
    let n = COMPRESSOR.with(|slot| {
        let mut slot = slot.borrow_mut();
        let c = match slot.as_mut() {
            Some(c) => {
                c.set_compression_level(level).map_err(internal)?;
                c
            }
            None => slot.insert(Compressor::new(level).map_err(internal)?),
        };
        c.compress_to_buffer(input, &mut out[start..])
            .map_err(internal)
    })?;
    out.truncate(start + n);
    Ok(())
}

/// Decompresses one or more zstd frames, producing at most `limit` bytes.
///
/// # Errors
/// [`CompressionError::LimitExceeded`] past `limit` (a declared content size
/// past it is refused before allocating); [`CompressionError::Corrupt`] for
/// anything libzstd rejects, a truncated frame, trailing bytes, or empty input.
pub fn decompress(input: &[u8], limit: usize) -> Result<Vec<u8>, CompressionError> {
    if input.is_empty() {
        return Err(corrupt("empty input"));
    }
    // One frame that says how big it is: decompress straight into a buffer of that size.
    if let Ok(Some(size)) = zstd_safe::get_frame_content_size(input) {
        if size > limit as u64 {
            return Err(CompressionError::LimitExceeded {
                codec: Codec::Zstd,
                limit,
            });
        }
        if zstd_safe::find_frame_compressed_size(input) == Ok(input.len()) {
            let mut out = Vec::with_capacity(size as usize);
            let n = DECOMPRESSOR.with(|slot| {
                let mut slot = slot.borrow_mut();
                let d = match slot.as_mut() {
                    Some(d) => d,
                    None => slot.insert(Decompressor::new().map_err(internal)?),
                };
                d.decompress_to_buffer(input, &mut out)
                    .map_err(|e| corrupt(e.to_string()))
            })?;
            if n as u64 != size {
                return Err(corrupt("frame shorter than its content size"));
            }
            return Ok(out);
        }
    }
    let mut decoder = Decoder::with_buffer(input).map_err(internal)?;
    decoder
        .window_log_max(window_log_max(limit))
        .map_err(internal)?;
    let mut out = Vec::new();
    decoder
        .take(limit as u64 + 1)
        .read_to_end(&mut out)
        .map_err(|e| corrupt(e.to_string()))?;
    if out.len() > limit {
        return Err(CompressionError::LimitExceeded {
            codec: Codec::Zstd,
            limit,
        });
    }
    Ok(out)
}

/// The largest window (log2) a frame may ask for when at most `limit` bytes
/// will be accepted: twice the limit, but never below 8 MiB (streams that
/// did not know their size pick windows by level) nor above 128 MiB.
fn window_log_max(limit: usize) -> u32 {
    let ceil_log2 = usize::BITS - limit.saturating_sub(1).leading_zeros();
    (ceil_log2 + 1).clamp(23, 27)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compression::test_inputs::sample;

    #[test]
    fn frames_without_content_size_and_several_frames() {
        let input = sample(300_000);
        // A streaming encoder does not know the content size up front (as Java's ZstdOutputStream).
        let mut enc = ::zstd::stream::write::Encoder::new(Vec::new(), 3).unwrap();
        std::io::Write::write_all(&mut enc, &input).unwrap();
        let streamed = enc.finish().unwrap();
        assert!(matches!(
            zstd_safe::get_frame_content_size(&streamed),
            Ok(None)
        ));
        assert_eq!(decompress(&streamed, input.len()).unwrap(), input);
        assert!(matches!(
            decompress(&streamed, input.len() - 1),
            Err(CompressionError::LimitExceeded { .. })
        ));
        // Two frames back to back.
        let mut two = Vec::new();
        compress(None, &input[..1000], &mut two).unwrap();
        compress(Some(19), &input[1000..], &mut two).unwrap();
        assert_eq!(decompress(&two, input.len()).unwrap(), input);
        assert!(matches!(
            decompress(&two, input.len() - 1),
            Err(CompressionError::LimitExceeded { .. })
        ));
    }

    #[test]
    fn a_huge_declared_content_size_is_refused_before_allocating() {
        let mut out = Vec::new();
        compress(None, b"tiny", &mut out).unwrap();
        assert!(matches!(
            decompress(&out, 3),
            Err(CompressionError::LimitExceeded { .. })
        ));
    }

    #[test]
    fn window_limits() {
        assert_eq!(window_log_max(0), 23);
        assert_eq!(window_log_max(1 << 20), 23);
        assert_eq!(window_log_max(16 << 20), 25);
        assert_eq!(window_log_max(usize::MAX), 27);
    }
}
