//! Producers and transactions (KIP-664, for finding hanging transactions):
//! the active producers of partitions (DescribeProducers, to each leader or
//! a chosen broker), the transactions every broker coordinates
//! (ListTransactions, to all brokers) and the state of given transactional
//! IDs (DescribeTransactions, to each ID's coordinator).

use std::collections::BTreeMap;

use super::{
    call, check, collapse, entity_error, last_wins, missing, send, AdminClient, AdminOptions,
    PartitionResult, TopicPartition,
};
use crate::error::Result;
use crate::protocol::describe_producers as dp;
use crate::protocol::describe_transactions as dtx;
use crate::protocol::list_transactions as ltx;

/// One producer with state on a partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProducerState {
    /// The producer ID.
    pub producer_id: i64,
    /// The producer epoch.
    pub producer_epoch: i32,
    /// The last sequence number written, -1 if none.
    pub last_sequence: i32,
    /// When it last wrote, ms since the epoch (-1 if not known).
    pub last_timestamp: i64,
    /// The coordinator epoch of the last transaction marker, if any.
    pub coordinator_epoch: Option<i32>,
    /// The first offset of its open transaction, if one is open.
    pub current_transaction_start_offset: Option<i64>,
}

/// A transaction as ListTransactions reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransactionListing {
    /// The transactional ID.
    pub transactional_id: String,
    /// The producer ID.
    pub producer_id: i64,
    /// The state ("Ongoing", "PrepareCommit", "CompleteAbort", …).
    pub state: String,
}

/// One broker's answer to ListTransactions.
#[derive(Debug, Clone)]
pub struct BrokerTransactions {
    /// The broker.
    pub broker_id: i32,
    /// The transactions it coordinates, or the error asking it.
    pub result: Result<Vec<TransactionListing>>,
    /// State filters the broker did not know.
    pub unknown_state_filters: Vec<String>,
}

/// A transaction's state, from its coordinator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransactionDescription {
    /// The coordinator's broker id.
    pub coordinator_id: i32,
    /// The state name.
    pub state: String,
    /// The producer ID.
    pub producer_id: i64,
    /// The producer epoch.
    pub producer_epoch: i16,
    /// The transaction timeout, ms.
    pub transaction_timeout_ms: i32,
    /// When the transaction started, ms since the epoch (-1 if none is open).
    pub transaction_start_time_ms: i64,
    /// The partitions in the transaction.
    pub partitions: Vec<TopicPartition>,
}

impl AdminClient {
    /// The active producers of each partition, asked of its leader (or of
    /// `broker_id` when given, to look at a follower's state); one result
    /// per partition, in order.
    ///
    /// # Errors
    /// A local error when no partition could be sent (e.g.
    /// `_UNSUPPORTED_FEATURE` from brokers without DescribeProducers).
    pub fn describe_producers(
        &self,
        partitions: &[TopicPartition],
        broker_id: Option<i32>,
        opts: &AdminOptions,
    ) -> Result<Vec<PartitionResult<Vec<ProducerState>>>> {
        let c = self.start(opts);
        let parts = last_wins(partitions, Clone::clone);
        let results = self.to_leaders(
            &c,
            &parts,
            broker_id,
            |tps, _| {
                let mut req = dp::DescribeProducersRequest::default();
                for tp in tps {
                    match req.topics.iter_mut().find(|t| t.name == tp.topic) {
                        Some(t) => t.partition_indexes.push(tp.partition),
                        None => {
                            let t = dp::TopicRequest {
                                name: tp.topic.clone(),
                                partition_indexes: vec![tp.partition],
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
                        got.insert(TopicPartition::new(t.name.clone(), p.partition_index), p);
                    }
                }
                tps.iter()
                    .map(|tp| {
                        let p = got
                            .remove(tp)
                            .ok_or_else(|| missing(tp, "DescribeProducers"))?;
                        check(p.error_code, p.error_message.as_deref(), tp)?;
                        Ok(p.active_producers
                            .into_iter()
                            .map(|s| ProducerState {
                                producer_id: s.producer_id,
                                producer_epoch: s.producer_epoch,
                                last_sequence: s.last_sequence,
                                last_timestamp: s.last_timestamp,
                                coordinator_epoch: (s.coordinator_epoch >= 0)
                                    .then_some(s.coordinator_epoch),
                                current_transaction_start_offset: (s.current_txn_start_offset >= 0)
                                    .then_some(s.current_txn_start_offset),
                            })
                            .collect())
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

    /// The transactions every broker coordinates, matching every filter
    /// given (states, producer IDs, and from ListTransactions v1 a minimum
    /// running time in ms); one answer per broker, by broker id.
    ///
    /// # Errors
    /// A local error when no broker could be asked; `_UNSUPPORTED_FEATURE`
    /// for a duration filter below v1 is per broker.
    pub fn list_transactions(
        &self,
        states: &[&str],
        producer_ids: &[i64],
        min_duration_ms: Option<i64>,
        opts: &AdminOptions,
    ) -> Result<Vec<BrokerTransactions>> {
        let c = self.start(opts);
        let ids = self.broker_ids(&c)?;
        let sent: Vec<_> = ids
            .iter()
            .map(|&id| {
                self.broker(&c, id).and_then(|conn| {
                    send(&conn, c.deadline, |_| {
                        let req = ltx::ListTransactionsRequest {
                            state_filters: states.iter().map(|s| (*s).to_string()).collect(),
                            producer_id_filters: producer_ids.to_vec(),
                            duration_filter: min_duration_ms.unwrap_or(-1),
                            ..Default::default()
                        };
                        Ok(req)
                    })
                })
            })
            .collect();
        let mut unknown = Vec::new();
        let results: Vec<Result<Vec<TransactionListing>>> = sent
            .into_iter()
            .zip(&ids)
            .map(|(s, id)| {
                let (resp, _) = s?.wait(c.deadline)?;
                unknown.push((*id, resp.unknown_state_filters.clone()));
                check(
                    resp.error_code,
                    None,
                    format!("transactions of broker {id}"),
                )?;
                Ok(resp
                    .transaction_states
                    .into_iter()
                    .map(|t| TransactionListing {
                        transactional_id: t.transactional_id,
                        producer_id: t.producer_id,
                        state: t.transaction_state,
                    })
                    .collect())
            })
            .collect();
        Ok(ids
            .into_iter()
            .zip(collapse(results)?)
            .map(|(broker_id, result)| BrokerTransactions {
                broker_id,
                result,
                unknown_state_filters: unknown
                    .iter()
                    .find(|(b, _)| *b == broker_id)
                    .map(|(_, u)| u.clone())
                    .unwrap_or_default(),
            })
            .collect())
    }

    /// The state of each transactional ID, asked of its coordinator
    /// (FindCoordinator, key type 1); one result per distinct ID, in order.
    ///
    /// # Errors
    /// A local error when no ID could be asked; broker errors
    /// (`TRANSACTIONAL_ID_NOT_FOUND`, …) are per ID.
    pub fn describe_transactions(
        &self,
        transactional_ids: &[&str],
        opts: &AdminOptions,
    ) -> Result<Vec<(String, Result<TransactionDescription>)>> {
        let c = self.start(opts);
        let ids: Vec<String> = last_wins(transactional_ids, |t| (*t).to_string())
            .into_iter()
            .map(str::to_string)
            .collect();
        let results: Vec<Result<TransactionDescription>> = ids
            .iter()
            .map(|id| {
                let what = format!("transactional ID {id}");
                loop {
                    let (coordinator_id, conn) = self.coordinator(&c, 1, id)?;
                    let (resp, _) = call(&conn, c.deadline, |_| {
                        let req = dtx::DescribeTransactionsRequest {
                            transactional_ids: vec![id.clone()],
                            ..Default::default()
                        };
                        Ok(req)
                    })?;
                    let t = resp
                        .transaction_states
                        .into_iter()
                        .find(|t| t.transactional_id == *id)
                        .ok_or_else(|| missing(&what, "DescribeTransactions"))?;
                    if t.error_code != 0 {
                        let e = entity_error(t.error_code, None, &what);
                        let stale = matches!(
                            e.kafka_code(),
                            Some(k) if k == crate::protocol::KafkaCode::NOT_COORDINATOR
                                || k == crate::protocol::KafkaCode::COORDINATOR_NOT_AVAILABLE
                                || k == crate::protocol::KafkaCode::COORDINATOR_LOAD_IN_PROGRESS
                        );
                        if stale && c.can_retry() {
                            c.backoff();
                            continue;
                        }
                        return Err(e);
                    }
                    return Ok(TransactionDescription {
                        coordinator_id,
                        state: t.transaction_state,
                        producer_id: t.producer_id,
                        producer_epoch: t.producer_epoch,
                        transaction_timeout_ms: t.transaction_timeout_ms,
                        transaction_start_time_ms: t.transaction_start_time_ms,
                        partitions: t
                            .topics
                            .into_iter()
                            .flat_map(|tp| {
                                let topic = tp.topic;
                                tp.partitions
                                    .into_iter()
                                    .map(move |p| TopicPartition::new(topic.clone(), p))
                            })
                            .collect(),
                    });
                }
            })
            .collect();
        Ok(ids.into_iter().zip(collapse(results)?).collect())
    }
}
