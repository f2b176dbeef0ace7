//! librdkafka's names and texts for error codes, for bindings that keep
//! librdkafka-based clients' shape (rdkafka-ruby's `RdkafkaError#code` and
//! `#to_s`, confluent-kafka's `KafkaError.name()` / `str()`): librdkafka
//! names a few Kafka codes differently from Kafka ("UNKNOWN_TOPIC_OR_PART",
//! "MSG_SIZE_TOO_LARGE") and describes broker codes as "Broker: …"
//! (librdkafka's `rd_kafka_err2name` / `rd_kafka_err2str`). gregor's own
//! `gregor_err_name` / `gregor_err_str` keep Kafka's names. The strings
//! are the `librdkafka` column of Kafka's code table
//! (`protocol::error_code`) and gregor's local codes (`error::local`), whose
//! texts are librdkafka's; this module only makes C strings of them.

use crate::sync::MutexExt;
use std::collections::HashMap;
use std::ffi::{c_char, c_int, CString};
use std::sync::{Mutex, OnceLock};

use super::guard::guard;
use crate::error::{err_descs, ErrDesc};
use crate::protocol::KafkaCode;

type Entry = (CString, CString);

fn cstring(s: &str) -> CString {
    CString::new(s).unwrap_or_default()
}

/// librdkafka's name and text for a code gregor knows: the librdkafka
/// column of Kafka's code table where librdkafka knows the code; else
/// gregor's own name and description (local codes carry librdkafka's
/// already), "Broker: " before a broker code's as `rd_kafka_err2str` puts it.
fn entry(d: &ErrDesc) -> Entry {
    let rd = i16::try_from(d.code)
        .ok()
        .and_then(|c| KafkaCode(c).librdkafka());
    match rd {
        Some(rd) => (cstring(rd.name), cstring(rd.desc)),
        None if d.code >= 0 => (cstring(d.name), cstring(&format!("Broker: {}", d.desc))),
        None => (cstring(d.name), cstring(d.desc)),
    }
}

/// The strings of every code gregor's tables know, made once.
fn known() -> &'static HashMap<i32, Entry> {
    static T: OnceLock<HashMap<i32, Entry>> = OnceLock::new();
    T.get_or_init(|| err_descs().map(|d| (d.code, entry(&d))).collect())
}

/// How many codes no table knows get their own interned "`ERR_<code>?`" /
/// "`Err-<code>?`" pair; later ones share a static pair. Bounded so a caller
/// looping over every `int` cannot grow the process without limit.
const MAX_UNKNOWN: usize = 1024;

/// The strings of a code: those of [`known`], or for the first
/// `MAX_UNKNOWN` codes no table knows their own interned pair. Never freed:
/// librdkafka's `rd_kafka_err2name` / `rd_kafka_err2str` return strings the
/// caller may keep, so two calls in one `printf` must not invalidate each
/// other (a per-thread scratch buffer would).
fn lookup(code: c_int, pick: fn(&'static Entry) -> &'static CString) -> *const c_char {
    if let Some(e) = known().get(&code) {
        return pick(e).as_ptr();
    }
    static UNKNOWN: OnceLock<Mutex<HashMap<i32, &'static Entry>>> = OnceLock::new();
    let mut unknown = UNKNOWN.get_or_init(Mutex::default).locked();
    if let Some(e) = unknown.get(&code) {
        return pick(e).as_ptr();
    }
    if unknown.len() < MAX_UNKNOWN {
        let e = (
            cstring(&format!("ERR_{code}?")),
            cstring(&format!("Err-{code}?")),
        );
        let e: &'static Entry = Box::leak(Box::new(e));
        unknown.insert(code, e);
        return pick(e).as_ptr();
    }
    static OVERFLOW: OnceLock<Entry> = OnceLock::new();
    pick(OVERFLOW.get_or_init(|| (cstring("ERR_?"), cstring("Err-?")))).as_ptr()
}

/// librdkafka's name for error code `err` (`rd_kafka_err2name`):
/// "UNKNOWN_TOPIC_OR_PART", "MSG_SIZE_TOO_LARGE", "_PARTITION_EOF"; gregor's
/// name for a code librdkafka does not know; "`ERR_<code>?`" for a code
/// neither knows ("`ERR_?`" once 1024 such codes have been asked for).
/// Static: valid for the life of the program, never free it. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_err_rdkafka_name(err: c_int) -> *const c_char {
    guard(std::ptr::null(), || lookup(err, |e| &e.0))
}

/// librdkafka's text for error code `err` (`rd_kafka_err2str`): "Broker:
/// Message size too large", "Local: Timed out"; "`Err-<code>?`" for a code
/// neither librdkafka nor gregor knows ("`Err-?`" past 1024 such codes).
/// Static: valid for the life of the program, never free it. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_err_rdkafka_str(err: c_int) -> *const c_char {
    guard(std::ptr::null(), || lookup(err, |e| &e.1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    fn s(p: *const c_char) -> String {
        // SAFETY: the functions return NUL-terminated strings.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }

    #[test]
    fn librdkafka_names_and_texts() {
        assert_eq!(s(gregor_err_rdkafka_name(3)), "UNKNOWN_TOPIC_OR_PART");
        assert_eq!(
            s(gregor_err_rdkafka_str(10)),
            "Broker: Message size too large"
        );
        assert_eq!(s(gregor_err_rdkafka_name(0)), "NO_ERROR");
        assert_eq!(s(gregor_err_rdkafka_str(0)), "Success");
        assert_eq!(s(gregor_err_rdkafka_name(-191)), "_PARTITION_EOF");
        assert_eq!(s(gregor_err_rdkafka_str(-185)), "Local: Timed out");
        assert_eq!(s(gregor_err_rdkafka_name(933975)), "ERR_933975?");
        assert_eq!(s(gregor_err_rdkafka_str(933975)), "Err-933975?");
    }

    /// Every row of testdata/rdkafka-err-names.tsv (codes -200 to 200 and
    /// some beyond, written from these functions): bindings show these
    /// strings as librdkafka's, so none may change unnoticed.
    #[test]
    fn every_code_as_pinned() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/testdata/rdkafka-err-names.tsv"
        );
        let fixture = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let mut rows = 0;
        for line in fixture.lines().filter(|l| !l.starts_with('#')) {
            let mut f = line.split('\t');
            let (Some(code), Some(name), Some(text), None) =
                (f.next(), f.next(), f.next(), f.next())
            else {
                panic!("{path}: not code, name, text: {line:?}");
            };
            let code: c_int = code.parse().unwrap_or_else(|e| panic!("{line:?}: {e}"));
            let got = (
                s(gregor_err_rdkafka_name(code)),
                s(gregor_err_rdkafka_str(code)),
            );
            // A code no table knows gets the shared pair once MAX_UNKNOWN
            // of them have been interned, as `unknown_code_strings_stay_valid`
            // may have done first in this process.
            let overflow =
                name == format!("ERR_{code}?") && got == ("ERR_?".into(), "Err-?".into());
            assert!(
                overflow || got == (name.to_string(), text.to_string()),
                "code {code}: {got:?}, pinned ({name:?}, {text:?})"
            );
            rows += 1;
        }
        assert_eq!(rows, 401 + 21, "{path}: rows");
    }

    #[test]
    fn unknown_code_strings_stay_valid() {
        let name = gregor_err_rdkafka_name(-1000);
        let text = gregor_err_rdkafka_str(-1000);
        assert_eq!(s(name), "ERR_-1000?");
        assert_eq!(s(text), "Err--1000?");
        for c in 0..2 * MAX_UNKNOWN as c_int {
            assert!(!gregor_err_rdkafka_name(-5000 - c).is_null());
        }
        assert_eq!(s(gregor_err_rdkafka_name(i32::MAX)), "ERR_?");
        assert_eq!(s(name), "ERR_-1000?");
        assert_eq!(gregor_err_rdkafka_name(-1000), name);
    }
}
