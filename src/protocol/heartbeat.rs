//! Heartbeat (API key 12): keeps a classic group member alive and tells it
//! when to rejoin. Versions 0–4, flexible from 4; static membership from v3
//! (KIP-345).

use super::codec::{kafka_message, kafka_struct};
use super::Request;

kafka_struct! {
    /// Tells the coordinator this member is alive.
    pub struct HeartbeatRequest {
        /// The group ID.
        group_id: String {},
        /// The generation ID.
        generation_id: i32 {},
        /// The member ID.
        member_id: String {},
        /// The static member's instance ID, or null.
        group_instance_id: Option<String> { versions = 3.., nullable = 3.. },
    }

    /// The coordinator's answer; REBALANCE_IN_PROGRESS means rejoin.
    pub struct HeartbeatResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 { versions = 1.., ignorable = true },
        /// The error code.
        error_code: i16 {},
    }
}

kafka_message!(HeartbeatRequest, key = 12, versions = 0..=4, flexible = 4);
kafka_message!(HeartbeatResponse, key = 12, versions = 0..=4, flexible = 4);

impl Request for HeartbeatRequest {
    type Response = HeartbeatResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    fn request() -> HeartbeatRequest {
        HeartbeatRequest {
            group_id: "g".into(),
            generation_id: 7,
            member_id: "m".into(),
            ..Default::default()
        }
    }

    #[test]
    fn v0_request_bytes() {
        let bytes = [
            0, 1, b'g', // group_id
            0, 0, 0, 7, // generation_id
            0, 1, b'm', // member_id
        ];
        assert_eq!(request().to_bytes(0).unwrap(), bytes);
        assert_eq!(HeartbeatRequest::from_bytes(&bytes, 0).unwrap(), request());
    }

    #[test]
    fn v4_request_bytes() {
        let bytes = [
            2, b'g', // group_id
            0, 0, 0, 7, // generation_id
            2, b'm', // member_id
            3, b'i', b'1', // group_instance_id
            0,    // tagged fields
        ];
        let req = HeartbeatRequest {
            group_instance_id: Some("i1".into()),
            ..request()
        };
        assert_eq!(req.to_bytes(4).unwrap(), bytes);
        assert_eq!(HeartbeatRequest::from_bytes(&bytes, 4).unwrap(), req);
        assert!(req.to_bytes(2).is_err());
    }

    #[test]
    fn v4_response_bytes() {
        let bytes = [
            0, 0, 0, 10, // throttle_time_ms
            0, 27, // error_code REBALANCE_IN_PROGRESS
            0,  // tagged fields
        ];
        let resp = HeartbeatResponse::from_bytes(&bytes, 4).unwrap();
        assert_eq!((resp.throttle_time_ms, resp.error_code), (10, 27));
        assert_eq!(resp.to_bytes(4).unwrap(), bytes);
        // the throttle time is dropped by v0
        assert_eq!(resp.to_bytes(0).unwrap(), [0, 27]);
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<HeartbeatRequest, kp::HeartbeatRequest>();
        crate::protocol::tests::check::<HeartbeatResponse, kp::HeartbeatResponse>();
    }
}
