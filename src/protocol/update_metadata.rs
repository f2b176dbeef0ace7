//! UpdateMetadata (API key 6, controller → broker): the cluster metadata a
//! broker caches. Versions 0–8, flexible from 6; topic IDs from v7 (KIP-516).

use super::codec::{kafka_message, kafka_struct};
use super::Request;
use crate::wire::Uuid;

kafka_struct! {
    /// Pushes partition states and live brokers to a broker.
    pub struct UpdateMetadataRequest {
        /// The controller's broker ID.
        controller_id: i32 {},
        /// Whether the controller ID is a KRaft controller during migration (KIP-866).
        is_k_raft_controller: bool { versions = 8.. },
        /// 0 unknown, 1 incremental, 2 full snapshot (tagged).
        _type: i8 { versions = 8.., tag = 0 },
        /// The controller epoch.
        controller_epoch: i32 {},
        /// The receiving broker's epoch.
        broker_epoch: i64 { versions = 5.., default = -1, ignorable = true },
        /// Each partition, with its topic name.
        ungrouped_partition_states: Vec<UpdateMetadataPartitionState> { versions = 0..=4 },
        /// Each topic.
        topic_states: Vec<UpdateMetadataTopicState> { versions = 5.. },
        /// The live brokers.
        live_brokers: Vec<UpdateMetadataBroker> {},
    }

    /// One partition's state.
    pub struct UpdateMetadataPartitionState {
        /// The topic name.
        topic_name: String { versions = 0..=4, ignorable = true },
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
        /// The ZooKeeper version.
        zk_version: i32 {},
        /// All replica IDs.
        replicas: Vec<i32> {},
        /// The offline replica IDs.
        offline_replicas: Vec<i32> { versions = 4.., ignorable = true },
    }

    /// One topic's partitions (v5+).
    pub struct UpdateMetadataTopicState {
        /// The topic name.
        topic_name: String {},
        /// The topic ID.
        topic_id: Uuid { versions = 7.., ignorable = true },
        /// Each partition's state.
        partition_states: Vec<UpdateMetadataPartitionState> {},
    }

    /// One live broker.
    pub struct UpdateMetadataBroker {
        /// The broker ID.
        id: i32 {},
        /// Its host name.
        v0_host: String { versions = 0..=0, ignorable = true },
        /// Its port.
        v0_port: i32 { versions = 0..=0, ignorable = true },
        /// Its endpoints.
        endpoints: Vec<UpdateMetadataEndpoint> { versions = 1.., ignorable = true },
        /// Its rack, or null; defaults to "" as the schema gives no default.
        rack: Option<String> { versions = 2.., nullable = 0.., default = Some(String::new()), ignorable = true },
    }

    /// One broker endpoint (v1+).
    pub struct UpdateMetadataEndpoint {
        /// The port.
        port: i32 {},
        /// The host name.
        host: String {},
        /// The listener name.
        listener: String { versions = 3.., ignorable = true },
        /// The security protocol type.
        security_protocol: i16 {},
    }

    /// The broker's result.
    pub struct UpdateMetadataResponse {
        /// The error code.
        error_code: i16 {},
    }
}

kafka_message!(
    UpdateMetadataRequest,
    key = 6,
    versions = 0..=8,
    flexible = 6
);
kafka_message!(
    UpdateMetadataResponse,
    key = 6,
    versions = 0..=8,
    flexible = 6
);

impl Request for UpdateMetadataRequest {
    type Response = UpdateMetadataResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<UpdateMetadataRequest, kp::UpdateMetadataRequest>();
        crate::protocol::tests::check::<UpdateMetadataResponse, kp::UpdateMetadataResponse>();
    }

    #[test]
    fn v0_request_bytes() {
        #[rustfmt::skip]
        let bytes = [
            0, 0, 0, 1,       // controller_id 1
            0, 0, 0, 5,       // controller_epoch 5
            0, 0, 0, 1,       // ungrouped_partition_states: 1
            0, 1, b't',       //   topic_name "t"
            0, 0, 0, 0,       //   partition_index 0
            0, 0, 0, 5,       //   controller_epoch 5
            0, 0, 0, 1,       //   leader 1
            0, 0, 0, 7,       //   leader_epoch 7
            0, 0, 0, 1,       //   isr: 1
            0, 0, 0, 1,       //     1
            0, 0, 0, 9,       //   zk_version 9
            0, 0, 0, 1,       //   replicas: 1
            0, 0, 0, 1,       //     1
            0, 0, 0, 1,       // live_brokers: 1
            0, 0, 0, 1,       //   id 1
            0, 1, b'h',       //   v0_host "h"
            0, 0, 0x23, 0x84, //   v0_port 9092
        ];
        let req = UpdateMetadataRequest::from_bytes(&bytes, 0).unwrap();
        assert_eq!(
            (req.controller_id, req.controller_epoch, req.broker_epoch),
            (1, 5, -1)
        );
        let p = &req.ungrouped_partition_states[0];
        assert_eq!(
            (
                p.topic_name.as_str(),
                p.leader,
                p.isr.as_slice(),
                p.zk_version
            ),
            ("t", 1, &[1][..], 9)
        );
        let b = &req.live_brokers[0];
        assert_eq!(
            (b.id, b.v0_host.as_str(), b.v0_port, b.rack.as_deref()),
            (1, "h", 9092, Some(""))
        );
        assert_eq!(req.to_bytes(0).unwrap(), bytes);
    }

    #[test]
    fn v8_request_bytes() {
        let id = Uuid::from_u64_pair(0x0102_0304_0506_0708, 0x090a_0b0c_0d0e_0f10);
        #[rustfmt::skip]
        let bytes = [
            0, 0, 0, 1,                // controller_id 1
            0,                         // is_k_raft_controller false
            0, 0, 0, 5,                // controller_epoch 5
            0, 0, 0, 0, 0, 0, 0, 4,    // broker_epoch 4
            2,                         // topic_states: compact, 1
            2, b't',                   //   topic_name "t"
            1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, // topic_id
            1,                         //   partition_states: empty
            0,                         //   tagged fields: none
            2,                         // live_brokers: compact, 1
            0, 0, 0, 1,                //   id 1
            2,                         //   endpoints: 1
            0, 0, 0x23, 0x84,          //     port 9092
            2, b'h',                   //     host "h"
            2, b'L',                   //     listener "L"
            0, 0,                      //     security_protocol 0 (PLAINTEXT)
            0,                         //     tagged fields: none
            0,                         //   rack: null
            0,                         //   tagged fields: none
            1,                         // tagged fields: 1
            0, 1, 2,                   //   tag 0 (type), 1 byte, 2 = full snapshot
        ];
        let req = UpdateMetadataRequest::from_bytes(&bytes, 8).unwrap();
        assert_eq!((req._type, req.broker_epoch), (2, 4));
        assert_eq!(req.topic_states[0].topic_id, id);
        let e = &req.live_brokers[0].endpoints[0];
        assert_eq!(
            (e.port, e.host.as_str(), e.listener.as_str()),
            (9092, "h", "L")
        );
        assert_eq!(req.live_brokers[0].rack, None);
        assert_eq!(req.to_bytes(8).unwrap(), bytes);
        // the tagged type exists only from v8
        assert!(req.to_bytes(7).is_err());
    }
}
