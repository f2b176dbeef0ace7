//! Event queues, `rd_kafka_queue_t` of rdkafka.h: `rd_kafka_queue_new`,
//! `_destroy`, `_poll`, `_poll_callback`, `_length`, `_get_main`,
//! `_get_background`, `_get_consumer`, `_cb_event_enable`,
//! `_io_event_enable`.
//!
//! A queue is a FIFO of [`Event`]s behind a mutex, with a condition
//! variable that `rd_kafka_queue_poll` waits on (no busy loop). The
//! `rd_kafka_queue_t *` the application holds is a [`Queue`], one reference
//! to the shared `Fifo`; the asynchronous admin calls keep another
//! reference while their request runs, so a queue destroyed before its
//! result arrives drops the result (as librdkafka's, whose queue lives on
//! while ops reference it). `rd_kafka_queue_get_main` gives a new
//! reference to the handle's main queue, where an admin call given a NULL
//! queue posts its result; `rd_kafka_queue_get_background` to the
//! background queue, whose events go to the conf's `background_event_cb`.
//! `rd_kafka_queue_get_consumer` gives a reference to the consumer queue
//! of a consumer with `group.id` (NULL otherwise, as librdkafka's): its
//! poll serves the consumer as `rd_kafka_consumer_poll` does, a message as
//! an `RD_KAFKA_EVENT_FETCH`, a consumer error as an `RD_KAFKA_EVENT_ERROR`
//! (see `event`), after any event posted to that reference itself; with
//! `RD_KAFKA_EVENT_REBALANCE` enabled, a rebalance as an event first.
//!
//! The main queue also gets the client's own events that
//! `rd_kafka_conf_set_events` enables (delivery reports, errors,
//! statistics) and, once forwarded, log lines; its poll serves a producer
//! on the polling thread (`poll_main`). `rd_kafka_poll` and
//! `rd_kafka_queue_poll_callback` serve events to their callbacks instead.
//! `rd_kafka_queue_cb_event_enable` / `_io_event_enable` tell the
//! application when something is enqueued on an empty queue (`Notify`).

#![allow(unsafe_code)] // `#[no_mangle]`

use std::collections::VecDeque;
use std::ffi::c_int;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use crate::conf::{BackgroundEventCb, QueueEventCb};
use crate::event::Event;
use crate::guard::guard;
use crate::handle::{timeout, Client, Handle};
use crate::producer::Report;
use crate::raw;

/// The events of a queue and the condition variable a poll waits on.
#[derive(Debug, Default)]
pub(crate) struct Fifo {
    inner: Mutex<Inner>,
    ready: Condvar,
    /// How many events `inner` holds, read without the lock: the check
    /// `rd_kafka_poll` makes on every call.
    count: AtomicUsize,
    /// Consumed messages of the partitions started on this queue
    /// (`rd_kafka_consume_start_queue`), interleaved as they are fetched;
    /// `rd_kafka_consume_queue` and its kin take them (see `consume`).
    messages: Mutex<VecDeque<gregor::message::Message>>,
    /// The background queue's server: events go to it instead.
    serve: Option<Background>,
    /// What tells the application the queue has something
    /// (`rd_kafka_queue_cb_event_enable` / `_io_event_enable`).
    notify: Mutex<Option<Arc<Notify>>>,
}

/// How a queue tells the application that something was enqueued on it
/// while it was empty (rdkafka.h, `rd_kafka_queue_io_event_enable`: "whenever
/// a new element is enqueued on a previously empty queue"): once, until a
/// poll of the queue finds it empty again ([`Fifo::rearm`]). That poll is
/// how this library learns the queue was drained: gregor's clients signal
/// again after each poll that leaves something queued, which would
/// otherwise call the application once per event while it drains them.
#[derive(Debug)]
pub(crate) struct Notify {
    how: How,
    rk: usize,
    armed: AtomicBool,
}

#[derive(Debug)]
enum How {
    /// `rd_kafka_queue_cb_event_enable`: the callback and its opaque.
    Cb(QueueEventCb, usize),
    /// `rd_kafka_queue_io_event_enable`: the descriptor and the payload.
    Fd(c_int, Vec<u8>),
}

impl Notify {
    fn fire(&self) {
        if !self.armed.swap(false, Ordering::AcqRel) {
            return;
        }
        match &self.how {
            How::Cb(cb, opaque) => raw::call_queue_event(*cb, self.rk, *opaque),
            How::Fd(fd, payload) => raw::write_fd(*fd, payload),
        }
    }
}

#[derive(Debug, Default)]
struct Inner {
    events: VecDeque<Box<Event>>,
    /// The client has something to serve into the queue (its event
    /// trigger ran): a poll of the main queue stops waiting to serve it.
    woken: bool,
}

/// How the background queue serves its events: the conf's
/// `background_event_cb` with the handle and the conf's opaque, until the
/// handle's destroy starts (`closed`); without a callback, or after,
/// events are dropped, as librdkafka's background thread drops those it
/// has no callback for.
#[derive(Debug)]
pub(crate) struct Background {
    pub(crate) cb: Option<BackgroundEventCb>,
    pub(crate) rk: usize,
    pub(crate) opaque: usize,
    pub(crate) closed: Arc<AtomicBool>,
}

impl Fifo {
    /// The handle's background queue.
    pub(crate) fn background(serve: Background) -> Self {
        Fifo {
            serve: Some(serve),
            ..Fifo::default()
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Appends `ev` and wakes one poller; on the background queue, hands
    /// it to the callback (on the posting thread, a thread of the library).
    pub(crate) fn push(&self, ev: Event) {
        if let Some(b) = &self.serve {
            if let (Some(cb), false) = (b.cb, b.closed.load(Ordering::Acquire)) {
                let ev = Box::into_raw(Box::new(ev)) as usize;
                raw::call_background_event(cb, b.rk, ev, b.opaque);
            }
            return;
        }
        let mut q = self.lock();
        q.events.push_back(Box::new(ev));
        self.count.store(q.events.len(), Ordering::Release);
        drop(q);
        self.ready.notify_one();
        self.fire();
    }

    /// Tells the application the queue has something, if it asked to be
    /// told and was not told since the queue was last found empty.
    pub(crate) fn fire(&self) {
        let n = self
            .notify
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        if let Some(n) = n {
            n.fire();
        }
    }

    /// A poll found the queue empty: the next event tells the application
    /// again.
    pub(crate) fn rearm(&self) {
        if let Some(n) = &*self.notify.lock().unwrap_or_else(PoisonError::into_inner) {
            n.armed.store(true, Ordering::Release);
        }
    }

    /// Sets (or with `None` removes) how the queue tells the application.
    fn set_notify(&self, how: Option<How>, rk: usize) {
        let n = how.map(|how| {
            Arc::new(Notify {
                how,
                rk,
                armed: AtomicBool::new(true),
            })
        });
        *self.notify.lock().unwrap_or_else(PoisonError::into_inner) = n;
        if self.count.load(Ordering::Acquire) > 0 {
            self.fire();
        }
    }

    /// Appends a delivery report: to the last event if it is a DR event
    /// with room (no poll took it yet), else as a new DR event.
    pub(crate) fn push_report(&self, report: Report) {
        let mut q = self.lock();
        if let Some(last) = q.events.back_mut().filter(|e| e.has_room()) {
            last.add_report(report);
            return;
        }
        q.events.push_back(Box::new(Event::delivered(vec![report])));
        self.count.store(q.events.len(), Ordering::Release);
        drop(q);
        self.ready.notify_one();
        self.fire();
    }

    /// The first event, waiting until `deadline` for one.
    pub(crate) fn pop(&self, deadline: Instant) -> Option<Box<Event>> {
        self.pop_or_woken(deadline, false)
    }

    /// The first event, waiting until `deadline` for one; with `woken`,
    /// also `None` as soon as [`Fifo::wake`] was called (since the last
    /// such return).
    fn pop_or_woken(&self, deadline: Instant, woken: bool) -> Option<Box<Event>> {
        let mut q = self.lock();
        loop {
            if let Some(ev) = q.events.pop_front() {
                self.count.store(q.events.len(), Ordering::Release);
                return Some(ev);
            }
            if woken && std::mem::take(&mut q.woken) {
                return None;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return None;
            }
            q = self
                .ready
                .wait_timeout(q, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// The client has events to serve into this queue: a poll waiting in
    /// [`Fifo::pop_or_woken`] returns to serve them.
    pub(crate) fn wake(&self) {
        self.lock().woken = true;
        self.ready.notify_all();
        self.fire();
    }

    /// Takes the events a callback serves ([`Event::has_callback`]), in
    /// order, leaving the others (admin results) queued.
    pub(crate) fn take_served(&self) -> VecDeque<Box<Event>> {
        if self.count.load(Ordering::Acquire) == 0 {
            return VecDeque::new();
        }
        let mut q = self.lock();
        let (served, kept): (VecDeque<_>, VecDeque<_>) =
            q.events.drain(..).partition(|e| e.has_callback());
        q.events = kept;
        self.count.store(q.events.len(), Ordering::Release);
        served
    }

    /// How many events wait (not counting consumed messages), without a
    /// lock.
    pub(crate) fn events_len(&self) -> usize {
        self.count.load(Ordering::Acquire)
    }

    /// How many events and consumed messages wait.
    pub(crate) fn len(&self) -> usize {
        self.count.load(Ordering::Acquire) + self.messages().len()
    }

    /// The consumed messages waiting in the queue.
    pub(crate) fn messages(&self) -> std::sync::MutexGuard<'_, VecDeque<gregor::message::Message>> {
        self.messages.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// `rd_kafka_queue_t`: the application's reference to a queue.
#[derive(Debug)]
pub struct Queue {
    fifo: Arc<Fifo>,
    /// The `rd_kafka_t *` it was made for, whose consumer
    /// `rd_kafka_consume_queue` polls (the application destroys its
    /// queues before the handle, as rdkafka.h requires).
    rk: usize,
    /// The consumer queue (`rd_kafka_queue_get_consumer`): a poll serves
    /// the handle's consumer.
    consumer: bool,
}

impl Queue {
    /// The shared queue, for a request that posts to it.
    pub(crate) fn fifo(&self) -> &Arc<Fifo> {
        &self.fifo
    }

    /// Whether it is the consumer queue (`rd_kafka_queue_get_consumer`).
    pub(crate) fn is_consumer(&self) -> bool {
        self.consumer
    }

    /// The handle the queue was made for.
    pub(crate) fn handle<'a>(&self) -> Option<&'a Handle> {
        raw::object(self.rk as *const Handle)
    }

    /// Sets how the queue tells the application it has something; for
    /// the queues a client fills (the consumer queue, a producer's main
    /// queue), the client's event trigger runs it.
    fn notify(&self, how: Option<How>) {
        let on = how.is_some();
        self.fifo.set_notify(how, self.rk);
        let Some(h) = self.handle() else {
            return;
        };
        if self.consumer {
            if let Client::Consumer(c) = h.client() {
                let fifo = Arc::downgrade(&self.fifo);
                c.set_event_trigger(on.then(|| {
                    Arc::new(move || {
                        if let Some(f) = fifo.upgrade() {
                            f.fire();
                        }
                    }) as Arc<dyn Fn() + Send + Sync>
                }));
            }
        } else if self.main().is_some() {
            h.watch_main();
        }
    }

    /// The handle whose main queue this is, if it is one.
    fn main<'a>(&self) -> Option<&'a Handle> {
        self.handle()
            .filter(|h| Arc::ptr_eq(&self.fifo, h.admin().main_queue()))
    }
}

/// A new queue (`rd_kafka_queue_new`); NULL for a NULL handle.
#[no_mangle]
pub extern "C" fn rd_kafka_queue_new(rk: *mut Handle) -> *mut Queue {
    guard(std::ptr::null_mut(), || {
        if raw::object(rk).is_none() {
            return std::ptr::null_mut();
        }
        Box::into_raw(Box::new(Queue {
            fifo: Arc::new(Fifo::default()),
            rk: rk as usize,
            consumer: false,
        }))
    })
}

/// The handle's main queue (`rd_kafka_queue_get_main`), where admin
/// results of calls given no queue go; a new reference the caller
/// destroys.
#[no_mangle]
pub extern "C" fn rd_kafka_queue_get_main(rk: *mut Handle) -> *mut Queue {
    guard(std::ptr::null_mut(), || {
        raw::object(rk).map_or(std::ptr::null_mut(), |h| {
            Box::into_raw(Box::new(Queue {
                fifo: Arc::clone(h.admin().main_queue()),
                rk: rk as usize,
                consumer: false,
            }))
        })
    })
}

/// The handle's background queue (`rd_kafka_queue_get_background`): an
/// admin result posted to it goes to the conf's `background_event_cb`
/// (see `Background`); a new reference the caller destroys.
#[no_mangle]
pub extern "C" fn rd_kafka_queue_get_background(rk: *mut Handle) -> *mut Queue {
    guard(std::ptr::null_mut(), || {
        raw::object(rk).map_or(std::ptr::null_mut(), |h| {
            Box::into_raw(Box::new(Queue {
                fifo: Arc::clone(h.admin().background_queue(h)),
                rk: rk as usize,
                consumer: false,
            }))
        })
    })
}

/// The consumer queue of a consumer with `group.id`
/// (`rd_kafka_queue_get_consumer`): a new reference the caller destroys;
/// NULL for a handle without a consumer group, as librdkafka's.
#[no_mangle]
pub extern "C" fn rd_kafka_queue_get_consumer(rk: *mut Handle) -> *mut Queue {
    guard(std::ptr::null_mut(), || match raw::object(rk) {
        Some(_) if crate::consumer::group_consumer(rk).is_some() => {
            Box::into_raw(Box::new(Queue {
                fifo: Arc::new(Fifo::default()),
                rk: rk as usize,
                consumer: true,
            }))
        }
        _ => std::ptr::null_mut(),
    })
}

/// Drops the application's reference to a queue (`rd_kafka_queue_destroy`);
/// events still in it are destroyed with the last reference.
#[no_mangle]
pub extern "C" fn rd_kafka_queue_destroy(rkqu: *mut Queue) {
    guard((), || drop(raw::take_box(rkqu)));
}

/// The first event of the queue, waiting up to `timeout_ms` for one
/// (`rd_kafka_queue_poll`; -1 waits forever); NULL if none came. The
/// caller destroys it with `rd_kafka_event_destroy`. The main queue of a
/// producer serves the producer meanwhile (see `poll_main`).
#[no_mangle]
pub extern "C" fn rd_kafka_queue_poll(rkqu: *mut Queue, timeout_ms: c_int) -> *mut Event {
    guard(std::ptr::null_mut(), || {
        let Some(q) = raw::object(rkqu) else {
            return std::ptr::null_mut();
        };
        let wait = timeout(timeout_ms);
        let ev = if q.consumer {
            q.fifo
                .pop(Instant::now())
                .or_else(|| q.handle().and_then(|h| poll_consumer(h, wait)))
        } else {
            match q.main() {
                Some(h) => poll_main(h, wait),
                None => q.fifo.pop(Instant::now() + wait),
            }
        };
        if ev.is_none() {
            q.fifo.rearm();
        }
        ev.map_or(std::ptr::null_mut(), Box::into_raw)
    })
}

/// The consumer queue's next event: one held back (a rebalance), else the
/// consumer's next message or error within `wait`; a rebalance that came
/// while polling goes first, the message after it.
fn poll_consumer(h: &Handle, wait: Duration) -> Option<Box<Event>> {
    let state = h.consumer_state();
    if let Some(ev) = state.take_event() {
        return Some(Box::new(ev));
    }
    let polled = crate::consumer::poll_event(h, wait);
    let ev = match (state.take_event(), polled) {
        (Some(held), Some(m)) => {
            state.hold_event(m);
            Some(held)
        }
        (held, m) => held.or(m),
    };
    ev.map(Box::new)
}

/// Calls `event_cb` with the handle and `qev_opaque` when something is
/// enqueued on the queue while it is empty (`rd_kafka_queue_cb_event_enable`;
/// NULL disables it), from a thread of the library: the callback must only
/// signal the application's own loop. See `Notify` for when it runs again.
#[no_mangle]
pub extern "C" fn rd_kafka_queue_cb_event_enable(
    rkqu: *mut Queue,
    event_cb: Option<QueueEventCb>,
    qev_opaque: *mut std::ffi::c_void,
) {
    guard((), || {
        if let Some(q) = raw::object(rkqu) {
            q.notify(event_cb.map(|cb| How::Cb(cb, qev_opaque as usize)));
        }
    });
}

/// Writes `payload` to `fd` when something is enqueued on the queue while
/// it is empty (`rd_kafka_queue_io_event_enable`; -1 disables it), for an
/// application's poll / epoll loop. See `Notify` for when it writes again.
#[no_mangle]
pub extern "C" fn rd_kafka_queue_io_event_enable(
    rkqu: *mut Queue,
    fd: c_int,
    payload: *const std::ffi::c_void,
    size: usize,
) {
    guard((), || {
        if let Some(q) = raw::object(rkqu) {
            let bytes = raw::read_bytes(payload, size).unwrap_or_default().to_vec();
            q.notify((fd >= 0).then_some(How::Fd(fd, bytes)));
        }
    });
}

/// The longest the first poll of a producer's main queue waits for the
/// cluster's metadata (see `poll_main`): long enough for a refused or
/// unresolvable address to show, short of a blackholed one's timeout.
const BOOTSTRAP_WAIT: Duration = Duration::from_secs(1);

/// Polls the main queue of `h` for up to `wait`. gregor's producer serves
/// its reports, errors and statistics from its `poll`, on the calling
/// thread: so does this, and the callbacks that `rd_kafka_conf_set_events`
/// turns into events put them in the queue. Between two serves it waits
/// on the queue itself, woken by the producer's event trigger when the
/// producer has something to serve, by an event posted by another thread
/// (an admin result, a log line), or when statistics are due; no thread
/// polls in the background.
pub(crate) fn poll_main(h: &Handle, wait: Duration) -> Option<Box<Event>> {
    let fifo = h.admin().main_queue();
    let deadline = Instant::now() + wait;
    let Some(p) = h.producer() else {
        return fifo.pop(deadline);
    };
    h.watch_main();
    if !wait.is_zero() && h.first_bootstrap() {
        // librdkafka connects to the bootstrap brokers when the client
        // starts, so an unreachable cluster shows as `_TRANSPORT` /
        // `_ALL_BROKERS_DOWN` errors (or ERROR events) before any produce;
        // gregor's producer connects on first need. The first waiting poll
        // of the main queue asks the cluster's metadata (no topic) instead,
        // once, within its own timeout and at most BOOTSTRAP_WAIT (a poll
        // that waits forever must still return the events that come while
        // the cluster does not answer): its connection errors are the
        // client errors served below.
        let _ = p.metadata(Some(&[]), wait.min(BOOTSTRAP_WAIT));
    }
    loop {
        p.poll(Duration::ZERO);
        let until = p.stats_wake_by(deadline);
        if let Some(ev) = fifo.pop_or_woken(until, true) {
            return Some(ev);
        }
        if Instant::now() >= deadline {
            return None;
        }
    }
}

/// Serves the events of the handle's main queue that have callbacks
/// ([`Event::serve`]), as `rd_kafka_poll` does besides the client's own;
/// how many.
pub(crate) fn serve_main(h: &Handle, rk: usize) -> usize {
    let served = h.admin().main_queue().take_served();
    let n = served.len();
    for ev in served {
        ev.serve(h, rk);
    }
    n
}

/// Serves the queue's events to their callbacks, waiting up to
/// `timeout_ms` for the first (`rd_kafka_queue_poll_callback`); how many.
/// rdkafka.h asks for a queue whose every event type has a callback: one
/// without (an admin result) is destroyed. The main queue is served as
/// `rd_kafka_poll` serves it.
#[no_mangle]
pub extern "C" fn rd_kafka_queue_poll_callback(rkqu: *mut Queue, timeout_ms: c_int) -> c_int {
    guard(0, || {
        let Some(q) = raw::object(rkqu) else {
            return 0;
        };
        let Some(h) = q.handle() else {
            return 0;
        };
        if q.main().is_some() {
            return crate::handle::rd_kafka_poll(q.rk as *mut Handle, timeout_ms);
        }
        let mut deadline = Instant::now() + timeout(timeout_ms);
        let mut n: c_int = 0;
        while let Some(ev) = q.fifo.pop(deadline) {
            ev.serve(h, q.rk);
            n = n.saturating_add(1);
            // the first one came: take the others there are, no more wait
            deadline = Instant::now();
        }
        n
    })
}

/// How many events wait in the queue (`rd_kafka_queue_length`).
#[no_mangle]
pub extern "C" fn rd_kafka_queue_length(rkqu: *mut Queue) -> usize {
    guard(0, || raw::object(rkqu).map_or(0, |q| q.fifo.len()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{
        rd_kafka_event_message_count, rd_kafka_event_type, EVENT_CREATETOPICS_RESULT, EVENT_DR,
        EVENT_LOG,
    };

    #[test]
    fn fifo_order_and_timeout() {
        let f = Arc::new(Fifo::default());
        let start = Instant::now();
        assert!(f.pop(start + Duration::from_millis(50)).is_none());
        assert!(start.elapsed() >= Duration::from_millis(50));
        f.push(Event::admin(100, 0, Err((1, "a".into()))));
        f.push(Event::admin(100, 0, Err((2, "b".into()))));
        assert_eq!(f.len(), 2);
        assert_eq!(f.pop(Instant::now()).unwrap().err(), 1);
        assert_eq!(f.pop(Instant::now()).unwrap().err(), 2);
        let g = Arc::clone(&f);
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            g.push(Event::admin(100, 0, Err((3, "c".into()))));
        });
        let got = f.pop(Instant::now() + Duration::from_secs(5)).unwrap();
        assert_eq!(got.err(), 3);
        t.join().unwrap();
    }

    #[test]
    fn null_queue() {
        assert!(rd_kafka_queue_poll(std::ptr::null_mut(), 0).is_null());
        assert_eq!(rd_kafka_queue_length(std::ptr::null_mut()), 0);
        rd_kafka_queue_destroy(std::ptr::null_mut());
        assert!(rd_kafka_queue_new(std::ptr::null_mut()).is_null());
    }

    #[test]
    fn reports_join_the_last_dr_event_until_polled() {
        let f = Fifo::default();
        f.push_report(Report::for_test(1, 0));
        f.push_report(Report::for_test(2, 1));
        assert_eq!(f.len(), 1);
        let first = Box::into_raw(f.pop(Instant::now()).unwrap());
        assert_eq!(rd_kafka_event_type(first), EVENT_DR);
        assert_eq!(rd_kafka_event_message_count(first), 2);
        // taken: the next report starts a new event, as does one after
        // another kind of event
        f.push_report(Report::for_test(3, 2));
        f.push(Event::log(6, "F", "line"));
        f.push_report(Report::for_test(4, 3));
        assert_eq!(f.len(), 3);
        crate::event::rd_kafka_event_destroy(first);
    }

    #[test]
    fn take_served_leaves_admin_results() {
        let f = Fifo::default();
        f.push(Event::admin(EVENT_CREATETOPICS_RESULT, 0, Ok(Vec::new())));
        f.push(Event::log(6, "F", "line"));
        f.push(Event::stats("{}"));
        f.push(Event::error(-195, "down"));
        let served: Vec<_> = f.take_served().into_iter().map(|e| e.kind()).collect();
        assert_eq!(served, vec![EVENT_LOG, 0x40, 0x8]);
        assert_eq!(f.len(), 1);
        let left = Box::into_raw(f.pop(Instant::now()).unwrap());
        assert_eq!(rd_kafka_event_type(left), EVENT_CREATETOPICS_RESULT);
        crate::event::rd_kafka_event_destroy(left);
        assert!(f.take_served().is_empty());
    }

    #[test]
    fn wake_ends_a_wait_once() {
        let f = Arc::new(Fifo::default());
        let g = Arc::clone(&f);
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            g.wake();
        });
        let start = Instant::now();
        assert!(f
            .pop_or_woken(start + Duration::from_secs(5), true)
            .is_none());
        assert!(start.elapsed() < Duration::from_secs(5));
        t.join().unwrap();
        // consumed: the next wait runs to its deadline
        let start = Instant::now();
        assert!(f
            .pop_or_woken(start + Duration::from_millis(30), true)
            .is_none());
        assert!(start.elapsed() >= Duration::from_millis(30));
        // a plain pop ignores wakes
        f.wake();
        let start = Instant::now();
        assert!(f.pop(start + Duration::from_millis(30)).is_none());
        assert!(start.elapsed() >= Duration::from_millis(30));
    }

    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

    unsafe extern "C" fn count_call(_rk: *mut std::ffi::c_void, opaque: *mut std::ffi::c_void) {
        assert_eq!(opaque as usize, 0x1234);
        CALLS.fetch_add(1, Ordering::SeqCst);
    }

    #[test]
    fn notify_once_until_found_empty() {
        let f = Fifo::default();
        f.set_notify(Some(How::Cb(count_call, 0x1234)), 0);
        assert_eq!(CALLS.load(Ordering::SeqCst), 0);
        f.push(Event::log(6, "F", "a"));
        f.push(Event::log(6, "F", "b"));
        f.wake();
        assert_eq!(CALLS.load(Ordering::SeqCst), 1);
        // draining does not call again; a poll that finds it empty re-arms
        assert!(f.pop(Instant::now()).is_some());
        assert!(f.pop(Instant::now()).is_some());
        f.rearm();
        f.push(Event::log(6, "F", "c"));
        assert_eq!(CALLS.load(Ordering::SeqCst), 2);
        f.set_notify(None, 0);
        f.rearm();
        f.push(Event::log(6, "F", "d"));
        assert_eq!(CALLS.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn io_event_writes_the_payload() {
        use std::io::Read;
        use std::os::fd::AsRawFd;
        let (mut reader, writer) = std::os::unix::net::UnixStream::pair().unwrap();
        let f = Fifo::default();
        f.push(Event::log(6, "F", "waiting"));
        // enabled on a queue with something in it: written at once
        f.set_notify(Some(How::Fd(writer.as_raw_fd(), b"ab".to_vec())), 0);
        let mut buf = [0u8; 2];
        reader.read_exact(&mut buf).unwrap();
        assert_eq!(&buf, b"ab");
        f.set_notify(None, 0);
    }
}
