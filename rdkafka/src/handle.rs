//! The client handle, `rd_kafka_t` of rdkafka.h: `rd_kafka_new`,
//! `_destroy`, `_destroy_flags`, `_name`, `_type`, `_opaque`, `_conf`,
//! `_poll`, `_outq_len`, `_flush`, `_purge`, `_yield`, `_fatal_error`,
//! `_set_log_level`, `_set_log_queue`.
//!
//! A producer handle is a gregor [`Producer`]; a consumer handle a gregor
//! [`Consumer`] (the consumer's own calls are another module's). As
//! librdkafka's `rd_kafka_new`: the conf passes to the handle only when the
//! call succeeds (NULL: the defaults), the handle's name is
//! `<client.id>#<type>-<n>` with `n` counting the process's handles from 1,
//! and `rd_kafka_conf` gives the handle's own conf for reading.
//!
//! Log lines go to the conf's `log_cb` (with the handle, or NULL while
//! it is being created or destroyed) or to stderr in librdkafka's format,
//! under the handle's name, below the level `rd_kafka_set_log_level` sets.
//! With `log.queue` they wait instead, as `RD_KAFKA_EVENT_LOG` events,
//! until `rd_kafka_set_log_queue` forwards them to a queue (the main queue
//! for NULL), where a poll serves them on the application's thread
//! (rdkafka.h: "the log_cb will be called spontaneously from librdkafka's
//! internal threads unless logs have been forwarded to a poll queue").
//!
//! Callbacks of the conf: `dr_msg_cb` / `dr_cb` and `error_cb` are served
//! from `rd_kafka_poll` and `rd_kafka_flush` on the calling thread (see
//! [`crate::producer`]), after the main queue's events that have
//! callbacks. `rd_kafka_poll` on a consumer serves only those, and returns
//! at once.
//!
//! `rd_kafka_destroy` does not wait for outstanding messages, as
//! librdkafka's (rdkafka.h asks the application to flush first); no
//! callback runs during or after it. For a consumer it closes the consumer
//! first unless `RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE` is given; with it the
//! consumer still leaves its group, without the rebalance or commit
//! callbacks.

#![allow(unsafe_code)] // `#[no_mangle]`

use std::ffi::{c_char, c_int, c_void, CString};
use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use gregor::consumer::Consumer;
use gregor::error::Error;
use gregor::log::LogCallback;
use gregor::producer::Producer;

use crate::conf::{Conf, LogCb};
use crate::errors::set_last_error;
use crate::event::Event;
use crate::guard::guard;
use crate::queue::{Fifo, Queue};
use crate::raw;
use crate::topic::Topics;

/// `RD_KAFKA_PRODUCER`.
pub const PRODUCER: c_int = 0;
/// `RD_KAFKA_CONSUMER`.
pub const CONSUMER: c_int = 1;
/// `RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE`.
pub const DESTROY_F_NO_CONSUMER_CLOSE: c_int = 0x8;
/// `RD_KAFKA_RESP_ERR__INVALID_ARG`.
const RESP_ERR__INVALID_ARG: c_int = -186;
/// `RD_KAFKA_RESP_ERR__NOT_IMPLEMENTED`.
const RESP_ERR__NOT_IMPLEMENTED: c_int = -170;
/// `RD_KAFKA_RESP_ERR__NOT_CONFIGURED`.
const RESP_ERR__NOT_CONFIGURED: c_int = -145;

/// The process's handle counter, shared by producers and consumers as
/// librdkafka's.
static HANDLES: AtomicI32 = AtomicI32::new(0);

/// What a handle's client is.
pub(crate) enum Client {
    /// `RD_KAFKA_PRODUCER`.
    Producer(Producer),
    /// `RD_KAFKA_CONSUMER`.
    Consumer(Consumer),
}

/// `rd_kafka_t`. The client is the first field, so it is dropped (its
/// threads stopped) before everything else.
pub struct Handle {
    client: Client,
    conf: Box<Conf>,
    name: CString,
    topics: Arc<Topics>,
    log: Arc<LogState>,
    /// The controller of the last metadata answer, -1 before one.
    controller: AtomicI32,
    /// What the consumer's calls keep beyond gregor's consumer.
    consumer_state: crate::consumer::State,
    /// Queues and admin requests; dropped last (joins the requests).
    admin: crate::admin::HandleAdmin,
    /// `rd_kafka_handle_mock_cluster`'s object, made on first call.
    pub(crate) mock: std::sync::OnceLock<Box<crate::mock::MockCluster>>,
    /// Set once the producer's event trigger wakes the main queue's polls.
    main_watched: std::sync::Once,
    /// Whether a poll of the main queue asked the cluster's metadata
    /// ([`crate::queue::poll_main`]).
    bootstrapped: std::sync::atomic::AtomicBool,
}

impl Handle {
    /// The producer, if this is a producer handle.
    pub(crate) fn producer(&self) -> Option<&Producer> {
        match &self.client {
            Client::Producer(p) => Some(p),
            Client::Consumer(_) => None,
        }
    }

    /// The mock cluster of the client's `test.mock.num.brokers`, if any.
    pub(crate) fn mock_cluster(&self) -> Option<&gregor::mock::Cluster> {
        match &self.client {
            Client::Producer(p) => p.mock_cluster(),
            Client::Consumer(c) => c.mock_cluster(),
        }
    }

    /// The client.
    pub(crate) fn client(&self) -> &Client {
        &self.client
    }

    /// The handle's topic handles.
    pub(crate) fn topics(&self) -> &Arc<Topics> {
        &self.topics
    }

    /// The handle's conf.
    pub(crate) fn conf(&self) -> &Conf {
        &self.conf
    }

    /// What the consumer's calls keep ([`crate::consumer`]).
    pub(crate) fn consumer_state(&self) -> &crate::consumer::State {
        &self.consumer_state
    }

    /// The controller id of the last metadata answer (-1: none yet).
    pub(crate) fn controller(&self) -> &AtomicI32 {
        &self.controller
    }

    /// The handle's admin state (main queue, admin client, requests).
    pub(crate) fn admin(&self) -> &crate::admin::HandleAdmin {
        &self.admin
    }

    /// A function into the handle's log, for the other gregor clients the
    /// handle makes.
    pub(crate) fn log_sink(&self) -> impl Fn(i32, &str, &str, &str) + Send + Sync + 'static {
        let state = Arc::clone(&self.log);
        move |level, fac, name, buf| state.line(level, fac, name, buf)
    }

    /// The handle's name (`rd_kafka_name`).
    pub(crate) fn name(&self) -> std::borrow::Cow<'_, str> {
        self.name.to_string_lossy()
    }

    /// Makes the producer's event trigger wake polls of the main queue
    /// ([`crate::queue::poll_main`]) when it has something to serve; from
    /// the first such poll on, for the handle's life.
    pub(crate) fn watch_main(&self) {
        let Some(p) = self.producer() else {
            return;
        };
        self.main_watched.call_once(|| {
            let fifo = Arc::downgrade(self.admin.main_queue());
            p.set_event_trigger(Some(Arc::new(move || {
                if let Some(f) = fifo.upgrade() {
                    f.wake();
                }
            })));
        });
    }

    /// True the first time only: whether this call is the one to connect
    /// to the cluster ([`crate::queue::poll_main`]).
    pub(crate) fn first_bootstrap(&self) -> bool {
        !self.bootstrapped.swap(true, Ordering::AcqRel)
    }

    fn kind(&self) -> c_int {
        match self.client {
            Client::Producer(_) => PRODUCER,
            Client::Consumer(_) => CONSUMER,
        }
    }
}

/// What the client's log lines go through: the level
/// `rd_kafka_set_log_level` sets, then with `log.queue` the log queue,
/// else the conf's `log_cb` or stderr in librdkafka's format, under the
/// handle's name.
#[derive(Debug)]
pub(crate) struct LogState {
    /// The handle's address once it is boxed; 0 before, and again from the
    /// start of `rd_kafka_destroy` (the callback then gets NULL).
    rk: AtomicUsize,
    level: AtomicI32,
    name: Mutex<String>,
    cb: Option<LogCb>,
    /// With `log.queue`: where the lines go, as `RD_KAFKA_EVENT_LOG` events.
    queue: Option<Mutex<LogQueue>>,
}

/// librdkafka's log queue (`log.queue`): lines wait in it, as log events,
/// until `rd_kafka_set_log_queue` forwards it to a queue the application
/// polls (the main queue for NULL); from then on they go there directly.
/// Until then at most [`gregor::log::QUEUE_MAX`] wait; later ones are
/// counted and reported in a line of their own when forwarded.
#[derive(Debug, Default)]
struct LogQueue {
    held: std::collections::VecDeque<Event>,
    dropped: usize,
    to: Option<Arc<Fifo>>,
}

impl LogState {
    /// Forwards the log queue to `to`: the lines held go there, and the
    /// lines to come. False without `log.queue`.
    fn forward(&self, to: Arc<Fifo>) -> bool {
        let Some(q) = &self.queue else {
            return false;
        };
        let mut q = q.lock().unwrap_or_else(PoisonError::into_inner);
        for ev in q.held.drain(..) {
            to.push(ev);
        }
        let dropped = std::mem::take(&mut q.dropped);
        if dropped > 0 {
            let text = format!(
                "{dropped} log line(s) dropped: more than {} waited for rd_kafka_set_log_queue",
                gregor::log::QUEUE_MAX
            );
            to.push(Event::log(4, "LOGQ", &text));
        }
        q.to = Some(to);
        true
    }

    fn line(&self, level: i32, fac: &str, gregor_name: &str, buf: &str) {
        if level > self.level.load(Ordering::Relaxed) {
            return;
        }
        if let Some(q) = &self.queue {
            let mut q = q.lock().unwrap_or_else(PoisonError::into_inner);
            let ev = Event::log(level, fac, buf);
            match &q.to {
                Some(fifo) => fifo.push(ev),
                None if q.held.len() < gregor::log::QUEUE_MAX => q.held.push_back(ev),
                None => q.dropped += 1,
            }
            return;
        }
        let name = self.name.lock().unwrap_or_else(PoisonError::into_inner);
        let name = if name.is_empty() {
            gregor_name
        } else {
            name.as_str()
        };
        match self.cb {
            Some(cb) => {
                let fac = raw::c_string(fac);
                let buf = raw::c_string(buf);
                raw::call_log(cb, self.rk.load(Ordering::Acquire), level, &fac, &buf);
            }
            None => gregor::log::print_stderr(level, fac, name, buf),
        }
    }
}

/// librdkafka's timeout rule: negative waits "forever" (a finite 136 years,
/// so deadlines never overflow), 0 does not wait.
pub(crate) fn timeout(timeout_ms: c_int) -> Duration {
    u64::try_from(timeout_ms).map_or(Duration::from_secs(u64::from(u32::MAX)), |ms| {
        Duration::from_millis(ms)
    })
}

/// The gregor client of `kind` for `conf`, logging through `log`.
fn client(kind: c_int, conf: &Conf, log: &Arc<LogState>) -> Result<Client, Error> {
    let mut cfg = conf.client_config()?;
    let state = Arc::clone(log);
    cfg.set_log_callback(Some(LogCallback::new(move |level, fac, name, buf| {
        state.line(level, fac, name, buf);
    })));
    match kind {
        PRODUCER => Producer::new(&cfg).map(Client::Producer),
        CONSUMER => Consumer::new(&cfg).map(Client::Consumer),
        _ => Err(Error::invalid_arg(format!("invalid client type {kind}"))),
    }
}

/// A new producer (`RD_KAFKA_PRODUCER`) or consumer (`RD_KAFKA_CONSUMER`)
/// handle (`rd_kafka_new`) with `conf`'s configuration, which it owns from
/// then on (NULL: the defaults). NULL on failure, with the reason in
/// `errstr`, and the caller still owns `conf`.
#[no_mangle]
pub extern "C" fn rd_kafka_new(
    kind: c_int,
    conf: *mut Conf,
    errstr: *mut c_char,
    errstr_size: usize,
) -> *mut Handle {
    guard(std::ptr::null_mut(), || {
        let defaults = Conf::new();
        let c = raw::object(conf).unwrap_or(&defaults);
        let log = Arc::new(LogState {
            rk: AtomicUsize::new(0),
            level: AtomicI32::new(7),
            name: Mutex::new(String::new()),
            cb: c.callbacks.log,
            queue: c.log_queue().then(Mutex::default),
        });
        let made = client(kind, c, &log);
        let client = match made {
            Ok(c) => c,
            Err(e) => {
                raw::write_errstr(errstr, errstr_size, &e.to_string());
                set_last_error(e.code());
                raw::set_errno(22); // EINVAL, as librdkafka's configuration failures
                return std::ptr::null_mut();
            }
        };
        let conf = raw::take_box(conf).unwrap_or_else(|| Box::new(Conf::new()));
        let n = HANDLES.fetch_add(1, Ordering::Relaxed) + 1;
        let kind_name = if kind == PRODUCER {
            "producer"
        } else {
            "consumer"
        };
        let client_id = conf.props.get("client.id").unwrap_or_default();
        let name = format!("{client_id}#{kind_name}-{n}").replace('\0', " ");
        let default_opaque = conf.topic.as_ref().map_or(0, |t| t.opaque as usize);
        name.clone_into(&mut log.name.lock().unwrap_or_else(PoisonError::into_inner));
        let handle = Box::new(Handle {
            client,
            conf,
            name: CString::new(name).unwrap_or_default(),
            topics: Arc::new(Topics::default()),
            log,
            controller: AtomicI32::new(-1),
            consumer_state: crate::consumer::State::default(),
            admin: crate::admin::HandleAdmin::new(),
            mock: std::sync::OnceLock::new(),
            main_watched: std::sync::Once::new(),
            bootstrapped: std::sync::atomic::AtomicBool::new(false),
        });
        // the box's address is the `rd_kafka_t *` the callbacks pass on
        let rk = &*handle as *const Handle as usize;
        handle.topics.bind(rk, default_opaque);
        handle.log.rk.store(rk, Ordering::Release);
        crate::producer::install_callbacks(&handle, rk);
        crate::consumer::install_callbacks(&handle, rk);
        crate::sasl::install_callbacks(&handle, rk);
        Box::into_raw(handle)
    })
}

/// Destroys a handle (`rd_kafka_destroy`); see the module's documentation.
#[no_mangle]
pub extern "C" fn rd_kafka_destroy(rk: *mut Handle) {
    rd_kafka_destroy_flags(rk, 0);
}

/// Destroys a handle with `RD_KAFKA_DESTROY_F_*` flags
/// (`rd_kafka_destroy_flags`).
#[no_mangle]
pub extern "C" fn rd_kafka_destroy_flags(rk: *mut Handle, flags: c_int) {
    guard((), || {
        let Some(handle) = raw::take_box(rk) else {
            return;
        };
        // lines logged while the client stops no longer name the handle
        handle.log.rk.store(0, Ordering::Release);
        handle.admin.close();
        match &handle.client {
            Client::Producer(_) => crate::producer::detach_callbacks(&handle),
            Client::Consumer(c) => {
                crate::producer::detach_callbacks(&handle);
                if flags & DESTROY_F_NO_CONSUMER_CLOSE == 0 {
                    c.close();
                } else {
                    // rdkafka.h: the group is still left internally, but
                    // no consumer callback (rebalance_cb, offset_commit_cb)
                    // runs from rd_kafka_destroy_flags: the library hands
                    // the partitions back by itself
                    c.clear_rebalance_callback();
                    c.clear_commit_callback();
                }
            }
        }
        drop(handle);
    })
}

/// The handle's name (`rd_kafka_name`): `<client.id>#producer-<n>`.
#[no_mangle]
pub extern "C" fn rd_kafka_name(rk: *const Handle) -> *const c_char {
    guard(c"".as_ptr(), || {
        raw::object(rk).map_or(c"".as_ptr(), |h| h.name.as_ptr())
    })
}

/// `RD_KAFKA_PRODUCER` or `RD_KAFKA_CONSUMER` (`rd_kafka_type`).
#[no_mangle]
pub extern "C" fn rd_kafka_type(rk: *const Handle) -> c_int {
    guard(PRODUCER, || raw::object(rk).map_or(PRODUCER, Handle::kind))
}

/// The conf's opaque (`rd_kafka_opaque`, `rd_kafka_conf_set_opaque`).
#[no_mangle]
pub extern "C" fn rd_kafka_opaque(rk: *const Handle) -> *mut c_void {
    guard(std::ptr::null_mut(), || {
        raw::object(rk).map_or(std::ptr::null_mut(), |h| h.conf.opaque)
    })
}

/// The handle's conf, to read (`rd_kafka_conf`); owned by the handle.
#[no_mangle]
pub extern "C" fn rd_kafka_conf(rk: *mut Handle) -> *const Conf {
    guard(std::ptr::null(), || {
        raw::object(rk).map_or(std::ptr::null(), |h| &*h.conf as *const Conf)
    })
}

/// Sets the highest syslog level of the lines logged from now on
/// (`rd_kafka_set_log_level`); it can lower the conf's `log_level`, not
/// raise it (gregor's logger drops the lines above that before).
#[no_mangle]
pub extern "C" fn rd_kafka_set_log_level(rk: *mut Handle, level: c_int) {
    guard((), || {
        if let Some(h) = raw::object(rk) {
            h.log.level.store(level, Ordering::Relaxed);
        }
    })
}

/// Serves delivery reports and client events to the conf's callbacks,
/// waiting up to `timeout_ms` for the first (`rd_kafka_poll`); how many.
/// The events of the main queue that have callbacks (log lines forwarded
/// there, reports and errors of enabled event kinds) are served first;
/// admin results stay for `rd_kafka_queue_poll`. A consumer serves only
/// those, and does not wait.
#[no_mangle]
pub extern "C" fn rd_kafka_poll(rk: *mut Handle, timeout_ms: c_int) -> c_int {
    guard(0, || {
        let Some(h) = raw::object(rk) else {
            return 0;
        };
        let mut n = crate::queue::serve_main(h, rk as usize);
        if let Client::Producer(p) = h.client() {
            let wait = if n > 0 {
                Duration::ZERO
            } else {
                timeout(timeout_ms)
            };
            n += p.poll(wait);
            n += crate::queue::serve_main(h, rk as usize);
        }
        c_int::try_from(n).unwrap_or(c_int::MAX)
    })
}

/// Messages and reports outstanding, and the events waiting in the main
/// queue (`rd_kafka_outq_len`, which counts librdkafka's reply queue too).
#[no_mangle]
pub extern "C" fn rd_kafka_outq_len(rk: *mut Handle) -> c_int {
    guard(0, || {
        raw::object(rk).map_or(0, |h| {
            let n = h.producer().map_or(0, Producer::len) + h.admin.main_queue().events_len();
            c_int::try_from(n).unwrap_or(c_int::MAX)
        })
    })
}

/// Forwards the log queue (`log.queue`) to `rkqu`, or to the main queue for
/// NULL (`rd_kafka_set_log_queue`): the lines logged so far and those to
/// come go there as `RD_KAFKA_EVENT_LOG` events, for the application to
/// serve on its thread. `_NOT_CONFIGURED` without `log.queue`.
#[no_mangle]
pub extern "C" fn rd_kafka_set_log_queue(rk: *mut Handle, rkqu: *mut Queue) -> c_int {
    guard(RESP_ERR__INVALID_ARG, || {
        let Some(h) = raw::object(rk) else {
            return RESP_ERR__INVALID_ARG;
        };
        let to = raw::object(rkqu).map_or_else(
            || Arc::clone(h.admin.main_queue()),
            |q| Arc::clone(q.fifo()),
        );
        if h.log.forward(to) {
            0
        } else {
            RESP_ERR__NOT_CONFIGURED
        }
    })
}

/// Waits up to `timeout_ms` for every outstanding message's report,
/// serving the callbacks (`rd_kafka_flush`); `_TIMED_OUT` if some remain.
#[no_mangle]
pub extern "C" fn rd_kafka_flush(rk: *mut Handle, timeout_ms: c_int) -> c_int {
    guard(RESP_ERR__INVALID_ARG, || {
        let Some(h) = raw::object(rk) else {
            return RESP_ERR__INVALID_ARG;
        };
        match h.client() {
            // librdkafka's flush polls the main queue at least once (its
            // callbacks are served: log lines of `log.queue`, errors).
            Client::Producer(p) => {
                crate::queue::serve_main(h, rk as usize);
                let r = p.flush(timeout(timeout_ms));
                crate::queue::serve_main(h, rk as usize);
                r.map_or_else(|e| e.code(), |()| 0)
            }
            Client::Consumer(_) => 0,
        }
    })
}

/// Purges queued and/or in-flight messages (`rd_kafka_purge`,
/// `RD_KAFKA_PURGE_F_*`); `_NOT_IMPLEMENTED` for a consumer, as librdkafka.
#[no_mangle]
pub extern "C" fn rd_kafka_purge(rk: *mut Handle, purge_flags: c_int) -> c_int {
    guard(RESP_ERR__INVALID_ARG, || {
        match raw::object(rk).map(Handle::client) {
            Some(Client::Producer(p)) => p.purge(purge_flags).map_or_else(|e| e.code(), |()| 0),
            Some(Client::Consumer(_)) => RESP_ERR__NOT_IMPLEMENTED,
            None => RESP_ERR__INVALID_ARG,
        }
    })
}

/// Makes a `rd_kafka_poll` or `rd_kafka_flush` blocked on another thread
/// return early (`rd_kafka_yield`).
#[no_mangle]
pub extern "C" fn rd_kafka_yield(rk: *mut Handle) {
    guard((), || match raw::object(rk).map(Handle::client) {
        Some(Client::Producer(p)) => p.yield_now(),
        Some(Client::Consumer(c)) => c.yield_now(),
        None => {}
    })
}

/// The error that stopped the client for good (`rd_kafka_fatal_error`),
/// its text in `errstr`; 0 while there is none.
#[no_mangle]
pub extern "C" fn rd_kafka_fatal_error(
    rk: *mut Handle,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard(0, || {
        let fatal = match raw::object(rk).map(Handle::client) {
            Some(Client::Producer(p)) => p.fatal_error(),
            Some(Client::Consumer(c)) => c.fatal_error(),
            None => None,
        };
        fatal.map_or(0, |e| {
            raw::write_errstr(errstr, errstr_size, &e.to_string());
            e.code()
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(log_queue: bool) -> LogState {
        LogState {
            rk: AtomicUsize::new(0),
            level: AtomicI32::new(7),
            name: Mutex::new("test#producer-1".into()),
            cb: None,
            queue: log_queue.then(Mutex::default),
        }
    }

    #[test]
    fn log_queue_holds_lines_until_forwarded() {
        let log = state(true);
        log.line(6, "INIT", "gregor", "first");
        log.line(7, "BROKER", "gregor", "second");
        let to = Arc::new(Fifo::default());
        assert_eq!(to.len(), 0);
        assert!(log.forward(Arc::clone(&to)));
        assert_eq!(to.len(), 2);
        log.line(4, "LATER", "gregor", "third");
        assert_eq!(to.len(), 3);
        // the level set by rd_kafka_set_log_level filters before the queue
        log.level.store(3, Ordering::Relaxed);
        log.line(4, "LOW", "gregor", "dropped");
        assert_eq!(to.len(), 3);
    }

    #[test]
    fn log_queue_bounds_what_it_holds() {
        let log = state(true);
        for _ in 0..gregor::log::QUEUE_MAX + 5 {
            log.line(7, "X", "gregor", "x");
        }
        let to = Arc::new(Fifo::default());
        assert!(log.forward(Arc::clone(&to)));
        // the lines held, then one line saying how many were dropped
        assert_eq!(to.len(), gregor::log::QUEUE_MAX + 1);
    }

    #[test]
    fn no_log_queue_no_forward() {
        assert!(!state(false).forward(Arc::new(Fifo::default())));
    }
}
