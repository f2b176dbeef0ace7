//! DescribeConfigs (API key 32): read topic, broker and other resources'
//! configs, with synonyms (v1+, KIP-226) and documentation (v3+, KIP-569).
//! Versions 0–4, flexible from 4; KIP-4.

use super::codec::{kafka_message, kafka_struct};
use super::Request;

kafka_struct! {
    /// Asks for the configs of some resources.
    pub struct DescribeConfigsRequest {
        /// The resources to describe.
        resources: Vec<DescribeConfigsResource> {},
        /// Whether to return each config's synonyms.
        include_synonyms: bool { versions = 1.. },
        /// Whether to return each config's documentation.
        include_documentation: bool { versions = 3.. },
    }

    /// One resource to describe.
    pub struct DescribeConfigsResource {
        /// The resource type (2 topic, 4 broker, …).
        resource_type: i8 {},
        /// The resource name.
        resource_name: String {},
        /// The config keys to return, or null for all.
        configuration_keys: Option<Vec<String>> { nullable = 0.. },
    }

    /// The configs of each resource.
    pub struct DescribeConfigsResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 {},
        /// One result per requested resource.
        results: Vec<DescribeConfigsResult> {},
    }

    /// The configs of one resource.
    pub struct DescribeConfigsResult {
        /// The error code, 0 on success.
        error_code: i16 {},
        /// The error message, or null.
        error_message: Option<String> { nullable = 0.. },
        /// The resource type.
        resource_type: i8 {},
        /// The resource name.
        resource_name: String {},
        /// The resource's configs.
        configs: Vec<DescribeConfigsResourceResult> {},
    }

    /// One config.
    pub struct DescribeConfigsResourceResult {
        /// The config name.
        name: String {},
        /// The config value, or null.
        value: Option<String> { nullable = 0.. },
        /// Whether the config is read-only.
        read_only: bool {},
        /// Whether the config is unset (later versions use config_source).
        is_default: bool { versions = 0..=0 },
        /// Where the value comes from.
        config_source: i8 { versions = 1.., default = -1, ignorable = true },
        /// Whether the config is sensitive.
        is_sensitive: bool {},
        /// The config's synonyms, by precedence.
        synonyms: Vec<DescribeConfigsSynonym> { versions = 1.., ignorable = true },
        /// The config's data type.
        config_type: i8 { versions = 3.., ignorable = true },
        /// The config's documentation, or null ("" when absent, as in Kafka).
        documentation: Option<String> {
            versions = 3..,
            nullable = 0..,
            default = Some(String::new()),
            ignorable = true,
        },
    }

    /// One synonym of a config (v1+).
    pub struct DescribeConfigsSynonym {
        /// The synonym's name.
        name: String { versions = 1.. },
        /// The synonym's value, or null.
        value: Option<String> { versions = 1.., nullable = 0.. },
        /// Where the synonym comes from.
        source: i8 { versions = 1.. },
    }
}

kafka_message!(
    DescribeConfigsRequest,
    key = 32,
    versions = 0..=4,
    flexible = 4
);
kafka_message!(
    DescribeConfigsResponse,
    key = 32,
    versions = 0..=4,
    flexible = 4
);

impl Request for DescribeConfigsRequest {
    type Response = DescribeConfigsResponse;
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

    fn response(config: DescribeConfigsResourceResult) -> DescribeConfigsResponse {
        DescribeConfigsResponse {
            results: vec![DescribeConfigsResult {
                resource_type: 2,
                resource_name: "t".into(),
                configs: vec![DescribeConfigsResourceResult {
                    name: "k".into(),
                    value: Some("v".into()),
                    ..config
                }],
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    #[test]
    fn v0_response_bytes() {
        let want = response(DescribeConfigsResourceResult {
            is_default: true,
            ..Default::default()
        });
        #[rustfmt::skip]
        fixture(&[
            &[0, 0, 0, 0],          // throttle_time_ms
            &[0, 0, 0, 1],          // results: 1
            &[0, 0],                //   error_code
            &[0xff, 0xff],          //   error_message: null
            &[2],                   //   resource_type: TOPIC
            &[0, 1], b"t",          //   resource_name
            &[0, 0, 0, 1],          //   configs: 1
            &[0, 1], b"k",          //     name
            &[0, 1], b"v",          //     value
            &[0],                   //     read_only
            &[1],                   //     is_default
            &[0],                   //     is_sensitive
        ], 0, &want);
        // is_default exists only in v0 and may not be dropped
        assert!(want.to_bytes(1).is_err());
    }

    #[test]
    fn v4_response_bytes() {
        let want = response(DescribeConfigsResourceResult {
            config_source: 1,
            synonyms: vec![DescribeConfigsSynonym {
                name: "k".into(),
                value: Some("v".into()),
                source: 1,
                ..Default::default()
            }],
            config_type: 3,
            documentation: None,
            ..Default::default()
        });
        #[rustfmt::skip]
        fixture(&[
            &[0, 0, 0, 0],          // throttle_time_ms
            &[2],                   // results: 1 (compact)
            &[0, 0],                //   error_code
            &[0],                   //   error_message: null
            &[2],                   //   resource_type: TOPIC
            &[2], b"t",             //   resource_name
            &[2],                   //   configs: 1
            &[2], b"k",             //     name
            &[2], b"v",             //     value
            &[0],                   //     read_only
            &[1],                   //     config_source: DYNAMIC_TOPIC_CONFIG
            &[0],                   //     is_sensitive
            &[2],                   //     synonyms: 1
            &[2], b"k",             //       name
            &[2], b"v",             //       value
            &[1],                   //       source
            &[0],                   //       tagged fields: none
            &[3],                   //     config_type: INT
            &[0],                   //     documentation: null
            &[0],                   //     tagged fields: none
            &[0],                   //   tagged fields: none
            &[0],                   // tagged fields: none
        ], 4, &want);
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<DescribeConfigsRequest, kp::DescribeConfigsRequest>();
        crate::protocol::tests::check::<DescribeConfigsResponse, kp::DescribeConfigsResponse>();
    }
}
