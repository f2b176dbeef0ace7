//! Every request and response decoder of every API at every version (every
//! API of gregor's list, `gregor::kafka_apis!` in src/api_keys.rs,
//! LeaderAndIsr and UpdateMetadata included), plus the frame headers.
//!
//! Input: byte 0 picks the API (index into the APIs gregor implements, in
//! key order) and, in its low bit, request or response; byte 1 picks the version within the API's range;
//! the rest is the body. A body that decodes must re-encode, and what it
//! re-encodes to must decode and re-encode to the same bytes.
#![no_main]

use gregor::protocol::*;
use gregor::protocol::{Message, Request, RequestHeader, ResponseHeader};
use gregor::wire::Reader;
use libfuzzer_sys::fuzz_target;

fn check<M: Message>(version_byte: u8, body: &[u8]) {
    let span = (M::MAX_VERSION - M::MIN_VERSION + 1) as u16;
    let version = M::MIN_VERSION + (u16::from(version_byte) % span) as i16;
    let mut r = Reader::new(body);
    let Ok(m) = M::decode(&mut r, version) else {
        return;
    };
    let Ok(first) = m.to_bytes(version) else {
        return;
    };
    let again = M::from_bytes(&first, version)
        .unwrap_or_else(|e| panic!("re-encoded v{version} body does not decode: {e}"));
    let second = again
        .to_bytes(version)
        .expect("re-encode of a re-decoded body");
    assert_eq!(first, second, "v{version} re-encoding is not stable");
}

fn pair<R: Request>(request: bool, version_byte: u8, body: &[u8]) {
    if request {
        check::<R>(version_byte, body);
    } else {
        check::<R::Response>(version_byte, body);
    }
}

macro_rules! apis {
    ($($key:literal $name:ident $($module:ident :: $request:ident)?,)*) => {
        const APIS: &[fn(bool, u8, &[u8])] = &[$($(pair::<$module::$request>,)?)*];
    };
}

gregor::kafka_apis!(apis);

fuzz_target!(|data: &[u8]| {
    let [sel, version, body @ ..] = data else {
        return;
    };
    let idx = usize::from(sel >> 1);
    if idx < APIS.len() {
        APIS[idx](sel & 1 == 1, *version, body);
    } else {
        // The headers: request v0–2, response v0–1.
        let mut r = Reader::new(body);
        if sel & 1 == 1 {
            let _ = RequestHeader::decode(&mut r, i16::from(*version % 3));
        } else {
            let _ = ResponseHeader::decode(&mut r, i16::from(*version % 2));
        }
    }
});
