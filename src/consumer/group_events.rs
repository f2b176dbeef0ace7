//! What the group coordinator thread hands to the application's `poll`:
//! the rebalances to serve and the results of commits. A leaf of the
//! consumer, so the shared state ([`super::state`]) can queue these events
//! without depending on the coordinator thread ([`super::group`]).

use super::topic_partition::TopicPartitionOffset;
use crate::error::Result;

/// A rebalance, handed to the rebalance callback inside `poll`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RebalanceEvent {
    /// Partitions given to this member (with the eager protocol: the whole
    /// new assignment; cooperative: the partitions added).
    Assigned(Vec<TopicPartitionOffset>),
    /// Partitions taken away in an orderly rebalance (offsets were
    /// committed first with `enable.auto.commit`).
    Revoked(Vec<TopicPartitionOffset>),
    /// Partitions lost without a rebalance (session expired, fenced, poll
    /// interval exceeded): others may already consume them; nothing is
    /// committed for them.
    Lost(Vec<TopicPartitionOffset>),
}

impl RebalanceEvent {
    /// The partitions of the event (offset `offset::INVALID`).
    pub fn partitions(&self) -> &[TopicPartitionOffset] {
        match self {
            RebalanceEvent::Assigned(p) | RebalanceEvent::Revoked(p) | RebalanceEvent::Lost(p) => p,
        }
    }

    /// The C API's number: 1 assigned, 2 revoked, 3 lost.
    pub fn code(&self) -> i32 {
        match self {
            RebalanceEvent::Assigned(_) => 1,
            RebalanceEvent::Revoked(_) => 2,
            RebalanceEvent::Lost(_) => 3,
        }
    }
}

/// What the coordinator thread hands to `poll`.
pub(crate) enum GroupEvent {
    /// A rebalance to serve; `id` is acknowledged in `Group::handled`.
    Rebalance {
        id: u64,
        event: RebalanceEvent,
        cooperative: bool,
    },
    /// The result of an async or automatic commit.
    Commit {
        result: Result<()>,
        offsets: Vec<TopicPartitionOffset>,
    },
}
