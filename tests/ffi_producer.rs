//! The asynchronous producer through the C ABI (called from Rust, exactly as
//! C calls it): send with opaques, delivery reports through a C callback on
//! the polling thread, flush, queue-full, misuse, transactions refused.

mod common;

use std::ffi::{c_void, CStr, CString};
use std::ptr;

use gregor::ffi::*;

extern "C" fn on_dr(dr: *const gregor_delivery_report, opaque: *mut c_void) {
    // SAFETY: gregor passes a valid report for the duration of the call, and
    // `opaque` is the Vec we registered.
    let (dr, seen) = unsafe {
        (
            &*dr,
            &mut *(opaque as *mut Vec<(usize, i32, i64, i32, String)>),
        )
    };
    let topic = unsafe { CStr::from_ptr(dr.topic) }
        .to_str()
        .unwrap()
        .to_string();
    seen.push((
        dr.msg_opaque as usize,
        dr.partition,
        dr.offset,
        dr.err,
        topic,
    ));
}

fn cstr(s: &str) -> CString {
    CString::new(s).unwrap()
}

#[test]
fn send_poll_flush_and_reports_through_the_c_callback() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("cprod");
    common::create_topic(&topic, 2);
    let mut err = [0 as std::ffi::c_char; 256];
    let conf = gregor_config_new();
    let b = cstr(&common::broker());
    assert_eq!(
        gregor_config_set(
            conf,
            c"bootstrap.servers".as_ptr(),
            b.as_ptr(),
            err.as_mut_ptr(),
            err.len()
        ),
        0
    );
    assert_eq!(
        gregor_config_set(
            conf,
            c"linger.ms".as_ptr(),
            c"10".as_ptr(),
            err.as_mut_ptr(),
            err.len()
        ),
        0
    );
    let p = gregor_producer_new(conf, err.as_mut_ptr(), err.len());
    assert!(!p.is_null());
    let mut seen: Vec<(usize, i32, i64, i32, String)> = Vec::new();
    assert_eq!(
        gregor_producer_set_dr_cb(p, Some(on_dr), &mut seen as *mut _ as *mut c_void),
        0
    );
    let t = cstr(&topic);
    for i in 0..100usize {
        let v = format!("v{i}");
        let rc = gregor_producer_send(
            p,
            t.as_ptr(),
            (i % 2) as i32,
            ptr::null(),
            0,
            v.as_ptr(),
            v.len(),
            ptr::null(),
            0,
            i as *mut c_void,
            0,
            err.as_mut_ptr(),
            err.len(),
        );
        assert_eq!(rc, 0);
    }
    assert_eq!(gregor_producer_flush(p, 30_000), 0);
    assert_eq!(gregor_producer_len(p), 0);
    assert_eq!(seen.len(), 100);
    seen.sort();
    for (i, (opaque, partition, offset, e, tp)) in seen.iter().enumerate() {
        assert_eq!(
            (*opaque, *partition, *e, tp.as_str()),
            (i, (i % 2) as i32, 0, topic.as_str())
        );
        assert_eq!(*offset, (i / 2) as i64, "offsets per partition in order");
    }
    // misuse: NULL topic, bad partition, NULL producer
    let rc = gregor_producer_send(
        p,
        ptr::null(),
        0,
        ptr::null(),
        0,
        ptr::null(),
        0,
        ptr::null(),
        0,
        ptr::null_mut(),
        0,
        err.as_mut_ptr(),
        err.len(),
    );
    assert_eq!(rc, GREGOR_ERR__INVALID_ARG);
    let rc = gregor_producer_send(
        p,
        t.as_ptr(),
        -7,
        ptr::null(),
        0,
        ptr::null(),
        0,
        ptr::null(),
        0,
        ptr::null_mut(),
        0,
        err.as_mut_ptr(),
        err.len(),
    );
    assert_eq!(rc, GREGOR_ERR__INVALID_ARG);
    assert_eq!(
        gregor_producer_flush(ptr::null(), 10),
        GREGOR_ERR__INVALID_ARG
    );
    assert_eq!(gregor_producer_poll(ptr::null(), 10), 0);
    assert_eq!(gregor_producer_set_dr_cb(p, None, ptr::null_mut()), 0);
    gregor_producer_close(p, 1000);
    gregor_producer_free(p);
    gregor_config_free(conf);
}

#[test]
fn queue_full_and_transactions_refused_come_back_as_codes() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("cqfull");
    common::create_topic(&topic, 1);
    let mut err = [0 as std::ffi::c_char; 256];
    let conf = gregor_config_new();
    let b = cstr(&common::broker());
    gregor_config_set(
        conf,
        c"bootstrap.servers".as_ptr(),
        b.as_ptr(),
        err.as_mut_ptr(),
        err.len(),
    );
    gregor_config_set(
        conf,
        c"queue.buffering.max.messages".as_ptr(),
        c"3".as_ptr(),
        err.as_mut_ptr(),
        err.len(),
    );
    gregor_config_set(
        conf,
        c"linger.ms".as_ptr(),
        c"60000".as_ptr(),
        err.as_mut_ptr(),
        err.len(),
    );
    let p = gregor_producer_new(conf, err.as_mut_ptr(), err.len());
    let t = cstr(&topic);
    let send = |block| {
        gregor_producer_send(
            p,
            t.as_ptr(),
            0,
            ptr::null(),
            0,
            b"x".as_ptr(),
            1,
            ptr::null(),
            0,
            ptr::null_mut(),
            block,
            ptr::null_mut(),
            0,
        )
    };
    for _ in 0..3 {
        assert_eq!(send(0), 0);
    }
    assert_eq!(send(0), GREGOR_ERR__QUEUE_FULL);
    assert_eq!(send(50), GREGOR_ERR__QUEUE_FULL);
    assert_eq!(gregor_producer_flush(p, 30_000), 0);
    assert_eq!(send(0), 0);
    gregor_producer_free(p);

    // nisshi refuses transactions: a typed, named error through C
    gregor_config_set(
        conf,
        c"transactional.id".as_ptr(),
        c"c-txn".as_ptr(),
        err.as_mut_ptr(),
        err.len(),
    );
    gregor_config_set(
        conf,
        c"queue.buffering.max.messages".as_ptr(),
        c"1000".as_ptr(),
        err.as_mut_ptr(),
        err.len(),
    );
    let p = gregor_producer_new(conf, err.as_mut_ptr(), err.len());
    let rc = gregor_producer_init_transactions(p, 20_000, err.as_mut_ptr(), err.len());
    assert_eq!(rc, GREGOR_ERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
    let name = unsafe { CStr::from_ptr(gregor_err_name(rc)) }
        .to_str()
        .unwrap();
    assert_eq!(name, "TRANSACTIONAL_ID_AUTHORIZATION_FAILED");
    assert_eq!(
        gregor_producer_begin_transaction(p, err.as_mut_ptr(), err.len()),
        GREGOR_ERR__STATE
    );
    gregor_producer_free(p);
    gregor_config_free(conf);
}
