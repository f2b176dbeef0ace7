use std::ffi::{CStr, CString};

use super::*;

fn c(s: &str) -> CString {
    CString::new(s).unwrap()
}

fn get_last(h: *const Headers, name: &str) -> Result<Option<Vec<u8>>, c_int> {
    let (mut v, mut n) = (ptr::null::<c_void>(), 99usize);
    match rd_kafka_header_get_last(h, c(name).as_ptr(), &mut v, &mut n) {
        0 if v.is_null() => Ok(None),
        // SAFETY: the answer's `n` bytes.
        0 => Ok(Some(unsafe { crate::mem::bytes(v, n) }.to_vec())),
        e => Err(e),
    }
}

#[test]
fn add_get_remove() {
    let h = rd_kafka_headers_new(0);
    assert_eq!(
        rd_kafka_header_add(h, c("a").as_ptr(), -1, c("1").as_ptr().cast(), -1),
        0
    );
    assert_eq!(
        rd_kafka_header_add(h, c("bx").as_ptr(), 1, ptr::null(), 5),
        0
    );
    assert_eq!(
        rd_kafka_header_add(h, c("a").as_ptr(), -1, b"22".as_ptr().cast(), 2),
        0
    );
    assert_eq!(rd_kafka_header_cnt(h), 3);
    assert_eq!(get_last(h, "a"), Ok(Some(b"22".to_vec())));
    assert_eq!(get_last(h, "b"), Ok(None));
    assert_eq!(get_last(h, "c"), Err(RESP_ERR__NOENT));

    let (mut v, mut n) = (ptr::null::<c_void>(), 0usize);
    assert_eq!(
        rd_kafka_header_get(h, 0, c("a").as_ptr(), &mut v, &mut n),
        0
    );
    // SAFETY: a value, NUL-terminated.
    assert_eq!(unsafe { CStr::from_ptr(v.cast()) }.to_bytes(), b"1");
    assert_eq!(
        rd_kafka_header_get(h, 2, c("a").as_ptr(), &mut v, &mut n),
        RESP_ERR__NOENT
    );

    let mut name = ptr::null::<c_char>();
    assert_eq!(rd_kafka_header_get_all(h, 1, &mut name, &mut v, &mut n), 0);
    // SAFETY: a name, NUL-terminated.
    assert_eq!(unsafe { CStr::from_ptr(name) }.to_bytes(), b"b");
    assert!(v.is_null() && n == 0);
    assert_eq!(
        rd_kafka_header_get_all(h, 3, &mut name, &mut v, &mut n),
        RESP_ERR__NOENT
    );

    let copy = rd_kafka_headers_copy(h);
    assert_eq!(rd_kafka_header_remove(h, c("a").as_ptr()), 0);
    assert_eq!(rd_kafka_header_remove(h, c("a").as_ptr()), RESP_ERR__NOENT);
    assert_eq!(rd_kafka_header_cnt(h), 1);
    assert_eq!(rd_kafka_header_cnt(copy), 3);
    assert_eq!(get_last(copy, "a"), Ok(Some(b"22".to_vec())));
    rd_kafka_headers_destroy(h);
    rd_kafka_headers_destroy(copy);
    rd_kafka_headers_destroy(ptr::null_mut());
    assert_eq!(rd_kafka_header_cnt(ptr::null()), 0);
}

#[test]
fn pointers_stay_while_the_set_grows() {
    let h = rd_kafka_headers_new(1);
    rd_kafka_header_add(h, c("k").as_ptr(), -1, c("v").as_ptr().cast(), -1);
    let (mut v, mut n) = (ptr::null::<c_void>(), 0usize);
    rd_kafka_header_get_last(h, c("k").as_ptr(), &mut v, &mut n);
    for i in 0..100 {
        rd_kafka_header_add(h, c(&format!("x{i}")).as_ptr(), -1, ptr::null(), 0);
    }
    // SAFETY: still the first header's value.
    assert_eq!(unsafe { crate::mem::bytes(v, n) }, b"v");
    rd_kafka_headers_destroy(h);
}

#[test]
fn read_only_and_names_with_nul() {
    let mut hs = Headers::default();
    assert_eq!(hs.add(b"a\0b", Some(b"x")), 0);
    // get matches the whole name, remove as strcmp reads it
    assert!(hs.get_last(b"a").is_none());
    hs.set_read_only(true);
    assert_eq!(hs.add(b"c", None), RESP_ERR__READ_ONLY);
    assert_eq!(hs.remove(b"a"), RESP_ERR__READ_ONLY);
    hs.set_read_only(false);
    assert_eq!(hs.remove(b"a"), 0);
    assert_eq!(hs.len(), 0);
}

#[test]
fn converts_to_and_from_gregor() {
    let g = vec![
        GregorHeader {
            key: b"a".to_vec().into(),
            value: Some(b"1".to_vec().into()),
        },
        GregorHeader {
            key: b"b".to_vec().into(),
            value: None,
        },
    ];
    let h = Headers::from_gregor(&g).into_raw();
    assert_eq!(get_last(h, "b"), Ok(None));
    // SAFETY: from `into_raw` just above.
    let back = unsafe { Headers::from_raw(h) }.unwrap();
    assert_eq!(back.to_gregor(), g);
}
