//! The producer's settings, read once from the configuration and checked
//! as librdkafka checks them when a client is created.

use std::time::Duration;

use super::partitioner::Partitioner;
use crate::compression::Codec;
use crate::config::Config;
use crate::error::{Error, Result};

/// Settings read once from the configuration.
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    /// `allow.auto.create.topics`: true unless set otherwise (librdkafka's
    /// producer default, unlike its consumer's).
    pub auto_create: bool,
    pub acks: i16,
    pub codec: Codec,
    pub level: Option<i32>,
    pub ack_timeout_ms: i32,
    pub message_timeout: Duration,
    /// `statistics.interval.ms` > 0: the sender keeps the windows only
    /// statistics show (queue latencies, batch sizes).
    pub stats: bool,
    pub retries: u32,
    pub retry_backoff: Duration,
    pub retry_backoff_max: Duration,
    pub linger: Duration,
    /// `topic.metadata.refresh.fast.interval.ms`; unset: `retry.backoff.ms`
    /// (librdkafka).
    pub fast_refresh: Duration,
    /// `sticky.partitioning.linger.ms`; unset: twice `linger.ms` (librdkafka).
    pub sticky_linger: Duration,
    pub batch_size: usize,
    pub batch_num_messages: usize,
    pub max_messages: usize,
    pub max_bytes: usize,
    pub max_message_bytes: usize,
    pub max_in_flight: usize,
    pub partitioner: Partitioner,
    pub idempotence: bool,
    pub transactional_id: Option<String>,
    pub transaction_timeout_ms: i32,
    pub socket_timeout: Duration,
    /// `delivery.report.only.error`: successful messages get no report.
    pub dr_only_error: bool,
}

impl Settings {
    /// The wait before asking again for the metadata of a topic without
    /// known leaders, after `asked` requests: fast at first, doubling up to
    /// `retry.backoff.max.ms` (librdkafka's
    /// `topic.metadata.refresh.fast.interval.ms`).
    pub fn fast_refresh_after(&self, asked: u32) -> Duration {
        self.fast_refresh
            .saturating_mul(1 << asked.min(20))
            .min(self.retry_backoff_max.max(self.fast_refresh))
    }

    pub(super) fn from_config(cfg: &Config) -> Result<Settings> {
        let codec: Codec = cfg
            .str("compression.type")
            .parse()
            .map_err(|_| Error::Config {
                key: "compression.type".into(),
                reason: "unknown codec".into(),
            })?;
        let transactional_id =
            Some(cfg.str("transactional.id").to_string()).filter(|s| !s.is_empty());
        let idempotence = cfg.bool("enable.idempotence") || transactional_id.is_some();
        let max_in_flight = cfg.int("max.in.flight.requests.per.connection") as usize;
        if idempotence && max_in_flight > 5 && cfg.is_set("max.in.flight.requests.per.connection") {
            return Err(Error::Config {
                key: "max.in.flight.requests.per.connection".into(),
                reason: "must be at most 5 with enable.idempotence".into(),
            });
        }
        if idempotence && cfg.is_set("acks") && cfg.str("acks") != "-1" {
            return Err(Error::Config {
                key: "acks".into(),
                reason: "must be all with enable.idempotence".into(),
            });
        }
        // librdkafka refuses both at client creation (rd_kafka_conf_finalize):
        // a transactional producer is idempotent (KIP-98), and a message must
        // be able to wait out linger.ms before it times out
        if transactional_id.is_some()
            && cfg.is_set("enable.idempotence")
            && !cfg.bool("enable.idempotence")
        {
            return Err(Error::Config {
                key: "enable.idempotence".into(),
                reason: "`transactional.id` requires `enable.idempotence=true`".into(),
            });
        }
        let message_timeout = match cfg.int("message.timeout.ms") {
            0 => Duration::from_secs(365 * 86_400),
            ms => Duration::from_millis(ms as u64),
        };
        let mut linger = cfg.ms("linger.ms");
        if cfg.int("message.timeout.ms") != 0 && message_timeout <= linger {
            if cfg.is_set("linger.ms") {
                return Err(Error::Config {
                    key: "linger.ms".into(),
                    reason: "`message.timeout.ms` must be greater than `linger.ms`".into(),
                });
            }
            // the default linger.ms gives way, as librdkafka's does
            linger = message_timeout.saturating_sub(Duration::from_millis(1));
        }
        Ok(Settings {
            auto_create: !cfg.is_set("allow.auto.create.topics")
                || cfg.bool("allow.auto.create.topics"),
            acks: if idempotence {
                -1
            } else {
                cfg.str("acks").parse().unwrap_or(-1)
            },
            codec,
            level: match cfg.int("compression.level") {
                -1 => None,
                l => Some(l as i32),
            },
            ack_timeout_ms: cfg.int("request.timeout.ms") as i32,
            message_timeout,
            stats: cfg.int("statistics.interval.ms") > 0,
            retries: cfg.int("retries").min(i64::from(u32::MAX)) as u32,
            retry_backoff: cfg.ms("retry.backoff.ms"),
            retry_backoff_max: cfg.ms("retry.backoff.max.ms"),
            linger,
            fast_refresh: if cfg.is_set("topic.metadata.refresh.fast.interval.ms") {
                cfg.ms("topic.metadata.refresh.fast.interval.ms")
            } else {
                cfg.ms("retry.backoff.ms")
            },
            sticky_linger: if cfg.is_set("sticky.partitioning.linger.ms") {
                cfg.ms("sticky.partitioning.linger.ms")
            } else {
                (cfg.ms("linger.ms") * 2).min(Duration::from_millis(900_000))
            },
            batch_size: cfg.int("batch.size") as usize,
            batch_num_messages: cfg.int("batch.num.messages") as usize,
            max_messages: cfg.int("queue.buffering.max.messages") as usize,
            max_bytes: (cfg.int("queue.buffering.max.kbytes") as usize).saturating_mul(1024),
            max_message_bytes: cfg.int("message.max.bytes") as usize,
            max_in_flight: if idempotence {
                max_in_flight.min(5)
            } else {
                max_in_flight
            },
            partitioner: Partitioner::from_name(cfg.str("partitioner"))
                .unwrap_or(Partitioner::ConsistentRandom),
            idempotence,
            transactional_id,
            transaction_timeout_ms: cfg.int("transaction.timeout.ms") as i32,
            socket_timeout: cfg.ms("socket.timeout.ms"),
            dr_only_error: cfg.bool("delivery.report.only.error"),
        })
    }
}
