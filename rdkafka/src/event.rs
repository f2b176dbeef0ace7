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
//! The client's own events, for the kinds the conf enables with
//! `rd_kafka_conf_set_events` (rdkafka.h: "enable event sourcing ... for
//! consumption by `rd_kafka_queue_poll()`"), go to the main queue instead
//! of their callbacks: delivery reports as `RD_KAFKA_EVENT_DR`, a batch of
//! messages read with `rd_kafka_event_message_next` / `_array` / `_count`
//! (the event owns them and frees an `F_FREE` payload with them); client
//! errors as `RD_KAFKA_EVENT_ERROR` (`rd_kafka_event_error_is_fatal` for
//! `_FATAL`); statistics as `RD_KAFKA_EVENT_STATS`
//! (`rd_kafka_event_stats`). Log lines of a client with `log.queue` are
//! `RD_KAFKA_EVENT_LOG` events (`rd_kafka_event_log`,
//! `rd_kafka_event_debug_contexts`) in the queue `rd_kafka_set_log_queue`
//! names (see `handle`). `Event::serve` hands the callback kinds to the
//! conf's callbacks instead, for `rd_kafka_poll` and
//! `rd_kafka_queue_poll_callback`.
//!
//! As in librdkafka, a result type (`rd_kafka_CreateTopics_result_t`) is
//! the event itself seen through another name: `rd_kafka_event_*_result`
//! returns the event's pointer when the type matches, else NULL. The topic
//! results are owned by the event and live until `rd_kafka_event_destroy`;
//! so are the results of the other admin calls (configs, ACLs, SCRAM,
//! offsets, topic descriptions: see the `admin_*` modules), which the
//! event holds as one payload (`Event::with_payload`) and those modules'
//! accessors read back by type.

#![allow(unsafe_code)] // `#[no_mangle]`

use std::any::Any;
use std::cell::Cell;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::ptr;

use gregor::message::Message as GregorMessage;

use crate::admin_parts::TopicResult;
use crate::errors::rd_kafka_err2str;
use crate::guard::guard;
use crate::handle::Handle;
use crate::message::Message;
use crate::partition_list::{OwnedList, TopicPartitionList};
use crate::producer::Report;
use crate::raw;

/// `RD_KAFKA_EVENT_NONE`.
pub const EVENT_NONE: c_int = 0;
/// `RD_KAFKA_EVENT_DR`.
pub const EVENT_DR: c_int = 0x1;
/// `RD_KAFKA_EVENT_FETCH`.
pub const EVENT_FETCH: c_int = 0x2;
/// `RD_KAFKA_EVENT_LOG`.
pub const EVENT_LOG: c_int = 0x4;
/// `RD_KAFKA_EVENT_ERROR`.
pub const EVENT_ERROR: c_int = 0x8;
/// `RD_KAFKA_EVENT_REBALANCE`.
pub const EVENT_REBALANCE: c_int = 0x10;
/// `RD_KAFKA_EVENT_STATS`.
pub const EVENT_STATS: c_int = 0x40;
/// `RD_KAFKA_EVENT_CREATETOPICS_RESULT`.
pub const EVENT_CREATETOPICS_RESULT: c_int = 100;
/// `RD_KAFKA_EVENT_DELETETOPICS_RESULT`.
pub const EVENT_DELETETOPICS_RESULT: c_int = 101;
/// `RD_KAFKA_EVENT_CREATEPARTITIONS_RESULT`.
pub const EVENT_CREATEPARTITIONS_RESULT: c_int = 102;
/// The result event types of the admin requests not implemented yet, with
/// the request's name (`rd_kafka_<name>`) and the event's name as
/// `rd_kafka_event_name` gives it (librdkafka's, which lacks "Result" for
/// the two SCRAM ones). Such a request posts an error event of its type
/// (`admin::unimplemented_request`).
pub(crate) const OTHER_ADMIN_RESULTS: &[(c_int, &str, &CStr)] = &[
    (103, "AlterConfigs", c"AlterConfigsResult"),
    (104, "DescribeConfigs", c"DescribeConfigsResult"),
    (105, "DeleteRecords", c"DeleteRecordsResult"),
    (106, "DeleteGroups", c"DeleteGroupsResult"),
    (
        107,
        "DeleteConsumerGroupOffsets",
        c"DeleteConsumerGroupOffsetsResult",
    ),
    (0x400, "CreateAcls", c"CreateAclsResult"),
    (0x800, "DescribeAcls", c"DescribeAclsResult"),
    (0x1000, "DeleteAcls", c"DeleteAclsResult"),
    (0x2000, "ListConsumerGroups", c"ListConsumerGroupsResult"),
    (
        0x4000,
        "DescribeConsumerGroups",
        c"DescribeConsumerGroupsResult",
    ),
    (
        0x8000,
        "ListConsumerGroupOffsets",
        c"ListConsumerGroupOffsetsResult",
    ),
    (
        0x10000,
        "AlterConsumerGroupOffsets",
        c"AlterConsumerGroupOffsetsResult",
    ),
    (
        0x20000,
        "IncrementalAlterConfigs",
        c"IncrementalAlterConfigsResult",
    ),
    (
        0x40000,
        "DescribeUserScramCredentials",
        c"DescribeUserScramCredentials",
    ),
    (
        0x80000,
        "AlterUserScramCredentials",
        c"AlterUserScramCredentials",
    ),
    (0x100000, "DescribeTopics", c"DescribeTopicsResult"),
    (0x200000, "DescribeCluster", c"DescribeClusterResult"),
    (0x400000, "ListOffsets", c"ListOffsetsResult"),
    (0x800000, "ElectLeaders", c"ElectLeadersResult"),
];
/// `RD_KAFKA_RESP_ERR__FATAL`.
const RESP_ERR__FATAL: c_int = -150;

/// The most delivery reports one `RD_KAFKA_EVENT_DR` event holds: reports
/// that come while the last event of the queue is a DR event not yet
/// polled join it, up to this many.
pub(crate) const DR_BATCH_MAX: usize = 10_000;

/// A log line of a `RD_KAFKA_EVENT_LOG` event.
#[derive(Debug)]
pub(crate) struct LogLine {
    pub(crate) level: c_int,
    pub(crate) fac: CString,
    pub(crate) buf: CString,
}

/// `rd_kafka_event_t`: an admin call's result, a consumed message, a
/// client or consumer error, delivery reports, a log line or statistics.
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
    /// A DR event's delivery reports.
    reports: Vec<Report>,
    /// How many messages `rd_kafka_event_message_next` gave already.
    given: Cell<usize>,
    /// A log event's line.
    log: Option<LogLine>,
    /// A stats event's JSON.
    stats: Option<CString>,
    /// A rebalance event's partitions.
    partitions: Option<OwnedList>,
    /// The results of an admin call other than the topic calls (config
    /// resources, ACLs, …), read by that call's `*_result_*` accessors.
    payload: Option<Box<dyn Any + Send>>,
}

/// Result objects an admin result owns, with the array of their addresses
/// that its accessors return (the items do not move once listed).
#[derive(Debug)]
pub(crate) struct Listed<T> {
    items: Vec<T>,
    ptrs: Vec<usize>,
}

impl<T> Listed<T> {
    pub(crate) fn new(items: Vec<T>) -> Self {
        let ptrs = items.iter().map(|i| i as *const T as usize).collect();
        Listed { items, ptrs }
    }

    /// The array of the items, their count in `*cntp`; NULL for none, as
    /// librdkafka's. Borrowed, valid while the owner is.
    pub(crate) fn array(&self, cntp: *mut usize) -> *const *const T {
        raw::write_out(cntp, self.items.len());
        if self.ptrs.is_empty() {
            ptr::null()
        } else {
            self.ptrs.as_ptr().cast()
        }
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        if self.message != 0 {
            crate::consumer::rd_kafka_message_destroy(self.message as *mut Message);
        }
    }
}

impl Event {
    /// An event of type `kind` with nothing in it yet.
    fn of(kind: c_int) -> Self {
        Event {
            kind,
            err: 0,
            errstr: None,
            opaque: 0,
            topics: Vec::new(),
            payload: None,
            ptrs: Vec::new(),
            message: 0,
            reports: Vec::new(),
            given: Cell::new(0),
            log: None,
            stats: None,
            partitions: None,
        }
    }

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
        let mut e = Event::of(kind);
        e.err = err;
        e.errstr = errstr.map(|t| raw::c_string(&t));
        e.opaque = opaque;
        e.topics = topics;
        e.ptrs = ptrs;
        e
    }

    /// The admin result with `topics` as its topic results.
    pub(crate) fn with_topics(mut self, topics: Vec<TopicResult>) -> Self {
        self.ptrs = topics
            .iter()
            .map(|t| t as *const TopicResult as usize)
            .collect();
        self.topics = topics;
        self
    }

    /// The admin result with `payload` as its results.
    pub(crate) fn with_payload<T: Any + Send>(mut self, payload: T) -> Self {
        self.payload = Some(Box::new(payload));
        self
    }

    /// The results of `result`, an admin result of type `kind` whose
    /// results are a `T`; `None` for NULL, another type or a failed call.
    pub(crate) fn payload<'a, T: Any>(result: *const Event, kind: c_int) -> Option<&'a T> {
        raw::object(result)
            .filter(|e| e.kind == kind)
            .and_then(|e| e.payload.as_ref())
            .and_then(|p| p.downcast_ref())
    }

    /// The listed results of `result` (see [`Event::payload`]), their
    /// count in `*cntp`: NULL and 0 for none.
    pub(crate) fn listed<T: Any>(
        result: *const Event,
        kind: c_int,
        cntp: *mut usize,
    ) -> *const *const T {
        match Event::payload::<Listed<T>>(result, kind) {
            Some(l) => l.array(cntp),
            None => {
                raw::write_out(cntp, 0);
                ptr::null()
            }
        }
    }

    /// What the consumer queue gives for a message of the consumer of `h`:
    /// a fetch event owning the message, or an error event for a consumer
    /// error (its code and text).
    pub(crate) fn consumed(h: &Handle, m: GregorMessage) -> Self {
        match &m.error {
            Some(e) => Event::error(e.code(), &e.to_string()),
            None => {
                let mut e = Event::of(EVENT_FETCH);
                e.message = crate::consumer::consumed(h, m) as usize;
                e
            }
        }
    }

    /// A client error (`RD_KAFKA_EVENT_ERROR`), fatal if `err` is `_FATAL`.
    pub(crate) fn error(err: c_int, text: &str) -> Self {
        let mut e = Event::of(EVENT_ERROR);
        e.err = err;
        e.errstr = Some(raw::c_string(text));
        e
    }

    /// Delivery reports (`RD_KAFKA_EVENT_DR`).
    pub(crate) fn delivered(reports: Vec<Report>) -> Self {
        let mut e = Event::of(EVENT_DR);
        e.reports = reports;
        e
    }

    /// A log line (`RD_KAFKA_EVENT_LOG`).
    pub(crate) fn log(level: c_int, fac: &str, buf: &str) -> Self {
        let mut e = Event::of(EVENT_LOG);
        e.log = Some(LogLine {
            level,
            fac: raw::c_string(fac),
            buf: raw::c_string(buf),
        });
        e
    }

    /// A rebalance (`RD_KAFKA_EVENT_REBALANCE`): `_ASSIGN_PARTITIONS` or
    /// `_REVOKE_PARTITIONS` with the partitions.
    pub(crate) fn rebalance(err: c_int, partitions: OwnedList) -> Self {
        let mut e = Event::of(EVENT_REBALANCE);
        e.err = err;
        e.partitions = Some(partitions);
        e
    }

    /// Statistics (`RD_KAFKA_EVENT_STATS`).
    pub(crate) fn stats(json: &str) -> Self {
        let mut e = Event::of(EVENT_STATS);
        e.stats = Some(raw::c_string(json));
        e
    }

    /// Whether this is a DR event with room for one more report.
    pub(crate) fn has_room(&self) -> bool {
        self.kind == EVENT_DR && self.reports.len() < DR_BATCH_MAX
    }

    /// Adds a report to this DR event ([`Event::has_room`]).
    pub(crate) fn add_report(&mut self, report: Report) {
        self.reports.push(report);
    }

    /// Whether [`Event::serve`] hands this event to a callback (the kinds
    /// `rd_kafka_poll` serves); an admin result or a fetched message is
    /// only ever an event.
    pub(crate) fn has_callback(&self) -> bool {
        matches!(self.kind, EVENT_DR | EVENT_LOG | EVENT_ERROR | EVENT_STATS)
    }

    /// Hands the event to the conf's callback of its kind, for the handle
    /// at `rk` (as `rd_kafka_poll` and `rd_kafka_queue_poll_callback`
    /// serve librdkafka's ops): each report to `dr_msg_cb` / `dr_cb`, a log
    /// line to `log_cb` (stderr without one, as librdkafka's default
    /// logger), an error to `error_cb`, statistics to `stats_cb`. Without
    /// the callback the event is dropped.
    pub(crate) fn serve(self, h: &Handle, rk: usize) {
        let cbs = h.conf().callbacks;
        let opaque = h.conf().opaque as usize;
        match self.kind {
            EVENT_DR => {
                for r in &self.reports {
                    if let Some(cb) = cbs.dr_msg {
                        raw::call_dr_msg(cb, rk, &r.msg, opaque);
                    } else if let Some(cb) = cbs.dr {
                        raw::call_dr(cb, rk, &r.msg, opaque);
                    }
                }
            }
            EVENT_LOG => {
                if let Some(l) = &self.log {
                    match cbs.log {
                        Some(cb) => raw::call_log(cb, rk, l.level, &l.fac, &l.buf),
                        None => gregor::log::print_stderr(
                            l.level,
                            &l.fac.to_string_lossy(),
                            &h.name(),
                            &l.buf.to_string_lossy(),
                        ),
                    }
                }
            }
            EVENT_ERROR => {
                if let Some(cb) = cbs.error {
                    let reason = self.errstr.clone().unwrap_or_default();
                    raw::call_error(cb, rk, self.err, &reason, opaque);
                }
            }
            EVENT_STATS => {
                if let (Some(cb), Some(json)) = (cbs.stats, &self.stats) {
                    let text = json.to_string_lossy();
                    let p = raw::c_strdup(&text);
                    // the callback keeps the JSON by returning 1 (rdkafka.h)
                    if !p.is_null() && raw::call_stats(cb, rk, p, text.len(), opaque) == 0 {
                        raw::c_free(p.cast());
                    }
                }
            }
            _ => {}
        }
    }

    /// The event's error code.
    #[cfg(test)]
    pub(crate) fn err(&self) -> c_int {
        self.err
    }

    /// The event's type.
    #[cfg(test)]
    pub(crate) fn kind(&self) -> c_int {
        self.kind
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
            EVENT_DR => c"DeliveryReport".as_ptr(),
            EVENT_FETCH => c"Fetch".as_ptr(),
            EVENT_LOG => c"Log".as_ptr(),
            EVENT_ERROR => c"Error".as_ptr(),
            EVENT_REBALANCE => c"Rebalance".as_ptr(),
            EVENT_STATS => c"Stats".as_ptr(),
            EVENT_CREATETOPICS_RESULT => c"CreateTopicsResult".as_ptr(),
            EVENT_DELETETOPICS_RESULT => c"DeleteTopicsResult".as_ptr(),
            EVENT_CREATEPARTITIONS_RESULT => c"CreatePartitionsResult".as_ptr(),
            EVENT_NONE => c"(NONE)".as_ptr(),
            kind => OTHER_ADMIN_RESULTS
                .iter()
                .find(|r| r.0 == kind)
                .map_or(c"?unknown?".as_ptr(), |r| r.2.as_ptr()),
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

/// The event's next message (`rd_kafka_event_message_next`): a fetch
/// event's one message, a DR event's reports in order; NULL after the
/// last, and for other events. The event owns them: the application does
/// not destroy them.
#[no_mangle]
pub extern "C" fn rd_kafka_event_message_next(rkev: *mut Event) -> *const Message {
    guard(ptr::null(), || {
        let Some(e) = raw::object(rkev) else {
            return ptr::null();
        };
        let i = e.given.get();
        let m = if e.message != 0 {
            (i == 0).then_some(e.message as *const Message)
        } else {
            e.reports.get(i).map(|r| &r.msg as *const Message)
        };
        if m.is_some() {
            e.given.set(i + 1);
        }
        m.unwrap_or(ptr::null())
    })
}

/// How many messages the event holds (`rd_kafka_event_message_count`):
/// 1 for a fetch event, a DR event's reports, else 0.
#[no_mangle]
pub extern "C" fn rd_kafka_event_message_count(rkev: *mut Event) -> usize {
    guard(0, || {
        raw::object(rkev).map_or(0, |e| usize::from(e.message != 0) + e.reports.len())
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

/// A log event's facility, line and syslog level (`rd_kafka_event_log`),
/// each written where the pointer is not NULL; the strings live as long as
/// the event. 0, or -1 for another event type.
#[no_mangle]
pub extern "C" fn rd_kafka_event_log(
    rkev: *mut Event,
    fac: *mut *const c_char,
    str: *mut *const c_char,
    level: *mut c_int,
) -> c_int {
    guard(-1, || {
        match raw::object(rkev).and_then(|e| e.log.as_ref()) {
            Some(l) => {
                raw::write_out(fac, l.fac.as_ptr());
                raw::write_out(str, l.buf.as_ptr());
                raw::write_out(level, l.level);
                0
            }
            None => -1,
        }
    })
}

/// A log event's debug contexts as a comma-separated list into `dst`
/// (`rd_kafka_event_debug_contexts`), NUL-terminated and truncated to
/// `dstsize`; -1 for another event type. gregor's log lines do not carry
/// the context that enabled them, so the list is empty, as librdkafka's
/// for a line logged outside any debug context.
#[no_mangle]
pub extern "C" fn rd_kafka_event_debug_contexts(
    rkev: *mut Event,
    dst: *mut c_char,
    dstsize: usize,
) -> c_int {
    guard(-1, || {
        match raw::object(rkev).and_then(|e| e.log.as_ref()) {
            Some(_) => {
                raw::write_errstr(dst, dstsize, "");
                0
            }
            None => -1,
        }
    })
}

/// A stats event's JSON (`rd_kafka_event_stats`), owned by the event; NULL
/// for another event type.
#[no_mangle]
pub extern "C" fn rd_kafka_event_stats(rkev: *mut Event) -> *const c_char {
    guard(ptr::null(), || {
        raw::object(rkev)
            .and_then(|e| e.stats.as_ref())
            .map_or(ptr::null(), |j| j.as_ptr())
    })
}

/// Whether an error event is fatal (`rd_kafka_event_error_is_fatal`): the
/// client's `_FATAL` error (rdkafka.h's `error_cb`: "err set to
/// RD_KAFKA_RESP_ERR__FATAL if a fatal error has been raised"); 0 for
/// other events.
#[no_mangle]
pub extern "C" fn rd_kafka_event_error_is_fatal(rkev: *mut Event) -> c_int {
    guard(0, || {
        raw::object(rkev).map_or(0, |e| {
            c_int::from(e.kind == EVENT_ERROR && e.err == RESP_ERR__FATAL)
        })
    })
}

/// A rebalance event's partitions (`rd_kafka_event_topic_partition_list`),
/// owned by the event; NULL for other events.
#[no_mangle]
pub extern "C" fn rd_kafka_event_topic_partition_list(rkev: *mut Event) -> *mut TopicPartitionList {
    guard(ptr::null_mut(), || {
        raw::object(rkev)
            .and_then(|e| e.partitions.as_ref())
            .map_or(ptr::null_mut(), OwnedList::as_ptr)
    })
}

/// Destroys an event and what it owns (`rd_kafka_event_destroy`).
#[no_mangle]
pub extern "C" fn rd_kafka_event_destroy(rkev: *mut Event) {
    guard((), || drop(raw::take_box(rkev)));
}

/// The event as a result of type `kind`, or NULL.
pub(crate) fn as_result(rkev: *mut Event, kind: c_int) -> *const Event {
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

    #[test]
    fn log_stats_and_error_events() {
        let ev = Box::into_raw(Box::new(Event::log(7, "INIT", "starting")));
        assert_eq!(s(rd_kafka_event_name(ev)), "Log");
        let (mut fac, mut text, mut level) = (ptr::null(), ptr::null(), 0);
        assert_eq!(rd_kafka_event_log(ev, &mut fac, &mut text, &mut level), 0);
        assert_eq!((s(fac), s(text), level), ("INIT", "starting", 7));
        assert_eq!(
            rd_kafka_event_log(ev, ptr::null_mut(), ptr::null_mut(), ptr::null_mut()),
            0
        );
        let mut ctx = [b'$' as c_char; 8];
        assert_eq!(
            rd_kafka_event_debug_contexts(ev, ctx.as_mut_ptr(), ctx.len()),
            0
        );
        assert_eq!(s(ctx.as_ptr()), "");
        assert!(rd_kafka_event_stats(ev).is_null());
        rd_kafka_event_destroy(ev);

        let ev = Box::into_raw(Box::new(Event::stats("{\"name\":\"x\"}")));
        assert_eq!(s(rd_kafka_event_name(ev)), "Stats");
        assert_eq!(s(rd_kafka_event_stats(ev)), "{\"name\":\"x\"}");
        assert_eq!(
            rd_kafka_event_log(ev, ptr::null_mut(), ptr::null_mut(), ptr::null_mut()),
            -1
        );
        assert_eq!(rd_kafka_event_debug_contexts(ev, ptr::null_mut(), 0), -1);
        rd_kafka_event_destroy(ev);

        let ev = Box::into_raw(Box::new(Event::error(-150, "fenced")));
        assert_eq!(rd_kafka_event_type(ev), EVENT_ERROR);
        assert_eq!(rd_kafka_event_error_is_fatal(ev), 1);
        assert_eq!(s(rd_kafka_event_error_string(ev)), "fenced");
        rd_kafka_event_destroy(ev);
        let ev = Box::into_raw(Box::new(Event::error(-195, "down")));
        assert_eq!(rd_kafka_event_error_is_fatal(ev), 0);
        rd_kafka_event_destroy(ev);
    }

    #[test]
    fn dr_event_gives_its_reports_in_order() {
        let reports = (0..3).map(|i| Report::for_test(10 + i, i as i64)).collect();
        let ev = Box::into_raw(Box::new(Event::delivered(reports)));
        assert_eq!(s(rd_kafka_event_name(ev)), "DeliveryReport");
        assert_eq!(rd_kafka_event_message_count(ev), 3);
        let first = rd_kafka_event_message_next(ev);
        // SAFETY: a message of the live event.
        assert_eq!(unsafe { (*first).c.private } as usize, 10);
        let mut rest = [ptr::null::<Message>(); 4];
        assert_eq!(rd_kafka_event_message_array(ev, rest.as_mut_ptr(), 4), 2);
        // SAFETY: messages of the live event.
        let offsets: Vec<i64> = rest[..2]
            .iter()
            .map(|m| unsafe { (**m).c.offset })
            .collect();
        assert_eq!(offsets, vec![1, 2]);
        assert!(rd_kafka_event_message_next(ev).is_null());
        // the count is the event's, not what is left
        assert_eq!(rd_kafka_event_message_count(ev), 3);
        rd_kafka_event_destroy(ev);
    }

    #[test]
    fn rebalance_event_owns_its_partitions() {
        let tpo = gregor::consumer::TopicPartitionOffset::new("t", 3, -1001);
        let ev = Box::into_raw(Box::new(Event::rebalance(-175, OwnedList::new(&[tpo]))));
        assert_eq!(rd_kafka_event_type(ev), EVENT_REBALANCE);
        assert_eq!(s(rd_kafka_event_name(ev)), "Rebalance");
        assert_eq!(rd_kafka_event_error(ev), -175);
        let list = rd_kafka_event_topic_partition_list(ev);
        assert!(!list.is_null());
        assert_eq!(crate::partition_list::to_offsets(list)[0].partition, 3);
        rd_kafka_event_destroy(ev);
        let other = Box::into_raw(Box::new(Event::stats("{}")));
        assert!(rd_kafka_event_topic_partition_list(other).is_null());
        rd_kafka_event_destroy(other);
    }
}
