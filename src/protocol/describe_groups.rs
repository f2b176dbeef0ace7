//! DescribeGroups (API key 15): state, protocol and members of classic
//! groups. Versions 0–5, flexible from 5; authorized operations from v3
//! (KIP-430), static members from v4 (KIP-345).

use super::codec::{kafka_message, kafka_struct};
use super::Request;
use crate::wire::Bytes;

kafka_struct! {
    /// Asks for a description of some groups.
    pub struct DescribeGroupsRequest {
        /// The group IDs.
        groups: Vec<String> {},
        /// Whether to return each group's authorized operations.
        include_authorized_operations: bool { versions = 3.. },
    }

    /// One description per requested group.
    pub struct DescribeGroupsResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 { versions = 1.., ignorable = true },
        /// One entry per group.
        groups: Vec<DescribedGroup> {},
    }

    /// One group.
    pub struct DescribedGroup {
        /// The group's error code.
        error_code: i16 {},
        /// The group ID.
        group_id: String {},
        /// The group state (e.g. "Stable"), or "" if unknown.
        group_state: String {},
        /// The protocol type, or "" if unknown.
        protocol_type: String {},
        /// The chosen protocol (e.g. an assignor's name) when the group is stable.
        protocol_data: String {},
        /// The members.
        members: Vec<DescribedGroupMember> {},
        /// The group's authorized operations bit field.
        authorized_operations: i32 { versions = 3.., default = i32::MIN },
    }

    /// One member of a group.
    pub struct DescribedGroupMember {
        /// The member ID.
        member_id: String {},
        /// The static member's instance ID, or null.
        group_instance_id: Option<String> { versions = 4.., nullable = 4.., ignorable = true },
        /// The member's client ID.
        client_id: String {},
        /// The member's client host.
        client_host: String {},
        /// The member's metadata for the chosen protocol.
        member_metadata: Bytes {},
        /// The member's current assignment.
        member_assignment: Bytes {},
    }
}

kafka_message!(
    DescribeGroupsRequest,
    key = 15,
    versions = 0..=5,
    flexible = 5
);
kafka_message!(
    DescribeGroupsResponse,
    key = 15,
    versions = 0..=5,
    flexible = 5
);

impl Request for DescribeGroupsRequest {
    type Response = DescribeGroupsResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    #[test]
    fn v0_response_bytes() {
        let bytes = [
            0, 0, 0, 1, // groups: 1
            0, 0, // error_code
            0, 1, b'g', // group_id
            0, 6, b'S', b't', b'a', b'b', b'l', b'e', // group_state
            0, 8, b'c', b'o', b'n', b's', b'u', b'm', b'e', b'r', // protocol_type
            0, 5, b'r', b'a', b'n', b'g', b'e', // protocol_data
            0, 0, 0, 1, // members: 1
            0, 1, b'm', // member_id
            0, 1, b'c', // client_id
            0, 2, b'/', b'h', // client_host
            0, 0, 0, 1, 0x11, // member_metadata
            0, 0, 0, 0, // member_assignment (empty)
        ];
        let resp = DescribeGroupsResponse::from_bytes(&bytes, 0).unwrap();
        let g = &resp.groups[0];
        assert_eq!(
            (g.group_id.as_str(), g.group_state.as_str()),
            ("g", "Stable")
        );
        assert_eq!(g.authorized_operations, i32::MIN);
        assert_eq!(g.members[0].client_host, "/h");
        assert_eq!(g.members[0].member_metadata.as_slice(), [0x11]);
        assert_eq!(resp.to_bytes(0).unwrap(), bytes);
    }

    #[test]
    fn v5_request_bytes() {
        let bytes = [
            3, // groups: 2
            2, b'a', // group
            2, b'b', // group
            1,    // include_authorized_operations
            0,    // tagged fields
        ];
        let req = DescribeGroupsRequest {
            groups: vec!["a".into(), "b".into()],
            include_authorized_operations: true,
            ..Default::default()
        };
        assert_eq!(req.to_bytes(5).unwrap(), bytes);
        assert_eq!(DescribeGroupsRequest::from_bytes(&bytes, 5).unwrap(), req);
        assert!(req.to_bytes(2).is_err());
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<DescribeGroupsRequest, kp::DescribeGroupsRequest>();
        crate::protocol::tests::check::<DescribeGroupsResponse, kp::DescribeGroupsResponse>();
    }
}
