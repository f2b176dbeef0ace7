//! The producer. This first slice sends one record per request and waits for
//! the broker's acknowledgement ([`Producer::send_sync`]), retrying on
//! retriable errors and leader changes until `message.timeout.ms`.

pub mod partitioner;

use std::time::{Duration, Instant};

use crate::cluster::{Cluster, Purpose};
use crate::compression::Codec;
use crate::config::{Config, Role};
use crate::error::{local, Error, Result};
use crate::message::{now_ms, Delivery, ProducerRecord};
use crate::net::BrokerConn;
use crate::protocol::produce::{PartitionProduceData, ProduceRequest, TopicProduceData};
use crate::protocol::{ErrorAction, KafkaCode};
use crate::record::batch::RecordBatchBuilder;
use crate::record::message_set::MessageSetBuilder;
use crate::wire::Bytes;
pub use partitioner::Partitioner;

/// A Kafka producer. Thread-safe: share it by reference or `Arc`.
pub struct Producer {
    cluster: Cluster,
    acks: i16,
    codec: Codec,
    level: Option<i32>,
    ack_timeout_ms: i32,
    message_timeout: Duration,
    retries: i64,
    retry_backoff: Duration,
    retry_backoff_max: Duration,
    max_message_bytes: usize,
    partitioner: Partitioner,
}

impl Producer {
    /// A producer for `cfg`. Connects lazily, on the first send.
    ///
    /// # Errors
    /// On a bad configuration (e.g. a consumer property, or no `bootstrap.servers`).
    pub fn new(cfg: &Config) -> Result<Producer> {
        cfg.check_role(Role::Producer)?;
        cfg.check_not_yet(
            &["linger.ms", "batch.size", "batch.num.messages", "queue.buffering.max.messages", "queue.buffering.max.kbytes"],
            "this producer sends each message on its own (send_sync); batching comes with the asynchronous producer",
        )?;
        if cfg.bool("enable.idempotence") {
            return Err(Error::Config {
                key: "enable.idempotence".into(),
                reason: "not supported yet: the idempotent producer comes with the asynchronous producer".into(),
            });
        }
        let cluster = Cluster::new(cfg)?;
        let codec: Codec = cfg
            .str("compression.type")
            .parse()
            .map_err(|_| Error::Config {
                key: "compression.type".into(),
                reason: "unknown codec".into(),
            })?;
        let level = match cfg.int("compression.level") {
            -1 => None,
            l => Some(l as i32),
        };
        let message_timeout = match cfg.int("message.timeout.ms") {
            0 => Duration::from_secs(365 * 86_400),
            ms => Duration::from_millis(ms as u64),
        };
        Ok(Producer {
            cluster,
            acks: cfg.str("acks").parse().unwrap_or(-1),
            codec,
            level,
            ack_timeout_ms: cfg.int("request.timeout.ms") as i32,
            message_timeout,
            retries: cfg.int("retries"),
            retry_backoff: cfg.ms("retry.backoff.ms"),
            retry_backoff_max: cfg.ms("retry.backoff.max.ms"),
            max_message_bytes: cfg.int("message.max.bytes") as usize,
            partitioner: Partitioner::from_name(cfg.str("partitioner"))
                .unwrap_or(Partitioner::ConsistentRandom),
        })
    }

    /// The producer's view of the cluster.
    pub fn cluster(&self) -> &Cluster {
        &self.cluster
    }

    /// Sends one record and waits for its acknowledgement, for at most
    /// `timeout` (`None`: `message.timeout.ms`), retrying retriable errors.
    ///
    /// # Errors
    /// The broker's error for the record, `_MSG_TIMED_OUT` if it could not
    /// be delivered in time, `_UNKNOWN_PARTITION` for a partition the topic
    /// does not have.
    pub fn send_sync(
        &self,
        rec: &ProducerRecord<'_>,
        timeout: Option<Duration>,
    ) -> Result<Delivery> {
        let deadline = Instant::now() + timeout.unwrap_or(self.message_timeout);
        let timestamp = rec.timestamp.unwrap_or_else(now_ms);
        let mut attempts: i64 = 0;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let err = match self.try_send(rec, timestamp, left) {
                Ok(d) => return Ok(d),
                Err(e) => e,
            };
            let action = match &err {
                Error::Kafka { code, .. } => code.action(),
                e if e.is_retriable() => ErrorAction::Retry,
                _ => ErrorAction::Fail,
            };
            if action == ErrorAction::RefreshMetadataAndRetry {
                self.cluster.invalidate(rec.topic);
            }
            attempts += 1;
            let retry = matches!(
                action,
                ErrorAction::Retry | ErrorAction::RefreshMetadataAndRetry
            );
            // as librdkafka: retry.backoff.ms doubling per attempt up to retry.backoff.max.ms
            let exp = (attempts - 1).min(16) as u32;
            let backoff = self
                .retry_backoff
                .saturating_mul(1 << exp)
                .min(self.retry_backoff_max.max(self.retry_backoff));
            if !retry || attempts > self.retries {
                // retries exhausted (or none apply): the last error, as librdkafka reports it
                return Err(err);
            }
            if Instant::now() + backoff >= deadline {
                return Err(Error::local(
                    local::MSG_TIMED_OUT,
                    format!("{}: not delivered in time: {err}", rec.topic),
                ));
            }
            std::thread::sleep(backoff);
        }
    }

    fn try_send(
        &self,
        rec: &ProducerRecord<'_>,
        timestamp: i64,
        left: Duration,
    ) -> Result<Delivery> {
        let deadline = Instant::now() + left;
        let topic = self.cluster.topic(rec.topic, true, left)?;
        let n = topic.partitions.len() as i32;
        let partition = match rec.partition {
            Some(p) if p >= 0 => p,
            _ => self
                .partitioner
                .partition(rec.key, n)
                .unwrap_or_else(|| (partitioner::random_u32() % n.max(1) as u32) as i32),
        };
        let (leader, _) = self.cluster.leader(rec.topic, partition, left)?;
        let conn = self.cluster.conn(leader, Purpose::Produce)?;
        let version = conn.version_for::<ProduceRequest>(deadline)?;
        let records = self.encode(rec, timestamp, version)?;
        let req = ProduceRequest {
            acks: self.acks,
            timeout_ms: self.ack_timeout_ms,
            topic_data: vec![TopicProduceData {
                name: rec.topic.to_string(),
                partition_data: vec![PartitionProduceData {
                    index: partition,
                    records: Some(records),
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        };
        if self.acks == 0 {
            conn.send_oneway(&req, version, deadline)?;
            return Ok(Delivery {
                topic: rec.topic.to_string(),
                partition,
                offset: -1,
                timestamp,
            });
        }
        let resp = self.call(&conn, &req, version, deadline)?;
        let p = resp
            .responses
            .iter()
            .flat_map(|t| t.partition_responses.iter())
            .find(|p| p.index == partition)
            .ok_or_else(|| {
                Error::local(
                    local::BAD_MSG,
                    format!(
                        "{}: produce response lacks {} [{partition}]",
                        conn.name(),
                        rec.topic
                    ),
                )
            })?;
        if p.error_code != 0 {
            let msg = p
                .error_message
                .as_deref()
                .map_or(String::new(), |m| format!(" ({m})"));
            return Err(Error::kafka(
                KafkaCode(p.error_code),
                format!("{} [{partition}]{msg}", rec.topic),
            ));
        }
        let ts = if p.log_append_time_ms >= 0 {
            p.log_append_time_ms
        } else {
            timestamp
        };
        Ok(Delivery {
            topic: rec.topic.to_string(),
            partition,
            offset: p.base_offset,
            timestamp: ts,
        })
    }

    fn call(
        &self,
        conn: &BrokerConn,
        req: &ProduceRequest,
        version: i16,
        deadline: Instant,
    ) -> Result<crate::protocol::produce::ProduceResponse> {
        // The broker may hold the request for up to request.timeout.ms waiting for acks.
        let net_deadline =
            deadline.max(Instant::now() + Duration::from_millis(self.ack_timeout_ms as u64));
        conn.send_at(req, version, net_deadline)?
            .wait_until(deadline)
    }

    /// Encodes one record in the format the version implies: RecordBatch v2
    /// for Produce v3+, MessageSet v1 for v2, v0 below.
    fn encode(&self, rec: &ProducerRecord<'_>, timestamp: i64, version: i16) -> Result<Bytes> {
        if self.codec == Codec::Zstd && version < 7 {
            return Err(Error::local(
                local::UNSUPPORTED_FEATURE,
                format!("zstd needs a broker with Produce v7+ (this one speaks v{version})"),
            ));
        }
        let bytes = if version >= 3 {
            let mut b = RecordBatchBuilder::new();
            b.append(timestamp, rec.key, rec.value, rec.headers)?;
            b.finish(self.codec, self.level)?
        } else {
            if !rec.headers.is_empty() {
                return Err(Error::local(
                    local::UNSUPPORTED_FEATURE,
                    format!("headers need a broker with Produce v3+ (this one speaks v{version})"),
                ));
            }
            let magic = if version == 2 { 1 } else { 0 };
            let mut b = MessageSetBuilder::new(magic)?;
            let ts = if magic == 0 {
                crate::record::NO_TIMESTAMP
            } else {
                timestamp
            };
            b.append(ts, rec.key, rec.value)?;
            b.finish(self.codec, self.level)?
        };
        if bytes.len() > self.max_message_bytes {
            return Err(Error::kafka(
                KafkaCode::MESSAGE_TOO_LARGE,
                format!(
                    "{}: batch of {} bytes exceeds message.max.bytes ({})",
                    rec.topic,
                    bytes.len(),
                    self.max_message_bytes
                ),
            ));
        }
        Ok(Bytes::from(bytes))
    }
}
