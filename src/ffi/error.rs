//! The library's version and its error codes' names and descriptions
//! (`gregor_version`, `gregor_err_name`, `gregor_err_str`).

use std::ffi::{c_char, c_int, CString};
use std::sync::OnceLock;

use super::guard::guard;
use super::raw::*;

// ----- library -----

/// gregor's version, e.g. "0.1.0". Static; never free it. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_version() -> *const c_char {
    static V: OnceLock<CString> = OnceLock::new();
    V.get_or_init(|| CString::new(env!("CARGO_PKG_VERSION")).unwrap_or_default())
        .as_ptr()
}

/// (code, name, description) for every code gregor knows, sorted by code:
/// the descriptor table (`crate::error::err_descs`, as `gregor_get_err_descs`).
/// A plain sorted Vec rather than a HashMap: hashbrown points into the middle
/// of its allocation, which valgrind reports as "possibly lost" at exit.
fn err_strings() -> &'static [(i32, CString, CString)] {
    static T: OnceLock<Vec<(i32, CString, CString)>> = OnceLock::new();
    T.get_or_init(|| {
        crate::error::err_descs()
            .map(|d| {
                let name = CString::new(d.name).unwrap_or_default();
                let desc = CString::new(d.desc).unwrap_or_default();
                (d.code, name, desc)
            })
            .collect()
    })
}

fn err_entry(err: c_int) -> Option<&'static (i32, CString, CString)> {
    let t = err_strings();
    t.binary_search_by_key(&err, |e| e.0).ok().map(|i| &t[i])
}

/// The name of error code `err` ("UNKNOWN_TOPIC_OR_PARTITION", "_TIMED_OUT",
/// "NO_ERROR" for 0, "UNKNOWN" for codes gregor does not know). Static;
/// never free it. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_err_name(err: c_int) -> *const c_char {
    guard(static_cstr(c"UNKNOWN"), || {
        err_entry(err).map_or(static_cstr(c"UNKNOWN"), |e| e.1.as_ptr())
    })
}

/// A human-readable description of error code `err`. Static; never free it.
/// Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_err_str(err: c_int) -> *const c_char {
    guard(static_cstr(c"Unknown error"), || {
        err_entry(err).map_or(static_cstr(c"Unknown error"), |e| e.2.as_ptr())
    })
}
