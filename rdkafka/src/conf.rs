//! The configuration family: `rd_kafka_conf_t` and `rd_kafka_topic_conf_t`
//! of rdkafka.h, on gregor's [`Config`] (which knows every property of
//! librdkafka by name, validates values, and keeps what it does not act on).
//!
//! Behaviour follows librdkafka 2.12.1's `rdkafka_conf.c`:
//!
//! - `conf_set`: `RD_KAFKA_CONF_UNKNOWN` for a name librdkafka does not
//!   know either ("No such configuration property: \"name\""),
//!   `RD_KAFKA_CONF_INVALID` for a bad value or a callback property (set
//!   through its dedicated function). A topic-level property given to the
//!   global conf goes to its default topic conf, made on first use; a
//!   topic conf strips a `topic.` prefix and knows topic properties only.
//! - `conf_get`: librdkafka's size protocol: `*dest_size` becomes the
//!   value's size with its NUL; with `dest` the value is copied, truncated
//!   to fit. An unknown name on the global conf is looked up in the
//!   default topic conf; a property without a value (a string never set, a
//!   callback) is `RD_KAFKA_CONF_UNKNOWN`, as librdkafka's.
//! - `conf_dump`: name, value, name, value, …, every property that has a
//!   value (not the callbacks), under librdkafka's names (where gregor's
//!   table has an alias the other way round, `LIBRDKAFKA_NAMES`).
//!
//! Where gregor differs: defaults are gregor's (the `client.id` default is
//! `gregor`); an enumeration's value reads back as gregor's canonical
//! spelling (`auto.offset.reset` `latest`, where librdkafka answers with
//! the value's first synonym, `largest`); a bad value's `errstr` is
//! librdkafka's "Invalid value for configuration property "<name>":
//! <value>" with gregor's reason after it in parentheses; a property gregor does not act on is accepted and kept
//! for `get` and `dump` without effect (gregor's `Config` marks it; the
//! client will log a `CONFWARN` for it, as gregor's own clients do). gregor's own properties
//! (`zookeeper.connect`, …) are accepted too, where librdkafka would say
//! UNKNOWN: a program written for librdkafka never sets them. Interceptors
//! (`on_conf_set`, …) are not implemented.
//!
//! The callbacks and pointers the `set_*` functions store are kept in
//! [`Conf`] and [`TopicConf`] for the client to call later. A NULL conf is
//! never dereferenced: setters do nothing, getters fail.

#![allow(unsafe_code)] // `#[no_mangle]`, and the caller's conf objects

use std::ffi::{c_char, c_int, c_void, CString};

use gregor::config::Config;
use gregor::error::Error;

use crate::guard::guard;
use crate::raw;

/// `RD_KAFKA_CONF_UNKNOWN`.
pub const CONF_UNKNOWN: c_int = -2;
/// `RD_KAFKA_CONF_INVALID`.
pub const CONF_INVALID: c_int = -1;
/// `RD_KAFKA_CONF_OK`.
pub const CONF_OK: c_int = 0;

/// librdkafka's topic-level properties that are not also global: given to
/// the global conf, they go to its default topic conf.
const TOPIC_ONLY: &[&str] = &[
    "request.required.acks",
    "acks",
    "request.timeout.ms",
    "message.timeout.ms",
    "delivery.timeout.ms",
    "queuing.strategy",
    "produce.offset.report",
    "partitioner",
    "partitioner_cb",
    "msg_order_cmp",
    "compression.level",
    "auto.commit.enable",
    "auto.offset.reset",
    "offset.store.path",
    "offset.store.sync.interval.ms",
    "consume.callback.max.messages",
];

/// librdkafka's properties that are both global and topic-level.
const TOPIC_AND_GLOBAL: &[&str] = &[
    "opaque",
    "compression.codec",
    "compression.type",
    "enable.auto.commit",
    "auto.commit.interval.ms",
    "offset.store.method",
];

/// librdkafka properties whose purpose gregor's clients meet without them,
/// kept in the conf (get, dump) but not given to the client, which would
/// warn (`CONFWARN`) that it does not implement them:
/// `internal.termination.signal` lets librdkafka wake its threads blocked
/// in system calls at `rd_kafka_destroy` (rdkafka.h / CONFIGURATION.md);
/// gregor's threads wake without a signal. kcat sets it on every run.
const MOOT_FOR_CLIENT: &[&str] = &["internal.termination.signal"];

/// librdkafka properties this crate implements itself, above gregor's
/// client, and does not give it: `log.queue` (the handle's log queue,
/// forwarded by `rd_kafka_set_log_queue` to any queue, where gregor's
/// client would hold the lines for its own `poll` only).
const SERVED_HERE: &[&str] = &["log.queue"];

/// librdkafka's aliases (alias, the name librdkafka stores it under) where
/// gregor's table has it the other way round: a dump shows librdkafka's
/// name. `enable.auto.commit` is an alias in the topic scope only.
const LIBRDKAFKA_NAMES: &[(&str, &str)] = &[
    ("bootstrap.servers", "metadata.broker.list"),
    ("max.in.flight", "max.in.flight.requests.per.connection"),
    ("sasl.mechanism", "sasl.mechanisms"),
    (
        "sasl.oauthbearer.client.credentials.client.id",
        "sasl.oauthbearer.client.id",
    ),
    (
        "sasl.oauthbearer.client.credentials.client.secret",
        "sasl.oauthbearer.client.secret",
    ),
    ("max.partition.fetch.bytes", "fetch.message.max.bytes"),
    ("linger.ms", "queue.buffering.max.ms"),
    ("retries", "message.send.max.retries"),
    ("compression.type", "compression.codec"),
    ("acks", "request.required.acks"),
    ("delivery.timeout.ms", "message.timeout.ms"),
];

/// The name a dump shows for gregor's canonical `name` in `scope`.
fn dump_name(scope: Scope, name: &'static str) -> &'static str {
    if scope == Scope::Topic && name == "enable.auto.commit" {
        return "auto.commit.enable";
    }
    LIBRDKAFKA_NAMES
        .iter()
        .find(|(alias, _)| *alias == name)
        .map_or(name, |(_, real)| real)
}

/// The scope a name is looked up in, as librdkafka's `_RK_GLOBAL` / `_RK_TOPIC`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    Global,
    Topic,
}

fn in_scope(scope: Scope, name: &str) -> bool {
    match scope {
        Scope::Global => !TOPIC_ONLY.contains(&name),
        Scope::Topic => TOPIC_ONLY.contains(&name) || TOPIC_AND_GLOBAL.contains(&name),
    }
}

/// What gregor's table says of a property (by name or alias).
fn info(name: &str) -> Option<gregor::config::PropertyInfo> {
    Config::properties().find(|p| p.name == name || p.aliases.contains(&name))
}

fn is_callback(p: &gregor::config::PropertyInfo) -> bool {
    p.kind.starts_with("callback")
}

/// Why a `set` failed: the `rd_kafka_conf_res_t` and the `errstr` text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SetError {
    pub(crate) res: c_int,
    pub(crate) text: String,
}

fn unknown(name: &str) -> SetError {
    SetError {
        res: CONF_UNKNOWN,
        text: format!("No such configuration property: \"{name}\""),
    }
}

/// Sets `name` in `props` if it is a property of `scope`.
fn set_in(props: &mut Config, scope: Scope, name: &str, value: &str) -> Result<(), SetError> {
    let Some(p) = info(name).filter(|_| in_scope(scope, name)) else {
        return Err(unknown(name));
    };
    if is_callback(&p) {
        return Err(SetError {
            res: CONF_INVALID,
            text: format!("Property \"{name}\" must be set through dedicated .._set_..() function"),
        });
    }
    // librdkafka: an empty (or NULL) string value puts the default back.
    let value = if value.is_empty() && p.kind == "string" {
        p.default
    } else {
        value
    };
    props.set(name, value).map(|_| ()).map_err(|e| SetError {
        res: CONF_INVALID,
        // librdkafka's text is `Invalid value for configuration property
        // "<name>": <value>`; gregor's reason follows.
        text: format!(
            "Invalid value for configuration property \"{name}\": {value} ({})",
            match e {
                Error::Config { reason, .. } => reason,
                other => other.to_string(),
            }
        ),
    })
}

/// The value `get` answers for `name` in `props`: `Ok(None)` where
/// librdkafka has no value (a string never set, a callback), `Err` if
/// `name` is not a property of `scope`.
fn get_in(props: &Config, scope: Scope, name: &str) -> Result<Option<String>, ()> {
    let p = info(name).filter(|_| in_scope(scope, name)).ok_or(())?;
    Ok(value_of(props, &p))
}

/// The value of property `p` in `props`, `None` where librdkafka has none.
fn value_of(props: &Config, p: &gregor::config::PropertyInfo) -> Option<String> {
    if is_callback(p) {
        return None;
    }
    let v = props.get(p.name).unwrap_or_default();
    (!(v.is_empty() && p.kind == "string")).then(|| v.to_string())
}

/// Every property of `scope` that has a value: (librdkafka's name, value).
fn dump_in(props: &Config, scope: Scope) -> Vec<(String, String)> {
    Config::properties()
        .filter(|p| match scope {
            Scope::Global => in_scope(scope, p.name),
            Scope::Topic => std::iter::once(&p.name)
                .chain(p.aliases)
                .any(|n| in_scope(scope, n)),
        })
        .filter_map(|p| Some((dump_name(scope, p.name).to_string(), value_of(props, &p)?)))
        .collect()
}

/// `rd_kafka_conf_set_dr_msg_cb`'s callback.
pub type DrMsgCb = unsafe extern "C" fn(*mut c_void, *const c_void, *mut c_void);
/// `rd_kafka_conf_set_dr_cb`'s callback (deprecated by librdkafka).
pub type DrCb =
    unsafe extern "C" fn(*mut c_void, *mut c_void, usize, c_int, *mut c_void, *mut c_void);
/// `rd_kafka_conf_set_error_cb`'s callback.
pub type ErrorCb = unsafe extern "C" fn(*mut c_void, c_int, *const c_char, *mut c_void);
/// `rd_kafka_conf_set_log_cb`'s callback.
pub type LogCb = unsafe extern "C" fn(*const c_void, c_int, *const c_char, *const c_char);
/// `rd_kafka_conf_set_stats_cb`'s callback.
pub type StatsCb = unsafe extern "C" fn(*mut c_void, *mut c_char, usize, *mut c_void) -> c_int;
/// `rd_kafka_conf_set_throttle_cb`'s callback.
pub type ThrottleCb = unsafe extern "C" fn(*mut c_void, *const c_char, i32, c_int, *mut c_void);
/// `rd_kafka_conf_set_rebalance_cb` and `_offset_commit_cb`'s callback.
pub type PartitionsCb = unsafe extern "C" fn(*mut c_void, c_int, *mut c_void, *mut c_void);
/// `rd_kafka_conf_set_consume_cb`'s callback.
pub type ConsumeCb = unsafe extern "C" fn(*mut c_void, *mut c_void);
/// `rd_kafka_queue_cb_event_enable`'s callback.
pub type QueueEventCb = unsafe extern "C" fn(*mut c_void, *mut c_void);
/// `rd_kafka_conf_set_background_event_cb`'s callback.
pub type BackgroundEventCb = unsafe extern "C" fn(*mut c_void, *mut c_void, *mut c_void);
/// `rd_kafka_conf_set_oauthbearer_token_refresh_cb`'s callback.
pub type OauthbearerRefreshCb = unsafe extern "C" fn(*mut c_void, *const c_char, *mut c_void);
/// `rd_kafka_topic_conf_set_partitioner_cb`'s callback.
pub type PartitionerCb =
    unsafe extern "C" fn(*const c_void, *const c_void, usize, i32, *mut c_void, *mut c_void) -> i32;
/// `rd_kafka_topic_conf_set_msg_order_cmp`'s callback.
pub type MsgOrderCmp = unsafe extern "C" fn(*const c_void, *const c_void) -> c_int;

/// `rd_kafka_conf_set_socket_cb`'s callback.
pub type SocketCb = unsafe extern "C" fn(c_int, c_int, c_int, *mut c_void) -> c_int;
/// `rd_kafka_conf_set_connect_cb`'s callback.
pub type ConnectCb =
    unsafe extern "C" fn(c_int, *const c_void, c_int, *const c_char, *mut c_void) -> c_int;
/// `rd_kafka_conf_set_closesocket_cb`'s callback.
pub type ClosesocketCb = unsafe extern "C" fn(c_int, *mut c_void) -> c_int;
/// `rd_kafka_conf_set_open_cb`'s callback (`mode_t` is 32 bits on Linux).
pub type OpenCb = unsafe extern "C" fn(*const c_char, c_int, u32, *mut c_void) -> c_int;
/// `rd_kafka_conf_set_resolve_cb`'s callback.
pub type ResolveCb = unsafe extern "C" fn(
    *const c_char,
    *const c_char,
    *const c_void,
    *mut *mut c_void,
    *mut c_void,
) -> c_int;
/// `rd_kafka_conf_set_ssl_cert_verify_cb`'s callback.
pub type SslCertVerifyCb = unsafe extern "C" fn(
    *mut c_void,
    *const c_char,
    i32,
    *mut c_int,
    c_int,
    *const c_char,
    usize,
    *mut c_char,
    usize,
    *mut c_void,
) -> c_int;

/// The application's callbacks, stored for the client (`None`: not set).
/// The socket-level ones (`socket`, `connect`, `closesocket`, `open`,
/// `resolve`, `ssl_cert_verify`) are kept so programs that set them work,
/// but gregor's own sockets, resolver and TLS do not call them.
#[derive(Debug, Clone, Copy, Default)]
#[allow(missing_docs)] // each is its `rd_kafka_conf_set_<name>` callback
pub struct Callbacks {
    pub dr_msg: Option<DrMsgCb>,
    pub dr: Option<DrCb>,
    pub error: Option<ErrorCb>,
    pub log: Option<LogCb>,
    pub stats: Option<StatsCb>,
    pub throttle: Option<ThrottleCb>,
    pub rebalance: Option<PartitionsCb>,
    pub offset_commit: Option<PartitionsCb>,
    pub consume: Option<ConsumeCb>,
    pub background_event: Option<BackgroundEventCb>,
    pub oauthbearer_token_refresh: Option<OauthbearerRefreshCb>,
    pub socket: Option<SocketCb>,
    pub connect: Option<ConnectCb>,
    pub closesocket: Option<ClosesocketCb>,
    pub open: Option<OpenCb>,
    pub resolve: Option<ResolveCb>,
    pub ssl_cert_verify: Option<SslCertVerifyCb>,
}

/// `rd_kafka_topic_conf_t`: topic-level properties, the topic's opaque and
/// its callbacks. Owned by the caller until handed to a conf or a topic.
#[derive(Debug, Clone)]
pub struct TopicConf {
    /// The properties set (gregor's table, topic-level names only).
    pub(crate) props: Config,
    /// `rd_kafka_topic_conf_set_opaque`.
    pub(crate) opaque: *mut c_void,
    /// `rd_kafka_topic_conf_set_partitioner_cb`.
    pub(crate) partitioner: Option<PartitionerCb>,
    /// `rd_kafka_topic_conf_set_msg_order_cmp`.
    pub(crate) msg_order_cmp: Option<MsgOrderCmp>,
}

impl TopicConf {
    fn new() -> Self {
        TopicConf {
            props: Config::new(),
            opaque: std::ptr::null_mut(),
            partitioner: None,
            msg_order_cmp: None,
        }
    }

    /// librdkafka's `rd_kafka_topic_conf_set`.
    pub(crate) fn set(&mut self, name: &str, value: &str) -> Result<(), SetError> {
        let name = name.strip_prefix("topic.").unwrap_or(name);
        set_in(&mut self.props, Scope::Topic, name, value)
    }

    fn get(&self, name: &str) -> Result<Option<String>, ()> {
        get_in(&self.props, Scope::Topic, name)
    }
}

/// `rd_kafka_conf_t`: global properties, the default topic conf, the
/// callbacks, the opaque and the enabled events, for the client to read.
#[derive(Debug, Clone)]
pub struct Conf {
    /// The properties set (gregor's table, global names).
    pub(crate) props: Config,
    /// The default topic conf (`rd_kafka_conf_set_default_topic_conf`, or
    /// made by a topic-level `conf_set`); its address is stable.
    pub(crate) topic: Option<Box<TopicConf>>,
    /// The application's callbacks.
    pub(crate) callbacks: Callbacks,
    /// `rd_kafka_conf_set_opaque`.
    pub(crate) opaque: *mut c_void,
    /// `rd_kafka_conf_set_events`: the `RD_KAFKA_EVENT_*` bitmask.
    pub(crate) events: c_int,
    /// `rd_kafka_conf_set_engine_callback_data` (OpenSSL engines; kept only).
    pub(crate) engine_callback_data: *mut c_void,
    /// `rd_kafka_conf_enable_sasl_queue`.
    pub(crate) sasl_queue: bool,
}

impl Conf {
    pub(crate) fn new() -> Self {
        Conf {
            props: Config::new(),
            topic: None,
            callbacks: Callbacks::default(),
            opaque: std::ptr::null_mut(),
            events: 0,
            engine_callback_data: std::ptr::null_mut(),
            sasl_queue: false,
        }
    }

    /// The configuration a client is made with: the global properties
    /// with the default topic conf's merged in (gregor's clients take
    /// topic-level properties from the one configuration), less
    /// [`MOOT_FOR_CLIENT`].
    pub(crate) fn client_config(&self) -> Result<Config, Error> {
        let mut cfg = Config::new();
        for (name, value) in self.props.iter() {
            if !MOOT_FOR_CLIENT.contains(&name) && !SERVED_HERE.contains(&name) {
                cfg.set(name, value)?;
            }
        }
        if let Some(t) = &self.topic {
            for (name, value) in t.props.iter() {
                cfg.set(name, value)?;
            }
        }
        Ok(cfg)
    }

    /// Whether `log.queue` is true: log lines wait for
    /// `rd_kafka_set_log_queue` (see `handle`).
    pub(crate) fn log_queue(&self) -> bool {
        self.props.get("log.queue").is_some_and(|v| v == "true")
    }

    /// librdkafka's `rd_kafka_conf_set`: a name the global scope does not
    /// know goes to the default topic conf (made if there is none).
    pub(crate) fn set(&mut self, name: &str, value: &str) -> Result<(), SetError> {
        match set_in(&mut self.props, Scope::Global, name, value) {
            Err(e) if e.res == CONF_UNKNOWN => self
                .topic
                .get_or_insert_with(|| Box::new(TopicConf::new()))
                .set(name, value),
            other => other,
        }
    }

    fn get(&self, name: &str) -> Result<Option<String>, ()> {
        match (get_in(&self.props, Scope::Global, name), &self.topic) {
            (Err(()), Some(t)) => t.get(name),
            (other, _) => other,
        }
    }

    /// A copy without the properties whose names start with one of `filter`.
    fn dup_filter(&self, filter: &[String]) -> Conf {
        let mut new = self.clone();
        if filter.is_empty() {
            return new;
        }
        new.props = Config::new();
        for (k, v) in self.props.iter() {
            if !filter.iter().any(|f| k.starts_with(f.as_str())) {
                let _ = new.props.set(k, v);
            }
        }
        if filter
            .iter()
            .any(|f| "default_topic_conf".starts_with(f.as_str()))
        {
            new.topic = None;
        }
        new
    }
}

fn conf_mut<'a>(conf: *mut Conf) -> Option<&'a mut Conf> {
    // SAFETY: a non-NULL `rd_kafka_conf_t *` is one `rd_kafka_conf_new` or
    // `_dup` returned and the caller has not destroyed or handed over
    // (rdkafka.h's ownership rules); C gives no concurrent access to it.
    unsafe { conf.as_mut() }
}

fn topic_mut<'a>(conf: *mut TopicConf) -> Option<&'a mut TopicConf> {
    // SAFETY: as `conf_mut`, for `rd_kafka_topic_conf_t *`.
    unsafe { conf.as_mut() }
}

/// Takes back a conf or topic conf the caller hands over; `None` for NULL.
fn take<T>(p: *mut T) -> Option<Box<T>> {
    // SAFETY: a non-NULL `rd_kafka_conf_t *` / `rd_kafka_topic_conf_t *`
    // came from `Box::into_raw` here, and the caller gives it back once
    // (destroy, or handing a topic conf to a conf).
    (!p.is_null()).then(|| unsafe { Box::from_raw(p) })
}

/// The `filter_cnt` strings of `rd_kafka_conf_dup_filter`'s `filter`.
fn filter_strings(filter: *mut *const c_char, filter_cnt: usize) -> Vec<String> {
    if filter.is_null() {
        return Vec::new();
    }
    // SAFETY: rdkafka.h: `filter` holds `filter_cnt` strings.
    let ptrs = unsafe { std::slice::from_raw_parts(filter.cast_const(), filter_cnt) };
    ptrs.iter()
        .filter_map(|&p| raw::read_cstr(p).map(|s| s.into_owned()))
        .collect()
}

/// Writes `text` to the caller's `FILE *`; nothing for NULL.
fn write_file(fp: *mut c_void, text: &str) {
    if fp.is_null() {
        return;
    }
    let text = raw::c_string(text);
    // SAFETY: `fp` is the caller's open `FILE *` (rdkafka.h); `text` is
    // NUL-terminated.
    unsafe { fputs(text.as_ptr(), fp) };
}

/// The answer of `conf_set` / `topic_conf_set`, `errstr` filled on failure.
fn set_result(r: Result<(), SetError>, errstr: *mut c_char, errstr_size: usize) -> c_int {
    match r {
        Ok(()) => CONF_OK,
        Err(e) => {
            raw::write_errstr(errstr, errstr_size, &e.text);
            e.res
        }
    }
}

/// librdkafka's size protocol for `conf_get` / `topic_conf_get`.
fn get_result(r: Result<Option<String>, ()>, dest: *mut c_char, dest_size: *mut usize) -> c_int {
    // librdkafka answers UNKNOWN for a property without a value too.
    let Ok(Some(value)) = r else {
        return CONF_UNKNOWN;
    };
    let Some(size) = raw::read_in(dest_size) else {
        return CONF_INVALID;
    };
    if !dest.is_null() {
        raw::write_errstr(dest, size, &value);
    }
    raw::write_out(dest_size, value.len() + 1);
    CONF_OK
}

/// A dump array the caller frees with `rd_kafka_conf_dump_free`.
fn dump_array(pairs: Vec<(String, String)>, cntp: *mut usize) -> *mut *const c_char {
    let arr: Box<[*const c_char]> = pairs
        .into_iter()
        .flat_map(|(k, v)| [k, v])
        .map(|s| raw::c_string(&s).into_raw().cast_const())
        .collect();
    raw::write_out(cntp, arr.len());
    Box::into_raw(arr).cast()
}

/// A new conf with every property at its default
/// (`rd_kafka_conf_new`). Caller owns it: free with
/// `rd_kafka_conf_destroy`, or hand it to `rd_kafka_new`.
#[no_mangle]
pub extern "C" fn rd_kafka_conf_new() -> *mut Conf {
    guard(std::ptr::null_mut(), || {
        Box::into_raw(Box::new(Conf::new()))
    })
}

/// Frees a conf and its default topic conf (`rd_kafka_conf_destroy`);
/// NULL is ignored. Consumes `conf`.
#[no_mangle]
pub extern "C" fn rd_kafka_conf_destroy(conf: *mut Conf) {
    guard((), || {
        drop(take(conf));
    })
}

/// A copy of `conf`, its default topic conf, callbacks and opaque included
/// (`rd_kafka_conf_dup`); NULL for NULL. Caller owns the copy.
#[no_mangle]
pub extern "C" fn rd_kafka_conf_dup(conf: *const Conf) -> *mut Conf {
    rd_kafka_conf_dup_filter(conf, 0, std::ptr::null_mut())
}

/// A copy of `conf` leaving out the properties whose names start with one
/// of the `filter_cnt` prefixes in `filter` (`rd_kafka_conf_dup_filter`);
/// NULL for NULL. Caller owns the copy.
#[no_mangle]
pub extern "C" fn rd_kafka_conf_dup_filter(
    conf: *const Conf,
    filter_cnt: usize,
    filter: *mut *const c_char,
) -> *mut Conf {
    guard(std::ptr::null_mut(), || {
        let Some(c) = conf_mut(conf.cast_mut()) else {
            return std::ptr::null_mut();
        };
        let filter = filter_strings(filter, filter_cnt);
        Box::into_raw(Box::new(c.dup_filter(&filter)))
    })
}

/// Sets property `name` to `value` (`rd_kafka_conf_set`): `RD_KAFKA_CONF_OK`,
/// `RD_KAFKA_CONF_UNKNOWN` or `RD_KAFKA_CONF_INVALID` with `errstr` saying
/// why (INVALID too for a NULL conf or name).
#[no_mangle]
pub extern "C" fn rd_kafka_conf_set(
    conf: *mut Conf,
    name: *const c_char,
    value: *const c_char,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard(CONF_INVALID, || {
        let (Some(c), Some(name)) = (conf_mut(conf), raw::read_cstr(name)) else {
            raw::write_errstr(
                errstr,
                errstr_size,
                "rd_kafka_conf_set: conf or name is NULL",
            );
            return CONF_INVALID;
        };
        let value = raw::read_cstr(value).unwrap_or_default();
        set_result(c.set(&name, &value), errstr, errstr_size)
    })
}

/// Reads property `name` (`rd_kafka_conf_get`) by librdkafka's size
/// protocol: `*dest_size` becomes the size the value needs with its NUL;
/// with `dest` (of `*dest_size` bytes) the value is copied, truncated to
/// fit. `RD_KAFKA_CONF_UNKNOWN` for an unknown name or a property without
/// a value, `RD_KAFKA_CONF_INVALID` if `conf`, `name` or `dest_size` is NULL.
#[no_mangle]
pub extern "C" fn rd_kafka_conf_get(
    conf: *const Conf,
    name: *const c_char,
    dest: *mut c_char,
    dest_size: *mut usize,
) -> c_int {
    guard(CONF_INVALID, || {
        let (Some(c), Some(name)) = (conf_mut(conf.cast_mut()), raw::read_cstr(name)) else {
            return CONF_INVALID;
        };
        get_result(c.get(&name), dest, dest_size)
    })
}

/// Every global property with a value as name, value, name, value, …
/// (`rd_kafka_conf_dump`); `*cntp` is twice the number of properties.
/// Caller owns the array: free with `rd_kafka_conf_dump_free`. NULL (and a
/// count of 0) for a NULL conf.
#[no_mangle]
pub extern "C" fn rd_kafka_conf_dump(conf: *mut Conf, cntp: *mut usize) -> *mut *const c_char {
    guard(std::ptr::null_mut(), || {
        let Some(c) = conf_mut(conf) else {
            raw::write_out(cntp, 0);
            return std::ptr::null_mut();
        };
        dump_array(dump_in(&c.props, Scope::Global), cntp)
    })
}

/// Every topic property with a value, as `rd_kafka_conf_dump`
/// (`rd_kafka_topic_conf_dump`).
#[no_mangle]
pub extern "C" fn rd_kafka_topic_conf_dump(
    conf: *mut TopicConf,
    cntp: *mut usize,
) -> *mut *const c_char {
    guard(std::ptr::null_mut(), || {
        let Some(t) = topic_mut(conf) else {
            raw::write_out(cntp, 0);
            return std::ptr::null_mut();
        };
        dump_array(dump_in(&t.props, Scope::Topic), cntp)
    })
}

/// Frees a dump (`rd_kafka_conf_dump_free`); `cnt` must be the count the
/// dump gave. Consumes `arr`; NULL is ignored.
#[no_mangle]
pub extern "C" fn rd_kafka_conf_dump_free(arr: *mut *const c_char, cnt: usize) {
    guard((), || {
        if arr.is_null() {
            return;
        }
        // SAFETY: `arr` is `dump_array`'s boxed slice of `cnt` strings, each
        // from `CString::into_raw`, given back once.
        let arr = unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(arr, cnt)) };
        for &s in arr.iter() {
            if !s.is_null() {
                // SAFETY: as above.
                drop(unsafe { CString::from_raw(s.cast_mut()) });
            }
        }
    })
}

extern "C" {
    fn fputs(s: *const c_char, stream: *mut c_void) -> c_int;
}

/// Writes the known properties to `fp` (`rd_kafka_conf_properties_show`):
/// a short table of name, default and whether gregor acts on it, not
/// librdkafka's full table. Nothing for a NULL `fp`.
#[no_mangle]
pub extern "C" fn rd_kafka_conf_properties_show(fp: *mut c_void) {
    guard((), || {
        let mut text = String::from("Property | Default | In gregor\n");
        for p in Config::properties() {
            let status = match p.status {
                gregor::config::Status::Implemented => "yes",
                _ => "no effect",
            };
            text.push_str(&format!("{} | {} | {status}\n", p.name, p.default));
        }
        write_file(fp, &text);
    })
}

/// Makes `tconf` the conf's default topic conf, destroying the previous
/// one (`rd_kafka_conf_set_default_topic_conf`). Consumes `tconf`; NULL
/// clears it.
#[no_mangle]
pub extern "C" fn rd_kafka_conf_set_default_topic_conf(conf: *mut Conf, tconf: *mut TopicConf) {
    guard((), || {
        let new = take(tconf);
        match conf_mut(conf) {
            Some(c) => c.topic = new,
            None => drop(new),
        }
    })
}

/// The conf's default topic conf, or NULL (`rd_kafka_conf_get_default_topic_conf`).
/// Borrowed: valid until the conf is destroyed or the default replaced.
#[no_mangle]
pub extern "C" fn rd_kafka_conf_get_default_topic_conf(conf: *mut Conf) -> *mut TopicConf {
    guard(std::ptr::null_mut(), || {
        conf_mut(conf)
            .and_then(|c| c.topic.as_deref_mut())
            .map_or(std::ptr::null_mut(), |t| t as *mut TopicConf)
    })
}

/// Stores the opaque passed to every callback (`rd_kafka_conf_set_opaque`).
#[no_mangle]
pub extern "C" fn rd_kafka_conf_set_opaque(conf: *mut Conf, opaque: *mut c_void) {
    guard((), || {
        if let Some(c) = conf_mut(conf) {
            c.opaque = opaque;
        }
    })
}

/// Stores the `RD_KAFKA_EVENT_*` bitmask of events to enable
/// (`rd_kafka_conf_set_events`).
#[no_mangle]
pub extern "C" fn rd_kafka_conf_set_events(conf: *mut Conf, events: c_int) {
    guard((), || {
        if let Some(c) = conf_mut(conf) {
            c.events = events;
        }
    })
}

/// Stores `cb` in the conf's callback `field` (NULL clears it).
fn store<T>(conf: *mut Conf, field: fn(&mut Callbacks) -> &mut Option<T>, cb: Option<T>) {
    guard((), || {
        if let Some(c) = conf_mut(conf) {
            *field(&mut c.callbacks) = cb;
        }
    })
}

/// Stores the delivery report callback (`rd_kafka_conf_set_dr_msg_cb`).
#[no_mangle]
pub extern "C" fn rd_kafka_conf_set_dr_msg_cb(conf: *mut Conf, cb: Option<DrMsgCb>) {
    store(conf, |c| &mut c.dr_msg, cb);
}

/// Stores the old delivery report callback (`rd_kafka_conf_set_dr_cb`).
#[no_mangle]
pub extern "C" fn rd_kafka_conf_set_dr_cb(conf: *mut Conf, cb: Option<DrCb>) {
    store(conf, |c| &mut c.dr, cb);
}

/// Stores the error callback (`rd_kafka_conf_set_error_cb`).
#[no_mangle]
pub extern "C" fn rd_kafka_conf_set_error_cb(conf: *mut Conf, cb: Option<ErrorCb>) {
    store(conf, |c| &mut c.error, cb);
}

/// Stores the log callback (`rd_kafka_conf_set_log_cb`).
#[no_mangle]
pub extern "C" fn rd_kafka_conf_set_log_cb(conf: *mut Conf, cb: Option<LogCb>) {
    store(conf, |c| &mut c.log, cb);
}

/// Stores the statistics callback (`rd_kafka_conf_set_stats_cb`).
#[no_mangle]
pub extern "C" fn rd_kafka_conf_set_stats_cb(conf: *mut Conf, cb: Option<StatsCb>) {
    store(conf, |c| &mut c.stats, cb);
}

/// Stores the throttle callback (`rd_kafka_conf_set_throttle_cb`).
#[no_mangle]
pub extern "C" fn rd_kafka_conf_set_throttle_cb(conf: *mut Conf, cb: Option<ThrottleCb>) {
    store(conf, |c| &mut c.throttle, cb);
}

/// Stores the rebalance callback (`rd_kafka_conf_set_rebalance_cb`).
#[no_mangle]
pub extern "C" fn rd_kafka_conf_set_rebalance_cb(conf: *mut Conf, cb: Option<PartitionsCb>) {
    store(conf, |c| &mut c.rebalance, cb);
}

/// Stores the offset commit callback (`rd_kafka_conf_set_offset_commit_cb`).
#[no_mangle]
pub extern "C" fn rd_kafka_conf_set_offset_commit_cb(conf: *mut Conf, cb: Option<PartitionsCb>) {
    store(conf, |c| &mut c.offset_commit, cb);
}

/// Stores the consume callback (`rd_kafka_conf_set_consume_cb`).
#[no_mangle]
pub extern "C" fn rd_kafka_conf_set_consume_cb(conf: *mut Conf, cb: Option<ConsumeCb>) {
    store(conf, |c| &mut c.consume, cb);
}

/// Stores the background event callback (`rd_kafka_conf_set_background_event_cb`).
#[no_mangle]
pub extern "C" fn rd_kafka_conf_set_background_event_cb(
    conf: *mut Conf,
    cb: Option<BackgroundEventCb>,
) {
    store(conf, |c| &mut c.background_event, cb);
}

/// Stores the OAUTHBEARER token refresh callback
/// (`rd_kafka_conf_set_oauthbearer_token_refresh_cb`).
#[no_mangle]
pub extern "C" fn rd_kafka_conf_set_oauthbearer_token_refresh_cb(
    conf: *mut Conf,
    cb: Option<OauthbearerRefreshCb>,
) {
    store(conf, |c| &mut c.oauthbearer_token_refresh, cb);
}

/// Stores the socket callback (`rd_kafka_conf_set_socket_cb`); gregor's
/// sockets do not call it.
#[no_mangle]
pub extern "C" fn rd_kafka_conf_set_socket_cb(conf: *mut Conf, cb: Option<SocketCb>) {
    store(conf, |c| &mut c.socket, cb);
}

/// Stores the connect callback (`rd_kafka_conf_set_connect_cb`); gregor's
/// sockets do not call it.
#[no_mangle]
pub extern "C" fn rd_kafka_conf_set_connect_cb(conf: *mut Conf, cb: Option<ConnectCb>) {
    store(conf, |c| &mut c.connect, cb);
}

/// Stores the close callback (`rd_kafka_conf_set_closesocket_cb`); gregor's
/// sockets do not call it.
#[no_mangle]
pub extern "C" fn rd_kafka_conf_set_closesocket_cb(conf: *mut Conf, cb: Option<ClosesocketCb>) {
    store(conf, |c| &mut c.closesocket, cb);
}

/// Stores the file open callback (`rd_kafka_conf_set_open_cb`); gregor
/// does not call it.
#[no_mangle]
pub extern "C" fn rd_kafka_conf_set_open_cb(conf: *mut Conf, cb: Option<OpenCb>) {
    store(conf, |c| &mut c.open, cb);
}

/// Stores the address resolution callback (`rd_kafka_conf_set_resolve_cb`);
/// gregor's resolver does not call it.
#[no_mangle]
pub extern "C" fn rd_kafka_conf_set_resolve_cb(conf: *mut Conf, cb: Option<ResolveCb>) {
    store(conf, |c| &mut c.resolve, cb);
}

/// Stores the certificate verification callback
/// (`rd_kafka_conf_set_ssl_cert_verify_cb`): `RD_KAFKA_CONF_OK`, as
/// librdkafka built with TLS answers (INVALID for a NULL conf). gregor's
/// TLS does not call it.
#[no_mangle]
pub extern "C" fn rd_kafka_conf_set_ssl_cert_verify_cb(
    conf: *mut Conf,
    ssl_cert_verify_cb: Option<SslCertVerifyCb>,
) -> c_int {
    guard(CONF_INVALID, || match conf_mut(conf) {
        Some(c) => {
            c.callbacks.ssl_cert_verify = ssl_cert_verify_cb;
            CONF_OK
        }
        None => CONF_INVALID,
    })
}

/// Stores the OpenSSL engine's callback data
/// (`rd_kafka_conf_set_engine_callback_data`); gregor's TLS (rustls) has no
/// engines.
#[no_mangle]
pub extern "C" fn rd_kafka_conf_set_engine_callback_data(
    conf: *mut Conf,
    callback_data: *mut c_void,
) {
    guard((), || {
        if let Some(c) = conf_mut(conf) {
            c.engine_callback_data = callback_data;
        }
    })
}

/// Asks for SASL callbacks on a queue of their own
/// (`rd_kafka_conf_enable_sasl_queue`), for the client to read.
#[no_mangle]
pub extern "C" fn rd_kafka_conf_enable_sasl_queue(conf: *mut Conf, enable: c_int) {
    guard((), || {
        if let Some(c) = conf_mut(conf) {
            c.sasl_queue = enable != 0;
        }
    })
}

/// A new topic conf with every property at its default
/// (`rd_kafka_topic_conf_new`). Caller owns it: free with
/// `rd_kafka_topic_conf_destroy` or hand it over.
#[no_mangle]
pub extern "C" fn rd_kafka_topic_conf_new() -> *mut TopicConf {
    guard(std::ptr::null_mut(), || {
        Box::into_raw(Box::new(TopicConf::new()))
    })
}

/// Frees a topic conf (`rd_kafka_topic_conf_destroy`); NULL is ignored.
#[no_mangle]
pub extern "C" fn rd_kafka_topic_conf_destroy(topic_conf: *mut TopicConf) {
    guard((), || {
        drop(take(topic_conf));
    })
}

/// A copy of a topic conf (`rd_kafka_topic_conf_dup`); NULL for NULL.
/// Caller owns the copy.
#[no_mangle]
pub extern "C" fn rd_kafka_topic_conf_dup(conf: *const TopicConf) -> *mut TopicConf {
    guard(std::ptr::null_mut(), || {
        topic_mut(conf.cast_mut())
            .map_or(std::ptr::null_mut(), |t| Box::into_raw(Box::new(t.clone())))
    })
}

/// Sets a topic property (`rd_kafka_topic_conf_set`), as `rd_kafka_conf_set`;
/// a `topic.` prefix is ignored.
#[no_mangle]
pub extern "C" fn rd_kafka_topic_conf_set(
    conf: *mut TopicConf,
    name: *const c_char,
    value: *const c_char,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard(CONF_INVALID, || {
        let (Some(t), Some(name)) = (topic_mut(conf), raw::read_cstr(name)) else {
            raw::write_errstr(
                errstr,
                errstr_size,
                "rd_kafka_topic_conf_set: conf or name is NULL",
            );
            return CONF_INVALID;
        };
        let value = raw::read_cstr(value).unwrap_or_default();
        set_result(t.set(&name, &value), errstr, errstr_size)
    })
}

/// Reads a topic property (`rd_kafka_topic_conf_get`), as `rd_kafka_conf_get`.
#[no_mangle]
pub extern "C" fn rd_kafka_topic_conf_get(
    conf: *const TopicConf,
    name: *const c_char,
    dest: *mut c_char,
    dest_size: *mut usize,
) -> c_int {
    guard(CONF_INVALID, || {
        let (Some(t), Some(name)) = (topic_mut(conf.cast_mut()), raw::read_cstr(name)) else {
            return CONF_INVALID;
        };
        get_result(t.get(&name), dest, dest_size)
    })
}

/// Stores the topic's opaque (`rd_kafka_topic_conf_set_opaque`).
#[no_mangle]
pub extern "C" fn rd_kafka_topic_conf_set_opaque(conf: *mut TopicConf, rkt_opaque: *mut c_void) {
    guard((), || {
        if let Some(t) = topic_mut(conf) {
            t.opaque = rkt_opaque;
        }
    })
}

/// Stores the partitioner (`rd_kafka_topic_conf_set_partitioner_cb`).
#[no_mangle]
pub extern "C" fn rd_kafka_topic_conf_set_partitioner_cb(
    topic_conf: *mut TopicConf,
    partitioner: Option<PartitionerCb>,
) {
    guard((), || {
        if let Some(t) = topic_mut(topic_conf) {
            t.partitioner = partitioner;
        }
    })
}

/// Stores the message order comparator (`rd_kafka_topic_conf_set_msg_order_cmp`).
#[no_mangle]
pub extern "C" fn rd_kafka_topic_conf_set_msg_order_cmp(
    topic_conf: *mut TopicConf,
    msg_order_cmp: Option<MsgOrderCmp>,
) {
    guard((), || {
        if let Some(t) = topic_mut(topic_conf) {
            t.msg_order_cmp = msg_order_cmp;
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(c: *mut Conf, k: &str, v: &str) -> (c_int, String) {
        let (k, v) = (CString::new(k).unwrap(), CString::new(v).unwrap());
        let mut err = [0 as c_char; 128];
        let r = rd_kafka_conf_set(c, k.as_ptr(), v.as_ptr(), err.as_mut_ptr(), err.len());
        let text = raw::read_cstr(err.as_ptr()).unwrap().into_owned();
        (r, text)
    }

    fn get(c: *const Conf, k: &str) -> (c_int, Option<String>) {
        let k = CString::new(k).unwrap();
        let mut size = 0usize;
        let r = rd_kafka_conf_get(c, k.as_ptr(), std::ptr::null_mut(), &mut size);
        if r != CONF_OK {
            return (r, None);
        }
        let mut buf = vec![0 as c_char; size];
        assert_eq!(
            rd_kafka_conf_get(c, k.as_ptr(), buf.as_mut_ptr(), &mut size),
            CONF_OK
        );
        (r, Some(raw::read_cstr(buf.as_ptr()).unwrap().into_owned()))
    }

    #[test]
    fn set_answers_ok_unknown_invalid() {
        let c = rd_kafka_conf_new();
        assert_eq!(set(c, "client.id", "probe").0, CONF_OK);
        assert_eq!(
            set(c, "foo", "x"),
            (
                CONF_UNKNOWN,
                "No such configuration property: \"foo\"".into()
            )
        );
        assert_eq!(set(c, "socket.timeout.ms", "abc").0, CONF_INVALID);
        assert_eq!(set(c, "error_cb", "x").0, CONF_INVALID);
        assert_eq!(get(c, "client.id"), (CONF_OK, Some("probe".into())));
        assert_eq!(get(c, "nope").0, CONF_UNKNOWN);
        assert_eq!(get(c, "bootstrap.servers").0, CONF_UNKNOWN);
        // An empty string value puts the default back.
        assert_eq!(set(c, "group.id", "g").0, CONF_OK);
        assert_eq!(set(c, "group.id", "").0, CONF_OK);
        assert_eq!(get(c, "group.id").0, CONF_UNKNOWN);
        assert_eq!(set(c, "client.id", "").0, CONF_OK);
        assert_eq!(get(c, "client.id"), (CONF_OK, Some("gregor".into())));
        assert_eq!(set(c, "socket.timeout.ms", "").0, CONF_INVALID);
        rd_kafka_conf_destroy(c);
    }

    #[test]
    fn get_truncates_and_says_the_size() {
        let c = rd_kafka_conf_new();
        set(c, "client.id", "abcdef");
        let mut buf = [b'x' as c_char; 4];
        let mut size = buf.len();
        let r = rd_kafka_conf_get(c, c"client.id".as_ptr(), buf.as_mut_ptr(), &mut size);
        assert_eq!((r, size), (CONF_OK, 7));
        assert_eq!(raw::read_cstr(buf.as_ptr()).unwrap(), "abc");
        let r = rd_kafka_conf_get(
            c,
            c"client.id".as_ptr(),
            buf.as_mut_ptr(),
            std::ptr::null_mut(),
        );
        assert_eq!(r, CONF_INVALID);
        rd_kafka_conf_destroy(c);
    }

    #[test]
    fn topic_properties_go_to_the_default_topic_conf() {
        let c = rd_kafka_conf_new();
        assert!(rd_kafka_conf_get_default_topic_conf(c).is_null());
        assert_eq!(set(c, "acks", "all").0, CONF_OK);
        let t = rd_kafka_conf_get_default_topic_conf(c);
        assert!(!t.is_null());
        assert_eq!(get(c, "acks"), (CONF_OK, Some("-1".into())));
        // A global-only name is unknown to a topic conf.
        let mut size = 0usize;
        let r = rd_kafka_topic_conf_get(t, c"client.id".as_ptr(), std::ptr::null_mut(), &mut size);
        assert_eq!(r, CONF_UNKNOWN);
        let mut err = [0 as c_char; 64];
        let r = rd_kafka_topic_conf_set(
            t,
            c"topic.auto.offset.reset".as_ptr(),
            c"earliest".as_ptr(),
            err.as_mut_ptr(),
            err.len(),
        );
        assert_eq!(r, CONF_OK);
        let d = rd_kafka_conf_dup(c);
        assert_eq!(
            get(d, "auto.offset.reset"),
            (CONF_OK, Some("earliest".into()))
        );
        assert_ne!(rd_kafka_conf_get_default_topic_conf(d), t);
        rd_kafka_conf_destroy(d);
        rd_kafka_conf_destroy(c);
    }

    #[test]
    fn dump_pairs_and_dup_filter() {
        let c = rd_kafka_conf_new();
        set(c, "client.id", "x");
        set(c, "socket.timeout.ms", "1234");
        let mut cnt = 0usize;
        let arr = rd_kafka_conf_dump(c, &mut cnt);
        assert_eq!(cnt % 2, 0);
        // SAFETY: the dump holds `cnt` strings.
        let items: Vec<String> = (0..cnt)
            .map(|i| raw::read_cstr(unsafe { *arr.add(i) }).unwrap().into_owned())
            .collect();
        let pos = items.iter().position(|s| s == "socket.timeout.ms").unwrap();
        assert_eq!(items[pos + 1], "1234");
        assert!(!items.iter().any(|s| s == "acks"));
        rd_kafka_conf_dump_free(arr, cnt);

        let mut filter = [c"socket.".as_ptr()];
        let d = rd_kafka_conf_dup_filter(c, 1, filter.as_mut_ptr());
        assert_eq!(get(d, "client.id"), (CONF_OK, Some("x".into())));
        assert_eq!(get(d, "socket.timeout.ms").1.as_deref(), Some("60000"));
        rd_kafka_conf_destroy(d);
        rd_kafka_conf_destroy(c);
    }

    #[test]
    fn callbacks_and_opaque_are_stored() {
        unsafe extern "C" fn err_cb(_: *mut c_void, _: c_int, _: *const c_char, _: *mut c_void) {}
        let c = rd_kafka_conf_new();
        rd_kafka_conf_set_error_cb(c, Some(err_cb));
        rd_kafka_conf_set_opaque(c, 8 as *mut c_void);
        rd_kafka_conf_set_events(c, 0x40);
        let conf = conf_mut(c).unwrap();
        assert!(conf.callbacks.error.is_some());
        assert_eq!((conf.opaque as usize, conf.events), (8, 0x40));
        rd_kafka_conf_destroy(c);
    }

    /// Every property of librdkafka's CONFIGURATION.md (2.15's list, a
    /// superset of 2.12.1's names) is known where librdkafka knows it:
    /// never UNKNOWN on the global conf (topic-level names go to the
    /// default topic conf), a topic-level name known to a topic conf, a
    /// global-only one unknown to it.
    #[test]
    fn librdkafka_names_are_never_unknown() {
        let rows = include_str!("../../tests/fixtures/librdkafka-2.15-properties.txt");
        let rows: Vec<(&str, &str)> = rows
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .filter_map(|l| {
                let cols: Vec<&str> = l.split_whitespace().collect();
                Some((*cols.first()?, *cols.get(2)?))
            })
            .collect();
        assert!(rows.len() > 190);
        for &(name, section) in &rows {
            let c = rd_kafka_conf_new();
            let (r, text) = set(c, name, "x");
            assert_ne!(r, CONF_UNKNOWN, "{name}: {text}");
            rd_kafka_conf_destroy(c);
            let topic_level = rows.iter().any(|&(n, s)| n == name && s == "topic");
            let mut t = TopicConf::new();
            let r = t.set(name, "x").err().map_or(CONF_OK, |e| e.res);
            assert_eq!(
                r == CONF_UNKNOWN,
                !topic_level,
                "{name} ({section}) on a topic conf"
            );
        }
    }

    #[test]
    fn null_is_safe() {
        assert_eq!(set(std::ptr::null_mut(), "client.id", "x").0, CONF_INVALID);
        assert_eq!(get(std::ptr::null(), "client.id").0, CONF_INVALID);
        assert!(rd_kafka_conf_dup(std::ptr::null()).is_null());
        rd_kafka_conf_set_log_cb(std::ptr::null_mut(), None);
        rd_kafka_conf_destroy(std::ptr::null_mut());
        rd_kafka_topic_conf_destroy(std::ptr::null_mut());
        rd_kafka_conf_dump_free(std::ptr::null_mut(), 0);
        let mut cnt = 9usize;
        assert!(rd_kafka_conf_dump(std::ptr::null_mut(), &mut cnt).is_null());
        assert_eq!(cnt, 0);
    }
}
