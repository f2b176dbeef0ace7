//! `rd_kafka_mock_cluster_t` of rdkafka_mock.h: librdkafka's mock cluster
//! API served by gregor's own mock cluster (`gregor::mock::Cluster`), so
//! programs and tests written for librdkafka's mock run on ours.
//!
//! A cluster is made with an `rd_kafka_t` (`rd_kafka_mock_cluster_new`),
//! which `rd_kafka_mock_cluster_handle` answers; the handle does not own
//! it: the application destroys the cluster before the handle, as with
//! librdkafka. The variadic `rd_kafka_mock_push_request_errors` and
//! `rd_kafka_mock_broker_push_request_error_rtts` are C, in `csrc/mock.c`,
//! on `rd_kafka_mock_push_request_errors_array` and
//! `gregor_rdkafka_mock_broker_push_request_error_rtts` here.
//! Requests tracked by the cluster (`rd_kafka_mock_get_requests`) are
//! copied out as `rd_kafka_mock_request_t` objects in a C-heap array that
//! `rd_kafka_mock_request_destroy_array` frees; their timestamps are
//! microseconds on the monotonic clock since the cluster started (only
//! their differences mean anything, as librdkafka's `rd_clock()` ones).
//!
//! What gregor's mock has no equivalent of stays a generated stub
//! (`RD_KAFKA_RESP_ERR__NOT_IMPLEMENTED`, NULL or nothing).

#![allow(unsafe_code)] // `#[no_mangle]`

use std::ffi::{c_char, c_int, c_void, CString};
use std::ptr;
use std::time::Duration;

use gregor::mock::{Cluster, MockError};

use crate::guard::guard;
use crate::handle::Handle;
use crate::raw;

const RESP_ERR_NO_ERROR: c_int = 0;
const RESP_ERR_UNKNOWN_TOPIC_OR_PART: c_int = 3;
const RESP_ERR_BROKER_NOT_AVAILABLE: c_int = 8;
const RESP_ERR_TOPIC_ALREADY_EXISTS: c_int = 36;
const RESP_ERR__INVALID_ARG: c_int = -186;
const RESP_ERR__UNKNOWN_BROKER: c_int = -146;
const RESP_ERR__TRANSPORT: c_int = -195;

/// `rd_kafka_mock_cluster_t`.
pub struct MockCluster {
    /// The `rd_kafka_t *` it was made with.
    rk: usize,
    cluster: Owner,
    bootstraps: CString,
}

/// Whose the cluster is.
enum Owner {
    /// `rd_kafka_mock_cluster_new`'s, the object's own.
    Own(Cluster),
    /// The private cluster of a handle's `test.mock.num.brokers`
    /// (`rd_kafka_handle_mock_cluster`): the handle's client holds it, and
    /// this object is the handle's, dropped with it.
    Handle(*const Cluster),
}

impl MockCluster {
    fn cluster(&self) -> &Cluster {
        match &self.cluster {
            Owner::Own(c) => c,
            // SAFETY: the handle's client keeps its mock cluster for as
            // long as the handle, which owns this object.
            Owner::Handle(c) => unsafe { &**c },
        }
    }
}

/// `rd_kafka_mock_request_t`: one request a mock broker received.
#[derive(Debug, Clone, Copy)]
pub struct MockRequest {
    broker: i32,
    api_key: i16,
    timestamp_us: i64,
}

/// librdkafka's error code of a mock failure.
fn code(e: &MockError) -> c_int {
    match e {
        MockError::UnknownBroker(_) => RESP_ERR_BROKER_NOT_AVAILABLE,
        MockError::UnknownTopic(_) => RESP_ERR_UNKNOWN_TOPIC_OR_PART,
        MockError::TopicExists(_) => RESP_ERR_TOPIC_ALREADY_EXISTS,
        MockError::Invalid(_) => RESP_ERR__INVALID_ARG,
        MockError::Io(_) => RESP_ERR__TRANSPORT,
    }
}

/// Runs `f` on the caller's cluster; its result as an error code.
fn on(mcluster: *const MockCluster, f: impl FnOnce(&Cluster) -> Result<(), MockError>) -> c_int {
    guard(RESP_ERR__INVALID_ARG, || match raw::object(mcluster) {
        None => RESP_ERR__INVALID_ARG,
        Some(m) => f(m.cluster()).map_or_else(|e| code(&e), |()| RESP_ERR_NO_ERROR),
    })
}

/// [`on`] for a command on the topic named by the C string `topic`:
/// `_INVALID_ARG` for NULL.
fn on_topic(
    mcluster: *const MockCluster,
    topic: *const c_char,
    f: impl FnOnce(&Cluster, &str) -> Result<(), MockError>,
) -> c_int {
    let Some(topic) = raw::read_cstr(topic) else {
        return RESP_ERR__INVALID_ARG;
    };
    on(mcluster, |c| f(c, &topic))
}

/// Runs `f` on broker `broker_id`, or on every broker for -1 (as
/// librdkafka's broker commands).
fn on_brokers(
    mcluster: *const MockCluster,
    broker_id: i32,
    f: impl Fn(&Cluster, i32) -> Result<(), MockError>,
) -> c_int {
    on(mcluster, |c| {
        if broker_id == -1 {
            c.broker_ids().into_iter().try_for_each(|id| f(c, id))
        } else {
            f(c, broker_id)
        }
    })
}

/// `rd_kafka_mock_cluster_new`: `broker_cnt` brokers (IDs 1..=broker_cnt)
/// on ephemeral ports of 127.0.0.1; NULL on failure.
#[no_mangle]
pub extern "C" fn rd_kafka_mock_cluster_new(
    rk: *mut Handle,
    broker_cnt: c_int,
) -> *mut MockCluster {
    guard(ptr::null_mut(), || {
        let Ok(n) = usize::try_from(broker_cnt) else {
            return ptr::null_mut();
        };
        if rk.is_null() || n == 0 {
            return ptr::null_mut();
        }
        let Ok(cluster) = Cluster::builder().brokers(n).build() else {
            return ptr::null_mut();
        };
        let bootstraps = CString::new(cluster.bootstrap_servers()).unwrap_or_default();
        Box::into_raw(Box::new(MockCluster {
            rk: rk as usize,
            cluster: Owner::Own(cluster),
            bootstraps,
        }))
    })
}

/// `rd_kafka_handle_mock_cluster`: the mock cluster the handle's
/// `test.mock.num.brokers` started, NULL without one. The handle owns it.
#[no_mangle]
pub extern "C" fn rd_kafka_handle_mock_cluster(rk: *const Handle) -> *mut MockCluster {
    guard(ptr::null_mut(), || {
        let Some(h) = raw::object(rk) else {
            return ptr::null_mut();
        };
        let Some(cluster) = h.mock_cluster() else {
            return ptr::null_mut();
        };
        let m = h.mock.get_or_init(|| {
            Box::new(MockCluster {
                rk: rk as usize,
                bootstraps: CString::new(cluster.bootstrap_servers()).unwrap_or_default(),
                cluster: Owner::Handle(cluster),
            })
        });
        &**m as *const MockCluster as *mut MockCluster
    })
}

/// `rd_kafka_mock_cluster_destroy`: stops the brokers and frees the cluster.
#[no_mangle]
pub extern "C" fn rd_kafka_mock_cluster_destroy(mcluster: *mut MockCluster) {
    guard((), || {
        // a handle's own cluster is destroyed with the handle
        if raw::object(mcluster.cast_const()).is_some_and(|m| matches!(m.cluster, Owner::Own(_))) {
            drop(raw::take_box(mcluster));
        }
    });
}

/// `rd_kafka_mock_cluster_handle`: the `rd_kafka_t` the cluster was made with.
#[no_mangle]
pub extern "C" fn rd_kafka_mock_cluster_handle(mcluster: *const MockCluster) -> *mut Handle {
    guard(ptr::null_mut(), || {
        raw::object(mcluster).map_or(ptr::null_mut(), |m| m.rk as *mut Handle)
    })
}

/// `rd_kafka_mock_cluster_bootstraps`: the brokers' `host:port` list, valid
/// as long as the cluster.
#[no_mangle]
pub extern "C" fn rd_kafka_mock_cluster_bootstraps(mcluster: *const MockCluster) -> *const c_char {
    guard(ptr::null(), || {
        raw::object(mcluster).map_or(ptr::null(), |m| m.bootstraps.as_ptr())
    })
}

/// `rd_kafka_mock_topic_create`.
#[no_mangle]
pub extern "C" fn rd_kafka_mock_topic_create(
    mcluster: *mut MockCluster,
    topic: *const c_char,
    partition_cnt: c_int,
    replication_factor: c_int,
) -> c_int {
    on_topic(mcluster, topic, |c, topic| {
        c.create_topic(topic, partition_cnt, replication_factor)
    })
}

/// `rd_kafka_mock_partition_set_leader` (-1: no leader).
#[no_mangle]
pub extern "C" fn rd_kafka_mock_partition_set_leader(
    mcluster: *mut MockCluster,
    topic: *const c_char,
    partition: i32,
    broker_id: i32,
) -> c_int {
    on_topic(mcluster, topic, |c, topic| {
        c.set_partition_leader(topic, partition, broker_id)
    })
}

/// `rd_kafka_mock_partition_set_follower`: the replica fetches from
/// followers are sent to.
#[no_mangle]
pub extern "C" fn rd_kafka_mock_partition_set_follower(
    mcluster: *mut MockCluster,
    topic: *const c_char,
    partition: i32,
    broker_id: i32,
) -> c_int {
    on_topic(mcluster, topic, |c, topic| {
        c.set_partition_follower(topic, partition, broker_id)
    })
}

/// `rd_kafka_mock_broker_set_down` (-1: every broker, as the calls below): closes its listener and connections.
#[no_mangle]
pub extern "C" fn rd_kafka_mock_broker_set_down(
    mcluster: *mut MockCluster,
    broker_id: i32,
) -> c_int {
    on_brokers(mcluster, broker_id, Cluster::broker_down)
}

/// `rd_kafka_mock_broker_set_up`: listens again on its port.
#[no_mangle]
pub extern "C" fn rd_kafka_mock_broker_set_up(mcluster: *mut MockCluster, broker_id: i32) -> c_int {
    on_brokers(mcluster, broker_id, Cluster::broker_up)
}

/// `rd_kafka_mock_broker_set_rtt`: delays the broker's responses.
#[no_mangle]
pub extern "C" fn rd_kafka_mock_broker_set_rtt(
    mcluster: *mut MockCluster,
    broker_id: i32,
    rtt_ms: c_int,
) -> c_int {
    let rtt = Duration::from_millis(u64::try_from(rtt_ms).unwrap_or(0));
    on_brokers(mcluster, broker_id, |c, id| c.set_broker_rtt(id, rtt))
}

/// `rd_kafka_mock_broker_set_rack` (NULL: none).
#[no_mangle]
pub extern "C" fn rd_kafka_mock_broker_set_rack(
    mcluster: *mut MockCluster,
    broker_id: i32,
    rack: *const c_char,
) -> c_int {
    let rack = raw::read_cstr(rack);
    on_brokers(mcluster, broker_id, |c, id| {
        c.set_broker_rack(id, rack.as_deref())
    })
}

/// `rd_kafka_mock_push_request_errors_array`: the next `cnt` requests of
/// `api_key`, on any broker, are answered with `errors` in turn.
#[no_mangle]
pub extern "C" fn rd_kafka_mock_push_request_errors_array(
    mcluster: *mut MockCluster,
    api_key: i16,
    cnt: usize,
    errors: *const c_int,
) {
    let errors: Vec<i16> = raw::read_array(errors, cnt)
        .iter()
        .map(|&e| i16::try_from(e).unwrap_or(-1))
        .collect();
    on(mcluster, |c| {
        c.push_request_errors(api_key, &errors);
        Ok(())
    });
}

/// `rd_kafka_mock_broker_push_request_error_rtts` without its variadic
/// list (the C of `csrc/mock.c` reads the `cnt` pairs into `errors` and
/// `rtts`): broker `broker_id` answers its next `cnt` requests of `api_key`
/// with `errors` in turn, each after its delay of `rtts` milliseconds
/// (added to the broker's RTT). `_UNKNOWN_BROKER` for an unknown broker,
/// as librdkafka's. Not one of librdkafka's names: the C declares it
/// hidden, so the library does not export it.
#[no_mangle]
pub extern "C" fn gregor_rdkafka_mock_broker_push_request_error_rtts(
    mcluster: *mut MockCluster,
    broker_id: i32,
    api_key: i16,
    cnt: usize,
    errors: *const c_int,
    rtts: *const c_int,
) -> c_int {
    let errors: Vec<(i16, Duration)> = raw::read_array(errors, cnt)
        .iter()
        .zip(raw::read_array(rtts, cnt))
        .map(|(&e, &rtt)| {
            let rtt = Duration::from_millis(u64::try_from(rtt).unwrap_or(0));
            (i16::try_from(e).unwrap_or(-1), rtt)
        })
        .collect();
    guard(RESP_ERR__INVALID_ARG, || match raw::object(mcluster) {
        None => RESP_ERR__INVALID_ARG,
        Some(m) => match m
            .cluster()
            .push_broker_request_errors(broker_id, api_key, &errors)
        {
            Ok(()) => RESP_ERR_NO_ERROR,
            Err(MockError::UnknownBroker(_)) => RESP_ERR__UNKNOWN_BROKER,
            Err(e) => code(&e),
        },
    })
}

/// `rd_kafka_mock_coordinator_set`: pins the coordinator of a group
/// (`key_type` "group") or transactional ID ("transaction").
#[no_mangle]
pub extern "C" fn rd_kafka_mock_coordinator_set(
    mcluster: *mut MockCluster,
    key_type: *const c_char,
    key: *const c_char,
    broker_id: i32,
) -> c_int {
    let (Some(kind), Some(key)) = (raw::read_cstr(key_type), raw::read_cstr(key)) else {
        return RESP_ERR__INVALID_ARG;
    };
    on(mcluster, |c| c.set_coordinator(&kind, &key, broker_id))
}

/// `rd_kafka_mock_set_apiversion`: the versions of `api_key` the brokers
/// advertise (-1, -1: not supported).
#[no_mangle]
pub extern "C" fn rd_kafka_mock_set_apiversion(
    mcluster: *mut MockCluster,
    api_key: i16,
    min_version: i16,
    max_version: i16,
) -> c_int {
    on(mcluster, |c| {
        c.set_api_version(api_key, min_version, max_version)
    })
}

/// `rd_kafka_mock_group_initial_rebalance_delay_ms`.
#[no_mangle]
pub extern "C" fn rd_kafka_mock_group_initial_rebalance_delay_ms(
    mcluster: *mut MockCluster,
    delay_ms: i32,
) {
    let d = Duration::from_millis(u64::try_from(delay_ms).unwrap_or(0));
    on(mcluster, |c| {
        c.set_group_initial_rebalance_delay(d);
        Ok(())
    });
}

/// `rd_kafka_mock_start_request_tracking`.
#[no_mangle]
pub extern "C" fn rd_kafka_mock_start_request_tracking(mcluster: *mut MockCluster) {
    on(mcluster, |c| {
        c.start_request_tracking();
        Ok(())
    });
}

/// `rd_kafka_mock_stop_request_tracking`.
#[no_mangle]
pub extern "C" fn rd_kafka_mock_stop_request_tracking(mcluster: *mut MockCluster) {
    on(mcluster, |c| {
        c.stop_request_tracking();
        Ok(())
    });
}

/// `rd_kafka_mock_clear_requests`: forgets the requests tracked so far.
#[no_mangle]
pub extern "C" fn rd_kafka_mock_clear_requests(mcluster: *mut MockCluster) {
    on(mcluster, |c| {
        c.clear_requests();
        Ok(())
    });
}

/// `rd_kafka_mock_get_requests`: the tracked requests, oldest first, in an
/// array of `*cntp` objects for `rd_kafka_mock_request_destroy_array`.
#[no_mangle]
pub extern "C" fn rd_kafka_mock_get_requests(
    mcluster: *mut MockCluster,
    cntp: *mut usize,
) -> *mut *mut MockRequest {
    guard(ptr::null_mut(), || {
        raw::write_out(cntp, 0);
        let Some(m) = raw::object(mcluster.cast_const()) else {
            return ptr::null_mut();
        };
        let started = m.cluster().started();
        let reqs = m.cluster().requests();
        let array = crate::mem::malloc(reqs.len().max(1) * std::mem::size_of::<*mut MockRequest>())
            .cast::<*mut MockRequest>();
        if array.is_null() {
            return ptr::null_mut();
        }
        for (slot, r) in raw::read_array_mut(array, reqs.len()).iter_mut().zip(&reqs) {
            let us = r.at.saturating_duration_since(started).as_micros();
            *slot = Box::into_raw(Box::new(MockRequest {
                broker: r.broker,
                api_key: r.api_key,
                timestamp_us: i64::try_from(us).unwrap_or(i64::MAX),
            }));
        }
        raw::write_out(cntp, reqs.len());
        array
    })
}

/// `rd_kafka_mock_request_destroy`.
#[no_mangle]
pub extern "C" fn rd_kafka_mock_request_destroy(mreq: *mut MockRequest) {
    guard((), || drop(raw::take_box(mreq)));
}

/// `rd_kafka_mock_request_destroy_array`: the requests and their array.
#[no_mangle]
pub extern "C" fn rd_kafka_mock_request_destroy_array(mreqs: *mut *mut MockRequest, cnt: usize) {
    guard((), || {
        for &r in raw::read_array(mreqs.cast_const(), cnt) {
            drop(raw::take_box(r));
        }
        raw::c_free(mreqs.cast::<c_void>());
    });
}

/// `rd_kafka_mock_request_id`: the broker that received it.
#[no_mangle]
pub extern "C" fn rd_kafka_mock_request_id(mreq: *mut MockRequest) -> i32 {
    guard(-1, || {
        raw::object(mreq.cast_const()).map_or(-1, |r| r.broker)
    })
}

/// `rd_kafka_mock_request_api_key`.
#[no_mangle]
pub extern "C" fn rd_kafka_mock_request_api_key(mreq: *mut MockRequest) -> i16 {
    guard(-1, || {
        raw::object(mreq.cast_const()).map_or(-1, |r| r.api_key)
    })
}

/// `rd_kafka_mock_request_timestamp`: when the broker read it, in
/// microseconds on the monotonic clock.
#[no_mangle]
pub extern "C" fn rd_kafka_mock_request_timestamp(mreq: *mut MockRequest) -> i64 {
    guard(-1, || {
        raw::object(mreq.cast_const()).map_or(-1, |r| r.timestamp_us)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cluster_calls_answer_as_librdkafka_mock() {
        // the handle is only kept and handed back, never used
        let rk = ptr::NonNull::<Handle>::dangling().as_ptr();
        assert!(rd_kafka_mock_cluster_new(rk, 0).is_null());
        let mc = rd_kafka_mock_cluster_new(rk, 3);
        assert!(!mc.is_null());
        assert_eq!(rd_kafka_mock_cluster_handle(mc), rk);
        let boot = raw::read_cstr(rd_kafka_mock_cluster_bootstraps(mc)).unwrap();
        assert_eq!(boot.split(',').count(), 3);
        let topic = c"t";
        assert_eq!(rd_kafka_mock_topic_create(mc, topic.as_ptr(), 2, 3), 0);
        assert_eq!(
            rd_kafka_mock_topic_create(mc, topic.as_ptr(), 2, 3),
            RESP_ERR_TOPIC_ALREADY_EXISTS
        );
        assert_eq!(
            rd_kafka_mock_partition_set_leader(mc, topic.as_ptr(), 1, 2),
            0
        );
        assert_eq!(
            rd_kafka_mock_partition_set_leader(mc, topic.as_ptr(), 1, 9),
            RESP_ERR_BROKER_NOT_AVAILABLE
        );
        assert_eq!(
            rd_kafka_mock_broker_set_down(mc, 99),
            RESP_ERR_BROKER_NOT_AVAILABLE
        );
        assert_eq!(rd_kafka_mock_broker_set_rtt(mc, -1, 1), 0);
        rd_kafka_mock_start_request_tracking(mc);
        let mut cnt = 7usize;
        let reqs = rd_kafka_mock_get_requests(mc, &mut cnt);
        assert_eq!(cnt, 0);
        rd_kafka_mock_request_destroy_array(reqs, cnt);
        rd_kafka_mock_cluster_destroy(mc);
    }
}
