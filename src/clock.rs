//! Readings of the monotonic clock in microseconds, the precise one and the
//! coarse one.
//!
//! The coarse reading is the kernel's last timer tick (Linux's
//! `CLOCK_MONOTONIC_COARSE`, a few milliseconds of resolution) and costs a
//! fifth of a precise one. It serves checks a hot path makes on every call
//! whose answer only needs to be right to a few milliseconds, such as
//! "is a statistics snapshot due?" on every consumer poll; a precise
//! reading serves everything that is shown or measured.
//!
//! Both count from the same origin, so a coarse reading compares with a
//! precise one; the coarse one is behind by at most its resolution.

/// The precise monotonic clock, in µs (librdkafka's `rd_clock()`; the
/// `ts` of a statistics snapshot).
pub(crate) fn monotonic_us() -> u64 {
    read(libc::CLOCK_MONOTONIC)
}

/// The coarse monotonic clock, in µs: at most one timer tick behind
/// [`monotonic_us`].
pub(crate) fn coarse_us() -> u64 {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    return read(libc::CLOCK_MONOTONIC_COARSE);
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    return read(libc::CLOCK_MONOTONIC);
}

// The third `unsafe` call outside src/ffi (see docs/ARCHITECTURE.md): std
// has no coarse clock, and its `Instant` cannot be compared with one.
#[allow(unsafe_code)]
fn read(clock: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; clock_gettime writes
    // only it. Both clock ids exist on every kernel gregor runs on, so it
    // cannot fail (POSIX: EINVAL for an unknown clock, EFAULT for a bad
    // pointer); a failure would read as time 0, which only delays a check.
    let rc = unsafe { libc::clock_gettime(clock, &mut ts) };
    if rc != 0 {
        return 0;
    }
    ts.tv_sec as u64 * 1_000_000 + ts.tv_nsec as u64 / 1_000
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_coarse_clock_is_never_ahead_and_at_most_a_tick_behind() {
        for _ in 0..1000 {
            let fine0 = monotonic_us();
            let coarse = coarse_us();
            let fine1 = monotonic_us();
            assert!(coarse <= fine1, "coarse {coarse} ahead of {fine1}");
            // a tick is at most 10 ms (HZ=100); a second leaves room for a
            // virtual machine whose timekeeping CPU was paused
            assert!(
                coarse + 1_000_000 >= fine0,
                "coarse {coarse} far behind {fine0}"
            );
        }
    }
}
