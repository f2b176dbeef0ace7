//! DescribeTopicPartitions (API key 75): topics' partitions with their leaders
//! and eligible leader replicas, paged with a cursor (KIP-966). Version 0,
//! flexible from 0.

use super::codec::{kafka_message, kafka_struct};
use super::Request;
use crate::wire::Uuid;

kafka_struct! {
    /// Asks for the partitions of some topics, from a cursor on.
    pub struct DescribeTopicPartitionsRequest {
        /// The topics to describe.
        topics: Vec<TopicRequest> {},
        /// The most partitions to return.
        response_partition_limit: i32 { default = 2000 },
        /// Where to start, or null for the beginning.
        cursor: Option<Cursor> { nullable = 0.. },
    }

    /// One topic to describe.
    pub struct TopicRequest {
        /// The topic name.
        name: String {},
    }

    /// A position: a topic and a partition in it.
    pub struct Cursor {
        /// The first topic to describe.
        topic_name: String {},
        /// The first partition index to describe.
        partition_index: i32 {},
    }

    /// The topics' partitions, and where to continue.
    pub struct DescribeTopicPartitionsResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 { ignorable = true },
        /// One entry per topic.
        topics: Vec<DescribeTopicPartitionsResponseTopic> {},
        /// Where the next request should start, or null when done.
        next_cursor: Option<ResponseCursor> { nullable = 0.. },
    }

    /// One topic.
    pub struct DescribeTopicPartitionsResponseTopic {
        /// The topic's error code.
        error_code: i16 {},
        /// The topic name, or null.
        name: Option<String> { nullable = 0.. },
        /// The topic ID.
        topic_id: Uuid { ignorable = true },
        /// Whether the topic is internal.
        is_internal: bool { ignorable = true },
        /// One entry per partition.
        partitions: Vec<DescribeTopicPartitionsResponsePartition> {},
        /// The topic's authorized operations bit field.
        topic_authorized_operations: i32 { default = i32::MIN },
    }

    /// One partition.
    pub struct DescribeTopicPartitionsResponsePartition {
        /// The partition's error code.
        error_code: i16 {},
        /// The partition index.
        partition_index: i32 {},
        /// The leader's broker ID.
        leader_id: i32 {},
        /// The leader epoch.
        leader_epoch: i32 { default = -1, ignorable = true },
        /// All replicas.
        replica_nodes: Vec<i32> {},
        /// The in-sync replicas.
        isr_nodes: Vec<i32> {},
        /// The eligible leader replicas, or null.
        eligible_leader_replicas: Option<Vec<i32>> { nullable = 0.. },
        /// The last known eligible leader replicas, or null.
        last_known_elr: Option<Vec<i32>> { nullable = 0.. },
        /// The offline replicas.
        offline_replicas: Vec<i32> { ignorable = true },
    }

    /// Where the next request should start.
    pub struct ResponseCursor {
        /// The next topic to describe.
        topic_name: String {},
        /// The next partition index to describe.
        partition_index: i32 {},
    }
}

kafka_message!(
    DescribeTopicPartitionsRequest,
    key = 75,
    versions = 0..=0,
    flexible = 0
);
kafka_message!(
    DescribeTopicPartitionsResponse,
    key = 75,
    versions = 0..=0,
    flexible = 0
);

impl Request for DescribeTopicPartitionsRequest {
    type Response = DescribeTopicPartitionsResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    #[test]
    fn v0_request_bytes() {
        let req = DescribeTopicPartitionsRequest {
            topics: vec![TopicRequest {
                name: "t".into(),
                ..Default::default()
            }],
            cursor: Some(Cursor {
                topic_name: "t".into(),
                partition_index: 5,
                ..Default::default()
            }),
            ..Default::default()
        };
        #[rustfmt::skip]
        let bytes = [
            2,                  // topics: compact count 1+1
            2, b't',            //   name
            0,                  //   tagged fields
            0, 0, 0x07, 0xd0,   // response_partition_limit = 2000
            1,                  // cursor: present marker
            2, b't',            //   topic_name
            0, 0, 0, 5,         //   partition_index
            0,                  //   tagged fields
            0,                  // tagged fields
        ];
        assert_eq!(
            DescribeTopicPartitionsRequest::from_bytes(&bytes, 0).unwrap(),
            req
        );
        assert_eq!(req.to_bytes(0).unwrap(), bytes);

        let first = DescribeTopicPartitionsRequest {
            cursor: None,
            ..req
        };
        // cursor: null marker (-1) where the struct was
        let null_bytes = [2, 2, b't', 0, 0, 0, 0x07, 0xd0, 0xff, 0];
        assert_eq!(
            DescribeTopicPartitionsRequest::from_bytes(&null_bytes, 0).unwrap(),
            first
        );
        assert_eq!(first.to_bytes(0).unwrap(), null_bytes);
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<
            DescribeTopicPartitionsRequest,
            kp::DescribeTopicPartitionsRequest,
        >();
        crate::protocol::tests::check::<
            DescribeTopicPartitionsResponse,
            kp::DescribeTopicPartitionsResponse,
        >();
    }
}
