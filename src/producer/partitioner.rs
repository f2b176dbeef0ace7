//! Partitioners, named and behaving as librdkafka's `partitioner` property:
//! `consistent_random` (default), `consistent`, `murmur2_random`, `murmur2`,
//! `random`, `fnv1a`, `fnv1a_random`. `murmur2` is the Java client's
//! (`Utils.murmur2`, positive modulo), so keyed messages land on the same
//! partition as with the Java producer.

use std::sync::atomic::{AtomicU64, Ordering};

use crc::{Crc, CRC_32_ISO_HDLC};

/// A partitioner choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Partitioner {
    /// CRC32 of the key; keyless messages go to a random partition.
    ConsistentRandom,
    /// CRC32 of the key (a null key hashes as empty).
    Consistent,
    /// Java-compatible murmur2 of the key; keyless messages random.
    Murmur2Random,
    /// Java-compatible murmur2 of the key (a null key hashes as empty).
    Murmur2,
    /// Random.
    Random,
    /// FNV-1a of the key (a null key hashes as empty).
    Fnv1a,
    /// FNV-1a of the key; keyless messages random.
    Fnv1aRandom,
}

impl Partitioner {
    /// From the `partitioner` property's value.
    pub fn from_name(s: &str) -> Option<Self> {
        Some(match s {
            "consistent_random" => Partitioner::ConsistentRandom,
            "consistent" => Partitioner::Consistent,
            "murmur2_random" => Partitioner::Murmur2Random,
            "murmur2" => Partitioner::Murmur2,
            "random" => Partitioner::Random,
            "fnv1a" => Partitioner::Fnv1a,
            "fnv1a_random" => Partitioner::Fnv1aRandom,
            _ => return None,
        })
    }

    /// The partition for `key` among `partitions` (> 0), or `None` when the
    /// choice is free (keyless with a `*_random` partitioner, or `random`):
    /// the caller then picks (sticky for `sticky.partitioning.linger.ms`).
    pub fn partition(self, key: Option<&[u8]>, partitions: i32) -> Option<i32> {
        let n = partitions.max(1) as u32;
        let hashed = |h: u32| Some((h % n) as i32);
        match (self, key) {
            (Partitioner::Random, _) => None,
            (
                Partitioner::ConsistentRandom
                | Partitioner::Murmur2Random
                | Partitioner::Fnv1aRandom,
                None,
            ) => None,
            (Partitioner::Consistent | Partitioner::ConsistentRandom, k) => {
                hashed(crc32(k.unwrap_or(&[])))
            }
            (Partitioner::Murmur2 | Partitioner::Murmur2Random, k) => {
                hashed(murmur2(k.unwrap_or(&[])) as u32 & 0x7fff_ffff)
            }
            (Partitioner::Fnv1a | Partitioner::Fnv1aRandom, k) => hashed(fnv1a(k.unwrap_or(&[]))),
        }
    }
}

fn crc32(data: &[u8]) -> u32 {
    const CRC: Crc<u32> = Crc::<u32>::new(&CRC_32_ISO_HDLC);
    CRC.checksum(data)
}

/// The Java client's murmur2 (seed 0x9747b28c).
pub fn murmur2(data: &[u8]) -> i32 {
    const M: u32 = 0x5bd1_e995;
    const R: u32 = 24;
    let len = data.len();
    let mut h: u32 = 0x9747_b28c ^ len as u32;
    let mut chunks = data.chunks_exact(4);
    for c in &mut chunks {
        let mut k = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        k = k.wrapping_mul(M);
        k ^= k >> R;
        k = k.wrapping_mul(M);
        h = h.wrapping_mul(M);
        h ^= k;
    }
    let tail = chunks.remainder();
    if tail.len() >= 3 {
        h ^= u32::from(tail[2]) << 16;
    }
    if tail.len() >= 2 {
        h ^= u32::from(tail[1]) << 8;
    }
    if !tail.is_empty() {
        h ^= u32::from(tail[0]);
        h = h.wrapping_mul(M);
    }
    h ^= h >> 13;
    h = h.wrapping_mul(M);
    h ^= h >> 15;
    h as i32
}

/// 32-bit FNV-1a, as librdkafka's `fnv1a` partitioner.
pub fn fnv1a(data: &[u8]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for &b in data {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// A small fast random source for keyless partitioning (not for security).
pub fn random_u32() -> u32 {
    static STATE: AtomicU64 = AtomicU64::new(0);
    let mut s = STATE.load(Ordering::Relaxed);
    if s == 0 {
        s = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0x2545_f491_4f6c_dd1d, |d| d.as_nanos() as u64)
            | 1;
    }
    // xorshift64*
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    STATE.store(s, Ordering::Relaxed);
    (s.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn murmur2_matches_the_java_client() {
        // Kafka's UtilsTest.testMurmur2 vectors
        let cases: &[(&str, i32)] = &[
            ("21", -973_932_308),
            ("foobar", -790_332_482),
            ("a-little-bit-long-string", -985_981_536),
            ("a-little-bit-longer-string", -1_486_304_829),
            (
                "lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8",
                -58_897_971,
            ),
            ("abc", 479_470_107),
        ];
        for (s, want) in cases {
            assert_eq!(murmur2(s.as_bytes()), *want, "{s}");
        }
    }

    #[test]
    fn keyed_partitioning_is_stable_and_in_range() {
        for p in [
            "consistent_random",
            "consistent",
            "murmur2_random",
            "murmur2",
            "fnv1a",
            "fnv1a_random",
        ] {
            let p = Partitioner::from_name(p).unwrap();
            let a = p.partition(Some(b"key-1"), 6).unwrap();
            assert_eq!(p.partition(Some(b"key-1"), 6), Some(a));
            assert!((0..6).contains(&a));
        }
        assert_eq!(Partitioner::Random.partition(Some(b"k"), 6), None);
        assert_eq!(Partitioner::ConsistentRandom.partition(None, 6), None);
        assert!(Partitioner::Consistent.partition(None, 6).is_some());
    }

    #[test]
    fn fnv1a_known_value() {
        assert_eq!(fnv1a(b""), 0x811c_9dc5);
        assert_eq!(fnv1a(b"a"), 0xe40c_292c);
    }
}
