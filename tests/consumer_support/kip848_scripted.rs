//! The KIP-848 member (`group.protocol=consumer`) against a scripted
//! coordinator answering with the `kafka-protocol` crate's bytes, for what
//! librdkafka's mock cluster cannot show (tests/kip848.rs has the rest):
//! - OffsetFetch v9 carrying the member id and epoch (KIP-848; the mock
//!   speaks OffsetFetch up to v6), and a `STALE_MEMBER_EPOCH` answer retried;
//! - a member id the coordinator gives (the member adopts it);
//! - a target assignment naming a topic ID metadata does not know yet (the
//!   member keeps heartbeating and takes the partitions once metadata has
//!   the topic) — the mock's topics are always known;
//! - a heartbeat error with the coordinator's message, reported to poll
//!   while the member goes on;
//! - a regex subscription against a coordinator with ConsumerGroupHeartbeat
//!   v0 only (the regex came in v1): a fatal `_UNSUPPORTED_FEATURE`.
//!
//! Needs no broker. A module of tests/kip848.rs (one test binary less to
//! link).

use super::scripted;

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use gregor::config::Config;
use gregor::consumer::{Consumer, TopicPartitionOffset as Tpo};
use kafka_protocol::messages::consumer_group_heartbeat_response::{Assignment, TopicPartitions};
use kafka_protocol::messages::find_coordinator_response::Coordinator;
use kafka_protocol::messages::list_offsets_response::{
    ListOffsetsPartitionResponse, ListOffsetsTopicResponse,
};
use kafka_protocol::messages::offset_fetch_response::{
    OffsetFetchResponseGroup, OffsetFetchResponsePartitions, OffsetFetchResponseTopics,
};
use kafka_protocol::messages::{
    ApiKey, BrokerId, ConsumerGroupHeartbeatResponse, FetchResponse, FindCoordinatorResponse,
    ListOffsetsResponse, OffsetFetchResponse, RequestKind, ResponseKind,
};

const TOPIC_ID: [u8; 16] = [8; 16];
/// The member id the scripted coordinator gives.
const GIVEN_ID: &str = "coordinator-given-id";

/// A heartbeat seen: member id, member epoch, owned partitions reported.
type Heartbeat = (String, i32, Option<Vec<i32>>);

/// What the scripted coordinator does and saw.
#[derive(Default)]
struct Coord {
    /// Metadata lists topic "t".
    topic_known: AtomicBool,
    /// The next this many OffsetFetch answers are STALE_MEMBER_EPOCH.
    stale_fetches: AtomicI32,
    /// The next heartbeat answers this error (with a message), once.
    hb_error: AtomicI32,
    /// (member id, member epoch, owned partitions reported) per heartbeat.
    heartbeats: Mutex<Vec<Heartbeat>>,
    /// (version, member id, member epoch) per OffsetFetch.
    fetches: Mutex<Vec<(i16, Option<String>, i32)>>,
    /// (member id, epoch) per OffsetCommit.
    commits: Mutex<Vec<(String, i32)>>,
}

fn coordinator(c: Arc<Coord>, heartbeat_max: i16) -> scripted::Scripted {
    let apis = [
        (ApiKey::Metadata, 0, 12),
        (ApiKey::FindCoordinator, 0, 4),
        (ApiKey::ConsumerGroupHeartbeat, 0, heartbeat_max),
        (ApiKey::OffsetFetch, 0, 9),
        (ApiKey::OffsetCommit, 0, 9),
        (ApiKey::Fetch, 4, 12),
        (ApiKey::ListOffsets, 1, 7),
    ];
    scripted::start(&apis, move |addr, version, req| {
        let port: i32 = addr.rsplit(':').next().unwrap().parse().unwrap();
        Some(match req {
            RequestKind::Metadata(_) => {
                if c.topic_known.load(Ordering::SeqCst) {
                    scripted::metadata(addr, &[("t", TOPIC_ID, 2, 0)])
                } else {
                    scripted::metadata(addr, &[])
                }
            }
            RequestKind::FindCoordinator(f) => {
                let mut r = FindCoordinatorResponse::default();
                if version >= 4 {
                    r.coordinators = f
                        .coordinator_keys
                        .iter()
                        .map(|k| {
                            let mut co = Coordinator::default();
                            co.key = k.clone();
                            co.node_id = BrokerId(scripted::NODE);
                            co.host = scripted::sb("127.0.0.1");
                            co.port = port;
                            co
                        })
                        .collect();
                } else {
                    r.node_id = BrokerId(scripted::NODE);
                    r.host = scripted::sb("127.0.0.1");
                    r.port = port;
                }
                ResponseKind::FindCoordinator(r)
            }
            RequestKind::ConsumerGroupHeartbeat(h) => {
                let owned = h.topic_partitions.as_ref().map(|ts| {
                    ts.iter()
                        .flat_map(|t| t.partitions.iter().copied())
                        .collect::<Vec<_>>()
                });
                c.heartbeats
                    .lock()
                    .unwrap()
                    .push((h.member_id.to_string(), h.member_epoch, owned));
                let mut r = ConsumerGroupHeartbeatResponse::default();
                r.heartbeat_interval_ms = 100;
                let err = c.hb_error.swap(0, Ordering::SeqCst);
                if err != 0 {
                    r.error_code = err as i16;
                    r.error_message = Some(scripted::sb("scripted: not allowed"));
                    r.member_epoch = h.member_epoch;
                    return Some(ResponseKind::ConsumerGroupHeartbeat(r));
                }
                r.member_id = Some(scripted::sb(GIVEN_ID));
                if h.member_epoch < 0 {
                    r.member_epoch = h.member_epoch;
                } else if h.member_epoch == 0 {
                    // joining: epoch 1, both partitions
                    r.member_epoch = 1;
                    let mut tp = TopicPartitions::default();
                    tp.topic_id = scripted::uuid(TOPIC_ID);
                    tp.partitions = vec![0, 1];
                    let mut a = Assignment::default();
                    a.topic_partitions = vec![tp];
                    r.assignment = Some(a);
                } else {
                    r.member_epoch = h.member_epoch;
                }
                ResponseKind::ConsumerGroupHeartbeat(r)
            }
            RequestKind::OffsetFetch(f) => {
                let g = f.groups.first();
                c.fetches.lock().unwrap().push((
                    version,
                    g.and_then(|g| g.member_id.as_ref().map(|m| m.to_string())),
                    g.map_or(-1, |g| g.member_epoch),
                ));
                let mut r = OffsetFetchResponse::default();
                let mut rg = OffsetFetchResponseGroup::default();
                rg.group_id = g.map(|g| g.group_id.clone()).unwrap_or_default();
                if c.stale_fetches
                    .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                        (n > 0).then_some(n - 1)
                    })
                    .is_ok()
                {
                    rg.error_code = 113; // STALE_MEMBER_EPOCH
                } else {
                    rg.topics = g
                        .and_then(|g| g.topics.as_ref())
                        .into_iter()
                        .flatten()
                        .map(|t| {
                            let mut rt = OffsetFetchResponseTopics::default();
                            rt.name = t.name.clone();
                            rt.partitions = t
                                .partition_indexes
                                .iter()
                                .map(|&p| {
                                    let mut rp = OffsetFetchResponsePartitions::default();
                                    rp.partition_index = p;
                                    // partition 0 has offset 5 committed
                                    rp.committed_offset = if p == 0 { 5 } else { -1 };
                                    rp.committed_leader_epoch = -1;
                                    rp
                                })
                                .collect();
                            rt
                        })
                        .collect();
                }
                r.groups = vec![rg];
                ResponseKind::OffsetFetch(r)
            }
            RequestKind::OffsetCommit(o) => {
                c.commits
                    .lock()
                    .unwrap()
                    .push((o.member_id.to_string(), o.generation_id_or_member_epoch));
                scripted::commit_accepted(o)
            }
            RequestKind::ListOffsets(l) => {
                let mut r = ListOffsetsResponse::default();
                r.topics = l
                    .topics
                    .iter()
                    .map(|t| {
                        let mut rt = ListOffsetsTopicResponse::default();
                        rt.name = t.name.clone();
                        rt.partitions = t
                            .partitions
                            .iter()
                            .map(|p| {
                                let mut rp = ListOffsetsPartitionResponse::default();
                                rp.partition_index = p.partition_index;
                                rp.offset = 0;
                                rp.timestamp = -1;
                                rp.leader_epoch = 0;
                                rp
                            })
                            .collect();
                        rt
                    })
                    .collect();
                ResponseKind::ListOffsets(r)
            }
            RequestKind::Fetch(_) => {
                // nothing to read: an empty answer after a while
                thread::sleep(Duration::from_millis(50));
                ResponseKind::Fetch(FetchResponse::default())
            }
            _ => return None,
        })
    })
}

fn member(addr: &str, extra: &[(&str, &str)]) -> Consumer {
    let mut cfg = Config::from_pairs([
        ("bootstrap.servers", addr),
        ("group.id", "g"),
        ("group.protocol", "consumer"),
        ("auto.offset.reset", "earliest"),
        ("enable.auto.commit", "false"),
        ("fetch.wait.max.ms", "100"),
        ("retry.backoff.ms", "20"),
    ])
    .unwrap();
    for (k, v) in extra {
        cfg.set(k, v).unwrap();
    }
    Consumer::new(&cfg).unwrap()
}

/// Polls until `done` or `d` passed; returns the errors poll reported.
fn poll_until(c: &Consumer, d: Duration, mut done: impl FnMut(&Consumer) -> bool) -> Vec<String> {
    let until = Instant::now() + d;
    let mut errors = Vec::new();
    while !done(c) && Instant::now() < until {
        match c.poll(Duration::from_millis(20)) {
            Ok(Some(m)) => {
                if let Some(e) = m.error {
                    errors.push(format!("{} {e}", gregor::error::code_name(e.code())));
                }
            }
            Ok(None) => {}
            Err(e) => errors.push(format!("{} {e}", gregor::error::code_name(e.code()))),
        }
    }
    errors
}

fn positions(c: &Consumer) -> Vec<i64> {
    c.position(&[Tpo::new("t", 0, -1001), Tpo::new("t", 1, -1001)])
        .iter()
        .map(|t| t.offset)
        .collect()
}

#[test]
fn offset_fetch_carries_the_member_id_and_epoch_and_retries_a_stale_epoch() {
    let co = Arc::new(Coord::default());
    co.topic_known.store(true, Ordering::SeqCst);
    co.stale_fetches.store(2, Ordering::SeqCst);
    let s = coordinator(co.clone(), 0);
    let c = member(&s.addr, &[]);
    c.subscribe(&["t"]).unwrap();
    let errors = poll_until(&c, Duration::from_secs(10), |c| positions(c) == [5, 0]);
    assert_eq!(positions(&c), [5, 0], "errors: {errors:?}");
    assert!(errors.is_empty(), "{errors:?}");
    // the member took the coordinator's member id
    assert_eq!(c.member_id(), GIVEN_ID);
    let fetches = co.fetches.lock().unwrap().clone();
    // two STALE_MEMBER_EPOCH answers, retried, then the offsets: each with
    // the member id and epoch (KIP-848)
    assert!(fetches.len() >= 3, "{fetches:?}");
    for (v, id, epoch) in &fetches[..3] {
        assert_eq!(
            (*v, id.as_deref(), *epoch),
            (9, Some(GIVEN_ID), 1),
            "{fetches:?}"
        );
    }
    // the application's committed() does the same
    let got = c
        .committed(&[Tpo::new("t", 0, -1001)], Duration::from_secs(5))
        .unwrap();
    assert_eq!(got[0].offset, 5);
    let last = co.fetches.lock().unwrap().last().cloned().unwrap();
    assert_eq!((last.1.as_deref(), last.2), (Some(GIVEN_ID), 1));
    // a commit carries them too (OffsetCommit v9)
    c.commit(Some(&[Tpo::new("t", 1, 3)]), Duration::from_secs(5))
        .unwrap();
    assert_eq!(
        co.commits.lock().unwrap().last().cloned(),
        Some((GIVEN_ID.to_string(), 1))
    );
    c.close();
    // the leave heartbeat: epoch -1 with the adopted member id
    let hbs = co.heartbeats.lock().unwrap().clone();
    assert_eq!(hbs[0].1, 0, "joins at epoch 0");
    assert_eq!(
        (hbs.last().unwrap().0.as_str(), hbs.last().unwrap().1),
        (GIVEN_ID, -1)
    );
    // after leaving, OffsetFetch has no member to name
    let c2 = member(&s.addr, &[]);
    c2.committed(&[Tpo::new("t", 0, -1001)], Duration::from_secs(5))
        .unwrap();
    let last = co.fetches.lock().unwrap().last().cloned().unwrap();
    assert_eq!((last.1, last.2), (None, -1), "a consumer outside the group");
    c2.close();
}

#[test]
fn a_target_topic_unknown_to_metadata_is_taken_once_metadata_has_it() {
    let co = Arc::new(Coord::default());
    let s = coordinator(co.clone(), 0);
    let c = member(&s.addr, &[("topic.metadata.refresh.interval.ms", "100")]);
    c.subscribe(&["t"]).unwrap();
    // the member joins and gets a target of a topic ID metadata lacks
    let until = Instant::now() + Duration::from_secs(5);
    while co.heartbeats.lock().unwrap().len() < 4 && Instant::now() < until {
        let _ = c.poll(Duration::from_millis(20));
    }
    let hbs = co.heartbeats.lock().unwrap().clone();
    assert!(hbs.len() >= 4, "the member keeps heartbeating: {hbs:?}");
    assert!(c.assignment().is_empty(), "{:?}", c.assignment());
    // nothing owned is reported while the target cannot be resolved
    assert!(
        hbs.iter()
            .all(|h| h.2.as_deref().is_none_or(|p| p.is_empty())),
        "{hbs:?}"
    );
    co.topic_known.store(true, Ordering::SeqCst);
    let errors = poll_until(&c, Duration::from_secs(10), |c| c.assignment().len() == 2);
    assert_eq!(c.assignment().len(), 2, "errors: {errors:?}");
    // the next heartbeats acknowledge both partitions
    let until = Instant::now() + Duration::from_secs(5);
    let acked = |co: &Coord| {
        co.heartbeats
            .lock()
            .unwrap()
            .iter()
            .any(|h| h.2.as_deref() == Some(&[0, 1][..]))
    };
    while !acked(&co) && Instant::now() < until {
        let _ = c.poll(Duration::from_millis(20));
    }
    assert!(acked(&co), "{:?}", co.heartbeats.lock().unwrap());
    c.close();
}

#[test]
fn a_heartbeat_error_with_a_message_is_reported_and_the_member_goes_on() {
    let co = Arc::new(Coord::default());
    co.topic_known.store(true, Ordering::SeqCst);
    let s = coordinator(co.clone(), 0);
    let c = member(&s.addr, &[]);
    c.subscribe(&["t"]).unwrap();
    poll_until(&c, Duration::from_secs(10), |c| c.assignment().len() == 2);
    assert_eq!(c.assignment().len(), 2);
    co.hb_error.store(29, Ordering::SeqCst); // TOPIC_AUTHORIZATION_FAILED
    let before = co.heartbeats.lock().unwrap().len();
    let mut seen = Vec::new();
    let until = Instant::now() + Duration::from_secs(5);
    while (seen.is_empty() || co.heartbeats.lock().unwrap().len() < before + 3)
        && Instant::now() < until
    {
        seen.extend(poll_until(&c, Duration::from_millis(50), |_| false));
    }
    assert!(
        seen.iter().any(
            |e| e.contains("TOPIC_AUTHORIZATION_FAILED") && e.contains("scripted: not allowed")
        ),
        "{seen:?}"
    );
    // not fatal: the member keeps its partitions and heartbeats on
    assert_eq!(c.assignment().len(), 2);
    assert!(c.fatal_error().is_none());
    assert!(co.heartbeats.lock().unwrap().len() >= before + 3);
    c.close();
}

#[test]
fn a_regex_subscription_needs_consumer_group_heartbeat_v1() {
    let co = Arc::new(Coord::default());
    co.topic_known.store(true, Ordering::SeqCst);
    let s = coordinator(co.clone(), 0);
    let c = member(&s.addr, &[]);
    c.subscribe(&["^t.*"]).unwrap();
    let mut errors = Vec::new();
    let until = Instant::now() + Duration::from_secs(5);
    while errors.is_empty() && Instant::now() < until {
        errors = poll_until(&c, Duration::from_millis(50), |_| false);
    }
    assert!(
        errors
            .iter()
            .any(|e| e.starts_with("_UNSUPPORTED_FEATURE") && e.contains("v1")),
        "{errors:?}"
    );
    assert!(c.subscribe(&["t"]).is_err(), "the member stopped for good");
    // the regex never went out
    assert!(co.heartbeats.lock().unwrap().is_empty());
    c.close();
}
