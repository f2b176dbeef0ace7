//! The admin client's cluster calls and their result objects.

use super::*;

impl_items!(
    gregor_log_dirs: CBrokerDirs,
);
impl_errs!(
    gregor_log_dirs: |x| &x.err,
);

// ----- cluster -----

/// A described cluster. Immutable.
pub struct gregor_cluster_description {
    cluster_id: Option<CString>,
    controller_id: i32,
    brokers: Vec<(i32, CString, i32, Option<CString>)>,
    ops: Option<Vec<c_int>>,
}

/// Describes the cluster (DescribeCluster, or Metadata on older brokers);
/// non-zero `include_authorized_operations` asks for the client's
/// operations on it. On success `*out` receives it (caller owns; free with
/// `gregor_cluster_description_free`). Blocks. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_describe_cluster(
    admin: *const gregor_admin,
    include_authorized_operations: c_int,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_cluster_description,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let d = a
            .inner
            .describe_cluster(include_authorized_operations != 0, &opts_of(options)?)?;
        store(
            out,
            gregor_cluster_description {
                cluster_id: cso(d.cluster_id.as_deref()),
                controller_id: d.controller_id,
                brokers: d
                    .brokers
                    .iter()
                    .map(|b| (b.id, cs(&b.host), b.port, cso(b.rack.as_deref())))
                    .collect(),
                ops: ops_ints(&d.authorized_operations),
            },
        );
        Ok(())
    })
}

/// The cluster ID (NULL if the broker has none).
#[no_mangle]
pub extern "C" fn gregor_cluster_description_cluster_id(
    d: *const gregor_cluster_description,
) -> *const c_char {
    field(d, ptr::null(), |d| Some(cptr(&d.cluster_id)))
}

/// The controller's broker id (-1 if not known).
#[no_mangle]
pub extern "C" fn gregor_cluster_description_controller_id(
    d: *const gregor_cluster_description,
) -> i32 {
    field(d, -1, |d| Some(d.controller_id))
}

/// Number of brokers.
#[no_mangle]
pub extern "C" fn gregor_cluster_description_broker_count(
    d: *const gregor_cluster_description,
) -> usize {
    field(d, 0, |d| Some(d.brokers.len()))
}

/// Broker `i`'s id (brokers are in id order).
#[no_mangle]
pub extern "C" fn gregor_cluster_description_broker_id(
    d: *const gregor_cluster_description,
    i: usize,
) -> i32 {
    field(d, -1, |d| d.brokers.get(i).map(|b| b.0))
}

/// Broker `i`'s host.
#[no_mangle]
pub extern "C" fn gregor_cluster_description_broker_host(
    d: *const gregor_cluster_description,
    i: usize,
) -> *const c_char {
    field(d, ptr::null(), |d| d.brokers.get(i).map(|b| b.1.as_ptr()))
}

/// Broker `i`'s port.
#[no_mangle]
pub extern "C" fn gregor_cluster_description_broker_port(
    d: *const gregor_cluster_description,
    i: usize,
) -> i32 {
    field(d, -1, |d| d.brokers.get(i).map(|b| b.2))
}

/// Broker `i`'s rack (NULL if none).
#[no_mangle]
pub extern "C" fn gregor_cluster_description_broker_rack(
    d: *const gregor_cluster_description,
    i: usize,
) -> *const c_char {
    field(d, ptr::null(), |d| d.brokers.get(i).map(|b| cptr(&b.3)))
}

/// Copies up to `max` authorized operations (`GREGOR_ACL_OPERATION_*`)
/// into `out`; returns how many there are, or -1 if not asked or not known.
#[no_mangle]
pub extern "C" fn gregor_cluster_description_authorized_operations(
    d: *const gregor_cluster_description,
    out: *mut c_int,
    max: usize,
) -> c_int {
    field(d, -1, |d| Some(copy_ops(&d.ops, out, max)))
}

/// Frees a cluster description. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_cluster_description_free(d: *mut gregor_cluster_description) {
    guard((), || free(d))
}

struct CReplica {
    topic: CString,
    partition: i32,
    size: i64,
    offset_lag: i64,
    is_future: bool,
}

struct CDir {
    path: CString,
    err: CErr,
    total_bytes: i64,
    usable_bytes: i64,
    replicas: Vec<CReplica>,
}

pub(crate) struct CBrokerDirs {
    broker_id: i32,
    err: CErr,
    dirs: Vec<CDir>,
}

/// Brokers' log directories. Immutable.
pub struct gregor_log_dirs {
    items: Vec<CBrokerDirs>,
}

/// Describes the log directories of `count` brokers (`brokers`; 0: all
/// brokers), asking each in parallel. On success `*out` receives one result
/// per broker (caller owns; free with `gregor_log_dirs_free`). Blocks.
/// Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_describe_log_dirs(
    admin: *const gregor_admin,
    brokers: *const i32,
    count: usize,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_log_dirs,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let ids = slice(brokers, count, "brokers")?;
        let r = a
            .inner
            .describe_log_dirs((count > 0).then_some(ids), &opts_of(options)?)?;
        store(
            out,
            gregor_log_dirs {
                items: r
                    .iter()
                    .map(|b| CBrokerDirs {
                        broker_id: b.broker_id,
                        err: cerr(&b.result),
                        dirs: b.result.as_ref().map_or(Vec::new(), |ds| {
                            ds.iter()
                                .map(|d| CDir {
                                    path: cs(&d.path),
                                    err: cerr_of(d.error.as_ref()),
                                    total_bytes: d.total_bytes.unwrap_or(-1),
                                    usable_bytes: d.usable_bytes.unwrap_or(-1),
                                    replicas: d
                                        .replicas
                                        .iter()
                                        .map(|x| CReplica {
                                            topic: cs(&x.partition.topic),
                                            partition: x.partition.partition,
                                            size: x.size,
                                            offset_lag: x.offset_lag,
                                            is_future: x.is_future,
                                        })
                                        .collect(),
                                })
                                .collect()
                        }),
                    })
                    .collect(),
            },
        );
        Ok(())
    })
}

/// Number of brokers (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_log_dirs_broker_count(l: *const gregor_log_dirs) -> usize {
    count(l)
}

/// Broker `b`'s id.
#[no_mangle]
pub extern "C" fn gregor_log_dirs_broker_id(l: *const gregor_log_dirs, b: usize) -> i32 {
    item(l, b, -1, |x| x.broker_id)
}

/// Broker `b`'s error code (asking it).
#[no_mangle]
pub extern "C" fn gregor_log_dirs_broker_err(l: *const gregor_log_dirs, b: usize) -> c_int {
    item_err(l, b)
}

/// Broker `b`'s error text ("" on success).
#[no_mangle]
pub extern "C" fn gregor_log_dirs_broker_errstr(
    l: *const gregor_log_dirs,
    b: usize,
) -> *const c_char {
    item_errstr(l, b)
}

/// Number of log directories of broker `b`.
#[no_mangle]
pub extern "C" fn gregor_log_dirs_dir_count(l: *const gregor_log_dirs, b: usize) -> usize {
    item(l, b, 0, |x| x.dirs.len())
}

/// Reads `f` of the item at (b, d) (`default` for NULL or out of range).
fn dir<T: Copy>(
    l: *const gregor_log_dirs,
    b: usize,
    d: usize,
    default: T,
    f: impl FnOnce(&CDir) -> T,
) -> T {
    field(l, default, |l| l.items.get(b)?.dirs.get(d).map(f))
}

/// Broker `b`, directory `d`: its path.
#[no_mangle]
pub extern "C" fn gregor_log_dirs_dir_path(
    l: *const gregor_log_dirs,
    b: usize,
    d: usize,
) -> *const c_char {
    dir(l, b, d, ptr::null(), |x| x.path.as_ptr())
}

/// Broker `b`, directory `d`: its error code (e.g. `GREGOR_ERR_KAFKA_STORAGE_ERROR`).
#[no_mangle]
pub extern "C" fn gregor_log_dirs_dir_err(l: *const gregor_log_dirs, b: usize, d: usize) -> c_int {
    dir(l, b, d, local::INVALID_ARG, |x| x.err.code)
}

/// Broker `b`, directory `d`: the volume's size in bytes (-1 if not known).
#[no_mangle]
pub extern "C" fn gregor_log_dirs_dir_total_bytes(
    l: *const gregor_log_dirs,
    b: usize,
    d: usize,
) -> i64 {
    dir(l, b, d, -1, |x| x.total_bytes)
}

/// Broker `b`, directory `d`: the volume's usable bytes (-1 if not known).
#[no_mangle]
pub extern "C" fn gregor_log_dirs_dir_usable_bytes(
    l: *const gregor_log_dirs,
    b: usize,
    d: usize,
) -> i64 {
    dir(l, b, d, -1, |x| x.usable_bytes)
}

/// Broker `b`, directory `d`: number of replicas in it.
#[no_mangle]
pub extern "C" fn gregor_log_dirs_replica_count(
    l: *const gregor_log_dirs,
    b: usize,
    d: usize,
) -> usize {
    dir(l, b, d, 0, |x| x.replicas.len())
}

/// Reads `f` of the item at (b, d, r) (`default` for NULL or out of range).
fn replica<T: Copy>(
    l: *const gregor_log_dirs,
    b: usize,
    d: usize,
    r: usize,
    default: T,
    f: impl FnOnce(&CReplica) -> T,
) -> T {
    field(l, default, |l| {
        l.items.get(b)?.dirs.get(d)?.replicas.get(r).map(f)
    })
}

/// Replica `r` of broker `b`'s directory `d`: its topic.
#[no_mangle]
pub extern "C" fn gregor_log_dirs_replica_topic(
    l: *const gregor_log_dirs,
    b: usize,
    d: usize,
    r: usize,
) -> *const c_char {
    replica(l, b, d, r, ptr::null(), |x| x.topic.as_ptr())
}

/// Replica `r`: its partition.
#[no_mangle]
pub extern "C" fn gregor_log_dirs_replica_partition(
    l: *const gregor_log_dirs,
    b: usize,
    d: usize,
    r: usize,
) -> i32 {
    replica(l, b, d, r, -1, |x| x.partition)
}

/// Replica `r`: the size of its segments in bytes.
#[no_mangle]
pub extern "C" fn gregor_log_dirs_replica_size(
    l: *const gregor_log_dirs,
    b: usize,
    d: usize,
    r: usize,
) -> i64 {
    replica(l, b, d, r, -1, |x| x.size)
}

/// Replica `r`: its offset lag.
#[no_mangle]
pub extern "C" fn gregor_log_dirs_replica_offset_lag(
    l: *const gregor_log_dirs,
    b: usize,
    d: usize,
    r: usize,
) -> i64 {
    replica(l, b, d, r, -1, |x| x.offset_lag)
}

/// Replica `r`: 1 if it is a future replica being moved here.
#[no_mangle]
pub extern "C" fn gregor_log_dirs_replica_is_future(
    l: *const gregor_log_dirs,
    b: usize,
    d: usize,
    r: usize,
) -> c_int {
    replica(l, b, d, r, -1, |x| c_int::from(x.is_future))
}

/// Frees log dirs. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_log_dirs_free(l: *mut gregor_log_dirs) {
    guard((), || free(l))
}
