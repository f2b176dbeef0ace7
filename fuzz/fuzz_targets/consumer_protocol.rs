//! The consumer protocol blobs a group's members exchange through the
//! coordinator (JoinGroup metadata, SyncGroup assignments): subscriptions and
//! assignments of every version, as written by any client.
//!
//! Byte 0, bit 0: subscription or assignment.
#![no_main]

use gregor::protocol::consumer_protocol::{
    decode_assignment, decode_subscription, encode_assignment, encode_subscription,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [sel, rest @ ..] = data else {
        return;
    };
    if sel & 1 == 0 {
        if let Ok((v, s)) = decode_subscription(rest) {
            let v = v.min(3);
            if let Ok(bytes) = encode_subscription(&s, v) {
                let (v2, s2) = decode_subscription(&bytes).expect("re-encoded subscription");
                assert_eq!((v2, &s2), (v, &s));
            }
        }
    } else if let Ok((v, a)) = decode_assignment(rest) {
        let v = v.min(3);
        if let Ok(bytes) = encode_assignment(&a, v) {
            let (v2, a2) = decode_assignment(&bytes).expect("re-encoded assignment");
            assert_eq!((v2, &a2), (v, &a));
        }
    }
});
