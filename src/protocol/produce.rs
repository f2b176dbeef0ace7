//! Produce (API key 0): record batches for topic partitions, and the offsets
//! they were appended at. Versions 0–12, flexible from 9; KIP-951 leader
//! hints (current leader, node endpoints) from v10. v12 is v11 on the wire
//! (KIP-890 part 2): with transactions v2 a transactional Produce v12 also
//! adds its partitions to the transaction, so a transactions v1 producer
//! sends at most v11.

use super::codec::{kafka_message, kafka_struct};
use super::Request;
use crate::wire::Bytes;

kafka_struct! {
    /// Appends record batches to partitions.
    pub struct ProduceRequest {
        /// The transactional ID, or null when not transactional.
        transactional_id: Option<String> { versions = 3.., nullable = 3.. },
        /// Acks required: 0 none, 1 the leader, -1 the full ISR.
        acks: i16 {},
        /// How long to wait for the acks, in ms.
        timeout_ms: i32 {},
        /// One entry per topic.
        topic_data: Vec<TopicProduceData> {},
    }

    /// One topic to produce to.
    pub struct TopicProduceData {
        /// The topic name.
        name: String {},
        /// One entry per partition.
        partition_data: Vec<PartitionProduceData> {},
    }

    /// One partition to produce to.
    pub struct PartitionProduceData {
        /// The partition index.
        index: i32 {},
        /// The records (a message set or record batches), or null.
        records: Option<Bytes> { nullable = 0.. },
    }

    /// Where each partition's records were appended, or why not.
    pub struct ProduceResponse {
        /// One entry per topic.
        responses: Vec<TopicProduceResponse> {},
        /// Throttle time in ms.
        throttle_time_ms: i32 { versions = 1.., ignorable = true },
        /// Endpoints of the leaders named in `current_leader` (tagged).
        node_endpoints: Vec<NodeEndpoint> { versions = 10.., tag = 0 },
    }

    /// One topic's results.
    pub struct TopicProduceResponse {
        /// The topic name.
        name: String {},
        /// One entry per partition.
        partition_responses: Vec<PartitionProduceResponse> {},
    }

    /// One partition's result.
    pub struct PartitionProduceResponse {
        /// The partition index.
        index: i32 {},
        /// The error code, or 0.
        error_code: i16 {},
        /// The offset of the first appended record.
        base_offset: i64 {},
        /// The broker's append time with LogAppendTime, else -1.
        log_append_time_ms: i64 { versions = 2.., default = -1, ignorable = true },
        /// The partition's log start offset.
        log_start_offset: i64 { versions = 5.., default = -1, ignorable = true },
        /// The records that made the batch fail.
        record_errors: Vec<BatchIndexAndErrorMessage> { versions = 8.., ignorable = true },
        /// A summary of why the batch failed, or null.
        error_message: Option<String> { versions = 8.., nullable = 8.., ignorable = true },
        /// The current leader, on a leadership error (tagged).
        current_leader: LeaderIdAndEpoch { versions = 10.., tag = 0 },
    }

    /// One record that made its batch fail.
    pub struct BatchIndexAndErrorMessage {
        /// The record's index within the batch.
        batch_index: i32 { versions = 8.. },
        /// Why it failed, or null.
        batch_index_error_message: Option<String> { versions = 8.., nullable = 8.. },
    }

    /// A partition's current leader.
    pub struct LeaderIdAndEpoch {
        /// The leader's broker ID, or -1 if unknown.
        leader_id: i32 { versions = 10.., default = -1 },
        /// The leader's epoch, or -1.
        leader_epoch: i32 { versions = 10.., default = -1 },
    }

    /// A broker's address.
    pub struct NodeEndpoint {
        /// The broker ID.
        node_id: i32 { versions = 10.. },
        /// Its host name.
        host: String { versions = 10.. },
        /// Its port.
        port: i32 { versions = 10.. },
        /// Its rack, or null.
        rack: Option<String> { versions = 10.., nullable = 10.. },
    }
}

kafka_message!(ProduceRequest, key = 0, versions = 0..=12, flexible = 9);
kafka_message!(ProduceResponse, key = 0, versions = 0..=12, flexible = 9);

impl Request for ProduceRequest {
    type Response = ProduceResponse;

    /// The record batches, plus each partition's and topic's few fields
    /// (an upper bound for every version).
    fn encoded_size_hint(&self) -> usize {
        let mut n = 32 + self.transactional_id.as_ref().map_or(0, String::len);
        for t in &self.topic_data {
            n += 16 + t.name.len();
            for p in &t.partition_data {
                n += 16 + p.records.as_ref().map_or(0, |r| r.len());
            }
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<ProduceRequest, kp::ProduceRequest>();
        crate::protocol::tests::check::<ProduceResponse, kp::ProduceResponse>();
    }

    #[test]
    fn v2_response_bytes() {
        #[rustfmt::skip]
        let bytes = [
            0, 0, 0, 1,                 // responses: 1
            0, 1, b't',                 //   name "t"
            0, 0, 0, 1,                 //   partition_responses: 1
            0, 0, 0, 3,                 //     index 3
            0, 0,                       //     error_code 0
            0, 0, 0, 0, 0, 0, 0, 42,    //     base_offset 42
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // log_append_time_ms -1
            0, 0, 0, 7,                 // throttle_time_ms 7
        ];
        let resp = ProduceResponse::from_bytes(&bytes, 2).unwrap();
        let p = &resp.responses[0].partition_responses[0];
        assert_eq!(resp.responses[0].name, "t");
        assert_eq!(
            (p.index, p.error_code, p.base_offset, p.log_append_time_ms),
            (3, 0, 42, -1)
        );
        assert_eq!(resp.throttle_time_ms, 7);
        assert_eq!(resp.to_bytes(2).unwrap(), bytes);
    }

    #[test]
    fn v10_response_bytes() {
        #[rustfmt::skip]
        let bytes = [
            2,                          // responses: compact 1
            2, b't',                    //   name "t"
            2,                          //   partition_responses: compact 1
            0, 0, 0, 0,                 //     index 0
            0, 6,                       //     error_code 6 NOT_LEADER_OR_FOLLOWER
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // base_offset -1
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // log_append_time_ms -1
            0, 0, 0, 0, 0, 0, 0, 0,     //     log_start_offset 0
            1,                          //     record_errors: compact 0
            0,                          //     error_message: compact null
            1,                          //     tagged fields: 1
            0, 9,                       //       tag 0 (current_leader), 9 bytes
            0, 0, 0, 2,                 //         leader_id 2
            0, 0, 0, 5,                 //         leader_epoch 5
            0,                          //         its tagged fields: 0
            0,                          //   topic tagged fields: 0
            0, 0, 0, 0,                 // throttle_time_ms 0
            1,                          // tagged fields: 1
            0, 13,                      //   tag 0 (node_endpoints), 13 bytes
            2,                          //     compact 1
            0, 0, 0, 2,                 //       node_id 2
            2, b'h',                    //       host "h"
            0, 0, 0x23, 0x84,           //       port 9092
            0,                          //       rack null
            0,                          //       tagged fields: 0
        ];
        let resp = ProduceResponse::from_bytes(&bytes, 10).unwrap();
        let p = &resp.responses[0].partition_responses[0];
        assert_eq!(
            (p.error_code, p.base_offset, p.log_start_offset),
            (6, -1, 0)
        );
        assert_eq!(
            (p.current_leader.leader_id, p.current_leader.leader_epoch),
            (2, 5)
        );
        let ep = &resp.node_endpoints[0];
        assert_eq!(
            (ep.node_id, ep.host.as_str(), ep.port, ep.rack.as_deref()),
            (2, "h", 9092, None)
        );
        assert_eq!(resp.to_bytes(10).unwrap(), bytes);
        // v9 has no tagged current_leader: a set one cannot be carried
        assert!(resp.to_bytes(9).is_err());
    }

    #[test]
    fn null_records_round_trip() {
        let req = ProduceRequest {
            acks: -1,
            timeout_ms: 1000,
            topic_data: vec![TopicProduceData {
                name: "t".into(),
                partition_data: vec![PartitionProduceData {
                    index: 0,
                    records: None,
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        };
        for v in [0, 3, 9, 11] {
            let bytes = req.to_bytes(v).unwrap();
            assert_eq!(ProduceRequest::from_bytes(&bytes, v).unwrap(), req);
        }
    }

    #[test]
    fn the_size_hint_bounds_the_encoded_body() {
        let batch = |n: usize| Some(Bytes::from(vec![7u8; n]));
        let req = ProduceRequest {
            transactional_id: Some("txn-1".into()),
            acks: -1,
            timeout_ms: 1000,
            topic_data: (0..3)
                .map(|t| TopicProduceData {
                    name: format!("topic-{t}"),
                    partition_data: (0..4)
                        .map(|p| PartitionProduceData {
                            index: p,
                            records: if p == 3 { None } else { batch(1000 * p as usize) },
                            ..Default::default()
                        })
                        .collect(),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        };
        for v in 3..=12 {
            let len = req.to_bytes(v).unwrap().len();
            let hint = req.encoded_size_hint();
            assert!(len <= hint, "v{v}: {len} bytes, hint {hint}");
            assert!(hint - len < 512, "v{v}: hint {hint} far above {len}");
        }
    }
}
