//! One broker connection with its own I/O thread.
//!
//! The thread owns the socket's read half and hands each response to the
//! request waiting for its correlation id; senders write whole frames through
//! the write half under a lock, so requests pipeline (up to
//! `max.in.flight.requests.per.connection`) without polling. When the
//! connection dies every waiter fails at once with an error naming the
//! broker; the next request reconnects, after `reconnect.backoff.ms`
//! doubling up to `reconnect.backoff.max.ms` while failures repeat.
//!
//! Setting a session up (TLS handshake, ApiVersions, SASL) is in
//! broker/handshake.rs, re-authenticating it (KIP-368) in broker/reauth.rs;
//! what the callers, the I/O thread and the re-authentication share (the
//! session's state, its request pipeline, ending it) is broker/session.rs,
//! below all three, and the settings are broker/config.rs.

use crate::sync::MutexExt;
use std::collections::{HashMap, HashSet};
use std::io::ErrorKind;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Condvar, Mutex, Weak};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::conn::{self, ReadHalf, WriteHalf};
use super::errors::io_error;
use crate::error::{local, Error, Result};
use crate::log::{self, ctx, level};
use crate::protocol::versions::BrokerApis;
use crate::protocol::Request;
use crate::wire::Reader;

mod config;
mod handshake;
/// KIP-368 re-authentication of established sessions.
mod reauth;
mod session;

pub use config::NetConfig;
use crate::clock::monotonic_us;
use crate::window::Window;
use session::{Counters, Dial, Inner, Slot, State, Waiter};

/// A snapshot of one connection's statistics.
#[derive(Debug, Clone, Default)]
pub struct ConnStats {
    /// `"INIT"` (never connected), `"CONNECT"`, `"UP"` or `"DOWN"`.
    pub state: &'static str,
    /// Requests waiting to be written (for an in-flight slot or the socket).
    pub outbuf_cnt: u64,
    /// Requests written and waiting for their response.
    pub waitresp_cnt: u64,
    /// Requests sent, and their bytes.
    pub tx: u64,
    /// Bytes sent (frames with their size prefix).
    pub tx_bytes: u64,
    /// Failed writes.
    pub tx_errs: u64,
    /// Responses received.
    pub rx: u64,
    /// Bytes received (frames with their size prefix).
    pub rx_bytes: u64,
    /// Receive failures: broken reads and malformed or unexpected responses.
    pub rx_errs: u64,
    /// Sessions set up.
    pub connects: u64,
    /// Sessions ended.
    pub disconnects: u64,
    /// Requests written per API key (key, count), for the keys written.
    pub req: Vec<(i16, u64)>,
    /// Responses that matched no waiting request (to requests timed out or
    /// abandoned, or to none).
    pub rx_corrid_errs: u64,
    /// Requests timed out.
    pub req_timeouts: u64,
    /// µs since the current session last wrote / read a frame; -1 if it has
    /// not yet (or no session is up).
    pub tx_idle: i64,
    pub rx_idle: i64,
    /// µs since the state last changed.
    pub state_age: u64,
    /// Round-trip times since the previous snapshot, in µs.
    pub rtt: Window,
    /// Throttle times the broker reported in its responses since the
    /// previous snapshot, in ms (all responses that carry one, 0s too).
    pub throttle: Window,
    /// How long requests waited to be written (for a session, an
    /// in-flight slot), in µs.
    pub outbuf_latency: Window,
}

impl ConnStats {
    /// Adds another connection's figures (of the same broker): counters
    /// summed, round-trip windows combined, the liveliest state kept.
    pub fn merge(&mut self, o: &ConnStats) {
        let rank = |s: &str| match s {
            "UP" => 3,
            "CONNECT" => 2,
            "DOWN" => 1,
            _ => 0,
        };
        if rank(o.state) > rank(self.state) {
            self.state = o.state;
        }
        self.outbuf_cnt += o.outbuf_cnt;
        self.waitresp_cnt += o.waitresp_cnt;
        self.tx += o.tx;
        self.tx_bytes += o.tx_bytes;
        self.tx_errs += o.tx_errs;
        self.rx += o.rx;
        self.rx_bytes += o.rx_bytes;
        self.rx_errs += o.rx_errs;
        self.connects += o.connects;
        self.disconnects += o.disconnects;
        for &(k, n) in &o.req {
            match self.req.iter_mut().find(|(k2, _)| *k2 == k) {
                Some((_, m)) => *m += n,
                None => self.req.push((k, n)),
            }
        }
        self.req.sort_unstable();
        self.rx_corrid_errs += o.rx_corrid_errs;
        self.req_timeouts += o.req_timeouts;
        // the most recent activity of either connection
        let recent = |a: i64, b: i64| match (a, b) {
            (-1, x) | (x, -1) => x,
            (a, b) => a.min(b),
        };
        self.tx_idle = recent(self.tx_idle, o.tx_idle);
        self.rx_idle = recent(self.rx_idle, o.rx_idle);
        self.state_age = self.state_age.min(o.state_age);
        self.rtt.merge(&o.rtt);
        self.throttle.merge(&o.throttle);
        self.outbuf_latency.merge(&o.outbuf_latency);
    }
}

/// A handle on one broker connection; cheap to clone, thread-safe. The
/// connection closes (and its thread ends) when the last handle is dropped.
#[derive(Clone)]
pub struct BrokerConn {
    inner: Arc<Inner>,
}

/// A request on its way: wait for its response with [`PendingResponse::wait`].
pub struct PendingResponse<R: Request> {
    conn: BrokerConn,
    slot: Arc<Slot>,
    corr: i32,
    generation: u64,
    version: i16,
    deadline: Instant,
    _r: std::marker::PhantomData<fn() -> R>,
}

impl BrokerConn {
    /// A connection to `addr`, named `name` in errors (e.g. "127.0.0.1:9092/1").
    /// Nothing is connected until the first request.
    pub fn new(name: impl Into<String>, addr: impl Into<String>, cfg: NetConfig) -> Self {
        let addr = addr.into();
        cfg.events.conn_created(&addr);
        BrokerConn {
            inner: Arc::new(Inner {
                name: name.into(),
                addr,
                cfg,
                state: Mutex::new(State {
                    generation: 0,
                    alive: false,
                    connecting: false,
                    pending: HashMap::new(),
                    rtt: Window::default(),
                    throttle: Window::default(),
                    outbuf: Window::default(),
                    abandoned: HashSet::new(),
                    apis: Arc::new(BrokerApis::default()),
                    failures: 0,
                    setup_failed: false,
                    retry_at: None,
                    last_error: None,
                }),
                changed: Condvar::new(),
                writer: Mutex::new(None),
                readers: Mutex::new(Vec::new()),
                dial: Mutex::new(Dial::default()),
                next_corr: AtomicI32::new(1),
                last_active: Mutex::new(Instant::now()),
                counters: Counters {
                    state_since_us: std::sync::atomic::AtomicU64::new(monotonic_us()),
                    ..Counters::default()
                },
                reauth_gate: Mutex::new(false),
                reauth_done: Condvar::new(),
            }),
        }
    }

    /// The name used in errors.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// The address connected to.
    pub fn addr(&self) -> &str {
        &self.inner.addr
    }

    /// True while a session is up.
    pub fn is_connected(&self) -> bool {
        self.inner.state.locked().alive
    }

    /// True while the last connection attempts failed (reset by a
    /// successful connect): a broker to ask last when another will do.
    pub fn is_failing(&self) -> bool {
        self.inner.state.locked().failures > 0
    }

    /// True when the last attempt to set up a session failed (refused,
    /// unreachable, handshake failed): the broker is down or gone, as
    /// opposed to a session that dropped on a broker still accepting new
    /// ones.
    pub fn cannot_connect(&self) -> bool {
        self.inner.state.locked().setup_failed
    }

    /// Requests sent and not yet answered.
    pub fn in_flight(&self) -> usize {
        let st = self.inner.state.locked();
        st.pending.len() + st.abandoned.len()
    }

    /// The connection's counters, and its round-trip times since the
    /// previous call (which starts a new window).
    pub fn take_stats(&self) -> ConnStats {
        let c = &self.inner.counters;
        let (state, waitresp, rtt) = {
            let mut st = self.inner.state.locked();
            let state = if st.alive {
                "UP"
            } else if st.connecting {
                "CONNECT"
            } else if st.generation == 0 && st.last_error.is_none() {
                "INIT"
            } else {
                "DOWN"
            };
            let windows = (st.rtt.take(), st.throttle.take(), st.outbuf.take());
            (state, (st.pending.len() + st.abandoned.len()) as u64, windows)
        };
        let (rtt, throttle, outbuf_latency) = rtt;
        let now = monotonic_us();
        let idle = |at: &std::sync::atomic::AtomicU64| match at.load(Ordering::Relaxed) {
            0 => -1,
            t => now.saturating_sub(t) as i64,
        };
        ConnStats {
            state,
            req: c.req.sent(),
            rx_corrid_errs: c.rx_corrid_errs.load(Ordering::Relaxed),
            req_timeouts: c.req_timeouts.load(Ordering::Relaxed),
            tx_idle: idle(&c.last_tx_us),
            rx_idle: idle(&c.last_rx_us),
            state_age: now.saturating_sub(c.state_since_us.load(Ordering::Relaxed)),
            outbuf_cnt: c.waiting_to_send.load(Ordering::Relaxed),
            waitresp_cnt: waitresp,
            tx: c.tx.load(Ordering::Relaxed),
            tx_bytes: c.tx_bytes.load(Ordering::Relaxed),
            tx_errs: c.tx_errs.load(Ordering::Relaxed),
            rx: c.rx.load(Ordering::Relaxed),
            rx_bytes: c.rx_bytes.load(Ordering::Relaxed),
            rx_errs: c.rx_errs.load(Ordering::Relaxed),
            connects: c.connects.load(Ordering::Relaxed),
            disconnects: c.disconnects.load(Ordering::Relaxed),
            rtt,
            throttle,
            outbuf_latency,
        }
    }

    /// The current session's socket options as the system reports them
    /// (SO_KEEPALIVE, SO_SNDBUF, SO_RCVBUF); `None` when not connected.
    pub fn socket_options(&self) -> Option<(bool, usize, usize)> {
        let w = self.inner.writer.locked();
        w.as_ref()
            .and_then(|(_, s)| conn::socket_options(s.socket()).ok())
    }

    /// The broker's API versions, connecting first if needed.
    ///
    /// # Errors
    /// If no connection can be made before `deadline`.
    pub fn apis(&self, deadline: Instant) -> Result<Arc<BrokerApis>> {
        self.ensure(deadline).map(|(_, apis)| apis)
    }

    /// The version of `R` to use with this broker: the highest both speak.
    ///
    /// # Errors
    /// `_UNSUPPORTED_FEATURE` if the broker does not support any version gregor has.
    pub fn version_for<R: Request>(&self, deadline: Instant) -> Result<i16> {
        let apis = self.apis(deadline)?;
        apis.pick_for::<R>().ok_or_else(|| {
            Error::local(
                local::UNSUPPORTED_FEATURE,
                format!(
                    "{}: broker does not support {} v{}..v{}",
                    self.inner.name,
                    crate::protocol::api_name(R::API_KEY),
                    R::MIN_VERSION,
                    R::MAX_VERSION
                ),
            )
        })
    }

    /// Sends `req` at the best version and waits for the response, for at
    /// most `timeout` (`None`: `socket.timeout.ms`).
    ///
    /// # Errors
    /// Transport errors, timeouts and malformed responses, each naming the broker.
    pub fn call<R: Request>(&self, req: &R, timeout: Option<Duration>) -> Result<R::Response> {
        let deadline = Instant::now() + timeout.unwrap_or(self.inner.cfg.request_timeout);
        let version = self.version_for::<R>(deadline)?;
        self.send_at(req, version, deadline)?.wait_until(deadline)
    }

    /// Sends `req` at `version`; the response must arrive before `deadline`.
    ///
    /// # Errors
    /// If the connection cannot be made or the request cannot be encoded or written.
    pub fn send_at<R: Request>(
        &self,
        req: &R,
        version: i16,
        deadline: Instant,
    ) -> Result<PendingResponse<R>> {
        let (corr, frame) = self.inner.encode(req, version)?;
        let slot = Slot::new();
        let generation = self.register(corr, Waiter::Slot(slot.clone()), deadline)?;
        self.write(generation, &frame)?;
        Ok(PendingResponse {
            conn: self.clone(),
            slot,
            corr,
            generation,
            version,
            deadline,
            _r: std::marker::PhantomData,
        })
    }

    /// Sends `req` at `version` and returns at once; `on_response` runs
    /// exactly once: on the connection's I/O thread with the decoded response
    /// or the error that ended the request, or on this thread, before
    /// `send_with` returns, if the request cannot be encoded, the connection
    /// cannot be made or the write fails. Returns the correlation id.
    /// The caller enforces its own deadline with [`BrokerConn::fail_timed_out`].
    ///
    /// # Errors
    /// The same error `on_response` got, when the request was not sent.
    pub fn send_with<R: Request>(
        &self,
        req: &R,
        version: i16,
        deadline: Instant,
        on_response: impl FnOnce(Result<R::Response>) + Send + 'static,
    ) -> Result<i32> {
        let (corr, frame) = match self.inner.encode(req, version) {
            Ok(x) => x,
            Err(e) => {
                on_response(Err(e.clone()));
                return Err(e);
            }
        };
        let weak = Arc::downgrade(&self.inner);
        let generation = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let g2 = generation.clone();
        let callback = Arc::new(Mutex::new(Some(on_response)));
        let cb2 = callback.clone();
        let waiter = Waiter::Call(Box::new(move |r: Result<Vec<u8>>| {
            let g = g2.load(Ordering::Acquire);
            let decoded = match weak.upgrade() {
                Some(inner) => inner.decode_frame::<R>(g, corr, version, r),
                None => r.and_then(|_| Err(Error::transport("connection dropped"))),
            };
            if let Some(f) = cb2.locked().take() {
                f(decoded);
            }
        }));
        let g = match self.register(corr, waiter, deadline) {
            Ok(g) => g,
            Err(e) => {
                // the waiter was dropped unregistered: report through the callback
                if let Some(f) = callback.locked().take() {
                    f(Err(e.clone()));
                }
                return Err(e);
            }
        };
        generation.store(g, Ordering::Release);
        // a write failure completes the registered waiter with the error
        self.write(g, &frame)?;
        Ok(corr)
    }

    /// Fails every request on the current connection with `_TIMED_OUT` and
    /// closes it (as librdkafka does when a request times out).
    pub fn fail_timed_out(&self, what: &str) {
        let generation = self.inner.state.locked().generation;
        self.inner.fail(
            generation,
            Error::timed_out(format!("{}: {what} timed out", self.inner.name)),
        );
    }

    /// Sends a request that gets no response (Produce with acks=0).
    ///
    /// # Errors
    /// If the connection cannot be made or the request cannot be written.
    pub fn send_oneway<R: Request>(&self, req: &R, version: i16, deadline: Instant) -> Result<()> {
        let (generation, _) = self.ensure(deadline)?;
        let (_, frame) = self.inner.encode(req, version)?;
        self.write(generation, &frame)
    }

    /// Registers a waiter once there is a session and an in-flight slot.
    fn register(&self, corr: i32, waiter: Waiter, deadline: Instant) -> Result<u64> {
        let waiting = &self.inner.counters.waiting_to_send;
        waiting.fetch_add(1, Ordering::Relaxed);
        let r = self.register_waiting(corr, waiter, deadline, Instant::now());
        waiting.fetch_sub(1, Ordering::Relaxed);
        r
    }

    /// `queued`: when the request began to wait (its `outbuf_latency` runs
    /// from then until it has its slot, just before it is written).
    fn register_waiting(
        &self,
        corr: i32,
        waiter: Waiter,
        deadline: Instant,
        queued: Instant,
    ) -> Result<u64> {
        let (generation, _) = self.ensure(deadline)?;
        let mut st = self.inner.state.locked();
        loop {
            if !st.alive || st.generation != generation {
                return Err(self.inner.dead_error(&st));
            }
            if st.pending.len() + st.abandoned.len() < self.inner.cfg.max_in_flight {
                let now = Instant::now();
                st.outbuf.add(now.duration_since(queued).as_micros() as u64);
                st.pending.insert(corr, (waiter, now));
                return Ok(generation);
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(Error::timed_out(format!(
                    "{}: timed out waiting for an in-flight slot",
                    self.inner.name
                )));
            }
            st = self
                .inner
                .changed
                .wait_timeout(st, deadline - now)
                .map_or_else(|e| e.into_inner().0, |r| r.0);
        }
    }

    fn write(&self, generation: u64, frame: &[u8]) -> Result<()> {
        self.inner.write_gated(generation, frame, false)
    }

    /// Closes the connection for good: as [`BrokerConn::close`], and no
    /// request may connect again (they fail with `_DESTROY`).
    pub fn shutdown(&self) {
        self.inner.dial.locked().shut = true;
        {
            let _st = self.inner.state.locked();
            self.inner.changed.notify_all();
        }
        self.close();
    }

    /// Closes the connection and waits for its I/O thread to end; waiters
    /// fail with `_TRANSPORT`.
    pub fn close(&self) {
        {
            let mut d = self.inner.dial.locked();
            d.closes += 1;
            if let Some(s) = d.sock.take() {
                let _ = s.shutdown(std::net::Shutdown::Both);
            }
        }
        let generation = self.inner.state.locked().generation;
        self.inner.end_session(
            generation,
            Error::transport(format!("{}: connection closed by client", self.inner.name)),
            false,
            false,
        );
        // Every session's socket is shut down by now, so each thread's read
        // returns at once. The I/O threads never call close (only fail), so
        // this cannot wait for itself. Bounded all the same: a stuck thread
        // is left behind rather than hanging the caller's `_free`.
        let readers = std::mem::take(&mut *self.inner.readers.locked());
        let until = Instant::now() + Duration::from_secs(5);
        for h in readers {
            while !h.is_finished() && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(1));
            }
            if h.is_finished() {
                let _ = h.join();
            }
        }
    }

    /// Counts a failed attempt to set up a session and schedules the next.
    fn note_failure(&self, st: &mut State, e: Error) {
        st.failures += 1;
        st.setup_failed = true;
        let exp = st.failures.min(16) - 1;
        let backoff = self
            .inner
            .cfg
            .backoff
            .saturating_mul(1 << exp)
            .min(self.inner.cfg.backoff_max);
        st.retry_at = Some(Instant::now() + backoff);
        st.last_error = Some(e);
    }

    /// Returns the current session, connecting (with backoff) if there is none.
    fn ensure(&self, deadline: Instant) -> Result<(u64, Arc<BrokerApis>)> {
        let mut st = self.inner.state.locked();
        loop {
            if st.alive {
                return Ok((st.generation, st.apis.clone()));
            }
            if self.inner.dial.locked().shut {
                return Err(Error::local(
                    local::DESTROY,
                    format!("{}: connection shut down by client", self.inner.name),
                ));
            }
            let now = Instant::now();
            if !st.connecting {
                match st.retry_at {
                    Some(at) if at > now && at > deadline => {
                        let note = format!(
                            "{}: not connected (reconnecting in {} ms)",
                            self.inner.name,
                            (at - now).as_millis()
                        );
                        return Err(match &st.last_error {
                            // A refused certificate or credential keeps its
                            // code: retrying cannot make it go away.
                            Some(Error::Local { code, message })
                                if *code == local::SSL || *code == local::AUTHENTICATION =>
                            {
                                Error::local(*code, format!("{note}: {message}"))
                            }
                            Some(Error::Kafka { code, context }) => {
                                Error::kafka(*code, format!("{note}: {context}"))
                            }
                            Some(e) => Error::transport(format!("{note}: {e}")),
                            None => Error::transport(note),
                        });
                    }
                    Some(at) if at > now => {}
                    _ => break,
                }
            }
            if now >= deadline {
                return Err(Error::timed_out(format!(
                    "{}: timed out connecting",
                    self.inner.name
                )));
            }
            let wake = st
                .retry_at
                .filter(|at| *at > now && !st.connecting)
                .unwrap_or(deadline)
                .min(deadline);
            st = self
                .inner
                .changed
                .wait_timeout(st, wake - now)
                .map_or_else(|e| e.into_inner().0, |r| r.0);
        }
        st.connecting = true;
        self.inner.counters.state_changed();
        let attempt = st.failures + 1;
        drop(st);
        let log = &self.inner.cfg.log;
        log::debug!(
            log,
            ctx::BROKER,
            "CONNECT",
            "{}: Connecting to {} ({}, attempt {attempt})",
            self.inner.name,
            self.inner.addr,
            self.inner.cfg.protocol
        );
        let started = Instant::now();
        let closes = self.inner.dial.locked().closes;
        let mut result = handshake::connect(
            &self.inner.cfg,
            &self.inner.name,
            &self.inner.addr,
            deadline,
            |stream| {
                // a close from now on shuts this socket down, cutting the
                // handshake short
                let mut d = self.inner.dial.locked();
                if d.closes != closes || d.shut {
                    let _ = stream.shutdown(std::net::Shutdown::Both);
                    return Err(Error::transport(format!(
                        "{}: connection closed by client",
                        self.inner.name
                    )));
                }
                d.sock = stream.try_clone().ok();
                Ok(())
            },
        );
        let by_client = {
            let mut d = self.inner.dial.locked();
            d.sock = None;
            let by_client = d.closes != closes || d.shut;
            if d.closes != closes && result.is_ok() {
                // closed while the handshake ended: the new session is not used
                result = Err(Error::transport(format!(
                    "{}: connection closed by client",
                    self.inner.name
                )));
            }
            by_client
        };
        let mut st = self.inner.state.locked();
        st.connecting = false;
        self.inner.counters.state_changed();
        self.inner.changed.notify_all();
        let mut lifetime = 0;
        let result = result.and_then(|(rd, wr, apis, session_lifetime)| {
            // The writer and the I/O thread are in place before the session
            // is seen alive (all under the state lock). Marking it alive
            // first let a request find no writer and fail the new session
            // before its socket was installed, so nothing ever shut that
            // socket down and its I/O thread blocked for good.
            let generation = st.generation + 1;
            self.start_reader(generation, rd, wr)?;
            st.generation = generation;
            st.alive = true;
            self.inner.counters.connects.fetch_add(1, Ordering::Relaxed);
            st.failures = 0;
            st.setup_failed = false;
            st.retry_at = None;
            st.last_error = None;
            st.apis = Arc::new(apis);
            lifetime = session_lifetime;
            Ok((generation, st.apis.clone()))
        });
        if let Ok((generation, apis)) = &result {
            if lifetime > 0 {
                reauth::start_timer(&self.inner, *generation, apis, lifetime);
            }
        }
        match &result {
            Ok(_) => log::debug!(
                log,
                ctx::BROKER | ctx::PROTOCOL,
                "CONNECTED",
                "{}: Connected to {} after {} ms",
                self.inner.name,
                self.inner.addr,
                started.elapsed().as_millis()
            ),
            Err(e) => {
                // librdkafka logs a failed connect once at error level and
                // an identical repeat only with the broker context.
                let same = st
                    .last_error
                    .as_ref()
                    .is_some_and(|l| l.to_string() == e.to_string());
                if by_client {
                    // a connect the client itself ended (close, free): no error
                    log::debug!(log, ctx::BROKER, "FAIL", "{e}");
                } else if same {
                    log::debug!(log, ctx::BROKER, "FAIL", "{e} (identical to last error)");
                } else {
                    log::at!(
                        log,
                        level::ERR,
                        "FAIL",
                        "{e} (after {} ms in state CONNECT)",
                        started.elapsed().as_millis()
                    );
                }
                self.note_failure(&mut st, e.clone());
                log::debug!(
                    log,
                    ctx::BROKER,
                    "RECONNECT",
                    "{}: reconnecting in {} ms",
                    self.inner.name,
                    st.retry_at.map_or(0, |at| at
                        .saturating_duration_since(Instant::now())
                        .as_millis())
                );
            }
        }
        drop(st);
        // Reported without the state lock: the event queue may wake the
        // client's pollers.
        match &result {
            Ok(_) => self.inner.cfg.events.conn_up(&self.inner.addr),
            Err(e) if !by_client => self
                .inner
                .cfg
                .events
                .conn_failed(&self.inner.addr, false, e),
            Err(_) => {}
        }
        result
    }

    /// Installs session `generation`'s socket as the writer and starts its
    /// I/O thread. Called with the state lock held (the thread takes that
    /// lock only after its first read, and nothing here waits for it).
    fn start_reader(&self, generation: u64, read_half: ReadHalf, stream: WriteHalf) -> Result<()> {
        read_half
            .socket()
            .set_read_timeout(None)
            .map_err(|e| io_error(&self.inner.name, "set timeout", &e))?;
        // a new session starts active (its idle time counts from now)
        *self.inner.last_active.locked() = Instant::now();
        let weak = Arc::downgrade(&self.inner);
        let name = self.inner.name.clone();
        let max = self.inner.cfg.max_response;
        let h = std::thread::Builder::new()
            .name(format!("gregor {name}"))
            .spawn(move || reader_loop(weak, generation, read_half, max, name))
            .map_err(|e| {
                Error::local(
                    local::FAIL,
                    format!("{}: cannot start I/O thread: {e}", self.inner.name),
                )
            })?;
        let old = self.inner.writer.locked().replace((generation, stream));
        if let Some((_, old)) = old {
            // Normally fail() shut it down already; if not, do it now so its
            // I/O thread does not wait on it forever.
            old.shutdown();
        }
        // Keep the new thread; reap the ones that have ended (without waiting).
        let mut readers = self.inner.readers.locked();
        let (ended, running): (Vec<_>, Vec<_>) =
            readers.drain(..).partition(JoinHandle::is_finished);
        *readers = running;
        readers.push(h);
        drop(readers);
        for h in ended {
            let _ = h.join();
        }
        Ok(())
    }
}

fn reader_loop(
    weak: Weak<Inner>,
    generation: u64,
    mut read_half: ReadHalf,
    max: usize,
    name: String,
) {
    loop {
        if !wait_while_idle(&weak, generation, &read_half, &name) {
            return;
        }
        let result = conn::read_frame(&mut read_half, max, &name);
        let Some(inner) = weak.upgrade() else { return };
        if !inner.cfg.max_idle.is_zero() {
            *inner.last_active.locked() = Instant::now();
        }
        match result {
            Ok(frame) => {
                let c = &inner.counters;
                c.rx.fetch_add(1, Ordering::Relaxed);
                c.rx_bytes
                    .fetch_add(frame.len() as u64 + 4, Ordering::Relaxed);
                c.last_rx_us.store(monotonic_us(), Ordering::Relaxed);
                let corr = Reader::new(&frame).i32().unwrap_or(-1);
                let slot = {
                    let mut st = inner.state.locked();
                    if st.generation != generation {
                        return;
                    }
                    let s = st.pending.remove(&corr).map(|(w, sent)| {
                        st.rtt.add(sent.elapsed().as_micros() as u64);
                        w
                    });
                    let abandoned = s.is_none() && st.abandoned.remove(&corr);
                    inner.changed.notify_all();
                    (s, abandoned)
                };
                // A response to no request at all is garbage: the stream can
                // no longer be trusted.
                match slot {
                    (Some(w), _) => w.complete(Ok(frame)),
                    (None, true) => {
                        c.rx_corrid_errs.fetch_add(1, Ordering::Relaxed);
                    }
                    (None, false) => {
                        c.rx_corrid_errs.fetch_add(1, Ordering::Relaxed);
                        c.rx_errs.fetch_add(1, Ordering::Relaxed);
                        inner.fail(
                            generation,
                            Error::local(
                                local::BAD_MSG,
                                format!("{name}: response for unknown correlation id {corr}"),
                            ),
                        );
                        return;
                    }
                }
            }
            Err(e) => {
                // A read ended by our own close is not an error.
                let st = inner.state.locked();
                if st.alive && st.generation == generation {
                    inner.counters.rx_errs.fetch_add(1, Ordering::Relaxed);
                }
                drop(st);
                // a broker refusing a re-authentication answers, then
                // closes: let the re-authentication report its answer
                reauth::await_done(&inner, Duration::from_millis(200));
                inner.fail(generation, e);
                return;
            }
        }
    }
}

/// `connections.max.idle.ms`: while no request is in flight, waits for
/// the socket to become readable (peeking, so nothing is consumed), and
/// closes the session once nothing was written or read for that long, as
/// librdkafka ("Connection max idle time exceeded"). Returns false when the
/// session is over. With requests in flight it returns at once: their
/// responses are read without a timeout, as before.
fn wait_while_idle(weak: &Weak<Inner>, generation: u64, rd: &ReadHalf, name: &str) -> bool {
    loop {
        let Some(inner) = weak.upgrade() else {
            return false;
        };
        let max_idle = inner.cfg.max_idle;
        if max_idle.is_zero() {
            return true;
        }
        let quiet = {
            let st = inner.state.locked();
            if st.generation != generation || !st.alive {
                return false;
            }
            st.pending.is_empty() && st.abandoned.is_empty()
        };
        if !quiet {
            return rd.socket().set_read_timeout(None).is_ok();
        }
        let idle = inner.last_active.locked().elapsed();
        if idle >= max_idle {
            let err = Error::transport(format!(
                "{name}: connection max idle time exceeded ({} ms since last activity)",
                idle.as_millis()
            ));
            if inner.end_session(generation, err, true, false) {
                return false;
            }
            // a request started meanwhile: read its response
            continue;
        }
        drop(inner);
        let wait = (max_idle - idle).max(Duration::from_millis(1));
        let sock = rd.socket();
        if sock.set_read_timeout(Some(wait)).is_err() {
            return true;
        }
        match sock.peek(&mut [0u8; 1]) {
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            // data, EOF or an error: read_frame sees it
            _ => return sock.set_read_timeout(None).is_ok(),
        }
    }
}

impl<R: Request> PendingResponse<R> {
    /// Waits up to `timeout` for the response. `Ok(None)` if it has not come
    /// yet and the request's own deadline has not passed.
    ///
    /// # Errors
    /// When the connection failed, the request's deadline passed (which also
    /// closes the connection, as librdkafka does), or the response is malformed
    /// (which closes it too).
    pub fn wait(&self, timeout: Duration) -> Result<Option<R::Response>> {
        let until = (Instant::now() + timeout).min(self.deadline);
        match self.slot.wait(until) {
            Some(r) => self.decode(r).map(Some),
            None if Instant::now() >= self.deadline => Err(self.timed_out()),
            None => Ok(None),
        }
    }

    /// Waits until `deadline` (at most the request's own deadline).
    ///
    /// # Errors
    /// As [`PendingResponse::wait`], and `_TIMED_OUT` at the deadline.
    pub fn wait_until(self, deadline: Instant) -> Result<R::Response> {
        match self.slot.wait(deadline.min(self.deadline)) {
            Some(r) => self.decode(r),
            None if Instant::now() >= self.deadline => Err(self.timed_out()),
            None => Err(Error::timed_out(format!(
                "{}: no {} response yet",
                self.conn.inner.name,
                crate::protocol::api_name(R::API_KEY)
            ))),
        }
    }

    /// The version the request was sent at.
    pub fn version(&self) -> i16 {
        self.version
    }

    /// The request's correlation id.
    pub fn correlation_id(&self) -> i32 {
        self.corr
    }

    fn timed_out(&self) -> Error {
        let c = &self.conn.inner.counters;
        c.req_timeouts.fetch_add(1, Ordering::Relaxed);
        let e = Error::timed_out(format!(
            "{}: {} v{} request timed out",
            self.conn.inner.name,
            crate::protocol::api_name(R::API_KEY),
            self.version
        ));
        self.conn.inner.fail(self.generation, e.clone());
        e
    }

    fn decode(&self, r: Result<Vec<u8>>) -> Result<R::Response> {
        self.conn
            .inner
            .decode_frame::<R>(self.generation, self.corr, self.version, r)
    }
}

impl<R: Request> Drop for PendingResponse<R> {
    fn drop(&mut self) {
        // Abandoned before its response: the response, when it comes, is
        // read and dropped. It still holds its in-flight slot until then.
        let mut st = self.conn.inner.state.locked();
        if st.generation == self.generation && st.pending.remove(&self.corr).is_some() {
            st.abandoned.insert(self.corr);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conn(us: &[u64]) -> ConnStats {
        let mut rtt = Window::default();
        for &u in us {
            rtt.add(u);
        }
        ConnStats {
            state: "UP",
            tx: us.len() as u64,
            rtt,
            // never written or read, as take_stats gives it
            tx_idle: -1,
            rx_idle: -1,
            ..Default::default()
        }
    }

    #[test]
    fn merged_connections_add_up() {
        let mut m = conn(&[500, 700]);
        m.state = "DOWN";
        m.req = vec![(0, 2), (3, 1)];
        m.tx_idle = -1;
        m.rx_idle = 40;
        let mut b = conn(&(1..=100).collect::<Vec<_>>());
        b.req = vec![(3, 4), (18, 1)];
        b.tx_idle = 7;
        b.rx_idle = 90;
        m.merge(&b);
        m.merge(&conn(&[]));
        assert_eq!(m.state, "UP");
        assert_eq!(m.tx, 102);
        assert_eq!(m.req, vec![(0, 2), (3, 5), (18, 1)]);
        assert_eq!((m.tx_idle, m.rx_idle), (7, 40));
        let r = m.rtt.stats();
        assert_eq!((r.min, r.max, r.cnt), (1, 700, 102));
    }
}
