//! CRC-32C (Castagnoli), the checksum of record batches (magic 2, KIP-98).
//!
//! Two implementations: the `crc` crate's slice-by-16 tables, and on x86-64
//! CPUs with SSE4.2 the `crc32` instruction, three independent streams at a
//! time so its 3-cycle latency is hidden. Over 1 MiB (`benches/codec.rs`, a
//! 2-core x86-64 VM): tables about 2.1 GB/s, one `crc32` stream about
//! 6.4 GB/s, three streams about 20 GB/s. So [`crc32c`] takes the hardware
//! path whenever the CPU has it and falls back to the tables elsewhere.

use crc::{Crc, Table, CRC_32_ISCSI};

static TABLE: Crc<u32, Table<16>> = Crc::<u32, Table<16>>::new(&CRC_32_ISCSI);

/// CRC-32C of `data`, by the fastest implementation this CPU supports.
#[inline]
pub fn crc32c(data: &[u8]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if let Some(crc) = hw::crc32c(data) {
        return crc;
    }
    crc32c_table(data)
}

/// CRC-32C of `data` by slice-by-16 tables (any CPU).
pub fn crc32c_table(data: &[u8]) -> u32 {
    TABLE.checksum(data)
}

/// CRC-32C of `data` by the SSE4.2 `crc32` instruction, or `None` when this
/// CPU (or architecture) does not have it.
pub fn crc32c_hardware(data: &[u8]) -> Option<u32> {
    #[cfg(target_arch = "x86_64")]
    {
        hw::crc32c(data)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = data;
        None
    }
}

/// `unsafe` here calls a function compiled for SSE4.2 once the CPU is known
/// to support it. Outside the C ABI (`src/ffi`), the crate's only other
/// `unsafe` calls are `src/net/conn.rs`'s `getnameinfo` and
/// `src/clock.rs`'s `clock_gettime`.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod hw {
    use std::arch::x86_64::{_mm_crc32_u64, _mm_crc32_u8};

    /// Bytes per stream in one interleaved stretch. Merging the three CRCs
    /// ([`shift`], eight table look-ups) costs a few percent of a stretch this
    /// long; data shorter than three stretches takes the single-stream loop.
    const STRETCH: usize = 4096;

    pub(super) fn crc32c(data: &[u8]) -> Option<u32> {
        if std::is_x86_feature_detected!("sse4.2") {
            // SAFETY: `crc32c_sse42` only needs SSE4.2, which the CPU has (checked just above).
            Some(unsafe { crc32c_sse42(data) })
        } else {
            None
        }
    }

    /// # Safety
    /// The CPU must support SSE4.2.
    #[target_feature(enable = "sse4.2")]
    unsafe fn crc32c_sse42(data: &[u8]) -> u32 {
        let mut crc = !0u32;
        let mut rest = data;
        // Three streams over consecutive thirds of each 3×STRETCH block: the
        // `crc32` instruction has a latency of 3 cycles and a throughput of 1,
        // so three chains in flight run about three times as fast as one.
        while rest.len() >= 3 * STRETCH {
            let (a, b, c) = (
                &rest[..STRETCH],
                &rest[STRETCH..2 * STRETCH],
                &rest[2 * STRETCH..3 * STRETCH],
            );
            let (mut ca, mut cb, mut cc) = (u64::from(crc), 0u64, 0u64);
            for i in (0..STRETCH).step_by(8) {
                ca = _mm_crc32_u64(ca, word(a, i));
                cb = _mm_crc32_u64(cb, word(b, i));
                cc = _mm_crc32_u64(cc, word(c, i));
            }
            // crc(A‖B‖C) = shift(shift(crcA) ^ crcB) ^ crcC, each stream after
            // the first having started from 0 (CRCs are linear over GF(2)).
            crc = shift(shift(ca as u32) ^ cb as u32) ^ cc as u32;
            rest = &rest[3 * STRETCH..];
        }
        let mut c64 = u64::from(crc);
        let mut words = rest.chunks_exact(8);
        for w in &mut words {
            c64 = _mm_crc32_u64(c64, word(w, 0));
        }
        let mut crc = c64 as u32;
        for &b in words.remainder() {
            crc = _mm_crc32_u8(crc, b);
        }
        !crc
    }

    #[inline(always)]
    fn word(s: &[u8], i: usize) -> u64 {
        let mut w = [0u8; 8];
        w.copy_from_slice(&s[i..i + 8]);
        u64::from_le_bytes(w)
    }

    /// The raw CRC register `crc` advanced over STRETCH zero bytes: multiplies
    /// by x^(8·STRETCH) mod P with four 256-entry tables, one per byte of `crc`.
    #[inline(always)]
    fn shift(crc: u32) -> u32 {
        let t = &*SHIFT_TABLES;
        t[0][(crc & 0xff) as usize]
            ^ t[1][((crc >> 8) & 0xff) as usize]
            ^ t[2][((crc >> 16) & 0xff) as usize]
            ^ t[3][(crc >> 24) as usize]
    }

    static SHIFT_TABLES: std::sync::LazyLock<[[u32; 256]; 4]> = std::sync::LazyLock::new(|| {
        // Column k of the linear map "advance over STRETCH zero bytes" is the
        // image of the single bit 1<<k; table j entry v XORs the images of v's bits
        // placed at byte j.
        let mut bit_images = [0u32; 32];
        for (k, img) in bit_images.iter_mut().enumerate() {
            let mut c = 1u32 << k;
            for _ in 0..STRETCH {
                for _ in 0..8 {
                    c = if c & 1 != 0 {
                        (c >> 1) ^ 0x82F6_3B78
                    } else {
                        c >> 1
                    };
                }
            }
            *img = c;
        }
        let mut t = [[0u32; 256]; 4];
        for (j, table) in t.iter_mut().enumerate() {
            for (v, entry) in table.iter_mut().enumerate() {
                *entry = (0..8)
                    .filter(|b| v & (1 << b) != 0)
                    .fold(0, |acc, b| acc ^ bit_images[8 * j + b]);
            }
        }
        t
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_value() {
        assert_eq!(crc32c(b"123456789"), 0xE306_9283);
        assert_eq!(crc32c_table(b"123456789"), 0xE306_9283);
        assert_eq!(crc32c(b""), 0);
    }

    #[test]
    fn hardware_and_table_agree_at_every_length_and_alignment() {
        let data: Vec<u8> = (0..40_000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 9) as u8)
            .collect();
        let Some(_) = crc32c_hardware(b"") else {
            eprintln!("no SSE4.2 here; the hardware path is not tested");
            return;
        };
        let lens = (0..70).chain([
            4095, 4096, 4097, 12_287, 12_288, 12_289, 24_576, 24_577, 36_000,
        ]);
        for len in lens {
            for start in 0..3 {
                let s = &data[start..start + len];
                assert_eq!(
                    crc32c_hardware(s),
                    Some(crc32c_table(s)),
                    "len {len} start {start}"
                );
            }
        }
        assert_eq!(crc32c_hardware(b"123456789"), Some(0xE306_9283));
    }
}
