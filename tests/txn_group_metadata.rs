//! KIP-447: the consumer's group metadata in `send_offsets_to_transaction`.
//!
//! A scripted transaction and group coordinator (ApiVersions, Metadata,
//! FindCoordinator, InitProducerId, AddOffsetsToTxn, TxnOffsetCommit,
//! EndTxn) records every TxnOffsetCommit it receives, decoded from the
//! bytes on the wire:
//! - with group metadata, TxnOffsetCommit v3 carries the generation id,
//!   member id and group instance id (and the raw bytes hold them);
//! - the group-id-only form sends generation -1, member "" and a null
//!   instance id; to a broker before KIP-447 (TxnOffsetCommit v2) it goes
//!   out without them and succeeds;
//! - a fenced member (the coordinator answers ILLEGAL_GENERATION,
//!   UNKNOWN_MEMBER_ID or FENCED_INSTANCE_ID) fails the call with that code
//!   at once (no retries), and the transaction must be aborted, as
//!   librdkafka: `txn_requires_abort`, then abort_transaction succeeds.
//!
//! And against the real broker, end to end: a consumer in a group reads
//! input, a transactional producer writes the output and commits the
//! input's offsets with the consumer's group metadata (tansu, the test
//! broker that completes transactions); the group's committed offset is
//! the transaction's.

mod common;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicI16, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use gregor::config::Config;
use gregor::consumer::{Consumer, TopicPartitionOffset};
use gregor::message::{ConsumerGroupMetadata, ProducerRecord};
use gregor::producer::Producer;
use gregor::protocol::add_offsets_to_txn::AddOffsetsToTxnResponse;
use gregor::protocol::api_versions::{ApiVersion, ApiVersionsResponse};
use gregor::protocol::end_txn::EndTxnResponse;
use gregor::protocol::find_coordinator::FindCoordinatorResponse;
use gregor::protocol::init_producer_id::InitProducerIdResponse;
use gregor::protocol::metadata::{MetadataRequest, MetadataResponse, MetadataResponseBroker};
use gregor::protocol::txn_offset_commit::{
    TxnOffsetCommitRequest, TxnOffsetCommitResponse, TxnOffsetCommitResponsePartition,
    TxnOffsetCommitResponseTopic,
};
use gregor::protocol::{Message, Request, RequestHeader};
use gregor::wire::Reader;

/// TxnOffsetCommit requests received: version, decoded body, raw body.
type Commits = Arc<Mutex<Vec<(i16, TxnOffsetCommitRequest, Vec<u8>)>>>;

struct Peer {
    addr: String,
    /// TxnOffsetCommit requests received: version, decoded body, raw body.
    commits: Commits,
    /// The error code TxnOffsetCommit answers for every partition.
    answer: Arc<AtomicI16>,
}

use common::response_frame as frame;

fn read_frame(s: &mut TcpStream) -> Option<Vec<u8>> {
    let mut size = [0u8; 4];
    s.read_exact(&mut size).ok()?;
    let n = i32::from_be_bytes(size);
    if !(8..1 << 20).contains(&n) {
        return None;
    }
    let mut buf = vec![0u8; n as usize];
    s.read_exact(&mut buf).ok()?;
    Some(buf)
}

/// A scripted coordinator; `txn_offset_commit_max` is the highest
/// TxnOffsetCommit version it advertises (2: before KIP-447).
fn peer(txn_offset_commit_max: i16) -> Peer {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let addr = format!("127.0.0.1:{port}");
    let commits: Commits = Arc::default();
    let answer = Arc::new(AtomicI16::new(0));
    let (c2, a2) = (commits.clone(), answer.clone());
    thread::spawn(move || {
        for s in l.incoming() {
            let Ok(mut s) = s else { return };
            let (commits, answer) = (c2.clone(), a2.clone());
            thread::spawn(move || {
                while let Some(buf) = read_frame(&mut s) {
                    let key = i16::from_be_bytes([buf[0], buf[1]]);
                    let version = i16::from_be_bytes([buf[2], buf[3]]);
                    let corr = i32::from_be_bytes([buf[4], buf[5], buf[6], buf[7]]);
                    let out = match key {
                        18 => {
                            let mut resp = ApiVersionsResponse::default();
                            resp.api_keys = [
                                (18, 0, 3),
                                (3, 0, 9),
                                (10, 0, 3),
                                (22, 0, 4),
                                (25, 0, 3),
                                (26, 0, 3),
                                (28, 0, txn_offset_commit_max),
                            ]
                            .iter()
                            .map(|&(k, lo, hi)| {
                                let mut v = ApiVersion::default();
                                v.api_key = k;
                                v.min_version = lo;
                                v.max_version = hi;
                                v
                            })
                            .collect();
                            frame(corr, 0, &resp.to_bytes(version).unwrap())
                        }
                        3 => {
                            let mut b = MetadataResponseBroker::default();
                            b.node_id = 1;
                            b.host = "127.0.0.1".into();
                            b.port = i32::from(port);
                            let mut resp = MetadataResponse::default();
                            resp.brokers = vec![b];
                            resp.controller_id = 1;
                            let hv = MetadataRequest::response_header_version(version);
                            frame(corr, hv, &resp.to_bytes(version).unwrap())
                        }
                        10 => {
                            let mut resp = FindCoordinatorResponse::default();
                            resp.node_id = 1;
                            resp.host = "127.0.0.1".into();
                            resp.port = i32::from(port);
                            let hv = if version >= 3 { 1 } else { 0 };
                            frame(corr, hv, &resp.to_bytes(version).unwrap())
                        }
                        22 => {
                            let mut resp = InitProducerIdResponse::default();
                            resp.producer_id = 4000;
                            resp.producer_epoch = 3;
                            let hv = if version >= 2 { 1 } else { 0 };
                            frame(corr, hv, &resp.to_bytes(version).unwrap())
                        }
                        25 => {
                            let resp = AddOffsetsToTxnResponse::default();
                            let hv = if version >= 3 { 1 } else { 0 };
                            frame(corr, hv, &resp.to_bytes(version).unwrap())
                        }
                        26 => {
                            let resp = EndTxnResponse::default();
                            let hv = if version >= 3 { 1 } else { 0 };
                            frame(corr, hv, &resp.to_bytes(version).unwrap())
                        }
                        28 => {
                            let hv = TxnOffsetCommitRequest::request_header_version(version);
                            let mut r = Reader::new(&buf);
                            RequestHeader::decode(&mut r, hv).unwrap();
                            let at = buf.len() - r.remaining();
                            let req = TxnOffsetCommitRequest::decode(&mut r, version).unwrap();
                            let code = answer.load(Ordering::SeqCst);
                            let mut resp = TxnOffsetCommitResponse::default();
                            for t in &req.topics {
                                let mut rt = TxnOffsetCommitResponseTopic::default();
                                rt.name = t.name.clone();
                                for p in &t.partitions {
                                    let mut rp = TxnOffsetCommitResponsePartition::default();
                                    rp.partition_index = p.partition_index;
                                    rp.error_code = code;
                                    rt.partitions.push(rp);
                                }
                                resp.topics.push(rt);
                            }
                            commits
                                .lock()
                                .unwrap()
                                .push((version, req, buf[at..].to_vec()));
                            let hv = TxnOffsetCommitRequest::response_header_version(version);
                            frame(corr, hv, &resp.to_bytes(version).unwrap())
                        }
                        _ => return,
                    };
                    if s.write_all(&out).is_err() {
                        return;
                    }
                }
            });
        }
    });
    Peer {
        addr,
        commits,
        answer,
    }
}

fn txn_producer(addr: &str) -> Producer {
    let mut c = Config::new();
    for (k, v) in [
        ("bootstrap.servers", addr),
        ("transactional.id", "events-txn-1"),
        ("retry.backoff.ms", "20"),
    ] {
        c.set(k, v).unwrap();
    }
    let p = Producer::new(&c).unwrap();
    p.init_transactions(Duration::from_secs(10)).unwrap();
    p
}

fn member() -> ConsumerGroupMetadata {
    ConsumerGroupMetadata {
        group_id: "events-group".into(),
        generation_id: 17,
        member_id: "member-7f3a".into(),
        group_instance_id: Some("instance-b".into()),
    }
}

const OFFSETS: &[(&str, i32, i64)] = &[("in", 0, 42), ("in", 1, 7)];

#[test]
fn txn_offset_commit_v3_carries_the_group_metadata() {
    let peer = peer(3);
    let p = txn_producer(&peer.addr);
    p.begin_transaction().unwrap();
    p.send_offsets_to_transaction_with(OFFSETS, &member(), Duration::from_secs(10))
        .unwrap();
    p.commit_transaction(Duration::from_secs(10)).unwrap();
    let commits = peer.commits.lock().unwrap().clone();
    assert_eq!(commits.len(), 1);
    let (version, req, raw) = &commits[0];
    assert_eq!(*version, 3);
    assert_eq!(req.group_id, "events-group");
    assert_eq!(req.generation_id, 17);
    assert_eq!(req.member_id, "member-7f3a");
    assert_eq!(req.group_instance_id.as_deref(), Some("instance-b"));
    assert_eq!(req.producer_id, 4000);
    assert_eq!(req.producer_epoch, 3);
    let parts: Vec<(i32, i64)> = req.topics[0]
        .partitions
        .iter()
        .map(|p| (p.partition_index, p.committed_offset))
        .collect();
    assert_eq!(parts, vec![(0, 42), (1, 7)]);
    // the bytes: generation 17 as INT32, then the member and instance ids
    // as COMPACT_STRINGs (length + 1, v3 is flexible)
    let mut want = 17i32.to_be_bytes().to_vec();
    want.push(b"member-7f3a".len() as u8 + 1);
    want.extend_from_slice(b"member-7f3a");
    want.push(b"instance-b".len() as u8 + 1);
    want.extend_from_slice(b"instance-b");
    assert!(
        raw.windows(want.len()).any(|w| w == want.as_slice()),
        "generation, member and instance ids not on the wire: {raw:02x?}"
    );
}

#[test]
fn group_id_only_form_sends_no_member() {
    let peer = peer(3);
    let p = txn_producer(&peer.addr);
    p.begin_transaction().unwrap();
    p.send_offsets_to_transaction(OFFSETS, "events-group", Duration::from_secs(10))
        .unwrap();
    let (version, req, _) = peer.commits.lock().unwrap()[0].clone();
    assert_eq!(version, 3);
    assert_eq!(req.generation_id, -1);
    assert_eq!(req.member_id, "");
    assert_eq!(req.group_instance_id, None);
    p.abort_transaction(Duration::from_secs(10)).unwrap();
}

#[test]
fn a_broker_before_kip_447_gets_v2_without_the_fields() {
    let peer = peer(2);
    let p = txn_producer(&peer.addr);
    p.begin_transaction().unwrap();
    p.send_offsets_to_transaction_with(OFFSETS, &member(), Duration::from_secs(10))
        .unwrap();
    let (version, req, _) = peer.commits.lock().unwrap()[0].clone();
    assert_eq!(version, 2);
    // v2 has no such fields: decoded, they keep their defaults
    assert_eq!(req.generation_id, -1);
    assert_eq!(req.member_id, "");
    p.commit_transaction(Duration::from_secs(10)).unwrap();
}

#[test]
fn a_fenced_member_fails_the_call_and_the_transaction_must_abort() {
    let peer = peer(3);
    let p = txn_producer(&peer.addr);
    for (code, name) in [
        (22, "ILLEGAL_GENERATION"),
        (25, "UNKNOWN_MEMBER_ID"),
        (82, "FENCED_INSTANCE_ID"),
    ] {
        peer.answer.store(code, Ordering::SeqCst);
        peer.commits.lock().unwrap().clear();
        p.begin_transaction().unwrap();
        let started = Instant::now();
        let e = p
            .send_offsets_to_transaction_with(OFFSETS, &member(), Duration::from_secs(10))
            .unwrap_err();
        assert_eq!(e.code(), i32::from(code), "{name}: {e}");
        assert!(e.to_string().contains(name), "{e}");
        // answered at once, not retried until the timeout
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{name}: retried"
        );
        assert_eq!(peer.commits.lock().unwrap().len(), 1, "{name}: retried");
        let f = p.txn_error_flags(&e);
        assert!(
            f.txn_requires_abort && !f.fatal && !f.retriable,
            "{name}: {f:?}"
        );
        // the transaction cannot commit; abort, and the producer goes on
        assert!(p.commit_transaction(Duration::from_secs(5)).is_err());
        p.abort_transaction(Duration::from_secs(10)).unwrap();
        assert!(p.fatal_error().is_none());
    }
    // a member still in its generation commits again
    peer.answer.store(0, Ordering::SeqCst);
    p.begin_transaction().unwrap();
    p.send_offsets_to_transaction_with(OFFSETS, &member(), Duration::from_secs(10))
        .unwrap();
    p.commit_transaction(Duration::from_secs(10)).unwrap();
}

// ----- end to end against a real broker -----

#[test]
fn consume_transform_produce_with_group_metadata() {
    if !common::broker_up() {
        eprintln!("no broker at {}: skipped", common::broker());
        return;
    }
    // the primary broker refuses transactions; tansu completes them
    // (docs/TEST-SERVICES.md)
    let tansu = common::tansu::Tansu::start();
    let cfg = |extra: &[(&str, &str)]| {
        let mut c = Config::from_pairs([("bootstrap.servers", tansu.addr.as_str())]).unwrap();
        for (k, v) in extra {
            c.set(k, v).unwrap();
        }
        c
    };
    let input = common::unique_topic("events-eos-in");
    let output = common::unique_topic("events-eos-out");
    let group = common::unique_topic("events-eos-g");
    let src = Producer::new(&cfg(&[])).unwrap();
    for i in 0..10 {
        let v = format!("v{i}");
        src.send(&ProducerRecord::new(&input, v.as_bytes()), 0)
            .unwrap();
    }
    src.flush(Duration::from_secs(10)).unwrap();

    let c = Consumer::new(&cfg(&[
        ("group.id", &group),
        ("enable.auto.commit", "false"),
        ("auto.offset.reset", "earliest"),
    ]))
    .unwrap();
    c.subscribe(&[&input]).unwrap();
    let tid = common::unique_topic("events-eos-tid");
    let p = Producer::new(&cfg(&[("transactional.id", &tid)])).unwrap();
    p.init_transactions(Duration::from_secs(30)).unwrap();
    p.begin_transaction().unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut next = 0i64;
    while next < 10 && Instant::now() < deadline {
        if let Some(m) = c.poll(Duration::from_millis(200)).unwrap() {
            if m.error.is_some() {
                continue;
            }
            let up = m.value.as_deref().unwrap().to_ascii_uppercase();
            p.send(&ProducerRecord::new(&output, &up), 0).unwrap();
            next = m.offset + 1;
        }
    }
    assert_eq!(next, 10, "consumed the input");
    let meta = c.group_metadata().unwrap();
    assert_eq!(meta.group_id, group);
    assert!(meta.generation_id >= 0, "{meta:?}");
    assert!(!meta.member_id.is_empty(), "{meta:?}");
    assert_eq!(meta.group_instance_id, None);
    p.send_offsets_to_transaction_with(&[(&input, 0, next)], &meta, Duration::from_secs(30))
        .unwrap();
    p.commit_transaction(Duration::from_secs(30)).unwrap();
    // the group's committed offset is the transaction's
    let committed = c
        .committed(
            &[TopicPartitionOffset::new(input.as_str(), 0, -1001)],
            Duration::from_secs(10),
        )
        .unwrap();
    assert_eq!(committed[0].offset, 10);
    // (tansu does not check the generation in TxnOffsetCommit, so fencing
    // is shown by the scripted coordinator above)
    let t = Instant::now();
    c.close();
    assert!(t.elapsed() < Duration::from_secs(15));
}
