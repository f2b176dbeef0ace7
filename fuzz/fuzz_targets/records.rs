//! The fetched-records readers: [`RecordsReader`] over arbitrary bytes (any
//! mix of RecordBatch v2 and MessageSet v0/v1 entries, compressed or not) and
//! the lazy per-record path the consumer uses.
//!
//! Byte 0: bit 0 checks CRCs (off lets the fuzzer reach the decoders behind
//! them), bit 1 takes the lazy path. Decompression is capped at 1 MiB.
#![no_main]

use gregor::record::{DecodeOptions, RecordBatch, RecordsReader};
use gregor::wire::Bytes;
use libfuzzer_sys::fuzz_target;

fn touch(b: &RecordBatch) {
    let _ = b.next_offset();
    let _ = b.delete_horizon_ms();
    let _ = b.control_record();
    for r in &b.records {
        let _ = r.headers.iter().map(|h| h.key_str()).count();
    }
}

fuzz_target!(|data: &[u8]| {
    let [flags, rest @ ..] = data else {
        return;
    };
    let options = DecodeOptions {
        check_crcs: flags & 1 == 1,
        decompress_limit: 1 << 20,
    };
    let buf = Bytes::from(rest.to_vec());
    if flags & 2 == 0 {
        let mut reader = RecordsReader::new(&buf, options);
        for entry in reader.by_ref() {
            if let Ok(b) = entry {
                touch(&b);
            }
        }
        assert!(reader.position() <= buf.len());
        let _ = reader.truncated_tail();
    } else {
        let mut pos = 0;
        while pos < buf.len() {
            let tail = buf.slice(pos..buf.len());
            let Ok((batch, records, n)) = RecordBatch::decode_lazy(&tail, &options) else {
                break;
            };
            assert!(n > 0 && n <= tail.len());
            touch(&batch);
            let mut records = records;
            for r in records.by_ref() {
                if r.is_err() {
                    break;
                }
            }
            let _ = records.finish();
            pos += n;
        }
        let _ = RecordBatch::decode(&buf, &options);
    }
});
