//! Fetch (API key 1): records from topic partitions, with fetch sessions
//! (KIP-227, v7+), topic IDs instead of names (KIP-516, v13+) and the replica
//! state of KIP-903 (v15+). Versions 0–17, flexible from 12.

use super::codec::{kafka_message, kafka_struct};
use super::Request;
use crate::wire::{Bytes, Uuid};

kafka_struct! {
    /// Asks for records from the given partitions.
    pub struct FetchRequest {
        /// The cluster ID, if known (tagged).
        cluster_id: Option<String> { versions = 12.., nullable = 12.., tag = 0, ignorable = true },
        /// The follower's broker ID, or -1 for a consumer.
        replica_id: i32 { versions = 0..=14, default = -1 },
        /// The follower's ID and epoch (tagged).
        replica_state: ReplicaState { versions = 15.., tag = 1 },
        /// How long to wait for `min_bytes`, in ms.
        max_wait_ms: i32 {},
        /// The least data to return.
        min_bytes: i32 {},
        /// The most data to return (KIP-74).
        max_bytes: i32 { versions = 3.., default = i32::MAX, ignorable = true },
        /// 0 read uncommitted, 1 read committed.
        isolation_level: i8 { versions = 4.., ignorable = true },
        /// The fetch session ID.
        session_id: i32 { versions = 7.., ignorable = true },
        /// The fetch session epoch.
        session_epoch: i32 { versions = 7.., default = -1, ignorable = true },
        /// The topics to fetch.
        topics: Vec<FetchTopic> {},
        /// Partitions to drop from an incremental fetch session.
        forgotten_topics_data: Vec<ForgottenTopic> { versions = 7.. },
        /// The consumer's rack.
        rack_id: String { versions = 11.., ignorable = true },
    }

    /// A follower's identity.
    pub struct ReplicaState {
        /// The follower's broker ID, or -1 for a consumer.
        replica_id: i32 { versions = 15.., default = -1 },
        /// The follower's broker epoch, or -1.
        replica_epoch: i64 { versions = 15.., default = -1 },
    }

    /// One topic to fetch.
    pub struct FetchTopic {
        /// The topic name.
        topic: String { versions = 0..=12, ignorable = true },
        /// The topic ID.
        topic_id: Uuid { versions = 13.., ignorable = true },
        /// The partitions to fetch.
        partitions: Vec<FetchPartition> {},
    }

    /// One partition to fetch.
    pub struct FetchPartition {
        /// The partition index.
        partition: i32 {},
        /// The leader epoch the fetcher knows.
        current_leader_epoch: i32 { versions = 9.., default = -1, ignorable = true },
        /// The offset to fetch from.
        fetch_offset: i64 {},
        /// The epoch of the last fetched record, or -1.
        last_fetched_epoch: i32 { versions = 12.., default = -1 },
        /// The follower's log start offset.
        log_start_offset: i64 { versions = 5.., default = -1, ignorable = true },
        /// The most data to return for this partition.
        partition_max_bytes: i32 {},
        /// The fetching follower's log directory ID (tagged).
        replica_directory_id: Uuid { versions = 17.., tag = 0, ignorable = true },
    }

    /// Partitions of one topic to drop from the session.
    pub struct ForgottenTopic {
        /// The topic name.
        topic: String { versions = 7..=12, ignorable = true },
        /// The topic ID.
        topic_id: Uuid { versions = 13.., ignorable = true },
        /// The partition indexes to drop.
        partitions: Vec<i32> { versions = 7.. },
    }

    /// The fetched records, per partition.
    pub struct FetchResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 { versions = 1.., ignorable = true },
        /// The top-level error code.
        error_code: i16 { versions = 7.., ignorable = true },
        /// The fetch session ID, or 0 outside a session.
        session_id: i32 { versions = 7.. },
        /// One entry per topic.
        responses: Vec<FetchableTopicResponse> {},
        /// Endpoints of the leaders named in `current_leader` (tagged).
        node_endpoints: Vec<NodeEndpoint> { versions = 16.., tag = 0 },
    }

    /// One topic's data.
    pub struct FetchableTopicResponse {
        /// The topic name.
        topic: String { versions = 0..=12, ignorable = true },
        /// The topic ID.
        topic_id: Uuid { versions = 13.., ignorable = true },
        /// One entry per partition.
        partitions: Vec<PartitionData> {},
    }

    /// One partition's data.
    pub struct PartitionData {
        /// The partition index.
        partition_index: i32 {},
        /// The error code, or 0.
        error_code: i16 {},
        /// The high watermark.
        high_watermark: i64 {},
        /// The last stable offset.
        last_stable_offset: i64 { versions = 4.., default = -1, ignorable = true },
        /// The log start offset.
        log_start_offset: i64 { versions = 5.., default = -1, ignorable = true },
        /// Where the fetcher's log diverges from the leader's (tagged).
        diverging_epoch: EpochEndOffset { versions = 12.., tag = 0 },
        /// The current leader, on a leadership error (tagged).
        current_leader: LeaderIdAndEpoch { versions = 12.., tag = 1 },
        /// The snapshot to fetch instead, below the log start (tagged).
        snapshot_id: SnapshotId { versions = 12.., tag = 2 },
        /// Aborted transactions in the returned range, or null.
        aborted_transactions: Option<Vec<AbortedTransaction>> {
            versions = 4.., nullable = 4.., default = Some(Vec::new()), ignorable = true
        },
        /// The replica to fetch from next time, or -1 (KIP-392).
        preferred_read_replica: i32 { versions = 11.., default = -1 },
        /// The record data, or null.
        records: Option<Bytes> { nullable = 0.. },
    }

    /// The end of the largest epoch the fetcher shares with the leader.
    pub struct EpochEndOffset {
        /// The epoch.
        epoch: i32 { versions = 12.., default = -1 },
        /// Its end offset.
        end_offset: i64 { versions = 12.., default = -1 },
    }

    /// A partition's current leader.
    pub struct LeaderIdAndEpoch {
        /// The leader's broker ID, or -1 if unknown.
        leader_id: i32 { versions = 12.., default = -1 },
        /// The leader's epoch, or -1.
        leader_epoch: i32 { versions = 12.., default = -1 },
    }

    /// A snapshot's end offset and epoch.
    pub struct SnapshotId {
        /// The end offset.
        end_offset: i64 { default = -1 },
        /// The epoch.
        epoch: i32 { default = -1 },
    }

    /// One aborted transaction.
    pub struct AbortedTransaction {
        /// The producer ID.
        producer_id: i64 { versions = 4.. },
        /// The transaction's first offset.
        first_offset: i64 { versions = 4.. },
    }

    /// A broker's address.
    pub struct NodeEndpoint {
        /// The broker ID.
        node_id: i32 { versions = 16.. },
        /// Its host name.
        host: String { versions = 16.. },
        /// Its port.
        port: i32 { versions = 16.. },
        /// Its rack, or null.
        rack: Option<String> { versions = 16.., nullable = 16.. },
    }
}

kafka_message!(FetchRequest, key = 1, versions = 0..=17, flexible = 12);
kafka_message!(FetchResponse, key = 1, versions = 0..=17, flexible = 12);

impl Request for FetchRequest {
    type Response = FetchResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<FetchRequest, kp::FetchRequest>();
        crate::protocol::tests::check::<FetchResponse, kp::FetchResponse>();
    }

    #[test]
    fn v4_response_bytes() {
        #[rustfmt::skip]
        let bytes = [
            0, 0, 0, 0,                 // throttle_time_ms 0
            0, 0, 0, 1,                 // responses: 1
            0, 1, b't',                 //   topic "t"
            0, 0, 0, 1,                 //   partitions: 1
            0, 0, 0, 0,                 //     partition_index 0
            0, 0,                       //     error_code 0
            0, 0, 0, 0, 0, 0, 0, 10,    //     high_watermark 10
            0, 0, 0, 0, 0, 0, 0, 8,     //     last_stable_offset 8
            0, 0, 0, 1,                 //     aborted_transactions: 1
            0, 0, 0, 0, 0, 0, 0, 5,     //       producer_id 5
            0, 0, 0, 0, 0, 0, 0, 8,     //       first_offset 8
            0, 0, 0, 3, 1, 2, 3,        //     records: 3 bytes
        ];
        let resp = FetchResponse::from_bytes(&bytes, 4).unwrap();
        let p = &resp.responses[0].partitions[0];
        assert_eq!(resp.responses[0].topic, "t");
        assert_eq!(
            (p.high_watermark, p.last_stable_offset, p.log_start_offset),
            (10, 8, -1)
        );
        let aborted = p.aborted_transactions.as_deref().unwrap();
        assert_eq!((aborted[0].producer_id, aborted[0].first_offset), (5, 8));
        assert_eq!(p.records.as_deref(), Some(&[1u8, 2, 3][..]));
        assert_eq!(resp.to_bytes(4).unwrap(), bytes);
    }

    #[test]
    fn v15_request_bytes() {
        let id = Uuid::from_u64_pair(0x0102_0304_0506_0708, 0x090a_0b0c_0d0e_0f10);
        #[rustfmt::skip]
        let bytes = [
            0, 0, 0x01, 0xf4,           // max_wait_ms 500
            0, 0, 0, 1,                 // min_bytes 1
            0, 0x10, 0, 0,              // max_bytes 1 MiB
            1,                          // isolation_level read committed
            0, 0, 0, 9,                 // session_id 9
            0, 0, 0, 2,                 // session_epoch 2
            2,                          // topics: compact 1
            1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, // topic_id
            2,                          //   partitions: compact 1
            0, 0, 0, 4,                 //     partition 4
            0, 0, 0, 3,                 //     current_leader_epoch 3
            0, 0, 0, 0, 0, 0, 0, 100,   //     fetch_offset 100
            0, 0, 0, 2,                 //     last_fetched_epoch 2
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // log_start_offset -1
            0, 0x10, 0, 0,              //     partition_max_bytes 1 MiB
            0,                          //     tagged fields: 0
            0,                          //   tagged fields: 0
            1,                          // forgotten_topics_data: compact 0
            3, b'r', b'1',              // rack_id "r1"
            1,                          // tagged fields: 1
            1, 13,                      //   tag 1 (replica_state), 13 bytes
            0, 0, 0, 7,                 //     replica_id 7
            0, 0, 0, 0, 0, 0, 0, 42,    //     replica_epoch 42
            0,                          //     tagged fields: 0
        ];
        let req = FetchRequest::from_bytes(&bytes, 15).unwrap();
        assert_eq!(req.replica_id, -1);
        assert_eq!(
            (
                req.replica_state.replica_id,
                req.replica_state.replica_epoch
            ),
            (7, 42)
        );
        assert_eq!(
            (req.session_id, req.session_epoch, req.rack_id.as_str()),
            (9, 2, "r1")
        );
        assert_eq!(req.topics[0].topic_id, id);
        assert_eq!(req.topics[0].partitions[0].fetch_offset, 100);
        assert_eq!(req.to_bytes(15).unwrap(), bytes);
        // v14 carries a plain replica_id, not the tagged replica state
        assert!(req.to_bytes(14).is_err());
    }

    #[test]
    fn topic_ids_replace_names_from_v13() {
        let req = FetchRequest {
            topics: vec![FetchTopic {
                topic: "t".into(),
                topic_id: Uuid::from_u64_pair(1, 2),
                ..Default::default()
            }],
            ..Default::default()
        };
        // Both are ignorable: each version keeps the one it carries.
        let v12 = FetchRequest::from_bytes(&req.to_bytes(12).unwrap(), 12).unwrap();
        assert_eq!(
            (v12.topics[0].topic.as_str(), v12.topics[0].topic_id),
            ("t", Uuid::ZERO)
        );
        let v13 = FetchRequest::from_bytes(&req.to_bytes(13).unwrap(), 13).unwrap();
        assert_eq!(
            (v13.topics[0].topic.as_str(), v13.topics[0].topic_id),
            ("", Uuid::from_u64_pair(1, 2))
        );
    }
}
