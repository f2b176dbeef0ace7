//! The OAUTHBEARER token of one client (KIP-255) and its refresh, as
//! librdkafka keeps it (`rd_kafka_oauthbearer_set_token`,
//! `rd_kafka_oauthbearer_set_token_failure`,
//! `rd_kafka_conf_set_oauthbearer_token_refresh_cb`):
//!
//! - every connection of the client authenticates (and re-authenticates,
//!   KIP-368) with the token current at that moment;
//! - a token is refreshed 80 % through its remaining lifetime; after a
//!   failure, the old token (if still valid) stays in use and the next
//!   refresh is 10 s later, as librdkafka;
//! - where the token comes from: `sasl.oauthbearer.token` (fixed, never
//!   refreshed), librdkafka's unsecured JWT
//!   (`enable.sasl.oauthbearer.unsecure.jwt`, made and refreshed by gregor
//!   itself), the OIDC client-credentials grant
//!   (`sasl.oauthbearer.method=oidc`, KIP-768, fetched on the refresher
//!   thread as librdkafka does on its background thread), or the
//!   application: its refresh callback runs inside `poll` on the
//!   application's thread (librdkafka serves the refresh op from its main
//!   queue in `rd_kafka_poll`), or on the refresher thread once
//!   [`OAuthBearer::enable_background_callbacks`] was called (librdkafka's
//!   `rd_kafka_sasl_background_callbacks_enable`; the admin client, which
//!   has no poll, always does this). The callback answers with
//!   [`OAuthBearer::set_token`] or [`OAuthBearer::set_token_failure`];
//!   either may also be called at any time without a callback.
//!
//! A connection waits for a token (on a condition variable, until its setup
//! deadline) instead of failing; once a refresh failed and no valid token is
//! left it fails at once with `_AUTHENTICATION` and the reason, and the
//! connection's reconnect backoff applies. Token values never appear in a
//! `Debug` output, a log line or an error.

use crate::sync::MutexExt;
use std::fmt;
use std::sync::{Arc, Condvar, Mutex, Weak};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

pub use super::oauthbearer::{check_extension_key, OAuthBearerToken};
use super::oauthbearer::{Token, Unsecured};
use crate::config::Config;
use crate::error::{local, Error, Result};
use crate::net::client_events::Events;

/// The application's token refresh callback: gets the client's
/// [`OAuthBearer`] and `sasl.oauthbearer.config`, and answers with
/// [`OAuthBearer::set_token`] or [`OAuthBearer::set_token_failure`].
pub type TokenRefreshCallback = Box<dyn FnMut(&OAuthBearer, &str) + Send>;

/// Where tokens come from.
#[derive(Clone)]
pub enum Source {
    /// `sasl.oauthbearer.token`: used as is, never refreshed.
    Fixed(String),
    /// librdkafka's unsecured JWT, made by gregor.
    Unsecured(Unsecured),
    /// The OIDC client-credentials grant (KIP-768).
    Oidc(super::oidc::Settings),
    /// The application (callback or direct `set_token`).
    App,
}

/// Milliseconds since the epoch, now.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// librdkafka's retry interval after a failed refresh.
const RETRY_AFTER_FAILURE_MS: i64 = 10_000;
/// The refresher looks at the clock at least this often (librdkafka's
/// token refresh timer fires every second).
const TICK: Duration = Duration::from_secs(1);

#[derive(Default)]
struct State {
    token: Option<OAuthBearerToken>,
    /// When the next refresh is due (ms since the epoch); `None`: never.
    refresh_at: Option<i64>,
    /// The `refresh_at` a refresh was last started for (so one is asked
    /// for once per due time, as librdkafka's `wts_enqueued_refresh`).
    started_for: Option<i64>,
    /// The last refresh failure, until a token is set.
    error: Option<String>,
    /// Callbacks run on the refresher thread instead of in `poll`.
    background: bool,
    stop: bool,
    /// Tokens set so far (for tests and statistics: never the value).
    set_count: u64,
}

struct Shared {
    st: Mutex<State>,
    cv: Condvar,
}

struct Holder {
    source: Source,
    /// `sasl.oauthbearer.config`, handed to the callback.
    config: String,
    shared: Arc<Shared>,
    callback: Mutex<Option<TokenRefreshCallback>>,
    events: Mutex<Option<Arc<Events>>>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl Drop for Holder {
    fn drop(&mut self) {
        self.shared.st.locked().stop = true;
        self.shared.cv.notify_all();
        let h = self
            .thread
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(h) = h {
            // the refresher itself may drop the last handle: no self-join
            if h.thread().id() != std::thread::current().id() {
                let _ = h.join();
            }
        }
    }
}

/// One client's OAUTHBEARER token; cheap to clone, thread-safe.
#[derive(Clone)]
pub struct OAuthBearer {
    inner: Arc<Holder>,
}

impl fmt::Debug for OAuthBearer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("OAuthBearer(..)")
    }
}

fn bad_arg(msg: impl Into<String>) -> Error {
    Error::local(local::INVALID_ARG, msg)
}

/// RFC 7628 section 3.1: value = *(VCHAR / SP / HTAB / CR / LF). `what`
/// names the value in the message; with `secret` the value is not quoted.
fn check_value(v: &str, what: &str, secret: bool) -> Result<()> {
    match v
        .bytes()
        .find(|&b| !(matches!(b, 0x21..=0x7e | b' ' | b'\t' | b'\r' | b'\n')))
    {
        None => Ok(()),
        Some(b) => Err(bad_arg(if secret {
            format!(
                "SASL/OAUTHBEARER {what} must only consist of space, horizontal tab, CR, LF, \
                 and visible characters (%x21-7E): byte 0x{b:02x} is not"
            )
        } else {
            format!(
                "SASL/OAUTHBEARER {what} must only consist of space, horizontal tab, CR, LF, \
                 and visible characters (%x21-7E): {v:?}"
            )
        })),
    }
}

impl OAuthBearer {
    /// Reads where tokens come from (`sasl.oauthbearer.method`,
    /// `sasl.oauthbearer.token`, `enable.sasl.oauthbearer.unsecure.jwt`).
    /// Nothing starts until [`OAuthBearer::attach`].
    ///
    /// # Errors
    /// [`Error::Config`] naming a property whose value is unusable.
    pub fn from_config(c: &Config) -> Result<OAuthBearer> {
        let source = if c.str("sasl.oauthbearer.method") == "oidc" {
            Source::Oidc(super::oidc::Settings::from_config(c)?)
        } else if !c.str("sasl.oauthbearer.token").is_empty() {
            Source::Fixed(c.str("sasl.oauthbearer.token").to_string())
        } else if c.bool("enable.sasl.oauthbearer.unsecure.jwt") {
            Source::Unsecured(Unsecured::parse(c.str("sasl.oauthbearer.config"))?)
        } else {
            Source::App
        };
        Ok(OAuthBearer::new(
            source,
            c.str("sasl.oauthbearer.config").to_string(),
        ))
    }

    /// A holder for `source`; `config` is what the callback gets.
    pub fn new(source: Source, config: String) -> OAuthBearer {
        let st = State {
            // a fixed token is there from the start and never refreshed;
            // every other source is refreshed at once
            token: match &source {
                Source::Fixed(t) => Some(OAuthBearerToken {
                    value: t.clone(),
                    lifetime_ms: i64::MAX,
                    principal: String::new(),
                    extensions: Vec::new(),
                }),
                _ => None,
            },
            refresh_at: match &source {
                Source::Fixed(_) => None,
                _ => Some(0),
            },
            ..State::default()
        };
        OAuthBearer {
            inner: Arc::new(Holder {
                source,
                config,
                shared: Arc::new(Shared {
                    st: Mutex::new(st),
                    cv: Condvar::new(),
                }),
                callback: Mutex::new(None),
                events: Mutex::new(None),
                thread: Mutex::new(None),
            }),
        }
    }

    /// Where tokens come from.
    pub fn source(&self) -> &Source {
        &self.inner.source
    }

    /// Starts refreshing for a client whose poll serves `events`: the
    /// unsecured JWT is made at once (as librdkafka does at start); the
    /// first application or OIDC refresh is started. Called once, by the
    /// client's network setup.
    pub fn attach(&self, events: &Arc<Events>) {
        if matches!(self.inner.source, Source::Fixed(_)) {
            return;
        }
        *self.inner.events.locked() = Some(events.clone());
        let weak = Arc::downgrade(&self.inner);
        events.set_poll_task(Some(Arc::new(move || {
            weak.upgrade()
                .map_or(0, |inner| OAuthBearer { inner }.serve_poll())
        })));
        if let Source::Unsecured(u) = &self.inner.source {
            let t = unsecured_token(u);
            let _ = self.set_token(&t.value, t.lifetime_ms, &t.principal, &t.extensions);
        }
        self.start_thread();
    }

    fn start_thread(&self) {
        let mut th = self.inner.thread.locked();
        if th.is_some() {
            return;
        }
        let weak = Arc::downgrade(&self.inner);
        let shared = self.inner.shared.clone();
        *th = std::thread::Builder::new()
            .name("gregor oauthbearer".into())
            .spawn(move || refresher(&weak, &shared))
            .ok();
    }

    /// Sets (or with `None` clears) the application's refresh callback.
    /// Overrides the built-in unsecured-JWT and OIDC refreshers from the
    /// next refresh on.
    pub fn set_refresh_callback(&self, cb: Option<TokenRefreshCallback>) {
        *self.inner.callback.locked() = cb;
        // a refresh that found no callback runs again now
        let mut st = self.inner.shared.st.locked();
        st.started_for = None;
        drop(st);
        self.inner.shared.cv.notify_all();
    }

    /// Runs the refresh callback on gregor's refresher thread instead of
    /// inside `poll` (librdkafka's `rd_kafka_sasl_background_callbacks_enable`).
    pub fn enable_background_callbacks(&self) {
        let mut st = self.inner.shared.st.locked();
        st.background = true;
        st.started_for = None;
        drop(st);
        self.inner.shared.cv.notify_all();
    }

    /// Sets the token every authentication from now on uses, as librdkafka's
    /// `rd_kafka_oauthbearer_set_token`: `lifetime_ms` is when it expires
    /// (ms since the epoch); the next refresh is due 80 % through its
    /// remaining lifetime. Connections waiting for a token go on.
    ///
    /// # Errors
    /// `_INVALID_ARG` for an expired token, a value or extension outside
    /// RFC 7628's grammar, or the reserved extension key `auth` (the
    /// message never contains the token).
    pub fn set_token(
        &self,
        value: &str,
        lifetime_ms: i64,
        principal: &str,
        extensions: &[(String, String)],
    ) -> Result<()> {
        let now = now_ms();
        if lifetime_ms <= now {
            return Err(bad_arg(format!(
                "Must supply an unexpired token: now={now}ms, exp={lifetime_ms}ms"
            )));
        }
        if value.is_empty() {
            return Err(bad_arg("SASL/OAUTHBEARER token must not be empty"));
        }
        check_value(value, "token values", true)?;
        for (k, v) in extensions {
            check_extension_key(k)?;
            check_value(v, "extension values", false)?;
        }
        let mut st = self.inner.shared.st.locked();
        st.token = Some(OAuthBearerToken {
            value: value.to_string(),
            lifetime_ms,
            principal: principal.to_string(),
            extensions: extensions.to_vec(),
        });
        // librdkafka: refresh 80 % through the remaining lifetime
        st.refresh_at = Some(now + ((lifetime_ms - now) as f64 * 0.8) as i64);
        st.error = None;
        st.set_count += 1;
        drop(st);
        self.inner.shared.cv.notify_all();
        Ok(())
    }

    /// Reports that a token could not be had, as librdkafka's
    /// `rd_kafka_oauthbearer_set_token_failure`: a token still valid stays
    /// in use, the next refresh is 10 s later, and an `_AUTHENTICATION`
    /// error event says why (once per distinct reason). Connections waiting
    /// for a token fail with the reason.
    ///
    /// # Errors
    /// `_INVALID_ARG` for an empty reason.
    pub fn set_token_failure(&self, reason: &str) -> Result<()> {
        if reason.is_empty() {
            return Err(bad_arg(
                "set_token_failure needs a reason (a human-readable error string)",
            ));
        }
        let mut st = self.inner.shared.st.locked();
        let changed = st.error.as_deref() != Some(reason);
        st.error = Some(reason.to_string());
        st.refresh_at = Some(now_ms() + RETRY_AFTER_FAILURE_MS);
        drop(st);
        self.inner.shared.cv.notify_all();
        if changed {
            if let Some(ev) = self.inner.events.locked().clone() {
                ev.raise(crate::net::ClientEvent::Error(Error::local(
                    local::AUTHENTICATION,
                    format!("Failed to acquire SASL OAUTHBEARER token: {reason}"),
                )));
            }
        }
        Ok(())
    }

    /// How many tokens were set so far.
    pub fn tokens_set(&self) -> u64 {
        self.inner.shared.st.locked().set_count
    }

    /// The principal and expiry (ms since the epoch) of the current token,
    /// never its value.
    pub fn current_metadata(&self) -> Option<(String, i64)> {
        self.inner
            .shared
            .st
            .locked()
            .token
            .as_ref()
            .map(|t| (t.principal.clone(), t.lifetime_ms))
    }

    /// Waits until a valid token is there or `deadline` passes.
    ///
    /// # Errors
    /// `_AUTHENTICATION` once a refresh failed with no valid token left, or
    /// when none arrived before the deadline (saying how one is set).
    pub fn wait_ready(&self, deadline: Instant) -> Result<()> {
        let mut st = self.inner.shared.st.locked();
        loop {
            let now = now_ms();
            if st.token.as_ref().is_some_and(|t| t.lifetime_ms > now) {
                return Ok(());
            }
            if let Some(e) = &st.error {
                return Err(Error::local(
                    local::AUTHENTICATION,
                    format!("Failed to acquire SASL OAUTHBEARER token: {e}"),
                ));
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                let expired = st.token.is_some();
                return Err(Error::local(
                    local::AUTHENTICATION,
                    if expired {
                        "SASL OAUTHBEARER token expired and no new one was set".to_string()
                    } else {
                        "no SASL OAUTHBEARER token available: the token refresh callback \
                         (served by poll) or the application must call set_token"
                            .to_string()
                    },
                ));
            }
            st = self
                .inner
                .shared
                .cv
                .wait_timeout(st, left.min(TICK))
                .map_or_else(|e| e.into_inner().0, |r| r.0);
        }
    }

    /// The token for an authentication starting now.
    ///
    /// # Errors
    /// As [`OAuthBearer::wait_ready`] with the deadline passed.
    pub fn current(&self) -> Result<Token> {
        self.wait_ready(Instant::now())?;
        let st = self.inner.shared.st.locked();
        let t = st
            .token
            .as_ref()
            .ok_or_else(|| Error::local(local::AUTHENTICATION, "no SASL OAUTHBEARER token"))?;
        Ok(Token {
            value: t.value.clone(),
            extensions: t.extensions.clone(),
        })
    }

    /// Stops the refresher thread (the client is going away).
    pub fn stop(&self) {
        self.inner.shared.st.locked().stop = true;
        self.inner.shared.cv.notify_all();
        let h = self.inner.thread.locked().take();
        if let Some(h) = h {
            if h.thread().id() != std::thread::current().id() {
                let _ = h.join();
            }
        }
    }

    /// Runs the application's callback (inside poll, or on the refresher
    /// thread) while a refresh is due. Returns 1 if it ran. The check is
    /// under the callback's lock: two requests can be waiting for one
    /// poll (as when the callback is set just after the client starts),
    /// or two threads can serve at once, and the first call's token or
    /// failure answers them all.
    fn run_callback(&self) -> usize {
        let mut cb = self.inner.callback.locked();
        {
            let st = self.inner.shared.st.locked();
            if st.refresh_at.is_none_or(|at| at > now_ms()) {
                return 0;
            }
        }
        match cb.as_mut() {
            Some(f) => {
                f(self, &self.inner.config);
                1
            }
            None => 0,
        }
    }

    /// The poll task: runs the callback unless callbacks run in the
    /// background.
    fn serve_poll(&self) -> usize {
        if self.inner.shared.st.locked().background {
            return 0;
        }
        self.run_callback()
    }

    /// One refresh by gregor itself (refresher thread).
    fn refresh_builtin(&self) {
        let has_cb = self.inner.callback.locked().is_some();
        match &self.inner.source {
            _ if has_cb => {
                self.run_callback();
            }
            Source::Unsecured(u) => {
                let t = unsecured_token(u);
                if let Err(e) = self.set_token(&t.value, t.lifetime_ms, &t.principal, &t.extensions)
                {
                    let _ = self.set_token_failure(&e.to_string());
                }
            }
            Source::Oidc(s) => match super::oidc::fetch(s) {
                Ok(t) => {
                    if let Err(e) =
                        self.set_token(&t.value, t.lifetime_ms, &t.principal, &t.extensions)
                    {
                        let _ = self.set_token_failure(&e.to_string());
                    }
                }
                Err(e) => {
                    let _ = self.set_token_failure(&e.to_string());
                }
            },
            Source::Fixed(_) | Source::App => {}
        }
    }
}

fn unsecured_token(u: &Unsecured) -> OAuthBearerToken {
    let now = now_ms();
    OAuthBearerToken {
        value: u.jwt(now),
        lifetime_ms: now + u.life_seconds * 1000,
        principal: u.principal.clone(),
        extensions: u.extensions.clone(),
    }
}

/// The refresher thread: starts each due refresh once, then sleeps until
/// the next is due (or a second, to notice the client going away).
fn refresher(weak: &Weak<Holder>, shared: &Shared) {
    let mut st = shared.st.locked();
    loop {
        if st.stop {
            return;
        }
        let now = now_ms();
        let due = st
            .refresh_at
            .filter(|at| *at <= now && st.started_for != Some(*at));
        if let Some(at) = due {
            st.started_for = Some(at);
            let background = st.background;
            drop(st);
            let Some(inner) = weak.upgrade() else { return };
            let ob = OAuthBearer { inner };
            let builtin = !matches!(ob.inner.source, Source::App);
            if builtin || background {
                ob.refresh_builtin();
            } else if let Some(ev) = ob.inner.events.locked().clone() {
                // the application's callback runs inside its next poll
                ev.request_task();
            }
            drop(ob);
            st = shared.st.locked();
            continue;
        }
        let wait = st
            .refresh_at
            .filter(|at| st.started_for != Some(*at))
            .map_or(TICK, |at| {
                Duration::from_millis((at - now).clamp(1, TICK.as_millis() as i64) as u64)
            });
        st = shared
            .cv
            .wait_timeout(st, wait)
            .map_or_else(|e| e.into_inner().0, |r| r.0);
        if weak.strong_count() == 0 {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ext(k: &str, v: &str) -> Vec<(String, String)> {
        vec![(k.to_string(), v.to_string())]
    }

    #[test]
    fn set_token_validates_as_librdkafka() {
        let ob = OAuthBearer::new(Source::App, String::new());
        let later = now_ms() + 60_000;
        let e = ob.set_token("t", now_ms() - 1, "p", &[]).unwrap_err();
        assert!(e.to_string().contains("unexpired"), "{e}");
        let e = ob
            .set_token("t", later, "p", &ext("auth", "x"))
            .unwrap_err();
        assert!(e.to_string().contains("reserved `auth`"), "{e}");
        let e = ob.set_token("t", later, "p", &ext("a1", "x")).unwrap_err();
        assert!(e.to_string().contains("A-Z"), "{e}");
        let e = ob.set_token("t", later, "p", &ext("", "x")).unwrap_err();
        assert!(e.to_string().contains("empty"), "{e}");
        let e = ob
            .set_token("t", later, "p", &ext("a", "\x01"))
            .unwrap_err();
        assert!(e.to_string().contains("extension values"), "{e}");
        // a bad token value is refused without being quoted
        let e = ob
            .set_token("SECRET\u{7f}TOKEN", later, "p", &[])
            .unwrap_err();
        assert!(!e.to_string().contains("SECRET"), "{e}");
        assert_eq!(e.code(), local::INVALID_ARG);
        assert!(ob.wait_ready(Instant::now()).is_err());
        ob.set_token("tok", later, "p", &ext("traceId", "a b\tc"))
            .unwrap();
        let t = ob.current().unwrap();
        assert_eq!(t.value, "tok");
        assert!(!format!("{t:?}").contains("tok\""), "{t:?}");
        let meta = ob.current_metadata().unwrap();
        assert_eq!(meta, ("p".to_string(), later));
        assert!(ob.set_token_failure("").is_err());
    }

    #[test]
    fn failure_fails_waiters_and_token_arrival_wakes_them() {
        let ob = OAuthBearer::new(Source::App, String::new());
        let ob2 = ob.clone();
        let t = std::thread::spawn(move || {
            let t0 = Instant::now();
            let r = ob2.wait_ready(Instant::now() + Duration::from_secs(10));
            (r, t0.elapsed())
        });
        std::thread::sleep(Duration::from_millis(50));
        ob.set_token("tok", now_ms() + 60_000, "p", &[]).unwrap();
        let (r, took) = t.join().unwrap();
        r.unwrap();
        assert!(took < Duration::from_secs(2), "{took:?}");
        let ob = OAuthBearer::new(Source::App, String::new());
        ob.set_token_failure("idp down").unwrap();
        let e = ob
            .wait_ready(Instant::now() + Duration::from_secs(10))
            .unwrap_err();
        assert_eq!(e.code(), local::AUTHENTICATION);
        assert!(e.to_string().contains("idp down"), "{e}");
    }

    #[test]
    fn background_callback_runs_at_start_and_at_80_percent() {
        let ob = OAuthBearer::new(Source::App, "cfg-string".into());
        let calls = Arc::new(Mutex::new(Vec::<(Instant, String)>::new()));
        let c2 = calls.clone();
        ob.enable_background_callbacks();
        ob.set_refresh_callback(Some(Box::new(move |ob, cfg| {
            c2.lock().unwrap().push((Instant::now(), cfg.to_string()));
            // a 3-second token: the next refresh is due after 2.4 s, and
            // a loaded machine has 600 ms before the token expires
            ob.set_token("tok", now_ms() + 3000, "p", &[]).unwrap();
        })));
        let t0 = Instant::now();
        ob.attach(&Events::new());
        while calls.lock().unwrap().len() < 2 && t0.elapsed() < Duration::from_secs(15) {
            std::thread::sleep(Duration::from_millis(10));
        }
        let calls = calls.lock().unwrap().clone();
        assert!(calls.len() >= 2, "{}", calls.len());
        assert_eq!(calls[0].1, "cfg-string");
        let gap = calls[1].0 - calls[0].0;
        assert!(
            gap >= Duration::from_millis(2100) && gap < Duration::from_millis(3000),
            "{gap:?}"
        );
        ob.stop();
    }
}
