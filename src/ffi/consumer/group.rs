//! The consumer's group state in C: its group metadata (for
//! `gregor_producer_send_offsets_to_transaction_with_metadata`, KIP-447),
//! rebalance protocol, lost assignment and the non-blocking close
//! (librdkafka's `rd_kafka_consumer_group_metadata`,
//! `rd_kafka_rebalance_protocol`, `rd_kafka_assignment_lost`,
//! `rd_kafka_consumer_close_queue`, `rd_kafka_consumer_closed`).

use std::ffi::{c_char, c_int};
use std::ptr;

use super::super::group_metadata::{boxed, gregor_group_metadata};
use super::super::guard::{guard, guard_code};
use super::super::lifetime::enter;
use super::super::raw::static_cstr;
use super::gregor_consumer;

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
