//! The client's view of the cluster: bootstrap, the metadata cache (brokers,
//! topics with their topic IDs, partitions, leaders), and one connection per
//! broker and purpose, so that a long fetch never queues behind a produce or a
//! group heartbeat.
//!
//! Metadata is refreshed when it is older than `metadata.max.age.ms`, when a
//! topic is unknown, and when a caller reports a leader error
//! ([`Cluster::invalidate`]).

use crate::sync::{MutexExt, RwLockExt};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use crate::config::Config;
use crate::error::{local, Error, Result};
use crate::log::{self, ctx, Logger};
use crate::net::{BrokerConn, NetConfig};
use crate::protocol::metadata::{MetadataRequest, MetadataRequestTopic, MetadataResponse};
use crate::protocol::KafkaCode;
use crate::wire::Uuid;

pub(crate) mod offsets;
mod recovery;
use recovery::Recovery;

/// What a connection is for; each purpose gets its own connection per broker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Purpose {
    /// Metadata and admin requests.
    Metadata,
    /// Produce requests.
    Produce,
    /// Fetch and ListOffsets requests.
    Fetch,
    /// Group coordination (join, sync, heartbeat, commit).
    Group,
}

/// One broker of the cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokerInfo {
    /// Node id.
    pub id: i32,
    /// Host name.
    pub host: String,
    /// Port.
    pub port: i32,
    /// Rack, if assigned.
    pub rack: Option<String>,
}

impl BrokerInfo {
    /// "host:port".
    pub fn addr(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }
}

/// One partition of a topic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionInfo {
    /// Partition index.
    pub id: i32,
    /// The partition's error, if the broker reported one.
    pub error: KafkaCode,
    /// Leader broker id (-1 if none).
    pub leader: i32,
    /// Leader epoch (-1 if unknown).
    pub leader_epoch: i32,
    /// All replicas.
    pub replicas: Vec<i32>,
    /// In-sync replicas.
    pub isr: Vec<i32>,
    /// Offline replicas.
    pub offline: Vec<i32>,
}

/// One topic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicInfo {
    /// Topic name.
    pub name: String,
    /// Topic ID (all-zero from brokers before Kafka 2.8).
    pub id: Uuid,
    /// The topic's error, if the broker reported one.
    pub error: KafkaCode,
    /// Internal topic (e.g. `__consumer_offsets`).
    pub is_internal: bool,
    /// Partitions in index order.
    pub partitions: Vec<PartitionInfo>,
}

/// A snapshot of cluster metadata.
#[derive(Debug, Clone, Default)]
pub struct Metadata {
    /// Brokers by id.
    pub brokers: BTreeMap<i32, BrokerInfo>,
    /// Controller id (-1 if unknown).
    pub controller_id: i32,
    /// Cluster id.
    pub cluster_id: Option<String>,
    /// Topics by name.
    pub topics: BTreeMap<String, TopicInfo>,
    /// The broker that answered.
    pub orig_broker: String,
}

impl Metadata {
    /// Builds a snapshot from a Metadata response.
    pub(crate) fn from_response(resp: &MetadataResponse, orig_broker: &str) -> Self {
        let brokers = resp
            .brokers
            .iter()
            .map(|b| {
                (
                    b.node_id,
                    BrokerInfo {
                        id: b.node_id,
                        host: b.host.clone(),
                        port: b.port,
                        rack: b.rack.clone(),
                    },
                )
            })
            .collect();
        let topics = resp
            .topics
            .iter()
            .filter_map(|t| {
                let name = t.name.clone()?;
                let mut partitions: Vec<PartitionInfo> = t
                    .partitions
                    .iter()
                    .map(|p| PartitionInfo {
                        id: p.partition_index,
                        error: KafkaCode(p.error_code),
                        leader: p.leader_id,
                        leader_epoch: p.leader_epoch,
                        replicas: p.replica_nodes.clone(),
                        isr: p.isr_nodes.clone(),
                        offline: p.offline_replicas.clone(),
                    })
                    .collect();
                partitions.sort_by_key(|p| p.id);
                Some((
                    name.clone(),
                    TopicInfo {
                        name,
                        id: t.topic_id,
                        error: KafkaCode(t.error_code),
                        is_internal: t.is_internal,
                        partitions,
                    },
                ))
            })
            .collect();
        Metadata {
            brokers,
            controller_id: resp.controller_id,
            cluster_id: resp.cluster_id.clone(),
            topics,
            orig_broker: orig_broker.to_string(),
        }
    }
}

/// librdkafka's leader change line ("topic [p]: leader 1 epoch 3 -> leader
/// 2 epoch 4") for each partition whose leader or epoch the new metadata
/// changes, and the partition count when it changes.
fn log_leader_changes(log: &Logger, old: Option<&TopicInfo>, new: &TopicInfo) {
    if !new.error.is_ok() {
        log::debug!(
            log,
            ctx::TOPIC | ctx::METADATA,
            "METADATA",
            "Error in metadata reply for topic {} (PartCnt {}): {}",
            new.name,
            new.partitions.len(),
            new.error
        );
        return;
    }
    let Some(old) = old else {
        log::debug!(
            log,
            ctx::TOPIC | ctx::METADATA,
            "METADATA",
            "Topic {} with {} partition(s) (id {})",
            new.name,
            new.partitions.len(),
            new.id
        );
        for p in &new.partitions {
            log::debug!(
                log,
                ctx::TOPIC,
                "BROKER",
                "{} [{}]: leader {} epoch {}",
                new.name,
                p.id,
                p.leader,
                p.leader_epoch
            );
        }
        return;
    };
    if old.partitions.len() != new.partitions.len() {
        log::debug!(
            log,
            ctx::TOPIC,
            "PARTCNT",
            "Topic {} partition count changed from {} to {}",
            new.name,
            old.partitions.len(),
            new.partitions.len()
        );
    }
    for p in &new.partitions {
        match old.partitions.iter().find(|o| o.id == p.id) {
            Some(o) if o.leader == p.leader && o.leader_epoch == p.leader_epoch => {}
            Some(o) => log::debug!(
                log,
                ctx::TOPIC,
                "BROKER",
                "{} [{}]: leader {} epoch {} -> leader {} epoch {}",
                new.name,
                p.id,
                o.leader,
                o.leader_epoch,
                p.leader,
                p.leader_epoch
            ),
            None => log::debug!(
                log,
                ctx::TOPIC,
                "BROKER",
                "{} [{}]: leader {} epoch {}",
                new.name,
                p.id,
                p.leader,
                p.leader_epoch
            ),
        }
    }
}

struct Cache {
    meta: Metadata,
    /// When each topic was last refreshed.
    topic_age: HashMap<String, Instant>,
    /// When the broker list was last refreshed.
    brokers_age: Option<Instant>,
}

struct Inner {
    cfg: Config,
    net: NetConfig,
    bootstrap: RwLock<Vec<String>>,
    cache: RwLock<Cache>,
    /// The `/brokers/ids` watch when bootstrapped from ZooKeeper.
    #[cfg(feature = "zookeeper")]
    zk_watch: Mutex<Option<crate::registry::BrokerWatch>>,
    conns: Mutex<HashMap<(i32, Purpose), BrokerConn>>,
    bootstrap_conns: Mutex<Vec<BrokerConn>>,
    max_age: Duration,
    /// `retry.backoff.ms` and `retry.backoff.max.ms`.
    retry_backoff: (Duration, Duration),
    /// Set by [`Cluster::shutdown`]: no request may start any more.
    shut_down: std::sync::atomic::AtomicBool,
    /// Counts [`Cluster::shutdown`] and [`Cluster::wake_pauses`] calls,
    /// which end the waits of [`Cluster::pause`] early.
    shut_down_wake: (Mutex<u64>, std::sync::Condvar),
    /// KIP-899 / KIP-1102 re-bootstrap (not with a ZooKeeper broker list,
    /// which is always current).
    recovery: Recovery,
    /// The broker list comes from ZooKeeper.
    from_zk: bool,
    /// The private mock cluster `test.mock.num.brokers` started.
    #[cfg(feature = "mock")]
    mock: Option<Arc<crate::mock::Cluster>>,
}

/// A client's handle on the cluster; cheap to clone and thread-safe.
#[derive(Clone)]
pub struct Cluster {
    inner: Arc<Inner>,
}

impl Cluster {
    /// The private mock cluster `test.mock.num.brokers` started for this
    /// client, to control from a test (librdkafka's
    /// `rd_kafka_handle_mock_cluster`).
    #[cfg(feature = "mock")]
    pub fn mock_cluster(&self) -> Option<&crate::mock::Cluster> {
        self.inner.mock.as_deref()
    }

    /// A cluster handle for `bootstrap.servers`, or, when that is empty, for
    /// the brokers registered in ZooKeeper at `zookeeper.connect` (the
    /// endpoint matching `security.protocol`). With ZooKeeper, `/brokers/ids`
    /// stays watched: brokers that register, leave or move reach the cluster
    /// view (bootstrap list and broker addresses) without a restart. Nothing
    /// is connected to a broker yet; ZooKeeper is read at once.
    ///
    /// With neither property set the cluster has no brokers: requests fail
    /// with `_TRANSPORT` (as librdkafka's client without brokers).
    ///
    /// # Errors
    /// If `bootstrap.servers` is malformed, or ZooKeeper cannot be read or
    /// lists no broker with such an endpoint.
    pub fn new(cfg: &Config) -> Result<Cluster> {
        Cluster::with_log(cfg, cfg.logger("producer"))
    }

    /// As [`Cluster::new`], logging through the client's logger.
    ///
    /// # Errors
    /// As [`Cluster::new`].
    pub fn with_log(cfg: &Config, log: Logger) -> Result<Cluster> {
        let zk_connect = cfg.str("zookeeper.connect").trim().to_string();
        let from_zk = cfg.str("bootstrap.servers").trim().is_empty() && !zk_connect.is_empty();
        // No bootstrap.servers (nor ZooKeeper) is a client with no brokers,
        // as librdkafka's: it is created, and its requests fail later.
        // test.mock.num.brokers (as librdkafka): a private mock cluster whose
        // brokers replace bootstrap.servers; it lives as long as this handle.
        #[cfg(feature = "mock")]
        let mock = match cfg.int("test.mock.num.brokers") {
            n if n > 0 => {
                let m = crate::mock::Cluster::new(n as usize).map_err(|e| Error::Config {
                    key: "test.mock.num.brokers".into(),
                    reason: e.to_string(),
                })?;
                let rtt = Duration::from_millis(cfg.int("test.mock.broker.rtt").max(0) as u64);
                for id in m.broker_ids() {
                    let _ = m.set_broker_rtt(id, rtt);
                }
                Some(Arc::new(m))
            }
            _ => None,
        };
        #[cfg(feature = "mock")]
        let from_zk = from_zk && mock.is_none();
        #[cfg(feature = "mock")]
        let bootstrap_servers = match &mock {
            Some(m) => m.bootstrap_servers(),
            None => cfg.str("bootstrap.servers").to_owned(),
        };
        #[cfg(not(feature = "mock"))]
        let bootstrap_servers = cfg.str("bootstrap.servers").to_owned();
        let bootstrap = if from_zk || bootstrap_servers.trim().is_empty() {
            Vec::new()
        } else {
            parse_bootstrap(&bootstrap_servers)?
        };
        let mut net = NetConfig::from_config(cfg)?;
        net.log = log;
        let bootstrap =
            if cfg.str("client.dns.lookup") == "resolve_canonical_bootstrap_servers_only" {
                canonical_bootstrap(bootstrap, net.socket.family)
            } else {
                bootstrap
            };
        let bootstrap_conns = bootstrap
            .iter()
            .map(|a| BrokerConn::new(format!("{a}/bootstrap"), a.clone(), net.clone()))
            .collect();
        let cluster = Cluster {
            inner: Arc::new(Inner {
                cfg: cfg.clone(),
                net,
                bootstrap: RwLock::new(bootstrap),
                cache: RwLock::new(Cache {
                    meta: Metadata::default(),
                    topic_age: HashMap::new(),
                    brokers_age: None,
                }),
                #[cfg(feature = "zookeeper")]
                zk_watch: Mutex::new(None),
                conns: Mutex::new(HashMap::new()),
                bootstrap_conns: Mutex::new(bootstrap_conns),
                #[cfg(feature = "mock")]
                mock,
                // Known topics are refreshed every topic.metadata.refresh.interval.ms
                // (-1: only when metadata.max.age.ms runs out), on their next use.
                max_age: match cfg.int("topic.metadata.refresh.interval.ms") {
                    ms if ms > 0 => cfg
                        .ms("metadata.max.age.ms")
                        .min(Duration::from_millis(ms as u64)),
                    _ => cfg.ms("metadata.max.age.ms"),
                },
                retry_backoff: (cfg.ms("retry.backoff.ms"), cfg.ms("retry.backoff.max.ms")),
                shut_down: std::sync::atomic::AtomicBool::new(false),
                shut_down_wake: Default::default(),
                recovery: Recovery::from_config(cfg),
                from_zk,
            }),
        };
        #[cfg(not(feature = "zookeeper"))]
        if from_zk {
            return Err(crate::config::not_built(
                "zookeeper.connect",
                &zk_connect,
                "zookeeper",
            ));
        }
        #[cfg(feature = "zookeeper")]
        if from_zk {
            let weak = Arc::downgrade(&cluster.inner);
            let protocol = cfg.str("security.protocol").to_string();
            let proto2 = protocol.clone();
            let (watch, first) = crate::registry::watch_brokers(
                &zk_connect,
                cfg.ms("zookeeper.session.timeout.ms"),
                move |list| match weak.upgrade() {
                    Some(inner) => {
                        // A registration without our protocol is skipped here
                        // (it was reported when the cluster was made).
                        let brokers = zk_brokers_info(&list, &proto2)
                            .unwrap_or_else(|_| zk_brokers_lenient(&list, &proto2));
                        Cluster { inner }.set_zk_brokers(brokers);
                        true
                    }
                    None => false,
                },
            )?;
            let brokers = zk_brokers_info(&first, &protocol)?;
            cluster.set_zk_brokers(brokers);
            *cluster.inner.zk_watch.locked() = Some(watch);
        }
        Ok(cluster)
    }

    /// Replaces the broker list with what ZooKeeper says: the bootstrap
    /// list, the brokers of the cached metadata (connections to brokers that
    /// moved or left are dropped) and marks every topic stale.
    #[cfg(feature = "zookeeper")]
    fn set_zk_brokers(&self, brokers: Vec<BrokerInfo>) {
        let addrs: Vec<String> = brokers.iter().map(BrokerInfo::addr).collect();
        {
            let mut conns = self.inner.bootstrap_conns.locked();
            let old = std::mem::take(&mut *conns);
            for c in old {
                if addrs.iter().any(|a| a == c.addr()) {
                    conns.push(c);
                } else {
                    c.close();
                }
            }
            for a in &addrs {
                if !conns.iter().any(|c| c.addr() == a) {
                    conns.push(BrokerConn::new(
                        format!("{a}/bootstrap"),
                        a.clone(),
                        self.inner.net.clone(),
                    ));
                }
            }
        }
        *self.inner.bootstrap.write_locked() = addrs;
        let by_id: BTreeMap<i32, BrokerInfo> = brokers.into_iter().map(|b| (b.id, b)).collect();
        {
            let mut cache = self.inner.cache.write_locked();
            cache.meta.brokers = by_id.clone();
            cache.brokers_age = None;
            cache.topic_age.clear();
        }
        let mut conns = self.inner.conns.locked();
        conns.retain(|(id, _), conn| {
            let keep = by_id.get(id).is_some_and(|b| b.addr() == conn.addr());
            if !keep {
                conn.close();
            }
            keep
        });
    }

    /// The wait before retry number `attempt` (0 for the first) of a failed
    /// request: `retry.backoff.ms` doubling per attempt up to
    /// `retry.backoff.max.ms` (KIP-580, librdkafka's exponential backoff),
    /// for every client: coordinator lookups, group commits and offset
    /// fetches, admin calls.
    pub fn retry_backoff(&self, attempt: u32) -> Duration {
        let (first, max) = self.inner.retry_backoff;
        first
            .saturating_mul(1 << attempt.min(20))
            .min(max.max(first))
    }

    /// The client's event queue (connection errors, `_ALL_BROKERS_DOWN`,
    /// throttling), fed by every connection of this cluster.
    pub fn events(&self) -> &std::sync::Arc<crate::net::Events> {
        &self.inner.net.events
    }

    /// The configuration the cluster was made with.
    pub fn config(&self) -> &Config {
        &self.inner.cfg
    }

    /// The client's logger.
    pub fn log(&self) -> &Logger {
        &self.inner.net.log
    }

    /// The bootstrap addresses (with ZooKeeper: the registered brokers' now).
    pub fn bootstrap(&self) -> Vec<String> {
        self.inner.bootstrap.read_locked().clone()
    }

    /// A copy of the cached metadata.
    pub fn snapshot(&self) -> Metadata {
        self.inner.cache.read_locked().meta.clone()
    }

    /// Asks the cluster for metadata: `None` for all topics, else those named.
    /// Tries known brokers, then the bootstrap list, until `timeout`. The
    /// answer also updates the cache.
    ///
    /// # Errors
    /// `_ALL_BROKERS_DOWN` (with each broker's error) if none answers; the
    /// brokers' own error when all refused the TLS handshake or the SASL
    /// credentials the same way (`_SSL`, `_AUTHENTICATION`, 33, 58).
    pub fn fetch_metadata(
        &self,
        topics: Option<&[&str]>,
        auto_create: bool,
        timeout: Duration,
    ) -> Result<Metadata> {
        self.check_open()?;
        let deadline = Instant::now() + timeout;
        let req = MetadataRequest {
            topics: topics.map(|ts| {
                ts.iter()
                    .map(|t| MetadataRequestTopic {
                        name: Some((*t).to_string()),
                        ..Default::default()
                    })
                    .collect()
            }),
            allow_auto_topic_creation: auto_create,
            ..Default::default()
        };
        let mut errors = Vec::new();
        self.inner.recovery.started(Instant::now());
        let mut candidates = self.metadata_candidates();
        if candidates.is_empty() {
            // A client without brokers (no bootstrap.servers): as
            // librdkafka's, which waits for a usable broker until the
            // timeout and then fails with _TRANSPORT; waiting at most a
            // second here keeps callers that retry from spinning.
            self.pause(timeout.min(Duration::from_secs(1)));
            self.check_open()?;
            return Err(Error::transport(
                "no broker to ask: bootstrap.servers is empty and no broker is known",
            ));
        }
        let mut asked = 0;
        // at most one re-bootstrap a call on a broker's REBOOTSTRAP_REQUIRED
        let mut told_to_rebootstrap = false;
        loop {
            if asked == candidates.len() {
                // Every known broker failed (or the trigger time passed
                // without an answer): go back to bootstrap.servers, in this
                // same call while time is left (KIP-899, KIP-1102).
                if self.inner.from_zk
                    || !self
                        .inner
                        .recovery
                        .rebootstrap_after_failure(true, Instant::now())
                {
                    break;
                }
                self.rebootstrap("no metadata from the known brokers");
                candidates = self.metadata_candidates();
                asked = 0;
                if candidates.is_empty() {
                    break;
                }
            }
            let conn = candidates[asked].clone();
            asked += 1;
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() || self.check_open().is_err() {
                break;
            }
            let version = match conn.version_for::<MetadataRequest>(deadline) {
                Ok(v) => v,
                Err(e) => {
                    errors.push(e);
                    continue;
                }
            };
            let mut req = req.clone();
            // v0 cannot say "no topics" or "all topics" but by an empty list,
            // and before v4 it cannot refuse auto-creation.
            if version == 0 && req.topics.is_none() {
                req.topics = Some(Vec::new());
            }
            if version < 4 {
                req.allow_auto_topic_creation = true;
            }
            let log = self.log();
            log::debug!(
                log,
                ctx::METADATA,
                "METADATA",
                "{}: Request metadata for {}",
                conn.name(),
                match topics {
                    None => "all topics".to_string(),
                    Some(ts) => format!("{} topic(s): {}", ts.len(), ts.join(", ")),
                }
            );
            match conn
                .send_at(&req, version, deadline)
                .and_then(|p| p.wait_until(deadline))
            {
                // Metadata v13's top-level error (KIP-1102): no metadata in
                // this answer. REBOOTSTRAP_REQUIRED sends the client back to
                // bootstrap.servers at once, as librdkafka and the Java
                // client do (unless metadata.recovery.strategy=none).
                Ok(resp) if resp.error_code != 0 => {
                    let code = KafkaCode::from(resp.error_code);
                    log::debug!(
                        log,
                        ctx::METADATA,
                        "METADATA",
                        "{}: Metadata response: top-level error {code}",
                        conn.name()
                    );
                    errors.push(Error::kafka(code, format!("Metadata from {}", conn.name())));
                    if code == KafkaCode::REBOOTSTRAP_REQUIRED
                        && !told_to_rebootstrap
                        && !self.inner.from_zk
                        && self.inner.recovery.required()
                    {
                        told_to_rebootstrap = true;
                        self.rebootstrap("the broker answered REBOOTSTRAP_REQUIRED");
                        candidates = self.metadata_candidates();
                        asked = 0;
                        if candidates.is_empty() {
                            break;
                        }
                    }
                }
                Ok(resp) => {
                    let meta = Metadata::from_response(&resp, conn.name());
                    log::debug!(
                        log,
                        ctx::METADATA,
                        "METADATA",
                        "{}: ===== Received metadata: {} broker(s), {} topic(s) (controller {}) =====",
                        conn.name(),
                        meta.brokers.len(),
                        meta.topics.len(),
                        meta.controller_id
                    );
                    self.absorb(&meta, topics);
                    self.inner.recovery.answered();
                    return Ok(meta);
                }
                Err(e) => {
                    log::debug!(
                        log,
                        ctx::METADATA,
                        "METADATA",
                        "{}: Metadata request failed: {e}",
                        conn.name()
                    );
                    errors.push(e)
                }
            }
        }
        // Asked only some of the known brokers before the deadline: the
        // trigger time alone may still call for a re-bootstrap.
        if !self.inner.from_zk
            && self
                .inner
                .recovery
                .rebootstrap_after_failure(false, Instant::now())
        {
            self.rebootstrap("no metadata from the known brokers");
        }
        self.check_open()?;
        // Every broker refused our certificate check or credentials: that
        // is the answer, with its code (librdkafka reports _SSL and
        // _AUTHENTICATION the same way), not "all brokers down".
        if let Some(first) = errors.first() {
            let security = matches!(first.code(), local::SSL | local::AUTHENTICATION | 33 | 58);
            if security && errors.iter().all(|e| e.code() == first.code()) {
                return Err(first.clone());
            }
        }
        let errors: Vec<String> = errors.iter().map(ToString::to_string).collect();
        Err(Error::local(
            local::ALL_BROKERS_DOWN,
            if errors.is_empty() {
                "metadata request timed out".to_string()
            } else {
                format!("no broker answered metadata: {}", errors.join("; "))
            },
        ))
    }

    /// Known brokers' metadata connections (those up first); the bootstrap
    /// ones until a broker has answered (after a re-bootstrap too), or
    /// always when ZooKeeper lists the brokers.
    fn metadata_candidates(&self) -> Vec<BrokerConn> {
        let ids: Vec<i32> = self.snapshot().brokers.keys().copied().collect();
        let mut out: Vec<BrokerConn> = ids
            .iter()
            .filter_map(|id| self.conn(*id, Purpose::Metadata).ok())
            .collect();
        // prefer a connection that is already up
        out.sort_by_key(|c| !c.is_connected());
        if out.is_empty() || self.inner.from_zk || self.inner.recovery.bootstrapping() {
            out.extend(self.inner.bootstrap_conns.locked().iter().cloned());
        }
        out
    }

    /// KIP-899: forgets the learned brokers (their connections are dropped,
    /// every topic is stale) so the next metadata request goes to
    /// `bootstrap.servers`.
    fn rebootstrap(&self, why: &str) {
        log::at!(
            self.inner.net.log,
            crate::log::level::NOTICE,
            "REBOOTSTRAP",
            "Starting re-bootstrap sequence: {why}; asking bootstrap.servers {}",
            self.bootstrap().join(",")
        );
        {
            let mut cache = self.inner.cache.write_locked();
            cache.meta.brokers.clear();
            cache.brokers_age = None;
            cache.topic_age.clear();
        }
        self.inner.conns.locked().clear();
    }

    fn absorb(&self, meta: &Metadata, asked: Option<&[&str]>) {
        let now = Instant::now();
        let mut cache = self.inner.cache.write_locked();
        let c = &mut *cache;
        c.meta.brokers = meta.brokers.clone();
        c.meta.controller_id = meta.controller_id;
        c.meta.cluster_id = meta.cluster_id.clone();
        c.meta.orig_broker = meta.orig_broker.clone();
        c.brokers_age = Some(now);
        if asked.is_none() {
            c.meta
                .topics
                .retain(|name, _| meta.topics.contains_key(name));
        }
        let log = &self.inner.net.log;
        for (name, t) in &meta.topics {
            if log.debug_on(ctx::TOPIC | ctx::METADATA) {
                log_leader_changes(log, c.meta.topics.get(name), t);
            }
            c.meta.topics.insert(name.clone(), t.clone());
            c.topic_age.insert(name.clone(), now);
        }
        // drop connections to brokers that moved or left
        let mut conns = self.inner.conns.locked();
        conns.retain(|(id, _), conn| {
            meta.brokers
                .get(id)
                .is_some_and(|b| b.addr() == conn.addr())
        });
    }

    /// KIP-951: a NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH answer names
    /// the partition's new leader and epoch (and the leader's endpoint, if
    /// the client may not know it). Takes it into the cached metadata when
    /// the epoch is newer than the cached one, so the next request goes
    /// there without a metadata round trip. Returns whether the cache now
    /// names that leader at that epoch (already did, for a second answer).
    pub fn update_leader(
        &self,
        topic: &str,
        partition: i32,
        leader: i32,
        epoch: i32,
        endpoint: Option<BrokerInfo>,
    ) -> bool {
        if leader < 0 || epoch < 0 {
            return false;
        }
        let mut cache = self.inner.cache.write_locked();
        let c = &mut *cache;
        if let Some(b) = endpoint.filter(|b| b.id == leader && b.port > 0) {
            c.meta.brokers.entry(leader).or_insert(b);
        }
        if !c.meta.brokers.contains_key(&leader) {
            return false;
        }
        let Some(p) = c
            .meta
            .topics
            .get_mut(topic)
            .and_then(|t| t.partitions.iter_mut().find(|p| p.id == partition))
        else {
            return false;
        };
        // an older epoch, or the same one with another leader, is stale
        if epoch < p.leader_epoch || (epoch == p.leader_epoch && p.leader != leader) {
            log::debug!(
                self.inner.net.log,
                ctx::TOPIC,
                "BROKER",
                "{topic} [{partition}]: ignoring outdated leader {leader} epoch {epoch}: \
                 cached leader {} epoch {}",
                p.leader,
                p.leader_epoch
            );
            return false;
        }
        if p.leader != leader || p.leader_epoch != epoch {
            log::debug!(
                self.inner.net.log,
                ctx::TOPIC,
                "BROKER",
                "{topic} [{partition}]: leader {} epoch {} -> leader {leader} epoch {epoch} \
                 (KIP-951: named in an error answer)",
                p.leader,
                p.leader_epoch
            );
        }
        p.leader = leader;
        p.leader_epoch = epoch;
        true
    }

    /// Marks a topic's metadata stale, so the next lookup refreshes it.
    pub fn invalidate(&self, topic: &str) {
        let mut cache = self.inner.cache.write_locked();
        cache.topic_age.remove(topic);
    }

    /// A topic's metadata, refreshed if unknown, stale or invalidated.
    ///
    /// # Errors
    /// `UNKNOWN_TOPIC_OR_PARTITION` (or the topic's error) if the cluster
    /// does not have it; network errors.
    pub fn topic(&self, name: &str, auto_create: bool, timeout: Duration) -> Result<TopicInfo> {
        if let Some(t) = self.cached_topic(name) {
            return Ok(t);
        }
        let meta = self.fetch_metadata(Some(&[name]), auto_create, timeout)?;
        match meta.topics.get(name) {
            Some(t) if t.error.is_ok() => Ok(t.clone()),
            Some(t) => Err(Error::kafka(t.error, format!("topic {name}"))),
            None => Err(Error::kafka(
                KafkaCode::UNKNOWN_TOPIC_OR_PARTITION,
                format!("topic {name}"),
            )),
        }
    }

    fn cached_topic(&self, name: &str) -> Option<TopicInfo> {
        let cache = self.inner.cache.read_locked();
        let age = cache.topic_age.get(name)?;
        let t = cache.meta.topics.get(name)?;
        let fresh = age.elapsed() < self.inner.max_age;
        let usable = t.error.is_ok() && t.partitions.iter().all(|p| p.leader >= 0);
        (fresh && usable).then(|| t.clone())
    }

    /// The leader of a partition: (broker id, leader epoch).
    ///
    /// # Errors
    /// `_UNKNOWN_PARTITION` if the topic has no such partition,
    /// `LEADER_NOT_AVAILABLE` if it has no leader now.
    pub fn leader(&self, topic: &str, partition: i32, timeout: Duration) -> Result<(i32, i32)> {
        let t = self.topic(topic, false, timeout)?;
        let p = t
            .partitions
            .iter()
            .find(|p| p.id == partition)
            .ok_or_else(|| {
                Error::local(
                    local::UNKNOWN_PARTITION,
                    format!(
                        "{topic} [{partition}]: no such partition ({} partitions)",
                        t.partitions.len()
                    ),
                )
            })?;
        if p.leader < 0 {
            self.invalidate(topic);
            return Err(Error::kafka(
                KafkaCode::LEADER_NOT_AVAILABLE,
                format!("{topic} [{partition}]"),
            ));
        }
        Ok((p.leader, p.leader_epoch))
    }

    /// A topic's partition count from the cache, without any network call
    /// (`None` if unknown, stale or in error).
    pub fn cached_partition_count(&self, topic: &str) -> Option<i32> {
        self.cached_topic(topic).map(|t| t.partitions.len() as i32)
    }

    /// Topics in the metadata cache (statistics' `metadata_cache_cnt`).
    pub fn cached_topic_count(&self) -> usize {
        self.inner.cache.read_locked().meta.topics.len()
    }

    /// How long ago `topic`'s metadata was last refreshed, if it is cached
    /// (statistics' `metadata_age`).
    pub fn topic_metadata_age(&self, topic: &str) -> Option<Duration> {
        let cache = self.inner.cache.read_locked();
        cache.topic_age.get(topic).map(Instant::elapsed)
    }

    /// A partition's leader from the cache, without any network call
    /// (`None` if unknown, stale, leaderless or in error).
    pub fn cached_leader(&self, topic: &str, partition: i32) -> Option<i32> {
        let cache = self.inner.cache.read_locked();
        let age = cache.topic_age.get(topic)?;
        if age.elapsed() >= self.inner.max_age {
            return None;
        }
        let p = cache
            .meta
            .topics
            .get(topic)?
            .partitions
            .iter()
            .find(|p| p.id == partition)?;
        (p.leader >= 0 && p.error.is_ok()).then_some(p.leader)
    }

    /// The coordinator of a group (`key_type` 0) or transactional id (1),
    /// found with FindCoordinator, as its group-purpose connection. Retries
    /// COORDINATOR_NOT_AVAILABLE / COORDINATOR_LOAD_IN_PROGRESS until `timeout`,
    /// waiting [`Cluster::retry_backoff`] between attempts.
    ///
    /// # Errors
    /// The coordinator error, or network errors.
    pub fn coordinator(&self, key: &str, key_type: i8, timeout: Duration) -> Result<BrokerConn> {
        use crate::protocol::find_coordinator::FindCoordinatorRequest;
        let deadline = Instant::now() + timeout;
        let mut attempt = 0;
        loop {
            let conn = self.any_conn(Purpose::Metadata, timeout)?;
            let version = conn.version_for::<FindCoordinatorRequest>(deadline)?;
            let mut req = FindCoordinatorRequest::default();
            if version >= 4 {
                req.coordinator_keys = vec![key.to_string()];
            } else {
                req.key = key.to_string();
            }
            if version >= 1 {
                req.key_type = key_type;
            } else if key_type != 0 {
                return Err(Error::local(
                    local::UNSUPPORTED_FEATURE,
                    "broker cannot find transaction coordinators",
                ));
            }
            let resp = conn
                .send_at(&req, version, deadline)?
                .wait_until(deadline)?;
            let (code, id, host, port) = match resp.coordinators.first() {
                Some(c) if version >= 4 => (c.error_code, c.node_id, c.host.clone(), c.port),
                _ => (resp.error_code, resp.node_id, resp.host.clone(), resp.port),
            };
            let code = KafkaCode(code);
            if code.is_ok() {
                {
                    let mut cache = self.inner.cache.write_locked();
                    cache.meta.brokers.entry(id).or_insert(BrokerInfo {
                        id,
                        host,
                        port,
                        rack: None,
                    });
                }
                return self.conn(id, Purpose::Group);
            }
            let backoff = self.retry_backoff(attempt);
            attempt += 1;
            if !code.is_retriable() || Instant::now() + backoff >= deadline {
                return Err(Error::kafka(code, format!("find coordinator for {key}")));
            }
            self.pause(backoff);
            self.check_open()?;
        }
    }

    /// The connection to broker `id` for `purpose`.
    ///
    /// # Errors
    /// If the broker is not in the metadata.
    pub fn conn(&self, id: i32, purpose: Purpose) -> Result<BrokerConn> {
        self.check_open()?;
        if let Some(c) = self.inner.conns.locked().get(&(id, purpose)) {
            return Ok(c.clone());
        }
        let b = self.snapshot().brokers.get(&id).cloned().ok_or_else(|| {
            Error::transport(format!("broker {id} is not in the cluster metadata"))
        })?;
        let addr = b.addr();
        let mut conns = self.inner.conns.locked();
        let c = conns.entry((id, purpose)).or_insert_with(|| {
            BrokerConn::new(format!("{addr}/{id}"), addr.clone(), self.inner.net.clone())
        });
        Ok(c.clone())
    }

    /// Some broker's connection for `purpose` (refreshing metadata first if
    /// no broker is known).
    ///
    /// # Errors
    /// If no broker is known and none answers.
    pub fn any_conn(&self, purpose: Purpose, timeout: Duration) -> Result<BrokerConn> {
        self.check_open()?;
        let ids: Vec<i32> = self.snapshot().brokers.keys().copied().collect();
        let ids = if ids.is_empty() {
            self.fetch_metadata(Some(&[]), false, timeout)?
                .brokers
                .keys()
                .copied()
                .collect()
        } else {
            ids
        };
        let conns: Vec<BrokerConn> = ids
            .iter()
            .filter_map(|id| self.conn(*id, purpose).ok())
            .collect();
        // one that is up, else one not failing to connect (a broker that
        // went down stays first in id order), else any
        conns
            .iter()
            .find(|c| c.is_connected())
            .or_else(|| conns.iter().find(|c| !c.is_failing()))
            .or(conns.first())
            .cloned()
            .ok_or_else(|| Error::local(local::ALL_BROKERS_DOWN, "no broker known"))
    }

    /// Every connection opened so far with its broker id (-1 for the
    /// bootstrap ones), for statistics.
    pub fn connections(&self) -> Vec<(i32, BrokerConn)> {
        let mut v: Vec<(i32, BrokerConn)> = self
            .inner
            .conns
            .locked()
            .iter()
            .map(|((id, _), c)| (*id, c.clone()))
            .collect();
        v.extend(
            self.inner
                .bootstrap_conns
                .locked()
                .iter()
                .map(|c| (-1, c.clone())),
        );
        v
    }

    /// Sets the SASL user name and password used by authentications that
    /// start from now on (new connections and reconnections); connections
    /// already authenticated stay as they are. As librdkafka's
    /// `rd_kafka_sasl_set_credentials`, the values are kept even when SASL is
    /// not configured.
    pub fn set_sasl_credentials(&self, username: &str, password: &str) {
        self.inner.net.sasl_credentials.set(username, password);
    }

    /// The client's OAUTHBEARER token holder (set a token, report a
    /// failure, set the refresh callback: src/net/sasl/token.rs).
    ///
    /// # Errors
    /// `_STATE` when OAUTHBEARER is not the configured mechanism (as
    /// librdkafka's `rd_kafka_oauthbearer_set_token`).
    #[cfg(feature = "sasl")]
    pub fn oauthbearer(&self) -> Result<crate::net::sasl::token::OAuthBearer> {
        self.inner
            .net
            .sasl
            .as_ref()
            .and_then(|m| m.oauthbearer().cloned())
            .ok_or_else(|| {
                Error::local(
                    local::STATE,
                    "SASL/OAUTHBEARER is not the configured authentication mechanism",
                )
            })
    }

    /// Closes every connection for good: requests waiting for a response
    /// fail, and every later request (including a retry of one of those)
    /// fails at once with `_DESTROY` instead of reconnecting. For a client
    /// being destroyed while other threads are still inside calls on it.
    pub fn shutdown(&self) {
        self.inner
            .shut_down
            .store(true, std::sync::atomic::Ordering::SeqCst);
        #[cfg(feature = "zookeeper")]
        self.inner.zk_watch.locked().take();
        // the OAUTHBEARER refresher thread ends with the client
        #[cfg(feature = "sasl")]
        if let Ok(ob) = self.oauthbearer() {
            ob.stop();
        }
        for c in self.inner.conns.locked().drain().map(|(_, c)| c) {
            c.shutdown();
        }
        for c in self.inner.bootstrap_conns.locked().iter() {
            c.shutdown();
        }
        self.wake_pauses();
    }

    /// Ends the waits of [`Cluster::pause`] now (their callers retry or
    /// see that their client is closing).
    pub(crate) fn wake_pauses(&self) {
        // under the lock: a pause that saw the count unchanged waits by now
        let mut n = self.inner.shut_down_wake.0.locked();
        *n = n.wrapping_add(1);
        self.inner.shut_down_wake.1.notify_all();
    }

    /// Waits `d`, or less once [`Cluster::shutdown`] runs: a client that
    /// waits for a broker to appear must not hold up its own destruction
    /// (librdkafka's `rd_kafka_destroy` with messages still waiting for a
    /// broker returns at once: outstanding messages fail with `_DESTROY`).
    /// [`Cluster::wake_pauses`] ends it early too (a consumer that closes
    /// frees its group thread from a wait for a broker).
    pub(crate) fn pause(&self, d: Duration) {
        let deadline = Instant::now() + d;
        let (lock, cv) = &self.inner.shut_down_wake;
        let mut g = lock.locked();
        let start = *g;
        loop {
            let now = Instant::now();
            if now >= deadline || *g != start || self.check_open().is_err() {
                return;
            }
            g = cv
                .wait_timeout(g, deadline - now)
                .map_or_else(|e| e.into_inner().0, |r| r.0);
        }
    }

    /// `_DESTROY` once [`Cluster::shutdown`] has run.
    fn check_open(&self) -> Result<()> {
        if self
            .inner
            .shut_down
            .load(std::sync::atomic::Ordering::SeqCst)
        {
            Err(Error::local(local::DESTROY, "client destroyed"))
        } else {
            Ok(())
        }
    }

    /// Closes every connection (and stops watching ZooKeeper). A later
    /// request opens a new one.
    pub fn close(&self) {
        #[cfg(feature = "zookeeper")]
        self.inner.zk_watch.locked().take();
        for c in self.inner.conns.locked().drain().map(|(_, c)| c) {
            c.close();
        }
        for c in self.inner.bootstrap_conns.locked().iter() {
            c.close();
        }
    }
}

/// The cluster's broker list from ZooKeeper registrations: each broker's
/// endpoint for `protocol`.
///
/// # Errors
/// A registration without such an endpoint (naming its znode), or none at all.
#[cfg(feature = "zookeeper")]
fn zk_brokers_info(list: &[crate::registry::ZkBroker], protocol: &str) -> Result<Vec<BrokerInfo>> {
    let out = list
        .iter()
        .map(|b| {
            let e = b.endpoint(protocol)?;
            Ok(BrokerInfo {
                id: b.id,
                host: e.host.clone(),
                port: i32::from(e.port),
                rack: b.rack.clone(),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(out)
}

/// As [`zk_brokers_info`], skipping brokers without an endpoint for `protocol`.
#[cfg(feature = "zookeeper")]
fn zk_brokers_lenient(list: &[crate::registry::ZkBroker], protocol: &str) -> Vec<BrokerInfo> {
    list.iter()
        .filter_map(|b| zk_brokers_info(std::slice::from_ref(b), protocol).ok())
        .flatten()
        .collect()
}

/// `client.dns.lookup=resolve_canonical_bootstrap_servers_only`: each
/// bootstrap server becomes the canonical names of the addresses it resolves
/// to (librdkafka, as the Java client, for Kerberos and TLS names behind
/// aliases). One that does not resolve is kept as given, so connecting to it
/// reports the error.
fn canonical_bootstrap(list: Vec<String>, family: crate::net::conn::AddressFamily) -> Vec<String> {
    let mut out = Vec::new();
    for entry in list {
        let names =
            crate::net::conn::canonical_names(&entry, family).unwrap_or_else(|_| vec![entry]);
        for n in names {
            if !out.contains(&n) {
                out.push(n);
            }
        }
    }
    out
}

/// Splits `bootstrap.servers` ("host:port,host:port", an optional
/// "PLAINTEXT://" prefix per entry, a missing port meaning 9092).
///
/// # Errors
/// If the list is empty or an entry is malformed.
pub fn parse_bootstrap(s: &str) -> Result<Vec<String>> {
    let bad = |reason: String| Error::Config {
        key: "bootstrap.servers".into(),
        reason,
    };
    let mut out = Vec::new();
    for raw in s.split([',', ' ']).map(str::trim).filter(|e| !e.is_empty()) {
        let e = raw.split_once("://").map_or(raw, |(_, rest)| rest);
        let (host, port) = match e.rsplit_once(':') {
            Some((h, p)) if !h.is_empty() && !h.ends_with(':') => {
                let port: u16 = p
                    .parse()
                    .map_err(|_| bad(format!("bad port in \"{raw}\"")))?;
                (h.trim_start_matches('[').trim_end_matches(']'), port)
            }
            _ => (e, 9092),
        };
        if host.is_empty() {
            return Err(bad(format!("empty host in \"{raw}\"")));
        }
        out.push(if host.contains(':') {
            format!("[{host}]:{port}")
        } else {
            format!("{host}:{port}")
        });
    }
    if out.is_empty() {
        return Err(bad("no brokers given".into()));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bootstrap_lists() {
        assert_eq!(
            parse_bootstrap("a:1, PLAINTEXT://b:2,c").unwrap(),
            vec!["a:1".to_string(), "b:2".into(), "c:9092".into()]
        );
        assert_eq!(
            parse_bootstrap("[::1]:9093").unwrap(),
            vec!["[::1]:9093".to_string()]
        );
        assert!(parse_bootstrap("").is_err());
        assert!(parse_bootstrap("a:notaport").is_err());
    }
}
