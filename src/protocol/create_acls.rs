//! CreateAcls (API key 30): add ACL bindings, with resource pattern types from
//! v1 (KIP-290). Versions 0–3, flexible from 2; KIP-4.

use super::codec::{kafka_message, kafka_struct};
use super::Request;

kafka_struct! {
    /// Asks to create ACL bindings.
    pub struct CreateAclsRequest {
        /// The ACLs to create.
        creations: Vec<AclCreation> {},
    }

    /// One ACL to create.
    pub struct AclCreation {
        /// The resource type (2 topic, 3 group, …).
        resource_type: i8 {},
        /// The resource name.
        resource_name: String {},
        /// The resource pattern type (3 literal, 4 prefixed).
        resource_pattern_type: i8 { versions = 1.., default = 3 },
        /// The principal.
        principal: String {},
        /// The host.
        host: String {},
        /// The operation (read, write, …).
        operation: i8 {},
        /// The permission type (allow, deny).
        permission_type: i8 {},
    }

    /// The outcome for each ACL.
    pub struct CreateAclsResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 {},
        /// One result per requested ACL.
        results: Vec<AclCreationResult> {},
    }

    /// The outcome for one ACL.
    pub struct AclCreationResult {
        /// The error code, 0 on success.
        error_code: i16 {},
        /// The error message, or null.
        error_message: Option<String> { nullable = 0.. },
    }
}

kafka_message!(CreateAclsRequest, key = 30, versions = 0..=3, flexible = 2);
kafka_message!(CreateAclsResponse, key = 30, versions = 0..=3, flexible = 2);

impl Request for CreateAclsRequest {
    type Response = CreateAclsResponse;
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

    fn request(resource_pattern_type: i8) -> CreateAclsRequest {
        CreateAclsRequest {
            creations: vec![AclCreation {
                resource_type: 2,
                resource_name: "t".into(),
                resource_pattern_type,
                principal: "User:a".into(),
                host: "*".into(),
                operation: 4,
                permission_type: 3,
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    #[test]
    fn v0_request_bytes() {
        #[rustfmt::skip]
        fixture(&[
            &[0, 0, 0, 1],          // creations: 1
            &[2],                   //   resource_type: TOPIC
            &[0, 1], b"t",          //   resource_name
            &[0, 6], b"User:a",     //   principal
            &[0, 1], b"*",          //   host
            &[4],                   //   operation: WRITE
            &[3],                   //   permission_type: ALLOW
        ], 0, &request(3));
        // v0 knows only literal patterns; a prefixed one may not be dropped
        assert!(request(4).to_bytes(0).is_err());
    }

    #[test]
    fn v3_request_bytes() {
        #[rustfmt::skip]
        fixture(&[
            &[2],                   // creations: 1 (compact)
            &[2],                   //   resource_type: TOPIC
            &[2], b"t",             //   resource_name
            &[4],                   //   resource_pattern_type: PREFIXED
            &[7], b"User:a",        //   principal
            &[2], b"*",             //   host
            &[4],                   //   operation: WRITE
            &[3],                   //   permission_type: ALLOW
            &[0],                   //   tagged fields: none
            &[0],                   // tagged fields: none
        ], 3, &request(4));
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<CreateAclsRequest, kp::CreateAclsRequest>();
        crate::protocol::tests::check::<CreateAclsResponse, kp::CreateAclsResponse>();
    }
}
