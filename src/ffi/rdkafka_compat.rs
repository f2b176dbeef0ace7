//! librdkafka's names and texts for error codes, for bindings that keep
//! librdkafka-based clients' shape (rdkafka-ruby's `RdkafkaError#code` and
//! `#to_s`, confluent-kafka's `KafkaError.name()` / `str()`): librdkafka
//! names a few Kafka codes differently from Kafka ("UNKNOWN_TOPIC_OR_PART",
//! "MSG_SIZE_TOO_LARGE") and describes broker codes as "Broker: …"
//! (librdkafka's `rd_kafka_err2name` / `rd_kafka_err2str`). gregor's own
//! `gregor_err_name` / `gregor_err_str` keep Kafka's names.

use crate::sync::MutexExt;
use std::collections::HashMap;
use std::ffi::{c_char, c_int, CString};
use std::sync::OnceLock;

use super::guard::guard;
use crate::error::{code_description, code_name};

/// librdkafka's (code, name, text) for the broker's codes (0 and up), from
/// librdkafka 2.12's `rd_kafka_get_err_descs()` (rdkafka.h documents each
/// `RD_KAFKA_RESP_ERR_*`). Local codes (< 0) already carry librdkafka's
/// names and texts in gregor's own table.
const BROKER: &[(i32, &str, &str)] = &[
    (-1, "UNKNOWN", "Unknown broker error"),
    (0, "NO_ERROR", "Success"),
    (1, "OFFSET_OUT_OF_RANGE", "Broker: Offset out of range"),
    (2, "INVALID_MSG", "Broker: Invalid message"),
    (3, "UNKNOWN_TOPIC_OR_PART", "Broker: Unknown topic or partition"),
    (4, "INVALID_MSG_SIZE", "Broker: Invalid message size"),
    (5, "LEADER_NOT_AVAILABLE", "Broker: Leader not available"),
    (6, "NOT_LEADER_FOR_PARTITION", "Broker: Not leader for partition"),
    (7, "REQUEST_TIMED_OUT", "Broker: Request timed out"),
    (8, "BROKER_NOT_AVAILABLE", "Broker: Broker not available"),
    (9, "REPLICA_NOT_AVAILABLE", "Broker: Replica not available"),
    (10, "MSG_SIZE_TOO_LARGE", "Broker: Message size too large"),
    (11, "STALE_CTRL_EPOCH", "Broker: StaleControllerEpochCode"),
    (12, "OFFSET_METADATA_TOO_LARGE", "Broker: Offset metadata string too large"),
    (13, "NETWORK_EXCEPTION", "Broker: Broker disconnected before response received"),
    (14, "COORDINATOR_LOAD_IN_PROGRESS", "Broker: Coordinator load in progress"),
    (15, "COORDINATOR_NOT_AVAILABLE", "Broker: Coordinator not available"),
    (16, "NOT_COORDINATOR", "Broker: Not coordinator"),
    (17, "TOPIC_EXCEPTION", "Broker: Invalid topic"),
    (18, "RECORD_LIST_TOO_LARGE", "Broker: Message batch larger than configured server segment size"),
    (19, "NOT_ENOUGH_REPLICAS", "Broker: Not enough in-sync replicas"),
    (20, "NOT_ENOUGH_REPLICAS_AFTER_APPEND", "Broker: Message(s) written to insufficient number of in-sync replicas"),
    (21, "INVALID_REQUIRED_ACKS", "Broker: Invalid required acks value"),
    (22, "ILLEGAL_GENERATION", "Broker: Specified group generation id is not valid"),
    (23, "INCONSISTENT_GROUP_PROTOCOL", "Broker: Inconsistent group protocol"),
    (24, "INVALID_GROUP_ID", "Broker: Invalid group.id"),
    (25, "UNKNOWN_MEMBER_ID", "Broker: Unknown member"),
    (26, "INVALID_SESSION_TIMEOUT", "Broker: Invalid session timeout"),
    (27, "REBALANCE_IN_PROGRESS", "Broker: Group rebalance in progress"),
    (28, "INVALID_COMMIT_OFFSET_SIZE", "Broker: Commit offset data size is not valid"),
    (29, "TOPIC_AUTHORIZATION_FAILED", "Broker: Topic authorization failed"),
    (30, "GROUP_AUTHORIZATION_FAILED", "Broker: Group authorization failed"),
    (31, "CLUSTER_AUTHORIZATION_FAILED", "Broker: Cluster authorization failed"),
    (32, "INVALID_TIMESTAMP", "Broker: Invalid timestamp"),
    (33, "UNSUPPORTED_SASL_MECHANISM", "Broker: Unsupported SASL mechanism"),
    (34, "ILLEGAL_SASL_STATE", "Broker: Request not valid in current SASL state"),
    (35, "UNSUPPORTED_VERSION", "Broker: API version not supported"),
    (36, "TOPIC_ALREADY_EXISTS", "Broker: Topic already exists"),
    (37, "INVALID_PARTITIONS", "Broker: Invalid number of partitions"),
    (38, "INVALID_REPLICATION_FACTOR", "Broker: Invalid replication factor"),
    (39, "INVALID_REPLICA_ASSIGNMENT", "Broker: Invalid replica assignment"),
    (40, "INVALID_CONFIG", "Broker: Configuration is invalid"),
    (41, "NOT_CONTROLLER", "Broker: Not controller for cluster"),
    (42, "INVALID_REQUEST", "Broker: Invalid request"),
    (43, "UNSUPPORTED_FOR_MESSAGE_FORMAT", "Broker: Message format on broker does not support request"),
    (44, "POLICY_VIOLATION", "Broker: Policy violation"),
    (45, "OUT_OF_ORDER_SEQUENCE_NUMBER", "Broker: Broker received an out of order sequence number"),
    (46, "DUPLICATE_SEQUENCE_NUMBER", "Broker: Broker received a duplicate sequence number"),
    (47, "INVALID_PRODUCER_EPOCH", "Broker: Producer attempted an operation with an old epoch"),
    (48, "INVALID_TXN_STATE", "Broker: Producer attempted a transactional operation in an invalid state"),
    (49, "INVALID_PRODUCER_ID_MAPPING", "Broker: Producer attempted to use a producer id which is not currently assigned to its transactional id"),
    (50, "INVALID_TRANSACTION_TIMEOUT", "Broker: Transaction timeout is larger than the maximum value allowed by the broker's max.transaction.timeout.ms"),
    (51, "CONCURRENT_TRANSACTIONS", "Broker: Producer attempted to update a transaction while another concurrent operation on the same transaction was ongoing"),
    (52, "TRANSACTION_COORDINATOR_FENCED", "Broker: Indicates that the transaction coordinator sending a WriteTxnMarker is no longer the current coordinator for a given producer"),
    (53, "TRANSACTIONAL_ID_AUTHORIZATION_FAILED", "Broker: Transactional Id authorization failed"),
    (54, "SECURITY_DISABLED", "Broker: Security features are disabled"),
    (55, "OPERATION_NOT_ATTEMPTED", "Broker: Operation not attempted"),
    (56, "KAFKA_STORAGE_ERROR", "Broker: Disk error when trying to access log file on disk"),
    (57, "LOG_DIR_NOT_FOUND", "Broker: The user-specified log directory is not found in the broker config"),
    (58, "SASL_AUTHENTICATION_FAILED", "Broker: SASL Authentication failed"),
    (59, "UNKNOWN_PRODUCER_ID", "Broker: Unknown Producer Id"),
    (60, "REASSIGNMENT_IN_PROGRESS", "Broker: Partition reassignment is in progress"),
    (61, "DELEGATION_TOKEN_AUTH_DISABLED", "Broker: Delegation Token feature is not enabled"),
    (62, "DELEGATION_TOKEN_NOT_FOUND", "Broker: Delegation Token is not found on server"),
    (63, "DELEGATION_TOKEN_OWNER_MISMATCH", "Broker: Specified Principal is not valid Owner/Renewer"),
    (64, "DELEGATION_TOKEN_REQUEST_NOT_ALLOWED", "Broker: Delegation Token requests are not allowed on this connection"),
    (65, "DELEGATION_TOKEN_AUTHORIZATION_FAILED", "Broker: Delegation Token authorization failed"),
    (66, "DELEGATION_TOKEN_EXPIRED", "Broker: Delegation Token is expired"),
    (67, "INVALID_PRINCIPAL_TYPE", "Broker: Supplied principalType is not supported"),
    (68, "NON_EMPTY_GROUP", "Broker: The group is not empty"),
    (69, "GROUP_ID_NOT_FOUND", "Broker: The group id does not exist"),
    (70, "FETCH_SESSION_ID_NOT_FOUND", "Broker: The fetch session ID was not found"),
    (71, "INVALID_FETCH_SESSION_EPOCH", "Broker: The fetch session epoch is invalid"),
    (72, "LISTENER_NOT_FOUND", "Broker: No matching listener"),
    (73, "TOPIC_DELETION_DISABLED", "Broker: Topic deletion is disabled"),
    (74, "FENCED_LEADER_EPOCH", "Broker: Leader epoch is older than broker epoch"),
    (75, "UNKNOWN_LEADER_EPOCH", "Broker: Leader epoch is newer than broker epoch"),
    (76, "UNSUPPORTED_COMPRESSION_TYPE", "Broker: Unsupported compression type"),
    (77, "STALE_BROKER_EPOCH", "Broker: Broker epoch has changed"),
    (78, "OFFSET_NOT_AVAILABLE", "Broker: Leader high watermark is not caught up"),
    (79, "MEMBER_ID_REQUIRED", "Broker: Group member needs a valid member ID"),
    (80, "PREFERRED_LEADER_NOT_AVAILABLE", "Broker: Preferred leader was not available"),
    (81, "GROUP_MAX_SIZE_REACHED", "Broker: Consumer group has reached maximum size"),
    (82, "FENCED_INSTANCE_ID", "Broker: Static consumer fenced by other consumer with same group.instance.id"),
    (83, "ELIGIBLE_LEADERS_NOT_AVAILABLE", "Broker: Eligible partition leaders are not available"),
    (84, "ELECTION_NOT_NEEDED", "Broker: Leader election not needed for topic partition"),
    (85, "NO_REASSIGNMENT_IN_PROGRESS", "Broker: No partition reassignment is in progress"),
    (86, "GROUP_SUBSCRIBED_TO_TOPIC", "Broker: Deleting offsets of a topic while the consumer group is subscribed to it"),
    (87, "INVALID_RECORD", "Broker: Broker failed to validate record"),
    (88, "UNSTABLE_OFFSET_COMMIT", "Broker: There are unstable offsets that need to be cleared"),
    (89, "THROTTLING_QUOTA_EXCEEDED", "Broker: Throttling quota has been exceeded"),
    (90, "PRODUCER_FENCED", "Broker: There is a newer producer with the same transactionalId which fences the current one"),
    (91, "RESOURCE_NOT_FOUND", "Broker: Request illegally referred to resource that does not exist"),
    (92, "DUPLICATE_RESOURCE", "Broker: Request illegally referred to the same resource twice"),
    (93, "UNACCEPTABLE_CREDENTIAL", "Broker: Requested credential would not meet criteria for acceptability"),
    (94, "INCONSISTENT_VOTER_SET", "Broker: Indicates that the either the sender or recipient of a voter-only request is not one of the expected voters"),
    (95, "INVALID_UPDATE_VERSION", "Broker: Invalid update version"),
    (96, "FEATURE_UPDATE_FAILED", "Broker: Unable to update finalized features due to server error"),
    (97, "PRINCIPAL_DESERIALIZATION_FAILURE", "Broker: Request principal deserialization failed during forwarding"),
    (100, "UNKNOWN_TOPIC_ID", "Broker: Unknown topic id"),
    (110, "FENCED_MEMBER_EPOCH", "Broker: The member epoch is fenced by the group coordinator"),
    (111, "UNRELEASED_INSTANCE_ID", "Broker: The instance ID is still used by another member in the consumer group"),
    (112, "UNSUPPORTED_ASSIGNOR", "Broker: The assignor or its version range is not supported by the consumer group"),
    (113, "STALE_MEMBER_EPOCH", "Broker: The member epoch is stale"),
    (117, "UNKNOWN_SUBSCRIPTION_ID", "Broker: Client sent a push telemetry request with an invalid or outdated subscription ID"),
    (118, "TELEMETRY_TOO_LARGE", "Broker: Client sent a push telemetry request larger than the maximum size the broker will accept"),
    (129, "REBOOTSTRAP_REQUIRED", "Broker: Client metadata is stale, client should rebootstrap to obtain new metadata"),
];

type Entry = (CString, CString);

fn table() -> &'static HashMap<i32, Entry> {
    static T: OnceLock<HashMap<i32, Entry>> = OnceLock::new();
    T.get_or_init(|| {
        let mut t = HashMap::new();
        for &(c, n, d) in BROKER {
            t.insert(c, (cstring(n), cstring(d)));
        }
        t
    })
}

fn cstring(s: &str) -> CString {
    CString::new(s).unwrap_or_default()
}

/// Codes gregor knows that librdkafka's table does not: gregor's name, and
/// its description ("Broker: " added for broker codes).
fn gregor_entry(code: i32) -> Option<Entry> {
    let name = code_name(code);
    if name.starts_with("_UNKNOWN(") || name.starts_with("UNKNOWN(") || name == "UNKNOWN" {
        return None;
    }
    let desc = code_description(code);
    let desc = if code >= 0 {
        format!("Broker: {desc}")
    } else {
        desc
    };
    Some((cstring(&name), cstring(&desc)))
}

/// How many codes no table knows get their own interned "`ERR_<code>?`" /
/// "`Err-<code>?`" pair; later ones share a static pair. Bounded so a caller
/// looping over every `int` cannot grow the process without limit.
const MAX_UNKNOWN: usize = 1024;

/// The strings for codes gregor's own tables know (bounded by those tables)
/// and for the first `MAX_UNKNOWN` codes neither knows. Never freed:
/// librdkafka's `rd_kafka_err2name` / `rd_kafka_err2str` return strings the
/// caller may keep, so two calls in one `printf` must not invalidate each
/// other (a per-thread scratch buffer would).
struct Interned {
    known: HashMap<i32, &'static Entry>,
    unknown: HashMap<i32, &'static Entry>,
}

fn lookup(code: c_int, pick: fn(&'static Entry) -> &'static CString) -> *const c_char {
    if code >= -1 {
        if let Some(e) = table().get(&code) {
            return pick(e).as_ptr();
        }
    }
    static EXTRA: OnceLock<std::sync::Mutex<Interned>> = OnceLock::new();
    let extra = EXTRA.get_or_init(|| {
        std::sync::Mutex::new(Interned {
            known: HashMap::new(),
            unknown: HashMap::new(),
        })
    });
    let mut extra = extra.locked();
    if let Some(e) = extra.known.get(&code).or_else(|| extra.unknown.get(&code)) {
        return pick(e).as_ptr();
    }
    if let Some(e) = gregor_entry(code) {
        // Bounded: one entry per code gregor's own tables know.
        let e: &'static Entry = Box::leak(Box::new(e));
        extra.known.insert(code, e);
        return pick(e).as_ptr();
    }
    if extra.unknown.len() < MAX_UNKNOWN {
        let e = (
            cstring(&format!("ERR_{code}?")),
            cstring(&format!("Err-{code}?")),
        );
        let e: &'static Entry = Box::leak(Box::new(e));
        extra.unknown.insert(code, e);
        return pick(e).as_ptr();
    }
    static OVERFLOW: OnceLock<Entry> = OnceLock::new();
    pick(OVERFLOW.get_or_init(|| (cstring("ERR_?"), cstring("Err-?")))).as_ptr()
}

/// librdkafka's name for error code `err` (`rd_kafka_err2name`):
/// "UNKNOWN_TOPIC_OR_PART", "MSG_SIZE_TOO_LARGE", "_PARTITION_EOF"; gregor's
/// name for a code librdkafka does not know; "`ERR_<code>?`" for a code
/// neither knows ("`ERR_?`" once 1024 such codes have been asked for).
/// Static: valid for the life of the program, never free it. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_err_rdkafka_name(err: c_int) -> *const c_char {
    guard(std::ptr::null(), || lookup(err, |e| &e.0))
}

/// librdkafka's text for error code `err` (`rd_kafka_err2str`): "Broker:
/// Message size too large", "Local: Timed out"; "`Err-<code>?`" for a code
/// neither librdkafka nor gregor knows ("`Err-?`" past 1024 such codes).
/// Static: valid for the life of the program, never free it. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_err_rdkafka_str(err: c_int) -> *const c_char {
    guard(std::ptr::null(), || lookup(err, |e| &e.1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    fn s(p: *const c_char) -> String {
        // SAFETY: the functions return NUL-terminated strings.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }

    #[test]
    fn librdkafka_names_and_texts() {
        assert_eq!(s(gregor_err_rdkafka_name(3)), "UNKNOWN_TOPIC_OR_PART");
        assert_eq!(
            s(gregor_err_rdkafka_str(10)),
            "Broker: Message size too large"
        );
        assert_eq!(s(gregor_err_rdkafka_name(0)), "NO_ERROR");
        assert_eq!(s(gregor_err_rdkafka_str(0)), "Success");
        assert_eq!(s(gregor_err_rdkafka_name(-191)), "_PARTITION_EOF");
        assert_eq!(s(gregor_err_rdkafka_str(-185)), "Local: Timed out");
        assert_eq!(s(gregor_err_rdkafka_name(933975)), "ERR_933975?");
        assert_eq!(s(gregor_err_rdkafka_str(933975)), "Err-933975?");
    }

    /// Every row of testdata/rdkafka-err-names.tsv (codes -200 to 200 and
    /// some beyond, written from these functions): bindings show these
    /// strings as librdkafka's, so none may change unnoticed.
    #[test]
    fn every_code_as_pinned() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/testdata/rdkafka-err-names.tsv"
        );
        let fixture = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let mut rows = 0;
        for line in fixture.lines().filter(|l| !l.starts_with('#')) {
            let mut f = line.split('\t');
            let (Some(code), Some(name), Some(text), None) =
                (f.next(), f.next(), f.next(), f.next())
            else {
                panic!("{path}: not code, name, text: {line:?}");
            };
            let code: c_int = code.parse().unwrap_or_else(|e| panic!("{line:?}: {e}"));
            let got = (
                s(gregor_err_rdkafka_name(code)),
                s(gregor_err_rdkafka_str(code)),
            );
            // A code no table knows gets the shared pair once MAX_UNKNOWN
            // of them have been interned, as `unknown_code_strings_stay_valid`
            // may have done first in this process.
            let overflow =
                name == format!("ERR_{code}?") && got == ("ERR_?".into(), "Err-?".into());
            assert!(
                overflow || got == (name.to_string(), text.to_string()),
                "code {code}: {got:?}, pinned ({name:?}, {text:?})"
            );
            rows += 1;
        }
        assert_eq!(rows, 401 + 21, "{path}: rows");
    }

    #[test]
    fn unknown_code_strings_stay_valid() {
        let name = gregor_err_rdkafka_name(-1000);
        let text = gregor_err_rdkafka_str(-1000);
        assert_eq!(s(name), "ERR_-1000?");
        assert_eq!(s(text), "Err--1000?");
        for c in 0..2 * MAX_UNKNOWN as c_int {
            assert!(!gregor_err_rdkafka_name(-5000 - c).is_null());
        }
        assert_eq!(s(gregor_err_rdkafka_name(i32::MAX)), "ERR_?");
        assert_eq!(s(name), "ERR_-1000?");
        assert_eq!(gregor_err_rdkafka_name(-1000), name);
    }
}
