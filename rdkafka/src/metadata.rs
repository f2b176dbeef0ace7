//! Cluster metadata, `rd_kafka_metadata`, `rd_kafka_metadata_destroy`,
//! `rd_kafka_controllerid` and `rd_kafka_clusterid`:
//! gregor's metadata snapshot as rdkafka.h's `rd_kafka_metadata_t` tree.
//!
//! The tree C reads ([`MdC`] and the arrays and strings it points to) is
//! owned by one [`Metadata`] box that starts with it, so the pointer C
//! gets is both and `rd_kafka_metadata_destroy` frees everything at once.
//! As librdkafka's: `all_topics` non-zero asks for every topic, zero for
//! the topics the client has handles for (`only_rkt` for just that one);
//! through a producer a named topic may be auto-created by the broker.
//! Brokers come in id order and topics in name order (gregor's snapshot
//! keeps them so); `orig_broker_id` and `orig_broker_name` name the broker
//! that answered.

#![allow(unsafe_code)] // `#[no_mangle]`

use std::ffi::{c_char, c_int, CString};
use std::sync::atomic::Ordering;

use crate::guard::guard;
use crate::handle::{timeout, Client, Handle};
use crate::raw;
use crate::topic::Topic;

const RESP_ERR__INVALID_ARG: c_int = -186;

/// `rd_kafka_metadata_broker_t`.
#[repr(C)]
#[derive(Debug)]
pub struct MdBroker {
    id: i32,
    host: *mut c_char,
    port: c_int,
}

/// `rd_kafka_metadata_partition_t`.
#[repr(C)]
#[derive(Debug)]
pub struct MdPartition {
    id: i32,
    err: c_int,
    leader: i32,
    replica_cnt: c_int,
    replicas: *mut i32,
    isr_cnt: c_int,
    isrs: *mut i32,
}

/// `rd_kafka_metadata_topic_t`.
#[repr(C)]
#[derive(Debug)]
pub struct MdTopic {
    topic: *mut c_char,
    partition_cnt: c_int,
    partitions: *mut MdPartition,
    err: c_int,
}

/// `rd_kafka_metadata_t`.
#[repr(C)]
#[derive(Debug)]
pub struct MdC {
    broker_cnt: c_int,
    brokers: *mut MdBroker,
    topic_cnt: c_int,
    topics: *mut MdTopic,
    orig_broker_id: i32,
    orig_broker_name: *mut c_char,
}

/// The metadata C gets: the public tree first, then what it points into.
/// The vectors are never changed after the pointers are taken, so their
/// buffers (and the strings') stay where the pointers say.
#[repr(C)]
#[derive(Debug)]
pub struct Metadata {
    c: MdC,
    strings: Vec<CString>,
    brokers: Vec<MdBroker>,
    topics: Vec<MdTopic>,
    partitions: Vec<Vec<MdPartition>>,
    ids: Vec<Vec<i32>>,
}

fn count(n: usize) -> c_int {
    c_int::try_from(n).unwrap_or(c_int::MAX)
}

/// A C string kept in `strings`; its stable address.
fn keep(strings: &mut Vec<CString>, s: &str) -> *mut c_char {
    let c = raw::c_string(s);
    let p = c.as_ptr().cast_mut();
    strings.push(c);
    p
}

/// An id array kept in `ids`: (count, stable address).
fn keep_ids(ids: &mut Vec<Vec<i32>>, v: &[i32]) -> (c_int, *mut i32) {
    let mut v = v.to_vec();
    let p = v.as_mut_ptr();
    let n = count(v.len());
    ids.push(v);
    (n, p)
}

/// Builds the C tree of gregor's snapshot.
fn from_gregor(md: &gregor::metadata::Metadata) -> Box<Metadata> {
    let mut strings = Vec::new();
    let mut ids = Vec::new();
    let mut brokers: Vec<MdBroker> = md
        .brokers
        .values()
        .map(|b| MdBroker {
            id: b.id,
            host: keep(&mut strings, &b.host),
            port: b.port,
        })
        .collect();
    let mut partitions = Vec::new();
    let mut topics = Vec::new();
    for t in md.topics.values() {
        let mut parts: Vec<MdPartition> = t
            .partitions
            .iter()
            .map(|p| {
                let (replica_cnt, replicas) = keep_ids(&mut ids, &p.replicas);
                let (isr_cnt, isrs) = keep_ids(&mut ids, &p.isr);
                MdPartition {
                    id: p.id,
                    err: c_int::from(p.error.0),
                    leader: p.leader,
                    replica_cnt,
                    replicas,
                    isr_cnt,
                    isrs,
                }
            })
            .collect();
        topics.push(MdTopic {
            topic: keep(&mut strings, &t.name),
            partition_cnt: count(parts.len()),
            partitions: parts.as_mut_ptr(),
            err: c_int::from(t.error.0),
        });
        partitions.push(parts);
    }
    // the broker that answered, as librdkafka names brokers: `host:port/id`
    let orig_broker_id = md
        .orig_broker
        .rsplit_once('/')
        .and_then(|(_, id)| id.parse().ok())
        .unwrap_or(-1);
    let orig_broker_name = keep(&mut strings, &md.orig_broker);
    Box::new(Metadata {
        c: MdC {
            broker_cnt: count(brokers.len()),
            brokers: brokers.as_mut_ptr(),
            topic_cnt: count(topics.len()),
            topics: topics.as_mut_ptr(),
            orig_broker_id,
            orig_broker_name,
        },
        strings,
        brokers,
        topics,
        partitions,
        ids,
    })
}

/// Asks the cluster for metadata (`rd_kafka_metadata`), see the module;
/// on success `*metadatap` is the answer, for `rd_kafka_metadata_destroy`.
#[no_mangle]
pub extern "C" fn rd_kafka_metadata(
    rk: *mut Handle,
    all_topics: c_int,
    only_rkt: *mut Topic,
    metadatap: *mut *const Metadata,
    timeout_ms: c_int,
) -> c_int {
    guard(RESP_ERR__INVALID_ARG, || {
        let Some(h) = raw::object(rk) else {
            return RESP_ERR__INVALID_ARG;
        };
        if metadatap.is_null() {
            return RESP_ERR__INVALID_ARG;
        }
        let names: Option<Vec<String>> = match raw::object(only_rkt) {
            Some(t) => Some(vec![t.name().to_string()]),
            None if all_topics != 0 => None,
            None => Some(h.topics().names()),
        };
        let refs: Option<Vec<&str>> = names
            .as_ref()
            .map(|v| v.iter().map(String::as_str).collect());
        let t = timeout(timeout_ms);
        let md = match h.client() {
            Client::Producer(p) => p.metadata(refs.as_deref(), t),
            Client::Consumer(c) => c.metadata(refs.as_deref(), t),
        };
        match md {
            Ok(md) => {
                h.controller().store(md.controller_id, Ordering::Relaxed);
                raw::write_out(metadatap, Box::into_raw(from_gregor(&md)).cast_const());
                0
            }
            Err(e) => e.code(),
        }
    })
}

/// The cluster's controller broker id (`rd_kafka_controllerid`): the one
/// the last metadata answer named; with a `timeout_ms` other than 0 and
/// none known yet, a metadata request (no topics) asks for it, waiting up
/// to that long. -1 if unknown.
#[no_mangle]
pub extern "C" fn rd_kafka_controllerid(rk: *mut Handle, timeout_ms: c_int) -> i32 {
    guard(-1, || {
        let Some(h) = raw::object(rk) else {
            return -1;
        };
        let known = h.controller().load(Ordering::Relaxed);
        if known >= 0 || timeout_ms == 0 {
            return known;
        }
        let t = timeout(timeout_ms);
        let md = match h.client() {
            Client::Producer(p) => p.metadata(Some(&[]), t),
            Client::Consumer(c) => c.metadata(Some(&[]), t),
        };
        md.map_or(-1, |md| {
            h.controller().store(md.controller_id, Ordering::Relaxed);
            md.controller_id
        })
    })
}

/// The cluster's id (`rd_kafka_clusterid`, KIP-78), as a malloc'ed string
/// for the caller to free with `rd_kafka_mem_free`; a metadata request
/// (no topics) waiting up to `timeout_ms` asks for it. NULL if the
/// cluster has none (brokers before Kafka 0.10.1) or did not answer.
#[no_mangle]
pub extern "C" fn rd_kafka_clusterid(rk: *mut Handle, timeout_ms: c_int) -> *mut c_char {
    guard(std::ptr::null_mut(), || {
        let Some(h) = raw::object(rk) else {
            return std::ptr::null_mut();
        };
        let t = timeout(timeout_ms);
        let md = match h.client() {
            Client::Producer(p) => p.metadata(Some(&[]), t),
            Client::Consumer(c) => c.metadata(Some(&[]), t),
        };
        match md {
            Ok(md) => {
                h.controller().store(md.controller_id, Ordering::Relaxed);
                md.cluster_id
                    .map_or(std::ptr::null_mut(), |id| raw::c_strdup(&id))
            }
            Err(_) => std::ptr::null_mut(),
        }
    })
}

/// Frees what `rd_kafka_metadata` returned (`rd_kafka_metadata_destroy`).
#[no_mangle]
pub extern "C" fn rd_kafka_metadata_destroy(metadata: *const Metadata) {
    guard((), || drop(raw::take_box(metadata.cast_mut())));
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    #[test]
    fn layout_is_rdkafka_h() {
        assert_eq!(size_of::<MdBroker>(), 24);
        assert_eq!(size_of::<MdPartition>(), 40);
        assert_eq!(offset_of!(MdPartition, isrs), 32);
        assert_eq!(size_of::<MdTopic>(), 32);
        assert_eq!(offset_of!(MdTopic, err), 24);
        assert_eq!(offset_of!(MdC, orig_broker_id), 32);
        assert_eq!(size_of::<MdC>(), 48);
        assert_eq!(offset_of!(Metadata, c), 0);
    }
}
