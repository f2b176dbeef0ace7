//! Test support (unit tests, and the fuzz seed writer through the `samples`
//! feature): fills every field a version carries with a distinct value, so
//! round trips and cross-checks against other encoders exercise all of them.

use super::codec::Ctx;
use crate::wire::{Bytes, Uuid};

/// Source of distinct deterministic values.
pub struct Sampler {
    n: u64,
}

impl Sampler {
    /// Starts at `seed`.
    pub fn new(seed: u64) -> Self {
        Sampler { n: seed }
    }
    /// The next counter value.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.n = self.n.wrapping_add(1);
        self.n
    }
}

/// A type that can make a sample of itself for a version.
pub trait Sample {
    /// A value valid at `cx.version`, with every carried field set.
    fn sample(s: &mut Sampler, cx: Ctx) -> Self;
}

macro_rules! sample_int {
    ($($t:ty),*) => {$(
        impl Sample for $t {
            fn sample(s: &mut Sampler, _cx: Ctx) -> Self {
                // Small distinct values, away from defaults like -1 and 0.
                (s.next() % 100 + 1) as $t
            }
        }
    )*};
}
sample_int!(i8, i16, i32, i64, u16, u32);

impl Sample for f64 {
    fn sample(s: &mut Sampler, _cx: Ctx) -> Self {
        s.next() as f64 + 0.5
    }
}

impl Sample for bool {
    fn sample(s: &mut Sampler, _cx: Ctx) -> Self {
        s.next() % 2 == 0
    }
}

impl Sample for Uuid {
    fn sample(s: &mut Sampler, _cx: Ctx) -> Self {
        let n = s.next();
        Uuid::from_u64_pair(n.wrapping_mul(0x9e37_79b9_7f4a_7c15), n)
    }
}

impl Sample for String {
    fn sample(s: &mut Sampler, _cx: Ctx) -> Self {
        format!("s{}", s.next())
    }
}

impl Sample for Bytes {
    fn sample(s: &mut Sampler, _cx: Ctx) -> Self {
        let n = s.next();
        Bytes::from(vec![n as u8, 0, (n >> 8) as u8, b'x'])
    }
}

impl<T: Sample> Sample for Vec<T> {
    fn sample(s: &mut Sampler, cx: Ctx) -> Self {
        let cx = cx.at(cx.field, false);
        vec![T::sample(s, cx), T::sample(s, cx)]
    }
}

impl<T: Sample> Sample for Option<T> {
    fn sample(s: &mut Sampler, cx: Ctx) -> Self {
        // Null now and then where the version allows it.
        if cx.nullable && s.next() % 5 == 0 {
            None
        } else {
            Some(T::sample(s, cx))
        }
    }
}
