//! Writes the seed corpora of the fuzz targets (seeds/<target>/) from the
//! codecs' own samples (gregor's `samples` feature), the librdkafka captures
//! in testdata/ and typical ZooKeeper znodes, in each target's input layout
//! (see fuzz_targets/). Run by hand when the formats change, then commit
//! fuzz/seeds/:
//!
//!     cd fuzz && cargo run --example write_seeds

use std::fs;
use std::path::{Path, PathBuf};

use gregor::compression::{self, snappy, Codec};
use gregor::legacy07;
use gregor::protocol::codec::Ctx;
use gregor::protocol::consumer_protocol::*;
use gregor::protocol::sample::{Sample, Sampler};
use gregor::protocol::*;
use gregor::record::batch::RecordBatchBuilder;
use gregor::record::message_set::MessageSetBuilder;
use gregor::record::NO_TIMESTAMP;
use gregor::wire::{Bytes, Reader};

fn dir(target: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("seeds")
        .join(target);
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

fn put(d: &Path, name: &str, prefix: &[u8], body: &[u8]) {
    let mut v = prefix.to_vec();
    v.extend_from_slice(body);
    fs::write(d.join(name), v).unwrap();
}

fn versions<M: Message + Sample>(d: &Path, idx: usize, request: bool) {
    let name = std::any::type_name::<M>().rsplit("::").next().unwrap();
    for v in M::MIN_VERSION..=M::MAX_VERSION {
        let m = M::sample(&mut Sampler::new(7), Ctx::new(v, M::is_flexible(v)));
        let sel = (idx as u8) << 1 | u8::from(request);
        put(
            d,
            &format!("{name}_v{v}"),
            &[sel, (v - M::MIN_VERSION) as u8],
            &m.to_bytes(v).unwrap(),
        );
    }
}

fn pair<R: Request + Sample>(d: &Path, idx: usize)
where
    R::Response: Sample,
{
    versions::<R>(d, idx, true);
    versions::<R::Response>(d, idx, false);
}

/// Writes the seeds of every implemented API, in the fuzz target's order
/// (gregor's API list, key order); returns the API keys in that order.
macro_rules! apis {
    ($($key:literal $name:ident $($module:ident :: $request:ident)?,)*) => {
        fn write_apis(d: &Path) -> Vec<i16> {
            let mut keys = Vec::new();
            $($(
                pair::<$module::$request>(d, keys.len());
                keys.push($key);
            )?)*
            keys
        }
    };
}

gregor::kafka_apis!(apis);

/// The librdkafka captures: (name, whole frame).
fn captures() -> Vec<(String, Vec<u8>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/librdkafka");
    let mut out: Vec<_> = fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "bin"))
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (name, fs::read(&p).unwrap())
        })
        .collect();
    out.sort();
    out
}

fn record_sets() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for codec in Codec::ALL {
        let mut b = RecordBatchBuilder::new().base_offset(40);
        for i in 0..3u8 {
            b.append(
                1_700_000_000_000 + i64::from(i),
                Some(&[b'k', i]),
                Some(b"value value value"),
                &[("h", Some(b"v"))],
            )
            .unwrap();
        }
        out.push((
            format!("v2_{}", codec.name()),
            b.finish(codec, None).unwrap(),
        ));
        for magic in 0..=1i8 {
            if codec == Codec::Zstd {
                continue;
            }
            let mut m = MessageSetBuilder::new(magic).unwrap().base_offset(10);
            for i in 0..3u8 {
                let ts = if magic == 0 {
                    NO_TIMESTAMP
                } else {
                    1_700_000_000_000
                };
                m.append(ts, Some(&[b'k', i]), Some(b"value value value"))
                    .unwrap();
            }
            out.push((
                format!("v{magic}_{}", codec.name()),
                m.finish(codec, None).unwrap(),
            ));
        }
    }
    // A transaction marker (control batch).
    let mut b = RecordBatchBuilder::new()
        .producer(5, 0, 0)
        .transactional(true)
        .control(true);
    b.append(1, Some(&[0, 0, 0, 1]), Some(&[0, 0, 0, 0, 0, 0]), &[])
        .unwrap();
    out.push(("v2_control".into(), b.finish(Codec::None, None).unwrap()));
    out
}

fn main() {
    // protocol: the fuzz target's order (gregor::kafka_apis!, key order).
    let d = dir("protocol");
    let keys = write_apis(&d);
    let index = |key: i16| keys.iter().position(|k| *k == key).unwrap() as u8;
    // The captured frames: request header v2 / response header v1 skipped.
    for (name, frame) in captures() {
        let fetch = name.starts_with("fetch");
        let mut r = Reader::new(&frame[4..]);
        let (idx, version) = if fetch {
            ResponseHeader::decode(&mut r, 1).unwrap();
            (index(1), 16u8 - fetch::FetchResponse::MIN_VERSION as u8)
        } else {
            RequestHeader::decode(&mut r, 2).unwrap();
            (index(0), 10u8 - produce::ProduceRequest::MIN_VERSION as u8)
        };
        put(&d, &name, &[idx << 1 | u8::from(!fetch), version], r.rest());
    }

    // records: flags 0 (no CRC check, eager) and 3 (CRCs, lazy).
    let d = dir("records");
    let mut all = Vec::new();
    for (name, set) in record_sets() {
        put(&d, &name, &[0], &set);
        put(&d, &format!("{name}_lazy"), &[3], &set);
        all.extend_from_slice(&set);
    }
    put(&d, "mixed", &[1], &all);
    put(&d, "mixed_partial_tail", &[2], &all[..all.len() - 5]);
    for (name, frame) in captures()
        .into_iter()
        .filter(|(n, _)| n.starts_with("fetch"))
    {
        let mut r = Reader::new(&frame[4..]);
        ResponseHeader::decode(&mut r, 1).unwrap();
        let resp = fetch::FetchResponse::decode(&mut r, 16).unwrap();
        for t in resp.responses {
            for p in t.partitions {
                if let Some(rec) = p.records {
                    put(&d, &name, &[1], &rec);
                }
            }
        }
    }

    // decompress: byte 0 = codec | limit 1 MiB (7 << 3); round trips with 6.
    let d = dir("decompress");
    let text: Vec<u8> = b"kafka record batch offset "
        .iter()
        .cycle()
        .take(3000)
        .copied()
        .collect();
    for codec in Codec::ALL {
        let mut out = Vec::new();
        compression::compress(codec, None, &text, &mut out).unwrap();
        put(&d, codec.name(), &[codec.id() | 7 << 3], &out);
        put(
            &d,
            &format!("{}_small_limit", codec.name()),
            &[codec.id() | 4 << 3],
            &out,
        );
        put(
            &d,
            &format!("roundtrip_{}", codec.name()),
            &[6, codec.id(), 0],
            &text[..200],
        );
    }
    let mut raw = Vec::new();
    snappy::compress_raw(&text, &mut raw).unwrap();
    put(&d, "snappy_raw", &[2 | 7 << 3], &raw);
    let mut broken = Vec::new();
    compression::compress_for_magic(Codec::Lz4, 0, None, &text, &mut broken).unwrap();
    put(&d, "lz4_broken_checksum", &[5 | 7 << 3], &broken);

    // consumer_protocol
    let d = dir("consumer_protocol");
    for v in 0..=3i16 {
        let cx = Ctx::new(v, false);
        let s = ConsumerProtocolSubscription::sample(&mut Sampler::new(3), cx);
        put(
            &d,
            &format!("subscription_v{v}"),
            &[0],
            &encode_subscription(&s, v).unwrap(),
        );
        let a = ConsumerProtocolAssignment::sample(&mut Sampler::new(3), cx);
        put(
            &d,
            &format!("assignment_v{v}"),
            &[1],
            &encode_assignment(&a, v).unwrap(),
        );
    }

    // zk_json: byte 0 picks the parser (see fuzz/fuzz_targets/zk_json.rs).
    let d = dir("zk_json");
    let znodes: &[(u8, &str, &str)] = &[
        (
            0,
            "broker_v1",
            r#"{"jmx_port":-1,"timestamp":"1400000000000","host":"h","version":1,"port":9092}"#,
        ),
        (
            0,
            "broker_v2",
            r#"{"jmx_port":9999,"timestamp":"1400000000000","endpoints":["PLAINTEXT://h:9092","SSL://h:9093"],"host":"h","version":2,"port":9092}"#,
        ),
        (
            0,
            "broker_v4",
            r#"{"listener_security_protocol_map":{"INTERNAL":"PLAINTEXT","EXTERNAL":"SSL"},"endpoints":["INTERNAL://h:9092","EXTERNAL://[::1]:9093"],"rack":"r1","jmx_port":-1,"host":null,"timestamp":"1600000000000","port":-1,"version":4}"#,
        ),
        (
            0,
            "broker_v5",
            r#"{"features":{"metadata.version":{"min_version":1,"max_version":7}},"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},"endpoints":["PLAINTEXT://h:9092"],"jmx_port":-1,"host":"h","timestamp":"1","port":9092,"version":5}"#,
        ),
        (0, "broker_07_in_json_slot", "creator-1:h:9092"),
        (1, "broker_07", "10.0.0.1-1400000000000:10.0.0.1:9092"),
        (1, "broker_07_v6", "c:fe80::1:9092"),
        (
            2,
            "topic_v3",
            r#"{"version":3,"topic_id":"AAAAAAAAAAAAAAAAAAAAAA","partitions":{"0":[1,2],"1":[2,1]},"adding_replicas":{"0":[3]},"removing_replicas":{}}"#,
        ),
        (2, "topic_v1", r#"{"version":1,"partitions":{"0":[1]}}"#),
        (
            3,
            "state",
            r#"{"controller_epoch":3,"leader":1,"version":1,"leader_epoch":7,"isr":[1,2]}"#,
        ),
        (
            4,
            "controller",
            r#"{"version":1,"brokerid":1,"timestamp":"1600000000000"}"#,
        ),
        (5, "controller_epoch", "12"),
        (6, "cluster_id", r#"{"version":"1","id":"abcDEF"}"#),
        (
            7,
            "reassign",
            r#"{"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1,2]}]}"#,
        ),
        (
            8,
            "isr_change",
            r#"{"version":1,"partitions":[{"topic":"t","partition":0}]}"#,
        ),
        (
            9,
            "topic_config",
            r#"{"version":1,"config":{"retention.ms":"1000","cleanup.policy":"compact"}}"#,
        ),
        (
            10,
            "config_change_v2",
            r#"{"version":2,"entity_path":"topics/t"}"#,
        ),
        (
            10,
            "config_change_v1",
            r#"{"version":1,"entity_type":"topics","entity_name":"t"}"#,
        ),
        (
            11,
            "member",
            r#"{"version":1,"subscription":{"t":2},"pattern":"white_list","timestamp":"1600000000000"}"#,
        ),
        (12, "offset", "42"),
    ];
    for (sel, name, json) in znodes {
        put(&d, name, &[*sel], json.as_bytes());
    }

    // legacy07: byte 0 = 0 message set, 1 FETCH, 2 MULTIFETCH, 3 OFFSETS, 4 a request.
    let d = dir("legacy07");
    let payloads: &[&[u8]] = &[b"one", b"two two", b"three three three"];
    for (magic, codec) in [
        (0, Codec::None),
        (1, Codec::None),
        (1, Codec::Gzip),
        (1, Codec::Snappy),
        (0, Codec::Gzip),
    ] {
        let Ok(set) = legacy07::message::encode_message_set(payloads, magic, codec) else {
            continue;
        };
        put(&d, &format!("set_m{magic}_{}", codec.name()), &[0], &set);
        let f = legacy07::protocol::FetchResponse {
            error: legacy07::protocol::ErrorCode07(0),
            messages: Bytes::from(set.clone()),
        };
        let enc = f.encode().unwrap();
        put(
            &d,
            &format!("fetch_m{magic}_{}", codec.name()),
            &[1],
            &enc[4..],
        );
        let mf = legacy07::protocol::MultiFetchResponse {
            error: legacy07::protocol::ErrorCode07(0),
            parts: vec![f.clone(), f],
        };
        let enc = mf.encode().unwrap();
        put(
            &d,
            &format!("multifetch_m{magic}_{}", codec.name()),
            &[2],
            &enc[4..],
        );
    }
    let o = legacy07::protocol::OffsetsResponse {
        error: legacy07::protocol::ErrorCode07(0),
        offsets: vec![0, 100, 2000],
    };
    put(&d, "offsets", &[3], &o.encode().unwrap()[4..]);
    let reqs = [
        legacy07::protocol::Request::Fetch(legacy07::protocol::FetchRequest {
            topic: "t".into(),
            partition: 0,
            offset: 0,
            max_size: 1 << 20,
        }),
        legacy07::protocol::Request::Produce(legacy07::protocol::ProduceRequest {
            topic: "t".into(),
            partition: 1,
            messages: Bytes::from(
                legacy07::message::encode_message_set(payloads, 1, Codec::None).unwrap(),
            ),
        }),
    ];
    for (i, r) in reqs.iter().enumerate() {
        put(&d, &format!("request_{i}"), &[4], &r.encode().unwrap()[4..]);
    }
}
