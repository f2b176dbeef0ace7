//! gregor's own mock cluster (`gregor_mock_*`), the C face of
//! [`crate::mock::Cluster`]: the calls of librdkafka's rdkafka_mock.h that
//! an application test needs, with the same names and arguments where
//! they apply (`rd_kafka_mock_topic_create` → `gregor_mock_topic_create`),
//! on a handle of its own instead of an `rd_kafka_t`.

use std::ffi::{c_char, c_int, CString};
use std::ptr;
use std::time::Duration;

use super::guard::{guard, guard_code};
use super::raw::*;
use crate::error::{local, Error};
use crate::mock::{Cluster, MockError};

/// A running mock cluster; `gregor_mock_cluster_destroy` stops it.
pub struct gregor_mock_cluster {
    inner: Cluster,
    bootstraps: CString,
}

/// One request a mock broker received while tracking was on.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct gregor_mock_request {
    /// The broker that received it.
    pub broker_id: i32,
    /// Its API key.
    pub api_key: i16,
    /// Its version.
    pub api_version: i16,
    /// When the broker read it: microseconds since the cluster started, on
    /// the monotonic clock (as `rd_kafka_mock_request_timestamp`).
    pub timestamp_us: i64,
}

fn err(e: MockError) -> Error {
    let code = match &e {
        MockError::UnknownBroker(_) => local::INVALID_ARG,
        MockError::UnknownTopic(_) => local::UNKNOWN_TOPIC,
        MockError::TopicExists(_) => 36, // TOPIC_ALREADY_EXISTS
        MockError::Invalid(_) => local::INVALID_ARG,
        MockError::Io(_) => local::TRANSPORT,
    };
    Error::local(code, e.to_string())
}

fn mc<'a>(p: *mut gregor_mock_cluster) -> Result<&'a gregor_mock_cluster, Error> {
    handle(p.cast_const(), "mock cluster")
}

/// Starts a mock cluster of `broker_cnt` brokers (IDs 1..=broker_cnt) on
/// ephemeral ports of 127.0.0.1. NULL on error, with the reason in `errstr`.
/// Free with `gregor_mock_cluster_destroy`.
#[no_mangle]
pub extern "C" fn gregor_mock_cluster_new(
    broker_cnt: c_int,
    errstr: *mut c_char,
    errstr_size: usize,
) -> *mut gregor_mock_cluster {
    let mut out = ptr::null_mut();
    let code = guard_code(errstr, errstr_size, || {
        let n = usize::try_from(broker_cnt)
            .map_err(|_| Error::invalid_arg(format!("broker_cnt {broker_cnt}")))?;
        let inner = Cluster::new(n).map_err(err)?;
        let bootstraps = CString::new(inner.bootstrap_servers()).expect("no NUL in addresses");
        out = Box::into_raw(Box::new(gregor_mock_cluster { inner, bootstraps }));
        Ok(())
    });
    if code != 0 {
        return ptr::null_mut();
    }
    out
}

/// The cluster's `host:port,...` list for `bootstrap.servers`, owned by the
/// cluster (valid until it is destroyed). NULL for a NULL cluster.
#[no_mangle]
pub extern "C" fn gregor_mock_cluster_bootstraps(
    mcluster: *const gregor_mock_cluster,
) -> *const c_char {
    guard(ptr::null(), || {
        handle(mcluster, "mock cluster").map_or(ptr::null(), |m| m.bootstraps.as_ptr())
    })
}

/// Stops every broker and frees the cluster. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_mock_cluster_destroy(mcluster: *mut gregor_mock_cluster) {
    guard((), || free(mcluster))
}

/// Creates `topic` with `partition_cnt` partitions of `replication_factor`
/// replicas, leaders spread over the brokers. 0, `GREGOR_ERR__INVALID_ARG`
/// or TOPIC_ALREADY_EXISTS (36).
#[no_mangle]
pub extern "C" fn gregor_mock_topic_create(
    mcluster: *mut gregor_mock_cluster,
    topic: *const c_char,
    partition_cnt: c_int,
    replication_factor: c_int,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        mc(mcluster)?
            .inner
            .create_topic(c_str(topic, "topic")?, partition_cnt, replication_factor)
            .map_err(err)
    })
}

/// Makes `broker_id` the leader of partition `partition` of `topic`; its leader epoch
/// goes up by one. `GREGOR_ERR__UNKNOWN_TOPIC` for an unknown partition.
#[no_mangle]
pub extern "C" fn gregor_mock_partition_set_leader(
    mcluster: *mut gregor_mock_cluster,
    topic: *const c_char,
    partition: i32,
    broker_id: i32,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        mc(mcluster)?
            .inner
            .set_partition_leader(c_str(topic, "topic")?, partition, broker_id)
            .map_err(err)
    })
}

/// Makes `broker_id` (-1: none) the follower the leader of partition
/// `partition` of `topic` names as preferred read replica (KIP-392) to a
/// consumer that sends its rack (`client.rack`), and which serves that
/// consumer's fetches (librdkafka's `rd_kafka_mock_partition_set_follower`).
/// `GREGOR_ERR__UNKNOWN_TOPIC` for an unknown partition.
#[no_mangle]
pub extern "C" fn gregor_mock_partition_set_follower(
    mcluster: *mut gregor_mock_cluster,
    topic: *const c_char,
    partition: i32,
    broker_id: i32,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        mc(mcluster)?
            .inner
            .set_partition_follower(c_str(topic, "topic")?, partition, broker_id)
            .map_err(err)
    })
}

/// Takes a broker down: its connections close and new ones are refused.
#[no_mangle]
pub extern "C" fn gregor_mock_broker_set_down(
    mcluster: *mut gregor_mock_cluster,
    broker_id: i32,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        mc(mcluster)?.inner.broker_down(broker_id).map_err(err)
    })
}

/// Brings a broker back up on its port.
#[no_mangle]
pub extern "C" fn gregor_mock_broker_set_up(
    mcluster: *mut gregor_mock_cluster,
    broker_id: i32,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        mc(mcluster)?.inner.broker_up(broker_id).map_err(err)
    })
}

/// Delays every response of a broker by `rtt_ms` milliseconds.
#[no_mangle]
pub extern "C" fn gregor_mock_broker_set_rtt(
    mcluster: *mut gregor_mock_cluster,
    broker_id: i32,
    rtt_ms: c_int,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let ms =
            u64::try_from(rtt_ms).map_err(|_| Error::invalid_arg(format!("rtt_ms {rtt_ms}")))?;
        mc(mcluster)?
            .inner
            .set_broker_rtt(broker_id, Duration::from_millis(ms))
            .map_err(err)
    })
}

/// Sets a broker's rack (NULL: none).
#[no_mangle]
pub extern "C" fn gregor_mock_broker_set_rack(
    mcluster: *mut gregor_mock_cluster,
    broker_id: i32,
    rack: *const c_char,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let rack = opt_c_str(rack, "rack")?;
        mc(mcluster)?
            .inner
            .set_broker_rack(broker_id, rack)
            .map_err(err)
    })
}

/// The next `cnt` requests of `api_key` (on any broker) are answered with
/// `errors[0..cnt]` in turn (librdkafka's
/// `rd_kafka_mock_push_request_errors_array`).
#[no_mangle]
pub extern "C" fn gregor_mock_push_request_errors(
    mcluster: *mut gregor_mock_cluster,
    api_key: i16,
    cnt: usize,
    errors: *const i16,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let errors = slice(errors, cnt, "errors")?;
        mc(mcluster)?.inner.push_request_errors(api_key, errors);
        Ok(())
    })
}

/// As `gregor_mock_push_request_errors`, on one broker, each error answered
/// after `rtts_ms[i]` milliseconds (`rtts_ms` may be NULL: no delay).
#[no_mangle]
pub extern "C" fn gregor_mock_broker_push_request_error_rtts(
    mcluster: *mut gregor_mock_cluster,
    broker_id: i32,
    api_key: i16,
    cnt: usize,
    errors: *const i16,
    rtts_ms: *const c_int,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let errors = slice(errors, cnt, "errors")?;
        let rtts: Vec<c_int> = if rtts_ms.is_null() {
            vec![0; cnt]
        } else {
            slice(rtts_ms, cnt, "rtts_ms")?.to_vec()
        };
        let list: Vec<(i16, Duration)> = errors
            .iter()
            .zip(rtts)
            .map(|(&e, r)| (e, Duration::from_millis(u64::try_from(r).unwrap_or(0))))
            .collect();
        mc(mcluster)?
            .inner
            .push_broker_request_errors(broker_id, api_key, &list)
            .map_err(err)
    })
}

/// Pins the coordinator of a group (`key_type` "group") or transactional
/// ID ("transaction") to `broker_id`.
#[no_mangle]
pub extern "C" fn gregor_mock_coordinator_set(
    mcluster: *mut gregor_mock_cluster,
    key_type: *const c_char,
    key: *const c_char,
    broker_id: i32,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        mc(mcluster)?
            .inner
            .set_coordinator(c_str(key_type, "key_type")?, c_str(key, "key")?, broker_id)
            .map_err(err)
    })
}

/// Narrows the versions of `api_key` the brokers advertise and accept
/// (`min_version` = `max_version` = -1: back to the served range).
#[no_mangle]
pub extern "C" fn gregor_mock_set_apiversion(
    mcluster: *mut gregor_mock_cluster,
    api_key: i16,
    min_version: i16,
    max_version: i16,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        mc(mcluster)?
            .inner
            .set_api_version(api_key, min_version, max_version)
            .map_err(err)
    })
}

/// Finalizes the cluster's `transaction.version` feature at `level`
/// (-1: not finalized, the default), advertised in ApiVersions to
/// connections made from now on: 2 or more serves transactions v2
/// (KIP-890 part 2: Produce v12 adds partitions, EndTxn v5 bumps the
/// producer epoch), below it transactions v1.
#[no_mangle]
pub extern "C" fn gregor_mock_set_transaction_version(
    mcluster: *mut gregor_mock_cluster,
    level: i16,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        mc(mcluster)?
            .inner
            .set_transaction_version((level >= 0).then_some(level));
        Ok(())
    })
}

/// Kafka's `group.initial.rebalance.delay.ms` for groups formed from now on
/// (default 3000, as librdkafka's mock).
#[no_mangle]
pub extern "C" fn gregor_mock_group_initial_rebalance_delay_ms(
    mcluster: *mut gregor_mock_cluster,
    delay_ms: c_int,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let ms = u64::try_from(delay_ms)
            .map_err(|_| Error::invalid_arg(format!("delay_ms {delay_ms}")))?;
        mc(mcluster)?
            .inner
            .set_group_initial_rebalance_delay(Duration::from_millis(ms));
        Ok(())
    })
}

/// Starts recording every request (broker, API key, version).
#[no_mangle]
pub extern "C" fn gregor_mock_start_request_tracking(mcluster: *mut gregor_mock_cluster) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        mc(mcluster)?.inner.start_request_tracking();
        Ok(())
    })
}

/// Stops recording and forgets what was recorded.
#[no_mangle]
pub extern "C" fn gregor_mock_stop_request_tracking(mcluster: *mut gregor_mock_cluster) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        mc(mcluster)?.inner.stop_request_tracking();
        Ok(())
    })
}

/// Copies up to `max` recorded requests, oldest first, into `out`; returns
/// how many were recorded in all (call with `max` 0 to size the array).
#[no_mangle]
pub extern "C" fn gregor_mock_get_requests(
    mcluster: *mut gregor_mock_cluster,
    out: *mut gregor_mock_request,
    max: usize,
) -> usize {
    guard(0, || {
        let Ok(m) = mc(mcluster) else { return 0 };
        let reqs: Vec<gregor_mock_request> = m
            .inner
            .requests()
            .iter()
            .map(|r| gregor_mock_request {
                broker_id: r.broker,
                api_key: r.api_key,
                api_version: r.api_version,
                timestamp_us: i64::try_from(
                    r.at.saturating_duration_since(m.inner.started())
                        .as_micros(),
                )
                .unwrap_or(i64::MAX),
            })
            .collect();
        if !out.is_null() {
            copy_out(&reqs[..reqs.len().min(max)], out);
        }
        reqs.len()
    })
}

/// Forgets the requests recorded so far (tracking stays on).
#[no_mangle]
pub extern "C" fn gregor_mock_clear_requests(mcluster: *mut gregor_mock_cluster) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        mc(mcluster)?.inner.clear_requests();
        Ok(())
    })
}

/// The high watermark of partition `partition` of `topic`, or -1 if there is no such
/// partition.
#[no_mangle]
pub extern "C" fn gregor_mock_partition_high_watermark(
    mcluster: *mut gregor_mock_cluster,
    topic: *const c_char,
    partition: i32,
) -> i64 {
    guard(-1, || {
        let (Ok(m), Ok(t)) = (mc(mcluster), c_str(topic, "topic")) else {
            return -1;
        };
        m.inner.high_watermark(t, partition).unwrap_or(-1)
    })
}
