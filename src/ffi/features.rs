//! Which optional Cargo features this libgregor was built with (README
//! "Cargo features"), for C programs and bindings that adapt at run time.

use std::ffi::{c_char, CString};
use std::sync::OnceLock;

/// The optional features built in, comma-separated, in the order
/// zookeeper, legacy07, admin, tls, sasl, mock.
pub(crate) fn builtin() -> String {
    [
        ("zookeeper", cfg!(feature = "zookeeper")),
        ("legacy07", cfg!(feature = "legacy07")),
        ("admin", cfg!(feature = "admin")),
        ("tls", cfg!(feature = "tls")),
        ("sasl", cfg!(feature = "sasl")),
        ("mock", cfg!(feature = "mock")),
    ]
    .iter()
    .filter(|(_, on)| *on)
    .map(|(name, _)| *name)
    .collect::<Vec<_>>()
    .join(",")
}

/// The optional Cargo features this library was built with,
/// comma-separated: "zookeeper,legacy07,admin,tls,sasl,mock" when built with
/// all of them (the default), "" with none. The functions and
/// configuration properties of a feature left out fail with
/// `GREGOR_ERR__NOT_IMPLEMENTED`. A static string: do not free it.
#[no_mangle]
pub extern "C" fn gregor_builtin_features() -> *const c_char {
    static S: OnceLock<CString> = OnceLock::new();
    S.get_or_init(|| CString::new(builtin()).unwrap_or_default())
        .as_ptr()
}

#[cfg(test)]
mod tests {
    use std::ffi::CStr;

    use super::*;

    #[test]
    fn lists_the_features_built_in() {
        // SAFETY: a static NUL-terminated string.
        let s = unsafe { CStr::from_ptr(gregor_builtin_features()) };
        let s = s.to_str().unwrap();
        assert_eq!(s, builtin());
        assert_eq!(s.contains("admin"), cfg!(feature = "admin"));
        assert_eq!(s.contains("tls"), cfg!(feature = "tls"));
        if cfg!(all(
            feature = "zookeeper",
            feature = "legacy07",
            feature = "admin",
            feature = "tls",
            feature = "sasl",
            feature = "mock"
        )) {
            assert_eq!(s, "zookeeper,legacy07,admin,tls,sasl,mock");
        }
    }
}
