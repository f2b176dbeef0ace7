//! The producer against brokers older than Kafka 0.11, which no test broker
//! here is: a scripted broker on 127.0.0.1 that offers only Produce v0–v2
//! (Kafka 0.9/0.10) and checks what arrives. The batching producer must
//! write MessageSet v1 for Produce v2 and v0 for v0/v1, compressed as
//! configured, and refuse what those formats cannot carry (headers, zstd).

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use gregor::config::Config;
use gregor::error::local;
use gregor::message::ProducerRecord;
use gregor::producer::Producer;
use gregor::protocol::api_versions::{ApiVersion, ApiVersionsResponse};
use gregor::protocol::metadata::{
    MetadataResponse, MetadataResponseBroker, MetadataResponsePartition, MetadataResponseTopic,
};
use gregor::protocol::produce::{
    PartitionProduceResponse, ProduceRequest, ProduceResponse, TopicProduceResponse,
};
use gregor::protocol::{Message, RequestHeader, ResponseHeader};
use gregor::record::{DecodeOptions, RecordsReader};
use gregor::wire::{Bytes, Reader, Writer};

/// What the scripted broker saw: (magic, codec name, values) per batch.
type Seen = Arc<Mutex<Vec<(i8, String, Vec<String>)>>>;

fn respond(s: &mut TcpStream, corr: i32, body: &[u8]) {
    let mut w = Writer::new();
    let at = w.reserve_i32();
    ResponseHeader {
        correlation_id: corr,
        ..Default::default()
    }
    .encode(&mut w, 0)
    .unwrap();
    w.put(body);
    let n = w.len() as i32 - 4;
    w.patch_i32(at, n);
    s.write_all(w.as_slice()).unwrap();
}

fn serve(mut s: TcpStream, port: i32, produce_max: i16, seen: Seen) {
    loop {
        let mut size = [0u8; 4];
        if s.read_exact(&mut size).is_err() {
            return;
        }
        let mut buf = vec![0u8; i32::from_be_bytes(size) as usize];
        s.read_exact(&mut buf).unwrap();
        let mut r = Reader::new(&buf);
        let h = RequestHeader::decode(&mut r, 1).unwrap();
        match h.api_key {
            18 => {
                // a 0.10-era broker answers ApiVersions v0 only
                let mut resp = ApiVersionsResponse::default();
                resp.api_keys = [(0, 0, produce_max), (3, 0, 1), (18, 0, 0)]
                    .iter()
                    .map(|&(k, lo, hi)| {
                        let mut v = ApiVersion::default();
                        v.api_key = k;
                        v.min_version = lo;
                        v.max_version = hi;
                        v
                    })
                    .collect();
                let v = if h.api_version > 0 { 0 } else { h.api_version };
                if h.api_version > 0 {
                    resp.error_code = 35; // UNSUPPORTED_VERSION: the client retries at v0
                }
                respond(&mut s, h.correlation_id, &resp.to_bytes(v).unwrap());
            }
            3 => {
                let mut b = MetadataResponseBroker::default();
                b.node_id = 1;
                b.host = "127.0.0.1".into();
                b.port = port;
                let mut p = MetadataResponsePartition::default();
                p.leader_id = 1;
                p.replica_nodes = vec![1];
                p.isr_nodes = vec![1];
                let mut t = MetadataResponseTopic::default();
                t.name = Some("old".into());
                t.partitions = vec![p];
                let mut resp = MetadataResponse::default();
                resp.brokers = vec![b];
                resp.controller_id = 1;
                resp.topics = vec![t];
                respond(
                    &mut s,
                    h.correlation_id,
                    &resp.to_bytes(h.api_version).unwrap(),
                );
            }
            0 => {
                let req = ProduceRequest::decode(&mut r, h.api_version).unwrap();
                let records = req.topic_data[0].partition_data[0].records.clone().unwrap();
                let records = Bytes::from(records.to_vec());
                for b in RecordsReader::new(&records, DecodeOptions::default()) {
                    let b = b.unwrap();
                    let values = b
                        .records
                        .iter()
                        .map(|r| String::from_utf8(r.value.as_deref().unwrap().to_vec()).unwrap())
                        .collect();
                    seen.lock()
                        .unwrap()
                        .push((b.magic, b.codec.name().to_string(), values));
                }
                let mut p = PartitionProduceResponse::default();
                p.base_offset = 100;
                let mut t = TopicProduceResponse::default();
                t.name = "old".into();
                t.partition_responses = vec![p];
                let mut resp = ProduceResponse::default();
                resp.responses = vec![t];
                respond(
                    &mut s,
                    h.correlation_id,
                    &resp.to_bytes(h.api_version).unwrap(),
                );
            }
            k => panic!("unexpected api key {k}"),
        }
    }
}

fn old_broker(produce_max: i16) -> (String, Seen) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    let seen: Seen = Arc::default();
    let s2 = seen.clone();
    thread::spawn(move || {
        for s in l.incoming() {
            let seen = s2.clone();
            thread::spawn(move || serve(s.unwrap(), addr.port().into(), produce_max, seen));
        }
    });
    (addr.to_string(), seen)
}

fn producer(addr: &str, codec: &str) -> Producer {
    let cfg = Config::from_pairs([
        ("bootstrap.servers", addr),
        ("compression.type", codec),
        ("linger.ms", "20"),
    ])
    .unwrap();
    Producer::new(&cfg).unwrap()
}

#[test]
fn message_set_v1_for_produce_v2_and_v0_below_with_every_old_codec() {
    for (produce_max, magic) in [(2, 1), (1, 0), (0, 0)] {
        for codec in ["none", "gzip", "snappy", "lz4"] {
            let (addr, seen) = old_broker(produce_max);
            let p = producer(&addr, codec);
            // the reports carry the values sent (read from the records the
            // message set was made from)
            let reported = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
            let r2 = reported.clone();
            p.set_delivery_callback(Some(Box::new(move |dr| {
                let v = dr.value().map(|v| String::from_utf8_lossy(&v).into_owned());
                r2.lock().unwrap().push((v, dr.status));
            })));
            for v in ["a", "b", "c"] {
                p.send(
                    &ProducerRecord {
                        topic: "old",
                        partition: Some(0),
                        value: Some(v.as_bytes()),
                        ..Default::default()
                    },
                    0,
                )
                .unwrap();
            }
            p.flush(Duration::from_secs(10)).unwrap();
            let want: Vec<_> = ["a", "b", "c"]
                .iter()
                .map(|v| {
                    (
                        Some(v.to_string()),
                        gregor::producer::MessageStatus::Persisted,
                    )
                })
                .collect();
            assert_eq!(
                *reported.lock().unwrap(),
                want,
                "Produce v{produce_max} {codec}"
            );
            let seen = seen.lock().unwrap().clone();
            let values: Vec<String> = seen.iter().flat_map(|(_, _, v)| v.clone()).collect();
            assert_eq!(values, ["a", "b", "c"], "Produce v{produce_max} {codec}");
            assert!(
                seen.iter().all(|(m, c, _)| *m == magic && c == codec),
                "Produce v{produce_max} {codec}: {seen:?}"
            );
        }
    }
}

#[test]
fn headers_and_zstd_are_refused_for_old_brokers_with_a_clear_error() {
    let (addr, _) = old_broker(2);
    let p = producer(&addr, "none");
    let h: [(&str, Option<&[u8]>); 1] = [("h", Some(b"v"))];
    let e = p
        .send_sync(
            &ProducerRecord {
                topic: "old",
                partition: Some(0),
                value: Some(b"x"),
                headers: &h,
                ..Default::default()
            },
            Some(Duration::from_secs(10)),
        )
        .unwrap_err();
    assert_eq!(e.code(), local::UNSUPPORTED_FEATURE, "{e}");
    assert!(e.to_string().contains("headers"), "{e}");
    let p = producer(&addr, "zstd");
    let e = p
        .send_sync(
            &ProducerRecord {
                topic: "old",
                partition: Some(0),
                value: Some(b"x"),
                ..Default::default()
            },
            Some(Duration::from_secs(10)),
        )
        .unwrap_err();
    assert_eq!(e.code(), local::UNSUPPORTED_FEATURE, "{e}");
    assert!(e.to_string().contains("zstd"), "{e}");
}
