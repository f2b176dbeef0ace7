//! Topic partition lists: `rd_kafka_topic_partition_list_t` and
//! `rd_kafka_topic_partition_t` of rdkafka.h, public structs the
//! application reads and writes in place, so both are `repr(C)` with
//! rdkafka.h's exact layout and live on the C heap ([`crate::mem`]): the
//! application may put its own `malloc`ed `metadata` into an element, and
//! the list frees it.
//!
//! Behaviour is librdkafka 2.12.1's, as rdkafka.h documents it and as
//! `rdkafka/tests/lists.c` compares it against the real library:
//!
//! - `new(size)` makes room for `size` elements (none for 0 or less);
//!   adding to a full list grows it by one at first, then by the larger of
//!   its size and 32, so `size` reads as librdkafka's does.
//! - `add` copies the topic and returns the new element, its offset
//!   `RD_KAFKA_OFFSET_INVALID`, everything else zero; `add_range` adds
//!   `start..=stop`.
//! - `find`, `del` and `set_offset` match the first element with the same
//!   topic and partition; `del` and `del_by_idx` answer 1 if one was
//!   removed, else 0 (the elements after it move down one);
//!   `set_offset` answers `RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION` for none.
//! - `copy` is deep (topics, metadata, the leader epochs) and has the
//!   source's size; `opaque` is copied as the pointer it is.
//! - `sort` without a comparator orders by topic (as `strcmp`) then
//!   partition; with one, calls it with two elements and `cmp_opaque`.
//! - The leader epoch (KIP-320) is kept in the element's `_private` part,
//!   allocated on first set, as librdkafka does: -1 until set.
//! - `destroy` frees every element's topic, metadata and private part.
//!
//! Where librdkafka would crash (a NULL list, a NULL topic to match), these
//! do nothing, find nothing, or answer NULL.
//!
//! For the rest of the crate: `to_offsets`, `new_list`, `update_list`
//! and `new_partition` convert between a C list and gregor's
//! [`TopicPartitionOffset`]s, and `OwnedList` is a list that destroys
//! itself.

#![allow(unsafe_code)] // `#[no_mangle]`, and the `access` module's raw pointers

use std::cmp::Ordering;
use std::ffi::{c_char, c_int, c_void};
use std::ptr;

use gregor::consumer::TopicPartitionOffset;
use gregor::error::{code_description, Error, KafkaCode};

use crate::guard::guard;
use crate::mem;

/// `RD_KAFKA_OFFSET_INVALID`: the offset of a new element.
pub const OFFSET_INVALID: i64 = -1001;
/// `RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION`.
pub const RESP_ERR__UNKNOWN_PARTITION: c_int = -190;

/// `rd_kafka_topic_partition_t`.
#[repr(C)]
#[derive(Debug)]
pub struct TopicPartition {
    /// The topic name (the C heap's; freed with the element).
    pub topic: *mut c_char,
    /// The partition.
    pub partition: i32,
    /// The offset.
    pub offset: i64,
    /// Metadata (the C heap's; freed with the element).
    pub metadata: *mut c_void,
    /// The metadata's size.
    pub metadata_size: usize,
    /// The application's pointer.
    pub opaque: *mut c_void,
    /// An error code (`rd_kafka_resp_err_t`).
    pub err: c_int,
    /// The library's private part (`Private` here).
    pub _private: *mut c_void,
}

/// `rd_kafka_topic_partition_list_t`.
#[repr(C)]
#[derive(Debug)]
pub struct TopicPartitionList {
    /// Elements in use.
    pub cnt: c_int,
    /// Elements allocated.
    pub size: c_int,
    /// The array (the C heap's).
    pub elems: *mut TopicPartition,
}

const _: () =
    assert!(std::mem::size_of::<TopicPartition>() == 64 || cfg!(target_pointer_width = "32"));
const _: () =
    assert!(std::mem::size_of::<TopicPartitionList>() == 16 || cfg!(target_pointer_width = "32"));

/// What an element's `_private` points to: the leader epochs (KIP-320),
/// -1 for unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Private {
    /// The leader epoch of the offset.
    pub(crate) leader_epoch: i32,
    /// The leader epoch the client knows for the partition.
    pub(crate) current_leader_epoch: i32,
}

impl Default for Private {
    fn default() -> Self {
        Private {
            leader_epoch: -1,
            current_leader_epoch: -1,
        }
    }
}

/// Every dereference of the caller's lists and elements, and every
/// allocation of them.
mod access {
    use super::*;

    /// The list behind a pointer from `rd_kafka_topic_partition_list_new`
    /// (or the application's own of the same layout); `None` for NULL.
    pub(super) fn list<'a>(p: *const TopicPartitionList) -> Option<&'a TopicPartitionList> {
        // SAFETY: rdkafka.h: a non-NULL list pointer is a live list, not
        // freed during the call.
        unsafe { p.as_ref() }
    }

    /// As [`list`], to change it.
    pub(super) fn list_mut<'a>(p: *mut TopicPartitionList) -> Option<&'a mut TopicPartitionList> {
        // SAFETY: as `list`; the caller does not use it from another
        // thread during the call (rdkafka.h: lists are not thread-safe).
        unsafe { p.as_mut() }
    }

    /// The element behind a pointer into a list (or from
    /// `rd_kafka_event_topic_partition`); `None` for NULL.
    pub(super) fn elem<'a>(p: *const TopicPartition) -> Option<&'a TopicPartition> {
        // SAFETY: rdkafka.h: a non-NULL element pointer is a live element.
        unsafe { p.as_ref() }
    }

    /// As [`elem`], to change it.
    pub(super) fn elem_mut<'a>(p: *mut TopicPartition) -> Option<&'a mut TopicPartition> {
        // SAFETY: as `elem`, not used elsewhere during the call.
        unsafe { p.as_mut() }
    }

    /// A new empty list on the C heap.
    pub(super) fn new_list() -> *mut TopicPartitionList {
        mem::alloc_zeroed::<TopicPartitionList>()
    }

    /// Frees the list struct and its array (not the elements' parts).
    pub(super) fn free_list(p: *mut TopicPartitionList) {
        let Some(list) = list_mut(p) else { return };
        // SAFETY: `elems` is NULL or the array `grow` allocated (or the
        // application's of the C heap), and `p` came from `new_list`; neither
        // is used again (the caller gives the list up).
        unsafe {
            mem::free(list.elems.cast());
            mem::free(p.cast());
        }
    }

    impl TopicPartitionList {
        /// The elements in use.
        pub(crate) fn elems(&self) -> &[TopicPartition] {
            if self.elems.is_null() || self.cnt <= 0 {
                return &[];
            }
            // SAFETY: `elems` holds `cnt` initialized elements (`add` writes
            // each before counting it).
            unsafe { std::slice::from_raw_parts(self.elems, self.cnt as usize) }
        }

        /// As [`elems`](Self::elems), to change them.
        pub(crate) fn elems_mut(&mut self) -> &mut [TopicPartition] {
            if self.elems.is_null() || self.cnt <= 0 {
                return &mut [];
            }
            // SAFETY: as `elems`; `&mut self` makes the borrow unique.
            unsafe { std::slice::from_raw_parts_mut(self.elems, self.cnt as usize) }
        }

        /// Room for `add` more elements, by librdkafka's rule: a request
        /// smaller than the current size grows it by the larger of the
        /// size and 32.
        pub(super) fn grow(&mut self, add: c_int) {
            let add = if add < self.size {
                self.size.max(32)
            } else {
                add
            };
            let size = self
                .size
                .checked_add(add)
                .expect("a list of at most INT_MAX elements");
            let bytes = (size as usize)
                .checked_mul(std::mem::size_of::<TopicPartition>())
                .expect("a list that fits in memory");
            // SAFETY: `elems` is NULL or this list's array of the C heap; on
            // success the old pointer is replaced at once.
            let p = unsafe { mem::realloc(self.elems.cast(), bytes) };
            if p.is_null() {
                std::alloc::handle_alloc_error(
                    std::alloc::Layout::array::<TopicPartition>(size as usize)
                        .expect("a list that fits in memory"),
                );
            }
            self.elems = p.cast();
            self.size = size;
        }

        /// Appends `elem` (growing the list when full) and returns it.
        pub(super) fn push(&mut self, elem: TopicPartition) -> &mut TopicPartition {
            if self.cnt.max(0) >= self.size || self.elems.is_null() {
                self.grow(1);
            }
            let at = self.cnt.max(0) as usize;
            // SAFETY: `at < size`, so the slot is inside the array; it holds
            // no element (or a stale copy), so it is written, not dropped.
            let slot = unsafe { self.elems.add(at) };
            // SAFETY: as above.
            unsafe { slot.write(elem) };
            self.cnt = at as c_int + 1;
            // SAFETY: just written; borrowed from `&mut self`.
            unsafe { &mut *slot }
        }
    }

    impl TopicPartition {
        /// The topic's bytes; `None` for a NULL topic.
        pub(crate) fn topic_bytes(&self) -> Option<&[u8]> {
            // SAFETY: `topic` is NULL or a NUL-terminated string of the C heap
            // that this element owns.
            unsafe { mem::cstr_bytes(self.topic) }
        }

        /// The metadata's `metadata_size` bytes; `None` for NULL metadata.
        pub(crate) fn metadata_bytes(&self) -> Option<&[u8]> {
            // SAFETY: rdkafka.h: `metadata` is NULL or `metadata_size`
            // readable bytes the element owns.
            (!self.metadata.is_null())
                .then(|| unsafe { mem::bytes(self.metadata, self.metadata_size) })
        }

        /// The private part, if one was made.
        pub(crate) fn private(&self) -> Option<&Private> {
            // SAFETY: `_private` is NULL or a `Private` that `private_mut`
            // boxed for this element.
            unsafe { self._private.cast::<Private>().as_ref() }
        }

        /// The private part, made on first use.
        pub(crate) fn private_mut(&mut self) -> &mut Private {
            if self._private.is_null() {
                self._private = Box::into_raw(Box::<Private>::default()).cast();
            }
            // SAFETY: as `private`; non-NULL now; `&mut self` is unique.
            unsafe { &mut *self._private.cast::<Private>() }
        }

        /// Frees the topic, metadata and private part, leaving NULLs.
        pub(crate) fn clear(&mut self) {
            // SAFETY: `topic` and `metadata` are NULL or the C heap's, owned
            // by this element (rdkafka.h: the list frees them); `_private`
            // is NULL or boxed by `private_mut`. All are forgotten below.
            unsafe {
                mem::free(self.topic.cast());
                mem::free(self.metadata);
                if !self._private.is_null() {
                    drop(Box::from_raw(self._private.cast::<Private>()));
                }
            }
            self.topic = ptr::null_mut();
            self.metadata = ptr::null_mut();
            self.metadata_size = 0;
            self._private = ptr::null_mut();
        }
    }

    /// The application's comparator on two elements.
    pub(super) fn call_cmp(
        cmp: unsafe extern "C" fn(*const c_void, *const c_void, *mut c_void) -> c_int,
        a: &TopicPartition,
        b: &TopicPartition,
        opaque: *mut c_void,
    ) -> c_int {
        let a: *const TopicPartition = a;
        let b: *const TopicPartition = b;
        // SAFETY: rdkafka.h: `cmp` compares two `rd_kafka_topic_partition_t *`
        // given with `cmp_opaque`; both point to live elements.
        unsafe { cmp(a.cast(), b.cast(), opaque) }
    }

    /// A standalone element on the C heap (for `rd_kafka_topic_partition_destroy`).
    pub(super) fn new_partition() -> *mut TopicPartition {
        mem::alloc_zeroed::<TopicPartition>()
    }

    /// Frees a standalone element's parts and the element.
    pub(super) fn free_partition(p: *mut TopicPartition) {
        let Some(e) = elem_mut(p) else { return };
        e.clear();
        // SAFETY: rdkafka.h: `rd_kafka_topic_partition_destroy` is given
        // only an element made alone (on the C heap), not one of a list.
        unsafe { mem::free(p.cast()) }
    }
}

impl TopicPartition {
    /// A new element: the topic copied, offset `RD_KAFKA_OFFSET_INVALID`,
    /// everything else zero.
    fn new(topic: Option<&[u8]>, partition: i32) -> Self {
        TopicPartition {
            topic: topic.map_or(ptr::null_mut(), mem::strdup_bytes),
            partition,
            offset: OFFSET_INVALID,
            metadata: ptr::null_mut(),
            metadata_size: 0,
            opaque: ptr::null_mut(),
            err: 0,
            _private: ptr::null_mut(),
        }
    }

    /// True if this is `topic` (`None` matches nothing) and `partition`.
    fn is(&self, topic: Option<&[u8]>, partition: i32) -> bool {
        self.partition == partition && topic.is_some() && self.topic_bytes() == topic
    }

    /// Copies offset, opaque, error, metadata and leader epochs of `src`
    /// (librdkafka's copy of an element into another list).
    fn update_from(&mut self, src: &TopicPartition) {
        self.offset = src.offset;
        self.opaque = src.opaque;
        self.err = src.err;
        if src.metadata_size > 0 {
            if let Some(m) = src.metadata_bytes() {
                self.set_metadata(m);
            }
        }
        if let Some(p) = src.private() {
            *self.private_mut() = *p;
        }
    }

    /// Replaces the metadata with a copy of `m`.
    fn set_metadata(&mut self, m: &[u8]) {
        let old = std::mem::replace(&mut self.metadata, mem::memdup(m));
        self.metadata_size = m.len();
        // SAFETY: the old metadata was NULL or this element's block of the C heap.
        unsafe { mem::free(old) };
    }

    /// The leader epoch, -1 if none was set.
    pub(crate) fn leader_epoch(&self) -> i32 {
        self.private().map_or(-1, |p| p.leader_epoch)
    }

    /// Sets the leader epoch (nothing to make for -1 on an element with no
    /// private part, as librdkafka).
    pub(crate) fn set_leader_epoch(&mut self, epoch: i32) {
        if epoch == -1 && self.private().is_none() {
            return;
        }
        self.private_mut().leader_epoch = epoch;
    }
}

impl TopicPartitionList {
    /// The index of the first element that is `topic` and `partition`.
    fn find_idx(&self, topic: Option<&[u8]>, partition: i32) -> Option<usize> {
        self.elems().iter().position(|e| e.is(topic, partition))
    }

    /// Removes element `idx`, moving the later ones down; false if there
    /// is none.
    fn del_idx(&mut self, idx: usize) -> bool {
        let elems = self.elems_mut();
        if idx >= elems.len() {
            return false;
        }
        elems[idx].clear();
        elems[idx..].rotate_left(1);
        self.cnt -= 1;
        true
    }
}

/// librdkafka's default order: topic (bytewise, as `strcmp`), then partition.
fn default_order(a: &TopicPartition, b: &TopicPartition) -> Ordering {
    a.topic_bytes()
        .cmp(&b.topic_bytes())
        .then(a.partition.cmp(&b.partition))
}

/// A new list with room for `size` elements.
fn list_with_size(size: c_int) -> *mut TopicPartitionList {
    let p = access::new_list();
    if size > 0 {
        if let Some(list) = access::list_mut(p) {
            list.grow(size);
        }
    }
    p
}

/// Frees a list and everything its elements own.
fn destroy(p: *mut TopicPartitionList) {
    if let Some(list) = access::list_mut(p) {
        list.elems_mut().iter_mut().for_each(TopicPartition::clear);
    }
    access::free_list(p);
}

fn topic_arg<'a>(topic: *const c_char) -> Option<&'a [u8]> {
    // SAFETY: rdkafka.h: `topic` is a NUL-terminated string for the call.
    unsafe { mem::cstr_bytes(topic) }
}

/// `rd_kafka_topic_partition_list_new`.
#[no_mangle]
pub extern "C" fn rd_kafka_topic_partition_list_new(size: c_int) -> *mut TopicPartitionList {
    guard(ptr::null_mut(), || list_with_size(size))
}

/// `rd_kafka_topic_partition_list_destroy`; NULL is nothing.
#[no_mangle]
pub extern "C" fn rd_kafka_topic_partition_list_destroy(rkparlist: *mut TopicPartitionList) {
    guard((), || destroy(rkparlist))
}

/// `rd_kafka_topic_partition_destroy`: an element made alone (not one of a
/// list); NULL is nothing.
#[no_mangle]
pub extern "C" fn rd_kafka_topic_partition_destroy(rktpar: *mut TopicPartition) {
    guard((), || access::free_partition(rktpar))
}

/// `rd_kafka_topic_partition_list_add`.
#[no_mangle]
pub extern "C" fn rd_kafka_topic_partition_list_add(
    rktparlist: *mut TopicPartitionList,
    topic: *const c_char,
    partition: i32,
) -> *mut TopicPartition {
    guard(ptr::null_mut(), || {
        let Some(list) = access::list_mut(rktparlist) else {
            return ptr::null_mut();
        };
        list.push(TopicPartition::new(topic_arg(topic), partition))
    })
}

/// `rd_kafka_topic_partition_list_add_range`: partitions `start..=stop`.
#[no_mangle]
pub extern "C" fn rd_kafka_topic_partition_list_add_range(
    rktparlist: *mut TopicPartitionList,
    topic: *const c_char,
    start: i32,
    stop: i32,
) {
    guard((), || {
        let Some(list) = access::list_mut(rktparlist) else {
            return;
        };
        let topic = topic_arg(topic);
        for partition in start..=stop {
            list.push(TopicPartition::new(topic, partition));
        }
    })
}

/// `rd_kafka_topic_partition_list_del`: 1 if an element was removed.
#[no_mangle]
pub extern "C" fn rd_kafka_topic_partition_list_del(
    rktparlist: *mut TopicPartitionList,
    topic: *const c_char,
    partition: i32,
) -> c_int {
    guard(0, || {
        let Some(list) = access::list_mut(rktparlist) else {
            return 0;
        };
        match list.find_idx(topic_arg(topic), partition) {
            Some(i) => c_int::from(list.del_idx(i)),
            None => 0,
        }
    })
}

/// `rd_kafka_topic_partition_list_del_by_idx`: 1 if `idx` was an element.
#[no_mangle]
pub extern "C" fn rd_kafka_topic_partition_list_del_by_idx(
    rktparlist: *mut TopicPartitionList,
    idx: c_int,
) -> c_int {
    guard(0, || {
        let Some(list) = access::list_mut(rktparlist) else {
            return 0;
        };
        match usize::try_from(idx) {
            Ok(i) => c_int::from(list.del_idx(i)),
            Err(_) => 0,
        }
    })
}

/// `rd_kafka_topic_partition_list_copy`: a deep copy, of the source's size.
#[no_mangle]
pub extern "C" fn rd_kafka_topic_partition_list_copy(
    src: *const TopicPartitionList,
) -> *mut TopicPartitionList {
    guard(ptr::null_mut(), || {
        let Some(src) = access::list(src) else {
            return ptr::null_mut();
        };
        let p = list_with_size(src.size);
        if let Some(dst) = access::list_mut(p) {
            for e in src.elems() {
                dst.push(TopicPartition::new(e.topic_bytes(), e.partition))
                    .update_from(e);
            }
        }
        p
    })
}

/// `rd_kafka_topic_partition_list_set_offset`.
#[no_mangle]
pub extern "C" fn rd_kafka_topic_partition_list_set_offset(
    rktparlist: *mut TopicPartitionList,
    topic: *const c_char,
    partition: i32,
    offset: i64,
) -> c_int {
    guard(RESP_ERR__UNKNOWN_PARTITION, || {
        let Some(list) = access::list_mut(rktparlist) else {
            return RESP_ERR__UNKNOWN_PARTITION;
        };
        match list.find_idx(topic_arg(topic), partition) {
            Some(i) => {
                list.elems_mut()[i].offset = offset;
                0
            }
            None => RESP_ERR__UNKNOWN_PARTITION,
        }
    })
}

/// `rd_kafka_topic_partition_list_find`: the first element that is
/// `topic` and `partition`, or NULL.
#[no_mangle]
pub extern "C" fn rd_kafka_topic_partition_list_find(
    rktparlist: *const TopicPartitionList,
    topic: *const c_char,
    partition: i32,
) -> *mut TopicPartition {
    guard(ptr::null_mut(), || {
        let Some(list) = access::list(rktparlist) else {
            return ptr::null_mut();
        };
        match list.find_idx(topic_arg(topic), partition) {
            // rdkafka.h answers a mutable element of a const list: the
            // pointer is the array's, as librdkafka's.
            Some(i) => list.elems.wrapping_add(i),
            None => ptr::null_mut(),
        }
    })
}

/// The comparator of `rd_kafka_topic_partition_list_sort`.
pub type PartitionCmp = unsafe extern "C" fn(*const c_void, *const c_void, *mut c_void) -> c_int;

/// `rd_kafka_topic_partition_list_sort`: by `cmp`, or by topic then
/// partition without one.
#[no_mangle]
pub extern "C" fn rd_kafka_topic_partition_list_sort(
    rktparlist: *mut TopicPartitionList,
    cmp: Option<PartitionCmp>,
    cmp_opaque: *mut c_void,
) {
    guard((), || {
        let Some(list) = access::list_mut(rktparlist) else {
            return;
        };
        match cmp {
            None => list.elems_mut().sort_by(default_order),
            Some(cmp) => list
                .elems_mut()
                .sort_by(|a, b| access::call_cmp(cmp, a, b, cmp_opaque).cmp(&0)),
        }
    })
}

/// `rd_kafka_topic_partition_get_leader_epoch`: -1 if never set (or NULL).
#[no_mangle]
pub extern "C" fn rd_kafka_topic_partition_get_leader_epoch(rktpar: *const TopicPartition) -> i32 {
    guard(-1, || {
        access::elem(rktpar).map_or(-1, TopicPartition::leader_epoch)
    })
}

/// `rd_kafka_topic_partition_set_leader_epoch`.
#[no_mangle]
pub extern "C" fn rd_kafka_topic_partition_set_leader_epoch(
    rktpar: *mut TopicPartition,
    leader_epoch: i32,
) {
    guard((), || {
        if let Some(e) = access::elem_mut(rktpar) {
            e.set_leader_epoch(leader_epoch);
        }
    })
}

/// gregor's error for an element's `err` code: `None` for 0, a broker
/// error for a Kafka code, a local one (with librdkafka's text) else.
#[allow(dead_code)] // for the consumer's and the events' functions
pub(crate) fn error_of(code: c_int) -> Option<Error> {
    match code {
        0 => None,
        c if c > 0 => match i16::try_from(c) {
            Ok(k) => Some(Error::kafka(KafkaCode(k), String::new())),
            Err(_) => Some(Error::local(c, code_description(c))),
        },
        c => Some(Error::local(c, code_description(c))),
    }
}

fn offset_of(e: &TopicPartition) -> TopicPartitionOffset {
    let mut tpo = TopicPartitionOffset::new(
        String::from_utf8_lossy(e.topic_bytes().unwrap_or_default()),
        e.partition,
        e.offset,
    );
    tpo.leader_epoch = Some(e.leader_epoch()).filter(|&le| le >= 0);
    tpo.error = error_of(e.err);
    tpo.metadata = e
        .metadata_bytes()
        .map(|m| String::from_utf8_lossy(m).into_owned());
    tpo
}

/// Sets offset, error, metadata and leader epoch of `e` from `tpo`.
fn fill(e: &mut TopicPartition, tpo: &TopicPartitionOffset) {
    e.offset = tpo.offset;
    e.err = tpo.error.as_ref().map_or(0, Error::code);
    if let Some(m) = &tpo.metadata {
        e.set_metadata(m.as_bytes());
    }
    e.set_leader_epoch(tpo.leader_epoch.unwrap_or(-1));
}

/// The entries of a C list (topic names lossily UTF-8, metadata likewise);
/// empty for NULL.
#[allow(dead_code)] // for the consumer's and the events' functions
pub(crate) fn to_offsets(list: *const TopicPartitionList) -> Vec<TopicPartitionOffset> {
    access::list(list).map_or_else(Vec::new, |l| l.elems().iter().map(offset_of).collect())
}

/// The topic names of a C list, in order, lossily UTF-8 (a subscription's:
/// `rd_kafka_subscribe` reads only the topics); empty for NULL.
#[allow(dead_code)] // for the consumer's functions
pub(crate) fn topics(list: *const TopicPartitionList) -> Vec<String> {
    access::list(list).map_or_else(Vec::new, |l| {
        l.elems()
            .iter()
            .map(|e| String::from_utf8_lossy(e.topic_bytes().unwrap_or_default()).into_owned())
            .collect()
    })
}

/// A new C list of `tpos`, in order, for the application to destroy.
#[allow(dead_code)] // for the consumer's and the events' functions
pub(crate) fn new_list(tpos: &[TopicPartitionOffset]) -> *mut TopicPartitionList {
    let p = list_with_size(c_int::try_from(tpos.len()).unwrap_or(c_int::MAX));
    if let Some(list) = access::list_mut(p) {
        for tpo in tpos {
            let e = list.push(TopicPartition::new(
                Some(tpo.topic.as_bytes()),
                tpo.partition,
            ));
            fill(e, tpo);
        }
    }
    p
}

/// Updates the caller's list in place from an answer: each entry of
/// `tpos` sets offset, error, metadata and leader epoch of the list's
/// element with its topic and partition (entries the list lacks are left
/// out), as librdkafka's `committed`, `position` and `offsets_for_times`
/// fill in the list they were given.
#[allow(dead_code)] // for the consumer's and the events' functions
pub(crate) fn update_list(list: *mut TopicPartitionList, tpos: &[TopicPartitionOffset]) {
    let Some(list) = access::list_mut(list) else {
        return;
    };
    for tpo in tpos {
        if let Some(i) = list.find_idx(Some(tpo.topic.as_bytes()), tpo.partition) {
            fill(&mut list.elems_mut()[i], tpo);
        }
    }
}

/// A standalone element of `tpo` (what `rd_kafka_event_topic_partition`
/// answers), for the application to free with
/// `rd_kafka_topic_partition_destroy`.
#[allow(dead_code)] // for the consumer's and the events' functions
pub(crate) fn new_partition(tpo: &TopicPartitionOffset) -> *mut TopicPartition {
    let p = access::new_partition();
    if let Some(e) = access::elem_mut(p) {
        *e = TopicPartition::new(Some(tpo.topic.as_bytes()), tpo.partition);
        fill(e, tpo);
    }
    p
}

/// A C list this crate owns: destroyed on drop unless given away with
/// [`OwnedList::into_raw`] (for a rebalance callback's list, say).
#[derive(Debug)]
#[allow(dead_code)] // for the consumer's and the events' functions
pub(crate) struct OwnedList(*mut TopicPartitionList);

#[allow(dead_code)] // for the consumer's and the events' functions
impl OwnedList {
    /// A list of `tpos`.
    pub(crate) fn new(tpos: &[TopicPartitionOffset]) -> Self {
        OwnedList(new_list(tpos))
    }

    /// The list, to lend to C for a call.
    pub(crate) fn as_ptr(&self) -> *mut TopicPartitionList {
        self.0
    }

    /// The entries, as they are now.
    pub(crate) fn to_offsets(&self) -> Vec<TopicPartitionOffset> {
        to_offsets(self.0)
    }

    /// Gives the list away (to the application, which destroys it).
    pub(crate) fn into_raw(self) -> *mut TopicPartitionList {
        let p = self.0;
        std::mem::forget(self);
        p
    }
}

// SAFETY: the list is this value's alone (no other pointer to it is kept),
// so it may move to another thread with its owner, as an event does.
unsafe impl Send for OwnedList {}

impl Drop for OwnedList {
    fn drop(&mut self) {
        destroy(self.0);
    }
}

#[cfg(test)]
#[path = "partition_list_tests.rs"]
mod tests;
