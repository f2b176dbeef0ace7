use std::ffi::CString;

use super::*;

fn c(s: &str) -> CString {
    CString::new(s).unwrap()
}

fn list<'a>(p: *mut TopicPartitionList) -> &'a mut TopicPartitionList {
    access::list_mut(p).unwrap()
}

fn entries(p: *mut TopicPartitionList) -> Vec<(String, i32, i64)> {
    to_offsets(p)
        .into_iter()
        .map(|t| (t.topic, t.partition, t.offset))
        .collect()
}

#[test]
fn grows_as_librdkafka() {
    let p = rd_kafka_topic_partition_list_new(0);
    let mut sizes = Vec::new();
    for i in 0..40 {
        rd_kafka_topic_partition_list_add(p, c("t").as_ptr(), i);
        sizes.push(list(p).size);
    }
    assert_eq!(&sizes[..4], &[1, 2, 34, 34]);
    assert_eq!(sizes[34], 68);
    assert_eq!(list(p).cnt, 40);
    rd_kafka_topic_partition_list_destroy(p);

    let p = rd_kafka_topic_partition_list_new(2);
    rd_kafka_topic_partition_list_add_range(p, c("t").as_ptr(), 0, 2);
    assert_eq!((list(p).cnt, list(p).size), (3, 34));
    rd_kafka_topic_partition_list_destroy(p);
}

#[test]
fn add_find_del_set_offset() {
    let p = rd_kafka_topic_partition_list_new(1);
    let e = rd_kafka_topic_partition_list_add(p, c("a").as_ptr(), 3);
    let e = access::elem(e).unwrap();
    assert_eq!((e.offset, e.err, e.leader_epoch()), (OFFSET_INVALID, 0, -1));
    rd_kafka_topic_partition_list_add_range(p, c("b").as_ptr(), 0, 2);
    assert!(rd_kafka_topic_partition_list_find(p, c("b").as_ptr(), 3).is_null());
    assert!(rd_kafka_topic_partition_list_find(p, ptr::null(), 0).is_null());
    let f = rd_kafka_topic_partition_list_find(p, c("b").as_ptr(), 1);
    assert_eq!(access::elem(f).unwrap().partition, 1);
    assert_eq!(
        rd_kafka_topic_partition_list_set_offset(p, c("b").as_ptr(), 2, 42),
        0
    );
    assert_eq!(
        rd_kafka_topic_partition_list_set_offset(p, c("x").as_ptr(), 2, 42),
        RESP_ERR__UNKNOWN_PARTITION
    );
    assert_eq!(rd_kafka_topic_partition_list_del(p, c("b").as_ptr(), 0), 1);
    assert_eq!(rd_kafka_topic_partition_list_del(p, c("b").as_ptr(), 0), 0);
    assert_eq!(rd_kafka_topic_partition_list_del_by_idx(p, 5), 0);
    assert_eq!(rd_kafka_topic_partition_list_del_by_idx(p, -1), 0);
    assert_eq!(rd_kafka_topic_partition_list_del_by_idx(p, 0), 1);
    assert_eq!(
        entries(p),
        vec![("b".into(), 1, OFFSET_INVALID), ("b".into(), 2, 42)]
    );
    rd_kafka_topic_partition_list_destroy(p);
    rd_kafka_topic_partition_list_destroy(ptr::null_mut());
    assert!(rd_kafka_topic_partition_list_add(ptr::null_mut(), c("a").as_ptr(), 0).is_null());
}

unsafe extern "C" fn by_partition_desc(
    a: *const c_void,
    b: *const c_void,
    opaque: *mut c_void,
) -> c_int {
    // SAFETY: the list's elements, and the test's counter.
    let (a, b) = unsafe { (&*a.cast::<TopicPartition>(), &*b.cast::<TopicPartition>()) };
    unsafe { *opaque.cast::<u32>() += 1 };
    b.partition - a.partition
}

#[test]
fn sorts_by_default_and_by_comparator() {
    let p = rd_kafka_topic_partition_list_new(0);
    for (t, part) in [("b", 1), ("a", 2), ("b", 0), ("a", 0), ("ab", 5)] {
        rd_kafka_topic_partition_list_add(p, c(t).as_ptr(), part);
    }
    rd_kafka_topic_partition_list_sort(p, None, ptr::null_mut());
    let order: Vec<_> = entries(p).into_iter().map(|(t, p, _)| (t, p)).collect();
    let want = [("a", 0), ("a", 2), ("ab", 5), ("b", 0), ("b", 1)];
    assert_eq!(order, want.map(|(t, p)| (t.to_string(), p)));
    let mut calls = 0u32;
    rd_kafka_topic_partition_list_sort(p, Some(by_partition_desc), (&mut calls as *mut u32).cast());
    assert!(calls > 0);
    let parts: Vec<_> = entries(p).into_iter().map(|(_, p, _)| p).collect();
    assert_eq!(parts, [5, 2, 1, 0, 0]);
    rd_kafka_topic_partition_list_destroy(p);
}

#[test]
fn copy_is_deep_and_keeps_epochs_and_metadata() {
    let p = rd_kafka_topic_partition_list_new(3);
    let e = rd_kafka_topic_partition_list_add(p, c("t").as_ptr(), 0);
    rd_kafka_topic_partition_set_leader_epoch(e, 7);
    let e = access::elem_mut(e).unwrap();
    e.set_metadata(b"meta");
    e.err = 3;
    e.offset = 10;
    let q = rd_kafka_topic_partition_list_copy(p);
    assert_eq!(list(q).size, 3);
    rd_kafka_topic_partition_list_set_offset(p, c("t").as_ptr(), 0, 99);
    rd_kafka_topic_partition_list_destroy(p);
    let got = to_offsets(q);
    assert_eq!(got.len(), 1);
    assert_eq!((got[0].offset, got[0].leader_epoch), (10, Some(7)));
    assert_eq!(got[0].metadata.as_deref(), Some("meta"));
    assert_eq!(got[0].error.as_ref().map(Error::code), Some(3));
    rd_kafka_topic_partition_list_destroy(q);
}

#[test]
fn leader_epoch_defaults_and_clears() {
    let p = rd_kafka_topic_partition_list_new(1);
    let e = rd_kafka_topic_partition_list_add(p, c("t").as_ptr(), 0);
    rd_kafka_topic_partition_set_leader_epoch(e, -1);
    assert!(access::elem(e).unwrap()._private.is_null());
    assert_eq!(rd_kafka_topic_partition_get_leader_epoch(e), -1);
    rd_kafka_topic_partition_set_leader_epoch(e, 4);
    assert_eq!(rd_kafka_topic_partition_get_leader_epoch(e), 4);
    rd_kafka_topic_partition_set_leader_epoch(e, -1);
    assert_eq!(rd_kafka_topic_partition_get_leader_epoch(e), -1);
    assert_eq!(rd_kafka_topic_partition_get_leader_epoch(ptr::null()), -1);
    rd_kafka_topic_partition_list_destroy(p);
}

#[test]
fn converts_to_and_from_gregor() {
    let tpos = vec![
        TopicPartitionOffset::new("t", 0, 5).with_leader_epoch(2),
        TopicPartitionOffset::new("u", 1, -2).with_metadata("m"),
        TopicPartitionOffset {
            error: Some(Error::local(-190, "x")),
            ..TopicPartitionOffset::new("v", 2, 1)
        },
    ];
    let owned = OwnedList::new(&tpos);
    let back = owned.to_offsets();
    assert_eq!(back[0], tpos[0]);
    assert_eq!(back[1], tpos[1]);
    assert_eq!(back[2].error.as_ref().map(Error::code), Some(-190));

    let answer = [
        TopicPartitionOffset::new("u", 1, 77),
        TopicPartitionOffset::new("zz", 0, 1),
    ];
    update_list(owned.as_ptr(), &answer);
    assert_eq!(owned.to_offsets()[1].offset, 77);
    assert_eq!(owned.to_offsets().len(), 3);

    let raw = owned.into_raw();
    rd_kafka_topic_partition_list_destroy(raw);

    let single = new_partition(&tpos[0]);
    assert_eq!(rd_kafka_topic_partition_get_leader_epoch(single), 2);
    rd_kafka_topic_partition_destroy(single);
    assert!(to_offsets(ptr::null()).is_empty());
    let subs = OwnedList::new(&[
        TopicPartitionOffset::new("^re.*", -1, 0),
        TopicPartitionOffset::new("t", -1, 0),
    ]);
    assert_eq!(topics(subs.as_ptr()), ["^re.*", "t"]);
    assert!(topics(ptr::null()).is_empty());
}

#[test]
fn application_metadata_is_freed_with_the_list() {
    let p = rd_kafka_topic_partition_list_new(0);
    let e = access::elem_mut(rd_kafka_topic_partition_list_add(p, c("t").as_ptr(), 0)).unwrap();
    // as an application does: its own malloc'ed bytes
    e.metadata = mem::strdup_bytes(b"app").cast();
    e.metadata_size = 3;
    assert_eq!(to_offsets(p)[0].metadata.as_deref(), Some("app"));
    rd_kafka_topic_partition_list_destroy(p);
}
