//! ListOffsets (API key 2): the offset for a timestamp (or the earliest,
//! latest, max-timestamp, … offsets) of topic partitions. Versions 0–10,
//! flexible from 6; v0 returns a list of old-style offsets instead.

use super::codec::{kafka_message, kafka_struct};
use super::Request;

kafka_struct! {
    /// Asks for offsets by timestamp.
    pub struct ListOffsetsRequest {
        /// The requester's broker ID, or -1 for a consumer.
        replica_id: i32 {},
        /// 0 read uncommitted, 1 read committed.
        isolation_level: i8 { versions = 2.. },
        /// One entry per topic.
        topics: Vec<ListOffsetsTopic> {},
        /// How long to wait for tiered-storage reads, in ms.
        timeout_ms: i32 { versions = 10.., ignorable = true },
    }

    /// One topic.
    pub struct ListOffsetsTopic {
        /// The topic name.
        name: String {},
        /// One entry per partition.
        partitions: Vec<ListOffsetsPartition> {},
    }

    /// One partition.
    pub struct ListOffsetsPartition {
        /// The partition index.
        partition_index: i32 {},
        /// The leader epoch the requester knows.
        current_leader_epoch: i32 { versions = 4.., default = -1, ignorable = true },
        /// The timestamp, or a special value (-1 latest, -2 earliest, …).
        timestamp: i64 {},
        /// How many offsets to return.
        max_num_offsets: i32 { versions = 0..=0, default = 1 },
    }

    /// The offsets found.
    pub struct ListOffsetsResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 { versions = 2.., ignorable = true },
        /// One entry per topic.
        topics: Vec<ListOffsetsTopicResponse> {},
    }

    /// One topic's results.
    pub struct ListOffsetsTopicResponse {
        /// The topic name.
        name: String {},
        /// One entry per partition.
        partitions: Vec<ListOffsetsPartitionResponse> {},
    }

    /// One partition's result.
    pub struct ListOffsetsPartitionResponse {
        /// The partition index.
        partition_index: i32 {},
        /// The error code, or 0.
        error_code: i16 {},
        /// The offsets found.
        old_style_offsets: Vec<i64> { versions = 0..=0 },
        /// The timestamp of the returned offset.
        timestamp: i64 { versions = 1.., default = -1 },
        /// The returned offset.
        offset: i64 { versions = 1.., default = -1 },
        /// The leader epoch of the returned offset.
        leader_epoch: i32 { versions = 4.., default = -1 },
    }
}

kafka_message!(ListOffsetsRequest, key = 2, versions = 0..=10, flexible = 6);
kafka_message!(
    ListOffsetsResponse,
    key = 2,
    versions = 0..=10,
    flexible = 6
);

impl Request for ListOffsetsRequest {
    type Response = ListOffsetsResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<ListOffsetsResponse, kp::ListOffsetsResponse>();
    }

    /// The shared check, written out for the request: kafka-protocol 0.15.1
    /// stops at v9 and has no `timeout_ms` field at all, so that one leaf
    /// (0, its default, below v10) is left out of the field comparison.
    #[test]
    fn cross_check_request() {
        use kafka_protocol::messages as kp;
        // kafka-protocol 0.15.1 stops at v9 and lacks v10's timeout_ms.
        crate::protocol::tests::check_except::<ListOffsetsRequest, kp::ListOffsetsRequest>(&[
            "timeout_ms",
        ]);
    }

    #[test]
    fn v0_response_bytes() {
        #[rustfmt::skip]
        let bytes = [
            0, 0, 0, 1,                 // topics: 1
            0, 1, b't',                 //   name "t"
            0, 0, 0, 1,                 //   partitions: 1
            0, 0, 0, 2,                 //     partition_index 2
            0, 0,                       //     error_code 0
            0, 0, 0, 2,                 //     old_style_offsets: 2
            0, 0, 0, 0, 0, 0, 0, 9,     //       9
            0, 0, 0, 0, 0, 0, 0, 0,     //       0
        ];
        let resp = ListOffsetsResponse::from_bytes(&bytes, 0).unwrap();
        let p = &resp.topics[0].partitions[0];
        assert_eq!(
            (p.partition_index, p.old_style_offsets.as_slice()),
            (2, &[9, 0][..])
        );
        assert_eq!((p.timestamp, p.offset), (-1, -1));
        assert_eq!(resp.to_bytes(0).unwrap(), bytes);
        // old-style offsets cannot be carried by v1
        assert!(resp.to_bytes(1).is_err());
    }

    #[test]
    fn v6_response_bytes() {
        #[rustfmt::skip]
        let bytes = [
            0, 0, 0, 0,                 // throttle_time_ms 0
            2,                          // topics: compact 1
            2, b't',                    //   name "t"
            2,                          //   partitions: compact 1
            0, 0, 0, 0,                 //     partition_index 0
            0, 0,                       //     error_code 0
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // timestamp -1
            0, 0, 0, 0, 0, 0, 0, 77,    //     offset 77
            0, 0, 0, 4,                 //     leader_epoch 4
            0,                          //     tagged fields: 0
            0,                          //   tagged fields: 0
            0,                          // tagged fields: 0
        ];
        let resp = ListOffsetsResponse::from_bytes(&bytes, 6).unwrap();
        let p = &resp.topics[0].partitions[0];
        assert_eq!((p.timestamp, p.offset, p.leader_epoch), (-1, 77, 4));
        assert_eq!(resp.to_bytes(6).unwrap(), bytes);
    }

    #[test]
    fn max_num_offsets_is_v0_only() {
        let req = ListOffsetsRequest {
            replica_id: -1,
            topics: vec![ListOffsetsTopic {
                name: "t".into(),
                partitions: vec![ListOffsetsPartition {
                    timestamp: -1,
                    max_num_offsets: 5,
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        };
        assert!(req.to_bytes(0).is_ok());
        assert!(req.to_bytes(1).is_err());
    }
}
