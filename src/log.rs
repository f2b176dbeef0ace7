//! Logging as librdkafka does it: syslog levels 0–7 (`log_level`, default 6),
//! `debug` contexts (librdkafka's names and bits: `generic`, `broker`, …,
//! `all`) that enable the level-7 lines of their context, and one sink per
//! client: stderr in librdkafka's format by default,
//!
//! ```text
//! %7|1700000000.123|CONNECT|gregor#producer-1| [thrd:127.0.0.1:9092/bootstrap]: 127.0.0.1:9092/bootstrap: Connected (ApiVersions v3)
//! ```
//!
//! (`%level|seconds.millis|FACILITY|client name| message`, librdkafka's
//! `rd_kafka_log_print`), or a callback set on the configuration
//! ([`LogCallback`], librdkafka's `rd_kafka_conf_set_log_cb`), so lines
//! written while the client is being created reach it too. The callback runs
//! on the thread that logs — one of gregor's threads — unless `log.queue` is
//! true: then lines wait in a bounded queue and are handed to the callback by
//! the client's `poll` / `flush` on the application's thread, as librdkafka's
//! log queue forwarded to the main queue (what confluent-kafka does for a
//! Python `logger`).
//!
//! Logging that is off costs a comparison of two plain fields held in the
//! [`Logger`] itself (no atomic, no pointer chase, no allocation): the
//! macros `debug!` and `at!` test them before any formatting. Messages
//! never carry a secret: call sites log names, addresses, codes and states,
//! never passwords, tokens or keys.

use crate::sync::MutexExt;
use std::collections::VecDeque;
use std::fmt;
use std::io::Write;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

/// Syslog levels (syslog(3)), as librdkafka's `log_level`.
///
/// cbindgen:ignore
pub mod level {
    /// System is unusable.
    pub const EMERG: i32 = 0;
    /// Action must be taken immediately.
    pub const ALERT: i32 = 1;
    /// Critical conditions.
    pub const CRIT: i32 = 2;
    /// Error conditions.
    pub const ERR: i32 = 3;
    /// Warning conditions.
    pub const WARNING: i32 = 4;
    /// Normal but significant condition.
    pub const NOTICE: i32 = 5;
    /// Informational.
    pub const INFO: i32 = 6;
    /// Debug-level messages (the `debug` contexts).
    pub const DEBUG: i32 = 7;
}

/// The `debug` contexts, librdkafka's `RD_KAFKA_DBG_*` bits.
///
/// cbindgen:ignore
pub mod ctx {
    /// `generic`
    pub const GENERIC: u32 = 0x1;
    /// `broker`: connections, their state and failures.
    pub const BROKER: u32 = 0x2;
    /// `topic`: partition leaders.
    pub const TOPIC: u32 = 0x4;
    /// `metadata`: metadata requests and answers.
    pub const METADATA: u32 = 0x8;
    /// `feature`: API versions / protocol features.
    pub const FEATURE: u32 = 0x10;
    /// `queue`
    pub const QUEUE: u32 = 0x20;
    /// `msg`: produced message sets, their errors and retries.
    pub const MSG: u32 = 0x40;
    /// `protocol`: requests and retries.
    pub const PROTOCOL: u32 = 0x80;
    /// `cgrp`: consumer group states.
    pub const CGRP: u32 = 0x100;
    /// `security`: TLS and SASL.
    pub const SECURITY: u32 = 0x200;
    /// `fetch`: fetch requests and their errors.
    pub const FETCH: u32 = 0x400;
    /// `interceptor`
    pub const INTERCEPTOR: u32 = 0x800;
    /// `plugin`
    pub const PLUGIN: u32 = 0x1000;
    /// `consumer`
    pub const CONSUMER: u32 = 0x2000;
    /// `admin`
    pub const ADMIN: u32 = 0x4000;
    /// `eos`: idempotence and transactions.
    pub const EOS: u32 = 0x8000;
    /// `mock`
    pub const MOCK: u32 = 0x10000;
    /// `assignor`
    pub const ASSIGNOR: u32 = 0x20000;
    /// `conf`
    pub const CONF: u32 = 0x40000;
    /// `telemetry`
    pub const TELEMETRY: u32 = 0x80000;
    /// `all`
    pub const ALL: u32 = 0xfffff;
}

/// The `debug` context names with their bits, in librdkafka's order.
///
/// cbindgen:ignore
pub const CONTEXTS: &[(&str, u32)] = &[
    ("generic", ctx::GENERIC),
    ("broker", ctx::BROKER),
    ("topic", ctx::TOPIC),
    ("metadata", ctx::METADATA),
    ("feature", ctx::FEATURE),
    ("queue", ctx::QUEUE),
    ("msg", ctx::MSG),
    ("protocol", ctx::PROTOCOL),
    ("cgrp", ctx::CGRP),
    ("security", ctx::SECURITY),
    ("fetch", ctx::FETCH),
    ("interceptor", ctx::INTERCEPTOR),
    ("plugin", ctx::PLUGIN),
    ("consumer", ctx::CONSUMER),
    ("admin", ctx::ADMIN),
    ("eos", ctx::EOS),
    ("mock", ctx::MOCK),
    ("assignor", ctx::ASSIGNOR),
    ("conf", ctx::CONF),
    ("telemetry", ctx::TELEMETRY),
    ("all", ctx::ALL),
];

/// Parses a `debug` value (comma-separated context names, librdkafka's CSV
/// flags; blanks around names ignored, an empty value is no context).
///
/// # Errors
/// The first name that is not a context, and the names that are.
pub fn parse_debug(value: &str) -> Result<u32, String> {
    let mut mask = 0;
    for name in value.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let lower = name.to_ascii_lowercase();
        match CONTEXTS.iter().find(|(n, _)| *n == lower) {
            Some((_, bit)) => mask |= bit,
            None => {
                let all: Vec<&str> = CONTEXTS.iter().map(|(n, _)| *n).collect();
                return Err(format!(
                    "\"{name}\" is not a debug context (one of {})",
                    all.join(", ")
                ));
            }
        }
    }
    Ok(mask)
}

/// A log callback: gets (level, facility, client name, message) for each
/// line, the message as librdkafka's log callback gets it (with the
/// `[thrd:NAME]: ` prefix unless `log.thread.name` is false). Set on the
/// configuration, it is shared by every client made from it.
#[derive(Clone)]
pub struct LogCallback(Arc<LogFn>);

/// The function a [`LogCallback`] wraps: (level, facility, name, message).
type LogFn = dyn Fn(i32, &str, &str, &str) + Send + Sync;

impl LogCallback {
    /// Wraps a function as a log callback.
    pub fn new(f: impl Fn(i32, &str, &str, &str) + Send + Sync + 'static) -> Self {
        LogCallback(Arc::new(f))
    }

    fn call(&self, level: i32, fac: &str, name: &str, buf: &str) {
        // A panicking callback must not take a gregor thread down with it.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            (self.0)(level, fac, name, buf)
        }));
    }
}

impl fmt::Debug for LogCallback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("LogCallback")
    }
}

/// What a client's logger is made from: the `log_level`, `debug`,
/// `log.thread.name`, `log.connection.close` and `log.queue` properties and
/// the configuration's callback.
#[derive(Debug, Clone)]
pub struct LogSettings {
    /// `log_level` (0–7).
    pub level: i32,
    /// `debug`, as a mask of [`ctx`] bits.
    pub debug: u32,
    /// `log.thread.name`.
    pub thread_name: bool,
    /// `log.connection.close`.
    pub connection_close: bool,
    /// `log.queue`.
    pub queue: bool,
    /// The callback, if any (else stderr).
    pub callback: Option<LogCallback>,
}

impl Default for LogSettings {
    fn default() -> Self {
        LogSettings {
            level: level::INFO,
            debug: 0,
            thread_name: true,
            connection_close: true,
            queue: false,
            callback: None,
        }
    }
}

/// Most lines `log.queue` holds until the application polls; later lines
/// are counted and dropped, and the count is logged when the queue is
/// served (librdkafka's queue is unbounded; a client nobody polls must not
/// grow without bound).
///
/// cbindgen:ignore
pub const QUEUE_MAX: usize = 10_000;

struct Queued {
    level: i32,
    fac: &'static str,
    buf: String,
}

#[derive(Default)]
struct Queue {
    lines: VecDeque<Queued>,
    dropped: u64,
}

struct Inner {
    name: String,
    thread_name: bool,
    connection_close: bool,
    callback: Option<LogCallback>,
    queue: Option<Mutex<Queue>>,
}

/// A client's logger: cheap to clone (the clones share the sink). The level
/// and the debug mask are plain fields of the handle, so the check that
/// skips a disabled line reads no shared memory.
#[derive(Clone)]
pub struct Logger {
    level: i32,
    debug: u32,
    inner: Arc<Inner>,
}

impl fmt::Debug for Logger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Logger")
            .field("name", &self.inner.name)
            .field("level", &self.level)
            .field("debug", &format_args!("{:#x}", self.debug))
            .finish()
    }
}

/// librdkafka numbers its handles from one counter shared by every kind.
static NEXT_ID: AtomicU32 = AtomicU32::new(1);

impl Logger {
    /// The logger of a new client of `kind` ("producer" or "consumer", as
    /// librdkafka's `rd_kafka_type2str`), named `<client.id>#<kind>-<n>` as
    /// librdkafka names its handles. A `debug` context raises the level to
    /// 7, as librdkafka's `rd_kafka_new` does.
    pub fn new(settings: &LogSettings, client_id: &str, kind: &str) -> Logger {
        let n = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let level = if settings.debug != 0 {
            level::DEBUG
        } else {
            settings.level.clamp(level::EMERG - 1, level::DEBUG)
        };
        Logger {
            level,
            debug: settings.debug,
            inner: Arc::new(Inner {
                name: format!("{client_id}#{kind}-{n}"),
                thread_name: settings.thread_name,
                connection_close: settings.connection_close,
                callback: settings.callback.clone(),
                queue: settings.queue.then(|| Mutex::new(Queue::default())),
            }),
        }
    }

    /// A logger that writes nothing (for pieces used without a client).
    pub fn off() -> Logger {
        Logger {
            level: -1,
            debug: 0,
            inner: Arc::new(Inner {
                name: String::new(),
                thread_name: false,
                connection_close: false,
                callback: None,
                queue: None,
            }),
        }
    }

    /// The client's name, e.g. `gregor#producer-1`.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// True if a line at `level` (not a debug context line) is written.
    #[inline(always)]
    pub fn enabled(&self, level: i32) -> bool {
        level <= self.level
    }

    /// True if one of the `debug` contexts in `mask` is on.
    #[inline(always)]
    pub fn debug_on(&self, mask: u32) -> bool {
        self.debug & mask != 0
    }

    /// `log.connection.close`: whether a broker closing an idle connection
    /// is logged as an error (else only with the `broker` context).
    pub fn connection_close(&self) -> bool {
        self.inner.connection_close
    }

    /// Writes one line (the caller checked [`Logger::enabled`] or
    /// [`Logger::debug_on`]; the macros do).
    #[cold]
    #[inline(never)]
    pub fn write(&self, level: i32, fac: &'static str, args: fmt::Arguments<'_>) {
        let mut buf = String::with_capacity(128);
        if self.inner.thread_name {
            let t = std::thread::current();
            // gregor's threads by their name ("gregor 127.0.0.1:9092/1" ->
            // "127.0.0.1:9092/1"); an application's thread is "app", as
            // librdkafka shows it
            let name = t
                .name()
                .and_then(|n| n.strip_prefix("gregor "))
                .unwrap_or("app");
            let _ = fmt::write(&mut buf, format_args!("[thrd:{name}]: "));
        }
        let _ = fmt::write(&mut buf, args);
        if let Some(q) = &self.inner.queue {
            let mut q = q.locked();
            if q.lines.len() < QUEUE_MAX {
                q.lines.push_back(Queued { level, fac, buf });
            } else {
                q.dropped += 1;
            }
            return;
        }
        self.deliver(level, fac, &buf);
    }

    fn deliver(&self, level: i32, fac: &str, buf: &str) {
        match &self.inner.callback {
            Some(cb) => cb.call(level, fac, &self.inner.name, buf),
            None => print_stderr(level, fac, &self.inner.name, buf),
        }
    }

    /// With `log.queue`: hands the queued lines to the sink on this thread
    /// (the client's `poll` / `flush` call it); returns how many. Without
    /// `log.queue`, does nothing.
    pub fn serve(&self) -> usize {
        let Some(q) = &self.inner.queue else { return 0 };
        let (lines, dropped) = {
            let mut q = q.locked();
            if q.lines.is_empty() && q.dropped == 0 {
                return 0;
            }
            (std::mem::take(&mut q.lines), std::mem::take(&mut q.dropped))
        };
        let n = lines.len();
        for l in lines {
            self.deliver(l.level, l.fac, &l.buf);
        }
        if dropped > 0 {
            self.deliver(
                level::WARNING,
                "LOGQ",
                &format!("{dropped} log line(s) dropped: more than {QUEUE_MAX} waited for poll"),
            );
        }
        n
    }
}

/// librdkafka's `rd_kafka_log_print`: one line on stderr.
pub fn print_stderr(level: i32, fac: &str, name: &str, buf: &str) {
    let t = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "%{level}|{}.{:03}|{fac}|{name}| {buf}",
        t.as_secs(),
        t.subsec_millis()
    );
}

/// A level-7 line of debug context(s) `$ctx` (a [`ctx`] mask), formatted
/// only when one of them is on: `log::debug!(logger, ctx::BROKER,
/// "CONNECT", "{name}: Connecting")`.
macro_rules! debug {
    ($log:expr, $ctx:expr, $fac:expr, $($arg:tt)+) => {{
        let l: &$crate::log::Logger = &$log;
        if l.debug_on($ctx) {
            l.write($crate::log::level::DEBUG, $fac, format_args!($($arg)+));
        }
    }};
}

/// A line at `$level` (a [`level`] constant), formatted only when the
/// logger's level lets it through: `log::at!(logger, level::WARNING,
/// "FAIL", "…")`.
macro_rules! at {
    ($log:expr, $level:expr, $fac:expr, $($arg:tt)+) => {{
        let l: &$crate::log::Logger = &$log;
        let lvl: i32 = $level;
        if l.enabled(lvl) {
            l.write(lvl, $fac, format_args!($($arg)+));
        }
    }};
}

pub(crate) use {at, debug};

#[cfg(test)]
mod tests {
    use super::*;

    type Captured = Arc<Mutex<Vec<(i32, String, String, String)>>>;

    fn capture(settings: &mut LogSettings) -> Captured {
        let lines = Arc::new(Mutex::new(Vec::new()));
        let l2 = lines.clone();
        settings.callback = Some(LogCallback::new(move |lvl, fac, name, buf| {
            l2.lock()
                .unwrap()
                .push((lvl, fac.to_string(), name.to_string(), buf.to_string()));
        }));
        lines
    }

    #[test]
    fn debug_contexts_parse_as_librdkafka() {
        assert_eq!(parse_debug("").unwrap(), 0);
        assert_eq!(parse_debug("all").unwrap(), ctx::ALL);
        assert_eq!(
            parse_debug("broker, topic,msg").unwrap(),
            ctx::BROKER | ctx::TOPIC | ctx::MSG
        );
        assert_eq!(parse_debug("CGRP").unwrap(), ctx::CGRP);
        let e = parse_debug("broker,brokers").unwrap_err();
        assert!(e.contains("\"brokers\"") && e.contains("telemetry"), "{e}");
        assert_eq!(CONTEXTS.len(), 21);
    }

    #[test]
    fn levels_and_contexts_gate_lines() {
        let mut s = LogSettings::default();
        let lines = capture(&mut s);
        let l = Logger::new(&s, "gregor", "producer");
        assert!(l.name().starts_with("gregor#producer-"), "{}", l.name());
        debug!(l, ctx::BROKER, "CONNECT", "not written {}", 1);
        at!(l, level::DEBUG, "X", "not written");
        at!(l, level::INFO, "INFO", "written {}", 2);
        at!(l, level::ERR, "FAIL", "written {}", 3);
        {
            let v = lines.lock().unwrap();
            assert_eq!(v.len(), 2, "{v:?}");
            assert_eq!(v[0].0, 6);
            assert_eq!(v[0].1, "INFO");
            assert!(v[0].3.starts_with("[thrd:"), "{}", v[0].3);
            assert!(v[0].3.ends_with("]: written 2"), "{}", v[0].3);
        }
        // a debug context raises the level to 7 and lets its lines through
        let mut s = LogSettings {
            debug: ctx::CGRP,
            level: 3,
            thread_name: false,
            ..Default::default()
        };
        let lines = capture(&mut s);
        let l = Logger::new(&s, "me", "consumer");
        debug!(l, ctx::BROKER, "CONNECT", "not written");
        debug!(l, ctx::CGRP | ctx::BROKER, "CGRPSTATE", "written");
        at!(l, level::INFO, "INFO", "written too");
        let v = lines.lock().unwrap();
        assert_eq!(v.len(), 2, "{v:?}");
        assert_eq!(
            (v[0].0, v[0].1.as_str(), v[0].3.as_str()),
            (7, "CGRPSTATE", "written")
        );
        assert!(v[0].2.starts_with("me#consumer-"));
    }

    #[test]
    fn disabled_lines_do_not_format() {
        struct Boom;
        impl fmt::Display for Boom {
            fn fmt(&self, _: &mut fmt::Formatter<'_>) -> fmt::Result {
                panic!("formatted while disabled")
            }
        }
        let l = Logger::new(&LogSettings::default(), "gregor", "producer");
        debug!(l, ctx::ALL, "X", "{}", Boom);
        at!(l, level::DEBUG, "X", "{}", Boom);
        let off = Logger::off();
        at!(off, level::EMERG, "X", "{}", Boom);
    }

    #[test]
    fn log_queue_holds_lines_until_served_and_is_bounded() {
        let mut s = LogSettings {
            queue: true,
            ..Default::default()
        };
        let lines = capture(&mut s);
        let l = Logger::new(&s, "gregor", "producer");
        for i in 0..QUEUE_MAX + 5 {
            at!(l, level::INFO, "Q", "line {i}");
        }
        assert!(lines.lock().unwrap().is_empty());
        assert_eq!(l.serve(), QUEUE_MAX);
        let v = lines.lock().unwrap();
        assert_eq!(v.len(), QUEUE_MAX + 1);
        assert!(
            v[QUEUE_MAX].3.starts_with("5 log line(s) dropped"),
            "{:?}",
            v[QUEUE_MAX]
        );
        drop(v);
        assert_eq!(l.serve(), 0);
    }

    #[test]
    fn a_panicking_callback_is_contained() {
        let s = LogSettings {
            callback: Some(LogCallback::new(|_, _, _, _| panic!("callback"))),
            ..Default::default()
        };
        let l = Logger::new(&s, "gregor", "producer");
        at!(l, level::ERR, "X", "line");
    }
}
