//! The admin client's partitions calls and their result objects.

use super::*;

impl_items!(
    gregor_partition_results: PartItem,
    gregor_partition_reassignments: CReassign,
);
impl_errs!(
    gregor_partition_results: |x| &x.err,
);

// ----- partitions: elections, reassignments, records, offsets, producers -----

pub(crate) struct PartItem {
    pub(super) topic: CString,
    pub(super) partition: i32,
    pub(super) err: CErr,
    pub(super) offset: i64,
    pub(super) timestamp: i64,
    pub(super) leader_epoch: i32,
    pub(super) producers: Vec<ProducerState>,
    pub(super) metadata: Option<CString>,
}

/// Per-partition results (elections, reassignments, deleted records,
/// listed offsets, producers). Immutable.
pub struct gregor_partition_results {
    pub(super) items: Vec<PartItem>,
}

pub(super) fn part_results<T>(
    r: &[PartitionResult<T>],
    f: impl Fn(&T, &mut PartItem),
) -> gregor_partition_results {
    gregor_partition_results {
        items: r
            .iter()
            .map(|x| {
                let mut it = PartItem {
                    topic: cs(&x.partition.topic),
                    partition: x.partition.partition,
                    err: cerr(&x.result),
                    offset: -1,
                    timestamp: -1,
                    leader_epoch: -1,
                    producers: Vec::new(),
                    metadata: None,
                };
                if let Ok(v) = &x.result {
                    f(v, &mut it);
                }
                it
            })
            .collect(),
    }
}

/// Elects leaders (`GREGOR_ELECTION_PREFERRED` or `_UNCLEAN`) for the
/// partitions of `partitions` (offsets ignored; NULL: every partition that
/// needs one). Honours the operation timeout. On success `*out` receives
/// one result per partition (caller owns; free with
/// `gregor_partition_results_free`). Blocks. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_elect_leaders(
    admin: *const gregor_admin,
    election_type: c_int,
    partitions: *const gregor_tpl,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_partition_results,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let et = ElectionType(i8_of(election_type, "election_type")?);
        let ps = if partitions.is_null() {
            None
        } else {
            Some(tps(handle(partitions, "partitions")?))
        };
        let r = a
            .inner
            .elect_leaders(et, ps.as_deref(), &opts_of(options)?)?;
        store(out, part_results(&r, |(), _| {}));
        Ok(())
    })
}

/// Partition reassignments to make: target replicas, or a cancellation.
pub struct gregor_new_reassignments {
    inner: Vec<(TopicPartition, Option<Vec<i32>>)>,
}

/// A new, empty list. Caller owns it: free with `gregor_new_reassignments_free`.
#[no_mangle]
pub extern "C" fn gregor_new_reassignments_new() -> *mut gregor_new_reassignments {
    guard(ptr::null_mut(), || {
        Box::into_raw(Box::new(gregor_new_reassignments { inner: Vec::new() }))
    })
}

/// Moves partition `partition` of `topic` to `replicas` (`count` broker ids), or with
/// `replicas` NULL cancels its pending reassignment. Copies everything.
/// Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_new_reassignments_add(
    r: *mut gregor_new_reassignments,
    topic: *const c_char,
    partition: i32,
    replicas: *const i32,
    count: usize,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let l = handle_mut(r, "r")?;
        let t = c_str(topic, "topic")?;
        let target = if replicas.is_null() {
            None
        } else {
            Some(slice(replicas, count, "replicas")?.to_vec())
        };
        l.inner.push((TopicPartition::new(t, partition), target));
        Ok(())
    })
}

/// Frees a reassignment list. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_new_reassignments_free(r: *mut gregor_new_reassignments) {
    guard((), || free(r))
}

/// Starts or cancels partition reassignments (to the controller). As
/// `gregor_admin_elect_leaders` for the rest.
#[no_mangle]
pub extern "C" fn gregor_admin_alter_partition_reassignments(
    admin: *const gregor_admin,
    reassignments: *const gregor_new_reassignments,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_partition_results,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let r = handle(reassignments, "reassignments")?;
        let res = a
            .inner
            .alter_partition_reassignments(&r.inner, &opts_of(options)?)?;
        store(out, part_results(&res, |(), _| {}));
        Ok(())
    })
}

/// Deletes the records before each entry's offset in `before` (-1: up to
/// the high watermark), asking the leaders. Each result's offset is the new
/// low watermark. As `gregor_admin_elect_leaders` for the rest.
#[no_mangle]
pub extern "C" fn gregor_admin_delete_records(
    admin: *const gregor_admin,
    before: *const gregor_tpl,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_partition_results,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let l = handle(before, "before")?;
        let items: Vec<(TopicPartition, i64)> = l
            .inner
            .iter()
            .map(|t| (TopicPartition::new(t.topic.clone(), t.partition), t.offset))
            .collect();
        let r = a.inner.delete_records(&items, &opts_of(options)?)?;
        store(out, part_results(&r, |low, it| it.offset = *low));
        Ok(())
    })
}

/// Looks up offsets: each entry's offset of `specs` is a spec
/// (`GREGOR_OFFSET_SPEC_EARLIEST`, `_LATEST`, `_MAX_TIMESTAMP`, or a
/// timestamp in ms). Non-zero `read_committed` makes latest the last stable
/// offset. Each result has offset, timestamp and leader epoch. As
/// `gregor_admin_elect_leaders` for the rest.
#[no_mangle]
pub extern "C" fn gregor_admin_list_offsets(
    admin: *const gregor_admin,
    specs: *const gregor_tpl,
    read_committed: c_int,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_partition_results,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let l = handle(specs, "specs")?;
        let items: Vec<(TopicPartition, OffsetSpec)> = l
            .inner
            .iter()
            .map(|t| {
                let spec = match t.offset {
                    -2 => OffsetSpec::Earliest,
                    -1 => OffsetSpec::Latest,
                    -3 => OffsetSpec::MaxTimestamp,
                    ts if ts >= 0 => OffsetSpec::Timestamp(ts),
                    other => {
                        return Err(Error::invalid_arg(format!(
                            "{} [{}]: unknown offset spec {other}",
                            t.topic, t.partition
                        )))
                    }
                };
                Ok((TopicPartition::new(t.topic.clone(), t.partition), spec))
            })
            .collect::<Result<_>>()?;
        let r = a
            .inner
            .list_offsets(&items, read_committed != 0, &opts_of(options)?)?;
        store(
            out,
            part_results(&r, |i, it| {
                it.offset = i.offset;
                it.timestamp = i.timestamp;
                it.leader_epoch = i.leader_epoch.unwrap_or(-1);
            }),
        );
        Ok(())
    })
}

/// The active producers of the partitions of `partitions` (offsets
/// ignored), asked of each leader, or of broker `broker_id` when it is >= 0.
/// Read them with `gregor_partition_results_producer_count` / `_producer`.
/// As `gregor_admin_elect_leaders` for the rest.
#[no_mangle]
pub extern "C" fn gregor_admin_describe_producers(
    admin: *const gregor_admin,
    partitions: *const gregor_tpl,
    broker_id: i32,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_partition_results,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let ps = tps(handle(partitions, "partitions")?);
        let r = a.inner.describe_producers(
            &ps,
            (broker_id >= 0).then_some(broker_id),
            &opts_of(options)?,
        )?;
        store(out, part_results(&r, |p, it| it.producers = p.clone()));
        Ok(())
    })
}

/// Number of partitions (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_partition_results_count(r: *const gregor_partition_results) -> usize {
    count(r)
}

/// Result `i`'s topic.
#[no_mangle]
pub extern "C" fn gregor_partition_results_topic(
    r: *const gregor_partition_results,
    i: usize,
) -> *const c_char {
    item(r, i, ptr::null(), |x| x.topic.as_ptr())
}

/// Result `i`'s partition.
#[no_mangle]
pub extern "C" fn gregor_partition_results_partition(
    r: *const gregor_partition_results,
    i: usize,
) -> i32 {
    item(r, i, -1, |x| x.partition)
}

/// Result `i`'s error code (e.g. `GREGOR_ERR_ELECTION_NOT_NEEDED`).
#[no_mangle]
pub extern "C" fn gregor_partition_results_err(
    r: *const gregor_partition_results,
    i: usize,
) -> c_int {
    item_err(r, i)
}

/// Result `i`'s error text ("" on success).
#[no_mangle]
pub extern "C" fn gregor_partition_results_errstr(
    r: *const gregor_partition_results,
    i: usize,
) -> *const c_char {
    item_errstr(r, i)
}

/// Result `i`'s offset: the listed offset, or the low watermark after
/// deleting records (-1 otherwise).
#[no_mangle]
pub extern "C" fn gregor_partition_results_offset(
    r: *const gregor_partition_results,
    i: usize,
) -> i64 {
    item(r, i, -1, |x| x.offset)
}

/// Result `i`'s timestamp (listed offsets; -1 if not known).
#[no_mangle]
pub extern "C" fn gregor_partition_results_timestamp(
    r: *const gregor_partition_results,
    i: usize,
) -> i64 {
    item(r, i, -1, |x| x.timestamp)
}

/// Result `i`'s leader epoch (listed offsets; -1 if not known).
#[no_mangle]
pub extern "C" fn gregor_partition_results_leader_epoch(
    r: *const gregor_partition_results,
    i: usize,
) -> i32 {
    item(r, i, -1, |x| x.leader_epoch)
}

/// Result `i`'s number of active producers (describe producers).
#[no_mangle]
pub extern "C" fn gregor_partition_results_producer_count(
    r: *const gregor_partition_results,
    i: usize,
) -> usize {
    item(r, i, 0, |x| x.producers.len())
}

/// Result `i`, producer `j`: writes its producer ID, epoch, last sequence
/// (-1 none), last timestamp (-1), coordinator epoch (-1 none) and open
/// transaction's first offset (-1 none) to the non-NULL out-parameters.
/// Returns 0, or `GREGOR_ERR__INVALID_ARG` out of range.
#[no_mangle]
pub extern "C" fn gregor_partition_results_producer(
    r: *const gregor_partition_results,
    i: usize,
    j: usize,
    producer_id: *mut i64,
    producer_epoch: *mut i32,
    last_sequence: *mut i32,
    last_timestamp: *mut i64,
    coordinator_epoch: *mut i32,
    current_transaction_start_offset: *mut i64,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let r = handle(r, "r")?;
        let p = r
            .items
            .get(i)
            .and_then(|x| x.producers.get(j))
            .ok_or_else(|| Error::invalid_arg("index out of range"))?;
        put(producer_id, p.producer_id);
        put(producer_epoch, p.producer_epoch);
        put(last_sequence, p.last_sequence);
        put(last_timestamp, p.last_timestamp);
        put(coordinator_epoch, p.coordinator_epoch.unwrap_or(-1));
        put(
            current_transaction_start_offset,
            p.current_transaction_start_offset.unwrap_or(-1),
        );
        Ok(())
    })
}

/// Result `i`'s committed metadata (listed group offsets; NULL if none).
#[no_mangle]
pub extern "C" fn gregor_partition_results_metadata(
    r: *const gregor_partition_results,
    i: usize,
) -> *const c_char {
    item(r, i, ptr::null(), |x| cptr(&x.metadata))
}

/// Frees partition results. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_partition_results_free(r: *mut gregor_partition_results) {
    guard((), || free(r))
}

pub(crate) struct CReassign {
    topic: CString,
    partition: i32,
    replicas: Vec<i32>,
    adding: Vec<i32>,
    removing: Vec<i32>,
}

/// Partition reassignments in progress. Immutable.
pub struct gregor_partition_reassignments {
    items: Vec<CReassign>,
}

/// The reassignments in progress for the partitions of `partitions`
/// (offsets ignored; NULL: all). On success `*out` receives them (caller
/// owns; free with `gregor_partition_reassignments_free`). Blocks. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_list_partition_reassignments(
    admin: *const gregor_admin,
    partitions: *const gregor_tpl,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_partition_reassignments,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let ps = if partitions.is_null() {
            None
        } else {
            Some(tps(handle(partitions, "partitions")?))
        };
        let r = a
            .inner
            .list_partition_reassignments(ps.as_deref(), &opts_of(options)?)?;
        store(
            out,
            gregor_partition_reassignments {
                items: r
                    .into_iter()
                    .map(|x| CReassign {
                        topic: cs(&x.partition.topic),
                        partition: x.partition.partition,
                        replicas: x.replicas,
                        adding: x.adding_replicas,
                        removing: x.removing_replicas,
                    })
                    .collect(),
            },
        );
        Ok(())
    })
}

/// Number of reassignments (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_partition_reassignments_count(
    r: *const gregor_partition_reassignments,
) -> usize {
    count(r)
}

/// Reassignment `i`'s topic.
#[no_mangle]
pub extern "C" fn gregor_partition_reassignments_topic(
    r: *const gregor_partition_reassignments,
    i: usize,
) -> *const c_char {
    item(r, i, ptr::null(), |x| x.topic.as_ptr())
}

/// Reassignment `i`'s partition.
#[no_mangle]
pub extern "C" fn gregor_partition_reassignments_partition(
    r: *const gregor_partition_reassignments,
    i: usize,
) -> i32 {
    item(r, i, -1, |x| x.partition)
}

/// Reassignment `i`: copies up to `max` current replicas into `out`,
/// returns how many there are.
#[no_mangle]
pub extern "C" fn gregor_partition_reassignments_replicas(
    r: *const gregor_partition_reassignments,
    i: usize,
    out: *mut i32,
    max: usize,
) -> usize {
    item(r, i, 0, |x| copy_ids(&x.replicas, out, max))
}

/// As `gregor_partition_reassignments_replicas`, for the replicas being added.
#[no_mangle]
pub extern "C" fn gregor_partition_reassignments_adding(
    r: *const gregor_partition_reassignments,
    i: usize,
    out: *mut i32,
    max: usize,
) -> usize {
    item(r, i, 0, |x| copy_ids(&x.adding, out, max))
}

/// As `gregor_partition_reassignments_replicas`, for the replicas being removed.
#[no_mangle]
pub extern "C" fn gregor_partition_reassignments_removing(
    r: *const gregor_partition_reassignments,
    i: usize,
    out: *mut i32,
    max: usize,
) -> usize {
    item(r, i, 0, |x| copy_ids(&x.removing, out, max))
}

/// Frees reassignments. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_partition_reassignments_free(r: *mut gregor_partition_reassignments) {
    guard((), || free(r))
}
