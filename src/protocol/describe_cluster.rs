//! DescribeCluster (API key 60): the cluster's ID, controller and brokers
//! (KIP-700), or from v1 its controllers (KIP-919). Versions 0–1, flexible
//! from 0.

use super::codec::{kafka_message, kafka_struct};
use super::Request;

kafka_struct! {
    /// Asks for the cluster's endpoints.
    pub struct DescribeClusterRequest {
        /// Whether to return the cluster's authorized operations.
        include_cluster_authorized_operations: bool {},
        /// Which endpoints to describe: 1 brokers, 2 controllers.
        endpoint_type: i8 { versions = 1.., default = 1 },
    }

    /// The cluster's ID, controller and endpoints.
    pub struct DescribeClusterResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 {},
        /// The top-level error code, 0 if there was no error.
        error_code: i16 {},
        /// The top-level error message, or null.
        error_message: Option<String> { nullable = 0.. },
        /// Which endpoints were described: 1 brokers, 2 controllers.
        endpoint_type: i8 { versions = 1.., default = 1 },
        /// The cluster ID.
        cluster_id: String {},
        /// The controller's broker ID.
        controller_id: i32 { default = -1 },
        /// One entry per broker (or controller).
        brokers: Vec<DescribeClusterBroker> {},
        /// The cluster's authorized operations bit field.
        cluster_authorized_operations: i32 { default = i32::MIN },
    }

    /// One broker.
    pub struct DescribeClusterBroker {
        /// The broker ID.
        broker_id: i32 {},
        /// Its host name.
        host: String {},
        /// Its port.
        port: i32 {},
        /// Its rack, or null.
        rack: Option<String> { nullable = 0.. },
    }
}

kafka_message!(
    DescribeClusterRequest,
    key = 60,
    versions = 0..=1,
    flexible = 0
);
kafka_message!(
    DescribeClusterResponse,
    key = 60,
    versions = 0..=1,
    flexible = 0
);

impl Request for DescribeClusterRequest {
    type Response = DescribeClusterResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    fn broker() -> DescribeClusterBroker {
        DescribeClusterBroker {
            broker_id: 1,
            host: "h".into(),
            port: 9092,
            rack: None,
            ..Default::default()
        }
    }

    #[test]
    fn v0_response_bytes() {
        let bytes: &[u8] = &[
            0, 0, 0, 0, // throttle_time_ms 0
            0, 0, // error_code 0
            0, // error_message: null
            2, b'c', // cluster_id: compact "c"
            0, 0, 0, 1, // controller_id 1
            2, // brokers: compact count 1 + 1
            0, 0, 0, 1, // broker_id 1
            2, b'h', // host "h"
            0, 0, 0x23, 0x84, // port 9092
            0,    // rack: null
            0,    // broker's tagged fields
            0x80, 0, 0, 0, // cluster_authorized_operations i32::MIN (not requested)
            0, // tagged fields: none
        ];
        let resp = DescribeClusterResponse {
            cluster_id: "c".into(),
            controller_id: 1,
            brokers: vec![broker()],
            ..Default::default()
        };
        assert_eq!(DescribeClusterResponse::from_bytes(bytes, 0).unwrap(), resp);
        assert_eq!(resp.to_bytes(0).unwrap(), bytes);
    }

    #[test]
    fn v1_response_bytes() {
        let bytes: &[u8] = &[
            0, 0, 0, 0, // throttle_time_ms 0
            0, 0, // error_code 0
            0, // error_message: null
            2, // endpoint_type 2 (controllers)
            2, b'c', // cluster_id: compact "c"
            0xff, 0xff, 0xff, 0xff, // controller_id -1
            2,    // brokers: compact count 1 + 1
            0, 0, 0, 1, // broker_id 1
            2, b'h', // host "h"
            0, 0, 0x23, 0x84, // port 9092
            0,    // rack: null
            0,    // broker's tagged fields
            0x80, 0, 0, 0, // cluster_authorized_operations i32::MIN
            0, // tagged fields: none
        ];
        let resp = DescribeClusterResponse {
            endpoint_type: 2,
            cluster_id: "c".into(),
            brokers: vec![broker()],
            ..Default::default()
        };
        assert_eq!(DescribeClusterResponse::from_bytes(bytes, 1).unwrap(), resp);
        assert_eq!(resp.to_bytes(1).unwrap(), bytes);
        // controllers cannot be described by v0
        assert!(resp.to_bytes(0).is_err());
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<DescribeClusterRequest, kp::DescribeClusterRequest>();
        crate::protocol::tests::check::<DescribeClusterResponse, kp::DescribeClusterResponse>();
    }
}
