//! The consumer's C API (`gregor_consumer_*`): the handle, assignment
//! (whole and incremental), poll, seek, pause and resume, positions,
//! committed offsets, offsets for times, watermarks, close; the group
//! calls (subscribe, commit, rebalance and commit callbacks). The
//! `gregor_tpl` lists these calls fill in place are in tpl.rs. Every
//! `gregor_consumer_*` function is in this folder: `group.rs` has the
//! group metadata, rebalance protocol, lost assignment and non-blocking
//! close, `callbacks.rs` the error, throttle and statistics callbacks,
//! fatal error, wake-ups and the SASL / OAUTHBEARER setters.

mod callbacks;
mod group;
pub use callbacks::*;
pub use group::*;

use std::ffi::{c_char, c_int, c_void};
use std::ptr;

use super::config::gregor_config;
use super::guard::{guard, guard_code};
use super::lifetime::enter;
use super::lifetime::{destroy, destroyed_error, handle_registry, register, Handle, Life};
use super::message::{gregor_message, into_handle};
use super::metadata::{gregor_metadata, metadata_of};
use super::raw::*;
use super::tpl::gregor_tpl;
use crate::consumer::Consumer;
use crate::consumer::TopicPartitionOffset;
use crate::error::{local, Error};
use crate::message::Message;

/// A consumer. Thread-safe.
pub struct gregor_consumer {
    pub(crate) inner: Consumer,
    life: Life,
}

impl Handle for gregor_consumer {
    const NAME: &'static str = "consumer";
    handle_registry!();
    fn life(&self) -> &Life {
        &self.life
    }
    /// Callbacks off (nothing may call into the application from the
    /// freeing thread), then close: a group member commits and leaves;
    /// polls blocked elsewhere return. Then the connections close for good.
    fn shutdown(&self) {
        self.inner.clear_rebalance_callback();
        self.inner.clear_commit_callback();
        self.inner.set_stats_callback(None);
        self.inner.close();
        self.inner.cluster().shutdown();
    }
}

// ----- consumer -----

/// A new consumer configured by `conf` (copied). Returns NULL on a bad
/// configuration, with the reason in `errstr`. Caller owns it: free with
/// `gregor_consumer_free`.
#[no_mangle]
pub extern "C" fn gregor_consumer_new(
    conf: *const gregor_config,
    errstr: *mut c_char,
    errstr_size: usize,
) -> *mut gregor_consumer {
    let mut out = ptr::null_mut();
    guard_code(errstr, errstr_size, || {
        let conf = handle(conf, "conf")?;
        let c = Consumer::new(&conf.inner)?;
        let cluster = c.cluster().clone();
        out = register(Box::new(gregor_consumer {
            inner: c,
            life: Life::new(),
        }));
        super::config::install(conf, &cluster, out.cast(), false);
        Ok(())
    });
    out
}

/// Replaces the consumer's assignment with `tpl` (copied; NULL or empty
/// unassigns). Returns 0 or `GREGOR_ERR__INVALID_ARG`. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_consumer_assign(
    consumer: *const gregor_consumer,
    tpl: *const gregor_tpl,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let c = enter(consumer)?;
        let list = if tpl.is_null() {
            &[][..]
        } else {
            &handle(tpl, "tpl")?.inner[..]
        };
        c.inner.assign(list)
    })
}

/// Waits up to `timeout_ms` for the next message. Returns a message the
/// caller owns (free with `gregor_message_free`), or NULL on timeout (or a
/// NULL consumer). Errors come as messages whose `gregor_message_err` is
/// non-zero, as in librdkafka. Thread-safe; blocks.
#[no_mangle]
pub extern "C" fn gregor_consumer_poll(
    consumer: *const gregor_consumer,
    timeout_ms: c_int,
) -> *mut gregor_message {
    guard(ptr::null_mut(), || {
        let c = match enter(consumer) {
            Ok(c) => c,
            Err(e) if e.code() == local::DESTROY => {
                return into_handle(Message::event("".into(), -1, -1, e))
            }
            Err(_) => return ptr::null_mut(),
        };
        let timeout = timeout(timeout_ms);
        let r = c.inner.poll(timeout);
        if c.life().is_destroyed() {
            // freed while polling: whatever came is moot
            let e = destroyed_error(gregor_consumer::NAME);
            return into_handle(Message::event("".into(), -1, -1, e));
        }
        let msg = match r {
            Ok(Some(m)) => m,
            Ok(None) => return ptr::null_mut(),
            Err(e) => Message::event("".into(), -1, -1, e),
        };
        into_handle(msg)
    })
}

/// Low and high watermarks of a partition, asked of its leader. Blocks up to
/// `timeout_ms`. Writes the non-NULL out-parameters on success.
#[no_mangle]
pub extern "C" fn gregor_consumer_watermarks(
    consumer: *const gregor_consumer,
    topic: *const c_char,
    partition: i32,
    low: *mut i64,
    high: *mut i64,
    timeout_ms: c_int,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let c = enter(consumer)?;
        let topic = c_str(topic, "topic")?;
        let (lo, hi) = c.inner.watermarks(topic, partition, timeout(timeout_ms))?;
        put(low, lo);
        put(high, hi);
        Ok(())
    })
}

/// As `gregor_producer_metadata`, through a consumer.
#[no_mangle]
pub extern "C" fn gregor_consumer_metadata(
    consumer: *const gregor_consumer,
    topic: *const c_char,
    timeout_ms: c_int,
    metadata: *mut *mut gregor_metadata,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let c = enter(consumer)?;
        metadata_of(c.inner.cluster(), topic, timeout_ms, metadata)
    })
}

/// Frees a consumer, closing its connections and waiting for their I/O
/// threads to end (a group member not closed yet commits and leaves, as
/// `gregor_consumer_close`, without running callbacks). NULL is a no-op.
///
/// Lifetime: safe while other threads are inside calls on the handle (see
/// the header's preamble): new calls fail with `GREGOR_ERR__DESTROY`, calls
/// in flight are woken and return `GREGOR_ERR__DESTROY`, and this waits for
/// them to leave before releasing anything. A second free of the same
/// pointer is a no-op.
/// From inside one of the consumer's own callbacks it is a no-op (misuse:
/// the handle is in use there, and the free would wait for itself).
#[no_mangle]
pub extern "C" fn gregor_consumer_free(consumer: *mut gregor_consumer) {
    guard((), || destroy(consumer))
}

fn entries<'a>(tpl: *const gregor_tpl) -> Result<&'a [TopicPartitionOffset], Error> {
    if tpl.is_null() {
        return Ok(&[]);
    }
    Ok(&handle(tpl, "tpl")?.inner[..])
}

/// Writes answers into `tpl` entry by entry (same order and length).
fn fill(tpl: &mut gregor_tpl, answers: Vec<TopicPartitionOffset>) {
    for (e, a) in tpl.inner.iter_mut().zip(answers) {
        e.offset = a.offset;
        e.leader_epoch = a.leader_epoch;
        e.error = a.error;
        if a.metadata.is_some() {
            e.metadata = a.metadata;
        }
    }
    tpl.sync();
}

/// The first entry error, to return as the call's result (librdkafka
/// returns success and leaves entry errors in the list; so do these calls
/// when every entry succeeded).
fn first_error(tpl: &gregor_tpl) -> Result<(), Error> {
    match tpl.inner.iter().find_map(|e| e.error.clone()) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Removes every partition from the assignment. Returns 0. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_consumer_unassign(
    consumer: *const gregor_consumer,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || enter(consumer)?.inner.unassign())
}

/// Adds the entries of `tpl` (copied) to the assignment, each starting at
/// its offset (absolute or `GREGOR_OFFSET_*`). Returns 0, or
/// `GREGOR_ERR__INVALID_ARG` (and nothing changes) for an entry already
/// assigned, listed twice, or with a bad offset. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_consumer_incremental_assign(
    consumer: *const gregor_consumer,
    tpl: *const gregor_tpl,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let c = enter(consumer)?;
        c.inner.incremental_assign(entries(tpl)?)
    })
}

/// Removes the entries of `tpl` from the assignment, with their queued
/// messages. Returns 0, or `GREGOR_ERR__INVALID_ARG` (and nothing
/// changes) for an entry not assigned. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_consumer_incremental_unassign(
    consumer: *const gregor_consumer,
    tpl: *const gregor_tpl,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let c = enter(consumer)?;
        c.inner.incremental_unassign(entries(tpl)?)
    })
}

/// The current assignment, each entry with its position: on success
/// `*tpl_out` receives a list the caller owns (free with `gregor_tpl_free`).
/// Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_consumer_assignment(
    consumer: *const gregor_consumer,
    tpl_out: *mut *mut gregor_tpl,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let c = enter(consumer)?;
        if tpl_out.is_null() {
            return Err(null_arg("tpl_out"));
        }
        let inner = c.inner.assignment();
        put(
            tpl_out,
            Box::into_raw(Box::new(gregor_tpl::from_entries(inner))),
        );
        Ok(())
    })
}

/// Moves a partition's position to `offset` (absolute or `GREGOR_OFFSET_*`):
/// the next message polled from it is there. Messages already fetched for it
/// are dropped. Returns 0, `GREGOR_ERR__UNKNOWN_PARTITION` if not assigned,
/// `GREGOR_ERR__INVALID_ARG` for a bad offset. Does not block. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_consumer_seek(
    consumer: *const gregor_consumer,
    topic: *const c_char,
    partition: i32,
    offset: i64,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let c = enter(consumer)?;
        c.inner.seek(c_str(topic, "topic")?, partition, offset)
    })
}

/// `gregor_consumer_seek` for every entry of `tpl` at once; an entry with a
/// leader epoch (`gregor_tpl_set_leader_epoch`) is validated against the
/// leader's log first. Nothing changes on error. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_consumer_seek_partitions(
    consumer: *const gregor_consumer,
    tpl: *const gregor_tpl,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let c = enter(consumer)?;
        c.inner.seek_partitions(entries(tpl)?)
    })
}

/// Stops fetching the entries of `tpl` and handing out their messages;
/// what was fetched is kept. Returns 0, or `GREGOR_ERR__UNKNOWN_PARTITION`
/// (and nothing changes) for an entry not assigned. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_consumer_pause(
    consumer: *const gregor_consumer,
    tpl: *const gregor_tpl,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let c = enter(consumer)?;
        c.inner.pause(entries(tpl)?)
    })
}

/// Resumes paused partitions. As `gregor_consumer_pause`.
#[no_mangle]
pub extern "C" fn gregor_consumer_resume(
    consumer: *const gregor_consumer,
    tpl: *const gregor_tpl,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let c = enter(consumer)?;
        c.inner.resume(entries(tpl)?)
    })
}

/// Sets each entry's offset to its partition's position (the offset after
/// the last message handed out; before any, the start offset once known,
/// else `GREGOR_OFFSET_INVALID`). Entries not assigned get
/// `GREGOR_ERR__UNKNOWN_PARTITION` (`gregor_tpl_err`), which is also
/// returned. Does not block. Thread-safe for `consumer`; `tpl` is written.
#[no_mangle]
pub extern "C" fn gregor_consumer_position(
    consumer: *const gregor_consumer,
    tpl: *mut gregor_tpl,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let c = enter(consumer)?;
        let l = handle_mut(tpl, "tpl")?;
        let answers = c.inner.position(&l.inner);
        fill(l, answers);
        first_error(l)
    })
}

/// Sets each entry's offset (and leader epoch) to the offset `group.id`
/// committed for it (OffsetFetch to the group coordinator; no group
/// membership needed), `GREGOR_OFFSET_INVALID` where it committed none.
/// Returns 0; `GREGOR_ERR__INVALID_ARG` without `group.id`; the error of
/// the request, or of the first entry that failed. Blocks up to `timeout_ms`.
#[no_mangle]
pub extern "C" fn gregor_consumer_committed(
    consumer: *const gregor_consumer,
    tpl: *mut gregor_tpl,
    timeout_ms: c_int,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let c = enter(consumer)?;
        let l = handle_mut(tpl, "tpl")?;
        let answers = c.inner.committed(&l.inner, timeout(timeout_ms))?;
        fill(l, answers);
        first_error(l)
    })
}

/// Each entry's offset is a timestamp (ms) on the way in; on the way out it
/// is the first offset whose timestamp is at or after it, or -1 if none
/// (ListOffsets to each partition's leader). Returns 0, or the first entry
/// error. Blocks up to `timeout_ms`.
#[no_mangle]
pub extern "C" fn gregor_consumer_offsets_for_times(
    consumer: *const gregor_consumer,
    tpl: *mut gregor_tpl,
    timeout_ms: c_int,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let c = enter(consumer)?;
        let l = handle_mut(tpl, "tpl")?;
        let answers = c.inner.offsets_for_times(&l.inner, timeout(timeout_ms))?;
        fill(l, answers);
        first_error(l)
    })
}

/// The log start offset and high watermark an assigned partition's last
/// fetch brought back, without asking the broker (`GREGOR_OFFSET_INVALID`
/// for what is not known yet). Returns 0 or `GREGOR_ERR__UNKNOWN_PARTITION`.
/// Does not block.
#[no_mangle]
pub extern "C" fn gregor_consumer_get_watermark_offsets(
    consumer: *const gregor_consumer,
    topic: *const c_char,
    partition: i32,
    low: *mut i64,
    high: *mut i64,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let c = enter(consumer)?;
        let (lo, hi) = c
            .inner
            .cached_watermarks(c_str(topic, "topic")?, partition)?;
        put(low, lo);
        put(high, hi);
        Ok(())
    })
}

/// Stops fetching, closes the connections and ends the consumer's threads;
/// later polls return an error message (`GREGOR_ERR__STATE`). The consumer
/// must still be freed. Blocks until its threads end.
#[no_mangle]
pub extern "C" fn gregor_consumer_close(consumer: *const gregor_consumer) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        enter(consumer)?.inner.close();
        Ok(())
    })
}

// ----- consumer groups -----

/// GREGOR_REBALANCE_ASSIGNED: partitions given to this member.
pub const GREGOR_REBALANCE_ASSIGNED: i32 = 1;
/// GREGOR_REBALANCE_REVOKED: partitions taken away in a rebalance.
pub const GREGOR_REBALANCE_REVOKED: i32 = 2;
/// GREGOR_REBALANCE_LOST: partitions lost (session expired, fenced, poll
/// interval exceeded).
pub const GREGOR_REBALANCE_LOST: i32 = 3;

/// The rebalance callback: `event` is one of `GREGOR_REBALANCE_*`;
/// `partitions` is borrowed for the call. It runs only inside
/// `gregor_consumer_poll` / `gregor_consumer_close`, on the caller's
/// thread. If it calls `gregor_consumer_assign`, `_unassign`,
/// `_incremental_assign` or `_incremental_unassign`, that is the event's
/// outcome; otherwise gregor applies the event after it returns.
pub type gregor_rebalance_cb = Option<
    extern "C" fn(
        c: *mut gregor_consumer,
        event: i32,
        partitions: *const gregor_tpl,
        opaque: *mut c_void,
    ),
>;

/// The commit callback: the result (`err`, 0 on success) of an async or
/// automatic commit, with the offsets and their entry errors (borrowed for
/// the call). Runs only inside `gregor_consumer_poll`, on the caller's thread.
pub type gregor_commit_cb = Option<
    extern "C" fn(
        c: *mut gregor_consumer,
        err: i32,
        offsets: *const gregor_tpl,
        opaque: *mut c_void,
    ),
>;

/// The C side's handle and opaque pointer, moved into a callback closure.
#[derive(Clone, Copy)]
struct CallbackTarget {
    consumer: usize,
    opaque: usize,
}

impl CallbackTarget {
    fn consumer(&self) -> *mut gregor_consumer {
        self.consumer as *mut gregor_consumer
    }

    fn opaque(&self) -> *mut c_void {
        self.opaque as *mut c_void
    }
}

/// Sets (or with `cb` NULL, clears) the rebalance callback; set it before
/// `gregor_consumer_subscribe`. `opaque` is passed back unchanged. Returns 0
/// or `GREGOR_ERR__INVALID_ARG` for a NULL consumer.
#[no_mangle]
pub extern "C" fn gregor_consumer_set_rebalance_cb(
    c: *mut gregor_consumer,
    cb: gregor_rebalance_cb,
    opaque: *mut c_void,
) -> i32 {
    guard_code(ptr::null_mut(), 0, || {
        let h = enter(c as *const gregor_consumer)?;
        let Some(f) = cb else {
            h.inner.clear_rebalance_callback();
            return Ok(());
        };
        let target = CallbackTarget {
            consumer: c as usize,
            opaque: opaque as usize,
        };
        // Runs inside a call on the handle (poll, close), which keeps it
        // alive: a `gregor_consumer_free` from the callback is refused
        // (src/ffi/lifetime.rs).
        h.inner.set_rebalance_callback(move |_, event| {
            let tpl = gregor_tpl::from_entries(event.partitions().to_vec());
            f(target.consumer(), event.code(), &tpl, target.opaque());
        });
        Ok(())
    })
}

/// Sets (or with `cb` NULL, clears) the commit callback. Returns 0 or
/// `GREGOR_ERR__INVALID_ARG` for a NULL consumer.
#[no_mangle]
pub extern "C" fn gregor_consumer_set_commit_cb(
    c: *mut gregor_consumer,
    cb: gregor_commit_cb,
    opaque: *mut c_void,
) -> i32 {
    guard_code(ptr::null_mut(), 0, || {
        let h = enter(c as *const gregor_consumer)?;
        let Some(f) = cb else {
            h.inner.clear_commit_callback();
            return Ok(());
        };
        let target = CallbackTarget {
            consumer: c as usize,
            opaque: opaque as usize,
        };
        h.inner.set_commit_callback(move |_, result, offsets| {
            let tpl = gregor_tpl::from_entries(offsets.to_vec());
            let err = result.err().map_or(0, |e| e.code());
            f(target.consumer(), err, &tpl, target.opaque());
        });
        Ok(())
    })
}

/// Joins the consumer's group (`group.id`) subscribed to `count` topics
/// (NUL-terminated names; a name starting with `^` is a regular
/// expression). Replaces an earlier subscription; partitions come through
/// rebalances served in `gregor_consumer_poll`. Returns 0, or
/// `GREGOR_ERR__INVALID_ARG` without `group.id`, for no topics, a NULL or
/// empty name, or a bad pattern (the reason in `errstr`). Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_consumer_subscribe(
    c: *mut gregor_consumer,
    topics: *const *const c_char,
    count: usize,
    errstr: *mut c_char,
    errstr_size: usize,
) -> i32 {
    guard_code(errstr, errstr_size, || {
        let h = enter(c as *const gregor_consumer)?;
        let names = c_strs(topics, count, "topics")?;
        h.inner.subscribe(&names)
    })
}

/// Drops the subscription: partitions are given up (offsets committed
/// first with `enable.auto.commit`) and the member leaves its group, in the
/// background. Returns 0 or `GREGOR_ERR__INVALID_ARG` without `group.id`.
#[no_mangle]
pub extern "C" fn gregor_consumer_unsubscribe(c: *mut gregor_consumer) -> i32 {
    guard_code(ptr::null_mut(), 0, || {
        enter(c as *const gregor_consumer)?.inner.unsubscribe()
    })
}

/// The subscription: on success `*out` receives a list the caller owns
/// (free with `gregor_tpl_free`), one entry per topic or pattern, partition
/// -1, offset `GREGOR_OFFSET_INVALID`.
#[no_mangle]
pub extern "C" fn gregor_consumer_subscription(
    c: *mut gregor_consumer,
    out: *mut *mut gregor_tpl,
) -> i32 {
    guard_code(ptr::null_mut(), 0, || {
        let h = enter(c as *const gregor_consumer)?;
        if out.is_null() {
            return Err(null_arg("out"));
        }
        let inner = h
            .inner
            .subscription()
            .into_iter()
            .map(|t| TopicPartitionOffset::new(t, -1, crate::message::offset::INVALID))
            .collect();
        put(
            out,
            Box::into_raw(Box::new(gregor_tpl::from_entries(inner))),
        );
        Ok(())
    })
}

/// Commits `offsets` (copied; with their metadata) or, with NULL, the
/// positions of the messages consumed (the stored offsets). `async` zero:
/// waits (up to `socket.timeout.ms`) and returns the result — 0, the first
/// entry error, `GREGOR_ERR__NO_OFFSET` when there is nothing to commit;
/// non-zero: returns 0 at once and the result goes to the commit callback
/// in `gregor_consumer_poll`. `GREGOR_ERR__INVALID_ARG` without `group.id`.
#[no_mangle]
pub extern "C" fn gregor_consumer_commit(
    c: *mut gregor_consumer,
    offsets: *const gregor_tpl,
    r#async: i32,
    errstr: *mut c_char,
    errstr_size: usize,
) -> i32 {
    guard_code(errstr, errstr_size, || {
        let h = enter(c as *const gregor_consumer)?;
        let list = if offsets.is_null() {
            None
        } else {
            Some(&handle(offsets, "offsets")?.inner[..])
        };
        if r#async != 0 {
            return h.inner.commit_async(list);
        }
        let timeout = h.inner.cluster().config().ms("socket.timeout.ms");
        h.inner.commit(list, timeout).map(|_| ())
    })
}

/// Stores offsets (with their metadata) for the next commit, for use with
/// `enable.auto.offset.store=false`. Returns 0, `GREGOR_ERR__INVALID_ARG`
/// without `group.id` or for a negative offset, `GREGOR_ERR__UNKNOWN_PARTITION`
/// (nothing stored) for a partition not assigned.
#[no_mangle]
pub extern "C" fn gregor_consumer_store_offsets(
    c: *mut gregor_consumer,
    offsets: *const gregor_tpl,
) -> i32 {
    guard_code(ptr::null_mut(), 0, || {
        let h = enter(c as *const gregor_consumer)?;
        h.inner.store_offsets(entries(offsets)?)
    })
}

/// Copies the member id the group coordinator gave this consumer ("" before
/// joining), NUL-terminated, into `buf` (`size` bytes). Returns 0, or
/// `GREGOR_ERR__INVALID_ARG` (nothing written) when `buf` is NULL or too small.
#[no_mangle]
pub extern "C" fn gregor_consumer_member_id(
    c: *mut gregor_consumer,
    buf: *mut c_char,
    size: usize,
) -> i32 {
    guard_code(ptr::null_mut(), 0, || {
        let h = enter(c as *const gregor_consumer)?;
        if buf.is_null() {
            return Err(null_arg("buf"));
        }
        let id = h.inner.member_id();
        if id.len() + 1 > size {
            return Err(Error::invalid_arg(format!(
                "member id needs {} bytes",
                id.len() + 1
            )));
        }
        write_errstr(buf, size, &id);
        Ok(())
    })
}
