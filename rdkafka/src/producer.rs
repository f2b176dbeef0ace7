//! Producing (`rd_kafka_produce`, `rd_kafka_produceva`; `rd_kafka_producev`
//! is the C shim `csrc/producev.c` on `rd_kafka_produceva`) and the
//! client's callbacks: delivery reports to `dr_msg_cb` / `dr_cb`, client
//! errors to `error_cb`, statistics to `stats_cb` (a malloc'ed JSON the
//! callback may keep by returning 1, then freed with `rd_kafka_mem_free`)
//! and throttle reports to `throttle_cb`, served inside `rd_kafka_poll`
//! and `rd_kafka_flush` on the calling thread. The kinds
//! `rd_kafka_conf_set_events` enables go to the main queue as events
//! instead (`RD_KAFKA_EVENT_DR`, `_ERROR`, `_STATS`; see `event`), also
//! when no callback is set; a DR event's report owns its key and value.
//!
//! Message flags as rdkafka.h documents them: `RD_KAFKA_MSG_F_FREE` hands
//! the payload (malloc'ed) to the library, which frees it once the message
//! is done; `RD_KAFKA_MSG_F_COPY` copies it; with neither, the application
//! keeps the payload alive until the delivery report, which points to it;
//! `RD_KAFKA_MSG_F_BLOCK` waits for room in a full queue instead of
//! failing with `_QUEUE_FULL`. gregor copies every payload into its batch
//! at once, so the flags only decide what the report's `payload` points to
//! (the application's buffer unless copied) and when a `F_FREE` payload is
//! freed (after its report, or at once without a delivery callback). On a
//! failed produce the payload stays the application's.

#![allow(unsafe_code)] // `#[no_mangle]`

use std::ffi::{c_int, c_void};
use std::sync::Arc;

use gregor::error::Error;
use gregor::events::ThrottleEvent;
use gregor::message::{Bytes, ProducerRecord};
use gregor::producer::{DeliveryReport, Producer};

use crate::error_object::ErrorObject;
use crate::errors::set_last_error;
use crate::event::{Event, EVENT_DR, EVENT_ERROR, EVENT_STATS};
use crate::guard::guard;
use crate::handle::{Client, Handle};
use crate::headers::Headers;
use crate::message::{Message, RdMessage, TIMESTAMP_CREATE_TIME};
use crate::raw;
use crate::topic::Topic;

/// `RD_KAFKA_MSG_F_FREE`.
pub const MSG_F_FREE: c_int = 0x1;
/// `RD_KAFKA_MSG_F_COPY`.
pub const MSG_F_COPY: c_int = 0x2;
/// `RD_KAFKA_MSG_F_BLOCK`.
pub const MSG_F_BLOCK: c_int = 0x4;
/// `RD_KAFKA_MSG_F_PARTITION`: `rd_kafka_produce_batch` takes each
/// message's own partition.
pub const MSG_F_PARTITION: c_int = 0x8;
/// `RD_KAFKA_PARTITION_UA`.
pub const PARTITION_UA: i32 = -1;

const RESP_ERR__INVALID_ARG: c_int = -186;
const RESP_ERR__FAIL: c_int = -196;
const RESP_ERR__UNKNOWN_PARTITION: c_int = -190;
const RESP_ERR__UNKNOWN_TOPIC: c_int = -188;
const RESP_ERR__QUEUE_FULL: c_int = -184;
const RESP_ERR__FATAL: c_int = -150;
const RESP_ERR__STATE: c_int = -172;
const RESP_ERR__CONFLICT: c_int = -173;
const RESP_ERR_MSG_SIZE_TOO_LARGE: c_int = 10;

/// What a produced message's report needs beyond gregor's report: the
/// gregor opaque of a message points to one of these while a delivery
/// callback is set.
#[derive(Debug)]
struct Pending {
    /// The application's `msg_opaque`.
    opaque: usize,
    /// The application's payload and length (reported unless copied).
    payload: usize,
    len: usize,
    flags: c_int,
    /// The topic handle the message was produced through (its report's
    /// `rkt`, not looked up by name again), 0 if the call named the topic.
    rkt: usize,
}

thread_local! {
    /// Boxes of reports served on this thread, for the next messages
    /// produced on it: a program that produces and polls on one thread
    /// (most do) allocates none per message. Boxes, not values: the
    /// allocations themselves are what is kept.
    #[allow(clippy::vec_box)]
    static SPARE: std::cell::RefCell<Vec<Box<Pending>>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// At most this many spare boxes per thread (640 KiB): more than one
/// batch's reports (`batch.num.messages` is 10,000 by default), so a
/// producer that polls them all at once finds a box for each message it
/// queues next.
const SPARE_MAX: usize = 16_384;

/// `p` boxed (in a spare box if this thread has one), as a gregor opaque.
fn pending_box(p: Pending) -> usize {
    let spare = SPARE.try_with(|s| s.borrow_mut().pop()).ok().flatten();
    let b = match spare {
        Some(mut b) => {
            *b = p;
            b
        }
        None => Box::new(p),
    };
    Box::into_raw(b) as usize
}

/// Keeps a served report's box for this thread's next message (or frees
/// it).
fn recycle(b: Box<Pending>) {
    let _ = SPARE.try_with(|s| {
        let mut s = s.borrow_mut();
        if s.len() < SPARE_MAX {
            s.push(b);
        }
    });
}

/// One message to produce, as the produce calls give it.
pub(crate) struct Produce<'a> {
    pub topic: &'a str,
    /// The topic's handle when the call gave one (`rd_kafka_produce`), else 0.
    pub rkt: usize,
    pub partition: i32,
    pub flags: c_int,
    pub payload: *mut c_void,
    pub len: usize,
    pub key: Option<&'a [u8]>,
    pub opaque: *mut c_void,
    /// Milliseconds since the epoch; 0 for now.
    pub timestamp: i64,
    pub headers: Vec<(String, Option<Vec<u8>>)>,
}

/// Whether the handle's conf asks for delivery reports: a callback, or
/// `RD_KAFKA_EVENT_DR` events.
fn wants_reports(h: &Handle) -> bool {
    let cb = &h.conf().callbacks;
    cb.dr_msg.is_some() || cb.dr.is_some() || h.conf().events & EVENT_DR != 0
}

/// A delivery report a `RD_KAFKA_EVENT_DR` event holds until destroyed:
/// the C message, and the key and copied payload it points to (the
/// producer's batch they came from may be freed before the application
/// reads the event). Dropping it frees an `F_FREE` payload.
#[repr(C)]
#[derive(Debug)]
pub(crate) struct Report {
    /// What C sees (must stay first).
    pub(crate) msg: Message,
    key: Option<Bytes>,
    value: Option<Bytes>,
    pending: Pending,
}

#[cfg(test)]
impl Report {
    /// A successful report of a copied message with `opaque` at `offset`.
    pub(crate) fn for_test(opaque: usize, offset: i64) -> Report {
        Report {
            msg: Message {
                c: RdMessage {
                    err: 0,
                    rkt: std::ptr::null_mut(),
                    partition: 0,
                    payload: std::ptr::null_mut(),
                    len: 0,
                    key: std::ptr::null_mut(),
                    key_len: 0,
                    offset,
                    private: opaque as *mut c_void,
                },
                timestamp: -1,
                tstype: TIMESTAMP_CREATE_TIME,
                latency_us: -1,
                status: 2,
                broker_id: 1,
                leader_epoch: -1,
                headers: std::ptr::null_mut(),
            },
            key: None,
            value: None,
            pending: Pending {
                opaque,
                payload: 0,
                len: 0,
                flags: MSG_F_COPY,
                rkt: 0,
            },
        }
    }
}

// SAFETY: the message's pointers address the report's own key and value,
// the application's payload (whose owner rdkafka.h makes keep it alive
// until its report) and the handle's topic handle; they are only read, by
// the thread that polls the event, after the report moved to it.
unsafe impl Send for Report {}

impl Drop for Report {
    fn drop(&mut self) {
        release(&self.pending);
        crate::headers::rd_kafka_headers_destroy(self.msg.headers);
    }
}

/// Queues `m` on the handle's producer.
pub(crate) fn produce(h: &Handle, m: &Produce<'_>) -> Result<(), Error> {
    let Some(p) = h.producer() else {
        return Err(Error::invalid_arg("not a producer handle"));
    };
    let partition = match m.partition {
        PARTITION_UA => None,
        n if n >= 0 => Some(n),
        n => {
            return Err(Error::local(
                RESP_ERR__UNKNOWN_PARTITION,
                format!("invalid partition {n}"),
            ))
        }
    };
    let headers: Vec<(&str, Option<&[u8]>)> = m
        .headers
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_deref()))
        .collect();
    let rec = ProducerRecord {
        topic: m.topic,
        partition,
        key: m.key,
        value: raw::read_bytes(m.payload, m.len),
        headers: &headers,
        timestamp: (m.timestamp != 0).then_some(m.timestamp),
    };
    let reports = wants_reports(h);
    let opaque = if reports {
        pending_box(Pending {
            opaque: m.opaque as usize,
            payload: m.payload as usize,
            len: m.len,
            flags: m.flags,
            rkt: m.rkt,
        })
    } else {
        m.opaque as usize
    };
    let sent = send(p, &rec, opaque, m.flags);
    match (&sent, reports) {
        (Err(_), true) => drop(raw::take_box(opaque as *mut Pending)),
        (Ok(()), false) if m.flags & MSG_F_FREE != 0 && !m.payload.is_null() => {
            raw::free_payload(m.payload);
        }
        _ => {}
    }
    sent
}

fn send(p: &Producer, rec: &ProducerRecord<'_>, opaque: usize, flags: c_int) -> Result<(), Error> {
    if flags & MSG_F_BLOCK != 0 {
        p.send_blocking(rec, opaque, crate::handle::timeout(-1))
    } else {
        p.send(rec, opaque)
    }
}

/// The errno rdkafka.h gives `rd_kafka_produce`'s failures.
fn errno_of(code: c_int) -> c_int {
    match code {
        RESP_ERR__QUEUE_FULL => 105,       // ENOBUFS
        RESP_ERR_MSG_SIZE_TOO_LARGE => 90, // EMSGSIZE
        RESP_ERR__UNKNOWN_PARTITION => 3,  // ESRCH
        RESP_ERR__UNKNOWN_TOPIC => 2,      // ENOENT
        RESP_ERR__FATAL => 125,            // ECANCELED
        RESP_ERR__STATE => 8,              // ENOEXEC
        _ => 22,                           // EINVAL
    }
}

/// Queues a message for the topic `rkt` (`rd_kafka_produce`): 0, or -1
/// with `rd_kafka_last_error` and errno set. See the module for `msgflags`.
#[no_mangle]
pub extern "C" fn rd_kafka_produce(
    rkt: *mut Topic,
    partition: i32,
    msgflags: c_int,
    payload: *mut c_void,
    len: usize,
    key: *const c_void,
    keylen: usize,
    msg_opaque: *mut c_void,
) -> c_int {
    guard(-1, || {
        let result = match raw::object(rkt).and_then(|t| Some((t, t.handle()?))) {
            None => Err(Error::invalid_arg("NULL topic handle")),
            Some((t, h)) => produce(
                h,
                &Produce {
                    topic: t.name(),
                    rkt: std::ptr::from_ref(t) as usize,
                    partition,
                    flags: msgflags,
                    payload,
                    len,
                    key: raw::read_bytes(key, keylen),
                    opaque: msg_opaque,
                    timestamp: 0,
                    headers: Vec::new(),
                },
            ),
        };
        match result {
            Ok(()) => {
                set_last_error(0);
                0
            }
            Err(e) => {
                set_last_error(e.code());
                raw::set_errno(errno_of(e.code()));
                -1
            }
        }
    })
}

/// Queues `message_cnt` messages for the topic `rkt`
/// (`rd_kafka_produce_batch`): each message's payload, key and `_private`
/// (its opaque), to `partition`, or with `RD_KAFKA_MSG_F_PARTITION` to its
/// own `partition` field. Returns how many were queued; a message that was
/// not has its `err` set (and its `F_FREE` payload stays the caller's).
#[no_mangle]
pub extern "C" fn rd_kafka_produce_batch(
    rkt: *mut Topic,
    partition: i32,
    msgflags: c_int,
    rkmessages: *mut RdMessage,
    message_cnt: c_int,
) -> c_int {
    guard(0, || {
        let Some((t, h)) = raw::object(rkt).and_then(|t| Some((t, t.handle()?))) else {
            set_last_error(RESP_ERR__INVALID_ARG);
            return 0;
        };
        let msgs = raw::read_array_mut(rkmessages, usize::try_from(message_cnt).unwrap_or(0));
        let mut queued = 0;
        for m in msgs.iter_mut() {
            let result = produce(
                h,
                &Produce {
                    topic: t.name(),
                    rkt: std::ptr::from_ref(t) as usize,
                    partition: if msgflags & MSG_F_PARTITION != 0 {
                        m.partition
                    } else {
                        partition
                    },
                    flags: msgflags & !MSG_F_PARTITION,
                    payload: m.payload,
                    len: m.len,
                    key: raw::read_bytes(m.key, m.key_len),
                    opaque: m.private,
                    timestamp: 0,
                    headers: Vec::new(),
                },
            );
            match result {
                Ok(()) => {
                    m.err = 0;
                    queued += 1;
                }
                Err(e) => {
                    m.err = e.code();
                    set_last_error(e.code());
                }
            }
        }
        queued
    })
}

/// `rd_kafka_vtype_t`'s values.
mod vtype {
    pub const END: i32 = 0;
    pub const TOPIC: i32 = 1;
    pub const RKT: i32 = 2;
    pub const PARTITION: i32 = 3;
    pub const VALUE: i32 = 4;
    pub const KEY: i32 = 5;
    pub const OPAQUE: i32 = 6;
    pub const MSGFLAGS: i32 = 7;
    pub const TIMESTAMP: i32 = 8;
    pub const HEADER: i32 = 9;
    pub const HEADERS: i32 = 10;
}

/// The union of `rd_kafka_vu_t` as bytes: every member starts at its
/// beginning; `_pad` makes it 64 bytes, pointer-aligned.
#[repr(C, align(8))]
#[derive(Debug, Clone, Copy)]
pub struct VuUnion([u8; 64]);

impl VuUnion {
    fn word(&self, i: usize) -> usize {
        const W: usize = std::mem::size_of::<usize>();
        let mut b = [0u8; W];
        b.copy_from_slice(&self.0[i * W..(i + 1) * W]);
        usize::from_ne_bytes(b)
    }

    fn i32(&self) -> i32 {
        i32::from_ne_bytes([self.0[0], self.0[1], self.0[2], self.0[3]])
    }

    fn i64(&self) -> i64 {
        let mut b = [0u8; 8];
        b.copy_from_slice(&self.0[..8]);
        i64::from_ne_bytes(b)
    }
}

/// `rd_kafka_vu_t`: a vtype and its value.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct Vu {
    vtype: c_int,
    u: VuUnion,
}

/// The message `vus` describe, or the reason it is not one; with the
/// application's header list of `RD_KAFKA_V_HEADERS` (NULL if none), which
/// the message owns once queued (rdkafka.h), as librdkafka: its headers
/// are copied into the message here, the list is freed after queueing.
/// `V_HEADER` and a `V_HEADERS` list are `_CONFLICT`, as librdkafka's.
fn from_vus<'a>(
    h: &'a Handle,
    vus: &'a [Vu],
) -> Result<(String, Produce<'a>, *mut Headers), Error> {
    let mut topic: Option<String> = None;
    let mut app_headers: *mut Headers = std::ptr::null_mut();
    let conflict = || {
        Error::local(
            RESP_ERR__CONFLICT,
            "VTYPE_HEADER and VTYPE_HEADERS are mutually exclusive",
        )
    };
    let mut m = Produce {
        topic: "",
        rkt: 0,
        partition: PARTITION_UA,
        flags: 0,
        payload: std::ptr::null_mut(),
        len: 0,
        key: None,
        opaque: std::ptr::null_mut(),
        timestamp: 0,
        headers: Vec::new(),
    };
    for vu in vus {
        let u = &vu.u;
        match vu.vtype {
            vtype::END => break,
            vtype::TOPIC => {
                topic = raw::read_cstr(u.word(0) as *const _).map(|s| s.into_owned());
            }
            vtype::RKT => {
                topic = raw::object(u.word(0) as *const Topic).map(|t| t.name().to_string());
            }
            vtype::PARTITION => m.partition = u.i32(),
            vtype::VALUE => {
                m.payload = u.word(0) as *mut c_void;
                m.len = u.word(1);
            }
            vtype::KEY => m.key = raw::read_bytes(u.word(0) as *const c_void, u.word(1)),
            vtype::OPAQUE => m.opaque = u.word(0) as *mut c_void,
            vtype::MSGFLAGS => m.flags = u.i32(),
            vtype::TIMESTAMP => m.timestamp = u.i64(),
            vtype::HEADER => {
                if !app_headers.is_null() {
                    return Err(conflict());
                }
                let name = raw::read_cstr(u.word(0) as *const _)
                    .ok_or_else(|| Error::invalid_arg("NULL header name"))?;
                let val = u.word(1) as *const c_void;
                let size = u.word(2) as isize;
                let value = match usize::try_from(size) {
                    Ok(n) => raw::read_bytes(val, n).map(<[u8]>::to_vec),
                    // -1: a NUL-terminated string (rdkafka.h)
                    Err(_) => raw::read_cstr(val.cast()).map(|s| s.as_bytes().to_vec()),
                };
                m.headers.push((name.into_owned(), value));
            }
            vtype::HEADERS => {
                if !m.headers.is_empty() {
                    return Err(conflict());
                }
                app_headers = u.word(0) as *mut Headers;
                if let Some(list) = raw::object(app_headers.cast_const()) {
                    m.headers = list
                        .iter()
                        .map(|(k, v)| {
                            (
                                String::from_utf8_lossy(k).into_owned(),
                                v.map(<[u8]>::to_vec),
                            )
                        })
                        .collect();
                }
            }
            other => return Err(Error::invalid_arg(format!("Unsupported VTYPE {other}"))),
        }
    }
    let topic = topic.ok_or_else(|| Error::invalid_arg("No topic name or topic handle given"))?;
    let _ = h;
    Ok((topic, m, app_headers))
}

/// Queues the message `vus` describe (`rd_kafka_produceva`): NULL, or an
/// error object for the caller to destroy.
#[no_mangle]
pub extern "C" fn rd_kafka_produceva(rk: *mut Handle, vus: *const Vu, cnt: usize) -> *mut c_void {
    // the panic value is made only on a panic: an error object is the
    // caller's to free, and one made up front would leak on every call
    let result = guard(
        Err((RESP_ERR__FAIL, "panic in rd_kafka_produceva".to_string())),
        || {
            let Some(h) = raw::object(rk) else {
                return Err((RESP_ERR__INVALID_ARG, "NULL client handle".to_string()));
            };
            let vus = raw::read_array(vus, cnt);
            from_vus(h, vus)
                .and_then(|(topic, mut m, app_headers)| {
                    // librdkafka makes the topic's handle for the report
                    h.topics().get(&topic, None, false);
                    m.topic = &topic;
                    produce(h, &m)?;
                    // queued: the message owned the list, whose headers
                    // it holds copied
                    crate::headers::rd_kafka_headers_destroy(app_headers);
                    Ok(())
                })
                .map_err(|e| (e.code(), e.to_string()))
        },
    );
    match result {
        Ok(()) => std::ptr::null_mut(),
        Err((code, text)) => {
            // programs read it after a failed producev (kcat does)
            set_last_error(code);
            ErrorObject::boxed(code, &text)
        }
    }
}

/// Builds the C message of `dr` (whose opaque is a [`Pending`]) and hands
/// it to the application: to the callback, then frees what the message
/// owned (the key and the copied payload point into the producer's batch,
/// which outlives the callback); or, with `RD_KAFKA_EVENT_DR` enabled, to
/// the main queue as a [`Report`] of a DR event.
fn deliver(rk: usize, dr: &DeliveryReport) {
    let Some(handle) = raw::object(rk as *const Handle) else {
        return;
    };
    let Some(pending) = raw::take_box(dr.opaque as *mut Pending) else {
        return;
    };
    let as_event = handle.conf().events & EVENT_DR != 0;
    // an event's report owns its key and value (shared with the batch);
    // a callback's borrows them. The headers the message was produced
    // with, for rd_kafka_message_headers, are made only for a message that
    // has some.
    let mut headers = std::ptr::null_mut();
    let owned = as_event.then(|| {
        let (k, v, hs) = dr.key_value_headers();
        if !hs.is_empty() {
            headers = Headers::from_gregor(&hs).into_raw();
        }
        (k, v)
    });
    let (key, value) = match &owned {
        Some((k, v)) => (k.as_deref(), v.as_deref()),
        None => {
            let (k, v, has_headers) = dr.key_value_has_headers();
            if has_headers {
                headers = Headers::from_gregor(&dr.headers()).into_raw();
            }
            (k, v)
        }
    };
    let copied = pending.flags & MSG_F_COPY != 0 || pending.payload == 0;
    let (payload, len) = match (value, copied) {
        (_, false) => (pending.payload as *mut c_void, pending.len),
        (Some(v), true) => (v.as_ptr().cast_mut().cast(), v.len()),
        (None, true) => (std::ptr::null_mut(), 0),
    };
    // topic handles live as long as their client
    let rkt = match pending.rkt {
        0 => handle.topics().of_message(&dr.topic),
        t => t as *mut Topic,
    };
    let err = dr.error.as_ref().map_or(0, Error::code);
    // the broker the message was last sent to (-1 for one never sent), as
    // librdkafka records it
    let broker_id = dr.broker_id;
    let msg = Message {
        c: RdMessage {
            err,
            rkt: rkt.cast(),
            partition: dr.partition,
            payload,
            len,
            key: key.map_or(std::ptr::null_mut(), |k| k.as_ptr().cast_mut().cast()),
            key_len: key.map_or(0, <[u8]>::len),
            offset: dr.offset,
            private: pending.opaque as *mut c_void,
        },
        timestamp: dr.timestamp,
        tstype: TIMESTAMP_CREATE_TIME,
        latency_us: dr.latency_us,
        status: dr.status as c_int,
        broker_id,
        leader_epoch: -1,
        headers,
    };
    if let Some((key, value)) = owned {
        let report = Report {
            msg,
            key,
            value,
            pending: *pending,
        };
        handle.admin().main_queue().push_report(report);
        return;
    }
    let cbs = handle.conf().callbacks;
    let opaque = handle.conf().opaque as usize;
    if let Some(cb) = cbs.dr_msg {
        raw::call_dr_msg(cb, rk, &msg, opaque);
    } else if let Some(cb) = cbs.dr {
        raw::call_dr(cb, rk, &msg, opaque);
    }
    // the headers lived for the callback, as librdkafka's message does
    crate::headers::rd_kafka_headers_destroy(msg.headers);
    release(&pending);
    recycle(pending);
}

/// Frees a `F_FREE` payload once its message is done.
fn release(pending: &Pending) {
    if pending.flags & MSG_F_FREE != 0 && pending.payload != 0 {
        raw::free_payload(pending.payload as *mut c_void);
    }
}

/// Sets the gregor callbacks that serve the conf's `dr_msg_cb` / `dr_cb`,
/// `error_cb`, `stats_cb` and `throttle_cb` for the handle at `rk`.
pub(crate) fn install_callbacks(h: &Handle, rk: usize) {
    let cbs = h.conf().callbacks;
    let opaque = h.conf().opaque as usize;
    let events = h.conf().events;
    let main = h.admin().main_queue();
    // an enabled event kind goes to the main queue instead of its callback
    // (rd_kafka_conf_set_events)
    let error = || {
        if events & EVENT_ERROR != 0 {
            let q = Arc::clone(main);
            return Some(Box::new(move |e: &Error| {
                q.push(Event::error(e.code(), &e.to_string()));
            }) as Box<dyn FnMut(&Error) + Send>);
        }
        cbs.error.map(|cb| {
            Box::new(move |e: &Error| {
                let reason = raw::c_string(&e.to_string());
                raw::call_error(cb, rk, e.code(), &reason, opaque);
            }) as Box<dyn FnMut(&Error) + Send>
        })
    };
    let stats = || {
        if events & EVENT_STATS != 0 {
            let q = Arc::clone(main);
            return Some(Box::new(move |json: &str| {
                q.push(Event::stats(json));
            }) as gregor::stats::StatsCallback);
        }
        cbs.stats.map(|cb| {
            Box::new(move |json: &str| {
                let p = raw::c_strdup(json);
                if !p.is_null() && raw::call_stats(cb, rk, p, json.len(), opaque) == 0 {
                    raw::c_free(p.cast());
                }
            }) as gregor::stats::StatsCallback
        })
    };
    let throttle = || {
        cbs.throttle.map(|cb| {
            Box::new(move |ev: &ThrottleEvent| {
                let name = raw::c_string(&ev.broker_name);
                raw::call_throttle(cb, rk, &name, ev.broker_id, ev.throttle_time_ms, opaque);
            }) as Box<dyn FnMut(&ThrottleEvent) + Send>
        })
    };
    match h.client() {
        Client::Producer(p) => {
            if wants_reports(h) {
                p.set_delivery_callback(Some(Box::new(move |dr: &DeliveryReport| {
                    deliver(rk, dr);
                })));
            }
            p.set_error_callback(error());
            p.set_stats_callback(stats());
            p.set_throttle_callback(throttle());
        }
        Client::Consumer(c) => {
            c.set_error_callback(error());
            c.set_stats_callback(stats());
            c.set_throttle_callback(throttle());
        }
    }
}

/// Replaces the callbacks of a producer being destroyed: no application
/// callback runs any more; what outstanding messages owned is freed.
pub(crate) fn detach_callbacks(h: &Handle) {
    match h.client() {
        Client::Producer(p) => {
            p.set_error_callback(None);
            p.set_stats_callback(None);
            p.set_throttle_callback(None);
        }
        Client::Consumer(c) => {
            c.set_error_callback(None);
            c.set_stats_callback(None);
            c.set_throttle_callback(None);
            return;
        }
    }
    let Some(p) = h.producer() else {
        return;
    };
    let reports = wants_reports(h);
    if reports {
        p.set_delivery_callback(Some(Box::new(|dr: &DeliveryReport| {
            if let Some(pending) = raw::take_box(dr.opaque as *mut Pending) {
                release(&pending);
                recycle(pending);
            }
        })));
    } else {
        p.set_delivery_callback(None);
    }
}
