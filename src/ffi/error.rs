//! The library's version and its error codes' names and descriptions
//! (`gregor_version`, `gregor_err_name`, `gregor_err_str`).

use std::ffi::{c_char, c_int, CString};
use std::sync::OnceLock;

use super::guard::guard;
use super::raw::*;
use crate::error::{code_description, code_name, local};
use crate::protocol::error_code::ERROR_TABLE;

// ----- library -----

/// gregor's version, e.g. "0.1.0". Static; never free it. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_version() -> *const c_char {
    static V: OnceLock<CString> = OnceLock::new();
    V.get_or_init(|| CString::new(env!("CARGO_PKG_VERSION")).unwrap_or_default())
        .as_ptr()
}

/// (code, name, description) for every code gregor knows, sorted by code.
/// A plain sorted Vec rather than a HashMap: hashbrown points into the middle
/// of its allocation, which valgrind reports as "possibly lost" at exit.
fn err_strings() -> &'static [(i32, CString, CString)] {
    static T: OnceLock<Vec<(i32, CString, CString)>> = OnceLock::new();
    T.get_or_init(|| {
        let codes = ERROR_TABLE
            .iter()
            .map(|i| i32::from(i.code))
            .chain(local::TABLE.iter().map(|(c, _, _)| *c));
        let mut t: Vec<_> = codes
            .map(|c| {
                // Kafka calls 0 "NONE"; C callers get librdkafka's name, as
                // the header promises and `GREGOR_ERR_NO_ERROR` spells it.
                let name = match c {
                    0 => c"NO_ERROR".to_owned(),
                    c => CString::new(code_name(c)).unwrap_or_default(),
                };
                let desc = CString::new(code_description(c)).unwrap_or_default();
                (c, name, desc)
            })
            .collect();
        t.sort_by_key(|e| e.0);
        t.dedup_by_key(|e| e.0);
        t
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
