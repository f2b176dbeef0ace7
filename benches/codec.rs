//! Record codec throughput: encode and decode a 1 MB record batch (10,000
//! records of 100-byte values with ~10-byte keys) uncompressed and with each
//! codec, and CRC-32C by table and by hardware over 1 MB.
//!
//! `cargo bench --bench codec`. MB/s are of uncompressed batch bytes
//! (1 MB = 10^6 bytes); each figure is the mean over as many runs as fit in
//! its time budget, after one warm-up run. About 15 s in all.

use std::hint::black_box;
use std::time::{Duration, Instant};

use gregor::compression::Codec;
use gregor::record::crc32c::{crc32c, crc32c_hardware, crc32c_table};
use gregor::record::{DecodeOptions, RecordBatchBuilder, RecordsReader};
use gregor::wire::Bytes;

const RECORDS: usize = 10_000;
const BUDGET: Duration = Duration::from_millis(700);

/// Keys like `user-04711`; values of 100 bytes of JSON-ish text whose numbers
/// vary, so they compress about as well as typical event data.
fn records() -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let events = ["click", "view", "purchase", "scroll", "login"];
    (0..RECORDS)
        .map(|i| {
            let r = next();
            let key = format!("user-{:05}", r % 100_000).into_bytes();
            let mut value = format!(
                r#"{{"id":{i},"event":"{}","ts":{},"price":{}.{:02},"session":"{:016x}"}}"#,
                events[(r >> 20) as usize % events.len()],
                1_700_000_000_000u64 + (r >> 24) % 1_000_000,
                (r >> 8) % 1000,
                (r >> 40) % 100,
                next(),
            )
            .into_bytes();
            value.resize(100, b' ');
            (key, value)
        })
        .collect()
}

fn encode(records: &[(Vec<u8>, Vec<u8>)], codec: Codec) -> Vec<u8> {
    let mut b = RecordBatchBuilder::with_capacity(RECORDS * 120).producer(1, 0, 0);
    for (i, (k, v)) in records.iter().enumerate() {
        b.append(1_700_000_000_000 + i as i64, Some(k), Some(v), &[])
            .expect("append");
    }
    b.finish(codec, None).expect("finish")
}

fn decode(data: &Bytes) -> usize {
    let mut n = 0;
    for batch in RecordsReader::new(data, DecodeOptions::default()) {
        let batch = batch.expect("decode");
        n += batch.records.len();
        black_box(&batch);
    }
    n
}

/// Mean MB/s of `f` over `bytes` per run.
fn mb_per_s(bytes: usize, mut f: impl FnMut()) -> f64 {
    f();
    let start = Instant::now();
    let mut runs = 0u32;
    while runs < 3 || start.elapsed() < BUDGET {
        f();
        runs += 1;
    }
    (bytes as f64 * f64::from(runs)) / start.elapsed().as_secs_f64() / 1e6
}

fn main() {
    // `cargo bench --bench codec -- WORD` runs only the lines whose name contains WORD.
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with("--"));
    let wanted = |name: &str| filter.as_deref().is_none_or(|f| name.contains(f));
    let records = records();
    let raw_len = encode(&records, Codec::None).len();
    println!("record batch: {RECORDS} records, {raw_len} bytes uncompressed");
    println!();
    println!(
        "{:<8} {:>12} {:>8} {:>14} {:>14}",
        "codec", "batch bytes", "ratio", "encode MB/s", "decode MB/s"
    );
    for codec in Codec::ALL.into_iter().filter(|c| wanted(c.name())) {
        let encoded = encode(&records, codec);
        let data = Bytes::from(encoded.clone());
        assert_eq!(decode(&data), RECORDS);
        let enc = mb_per_s(raw_len, || {
            black_box(encode(black_box(&records), codec));
        });
        let dec = mb_per_s(raw_len, || {
            black_box(decode(black_box(&data)));
        });
        let ratio = raw_len as f64 / encoded.len() as f64;
        println!(
            "{:<8} {:>12} {:>8.2} {:>14.0} {:>14.0}",
            codec.name(),
            encoded.len(),
            ratio,
            enc,
            dec
        );
    }

    if !wanted("crc") {
        return;
    }
    println!();
    let mb: Vec<u8> = encode(&records, Codec::None)
        .into_iter()
        .cycle()
        .take(1 << 20)
        .collect();
    println!("{:<28} {:>10}", "CRC-32C over 1 MiB", "MB/s");
    let table = mb_per_s(mb.len(), || {
        black_box(crc32c_table(black_box(&mb)));
    });
    println!("{:<28} {:>10.0}", "table (crc, slice-by-16)", table);
    match crc32c_hardware(&mb) {
        Some(_) => {
            let hw = mb_per_s(mb.len(), || {
                black_box(crc32c_hardware(black_box(&mb)));
            });
            println!("{:<28} {:>10.0}", "hardware (SSE4.2, 3-way)", hw);
        }
        None => println!("{:<28} {:>10}", "hardware", "n/a"),
    }
    let default = mb_per_s(mb.len(), || {
        black_box(crc32c(black_box(&mb)));
    });
    println!("{:<28} {:>10.0}", "crc32c() (the default)", default);
}
