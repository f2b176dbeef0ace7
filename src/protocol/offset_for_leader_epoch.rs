//! OffsetForLeaderEpoch (API key 23): the end offset of a leader epoch, used to
//! detect log truncation (KIP-101, KIP-320). Versions 0–4, flexible from 4.

use super::codec::{kafka_message, kafka_struct};
use super::Request;

kafka_struct! {
    /// Asks for the end offset of leader epochs.
    pub struct OffsetForLeaderEpochRequest {
        /// The follower's broker ID, -1 for a consumer, -2 for debugging.
        replica_id: i32 { versions = 3.., default = -2, ignorable = true },
        /// One entry per topic.
        topics: Vec<OffsetForLeaderTopic> {},
    }

    /// One topic.
    pub struct OffsetForLeaderTopic {
        /// The topic name.
        topic: String {},
        /// One entry per partition.
        partitions: Vec<OffsetForLeaderPartition> {},
    }

    /// One partition.
    pub struct OffsetForLeaderPartition {
        /// The partition index.
        partition: i32 {},
        /// The leader epoch the requester knows, for fencing.
        current_leader_epoch: i32 { versions = 2.., default = -1, ignorable = true },
        /// The epoch to look up.
        leader_epoch: i32 {},
    }

    /// The end offsets found.
    pub struct OffsetForLeaderEpochResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 { versions = 2.., ignorable = true },
        /// One entry per topic.
        topics: Vec<OffsetForLeaderTopicResult> {},
    }

    /// One topic's results.
    pub struct OffsetForLeaderTopicResult {
        /// The topic name.
        topic: String {},
        /// One entry per partition.
        partitions: Vec<EpochEndOffset> {},
    }

    /// One partition's result.
    pub struct EpochEndOffset {
        /// The error code, or 0.
        error_code: i16 {},
        /// The partition index.
        partition: i32 {},
        /// The largest leader epoch not above the one asked for.
        leader_epoch: i32 { versions = 1.., default = -1, ignorable = true },
        /// That epoch's end offset.
        end_offset: i64 { default = -1 },
    }
}

kafka_message!(
    OffsetForLeaderEpochRequest,
    key = 23,
    versions = 0..=4,
    flexible = 4
);
kafka_message!(
    OffsetForLeaderEpochResponse,
    key = 23,
    versions = 0..=4,
    flexible = 4
);

impl Request for OffsetForLeaderEpochRequest {
    type Response = OffsetForLeaderEpochResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    #[test]
    fn cross_check() {
        use crate::protocol::tests::check;
        use kafka_protocol::messages as kp;
        check::<OffsetForLeaderEpochRequest, kp::OffsetForLeaderEpochRequest>();
        check::<OffsetForLeaderEpochResponse, kp::OffsetForLeaderEpochResponse>();
    }

    #[test]
    fn v0_response_bytes() {
        #[rustfmt::skip]
        let bytes = [
            0, 0, 0, 1,                 // topics: 1
            0, 1, b't',                 //   topic "t"
            0, 0, 0, 1,                 //   partitions: 1
            0, 0,                       //     error_code 0
            0, 0, 0, 3,                 //     partition 3
            0, 0, 0, 0, 0, 0, 0x01, 0,  //     end_offset 256
        ];
        let resp = OffsetForLeaderEpochResponse::from_bytes(&bytes, 0).unwrap();
        let p = &resp.topics[0].partitions[0];
        assert_eq!((p.partition, p.leader_epoch, p.end_offset), (3, -1, 256));
        assert_eq!(resp.to_bytes(0).unwrap(), bytes);
    }

    #[test]
    fn v4_request_bytes() {
        #[rustfmt::skip]
        let bytes = [
            0xff, 0xff, 0xff, 0xff,     // replica_id -1 (consumer)
            2,                          // topics: compact 1
            2, b't',                    //   topic "t"
            2,                          //   partitions: compact 1
            0, 0, 0, 0,                 //     partition 0
            0, 0, 0, 5,                 //     current_leader_epoch 5
            0, 0, 0, 4,                 //     leader_epoch 4
            0,                          //     tagged fields: 0
            0,                          //   tagged fields: 0
            0,                          // tagged fields: 0
        ];
        let req = OffsetForLeaderEpochRequest::from_bytes(&bytes, 4).unwrap();
        assert_eq!(req.replica_id, -1);
        let p = &req.topics[0].partitions[0];
        assert_eq!(
            (p.partition, p.current_leader_epoch, p.leader_epoch),
            (0, 5, 4)
        );
        assert_eq!(req.to_bytes(4).unwrap(), bytes);
    }
}
