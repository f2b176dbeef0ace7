//! The API keys Kafka defines, with their names: the one table below the
//! wire primitives, so [`crate::wire`]'s errors can name the API they were
//! decoding without depending on the codecs of [`crate::protocol`] (which
//! re-exports it). The keys and names are those of Kafka's protocol guide
//! ("The Messages" / "Api Keys", <https://kafka.apache.org/protocol#protocol_api_keys>)
//! as of Kafka 4.1: its message schemas name each request `<Name>Request`,
//! and a test below checks the table against the vendored schemas.

/// The one list of Kafka's APIs: every API key Kafka defines, its name
/// and, for the APIs gregor implements, the module of [`crate::protocol`]
/// and the request type that implement it. Everything else that lists APIs
/// is made from it: [`API_NAMES`] here, the fuzz target over every decoder
/// (`fuzz/fuzz_targets/protocol.rs`) and its seed writer; a test in
/// `protocol` checks every API module against it.
///
/// `kafka_apis!(callback)` expands to `callback! { KEY Name [module::Request], … }`
/// in key order; module paths are relative to `protocol`.
#[doc(hidden)]
#[macro_export]
macro_rules! kafka_apis {
    ($callback:ident) => {
        $callback! {
            0 Produce produce::ProduceRequest,
            1 Fetch fetch::FetchRequest,
            2 ListOffsets list_offsets::ListOffsetsRequest,
            3 Metadata metadata::MetadataRequest,
            4 LeaderAndIsr leader_and_isr::LeaderAndIsrRequest,
            5 StopReplica,
            6 UpdateMetadata update_metadata::UpdateMetadataRequest,
            7 ControlledShutdown,
            8 OffsetCommit offset_commit::OffsetCommitRequest,
            9 OffsetFetch offset_fetch::OffsetFetchRequest,
            10 FindCoordinator find_coordinator::FindCoordinatorRequest,
            11 JoinGroup join_group::JoinGroupRequest,
            12 Heartbeat heartbeat::HeartbeatRequest,
            13 LeaveGroup leave_group::LeaveGroupRequest,
            14 SyncGroup sync_group::SyncGroupRequest,
            15 DescribeGroups describe_groups::DescribeGroupsRequest,
            16 ListGroups list_groups::ListGroupsRequest,
            17 SaslHandshake sasl_handshake::SaslHandshakeRequest,
            18 ApiVersions api_versions::ApiVersionsRequest,
            19 CreateTopics create_topics::CreateTopicsRequest,
            20 DeleteTopics delete_topics::DeleteTopicsRequest,
            21 DeleteRecords delete_records::DeleteRecordsRequest,
            22 InitProducerId init_producer_id::InitProducerIdRequest,
            23 OffsetForLeaderEpoch offset_for_leader_epoch::OffsetForLeaderEpochRequest,
            24 AddPartitionsToTxn add_partitions_to_txn::AddPartitionsToTxnRequest,
            25 AddOffsetsToTxn add_offsets_to_txn::AddOffsetsToTxnRequest,
            26 EndTxn end_txn::EndTxnRequest,
            27 WriteTxnMarkers,
            28 TxnOffsetCommit txn_offset_commit::TxnOffsetCommitRequest,
            29 DescribeAcls describe_acls::DescribeAclsRequest,
            30 CreateAcls create_acls::CreateAclsRequest,
            31 DeleteAcls delete_acls::DeleteAclsRequest,
            32 DescribeConfigs describe_configs::DescribeConfigsRequest,
            33 AlterConfigs alter_configs::AlterConfigsRequest,
            34 AlterReplicaLogDirs,
            35 DescribeLogDirs describe_log_dirs::DescribeLogDirsRequest,
            36 SaslAuthenticate sasl_authenticate::SaslAuthenticateRequest,
            37 CreatePartitions create_partitions::CreatePartitionsRequest,
            38 CreateDelegationToken,
            39 RenewDelegationToken,
            40 ExpireDelegationToken,
            41 DescribeDelegationToken,
            42 DeleteGroups delete_groups::DeleteGroupsRequest,
            43 ElectLeaders elect_leaders::ElectLeadersRequest,
            44 IncrementalAlterConfigs incremental_alter_configs::IncrementalAlterConfigsRequest,
            45 AlterPartitionReassignments alter_partition_reassignments::AlterPartitionReassignmentsRequest,
            46 ListPartitionReassignments list_partition_reassignments::ListPartitionReassignmentsRequest,
            47 OffsetDelete offset_delete::OffsetDeleteRequest,
            48 DescribeClientQuotas describe_client_quotas::DescribeClientQuotasRequest,
            49 AlterClientQuotas alter_client_quotas::AlterClientQuotasRequest,
            50 DescribeUserScramCredentials describe_user_scram_credentials::DescribeUserScramCredentialsRequest,
            51 AlterUserScramCredentials alter_user_scram_credentials::AlterUserScramCredentialsRequest,
            52 Vote,
            53 BeginQuorumEpoch,
            54 EndQuorumEpoch,
            55 DescribeQuorum,
            56 AlterPartition,
            57 UpdateFeatures,
            58 Envelope,
            59 FetchSnapshot,
            60 DescribeCluster describe_cluster::DescribeClusterRequest,
            61 DescribeProducers describe_producers::DescribeProducersRequest,
            62 BrokerRegistration,
            63 BrokerHeartbeat,
            64 UnregisterBroker,
            65 DescribeTransactions describe_transactions::DescribeTransactionsRequest,
            66 ListTransactions list_transactions::ListTransactionsRequest,
            67 AllocateProducerIds,
            68 ConsumerGroupHeartbeat consumer_group_heartbeat::ConsumerGroupHeartbeatRequest,
            69 ConsumerGroupDescribe consumer_group_describe::ConsumerGroupDescribeRequest,
            70 ControllerRegistration,
            71 GetTelemetrySubscriptions get_telemetry_subscriptions::GetTelemetrySubscriptionsRequest,
            72 PushTelemetry push_telemetry::PushTelemetryRequest,
            73 AssignReplicasToDirs,
            74 ListConfigResources,
            75 DescribeTopicPartitions describe_topic_partitions::DescribeTopicPartitionsRequest,
            76 ShareGroupHeartbeat,
            77 ShareGroupDescribe,
            78 ShareFetch,
            79 ShareAcknowledge,
            80 AddRaftVoter,
            81 RemoveRaftVoter,
            82 UpdateRaftVoter,
            83 InitializeShareGroupState,
            84 ReadShareGroupState,
            85 WriteShareGroupState,
            86 DeleteShareGroupState,
            87 ReadShareGroupStateSummary,
            88 StreamsGroupHeartbeat,
            89 StreamsGroupDescribe,
            90 DescribeShareGroupOffsets,
            91 AlterShareGroupOffsets,
            92 DeleteShareGroupOffsets,
        }
    };
}
pub use kafka_apis;

macro_rules! api_names {
    ($($key:literal $name:ident $($module:ident :: $request:ident)?,)*) => {
        /// Every API key Kafka defines, with its name (from [`kafka_apis`]).
        pub const API_NAMES: &[(i16, &str)] = &[$(($key, stringify!($name)),)*];
    };
}
kafka_apis!(api_names);

/// The name of an API key, or "Unknown".
pub fn api_name(key: i16) -> &'static str {
    API_NAMES
        .iter()
        .find(|(k, _)| *k == key)
        .map_or("Unknown", |(_, n)| n)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each vendored request schema (`tests/kafka-schemas/*Request.json`)
    /// as (api key, name without "Request").
    fn schema_requests() -> Vec<(i16, String, String)> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kafka-schemas");
        let mut out = Vec::new();
        for entry in std::fs::read_dir(&dir).expect("tests/kafka-schemas") {
            let path = entry.expect("a directory entry").path();
            let file = path
                .file_name()
                .and_then(|f| f.to_str())
                .unwrap_or_default();
            if !file.ends_with("Request.json") {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("a readable schema");
            let json: String = text
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .collect::<Vec<_>>()
                .join("\n");
            let v: serde_json::Value =
                serde_json::from_str(&json).unwrap_or_else(|e| panic!("{file}: {e}"));
            if v["type"] != "request" {
                continue;
            }
            let Some(key) = v["apiKey"].as_i64() else {
                continue; // the request header
            };
            let name = v["name"].as_str().unwrap_or_default();
            let name = name.strip_suffix("Request").unwrap_or(name);
            out.push((key as i16, name.to_owned(), file.to_owned()));
        }
        out
    }

    #[test]
    fn the_table_has_every_api_the_schemas_name_by_their_names() {
        let schemas = schema_requests();
        assert!(schemas.len() >= 50, "{} request schemas", schemas.len());
        let wrong: Vec<String> = schemas
            .iter()
            .filter(|(key, name, _)| api_name(*key) != name)
            .map(|(key, name, file)| {
                format!(
                    "{file}: key {key} is {name}, the table says {}",
                    api_name(*key)
                )
            })
            .collect();
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn keys_are_unique_and_in_order() {
        assert!(API_NAMES.windows(2).all(|w| w[0].0 < w[1].0));
        // Kafka 4.1's keys: 0-92, less none
        assert_eq!(API_NAMES.first().map(|k| k.0), Some(0));
        assert_eq!(API_NAMES.last(), Some(&(92, "DeleteShareGroupOffsets")));
        assert_eq!(API_NAMES.len(), 93);
        assert_eq!(api_name(62), "BrokerRegistration");
        assert_eq!(api_name(74), "ListConfigResources");
        assert_eq!(api_name(93), "Unknown");
    }
}
