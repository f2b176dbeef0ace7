//! Events, `rd_kafka_event_t` of rdkafka.h, as `rd_kafka_queue_poll`
//! returns them: the results of the admin calls CreateTopics, DeleteTopics
//! and CreatePartitions (`rd_kafka_event_type`, `_name`, `_error`,
//! `_error_string`, `_opaque`, `_destroy`, `rd_kafka_event_*_result` and
//! `rd_kafka_*_result_topics`), and what the consumer queue
//! (`rd_kafka_queue_get_consumer`) gives: a consumed message as a
//! `RD_KAFKA_EVENT_FETCH` (`rd_kafka_event_message_next`, `_count`,
//! `_array`), a consumer error as a `RD_KAFKA_EVENT_ERROR` with the
//! error's code and text, as librdkafka's consumer error ops.
//!
//! As in librdkafka, a result type (`rd_kafka_CreateTopics_result_t`) is
//! the event itself seen through another name: `rd_kafka_event_*_result`
//! returns the event's pointer when the type matches, else NULL. The topic
//! results are owned by the event and live until `rd_kafka_event_destroy`.

#![allow(unsafe_code)] // `#[no_mangle]`

use std::cell::Cell;
use std::ffi::{c_char, c_int, c_void, CString};
use std::ptr;

use gregor::message::Message as GregorMessage;

use crate::admin_parts::TopicResult;
use crate::errors::rd_kafka_err2str;
use crate::guard::guard;
use crate::handle::Handle;
use crate::message::Message;
use crate::raw;

/// `RD_KAFKA_EVENT_NONE`.
pub const EVENT_NONE: c_int = 0;
/// `RD_KAFKA_EVENT_FETCH`.
pub const EVENT_FETCH: c_int = 2;
/// `RD_KAFKA_EVENT_ERROR`.
pub const EVENT_ERROR: c_int = 8;
/// `RD_KAFKA_EVENT_CREATETOPICS_RESULT`.
pub const EVENT_CREATETOPICS_RESULT: c_int = 100;
/// `RD_KAFKA_EVENT_DELETETOPICS_RESULT`.
pub const EVENT_DELETETOPICS_RESULT: c_int = 101;
/// `RD_KAFKA_EVENT_CREATEPARTITIONS_RESULT`.
pub const EVENT_CREATEPARTITIONS_RESULT: c_int = 102;

/// `rd_kafka_event_t`: an admin call's result, a consumed message or a
/// consumer error.
#[derive(Debug)]
pub struct Event {
    kind: c_int,
    err: c_int,
    /// The request's error text; `None`: the code's (`rd_kafka_err2str`).
    errstr: Option<CString>,
    /// The AdminOptions' opaque.
    opaque: usize,
    topics: Vec<TopicResult>,
    /// The addresses of `topics`' elements, the array the
    /// `*_result_topics` calls return (the vector's buffer does not move
    /// with the event).
    ptrs: Vec<usize>,
    /// A fetch event's message (a `rd_kafka_consumer_poll` message the
    /// event owns), 0 for none.
    message: usize,
    /// Whether `rd_kafka_event_message_next` gave the message already.
    message_given: Cell<bool>,
}

impl Drop for Event {
    fn drop(&mut self) {
        if self.message != 0 {
            crate::consumer::rd_kafka_message_destroy(self.message as *mut Message);
        }
    }
}

impl Event {
    /// An admin result of type `kind`: the topics' results, or the whole
    /// request's error (code and text) with no topic results.
    pub(crate) fn admin(
        kind: c_int,
        opaque: usize,
        result: Result<Vec<TopicResult>, (c_int, String)>,
    ) -> Self {
        let (err, errstr, topics) = match result {
            Ok(topics) => (0, None, topics),
            Err((code, text)) => (code, Some(text), Vec::new()),
        };
        let ptrs = topics
            .iter()
            .map(|t| t as *const TopicResult as usize)
            .collect();
        Event {
            kind,
            err,
            errstr: errstr.map(|t| raw::c_string(&t)),
            opaque,
            topics,
            ptrs,
            message: 0,
            message_given: Cell::new(false),
        }
    }

    /// What the consumer queue gives for a message of the consumer of `h`:
    /// a fetch event owning the message, or an error event for a consumer
    /// error (its code and text).
    pub(crate) fn consumed(h: &Handle, m: GregorMessage) -> Self {
        let (kind, err, errstr, message) = match &m.error {
            Some(e) => (
                EVENT_ERROR,
                e.code(),
                Some(raw::c_string(&e.to_string())),
                0,
            ),
            None => (
                EVENT_FETCH,
                0,
                None,
                crate::consumer::consumed(h, m) as usize,
            ),
        };
        Event {
            kind,
            err,
            errstr,
            opaque: 0,
            topics: Vec::new(),
            ptrs: Vec::new(),
            message,
            message_given: Cell::new(false),
        }
    }

    /// The event's error code.
    #[cfg(test)]
    pub(crate) fn err(&self) -> c_int {
        self.err
    }
}

/// The event's type (`rd_kafka_event_type`); `RD_KAFKA_EVENT_NONE` for
/// NULL.
#[no_mangle]
pub extern "C" fn rd_kafka_event_type(rkev: *const Event) -> c_int {
    guard(EVENT_NONE, || {
        raw::object(rkev).map_or(EVENT_NONE, |e| e.kind)
    })
}

/// The event type's name (`rd_kafka_event_name`), as librdkafka's.
#[no_mangle]
pub extern "C" fn rd_kafka_event_name(rkev: *const Event) -> *const c_char {
    guard(c"(NONE)".as_ptr(), || {
        match raw::object(rkev).map_or(EVENT_NONE, |e| e.kind) {
            EVENT_FETCH => c"Fetch".as_ptr(),
            EVENT_ERROR => c"Error".as_ptr(),
            EVENT_CREATETOPICS_RESULT => c"CreateTopicsResult".as_ptr(),
            EVENT_DELETETOPICS_RESULT => c"DeleteTopicsResult".as_ptr(),
            EVENT_CREATEPARTITIONS_RESULT => c"CreatePartitionsResult".as_ptr(),
            EVENT_NONE => c"(NONE)".as_ptr(),
            _ => c"?unknown?".as_ptr(),
        }
    })
}

/// The event's error (`rd_kafka_event_error`): for an admin result, the
/// whole request's; each topic's is in its topic result.
#[no_mangle]
pub extern "C" fn rd_kafka_event_error(rkev: *mut Event) -> c_int {
    guard(0, || raw::object(rkev).map_or(0, |e| e.err))
}

/// The event's error text (`rd_kafka_event_error_string`): the request's
/// own, else the code's (`rd_kafka_err2str`, "Success" for none).
#[no_mangle]
pub extern "C" fn rd_kafka_event_error_string(rkev: *mut Event) -> *const c_char {
    guard(ptr::null(), || match raw::object(rkev) {
        Some(e) => e
            .errstr
            .as_ref()
            .map_or_else(|| rd_kafka_err2str(e.err), |s| s.as_ptr()),
        None => rd_kafka_err2str(0),
    })
}

/// The opaque of the AdminOptions the call was given
/// (`rd_kafka_event_opaque`).
#[no_mangle]
pub extern "C" fn rd_kafka_event_opaque(rkev: *mut Event) -> *mut c_void {
    guard(ptr::null_mut(), || {
        raw::object(rkev).map_or(ptr::null_mut(), |e| e.opaque as *mut c_void)
    })
}

/// A fetch event's message, once (`rd_kafka_event_message_next`); NULL
/// after, and for other events. The event owns it: the application does
/// not destroy it.
#[no_mangle]
pub extern "C" fn rd_kafka_event_message_next(rkev: *mut Event) -> *const Message {
    guard(ptr::null(), || match raw::object(rkev) {
        Some(e) if e.message != 0 && !e.message_given.replace(true) => e.message as *const Message,
        _ => ptr::null(),
    })
}

/// How many messages the event holds (`rd_kafka_event_message_count`):
/// 1 for a fetch event, else 0.
#[no_mangle]
pub extern "C" fn rd_kafka_event_message_count(rkev: *mut Event) -> usize {
    guard(0, || {
        raw::object(rkev).map_or(0, |e| usize::from(e.message != 0))
    })
}

/// The event's messages not given yet into `rkmessages`, at most `size`
/// (`rd_kafka_event_message_array`, `rd_kafka_event_message_next` until
/// NULL, as librdkafka's); how many were written.
#[no_mangle]
pub extern "C" fn rd_kafka_event_message_array(
    rkev: *mut Event,
    rkmessages: *mut *const Message,
    size: usize,
) -> usize {
    guard(0, || {
        let mut n = 0;
        for slot in raw::read_array_mut(rkmessages, size) {
            let m = rd_kafka_event_message_next(rkev);
            if m.is_null() {
                break;
            }
            *slot = m;
            n += 1;
        }
        n
    })
}

/// Destroys an event and what it owns (`rd_kafka_event_destroy`).
#[no_mangle]
pub extern "C" fn rd_kafka_event_destroy(rkev: *mut Event) {
    guard((), || drop(raw::take_box(rkev)));
}

/// The event as a result of type `kind`, or NULL.
fn as_result(rkev: *mut Event, kind: c_int) -> *const Event {
    guard(ptr::null(), || match raw::object(rkev) {
        Some(e) if e.kind == kind => rkev.cast_const(),
        _ => ptr::null(),
    })
}

/// The event as a CreateTopics result (`rd_kafka_event_CreateTopics_result`),
/// or NULL if it is another type.
#[no_mangle]
pub extern "C" fn rd_kafka_event_CreateTopics_result(rkev: *mut Event) -> *const Event {
    as_result(rkev, EVENT_CREATETOPICS_RESULT)
}

/// The event as a DeleteTopics result (`rd_kafka_event_DeleteTopics_result`),
/// or NULL.
#[no_mangle]
pub extern "C" fn rd_kafka_event_DeleteTopics_result(rkev: *mut Event) -> *const Event {
    as_result(rkev, EVENT_DELETETOPICS_RESULT)
}

/// The event as a CreatePartitions result
/// (`rd_kafka_event_CreatePartitions_result`), or NULL.
#[no_mangle]
pub extern "C" fn rd_kafka_event_CreatePartitions_result(rkev: *mut Event) -> *const Event {
    as_result(rkev, EVENT_CREATEPARTITIONS_RESULT)
}

/// The topic results of a result event, in the order of the request, their
/// count in `*cntp`.
fn topics(result: *const Event, cntp: *mut usize) -> *const *const TopicResult {
    guard(ptr::null(), || {
        let Some(e) = raw::object(result) else {
            raw::write_out(cntp, 0);
            return ptr::null();
        };
        raw::write_out(cntp, e.topics.len());
        if e.ptrs.is_empty() {
            ptr::null()
        } else {
            e.ptrs.as_ptr().cast::<*const TopicResult>()
        }
    })
}

/// `rd_kafka_CreateTopics_result_topics`.
#[no_mangle]
pub extern "C" fn rd_kafka_CreateTopics_result_topics(
    result: *const Event,
    cntp: *mut usize,
) -> *const *const TopicResult {
    topics(result, cntp)
}

/// `rd_kafka_DeleteTopics_result_topics`.
#[no_mangle]
pub extern "C" fn rd_kafka_DeleteTopics_result_topics(
    result: *const Event,
    cntp: *mut usize,
) -> *const *const TopicResult {
    topics(result, cntp)
}

/// `rd_kafka_CreatePartitions_result_topics`.
#[no_mangle]
pub extern "C" fn rd_kafka_CreatePartitions_result_topics(
    result: *const Event,
    cntp: *mut usize,
) -> *const *const TopicResult {
    topics(result, cntp)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::admin_parts::rd_kafka_topic_result_name;
    use std::ffi::CStr;

    fn s<'a>(p: *const c_char) -> &'a str {
        // SAFETY: a string of an object alive in the test.
        unsafe { CStr::from_ptr(p) }.to_str().unwrap()
    }

    #[test]
    fn result_event() {
        let topics = vec![
            TopicResult::new("a", 0, None),
            TopicResult::new("b", 36, Some("exists")),
        ];
        let ev = Box::into_raw(Box::new(Event::admin(
            EVENT_CREATETOPICS_RESULT,
            7,
            Ok(topics),
        )));
        assert_eq!(rd_kafka_event_type(ev), EVENT_CREATETOPICS_RESULT);
        assert_eq!(s(rd_kafka_event_name(ev)), "CreateTopicsResult");
        assert_eq!(rd_kafka_event_error(ev), 0);
        assert_eq!(s(rd_kafka_event_error_string(ev)), "Success");
        assert_eq!(rd_kafka_event_opaque(ev) as usize, 7);
        assert!(rd_kafka_event_DeleteTopics_result(ev).is_null());
        let res = rd_kafka_event_CreateTopics_result(ev);
        assert_eq!(res, ev.cast_const());
        let mut n = 9;
        let arr = rd_kafka_CreateTopics_result_topics(res, &mut n);
        assert_eq!(n, 2);
        // SAFETY: `arr` holds `n` topic results of the live event.
        let second = unsafe { *arr.add(1) };
        assert_eq!(s(rd_kafka_topic_result_name(second)), "b");
        rd_kafka_event_destroy(ev);
    }

    #[test]
    fn failed_request_and_null() {
        let ev = Box::into_raw(Box::new(Event::admin(
            EVENT_DELETETOPICS_RESULT,
            0,
            Err((-185, "Timed out waiting".into())),
        )));
        assert_eq!(rd_kafka_event_error(ev), -185);
        assert_eq!(s(rd_kafka_event_error_string(ev)), "Timed out waiting");
        let mut n = 9;
        assert!(rd_kafka_DeleteTopics_result_topics(ev, &mut n).is_null());
        assert_eq!(n, 0);
        rd_kafka_event_destroy(ev);
        assert_eq!(rd_kafka_event_type(ptr::null()), EVENT_NONE);
        assert_eq!(s(rd_kafka_event_name(ptr::null())), "(NONE)");
    }
}
