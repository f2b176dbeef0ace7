//! DescribeClientQuotas (API key 48): the quotas set for users, client IDs
//! and IPs matching a filter (KIP-546). Versions 0–1, flexible from 1.

use super::codec::{kafka_message, kafka_struct};
use super::Request;

kafka_struct! {
    /// Asks for the quotas of the entities matching a filter.
    pub struct DescribeClientQuotasRequest {
        /// The filter components.
        components: Vec<ComponentData> {},
        /// Whether to exclude entities with entity types the filter does not name.
        strict: bool {},
    }

    /// One filter component.
    pub struct ComponentData {
        /// The entity type the component applies to.
        entity_type: String {},
        /// 0 exact name, 1 default name, 2 any specified name.
        match_type: i8 {},
        /// The name to match, or null when the match type needs none.
        r#match: Option<String> { nullable = 0.. },
    }

    /// The matching entities and their quotas.
    pub struct DescribeClientQuotasResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 {},
        /// The error code.
        error_code: i16 {},
        /// The error message, or null.
        error_message: Option<String> { nullable = 0.. },
        /// One entry per entity, or null on error.
        entries: Option<Vec<EntryData>> { nullable = 0.. },
    }

    /// One entity's quotas.
    pub struct EntryData {
        /// The entity, as (type, name) parts.
        entity: Vec<EntityData> {},
        /// Its quota values.
        values: Vec<ValueData> {},
    }

    /// One part of an entity.
    pub struct EntityData {
        /// The entity type.
        entity_type: String {},
        /// The entity name, or null for the default entity.
        entity_name: Option<String> { nullable = 0.. },
    }

    /// One quota value.
    pub struct ValueData {
        /// The quota configuration key.
        key: String {},
        /// The quota value.
        value: f64 {},
    }
}

kafka_message!(
    DescribeClientQuotasRequest,
    key = 48,
    versions = 0..=1,
    flexible = 1
);
kafka_message!(
    DescribeClientQuotasResponse,
    key = 48,
    versions = 0..=1,
    flexible = 1
);

impl Request for DescribeClientQuotasRequest {
    type Response = DescribeClientQuotasResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    fn response() -> DescribeClientQuotasResponse {
        DescribeClientQuotasResponse {
            entries: Some(vec![EntryData {
                entity: vec![EntityData {
                    entity_type: "u".into(),
                    entity_name: None,
                    ..Default::default()
                }],
                values: vec![ValueData {
                    key: "k".into(),
                    value: 1.5,
                    ..Default::default()
                }],
                ..Default::default()
            }]),
            ..Default::default()
        }
    }

    #[test]
    fn v0_response_bytes() {
        #[rustfmt::skip]
        let bytes = [
            0, 0, 0, 0,         // throttle_time_ms
            0, 0,               // error_code
            0xff, 0xff,         // error_message: null
            0, 0, 0, 1,         // entries: 1
            0, 0, 0, 1,         //   entity: 1
            0, 1, b'u',         //     entity_type
            0xff, 0xff,         //     entity_name: null (the default user)
            0, 0, 0, 1,         //   values: 1
            0, 1, b'k',         //     key
            0x3f, 0xf8, 0, 0, 0, 0, 0, 0, // value = 1.5 (IEEE 754 double)
        ];
        assert_eq!(
            DescribeClientQuotasResponse::from_bytes(&bytes, 0).unwrap(),
            response()
        );
        assert_eq!(response().to_bytes(0).unwrap(), bytes);
    }

    #[test]
    fn v1_response_bytes() {
        #[rustfmt::skip]
        let bytes = [
            0, 0, 0, 0,         // throttle_time_ms
            0, 0,               // error_code
            0,                  // error_message: null (compact)
            2,                  // entries: compact count 1+1
            2,                  //   entity: 1
            2, b'u',            //     entity_type
            0,                  //     entity_name: null
            0,                  //     tagged fields
            2,                  //   values: 1
            2, b'k',            //     key
            0x3f, 0xf8, 0, 0, 0, 0, 0, 0, // value = 1.5
            0,                  //     tagged fields
            0,                  //   tagged fields
            0,                  // tagged fields
        ];
        assert_eq!(
            DescribeClientQuotasResponse::from_bytes(&bytes, 1).unwrap(),
            response()
        );
        assert_eq!(response().to_bytes(1).unwrap(), bytes);
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<DescribeClientQuotasRequest, kp::DescribeClientQuotasRequest>(
        );
        crate::protocol::tests::check::<
            DescribeClientQuotasResponse,
            kp::DescribeClientQuotasResponse,
        >();
    }
}
