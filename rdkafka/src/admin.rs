//! The asynchronous admin calls that create, delete and extend topics
//! (rdkafka.h's Admin API): `rd_kafka_AdminOptions_t`, `rd_kafka_NewTopic_t`,
//! `rd_kafka_DeleteTopic_t`, `rd_kafka_NewPartitions_t`, and
//! `rd_kafka_CreateTopics`, `rd_kafka_DeleteTopics`,
//! `rd_kafka_CreatePartitions`; also `rd_kafka_thread_cnt`.
//!
//! A call copies its arguments and returns at once; the request runs on a
//! thread of its own through the handle's gregor [`AdminClient`] (made on
//! the first admin call from the handle's configuration, logging through
//! the handle, and kept in the handle) and posts its result [`Event`] to
//! the queue given, or to the handle's main queue for NULL (librdkafka
//! requires a queue). Topic results are in the order of the request, each
//! with the broker's error message or else the code's text; a broker's
//! `REQUEST_TIMED_OUT` for a topic is success when the operation timeout
//! is 0 or less, since the broker then only starts the operation
//! (librdkafka does the same). `rd_kafka_AdminOptions_set_broker` is
//! accepted and checked but these requests always go to the controller,
//! as KIP-4 requires. The other calls (configs, ACLs, SCRAM, offsets,
//! topic descriptions, in the `admin_*` modules) start the same way
//! through `submit_event`, or fail at once through `fail_request` for
//! arguments librdkafka refuses before sending. The setters of the
//! options those calls read (`_set_require_stable_offsets`,
//! `_set_include_authorized_operations`, `_set_isolation_level`) and of
//! the calls not implemented yet (`_set_match_consumer_group_states` /
//! `_types`) check and keep their values as librdkafka's do.
//!
//! `rd_kafka_thread_cnt` counts, as librdkafka's counts its threads, one
//! per live handle and one per admin request still running. Destroying a
//! handle closes its admin client and joins the requests that have ended;
//! it does not wait for one still running (librdkafka's destroy does not
//! either), which then leaves the count (see `HandleAdmin`'s drop), so the
//! count returns to 0 once every handle is gone.

#![allow(unsafe_code)] // `#[no_mangle]`

use std::ffi::{c_char, c_int, c_void};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use gregor::admin::{self as ga, AdminClient};
use gregor::error::Error;
use gregor::log::LogCallback;

use crate::admin_parts::TopicResult;
use crate::error_object::ErrorObject;
use crate::errors::RESP_ERR__NOT_IMPLEMENTED;
use crate::event::{
    Event, EVENT_CREATEPARTITIONS_RESULT, EVENT_CREATETOPICS_RESULT, EVENT_DELETETOPICS_RESULT,
    OTHER_ADMIN_RESULTS,
};
use crate::guard::guard;
use crate::handle::Handle;
use crate::queue::{Background, Fifo, Queue};
use crate::raw;

/// `RD_KAFKA_RESP_ERR__INVALID_ARG`.
const RESP_ERR__INVALID_ARG: c_int = -186;
/// `RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT`.
const RESP_ERR_REQUEST_TIMED_OUT: i16 = 7;
/// `RD_KAFKAP_PARTITIONS_MAX`, librdkafka's bound on partition counts.
const PARTITIONS_MAX: i64 = 100_000;
/// `RD_KAFKAP_BROKERS_MAX`, librdkafka's bound on replica counts.
const BROKERS_MAX: i64 = 10_000;

/// The library's live threads, as `rd_kafka_thread_cnt` reports them.
static THREADS: AtomicI32 = AtomicI32::new(0);

/// One live thread of the count, from creation to drop.
#[derive(Debug)]
struct Live;

impl Live {
    fn new() -> Self {
        THREADS.fetch_add(1, Ordering::AcqRel);
        Live
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        THREADS.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The threads of the library alive (`rd_kafka_thread_cnt`): one per live
/// handle and one per admin request running.
#[no_mangle]
pub extern "C" fn rd_kafka_thread_cnt() -> c_int {
    guard(0, || THREADS.load(Ordering::Acquire).max(0))
}

/// A request running on its thread: its join handle and its place in the
/// thread count, which the thread gives up when it ends, or the handle's
/// destroy when it abandons the request.
struct Request {
    thread: JoinHandle<()>,
    live: Arc<Mutex<Option<Live>>>,
}

/// A handle's admin state: its main queue, its admin client (made on first
/// use), its running requests. Dropped last of the handle (see its
/// `Drop`).
pub(crate) struct HandleAdmin {
    main: Arc<Fifo>,
    background: std::sync::OnceLock<Arc<Fifo>>,
    client: Mutex<Option<Arc<AdminClient>>>,
    requests: Mutex<Vec<Request>>,
    /// Set by destroy: the admin client logs nothing more.
    closed: Arc<AtomicBool>,
    _live: Live,
}

impl HandleAdmin {
    /// The state of a new handle, counted in `rd_kafka_thread_cnt`.
    pub(crate) fn new() -> Self {
        HandleAdmin {
            main: Arc::new(Fifo::default()),
            background: std::sync::OnceLock::new(),
            client: Mutex::new(None),
            requests: Mutex::new(Vec::new()),
            closed: Arc::new(AtomicBool::new(false)),
            _live: Live::new(),
        }
    }

    /// The handle's main queue.
    pub(crate) fn main_queue(&self) -> &Arc<Fifo> {
        &self.main
    }

    /// The start of the handle's destroy: no admin log line and no
    /// background event reaches the application from now on.
    pub(crate) fn close(&self) {
        self.closed.store(true, Ordering::Release);
    }

    /// The handle's background queue, made on first use for the handle `h`
    /// this state belongs to.
    pub(crate) fn background_queue(&self, h: &Handle) -> &Arc<Fifo> {
        self.background.get_or_init(|| {
            Arc::new(Fifo::background(Background {
                cb: h.conf().callbacks.background_event,
                rk: h as *const Handle as usize,
                opaque: h.conf().opaque as usize,
                closed: Arc::clone(&self.closed),
            }))
        })
    }

    /// The handle's admin client, made from its configuration on first use.
    pub(crate) fn client(&self, h: &Handle) -> Result<Arc<AdminClient>, Error> {
        let mut slot = self.client.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(c) = &*slot {
            return Ok(Arc::clone(c));
        }
        let mut cfg = h.conf().client_config()?;
        let log = h.log_sink();
        let closed = Arc::clone(&self.closed);
        cfg.set_log_callback(Some(LogCallback::new(move |level, fac, name, buf| {
            // the handle's own client warned of the configuration already;
            // no line reaches the application after destroy
            if fac != "CONFWARN" && !closed.load(Ordering::Acquire) {
                log(level, fac, name, buf);
            }
        })));
        let c = Arc::new(AdminClient::new(&cfg)?);
        *slot = Some(Arc::clone(&c));
        Ok(c)
    }

    /// Runs `work` on a thread of its own, counted until it ends.
    fn spawn(&self, work: impl FnOnce() + Send + 'static) {
        let live = Arc::new(Mutex::new(Some(Live::new())));
        let mine = Arc::clone(&live);
        let t = std::thread::Builder::new()
            .name("rdk:admin".into())
            .spawn(move || {
                work();
                drop(mine.lock().unwrap_or_else(PoisonError::into_inner).take());
            });
        let mut reqs = self.requests.lock().unwrap_or_else(PoisonError::into_inner);
        reqs.retain(|r| !r.thread.is_finished());
        if let Ok(thread) = t {
            reqs.push(Request { thread, live });
        }
    }
}

impl Drop for HandleAdmin {
    /// Closes the admin client and joins the requests that have ended. One
    /// still running (a controller not found yet, a broker slow to answer)
    /// is abandoned, as librdkafka's destroy does not wait for admin
    /// requests either: it leaves the thread count now, holds nothing of
    /// the handle, logs nothing and ends by its request timeout, its result
    /// going to its queue if the application still has it.
    fn drop(&mut self) {
        self.closed.store(true, Ordering::Release);
        let client = self
            .client
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(c) = &client {
            c.close();
        }
        let reqs = std::mem::take(
            self.requests
                .get_mut()
                .unwrap_or_else(PoisonError::into_inner),
        );
        for r in reqs {
            if r.thread.is_finished() {
                let _ = r.thread.join();
            } else {
                drop(r.live.lock().unwrap_or_else(PoisonError::into_inner).take());
            }
        }
    }
}

/// `rd_kafka_AdminOptions_t`: the options of one call, each unset until
/// set (the defaults are then the handle's `socket.timeout.ms`).
#[derive(Debug, Clone)]
pub struct AdminOptions {
    pub(crate) for_api: c_int,
    request_timeout: Option<c_int>,
    operation_timeout: Option<c_int>,
    validate_only: bool,
    broker: Option<i32>,
    opaque: usize,
    /// The options of the calls not implemented yet, kept as set.
    require_stable_offsets: bool,
    include_authorized_operations: bool,
    isolation_level: c_int,
    group_states: Vec<c_int>,
    group_types: Vec<c_int>,
}

/// `RD_KAFKA_ADMIN_OP_*` values the options' settings depend on.
mod op {
    use std::ffi::c_int;
    pub const ANY: c_int = 0;
    pub const CREATETOPICS: c_int = 1;
    pub const DELETETOPICS: c_int = 2;
    pub const CREATEPARTITIONS: c_int = 3;
    pub const ALTERCONFIGS: c_int = 4;
    pub const DELETERECORDS: c_int = 6;
    pub const LISTCONSUMERGROUPS: c_int = 12;
    pub const DESCRIBECONSUMERGROUPS: c_int = 13;
    pub const LISTCONSUMERGROUPOFFSETS: c_int = 14;
    pub const INCREMENTALALTERCONFIGS: c_int = 16;
    pub const DESCRIBETOPICS: c_int = 19;
    pub const DESCRIBECLUSTER: c_int = 20;
    pub const LISTOFFSETS: c_int = 21;
    pub const ELECTLEADERS: c_int = 22;
    /// `RD_KAFKA_ADMIN_OP__CNT`.
    pub const CNT: c_int = 23;
}

impl AdminOptions {
    fn defaults(for_api: c_int) -> Self {
        AdminOptions {
            for_api,
            request_timeout: None,
            operation_timeout: None,
            validate_only: false,
            broker: None,
            opaque: 0,
            require_stable_offsets: false,
            include_authorized_operations: false,
            isolation_level: 0,
            group_states: Vec::new(),
            group_types: Vec::new(),
        }
    }

    /// gregor's options (negative operation timeouts are 0: answer at once).
    fn to_gregor(&self) -> ga::AdminOptions {
        let ms = |v: c_int| Duration::from_millis(u64::try_from(v).unwrap_or(0));
        ga::AdminOptions {
            request_timeout: self.request_timeout.map(ms),
            operation_timeout: self.operation_timeout.map(ms),
            validate_only: self.validate_only,
        }
    }

    /// Whether DescribeTopics asks for the client's authorized operations
    /// (KIP-430).
    pub(crate) fn include_authorized_operations(&self) -> bool {
        self.include_authorized_operations
    }

    /// Whether ListConsumerGroupOffsets asks for stable offsets only
    /// (KIP-447).
    pub(crate) fn require_stable_offsets(&self) -> bool {
        self.require_stable_offsets
    }

    /// Whether ListOffsets reads under `READ_COMMITTED` (KIP-98: "latest"
    /// is then the last stable offset).
    pub(crate) fn read_committed(&self) -> bool {
        self.isolation_level == 1
    }

    /// Whether a topic's `REQUEST_TIMED_OUT` means "started" (an operation
    /// timeout of 0 or less).
    fn started_is_success(&self) -> bool {
        self.operation_timeout.is_some_and(|t| t <= 0)
    }
}

/// Sets one integer option the way librdkafka checks them: only for the
/// APIs it applies to, within `min..=max`.
fn set_int(
    enabled: bool,
    name: &str,
    v: c_int,
    (min, max): (c_int, c_int),
    errstr: *mut c_char,
    size: usize,
) -> Result<c_int, c_int> {
    if !enabled {
        raw::write_errstr(
            errstr,
            size,
            &format!("\"{name}\" is not supported for this operation"),
        );
        return Err(RESP_ERR__INVALID_ARG);
    }
    if v < min || v > max {
        raw::write_errstr(
            errstr,
            size,
            &format!("Invalid value type for \"{name}\": expecting integer in range {min}..{max}"),
        );
        return Err(RESP_ERR__INVALID_ARG);
    }
    Ok(v)
}

/// New options for the API `for_api` (`RD_KAFKA_ADMIN_OP_*`;
/// `rd_kafka_AdminOptions_new`); NULL for an unknown API.
#[no_mangle]
pub extern "C" fn rd_kafka_AdminOptions_new(rk: *mut Handle, for_api: c_int) -> *mut AdminOptions {
    guard(std::ptr::null_mut(), || {
        if raw::object(rk).is_none() || !(0..op::CNT).contains(&for_api) {
            return std::ptr::null_mut();
        }
        Box::into_raw(Box::new(AdminOptions::defaults(for_api)))
    })
}

/// `rd_kafka_AdminOptions_destroy`.
#[no_mangle]
pub extern "C" fn rd_kafka_AdminOptions_destroy(options: *mut AdminOptions) {
    guard((), || drop(raw::take_box(options)));
}

/// The options, to change; `None` for NULL.
fn options_mut<'a>(options: *mut AdminOptions) -> Option<&'a mut AdminOptions> {
    // SAFETY: a non-NULL `rd_kafka_AdminOptions_t *` is one
    // `rd_kafka_AdminOptions_new` returned and not yet destroyed, which
    // rdkafka.h gives to one thread at a time.
    unsafe { options.as_mut() }
}

/// The request timeout, 0..=3600000 ms (`_set_request_timeout`).
#[no_mangle]
pub extern "C" fn rd_kafka_AdminOptions_set_request_timeout(
    options: *mut AdminOptions,
    timeout_ms: c_int,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard(RESP_ERR__INVALID_ARG, || {
        let Some(o) = options_mut(options) else {
            return RESP_ERR__INVALID_ARG;
        };
        let range = (0, 3_600_000);
        match set_int(
            true,
            "request_timeout",
            timeout_ms,
            range,
            errstr,
            errstr_size,
        ) {
            Ok(v) => {
                o.request_timeout = Some(v);
                0
            }
            Err(e) => e,
        }
    })
}

/// The operation timeout, -1..=3600000 ms, for the APIs that have one
/// (`_set_operation_timeout`).
#[no_mangle]
pub extern "C" fn rd_kafka_AdminOptions_set_operation_timeout(
    options: *mut AdminOptions,
    timeout_ms: c_int,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard(RESP_ERR__INVALID_ARG, || {
        let Some(o) = options_mut(options) else {
            return RESP_ERR__INVALID_ARG;
        };
        let enabled = matches!(
            o.for_api,
            op::ANY
                | op::CREATETOPICS
                | op::DELETETOPICS
                | op::CREATEPARTITIONS
                | op::DELETERECORDS
                | op::LISTOFFSETS
                | op::ELECTLEADERS
        );
        let range = (-1, 3_600_000);
        match set_int(
            enabled,
            "operation_timeout",
            timeout_ms,
            range,
            errstr,
            errstr_size,
        ) {
            Ok(v) => {
                o.operation_timeout = Some(v);
                0
            }
            Err(e) => e,
        }
    })
}

/// Validate only, 0 or 1, for the APIs that can (`_set_validate_only`).
#[no_mangle]
pub extern "C" fn rd_kafka_AdminOptions_set_validate_only(
    options: *mut AdminOptions,
    true_or_false: c_int,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard(RESP_ERR__INVALID_ARG, || {
        let Some(o) = options_mut(options) else {
            return RESP_ERR__INVALID_ARG;
        };
        let enabled = matches!(
            o.for_api,
            op::ANY
                | op::CREATETOPICS
                | op::CREATEPARTITIONS
                | op::ALTERCONFIGS
                | op::INCREMENTALALTERCONFIGS
        );
        match set_int(
            enabled,
            "validate_only",
            true_or_false,
            (0, 1),
            errstr,
            errstr_size,
        ) {
            Ok(v) => {
                o.validate_only = v != 0;
                0
            }
            Err(e) => e,
        }
    })
}

/// The broker to send to, a broker id >= 0 (`_set_broker`); see the
/// module's documentation.
#[no_mangle]
pub extern "C" fn rd_kafka_AdminOptions_set_broker(
    options: *mut AdminOptions,
    broker_id: i32,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard(RESP_ERR__INVALID_ARG, || {
        let Some(o) = options_mut(options) else {
            return RESP_ERR__INVALID_ARG;
        };
        match set_int(
            true,
            "broker",
            broker_id,
            (0, i32::MAX),
            errstr,
            errstr_size,
        ) {
            Ok(v) => {
                o.broker = Some(v);
                0
            }
            Err(e) => e,
        }
    })
}

/// The opaque the result event carries (`_set_opaque`,
/// `rd_kafka_event_opaque`).
#[no_mangle]
pub extern "C" fn rd_kafka_AdminOptions_set_opaque(
    options: *mut AdminOptions,
    ev_opaque: *mut c_void,
) {
    guard((), || {
        if let Some(o) = options_mut(options) {
            o.opaque = ev_opaque as usize;
        }
    })
}

/// `RD_KAFKA_CONSUMER_GROUP_STATE__CNT`.
const GROUP_STATE_CNT: c_int = 6;
/// `RD_KAFKA_CONSUMER_GROUP_TYPE__CNT` (`_UNKNOWN` is 0).
const GROUP_TYPE_CNT: c_int = 3;

/// NULL, or an `rd_kafka_error_t` of the setter's failure with its text.
fn error_of(r: Result<(), (c_int, String)>) -> *mut c_void {
    match r {
        Ok(()) => std::ptr::null_mut(),
        Err((code, text)) => ErrorObject::boxed(code, &text),
    }
}

/// Sets a 0/1 or small-range option of the setters returning an error
/// object: `store` gets the value when the option applies to the API.
fn set_flag(
    options: *mut AdminOptions,
    apis: &[c_int],
    name: &str,
    v: c_int,
    store: impl FnOnce(&mut AdminOptions, c_int),
) -> *mut c_void {
    let Some(o) = options_mut(options) else {
        return error_of(Err((RESP_ERR__INVALID_ARG, "options is NULL".into())));
    };
    let mut errstr = [0 as c_char; 256];
    let enabled = o.for_api == op::ANY || apis.contains(&o.for_api);
    match set_int(enabled, name, v, (0, 1), errstr.as_mut_ptr(), errstr.len()) {
        Ok(v) => {
            store(o, v);
            error_of(Ok(()))
        }
        Err(code) => {
            let text = raw::read_cstr(errstr.as_ptr()).unwrap_or_default();
            error_of(Err((code, text.into_owned())))
        }
    }
}

/// Only groups in these states (`_set_match_consumer_group_states`, for
/// ListConsumerGroups): each a valid state, none twice.
#[no_mangle]
pub extern "C" fn rd_kafka_AdminOptions_set_match_consumer_group_states(
    options: *mut AdminOptions,
    consumer_group_states: *const c_int,
    consumer_group_states_cnt: usize,
) -> *mut c_void {
    guard(std::ptr::null_mut(), || {
        let states = raw::read_array(consumer_group_states, consumer_group_states_cnt);
        let checked = set_list(options, states, "match_consumer_group_states", |s, seen| {
            if !(0..GROUP_STATE_CNT).contains(&s) {
                Some("Invalid group state value")
            } else if seen {
                Some("Duplicate states not allowed")
            } else {
                None
            }
        });
        error_of(checked.map(|(o, list)| o.group_states = list))
    })
}

/// Only groups of these types (`_set_match_consumer_group_types`, for
/// ListConsumerGroups): each a known type, none twice.
#[no_mangle]
pub extern "C" fn rd_kafka_AdminOptions_set_match_consumer_group_types(
    options: *mut AdminOptions,
    consumer_group_types: *const c_int,
    consumer_group_types_cnt: usize,
) -> *mut c_void {
    guard(std::ptr::null_mut(), || {
        let types = raw::read_array(consumer_group_types, consumer_group_types_cnt);
        let checked = set_list(options, types, "match_consumer_group_types", |t, seen| {
            if !(0..GROUP_TYPE_CNT).contains(&t) {
                Some("Only a valid type is allowed")
            } else if t == 0 {
                Some("UNKNOWN type is not allowed")
            } else if seen {
                Some("Duplicate types not allowed")
            } else {
                None
            }
        });
        error_of(checked.map(|(o, list)| o.group_types = list))
    })
}

/// The checks of a list option of ListConsumerGroups: each element by
/// `bad` (given whether it came before), then whether the option applies.
fn set_list<'a>(
    options: *mut AdminOptions,
    values: &[c_int],
    name: &str,
    bad: impl Fn(c_int, bool) -> Option<&'static str>,
) -> Result<(&'a mut AdminOptions, Vec<c_int>), (c_int, String)> {
    let Some(o) = options_mut(options) else {
        return Err((RESP_ERR__INVALID_ARG, "options is NULL".into()));
    };
    let mut list = Vec::with_capacity(values.len());
    for &v in values {
        if let Some(why) = bad(v, list.contains(&v)) {
            return Err((RESP_ERR__INVALID_ARG, why.into()));
        }
        list.push(v);
    }
    if o.for_api != op::ANY && o.for_api != op::LISTCONSUMERGROUPS {
        return Err((
            RESP_ERR__INVALID_ARG,
            format!("\"{name}\" is not supported for this operation"),
        ));
    }
    Ok((o, list))
}

/// Require stable offsets, 0 or 1 (`_set_require_stable_offsets`, for
/// ListConsumerGroupOffsets).
#[no_mangle]
pub extern "C" fn rd_kafka_AdminOptions_set_require_stable_offsets(
    options: *mut AdminOptions,
    true_or_false: c_int,
) -> *mut c_void {
    guard(std::ptr::null_mut(), || {
        let apis = [op::LISTCONSUMERGROUPOFFSETS];
        set_flag(
            options,
            &apis,
            "require_stable_offsets",
            true_or_false,
            |o, v| {
                o.require_stable_offsets = v != 0;
            },
        )
    })
}

/// Include the authorized operations, 0 or 1
/// (`_set_include_authorized_operations`, for DescribeConsumerGroups,
/// DescribeTopics, DescribeCluster).
#[no_mangle]
pub extern "C" fn rd_kafka_AdminOptions_set_include_authorized_operations(
    options: *mut AdminOptions,
    true_or_false: c_int,
) -> *mut c_void {
    guard(std::ptr::null_mut(), || {
        let apis = [
            op::DESCRIBECONSUMERGROUPS,
            op::DESCRIBETOPICS,
            op::DESCRIBECLUSTER,
        ];
        set_flag(
            options,
            &apis,
            "include_authorized_operations",
            true_or_false,
            |o, v| o.include_authorized_operations = v != 0,
        )
    })
}

/// The isolation level, `RD_KAFKA_ISOLATION_LEVEL_*` (0 or 1;
/// `_set_isolation_level`, for ListOffsets).
#[no_mangle]
pub extern "C" fn rd_kafka_AdminOptions_set_isolation_level(
    options: *mut AdminOptions,
    value: c_int,
) -> *mut c_void {
    guard(std::ptr::null_mut(), || {
        set_flag(
            options,
            &[op::LISTOFFSETS],
            "isolation_level",
            value,
            |o, v| {
                o.isolation_level = v;
            },
        )
    })
}

/// `rd_kafka_NewTopic_t`: a topic to create.
#[derive(Debug, Clone)]
pub struct NewTopic {
    topic: ga::NewTopic,
    /// The replicas of partitions 0, 1, … set so far.
    replicas: Vec<Vec<i32>>,
}

/// A topic to create (`rd_kafka_NewTopic_new`): -1 partitions or
/// replication factor for the broker's default; NULL with the reason in
/// `errstr` for values out of librdkafka's ranges.
#[no_mangle]
pub extern "C" fn rd_kafka_NewTopic_new(
    topic: *const c_char,
    num_partitions: c_int,
    replication_factor: c_int,
    errstr: *mut c_char,
    errstr_size: usize,
) -> *mut NewTopic {
    guard(std::ptr::null_mut(), || {
        let fail = |msg: &str| {
            raw::write_errstr(errstr, errstr_size, msg);
            std::ptr::null_mut()
        };
        let Some(name) = raw::read_cstr(topic) else {
            return fail("Invalid topic name");
        };
        if num_partitions < -1 || i64::from(num_partitions) > PARTITIONS_MAX {
            return fail(&format!(
                "num_partitions out of expected range 1..{PARTITIONS_MAX} or -1 for broker default"
            ));
        }
        let Some(rf) = i16::try_from(replication_factor)
            .ok()
            .filter(|&r| r >= -1 && i64::from(r) <= BROKERS_MAX)
        else {
            return fail(&format!(
                "replication_factor out of expected range -1..{BROKERS_MAX}"
            ));
        };
        Box::into_raw(Box::new(NewTopic {
            topic: ga::NewTopic::new(name, num_partitions, rf),
            replicas: Vec::new(),
        }))
    })
}

/// `rd_kafka_NewTopic_destroy`.
#[no_mangle]
pub extern "C" fn rd_kafka_NewTopic_destroy(new_topic: *mut NewTopic) {
    guard((), || drop(raw::take_box(new_topic)));
}

/// Destroys each of `cnt` topics of an array (`_destroy_array`), not the
/// array.
#[no_mangle]
pub extern "C" fn rd_kafka_NewTopic_destroy_array(new_topics: *mut *mut NewTopic, cnt: usize) {
    guard((), || {
        for &t in raw::read_array(new_topics, cnt) {
            drop(raw::take_box(t));
        }
    })
}

/// The topic, to change; `None` for NULL.
fn object_mut<'a, T>(p: *mut T) -> Option<&'a mut T> {
    // SAFETY: a non-NULL `rd_kafka_NewTopic_t *` / `rd_kafka_NewPartitions_t
    // *` is one this module made and the caller has not destroyed; the
    // setters are not called concurrently on one object (rdkafka.h).
    unsafe { p.as_mut() }
}

/// Adds a topic config (`rd_kafka_NewTopic_set_config`); `_INVALID_ARG`
/// for a NULL name. A NULL value (Kafka's "null": the broker's default)
/// is accepted and not sent, which asks the same of the broker.
#[no_mangle]
pub extern "C" fn rd_kafka_NewTopic_set_config(
    new_topic: *mut NewTopic,
    name: *const c_char,
    value: *const c_char,
) -> c_int {
    guard(RESP_ERR__INVALID_ARG, || {
        let (Some(t), Some(name)) = (object_mut(new_topic), raw::read_cstr(name)) else {
            return RESP_ERR__INVALID_ARG;
        };
        if let Some(value) = raw::read_cstr(value) {
            t.topic
                .configs
                .push((name.into_owned(), value.into_owned()));
        }
        0
    })
}

/// The replicas of the next partition (`_set_replica_assignment`):
/// partitions in order from 0, for a topic made with a partition count and
/// a replication factor of -1.
#[no_mangle]
pub extern "C" fn rd_kafka_NewTopic_set_replica_assignment(
    new_topic: *mut NewTopic,
    partition: i32,
    broker_ids: *mut i32,
    broker_id_cnt: usize,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard(RESP_ERR__INVALID_ARG, || {
        let Some(t) = object_mut(new_topic) else {
            return RESP_ERR__INVALID_ARG;
        };
        let fail = |msg: &str| {
            raw::write_errstr(errstr, errstr_size, msg);
            RESP_ERR__INVALID_ARG
        };
        if t.topic.replication_factor != -1 {
            return fail(
                "Specifying a replication factor and a replica assignment are mutually exclusive",
            );
        }
        if t.topic.num_partitions == -1 {
            return fail(
                "Specifying a default partition count and a replica assignment are mutually exclusive",
            );
        }
        if usize::try_from(partition).ok() != Some(t.replicas.len()) {
            return fail(&format!(
                "Partitions must be added in order, starting at 0: expecting partition {}, not {partition}",
                t.replicas.len()
            ));
        }
        if i64::try_from(broker_id_cnt).unwrap_or(i64::MAX) > BROKERS_MAX {
            return fail(&format!(
                "Too many brokers specified (RD_KAFKAP_BROKERS_MAX={BROKERS_MAX})"
            ));
        }
        let ids = raw::read_array(broker_ids, broker_id_cnt).to_vec();
        t.topic.replica_assignment.insert(partition, ids.clone());
        t.replicas.push(ids);
        0
    })
}

/// `rd_kafka_DeleteTopic_t`: a topic to delete.
#[derive(Debug, Clone)]
pub struct DeleteTopic {
    name: String,
}

/// A topic to delete (`rd_kafka_DeleteTopic_new`); NULL for a NULL name.
#[no_mangle]
pub extern "C" fn rd_kafka_DeleteTopic_new(topic: *const c_char) -> *mut DeleteTopic {
    guard(std::ptr::null_mut(), || {
        raw::read_cstr(topic).map_or(std::ptr::null_mut(), |n| {
            Box::into_raw(Box::new(DeleteTopic {
                name: n.into_owned(),
            }))
        })
    })
}

/// `rd_kafka_DeleteTopic_destroy`.
#[no_mangle]
pub extern "C" fn rd_kafka_DeleteTopic_destroy(del_topic: *mut DeleteTopic) {
    guard((), || drop(raw::take_box(del_topic)));
}

/// `rd_kafka_DeleteTopic_destroy_array`: each element, not the array.
#[no_mangle]
pub extern "C" fn rd_kafka_DeleteTopic_destroy_array(
    del_topics: *mut *mut DeleteTopic,
    del_topic_cnt: usize,
) {
    guard((), || {
        for &t in raw::read_array(del_topics, del_topic_cnt) {
            drop(raw::take_box(t));
        }
    })
}

/// `rd_kafka_NewPartitions_t`: a topic's new partition count.
#[derive(Debug, Clone)]
pub struct NewPartitions {
    parts: ga::NewPartitions,
}

/// A topic grown to `new_total_cnt` partitions
/// (`rd_kafka_NewPartitions_new`); NULL with the reason in `errstr` for a
/// count out of 1..=100000.
#[no_mangle]
pub extern "C" fn rd_kafka_NewPartitions_new(
    topic: *const c_char,
    new_total_cnt: usize,
    errstr: *mut c_char,
    errstr_size: usize,
) -> *mut NewPartitions {
    guard(std::ptr::null_mut(), || {
        let cnt = i32::try_from(new_total_cnt)
            .ok()
            .filter(|&c| c >= 1 && i64::from(c) <= PARTITIONS_MAX);
        let (Some(name), Some(cnt)) = (raw::read_cstr(topic), cnt) else {
            raw::write_errstr(
                errstr,
                errstr_size,
                &format!("new_total_cnt out of expected range 1..{PARTITIONS_MAX}"),
            );
            return std::ptr::null_mut();
        };
        Box::into_raw(Box::new(NewPartitions {
            parts: ga::NewPartitions::increase_to(name, cnt),
        }))
    })
}

/// `rd_kafka_NewPartitions_destroy`.
#[no_mangle]
pub extern "C" fn rd_kafka_NewPartitions_destroy(new_parts: *mut NewPartitions) {
    guard((), || drop(raw::take_box(new_parts)));
}

/// `rd_kafka_NewPartitions_destroy_array`: each element, not the array.
#[no_mangle]
pub extern "C" fn rd_kafka_NewPartitions_destroy_array(
    new_parts: *mut *mut NewPartitions,
    new_parts_cnt: usize,
) {
    guard((), || {
        for &p in raw::read_array(new_parts, new_parts_cnt) {
            drop(raw::take_box(p));
        }
    })
}

/// The replicas of the next new partition, in order from index 0
/// (`rd_kafka_NewPartitions_set_replica_assignment`).
#[no_mangle]
pub extern "C" fn rd_kafka_NewPartitions_set_replica_assignment(
    new_parts: *mut NewPartitions,
    new_partition_idx: i32,
    broker_ids: *mut i32,
    broker_id_cnt: usize,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard(RESP_ERR__INVALID_ARG, || {
        let Some(p) = object_mut(new_parts) else {
            return RESP_ERR__INVALID_ARG;
        };
        let list = p.parts.assignments.get_or_insert_with(Vec::new);
        if usize::try_from(new_partition_idx).ok() != Some(list.len()) {
            raw::write_errstr(
                errstr,
                errstr_size,
                &format!(
                    "Partitions must be added in order, starting at 0: expecting partition index {}, not {new_partition_idx}",
                    list.len()
                ),
            );
            return RESP_ERR__INVALID_ARG;
        }
        if i64::try_from(broker_id_cnt).unwrap_or(i64::MAX) > BROKERS_MAX {
            raw::write_errstr(
                errstr,
                errstr_size,
                &format!("Too many brokers specified (RD_KAFKAP_BROKERS_MAX={BROKERS_MAX})"),
            );
            return RESP_ERR__INVALID_ARG;
        }
        list.push(raw::read_array(broker_ids, broker_id_cnt).to_vec());
        0
    })
}

/// How a request's topic results read.
#[derive(Debug, Clone, Copy)]
struct Reading {
    /// `REQUEST_TIMED_OUT` is success (an operation timeout of 0 or less).
    started_ok: bool,
    /// The broker's message is the error text when it gives one
    /// (CreateTopics, CreatePartitions); else, and always for DeleteTopics
    /// as in librdkafka, the code's text.
    broker_message: bool,
}

impl Reading {
    /// How the results of a call with `options` read.
    fn of(options: *const AdminOptions, broker_message: bool) -> Reading {
        Reading {
            started_ok: raw::object(options).is_some_and(AdminOptions::started_is_success),
            broker_message,
        }
    }
}

/// What each of the caller's `cnt` request objects at `arr` holds for the
/// request (`f` of each; NULL entries are skipped).
fn collect<T, U>(arr: *mut *mut T, cnt: usize, f: impl Fn(&T) -> U) -> Vec<U> {
    raw::read_array(arr, cnt)
        .iter()
        .filter_map(|&o| raw::object(o))
        .map(f)
        .collect()
}

/// A topic's result as librdkafka gives it (see [`Reading`]).
fn topic_result(name: &str, r: Result<(), &Error>, how: Reading) -> TopicResult {
    let Reading {
        started_ok,
        broker_message,
    } = how;
    match r {
        Ok(()) => TopicResult::new(name, 0, None),
        Err(Error::Kafka { code, .. }) if started_ok && code.0 == RESP_ERR_REQUEST_TIMED_OUT => {
            TopicResult::new(name, 0, None)
        }
        Err(e @ Error::Kafka { context, .. }) => {
            // gregor's context is "topic <name>[: <the broker's message>]"
            let message = context
                .strip_prefix(&format!("topic {name}: "))
                .filter(|m| broker_message && !m.is_empty());
            match message {
                Some(m) => TopicResult::new(name, e.code(), Some(m)),
                None => TopicResult::from_error(name, Some(e)),
            }
        }
        Err(e) => TopicResult::from_error(name, Some(e)),
    }
}

/// The results of gregor's per-topic answers, in order.
fn topic_results<T>(rs: &[ga::TopicResult<T>], how: Reading) -> Vec<TopicResult> {
    rs.iter()
        .map(|r| {
            let name = r.name.as_deref().unwrap_or_default();
            topic_result(name, r.result.as_ref().map(|_| ()), how)
        })
        .collect()
}

/// What a request thread runs: the admin client and gregor's options to
/// the topic results, or the whole request's error.
type Work =
    Box<dyn FnOnce(&AdminClient, &ga::AdminOptions) -> Result<Vec<TopicResult>, Error> + Send>;

/// Starts an admin call: its result event (of type `kind`) goes to `rkqu`,
/// or the handle's main queue for NULL.
fn submit(
    rk: *mut Handle,
    options: *const AdminOptions,
    rkqu: *mut Queue,
    kind: c_int,
    work: Work,
) {
    submit_event(rk, options, rkqu, kind, move |c, o, ev| {
        Ok(ev.with_topics(work(c, o)?))
    });
}

/// Starts an admin call whose result is more than topic results: `work`
/// gets the admin client, gregor's options and the empty success event
/// (type `kind`, the options' opaque) to fill; its error fails the whole
/// request. The event goes to `rkqu`, or the handle's main queue for NULL.
pub(crate) fn submit_event(
    rk: *mut Handle,
    options: *const AdminOptions,
    rkqu: *mut Queue,
    kind: c_int,
    work: impl FnOnce(&AdminClient, &ga::AdminOptions, Event) -> Result<Event, Error> + Send + 'static,
) {
    let Some(h) = raw::object(rk) else {
        return;
    };
    let opts = raw::object(options)
        .cloned()
        .unwrap_or_else(|| AdminOptions::defaults(op::ANY));
    let admin = h.admin();
    let fifo =
        raw::object(rkqu).map_or_else(|| Arc::clone(admin.main_queue()), |q| Arc::clone(q.fifo()));
    let client = match admin.client(h) {
        Ok(c) => c,
        Err(e) => {
            fifo.push(Event::admin(
                kind,
                opts.opaque,
                Err((e.code(), e.to_string())),
            ));
            return;
        }
    };
    admin.spawn(move || {
        let empty = Event::admin(kind, opts.opaque, Ok(Vec::new()));
        let ev = work(&client, &opts.to_gregor(), empty)
            .unwrap_or_else(|e| Event::admin(kind, opts.opaque, Err((e.code(), e.to_string()))));
        fifo.push(ev);
    });
}

/// Fails an admin call at once, as librdkafka does for arguments it
/// refuses before sending anything: its result event (of type `kind`, with
/// the options' opaque) carries `code` and `text` and no results. Posts
/// nothing without a handle.
pub(crate) fn fail_request(
    rk: *mut Handle,
    options: *const AdminOptions,
    rkqu: *mut Queue,
    kind: c_int,
    (code, text): (c_int, String),
) {
    let Some(h) = raw::object(rk) else {
        return;
    };
    let opaque = raw::object(options).map_or(0, |o| o.opaque);
    let admin = h.admin();
    let fifo =
        raw::object(rkqu).map_or_else(|| Arc::clone(admin.main_queue()), |q| Arc::clone(q.fifo()));
    fifo.push(Event::admin(kind, opaque, Err((code, text))));
}

/// An admin request not implemented yet (`rd_kafka_<name>`, a generated
/// stub, see `stubs`): its result event, of the request's type, carries
/// `RD_KAFKA_RESP_ERR__NOT_IMPLEMENTED` and no results, so that a caller
/// waiting on the queue for the result (as librdkafka's asynchronous
/// admin calls require) gets an answer instead of none at all. A request
/// whose type is unknown, or with no handle, posts nothing.
pub(crate) fn unimplemented_request(
    rk: *mut c_void,
    options: *mut c_void,
    rkqu: *mut c_void,
    name: &str,
) {
    let Some(&(kind, ..)) = OTHER_ADMIN_RESULTS.iter().find(|r| r.1 == name) else {
        return;
    };
    let text = format!("rd_kafka_{name}: not implemented by gregor's librdkafka yet");
    fail_request(
        rk.cast(),
        options.cast(),
        rkqu.cast(),
        kind,
        (RESP_ERR__NOT_IMPLEMENTED, text),
    );
}

/// Creates topics (`rd_kafka_CreateTopics`); the result is a
/// `RD_KAFKA_EVENT_CREATETOPICS_RESULT` event on `rkqu`.
#[no_mangle]
pub extern "C" fn rd_kafka_CreateTopics(
    rk: *mut Handle,
    new_topics: *mut *mut NewTopic,
    new_topic_cnt: usize,
    options: *const AdminOptions,
    rkqu: *mut Queue,
) {
    guard((), || {
        let topics = collect(new_topics, new_topic_cnt, |t| t.topic.clone());
        let how = Reading::of(options, true);
        let work: Work = Box::new(move |c, o| {
            let rs = c.create_topics(&topics, o)?;
            Ok(topic_results(&rs, how))
        });
        submit(rk, options, rkqu, EVENT_CREATETOPICS_RESULT, work);
    })
}

/// Deletes topics (`rd_kafka_DeleteTopics`); the result is a
/// `RD_KAFKA_EVENT_DELETETOPICS_RESULT` event on `rkqu`.
#[no_mangle]
pub extern "C" fn rd_kafka_DeleteTopics(
    rk: *mut Handle,
    del_topics: *mut *mut DeleteTopic,
    del_topic_cnt: usize,
    options: *const AdminOptions,
    rkqu: *mut Queue,
) {
    guard((), || {
        let names = collect(del_topics, del_topic_cnt, |t| t.name.clone());
        let how = Reading::of(options, false);
        let work: Work = Box::new(move |c, o| {
            let refs: Vec<&str> = names.iter().map(String::as_str).collect();
            let rs = c.delete_topics(&refs, o)?;
            Ok(topic_results(&rs, how))
        });
        submit(rk, options, rkqu, EVENT_DELETETOPICS_RESULT, work);
    })
}

/// Adds partitions to topics (`rd_kafka_CreatePartitions`); the result is
/// a `RD_KAFKA_EVENT_CREATEPARTITIONS_RESULT` event on `rkqu`.
#[no_mangle]
pub extern "C" fn rd_kafka_CreatePartitions(
    rk: *mut Handle,
    new_parts: *mut *mut NewPartitions,
    new_parts_cnt: usize,
    options: *const AdminOptions,
    rkqu: *mut Queue,
) {
    guard((), || {
        let parts = collect(new_parts, new_parts_cnt, |p| p.parts.clone());
        let how = Reading::of(options, true);
        let work: Work = Box::new(move |c, o| {
            let rs = c.create_partitions(&parts, o)?;
            Ok(topic_results(&rs, how))
        });
        submit(rk, options, rkqu, EVENT_CREATEPARTITIONS_RESULT, work);
    })
}

#[cfg(test)]
#[path = "admin_tests.rs"]
mod admin_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::admin_parts::{rd_kafka_topic_result_error, rd_kafka_topic_result_error_string};
    use std::ffi::CStr;

    fn errbuf() -> [c_char; 256] {
        [0; 256]
    }

    fn text(buf: &[c_char]) -> String {
        // SAFETY: a NUL-terminated buffer the call wrote.
        unsafe { CStr::from_ptr(buf.as_ptr()) }
            .to_string_lossy()
            .into_owned()
    }

    #[test]
    fn an_unimplemented_request_answers_with_a_failed_result_event() {
        use crate::event::{
            rd_kafka_event_destroy, rd_kafka_event_error, rd_kafka_event_name,
            rd_kafka_event_opaque, rd_kafka_event_type,
        };
        use crate::handle::{rd_kafka_destroy, rd_kafka_new, PRODUCER};
        use crate::queue::{rd_kafka_queue_destroy, rd_kafka_queue_new, rd_kafka_queue_poll};

        let mut e = errbuf();
        let n = e.len();
        let rk = rd_kafka_new(
            PRODUCER,
            crate::conf::rd_kafka_conf_new(),
            e.as_mut_ptr(),
            n,
        );
        assert!(!rk.is_null(), "{}", text(&e));
        let q = rd_kafka_queue_new(rk);
        let o = rd_kafka_AdminOptions_new(rk, op::ANY);
        rd_kafka_AdminOptions_set_opaque(o, 7usize as *mut c_void);
        crate::stubs::rd_kafka_DescribeCluster(rk.cast(), o.cast(), q.cast());
        let ev = rd_kafka_queue_poll(q, 5000);
        assert!(!ev.is_null());
        assert_eq!(rd_kafka_event_type(ev), 0x200000);
        assert_eq!(rd_kafka_event_error(ev), RESP_ERR__NOT_IMPLEMENTED);
        assert_eq!(rd_kafka_event_opaque(ev) as usize, 7);
        // SAFETY: a static NUL-terminated name.
        let name = unsafe { CStr::from_ptr(rd_kafka_event_name(ev)) };
        assert_eq!(name, c"DescribeClusterResult");
        rd_kafka_event_destroy(ev);
        rd_kafka_AdminOptions_destroy(o);
        rd_kafka_queue_destroy(q);
        rd_kafka_destroy(rk);
    }

    #[test]
    fn options_check_as_librdkafka() {
        let mut o = AdminOptions::defaults(op::DELETETOPICS);
        let mut e = errbuf();
        let n = e.len();
        assert_eq!(
            rd_kafka_AdminOptions_set_request_timeout(&mut o, 5000, e.as_mut_ptr(), n),
            0
        );
        assert_eq!(
            rd_kafka_AdminOptions_set_request_timeout(&mut o, -2, e.as_mut_ptr(), n),
            RESP_ERR__INVALID_ARG
        );
        assert!(text(&e).contains("expecting integer in range 0..3600000"));
        assert_eq!(
            rd_kafka_AdminOptions_set_validate_only(&mut o, 1, e.as_mut_ptr(), n),
            RESP_ERR__INVALID_ARG
        );
        assert_eq!(
            text(&e),
            "\"validate_only\" is not supported for this operation"
        );
        assert_eq!(
            rd_kafka_AdminOptions_set_operation_timeout(&mut o, 0, e.as_mut_ptr(), n),
            0
        );
        assert!(o.started_is_success());
        assert_eq!(o.to_gregor().request_timeout, Some(Duration::from_secs(5)));
    }

    #[test]
    fn error_object_setters() {
        use crate::error_object::{rd_kafka_error_code, rd_kafka_error_destroy};
        let code = |e: *mut c_void| {
            let c = rd_kafka_error_code(e.cast());
            rd_kafka_error_destroy(e.cast());
            c
        };
        let mut o = AdminOptions::defaults(op::CREATETOPICS);
        let e = rd_kafka_AdminOptions_set_require_stable_offsets(&mut o, 1);
        assert_eq!(code(e), RESP_ERR__INVALID_ARG);
        let mut l = AdminOptions::defaults(op::LISTCONSUMERGROUPOFFSETS);
        assert!(rd_kafka_AdminOptions_set_require_stable_offsets(&mut l, 1).is_null());
        assert!(l.require_stable_offsets);
        let e = rd_kafka_AdminOptions_set_require_stable_offsets(&mut l, 2);
        assert_eq!(code(e), RESP_ERR__INVALID_ARG);
        let mut g = AdminOptions::defaults(op::LISTCONSUMERGROUPS);
        let states = [1, 3];
        assert!(
            rd_kafka_AdminOptions_set_match_consumer_group_states(&mut g, states.as_ptr(), 2)
                .is_null()
        );
        assert_eq!(g.group_states, vec![1, 3]);
        let dup = [1, 1];
        let e = rd_kafka_AdminOptions_set_match_consumer_group_states(&mut g, dup.as_ptr(), 2);
        assert_eq!(code(e), RESP_ERR__INVALID_ARG);
        let unknown = [0];
        let e = rd_kafka_AdminOptions_set_match_consumer_group_types(&mut g, unknown.as_ptr(), 1);
        assert_eq!(code(e), RESP_ERR__INVALID_ARG);
        let e = rd_kafka_AdminOptions_set_match_consumer_group_states(&mut o, states.as_ptr(), 2);
        assert_eq!(code(e), RESP_ERR__INVALID_ARG);
    }

    #[test]
    fn new_objects_check_ranges() {
        let mut e = errbuf();
        let n = e.len();
        let t = rd_kafka_NewTopic_new(c"t".as_ptr(), -2, 1, e.as_mut_ptr(), n);
        assert!(t.is_null());
        assert!(text(&e).starts_with("num_partitions out of expected range"));
        let t = rd_kafka_NewTopic_new(c"t".as_ptr(), 3, -1, e.as_mut_ptr(), n);
        assert!(!t.is_null());
        assert_eq!(
            rd_kafka_NewTopic_set_config(t, c"a".as_ptr(), c"b".as_ptr()),
            0
        );
        let mut ids = [1, 2];
        assert_eq!(
            rd_kafka_NewTopic_set_replica_assignment(t, 1, ids.as_mut_ptr(), 2, e.as_mut_ptr(), n),
            RESP_ERR__INVALID_ARG
        );
        assert_eq!(
            rd_kafka_NewTopic_set_replica_assignment(t, 0, ids.as_mut_ptr(), 2, e.as_mut_ptr(), n),
            0
        );
        let mut arr = [t];
        rd_kafka_NewTopic_destroy_array(arr.as_mut_ptr(), 1);
        assert!(rd_kafka_NewPartitions_new(c"t".as_ptr(), 0, e.as_mut_ptr(), n).is_null());
        let p = rd_kafka_NewPartitions_new(c"t".as_ptr(), 4, e.as_mut_ptr(), n);
        rd_kafka_NewPartitions_destroy(p);
        let d = rd_kafka_DeleteTopic_new(c"t".as_ptr());
        rd_kafka_DeleteTopic_destroy(d);
    }

    #[test]
    fn topic_results_take_the_broker_message() {
        let e = Error::kafka(
            gregor::error::KafkaCode(36),
            "topic t: Topic 't' already exists.",
        );
        let how = Reading {
            started_ok: false,
            broker_message: true,
        };
        let r = topic_result("t", Err(&e), how);
        assert_eq!(rd_kafka_topic_result_error(&r), 36);
        // SAFETY: the result's error string, alive with `r`.
        let s = unsafe { CStr::from_ptr(rd_kafka_topic_result_error_string(&r)) };
        assert_eq!(s.to_str().unwrap(), "Topic 't' already exists.");
        let e = Error::kafka(gregor::error::KafkaCode(3), "topic u");
        let r = topic_result("u", Err(&e), how);
        // SAFETY: as above.
        let s = unsafe { CStr::from_ptr(rd_kafka_topic_result_error_string(&r)) };
        assert!(s.to_str().unwrap().starts_with("Broker: Unknown topic"));
        let e = Error::kafka(gregor::error::KafkaCode(7), "topic v");
        let started = Reading {
            started_ok: true,
            ..how
        };
        assert_eq!(
            rd_kafka_topic_result_error(&topic_result("v", Err(&e), started)),
            0
        );
        // DeleteTopics: the code's text even when the broker has a message
        let e = Error::kafka(gregor::error::KafkaCode(3), "topic w: not hosted here.");
        let plain = Reading {
            broker_message: false,
            ..how
        };
        let r = topic_result("w", Err(&e), plain);
        // SAFETY: as above.
        let s = unsafe { CStr::from_ptr(rd_kafka_topic_result_error_string(&r)) };
        assert!(s.to_str().unwrap().starts_with("Broker: Unknown topic"));
    }
}
