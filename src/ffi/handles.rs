//! The exported functions and their opaque handles.

use std::ffi::{c_char, c_int, CString};
use std::ptr;
use std::sync::OnceLock;
use std::time::Duration;

use super::guard::{
    bytes, c_str, copy_out, free, get, guard, guard_code, handle, handle_mut, null_arg, put,
    static_cstr, write_errstr,
};
use super::lifetime::{destroy, destroyed_error, enter, handle_registry, register, Handle, Life};
use crate::cluster::Metadata;
use crate::config::Config;
use crate::consumer::{Consumer, TopicPartitionOffset};
use crate::error::{code_description, code_name, local, Error};
use crate::message::{Message, ProducerRecord};
use crate::producer::Producer;
use crate::protocol::error_code::ERROR_TABLE;
use crate::record::TimestampType;

/// A borrowed view of bytes owned by gregor: `ptr` is NULL for a null
/// key/value, else `len` bytes valid as long as the object it came from.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct gregor_slice {
    /// First byte, or NULL for null.
    pub ptr: *const u8,
    /// Number of bytes.
    pub len: usize,
}

impl gregor_slice {
    fn of(b: Option<&[u8]>) -> Self {
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
}

/// Configuration properties (librdkafka's names). Not thread-safe.
pub struct gregor_config {
    pub(crate) inner: Config,
}

/// Message headers for producing: an ordered list of (name, value or null).
pub struct gregor_headers {
    pub(crate) inner: Vec<(String, Option<Vec<u8>>)>,
}

/// A producer. Thread-safe.
pub struct gregor_producer {
    pub(crate) inner: Producer,
    life: Life,
}

impl Handle for gregor_producer {
    const NAME: &'static str = "producer";
    handle_registry!();
    fn life(&self) -> &Life {
        &self.life
    }
    fn shutdown(&self) {
        self.inner.shut_down();
    }
}

/// A consumer. Thread-safe.
pub struct gregor_consumer {
    pub(crate) inner: Consumer,
    life: Life,
}

impl Handle for gregor_consumer {
    const NAME: &'static str = "consumer";
    handle_registry!();
    fn life(&self) -> &Life {
        &self.life
    }
    /// Callbacks off (nothing may call into the application from the
    /// freeing thread), then close: a group member commits and leaves;
    /// polls blocked elsewhere return. Then the connections close for good.
    fn shutdown(&self) {
        self.inner.clear_rebalance_callback();
        self.inner.clear_commit_callback();
        self.inner.set_stats_callback(None);
        self.inner.close();
        self.inner.cluster().shutdown();
    }
}

/// A list of topic/partition/offset entries.
pub struct gregor_tpl {
    pub(crate) inner: Vec<TopicPartitionOffset>,
    /// NUL-terminated topic names, by entry.
    pub(crate) names: Vec<CString>,
    /// NUL-terminated commit metadata, by entry (None: no metadata).
    pub(crate) metas: Vec<Option<CString>>,
}

impl gregor_tpl {
    /// A list of `inner`'s entries.
    pub(crate) fn from_entries(inner: Vec<TopicPartitionOffset>) -> Self {
        let mut l = gregor_tpl {
            inner,
            names: Vec::new(),
            metas: Vec::new(),
        };
        l.sync();
        l
    }

    /// Rebuilds the C strings from the entries.
    pub(crate) fn sync(&mut self) {
        self.names = self
            .inner
            .iter()
            .map(|e| CString::new(e.topic.as_str()).unwrap_or_default())
            .collect();
        self.metas = self
            .inner
            .iter()
            .map(|e| {
                e.metadata
                    .as_ref()
                    .map(|m| CString::new(m.as_str()).unwrap_or_default())
            })
            .collect();
    }
}

/// A consumed message or consumer event. Immutable; thread-safe to read.
pub struct gregor_message {
    pub(crate) inner: Message,
    /// Made on first use: most consumers never ask.
    pub(crate) topic: OnceLock<CString>,
    pub(crate) errstr: OnceLock<CString>,
    /// A delivery report's message: its status and latency (µs), see
    /// src/ffi/purge.rs. `None` for a consumed message.
    pub(crate) produced: Option<(crate::message::MessageStatus, i64)>,
}

/// A metadata snapshot. Immutable; thread-safe to read.
pub struct gregor_metadata {
    md: Metadata,
    brokers: Vec<(i32, CString, i32)>,
    /// (name, ID text, topic) in name order.
    topics: Vec<(CString, CString, crate::cluster::TopicInfo)>,
    cluster_id: Option<CString>,
}

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

// ----- configuration -----

/// A new, empty configuration (every property at its default). Caller owns
/// it: free with `gregor_config_free`. Returns NULL only on allocation failure.
#[no_mangle]
pub extern "C" fn gregor_config_new() -> *mut gregor_config {
    guard(ptr::null_mut(), || {
        Box::into_raw(Box::new(gregor_config {
            inner: Config::new(),
        }))
    })
}

/// Sets property `key` to `value`. Returns 0, or `GREGOR_ERR__INVALID_CONFIG`
/// (-145) for an unknown property or a bad value, with the reason in
/// `errstr`; `GREGOR_ERR__INVALID_ARG` for NULL arguments. Borrows all
/// arguments. Not thread-safe for one `conf`.
#[no_mangle]
pub extern "C" fn gregor_config_set(
    conf: *mut gregor_config,
    key: *const c_char,
    value: *const c_char,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let conf = handle_mut(conf, "conf")?;
        let key = c_str(key, "key")?;
        let value = c_str(value, "value")?;
        conf.inner.set(key, value).map(|_| ())
    })
}

/// Copies the value of property `key` (or its default) into `dest`, a buffer
/// of `*dest_size` bytes, NUL-terminated; sets `*dest_size` to the size needed
/// (value length + 1). Returns 0, `GREGOR_ERR__INVALID_CONFIG` for an unknown
/// property, `GREGOR_ERR__INVALID_ARG` for NULL `conf`/`key`/`dest_size`.
/// `dest` may be NULL to ask for the size.
#[no_mangle]
pub extern "C" fn gregor_config_get(
    conf: *const gregor_config,
    key: *const c_char,
    dest: *mut c_char,
    dest_size: *mut usize,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let conf = handle(conf, "conf")?;
        let key = c_str(key, "key")?;
        let v = conf.inner.get(key).ok_or_else(|| Error::Config {
            key: key.to_string(),
            reason: "no such configuration property".into(),
        })?;
        let size = get(dest_size, "dest_size")?;
        write_errstr(dest, size, v);
        put(dest_size, v.len() + 1);
        Ok(())
    })
}

/// Frees a configuration. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_config_free(conf: *mut gregor_config) {
    guard((), || free(conf))
}

// ----- headers -----

/// A new, empty header list. Caller owns it: free with `gregor_headers_free`.
#[no_mangle]
pub extern "C" fn gregor_headers_new() -> *mut gregor_headers {
    guard(ptr::null_mut(), || {
        Box::into_raw(Box::new(gregor_headers { inner: Vec::new() }))
    })
}

/// Appends a header: `name` (UTF-8, NUL-terminated) and `value_len` bytes at
/// `value`, or a null value if `value` is NULL. Copies both. Returns 0 or
/// `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_headers_add(
    headers: *mut gregor_headers,
    name: *const c_char,
    value: *const u8,
    value_len: usize,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let h = handle_mut(headers, "headers")?;
        let name = c_str(name, "name")?;
        h.inner.push((
            name.to_string(),
            bytes(value, value_len).map(<[u8]>::to_vec),
        ));
        Ok(())
    })
}

/// Frees a header list. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_headers_free(headers: *mut gregor_headers) {
    guard((), || free(headers))
}

// ----- producer -----

/// A new producer configured by `conf` (copied; the caller keeps and frees
/// `conf`). Returns NULL on a bad configuration, with the reason in `errstr`.
/// Does not connect yet. Caller owns the producer: free with `gregor_producer_free`.
#[no_mangle]
pub extern "C" fn gregor_producer_new(
    conf: *const gregor_config,
    errstr: *mut c_char,
    errstr_size: usize,
) -> *mut gregor_producer {
    let mut out = ptr::null_mut();
    guard_code(errstr, errstr_size, || {
        let conf = handle(conf, "conf")?;
        let p = Producer::new(&conf.inner)?;
        out = register(Box::new(gregor_producer {
            inner: p,
            life: Life::new(),
        }));
        Ok(())
    });
    out
}

/// Sends one message and blocks until the broker acknowledges it or
/// `timeout_ms` passes (-1: `message.timeout.ms`), retrying retriable errors.
/// `partition` -1 lets the partitioner choose. `key`/`value` NULL mean null
/// (a NULL value is a tombstone); `headers` may be NULL; `timestamp_ms` 0
/// means now. On success writes the partition and offset (offset -1 with
/// acks=0) to the non-NULL out-parameters and returns 0; else the error code,
/// with the reason in `errstr`. Borrows everything. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_producer_send_sync(
    producer: *const gregor_producer,
    topic: *const c_char,
    partition: i32,
    key: *const u8,
    key_len: usize,
    value: *const u8,
    value_len: usize,
    headers: *const gregor_headers,
    timestamp_ms: i64,
    timeout_ms: c_int,
    partition_out: *mut i32,
    offset_out: *mut i64,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let p = enter(producer)?;
        let topic = c_str(topic, "topic")?;
        if partition < -1 {
            return Err(Error::invalid_arg(format!("invalid partition {partition}")));
        }
        let hs: Vec<(&str, Option<&[u8]>)> = if headers.is_null() {
            Vec::new()
        } else {
            handle(headers, "headers")?
                .inner
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_deref()))
                .collect()
        };
        let rec = ProducerRecord {
            topic,
            partition: (partition >= 0).then_some(partition),
            key: bytes(key, key_len),
            value: bytes(value, value_len),
            headers: &hs,
            timestamp: (timestamp_ms != 0).then_some(timestamp_ms),
        };
        let timeout = (timeout_ms >= 0).then(|| Duration::from_millis(timeout_ms as u64));
        let d = p.inner.send_sync(&rec, timeout)?;
        put(partition_out, d.partition);
        put(offset_out, d.offset);
        Ok(())
    })
}

/// Fetches cluster metadata through a producer: all topics if `topic` is
/// NULL, else that one. On success `*metadata` receives a snapshot the caller
/// owns (free with `gregor_metadata_free`). Blocks up to `timeout_ms`.
#[no_mangle]
pub extern "C" fn gregor_producer_metadata(
    producer: *const gregor_producer,
    topic: *const c_char,
    timeout_ms: c_int,
    metadata: *mut *mut gregor_metadata,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let p = enter(producer)?;
        metadata_of(p.inner.cluster(), topic, timeout_ms, metadata)
    })
}

/// Frees a producer, closing its connections and waiting for their I/O
/// threads to end; messages not delivered yet get `GREGOR_ERR__DESTROY`
/// reports (served to the delivery callback on this thread). NULL is a no-op.
///
/// Lifetime: safe while other threads are inside calls on the handle (see
/// the header's preamble): new calls fail with `GREGOR_ERR__DESTROY`, calls
/// in flight are woken and return `GREGOR_ERR__DESTROY`, and this waits for
/// them to leave before releasing anything. A second free of the same
/// pointer is a no-op.
#[no_mangle]
pub extern "C" fn gregor_producer_free(producer: *mut gregor_producer) {
    guard((), || destroy(producer))
}

// ----- topic partition lists -----

/// A new, empty topic/partition/offset list. Caller owns it: free with `gregor_tpl_free`.
#[no_mangle]
pub extern "C" fn gregor_tpl_new() -> *mut gregor_tpl {
    guard(ptr::null_mut(), || {
        Box::into_raw(Box::new(gregor_tpl::from_entries(Vec::new())))
    })
}

/// Appends (topic, partition, offset). `offset` is absolute or one of
/// `GREGOR_OFFSET_BEGINNING` (-2), `GREGOR_OFFSET_END` (-1), or
/// `GREGOR_OFFSET_TAIL_BASE - n` (n before the end). Copies `topic`.
/// Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_tpl_add(
    tpl: *mut gregor_tpl,
    topic: *const c_char,
    partition: i32,
    offset: i64,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let l = handle_mut(tpl, "tpl")?;
        let topic = c_str(topic, "topic")?;
        l.inner
            .push(TopicPartitionOffset::new(topic, partition, offset));
        l.names.push(CString::new(topic).unwrap_or_default());
        l.metas.push(None);
        Ok(())
    })
}

/// Number of entries (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_tpl_count(tpl: *const gregor_tpl) -> usize {
    guard(0, || handle(tpl, "tpl").map_or(0, |l| l.inner.len()))
}

/// Frees a list. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_tpl_free(tpl: *mut gregor_tpl) {
    guard((), || free(tpl))
}

// ----- consumer -----

/// A new consumer configured by `conf` (copied). Returns NULL on a bad
/// configuration, with the reason in `errstr`. Caller owns it: free with
/// `gregor_consumer_free`.
#[no_mangle]
pub extern "C" fn gregor_consumer_new(
    conf: *const gregor_config,
    errstr: *mut c_char,
    errstr_size: usize,
) -> *mut gregor_consumer {
    let mut out = ptr::null_mut();
    guard_code(errstr, errstr_size, || {
        let conf = handle(conf, "conf")?;
        out = register(Box::new(gregor_consumer {
            inner: Consumer::new(&conf.inner)?,
            life: Life::new(),
        }));
        Ok(())
    });
    out
}

/// Replaces the consumer's assignment with `tpl` (copied; NULL or empty
/// unassigns). Returns 0 or `GREGOR_ERR__INVALID_ARG`. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_consumer_assign(
    consumer: *const gregor_consumer,
    tpl: *const gregor_tpl,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let c = enter(consumer)?;
        let list = if tpl.is_null() {
            &[][..]
        } else {
            &handle(tpl, "tpl")?.inner[..]
        };
        c.inner.assign(list)
    })
}

/// Waits up to `timeout_ms` for the next message. Returns a message the
/// caller owns (free with `gregor_message_free`), or NULL on timeout (or a
/// NULL consumer). Errors come as messages whose `gregor_message_err` is
/// non-zero, as in librdkafka. Thread-safe; blocks.
#[no_mangle]
pub extern "C" fn gregor_consumer_poll(
    consumer: *const gregor_consumer,
    timeout_ms: c_int,
) -> *mut gregor_message {
    guard(ptr::null_mut(), || {
        let c = match enter(consumer) {
            Ok(c) => c,
            Err(e) if e.code() == local::DESTROY => {
                return into_handle(Message::event("".into(), -1, -1, e))
            }
            Err(_) => return ptr::null_mut(),
        };
        let timeout = Duration::from_millis(timeout_ms.max(0) as u64);
        let r = c.inner.poll(timeout);
        if c.life().is_destroyed() {
            // freed while polling: whatever came is moot
            let e = destroyed_error(gregor_consumer::NAME);
            return into_handle(Message::event("".into(), -1, -1, e));
        }
        let msg = match r {
            Ok(Some(m)) => m,
            Ok(None) => return ptr::null_mut(),
            Err(e) => Message::event("".into(), -1, -1, e),
        };
        into_handle(msg)
    })
}

/// Low and high watermarks of a partition, asked of its leader. Blocks up to
/// `timeout_ms`. Writes the non-NULL out-parameters on success.
#[no_mangle]
pub extern "C" fn gregor_consumer_watermarks(
    consumer: *const gregor_consumer,
    topic: *const c_char,
    partition: i32,
    low: *mut i64,
    high: *mut i64,
    timeout_ms: c_int,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let c = enter(consumer)?;
        let topic = c_str(topic, "topic")?;
        let (lo, hi) = c.inner.watermarks(
            topic,
            partition,
            Duration::from_millis(timeout_ms.max(0) as u64),
        )?;
        put(low, lo);
        put(high, hi);
        Ok(())
    })
}

/// As `gregor_producer_metadata`, through a consumer.
#[no_mangle]
pub extern "C" fn gregor_consumer_metadata(
    consumer: *const gregor_consumer,
    topic: *const c_char,
    timeout_ms: c_int,
    metadata: *mut *mut gregor_metadata,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let c = enter(consumer)?;
        metadata_of(c.inner.cluster(), topic, timeout_ms, metadata)
    })
}

/// Frees a consumer, closing its connections and waiting for their I/O
/// threads to end (a group member not closed yet commits and leaves, as
/// `gregor_consumer_close`, without running callbacks). NULL is a no-op.
///
/// Lifetime: safe while other threads are inside calls on the handle (see
/// the header's preamble): new calls fail with `GREGOR_ERR__DESTROY`, calls
/// in flight are woken and return `GREGOR_ERR__DESTROY`, and this waits for
/// them to leave before releasing anything. A second free of the same
/// pointer is a no-op.
/// From inside one of the consumer's own callbacks it is a no-op (misuse:
/// the handle is in use there, and the free would wait for itself).
#[no_mangle]
pub extern "C" fn gregor_consumer_free(consumer: *mut gregor_consumer) {
    guard((), || destroy(consumer))
}

// ----- messages -----

pub(crate) fn into_handle(msg: Message) -> *mut gregor_message {
    Box::into_raw(Box::new(gregor_message {
        inner: msg,
        topic: OnceLock::new(),
        errstr: OnceLock::new(),
        produced: None,
    }))
}

/// The message's topic, NUL-terminated, valid until the message is freed
/// (empty string for a NULL message).
#[no_mangle]
pub extern "C" fn gregor_message_topic(msg: *const gregor_message) -> *const c_char {
    guard(static_cstr(c""), || {
        handle(msg, "msg").map_or(static_cstr(c""), |m| {
            m.topic
                .get_or_init(|| CString::new(m.inner.topic.as_bytes()).unwrap_or_default())
                .as_ptr()
        })
    })
}

/// The message's partition (-1 for NULL).
#[no_mangle]
pub extern "C" fn gregor_message_partition(msg: *const gregor_message) -> i32 {
    guard(-1, || handle(msg, "msg").map_or(-1, |m| m.inner.partition))
}

/// The message's offset (-1 for NULL).
#[no_mangle]
pub extern "C" fn gregor_message_offset(msg: *const gregor_message) -> i64 {
    guard(-1, || handle(msg, "msg").map_or(-1, |m| m.inner.offset))
}

/// The key: `ptr` NULL for a null key. Valid until the message is freed.
#[no_mangle]
pub extern "C" fn gregor_message_key(msg: *const gregor_message) -> gregor_slice {
    guard(gregor_slice::of(None), || {
        gregor_slice::of(handle(msg, "msg").ok().and_then(|m| m.inner.key.as_deref()))
    })
}

/// The value: `ptr` NULL for a null value. Valid until the message is freed.
#[no_mangle]
pub extern "C" fn gregor_message_value(msg: *const gregor_message) -> gregor_slice {
    guard(gregor_slice::of(None), || {
        gregor_slice::of(
            handle(msg, "msg")
                .ok()
                .and_then(|m| m.inner.value.as_deref()),
        )
    })
}

/// The timestamp in ms since the epoch (-1 if none); writes its type to
/// `*tstype` if not NULL: 0 not available, 1 create time, 2 log append time.
#[no_mangle]
pub extern "C" fn gregor_message_timestamp(msg: *const gregor_message, tstype: *mut c_int) -> i64 {
    guard(-1, || match handle(msg, "msg") {
        Ok(m) => {
            put(
                tstype,
                match m.inner.timestamp_type {
                    TimestampType::NotAvailable => 0,
                    TimestampType::CreateTime => 1,
                    TimestampType::LogAppendTime => 2,
                },
            );
            m.inner.timestamp
        }
        Err(_) => -1,
    })
}

/// The leader epoch of the message's batch, or -1.
#[no_mangle]
pub extern "C" fn gregor_message_leader_epoch(msg: *const gregor_message) -> i32 {
    guard(-1, || {
        handle(msg, "msg")
            .ok()
            .and_then(|m| m.inner.leader_epoch)
            .unwrap_or(-1)
    })
}

/// Number of headers (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_message_header_count(msg: *const gregor_message) -> usize {
    guard(0, || {
        handle(msg, "msg").map_or(0, |m| m.inner.headers.len())
    })
}

/// Header `idx`: its name (not NUL-terminated) and value (`ptr` NULL for a
/// null value), valid until the message is freed. Returns 0, or
/// `GREGOR_ERR__INVALID_ARG` for a NULL `msg` or `idx` out of range (then
/// nothing is written). `name` and `value` may each be NULL if not wanted.
#[no_mangle]
pub extern "C" fn gregor_message_header(
    msg: *const gregor_message,
    idx: usize,
    name: *mut gregor_slice,
    value: *mut gregor_slice,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let m = handle(msg, "msg")?;
        let h = m
            .inner
            .headers
            .get(idx)
            .ok_or_else(|| Error::invalid_arg(format!("header index {idx} out of range")))?;
        put(name, gregor_slice::of(Some(&h.key)));
        put(value, gregor_slice::of(h.value.as_deref()));
        Ok(())
    })
}

/// 0 for a message; the error code for an error or event (e.g.
/// `GREGOR_ERR__PARTITION_EOF`). `GREGOR_ERR__INVALID_ARG` for NULL.
#[no_mangle]
pub extern "C" fn gregor_message_err(msg: *const gregor_message) -> c_int {
    guard(local::FAIL, || match handle(msg, "msg") {
        Ok(m) => m.inner.error.as_deref().map_or(0, Error::code),
        Err(e) => e.code(),
    })
}

/// The error's text, NUL-terminated ("" for a message without error), valid
/// until the message is freed.
#[no_mangle]
pub extern "C" fn gregor_message_errstr(msg: *const gregor_message) -> *const c_char {
    guard(static_cstr(c""), || {
        handle(msg, "msg").map_or(static_cstr(c""), |m| {
            m.errstr
                .get_or_init(|| {
                    CString::new(
                        m.inner
                            .error
                            .as_ref()
                            .map_or(String::new(), ToString::to_string),
                    )
                    .unwrap_or_default()
                })
                .as_ptr()
        })
    })
}

/// Frees a message. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_message_free(msg: *mut gregor_message) {
    guard((), || free(msg))
}

// ----- metadata -----

pub(crate) fn metadata_of(
    cluster: &crate::cluster::Cluster,
    topic: *const c_char,
    timeout_ms: c_int,
    out: *mut *mut gregor_metadata,
) -> Result<(), Error> {
    if out.is_null() {
        return Err(null_arg("metadata"));
    }
    let timeout = Duration::from_millis(timeout_ms.max(0) as u64);
    let md = if topic.is_null() {
        cluster.fetch_metadata(None, false, timeout)?
    } else {
        let t = c_str(topic, "topic")?;
        cluster.fetch_metadata(Some(&[t]), false, timeout)?
    };
    let brokers = md
        .brokers
        .values()
        .map(|b| {
            (
                b.id,
                CString::new(b.host.as_bytes()).unwrap_or_default(),
                b.port,
            )
        })
        .collect();
    let topics = md
        .topics
        .values()
        .map(|t| {
            (
                CString::new(t.name.as_bytes()).unwrap_or_default(),
                CString::new(t.id.to_kafka_string()).unwrap_or_default(),
                t.clone(),
            )
        })
        .collect();
    let cluster_id = md
        .cluster_id
        .as_ref()
        .map(|c| CString::new(c.as_bytes()).unwrap_or_default());
    put(
        out,
        Box::into_raw(Box::new(gregor_metadata {
            md,
            brokers,
            topics,
            cluster_id,
        })),
    );
    Ok(())
}

fn topic_at<'a>(md: *const gregor_metadata, t: usize) -> Option<&'a crate::cluster::TopicInfo> {
    let m: &'a gregor_metadata = handle(md, "metadata").ok()?;
    m.topics.get(t).map(|x| &x.2)
}

fn partition_at<'a>(
    md: *const gregor_metadata,
    t: usize,
    p: usize,
) -> Option<&'a crate::cluster::PartitionInfo> {
    topic_at(md, t).and_then(|ti| ti.partitions.get(p))
}

/// Number of brokers (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_metadata_broker_count(md: *const gregor_metadata) -> usize {
    guard(0, || handle(md, "metadata").map_or(0, |m| m.brokers.len()))
}

/// Broker `i`'s id (-1 if out of range).
#[no_mangle]
pub extern "C" fn gregor_metadata_broker_id(md: *const gregor_metadata, i: usize) -> i32 {
    guard(-1, || {
        handle(md, "metadata")
            .ok()
            .and_then(|m| m.brokers.get(i))
            .map_or(-1, |b| b.0)
    })
}

/// Broker `i`'s host, NUL-terminated, valid until the snapshot is freed (NULL if out of range).
#[no_mangle]
pub extern "C" fn gregor_metadata_broker_host(
    md: *const gregor_metadata,
    i: usize,
) -> *const c_char {
    guard(ptr::null(), || {
        handle(md, "metadata")
            .ok()
            .and_then(|m| m.brokers.get(i))
            .map_or(ptr::null(), |b| b.1.as_ptr())
    })
}

/// Broker `i`'s port (-1 if out of range).
#[no_mangle]
pub extern "C" fn gregor_metadata_broker_port(md: *const gregor_metadata, i: usize) -> i32 {
    guard(-1, || {
        handle(md, "metadata")
            .ok()
            .and_then(|m| m.brokers.get(i))
            .map_or(-1, |b| b.2)
    })
}

/// The controller's broker id (-1 if unknown).
#[no_mangle]
pub extern "C" fn gregor_metadata_controller_id(md: *const gregor_metadata) -> i32 {
    guard(-1, || {
        handle(md, "metadata").map_or(-1, |m| m.md.controller_id)
    })
}

/// The cluster id, NUL-terminated, valid until the snapshot is freed (NULL if none).
#[no_mangle]
pub extern "C" fn gregor_metadata_cluster_id(md: *const gregor_metadata) -> *const c_char {
    guard(ptr::null(), || {
        handle(md, "metadata")
            .ok()
            .and_then(|m| m.cluster_id.as_ref())
            .map_or(ptr::null(), |c| c.as_ptr())
    })
}

/// Number of topics (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_metadata_topic_count(md: *const gregor_metadata) -> usize {
    guard(0, || handle(md, "metadata").map_or(0, |m| m.topics.len()))
}

/// Topic `t`'s name, NUL-terminated, valid until the snapshot is freed (NULL if out of range).
#[no_mangle]
pub extern "C" fn gregor_metadata_topic_name(
    md: *const gregor_metadata,
    t: usize,
) -> *const c_char {
    guard(ptr::null(), || {
        handle(md, "metadata")
            .ok()
            .and_then(|m| m.topics.get(t))
            .map_or(ptr::null(), |x| x.0.as_ptr())
    })
}

/// Topic `t`'s ID in Kafka's base64 form ("AAAAAAAAAAAAAAAAAAAAAA" when the
/// broker has none), valid until the snapshot is freed (NULL if out of range).
#[no_mangle]
pub extern "C" fn gregor_metadata_topic_id(md: *const gregor_metadata, t: usize) -> *const c_char {
    guard(ptr::null(), || {
        handle(md, "metadata")
            .ok()
            .and_then(|m| m.topics.get(t))
            .map_or(ptr::null(), |x| x.1.as_ptr())
    })
}

/// Topic `t`'s 16 ID bytes, copied to `out` (16 bytes). Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_metadata_topic_id_bytes(
    md: *const gregor_metadata,
    t: usize,
    out: *mut u8,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let ti = topic_at(md, t).ok_or_else(|| Error::invalid_arg("no such topic index"))?;
        if out.is_null() {
            return Err(null_arg("out"));
        }
        copy_out(&ti.id.0, out);
        Ok(())
    })
}

/// Topic `t`'s error code (0 if none; `GREGOR_ERR__INVALID_ARG` if out of range).
#[no_mangle]
pub extern "C" fn gregor_metadata_topic_err(md: *const gregor_metadata, t: usize) -> c_int {
    guard(local::FAIL, || {
        topic_at(md, t).map_or(local::INVALID_ARG, |ti| i32::from(ti.error.0))
    })
}

/// Number of partitions of topic `t` (0 if out of range).
#[no_mangle]
pub extern "C" fn gregor_metadata_partition_count(md: *const gregor_metadata, t: usize) -> usize {
    guard(0, || topic_at(md, t).map_or(0, |ti| ti.partitions.len()))
}

/// Partition `p` of topic `t`: its id (-1 if out of range).
#[no_mangle]
pub extern "C" fn gregor_metadata_partition_id(
    md: *const gregor_metadata,
    t: usize,
    p: usize,
) -> i32 {
    guard(-1, || partition_at(md, t, p).map_or(-1, |x| x.id))
}

/// Partition `p` of topic `t`: its leader's broker id (-1 if none or out of range).
#[no_mangle]
pub extern "C" fn gregor_metadata_partition_leader(
    md: *const gregor_metadata,
    t: usize,
    p: usize,
) -> i32 {
    guard(-1, || partition_at(md, t, p).map_or(-1, |x| x.leader))
}

/// Partition `p` of topic `t`: its error code (`GREGOR_ERR__INVALID_ARG` if out of range).
#[no_mangle]
pub extern "C" fn gregor_metadata_partition_err(
    md: *const gregor_metadata,
    t: usize,
    p: usize,
) -> c_int {
    guard(local::FAIL, || {
        partition_at(md, t, p).map_or(local::INVALID_ARG, |x| i32::from(x.error.0))
    })
}

/// Partition `p` of topic `t`: copies up to `max` replica ids into `out` and
/// returns how many replicas there are (so `out` may be NULL with `max` 0).
#[no_mangle]
pub extern "C" fn gregor_metadata_partition_replicas(
    md: *const gregor_metadata,
    t: usize,
    p: usize,
    out: *mut i32,
    max: usize,
) -> usize {
    guard(0, || {
        partition_at(md, t, p).map_or(0, |x| copy_ids(&x.replicas, out, max))
    })
}

/// Partition `p` of topic `t`: as `gregor_metadata_partition_replicas`, for the in-sync replicas.
#[no_mangle]
pub extern "C" fn gregor_metadata_partition_isrs(
    md: *const gregor_metadata,
    t: usize,
    p: usize,
    out: *mut i32,
    max: usize,
) -> usize {
    guard(0, || {
        partition_at(md, t, p).map_or(0, |x| copy_ids(&x.isr, out, max))
    })
}

fn copy_ids(ids: &[i32], out: *mut i32, max: usize) -> usize {
    copy_out(&ids[..ids.len().min(max)], out);
    ids.len()
}

/// Frees a metadata snapshot. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_metadata_free(md: *mut gregor_metadata) {
    guard((), || free(md))
}
