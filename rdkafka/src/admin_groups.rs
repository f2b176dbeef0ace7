//! Consumer group offsets through rdkafka.h's Admin API:
//! `rd_kafka_ListConsumerGroupOffsets_t`, `rd_kafka_ListConsumerGroupOffsets`
//! and `rd_kafka_group_result_t`, the per-group result the group calls
//! share, on gregor's admin client.
//!
//! As librdkafka's (which supports one group per call for now), the call
//! refuses before sending anything but exactly one group, an empty (not
//! NULL) partition list, and a partition named twice (`_INVALID_ARG`).
//! The group's committed offsets come from its coordinator (OffsetFetch,
//! with `require_stable_offsets`, KIP-447); a broker's error for the group
//! is the group result's, a local one (no coordinator in time) the whole
//! request's.

#![allow(unsafe_code)] // `#[no_mangle]`

use std::collections::HashSet;
use std::ffi::{c_char, c_int, CString};
use std::ptr;

use gregor::admin::TopicPartition as GregorPartition;
use gregor::consumer::TopicPartitionOffset;
use gregor::error::Error;

use crate::admin::{fail_request, submit_event, AdminOptions};
use crate::admin_configs::entity_text;
use crate::error_object::ErrorObject;
use crate::event::{as_result, Event, Listed};
use crate::guard::guard;
use crate::handle::Handle;
use crate::partition_list::{self, OwnedList, TopicPartitionList};
use crate::queue::Queue;
use crate::raw;

/// `RD_KAFKA_RESP_ERR__INVALID_ARG`.
const RESP_ERR__INVALID_ARG: c_int = -186;
/// `RD_KAFKA_OFFSET_INVALID`.
const OFFSET_INVALID: i64 = -1001;
/// `RD_KAFKA_EVENT_LISTCONSUMERGROUPOFFSETS_RESULT`.
const EVENT_LISTCONSUMERGROUPOFFSETS_RESULT: c_int = 0x8000;

/// `rd_kafka_ListConsumerGroupOffsets_t`: a group and, optionally, the
/// partitions whose offsets to list.
#[derive(Debug)]
pub struct ListGroupOffsets {
    group: String,
    /// `None`: every partition the group has offsets for.
    partitions: Option<Vec<TopicPartitionOffset>>,
}

/// A group's offsets to list (`rd_kafka_ListConsumerGroupOffsets_new`):
/// of `partitions` (copied), or all of the group's for NULL. Caller owns,
/// free with `rd_kafka_ListConsumerGroupOffsets_destroy`.
#[no_mangle]
pub extern "C" fn rd_kafka_ListConsumerGroupOffsets_new(
    group_id: *const c_char,
    partitions: *const TopicPartitionList,
) -> *mut ListGroupOffsets {
    guard(ptr::null_mut(), || {
        let Some(group) = raw::read_cstr(group_id) else {
            return ptr::null_mut();
        };
        Box::into_raw(Box::new(ListGroupOffsets {
            group: group.into_owned(),
            partitions: (!partitions.is_null()).then(|| partition_list::to_offsets(partitions)),
        }))
    })
}

/// `rd_kafka_ListConsumerGroupOffsets_destroy`; NULL is nothing.
#[no_mangle]
pub extern "C" fn rd_kafka_ListConsumerGroupOffsets_destroy(
    list_grpoffsets: *mut ListGroupOffsets,
) {
    guard((), || drop(raw::take_box(list_grpoffsets)));
}

/// `rd_kafka_ListConsumerGroupOffsets_destroy_array`.
#[no_mangle]
pub extern "C" fn rd_kafka_ListConsumerGroupOffsets_destroy_array(
    list_grpoffsets: *mut *mut ListGroupOffsets,
    list_grpoffset_cnt: usize,
) {
    guard((), || {
        for &l in raw::read_array(list_grpoffsets, list_grpoffset_cnt) {
            drop(raw::take_box(l));
        }
    });
}

/// `rd_kafka_group_result_t`: a group's name, its error, and its
/// partitions (each with its offset and error).
#[derive(Debug)]
pub struct GroupResult {
    name: CString,
    error: Option<ErrorObject>,
    partitions: Option<OwnedList>,
}

impl GroupResult {
    /// The result of group `name`: its partitions, or the broker's error
    /// for it.
    fn new(name: &str, r: Result<Vec<TopicPartitionOffset>, &Error>) -> Self {
        let (error, partitions) = match r {
            Ok(tpos) => (None, Some(OwnedList::new(&tpos))),
            Err(e) => {
                let text = entity_text(e, &format!("group {name}"));
                (Some(ErrorObject::held(e.code(), &text)), None)
            }
        };
        GroupResult {
            name: raw::c_string(name),
            error,
            partitions,
        }
    }
}

/// The request's one group, or librdkafka's reason to refuse it.
fn checked(
    groups: &[*mut ListGroupOffsets],
) -> Result<(String, Option<Vec<GregorPartition>>), String> {
    let [one] = groups else {
        return Err("Exactly one ListConsumerGroupOffsets must be passed".into());
    };
    let Some(g) = raw::object(*one) else {
        return Err("Exactly one ListConsumerGroupOffsets must be passed".into());
    };
    let Some(ps) = &g.partitions else {
        return Ok((g.group.clone(), None));
    };
    if ps.is_empty() {
        return Err("NULL or non-empty topic partition list must be passed".into());
    }
    let mut seen = HashSet::new();
    if !ps.iter().all(|p| seen.insert((&p.topic, p.partition))) {
        return Err("Duplicate partitions not allowed".into());
    }
    let parts = ps
        .iter()
        .map(|p| GregorPartition::new(p.topic.clone(), p.partition))
        .collect();
    Ok((g.group.clone(), Some(parts)))
}

/// Lists a group's committed offsets (`rd_kafka_ListConsumerGroupOffsets`);
/// the result, a `RD_KAFKA_EVENT_LISTCONSUMERGROUPOFFSETS_RESULT` event on
/// `rkqu`, has the group's result.
#[no_mangle]
pub extern "C" fn rd_kafka_ListConsumerGroupOffsets(
    rk: *mut Handle,
    list_grpoffsets: *mut *mut ListGroupOffsets,
    list_grpoffsets_cnt: usize,
    options: *const AdminOptions,
    rkqu: *mut Queue,
) {
    guard((), || {
        let kind = EVENT_LISTCONSUMERGROUPOFFSETS_RESULT;
        let (group, parts) = match checked(raw::read_array(list_grpoffsets, list_grpoffsets_cnt)) {
            Ok(g) => g,
            Err(why) => return fail_request(rk, options, rkqu, kind, (RESP_ERR__INVALID_ARG, why)),
        };
        let stable = raw::object(options).is_some_and(AdminOptions::require_stable_offsets);
        submit_event(rk, options, rkqu, kind, move |c, o, ev| {
            let r = match c.list_group_offsets(&group, parts.as_deref(), stable, o) {
                Ok(rs) => {
                    let tpos = rs
                        .into_iter()
                        .map(|r| {
                            let mut t = TopicPartitionOffset::new(
                                r.partition.topic,
                                r.partition.partition,
                                -1,
                            );
                            match r.result {
                                Ok(om) => {
                                    // no committed offset reads as
                                    // RD_KAFKA_OFFSET_INVALID, as in
                                    // librdkafka's committed offsets
                                    t.offset = if om.offset < 0 {
                                        OFFSET_INVALID
                                    } else {
                                        om.offset
                                    };
                                    t.leader_epoch = om.leader_epoch;
                                    t.metadata = om.metadata;
                                }
                                Err(e) => t.error = Some(e),
                            }
                            t
                        })
                        .collect();
                    GroupResult::new(&group, Ok(tpos))
                }
                Err(e @ Error::Kafka { .. }) => GroupResult::new(&group, Err(&e)),
                Err(e) => return Err(e),
            };
            Ok(ev.with_payload(Listed::new(vec![r])))
        });
    })
}

/// The event as a ListConsumerGroupOffsets result, or NULL.
#[no_mangle]
pub extern "C" fn rd_kafka_event_ListConsumerGroupOffsets_result(rkev: *mut Event) -> *const Event {
    as_result(rkev, EVENT_LISTCONSUMERGROUPOFFSETS_RESULT)
}

/// `rd_kafka_ListConsumerGroupOffsets_result_groups`: the group results,
/// their count in `*cntp`. Borrowed, valid while the event is.
#[no_mangle]
pub extern "C" fn rd_kafka_ListConsumerGroupOffsets_result_groups(
    result: *const Event,
    cntp: *mut usize,
) -> *const *const GroupResult {
    guard(ptr::null(), || {
        Event::listed::<GroupResult>(result, EVENT_LISTCONSUMERGROUPOFFSETS_RESULT, cntp)
    })
}

/// `rd_kafka_group_result_name`; borrowed.
#[no_mangle]
pub extern "C" fn rd_kafka_group_result_name(groupres: *const GroupResult) -> *const c_char {
    guard(ptr::null(), || {
        raw::object(groupres).map_or(ptr::null(), |g| g.name.as_ptr())
    })
}

/// `rd_kafka_group_result_error`: NULL, or the group's error, borrowed.
#[no_mangle]
pub extern "C" fn rd_kafka_group_result_error(groupres: *const GroupResult) -> *const ErrorObject {
    guard(ptr::null(), || {
        raw::object(groupres)
            .and_then(|g| g.error.as_ref())
            .map_or(ptr::null(), |e| e as *const ErrorObject)
    })
}

/// `rd_kafka_group_result_partitions`: the group's partitions with their
/// offsets and errors, borrowed; NULL when the group failed.
#[no_mangle]
pub extern "C" fn rd_kafka_group_result_partitions(
    groupres: *const GroupResult,
) -> *const TopicPartitionList {
    guard(ptr::null(), || {
        raw::object(groupres)
            .and_then(|g| g.partitions.as_ref())
            .map_or(ptr::null(), |l| l.as_ptr().cast_const())
    })
}
