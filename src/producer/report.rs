//! What the application hears of each message: its delivery report, read
//! back from the batch's bytes the producer already holds, and the
//! callback that receives it.

use std::sync::Arc;

use crate::error::Error;
use crate::message::{Header, MessageStatus};
use crate::record::BatchRecords;
use crate::wire::Bytes;

/// The outcome of one message, as a delivery report.
#[derive(Debug, Clone)]
pub struct DeliveryReport {
    /// Topic name.
    pub topic: Arc<str>,
    /// Partition (-1 if it never got one).
    pub partition: i32,
    /// Offset, or -1 if not delivered (or acks=0).
    pub offset: i64,
    /// The message's timestamp (the broker's with LogAppendTime).
    pub timestamp: i64,
    /// `None` when delivered.
    pub error: Option<Error>,
    /// The value given to [`Producer::send`](super::Producer::send).
    pub opaque: usize,
    /// Whether the message may be in the log (librdkafka's
    /// `rd_kafka_message_status`; see [`MessageStatus`] for the rules).
    pub status: MessageStatus,
    /// Microseconds from [`Producer::send`](super::Producer::send) to this report (librdkafka's
    /// `rd_kafka_message_latency`), -1 if unknown.
    pub latency_us: i64,
    /// The broker the message was last sent to (librdkafka's
    /// `rd_kafka_message_broker_id`), -1 if it was never sent.
    pub broker_id: i32,
    /// The encoded records of the message's batch, and where this
    /// message's record starts: the key, value and headers are read from
    /// the bytes the producer already holds, never copied for the report.
    pub(super) records: Option<Bytes>,
    pub(super) record_pos: usize,
}

impl DeliveryReport {
    /// The message's record as produced, decoded from the batch's bytes.
    fn record(&self) -> Option<crate::record::Record> {
        let data = self.records.as_ref()?;
        let end = BatchRecords::record_end(data, self.record_pos)?;
        BatchRecords::encoded(data.slice(self.record_pos..end), 1)
            .next()?
            .ok()
    }

    /// The message's key (`None` for a null key), sharing the producer's
    /// buffer.
    pub fn key(&self) -> Option<Bytes> {
        self.record().and_then(|r| r.key)
    }

    /// The message's value (`None` for a null value), sharing the
    /// producer's buffer.
    pub fn value(&self) -> Option<Bytes> {
        self.record().and_then(|r| r.value)
    }

    /// The message's headers, in order.
    pub fn headers(&self) -> Vec<Header> {
        self.record().map(|r| r.headers).unwrap_or_default()
    }

    /// The message's key and value, borrowed from the producer's buffer
    /// for as long as the report lives (`None` inside for a null one):
    /// the cheapest read, without the headers.
    pub fn key_value(&self) -> (Option<&[u8]>, Option<&[u8]>) {
        self.records
            .as_ref()
            .and_then(|data| BatchRecords::key_value_at(data, self.record_pos))
            .unwrap_or((None, None))
    }

    /// As [`key_value`](Self::key_value), and whether the message has
    /// headers (without decoding them).
    pub fn key_value_has_headers(&self) -> crate::record::batch::KeyValueHeaders<'_> {
        self.records
            .as_ref()
            .and_then(|data| BatchRecords::key_value_headers_at(data, self.record_pos))
            .unwrap_or((None, None, false))
    }

    /// Key, value and headers at once (one decoding).
    pub fn key_value_headers(&self) -> (Option<Bytes>, Option<Bytes>, Vec<Header>) {
        self.record()
            .map_or((None, None, Vec::new()), |r| (r.key, r.value, r.headers))
    }
}

/// A delivery report callback.
pub type DeliveryCallback = Box<dyn FnMut(&DeliveryReport) + Send>;
