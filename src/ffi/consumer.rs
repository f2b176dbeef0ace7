//! The consumer's C API beyond `gregor_consumer_new/assign/poll` (in
//! handles.rs): unassign and incremental assignment, seek, pause and
//! resume, positions, committed offsets, offsets for times, cached
//! watermarks, close; and reading and writing the entries of a
//! `gregor_tpl`, which these calls fill in place as librdkafka does with
//! `rd_kafka_topic_partition_list_t`.

use std::ffi::{c_char, c_int, CString};
use std::ptr;
use std::time::Duration;

use super::guard::{c_str, guard, guard_code, handle, handle_mut, put};
use super::handles::{gregor_consumer, gregor_tpl};
use crate::consumer::TopicPartitionOffset;
use crate::error::{local, Error};

fn timeout(ms: c_int) -> Duration {
    Duration::from_millis(ms.max(0) as u64)
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
    }
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
    guard_code(errstr, errstr_size, || {
        handle(consumer, "consumer")?.inner.unassign()
    })
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
        let c = handle(consumer, "consumer")?;
        c.inner.incremental_assign(entries(tpl)?)
    })
}

/// Removes the entries of `tpl` from the assignment, with their queued
/// messages. Returns 0, or `GREGOR_ERR__UNKNOWN_PARTITION` (and nothing
/// changes) for an entry not assigned. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_consumer_incremental_unassign(
    consumer: *const gregor_consumer,
    tpl: *const gregor_tpl,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let c = handle(consumer, "consumer")?;
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
        let c = handle(consumer, "consumer")?;
        if tpl_out.is_null() {
            return Err(super::guard::null_arg("tpl_out"));
        }
        let inner = c.inner.assignment();
        let names = inner
            .iter()
            .map(|e| CString::new(e.topic.as_str()).unwrap_or_default())
            .collect();
        put(
            tpl_out,
            Box::into_raw(Box::new(gregor_tpl { inner, names })),
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
        let c = handle(consumer, "consumer")?;
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
        let c = handle(consumer, "consumer")?;
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
        let c = handle(consumer, "consumer")?;
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
        let c = handle(consumer, "consumer")?;
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
        let c = handle(consumer, "consumer")?;
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
        let c = handle(consumer, "consumer")?;
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
        let c = handle(consumer, "consumer")?;
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
        let c = handle(consumer, "consumer")?;
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
        handle(consumer, "consumer")?.inner.close();
        Ok(())
    })
}

fn entry<'a>(
    tpl: *const gregor_tpl,
    i: usize,
) -> Option<(&'a gregor_tpl, &'a TopicPartitionOffset)> {
    let l: &'a gregor_tpl = handle(tpl, "tpl").ok()?;
    l.inner.get(i).map(|e| (l, e))
}

/// Entry `i`'s topic, NUL-terminated, valid until the list is freed (NULL if
/// out of range).
#[no_mangle]
pub extern "C" fn gregor_tpl_topic(tpl: *const gregor_tpl, i: usize) -> *const c_char {
    guard(ptr::null(), || {
        entry(tpl, i)
            .and_then(|(l, _)| l.names.get(i))
            .map_or(ptr::null(), |n| n.as_ptr())
    })
}

/// Entry `i`'s partition (-1 if out of range).
#[no_mangle]
pub extern "C" fn gregor_tpl_partition(tpl: *const gregor_tpl, i: usize) -> i32 {
    guard(-1, || entry(tpl, i).map_or(-1, |(_, e)| e.partition))
}

/// Entry `i`'s offset (`GREGOR_OFFSET_INVALID` if out of range).
#[no_mangle]
pub extern "C" fn gregor_tpl_offset(tpl: *const gregor_tpl, i: usize) -> i64 {
    guard(crate::message::offset::INVALID, || {
        entry(tpl, i).map_or(crate::message::offset::INVALID, |(_, e)| e.offset)
    })
}

/// Entry `i`'s leader epoch, or -1 if none (or out of range).
#[no_mangle]
pub extern "C" fn gregor_tpl_leader_epoch(tpl: *const gregor_tpl, i: usize) -> i32 {
    guard(-1, || {
        entry(tpl, i).map_or(-1, |(_, e)| e.leader_epoch.unwrap_or(-1))
    })
}

/// Entry `i`'s error code from the last call that filled the list (0 if
/// none; `GREGOR_ERR__INVALID_ARG` if out of range).
#[no_mangle]
pub extern "C" fn gregor_tpl_err(tpl: *const gregor_tpl, i: usize) -> c_int {
    guard(local::FAIL, || {
        entry(tpl, i).map_or(local::INVALID_ARG, |(_, e)| {
            e.error.as_ref().map_or(0, Error::code)
        })
    })
}

/// Entry `i`'s error text, copied NUL-terminated into `dest` (`dest_size`
/// bytes; "" without error). Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_tpl_errstr(
    tpl: *const gregor_tpl,
    i: usize,
    dest: *mut c_char,
    dest_size: usize,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let (_, e) = entry(tpl, i).ok_or_else(|| Error::invalid_arg("no such entry"))?;
        let text = e.error.as_ref().map_or(String::new(), ToString::to_string);
        super::guard::write_errstr(dest, dest_size, &text);
        Ok(())
    })
}

/// Sets entry `i`'s offset. Returns 0 or `GREGOR_ERR__INVALID_ARG`. Not
/// thread-safe for one list.
#[no_mangle]
pub extern "C" fn gregor_tpl_set_offset(tpl: *mut gregor_tpl, i: usize, offset: i64) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let l = handle_mut(tpl, "tpl")?;
        let e = l
            .inner
            .get_mut(i)
            .ok_or_else(|| Error::invalid_arg(format!("entry {i} out of range")))?;
        e.offset = offset;
        Ok(())
    })
}

/// Sets entry `i`'s leader epoch (-1 for none): a seek to the entry is then
/// validated against the leader's log. Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_tpl_set_leader_epoch(tpl: *mut gregor_tpl, i: usize, epoch: i32) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let l = handle_mut(tpl, "tpl")?;
        let e = l
            .inner
            .get_mut(i)
            .ok_or_else(|| Error::invalid_arg(format!("entry {i} out of range")))?;
        e.leader_epoch = (epoch >= 0).then_some(epoch);
        Ok(())
    })
}
