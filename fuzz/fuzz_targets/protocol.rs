//! Every request and response decoder of every API at every version (the 51
//! APIs, LeaderAndIsr and UpdateMetadata included), plus the frame headers.
//!
//! Input: byte 0 picks the API (index into the list below) and, in its low
//! bit, request or response; byte 1 picks the version within the API's range;
//! the rest is the body. A body that decodes must re-encode, and what it
//! re-encodes to must decode and re-encode to the same bytes.
#![no_main]

use gregor::protocol::*;
use gregor::protocol::{Message, Request, RequestHeader, ResponseHeader};
use gregor::wire::Reader;
use libfuzzer_sys::fuzz_target;

fn check<M: Message>(version_byte: u8, body: &[u8]) {
    let span = (M::MAX_VERSION - M::MIN_VERSION + 1) as u16;
    let version = M::MIN_VERSION + (u16::from(version_byte) % span) as i16;
    let mut r = Reader::new(body);
    let Ok(m) = M::decode(&mut r, version) else {
        return;
    };
    let Ok(first) = m.to_bytes(version) else {
        return;
    };
    let again = M::from_bytes(&first, version)
        .unwrap_or_else(|e| panic!("re-encoded v{version} body does not decode: {e}"));
    let second = again
        .to_bytes(version)
        .expect("re-encode of a re-decoded body");
    assert_eq!(first, second, "v{version} re-encoding is not stable");
}

fn pair<R: Request>(request: bool, version_byte: u8, body: &[u8]) {
    if request {
        check::<R>(version_byte, body);
    } else {
        check::<R::Response>(version_byte, body);
    }
}

macro_rules! apis {
    ($($m:ident :: $t:ident),* $(,)?) => {
        const APIS: &[fn(bool, u8, &[u8])] = &[$(pair::<$m::$t>),*];
    };
}

apis!(
    add_offsets_to_txn::AddOffsetsToTxnRequest,
    add_partitions_to_txn::AddPartitionsToTxnRequest,
    alter_client_quotas::AlterClientQuotasRequest,
    alter_configs::AlterConfigsRequest,
    alter_partition_reassignments::AlterPartitionReassignmentsRequest,
    alter_user_scram_credentials::AlterUserScramCredentialsRequest,
    api_versions::ApiVersionsRequest,
    consumer_group_describe::ConsumerGroupDescribeRequest,
    consumer_group_heartbeat::ConsumerGroupHeartbeatRequest,
    create_acls::CreateAclsRequest,
    create_partitions::CreatePartitionsRequest,
    create_topics::CreateTopicsRequest,
    delete_acls::DeleteAclsRequest,
    delete_groups::DeleteGroupsRequest,
    delete_records::DeleteRecordsRequest,
    delete_topics::DeleteTopicsRequest,
    describe_acls::DescribeAclsRequest,
    describe_client_quotas::DescribeClientQuotasRequest,
    describe_cluster::DescribeClusterRequest,
    describe_configs::DescribeConfigsRequest,
    describe_groups::DescribeGroupsRequest,
    describe_log_dirs::DescribeLogDirsRequest,
    describe_producers::DescribeProducersRequest,
    describe_topic_partitions::DescribeTopicPartitionsRequest,
    describe_transactions::DescribeTransactionsRequest,
    describe_user_scram_credentials::DescribeUserScramCredentialsRequest,
    elect_leaders::ElectLeadersRequest,
    end_txn::EndTxnRequest,
    fetch::FetchRequest,
    find_coordinator::FindCoordinatorRequest,
    heartbeat::HeartbeatRequest,
    incremental_alter_configs::IncrementalAlterConfigsRequest,
    init_producer_id::InitProducerIdRequest,
    join_group::JoinGroupRequest,
    leader_and_isr::LeaderAndIsrRequest,
    leave_group::LeaveGroupRequest,
    list_groups::ListGroupsRequest,
    list_offsets::ListOffsetsRequest,
    list_partition_reassignments::ListPartitionReassignmentsRequest,
    list_transactions::ListTransactionsRequest,
    metadata::MetadataRequest,
    offset_commit::OffsetCommitRequest,
    offset_delete::OffsetDeleteRequest,
    offset_fetch::OffsetFetchRequest,
    offset_for_leader_epoch::OffsetForLeaderEpochRequest,
    produce::ProduceRequest,
    sasl_authenticate::SaslAuthenticateRequest,
    sasl_handshake::SaslHandshakeRequest,
    sync_group::SyncGroupRequest,
    txn_offset_commit::TxnOffsetCommitRequest,
    update_metadata::UpdateMetadataRequest,
);

fuzz_target!(|data: &[u8]| {
    let [sel, version, body @ ..] = data else {
        return;
    };
    let idx = usize::from(sel >> 1);
    if idx < APIS.len() {
        APIS[idx](sel & 1 == 1, *version, body);
    } else {
        // The headers: request v0–2, response v0–1.
        let mut r = Reader::new(body);
        if sel & 1 == 1 {
            let _ = RequestHeader::decode(&mut r, i16::from(*version % 3));
        } else {
            let _ = ResponseHeader::decode(&mut r, i16::from(*version % 2));
        }
    }
});
