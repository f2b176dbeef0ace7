//! `rd_kafka_consumer_group_metadata_t` of rdkafka.h: a consumer's group
//! membership (group id, generation, member id, group instance id) for a
//! transactional producer's `send_offsets_to_transaction` (KIP-447), on
//! gregor's [`ConsumerGroupMetadata`]: `rd_kafka_consumer_group_metadata`
//! of a consumer, `_new`, `_new_with_genid`, the accessors, `_destroy`,
//! and `_write` / `_read`.
//!
//! `_write`'s bytes are librdkafka's, so a buffer written by either
//! library reads in the other: the 7 bytes `CGMDv2:`, the generation id
//! (4 bytes, native byte order), the group id and the member id each with
//! its NUL, a byte that is 1 when there is no group instance id, else 0
//! followed by the instance id and its NUL. `_read` refuses anything else
//! (`_BAD_MSG`), and strings that are not printable.

#![allow(unsafe_code)] // `#[no_mangle]`

use std::ffi::{c_char, c_void, CString};

use gregor::message::ConsumerGroupMetadata;

use crate::error_object::ErrorObject;
use crate::guard::guard;
use crate::handle::{Client, Handle};
use crate::raw;

/// `RD_KAFKA_RESP_ERR__BAD_MSG`.
const RESP_ERR__BAD_MSG: i32 = -199;
/// `RD_KAFKA_RESP_ERR__INVALID_ARG`.
const RESP_ERR__INVALID_ARG: i32 = -186;
/// The start of `_write`'s bytes.
const MAGIC: &[u8; 7] = b"CGMDv2:";

/// `rd_kafka_consumer_group_metadata_t`: gregor's metadata and its strings
/// for C.
#[derive(Debug)]
pub struct GroupMetadata {
    inner: ConsumerGroupMetadata,
    group_id: CString,
    member_id: CString,
    instance_id: Option<CString>,
}

impl GroupMetadata {
    fn new(inner: ConsumerGroupMetadata) -> *mut GroupMetadata {
        let c = |s: &str| raw::c_string(s);
        Box::into_raw(Box::new(GroupMetadata {
            group_id: c(&inner.group_id),
            member_id: c(&inner.member_id),
            instance_id: inner.group_instance_id.as_deref().map(c),
            inner,
        }))
    }

    /// gregor's metadata (for the producer's `send_offsets_to_transaction`).
    pub(crate) fn inner(&self) -> &ConsumerGroupMetadata {
        &self.inner
    }

    fn bytes(&self) -> Vec<u8> {
        let mut b = MAGIC.to_vec();
        b.extend_from_slice(&self.inner.generation_id.to_ne_bytes());
        b.extend_from_slice(self.group_id.as_bytes_with_nul());
        b.extend_from_slice(self.member_id.as_bytes_with_nul());
        match &self.instance_id {
            None => b.push(1),
            Some(i) => {
                b.push(0);
                b.extend_from_slice(i.as_bytes_with_nul());
            }
        }
        b
    }
}

/// The consumer's group metadata as it is now, for the application to
/// destroy (`rd_kafka_consumer_group_metadata`); NULL for a handle with no
/// group.
#[no_mangle]
pub extern "C" fn rd_kafka_consumer_group_metadata(rk: *mut Handle) -> *mut GroupMetadata {
    guard(std::ptr::null_mut(), || {
        match raw::object(rk).map(Handle::client) {
            Some(Client::Consumer(c)) => c
                .group_metadata()
                .map_or(std::ptr::null_mut(), GroupMetadata::new),
            _ => std::ptr::null_mut(),
        }
    })
}

/// Metadata of only a group id (`rd_kafka_consumer_group_metadata_new`):
/// generation -1, no member id.
#[no_mangle]
pub extern "C" fn rd_kafka_consumer_group_metadata_new(
    group_id: *const c_char,
) -> *mut GroupMetadata {
    guard(std::ptr::null_mut(), || match raw::read_cstr(group_id) {
        Some(g) => GroupMetadata::new(ConsumerGroupMetadata::new(g)),
        None => std::ptr::null_mut(),
    })
}

/// Metadata of every field (`rd_kafka_consumer_group_metadata_new_with_genid`);
/// a NULL member id is "", a NULL instance id none.
#[no_mangle]
pub extern "C" fn rd_kafka_consumer_group_metadata_new_with_genid(
    group_id: *const c_char,
    generation_id: i32,
    member_id: *const c_char,
    group_instance_id: *const c_char,
) -> *mut GroupMetadata {
    guard(std::ptr::null_mut(), || {
        let Some(g) = raw::read_cstr(group_id) else {
            return std::ptr::null_mut();
        };
        GroupMetadata::new(ConsumerGroupMetadata {
            group_id: g.into_owned(),
            generation_id,
            member_id: raw::read_cstr(member_id).unwrap_or_default().into_owned(),
            group_instance_id: raw::read_cstr(group_instance_id).map(|i| i.into_owned()),
        })
    })
}

/// Frees metadata (`rd_kafka_consumer_group_metadata_destroy`).
#[no_mangle]
pub extern "C" fn rd_kafka_consumer_group_metadata_destroy(cgmd: *mut GroupMetadata) {
    guard((), || drop(raw::take_box(cgmd)))
}

/// The group id (`rd_kafka_consumer_group_metadata_group_id`).
#[no_mangle]
pub extern "C" fn rd_kafka_consumer_group_metadata_group_id(
    cgmd: *const GroupMetadata,
) -> *const c_char {
    guard(std::ptr::null(), || {
        raw::object(cgmd).map_or(std::ptr::null(), |m| m.group_id.as_ptr())
    })
}

/// The member id (`rd_kafka_consumer_group_metadata_member_id`).
#[no_mangle]
pub extern "C" fn rd_kafka_consumer_group_metadata_member_id(
    cgmd: *const GroupMetadata,
) -> *const c_char {
    guard(std::ptr::null(), || {
        raw::object(cgmd).map_or(std::ptr::null(), |m| m.member_id.as_ptr())
    })
}

/// The group instance id, NULL for none
/// (`rd_kafka_consumer_group_metadata_group_instance_id`).
#[no_mangle]
pub extern "C" fn rd_kafka_consumer_group_metadata_group_instance_id(
    cgmd: *const GroupMetadata,
) -> *const c_char {
    guard(std::ptr::null(), || {
        raw::object(cgmd)
            .and_then(|m| m.instance_id.as_ref())
            .map_or(std::ptr::null(), |i| i.as_ptr())
    })
}

/// The generation id (`rd_kafka_consumer_group_metadata_generation_id`).
#[no_mangle]
pub extern "C" fn rd_kafka_consumer_group_metadata_generation_id(
    cgmd: *const GroupMetadata,
) -> i32 {
    guard(-1, || {
        raw::object(cgmd).map_or(-1, |m| m.inner.generation_id)
    })
}

/// Serializes metadata into a malloc'ed buffer (`*bufferp`, `*sizep`) for
/// `_read` (`rd_kafka_consumer_group_metadata_write`); NULL, or an error
/// object.
#[no_mangle]
pub extern "C" fn rd_kafka_consumer_group_metadata_write(
    cgmd: *const GroupMetadata,
    bufferp: *mut *mut c_void,
    sizep: *mut usize,
) -> *mut c_void {
    guard(std::ptr::null_mut(), || {
        let Some(m) = raw::object(cgmd) else {
            return ErrorObject::boxed(RESP_ERR__INVALID_ARG, "No consumer group metadata");
        };
        let b = m.bytes();
        raw::write_out(bufferp, crate::mem::memdup(&b));
        raw::write_out(sizep, b.len());
        std::ptr::null_mut()
    })
}

/// The NUL-terminated printable string at the start of `b`, and the rest.
fn cstr(b: &[u8]) -> Option<(String, &[u8])> {
    let n = b.iter().position(|&c| c == 0)?;
    let s = &b[..n];
    if !s.iter().all(|&c| (0x20..0x7f).contains(&c)) {
        return None;
    }
    Some((String::from_utf8_lossy(s).into_owned(), &b[n + 1..]))
}

/// The metadata of `_write`'s bytes, or why they are not.
fn parse(b: &[u8]) -> Result<ConsumerGroupMetadata, &'static str> {
    let rest = b
        .strip_prefix(MAGIC)
        .ok_or("Input buffer is not a serialized consumer group metadata object")?;
    if rest.len() < 4 {
        return Err("Input buffer is too short");
    }
    let (gen, rest) = rest.split_at(4);
    let generation_id = i32::from_ne_bytes([gen[0], gen[1], gen[2], gen[3]]);
    let (group_id, rest) = cstr(rest).ok_or("Input buffer group id is not safe")?;
    let (member_id, rest) = cstr(rest).ok_or("Input buffer member id is not safe")?;
    let (&is_null, rest) = rest.split_first().ok_or("Input buffer is too short")?;
    let (group_instance_id, rest) = if is_null == 0 {
        let (i, rest) = cstr(rest).ok_or("Input buffer group instance id is not safe")?;
        (Some(i), rest)
    } else {
        (None, rest)
    };
    if !rest.is_empty() {
        return Err("Input buffer has trailing bytes");
    }
    Ok(ConsumerGroupMetadata {
        group_id,
        generation_id,
        member_id,
        group_instance_id,
    })
}

/// Metadata from `_write`'s bytes (`rd_kafka_consumer_group_metadata_read`):
/// NULL with the object in `*cgmdp`, or a `_BAD_MSG` error object.
#[no_mangle]
pub extern "C" fn rd_kafka_consumer_group_metadata_read(
    cgmdp: *mut *mut GroupMetadata,
    buffer: *const c_void,
    size: usize,
) -> *mut c_void {
    guard(std::ptr::null_mut(), || {
        let b = raw::read_bytes(buffer, size).unwrap_or_default();
        match parse(b) {
            Ok(m) => {
                raw::write_out(cgmdp, GroupMetadata::new(m));
                std::ptr::null_mut()
            }
            Err(why) => ErrorObject::boxed(RESP_ERR__BAD_MSG, why),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_then_read() {
        for instance in [None, Some("i-1")] {
            let m = GroupMetadata::new(ConsumerGroupMetadata {
                group_id: "g".into(),
                generation_id: 7,
                member_id: "m".into(),
                group_instance_id: instance.map(String::from),
            });
            let b = raw::object(m).unwrap().bytes();
            assert!(b.starts_with(b"CGMDv2:"));
            let back = parse(&b).unwrap();
            assert_eq!(&back, raw::object(m).unwrap().inner());
            assert!(parse(&b[..b.len() - 1]).is_err());
            rd_kafka_consumer_group_metadata_destroy(m);
        }
        assert!(parse(b"CGMDv1:").is_err());
    }

    #[test]
    fn accessors() {
        let m = rd_kafka_consumer_group_metadata_new(c"grp".as_ptr());
        assert_eq!(rd_kafka_consumer_group_metadata_generation_id(m), -1);
        assert!(rd_kafka_consumer_group_metadata_group_instance_id(m).is_null());
        let g = raw::read_cstr(rd_kafka_consumer_group_metadata_group_id(m)).unwrap();
        assert_eq!(g, "grp");
        rd_kafka_consumer_group_metadata_destroy(m);
        assert!(rd_kafka_consumer_group_metadata_new(std::ptr::null()).is_null());
    }
}
