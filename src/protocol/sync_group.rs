//! SyncGroup (API key 14): the leader hands out assignments and every member
//! receives its own. Versions 0–5, flexible from 4; static membership from v3
//! (KIP-345), protocol type and name from v5 (KIP-559).

use super::codec::{kafka_message, kafka_struct};
use super::Request;
use crate::wire::Bytes;

kafka_struct! {
    /// Sends the leader's assignments (empty from other members) and asks for ours.
    pub struct SyncGroupRequest {
        /// The group ID.
        group_id: String {},
        /// The generation ID.
        generation_id: i32 {},
        /// The member ID.
        member_id: String {},
        /// The static member's instance ID, or null.
        group_instance_id: Option<String> { versions = 3.., nullable = 3.. },
        /// The group's protocol type, or null.
        protocol_type: Option<String> { versions = 5.., nullable = 5.., ignorable = true },
        /// The chosen protocol's name, or null.
        protocol_name: Option<String> { versions = 5.., nullable = 5.., ignorable = true },
        /// Each member's assignment (leader only).
        assignments: Vec<SyncGroupRequestAssignment> {},
    }

    /// One member's assignment.
    pub struct SyncGroupRequestAssignment {
        /// The member ID.
        member_id: String {},
        /// The assignment (for consumers, a consumer-protocol assignment).
        assignment: Bytes {},
    }

    /// This member's assignment.
    pub struct SyncGroupResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 { versions = 1.., ignorable = true },
        /// The error code.
        error_code: i16 {},
        /// The group's protocol type, or null.
        protocol_type: Option<String> { versions = 5.., nullable = 5.., ignorable = true },
        /// The chosen protocol's name, or null.
        protocol_name: Option<String> { versions = 5.., nullable = 5.., ignorable = true },
        /// This member's assignment.
        assignment: Bytes {},
    }
}

kafka_message!(SyncGroupRequest, key = 14, versions = 0..=5, flexible = 4);
kafka_message!(SyncGroupResponse, key = 14, versions = 0..=5, flexible = 4);

impl Request for SyncGroupRequest {
    type Response = SyncGroupResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    #[test]
    fn v0_request_bytes() {
        let bytes = [
            0, 1, b'g', // group_id
            0, 0, 0, 1, // generation_id
            0, 1, b'a', // member_id
            0, 0, 0, 1, // assignments: 1
            0, 1, b'a', // member_id
            0, 0, 0, 3, 1, 2, 3, // assignment
        ];
        let req = SyncGroupRequest {
            group_id: "g".into(),
            generation_id: 1,
            member_id: "a".into(),
            assignments: vec![SyncGroupRequestAssignment {
                member_id: "a".into(),
                assignment: Bytes::from(vec![1, 2, 3]),
                ..Default::default()
            }],
            ..Default::default()
        };
        assert_eq!(req.to_bytes(0).unwrap(), bytes);
        assert_eq!(SyncGroupRequest::from_bytes(&bytes, 0).unwrap(), req);
    }

    #[test]
    fn v5_response_bytes() {
        let bytes = [
            0, 0, 0, 0, // throttle_time_ms
            0, 0, // error_code
            9, b'c', b'o', b'n', b's', b'u', b'm', b'e', b'r', // protocol_type
            6, b'r', b'a', b'n', b'g', b'e', // protocol_name
            3, 9, 8, // assignment
            0, // tagged fields
        ];
        let resp = SyncGroupResponse::from_bytes(&bytes, 5).unwrap();
        assert_eq!(resp.protocol_type.as_deref(), Some("consumer"));
        assert_eq!(resp.protocol_name.as_deref(), Some("range"));
        assert_eq!(resp.assignment.as_slice(), [9, 8]);
        assert_eq!(resp.to_bytes(5).unwrap(), bytes);
        // the protocol fields are ignorable: v4 drops them
        assert_eq!(resp.to_bytes(4).unwrap(), [0, 0, 0, 0, 0, 0, 3, 9, 8, 0]);
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<SyncGroupRequest, kp::SyncGroupRequest>();
        crate::protocol::tests::check::<SyncGroupResponse, kp::SyncGroupResponse>();
    }
}
