//! FindCoordinator (API key 10): finds the broker coordinating a group or
//! transaction. Versions 0–6, flexible from 3; v4+ looks up several keys at
//! once (KIP-699), v6 adds share-group keys (KIP-932).

use super::codec::{kafka_message, kafka_struct};
use super::Request;

kafka_struct! {
    /// Asks which broker coordinates a key (v0–3) or several keys (v4+).
    pub struct FindCoordinatorRequest {
        /// The key: a group ID or transactional ID.
        key: String { versions = ..=3 },
        /// The key type: 0 group, 1 transaction, 2 share group.
        key_type: i8 { versions = 1.. },
        /// The keys to look up.
        coordinator_keys: Vec<String> { versions = 4.. },
    }

    /// The coordinator of one key (v0–3) or of each key (v4+).
    pub struct FindCoordinatorResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 { versions = 1.., ignorable = true },
        /// The error code.
        error_code: i16 { versions = ..=3 },
        /// The error message, or null.
        error_message: Option<String> {
            versions = 1..=3,
            nullable = 1..=3,
            default = Some(String::new()),
            ignorable = true,
        },
        /// The coordinator's broker ID.
        node_id: i32 { versions = ..=3 },
        /// The coordinator's host name.
        host: String { versions = ..=3 },
        /// The coordinator's port.
        port: i32 { versions = ..=3 },
        /// One entry per requested key.
        coordinators: Vec<Coordinator> { versions = 4.. },
    }

    /// The coordinator of one key (v4+).
    pub struct Coordinator {
        /// The key.
        key: String {},
        /// The coordinator's broker ID.
        node_id: i32 {},
        /// The coordinator's host name.
        host: String {},
        /// The coordinator's port.
        port: i32 {},
        /// The error code.
        error_code: i16 {},
        /// The error message, or null.
        error_message: Option<String> {
            nullable = 4..,
            default = Some(String::new()),
            ignorable = true,
        },
    }
}

kafka_message!(
    FindCoordinatorRequest,
    key = 10,
    versions = 0..=6,
    flexible = 3
);
kafka_message!(
    FindCoordinatorResponse,
    key = 10,
    versions = 0..=6,
    flexible = 3
);

impl Request for FindCoordinatorRequest {
    type Response = FindCoordinatorResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    #[test]
    fn v0_response_bytes() {
        let bytes = [
            0, 0, // error_code
            0, 0, 0, 2, // node_id
            0, 2, b'h', b'1', // host
            0, 0, 0x23, 0x84, // port 9092
        ];
        let resp = FindCoordinatorResponse::from_bytes(&bytes, 0).unwrap();
        assert_eq!(
            (resp.node_id, resp.host.as_str(), resp.port),
            (2, "h1", 9092)
        );
        assert_eq!(resp.to_bytes(0).unwrap(), bytes);
        // a batched answer cannot be carried by v3
        let batched = FindCoordinatorResponse {
            coordinators: vec![Coordinator::default()],
            ..resp
        };
        assert!(batched.to_bytes(3).is_err());
    }

    #[test]
    fn v4_response_bytes() {
        let bytes = [
            0, 0, 0, 0, // throttle_time_ms
            3, // coordinators: 2
            2, b'g', // key
            0, 0, 0, 1, // node_id
            2, b'h', // host
            0, 0, 0x23, 0x84, // port 9092
            0, 0, // error_code
            0, // error_message null
            0, // coordinator tagged fields
            2, b'x', // key
            0xff, 0xff, 0xff, 0xff, // node_id -1
            1,    // host ""
            0xff, 0xff, 0xff, 0xff, // port -1
            0, 15, // error_code COORDINATOR_NOT_AVAILABLE
            3, b'n', b'o', // error_message "no"
            0,    // coordinator tagged fields
            0,    // response tagged fields
        ];
        let resp = FindCoordinatorResponse::from_bytes(&bytes, 4).unwrap();
        assert_eq!(resp.coordinators.len(), 2);
        assert_eq!(
            (resp.coordinators[0].key.as_str(), resp.coordinators[0].port),
            ("g", 9092)
        );
        assert_eq!(resp.coordinators[1].error_code, 15);
        assert_eq!(resp.coordinators[1].error_message.as_deref(), Some("no"));
        assert_eq!(resp.to_bytes(4).unwrap(), bytes);
    }

    #[test]
    fn v4_request_needs_coordinator_keys() {
        let one = FindCoordinatorRequest {
            key: "g".into(),
            ..Default::default()
        };
        assert_eq!(one.to_bytes(3).unwrap(), [2, b'g', 0, 0]);
        assert!(one.to_bytes(4).is_err());
        let many = FindCoordinatorRequest {
            coordinator_keys: vec!["g".into()],
            ..Default::default()
        };
        assert_eq!(many.to_bytes(4).unwrap(), [0, 2, 2, b'g', 0]);
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<FindCoordinatorRequest, kp::FindCoordinatorRequest>();
        crate::protocol::tests::check::<FindCoordinatorResponse, kp::FindCoordinatorResponse>();
    }
}
