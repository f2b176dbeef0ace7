//! Legacy consumer groups: the ones Kafka's ZooKeeper-based high-level
//! consumer kept in ZooKeeper (Kafka's ZooKeeper layout: `kafka.zk.ZkData`,
//! and the Kafka wiki's "Kafka data structures in Zookeeper"):
//!
//! ```text
//! /consumers/<g>/ids/<consumer_id>          {"version":1,"subscription":{"t":1},"pattern":"white_list","timestamp":"…"}  (ephemeral)
//! /consumers/<g>/owners/<t>/<p>             "<consumer_id>-<thread>"                                                   (ephemeral)
//! /consumers/<g>/offsets/<t>/<p>            "<next offset>"                                                            (persistent)
//! ```
//!
//! Offsets migrate to Kafka's group offsets (OffsetCommit, v1+, to the
//! group coordinator) and back (OffsetFetch v1+), as Kafka's
//! `dual.commit.enabled` migration did; a dry run only reports the plan.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::cluster::Cluster;
use crate::error::{local, Error};
use crate::protocol::offset_commit::{
    OffsetCommitRequest, OffsetCommitRequestPartition, OffsetCommitRequestTopic,
};
use crate::protocol::offset_fetch::{OffsetFetchRequest, OffsetFetchRequestGroup};
use crate::protocol::KafkaCode;
use crate::registry::inspect::ZkClient;
use crate::registry::json::{self, bad, bad_node};
use crate::registry::session;

/// A member's registration, `/consumers/<g>/ids/<id>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupMember {
    /// The consumer id (the znode's name).
    pub id: String,
    /// Format version.
    pub version: i32,
    /// Topic (or pattern) → number of streams.
    pub subscription: BTreeMap<String, i32>,
    /// `static`, `white_list` or `black_list`.
    pub pattern: String,
    /// Registration time in ms, if written.
    pub timestamp: Option<i64>,
}

/// A partition's owner, `/consumers/<g>/owners/<t>/<p>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionOwner {
    /// Topic.
    pub topic: String,
    /// Partition.
    pub partition: i32,
    /// The owning consumer thread id.
    pub owner: String,
}

/// Offsets by (topic, partition).
pub type Offsets = BTreeMap<(String, i32), i64>;

fn check_name(what: &str, s: &str) -> Result<(), Error> {
    if s.is_empty() || s.contains('/') || s == "." || s == ".." {
        return Err(Error::invalid_arg(format!("bad {what} {s:?}")));
    }
    Ok(())
}

/// Parses a member registration.
///
/// # Errors
/// `_BAD_MSG` naming the path and field.
pub fn parse_member(path: &str, id: &str, data: &[u8]) -> Result<GroupMember, Error> {
    let node = json::parse(path, data)?;
    let mut subscription = BTreeMap::new();
    for (t, v) in node.object("subscription")? {
        let n = v
            .as_i64()
            .and_then(|n| i32::try_from(n).ok())
            .ok_or_else(|| {
                bad(
                    path,
                    &format!("subscription.{t}"),
                    format!("expected a stream count, got {v}"),
                )
            })?;
        subscription.insert(t, n);
    }
    Ok(GroupMember {
        id: id.to_string(),
        version: node.i32("version")?,
        subscription,
        pattern: node.str("pattern")?,
        timestamp: node.opt_int("timestamp", i64::MIN, i64::MAX)?,
    })
}

/// Parses `/consumers/<g>/offsets/<t>/<p>`: the next offset, as text.
///
/// # Errors
/// `_BAD_MSG` when it is not a number.
pub fn parse_offset(path: &str, data: &[u8]) -> Result<i64, Error> {
    let s = String::from_utf8_lossy(data);
    s.trim()
        .parse()
        .map_err(|_| bad_node(path, format!("{s:?} is not an offset")))
}

/// The JSON a member registers (Kafka's `ZookeeperConsumerConnector` form).
pub fn member_json(
    subscription: &BTreeMap<String, i32>,
    pattern: &str,
    timestamp_ms: i64,
) -> String {
    let sub: serde_json::Map<String, serde_json::Value> = subscription
        .iter()
        .map(|(t, n)| (t.clone(), serde_json::Value::from(*n)))
        .collect();
    serde_json::json!({
        "version": 1,
        "subscription": sub,
        "pattern": pattern,
        "timestamp": timestamp_ms.to_string(),
    })
    .to_string()
}

impl ZkClient {
    /// Groups under `/consumers`.
    ///
    /// # Errors
    /// ZooKeeper failures.
    pub fn groups(&self) -> Result<Vec<String>, Error> {
        self.children("/consumers")
    }

    /// A group's registered members.
    ///
    /// # Errors
    /// ZooKeeper failures; a malformed registration.
    pub fn members(&self, group: &str) -> Result<Vec<GroupMember>, Error> {
        check_name("group", group)?;
        let dir = format!("/consumers/{group}/ids");
        let mut out = Vec::new();
        for id in self.children(&dir)? {
            let path = format!("{dir}/{id}");
            if let Some(d) = self.get(&path)? {
                out.push(parse_member(&path, &id, &d)?);
            }
        }
        Ok(out)
    }

    /// A group's partition owners.
    ///
    /// # Errors
    /// ZooKeeper failures; a partition name that is not a number.
    pub fn owners(&self, group: &str) -> Result<Vec<PartitionOwner>, Error> {
        check_name("group", group)?;
        let dir = format!("/consumers/{group}/owners");
        let mut out = Vec::new();
        for topic in self.children(&dir)? {
            for p in self.children(&format!("{dir}/{topic}"))? {
                let path = format!("{dir}/{topic}/{p}");
                let partition = p
                    .parse()
                    .map_err(|_| bad_node(&path, "partition name is not a number"))?;
                if let Some(d) = self.get(&path)? {
                    out.push(PartitionOwner {
                        topic: topic.clone(),
                        partition,
                        owner: String::from_utf8_lossy(&d).trim().to_string(),
                    });
                }
            }
        }
        Ok(out)
    }

    /// A group's committed offsets in ZooKeeper (all topics, or one).
    ///
    /// # Errors
    /// ZooKeeper failures; an offset or partition that is not a number.
    pub fn offsets(&self, group: &str, topic: Option<&str>) -> Result<Offsets, Error> {
        check_name("group", group)?;
        let dir = format!("/consumers/{group}/offsets");
        let topics = match topic {
            Some(t) => vec![t.to_string()],
            None => self.children(&dir)?,
        };
        let mut out = Offsets::new();
        for t in topics {
            for p in self.children(&format!("{dir}/{t}"))? {
                let path = format!("{dir}/{t}/{p}");
                let partition: i32 = p
                    .parse()
                    .map_err(|_| bad_node(&path, "partition name is not a number"))?;
                if let Some(d) = self.get(&path)? {
                    out.insert((t.clone(), partition), parse_offset(&path, &d)?);
                }
            }
        }
        Ok(out)
    }

    /// Writes a group's offset (creating the nodes on the way).
    ///
    /// # Errors
    /// Bad names, a negative offset, ZooKeeper failures.
    pub fn set_offset(
        &self,
        group: &str,
        topic: &str,
        partition: i32,
        offset: i64,
    ) -> Result<(), Error> {
        check_name("group", group)?;
        check_name("topic", topic)?;
        if partition < 0 || offset < 0 {
            return Err(Error::invalid_arg(format!(
                "{topic} [{partition}]: bad partition or offset {offset}"
            )));
        }
        let path = format!("/consumers/{group}/offsets/{topic}/{partition}");
        session::upsert(&self.zk, self.timeout, &path, offset.to_string().as_bytes())
    }
}

/// Commits `offsets` as `group`'s Kafka offsets (OffsetCommit v1+ to the
/// group coordinator, generation -1: a group with no active members).
///
/// # Errors
/// The first partition error, coordinator and network errors; a broker
/// with only OffsetCommit v0 (ZooKeeper-stored offsets) is `_UNSUPPORTED_FEATURE`.
// Built field by field, as outside the crate (the protocol structs are non_exhaustive).
#[allow(clippy::field_reassign_with_default)]
pub(crate) fn commit_to_kafka(
    cluster: &Cluster,
    group: &str,
    offsets: &Offsets,
    timeout: Duration,
) -> Result<(), Error> {
    if offsets.is_empty() {
        return Ok(());
    }
    let deadline = Instant::now() + timeout;
    let conn = cluster.coordinator(group, 0, timeout)?;
    let version = conn.version_for::<OffsetCommitRequest>(deadline)?;
    if version < 1 {
        return Err(Error::local(
            local::UNSUPPORTED_FEATURE,
            "the broker has only OffsetCommit v0, which stores offsets in ZooKeeper",
        ));
    }
    let mut by_topic: BTreeMap<&str, Vec<OffsetCommitRequestPartition>> = BTreeMap::new();
    for ((t, p), o) in offsets {
        let mut part = OffsetCommitRequestPartition::default();
        part.partition_index = *p;
        part.committed_offset = *o;
        by_topic.entry(t).or_default().push(part);
    }
    let mut req = OffsetCommitRequest::default();
    req.group_id = group.to_string();
    req.generation_id_or_member_epoch = -1;
    req.topics = by_topic
        .into_iter()
        .map(|(t, parts)| {
            let mut rt = OffsetCommitRequestTopic::default();
            rt.name = t.to_string();
            rt.partitions = parts;
            rt
        })
        .collect();
    let resp = conn
        .send_at(&req, version, deadline)?
        .wait_until(deadline)?;
    for t in &resp.topics {
        for p in &t.partitions {
            let code = KafkaCode(p.error_code);
            if !code.is_ok() {
                return Err(Error::kafka(
                    code,
                    format!("commit {group} {} [{}]", t.name, p.partition_index),
                ));
            }
        }
    }
    Ok(())
}

/// `group`'s committed Kafka offsets (OffsetFetch v2+ for all topics, or
/// v1+ when `topics` names the partitions); partitions without an offset
/// are left out.
///
/// # Errors
/// Group and partition errors, coordinator and network errors.
// Built field by field, as outside the crate (the protocol structs are non_exhaustive).
#[allow(clippy::field_reassign_with_default)]
pub(crate) fn fetch_from_kafka(
    cluster: &Cluster,
    group: &str,
    partitions: Option<&[(String, i32)]>,
    timeout: Duration,
) -> Result<Offsets, Error> {
    use crate::protocol::offset_fetch::{OffsetFetchRequestTopic, OffsetFetchRequestTopics};
    let deadline = Instant::now() + timeout;
    let conn = cluster.coordinator(group, 0, timeout)?;
    let version = conn.version_for::<OffsetFetchRequest>(deadline)?;
    if version < 1 || (version < 2 && partitions.is_none()) {
        return Err(Error::local(
            local::UNSUPPORTED_FEATURE,
            format!("OffsetFetch v{version} cannot read Kafka-stored offsets of all topics"),
        ));
    }
    let mut grouped: BTreeMap<&str, Vec<i32>> = BTreeMap::new();
    for (t, p) in partitions.unwrap_or(&[]) {
        grouped.entry(t).or_default().push(*p);
    }
    let mut req = OffsetFetchRequest::default();
    if version >= 8 {
        let mut g = OffsetFetchRequestGroup::default();
        g.group_id = group.to_string();
        g.topics = partitions.map(|_| {
            grouped
                .iter()
                .map(|(t, ps)| {
                    let mut x = OffsetFetchRequestTopics::default();
                    x.name = (*t).to_string();
                    x.partition_indexes = ps.clone();
                    x
                })
                .collect()
        });
        req.groups = vec![g];
    } else {
        req.group_id = group.to_string();
        req.topics = partitions.map(|_| {
            grouped
                .iter()
                .map(|(t, ps)| {
                    let mut x = OffsetFetchRequestTopic::default();
                    x.name = (*t).to_string();
                    x.partition_indexes = ps.clone();
                    x
                })
                .collect()
        });
    }
    let resp = conn
        .send_at(&req, version, deadline)?
        .wait_until(deadline)?;
    let mut out = Offsets::new();
    let mut put = |t: &str, p: i32, off: i64, code: i16| -> Result<(), Error> {
        let code = KafkaCode(code);
        if !code.is_ok() {
            return Err(Error::kafka(code, format!("offsets of {group} {t} [{p}]")));
        }
        if off >= 0 {
            out.insert((t.to_string(), p), off);
        }
        Ok(())
    };
    if version >= 8 {
        for g in &resp.groups {
            if g.error_code != 0 {
                return Err(Error::kafka(
                    KafkaCode(g.error_code),
                    format!("offsets of {group}"),
                ));
            }
            for t in &g.topics {
                for p in &t.partitions {
                    put(&t.name, p.partition_index, p.committed_offset, p.error_code)?;
                }
            }
        }
    } else {
        if resp.error_code != 0 {
            return Err(Error::kafka(
                KafkaCode(resp.error_code),
                format!("offsets of {group}"),
            ));
        }
        for t in &resp.topics {
            for p in &t.partitions {
                put(&t.name, p.partition_index, p.committed_offset, p.error_code)?;
            }
        }
    }
    Ok(out)
}

/// Which way offsets move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// ZooKeeper → Kafka (OffsetCommit).
    ZkToKafka,
    /// Kafka → ZooKeeper.
    KafkaToZk,
}

/// Moves `group`'s offsets one way (all topics, or `topic` only) and returns
/// them. With `dry_run`, nothing is written: the returned offsets are what
/// would be. The Kafka side is the cluster `cfg` names (`bootstrap.servers`,
/// or `zookeeper.connect` to find its brokers), reached for this call only.
///
/// # Errors
/// Bad configuration; coordinator, network and partition errors of the
/// offset commit or fetch; as [`ZkClient::set_offset`].
pub fn migrate(
    zk: &ZkClient,
    cfg: &crate::config::Config,
    group: &str,
    topic: Option<&str>,
    direction: Direction,
    dry_run: bool,
    timeout: Duration,
) -> Result<Offsets, Error> {
    let cluster = Cluster::new(cfg)?;
    let r = migrate_with(zk, &cluster, group, topic, direction, dry_run, timeout);
    cluster.close();
    r
}

fn migrate_with(
    zk: &ZkClient,
    cluster: &Cluster,
    group: &str,
    topic: Option<&str>,
    direction: Direction,
    dry_run: bool,
    timeout: Duration,
) -> Result<Offsets, Error> {
    match direction {
        Direction::ZkToKafka => {
            let offsets = zk.offsets(group, topic)?;
            if !dry_run {
                commit_to_kafka(cluster, group, &offsets, timeout)?;
            }
            Ok(offsets)
        }
        Direction::KafkaToZk => {
            let mut offsets = fetch_from_kafka(cluster, group, None, timeout)?;
            if let Some(t) = topic {
                offsets.retain(|(x, _), _| x == t);
            }
            if !dry_run {
                for ((t, p), o) in &offsets {
                    zk.set_offset(group, t, *p, *o)?;
                }
            }
            Ok(offsets)
        }
    }
}
