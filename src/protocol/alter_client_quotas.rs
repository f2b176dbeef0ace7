//! AlterClientQuotas (API key 49): sets or removes quotas for users, client
//! IDs and IPs (KIP-546). Versions 0–1, flexible from 1.

use super::codec::{kafka_message, kafka_struct};
use super::Request;

kafka_struct! {
    /// Asks to alter the quotas of some entities.
    pub struct AlterClientQuotasRequest {
        /// One entry per entity to alter.
        entries: Vec<EntryData> {},
        /// Whether to only validate the alteration.
        validate_only: bool {},
    }

    /// One entity and the changes to its quotas.
    pub struct EntryData {
        /// The entity, as (type, name) parts.
        entity: Vec<EntityData> {},
        /// The changes.
        ops: Vec<OpData> {},
    }

    /// One part of an entity.
    pub struct EntityData {
        /// The entity type.
        entity_type: String {},
        /// The entity name, or null for the default entity.
        entity_name: Option<String> { nullable = 0.. },
    }

    /// One quota change.
    pub struct OpData {
        /// The quota configuration key.
        key: String {},
        /// The value to set (ignored when removing).
        value: f64 {},
        /// Whether to remove the value rather than set it.
        remove: bool {},
    }

    /// The result for each entity.
    pub struct AlterClientQuotasResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 {},
        /// One entry per entity.
        entries: Vec<ResponseEntryData> {},
    }

    /// One entity's result.
    pub struct ResponseEntryData {
        /// The error code.
        error_code: i16 {},
        /// The error message, or null.
        error_message: Option<String> { nullable = 0.. },
        /// The entity, as (type, name) parts.
        entity: Vec<ResponseEntityData> {},
    }

    /// One part of an entity.
    pub struct ResponseEntityData {
        /// The entity type.
        entity_type: String {},
        /// The entity name, or null for the default entity.
        entity_name: Option<String> { nullable = 0.. },
    }
}

kafka_message!(
    AlterClientQuotasRequest,
    key = 49,
    versions = 0..=1,
    flexible = 1
);
kafka_message!(
    AlterClientQuotasResponse,
    key = 49,
    versions = 0..=1,
    flexible = 1
);

impl Request for AlterClientQuotasRequest {
    type Response = AlterClientQuotasResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    fn request() -> AlterClientQuotasRequest {
        AlterClientQuotasRequest {
            entries: vec![EntryData {
                entity: vec![EntityData {
                    entity_type: "user".into(),
                    entity_name: Some("al".into()),
                    ..Default::default()
                }],
                ops: vec![OpData {
                    key: "k".into(),
                    value: -2.0,
                    remove: false,
                    ..Default::default()
                }],
                ..Default::default()
            }],
            validate_only: true,
            ..Default::default()
        }
    }

    #[test]
    fn v0_request_bytes() {
        #[rustfmt::skip]
        let bytes = [
            0, 0, 0, 1,                 // entries: 1
            0, 0, 0, 1,                 //   entity: 1
            0, 4, b'u', b's', b'e', b'r', //   entity_type
            0, 2, b'a', b'l',           //     entity_name
            0, 0, 0, 1,                 //   ops: 1
            0, 1, b'k',                 //     key
            0xc0, 0, 0, 0, 0, 0, 0, 0,  //     value = -2.0 (IEEE 754 double)
            0,                          //     remove
            1,                          // validate_only
        ];
        assert_eq!(
            AlterClientQuotasRequest::from_bytes(&bytes, 0).unwrap(),
            request()
        );
        assert_eq!(request().to_bytes(0).unwrap(), bytes);
    }

    #[test]
    fn v1_request_bytes() {
        #[rustfmt::skip]
        let bytes = [
            2,                          // entries: compact count 1+1
            2,                          //   entity: 1
            5, b'u', b's', b'e', b'r',  //     entity_type
            3, b'a', b'l',              //     entity_name
            0,                          //     tagged fields
            2,                          //   ops: 1
            2, b'k',                    //     key
            0xc0, 0, 0, 0, 0, 0, 0, 0,  //     value = -2.0
            0,                          //     remove
            0,                          //     tagged fields
            0,                          //   tagged fields
            1,                          // validate_only
            0,                          // tagged fields
        ];
        assert_eq!(
            AlterClientQuotasRequest::from_bytes(&bytes, 1).unwrap(),
            request()
        );
        assert_eq!(request().to_bytes(1).unwrap(), bytes);
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<AlterClientQuotasRequest, kp::AlterClientQuotasRequest>();
        crate::protocol::tests::check::<AlterClientQuotasResponse, kp::AlterClientQuotasResponse>();
    }
}
