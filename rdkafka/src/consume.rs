//! The legacy (simple) consumer of rdkafka.h on gregor's [`Consumer`] with
//! manual assignment: `rd_kafka_consume_start`, `_consume_stop`,
//! `rd_kafka_consume`, `_consume_batch`, `_consume_callback`, by topic
//! handle and partition.
//!
//! `consume_start` adds the partition to the consumer's assignment at the
//! given (absolute or logical) offset, `consume_stop` removes it. gregor's
//! consumer hands out the messages of every assigned partition in one
//! stream; a call for one partition keeps what it polls for the other
//! started partitions in their own queues, for their calls to return, so
//! each partition's messages come in order to the calls for it, as
//! librdkafka's per-partition queues give them. Messages are
//! [`crate::consumer`]'s consumed messages, freed with
//! `rd_kafka_message_destroy`.
//!
//! As librdkafka's: a partition not started is `_UNKNOWN_PARTITION`
//! (errno ESRCH), a `rd_kafka_consume` that times out is NULL with
//! `_TIMED_OUT` (errno ETIMEDOUT) as `rd_kafka_last_error`;
//! `consume_batch` fills the array until it is full or the time is up;
//! `consume_callback` waits up to the timeout for a first message, then
//! serves what is there.
//! Starting a started partition starts its fetching over at the new
//! offset (and queue), as librdkafka's.
//!
//! The queue variants: `rd_kafka_consume_start_queue` starts a partition
//! with its messages (and end-of-partition events) going to the
//! application's `rd_kafka_queue_t` (a [`crate::queue`] queue, which holds
//! consumed messages apart from its admin events, so `rd_kafka_queue_poll`
//! is unchanged); `rd_kafka_consume_queue`, `_consume_batch_queue`,
//! `_consume_callback_queue` take them in the order they were fetched,
//! the partitions started on the queue interleaved. A call with nothing
//! queued polls the consumer (which blocks on gregor's condition
//! variable, no busy loop) and files what comes where it belongs.

#![allow(unsafe_code)] // `#[no_mangle]`, the application's callback

use std::collections::{HashMap, VecDeque};
use std::ffi::{c_int, c_void};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use gregor::consumer::{Consumer, TopicPartitionOffset};
use gregor::error::Error;
use gregor::message::Message as GregorMessage;

use crate::conf::ConsumeCb;
use crate::errors::set_last_error;
use crate::guard::guard;
use crate::handle::{timeout, Client, Handle};
use crate::message::Message;
use crate::queue::{Fifo, Queue};
use crate::raw;
use crate::topic::Topic;

/// `RD_KAFKA_RESP_ERR__INVALID_ARG`.
const RESP_ERR__INVALID_ARG: c_int = -186;
/// `RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION`.
const RESP_ERR__UNKNOWN_PARTITION: c_int = -190;
/// `RD_KAFKA_RESP_ERR__TIMED_OUT`.
const RESP_ERR__TIMED_OUT: c_int = -185;
/// `EINVAL`, `ESRCH`, `ETIMEDOUT`.
const EINVAL: c_int = 22;
const ESRCH: c_int = 3;
const ETIMEDOUT: c_int = 110;

/// Where a started partition's messages go.
#[derive(Debug)]
enum Route {
    /// Its own queue, for the calls by topic handle and partition.
    Own(VecDeque<GregorMessage>),
    /// The application's queue it was started on.
    Queue(Arc<Fifo>),
}

/// The started partitions of a consumer handle, by topic name and
/// partition (looked up by a message's `&str` topic: no key is built per
/// message).
#[derive(Debug, Default)]
pub(crate) struct Queues {
    routes: Mutex<Routes>,
}

/// The routes by topic and partition, and the last message's answer.
#[derive(Debug, Default)]
struct Routes {
    by_topic: HashMap<String, HashMap<i32, Route>>,
    /// The partition [`Queues::keep`] last found routed to an application
    /// queue, and that queue's address: a run of its messages costs no
    /// map lookup. Cleared whenever a route changes.
    last: Option<(Arc<str>, i32, usize)>,
}

impl Routes {
    fn get_mut(&mut self, topic: &str, partition: i32) -> Option<&mut Route> {
        self.by_topic
            .get_mut(topic)
            .and_then(|parts| parts.get_mut(&partition))
    }
}

/// What [`Queues::keep`] did with a message.
enum Kept {
    /// Filed where it belongs (or dropped: its partition was stopped).
    Filed,
    /// It belongs to the partition or queue the caller is serving: its to
    /// return, without a trip through the queue.
    Yours(GregorMessage),
}

impl Queues {
    fn routes(&self) -> std::sync::MutexGuard<'_, Routes> {
        self.routes.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Files `m` for the started partition it belongs to: in its own queue,
    /// or the application's queue it was started on; dropped for a
    /// partition stopped meanwhile. A message for `mine` (a partition's
    /// own queue, or an application's queue) is handed back instead.
    fn keep(&self, m: GregorMessage, mine: Mine<'_>) -> Kept {
        let mut routes = self.routes();
        if let (Some((topic, p, queue)), Mine::Queue(q, _)) = (&routes.last, mine) {
            if *p == m.partition && *queue == q as usize && Arc::ptr_eq(topic, &m.topic) {
                return Kept::Yours(m);
            }
        }
        let target = match routes.get_mut(&m.topic, m.partition) {
            None if matches!(mine, Mine::Queue(_, true)) => return Kept::Yours(m),
            None => return Kept::Filed,
            Some(Route::Own(q)) => {
                if matches!(mine, Mine::Partition(t, p) if p == m.partition && t == &*m.topic) {
                    return Kept::Yours(m);
                }
                q.push_back(m);
                return Kept::Filed;
            }
            Some(Route::Queue(f)) => Arc::clone(f),
        };
        let at = Arc::as_ptr(&target);
        routes.last = Some((Arc::clone(&m.topic), m.partition, at as usize));
        drop(routes);
        if matches!(mine, Mine::Queue(q, _) if std::ptr::eq(q, at)) {
            return Kept::Yours(m);
        }
        target.messages().push_back(m);
        Kept::Filed
    }

    /// Starts routing the partition's messages to `route`; whatever route
    /// it had is dropped with what it held.
    fn start(&self, topic: &str, partition: i32, route: Route) {
        let mut routes = self.routes();
        routes.last = None;
        routes
            .by_topic
            .entry(topic.to_string())
            .or_default()
            .insert(partition, route);
    }
}

/// Whose messages a caller of [`Queues::keep`] is serving.
#[derive(Clone, Copy)]
enum Mine<'a> {
    /// One partition's own queue (`rd_kafka_consume` and kin).
    Partition(&'a str, i32),
    /// An application's queue (`rd_kafka_consume_queue` and kin); `true`
    /// for the consumer queue (`rd_kafka_queue_get_consumer`), which also
    /// takes what no started partition claims: the subscription's messages
    /// and its topics' errors.
    Queue(*const Fifo, bool),
}

/// How long a call may wait for its next message.
#[derive(Clone, Copy)]
enum Wait {
    /// Up to this instant.
    Until(Instant),
    /// Not at all: only what is there (after a first message was served).
    No,
}

impl Wait {
    fn of(timeout_ms: c_int) -> Wait {
        Wait::Until(Instant::now() + timeout(timeout_ms))
    }
}

/// The topic's handle and consumer.
fn parts<'a>(rkt: *const Topic) -> Option<(&'a Topic, &'a Handle, &'a Consumer)> {
    let t = raw::object(rkt)?;
    let h = t.handle()?;
    match h.client() {
        Client::Consumer(c) => Some((t, h, c)),
        Client::Producer(_) => None,
    }
}

/// Fails as librdkafka's legacy calls: -1, the code as last error, errno.
fn failed(code: c_int, errno: c_int) -> c_int {
    set_last_error(code);
    raw::set_errno(errno);
    -1
}

/// Starts the topic's partition at `offset`, its messages going to
/// `dest` if given, else to its own queue.
fn start(rkt: *mut Topic, partition: i32, offset: i64, dest: Option<Arc<Fifo>>) -> c_int {
    let Some((t, h, c)) = parts(rkt) else {
        return failed(RESP_ERR__INVALID_ARG, EINVAL);
    };
    let key = (t.name().to_string(), partition);
    let queues = &h.consumer_state().legacy;
    // started already: as librdkafka's, fetching starts over at `offset`,
    // to `dest`
    if queues.forget(&key) {
        if let Err(e) =
            c.incremental_unassign(&[TopicPartitionOffset::new(t.name(), partition, -1001)])
        {
            return failed(e.code(), EINVAL);
        }
    }
    let route = match dest {
        Some(f) => Route::Queue(f),
        None => Route::Own(VecDeque::new()),
    };
    queues.start(t.name(), partition, route);
    match c.incremental_assign(&[TopicPartitionOffset::new(t.name(), partition, offset)]) {
        Ok(()) => {
            set_last_error(0);
            0
        }
        Err(e) => {
            queues.forget(&key);
            failed(e.code(), EINVAL)
        }
    }
}

/// Starts consuming the topic's partition at `offset`
/// (`rd_kafka_consume_start`): 0, or -1 with the reason as
/// `rd_kafka_last_error`.
#[no_mangle]
pub extern "C" fn rd_kafka_consume_start(rkt: *mut Topic, partition: i32, offset: i64) -> c_int {
    guard(-1, || start(rkt, partition, offset, None))
}

/// Starts consuming the topic's partition at `offset` with its messages
/// going to the application's queue `rkqu` (`rd_kafka_consume_start_queue`),
/// where they interleave with those of the other partitions started on it.
#[no_mangle]
pub extern "C" fn rd_kafka_consume_start_queue(
    rkt: *mut Topic,
    partition: i32,
    offset: i64,
    rkqu: *mut Queue,
) -> c_int {
    guard(-1, || {
        let Some(q) = raw::object(rkqu) else {
            return failed(RESP_ERR__INVALID_ARG, EINVAL);
        };
        start(rkt, partition, offset, Some(Arc::clone(q.fifo())))
    })
}

/// Stops consuming the topic's partition (`rd_kafka_consume_stop`); what
/// its queue held is dropped.
#[no_mangle]
pub extern "C" fn rd_kafka_consume_stop(rkt: *mut Topic, partition: i32) -> c_int {
    guard(-1, || {
        let Some((t, h, c)) = parts(rkt) else {
            return failed(RESP_ERR__INVALID_ARG, EINVAL);
        };
        let key = (t.name().to_string(), partition);
        if !h.consumer_state().legacy.forget(&key) {
            return failed(RESP_ERR__UNKNOWN_PARTITION, ESRCH);
        }
        match c.incremental_unassign(&[TopicPartitionOffset::new(t.name(), partition, -1001)]) {
            Ok(()) => 0,
            Err(e) => failed(e.code(), EINVAL),
        }
    })
}

impl Queues {
    /// Drops the messages of `topic` `partition` waiting in its route's
    /// queue (a seek: they are from before the new position, as
    /// librdkafka's version barrier drops them).
    pub(crate) fn drop_waiting(&self, topic: &str, partition: i32) {
        let mut routes = self.routes();
        match routes.get_mut(topic, partition) {
            Some(Route::Own(q)) => q.clear(),
            Some(Route::Queue(f)) => {
                let f = Arc::clone(f);
                drop(routes);
                f.messages()
                    .retain(|m| !(*m.topic == *topic && m.partition == partition));
            }
            None => {}
        }
    }

    /// Forgets the started partition `key` and what waits for it (on its
    /// own queue or the application's); whether it was started.
    fn forget(&self, key: &(String, i32)) -> bool {
        let mut routes = self.routes();
        routes.last = None;
        let Some(parts) = routes.by_topic.get_mut(key.0.as_str()) else {
            return false;
        };
        let route = parts.remove(&key.1);
        if parts.is_empty() {
            routes.by_topic.remove(key.0.as_str());
        }
        drop(routes);
        match route {
            None => false,
            Some(Route::Own(_)) => true,
            Some(Route::Queue(f)) => {
                f.messages()
                    .retain(|m| !(*m.topic == *key.0.as_str() && m.partition == key.1));
                true
            }
        }
    }
}

/// What one wait for a partition's next message found.
enum Next {
    Message(GregorMessage),
    TimedOut,
    NotStarted,
}

/// A message from the consumer: one ready now (no clock read), else the
/// next to come as long as `wait` allows; `None` when the time is up (or
/// the consumer failed).
fn poll_consumer(c: &Consumer, wait: Wait) -> Option<GregorMessage> {
    poll_waiting(wait, |left| c.poll(left))
}

/// `poll(left)` until it gives something: once with no wait (no clock
/// read), then as long as `wait` allows, with the time left; `None` when
/// the time is up or it failed. gregor's polls block on their condition
/// variable: no busy loop.
fn poll_waiting<T>(
    wait: Wait,
    mut poll: impl FnMut(Duration) -> Result<Option<T>, Error>,
) -> Option<T> {
    match poll(Duration::ZERO) {
        Ok(Some(x)) => return Some(x),
        Err(_) => return None,
        Ok(None) => {}
    }
    let Wait::Until(deadline) = wait else {
        return None;
    };
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return None;
        }
        match poll(left) {
            Ok(Some(x)) => return Some(x),
            Err(_) => return None,
            Ok(None) => {}
        }
    }
}

/// The next message of the started partition `key`, waiting as `wait`
/// allows: from its queue, else from the consumer (filing other started
/// partitions' messages where they go).
fn next(h: &Handle, c: &Consumer, key: &(String, i32), wait: Wait) -> Next {
    let legacy = &h.consumer_state().legacy;
    loop {
        {
            let mut routes = legacy.routes();
            match routes.get_mut(&key.0, key.1) {
                Some(Route::Own(q)) => {
                    if let Some(m) = q.pop_front() {
                        return Next::Message(m);
                    }
                }
                _ => return Next::NotStarted,
            }
        }
        let Some(m) = poll_consumer(c, wait) else {
            return Next::TimedOut;
        };
        if m.topic.is_empty() {
            return Next::Message(m);
        }
        if let Kept::Yours(m) = legacy.keep(m, Mine::Partition(&key.0, key.1)) {
            return Next::Message(m);
        }
    }
}

/// The topic partition's next message, waiting up to `timeout_ms`
/// (`rd_kafka_consume`); NULL with `rd_kafka_last_error` on timeout or
/// for a partition not started.
#[no_mangle]
pub extern "C" fn rd_kafka_consume(
    rkt: *mut Topic,
    partition: i32,
    timeout_ms: c_int,
) -> *mut Message {
    guard(std::ptr::null_mut(), || {
        let Some((t, h, c)) = parts(rkt) else {
            failed(RESP_ERR__INVALID_ARG, EINVAL);
            return std::ptr::null_mut();
        };
        let key = (t.name().to_string(), partition);
        match next(h, c, &key, Wait::of(timeout_ms)) {
            Next::Message(m) => {
                set_last_error(0);
                crate::consumer::consumed(h, m)
            }
            Next::TimedOut => {
                failed(RESP_ERR__TIMED_OUT, ETIMEDOUT);
                std::ptr::null_mut()
            }
            Next::NotStarted => {
                failed(RESP_ERR__UNKNOWN_PARTITION, ESRCH);
                std::ptr::null_mut()
            }
        }
    })
}

/// Writes `m` at index `n` of the application's array.
fn put(rkmessages: *mut *mut Message, n: usize, m: *mut Message) {
    // SAFETY: rdkafka.h's `rkmessages, rkmessages_size`: an array of
    // `rkmessages_size` writable pointers; the caller keeps n below it.
    unsafe { rkmessages.add(n).write(m) };
}

/// Calls the application's consume callback with `m` and its opaque.
fn call_consume(cb: ConsumeCb, m: *mut Message, opaque: usize) {
    // SAFETY: `cb` is the application's `consume_cb`, called as rdkafka.h
    // documents: a message valid for the call (destroyed after it) and the
    // opaque it gave.
    unsafe { cb(m.cast(), opaque as *mut c_void) };
}

/// Up to `size` messages of the topic partition into `rkmessages`,
/// waiting up to `timeout_ms` for the array to fill
/// (`rd_kafka_consume_batch`): how many, or -1 for a partition not
/// started.
#[no_mangle]
pub extern "C" fn rd_kafka_consume_batch(
    rkt: *mut Topic,
    partition: i32,
    timeout_ms: c_int,
    rkmessages: *mut *mut Message,
    size: usize,
) -> isize {
    guard(-1, || {
        let Some((t, h, c)) = parts(rkt) else {
            return failed(RESP_ERR__INVALID_ARG, EINVAL) as isize;
        };
        if rkmessages.is_null() && size > 0 {
            return failed(RESP_ERR__INVALID_ARG, EINVAL) as isize;
        }
        let key = (t.name().to_string(), partition);
        let wait = Wait::of(timeout_ms);
        let mut n = 0;
        while n < size {
            match next(h, c, &key, wait) {
                Next::Message(m) => {
                    put(rkmessages, n, crate::consumer::consumed(h, m));
                    n += 1;
                }
                Next::TimedOut => break,
                Next::NotStarted if n == 0 => {
                    return failed(RESP_ERR__UNKNOWN_PARTITION, ESRCH) as isize
                }
                Next::NotStarted => break,
            }
        }
        isize::try_from(n).unwrap_or(isize::MAX)
    })
}

/// Calls `consume_cb` with the topic partition's messages, waiting up to
/// `timeout_ms` for the first, then serving what is there
/// (`rd_kafka_consume_callback`); each message is destroyed after its
/// call. How many, or -1 for a partition not started.
#[no_mangle]
pub extern "C" fn rd_kafka_consume_callback(
    rkt: *mut Topic,
    partition: i32,
    timeout_ms: c_int,
    consume_cb: Option<ConsumeCb>,
    opaque: *mut c_void,
) -> c_int {
    guard(-1, || {
        let (Some((t, h, c)), Some(cb)) = (parts(rkt), consume_cb) else {
            return failed(RESP_ERR__INVALID_ARG, EINVAL);
        };
        let key = (t.name().to_string(), partition);
        let mut wait = Wait::of(timeout_ms);
        let mut n: c_int = 0;
        loop {
            match next(h, c, &key, wait) {
                Next::Message(m) => {
                    crate::consumer::with_consumed(h, m, |p| {
                        call_consume(cb, p, opaque as usize);
                    });
                    n = n.saturating_add(1);
                    wait = Wait::No;
                }
                Next::TimedOut => return n,
                Next::NotStarted if n == 0 => return failed(RESP_ERR__UNKNOWN_PARTITION, ESRCH),
                Next::NotStarted => return n,
            }
        }
    })
}

/// The handle and consumer of an application's queue.
fn queue_parts<'a>(rkqu: *const Queue) -> Option<(&'a Queue, &'a Handle, &'a Consumer)> {
    let q = raw::object(rkqu)?;
    let h = q.handle()?;
    match h.client() {
        Client::Consumer(c) => Some((q, h, c)),
        Client::Producer(_) => None,
    }
}

/// The next message of the partitions started on the queue `q` (and, on
/// the consumer queue, of the subscription), waiting
/// as `wait` allows: from the queue, else from the consumer (filing what
/// it gives for other started partitions where they go).
///
/// `take` is how many messages the caller will hand the application in
/// this call (at least this one): at most that many are taken from the
/// consumer at once. A message taken from it counts as consumed (its
/// offset is stored with `enable.auto.offset.store`), so none may be
/// left waiting in the queue when the call returns.
fn next_queued(
    h: &Handle,
    c: &Consumer,
    q: &Queue,
    wait: Wait,
    take: usize,
) -> Option<GregorMessage> {
    let f = &**q.fifo();
    let legacy = &h.consumer_state().legacy;
    let mut batch = VecDeque::new();
    loop {
        if let Some(m) = f.messages().pop_front() {
            return Some(m);
        }
        // what the consumer has ready, taken at once (one poll's work for
        // up to REFILL messages); this queue's go to its FIFO, where a
        // stop or a seek of their partition finds them
        poll_consumer_batch(c, wait, take.clamp(1, REFILL), &mut batch)?;
        let mut mine = VecDeque::with_capacity(batch.len());
        for m in batch.drain(..) {
            if m.topic.is_empty() {
                mine.push_back(m);
            } else if let Kept::Yours(m) = legacy.keep(m, Mine::Queue(f, q.is_consumer())) {
                mine.push_back(m);
            }
        }
        let first = mine.pop_front();
        if !mine.is_empty() {
            f.messages().extend(mine);
        }
        if first.is_some() {
            return first;
        }
    }
}

/// At most this many messages per refill of an application queue from the
/// consumer (about 128 KiB of them).
const REFILL: usize = 1024;

/// [`poll_consumer`] for up to `max` messages at once, into `out`; `None`
/// when none came in time.
fn poll_consumer_batch(
    c: &Consumer,
    wait: Wait,
    max: usize,
    out: &mut VecDeque<GregorMessage>,
) -> Option<()> {
    poll_waiting(wait, |left| {
        c.poll_batch(left, max, out).map(|n| (n > 0).then_some(()))
    })
}

/// The next message of the partitions started on the queue, waiting up to
/// `timeout_ms` (`rd_kafka_consume_queue`); NULL with `_TIMED_OUT` as
/// `rd_kafka_last_error` if none came.
#[no_mangle]
pub extern "C" fn rd_kafka_consume_queue(rkqu: *mut Queue, timeout_ms: c_int) -> *mut Message {
    guard(std::ptr::null_mut(), || {
        let Some((q, h, c)) = queue_parts(rkqu) else {
            failed(RESP_ERR__INVALID_ARG, EINVAL);
            return std::ptr::null_mut();
        };
        match next_queued(h, c, q, Wait::of(timeout_ms), 1) {
            Some(m) => {
                set_last_error(0);
                crate::consumer::consumed(h, m)
            }
            None => {
                failed(RESP_ERR__TIMED_OUT, ETIMEDOUT);
                std::ptr::null_mut()
            }
        }
    })
}

/// Up to `size` messages of the partitions started on the queue into
/// `rkmessages`, waiting up to `timeout_ms` for the array to fill
/// (`rd_kafka_consume_batch_queue`): how many, or -1.
#[no_mangle]
pub extern "C" fn rd_kafka_consume_batch_queue(
    rkqu: *mut Queue,
    timeout_ms: c_int,
    rkmessages: *mut *mut Message,
    size: usize,
) -> isize {
    guard(-1, || {
        let Some((q, h, c)) = queue_parts(rkqu) else {
            return failed(RESP_ERR__INVALID_ARG, EINVAL) as isize;
        };
        if rkmessages.is_null() && size > 0 {
            return failed(RESP_ERR__INVALID_ARG, EINVAL) as isize;
        }
        let wait = Wait::of(timeout_ms);
        let mut n = 0;
        while n < size {
            match next_queued(h, c, q, wait, size - n) {
                Some(m) => {
                    put(rkmessages, n, crate::consumer::consumed(h, m));
                    n += 1;
                }
                None => break,
            }
        }
        isize::try_from(n).unwrap_or(isize::MAX)
    })
}

/// Calls `consume_cb` with the messages of the partitions started on the
/// queue, waiting up to `timeout_ms` for the first, then serving what is
/// there (`rd_kafka_consume_callback_queue`); each message is destroyed
/// after its call. How many, or -1.
#[no_mangle]
pub extern "C" fn rd_kafka_consume_callback_queue(
    rkqu: *mut Queue,
    timeout_ms: c_int,
    consume_cb: Option<ConsumeCb>,
    opaque: *mut c_void,
) -> c_int {
    guard(-1, || {
        let (Some((q, h, c)), Some(cb)) = (queue_parts(rkqu), consume_cb) else {
            return failed(RESP_ERR__INVALID_ARG, EINVAL);
        };
        let mut wait = Wait::of(timeout_ms);
        let mut n: c_int = 0;
        // every message taken is delivered in this call
        while let Some(m) = next_queued(h, c, q, wait, REFILL) {
            crate::consumer::with_consumed(h, m, |p| call_consume(cb, p, opaque as usize));
            n = n.saturating_add(1);
            wait = Wait::No;
        }
        n
    })
}
