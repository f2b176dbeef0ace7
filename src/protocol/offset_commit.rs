//! OffsetCommit (API key 8): commits consumed offsets for a group. Versions
//! 0–9, flexible from 8; v9 carries a member epoch for the new group protocol
//! (KIP-848).

use super::codec::{kafka_message, kafka_struct};
use super::Request;

kafka_struct! {
    /// Commits offsets for some partitions on behalf of a group.
    pub struct OffsetCommitRequest {
        /// The group ID.
        group_id: String {},
        /// The generation (classic groups) or member epoch (v9 consumer groups).
        generation_id_or_member_epoch: i32 { versions = 1.., default = -1, ignorable = true },
        /// The member ID the coordinator assigned.
        member_id: String { versions = 1.., ignorable = true },
        /// The static member's instance ID, or null.
        group_instance_id: Option<String> { versions = 7.., nullable = 7.. },
        /// How long to keep the offsets in ms, -1 for the broker default.
        retention_time_ms: i64 { versions = 2..=4, default = -1, ignorable = true },
        /// The topics to commit.
        topics: Vec<OffsetCommitRequestTopic> {},
    }

    /// One topic to commit.
    pub struct OffsetCommitRequestTopic {
        /// The topic name.
        name: String {},
        /// Its partitions.
        partitions: Vec<OffsetCommitRequestPartition> {},
    }

    /// One partition's offset.
    pub struct OffsetCommitRequestPartition {
        /// The partition index.
        partition_index: i32 {},
        /// The offset to commit.
        committed_offset: i64 {},
        /// The leader epoch of the last consumed record, or -1.
        committed_leader_epoch: i32 { versions = 6.., default = -1, ignorable = true },
        /// The commit timestamp in ms, -1 for now.
        commit_timestamp: i64 { versions = 1..=1, default = -1 },
        /// Client metadata to keep with the offset, or null.
        committed_metadata: Option<String> { nullable = 0.., default = Some(String::new()) },
    }

    /// Per-partition results of an offset commit.
    pub struct OffsetCommitResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 { versions = 3.., ignorable = true },
        /// One entry per topic.
        topics: Vec<OffsetCommitResponseTopic> {},
    }

    /// One topic's results.
    pub struct OffsetCommitResponseTopic {
        /// The topic name.
        name: String {},
        /// One entry per partition.
        partitions: Vec<OffsetCommitResponsePartition> {},
    }

    /// One partition's result.
    pub struct OffsetCommitResponsePartition {
        /// The partition index.
        partition_index: i32 {},
        /// The error code, 0 on success.
        error_code: i16 {},
    }
}

kafka_message!(OffsetCommitRequest, key = 8, versions = 0..=9, flexible = 8);
kafka_message!(
    OffsetCommitResponse,
    key = 8,
    versions = 0..=9,
    flexible = 8
);

impl Request for OffsetCommitRequest {
    type Response = OffsetCommitResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    fn request() -> OffsetCommitRequest {
        OffsetCommitRequest {
            group_id: "g".into(),
            generation_id_or_member_epoch: 3,
            member_id: "m".into(),
            topics: vec![OffsetCommitRequestTopic {
                name: "t".into(),
                partitions: vec![OffsetCommitRequestPartition {
                    partition_index: 1,
                    committed_offset: 42,
                    committed_metadata: None,
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    #[test]
    fn v2_request_bytes() {
        let bytes = [
            0, 1, b'g', // group_id
            0, 0, 0, 3, // generation_id_or_member_epoch
            0, 1, b'm', // member_id
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // retention_time_ms -1
            0, 0, 0, 1, // topics: 1
            0, 1, b't', // name
            0, 0, 0, 1, // partitions: 1
            0, 0, 0, 1, // partition_index
            0, 0, 0, 0, 0, 0, 0, 42, // committed_offset
            0xff, 0xff, // committed_metadata null
        ];
        let req = request();
        assert_eq!(req.to_bytes(2).unwrap(), bytes);
        assert_eq!(OffsetCommitRequest::from_bytes(&bytes, 2).unwrap(), req);
    }

    #[test]
    fn v8_request_bytes() {
        let bytes = [
            2, b'g', // group_id (compact)
            0, 0, 0, 3, // generation_id_or_member_epoch
            2, b'm', // member_id
            0,    // group_instance_id null
            2,    // topics: 1
            2, b't', // name
            2,    // partitions: 1
            0, 0, 0, 1, // partition_index
            0, 0, 0, 0, 0, 0, 0, 42, // committed_offset
            0xff, 0xff, 0xff, 0xff, // committed_leader_epoch -1
            0,    // committed_metadata null
            0,    // partition tagged fields
            0,    // topic tagged fields
            0,    // request tagged fields
        ];
        let req = request();
        assert_eq!(req.to_bytes(8).unwrap(), bytes);
        assert_eq!(OffsetCommitRequest::from_bytes(&bytes, 8).unwrap(), req);
        // a commit timestamp can only be carried by v1
        let mut ts = request();
        ts.topics[0].partitions[0].commit_timestamp = 5;
        assert!(ts.to_bytes(1).is_ok());
        assert!(ts.to_bytes(2).is_err());
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<OffsetCommitRequest, kp::OffsetCommitRequest>();
        crate::protocol::tests::check::<OffsetCommitResponse, kp::OffsetCommitResponse>();
    }
}
