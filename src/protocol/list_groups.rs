//! ListGroups (API key 16): the groups a broker coordinates. Versions 0–5,
//! flexible from 3; a state filter from v4 (KIP-518), a type filter from v5
//! (KIP-848).

use super::codec::{kafka_message, kafka_struct};
use super::Request;

kafka_struct! {
    /// Asks for the groups this broker coordinates.
    pub struct ListGroupsRequest {
        /// Only groups in these states; empty for all.
        states_filter: Vec<String> { versions = 4.. },
        /// Only groups of these types; empty for all.
        types_filter: Vec<String> { versions = 5.. },
    }

    /// The groups.
    pub struct ListGroupsResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 { versions = 1.., ignorable = true },
        /// The error code.
        error_code: i16 {},
        /// One entry per group.
        groups: Vec<ListedGroup> {},
    }

    /// One group.
    pub struct ListedGroup {
        /// The group ID.
        group_id: String {},
        /// The protocol type, "" for groups that store only offsets.
        protocol_type: String {},
        /// The group state.
        group_state: String { versions = 4.., ignorable = true },
        /// The group type, e.g. "classic" or "consumer".
        group_type: String { versions = 5.., ignorable = true },
    }
}

kafka_message!(ListGroupsRequest, key = 16, versions = 0..=5, flexible = 3);
kafka_message!(ListGroupsResponse, key = 16, versions = 0..=5, flexible = 3);

impl Request for ListGroupsRequest {
    type Response = ListGroupsResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    #[test]
    fn v0_response_bytes() {
        let bytes = [
            0, 0, // error_code
            0, 0, 0, 2, // groups: 2
            0, 1, b'a', // group_id
            0, 8, b'c', b'o', b'n', b's', b'u', b'm', b'e', b'r', // protocol_type
            0, 1, b'b', // group_id
            0, 0, // protocol_type ""
        ];
        let resp = ListGroupsResponse::from_bytes(&bytes, 0).unwrap();
        assert_eq!(resp.groups.len(), 2);
        assert_eq!(resp.groups[0].protocol_type, "consumer");
        assert_eq!(resp.to_bytes(0).unwrap(), bytes);
    }

    #[test]
    fn v5_response_bytes() {
        let bytes = [
            0, 0, 0, 0, // throttle_time_ms
            0, 0, // error_code
            2, // groups: 1
            2, b'a', // group_id
            9, b'c', b'o', b'n', b's', b'u', b'm', b'e', b'r', // protocol_type
            7, b'S', b't', b'a', b'b', b'l', b'e', // group_state
            8, b'c', b'l', b'a', b's', b's', b'i', b'c', // group_type
            0,    // group tagged fields
            0,    // response tagged fields
        ];
        let resp = ListGroupsResponse::from_bytes(&bytes, 5).unwrap();
        assert_eq!(resp.groups[0].group_state, "Stable");
        assert_eq!(resp.groups[0].group_type, "classic");
        assert_eq!(resp.to_bytes(5).unwrap(), bytes);
    }

    #[test]
    fn filters_need_new_versions() {
        let req = ListGroupsRequest {
            states_filter: vec!["Empty".into()],
            ..Default::default()
        };
        assert_eq!(ListGroupsRequest::default().to_bytes(0).unwrap(), [0u8; 0]);
        assert!(req.to_bytes(3).is_err());
        assert_eq!(
            req.to_bytes(4).unwrap(),
            [2, 6, b'E', b'm', b'p', b't', b'y', 0]
        );
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<ListGroupsRequest, kp::ListGroupsRequest>();
        crate::protocol::tests::check::<ListGroupsResponse, kp::ListGroupsResponse>();
    }
}
