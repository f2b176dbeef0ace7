//! The Kafka 0.7 client (src/legacy07) for C: `gregor_legacy07_*`.
//!
//! Same conventions as the rest of the C API: opaque handles, `_free(NULL)`
//! is a no-op, 0 or an error code (a 0.7 broker's codes −1…4 pass through
//! unchanged), detail in a caller-owned `errstr`, no panic crosses into C.

use crate::sync::MutexExt;
use std::ffi::{c_char, c_int, CString};
use std::ptr;
use std::time::Duration;

use super::guard::{guard, guard_code};
use super::lifetime::{destroy, enter, handle_registry, register, Handle, Life};
use super::raw::gregor_slice;
use super::raw::*;
use crate::compression::Codec;
use crate::error::Error;
use crate::legacy07::protocol::FetchRequest;
use crate::legacy07::{
    BrokerInfo, BrokerPartition, Client, FetchResult, Options, ProduceSet, Producer07, Registry,
};

/// OFFSETS time: the latest offset (the log end).
pub const GREGOR_LEGACY07_TIME_LATEST: i64 = -1;
/// OFFSETS time: the earliest offset.
pub const GREGOR_LEGACY07_TIME_EARLIEST: i64 = -2;
/// No compression.
pub const GREGOR_LEGACY07_CODEC_NONE: i32 = 0;
/// gzip-compressed message sets.
pub const GREGOR_LEGACY07_CODEC_GZIP: i32 = 1;
/// snappy-compressed message sets (Xerial framing, as Kafka 0.7 wrote).
pub const GREGOR_LEGACY07_CODEC_SNAPPY: i32 = 2;

/// A connection to one Kafka 0.7 broker. Thread-safe (requests take turns).
pub struct gregor_legacy07_client {
    inner: Client,
    life: Life,
}

impl Handle for gregor_legacy07_client {
    const NAME: &'static str = "legacy07 client";
    handle_registry!();
    fn life(&self) -> &Life {
        &self.life
    }
    /// Nothing to wake: each request is bounded by the socket timeout.
    fn shutdown(&self) {}
}

/// The messages one FETCH returned. Immutable; thread-safe to read.
pub struct gregor_legacy07_fetched {
    inner: FetchResult,
}

/// A list of (topic, partition, offset, max size) for a MULTIFETCH. Not thread-safe.
pub struct gregor_legacy07_fetch_list {
    inner: Vec<FetchRequest>,
}

/// What a MULTIFETCH returned: one result per entry of the list. Immutable.
pub struct gregor_legacy07_multi_fetched {
    parts: Vec<(c_int, CString, Option<gregor_legacy07_fetched>)>,
}

/// A list of (topic, partition, messages) for a MULTIPRODUCE. Not thread-safe.
pub struct gregor_legacy07_produce_list {
    inner: Vec<(String, i32, Vec<Vec<u8>>)>,
}

/// The 0.7 broker registry read from ZooKeeper (a snapshot). Immutable.
pub struct gregor_legacy07_registry {
    brokers: Vec<(BrokerInfo, CString)>,
    inner: std::sync::Mutex<Registry>,
}

/// A producer that picks brokers and partitions from the ZooKeeper
/// registry. Thread-safe.
pub struct gregor_legacy07_producer {
    inner: Producer07,
    life: Life,
}

impl Handle for gregor_legacy07_producer {
    const NAME: &'static str = "legacy07 producer";
    handle_registry!();
    fn life(&self) -> &Life {
        &self.life
    }
    /// Nothing to wake: each request is bounded by the socket timeout.
    fn shutdown(&self) {}
}

fn options(codec: c_int, magic: c_int, timeout_ms: c_int) -> Result<Options, Error> {
    let compression = match codec {
        0 => Codec::None,
        1 => Codec::Gzip,
        2 => Codec::Snappy,
        c => {
            return Err(Error::invalid_arg(format!(
                "codec {c}: Kafka 0.7 has 0 none, 1 gzip, 2 snappy"
            )))
        }
    };
    let magic = i8::try_from(magic).map_err(|_| Error::invalid_arg("magic must be 0 or 1"))?;
    let mut o = Options {
        compression,
        magic,
        ..Options::default()
    };
    if timeout_ms > 0 {
        o.socket_timeout = Duration::from_millis(timeout_ms as u64);
    }
    o.validate()?;
    Ok(o)
}

/// Reads `count` payloads given as parallel arrays of pointers and lengths.
fn payload_list<'a>(
    ptrs: *const *const u8,
    lens: *const usize,
    count: usize,
) -> Result<Vec<&'a [u8]>, Error> {
    let ps = slice(ptrs, count, "payloads")?;
    let ls = slice(lens, count, "lens")?;
    ps.iter()
        .zip(ls)
        .enumerate()
        .map(|(i, (&p, &n))| {
            if p.is_null() && n > 0 {
                return Err(Error::invalid_arg(format!("payloads[{i}] is NULL")));
            }
            Ok(bytes(p, n, "payloads")?.unwrap_or(&[]))
        })
        .collect()
}

// ----- client -----

/// Connects to the Kafka 0.7 broker at `broker` ("host:port"). `codec`
/// (`GREGOR_LEGACY07_CODEC_*`) and `magic` (1, or 0 for 0.6 brokers) apply
/// to what it produces; `timeout_ms` bounds each socket read or write
/// (<= 0: 30 s). Returns NULL on failure, with the reason in `errstr`.
/// Blocks while connecting. Caller owns the client: free with
/// `gregor_legacy07_client_free`.
#[no_mangle]
pub extern "C" fn gregor_legacy07_client_new(
    broker: *const c_char,
    codec: c_int,
    magic: c_int,
    timeout_ms: c_int,
    errstr: *mut c_char,
    errstr_size: usize,
) -> *mut gregor_legacy07_client {
    let mut out = ptr::null_mut();
    guard_code(errstr, errstr_size, || {
        let broker = c_str(broker, "broker")?;
        let c = Client::connect(broker, options(codec, magic, timeout_ms)?)?;
        out = register(Box::new(gregor_legacy07_client {
            inner: c,
            life: Life::new(),
        }));
        Ok(())
    });
    out
}

/// Frees a client, closing its connection. NULL is a no-op.
///
/// Lifetime: safe while other threads are inside calls on the handle (see
/// the header's preamble): new calls fail with `GREGOR_ERR__DESTROY`; calls
/// in flight are not interrupted (each is bounded by its timeout) and this
/// waits for them to leave before releasing anything, then they return
/// `GREGOR_ERR__DESTROY`. A second free of the same pointer is a no-op.
#[no_mangle]
pub extern "C" fn gregor_legacy07_client_free(client: *mut gregor_legacy07_client) {
    guard((), || destroy(client))
}

/// PRODUCE: sends `count` payloads (`payloads[i]`, `lens[i]` bytes) as one
/// message set to `topic`/`partition`. Kafka 0.7 does not answer a
/// PRODUCE: 0 means it was written to the socket; a broker that rejects it
/// closes the connection, which the next call reports. Borrows everything;
/// blocks while writing. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_legacy07_produce(
    client: *const gregor_legacy07_client,
    topic: *const c_char,
    partition: i32,
    payloads: *const *const u8,
    lens: *const usize,
    count: usize,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let c = enter(client)?;
        let topic = c_str(topic, "topic")?;
        let ps = payload_list(payloads, lens, count)?;
        c.inner.produce(topic, partition, &ps)
    })
}

/// A new, empty MULTIPRODUCE list. Caller owns it: free with
/// `gregor_legacy07_produce_list_free`.
#[no_mangle]
pub extern "C" fn gregor_legacy07_produce_list_new() -> *mut gregor_legacy07_produce_list {
    guard(ptr::null_mut(), || {
        Box::into_raw(Box::new(gregor_legacy07_produce_list { inner: Vec::new() }))
    })
}

/// Adds `count` payloads for `topic`/`partition` to a MULTIPRODUCE list
/// (copied). Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_legacy07_produce_list_add(
    list: *mut gregor_legacy07_produce_list,
    topic: *const c_char,
    partition: i32,
    payloads: *const *const u8,
    lens: *const usize,
    count: usize,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let l = handle_mut(list, "list")?;
        let topic = c_str(topic, "topic")?;
        let ps = payload_list(payloads, lens, count)?;
        l.inner.push((
            topic.to_string(),
            partition,
            ps.iter().map(|p| p.to_vec()).collect(),
        ));
        Ok(())
    })
}

/// Frees a MULTIPRODUCE list. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_legacy07_produce_list_free(list: *mut gregor_legacy07_produce_list) {
    guard((), || free(list))
}

/// MULTIPRODUCE: sends every entry of `list` in one request (no response,
/// as for `gregor_legacy07_produce`). Borrows everything. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_legacy07_multi_produce(
    client: *const gregor_legacy07_client,
    list: *const gregor_legacy07_produce_list,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let c = enter(client)?;
        let l = handle(list, "list")?;
        let refs: Vec<Vec<&[u8]>> = l
            .inner
            .iter()
            .map(|(_, _, ps)| ps.iter().map(Vec::as_slice).collect())
            .collect();
        let sets: Vec<ProduceSet<'_>> = l
            .inner
            .iter()
            .zip(&refs)
            .map(|((t, p, _), r)| ProduceSet {
                topic: t,
                partition: *p,
                payloads: r,
            })
            .collect();
        c.inner.multi_produce(&sets)
    })
}

/// FETCH: up to `max_size` bytes of `topic`/`partition` from byte `offset`.
/// On success `*fetched` receives the messages (caller owns: free with
/// `gregor_legacy07_fetched_free`). Errors: the broker's code (1
/// OffsetOutOfRange, 3 WrongPartition, …), 4 InvalidFetchSize when
/// `max_size` is smaller than the message at `offset`, local codes for
/// corrupt data and transport failures. Blocks up to the socket timeout.
#[no_mangle]
pub extern "C" fn gregor_legacy07_fetch(
    client: *const gregor_legacy07_client,
    topic: *const c_char,
    partition: i32,
    offset: i64,
    max_size: i32,
    fetched: *mut *mut gregor_legacy07_fetched,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let c = enter(client)?;
        let topic = c_str(topic, "topic")?;
        if fetched.is_null() {
            return Err(null_arg("fetched"));
        }
        let r = c.inner.fetch(topic, partition, offset, max_size)?;
        put(
            fetched,
            Box::into_raw(Box::new(gregor_legacy07_fetched { inner: r })),
        );
        Ok(())
    })
}

/// Number of messages fetched (compressed sets expanded).
#[no_mangle]
pub extern "C" fn gregor_legacy07_fetched_count(f: *const gregor_legacy07_fetched) -> usize {
    guard(0, || handle(f, "f").map_or(0, |f| f.inner.messages.len()))
}

/// Payload of message `i`, borrowed until `f` is freed ({NULL, 0} if `i` is
/// out of range).
#[no_mangle]
pub extern "C" fn gregor_legacy07_fetched_payload(
    f: *const gregor_legacy07_fetched,
    i: usize,
) -> gregor_slice {
    let none = gregor_slice {
        ptr: ptr::null(),
        len: 0,
    };
    guard(none, || {
        handle(f, "f")
            .ok()
            .and_then(|f| f.inner.messages.get(i))
            .map_or(none, |m| gregor_slice {
                ptr: m.payload.as_ptr(),
                len: m.payload.len(),
            })
    })
}

/// Byte offset of message `i` (of its compressed wrapper, for messages that
/// came in one); -1 if `i` is out of range.
#[no_mangle]
pub extern "C" fn gregor_legacy07_fetched_offset(
    f: *const gregor_legacy07_fetched,
    i: usize,
) -> i64 {
    guard(-1, || {
        handle(f, "f")
            .ok()
            .and_then(|f| f.inner.messages.get(i))
            .map_or(-1, |m| m.offset)
    })
}

/// Offset after message `i` (after its wrapper): where to fetch next once
/// it is consumed; -1 if `i` is out of range.
#[no_mangle]
pub extern "C" fn gregor_legacy07_fetched_next_offset(
    f: *const gregor_legacy07_fetched,
    i: usize,
) -> i64 {
    guard(-1, || {
        handle(f, "f")
            .ok()
            .and_then(|f| f.inner.messages.get(i))
            .map_or(-1, |m| m.next_offset)
    })
}

/// Codec of the wrapper message `i` came in (`GREGOR_LEGACY07_CODEC_*`,
/// NONE if it was not compressed); -1 if `i` is out of range.
#[no_mangle]
pub extern "C" fn gregor_legacy07_fetched_codec(
    f: *const gregor_legacy07_fetched,
    i: usize,
) -> c_int {
    guard(-1, || {
        handle(f, "f")
            .ok()
            .and_then(|f| f.inner.messages.get(i))
            .map_or(-1, |m| c_int::from(m.compression.id()))
    })
}

/// Where the next FETCH should start: after the last whole message (a
/// message the size cut off comes whole next time). -1 for NULL.
#[no_mangle]
pub extern "C" fn gregor_legacy07_fetched_next_fetch_offset(
    f: *const gregor_legacy07_fetched,
) -> i64 {
    guard(-1, || handle(f, "f").map_or(-1, |f| f.inner.next_offset))
}

/// Bytes of a message cut off at the end by the fetch size.
#[no_mangle]
pub extern "C" fn gregor_legacy07_fetched_partial_bytes(
    f: *const gregor_legacy07_fetched,
) -> usize {
    guard(0, || handle(f, "f").map_or(0, |f| f.inner.partial_bytes))
}

/// Frees fetched messages. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_legacy07_fetched_free(f: *mut gregor_legacy07_fetched) {
    guard((), || free(f))
}

/// A new, empty MULTIFETCH list. Caller owns it: free with
/// `gregor_legacy07_fetch_list_free`.
#[no_mangle]
pub extern "C" fn gregor_legacy07_fetch_list_new() -> *mut gregor_legacy07_fetch_list {
    guard(ptr::null_mut(), || {
        Box::into_raw(Box::new(gregor_legacy07_fetch_list { inner: Vec::new() }))
    })
}

/// Adds a fetch to a MULTIFETCH list. Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_legacy07_fetch_list_add(
    list: *mut gregor_legacy07_fetch_list,
    topic: *const c_char,
    partition: i32,
    offset: i64,
    max_size: i32,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let l = handle_mut(list, "list")?;
        let topic = c_str(topic, "topic")?;
        l.inner.push(FetchRequest {
            topic: topic.to_string(),
            partition,
            offset,
            max_size,
        });
        Ok(())
    })
}

/// Frees a MULTIFETCH list. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_legacy07_fetch_list_free(list: *mut gregor_legacy07_fetch_list) {
    guard((), || free(list))
}

/// MULTIFETCH: every fetch of `list` in one request. On success `*results`
/// receives one result per entry, in order (caller owns: free with
/// `gregor_legacy07_multi_fetched_free`); each entry has its own error code.
/// Fails as a whole only for transport failures or a malformed response.
#[no_mangle]
pub extern "C" fn gregor_legacy07_multi_fetch(
    client: *const gregor_legacy07_client,
    list: *const gregor_legacy07_fetch_list,
    results: *mut *mut gregor_legacy07_multi_fetched,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let c = enter(client)?;
        let l = handle(list, "list")?;
        if results.is_null() {
            return Err(null_arg("results"));
        }
        let parts = c
            .inner
            .multi_fetch(&l.inner)?
            .into_iter()
            .map(|r| match r {
                Ok(r) => (
                    0,
                    CString::default(),
                    Some(gregor_legacy07_fetched { inner: r }),
                ),
                Err(e) => (
                    e.code(),
                    CString::new(e.to_string().replace('\0', " ")).unwrap_or_default(),
                    None,
                ),
            })
            .collect();
        put(
            results,
            Box::into_raw(Box::new(gregor_legacy07_multi_fetched { parts })),
        );
        Ok(())
    })
}

/// Number of results (the number of fetches asked for).
#[no_mangle]
pub extern "C" fn gregor_legacy07_multi_fetched_count(
    m: *const gregor_legacy07_multi_fetched,
) -> usize {
    guard(0, || handle(m, "m").map_or(0, |m| m.parts.len()))
}

/// Error code of result `i` (0 when it has messages); `GREGOR_ERR__INVALID_ARG`
/// if `i` is out of range.
#[no_mangle]
pub extern "C" fn gregor_legacy07_multi_fetched_err(
    m: *const gregor_legacy07_multi_fetched,
    i: usize,
) -> c_int {
    guard(crate::error::local::INVALID_ARG, || {
        handle(m, "m")
            .ok()
            .and_then(|m| m.parts.get(i))
            .map_or(crate::error::local::INVALID_ARG, |p| p.0)
    })
}

/// Error text of result `i` ("" when it succeeded), borrowed until `m` is
/// freed; NULL if `i` is out of range.
#[no_mangle]
pub extern "C" fn gregor_legacy07_multi_fetched_errstr(
    m: *const gregor_legacy07_multi_fetched,
    i: usize,
) -> *const c_char {
    guard(ptr::null(), || {
        handle(m, "m")
            .ok()
            .and_then(|m| m.parts.get(i))
            .map_or(ptr::null(), |p| p.1.as_ptr())
    })
}

/// The messages of result `i`, borrowed until `m` is freed (do not free
/// it); NULL if that fetch failed or `i` is out of range.
#[no_mangle]
pub extern "C" fn gregor_legacy07_multi_fetched_get(
    m: *const gregor_legacy07_multi_fetched,
    i: usize,
) -> *const gregor_legacy07_fetched {
    guard(ptr::null(), || {
        handle(m, "m")
            .ok()
            .and_then(|m| m.parts.get(i))
            .and_then(|p| p.2.as_ref())
            .map_or(ptr::null(), |f| f as *const _)
    })
}

/// Frees MULTIFETCH results. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_legacy07_multi_fetched_free(m: *mut gregor_legacy07_multi_fetched) {
    guard((), || free(m))
}

/// OFFSETS: up to `max_number` offsets of `topic`/`partition` before `time`
/// (ms since the epoch, or `GREGOR_LEGACY07_TIME_LATEST` /
/// `GREGOR_LEGACY07_TIME_EARLIEST`), latest first, written to `offsets`,
/// which must have room for `max_number`; `*count` receives how many.
/// Blocks up to the socket timeout. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_legacy07_offsets(
    client: *const gregor_legacy07_client,
    topic: *const c_char,
    partition: i32,
    time: i64,
    max_number: i32,
    offsets: *mut i64,
    count: *mut usize,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let c = enter(client)?;
        let topic = c_str(topic, "topic")?;
        if count.is_null() {
            return Err(null_arg("count"));
        }
        if offsets.is_null() && max_number > 0 {
            return Err(null_arg("offsets"));
        }
        let v = c.inner.offsets_before(topic, partition, time, max_number)?;
        copy_out(&v, offsets);
        put(count, v.len());
        Ok(())
    })
}

// ----- ZooKeeper registry and producer -----

/// Reads the Kafka 0.7 broker registry from ZooKeeper at `zk_connect`
/// (`host:port[,…][/chroot]`), waiting up to `timeout_ms` (<= 0: 30 s) for
/// it. Returns NULL on failure, with the reason in `errstr`. Caller owns
/// the registry: free with `gregor_legacy07_registry_free`.
#[no_mangle]
pub extern "C" fn gregor_legacy07_registry_new(
    zk_connect: *const c_char,
    timeout_ms: c_int,
    errstr: *mut c_char,
    errstr_size: usize,
) -> *mut gregor_legacy07_registry {
    let mut out = ptr::null_mut();
    guard_code(errstr, errstr_size, || {
        let zk = c_str(zk_connect, "zk_connect")?;
        let timeout = if timeout_ms > 0 {
            Duration::from_millis(timeout_ms as u64)
        } else {
            Duration::from_secs(30)
        };
        let mut r = Registry::connect(zk, timeout)?;
        let brokers = r
            .brokers()?
            .into_iter()
            .map(|b| {
                let host = CString::new(b.host.clone()).unwrap_or_default();
                (b, host)
            })
            .collect();
        out = Box::into_raw(Box::new(gregor_legacy07_registry {
            brokers,
            inner: std::sync::Mutex::new(r),
        }));
        Ok(())
    });
    out
}

/// Number of registered brokers (in id order).
#[no_mangle]
pub extern "C" fn gregor_legacy07_registry_broker_count(
    r: *const gregor_legacy07_registry,
) -> usize {
    guard(0, || handle(r, "r").map_or(0, |r| r.brokers.len()))
}

/// Id of broker `i`; -1 if out of range.
#[no_mangle]
pub extern "C" fn gregor_legacy07_registry_broker_id(
    r: *const gregor_legacy07_registry,
    i: usize,
) -> i32 {
    guard(-1, || {
        handle(r, "r")
            .ok()
            .and_then(|r| r.brokers.get(i))
            .map_or(-1, |b| b.0.id)
    })
}

/// Host of broker `i`, borrowed until `r` is freed; NULL if out of range.
#[no_mangle]
pub extern "C" fn gregor_legacy07_registry_broker_host(
    r: *const gregor_legacy07_registry,
    i: usize,
) -> *const c_char {
    guard(ptr::null(), || {
        handle(r, "r")
            .ok()
            .and_then(|r| r.brokers.get(i))
            .map_or(ptr::null(), |b| b.1.as_ptr())
    })
}

/// Port of broker `i`; -1 if out of range.
#[no_mangle]
pub extern "C" fn gregor_legacy07_registry_broker_port(
    r: *const gregor_legacy07_registry,
    i: usize,
) -> i32 {
    guard(-1, || {
        handle(r, "r")
            .ok()
            .and_then(|r| r.brokers.get(i))
            .map_or(-1, |b| i32::from(b.0.port))
    })
}

/// Where a producer may send `topic`: the (broker id, partition) pairs the
/// brokers registered, plus partition 0 of each broker that does not list
/// the topic yet (seed 000's rule for new topics), written to the parallel
/// arrays `broker_ids` and `partitions` (room for `capacity` each);
/// `*count` receives the full number (more than `capacity` means the
/// arrays were too small and hold the first `capacity`). Reads ZooKeeper;
/// thread-safe.
#[no_mangle]
pub extern "C" fn gregor_legacy07_registry_partitions(
    r: *const gregor_legacy07_registry,
    topic: *const c_char,
    broker_ids: *mut i32,
    partitions: *mut i32,
    capacity: usize,
    count: *mut usize,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let r = handle(r, "r")?;
        let topic = c_str(topic, "topic")?;
        if count.is_null() {
            return Err(null_arg("count"));
        }
        if capacity > 0 && (broker_ids.is_null() || partitions.is_null()) {
            return Err(null_arg("broker_ids/partitions"));
        }
        let v: Vec<BrokerPartition> = r.inner.locked().producer_partitions(topic)?;
        let n = v.len().min(capacity);
        let ids: Vec<i32> = v[..n].iter().map(|b| b.broker_id).collect();
        let ps: Vec<i32> = v[..n].iter().map(|b| b.partition).collect();
        copy_out(&ids, broker_ids);
        copy_out(&ps, partitions);
        put(count, v.len());
        Ok(())
    })
}

/// Frees a registry, closing its ZooKeeper session. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_legacy07_registry_free(r: *mut gregor_legacy07_registry) {
    guard((), || free(r))
}

/// A producer that finds brokers in the ZooKeeper registry at `zk_connect`
/// and sends new topics to partition 0 of each broker until they register
/// more. `codec`, `magic` and `timeout_ms` as for `gregor_legacy07_client_new`.
/// Returns NULL on failure, with the reason in `errstr`. Caller owns it:
/// free with `gregor_legacy07_producer_free`.
#[no_mangle]
pub extern "C" fn gregor_legacy07_producer_new(
    zk_connect: *const c_char,
    codec: c_int,
    magic: c_int,
    timeout_ms: c_int,
    errstr: *mut c_char,
    errstr_size: usize,
) -> *mut gregor_legacy07_producer {
    let mut out = ptr::null_mut();
    guard_code(errstr, errstr_size, || {
        let zk = c_str(zk_connect, "zk_connect")?;
        let opts = options(codec, magic, timeout_ms)?;
        let p = Producer07::new(zk, opts.socket_timeout, opts)?;
        out = register(Box::new(gregor_legacy07_producer {
            inner: p,
            life: Life::new(),
        }));
        Ok(())
    });
    out
}

/// Sends `count` payloads as one message set to a partition of `topic`:
/// `crc32(key) % n` of the producer's partition list when `key` is not
/// NULL, else round robin. Writes the broker id and partition chosen to the
/// non-NULL out-parameters. No acknowledgement (Kafka 0.7 has none).
/// Borrows everything. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_legacy07_producer_send(
    producer: *const gregor_legacy07_producer,
    topic: *const c_char,
    key: *const u8,
    key_len: usize,
    payloads: *const *const u8,
    lens: *const usize,
    count: usize,
    broker_id_out: *mut i32,
    partition_out: *mut i32,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let p = enter(producer)?;
        let topic = c_str(topic, "topic")?;
        let ps = payload_list(payloads, lens, count)?;
        let bp = p.inner.send(topic, bytes(key, key_len, "key")?, &ps)?;
        put(broker_id_out, bp.broker_id);
        put(partition_out, bp.partition);
        Ok(())
    })
}

/// Frees a producer, closing its connections and ZooKeeper session. NULL is a no-op.
///
/// Lifetime: safe while other threads are inside calls on the handle (see
/// the header's preamble): new calls fail with `GREGOR_ERR__DESTROY`; calls
/// in flight are not interrupted (each is bounded by its timeout) and this
/// waits for them to leave before releasing anything, then they return
/// `GREGOR_ERR__DESTROY`. A second free of the same pointer is a no-op.
#[no_mangle]
pub extern "C" fn gregor_legacy07_producer_free(p: *mut gregor_legacy07_producer) {
    guard((), || destroy(p))
}
