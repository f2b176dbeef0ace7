//! Polling: [`Consumer::poll`] and [`Consumer::poll_batch`], the loop
//! that takes messages, events and rebalances off the consumer's queue, and
//! the event-loop trigger (librdkafka's `rd_kafka_queue_cb_event_enable` /
//! `_io_event_enable` on the consumer queue).

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::state::Next;
use super::Consumer;
use crate::error::{local, Error, Result};
use crate::message::Message;

impl Consumer {
    /// The next message, or an error/event as a message with `error` set;
    /// `Ok(None)` if nothing arrived within `timeout`.
    ///
    /// # Errors
    /// `_STATE` once the consumer is closed. Per-partition problems come
    /// back as messages with `error` set, as librdkafka does.
    pub fn poll(&self, timeout: Duration) -> Result<Option<Message>> {
        self.poll_with(timeout, false)
    }

    /// As [`Consumer::poll`], but a client-level error (what the error
    /// callback would get: `_TRANSPORT`, `_ALL_BROKERS_DOWN`, …) comes
    /// back as a message with `error` set and no topic instead of going to
    /// the callback: librdkafka's event interface, where a poll of the
    /// consumer queue (`rd_kafka_queue_poll`) gives such an error as an
    /// `RD_KAFKA_EVENT_ERROR` and `error_cb` is not called.
    ///
    /// # Errors
    /// As [`Consumer::poll`].
    pub fn poll_errors(&self, timeout: Duration) -> Result<Option<Message>> {
        self.poll_with(timeout, true)
    }

    fn poll_with(&self, timeout: Duration, errors: bool) -> Result<Option<Message>> {
        let mut got = None;
        self.poll_into(timeout, errors, 1, &mut |m| got = Some(m))?;
        Ok(got)
    }

    /// Up to `max` messages (per-partition errors and events among them,
    /// in their order) into `out`, waiting up to `timeout` for the first
    /// and not at all for the rest: what `max` calls of [`Consumer::poll`]
    /// in a row would return, for one round of a poll's housekeeping (log
    /// lines, statistics, the event trigger) and one taking of the
    /// consumer's lock. Returns how many it added; 0 when the time ran out.
    ///
    /// # Errors
    /// As [`Consumer::poll`].
    pub fn poll_batch(
        &self,
        timeout: Duration,
        max: usize,
        out: &mut std::collections::VecDeque<Message>,
    ) -> Result<usize> {
        let before = out.len();
        self.poll_into(timeout, false, max.max(1), &mut |m| out.push_back(m))?;
        Ok(out.len() - before)
    }

    fn poll_into(
        &self,
        timeout: Duration,
        errors: bool,
        max: usize,
        out: &mut dyn FnMut(Message),
    ) -> Result<()> {
        // log.queue: queued log lines go to the callback here, on this thread
        let log = self.cluster.log();
        log.serve();
        let r = match &self.group {
            Some(g) => {
                g.poll_mark(true);
                let r = self.poll_inner(timeout, errors, max, out);
                g.poll_mark(false);
                r
            }
            None => self.poll_inner(timeout, errors, max, out),
        };
        log.serve();
        self.after_poll();
        r
    }

    /// A `poll` returned: consumes the outstanding event-loop trigger, and
    /// runs it again if something is still queued.
    fn after_poll(&self) {
        if !self.shared.wakeup.enabled() {
            // no trigger: nothing to consume or run again (and no lock
            // taken a second time on every poll)
            return;
        }
        let st = self.shared.lock();
        let more = st.maybe_more() || self.cluster.events().pending();
        self.shared.wakeup.served(more);
    }

    /// Sets (or with `None` removes) the event-loop trigger: it runs when
    /// the consumer's queue (messages, partition and consumer errors,
    /// rebalances, commit results, client events) goes from empty to
    /// non-empty, and again after a [`Consumer::poll`] that left something
    /// queued (one message per poll: an application that polls once per
    /// trigger never polls in vain). librdkafka's
    /// `rd_kafka_queue_cb_event_enable` on the consumer queue. It may run on
    /// a gregor thread holding internal locks: it must only signal, never
    /// call the consumer.
    pub fn set_event_trigger(&self, trigger: Option<crate::net::wakeup::Trigger>) {
        let st = self.shared.lock();
        let pending = st.maybe_more() || self.cluster.events().pending();
        self.shared.wakeup.set(trigger, pending);
    }

    /// The io-event form of [`Consumer::set_event_trigger`]
    /// (`rd_kafka_queue_io_event_enable`): writes `payload` to `out` at each
    /// trigger; write errors are ignored.
    pub fn set_io_event<W: std::io::Write + Send + 'static>(&self, out: W, payload: Vec<u8>) {
        self.set_event_trigger(Some(crate::net::wakeup::writer_trigger(out, payload)));
    }

    /// Wakes a [`Consumer::poll`] blocked on another thread: it returns
    /// `Ok(None)` as if its timeout ran out; nothing else changes. With no
    /// poll waiting, the next one that would wait returns at once
    /// (`rd_kafka_queue_yield`).
    pub fn yield_now(&self) {
        let mut st = self.shared.lock();
        st.yielded = true;
        self.shared.data.notify_all();
        drop(st);
    }

    /// The loop of a poll; `errors`: a client-level error comes back as a
    /// message (see [`Consumer::poll_errors`]).
    fn poll_inner(
        &self,
        timeout: Duration,
        errors: bool,
        max: usize,
        out: &mut dyn FnMut(Message),
    ) -> Result<()> {
        let s = &self.shared.settings;
        self.emit_stats();
        let mut st = self.shared.lock();
        let mut deadline = None;
        let events = self.cluster.events();
        loop {
            if events.pending() {
                drop(st);
                if let Some(e) = errors.then(|| events.take_error()).flatten() {
                    out(Message::event(Arc::from(""), -1, -1, e));
                    return Ok(());
                }
                events.serve();
                st = self.shared.lock();
                continue;
            }
            if let Some(ev) = st.group_events.pop_front() {
                drop(st);
                self.serve(ev);
                st = self.shared.lock();
                continue;
            }
            let mut freed = false;
            match st.next(s.max_buffered, &s.decode, &mut freed) {
                Next::Message(m) => {
                    out(m);
                    // the rest that are ready now, under the same lock
                    for _ in 1..max {
                        match st.next(s.max_buffered, &s.decode, &mut freed) {
                            Next::Message(m) => out(m),
                            Next::Empty => break,
                        }
                    }
                    if freed {
                        self.shared.work.notify_all();
                    }
                    return Ok(());
                }
                Next::Empty => {
                    if freed {
                        self.shared.work.notify_all();
                    }
                    if st.closed {
                        return Err(Error::local(local::STATE, "the consumer is closed"));
                    }
                    let dl = *deadline.get_or_insert_with(|| Instant::now() + timeout);
                    let now = Instant::now();
                    if now >= dl {
                        return Ok(());
                    }
                    if st.yielded {
                        st.yielded = false;
                        return Ok(());
                    }
                    if self.stats.is_due() {
                        drop(st);
                        self.emit_stats();
                        st = self.shared.lock();
                        continue;
                    }
                    st.waiting += 1;
                    st = self
                        .shared
                        .data
                        .wait_timeout(st, self.stats.wake_by(dl).saturating_duration_since(now))
                        .map_or_else(|e| e.into_inner().0, |r| r.0);
                    st.waiting -= 1;
                }
            }
        }
    }
}
