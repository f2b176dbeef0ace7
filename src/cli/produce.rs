//! `-P`: messages from stdin (or one `-l` file) split at the delimiter,
//! each optionally split into key and value at the key delimiter; or, with
//! file operands and no `-l`, each file as one message. Messages are queued
//! with [`Producer::send_blocking`] (batched by the producer, as kcat's are)
//! and the delivery reports counted; the run ends with a flush.

use std::io::{BufRead, BufReader, Read, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use gregor::config::Role;
use gregor::message::ProducerRecord;
use gregor::producer::Producer;

use super::args::{parse_delim, Options};
use super::{build_config, info, CliError};

/// Splits a byte stream at a (multi-byte) delimiter, as kcat's input buffer does.
pub struct DelimReader<R> {
    inner: R,
    delim: Vec<u8>,
    /// The piece being read, kept for the next one: reading a file of a
    /// million lines allocates once, not once a line.
    buf: Vec<u8>,
    done: bool,
}

impl<R: BufRead> DelimReader<R> {
    /// A reader splitting `inner` at `delim` (not empty).
    pub fn new(inner: R, delim: Vec<u8>) -> Self {
        DelimReader {
            inner,
            delim,
            buf: Vec::new(),
            done: false,
        }
    }

    /// The next piece without its delimiter; the rest after the last
    /// delimiter counts as a piece; `None` at the end. The piece is
    /// borrowed until the next call.
    ///
    /// # Errors
    /// Read errors.
    pub fn next_piece(&mut self) -> std::io::Result<Option<&[u8]>> {
        if self.done {
            return Ok(None);
        }
        let last = *self.delim.last().expect("delimiter is not empty");
        let buf = &mut self.buf;
        buf.clear();
        loop {
            if self.inner.read_until(last, buf)? == 0 {
                self.done = true;
                return Ok((!buf.is_empty()).then_some(&buf[..]));
            }
            // read_until stopped after `last` (or at the end of the input):
            // a one-byte delimiter needs no further comparison
            let ends = match self.delim.len() {
                1 => buf.last() == Some(&last),
                _ => buf.ends_with(&self.delim),
            };
            if ends {
                let n = buf.len() - self.delim.len();
                return Ok(Some(&buf[..n]));
            }
        }
    }
}

/// Splits a record into (key, value) at the first key delimiter. `-Z` makes
/// an empty key or value null. Without the delimiter in the record the
/// whole record is the value and the key is null.
pub fn split_key<'a>(
    rec: &'a [u8],
    key_delim: Option<&[u8]>,
    null_empty: bool,
) -> (Option<&'a [u8]>, Option<&'a [u8]>) {
    let Some(kd) = key_delim.filter(|kd| !kd.is_empty()) else {
        return (None, Some(rec));
    };
    match rec.windows(kd.len()).position(|w| w == kd) {
        Some(at) => {
            let (k, v) = (&rec[..at], &rec[at + kd.len()..]);
            let nul = |b: &'a [u8]| (!(null_empty && b.is_empty())).then_some(b);
            (nul(k), nul(v))
        }
        None => (None, Some(rec)),
    }
}

struct Sender<'a> {
    producer: Producer,
    topic: &'a str,
    partition: Option<i32>,
    headers: Vec<(&'a str, Option<&'a [u8]>)>,
    fixed_key: Option<&'a [u8]>,
    sent: u64,
    failed: Arc<AtomicU64>,
}

impl Sender<'_> {
    /// Queues one message. A message that fails later is reported by the
    /// delivery callback and counted (kcat goes on with the next one and
    /// exits 1 at the end); a message that cannot even be queued stops the run.
    fn send(&mut self, key: Option<&[u8]>, value: Option<&[u8]>) -> Result<(), CliError> {
        let rec = ProducerRecord {
            topic: self.topic,
            partition: self.partition,
            key: key.or(self.fixed_key),
            value,
            headers: &self.headers,
            timestamp: None,
        };
        self.sent += 1;
        self.producer.poll(Duration::ZERO);
        self.producer
            .send_blocking(&rec, 0, Duration::from_secs(3600))
            .map_err(|e| {
                CliError::Fatal(format!(
                    "Failed to produce message ({} bytes): {e}",
                    value.map_or(0, <[u8]>::len)
                ))
            })
    }

    /// Waits for every report; returns the number of failed messages.
    fn finish(&self) -> Result<u64, CliError> {
        let timeout = self.producer.message_timeout();
        self.producer
            .flush(timeout + Duration::from_secs(5))
            .map_err(|e| CliError::Fatal(format!("Failed to flush: {e}")))?;
        self.producer.close(Duration::from_secs(1));
        Ok(self.failed.load(Ordering::Relaxed))
    }
}

/// Runs `-P`.
///
/// # Errors
/// Bad options or configuration, unreadable input, a delivery timeout.
pub fn run(o: &Options, stdin: &mut dyn Read, out: &mut dyn Write) -> Result<i32, CliError> {
    let topic = o.topic.as_deref().unwrap_or_default();
    let delim = parse_delim(&o.delim)?;
    if delim.is_empty() {
        return Err(CliError::Fatal(
            "Message delimiter -D must not be empty when producing".into(),
        ));
    }
    let key_delim = o.key_delim.as_deref().map(parse_delim).transpose()?;
    if o.line_mode && o.operands.len() > 1 {
        return Err(CliError::Fatal(
            "Only one file allowed for line mode (-l)".into(),
        ));
    }
    let cfg = build_config(o, Some(Role::Producer))?;
    let producer = Producer::new(&cfg).map_err(|e| CliError::Fatal(e.to_string()))?;
    let failed = Arc::new(AtomicU64::new(0));
    let f2 = failed.clone();
    producer.set_delivery_callback(Some(Box::new(move |dr| match &dr.error {
        None => info(
            3,
            format_args!(
                "Message delivered to partition {} (offset {})",
                dr.partition, dr.offset
            ),
        ),
        Some(e) => {
            info(1, format_args!("Delivery failed for message: {e}"));
            f2.fetch_add(1, Ordering::Relaxed);
        }
    })));
    let mut s = Sender {
        producer,
        topic,
        partition: o.partition,
        headers: o
            .headers
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_deref()))
            .collect(),
        fixed_key: o.fixed_key.as_deref().map(str::as_bytes),
        sent: 0,
        failed,
    };

    if !o.operands.is_empty() && !o.line_mode {
        // Each file is one message.
        let mut good = 0;
        for path in &o.operands {
            match std::fs::read(path) {
                Ok(data) if data.is_empty() => {
                    info(3, format_args!("Skipping empty file {path}"));
                    good += 1;
                }
                Ok(data) => {
                    info(
                        4,
                        format_args!("Producing file {path} ({} bytes)", data.len()),
                    );
                    s.send(None, Some(&data))?;
                    good += 1;
                }
                Err(e) => info(1, format_args!("Failed to open {path}: {e}")),
            }
        }
        let failed = s.finish()?;
        if good == 0 {
            return Ok(1);
        }
        if good < o.operands.len() {
            info(
                1,
                format_args!(
                    "Failed to produce from {}/{} files",
                    o.operands.len() - good,
                    o.operands.len()
                ),
            );
        }
        return Ok(i32::from(failed > 0));
    }

    let input: Box<dyn BufRead + '_> = match o.operands.first() {
        Some(path) => {
            Box::new(BufReader::new(std::fs::File::open(path).map_err(|e| {
                CliError::Fatal(format!("Cannot open {path}: {e}"))
            })?))
        }
        None => Box::new(BufReader::new(stdin)),
    };
    let mut reader = DelimReader::new(input, delim.clone());
    while let Some(rec) = reader
        .next_piece()
        .map_err(|e| CliError::Fatal(format!("Unable to read message: {e}")))?
    {
        if rec.is_empty() {
            continue;
        }
        let (key, value) = split_key(rec, key_delim.as_deref(), o.null_empty);
        s.send(key, value)?;
        if o.tee {
            out.write_all(rec)?;
            out.write_all(&delim)?;
            out.flush()?;
        }
        if o.count == Some(s.sent) {
            break;
        }
    }
    let failed = s.finish()?;
    Ok(i32::from(failed > 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(input: &[u8], delim: &[u8]) -> Vec<Vec<u8>> {
        let mut r = DelimReader::new(input, delim.to_vec());
        let mut out = Vec::new();
        while let Some(p) = r.next_piece().unwrap() {
            out.push(p.to_vec());
        }
        out
    }

    #[test]
    fn splits_like_kcat() {
        assert_eq!(
            pieces(b"a\nb\n\nc", b"\n"),
            vec![&b"a"[..], b"b", b"", b"c"]
        );
        assert_eq!(pieces(b"a\n", b"\n"), vec![b"a".to_vec()]);
        assert_eq!(pieces(b"", b"\n"), Vec::<Vec<u8>>::new());
        assert_eq!(pieces(b"x;;y;;;z;", b";;"), vec![&b"x"[..], b"y", b";z;"]);
        assert_eq!(pieces(b"aaa", b"aa"), vec![&b""[..], b"a"]);
    }

    #[test]
    fn keys() {
        assert_eq!(
            split_key(b"k:v:w", Some(b":"), false),
            (Some(&b"k"[..]), Some(&b"v:w"[..]))
        );
        assert_eq!(
            split_key(b"novalue", Some(b":"), false),
            (None, Some(&b"novalue"[..]))
        );
        assert_eq!(
            split_key(b":v", Some(b":"), false),
            (Some(&b""[..]), Some(&b"v"[..]))
        );
        assert_eq!(split_key(b":", Some(b":"), true), (None, None));
        assert_eq!(
            split_key(b"k::v", Some(b"::"), false),
            (Some(&b"k"[..]), Some(&b"v"[..]))
        );
        assert_eq!(split_key(b"k:v", None, false), (None, Some(&b"k:v"[..])));
    }
}
