//! The producer's transactional calls returning error objects
//! (`gregor_error_t`, librdkafka's `rd_kafka_init_transactions` & co.) and
//! the offsets-to-transaction calls taking a consumer's group metadata
//! (KIP-447).

use std::ffi::{c_char, c_int};
use std::ptr;

use super::super::error_object::gregor_error_t;
use super::super::group_metadata::gregor_group_metadata;
use super::super::guard::guard_code;
use super::super::lifetime::enter;
use super::super::raw::{c_str, handle, timeout};
use super::super::tpl::gregor_tpl;
use super::gregor_producer;
use crate::error::Error;
use crate::producer::Producer;

/// Runs a transactional call; NULL on success, else its error with the
/// flags the producer's state after the call gives it. A bad argument is
/// `GREGOR_ERR__INVALID_ARG` with no flag set.
pub(crate) fn txn_call(
    producer: *const gregor_producer,
    f: impl FnOnce(&Producer) -> Result<(), Error>,
) -> *mut gregor_error_t {
    let mut out = ptr::null_mut();
    let mut caught: Option<Error> = None;
    let code = guard_code(ptr::null_mut(), 0, || {
        let p = enter(producer).inspect_err(|e| caught = Some(e.clone()))?;
        if let Err(e) = f(&p.inner) {
            let fl = p.inner.txn_error_flags(&e);
            out = gregor_error_t::new(&e, fl.retriable, fl.fatal, fl.txn_requires_abort);
        }
        Ok(())
    });
    if out.is_null() && code != 0 {
        let e = caught.unwrap_or_else(|| {
            Error::local(
                code,
                "internal error in a transactional call (panic caught)",
            )
        });
        out = gregor_error_t::new(&e, false, false, false);
    }
    out
}

/// As `gregor_producer_init_transactions`, returning an error object
/// (NULL on success; librdkafka's `rd_kafka_init_transactions`). A negative
/// `timeout_ms` waits forever.
#[no_mangle]
pub extern "C" fn gregor_producer_txn_init(
    producer: *const gregor_producer,
    timeout_ms: c_int,
) -> *mut gregor_error_t {
    txn_call(producer, |p| p.init_transactions(timeout(timeout_ms)))
}

/// As `gregor_producer_begin_transaction`, returning an error object.
#[no_mangle]
pub extern "C" fn gregor_producer_txn_begin(
    producer: *const gregor_producer,
) -> *mut gregor_error_t {
    txn_call(producer, Producer::begin_transaction)
}

/// As `gregor_producer_send_offsets_to_transaction`, returning an error
/// object. A negative `timeout_ms` waits forever.
#[no_mangle]
pub extern "C" fn gregor_producer_txn_send_offsets(
    producer: *const gregor_producer,
    offsets: *const gregor_tpl,
    group_id: *const c_char,
    timeout_ms: c_int,
) -> *mut gregor_error_t {
    txn_call(producer, |p| {
        let list = handle(offsets, "offsets")?;
        let group = c_str(group_id, "group_id")?;
        let offs: Vec<(&str, i32, i64)> = list
            .inner
            .iter()
            .map(|t| (t.topic.as_str(), t.partition, t.offset))
            .collect();
        p.send_offsets_to_transaction(&offs, group, timeout(timeout_ms))
    })
}

/// As `gregor_producer_commit_transaction`, returning an error object
/// (`txn_requires_abort` set when only an abort can follow). A negative
/// `timeout_ms` waits forever.
#[no_mangle]
pub extern "C" fn gregor_producer_txn_commit(
    producer: *const gregor_producer,
    timeout_ms: c_int,
) -> *mut gregor_error_t {
    txn_call(producer, |p| p.commit_transaction(timeout(timeout_ms)))
}

/// As `gregor_producer_abort_transaction`, returning an error object. A
/// negative `timeout_ms` waits forever.
#[no_mangle]
pub extern "C" fn gregor_producer_txn_abort(
    producer: *const gregor_producer,
    timeout_ms: c_int,
) -> *mut gregor_error_t {
    txn_call(producer, |p| p.abort_transaction(timeout(timeout_ms)))
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
