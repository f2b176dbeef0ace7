//! Event-loop integration of a client's queue (librdkafka's
//! `rd_kafka_queue_io_event_enable` / `rd_kafka_queue_cb_event_enable`):
//! a trigger that runs when the queue the application polls (delivery
//! reports, messages, rebalances, client events) goes from empty to
//! non-empty, so an epoll / asyncio / fiber loop learns that `poll` has
//! something without calling it.
//!
//! The trigger is edge-like with a re-arm: it runs once when something is
//! queued and no trigger is outstanding; a `poll` consumes the outstanding
//! trigger when it returns and, if it left something queued (a consumer's
//! `poll` returns one message), runs it again. An application that polls
//! once per trigger therefore never polls in vain and never misses an item.
//! Queuing code calls [`Wakeup::signal`] while holding the lock of the queue
//! it pushed to, and `poll` calls [`Wakeup::served`] under the same lock, so
//! the decision is exact for each queue.
//!
//! The trigger may run on a gregor thread with the client's internal locks
//! held: it must only signal (write an fd, wake a loop) and never call back
//! into the client, as librdkafka asks of its event callbacks.

use crate::sync::MutexExt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// What runs when the client's queue becomes non-empty.
pub type Trigger = Arc<dyn Fn() + Send + Sync>;

#[derive(Default)]
struct State {
    trigger: Option<Trigger>,
    /// A trigger ran and no `poll` consumed it yet.
    outstanding: bool,
}

/// One client's trigger and its outstanding flag.
#[derive(Default)]
pub struct Wakeup {
    state: Mutex<State>,
    /// Whether a trigger is set, readable without the lock: without one,
    /// [`Wakeup::signal`] and [`Wakeup::served`] have nothing to do (the
    /// common case, checked once per message and per `poll`).
    enabled: AtomicBool,
}

impl std::fmt::Debug for Wakeup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let st = self.lock();
        f.debug_struct("Wakeup")
            .field("enabled", &st.trigger.is_some())
            .field("outstanding", &st.outstanding)
            .finish()
    }
}

impl Wakeup {
    /// A new wakeup without a trigger.
    pub fn new() -> Arc<Wakeup> {
        Arc::new(Wakeup::default())
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.locked()
    }

    /// Sets (or with `None` removes) the trigger. `pending`: the queue holds
    /// something now, so the new trigger runs at once.
    pub fn set(&self, trigger: Option<Trigger>, pending: bool) {
        let run = {
            let mut st = self.lock();
            self.enabled.store(trigger.is_some(), Ordering::Release);
            st.trigger = trigger;
            st.outstanding = false;
            if pending && st.trigger.is_some() {
                st.outstanding = true;
                st.trigger.clone()
            } else {
                None
            }
        };
        if let Some(t) = run {
            t();
        }
    }

    /// True if a trigger is set.
    pub fn enabled(&self) -> bool {
        self.enabled.load(Ordering::Acquire)
    }

    /// Something was queued: runs the trigger unless one is outstanding.
    pub fn signal(&self) {
        if !self.enabled() {
            return;
        }
        let run = {
            let mut st = self.lock();
            if st.outstanding {
                return;
            }
            let Some(t) = st.trigger.clone() else {
                return;
            };
            st.outstanding = true;
            t
        };
        run();
    }

    /// A `poll` returned: the outstanding trigger is consumed; if the queue
    /// still holds something (`more`), the trigger runs again.
    pub fn served(&self, more: bool) {
        if !self.enabled() {
            // no trigger: nothing outstanding (removing one clears it)
            return;
        }
        self.lock().outstanding = false;
        if more {
            self.signal();
        }
    }

    /// Runs the trigger whatever the state (a yield with an empty queue,
    /// so a loop waiting on the fd wakes too, as `rd_kafka_queue_yield`).
    pub fn kick(&self) {
        let run = self.lock().trigger.clone();
        if let Some(t) = run {
            t();
        }
    }
}

/// A trigger that writes `payload` to `out` each time it runs (the io-event
/// form, `rd_kafka_queue_io_event_enable`). Errors are ignored: a full pipe
/// or a saturated eventfd means a wakeup is pending already.
pub fn writer_trigger<W: std::io::Write + Send + 'static>(out: W, payload: Vec<u8>) -> Trigger {
    let out = Mutex::new(out);
    Arc::new(move || {
        let mut w = out.locked();
        let _ = w.write_all(&payload);
        let _ = w.flush();
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn counter() -> (Arc<AtomicUsize>, Trigger) {
        let n = Arc::new(AtomicUsize::new(0));
        let n2 = n.clone();
        (
            n,
            Arc::new(move || {
                n2.fetch_add(1, Ordering::SeqCst);
            }),
        )
    }

    #[test]
    fn one_trigger_until_served_then_rearm() {
        let w = Wakeup::new();
        let (n, t) = counter();
        w.signal(); // no trigger yet: nothing
        w.set(Some(t), false);
        assert_eq!(n.load(Ordering::SeqCst), 0);
        w.signal();
        w.signal();
        assert_eq!(
            n.load(Ordering::SeqCst),
            1,
            "outstanding: no second trigger"
        );
        w.served(true);
        assert_eq!(n.load(Ordering::SeqCst), 2, "left something: runs again");
        w.served(false);
        assert_eq!(n.load(Ordering::SeqCst), 2);
        w.signal();
        assert_eq!(n.load(Ordering::SeqCst), 3);
        w.set(None, true);
        w.served(true);
        w.signal();
        assert_eq!(n.load(Ordering::SeqCst), 3, "disabled");
    }

    #[test]
    fn writer_trigger_writes_the_payload() {
        let buf = Arc::new(Mutex::new(Vec::new()));
        struct Shared(Arc<Mutex<Vec<u8>>>);
        impl std::io::Write for Shared {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let w = Wakeup::new();
        w.set(
            Some(writer_trigger(Shared(buf.clone()), b"xy".to_vec())),
            false,
        );
        w.signal();
        w.served(true);
        assert_eq!(&*buf.lock().unwrap(), b"xyxy");
    }

    #[test]
    fn enabling_with_a_pending_queue_triggers_at_once() {
        let w = Wakeup::new();
        let (n, t) = counter();
        w.set(Some(t), true);
        assert_eq!(n.load(Ordering::SeqCst), 1);
        w.kick();
        assert_eq!(n.load(Ordering::SeqCst), 2);
    }
}
