//! CreatePartitions (API key 37): raise topics' partition counts, optionally
//! placing the new partitions (KIP-195). Versions 0–3, flexible from 2.

use super::codec::{kafka_message, kafka_struct};
use super::Request;

kafka_struct! {
    /// Asks the controller to add partitions to topics.
    pub struct CreatePartitionsRequest {
        /// The topics to grow.
        topics: Vec<CreatePartitionsTopic> {},
        /// How long to wait for the partitions to be created, in ms.
        timeout_ms: i32 {},
        /// Only validate the request, change nothing.
        validate_only: bool {},
    }

    /// One topic to grow.
    pub struct CreatePartitionsTopic {
        /// The topic name.
        name: String {},
        /// The new total partition count.
        count: i32 {},
        /// Replicas for each new partition, or null for automatic placement.
        assignments: Option<Vec<CreatePartitionsAssignment>> { nullable = 0.. },
    }

    /// The replicas of one new partition.
    pub struct CreatePartitionsAssignment {
        /// The brokers holding its replicas.
        broker_ids: Vec<i32> {},
    }

    /// The outcome for each topic.
    pub struct CreatePartitionsResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 {},
        /// One result per requested topic.
        results: Vec<CreatePartitionsTopicResult> {},
    }

    /// The outcome for one topic.
    pub struct CreatePartitionsTopicResult {
        /// The topic name.
        name: String {},
        /// The error code, 0 on success.
        error_code: i16 {},
        /// The error message, or null.
        error_message: Option<String> { nullable = 0.. },
    }
}

kafka_message!(
    CreatePartitionsRequest,
    key = 37,
    versions = 0..=3,
    flexible = 2
);
kafka_message!(
    CreatePartitionsResponse,
    key = 37,
    versions = 0..=3,
    flexible = 2
);

impl Request for CreatePartitionsRequest {
    type Response = CreatePartitionsResponse;
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

    fn request(validate_only: bool) -> CreatePartitionsRequest {
        CreatePartitionsRequest {
            topics: vec![
                CreatePartitionsTopic {
                    name: "a".into(),
                    count: 4,
                    assignments: None,
                    ..Default::default()
                },
                CreatePartitionsTopic {
                    name: "b".into(),
                    count: 3,
                    assignments: Some(vec![CreatePartitionsAssignment {
                        broker_ids: vec![1, 2],
                        ..Default::default()
                    }]),
                    ..Default::default()
                },
            ],
            timeout_ms: 5000,
            validate_only,
            ..Default::default()
        }
    }

    #[test]
    fn v1_request_bytes() {
        #[rustfmt::skip]
        fixture(&[
            &[0, 0, 0, 2],          // topics: 2
            &[0, 1], b"a",          //   name
            &[0, 0, 0, 4],          //   count
            &[0xff; 4],             //   assignments: null
            &[0, 1], b"b",          //   name
            &[0, 0, 0, 3],          //   count
            &[0, 0, 0, 1],          //   assignments: 1
            &[0, 0, 0, 2],          //     broker_ids: 2
            &[0, 0, 0, 1, 0, 0, 0, 2],
            &[0, 0, 0x13, 0x88],    // timeout_ms: 5000
            &[1],                   // validate_only
        ], 1, &request(true));
    }

    #[test]
    fn v2_request_bytes() {
        #[rustfmt::skip]
        fixture(&[
            &[3],                   // topics: 2 (compact)
            &[2], b"a",             //   name
            &[0, 0, 0, 4],          //   count
            &[0],                   //   assignments: null
            &[0],                   //   tagged fields: none
            &[2], b"b",             //   name
            &[0, 0, 0, 3],          //   count
            &[2],                   //   assignments: 1
            &[3],                   //     broker_ids: 2
            &[0, 0, 0, 1, 0, 0, 0, 2],
            &[0],                   //     tagged fields: none
            &[0],                   //   tagged fields: none
            &[0, 0, 0x13, 0x88],    // timeout_ms: 5000
            &[0],                   // validate_only
            &[0],                   // tagged fields: none
        ], 2, &request(false));
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<CreatePartitionsRequest, kp::CreatePartitionsRequest>();
        crate::protocol::tests::check::<CreatePartitionsResponse, kp::CreatePartitionsResponse>();
    }
}
