//! ApiVersions (API key 18): the version range of every API the broker
//! supports, plus its features. Versions 0–4, flexible from 3; the response
//! header is always v0 so any client can read it (KIP-511, KIP-584 features).

use super::codec::{kafka_message, kafka_struct};
use super::Request;

kafka_struct! {
    /// Asks the broker which API versions it supports.
    pub struct ApiVersionsRequest {
        /// The client's software name.
        client_software_name: String { versions = 3.., ignorable = true },
        /// The client's software version.
        client_software_version: String { versions = 3.., ignorable = true },
    }

    /// The broker's supported API versions and features.
    pub struct ApiVersionsResponse {
        /// The top-level error code.
        error_code: i16 {},
        /// One entry per supported API.
        api_keys: Vec<ApiVersion> {},
        /// Throttle time in ms.
        throttle_time_ms: i32 { versions = 1.., ignorable = true },
        /// Features the broker supports.
        supported_features: Vec<SupportedFeatureKey> { versions = 3.., tag = 0, ignorable = true },
        /// Epoch of the finalized features, -1 if unknown.
        finalized_features_epoch: i64 { versions = 3.., tag = 1, default = -1, ignorable = true },
        /// Cluster-wide finalized features.
        finalized_features: Vec<FinalizedFeatureKey> { versions = 3.., tag = 2, ignorable = true },
        /// Set by a KRaft controller ready for ZooKeeper migration.
        zk_migration_ready: bool { versions = 3.., tag = 3, ignorable = true },
    }

    /// One API's supported version range.
    pub struct ApiVersion {
        /// The API key.
        api_key: i16 {},
        /// The lowest supported version.
        min_version: i16 {},
        /// The highest supported version.
        max_version: i16 {},
    }

    /// One feature the broker supports.
    pub struct SupportedFeatureKey {
        /// The feature's name.
        name: String { versions = 3.. },
        /// The lowest supported version.
        min_version: i16 { versions = 3.. },
        /// The highest supported version.
        max_version: i16 { versions = 3.. },
    }

    /// One cluster-wide finalized feature.
    pub struct FinalizedFeatureKey {
        /// The feature's name.
        name: String { versions = 3.. },
        /// The finalized highest version level.
        max_version_level: i16 { versions = 3.. },
        /// The finalized lowest version level.
        min_version_level: i16 { versions = 3.. },
    }
}

kafka_message!(ApiVersionsRequest, key = 18, versions = 0..=4, flexible = 3);
kafka_message!(
    ApiVersionsResponse,
    key = 18,
    versions = 0..=4,
    flexible = 3
);

impl Request for ApiVersionsRequest {
    type Response = ApiVersionsResponse;

    /// Always 0: the client may not yet know which versions the broker speaks,
    /// so the response header never carries tagged fields (KIP-511).
    fn response_header_version(_version: i16) -> i16 {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{decode_response, Message};
    use crate::wire::Reader;

    fn api(api_key: i16, min_version: i16, max_version: i16) -> ApiVersion {
        ApiVersion {
            api_key,
            min_version,
            max_version,
            ..Default::default()
        }
    }

    #[test]
    fn v0_response_bytes() {
        let bytes: &[u8] = &[
            0, 0, // error_code
            0, 0, 0, 2, // api_keys: 2 entries
            0, 3, 0, 0, 0, 12, // Metadata 0..=12
            0, 18, 0, 0, 0, 4, // ApiVersions 0..=4
        ];
        let resp = ApiVersionsResponse {
            api_keys: vec![api(3, 0, 12), api(18, 0, 4)],
            ..Default::default()
        };
        assert_eq!(ApiVersionsResponse::from_bytes(bytes, 0).unwrap(), resp);
        assert_eq!(resp.to_bytes(0).unwrap(), bytes);
    }

    #[test]
    fn v3_response_bytes() {
        let bytes: &[u8] = &[
            0, 35, // error_code 35 (UNSUPPORTED_VERSION)
            2,  // api_keys: compact count 1 + 1
            0, 18, 0, 0, 0, 4, // ApiVersions 0..=4
            0, // its tagged fields: none
            0, 0, 0, 7, // throttle_time_ms 7
            2, // two tagged fields
            1, 8, 0, 0, 0, 0, 0, 0, 0, 5, // tag 1 (finalized_features_epoch), 8 bytes: 5
            3, 1, 1, // tag 3 (zk_migration_ready), 1 byte: true
        ];
        let resp = ApiVersionsResponse {
            error_code: 35,
            api_keys: vec![api(18, 0, 4)],
            throttle_time_ms: 7,
            finalized_features_epoch: 5,
            zk_migration_ready: true,
            ..Default::default()
        };
        assert_eq!(ApiVersionsResponse::from_bytes(bytes, 3).unwrap(), resp);
        assert_eq!(resp.to_bytes(3).unwrap(), bytes);
    }

    #[test]
    fn v3_request_bytes() {
        let bytes: &[u8] = &[
            7, b'g', b'r', b'e', b'g', b'o',
            b'r', // client_software_name: compact length 6 + 1
            6, b'0', b'.', b'1', b'.', b'0', // client_software_version: compact length 5 + 1
            0,    // tagged fields: none
        ];
        let req = ApiVersionsRequest {
            client_software_name: "gregor".into(),
            client_software_version: "0.1.0".into(),
            ..Default::default()
        };
        assert_eq!(ApiVersionsRequest::from_bytes(bytes, 3).unwrap(), req);
        assert_eq!(req.to_bytes(3).unwrap(), bytes);
        // v0-2 bodies are empty; the ignorable names are dropped
        assert_eq!(req.to_bytes(2).unwrap(), [0u8; 0]);
    }

    #[test]
    fn response_header_is_always_v0() {
        for v in 0..=4 {
            assert_eq!(ApiVersionsRequest::response_header_version(v), 0, "v{v}");
        }
        // the request header still follows the flexible versions
        assert_eq!(ApiVersionsRequest::request_header_version(2), 1);
        assert_eq!(ApiVersionsRequest::request_header_version(3), 2);
        // a v3 response: correlation id, then straight into the body (no header tags)
        let frame: &[u8] = &[0, 0, 0, 42, 0, 0, 1, 0, 0, 0, 0, 0];
        let mut r = Reader::new(frame);
        let (header, body) = decode_response::<ApiVersionsRequest>(&mut r, 3).unwrap();
        assert_eq!(header.correlation_id, 42);
        assert!(body.api_keys.is_empty());
        assert!(r.is_empty());
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<ApiVersionsRequest, kp::ApiVersionsRequest>();
        crate::protocol::tests::check::<ApiVersionsResponse, kp::ApiVersionsResponse>();
    }
}
