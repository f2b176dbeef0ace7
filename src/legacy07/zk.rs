//! Broker discovery from Kafka 0.7's ZooKeeper registry (Kafka 0.7's design document,
//! "Zookeeper Directories"):
//!
//! ```text
//! /brokers/ids/<broker_id>              "creator:host:port"   (ephemeral)
//! /brokers/topics/<topic>/<broker_id>   partition count       (ephemeral)
//! ```
//!
//! A broker lists a topic only once the topic exists on it. A producer
//! still sends to brokers that do not list it, to partition 0 (every broker
//! has at least that one): writing there creates the topic, the broker then
//! registers its partitions, and the registry's watch tells us to re-read.
//!
//! The registry keeps one ZooKeeper session with watches on `/brokers/ids`,
//! `/brokers/topics/<topic>` and each count node read; any change marks it
//! stale, and the next look-up reads it again.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use zookeeper::{ZkError, ZooKeeper};

use crate::error::{local, Error};
pub use crate::registry::brokers::{
    parse_registration_07 as parse_broker_registration, Broker07 as BrokerInfo, BROKER_IDS_PATH,
};

/// Where topics are registered, per broker.
///
/// cbindgen:ignore
pub const BROKER_TOPICS_PATH: &str = "/brokers/topics";

/// A partition on a broker: where a producer can send.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BrokerPartition {
    /// The broker's id.
    pub broker_id: i32,
    /// The partition on that broker.
    pub partition: i32,
}

/// A ZooKeeper session whose watches all mark `stale`.
fn open_session(
    zk_connect: &str,
    timeout: Duration,
    stale: &Arc<AtomicBool>,
) -> Result<ZooKeeper, Error> {
    let flag = stale.clone();
    crate::registry::session::open(zk_connect, timeout, move |_| {
        flag.store(true, Ordering::SeqCst)
    })
    .map_err(|e| Error::invalid_arg(format!("zookeeper {zk_connect:?}: {e}")))
}

fn zk_error(what: &str, e: ZkError) -> Error {
    Error::transport(format!("ZooKeeper {what}: {e:?} (is ZooKeeper reachable?)"))
}

/// Kafka 0.7's broker and topic registry, read from ZooKeeper.
pub struct Registry {
    zk: ZooKeeper,
    connect: String,
    timeout: Duration,
    stale: Arc<AtomicBool>,
    brokers: BTreeMap<i32, BrokerInfo>,
    /// topic → (broker id → partition count); only brokers that list it.
    topics: HashMap<String, BTreeMap<i32, i32>>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("connect", &self.connect)
            .field("brokers", &self.brokers)
            .field("topics", &self.topics)
            .finish()
    }
}

impl Registry {
    /// Opens a ZooKeeper session (`zk.connect` syntax: `host:port[,host:port…][/chroot]`)
    /// and reads the broker list.
    ///
    /// `timeout` bounds each look-up while ZooKeeper is unreachable (and is
    /// the session timeout).
    ///
    /// # Errors
    /// A bad connect string, no session within `timeout`, no brokers registered.
    pub fn connect(zk_connect: &str, timeout: Duration) -> Result<Registry, Error> {
        let stale = Arc::new(AtomicBool::new(false));
        let zk = open_session(zk_connect, timeout, &stale)?;
        let mut r = Registry {
            zk,
            connect: zk_connect.to_string(),
            timeout,
            stale,
            brokers: BTreeMap::new(),
            topics: HashMap::new(),
        };
        r.read_brokers()?;
        Ok(r)
    }

    /// Runs a ZooKeeper read, retrying while the session is being (re)made:
    /// the client answers ConnectionLoss for requests queued across a
    /// reconnect. Gives up after the registry's timeout.
    fn retry<T>(&self, op: impl FnMut(&ZooKeeper) -> Result<T, ZkError>) -> Result<T, ZkError> {
        crate::registry::session::retry(&self.zk, self.timeout, op)
    }

    /// The connect string this registry reads.
    pub fn zk_connect(&self) -> &str {
        &self.connect
    }

    /// True when a watch fired since the last read.
    pub fn is_stale(&self) -> bool {
        self.stale.load(Ordering::SeqCst)
    }

    /// Reads everything again: the brokers and every topic looked up so far.
    ///
    /// # Errors
    /// ZooKeeper failures, malformed registrations, no brokers.
    /// A session that ZooKeeper expired (after an outage longer than the
    /// timeout) is replaced by a new one, and its watches set again.
    pub fn refresh(&mut self) -> Result<(), Error> {
        self.stale.store(false, Ordering::SeqCst);
        if let Err(e) = self.read_brokers() {
            if e.code() != local::TRANSPORT {
                return Err(e);
            }
            self.zk = open_session(&self.connect, self.timeout, &self.stale)?;
            self.read_brokers()?;
        }
        let topics: Vec<String> = self.topics.keys().cloned().collect();
        for t in topics {
            self.read_topic(&t)?;
        }
        Ok(())
    }

    fn refresh_if_stale(&mut self) -> Result<(), Error> {
        if self.is_stale() {
            self.refresh()?;
        }
        Ok(())
    }

    fn read_brokers(&mut self) -> Result<(), Error> {
        let ids = match self.retry(|zk| zk.get_children(BROKER_IDS_PATH, true)) {
            Ok(ids) => ids,
            Err(ZkError::NoNode) => {
                // Watch for it to appear.
                let _ = self.retry(|zk| zk.exists(BROKER_IDS_PATH, true));
                Vec::new()
            }
            Err(e) => return Err(zk_error(&format!("list {BROKER_IDS_PATH}"), e)),
        };
        let mut brokers = BTreeMap::new();
        for id in ids {
            let Ok(n) = id.parse::<i32>() else {
                continue;
            };
            let path = format!("{BROKER_IDS_PATH}/{id}");
            let data = match self.retry(|zk| zk.get_data(&path, true)) {
                Ok((d, _)) => d,
                // Gone between the listing and the read: the broker left.
                Err(ZkError::NoNode) => continue,
                Err(e) => return Err(zk_error(&format!("read {path}"), e)),
            };
            let s = String::from_utf8_lossy(&data);
            brokers.insert(n, parse_broker_registration(n, &s)?);
        }
        if brokers.is_empty() {
            return Err(Error::local(
                local::ALL_BROKERS_DOWN,
                format!(
                    "no Kafka 0.7 broker is registered under {BROKER_IDS_PATH} in ZooKeeper {}",
                    self.connect
                ),
            ));
        }
        self.brokers = brokers;
        Ok(())
    }

    fn read_topic(&mut self, topic: &str) -> Result<(), Error> {
        if topic.is_empty() || topic.contains('/') {
            return Err(Error::invalid_arg(format!("bad topic name {topic:?}")));
        }
        let dir = format!("{BROKER_TOPICS_PATH}/{topic}");
        let ids = match self.retry(|zk| zk.get_children(&dir, true)) {
            Ok(ids) => ids,
            Err(ZkError::NoNode) => {
                let _ = self.retry(|zk| zk.exists(&dir, true));
                Vec::new()
            }
            Err(e) => return Err(zk_error(&format!("list {dir}"), e)),
        };
        let mut counts = BTreeMap::new();
        for id in ids {
            let Ok(n) = id.parse::<i32>() else {
                continue;
            };
            let path = format!("{dir}/{id}");
            let data = match self.retry(|zk| zk.get_data(&path, true)) {
                Ok((d, _)) => d,
                Err(ZkError::NoNode) => continue,
                Err(e) => return Err(zk_error(&format!("read {path}"), e)),
            };
            let s = String::from_utf8_lossy(&data);
            let count: i32 = s.trim().parse().ok().filter(|c| *c > 0).ok_or_else(|| {
                Error::local(
                    local::BAD_MSG,
                    format!("{path} = {s:?}: not a partition count"),
                )
            })?;
            counts.insert(n, count);
        }
        self.topics.insert(topic.to_string(), counts);
        Ok(())
    }

    /// The registered brokers, by id (re-read first if a watch fired).
    ///
    /// # Errors
    /// As [`Registry::refresh`].
    pub fn brokers(&mut self) -> Result<Vec<BrokerInfo>, Error> {
        self.refresh_if_stale()?;
        Ok(self.brokers.values().cloned().collect())
    }

    /// One broker by id, if registered.
    ///
    /// # Errors
    /// As [`Registry::refresh`].
    pub fn broker(&mut self, id: i32) -> Result<Option<BrokerInfo>, Error> {
        self.refresh_if_stale()?;
        Ok(self.brokers.get(&id).cloned())
    }

    /// The partitions brokers have registered for `topic`: for each live
    /// broker listing it with count n, partitions 0..n.
    ///
    /// # Errors
    /// As [`Registry::refresh`], and a bad topic name.
    pub fn registered_partitions(&mut self, topic: &str) -> Result<Vec<BrokerPartition>, Error> {
        self.refresh_if_stale()?;
        if !self.topics.contains_key(topic) {
            self.read_topic(topic)?;
        }
        let counts = self.topics.get(topic).cloned().unwrap_or_default();
        Ok(counts
            .iter()
            .filter(|(id, _)| self.brokers.contains_key(id))
            .flat_map(|(&broker_id, &n)| {
                (0..n).map(move |partition| BrokerPartition {
                    broker_id,
                    partition,
                })
            })
            .collect())
    }

    /// Where a producer may send `topic`: the registered partitions, plus
    /// partition 0 of every live broker that does not list the topic yet
    /// (the driver guide's rule for new topics). Sorted by broker, then partition.
    ///
    /// # Errors
    /// As [`Registry::registered_partitions`].
    pub fn producer_partitions(&mut self, topic: &str) -> Result<Vec<BrokerPartition>, Error> {
        let mut v = self.registered_partitions(topic)?;
        let listed = self.topics.get(topic).cloned().unwrap_or_default();
        for &broker_id in self.brokers.keys() {
            if !listed.contains_key(&broker_id) {
                v.push(BrokerPartition {
                    broker_id,
                    partition: 0,
                });
            }
        }
        v.sort();
        Ok(v)
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.zk.close();
    }
}
