//! The high-level consumer of rdkafka.h on gregor's [`Consumer`]:
//! `rd_kafka_subscribe`, `_unsubscribe`, `_subscription`,
//! `_consumer_poll`, `_poll_set_consumer`, `_consumer_close`,
//! `_consumer_closed`; assignment (`rd_kafka_assign`,
//! `_incremental_assign`, `_incremental_unassign`, `_assignment`,
//! `_assignment_lost`, `_rebalance_protocol`) and the conf's
//! `rebalance_cb`; offsets (`rd_kafka_commit`, `_commit_message`,
//! `_committed`, `_position`, `_offsets_store`, `_offset_store`,
//! `_offset_store_message`,
//! `_seek`, `_seek_partitions`, `_pause_partitions`,
//! `_resume_partitions`, `_query_watermark_offsets`,
//! `_get_watermark_offsets`, `_offsets_for_times`) and the conf's
//! `offset_commit_cb`; `rd_kafka_memberid`; and the consumed message's
//! own calls (`rd_kafka_message_destroy`, `_message_headers`,
//! `_message_detach_headers`, `_message_set_headers`).
//!
//! A consumed message ([`Consumed`]) starts with the [`Message`] C sees and
//! keeps gregor's message, whose key and value buffers the C pointers
//! address (no copy). As librdkafka's, an error or event (`err` set) has
//! its text as payload, and `rkt` is the client's topic handle of the
//! message's topic (librdkafka makes one per topic for the consumer).
//! Its `_private` points to the message itself: that is how
//! `rd_kafka_message_destroy` and `_headers` tell it from a delivery
//! report's message (whose `_private` is the application's opaque).
//!
//! The rebalance callback, as rdkafka.h describes `rd_kafka_conf_set_rebalance_cb`:
//! it runs inside `rd_kafka_consumer_poll` (and `rd_kafka_consumer_close`)
//! with `RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS` or `__REVOKE_PARTITIONS`
//! (also for lost partitions, with `rd_kafka_assignment_lost` true then),
//! and the application's `rd_kafka_assign` / `_incremental_assign` /
//! `_incremental_unassign` from inside it is what gets assigned (gregor's
//! core takes a call made inside its callback as the event's outcome).
//! Where this differs from librdkafka: if the callback assigns nothing,
//! gregor applies the event itself once it returns, where librdkafka would
//! leave the consumer waiting for the application's call. With
//! `RD_KAFKA_EVENT_REBALANCE` enabled (`rd_kafka_conf_set_events`), the
//! rebalance is instead an event of the consumer queue, which the
//! application reads after gregor applied it; its `rd_kafka_assign` of the
//! event's partitions then assigns what is assigned already.
//!
//! `offset_commit_cb` gets the results of async and automatic commits
//! from gregor's commit callback in `rd_kafka_consumer_poll`; a
//! synchronous `rd_kafka_commit`'s result is queued for the next
//! `rd_kafka_consumer_poll`, as rdkafka.h says of it.

#![allow(unsafe_code)] // `#[no_mangle]`, the application's callbacks

use std::collections::VecDeque;
use std::ffi::{c_char, c_int, c_void, CString};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};

use gregor::consumer::{Consumer, RebalanceEvent, TopicPartitionOffset};
use gregor::error::Error;
use gregor::message::{Message as GregorMessage, TimestampType};

use crate::conf::PartitionsCb;
use crate::error_object::ErrorObject;
use crate::event::{Event, EVENT_REBALANCE};
use crate::guard::guard;
use crate::handle::{timeout, Client, Handle};
use crate::headers::Headers;
use crate::message::{Message, RdMessage};
use crate::partition_list::{
    new_list, to_offsets, topics, update_list, OwnedList, TopicPartitionList,
};
use crate::raw;
use crate::topic::Topic;

/// `RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS`.
const RESP_ERR__ASSIGN_PARTITIONS: c_int = -175;
/// `RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS`.
const RESP_ERR__REVOKE_PARTITIONS: c_int = -174;
/// `RD_KAFKA_RESP_ERR__UNKNOWN_GROUP`.
const RESP_ERR__UNKNOWN_GROUP: c_int = -179;
/// `RD_KAFKA_RESP_ERR__INVALID_ARG`.
const RESP_ERR__INVALID_ARG: c_int = -186;
/// `RD_KAFKA_RESP_ERR__NOENT`.
const RESP_ERR__NOENT: c_int = -156;
/// `RD_KAFKA_MSG_STATUS_PERSISTED`.
const MSG_STATUS_PERSISTED: c_int = 2;
/// `RD_KAFKA_PARTITION_UA`.
const PARTITION_UA: i32 = -1;
/// `RD_KAFKA_OFFSET_INVALID`.
const OFFSET_INVALID: i64 = -1001;

/// What a consumer handle keeps beyond gregor's consumer: synchronous
/// commits' results waiting for `offset_commit_cb`, and the legacy
/// consumer's partition queues ([`crate::consume`]).
#[derive(Debug, Default)]
pub(crate) struct State {
    commits: Mutex<Vec<(c_int, Vec<TopicPartitionOffset>)>>,
    /// Events the consumer queue gives before it polls the consumer again:
    /// rebalances as `RD_KAFKA_EVENT_REBALANCE` (with that event enabled),
    /// and a message polled together with one, which follows it.
    events: Mutex<VecDeque<Event>>,
    pub(crate) legacy: crate::consume::Queues,
    /// Whether the consumer has `group.id`, found once (it cannot change).
    grouped: OnceLock<bool>,
    /// Whether `rd_kafka_poll_set_consumer` forwarded the main queue to
    /// the consumer's: `rd_kafka_consumer_poll` then serves the main
    /// queue's callback events too (log lines of `log.queue`, errors,
    /// statistics), as librdkafka's consumer queue does once forwarded.
    main_forwarded: AtomicBool,
}

impl State {
    /// The consumer queue's next event held back.
    pub(crate) fn take_event(&self) -> Option<Event> {
        self.events
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop_front()
    }

    /// Holds `ev` back as the next event but those held already.
    pub(crate) fn hold_event(&self, ev: Event) {
        self.events
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push_back(ev);
    }

    /// Whether the consumer `c` of this state has a group.
    fn grouped(&self, c: &Consumer) -> bool {
        *self.grouped.get_or_init(|| c.group_metadata().is_some())
    }
}

/// A consumed message or event, for the application to destroy with
/// `rd_kafka_message_destroy`.
#[repr(C)]
#[derive(Debug)]
pub struct Consumed {
    /// What C sees (must stay first).
    msg: Message,
    /// gregor's message, whose buffers `msg`'s key and payload address.
    inner: GregorMessage,
    /// The headers `rd_kafka_message_headers` lends (writable, as
    /// librdkafka's: the application may edit them), owned by the message
    /// until detached or replaced; NULL for none. A pointer of its own, so
    /// that C's writes through it alias nothing Rust borrows.
    headers: *mut Headers,
    /// An event's text, the payload of an error message.
    errstr: Option<CString>,
    /// Lent to a consume callback for the call only (not boxed):
    /// `rd_kafka_message_destroy` leaves it alone.
    lent: bool,
}

/// The consumer of a handle.
fn consumer<'a>(rk: *const Handle) -> Option<&'a Consumer> {
    match raw::object(rk).map(Handle::client) {
        Some(Client::Consumer(c)) => Some(c),
        _ => None,
    }
}

/// The consumer of a handle with `group.id`: what librdkafka's
/// high-level calls need (its consumer without `group.id` has no group
/// handle, and they fail with `_UNKNOWN_GROUP`).
pub(crate) fn group_consumer<'a>(rk: *const Handle) -> Option<&'a Consumer> {
    let h = raw::object(rk)?;
    let Client::Consumer(c) = h.client() else {
        return None;
    };
    h.consumer_state().grouped(c).then_some(c)
}

/// `rd_kafka_resp_err_t` of a result.
fn code(r: Result<(), Error>) -> c_int {
    r.map_or_else(|e| e.code(), |()| 0)
}

/// The C message of gregor's `m`, boxed for the application.
pub(crate) fn consumed(h: &Handle, m: GregorMessage) -> *mut Message {
    let p = Box::into_raw(Box::new(consumed_value(h, m)));
    // the tag `rd_kafka_message_destroy` and `_headers` look for
    // SAFETY: `p` was just made from a live box.
    unsafe { (*p).msg.c.private = p.cast() };
    p.cast()
}

/// Calls `f` with the C message of gregor's `m`, which lives for the
/// call only (the message of a consume callback, which librdkafka
/// destroys when the callback returns): no allocation per message.
pub(crate) fn with_consumed(h: &Handle, m: GregorMessage, f: impl FnOnce(*mut Message)) {
    let mut c = consumed_value(h, m);
    c.lent = true;
    let p: *mut Consumed = &mut c;
    // tagged as a boxed one is, so `rd_kafka_message_headers` finds it
    // SAFETY: `p` addresses `c`, alive and not moved until it is dropped
    // below, after the call.
    unsafe { (*p).msg.c.private = p.cast() };
    f(p.cast());
    drop(c);
}

/// The C message of gregor's `m` (untagged: see [`consumed`]).
fn consumed_value(h: &Handle, m: GregorMessage) -> Consumed {
    let rkt = if m.topic.is_empty() {
        std::ptr::null_mut()
    } else {
        h.topics().of_message(&m.topic)
    };
    let errstr = m.error.as_ref().map(|e| raw::c_string(&e.to_string()));
    let headers = if m.headers.is_empty() {
        std::ptr::null_mut()
    } else {
        Headers::from_gregor(&m.headers).into_raw()
    };
    let (tstype, timestamp) = match m.timestamp_type {
        _ if m.timestamp < 0 => (0, -1),
        TimestampType::NotAvailable => (0, -1),
        TimestampType::CreateTime => (1, m.timestamp),
        TimestampType::LogAppendTime => (2, m.timestamp),
    };
    let bytes = |b: &Option<gregor::message::Bytes>| {
        b.as_ref().map_or((std::ptr::null_mut(), 0), |b| {
            (b.as_ptr().cast_mut().cast(), b.len())
        })
    };
    let (mut payload, mut len) = bytes(&m.value);
    let (key, key_len) = bytes(&m.key);
    if let Some(e) = &errstr {
        payload = e.as_ptr().cast_mut().cast();
        len = e.as_bytes().len();
    }
    Consumed {
        msg: Message {
            c: RdMessage {
                err: m.error.as_ref().map_or(0, |e| e.code()),
                rkt: rkt.cast(),
                partition: m.partition,
                payload,
                len,
                key,
                key_len,
                offset: m.offset,
                private: std::ptr::null_mut(),
            },
            timestamp,
            tstype,
            latency_us: -1,
            status: MSG_STATUS_PERSISTED,
            broker_id: -1,
            leader_epoch: m.leader_epoch.unwrap_or(-1),
            headers: std::ptr::null_mut(),
        },
        inner: m,
        headers,
        errstr,
        lent: false,
    }
}

/// The consumed message behind `rkmessage`, if it is one (its `_private`
/// is its own address).
fn as_consumed<'a>(rkmessage: *const Message) -> Option<&'a Consumed> {
    let m = raw::object(rkmessage)?;
    (m.c.private.cast_const() == rkmessage.cast()).then(|| {
        // SAFETY: only `consumed` tags a message so; it is a `Consumed`
        // the application has not destroyed yet.
        unsafe { &*rkmessage.cast::<Consumed>() }
    })
}

/// Calls the application's partitions callback (`rebalance_cb`,
/// `offset_commit_cb`).
fn call_partitions(cb: PartitionsCb, rk: usize, err: c_int, list: &OwnedList, opaque: usize) {
    // SAFETY: `cb` is the function the application registered with
    // `rd_kafka_conf_set_rebalance_cb` / `_offset_commit_cb`, called with
    // its documented arguments: the client handle, an error code, a list
    // valid for the call (the library destroys it), the conf's opaque.
    unsafe {
        cb(
            rk as *mut c_void,
            err,
            list.as_ptr().cast(),
            opaque as *mut c_void,
        );
    }
}

/// Sets the gregor callbacks that serve the conf's `rebalance_cb` and
/// `offset_commit_cb` for the consumer handle at `rk`.
pub(crate) fn install_callbacks(h: &Handle, rk: usize) {
    let Client::Consumer(c) = h.client() else {
        return;
    };
    let opaque = h.conf().opaque as usize;
    if h.conf().events & EVENT_REBALANCE != 0 {
        // rd_kafka_conf_set_events: the rebalance is an event of the
        // consumer queue (gregor applies it once the callback returns)
        c.set_rebalance_callback(move |_, event| {
            let err = match event {
                RebalanceEvent::Assigned(_) => RESP_ERR__ASSIGN_PARTITIONS,
                RebalanceEvent::Revoked(_) | RebalanceEvent::Lost(_) => RESP_ERR__REVOKE_PARTITIONS,
            };
            if let Some(h) = raw::object(rk as *const Handle) {
                let list = OwnedList::new(event.partitions());
                h.consumer_state().hold_event(Event::rebalance(err, list));
            }
        });
    } else if let Some(cb) = h.conf().callbacks.rebalance {
        c.set_rebalance_callback(move |_, event| {
            let err = match event {
                RebalanceEvent::Assigned(_) => RESP_ERR__ASSIGN_PARTITIONS,
                RebalanceEvent::Revoked(_) | RebalanceEvent::Lost(_) => RESP_ERR__REVOKE_PARTITIONS,
            };
            let list = OwnedList::new(event.partitions());
            call_partitions(cb, rk, err, &list, opaque);
        });
    }
    if let Some(cb) = h.conf().callbacks.offset_commit {
        c.set_commit_callback(move |_, result, offsets| {
            let list = OwnedList::new(offsets);
            call_partitions(cb, rk, code(result), &list, opaque);
        });
    }
}

/// Serves synchronous commits' results to `offset_commit_cb`.
fn serve_commits(h: &Handle, rk: usize) {
    let Some(cb) = h.conf().callbacks.offset_commit else {
        return;
    };
    let done = std::mem::take(
        &mut *h
            .consumer_state()
            .commits
            .lock()
            .unwrap_or_else(PoisonError::into_inner),
    );
    for (err, offsets) in done {
        let list = OwnedList::new(&offsets);
        call_partitions(cb, rk, err, &list, h.conf().opaque as usize);
    }
}

/// What `rd_kafka_consumer_poll` returns without `group.id`, as
/// librdkafka's: a message of `_UNKNOWN_GROUP`, partition and offset 0,
/// no payload.
fn unknown_group(h: &Handle) -> *mut Message {
    let ev = GregorMessage::event(
        std::sync::Arc::from(""),
        0,
        0,
        Error::local(RESP_ERR__UNKNOWN_GROUP, ""),
    );
    let p = consumed(h, ev);
    if let Some(m) = as_consumed_mut(p) {
        m.msg.c.payload = std::ptr::null_mut();
        m.msg.c.len = 0;
    }
    p
}

/// The next message or event, waiting up to `timeout_ms`
/// (`rd_kafka_consumer_poll`); rebalance and commit callbacks run inside.
/// NULL on timeout, once closed, or for a handle that is no consumer; an
/// `_UNKNOWN_GROUP` message without `group.id`, as librdkafka's.
#[no_mangle]
pub extern "C" fn rd_kafka_consumer_poll(rk: *mut Handle, timeout_ms: c_int) -> *mut Message {
    guard(std::ptr::null_mut(), || {
        let Some(h) = raw::object(rk) else {
            return std::ptr::null_mut();
        };
        let Client::Consumer(c) = h.client() else {
            return std::ptr::null_mut();
        };
        if !h.consumer_state().grouped(c) {
            return unknown_group(h);
        }
        serve_commits(h, rk as usize);
        if h.consumer_state().main_forwarded.load(Ordering::Acquire) {
            crate::queue::serve_main(h, rk as usize);
        }
        match c.poll(timeout(timeout_ms)) {
            Ok(Some(m)) => consumed(h, m),
            _ => std::ptr::null_mut(),
        }
    })
}

/// What a poll of the consumer queue gives (`rd_kafka_queue_poll` on
/// `rd_kafka_queue_get_consumer`'s queue): the next message or error as
/// an event, within `wait`, the offset commit callbacks served first, as
/// `rd_kafka_consumer_poll`. Client-level errors are events too, not
/// `error_cb` calls, as librdkafka's event interface gives them.
pub(crate) fn poll_event(h: &Handle, wait: std::time::Duration) -> Option<Event> {
    let Client::Consumer(c) = h.client() else {
        return None;
    };
    serve_commits(h, h as *const Handle as usize);
    match c.poll_errors(wait) {
        Ok(Some(m)) => Some(Event::consumed(h, m)),
        _ => None,
    }
}

/// Frees a message of `rd_kafka_consumer_poll` (`rd_kafka_message_destroy`).
/// A delivery report's message is the library's: left alone.
#[no_mangle]
pub extern "C" fn rd_kafka_message_destroy(rkmessage: *mut Message) {
    guard((), || {
        if as_consumed(rkmessage).is_some_and(|m| !m.lent) {
            drop(raw::take_box(rkmessage.cast::<Consumed>()));
        }
    })
}

/// The message's headers, owned by the message
/// (`rd_kafka_message_headers`); `_NOENT` when it has none.
#[no_mangle]
pub extern "C" fn rd_kafka_message_headers(
    rkmessage: *const Message,
    hdrsp: *mut *mut Headers,
) -> c_int {
    guard(RESP_ERR__NOENT, || {
        // a consumed message's own, or a delivery report's
        let hs = match as_consumed(rkmessage) {
            Some(m) => Some(m.headers),
            None => raw::object(rkmessage).map(|m| m.headers),
        };
        match hs {
            Some(hs) if !hs.is_null() => {
                raw::write_out(hdrsp, hs);
                0
            }
            _ => RESP_ERR__NOENT,
        }
    })
}

/// The consumed message behind `rkmessage`, writable: the application
/// owns it and passes it as `rd_kafka_message_t *`.
fn as_consumed_mut<'a>(rkmessage: *mut Message) -> Option<&'a mut Consumed> {
    as_consumed(rkmessage)?;
    // SAFETY: a consumed message (checked above) the application owns and
    // passes as writable; nothing else refers to it during the call.
    Some(unsafe { &mut *rkmessage.cast::<Consumed>() })
}

/// Takes the message's headers for the application, to destroy with
/// `rd_kafka_headers_destroy` (`rd_kafka_message_detach_headers`);
/// `_NOENT` when it has none.
#[no_mangle]
pub extern "C" fn rd_kafka_message_detach_headers(
    rkmessage: *mut Message,
    hdrsp: *mut *mut Headers,
) -> c_int {
    guard(RESP_ERR__NOENT, || match as_consumed_mut(rkmessage) {
        Some(m) if !m.headers.is_null() => {
            raw::write_out(
                hdrsp,
                std::mem::replace(&mut m.headers, std::ptr::null_mut()),
            );
            0
        }
        _ => RESP_ERR__NOENT,
    })
}

/// Replaces the message's headers with `hdrs`, which the message owns from
/// then on (`rd_kafka_message_set_headers`); the old ones are destroyed.
/// Only for a consumed message: a delivery report's is left alone.
#[no_mangle]
pub extern "C" fn rd_kafka_message_set_headers(rkmessage: *mut Message, hdrs: *mut Headers) {
    guard((), || {
        if let Some(m) = as_consumed_mut(rkmessage) {
            let old = std::mem::replace(&mut m.headers, hdrs);
            if old != hdrs {
                crate::headers::rd_kafka_headers_destroy(old);
            }
        }
    })
}

impl Drop for Consumed {
    fn drop(&mut self) {
        crate::headers::rd_kafka_headers_destroy(self.headers);
    }
}

/// Redirects the main queue to the consumer's (`rd_kafka_poll_set_consumer`):
/// gregor's consumer serves everything from `rd_kafka_consumer_poll`
/// already; `_UNKNOWN_GROUP` without `group.id`, as librdkafka's.
#[no_mangle]
pub extern "C" fn rd_kafka_poll_set_consumer(rk: *mut Handle) -> c_int {
    guard(RESP_ERR__UNKNOWN_GROUP, || match group_consumer(rk) {
        Some(_) => {
            if let Some(h) = raw::object(rk) {
                h.consumer_state()
                    .main_forwarded
                    .store(true, Ordering::Release);
            }
            0
        }
        _ => RESP_ERR__UNKNOWN_GROUP,
    })
}

/// Subscribes to the topics of `topics` (`^`-prefixed: regular
/// expressions), replacing the subscription (`rd_kafka_subscribe`).
#[no_mangle]
pub extern "C" fn rd_kafka_subscribe(rk: *mut Handle, list: *const TopicPartitionList) -> c_int {
    guard(RESP_ERR__INVALID_ARG, || {
        let Some(c) = group_consumer(rk) else {
            return RESP_ERR__UNKNOWN_GROUP;
        };
        let names = topics(list);
        let mut seen = std::collections::HashSet::new();
        if names.is_empty() || names.iter().any(|n| n.is_empty() || !seen.insert(n)) {
            return RESP_ERR__INVALID_ARG;
        }
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        code(c.subscribe(&names))
    })
}

/// Drops the subscription (`rd_kafka_unsubscribe`).
#[no_mangle]
pub extern "C" fn rd_kafka_unsubscribe(rk: *mut Handle) -> c_int {
    guard(RESP_ERR__UNKNOWN_GROUP, || match group_consumer(rk) {
        Some(c) => code(c.unsubscribe()),
        _ => RESP_ERR__UNKNOWN_GROUP,
    })
}

/// The subscription, a new list of its topics with partition
/// `RD_KAFKA_PARTITION_UA` (`rd_kafka_subscription`).
#[no_mangle]
pub extern "C" fn rd_kafka_subscription(
    rk: *mut Handle,
    list: *mut *mut TopicPartitionList,
) -> c_int {
    guard(RESP_ERR__INVALID_ARG, || {
        let Some(c) = group_consumer(rk) else {
            return RESP_ERR__UNKNOWN_GROUP;
        };
        let tpos: Vec<_> = c
            .subscription()
            .iter()
            .map(|t| TopicPartitionOffset::new(t, PARTITION_UA, OFFSET_INVALID))
            .collect();
        raw::write_out(list, new_list(&tpos));
        0
    })
}

/// Closes the consumer (`rd_kafka_consumer_close`): revokes the
/// assignment (through the rebalance callback), commits with
/// `enable.auto.commit`, leaves the group.
#[no_mangle]
pub extern "C" fn rd_kafka_consumer_close(rk: *mut Handle) -> c_int {
    guard(RESP_ERR__UNKNOWN_GROUP, || match group_consumer(rk) {
        Some(c) => {
            c.close();
            0
        }
        None => RESP_ERR__UNKNOWN_GROUP,
    })
}

/// Whether the consumer is closed (`rd_kafka_consumer_closed`).
#[no_mangle]
pub extern "C" fn rd_kafka_consumer_closed(rk: *mut Handle) -> c_int {
    guard(0, || {
        group_consumer(rk).map_or(0, |c| c_int::from(c.closed()))
    })
}

/// Replaces the assignment; NULL unassigns (`rd_kafka_assign`).
#[no_mangle]
pub extern "C" fn rd_kafka_assign(rk: *mut Handle, list: *const TopicPartitionList) -> c_int {
    guard(RESP_ERR__INVALID_ARG, || {
        let Some(c) = group_consumer(rk) else {
            return RESP_ERR__UNKNOWN_GROUP;
        };
        if list.is_null() {
            code(c.unassign())
        } else {
            code(c.assign(&to_offsets(list)))
        }
    })
}

/// The error object of a failed result, NULL for success.
fn error_object(r: Result<(), Error>) -> *mut c_void {
    r.map_or_else(
        |e| ErrorObject::boxed(e.code(), &e.to_string()),
        |()| std::ptr::null_mut(),
    )
}

/// The error object of an assignment call without `group.id`.
fn no_group() -> *mut c_void {
    ErrorObject::boxed(
        RESP_ERR__UNKNOWN_GROUP,
        "Requires a consumer with group.id configured",
    )
}

/// Adds `list` to the assignment (`rd_kafka_incremental_assign`).
#[no_mangle]
pub extern "C" fn rd_kafka_incremental_assign(
    rk: *mut Handle,
    list: *const TopicPartitionList,
) -> *mut c_void {
    guard(std::ptr::null_mut(), || match group_consumer(rk) {
        Some(c) => error_object(c.incremental_assign(&to_offsets(list))),
        None => no_group(),
    })
}

/// Removes `list` from the assignment (`rd_kafka_incremental_unassign`).
#[no_mangle]
pub extern "C" fn rd_kafka_incremental_unassign(
    rk: *mut Handle,
    list: *const TopicPartitionList,
) -> *mut c_void {
    guard(std::ptr::null_mut(), || match group_consumer(rk) {
        Some(c) => error_object(c.incremental_unassign(&to_offsets(list))),
        None => no_group(),
    })
}

/// The assignment, a new list (`rd_kafka_assignment`).
#[no_mangle]
pub extern "C" fn rd_kafka_assignment(
    rk: *mut Handle,
    list: *mut *mut TopicPartitionList,
) -> c_int {
    guard(RESP_ERR__UNKNOWN_GROUP, || match group_consumer(rk) {
        Some(c) => {
            raw::write_out(list, new_list(&c.assignment()));
            0
        }
        None => RESP_ERR__UNKNOWN_GROUP,
    })
}

/// Whether the last revocation was of lost partitions
/// (`rd_kafka_assignment_lost`).
#[no_mangle]
pub extern "C" fn rd_kafka_assignment_lost(rk: *mut Handle) -> c_int {
    guard(0, || {
        group_consumer(rk).map_or(0, |c| c_int::from(c.assignment_lost()))
    })
}

/// "NONE", "EAGER" or "COOPERATIVE"; NULL without a group
/// (`rd_kafka_rebalance_protocol`).
#[no_mangle]
pub extern "C" fn rd_kafka_rebalance_protocol(rk: *mut Handle) -> *const c_char {
    guard(std::ptr::null(), || match group_consumer(rk) {
        Some(c) => match c.rebalance_protocol() {
            "EAGER" => c"EAGER".as_ptr(),
            "COOPERATIVE" => c"COOPERATIVE".as_ptr(),
            _ => c"NONE".as_ptr(),
        },
        _ => std::ptr::null(),
    })
}

/// The member id the coordinator gave, malloc'ed for the application
/// (`rd_kafka_memberid`, freed with `rd_kafka_mem_free`); NULL without a
/// group.
#[no_mangle]
pub extern "C" fn rd_kafka_memberid(rk: *const Handle) -> *mut c_char {
    guard(std::ptr::null_mut(), || match group_consumer(rk) {
        Some(c) => crate::mem::strdup_bytes(c.member_id().as_bytes()),
        _ => std::ptr::null_mut(),
    })
}

/// Commits `offsets`, or with NULL the stored offsets of the assignment
/// (`rd_kafka_commit`); with `async` 0 waits for the answer.
#[no_mangle]
pub extern "C" fn rd_kafka_commit(
    rk: *mut Handle,
    offsets: *const TopicPartitionList,
    is_async: c_int,
) -> c_int {
    guard(RESP_ERR__INVALID_ARG, || {
        let Some(h) = raw::object(rk) else {
            return RESP_ERR__INVALID_ARG;
        };
        let Some(c) = group_consumer(h) else {
            return RESP_ERR__UNKNOWN_GROUP;
        };
        let list = (!offsets.is_null()).then(|| to_offsets(offsets));
        commit(h, c, list.as_deref(), is_async != 0)
    })
}

/// A commit of `offsets` (`None`: the stored ones), queueing a
/// synchronous one's result for `offset_commit_cb`.
fn commit(
    h: &Handle,
    c: &Consumer,
    offsets: Option<&[TopicPartitionOffset]>,
    is_async: bool,
) -> c_int {
    if is_async {
        return code(c.commit_async(offsets));
    }
    let (err, entries) = match c.commit(offsets, timeout(-1)) {
        Ok(entries) => (0, entries),
        Err(e) => (e.code(), offsets.map(<[_]>::to_vec).unwrap_or_default()),
    };
    if h.conf().callbacks.offset_commit.is_some() {
        h.consumer_state()
            .commits
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((err, entries));
    }
    err
}

/// `RD_KAFKA_RESP_ERR__NOT_IMPLEMENTED`.
const RESP_ERR__NOT_IMPLEMENTED: c_int = -170;

/// Commits `offsets` (NULL: the stored ones) and hands the result to `cb`
/// (`rd_kafka_commit_queue`). Without a queue, as rdkafka.h describes it,
/// the call waits for the commit and runs `cb` itself, on the calling
/// thread, with `commit_opaque` and the partitions committed (an empty
/// list when there was nothing to commit), then returns the commit's
/// result; the conf's `offset_commit_cb` is not called for it. The result
/// as an event on `rkqu` is not built yet: with a queue the call fails
/// with `_NOT_IMPLEMENTED` and commits nothing.
#[no_mangle]
pub extern "C" fn rd_kafka_commit_queue(
    rk: *mut Handle,
    offsets: *const TopicPartitionList,
    rkqu: *mut crate::queue::Queue,
    cb: Option<PartitionsCb>,
    commit_opaque: *mut c_void,
) -> c_int {
    guard(RESP_ERR__INVALID_ARG, || {
        let Some(h) = raw::object(rk) else {
            return RESP_ERR__INVALID_ARG;
        };
        let Some(c) = group_consumer(h) else {
            return RESP_ERR__UNKNOWN_GROUP;
        };
        if !rkqu.is_null() {
            return RESP_ERR__NOT_IMPLEMENTED;
        }
        let list = (!offsets.is_null()).then(|| to_offsets(offsets));
        // the partitions with their own errors; the call's result is the
        // first of them
        let (err, entries) = match c.commit_each(list.as_deref(), timeout(-1)) {
            Ok(entries) => {
                let first = entries.iter().find_map(|t| t.error.as_ref());
                (first.map_or(0, Error::code), entries)
            }
            Err(e) => (e.code(), list.unwrap_or_default()),
        };
        if let Some(cb) = cb {
            let list = OwnedList::new(&entries);
            call_partitions(cb, rk as usize, err, &list, commit_opaque as usize);
        }
        err
    })
}

/// Commits the offset after `rkmessage` (`rd_kafka_commit_message`).
#[no_mangle]
pub extern "C" fn rd_kafka_commit_message(
    rk: *mut Handle,
    rkmessage: *const Message,
    is_async: c_int,
) -> c_int {
    guard(RESP_ERR__INVALID_ARG, || {
        let (Some(h), Some(m)) = (raw::object(rk), raw::object(rkmessage)) else {
            return RESP_ERR__INVALID_ARG;
        };
        let Some(c) = group_consumer(h) else {
            return RESP_ERR__UNKNOWN_GROUP;
        };
        if m.c.err != 0 {
            return RESP_ERR__INVALID_ARG;
        }
        let Some(topic) = raw::object(m.c.rkt.cast_const().cast::<Topic>()) else {
            return RESP_ERR__INVALID_ARG;
        };
        let tpo = TopicPartitionOffset::new(topic.name(), m.c.partition, m.c.offset + 1);
        commit(h, c, Some(&[tpo]), is_async != 0)
    })
}

/// The group's committed offsets of the list's partitions, written into
/// it (`rd_kafka_committed`).
#[no_mangle]
pub extern "C" fn rd_kafka_committed(
    rk: *mut Handle,
    list: *mut TopicPartitionList,
    timeout_ms: c_int,
) -> c_int {
    guard(RESP_ERR__INVALID_ARG, || {
        let Some(c) = group_consumer(rk) else {
            return RESP_ERR__UNKNOWN_GROUP;
        };
        match c.committed(&to_offsets(list), timeout(timeout_ms)) {
            Ok(found) => {
                update_list(list, &found);
                0
            }
            Err(e) => e.code(),
        }
    })
}

/// The positions of the list's partitions, written into it
/// (`rd_kafka_position`).
#[no_mangle]
pub extern "C" fn rd_kafka_position(rk: *mut Handle, list: *mut TopicPartitionList) -> c_int {
    guard(RESP_ERR__INVALID_ARG, || {
        let Some(c) = consumer(rk) else {
            return RESP_ERR__INVALID_ARG;
        };
        update_list(list, &c.position(&to_offsets(list)));
        0
    })
}

/// Stores the list's offsets for the next commit (`rd_kafka_offsets_store`),
/// each element's error in it. As librdkafka's: `_INVALID_ARG` while
/// `enable.auto.offset.store` is on; else an error only when no element
/// was stored (the last element's).
#[no_mangle]
pub extern "C" fn rd_kafka_offsets_store(rk: *mut Handle, list: *mut TopicPartitionList) -> c_int {
    guard(RESP_ERR__INVALID_ARG, || {
        let (Some(h), Some(c)) = (raw::object(rk), consumer(rk)) else {
            return RESP_ERR__INVALID_ARG;
        };
        if h.conf().props.get("enable.auto.offset.store") != Some("false") {
            return RESP_ERR__INVALID_ARG;
        }
        let tpos = to_offsets(list);
        let (mut ok, mut last) = (0, 0);
        for tpo in &tpos {
            let mut done = tpo.clone();
            done.error = c.store_offsets(std::slice::from_ref(tpo)).err();
            match &done.error {
                Some(e) => last = e.code(),
                None => ok += 1,
            }
            update_list(list, &[done]);
        }
        if !tpos.is_empty() && ok == 0 {
            last
        } else {
            0
        }
    })
}

/// Stores the offset after a consumed message for the next commit
/// (`rd_kafka_offset_store_message`): NULL, or an error object
/// (`_INVALID_ARG` for a message with an error or not consumed).
#[no_mangle]
pub extern "C" fn rd_kafka_offset_store_message(rkmessage: *mut Message) -> *mut c_void {
    guard(std::ptr::null_mut(), || {
        let Some(m) = as_consumed(rkmessage) else {
            return ErrorObject::boxed(
                RESP_ERR__INVALID_ARG,
                "Invalid message object, not a consumed message",
            );
        };
        if m.msg.c.err != 0 {
            return ErrorObject::boxed(
                RESP_ERR__INVALID_ARG,
                "Message object must not have an error set",
            );
        }
        let Some(topic) = raw::object(m.msg.c.rkt.cast_const().cast::<Topic>()) else {
            return ErrorObject::boxed(
                RESP_ERR__INVALID_ARG,
                "Invalid message object, not a consumed message",
            );
        };
        let Some(Client::Consumer(c)) = topic.handle().map(Handle::client) else {
            return ErrorObject::boxed(RESP_ERR__INVALID_ARG, "Not a consumer");
        };
        let mut tpo =
            TopicPartitionOffset::new(topic.name(), m.msg.c.partition, m.msg.c.offset + 1);
        tpo.leader_epoch = (m.msg.leader_epoch >= 0).then_some(m.msg.leader_epoch);
        error_object(c.store_offsets(&[tpo]))
    })
}

/// Stores `offset + 1` of the topic's partition for the next commit
/// (`rd_kafka_offset_store`, the legacy per-topic call).
#[no_mangle]
pub extern "C" fn rd_kafka_offset_store(rkt: *mut Topic, partition: i32, offset: i64) -> c_int {
    guard(RESP_ERR__INVALID_ARG, || {
        let Some(t) = raw::object(rkt) else {
            return RESP_ERR__INVALID_ARG;
        };
        let Some(Client::Consumer(c)) = t.handle().map(Handle::client) else {
            return RESP_ERR__INVALID_ARG;
        };
        code(c.store_offsets(&[TopicPartitionOffset::new(t.name(), partition, offset + 1)]))
    })
}

/// Moves the list's partitions to their offsets
/// (`rd_kafka_seek_partitions`); per-partition errors in the list.
#[no_mangle]
pub extern "C" fn rd_kafka_seek_partitions(
    rk: *mut Handle,
    list: *mut TopicPartitionList,
    timeout_ms: c_int,
) -> *mut c_void {
    guard(std::ptr::null_mut(), || {
        let _ = timeout_ms;
        let Some(c) = consumer(rk) else {
            return ErrorObject::boxed(RESP_ERR__INVALID_ARG, "Not a consumer");
        };
        let tpos = to_offsets(list);
        for tpo in &tpos {
            let r = c.seek(&tpo.topic, tpo.partition, tpo.offset);
            let mut done = tpo.clone();
            done.error = r.err();
            update_list(list, &[done]);
        }
        std::ptr::null_mut()
    })
}

/// Moves the topic's partition to `offset` (`rd_kafka_seek`, legacy).
#[no_mangle]
pub extern "C" fn rd_kafka_seek(
    rkt: *mut Topic,
    partition: i32,
    offset: i64,
    timeout_ms: c_int,
) -> c_int {
    guard(RESP_ERR__INVALID_ARG, || {
        let _ = timeout_ms;
        let Some(t) = raw::object(rkt) else {
            return RESP_ERR__INVALID_ARG;
        };
        let Some(h) = t.handle() else {
            return RESP_ERR__INVALID_ARG;
        };
        let Client::Consumer(c) = h.client() else {
            return RESP_ERR__INVALID_ARG;
        };
        let r = c.seek(t.name(), partition, offset);
        if r.is_ok() {
            h.consumer_state().legacy.drop_waiting(t.name(), partition);
        }
        code(r)
    })
}

/// Pauses or resumes each of the list's partitions, its error in it.
fn pause_resume(rk: *mut Handle, list: *mut TopicPartitionList, pause: bool) -> c_int {
    let Some(c) = consumer(rk) else {
        return RESP_ERR__INVALID_ARG;
    };
    for tpo in to_offsets(list) {
        let one = [tpo];
        let r = if pause { c.pause(&one) } else { c.resume(&one) };
        let [mut done] = one;
        done.error = r.err();
        update_list(list, &[done]);
    }
    0
}

/// Pauses fetching the list's partitions (`rd_kafka_pause_partitions`).
#[no_mangle]
pub extern "C" fn rd_kafka_pause_partitions(
    rk: *mut Handle,
    list: *mut TopicPartitionList,
) -> c_int {
    guard(RESP_ERR__INVALID_ARG, || pause_resume(rk, list, true))
}

/// Resumes fetching the list's partitions (`rd_kafka_resume_partitions`).
#[no_mangle]
pub extern "C" fn rd_kafka_resume_partitions(
    rk: *mut Handle,
    list: *mut TopicPartitionList,
) -> c_int {
    guard(RESP_ERR__INVALID_ARG, || pause_resume(rk, list, false))
}

/// The partition's low and high watermarks, asked of its leader
/// (`rd_kafka_query_watermark_offsets`), through a consumer or a producer
/// handle alike, as librdkafka's.
#[no_mangle]
pub extern "C" fn rd_kafka_query_watermark_offsets(
    rk: *mut Handle,
    topic: *const c_char,
    partition: i32,
    low: *mut i64,
    high: *mut i64,
    timeout_ms: c_int,
) -> c_int {
    guard(RESP_ERR__INVALID_ARG, || {
        let (Some(h), Some(t)) = (raw::object(rk), raw::read_cstr(topic)) else {
            return RESP_ERR__INVALID_ARG;
        };
        let found = match h.client() {
            Client::Consumer(c) => c.watermarks(&t, partition, timeout(timeout_ms)),
            Client::Producer(p) => p.watermarks(&t, partition, timeout(timeout_ms)),
        };
        match found {
            Ok((lo, hi)) => {
                raw::write_out(low, lo);
                raw::write_out(high, hi);
                0
            }
            Err(e) => e.code(),
        }
    })
}

/// The watermarks the last fetch brought back, without asking
/// (`rd_kafka_get_watermark_offsets`); -1001 for what is not known yet.
#[no_mangle]
pub extern "C" fn rd_kafka_get_watermark_offsets(
    rk: *mut Handle,
    topic: *const c_char,
    partition: i32,
    low: *mut i64,
    high: *mut i64,
) -> c_int {
    guard(RESP_ERR__INVALID_ARG, || {
        let (Some(c), Some(t)) = (consumer(rk), raw::read_cstr(topic)) else {
            return RESP_ERR__INVALID_ARG;
        };
        match c.cached_watermarks(&t, partition) {
            Ok((lo, hi)) => {
                raw::write_out(low, lo);
                raw::write_out(high, hi);
                0
            }
            Err(e) => e.code(),
        }
    })
}

/// For each of the list's partitions, the first offset whose timestamp is
/// at or after the element's offset, written into it
/// (`rd_kafka_offsets_for_times`); on a producer handle too (kcat's `-Q`
/// asks through one), under the conf's `isolation.level` as librdkafka.
/// An empty list is `_INVALID_ARG`, as librdkafka's.
#[no_mangle]
pub extern "C" fn rd_kafka_offsets_for_times(
    rk: *mut Handle,
    list: *mut TopicPartitionList,
    timeout_ms: c_int,
) -> c_int {
    guard(RESP_ERR__INVALID_ARG, || {
        let Some(h) = raw::object(rk) else {
            return RESP_ERR__INVALID_ARG;
        };
        let tps = to_offsets(list);
        if tps.is_empty() {
            return RESP_ERR__INVALID_ARG;
        }
        let found = match h.client() {
            Client::Consumer(c) => c.offsets_for_times(&tps, timeout(timeout_ms)),
            Client::Producer(p) => {
                let read_committed =
                    h.conf().props.get("isolation.level") != Some("read_uncommitted");
                let entries: Vec<(&str, i32, i64)> = tps
                    .iter()
                    .map(|tp| (&*tp.topic, tp.partition, tp.offset))
                    .collect();
                p.offsets_for_times(&entries, read_committed, timeout(timeout_ms))
                    .map(|found| {
                        tps.iter()
                            .zip(found)
                            .map(|(tp, found)| {
                                let mut t = TopicPartitionOffset::new(&tp.topic, tp.partition, -1);
                                match found {
                                    Ok((offset, epoch)) => {
                                        t.offset = offset;
                                        t.leader_epoch = epoch;
                                    }
                                    Err(e) => t.error = Some(e),
                                }
                                t
                            })
                            .collect::<Vec<_>>()
                    })
            }
        };
        match found {
            Ok(found) => {
                update_list(list, &found);
                0
            }
            Err(e) => e.code(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conf::{rd_kafka_conf_new, rd_kafka_conf_set};
    use crate::handle::{
        rd_kafka_destroy_flags, rd_kafka_new, CONSUMER, DESTROY_F_NO_CONSUMER_CLOSE,
    };
    use crate::headers::{rd_kafka_header_add, rd_kafka_header_cnt};
    use crate::message::rd_kafka_message_timestamp;
    use gregor::message::Header as GregorHeader;
    use std::sync::Arc;

    /// A consumer handle of an unreachable cluster (nothing is fetched).
    fn handle(group: bool) -> *mut Handle {
        let conf = rd_kafka_conf_new();
        let mut errstr = [0 as c_char; 256];
        let mut set = |k: &std::ffi::CStr, v: &std::ffi::CStr| {
            rd_kafka_conf_set(
                conf,
                k.as_ptr(),
                v.as_ptr(),
                errstr.as_mut_ptr(),
                errstr.len(),
            )
        };
        assert_eq!(set(c"bootstrap.servers", c"127.0.0.1:1"), 0);
        if group {
            assert_eq!(set(c"group.id", c"g"), 0);
        }
        let rk = rd_kafka_new(CONSUMER, conf, errstr.as_mut_ptr(), errstr.len());
        assert!(!rk.is_null());
        rk
    }

    fn record() -> GregorMessage {
        let mut m = GregorMessage::event(Arc::from("t"), 3, 42, Error::invalid_arg("unused"));
        m.error = None;
        m.key = Some(b"k".to_vec().into());
        m.value = Some(b"value".to_vec().into());
        m.headers = vec![GregorHeader {
            key: b"h".to_vec().into(),
            value: Some(b"x".to_vec().into()),
        }];
        m.timestamp = 1234;
        m.timestamp_type = TimestampType::CreateTime;
        m
    }

    #[test]
    fn a_consumed_message_owns_its_buffers_and_headers() {
        let rk = handle(true);
        let h = raw::object(rk).unwrap();
        let p = consumed(h, record());
        let m = raw::object(p).unwrap();
        assert_eq!(m.c.err, 0);
        assert_eq!((m.c.partition, m.c.offset), (3, 42));
        assert_eq!(raw::read_bytes(m.c.key, m.c.key_len), Some(&b"k"[..]));
        assert_eq!(raw::read_bytes(m.c.payload, m.c.len), Some(&b"value"[..]));
        let topic = raw::object(m.c.rkt.cast_const().cast::<Topic>()).unwrap();
        assert_eq!(topic.name(), "t");
        let mut ty = 0;
        assert_eq!(rd_kafka_message_timestamp(p, &mut ty), 1234);
        assert_eq!(ty, 1);
        let mut hs = std::ptr::null_mut();
        assert_eq!(rd_kafka_message_headers(p, &mut hs), 0);
        assert_eq!(rd_kafka_header_cnt(hs), 1);
        // the message's own headers are writable, as librdkafka's
        assert_eq!(
            rd_kafka_header_add(hs, c"n".as_ptr(), -1, std::ptr::null(), 0),
            0
        );
        assert_eq!(rd_kafka_header_cnt(hs), 2);
        let mut detached = std::ptr::null_mut();
        assert_eq!(rd_kafka_message_detach_headers(p, &mut detached), 0);
        assert_eq!(
            rd_kafka_header_add(detached, c"n".as_ptr(), -1, std::ptr::null(), 0),
            0
        );
        assert_eq!(rd_kafka_message_headers(p, &mut hs), RESP_ERR__NOENT);
        rd_kafka_message_set_headers(p, detached);
        assert_eq!(rd_kafka_message_headers(p, &mut hs), 0);
        assert_eq!(rd_kafka_header_cnt(hs), 3);
        rd_kafka_message_destroy(p);
        rd_kafka_destroy_flags(rk, DESTROY_F_NO_CONSUMER_CLOSE);
    }

    #[test]
    fn an_event_carries_its_text_as_payload() {
        let rk = handle(true);
        let h = raw::object(rk).unwrap();
        let ev = GregorMessage::event(Arc::from("t"), 0, 7, Error::local(-191, "at the end"));
        let p = consumed(h, ev);
        let m = raw::object(p).unwrap();
        assert_eq!(m.c.err, -191);
        let text = raw::read_bytes(m.c.payload, m.c.len).unwrap();
        assert!(String::from_utf8_lossy(text).contains("at the end"));
        assert!(m.c.key.is_null());
        assert_eq!(rd_kafka_message_timestamp(p, std::ptr::null_mut()), -1);
        rd_kafka_message_destroy(p);
        rd_kafka_destroy_flags(rk, DESTROY_F_NO_CONSUMER_CLOSE);
    }

    #[test]
    fn group_calls_need_a_group() {
        let rk = handle(false);
        assert_eq!(rd_kafka_poll_set_consumer(rk), RESP_ERR__UNKNOWN_GROUP);
        assert_eq!(rd_kafka_unsubscribe(rk), RESP_ERR__UNKNOWN_GROUP);
        assert!(rd_kafka_rebalance_protocol(rk).is_null());
        assert!(rd_kafka_memberid(rk).is_null());
        assert_eq!(
            rd_kafka_assign(rk, std::ptr::null()),
            RESP_ERR__UNKNOWN_GROUP
        );
        assert_eq!(
            rd_kafka_commit(rk, std::ptr::null(), 0),
            RESP_ERR__UNKNOWN_GROUP
        );
        assert_eq!(rd_kafka_consumer_close(rk), RESP_ERR__UNKNOWN_GROUP);
        let p = rd_kafka_consumer_poll(rk, 0);
        let m = raw::object(p).unwrap();
        assert_eq!(
            (m.c.err, m.c.partition, m.c.offset),
            (RESP_ERR__UNKNOWN_GROUP, 0, 0)
        );
        assert!(m.c.payload.is_null() && m.c.rkt.is_null());
        rd_kafka_message_destroy(p);
        rd_kafka_destroy_flags(rk, DESTROY_F_NO_CONSUMER_CLOSE);
        let rk = handle(true);
        assert_eq!(rd_kafka_poll_set_consumer(rk), 0);
        let empty = OwnedList::new(&[]);
        assert_eq!(
            rd_kafka_subscribe(rk, empty.as_ptr()),
            RESP_ERR__INVALID_ARG
        );
        let twice = OwnedList::new(&[
            TopicPartitionOffset::new("a", PARTITION_UA, OFFSET_INVALID),
            TopicPartitionOffset::new("a", PARTITION_UA, OFFSET_INVALID),
        ]);
        assert_eq!(
            rd_kafka_subscribe(rk, twice.as_ptr()),
            RESP_ERR__INVALID_ARG
        );
        assert_eq!(rd_kafka_consumer_closed(rk), 0);
        rd_kafka_destroy_flags(rk, DESTROY_F_NO_CONSUMER_CLOSE);
    }

    #[test]
    fn null_handles_fail_cleanly() {
        let null = std::ptr::null_mut();
        assert!(rd_kafka_consumer_poll(null, 0).is_null());
        assert_eq!(
            rd_kafka_subscribe(null, std::ptr::null()),
            RESP_ERR__UNKNOWN_GROUP
        );
        assert_eq!(
            rd_kafka_commit(null, std::ptr::null(), 0),
            RESP_ERR__INVALID_ARG
        );
        assert_eq!(
            rd_kafka_assign(null, std::ptr::null()),
            RESP_ERR__UNKNOWN_GROUP
        );
        rd_kafka_message_destroy(std::ptr::null_mut());
        let mut hs = std::ptr::null_mut();
        assert_eq!(
            rd_kafka_message_headers(std::ptr::null(), &mut hs),
            RESP_ERR__NOENT
        );
    }
}

// on a private mock cluster (test.mock.num.brokers)
#[cfg(test)]
mod destroy_tests {
    use super::*;
    use crate::conf::{
        rd_kafka_conf_new, rd_kafka_conf_set, rd_kafka_conf_set_opaque,
        rd_kafka_conf_set_rebalance_cb,
    };
    use crate::handle::{
        rd_kafka_destroy_flags, rd_kafka_new, CONSUMER, DESTROY_F_NO_CONSUMER_CLOSE,
    };
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::{Duration, Instant};

    /// Counts its calls in the opaque and applies each event.
    unsafe extern "C" fn counting_rebalance_cb(
        rk: *mut c_void,
        err: c_int,
        parts: *mut c_void,
        opaque: *mut c_void,
    ) {
        if let Some(n) = raw::object(opaque.cast_const().cast::<AtomicUsize>()) {
            n.fetch_add(1, Ordering::SeqCst);
        }
        let list = if err == RESP_ERR__ASSIGN_PARTITIONS {
            parts.cast_const().cast()
        } else {
            std::ptr::null()
        };
        rd_kafka_assign(rk.cast(), list);
    }

    /// A subscribed consumer of a one-broker mock cluster, polled until
    /// its partitions are assigned; its rebalance callback counts in `n`.
    fn assigned(n: &AtomicUsize) -> *mut Handle {
        let conf = rd_kafka_conf_new();
        let mut errstr = [0 as c_char; 256];
        for (k, v) in [
            (c"test.mock.num.brokers", c"1"),
            (c"group.id", c"destroy_flags"),
            (c"allow.auto.create.topics", c"true"),
        ] {
            let r = rd_kafka_conf_set(conf, k.as_ptr(), v.as_ptr(), errstr.as_mut_ptr(), 256);
            assert_eq!(r, 0, "{k:?}");
        }
        rd_kafka_conf_set_opaque(conf, (n as *const AtomicUsize).cast_mut().cast());
        rd_kafka_conf_set_rebalance_cb(conf, Some(counting_rebalance_cb));
        let rk = rd_kafka_new(CONSUMER, conf, errstr.as_mut_ptr(), errstr.len());
        assert!(!rk.is_null());
        let topics =
            OwnedList::new(&[TopicPartitionOffset::new("t", PARTITION_UA, OFFSET_INVALID)]);
        assert_eq!(rd_kafka_subscribe(rk, topics.as_ptr()), 0);
        let deadline = Instant::now() + Duration::from_secs(20);
        while n.load(Ordering::SeqCst) == 0 {
            assert!(Instant::now() < deadline, "no assignment");
            let m = rd_kafka_consumer_poll(rk, 100);
            if !m.is_null() {
                rd_kafka_message_destroy(m);
            }
        }
        rk
    }

    /// rdkafka.h: with RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE no consumer
    /// callback runs from rd_kafka_destroy_flags; without it, the close
    /// serves the revocation to the rebalance callback.
    #[test]
    fn destroy_without_consumer_close_calls_no_rebalance_callback() {
        let n = AtomicUsize::new(0);
        let rk = assigned(&n);
        let before = n.load(Ordering::SeqCst);
        rd_kafka_destroy_flags(rk, DESTROY_F_NO_CONSUMER_CLOSE);
        assert_eq!(n.load(Ordering::SeqCst), before);

        let n = AtomicUsize::new(0);
        let rk = assigned(&n);
        let before = n.load(Ordering::SeqCst);
        rd_kafka_destroy_flags(rk, 0);
        assert!(n.load(Ordering::SeqCst) > before);
    }
}
