//! The topic-partition-offset entries every consumer call takes and
//! answers with.

use std::sync::Arc;

use super::session::Tp;
use crate::error::Error;

/// A topic-partition with an offset (absolute, or one of
/// [`offset`](crate::message::offset)'s
/// constants), as librdkafka's `rd_kafka_topic_partition_t`. Calls that
/// answer per partition set `error` on the entries that failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicPartitionOffset {
    /// Topic name.
    pub topic: String,
    /// Partition.
    pub partition: i32,
    /// Offset or logical offset (for
    /// [`Consumer::offsets_for_times`](super::Consumer::offsets_for_times): a
    /// timestamp in, an offset out).
    pub offset: i64,
    /// The leader epoch of the offset, if known (KIP-320).
    pub leader_epoch: Option<i32>,
    /// This entry's error, in answers.
    pub error: Option<Error>,
    /// Metadata committed with the offset (commits and committed offsets).
    pub metadata: Option<String>,
}

impl TopicPartitionOffset {
    /// A new entry.
    pub fn new(topic: impl Into<String>, partition: i32, offset: i64) -> Self {
        TopicPartitionOffset {
            topic: topic.into(),
            partition,
            offset,
            leader_epoch: None,
            error: None,
            metadata: None,
        }
    }

    /// The same with metadata to commit with the offset.
    pub fn with_metadata(mut self, metadata: impl Into<String>) -> Self {
        self.metadata = Some(metadata.into());
        self
    }

    /// The same with a leader epoch: a seek to it is validated against the
    /// leader's log first.
    pub fn with_leader_epoch(mut self, epoch: i32) -> Self {
        self.leader_epoch = (epoch >= 0).then_some(epoch);
        self
    }

    pub(super) fn key(&self) -> Tp {
        (Arc::from(self.topic.as_str()), self.partition)
    }

    pub(super) fn failed(mut self, e: Error) -> Self {
        self.error = Some(e);
        self
    }
}
