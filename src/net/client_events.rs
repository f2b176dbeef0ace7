//! Client events, as librdkafka's `error_cb` and `throttle_cb` see them:
//! connection failures (`_TRANSPORT`, `_RESOLVE`, `_AUTHENTICATION`,
//! `_SSL`, …), `_ALL_BROKERS_DOWN` when every known broker is down, `_FATAL`
//! when the idempotent or transactional producer stops for good, and the
//! throttle time brokers report in their responses (KIP-219).
//!
//! Every connection of a client reports into the client's one [`Events`]
//! (it travels in [`super::NetConfig`]); the events wait in a bounded queue
//! until the application's thread serves them inside `poll` / `flush` (the
//! producer) or `poll` (the consumer), as librdkafka serves its
//! `rk_rep` queue. Nothing runs a callback on a gregor thread.
//!
//! Repeats are coalesced: a broker reports the same error code once until
//! it connects again (librdkafka suppresses identical consecutive broker
//! errors the same way), `_ALL_BROKERS_DOWN` is raised once per transition
//! into "every known broker down" (as librdkafka: a broker counts as down
//! from its first failure until a session comes up), and the queue holds at
//! most [`MAX_QUEUED`] events (the oldest non-fatal ones give way, and the
//! next event served says how many were dropped).

use crate::sync::MutexExt;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use crate::error::{local, Error};

/// Events kept for the application at most; beyond, the oldest go.
///
/// cbindgen:ignore
pub const MAX_QUEUED: usize = 1000;

/// A broker's throttle report (librdkafka's `throttle_cb` arguments).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThrottleEvent {
    /// The broker's name, as in errors ("host:port/id", "host:port/bootstrap").
    pub broker_name: String,
    /// The broker's node id (-1 for a bootstrap connection).
    pub broker_id: i32,
    /// How long the broker throttled the client, in milliseconds.
    pub throttle_time_ms: i32,
}

/// One event for the application.
#[derive(Debug, Clone)]
pub enum ClientEvent {
    /// A client-level error (`error_cb`); its code says which.
    Error(Error),
    /// A throttle report (`throttle_cb`).
    Throttle(ThrottleEvent),
}

/// The error callback: runs inside `poll` / `flush` on the calling thread.
pub type ErrorCallback = Box<dyn FnMut(&Error) + Send>;

/// The throttle callback: runs inside `poll` / `flush` on the calling thread.
pub type ThrottleCallback = Box<dyn FnMut(&ThrottleEvent) + Send>;

/// What wakes the client's polling threads when an event arrives.
pub type Waker = Arc<dyn Fn() + Send + Sync>;

/// Work that runs inside `poll` on the application's thread when asked for
/// (the OAUTHBEARER token refresh callback: librdkafka serves its
/// OAUTHBEARER_TOKEN_REFRESH op from the main queue in `rd_kafka_poll`).
/// Returns how many callbacks it ran.
pub type PollTask = Arc<dyn Fn() -> usize + Send + Sync>;

/// One broker address as far as "all brokers down" goes.
#[derive(Default)]
struct BrokerHealth {
    /// Connections to it that exist.
    conns: usize,
    /// Sessions to it that are up.
    up: usize,
    /// Down since its last failure (no session up since).
    down: bool,
    /// The code last reported for it (reset when a session comes up).
    last_code: Option<i32>,
}

#[derive(Default)]
struct State {
    queue: VecDeque<ClientEvent>,
    dropped: u64,
    brokers: HashMap<String, BrokerHealth>,
    /// Set while every known broker is down and `_ALL_BROKERS_DOWN` was raised.
    all_down: bool,
    waker: Option<Waker>,
    /// The poll task and whether it was asked for.
    task: Option<PollTask>,
    task_due: bool,
}

/// A client's event queue and broker health; shared by its connections.
#[derive(Default)]
pub struct Events {
    state: Mutex<State>,
    /// Set (under `state`'s lock) when an event is queued or the poll task
    /// is asked for; cleared by [`Events::serve`] under the same lock. A
    /// `poll` that finds it clear takes no lock (a send loop polls once per
    /// message).
    ready: AtomicBool,
    error_cb: Mutex<Option<ErrorCallback>>,
    throttle_cb: Mutex<Option<ThrottleCallback>>,
}

impl std::fmt::Debug for Events {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let st = self.state.locked();
        f.debug_struct("Events")
            .field("queued", &st.queue.len())
            .field("brokers", &st.brokers.len())
            .finish_non_exhaustive()
    }
}

/// Notifies `cv` while holding `m` when it can, so a thread that checked
/// its condition under `m` and is about to wait cannot miss the wake-up.
/// If `m` stays busy (its holder may be this very thread), notifies
/// without it after a few hundred tries rather than risk a deadlock.
pub fn notify_locked<T>(m: &Mutex<T>, cv: &Condvar) {
    for _ in 0..200 {
        match m.try_lock() {
            Ok(g) => {
                cv.notify_all();
                drop(g);
                return;
            }
            Err(std::sync::TryLockError::Poisoned(g)) => {
                cv.notify_all();
                drop(g);
                return;
            }
            Err(std::sync::TryLockError::WouldBlock) => std::thread::yield_now(),
        }
    }
    cv.notify_all();
}

/// The code an event carries for a failed connection: SASL refusals
/// (SASL_AUTHENTICATION_FAILED 58, UNSUPPORTED_SASL_MECHANISM 33,
/// ILLEGAL_SASL_STATE 34) are `_AUTHENTICATION`, as librdkafka reports them.
pub fn event_code(e: &Error) -> i32 {
    match e.code() {
        33 | 34 | 58 => local::AUTHENTICATION,
        c => c,
    }
}

/// An event's text without its code's name in front (the code travels
/// beside it), as librdkafka's `error_cb` `reason`.
pub fn event_reason(e: &Error) -> String {
    match e {
        Error::Local { message, .. } => message.clone(),
        e => e.to_string(),
    }
}

impl Events {
    /// A new, empty queue.
    pub fn new() -> Arc<Events> {
        Arc::new(Events::default())
    }

    /// Sets what wakes the client's pollers (called once by the client).
    pub fn set_waker(&self, w: Option<Waker>) {
        self.state.locked().waker = w;
    }

    /// Sets (or with `None` clears) the error callback. Not from inside
    /// a callback of the same client (it holds the callback's lock).
    pub fn set_error_callback(&self, cb: Option<ErrorCallback>) {
        *self.error_cb.locked() = cb;
    }

    /// Sets (or with `None` clears) the throttle callback. Not from inside
    /// a callback of the same client.
    pub fn set_throttle_callback(&self, cb: Option<ThrottleCallback>) {
        *self.throttle_cb.locked() = cb;
    }

    /// True if events wait to be served (or the poll task was asked for).
    pub fn pending(&self) -> bool {
        if !self.ready.load(Ordering::Acquire) {
            return false;
        }
        let st = self.state.locked();
        !st.queue.is_empty() || (st.task_due && st.task.is_some())
    }

    /// Sets the task [`Events::serve`] runs when [`Events::request_task`]
    /// asked for it.
    pub fn set_poll_task(&self, t: Option<PollTask>) {
        self.state.locked().task = t;
    }

    /// Asks for the poll task to run inside the next `poll`, and wakes the
    /// pollers.
    pub fn request_task(&self) {
        let waker = {
            let mut st = self.state.locked();
            st.task_due = true;
            self.ready.store(true, Ordering::Release);
            st.waker.clone()
        };
        if let Some(w) = waker {
            w();
        }
    }

    /// Queues an event and wakes the pollers.
    pub fn raise(&self, ev: ClientEvent) {
        let waker = {
            let mut st = self.state.locked();
            push(&self.ready, &mut st, ev);
            st.waker.clone()
        };
        if let Some(w) = waker {
            w();
        }
    }

    /// Queues an event without waking anyone: for callers that hold the
    /// poller's lock and notify it themselves.
    pub fn raise_quiet(&self, ev: ClientEvent) {
        push(&self.ready, &mut self.state.locked(), ev);
    }

    /// Queues a `_FATAL` error event for `cause` (quietly, as
    /// [`Events::raise_quiet`]): librdkafka's `error_cb` gets `_FATAL`, and
    /// the underlying error is what the client's `fatal_error` returns.
    pub fn raise_fatal(&self, cause: &Error) {
        self.raise_quiet(ClientEvent::Error(Error::local(
            local::FATAL,
            format!("fatal error: {cause}"),
        )));
    }

    /// A throttle report from a response (`throttle_time_ms` > 0 only).
    pub fn throttled(&self, broker_name: &str, throttle_time_ms: i32) {
        if throttle_time_ms <= 0 {
            return;
        }
        let broker_id = broker_name
            .rsplit_once('/')
            .and_then(|(_, id)| id.parse().ok())
            .unwrap_or(-1);
        self.raise(ClientEvent::Throttle(ThrottleEvent {
            broker_name: broker_name.to_string(),
            broker_id,
            throttle_time_ms,
        }));
    }

    /// A connection to `addr` exists (it counts as a known broker).
    pub fn conn_created(&self, addr: &str) {
        self.state
            .locked()
            .brokers
            .entry(addr.to_string())
            .or_default()
            .conns += 1;
    }

    /// A connection to `addr` is gone (with `up` sessions still counted).
    pub fn conn_dropped(&self, addr: &str, up: bool) {
        let mut st = self.state.locked();
        if let Some(b) = st.brokers.get_mut(addr) {
            b.conns = b.conns.saturating_sub(1);
            if up {
                b.up = b.up.saturating_sub(1);
            }
            if b.conns == 0 {
                st.brokers.remove(addr);
            }
        }
    }

    /// A session to `addr` came up: the broker is up, its errors may be
    /// reported again.
    pub fn conn_up(&self, addr: &str) {
        let mut st = self.state.locked();
        let b = st.brokers.entry(addr.to_string()).or_default();
        b.up += 1;
        b.down = false;
        b.last_code = None;
        st.all_down = false;
    }

    /// A connection to `addr` failed: `was_up` if a session ended, else a
    /// connect (or its handshake) failed. Raises the error (unless the
    /// broker reported the same code last) and `_ALL_BROKERS_DOWN` when
    /// this leaves every known broker down.
    pub fn conn_failed(&self, addr: &str, was_up: bool, err: &Error) {
        let code = event_code(err);
        let waker = {
            let mut st = self.state.locked();
            let b = st.brokers.entry(addr.to_string()).or_default();
            if was_up {
                b.up = b.up.saturating_sub(1);
            }
            let report = b.last_code != Some(code);
            b.last_code = Some(code);
            if b.up == 0 {
                b.down = true;
            }
            let mut raised = false;
            if report {
                let e = if code == err.code() {
                    err.clone()
                } else {
                    Error::local(code, err.to_string())
                };
                push(&self.ready, &mut st, ClientEvent::Error(e));
                raised = true;
            }
            let total = st.brokers.len();
            let down = st.brokers.values().filter(|b| b.down).count();
            if total > 0 && down == total && !st.all_down {
                st.all_down = true;
                push(
                    &self.ready,
                    &mut st,
                    ClientEvent::Error(Error::local(
                        local::ALL_BROKERS_DOWN,
                        format!("{down}/{total} brokers are down"),
                    )),
                );
                raised = true;
            }
            if raised {
                st.waker.clone()
            } else {
                None
            }
        };
        if let Some(w) = waker {
            w();
        }
    }

    /// Takes every queued event.
    pub fn take(&self) -> VecDeque<ClientEvent> {
        let mut st = self.state.locked();
        let mut q = std::mem::take(&mut st.queue);
        if st.dropped > 0 {
            q.push_front(ClientEvent::Error(Error::local(
                local::FAIL,
                format!(
                    "{} client event(s) dropped: more than {MAX_QUEUED} waited to be served",
                    st.dropped
                ),
            )));
            st.dropped = 0;
        }
        q
    }

    /// Takes the first queued error (the count of dropped events first, as
    /// [`Events::take`] reports it), leaving the other events queued: for
    /// a poll that hands errors to its caller rather than to the error
    /// callback.
    pub fn take_error(&self) -> Option<Error> {
        let mut st = self.state.locked();
        if st.dropped > 0 {
            let n = std::mem::take(&mut st.dropped);
            return Some(Error::local(
                local::FAIL,
                format!("{n} client event(s) dropped: more than {MAX_QUEUED} waited to be served"),
            ));
        }
        let at = st
            .queue
            .iter()
            .position(|ev| matches!(ev, ClientEvent::Error(_)))?;
        match st.queue.remove(at) {
            Some(ClientEvent::Error(e)) => Some(e),
            _ => None,
        }
    }

    /// Serves the queued events to the callbacks, on this thread; returns
    /// how many were served. Events without a callback are dropped (as
    /// librdkafka, which logs an error without `error_cb`).
    pub fn serve(&self) -> usize {
        if !self.ready.load(Ordering::Acquire) {
            return 0;
        }
        let task = {
            let mut st = self.state.locked();
            // what is queued from here on sets it again; `take` below takes
            // all that was queued before
            self.ready.store(false, Ordering::Release);
            let due = std::mem::take(&mut st.task_due);
            st.task.clone().filter(|_| due)
        };
        let ran = task.map_or(0, |t| t());
        let q = self.take();
        let n = q.len() + ran;
        for ev in q {
            match ev {
                ClientEvent::Error(e) => {
                    if let Some(cb) = self.error_cb.locked().as_mut() {
                        cb(&e);
                    }
                    // log: without an error callback, librdkafka logs
                    // "ERROR" at LOG_ERR: "<client>: <reason>"
                }
                ClientEvent::Throttle(t) => {
                    if let Some(cb) = self.throttle_cb.locked().as_mut() {
                        cb(&t);
                    }
                }
            }
        }
        n
    }
}

/// Appends an event; when the queue is full, the oldest non-fatal event
/// gives way (counted, and reported when the queue is next taken).
fn push(ready: &AtomicBool, st: &mut State, ev: ClientEvent) {
    ready.store(true, Ordering::Release);
    if st.queue.len() >= MAX_QUEUED {
        let victim = st
            .queue
            .iter()
            .position(|e| !matches!(e, ClientEvent::Error(e) if e.code() == local::FATAL));
        match victim {
            Some(i) => {
                st.queue.remove(i);
            }
            None => {
                st.dropped += 1;
                return;
            }
        }
        st.dropped += 1;
    }
    st.queue.push_back(ev);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(ev: &Events) -> Vec<i32> {
        ev.take()
            .into_iter()
            .filter_map(|e| match e {
                ClientEvent::Error(e) => Some(e.code()),
                ClientEvent::Throttle(_) => None,
            })
            .collect()
    }

    /// `take_error` takes the errors one by one, in order, and leaves the
    /// throttle reports for `serve`.
    #[test]
    fn take_error_leaves_other_events() {
        let ev = Events::new();
        ev.throttled("a:1/1", 20);
        ev.raise(ClientEvent::Error(Error::transport("one")));
        ev.raise(ClientEvent::Error(Error::timed_out("two")));
        assert_eq!(ev.take_error().map(|e| e.code()), Some(local::TRANSPORT));
        assert_eq!(ev.take_error().map(|e| e.code()), Some(local::TIMED_OUT));
        assert!(ev.take_error().is_none());
        assert!(ev.pending());
        assert!(matches!(
            ev.take().into_iter().collect::<Vec<_>>().as_slice(),
            [ClientEvent::Throttle(_)]
        ));
    }

    #[test]
    fn all_brokers_down_once_per_transition() {
        let ev = Events::new();
        ev.conn_created("a:1");
        ev.conn_created("b:2");
        let refused = Error::transport("refused");
        ev.conn_failed("a:1", false, &refused);
        assert_eq!(codes(&ev), vec![local::TRANSPORT]);
        ev.conn_failed("b:2", false, &refused);
        assert_eq!(codes(&ev), vec![local::TRANSPORT, local::ALL_BROKERS_DOWN]);
        // repeats are coalesced
        ev.conn_failed("a:1", false, &refused);
        ev.conn_failed("b:2", false, &refused);
        assert!(codes(&ev).is_empty());
        // one comes up, then goes down again: raised again
        ev.conn_up("a:1");
        ev.conn_failed("a:1", true, &refused);
        assert_eq!(codes(&ev), vec![local::TRANSPORT, local::ALL_BROKERS_DOWN]);
    }

    #[test]
    fn sasl_refusal_is_authentication_and_queue_is_bounded() {
        let ev = Events::new();
        ev.conn_created("a:1");
        ev.conn_failed(
            "a:1",
            false,
            &Error::kafka(crate::protocol::KafkaCode(58), "SaslAuthenticate"),
        );
        assert_eq!(
            codes(&ev),
            vec![local::AUTHENTICATION, local::ALL_BROKERS_DOWN]
        );
        for i in 0..(MAX_QUEUED + 10) {
            ev.throttled("a:1/7", i as i32 + 1);
        }
        ev.raise_fatal(&Error::transport("x"));
        let q = ev.take();
        assert_eq!(q.len(), MAX_QUEUED + 1);
        assert!(matches!(&q[0], ClientEvent::Error(e) if e.code() == local::FAIL));
        assert!(
            matches!(q.back(), Some(ClientEvent::Error(e)) if e.code() == local::FATAL),
            "{q:?}"
        );
        assert!(matches!(&q[1], ClientEvent::Throttle(t) if t.broker_id == 7));
    }
}
