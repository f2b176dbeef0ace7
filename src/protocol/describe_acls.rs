//! DescribeAcls (API key 29): list the ACLs matching a filter, with resource
//! pattern types from v1 (KIP-290). Versions 0–3, flexible from 2; KIP-4.

use super::codec::{kafka_message, kafka_struct};
use super::Request;

kafka_struct! {
    /// Asks for the ACLs matching one filter.
    pub struct DescribeAclsRequest {
        /// The resource type to match (1 any, 2 topic, …).
        resource_type_filter: i8 {},
        /// The resource name to match, or null for any.
        resource_name_filter: Option<String> { nullable = 0.. },
        /// The resource pattern type to match (1 any, 2 match, 3 literal, 4 prefixed).
        pattern_type_filter: i8 { versions = 1.., default = 3 },
        /// The principal to match, or null for any.
        principal_filter: Option<String> { nullable = 0.. },
        /// The host to match, or null for any.
        host_filter: Option<String> { nullable = 0.. },
        /// The operation to match.
        operation: i8 {},
        /// The permission type to match.
        permission_type: i8 {},
    }

    /// The matching ACLs, grouped by resource.
    pub struct DescribeAclsResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 {},
        /// The error code, 0 on success.
        error_code: i16 {},
        /// The error message, or null.
        error_message: Option<String> { nullable = 0.. },
        /// Each resource with matching ACLs.
        resources: Vec<DescribeAclsResource> {},
    }

    /// One resource and its matching ACLs.
    pub struct DescribeAclsResource {
        /// The resource type.
        resource_type: i8 {},
        /// The resource name.
        resource_name: String {},
        /// The resource pattern type.
        pattern_type: i8 { versions = 1.., default = 3 },
        /// The ACLs.
        acls: Vec<AclDescription> {},
    }

    /// One ACL.
    pub struct AclDescription {
        /// The principal.
        principal: String {},
        /// The host.
        host: String {},
        /// The operation.
        operation: i8 {},
        /// The permission type.
        permission_type: i8 {},
    }
}

kafka_message!(
    DescribeAclsRequest,
    key = 29,
    versions = 0..=3,
    flexible = 2
);
kafka_message!(
    DescribeAclsResponse,
    key = 29,
    versions = 0..=3,
    flexible = 2
);

impl Request for DescribeAclsRequest {
    type Response = DescribeAclsResponse;
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

    fn response(pattern_type: i8) -> DescribeAclsResponse {
        DescribeAclsResponse {
            error_message: None,
            resources: vec![DescribeAclsResource {
                resource_type: 2,
                resource_name: "t".into(),
                pattern_type,
                acls: vec![AclDescription {
                    principal: "User:a".into(),
                    host: "*".into(),
                    operation: 3,
                    permission_type: 3,
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    #[test]
    fn v0_response_bytes() {
        #[rustfmt::skip]
        fixture(&[
            &[0, 0, 0, 0],          // throttle_time_ms
            &[0, 0],                // error_code
            &[0xff, 0xff],          // error_message: null
            &[0, 0, 0, 1],          // resources: 1
            &[2],                   //   resource_type: TOPIC
            &[0, 1], b"t",          //   resource_name
            &[0, 0, 0, 1],          //   acls: 1
            &[0, 6], b"User:a",     //     principal
            &[0, 1], b"*",          //     host
            &[3],                   //     operation: READ
            &[3],                   //     permission_type: ALLOW
        ], 0, &response(3));
        // v0 knows only literal patterns; a prefixed one may not be dropped
        assert!(response(4).to_bytes(0).is_err());
    }

    #[test]
    fn v2_response_bytes() {
        #[rustfmt::skip]
        fixture(&[
            &[0, 0, 0, 0],          // throttle_time_ms
            &[0, 0],                // error_code
            &[0],                   // error_message: null
            &[2],                   // resources: 1 (compact)
            &[2],                   //   resource_type: TOPIC
            &[2], b"t",             //   resource_name
            &[4],                   //   pattern_type: PREFIXED
            &[2],                   //   acls: 1
            &[7], b"User:a",        //     principal
            &[2], b"*",             //     host
            &[3],                   //     operation: READ
            &[3],                   //     permission_type: ALLOW
            &[0],                   //     tagged fields: none
            &[0],                   //   tagged fields: none
            &[0],                   // tagged fields: none
        ], 2, &response(4));
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<DescribeAclsRequest, kp::DescribeAclsRequest>();
        crate::protocol::tests::check::<DescribeAclsResponse, kp::DescribeAclsResponse>();
    }
}
