//! Plain-data pieces of admin results: `rd_kafka_Node_t` (a broker, in
//! cluster, topic and group descriptions) and `rd_kafka_topic_result_t`
//! (one topic's outcome of CreateTopics, DeleteTopics, CreatePartitions).
//! Both are opaque in rdkafka.h and owned by the result they belong to;
//! the accessors here only read them. The results that hold them make
//! them with `Node::from_broker` and `TopicResult::new`.

#![allow(unsafe_code)] // `#[no_mangle]`, and reading the caller's objects

use std::ffi::{c_char, c_int, CString};
use std::ptr;

use gregor::error::Error;
use gregor::metadata::BrokerInfo;

use crate::errors::rd_kafka_err2str;
use crate::guard::guard;
use crate::raw;

/// Text as a C string, up to an interior NUL.
fn c_string(s: &str) -> CString {
    let bytes = s.as_bytes();
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    CString::new(&bytes[..end]).expect("no NUL before the end")
}

/// `rd_kafka_Node_t`: a broker's id, host, port and rack.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    id: c_int,
    host: CString,
    port: u16,
    rack: Option<CString>,
}

impl Node {
    /// The node of a broker of gregor's metadata (a port outside 0..=65535
    /// reads as 0).
    pub(crate) fn from_broker(b: &BrokerInfo) -> Self {
        Node {
            id: b.id,
            host: c_string(&b.host),
            port: u16::try_from(b.port).unwrap_or(0),
            rack: b.rack.as_deref().map(c_string),
        }
    }

    /// The node of broker `id`, from `brokers` when it is there, else
    /// with only its id (an empty host, port 0: a replica on a broker the
    /// cluster's metadata does not list, as when it is down).
    pub(crate) fn of_id(id: i32, brokers: &std::collections::BTreeMap<i32, BrokerInfo>) -> Self {
        brokers.get(&id).map_or_else(
            || Node {
                id,
                host: CString::default(),
                port: 0,
                rack: None,
            },
            Node::from_broker,
        )
    }
}

/// `rd_kafka_topic_result_t`: a topic's name and its error, with text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicResult {
    name: CString,
    err: c_int,
    /// `None` on success, as librdkafka's (NULL error string).
    errstr: Option<CString>,
}

impl TopicResult {
    /// A topic's outcome: its error code (0 for success) and the error's
    /// text (`None` on success).
    pub(crate) fn new(name: &str, err: c_int, errstr: Option<&str>) -> Self {
        TopicResult {
            name: c_string(name),
            err,
            errstr: errstr.map(c_string),
        }
    }

    /// A topic's outcome from gregor's answer: success, or the error with
    /// a text as librdkafka's: the code's text (`rd_kafka_err2str`) for a
    /// broker error, what went wrong for a local one.
    #[allow(dead_code)] // for the admin results
    pub(crate) fn from_error(name: &str, error: Option<&Error>) -> Self {
        let Some(e) = error else {
            return TopicResult::new(name, 0, None);
        };
        let text = match e.kafka_code() {
            Some(_) => raw::read_cstr(rd_kafka_err2str(e.code()))
                .map(|t| t.into_owned())
                .unwrap_or_default(),
            None => e.to_string(),
        };
        TopicResult::new(name, e.code(), Some(&text))
    }
}

/// The caller's object behind an opaque pointer; `None` for NULL.
fn read<'a, T>(p: *const T) -> Option<&'a T> {
    // SAFETY: rdkafka.h: a non-NULL `rd_kafka_Node_t *` /
    // `rd_kafka_topic_result_t *` is one of a live result (made here),
    // valid while that result is.
    unsafe { p.as_ref() }
}

/// `rd_kafka_Node_id`; -1 for NULL.
#[no_mangle]
pub extern "C" fn rd_kafka_Node_id(node: *const Node) -> c_int {
    guard(-1, || read(node).map_or(-1, |n| n.id))
}

/// `rd_kafka_Node_host`.
#[no_mangle]
pub extern "C" fn rd_kafka_Node_host(node: *const Node) -> *const c_char {
    guard(ptr::null(), || {
        read(node).map_or(ptr::null(), |n| n.host.as_ptr())
    })
}

/// `rd_kafka_Node_port`.
#[no_mangle]
pub extern "C" fn rd_kafka_Node_port(node: *const Node) -> u16 {
    guard(0, || read(node).map_or(0, |n| n.port))
}

/// `rd_kafka_Node_rack`: NULL if the broker has none.
#[no_mangle]
pub extern "C" fn rd_kafka_Node_rack(node: *const Node) -> *const c_char {
    guard(ptr::null(), || {
        read(node)
            .and_then(|n| n.rack.as_ref())
            .map_or(ptr::null(), |r| r.as_ptr())
    })
}

/// `rd_kafka_topic_result_error`.
#[no_mangle]
pub extern "C" fn rd_kafka_topic_result_error(topicres: *const TopicResult) -> c_int {
    guard(0, || read(topicres).map_or(0, |t| t.err))
}

/// `rd_kafka_topic_result_error_string`: NULL on success.
#[no_mangle]
pub extern "C" fn rd_kafka_topic_result_error_string(
    topicres: *const TopicResult,
) -> *const c_char {
    guard(ptr::null(), || {
        read(topicres)
            .and_then(|t| t.errstr.as_ref())
            .map_or(ptr::null(), |s| s.as_ptr())
    })
}

/// `rd_kafka_topic_result_name`.
#[no_mangle]
pub extern "C" fn rd_kafka_topic_result_name(topicres: *const TopicResult) -> *const c_char {
    guard(ptr::null(), || {
        read(topicres).map_or(ptr::null(), |t| t.name.as_ptr())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    fn s<'a>(p: *const c_char) -> Option<&'a str> {
        // SAFETY: a string of an object alive in the test.
        (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_str().unwrap())
    }

    #[test]
    fn node_accessors() {
        let b = BrokerInfo {
            id: 3,
            host: "kafka-3".into(),
            port: 9093,
            rack: Some("r1".into()),
        };
        let n = Node::from_broker(&b);
        assert_eq!(rd_kafka_Node_id(&n), 3);
        assert_eq!(s(rd_kafka_Node_host(&n)), Some("kafka-3"));
        assert_eq!(rd_kafka_Node_port(&n), 9093);
        assert_eq!(s(rd_kafka_Node_rack(&n)), Some("r1"));
        let n = Node::from_broker(&BrokerInfo { rack: None, ..b });
        assert_eq!(s(rd_kafka_Node_rack(&n)), None);
        assert_eq!(rd_kafka_Node_id(ptr::null()), -1);
        assert!(rd_kafka_Node_host(ptr::null()).is_null());
    }

    #[test]
    fn topic_result_accessors() {
        let ok = TopicResult::from_error("t", None);
        assert_eq!(rd_kafka_topic_result_error(&ok), 0);
        assert_eq!(s(rd_kafka_topic_result_error_string(&ok)), None);
        assert_eq!(s(rd_kafka_topic_result_name(&ok)), Some("t"));
        let e = Error::local(-185, "Timed out");
        let bad = TopicResult::from_error("u", Some(&e));
        assert_eq!(rd_kafka_topic_result_error(&bad), -185);
        assert!(s(rd_kafka_topic_result_error_string(&bad))
            .unwrap()
            .contains("Timed out"));
        let e = Error::kafka(gregor::error::KafkaCode(36), "CreateTopics");
        let exists = TopicResult::from_error("v", Some(&e));
        assert_eq!(rd_kafka_topic_result_error(&exists), 36);
        assert_eq!(
            s(rd_kafka_topic_result_error_string(&exists)),
            Some("Broker: Topic already exists")
        );
        let own = TopicResult::new("w", 37, Some("Number of partitions is invalid."));
        assert_eq!(
            s(rd_kafka_topic_result_error_string(&own)),
            Some("Number of partitions is invalid.")
        );
    }
}
