//! LeaveGroup (API key 13): leaves a classic group so it rebalances at once.
//! Versions 0–5, flexible from 4; v3+ removes several (static) members in one
//! request (KIP-345), v5 adds a reason (KIP-800).

use super::codec::{kafka_message, kafka_struct};
use super::Request;

kafka_struct! {
    /// Removes one member (v0–2) or several (v3+) from a group.
    pub struct LeaveGroupRequest {
        /// The group ID.
        group_id: String {},
        /// The member ID leaving.
        member_id: String { versions = ..=2 },
        /// The members leaving.
        members: Vec<MemberIdentity> { versions = 3.. },
    }

    /// One member leaving (v3+).
    pub struct MemberIdentity {
        /// The member ID, empty to leave by instance ID.
        member_id: String {},
        /// The static member's instance ID, or null.
        group_instance_id: Option<String> { nullable = 3.. },
        /// Why the member is leaving, or null.
        reason: Option<String> { versions = 5.., nullable = 5.., ignorable = true },
    }

    /// The result, per member from v3.
    pub struct LeaveGroupResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 { versions = 1.., ignorable = true },
        /// The top-level error code.
        error_code: i16 {},
        /// One entry per member.
        members: Vec<MemberResponse> { versions = 3.. },
    }

    /// One member's result (v3+).
    pub struct MemberResponse {
        /// The member ID.
        member_id: String {},
        /// The static member's instance ID, or null.
        group_instance_id: Option<String> { nullable = 3.., default = Some(String::new()) },
        /// The member's error code.
        error_code: i16 {},
    }
}

kafka_message!(LeaveGroupRequest, key = 13, versions = 0..=5, flexible = 4);
kafka_message!(LeaveGroupResponse, key = 13, versions = 0..=5, flexible = 4);

impl Request for LeaveGroupRequest {
    type Response = LeaveGroupResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    #[test]
    fn v0_request_bytes() {
        let bytes = [
            0, 1, b'g', // group_id
            0, 2, b'm', b'1', // member_id
        ];
        let req = LeaveGroupRequest {
            group_id: "g".into(),
            member_id: "m1".into(),
            ..Default::default()
        };
        assert_eq!(req.to_bytes(0).unwrap(), bytes);
        assert_eq!(LeaveGroupRequest::from_bytes(&bytes, 0).unwrap(), req);
        // v3+ names members in a list instead
        assert!(req.to_bytes(3).is_err());
    }

    #[test]
    fn v5_request_bytes() {
        let bytes = [
            2, b'g', // group_id
            2,    // members: 1
            3, b'm', b'1', // member_id
            3, b'i', b'1', // group_instance_id
            5, b'b', b'y', b'e', b'!', // reason
            0,    // member tagged fields
            0,    // request tagged fields
        ];
        let req = LeaveGroupRequest {
            group_id: "g".into(),
            members: vec![MemberIdentity {
                member_id: "m1".into(),
                group_instance_id: Some("i1".into()),
                reason: Some("bye!".into()),
                ..Default::default()
            }],
            ..Default::default()
        };
        assert_eq!(req.to_bytes(5).unwrap(), bytes);
        assert_eq!(LeaveGroupRequest::from_bytes(&bytes, 5).unwrap(), req);
        // the reason is ignorable: v4 drops it
        assert_eq!(req.to_bytes(4).unwrap().len(), bytes.len() - 5);
    }

    #[test]
    fn v3_response_bytes() {
        let bytes = [
            0, 0, 0, 0, // throttle_time_ms
            0, 0, // error_code
            0, 0, 0, 1, // members: 1
            0, 0, // member_id ""
            0, 2, b'i', b'1', // group_instance_id
            0, 25, // error_code UNKNOWN_MEMBER_ID
        ];
        let resp = LeaveGroupResponse::from_bytes(&bytes, 3).unwrap();
        assert_eq!(resp.members[0].group_instance_id.as_deref(), Some("i1"));
        assert_eq!(resp.members[0].error_code, 25);
        assert_eq!(resp.to_bytes(3).unwrap(), bytes);
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<LeaveGroupRequest, kp::LeaveGroupRequest>();
        crate::protocol::tests::check::<LeaveGroupResponse, kp::LeaveGroupResponse>();
    }
}
