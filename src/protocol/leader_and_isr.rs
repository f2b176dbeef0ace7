//! LeaderAndIsr (API key 4, controller → broker): partition leadership and ISR.
//! Versions 0–7, flexible from 4; topic IDs from v5 (KIP-516).

use super::codec::{kafka_message, kafka_struct};
use super::Request;
use crate::wire::Uuid;

kafka_struct! {
    /// Tells a broker which partitions it leads or follows.
    pub struct LeaderAndIsrRequest {
        /// The controller's broker ID.
        controller_id: i32 {},
        /// Whether the controller ID is a KRaft controller during migration (KIP-866).
        is_k_raft_controller: bool { versions = 7.. },
        /// The controller epoch.
        controller_epoch: i32 {},
        /// The receiving broker's epoch.
        broker_epoch: i64 { versions = 2.., default = -1, ignorable = true },
        /// Whether the request lists all topics (full) or only changes.
        _type: i8 { versions = 5.. },
        /// Each partition, with its topic name.
        ungrouped_partition_states: Vec<LeaderAndIsrPartitionState> { versions = 0..=1 },
        /// Each topic.
        topic_states: Vec<LeaderAndIsrTopicState> { versions = 2.. },
        /// The live leaders.
        live_leaders: Vec<LeaderAndIsrLiveLeader> {},
    }

    /// One partition's state.
    pub struct LeaderAndIsrPartitionState {
        /// The topic name.
        topic_name: String { versions = 0..=1, ignorable = true },
        /// The partition index.
        partition_index: i32 {},
        /// The controller epoch.
        controller_epoch: i32 {},
        /// The leader's broker ID.
        leader: i32 {},
        /// The leader epoch.
        leader_epoch: i32 {},
        /// The in-sync replica IDs.
        isr: Vec<i32> {},
        /// The partition epoch (the ZooKeeper version under the legacy controller).
        partition_epoch: i32 {},
        /// The replica IDs.
        replicas: Vec<i32> {},
        /// Replicas being added by a reassignment.
        adding_replicas: Vec<i32> { versions = 3.., ignorable = true },
        /// Replicas being removed by a reassignment.
        removing_replicas: Vec<i32> { versions = 3.., ignorable = true },
        /// Whether the replica is new to this broker.
        is_new: bool { versions = 1.., ignorable = true },
        /// 1 while recovering from an unclean leader election, else 0 (KIP-704).
        leader_recovery_state: i8 { versions = 6.. },
    }

    /// One topic's partitions (v2+).
    pub struct LeaderAndIsrTopicState {
        /// The topic name.
        topic_name: String {},
        /// The topic ID.
        topic_id: Uuid { versions = 5.., ignorable = true },
        /// Each partition's state.
        partition_states: Vec<LeaderAndIsrPartitionState> {},
    }

    /// One live leader.
    pub struct LeaderAndIsrLiveLeader {
        /// The leader's broker ID.
        broker_id: i32 {},
        /// Its host name.
        host_name: String {},
        /// Its port.
        port: i32 {},
    }

    /// The broker's result.
    pub struct LeaderAndIsrResponse {
        /// The top-level error code.
        error_code: i16 {},
        /// Each partition's error.
        partition_errors: Vec<LeaderAndIsrPartitionError> { versions = 0..=4 },
        /// Each topic's errors, by topic ID.
        topics: Vec<LeaderAndIsrTopicError> { versions = 5.. },
    }

    /// One partition's error.
    pub struct LeaderAndIsrPartitionError {
        /// The topic name.
        topic_name: String { versions = 0..=4, ignorable = true },
        /// The partition index.
        partition_index: i32 {},
        /// The partition's error code.
        error_code: i16 {},
    }

    /// One topic's partition errors (v5+).
    pub struct LeaderAndIsrTopicError {
        /// The topic ID.
        topic_id: Uuid {},
        /// Each partition's error.
        partition_errors: Vec<LeaderAndIsrPartitionError> {},
    }
}

kafka_message!(LeaderAndIsrRequest, key = 4, versions = 0..=7, flexible = 4);
kafka_message!(
    LeaderAndIsrResponse,
    key = 4,
    versions = 0..=7,
    flexible = 4
);

impl Request for LeaderAndIsrRequest {
    type Response = LeaderAndIsrResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<LeaderAndIsrRequest, kp::LeaderAndIsrRequest>();
        crate::protocol::tests::check::<LeaderAndIsrResponse, kp::LeaderAndIsrResponse>();
    }

    #[test]
    fn v1_response_bytes() {
        #[rustfmt::skip]
        let bytes = [
            0, 0,             // error_code
            0, 0, 0, 1,       // partition_errors: 1
            0, 1, b't',       //   topic_name "t"
            0, 0, 0, 2,       //   partition_index 2
            0, 56,            //   error_code 56 (KAFKA_STORAGE_ERROR)
        ];
        let resp = LeaderAndIsrResponse::from_bytes(&bytes, 1).unwrap();
        assert_eq!(resp.error_code, 0);
        assert_eq!(resp.partition_errors.len(), 1);
        let p = &resp.partition_errors[0];
        assert_eq!(
            (p.topic_name.as_str(), p.partition_index, p.error_code),
            ("t", 2, 56)
        );
        assert_eq!(resp.to_bytes(1).unwrap(), bytes);
        // topics by ID cannot be carried before v5
        let by_id = LeaderAndIsrResponse {
            topics: vec![LeaderAndIsrTopicError::default()],
            ..Default::default()
        };
        assert!(by_id.to_bytes(4).is_err());
    }

    #[test]
    fn v5_response_bytes() {
        let id = Uuid::from_u64_pair(0x0102_0304_0506_0708, 0x090a_0b0c_0d0e_0f10);
        #[rustfmt::skip]
        let bytes = [
            0, 0,             // error_code
            2,                // topics: compact array, 1
            1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, // topic_id
            2,                //   partition_errors: 1 (no topic_name from v5)
            0, 0, 0, 3,       //     partition_index 3
            0, 6,             //     error_code 6 (NOT_LEADER_OR_FOLLOWER)
            0,                //     tagged fields: none
            0,                //   tagged fields: none
            0,                // tagged fields: none
        ];
        let resp = LeaderAndIsrResponse::from_bytes(&bytes, 5).unwrap();
        assert_eq!(resp.topics.len(), 1);
        assert_eq!(resp.topics[0].topic_id, id);
        let p = &resp.topics[0].partition_errors[0];
        assert_eq!((p.partition_index, p.error_code), (3, 6));
        assert_eq!(resp.to_bytes(5).unwrap(), bytes);
    }

    #[test]
    fn v7_request_bytes() {
        let req = LeaderAndIsrRequest {
            controller_id: 1,
            is_k_raft_controller: true,
            controller_epoch: 2,
            broker_epoch: 3,
            _type: 2,
            ..Default::default()
        };
        #[rustfmt::skip]
        let bytes = [
            0, 0, 0, 1,                // controller_id
            1,                         // is_k_raft_controller
            0, 0, 0, 2,                // controller_epoch
            0, 0, 0, 0, 0, 0, 0, 3,    // broker_epoch
            2,                         // type (full)
            1,                         // topic_states: compact, empty
            1,                         // live_leaders: compact, empty
            0,                         // tagged fields
        ];
        assert_eq!(req.to_bytes(7).unwrap(), bytes);
        assert_eq!(LeaderAndIsrRequest::from_bytes(&bytes, 7).unwrap(), req);
        // the KRaft flag is not ignorable before v7
        assert!(req.to_bytes(6).is_err());
    }
}
