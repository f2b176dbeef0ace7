//! DeleteAcls (API key 31): remove the ACLs matching filters, with resource
//! pattern types from v1 (KIP-290). Versions 0–3, flexible from 2; KIP-4.

use super::codec::{kafka_message, kafka_struct};
use super::Request;

kafka_struct! {
    /// Asks to delete the ACLs matching some filters.
    pub struct DeleteAclsRequest {
        /// The filters.
        filters: Vec<DeleteAclsFilter> {},
    }

    /// One filter.
    pub struct DeleteAclsFilter {
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

    /// The outcome for each filter.
    pub struct DeleteAclsResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 {},
        /// One result per filter.
        filter_results: Vec<DeleteAclsFilterResult> {},
    }

    /// The outcome for one filter.
    pub struct DeleteAclsFilterResult {
        /// The error code, 0 on success.
        error_code: i16 {},
        /// The error message, or null.
        error_message: Option<String> { nullable = 0.. },
        /// The ACLs the filter matched.
        matching_acls: Vec<DeleteAclsMatchingAcl> {},
    }

    /// One matched ACL and whether it was deleted.
    pub struct DeleteAclsMatchingAcl {
        /// The deletion's error code, 0 on success.
        error_code: i16 {},
        /// The deletion's error message, or null.
        error_message: Option<String> { nullable = 0.. },
        /// The resource type.
        resource_type: i8 {},
        /// The resource name.
        resource_name: String {},
        /// The resource pattern type.
        pattern_type: i8 { versions = 1.., default = 3 },
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

kafka_message!(DeleteAclsRequest, key = 31, versions = 0..=3, flexible = 2);
kafka_message!(DeleteAclsResponse, key = 31, versions = 0..=3, flexible = 2);

impl Request for DeleteAclsRequest {
    type Response = DeleteAclsResponse;
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

    fn response() -> DeleteAclsResponse {
        DeleteAclsResponse {
            filter_results: vec![DeleteAclsFilterResult {
                error_message: None,
                matching_acls: vec![DeleteAclsMatchingAcl {
                    error_message: None,
                    resource_type: 2,
                    resource_name: "t".into(),
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
            &[0, 0, 0, 1],          // filter_results: 1
            &[0, 0],                //   error_code
            &[0xff, 0xff],          //   error_message: null
            &[0, 0, 0, 1],          //   matching_acls: 1
            &[0, 0],                //     error_code
            &[0xff, 0xff],          //     error_message: null
            &[2],                   //     resource_type: TOPIC
            &[0, 1], b"t",          //     resource_name
            &[0, 6], b"User:a",     //     principal
            &[0, 1], b"*",          //     host
            &[3],                   //     operation: READ
            &[3],                   //     permission_type: ALLOW
        ], 0, &response());
    }

    #[test]
    fn v2_response_bytes() {
        #[rustfmt::skip]
        fixture(&[
            &[0, 0, 0, 0],          // throttle_time_ms
            &[2],                   // filter_results: 1 (compact)
            &[0, 0],                //   error_code
            &[0],                   //   error_message: null
            &[2],                   //   matching_acls: 1
            &[0, 0],                //     error_code
            &[0],                   //     error_message: null
            &[2],                   //     resource_type: TOPIC
            &[2], b"t",             //     resource_name
            &[3],                   //     pattern_type: LITERAL
            &[7], b"User:a",        //     principal
            &[2], b"*",             //     host
            &[3],                   //     operation: READ
            &[3],                   //     permission_type: ALLOW
            &[0],                   //     tagged fields: none
            &[0],                   //   tagged fields: none
            &[0],                   // tagged fields: none
        ], 2, &response());
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<DeleteAclsRequest, kp::DeleteAclsRequest>();
        crate::protocol::tests::check::<DeleteAclsResponse, kp::DeleteAclsResponse>();
    }
}
