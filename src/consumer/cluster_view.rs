//! The consumer's view of the cluster: its metadata and cached leaders.

use std::time::Duration;

use super::Consumer;
use crate::cluster::{Cluster, Metadata};
use crate::error::Result;

impl Consumer {
    /// The private mock cluster `test.mock.num.brokers` started for this
    /// client, if any (librdkafka's `rd_kafka_handle_mock_cluster`).
    #[cfg(feature = "mock")]
    pub fn mock_cluster(&self) -> Option<&crate::mock::Cluster> {
        self.cluster().mock_cluster()
    }

    /// The client's SASL controls: credentials and OAUTHBEARER tokens at
    /// run time ([`crate::sasl`]).
    pub fn sasl(&self) -> crate::sasl::Sasl<'_> {
        crate::sasl::Sasl::new(self.cluster())
    }

    /// The consumer's view of the cluster.
    #[cfg(feature = "internals")]
    #[doc(hidden)]
    pub fn cluster(&self) -> &Cluster {
        &self.cluster
    }

    /// The consumer's view of the cluster.
    #[cfg(not(feature = "internals"))]
    pub(crate) fn cluster(&self) -> &Cluster {
        &self.cluster
    }

    /// The cluster's metadata, as librdkafka's `rd_kafka_metadata`: every
    /// topic with `None`, else the topics named (never created by asking).
    /// The answer also refreshes the consumer's metadata cache.
    ///
    /// # Errors
    /// `_ALL_BROKERS_DOWN` (with each broker's error) if no broker answered
    /// within `timeout`; `_SSL` / `_AUTHENTICATION` when all refused the
    /// connection the same way.
    pub fn metadata(&self, topics: Option<&[&str]>, timeout: Duration) -> Result<Metadata> {
        self.cluster().fetch_metadata(topics, false, timeout)
    }

    /// The partition's leader as the consumer's metadata cache has it,
    /// without a network call (`None` if unknown, stale or leaderless):
    /// the broker a fetched message most likely came from (kcat's `-J`
    /// "broker").
    pub fn cached_leader(&self, topic: &str, partition: i32) -> Option<i32> {
        self.cluster.cached_leader(topic, partition)
    }
}
