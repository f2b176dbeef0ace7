//! Record compression codecs as Kafka frames them: gzip (RFC 1952 members),
//! snappy (raw or Xerial-framed, as Java clients write it), LZ4 (the LZ4 frame
//! format, including the pre-0.10 header checksum bug of KAFKA-3160) and zstd.
//!
//! The codec of a batch lives in the low three bits of its attributes
//! (see "Message Format" in Kafka's implementation docs, and KIP-110 for zstd).
//!
//! Decompression is always bounded: [`decompress`] takes the largest output
//! the caller will accept, and no allocation follows a size read from the
//! input without being capped by that limit first.

mod codec;
pub mod gzip;
pub mod lz4;
pub mod snappy;
#[cfg(test)]
mod test_inputs;
pub mod zstd;

pub use codec::{Codec, CompressionError, ParseCodecError};

/// Compresses `input` and appends the result to `out`, framed as the Java
/// client frames it for record batches (magic 2) and v1 messages.
///
/// `level` is codec-specific: gzip 0–9 (default 6), zstd as the zstd library
/// takes it (default 3); snappy and LZ4 have no levels and ignore it. Levels
/// outside a codec's range are clamped.
///
/// # Errors
/// Only when the codec library itself fails (zstd can, in principle).
pub fn compress(
    codec: Codec,
    level: Option<i32>,
    input: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), CompressionError> {
    match codec {
        Codec::None => {
            out.extend_from_slice(input);
            Ok(())
        }
        Codec::Gzip => {
            gzip::compress(level, input, out);
            Ok(())
        }
        Codec::Snappy => snappy::compress(input, out),
        Codec::Lz4 => {
            lz4::compress(input, out, lz4::HeaderChecksum::Correct);
            Ok(())
        }
        Codec::Zstd => zstd::compress(level, input, out),
    }
}

/// Decompresses `input`, whose output must not exceed `limit` bytes.
///
/// Snappy input may be raw or Xerial-framed; gzip input may hold several
/// members; LZ4 frames must carry a correct header checksum (see
/// [`decompress_for_magic`] for old messages).
///
/// # Errors
/// [`CompressionError::LimitExceeded`] when the output would pass `limit`,
/// [`CompressionError::Corrupt`] when the input is not valid for the codec.
/// Never panics on any input.
pub fn decompress(codec: Codec, input: &[u8], limit: usize) -> Result<Vec<u8>, CompressionError> {
    match codec {
        Codec::None => {
            if input.len() > limit {
                return Err(CompressionError::LimitExceeded { codec, limit });
            }
            Ok(input.to_vec())
        }
        Codec::Gzip => gzip::decompress(input, limit),
        Codec::Snappy => snappy::decompress(input, limit),
        Codec::Lz4 => lz4::decompress(input, limit, lz4::HeaderChecksum::Correct),
        Codec::Zstd => zstd::decompress(input, limit),
    }
}

/// [`compress`] for a given message format version: LZ4 in magic 0 messages
/// is written with the broken header checksum that Kafka before 0.10 expects
/// (KAFKA-3160), and zstd is refused below magic 2 (KIP-110).
///
/// # Errors
/// [`CompressionError::UnsupportedForMagic`] for zstd below magic 2, else as [`compress`].
pub fn compress_for_magic(
    codec: Codec,
    magic: i8,
    level: Option<i32>,
    input: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), CompressionError> {
    match (codec, magic) {
        (Codec::Zstd, m) if m < 2 => Err(CompressionError::UnsupportedForMagic { codec, magic }),
        (Codec::Lz4, 0) => {
            lz4::compress(input, out, lz4::HeaderChecksum::Broken);
            Ok(())
        }
        _ => compress(codec, level, input, out),
    }
}

/// [`decompress`] for a given message format version: LZ4 frames in magic 0
/// and 1 messages may carry either the broken pre-0.10 header checksum
/// (KAFKA-3160) or the correct one, and zstd is refused below magic 2.
///
/// # Errors
/// [`CompressionError::UnsupportedForMagic`] for zstd below magic 2, else as [`decompress`].
pub fn decompress_for_magic(
    codec: Codec,
    magic: i8,
    input: &[u8],
    limit: usize,
) -> Result<Vec<u8>, CompressionError> {
    match (codec, magic) {
        (Codec::Zstd, m) if m < 2 => Err(CompressionError::UnsupportedForMagic { codec, magic }),
        (Codec::Lz4, 0 | 1) => lz4::decompress(input, limit, lz4::HeaderChecksum::Either),
        _ => decompress(codec, input, limit),
    }
}

#[cfg(test)]
mod tests {
    use super::test_inputs::{noise, sample};
    use super::*;

    /// Runs `cmd args` with `input` on stdin and returns its stdout, or `None`
    /// when the tool is not installed (the test then skips that check).
    pub(crate) fn pipe(cmd: &str, args: &[&str], input: &[u8]) -> Option<Vec<u8>> {
        use std::io::Write;
        use std::process::{Command, Stdio};
        let Ok(mut child) = Command::new(cmd)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
        else {
            eprintln!("{cmd} not installed; skipped");
            return None;
        };
        let mut stdin = child.stdin.take().unwrap();
        let input = input.to_vec();
        let writer = std::thread::spawn(move || stdin.write_all(&input));
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap().unwrap();
        assert!(out.status.success(), "{cmd} {args:?} failed");
        Some(out.stdout)
    }

    #[test]
    fn command_line_tools_read_ours_and_we_read_theirs() {
        let input = sample(300_000);
        for (codec, tool) in [
            (Codec::Gzip, "gzip"),
            (Codec::Lz4, "lz4"),
            (Codec::Zstd, "zstd"),
        ] {
            let mut ours = Vec::new();
            compress(codec, None, &input, &mut ours).unwrap();
            let Some(back) = pipe(tool, &["-d", "-c"], &ours) else {
                continue;
            };
            assert!(back == input, "{tool} reads ours");
            // The tools' defaults: gzip a named-less member, lz4 linked blocks with a
            // content checksum, zstd a frame without content size (input from a pipe).
            let theirs = pipe(tool, &["-c"], &input).unwrap();
            assert!(
                decompress(codec, &theirs, input.len()).unwrap() == input,
                "we read {tool}"
            );
            assert!(decompress(codec, &theirs, input.len() - 1).is_err());
        }
    }

    #[test]
    fn codec_ids_names_and_attributes() {
        for (i, c) in Codec::ALL.iter().enumerate() {
            assert_eq!(c.id() as usize, i);
            assert_eq!(Codec::from_id(i as u8).unwrap(), *c);
            assert_eq!(c.name().parse::<Codec>().unwrap(), *c);
            // Only the low three bits count.
            assert_eq!(Codec::from_attributes(0x7ff8 | i as i16).unwrap(), *c);
        }
        for bad in 5..8 {
            assert_eq!(
                Codec::from_attributes(bad),
                Err(CompressionError::UnknownCodec(bad as u8))
            );
        }
        assert!("GZIP".parse::<Codec>().is_err());
        assert!("producer".parse::<Codec>().is_err());
        assert_eq!(Codec::default(), Codec::None);
    }

    #[test]
    fn every_codec_round_trips_at_every_size() {
        for n in [0usize, 1, 17, 4096, 65_535, 65_536, 65_537, 200_000] {
            let input = sample(n);
            for codec in Codec::ALL {
                for level in [None, Some(1), Some(9)] {
                    let mut out = b"prefix".to_vec();
                    compress(codec, level, &input, &mut out).unwrap();
                    assert_eq!(&out[..6], b"prefix", "{codec} appends");
                    let back = decompress(codec, &out[6..], n).unwrap();
                    assert!(back == input, "{codec} level {level:?} n {n}");
                }
            }
        }
    }

    #[test]
    fn over_limit_is_an_error_for_every_codec() {
        let input = sample(100_000);
        for codec in Codec::ALL {
            let mut out = Vec::new();
            compress(codec, None, &input, &mut out).unwrap();
            assert!(decompress(codec, &out, input.len()).is_ok());
            for limit in [0, 1, 99_999] {
                assert_eq!(
                    decompress(codec, &out, limit),
                    Err(CompressionError::LimitExceeded { codec, limit }),
                    "{codec} limit {limit}"
                );
            }
        }
    }

    #[test]
    fn corrupt_or_truncated_input_is_an_error_never_a_panic() {
        let input = sample(70_000);
        for codec in Codec::ALL.into_iter().skip(1) {
            let mut out = Vec::new();
            compress(codec, None, &input, &mut out).unwrap();
            // Every truncation at a spread of points, and the empty input.
            let step = (out.len() / 300).max(1);
            for cut in (0..out.len()).step_by(step) {
                match decompress(codec, &out[..cut], 1 << 20) {
                    Err(_) => {}
                    // Xerial snappy has no end mark: a cut between blocks is a shorter stream.
                    Ok(v) if codec == Codec::Snappy && input.starts_with(&v) => {}
                    Ok(_) => panic!("{codec} cut at {cut} decoded"),
                }
            }
            // Flipped bytes: must not panic; gzip, lz4 and zstd carry checksums so
            // most flips are errors, snappy may decode to different bytes.
            for at in (0..out.len()).step_by(step.max(7)) {
                let mut bad = out.clone();
                bad[at] ^= 0x5a;
                let _ = decompress(codec, &bad, 1 << 20);
            }
            // Garbage.
            assert!(
                decompress(codec, &noise(5000), 1 << 20).is_err(),
                "{codec} garbage"
            );
        }
    }

    #[test]
    fn zstd_is_refused_below_magic_2() {
        let mut out = Vec::new();
        assert_eq!(
            compress_for_magic(Codec::Zstd, 1, None, b"x", &mut out),
            Err(CompressionError::UnsupportedForMagic {
                codec: Codec::Zstd,
                magic: 1
            })
        );
        assert!(decompress_for_magic(Codec::Zstd, 0, b"x", 10).is_err());
    }

    #[test]
    fn magic_0_lz4_uses_the_broken_checksum_and_reads_both() {
        let input = sample(1000);
        let mut old = Vec::new();
        compress_for_magic(Codec::Lz4, 0, None, &input, &mut old).unwrap();
        let mut new = Vec::new();
        compress_for_magic(Codec::Lz4, 1, None, &input, &mut new).unwrap();
        assert_ne!(old, new, "only the header checksum byte differs");
        assert_eq!(old[..6], new[..6]);
        assert_eq!(old[7..], new[7..]);
        for m in [0, 1] {
            assert_eq!(
                decompress_for_magic(Codec::Lz4, m, &old, 1000).unwrap(),
                input
            );
            assert_eq!(
                decompress_for_magic(Codec::Lz4, m, &new, 1000).unwrap(),
                input
            );
        }
        assert!(decompress_for_magic(Codec::Lz4, 2, &old, 1000).is_err());
        assert!(decompress(Codec::Lz4, &old, 1000).is_err());
    }
}
