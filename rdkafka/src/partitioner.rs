//! librdkafka's built-in partitioners as functions
//! (`rd_kafka_msg_partitioner_random`, `_consistent`, `_consistent_random`,
//! `_murmur2`, `_murmur2_random`, `_fnv1a`, `_fnv1a_random`), which a
//! `partitioner_cb` may call, on gregor's [`Partitioner`] (the same
//! hashes: CRC32, the Java client's murmur2, FNV-1a).
//!
//! As librdkafka's: `consistent_random` goes random for an empty key
//! (`keylen` 0), `murmur2_random` and `fnv1a_random` for a NULL key; the
//! others hash a NULL key as empty. A random choice does not check that
//! the partition has a leader (librdkafka's `random` retries once when it
//! does not).

#![allow(unsafe_code)] // `#[no_mangle]`

use std::ffi::c_void;

use gregor::producer::partitioner::random_u32;
use gregor::producer::Partitioner;

use crate::guard::guard;
use crate::raw;
use crate::topic::Topic;

/// A random partition of `cnt` (0 for a count below 1).
fn random(cnt: i32) -> i32 {
    match u32::try_from(cnt) {
        Ok(n) if n > 0 => i32::try_from(random_u32() % n).unwrap_or(0),
        _ => 0,
    }
}

/// `p`'s partition for `key` among `cnt`, random when `p` leaves it free.
fn pick(p: Partitioner, key: Option<&[u8]>, cnt: i32) -> i32 {
    if cnt < 1 {
        return 0;
    }
    p.partition(key, cnt).unwrap_or_else(|| random(cnt))
}

/// How a function picks.
#[derive(Clone, Copy)]
enum Rule {
    /// At random.
    Random,
    /// By `Partitioner` (random where it leaves the choice free).
    Hash(Partitioner),
    /// At random for an empty key, else by the `Partitioner`.
    EmptyRandom(Partitioner),
}

/// The partition `rule` picks for the caller's key among `cnt`.
fn partition_of(rule: Rule, key: *const c_void, keylen: usize, cnt: i32) -> i32 {
    let key = raw::read_bytes(key, keylen);
    match rule {
        Rule::Random => random(cnt),
        Rule::EmptyRandom(_) if keylen == 0 => random(cnt),
        Rule::Hash(p) | Rule::EmptyRandom(p) => pick(p, key, cnt),
    }
}

/// A random partition (`rd_kafka_msg_partitioner_random`).
#[no_mangle]
pub extern "C" fn rd_kafka_msg_partitioner_random(
    rkt: *const Topic,
    key: *const c_void,
    keylen: usize,
    partition_cnt: i32,
    rkt_opaque: *mut c_void,
    msg_opaque: *mut c_void,
) -> i32 {
    let _ = (rkt, rkt_opaque, msg_opaque);
    guard(0, || partition_of(Rule::Random, key, keylen, partition_cnt))
}

/// CRC32 of the key (`rd_kafka_msg_partitioner_consistent`).
#[no_mangle]
pub extern "C" fn rd_kafka_msg_partitioner_consistent(
    rkt: *const Topic,
    key: *const c_void,
    keylen: usize,
    partition_cnt: i32,
    rkt_opaque: *mut c_void,
    msg_opaque: *mut c_void,
) -> i32 {
    let _ = (rkt, rkt_opaque, msg_opaque);
    guard(0, || {
        partition_of(
            Rule::Hash(Partitioner::Consistent),
            key,
            keylen,
            partition_cnt,
        )
    })
}

/// CRC32 of the key, random for an empty one
/// (`rd_kafka_msg_partitioner_consistent_random`).
#[no_mangle]
pub extern "C" fn rd_kafka_msg_partitioner_consistent_random(
    rkt: *const Topic,
    key: *const c_void,
    keylen: usize,
    partition_cnt: i32,
    rkt_opaque: *mut c_void,
    msg_opaque: *mut c_void,
) -> i32 {
    let _ = (rkt, rkt_opaque, msg_opaque);
    guard(0, || {
        partition_of(
            Rule::EmptyRandom(Partitioner::Consistent),
            key,
            keylen,
            partition_cnt,
        )
    })
}

/// The Java client's murmur2 of the key
/// (`rd_kafka_msg_partitioner_murmur2`).
#[no_mangle]
pub extern "C" fn rd_kafka_msg_partitioner_murmur2(
    rkt: *const Topic,
    key: *const c_void,
    keylen: usize,
    partition_cnt: i32,
    rkt_opaque: *mut c_void,
    msg_opaque: *mut c_void,
) -> i32 {
    let _ = (rkt, rkt_opaque, msg_opaque);
    guard(0, || {
        partition_of(Rule::Hash(Partitioner::Murmur2), key, keylen, partition_cnt)
    })
}

/// murmur2 of the key, random for a NULL one
/// (`rd_kafka_msg_partitioner_murmur2_random`).
#[no_mangle]
pub extern "C" fn rd_kafka_msg_partitioner_murmur2_random(
    rkt: *const Topic,
    key: *const c_void,
    keylen: usize,
    partition_cnt: i32,
    rkt_opaque: *mut c_void,
    msg_opaque: *mut c_void,
) -> i32 {
    let _ = (rkt, rkt_opaque, msg_opaque);
    guard(0, || {
        partition_of(
            Rule::Hash(Partitioner::Murmur2Random),
            key,
            keylen,
            partition_cnt,
        )
    })
}

/// FNV-1a of the key (`rd_kafka_msg_partitioner_fnv1a`).
#[no_mangle]
pub extern "C" fn rd_kafka_msg_partitioner_fnv1a(
    rkt: *const Topic,
    key: *const c_void,
    keylen: usize,
    partition_cnt: i32,
    rkt_opaque: *mut c_void,
    msg_opaque: *mut c_void,
) -> i32 {
    let _ = (rkt, rkt_opaque, msg_opaque);
    guard(0, || {
        partition_of(Rule::Hash(Partitioner::Fnv1a), key, keylen, partition_cnt)
    })
}

/// FNV-1a of the key, random for a NULL one
/// (`rd_kafka_msg_partitioner_fnv1a_random`).
#[no_mangle]
pub extern "C" fn rd_kafka_msg_partitioner_fnv1a_random(
    rkt: *const Topic,
    key: *const c_void,
    keylen: usize,
    partition_cnt: i32,
    rkt_opaque: *mut c_void,
    msg_opaque: *mut c_void,
) -> i32 {
    let _ = (rkt, rkt_opaque, msg_opaque);
    guard(0, || {
        partition_of(
            Rule::Hash(Partitioner::Fnv1aRandom),
            key,
            keylen,
            partition_cnt,
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_range_and_consistent() {
        let k = b"key-1";
        let null = std::ptr::null_mut();
        for _ in 0..20 {
            let r = rd_kafka_msg_partitioner_random(std::ptr::null(), null, 0, 5, null, null);
            assert!((0..5).contains(&r));
        }
        let a = rd_kafka_msg_partitioner_consistent(
            std::ptr::null(),
            k.as_ptr().cast(),
            5,
            7,
            null,
            null,
        );
        let b = rd_kafka_msg_partitioner_consistent_random(
            std::ptr::null(),
            k.as_ptr().cast(),
            5,
            7,
            null,
            null,
        );
        assert_eq!(a, b);
        assert_eq!(
            rd_kafka_msg_partitioner_murmur2(std::ptr::null(), k.as_ptr().cast(), 5, 0, null, null),
            0
        );
    }
}
