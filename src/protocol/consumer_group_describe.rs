//! ConsumerGroupDescribe (API key 69): the state, members and assignments of
//! next-generation consumer groups (KIP-848). Version 0, flexible from 0.

use super::codec::{kafka_message, kafka_struct};
use super::Request;
use crate::wire::Uuid;

kafka_struct! {
    /// Asks the coordinator to describe some groups.
    pub struct ConsumerGroupDescribeRequest {
        /// The groups to describe.
        group_ids: Vec<String> {},
        /// Whether to return each group's authorized operations.
        include_authorized_operations: bool {},
    }

    /// The described groups.
    pub struct ConsumerGroupDescribeResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 {},
        /// One entry per group.
        groups: Vec<DescribedGroup> {},
    }

    /// One group.
    pub struct DescribedGroup {
        /// The group's error code.
        error_code: i16 {},
        /// The group's error message, or null.
        error_message: Option<String> { nullable = 0.. },
        /// The group ID.
        group_id: String {},
        /// The group state, or empty.
        group_state: String {},
        /// The group epoch.
        group_epoch: i32 {},
        /// The assignment epoch.
        assignment_epoch: i32 {},
        /// The selected assignor.
        assignor_name: String {},
        /// The members.
        members: Vec<Member> {},
        /// The group's authorized operations bit field.
        authorized_operations: i32 { default = i32::MIN },
    }

    /// One member.
    pub struct Member {
        /// The member ID.
        member_id: String {},
        /// The static instance ID, or null.
        instance_id: Option<String> { nullable = 0.. },
        /// The rack ID, or null.
        rack_id: Option<String> { nullable = 0.. },
        /// The member epoch.
        member_epoch: i32 {},
        /// The client ID.
        client_id: String {},
        /// The client host.
        client_host: String {},
        /// The subscribed topic names.
        subscribed_topic_names: Vec<String> {},
        /// The subscribed topic regex, or null.
        subscribed_topic_regex: Option<String> { nullable = 0.. },
        /// The current assignment.
        assignment: Assignment {},
        /// The target assignment.
        target_assignment: Assignment {},
    }

    /// A member's assignment.
    pub struct Assignment {
        /// The assigned partitions.
        topic_partitions: Vec<TopicPartitions> {},
    }

    /// One topic's assigned partitions.
    pub struct TopicPartitions {
        /// The topic ID.
        topic_id: Uuid {},
        /// The topic name.
        topic_name: String {},
        /// The partitions.
        partitions: Vec<i32> {},
    }
}

kafka_message!(
    ConsumerGroupDescribeRequest,
    key = 69,
    versions = 0..=0,
    flexible = 0
);
kafka_message!(
    ConsumerGroupDescribeResponse,
    key = 69,
    versions = 0..=0,
    flexible = 0
);

impl Request for ConsumerGroupDescribeRequest {
    type Response = ConsumerGroupDescribeResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    #[test]
    fn v0_response_bytes() {
        let resp = ConsumerGroupDescribeResponse {
            groups: vec![DescribedGroup {
                group_id: "g".into(),
                group_state: "Stable".into(),
                group_epoch: 3,
                assignment_epoch: 3,
                assignor_name: "u".into(),
                members: vec![Member {
                    member_id: "m".into(),
                    member_epoch: 3,
                    client_id: "c".into(),
                    client_host: "/h".into(),
                    subscribed_topic_names: vec!["t".into()],
                    assignment: Assignment {
                        topic_partitions: vec![TopicPartitions {
                            topic_id: Uuid::from_u64_pair(0, 9),
                            topic_name: "t".into(),
                            partitions: vec![0],
                            ..Default::default()
                        }],
                        ..Default::default()
                    },
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        };
        #[rustfmt::skip]
        let bytes = [
            0, 0, 0, 0,             // throttle_time_ms
            2,                      // groups: compact count 1+1
            0, 0,                   //   error_code
            0,                      //   error_message: null
            2, b'g',                //   group_id
            7, b'S', b't', b'a', b'b', b'l', b'e', // group_state
            0, 0, 0, 3,             //   group_epoch
            0, 0, 0, 3,             //   assignment_epoch
            2, b'u',                //   assignor_name
            2,                      //   members: 1
            2, b'm',                //     member_id
            0,                      //     instance_id: null
            0,                      //     rack_id: null
            0, 0, 0, 3,             //     member_epoch
            2, b'c',                //     client_id
            3, b'/', b'h',          //     client_host
            2, 2, b't',             //     subscribed_topic_names: ["t"]
            0,                      //     subscribed_topic_regex: null
            2,                      //     assignment (not nullable: no marker), topic_partitions: 1
            0, 0, 0, 0, 0, 0, 0, 0, //       topic_id (high half)
            0, 0, 0, 0, 0, 0, 0, 9, //       topic_id (low half)
            2, b't',                //       topic_name
            2, 0, 0, 0, 0,          //       partitions: [0]
            0,                      //       tagged fields
            0,                      //     assignment tagged fields
            1,                      //     target_assignment: topic_partitions: empty
            0,                      //     target_assignment tagged fields
            0,                      //     tagged fields
            0x80, 0, 0, 0,          //   authorized_operations: i32::MIN (not requested)
            0,                      //   tagged fields
            0,                      // tagged fields
        ];
        assert_eq!(
            ConsumerGroupDescribeResponse::from_bytes(&bytes, 0).unwrap(),
            resp
        );
        assert_eq!(resp.to_bytes(0).unwrap(), bytes);
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<
            ConsumerGroupDescribeRequest,
            kp::ConsumerGroupDescribeRequest,
        >();
        crate::protocol::tests::check::<
            ConsumerGroupDescribeResponse,
            kp::ConsumerGroupDescribeResponse,
        >();
    }
}
