//! The state one broker connection's sessions share between the callers,
//! the I/O thread and the re-authentication timer, and the steps of its
//! request pipeline that all of them take: encoding with the next
//! correlation id, writing a frame through the write gate, decoding a
//! response, and ending a session with every waiter failed.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::config::NetConfig;
use crate::clock::monotonic_us;
use crate::window::Window;
use crate::error::{local, Error, Result};
use crate::log::{self, ctx, level};
use crate::net::conn::{self, WriteHalf};
use crate::protocol::versions::BrokerApis;
use crate::protocol::{decode_response, encode_request, Message, Request};
use crate::sync::MutexExt;
use crate::wire::{Bytes, Reader, Writer};

/// Where a response goes: filled once by the I/O thread (or by a failure).
pub(super) struct Slot {
    value: Mutex<Option<Result<Vec<u8>>>>,
    ready: Condvar,
}

impl Slot {
    pub(super) fn new() -> Arc<Slot> {
        Arc::new(Slot {
            value: Mutex::new(None),
            ready: Condvar::new(),
        })
    }

    pub(super) fn fill(&self, v: Result<Vec<u8>>) {
        let mut g = self.value.locked();
        if g.is_none() {
            *g = Some(v);
            self.ready.notify_all();
        }
    }

    /// Waits until `deadline`; `None` if nothing arrived by then.
    pub(super) fn wait(&self, deadline: Instant) -> Option<Result<Vec<u8>>> {
        let mut g = self.value.locked();
        loop {
            if let Some(v) = g.take() {
                return Some(v);
            }
            let now = Instant::now();
            if now >= deadline {
                return None;
            }
            g = self
                .ready
                .wait_timeout(g, deadline - now)
                .map_or_else(|e| e.into_inner().0, |r| r.0);
        }
    }
}

/// Who gets a response: a waiting caller, or a callback run on the
/// connection's I/O thread (for callers that must not block on one request,
/// like the producer's sender).
pub(super) enum Waiter {
    Slot(Arc<Slot>),
    Call(Box<dyn FnOnce(Result<Vec<u8>>) + Send>),
}

impl Waiter {
    pub(super) fn complete(self, r: Result<Vec<u8>>) {
        match self {
            Waiter::Slot(s) => s.fill(r),
            Waiter::Call(f) => f(r),
        }
    }
}

/// The state of the current session (one TCP connection).
pub(super) struct State {
    /// Session number; bumped on every (re)connect.
    pub(super) generation: u64,
    /// True while a session is up.
    pub(super) alive: bool,
    /// True while some thread is connecting.
    pub(super) connecting: bool,
    /// Requests waiting for their response, by correlation id, with the
    /// time they were sent (for the round-trip statistics).
    pub(super) pending: HashMap<i32, (Waiter, Instant)>,
    /// Round-trip times since the last statistics snapshot.
    pub(super) rtt: Window,
    /// Throttle times (ms) of the responses since the last snapshot.
    pub(super) throttle: Window,
    /// How long requests waited for their slot (µs), since the last
    /// snapshot.
    pub(super) outbuf: Window,
    /// Requests whose waiter gave up: their responses are read and dropped.
    pub(super) abandoned: HashSet<i32>,
    /// What the broker supports (valid while `alive`).
    pub(super) apis: Arc<BrokerApis>,
    /// Consecutive connection failures.
    pub(super) failures: u32,
    /// The last attempt to set up a session failed (not a session that
    /// dropped): the broker cannot be reached now.
    pub(super) setup_failed: bool,
    /// No reconnect before this.
    pub(super) retry_at: Option<Instant>,
    /// Why the last session ended.
    pub(super) last_error: Option<Error>,
}

pub(super) struct Inner {
    pub(super) name: String,
    pub(super) addr: String,
    pub(super) cfg: NetConfig,
    pub(super) state: Mutex<State>,
    pub(super) changed: Condvar,
    /// The write half of the current session, with its generation.
    pub(super) writer: Mutex<Option<(u64, WriteHalf)>>,
    /// I/O threads not yet known to have ended. `BrokerConn::close` joins
    /// them, so no gregor thread outlives a closed client (a C caller may
    /// exit or unload the library right after `_free`).
    pub(super) readers: Mutex<Vec<JoinHandle<()>>>,
    /// The socket of a connect in progress, so `BrokerConn::close` can
    /// cut its handshake short (a broker that accepts and never answers
    /// would hold the connecting caller until its deadline).
    pub(super) dial: Mutex<Dial>,
    pub(super) next_corr: AtomicI32,
    /// When a frame was last written or read (kept only when
    /// `connections.max.idle.ms` is set).
    pub(super) last_active: Mutex<Instant>,
    /// Statistics counters: relaxed atomics, bumped where the work happens.
    pub(super) counters: Counters,
    /// Set while the session re-authenticates (KIP-368): no other request
    /// is written until the last SaslAuthenticate response is in.
    pub(super) reauth_gate: Mutex<bool>,
    pub(super) reauth_done: Condvar,
}

/// A connect in progress, as far as `BrokerConn::close` goes.
#[derive(Default)]
pub(super) struct Dial {
    /// Bumped by every close: a connect that began before one gives up.
    pub(super) closes: u64,
    /// Set by `BrokerConn::shutdown`: no connect any more.
    pub(super) shut: bool,
    /// A clone of the connecting socket (shut down by close).
    pub(super) sock: Option<std::net::TcpStream>,
}

/// Cumulative counters of one connection (all its sessions).
#[derive(Default)]
pub(super) struct Counters {
    /// Requests written, per API key (statistics' `req`).
    pub(super) req: ReqCounts,
    /// Responses that matched no waiting request: to requests given up
    /// (timed out or abandoned) or to none at all (`rxcorriderrs`).
    pub(super) rx_corrid_errs: AtomicU64,
    /// Requests whose deadline passed before their response (`req_timeouts`).
    pub(super) req_timeouts: AtomicU64,
    /// When the current session last wrote and read a frame, in µs of
    /// [`crate::clock::monotonic_us`]; 0 for not yet.
    pub(super) last_tx_us: AtomicU64,
    pub(super) last_rx_us: AtomicU64,
    /// When the connection's state (INIT, CONNECT, UP, DOWN) last changed,
    /// in µs of [`crate::clock::monotonic_us`].
    pub(super) state_since_us: AtomicU64,
    pub(super) tx: AtomicU64,
    pub(super) tx_bytes: AtomicU64,
    pub(super) tx_errs: AtomicU64,
    pub(super) rx: AtomicU64,
    pub(super) rx_bytes: AtomicU64,
    pub(super) rx_errs: AtomicU64,
    pub(super) connects: AtomicU64,
    pub(super) disconnects: AtomicU64,
    /// Requests waiting for an in-flight slot or the writer.
    pub(super) waiting_to_send: AtomicU64,
}

impl Counters {
    /// Notes a change of the connection's state (now), and a new session's
    /// start: nothing written or read on it yet.
    pub(super) fn state_changed(&self) {
        self.state_since_us.store(monotonic_us(), Ordering::Relaxed);
        self.last_tx_us.store(0, Ordering::Relaxed);
        self.last_rx_us.store(0, Ordering::Relaxed);
    }
}

/// Requests written per API key, indexed by key.
pub(super) struct ReqCounts(pub(super) [AtomicU64; API_KEYS]);

/// Kafka's API keys run from 0 without a gap (checked in `api_keys`).
const API_KEYS: usize = crate::api_keys::API_NAMES.len();

impl Default for ReqCounts {
    fn default() -> Self {
        ReqCounts(std::array::from_fn(|_| AtomicU64::new(0)))
    }
}

impl ReqCounts {
    /// Counts a written frame (size prefix, then the request header's
    /// API key).
    pub(super) fn count(&self, frame: &[u8]) {
        if let Some(&[hi, lo]) = frame.get(4..6) {
            if let Some(c) = self.0.get(i16::from_be_bytes([hi, lo]) as usize) {
                c.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// The API keys written at least once, with their counts.
    pub(super) fn sent(&self) -> Vec<(i16, u64)> {
        (0..API_KEYS)
            .filter_map(|k| {
                let n = self.0[k].load(Ordering::Relaxed);
                (n > 0).then_some((k as i16, n))
            })
            .collect()
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        let up = self.state.get_mut().is_ok_and(|st| st.alive);
        self.cfg.events.conn_dropped(&self.addr, up);
        if let Some((_, s)) = self.writer.locked().take() {
            s.shutdown();
        }
    }
}

impl Inner {
    /// Decodes a response frame; a malformed one closes the connection.
    pub(super) fn decode_frame<R: Request>(
        &self,
        generation: u64,
        corr: i32,
        version: i16,
        r: Result<Vec<u8>>,
    ) -> Result<R::Response> {
        // Decoded from a shared buffer, so byte fields (fetched records)
        // borrow the frame instead of being copied out of it.
        let frame = Bytes::from(r?);
        let mut rd = Reader::shared(&frame);
        match decode_response::<R>(&mut rd, version) {
            Ok((h, body)) if h.correlation_id == corr => {
                let throttle = body.throttle_time_ms();
                self.state.locked().throttle.add(throttle.max(0) as u64);
                self.cfg.events.throttled(&self.name, throttle);
                Ok(body)
            }
            Ok((h, _)) => {
                self.counters.rx_errs.fetch_add(1, Ordering::Relaxed);
                let e = Error::local(
                    local::BAD_MSG,
                    format!(
                        "{}: correlation id {} does not match {corr}",
                        self.name, h.correlation_id
                    ),
                );
                self.fail(generation, e.clone());
                Err(e)
            }
            Err(error) => {
                self.counters.rx_errs.fetch_add(1, Ordering::Relaxed);
                let e = Error::Decode {
                    broker: Some(self.name.clone()),
                    error,
                };
                self.fail(generation, e.clone());
                Err(e)
            }
        }
    }

    pub(super) fn encode<R: Request>(&self, req: &R, version: i16) -> Result<(i32, Vec<u8>)> {
        let corr = self.next_corr.fetch_add(1, Ordering::Relaxed) & i32::MAX;
        let mut w = Writer::with_capacity(256 + req.encoded_size_hint());
        encode_request(&mut w, corr, Some(&self.cfg.client_id), version, req)?;
        Ok((corr, w.into_vec()))
    }

    /// Writes a frame; unless `reauth` (the re-authentication's own
    /// requests), waits while the session re-authenticates.
    pub(super) fn write_gated(&self, generation: u64, frame: &[u8], reauth: bool) -> Result<()> {
        let mut gate = self.reauth_gate.locked();
        while *gate && !reauth {
            gate = self
                .reauth_done
                .wait_timeout(gate, Duration::from_millis(100))
                .map_or_else(|e| e.into_inner().0, |r| r.0);
        }
        let mut w = self.writer.locked();
        let result = match w.as_mut() {
            Some((g, s)) if *g == generation => conn::write_frame(s, frame, &self.name),
            _ => Err(Error::transport(format!(
                "{}: connection closed",
                self.name
            ))),
        };
        drop(w);
        drop(gate);
        if !self.cfg.max_idle.is_zero() {
            *self.last_active.locked() = Instant::now();
        }
        let c = &self.counters;
        match &result {
            Ok(()) => {
                c.tx.fetch_add(1, Ordering::Relaxed);
                c.tx_bytes.fetch_add(frame.len() as u64, Ordering::Relaxed);
                c.req.count(frame);
                c.last_tx_us.store(monotonic_us(), Ordering::Relaxed);
            }
            Err(e) => {
                c.tx_errs.fetch_add(1, Ordering::Relaxed);
                self.fail(generation, e.clone());
            }
        }
        result
    }

    pub(super) fn dead_error(&self, st: &State) -> Error {
        st.last_error
            .clone()
            .unwrap_or_else(|| Error::transport(format!("{}: connection closed", self.name)))
    }

    /// Ends session `generation` (if still current): closes the socket and
    /// fails every waiter with `err`.
    pub(super) fn fail(&self, generation: u64, err: Error) {
        self.end_session(generation, err, false, true);
    }

    /// As [`Inner::fail`]; with `only_if_idle`, only if no request is
    /// in flight (checked under the same lock that registers requests, so
    /// an idle close never fails a request that just started); `report`
    /// false for an end the client asked for or an idle close (no error
    /// event then). Returns whether the session was ended.
    pub(super) fn end_session(
        &self,
        generation: u64,
        err: Error,
        only_if_idle: bool,
        report: bool,
    ) -> bool {
        let waiters: Vec<Waiter> = {
            let mut st = self.state.locked();
            if st.generation != generation || !st.alive {
                return false;
            }
            if only_if_idle && !(st.pending.is_empty() && st.abandoned.is_empty()) {
                return false;
            }
            st.alive = false;
            self.counters.disconnects.fetch_add(1, Ordering::Relaxed);
            self.counters.state_changed();
            st.failures += 1;
            let exp = st.failures.min(16) - 1;
            let backoff = self
                .cfg
                .backoff
                .saturating_mul(1 << exp)
                .min(self.cfg.backoff_max);
            st.retry_at = Some(Instant::now() + backoff);
            st.last_error = Some(err.clone());
            st.abandoned.clear();
            self.changed.notify_all();
            let log = &self.cfg.log;
            // Our own close is not news, nor a broker closing an idle
            // connection; a broker or network ending a busy session is,
            // unless log.connection.close is off (librdkafka's rules).
            let ours = err.to_string().ends_with("connection closed by client");
            if !ours && !st.pending.is_empty() && log.connection_close() {
                log::at!(
                    log,
                    level::ERR,
                    "FAIL",
                    "{}: Disconnected: {err} ({} request(s) in flight)",
                    self.name,
                    st.pending.len()
                );
            } else {
                log::debug!(
                    log,
                    ctx::BROKER,
                    "FAIL",
                    "{}: Disconnected: {err} ({} request(s) in flight)",
                    self.name,
                    st.pending.len()
                );
            }
            st.pending.drain().map(|(_, (w, _))| w).collect()
        };
        if let Some((g, s)) = self.writer.locked().take_if(|(g, _)| *g == generation) {
            debug_assert_eq!(g, generation);
            s.shutdown();
        }
        if report && !self.dial.locked().shut {
            self.cfg.events.conn_failed(&self.addr, true, &err);
        }
        for w in waiters {
            w.complete(Err(err.clone()));
        }
        true
    }
}
