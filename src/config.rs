//! Configuration: string properties with librdkafka's names, meanings and
//! defaults (CONFIGURATION.md of librdkafka), plus `zookeeper.connect`.
//!
//! Every property is checked when it is set: an unknown name or a bad value
//! is an [`Error::Config`] naming the property, never silently ignored.
//! Aliases (`metadata.broker.list`, `queue.buffering.max.ms`, …) are stored
//! under the canonical name. A property that only a producer or only a
//! consumer reads is refused by the other ([`Config::check_role`]).

use std::collections::BTreeMap;
use std::time::Duration;

use crate::error::{Error, Result};
use crate::log::{LogCallback, LogSettings, Logger};

/// Who reads a property.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Every client.
    Any,
    /// Producers only.
    Producer,
    /// Consumers only.
    Consumer,
}

/// The kind of value a property takes.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Int {
        min: i64,
        max: i64,
    },
    Bool,
    Str,
    /// Allowed values; each entry lists a canonical value then its aliases.
    Enum(&'static [&'static [&'static str]]),
}

/// One known property.
struct Prop {
    name: &'static str,
    aliases: &'static [&'static str],
    kind: Kind,
    default: &'static str,
    role: Role,
    doc: &'static str,
}

const MS_MAX: i64 = 86_400_000 * 365;

macro_rules! props {
    ($( $name:literal $(| $alias:literal)* : $kind:expr, $default:literal, $role:ident, $doc:literal; )*) => {
        &[$( Prop { name: $name, aliases: &[$($alias),*], kind: $kind, default: $default, role: Role::$role, doc: $doc }, )*]
    };
}

const fn int(min: i64, max: i64) -> Kind {
    Kind::Int { min, max }
}

static PROPS: &[Prop] = props! {
    "bootstrap.servers" | "metadata.broker.list": Kind::Str, "", Any,
        "Initial list of brokers as host:port[,host:port...].";
    "client.id": Kind::Str, "gregor", Any, "Client identifier sent to brokers.";
    // Statistics (issue 10): emitted by a timer, delivered by poll/flush.
    "statistics.interval.ms": int(0, 86_400_000), "0", Any,
        "How often the statistics callback gets the client's statistics as JSON (0: never).";
    // Logging (issue 16, src/log.rs): librdkafka's names, values and defaults.
    "debug": Kind::Str, "", Any,
        "Comma-separated debug contexts: generic, broker, topic, metadata, feature, queue, msg, protocol, \
         cgrp, security, fetch, interceptor, plugin, consumer, admin, eos, mock, assignor, conf, telemetry, all.";
    "log_level": int(0, 7), "6", Any, "Logging level (syslog(3) levels); a debug context raises it to 7.";
    "log.queue": Kind::Bool, "false", Any,
        "Queue log lines and hand them to the log callback inside poll/flush on the application's thread.";
    "log.thread.name": Kind::Bool, "true", Any, "Print the logging thread's name ([thrd:NAME]) in log lines.";
    "log.connection.close": Kind::Bool, "true", Any,
        "Log broker disconnects as errors (false: only with the broker debug context).";
    "socket.timeout.ms": int(10, 300_000), "60000", Any,
        "Timeout for network requests (metadata, fetch, offsets, ...).";
    "socket.connection.setup.timeout.ms": int(1000, i32::MAX as i64), "30000", Any,
        "Maximum time to set up a broker connection, ApiVersions included.";
    "socket.nagle.disable": Kind::Bool, "true", Any, "Disable Nagle's algorithm (TCP_NODELAY).";
    "receive.message.max.bytes": int(1000, 2_147_483_647), "100000000", Any,
        "Largest response accepted from a broker; a larger one closes the connection.";
    "message.max.bytes": int(1000, 1_000_000_000), "1000000", Any,
        "Largest request (and record batch) sent to a broker.";
    "max.in.flight.requests.per.connection" | "max.in.flight": int(1, 1_000_000), "1000000", Any,
        "Requests pipelined per broker connection before waiting for responses.";
    "reconnect.backoff.ms": int(0, 3_600_000), "100", Any,
        "First wait before reconnecting to a broker; doubles per failure.";
    "reconnect.backoff.max.ms": int(0, 3_600_000), "10000", Any,
        "Longest wait before reconnecting to a broker.";
    "metadata.max.age.ms": int(1, MS_MAX), "900000", Any,
        "Cached metadata older than this is refreshed before use.";
    "topic.metadata.refresh.interval.ms": int(-1, 3_600_000), "300000", Any,
        "Period of metadata refresh for known topics (-1 disables).";
    "api.version.request": Kind::Bool, "true", Any,
        "Ask brokers for their API versions; false uses broker.version.fallback.";
    "api.version.request.timeout.ms": int(1, 300_000), "10000", Any,
        "Timeout of the ApiVersions request.";
    "broker.version.fallback": Kind::Str, "0.10.0", Any,
        "Broker version assumed when ApiVersions is off or fails (0.8.0 ... 0.9.0; >= 0.10 asks).";
    // — security — (TLS and SASL, src/net/tls.rs and src/net/sasl/)
    "security.protocol": Kind::Enum(&[&["plaintext"], &["ssl"], &["sasl_plaintext"], &["sasl_ssl"]]),
        "plaintext", Any, "Protocol used to talk to brokers: plaintext, ssl, sasl_plaintext, sasl_ssl.";
    "ssl.ca.location": Kind::Str, "", Any,
        "CA certificate(s) to verify brokers with: a PEM file, a directory of PEM files, or \"probe\" \
         (also the behaviour when unset: the system bundle, e.g. /etc/ssl/certs/ca-certificates.crt).";
    "ssl.ca.pem": Kind::Str, "", Any, "CA certificate(s) as a PEM string (added to ssl.ca.location's).";
    "ssl.certificate.location": Kind::Str, "", Any,
        "Client certificate chain (PEM file) for brokers that authenticate clients by TLS.";
    "ssl.certificate.pem": Kind::Str, "", Any, "Client certificate chain as a PEM string.";
    "ssl.key.location": Kind::Str, "", Any,
        "Client private key (PEM file: PKCS#8, PKCS#1 RSA or SEC1 EC).";
    "ssl.key.pem": Kind::Str, "", Any, "Client private key as a PEM string.";
    "ssl.key.password": Kind::Str, "", Any,
        "Passphrase of an encrypted client key (encrypted keys are refused with an error naming this property).";
    "ssl.endpoint.identification.algorithm": Kind::Enum(&[&["https"], &["none"]]), "https", Any,
        "https: the broker's certificate must name the host connected to; none: any name.";
    "enable.ssl.certificate.verification": Kind::Bool, "true", Any,
        "Verify the broker's certificate chain (false accepts any certificate: testing only).";
    "sasl.mechanisms" | "sasl.mechanism": Kind::Enum(&[&["GSSAPI", "gssapi"], &["PLAIN", "plain"],
        &["SCRAM-SHA-256", "scram-sha-256"], &["SCRAM-SHA-512", "scram-sha-512"],
        &["OAUTHBEARER", "oauthbearer"]]), "GSSAPI", Any,
        "SASL mechanism: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER (GSSAPI is not available).";
    "sasl.username": Kind::Str, "", Any, "SASL user name (PLAIN, SCRAM).";
    "sasl.password": Kind::Str, "", Any, "SASL password (PLAIN, SCRAM).";
    "sasl.oauthbearer.config": Kind::Str, "", Any,
        "OAUTHBEARER: \"principal=NAME [principalClaimName=sub] [scope=a,b] [scopeClaimName=scope] \
         [lifeSeconds=3600] [extension_NAME=value]...\" for the unsecured JWT (librdkafka's format).";
    "enable.sasl.oauthbearer.unsecure.jwt": Kind::Bool, "false", Any,
        "OAUTHBEARER: build an unsecured JWT from sasl.oauthbearer.config (development and testing).";
    "sasl.oauthbearer.token": Kind::Str, "", Any,
        "OAUTHBEARER: a token to send as is (gregor's own property; librdkafka sets one through a callback).";
    "zookeeper.connect": Kind::Str, "", Any,
        "ZooKeeper host:port list with optional /chroot, to find brokers in a ZooKeeper-era cluster.";
    "zookeeper.session.timeout.ms": int(1000, 600_000), "6000", Any,
        "ZooKeeper session timeout (and the longest wait for a ZooKeeper answer), as Kafka's consumer.";
    // The ZooKeeper-balanced consumer (src/zk/balanced.rs): Kafka 0.8's names and defaults.
    "consumer.id": Kind::Str, "", Consumer,
        "ZooKeeper-balanced consumer: member id after \"<group.id>_\" (default <host>-<ms>-<random>).";
    "rebalance.max.retries": int(0, 1000), "4", Consumer,
        "ZooKeeper-balanced consumer: rebalance attempts before one is reported as failed (then retried).";
    "rebalance.backoff.ms": int(0, 300_000), "2000", Consumer,
        "ZooKeeper-balanced consumer: how long to wait for a partition's previous owner to let go.";
    "acks" | "request.required.acks": Kind::Enum(&[&["-1", "all"], &["0"], &["1"]]), "-1", Producer,
        "Acknowledgements the leader waits for: 0, 1 or all (-1).";
    "request.timeout.ms": int(1, 900_000), "30000", Producer,
        "How long the broker waits for acks before answering a produce request.";
    "message.timeout.ms" | "delivery.timeout.ms": int(0, 2_147_483_647), "300000", Producer,
        "Time a message may take to be delivered, retries included (0 = forever).";
    "linger.ms" | "queue.buffering.max.ms": int(0, 900_000), "5", Producer,
        "Time to wait for more messages before sending a batch.";
    "batch.size": int(1, 2_147_483_647), "1000000", Producer, "Largest batch in bytes.";
    "batch.num.messages": int(1, 1_000_000), "10000", Producer, "Most messages in one batch.";
    "compression.type" | "compression.codec":
        Kind::Enum(&[&["none"], &["gzip"], &["snappy"], &["lz4"], &["zstd"]]), "none", Producer,
        "Compression codec for produced batches.";
    "compression.level": int(-1, 22), "-1", Producer, "Codec compression level; -1 the codec's default.";
    "retries" | "message.send.max.retries": int(0, 2_147_483_647), "2147483647", Producer,
        "How often a failed produce request is retried.";
    "retry.backoff.ms": int(1, 300_000), "100", Producer, "Wait before retrying a request.";
    "retry.backoff.max.ms": int(1, 300_000), "1000", Producer, "Longest wait before retrying.";
    "enable.idempotence": Kind::Bool, "false", Producer,
        "Exactly-once, in-order delivery per partition (producer id + sequence numbers).";
    "transactional.id": Kind::Str, "", Producer,
        "Enables transactions (and idempotence) under this id.";
    "transaction.timeout.ms": int(1000, 2_147_483_647), "60000", Producer,
        "How long the coordinator lets a transaction stay open before aborting it.";
    "queue.buffering.max.messages": int(0, 2_147_483_647), "100000", Producer,
        "Most messages waiting to be sent.";
    "queue.buffering.max.kbytes": int(1, 2_147_483_647), "1048576", Producer,
        "Most kilobytes waiting to be sent.";
    "partitioner": Kind::Enum(&[&["consistent_random"], &["murmur2_random"], &["murmur2"],
        &["consistent"], &["random"], &["fnv1a"], &["fnv1a_random"]]), "consistent_random", Producer,
        "How keyed and keyless messages are spread over partitions.";
    "group.id": Kind::Str, "", Consumer, "Consumer group id; needed for committed offsets.";
    "auto.offset.reset": Kind::Enum(&[&["latest", "largest", "end"], &["earliest", "smallest", "beginning"],
        &["error"]]), "latest", Consumer,
        "Where to start when there is no committed offset or it is out of range.";
    "enable.auto.commit": Kind::Bool, "true", Consumer, "Commit consumed offsets periodically.";
    "auto.commit.interval.ms": int(0, 86_400_000), "5000", Consumer, "Period of automatic commits.";
    "fetch.min.bytes": int(1, 100_000_000), "1", Consumer, "Least data the broker waits for.";
    "fetch.wait.max.ms": int(0, 300_000), "500", Consumer, "Longest the broker waits for fetch.min.bytes.";
    "fetch.max.bytes": int(0, 2_147_483_135), "52428800", Consumer, "Most data in one fetch response.";
    "max.partition.fetch.bytes" | "fetch.message.max.bytes": int(1, 1_000_000_000), "1048576", Consumer,
        "Most data per partition in one fetch response.";
    "queued.max.messages.kbytes": int(1, 2_097_151), "65536", Consumer,
        "Most prefetched data held per consumer, in kilobytes.";
    "isolation.level": Kind::Enum(&[&["read_committed"], &["read_uncommitted"]]), "read_committed", Consumer,
        "Whether messages of open or aborted transactions are returned.";
    "check.crcs": Kind::Bool, "false", Consumer, "Verify CRCs of fetched batches.";
    "enable.partition.eof": Kind::Bool, "false", Consumer,
        "Return an end-of-partition event when a consumer reaches the end.";
    "fetch.error.backoff.ms": int(0, 300_000), "500", Consumer,
        "Wait before fetching a partition again after a fetch error.";
    "client.rack": Kind::Str, "", Any,
        "The client's rack; consumers send it with fetches so a leader can name a replica in the same rack to fetch from (KIP-392).";
    // consumer groups (src/consumer/group): membership, rebalancing, offset commits
    "group.instance.id": Kind::Str, "", Consumer,
        "Static group membership id (KIP-345): a restart within session.timeout.ms keeps the assignment.";
    "session.timeout.ms": int(1, 3_600_000), "45000", Consumer,
        "The group drops a member that sends no heartbeat for this long.";
    "heartbeat.interval.ms": int(1, 3_600_000), "3000", Consumer,
        "Period of group heartbeats.";
    "max.poll.interval.ms": int(1, 86_400_000), "300000", Consumer,
        "Longest time between polls before the member leaves the group; also the rebalance timeout.";
    "partition.assignment.strategy": Kind::Str, "range,roundrobin", Consumer,
        "Assignors offered in JoinGroup, in order of preference: range, roundrobin, cooperative-sticky.";
    "enable.auto.offset.store": Kind::Bool, "true", Consumer,
        "Store the offset of each message poll returns, for the next (auto) commit.";
};

fn find(key: &str) -> Option<&'static Prop> {
    PROPS
        .iter()
        .find(|p| p.name == key || p.aliases.contains(&key))
}

/// Configuration properties, validated as they are set.
#[derive(Debug, Clone, Default)]
pub struct Config {
    values: BTreeMap<&'static str, String>,
    /// Where log lines go (librdkafka's `rd_kafka_conf_set_log_cb`).
    log_cb: Option<LogCallback>,
}

impl Config {
    /// An empty configuration: every property at its default.
    pub fn new() -> Self {
        Config::default()
    }

    /// Builds a configuration from pairs.
    ///
    /// # Errors
    /// The first unknown property or bad value.
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<Self> {
        let mut c = Config::new();
        for (k, v) in pairs {
            c.set(k, v)?;
        }
        Ok(c)
    }

    /// Sets a property.
    ///
    /// # Errors
    /// [`Error::Config`] naming the property if it is unknown or the value
    /// is bad; `_NOT_IMPLEMENTED` if it needs a Cargo feature this build
    /// lacks (`zookeeper.*`, `ssl.*`, `sasl.*`, `security.protocol` other
    /// than `plaintext`).
    pub fn set(&mut self, key: &str, value: &str) -> Result<&mut Self> {
        let prop = find(key).ok_or_else(|| Error::Config {
            key: key.to_string(),
            reason: "no such configuration property".into(),
        })?;
        let value = normalize(prop, key, value.trim())?;
        if prop.name == "debug" {
            crate::log::parse_debug(&value).map_err(|e| bad(key, e))?;
        }
        if let Some(feature) = missing_feature(prop.name, &value) {
            return Err(not_built(key, &value, feature));
        }
        self.values.insert(prop.name, value);
        Ok(self)
    }

    /// The value set for a property (by name or alias), or its default.
    /// `None` if the property does not exist.
    pub fn get(&self, key: &str) -> Option<&str> {
        let prop = find(key)?;
        Some(
            self.values
                .get(prop.name)
                .map_or(prop.default, String::as_str),
        )
    }

    /// True if the property was set explicitly.
    pub fn is_set(&self, key: &str) -> bool {
        find(key).is_some_and(|p| self.values.contains_key(p.name))
    }

    /// The properties set explicitly, canonical names, in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.values.iter().map(|(k, v)| (*k, v.as_str()))
    }

    /// Refuses properties set for the other kind of client.
    ///
    /// # Errors
    /// [`Error::Config`] naming the first property `role` does not read.
    pub fn check_role(&self, role: Role) -> Result<()> {
        for name in self.values.keys() {
            let Some(p) = find(name) else { continue };
            if p.role != Role::Any && p.role != role {
                let what = if p.role == Role::Producer {
                    "producer"
                } else {
                    "consumer"
                };
                return Err(Error::Config {
                    key: (*name).to_string(),
                    reason: format!("is a {what} property and cannot be used here"),
                });
            }
        }
        Ok(())
    }

    /// Refuses properties this version of gregor reads but does not act on
    /// yet (`not_yet`), when set explicitly, so none is silently ignored.
    ///
    /// # Errors
    /// [`Error::Config`] naming the first such property set, and `why`.
    pub fn check_not_yet(&self, not_yet: &[&str], why: &str) -> Result<()> {
        match not_yet.iter().find(|k| self.is_set(k)) {
            Some(k) => Err(Error::Config {
                key: (*k).to_string(),
                reason: format!("not supported yet: {why}"),
            }),
            None => Ok(()),
        }
    }

    /// An integer property.
    ///
    /// # Panics
    /// If `key` is not an integer property (a bug in gregor, not user input).
    pub fn int(&self, key: &str) -> i64 {
        let v = self
            .get(key)
            .unwrap_or_else(|| panic!("unknown property {key}"));
        v.parse()
            .unwrap_or_else(|_| panic!("property {key} is not an integer"))
    }

    /// A duration property in milliseconds (negative reads as zero).
    pub fn ms(&self, key: &str) -> Duration {
        Duration::from_millis(self.int(key).max(0) as u64)
    }

    /// A boolean property.
    pub fn bool(&self, key: &str) -> bool {
        self.get(key) == Some("true")
    }

    /// A string property.
    pub fn str(&self, key: &str) -> &str {
        self.get(key).unwrap_or("")
    }

    /// Sets (or with `None` clears) the log callback of the clients made
    /// from this configuration from now on; without one they log to stderr
    /// in librdkafka's format (src/log.rs).
    pub fn set_log_callback(&mut self, cb: Option<LogCallback>) -> &mut Self {
        self.log_cb = cb;
        self
    }

    /// The logger of a new client of `kind` ("producer" or "consumer"):
    /// `log_level`, `debug`, `log.*` and the log callback.
    pub fn logger(&self, kind: &str) -> Logger {
        let settings = LogSettings {
            level: self.int("log_level") as i32,
            debug: crate::log::parse_debug(self.str("debug")).unwrap_or(0),
            thread_name: self.bool("log.thread.name"),
            connection_close: self.bool("log.connection.close"),
            queue: self.bool("log.queue"),
            callback: self.log_cb.clone(),
        };
        Logger::new(&settings, self.str("client.id"), kind)
    }

    /// Every known property: (name, default, description), for `-X list`.
    pub fn properties() -> impl Iterator<Item = (&'static str, &'static str, &'static str)> {
        PROPS.iter().map(|p| (p.name, p.default, p.doc))
    }
}

/// The Cargo feature that property `name` (for `security.protocol`, its
/// `value`) needs, if this build was made without it: the property would
/// be silently useless otherwise.
fn missing_feature(name: &str, value: &str) -> Option<&'static str> {
    let zookeeper = name.starts_with("zookeeper.")
        || matches!(
            name,
            "consumer.id" | "rebalance.max.retries" | "rebalance.backoff.ms"
        );
    let tls = name.starts_with("ssl.")
        || name == "enable.ssl.certificate.verification"
        || (name == "security.protocol" && value.ends_with("ssl"));
    let sasl = name.starts_with("sasl.")
        || name.starts_with("enable.sasl.")
        || (name == "security.protocol" && value.starts_with("sasl"));
    if zookeeper && !cfg!(feature = "zookeeper") {
        Some("zookeeper")
    } else if tls && !cfg!(feature = "tls") {
        Some("tls")
    } else if sasl && !cfg!(feature = "sasl") {
        Some("sasl")
    } else {
        None
    }
}

/// `_NOT_IMPLEMENTED`: `key` (set to `value`) needs Cargo feature
/// `feature`, which this build of gregor was made without.
pub(crate) fn not_built(key: &str, value: &str, feature: &str) -> Error {
    Error::local(
        crate::error::local::NOT_IMPLEMENTED,
        format!(
            "configuration property \"{key}\"=\"{value}\" needs the `{feature}` feature, \
             which this gregor was built without"
        ),
    )
}

fn bad(key: &str, reason: String) -> Error {
    Error::Config {
        key: key.to_string(),
        reason,
    }
}

fn normalize(prop: &Prop, key: &str, value: &str) -> Result<String> {
    match prop.kind {
        Kind::Int { min, max } => {
            let n: i64 = value
                .parse()
                .map_err(|_| bad(key, format!("\"{value}\" is not an integer")))?;
            if n < min || n > max {
                return Err(bad(key, format!("{n} is out of range {min}..{max}")));
            }
            Ok(n.to_string())
        }
        Kind::Bool => match value.to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" | "on" => Ok("true".into()),
            "false" | "0" | "no" | "off" => Ok("false".into()),
            _ => Err(bad(key, format!("\"{value}\" is not true or false"))),
        },
        Kind::Str => Ok(value.to_string()),
        Kind::Enum(choices) => {
            let lower = value.to_ascii_lowercase();
            choices
                .iter()
                .find(|c| c.contains(&lower.as_str()))
                .map(|c| c[0].to_string())
                .ok_or_else(|| {
                    let all: Vec<&str> = choices.iter().flat_map(|c| c.iter().copied()).collect();
                    bad(key, format!("\"{value}\" is not one of {}", all.join(", ")))
                })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn properties_of_left_out_features_are_refused() {
        for (key, value, feature, built) in [
            (
                "zookeeper.connect",
                "127.0.0.1:2181",
                "zookeeper",
                cfg!(feature = "zookeeper"),
            ),
            (
                "rebalance.backoff.ms",
                "100",
                "zookeeper",
                cfg!(feature = "zookeeper"),
            ),
            (
                "ssl.ca.location",
                "/tmp/ca.pem",
                "tls",
                cfg!(feature = "tls"),
            ),
            ("security.protocol", "SSL", "tls", cfg!(feature = "tls")),
            ("sasl.username", "alice", "sasl", cfg!(feature = "sasl")),
            (
                "security.protocol",
                "sasl_plaintext",
                "sasl",
                cfg!(feature = "sasl"),
            ),
        ] {
            let r = Config::new().set(key, value).map(|_| ());
            if built {
                assert!(r.is_ok(), "{key}={value}: {r:?}");
            } else {
                let e = r.unwrap_err();
                assert_eq!(e.code(), crate::error::local::NOT_IMPLEMENTED, "{e}");
                let msg = e.to_string();
                assert!(
                    msg.contains(key) && msg.contains(&format!("`{feature}`")),
                    "{msg}"
                );
            }
        }
        assert!(Config::new().set("security.protocol", "plaintext").is_ok());
    }

    #[test]
    fn unknown_property_is_an_error_naming_it() {
        let e = Config::new().set("bootstrap.server", "x").unwrap_err();
        assert!(e.to_string().contains("bootstrap.server"), "{e}");
        assert_eq!(e.code(), crate::error::local::INVALID_CONFIG);
    }

    #[test]
    fn bad_values_are_errors_naming_the_property() {
        let mut c = Config::new();
        for (k, v) in [
            ("linger.ms", "soon"),
            ("linger.ms", "-1"),
            ("acks", "2"),
            ("enable.idempotence", "maybe"),
        ] {
            let e = c.set(k, v).unwrap_err();
            assert!(e.to_string().contains(k), "{e}");
        }
    }

    #[test]
    fn aliases_and_defaults() {
        let mut c = Config::new();
        assert_eq!(c.int("linger.ms"), 5);
        assert_eq!(c.get("acks"), Some("-1"));
        c.set("queue.buffering.max.ms", "20").unwrap();
        c.set("acks", "all").unwrap();
        c.set("metadata.broker.list", "h:1").unwrap();
        c.set("auto.offset.reset", "smallest").unwrap();
        assert_eq!(c.int("linger.ms"), 20);
        assert_eq!(c.get("acks"), Some("-1"));
        assert_eq!(c.str("bootstrap.servers"), "h:1");
        assert_eq!(c.str("auto.offset.reset"), "earliest");
        assert_eq!(c.get("nope"), None);
    }

    #[test]
    fn role_mismatch_is_refused() {
        let c = Config::from_pairs([("group.id", "g")]).unwrap();
        assert!(c.check_role(Role::Consumer).is_ok());
        let e = c.check_role(Role::Producer).unwrap_err();
        assert!(e.to_string().contains("group.id"));
    }
}
