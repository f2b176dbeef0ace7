//! The admin client's C API (`gregor_admin_*`).
//!
//! Every operation is one blocking call: it takes a `gregor_admin`, the
//! entities (arrays of builder handles, strings, or a `gregor_tpl` for
//! partitions), and optional `gregor_admin_options` (NULL: defaults); on
//! success it returns 0 and stores a result object the caller owns (free
//! it with its `_free`). A non-zero return is an error for the call as a
//! whole (no broker reachable, an API the broker does not speak:
//! `GREGOR_ERR__UNSUPPORTED_FEATURE`, …), with the reason in `errstr`.
//! Each entity of a result has its own error code (the broker's Kafka code
//! unchanged, e.g. `GREGOR_ERR_TOPIC_ALREADY_EXISTS`, or a local code) and
//! error string, read with the result's `_err` / `_errstr` accessors.
//!
//! Accessors take indexes; out of range they return NULL (strings), -1
//! (numbers), `GREGOR_ERR__INVALID_ARG` (error codes) or 0 (counts).
//! Strings are borrowed: valid until the result is freed. Every handle is
//! immutable once built and may be read from several threads; builders are
//! not thread-safe while being built. `gregor_admin` itself is thread-safe.

#![allow(missing_docs)]

use std::ffi::{c_char, c_int, CString};
use std::ptr;
use std::time::Duration;

use super::guard::{c_str, copy_out, free, guard, guard_code, handle, handle_mut, put};
use super::handles::{gregor_config, gregor_metadata, gregor_slice, gregor_tpl};
use super::lifetime::{destroy, enter, handle_registry, register, Handle, Life};
use crate::admin::*;
use crate::error::{local, Error, Result};
use crate::wire::Uuid;

// ----- constants -----

/// ACL resource types (`ResourceType`).
pub const GREGOR_RESOURCE_UNKNOWN: c_int = 0;
pub const GREGOR_RESOURCE_ANY: c_int = 1;
pub const GREGOR_RESOURCE_TOPIC: c_int = 2;
pub const GREGOR_RESOURCE_GROUP: c_int = 3;
pub const GREGOR_RESOURCE_CLUSTER: c_int = 4;
pub const GREGOR_RESOURCE_TRANSACTIONAL_ID: c_int = 5;
pub const GREGOR_RESOURCE_DELEGATION_TOKEN: c_int = 6;
pub const GREGOR_RESOURCE_USER: c_int = 7;
/// Config resource types (`ConfigResource.Type`).
pub const GREGOR_CONFIG_RESOURCE_TOPIC: c_int = 2;
pub const GREGOR_CONFIG_RESOURCE_BROKER: c_int = 4;
pub const GREGOR_CONFIG_RESOURCE_BROKER_LOGGER: c_int = 8;
pub const GREGOR_CONFIG_RESOURCE_CLIENT_METRICS: c_int = 16;
pub const GREGOR_CONFIG_RESOURCE_GROUP: c_int = 32;
/// ACL resource pattern types.
pub const GREGOR_PATTERN_ANY: c_int = 1;
pub const GREGOR_PATTERN_MATCH: c_int = 2;
pub const GREGOR_PATTERN_LITERAL: c_int = 3;
pub const GREGOR_PATTERN_PREFIXED: c_int = 4;
/// ACL operations.
pub const GREGOR_ACL_OPERATION_ANY: c_int = 1;
pub const GREGOR_ACL_OPERATION_ALL: c_int = 2;
pub const GREGOR_ACL_OPERATION_READ: c_int = 3;
pub const GREGOR_ACL_OPERATION_WRITE: c_int = 4;
pub const GREGOR_ACL_OPERATION_CREATE: c_int = 5;
pub const GREGOR_ACL_OPERATION_DELETE: c_int = 6;
pub const GREGOR_ACL_OPERATION_ALTER: c_int = 7;
pub const GREGOR_ACL_OPERATION_DESCRIBE: c_int = 8;
pub const GREGOR_ACL_OPERATION_CLUSTER_ACTION: c_int = 9;
pub const GREGOR_ACL_OPERATION_DESCRIBE_CONFIGS: c_int = 10;
pub const GREGOR_ACL_OPERATION_ALTER_CONFIGS: c_int = 11;
pub const GREGOR_ACL_OPERATION_IDEMPOTENT_WRITE: c_int = 12;
/// ACL permission types.
pub const GREGOR_ACL_PERMISSION_ANY: c_int = 1;
pub const GREGOR_ACL_PERMISSION_DENY: c_int = 2;
pub const GREGOR_ACL_PERMISSION_ALLOW: c_int = 3;
/// Incremental config operations.
pub const GREGOR_ALTER_CONFIG_SET: c_int = 0;
pub const GREGOR_ALTER_CONFIG_DELETE: c_int = 1;
pub const GREGOR_ALTER_CONFIG_APPEND: c_int = 2;
pub const GREGOR_ALTER_CONFIG_SUBTRACT: c_int = 3;
/// Config sources.
pub const GREGOR_CONFIG_SOURCE_UNKNOWN: c_int = 0;
pub const GREGOR_CONFIG_SOURCE_DYNAMIC_TOPIC: c_int = 1;
pub const GREGOR_CONFIG_SOURCE_DYNAMIC_BROKER: c_int = 2;
pub const GREGOR_CONFIG_SOURCE_DYNAMIC_DEFAULT_BROKER: c_int = 3;
pub const GREGOR_CONFIG_SOURCE_STATIC_BROKER: c_int = 4;
pub const GREGOR_CONFIG_SOURCE_DEFAULT: c_int = 5;
pub const GREGOR_CONFIG_SOURCE_DYNAMIC_BROKER_LOGGER: c_int = 6;
pub const GREGOR_CONFIG_SOURCE_CLIENT_METRICS: c_int = 7;
pub const GREGOR_CONFIG_SOURCE_GROUP: c_int = 8;
/// Leader election types.
pub const GREGOR_ELECTION_PREFERRED: c_int = 0;
pub const GREGOR_ELECTION_UNCLEAN: c_int = 1;
/// SCRAM mechanisms.
pub const GREGOR_SCRAM_SHA_256: c_int = 1;
pub const GREGOR_SCRAM_SHA_512: c_int = 2;
/// Client-quota filter match types.
pub const GREGOR_QUOTA_MATCH_EXACT: c_int = 0;
pub const GREGOR_QUOTA_MATCH_DEFAULT: c_int = 1;
pub const GREGOR_QUOTA_MATCH_ANY: c_int = 2;
/// List-offsets specs (the `offset` of a `gregor_tpl` entry; >= 0 is a timestamp in ms).
pub const GREGOR_OFFSET_SPEC_LATEST: i64 = -1;
pub const GREGOR_OFFSET_SPEC_EARLIEST: i64 = -2;
pub const GREGOR_OFFSET_SPEC_MAX_TIMESTAMP: i64 = -3;

// ----- helpers -----

fn cs(s: &str) -> CString {
    CString::new(s.replace('\0', "")).unwrap_or_default()
}

fn cso(s: Option<&str>) -> Option<CString> {
    s.map(cs)
}

fn cptr(c: &Option<CString>) -> *const c_char {
    c.as_ref().map_or(ptr::null(), |c| c.as_ptr())
}

/// An entity's error: code and text.
struct CErr {
    code: c_int,
    text: CString,
}

fn cerr_of(e: Option<&Error>) -> CErr {
    match e {
        None => CErr {
            code: 0,
            text: CString::default(),
        },
        Some(e) => CErr {
            code: e.code(),
            text: cs(&e.to_string()),
        },
    }
}

fn cerr<T>(r: &Result<T>) -> CErr {
    cerr_of(r.as_ref().err())
}

fn clamp_ms(ms: i64) -> Duration {
    Duration::from_millis(ms.max(0) as u64)
}

/// Borrows `n` elements at `p` (NULL is fine when `n` is 0).
fn slice<'a, T>(p: *const T, n: usize, name: &str) -> Result<&'a [T]> {
    if n == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(Error::invalid_arg(format!("{name} is NULL")));
    }
    // SAFETY: the caller promises `n` readable elements at a non-NULL `p`,
    // valid for this call.
    Ok(unsafe { std::slice::from_raw_parts(p, n) })
}

fn strs<'a>(p: *const *const c_char, n: usize, name: &str) -> Result<Vec<&'a str>> {
    slice(p, n, name)?.iter().map(|s| c_str(*s, name)).collect()
}

fn handles<'a, T>(p: *const *const T, n: usize, name: &str) -> Result<Vec<&'a T>> {
    slice(p, n, name)?
        .iter()
        .map(|h| handle(*h, name))
        .collect()
}

fn opts_of(o: *const gregor_admin_options) -> Result<AdminOptions> {
    if o.is_null() {
        Ok(AdminOptions::default())
    } else {
        Ok(handle(o, "options")?.inner.clone())
    }
}

fn store<T>(out: *mut *mut T, v: T) {
    put(out, Box::into_raw(Box::new(v)));
}

fn need_out<T>(out: *mut *mut T) -> Result<()> {
    if out.is_null() {
        Err(Error::invalid_arg("out is NULL"))
    } else {
        Ok(())
    }
}

/// Reads field `f` of result `r`, or `default` (NULL handle, out of range, panic).
fn get<R, T: Copy>(r: *const R, default: T, f: impl FnOnce(&R) -> Option<T>) -> T {
    guard(default, || {
        handle(r, "result").ok().and_then(f).unwrap_or(default)
    })
}

fn copy_ids(ids: &[i32], out: *mut i32, max: usize) -> usize {
    copy_out(&ids[..ids.len().min(max)], out);
    ids.len()
}

fn ops_ints(ops: &Option<Vec<AclOperation>>) -> Option<Vec<c_int>> {
    ops.as_ref()
        .map(|v| v.iter().map(|o| c_int::from(o.0)).collect())
}

/// Copies up to `max` operations; returns how many there are, or -1 if not known.
fn copy_ops(ops: &Option<Vec<c_int>>, out: *mut c_int, max: usize) -> c_int {
    match ops {
        None => -1,
        Some(v) => {
            copy_out(&v[..v.len().min(max)], out);
            c_int::try_from(v.len()).unwrap_or(c_int::MAX)
        }
    }
}

fn i8_of(v: c_int, name: &str) -> Result<i8> {
    i8::try_from(v).map_err(|_| Error::invalid_arg(format!("{name} {v} is out of range")))
}

fn tps(tpl: &gregor_tpl) -> Vec<TopicPartition> {
    tpl.inner
        .iter()
        .map(|t| TopicPartition::new(t.topic.clone(), t.partition))
        .collect()
}

// ----- the client and options -----

/// An admin client. Thread-safe.
pub struct gregor_admin {
    pub(crate) inner: AdminClient,
    life: Life,
}

impl Handle for gregor_admin {
    const NAME: &'static str = "admin";
    handle_registry!();
    fn life(&self) -> &Life {
        &self.life
    }
    /// Requests waiting for a response fail, and their retries find the
    /// connections closed for good.
    fn shutdown(&self) {
        self.inner.cluster().shutdown();
    }
}

/// Options of one admin call. Not thread-safe while being set.
pub struct gregor_admin_options {
    inner: AdminOptions,
}

/// A new admin client for `conf` (copied; the caller keeps and frees
/// `conf`). Returns NULL on a bad configuration (or a producer- or
/// consumer-only property), with the reason in `errstr`. Connects lazily.
/// Caller owns it: free with `gregor_admin_free`.
#[no_mangle]
pub extern "C" fn gregor_admin_new(
    conf: *const gregor_config,
    errstr: *mut c_char,
    errstr_size: usize,
) -> *mut gregor_admin {
    let mut out = ptr::null_mut();
    guard_code(errstr, errstr_size, || {
        let conf = handle(conf, "conf")?;
        let a = AdminClient::new(&conf.inner)?;
        out = register(Box::new(gregor_admin {
            inner: a,
            life: Life::new(),
        }));
        Ok(())
    });
    out
}

/// Frees an admin client, closing its connections. NULL is a no-op.
///
/// Lifetime: safe while other threads are inside calls on the handle (see
/// the header's preamble): new calls fail with `GREGOR_ERR__DESTROY`, calls
/// in flight are woken and return `GREGOR_ERR__DESTROY`, and this waits for
/// them to leave before releasing anything. A second free of the same
/// pointer is a no-op.
#[no_mangle]
pub extern "C" fn gregor_admin_free(admin: *mut gregor_admin) {
    guard((), || destroy(admin))
}

/// As `gregor_producer_metadata`, through an admin client.
#[no_mangle]
pub extern "C" fn gregor_admin_metadata(
    admin: *const gregor_admin,
    topic: *const c_char,
    timeout_ms: c_int,
    metadata: *mut *mut gregor_metadata,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        super::handles::metadata_of(a.inner.cluster(), topic, timeout_ms, metadata)
    })
}

/// Closes the admin client's connections for good: requests in flight on
/// other threads return promptly with an error (`GREGOR_ERR__DESTROY` or
/// `GREGOR_ERR__TRANSPORT`), later ones fail at once with
/// `GREGOR_ERR__DESTROY`. The handle stays valid until `gregor_admin_free`
/// (a binding can close, wait for its own calls to return, then free).
/// Returns 0, or `GREGOR_ERR__INVALID_ARG` for NULL. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_close(admin: *const gregor_admin) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        enter(admin)?.inner.cluster().shutdown();
        Ok(())
    })
}

/// New call options: request and operation timeouts `socket.timeout.ms`,
/// not validate-only. Caller owns them: free with `gregor_admin_options_free`.
#[no_mangle]
pub extern "C" fn gregor_admin_options_new() -> *mut gregor_admin_options {
    guard(ptr::null_mut(), || {
        Box::into_raw(Box::new(gregor_admin_options {
            inner: AdminOptions::default(),
        }))
    })
}

/// How long the whole call may take, in ms (-1: `socket.timeout.ms`).
/// Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_admin_options_set_request_timeout(
    opts: *mut gregor_admin_options,
    timeout_ms: i64,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        handle_mut(opts, "opts")?.inner.request_timeout =
            (timeout_ms >= 0).then(|| clamp_ms(timeout_ms));
        Ok(())
    })
}

/// How long the broker waits for the operation, in ms (-1:
/// `socket.timeout.ms`; 0: start it and answer at once). Returns 0 or
/// `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_admin_options_set_operation_timeout(
    opts: *mut gregor_admin_options,
    timeout_ms: i64,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        handle_mut(opts, "opts")?.inner.operation_timeout =
            (timeout_ms >= 0).then(|| clamp_ms(timeout_ms));
        Ok(())
    })
}

/// Non-zero: only validate; the broker changes nothing. Returns 0 or
/// `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_admin_options_set_validate_only(
    opts: *mut gregor_admin_options,
    validate_only: c_int,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        handle_mut(opts, "opts")?.inner.validate_only = validate_only != 0;
        Ok(())
    })
}

/// Frees options. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_admin_options_free(opts: *mut gregor_admin_options) {
    guard((), || free(opts))
}

// ----- topics -----

/// A topic to create.
pub struct gregor_new_topic {
    inner: NewTopic,
}

/// A topic to create with `num_partitions` partitions of
/// `replication_factor` replicas (-1 each: the broker's defaults). Copies
/// `name`. NULL if `name` is NULL or not UTF-8. Caller owns it: free with
/// `gregor_new_topic_free`.
#[no_mangle]
pub extern "C" fn gregor_new_topic_new(
    name: *const c_char,
    num_partitions: i32,
    replication_factor: i32,
) -> *mut gregor_new_topic {
    guard(ptr::null_mut(), || {
        let Ok(name) = c_str(name, "name") else {
            return ptr::null_mut();
        };
        let rf = i16::try_from(replication_factor).unwrap_or(i16::MIN);
        Box::into_raw(Box::new(gregor_new_topic {
            inner: NewTopic::new(name, num_partitions, rf),
        }))
    })
}

/// Places partition `partition` on `brokers` (`count` ids, the first the
/// preferred leader). Once any partition is placed, the assignment takes
/// precedence over the partition count and replication factor. Returns 0
/// or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_new_topic_set_replica_assignment(
    topic: *mut gregor_new_topic,
    partition: i32,
    brokers: *const i32,
    count: usize,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let t = handle_mut(topic, "topic")?;
        if partition < 0 || count == 0 {
            return Err(Error::invalid_arg(
                "a partition index >= 0 and at least one broker are needed",
            ));
        }
        let b = slice(brokers, count, "brokers")?.to_vec();
        t.inner.replica_assignment.insert(partition, b);
        Ok(())
    })
}

/// Adds a topic config `name=value` (both copied). Returns 0 or
/// `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_new_topic_set_config(
    topic: *mut gregor_new_topic,
    name: *const c_char,
    value: *const c_char,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let t = handle_mut(topic, "topic")?;
        let n = c_str(name, "name")?;
        let v = c_str(value, "value")?;
        t.inner.configs.push((n.to_string(), v.to_string()));
        Ok(())
    })
}

/// Frees a new topic. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_new_topic_free(topic: *mut gregor_new_topic) {
    guard((), || free(topic))
}

/// Partitions to add to a topic.
pub struct gregor_new_partitions {
    inner: NewPartitions,
}

/// Grows `topic` (copied) to `total_count` partitions. NULL if `topic` is
/// NULL. Caller owns it: free with `gregor_new_partitions_free`.
#[no_mangle]
pub extern "C" fn gregor_new_partitions_new(
    topic: *const c_char,
    total_count: i32,
) -> *mut gregor_new_partitions {
    guard(ptr::null_mut(), || {
        let Ok(topic) = c_str(topic, "topic") else {
            return ptr::null_mut();
        };
        Box::into_raw(Box::new(gregor_new_partitions {
            inner: NewPartitions::increase_to(topic, total_count),
        }))
    })
}

/// Places the `new_index`th new partition (0 for the first one added) on
/// `brokers`; call it for 0, 1, … in order. Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_new_partitions_set_replica_assignment(
    parts: *mut gregor_new_partitions,
    new_index: usize,
    brokers: *const i32,
    count: usize,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let p = handle_mut(parts, "parts")?;
        let b = slice(brokers, count, "brokers")?.to_vec();
        if b.is_empty() {
            return Err(Error::invalid_arg("at least one broker is needed"));
        }
        let a = p.inner.assignments.get_or_insert_with(Vec::new);
        match new_index.cmp(&a.len()) {
            std::cmp::Ordering::Less => a[new_index] = b,
            std::cmp::Ordering::Equal => a.push(b),
            std::cmp::Ordering::Greater => {
                return Err(Error::invalid_arg(format!(
                    "new partition {new_index} placed before partition {}",
                    a.len()
                )))
            }
        }
        Ok(())
    })
}

/// Frees new partitions. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_new_partitions_free(parts: *mut gregor_new_partitions) {
    guard((), || free(parts))
}

struct TopicItem {
    name: Option<CString>,
    topic_id: Option<CString>,
    err: CErr,
    num_partitions: i32,
    replication_factor: i32,
    configs: Vec<(CString, Option<CString>)>,
}

/// Per-topic results of creating, deleting or growing topics. Immutable.
pub struct gregor_topic_results {
    items: Vec<TopicItem>,
}

fn topic_results<T>(
    r: Vec<TopicResult<T>>,
    extra: impl Fn(&T) -> (i32, i32, Vec<(CString, Option<CString>)>),
) -> gregor_topic_results {
    gregor_topic_results {
        items: r
            .iter()
            .map(|t| {
                let (num_partitions, replication_factor, configs) =
                    t.result.as_ref().map_or((-1, -1, Vec::new()), &extra);
                TopicItem {
                    name: cso(t.name.as_deref()),
                    topic_id: (!t.topic_id.is_zero()).then(|| cs(&t.topic_id.to_kafka_string())),
                    err: cerr(&t.result),
                    num_partitions,
                    replication_factor,
                    configs,
                }
            })
            .collect(),
    }
}

/// Creates topics (one CreateTopics request to the controller, following
/// NOT_CONTROLLER). `topics` is an array of `count` handles (borrowed).
/// Honours validate-only and the operation timeout. On success `*out`
/// receives one result per distinct topic, in order (caller owns; free with
/// `gregor_topic_results_free`). Blocks. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_create_topics(
    admin: *const gregor_admin,
    topics: *const *const gregor_new_topic,
    count: usize,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_topic_results,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let ts: Vec<NewTopic> = handles(topics, count, "topics")?
            .into_iter()
            .map(|t| t.inner.clone())
            .collect();
        let r = a.inner.create_topics(&ts, &opts_of(options)?)?;
        store(
            out,
            topic_results(r, |c| {
                (
                    c.num_partitions,
                    i32::from(c.replication_factor),
                    c.configs
                        .iter()
                        .map(|e| (cs(&e.name), cso(e.value.as_deref())))
                        .collect(),
                )
            }),
        );
        Ok(())
    })
}

/// Deletes topics by name (`count` strings, borrowed). As
/// `gregor_admin_create_topics` for the rest.
#[no_mangle]
pub extern "C" fn gregor_admin_delete_topics(
    admin: *const gregor_admin,
    names: *const *const c_char,
    count: usize,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_topic_results,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let ns = strs(names, count, "names")?;
        let r = a.inner.delete_topics(&ns, &opts_of(options)?)?;
        store(out, topic_results(r, |()| (-1, -1, Vec::new())));
        Ok(())
    })
}

/// Deletes topics by topic ID (`count` IDs in Kafka's base64 text form or
/// hyphenated hex; DeleteTopics v6+). As `gregor_admin_delete_topics`.
#[no_mangle]
pub extern "C" fn gregor_admin_delete_topics_by_id(
    admin: *const gregor_admin,
    topic_ids: *const *const c_char,
    count: usize,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_topic_results,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let ids: Vec<Uuid> = strs(topic_ids, count, "topic_ids")?
            .into_iter()
            .map(|s| {
                Uuid::parse(s)
                    .ok_or_else(|| Error::invalid_arg(format!("\"{s}\" is not a topic ID")))
            })
            .collect::<Result<_>>()?;
        let r = a.inner.delete_topics_by_id(&ids, &opts_of(options)?)?;
        store(out, topic_results(r, |()| (-1, -1, Vec::new())));
        Ok(())
    })
}

/// Adds partitions to topics (CreatePartitions, to the controller).
/// `parts` is an array of `count` handles (borrowed). As
/// `gregor_admin_create_topics` for the rest.
#[no_mangle]
pub extern "C" fn gregor_admin_create_partitions(
    admin: *const gregor_admin,
    parts: *const *const gregor_new_partitions,
    count: usize,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_topic_results,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let ps: Vec<NewPartitions> = handles(parts, count, "parts")?
            .into_iter()
            .map(|p| p.inner.clone())
            .collect();
        let r = a.inner.create_partitions(&ps, &opts_of(options)?)?;
        store(out, topic_results(r, |()| (-1, -1, Vec::new())));
        Ok(())
    })
}

/// Number of results (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_topic_results_count(r: *const gregor_topic_results) -> usize {
    get(r, 0, |r| Some(r.items.len()))
}

/// Result `i`'s topic name (NULL when deleting by an ID the broker did not name).
#[no_mangle]
pub extern "C" fn gregor_topic_results_name(
    r: *const gregor_topic_results,
    i: usize,
) -> *const c_char {
    get(r, ptr::null(), |r| r.items.get(i).map(|x| cptr(&x.name)))
}

/// Result `i`'s topic ID in Kafka's text form (NULL if not known).
#[no_mangle]
pub extern "C" fn gregor_topic_results_topic_id(
    r: *const gregor_topic_results,
    i: usize,
) -> *const c_char {
    get(r, ptr::null(), |r| {
        r.items.get(i).map(|x| cptr(&x.topic_id))
    })
}

/// Result `i`'s error code (0 on success).
#[no_mangle]
pub extern "C" fn gregor_topic_results_err(r: *const gregor_topic_results, i: usize) -> c_int {
    get(r, local::INVALID_ARG, |r| {
        r.items.get(i).map(|x| x.err.code)
    })
}

/// Result `i`'s error text ("" on success).
#[no_mangle]
pub extern "C" fn gregor_topic_results_errstr(
    r: *const gregor_topic_results,
    i: usize,
) -> *const c_char {
    get(r, ptr::null(), |r| {
        r.items.get(i).map(|x| x.err.text.as_ptr())
    })
}

/// Created topic `i`'s partition count (-1 if not reported: CreateTopics < v5, or not a create).
#[no_mangle]
pub extern "C" fn gregor_topic_results_num_partitions(
    r: *const gregor_topic_results,
    i: usize,
) -> i32 {
    get(r, -1, |r| r.items.get(i).map(|x| x.num_partitions))
}

/// Created topic `i`'s replication factor (-1 if not reported).
#[no_mangle]
pub extern "C" fn gregor_topic_results_replication_factor(
    r: *const gregor_topic_results,
    i: usize,
) -> i32 {
    get(r, -1, |r| r.items.get(i).map(|x| x.replication_factor))
}

/// Number of configs the broker echoed for created topic `i` (CreateTopics v5+).
#[no_mangle]
pub extern "C" fn gregor_topic_results_config_count(
    r: *const gregor_topic_results,
    i: usize,
) -> usize {
    get(r, 0, |r| r.items.get(i).map(|x| x.configs.len()))
}

/// Created topic `i`'s config `j`: its name.
#[no_mangle]
pub extern "C" fn gregor_topic_results_config_name(
    r: *const gregor_topic_results,
    i: usize,
    j: usize,
) -> *const c_char {
    get(r, ptr::null(), |r| {
        r.items.get(i)?.configs.get(j).map(|c| c.0.as_ptr())
    })
}

/// Created topic `i`'s config `j`: its value (NULL for null or sensitive).
#[no_mangle]
pub extern "C" fn gregor_topic_results_config_value(
    r: *const gregor_topic_results,
    i: usize,
    j: usize,
) -> *const c_char {
    get(r, ptr::null(), |r| {
        r.items.get(i)?.configs.get(j).map(|c| cptr(&c.1))
    })
}

/// Frees topic results. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_topic_results_free(r: *mut gregor_topic_results) {
    guard((), || free(r))
}

struct DescItem {
    name: Option<CString>,
    topic_id: Option<CString>,
    err: CErr,
    is_internal: bool,
    partitions: Vec<PartitionDescription>,
    ops: Option<Vec<c_int>>,
}

/// Described topics. Immutable.
pub struct gregor_topic_descriptions {
    items: Vec<DescItem>,
}

fn descriptions(r: Vec<TopicResult<TopicDescription>>) -> gregor_topic_descriptions {
    gregor_topic_descriptions {
        items: r
            .into_iter()
            .map(|t| {
                let err = cerr(&t.result);
                let d = t.result.ok();
                DescItem {
                    name: cso(t.name.as_deref()),
                    topic_id: (!t.topic_id.is_zero()).then(|| cs(&t.topic_id.to_kafka_string())),
                    err,
                    is_internal: d.as_ref().is_some_and(|d| d.is_internal),
                    ops: d.as_ref().and_then(|d| ops_ints(&d.authorized_operations)),
                    partitions: d.map(|d| d.partitions).unwrap_or_default(),
                }
            })
            .collect(),
    }
}

/// Describes topics by name (`count` strings, borrowed; a Metadata request
/// that never auto-creates). Non-zero `include_authorized_operations` asks
/// for the client's operations on each topic (Metadata v8+). On success
/// `*out` receives the descriptions (caller owns; free with
/// `gregor_topic_descriptions_free`). Blocks. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_describe_topics(
    admin: *const gregor_admin,
    names: *const *const c_char,
    count: usize,
    include_authorized_operations: c_int,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_topic_descriptions,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let ns = strs(names, count, "names")?;
        let r =
            a.inner
                .describe_topics(&ns, include_authorized_operations != 0, &opts_of(options)?)?;
        store(out, descriptions(r));
        Ok(())
    })
}

/// As `gregor_admin_describe_topics`, by topic ID (text form; Metadata v10+).
#[no_mangle]
pub extern "C" fn gregor_admin_describe_topics_by_id(
    admin: *const gregor_admin,
    topic_ids: *const *const c_char,
    count: usize,
    include_authorized_operations: c_int,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_topic_descriptions,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let ids: Vec<Uuid> = strs(topic_ids, count, "topic_ids")?
            .into_iter()
            .map(|s| {
                Uuid::parse(s)
                    .ok_or_else(|| Error::invalid_arg(format!("\"{s}\" is not a topic ID")))
            })
            .collect::<Result<_>>()?;
        let r = a.inner.describe_topics_by_id(
            &ids,
            include_authorized_operations != 0,
            &opts_of(options)?,
        )?;
        store(out, descriptions(r));
        Ok(())
    })
}

/// Number of topics (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_topic_descriptions_count(d: *const gregor_topic_descriptions) -> usize {
    get(d, 0, |d| Some(d.items.len()))
}

/// Topic `i`'s name (NULL if not known).
#[no_mangle]
pub extern "C" fn gregor_topic_descriptions_name(
    d: *const gregor_topic_descriptions,
    i: usize,
) -> *const c_char {
    get(d, ptr::null(), |d| d.items.get(i).map(|x| cptr(&x.name)))
}

/// Topic `i`'s ID in Kafka's text form (NULL if not known).
#[no_mangle]
pub extern "C" fn gregor_topic_descriptions_topic_id(
    d: *const gregor_topic_descriptions,
    i: usize,
) -> *const c_char {
    get(d, ptr::null(), |d| {
        d.items.get(i).map(|x| cptr(&x.topic_id))
    })
}

/// Topic `i`'s error code (e.g. `GREGOR_ERR_UNKNOWN_TOPIC_OR_PARTITION`).
#[no_mangle]
pub extern "C" fn gregor_topic_descriptions_err(
    d: *const gregor_topic_descriptions,
    i: usize,
) -> c_int {
    get(d, local::INVALID_ARG, |d| {
        d.items.get(i).map(|x| x.err.code)
    })
}

/// Topic `i`'s error text ("" on success).
#[no_mangle]
pub extern "C" fn gregor_topic_descriptions_errstr(
    d: *const gregor_topic_descriptions,
    i: usize,
) -> *const c_char {
    get(d, ptr::null(), |d| {
        d.items.get(i).map(|x| x.err.text.as_ptr())
    })
}

/// 1 if topic `i` is internal, 0 if not, -1 out of range.
#[no_mangle]
pub extern "C" fn gregor_topic_descriptions_is_internal(
    d: *const gregor_topic_descriptions,
    i: usize,
) -> c_int {
    get(d, -1, |d| {
        d.items.get(i).map(|x| c_int::from(x.is_internal))
    })
}

/// Copies up to `max` of topic `i`'s authorized operations
/// (`GREGOR_ACL_OPERATION_*`) into `out`; returns how many there are, or
/// -1 if they were not asked for or not known.
#[no_mangle]
pub extern "C" fn gregor_topic_descriptions_authorized_operations(
    d: *const gregor_topic_descriptions,
    i: usize,
    out: *mut c_int,
    max: usize,
) -> c_int {
    get(d, -1, |d| {
        d.items.get(i).map(|x| copy_ops(&x.ops, out, max))
    })
}

/// Number of partitions of topic `i`.
#[no_mangle]
pub extern "C" fn gregor_topic_descriptions_partition_count(
    d: *const gregor_topic_descriptions,
    i: usize,
) -> usize {
    get(d, 0, |d| d.items.get(i).map(|x| x.partitions.len()))
}

fn part_at(d: &gregor_topic_descriptions, i: usize, p: usize) -> Option<&PartitionDescription> {
    d.items.get(i)?.partitions.get(p)
}

/// Topic `i`, partition `p` (in index order): its index.
#[no_mangle]
pub extern "C" fn gregor_topic_descriptions_partition_id(
    d: *const gregor_topic_descriptions,
    i: usize,
    p: usize,
) -> i32 {
    get(d, -1, |d| part_at(d, i, p).map(|x| x.partition))
}

/// Topic `i`, partition `p`: its leader's broker id (-1 if none).
#[no_mangle]
pub extern "C" fn gregor_topic_descriptions_partition_leader(
    d: *const gregor_topic_descriptions,
    i: usize,
    p: usize,
) -> i32 {
    get(d, -1, |d| part_at(d, i, p).map(|x| x.leader))
}

/// Topic `i`, partition `p`: its leader epoch (-1 if not known).
#[no_mangle]
pub extern "C" fn gregor_topic_descriptions_partition_leader_epoch(
    d: *const gregor_topic_descriptions,
    i: usize,
    p: usize,
) -> i32 {
    get(d, -1, |d| part_at(d, i, p).map(|x| x.leader_epoch))
}

/// Topic `i`, partition `p`: copies up to `max` replica ids into `out`,
/// returns how many replicas there are.
#[no_mangle]
pub extern "C" fn gregor_topic_descriptions_partition_replicas(
    d: *const gregor_topic_descriptions,
    i: usize,
    p: usize,
    out: *mut i32,
    max: usize,
) -> usize {
    get(d, 0, |d| {
        part_at(d, i, p).map(|x| copy_ids(&x.replicas, out, max))
    })
}

/// As `gregor_topic_descriptions_partition_replicas`, for the in-sync replicas.
#[no_mangle]
pub extern "C" fn gregor_topic_descriptions_partition_isr(
    d: *const gregor_topic_descriptions,
    i: usize,
    p: usize,
    out: *mut i32,
    max: usize,
) -> usize {
    get(d, 0, |d| {
        part_at(d, i, p).map(|x| copy_ids(&x.isr, out, max))
    })
}

/// As `gregor_topic_descriptions_partition_replicas`, for the offline replicas.
#[no_mangle]
pub extern "C" fn gregor_topic_descriptions_partition_offline(
    d: *const gregor_topic_descriptions,
    i: usize,
    p: usize,
    out: *mut i32,
    max: usize,
) -> usize {
    get(d, 0, |d| {
        part_at(d, i, p).map(|x| copy_ids(&x.offline_replicas, out, max))
    })
}

/// Frees topic descriptions. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_topic_descriptions_free(d: *mut gregor_topic_descriptions) {
    guard((), || free(d))
}

// ----- configs -----

/// A config resource, with the changes to make to it (for the alter calls).
pub struct gregor_config_resource {
    resource: ConfigResource,
    legacy: ConfigSet,
    ops: Vec<AlterConfigOp>,
}

/// A resource of `resource_type` (`GREGOR_CONFIG_RESOURCE_*`) named `name`
/// (copied; a broker's id for BROKER and BROKER_LOGGER). NULL if `name` is
/// NULL or the type out of range. Caller owns it: free with
/// `gregor_config_resource_free`.
#[no_mangle]
pub extern "C" fn gregor_config_resource_new(
    resource_type: c_int,
    name: *const c_char,
) -> *mut gregor_config_resource {
    guard(ptr::null_mut(), || {
        let (Ok(name), Ok(t)) = (c_str(name, "name"), i8_of(resource_type, "resource_type")) else {
            return ptr::null_mut();
        };
        Box::into_raw(Box::new(gregor_config_resource {
            resource: ConfigResource::new(ConfigResourceType(t), name),
            legacy: Vec::new(),
            ops: Vec::new(),
        }))
    })
}

/// For `gregor_admin_alter_configs` (legacy, whole set): sets `name` to
/// `value` (NULL: null). Copies both. Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_config_resource_set_config(
    res: *mut gregor_config_resource,
    name: *const c_char,
    value: *const c_char,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let r = handle_mut(res, "res")?;
        let n = c_str(name, "name")?.to_string();
        let v = if value.is_null() {
            None
        } else {
            Some(c_str(value, "value")?.to_string())
        };
        r.legacy.push((n, v));
        Ok(())
    })
}

/// For `gregor_admin_incremental_alter_configs`: adds the change `op`
/// (`GREGOR_ALTER_CONFIG_*`) of `name` with `value` (NULL for DELETE).
/// Copies both. Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_config_resource_add_incremental_config(
    res: *mut gregor_config_resource,
    name: *const c_char,
    op: c_int,
    value: *const c_char,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let r = handle_mut(res, "res")?;
        let n = c_str(name, "name")?;
        let op = AlterConfigOpType(i8_of(op, "op")?);
        if !op.is_known() {
            return Err(Error::invalid_arg(format!(
                "unknown config operation {}",
                op.0
            )));
        }
        let v = if value.is_null() {
            None
        } else {
            Some(c_str(value, "value")?.to_string())
        };
        if v.is_none() && op != AlterConfigOpType::DELETE {
            return Err(Error::invalid_arg(format!("{op} of {n} needs a value")));
        }
        r.ops.push(AlterConfigOp::new(n, op, v));
        Ok(())
    })
}

/// Frees a config resource. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_config_resource_free(res: *mut gregor_config_resource) {
    guard((), || free(res))
}

struct CSynonym {
    name: CString,
    value: Option<CString>,
    source: c_int,
}

struct CEntry {
    name: CString,
    value: Option<CString>,
    source: c_int,
    is_default: bool,
    is_read_only: bool,
    is_sensitive: bool,
    config_type: c_int,
    documentation: Option<CString>,
    synonyms: Vec<CSynonym>,
}

struct ResItem {
    resource_type: c_int,
    name: CString,
    err: CErr,
    entries: Vec<CEntry>,
}

/// Per-resource config results (entries only from describe). Immutable.
pub struct gregor_config_results {
    items: Vec<ResItem>,
}

fn config_results<T>(
    r: Vec<ConfigResourceResult<T>>,
    entries: impl Fn(&T) -> Vec<CEntry>,
) -> gregor_config_results {
    gregor_config_results {
        items: r
            .iter()
            .map(|x| ResItem {
                resource_type: c_int::from(x.resource.resource_type.0),
                name: cs(&x.resource.name),
                err: cerr(&x.result),
                entries: x.result.as_ref().map_or(Vec::new(), &entries),
            })
            .collect(),
    }
}

fn centry(e: &ConfigEntry) -> CEntry {
    CEntry {
        name: cs(&e.name),
        value: cso(e.value.as_deref()),
        source: c_int::from(e.source.0),
        is_default: e.is_default,
        is_read_only: e.is_read_only,
        is_sensitive: e.is_sensitive,
        config_type: c_int::from(e.config_type.0),
        documentation: cso(e.documentation.as_deref()),
        synonyms: e
            .synonyms
            .iter()
            .map(|s| CSynonym {
                name: cs(&s.name),
                value: cso(s.value.as_deref()),
                source: c_int::from(s.source.0),
            })
            .collect(),
    }
}

/// Describes the configs of `count` resources (borrowed handles): all, or
/// only the `key_count` names in `keys`. Non-zero `include_synonyms` /
/// `include_documentation` ask for those (DescribeConfigs v1+ / v3+).
/// BROKER and BROKER_LOGGER resources go to that broker. On success `*out`
/// receives one result per resource (caller owns; free with
/// `gregor_config_results_free`). Blocks. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_describe_configs(
    admin: *const gregor_admin,
    resources: *const *const gregor_config_resource,
    count: usize,
    keys: *const *const c_char,
    key_count: usize,
    include_synonyms: c_int,
    include_documentation: c_int,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_config_results,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let res: Vec<ConfigResource> = handles(resources, count, "resources")?
            .into_iter()
            .map(|r| r.resource.clone())
            .collect();
        let ks = strs(keys, key_count, "keys")?;
        let r = a.inner.describe_configs(
            &res,
            (!ks.is_empty()).then_some(&ks[..]),
            include_synonyms != 0,
            include_documentation != 0,
            &opts_of(options)?,
        )?;
        store(out, config_results(r, |es| es.iter().map(centry).collect()));
        Ok(())
    })
}

/// The legacy AlterConfigs: replaces each resource's dynamic configs by
/// those set with `gregor_config_resource_set_config`. Honours
/// validate-only. As `gregor_admin_describe_configs` for the rest (results
/// without entries).
#[no_mangle]
pub extern "C" fn gregor_admin_alter_configs(
    admin: *const gregor_admin,
    resources: *const *const gregor_config_resource,
    count: usize,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_config_results,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let alts: Vec<_> = handles(resources, count, "resources")?
            .into_iter()
            .map(|r| (r.resource.clone(), r.legacy.clone()))
            .collect();
        let r = a.inner.alter_configs(&alts, &opts_of(options)?)?;
        store(out, config_results(r, |()| Vec::new()));
        Ok(())
    })
}

/// IncrementalAlterConfigs: applies the changes added with
/// `gregor_config_resource_add_incremental_config`. As
/// `gregor_admin_alter_configs`.
#[no_mangle]
pub extern "C" fn gregor_admin_incremental_alter_configs(
    admin: *const gregor_admin,
    resources: *const *const gregor_config_resource,
    count: usize,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_config_results,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let alts: Vec<_> = handles(resources, count, "resources")?
            .into_iter()
            .map(|r| (r.resource.clone(), r.ops.clone()))
            .collect();
        let r = a
            .inner
            .incremental_alter_configs(&alts, &opts_of(options)?)?;
        store(out, config_results(r, |()| Vec::new()));
        Ok(())
    })
}

/// Number of resources (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_config_results_count(r: *const gregor_config_results) -> usize {
    get(r, 0, |r| Some(r.items.len()))
}

/// Resource `i`'s type (`GREGOR_CONFIG_RESOURCE_*`).
#[no_mangle]
pub extern "C" fn gregor_config_results_type(r: *const gregor_config_results, i: usize) -> c_int {
    get(r, -1, |r| r.items.get(i).map(|x| x.resource_type))
}

/// Resource `i`'s name.
#[no_mangle]
pub extern "C" fn gregor_config_results_name(
    r: *const gregor_config_results,
    i: usize,
) -> *const c_char {
    get(r, ptr::null(), |r| r.items.get(i).map(|x| x.name.as_ptr()))
}

/// Resource `i`'s error code.
#[no_mangle]
pub extern "C" fn gregor_config_results_err(r: *const gregor_config_results, i: usize) -> c_int {
    get(r, local::INVALID_ARG, |r| {
        r.items.get(i).map(|x| x.err.code)
    })
}

/// Resource `i`'s error text ("" on success).
#[no_mangle]
pub extern "C" fn gregor_config_results_errstr(
    r: *const gregor_config_results,
    i: usize,
) -> *const c_char {
    get(r, ptr::null(), |r| {
        r.items.get(i).map(|x| x.err.text.as_ptr())
    })
}

/// Number of configs of resource `i`.
#[no_mangle]
pub extern "C" fn gregor_config_results_entry_count(
    r: *const gregor_config_results,
    i: usize,
) -> usize {
    get(r, 0, |r| r.items.get(i).map(|x| x.entries.len()))
}

fn entry_at(r: &gregor_config_results, i: usize, j: usize) -> Option<&CEntry> {
    r.items.get(i)?.entries.get(j)
}

/// Resource `i`, config `j`: its name.
#[no_mangle]
pub extern "C" fn gregor_config_results_entry_name(
    r: *const gregor_config_results,
    i: usize,
    j: usize,
) -> *const c_char {
    get(r, ptr::null(), |r| {
        entry_at(r, i, j).map(|e| e.name.as_ptr())
    })
}

/// Resource `i`, config `j`: its value (NULL for null or sensitive).
#[no_mangle]
pub extern "C" fn gregor_config_results_entry_value(
    r: *const gregor_config_results,
    i: usize,
    j: usize,
) -> *const c_char {
    get(r, ptr::null(), |r| {
        entry_at(r, i, j).map(|e| cptr(&e.value))
    })
}

/// Resource `i`, config `j`: where the value comes from (`GREGOR_CONFIG_SOURCE_*`).
#[no_mangle]
pub extern "C" fn gregor_config_results_entry_source(
    r: *const gregor_config_results,
    i: usize,
    j: usize,
) -> c_int {
    get(r, -1, |r| entry_at(r, i, j).map(|e| e.source))
}

/// Resource `i`, config `j`: 1 if the value is the default, 0 if not.
#[no_mangle]
pub extern "C" fn gregor_config_results_entry_is_default(
    r: *const gregor_config_results,
    i: usize,
    j: usize,
) -> c_int {
    get(r, -1, |r| {
        entry_at(r, i, j).map(|e| c_int::from(e.is_default))
    })
}

/// Resource `i`, config `j`: 1 if read-only.
#[no_mangle]
pub extern "C" fn gregor_config_results_entry_is_read_only(
    r: *const gregor_config_results,
    i: usize,
    j: usize,
) -> c_int {
    get(r, -1, |r| {
        entry_at(r, i, j).map(|e| c_int::from(e.is_read_only))
    })
}

/// Resource `i`, config `j`: 1 if sensitive.
#[no_mangle]
pub extern "C" fn gregor_config_results_entry_is_sensitive(
    r: *const gregor_config_results,
    i: usize,
    j: usize,
) -> c_int {
    get(r, -1, |r| {
        entry_at(r, i, j).map(|e| c_int::from(e.is_sensitive))
    })
}

/// Resource `i`, config `j`: its data type (Kafka's `ConfigType`: 1
/// boolean, 2 string, 3 int, 4 short, 5 long, 6 double, 7 list, 8 class,
/// 9 password; 0 unknown).
#[no_mangle]
pub extern "C" fn gregor_config_results_entry_type(
    r: *const gregor_config_results,
    i: usize,
    j: usize,
) -> c_int {
    get(r, -1, |r| entry_at(r, i, j).map(|e| e.config_type))
}

/// Resource `i`, config `j`: its documentation (NULL if not asked or none).
#[no_mangle]
pub extern "C" fn gregor_config_results_entry_documentation(
    r: *const gregor_config_results,
    i: usize,
    j: usize,
) -> *const c_char {
    get(r, ptr::null(), |r| {
        entry_at(r, i, j).map(|e| cptr(&e.documentation))
    })
}

/// Resource `i`, config `j`: number of synonyms (when asked for).
#[no_mangle]
pub extern "C" fn gregor_config_results_synonym_count(
    r: *const gregor_config_results,
    i: usize,
    j: usize,
) -> usize {
    get(r, 0, |r| entry_at(r, i, j).map(|e| e.synonyms.len()))
}

/// Resource `i`, config `j`, synonym `k`: its name.
#[no_mangle]
pub extern "C" fn gregor_config_results_synonym_name(
    r: *const gregor_config_results,
    i: usize,
    j: usize,
    k: usize,
) -> *const c_char {
    get(r, ptr::null(), |r| {
        entry_at(r, i, j)?.synonyms.get(k).map(|s| s.name.as_ptr())
    })
}

/// Resource `i`, config `j`, synonym `k`: its value (NULL for null).
#[no_mangle]
pub extern "C" fn gregor_config_results_synonym_value(
    r: *const gregor_config_results,
    i: usize,
    j: usize,
    k: usize,
) -> *const c_char {
    get(r, ptr::null(), |r| {
        entry_at(r, i, j)?.synonyms.get(k).map(|s| cptr(&s.value))
    })
}

/// Resource `i`, config `j`, synonym `k`: its source (`GREGOR_CONFIG_SOURCE_*`).
#[no_mangle]
pub extern "C" fn gregor_config_results_synonym_source(
    r: *const gregor_config_results,
    i: usize,
    j: usize,
    k: usize,
) -> c_int {
    get(r, -1, |r| {
        entry_at(r, i, j)?.synonyms.get(k).map(|s| s.source)
    })
}

/// Frees config results. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_config_results_free(r: *mut gregor_config_results) {
    guard((), || free(r))
}

// ----- ACLs -----

/// One ACL binding (to create).
pub struct gregor_acl_binding {
    inner: AclBinding,
}

/// A filter over ACLs (to describe or delete).
pub struct gregor_acl_filter {
    inner: AclBindingFilter,
}

/// A binding: `resource_type` (`GREGOR_RESOURCE_*`), `resource_name`,
/// `pattern_type` (`GREGOR_PATTERN_LITERAL` or `_PREFIXED`), `principal`
/// ("User:alice"), `host` ("*" for any), `operation`
/// (`GREGOR_ACL_OPERATION_*`), `permission_type` (`GREGOR_ACL_PERMISSION_*`).
/// Strings are copied. NULL on a NULL string or an out-of-range number,
/// with the reason in `errstr`. Caller owns it: free with `gregor_acl_binding_free`.
#[no_mangle]
pub extern "C" fn gregor_acl_binding_new(
    resource_type: c_int,
    resource_name: *const c_char,
    pattern_type: c_int,
    principal: *const c_char,
    host: *const c_char,
    operation: c_int,
    permission_type: c_int,
    errstr: *mut c_char,
    errstr_size: usize,
) -> *mut gregor_acl_binding {
    let mut out = ptr::null_mut();
    guard_code(errstr, errstr_size, || {
        let b = AclBinding {
            resource_type: ResourceType(i8_of(resource_type, "resource_type")?),
            resource_name: c_str(resource_name, "resource_name")?.to_string(),
            pattern_type: PatternType(i8_of(pattern_type, "pattern_type")?),
            principal: c_str(principal, "principal")?.to_string(),
            host: c_str(host, "host")?.to_string(),
            operation: AclOperation(i8_of(operation, "operation")?),
            permission_type: AclPermissionType(i8_of(permission_type, "permission_type")?),
        };
        out = Box::into_raw(Box::new(gregor_acl_binding { inner: b }));
        Ok(())
    });
    out
}

/// Frees a binding. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_acl_binding_free(b: *mut gregor_acl_binding) {
    guard((), || free(b))
}

fn opt_str(p: *const c_char, name: &str) -> Result<Option<String>> {
    if p.is_null() {
        Ok(None)
    } else {
        c_str(p, name).map(|s| Some(s.to_string()))
    }
}

/// A filter; the ANY values (`GREGOR_RESOURCE_ANY`, `GREGOR_PATTERN_ANY`
/// or `_MATCH`, `GREGOR_ACL_OPERATION_ANY`, `GREGOR_ACL_PERMISSION_ANY`)
/// and NULL strings match everything. As `gregor_acl_binding_new`
/// otherwise; free with `gregor_acl_filter_free`.
#[no_mangle]
pub extern "C" fn gregor_acl_filter_new(
    resource_type: c_int,
    resource_name: *const c_char,
    pattern_type: c_int,
    principal: *const c_char,
    host: *const c_char,
    operation: c_int,
    permission_type: c_int,
    errstr: *mut c_char,
    errstr_size: usize,
) -> *mut gregor_acl_filter {
    let mut out = ptr::null_mut();
    guard_code(errstr, errstr_size, || {
        let f = AclBindingFilter {
            resource_type: ResourceType(i8_of(resource_type, "resource_type")?),
            resource_name: opt_str(resource_name, "resource_name")?,
            pattern_type: PatternType(i8_of(pattern_type, "pattern_type")?),
            principal: opt_str(principal, "principal")?,
            host: opt_str(host, "host")?,
            operation: AclOperation(i8_of(operation, "operation")?),
            permission_type: AclPermissionType(i8_of(permission_type, "permission_type")?),
        };
        out = Box::into_raw(Box::new(gregor_acl_filter { inner: f }));
        Ok(())
    });
    out
}

/// Frees a filter. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_acl_filter_free(f: *mut gregor_acl_filter) {
    guard((), || free(f))
}

struct CAcl {
    resource_type: c_int,
    resource_name: CString,
    pattern_type: c_int,
    principal: CString,
    host: CString,
    operation: c_int,
    permission_type: c_int,
    err: CErr,
}

/// A list of ACL bindings, each with an error code (0 for described ACLs;
/// the outcome for created or deleted ones). Immutable.
pub struct gregor_acl_bindings {
    items: Vec<CAcl>,
}

fn cacl(b: &AclBinding, err: CErr) -> CAcl {
    CAcl {
        resource_type: c_int::from(b.resource_type.0),
        resource_name: cs(&b.resource_name),
        pattern_type: c_int::from(b.pattern_type.0),
        principal: cs(&b.principal),
        host: cs(&b.host),
        operation: c_int::from(b.operation.0),
        permission_type: c_int::from(b.permission_type.0),
        err,
    }
}

/// The ACLs matching `filter` (borrowed). On success `*out` receives them
/// (caller owns; free with `gregor_acl_bindings_free`). The broker's error
/// for the request (e.g. `GREGOR_ERR_SECURITY_DISABLED`) is the return
/// code. Blocks. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_describe_acls(
    admin: *const gregor_admin,
    filter: *const gregor_acl_filter,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_acl_bindings,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let f = handle(filter, "filter")?;
        let r = a.inner.describe_acls(&f.inner, &opts_of(options)?)?;
        store(
            out,
            gregor_acl_bindings {
                items: r.iter().map(|b| cacl(b, cerr_of(None))).collect(),
            },
        );
        Ok(())
    })
}

/// Creates `count` ACLs (borrowed handles). On success `*out` receives the
/// bindings in order, each with its outcome (caller owns; free with
/// `gregor_acl_bindings_free`). Blocks. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_create_acls(
    admin: *const gregor_admin,
    bindings: *const *const gregor_acl_binding,
    count: usize,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_acl_bindings,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let bs: Vec<AclBinding> = handles(bindings, count, "bindings")?
            .into_iter()
            .map(|b| b.inner.clone())
            .collect();
        let r = a.inner.create_acls(&bs, &opts_of(options)?)?;
        store(
            out,
            gregor_acl_bindings {
                items: bs.iter().zip(&r).map(|(b, x)| cacl(b, cerr(x))).collect(),
            },
        );
        Ok(())
    })
}

/// Number of bindings (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_acl_bindings_count(b: *const gregor_acl_bindings) -> usize {
    get(b, 0, |b| Some(b.items.len()))
}

/// Binding `i`'s resource type (`GREGOR_RESOURCE_*`).
#[no_mangle]
pub extern "C" fn gregor_acl_bindings_resource_type(
    b: *const gregor_acl_bindings,
    i: usize,
) -> c_int {
    get(b, -1, |b| b.items.get(i).map(|x| x.resource_type))
}

/// Binding `i`'s resource name.
#[no_mangle]
pub extern "C" fn gregor_acl_bindings_resource_name(
    b: *const gregor_acl_bindings,
    i: usize,
) -> *const c_char {
    get(b, ptr::null(), |b| {
        b.items.get(i).map(|x| x.resource_name.as_ptr())
    })
}

/// Binding `i`'s pattern type (`GREGOR_PATTERN_*`).
#[no_mangle]
pub extern "C" fn gregor_acl_bindings_pattern_type(
    b: *const gregor_acl_bindings,
    i: usize,
) -> c_int {
    get(b, -1, |b| b.items.get(i).map(|x| x.pattern_type))
}

/// Binding `i`'s principal.
#[no_mangle]
pub extern "C" fn gregor_acl_bindings_principal(
    b: *const gregor_acl_bindings,
    i: usize,
) -> *const c_char {
    get(b, ptr::null(), |b| {
        b.items.get(i).map(|x| x.principal.as_ptr())
    })
}

/// Binding `i`'s host.
#[no_mangle]
pub extern "C" fn gregor_acl_bindings_host(
    b: *const gregor_acl_bindings,
    i: usize,
) -> *const c_char {
    get(b, ptr::null(), |b| b.items.get(i).map(|x| x.host.as_ptr()))
}

/// Binding `i`'s operation (`GREGOR_ACL_OPERATION_*`).
#[no_mangle]
pub extern "C" fn gregor_acl_bindings_operation(b: *const gregor_acl_bindings, i: usize) -> c_int {
    get(b, -1, |b| b.items.get(i).map(|x| x.operation))
}

/// Binding `i`'s permission (`GREGOR_ACL_PERMISSION_*`).
#[no_mangle]
pub extern "C" fn gregor_acl_bindings_permission_type(
    b: *const gregor_acl_bindings,
    i: usize,
) -> c_int {
    get(b, -1, |b| b.items.get(i).map(|x| x.permission_type))
}

/// Binding `i`'s error code (0: described, created or deleted).
#[no_mangle]
pub extern "C" fn gregor_acl_bindings_err(b: *const gregor_acl_bindings, i: usize) -> c_int {
    get(b, local::INVALID_ARG, |b| {
        b.items.get(i).map(|x| x.err.code)
    })
}

/// Binding `i`'s error text ("" on success).
#[no_mangle]
pub extern "C" fn gregor_acl_bindings_errstr(
    b: *const gregor_acl_bindings,
    i: usize,
) -> *const c_char {
    get(b, ptr::null(), |b| {
        b.items.get(i).map(|x| x.err.text.as_ptr())
    })
}

/// Frees bindings. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_acl_bindings_free(b: *mut gregor_acl_bindings) {
    guard((), || free(b))
}

struct DelItem {
    err: CErr,
    matches: gregor_acl_bindings,
}

/// Per-filter results of deleting ACLs. Immutable.
pub struct gregor_delete_acls_results {
    items: Vec<DelItem>,
}

/// Deletes the ACLs matching each of `count` filters (borrowed handles). On
/// success `*out` receives one result per filter (caller owns; free with
/// `gregor_delete_acls_results_free`). Blocks. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_delete_acls(
    admin: *const gregor_admin,
    filters: *const *const gregor_acl_filter,
    count: usize,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_delete_acls_results,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let fs: Vec<AclBindingFilter> = handles(filters, count, "filters")?
            .into_iter()
            .map(|f| f.inner.clone())
            .collect();
        let r = a.inner.delete_acls(&fs, &opts_of(options)?)?;
        store(
            out,
            gregor_delete_acls_results {
                items: r
                    .iter()
                    .map(|x| DelItem {
                        err: cerr(&x.result),
                        matches: gregor_acl_bindings {
                            items: x.result.as_ref().map_or(Vec::new(), |m| {
                                m.iter().map(|(b, r)| cacl(b, cerr(r))).collect()
                            }),
                        },
                    })
                    .collect(),
            },
        );
        Ok(())
    })
}

/// Number of filters (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_delete_acls_results_count(r: *const gregor_delete_acls_results) -> usize {
    get(r, 0, |r| Some(r.items.len()))
}

/// Filter `i`'s error code.
#[no_mangle]
pub extern "C" fn gregor_delete_acls_results_err(
    r: *const gregor_delete_acls_results,
    i: usize,
) -> c_int {
    get(r, local::INVALID_ARG, |r| {
        r.items.get(i).map(|x| x.err.code)
    })
}

/// Filter `i`'s error text ("" on success).
#[no_mangle]
pub extern "C" fn gregor_delete_acls_results_errstr(
    r: *const gregor_delete_acls_results,
    i: usize,
) -> *const c_char {
    get(r, ptr::null(), |r| {
        r.items.get(i).map(|x| x.err.text.as_ptr())
    })
}

/// The ACLs filter `i` matched, each with the outcome of its deletion.
/// Borrowed: valid until `r` is freed; never free it. NULL if out of range.
#[no_mangle]
pub extern "C" fn gregor_delete_acls_results_matches(
    r: *const gregor_delete_acls_results,
    i: usize,
) -> *const gregor_acl_bindings {
    get(r, ptr::null(), |r| {
        r.items.get(i).map(|x| ptr::from_ref(&x.matches))
    })
}

/// Frees delete results (and the bindings they lend). NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_delete_acls_results_free(r: *mut gregor_delete_acls_results) {
    guard((), || free(r))
}

// ----- cluster -----

/// A described cluster. Immutable.
pub struct gregor_cluster_description {
    cluster_id: Option<CString>,
    controller_id: i32,
    brokers: Vec<(i32, CString, i32, Option<CString>)>,
    ops: Option<Vec<c_int>>,
}

/// Describes the cluster (DescribeCluster, or Metadata on older brokers);
/// non-zero `include_authorized_operations` asks for the client's
/// operations on it. On success `*out` receives it (caller owns; free with
/// `gregor_cluster_description_free`). Blocks. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_describe_cluster(
    admin: *const gregor_admin,
    include_authorized_operations: c_int,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_cluster_description,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let d = a
            .inner
            .describe_cluster(include_authorized_operations != 0, &opts_of(options)?)?;
        store(
            out,
            gregor_cluster_description {
                cluster_id: cso(d.cluster_id.as_deref()),
                controller_id: d.controller_id,
                brokers: d
                    .brokers
                    .iter()
                    .map(|b| (b.id, cs(&b.host), b.port, cso(b.rack.as_deref())))
                    .collect(),
                ops: ops_ints(&d.authorized_operations),
            },
        );
        Ok(())
    })
}

/// The cluster ID (NULL if the broker has none).
#[no_mangle]
pub extern "C" fn gregor_cluster_description_cluster_id(
    d: *const gregor_cluster_description,
) -> *const c_char {
    get(d, ptr::null(), |d| Some(cptr(&d.cluster_id)))
}

/// The controller's broker id (-1 if not known).
#[no_mangle]
pub extern "C" fn gregor_cluster_description_controller_id(
    d: *const gregor_cluster_description,
) -> i32 {
    get(d, -1, |d| Some(d.controller_id))
}

/// Number of brokers.
#[no_mangle]
pub extern "C" fn gregor_cluster_description_broker_count(
    d: *const gregor_cluster_description,
) -> usize {
    get(d, 0, |d| Some(d.brokers.len()))
}

/// Broker `i`'s id (brokers are in id order).
#[no_mangle]
pub extern "C" fn gregor_cluster_description_broker_id(
    d: *const gregor_cluster_description,
    i: usize,
) -> i32 {
    get(d, -1, |d| d.brokers.get(i).map(|b| b.0))
}

/// Broker `i`'s host.
#[no_mangle]
pub extern "C" fn gregor_cluster_description_broker_host(
    d: *const gregor_cluster_description,
    i: usize,
) -> *const c_char {
    get(d, ptr::null(), |d| d.brokers.get(i).map(|b| b.1.as_ptr()))
}

/// Broker `i`'s port.
#[no_mangle]
pub extern "C" fn gregor_cluster_description_broker_port(
    d: *const gregor_cluster_description,
    i: usize,
) -> i32 {
    get(d, -1, |d| d.brokers.get(i).map(|b| b.2))
}

/// Broker `i`'s rack (NULL if none).
#[no_mangle]
pub extern "C" fn gregor_cluster_description_broker_rack(
    d: *const gregor_cluster_description,
    i: usize,
) -> *const c_char {
    get(d, ptr::null(), |d| d.brokers.get(i).map(|b| cptr(&b.3)))
}

/// Copies up to `max` authorized operations (`GREGOR_ACL_OPERATION_*`)
/// into `out`; returns how many there are, or -1 if not asked or not known.
#[no_mangle]
pub extern "C" fn gregor_cluster_description_authorized_operations(
    d: *const gregor_cluster_description,
    out: *mut c_int,
    max: usize,
) -> c_int {
    get(d, -1, |d| Some(copy_ops(&d.ops, out, max)))
}

/// Frees a cluster description. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_cluster_description_free(d: *mut gregor_cluster_description) {
    guard((), || free(d))
}

struct CReplica {
    topic: CString,
    partition: i32,
    size: i64,
    offset_lag: i64,
    is_future: bool,
}

struct CDir {
    path: CString,
    err: CErr,
    total_bytes: i64,
    usable_bytes: i64,
    replicas: Vec<CReplica>,
}

struct CBrokerDirs {
    broker_id: i32,
    err: CErr,
    dirs: Vec<CDir>,
}

/// Brokers' log directories. Immutable.
pub struct gregor_log_dirs {
    items: Vec<CBrokerDirs>,
}

/// Describes the log directories of `count` brokers (`brokers`; 0: all
/// brokers), asking each in parallel. On success `*out` receives one result
/// per broker (caller owns; free with `gregor_log_dirs_free`). Blocks.
/// Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_describe_log_dirs(
    admin: *const gregor_admin,
    brokers: *const i32,
    count: usize,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_log_dirs,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let ids = slice(brokers, count, "brokers")?;
        let r = a
            .inner
            .describe_log_dirs((count > 0).then_some(ids), &opts_of(options)?)?;
        store(
            out,
            gregor_log_dirs {
                items: r
                    .iter()
                    .map(|b| CBrokerDirs {
                        broker_id: b.broker_id,
                        err: cerr(&b.result),
                        dirs: b.result.as_ref().map_or(Vec::new(), |ds| {
                            ds.iter()
                                .map(|d| CDir {
                                    path: cs(&d.path),
                                    err: cerr_of(d.error.as_ref()),
                                    total_bytes: d.total_bytes.unwrap_or(-1),
                                    usable_bytes: d.usable_bytes.unwrap_or(-1),
                                    replicas: d
                                        .replicas
                                        .iter()
                                        .map(|x| CReplica {
                                            topic: cs(&x.partition.topic),
                                            partition: x.partition.partition,
                                            size: x.size,
                                            offset_lag: x.offset_lag,
                                            is_future: x.is_future,
                                        })
                                        .collect(),
                                })
                                .collect()
                        }),
                    })
                    .collect(),
            },
        );
        Ok(())
    })
}

/// Number of brokers (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_log_dirs_broker_count(l: *const gregor_log_dirs) -> usize {
    get(l, 0, |l| Some(l.items.len()))
}

/// Broker `b`'s id.
#[no_mangle]
pub extern "C" fn gregor_log_dirs_broker_id(l: *const gregor_log_dirs, b: usize) -> i32 {
    get(l, -1, |l| l.items.get(b).map(|x| x.broker_id))
}

/// Broker `b`'s error code (asking it).
#[no_mangle]
pub extern "C" fn gregor_log_dirs_broker_err(l: *const gregor_log_dirs, b: usize) -> c_int {
    get(l, local::INVALID_ARG, |l| {
        l.items.get(b).map(|x| x.err.code)
    })
}

/// Broker `b`'s error text ("" on success).
#[no_mangle]
pub extern "C" fn gregor_log_dirs_broker_errstr(
    l: *const gregor_log_dirs,
    b: usize,
) -> *const c_char {
    get(l, ptr::null(), |l| {
        l.items.get(b).map(|x| x.err.text.as_ptr())
    })
}

/// Number of log directories of broker `b`.
#[no_mangle]
pub extern "C" fn gregor_log_dirs_dir_count(l: *const gregor_log_dirs, b: usize) -> usize {
    get(l, 0, |l| l.items.get(b).map(|x| x.dirs.len()))
}

fn dir_at(l: &gregor_log_dirs, b: usize, d: usize) -> Option<&CDir> {
    l.items.get(b)?.dirs.get(d)
}

/// Broker `b`, directory `d`: its path.
#[no_mangle]
pub extern "C" fn gregor_log_dirs_dir_path(
    l: *const gregor_log_dirs,
    b: usize,
    d: usize,
) -> *const c_char {
    get(l, ptr::null(), |l| dir_at(l, b, d).map(|x| x.path.as_ptr()))
}

/// Broker `b`, directory `d`: its error code (e.g. `GREGOR_ERR_KAFKA_STORAGE_ERROR`).
#[no_mangle]
pub extern "C" fn gregor_log_dirs_dir_err(l: *const gregor_log_dirs, b: usize, d: usize) -> c_int {
    get(l, local::INVALID_ARG, |l| {
        dir_at(l, b, d).map(|x| x.err.code)
    })
}

/// Broker `b`, directory `d`: the volume's size in bytes (-1 if not known).
#[no_mangle]
pub extern "C" fn gregor_log_dirs_dir_total_bytes(
    l: *const gregor_log_dirs,
    b: usize,
    d: usize,
) -> i64 {
    get(l, -1, |l| dir_at(l, b, d).map(|x| x.total_bytes))
}

/// Broker `b`, directory `d`: the volume's usable bytes (-1 if not known).
#[no_mangle]
pub extern "C" fn gregor_log_dirs_dir_usable_bytes(
    l: *const gregor_log_dirs,
    b: usize,
    d: usize,
) -> i64 {
    get(l, -1, |l| dir_at(l, b, d).map(|x| x.usable_bytes))
}

/// Broker `b`, directory `d`: number of replicas in it.
#[no_mangle]
pub extern "C" fn gregor_log_dirs_replica_count(
    l: *const gregor_log_dirs,
    b: usize,
    d: usize,
) -> usize {
    get(l, 0, |l| dir_at(l, b, d).map(|x| x.replicas.len()))
}

fn replica_at(l: &gregor_log_dirs, b: usize, d: usize, r: usize) -> Option<&CReplica> {
    dir_at(l, b, d)?.replicas.get(r)
}

/// Replica `r` of broker `b`'s directory `d`: its topic.
#[no_mangle]
pub extern "C" fn gregor_log_dirs_replica_topic(
    l: *const gregor_log_dirs,
    b: usize,
    d: usize,
    r: usize,
) -> *const c_char {
    get(l, ptr::null(), |l| {
        replica_at(l, b, d, r).map(|x| x.topic.as_ptr())
    })
}

/// Replica `r`: its partition.
#[no_mangle]
pub extern "C" fn gregor_log_dirs_replica_partition(
    l: *const gregor_log_dirs,
    b: usize,
    d: usize,
    r: usize,
) -> i32 {
    get(l, -1, |l| replica_at(l, b, d, r).map(|x| x.partition))
}

/// Replica `r`: the size of its segments in bytes.
#[no_mangle]
pub extern "C" fn gregor_log_dirs_replica_size(
    l: *const gregor_log_dirs,
    b: usize,
    d: usize,
    r: usize,
) -> i64 {
    get(l, -1, |l| replica_at(l, b, d, r).map(|x| x.size))
}

/// Replica `r`: its offset lag.
#[no_mangle]
pub extern "C" fn gregor_log_dirs_replica_offset_lag(
    l: *const gregor_log_dirs,
    b: usize,
    d: usize,
    r: usize,
) -> i64 {
    get(l, -1, |l| replica_at(l, b, d, r).map(|x| x.offset_lag))
}

/// Replica `r`: 1 if it is a future replica being moved here.
#[no_mangle]
pub extern "C" fn gregor_log_dirs_replica_is_future(
    l: *const gregor_log_dirs,
    b: usize,
    d: usize,
    r: usize,
) -> c_int {
    get(l, -1, |l| {
        replica_at(l, b, d, r).map(|x| c_int::from(x.is_future))
    })
}

/// Frees log dirs. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_log_dirs_free(l: *mut gregor_log_dirs) {
    guard((), || free(l))
}

// ----- partitions: elections, reassignments, records, offsets, producers -----

struct PartItem {
    topic: CString,
    partition: i32,
    err: CErr,
    offset: i64,
    timestamp: i64,
    leader_epoch: i32,
    producers: Vec<ProducerState>,
    metadata: Option<CString>,
}

/// Per-partition results (elections, reassignments, deleted records,
/// listed offsets, producers). Immutable.
pub struct gregor_partition_results {
    items: Vec<PartItem>,
}

fn part_results<T>(
    r: &[PartitionResult<T>],
    f: impl Fn(&T, &mut PartItem),
) -> gregor_partition_results {
    gregor_partition_results {
        items: r
            .iter()
            .map(|x| {
                let mut it = PartItem {
                    topic: cs(&x.partition.topic),
                    partition: x.partition.partition,
                    err: cerr(&x.result),
                    offset: -1,
                    timestamp: -1,
                    leader_epoch: -1,
                    producers: Vec::new(),
                    metadata: None,
                };
                if let Ok(v) = &x.result {
                    f(v, &mut it);
                }
                it
            })
            .collect(),
    }
}

/// Elects leaders (`GREGOR_ELECTION_PREFERRED` or `_UNCLEAN`) for the
/// partitions of `partitions` (offsets ignored; NULL: every partition that
/// needs one). Honours the operation timeout. On success `*out` receives
/// one result per partition (caller owns; free with
/// `gregor_partition_results_free`). Blocks. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_elect_leaders(
    admin: *const gregor_admin,
    election_type: c_int,
    partitions: *const gregor_tpl,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_partition_results,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let et = ElectionType(i8_of(election_type, "election_type")?);
        let ps = if partitions.is_null() {
            None
        } else {
            Some(tps(handle(partitions, "partitions")?))
        };
        let r = a
            .inner
            .elect_leaders(et, ps.as_deref(), &opts_of(options)?)?;
        store(out, part_results(&r, |(), _| {}));
        Ok(())
    })
}

/// Partition reassignments to make: target replicas, or a cancellation.
pub struct gregor_new_reassignments {
    inner: Vec<(TopicPartition, Option<Vec<i32>>)>,
}

/// A new, empty list. Caller owns it: free with `gregor_new_reassignments_free`.
#[no_mangle]
pub extern "C" fn gregor_new_reassignments_new() -> *mut gregor_new_reassignments {
    guard(ptr::null_mut(), || {
        Box::into_raw(Box::new(gregor_new_reassignments { inner: Vec::new() }))
    })
}

/// Moves partition `partition` of `topic` to `replicas` (`count` broker ids), or with
/// `replicas` NULL cancels its pending reassignment. Copies everything.
/// Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_new_reassignments_add(
    r: *mut gregor_new_reassignments,
    topic: *const c_char,
    partition: i32,
    replicas: *const i32,
    count: usize,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let l = handle_mut(r, "r")?;
        let t = c_str(topic, "topic")?;
        let target = if replicas.is_null() {
            None
        } else {
            Some(slice(replicas, count, "replicas")?.to_vec())
        };
        l.inner.push((TopicPartition::new(t, partition), target));
        Ok(())
    })
}

/// Frees a reassignment list. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_new_reassignments_free(r: *mut gregor_new_reassignments) {
    guard((), || free(r))
}

/// Starts or cancels partition reassignments (to the controller). As
/// `gregor_admin_elect_leaders` for the rest.
#[no_mangle]
pub extern "C" fn gregor_admin_alter_partition_reassignments(
    admin: *const gregor_admin,
    reassignments: *const gregor_new_reassignments,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_partition_results,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let r = handle(reassignments, "reassignments")?;
        let res = a
            .inner
            .alter_partition_reassignments(&r.inner, &opts_of(options)?)?;
        store(out, part_results(&res, |(), _| {}));
        Ok(())
    })
}

/// Deletes the records before each entry's offset in `before` (-1: up to
/// the high watermark), asking the leaders. Each result's offset is the new
/// low watermark. As `gregor_admin_elect_leaders` for the rest.
#[no_mangle]
pub extern "C" fn gregor_admin_delete_records(
    admin: *const gregor_admin,
    before: *const gregor_tpl,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_partition_results,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let l = handle(before, "before")?;
        let items: Vec<(TopicPartition, i64)> = l
            .inner
            .iter()
            .map(|t| (TopicPartition::new(t.topic.clone(), t.partition), t.offset))
            .collect();
        let r = a.inner.delete_records(&items, &opts_of(options)?)?;
        store(out, part_results(&r, |low, it| it.offset = *low));
        Ok(())
    })
}

/// Looks up offsets: each entry's offset of `specs` is a spec
/// (`GREGOR_OFFSET_SPEC_EARLIEST`, `_LATEST`, `_MAX_TIMESTAMP`, or a
/// timestamp in ms). Non-zero `read_committed` makes latest the last stable
/// offset. Each result has offset, timestamp and leader epoch. As
/// `gregor_admin_elect_leaders` for the rest.
#[no_mangle]
pub extern "C" fn gregor_admin_list_offsets(
    admin: *const gregor_admin,
    specs: *const gregor_tpl,
    read_committed: c_int,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_partition_results,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let l = handle(specs, "specs")?;
        let items: Vec<(TopicPartition, OffsetSpec)> = l
            .inner
            .iter()
            .map(|t| {
                let spec = match t.offset {
                    -2 => OffsetSpec::Earliest,
                    -1 => OffsetSpec::Latest,
                    -3 => OffsetSpec::MaxTimestamp,
                    ts if ts >= 0 => OffsetSpec::Timestamp(ts),
                    other => {
                        return Err(Error::invalid_arg(format!(
                            "{} [{}]: unknown offset spec {other}",
                            t.topic, t.partition
                        )))
                    }
                };
                Ok((TopicPartition::new(t.topic.clone(), t.partition), spec))
            })
            .collect::<Result<_>>()?;
        let r = a
            .inner
            .list_offsets(&items, read_committed != 0, &opts_of(options)?)?;
        store(
            out,
            part_results(&r, |i, it| {
                it.offset = i.offset;
                it.timestamp = i.timestamp;
                it.leader_epoch = i.leader_epoch.unwrap_or(-1);
            }),
        );
        Ok(())
    })
}

/// The active producers of the partitions of `partitions` (offsets
/// ignored), asked of each leader, or of broker `broker_id` when it is >= 0.
/// Read them with `gregor_partition_results_producer_count` / `_producer`.
/// As `gregor_admin_elect_leaders` for the rest.
#[no_mangle]
pub extern "C" fn gregor_admin_describe_producers(
    admin: *const gregor_admin,
    partitions: *const gregor_tpl,
    broker_id: i32,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_partition_results,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let ps = tps(handle(partitions, "partitions")?);
        let r = a.inner.describe_producers(
            &ps,
            (broker_id >= 0).then_some(broker_id),
            &opts_of(options)?,
        )?;
        store(out, part_results(&r, |p, it| it.producers = p.clone()));
        Ok(())
    })
}

/// Number of partitions (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_partition_results_count(r: *const gregor_partition_results) -> usize {
    get(r, 0, |r| Some(r.items.len()))
}

/// Result `i`'s topic.
#[no_mangle]
pub extern "C" fn gregor_partition_results_topic(
    r: *const gregor_partition_results,
    i: usize,
) -> *const c_char {
    get(r, ptr::null(), |r| r.items.get(i).map(|x| x.topic.as_ptr()))
}

/// Result `i`'s partition.
#[no_mangle]
pub extern "C" fn gregor_partition_results_partition(
    r: *const gregor_partition_results,
    i: usize,
) -> i32 {
    get(r, -1, |r| r.items.get(i).map(|x| x.partition))
}

/// Result `i`'s error code (e.g. `GREGOR_ERR_ELECTION_NOT_NEEDED`).
#[no_mangle]
pub extern "C" fn gregor_partition_results_err(
    r: *const gregor_partition_results,
    i: usize,
) -> c_int {
    get(r, local::INVALID_ARG, |r| {
        r.items.get(i).map(|x| x.err.code)
    })
}

/// Result `i`'s error text ("" on success).
#[no_mangle]
pub extern "C" fn gregor_partition_results_errstr(
    r: *const gregor_partition_results,
    i: usize,
) -> *const c_char {
    get(r, ptr::null(), |r| {
        r.items.get(i).map(|x| x.err.text.as_ptr())
    })
}

/// Result `i`'s offset: the listed offset, or the low watermark after
/// deleting records (-1 otherwise).
#[no_mangle]
pub extern "C" fn gregor_partition_results_offset(
    r: *const gregor_partition_results,
    i: usize,
) -> i64 {
    get(r, -1, |r| r.items.get(i).map(|x| x.offset))
}

/// Result `i`'s timestamp (listed offsets; -1 if not known).
#[no_mangle]
pub extern "C" fn gregor_partition_results_timestamp(
    r: *const gregor_partition_results,
    i: usize,
) -> i64 {
    get(r, -1, |r| r.items.get(i).map(|x| x.timestamp))
}

/// Result `i`'s leader epoch (listed offsets; -1 if not known).
#[no_mangle]
pub extern "C" fn gregor_partition_results_leader_epoch(
    r: *const gregor_partition_results,
    i: usize,
) -> i32 {
    get(r, -1, |r| r.items.get(i).map(|x| x.leader_epoch))
}

/// Result `i`'s number of active producers (describe producers).
#[no_mangle]
pub extern "C" fn gregor_partition_results_producer_count(
    r: *const gregor_partition_results,
    i: usize,
) -> usize {
    get(r, 0, |r| r.items.get(i).map(|x| x.producers.len()))
}

/// Result `i`, producer `j`: writes its producer ID, epoch, last sequence
/// (-1 none), last timestamp (-1), coordinator epoch (-1 none) and open
/// transaction's first offset (-1 none) to the non-NULL out-parameters.
/// Returns 0, or `GREGOR_ERR__INVALID_ARG` out of range.
#[no_mangle]
pub extern "C" fn gregor_partition_results_producer(
    r: *const gregor_partition_results,
    i: usize,
    j: usize,
    producer_id: *mut i64,
    producer_epoch: *mut i32,
    last_sequence: *mut i32,
    last_timestamp: *mut i64,
    coordinator_epoch: *mut i32,
    current_transaction_start_offset: *mut i64,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let r = handle(r, "r")?;
        let p = r
            .items
            .get(i)
            .and_then(|x| x.producers.get(j))
            .ok_or_else(|| Error::invalid_arg("index out of range"))?;
        put(producer_id, p.producer_id);
        put(producer_epoch, p.producer_epoch);
        put(last_sequence, p.last_sequence);
        put(last_timestamp, p.last_timestamp);
        put(coordinator_epoch, p.coordinator_epoch.unwrap_or(-1));
        put(
            current_transaction_start_offset,
            p.current_transaction_start_offset.unwrap_or(-1),
        );
        Ok(())
    })
}

/// Result `i`'s committed metadata (listed group offsets; NULL if none).
#[no_mangle]
pub extern "C" fn gregor_partition_results_metadata(
    r: *const gregor_partition_results,
    i: usize,
) -> *const c_char {
    get(r, ptr::null(), |r| {
        r.items.get(i).map(|x| cptr(&x.metadata))
    })
}

/// Frees partition results. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_partition_results_free(r: *mut gregor_partition_results) {
    guard((), || free(r))
}

struct CReassign {
    topic: CString,
    partition: i32,
    replicas: Vec<i32>,
    adding: Vec<i32>,
    removing: Vec<i32>,
}

/// Partition reassignments in progress. Immutable.
pub struct gregor_partition_reassignments {
    items: Vec<CReassign>,
}

/// The reassignments in progress for the partitions of `partitions`
/// (offsets ignored; NULL: all). On success `*out` receives them (caller
/// owns; free with `gregor_partition_reassignments_free`). Blocks. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_list_partition_reassignments(
    admin: *const gregor_admin,
    partitions: *const gregor_tpl,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_partition_reassignments,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let ps = if partitions.is_null() {
            None
        } else {
            Some(tps(handle(partitions, "partitions")?))
        };
        let r = a
            .inner
            .list_partition_reassignments(ps.as_deref(), &opts_of(options)?)?;
        store(
            out,
            gregor_partition_reassignments {
                items: r
                    .into_iter()
                    .map(|x| CReassign {
                        topic: cs(&x.partition.topic),
                        partition: x.partition.partition,
                        replicas: x.replicas,
                        adding: x.adding_replicas,
                        removing: x.removing_replicas,
                    })
                    .collect(),
            },
        );
        Ok(())
    })
}

/// Number of reassignments (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_partition_reassignments_count(
    r: *const gregor_partition_reassignments,
) -> usize {
    get(r, 0, |r| Some(r.items.len()))
}

/// Reassignment `i`'s topic.
#[no_mangle]
pub extern "C" fn gregor_partition_reassignments_topic(
    r: *const gregor_partition_reassignments,
    i: usize,
) -> *const c_char {
    get(r, ptr::null(), |r| r.items.get(i).map(|x| x.topic.as_ptr()))
}

/// Reassignment `i`'s partition.
#[no_mangle]
pub extern "C" fn gregor_partition_reassignments_partition(
    r: *const gregor_partition_reassignments,
    i: usize,
) -> i32 {
    get(r, -1, |r| r.items.get(i).map(|x| x.partition))
}

/// Reassignment `i`: copies up to `max` current replicas into `out`,
/// returns how many there are.
#[no_mangle]
pub extern "C" fn gregor_partition_reassignments_replicas(
    r: *const gregor_partition_reassignments,
    i: usize,
    out: *mut i32,
    max: usize,
) -> usize {
    get(r, 0, |r| {
        r.items.get(i).map(|x| copy_ids(&x.replicas, out, max))
    })
}

/// As `gregor_partition_reassignments_replicas`, for the replicas being added.
#[no_mangle]
pub extern "C" fn gregor_partition_reassignments_adding(
    r: *const gregor_partition_reassignments,
    i: usize,
    out: *mut i32,
    max: usize,
) -> usize {
    get(r, 0, |r| {
        r.items.get(i).map(|x| copy_ids(&x.adding, out, max))
    })
}

/// As `gregor_partition_reassignments_replicas`, for the replicas being removed.
#[no_mangle]
pub extern "C" fn gregor_partition_reassignments_removing(
    r: *const gregor_partition_reassignments,
    i: usize,
    out: *mut i32,
    max: usize,
) -> usize {
    get(r, 0, |r| {
        r.items.get(i).map(|x| copy_ids(&x.removing, out, max))
    })
}

/// Frees reassignments. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_partition_reassignments_free(r: *mut gregor_partition_reassignments) {
    guard((), || free(r))
}

// ----- client quotas -----

/// A client-quota filter.
pub struct gregor_quota_filter {
    components: Vec<QuotaFilterComponent>,
    strict: bool,
}

/// A new filter; non-zero `strict` excludes entities with entity types the
/// filter does not name. Caller owns it: free with `gregor_quota_filter_free`.
#[no_mangle]
pub extern "C" fn gregor_quota_filter_new(strict: c_int) -> *mut gregor_quota_filter {
    guard(ptr::null_mut(), || {
        Box::into_raw(Box::new(gregor_quota_filter {
            components: Vec::new(),
            strict: strict != 0,
        }))
    })
}

/// Adds a component for `entity_type` ("user", "client-id", "ip"):
/// `match_type` `GREGOR_QUOTA_MATCH_EXACT` (with `name`), `_DEFAULT` or
/// `_ANY` (`name` ignored). Copies strings. Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_quota_filter_add_component(
    f: *mut gregor_quota_filter,
    entity_type: *const c_char,
    match_type: c_int,
    name: *const c_char,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let f = handle_mut(f, "f")?;
        let t = c_str(entity_type, "entity_type")?.to_string();
        let matching = match match_type {
            GREGOR_QUOTA_MATCH_EXACT => QuotaMatch::Exact(c_str(name, "name")?.to_string()),
            GREGOR_QUOTA_MATCH_DEFAULT => QuotaMatch::Default,
            GREGOR_QUOTA_MATCH_ANY => QuotaMatch::Any,
            m => return Err(Error::invalid_arg(format!("unknown match type {m}"))),
        };
        f.components.push(QuotaFilterComponent {
            entity_type: t,
            matching,
        });
        Ok(())
    })
}

/// Frees a filter. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_quota_filter_free(f: *mut gregor_quota_filter) {
    guard((), || free(f))
}

/// Changes to one entity's quotas.
pub struct gregor_quota_alteration {
    parts: Vec<(String, Option<String>)>,
    ops: Vec<(String, Option<f64>)>,
}

/// A new, empty alteration. Caller owns it: free with `gregor_quota_alteration_free`.
#[no_mangle]
pub extern "C" fn gregor_quota_alteration_new() -> *mut gregor_quota_alteration {
    guard(ptr::null_mut(), || {
        Box::into_raw(Box::new(gregor_quota_alteration {
            parts: Vec::new(),
            ops: Vec::new(),
        }))
    })
}

/// Adds an entity part: `entity_type` and `name` (NULL: the type's default
/// entity). Copies both. Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_quota_alteration_add_entity(
    a: *mut gregor_quota_alteration,
    entity_type: *const c_char,
    name: *const c_char,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let a = handle_mut(a, "a")?;
        let t = c_str(entity_type, "entity_type")?.to_string();
        a.parts.push((t, opt_str(name, "name")?));
        Ok(())
    })
}

/// Sets quota `key` to `value`. Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_quota_alteration_set(
    a: *mut gregor_quota_alteration,
    key: *const c_char,
    value: f64,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let a = handle_mut(a, "a")?;
        a.ops.push((c_str(key, "key")?.to_string(), Some(value)));
        Ok(())
    })
}

/// Removes quota `key`. Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_quota_alteration_remove(
    a: *mut gregor_quota_alteration,
    key: *const c_char,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let a = handle_mut(a, "a")?;
        a.ops.push((c_str(key, "key")?.to_string(), None));
        Ok(())
    })
}

/// Frees an alteration. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_quota_alteration_free(a: *mut gregor_quota_alteration) {
    guard((), || free(a))
}

struct CQuota {
    parts: Vec<(CString, Option<CString>)>,
    values: Vec<(CString, f64)>,
    err: CErr,
}

/// Quota entities with their values (describe) or outcomes (alter). Immutable.
pub struct gregor_quota_entries {
    items: Vec<CQuota>,
}

fn cparts(e: &QuotaEntity) -> Vec<(CString, Option<CString>)> {
    e.parts()
        .iter()
        .map(|(t, n)| (cs(t), cso(n.as_deref())))
        .collect()
}

/// The quotas of the entities matching `filter` (borrowed). On success
/// `*out` receives them (caller owns; free with
/// `gregor_quota_entries_free`). Blocks. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_describe_client_quotas(
    admin: *const gregor_admin,
    filter: *const gregor_quota_filter,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_quota_entries,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let f = handle(filter, "filter")?;
        let r = a
            .inner
            .describe_client_quotas(&f.components, f.strict, &opts_of(options)?)?;
        store(
            out,
            gregor_quota_entries {
                items: r
                    .iter()
                    .map(|e| CQuota {
                        parts: cparts(&e.entity),
                        values: e.values.iter().map(|(k, v)| (cs(k), *v)).collect(),
                        err: cerr_of(None),
                    })
                    .collect(),
            },
        );
        Ok(())
    })
}

/// Applies `count` alterations (borrowed handles). Honours validate-only.
/// On success `*out` receives one entry per entity with its outcome (no
/// values). Blocks. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_alter_client_quotas(
    admin: *const gregor_admin,
    alterations: *const *const gregor_quota_alteration,
    count: usize,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_quota_entries,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let alts: Vec<QuotaAlteration> = handles(alterations, count, "alterations")?
            .into_iter()
            .map(|x| QuotaAlteration {
                entity: QuotaEntity::new(x.parts.clone()),
                ops: x.ops.clone(),
            })
            .collect();
        let r = a.inner.alter_client_quotas(&alts, &opts_of(options)?)?;
        store(
            out,
            gregor_quota_entries {
                items: r
                    .iter()
                    .map(|(e, res)| CQuota {
                        parts: cparts(e),
                        values: Vec::new(),
                        err: cerr(res),
                    })
                    .collect(),
            },
        );
        Ok(())
    })
}

/// Number of entities (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_quota_entries_count(q: *const gregor_quota_entries) -> usize {
    get(q, 0, |q| Some(q.items.len()))
}

/// Entity `i`'s number of parts (sorted by entity type).
#[no_mangle]
pub extern "C" fn gregor_quota_entries_entity_part_count(
    q: *const gregor_quota_entries,
    i: usize,
) -> usize {
    get(q, 0, |q| q.items.get(i).map(|x| x.parts.len()))
}

/// Entity `i`, part `k`: its entity type.
#[no_mangle]
pub extern "C" fn gregor_quota_entries_entity_part_type(
    q: *const gregor_quota_entries,
    i: usize,
    k: usize,
) -> *const c_char {
    get(q, ptr::null(), |q| {
        q.items.get(i)?.parts.get(k).map(|p| p.0.as_ptr())
    })
}

/// Entity `i`, part `k`: its name (NULL for the default entity).
#[no_mangle]
pub extern "C" fn gregor_quota_entries_entity_part_name(
    q: *const gregor_quota_entries,
    i: usize,
    k: usize,
) -> *const c_char {
    get(q, ptr::null(), |q| {
        q.items.get(i)?.parts.get(k).map(|p| cptr(&p.1))
    })
}

/// Entity `i`'s number of quota values.
#[no_mangle]
pub extern "C" fn gregor_quota_entries_value_count(
    q: *const gregor_quota_entries,
    i: usize,
) -> usize {
    get(q, 0, |q| q.items.get(i).map(|x| x.values.len()))
}

/// Entity `i`, value `k`: its key (values are in key order).
#[no_mangle]
pub extern "C" fn gregor_quota_entries_value_key(
    q: *const gregor_quota_entries,
    i: usize,
    k: usize,
) -> *const c_char {
    get(q, ptr::null(), |q| {
        q.items.get(i)?.values.get(k).map(|v| v.0.as_ptr())
    })
}

/// Entity `i`, value `k`: the value (NaN out of range).
#[no_mangle]
pub extern "C" fn gregor_quota_entries_value(
    q: *const gregor_quota_entries,
    i: usize,
    k: usize,
) -> f64 {
    get(q, f64::NAN, |q| q.items.get(i)?.values.get(k).map(|v| v.1))
}

/// Entity `i`'s error code (alter).
#[no_mangle]
pub extern "C" fn gregor_quota_entries_err(q: *const gregor_quota_entries, i: usize) -> c_int {
    get(q, local::INVALID_ARG, |q| {
        q.items.get(i).map(|x| x.err.code)
    })
}

/// Entity `i`'s error text ("" on success).
#[no_mangle]
pub extern "C" fn gregor_quota_entries_errstr(
    q: *const gregor_quota_entries,
    i: usize,
) -> *const c_char {
    get(q, ptr::null(), |q| {
        q.items.get(i).map(|x| x.err.text.as_ptr())
    })
}

/// Frees quota entries. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_quota_entries_free(q: *mut gregor_quota_entries) {
    guard((), || free(q))
}

// ----- SCRAM credentials -----

/// SCRAM credential changes.
pub struct gregor_scram_alterations {
    inner: Vec<UserScramAlteration>,
}

/// A new, empty list. Caller owns it: free with `gregor_scram_alterations_free`.
#[no_mangle]
pub extern "C" fn gregor_scram_alterations_new() -> *mut gregor_scram_alterations {
    guard(ptr::null_mut(), || {
        Box::into_raw(Box::new(gregor_scram_alterations { inner: Vec::new() }))
    })
}

/// Creates or replaces `user`'s credential for `mechanism`
/// (`GREGOR_SCRAM_SHA_256` / `_512`) with `iterations` and `password`; the
/// password is salted here (`salt_len` bytes at `salt`, or 32 random bytes
/// when `salt` is NULL) and only the salted password is sent. Copies
/// everything. Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_scram_alterations_add_upsert(
    a: *mut gregor_scram_alterations,
    user: *const c_char,
    mechanism: c_int,
    iterations: i32,
    password: *const c_char,
    salt: *const u8,
    salt_len: usize,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let a = handle_mut(a, "a")?;
        let salt = if salt.is_null() {
            None
        } else {
            Some(slice(salt, salt_len, "salt")?.to_vec())
        };
        a.inner.push(UserScramAlteration::Upsert {
            user: c_str(user, "user")?.to_string(),
            mechanism: ScramMechanism(i8_of(mechanism, "mechanism")?),
            iterations,
            password: c_str(password, "password")?.to_string(),
            salt,
        });
        Ok(())
    })
}

/// Deletes `user`'s credential for `mechanism`. Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_scram_alterations_add_delete(
    a: *mut gregor_scram_alterations,
    user: *const c_char,
    mechanism: c_int,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let a = handle_mut(a, "a")?;
        a.inner.push(UserScramAlteration::Delete {
            user: c_str(user, "user")?.to_string(),
            mechanism: ScramMechanism(i8_of(mechanism, "mechanism")?),
        });
        Ok(())
    })
}

/// Frees alterations. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_scram_alterations_free(a: *mut gregor_scram_alterations) {
    guard((), || free(a))
}

struct CUser {
    user: CString,
    err: CErr,
    creds: Vec<(c_int, i32)>,
}

/// Users with their SCRAM credentials (describe) or outcomes (alter). Immutable.
pub struct gregor_scram_users {
    items: Vec<CUser>,
}

/// The SCRAM credentials of `count` users (`users`; 0: every user with
/// credentials). On success `*out` receives one entry per user (caller
/// owns; free with `gregor_scram_users_free`). Blocks. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_describe_user_scram_credentials(
    admin: *const gregor_admin,
    users: *const *const c_char,
    count: usize,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_scram_users,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let us = strs(users, count, "users")?;
        let r = a
            .inner
            .describe_user_scram_credentials((count > 0).then_some(&us[..]), &opts_of(options)?)?;
        store(
            out,
            gregor_scram_users {
                items: r
                    .iter()
                    .map(|u| CUser {
                        user: cs(&u.user),
                        err: cerr(&u.result),
                        creds: u.result.as_ref().map_or(Vec::new(), |cs| {
                            cs.iter()
                                .map(|c| (c_int::from(c.mechanism.0), c.iterations))
                                .collect()
                        }),
                    })
                    .collect(),
            },
        );
        Ok(())
    })
}

/// Applies SCRAM changes (borrowed). On success `*out` receives one entry
/// per distinct user with its outcome (no credentials). Blocks. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_alter_user_scram_credentials(
    admin: *const gregor_admin,
    alterations: *const gregor_scram_alterations,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_scram_users,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let alts = handle(alterations, "alterations")?;
        let r = a
            .inner
            .alter_user_scram_credentials(&alts.inner, &opts_of(options)?)?;
        store(
            out,
            gregor_scram_users {
                items: r
                    .iter()
                    .map(|(u, res)| CUser {
                        user: cs(u),
                        err: cerr(res),
                        creds: Vec::new(),
                    })
                    .collect(),
            },
        );
        Ok(())
    })
}

/// Number of users (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_scram_users_count(u: *const gregor_scram_users) -> usize {
    get(u, 0, |u| Some(u.items.len()))
}

/// User `i`'s name.
#[no_mangle]
pub extern "C" fn gregor_scram_users_name(u: *const gregor_scram_users, i: usize) -> *const c_char {
    get(u, ptr::null(), |u| u.items.get(i).map(|x| x.user.as_ptr()))
}

/// User `i`'s error code (e.g. `GREGOR_ERR_RESOURCE_NOT_FOUND`).
#[no_mangle]
pub extern "C" fn gregor_scram_users_err(u: *const gregor_scram_users, i: usize) -> c_int {
    get(u, local::INVALID_ARG, |u| {
        u.items.get(i).map(|x| x.err.code)
    })
}

/// User `i`'s error text ("" on success).
#[no_mangle]
pub extern "C" fn gregor_scram_users_errstr(
    u: *const gregor_scram_users,
    i: usize,
) -> *const c_char {
    get(u, ptr::null(), |u| {
        u.items.get(i).map(|x| x.err.text.as_ptr())
    })
}

/// User `i`'s number of credentials.
#[no_mangle]
pub extern "C" fn gregor_scram_users_credential_count(
    u: *const gregor_scram_users,
    i: usize,
) -> usize {
    get(u, 0, |u| u.items.get(i).map(|x| x.creds.len()))
}

/// User `i`, credential `k`: its mechanism (`GREGOR_SCRAM_SHA_*`).
#[no_mangle]
pub extern "C" fn gregor_scram_users_credential_mechanism(
    u: *const gregor_scram_users,
    i: usize,
    k: usize,
) -> c_int {
    get(u, -1, |u| u.items.get(i)?.creds.get(k).map(|c| c.0))
}

/// User `i`, credential `k`: its iteration count.
#[no_mangle]
pub extern "C" fn gregor_scram_users_credential_iterations(
    u: *const gregor_scram_users,
    i: usize,
    k: usize,
) -> i32 {
    get(u, -1, |u| u.items.get(i)?.creds.get(k).map(|c| c.1))
}

/// Frees SCRAM users. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_scram_users_free(u: *mut gregor_scram_users) {
    guard((), || free(u))
}

// ----- transactions -----

struct CTxn {
    transactional_id: CString,
    err: CErr,
    state: CString,
    producer_id: i64,
    producer_epoch: i32,
    coordinator_id: i32,
    timeout_ms: i32,
    start_time_ms: i64,
    partitions: Vec<(CString, i32)>,
}

/// Transactions: listed (one entry per transaction, and one per broker
/// that failed, with an empty transactional ID and its error) or described
/// (one entry per transactional ID). Immutable.
pub struct gregor_transactions {
    items: Vec<CTxn>,
}

fn ctxn(id: &str, coordinator_id: i32) -> CTxn {
    CTxn {
        transactional_id: cs(id),
        err: cerr_of(None),
        state: CString::default(),
        producer_id: -1,
        producer_epoch: -1,
        coordinator_id,
        timeout_ms: -1,
        start_time_ms: -1,
        partitions: Vec::new(),
    }
}

/// Lists the transactions every broker coordinates, matching every filter
/// given: `state_count` states, `producer_id_count` producer IDs, and a
/// minimum running time `min_duration_ms` (-1: none; ListTransactions v1+).
/// Each entry's coordinator is the broker that listed it. On success `*out`
/// receives them (caller owns; free with `gregor_transactions_free`).
/// Blocks. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_list_transactions(
    admin: *const gregor_admin,
    states: *const *const c_char,
    state_count: usize,
    producer_ids: *const i64,
    producer_id_count: usize,
    min_duration_ms: i64,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_transactions,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let ss = strs(states, state_count, "states")?;
        let pids = slice(producer_ids, producer_id_count, "producer_ids")?;
        let r = a.inner.list_transactions(
            &ss,
            pids,
            (min_duration_ms >= 0).then_some(min_duration_ms),
            &opts_of(options)?,
        )?;
        let mut items = Vec::new();
        for b in &r {
            match &b.result {
                Ok(ts) => items.extend(ts.iter().map(|t| CTxn {
                    state: cs(&t.state),
                    producer_id: t.producer_id,
                    ..ctxn(&t.transactional_id, b.broker_id)
                })),
                Err(e) => items.push(CTxn {
                    err: cerr_of(Some(e)),
                    ..ctxn("", b.broker_id)
                }),
            }
        }
        store(out, gregor_transactions { items });
        Ok(())
    })
}

/// Describes `count` transactional IDs at their coordinators. On success
/// `*out` receives one entry per distinct ID (caller owns; free with
/// `gregor_transactions_free`). Blocks. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_describe_transactions(
    admin: *const gregor_admin,
    transactional_ids: *const *const c_char,
    count: usize,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_transactions,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let ids = strs(transactional_ids, count, "transactional_ids")?;
        let r = a.inner.describe_transactions(&ids, &opts_of(options)?)?;
        store(
            out,
            gregor_transactions {
                items: r
                    .iter()
                    .map(|(id, res)| match res {
                        Ok(t) => CTxn {
                            state: cs(&t.state),
                            producer_id: t.producer_id,
                            producer_epoch: i32::from(t.producer_epoch),
                            timeout_ms: t.transaction_timeout_ms,
                            start_time_ms: t.transaction_start_time_ms,
                            partitions: t
                                .partitions
                                .iter()
                                .map(|p| (cs(&p.topic), p.partition))
                                .collect(),
                            ..ctxn(id, t.coordinator_id)
                        },
                        Err(e) => CTxn {
                            err: cerr_of(Some(e)),
                            ..ctxn(id, -1)
                        },
                    })
                    .collect(),
            },
        );
        Ok(())
    })
}

/// Number of entries (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_transactions_count(t: *const gregor_transactions) -> usize {
    get(t, 0, |t| Some(t.items.len()))
}

/// Entry `i`'s transactional ID ("" for a broker that failed to list).
#[no_mangle]
pub extern "C" fn gregor_transactions_transactional_id(
    t: *const gregor_transactions,
    i: usize,
) -> *const c_char {
    get(t, ptr::null(), |t| {
        t.items.get(i).map(|x| x.transactional_id.as_ptr())
    })
}

/// Entry `i`'s error code.
#[no_mangle]
pub extern "C" fn gregor_transactions_err(t: *const gregor_transactions, i: usize) -> c_int {
    get(t, local::INVALID_ARG, |t| {
        t.items.get(i).map(|x| x.err.code)
    })
}

/// Entry `i`'s error text ("" on success).
#[no_mangle]
pub extern "C" fn gregor_transactions_errstr(
    t: *const gregor_transactions,
    i: usize,
) -> *const c_char {
    get(t, ptr::null(), |t| {
        t.items.get(i).map(|x| x.err.text.as_ptr())
    })
}

/// Entry `i`'s state ("Ongoing", "PrepareCommit", …; "" if not known).
#[no_mangle]
pub extern "C" fn gregor_transactions_state(
    t: *const gregor_transactions,
    i: usize,
) -> *const c_char {
    get(t, ptr::null(), |t| t.items.get(i).map(|x| x.state.as_ptr()))
}

/// Entry `i`'s producer ID (-1 if not known).
#[no_mangle]
pub extern "C" fn gregor_transactions_producer_id(t: *const gregor_transactions, i: usize) -> i64 {
    get(t, -1, |t| t.items.get(i).map(|x| x.producer_id))
}

/// Entry `i`'s producer epoch (described only; -1 otherwise).
#[no_mangle]
pub extern "C" fn gregor_transactions_producer_epoch(
    t: *const gregor_transactions,
    i: usize,
) -> i32 {
    get(t, -1, |t| t.items.get(i).map(|x| x.producer_epoch))
}

/// Entry `i`'s coordinator broker id (-1 if not known).
#[no_mangle]
pub extern "C" fn gregor_transactions_coordinator_id(
    t: *const gregor_transactions,
    i: usize,
) -> i32 {
    get(t, -1, |t| t.items.get(i).map(|x| x.coordinator_id))
}

/// Entry `i`'s transaction timeout in ms (described only; -1 otherwise).
#[no_mangle]
pub extern "C" fn gregor_transactions_timeout_ms(t: *const gregor_transactions, i: usize) -> i32 {
    get(t, -1, |t| t.items.get(i).map(|x| x.timeout_ms))
}

/// Entry `i`'s start time in ms since the epoch (described only; -1 otherwise).
#[no_mangle]
pub extern "C" fn gregor_transactions_start_time_ms(
    t: *const gregor_transactions,
    i: usize,
) -> i64 {
    get(t, -1, |t| t.items.get(i).map(|x| x.start_time_ms))
}

/// Entry `i`'s number of partitions in the transaction (described only).
#[no_mangle]
pub extern "C" fn gregor_transactions_partition_count(
    t: *const gregor_transactions,
    i: usize,
) -> usize {
    get(t, 0, |t| t.items.get(i).map(|x| x.partitions.len()))
}

/// Entry `i`, partition `k`: its topic.
#[no_mangle]
pub extern "C" fn gregor_transactions_partition_topic(
    t: *const gregor_transactions,
    i: usize,
    k: usize,
) -> *const c_char {
    get(t, ptr::null(), |t| {
        t.items.get(i)?.partitions.get(k).map(|p| p.0.as_ptr())
    })
}

/// Entry `i`, partition `k`: its index.
#[no_mangle]
pub extern "C" fn gregor_transactions_partition(
    t: *const gregor_transactions,
    i: usize,
    k: usize,
) -> i32 {
    get(t, -1, |t| t.items.get(i)?.partitions.get(k).map(|p| p.1))
}

/// Frees transactions. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_transactions_free(t: *mut gregor_transactions) {
    guard((), || free(t))
}

// ----- consumer groups -----

struct CListing {
    group_id: CString,
    protocol_type: CString,
    state: Option<CString>,
    group_type: Option<CString>,
    coordinator_id: i32,
    simple: bool,
}

/// The groups every broker lists, and the brokers that failed. Immutable.
pub struct gregor_group_listings {
    groups: Vec<CListing>,
    errors: Vec<(i32, CErr)>,
}

/// Lists the groups every broker coordinates (ListGroups to each broker),
/// keeping those in one of `state_count` states (ListGroups v4+; e.g.
/// "Stable", "Empty") and of one of `type_count` types (v5+; "classic",
/// "consumer"); no filter: all. A broker that cannot be asked, answers an
/// error, or is too old for a filter given is listed among the errors
/// (`gregor_group_listings_error_*`), not a failure of the call. On success
/// `*out` receives the listings (caller owns; free with
/// `gregor_group_listings_free`). Blocks. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_list_groups(
    admin: *const gregor_admin,
    states: *const *const c_char,
    state_count: usize,
    types: *const *const c_char,
    type_count: usize,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_group_listings,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let ss = strs(states, state_count, "states")?;
        let ts = strs(types, type_count, "types")?;
        let l = a.inner.list_groups(&ss, &ts, &opts_of(options)?)?;
        store(
            out,
            gregor_group_listings {
                groups: l
                    .groups
                    .iter()
                    .map(|g| CListing {
                        group_id: cs(&g.group_id),
                        protocol_type: cs(&g.protocol_type),
                        state: cso(g.state.as_deref()),
                        group_type: cso(g.group_type.as_deref()),
                        coordinator_id: g.coordinator_id,
                        simple: g.is_simple_consumer_group(),
                    })
                    .collect(),
                errors: l
                    .errors
                    .iter()
                    .map(|(b, e)| (*b, cerr_of(Some(e))))
                    .collect(),
            },
        );
        Ok(())
    })
}

/// Number of groups listed (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_group_listings_count(l: *const gregor_group_listings) -> usize {
    get(l, 0, |l| Some(l.groups.len()))
}

/// Group `i`'s ID.
#[no_mangle]
pub extern "C" fn gregor_group_listings_group_id(
    l: *const gregor_group_listings,
    i: usize,
) -> *const c_char {
    get(l, ptr::null(), |l| {
        l.groups.get(i).map(|g| g.group_id.as_ptr())
    })
}

/// Group `i`'s protocol type ("consumer", …; "" for a simple group).
#[no_mangle]
pub extern "C" fn gregor_group_listings_protocol_type(
    l: *const gregor_group_listings,
    i: usize,
) -> *const c_char {
    get(l, ptr::null(), |l| {
        l.groups.get(i).map(|g| g.protocol_type.as_ptr())
    })
}

/// Group `i`'s state ("Stable", …; NULL from brokers before ListGroups v4).
#[no_mangle]
pub extern "C" fn gregor_group_listings_state(
    l: *const gregor_group_listings,
    i: usize,
) -> *const c_char {
    get(l, ptr::null(), |l| l.groups.get(i).map(|g| cptr(&g.state)))
}

/// Group `i`'s type ("classic", "consumer"; NULL before ListGroups v5).
#[no_mangle]
pub extern "C" fn gregor_group_listings_type(
    l: *const gregor_group_listings,
    i: usize,
) -> *const c_char {
    get(l, ptr::null(), |l| {
        l.groups.get(i).map(|g| cptr(&g.group_type))
    })
}

/// Group `i`'s coordinator (the broker that listed it).
#[no_mangle]
pub extern "C" fn gregor_group_listings_coordinator_id(
    l: *const gregor_group_listings,
    i: usize,
) -> i32 {
    get(l, -1, |l| l.groups.get(i).map(|g| g.coordinator_id))
}

/// 1 if group `i` only stores offsets (no protocol type), 0 if not, -1 out of range.
#[no_mangle]
pub extern "C" fn gregor_group_listings_is_simple(
    l: *const gregor_group_listings,
    i: usize,
) -> c_int {
    get(l, -1, |l| l.groups.get(i).map(|g| c_int::from(g.simple)))
}

/// Number of brokers that failed (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_group_listings_error_count(l: *const gregor_group_listings) -> usize {
    get(l, 0, |l| Some(l.errors.len()))
}

/// Failed broker `j`'s id.
#[no_mangle]
pub extern "C" fn gregor_group_listings_error_broker(
    l: *const gregor_group_listings,
    j: usize,
) -> i32 {
    get(l, -1, |l| l.errors.get(j).map(|e| e.0))
}

/// Failed broker `j`'s error code.
#[no_mangle]
pub extern "C" fn gregor_group_listings_error_err(
    l: *const gregor_group_listings,
    j: usize,
) -> c_int {
    get(l, local::INVALID_ARG, |l| l.errors.get(j).map(|e| e.1.code))
}

/// Failed broker `j`'s error text.
#[no_mangle]
pub extern "C" fn gregor_group_listings_error_errstr(
    l: *const gregor_group_listings,
    j: usize,
) -> *const c_char {
    get(l, ptr::null(), |l| {
        l.errors.get(j).map(|e| e.1.text.as_ptr())
    })
}

/// Frees group listings. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_group_listings_free(l: *mut gregor_group_listings) {
    guard((), || free(l))
}

struct CSub {
    version: i32,
    topics: Vec<CString>,
    user_data: Option<Vec<u8>>,
    owned: Vec<(CString, i32)>,
    generation_id: i32,
    rack_id: Option<CString>,
}

struct CAsg {
    version: i32,
    partitions: Vec<(CString, i32)>,
    user_data: Option<Vec<u8>>,
}

struct CMember {
    member_id: CString,
    group_instance_id: Option<CString>,
    client_id: CString,
    client_host: CString,
    metadata: Vec<u8>,
    assignment_bytes: Vec<u8>,
    sub: Option<CSub>,
    sub_err: CErr,
    asg: Option<CAsg>,
    asg_err: CErr,
}

struct CGroup {
    group_id: CString,
    err: CErr,
    state: CString,
    protocol_type: CString,
    protocol: CString,
    coordinator_id: i32,
    coordinator_host: CString,
    coordinator_port: i32,
    ops: Option<Vec<c_int>>,
    members: Vec<CMember>,
}

/// Described groups. Immutable.
pub struct gregor_group_descriptions {
    items: Vec<CGroup>,
}

fn ctps(ps: &[TopicPartition]) -> Vec<(CString, i32)> {
    ps.iter().map(|p| (cs(&p.topic), p.partition)).collect()
}

fn cmember(m: &MemberDescription) -> CMember {
    let (sub, sub_err) = match &m.subscription {
        Some(Ok(s)) => (
            Some(CSub {
                version: i32::from(s.version),
                topics: s.topics.iter().map(|t| cs(t)).collect(),
                user_data: s.user_data.clone(),
                owned: ctps(&s.owned_partitions),
                generation_id: s.generation_id.unwrap_or(-1),
                rack_id: cso(s.rack_id.as_deref()),
            }),
            cerr_of(None),
        ),
        Some(Err(e)) => (None, cerr_of(Some(e))),
        None => (None, cerr_of(None)),
    };
    let (asg, asg_err) = match &m.assignment {
        Some(Ok(a)) => (
            Some(CAsg {
                version: i32::from(a.version),
                partitions: ctps(&a.partitions),
                user_data: a.user_data.clone(),
            }),
            cerr_of(None),
        ),
        Some(Err(e)) => (None, cerr_of(Some(e))),
        None => (None, cerr_of(None)),
    };
    CMember {
        member_id: cs(&m.member_id),
        group_instance_id: cso(m.group_instance_id.as_deref()),
        client_id: cs(&m.client_id),
        client_host: cs(&m.client_host),
        metadata: m.metadata.clone(),
        assignment_bytes: m.assignment_bytes.clone(),
        sub,
        sub_err,
        asg,
        asg_err,
    }
}

/// Describes `count` groups at their coordinators (DescribeGroups, one
/// request per coordinator). For groups of protocol type "consumer" each
/// member's metadata and assignment are decoded (read them with the
/// `_member_subscription_*` and `_member_assignment_*` accessors; a member
/// whose bytes do not decode has its own `_err`, the rest of the group is
/// still described). Non-zero `include_authorized_operations` asks for the
/// client's operations on each group (v3+). On success `*out` receives one
/// description per distinct group, in order (caller owns; free with
/// `gregor_group_descriptions_free`). Blocks. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_describe_groups(
    admin: *const gregor_admin,
    groups: *const *const c_char,
    count: usize,
    include_authorized_operations: c_int,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_group_descriptions,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let gs = strs(groups, count, "groups")?;
        let r =
            a.inner
                .describe_groups(&gs, include_authorized_operations != 0, &opts_of(options)?)?;
        let items = r
            .iter()
            .map(|(id, res)| match res {
                Ok(g) => CGroup {
                    group_id: cs(id),
                    err: cerr_of(None),
                    state: cs(&g.state),
                    protocol_type: cs(&g.protocol_type),
                    protocol: cs(&g.protocol),
                    coordinator_id: g.coordinator.id,
                    coordinator_host: cs(&g.coordinator.host),
                    coordinator_port: g.coordinator.port,
                    ops: ops_ints(&g.authorized_operations),
                    members: g.members.iter().map(cmember).collect(),
                },
                Err(e) => CGroup {
                    group_id: cs(id),
                    err: cerr_of(Some(e)),
                    state: CString::default(),
                    protocol_type: CString::default(),
                    protocol: CString::default(),
                    coordinator_id: -1,
                    coordinator_host: CString::default(),
                    coordinator_port: -1,
                    ops: None,
                    members: Vec::new(),
                },
            })
            .collect();
        store(out, gregor_group_descriptions { items });
        Ok(())
    })
}

fn group_at<'a>(d: *const gregor_group_descriptions, i: usize) -> Option<&'a CGroup> {
    handle(d, "descriptions").ok()?.items.get(i)
}

fn member_at<'a>(d: *const gregor_group_descriptions, i: usize, m: usize) -> Option<&'a CMember> {
    group_at(d, i)?.members.get(m)
}

fn slice_of(b: Option<&[u8]>) -> gregor_slice {
    match b {
        Some(b) => gregor_slice {
            ptr: b.as_ptr(),
            len: b.len(),
        },
        None => gregor_slice {
            ptr: ptr::null(),
            len: 0,
        },
    }
}

/// Number of groups (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_count(d: *const gregor_group_descriptions) -> usize {
    get(d, 0, |d| Some(d.items.len()))
}

/// Group `i`'s ID.
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_group_id(
    d: *const gregor_group_descriptions,
    i: usize,
) -> *const c_char {
    guard(ptr::null(), || {
        group_at(d, i).map_or(ptr::null(), |g| g.group_id.as_ptr())
    })
}

/// Group `i`'s error code (e.g. `GREGOR_ERR_GROUP_AUTHORIZATION_FAILED`).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_err(
    d: *const gregor_group_descriptions,
    i: usize,
) -> c_int {
    guard(local::INVALID_ARG, || {
        group_at(d, i).map_or(local::INVALID_ARG, |g| g.err.code)
    })
}

/// Group `i`'s error text ("" on success).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_errstr(
    d: *const gregor_group_descriptions,
    i: usize,
) -> *const c_char {
    guard(ptr::null(), || {
        group_at(d, i).map_or(ptr::null(), |g| g.err.text.as_ptr())
    })
}

/// Group `i`'s state ("Stable", "Empty", "Dead", …).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_state(
    d: *const gregor_group_descriptions,
    i: usize,
) -> *const c_char {
    guard(ptr::null(), || {
        group_at(d, i).map_or(ptr::null(), |g| g.state.as_ptr())
    })
}

/// Group `i`'s protocol type ("consumer", …).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_protocol_type(
    d: *const gregor_group_descriptions,
    i: usize,
) -> *const c_char {
    guard(ptr::null(), || {
        group_at(d, i).map_or(ptr::null(), |g| g.protocol_type.as_ptr())
    })
}

/// Group `i`'s chosen protocol (for consumers the assignor; "" unless Stable).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_protocol(
    d: *const gregor_group_descriptions,
    i: usize,
) -> *const c_char {
    guard(ptr::null(), || {
        group_at(d, i).map_or(ptr::null(), |g| g.protocol.as_ptr())
    })
}

/// Group `i`'s coordinator: writes its broker id, host (borrowed) and port
/// to the non-NULL out-parameters. Returns 0, or `GREGOR_ERR__INVALID_ARG`
/// out of range.
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_coordinator(
    d: *const gregor_group_descriptions,
    i: usize,
    id: *mut i32,
    host: *mut *const c_char,
    port: *mut i32,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let g = group_at(d, i).ok_or_else(|| Error::invalid_arg("index out of range"))?;
        put(id, g.coordinator_id);
        put(host, g.coordinator_host.as_ptr());
        put(port, g.coordinator_port);
        Ok(())
    })
}

/// Copies up to `max` of group `i`'s authorized operations
/// (`GREGOR_ACL_OPERATION_*`) into `out`; returns how many there are, or
/// -1 if they were not asked for or not known.
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_authorized_operations(
    d: *const gregor_group_descriptions,
    i: usize,
    out: *mut c_int,
    max: usize,
) -> c_int {
    guard(-1, || {
        group_at(d, i).map_or(-1, |g| copy_ops(&g.ops, out, max))
    })
}

/// Number of members of group `i`.
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_count(
    d: *const gregor_group_descriptions,
    i: usize,
) -> usize {
    guard(0, || group_at(d, i).map_or(0, |g| g.members.len()))
}

/// Group `i`, member `m`: its member ID.
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_id(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
) -> *const c_char {
    guard(ptr::null(), || {
        member_at(d, i, m).map_or(ptr::null(), |x| x.member_id.as_ptr())
    })
}

/// Group `i`, member `m`: its static group instance ID (NULL if none).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_group_instance_id(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
) -> *const c_char {
    guard(ptr::null(), || {
        member_at(d, i, m).map_or(ptr::null(), |x| cptr(&x.group_instance_id))
    })
}

/// Group `i`, member `m`: its client ID.
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_client_id(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
) -> *const c_char {
    guard(ptr::null(), || {
        member_at(d, i, m).map_or(ptr::null(), |x| x.client_id.as_ptr())
    })
}

/// Group `i`, member `m`: its host.
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_client_host(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
) -> *const c_char {
    guard(ptr::null(), || {
        member_at(d, i, m).map_or(ptr::null(), |x| x.client_host.as_ptr())
    })
}

/// Group `i`, member `m`: its metadata bytes as sent (borrowed; `len` 0 if none).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_metadata(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
) -> gregor_slice {
    guard(slice_of(None), || {
        slice_of(member_at(d, i, m).map(|x| &x.metadata[..]))
    })
}

/// Group `i`, member `m`: its assignment bytes as sent (borrowed).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_assignment_bytes(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
) -> gregor_slice {
    guard(slice_of(None), || {
        slice_of(member_at(d, i, m).map(|x| &x.assignment_bytes[..]))
    })
}

/// Group `i`, member `m`: 0 unless its metadata failed to decode as a
/// consumer protocol subscription (then `GREGOR_ERR__BAD_MSG`, with the
/// reason in `_member_subscription_errstr`).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_subscription_err(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
) -> c_int {
    guard(local::INVALID_ARG, || {
        member_at(d, i, m).map_or(local::INVALID_ARG, |x| x.sub_err.code)
    })
}

/// Group `i`, member `m`: why its subscription did not decode ("" if it did).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_subscription_errstr(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
) -> *const c_char {
    guard(ptr::null(), || {
        member_at(d, i, m).map_or(ptr::null(), |x| x.sub_err.text.as_ptr())
    })
}

fn sub_at<'a>(d: *const gregor_group_descriptions, i: usize, m: usize) -> Option<&'a CSub> {
    member_at(d, i, m)?.sub.as_ref()
}

fn asg_at<'a>(d: *const gregor_group_descriptions, i: usize, m: usize) -> Option<&'a CAsg> {
    member_at(d, i, m)?.asg.as_ref()
}

/// Group `i`, member `m`: the consumer protocol version of its decoded
/// subscription, or -1 if there is none (not the "consumer" protocol
/// type, no metadata sent, or it failed to decode).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_subscription_version(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
) -> c_int {
    guard(-1, || sub_at(d, i, m).map_or(-1, |s| s.version))
}

/// Number of topics member `m` of group `i` subscribes to (0 if no subscription).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_subscription_topic_count(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
) -> usize {
    guard(0, || sub_at(d, i, m).map_or(0, |s| s.topics.len()))
}

/// Subscribed topic `k` of member `m` of group `i`.
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_subscription_topic(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
    k: usize,
) -> *const c_char {
    guard(ptr::null(), || {
        sub_at(d, i, m)
            .and_then(|s| s.topics.get(k))
            .map_or(ptr::null(), |t| t.as_ptr())
    })
}

/// Number of partitions member `m` of group `i` owned when it joined
/// (subscription v1+).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_owned_count(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
) -> usize {
    guard(0, || sub_at(d, i, m).map_or(0, |s| s.owned.len()))
}

/// Owned partition `k` of member `m` of group `i`: writes its topic
/// (borrowed) and partition. Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_owned(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
    k: usize,
    topic: *mut *const c_char,
    partition: *mut i32,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let (t, p) = sub_at(d, i, m)
            .and_then(|s| s.owned.get(k))
            .ok_or_else(|| Error::invalid_arg("index out of range"))?;
        put(topic, t.as_ptr());
        put(partition, *p);
        Ok(())
    })
}

/// Member `m` of group `i`: the generation of its owned partitions
/// (subscription v2+; -1 if none).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_generation_id(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
) -> i32 {
    guard(-1, || sub_at(d, i, m).map_or(-1, |s| s.generation_id))
}

/// Member `m` of group `i`: its rack (subscription v3+; NULL if none).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_rack_id(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
) -> *const c_char {
    guard(ptr::null(), || {
        sub_at(d, i, m).map_or(ptr::null(), |s| cptr(&s.rack_id))
    })
}

/// Member `m` of group `i`: its subscription's user data (borrowed; `ptr`
/// NULL if none).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_subscription_user_data(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
) -> gregor_slice {
    guard(slice_of(None), || {
        slice_of(sub_at(d, i, m).and_then(|s| s.user_data.as_deref()))
    })
}

/// Group `i`, member `m`: 0 unless its assignment failed to decode (then
/// `GREGOR_ERR__BAD_MSG`, reason in `_member_assignment_errstr`).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_assignment_err(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
) -> c_int {
    guard(local::INVALID_ARG, || {
        member_at(d, i, m).map_or(local::INVALID_ARG, |x| x.asg_err.code)
    })
}

/// Group `i`, member `m`: why its assignment did not decode ("" if it did).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_assignment_errstr(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
) -> *const c_char {
    guard(ptr::null(), || {
        member_at(d, i, m).map_or(ptr::null(), |x| x.asg_err.text.as_ptr())
    })
}

/// Group `i`, member `m`: the consumer protocol version of its decoded
/// assignment, or -1 if there is none.
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_assignment_version(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
) -> c_int {
    guard(-1, || asg_at(d, i, m).map_or(-1, |a| a.version))
}

/// Number of partitions assigned to member `m` of group `i` (0 if no assignment).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_assignment_count(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
) -> usize {
    guard(0, || asg_at(d, i, m).map_or(0, |a| a.partitions.len()))
}

/// Assigned partition `k` of member `m` of group `i`: writes its topic
/// (borrowed) and partition. Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_assignment_partition(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
    k: usize,
    topic: *mut *const c_char,
    partition: *mut i32,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let (t, p) = asg_at(d, i, m)
            .and_then(|a| a.partitions.get(k))
            .ok_or_else(|| Error::invalid_arg("index out of range"))?;
        put(topic, t.as_ptr());
        put(partition, *p);
        Ok(())
    })
}

/// Member `m` of group `i`: its assignment's user data (borrowed; `ptr`
/// NULL if none).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_assignment_user_data(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
) -> gregor_slice {
    guard(slice_of(None), || {
        slice_of(asg_at(d, i, m).and_then(|a| a.user_data.as_deref()))
    })
}

/// Frees group descriptions. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_free(d: *mut gregor_group_descriptions) {
    guard((), || free(d))
}

/// Per-group results of deleting groups. Immutable.
pub struct gregor_group_results {
    items: Vec<(CString, CErr)>,
}

/// Deletes `count` groups at their coordinators (DeleteGroups; a group
/// with members answers `GREGOR_ERR_NON_EMPTY_GROUP`). On success `*out`
/// receives one result per distinct group, in order (caller owns; free with
/// `gregor_group_results_free`). Blocks. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_delete_groups(
    admin: *const gregor_admin,
    groups: *const *const c_char,
    count: usize,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_group_results,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let gs = strs(groups, count, "groups")?;
        let r = a.inner.delete_groups(&gs, &opts_of(options)?)?;
        store(
            out,
            gregor_group_results {
                items: r.iter().map(|(g, res)| (cs(g), cerr(res))).collect(),
            },
        );
        Ok(())
    })
}

/// Number of results (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_group_results_count(r: *const gregor_group_results) -> usize {
    get(r, 0, |r| Some(r.items.len()))
}

/// Result `i`'s group ID.
#[no_mangle]
pub extern "C" fn gregor_group_results_group_id(
    r: *const gregor_group_results,
    i: usize,
) -> *const c_char {
    get(r, ptr::null(), |r| r.items.get(i).map(|x| x.0.as_ptr()))
}

/// Result `i`'s error code (0 on success).
#[no_mangle]
pub extern "C" fn gregor_group_results_err(r: *const gregor_group_results, i: usize) -> c_int {
    get(r, local::INVALID_ARG, |r| r.items.get(i).map(|x| x.1.code))
}

/// Result `i`'s error text ("" on success).
#[no_mangle]
pub extern "C" fn gregor_group_results_errstr(
    r: *const gregor_group_results,
    i: usize,
) -> *const c_char {
    get(r, ptr::null(), |r| {
        r.items.get(i).map(|x| x.1.text.as_ptr())
    })
}

/// Frees group results. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_group_results_free(r: *mut gregor_group_results) {
    guard((), || free(r))
}

/// Reads `group`'s committed offsets (OffsetFetch at its coordinator): of
/// the partitions of `partitions` (offsets ignored; one result each, in
/// order, offset -1 where none is committed), or of every partition the
/// group has offsets for when `partitions` is NULL. Non-zero
/// `require_stable` waits out pending transactional offsets (v7+). Each
/// result has offset, leader epoch and metadata
/// (`gregor_partition_results_metadata`). A group-level error (e.g.
/// `GREGOR_ERR_GROUP_AUTHORIZATION_FAILED`) is the return code. On success
/// `*out` receives the results (caller owns; free with
/// `gregor_partition_results_free`). Blocks. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_list_group_offsets(
    admin: *const gregor_admin,
    group: *const c_char,
    partitions: *const gregor_tpl,
    require_stable: c_int,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_partition_results,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let g = c_str(group, "group")?;
        let ps = if partitions.is_null() {
            None
        } else {
            Some(tps(handle(partitions, "partitions")?))
        };
        let r = a.inner.list_group_offsets(
            g,
            ps.as_deref(),
            require_stable != 0,
            &opts_of(options)?,
        )?;
        store(
            out,
            part_results(&r, |o, it| {
                it.offset = o.offset;
                it.leader_epoch = o.leader_epoch.unwrap_or(-1);
                it.metadata = cso(o.metadata.as_deref());
            }),
        );
        Ok(())
    })
}

/// Sets `group`'s committed offsets (an admin OffsetCommit: generation -1,
/// no member, so the group must have no active members): each entry of
/// `offsets` is committed with its offset and leader epoch (if set), and
/// `metadata[i]` for entry `i` when `metadata` is not NULL (NULL entries:
/// none). On success `*out` receives one result per distinct partition, in
/// order (caller owns; free with `gregor_partition_results_free`). Blocks.
/// Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_alter_group_offsets(
    admin: *const gregor_admin,
    group: *const c_char,
    offsets: *const gregor_tpl,
    metadata: *const *const c_char,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_partition_results,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let g = c_str(group, "group")?;
        let l = handle(offsets, "offsets")?;
        let mds: Vec<Option<String>> = if metadata.is_null() {
            vec![None; l.inner.len()]
        } else {
            slice(metadata, l.inner.len(), "metadata")?
                .iter()
                .map(|p| opt_str(*p, "metadata"))
                .collect::<Result<_>>()?
        };
        let items: Vec<(TopicPartition, OffsetAndMetadata)> = l
            .inner
            .iter()
            .zip(mds)
            .map(|(t, md)| {
                (
                    TopicPartition::new(t.topic.clone(), t.partition),
                    OffsetAndMetadata {
                        offset: t.offset,
                        leader_epoch: t.leader_epoch,
                        metadata: md,
                    },
                )
            })
            .collect();
        let r = a.inner.alter_group_offsets(g, &items, &opts_of(options)?)?;
        store(out, part_results(&r, |(), _| {}));
        Ok(())
    })
}

/// Deletes `group`'s committed offsets of the partitions of `partitions`
/// (offsets ignored; OffsetDelete, KIP-496). A group-level error (e.g.
/// `GREGOR_ERR_GROUP_ID_NOT_FOUND`, or `GREGOR_ERR__UNSUPPORTED_FEATURE`
/// from a broker without OffsetDelete) is the return code; per partition
/// e.g. `GREGOR_ERR_GROUP_SUBSCRIBED_TO_TOPIC`. On success `*out` receives
/// one result per distinct partition (caller owns; free with
/// `gregor_partition_results_free`). Blocks. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_delete_group_offsets(
    admin: *const gregor_admin,
    group: *const c_char,
    partitions: *const gregor_tpl,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_partition_results,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let g = c_str(group, "group")?;
        let ps = tps(handle(partitions, "partitions")?);
        let r = a.inner.delete_group_offsets(g, &ps, &opts_of(options)?)?;
        store(out, part_results(&r, |(), _| {}));
        Ok(())
    })
}
