//! Inputs the codecs' tests share: compressible text and incompressible
//! noise.

/// Compressible text with some variety, `n` bytes long.
pub(crate) fn sample(n: usize) -> Vec<u8> {
    let words: &[&[u8]] = &[
        b"kafka ",
        b"record ",
        b"batch ",
        b"offset ",
        b"\x00\x01\x02",
        b"zz ",
    ];
    let mut v = Vec::with_capacity(n + 8);
    let mut i = 0usize;
    while v.len() < n {
        v.extend_from_slice(words[(i * 7 + i / 3) % words.len()]);
        v.push((i % 251) as u8);
        i += 1;
    }
    v.truncate(n);
    v
}

/// Incompressible bytes (xorshift64), `n` long.
pub(crate) fn noise(n: usize) -> Vec<u8> {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 32) as u8
        })
        .collect()
}
