//! Metadata snapshots (`gregor_metadata_*`), as the producer, consumer and
//! admin client fetch them.

use std::ffi::{c_char, c_int, CString};
use std::ptr;

use super::guard::{field, guard, guard_code};
use super::raw::*;
use crate::cluster::Metadata;
use crate::error::{local, Error};

/// A metadata snapshot. Immutable; thread-safe to read.
pub struct gregor_metadata {
    md: Metadata,
    brokers: Vec<(i32, CString, i32)>,
    /// (name, ID text, topic) in name order.
    topics: Vec<(CString, CString, crate::cluster::TopicInfo)>,
    cluster_id: Option<CString>,
}

// ----- metadata -----

pub(crate) fn metadata_of(
    cluster: &crate::cluster::Cluster,
    topic: *const c_char,
    timeout_ms: c_int,
    out: *mut *mut gregor_metadata,
) -> Result<(), Error> {
    if out.is_null() {
        return Err(null_arg("metadata"));
    }
    let timeout = timeout(timeout_ms);
    let md = if topic.is_null() {
        cluster.fetch_metadata(None, false, timeout)?
    } else {
        let t = c_str(topic, "topic")?;
        cluster.fetch_metadata(Some(&[t]), false, timeout)?
    };
    let brokers = md
        .brokers
        .values()
        .map(|b| {
            (
                b.id,
                CString::new(b.host.as_bytes()).unwrap_or_default(),
                b.port,
            )
        })
        .collect();
    let topics = md
        .topics
        .values()
        .map(|t| {
            (
                CString::new(t.name.as_bytes()).unwrap_or_default(),
                CString::new(t.id.to_kafka_string()).unwrap_or_default(),
                t.clone(),
            )
        })
        .collect();
    let cluster_id = md
        .cluster_id
        .as_ref()
        .map(|c| CString::new(c.as_bytes()).unwrap_or_default());
    put(
        out,
        Box::into_raw(Box::new(gregor_metadata {
            md,
            brokers,
            topics,
            cluster_id,
        })),
    );
    Ok(())
}

fn topic_at<'a>(md: *const gregor_metadata, t: usize) -> Option<&'a crate::cluster::TopicInfo> {
    let m: &'a gregor_metadata = handle(md, "metadata").ok()?;
    m.topics.get(t).map(|x| &x.2)
}

fn partition_at<'a>(
    md: *const gregor_metadata,
    t: usize,
    p: usize,
) -> Option<&'a crate::cluster::PartitionInfo> {
    topic_at(md, t).and_then(|ti| ti.partitions.get(p))
}

/// Number of brokers (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_metadata_broker_count(md: *const gregor_metadata) -> usize {
    field(md, 0, |m| Some(m.brokers.len()))
}

/// Broker `i`'s id (-1 if out of range).
#[no_mangle]
pub extern "C" fn gregor_metadata_broker_id(md: *const gregor_metadata, i: usize) -> i32 {
    field(md, -1, |m| m.brokers.get(i).map(|b| b.0))
}

/// Broker `i`'s host, NUL-terminated, valid until the snapshot is freed (NULL if out of range).
#[no_mangle]
pub extern "C" fn gregor_metadata_broker_host(
    md: *const gregor_metadata,
    i: usize,
) -> *const c_char {
    field(md, ptr::null(), |m| m.brokers.get(i).map(|b| b.1.as_ptr()))
}

/// Broker `i`'s port (-1 if out of range).
#[no_mangle]
pub extern "C" fn gregor_metadata_broker_port(md: *const gregor_metadata, i: usize) -> i32 {
    field(md, -1, |m| m.brokers.get(i).map(|b| b.2))
}

/// The controller's broker id (-1 if unknown).
#[no_mangle]
pub extern "C" fn gregor_metadata_controller_id(md: *const gregor_metadata) -> i32 {
    field(md, -1, |m| Some(m.md.controller_id))
}

/// The cluster id, NUL-terminated, valid until the snapshot is freed (NULL if none).
#[no_mangle]
pub extern "C" fn gregor_metadata_cluster_id(md: *const gregor_metadata) -> *const c_char {
    field(md, ptr::null(), |m| {
        m.cluster_id.as_ref().map(|c| c.as_ptr())
    })
}

/// Number of topics (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_metadata_topic_count(md: *const gregor_metadata) -> usize {
    field(md, 0, |m| Some(m.topics.len()))
}

/// Topic `t`'s name, NUL-terminated, valid until the snapshot is freed (NULL if out of range).
#[no_mangle]
pub extern "C" fn gregor_metadata_topic_name(
    md: *const gregor_metadata,
    t: usize,
) -> *const c_char {
    field(md, ptr::null(), |m| m.topics.get(t).map(|x| x.0.as_ptr()))
}

/// Topic `t`'s ID in Kafka's base64 form ("AAAAAAAAAAAAAAAAAAAAAA" when the
/// broker has none), valid until the snapshot is freed (NULL if out of range).
#[no_mangle]
pub extern "C" fn gregor_metadata_topic_id(md: *const gregor_metadata, t: usize) -> *const c_char {
    field(md, ptr::null(), |m| m.topics.get(t).map(|x| x.1.as_ptr()))
}

/// Topic `t`'s 16 ID bytes, copied to `out` (16 bytes). Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_metadata_topic_id_bytes(
    md: *const gregor_metadata,
    t: usize,
    out: *mut u8,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let ti = topic_at(md, t).ok_or_else(|| Error::invalid_arg("no such topic index"))?;
        if out.is_null() {
            return Err(null_arg("out"));
        }
        copy_out(&ti.id.0, out);
        Ok(())
    })
}

/// Topic `t`'s error code (0 if none; `GREGOR_ERR__INVALID_ARG` if out of range).
#[no_mangle]
pub extern "C" fn gregor_metadata_topic_err(md: *const gregor_metadata, t: usize) -> c_int {
    guard(local::FAIL, || {
        topic_at(md, t).map_or(local::INVALID_ARG, |ti| i32::from(ti.error.0))
    })
}

/// Number of partitions of topic `t` (0 if out of range).
#[no_mangle]
pub extern "C" fn gregor_metadata_partition_count(md: *const gregor_metadata, t: usize) -> usize {
    guard(0, || topic_at(md, t).map_or(0, |ti| ti.partitions.len()))
}

/// Partition `p` of topic `t`: its id (-1 if out of range).
#[no_mangle]
pub extern "C" fn gregor_metadata_partition_id(
    md: *const gregor_metadata,
    t: usize,
    p: usize,
) -> i32 {
    guard(-1, || partition_at(md, t, p).map_or(-1, |x| x.id))
}

/// Partition `p` of topic `t`: its leader's broker id (-1 if none or out of range).
#[no_mangle]
pub extern "C" fn gregor_metadata_partition_leader(
    md: *const gregor_metadata,
    t: usize,
    p: usize,
) -> i32 {
    guard(-1, || partition_at(md, t, p).map_or(-1, |x| x.leader))
}

/// Partition `p` of topic `t`: its error code (`GREGOR_ERR__INVALID_ARG` if out of range).
#[no_mangle]
pub extern "C" fn gregor_metadata_partition_err(
    md: *const gregor_metadata,
    t: usize,
    p: usize,
) -> c_int {
    guard(local::FAIL, || {
        partition_at(md, t, p).map_or(local::INVALID_ARG, |x| i32::from(x.error.0))
    })
}

/// Partition `p` of topic `t`: copies up to `max` replica ids into `out` and
/// returns how many replicas there are (so `out` may be NULL with `max` 0).
#[no_mangle]
pub extern "C" fn gregor_metadata_partition_replicas(
    md: *const gregor_metadata,
    t: usize,
    p: usize,
    out: *mut i32,
    max: usize,
) -> usize {
    guard(0, || {
        partition_at(md, t, p).map_or(0, |x| copy_ids(&x.replicas, out, max))
    })
}

/// Partition `p` of topic `t`: as `gregor_metadata_partition_replicas`, for the in-sync replicas.
#[no_mangle]
pub extern "C" fn gregor_metadata_partition_isrs(
    md: *const gregor_metadata,
    t: usize,
    p: usize,
    out: *mut i32,
    max: usize,
) -> usize {
    guard(0, || {
        partition_at(md, t, p).map_or(0, |x| copy_ids(&x.isr, out, max))
    })
}

/// Frees a metadata snapshot. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_metadata_free(md: *mut gregor_metadata) {
    guard((), || free(md))
}
