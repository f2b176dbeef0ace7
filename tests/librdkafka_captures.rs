//! Record batches and message sets written by librdkafka 2.16 (captured once
//! through a recording proxy, see testdata/README.md) decode into exactly the
//! messages that were produced: every codec, magic 2, 1 and 0, from Produce
//! requests as librdkafka wrote them and from a real broker's Fetch responses.

use std::path::Path;

use gregor::compression::Codec;
use gregor::protocol::fetch::FetchResponse;
use gregor::protocol::produce::ProduceRequest;
use gregor::protocol::{Message, RequestHeader, ResponseHeader};
use gregor::record::{DecodeOptions, RecordBatch, RecordsReader, TimestampType};
use gregor::wire::{Bytes, Reader};

struct Expected {
    key: Option<Vec<u8>>,
    value: Option<Vec<u8>>,
    timestamp: i64,
    headers: Vec<(String, Vec<u8>)>,
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn expected(file: &Path, codec: &str) -> Vec<Expected> {
    let text = std::fs::read_to_string(file).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .filter(|f| f[0] == codec)
        .map(|f| Expected {
            key: (f[2] != "-").then(|| unhex(f[2])),
            value: (f[3] != "-").then(|| unhex(f[3])),
            timestamp: f[4].parse().unwrap(),
            headers: if f[5] == "-" {
                Vec::new()
            } else {
                f[5].split(',')
                    .map(|h| {
                        let (k, v) = h.split_once('=').unwrap();
                        (k.to_string(), unhex(v))
                    })
                    .collect()
            },
        })
        .collect()
}

fn dir() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/testdata"))
}

/// Decodes every batch of a records buffer, failing on any error.
fn batches(records: &Bytes) -> Vec<RecordBatch> {
    let mut reader = RecordsReader::new(records, DecodeOptions::default());
    let out: Vec<RecordBatch> = reader.by_ref().map(|b| b.expect("batch decodes")).collect();
    assert!(
        !reader.truncated_tail(),
        "no partial entry in a produce request"
    );
    out
}

fn produce_records(file: &Path) -> Bytes {
    let frame = std::fs::read(file).unwrap();
    let mut r = Reader::new(&frame);
    let size = r.i32().unwrap() as usize;
    assert_eq!(size, frame.len() - 4);
    let peek = RequestHeader::decode(&mut Reader::new(&frame[4..]), 0).unwrap();
    assert_eq!(peek.api_key, 0);
    let header_version = if ProduceRequest::is_flexible(peek.api_version) {
        2
    } else {
        1
    };
    let header = RequestHeader::decode(&mut r, header_version).unwrap();
    assert!(
        header
            .client_id
            .as_deref()
            .unwrap_or("")
            .contains("rdkafka"),
        "{header:?}"
    );
    let req = ProduceRequest::decode(&mut r, header.api_version).unwrap();
    assert!(r.is_empty());
    let p = &req.topic_data[0].partition_data[0];
    p.records.clone().expect("records present")
}

fn check(file: &Path, codec: &str, magic: i8, batches: &[RecordBatch], want: &[Expected]) {
    let records: Vec<_> = batches.iter().flat_map(|b| b.records.iter()).collect();
    assert_eq!(records.len(), want.len(), "{file:?}: message count");
    for b in batches {
        assert_eq!(b.magic, magic, "{file:?}");
        assert_eq!(b.codec, codec.parse::<Codec>().unwrap(), "{file:?}: codec");
    }
    for (i, (r, w)) in records.iter().zip(want).enumerate() {
        assert_eq!(r.key.as_deref(), w.key.as_deref(), "{file:?} #{i} key");
        assert_eq!(
            r.value.as_deref(),
            w.value.as_deref(),
            "{file:?} #{i} value"
        );
        if magic == 0 {
            assert_eq!(r.timestamp_type, TimestampType::NotAvailable);
        } else {
            assert_eq!(r.timestamp, w.timestamp, "{file:?} #{i} timestamp");
        }
        let headers: Vec<(String, Vec<u8>)> = r
            .headers
            .iter()
            .map(|h| {
                (
                    h.key_str().unwrap().to_string(),
                    h.value.as_deref().unwrap().to_vec(),
                )
            })
            .collect();
        assert_eq!(headers, w.headers, "{file:?} #{i} headers");
    }
    // In a produce request offsets are the producer's placeholders (the broker
    // assigns real ones; librdkafka leaves a magic 1 wrapper at offset 0), so
    // only their order is meaningful there.
    for w in records.windows(2) {
        assert_eq!(w[1].offset, w[0].offset + 1, "{file:?} offsets consecutive");
    }
}

#[test]
fn record_batches_v2_from_librdkafka_produce_requests() {
    for codec in ["none", "gzip", "snappy", "lz4", "zstd"] {
        let file = dir().join(format!("librdkafka/produce_v10_{codec}_0.bin"));
        let want = expected(&dir().join("librdkafka/expected.tsv"), codec);
        let b = batches(&produce_records(&file));
        assert!(
            b.iter().all(|b| b.producer_id >= 0),
            "idempotent producer sets a producer id"
        );
        check(&file, codec, 2, &b, &want);
    }
}

#[test]
fn record_batches_v2_as_a_real_broker_returns_them_in_fetch_responses() {
    for codec in ["none", "gzip", "snappy", "lz4", "zstd"] {
        let file = dir().join(format!("librdkafka/fetch_v16_{codec}_0.bin"));
        let frame = std::fs::read(&file).unwrap();
        let body = Bytes::from(frame[4..].to_vec());
        let mut r = Reader::shared(&body);
        let header = ResponseHeader::decode(&mut r, 1).unwrap();
        assert!(header.correlation_id > 0);
        let resp = FetchResponse::decode(&mut r, 16).unwrap();
        let pd = &resp.responses[0].partitions[0];
        assert_eq!(pd.error_code, 0);
        assert_eq!(pd.high_watermark, 20);
        let records = pd.records.clone().unwrap();
        // zero copy: an uncompressed value points into the response buffer
        let b = batches(&records);
        if codec == "none" {
            let v = b[0].records[0].value.as_deref().unwrap();
            let range = body.as_ptr_range();
            assert!(
                range.contains(&v.as_ptr()),
                "value shares the fetched buffer"
            );
        }
        let want = expected(&dir().join("librdkafka/expected.tsv"), codec);
        check(&file, codec, 2, &b, &want);
        let offsets: Vec<i64> = b
            .iter()
            .flat_map(|b| b.records.iter().map(|r| r.offset))
            .collect();
        assert_eq!(
            offsets,
            (0..20).collect::<Vec<i64>>(),
            "broker-assigned offsets of a fresh topic"
        );
    }
}

#[test]
fn message_sets_v1_and_v0_from_librdkafka_produce_requests() {
    for (folder, version, magic, tsv) in [
        ("librdkafka-0.10", 2, 1, "expected_0.10.0.tsv"),
        ("librdkafka-0.9", 1, 0, "expected_0.9.0.tsv"),
    ] {
        for codec in ["none", "gzip", "snappy", "lz4"] {
            let file = dir().join(format!("{folder}/produce_v{version}_{codec}_0.bin"));
            let want = expected(&dir().join(format!("{folder}/{tsv}")), codec);
            let b = batches(&produce_records(&file));
            check(&file, codec, magic, &b, &want);
        }
    }
}

#[test]
fn every_truncated_capture_is_an_error_or_a_clean_end_never_a_panic() {
    let file = dir().join("librdkafka/produce_v10_lz4_0.bin");
    let records = produce_records(&file);
    for n in 0..records.len() {
        let cut = Bytes::from(records[..n].to_vec());
        let mut reader = RecordsReader::new(&cut, DecodeOptions::default());
        let complete: Vec<_> = reader.by_ref().collect();
        assert!(
            complete.iter().all(Result::is_ok),
            "a clean prefix decodes or ends"
        );
        assert!(
            reader.truncated_tail() || n == 0,
            "prefix {n}: partial tail reported"
        );
    }
}
