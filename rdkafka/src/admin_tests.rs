//! Tests of the admin calls of the `admin_*` modules that need no broker:
//! the argument objects' checks, the refusals before sending (each a
//! failed result event on the queue) and the accessors' NULL handling.

use std::ffi::{c_char, c_int, CStr};
use std::ptr;

use crate::admin::{rd_kafka_AdminOptions_destroy, rd_kafka_AdminOptions_new};
use crate::admin_acls::*;
use crate::admin_configs::*;
use crate::admin_describe::*;
use crate::admin_groups::*;
use crate::admin_offsets::*;
use crate::admin_scram::*;
use crate::error_object::{rd_kafka_error_code, rd_kafka_error_destroy, rd_kafka_error_string};
use crate::event::{
    rd_kafka_event_destroy, rd_kafka_event_error, rd_kafka_event_error_string, rd_kafka_event_type,
    Event,
};
use crate::handle::{rd_kafka_destroy, rd_kafka_new, Handle, PRODUCER};
use crate::partition_list::{
    rd_kafka_topic_partition_list_add, rd_kafka_topic_partition_list_destroy,
    rd_kafka_topic_partition_list_new,
};
use crate::queue::{rd_kafka_queue_destroy, rd_kafka_queue_new, rd_kafka_queue_poll, Queue};

/// `RD_KAFKA_RESP_ERR__INVALID_ARG`.
const INVALID_ARG: c_int = -186;

fn text(p: *const c_char) -> String {
    // SAFETY: a NUL-terminated string the call answered, alive in the test.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// A client without brokers and a queue of its own.
fn client() -> (*mut Handle, *mut Queue) {
    let mut e = [0 as c_char; 256];
    let rk = rd_kafka_new(
        PRODUCER,
        crate::conf::rd_kafka_conf_new(),
        e.as_mut_ptr(),
        e.len(),
    );
    assert!(!rk.is_null());
    (rk, rd_kafka_queue_new(rk))
}

/// The next event of `q`: its type, error and error text.
fn answer(q: *mut Queue) -> (c_int, c_int, String) {
    let ev: *mut Event = rd_kafka_queue_poll(q, 5000);
    assert!(!ev.is_null(), "no result event");
    let r = (
        rd_kafka_event_type(ev),
        rd_kafka_event_error(ev),
        text(rd_kafka_event_error_string(ev)),
    );
    rd_kafka_event_destroy(ev);
    r
}

fn done(rk: *mut Handle, q: *mut Queue) {
    rd_kafka_queue_destroy(q);
    rd_kafka_destroy(rk);
}

#[test]
fn config_resources_check_their_arguments() {
    assert!(rd_kafka_ConfigResource_new(2, ptr::null()).is_null());
    assert!(rd_kafka_ConfigResource_new(2, c"".as_ptr()).is_null());
    let r = rd_kafka_ConfigResource_new(2, c"t".as_ptr());
    assert_eq!(rd_kafka_ConfigResource_type(r), 2);
    assert_eq!(text(rd_kafka_ConfigResource_name(r)), "t");
    assert_eq!(
        rd_kafka_ConfigResource_set_config(r, c"a".as_ptr(), ptr::null()),
        INVALID_ARG
    );
    assert_eq!(
        rd_kafka_ConfigResource_set_config(r, c"a".as_ptr(), c"1".as_ptr()),
        0
    );
    let e = rd_kafka_ConfigResource_add_incremental_config(r, c"b".as_ptr(), 9, c"x".as_ptr());
    assert_eq!(rd_kafka_error_code(e.cast()), INVALID_ARG);
    assert_eq!(
        text(rd_kafka_error_string(e.cast())),
        "Invalid alter config operation type"
    );
    rd_kafka_error_destroy(e.cast());
    let e = rd_kafka_ConfigResource_add_incremental_config(r, c"b".as_ptr(), 0, ptr::null());
    assert_eq!(
        text(rd_kafka_error_string(e.cast())),
        "Config value is required"
    );
    rd_kafka_error_destroy(e.cast());
    // DELETE needs no value
    let e = rd_kafka_ConfigResource_add_incremental_config(r, c"b".as_ptr(), 1, ptr::null());
    assert!(e.is_null());
    let mut n = 0;
    let cs = rd_kafka_ConfigResource_configs(r, &mut n);
    assert_eq!(n, 2);
    // SAFETY: the array of `n` entries the resource answered.
    let second = unsafe { *cs.add(1) };
    assert_eq!(text(rd_kafka_ConfigEntry_name(second)), "b");
    assert!(rd_kafka_ConfigEntry_value(second).is_null());
    assert!(rd_kafka_ConfigResource_error_string(r).is_null());
    rd_kafka_ConfigResource_destroy(r);
}

#[test]
fn incremental_alter_configs_refuses_duplicates_before_sending() {
    let (rk, q) = client();
    let r = rd_kafka_ConfigResource_new(4, c"1".as_ptr());
    for _ in 0..2 {
        let e = rd_kafka_ConfigResource_add_incremental_config(r, c"a".as_ptr(), 1, ptr::null());
        assert!(e.is_null());
    }
    let mut rs = [r];
    rd_kafka_IncrementalAlterConfigs(rk, rs.as_mut_ptr(), 1, ptr::null(), q);
    assert_eq!(
        answer(q),
        (0x20000, INVALID_ARG, "Duplicate ConfigEntry found".into())
    );
    // two BROKER resources: librdkafka's _CONFLICT
    let b = rd_kafka_ConfigResource_new(4, c"2".as_ptr());
    let mut two = [r, b];
    rd_kafka_DescribeConfigs(rk, two.as_mut_ptr(), 2, ptr::null(), q);
    let (kind, err, _) = answer(q);
    assert_eq!((kind, err), (104, -173));
    rd_kafka_ConfigResource_destroy_array(two.as_mut_ptr(), 2);
    done(rk, q);
}

#[test]
fn acl_bindings_check_as_librdkafka() {
    let mut e = [0 as c_char; 128];
    let n = e.len();
    let b = |restype, pattern, op, perm, e: &mut [c_char; 128]| {
        rd_kafka_AclBinding_new(
            restype,
            c"t".as_ptr(),
            pattern,
            c"User:u".as_ptr(),
            c"*".as_ptr(),
            op,
            perm,
            e.as_mut_ptr(),
            n,
        )
    };
    let ok = b(2, 3, 4, 3, &mut e);
    assert!(!ok.is_null());
    assert_eq!(rd_kafka_AclBinding_restype(ok), 2);
    assert_eq!(text(rd_kafka_AclBinding_principal(ok)), "User:u");
    assert!(rd_kafka_AclBinding_error(ok).is_null());
    rd_kafka_AclBinding_destroy(ok);
    // ANY and MATCH are for filters
    assert!(b(1, 3, 4, 3, &mut e).is_null());
    assert_eq!(text(e.as_ptr()), "Invalid resource type");
    assert!(b(2, 2, 4, 3, &mut e).is_null());
    assert_eq!(text(e.as_ptr()), "Invalid resource pattern type");
    assert!(b(2, 3, 1, 3, &mut e).is_null());
    assert_eq!(text(e.as_ptr()), "Invalid operation");
    assert!(b(2, 3, 4, 0, &mut e).is_null());
    assert_eq!(text(e.as_ptr()), "Invalid permission type");
    let f = rd_kafka_AclBindingFilter_new(
        1,
        ptr::null(),
        2,
        ptr::null(),
        ptr::null(),
        1,
        1,
        e.as_mut_ptr(),
        n,
    );
    assert!(!f.is_null());
    assert!(rd_kafka_AclBinding_name(f).is_null());
    rd_kafka_AclBinding_destroy(f);
    assert_eq!(text(rd_kafka_AclOperation_name(12)), "IDEMPOTENT_WRITE");
    assert_eq!(text(rd_kafka_AclOperation_name(13)), "UNSUPPORTED");
    assert_eq!(text(rd_kafka_ResourceType_name(4)), "BROKER");
    assert_eq!(text(rd_kafka_ResourcePatternType_name(-1)), "UNSUPPORTED");
}

#[test]
fn scram_calls_refuse_before_sending() {
    let (rk, q) = client();
    let users = [c"sam".as_ptr(), c"sam".as_ptr()];
    rd_kafka_DescribeUserScramCredentials(rk, users.as_ptr(), 2, ptr::null(), q);
    assert_eq!(
        answer(q),
        (
            0x40000,
            INVALID_ARG,
            "Duplicate users aren't allowed in the same request".into()
        )
    );
    let pw = b"pw";
    let up = rd_kafka_UserScramCredentialUpsertion_new(
        c"sam".as_ptr(),
        1,
        0,
        pw.as_ptr(),
        pw.len(),
        ptr::null(),
        0,
    );
    let del = rd_kafka_UserScramCredentialDeletion_new(c"sam".as_ptr(), 0);
    let mut alts = [del, up];
    rd_kafka_AlterUserScramCredentials(rk, alts.as_mut_ptr(), 2, ptr::null(), q);
    let (_, err, why) = answer(q);
    assert_eq!(err, INVALID_ARG);
    assert_eq!(why, "SCRAM mechanism must be specified at index 0");
    rd_kafka_AlterUserScramCredentials(rk, alts[1..].as_mut_ptr(), 1, ptr::null(), q);
    assert_eq!(answer(q).2, "Non-positive iterations at index 0");
    rd_kafka_UserScramCredentialAlteration_destroy_array(alts.as_mut_ptr(), 2);
    done(rk, q);
}

#[test]
fn offsets_calls_refuse_before_sending() {
    let (rk, q) = client();
    let l = rd_kafka_topic_partition_list_new(2);
    rd_kafka_topic_partition_list_add(l, c"t".as_ptr(), 0);
    rd_kafka_topic_partition_list_add(l, c"t".as_ptr(), 0);
    rd_kafka_ListOffsets(rk, l, ptr::null(), q);
    assert_eq!(
        answer(q),
        (
            0x400000,
            INVALID_ARG,
            "Partitions must not contain duplicates".into()
        )
    );
    let g = rd_kafka_ListConsumerGroupOffsets_new(c"g".as_ptr(), l);
    let mut gs = [g];
    rd_kafka_ListConsumerGroupOffsets(rk, gs.as_mut_ptr(), 1, ptr::null(), q);
    assert_eq!(answer(q).2, "Duplicate partitions not allowed");
    rd_kafka_ListConsumerGroupOffsets(rk, gs.as_mut_ptr(), 0, ptr::null(), q);
    assert_eq!(
        answer(q).2,
        "Exactly one ListConsumerGroupOffsets must be passed"
    );
    rd_kafka_ListConsumerGroupOffsets_destroy_array(gs.as_mut_ptr(), 1);
    rd_kafka_topic_partition_list_destroy(l);
    done(rk, q);
}

#[test]
fn describe_topics_answers_an_empty_collection_and_refuses_empty_names() {
    let (rk, q) = client();
    let o = rd_kafka_AdminOptions_new(rk, 0);
    let none = rd_kafka_TopicCollection_of_topic_names(ptr::null(), 0);
    rd_kafka_DescribeTopics(rk, none, o, q);
    let ev = rd_kafka_queue_poll(q, 5000);
    assert_eq!(rd_kafka_event_error(ev), 0);
    let mut n = 7;
    assert!(rd_kafka_DescribeTopics_result_topics(ev, &mut n).is_null());
    assert_eq!(n, 0);
    rd_kafka_event_destroy(ev);
    let names = [c"a".as_ptr(), c"".as_ptr()];
    let two = rd_kafka_TopicCollection_of_topic_names(names.as_ptr(), 2);
    rd_kafka_DescribeTopics(rk, two, o, q);
    assert_eq!(
        answer(q),
        (
            0x100000,
            INVALID_ARG,
            "Empty topic name at index 1 isn't allowed".into()
        )
    );
    rd_kafka_TopicCollection_destroy(none);
    rd_kafka_TopicCollection_destroy(two);
    rd_kafka_AdminOptions_destroy(o);
    done(rk, q);
}

#[test]
fn result_accessors_take_null() {
    let mut n = 3;
    assert!(rd_kafka_DescribeConfigs_result_resources(ptr::null(), &mut n).is_null());
    assert_eq!(n, 0);
    assert!(rd_kafka_group_result_partitions(ptr::null()).is_null());
    assert!(rd_kafka_ListOffsetsResultInfo_topic_partition(ptr::null()).is_null());
    assert_eq!(rd_kafka_ListOffsetsResultInfo_timestamp(ptr::null()), -1);
    assert!(rd_kafka_TopicPartitionInfo_leader(ptr::null()).is_null());
    assert_eq!(rd_kafka_ScramCredentialInfo_iterations(ptr::null()), 0);
}
