//! The Kafka 0.7 legacy module (src/legacy07), verified without a 0.7
//! broker (none can run here):
//! - byte-exact tests whose expected bytes are built field by field from
//!   the driver guide's layouts, with this file's own CRC-32;
//! - a FETCH response built by an independent encoder (Python's gzip and
//!   zlib, kafka-python's Xerial snappy), decoded message for message;
//! - every truncated prefix of every request and response;
//! - a scripted 0.7 broker (legacy07/server.rs) with 0.7's log semantics,
//!   driven end to end through the client, the ZooKeeper registry, the C API
//!   and the CLI. ZooKeeper is the real one on 127.0.0.1:2181
//!   (`$GREGOR_TEST_ZOOKEEPER`); each test works under its own chroot.

mod common;
#[path = "legacy07/server.rs"]
mod server;

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use gregor::compression::Codec;
use gregor::error::local;
use gregor::legacy07::message::{decode_message_set, encode_message_set, Message};
use gregor::legacy07::protocol::{
    ErrorCode07, FetchRequest, FetchResponse, MultiFetchResponse, OffsetsRequest, OffsetsResponse,
    ProduceRequest, Request, RequestType,
};
use gregor::legacy07::{BrokerPartition, Client, Options, ProduceSet, Producer07, Registry};
use gregor::wire::Bytes;
use server::{crc32, Broker07};

/// Big-endian bytes, field by field (independent of gregor's Writer).
#[derive(Default)]
struct B(Vec<u8>);

impl B {
    fn i8(mut self, v: i8) -> Self {
        self.0.push(v as u8);
        self
    }
    fn i16(mut self, v: i16) -> Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    fn i32(mut self, v: i32) -> Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    fn u32(mut self, v: u32) -> Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    fn i64(mut self, v: i64) -> Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    fn raw(mut self, b: &[u8]) -> Self {
        self.0.extend_from_slice(b);
        self
    }
    /// TOPIC_LENGTH + TOPIC.
    fn topic(self, t: &str) -> Self {
        self.i16(t.len() as i16).raw(t.as_bytes())
    }
    /// A message: LENGTH, MAGIC, [COMPRESSION], CHECKSUM, PAYLOAD.
    fn message(self, magic: i8, compression: i8, payload: &[u8]) -> Self {
        let len = if magic == 0 { 5 } else { 6 } + payload.len() as i32;
        let b = self.i32(len).i8(magic);
        let b = if magic == 1 { b.i8(compression) } else { b };
        b.u32(crc32(payload)).raw(payload)
    }
    /// Prefixes REQUEST_LENGTH / RESPONSE_LENGTH.
    fn framed(self) -> Vec<u8> {
        B::default().i32(self.0.len() as i32).raw(&self.0).0
    }
}

fn unique(prefix: &str) -> String {
    static N: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!(
        "{prefix}-{}-{nanos}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    )
}

/// A fresh chroot in the test ZooKeeper: "127.0.0.1:2181/gregor-legacy07-…".
fn zk_chroot() -> String {
    let root = format!("/{}", unique("gregor-legacy07"));
    let zk = server::zk_session(&common::zookeeper());
    server::ensure_path(&zk, &root);
    format!("{}{root}", common::zookeeper())
}

fn client(b: &Broker07) -> Client {
    Client::connect(&b.addr, Options::default()).unwrap()
}

fn payloads(r: &gregor::legacy07::FetchResult) -> Vec<Vec<u8>> {
    r.messages.iter().map(|m| m.payload.to_vec()).collect()
}

// ----- byte-exact layouts -----

#[test]
fn crc32_check_value() {
    // The CRC-32 check value, so this file's CRC is the IEEE one.
    assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
    assert_eq!(
        gregor::legacy07::message::checksum(b"123456789"),
        0xcbf4_3926
    );
}

#[test]
fn messages_with_magic_0_and_1_are_byte_exact() {
    let m0 = Message::new(0, &b"123456789"[..]);
    let mut w = gregor::wire::Writer::new();
    m0.encode_into(&mut w).unwrap();
    // LENGTH 14 = MAGIC 1 + CHECKSUM 4 + PAYLOAD 9.
    let want = B::default()
        .i32(14)
        .i8(0)
        .u32(0xcbf4_3926)
        .raw(b"123456789")
        .0;
    assert_eq!(w.as_slice(), &want[..]);

    let m1 = Message::new(1, &b"123456789"[..]);
    let mut w = gregor::wire::Writer::new();
    m1.encode_into(&mut w).unwrap();
    let want = B::default()
        .i32(15)
        .i8(1)
        .i8(0)
        .u32(0xcbf4_3926)
        .raw(b"123456789")
        .0;
    assert_eq!(w.as_slice(), &want[..]);

    // A whole set, uncompressed, each magic.
    for magic in [0i8, 1] {
        let set = encode_message_set(&[b"a", b"bb"], magic, Codec::None).unwrap();
        let want = B::default()
            .message(magic, 0, b"a")
            .message(magic, 0, b"bb")
            .0;
        assert_eq!(set, want, "magic {magic}");
    }
    // Magic 0 cannot say it is compressed.
    assert!(encode_message_set(&[b"a"], 0, Codec::Gzip).is_err());
    assert!(encode_message_set(&[b"a"], 1, Codec::Lz4).is_err());
    assert!(encode_message_set(&[b"a"], 2, Codec::None).is_err());
}

#[test]
fn compressed_wrapper_layout() {
    for (codec, attr) in [(Codec::Gzip, 1i8), (Codec::Snappy, 2)] {
        let set = encode_message_set(&[b"alpha", b"beta"], 1, codec).unwrap();
        // LENGTH, MAGIC 1, COMPRESSION, CHECKSUM of the compressed payload.
        let len = i32::from_be_bytes(set[..4].try_into().unwrap()) as usize;
        assert_eq!(len + 4, set.len());
        assert_eq!(set[4], 1);
        assert_eq!(set[5] as i8, attr);
        let payload = &set[10..];
        assert_eq!(
            u32::from_be_bytes(set[6..10].try_into().unwrap()),
            crc32(payload)
        );
        // The payload is the inner set, compressed the way Kafka 0.7 did it.
        let inner = B::default()
            .message(1, 0, b"alpha")
            .message(1, 0, b"beta")
            .0;
        match codec {
            Codec::Gzip => assert_eq!(&payload[..3], &[0x1f, 0x8b, 0x08]),
            _ => assert_eq!(&payload[..8], b"\x82SNAPPY\x00"),
        }
        let back = gregor::compression::decompress(codec, payload, 1000).unwrap();
        assert_eq!(back, inner);
    }
}

#[test]
fn requests_are_byte_exact() {
    let set = B::default().message(1, 0, b"hi").message(0, 0, b"there").0;
    // PRODUCE: header (REQUEST_LENGTH, REQUEST_TYPE 0, TOPIC, PARTITION),
    // MESSAGES_LENGTH, MESSAGES.
    let req = Request::Produce(ProduceRequest {
        topic: "dogs".into(),
        partition: 3,
        messages: Bytes::from(set.clone()),
    });
    let want = B::default()
        .i16(0)
        .topic("dogs")
        .i32(3)
        .i32(set.len() as i32)
        .raw(&set)
        .framed();
    assert_eq!(req.encode().unwrap(), want);

    // FETCH: header, OFFSET, MAX_SIZE.
    let fetch = FetchRequest {
        topic: "dogs".into(),
        partition: 1,
        offset: 536_890_406,
        max_size: 1 << 20,
    };
    let want = B::default()
        .i16(1)
        .topic("dogs")
        .i32(1)
        .i64(536_890_406)
        .i32(1 << 20)
        .framed();
    assert_eq!(Request::Fetch(fetch.clone()).encode().unwrap(), want);

    // MULTIFETCH: REQUEST_LENGTH, REQUEST_TYPE 2, TOPICPARTITION_COUNT, then
    // (TOPIC_LENGTH, TOPIC, PARTITION, OFFSET, MAX_SIZE) per fetch.
    let fetch2 = FetchRequest {
        topic: "mutts".into(),
        partition: 4,
        offset: 0,
        max_size: 300 * 1024,
    };
    let want = B::default()
        .i16(2)
        .i16(2)
        .topic("dogs")
        .i32(1)
        .i64(536_890_406)
        .i32(1 << 20)
        .topic("mutts")
        .i32(4)
        .i64(0)
        .i32(300 * 1024)
        .framed();
    assert_eq!(
        Request::MultiFetch(vec![fetch, fetch2]).encode().unwrap(),
        want
    );

    // MULTIPRODUCE: REQUEST_TYPE 3, count, (TOPIC, PARTITION, MESSAGES_LENGTH, MESSAGES)…
    let p = |t: &str, part| ProduceRequest {
        topic: t.into(),
        partition: part,
        messages: Bytes::from(set.clone()),
    };
    let want = B::default()
        .i16(3)
        .i16(2)
        .topic("dogs")
        .i32(0)
        .i32(set.len() as i32)
        .raw(&set)
        .topic("mutts")
        .i32(2)
        .i32(set.len() as i32)
        .raw(&set)
        .framed();
    assert_eq!(
        Request::MultiProduce(vec![p("dogs", 0), p("mutts", 2)])
            .encode()
            .unwrap(),
        want
    );

    // OFFSETS: header, TIME, MAX_NUMBER.
    for time in [-1i64, -2, 1_324_306_324_402] {
        let req = Request::Offsets(OffsetsRequest {
            topic: "dogs".into(),
            partition: 0,
            time,
            max_number: 10,
        });
        let want = B::default()
            .i16(4)
            .topic("dogs")
            .i32(0)
            .i64(time)
            .i32(10)
            .framed();
        assert_eq!(req.encode().unwrap(), want);
    }

    // REQUEST_TYPE values.
    for (t, v) in [
        (RequestType::Produce, 0),
        (RequestType::Fetch, 1),
        (RequestType::MultiFetch, 2),
        (RequestType::MultiProduce, 3),
        (RequestType::Offsets, 4),
    ] {
        assert_eq!(t as i16, v);
        assert_eq!(RequestType::from_i16(v), Some(t));
    }
    assert_eq!(RequestType::from_i16(5), None);
}

#[test]
fn requests_round_trip_and_every_truncated_prefix_is_an_error() {
    let set = Bytes::from(encode_message_set(&[b"x", b"yz"], 1, Codec::None).unwrap());
    let fetch = FetchRequest {
        topic: "t".into(),
        partition: 2,
        offset: 99,
        max_size: 1000,
    };
    let produce = ProduceRequest {
        topic: "topic".into(),
        partition: 1,
        messages: set,
    };
    let reqs = vec![
        Request::Produce(produce.clone()),
        Request::Fetch(fetch.clone()),
        Request::MultiFetch(vec![fetch.clone(), fetch]),
        Request::MultiProduce(vec![produce.clone(), produce]),
        Request::Offsets(OffsetsRequest {
            topic: "o".into(),
            partition: 0,
            time: -2,
            max_number: 1,
        }),
    ];
    for req in reqs {
        let frame = req.encode().unwrap();
        let body = Bytes::from(frame[4..].to_vec());
        assert_eq!(Request::decode(&body).unwrap(), req);
        for cut in 0..body.len() {
            assert!(
                Request::decode(&Bytes::from(body[..cut].to_vec())).is_err(),
                "{:?} cut at {cut}",
                req.request_type()
            );
        }
        let mut longer = body.to_vec();
        longer.push(0);
        assert!(Request::decode(&Bytes::from(longer)).is_err());
    }
    // Hostile counts and lengths: errors, no allocation.
    for bad in [
        B::default().i16(2).i16(i16::MAX).0,
        B::default().i16(2).i16(-1).0,
        B::default().i16(0).topic("t").i32(0).i32(i32::MAX).0,
        B::default().i16(0).topic("t").i32(0).i32(-5).0,
        B::default().i16(1).i16(-1).0,
        B::default().i16(1).i16(0).i32(0).i64(0).i32(0).0,
        B::default().i16(9).0,
    ] {
        assert!(Request::decode(&Bytes::from(bad)).is_err());
    }
    // A topic can't be empty or longer than TOPIC_LENGTH can say.
    let mut f = FetchRequest::default();
    assert!(Request::Fetch(f.clone()).encode().is_err());
    f.topic = "x".repeat(40_000);
    assert!(Request::Fetch(f).encode().is_err());
}

/// A FETCH response built by Python (gzip, zlib.crc32) and kafka-python
/// 3.0.12 (`kafka.codec.snappy_encode(..., xerial_compatible=True)`):
/// [magic 0 "one"][gzip wrapper: "alpha", "beta"][snappy wrapper: "gamma",
/// "delta", "epsilon"][the first 9 bytes of a 22-byte message]. The script:
/// testdata/legacy07/gen_fetch_response.py.
const PYTHON_FETCH_RESPONSE: &[u8] = &[
    0x00, 0x00, 0x00, 0x9d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x7a, 0x6c, 0x86, 0xf1, 0x6f,
    0x6e, 0x65, 0x00, 0x00, 0x00, 0x37, 0x01, 0x01, 0x25, 0x97, 0x9b, 0xb0, 0x1f, 0x8b, 0x08, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0x63, 0x60, 0x60, 0xe0, 0x66, 0x64, 0xb8, 0xf0, 0xc0, 0x32,
    0x2b, 0x31, 0xa7, 0x20, 0x23, 0x91, 0x81, 0x81, 0x81, 0x8b, 0x91, 0xa1, 0x7f, 0x22, 0x4b, 0x72,
    0x52, 0x6a, 0x49, 0x22, 0x00, 0x7a, 0x81, 0xc4, 0xa2, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x47, 0x01, 0x02, 0xa1, 0x8e, 0x8b, 0xff, 0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00, 0x00,
    0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x2d, 0x2f, 0x38, 0x00, 0x00, 0x00,
    0x0b, 0x01, 0x00, 0xc4, 0x43, 0xd0, 0x71, 0x67, 0x61, 0x6d, 0x6d, 0x61, 0x09, 0x0f, 0x1c, 0x96,
    0x43, 0xfe, 0xd9, 0x64, 0x65, 0x6c, 0x74, 0x01, 0x0f, 0x34, 0x0d, 0x01, 0x00, 0xbe, 0x3e, 0x9a,
    0x18, 0x65, 0x70, 0x73, 0x69, 0x6c, 0x6f, 0x6e, 0x00, 0x00, 0x00, 0x12, 0x01, 0x00, 0xb8, 0xa1,
    0x71,
];

#[test]
fn decodes_an_independently_encoded_fetch_response() {
    let frame = PYTHON_FETCH_RESPONSE;
    assert_eq!(
        i32::from_be_bytes(frame[..4].try_into().unwrap()) as usize,
        frame.len() - 4
    );
    let resp = FetchResponse::decode(&Bytes::from(frame[4..].to_vec())).unwrap();
    assert_eq!(resp.error, ErrorCode07::NO_ERROR);
    // Fetched from byte offset 1000: offsets are 1000 + position.
    let set = decode_message_set(&resp.messages, 1000, 1 << 20).unwrap();
    let got: Vec<(i64, i64, i8, Codec, &[u8])> = set
        .messages
        .iter()
        .map(|m| {
            (
                m.offset,
                m.next_offset,
                m.magic,
                m.compression,
                &m.payload[..],
            )
        })
        .collect();
    // Plain 12 bytes, gzip wrapper 59, snappy wrapper 75: inner messages all
    // carry their wrapper's offset; the next offset is after the wrapper.
    let want: Vec<(i64, i64, i8, Codec, &[u8])> = vec![
        (1000, 1012, 0, Codec::None, b"one"),
        (1012, 1071, 1, Codec::Gzip, b"alpha"),
        (1012, 1071, 1, Codec::Gzip, b"beta"),
        (1071, 1146, 1, Codec::Snappy, b"gamma"),
        (1071, 1146, 1, Codec::Snappy, b"delta"),
        (1071, 1146, 1, Codec::Snappy, b"epsilon"),
    ];
    assert_eq!(got, want);
    assert_eq!(set.valid_bytes, 146);
    // The cut-off message said LENGTH 18: 22 bytes would be needed.
    assert_eq!(set.partial_length, Some(18));
    assert_eq!(set.partial_bytes(resp.messages.len()), 9);

    // Every prefix decodes to the whole messages in it, never an error.
    for cut in 0..resp.messages.len() {
        let part = Bytes::from(resp.messages[..cut].to_vec());
        let s = decode_message_set(&part, 0, 1 << 20).unwrap();
        let n = s.messages.len();
        let boundaries = [0usize, 12, 71, 146];
        let whole = boundaries.iter().filter(|&&b| b <= cut).count() - 1;
        assert_eq!(s.valid_bytes, boundaries[whole], "cut {cut}");
        assert_eq!(n, [0, 1, 3, 6][whole], "cut {cut}");
    }
    // The decompression limit holds for the whole set.
    assert!(decode_message_set(&resp.messages, 0, 10).is_err());
}

#[test]
fn corrupt_messages_are_errors() {
    let good = B::default().message(1, 0, b"payload").0;
    // A flipped payload byte fails the CRC.
    let mut bad = good.clone();
    *bad.last_mut().unwrap() ^= 1;
    let e = decode_message_set(&Bytes::from(bad), 0, 1 << 20).unwrap_err();
    assert_eq!(e.code(), local::BAD_MSG);
    assert!(e.to_string().contains("CHECKSUM"), "{e}");
    // Unknown magic; codec bits 3; LENGTH below a header; negative LENGTH.
    let mut m2 = good.clone();
    m2[4] = 2;
    assert!(decode_message_set(&Bytes::from(m2), 0, 1 << 20).is_err());
    let m3 = B::default().message(1, 3, b"payload").0;
    let e = decode_message_set(&Bytes::from(m3), 0, 1 << 20).unwrap_err();
    assert_eq!(e.code(), local::BAD_MSG);
    for len in [-1, 0, 4] {
        let m = B::default().i32(len).raw(&[0; 8]).0;
        assert!(decode_message_set(&Bytes::from(m), 0, 1 << 20).is_err());
    }
    // A huge LENGTH is a partial tail, not an allocation.
    let m = B::default().i32(i32::MAX).raw(&[1, 0]).0;
    let s = decode_message_set(&Bytes::from(m), 0, 1 << 20).unwrap();
    assert_eq!((s.valid_bytes, s.partial_length), (0, Some(i32::MAX)));
    // A compressed wrapper around garbage, and around a cut-off set.
    let m = B::default().message(1, 1, b"not gzip").0;
    let e = decode_message_set(&Bytes::from(m), 0, 1 << 20).unwrap_err();
    assert_eq!(e.code(), local::BAD_COMPRESSION);
    let inner = B::default().message(1, 0, b"whole").0;
    let mut gz = Vec::new();
    gregor::compression::compress(Codec::Gzip, None, &inner[..inner.len() - 1], &mut gz).unwrap();
    let m = B::default().message(1, 1, &gz).0;
    assert!(decode_message_set(&Bytes::from(m), 0, 1 << 20).is_err());
}

#[test]
fn responses_decode_and_truncations_are_errors() {
    // OFFSETS: header, NUMBER_OFFSETS, OFFSETS.
    let body = B::default().i16(0).i32(3).i64(63).i64(21).i64(0).0;
    let r = OffsetsResponse::decode(&body).unwrap();
    assert_eq!(r.offsets, vec![63, 21, 0]);
    let enc = r.encode().unwrap();
    assert_eq!(enc, B::default().raw(&body).framed());
    for cut in 0..body.len() {
        assert!(OffsetsResponse::decode(&body[..cut]).is_err(), "cut {cut}");
    }
    assert!(OffsetsResponse::decode(&B::default().i16(0).i32(i32::MAX).0).is_err());
    assert!(OffsetsResponse::decode(&B::default().i16(0).i32(-1).0).is_err());
    // An error code alone.
    let r = OffsetsResponse::decode(&B::default().i16(3).0).unwrap();
    assert_eq!(r.error, ErrorCode07::WRONG_PARTITION);

    // MULTIFETCH: outer header, then each part's length, error code, messages.
    let m = B::default().message(1, 0, b"m").0;
    let body = B::default()
        .i16(0)
        .i32(2 + m.len() as i32)
        .i16(0)
        .raw(&m)
        .i32(2)
        .i16(3)
        .0;
    let r = MultiFetchResponse::decode(&Bytes::from(body.clone())).unwrap();
    assert_eq!(r.parts.len(), 2);
    assert_eq!(&r.parts[0].messages[..], &m[..]);
    assert_eq!(r.parts[1].error, ErrorCode07::WRONG_PARTITION);
    assert_eq!(r.encode().unwrap(), B::default().raw(&body).framed());
    let boundaries = [2, 8 + m.len(), body.len()];
    for cut in 0..body.len() {
        let res = MultiFetchResponse::decode(&Bytes::from(body[..cut].to_vec()));
        assert_eq!(res.is_ok(), boundaries.contains(&cut), "cut {cut}");
    }

    // FETCH: only the error code is required.
    assert!(FetchResponse::decode(&Bytes::from(vec![0u8])).is_err());
    let r = FetchResponse::decode(&Bytes::from(B::default().i16(1).0)).unwrap();
    assert_eq!(r.error, ErrorCode07::OFFSET_OUT_OF_RANGE);
}

#[test]
fn error_codes_are_the_driver_guides() {
    let table = [
        (ErrorCode07::UNKNOWN, -1, "Unknown"),
        (ErrorCode07::NO_ERROR, 0, "NoError"),
        (ErrorCode07::OFFSET_OUT_OF_RANGE, 1, "OffsetOutOfRange"),
        (ErrorCode07::INVALID_MESSAGE, 2, "InvalidMessage"),
        (ErrorCode07::WRONG_PARTITION, 3, "WrongPartition"),
        (ErrorCode07::INVALID_FETCH_SIZE, 4, "InvalidFetchSize"),
    ];
    for (c, v, name) in table {
        assert_eq!(c.0, v);
        assert_eq!(c.name(), name);
        match c.check("ctx") {
            Ok(()) => assert_eq!(v, 0),
            Err(e) => {
                assert_eq!(e.code(), v as i32);
                assert!(e.to_string().contains(name), "{e}");
            }
        }
    }
}

// ----- end to end against the scripted 0.7 broker -----

#[test]
fn produce_then_fetch_with_byte_offsets() {
    let b = Broker07::start(2);
    let c = client(&b);
    c.produce("dogs", 1, &[b"a", b"bb", b"ccc"]).unwrap();
    // What the broker stored is exactly the seed's message layout.
    let want = B::default()
        .message(1, 0, b"a")
        .message(1, 0, b"bb")
        .message(1, 0, b"ccc")
        .0;
    let r = c.fetch("dogs", 1, 0, 1 << 20).unwrap();
    assert_eq!(b.log_bytes("dogs", 1), want);
    // And the request on the wire was the driver guide's PRODUCE.
    let produce = B::default()
        .i16(0)
        .topic("dogs")
        .i32(1)
        .i32(want.len() as i32)
        .raw(&want)
        .0;
    assert_eq!(b.received.lock().unwrap()[0], produce);

    assert_eq!(
        payloads(&r),
        vec![b"a".to_vec(), b"bb".to_vec(), b"ccc".to_vec()]
    );
    // next offset = offset + 4 + LENGTH: 0 → 11 → 23 → 36.
    let offs: Vec<(i64, i64)> = r
        .messages
        .iter()
        .map(|m| (m.offset, m.next_offset))
        .collect();
    assert_eq!(offs, vec![(0, 11), (11, 23), (23, 36)]);
    assert_eq!((r.next_offset, r.bytes, r.partial_bytes), (36, 36, 0));
    assert_eq!(c.latest_offset("dogs", 1).unwrap(), 36);
    assert_eq!(c.earliest_offset("dogs", 1).unwrap(), 0);

    // Continue from a message boundary.
    let r = c.fetch("dogs", 1, 23, 1 << 20).unwrap();
    assert_eq!(payloads(&r), vec![b"ccc".to_vec()]);
    // At the end: nothing, no error.
    let r = c.fetch("dogs", 1, 36, 1 << 20).unwrap();
    assert!(r.messages.is_empty());
    assert_eq!(r.next_offset, 36);
    // The other partition has no log yet: empty.
    assert!(c.fetch("dogs", 0, 0, 100).unwrap().messages.is_empty());
}

#[test]
fn fetch_that_ends_mid_message_resumes_at_the_boundary() {
    let b = Broker07::start(1);
    let c = client(&b);
    c.produce("t", 0, &[b"a", b"bb", b"ccc"]).unwrap();
    // 20 bytes: the 11-byte message, then 9 of the 12-byte one.
    let r = c.fetch("t", 0, 0, 20).unwrap();
    assert_eq!(payloads(&r), vec![b"a".to_vec()]);
    assert_eq!((r.bytes, r.partial_bytes, r.next_offset), (20, 9, 11));
    let mut offset = 0;
    let mut all = Vec::new();
    while offset < 36 {
        let r = c.fetch("t", 0, offset, 14).unwrap();
        assert!(r.partial_bytes > 0 || r.next_offset == 36);
        all.extend(payloads(&r));
        offset = r.next_offset;
    }
    assert_eq!(all, vec![b"a".to_vec(), b"bb".to_vec(), b"ccc".to_vec()]);
}

#[test]
fn fetch_smaller_than_the_message_is_invalid_fetch_size() {
    let b = Broker07::start(1);
    let c = client(&b);
    c.produce("t", 0, &[&[7u8; 100][..]]).unwrap();
    for max in [3, 4, 50, 109] {
        let e = c.fetch("t", 0, 0, max).unwrap_err();
        assert_eq!(e.code(), 4, "max {max}: {e}");
        assert!(e.to_string().contains("InvalidFetchSize"), "{e}");
    }
    let r = c.fetch("t", 0, 0, 110).unwrap();
    assert_eq!(r.messages[0].payload.len(), 100);
}

#[test]
fn broker_error_codes_reach_the_caller() {
    let b = Broker07::start(2);
    let c = client(&b);
    c.produce("t", 0, &[b"x"]).unwrap();
    // OffsetOutOfRange: past the end, and before the start.
    for off in [12, 1000, -1] {
        let e = c.fetch("t", 0, off, 100).unwrap_err();
        assert_eq!(e.code(), 1, "{off}: {e}");
        assert!(e.to_string().contains("OffsetOutOfRange"), "{e}");
    }
    // WrongPartition: outside 0..2.
    for p in [2, 7, -3] {
        let e = c.fetch("t", p, 0, 100).unwrap_err();
        assert_eq!(e.code(), 3, "{p}: {e}");
        assert!(e.to_string().contains("WrongPartition"), "{e}");
    }
    // Unknown: what a 0.7 broker answers when the read itself throws.
    let e = c.fetch("t", 0, 0, -1).unwrap_err();
    assert_eq!(e.code(), -1, "{e}");
    // The connection survived all of these.
    assert_eq!(b.connections.load(Ordering::SeqCst), 1);
    assert_eq!(c.fetch("t", 0, 0, 100).unwrap().messages.len(), 1);
}

#[test]
fn compressed_sets_end_to_end() {
    let b = Broker07::start(1);
    for (codec, attr) in [(Codec::Gzip, 1u8), (Codec::Snappy, 2)] {
        let topic = format!("c-{codec}");
        let opts = Options {
            compression: codec,
            ..Options::default()
        };
        let c = Client::connect(&b.addr, opts).unwrap();
        c.produce(&topic, 0, &[b"m1", b"m2", b"m3"]).unwrap();
        c.produce(&topic, 0, &[b"m4"]).unwrap();
        // PRODUCE has no response: a request that has one marks when the
        // broker has handled what came before it on the connection.
        c.latest_offset(&topic, 0).unwrap();
        let log = b.log_bytes(&topic, 0);
        // The broker sees one wrapper per set: MAGIC 1, COMPRESSION = codec.
        let first = i32::from_be_bytes(log[..4].try_into().unwrap()) as i64 + 4;
        assert_eq!((log[4], log[5]), (1, attr));
        let r = c.fetch(&topic, 0, 0, 1 << 20).unwrap();
        assert_eq!(
            payloads(&r),
            vec![
                b"m1".to_vec(),
                b"m2".to_vec(),
                b"m3".to_vec(),
                b"m4".to_vec()
            ]
        );
        // Offsets exist only at wrapper boundaries.
        let offs: Vec<i64> = r.messages.iter().map(|m| m.offset).collect();
        assert_eq!(offs, vec![0, 0, 0, first]);
        assert!(r.messages[..3].iter().all(|m| m.next_offset == first));
        assert!(r.messages.iter().all(|m| m.compression == codec));
        assert_eq!(r.next_offset, log.len() as i64);
        // A fetch cut inside the second wrapper returns the first set whole.
        let r = c.fetch(&topic, 0, 0, first as i32 + 5).unwrap();
        assert_eq!(r.messages.len(), 3);
        assert_eq!(r.next_offset, first);
        // An offset inside the wrapper is not a message boundary: the bytes
        // there do not parse as a message, and the fetch fails cleanly.
        for inside in [4, 10, first - 1] {
            assert!(c.fetch(&topic, 0, inside, 1 << 20).is_err(), "{inside}");
        }
        // Resuming at the boundary gets the rest; the latest offset agrees.
        let r = c.fetch(&topic, 0, first, 1 << 20).unwrap();
        assert_eq!(payloads(&r), vec![b"m4".to_vec()]);
        assert_eq!(c.latest_offset(&topic, 0).unwrap(), log.len() as i64);
    }
}

#[test]
fn magic_0_messages_end_to_end() {
    let b = Broker07::start(1);
    let opts = Options {
        magic: 0,
        ..Options::default()
    };
    let c = Client::connect(&b.addr, opts).unwrap();
    c.produce("old", 0, &[b"from 0.6"]).unwrap();
    c.latest_offset("old", 0).unwrap();
    assert_eq!(
        b.log_bytes("old", 0),
        B::default().message(0, 0, b"from 0.6").0
    );
    let r = c.fetch("old", 0, 0, 100).unwrap();
    assert_eq!((r.messages[0].magic, r.next_offset), (0, 17));
    // Compression with magic 0 is refused before anything is sent.
    let bad = Options {
        magic: 0,
        compression: Codec::Gzip,
        ..Options::default()
    };
    assert!(Client::connect(&b.addr, bad).is_err());
}

#[test]
fn multi_produce_and_multi_fetch() {
    let b = Broker07::start(2);
    let c = client(&b);
    c.multi_produce(&[
        ProduceSet {
            topic: "dogs",
            partition: 0,
            payloads: &[b"rex", b"fido"],
        },
        ProduceSet {
            topic: "mutts",
            partition: 1,
            payloads: &[b"spot"],
        },
    ])
    .unwrap();
    let f = |t: &str, p, o| FetchRequest {
        topic: t.into(),
        partition: p,
        offset: o,
        max_size: 1000,
    };
    let res = c
        .multi_fetch(&[
            f("dogs", 0, 0),
            f("mutts", 1, 0),
            f("mutts", 5, 0),
            f("dogs", 0, 999),
        ])
        .unwrap();
    assert_eq!(res.len(), 4);
    let r0 = res[0].as_ref().unwrap();
    assert_eq!(payloads(r0), vec![b"rex".to_vec(), b"fido".to_vec()]);
    assert_eq!(payloads(res[1].as_ref().unwrap()), vec![b"spot".to_vec()]);
    assert_eq!(res[2].as_ref().unwrap_err().code(), 3);
    assert_eq!(res[3].as_ref().unwrap_err().code(), 1);
    // The MULTIPRODUCE on the wire: type 3, count 2, then each set.
    let got = b.received.lock().unwrap()[0].clone();
    assert_eq!(&got[..4], &[0, 3, 0, 2]);
}

#[test]
fn offsets_before_a_time_follow_the_segment_list() {
    let b = Broker07::start(1);
    let c = client(&b);
    // Each 21-byte message overflows a 20-byte segment, so each rolls one.
    b.set_segment_bytes(20);
    for (i, t) in [1000, 2000, 3000].into_iter().enumerate() {
        b.set_clock(t);
        c.produce("seg", 0, &[format!("abcdefghi{i}x").as_bytes()])
            .unwrap();
        // Handled before the clock moves (PRODUCE itself has no response).
        c.latest_offset("seg", 0).unwrap();
    }
    // Make sure the broker has handled the produce requests.
    assert_eq!(c.latest_offset("seg", 0).unwrap(), 63);
    assert_eq!(b.segment_starts("seg", 0), vec![0, 21, 42, 63]);
    b.set_clock(4000);
    // Descending, at most MAX_NUMBER; earliest is one element.
    assert_eq!(
        c.offsets_before("seg", 0, -1, 10).unwrap(),
        vec![63, 42, 21, 0]
    );
    assert_eq!(c.offsets_before("seg", 0, -1, 2).unwrap(), vec![63, 42]);
    assert_eq!(c.offsets_before("seg", 0, -2, 10).unwrap(), vec![0]);
    // Before 2500: segments last written at or before then.
    assert_eq!(c.offsets_before("seg", 0, 2500, 10).unwrap(), vec![21, 0]);
    assert_eq!(
        c.offsets_before("seg", 0, 500, 10).unwrap(),
        Vec::<i64>::new()
    );
    assert_eq!(
        c.offsets_before("seg", 0, -1, 0).unwrap(),
        Vec::<i64>::new()
    );
    // A non-empty active segment adds the high water mark, stamped "now".
    b.set_segment_bytes(1000);
    c.produce("seg", 0, &[b"x"]).unwrap();
    b.set_clock(5000);
    assert_eq!(
        c.offsets_before("seg", 0, -1, 10).unwrap(),
        vec![74, 63, 42, 21, 0]
    );
    assert_eq!(
        c.offsets_before("seg", 0, 3500, 10).unwrap(),
        vec![42, 21, 0]
    );
    // A partition with no log: [0] for latest and earliest, nothing otherwise.
    assert_eq!(c.offsets_before("none", 0, -1, 10).unwrap(), vec![0]);
    assert_eq!(c.offsets_before("none", 0, -2, 10).unwrap(), vec![0]);
    assert!(c.offsets_before("none", 0, 123, 10).unwrap().is_empty());
    assert!(c.offsets_before("seg", 0, -1, -1).is_err());
}

#[test]
fn broker_that_closes_the_connection_is_a_transport_error_then_reconnects() {
    let b = Broker07::start(1);
    let c = client(&b);
    c.produce("t", 0, &[b"ok"]).unwrap();
    // A message with a wrong CHECKSUM: a 0.7 broker throws InvalidMessage and
    // drops the connection; PRODUCE has no response, so the next call sees it.
    let mut bad = B::default().message(1, 0, b"corrupt").0;
    *bad.last_mut().unwrap() ^= 0xff;
    c.produce_raw(ProduceRequest {
        topic: "t".into(),
        partition: 0,
        messages: Bytes::from(bad),
    })
    .unwrap();
    let e = c.fetch("t", 0, 0, 100).unwrap_err();
    assert_eq!(e.code(), local::TRANSPORT, "{e}");
    // Nothing of the bad set was appended; the client connects again.
    let r = c.fetch("t", 0, 0, 100).unwrap();
    assert_eq!(payloads(&r), vec![b"ok".to_vec()]);
    assert_eq!(b.connections.load(Ordering::SeqCst), 2);
    // OFFSETS for a partition the broker does not have: it drops the connection too.
    let e = c.offsets_before("t", 9, -1, 1).unwrap_err();
    assert_eq!(e.code(), local::TRANSPORT, "{e}");
    assert_eq!(c.latest_offset("t", 0).unwrap(), 12);
}

#[test]
fn local_limits_are_errors_before_sending() {
    let b = Broker07::start(1);
    let opts = Options {
        max_message_size: 10,
        ..Options::default()
    };
    let c = Client::connect(&b.addr, opts).unwrap();
    let e = c.produce("t", 0, &[&[0u8; 11][..]]).unwrap_err();
    assert_eq!(e.code(), 10, "{e}");
    assert!(c.produce("", 0, &[b"x"]).is_err());
    // A response over max_response_bytes is refused before it is read.
    let small = Options {
        max_response_bytes: 16,
        ..Options::default()
    };
    let c2 = Client::connect(&b.addr, small).unwrap();
    c2.produce("t", 0, &[&[1u8; 30][..]]).unwrap();
    let e = c2.fetch("t", 0, 0, 1000).unwrap_err();
    assert_eq!(e.code(), local::BAD_MSG, "{e}");
    assert!(b.received.lock().unwrap().len() == 2);
    // Nothing listening.
    let dead = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = dead.local_addr().unwrap().to_string();
    drop(dead);
    assert_eq!(
        Client::connect(&addr, Options::default())
            .unwrap_err()
            .code(),
        local::TRANSPORT
    );
}

// ----- ZooKeeper registry -----

#[test]
fn registry_parses_the_0_7_registration_format() {
    let b = gregor::legacy07::zk::parse_broker_registration(
        2,
        "10.0.0.12-1324306324402:10.0.0.12:9092",
    )
    .unwrap();
    assert_eq!(
        (b.id, b.creator.as_str(), b.host.as_str(), b.port),
        (2, "10.0.0.12-1324306324402", "10.0.0.12", 9092)
    );
    assert_eq!(b.addr(), "10.0.0.12:9092");
    let v6 = gregor::legacy07::zk::parse_broker_registration(1, "c:::1:9092").unwrap();
    assert_eq!(
        (v6.host.as_str(), v6.addr()),
        ("::1", "[::1]:9092".to_string())
    );
    for bad in [
        "",
        "host",
        "c:host",
        "c:host:0",
        "c::9092",
        "c:h:99999",
        "c:h:x",
    ] {
        assert!(
            gregor::legacy07::zk::parse_broker_registration(1, bad).is_err(),
            "{bad:?}"
        );
    }
}

#[test]
fn registry_discovers_brokers_and_topics() {
    if !common::zookeeper_up() {
        return;
    }
    let zk = zk_chroot();
    let b1 = Broker07::start_registered(4, &zk, 1);
    let b2 = Broker07::start_registered(2, &zk, 2);
    let mut reg = Registry::connect(&zk, Duration::from_secs(10)).unwrap();
    let brokers = reg.brokers().unwrap();
    assert_eq!(brokers.len(), 2);
    assert_eq!((brokers[0].id, brokers[0].port), (1, b1.port));
    assert_eq!((brokers[1].id, brokers[1].port), (2, b2.port));
    assert_eq!(brokers[0].host, "127.0.0.1");

    // A topic no broker has: partition 0 on every broker (the driver guide's rule).
    let bp = |broker_id, partition| BrokerPartition {
        broker_id,
        partition,
    };
    assert!(reg.registered_partitions("dogs").unwrap().is_empty());
    assert_eq!(
        reg.producer_partitions("dogs").unwrap(),
        vec![bp(1, 0), bp(2, 0)]
    );

    // Writing to broker 1 creates the topic there; it registers 4 partitions
    // and the watch makes the next look-up re-read.
    let c1 = client(&b1);
    c1.produce("dogs", 0, &[b"woof"]).unwrap();
    c1.latest_offset("dogs", 0).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !reg.is_stale() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(reg.is_stale(), "the registry watch fired");
    assert_eq!(
        reg.registered_partitions("dogs").unwrap(),
        vec![bp(1, 0), bp(1, 1), bp(1, 2), bp(1, 3)]
    );
    assert_eq!(
        reg.producer_partitions("dogs").unwrap(),
        vec![bp(1, 0), bp(1, 1), bp(1, 2), bp(1, 3), bp(2, 0)]
    );

    // Broker 2 leaves (its ephemeral node goes with its session).
    b2.state.lock().unwrap().unregister();
    let deadline = Instant::now() + Duration::from_secs(10);
    while reg.brokers().unwrap().len() != 1 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(reg.brokers().unwrap().len(), 1);
    assert_eq!(
        reg.producer_partitions("dogs").unwrap(),
        vec![bp(1, 0), bp(1, 1), bp(1, 2), bp(1, 3)]
    );
}

#[test]
fn registry_errors() {
    if !common::zookeeper_up() {
        return;
    }
    // An empty registry.
    let zk = zk_chroot();
    let e = Registry::connect(&zk, Duration::from_secs(5)).unwrap_err();
    assert_eq!(e.code(), local::ALL_BROKERS_DOWN, "{e}");
    // A malformed registration.
    let s = server::zk_session(&zk);
    server::ensure_path(&s, "/brokers/ids");
    s.create(
        "/brokers/ids/7",
        b"no-port-here".to_vec(),
        zookeeper::Acl::open_unsafe().clone(),
        zookeeper::CreateMode::Ephemeral,
    )
    .unwrap();
    let e = Registry::connect(&zk, Duration::from_secs(5)).unwrap_err();
    assert_eq!(e.code(), local::BAD_MSG, "{e}");
    assert!(e.to_string().contains("/brokers/ids/7"), "{e}");
    // No ZooKeeper at all: an error within the timeout, not a hang.
    let dead = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = dead.local_addr().unwrap().to_string();
    drop(dead);
    let t = Instant::now();
    let e = Registry::connect(&addr, Duration::from_secs(2)).unwrap_err();
    assert!(t.elapsed() < Duration::from_secs(6), "{:?}", t.elapsed());
    assert!(e.code() < 0, "{e}");
}

#[test]
fn producer_sends_new_topics_to_partition_0_then_spreads() {
    if !common::zookeeper_up() {
        return;
    }
    let zk = zk_chroot();
    let b1 = Broker07::start_registered(3, &zk, 1);
    let b2 = Broker07::start_registered(2, &zk, 2);
    let p = Producer07::new(&zk, Duration::from_secs(10), Options::default()).unwrap();
    let topic = "cats";
    // New topic: partition 0 of each broker, round robin without a key.
    let a = p.send(topic, None, &[b"first"]).unwrap();
    let b = p.send(topic, None, &[b"second"]).unwrap();
    let mut got = vec![(a.broker_id, a.partition), (b.broker_id, b.partition)];
    got.sort();
    assert_eq!(got, vec![(1, 0), (2, 0)]);
    let c1 = client(&b1);
    let c2 = client(&b2);
    // The producer's connections are not these: wait for the brokers to log it.
    eventually(|| c1.latest_offset(topic, 0).unwrap() > 0);
    eventually(|| c2.latest_offset(topic, 0).unwrap() > 0);
    // Both brokers now list the topic: 3 + 2 partitions.
    let deadline = Instant::now() + Duration::from_secs(10);
    while p.partitions(topic).unwrap().len() != 5 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(p.partitions(topic).unwrap().len(), 5);
    // A key always lands on the same partition; keys spread over all five.
    let k = p.send(topic, Some(b"key-1"), &[b"k"]).unwrap();
    assert_eq!(p.send(topic, Some(b"key-1"), &[b"k"]).unwrap(), k);
    let mut seen = std::collections::HashSet::new();
    for i in 0..200 {
        seen.insert(
            p.send(topic, Some(format!("key-{i}").as_bytes()), &[b"v"])
                .unwrap(),
        );
    }
    assert_eq!(seen.len(), 5);
    // Everything sent is on the brokers.
    eventually(|| {
        let mut n = 0;
        for (c, parts) in [(&c1, 3), (&c2, 2)] {
            for part in 0..parts {
                let mut off = 0;
                loop {
                    let r = c.fetch(topic, part, off, 1 << 20).unwrap();
                    if r.messages.is_empty() {
                        break;
                    }
                    n += r.messages.len();
                    off = r.next_offset;
                }
            }
        }
        n == 2 + 2 + 200
    });
}

/// Waits up to 10 s for `f` to hold.
fn eventually(mut f: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !f() {
        assert!(Instant::now() < deadline, "condition not met within 10 s");
        std::thread::sleep(Duration::from_millis(20));
    }
}

// ----- the C API -----

mod c_api {
    use super::*;
    use gregor::ffi::*;
    use std::ffi::{c_char, CStr, CString};
    use std::ptr;

    fn errbuf() -> [c_char; 512] {
        [0; 512]
    }

    fn text(e: &[c_char]) -> String {
        unsafe { CStr::from_ptr(e.as_ptr()) }
            .to_string_lossy()
            .into_owned()
    }

    #[test]
    fn produce_fetch_offsets_and_errors_through_c() {
        let b = Broker07::start(2);
        let addr = CString::new(b.addr.clone()).unwrap();
        let topic = CString::new("ctopic").unwrap();
        let mut err = errbuf();
        let c = gregor_legacy07_client_new(
            addr.as_ptr(),
            GREGOR_LEGACY07_CODEC_GZIP,
            1,
            5000,
            err.as_mut_ptr(),
            err.len(),
        );
        assert!(!c.is_null(), "{}", text(&err));
        let msgs: [&[u8]; 3] = [b"one", b"two", b"three"];
        let ptrs: Vec<*const u8> = msgs.iter().map(|m| m.as_ptr()).collect();
        let lens: Vec<usize> = msgs.iter().map(|m| m.len()).collect();
        let rc = gregor_legacy07_produce(
            c,
            topic.as_ptr(),
            1,
            ptrs.as_ptr(),
            lens.as_ptr(),
            3,
            err.as_mut_ptr(),
            err.len(),
        );
        assert_eq!(rc, 0, "{}", text(&err));

        let mut offs = [0i64; 4];
        let mut n = 0usize;
        let rc = gregor_legacy07_offsets(
            c,
            topic.as_ptr(),
            1,
            GREGOR_LEGACY07_TIME_LATEST,
            4,
            offs.as_mut_ptr(),
            &mut n,
            err.as_mut_ptr(),
            err.len(),
        );
        assert_eq!(rc, 0, "{}", text(&err));
        // Latest first: the high water mark, then the segment start.
        assert_eq!(n, 2);
        let end = offs[0];
        assert!(end > 0);
        assert_eq!(offs[1], 0);

        let mut f = ptr::null_mut();
        let rc = gregor_legacy07_fetch(
            c,
            topic.as_ptr(),
            1,
            0,
            1 << 20,
            &mut f,
            err.as_mut_ptr(),
            err.len(),
        );
        assert_eq!(rc, 0, "{}", text(&err));
        assert_eq!(gregor_legacy07_fetched_count(f), 3);
        for (i, m) in msgs.iter().enumerate() {
            let s = gregor_legacy07_fetched_payload(f, i);
            assert_eq!(unsafe { std::slice::from_raw_parts(s.ptr, s.len) }, *m);
            assert_eq!(gregor_legacy07_fetched_offset(f, i), 0);
            assert_eq!(gregor_legacy07_fetched_next_offset(f, i), end);
            assert_eq!(
                gregor_legacy07_fetched_codec(f, i),
                GREGOR_LEGACY07_CODEC_GZIP
            );
        }
        assert_eq!(gregor_legacy07_fetched_next_fetch_offset(f), end);
        assert!(gregor_legacy07_fetched_payload(f, 3).ptr.is_null());
        assert_eq!(gregor_legacy07_fetched_offset(f, 3), -1);
        gregor_legacy07_fetched_free(f);

        // OffsetOutOfRange and WrongPartition come through as 1 and 3.
        let mut f = ptr::null_mut();
        let rc = gregor_legacy07_fetch(
            c,
            topic.as_ptr(),
            1,
            end + 1,
            100,
            &mut f,
            err.as_mut_ptr(),
            err.len(),
        );
        assert_eq!(rc, 1);
        assert!(text(&err).contains("OffsetOutOfRange"));
        assert!(f.is_null(), "out-parameter untouched on error");
        let rc = gregor_legacy07_fetch(
            c,
            topic.as_ptr(),
            9,
            0,
            100,
            &mut f,
            err.as_mut_ptr(),
            err.len(),
        );
        assert_eq!(rc, 3);
        // NULLs are errors, not crashes.
        let rc = gregor_legacy07_fetch(
            ptr::null(),
            topic.as_ptr(),
            0,
            0,
            1,
            &mut f,
            err.as_mut_ptr(),
            err.len(),
        );
        assert_eq!(rc, GREGOR_ERR__INVALID_ARG);
        let rc = gregor_legacy07_produce(
            c,
            topic.as_ptr(),
            0,
            ptr::null(),
            ptr::null(),
            2,
            err.as_mut_ptr(),
            err.len(),
        );
        assert_eq!(rc, GREGOR_ERR__INVALID_ARG);
        assert!(
            gregor_legacy07_client_new(ptr::null(), 0, 1, 0, err.as_mut_ptr(), err.len()).is_null()
        );
        assert!(
            gregor_legacy07_client_new(addr.as_ptr(), 7, 1, 0, err.as_mut_ptr(), err.len())
                .is_null()
        );
        assert!(
            gregor_legacy07_client_new(addr.as_ptr(), 1, 0, 0, err.as_mut_ptr(), err.len())
                .is_null()
        );

        // MULTIPRODUCE then MULTIFETCH with one bad entry.
        let pl = gregor_legacy07_produce_list_new();
        let t2 = CString::new("other").unwrap();
        assert_eq!(
            gregor_legacy07_produce_list_add(pl, t2.as_ptr(), 0, ptrs.as_ptr(), lens.as_ptr(), 2),
            0
        );
        assert_eq!(
            gregor_legacy07_multi_produce(c, pl, err.as_mut_ptr(), err.len()),
            0
        );
        gregor_legacy07_produce_list_free(pl);
        let fl = gregor_legacy07_fetch_list_new();
        assert_eq!(
            gregor_legacy07_fetch_list_add(fl, t2.as_ptr(), 0, 0, 1000),
            0
        );
        assert_eq!(
            gregor_legacy07_fetch_list_add(fl, t2.as_ptr(), 5, 0, 1000),
            0
        );
        let mut mf = ptr::null_mut();
        assert_eq!(
            gregor_legacy07_multi_fetch(c, fl, &mut mf, err.as_mut_ptr(), err.len()),
            0,
            "{}",
            text(&err)
        );
        assert_eq!(gregor_legacy07_multi_fetched_count(mf), 2);
        assert_eq!(gregor_legacy07_multi_fetched_err(mf, 0), 0);
        let first = gregor_legacy07_multi_fetched_get(mf, 0);
        assert_eq!(gregor_legacy07_fetched_count(first), 2);
        assert_eq!(gregor_legacy07_multi_fetched_err(mf, 1), 3);
        assert!(gregor_legacy07_multi_fetched_get(mf, 1).is_null());
        let es = unsafe { CStr::from_ptr(gregor_legacy07_multi_fetched_errstr(mf, 1)) };
        assert!(es.to_str().unwrap().contains("WrongPartition"));
        gregor_legacy07_multi_fetched_free(mf);
        gregor_legacy07_fetch_list_free(fl);

        gregor_legacy07_client_free(c);
        gregor_legacy07_client_free(ptr::null_mut());
        gregor_legacy07_fetched_free(ptr::null_mut());
    }

    #[test]
    fn registry_and_producer_through_c() {
        if !common::zookeeper_up() {
            return;
        }
        let zk = zk_chroot();
        let b1 = Broker07::start_registered(2, &zk, 5);
        let zkc = CString::new(zk.clone()).unwrap();
        let mut err = errbuf();
        let r = gregor_legacy07_registry_new(zkc.as_ptr(), 10_000, err.as_mut_ptr(), err.len());
        assert!(!r.is_null(), "{}", text(&err));
        assert_eq!(gregor_legacy07_registry_broker_count(r), 1);
        assert_eq!(gregor_legacy07_registry_broker_id(r, 0), 5);
        assert_eq!(
            gregor_legacy07_registry_broker_port(r, 0),
            i32::from(b1.port)
        );
        let host = unsafe { CStr::from_ptr(gregor_legacy07_registry_broker_host(r, 0)) };
        assert_eq!(host.to_str().unwrap(), "127.0.0.1");
        let topic = CString::new("newtopic").unwrap();
        let (mut ids, mut parts, mut n) = ([0i32; 4], [0i32; 4], 0usize);
        let rc = gregor_legacy07_registry_partitions(
            r,
            topic.as_ptr(),
            ids.as_mut_ptr(),
            parts.as_mut_ptr(),
            4,
            &mut n,
            err.as_mut_ptr(),
            err.len(),
        );
        assert_eq!(rc, 0, "{}", text(&err));
        assert_eq!((n, ids[0], parts[0]), (1, 5, 0));
        gregor_legacy07_registry_free(r);

        let p = gregor_legacy07_producer_new(zkc.as_ptr(), 2, 1, 5000, err.as_mut_ptr(), err.len());
        assert!(!p.is_null(), "{}", text(&err));
        let m: &[u8] = b"via the registry";
        let (mut bid, mut part) = (-9, -9);
        let rc = gregor_legacy07_producer_send(
            p,
            topic.as_ptr(),
            ptr::null(),
            0,
            &m.as_ptr(),
            &m.len(),
            1,
            &mut bid,
            &mut part,
            err.as_mut_ptr(),
            err.len(),
        );
        assert_eq!(rc, 0, "{}", text(&err));
        assert_eq!((bid, part), (5, 0));
        let c = client(&b1);
        eventually(|| c.latest_offset("newtopic", 0).unwrap() > 0);
        let r = c.fetch("newtopic", 0, 0, 1000).unwrap();
        assert_eq!(payloads(&r), vec![m.to_vec()]);
        assert_eq!(r.messages[0].compression, Codec::Snappy);
        gregor_legacy07_producer_free(p);
        let bad = CString::new("127.0.0.1:1").unwrap();
        assert!(
            gregor_legacy07_registry_new(bad.as_ptr(), 1000, err.as_mut_ptr(), err.len()).is_null()
        );
        assert!(!text(&err).is_empty());
    }
}

// ----- the CLI -----

fn cli(args: &[&str]) -> (i32, String, String) {
    let args: Vec<&str> = ["legacy07"].iter().chain(args).copied().collect();
    let (rc, out, err) = common::run_gregor(&args);
    (
        rc,
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&err).into_owned(),
    )
}

#[test]
fn cli_produce_fetch_offsets() {
    let b = Broker07::start(2);
    let a = b.addr.as_str();
    let (rc, out, err) = cli(&[
        "produce", "-b", a, "-t", "t", "-p", "1", "-z", "snappy", "hello", "world",
    ]);
    assert_eq!(rc, 0, "{err}");
    assert!(out.contains("sent 2 message(s) to partition 1"), "{out}");
    let (rc, out, err) = cli(&[
        "produce", "-b", a, "-t", "t", "-p", "1", "--magic", "0", "--", "-dash",
    ]);
    assert_eq!(rc, 0, "{err}");
    let end: i64 = out.rsplit(' ').next().unwrap().trim().parse().unwrap();

    let (rc, out, err) = cli(&["fetch", "-b", a, "-t", "t", "-p", "1"]);
    assert_eq!(rc, 0, "{err}");
    assert_eq!(out, "hello\nworld\n-dash\n");
    // Offsets: both snappy messages share their wrapper's.
    let (rc, out, _) = cli(&[
        "fetch",
        "-b",
        a,
        "-t",
        "t",
        "-p",
        "1",
        "--offsets",
        "-s",
        "64",
    ]);
    assert_eq!(rc, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3);
    let o: Vec<Vec<&str>> = lines.iter().map(|l| l.split(' ').collect()).collect();
    assert_eq!((o[0][0], o[1][0]), ("0", "0"));
    assert_eq!(o[0][1], o[2][0]);
    assert_eq!(o[2][1], end.to_string());
    let (rc, out, _) = cli(&["fetch", "-b", a, "-t", "t", "-p", "1", "-c", "1"]);
    assert_eq!((rc, out.as_str()), (0, "hello\n"));
    let (rc, out, _) = cli(&["fetch", "-b", a, "-t", "t", "-p", "1", "-o", "end"]);
    assert_eq!((rc, out.as_str()), (0, ""));

    let (rc, out, _) = cli(&["offsets", "-b", a, "-t", "t", "-p", "1"]);
    assert_eq!((rc, out), (0, format!("{end}\n0\n")));
    let (rc, out, _) = cli(&["offsets", "-b", a, "-t", "t", "-p", "1", "-T", "earliest"]);
    assert_eq!((rc, out.as_str()), (0, "0\n"));

    // Broker errors exit 1 with the 0.7 name; usage errors exit 2.
    let (rc, _, err) = cli(&["fetch", "-b", a, "-t", "t", "-p", "7", "-o", "0"]);
    assert_eq!(rc, 1);
    assert!(err.contains("WrongPartition"), "{err}");
    // Without -o the CLI first asks OFFSETS, for which a 0.7 broker drops
    // the connection on a bad partition.
    let (rc, _, err) = cli(&["fetch", "-b", a, "-t", "t", "-p", "7"]);
    assert_eq!(rc, 1);
    assert!(err.contains("closed the connection"), "{err}");
    let (rc, _, err) = cli(&["fetch", "-b", a, "-t", "t", "-p", "1", "-o", "99999"]);
    assert_eq!(rc, 1);
    assert!(err.contains("OffsetOutOfRange"), "{err}");
    let (rc, _, err) = cli(&["fetch", "-b", a, "-t", "t", "-p", "1", "-s", "5"]);
    assert_eq!(rc, 1);
    assert!(err.contains("InvalidFetchSize"), "{err}");
    for bad in [
        &["frobnicate"][..],
        &[],
        &["fetch", "-t", "t"],
        &["produce", "-b", a, "-t", "t", "-z", "lz4", "x"],
        &["fetch", "-b", a, "-t", "t", "-p"],
        &["offsets", "-b", a, "-t", "t", "-n", "-1"],
        &["fetch", "-b", a, "-t", "t", "--bogus"],
        &["brokers"],
    ] {
        let (rc, _, err) = cli(bad);
        assert_eq!(rc, 2, "{bad:?}: {err}");
        assert!(err.contains("usage:"), "{bad:?}");
    }
    let (rc, _, err) = cli(&["--help"]);
    assert_eq!(rc, 2, "{err}");
}

#[test]
fn cli_with_zookeeper() {
    if !common::zookeeper_up() {
        return;
    }
    let zk = zk_chroot();
    let b = Broker07::start_registered(3, &zk, 4);
    let (rc, out, err) = cli(&["brokers", "-Z", &zk, "-t", "fresh"]);
    assert_eq!(rc, 0, "{err}");
    assert!(
        out.contains(&format!("broker 4 127.0.0.1:{}", b.port)),
        "{out}"
    );
    assert!(
        out.contains("topic fresh broker 4 partition 0 (not registered yet"),
        "{out}"
    );
    let (rc, out, err) = cli(&["produce", "-Z", &zk, "-t", "fresh", "-k", "k", "hi"]);
    assert_eq!(rc, 0, "{err}");
    assert!(out.contains("to broker 4 partition 0"), "{out}");
    let c = client(&b);
    eventually(|| c.latest_offset("fresh", 0).unwrap() > 0);
    eventually(|| {
        let (_, out, _) = cli(&["brokers", "-Z", &zk, "-t", "fresh"]);
        out.lines().filter(|l| l.starts_with("topic fresh")).count() == 3
    });
    let (rc, _, err) = cli(&["brokers", "-Z", "127.0.0.1:1", "--timeout", "1000"]);
    assert_eq!(rc, 1, "{err}");
}
