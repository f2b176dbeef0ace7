//! Generated from the Rust tables by `src/ffi/descriptors.rs` (error codes:
//! `crate::error::err_descs`; enumerations: `crate::protocol::enums::ENUMS`);
//! do not edit. Regenerate with
//! `GREGOR_REGENERATE=1 cargo test --lib ffi::descriptors`.
//!
//! Error codes are librdkafka's numbers (`RD_KAFKA_RESP_ERR_*`): local
//! (negative) codes have two underscores.

#![allow(missing_docs)]

use std::ffi::c_int;

/// Local: Bad message format
pub const GREGOR_ERR__BAD_MSG: c_int = -199;
/// Local: Invalid compressed data
pub const GREGOR_ERR__BAD_COMPRESSION: c_int = -198;
/// Local: Broker handle destroyed
pub const GREGOR_ERR__DESTROY: c_int = -197;
/// Local: Communication failure with broker
pub const GREGOR_ERR__FAIL: c_int = -196;
/// Local: Broker transport failure
pub const GREGOR_ERR__TRANSPORT: c_int = -195;
/// Local: Host resolution failure
pub const GREGOR_ERR__RESOLVE: c_int = -193;
/// Local: Message timed out
pub const GREGOR_ERR__MSG_TIMED_OUT: c_int = -192;
/// Broker: No more messages
pub const GREGOR_ERR__PARTITION_EOF: c_int = -191;
/// Local: Unknown partition
pub const GREGOR_ERR__UNKNOWN_PARTITION: c_int = -190;
/// Local: Unknown topic
pub const GREGOR_ERR__UNKNOWN_TOPIC: c_int = -188;
/// Local: All broker connections are down
pub const GREGOR_ERR__ALL_BROKERS_DOWN: c_int = -187;
/// Local: Invalid argument or configuration
pub const GREGOR_ERR__INVALID_ARG: c_int = -186;
/// Local: Timed out
pub const GREGOR_ERR__TIMED_OUT: c_int = -185;
/// Local: Queue full
pub const GREGOR_ERR__QUEUE_FULL: c_int = -184;
/// Local: SSL error
pub const GREGOR_ERR__SSL: c_int = -181;
/// Local: Conflicting use
pub const GREGOR_ERR__CONFLICT: c_int = -173;
/// Local: Erroneous state
pub const GREGOR_ERR__STATE: c_int = -172;
/// Local: Not implemented
pub const GREGOR_ERR__NOT_IMPLEMENTED: c_int = -170;
/// Local: Authentication failure
pub const GREGOR_ERR__AUTHENTICATION: c_int = -169;
/// Local: No offset stored
pub const GREGOR_ERR__NO_OFFSET: c_int = -168;
/// Local: Required feature not supported by broker
pub const GREGOR_ERR__UNSUPPORTED_FEATURE: c_int = -165;
/// Local: No such entry
pub const GREGOR_ERR__NOENT: c_int = -156;
/// Local: Purged in queue
pub const GREGOR_ERR__PURGE_QUEUE: c_int = -152;
/// Local: Purged in flight
pub const GREGOR_ERR__PURGE_INFLIGHT: c_int = -151;
/// Local: Fatal error
pub const GREGOR_ERR__FATAL: c_int = -150;
/// Local: Maximum application poll interval (max.poll.interval.ms) exceeded
pub const GREGOR_ERR__MAX_POLL_EXCEEDED: c_int = -147;
/// Local: Invalid configuration property or value
pub const GREGOR_ERR__INVALID_CONFIG: c_int = -145;
/// Local: No offset to automatically reset to
pub const GREGOR_ERR__AUTO_OFFSET_RESET: c_int = -140;
/// The server experienced an unexpected error when processing the request.
pub const GREGOR_ERR_UNKNOWN_SERVER_ERROR: c_int = -1;
/// Success
pub const GREGOR_ERR_NO_ERROR: c_int = 0;
/// The requested offset is not within the range of offsets maintained by the server.
pub const GREGOR_ERR_OFFSET_OUT_OF_RANGE: c_int = 1;
/// This message has failed its CRC checksum, exceeds the valid size, has a null key for a compacted topic, or is otherwise corrupt.
pub const GREGOR_ERR_CORRUPT_MESSAGE: c_int = 2;
/// This server does not host this topic-partition.
pub const GREGOR_ERR_UNKNOWN_TOPIC_OR_PARTITION: c_int = 3;
/// The requested fetch size is invalid.
pub const GREGOR_ERR_INVALID_FETCH_SIZE: c_int = 4;
/// There is no leader for this topic-partition as we are in the middle of a leadership election.
pub const GREGOR_ERR_LEADER_NOT_AVAILABLE: c_int = 5;
/// For requests intended only for the leader, this error indicates that the broker is not the current leader. For requests intended for any replica, this error indicates that the broker is not a replica of the topic partition.
pub const GREGOR_ERR_NOT_LEADER_OR_FOLLOWER: c_int = 6;
/// The request timed out.
pub const GREGOR_ERR_REQUEST_TIMED_OUT: c_int = 7;
/// The broker is not available.
pub const GREGOR_ERR_BROKER_NOT_AVAILABLE: c_int = 8;
/// The replica is not available for the requested topic-partition. Produce/Fetch requests and other requests intended only for the leader or follower return NOT_LEADER_OR_FOLLOWER if the broker is not a replica of the topic-partition.
pub const GREGOR_ERR_REPLICA_NOT_AVAILABLE: c_int = 9;
/// The request included a message larger than the max message size the server will accept.
pub const GREGOR_ERR_MESSAGE_TOO_LARGE: c_int = 10;
/// The controller moved to another broker.
pub const GREGOR_ERR_STALE_CONTROLLER_EPOCH: c_int = 11;
/// The metadata field of the offset request was too large.
pub const GREGOR_ERR_OFFSET_METADATA_TOO_LARGE: c_int = 12;
/// The server disconnected before a response was received.
pub const GREGOR_ERR_NETWORK_EXCEPTION: c_int = 13;
/// The coordinator is loading and hence can't process requests.
pub const GREGOR_ERR_COORDINATOR_LOAD_IN_PROGRESS: c_int = 14;
/// The coordinator is not available.
pub const GREGOR_ERR_COORDINATOR_NOT_AVAILABLE: c_int = 15;
/// This is not the correct coordinator.
pub const GREGOR_ERR_NOT_COORDINATOR: c_int = 16;
/// The request attempted to perform an operation on an invalid topic.
pub const GREGOR_ERR_INVALID_TOPIC_EXCEPTION: c_int = 17;
/// The request included message batch larger than the configured segment size on the server.
pub const GREGOR_ERR_RECORD_LIST_TOO_LARGE: c_int = 18;
/// Messages are rejected since there are fewer in-sync replicas than required.
pub const GREGOR_ERR_NOT_ENOUGH_REPLICAS: c_int = 19;
/// Messages are written to the log, but to fewer in-sync replicas than required.
pub const GREGOR_ERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND: c_int = 20;
/// Produce request specified an invalid value for required acks.
pub const GREGOR_ERR_INVALID_REQUIRED_ACKS: c_int = 21;
/// Specified group generation id is not valid.
pub const GREGOR_ERR_ILLEGAL_GENERATION: c_int = 22;
/// The group member's supported protocols are incompatible with those of existing members or first group member tried to join with empty protocol type or empty protocol list.
pub const GREGOR_ERR_INCONSISTENT_GROUP_PROTOCOL: c_int = 23;
/// The group id is invalid.
pub const GREGOR_ERR_INVALID_GROUP_ID: c_int = 24;
/// The coordinator is not aware of this member.
pub const GREGOR_ERR_UNKNOWN_MEMBER_ID: c_int = 25;
/// The session timeout is not within the range allowed by the broker (as configured by group.min.session.timeout.ms and group.max.session.timeout.ms).
pub const GREGOR_ERR_INVALID_SESSION_TIMEOUT: c_int = 26;
/// The group is rebalancing, so a rejoin is needed.
pub const GREGOR_ERR_REBALANCE_IN_PROGRESS: c_int = 27;
/// The committing offset data size is not valid.
pub const GREGOR_ERR_INVALID_COMMIT_OFFSET_SIZE: c_int = 28;
/// Topic authorization failed.
pub const GREGOR_ERR_TOPIC_AUTHORIZATION_FAILED: c_int = 29;
/// Group authorization failed.
pub const GREGOR_ERR_GROUP_AUTHORIZATION_FAILED: c_int = 30;
/// Cluster authorization failed.
pub const GREGOR_ERR_CLUSTER_AUTHORIZATION_FAILED: c_int = 31;
/// The timestamp of the message is out of acceptable range.
pub const GREGOR_ERR_INVALID_TIMESTAMP: c_int = 32;
/// The broker does not support the requested SASL mechanism.
pub const GREGOR_ERR_UNSUPPORTED_SASL_MECHANISM: c_int = 33;
/// Request is not valid given the current SASL state.
pub const GREGOR_ERR_ILLEGAL_SASL_STATE: c_int = 34;
/// The version of API is not supported.
pub const GREGOR_ERR_UNSUPPORTED_VERSION: c_int = 35;
/// Topic with this name already exists.
pub const GREGOR_ERR_TOPIC_ALREADY_EXISTS: c_int = 36;
/// Number of partitions is below 1.
pub const GREGOR_ERR_INVALID_PARTITIONS: c_int = 37;
/// Replication factor is below 1 or larger than the number of available brokers.
pub const GREGOR_ERR_INVALID_REPLICATION_FACTOR: c_int = 38;
/// Replica assignment is invalid.
pub const GREGOR_ERR_INVALID_REPLICA_ASSIGNMENT: c_int = 39;
/// Configuration is invalid.
pub const GREGOR_ERR_INVALID_CONFIG: c_int = 40;
/// This is not the correct controller for this cluster.
pub const GREGOR_ERR_NOT_CONTROLLER: c_int = 41;
/// This most likely occurs because of a request being malformed by the client library or the message was sent to an incompatible broker. See the broker logs for more details.
pub const GREGOR_ERR_INVALID_REQUEST: c_int = 42;
/// The message format version on the broker does not support the request.
pub const GREGOR_ERR_UNSUPPORTED_FOR_MESSAGE_FORMAT: c_int = 43;
/// Request parameters do not satisfy the configured policy.
pub const GREGOR_ERR_POLICY_VIOLATION: c_int = 44;
/// The broker received an out of order sequence number.
pub const GREGOR_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER: c_int = 45;
/// The broker received a duplicate sequence number.
pub const GREGOR_ERR_DUPLICATE_SEQUENCE_NUMBER: c_int = 46;
/// Producer attempted to produce with an old epoch.
pub const GREGOR_ERR_INVALID_PRODUCER_EPOCH: c_int = 47;
/// The producer attempted a transactional operation in an invalid state.
pub const GREGOR_ERR_INVALID_TXN_STATE: c_int = 48;
/// The producer attempted to use a producer id which is not currently assigned to its transactional id.
pub const GREGOR_ERR_INVALID_PRODUCER_ID_MAPPING: c_int = 49;
/// The transaction timeout is larger than the maximum value allowed by the broker (as configured by transaction.max.timeout.ms).
pub const GREGOR_ERR_INVALID_TRANSACTION_TIMEOUT: c_int = 50;
/// The producer attempted to update a transaction while another concurrent operation on the same transaction was ongoing.
pub const GREGOR_ERR_CONCURRENT_TRANSACTIONS: c_int = 51;
/// Indicates that the transaction coordinator sending a WriteTxnMarker is no longer the current coordinator for a given producer.
pub const GREGOR_ERR_TRANSACTION_COORDINATOR_FENCED: c_int = 52;
/// Transactional Id authorization failed.
pub const GREGOR_ERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED: c_int = 53;
/// Security features are disabled.
pub const GREGOR_ERR_SECURITY_DISABLED: c_int = 54;
/// The broker did not attempt to execute this operation. This may happen for batched RPCs where some operations in the batch failed, causing the broker to respond without trying the rest.
pub const GREGOR_ERR_OPERATION_NOT_ATTEMPTED: c_int = 55;
/// Disk error when trying to access log file on the disk.
pub const GREGOR_ERR_KAFKA_STORAGE_ERROR: c_int = 56;
/// The user-specified log directory is not found in the broker config.
pub const GREGOR_ERR_LOG_DIR_NOT_FOUND: c_int = 57;
/// SASL Authentication failed.
pub const GREGOR_ERR_SASL_AUTHENTICATION_FAILED: c_int = 58;
/// This exception is raised by the broker if it could not locate the producer metadata associated with the producerId in question. This could happen if, for instance, the producer's records were deleted because their retention time had elapsed. Once the last records of the producerId are removed, the producer's metadata is removed from the broker, and future appends by the producer will return this exception.
pub const GREGOR_ERR_UNKNOWN_PRODUCER_ID: c_int = 59;
/// A partition reassignment is in progress.
pub const GREGOR_ERR_REASSIGNMENT_IN_PROGRESS: c_int = 60;
/// Delegation Token feature is not enabled.
pub const GREGOR_ERR_DELEGATION_TOKEN_AUTH_DISABLED: c_int = 61;
/// Delegation Token is not found on server.
pub const GREGOR_ERR_DELEGATION_TOKEN_NOT_FOUND: c_int = 62;
/// Specified Principal is not valid Owner/Renewer.
pub const GREGOR_ERR_DELEGATION_TOKEN_OWNER_MISMATCH: c_int = 63;
/// Delegation Token requests are not allowed on PLAINTEXT/1-way SSL channels and on delegation token authenticated channels.
pub const GREGOR_ERR_DELEGATION_TOKEN_REQUEST_NOT_ALLOWED: c_int = 64;
/// Delegation Token authorization failed.
pub const GREGOR_ERR_DELEGATION_TOKEN_AUTHORIZATION_FAILED: c_int = 65;
/// Delegation Token is expired.
pub const GREGOR_ERR_DELEGATION_TOKEN_EXPIRED: c_int = 66;
/// Supplied principalType is not supported.
pub const GREGOR_ERR_INVALID_PRINCIPAL_TYPE: c_int = 67;
/// The group is not empty.
pub const GREGOR_ERR_NON_EMPTY_GROUP: c_int = 68;
/// The group id does not exist.
pub const GREGOR_ERR_GROUP_ID_NOT_FOUND: c_int = 69;
/// The fetch session ID was not found.
pub const GREGOR_ERR_FETCH_SESSION_ID_NOT_FOUND: c_int = 70;
/// The fetch session epoch is invalid.
pub const GREGOR_ERR_INVALID_FETCH_SESSION_EPOCH: c_int = 71;
/// There is no listener on the leader broker that matches the listener on which metadata request was processed.
pub const GREGOR_ERR_LISTENER_NOT_FOUND: c_int = 72;
/// Topic deletion is disabled.
pub const GREGOR_ERR_TOPIC_DELETION_DISABLED: c_int = 73;
/// The leader epoch in the request is older than the epoch on the broker.
pub const GREGOR_ERR_FENCED_LEADER_EPOCH: c_int = 74;
/// The leader epoch in the request is newer than the epoch on the broker.
pub const GREGOR_ERR_UNKNOWN_LEADER_EPOCH: c_int = 75;
/// The requesting client does not support the compression type of given partition.
pub const GREGOR_ERR_UNSUPPORTED_COMPRESSION_TYPE: c_int = 76;
/// Broker epoch has changed.
pub const GREGOR_ERR_STALE_BROKER_EPOCH: c_int = 77;
/// The leader high watermark has not caught up from a recent leader election so the offsets cannot be guaranteed to be monotonically increasing.
pub const GREGOR_ERR_OFFSET_NOT_AVAILABLE: c_int = 78;
/// The group member needs to have a valid member id before actually entering a consumer group.
pub const GREGOR_ERR_MEMBER_ID_REQUIRED: c_int = 79;
/// The preferred leader was not available.
pub const GREGOR_ERR_PREFERRED_LEADER_NOT_AVAILABLE: c_int = 80;
/// The group has reached its maximum size.
pub const GREGOR_ERR_GROUP_MAX_SIZE_REACHED: c_int = 81;
/// The broker rejected this static consumer since another consumer with the same group.instance.id has registered with a different member.id.
pub const GREGOR_ERR_FENCED_INSTANCE_ID: c_int = 82;
/// Eligible topic partition leaders are not available.
pub const GREGOR_ERR_ELIGIBLE_LEADERS_NOT_AVAILABLE: c_int = 83;
/// Leader election not needed for topic partition.
pub const GREGOR_ERR_ELECTION_NOT_NEEDED: c_int = 84;
/// No partition reassignment is in progress.
pub const GREGOR_ERR_NO_REASSIGNMENT_IN_PROGRESS: c_int = 85;
/// Deleting offsets of a topic is forbidden while the consumer group is actively subscribed to it.
pub const GREGOR_ERR_GROUP_SUBSCRIBED_TO_TOPIC: c_int = 86;
/// This record has failed the validation on broker and hence will be rejected.
pub const GREGOR_ERR_INVALID_RECORD: c_int = 87;
/// There are unstable offsets that need to be cleared.
pub const GREGOR_ERR_UNSTABLE_OFFSET_COMMIT: c_int = 88;
/// The throttling quota has been exceeded.
pub const GREGOR_ERR_THROTTLING_QUOTA_EXCEEDED: c_int = 89;
/// There is a newer producer with the same transactionalId which fences the current one.
pub const GREGOR_ERR_PRODUCER_FENCED: c_int = 90;
/// A request illegally referred to a resource that does not exist.
pub const GREGOR_ERR_RESOURCE_NOT_FOUND: c_int = 91;
/// A request illegally referred to the same resource twice.
pub const GREGOR_ERR_DUPLICATE_RESOURCE: c_int = 92;
/// Requested credential would not meet criteria for acceptability.
pub const GREGOR_ERR_UNACCEPTABLE_CREDENTIAL: c_int = 93;
/// Indicates that the either the sender or recipient of a voter-only request is not one of the expected voters.
pub const GREGOR_ERR_INCONSISTENT_VOTER_SET: c_int = 94;
/// The given update version was invalid.
pub const GREGOR_ERR_INVALID_UPDATE_VERSION: c_int = 95;
/// Unable to update finalized features due to an unexpected server error.
pub const GREGOR_ERR_FEATURE_UPDATE_FAILED: c_int = 96;
/// Request principal deserialization failed during forwarding. This indicates an internal error on the broker cluster security setup.
pub const GREGOR_ERR_PRINCIPAL_DESERIALIZATION_FAILURE: c_int = 97;
/// Requested snapshot was not found.
pub const GREGOR_ERR_SNAPSHOT_NOT_FOUND: c_int = 98;
/// Requested position is not greater than or equal to zero, and less than the size of the snapshot.
pub const GREGOR_ERR_POSITION_OUT_OF_RANGE: c_int = 99;
/// This server does not host this topic ID.
pub const GREGOR_ERR_UNKNOWN_TOPIC_ID: c_int = 100;
/// This broker ID is already in use.
pub const GREGOR_ERR_DUPLICATE_BROKER_REGISTRATION: c_int = 101;
/// The given broker ID was not registered.
pub const GREGOR_ERR_BROKER_ID_NOT_REGISTERED: c_int = 102;
/// The log's topic ID did not match the topic ID in the request.
pub const GREGOR_ERR_INCONSISTENT_TOPIC_ID: c_int = 103;
/// The clusterId in the request does not match that found on the server.
pub const GREGOR_ERR_INCONSISTENT_CLUSTER_ID: c_int = 104;
/// The transactionalId could not be found.
pub const GREGOR_ERR_TRANSACTIONAL_ID_NOT_FOUND: c_int = 105;
/// The fetch session encountered inconsistent topic ID usage.
pub const GREGOR_ERR_FETCH_SESSION_TOPIC_ID_ERROR: c_int = 106;
/// The new ISR contains at least one ineligible replica.
pub const GREGOR_ERR_INELIGIBLE_REPLICA: c_int = 107;
/// The AlterPartition request successfully updated the partition state but the leader has changed.
pub const GREGOR_ERR_NEW_LEADER_ELECTED: c_int = 108;
/// The requested offset is moved to tiered storage.
pub const GREGOR_ERR_OFFSET_MOVED_TO_TIERED_STORAGE: c_int = 109;
/// The member epoch is fenced by the group coordinator. The member must abandon all its partitions and rejoin.
pub const GREGOR_ERR_FENCED_MEMBER_EPOCH: c_int = 110;
/// The instance ID is still used by another member in the consumer group. That member must leave first.
pub const GREGOR_ERR_UNRELEASED_INSTANCE_ID: c_int = 111;
/// The assignor or its version range is not supported by the consumer group.
pub const GREGOR_ERR_UNSUPPORTED_ASSIGNOR: c_int = 112;
/// The member epoch is stale. The member must retry after receiving its updated member epoch via the ConsumerGroupHeartbeat API.
pub const GREGOR_ERR_STALE_MEMBER_EPOCH: c_int = 113;
/// The request was sent to an endpoint of the wrong type.
pub const GREGOR_ERR_MISMATCHED_ENDPOINT_TYPE: c_int = 114;
/// This endpoint type is not supported yet.
pub const GREGOR_ERR_UNSUPPORTED_ENDPOINT_TYPE: c_int = 115;
/// This controller ID is not known.
pub const GREGOR_ERR_UNKNOWN_CONTROLLER_ID: c_int = 116;
/// Client sent a push telemetry request with an invalid or outdated subscription ID.
pub const GREGOR_ERR_UNKNOWN_SUBSCRIPTION_ID: c_int = 117;
/// Client sent a push telemetry request larger than the maximum size the broker will accept.
pub const GREGOR_ERR_TELEMETRY_TOO_LARGE: c_int = 118;
/// The controller has considered the broker registration to be invalid.
pub const GREGOR_ERR_INVALID_REGISTRATION: c_int = 119;
/// The server encountered an error with the transaction. The client can abort the transaction to continue using this transactional ID.
pub const GREGOR_ERR_TRANSACTION_ABORTABLE: c_int = 120;
/// The record state is invalid. The acknowledgement of delivery could not be completed.
pub const GREGOR_ERR_INVALID_RECORD_STATE: c_int = 121;
/// The share session was not found.
pub const GREGOR_ERR_SHARE_SESSION_NOT_FOUND: c_int = 122;
/// The share session epoch is invalid.
pub const GREGOR_ERR_INVALID_SHARE_SESSION_EPOCH: c_int = 123;
/// The share coordinator rejected the request because the share-group state epoch did not match.
pub const GREGOR_ERR_FENCED_STATE_EPOCH: c_int = 124;
/// The voter key doesn't match the receiving replica's key.
pub const GREGOR_ERR_INVALID_VOTER_KEY: c_int = 125;
/// The voter is already part of the set of voters.
pub const GREGOR_ERR_DUPLICATE_VOTER: c_int = 126;
/// The voter is not part of the set of voters.
pub const GREGOR_ERR_VOTER_NOT_FOUND: c_int = 127;
/// The regular expression is not valid.
pub const GREGOR_ERR_INVALID_REGULAR_EXPRESSION: c_int = 128;
/// Client metadata is stale. The client should rebootstrap to obtain new metadata.
pub const GREGOR_ERR_REBOOTSTRAP_REQUIRED: c_int = 129;
/// The supplied topology is invalid.
pub const GREGOR_ERR_STREAMS_INVALID_TOPOLOGY: c_int = 130;
/// The supplied topology epoch is invalid.
pub const GREGOR_ERR_STREAMS_INVALID_TOPOLOGY_EPOCH: c_int = 131;
/// The supplied topology epoch is outdated.
pub const GREGOR_ERR_STREAMS_TOPOLOGY_FENCED: c_int = 132;
/// The limit of share sessions has been reached.
pub const GREGOR_ERR_SHARE_SESSION_LIMIT_REACHED: c_int = 133;

// ResourceType: crate::protocol::enums::ResourceType
/// A type gregor does not know.
pub const GREGOR_RESOURCE_UNKNOWN: c_int = 0;
/// In a filter: any resource type.
pub const GREGOR_RESOURCE_ANY: c_int = 1;
/// A topic.
pub const GREGOR_RESOURCE_TOPIC: c_int = 2;
/// A consumer group.
pub const GREGOR_RESOURCE_GROUP: c_int = 3;
/// The cluster.
pub const GREGOR_RESOURCE_CLUSTER: c_int = 4;
/// A transactional ID.
pub const GREGOR_RESOURCE_TRANSACTIONAL_ID: c_int = 5;
/// A delegation token.
pub const GREGOR_RESOURCE_DELEGATION_TOKEN: c_int = 6;
/// A user principal.
pub const GREGOR_RESOURCE_USER: c_int = 7;

// ConfigResourceType: crate::protocol::enums::ConfigResourceType
/// A type gregor does not know.
pub const GREGOR_CONFIG_RESOURCE_UNKNOWN: c_int = 0;
/// A topic.
pub const GREGOR_CONFIG_RESOURCE_TOPIC: c_int = 2;
/// A broker (name: its id; "" for the cluster-wide default).
pub const GREGOR_CONFIG_RESOURCE_BROKER: c_int = 4;
/// A broker's loggers (name: the broker id; KIP-412).
pub const GREGOR_CONFIG_RESOURCE_BROKER_LOGGER: c_int = 8;
/// A client-metrics subscription (KIP-714).
pub const GREGOR_CONFIG_RESOURCE_CLIENT_METRICS: c_int = 16;
/// A consumer group (KIP-848).
pub const GREGOR_CONFIG_RESOURCE_GROUP: c_int = 32;

// PatternType: crate::protocol::enums::PatternType
/// A type gregor does not know.
pub const GREGOR_PATTERN_UNKNOWN: c_int = 0;
/// In a filter: any pattern type.
pub const GREGOR_PATTERN_ANY: c_int = 1;
/// In a filter: every binding that would match the name (literal, wildcard and prefixed).
pub const GREGOR_PATTERN_MATCH: c_int = 2;
/// The name is matched exactly (or is the `*` wildcard).
pub const GREGOR_PATTERN_LITERAL: c_int = 3;
/// The name is a prefix.
pub const GREGOR_PATTERN_PREFIXED: c_int = 4;

// AclOperation: crate::protocol::enums::AclOperation
/// An operation gregor does not know.
pub const GREGOR_ACL_OPERATION_UNKNOWN: c_int = 0;
/// In a filter: any operation.
pub const GREGOR_ACL_OPERATION_ANY: c_int = 1;
/// Every operation.
pub const GREGOR_ACL_OPERATION_ALL: c_int = 2;
/// Read.
pub const GREGOR_ACL_OPERATION_READ: c_int = 3;
/// Write.
pub const GREGOR_ACL_OPERATION_WRITE: c_int = 4;
/// Create.
pub const GREGOR_ACL_OPERATION_CREATE: c_int = 5;
/// Delete.
pub const GREGOR_ACL_OPERATION_DELETE: c_int = 6;
/// Alter.
pub const GREGOR_ACL_OPERATION_ALTER: c_int = 7;
/// Describe.
pub const GREGOR_ACL_OPERATION_DESCRIBE: c_int = 8;
/// Inter-broker cluster actions.
pub const GREGOR_ACL_OPERATION_CLUSTER_ACTION: c_int = 9;
/// Describe configs.
pub const GREGOR_ACL_OPERATION_DESCRIBE_CONFIGS: c_int = 10;
/// Alter configs.
pub const GREGOR_ACL_OPERATION_ALTER_CONFIGS: c_int = 11;
/// Idempotent produce.
pub const GREGOR_ACL_OPERATION_IDEMPOTENT_WRITE: c_int = 12;
/// Create delegation tokens.
pub const GREGOR_ACL_OPERATION_CREATE_TOKENS: c_int = 13;
/// Describe delegation tokens.
pub const GREGOR_ACL_OPERATION_DESCRIBE_TOKENS: c_int = 14;
/// Two-phase commit (KIP-939).
pub const GREGOR_ACL_OPERATION_TWO_PHASE_COMMIT: c_int = 15;

// AclPermissionType: crate::protocol::enums::AclPermissionType
/// A permission gregor does not know.
pub const GREGOR_ACL_PERMISSION_UNKNOWN: c_int = 0;
/// In a filter: any permission.
pub const GREGOR_ACL_PERMISSION_ANY: c_int = 1;
/// Deny.
pub const GREGOR_ACL_PERMISSION_DENY: c_int = 2;
/// Allow.
pub const GREGOR_ACL_PERMISSION_ALLOW: c_int = 3;

// ConfigSource: crate::protocol::enums::ConfigSource
/// A source gregor does not know (or a v0 response's non-default value).
pub const GREGOR_CONFIG_SOURCE_UNKNOWN: c_int = 0;
/// Set on the topic.
pub const GREGOR_CONFIG_SOURCE_DYNAMIC_TOPIC: c_int = 1;
/// Set dynamically for this broker.
pub const GREGOR_CONFIG_SOURCE_DYNAMIC_BROKER: c_int = 2;
/// Set dynamically as the default for all brokers.
pub const GREGOR_CONFIG_SOURCE_DYNAMIC_DEFAULT_BROKER: c_int = 3;
/// From the broker's properties file.
pub const GREGOR_CONFIG_SOURCE_STATIC_BROKER: c_int = 4;
/// The built-in default.
pub const GREGOR_CONFIG_SOURCE_DEFAULT: c_int = 5;
/// Set dynamically for a broker logger.
pub const GREGOR_CONFIG_SOURCE_DYNAMIC_BROKER_LOGGER: c_int = 6;
/// A client-metrics config.
pub const GREGOR_CONFIG_SOURCE_CLIENT_METRICS: c_int = 7;
/// Set on the group.
pub const GREGOR_CONFIG_SOURCE_GROUP: c_int = 8;

// ConfigType: crate::protocol::enums::ConfigType
/// Not known (or not returned before DescribeConfigs v3).
pub const GREGOR_CONFIG_TYPE_UNKNOWN: c_int = 0;
/// Boolean.
pub const GREGOR_CONFIG_TYPE_BOOLEAN: c_int = 1;
/// String.
pub const GREGOR_CONFIG_TYPE_STRING: c_int = 2;
/// 32-bit integer.
pub const GREGOR_CONFIG_TYPE_INT: c_int = 3;
/// 16-bit integer.
pub const GREGOR_CONFIG_TYPE_SHORT: c_int = 4;
/// 64-bit integer.
pub const GREGOR_CONFIG_TYPE_LONG: c_int = 5;
/// Double.
pub const GREGOR_CONFIG_TYPE_DOUBLE: c_int = 6;
/// Comma-separated list.
pub const GREGOR_CONFIG_TYPE_LIST: c_int = 7;
/// Java class name.
pub const GREGOR_CONFIG_TYPE_CLASS: c_int = 8;
/// Password (sensitive).
pub const GREGOR_CONFIG_TYPE_PASSWORD: c_int = 9;

// AlterConfigOpType: crate::protocol::enums::AlterConfigOpType
/// Set the value.
pub const GREGOR_ALTER_CONFIG_SET: c_int = 0;
/// Revert to the default.
pub const GREGOR_ALTER_CONFIG_DELETE: c_int = 1;
/// Add to a list value.
pub const GREGOR_ALTER_CONFIG_APPEND: c_int = 2;
/// Remove from a list value.
pub const GREGOR_ALTER_CONFIG_SUBTRACT: c_int = 3;

// ScramMechanism: crate::protocol::enums::ScramMechanism
/// A mechanism gregor does not know.
pub const GREGOR_SCRAM_UNKNOWN: c_int = 0;
/// SCRAM-SHA-256.
pub const GREGOR_SCRAM_SHA_256: c_int = 1;
/// SCRAM-SHA-512.
pub const GREGOR_SCRAM_SHA_512: c_int = 2;

// ElectionType: crate::protocol::enums::ElectionType
/// The preferred (first) replica, if it is in sync.
pub const GREGOR_ELECTION_PREFERRED: c_int = 0;
/// Any live replica when no in-sync replica is left (may lose data).
pub const GREGOR_ELECTION_UNCLEAN: c_int = 1;
