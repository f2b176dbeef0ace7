//! DeleteTopics (API key 20): delete topics by name, or from v6 by topic ID
//! (KIP-516). Versions 0–6, flexible from 4; KIP-4.

use super::codec::{kafka_message, kafka_struct};
use super::Request;
use crate::wire::Uuid;

kafka_struct! {
    /// Asks the controller to delete topics.
    pub struct DeleteTopicsRequest {
        /// The topics to delete, by name or ID.
        topics: Vec<DeleteTopicState> { versions = 6.. },
        /// The names of the topics to delete.
        topic_names: Vec<String> { versions = 0..=5, ignorable = true },
        /// How long to wait for the deletions, in ms.
        timeout_ms: i32 {},
    }

    /// One topic to delete (v6+).
    pub struct DeleteTopicState {
        /// The topic name, or null when deleting by ID.
        name: Option<String> { versions = 6.., nullable = 6.. },
        /// The topic ID, or zero when deleting by name.
        topic_id: Uuid { versions = 6.. },
    }

    /// The outcome for each topic.
    pub struct DeleteTopicsResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 { versions = 1.., ignorable = true },
        /// One result per requested topic.
        responses: Vec<DeletableTopicResult> {},
    }

    /// The outcome for one topic.
    pub struct DeletableTopicResult {
        /// The topic name; null for an unknown topic ID.
        name: Option<String> { nullable = 6.. },
        /// The topic ID.
        topic_id: Uuid { versions = 6.., ignorable = true },
        /// The error code, 0 on success.
        error_code: i16 {},
        /// The error message, or null.
        error_message: Option<String> { versions = 5.., nullable = 5.., ignorable = true },
    }
}

kafka_message!(
    DeleteTopicsRequest,
    key = 20,
    versions = 0..=6,
    flexible = 4
);
kafka_message!(
    DeleteTopicsResponse,
    key = 20,
    versions = 0..=6,
    flexible = 4
);

impl Request for DeleteTopicsRequest {
    type Response = DeleteTopicsResponse;
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

    #[test]
    fn v3_request_bytes() {
        let want = DeleteTopicsRequest {
            topic_names: vec!["t".into()],
            timeout_ms: 30000,
            ..Default::default()
        };
        #[rustfmt::skip]
        fixture(&[
            &[0, 0, 0, 1],          // topic_names: 1
            &[0, 1], b"t",          //   "t"
            &[0, 0, 0x75, 0x30],    // timeout_ms: 30000
        ], 3, &want);
    }

    #[test]
    fn v6_request_bytes() {
        let id = Uuid::from_u64_pair(0x0102_0304_0506_0708, 0x090a_0b0c_0d0e_0f10);
        let want = DeleteTopicsRequest {
            topics: vec![
                DeleteTopicState {
                    name: None,
                    topic_id: id,
                    ..Default::default()
                },
                DeleteTopicState {
                    name: Some("t".into()),
                    ..Default::default()
                },
            ],
            timeout_ms: 30000,
            ..Default::default()
        };
        #[rustfmt::skip]
        fixture(&[
            &[3],                   // topics: 2 (compact)
            &[0],                   //   name: null
            &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16], // topic_id
            &[0],                   //   tagged fields: none
            &[2], b"t",             //   name
            &[0; 16],               //   topic_id: zero
            &[0],                   //   tagged fields: none
            &[0, 0, 0x75, 0x30],    // timeout_ms: 30000
            &[0],                   // tagged fields: none
        ], 6, &want);
        // topics by ID cannot be sent before v6
        assert!(want.to_bytes(5).is_err());
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<DeleteTopicsRequest, kp::DeleteTopicsRequest>();
        crate::protocol::tests::check::<DeleteTopicsResponse, kp::DeleteTopicsResponse>();
    }
}
