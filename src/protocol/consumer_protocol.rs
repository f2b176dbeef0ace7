//! The consumer protocol's embedded data (not API messages): the subscription
//! a consumer sends in JoinGroup protocol metadata and the assignment the
//! leader hands out through SyncGroup. Versions 0–3, never flexible; owned
//! partitions from v1 (KIP-429), generation from v2, rack from v3 (KIP-881).
//!
//! On the wire each blob starts with its i16 version; use
//! [`encode_subscription`] / [`decode_subscription`] and
//! [`encode_assignment`] / [`decode_assignment`] for that framing.

use super::codec::{kafka_message, kafka_struct};
use super::Message;
use crate::wire::{Bytes, DecodeError, EncodeError, Reader, Writer};

kafka_struct! {
    /// What a consumer subscribes to, sent as its JoinGroup protocol metadata.
    pub struct ConsumerProtocolSubscription {
        /// The subscribed topics.
        topics: Vec<String> {},
        /// Assignor-specific user data, or null.
        user_data: Option<Bytes> { nullable = 0.. },
        /// The partitions the consumer owns now, for cooperative rebalancing.
        owned_partitions: Vec<TopicPartition> { versions = 1.., ignorable = true },
        /// The generation of the owned partitions, or -1.
        generation_id: i32 { versions = 2.., default = -1, ignorable = true },
        /// The consumer's rack, or null.
        rack_id: Option<String> { versions = 3.., nullable = 3.., ignorable = true },
    }

    /// Partitions of one topic owned by a subscriber (v1+).
    pub struct TopicPartition {
        /// The topic name.
        topic: String {},
        /// The partition indexes.
        partitions: Vec<i32> {},
    }

    /// The partitions the leader assigned to one consumer, sent through SyncGroup.
    pub struct ConsumerProtocolAssignment {
        /// The assigned partitions, by topic.
        assigned_partitions: Vec<AssignmentTopicPartition> {},
        /// Assignor-specific user data, or null.
        user_data: Option<Bytes> { nullable = 0.. },
    }

    /// Assigned partitions of one topic.
    pub struct AssignmentTopicPartition {
        /// The topic name.
        topic: String {},
        /// The partition indexes.
        partitions: Vec<i32> {},
    }
}

kafka_message!(ConsumerProtocolSubscription, key = -1, versions = 0..=3);
kafka_message!(ConsumerProtocolAssignment, key = -1, versions = 0..=3);

/// Encodes a subscription at `version`, prefixed with that version as the
/// Java client writes it.
///
/// # Errors
/// If the version is not 0–3 or a set field cannot be carried by it.
pub fn encode_subscription(
    subscription: &ConsumerProtocolSubscription,
    version: i16,
) -> Result<Vec<u8>, EncodeError> {
    encode_versioned(subscription, version)
}

/// Decodes a version-prefixed subscription and returns the version as
/// written. A version newer than 3 is read as v3 and its trailing bytes
/// ignored, since newer versions only append fields (as the Java client
/// assumes).
///
/// # Errors
/// On truncated or malformed input, a negative version, or (for versions
/// 0–3) bytes left over.
pub fn decode_subscription(buf: &[u8]) -> Result<(i16, ConsumerProtocolSubscription), DecodeError> {
    decode_versioned(buf, "subscription")
}

/// Encodes an assignment at `version`, prefixed with that version as the
/// Java client writes it.
///
/// # Errors
/// If the version is not 0–3 or a set field cannot be carried by it.
pub fn encode_assignment(
    assignment: &ConsumerProtocolAssignment,
    version: i16,
) -> Result<Vec<u8>, EncodeError> {
    encode_versioned(assignment, version)
}

/// Decodes a version-prefixed assignment and returns the version as written.
/// A version newer than 3 is read as v3 and its trailing bytes ignored.
///
/// # Errors
/// On truncated or malformed input (an empty buffer included), a negative
/// version, or (for versions 0–3) bytes left over.
pub fn decode_assignment(buf: &[u8]) -> Result<(i16, ConsumerProtocolAssignment), DecodeError> {
    decode_versioned(buf, "assignment")
}

fn encode_versioned<M: Message>(m: &M, version: i16) -> Result<Vec<u8>, EncodeError> {
    let mut w = Writer::new();
    w.i16(version);
    m.encode(&mut w, version)?;
    Ok(w.into_vec())
}

fn decode_versioned<M: Message>(buf: &[u8], what: &str) -> Result<(i16, M), DecodeError> {
    let named = |mut e: DecodeError| {
        e.reason = format!("consumer protocol {what}: {}", e.reason);
        e
    };
    let mut r = Reader::new(buf);
    let version = r.i16().map_err(named)?;
    if version < M::MIN_VERSION {
        return Err(named(r.error(format!("unsupported version {version}"))));
    }
    if version > M::MAX_VERSION {
        let m = M::decode(&mut r, M::MAX_VERSION).map_err(named)?;
        return Ok((version, m));
    }
    let m = M::decode(&mut r, version).map_err(named)?;
    if !r.is_empty() {
        return Err(named(r.error(format!("{} bytes left over", r.remaining()))));
    }
    Ok((version, m))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Subscription v0 to ["a", "b"] with null user data, as the Java client writes it.
    const JAVA_SUBSCRIPTION_V0: [u8; 16] = [
        0x00, 0x00, // version 0
        0x00, 0x00, 0x00, 0x02, // topics: 2
        0x00, 0x01, 0x61, // "a"
        0x00, 0x01, 0x62, // "b"
        0xff, 0xff, 0xff, 0xff, // user_data null
    ];

    fn subscription_ab() -> ConsumerProtocolSubscription {
        ConsumerProtocolSubscription {
            topics: vec!["a".into(), "b".into()],
            user_data: None,
            ..Default::default()
        }
    }

    #[test]
    fn subscription_v0_java_bytes() {
        let (v, s) = decode_subscription(&JAVA_SUBSCRIPTION_V0).unwrap();
        assert_eq!((v, &s), (0, &subscription_ab()));
        assert_eq!(encode_subscription(&s, 0).unwrap(), JAVA_SUBSCRIPTION_V0);
        for n in 0..JAVA_SUBSCRIPTION_V0.len() {
            assert!(
                decode_subscription(&JAVA_SUBSCRIPTION_V0[..n]).is_err(),
                "prefix {n}"
            );
        }
        // bytes left over at a known version are an error
        let mut extra = JAVA_SUBSCRIPTION_V0.to_vec();
        extra.push(0);
        assert!(decode_subscription(&extra).is_err());
    }

    #[test]
    fn subscription_v3_bytes() {
        let bytes = [
            0x00, 0x03, // version 3
            0x00, 0x00, 0x00, 0x01, // topics: 1
            0x00, 0x01, b't', // "t"
            0x00, 0x00, 0x00, 0x01, 0x55, // user_data
            0x00, 0x00, 0x00, 0x01, // owned_partitions: 1
            0x00, 0x01, b't', // topic
            0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, // [0, 1]
            0x00, 0x00, 0x00, 0x05, // generation_id
            0x00, 0x02, b'r', b'1', // rack_id
        ];
        let sub = ConsumerProtocolSubscription {
            topics: vec!["t".into()],
            user_data: Some(Bytes::from(vec![0x55])),
            owned_partitions: vec![TopicPartition {
                topic: "t".into(),
                partitions: vec![0, 1],
                ..Default::default()
            }],
            generation_id: 5,
            rack_id: Some("r1".into()),
            ..Default::default()
        };
        assert_eq!(decode_subscription(&bytes).unwrap(), (3, sub.clone()));
        assert_eq!(encode_subscription(&sub, 3).unwrap(), bytes);
        // the newer fields are ignorable: v0 drops them
        assert_eq!(
            encode_subscription(&sub, 0).unwrap(),
            [&[0u8, 0][..], &bytes[2..14]].concat()
        );
        assert!(encode_subscription(&sub, 4).is_err());
        assert!(encode_subscription(&sub, -1).is_err());
    }

    #[test]
    fn newer_versions_read_as_v3() {
        let sub = ConsumerProtocolSubscription {
            generation_id: 9,
            ..subscription_ab()
        };
        let mut bytes = encode_subscription(&sub, 3).unwrap();
        bytes[1] = 7; // version 7, with a field v3 does not know
        bytes.extend_from_slice(&[0x00, 0x00, 0x00, 0x2a]);
        assert_eq!(decode_subscription(&bytes).unwrap(), (7, sub));

        let asg = ConsumerProtocolAssignment::default();
        let mut bytes = encode_assignment(&asg, 3).unwrap();
        bytes[1] = 4;
        bytes.push(0xff);
        assert_eq!(decode_assignment(&bytes).unwrap(), (4, asg));
        // still a truncated v3 body is an error
        assert!(decode_assignment(&[0x00, 0x04, 0x00, 0x00, 0x00, 0x00]).is_err());
    }

    #[test]
    fn bad_versions() {
        assert!(decode_subscription(&[0xff, 0xff, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]).is_err());
        assert!(decode_assignment(&[]).is_err());
        let e = decode_assignment(&[0x00]).unwrap_err();
        assert!(e.reason.starts_with("consumer protocol assignment"), "{e}");
    }

    #[test]
    fn assignment_v0_java_bytes() {
        let bytes = [
            0x00, 0x00, // version 0
            0x00, 0x00, 0x00, 0x01, // assigned_partitions: 1
            0x00, 0x01, b't', // topic
            0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, // [0, 2]
            0xff, 0xff, 0xff, 0xff, // user_data null
        ];
        let asg = ConsumerProtocolAssignment {
            assigned_partitions: vec![AssignmentTopicPartition {
                topic: "t".into(),
                partitions: vec![0, 2],
                ..Default::default()
            }],
            user_data: None,
            ..Default::default()
        };
        assert_eq!(decode_assignment(&bytes).unwrap(), (0, asg.clone()));
        assert_eq!(encode_assignment(&asg, 0).unwrap(), bytes);
        // v1–3 have the same layout
        let (v, again) = decode_assignment(&[&[0x00, 0x03][..], &bytes[2..]].concat()).unwrap();
        assert_eq!((v, again), (3, asg));
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<
            ConsumerProtocolSubscription,
            kp::ConsumerProtocolSubscription,
        >();
        crate::protocol::tests::check::<ConsumerProtocolAssignment, kp::ConsumerProtocolAssignment>(
        );
    }
}
