//! Cluster inspection: everything a ZooKeeper-mode Kafka keeps in
//! ZooKeeper, read into typed values. A malformed znode is an error that
//! names the path and the field.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::Value;
use zookeeper::ZooKeeper;

use super::brokers::{read_brokers, ZkBroker};
use super::json::{self, bad, bad_node, id_list};
use super::session;
use crate::error::Error;

/// A ZooKeeper session for reading (and, for consumer offsets, writing) a
/// Kafka cluster's znodes.
pub struct ZkClient {
    pub(crate) zk: ZooKeeper,
    pub(crate) timeout: Duration,
    connect: String,
}

impl std::fmt::Debug for ZkClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZkClient")
            .field("connect", &self.connect)
            .finish()
    }
}

/// `/brokers/topics/<t>`: the replica assignment.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TopicAssignment {
    /// Format version (1 or 2; 3 with topic_id in Kafka 2.8+).
    pub version: i32,
    /// Partition → replicas.
    pub partitions: BTreeMap<i32, Vec<i32>>,
    /// Replicas being added by a reassignment (version 2+).
    pub adding_replicas: BTreeMap<i32, Vec<i32>>,
    /// Replicas being removed by a reassignment (version 2+).
    pub removing_replicas: BTreeMap<i32, Vec<i32>>,
    /// The topic ID (Kafka 2.8+), as written (base64).
    pub topic_id: Option<String>,
}

/// `/brokers/topics/<t>/partitions/<p>/state`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionState {
    /// Format version.
    pub version: i32,
    /// Leader broker id (-1: none).
    pub leader: i32,
    /// Leader epoch.
    pub leader_epoch: i32,
    /// Epoch of the controller that wrote it.
    pub controller_epoch: i32,
    /// In-sync replicas.
    pub isr: Vec<i32>,
}

/// `/controller`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Controller {
    /// Format version.
    pub version: i32,
    /// The controller's broker id.
    pub broker_id: i32,
    /// When it became controller (ms since the epoch), if written.
    pub timestamp: Option<i64>,
}

/// One partition named in an admin request.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct AdminPartition {
    /// Topic.
    pub topic: String,
    /// Partition.
    pub partition: i32,
    /// New replicas (reassignments only; empty otherwise).
    pub replicas: Vec<i32>,
}

/// One znode's name and raw text, for change notifications.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notification {
    /// The znode's name (`isr_change_0000000001`, `config_change_0000000003`).
    pub name: String,
    /// Its partitions (ISR changes) — empty for config changes.
    pub partitions: Vec<AdminPartition>,
    /// Its entity path (config changes, version 2: `topics/<t>`), else empty.
    pub entity_path: String,
}

fn partition_map(
    path: &str,
    field: &str,
    m: &serde_json::Map<String, Value>,
) -> Result<BTreeMap<i32, Vec<i32>>, Error> {
    m.iter()
        .map(|(k, v)| {
            let p: i32 = k
                .parse()
                .map_err(|_| bad(path, field, format!("partition {k:?} is not a number")))?;
            Ok((p, id_list(path, &format!("{field}.{k}"), v)?))
        })
        .collect()
}

/// Parses an admin request znode's `partitions` list
/// (`/admin/reassign_partitions` with replicas, `/admin/preferred_replica_election`
/// and `/isr_change_notification/*` without).
///
/// # Errors
/// `_BAD_MSG` naming the path and field.
pub fn parse_admin_partitions(
    path: &str,
    data: &[u8],
    with_replicas: bool,
) -> Result<Vec<AdminPartition>, Error> {
    let node = json::parse(path, data)?;
    let mut out = Vec::new();
    for (i, v) in node.array("partitions")?.iter().enumerate() {
        let field = format!("partitions[{i}]");
        let o = v
            .as_object()
            .ok_or_else(|| bad(path, &field, format!("expected an object, got {v}")))?;
        let topic = o
            .get("topic")
            .and_then(Value::as_str)
            .ok_or_else(|| bad(path, &format!("{field}.topic"), "missing or not a string"))?;
        let partition = o
            .get("partition")
            .and_then(Value::as_i64)
            .and_then(|n| i32::try_from(n).ok())
            .ok_or_else(|| {
                bad(
                    path,
                    &format!("{field}.partition"),
                    "missing or not a partition",
                )
            })?;
        let replicas = match (with_replicas, o.get("replicas")) {
            (true, Some(r)) => id_list(path, &format!("{field}.replicas"), r)?,
            (true, None) => return Err(bad(path, &format!("{field}.replicas"), "missing")),
            _ => Vec::new(),
        };
        out.push(AdminPartition {
            topic: topic.to_string(),
            partition,
            replicas,
        });
    }
    Ok(out)
}

/// Parses `/brokers/topics/<t>`: the topic's replica assignment (versions 1–3).
///
/// # Errors
/// `_BAD_MSG` naming the path and field.
pub fn parse_topic(path: &str, data: &[u8]) -> Result<TopicAssignment, Error> {
    let node = json::parse(path, data)?;
    Ok(TopicAssignment {
        version: node.int("version", 1, 3)? as i32,
        partitions: partition_map(path, "partitions", &node.object("partitions")?)?,
        adding_replicas: partition_map(path, "adding_replicas", &node.object("adding_replicas")?)?,
        removing_replicas: partition_map(
            path,
            "removing_replicas",
            &node.object("removing_replicas")?,
        )?,
        topic_id: node.opt_str("topic_id")?,
    })
}

/// Parses `/brokers/topics/<t>/partitions/<p>/state`.
///
/// # Errors
/// `_BAD_MSG` naming the path and field.
pub fn parse_partition_state(path: &str, data: &[u8]) -> Result<PartitionState, Error> {
    let node = json::parse(path, data)?;
    let isr = node.get("isr").ok_or_else(|| bad(path, "isr", "missing"))?;
    Ok(PartitionState {
        version: node.i32("version")?,
        leader: node.i32("leader")?,
        leader_epoch: node.i32("leader_epoch")?,
        controller_epoch: node.i32("controller_epoch")?,
        isr: id_list(path, "isr", isr)?,
    })
}

/// Parses `/controller`.
///
/// # Errors
/// `_BAD_MSG` naming the path and field.
pub fn parse_controller(path: &str, data: &[u8]) -> Result<Controller, Error> {
    let node = json::parse(path, data)?;
    Ok(Controller {
        version: node.i32("version")?,
        broker_id: node.i32("brokerid")?,
        timestamp: node.opt_int("timestamp", i64::MIN, i64::MAX)?,
    })
}

/// Parses `/controller_epoch`, a bare number.
///
/// # Errors
/// `_BAD_MSG` when it is not one.
pub fn parse_controller_epoch(path: &str, data: &[u8]) -> Result<i32, Error> {
    let s = String::from_utf8_lossy(data);
    s.trim()
        .parse()
        .map_err(|_| bad_node(path, format!("{s:?} is not an epoch number")))
}

/// Parses `/cluster/id`'s `id`.
///
/// # Errors
/// `_BAD_MSG` naming the path and field.
pub fn parse_cluster_id(path: &str, data: &[u8]) -> Result<String, Error> {
    json::parse(path, data)?.str("id")
}

/// Parses `/config/topics/<t>`: the configuration overrides.
///
/// # Errors
/// `_BAD_MSG` naming the path and field.
pub fn parse_topic_config(path: &str, data: &[u8]) -> Result<BTreeMap<String, String>, Error> {
    let node = json::parse(path, data)?;
    node.object("config")?
        .into_iter()
        .map(|(k, v)| match v {
            Value::String(s) => Ok((k, s)),
            other => Err(bad(
                path,
                &format!("config.{k}"),
                format!("expected a string, got {other}"),
            )),
        })
        .collect()
}

/// Parses a `/config/changes/*` notification into its entity path.
///
/// # Errors
/// `_BAD_MSG` naming the path and field.
pub fn parse_config_change(path: &str, data: &[u8]) -> Result<String, Error> {
    let node = json::parse(path, data)?;
    match node.int("version", 1, 2)? {
        1 => Ok(format!(
            "{}/{}",
            node.str("entity_type")?,
            node.str("entity_name")?
        )),
        _ => node.str("entity_path"),
    }
}

impl ZkClient {
    /// Opens a session (`host:port[,…][/chroot]`); `timeout` is the session
    /// timeout and bounds each call while ZooKeeper is unreachable.
    ///
    /// # Errors
    /// A bad connect string.
    pub fn connect(zk_connect: &str, timeout: Duration) -> Result<ZkClient, Error> {
        let zk = session::open(zk_connect, timeout, |_| {})?;
        Ok(ZkClient {
            zk,
            timeout,
            connect: zk_connect.to_string(),
        })
    }

    /// The connect string.
    pub fn zk_connect(&self) -> &str {
        &self.connect
    }

    /// The raw data of a znode, `None` if absent.
    ///
    /// # Errors
    /// ZooKeeper failures.
    pub fn get(&self, path: &str) -> Result<Option<Vec<u8>>, Error> {
        session::get(&self.zk, self.timeout, path, false)
    }

    /// Writes `data` into the persistent znode `path`, creating it and its
    /// parents when missing.
    ///
    /// # Errors
    /// ZooKeeper failures.
    pub fn put(&self, path: &str, data: &[u8]) -> Result<(), Error> {
        session::upsert(&self.zk, self.timeout, path, data)
    }

    /// Deletes the znode `path` and everything under it; a missing node is
    /// no error.
    ///
    /// # Errors
    /// ZooKeeper failures.
    pub fn delete_recursive(&self, path: &str) -> Result<(), Error> {
        use zookeeper::ZooKeeperExt;
        match session::retry(&self.zk, self.timeout, |z| z.delete_recursive(path)) {
            Ok(()) | Err(zookeeper::ZkError::NoNode) => Ok(()),
            Err(e) => Err(session::error(&format!("delete {path}"), e)),
        }
    }

    /// The children of a znode, sorted (empty if absent).
    ///
    /// # Errors
    /// ZooKeeper failures.
    pub fn children(&self, path: &str) -> Result<Vec<String>, Error> {
        session::children(&self.zk, self.timeout, path, false)
    }

    /// Registered brokers.
    ///
    /// # Errors
    /// ZooKeeper failures, malformed registrations.
    pub fn brokers(&self) -> Result<Vec<ZkBroker>, Error> {
        read_brokers(&self.zk, self.timeout, false)
    }

    /// Topic names under `/brokers/topics`.
    ///
    /// # Errors
    /// ZooKeeper failures.
    pub fn topics(&self) -> Result<Vec<String>, Error> {
        self.children("/brokers/topics")
    }

    /// A topic's assignment, `None` if there is no such topic.
    ///
    /// # Errors
    /// ZooKeeper failures; a malformed znode (naming path and field).
    pub fn topic(&self, topic: &str) -> Result<Option<TopicAssignment>, Error> {
        let path = format!("/brokers/topics/{topic}");
        let Some(data) = self.get(&path)? else {
            return Ok(None);
        };
        parse_topic(&path, &data).map(Some)
    }

    /// A partition's state, `None` if not written.
    ///
    /// # Errors
    /// ZooKeeper failures; a malformed znode.
    pub fn partition_state(
        &self,
        topic: &str,
        partition: i32,
    ) -> Result<Option<PartitionState>, Error> {
        let path = format!("/brokers/topics/{topic}/partitions/{partition}/state");
        let Some(data) = self.get(&path)? else {
            return Ok(None);
        };
        parse_partition_state(&path, &data).map(Some)
    }

    /// `/controller`, `None` if no controller is elected.
    ///
    /// # Errors
    /// ZooKeeper failures; a malformed znode.
    pub fn controller(&self) -> Result<Option<Controller>, Error> {
        let path = "/controller";
        let Some(data) = self.get(path)? else {
            return Ok(None);
        };
        parse_controller(path, &data).map(Some)
    }

    /// `/controller_epoch` (a bare number), `None` if absent.
    ///
    /// # Errors
    /// ZooKeeper failures; not a number.
    pub fn controller_epoch(&self) -> Result<Option<i32>, Error> {
        let path = "/controller_epoch";
        let Some(data) = self.get(path)? else {
            return Ok(None);
        };
        parse_controller_epoch(path, &data).map(Some)
    }

    /// `/cluster/id`'s `id`, `None` if absent.
    ///
    /// # Errors
    /// ZooKeeper failures; a malformed znode.
    pub fn cluster_id(&self) -> Result<Option<String>, Error> {
        let path = "/cluster/id";
        let Some(data) = self.get(path)? else {
            return Ok(None);
        };
        parse_cluster_id(path, &data).map(Some)
    }

    /// Topics marked for deletion (`/admin/delete_topics/<t>`).
    ///
    /// # Errors
    /// ZooKeeper failures.
    pub fn delete_topics(&self) -> Result<Vec<String>, Error> {
        self.children("/admin/delete_topics")
    }

    /// The pending reassignment (`/admin/reassign_partitions`), empty if none.
    ///
    /// # Errors
    /// ZooKeeper failures; a malformed znode.
    pub fn reassign_partitions(&self) -> Result<Vec<AdminPartition>, Error> {
        let path = "/admin/reassign_partitions";
        match self.get(path)? {
            Some(d) => parse_admin_partitions(path, &d, true),
            None => Ok(Vec::new()),
        }
    }

    /// The pending preferred-replica election, empty if none.
    ///
    /// # Errors
    /// ZooKeeper failures; a malformed znode.
    pub fn preferred_replica_election(&self) -> Result<Vec<AdminPartition>, Error> {
        let path = "/admin/preferred_replica_election";
        match self.get(path)? {
            Some(d) => parse_admin_partitions(path, &d, false),
            None => Ok(Vec::new()),
        }
    }

    /// `/isr_change_notification/*`: each notification's partitions.
    ///
    /// # Errors
    /// ZooKeeper failures; a malformed znode.
    pub fn isr_change_notifications(&self) -> Result<Vec<Notification>, Error> {
        let mut out = Vec::new();
        for name in self.children("/isr_change_notification")? {
            let path = format!("/isr_change_notification/{name}");
            if let Some(d) = self.get(&path)? {
                out.push(Notification {
                    partitions: parse_admin_partitions(&path, &d, false)?,
                    name,
                    entity_path: String::new(),
                });
            }
        }
        Ok(out)
    }

    /// A topic's configuration overrides (`/config/topics/<t>`), empty if none.
    ///
    /// # Errors
    /// ZooKeeper failures; a malformed znode.
    pub fn topic_config(&self, topic: &str) -> Result<BTreeMap<String, String>, Error> {
        let path = format!("/config/topics/{topic}");
        let Some(d) = self.get(&path)? else {
            return Ok(BTreeMap::new());
        };
        parse_topic_config(&path, &d)
    }

    /// `/config/changes/*`: each notification's entity path (version 2,
    /// `{"version":2,"entity_path":"topics/t"}`; version 1 gives
    /// `entity_type/entity_name`).
    ///
    /// # Errors
    /// ZooKeeper failures; a malformed znode.
    pub fn config_changes(&self) -> Result<Vec<Notification>, Error> {
        let mut out = Vec::new();
        for name in self.children("/config/changes")? {
            let path = format!("/config/changes/{name}");
            let Some(d) = self.get(&path)? else { continue };
            out.push(Notification {
                entity_path: parse_config_change(&path, &d)?,
                name,
                partitions: Vec::new(),
            });
        }
        Ok(out)
    }
}

impl Drop for ZkClient {
    fn drop(&mut self) {
        let _ = self.zk.close();
    }
}
