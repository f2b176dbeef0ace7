//! JoinGroup (API key 11): joins a classic group and starts or joins a
//! rebalance. Versions 0–9, flexible from 6; static membership from v5
//! (KIP-345), a leave reason from v8 (KIP-800), skip-assignment in v9 (KIP-814).

use super::codec::{kafka_message, kafka_struct};
use super::Request;
use crate::wire::Bytes;

kafka_struct! {
    /// Joins a group, offering the protocols (e.g. assignors) this member supports.
    pub struct JoinGroupRequest {
        /// The group ID.
        group_id: String {},
        /// Session timeout in ms: the member is dropped without a heartbeat this long.
        session_timeout_ms: i32 {},
        /// Rebalance timeout in ms: how long the coordinator waits for members to rejoin.
        rebalance_timeout_ms: i32 { versions = 1.., default = -1, ignorable = true },
        /// The member ID, empty when joining for the first time.
        member_id: String {},
        /// The static member's instance ID, or null.
        group_instance_id: Option<String> { versions = 5.., nullable = 5.. },
        /// The protocol type, "consumer" for consumers.
        protocol_type: String {},
        /// The protocols this member supports, in order of preference.
        protocols: Vec<JoinGroupRequestProtocol> {},
        /// Why the member is joining, or null.
        reason: Option<String> { versions = 8.., nullable = 8.., ignorable = true },
    }

    /// One supported protocol.
    pub struct JoinGroupRequestProtocol {
        /// The protocol name (e.g. an assignor's name).
        name: String {},
        /// Protocol metadata (for consumers, a consumer-protocol subscription).
        metadata: Bytes {},
    }

    /// The result of joining; the leader also gets every member's metadata.
    pub struct JoinGroupResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 { versions = 2.., ignorable = true },
        /// The error code.
        error_code: i16 {},
        /// The generation ID.
        generation_id: i32 { default = -1 },
        /// The group's protocol type, or null.
        protocol_type: Option<String> { versions = 7.., nullable = 7.., ignorable = true },
        /// The chosen protocol; null when the join failed.
        protocol_name: Option<String> { nullable = 7.., default = Some(String::new()) },
        /// The leader's member ID.
        leader: String {},
        /// True if the leader must skip assigning because the broker does it.
        skip_assignment: bool { versions = 9.. },
        /// This member's ID.
        member_id: String {},
        /// Every member, for the leader; empty for the others.
        members: Vec<JoinGroupResponseMember> {},
    }

    /// One member of the group, as the leader sees it.
    pub struct JoinGroupResponseMember {
        /// The member ID.
        member_id: String {},
        /// The static member's instance ID, or null.
        group_instance_id: Option<String> { versions = 5.., nullable = 5.., ignorable = true },
        /// The member's metadata for the chosen protocol.
        metadata: Bytes {},
    }
}

kafka_message!(JoinGroupRequest, key = 11, versions = 0..=9, flexible = 6);
kafka_message!(JoinGroupResponse, key = 11, versions = 0..=9, flexible = 6);

impl Request for JoinGroupRequest {
    type Response = JoinGroupResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    #[test]
    fn v0_request_bytes() {
        let bytes = [
            0, 1, b'g', // group_id
            0, 0, 0x75, 0x30, // session_timeout_ms 30000
            0, 0, // member_id ""
            0, 8, b'c', b'o', b'n', b's', b'u', b'm', b'e', b'r', // protocol_type
            0, 0, 0, 1, // protocols: 1
            0, 5, b'r', b'a', b'n', b'g', b'e', // name
            0, 0, 0, 2, 0xab, 0xcd, // metadata
        ];
        let req = JoinGroupRequest {
            group_id: "g".into(),
            session_timeout_ms: 30000,
            protocol_type: "consumer".into(),
            protocols: vec![JoinGroupRequestProtocol {
                name: "range".into(),
                metadata: Bytes::from(vec![0xab, 0xcd]),
                ..Default::default()
            }],
            ..Default::default()
        };
        assert_eq!(req.to_bytes(0).unwrap(), bytes);
        assert_eq!(JoinGroupRequest::from_bytes(&bytes, 0).unwrap(), req);
        // a static member needs v5+
        let stat = JoinGroupRequest {
            group_instance_id: Some("i".into()),
            ..req
        };
        assert!(stat.to_bytes(4).is_err());
        assert!(stat.to_bytes(5).is_ok());
    }

    #[test]
    fn v7_response_bytes() {
        let bytes = [
            0, 0, 0, 0, // throttle_time_ms
            0, 0, // error_code
            0, 0, 0, 4, // generation_id
            9, b'c', b'o', b'n', b's', b'u', b'm', b'e', b'r', // protocol_type
            6, b'r', b'a', b'n', b'g', b'e', // protocol_name
            2, b'a', // leader
            2, b'b', // member_id
            2,    // members: 1
            2, b'a', // member_id
            0,    // group_instance_id null
            2, 0xee, // metadata
            0,    // member tagged fields
            0,    // response tagged fields
        ];
        let resp = JoinGroupResponse::from_bytes(&bytes, 7).unwrap();
        assert_eq!(resp.generation_id, 4);
        assert_eq!(resp.protocol_type.as_deref(), Some("consumer"));
        assert_eq!(resp.protocol_name.as_deref(), Some("range"));
        assert_eq!((resp.leader.as_str(), resp.member_id.as_str()), ("a", "b"));
        assert_eq!(resp.members[0].metadata.as_slice(), [0xee]);
        assert_eq!(resp.to_bytes(7).unwrap(), bytes);
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<JoinGroupRequest, kp::JoinGroupRequest>();
        crate::protocol::tests::check::<JoinGroupResponse, kp::JoinGroupResponse>();
    }
}
