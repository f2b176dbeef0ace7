//! The Kafka 0.7 wire format: message sets (MAGIC 0/1, gzip and snappy
//! wrappers, nested) and the FETCH, MULTIFETCH and OFFSETS responses, plus
//! the request decoder the scripted 0.7 broker uses.
//!
//! Byte 0 picks the decoder; decompression is capped at 1 MiB.
#![no_main]

use gregor::legacy07::message::decode_message_set;
use gregor::legacy07::protocol::{FetchResponse, MultiFetchResponse, OffsetsResponse, Request};
use gregor::wire::Bytes;
use libfuzzer_sys::fuzz_target;

const LIMIT: usize = 1 << 20;

fn messages(b: &Bytes) {
    if let Ok(set) = decode_message_set(b, 0, LIMIT) {
        assert!(set.valid_bytes <= b.len());
        let _ = set.partial_bytes(b.len());
        for m in &set.messages {
            assert!(m.next_offset > m.offset);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let [sel, d @ ..] = data else {
        return;
    };
    let b = Bytes::from(d.to_vec());
    match sel % 5 {
        0 => messages(&b),
        1 => {
            if let Ok(r) = FetchResponse::decode(&b) {
                messages(&r.messages);
            }
        }
        2 => {
            if let Ok(r) = MultiFetchResponse::decode(&b) {
                for f in &r.parts {
                    messages(&f.messages);
                }
            }
        }
        3 => drop(OffsetsResponse::decode(d)),
        _ => {
            if let Ok(r) = Request::decode(&b) {
                if let Ok(again) = r.encode() {
                    let back = Request::decode(&Bytes::from(again[4..].to_vec()))
                        .expect("re-encoded request");
                    assert_eq!(back, r);
                }
            }
        }
    }
});
