//! Topics: create (KIP-4's CreateTopics: a partition count and
//! replication factor, or an explicit replica assignment, plus configs and
//! validate-only), delete (by name, or by topic ID from DeleteTopics v6,
//! KIP-516), add partitions (KIP-4's "AlterTopic" partition increase, as
//! CreatePartitions, KIP-195) and describe (Metadata, with topic IDs and
//! authorized operations).

use std::collections::BTreeMap;

use super::configs::{created_entry, ConfigEntry};
use super::types::{authorized_operations, AclOperation};
use super::{call, check, last_wins, missing, unsupported, AdminClient, AdminOptions, Call};
use crate::error::{Error, Result};
use crate::protocol::create_partitions as cp;
use crate::protocol::create_topics as ct;
use crate::protocol::delete_topics as dt;
use crate::protocol::metadata as md;
use crate::protocol::KafkaCode;
use crate::wire::Uuid;

/// A topic to create.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewTopic {
    /// The topic name.
    pub name: String,
    /// Partition count; -1 for the broker's default (CreateTopics v4+).
    pub num_partitions: i32,
    /// Replication factor; -1 for the broker's default (CreateTopics v4+).
    pub replication_factor: i16,
    /// An explicit assignment: partition index → replica broker ids (the
    /// first is the preferred leader). When given it takes precedence over
    /// the partition count and replication factor, as KIP-4 says.
    pub replica_assignment: BTreeMap<i32, Vec<i32>>,
    /// Topic configs to set, in order.
    pub configs: Vec<(String, String)>,
}

impl NewTopic {
    /// A topic with `num_partitions` partitions of `replication_factor` replicas.
    pub fn new(name: impl Into<String>, num_partitions: i32, replication_factor: i16) -> Self {
        NewTopic {
            name: name.into(),
            num_partitions,
            replication_factor,
            replica_assignment: BTreeMap::new(),
            configs: Vec::new(),
        }
    }

    /// A topic placed by an explicit assignment (partition → replicas).
    pub fn with_assignment(
        name: impl Into<String>,
        assignment: impl IntoIterator<Item = (i32, Vec<i32>)>,
    ) -> Self {
        NewTopic {
            replica_assignment: assignment.into_iter().collect(),
            ..NewTopic::new(name, -1, -1)
        }
    }

    /// Adds a topic config.
    pub fn config(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.configs.push((name.into(), value.into()));
        self
    }

    fn to_wire(&self, version: i16) -> Result<ct::CreatableTopic> {
        if self.name.is_empty() {
            return Err(Error::invalid_arg("topic name is empty"));
        }
        let mut t = ct::CreatableTopic {
            name: self.name.clone(),
            ..Default::default()
        };
        if self.replica_assignment.is_empty() {
            if self.num_partitions == 0 || self.num_partitions < -1 {
                return Err(Error::invalid_arg(format!(
                    "topic {}: invalid partition count {}",
                    self.name, self.num_partitions
                )));
            }
            if self.replication_factor == 0 || self.replication_factor < -1 {
                return Err(Error::invalid_arg(format!(
                    "topic {}: invalid replication factor {}",
                    self.name, self.replication_factor
                )));
            }
            if version < 4 && (self.num_partitions < 0 || self.replication_factor < 0) {
                return Err(unsupported(format!(
                    "topic {}: the broker's default partition count or replication factor \
                     needs CreateTopics v4+ (the broker speaks v{version})",
                    self.name
                )));
            }
            t.num_partitions = self.num_partitions;
            t.replication_factor = self.replication_factor;
        } else {
            // the assignment takes precedence; Kafka wants -1 for both then
            t.num_partitions = -1;
            t.replication_factor = -1;
            t.assignments = self
                .replica_assignment
                .iter()
                .map(|(p, brokers)| ct::CreatableReplicaAssignment {
                    partition_index: *p,
                    broker_ids: brokers.clone(),
                    ..Default::default()
                })
                .collect();
        }
        t.configs = self
            .configs
            .iter()
            .map(|(k, v)| ct::CreatableTopicConfig {
                name: k.clone(),
                value: Some(v.clone()),
                ..Default::default()
            })
            .collect();
        Ok(t)
    }
}

/// What the broker reports about a topic it created (or would create, with
/// validate-only).
#[derive(Debug, Clone)]
pub struct CreatedTopic {
    /// The topic ID (CreateTopics v7+; zero before).
    pub topic_id: Uuid,
    /// The partition count (v5+; -1 before).
    pub num_partitions: i32,
    /// The replication factor (v5+; -1 before).
    pub replication_factor: i16,
    /// The topic's configs (v5+; empty before).
    pub configs: Vec<ConfigEntry>,
    /// Why the configs are missing, if the broker could not return them (v5+).
    pub configs_error: Option<Error>,
}

/// The result for one topic.
#[derive(Debug, Clone)]
pub struct TopicResult<T> {
    /// The topic name (`None` when deleting by an ID the cluster does not know).
    pub name: Option<String>,
    /// The topic ID, when known (deleting by ID, describing).
    pub topic_id: Uuid,
    /// Its value, or the broker's error for it.
    pub result: Result<T>,
}

/// Partitions to add to a topic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewPartitions {
    /// The topic.
    pub topic: String,
    /// The new total partition count.
    pub total_count: i32,
    /// Replicas of each new partition, in order, or `None` for the broker to place them.
    pub assignments: Option<Vec<Vec<i32>>>,
}

impl NewPartitions {
    /// Grows `topic` to `total_count` partitions placed by the broker.
    pub fn increase_to(topic: impl Into<String>, total_count: i32) -> Self {
        NewPartitions {
            topic: topic.into(),
            total_count,
            assignments: None,
        }
    }
}

/// One partition of a described topic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionDescription {
    /// The partition index.
    pub partition: i32,
    /// The leader's broker id, -1 if none.
    pub leader: i32,
    /// The leader epoch, -1 if not known.
    pub leader_epoch: i32,
    /// All replicas.
    pub replicas: Vec<i32>,
    /// The in-sync replicas.
    pub isr: Vec<i32>,
    /// The offline replicas.
    pub offline_replicas: Vec<i32>,
    /// The partition's error (e.g. `LEADER_NOT_AVAILABLE`), if any.
    pub error: Option<KafkaCode>,
}

/// A described topic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicDescription {
    /// The topic name.
    pub name: String,
    /// The topic ID (zero from brokers before Kafka 2.8).
    pub topic_id: Uuid,
    /// True for internal topics (`__consumer_offsets`, …).
    pub is_internal: bool,
    /// The partitions, by index.
    pub partitions: Vec<PartitionDescription>,
    /// The operations the client may perform on the topic, when asked (Metadata v8+).
    pub authorized_operations: Option<Vec<AclOperation>>,
}

fn describe_of(t: md::MetadataResponseTopic, name: String) -> TopicDescription {
    let mut partitions: Vec<PartitionDescription> = t
        .partitions
        .into_iter()
        .map(|p| PartitionDescription {
            partition: p.partition_index,
            leader: p.leader_id,
            leader_epoch: p.leader_epoch,
            replicas: p.replica_nodes,
            isr: p.isr_nodes,
            offline_replicas: p.offline_replicas,
            error: (p.error_code != 0).then_some(KafkaCode(p.error_code)),
        })
        .collect();
    partitions.sort_by_key(|p| p.partition);
    TopicDescription {
        name,
        topic_id: t.topic_id,
        is_internal: t.is_internal,
        partitions,
        authorized_operations: authorized_operations(t.topic_authorized_operations),
    }
}

impl AdminClient {
    /// Creates topics in one CreateTopics request to the controller; one
    /// result per topic, in order (a topic named twice: the last instruction
    /// is sent, as KIP-4 first specified). Honours `opts.validate_only` and
    /// `opts.operation_timeout`.
    ///
    /// # Errors
    /// An invalid `NewTopic` (`_INVALID_ARG`), a broker that cannot carry
    /// the request (`_UNSUPPORTED_FEATURE`), or no controller reachable.
    pub fn create_topics(
        &self,
        topics: &[NewTopic],
        opts: &AdminOptions,
    ) -> Result<Vec<TopicResult<CreatedTopic>>> {
        let c = self.start_op(opts);
        let topics = last_wins(topics, |t| t.name.clone());
        let results = self.to_controller(&c, &topics, |conn, batch| {
            let (resp, _) = call(conn, c.deadline, |v| {
                let req = ct::CreateTopicsRequest {
                    topics: batch.iter().map(|t| t.to_wire(v)).collect::<Result<_>>()?,
                    timeout_ms: c.op_timeout_ms,
                    validate_only: c.validate_only,
                    ..Default::default()
                };
                Ok(req)
            })?;
            let mut by: BTreeMap<String, ct::CreatableTopicResult> = resp
                .topics
                .into_iter()
                .map(|t| (t.name.clone(), t))
                .collect();
            Ok(batch
                .iter()
                .map(|t| {
                    let r = by
                        .remove(&t.name)
                        .ok_or_else(|| missing(format!("topic {}", t.name), "CreateTopics"))?;
                    check(
                        r.error_code,
                        r.error_message.as_deref(),
                        format!("topic {}", t.name),
                    )?;
                    Ok(CreatedTopic {
                        topic_id: r.topic_id,
                        num_partitions: r.num_partitions,
                        replication_factor: r.replication_factor,
                        configs: r
                            .configs
                            .unwrap_or_default()
                            .into_iter()
                            .map(created_entry)
                            .collect(),
                        configs_error: check(
                            r.topic_config_error_code,
                            None,
                            format!("configs of topic {}", t.name),
                        )
                        .err(),
                    })
                })
                .collect())
        })?;
        Ok(topics
            .into_iter()
            .zip(results)
            .map(|(t, result)| TopicResult {
                topic_id: result.as_ref().map_or(Uuid::ZERO, |r| r.topic_id),
                name: Some(t.name),
                result,
            })
            .collect())
    }

    /// Deletes topics by name (one DeleteTopics request to the controller);
    /// one result per distinct name, in order. Honours `opts.operation_timeout`.
    ///
    /// # Errors
    /// As [`AdminClient::create_topics`].
    pub fn delete_topics(
        &self,
        names: &[&str],
        opts: &AdminOptions,
    ) -> Result<Vec<TopicResult<()>>> {
        let c = self.start_op(opts);
        let names: Vec<String> = last_wins(names, |n| (*n).to_string())
            .into_iter()
            .map(str::to_string)
            .collect();
        if names.iter().any(String::is_empty) {
            return Err(Error::invalid_arg("topic name is empty"));
        }
        let results = self.to_controller(&c, &names, |conn, batch| {
            let (resp, _) = call(conn, c.deadline, |v| {
                let mut req = dt::DeleteTopicsRequest {
                    timeout_ms: c.op_timeout_ms,
                    ..Default::default()
                };
                if v >= 6 {
                    req.topics = batch
                        .iter()
                        .map(|n| dt::DeleteTopicState {
                            name: Some(n.clone()),
                            ..Default::default()
                        })
                        .collect();
                } else {
                    req.topic_names = batch.to_vec();
                }
                Ok(req)
            })?;
            let mut by: BTreeMap<String, dt::DeletableTopicResult> = resp
                .responses
                .into_iter()
                .filter_map(|r| Some((r.name.clone()?, r)))
                .collect();
            Ok(batch
                .iter()
                .map(|n| {
                    let r = by
                        .remove(n)
                        .ok_or_else(|| missing(format!("topic {n}"), "DeleteTopics"))?;
                    check(
                        r.error_code,
                        r.error_message.as_deref(),
                        format!("topic {n}"),
                    )?;
                    Ok(r.topic_id)
                })
                .collect())
        })?;
        Ok(names
            .into_iter()
            .zip(results)
            .map(|(n, r)| TopicResult {
                name: Some(n),
                topic_id: r.as_ref().map_or(Uuid::ZERO, |id| *id),
                result: r.map(|_| ()),
            })
            .collect())
    }

    /// Deletes topics by topic ID (DeleteTopics v6+, KIP-516); one result per
    /// distinct ID, in order, with the name when the broker gives it.
    ///
    /// # Errors
    /// `_UNSUPPORTED_FEATURE` if the controller speaks DeleteTopics < v6; as
    /// [`AdminClient::create_topics`].
    pub fn delete_topics_by_id(
        &self,
        ids: &[Uuid],
        opts: &AdminOptions,
    ) -> Result<Vec<TopicResult<()>>> {
        let c = self.start_op(opts);
        let ids = last_wins(ids, |id| *id);
        if ids.iter().any(Uuid::is_zero) {
            return Err(Error::invalid_arg("topic ID is zero"));
        }
        let results = self.to_controller(&c, &ids, |conn, batch| {
            let (resp, _) = call(conn, c.deadline, |v| {
                if v < 6 {
                    return Err(unsupported(format!(
                        "{}: deleting topics by ID needs DeleteTopics v6+ (the broker speaks v{v})",
                        conn.name()
                    )));
                }
                let req = dt::DeleteTopicsRequest {
                    timeout_ms: c.op_timeout_ms,
                    topics: batch
                        .iter()
                        .map(|id| dt::DeleteTopicState {
                            topic_id: *id,
                            ..Default::default()
                        })
                        .collect(),
                    ..Default::default()
                };
                Ok(req)
            })?;
            let mut by: BTreeMap<Uuid, dt::DeletableTopicResult> = resp
                .responses
                .into_iter()
                .map(|r| (r.topic_id, r))
                .collect();
            Ok(batch
                .iter()
                .map(|id| {
                    let what = format!("topic ID {}", id.to_kafka_string());
                    let r = by
                        .remove(id)
                        .ok_or_else(|| missing(&what, "DeleteTopics"))?;
                    check(r.error_code, r.error_message.as_deref(), &what)?;
                    Ok(r.name)
                })
                .collect())
        })?;
        Ok(ids
            .into_iter()
            .zip(results)
            .map(|(id, r)| TopicResult {
                name: r.as_ref().ok().cloned().flatten(),
                topic_id: id,
                result: r.map(|_| ()),
            })
            .collect())
    }

    /// Adds partitions to topics (CreatePartitions, to the controller): seed
    /// 004's "AlterTopic" with a larger partition count, optionally with the
    /// replicas of each new partition. Honours `opts.validate_only` and
    /// `opts.operation_timeout`. A topic named twice: the last wins.
    ///
    /// # Errors
    /// `_UNSUPPORTED_FEATURE` if the controller does not speak
    /// CreatePartitions; as [`AdminClient::create_topics`].
    pub fn create_partitions(
        &self,
        topics: &[NewPartitions],
        opts: &AdminOptions,
    ) -> Result<Vec<TopicResult<()>>> {
        let c = self.start_op(opts);
        let topics = last_wins(topics, |t| t.topic.clone());
        if let Some(t) = topics
            .iter()
            .find(|t| t.topic.is_empty() || t.total_count < 1)
        {
            return Err(Error::invalid_arg(format!(
                "topic \"{}\": invalid partition count {}",
                t.topic, t.total_count
            )));
        }
        let results = self.to_controller(&c, &topics, |conn, batch| {
            let (resp, _) = call(conn, c.deadline, |_| {
                let req = cp::CreatePartitionsRequest {
                    timeout_ms: c.op_timeout_ms,
                    validate_only: c.validate_only,
                    topics: batch
                        .iter()
                        .map(|t| cp::CreatePartitionsTopic {
                            name: t.topic.clone(),
                            count: t.total_count,
                            assignments: t.assignments.as_ref().map(|a| {
                                a.iter()
                                    .map(|b| cp::CreatePartitionsAssignment {
                                        broker_ids: b.clone(),
                                        ..Default::default()
                                    })
                                    .collect()
                            }),
                            ..Default::default()
                        })
                        .collect(),
                    ..Default::default()
                };
                Ok(req)
            })?;
            let mut by: BTreeMap<String, cp::CreatePartitionsTopicResult> = resp
                .results
                .into_iter()
                .map(|r| (r.name.clone(), r))
                .collect();
            Ok(batch
                .iter()
                .map(|t| {
                    let what = format!("topic {}", t.topic);
                    let r = by
                        .remove(&t.topic)
                        .ok_or_else(|| missing(&what, "CreatePartitions"))?;
                    check(r.error_code, r.error_message.as_deref(), &what)
                })
                .collect())
        })?;
        Ok(topics
            .into_iter()
            .zip(results)
            .map(|(t, result)| TopicResult {
                name: Some(t.topic),
                topic_id: Uuid::ZERO,
                result,
            })
            .collect())
    }

    /// Describes topics by name (a Metadata request to any broker, never
    /// auto-creating): partitions, leaders, replicas, topic IDs, and the
    /// client's authorized operations when `include_authorized_operations`
    /// (Metadata v8+).
    ///
    /// # Errors
    /// `_UNSUPPORTED_FEATURE` when authorized operations are asked of a
    /// broker below Metadata v8; no broker reachable.
    pub fn describe_topics(
        &self,
        names: &[&str],
        include_authorized_operations: bool,
        opts: &AdminOptions,
    ) -> Result<Vec<TopicResult<TopicDescription>>> {
        let c = self.start(opts);
        let names: Vec<String> = last_wins(names, |n| (*n).to_string())
            .into_iter()
            .map(str::to_string)
            .collect();
        let wanted: Vec<md::MetadataRequestTopic> = names
            .iter()
            .map(|n| md::MetadataRequestTopic {
                name: Some(n.clone()),
                ..Default::default()
            })
            .collect();
        let resp = self.metadata_for(&c, wanted, include_authorized_operations, 0)?;
        let mut by: BTreeMap<String, md::MetadataResponseTopic> = resp
            .topics
            .into_iter()
            .filter_map(|t| Some((t.name.clone()?, t)))
            .collect();
        Ok(names
            .into_iter()
            .map(|n| {
                let what = format!("topic {n}");
                let r = by.remove(&n).ok_or_else(|| missing(&what, "Metadata"));
                let result = r.and_then(|t| {
                    check(t.error_code, None, &what)?;
                    Ok(describe_of(t, n.clone()))
                });
                TopicResult {
                    topic_id: result.as_ref().map_or(Uuid::ZERO, |d| d.topic_id),
                    name: Some(n),
                    result,
                }
            })
            .collect())
    }

    /// Describes topics by topic ID (Metadata v10+, KIP-516); as
    /// [`AdminClient::describe_topics`]. An unknown ID gets `UNKNOWN_TOPIC_ID`.
    ///
    /// # Errors
    /// `_UNSUPPORTED_FEATURE` from brokers below Metadata v10.
    pub fn describe_topics_by_id(
        &self,
        ids: &[Uuid],
        include_authorized_operations: bool,
        opts: &AdminOptions,
    ) -> Result<Vec<TopicResult<TopicDescription>>> {
        let c = self.start(opts);
        let ids = last_wins(ids, |id| *id);
        let wanted: Vec<md::MetadataRequestTopic> = ids
            .iter()
            .map(|id| md::MetadataRequestTopic {
                topic_id: *id,
                name: None,
                ..Default::default()
            })
            .collect();
        let resp = self.metadata_for(&c, wanted, include_authorized_operations, 10)?;
        let mut by: BTreeMap<Uuid, md::MetadataResponseTopic> =
            resp.topics.into_iter().map(|t| (t.topic_id, t)).collect();
        Ok(ids
            .into_iter()
            .map(|id| {
                let what = format!("topic ID {}", id.to_kafka_string());
                let result = match by.remove(&id) {
                    None => Err(Error::kafka(KafkaCode::UNKNOWN_TOPIC_ID, what)),
                    Some(t) => check(t.error_code, None, &what).map(|()| {
                        let name = t.name.clone().unwrap_or_default();
                        describe_of(t, name)
                    }),
                };
                TopicResult {
                    name: result.as_ref().ok().map(|d| d.name.clone()),
                    topic_id: id,
                    result,
                }
            })
            .collect())
    }

    /// One Metadata request for `topics` (never auto-creating), at
    /// `min_version` or later.
    fn metadata_for(
        &self,
        c: &Call,
        topics: Vec<md::MetadataRequestTopic>,
        authorized_operations: bool,
        min_version: i16,
    ) -> Result<md::MetadataResponse> {
        self.on_any(c, |conn| {
            call(conn, c.deadline, |v| {
                if v < min_version {
                    return Err(unsupported(format!(
                        "{}: topic IDs need Metadata v{min_version}+ (the broker speaks v{v})",
                        conn.name()
                    )));
                }
                if authorized_operations && v < 8 {
                    return Err(unsupported(format!(
                        "{}: authorized operations need Metadata v8+ (the broker speaks v{v})",
                        conn.name()
                    )));
                }
                let req = md::MetadataRequest {
                    topics: Some(topics.clone()),
                    allow_auto_topic_creation: v < 4,
                    include_topic_authorized_operations: authorized_operations,
                    ..Default::default()
                };
                Ok(req)
            })
            .and_then(|(r, _)| {
                // Metadata v13's top-level error (KIP-1102)
                check(r.error_code, None, "Metadata").map(|()| r)
            })
        })
    }
}
