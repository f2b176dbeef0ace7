//! TxnOffsetCommit (API key 28): commits consumer offsets as part of a
//! transaction (KIP-98), with the group generation and member from v3
//! (KIP-447). Versions 0–4, flexible from 3.

use super::codec::{kafka_message, kafka_struct};
use super::Request;

kafka_struct! {
    /// Offsets to commit inside the producer's transaction.
    pub struct TxnOffsetCommitRequest {
        /// The transactional ID.
        transactional_id: String {},
        /// The consumer group ID.
        group_id: String {},
        /// The producer ID.
        producer_id: i64 {},
        /// The producer epoch.
        producer_epoch: i16 {},
        /// The consumer's group generation.
        generation_id: i32 { versions = 3.., default = -1 },
        /// The member ID the coordinator assigned.
        member_id: String { versions = 3.. },
        /// The static member's instance ID, or null.
        group_instance_id: Option<String> { versions = 3.., nullable = 3.. },
        /// The topics to commit offsets for.
        topics: Vec<TxnOffsetCommitRequestTopic> {},
    }

    /// One topic's offsets.
    pub struct TxnOffsetCommitRequestTopic {
        /// The topic name.
        name: String {},
        /// The partitions to commit.
        partitions: Vec<TxnOffsetCommitRequestPartition> {},
    }

    /// One partition's offset.
    pub struct TxnOffsetCommitRequestPartition {
        /// The partition index.
        partition_index: i32 {},
        /// The offset to commit.
        committed_offset: i64 {},
        /// The leader epoch of the last consumed record.
        committed_leader_epoch: i32 { versions = 2.., default = -1, ignorable = true },
        /// Metadata to store with the offset, or null.
        committed_metadata: Option<String> { nullable = 0.. },
    }

    /// Per-partition results of the commit.
    pub struct TxnOffsetCommitResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 {},
        /// Results per topic.
        topics: Vec<TxnOffsetCommitResponseTopic> {},
    }

    /// One topic's results.
    pub struct TxnOffsetCommitResponseTopic {
        /// The topic name.
        name: String {},
        /// Results per partition.
        partitions: Vec<TxnOffsetCommitResponsePartition> {},
    }

    /// One partition's result.
    pub struct TxnOffsetCommitResponsePartition {
        /// The partition index.
        partition_index: i32 {},
        /// The error code, 0 if there was no error.
        error_code: i16 {},
    }
}

kafka_message!(
    TxnOffsetCommitRequest,
    key = 28,
    versions = 0..=4,
    flexible = 3
);
kafka_message!(
    TxnOffsetCommitResponse,
    key = 28,
    versions = 0..=4,
    flexible = 3
);

impl Request for TxnOffsetCommitRequest {
    type Response = TxnOffsetCommitResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    fn partition() -> TxnOffsetCommitRequestPartition {
        TxnOffsetCommitRequestPartition {
            partition_index: 1,
            committed_offset: 100,
            committed_leader_epoch: 5,
            committed_metadata: None,
            ..Default::default()
        }
    }

    #[test]
    fn v2_request_bytes() {
        let bytes: &[u8] = &[
            0, 2, b't', b'x', // transactional_id "tx"
            0, 1, b'g', // group_id "g"
            0, 0, 0, 0, 0, 0, 0, 9, // producer_id 9
            0, 1, // producer_epoch 1
            0, 0, 0, 1, // topics: 1 entry
            0, 1, b't', // name "t"
            0, 0, 0, 1, // partitions: 1 entry
            0, 0, 0, 1, // partition_index 1
            0, 0, 0, 0, 0, 0, 0, 100, // committed_offset 100
            0, 0, 0, 5, // committed_leader_epoch 5
            0xff, 0xff, // committed_metadata: null
        ];
        let req = TxnOffsetCommitRequest {
            transactional_id: "tx".into(),
            group_id: "g".into(),
            producer_id: 9,
            producer_epoch: 1,
            topics: vec![TxnOffsetCommitRequestTopic {
                name: "t".into(),
                partitions: vec![partition()],
                ..Default::default()
            }],
            ..Default::default()
        };
        assert_eq!(TxnOffsetCommitRequest::from_bytes(bytes, 2).unwrap(), req);
        assert_eq!(req.to_bytes(2).unwrap(), bytes);
        // a generation needs v3
        let fenced = TxnOffsetCommitRequest {
            generation_id: 4,
            ..req
        };
        assert!(fenced.to_bytes(2).is_err());
    }

    #[test]
    fn v3_request_bytes() {
        let bytes: &[u8] = &[
            3, b't', b'x', // transactional_id: compact "tx"
            2, b'g', // group_id: compact "g"
            0, 0, 0, 0, 0, 0, 0, 9, // producer_id 9
            0, 1, // producer_epoch 1
            0, 0, 0, 4, // generation_id 4
            2, b'm', // member_id: compact "m"
            0,    // group_instance_id: null
            2,    // topics: compact count 1 + 1
            2, b't', // name "t"
            2,    // partitions: compact count 1 + 1
            0, 0, 0, 1, // partition_index 1
            0, 0, 0, 0, 0, 0, 0, 100, // committed_offset 100
            0, 0, 0, 5, // committed_leader_epoch 5
            0, // committed_metadata: null
            0, // partition's tagged fields
            0, // topic's tagged fields
            0, // request's tagged fields
        ];
        let req = TxnOffsetCommitRequest {
            transactional_id: "tx".into(),
            group_id: "g".into(),
            producer_id: 9,
            producer_epoch: 1,
            generation_id: 4,
            member_id: "m".into(),
            group_instance_id: None,
            topics: vec![TxnOffsetCommitRequestTopic {
                name: "t".into(),
                partitions: vec![partition()],
                ..Default::default()
            }],
            ..Default::default()
        };
        assert_eq!(TxnOffsetCommitRequest::from_bytes(bytes, 3).unwrap(), req);
        assert_eq!(req.to_bytes(3).unwrap(), bytes);
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<TxnOffsetCommitRequest, kp::TxnOffsetCommitRequest>();
        crate::protocol::tests::check::<TxnOffsetCommitResponse, kp::TxnOffsetCommitResponse>();
    }
}
