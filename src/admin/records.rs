//! Records and offsets: delete records before an offset (DeleteRecords,
//! KIP-107) and list offsets by spec — earliest, latest, by timestamp, or
//! the record with the largest timestamp (ListOffsets v7+, KIP-734). Both go
//! to each partition's leader.

use std::collections::BTreeMap;

use super::{
    check, collapse, last_wins, unsupported, AdminClient, AdminOptions, PartitionResult,
    TopicPartition,
};
use crate::error::Result;
use crate::protocol::delete_records as dr;
use crate::protocol::list_offsets as lo;

/// Which offset to look up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OffsetSpec {
    /// The log start offset.
    Earliest,
    /// The log end offset (the high watermark, or the last stable offset
    /// under read_committed).
    Latest,
    /// The offset of the record with the largest timestamp (ListOffsets v7+).
    MaxTimestamp,
    /// The first offset whose timestamp is at or after this many ms since the epoch.
    Timestamp(i64),
}

impl OffsetSpec {
    /// The timestamp ListOffsets carries for this spec.
    pub fn wire(self) -> i64 {
        match self {
            OffsetSpec::Earliest => -2,
            OffsetSpec::Latest => -1,
            OffsetSpec::MaxTimestamp => -3,
            OffsetSpec::Timestamp(t) => t,
        }
    }

    /// The lowest ListOffsets version that can carry the spec.
    fn min_version(self) -> i16 {
        match self {
            OffsetSpec::MaxTimestamp => 7,
            _ => 0,
        }
    }

    /// Parses "earliest", "latest", "max-timestamp" or a timestamp in ms.
    pub fn parse(s: &str) -> Option<OffsetSpec> {
        match s.to_ascii_lowercase().replace('_', "-").as_str() {
            "earliest" | "beginning" => Some(OffsetSpec::Earliest),
            "latest" | "end" => Some(OffsetSpec::Latest),
            "max-timestamp" => Some(OffsetSpec::MaxTimestamp),
            t => t
                .parse::<i64>()
                .ok()
                .filter(|t| *t >= 0)
                .map(OffsetSpec::Timestamp),
        }
    }
}

/// A listed offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListOffsetsInfo {
    /// The offset (-1 if no record matches a timestamp).
    pub offset: i64,
    /// The timestamp of the record at the offset (-1 if not known).
    pub timestamp: i64,
    /// The leader epoch of the record (ListOffsets v4+).
    pub leader_epoch: Option<i32>,
}

impl AdminClient {
    /// Deletes the records before `offset` of each partition (-1: up to the
    /// high watermark), asking the leaders in parallel; one result per
    /// partition, in order, with its new low watermark. Honours
    /// `opts.operation_timeout`.
    ///
    /// # Errors
    /// A local error when no partition could be sent; broker errors
    /// (`OFFSET_OUT_OF_RANGE`, `POLICY_VIOLATION`, …) are per partition.
    pub fn delete_records(
        &self,
        before: &[(TopicPartition, i64)],
        opts: &AdminOptions,
    ) -> Result<Vec<PartitionResult<i64>>> {
        let c = self.start_op(opts);
        let items = last_wins(before, |b| b.0.clone());
        let offsets: BTreeMap<TopicPartition, i64> = items.iter().cloned().collect();
        let parts: Vec<TopicPartition> = items.into_iter().map(|b| b.0).collect();
        let results = self.to_leaders(
            &c,
            &parts,
            None,
            |tps, _| {
                let mut req = dr::DeleteRecordsRequest {
                    timeout_ms: c.op_timeout_ms,
                    ..Default::default()
                };
                for tp in tps {
                    let p = dr::DeleteRecordsPartition {
                        partition_index: tp.partition,
                        offset: offsets[tp],
                        ..Default::default()
                    };
                    match req.topics.iter_mut().find(|t| t.name == tp.topic) {
                        Some(t) => t.partitions.push(p),
                        None => {
                            let t = dr::DeleteRecordsTopic {
                                name: tp.topic.clone(),
                                partitions: vec![p],
                                ..Default::default()
                            };
                            req.topics.push(t);
                        }
                    }
                }
                Ok(req)
            },
            |resp, tps, _| {
                let mut got = BTreeMap::new();
                for t in resp.topics {
                    for p in t.partitions {
                        got.insert(
                            TopicPartition::new(t.name.clone(), p.partition_index),
                            (p.error_code, p.low_watermark),
                        );
                    }
                }
                tps.iter()
                    .map(|tp| match got.remove(tp) {
                        Some((code, low)) => check(code, None, tp).map(|()| low),
                        None => Err(super::missing(tp, "DeleteRecords")),
                    })
                    .collect()
            },
        );
        Ok(parts
            .into_iter()
            .zip(collapse(results)?)
            .map(|(partition, result)| PartitionResult { partition, result })
            .collect())
    }

    /// Looks up offsets by spec, asking the leaders in parallel; one result
    /// per partition, in order. `read_committed` makes "latest" the last
    /// stable offset (ListOffsets v2+).
    ///
    /// # Errors
    /// As [`AdminClient::delete_records`]. A spec the leader's version
    /// cannot carry (MAX_TIMESTAMP below v7) is `_UNSUPPORTED_FEATURE` for
    /// that partition.
    pub fn list_offsets(
        &self,
        specs: &[(TopicPartition, OffsetSpec)],
        read_committed: bool,
        opts: &AdminOptions,
    ) -> Result<Vec<PartitionResult<ListOffsetsInfo>>> {
        let c = self.start(opts);
        let items = last_wins(specs, |s| s.0.clone());
        let by: BTreeMap<TopicPartition, OffsetSpec> = items.iter().cloned().collect();
        let parts: Vec<TopicPartition> = items.into_iter().map(|s| s.0).collect();
        let results = self.to_leaders(
            &c,
            &parts,
            None,
            |tps, v| {
                let mut req = lo::ListOffsetsRequest {
                    replica_id: -1,
                    ..Default::default()
                };
                if read_committed {
                    if v < 2 {
                        return Err(unsupported(format!(
                            "read_committed offsets need ListOffsets v2+ (the broker speaks v{v})"
                        )));
                    }
                    req.isolation_level = 1;
                }
                for tp in tps {
                    let spec = by[tp];
                    if v < spec.min_version() {
                        continue; // answered as unsupported by the splitter
                    }
                    let p = lo::ListOffsetsPartition {
                        partition_index: tp.partition,
                        timestamp: spec.wire(),
                        ..Default::default()
                    };
                    match req.topics.iter_mut().find(|t| t.name == tp.topic) {
                        Some(t) => t.partitions.push(p),
                        None => {
                            let t = lo::ListOffsetsTopic {
                                name: tp.topic.clone(),
                                partitions: vec![p],
                                ..Default::default()
                            };
                            req.topics.push(t);
                        }
                    }
                }
                Ok(req)
            },
            |resp, tps, v| {
                let mut got = BTreeMap::new();
                for t in resp.topics {
                    for p in t.partitions {
                        got.insert(TopicPartition::new(t.name.clone(), p.partition_index), p);
                    }
                }
                tps.iter()
                    .map(|tp| {
                        let spec = by[tp];
                        if v < spec.min_version() {
                            return Err(unsupported(format!(
                                "{tp}: {spec:?} needs ListOffsets v{}+ (the leader speaks v{v})",
                                spec.min_version()
                            )));
                        }
                        let p = got
                            .remove(tp)
                            .ok_or_else(|| super::missing(tp, "ListOffsets"))?;
                        check(p.error_code, None, tp)?;
                        Ok(if v == 0 {
                            ListOffsetsInfo {
                                offset: p.old_style_offsets.first().copied().unwrap_or(-1),
                                timestamp: -1,
                                leader_epoch: None,
                            }
                        } else {
                            ListOffsetsInfo {
                                offset: p.offset,
                                timestamp: p.timestamp,
                                leader_epoch: (v >= 4 && p.leader_epoch >= 0)
                                    .then_some(p.leader_epoch),
                            }
                        })
                    })
                    .collect()
            },
        );
        Ok(parts
            .into_iter()
            .zip(collapse(results)?)
            .map(|(partition, result)| PartitionResult { partition, result })
            .collect())
    }
}
