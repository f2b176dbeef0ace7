//! The consumer against a scripted broker speaking independently encoded
//! bytes (the `kafka-protocol` crate), for what the test broker cannot show:
//! fetch sessions (KIP-227), OffsetForLeaderEpoch and diverging epochs
//! (KIP-320), a topic ID changing under a consumer (KIP-516), a fetch
//! response with aborted transactions built byte by byte, and every message
//! format and codec mixed in one fetch response. Needs no broker.

#[path = "consumer_support/helpers.rs"]
mod helpers;
#[allow(dead_code)] // each test file uses its own part of the scripted broker
#[path = "consumer_support/scripted.rs"]
mod scripted;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use gregor::config::Config;
use gregor::consumer::{Consumer, TopicPartitionOffset as Tpo};
use gregor::error::local;
use helpers::*;
use kafka_protocol::messages::fetch_response::{
    AbortedTransaction, FetchableTopicResponse, PartitionData,
};
use kafka_protocol::messages::offset_for_leader_epoch_response::{
    EpochEndOffset, OffsetForLeaderTopicResult,
};
use kafka_protocol::messages::{
    ApiKey, FetchResponse, OffsetForLeaderEpochResponse, ProducerId, RequestKind, ResponseKind,
    TopicName,
};
use kafka_protocol::records::Compression;
use scripted::{Log, Logs, Rec};

fn scripted_config(addr: &str, extra: &[(&str, &str)]) -> Config {
    let mut c = Config::from_pairs([
        ("bootstrap.servers", addr),
        ("fetch.wait.max.ms", "100"),
        ("fetch.error.backoff.ms", "50"),
        ("isolation.level", "read_uncommitted"),
    ])
    .unwrap();
    for (k, v) in extra {
        c.set(k, v).unwrap();
    }
    c
}

const TOPIC_ID: [u8; 16] = [7; 16];

fn partition_data(p: i32, log: &Log, from: i64) -> PartitionData {
    let mut d = PartitionData::default();
    d.partition_index = p;
    d.high_watermark = log.end();
    d.last_stable_offset = log.end();
    d.log_start_offset = 0;
    d.aborted_transactions = Some(Vec::new());
    d.records = Some(log.from(from).into());
    d
}

fn fetch_response(session: i32, parts: Vec<PartitionData>, id: [u8; 16]) -> ResponseKind {
    let mut t = FetchableTopicResponse::default();
    t.topic = TopicName(scripted::sb("t"));
    t.topic_id = scripted::uuid(id);
    t.partitions = parts;
    let mut r = FetchResponse::default();
    r.session_id = session;
    r.responses = if t.partitions.is_empty() {
        Vec::new()
    } else {
        vec![t]
    };
    ResponseKind::Fetch(r)
}

// ---------------------------------------------------------------------------
// Fetch sessions (KIP-227), on a scripted broker that keeps them

/// What the scripted broker's session holds: partition -> fetch offset.
#[derive(Default)]
struct SessionState {
    id: i32,
    next_epoch: i32,
    parts: BTreeMap<i32, i64>,
    forget_next: bool,
}

#[test]
fn fetch_sessions_send_only_what_changed_and_recover_from_a_lost_session() {
    let logs: Logs = Arc::default();
    {
        let mut l = logs.lock().unwrap();
        l.insert(0, Log::default());
        l.insert(1, Log::default());
        for i in 0..5 {
            l.get_mut(&0).unwrap().records.push(Rec::plain(
                i,
                ["a0", "a1", "a2", "a3", "a4"][i as usize],
                0,
            ));
        }
        for i in 0..3 {
            l.get_mut(&1)
                .unwrap()
                .records
                .push(Rec::plain(i, ["b0", "b1", "b2"][i as usize], 0));
        }
    }
    let session: Arc<Mutex<SessionState>> = Arc::default();
    let (l2, s2) = (logs.clone(), session.clone());
    let broker = scripted::start(
        &[
            (ApiKey::Metadata, 0, 12),
            (ApiKey::Fetch, 0, 17),
            (ApiKey::ListOffsets, 0, 7),
        ],
        move |addr, _v, req| match req {
            RequestKind::Metadata(_) => Some(scripted::metadata(addr, &[("t", TOPIC_ID, 2, 0)])),
            RequestKind::Fetch(f) => {
                let mut s = s2.lock().unwrap();
                if s.forget_next {
                    // the broker lost the session (restart, eviction)
                    s.forget_next = false;
                    *s = SessionState::default();
                    let mut r = FetchResponse::default();
                    r.error_code = 70; // FETCH_SESSION_ID_NOT_FOUND
                    return Some(ResponseKind::Fetch(r));
                }
                let full = f.session_epoch == 0;
                if full {
                    s.id = 42;
                    s.next_epoch = 1;
                    s.parts.clear();
                } else if f.session_id != s.id || f.session_epoch != s.next_epoch {
                    let mut r = FetchResponse::default();
                    r.error_code = 71; // INVALID_FETCH_SESSION_EPOCH
                    return Some(ResponseKind::Fetch(r));
                } else {
                    s.next_epoch += 1;
                }
                for t in &f.topics {
                    assert_eq!(t.topic_id, scripted::uuid(TOPIC_ID), "fetch by topic ID");
                    for p in &t.partitions {
                        s.parts.insert(p.partition, p.fetch_offset);
                    }
                }
                for t in &f.forgotten_topics_data {
                    for p in &t.partitions {
                        s.parts.remove(p);
                    }
                }
                let logs = l2.lock().unwrap();
                let parts: Vec<PartitionData> = s
                    .parts
                    .iter()
                    .filter(|(p, off)| full || logs[p].end() > **off)
                    .map(|(p, off)| partition_data(*p, &logs[p], *off))
                    .collect();
                let id = s.id;
                drop(logs);
                drop(s);
                if parts
                    .iter()
                    .all(|p| p.records.as_ref().is_none_or(|r| r.is_empty()))
                {
                    std::thread::sleep(Duration::from_millis(f.max_wait_ms.min(100) as u64));
                }
                Some(fetch_response(id, parts, TOPIC_ID))
            }
            _ => None,
        },
    );
    let c = Consumer::new(&scripted_config(&broker.addr, &[])).unwrap();
    c.assign(&[Tpo::new("t", 0, 0), Tpo::new("t", 1, 0)])
        .unwrap();
    let (msgs, events) = poll_n(&c, 8);
    assert!(events.is_empty(), "{events:?}");
    let mut got = values(&msgs);
    got.sort();
    assert_eq!(got, ["a0", "a1", "a2", "a3", "a4", "b0", "b1", "b2"]);
    let fetches = |from: usize| -> Vec<(i16, kafka_protocol::messages::FetchRequest)> {
        broker.requests(ApiKey::Fetch)[from..]
            .iter()
            .map(|s| match &s.body {
                RequestKind::Fetch(f) => (s.version, f.clone()),
                _ => unreachable!(),
            })
            .collect()
    };
    // Let the consumer idle: incremental requests list nothing. Waits for
    // four requests in all (three in the session), not for a fixed time: a
    // loaded machine may send fewer in 400 ms.
    let deadline = Instant::now() + T;
    while fetches(0).len() < 4 {
        assert!(Instant::now() < deadline, "the consumer keeps fetching");
        assert!(poll_for(&c, Duration::from_millis(50)).is_empty());
    }
    let all = fetches(0);
    let (v, first) = &all[0];
    assert!(*v >= 13, "topic IDs from v13: sent v{v}");
    assert_eq!(
        (first.session_id, first.session_epoch),
        (0, 0),
        "asks for a session"
    );
    assert_eq!(first.topics[0].partitions.len(), 2);
    assert!(
        first.topics[0].topic.0.is_empty(),
        "v13+ names the topic by ID only"
    );
    let second = &all[1].1;
    assert_eq!((second.session_id, second.session_epoch), (42, 1));
    let last = &all.last().unwrap().1;
    assert_eq!(last.session_id, 42);
    assert!(last.topics.is_empty(), "nothing changed: {last:?}");
    assert!(last.session_epoch > 2);

    // Pause partition 1: it is forgotten; new data on 0 still flows.
    let mark = fetches(0).len();
    c.pause(&[Tpo::new("t", 1, 0)]).unwrap();
    logs.lock()
        .unwrap()
        .get_mut(&0)
        .unwrap()
        .records
        .push(Rec::plain(5, "a5", 0));
    logs.lock()
        .unwrap()
        .get_mut(&1)
        .unwrap()
        .records
        .push(Rec::plain(3, "b3", 0));
    let (msgs, _) = poll_n(&c, 1);
    assert_eq!(values(&msgs), ["a5"]);
    // a5 may come with a request sent before the pause took effect: wait
    // for the one that forgets partition 1 (nothing else arrives meanwhile)
    let deadline = Instant::now() + T;
    let forgot = loop {
        if let Some(f) = fetches(mark)
            .into_iter()
            .find(|(_, f)| !f.forgotten_topics_data.is_empty())
        {
            break f;
        }
        assert!(
            Instant::now() < deadline,
            "a request forgets the paused partition"
        );
        assert!(poll_for(&c, Duration::from_millis(50)).is_empty());
    };
    assert_eq!(forgot.1.forgotten_topics_data[0].partitions, vec![1]);
    assert_eq!(
        forgot.1.forgotten_topics_data[0].topic_id,
        scripted::uuid(TOPIC_ID)
    );
    assert!(poll_for(&c, Duration::from_millis(300)).is_empty());

    // Resume: partition 1 is sent again, at its offset.
    let mark = fetches(0).len();
    c.resume(&[Tpo::new("t", 1, 0)]).unwrap();
    let (msgs, _) = poll_n(&c, 1);
    assert_eq!(values(&msgs), ["b3"]);
    assert!(fetches(mark).iter().any(|(_, f)| f.topics.iter().any(|t| t
        .partitions
        .iter()
        .any(|p| p.partition == 1 && p.fetch_offset == 3))));

    // The broker loses the session: the consumer starts a new one with a
    // full request and loses nothing.
    let mark = fetches(0).len();
    session.lock().unwrap().forget_next = true;
    logs.lock()
        .unwrap()
        .get_mut(&0)
        .unwrap()
        .records
        .push(Rec::plain(6, "a6", 0));
    let (msgs, events) = poll_n(&c, 1);
    assert_eq!(values(&msgs), ["a6"]);
    assert!(
        events.is_empty(),
        "a session error is handled silently: {events:?}"
    );
    let later = fetches(mark);
    assert!(later.iter().any(|(_, f)| f.session_id == 0
        && f.session_epoch == 0
        && f.topics[0].partitions.len() == 2));
    assert!(
        poll_for(&c, Duration::from_millis(300)).is_empty(),
        "no duplicates"
    );
    let pos = c.position(&[Tpo::new("t", 0, 0), Tpo::new("t", 1, 0)]);
    assert_eq!((pos[0].offset, pos[1].offset), (7, 4));
}

// ---------------------------------------------------------------------------
// Leader epochs: fencing, OffsetForLeaderEpoch validation and truncation

struct EpochBroker {
    epoch: AtomicI32,
    log: Mutex<Log>,
    /// Answer Fetch with a diverging epoch instead of fencing.
    diverge: AtomicBool,
}

fn epoch_broker(b: Arc<EpochBroker>, with_ofle: bool) -> scripted::Scripted {
    let mut apis = vec![
        (ApiKey::Metadata, 0, 12),
        (ApiKey::Fetch, 0, 17),
        (ApiKey::ListOffsets, 0, 7),
    ];
    if with_ofle {
        apis.push((ApiKey::OffsetForLeaderEpoch, 0, 4));
    }
    scripted::start(&apis, move |addr, _v, req| match req {
        RequestKind::Metadata(_) => Some(scripted::metadata(
            addr,
            &[("t", TOPIC_ID, 1, b.epoch.load(Ordering::SeqCst))],
        )),
        RequestKind::Fetch(f) => {
            let epoch = b.epoch.load(Ordering::SeqCst);
            let p = &f.topics[0].partitions[0];
            let log = b.log.lock().unwrap().clone();
            let mut d = partition_data(0, &log, p.fetch_offset);
            if b.diverge.load(Ordering::SeqCst)
                && p.last_fetched_epoch >= 0
                && p.last_fetched_epoch < epoch
            {
                // the fetcher's last epoch ends earlier in this log
                let end = log
                    .records
                    .iter()
                    .filter(|r| r.epoch <= p.last_fetched_epoch)
                    .map(|r| r.offset + 1)
                    .max()
                    .unwrap_or(0);
                if end < p.fetch_offset {
                    d.records = Some(Default::default());
                    d.diverging_epoch.epoch = p.last_fetched_epoch;
                    d.diverging_epoch.end_offset = end;
                }
            } else if p.current_leader_epoch >= 0 && p.current_leader_epoch < epoch {
                d = PartitionData::default();
                d.partition_index = 0;
                d.error_code = 74; // FENCED_LEADER_EPOCH
            }
            if d.records.as_ref().is_none_or(|r| r.is_empty()) {
                std::thread::sleep(Duration::from_millis(50));
            }
            Some(fetch_response(0, vec![d], TOPIC_ID))
        }
        RequestKind::OffsetForLeaderEpoch(o) => {
            let log = b.log.lock().unwrap();
            let p = &o.topics[0].partitions[0];
            let mut e = EpochEndOffset::default();
            e.partition = p.partition;
            // the largest epoch <= asked and where it ends
            let end = log
                .records
                .iter()
                .filter(|r| r.epoch <= p.leader_epoch)
                .map(|r| (r.epoch, r.offset + 1))
                .max();
            match end {
                Some((ep, off)) => {
                    e.leader_epoch = ep;
                    e.end_offset = off;
                }
                None => {
                    e.leader_epoch = -1;
                    e.end_offset = -1;
                }
            }
            let mut t = OffsetForLeaderTopicResult::default();
            t.topic = TopicName(scripted::sb("t"));
            t.partitions = vec![e];
            let mut r = OffsetForLeaderEpochResponse::default();
            r.topics = vec![t];
            Some(ResponseKind::OffsetForLeaderEpoch(r))
        }
        _ => None,
    })
}

fn epoch_log(n: i64, epoch: i32) -> Log {
    const V: [&str; 10] = ["m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9"];
    Log {
        records: (0..n)
            .map(|i| Rec::plain(i, V[i as usize], epoch))
            .collect(),
    }
}

/// After consuming 0..9 at epoch 1, the leader changes (epoch 2) and its
/// log kept only 0..6 of epoch 1, then wrote x7, x8 at epoch 2.
fn truncate(b: &EpochBroker) {
    let mut log = epoch_log(7, 1);
    log.records.push(Rec::plain(7, "x7", 2));
    log.records.push(Rec::plain(8, "x8", 2));
    *b.log.lock().unwrap() = log;
    b.epoch.store(2, Ordering::SeqCst);
}

#[test]
fn leader_change_is_validated_with_offset_for_leader_epoch_and_truncation_refetches() {
    let b = Arc::new(EpochBroker {
        epoch: AtomicI32::new(1),
        log: Mutex::new(epoch_log(10, 1)),
        diverge: AtomicBool::new(false),
    });
    let broker = epoch_broker(b.clone(), true);
    let c = Consumer::new(&scripted_config(&broker.addr, &[])).unwrap();
    c.assign(&[Tpo::new("t", 0, 0)]).unwrap();
    let (msgs, _) = poll_n(&c, 10);
    assert_eq!(msgs.len(), 10);
    assert!(msgs.iter().all(|m| m.leader_epoch == Some(1)));
    let sent = broker.requests(ApiKey::Fetch);
    match &sent[0].body {
        RequestKind::Fetch(f) => assert_eq!(f.topics[0].partitions[0].current_leader_epoch, 1),
        _ => unreachable!(),
    }
    truncate(&b);
    let (msgs, events) = poll_n(&c, 2);
    assert_eq!(
        values(&msgs),
        ["x7", "x8"],
        "refetched from where the logs agree; {events:?}"
    );
    assert!(events.is_empty(), "{events:?}");
    let ofle = broker.requests(ApiKey::OffsetForLeaderEpoch);
    assert!(!ofle.is_empty(), "validated with OffsetForLeaderEpoch");
    match &ofle[0].body {
        RequestKind::OffsetForLeaderEpoch(o) => {
            let p = &o.topics[0].partitions[0];
            assert_eq!((p.current_leader_epoch, p.leader_epoch), (2, 1));
            assert_eq!(o.replica_id.0, -1, "a consumer");
        }
        _ => unreachable!(),
    }
    assert_eq!(c.position(&[Tpo::new("t", 0, 0)])[0].offset, 9);
}

#[test]
fn truncation_with_auto_offset_reset_error_stops_the_partition() {
    let b = Arc::new(EpochBroker {
        epoch: AtomicI32::new(1),
        log: Mutex::new(epoch_log(10, 1)),
        diverge: AtomicBool::new(false),
    });
    let broker = epoch_broker(b.clone(), true);
    let c = Consumer::new(&scripted_config(
        &broker.addr,
        &[("auto.offset.reset", "error")],
    ))
    .unwrap();
    c.assign(&[Tpo::new("t", 0, 0)]).unwrap();
    assert_eq!(poll_n(&c, 10).0.len(), 10);
    truncate(&b);
    let got = poll_for(&c, Duration::from_secs(2));
    assert_eq!(got.len(), 1, "{got:?}");
    let e = got[0].error.as_ref().unwrap();
    assert_eq!(e.code(), local::AUTO_OFFSET_RESET, "{e}");
    assert!(e.to_string().contains("truncation"), "{e}");
    // a seek starts it again
    c.seek("t", 0, 7).unwrap();
    assert_eq!(values(&poll_n(&c, 2).0), ["x7", "x8"]);
}

#[test]
fn a_fetch_diverging_epoch_moves_the_position_back() {
    let b = Arc::new(EpochBroker {
        epoch: AtomicI32::new(1),
        log: Mutex::new(epoch_log(10, 1)),
        diverge: AtomicBool::new(true),
    });
    // no OffsetForLeaderEpoch: only the fetch can tell
    let broker = epoch_broker(b.clone(), false);
    let c = Consumer::new(&scripted_config(&broker.addr, &[])).unwrap();
    c.assign(&[Tpo::new("t", 0, 0)]).unwrap();
    assert_eq!(poll_n(&c, 10).0.len(), 10);
    truncate(&b);
    let (msgs, events) = poll_n(&c, 2);
    assert_eq!(values(&msgs), ["x7", "x8"], "{events:?}");
    let last_epochs: Vec<i32> = broker
        .requests(ApiKey::Fetch)
        .iter()
        .map(|s| match &s.body {
            RequestKind::Fetch(f) => f.topics[0].partitions[0].last_fetched_epoch,
            _ => unreachable!(),
        })
        .collect();
    assert!(
        last_epochs.contains(&1),
        "last fetched epoch sent (v12+): {last_epochs:?}"
    );
}

// ---------------------------------------------------------------------------
// A topic recreated under the consumer: UNKNOWN_TOPIC_ID, then the new ID

#[test]
fn a_recreated_topic_is_detected_by_its_new_id_and_reset() {
    const NEW_ID: [u8; 16] = [9; 16];
    let recreated = Arc::new(AtomicBool::new(false));
    let r2 = recreated.clone();
    let broker = scripted::start(
        &[
            (ApiKey::Metadata, 0, 12),
            (ApiKey::Fetch, 0, 17),
            (ApiKey::ListOffsets, 0, 7),
        ],
        move |addr, _v, req| {
            let now = r2.load(Ordering::SeqCst);
            let id = if now { NEW_ID } else { TOPIC_ID };
            match req {
                RequestKind::Metadata(_) => Some(scripted::metadata(addr, &[("t", id, 1, 0)])),
                RequestKind::Fetch(f) => {
                    let t = &f.topics[0];
                    let p = &t.partitions[0];
                    let asked = t.topic_id.into_bytes();
                    let log = if now {
                        Log {
                            records: vec![Rec::plain(0, "new0", 0), Rec::plain(1, "new1", 0)],
                        }
                    } else {
                        epoch_log(3, 0)
                    };
                    let mut d = partition_data(0, &log, p.fetch_offset);
                    if asked != id {
                        d = PartitionData::default();
                        d.partition_index = 0;
                        d.error_code = 100; // UNKNOWN_TOPIC_ID
                    } else if log.end() <= p.fetch_offset {
                        std::thread::sleep(Duration::from_millis(50));
                    }
                    Some(fetch_response(0, vec![d], asked))
                }
                RequestKind::ListOffsets(l) => {
                    use kafka_protocol::messages::list_offsets_response::{
                        ListOffsetsPartitionResponse, ListOffsetsTopicResponse,
                    };
                    let mut t = ListOffsetsTopicResponse::default();
                    t.name = l.topics[0].name.clone();
                    let mut p = ListOffsetsPartitionResponse::default();
                    p.partition_index = 0;
                    p.offset = if l.topics[0].partitions[0].timestamp == -2 {
                        0
                    } else {
                        2
                    };
                    t.partitions = vec![p];
                    let mut r = kafka_protocol::messages::ListOffsetsResponse::default();
                    r.topics = vec![t];
                    Some(ResponseKind::ListOffsets(r))
                }
                _ => None,
            }
        },
    );
    let c = Consumer::new(&scripted_config(
        &broker.addr,
        &[("auto.offset.reset", "earliest")],
    ))
    .unwrap();
    c.assign(&[Tpo::new("t", 0, 0)]).unwrap();
    assert_eq!(values(&poll_n(&c, 3).0), ["m0", "m1", "m2"]);
    recreated.store(true, Ordering::SeqCst);
    let (msgs, events) = poll_n(&c, 2);
    assert_eq!(
        values(&msgs),
        ["new0", "new1"],
        "reset to the new topic's beginning"
    );
    assert_eq!(events.len(), 1, "{events:?}");
    let e = events[0].error.as_ref().unwrap();
    assert_eq!(e.code(), 100, "UNKNOWN_TOPIC_ID: {e}");
    assert!(e.to_string().contains("created again"), "{e}");
    let asked_new = broker
        .requests(ApiKey::Fetch)
        .iter()
        .any(|s| match &s.body {
            RequestKind::Fetch(f) => f.topics[0].topic_id.into_bytes() == NEW_ID,
            _ => false,
        });
    assert!(asked_new);
}

// ---------------------------------------------------------------------------
// read_committed on a fetch response built byte by byte

fn txn(offset: i64, value: &'static str, pid: i64) -> Rec {
    Rec {
        offset,
        value,
        epoch: 0,
        producer_id: pid,
        transactional: true,
        control: false,
    }
}

fn marker(offset: i64, kind: &'static str, pid: i64) -> Rec {
    Rec {
        offset,
        value: kind,
        epoch: 0,
        producer_id: pid,
        transactional: true,
        control: true,
    }
}

#[test]
fn read_committed_drops_aborted_transactions_from_independent_bytes() {
    // pid 7 commits 0-1 (marker 2); pid 8 aborts 3-4 (marker 5), with pid
    // 7's second transaction 4.. interleaved; a plain record at 7.
    let recs = vec![
        txn(0, "c0", 7),
        txn(1, "c1", 7),
        marker(2, "commit", 7),
        txn(3, "a3", 8),
        txn(4, "c4", 7),
        marker(5, "abort", 8),
        marker(6, "commit", 7),
        Rec::plain(7, "p7", 0),
        txn(8, "a8", 8),
        marker(9, "abort", 8),
    ];
    for compression in [Compression::None, Compression::Lz4] {
        let bytes = scripted::batches(&recs, compression);
        let broker = scripted::start(
            &[(ApiKey::Metadata, 0, 12), (ApiKey::Fetch, 0, 17)],
            move |addr, _v, req| match req {
                RequestKind::Metadata(_) => {
                    Some(scripted::metadata(addr, &[("t", TOPIC_ID, 1, 0)]))
                }
                RequestKind::Fetch(f) => {
                    let p = &f.topics[0].partitions[0];
                    let mut d = PartitionData::default();
                    d.partition_index = 0;
                    d.high_watermark = 10;
                    d.last_stable_offset = 10;
                    if p.fetch_offset == 0 {
                        d.records = Some(bytes.clone().into());
                        // only read_committed fetches get the aborted list
                        if f.isolation_level == 1 {
                            let mut a = AbortedTransaction::default();
                            a.producer_id = ProducerId(8);
                            a.first_offset = 3;
                            let mut b = AbortedTransaction::default();
                            b.producer_id = ProducerId(8);
                            b.first_offset = 8;
                            d.aborted_transactions = Some(vec![a, b]);
                        }
                    } else {
                        std::thread::sleep(Duration::from_millis(50));
                        d.records = Some(Default::default());
                    }
                    Some(fetch_response(0, vec![d], TOPIC_ID))
                }
                _ => None,
            },
        );
        for (level, want) in [
            ("read_committed", vec!["c0", "c1", "c4", "p7"]),
            ("read_uncommitted", vec!["c0", "c1", "a3", "c4", "p7", "a8"]),
        ] {
            let c = Consumer::new(&scripted_config(
                &broker.addr,
                &[("isolation.level", level), ("enable.partition.eof", "true")],
            ))
            .unwrap();
            c.assign(&[Tpo::new("t", 0, 0)]).unwrap();
            let (msgs, _) = poll_n(&c, want.len());
            assert_eq!(values(&msgs), want, "{level} {compression:?}");
            // control records never show; the end comes after the last marker
            let rest = poll_for(&c, Duration::from_millis(300));
            assert_eq!(rest.len(), 1, "{rest:?}");
            assert_eq!(rest[0].error.as_ref().unwrap().code(), local::PARTITION_EOF);
            assert_eq!(rest[0].offset, 10);
            assert_eq!(
                c.position(&[Tpo::new("t", 0, 0)])[0].offset,
                10,
                "past the markers"
            );
        }
    }
}

// ---------------------------------------------------------------------------
// Every message format and codec mixed in one response (independent bytes:
// no broker here takes magic 0/1 produce requests any more)

/// A magic 2 batch by kafka-protocol's encoder.
fn v2_batch(compression: Compression, first: i64, values: [&'static str; 2]) -> Vec<u8> {
    use kafka_protocol::records::{Record, RecordBatchEncoder, RecordEncodeOptions, TimestampType};
    let recs: Vec<Record> = values
        .iter()
        .enumerate()
        .map(|(i, v)| Record {
            transactional: false,
            control: false,
            partition_leader_epoch: -1,
            producer_id: -1,
            producer_epoch: -1,
            timestamp_type: TimestampType::Creation,
            offset: first + i as i64,
            // kafka-protocol starts a batch wherever offset - sequence changes
            sequence: i as i32,
            timestamp: 1_600_000_000_000 + first,
            key: Some(bytes::Bytes::from_static(b"key")),
            value: Some(bytes::Bytes::from_static(v.as_bytes())),
            headers: Default::default(),
        })
        .collect();
    let mut out = bytes::BytesMut::new();
    RecordBatchEncoder::encode(
        &mut out,
        recs.iter(),
        &RecordEncodeOptions {
            version: 2,
            compression,
        },
    )
    .unwrap();
    out.to_vec()
}

/// Message sets of magic 0/1 as a broker stores them, by kafka-python's
/// encoder (kafka-protocol writes producer-side offsets, all 0): uncompressed
/// messages carry absolute offsets; a compressed wrapper carries the last
/// one, around inner offsets that are absolute (magic 0) or relative (magic 1).
fn legacy(magic: i8, codec: u8, first: i64, values: [&str; 2]) -> Vec<u8> {
    const PY: &str = r#"
import sys
from kafka.record.legacy_records import LegacyRecordBatchBuilder
magic, codec, first = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
b = LegacyRecordBatchBuilder(magic=magic, compression_type=codec, batch_size=1 << 20)
for i, v in enumerate(sys.argv[4:]):
    off = i if (magic == 1 and codec != 0) else first + i
    b.append(off, timestamp=(None if magic == 0 else 1600000000000 + first), key=b"key", value=v.encode())
print(bytes(b.build()).hex())
"#;
    let hex = python(
        PY,
        &[
            &magic.to_string(),
            &codec.to_string(),
            &first.to_string(),
            values[0],
            values[1],
        ],
    );
    let hex = hex.trim();
    let mut b: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect();
    if codec != 0 {
        // the offset sits outside the CRC
        b[..8].copy_from_slice(&(first + 1).to_be_bytes());
    }
    b
}

#[test]
fn every_format_and_codec_mixed_in_one_fetch_response() {
    let mut all = Vec::new();
    all.extend(legacy(0, 0, 0, ["v0-none-0", "v0-none-1"]));
    all.extend(legacy(0, 1, 2, ["v0-gzip-0", "v0-gzip-1"]));
    all.extend(legacy(0, 2, 4, ["v0-snappy-0", "v0-snappy-1"]));
    all.extend(legacy(1, 0, 6, ["v1-none-0", "v1-none-1"]));
    all.extend(legacy(1, 3, 8, ["v1-lz4-0", "v1-lz4-1"]));
    all.extend(legacy(1, 1, 10, ["v1-gzip-0", "v1-gzip-1"]));
    all.extend(v2_batch(Compression::Zstd, 12, ["v2-zstd-0", "v2-zstd-1"]));
    all.extend(v2_batch(
        Compression::Snappy,
        14,
        ["v2-snappy-0", "v2-snappy-1"],
    ));
    all.extend(v2_batch(Compression::None, 16, ["v2-none-0", "v2-none-1"]));
    // and a partial batch at the end, as brokers cut responses
    let tail = v2_batch(Compression::None, 18, ["cut-0", "cut-1"]);
    all.extend_from_slice(&tail[..tail.len() / 2]);
    let asked = Arc::new(Mutex::new(Vec::new()));
    let a2 = asked.clone();
    let broker = scripted::start(
        &[(ApiKey::Metadata, 0, 12), (ApiKey::Fetch, 0, 17)],
        move |addr, _v, req| match req {
            RequestKind::Metadata(_) => Some(scripted::metadata(addr, &[("t", TOPIC_ID, 1, 0)])),
            RequestKind::Fetch(f) => {
                let off = f.topics[0].partitions[0].fetch_offset;
                a2.lock().unwrap().push(off);
                let mut d = PartitionData::default();
                d.partition_index = 0;
                d.high_watermark = 20;
                d.last_stable_offset = 20;
                d.records = Some(if off == 0 {
                    all.clone().into()
                } else {
                    std::thread::sleep(Duration::from_millis(50));
                    Default::default()
                });
                Some(fetch_response(0, vec![d], TOPIC_ID))
            }
            _ => None,
        },
    );
    let c = Consumer::new(&scripted_config(&broker.addr, &[("check.crcs", "true")])).unwrap();
    c.assign(&[Tpo::new("t", 0, 0)]).unwrap();
    let (m, events) = poll_n(&c, 18);
    assert!(events.is_empty(), "{events:?}");
    let v = values(&m);
    let want: Vec<String> = [
        "v0-none",
        "v0-gzip",
        "v0-snappy",
        "v1-none",
        "v1-lz4",
        "v1-gzip",
        "v2-zstd",
        "v2-snappy",
        "v2-none",
    ]
    .iter()
    .flat_map(|p| [format!("{p}-0"), format!("{p}-1")])
    .collect();
    assert_eq!(v, want);
    assert_eq!(
        m.iter().map(|m| m.offset).collect::<Vec<_>>(),
        (0..18).collect::<Vec<_>>()
    );
    assert!(m.iter().all(|m| m.key.as_deref() == Some(&b"key"[..])));
    use gregor::message::TimestampType as Ts;
    assert_eq!(
        (m[0].timestamp, m[0].timestamp_type),
        (-1, Ts::NotAvailable),
        "magic 0"
    );
    assert_eq!(m[6].timestamp_type, Ts::CreateTime, "magic 1");
    assert_eq!(m[6].timestamp, 1_600_000_000_006);
    std::thread::sleep(Duration::from_millis(200));
    // the partial tail was left for the next fetch
    let asked = asked.lock().unwrap().clone();
    assert_eq!(asked[1], 18, "{asked:?}");
}
