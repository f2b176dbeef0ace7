//! The transactional producer of rdkafka.h (`rd_kafka_init_transactions`,
//! `_begin_transaction`, `_send_offsets_to_transaction`,
//! `_commit_transaction`, `_abort_transaction`) on gregor's [`Producer`]
//! (KIP-98; transactions v2 of KIP-890 where the cluster has them).
//!
//! Each returns NULL on success or an error object with librdkafka's flags
//! as gregor's producer judges the error: retriable (a timeout, a
//! coordinator moving: call again), fatal (fenced: only destroying the
//! producer is left), or requiring an abort. As librdkafka: a consumer
//! handle is `_INVALID_ARG`, a producer without `transactional.id`
//! `_NOT_CONFIGURED`, and `send_offsets_to_transaction` without offsets or
//! group metadata `_INVALID_ARG`; offsets with no valid offset (nothing
//! consumed) are no error and send nothing. A negative timeout waits as
//! long as the transaction may last.

#![allow(unsafe_code)] // `#[no_mangle]`

use std::ffi::{c_int, c_void};

use gregor::error::Error;
use gregor::producer::Producer;

use crate::error_object::{ErrorObject, Flags};
use crate::group_metadata::GroupMetadata;
use crate::guard::guard;
use crate::handle::{timeout, Handle};
use crate::partition_list::{to_offsets, TopicPartitionList};
use crate::raw;

/// `RD_KAFKA_RESP_ERR__INVALID_ARG`.
const ERR__INVALID_ARG: c_int = -186;
/// `RD_KAFKA_RESP_ERR__NOT_CONFIGURED`.
const ERR__NOT_CONFIGURED: c_int = -145;

/// Runs `f` on the handle's transactional producer; NULL, or the error
/// object of what went wrong.
fn txn_call(rk: *mut Handle, f: impl FnOnce(&Producer) -> Result<(), Error>) -> *mut c_void {
    let failed = |code: c_int, text: &str| ErrorObject::boxed_with(code, text, Flags::default());
    guard(
        failed(ERR__INVALID_ARG, "internal error in a transactional call"),
        || {
            let Some(h) = raw::object(rk) else {
                return failed(ERR__INVALID_ARG, "rk is NULL");
            };
            let Some(p) = h.producer() else {
                return failed(
                    ERR__INVALID_ARG,
                    "The Transactional API can only be used on producer instances",
                );
            };
            if h.conf()
                .props
                .get("transactional.id")
                .is_none_or(str::is_empty)
            {
                return failed(
                    ERR__NOT_CONFIGURED,
                    "The Transactional API requires transactional.id to be configured",
                );
            }
            match f(p) {
                Ok(()) => std::ptr::null_mut(),
                Err(e) => {
                    let fl = p.txn_error_flags(&e);
                    let flags = Flags {
                        fatal: fl.fatal,
                        retriable: fl.retriable,
                        txn_requires_abort: fl.txn_requires_abort,
                    };
                    ErrorObject::boxed_with(e.code(), &e.to_string(), flags)
                }
            }
        },
    )
}

/// Registers the transactional id with its coordinator
/// (`rd_kafka_init_transactions`).
#[no_mangle]
pub extern "C" fn rd_kafka_init_transactions(rk: *mut Handle, timeout_ms: c_int) -> *mut c_void {
    txn_call(rk, |p| p.init_transactions(timeout(timeout_ms)))
}

/// Starts a transaction (`rd_kafka_begin_transaction`).
#[no_mangle]
pub extern "C" fn rd_kafka_begin_transaction(rk: *mut Handle) -> *mut c_void {
    txn_call(rk, Producer::begin_transaction)
}

/// Adds a consumer group's offsets to the transaction
/// (`rd_kafka_send_offsets_to_transaction`): the offsets are the next
/// messages to read; entries with a logical (negative) offset are left out.
#[no_mangle]
pub extern "C" fn rd_kafka_send_offsets_to_transaction(
    rk: *mut Handle,
    offsets: *const TopicPartitionList,
    cgmetadata: *const GroupMetadata,
    timeout_ms: c_int,
) -> *mut c_void {
    let (Some(_), Some(group)) = (raw::object(offsets), raw::object(cgmetadata)) else {
        return ErrorObject::boxed(
            ERR__INVALID_ARG,
            "cgmetadata and offsets are required parameters",
        );
    };
    let tpos = to_offsets(offsets);
    let valid: Vec<(&str, i32, i64)> = tpos
        .iter()
        .filter(|t| t.offset >= 0)
        .map(|t| (t.topic.as_str(), t.partition, t.offset))
        .collect();
    txn_call(rk, |p| {
        if valid.is_empty() {
            return Ok(());
        }
        p.send_offsets_to_transaction_with(&valid, group.inner(), timeout(timeout_ms))
    })
}

/// Flushes and commits the transaction (`rd_kafka_commit_transaction`).
#[no_mangle]
pub extern "C" fn rd_kafka_commit_transaction(rk: *mut Handle, timeout_ms: c_int) -> *mut c_void {
    txn_call(rk, |p| p.commit_transaction(timeout(timeout_ms)))
}

/// Aborts the transaction (`rd_kafka_abort_transaction`).
#[no_mangle]
pub extern "C" fn rd_kafka_abort_transaction(rk: *mut Handle, timeout_ms: c_int) -> *mut c_void {
    txn_call(rk, |p| p.abort_transaction(timeout(timeout_ms)))
}
