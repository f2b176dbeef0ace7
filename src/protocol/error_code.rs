//! Kafka error codes: one table (name, code, retriable, description) of every
//! code in Kafka's protocol error table (-1 to 133, Apache Kafka 4.1), and the
//! action a client takes on each, like librdkafka's `rd_kafka_err_action`.
//!
//! The table's last column is librdkafka's name and text for each code
//! librdkafka 2.12 knows (its `rd_kafka_get_err_descs()`; rdkafka.h documents
//! each `RD_KAFKA_RESP_ERR_*`): librdkafka names a few codes differently
//! ("UNKNOWN_TOPIC_OR_PART", "MSG_SIZE_TOO_LARGE") and describes them as
//! "Broker: …". The name is written only where it differs from Kafka's.
//!
//! [`KafkaCode`] is a newtype over the wire's `i16`, so a code this table does
//! not know passes through unchanged as a number.

use std::fmt;

/// A Kafka error code as carried on the wire. Codes this table does not know
/// are kept as they are; [`KafkaCode::name`] then says "UNKNOWN".
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct KafkaCode(pub i16);

/// One row of the error table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorInfo {
    /// The code on the wire.
    pub code: i16,
    /// Kafka's name for it, e.g. "UNKNOWN_TOPIC_OR_PARTITION".
    pub name: &'static str,
    /// Whether Kafka marks it retriable.
    pub retriable: bool,
    /// Kafka's description of it.
    pub description: &'static str,
    /// librdkafka's name and text for it, or `None` for a code librdkafka
    /// 2.12 does not know.
    pub librdkafka: Option<LibrdkafkaDesc>,
}

/// librdkafka's name and text for a Kafka code, as its `rd_kafka_err2name` /
/// `rd_kafka_err2str` return them (librdkafka's `struct rd_kafka_err_desc`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LibrdkafkaDesc {
    /// librdkafka's name: "UNKNOWN_TOPIC_OR_PART", "NO_ERROR".
    pub name: &'static str,
    /// librdkafka's text: "Broker: Unknown topic or partition", "Success".
    pub desc: &'static str,
}

/// What a client does about an error code in a response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorAction {
    /// Not an error.
    None,
    /// Transient: retry the same request (after backoff).
    Retry,
    /// The client's view of leaders, coordinators or topic IDs is stale:
    /// refresh metadata (or find the coordinator again), then retry.
    RefreshMetadataAndRetry,
    /// Permanent: report it to the caller.
    Fail,
}

/// Declares each code once: its constant (Kafka's name, documented with
/// Kafka's description) and its row of [`ERROR_TABLE`]. A row ends with
/// `librdkafka [NAME] "text"` where librdkafka knows the code, its name
/// given only where it differs from Kafka's.
macro_rules! error_table {
    (@librdkafka $name:ident) => { None };
    (@librdkafka $name:ident, $rd_desc:literal) => {
        Some(LibrdkafkaDesc { name: stringify!($name), desc: $rd_desc })
    };
    (@librdkafka $name:ident, $rd_name:ident $rd_desc:literal) => {
        Some(LibrdkafkaDesc { name: stringify!($rd_name), desc: $rd_desc })
    };
    ($($name:ident = $code:literal, $retriable:literal, $desc:literal
        $(, librdkafka $($rd_name:ident)? $rd_desc:literal)?;)*) => {
        impl KafkaCode {
            $(
                /// cbindgen:ignore
                #[doc = $desc]
                pub const $name: KafkaCode = KafkaCode($code);
            )*
        }

        /// Every Kafka error code, sorted by code.
        ///
        /// cbindgen:ignore
        pub const ERROR_TABLE: &[ErrorInfo] = &[
            $(ErrorInfo {
                code: $code,
                name: stringify!($name),
                retriable: $retriable,
                description: $desc,
                librdkafka: error_table!(@librdkafka $name $(, $($rd_name)? $rd_desc)?),
            },)*
        ];
    };
}

error_table! {
    UNKNOWN_SERVER_ERROR = -1, false, "The server experienced an unexpected error when processing the request.",
        librdkafka UNKNOWN "Unknown broker error";
    NONE = 0, false, "No error.",
        librdkafka NO_ERROR "Success";
    OFFSET_OUT_OF_RANGE = 1, false, "The requested offset is not within the range of offsets maintained by the server.",
        librdkafka "Broker: Offset out of range";
    CORRUPT_MESSAGE = 2, true, "This message has failed its CRC checksum, exceeds the valid size, has a null key for a compacted topic, or is otherwise corrupt.",
        librdkafka INVALID_MSG "Broker: Invalid message";
    UNKNOWN_TOPIC_OR_PARTITION = 3, true, "This server does not host this topic-partition.",
        librdkafka UNKNOWN_TOPIC_OR_PART "Broker: Unknown topic or partition";
    INVALID_FETCH_SIZE = 4, false, "The requested fetch size is invalid.",
        librdkafka INVALID_MSG_SIZE "Broker: Invalid message size";
    LEADER_NOT_AVAILABLE = 5, true, "There is no leader for this topic-partition as we are in the middle of a leadership election.",
        librdkafka "Broker: Leader not available";
    NOT_LEADER_OR_FOLLOWER = 6, true, "For requests intended only for the leader, this error indicates that the broker is not the current leader. For requests intended for any replica, this error indicates that the broker is not a replica of the topic partition.",
        librdkafka NOT_LEADER_FOR_PARTITION "Broker: Not leader for partition";
    REQUEST_TIMED_OUT = 7, true, "The request timed out.",
        librdkafka "Broker: Request timed out";
    BROKER_NOT_AVAILABLE = 8, false, "The broker is not available.",
        librdkafka "Broker: Broker not available";
    REPLICA_NOT_AVAILABLE = 9, true, "The replica is not available for the requested topic-partition. Produce/Fetch requests and other requests intended only for the leader or follower return NOT_LEADER_OR_FOLLOWER if the broker is not a replica of the topic-partition.",
        librdkafka "Broker: Replica not available";
    MESSAGE_TOO_LARGE = 10, false, "The request included a message larger than the max message size the server will accept.",
        librdkafka MSG_SIZE_TOO_LARGE "Broker: Message size too large";
    STALE_CONTROLLER_EPOCH = 11, false, "The controller moved to another broker.",
        librdkafka STALE_CTRL_EPOCH "Broker: StaleControllerEpochCode";
    OFFSET_METADATA_TOO_LARGE = 12, false, "The metadata field of the offset request was too large.",
        librdkafka "Broker: Offset metadata string too large";
    NETWORK_EXCEPTION = 13, true, "The server disconnected before a response was received.",
        librdkafka "Broker: Broker disconnected before response received";
    COORDINATOR_LOAD_IN_PROGRESS = 14, true, "The coordinator is loading and hence can't process requests.",
        librdkafka "Broker: Coordinator load in progress";
    COORDINATOR_NOT_AVAILABLE = 15, true, "The coordinator is not available.",
        librdkafka "Broker: Coordinator not available";
    NOT_COORDINATOR = 16, true, "This is not the correct coordinator.",
        librdkafka "Broker: Not coordinator";
    INVALID_TOPIC_EXCEPTION = 17, false, "The request attempted to perform an operation on an invalid topic.",
        librdkafka TOPIC_EXCEPTION "Broker: Invalid topic";
    RECORD_LIST_TOO_LARGE = 18, false, "The request included message batch larger than the configured segment size on the server.",
        librdkafka "Broker: Message batch larger than configured server segment size";
    NOT_ENOUGH_REPLICAS = 19, true, "Messages are rejected since there are fewer in-sync replicas than required.",
        librdkafka "Broker: Not enough in-sync replicas";
    NOT_ENOUGH_REPLICAS_AFTER_APPEND = 20, true, "Messages are written to the log, but to fewer in-sync replicas than required.",
        librdkafka "Broker: Message(s) written to insufficient number of in-sync replicas";
    INVALID_REQUIRED_ACKS = 21, false, "Produce request specified an invalid value for required acks.",
        librdkafka "Broker: Invalid required acks value";
    ILLEGAL_GENERATION = 22, false, "Specified group generation id is not valid.",
        librdkafka "Broker: Specified group generation id is not valid";
    INCONSISTENT_GROUP_PROTOCOL = 23, false, "The group member's supported protocols are incompatible with those of existing members or first group member tried to join with empty protocol type or empty protocol list.",
        librdkafka "Broker: Inconsistent group protocol";
    INVALID_GROUP_ID = 24, false, "The group id is invalid.",
        librdkafka "Broker: Invalid group.id";
    UNKNOWN_MEMBER_ID = 25, false, "The coordinator is not aware of this member.",
        librdkafka "Broker: Unknown member";
    INVALID_SESSION_TIMEOUT = 26, false, "The session timeout is not within the range allowed by the broker (as configured by group.min.session.timeout.ms and group.max.session.timeout.ms).",
        librdkafka "Broker: Invalid session timeout";
    REBALANCE_IN_PROGRESS = 27, false, "The group is rebalancing, so a rejoin is needed.",
        librdkafka "Broker: Group rebalance in progress";
    INVALID_COMMIT_OFFSET_SIZE = 28, false, "The committing offset data size is not valid.",
        librdkafka "Broker: Commit offset data size is not valid";
    TOPIC_AUTHORIZATION_FAILED = 29, false, "Topic authorization failed.",
        librdkafka "Broker: Topic authorization failed";
    GROUP_AUTHORIZATION_FAILED = 30, false, "Group authorization failed.",
        librdkafka "Broker: Group authorization failed";
    CLUSTER_AUTHORIZATION_FAILED = 31, false, "Cluster authorization failed.",
        librdkafka "Broker: Cluster authorization failed";
    INVALID_TIMESTAMP = 32, false, "The timestamp of the message is out of acceptable range.",
        librdkafka "Broker: Invalid timestamp";
    UNSUPPORTED_SASL_MECHANISM = 33, false, "The broker does not support the requested SASL mechanism.",
        librdkafka "Broker: Unsupported SASL mechanism";
    ILLEGAL_SASL_STATE = 34, false, "Request is not valid given the current SASL state.",
        librdkafka "Broker: Request not valid in current SASL state";
    UNSUPPORTED_VERSION = 35, false, "The version of API is not supported.",
        librdkafka "Broker: API version not supported";
    TOPIC_ALREADY_EXISTS = 36, false, "Topic with this name already exists.",
        librdkafka "Broker: Topic already exists";
    INVALID_PARTITIONS = 37, false, "Number of partitions is below 1.",
        librdkafka "Broker: Invalid number of partitions";
    INVALID_REPLICATION_FACTOR = 38, false, "Replication factor is below 1 or larger than the number of available brokers.",
        librdkafka "Broker: Invalid replication factor";
    INVALID_REPLICA_ASSIGNMENT = 39, false, "Replica assignment is invalid.",
        librdkafka "Broker: Invalid replica assignment";
    INVALID_CONFIG = 40, false, "Configuration is invalid.",
        librdkafka "Broker: Configuration is invalid";
    NOT_CONTROLLER = 41, true, "This is not the correct controller for this cluster.",
        librdkafka "Broker: Not controller for cluster";
    INVALID_REQUEST = 42, false, "This most likely occurs because of a request being malformed by the client library or the message was sent to an incompatible broker. See the broker logs for more details.",
        librdkafka "Broker: Invalid request";
    UNSUPPORTED_FOR_MESSAGE_FORMAT = 43, false, "The message format version on the broker does not support the request.",
        librdkafka "Broker: Message format on broker does not support request";
    POLICY_VIOLATION = 44, false, "Request parameters do not satisfy the configured policy.",
        librdkafka "Broker: Policy violation";
    OUT_OF_ORDER_SEQUENCE_NUMBER = 45, false, "The broker received an out of order sequence number.",
        librdkafka "Broker: Broker received an out of order sequence number";
    DUPLICATE_SEQUENCE_NUMBER = 46, false, "The broker received a duplicate sequence number.",
        librdkafka "Broker: Broker received a duplicate sequence number";
    INVALID_PRODUCER_EPOCH = 47, false, "Producer attempted to produce with an old epoch.",
        librdkafka "Broker: Producer attempted an operation with an old epoch";
    INVALID_TXN_STATE = 48, false, "The producer attempted a transactional operation in an invalid state.",
        librdkafka "Broker: Producer attempted a transactional operation in an invalid state";
    INVALID_PRODUCER_ID_MAPPING = 49, false, "The producer attempted to use a producer id which is not currently assigned to its transactional id.",
        librdkafka "Broker: Producer attempted to use a producer id which is not currently assigned to its transactional id";
    INVALID_TRANSACTION_TIMEOUT = 50, false, "The transaction timeout is larger than the maximum value allowed by the broker (as configured by transaction.max.timeout.ms).",
        librdkafka "Broker: Transaction timeout is larger than the maximum value allowed by the broker's max.transaction.timeout.ms";
    CONCURRENT_TRANSACTIONS = 51, false, "The producer attempted to update a transaction while another concurrent operation on the same transaction was ongoing.",
        librdkafka "Broker: Producer attempted to update a transaction while another concurrent operation on the same transaction was ongoing";
    TRANSACTION_COORDINATOR_FENCED = 52, false, "Indicates that the transaction coordinator sending a WriteTxnMarker is no longer the current coordinator for a given producer.",
        librdkafka "Broker: Indicates that the transaction coordinator sending a WriteTxnMarker is no longer the current coordinator for a given producer";
    TRANSACTIONAL_ID_AUTHORIZATION_FAILED = 53, false, "Transactional Id authorization failed.",
        librdkafka "Broker: Transactional Id authorization failed";
    SECURITY_DISABLED = 54, false, "Security features are disabled.",
        librdkafka "Broker: Security features are disabled";
    OPERATION_NOT_ATTEMPTED = 55, false, "The broker did not attempt to execute this operation. This may happen for batched RPCs where some operations in the batch failed, causing the broker to respond without trying the rest.",
        librdkafka "Broker: Operation not attempted";
    KAFKA_STORAGE_ERROR = 56, true, "Disk error when trying to access log file on the disk.",
        librdkafka "Broker: Disk error when trying to access log file on disk";
    LOG_DIR_NOT_FOUND = 57, false, "The user-specified log directory is not found in the broker config.",
        librdkafka "Broker: The user-specified log directory is not found in the broker config";
    SASL_AUTHENTICATION_FAILED = 58, false, "SASL Authentication failed.",
        librdkafka "Broker: SASL Authentication failed";
    UNKNOWN_PRODUCER_ID = 59, false, "This exception is raised by the broker if it could not locate the producer metadata associated with the producerId in question. This could happen if, for instance, the producer's records were deleted because their retention time had elapsed. Once the last records of the producerId are removed, the producer's metadata is removed from the broker, and future appends by the producer will return this exception.",
        librdkafka "Broker: Unknown Producer Id";
    REASSIGNMENT_IN_PROGRESS = 60, false, "A partition reassignment is in progress.",
        librdkafka "Broker: Partition reassignment is in progress";
    DELEGATION_TOKEN_AUTH_DISABLED = 61, false, "Delegation Token feature is not enabled.",
        librdkafka "Broker: Delegation Token feature is not enabled";
    DELEGATION_TOKEN_NOT_FOUND = 62, false, "Delegation Token is not found on server.",
        librdkafka "Broker: Delegation Token is not found on server";
    DELEGATION_TOKEN_OWNER_MISMATCH = 63, false, "Specified Principal is not valid Owner/Renewer.",
        librdkafka "Broker: Specified Principal is not valid Owner/Renewer";
    DELEGATION_TOKEN_REQUEST_NOT_ALLOWED = 64, false, "Delegation Token requests are not allowed on PLAINTEXT/1-way SSL channels and on delegation token authenticated channels.",
        librdkafka "Broker: Delegation Token requests are not allowed on this connection";
    DELEGATION_TOKEN_AUTHORIZATION_FAILED = 65, false, "Delegation Token authorization failed.",
        librdkafka "Broker: Delegation Token authorization failed";
    DELEGATION_TOKEN_EXPIRED = 66, false, "Delegation Token is expired.",
        librdkafka "Broker: Delegation Token is expired";
    INVALID_PRINCIPAL_TYPE = 67, false, "Supplied principalType is not supported.",
        librdkafka "Broker: Supplied principalType is not supported";
    NON_EMPTY_GROUP = 68, false, "The group is not empty.",
        librdkafka "Broker: The group is not empty";
    GROUP_ID_NOT_FOUND = 69, false, "The group id does not exist.",
        librdkafka "Broker: The group id does not exist";
    FETCH_SESSION_ID_NOT_FOUND = 70, true, "The fetch session ID was not found.",
        librdkafka "Broker: The fetch session ID was not found";
    INVALID_FETCH_SESSION_EPOCH = 71, true, "The fetch session epoch is invalid.",
        librdkafka "Broker: The fetch session epoch is invalid";
    LISTENER_NOT_FOUND = 72, true, "There is no listener on the leader broker that matches the listener on which metadata request was processed.",
        librdkafka "Broker: No matching listener";
    TOPIC_DELETION_DISABLED = 73, false, "Topic deletion is disabled.",
        librdkafka "Broker: Topic deletion is disabled";
    FENCED_LEADER_EPOCH = 74, true, "The leader epoch in the request is older than the epoch on the broker.",
        librdkafka "Broker: Leader epoch is older than broker epoch";
    UNKNOWN_LEADER_EPOCH = 75, true, "The leader epoch in the request is newer than the epoch on the broker.",
        librdkafka "Broker: Leader epoch is newer than broker epoch";
    UNSUPPORTED_COMPRESSION_TYPE = 76, false, "The requesting client does not support the compression type of given partition.",
        librdkafka "Broker: Unsupported compression type";
    STALE_BROKER_EPOCH = 77, false, "Broker epoch has changed.",
        librdkafka "Broker: Broker epoch has changed";
    OFFSET_NOT_AVAILABLE = 78, true, "The leader high watermark has not caught up from a recent leader election so the offsets cannot be guaranteed to be monotonically increasing.",
        librdkafka "Broker: Leader high watermark is not caught up";
    MEMBER_ID_REQUIRED = 79, false, "The group member needs to have a valid member id before actually entering a consumer group.",
        librdkafka "Broker: Group member needs a valid member ID";
    PREFERRED_LEADER_NOT_AVAILABLE = 80, true, "The preferred leader was not available.",
        librdkafka "Broker: Preferred leader was not available";
    GROUP_MAX_SIZE_REACHED = 81, false, "The group has reached its maximum size.",
        librdkafka "Broker: Consumer group has reached maximum size";
    FENCED_INSTANCE_ID = 82, false, "The broker rejected this static consumer since another consumer with the same group.instance.id has registered with a different member.id.",
        librdkafka "Broker: Static consumer fenced by other consumer with same group.instance.id";
    ELIGIBLE_LEADERS_NOT_AVAILABLE = 83, true, "Eligible topic partition leaders are not available.",
        librdkafka "Broker: Eligible partition leaders are not available";
    ELECTION_NOT_NEEDED = 84, true, "Leader election not needed for topic partition.",
        librdkafka "Broker: Leader election not needed for topic partition";
    NO_REASSIGNMENT_IN_PROGRESS = 85, false, "No partition reassignment is in progress.",
        librdkafka "Broker: No partition reassignment is in progress";
    GROUP_SUBSCRIBED_TO_TOPIC = 86, false, "Deleting offsets of a topic is forbidden while the consumer group is actively subscribed to it.",
        librdkafka "Broker: Deleting offsets of a topic while the consumer group is subscribed to it";
    INVALID_RECORD = 87, false, "This record has failed the validation on broker and hence will be rejected.",
        librdkafka "Broker: Broker failed to validate record";
    UNSTABLE_OFFSET_COMMIT = 88, true, "There are unstable offsets that need to be cleared.",
        librdkafka "Broker: There are unstable offsets that need to be cleared";
    THROTTLING_QUOTA_EXCEEDED = 89, true, "The throttling quota has been exceeded.",
        librdkafka "Broker: Throttling quota has been exceeded";
    PRODUCER_FENCED = 90, false, "There is a newer producer with the same transactionalId which fences the current one.",
        librdkafka "Broker: There is a newer producer with the same transactionalId which fences the current one";
    RESOURCE_NOT_FOUND = 91, false, "A request illegally referred to a resource that does not exist.",
        librdkafka "Broker: Request illegally referred to resource that does not exist";
    DUPLICATE_RESOURCE = 92, false, "A request illegally referred to the same resource twice.",
        librdkafka "Broker: Request illegally referred to the same resource twice";
    UNACCEPTABLE_CREDENTIAL = 93, false, "Requested credential would not meet criteria for acceptability.",
        librdkafka "Broker: Requested credential would not meet criteria for acceptability";
    INCONSISTENT_VOTER_SET = 94, false, "Indicates that the either the sender or recipient of a voter-only request is not one of the expected voters.",
        librdkafka "Broker: Indicates that the either the sender or recipient of a voter-only request is not one of the expected voters";
    INVALID_UPDATE_VERSION = 95, false, "The given update version was invalid.",
        librdkafka "Broker: Invalid update version";
    FEATURE_UPDATE_FAILED = 96, false, "Unable to update finalized features due to an unexpected server error.",
        librdkafka "Broker: Unable to update finalized features due to server error";
    PRINCIPAL_DESERIALIZATION_FAILURE = 97, false, "Request principal deserialization failed during forwarding. This indicates an internal error on the broker cluster security setup.",
        librdkafka "Broker: Request principal deserialization failed during forwarding";
    SNAPSHOT_NOT_FOUND = 98, false, "Requested snapshot was not found.";
    POSITION_OUT_OF_RANGE = 99, false, "Requested position is not greater than or equal to zero, and less than the size of the snapshot.";
    UNKNOWN_TOPIC_ID = 100, true, "This server does not host this topic ID.",
        librdkafka "Broker: Unknown topic id";
    DUPLICATE_BROKER_REGISTRATION = 101, false, "This broker ID is already in use.";
    BROKER_ID_NOT_REGISTERED = 102, false, "The given broker ID was not registered.";
    INCONSISTENT_TOPIC_ID = 103, true, "The log's topic ID did not match the topic ID in the request.";
    INCONSISTENT_CLUSTER_ID = 104, false, "The clusterId in the request does not match that found on the server.";
    TRANSACTIONAL_ID_NOT_FOUND = 105, false, "The transactionalId could not be found.";
    FETCH_SESSION_TOPIC_ID_ERROR = 106, true, "The fetch session encountered inconsistent topic ID usage.";
    INELIGIBLE_REPLICA = 107, false, "The new ISR contains at least one ineligible replica.";
    NEW_LEADER_ELECTED = 108, false, "The AlterPartition request successfully updated the partition state but the leader has changed.";
    OFFSET_MOVED_TO_TIERED_STORAGE = 109, false, "The requested offset is moved to tiered storage.";
    FENCED_MEMBER_EPOCH = 110, false, "The member epoch is fenced by the group coordinator. The member must abandon all its partitions and rejoin.",
        librdkafka "Broker: The member epoch is fenced by the group coordinator";
    UNRELEASED_INSTANCE_ID = 111, false, "The instance ID is still used by another member in the consumer group. That member must leave first.",
        librdkafka "Broker: The instance ID is still used by another member in the consumer group";
    UNSUPPORTED_ASSIGNOR = 112, false, "The assignor or its version range is not supported by the consumer group.",
        librdkafka "Broker: The assignor or its version range is not supported by the consumer group";
    STALE_MEMBER_EPOCH = 113, false, "The member epoch is stale. The member must retry after receiving its updated member epoch via the ConsumerGroupHeartbeat API.",
        librdkafka "Broker: The member epoch is stale";
    MISMATCHED_ENDPOINT_TYPE = 114, false, "The request was sent to an endpoint of the wrong type.";
    UNSUPPORTED_ENDPOINT_TYPE = 115, false, "This endpoint type is not supported yet.";
    UNKNOWN_CONTROLLER_ID = 116, false, "This controller ID is not known.";
    UNKNOWN_SUBSCRIPTION_ID = 117, false, "Client sent a push telemetry request with an invalid or outdated subscription ID.",
        librdkafka "Broker: Client sent a push telemetry request with an invalid or outdated subscription ID";
    TELEMETRY_TOO_LARGE = 118, false, "Client sent a push telemetry request larger than the maximum size the broker will accept.",
        librdkafka "Broker: Client sent a push telemetry request larger than the maximum size the broker will accept";
    INVALID_REGISTRATION = 119, false, "The controller has considered the broker registration to be invalid.";
    TRANSACTION_ABORTABLE = 120, false, "The server encountered an error with the transaction. The client can abort the transaction to continue using this transactional ID.";
    INVALID_RECORD_STATE = 121, false, "The record state is invalid. The acknowledgement of delivery could not be completed.";
    SHARE_SESSION_NOT_FOUND = 122, true, "The share session was not found.";
    INVALID_SHARE_SESSION_EPOCH = 123, true, "The share session epoch is invalid.";
    FENCED_STATE_EPOCH = 124, false, "The share coordinator rejected the request because the share-group state epoch did not match.";
    INVALID_VOTER_KEY = 125, false, "The voter key doesn't match the receiving replica's key.";
    DUPLICATE_VOTER = 126, false, "The voter is already part of the set of voters.";
    VOTER_NOT_FOUND = 127, false, "The voter is not part of the set of voters.";
    INVALID_REGULAR_EXPRESSION = 128, false, "The regular expression is not valid.";
    REBOOTSTRAP_REQUIRED = 129, false, "Client metadata is stale. The client should rebootstrap to obtain new metadata.",
        librdkafka "Broker: Client metadata is stale, client should rebootstrap to obtain new metadata";
    STREAMS_INVALID_TOPOLOGY = 130, false, "The supplied topology is invalid.";
    STREAMS_INVALID_TOPOLOGY_EPOCH = 131, false, "The supplied topology epoch is invalid.";
    STREAMS_TOPOLOGY_FENCED = 132, false, "The supplied topology epoch is outdated.";
    SHARE_SESSION_LIMIT_REACHED = 133, true, "The limit of share sessions has been reached.";
}

impl KafkaCode {
    /// The table row for this code, or `None` for a code the table lacks.
    pub fn info(self) -> Option<&'static ErrorInfo> {
        ERROR_TABLE
            .binary_search_by_key(&self.0, |e| e.code)
            .ok()
            .map(|i| &ERROR_TABLE[i])
    }

    /// The code on the wire.
    pub fn code(self) -> i16 {
        self.0
    }

    /// Kafka's name for the code, or "UNKNOWN" for a code the table lacks.
    pub fn name(self) -> &'static str {
        self.info().map_or("UNKNOWN", |e| e.name)
    }

    /// Kafka's description of the code.
    pub fn description(self) -> &'static str {
        self.info().map_or("Unknown error code.", |e| e.description)
    }

    /// librdkafka's name and text for the code, or `None` for a code
    /// librdkafka 2.12 does not know.
    pub fn librdkafka(self) -> Option<LibrdkafkaDesc> {
        self.info().and_then(|e| e.librdkafka)
    }

    /// The code's text as librdkafka's `rd_kafka_err2str` gives it: its
    /// own where it knows the code, else Kafka's description after
    /// "Broker: ".
    pub fn librdkafka_desc(self) -> String {
        self.librdkafka().map_or_else(
            || format!("Broker: {}", self.description()),
            |d| d.desc.to_string(),
        )
    }

    /// Whether Kafka marks the code retriable (false for unknown codes).
    pub fn is_retriable(self) -> bool {
        self.info().is_some_and(|e| e.retriable)
    }

    /// True for [`KafkaCode::NONE`].
    pub fn is_ok(self) -> bool {
        self.0 == 0
    }

    /// True if the table knows the code.
    pub fn is_known(self) -> bool {
        self.info().is_some()
    }

    /// Looks a code up by its Kafka name ("UNKNOWN_TOPIC_OR_PARTITION").
    pub fn from_name(name: &str) -> Option<KafkaCode> {
        ERROR_TABLE
            .iter()
            .find(|e| e.name == name)
            .map(|e| KafkaCode(e.code))
    }

    /// What to do about this code, following librdkafka's `rd_kafka_err_action`:
    /// errors that mean the client's routing is stale (leader, coordinator,
    /// controller, topic ID, a broker's disk) refresh metadata and retry; other
    /// retriable errors retry; everything else, unknown codes included, fails.
    ///
    /// `BROKER_NOT_AVAILABLE` refreshes although Kafka does not mark it
    /// retriable (librdkafka does the same); `OFFSET_NOT_AVAILABLE` refreshes
    /// as librdkafka's ListOffsets and offset-validation handlers do, since it
    /// follows a leader change.
    pub fn action(self) -> ErrorAction {
        match self {
            KafkaCode::NONE => ErrorAction::None,
            KafkaCode::UNKNOWN_TOPIC_OR_PARTITION
            | KafkaCode::LEADER_NOT_AVAILABLE
            | KafkaCode::NOT_LEADER_OR_FOLLOWER
            | KafkaCode::BROKER_NOT_AVAILABLE
            | KafkaCode::REPLICA_NOT_AVAILABLE
            | KafkaCode::COORDINATOR_NOT_AVAILABLE
            | KafkaCode::NOT_COORDINATOR
            | KafkaCode::NOT_CONTROLLER
            | KafkaCode::KAFKA_STORAGE_ERROR
            | KafkaCode::LISTENER_NOT_FOUND
            | KafkaCode::FENCED_LEADER_EPOCH
            | KafkaCode::UNKNOWN_LEADER_EPOCH
            | KafkaCode::OFFSET_NOT_AVAILABLE
            | KafkaCode::UNKNOWN_TOPIC_ID
            | KafkaCode::INCONSISTENT_TOPIC_ID => ErrorAction::RefreshMetadataAndRetry,
            c if c.is_retriable() => ErrorAction::Retry,
            _ => ErrorAction::Fail,
        }
    }
}

impl From<i16> for KafkaCode {
    fn from(code: i16) -> Self {
        KafkaCode(code)
    }
}

impl From<KafkaCode> for i16 {
    fn from(code: KafkaCode) -> Self {
        code.0
    }
}

impl fmt::Debug for KafkaCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.info() {
            Some(e) => write!(f, "{}({})", e.name, e.code),
            None => write!(f, "UNKNOWN({})", self.0),
        }
    }
}

/// "NAME (code): description", e.g. "UNKNOWN_TOPIC_OR_PARTITION (3): This
/// server does not host this topic-partition."
impl fmt::Display for KafkaCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({}): {}", self.name(), self.0, self.description())
    }
}

impl std::error::Error for KafkaCode {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_by_number_and_name() {
        assert_eq!(KafkaCode::NONE, KafkaCode(0));
        assert_eq!(KafkaCode::UNKNOWN_SERVER_ERROR, KafkaCode(-1));
        assert_eq!(KafkaCode::UNKNOWN_TOPIC_OR_PARTITION, KafkaCode(3));
        assert_eq!(KafkaCode::NOT_LEADER_OR_FOLLOWER, KafkaCode(6));
        assert_eq!(KafkaCode::UNSUPPORTED_VERSION, KafkaCode(35));
        assert_eq!(KafkaCode::KAFKA_STORAGE_ERROR, KafkaCode(56));
        assert_eq!(KafkaCode::UNKNOWN_TOPIC_ID, KafkaCode(100));
        assert_eq!(KafkaCode::SHARE_SESSION_LIMIT_REACHED, KafkaCode(133));
        assert_eq!(KafkaCode(3).name(), "UNKNOWN_TOPIC_OR_PARTITION");
        assert_eq!(
            KafkaCode(3).description(),
            "This server does not host this topic-partition."
        );
        assert_eq!(KafkaCode(29).name(), "TOPIC_AUTHORIZATION_FAILED");
        assert_eq!(KafkaCode(90).name(), "PRODUCER_FENCED");
        assert_eq!(KafkaCode::from_name("NOT_COORDINATOR"), Some(KafkaCode(16)));
        assert_eq!(KafkaCode::from_name("NO_SUCH_ERROR"), None);
        assert!(KafkaCode::NONE.is_ok() && !KafkaCode(1).is_ok());
        assert!(KafkaCode::REQUEST_TIMED_OUT.is_retriable());
        assert!(KafkaCode::CORRUPT_MESSAGE.is_retriable());
        assert!(!KafkaCode::OFFSET_OUT_OF_RANGE.is_retriable());
        assert!(!KafkaCode::BROKER_NOT_AVAILABLE.is_retriable());
        assert_eq!(
            KafkaCode(3).to_string(),
            "UNKNOWN_TOPIC_OR_PARTITION (3): This server does not host this topic-partition."
        );
        assert_eq!(format!("{:?}", KafkaCode(6)), "NOT_LEADER_OR_FOLLOWER(6)");
    }

    #[test]
    fn unknown_codes_pass_through() {
        for raw in [134, 1234, i16::MAX, -2, i16::MIN] {
            let c = KafkaCode::from(raw);
            assert_eq!(i16::from(c), raw);
            assert!(!c.is_known() && !c.is_ok() && !c.is_retriable());
            assert_eq!(c.name(), "UNKNOWN");
            assert_eq!(c.action(), ErrorAction::Fail);
            assert_eq!(format!("{c:?}"), format!("UNKNOWN({raw})"));
            assert!(c.to_string().starts_with(&format!("UNKNOWN ({raw}): ")));
        }
    }

    #[test]
    fn table_is_sorted_complete_and_unique() {
        // Kafka's table runs without gaps from -1 to 133.
        assert_eq!(ERROR_TABLE.len(), 135);
        for (i, e) in ERROR_TABLE.iter().enumerate() {
            assert_eq!(e.code, i as i16 - 1, "{} out of place", e.name);
            assert!(!e.description.is_empty(), "{} has no description", e.name);
            assert!(e
                .name
                .bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_'));
            assert_eq!(
                KafkaCode::from_name(e.name),
                Some(KafkaCode(e.code)),
                "duplicate name {}",
                e.name
            );
        }
        let retriable: Vec<i16> = ERROR_TABLE
            .iter()
            .filter(|e| e.retriable)
            .map(|e| e.code)
            .collect();
        assert_eq!(
            retriable,
            [
                2, 3, 5, 6, 7, 9, 13, 14, 15, 16, 19, 20, 41, 56, 70, 71, 72, 74, 75, 78, 80, 83,
                84, 88, 89, 100, 103, 106, 122, 123, 133
            ]
        );
    }

    #[test]
    fn librdkafka_column() {
        // librdkafka 2.12 knows 107 of Kafka's codes; it names 9 of them
        // otherwise and describes every one but -1 and 0 as "Broker: …".
        let known: Vec<_> = ERROR_TABLE
            .iter()
            .filter(|e| e.librdkafka.is_some())
            .collect();
        assert_eq!(known.len(), 107);
        let renamed: Vec<_> = known
            .iter()
            .filter_map(|e| e.librdkafka.filter(|rd| rd.name != e.name))
            .map(|rd| rd.name)
            .collect();
        assert_eq!(
            renamed,
            [
                "UNKNOWN",
                "NO_ERROR",
                "INVALID_MSG",
                "UNKNOWN_TOPIC_OR_PART",
                "INVALID_MSG_SIZE",
                "NOT_LEADER_FOR_PARTITION",
                "MSG_SIZE_TOO_LARGE",
                "STALE_CTRL_EPOCH",
                "TOPIC_EXCEPTION"
            ]
        );
        for e in known {
            let rd = KafkaCode(e.code).librdkafka().unwrap();
            assert_eq!(rd.desc.starts_with("Broker: "), e.code > 0, "{}", e.name);
        }
        assert_eq!(
            KafkaCode(3).librdkafka().unwrap().name,
            "UNKNOWN_TOPIC_OR_PART"
        );
        assert_eq!(KafkaCode(98).librdkafka(), None);
        assert_eq!(KafkaCode(1234).librdkafka(), None);
    }

    #[test]
    fn actions() {
        use ErrorAction::*;
        assert_eq!(KafkaCode::NONE.action(), None);
        for c in [
            KafkaCode::NOT_LEADER_OR_FOLLOWER,
            KafkaCode::LEADER_NOT_AVAILABLE,
            KafkaCode::UNKNOWN_TOPIC_OR_PARTITION,
            KafkaCode::FENCED_LEADER_EPOCH,
            KafkaCode::UNKNOWN_LEADER_EPOCH,
            KafkaCode::NOT_CONTROLLER,
            KafkaCode::NOT_COORDINATOR,
            KafkaCode::COORDINATOR_NOT_AVAILABLE,
            KafkaCode::KAFKA_STORAGE_ERROR,
            KafkaCode::UNKNOWN_TOPIC_ID,
            KafkaCode::INCONSISTENT_TOPIC_ID,
            KafkaCode::OFFSET_NOT_AVAILABLE,
            KafkaCode::REPLICA_NOT_AVAILABLE,
            KafkaCode::BROKER_NOT_AVAILABLE,
        ] {
            assert_eq!(c.action(), RefreshMetadataAndRetry, "{c:?}");
        }
        for c in [
            KafkaCode::REQUEST_TIMED_OUT,
            KafkaCode::NETWORK_EXCEPTION,
            KafkaCode::COORDINATOR_LOAD_IN_PROGRESS,
            KafkaCode::NOT_ENOUGH_REPLICAS,
            KafkaCode::NOT_ENOUGH_REPLICAS_AFTER_APPEND,
            KafkaCode::THROTTLING_QUOTA_EXCEEDED,
        ] {
            assert_eq!(c.action(), Retry, "{c:?}");
        }
        for c in [
            KafkaCode::UNKNOWN_SERVER_ERROR,
            KafkaCode::OFFSET_OUT_OF_RANGE,
            KafkaCode::TOPIC_AUTHORIZATION_FAILED,
            KafkaCode::MESSAGE_TOO_LARGE,
            KafkaCode::UNSUPPORTED_VERSION,
            KafkaCode::PRODUCER_FENCED,
        ] {
            assert_eq!(c.action(), Fail, "{c:?}");
        }
        // Every retriable code is acted on; no non-retriable code is retried
        // except BROKER_NOT_AVAILABLE.
        for e in ERROR_TABLE {
            let a = KafkaCode(e.code).action();
            if e.retriable {
                assert!(matches!(a, Retry | RefreshMetadataAndRetry), "{}", e.name);
            } else if e.code != 0 && e.code != 8 {
                assert_eq!(a, Fail, "{}", e.name);
            }
        }
    }

    #[test]
    fn agrees_with_kafka_protocol_crate() {
        // kafka-protocol 0.15.1 knows codes -1 to 106.
        use kafka_protocol::error::ResponseError;
        for code in (-1..=106).filter(|&c| c != 0) {
            let theirs = ResponseError::try_from_code(code).unwrap_or_else(|| panic!("{code}"));
            let ours = KafkaCode(code);
            assert_eq!(ours.is_retriable(), theirs.is_retriable(), "{ours:?}");
            let camel: String = ours
                .name()
                .split('_')
                .map(|w| w[..1].to_string() + &w[1..].to_ascii_lowercase())
                .collect();
            assert_eq!(camel, format!("{theirs:?}"), "{ours:?}");
        }
    }
}
