//! Configuration: string properties with librdkafka's names, meanings and
//! defaults (CONFIGURATION.md of librdkafka), plus `zookeeper.connect`.
//!
//! One table, `PROPS`, knows every property of librdkafka 2.15's
//! CONFIGURATION.md by name (tests/fixtures/librdkafka-2.15-properties.txt
//! is that list; docs/CONFIGURATION.md is generated from this table), as
//! tolerant as librdkafka and no more:
//! - a name librdkafka does not know either, or a bad value, is an
//!   [`Error::Config`] naming the property;
//! - a property gregor does not act on is accepted, and the client logs a
//!   `CONFWARN` warning at creation saying it has no effect
//!   ([`Config::warnings`]);
//! - a property of the other role (a producer property on a consumer, a
//!   producer or consumer property on an admin client) is a warning too, as
//!   librdkafka's "is a producer property and will be ignored by this
//!   consumer instance";
//! - callbacks and pointers (`error_cb`, `opaque`, ...) are known by name
//!   but set through a dedicated function, as librdkafka.
//!
//! Aliases (`metadata.broker.list`, `queue.buffering.max.ms`, …) are stored
//! under the canonical name.

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
    /// A number of milliseconds that may have a fraction (librdkafka's
    /// `linger.ms` is a float).
    Float {
        min: i64,
        max: i64,
    },
    Bool,
    Str,
    /// Allowed values; each entry lists a canonical value then its aliases.
    Enum(&'static [&'static [&'static str]]),
    /// A callback or pointer, set through a dedicated function.
    Api,
}

/// What gregor does with a property.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// gregor acts on it.
    Implemented,
    /// Accepted (librdkafka knows it) but without effect in gregor; setting
    /// it makes the client log a warning.
    NoEffect,
}

/// The kind of client a configuration is used for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientKind {
    /// A producer.
    Producer,
    /// A consumer.
    Consumer,
    /// An admin client.
    Admin,
}

impl ClientKind {
    /// "producer", "consumer" or "admin".
    pub fn name(self) -> &'static str {
        match self {
            ClientKind::Producer => "producer",
            ClientKind::Consumer => "consumer",
            ClientKind::Admin => "admin",
        }
    }
}

/// One row of the property table, as [`Config::properties`] lists it.
#[derive(Debug, Clone, Copy)]
pub struct PropertyInfo {
    /// Canonical name.
    pub name: &'static str,
    /// Other names for it.
    pub aliases: &'static [&'static str],
    /// Who reads it.
    pub role: Role,
    /// Whether gregor acts on it.
    pub status: Status,
    /// Default value ("" for none).
    pub default: &'static str,
    /// The values it takes: "integer 0 .. 100", "boolean", "string",
    /// "one of a, b", or "callback (dedicated function)".
    pub kind: &'static str,
    /// Integer range, for integer properties.
    pub range: Option<(i64, i64)>,
    /// Allowed values, for enumerations (canonical names).
    pub values: &'static [&'static [&'static str]],
    /// A secret: its value is never shown (dumps say `[redacted]`).
    pub secret: bool,
    /// What it means.
    pub doc: &'static str,
}

/// One known property.
struct Prop {
    name: &'static str,
    aliases: &'static [&'static str],
    kind: Kind,
    default: &'static str,
    role: Role,
    status: Status,
    doc: &'static str,
}

const MS_MAX: i64 = 86_400_000 * 365;

macro_rules! props {
    ($( $name:literal $(| $alias:literal)* : $kind:expr, $default:literal, $role:ident $(, $status:ident)?, $doc:literal; )*) => {
        &[$( Prop {
            name: $name,
            aliases: &[$($alias),*],
            kind: $kind,
            default: $default,
            role: Role::$role,
            status: status!($($status)?),
            doc: $doc,
        }, )*]
    };
}

/// A row's status: gregor's own rows (no status written) are implemented;
/// librdkafka's rows say `Yes` (implemented) or `No` (accepted, no effect).
macro_rules! status {
    () => {
        Status::Implemented
    };
    (Yes) => {
        Status::Implemented
    };
    (No) => {
        Status::NoEffect
    };
}

const fn int(min: i64, max: i64) -> Kind {
    Kind::Int { min, max }
}

static PROPS: &[Prop] = props! {
    "bootstrap.servers" | "metadata.broker.list": Kind::Str, "", Any,
        "Initial list of brokers as host:port[,host:port...].";
    "client.id": Kind::Str, "gregor", Any, "Client identifier sent to brokers.";
    // Statistics: emitted by a timer, delivered by poll/flush.
    "statistics.interval.ms": int(0, 86_400_000), "0", Any,
        "How often the statistics callback gets the client's statistics as JSON (0: never).";
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
    "linger.ms" | "queue.buffering.max.ms": Kind::Float { min: 0, max: 900_000 }, "5", Producer,
        "Time to wait for more messages before sending a batch (fractions of a millisecond allowed, as librdkafka).";
    "batch.size": int(1, 2_147_483_647), "1000000", Producer, "Largest batch in bytes.";
    "batch.num.messages": int(1, 1_000_000), "10000", Producer, "Most messages in one batch.";
    "compression.type" | "compression.codec":
        Kind::Enum(&[&["none"], &["gzip"], &["snappy"], &["lz4"], &["zstd"]]), "none", Producer,
        "Compression codec for produced batches.";
    "compression.level": int(-1, 22), "-1", Producer, "Codec compression level; -1 the codec's default.";
    "retries" | "message.send.max.retries": int(0, 2_147_483_647), "2147483647", Producer,
        "How often a failed produce request is retried.";
    "retry.backoff.ms": int(1, 300_000), "100", Any,
        "First wait before retrying a failed request (produce, metadata, coordinator, admin); doubles per retry.";
    "retry.backoff.max.ms": int(1, 300_000), "1000", Any,
        "Longest wait before retrying a failed request.";
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
    "delivery.report.only.error": Kind::Bool, "false", Producer,
        "Only failed messages get a delivery report (librdkafka's).";
    "group.id": Kind::Str, "", Consumer, "Consumer group id; needed for committed offsets.";
    "auto.offset.reset": Kind::Enum(&[&["latest", "largest", "end"], &["earliest", "smallest", "beginning"],
        &["error"]]), "latest", Consumer,
        "Where to start when there is no committed offset or it is out of range.";
    "enable.auto.commit" | "auto.commit.enable": Kind::Bool, "true", Consumer, "Commit consumed offsets periodically.";
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
        "The client's rack; consumers send it with fetches so a leader can name a replica in the same rack to fetch from (KIP-392), and in their group subscription, where the range and cooperative-sticky assignors prefer giving a member partitions with a replica in its rack (KIP-881).";
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
    // — every other property of librdkafka 2.15's CONFIGURATION.md —
    // (tests/fixtures/librdkafka-2.15-properties.txt). `Yes`: gregor acts on
    // it; `No`: accepted so that configurations written for librdkafka work,
    // with a CONFWARN warning at client creation saying it has no effect.
    // Kind::Api rows are callbacks and pointers librdkafka sets through a
    // dedicated function, never as a string.
    "builtin.features": Kind::Str, "gzip, snappy, ssl, sasl, regex, lz4, sasl_gssapi, sasl_plain, sasl_scram, plugins, zstd, sasl_oauthbearer, http, oidc", Any, No,
        "Indicates the builtin features for this build of librdkafka.";
    "message.copy.max.bytes": int(0, 1000000000), "65535", Any, No,
        "Maximum size for message to be copied to buffer.";
    "metadata.recovery.strategy": Kind::Enum(&[&["none"], &["rebootstrap"]]), "rebootstrap", Any, Yes,
        "Controls how the client recovers when none of the brokers known to it is available. With `rebootstrap` the client also goes back to `bootstrap.servers` when a broker answers Metadata with REBOOTSTRAP_REQUIRED (KIP-1102).";
    "metadata.recovery.rebootstrap.trigger.ms": int(0, 2147483647), "300000", Any, Yes,
        "If a client configured to rebootstrap using `metadata.recovery.strategy=rebootstrap` is unable to obtain metadata from any of the brokers for this interval, client repeats the bootstrap process using `bootstrap.servers` configuration and brokers added through `rd_kafka_brokers_add()`.";
    "topic.metadata.refresh.fast.interval.ms": int(1, 60000), "100", Any, Yes,
        "When a topic loses its leader a new metadata request will be enqueued immediately and then with this initial interval, exponentially increasing upto `retry.backoff.max.ms`, until the topic metadata has been refreshed.";
    "topic.metadata.refresh.fast.cnt": int(0, 1000), "10", Any, No,
        "Deprecated: No longer used.";
    "topic.metadata.refresh.sparse": Kind::Bool, "true", Any, No,
        "Sparse metadata requests (consumes less network bandwidth)";
    "topic.metadata.propagation.max.ms": int(0, 3600000), "30000", Any, No,
        "Apache Kafka topic creation is asynchronous and it takes some time for a new topic to propagate throughout the cluster to all brokers.";
    "topic.blacklist": Kind::Str, "", Any, No,
        "Topic blacklist, a comma-separated list of regular expressions for matching topic names that should be ignored in broker metadata information as if the topics did not exist.";
    "debug": Kind::Str, "", Any, Yes,
        "A comma-separated list of debug contexts to enable.";
    "socket.blocking.max.ms": int(1, 60000), "1000", Any, No,
        "Deprecated: No longer used.";
    "socket.send.buffer.bytes": int(0, 100000000), "0", Any, Yes,
        "Broker socket send buffer size.";
    "socket.receive.buffer.bytes": int(0, 100000000), "0", Any, Yes,
        "Broker socket receive buffer size.";
    "socket.keepalive.enable": Kind::Bool, "false", Any, Yes,
        "Enable TCP keep-alives (SO_KEEPALIVE) on broker sockets";
    "socket.max.fails": int(0, 1000000), "1", Any, No,
        "Disconnect from broker when this number of send failures (e.g., timed out requests) is reached.";
    "broker.address.ttl": int(0, 86400000), "1000", Any, No,
        "How long to cache the broker address resolving results (milliseconds).";
    "broker.address.family": Kind::Enum(&[&["any"], &["v4"], &["v6"]]), "any", Any, Yes,
        "Allowed broker IP address families: any, v4, v6";
    "connections.max.idle.ms": int(0, 2147483647), "0", Any, Yes,
        "Close broker connections after the specified time of inactivity.";
    "reconnect.backoff.jitter.ms": int(0, 3600000), "0", Any, No,
        "Deprecated: No longer used.";
    "enabled_events": int(0, 2147483647), "0", Any, Yes,
        "See `rd_kafka_conf_set_events()`";
    "error_cb": Kind::Api, "", Any, Yes,
        "Error callback (set with rd_kafka_conf_set_error_cb())";
    "throttle_cb": Kind::Api, "", Any, Yes,
        "Throttle callback (set with rd_kafka_conf_set_throttle_cb())";
    "stats_cb": Kind::Api, "", Any, Yes,
        "Statistics callback (set with rd_kafka_conf_set_stats_cb())";
    "log_cb": Kind::Api, "", Any, Yes,
        "Log callback (set with rd_kafka_conf_set_log_cb())";
    "log_level": int(0, 7), "6", Any, Yes,
        "Logging level (syslog(3) levels)";
    "log.queue": Kind::Bool, "false", Any, Yes,
        "Disable spontaneous log_cb from internal librdkafka threads, instead enqueue log messages on queue set with `rd_kafka_set_log_queue()` and serve log callbacks or events through the standard poll APIs.";
    "log.thread.name": Kind::Bool, "true", Any, Yes,
        "Print internal thread name in log messages (useful for debugging librdkafka internals)";
    "enable.random.seed": Kind::Bool, "true", Any, No,
        "If enabled librdkafka will initialize the PRNG with srand(current_time.milliseconds) on the first invocation of rd_kafka_new() (required only if rand_r() is not available on your platform).";
    "log.connection.close": Kind::Bool, "true", Any, Yes,
        "Log broker disconnects.";
    "background_event_cb": Kind::Api, "", Any, No,
        "Background queue event callback (set with rd_kafka_conf_set_background_event_cb())";
    "socket_cb": Kind::Api, "", Any, No,
        "Socket creation callback to provide race-free CLOEXEC";
    "connect_cb": Kind::Api, "", Any, No,
        "Socket connect callback";
    "closesocket_cb": Kind::Api, "", Any, No,
        "Socket close callback";
    "open_cb": Kind::Api, "", Any, No,
        "File open callback to provide race-free CLOEXEC";
    "resolve_cb": Kind::Api, "", Any, No,
        "Address resolution callback (set with rd_kafka_conf_set_resolve_cb()).";
    "opaque": Kind::Api, "", Any, Yes,
        "Application opaque (set with rd_kafka_conf_set_opaque())";
    "default_topic_conf": Kind::Api, "", Any, No,
        "Default topic configuration for automatically subscribed topics";
    "internal.termination.signal": int(0, 128), "0", Any, No,
        "Signal that librdkafka will use to quickly terminate on rd_kafka_destroy().";
    "api.version.fallback.ms": int(0, 604800000), "0", Any, No,
        "Deprecated: **Post-deprecation actions: remove this configuration property, brokers < 0.10.0 won't be supported anymore in librdkafka 3.x.** Dictates how long the `broker.version.fallback` fallback is used in the case the ApiVersionRequest fails.";
    "allow.auto.create.topics": Kind::Bool, "false", Any, Yes,
        "Allow automatic topic creation on the broker when subscribing to or assigning non-existent topics.";
    "ssl.cipher.suites": Kind::Str, "", Any, No,
        "A cipher suite is a named combination of authentication, encryption, MAC and key exchange algorithm used to negotiate the security settings for a network connection using TLS or SSL network protocol.";
    "ssl.curves.list": Kind::Str, "", Any, No,
        "The supported-curves extension in the TLS ClientHello message specifies the curves (standard/named, or 'explicit' GF(2^k) or GF(p)) the client is willing to have the server use.";
    "ssl.sigalgs.list": Kind::Str, "", Any, No,
        "The client uses the TLS ClientHello signature_algorithms extension to indicate to the server which signature/hash algorithm pairs may be used in digital signatures.";
    "ssl_key": Kind::Api, "", Any, No,
        "Client's private key as set by rd_kafka_conf_set_ssl_cert()";
    "ssl_certificate": Kind::Api, "", Any, No,
        "Client's public key as set by rd_kafka_conf_set_ssl_cert()";
    "https.ca.location": Kind::Str, "", Any, Yes,
        "File or directory path to CA certificate(s) for verifying HTTPS endpoints, like `sasl.oauthbearer.token.endpoint.url` used for OAUTHBEARER/OIDC authentication.";
    "https.ca.pem": Kind::Str, "", Any, Yes,
        "CA certificate string (PEM format) for verifying HTTPS endpoints.";
    "ssl_ca": Kind::Api, "", Any, No,
        "CA certificate as set by rd_kafka_conf_set_ssl_cert()";
    "ssl.ca.certificate.stores": Kind::Str, "Root", Any, No,
        "Comma-separated list of Windows Certificate stores to load CA certificates from.";
    "ssl.crl.location": Kind::Str, "", Any, No,
        "Path to CRL for verifying broker's certificate validity.";
    "ssl.keystore.location": Kind::Str, "", Any, No,
        "Path to client's keystore (PKCS#12) used for authentication.";
    "ssl.keystore.password": Kind::Str, "", Any, No,
        "Client's keystore (PKCS#12) password.";
    "ssl.providers": Kind::Str, "", Any, No,
        "Comma-separated list of OpenSSL 3.0.x implementation providers.";
    "ssl.engine.location": Kind::Str, "", Any, No,
        "Deprecated: Path to OpenSSL engine library.";
    "ssl.engine.id": Kind::Str, "dynamic", Any, No,
        "OpenSSL engine id is the name used for loading engine.";
    "ssl_engine_callback_data": Kind::Api, "", Any, No,
        "OpenSSL engine callback data (set with rd_kafka_conf_set_engine_callback_data()).";
    "ssl.certificate.verify_cb": Kind::Api, "", Any, No,
        "Callback to verify the broker certificate chain.";
    "sasl.kerberos.service.name": Kind::Str, "kafka", Any, No,
        "Kerberos principal name that Kafka runs as, not including /hostname@REALM";
    "sasl.kerberos.principal": Kind::Str, "kafkaclient", Any, No,
        "This client's Kerberos principal name.";
    "sasl.kerberos.kinit.cmd": Kind::Str, "kinit -R -t \"%{sasl.kerberos.keytab}\" -k %{sasl.kerberos.principal} || kinit -t \"%{sasl.kerberos.keytab}\" -k %{sasl.kerberos.principal}", Any, No,
        "Shell command to refresh or acquire the client's Kerberos ticket.";
    "sasl.kerberos.keytab": Kind::Str, "", Any, No,
        "Path to Kerberos keytab file.";
    "sasl.kerberos.min.time.before.relogin": int(0, 86400000), "60000", Any, No,
        "Minimum time in milliseconds between key refresh attempts.";
    "oauthbearer_token_refresh_cb": Kind::Api, "", Any, Yes,
        "SASL/OAUTHBEARER token refresh callback (set with rd_kafka_conf_set_oauthbearer_token_refresh_cb(), triggered by rd_kafka_poll(), et.al.";
    "sasl.oauthbearer.method": Kind::Enum(&[&["default"], &["oidc"]]), "default", Any, Yes,
        "Set to \"default\" or \"oidc\" to control which login method to be used.";
    "sasl.oauthbearer.client.id" | "sasl.oauthbearer.client.credentials.client.id": Kind::Str, "", Any, Yes,
        "Public identifier for the application.";
    "sasl.oauthbearer.client.secret" | "sasl.oauthbearer.client.credentials.client.secret": Kind::Str, "", Any, Yes,
        "Client secret only known to the application and the authorization server.";
    "sasl.oauthbearer.scope": Kind::Str, "", Any, Yes,
        "Client use this to specify the scope of the access request to the broker.";
    "sasl.oauthbearer.extensions": Kind::Str, "", Any, Yes,
        "Allow additional information to be provided to the broker.";
    "sasl.oauthbearer.token.endpoint.url": Kind::Str, "", Any, Yes,
        "OAuth/OIDC issuer token endpoint HTTP(S) URI used to retrieve token.";
    "sasl.oauthbearer.sub.claim.name": Kind::Str, "sub", Any, Yes,
        "JWT claim name to use as the subject (principal) when validating OIDC access tokens.";
    "sasl.oauthbearer.grant.type": Kind::Enum(&[&["client_credentials"], &["urn:ietf:params:oauth:grant-type:jwt-bearer"]]), "client_credentials", Any, No,
        "OAuth grant type to use when communicating with the identity provider.";
    "sasl.oauthbearer.assertion.algorithm": Kind::Enum(&[&["RS256"], &["ES256"]]), "RS256", Any, No,
        "Algorithm the client should use to sign the assertion sent to the identity provider and in the OAuth alg header in the JWT assertion.";
    "sasl.oauthbearer.assertion.private.key.file": Kind::Str, "", Any, No,
        "Path to client's private key (PEM) used for authentication when using the JWT assertion.";
    "sasl.oauthbearer.assertion.private.key.passphrase": Kind::Str, "", Any, No,
        "Private key passphrase for `sasl.oauthbearer.assertion.private.key.file` or `sasl.oauthbearer.assertion.private.key.pem`.";
    "sasl.oauthbearer.assertion.private.key.pem": Kind::Str, "", Any, No,
        "Client's private key (PEM) used for authentication when using the JWT assertion.";
    "sasl.oauthbearer.assertion.file": Kind::Str, "", Any, No,
        "Path to the assertion file.";
    "sasl.oauthbearer.assertion.claim.aud": Kind::Str, "", Any, No,
        "JWT audience claim.";
    "sasl.oauthbearer.assertion.claim.exp.seconds": int(1, 2147483647), "300", Any, No,
        "Assertion expiration time in seconds.";
    "sasl.oauthbearer.assertion.claim.iss": Kind::Str, "", Any, No,
        "JWT issuer claim.";
    "sasl.oauthbearer.assertion.claim.jti.include": Kind::Bool, "false", Any, No,
        "JWT ID claim.";
    "sasl.oauthbearer.assertion.claim.nbf.seconds": int(0, 2147483647), "60", Any, No,
        "Assertion not before time in seconds.";
    "sasl.oauthbearer.assertion.claim.sub": Kind::Str, "", Any, No,
        "JWT subject claim.";
    "sasl.oauthbearer.assertion.jwt.template.file": Kind::Str, "", Any, No,
        "Path to the JWT template file.";
    "sasl.oauthbearer.metadata.authentication.type": Kind::Enum(&[&["none"], &["azure_imds"], &["aws_iam"]]), "none", Any, No,
        "Type of metadata-based authentication to use for OAUTHBEARER/OIDC `azure_imds` authenticates using the Azure IMDS endpoint.";
    "plugin.library.paths": Kind::Str, "", Any, No,
        "List of plugin libraries to load (; separated).";
    "interceptors": Kind::Api, "", Any, No,
        "Interceptors added through rd_kafka_conf_interceptor_add_..() and any configuration handled by interceptors.";
    "group.protocol.type": Kind::Str, "consumer", Consumer, No,
        "Group protocol type for the `classic` group protocol.";
    "group.protocol": Kind::Enum(&[&["classic"], &["consumer"]]), "classic", Consumer, Yes,
        "Group protocol: `classic` (JoinGroup/SyncGroup) or `consumer`, the broker-driven protocol of KIP-848 (ConsumerGroupHeartbeat; session.timeout.ms, heartbeat.interval.ms and partition.assignment.strategy are then the broker's).";
    "group.remote.assignor": Kind::Str, "", Consumer, Yes,
        "With group.protocol=consumer: the broker-side assignor (uniform or range); empty lets the broker choose.";
    "coordinator.query.interval.ms": int(1, 3600000), "600000", Consumer, No,
        "How often to query for the current client group coordinator.";
    "queued.min.messages": int(1, 10000000), "100000", Consumer, Yes,
        "Minimum number of messages per topic+partition librdkafka tries to maintain in the local consumer queue.";
    "fetch.queue.backoff.ms": int(0, 300000), "1000", Consumer, No,
        "How long to postpone the next fetch request for a topic+partition in case the current fetch queue thresholds (queued.min.messages or queued.max.messages.kbytes) have been exceded.";
    "offset.store.method": Kind::Enum(&[&["none"], &["file"], &["broker"]]), "broker", Consumer, No,
        "Deprecated: Offset commit store method: 'file' - DEPRECATED: local file store (offset.store.path, et.al), 'broker' - broker commit store (requires Apache Kafka 0.8.2 or later on the broker).";
    "consume_cb": Kind::Api, "", Consumer, No,
        "Message consume callback (set with rd_kafka_conf_set_consume_cb()).";
    "rebalance_cb": Kind::Api, "", Consumer, Yes,
        "Called after consumer group has been rebalanced (set with rd_kafka_conf_set_rebalance_cb()).";
    "offset_commit_cb": Kind::Api, "", Consumer, Yes,
        "Offset commit result propagation callback.";
    "max.poll.records": int(1, 2147483647), "500", Consumer, No,
        "The maximum number of records returned in a single call to `rd_kafka_share_poll()`.";
    "share.acknowledgement.mode": Kind::Str, "implicit", Consumer, No,
        "Acknowledgement mode for share consumers.";
    "enable.gapless.guarantee": Kind::Bool, "false", Producer, No,
        "**EXPERIMENTAL**: subject to change or removal.";
    "queue.buffering.backpressure.threshold": int(1, 1000000), "1", Producer, No,
        "The threshold of outstanding not yet transmitted broker requests needed to backpressure the producer's message accumulator.";
    "delivery.report.only.error": Kind::Bool, "false", Producer, Yes,
        "Only provide delivery reports for failed messages.";
    "dr_cb": Kind::Api, "", Producer, Yes,
        "Delivery report callback (set with rd_kafka_conf_set_dr_cb())";
    "dr_msg_cb": Kind::Api, "", Producer, Yes,
        "Delivery report callback (set with rd_kafka_conf_set_dr_msg_cb())";
    "sticky.partitioning.linger.ms": int(0, 900000), "10", Producer, Yes,
        "Delay in milliseconds to wait to assign new sticky partitions for each topic.";
    "client.dns.lookup": Kind::Enum(&[&["use_all_dns_ips"], &["resolve_canonical_bootstrap_servers_only"]]), "use_all_dns_ips", Any, Yes,
        "Controls how the client uses DNS lookups.";
    "enable.metrics.push": Kind::Bool, "true", Any, No,
        "Whether to enable pushing of client metrics to the cluster, if the cluster has a client metrics subscription which matches this client";
    "queuing.strategy": Kind::Enum(&[&["fifo"], &["lifo"]]), "fifo", Producer, No,
        "**EXPERIMENTAL**: subject to change or removal.";
    "produce.offset.report": Kind::Bool, "false", Producer, No,
        "Deprecated: No longer used.";
    "partitioner_cb": Kind::Api, "", Producer, No,
        "Custom partitioner callback (set with rd_kafka_topic_conf_set_partitioner_cb())";
    "msg_order_cmp": Kind::Api, "", Producer, No,
        "**EXPERIMENTAL**: subject to change or removal.";
    "offset.store.path": Kind::Str, ".", Consumer, No,
        "Deprecated: Path to local file for storing offsets.";
    "offset.store.sync.interval.ms": int(-1, 86400000), "-1", Consumer, No,
        "Deprecated: fsync() interval for the offset file, in milliseconds.";
    "consume.callback.max.messages": int(0, 1000000), "0", Consumer, No,
        "Maximum number of messages to dispatch in one `rd_kafka_consume_callback*()` call (0 = unlimited).";
    // librdkafka's hidden properties (rdkafka_conf.c 2.12.1, `_RK_HIDDEN`, not
    // in its CONFIGURATION.md) that programs written for librdkafka read or set.
    "enable.sparse.connections": Kind::Bool, "true", Any, No,
        "When enabled the client will only connect to brokers it needs to communicate with. When disabled the client will maintain connections to all brokers in the cluster. gregor's clients always connect sparsely: a connection to a broker is made when a request is first sent there.";
    // librdkafka's test properties (rdkafka_conf.c, not in its CONFIGURATION.md):
    // a private mock cluster (src/mock) for this client.
    "test.mock.num.brokers": int(0, 10000), "0", Any,
        "Number of mock brokers to create (gregor's own mock cluster, `gregor::mock`): overrides bootstrap.servers with their list; 0 = off.";
    "test.mock.broker.rtt": int(0, 3_600_000), "0", Any,
        "Response delay of every mock broker, in ms (with test.mock.num.brokers).";
};

fn find(key: &str) -> Option<&'static Prop> {
    PROPS
        .iter()
        .find(|p| p.name == key || p.aliases.contains(&key))
}

/// Properties whose values are secrets (librdkafka's `_RK_SENSITIVE` ones,
/// and gregor's `sasl.oauthbearer.token`): shown as `[redacted]` in dumps,
/// never in logs or errors.
const SECRETS: &[&str] = &[
    "sasl.username",
    "sasl.password",
    "sasl.oauthbearer.config",
    "sasl.oauthbearer.token",
    "sasl.oauthbearer.client.secret",
    "sasl.oauthbearer.assertion.private.key.file",
    "sasl.oauthbearer.assertion.private.key.pem",
    "sasl.oauthbearer.assertion.private.key.passphrase",
    "ssl.key.location",
    "ssl.key.password",
    "ssl.key.pem",
    "ssl.ca.pem",
    "ssl.keystore.password",
];

/// librdkafka's `debug` contexts (CONFIGURATION.md of librdkafka 2.15).
pub const DEBUG_CONTEXTS: &[&str] = &[
    "generic",
    "broker",
    "topic",
    "metadata",
    "feature",
    "queue",
    "msg",
    "protocol",
    "cgrp",
    "security",
    "fetch",
    "interceptor",
    "plugin",
    "consumer",
    "admin",
    "eos",
    "mock",
    "assignor",
    "conf",
    "telemetry",
    "all",
];

/// What a dump shows for a secret's value.
pub const REDACTED: &str = "[redacted]";

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

    /// Sets a property. A property gregor does not act on is accepted (see
    /// [`Config::warnings`]).
    ///
    /// # Errors
    /// [`Error::Config`] naming the property if librdkafka does not know it
    /// either, if the value is bad, or if it is a callback librdkafka sets
    /// through a dedicated function; `_NOT_IMPLEMENTED` if it needs a Cargo
    /// feature this build lacks (`zookeeper.*`, `ssl.*`, `sasl.*`,
    /// `security.protocol` other than `plaintext`).
    pub fn set(&mut self, key: &str, value: &str) -> Result<&mut Self> {
        let prop = find(key).ok_or_else(|| Error::Config {
            key: key.to_string(),
            reason: "no such configuration property".into(),
        })?;
        let value = normalize(prop, key, value.trim())?;
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

    /// Who reads property `key` (by name or alias); `None` if unknown.
    pub fn role(key: &str) -> Option<Role> {
        find(key).map(|p| p.role)
    }

    /// The properties set explicitly, canonical names, in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.values.iter().map(|(k, v)| (*k, v.as_str()))
    }

    /// The effective configuration: every property that takes a string
    /// value, canonical names in table order, with the value set or its
    /// default; secrets (set or not) as [`REDACTED`] — as librdkafka's
    /// `rd_kafka_conf_dump`, which also leaves out aliases and callbacks.
    pub fn dump(&self) -> Vec<(&'static str, String)> {
        PROPS
            .iter()
            .filter(|p| !matches!(p.kind, Kind::Api))
            .map(|p| {
                let v = if SECRETS.contains(&p.name) {
                    REDACTED.to_string()
                } else {
                    self.values
                        .get(p.name)
                        .map_or_else(|| p.default.to_string(), Clone::clone)
                };
                (p.name, v)
            })
            .collect()
    }

    /// The warnings a client of kind `client` logs for this configuration
    /// when it is created (librdkafka's `CONFWARN` facility): one per
    /// property set that gregor does not act on, and one per property of
    /// another role (which that client ignores).
    pub fn warnings(&self, client: ClientKind) -> Vec<String> {
        let mut out = Vec::new();
        for name in self.values.keys() {
            let Some(p) = find(name) else { continue };
            let other = match (p.role, client) {
                (Role::Any, _)
                | (Role::Producer, ClientKind::Producer)
                | (Role::Consumer, ClientKind::Consumer) => None,
                (Role::Producer, _) => Some("producer"),
                (Role::Consumer, _) => Some("consumer"),
            };
            if let Some(role) = other {
                out.push(format!(
                    "Configuration property {name} is a {role} property and will be ignored by \
                     this {} instance",
                    client.name()
                ));
            } else if p.status == Status::NoEffect {
                out.push(format!(
                    "Configuration property {name} is not implemented in gregor and has no effect"
                ));
            }
        }
        out
    }

    /// An integer property.
    ///
    /// # Panics
    /// If `key` is not an integer property (a bug in gregor, not user input).
    pub fn int(&self, key: &str) -> i64 {
        let v = self
            .get(key)
            .unwrap_or_else(|| panic!("unknown property {key}"));
        v.parse().unwrap_or_else(|_| match v.parse::<f64>() {
            // a float property (linger.ms): its whole milliseconds
            Ok(f) => f as i64,
            Err(_) => panic!("property {key} is not an integer"),
        })
    }

    /// A duration property in milliseconds (negative reads as zero; a
    /// float property keeps its fraction).
    pub fn ms(&self, key: &str) -> Duration {
        match self.get(key).map(|v| v.parse::<f64>()) {
            Some(Ok(f)) if f.fract() != 0.0 => Duration::from_secs_f64(f.max(0.0) / 1000.0),
            _ => Duration::from_millis(self.int(key).max(0) as u64),
        }
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

    /// Every known property, in table order.
    pub fn properties() -> impl Iterator<Item = PropertyInfo> {
        PROPS.iter().map(|p| {
            let (kind, range, values): (&'static str, _, &'static [&'static [&'static str]]) =
                match p.kind {
                    Kind::Int { min, max } => ("integer", Some((min, max)), &[]),
                    Kind::Float { min, max } => ("float", Some((min, max)), &[]),
                    Kind::Bool => ("boolean", None, &[]),
                    Kind::Str => ("string", None, &[]),
                    Kind::Enum(v) => ("enum", None, v),
                    Kind::Api => ("callback (dedicated function)", None, &[]),
                };
            PropertyInfo {
                name: p.name,
                aliases: p.aliases,
                role: p.role,
                status: p.status,
                default: p.default,
                kind,
                range,
                values,
                secret: SECRETS.contains(&p.name),
                doc: p.doc,
            }
        })
    }
}

/// Logs the warnings of `cfg` for a new client of kind `client` (see
/// [`Config::warnings`]) once, through the client's logger: level 4,
/// librdkafka's `CONFWARN` facility (stderr by default, else the log
/// callback).
pub fn log_warnings(cfg: &Config, client: ClientKind, log: &Logger) {
    if !log.enabled(crate::log::level::WARNING) {
        return;
    }
    for w in cfg.warnings(client) {
        crate::log::at!(log, crate::log::level::WARNING, "CONFWARN", "{w}");
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
    // A non-zero test.mock.num.brokers needs the mock cluster (0 is a no-op).
    let mock = name.starts_with("test.mock.") && value.trim() != "0";
    if zookeeper && !cfg!(feature = "zookeeper") {
        Some("zookeeper")
    } else if mock && !cfg!(feature = "mock") {
        Some("mock")
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
        Kind::Float { min, max } => {
            let n: f64 = value
                .parse()
                .ok()
                .filter(|n: &f64| n.is_finite())
                .ok_or_else(|| bad(key, format!("\"{value}\" is not a number")))?;
            if n < min as f64 || n > max as f64 {
                return Err(bad(key, format!("{n} is out of range {min}..{max}")));
            }
            Ok(n.to_string())
        }
        Kind::Bool => match value.to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" | "on" => Ok("true".into()),
            "false" | "0" | "no" | "off" => Ok("false".into()),
            _ => Err(bad(key, format!("\"{value}\" is not true or false"))),
        },
        Kind::Str if prop.name == "debug" => {
            for ctx in value.split(',').map(str::trim).filter(|c| !c.is_empty()) {
                if !DEBUG_CONTEXTS.contains(&ctx) {
                    return Err(bad(
                        key,
                        format!(
                            "invalid value \"{ctx}\": expected a comma-separated list of {}",
                            DEBUG_CONTEXTS.join(", ")
                        ),
                    ));
                }
            }
            Ok(value.to_string())
        }
        Kind::Str => Ok(value.to_string()),
        // librdkafka: "Property ... must be set through dedicated .._set_..() function".
        Kind::Api => Err(bad(
            key,
            "is a callback or pointer, set through its dedicated function, not as a string".into(),
        )),
        Kind::Enum(choices) => choices
            .iter()
            .find(|c| c.iter().any(|x| x.eq_ignore_ascii_case(value)))
            .map(|c| c[0].to_string())
            .ok_or_else(|| {
                let all: Vec<&str> = choices.iter().flat_map(|c| c.iter().copied()).collect();
                bad(key, format!("\"{value}\" is not one of {}", all.join(", ")))
            }),
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
        c.set("linger.ms", "0.5").unwrap();
        assert_eq!(c.ms("linger.ms"), Duration::from_micros(500));
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
    fn role_mismatch_is_a_warning() {
        let c = Config::from_pairs([("group.id", "g"), ("linger.ms", "7")]).unwrap();
        assert_eq!(
            c.warnings(ClientKind::Consumer),
            vec![
                "Configuration property linger.ms is a producer property and will be \
                  ignored by this consumer instance"
                    .to_string()
            ]
        );
        assert_eq!(
            c.warnings(ClientKind::Producer),
            vec![
                "Configuration property group.id is a consumer property and will be \
                  ignored by this producer instance"
                    .to_string()
            ]
        );
        assert_eq!(c.warnings(ClientKind::Admin).len(), 2);
        let any = Config::from_pairs([("client.id", "x"), ("retry.backoff.ms", "5")]).unwrap();
        assert!(any.warnings(ClientKind::Admin).is_empty());
    }

    #[test]
    fn no_effect_properties_are_accepted_with_a_warning() {
        let mut c = Config::new();
        c.set("socket.max.fails", "3").unwrap();
        c.set("ssl.engine.id", "x").map(|_| ()).ok();
        let w = c.warnings(ClientKind::Producer);
        assert!(
            w.iter()
                .any(|w| w.contains("socket.max.fails") && w.contains("no effect")),
            "{w:?}"
        );
        // implemented ones say nothing
        let c = Config::from_pairs([("socket.keepalive.enable", "true")]).unwrap();
        assert!(c.warnings(ClientKind::Consumer).is_empty());
    }

    #[test]
    fn debug_contexts_are_librdkafkas() {
        let mut c = Config::new();
        c.set("debug", "broker,topic, cgrp,all").unwrap();
        let e = c.set("debug", "broker,verbose").unwrap_err();
        let m = e.to_string();
        assert!(m.contains("debug") && m.contains("verbose"), "{m}");
    }

    #[test]
    fn callbacks_are_known_but_set_by_function() {
        let e = Config::new().set("error_cb", "x").unwrap_err();
        let m = e.to_string();
        assert!(
            m.contains("error_cb") && m.contains("dedicated function"),
            "{m}"
        );
    }

    #[test]
    fn dump_redacts_secrets() {
        // (without the tls feature, ssl.* properties are refused)
        let c = Config::from_pairs([("client.id", "me"), ("ssl.key.password", "hunter2")])
            .unwrap_or_else(|_| Config::from_pairs([("client.id", "me")]).unwrap());
        let d = c.dump();
        let get = |k: &str| d.iter().find(|(n, _)| *n == k).map(|(_, v)| v.clone());
        assert_eq!(get("client.id").as_deref(), Some("me"));
        assert_eq!(get("linger.ms").as_deref(), Some("5"));
        assert_eq!(get("metadata.broker.list"), None, "aliases are left out");
        assert_eq!(get("error_cb"), None, "callbacks are left out");
        for s in SECRETS {
            assert_eq!(get(s).as_deref(), Some(REDACTED), "{s}");
        }
        assert!(d.iter().all(|(_, v)| !v.contains("hunter2")));
    }
}
