//! The cluster: describe it (DescribeCluster, KIP-700, or Metadata on older
//! brokers), its brokers' log directories (DescribeLogDirs, KIP-113),
//! leader elections (ElectLeaders, KIP-183/KIP-460: preferred or unclean)
//! and partition reassignments (Alter/ListPartitionReassignments, KIP-455;
//! KIP-4's "reassign partition" branch of AlterTopic).

use std::collections::BTreeMap;

use super::types::{authorized_operations, AclOperation, ElectionType};
use super::{
    call, check, collapse, entity_error, last_wins, missing, send, AdminClient, AdminOptions,
    PartitionResult, TopicPartition,
};
use crate::cluster::BrokerInfo;
use crate::error::{local, Error, Result};
use crate::protocol::alter_partition_reassignments as apr;
use crate::protocol::describe_cluster as dcl;
use crate::protocol::describe_log_dirs as dld;
use crate::protocol::elect_leaders as el;
use crate::protocol::list_partition_reassignments as lpr;
use crate::protocol::metadata as md;
use crate::protocol::KafkaCode;

/// The cluster as a broker describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterDescription {
    /// The cluster ID (`None` from brokers before Kafka 0.10.1).
    pub cluster_id: Option<String>,
    /// The controller's broker id (-1 if not known).
    pub controller_id: i32,
    /// The brokers, by id, with their racks.
    pub brokers: Vec<BrokerInfo>,
    /// The client's authorized operations on the cluster, when asked.
    pub authorized_operations: Option<Vec<AclOperation>>,
}

impl ClusterDescription {
    /// The controller, if it is among the brokers.
    pub fn controller(&self) -> Option<&BrokerInfo> {
        self.brokers.iter().find(|b| b.id == self.controller_id)
    }
}

/// One partition replica in a log directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplicaInfo {
    /// The partition.
    pub partition: TopicPartition,
    /// Size of its log segments, in bytes.
    pub size: i64,
    /// How far its log end offset is behind the high watermark (or, for a
    /// future replica, behind the current one).
    pub offset_lag: i64,
    /// True for a future replica being moved here (AlterReplicaLogDirs).
    pub is_future: bool,
}

/// One log directory of a broker.
#[derive(Debug, Clone)]
pub struct LogDirDescription {
    /// The absolute path.
    pub path: String,
    /// The directory's error (e.g. `KAFKA_STORAGE_ERROR` for an offline disk).
    pub error: Option<Error>,
    /// The replicas in it.
    pub replicas: Vec<ReplicaInfo>,
    /// Size of the volume (DescribeLogDirs v4+).
    pub total_bytes: Option<i64>,
    /// Usable bytes on the volume (DescribeLogDirs v4+).
    pub usable_bytes: Option<i64>,
}

/// One broker's log directories.
#[derive(Debug, Clone)]
pub struct BrokerLogDirs {
    /// The broker.
    pub broker_id: i32,
    /// Its directories, or the error asking it.
    pub result: Result<Vec<LogDirDescription>>,
}

/// A partition reassignment in progress.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionReassignment {
    /// The partition.
    pub partition: TopicPartition,
    /// The current replica set.
    pub replicas: Vec<i32>,
    /// Replicas being added.
    pub adding_replicas: Vec<i32>,
    /// Replicas being removed.
    pub removing_replicas: Vec<i32>,
}

/// Groups partitions by topic, keeping first-seen topic order.
fn by_topic(parts: &[TopicPartition]) -> Vec<(String, Vec<i32>)> {
    let mut out: Vec<(String, Vec<i32>)> = Vec::new();
    for tp in parts {
        match out.iter_mut().find(|(t, _)| *t == tp.topic) {
            Some((_, ps)) => ps.push(tp.partition),
            None => out.push((tp.topic.clone(), vec![tp.partition])),
        }
    }
    out
}

impl AdminClient {
    /// Describes the cluster: its ID, controller and brokers with racks
    /// (DescribeCluster; Metadata on brokers without it, as librdkafka).
    ///
    /// # Errors
    /// The broker's error, `_UNSUPPORTED_FEATURE` for authorized operations
    /// on a broker that cannot return them, no broker reachable.
    pub fn describe_cluster(
        &self,
        include_authorized_operations: bool,
        opts: &AdminOptions,
    ) -> Result<ClusterDescription> {
        let c = self.start(opts);
        self.on_any(&c, |conn| {
            let apis = conn.apis(c.deadline)?;
            if apis.pick_for::<dcl::DescribeClusterRequest>().is_some() {
                let (r, _) = call(conn, c.deadline, |_| {
                    let req = dcl::DescribeClusterRequest {
                        include_cluster_authorized_operations: include_authorized_operations,
                        ..Default::default()
                    };
                    Ok(req)
                })?;
                check(r.error_code, r.error_message.as_deref(), "describe cluster")?;
                let mut brokers: Vec<BrokerInfo> = r
                    .brokers
                    .into_iter()
                    .map(|b| BrokerInfo {
                        id: b.broker_id,
                        host: b.host,
                        port: b.port,
                        rack: b.rack,
                    })
                    .collect();
                brokers.sort_by_key(|b| b.id);
                return Ok(ClusterDescription {
                    cluster_id: Some(r.cluster_id),
                    controller_id: r.controller_id,
                    brokers,
                    authorized_operations: authorized_operations(r.cluster_authorized_operations),
                });
            }
            let (r, _) = call(conn, c.deadline, |v| {
                if include_authorized_operations && !(8..=10).contains(&v) {
                    return Err(super::unsupported(format!(
                        "{}: cluster authorized operations need DescribeCluster or \
                         Metadata v8-10 (the broker speaks Metadata v{v})",
                        conn.name()
                    )));
                }
                let req = md::MetadataRequest {
                    topics: Some(Vec::new()),
                    allow_auto_topic_creation: v < 4,
                    include_cluster_authorized_operations: include_authorized_operations,
                    ..Default::default()
                };
                Ok(req)
            })?;
            // Metadata v13's top-level error (KIP-1102)
            check(r.error_code, None, "Metadata")?;
            let mut brokers: Vec<BrokerInfo> = r
                .brokers
                .into_iter()
                .map(|b| BrokerInfo {
                    id: b.node_id,
                    host: b.host,
                    port: b.port,
                    rack: b.rack,
                })
                .collect();
            brokers.sort_by_key(|b| b.id);
            Ok(ClusterDescription {
                cluster_id: r.cluster_id,
                controller_id: r.controller_id,
                brokers,
                authorized_operations: authorized_operations(r.cluster_authorized_operations),
            })
        })
    }

    /// Describes the log directories of `brokers` (all brokers when `None`),
    /// asking each broker in parallel; one result per broker, in order.
    ///
    /// # Errors
    /// A local error when no broker could be asked (none reachable, none
    /// speaks DescribeLogDirs); broker errors are per broker.
    pub fn describe_log_dirs(
        &self,
        brokers: Option<&[i32]>,
        opts: &AdminOptions,
    ) -> Result<Vec<BrokerLogDirs>> {
        let c = self.start(opts);
        let ids = match brokers {
            Some(b) => last_wins(b, |id| *id),
            None => self.broker_ids(&c)?,
        };
        let sent: Vec<_> = ids
            .iter()
            .map(|&id| {
                self.broker(&c, id).and_then(|conn| {
                    send(&conn, c.deadline, |_| {
                        let req = dld::DescribeLogDirsRequest {
                            topics: None,
                            ..Default::default()
                        };
                        Ok(req)
                    })
                })
            })
            .collect();
        let results: Vec<Result<Vec<LogDirDescription>>> = sent
            .into_iter()
            .zip(&ids)
            .map(|(s, id)| {
                let (resp, v) = s?.wait(c.deadline)?;
                if v >= 3 {
                    check(resp.error_code, None, format!("log dirs of broker {id}"))?;
                }
                Ok(resp
                    .results
                    .into_iter()
                    .map(|d| LogDirDescription {
                        error: check(d.error_code, None, format!("log dir {}", d.log_dir)).err(),
                        replicas: d
                            .topics
                            .into_iter()
                            .flat_map(|t| {
                                let name = t.name;
                                t.partitions.into_iter().map(move |p| ReplicaInfo {
                                    partition: TopicPartition::new(name.clone(), p.partition_index),
                                    size: p.partition_size,
                                    offset_lag: p.offset_lag,
                                    is_future: p.is_future_key,
                                })
                            })
                            .collect(),
                        total_bytes: (v >= 4 && d.total_bytes >= 0).then_some(d.total_bytes),
                        usable_bytes: (v >= 4 && d.usable_bytes >= 0).then_some(d.usable_bytes),
                        path: d.log_dir,
                    })
                    .collect())
            })
            .collect();
        Ok(ids
            .into_iter()
            .zip(collapse(results)?)
            .map(|(broker_id, result)| BrokerLogDirs { broker_id, result })
            .collect())
    }

    /// Elects leaders (ElectLeaders, to the controller): the preferred
    /// replica, or (v1+) an unclean election. `None` elects for every
    /// partition that needs it; the results list what the controller did.
    /// Honours `opts.operation_timeout`.
    ///
    /// # Errors
    /// The controller's top-level error (e.g. `CLUSTER_AUTHORIZATION_FAILED`),
    /// `_UNSUPPORTED_FEATURE` (no ElectLeaders, or UNCLEAN below v1), no
    /// controller reachable.
    pub fn elect_leaders(
        &self,
        election_type: ElectionType,
        partitions: Option<&[TopicPartition]>,
        opts: &AdminOptions,
    ) -> Result<Vec<PartitionResult<()>>> {
        let c = self.start_op(opts);
        let partitions = partitions.map(|p| last_wins(p, Clone::clone));
        let key = [partitions];
        let mut r = self.to_controller(&c, &key, |conn, keys| {
            let (resp, v) = call(conn, c.deadline, |_| {
                let req = el::ElectLeadersRequest {
                    election_type: election_type.0,
                    timeout_ms: c.op_timeout_ms,
                    topic_partitions: keys[0].as_ref().map(|ps| {
                        by_topic(ps)
                            .into_iter()
                            .map(|(t, p)| el::TopicPartitions {
                                topic: t,
                                partitions: p,
                                ..Default::default()
                            })
                            .collect()
                    }),
                    ..Default::default()
                };
                Ok(req)
            })?;
            if v >= 1 && resp.error_code != 0 {
                return Ok(vec![Err(entity_error(
                    resp.error_code,
                    None,
                    "elect leaders",
                ))]);
            }
            let mut got: BTreeMap<TopicPartition, Result<()>> = BTreeMap::new();
            for t in resp.replica_election_results {
                for p in t.partition_result {
                    let tp = TopicPartition::new(t.topic.clone(), p.partition_id);
                    let r = check(p.error_code, p.error_message.as_deref(), &tp);
                    got.insert(tp, r);
                }
            }
            let results = match &keys[0] {
                Some(asked) => asked
                    .iter()
                    .map(|tp| PartitionResult {
                        result: got
                            .remove(tp)
                            .unwrap_or_else(|| Err(missing(tp, "ElectLeaders"))),
                        partition: tp.clone(),
                    })
                    .collect(),
                None => got
                    .into_iter()
                    .map(|(partition, result)| PartitionResult { partition, result })
                    .collect(),
            };
            Ok(vec![Ok(results)])
        })?;
        r.pop()
            .unwrap_or_else(|| Err(Error::local(local::FAIL, "no election result")))
    }

    /// Starts (target replicas) or cancels (`None`) partition reassignments
    /// (AlterPartitionReassignments, to the controller); one result per
    /// partition, in order (a partition named twice: the last wins).
    /// Honours `opts.operation_timeout`.
    ///
    /// # Errors
    /// `_UNSUPPORTED_FEATURE` if the controller does not speak it; no
    /// controller reachable.
    pub fn alter_partition_reassignments(
        &self,
        reassignments: &[(TopicPartition, Option<Vec<i32>>)],
        opts: &AdminOptions,
    ) -> Result<Vec<PartitionResult<()>>> {
        let c = self.start_op(opts);
        let items = last_wins(reassignments, |r| r.0.clone());
        let results = self.to_controller(&c, &items, |conn, batch| {
            let (resp, _) = call(conn, c.deadline, |_| {
                let mut req = apr::AlterPartitionReassignmentsRequest {
                    timeout_ms: c.op_timeout_ms,
                    ..Default::default()
                };
                let mut topics: Vec<apr::ReassignableTopic> = Vec::new();
                for (tp, target) in batch {
                    let p = apr::ReassignablePartition {
                        partition_index: tp.partition,
                        replicas: target.clone(),
                        ..Default::default()
                    };
                    match topics.iter_mut().find(|t| t.name == tp.topic) {
                        Some(t) => t.partitions.push(p),
                        None => {
                            let t = apr::ReassignableTopic {
                                name: tp.topic.clone(),
                                partitions: vec![p],
                                ..Default::default()
                            };
                            topics.push(t);
                        }
                    }
                }
                req.topics = topics;
                Ok(req)
            })?;
            if resp.error_code != 0 {
                let e = entity_error(
                    resp.error_code,
                    resp.error_message.as_deref(),
                    "alter partition reassignments",
                );
                return Ok(batch.iter().map(|_| Err(e.clone())).collect());
            }
            let mut got: BTreeMap<TopicPartition, Result<()>> = BTreeMap::new();
            for t in resp.responses {
                for p in t.partitions {
                    let tp = TopicPartition::new(t.name.clone(), p.partition_index);
                    let r = check(p.error_code, p.error_message.as_deref(), &tp);
                    got.insert(tp, r);
                }
            }
            Ok(batch
                .iter()
                .map(|(tp, _)| {
                    got.remove(tp)
                        .unwrap_or_else(|| Err(missing(tp, "AlterPartitionReassignments")))
                })
                .collect())
        })?;
        Ok(items
            .into_iter()
            .zip(results)
            .map(|((partition, _), result)| PartitionResult { partition, result })
            .collect())
    }

    /// The partition reassignments in progress (ListPartitionReassignments,
    /// to the controller): for the given partitions, or all when `None`.
    ///
    /// # Errors
    /// The controller's error, `_UNSUPPORTED_FEATURE`, no controller reachable.
    pub fn list_partition_reassignments(
        &self,
        partitions: Option<&[TopicPartition]>,
        opts: &AdminOptions,
    ) -> Result<Vec<PartitionReassignment>> {
        let c = self.start_op(opts);
        let key = [partitions.map(|p| last_wins(p, Clone::clone))];
        let mut r = self.to_controller(&c, &key, |conn, keys| {
            let (resp, _) = call(conn, c.deadline, |_| {
                let req = lpr::ListPartitionReassignmentsRequest {
                    timeout_ms: c.op_timeout_ms,
                    topics: keys[0].as_ref().map(|ps| {
                        by_topic(ps)
                            .into_iter()
                            .map(|(t, p)| lpr::ListPartitionReassignmentsTopics {
                                name: t,
                                partition_indexes: p,
                                ..Default::default()
                            })
                            .collect()
                    }),
                    ..Default::default()
                };
                Ok(req)
            })?;
            if resp.error_code != 0 {
                return Ok(vec![Err(entity_error(
                    resp.error_code,
                    resp.error_message.as_deref(),
                    "list partition reassignments",
                ))]);
            }
            let mut out: Vec<PartitionReassignment> = resp
                .topics
                .into_iter()
                .flat_map(|t| {
                    let name = t.name;
                    t.partitions
                        .into_iter()
                        .map(move |p| PartitionReassignment {
                            partition: TopicPartition::new(name.clone(), p.partition_index),
                            replicas: p.replicas,
                            adding_replicas: p.adding_replicas,
                            removing_replicas: p.removing_replicas,
                        })
                })
                .collect();
            out.sort_by(|a, b| a.partition.cmp(&b.partition));
            Ok(vec![Ok(out)])
        })?;
        r.pop().unwrap_or_else(|| {
            Err(Error::kafka(
                KafkaCode::UNKNOWN_SERVER_ERROR,
                "no reassignment result",
            ))
        })
    }
}
