//! A consumer's group membership for exactly-once consume-transform-produce
//! (KIP-447, librdkafka's `rd_kafka_consumer_group_metadata_t`), the
//! consumer's rebalance protocol and lost assignment, and its non-blocking
//! close (`rd_kafka_consumer_close_queue` / `rd_kafka_consumer_closed`).

use std::ffi::{c_char, c_int, CString};
use std::ptr;

use super::consumer::gregor_consumer;
use super::events::{gregor_error_t, txn_call};
use super::guard::{guard, guard_code};
use super::lifetime::enter;
use super::producer::gregor_producer;
use super::raw::{c_str, cptr, cs, cso, free, handle, opt_c_str, static_cstr, timeout};
use super::tpl::gregor_tpl;
use crate::message::ConsumerGroupMetadata;

/// A consumer's group metadata: group id, generation id, member id, group
/// instance id, as when it was taken. Immutable; free with
/// `gregor_group_metadata_free`.
pub struct gregor_group_metadata {
    inner: ConsumerGroupMetadata,
    group_id: CString,
    member_id: CString,
    instance_id: Option<CString>,
}

fn boxed(m: ConsumerGroupMetadata) -> *mut gregor_group_metadata {
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

/// The consumer's group metadata now (`rd_kafka_consumer_group_metadata`):
/// generation -1 and member id "" before it joined. NULL without
/// `group.id` (or for a NULL / freed consumer). Caller owns the result.
#[no_mangle]
pub extern "C" fn gregor_consumer_group_metadata(
    consumer: *const gregor_consumer,
) -> *mut gregor_group_metadata {
    guard(ptr::null_mut(), || {
        let Ok(c) = enter(consumer) else {
            return ptr::null_mut();
        };
        c.inner.group_metadata().map_or(ptr::null_mut(), boxed)
    })
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

/// `gregor_producer_send_offsets_to_transaction` with the consumer's group
/// metadata (`rd_kafka_send_offsets_to_transaction`, KIP-447): the
/// TxnOffsetCommit carries the generation, member id and group instance
/// id (v3+), so the coordinator refuses a member the group moved on from
/// with `GREGOR_ERR_ILLEGAL_GENERATION`, `GREGOR_ERR_UNKNOWN_MEMBER_ID` or
/// `GREGOR_ERR_FENCED_INSTANCE_ID`; the transaction must then be aborted.
/// Borrows `offsets` and `metadata`.
#[no_mangle]
pub extern "C" fn gregor_producer_send_offsets_to_transaction_with_metadata(
    producer: *const gregor_producer,
    offsets: *const gregor_tpl,
    metadata: *const gregor_group_metadata,
    timeout_ms: c_int,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let p = enter(producer)?;
        let list = handle(offsets, "offsets")?;
        let meta = handle(metadata, "metadata")?;
        let offs: Vec<(&str, i32, i64)> = list
            .inner
            .iter()
            .map(|t| (t.topic.as_str(), t.partition, t.offset))
            .collect();
        p.inner
            .send_offsets_to_transaction_with(&offs, &meta.inner, timeout(timeout_ms))
    })
}

/// "EAGER" or "COOPERATIVE" for a consumer in a group, else "NONE"
/// (`rd_kafka_rebalance_protocol`; static strings). "NONE" for NULL.
#[no_mangle]
pub extern "C" fn gregor_consumer_rebalance_protocol(
    consumer: *const gregor_consumer,
) -> *const c_char {
    guard(static_cstr(c"NONE"), || {
        let Ok(c) = enter(consumer) else {
            return static_cstr(c"NONE");
        };
        match c.inner.rebalance_protocol() {
            "EAGER" => static_cstr(c"EAGER"),
            "COOPERATIVE" => static_cstr(c"COOPERATIVE"),
            _ => static_cstr(c"NONE"),
        }
    })
}

/// 1 if the group took the consumer's partitions away without a rebalance
/// (a `GREGOR_REBALANCE_LOST` event was served) and none were assigned
/// since (`rd_kafka_assignment_lost`), else 0 (also for NULL).
#[no_mangle]
pub extern "C" fn gregor_consumer_assignment_lost(consumer: *const gregor_consumer) -> c_int {
    guard(0, || {
        enter(consumer).map_or(0, |c| c_int::from(c.inner.assignment_lost()))
    })
}

/// Starts closing the consumer and returns at once
/// (`rd_kafka_consumer_close_queue`): a gregor thread commits (with
/// `enable.auto.commit`), gives the partitions up and leaves the group. The
/// revocation is served by `gregor_consumer_poll` on the caller's thread
/// (the rebalance callback runs there), so keep polling (or waiting on the
/// io-event fd and polling) until `gregor_consumer_closed` returns 1; once
/// the consumer's threads stopped, polls return an error message
/// `GREGOR_ERR__STATE`, and the end of the close writes the io-event fd.
/// `gregor_consumer_free` still frees the handle (waiting for the close).
/// Returns 0, or `GREGOR_ERR__STATE` if closed or closing already.
#[no_mangle]
pub extern "C" fn gregor_consumer_close_start(consumer: *const gregor_consumer) -> c_int {
    guard_code(ptr::null_mut(), 0, || enter(consumer)?.inner.close_start())
}

/// 1 once the consumer is closed (a `gregor_consumer_close_start` that
/// ended, or `gregor_consumer_close`), else 0 (`rd_kafka_consumer_closed`).
/// -1 for a NULL or freed consumer.
#[no_mangle]
pub extern "C" fn gregor_consumer_closed(consumer: *const gregor_consumer) -> c_int {
    guard(-1, || {
        enter(consumer).map_or(-1, |c| c_int::from(c.inner.closed()))
    })
}

/// As `gregor_producer_send_offsets_to_transaction_with_metadata`,
/// returning an error object (`gregor_error_t`, NULL on success) with
/// librdkafka's flags: a fenced member's error has `txn_requires_abort`.
/// A negative `timeout_ms` waits forever.
#[no_mangle]
pub extern "C" fn gregor_producer_txn_send_offsets_with_metadata(
    producer: *const gregor_producer,
    offsets: *const gregor_tpl,
    metadata: *const gregor_group_metadata,
    timeout_ms: c_int,
) -> *mut gregor_error_t {
    txn_call(producer, |p| {
        let list = handle(offsets, "offsets")?;
        let meta = handle(metadata, "metadata")?;
        let offs: Vec<(&str, i32, i64)> = list
            .inner
            .iter()
            .map(|t| (t.topic.as_str(), t.partition, t.offset))
            .collect();
        p.send_offsets_to_transaction_with(&offs, &meta.inner, timeout(timeout_ms))
    })
}
