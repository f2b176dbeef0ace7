//! Topic descriptions through rdkafka.h's Admin API (KIP-430's
//! authorized operations included): `rd_kafka_TopicCollection_t`,
//! `rd_kafka_DescribeTopics`, and its result's
//! `rd_kafka_TopicDescription_t` and `rd_kafka_TopicPartitionInfo_t`, on
//! gregor's admin client.
//!
//! As librdkafka's, the call refuses a topic named twice or an empty name
//! before sending (`_INVALID_ARG`) and answers an empty collection with an
//! empty result. Leaders and replicas are `rd_kafka_Node_t`s of the
//! cluster's brokers (asked for after the topics, from the same
//! cluster); a broker the metadata does not list has only its id.

#![allow(unsafe_code)] // `#[no_mangle]`

use std::collections::{BTreeMap, HashSet};
use std::ffi::{c_char, c_int, CString};
use std::ptr;
use std::time::Duration;

use gregor::admin::topics::TopicDescription as GregorDescription;
use gregor::admin::TopicResult as GregorResult;
use gregor::metadata::BrokerInfo;

use crate::admin::{fail_request, submit_event, AdminOptions};
use crate::admin_configs::entity_text;
use crate::admin_parts::Node;
use crate::error_object::ErrorObject;
use crate::event::{as_result, Event, Listed};
use crate::guard::guard;
use crate::handle::Handle;
use crate::queue::Queue;
use crate::raw;
use crate::uuid::Uuid;

/// `RD_KAFKA_RESP_ERR__INVALID_ARG`.
const RESP_ERR__INVALID_ARG: c_int = -186;
/// `RD_KAFKA_EVENT_DESCRIBETOPICS_RESULT`.
const EVENT_DESCRIBETOPICS_RESULT: c_int = 0x100000;

/// `rd_kafka_TopicCollection_t`: topic names.
#[derive(Debug)]
pub struct TopicCollection {
    names: Vec<String>,
}

/// A collection of the `topics_cnt` names at `topics`, copied
/// (`rd_kafka_TopicCollection_of_topic_names`; a NULL name reads as
/// empty). Caller owns, free with `rd_kafka_TopicCollection_destroy`.
#[no_mangle]
pub extern "C" fn rd_kafka_TopicCollection_of_topic_names(
    topics: *const *const c_char,
    topics_cnt: usize,
) -> *mut TopicCollection {
    guard(ptr::null_mut(), || {
        let names = raw::read_array(topics, topics_cnt)
            .iter()
            .map(|&t| raw::read_cstr(t).unwrap_or_default().into_owned())
            .collect();
        Box::into_raw(Box::new(TopicCollection { names }))
    })
}

/// `rd_kafka_TopicCollection_destroy`; NULL is nothing.
#[no_mangle]
pub extern "C" fn rd_kafka_TopicCollection_destroy(topics: *mut TopicCollection) {
    guard((), || drop(raw::take_box(topics)));
}

/// `rd_kafka_TopicPartitionInfo_t`: a partition, its leader and replicas.
#[derive(Debug)]
pub struct PartitionInfo {
    partition: c_int,
    leader: Option<Node>,
    isr: Listed<Node>,
    replicas: Listed<Node>,
}

/// `rd_kafka_TopicDescription_t`: a topic's description or error.
#[derive(Debug)]
pub struct TopicDescription {
    name: CString,
    topic_id: Uuid,
    is_internal: bool,
    error: Option<ErrorObject>,
    partitions: Listed<PartitionInfo>,
    /// `None` when not asked for (or not known).
    operations: Option<Vec<c_int>>,
}

impl TopicDescription {
    fn of(r: &GregorResult<GregorDescription>, brokers: &BTreeMap<i32, BrokerInfo>) -> Self {
        let name = r.name.clone().unwrap_or_default();
        let [msb, lsb] = halves(&r.topic_id.0);
        let mut out = TopicDescription {
            name: raw::c_string(&name),
            topic_id: Uuid::new(msb, lsb),
            is_internal: false,
            error: None,
            partitions: Listed::new(Vec::new()),
            operations: None,
        };
        match &r.result {
            Ok(d) => {
                let [msb, lsb] = halves(&d.topic_id.0);
                out.topic_id = Uuid::new(msb, lsb);
                out.is_internal = d.is_internal;
                out.operations = d
                    .authorized_operations
                    .as_ref()
                    .map(|ops| ops.iter().map(|o| c_int::from(o.0)).collect());
                let nodes = |ids: &[i32]| {
                    Listed::new(ids.iter().map(|&id| Node::of_id(id, brokers)).collect())
                };
                out.partitions = Listed::new(
                    d.partitions
                        .iter()
                        .map(|p| PartitionInfo {
                            partition: p.partition,
                            leader: (p.leader >= 0).then(|| Node::of_id(p.leader, brokers)),
                            isr: nodes(&p.isr),
                            replicas: nodes(&p.replicas),
                        })
                        .collect(),
                );
            }
            Err(e) => {
                let text = entity_text(e, &format!("topic {name}"));
                out.error = Some(ErrorObject::held(e.code(), &text));
            }
        }
        out
    }
}

/// A UUID's 16 bytes as its two big-endian halves.
fn halves(b: &[u8; 16]) -> [i64; 2] {
    let mut msb = [0u8; 8];
    let mut lsb = [0u8; 8];
    msb.copy_from_slice(&b[..8]);
    lsb.copy_from_slice(&b[8..]);
    [i64::from_be_bytes(msb), i64::from_be_bytes(lsb)]
}

/// Describes topics (`rd_kafka_DescribeTopics`), with the client's
/// authorized operations on each when the options ask; the result is a
/// `RD_KAFKA_EVENT_DESCRIBETOPICS_RESULT` event on `rkqu`.
#[no_mangle]
pub extern "C" fn rd_kafka_DescribeTopics(
    rk: *mut Handle,
    topics: *const TopicCollection,
    options: *const AdminOptions,
    rkqu: *mut Queue,
) {
    guard((), || {
        let kind = EVENT_DESCRIBETOPICS_RESULT;
        let names = raw::object(topics).map_or_else(Vec::new, |t| t.names.clone());
        let mut seen = HashSet::new();
        if !names.iter().all(|n| seen.insert(n)) {
            let why = "Duplicate topics not allowed".to_string();
            return fail_request(rk, options, rkqu, kind, (RESP_ERR__INVALID_ARG, why));
        }
        if let Some(i) = names.iter().position(String::is_empty) {
            let why = format!("Empty topic name at index {i} isn't allowed");
            return fail_request(rk, options, rkqu, kind, (RESP_ERR__INVALID_ARG, why));
        }
        let include_ops =
            raw::object(options).is_some_and(AdminOptions::include_authorized_operations);
        submit_event(rk, options, rkqu, kind, move |c, o, ev| {
            if names.is_empty() {
                return Ok(ev.with_payload(Listed::<TopicDescription>::new(Vec::new())));
            }
            let refs: Vec<&str> = names.iter().map(String::as_str).collect();
            let rs = c.describe_topics(&refs, include_ops, o)?;
            // the brokers, for the nodes; without them nodes have ids only
            let wait = o.request_timeout.unwrap_or(Duration::from_secs(30));
            let brokers = c
                .metadata(Some(&[][..]), wait)
                .map(|m| m.brokers)
                .unwrap_or_default();
            let ds = rs
                .iter()
                .map(|r| TopicDescription::of(r, &brokers))
                .collect();
            Ok(ev.with_payload(Listed::new(ds)))
        });
    })
}

/// The event as a DescribeTopics result, or NULL.
#[no_mangle]
pub extern "C" fn rd_kafka_event_DescribeTopics_result(rkev: *mut Event) -> *const Event {
    as_result(rkev, EVENT_DESCRIBETOPICS_RESULT)
}

/// `rd_kafka_DescribeTopics_result_topics`: one description per topic,
/// their count in `*cntp`. Borrowed, valid while the event is.
#[no_mangle]
pub extern "C" fn rd_kafka_DescribeTopics_result_topics(
    result: *const Event,
    cntp: *mut usize,
) -> *const *const TopicDescription {
    guard(ptr::null(), || {
        Event::listed::<TopicDescription>(result, EVENT_DESCRIBETOPICS_RESULT, cntp)
    })
}

/// `rd_kafka_TopicDescription_name`; borrowed.
#[no_mangle]
pub extern "C" fn rd_kafka_TopicDescription_name(
    topicdesc: *const TopicDescription,
) -> *const c_char {
    guard(ptr::null(), || {
        raw::object(topicdesc).map_or(ptr::null(), |d| d.name.as_ptr())
    })
}

/// `rd_kafka_TopicDescription_topic_id`; borrowed.
#[no_mangle]
pub extern "C" fn rd_kafka_TopicDescription_topic_id(
    topicdesc: *const TopicDescription,
) -> *const Uuid {
    guard(ptr::null(), || {
        raw::object(topicdesc).map_or(ptr::null(), |d| &d.topic_id as *const Uuid)
    })
}

/// `rd_kafka_TopicDescription_is_internal`.
#[no_mangle]
pub extern "C" fn rd_kafka_TopicDescription_is_internal(
    topicdesc: *const TopicDescription,
) -> c_int {
    guard(0, || {
        raw::object(topicdesc).map_or(0, |d| c_int::from(d.is_internal))
    })
}

/// `rd_kafka_TopicDescription_error`: NULL, or the topic's error, borrowed.
#[no_mangle]
pub extern "C" fn rd_kafka_TopicDescription_error(
    topicdesc: *const TopicDescription,
) -> *const ErrorObject {
    guard(ptr::null(), || {
        raw::object(topicdesc)
            .and_then(|d| d.error.as_ref())
            .map_or(ptr::null(), |e| e as *const ErrorObject)
    })
}

/// `rd_kafka_TopicDescription_partitions`: the partitions, their count in
/// `*cntp`. Borrowed.
#[no_mangle]
pub extern "C" fn rd_kafka_TopicDescription_partitions(
    topicdesc: *const TopicDescription,
    cntp: *mut usize,
) -> *const *const PartitionInfo {
    guard(ptr::null(), || match raw::object(topicdesc) {
        Some(d) => d.partitions.array(cntp),
        None => {
            raw::write_out(cntp, 0);
            ptr::null()
        }
    })
}

/// `rd_kafka_TopicDescription_authorized_operations`: the operations the
/// client may perform on the topic, their count in `*cntp`; NULL when not
/// asked for. Borrowed.
#[no_mangle]
pub extern "C" fn rd_kafka_TopicDescription_authorized_operations(
    topicdesc: *const TopicDescription,
    cntp: *mut usize,
) -> *const c_int {
    guard(ptr::null(), || {
        match raw::object(topicdesc).and_then(|d| d.operations.as_ref()) {
            Some(ops) => {
                raw::write_out(cntp, ops.len());
                ops.as_ptr()
            }
            None => {
                raw::write_out(cntp, 0);
                ptr::null()
            }
        }
    })
}

/// `rd_kafka_TopicPartitionInfo_partition`; -1 for NULL.
#[no_mangle]
pub extern "C" fn rd_kafka_TopicPartitionInfo_partition(partition: *const PartitionInfo) -> c_int {
    guard(-1, || raw::object(partition).map_or(-1, |p| p.partition))
}

/// `rd_kafka_TopicPartitionInfo_leader`: the leader, borrowed; NULL for
/// none.
#[no_mangle]
pub extern "C" fn rd_kafka_TopicPartitionInfo_leader(
    partition: *const PartitionInfo,
) -> *const Node {
    guard(ptr::null(), || {
        raw::object(partition)
            .and_then(|p| p.leader.as_ref())
            .map_or(ptr::null(), |n| n as *const Node)
    })
}

fn nodes(
    partition: *const PartitionInfo,
    cntp: *mut usize,
    f: impl Fn(&PartitionInfo) -> &Listed<Node>,
) -> *const *const Node {
    guard(ptr::null(), || match raw::object(partition) {
        Some(p) => f(p).array(cntp),
        None => {
            raw::write_out(cntp, 0);
            ptr::null()
        }
    })
}

/// `rd_kafka_TopicPartitionInfo_isr`: the in-sync replicas, their count
/// in `*cntp`. Borrowed.
#[no_mangle]
pub extern "C" fn rd_kafka_TopicPartitionInfo_isr(
    partition: *const PartitionInfo,
    cntp: *mut usize,
) -> *const *const Node {
    nodes(partition, cntp, |p| &p.isr)
}

/// `rd_kafka_TopicPartitionInfo_replicas`: the replicas, their count in
/// `*cntp`. Borrowed.
#[no_mangle]
pub extern "C" fn rd_kafka_TopicPartitionInfo_replicas(
    partition: *const PartitionInfo,
    cntp: *mut usize,
) -> *const *const Node {
    nodes(partition, cntp, |p| &p.replicas)
}
