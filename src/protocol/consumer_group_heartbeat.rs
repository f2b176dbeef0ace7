//! ConsumerGroupHeartbeat (API key 68): the heartbeat of the next-generation
//! consumer group protocol, through which a member joins, leaves and gets its
//! assignment (KIP-848). Versions 0–1 (v1 adds the topic regex), flexible from 0.

use super::codec::{kafka_message, kafka_struct};
use super::Request;
use crate::wire::Uuid;

kafka_struct! {
    /// A member's heartbeat; fields that did not change since the last one may be null.
    pub struct ConsumerGroupHeartbeatRequest {
        /// The group ID.
        group_id: String {},
        /// The member ID the coordinator gave (kept for the member's whole life).
        member_id: String {},
        /// The member epoch: 0 to join, -1 to leave, -2 for a static member that will rejoin.
        member_epoch: i32 {},
        /// The static instance ID, or null if unset or unchanged.
        instance_id: Option<String> { nullable = 0.. },
        /// The rack ID, or null if unset or unchanged.
        rack_id: Option<String> { nullable = 0.. },
        /// The rebalance timeout in ms, or -1 if unchanged.
        rebalance_timeout_ms: i32 { default = -1 },
        /// The subscribed topic names, or null if unchanged.
        subscribed_topic_names: Option<Vec<String>> { nullable = 0.. },
        /// The subscribed topic regex, or null if unchanged.
        subscribed_topic_regex: Option<String> { versions = 1.., nullable = 1.. },
        /// The server-side assignor, or null if unused or unchanged.
        server_assignor: Option<String> { nullable = 0.. },
        /// The partitions the member owns, or null if unchanged.
        topic_partitions: Option<Vec<TopicPartitions>> { nullable = 0.. },
    }

    /// One topic's partitions, owned by the member.
    pub struct TopicPartitions {
        /// The topic ID.
        topic_id: Uuid {},
        /// The partitions.
        partitions: Vec<i32> {},
    }

    /// The coordinator's answer, with the member's assignment when it changed.
    pub struct ConsumerGroupHeartbeatResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 {},
        /// The top-level error code.
        error_code: i16 {},
        /// The top-level error message, or null.
        error_message: Option<String> { nullable = 0.. },
        /// The member ID, given only when the member joins with epoch 0; else null.
        member_id: Option<String> { nullable = 0.. },
        /// The member epoch.
        member_epoch: i32 {},
        /// The heartbeat interval in ms.
        heartbeat_interval_ms: i32 {},
        /// The new assignment, or null if not provided.
        assignment: Option<Assignment> { nullable = 0.. },
    }

    /// A member's assignment.
    pub struct Assignment {
        /// The partitions the member may use now.
        topic_partitions: Vec<ResponseTopicPartitions> {},
    }

    /// One topic's partitions, assigned to the member.
    pub struct ResponseTopicPartitions {
        /// The topic ID.
        topic_id: Uuid {},
        /// The partitions.
        partitions: Vec<i32> {},
    }
}

kafka_message!(
    ConsumerGroupHeartbeatRequest,
    key = 68,
    versions = 0..=1,
    flexible = 0
);
kafka_message!(
    ConsumerGroupHeartbeatResponse,
    key = 68,
    versions = 0..=1,
    flexible = 0
);

impl Request for ConsumerGroupHeartbeatRequest {
    type Response = ConsumerGroupHeartbeatResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    fn response(assignment: Option<Assignment>) -> ConsumerGroupHeartbeatResponse {
        ConsumerGroupHeartbeatResponse {
            member_id: Some("m".into()),
            member_epoch: 5,
            heartbeat_interval_ms: 3000,
            assignment,
            ..Default::default()
        }
    }

    #[test]
    fn v0_response_bytes_with_assignment() {
        let resp = response(Some(Assignment {
            topic_partitions: vec![ResponseTopicPartitions {
                topic_id: Uuid::from_u64_pair(1, 2),
                partitions: vec![7],
                ..Default::default()
            }],
            ..Default::default()
        }));
        #[rustfmt::skip]
        let bytes = [
            0, 0, 0, 0,             // throttle_time_ms
            0, 0,                   // error_code
            0,                      // error_message: null (compact)
            2, b'm',                // member_id
            0, 0, 0, 5,             // member_epoch
            0, 0, 0x0b, 0xb8,       // heartbeat_interval_ms = 3000
            1,                      // assignment: present marker
            2,                      //   topic_partitions: compact count 1+1
            0, 0, 0, 0, 0, 0, 0, 1, //     topic_id (high half)
            0, 0, 0, 0, 0, 0, 0, 2, //     topic_id (low half)
            2,                      //     partitions: 1
            0, 0, 0, 7,
            0,                      //     tagged fields
            0,                      //   tagged fields
            0,                      // tagged fields
        ];
        assert_eq!(
            ConsumerGroupHeartbeatResponse::from_bytes(&bytes, 0).unwrap(),
            resp
        );
        assert_eq!(resp.to_bytes(0).unwrap(), bytes);
    }

    #[test]
    fn v0_response_bytes_null_assignment() {
        let resp = response(None);
        #[rustfmt::skip]
        let bytes = [
            0, 0, 0, 0,             // throttle_time_ms
            0, 0,                   // error_code
            0,                      // error_message: null
            2, b'm',                // member_id
            0, 0, 0, 5,             // member_epoch
            0, 0, 0x0b, 0xb8,       // heartbeat_interval_ms = 3000
            0xff,                   // assignment: null marker (-1)
            0,                      // tagged fields
        ];
        assert_eq!(
            ConsumerGroupHeartbeatResponse::from_bytes(&bytes, 0).unwrap(),
            resp
        );
        assert_eq!(resp.to_bytes(0).unwrap(), bytes);
    }

    #[test]
    fn v1_request_regex() {
        let req = ConsumerGroupHeartbeatRequest {
            group_id: "g".into(),
            subscribed_topic_regex: Some("t.*".into()),
            ..Default::default()
        };
        #[rustfmt::skip]
        let bytes = [
            2, b'g',                // group_id
            1,                      // member_id: ""
            0, 0, 0, 0,             // member_epoch: 0 (join)
            0,                      // instance_id: null
            0,                      // rack_id: null
            0xff, 0xff, 0xff, 0xff, // rebalance_timeout_ms: -1
            0,                      // subscribed_topic_names: null
            4, b't', b'.', b'*',    // subscribed_topic_regex (v1+)
            0,                      // server_assignor: null
            0,                      // topic_partitions: null
            0,                      // tagged fields
        ];
        assert_eq!(
            ConsumerGroupHeartbeatRequest::from_bytes(&bytes, 1).unwrap(),
            req
        );
        assert_eq!(req.to_bytes(1).unwrap(), bytes);
        // v0 has no regex field
        assert!(req.to_bytes(0).is_err());
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        // kafka-protocol 0.15.1 knows only v0, without the v1 regex field.
        crate::protocol::tests::check_except::<
            ConsumerGroupHeartbeatRequest,
            kp::ConsumerGroupHeartbeatRequest,
        >(&["subscribed_topic_regex"]);
        crate::protocol::tests::check::<
            ConsumerGroupHeartbeatResponse,
            kp::ConsumerGroupHeartbeatResponse,
        >();
    }
}
