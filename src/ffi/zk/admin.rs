//! The admin requests and change notifications a ZooKeeper-mode Kafka keeps
//! in ZooKeeper, for C (what `gregor zk admin` prints, as result objects):
//! topics marked for deletion (`/admin/delete_topics`), the partition
//! reassignment (`/admin/reassign_partitions`), the preferred replica
//! election (`/admin/preferred_replica_election`), ISR change notifications
//! (`/isr_change_notification/*`) and config change notifications
//! (`/config/changes/*`). Each call takes a `gregor_zk` session and blocks
//! up to its session timeout; a znode that is absent gives an empty list,
//! a malformed one `GREGOR_ERR__BAD_MSG` naming it.
//!
//! Accessors take indexes; out of range (or on a NULL result) they return
//! NULL (strings), -1 (numbers) or 0 (counts). Strings are borrowed: valid
//! until the result is freed. Results are immutable and may be read from
//! several threads.

use super::inspect::{gregor_zk_names, read_into};
use super::*;
use crate::ffi::guard::{count, impl_items, item};
use crate::registry::AdminPartition;

impl_items!(gregor_zk_partitions: CAdminPartition, gregor_zk_config_changes: CConfigChange);

pub(crate) struct CAdminPartition {
    /// The notification's znode name (ISR changes), else None.
    notification: Option<CString>,
    topic: CString,
    partition: i32,
    replicas: Vec<i32>,
}

/// Partitions named by an admin request or notification, in the znode's
/// order: topic, partition, and (reassignments) the new replicas. Immutable.
pub struct gregor_zk_partitions {
    items: Vec<CAdminPartition>,
}

fn cpartitions<'a>(
    v: impl IntoIterator<Item = (Option<&'a str>, &'a AdminPartition)>,
) -> gregor_zk_partitions {
    gregor_zk_partitions {
        items: v
            .into_iter()
            .map(|(n, p)| CAdminPartition {
                notification: cso(n),
                topic: cs(&p.topic),
                partition: p.partition,
                replicas: p.replicas.clone(),
            })
            .collect(),
    }
}

/// Reads one admin request znode's partitions into `*out`.
fn admin_request(
    zk: *const gregor_zk,
    out: *mut *mut gregor_zk_partitions,
    errstr: *mut c_char,
    errstr_size: usize,
    read: fn(&ZkClient) -> Result<Vec<AdminPartition>, Error>,
) -> c_int {
    read_into(zk, out, errstr, errstr_size, |z| {
        Ok(cpartitions(read(z)?.iter().map(|p| (None, p))))
    })
}

/// The topics marked for deletion (`/admin/delete_topics/<topic>`), in name
/// order; empty if none. On success `*out` receives them (caller owns; free
/// with `gregor_zk_names_free`).
#[no_mangle]
pub extern "C" fn gregor_zk_list_topic_deletions(
    zk: *const gregor_zk,
    out: *mut *mut gregor_zk_names,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    read_into(zk, out, errstr, errstr_size, |z| {
        let mut t = z.delete_topics()?;
        t.sort();
        Ok(super::inspect::names(t))
    })
}

/// The partition reassignment in progress (`/admin/reassign_partitions`):
/// each partition with its target replicas (`gregor_zk_partitions_replicas`);
/// empty if none. On success `*out` receives it (caller owns; free with
/// `gregor_zk_partitions_free`).
#[no_mangle]
pub extern "C" fn gregor_zk_list_reassignments(
    zk: *const gregor_zk,
    out: *mut *mut gregor_zk_partitions,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    admin_request(zk, out, errstr, errstr_size, ZkClient::reassign_partitions)
}

/// The preferred replica election in progress
/// (`/admin/preferred_replica_election`), empty if none. As
/// `gregor_zk_list_reassignments` for the rest (no replicas).
#[no_mangle]
pub extern "C" fn gregor_zk_list_preferred_replica_elections(
    zk: *const gregor_zk,
    out: *mut *mut gregor_zk_partitions,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    admin_request(
        zk,
        out,
        errstr,
        errstr_size,
        ZkClient::preferred_replica_election,
    )
}

/// The ISR change notifications (the children of
/// `/isr_change_notification`, in znode order): one row per partition
/// named, with its notification's znode name
/// (`gregor_zk_partitions_notification`). As
/// `gregor_zk_list_reassignments` for the rest (no replicas).
#[no_mangle]
pub extern "C" fn gregor_zk_list_isr_changes(
    zk: *const gregor_zk,
    out: *mut *mut gregor_zk_partitions,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    read_into(zk, out, errstr, errstr_size, |z| {
        let mut n = z.isr_change_notifications()?;
        n.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(cpartitions(n.iter().flat_map(|n| {
            n.partitions.iter().map(|p| (Some(n.name.as_str()), p))
        })))
    })
}

/// Number of partitions (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_zk_partitions_count(p: *const gregor_zk_partitions) -> usize {
    count(p)
}

/// Row `i`'s topic.
#[no_mangle]
pub extern "C" fn gregor_zk_partitions_topic(
    p: *const gregor_zk_partitions,
    i: usize,
) -> *const c_char {
    item(p, i, ptr::null(), |x| x.topic.as_ptr())
}

/// Row `i`'s partition.
#[no_mangle]
pub extern "C" fn gregor_zk_partitions_partition(p: *const gregor_zk_partitions, i: usize) -> i32 {
    item(p, i, -1, |x| x.partition)
}

/// Row `i`: copies up to `max` of its new replica ids (reassignments; none
/// otherwise) into `out` and returns how many there are.
#[no_mangle]
pub extern "C" fn gregor_zk_partitions_replicas(
    p: *const gregor_zk_partitions,
    i: usize,
    out: *mut i32,
    max: usize,
) -> usize {
    item(p, i, 0, |x| copy_ids(&x.replicas, out, max))
}

/// Row `i`'s notification znode name (`isr_change_0000000001`) for ISR
/// changes; NULL for the admin requests.
#[no_mangle]
pub extern "C" fn gregor_zk_partitions_notification(
    p: *const gregor_zk_partitions,
    i: usize,
) -> *const c_char {
    item(p, i, ptr::null(), |x| cptr(&x.notification))
}

/// Frees a partition list. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_zk_partitions_free(p: *mut gregor_zk_partitions) {
    guard((), || free(p))
}

// ----- config change notifications -----

pub(crate) struct CConfigChange {
    name: CString,
    entity_path: CString,
}

/// Config change notifications (the children of `/config/changes`): each
/// znode's name and the entity whose config changed. Immutable.
pub struct gregor_zk_config_changes {
    items: Vec<CConfigChange>,
}

/// The config change notifications, in znode order: each one's name
/// (`config_change_0000000003`) and entity path (`topics/<topic>`,
/// `clients/<id>`, …; version 1 notifications give
/// `<entity_type>/<entity_name>`). On success `*out` receives them (caller
/// owns; free with `gregor_zk_config_changes_free`).
#[no_mangle]
pub extern "C" fn gregor_zk_list_config_changes(
    zk: *const gregor_zk,
    out: *mut *mut gregor_zk_config_changes,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    read_into(zk, out, errstr, errstr_size, |z| {
        let mut n = z.config_changes()?;
        n.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(gregor_zk_config_changes {
            items: n
                .iter()
                .map(|n| CConfigChange {
                    name: cs(&n.name),
                    entity_path: cs(&n.entity_path),
                })
                .collect(),
        })
    })
}

/// Number of notifications (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_zk_config_changes_count(c: *const gregor_zk_config_changes) -> usize {
    count(c)
}

/// Notification `i`'s znode name.
#[no_mangle]
pub extern "C" fn gregor_zk_config_changes_name(
    c: *const gregor_zk_config_changes,
    i: usize,
) -> *const c_char {
    item(c, i, ptr::null(), |x| x.name.as_ptr())
}

/// Notification `i`'s entity path.
#[no_mangle]
pub extern "C" fn gregor_zk_config_changes_entity_path(
    c: *const gregor_zk_config_changes,
    i: usize,
) -> *const c_char {
    item(c, i, ptr::null(), |x| x.entity_path.as_ptr())
}

/// Frees a list of config change notifications. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_zk_config_changes_free(c: *mut gregor_zk_config_changes) {
    guard((), || free(c))
}
