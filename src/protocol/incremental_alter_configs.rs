//! IncrementalAlterConfigs (API key 44): set, delete, append to or subtract
//! from single config values (KIP-339). Versions 0–1, flexible from 1.

use super::codec::{kafka_message, kafka_struct};
use super::Request;

kafka_struct! {
    /// Asks to change single configs of some resources.
    pub struct IncrementalAlterConfigsRequest {
        /// The resources to update.
        resources: Vec<AlterConfigsResource> {},
        /// Only validate the request, change nothing.
        validate_only: bool {},
    }

    /// One resource to update.
    pub struct AlterConfigsResource {
        /// The resource type (2 topic, 4 broker, …).
        resource_type: i8 {},
        /// The resource name.
        resource_name: String {},
        /// The changes.
        configs: Vec<AlterableConfig> {},
    }

    /// One config change.
    pub struct AlterableConfig {
        /// The config name.
        name: String {},
        /// The operation: 0 set, 1 delete, 2 append, 3 subtract.
        config_operation: i8 {},
        /// The operand, or null.
        value: Option<String> { nullable = 0.. },
    }

    /// The outcome for each resource.
    pub struct IncrementalAlterConfigsResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 {},
        /// One result per requested resource.
        responses: Vec<AlterConfigsResourceResponse> {},
    }

    /// The outcome for one resource.
    pub struct AlterConfigsResourceResponse {
        /// The error code, 0 on success.
        error_code: i16 {},
        /// The error message, or null.
        error_message: Option<String> { nullable = 0.. },
        /// The resource type.
        resource_type: i8 {},
        /// The resource name.
        resource_name: String {},
    }
}

kafka_message!(
    IncrementalAlterConfigsRequest,
    key = 44,
    versions = 0..=1,
    flexible = 1
);
kafka_message!(
    IncrementalAlterConfigsResponse,
    key = 44,
    versions = 0..=1,
    flexible = 1
);

impl Request for IncrementalAlterConfigsRequest {
    type Response = IncrementalAlterConfigsResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    fn fixture<M: Message>(parts: &[&[u8]], version: i16, want: &M) {
        let bytes = parts.concat();
        assert_eq!(
            &M::from_bytes(&bytes, version).unwrap(),
            want,
            "v{version} decode"
        );
        assert_eq!(want.to_bytes(version).unwrap(), bytes, "v{version} encode");
    }

    fn request() -> IncrementalAlterConfigsRequest {
        IncrementalAlterConfigsRequest {
            resources: vec![AlterConfigsResource {
                resource_type: 4,
                resource_name: "1".into(),
                configs: vec![
                    AlterableConfig {
                        name: "a".into(),
                        config_operation: 2,
                        value: Some("x".into()),
                        ..Default::default()
                    },
                    AlterableConfig {
                        name: "b".into(),
                        config_operation: 1,
                        value: None,
                        ..Default::default()
                    },
                ],
                ..Default::default()
            }],
            validate_only: true,
            ..Default::default()
        }
    }

    #[test]
    fn v0_request_bytes() {
        #[rustfmt::skip]
        fixture(&[
            &[0, 0, 0, 1],          // resources: 1
            &[4],                   //   resource_type: BROKER
            &[0, 1], b"1",          //   resource_name
            &[0, 0, 0, 2],          //   configs: 2
            &[0, 1], b"a",          //     name
            &[2],                   //     config_operation: APPEND
            &[0, 1], b"x",          //     value
            &[0, 1], b"b",          //     name
            &[1],                   //     config_operation: DELETE
            &[0xff, 0xff],          //     value: null
            &[1],                   // validate_only
        ], 0, &request());
    }

    #[test]
    fn v1_request_bytes() {
        #[rustfmt::skip]
        fixture(&[
            &[2],                   // resources: 1 (compact)
            &[4],                   //   resource_type: BROKER
            &[2], b"1",             //   resource_name
            &[3],                   //   configs: 2
            &[2], b"a",             //     name
            &[2],                   //     config_operation: APPEND
            &[2], b"x",             //     value
            &[0],                   //     tagged fields: none
            &[2], b"b",             //     name
            &[1],                   //     config_operation: DELETE
            &[0],                   //     value: null
            &[0],                   //     tagged fields: none
            &[0],                   //   tagged fields: none
            &[1],                   // validate_only
            &[0],                   // tagged fields: none
        ], 1, &request());
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<
            IncrementalAlterConfigsRequest,
            kp::IncrementalAlterConfigsRequest,
        >();
        crate::protocol::tests::check::<
            IncrementalAlterConfigsResponse,
            kp::IncrementalAlterConfigsResponse,
        >();
    }
}
