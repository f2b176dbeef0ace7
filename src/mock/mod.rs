//! gregor's own in-process mock cluster: N brokers on 127.0.0.1 that speak
//! the Kafka protocol with gregor's own codecs (server side), for tests of
//! applications and of gregor itself, and for the demo when no broker is at
//! hand. Its shape follows librdkafka's mock cluster (rdkafka_mock.h): create
//! topics with leaders per partition, move leaders, name a preferred read
//! replica (KIP-392), take brokers down and up, delay responses, inject
//! errors per API, pin coordinators, cap API versions and record requests
//! (broker, API, version and when each came).
//!
//! Transactions run in either protocol, by the cluster's finalized
//! `transaction.version` feature (advertised in ApiVersions v3+, KIP-584;
//! [`Builder::transaction_version`], [`Cluster::set_transaction_version`]):
//! below 2 (or unset, the default) transactions v1 (KIP-98), where a
//! transactional Produce must name partitions AddPartitionsToTxn added; 2
//! or more transactions v2 (KIP-890 part 2), where a transactional Produce
//! v12+ adds its partition and EndTxn v5+ bumps the producer epoch, so a
//! producer that keeps its old epoch is fenced.
//!
//! Client metrics (KIP-714), advertised once a `set_telemetry_*` call gives
//! the cluster a subscription: GetTelemetrySubscriptions hands every client
//! the cluster's one subscription (no metrics wanted until
//! [`Cluster::set_telemetry_requested_metrics`] names some, a 5 s push
//! interval, zstd, lz4, gzip and snappy accepted) and PushTelemetry
//! answers as Kafka's broker does; [`Cluster::telemetry_pushes`] lists
//! what clients pushed.
//!
//! Each broker owns a `std::net` listener and one thread per connection; the
//! cluster's state (topics, logs, groups, transactions) sits under one mutex
//! shared by every broker. Requests on a connection are answered in order, as
//! Kafka does. An API the mock does not serve is not advertised in
//! ApiVersions, and a request for it (or for a version outside the
//! advertised range) closes the connection, as Kafka does with a request it
//! cannot parse.
//!
//! ```no_run
//! let cluster = gregor::mock::Cluster::new(3).unwrap();
//! cluster.create_topic("t", 4, 3).unwrap();
//! let bootstrap = cluster.bootstrap_servers();
//! # let _ = bootstrap;
//! ```

mod ctx;
mod groups;
mod handlers;
mod server;
mod shared;
mod state;
mod telemetry;
#[cfg(test)]
mod tests;
mod txn;

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::net::TcpListener;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use shared::Shared;
use state::{BrokerState, State};
pub use state::{TelemetryPush, TrackedRequest};

/// Why a control call failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MockError {
    /// No broker has this ID.
    UnknownBroker(i32),
    /// No such topic or partition.
    UnknownTopic(String),
    /// The topic exists already.
    TopicExists(String),
    /// A bad argument (the message says which).
    Invalid(String),
    /// A listener could not be bound.
    Io(String),
}

impl fmt::Display for MockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MockError::UnknownBroker(id) => write!(f, "mock cluster: no broker {id}"),
            MockError::UnknownTopic(t) => write!(f, "mock cluster: unknown topic or partition {t}"),
            MockError::TopicExists(t) => write!(f, "mock cluster: topic {t} already exists"),
            MockError::Invalid(m) => write!(f, "mock cluster: {m}"),
            MockError::Io(m) => write!(f, "mock cluster: {m}"),
        }
    }
}

impl std::error::Error for MockError {}

/// How to build a cluster ([`Cluster::builder`]).
#[derive(Debug, Clone)]
pub struct Builder {
    brokers: usize,
    ports: Vec<u16>,
    auto_create: bool,
    default_partitions: i32,
    initial_rebalance_delay: Duration,
    transaction_version: Option<i16>,
}

impl Builder {
    /// The cluster's finalized `transaction.version` feature level
    /// (KIP-890 part 2): 2 or more serves transactions v2, as Kafka 4.x
    /// does by default; 0 or 1 transactions v1. Not called: the feature
    /// is not finalized (a pre-4.0 cluster), transactions v1.
    pub fn transaction_version(mut self, level: i16) -> Self {
        self.transaction_version = Some(level);
        self
    }

    /// The number of brokers (IDs 1..=n, as librdkafka's mock numbers them).
    pub fn brokers(mut self, n: usize) -> Self {
        self.brokers = n;
        self
    }

    /// Listen on these ports (one per broker, in ID order; 0 = ephemeral).
    pub fn ports(mut self, ports: &[u16]) -> Self {
        self.ports = ports.to_vec();
        self
    }

    /// Whether Metadata creates unknown topics (Kafka's
    /// `auto.create.topics.enable`, default true).
    pub fn auto_create_topics(mut self, on: bool) -> Self {
        self.auto_create = on;
        self
    }

    /// Partitions of an auto-created topic (librdkafka's mock: 4).
    pub fn default_partitions(mut self, n: i32) -> Self {
        self.default_partitions = n;
        self
    }

    /// Kafka's `group.initial.rebalance.delay.ms` (librdkafka's mock: 3000 ms).
    pub fn group_initial_rebalance_delay(mut self, d: Duration) -> Self {
        self.initial_rebalance_delay = d;
        self
    }

    /// Starts the cluster.
    ///
    /// # Errors
    /// No brokers, too many, or a port that cannot be bound.
    pub fn build(self) -> Result<Cluster, MockError> {
        let started = Instant::now();
        if self.brokers == 0 || self.brokers > 1000 {
            return Err(MockError::Invalid(format!(
                "broker count {} (1..=1000)",
                self.brokers
            )));
        }
        if self.default_partitions < 1 {
            return Err(MockError::Invalid("default partitions < 1".into()));
        }
        let mut listeners = Vec::new();
        let mut brokers = Vec::new();
        for i in 0..self.brokers {
            let port = self.ports.get(i).copied().unwrap_or(0);
            let l = TcpListener::bind(("127.0.0.1", port))
                .map_err(|e| MockError::Io(format!("binding 127.0.0.1:{port}: {e}")))?;
            let port = l
                .local_addr()
                .map_err(|e| MockError::Io(e.to_string()))?
                .port();
            let id = i as i32 + 1;
            brokers.push(BrokerState {
                id,
                port,
                up: true,
                rtt: Duration::ZERO,
                rack: None,
                errors: HashMap::new(),
            });
            listeners.push((id, l));
        }
        let state = State {
            cluster_id: format!("mock-{:016x}", state::random_u64()),
            default_replication: self.brokers.min(3) as i16,
            brokers,
            topics: BTreeMap::new(),
            groups: BTreeMap::new(),
            txns: HashMap::new(),
            next_producer_id: 1000,
            auto_create: self.auto_create,
            default_partitions: self.default_partitions,
            initial_rebalance_delay: self.initial_rebalance_delay,
            errors: HashMap::new(),
            coordinators: HashMap::new(),
            version_caps: HashMap::new(),
            tracking: None,
            fetch_sessions: HashMap::new(),
            transaction_version: self.transaction_version,
            features_epoch: i64::from(self.transaction_version.is_some()),
            telemetry: state::Telemetry::default(),
            shutdown: false,
        };
        let shared = Arc::new(Shared {
            state: Mutex::new(state),
            changed: Condvar::new(),
            net: Mutex::new(HashMap::new()),
        });
        for (id, l) in listeners {
            server::start_listener(&shared, id, l);
        }
        groups::start_ticker(&shared);
        Ok(Cluster { shared, started })
    }
}

/// A running mock cluster; dropping it stops every broker.
pub struct Cluster {
    shared: Arc<Shared>,
    started: Instant,
}

impl fmt::Debug for Cluster {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cluster")
            .field("bootstrap", &self.bootstrap_servers())
            .finish()
    }
}

impl Cluster {
    /// Starts `n` brokers on ephemeral ports of 127.0.0.1.
    ///
    /// # Errors
    /// As [`Builder::build`].
    pub fn new(n: usize) -> Result<Cluster, MockError> {
        Cluster::builder().brokers(n).build()
    }

    /// A builder with librdkafka's mock defaults: 3 brokers, auto-created
    /// topics of 4 partitions, a 3 s initial rebalance delay.
    pub fn builder() -> Builder {
        Builder {
            brokers: 3,
            ports: Vec::new(),
            auto_create: true,
            default_partitions: 4,
            initial_rebalance_delay: Duration::from_millis(3000),
            transaction_version: None,
        }
    }

    /// `host:port,...` of every broker, for `bootstrap.servers`.
    pub fn bootstrap_servers(&self) -> String {
        let st = self.shared.lock();
        st.brokers
            .iter()
            .map(|b| format!("127.0.0.1:{}", b.port))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// The broker IDs, in order.
    pub fn broker_ids(&self) -> Vec<i32> {
        self.shared.lock().brokers.iter().map(|b| b.id).collect()
    }

    /// When the cluster started: the origin of the C API's request
    /// timestamps (`gregor_mock_request.timestamp_us`).
    pub fn started(&self) -> Instant {
        self.started
    }

    /// The cluster ID Metadata reports.
    pub fn cluster_id(&self) -> String {
        self.shared.lock().cluster_id.clone()
    }

    fn with<T>(&self, f: impl FnOnce(&mut State) -> Result<T, MockError>) -> Result<T, MockError> {
        let mut st = self.shared.lock();
        let r = f(&mut st);
        drop(st);
        self.shared.changed.notify_all();
        r
    }

    /// Creates a topic with `partitions` partitions of `replication` replicas
    /// each, leaders spread over the brokers.
    ///
    /// # Errors
    /// A bad name or count, or the topic exists.
    pub fn create_topic(
        &self,
        name: &str,
        partitions: i32,
        replication: i32,
    ) -> Result<(), MockError> {
        self.with(|st| {
            if !state::valid_topic_name(name) {
                return Err(MockError::Invalid(format!("bad topic name {name:?}")));
            }
            if !(1..=100_000).contains(&partitions) {
                return Err(MockError::Invalid(format!("partition count {partitions}")));
            }
            if replication < 1 || replication as usize > st.brokers.len() {
                return Err(MockError::Invalid(format!(
                    "replication factor {replication} with {} brokers",
                    st.brokers.len()
                )));
            }
            if st.topics.contains_key(name) {
                return Err(MockError::TopicExists(name.to_owned()));
            }
            let replicas = (0..partitions)
                .map(|p| st.place(p, replication as i16))
                .collect();
            st.add_topic(name, replicas, BTreeMap::new());
            Ok(())
        })
    }

    /// Makes `broker` the leader of a partition; its leader epoch goes up by one.
    ///
    /// # Errors
    /// Unknown topic, partition or broker.
    pub fn set_partition_leader(
        &self,
        topic: &str,
        partition: i32,
        broker: i32,
    ) -> Result<(), MockError> {
        self.with(|st| {
            if broker != -1 && st.broker(broker).is_none() {
                return Err(MockError::UnknownBroker(broker));
            }
            let p = st
                .partition_mut(topic, partition)
                .ok_or_else(|| MockError::UnknownTopic(format!("{topic} [{partition}]")))?;
            p.leader = broker;
            p.leader_epoch += 1;
            let (epoch, end) = (p.leader_epoch, p.end);
            p.epochs.push((epoch, end));
            if broker != -1 && !p.replicas.contains(&broker) {
                p.replicas.push(broker);
            }
            Ok(())
        })
    }

    /// Makes `broker` (-1: none) the follower a partition's leader names as
    /// preferred read replica (KIP-392) to a consumer that sends its rack
    /// (`client.rack`, Fetch v11+), as a broker with
    /// `replica.selector.class=RackAwareReplicaSelector` names the replica in
    /// the consumer's rack; that follower then serves the consumer's fetches
    /// (librdkafka's `rd_kafka_mock_partition_set_follower`).
    ///
    /// # Errors
    /// Unknown topic, partition or broker.
    pub fn set_partition_follower(
        &self,
        topic: &str,
        partition: i32,
        broker: i32,
    ) -> Result<(), MockError> {
        self.with(|st| {
            if broker != -1 && st.broker(broker).is_none() {
                return Err(MockError::UnknownBroker(broker));
            }
            let p = st
                .partition_mut(topic, partition)
                .ok_or_else(|| MockError::UnknownTopic(format!("{topic} [{partition}]")))?;
            p.follower = broker;
            if broker != -1 && !p.replicas.contains(&broker) {
                p.replicas.push(broker);
            }
            Ok(())
        })
    }

    /// Takes a broker down: its listener closes (new connections are
    /// refused) and its open connections are closed.
    ///
    /// # Errors
    /// Unknown broker.
    pub fn broker_down(&self, broker: i32) -> Result<(), MockError> {
        self.with(|st| {
            st.broker_mut(broker)
                .ok_or(MockError::UnknownBroker(broker))?
                .up = false;
            Ok(())
        })?;
        server::stop_listener(&self.shared, broker);
        Ok(())
    }

    /// Brings a broker back up on its port.
    ///
    /// # Errors
    /// Unknown broker, or its port cannot be bound again.
    pub fn broker_up(&self, broker: i32) -> Result<(), MockError> {
        let port = {
            let st = self.shared.lock();
            let b = st.broker(broker).ok_or(MockError::UnknownBroker(broker))?;
            if b.up {
                return Ok(());
            }
            b.port
        };
        let l = TcpListener::bind(("127.0.0.1", port))
            .map_err(|e| MockError::Io(format!("binding 127.0.0.1:{port} again: {e}")))?;
        self.with(|st| {
            if let Some(b) = st.broker_mut(broker) {
                b.up = true;
            }
            Ok(())
        })?;
        server::start_listener(&self.shared, broker, l);
        Ok(())
    }

    /// Delays every response of `broker` by `rtt`.
    ///
    /// # Errors
    /// Unknown broker.
    pub fn set_broker_rtt(&self, broker: i32, rtt: Duration) -> Result<(), MockError> {
        self.with(|st| {
            st.broker_mut(broker)
                .ok_or(MockError::UnknownBroker(broker))?
                .rtt = rtt;
            Ok(())
        })
    }

    /// Sets a broker's rack (Metadata's `rack`).
    ///
    /// # Errors
    /// Unknown broker.
    pub fn set_broker_rack(&self, broker: i32, rack: Option<&str>) -> Result<(), MockError> {
        self.with(|st| {
            st.broker_mut(broker)
                .ok_or(MockError::UnknownBroker(broker))?
                .rack = rack.map(str::to_owned);
            Ok(())
        })
    }

    /// The next `errors.len()` requests of `api_key`, on any broker, are
    /// answered with these error codes in turn (librdkafka's
    /// `rd_kafka_mock_push_request_errors`). librdkafka's `_TRANSPORT`
    /// (-195) closes the connection on the request instead, as librdkafka's
    /// mock does.
    pub fn push_request_errors(&self, api_key: i16, errors: &[i16]) {
        let _ = self.with(|st| {
            st.errors
                .entry(api_key)
                .or_default()
                .extend(errors.iter().map(|&e| (e, Duration::ZERO)));
            Ok(())
        });
    }

    /// As [`push_request_errors`](Self::push_request_errors), on one broker
    /// only, each error answered after its delay
    /// (`rd_kafka_mock_broker_push_request_error_rtts`).
    ///
    /// # Errors
    /// Unknown broker.
    pub fn push_broker_request_errors(
        &self,
        broker: i32,
        api_key: i16,
        errors: &[(i16, Duration)],
    ) -> Result<(), MockError> {
        self.with(|st| {
            st.broker_mut(broker)
                .ok_or(MockError::UnknownBroker(broker))?
                .errors
                .entry(api_key)
                .or_default()
                .extend(errors.iter().copied());
            Ok(())
        })
    }

    /// Pins the coordinator of a group (`kind` "group") or transactional ID
    /// ("transaction") to `broker`.
    ///
    /// # Errors
    /// Unknown kind or broker.
    pub fn set_coordinator(&self, kind: &str, key: &str, broker: i32) -> Result<(), MockError> {
        let key_type = match kind {
            "group" => 0,
            "transaction" | "txn" => 1,
            k => return Err(MockError::Invalid(format!("coordinator kind {k:?}"))),
        };
        self.with(|st| {
            if st.broker(broker).is_none() {
                return Err(MockError::UnknownBroker(broker));
            }
            st.coordinators.insert((key_type, key.to_owned()), broker);
            Ok(())
        })
    }

    /// Narrows the versions of `api_key` the brokers advertise and accept
    /// (`min`/`max` of -1 restore the served range).
    ///
    /// # Errors
    /// An API the mock does not serve, or `min > max`.
    pub fn set_api_version(&self, api_key: i16, min: i16, max: i16) -> Result<(), MockError> {
        let Some((lo, hi)) = server::served_range(api_key) else {
            return Err(MockError::Invalid(format!("API {api_key} is not served")));
        };
        self.with(|st| {
            if min == -1 && max == -1 {
                st.version_caps.remove(&api_key);
                return Ok(());
            }
            let (min, max) = (min.max(lo), max.min(hi));
            if min > max {
                return Err(MockError::Invalid(format!(
                    "API {api_key}: versions {min}..={max} (served {lo}..={hi})"
                )));
            }
            st.version_caps.insert(api_key, (min, max));
            Ok(())
        })
    }

    /// Finalizes the cluster's `transaction.version` feature at `level`
    /// (`None`: not finalized), as `kafka-features.sh upgrade` does: the
    /// finalized features epoch moves on, and connections made from now on
    /// see it in ApiVersions. Transactions begun after it follow it
    /// (v2 from level 2, KIP-890 part 2).
    pub fn set_transaction_version(&self, level: Option<i16>) {
        let _ = self.with(|st| {
            st.transaction_version = level;
            st.features_epoch += 1;
            Ok(())
        });
    }

    /// The producer id and epoch the transaction coordinator holds for
    /// `transactional_id` (what `kafka-transactions.sh describe` shows),
    /// `None` before its InitProducerId.
    pub fn transaction_producer(&self, transactional_id: &str) -> Option<(i64, i16)> {
        self.shared
            .lock()
            .txns
            .get(transactional_id)
            .map(|t| (t.producer_id, t.epoch))
    }

    /// Kafka's `group.initial.rebalance.delay.ms` for groups formed from now on.
    pub fn set_group_initial_rebalance_delay(&self, d: Duration) {
        let _ = self.with(|st| {
            st.initial_rebalance_delay = d;
            Ok(())
        });
    }

    /// Starts recording every request (broker, API, version, when it came).
    pub fn start_request_tracking(&self) {
        let _ = self.with(|st| {
            st.tracking.get_or_insert_with(Vec::new);
            Ok(())
        });
    }

    /// Stops recording and forgets what was recorded.
    pub fn stop_request_tracking(&self) {
        let _ = self.with(|st| {
            st.tracking = None;
            Ok(())
        });
    }

    /// The requests recorded so far.
    pub fn requests(&self) -> Vec<TrackedRequest> {
        self.shared.lock().tracking.clone().unwrap_or_default()
    }

    /// Forgets the requests recorded so far (tracking stays on).
    pub fn clear_requests(&self) {
        let _ = self.with(|st| {
            if let Some(t) = st.tracking.as_mut() {
                t.clear();
            }
            Ok(())
        });
    }

    /// Sets the push interval of the cluster's client metrics subscription
    /// (KIP-714; default 5000 ms), as librdkafka's
    /// `rd_kafka_mock_telemetry_set_push_interval`. The subscription id
    /// changes, so pushes under the old one get UNKNOWN_SUBSCRIPTION_ID.
    ///
    /// # Errors
    /// An interval that is zero or does not fit Kafka's int32 of ms.
    pub fn set_telemetry_push_interval(&self, interval: Duration) -> Result<(), MockError> {
        let ms = i32::try_from(interval.as_millis())
            .ok()
            .filter(|ms| *ms > 0)
            .ok_or_else(|| MockError::Invalid(format!("push interval {interval:?}")))?;
        self.with(|st| {
            st.telemetry.push_interval_ms = ms;
            st.telemetry.enabled = true;
            st.telemetry.subscription_id = st.telemetry.subscription_id.wrapping_add(1);
            Ok(())
        })
    }

    /// Sets the metric name prefixes the cluster's client metrics
    /// subscription asks for (KIP-714): empty (the default) asks for none,
    /// as Kafka does for a client no subscription matches; `[""]` asks for
    /// every metric. As librdkafka's
    /// `rd_kafka_mock_telemetry_set_requested_metrics`; the subscription id
    /// changes.
    pub fn set_telemetry_requested_metrics(&self, prefixes: &[&str]) {
        let _ = self.with(|st| {
            st.telemetry.requested_metrics = prefixes.iter().map(|p| (*p).to_owned()).collect();
            st.telemetry.enabled = true;
            st.telemetry.subscription_id = st.telemetry.subscription_id.wrapping_add(1);
            Ok(())
        });
    }

    /// Sets the largest metrics payload PushTelemetry accepts (Kafka's
    /// `telemetry.max.bytes`, default 1 MiB); a larger one gets
    /// TELEMETRY_TOO_LARGE. The subscription id changes.
    ///
    /// # Errors
    /// A limit below 1.
    pub fn set_telemetry_max_bytes(&self, max_bytes: i32) -> Result<(), MockError> {
        if max_bytes < 1 {
            return Err(MockError::Invalid(format!(
                "telemetry max bytes {max_bytes}"
            )));
        }
        self.with(|st| {
            st.telemetry.max_bytes = max_bytes;
            st.telemetry.enabled = true;
            st.telemetry.subscription_id = st.telemetry.subscription_id.wrapping_add(1);
            Ok(())
        })
    }

    /// The subscription id GetTelemetrySubscriptions currently answers with.
    pub fn telemetry_subscription_id(&self) -> i32 {
        self.shared.lock().telemetry.subscription_id
    }

    /// Every PushTelemetry request the brokers received (KIP-714), in the
    /// order they came, with the error code each was answered with.
    pub fn telemetry_pushes(&self) -> Vec<TelemetryPush> {
        self.shared.lock().telemetry.pushes.clone()
    }

    /// Forgets the pushes received so far.
    pub fn clear_telemetry_pushes(&self) {
        let _ = self.with(|st| {
            st.telemetry.pushes.clear();
            Ok(())
        });
    }

    /// The high watermark of a partition.
    ///
    /// # Errors
    /// Unknown topic or partition.
    pub fn high_watermark(&self, topic: &str, partition: i32) -> Result<i64, MockError> {
        let st = self.shared.lock();
        st.topics
            .get(topic)
            .and_then(|t| {
                usize::try_from(partition)
                    .ok()
                    .and_then(|i| t.partitions.get(i))
            })
            .map(|p| p.end)
            .ok_or_else(|| MockError::UnknownTopic(format!("{topic} [{partition}]")))
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.shared.lock().shutdown = true;
        self.shared.changed.notify_all();
        let ids: Vec<i32> = self.shared.lock().brokers.iter().map(|b| b.id).collect();
        for id in ids {
            server::stop_listener(&self.shared, id);
        }
    }
}
