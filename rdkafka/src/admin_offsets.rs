//! Partition offsets through rdkafka.h's Admin API: `rd_kafka_ListOffsets`
//! (KIP-396) and its result's `rd_kafka_ListOffsetsResultInfo_t`, on
//! gregor's admin client.
//!
//! Each partition's offset field says what to look up, as librdkafka's
//! `RD_KAFKA_OFFSET_SPEC_*`: -2 the earliest offset, -1 the latest, -3
//! the record with the largest timestamp (KIP-734), else a timestamp. As
//! librdkafka's, the call refuses before sending an empty topic, a
//! negative partition, a partition named twice or a spec below -3
//! (`_INVALID_ARG`). The result has one entry per partition: the
//! partition (topic, partition, offset, leader epoch, error) and the
//! timestamp found.

#![allow(unsafe_code)] // `#[no_mangle]`

use std::collections::HashSet;
use std::ffi::c_int;
use std::ptr;

use gregor::admin::{OffsetSpec, TopicPartition as GregorPartition};
use gregor::consumer::TopicPartitionOffset;

use crate::admin::{fail_request, submit_event, AdminOptions};
use crate::event::{as_result, Event, Listed};
use crate::guard::guard;
use crate::handle::Handle;
use crate::partition_list::{self, OwnedList, TopicPartition, TopicPartitionList};
use crate::queue::Queue;
use crate::raw;

/// `RD_KAFKA_RESP_ERR__INVALID_ARG`.
const RESP_ERR__INVALID_ARG: c_int = -186;
/// `RD_KAFKA_EVENT_LISTOFFSETS_RESULT`.
const EVENT_LISTOFFSETS_RESULT: c_int = 0x400000;

/// `rd_kafka_ListOffsetsResultInfo_t`: one partition's answer, its
/// element in the result's list, and the timestamp.
#[derive(Debug)]
pub struct ResultInfo {
    /// The address of the partition's element in [`ListOffsetsResult`]'s
    /// list, which does not change after the result is made.
    partition: usize,
    timestamp: i64,
}

/// A ListOffsets result's partitions (one C list, owned) and their infos.
#[derive(Debug)]
struct ListOffsetsResult {
    _list: OwnedList,
    infos: Listed<ResultInfo>,
}

/// gregor's spec for librdkafka's offset field, `None` below -3.
fn spec_of(offset: i64) -> Option<OffsetSpec> {
    match offset {
        -2 => Some(OffsetSpec::Earliest),
        -1 => Some(OffsetSpec::Latest),
        -3 => Some(OffsetSpec::MaxTimestamp),
        t if t >= 0 => Some(OffsetSpec::Timestamp(t)),
        _ => None,
    }
}

/// The partitions' specs, or librdkafka's reason to refuse them.
fn specs_of(list: *const TopicPartitionList) -> Result<Vec<(GregorPartition, OffsetSpec)>, String> {
    let given = partition_list::to_offsets(list);
    for (i, p) in given.iter().enumerate() {
        if p.topic.is_empty() {
            return Err(format!(
                "Partition topic name at index {i} must be non-empty"
            ));
        }
        if p.partition < 0 {
            return Err(format!("Partition at index {i} cannot be negative"));
        }
    }
    let mut seen = HashSet::new();
    if !given.iter().all(|p| seen.insert((&p.topic, p.partition))) {
        return Err("Partitions must not contain duplicates".into());
    }
    given
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let spec = spec_of(p.offset)
                .ok_or_else(|| format!("Partition {i} has an invalid offset {}", p.offset))?;
            Ok((GregorPartition::new(p.topic.clone(), p.partition), spec))
        })
        .collect()
}

/// Looks up offsets of partitions (`rd_kafka_ListOffsets`), under the
/// options' isolation level; the result is a
/// `RD_KAFKA_EVENT_LISTOFFSETS_RESULT` event on `rkqu`.
#[no_mangle]
pub extern "C" fn rd_kafka_ListOffsets(
    rk: *mut Handle,
    topic_partitions: *mut TopicPartitionList,
    options: *const AdminOptions,
    rkqu: *mut Queue,
) {
    guard((), || {
        let kind = EVENT_LISTOFFSETS_RESULT;
        let specs = match specs_of(topic_partitions) {
            Ok(s) => s,
            Err(why) => return fail_request(rk, options, rkqu, kind, (RESP_ERR__INVALID_ARG, why)),
        };
        let read_committed = raw::object(options).is_some_and(AdminOptions::read_committed);
        submit_event(rk, options, rkqu, kind, move |c, o, ev| {
            let rs = c.list_offsets(&specs, read_committed, o)?;
            let tpos: Vec<TopicPartitionOffset> = rs
                .iter()
                .map(|r| {
                    let (offset, epoch, error) = match &r.result {
                        Ok(i) => (i.offset, i.leader_epoch, None),
                        Err(e) => (-1, None, Some(e.clone())),
                    };
                    let mut t = TopicPartitionOffset::new(
                        r.partition.topic.clone(),
                        r.partition.partition,
                        offset,
                    );
                    t.leader_epoch = epoch;
                    t.error = error;
                    t
                })
                .collect();
            let list = OwnedList::new(&tpos);
            let elems = raw::object(list.as_ptr()).map_or(&[][..], |l| l.elems());
            let infos = elems
                .iter()
                .zip(&rs)
                .map(|(e, r)| ResultInfo {
                    partition: e as *const TopicPartition as usize,
                    timestamp: r.result.as_ref().map_or(-1, |i| i.timestamp),
                })
                .collect();
            Ok(ev.with_payload(ListOffsetsResult {
                _list: list,
                infos: Listed::new(infos),
            }))
        });
    })
}

/// The event as a ListOffsets result, or NULL.
#[no_mangle]
pub extern "C" fn rd_kafka_event_ListOffsets_result(rkev: *mut Event) -> *const Event {
    as_result(rkev, EVENT_LISTOFFSETS_RESULT)
}

/// `rd_kafka_ListOffsets_result_infos`: one per partition, their count in
/// `*cntp`. Borrowed, valid while the event is.
#[no_mangle]
pub extern "C" fn rd_kafka_ListOffsets_result_infos(
    result: *const Event,
    cntp: *mut usize,
) -> *const *const ResultInfo {
    guard(ptr::null(), || {
        match Event::payload::<ListOffsetsResult>(result, EVENT_LISTOFFSETS_RESULT) {
            Some(r) => r.infos.array(cntp),
            None => {
                raw::write_out(cntp, 0);
                ptr::null()
            }
        }
    })
}

/// `rd_kafka_ListOffsetsResultInfo_topic_partition`: the partition with
/// its offset, leader epoch and error; borrowed.
#[no_mangle]
pub extern "C" fn rd_kafka_ListOffsetsResultInfo_topic_partition(
    result_info: *const ResultInfo,
) -> *const TopicPartition {
    guard(ptr::null(), || {
        raw::object(result_info).map_or(ptr::null(), |i| i.partition as *const TopicPartition)
    })
}

/// `rd_kafka_ListOffsetsResultInfo_timestamp`: the timestamp of the record
/// at the offset found, -1 if none.
#[no_mangle]
pub extern "C" fn rd_kafka_ListOffsetsResultInfo_timestamp(result_info: *const ResultInfo) -> i64 {
    guard(-1, || raw::object(result_info).map_or(-1, |i| i.timestamp))
}
