//! Each decompressor (gzip, snappy raw and Xerial, LZ4 frames with the correct
//! or the pre-0.10 header checksum, zstd) on arbitrary input, with an output
//! limit that must hold; and compress → decompress round trips.
//!
//! Byte 0: low 3 bits pick the decoder (0–4 as the codec ids, 5 LZ4 with
//! either header checksum, 6 and 7 a round trip through the codec in byte 1);
//! bits 3–5 pick the output limit.
#![no_main]

use gregor::compression::{self, lz4, Codec, CompressionError};
use libfuzzer_sys::fuzz_target;

const LIMITS: [usize; 8] = [0, 1, 7, 64, 1000, 4096, 65_536, 1 << 20];

fn bounded(out: Result<Vec<u8>, CompressionError>, limit: usize) {
    if let Ok(v) = out {
        assert!(v.len() <= limit, "{} bytes out, limit {limit}", v.len());
    }
}

fuzz_target!(|data: &[u8]| {
    let [sel, rest @ ..] = data else {
        return;
    };
    let limit = LIMITS[usize::from((sel >> 3) & 7)];
    match sel & 7 {
        c @ 0..=4 => {
            let codec = Codec::ALL[usize::from(c)];
            bounded(compression::decompress(codec, rest, limit), limit);
            // The message-format variants (LZ4 either checksum, zstd refused below magic 2).
            for magic in 0..=1 {
                bounded(
                    compression::decompress_for_magic(codec, magic, rest, limit),
                    limit,
                );
            }
        }
        5 => bounded(
            lz4::decompress(rest, limit, lz4::HeaderChecksum::Either),
            limit,
        ),
        _ => {
            let [c, level, input @ ..] = rest else {
                return;
            };
            let codec = Codec::ALL[usize::from(*c) % 5];
            let level = Some(i32::from(*level as i8));
            for magic in 0..=2i8 {
                let mut packed = Vec::new();
                if compression::compress_for_magic(codec, magic, level, input, &mut packed).is_err()
                {
                    continue;
                }
                let back = compression::decompress_for_magic(codec, magic, &packed, input.len())
                    .unwrap_or_else(|e| panic!("{codec:?} magic {magic}: {e}"));
                assert_eq!(back, input, "{codec:?} magic {magic} round trip");
                if !input.is_empty() {
                    // One byte short of the output must be refused, not overrun.
                    assert!(
                        compression::decompress_for_magic(codec, magic, &packed, input.len() - 1)
                            .is_err(),
                        "{codec:?} magic {magic}: limit not enforced"
                    );
                }
            }
        }
    }
});
