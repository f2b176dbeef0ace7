//! Configs of topics, brokers and groups through rdkafka.h's Admin API:
//! `rd_kafka_ConfigResource_t` and `rd_kafka_ConfigEntry_t`, and
//! `rd_kafka_DescribeConfigs`, `rd_kafka_AlterConfigs` (KIP-4's whole-set
//! replacement) and `rd_kafka_IncrementalAlterConfigs` (KIP-339), on
//! gregor's [`AdminClient`](gregor::admin::AdminClient).
//!
//! A resource the application builds holds the configs it names (with an
//! operation for the incremental call); the results are resources of the
//! same kind, owned by the result event, each with its error and, for
//! DescribeConfigs, its config entries (with synonyms, KIP-226). Resource
//! types are librdkafka's (`RD_KAFKA_RESOURCE_TOPIC` 2, `_GROUP` 3,
//! `_BROKER` 4), not the protocol's config resource types, which differ
//! for groups; only topics, brokers and groups have configs. As
//! librdkafka's, a call refuses before sending: more than one BROKER
//! resource (`_CONFLICT`: a BROKER resource goes to that broker), a
//! broker name that is not an id, and for the incremental call a resource
//! or a config named twice (`_INVALID_ARG`).

#![allow(unsafe_code)] // `#[no_mangle]`

use std::collections::HashSet;
use std::ffi::{c_char, c_int, c_void, CString};
use std::ptr;

use gregor::admin::configs::{self as gc, ConfigResourceResult};
use gregor::admin::{AlterConfigOpType, ConfigResourceType};
use gregor::error::Error;

use crate::admin::{fail_request, submit_event, AdminOptions};
use crate::error_object::ErrorObject;
use crate::errors::rd_kafka_err2str;
use crate::event::{as_result, Event, Listed};
use crate::guard::guard;
use crate::handle::Handle;
use crate::queue::Queue;
use crate::raw;

/// `RD_KAFKA_RESP_ERR__INVALID_ARG`.
const RESP_ERR__INVALID_ARG: c_int = -186;
/// `RD_KAFKA_RESP_ERR__CONFLICT`.
const RESP_ERR__CONFLICT: c_int = -173;
/// `RD_KAFKA_EVENT_ALTERCONFIGS_RESULT`.
const EVENT_ALTERCONFIGS_RESULT: c_int = 103;
/// `RD_KAFKA_EVENT_DESCRIBECONFIGS_RESULT`.
const EVENT_DESCRIBECONFIGS_RESULT: c_int = 104;
/// `RD_KAFKA_EVENT_INCREMENTALALTERCONFIGS_RESULT`.
const EVENT_INCREMENTALALTERCONFIGS_RESULT: c_int = 0x20000;

/// `rd_kafka_ResourceType_t` values with configs.
mod restype {
    use std::ffi::c_int;
    pub const TOPIC: c_int = 2;
    pub const GROUP: c_int = 3;
    pub const BROKER: c_int = 4;
}

/// `RD_KAFKA_ALTER_CONFIG_OP_TYPE__CNT`.
const ALTER_OP_CNT: c_int = 4;

/// Text as a C string, up to an interior NUL.
fn c_string(s: &str) -> CString {
    raw::c_string(s)
}

/// `rd_kafka_ConfigEntry_t`: a config named on a resource (with its
/// incremental operation), or one of a DescribeConfigs result.
#[derive(Debug)]
pub struct ConfigEntry {
    name: CString,
    value: Option<CString>,
    /// `RD_KAFKA_ALTER_CONFIG_OP_TYPE_*` for the incremental call.
    op: c_int,
    source: c_int,
    is_default: bool,
    is_read_only: bool,
    is_sensitive: bool,
    is_synonym: bool,
    synonyms: Listed<ConfigEntry>,
}

impl ConfigEntry {
    fn named(name: &str, value: Option<&str>, op: c_int) -> Self {
        ConfigEntry {
            name: c_string(name),
            value: value.map(c_string),
            op,
            source: 0,
            is_default: false,
            is_read_only: false,
            is_sensitive: false,
            is_synonym: false,
            synonyms: Listed::new(Vec::new()),
        }
    }

    /// A described config with its synonyms.
    fn described(e: &gc::ConfigEntry) -> Self {
        let synonyms: Vec<ConfigEntry> = e
            .synonyms
            .iter()
            .map(|s| {
                let mut c = ConfigEntry::named(&s.name, s.value.as_deref(), 0);
                c.source = c_int::from(s.source.0);
                c.is_synonym = true;
                c
            })
            .collect();
        ConfigEntry {
            source: c_int::from(e.source.0),
            is_default: e.is_default,
            is_read_only: e.is_read_only,
            is_sensitive: e.is_sensitive,
            synonyms: Listed::new(synonyms),
            ..ConfigEntry::named(&e.name, e.value.as_deref(), 0)
        }
    }

    fn name(&self) -> String {
        self.name.to_string_lossy().into_owned()
    }

    fn value(&self) -> Option<String> {
        self.value
            .as_ref()
            .map(|v| v.to_string_lossy().into_owned())
    }
}

/// `rd_kafka_ConfigResource_t`: a resource type and name, its configs, and
/// in a result its error.
#[derive(Debug)]
pub struct ConfigResource {
    restype: c_int,
    name: CString,
    // boxed: an entry keeps its address while more are added, as the
    // pointers `_configs` gave out stay valid in librdkafka's
    #[allow(clippy::vec_box)]
    entries: Vec<Box<ConfigEntry>>,
    /// The addresses of `entries`, the array `_configs` returns.
    entry_ptrs: Vec<usize>,
    err: c_int,
    errstr: Option<CString>,
}

impl ConfigResource {
    fn new(restype: c_int, name: &str) -> Self {
        ConfigResource {
            restype,
            name: c_string(name),
            entries: Vec::new(),
            entry_ptrs: Vec::new(),
            err: 0,
            errstr: None,
        }
    }

    fn add(&mut self, e: ConfigEntry) {
        let e = Box::new(e);
        self.entry_ptrs.push(&*e as *const ConfigEntry as usize);
        self.entries.push(e);
    }

    fn name(&self) -> String {
        self.name.to_string_lossy().into_owned()
    }

    /// gregor's resource: the protocol's type for librdkafka's.
    fn to_gregor(&self) -> gc::ConfigResource {
        let t = match self.restype {
            restype::TOPIC => ConfigResourceType::TOPIC,
            restype::BROKER => ConfigResourceType::BROKER,
            restype::GROUP => ConfigResourceType::GROUP,
            _ => ConfigResourceType::UNKNOWN,
        };
        gc::ConfigResource::new(t, self.name())
    }

    /// A result resource for gregor's `r`, with `entries` on success.
    fn result<T>(
        r: &ConfigResourceResult<T>,
        entries: impl FnOnce(&T) -> Vec<ConfigEntry>,
    ) -> Self {
        let t = match r.resource.resource_type {
            ConfigResourceType::TOPIC => restype::TOPIC,
            ConfigResourceType::BROKER => restype::BROKER,
            ConfigResourceType::GROUP => restype::GROUP,
            _ => 0,
        };
        let mut out = ConfigResource::new(t, &r.resource.name);
        match &r.result {
            Ok(v) => entries(v).into_iter().for_each(|e| out.add(e)),
            Err(e) => {
                out.err = e.code();
                out.errstr = Some(c_string(&entity_text(e, &r.resource.to_string())));
            }
        }
        out
    }
}

/// An entity's error text as librdkafka's: the broker's message when it
/// sent one, else the code's text; what went wrong for a local error.
/// gregor's context of a broker error is "`what`[: the broker's message]".
pub(crate) fn entity_text(e: &Error, what: &str) -> String {
    match e {
        Error::Kafka { context, .. } => match context.strip_prefix(what) {
            Some(m) if m.len() > 2 && m.starts_with(": ") => m[2..].to_string(),
            _ => code_text(e.code()),
        },
        _ => e.to_string(),
    }
}

fn code_text(code: c_int) -> String {
    raw::read_cstr(rd_kafka_err2str(code))
        .map(|t| t.into_owned())
        .unwrap_or_default()
}

/// A new resource to give to the config calls
/// (`rd_kafka_ConfigResource_new`); NULL for a NULL or empty name or a
/// negative type. Caller owns, free with `rd_kafka_ConfigResource_destroy`.
#[no_mangle]
pub extern "C" fn rd_kafka_ConfigResource_new(
    restype: c_int,
    resname: *const c_char,
) -> *mut ConfigResource {
    guard(ptr::null_mut(), || match raw::read_cstr(resname) {
        Some(n) if !n.is_empty() && restype >= 0 => {
            Box::into_raw(Box::new(ConfigResource::new(restype, &n)))
        }
        _ => ptr::null_mut(),
    })
}

/// `rd_kafka_ConfigResource_destroy`.
#[no_mangle]
pub extern "C" fn rd_kafka_ConfigResource_destroy(config: *mut ConfigResource) {
    guard((), || drop(raw::take_box(config)));
}

/// `rd_kafka_ConfigResource_destroy_array`: destroys each of the `cnt`.
#[no_mangle]
pub extern "C" fn rd_kafka_ConfigResource_destroy_array(
    config: *mut *mut ConfigResource,
    config_cnt: usize,
) {
    guard((), || {
        for &c in raw::read_array(config, config_cnt) {
            drop(raw::take_box(c));
        }
    });
}

fn resource_mut<'a>(p: *mut ConfigResource) -> Option<&'a mut ConfigResource> {
    // SAFETY: rdkafka.h: a non-NULL resource is one made by
    // `rd_kafka_ConfigResource_new`, alive and not shared while set.
    unsafe { p.as_mut() }
}

/// Names a config and its value for AlterConfigs
/// (`rd_kafka_ConfigResource_set_config`); `_INVALID_ARG` for a NULL or
/// empty name or a NULL value.
#[no_mangle]
pub extern "C" fn rd_kafka_ConfigResource_set_config(
    config: *mut ConfigResource,
    name: *const c_char,
    value: *const c_char,
) -> c_int {
    guard(RESP_ERR__INVALID_ARG, || {
        let (Some(r), Some(n), Some(v)) = (
            resource_mut(config),
            raw::read_cstr(name),
            raw::read_cstr(value),
        ) else {
            return RESP_ERR__INVALID_ARG;
        };
        if n.is_empty() {
            return RESP_ERR__INVALID_ARG;
        }
        r.add(ConfigEntry::named(&n, Some(&v), 0));
        0
    })
}

/// Adds one incremental change for IncrementalAlterConfigs
/// (`rd_kafka_ConfigResource_add_incremental_config`): NULL, or an error
/// object (`_INVALID_ARG`) for an unknown operation, a NULL or empty
/// name, or a NULL value for anything but DELETE.
#[no_mangle]
pub extern "C" fn rd_kafka_ConfigResource_add_incremental_config(
    config: *mut ConfigResource,
    name: *const c_char,
    op_type: c_int,
    value: *const c_char,
) -> *mut c_void {
    guard(ptr::null_mut(), || {
        let fail = |text: &str| ErrorObject::boxed(RESP_ERR__INVALID_ARG, text);
        let Some(r) = resource_mut(config) else {
            return fail("A ConfigResource is required");
        };
        if !(0..ALTER_OP_CNT).contains(&op_type) {
            return fail("Invalid alter config operation type");
        }
        let n = match raw::read_cstr(name) {
            None => return fail("Config name is required"),
            Some(n) if n.is_empty() => return fail("Config name mustn't be empty"),
            Some(n) => n,
        };
        let v = raw::read_cstr(value);
        if v.is_none() && op_type != c_int::from(AlterConfigOpType::DELETE.0) {
            return fail("Config value is required");
        }
        r.add(ConfigEntry::named(&n, v.as_deref(), op_type));
        ptr::null_mut()
    })
}

/// The resource's configs (`rd_kafka_ConfigResource_configs`), their
/// count in `*cntp`; NULL for none. Borrowed, valid while the resource is.
#[no_mangle]
pub extern "C" fn rd_kafka_ConfigResource_configs(
    config: *const ConfigResource,
    cntp: *mut usize,
) -> *const *const ConfigEntry {
    guard(ptr::null(), || match raw::object(config) {
        Some(r) if !r.entry_ptrs.is_empty() => {
            raw::write_out(cntp, r.entry_ptrs.len());
            r.entry_ptrs.as_ptr().cast()
        }
        _ => {
            raw::write_out(cntp, 0);
            ptr::null()
        }
    })
}

/// `rd_kafka_ConfigResource_type`; 0 (`_UNKNOWN`) for NULL.
#[no_mangle]
pub extern "C" fn rd_kafka_ConfigResource_type(config: *const ConfigResource) -> c_int {
    guard(0, || raw::object(config).map_or(0, |r| r.restype))
}

/// `rd_kafka_ConfigResource_name`; borrowed, NULL for NULL.
#[no_mangle]
pub extern "C" fn rd_kafka_ConfigResource_name(config: *const ConfigResource) -> *const c_char {
    guard(ptr::null(), || {
        raw::object(config).map_or(ptr::null(), |r| r.name.as_ptr())
    })
}

/// A result resource's error (`rd_kafka_ConfigResource_error`).
#[no_mangle]
pub extern "C" fn rd_kafka_ConfigResource_error(config: *const ConfigResource) -> c_int {
    guard(0, || raw::object(config).map_or(0, |r| r.err))
}

/// A result resource's error text (`rd_kafka_ConfigResource_error_string`):
/// NULL without an error.
#[no_mangle]
pub extern "C" fn rd_kafka_ConfigResource_error_string(
    config: *const ConfigResource,
) -> *const c_char {
    guard(ptr::null(), || match raw::object(config) {
        Some(r) if r.err != 0 => r
            .errstr
            .as_ref()
            .map_or_else(|| rd_kafka_err2str(r.err), |s| s.as_ptr()),
        _ => ptr::null(),
    })
}

/// `rd_kafka_ConfigEntry_name`; borrowed.
#[no_mangle]
pub extern "C" fn rd_kafka_ConfigEntry_name(entry: *const ConfigEntry) -> *const c_char {
    guard(ptr::null(), || {
        raw::object(entry).map_or(ptr::null(), |e| e.name.as_ptr())
    })
}

/// `rd_kafka_ConfigEntry_value`: NULL when unset or sensitive.
#[no_mangle]
pub extern "C" fn rd_kafka_ConfigEntry_value(entry: *const ConfigEntry) -> *const c_char {
    guard(ptr::null(), || {
        raw::object(entry)
            .and_then(|e| e.value.as_ref())
            .map_or(ptr::null(), |v| v.as_ptr())
    })
}

/// `rd_kafka_ConfigEntry_source` (`RD_KAFKA_CONFIG_SOURCE_*`, the
/// protocol's values).
#[no_mangle]
pub extern "C" fn rd_kafka_ConfigEntry_source(entry: *const ConfigEntry) -> c_int {
    guard(0, || raw::object(entry).map_or(0, |e| e.source))
}

fn flag(entry: *const ConfigEntry, f: impl Fn(&ConfigEntry) -> bool) -> c_int {
    guard(0, || raw::object(entry).map_or(0, |e| c_int::from(f(e))))
}

/// `rd_kafka_ConfigEntry_is_read_only`.
#[no_mangle]
pub extern "C" fn rd_kafka_ConfigEntry_is_read_only(entry: *const ConfigEntry) -> c_int {
    flag(entry, |e| e.is_read_only)
}

/// `rd_kafka_ConfigEntry_is_default`.
#[no_mangle]
pub extern "C" fn rd_kafka_ConfigEntry_is_default(entry: *const ConfigEntry) -> c_int {
    flag(entry, |e| e.is_default)
}

/// `rd_kafka_ConfigEntry_is_sensitive`.
#[no_mangle]
pub extern "C" fn rd_kafka_ConfigEntry_is_sensitive(entry: *const ConfigEntry) -> c_int {
    flag(entry, |e| e.is_sensitive)
}

/// `rd_kafka_ConfigEntry_is_synonym`: whether the entry is another's
/// synonym.
#[no_mangle]
pub extern "C" fn rd_kafka_ConfigEntry_is_synonym(entry: *const ConfigEntry) -> c_int {
    flag(entry, |e| e.is_synonym)
}

/// `rd_kafka_ConfigEntry_synonyms`: the entry's synonyms in precedence
/// order, their count in `*cntp`; NULL for none. Borrowed.
#[no_mangle]
pub extern "C" fn rd_kafka_ConfigEntry_synonyms(
    entry: *const ConfigEntry,
    cntp: *mut usize,
) -> *const *const ConfigEntry {
    guard(ptr::null(), || match raw::object(entry) {
        Some(e) => e.synonyms.array(cntp),
        None => {
            raw::write_out(cntp, 0);
            ptr::null()
        }
    })
}

/// What a config call sends: each resource (gregor's) with its configs.
type Named = Vec<(gc::ConfigResource, Vec<ConfigEntryArgs>)>;

/// A config as the application named it: name, value, operation.
#[derive(Debug, Clone)]
struct ConfigEntryArgs {
    name: String,
    value: Option<String>,
    op: c_int,
}

/// The caller's resources, copied; a refusal (code, text) as librdkafka's
/// before anything is sent: more than one BROKER resource, a BROKER
/// resource not named by an id.
fn resources_of(configs: *mut *mut ConfigResource, cnt: usize) -> Result<Named, (c_int, String)> {
    let mut out = Vec::new();
    let mut brokers = 0;
    for &p in raw::read_array(configs, cnt) {
        let Some(r) = raw::object(p) else {
            return Err((RESP_ERR__INVALID_ARG, "NULL ConfigResource".into()));
        };
        if r.restype == restype::BROKER {
            brokers += 1;
            if brokers > 1 {
                return Err((
                    RESP_ERR__CONFLICT,
                    "Only one ConfigResource of type BROKER is allowed per call".into(),
                ));
            }
            if r.name().parse::<i32>().map_or(true, |id| id < 0) {
                return Err((
                    RESP_ERR__INVALID_ARG,
                    format!(
                        "Expected an int32 broker_id for ConfigResource(type=BROKER, name={})",
                        r.name()
                    ),
                ));
            }
        }
        let entries = r
            .entries
            .iter()
            .map(|e| ConfigEntryArgs {
                name: e.name(),
                value: e.value(),
                op: e.op,
            })
            .collect();
        out.push((r.to_gregor(), entries));
    }
    Ok(out)
}

/// KIP-339 leaves a resource or a config named twice undefined, so
/// librdkafka refuses them before sending.
fn no_duplicates(named: &Named) -> Result<(), (c_int, String)> {
    let mut seen = HashSet::new();
    for (r, entries) in named {
        let mut names = HashSet::new();
        if entries.iter().any(|e| !names.insert(e.name.as_str())) {
            return Err((RESP_ERR__INVALID_ARG, "Duplicate ConfigEntry found".into()));
        }
        if !seen.insert(r) {
            return Err((
                RESP_ERR__INVALID_ARG,
                "Duplicate ConfigResource found".into(),
            ));
        }
    }
    Ok(())
}

/// Describes resources' configs (`rd_kafka_DescribeConfigs`): each
/// resource's configs named on it, or all of them, with synonyms; the
/// result is a `RD_KAFKA_EVENT_DESCRIBECONFIGS_RESULT` event on `rkqu`.
#[no_mangle]
pub extern "C" fn rd_kafka_DescribeConfigs(
    rk: *mut Handle,
    configs: *mut *mut ConfigResource,
    config_cnt: usize,
    options: *const AdminOptions,
    rkqu: *mut Queue,
) {
    guard((), || {
        let kind = EVENT_DESCRIBECONFIGS_RESULT;
        let named = match resources_of(configs, config_cnt) {
            Ok(n) => n,
            Err(e) => return fail_request(rk, options, rkqu, kind, e),
        };
        submit_event(rk, options, rkqu, kind, move |c, o, ev| {
            // one DescribeConfigs request names configs for all resources
            // alike in gregor; ask for what any resource names, else all
            let keys: Vec<&str> = named
                .iter()
                .flat_map(|(_, es)| es.iter().map(|e| e.name.as_str()))
                .collect();
            let resources: Vec<gc::ConfigResource> = named.iter().map(|(r, _)| r.clone()).collect();
            let keys = (!keys.is_empty() && named.iter().all(|(_, es)| !es.is_empty()))
                .then_some(&keys[..]);
            let rs = c.describe_configs(&resources, keys, true, false, o)?;
            Ok(ev.with_payload(Listed::new(
                rs.iter()
                    .map(|r| {
                        ConfigResource::result(r, |es| {
                            es.iter().map(ConfigEntry::described).collect()
                        })
                    })
                    .collect(),
            )))
        });
    })
}

/// Replaces resources' whole sets of dynamic configs
/// (`rd_kafka_AlterConfigs`, KIP-4); the result is a
/// `RD_KAFKA_EVENT_ALTERCONFIGS_RESULT` event on `rkqu`.
#[no_mangle]
pub extern "C" fn rd_kafka_AlterConfigs(
    rk: *mut Handle,
    configs: *mut *mut ConfigResource,
    config_cnt: usize,
    options: *const AdminOptions,
    rkqu: *mut Queue,
) {
    guard((), || {
        let kind = EVENT_ALTERCONFIGS_RESULT;
        let named = match resources_of(configs, config_cnt) {
            Ok(n) => n,
            Err(e) => return fail_request(rk, options, rkqu, kind, e),
        };
        submit_event(rk, options, rkqu, kind, move |c, o, ev| {
            let sets: Vec<(gc::ConfigResource, gc::ConfigSet)> = named
                .into_iter()
                .map(|(r, es)| (r, es.into_iter().map(|e| (e.name, e.value)).collect()))
                .collect();
            let rs = c.alter_configs(&sets, o)?;
            Ok(ev.with_payload(Listed::new(
                rs.iter()
                    .map(|r| ConfigResource::result(r, |_| Vec::new()))
                    .collect(),
            )))
        });
    })
}

/// Applies incremental config changes (`rd_kafka_IncrementalAlterConfigs`,
/// KIP-339); the result is a `RD_KAFKA_EVENT_INCREMENTALALTERCONFIGS_RESULT`
/// event on `rkqu`.
#[no_mangle]
pub extern "C" fn rd_kafka_IncrementalAlterConfigs(
    rk: *mut Handle,
    configs: *mut *mut ConfigResource,
    config_cnt: usize,
    options: *const AdminOptions,
    rkqu: *mut Queue,
) {
    guard((), || {
        let kind = EVENT_INCREMENTALALTERCONFIGS_RESULT;
        let named = match no_duplicates_of(configs, config_cnt) {
            Ok(n) => n,
            Err(e) => return fail_request(rk, options, rkqu, kind, e),
        };
        submit_event(rk, options, rkqu, kind, move |c, o, ev| {
            let changes: Vec<(gc::ConfigResource, Vec<gc::AlterConfigOp>)> = named
                .into_iter()
                .map(|(r, es)| {
                    let ops = es
                        .into_iter()
                        .map(|e| {
                            let op = AlterConfigOpType(i8::try_from(e.op).unwrap_or(0));
                            gc::AlterConfigOp::new(e.name, op, e.value)
                        })
                        .collect();
                    (r, ops)
                })
                .collect();
            let rs = c.incremental_alter_configs(&changes, o)?;
            Ok(ev.with_payload(Listed::new(
                rs.iter()
                    .map(|r| ConfigResource::result(r, |_| Vec::new()))
                    .collect(),
            )))
        });
    })
}

/// The incremental call's resources: duplicates refused first, as
/// librdkafka checks them before the BROKER rules.
fn no_duplicates_of(
    configs: *mut *mut ConfigResource,
    cnt: usize,
) -> Result<Named, (c_int, String)> {
    let all: Named = raw::read_array(configs, cnt)
        .iter()
        .filter_map(|&p| raw::object(p))
        .map(|r| {
            let es = r
                .entries
                .iter()
                .map(|e| ConfigEntryArgs {
                    name: e.name(),
                    value: e.value(),
                    op: e.op,
                })
                .collect();
            (r.to_gregor(), es)
        })
        .collect();
    no_duplicates(&all)?;
    resources_of(configs, cnt)
}

/// The event as a DescribeConfigs result, or NULL.
#[no_mangle]
pub extern "C" fn rd_kafka_event_DescribeConfigs_result(rkev: *mut Event) -> *const Event {
    as_result(rkev, EVENT_DESCRIBECONFIGS_RESULT)
}

/// The event as an AlterConfigs result, or NULL.
#[no_mangle]
pub extern "C" fn rd_kafka_event_AlterConfigs_result(rkev: *mut Event) -> *const Event {
    as_result(rkev, EVENT_ALTERCONFIGS_RESULT)
}

/// The event as an IncrementalAlterConfigs result, or NULL.
#[no_mangle]
pub extern "C" fn rd_kafka_event_IncrementalAlterConfigs_result(rkev: *mut Event) -> *const Event {
    as_result(rkev, EVENT_INCREMENTALALTERCONFIGS_RESULT)
}

/// `rd_kafka_DescribeConfigs_result_resources`: the resources with their
/// configs or errors, their count in `*cntp`. Borrowed, valid while the
/// event is.
#[no_mangle]
pub extern "C" fn rd_kafka_DescribeConfigs_result_resources(
    result: *const Event,
    cntp: *mut usize,
) -> *const *const ConfigResource {
    guard(ptr::null(), || {
        Event::listed::<ConfigResource>(result, EVENT_DESCRIBECONFIGS_RESULT, cntp)
    })
}

/// `rd_kafka_AlterConfigs_result_resources`: each resource with its error.
#[no_mangle]
pub extern "C" fn rd_kafka_AlterConfigs_result_resources(
    result: *const Event,
    cntp: *mut usize,
) -> *const *const ConfigResource {
    guard(ptr::null(), || {
        Event::listed::<ConfigResource>(result, EVENT_ALTERCONFIGS_RESULT, cntp)
    })
}

/// `rd_kafka_IncrementalAlterConfigs_result_resources`: each resource with
/// its error.
#[no_mangle]
pub extern "C" fn rd_kafka_IncrementalAlterConfigs_result_resources(
    result: *const Event,
    cntp: *mut usize,
) -> *const *const ConfigResource {
    guard(ptr::null(), || {
        Event::listed::<ConfigResource>(result, EVENT_INCREMENTALALTERCONFIGS_RESULT, cntp)
    })
}
