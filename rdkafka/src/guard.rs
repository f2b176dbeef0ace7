//! The panic guard every exported function's body runs in: a panic must
//! never unwind into C (that is undefined behavior), so it becomes the
//! function's failure value instead.

use std::panic::{catch_unwind, AssertUnwindSafe};

/// Runs `f`, returning `on_panic` if it panics.
pub fn guard<T>(on_panic: T, f: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(on_panic)
}

#[cfg(test)]
mod tests {
    use super::guard;

    #[test]
    fn a_panic_becomes_the_failure_value() {
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let got = guard(-1, || panic!("boom"));
        std::panic::set_hook(hook);
        assert_eq!(got, -1);
        assert_eq!(guard(-1, || 7), 7);
    }
}
