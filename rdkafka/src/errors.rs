//! librdkafka's error space in C: `rd_kafka_err2str`, `rd_kafka_err2name`,
//! `rd_kafka_get_err_descs` and `rd_kafka_last_error`.
//!
//! The codes are gregor's (librdkafka's numbers: 0 success, > 0 the
//! broker's Kafka code, < 0 local), the names and texts librdkafka's:
//! Kafka codes from the `librdkafka` column of gregor's code table
//! ([`gregor::error::KafkaCode::librdkafka`]), local codes from [`LOCAL`],
//! librdkafka 2.12.1's full list. gregor's own local table
//! ([`gregor::error::local::TABLE`]) has only the codes gregor raises and
//! differs from librdkafka's at two (see the tests), so it cannot be
//! librdkafka's list.
//!
//! [`rd_kafka_get_err_descs`] hands out one array laid out as librdkafka's:
//! entry `i` is code `i - 200`, from `RD_KAFKA_RESP_ERR__BEGIN` (-200) to
//! the last Kafka code librdkafka knows; `_BEGIN` and `_END` (-100) carry a
//! name and no text, codes librdkafka does not know are all-zero entries.
//! `rd_kafka_err2str` / `rd_kafka_err2name` read the same array and, for a
//! code without a text, format `"Err-<code>?"` / `"ERR_<code>?"` into a
//! per-thread buffer as librdkafka does.

#![allow(unsafe_code)] // `#[no_mangle]`, and `Sync` for the array of C pointers

use std::cell::Cell;
use std::ffi::{c_char, c_int, CStr, CString};
use std::io::Write as _;
use std::ptr;
use std::sync::OnceLock;
use std::thread::LocalKey;

use gregor::error::KafkaCode;

use crate::guard::guard;
use crate::raw::write_out;

/// `RD_KAFKA_RESP_ERR__BEGIN`: the array's first code.
pub const RESP_ERR__BEGIN: c_int = -200;
/// `RD_KAFKA_RESP_ERR__END`: the end of the local codes.
pub const RESP_ERR__END: c_int = -100;
/// `RD_KAFKA_RESP_ERR__NOT_IMPLEMENTED`, what the stubs fail with.
pub const RESP_ERR__NOT_IMPLEMENTED: c_int = -170;

/// librdkafka 2.12.1's local codes: code, name, text, in code order.
pub const LOCAL: &[(c_int, &CStr, &CStr)] = &[
    (-199, c"_BAD_MSG", c"Local: Bad message format"),
    (-198, c"_BAD_COMPRESSION", c"Local: Invalid compressed data"),
    (
        -197,
        c"_DESTROY",
        c"Local: Broker handle destroyed for termination",
    ),
    (-196, c"_FAIL", c"Local: Communication failure with broker"),
    (-195, c"_TRANSPORT", c"Local: Broker transport failure"),
    (
        -194,
        c"_CRIT_SYS_RESOURCE",
        c"Local: Critical system resource failure",
    ),
    (-193, c"_RESOLVE", c"Local: Host resolution failure"),
    (-192, c"_MSG_TIMED_OUT", c"Local: Message timed out"),
    (-191, c"_PARTITION_EOF", c"Broker: No more messages"),
    (-190, c"_UNKNOWN_PARTITION", c"Local: Unknown partition"),
    (-189, c"_FS", c"Local: File or filesystem error"),
    (-188, c"_UNKNOWN_TOPIC", c"Local: Unknown topic"),
    (
        -187,
        c"_ALL_BROKERS_DOWN",
        c"Local: All broker connections are down",
    ),
    (
        -186,
        c"_INVALID_ARG",
        c"Local: Invalid argument or configuration",
    ),
    (-185, c"_TIMED_OUT", c"Local: Timed out"),
    (-184, c"_QUEUE_FULL", c"Local: Queue full"),
    (-183, c"_ISR_INSUFF", c"Local: ISR count insufficient"),
    (-182, c"_NODE_UPDATE", c"Local: Broker node update"),
    (-181, c"_SSL", c"Local: SSL error"),
    (-180, c"_WAIT_COORD", c"Local: Waiting for coordinator"),
    (-179, c"_UNKNOWN_GROUP", c"Local: Unknown group"),
    (-178, c"_IN_PROGRESS", c"Local: Operation in progress"),
    (
        -177,
        c"_PREV_IN_PROGRESS",
        c"Local: Previous operation in progress",
    ),
    (
        -176,
        c"_EXISTING_SUBSCRIPTION",
        c"Local: Existing subscription",
    ),
    (-175, c"_ASSIGN_PARTITIONS", c"Local: Assign partitions"),
    (-174, c"_REVOKE_PARTITIONS", c"Local: Revoke partitions"),
    (-173, c"_CONFLICT", c"Local: Conflicting use"),
    (-172, c"_STATE", c"Local: Erroneous state"),
    (-171, c"_UNKNOWN_PROTOCOL", c"Local: Unknown protocol"),
    (-170, c"_NOT_IMPLEMENTED", c"Local: Not implemented"),
    (-169, c"_AUTHENTICATION", c"Local: Authentication failure"),
    (-168, c"_NO_OFFSET", c"Local: No offset stored"),
    (-167, c"_OUTDATED", c"Local: Outdated"),
    (-166, c"_TIMED_OUT_QUEUE", c"Local: Timed out in queue"),
    (
        -165,
        c"_UNSUPPORTED_FEATURE",
        c"Local: Required feature not supported by broker",
    ),
    (-164, c"_WAIT_CACHE", c"Local: Awaiting cache update"),
    (-163, c"_INTR", c"Local: Operation interrupted"),
    (
        -162,
        c"_KEY_SERIALIZATION",
        c"Local: Key serialization error",
    ),
    (
        -161,
        c"_VALUE_SERIALIZATION",
        c"Local: Value serialization error",
    ),
    (
        -160,
        c"_KEY_DESERIALIZATION",
        c"Local: Key deserialization error",
    ),
    (
        -159,
        c"_VALUE_DESERIALIZATION",
        c"Local: Value deserialization error",
    ),
    (-158, c"_PARTIAL", c"Local: Partial response"),
    (-157, c"_READ_ONLY", c"Local: Read-only object"),
    (-156, c"_NOENT", c"Local: No such entry"),
    (-155, c"_UNDERFLOW", c"Local: Read underflow"),
    (-154, c"_INVALID_TYPE", c"Local: Invalid type"),
    (-153, c"_RETRY", c"Local: Retry operation"),
    (-152, c"_PURGE_QUEUE", c"Local: Purged in queue"),
    (-151, c"_PURGE_INFLIGHT", c"Local: Purged in flight"),
    (-150, c"_FATAL", c"Local: Fatal error"),
    (-149, c"_INCONSISTENT", c"Local: Inconsistent state"),
    (
        -148,
        c"_GAPLESS_GUARANTEE",
        c"Local: Gap-less ordering would not be guaranteed if proceeding",
    ),
    (
        -147,
        c"_MAX_POLL_EXCEEDED",
        c"Local: Maximum application poll interval (max.poll.interval.ms) exceeded",
    ),
    (-146, c"_UNKNOWN_BROKER", c"Local: Unknown broker"),
    (
        -145,
        c"_NOT_CONFIGURED",
        c"Local: Functionality not configured",
    ),
    (
        -144,
        c"_FENCED",
        c"Local: This instance has been fenced by a newer instance",
    ),
    (-143, c"_APPLICATION", c"Local: Application generated error"),
    (
        -142,
        c"_ASSIGNMENT_LOST",
        c"Local: Group partition assignment lost",
    ),
    (-141, c"_NOOP", c"Local: No operation performed"),
    (
        -140,
        c"_AUTO_OFFSET_RESET",
        c"Local: No offset to automatically reset to",
    ),
    (
        -139,
        c"_LOG_TRUNCATION",
        c"Local: Partition log truncation detected",
    ),
    (
        -138,
        c"_INVALID_DIFFERENT_RECORD",
        c"Local: an invalid record in the same batch caused the failure of this message too",
    ),
    (
        -137,
        c"_DESTROY_BROKER",
        c"Local: Broker handle destroyed without termination",
    ),
];

/// One entry of the array, `struct rd_kafka_err_desc` of rdkafka.h.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ErrDesc {
    /// The code (`rd_kafka_resp_err_t`); 0 in an unused entry.
    pub code: c_int,
    /// Its name without the `RD_KAFKA_RESP_ERR_` prefix, or NULL.
    pub name: *const c_char,
    /// Its text, or NULL.
    pub desc: *const c_char,
}

/// The array and the strings it points into, made once.
struct Descs {
    entries: Vec<ErrDesc>,
    _strings: Vec<CString>,
}

// SAFETY: the pointers point into `_strings` and static literals, which
// are never written or freed once the array is made.
unsafe impl Sync for Descs {}
// SAFETY: as above; nothing in the array is tied to a thread.
unsafe impl Send for Descs {}

fn descs() -> &'static Descs {
    static DESCS: OnceLock<Descs> = OnceLock::new();
    DESCS.get_or_init(|| {
        let mut strings = Vec::new();
        let mut kafka = Vec::new();
        for d in gregor::error::err_descs().filter(|d| d.code >= -1) {
            let rd = i16::try_from(d.code)
                .ok()
                .and_then(|c| KafkaCode(c).librdkafka());
            if let Some(rd) = rd {
                let name = CString::new(rd.name).unwrap_or_default();
                let desc = CString::new(rd.desc).unwrap_or_default();
                kafka.push((d.code, name.as_ptr(), desc.as_ptr()));
                strings.extend([name, desc]);
            }
        }
        let end_all = kafka.iter().map(|k| k.0 + 1).max().unwrap_or(0);
        let hole = ErrDesc {
            code: 0,
            name: ptr::null(),
            desc: ptr::null(),
        };
        let mut entries = vec![hole; usize::try_from(end_all - RESP_ERR__BEGIN).unwrap_or(0)];
        let mut put = |code: c_int, name: *const c_char, desc: *const c_char| {
            if let Some(e) = usize::try_from(code - RESP_ERR__BEGIN)
                .ok()
                .and_then(|i| entries.get_mut(i))
            {
                *e = ErrDesc { code, name, desc };
            }
        };
        put(RESP_ERR__BEGIN, c"_BEGIN".as_ptr(), ptr::null());
        put(RESP_ERR__END, c"_END".as_ptr(), ptr::null());
        for &(code, name, desc) in LOCAL {
            put(code, name.as_ptr(), desc.as_ptr());
        }
        for (code, name, desc) in kafka {
            put(code, name, desc);
        }
        Descs {
            entries,
            _strings: strings,
        }
    })
}

/// The entry of `code` if librdkafka has a text for it.
fn known(code: c_int) -> Option<&'static ErrDesc> {
    let i = usize::try_from(code.checked_sub(RESP_ERR__BEGIN)?).ok()?;
    descs()
        .entries
        .get(i)
        .filter(|e| code > RESP_ERR__BEGIN && !e.desc.is_null())
}

thread_local! {
    static STR_BUF: Cell<[u8; 32]> = const { Cell::new([0; 32]) };
    static NAME_BUF: Cell<[u8; 32]> = const { Cell::new([0; 32]) };
    static LAST_ERROR: Cell<c_int> = const { Cell::new(0) };
}

/// Formats `args` into the thread's buffer `buf` (NUL-terminated,
/// truncated) and returns it: valid until the thread's next call with the
/// same buffer, as librdkafka's per-thread buffers.
fn per_thread(buf: &'static LocalKey<Cell<[u8; 32]>>, args: std::fmt::Arguments) -> *const c_char {
    let mut b = [0u8; 32];
    let mut w = &mut b[..31];
    let _ = w.write_fmt(args);
    buf.with(|cell| {
        cell.set(b);
        cell.as_ptr().cast::<c_char>().cast_const()
    })
}

/// librdkafka's text for error code `err` (`rd_kafka_err2str`): a static
/// string, or for a code librdkafka does not describe `"Err-<code>?"` in a
/// per-thread buffer valid until the thread's next call.
#[no_mangle]
pub extern "C" fn rd_kafka_err2str(err: c_int) -> *const c_char {
    guard(c"".as_ptr(), || match known(err) {
        Some(e) => e.desc,
        None => per_thread(&STR_BUF, format_args!("Err-{err}?")),
    })
}

/// librdkafka's name for error code `err` without the `RD_KAFKA_RESP_ERR_`
/// prefix (`rd_kafka_err2name`): a static string, or `"ERR_<code>?"` in a
/// per-thread buffer as [`rd_kafka_err2str`].
#[no_mangle]
pub extern "C" fn rd_kafka_err2name(err: c_int) -> *const c_char {
    guard(c"".as_ptr(), || match known(err) {
        Some(e) => e.name,
        None => per_thread(&NAME_BUF, format_args!("ERR_{err}?")),
    })
}

/// The array of every code (`rd_kafka_get_err_descs`): `*errdescs` points
/// to it and `*cntp` is its length; static, owned by the library.
#[no_mangle]
pub extern "C" fn rd_kafka_get_err_descs(errdescs: *mut *const ErrDesc, cntp: *mut usize) {
    guard((), || {
        let d = &descs().entries;
        write_out(errdescs, d.as_ptr());
        write_out(cntp, d.len());
    })
}

/// The last error a legacy call (`rd_kafka_topic_new`, `rd_kafka_produce`,
/// …) left on this thread (`rd_kafka_last_error`); every not-yet-implemented
/// function leaves `RD_KAFKA_RESP_ERR__NOT_IMPLEMENTED`.
#[no_mangle]
pub extern "C" fn rd_kafka_last_error() -> c_int {
    guard(0, || LAST_ERROR.with(Cell::get))
}

/// Sets what [`rd_kafka_last_error`] returns on this thread.
pub(crate) fn set_last_error(code: c_int) {
    LAST_ERROR.with(|e| e.set(code));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(p: *const c_char) -> String {
        // SAFETY: the functions under test return NUL-terminated strings.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }

    #[test]
    fn local_codes_are_in_order_and_named() {
        assert!(LOCAL.windows(2).all(|w| w[0].0 < w[1].0));
        for (code, name, _) in LOCAL {
            assert!(*code > RESP_ERR__BEGIN && *code < RESP_ERR__END);
            assert!(name.to_str().unwrap().starts_with('_'));
        }
    }

    /// gregor's local codes are librdkafka's numbers and names but for the
    /// two places gregor's error space departs from librdkafka's: -145 is
    /// gregor's `_INVALID_CONFIG` (librdkafka's `_NOT_CONFIGURED`), and
    /// gregor's text for `_DESTROY` is shorter. A third difference fails
    /// here, so it is seen.
    #[test]
    fn gregors_local_table_agrees_but_where_known() {
        for &(code, name, desc) in gregor::error::local::TABLE {
            let (_, rd_name, rd_desc) = LOCAL
                .iter()
                .find(|(c, _, _)| *c == code)
                .unwrap_or_else(|| panic!("gregor's {name} ({code}) is not librdkafka's"));
            match code {
                -145 => assert_eq!(name, "_INVALID_CONFIG"),
                -197 => assert_eq!(rd_name.to_str().unwrap(), name),
                _ => assert_eq!(
                    (rd_name.to_str().unwrap(), rd_desc.to_str().unwrap()),
                    (name, desc)
                ),
            }
        }
    }

    #[test]
    fn names_and_texts() {
        assert_eq!(text(rd_kafka_err2name(0)), "NO_ERROR");
        assert_eq!(text(rd_kafka_err2str(0)), "Success");
        assert_eq!(text(rd_kafka_err2name(-170)), "_NOT_IMPLEMENTED");
        assert_eq!(
            text(rd_kafka_err2str(3)),
            "Broker: Unknown topic or partition"
        );
        assert_eq!(text(rd_kafka_err2name(3)), "UNKNOWN_TOPIC_OR_PART");
        for code in [-200, -100, -201, 5000, i32::MIN] {
            assert_eq!(text(rd_kafka_err2str(code)), format!("Err-{code}?"));
            assert_eq!(text(rd_kafka_err2name(code)), format!("ERR_{code}?"));
        }
    }

    #[test]
    fn the_array_is_indexed_by_code() {
        let mut p = ptr::null();
        let mut n = 0;
        rd_kafka_get_err_descs(&mut p, &mut n);
        assert!(!p.is_null() && n > 230);
        let d = &descs().entries;
        for (i, e) in d.iter().enumerate() {
            assert!(e.code == 0 || e.code == i as c_int + RESP_ERR__BEGIN, "{i}");
        }
        assert_eq!(d[0].code, RESP_ERR__BEGIN);
        assert!(d[0].desc.is_null() && d[100].desc.is_null());
        assert!(!d[n - 1].desc.is_null(), "the last entry is a known code");
        rd_kafka_get_err_descs(ptr::null_mut(), ptr::null_mut());
    }

    #[test]
    fn last_error_is_per_thread() {
        set_last_error(-170);
        assert_eq!(rd_kafka_last_error(), -170);
        assert_eq!(
            std::thread::spawn(|| rd_kafka_last_error()).join().unwrap(),
            0
        );
    }
}
