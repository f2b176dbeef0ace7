//! Descriptor tables for C and the bindings, like librdkafka's
//! `rd_kafka_get_err_descs`: every error code and every value of the admin
//! protocol's enumerations, with names and descriptions, read from the one
//! Rust table each comes from ([`crate::error::err_descs`],
//! [`crate::protocol::enums::ENUMS`]). The Python and Ruby bindings build
//! their error and enum tables from these at load time.
//!
//! The C constants (`GREGOR_ERR_*`, `GREGOR_ACL_OPERATION_*`, …) are in
//! `codes.rs`, which is generated from the same tables: the test
//! `codes_rs_is_generated_from_the_tables` below fails when it differs and
//! rewrites it when run with `GREGOR_REGENERATE=1`
//! (`GREGOR_REGENERATE=1 cargo test --lib ffi::descriptors`). The C test
//! `c-tests/test_descriptors.c` compares every constant of `gregor.h` with these
//! tables at run time.

#![allow(missing_docs)]

use std::ffi::{c_char, c_int, CString};
use std::sync::OnceLock;

use super::guard::guard;
use super::raw::put;
use crate::error::err_descs;
use crate::protocol::enums::{EnumTable, ENUMS};

/// Offset: the partition's first offset.
pub const GREGOR_OFFSET_BEGINNING: i64 = -2;
/// Offset: the partition's end (the next message produced).
pub const GREGOR_OFFSET_END: i64 = -1;
/// Offset: the group's committed offset.
pub const GREGOR_OFFSET_STORED: i64 = -1000;
/// Offset: none.
pub const GREGOR_OFFSET_INVALID: i64 = -1001;
/// Offset: `GREGOR_OFFSET_TAIL_BASE - n` starts `n` messages before the end.
pub const GREGOR_OFFSET_TAIL_BASE: i64 = -2000;

/// One error code (librdkafka's `struct rd_kafka_err_desc`): its number, its
/// name without the `GREGOR_ERR_` prefix ("_TIMED_OUT",
/// "UNKNOWN_TOPIC_OR_PARTITION", "NO_ERROR") and a description. The strings
/// are static.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct gregor_err_desc {
    pub code: c_int,
    pub name: *const c_char,
    pub desc: *const c_char,
}

/// One value of an enumeration: its number, the Java client's name for it
/// ("IDEMPOTENT_WRITE", "DYNAMIC_TOPIC_CONFIG"), the name of its constant in
/// gregor.h ("GREGOR_ACL_OPERATION_IDEMPOTENT_WRITE",
/// "GREGOR_CONFIG_SOURCE_DYNAMIC_TOPIC") and a description. The strings are
/// static.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct gregor_enum_desc {
    pub value: c_int,
    pub name: *const c_char,
    pub constant: *const c_char,
    pub desc: *const c_char,
}

/// A table built once: the rows C reads and the strings they point into.
struct Table<T> {
    rows: Vec<T>,
    _strings: Vec<CString>,
}

// SAFETY: the rows' pointers point into `_strings`, which the table owns and
// never changes after it is built; both are only read once built.
unsafe impl<T> Send for Table<T> {}
// SAFETY: as above: immutable after construction.
unsafe impl<T> Sync for Table<T> {}

fn cstring(s: &str) -> CString {
    CString::new(s.replace('\0', "")).unwrap_or_default()
}

fn err_table() -> &'static Table<gregor_err_desc> {
    static T: OnceLock<Table<gregor_err_desc>> = OnceLock::new();
    T.get_or_init(|| {
        let mut strings = Vec::new();
        let mut rows = Vec::new();
        for d in err_descs() {
            let name = cstring(d.name);
            let desc = cstring(d.desc);
            rows.push(gregor_err_desc {
                code: d.code,
                name: name.as_ptr(),
                desc: desc.as_ptr(),
            });
            strings.push(name);
            strings.push(desc);
        }
        Table {
            rows,
            _strings: strings,
        }
    })
}

/// The C constant prefix of an enumeration's values, and the part of a
/// value's name the constant leaves out (the C names were chosen before the
/// table: `GREGOR_CONFIG_SOURCE_DYNAMIC_TOPIC` for `DYNAMIC_TOPIC_CONFIG`).
fn c_prefix(table: &str) -> (&'static str, &'static str, &'static str) {
    match table {
        "ResourceType" => ("GREGOR_RESOURCE_", "", ""),
        "ConfigResourceType" => ("GREGOR_CONFIG_RESOURCE_", "", ""),
        "PatternType" => ("GREGOR_PATTERN_", "", ""),
        "AclOperation" => ("GREGOR_ACL_OPERATION_", "", ""),
        "AclPermissionType" => ("GREGOR_ACL_PERMISSION_", "", ""),
        "ConfigSource" => ("GREGOR_CONFIG_SOURCE_", "", "_CONFIG"),
        "ConfigType" => ("GREGOR_CONFIG_TYPE_", "", ""),
        "AlterConfigOpType" => ("GREGOR_ALTER_CONFIG_", "", ""),
        "ScramMechanism" => ("GREGOR_SCRAM_", "SCRAM_", ""),
        "ElectionType" => ("GREGOR_ELECTION_", "", ""),
        other => panic!("no C prefix for enumeration {other}: add one to c_prefix"),
    }
}

/// The name of a value's constant in gregor.h.
pub(crate) fn c_constant(table: &str, name: &str) -> String {
    let (prefix, strip_start, strip_end) = c_prefix(table);
    let short = name.strip_prefix(strip_start).unwrap_or(name);
    let short = short.strip_suffix(strip_end).unwrap_or(short);
    format!("{prefix}{short}")
}

fn enum_table(which: &str) -> &'static Table<gregor_enum_desc> {
    static T: OnceLock<Vec<Table<gregor_enum_desc>>> = OnceLock::new();
    let all = T.get_or_init(|| ENUMS.iter().map(build_enum).collect());
    let i = ENUMS
        .iter()
        .position(|t| t.name == which)
        .unwrap_or_else(|| panic!("no enumeration {which}"));
    &all[i]
}

fn build_enum(t: &EnumTable) -> Table<gregor_enum_desc> {
    let mut strings = Vec::new();
    let mut rows = Vec::new();
    for v in t.values {
        let name = cstring(v.name);
        let constant = cstring(&c_constant(t.name, v.name));
        let desc = cstring(v.description());
        rows.push(gregor_enum_desc {
            value: v.value,
            name: name.as_ptr(),
            constant: constant.as_ptr(),
            desc: desc.as_ptr(),
        });
        strings.extend([name, constant, desc]);
    }
    Table {
        rows,
        _strings: strings,
    }
}

fn out_rows<T>(rows: &'static [T], descs: *mut *const T, cntp: *mut usize) {
    put(descs, rows.as_ptr());
    put(cntp, rows.len());
}

fn enum_descs(which: &str, descs: *mut *const gregor_enum_desc, cntp: *mut usize) {
    guard((), || out_rows(&enum_table(which).rows, descs, cntp));
}

/// Every error code gregor knows (librdkafka's `rd_kafka_get_err_descs`):
/// sets `*descs` to a static array of `*cntp` entries, local codes first
/// (negative, names starting with `_`), then Kafka's codes from -1 up, 0
/// being "NO_ERROR". Never free it. Thread-safe. A NULL pointer is skipped.
#[no_mangle]
pub extern "C" fn gregor_get_err_descs(descs: *mut *const gregor_err_desc, cntp: *mut usize) {
    guard((), || out_rows(&err_table().rows, descs, cntp));
}

/// Every ACL operation (`GREGOR_ACL_OPERATION_*`, Kafka's `AclOperation`):
/// a static array of `*cntp` entries in value order. Never free it.
#[no_mangle]
pub extern "C" fn gregor_get_acl_operation_descs(
    descs: *mut *const gregor_enum_desc,
    cntp: *mut usize,
) {
    enum_descs("AclOperation", descs, cntp);
}

/// Every ACL permission type (`GREGOR_ACL_PERMISSION_*`, `AclPermissionType`).
#[no_mangle]
pub extern "C" fn gregor_get_acl_permission_type_descs(
    descs: *mut *const gregor_enum_desc,
    cntp: *mut usize,
) {
    enum_descs("AclPermissionType", descs, cntp);
}

/// Every ACL resource type (`GREGOR_RESOURCE_*`, `ResourceType`).
#[no_mangle]
pub extern "C" fn gregor_get_resource_type_descs(
    descs: *mut *const gregor_enum_desc,
    cntp: *mut usize,
) {
    enum_descs("ResourceType", descs, cntp);
}

/// Every ACL resource pattern type (`GREGOR_PATTERN_*`, `PatternType`).
#[no_mangle]
pub extern "C" fn gregor_get_resource_pattern_type_descs(
    descs: *mut *const gregor_enum_desc,
    cntp: *mut usize,
) {
    enum_descs("PatternType", descs, cntp);
}

/// Every config resource type (`GREGOR_CONFIG_RESOURCE_*`, `ConfigResource.Type`).
#[no_mangle]
pub extern "C" fn gregor_get_config_resource_type_descs(
    descs: *mut *const gregor_enum_desc,
    cntp: *mut usize,
) {
    enum_descs("ConfigResourceType", descs, cntp);
}

/// Every config source (`GREGOR_CONFIG_SOURCE_*`, `ConfigEntry.ConfigSource`).
#[no_mangle]
pub extern "C" fn gregor_get_config_source_descs(
    descs: *mut *const gregor_enum_desc,
    cntp: *mut usize,
) {
    enum_descs("ConfigSource", descs, cntp);
}

/// Every config data type (`GREGOR_CONFIG_TYPE_*`, `ConfigEntry.ConfigType`).
#[no_mangle]
pub extern "C" fn gregor_get_config_type_descs(
    descs: *mut *const gregor_enum_desc,
    cntp: *mut usize,
) {
    enum_descs("ConfigType", descs, cntp);
}

/// Every incremental config operation (`GREGOR_ALTER_CONFIG_*`, `AlterConfigOp.OpType`).
#[no_mangle]
pub extern "C" fn gregor_get_alter_config_op_type_descs(
    descs: *mut *const gregor_enum_desc,
    cntp: *mut usize,
) {
    enum_descs("AlterConfigOpType", descs, cntp);
}

/// Every SCRAM mechanism (`GREGOR_SCRAM_*`, `ScramMechanism`).
#[no_mangle]
pub extern "C" fn gregor_get_scram_mechanism_descs(
    descs: *mut *const gregor_enum_desc,
    cntp: *mut usize,
) {
    enum_descs("ScramMechanism", descs, cntp);
}

/// Every leader election type (`GREGOR_ELECTION_*`, `ElectionType`).
#[no_mangle]
pub extern "C" fn gregor_get_election_type_descs(
    descs: *mut *const gregor_enum_desc,
    cntp: *mut usize,
) {
    enum_descs("ElectionType", descs, cntp);
}

/// The text of `codes.rs`: every `GREGOR_ERR_*` constant and every enum
/// constant, from the tables.
#[cfg(test)]
fn render_codes_rs() -> String {
    let mut s = String::from(
        "//! Generated from the Rust tables by `src/ffi/descriptors.rs` (error codes:\n\
         //! `crate::error::err_descs`; enumerations: `crate::protocol::enums::ENUMS`);\n\
         //! do not edit. Regenerate with\n\
         //! `GREGOR_REGENERATE=1 cargo test --lib ffi::descriptors`.\n\
         //!\n\
         //! Error codes are librdkafka's numbers (`RD_KAFKA_RESP_ERR_*`): local\n\
         //! (negative) codes have two underscores.\n\n\
         #![allow(missing_docs)]\n\n\
         use std::ffi::c_int;\n\n",
    );
    for d in err_descs() {
        s += &format!(
            "/// {}\npub const GREGOR_ERR_{}: c_int = {};\n",
            d.desc, d.name, d.code
        );
    }
    for t in ENUMS {
        s += &format!("\n// {}: crate::protocol::enums::{}\n", t.name, t.name);
        for v in t.values {
            s += &format!(
                "/// {}\npub const {}: c_int = {};\n",
                v.description(),
                c_constant(t.name, v.name),
                v.value
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_rs_is_generated_from_the_tables() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/ffi/codes.rs");
        let want = render_codes_rs();
        let have = std::fs::read_to_string(path).unwrap_or_default();
        if have != want {
            if std::env::var_os("GREGOR_REGENERATE").is_some() {
                std::fs::write(path, &want).unwrap();
            } else {
                panic!(
                    "src/ffi/codes.rs is not what the tables generate: run \
                     GREGOR_REGENERATE=1 cargo test --lib ffi::descriptors, then regenerate \
                     include/gregor.h"
                );
            }
        }
    }

    #[test]
    fn constants_are_unique_and_descriptors_read_back() {
        let mut seen = std::collections::HashSet::new();
        for t in ENUMS {
            let mut p: *const gregor_enum_desc = std::ptr::null();
            let mut n = 0usize;
            enum_descs(t.name, &mut p, &mut n);
            assert_eq!(n, t.values.len());
            // SAFETY: the function stored a static array of n rows.
            let rows = unsafe { std::slice::from_raw_parts(p, n) };
            for (row, v) in rows.iter().zip(t.values) {
                assert_eq!(row.value, v.value);
                // SAFETY: static NUL-terminated strings.
                let c = unsafe { std::ffi::CStr::from_ptr(row.constant) };
                let c = c.to_str().unwrap().to_owned();
                assert!(seen.insert(c.clone()), "{c} twice");
            }
        }
        let mut p: *const gregor_err_desc = std::ptr::null();
        let mut n = 0usize;
        gregor_get_err_descs(&mut p, &mut n);
        assert_eq!(n, err_descs().count());
        // NULL out-pointers are skipped.
        gregor_get_err_descs(std::ptr::null_mut(), std::ptr::null_mut());
        assert_eq!(
            c_constant("ConfigSource", "DYNAMIC_TOPIC_CONFIG"),
            "GREGOR_CONFIG_SOURCE_DYNAMIC_TOPIC"
        );
        assert_eq!(
            c_constant("ScramMechanism", "SCRAM_SHA_256"),
            "GREGOR_SCRAM_SHA_256"
        );
        assert_eq!(
            super::GREGOR_OFFSET_TAIL_BASE,
            crate::message::offset::TAIL_BASE
        );
    }
}
