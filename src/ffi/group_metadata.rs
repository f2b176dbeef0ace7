//! A consumer's group membership for exactly-once consume-transform-produce
//! (KIP-447, librdkafka's `rd_kafka_consumer_group_metadata_t`):
//! `gregor_group_metadata_*`. The consumer hands it out
//! (`gregor_consumer_group_metadata`, src/ffi/consumer/group.rs) and the
//! producer takes it (src/ffi/producer/txn.rs).

use std::ffi::{c_char, CString};
use std::ptr;

use super::guard::guard;
use super::raw::{c_str, cptr, cs, cso, free, handle, opt_c_str};
use crate::message::ConsumerGroupMetadata;

/// A consumer's group metadata: group id, generation id, member id, group
/// instance id, as when it was taken. Immutable; free with
/// `gregor_group_metadata_free`.
pub struct gregor_group_metadata {
    pub(crate) inner: ConsumerGroupMetadata,
    group_id: CString,
    member_id: CString,
    instance_id: Option<CString>,
}

pub(crate) fn boxed(m: ConsumerGroupMetadata) -> *mut gregor_group_metadata {
    let group_id = cs(&m.group_id);
    let member_id = cs(&m.member_id);
    let instance_id = cso(m.group_instance_id.as_deref());
    Box::into_raw(Box::new(gregor_group_metadata {
        inner: m,
        group_id,
        member_id,
        instance_id,
    }))
}

/// Group metadata with only a group id (generation -1, no member:
/// `rd_kafka_consumer_group_metadata_new`), for brokers before KIP-447.
/// NULL for a NULL or empty `group_id`. Caller owns the result.
#[no_mangle]
pub extern "C" fn gregor_group_metadata_new(group_id: *const c_char) -> *mut gregor_group_metadata {
    guard(ptr::null_mut(), || match c_str(group_id, "group_id") {
        Ok(g) if !g.is_empty() => boxed(ConsumerGroupMetadata::new(g)),
        _ => ptr::null_mut(),
    })
}

/// Group metadata with every field given
/// (`rd_kafka_consumer_group_metadata_new_with_genid`): a binding that kept
/// a consumer's metadata as values builds it back with this. `member_id`
/// NULL is ""; `group_instance_id` NULL is none. NULL for a NULL or empty
/// `group_id`. Caller owns the result.
#[no_mangle]
pub extern "C" fn gregor_group_metadata_new_with_genid(
    group_id: *const c_char,
    generation_id: i32,
    member_id: *const c_char,
    group_instance_id: *const c_char,
) -> *mut gregor_group_metadata {
    guard(ptr::null_mut(), || {
        let (Ok(g), Ok(m), Ok(i)) = (
            c_str(group_id, "group_id"),
            opt_c_str(member_id, "member_id"),
            opt_c_str(group_instance_id, "group_instance_id"),
        ) else {
            return ptr::null_mut();
        };
        if g.is_empty() {
            return ptr::null_mut();
        }
        boxed(ConsumerGroupMetadata {
            group_id: g.to_string(),
            generation_id,
            member_id: m.unwrap_or_default().to_string(),
            group_instance_id: i.map(str::to_string),
        })
    })
}

/// The group id (borrowed: valid until the metadata is freed); NULL for NULL.
#[no_mangle]
pub extern "C" fn gregor_group_metadata_group_id(m: *const gregor_group_metadata) -> *const c_char {
    guard(ptr::null(), || {
        handle(m, "metadata").map_or(ptr::null(), |m| m.group_id.as_ptr())
    })
}

/// The generation id (-1 when not in a generation, or for NULL).
#[no_mangle]
pub extern "C" fn gregor_group_metadata_generation_id(m: *const gregor_group_metadata) -> i32 {
    guard(-1, || {
        handle(m, "metadata").map_or(-1, |m| m.inner.generation_id)
    })
}

/// The member id ("" before joining; borrowed); NULL for NULL.
#[no_mangle]
pub extern "C" fn gregor_group_metadata_member_id(
    m: *const gregor_group_metadata,
) -> *const c_char {
    guard(ptr::null(), || {
        handle(m, "metadata").map_or(ptr::null(), |m| m.member_id.as_ptr())
    })
}

/// The group instance id of a static member (borrowed), or NULL.
#[no_mangle]
pub extern "C" fn gregor_group_metadata_group_instance_id(
    m: *const gregor_group_metadata,
) -> *const c_char {
    guard(ptr::null(), || {
        handle(m, "metadata").map_or(ptr::null(), |m| cptr(&m.instance_id))
    })
}

/// Frees group metadata (NULL is a no-op).
#[no_mangle]
pub extern "C" fn gregor_group_metadata_free(m: *mut gregor_group_metadata) {
    guard((), || free(m))
}
