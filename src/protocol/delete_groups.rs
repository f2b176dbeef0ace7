//! DeleteGroups (API key 42): deletes empty groups and their offsets.
//! Versions 0–2, flexible from 2.

use super::codec::{kafka_message, kafka_struct};
use super::Request;

kafka_struct! {
    /// Asks to delete some groups.
    pub struct DeleteGroupsRequest {
        /// The group IDs.
        groups_names: Vec<String> {},
    }

    /// One result per group.
    pub struct DeleteGroupsResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 {},
        /// One entry per group.
        results: Vec<DeletableGroupResult> {},
    }

    /// One group's result.
    pub struct DeletableGroupResult {
        /// The group ID.
        group_id: String {},
        /// The error code, 0 on success.
        error_code: i16 {},
    }
}

kafka_message!(
    DeleteGroupsRequest,
    key = 42,
    versions = 0..=2,
    flexible = 2
);
kafka_message!(
    DeleteGroupsResponse,
    key = 42,
    versions = 0..=2,
    flexible = 2
);

impl Request for DeleteGroupsRequest {
    type Response = DeleteGroupsResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    #[test]
    fn v1_response_bytes() {
        let bytes = [
            0, 0, 0, 0, // throttle_time_ms
            0, 0, 0, 1, // results: 1
            0, 1, b'g', // group_id
            0, 68, // error_code NON_EMPTY_GROUP
        ];
        let resp = DeleteGroupsResponse::from_bytes(&bytes, 1).unwrap();
        assert_eq!(
            (
                resp.results[0].group_id.as_str(),
                resp.results[0].error_code
            ),
            ("g", 68)
        );
        assert_eq!(resp.to_bytes(1).unwrap(), bytes);
    }

    #[test]
    fn v2_response_bytes() {
        let bytes = [
            0, 0, 0, 0, // throttle_time_ms
            2, // results: 1
            2, b'g', // group_id
            0, 0, // error_code
            0, // result tagged fields
            0, // response tagged fields
        ];
        let resp = DeleteGroupsResponse::from_bytes(&bytes, 2).unwrap();
        assert_eq!(resp.results[0].group_id, "g");
        assert_eq!(resp.to_bytes(2).unwrap(), bytes);
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<DeleteGroupsRequest, kp::DeleteGroupsRequest>();
        crate::protocol::tests::check::<DeleteGroupsResponse, kp::DeleteGroupsResponse>();
    }
}
