//! LZ4 in the LZ4 frame format (lz4 `doc/lz4_Frame_format.md`), over
//! lz4_flex's block codec.
//!
//! We write frames as Java's `KafkaLZ4BlockOutputStream` does: FLG `0x60`
//! (version 1, independent blocks, no checksums, no content size), BD `0x40`
//! (64 KiB blocks), a header checksum, blocks that did not shrink stored
//! uncompressed, and an end mark. We read any frame a conforming encoder
//! writes: linked or independent blocks, block and content checksums (both
//! verified), content size (verified), all block sizes, skippable frames and
//! several frames in a row. Dictionaries are not supported (Kafka has none).
//!
//! Kafka before 0.10 computed the header checksum over the magic number too
//! (KAFKA-3160); [`HeaderChecksum`] chooses which checksum to write or accept.

use lz4_flex::block::{self, DecompressError};

use super::codec::{Codec, CompressionError};

const MAGIC: u32 = 0x184D_2204;
const FLG_VERSION_MASK: u8 = 0xc0;
const FLG_VERSION_01: u8 = 0x40;
const FLG_BLOCK_INDEPENDENT: u8 = 0x20;
const FLG_BLOCK_CHECKSUM: u8 = 0x10;
const FLG_CONTENT_SIZE: u8 = 0x08;
const FLG_CONTENT_CHECKSUM: u8 = 0x04;
const FLG_RESERVED: u8 = 0x02;
const FLG_DICT_ID: u8 = 0x01;
const BD_64K: u8 = 0x40;
const BLOCK_SIZE: usize = 64 * 1024;
const UNCOMPRESSED_BIT: u32 = 0x8000_0000;
/// How far back an LZ4 match can reach, so how much earlier output a linked block sees.
const WINDOW: usize = 64 * 1024;
/// No LZ4 block expands by more than this: each input byte yields at most 255 output bytes.
const MAX_RATIO: usize = 255;

/// Which frame header checksum to write, or to accept when reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderChecksum {
    /// Over the frame descriptor only, as the LZ4 frame format says (Kafka 0.10+, magic 1 and 2).
    Correct,
    /// Over the magic number and the descriptor, as Kafka before 0.10 computed
    /// it (KAFKA-3160); written for magic 0 messages.
    Broken,
    /// Reading only: accept either (for magic 0 and 1 messages).
    Either,
}

fn corrupt(reason: impl Into<String>) -> CompressionError {
    CompressionError::corrupt(Codec::Lz4, reason)
}

/// Appends `input` as one LZ4 frame of independent 64 KiB blocks to `out`,
/// with the header checksum chosen by `checksum` ([`HeaderChecksum::Either`]
/// writes the correct one).
pub fn compress(input: &[u8], out: &mut Vec<u8>, checksum: HeaderChecksum) {
    let frame_start = out.len();
    let blocks = input.len() / BLOCK_SIZE + 1;
    out.reserve(7 + block::get_maximum_output_size(input.len()) + 4 * blocks + 4);
    out.extend_from_slice(&MAGIC.to_le_bytes());
    out.push(FLG_VERSION_01 | FLG_BLOCK_INDEPENDENT);
    out.push(BD_64K);
    let hc = match checksum {
        HeaderChecksum::Broken => header_checksum(&out[frame_start..]),
        _ => header_checksum(&out[frame_start + 4..]),
    };
    out.push(hc);
    for chunk in input.chunks(BLOCK_SIZE) {
        let len_at = out.len();
        let start = len_at + 4;
        out.resize(start + block::get_maximum_output_size(chunk.len()), 0);
        let size = match block::compress_into(chunk, &mut out[start..]) {
            Ok(n) if n < chunk.len() => n as u32,
            // Did not shrink (or, impossibly, did not fit): store it as is.
            _ => {
                out.truncate(start);
                out.extend_from_slice(chunk);
                chunk.len() as u32 | UNCOMPRESSED_BIT
            }
        };
        out.truncate(start + (size & !UNCOMPRESSED_BIT) as usize);
        out[len_at..start].copy_from_slice(&size.to_le_bytes());
    }
    out.extend_from_slice(&0u32.to_le_bytes());
}

/// The header checksum byte: the second byte of XXH32 over `descriptor`.
fn header_checksum(descriptor: &[u8]) -> u8 {
    (xxh32(descriptor, 0) >> 8) as u8
}

/// Decompresses one or more LZ4 frames, producing at most `limit` bytes.
///
/// # Errors
/// [`CompressionError::LimitExceeded`] past `limit`; [`CompressionError::Corrupt`]
/// for a bad header, header checksum (as `checksum` allows), block, block or
/// content checksum, content size, or a truncated frame.
pub fn decompress(
    input: &[u8],
    limit: usize,
    checksum: HeaderChecksum,
) -> Result<Vec<u8>, CompressionError> {
    let mut out = Vec::new();
    let mut pos = 0;
    loop {
        pos += frame(&input[pos..], &mut out, limit, checksum)?;
        if pos == input.len() {
            return Ok(out);
        }
    }
}

fn le32(b: &[u8], at: usize, what: &str) -> Result<u32, CompressionError> {
    b.get(at..at + 4)
        .map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
        .ok_or_else(|| corrupt(format!("truncated {what}")))
}

/// Decodes the frame at the start of `f` onto `out`; returns its length.
fn frame(
    f: &[u8],
    out: &mut Vec<u8>,
    limit: usize,
    checksum: HeaderChecksum,
) -> Result<usize, CompressionError> {
    let magic = le32(f, 0, "frame magic")?;
    if magic & 0xffff_fff0 == 0x184D_2A50 {
        // Skippable frame: magic, length, opaque bytes.
        let n = le32(f, 4, "skippable frame length")? as usize;
        return if f.len() - 8 >= n {
            Ok(8 + n)
        } else {
            Err(corrupt("truncated skippable frame"))
        };
    }
    if magic != MAGIC {
        return Err(corrupt(format!("bad frame magic {magic:#010x}")));
    }
    let (&flg, &bd) = match f.get(4..6) {
        Some([flg, bd]) => (flg, bd),
        _ => return Err(corrupt("truncated frame descriptor")),
    };
    if flg & FLG_VERSION_MASK != FLG_VERSION_01 {
        return Err(corrupt(format!(
            "unsupported frame version (FLG {flg:#04x})"
        )));
    }
    if flg & FLG_RESERVED != 0 || bd & 0x8f != 0 {
        return Err(corrupt("reserved frame descriptor bits set"));
    }
    if flg & FLG_DICT_ID != 0 {
        return Err(corrupt("frames with a dictionary are not supported"));
    }
    let block_max = match (bd >> 4) & 0x07 {
        4 => 64 << 10,
        5 => 256 << 10,
        6 => 1 << 20,
        7 => 4 << 20,
        n => return Err(corrupt(format!("bad block maximum size id {n}"))),
    };
    let desc_end = if flg & FLG_CONTENT_SIZE != 0 { 14 } else { 6 };
    let Some(&hc) = f.get(desc_end) else {
        return Err(corrupt("truncated frame descriptor"));
    };
    let good = |d: &[u8]| header_checksum(d) == hc;
    let ok = match checksum {
        HeaderChecksum::Correct => good(&f[4..desc_end]),
        HeaderChecksum::Broken => good(&f[..desc_end]),
        HeaderChecksum::Either => good(&f[4..desc_end]) || good(&f[..desc_end]),
    };
    if !ok {
        return Err(corrupt("frame header checksum mismatch"));
    }
    let content_size = (flg & FLG_CONTENT_SIZE != 0).then(|| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&f[6..14]);
        u64::from_le_bytes(b)
    });
    let frame_start = out.len();
    if let Some(n) = content_size {
        // A hint only: reserve when it is within the limit, never beyond.
        if let Ok(n) = usize::try_from(n) {
            if n <= limit - out.len() {
                out.reserve(n.min(f.len().saturating_mul(MAX_RATIO)));
            } else {
                return Err(CompressionError::LimitExceeded {
                    codec: Codec::Lz4,
                    limit,
                });
            }
        }
    }
    let independent = flg & FLG_BLOCK_INDEPENDENT != 0;
    let mut pos = desc_end + 1;
    loop {
        let size = le32(f, pos, "block size")?;
        pos += 4;
        if size == 0 {
            break;
        }
        let n = (size & !UNCOMPRESSED_BIT) as usize;
        if n > block_max {
            return Err(corrupt(format!(
                "block of {n} bytes exceeds the frame's {block_max}-byte maximum"
            )));
        }
        let data = f
            .get(pos..pos + n)
            .ok_or_else(|| corrupt("truncated block"))?;
        pos += n;
        if flg & FLG_BLOCK_CHECKSUM != 0 {
            if le32(f, pos, "block checksum")? != xxh32(data, 0) {
                return Err(corrupt("block checksum mismatch"));
            }
            pos += 4;
        }
        let room = limit - out.len();
        if size & UNCOMPRESSED_BIT != 0 {
            if n > room {
                return Err(CompressionError::LimitExceeded {
                    codec: Codec::Lz4,
                    limit,
                });
            }
            out.extend_from_slice(data);
            continue;
        }
        // Room for the most this block could produce, capped by the limit.
        let most = block_max.min(n.saturating_mul(MAX_RATIO));
        let cap = most.min(room);
        let start = out.len();
        out.resize(start + cap, 0);
        let res = if independent {
            block::decompress_into(data, &mut out[start..])
        } else {
            let (prev, cur) = out.split_at_mut(start);
            let dict_from = prev.len().saturating_sub(WINDOW).max(frame_start);
            block::decompress_into_with_dict(data, cur, &prev[dict_from..])
        };
        match res {
            Ok(w) => out.truncate(start + w),
            Err(DecompressError::OutputTooSmall { .. }) if cap < most => {
                return Err(CompressionError::LimitExceeded {
                    codec: Codec::Lz4,
                    limit,
                });
            }
            Err(e) => return Err(corrupt(format!("bad block: {e}"))),
        }
    }
    if flg & FLG_CONTENT_CHECKSUM != 0 {
        if le32(f, pos, "content checksum")? != xxh32(&out[frame_start..], 0) {
            return Err(corrupt("content checksum mismatch"));
        }
        pos += 4;
    }
    if let Some(n) = content_size {
        if n != (out.len() - frame_start) as u64 {
            return Err(corrupt("content size does not match the frame's content"));
        }
    }
    Ok(pos)
}

const P1: u32 = 0x9E37_79B1;
const P2: u32 = 0x85EB_CA77;
const P3: u32 = 0xC2B2_AE3D;
const P4: u32 = 0x27D4_EB2F;
const P5: u32 = 0x1656_67B1;

/// XXH32, the checksum of the LZ4 frame format.
pub fn xxh32(data: &[u8], seed: u32) -> u32 {
    #[inline(always)]
    fn word(b: &[u8]) -> u32 {
        u32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }
    #[inline(always)]
    fn round(acc: u32, lane: u32) -> u32 {
        acc.wrapping_add(lane.wrapping_mul(P2))
            .rotate_left(13)
            .wrapping_mul(P1)
    }
    let mut stripes = data.chunks_exact(16);
    let mut h = if data.len() >= 16 {
        let mut v = [
            seed.wrapping_add(P1).wrapping_add(P2),
            seed.wrapping_add(P2),
            seed,
            seed.wrapping_sub(P1),
        ];
        for s in &mut stripes {
            for (i, lane) in v.iter_mut().enumerate() {
                *lane = round(*lane, word(&s[4 * i..]));
            }
        }
        v[0].rotate_left(1)
            .wrapping_add(v[1].rotate_left(7))
            .wrapping_add(v[2].rotate_left(12))
            .wrapping_add(v[3].rotate_left(18))
    } else {
        seed.wrapping_add(P5)
    };
    h = h.wrapping_add(data.len() as u32);
    let tail = stripes.remainder();
    let mut words = tail.chunks_exact(4);
    for w in &mut words {
        h = h
            .wrapping_add(word(w).wrapping_mul(P3))
            .rotate_left(17)
            .wrapping_mul(P4);
    }
    for &b in words.remainder() {
        h = h
            .wrapping_add(u32::from(b).wrapping_mul(P5))
            .rotate_left(11)
            .wrapping_mul(P1);
    }
    h ^= h >> 15;
    h = h.wrapping_mul(P2);
    h ^= h >> 13;
    h = h.wrapping_mul(P3);
    h ^ (h >> 16)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compression::test_inputs::sample;

    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn xxh32_matches_the_python_xxhash_package() {
        let long: Vec<u8> = (0..3).flat_map(|_| 0..=255u8).collect();
        let cases: &[(&[u8], u32, u32)] = &[
            (b"", 0x02cc_5d05, 0x8d3b_42d8),
            (b"a", 0x550d_7456, 0x12b7_e114),
            (b"abc", 0x32d1_53ff, 0x4d4c_b222),
            (
                b"Nobody inspects the spammish repetition",
                0xe229_3b2f,
                0x70b9_1719,
            ),
            (&long, 0xcdb9_46b1, 0xeaa8_5739),
        ];
        for (data, h0, hs) in cases {
            assert_eq!(xxh32(data, 0), *h0, "len {}", data.len());
            assert_eq!(xxh32(data, 0x9747_b28c), *hs, "seeded len {}", data.len());
        }
    }

    #[test]
    fn writes_frames_as_the_java_client_does() {
        let input = sample(150_000);
        let mut out = Vec::new();
        compress(&input, &mut out, HeaderChecksum::Correct);
        assert_eq!(&out[..6], &[0x04, 0x22, 0x4d, 0x18, 0x60, 0x40]);
        assert_eq!(out[6], header_checksum(&[0x60, 0x40]));
        assert_eq!(&out[out.len() - 4..], &[0, 0, 0, 0]);
        assert_eq!(
            decompress(&out, input.len(), HeaderChecksum::Correct).unwrap(),
            input
        );
        // Incompressible data is stored, flagged uncompressed.
        let noise = crate::compression::test_inputs::noise(1000);
        let mut out = Vec::new();
        compress(&noise, &mut out, HeaderChecksum::Correct);
        assert_eq!(le32(&out, 7, "").unwrap(), 1000 | UNCOMPRESSED_BIT);
        assert_eq!(
            decompress(&out, 1000, HeaderChecksum::Correct).unwrap(),
            noise
        );
        assert!(matches!(
            decompress(&out, 999, HeaderChecksum::Correct),
            Err(CompressionError::LimitExceeded { .. })
        ));
    }

    /// kafka-python 3.0.12 `kafka.codec.lz4_encode(b"hello lz4 " * 10)` (python lz4 4.4.5):
    /// content size set, correct header checksum.
    const KAFKA_PYTHON: &str =
        "04224d18684064000000000000002314000000af68656c6c6f206c7a34200a004250206c7a342000000000";
    /// kafka-python `lz4_encode_old_kafka(b"hello lz4 " * 10)`: the pre-0.10 broken header checksum.
    const KAFKA_PYTHON_OLD: &str =
        "04224d1860401a14000000af68656c6c6f206c7a34200a004250206c7a342000000000";

    #[test]
    fn reads_kafka_python_frames_with_the_right_checksum_mode() {
        let want = b"hello lz4 ".repeat(10);
        let new = unhex(KAFKA_PYTHON);
        let old = unhex(KAFKA_PYTHON_OLD);
        assert_eq!(
            decompress(&new, 100, HeaderChecksum::Correct).unwrap(),
            want
        );
        assert_eq!(decompress(&new, 100, HeaderChecksum::Either).unwrap(), want);
        assert!(decompress(&new, 100, HeaderChecksum::Broken).is_err());
        assert_eq!(decompress(&old, 100, HeaderChecksum::Broken).unwrap(), want);
        assert_eq!(decompress(&old, 100, HeaderChecksum::Either).unwrap(), want);
        assert!(decompress(&old, 100, HeaderChecksum::Correct).is_err());
        // Ours with the broken checksum has kafka-python's header, byte for byte
        // (the blocks differ: lz4_flex and liblz4 pick different matches).
        let mut ours = Vec::new();
        compress(&want, &mut ours, HeaderChecksum::Broken);
        assert_eq!(ours[..7], old[..7]);
        // A content size that disagrees is an error; one beyond the limit is refused up front.
        assert!(matches!(
            decompress(&new, 99, HeaderChecksum::Correct),
            Err(CompressionError::LimitExceeded { .. })
        ));
    }

    /// python lz4 4.4.5 `lz4.frame.compress(b"0123456789abcdef" * 8192, block_linked=True,
    /// content_checksum=True, block_checksum=True, block_size=BLOCKSIZE_MAX64KB, store_size=False)`:
    /// two linked blocks (the second's first match reaches into the first) with both checksums.
    const PYTHON_LINKED: &str = concat!(
        "04224d185440ae1b010000ff01303132333435363738396162636465661000{FF}ffffd850626364656653de5e9c0a01",
        "00000f1000{FF}ffffe85062636465669f470e0900000000aa0117e3"
    );

    fn python_linked() -> Vec<u8> {
        // {FF} stands for 254 bytes of 0xff (match-length extension bytes).
        unhex(&PYTHON_LINKED.replace("{FF}", &"ff".repeat(254)))
    }

    #[test]
    fn reads_linked_blocks_and_checksums() {
        let want = b"0123456789abcdef".repeat(8192);
        let frame = python_linked();
        assert_eq!(frame.len(), 580);
        assert_eq!(
            decompress(&frame, want.len(), HeaderChecksum::Correct).unwrap(),
            want
        );
        assert!(matches!(
            decompress(&frame, want.len() - 1, HeaderChecksum::Correct),
            Err(CompressionError::LimitExceeded { .. })
        ));
        // Content checksum, and a block checksum, are verified.
        let mut bad = frame.clone();
        let n = bad.len();
        bad[n - 1] ^= 1;
        assert!(decompress(&bad, want.len(), HeaderChecksum::Correct).is_err());
        let mut bad = frame.clone();
        bad[10] ^= 1; // inside the first block
        assert!(decompress(&bad, want.len(), HeaderChecksum::Correct).is_err());
        for cut in 0..frame.len() {
            assert!(
                decompress(&frame[..cut], want.len(), HeaderChecksum::Correct).is_err(),
                "cut {cut}"
            );
        }
    }

    #[test]
    fn reads_and_is_read_by_the_reference_liblz4() {
        use std::io::{Read, Write};
        let input = sample(700_000);
        let sizes = [
            ::lz4::BlockSize::Max64KB,
            ::lz4::BlockSize::Max256KB,
            ::lz4::BlockSize::Max1MB,
            ::lz4::BlockSize::Max4MB,
        ];
        for (i, size) in sizes.into_iter().enumerate() {
            for mode in [::lz4::BlockMode::Linked, ::lz4::BlockMode::Independent] {
                let checksums = if i % 2 == 0 {
                    ::lz4::ContentChecksum::ChecksumEnabled
                } else {
                    ::lz4::ContentChecksum::NoChecksum
                };
                let mut enc = ::lz4::EncoderBuilder::new()
                    .block_size(size.clone())
                    .block_mode(mode.clone())
                    .checksum(checksums)
                    .level(i as u32)
                    .build(Vec::new())
                    .unwrap();
                enc.write_all(&input).unwrap();
                let (frame, res) = enc.finish();
                res.unwrap();
                let got = decompress(&frame, input.len(), HeaderChecksum::Correct).unwrap();
                assert!(got == input, "block size {i}, mode {mode:?}");
                assert!(decompress(&frame, input.len() - 1, HeaderChecksum::Correct).is_err());
            }
        }
        let mut ours = Vec::new();
        compress(&input, &mut ours, HeaderChecksum::Correct);
        let mut back = Vec::new();
        ::lz4::Decoder::new(&ours[..])
            .unwrap()
            .read_to_end(&mut back)
            .unwrap();
        assert!(back == input);
    }

    #[test]
    fn concatenated_and_skippable_frames() {
        let mut data = vec![0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3];
        compress(b"one ", &mut data, HeaderChecksum::Correct);
        compress(b"two", &mut data, HeaderChecksum::Correct);
        assert_eq!(
            decompress(&data, 7, HeaderChecksum::Correct).unwrap(),
            b"one two"
        );
        data.push(0);
        assert!(
            decompress(&data, 7, HeaderChecksum::Correct).is_err(),
            "trailing junk"
        );
    }

    #[test]
    fn hostile_headers_are_errors() {
        // 4 MiB blocks declared, a block claiming 4 MiB + 1.
        let mut f = vec![0x04, 0x22, 0x4d, 0x18, 0x60, 0x70];
        f.push(header_checksum(&f[4..]));
        f.extend_from_slice(&((4u32 << 20) + 1).to_le_bytes());
        assert!(decompress(&f, usize::MAX, HeaderChecksum::Correct).is_err());
        // A content size of u64::MAX is refused before anything is reserved.
        let mut f = vec![0x04, 0x22, 0x4d, 0x18, 0x68, 0x40];
        f.extend_from_slice(&u64::MAX.to_le_bytes());
        f.push(header_checksum(&f[4..]));
        f.extend_from_slice(&[0, 0, 0, 0]);
        assert!(decompress(&f, 1 << 20, HeaderChecksum::Correct).is_err());
        // Dictionary id, reserved bits, version 0.
        for (flg, bd) in [
            (0x61, 0x40),
            (0x62, 0x40),
            (0x20, 0x40),
            (0x60, 0x41),
            (0x60, 0x30),
        ] {
            let mut f = vec![0x04, 0x22, 0x4d, 0x18, flg, bd];
            f.push(header_checksum(&f[4..]));
            f.extend_from_slice(&[0, 0, 0, 0]);
            assert!(
                decompress(&f, 10, HeaderChecksum::Correct).is_err(),
                "{flg:#x} {bd:#x}"
            );
        }
    }
}
