//! The panic guard every export goes through: no panic unwinds into C, and
//! a call's error becomes its code and its `errstr` text.

use std::ffi::c_char;
use std::panic::{catch_unwind, AssertUnwindSafe};

use super::raw::write_errstr;
use crate::error::{local, Error};

/// Runs `f`, turning a panic into `on_panic` (no panic may unwind into C).
pub(crate) fn guard<T>(on_panic: T, f: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(on_panic)
}

/// Runs `f`, which returns an error code, writing any error's text to `errstr`.
pub(crate) fn guard_code(
    errstr: *mut c_char,
    errstr_size: usize,
    f: impl FnOnce() -> Result<(), Error>,
) -> i32 {
    let (r, overlapped) = super::lifetime::overlap_scope(|| catch_unwind(AssertUnwindSafe(f)));
    // A call that was still running when its handle's `_free` began ends
    // with `_DESTROY`, whatever it got (the handle is gone for the caller).
    let r = match r {
        Ok(_) if overlapped => Ok(Err(Error::local(
            local::DESTROY,
            "handle destroyed during the call",
        ))),
        r => r,
    };
    match r {
        Ok(Ok(())) => {
            write_errstr(errstr, errstr_size, "");
            0
        }
        Ok(Err(e)) => {
            write_errstr(errstr, errstr_size, &e.to_string());
            e.code()
        }
        Err(_) => {
            write_errstr(
                errstr,
                errstr_size,
                "internal error: gregor panicked (this is a bug)",
            );
            local::FAIL
        }
    }
}

/// As [`guard_code`], for a call whose success is itself a code (a
/// handle's fatal error): that code, or the call's error code.
pub(crate) fn guard_code_of(
    errstr: *mut c_char,
    errstr_size: usize,
    f: impl FnOnce() -> Result<i32, Error>,
) -> i32 {
    let mut code = 0;
    match guard_code(errstr, errstr_size, || {
        code = f()?;
        Ok(())
    }) {
        0 => code,
        r => r,
    }
}

/// Reads one field of the object behind `r` with `f`: `default` for a NULL
/// pointer, an index out of range (`f` returns `None`) or a panic. Every
/// accessor of a result object is one call of this or of `item` / `count`.
pub(crate) fn field<R, T: Copy>(r: *const R, default: T, f: impl FnOnce(&R) -> Option<T>) -> T {
    guard(default, || {
        super::raw::handle(r, "result")
            .ok()
            .and_then(f)
            .unwrap_or(default)
    })
}

/// A result object made of indexed items (topics, partitions, groups, …).
/// The admin and ZooKeeper results are the ones made of items.
#[cfg(any(feature = "admin", feature = "zookeeper"))]
pub(crate) trait Items {
    type Item;
    fn items(&self) -> &[Self::Item];
}

/// `impl Items` for result types that keep their items in a field `items`.
#[cfg(any(feature = "admin", feature = "zookeeper"))]
macro_rules! impl_items {
    ($($t:ty: $item:ty),* $(,)?) => {$(
        impl $crate::ffi::guard::Items for $t {
            type Item = $item;
            fn items(&self) -> &[$item] {
                &self.items
            }
        }
    )*};
}
#[cfg(any(feature = "admin", feature = "zookeeper"))]
pub(crate) use impl_items;

/// Reads `f` of item `i` of `r` (`default` for NULL or out of range).
#[cfg(any(feature = "admin", feature = "zookeeper"))]
pub(crate) fn item<R: Items, T: Copy>(
    r: *const R,
    i: usize,
    default: T,
    f: impl FnOnce(&R::Item) -> T,
) -> T {
    field(r, default, |r| r.items().get(i).map(f))
}

/// The number of items of `r` (0 for NULL).
#[cfg(any(feature = "admin", feature = "zookeeper"))]
pub(crate) fn count<R: Items>(r: *const R) -> usize {
    field(r, 0, |r| Some(r.items().len()))
}
