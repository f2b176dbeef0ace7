//! Version negotiation: pick, per API, the highest version both the broker
//! and gregor speak (KIP-35), from the broker's ApiVersions ranges or, for
//! brokers older than 0.10.0 that cannot answer ApiVersions, from a fixed
//! table per release (librdkafka's `broker.version.fallback`).
//!
//! Also the ApiVersions retry rule of KIP-511: a broker that does not know the
//! requested ApiVersions version answers UNSUPPORTED_VERSION with a v0 body
//! holding its own supported range, and the client retries at that version.

use std::collections::BTreeMap;

use super::{KafkaCode, Message};

/// The versions of one API a broker supports (one ApiVersions entry).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ApiRange {
    /// The API key.
    pub api_key: i16,
    /// The lowest supported version.
    pub min: i16,
    /// The highest supported version.
    pub max: i16,
}

impl ApiRange {
    /// A range for `api_key`.
    ///
    /// cbindgen:ignore
    pub const fn new(api_key: i16, min: i16, max: i16) -> Self {
        ApiRange { api_key, min, max }
    }
}

/// The feature whose finalized level says which transaction protocol the
/// cluster runs (KIP-890 part 2, KIP-1022): 2 or more is transactions v2.
pub const TRANSACTION_VERSION_FEATURE: &str = "transaction.version";

/// What one broker supports, by API key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BrokerApis {
    ranges: BTreeMap<i16, (i16, i16)>,
    /// The cluster's finalized features (KIP-584), name to max version
    /// level, as ApiVersions v3+ reports them; empty before v3.
    finalized: BTreeMap<String, i16>,
    /// The epoch of `finalized`, -1 when unknown.
    finalized_epoch: i64,
}

impl BrokerApis {
    /// Builds the table from a broker's ranges (usually its ApiVersions
    /// response). If a key appears twice the last range wins.
    pub fn from_ranges(ranges: impl IntoIterator<Item = ApiRange>) -> Self {
        BrokerApis {
            ranges: ranges
                .into_iter()
                .map(|r| (r.api_key, (r.min, r.max)))
                .collect(),
            finalized: BTreeMap::new(),
            finalized_epoch: -1,
        }
    }

    /// Adds the cluster's finalized features (KIP-584: ApiVersions v3+'s
    /// `FinalizedFeatures`, valid when `FinalizedFeaturesEpoch` >= 0), each
    /// a name and its max version level.
    pub fn with_finalized_features<'a>(
        mut self,
        epoch: i64,
        features: impl IntoIterator<Item = (&'a str, i16)>,
    ) -> Self {
        if epoch >= 0 {
            self.finalized = features
                .into_iter()
                .map(|(n, v)| (n.to_string(), v))
                .collect();
            self.finalized_epoch = epoch;
        }
        self
    }

    /// The finalized max version level of `feature` (e.g.
    /// `transaction.version`), `None` when the cluster did not finalize it.
    pub fn finalized_feature(&self, feature: &str) -> Option<i16> {
        self.finalized.get(feature).copied()
    }

    /// The epoch of the finalized features, -1 when unknown.
    pub fn finalized_features_epoch(&self) -> i64 {
        self.finalized_epoch
    }

    /// Whether the cluster runs transactions v2 (KIP-890 part 2): its
    /// finalized `transaction.version` is 2 or more, as the Java client's
    /// `TransactionManager` decides it.
    pub fn transaction_v2(&self) -> bool {
        self.finalized_feature(TRANSACTION_VERSION_FEATURE)
            .is_some_and(|v| v >= 2)
    }

    /// The highest version in both the broker's range for `api_key` and
    /// `our_min..=our_max`; `None` if the broker lacks the API or the ranges
    /// do not overlap.
    pub fn pick(&self, api_key: i16, our_min: i16, our_max: i16) -> Option<i16> {
        let &(min, max) = self.ranges.get(&api_key)?;
        let (lo, hi) = (min.max(our_min), max.min(our_max));
        (lo <= hi).then_some(hi)
    }

    /// [`BrokerApis::pick`] with the version range gregor implements for `M`.
    pub fn pick_for<M: Message>(&self) -> Option<i16> {
        self.pick(M::API_KEY, M::MIN_VERSION, M::MAX_VERSION)
    }

    /// True if the broker supports any version of `api_key`.
    pub fn supports(&self, api_key: i16) -> bool {
        self.ranges.contains_key(&api_key)
    }

    /// The broker's range for `api_key`.
    pub fn range(&self, api_key: i16) -> Option<ApiRange> {
        self.ranges
            .get(&api_key)
            .map(|&(min, max)| ApiRange { api_key, min, max })
    }

    /// Every range, by API key.
    pub fn ranges(&self) -> impl Iterator<Item = ApiRange> + '_ {
        self.ranges
            .iter()
            .map(|(&api_key, &(min, max))| ApiRange { api_key, min, max })
    }

    /// The APIs a broker of `version` supports, for brokers that predate
    /// ApiVersions (librdkafka's `broker.version.fallback` with
    /// `api.version.request=false`). Accepts "0.8.0", "0.8.1", "0.8.2",
    /// "0.9.0" and their patch releases ("0.8.2.2", "0.9.0.1").
    ///
    /// Only client-facing APIs are listed, as in librdkafka; the inter-broker
    /// ones (LeaderAndIsr, StopReplica, UpdateMetadata, ControlledShutdown)
    /// are left out.
    ///
    /// # Errors
    /// For 0.10.0 and later (which answer ApiVersions, so ask them), for
    /// releases before 0.8.0 (a different protocol), and for anything that is
    /// not a version number.
    pub fn fallback(version: &str) -> Result<BrokerApis, String> {
        let parts = parse_version(version)
            .ok_or_else(|| format!("broker version {version:?} is not a version like \"0.9.0\""))?;
        let table = match parts.as_slice() {
            [0, 8, 0, ..] => FALLBACK_0_8_0,
            [0, 8, 1, ..] => FALLBACK_0_8_1,
            [0, 8, 2, ..] => FALLBACK_0_8_2,
            [0, 9] | [0, 9, 0, ..] => FALLBACK_0_9_0,
            [0, 8] | [0, 8, _, ..] | [0, 9, _, ..] => {
                return Err(format!("broker version {version:?} is not a Kafka release"))
            }
            [0, minor, ..] if *minor < 8 => {
                return Err(format!(
                    "broker version {version:?} predates the Kafka 0.8 protocol"
                ))
            }
            _ => {
                return Err(format!(
                    "broker version {version:?} supports ApiVersions (Kafka 0.10.0+): \
                     ask the broker (api.version.request=true) instead of a fallback table"
                ))
            }
        };
        Ok(BrokerApis::from_ranges(table.iter().copied()))
    }
}

/// Up to four numeric components; `None` unless every one is a number.
fn parse_version(s: &str) -> Option<Vec<u32>> {
    let parts: Vec<u32> = s
        .split('.')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    (2..=4).contains(&parts.len()).then_some(parts)
}

// API keys of the legacy tables.
const PRODUCE: i16 = 0;
const FETCH: i16 = 1;
const LIST_OFFSETS: i16 = 2;
const METADATA: i16 = 3;
const OFFSET_COMMIT: i16 = 8;
const OFFSET_FETCH: i16 = 9;
const FIND_COORDINATOR: i16 = 10;
const JOIN_GROUP: i16 = 11;
const HEARTBEAT: i16 = 12;
const LEAVE_GROUP: i16 = 13;
const SYNC_GROUP: i16 = 14;
const DESCRIBE_GROUPS: i16 = 15;
const LIST_GROUPS: i16 = 16;

/// 0.8.0: produce, fetch, offsets by time, metadata.
const FALLBACK_0_8_0: &[ApiRange] = &[
    ApiRange::new(PRODUCE, 0, 0),
    ApiRange::new(FETCH, 0, 0),
    ApiRange::new(LIST_OFFSETS, 0, 0),
    ApiRange::new(METADATA, 0, 0),
];

/// 0.8.1 adds consumer offsets stored in ZooKeeper: OffsetCommit and
/// OffsetFetch v0. (librdkafka's table lists OffsetCommit v0–1 here, but v1
/// arrived with Kafka-stored offsets in 0.8.2.)
const FALLBACK_0_8_1: &[ApiRange] = &[
    ApiRange::new(PRODUCE, 0, 0),
    ApiRange::new(FETCH, 0, 0),
    ApiRange::new(LIST_OFFSETS, 0, 0),
    ApiRange::new(METADATA, 0, 0),
    ApiRange::new(OFFSET_COMMIT, 0, 0),
    ApiRange::new(OFFSET_FETCH, 0, 0),
];

/// 0.8.2 adds offsets stored in Kafka: OffsetCommit v1, OffsetFetch v1 and
/// the consumer-metadata request (FindCoordinator v0).
const FALLBACK_0_8_2: &[ApiRange] = &[
    ApiRange::new(PRODUCE, 0, 0),
    ApiRange::new(FETCH, 0, 0),
    ApiRange::new(LIST_OFFSETS, 0, 0),
    ApiRange::new(METADATA, 0, 0),
    ApiRange::new(OFFSET_COMMIT, 0, 1),
    ApiRange::new(OFFSET_FETCH, 0, 1),
    ApiRange::new(FIND_COORDINATOR, 0, 0),
];

/// 0.9.0 adds quotas (Produce and Fetch v1 carry a throttle time),
/// OffsetCommit v2 (retention time) and broker-side group management
/// (JoinGroup, Heartbeat, LeaveGroup, SyncGroup, DescribeGroups, ListGroups v0).
const FALLBACK_0_9_0: &[ApiRange] = &[
    ApiRange::new(PRODUCE, 0, 1),
    ApiRange::new(FETCH, 0, 1),
    ApiRange::new(LIST_OFFSETS, 0, 0),
    ApiRange::new(METADATA, 0, 0),
    ApiRange::new(OFFSET_COMMIT, 0, 2),
    ApiRange::new(OFFSET_FETCH, 0, 1),
    ApiRange::new(FIND_COORDINATOR, 0, 0),
    ApiRange::new(JOIN_GROUP, 0, 0),
    ApiRange::new(HEARTBEAT, 0, 0),
    ApiRange::new(LEAVE_GROUP, 0, 0),
    ApiRange::new(SYNC_GROUP, 0, 0),
    ApiRange::new(DESCRIBE_GROUPS, 0, 0),
    ApiRange::new(LIST_GROUPS, 0, 0),
];

/// The ApiVersions version to retry with after an ApiVersions request failed
/// with `error_code`: on UNSUPPORTED_VERSION (35), the broker's own highest
/// ApiVersions version if its response carried one (KIP-511), else 0. `None`
/// for any other error (no retry at another version).
pub fn api_versions_retry(error_code: i16, broker_max: Option<i16>) -> Option<i16> {
    (KafkaCode(error_code) == KafkaCode::UNSUPPORTED_VERSION)
        .then(|| broker_max.unwrap_or(0).max(0))
}

/// The version range gregor implements for a request type.
fn range<R: super::Request>() -> ApiRange {
    ApiRange::new(R::API_KEY, R::MIN_VERSION, R::MAX_VERSION)
}

/// Every API gregor can encode and decode, with the versions it implements,
/// in API-key order (what gregor would answer to ApiVersions).
pub fn supported() -> Vec<ApiRange> {
    let mut v = vec![
        range::<super::api_versions::ApiVersionsRequest>(),
        range::<super::metadata::MetadataRequest>(),
        range::<super::produce::ProduceRequest>(),
        range::<super::fetch::FetchRequest>(),
        range::<super::list_offsets::ListOffsetsRequest>(),
        range::<super::offset_commit::OffsetCommitRequest>(),
        range::<super::offset_fetch::OffsetFetchRequest>(),
        range::<super::find_coordinator::FindCoordinatorRequest>(),
        range::<super::join_group::JoinGroupRequest>(),
        range::<super::heartbeat::HeartbeatRequest>(),
        range::<super::leave_group::LeaveGroupRequest>(),
        range::<super::sync_group::SyncGroupRequest>(),
        range::<super::describe_groups::DescribeGroupsRequest>(),
        range::<super::list_groups::ListGroupsRequest>(),
        range::<super::sasl_handshake::SaslHandshakeRequest>(),
        range::<super::sasl_authenticate::SaslAuthenticateRequest>(),
        range::<super::create_topics::CreateTopicsRequest>(),
        range::<super::delete_topics::DeleteTopicsRequest>(),
        range::<super::delete_records::DeleteRecordsRequest>(),
        range::<super::init_producer_id::InitProducerIdRequest>(),
        range::<super::offset_for_leader_epoch::OffsetForLeaderEpochRequest>(),
        range::<super::add_partitions_to_txn::AddPartitionsToTxnRequest>(),
        range::<super::add_offsets_to_txn::AddOffsetsToTxnRequest>(),
        range::<super::end_txn::EndTxnRequest>(),
        range::<super::txn_offset_commit::TxnOffsetCommitRequest>(),
        range::<super::describe_acls::DescribeAclsRequest>(),
        range::<super::create_acls::CreateAclsRequest>(),
        range::<super::delete_acls::DeleteAclsRequest>(),
        range::<super::describe_configs::DescribeConfigsRequest>(),
        range::<super::alter_configs::AlterConfigsRequest>(),
        range::<super::describe_log_dirs::DescribeLogDirsRequest>(),
        range::<super::create_partitions::CreatePartitionsRequest>(),
        range::<super::delete_groups::DeleteGroupsRequest>(),
        range::<super::elect_leaders::ElectLeadersRequest>(),
        range::<super::incremental_alter_configs::IncrementalAlterConfigsRequest>(),
        range::<super::alter_partition_reassignments::AlterPartitionReassignmentsRequest>(),
        range::<super::list_partition_reassignments::ListPartitionReassignmentsRequest>(),
        range::<super::offset_delete::OffsetDeleteRequest>(),
        range::<super::describe_client_quotas::DescribeClientQuotasRequest>(),
        range::<super::alter_client_quotas::AlterClientQuotasRequest>(),
        range::<super::describe_user_scram_credentials::DescribeUserScramCredentialsRequest>(),
        range::<super::alter_user_scram_credentials::AlterUserScramCredentialsRequest>(),
        range::<super::describe_cluster::DescribeClusterRequest>(),
        range::<super::describe_producers::DescribeProducersRequest>(),
        range::<super::describe_transactions::DescribeTransactionsRequest>(),
        range::<super::list_transactions::ListTransactionsRequest>(),
        range::<super::consumer_group_heartbeat::ConsumerGroupHeartbeatRequest>(),
        range::<super::consumer_group_describe::ConsumerGroupDescribeRequest>(),
        range::<super::get_telemetry_subscriptions::GetTelemetrySubscriptionsRequest>(),
        range::<super::push_telemetry::PushTelemetryRequest>(),
        range::<super::describe_topic_partitions::DescribeTopicPartitionsRequest>(),
        range::<super::leader_and_isr::LeaderAndIsrRequest>(),
        range::<super::update_metadata::UpdateMetadataRequest>(),
    ];
    v.sort_by_key(|r| r.api_key);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transaction_version_from_finalized_features() {
        use crate::protocol::api_versions::ApiVersionsResponse;
        // ApiVersions v3: error 0, one API, throttle 0, tagged fields:
        // FinalizedFeaturesEpoch (tag 1) = 7, FinalizedFeatures (tag 2) =
        // [transaction.version max 2 min 0]
        let mut bytes = vec![0, 0, 2, 0, 26, 0, 0, 0, 5, 0, 0, 0, 0, 0];
        bytes.extend([2, 1, 8, 0, 0, 0, 0, 0, 0, 0, 7]);
        let name = b"transaction.version";
        // one entry: compact name, max and min level, no tagged fields
        let entry_len = 1 + name.len() + 2 + 2 + 1;
        bytes.extend([2, entry_len as u8 + 1, 2, name.len() as u8 + 1]);
        bytes.extend(name);
        bytes.extend([0, 2, 0, 0, 0]);
        let resp = ApiVersionsResponse::from_bytes(&bytes, 3).unwrap();
        let on = |r: &ApiVersionsResponse| {
            BrokerApis::from_ranges([]).with_finalized_features(
                r.finalized_features_epoch,
                r.finalized_features
                    .iter()
                    .map(|f| (f.name.as_str(), f.max_version_level)),
            )
        };
        let apis = on(&resp);
        assert_eq!(apis.finalized_features_epoch(), 7);
        assert_eq!(apis.finalized_feature("transaction.version"), Some(2));
        assert!(apis.transaction_v2());
        // level 1, or an unknown epoch, or no feature: transactions v1
        let mut r1 = resp.clone();
        r1.finalized_features[0].max_version_level = 1;
        assert!(!on(&r1).transaction_v2());
        let mut unknown = resp.clone();
        unknown.finalized_features_epoch = -1;
        assert!(!on(&unknown).transaction_v2());
        assert!(!BrokerApis::from_ranges([]).transaction_v2());
    }

    fn apis(v: &str) -> Vec<(i16, i16, i16)> {
        BrokerApis::fallback(v)
            .unwrap()
            .ranges()
            .map(|r| (r.api_key, r.min, r.max))
            .collect()
    }

    #[test]
    fn pick_takes_highest_common_version() {
        let b = BrokerApis::from_ranges([
            ApiRange::new(0, 3, 9),
            ApiRange::new(1, 4, 11),
            ApiRange::new(18, 0, 3),
        ]);
        assert_eq!(b.pick(0, 0, 11), Some(9));
        assert_eq!(b.pick(0, 0, 7), Some(7));
        assert_eq!(b.pick(0, 9, 12), Some(9));
        assert_eq!(
            b.pick(1, 0, 3),
            None,
            "disjoint: we stop below the broker's minimum"
        );
        assert_eq!(
            b.pick(0, 10, 12),
            None,
            "disjoint: we start above the broker's maximum"
        );
        assert_eq!(b.pick(3, 0, 12), None, "broker lacks the API");
        assert!(b.supports(18) && !b.supports(3));
        assert_eq!(b.range(1), Some(ApiRange::new(1, 4, 11)));
        assert_eq!(b.range(2), None);
        assert_eq!(b.ranges().count(), 3);
    }

    #[test]
    fn pick_for_uses_our_message_range() {
        use crate::protocol::metadata::MetadataRequest;
        let b = BrokerApis::from_ranges([ApiRange::new(3, 0, 20)]);
        assert_eq!(
            b.pick_for::<MetadataRequest>(),
            Some(MetadataRequest::MAX_VERSION)
        );
        assert_eq!(
            BrokerApis::fallback("0.9.0")
                .unwrap()
                .pick_for::<MetadataRequest>(),
            Some(0)
        );
    }

    #[test]
    fn last_duplicate_wins() {
        let b = BrokerApis::from_ranges([ApiRange::new(0, 0, 3), ApiRange::new(0, 0, 5)]);
        assert_eq!(b.range(0), Some(ApiRange::new(0, 0, 5)));
    }

    #[test]
    fn fallback_tables_per_release() {
        assert_eq!(apis("0.8.0"), [(0, 0, 0), (1, 0, 0), (2, 0, 0), (3, 0, 0)]);
        assert_eq!(
            apis("0.8.1"),
            [
                (0, 0, 0),
                (1, 0, 0),
                (2, 0, 0),
                (3, 0, 0),
                (8, 0, 0),
                (9, 0, 0)
            ]
        );
        assert_eq!(
            apis("0.8.2"),
            [
                (0, 0, 0),
                (1, 0, 0),
                (2, 0, 0),
                (3, 0, 0),
                (8, 0, 1),
                (9, 0, 1),
                (10, 0, 0)
            ]
        );
        assert_eq!(
            apis("0.9.0"),
            [
                (0, 0, 1),
                (1, 0, 1),
                (2, 0, 0),
                (3, 0, 0),
                (8, 0, 2),
                (9, 0, 1),
                (10, 0, 0),
                (11, 0, 0),
                (12, 0, 0),
                (13, 0, 0),
                (14, 0, 0),
                (15, 0, 0),
                (16, 0, 0)
            ]
        );
        // Each release supports everything the one before it did.
        for (old, new) in [("0.8.0", "0.8.1"), ("0.8.1", "0.8.2"), ("0.8.2", "0.9.0")] {
            let new = BrokerApis::fallback(new).unwrap();
            for r in BrokerApis::fallback(old).unwrap().ranges() {
                let n = new.range(r.api_key).unwrap();
                assert!(
                    n.min <= r.min && n.max >= r.max,
                    "{old}: {r:?} not in {n:?}"
                );
            }
        }
    }

    #[test]
    fn fallback_accepts_patch_releases() {
        assert_eq!(
            BrokerApis::fallback("0.9.0.1"),
            BrokerApis::fallback("0.9.0")
        );
        assert_eq!(BrokerApis::fallback("0.9"), BrokerApis::fallback("0.9.0"));
        assert_eq!(
            BrokerApis::fallback("0.8.2.2"),
            BrokerApis::fallback("0.8.2")
        );
        assert_eq!(
            BrokerApis::fallback("0.8.1.1"),
            BrokerApis::fallback("0.8.1")
        );
        let b = BrokerApis::fallback("0.8.2.1").unwrap();
        assert_eq!(b.pick(8, 0, 9), Some(1));
        assert_eq!(b.pick(11, 0, 9), None);
        assert_eq!(BrokerApis::fallback("0.8.1").unwrap().pick(10, 0, 4), None);
        assert_eq!(
            BrokerApis::fallback("0.9.0").unwrap().pick(0, 0, 11),
            Some(1)
        );
    }

    #[test]
    fn fallback_refuses_queryable_and_unknown_versions() {
        for v in [
            "0.10.0", "0.10.0.1", "0.10.2", "1.0.0", "2.8.1", "3.9.0", "4.0",
        ] {
            let e = BrokerApis::fallback(v).unwrap_err();
            assert!(e.contains("ApiVersions"), "{v}: {e}");
        }
        for v in ["0.7.2", "0.6"] {
            assert!(
                BrokerApis::fallback(v).unwrap_err().contains("predates"),
                "{v}"
            );
        }
        for v in [
            "",
            "0",
            "abc",
            "0.9.x",
            "0.8.3",
            "0.8",
            "0.9.1",
            "1.2.3.4.5",
            "0..9",
        ] {
            assert!(BrokerApis::fallback(v).is_err(), "{v}");
        }
    }

    #[test]
    fn api_versions_retry_rule() {
        assert_eq!(api_versions_retry(35, Some(3)), Some(3));
        assert_eq!(api_versions_retry(35, Some(0)), Some(0));
        assert_eq!(api_versions_retry(35, None), Some(0));
        assert_eq!(api_versions_retry(35, Some(-1)), Some(0));
        assert_eq!(api_versions_retry(0, Some(3)), None);
        assert_eq!(api_versions_retry(-1, None), None);
        assert_eq!(api_versions_retry(42, Some(3)), None);
    }

    #[test]
    fn gregor_implements_every_api_once_and_negotiates_with_a_broker() {
        let ours = supported();
        assert_eq!(ours.len(), 53);
        let mut keys: Vec<i16> = ours.iter().map(|r| r.api_key).collect();
        keys.dedup();
        assert_eq!(keys.len(), ours.len(), "an API key appears twice");
        // the test broker's Produce and Fetch ranges (docs/TEST-SERVICES.md)
        let broker = BrokerApis::from_ranges([ApiRange::new(0, 3, 11), ApiRange::new(1, 0, 17)]);
        let produce = ours.iter().find(|r| r.api_key == 0).unwrap();
        assert_eq!(broker.pick(0, produce.min, produce.max), Some(11));
        assert_eq!(broker.pick(3, 0, 12), None);
    }
}
