//! AlterConfigs (API key 33): replace resources' whole config sets (superseded
//! by IncrementalAlterConfigs). Versions 0–2, flexible from 2; KIP-4.

use super::codec::{kafka_message, kafka_struct};
use super::Request;

kafka_struct! {
    /// Asks to set the configs of some resources, replacing what was set.
    pub struct AlterConfigsRequest {
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
        /// The resource's new configs.
        configs: Vec<AlterableConfig> {},
    }

    /// One config to set.
    pub struct AlterableConfig {
        /// The config name.
        name: String {},
        /// The config value, or null.
        value: Option<String> { nullable = 0.. },
    }

    /// The outcome for each resource.
    pub struct AlterConfigsResponse {
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
    AlterConfigsRequest,
    key = 33,
    versions = 0..=2,
    flexible = 2
);
kafka_message!(
    AlterConfigsResponse,
    key = 33,
    versions = 0..=2,
    flexible = 2
);

impl Request for AlterConfigsRequest {
    type Response = AlterConfigsResponse;
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

    fn request() -> AlterConfigsRequest {
        AlterConfigsRequest {
            resources: vec![AlterConfigsResource {
                resource_type: 2,
                resource_name: "t".into(),
                configs: vec![
                    AlterableConfig {
                        name: "a".into(),
                        value: Some("1".into()),
                        ..Default::default()
                    },
                    AlterableConfig {
                        name: "b".into(),
                        value: None,
                        ..Default::default()
                    },
                ],
                ..Default::default()
            }],
            validate_only: false,
            ..Default::default()
        }
    }

    #[test]
    fn v0_request_bytes() {
        #[rustfmt::skip]
        fixture(&[
            &[0, 0, 0, 1],          // resources: 1
            &[2],                   //   resource_type: TOPIC
            &[0, 1], b"t",          //   resource_name
            &[0, 0, 0, 2],          //   configs: 2
            &[0, 1], b"a",          //     name
            &[0, 1], b"1",          //     value
            &[0, 1], b"b",          //     name
            &[0xff, 0xff],          //     value: null
            &[0],                   // validate_only
        ], 0, &request());
    }

    #[test]
    fn v2_request_bytes() {
        #[rustfmt::skip]
        fixture(&[
            &[2],                   // resources: 1 (compact)
            &[2],                   //   resource_type: TOPIC
            &[2], b"t",             //   resource_name
            &[3],                   //   configs: 2
            &[2], b"a",             //     name
            &[2], b"1",             //     value
            &[0],                   //     tagged fields: none
            &[2], b"b",             //     name
            &[0],                   //     value: null
            &[0],                   //     tagged fields: none
            &[0],                   //   tagged fields: none
            &[0],                   // validate_only
            &[0],                   // tagged fields: none
        ], 2, &request());
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<AlterConfigsRequest, kp::AlterConfigsRequest>();
        crate::protocol::tests::check::<AlterConfigsResponse, kp::AlterConfigsResponse>();
    }
}
