//! Topic partition lists (`gregor_tpl_*`): the entries consumer, producer
//! and admin calls read and fill in place, as librdkafka's
//! `rd_kafka_topic_partition_list_t`.

use std::ffi::{c_char, c_int, CString};
use std::ptr;

use super::guard::{field, guard, guard_code};
use super::raw::*;
use crate::consumer::TopicPartitionOffset;
use crate::error::{local, Error};

/// A list of topic/partition/offset entries.
pub struct gregor_tpl {
    pub(crate) inner: Vec<TopicPartitionOffset>,
    /// NUL-terminated topic names, by entry.
    pub(crate) names: Vec<CString>,
    /// NUL-terminated commit metadata, by entry (None: no metadata).
    pub(crate) metas: Vec<Option<CString>>,
}

impl gregor_tpl {
    /// A list of `inner`'s entries.
    pub(crate) fn from_entries(inner: Vec<TopicPartitionOffset>) -> Self {
        let mut l = gregor_tpl {
            inner,
            names: Vec::new(),
            metas: Vec::new(),
        };
        l.sync();
        l
    }

    /// Rebuilds the C strings from the entries.
    pub(crate) fn sync(&mut self) {
        self.names = self
            .inner
            .iter()
            .map(|e| CString::new(e.topic.as_str()).unwrap_or_default())
            .collect();
        self.metas = self
            .inner
            .iter()
            .map(|e| {
                e.metadata
                    .as_ref()
                    .map(|m| CString::new(m.as_str()).unwrap_or_default())
            })
            .collect();
    }
}

// ----- topic partition lists -----

/// A new, empty topic/partition/offset list. Caller owns it: free with `gregor_tpl_free`.
#[no_mangle]
pub extern "C" fn gregor_tpl_new() -> *mut gregor_tpl {
    guard(ptr::null_mut(), || {
        Box::into_raw(Box::new(gregor_tpl::from_entries(Vec::new())))
    })
}

/// Appends (topic, partition, offset). `offset` is absolute or one of
/// `GREGOR_OFFSET_BEGINNING` (-2), `GREGOR_OFFSET_END` (-1), or
/// `GREGOR_OFFSET_TAIL_BASE - n` (n before the end). Copies `topic`.
/// Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_tpl_add(
    tpl: *mut gregor_tpl,
    topic: *const c_char,
    partition: i32,
    offset: i64,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let l = handle_mut(tpl, "tpl")?;
        let topic = c_str(topic, "topic")?;
        l.inner
            .push(TopicPartitionOffset::new(topic, partition, offset));
        l.names.push(CString::new(topic).unwrap_or_default());
        l.metas.push(None);
        Ok(())
    })
}

/// Number of entries (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_tpl_count(tpl: *const gregor_tpl) -> usize {
    field(tpl, 0, |l| Some(l.inner.len()))
}

/// Frees a list. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_tpl_free(tpl: *mut gregor_tpl) {
    guard((), || free(tpl))
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
        write_errstr(dest, dest_size, &text);
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

/// Sets entry `idx`'s commit metadata (copied; NULL clears it). Returns 0
/// or `GREGOR_ERR__INVALID_ARG`. Not thread-safe for one list.
#[no_mangle]
pub extern "C" fn gregor_tpl_set_metadata(
    tpl: *mut gregor_tpl,
    idx: usize,
    metadata: *const c_char,
) -> i32 {
    guard_code(ptr::null_mut(), 0, || {
        let l = handle_mut(tpl, "tpl")?;
        let meta = if metadata.is_null() {
            None
        } else {
            Some(c_str(metadata, "metadata")?.to_string())
        };
        let e = l
            .inner
            .get_mut(idx)
            .ok_or_else(|| Error::invalid_arg(format!("entry {idx} out of range")))?;
        e.metadata = meta;
        l.sync();
        Ok(())
    })
}

/// Entry `idx`'s commit metadata, NUL-terminated, valid until the list is
/// changed or freed; NULL if it has none (or out of range).
#[no_mangle]
pub extern "C" fn gregor_tpl_metadata(tpl: *const gregor_tpl, idx: usize) -> *const c_char {
    field(tpl, ptr::null(), |l| {
        l.metas.get(idx)?.as_ref().map(|m| m.as_ptr())
    })
}
