//! KIP-368 re-authentication of an established session: when the broker's
//! last SaslAuthenticate response (v1+) gave a session lifetime, the session
//! authenticates again before that lifetime ends, at 85–95 % of it
//! (jittered, as the Java client's `SaslClientAuthenticator`; librdkafka
//! uses 90 %), with the mechanism's current credentials (for OAUTHBEARER
//! the token current then, so a refreshed token reaches the broker; PLAIN
//! and SCRAM the credentials set last). The broker processes a connection's
//! requests in order, so requests already in flight are answered first and
//! their responses go to their waiters as usual; KIP-368 forbids other
//! requests between the SaslHandshake and the last SaslAuthenticate
//! response, so new ones wait at the session's write gate until the
//! exchange is over. A failed re-authentication ends the session (the next
//! request reconnects and authenticates afresh), as the Java client closes
//! the channel.

use std::sync::{Arc, Weak};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::session::{Inner, Slot, Waiter};
use crate::error::{Error, Result};
use crate::log::{self, ctx};
use crate::net::sasl::{self, Transport};
use crate::protocol::versions::BrokerApis;
use crate::protocol::Request;
use crate::sync::MutexExt;

/// When to re-authenticate a session of `lifetime_ms`: 85–95 % of it.
pub(super) fn reauth_delay(lifetime_ms: i64) -> Duration {
    let jitter = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(500, |d| d.subsec_nanos() % 1000);
    let frac = 0.85 + 0.1 * f64::from(jitter) / 1000.0;
    Duration::from_millis((lifetime_ms.max(1) as f64 * frac) as u64)
}

/// The re-authentication's requests, through the session's pipeline.
struct Pipeline<'a> {
    inner: &'a Inner,
    generation: u64,
    deadline: Instant,
}

impl Transport for Pipeline<'_> {
    fn call<R: Request>(&mut self, req: &R, version: i16) -> Result<R::Response> {
        let (corr, frame) = self.inner.encode(req, version)?;
        let slot = Slot::new();
        {
            let mut st = self.inner.state.locked();
            if !st.alive || st.generation != self.generation {
                return Err(self.inner.dead_error(&st));
            }
            st.pending
                .insert(corr, (Waiter::Slot(slot.clone()), Instant::now()));
        }
        self.inner.write_gated(self.generation, &frame, true)?;
        match slot.wait(self.deadline) {
            Some(r) => self
                .inner
                .decode_frame::<R>(self.generation, corr, version, r),
            None => Err(Error::timed_out(format!(
                "{}: SASL re-authentication timed out",
                self.inner.name
            ))),
        }
    }

    fn raw(&mut self, _token: &[u8]) -> Result<Vec<u8>> {
        Err(Error::local(
            crate::error::local::AUTHENTICATION,
            "re-authentication needs SaslAuthenticate (KIP-152)",
        ))
    }
}

/// Starts the re-authentication timer of session `generation`.
pub(super) fn start_timer(
    inner: &Arc<Inner>,
    generation: u64,
    apis: &BrokerApis,
    lifetime_ms: i64,
) {
    if !sasl::can_reauthenticate(apis) {
        return;
    }
    let weak = Arc::downgrade(inner);
    let h = std::thread::Builder::new()
        .name(format!("gregor reauth {}", inner.name))
        .spawn(move || reauth_loop(&weak, generation, lifetime_ms));
    if let Ok(h) = h {
        // close() joins it with the I/O threads
        inner.readers.locked().push(h);
    }
}

/// Re-authenticates session `generation` now; returns the new session
/// lifetime.
fn reauthenticate(inner: &Inner, generation: u64) -> Result<i64> {
    let cfg = &inner.cfg;
    let Some(mech) = &cfg.sasl else {
        return Ok(0);
    };
    let apis = {
        let st = inner.state.locked();
        if !st.alive || st.generation != generation {
            return Err(inner.dead_error(&st));
        }
        st.apis.clone()
    };
    let deadline = Instant::now() + cfg.request_timeout;
    // a token must be there (a refresh may still be running)
    mech.ready(deadline)?;
    *inner.reauth_gate.locked() = true;
    let mut io = Pipeline {
        inner,
        generation,
        deadline,
    };
    sasl::exchange(
        &mut io,
        &apis,
        &cfg.sasl_credentials.apply(mech),
        &inner.name,
    )
}

/// Opens the write gate after a re-authentication (and after a failed
/// one ended the session).
fn open_gate(inner: &Inner) {
    *inner.reauth_gate.locked() = false;
    inner.reauth_done.notify_all();
}

/// Waits up to `limit` for a re-authentication in progress to end (the
/// I/O thread, on a read error, so the broker's refusal is what the
/// session ends with rather than the close that follows it).
pub(super) fn await_done(inner: &Inner, limit: Duration) {
    let until = Instant::now() + limit;
    let mut gate = inner.reauth_gate.locked();
    while *gate {
        let now = Instant::now();
        if now >= until {
            return;
        }
        gate = inner
            .reauth_done
            .wait_timeout(gate, until - now)
            .map_or_else(|e| e.into_inner().0, |r| r.0);
    }
}

/// Waits for the re-authentication time of session `generation`,
/// re-authenticates, and goes on with the lifetime the broker gives then;
/// ends with the session.
fn reauth_loop(weak: &Weak<Inner>, generation: u64, mut lifetime_ms: i64) {
    loop {
        let due = Instant::now() + reauth_delay(lifetime_ms);
        // sleep in steps, holding the connection only while looking at it
        loop {
            let Some(inner) = weak.upgrade() else { return };
            let st = inner.state.locked();
            if !st.alive || st.generation != generation || inner.dial.locked().shut {
                return;
            }
            let now = Instant::now();
            if now >= due {
                break;
            }
            let _ = inner
                .changed
                .wait_timeout(st, (due - now).min(Duration::from_secs(1)));
        }
        let Some(inner) = weak.upgrade() else { return };
        let log = &inner.cfg.log;
        log::debug!(
            log,
            ctx::SECURITY | ctx::BROKER,
            "SASLREAUTH",
            "{}: Re-authenticating (session lifetime {lifetime_ms} ms)",
            inner.name
        );
        let r = reauthenticate(&inner, generation);
        if let Err(e) = &r {
            let e = Error::local(
                crate::error::local::AUTHENTICATION,
                format!("{}: SASL re-authentication failed: {e}", inner.name),
            );
            inner.fail(generation, e);
        }
        open_gate(&inner);
        match r {
            Ok(l) => {
                log::debug!(
                    log,
                    ctx::SECURITY | ctx::BROKER,
                    "SASLREAUTH",
                    "{}: Re-authenticated (session lifetime {l} ms)",
                    inner.name
                );
                if l <= 0 {
                    return;
                }
                lifetime_ms = l;
            }
            Err(_) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delay_is_85_to_95_percent() {
        for _ in 0..50 {
            let d = reauth_delay(10_000).as_millis();
            assert!((8500..=9500).contains(&d), "{d}");
        }
    }
}
