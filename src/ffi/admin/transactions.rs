//! The admin client's transactions calls and their result objects.

use super::*;

impl_items!(
    gregor_transactions: CTxn,
);
impl_errs!(
    gregor_transactions: |x| &x.err,
);

// ----- transactions -----

pub(crate) struct CTxn {
    transactional_id: CString,
    err: CErr,
    state: CString,
    producer_id: i64,
    producer_epoch: i32,
    coordinator_id: i32,
    timeout_ms: i32,
    start_time_ms: i64,
    partitions: Vec<(CString, i32)>,
}

/// Transactions: listed (one entry per transaction, and one per broker
/// that failed, with an empty transactional ID and its error) or described
/// (one entry per transactional ID). Immutable.
pub struct gregor_transactions {
    items: Vec<CTxn>,
}

fn ctxn(id: &str, coordinator_id: i32) -> CTxn {
    CTxn {
        transactional_id: cs(id),
        err: cerr_of(None),
        state: CString::default(),
        producer_id: -1,
        producer_epoch: -1,
        coordinator_id,
        timeout_ms: -1,
        start_time_ms: -1,
        partitions: Vec::new(),
    }
}

/// Lists the transactions every broker coordinates, matching every filter
/// given: `state_count` states, `producer_id_count` producer IDs, and a
/// minimum running time `min_duration_ms` (-1: none; ListTransactions v1+).
/// Each entry's coordinator is the broker that listed it. On success `*out`
/// receives them (caller owns; free with `gregor_transactions_free`).
/// Blocks. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_list_transactions(
    admin: *const gregor_admin,
    states: *const *const c_char,
    state_count: usize,
    producer_ids: *const i64,
    producer_id_count: usize,
    min_duration_ms: i64,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_transactions,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let ss = c_strs(states, state_count, "states")?;
        let pids = slice(producer_ids, producer_id_count, "producer_ids")?;
        let r = a.inner.list_transactions(
            &ss,
            pids,
            (min_duration_ms >= 0).then_some(min_duration_ms),
            &opts_of(options)?,
        )?;
        let mut items = Vec::new();
        for b in &r {
            match &b.result {
                Ok(ts) => items.extend(ts.iter().map(|t| CTxn {
                    state: cs(&t.state),
                    producer_id: t.producer_id,
                    ..ctxn(&t.transactional_id, b.broker_id)
                })),
                Err(e) => items.push(CTxn {
                    err: cerr_of(Some(e)),
                    ..ctxn("", b.broker_id)
                }),
            }
        }
        store(out, gregor_transactions { items });
        Ok(())
    })
}

/// Describes `count` transactional IDs at their coordinators. On success
/// `*out` receives one entry per distinct ID (caller owns; free with
/// `gregor_transactions_free`). Blocks. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_describe_transactions(
    admin: *const gregor_admin,
    transactional_ids: *const *const c_char,
    count: usize,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_transactions,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let ids = c_strs(transactional_ids, count, "transactional_ids")?;
        let r = a.inner.describe_transactions(&ids, &opts_of(options)?)?;
        store(
            out,
            gregor_transactions {
                items: r
                    .iter()
                    .map(|(id, res)| match res {
                        Ok(t) => CTxn {
                            state: cs(&t.state),
                            producer_id: t.producer_id,
                            producer_epoch: i32::from(t.producer_epoch),
                            timeout_ms: t.transaction_timeout_ms,
                            start_time_ms: t.transaction_start_time_ms,
                            partitions: t
                                .partitions
                                .iter()
                                .map(|p| (cs(&p.topic), p.partition))
                                .collect(),
                            ..ctxn(id, t.coordinator_id)
                        },
                        Err(e) => CTxn {
                            err: cerr_of(Some(e)),
                            ..ctxn(id, -1)
                        },
                    })
                    .collect(),
            },
        );
        Ok(())
    })
}

/// Number of entries (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_transactions_count(t: *const gregor_transactions) -> usize {
    count(t)
}

/// Entry `i`'s transactional ID ("" for a broker that failed to list).
#[no_mangle]
pub extern "C" fn gregor_transactions_transactional_id(
    t: *const gregor_transactions,
    i: usize,
) -> *const c_char {
    item(t, i, ptr::null(), |x| x.transactional_id.as_ptr())
}

/// Entry `i`'s error code.
#[no_mangle]
pub extern "C" fn gregor_transactions_err(t: *const gregor_transactions, i: usize) -> c_int {
    item_err(t, i)
}

/// Entry `i`'s error text ("" on success).
#[no_mangle]
pub extern "C" fn gregor_transactions_errstr(
    t: *const gregor_transactions,
    i: usize,
) -> *const c_char {
    item_errstr(t, i)
}

/// Entry `i`'s state ("Ongoing", "PrepareCommit", …; "" if not known).
#[no_mangle]
pub extern "C" fn gregor_transactions_state(
    t: *const gregor_transactions,
    i: usize,
) -> *const c_char {
    item(t, i, ptr::null(), |x| x.state.as_ptr())
}

/// Entry `i`'s producer ID (-1 if not known).
#[no_mangle]
pub extern "C" fn gregor_transactions_producer_id(t: *const gregor_transactions, i: usize) -> i64 {
    item(t, i, -1, |x| x.producer_id)
}

/// Entry `i`'s producer epoch (described only; -1 otherwise).
#[no_mangle]
pub extern "C" fn gregor_transactions_producer_epoch(
    t: *const gregor_transactions,
    i: usize,
) -> i32 {
    item(t, i, -1, |x| x.producer_epoch)
}

/// Entry `i`'s coordinator broker id (-1 if not known).
#[no_mangle]
pub extern "C" fn gregor_transactions_coordinator_id(
    t: *const gregor_transactions,
    i: usize,
) -> i32 {
    item(t, i, -1, |x| x.coordinator_id)
}

/// Entry `i`'s transaction timeout in ms (described only; -1 otherwise).
#[no_mangle]
pub extern "C" fn gregor_transactions_timeout_ms(t: *const gregor_transactions, i: usize) -> i32 {
    item(t, i, -1, |x| x.timeout_ms)
}

/// Entry `i`'s start time in ms since the epoch (described only; -1 otherwise).
#[no_mangle]
pub extern "C" fn gregor_transactions_start_time_ms(
    t: *const gregor_transactions,
    i: usize,
) -> i64 {
    item(t, i, -1, |x| x.start_time_ms)
}

/// Entry `i`'s number of partitions in the transaction (described only).
#[no_mangle]
pub extern "C" fn gregor_transactions_partition_count(
    t: *const gregor_transactions,
    i: usize,
) -> usize {
    item(t, i, 0, |x| x.partitions.len())
}

/// Entry `i`, partition `k`: its topic.
#[no_mangle]
pub extern "C" fn gregor_transactions_partition_topic(
    t: *const gregor_transactions,
    i: usize,
    k: usize,
) -> *const c_char {
    field(t, ptr::null(), |t| {
        t.items.get(i)?.partitions.get(k).map(|p| p.0.as_ptr())
    })
}

/// Entry `i`, partition `k`: its index.
#[no_mangle]
pub extern "C" fn gregor_transactions_partition(
    t: *const gregor_transactions,
    i: usize,
    k: usize,
) -> i32 {
    field(t, -1, |t| t.items.get(i)?.partitions.get(k).map(|p| p.1))
}

/// Frees transactions. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_transactions_free(t: *mut gregor_transactions) {
    guard((), || free(t))
}
