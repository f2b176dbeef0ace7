//! Transactions v1 (KIP-98) and v2 (KIP-890 part 2) against gregor's mock
//! cluster, whose finalized `transaction.version` feature picks the
//! protocol: 20 transactions in a row, commits and aborts mixed, a
//! read_committed consumer reading exactly the committed messages, and the
//! requests of each protocol taken from the mock's request log: in v2 no
//! AddPartitionsToTxn, Produce v12, EndTxn v5+ and the epoch bumped by
//! every transaction; in v1 AddPartitionsToTxn, Produce v11 or below,
//! EndTxn v4 or below and one epoch throughout.

mod common;
mod mock_cluster;

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use gregor::compression::Codec;
use gregor::config::Config;
use gregor::consumer::{Consumer, TopicPartitionOffset as Tpo};
use gregor::message::{offset, ProducerRecord};
use gregor::mock::{Cluster, TrackedRequest};
use gregor::producer::Producer;
use gregor::protocol::add_offsets_to_txn::AddOffsetsToTxnRequest;
use gregor::protocol::add_partitions_to_txn::{AddPartitionsToTxnRequest, AddPartitionsToTxnTopic};
use gregor::protocol::api_versions::ApiVersionsRequest;
use gregor::protocol::end_txn::{EndTxnRequest, EndTxnResponse};
use gregor::protocol::init_producer_id::InitProducerIdRequest;
use gregor::protocol::produce::{PartitionProduceData, ProduceRequest, TopicProduceData};
use gregor::protocol::{decode_response, encode_request, Request};
use gregor::record::batch::RecordBatchBuilder;
use gregor::wire::{Reader, Writer};

const PRODUCE: i16 = 0;
const ADD_PARTITIONS_TO_TXN: i16 = 24;
const ADD_OFFSETS_TO_TXN: i16 = 25;
const END_TXN: i16 = 26;
const TXN_OFFSET_COMMIT: i16 = 28;
const GROUP: &str = "txn-modes-group";
const TRANSACTIONS: usize = 20;
const TOPIC: &str = "txn-modes";

fn config(bootstrap: &str, extra: &[(&str, &str)]) -> Config {
    let mut c = Config::from_pairs([("bootstrap.servers", bootstrap)]).unwrap();
    for (k, v) in extra {
        c.set(k, v).unwrap();
    }
    c
}

/// What one run saw.
struct Run {
    requests: Vec<TrackedRequest>,
    /// The coordinator's (producer id, epoch) after init and after each transaction.
    producers: Vec<(i64, i16)>,
    committed: Vec<String>,
    read: Vec<String>,
    /// The group's committed offset of partition 0 (sent in transactions 4 and 5).
    group_offset: i64,
}

/// Reads both partitions with read_committed until `n` messages came (or
/// 20 s), then 500 ms more for any that should not be there.
fn read_committed(bootstrap: &str, n: usize) -> Vec<String> {
    let c = Consumer::new(&config(bootstrap, &[("isolation.level", "read_committed")])).unwrap();
    c.assign(&[
        Tpo::new(TOPIC, 0, offset::BEGINNING),
        Tpo::new(TOPIC, 1, offset::BEGINNING),
    ])
    .unwrap();
    let mut out: Vec<String> = common::poll_messages(&c, n, Duration::from_millis(500))
        .into_iter()
        .map(|m| String::from_utf8_lossy(m.value.as_deref().unwrap_or_default()).into_owned())
        .collect();
    c.close();
    out.sort();
    out
}

/// The 20 transactions (every third aborted), 3 messages each over both
/// partitions; with `offsets`, consumed offsets go into transactions 4
/// (committed) and 5 (aborted). Calls `after_each` after each one. Returns
/// the committed values, sorted.
fn transactions(p: &Producer, offsets: bool, mut after_each: impl FnMut()) -> Vec<String> {
    let mut committed = Vec::new();
    for i in 0..TRANSACTIONS {
        p.begin_transaction().unwrap();
        let commit = i % 3 != 2;
        let values: Vec<String> = (0..3)
            .map(|j| format!("t{i:02}-m{j}-{}", if commit { "commit" } else { "abort" }))
            .collect();
        for (j, v) in values.iter().enumerate() {
            p.send(
                &ProducerRecord {
                    topic: TOPIC,
                    partition: Some((i + j) as i32 % 2),
                    key: None,
                    value: Some(v.as_bytes()),
                    headers: &[],
                    timestamp: None,
                },
                0,
            )
            .unwrap();
        }
        if offsets && (i == 4 || i == 5) {
            // AddOffsetsToTxn and TxnOffsetCommit in both protocols
            p.send_offsets_to_transaction(
                &[(TOPIC, 0, 100 + i as i64)],
                GROUP,
                Duration::from_secs(10),
            )
            .unwrap();
        }
        if commit {
            p.commit_transaction(Duration::from_secs(10)).unwrap();
            committed.extend(values);
        } else {
            // the aborted messages reach the log, so read_committed has something to skip
            p.flush(Duration::from_secs(10)).unwrap();
            p.abort_transaction(Duration::from_secs(10)).unwrap();
        }
        after_each();
    }
    committed.sort();
    committed
}

/// Runs the 20 transactions on a mock with `transaction_version`
/// finalized, its Produce capped at `produce_max` when given.
fn run(transaction_version: Option<i16>, produce_max: Option<i16>) -> Run {
    let mut b = Cluster::builder()
        .brokers(3)
        .group_initial_rebalance_delay(Duration::from_millis(50));
    if let Some(level) = transaction_version {
        b = b.transaction_version(level);
    }
    let mc = b.build().unwrap();
    if let Some(max) = produce_max {
        mc.set_api_version(PRODUCE, 3, max).unwrap();
    }
    let bs = mc.bootstrap_servers();
    mc.create_topic(TOPIC, 2, 1).unwrap();
    let tid = "txn-modes-producer";
    let p = Producer::new(&config(
        &bs,
        &[("transactional.id", tid), ("linger.ms", "1")],
    ))
    .unwrap();
    p.init_transactions(Duration::from_secs(10)).unwrap();
    mc.start_request_tracking();
    let mut producers = vec![mc.transaction_producer(tid).unwrap()];
    let committed = transactions(&p, true, || {
        producers.push(mc.transaction_producer(tid).unwrap())
    });
    let requests = mc.requests();
    drop(p);
    let read = read_committed(&bs, committed.len());
    let c = Consumer::new(&config(&bs, &[("group.id", GROUP)])).unwrap();
    let group_offset = c
        .committed(
            &[Tpo::new(TOPIC, 0, offset::INVALID)],
            Duration::from_secs(10),
        )
        .unwrap()[0]
        .offset;
    c.close();
    Run {
        requests,
        producers,
        committed,
        read,
        group_offset,
    }
}

/// Request counts by API name and version, printed and returned.
fn versions(mode: &str, requests: &[TrackedRequest]) -> BTreeMap<(i16, i16), usize> {
    let mut by = BTreeMap::new();
    for r in requests {
        if matches!(
            r.api_key,
            PRODUCE | ADD_PARTITIONS_TO_TXN | ADD_OFFSETS_TO_TXN | END_TXN | TXN_OFFSET_COMMIT
        ) {
            *by.entry((r.api_key, r.api_version)).or_insert(0) += 1;
        }
    }
    for ((key, version), n) in &by {
        println!(
            "{mode}: {} v{version}: {n} request(s)",
            gregor::protocol::api_name(*key)
        );
    }
    by
}

fn sent(by: &BTreeMap<(i16, i16), usize>, key: i16) -> Vec<(i16, usize)> {
    by.iter()
        .filter(|((k, _), _)| *k == key)
        .map(|((_, v), n)| (*v, *n))
        .collect()
}

/// Offsets sent to transactions 4 (committed) and 5 (aborted): one
/// AddOffsetsToTxn and one TxnOffsetCommit each, and the group keeps
/// transaction 4's offset.
fn offsets_in_transactions(mode: &str, by: &BTreeMap<(i16, i16), usize>, group_offset: i64) {
    let count = |key| sent(by, key).iter().map(|(_, n)| n).sum::<usize>();
    assert_eq!(
        count(ADD_OFFSETS_TO_TXN),
        2,
        "{mode}: AddOffsetsToTxn: {by:?}"
    );
    assert_eq!(
        count(TXN_OFFSET_COMMIT),
        2,
        "{mode}: TxnOffsetCommit: {by:?}"
    );
    assert_eq!(
        group_offset, 104,
        "{mode}: the committed transaction's offset"
    );
}

#[test]
fn transactions_v2_bump_the_epoch_and_add_partitions_with_produce() {
    let r = run(Some(2), None);
    let by = versions("transactions v2", &r.requests);
    assert_eq!(
        r.read, r.committed,
        "read_committed reads the committed messages only"
    );
    assert_eq!(r.committed.len(), 3 * 14);
    assert!(
        sent(&by, ADD_PARTITIONS_TO_TXN).is_empty(),
        "no AddPartitionsToTxn in v2: {by:?}"
    );
    let produce = sent(&by, PRODUCE);
    assert!(
        !produce.is_empty() && produce.iter().all(|(v, _)| *v == 12),
        "Produce v12 only: {produce:?}"
    );
    let end = sent(&by, END_TXN);
    assert!(end.iter().all(|(v, _)| *v >= 5), "EndTxn v5+: {end:?}");
    assert_eq!(end.iter().map(|(_, n)| n).sum::<usize>(), TRANSACTIONS);
    offsets_in_transactions("transactions v2", &by, r.group_offset);
    println!(
        "transactions v2: coordinator's (producer id, epoch) per transaction: {:?}",
        r.producers
    );
    for w in r.producers.windows(2) {
        assert_eq!(w[1].0, w[0].0, "one producer id");
        assert_eq!(
            w[1].1,
            w[0].1 + 1,
            "every EndTxn bumps the epoch: {:?}",
            r.producers
        );
    }
}

#[test]
fn transactions_v1_add_partitions_and_keep_the_epoch() {
    for level in [None, Some(1)] {
        let mode = format!("transactions v1 (transaction.version {level:?})");
        let r = run(level, None);
        let by = versions(&mode, &r.requests);
        assert_eq!(
            r.read, r.committed,
            "{mode}: read_committed reads the committed messages only"
        );
        let add = sent(&by, ADD_PARTITIONS_TO_TXN);
        assert!(
            add.iter().all(|(v, _)| *v <= 3),
            "{mode}: AddPartitionsToTxn v0-3: {add:?}"
        );
        assert!(
            add.iter().map(|(_, n)| n).sum::<usize>() >= TRANSACTIONS,
            "{mode}: AddPartitionsToTxn in every transaction: {add:?}"
        );
        let produce = sent(&by, PRODUCE);
        assert!(
            !produce.is_empty() && produce.iter().all(|(v, _)| *v <= 11),
            "{mode}: Produce v11 or below: {produce:?}"
        );
        let end = sent(&by, END_TXN);
        assert!(
            end.iter().all(|(v, _)| *v <= 4),
            "{mode}: EndTxn v4 or below: {end:?}"
        );
        assert_eq!(end.iter().map(|(_, n)| n).sum::<usize>(), TRANSACTIONS);
        offsets_in_transactions(&mode, &by, r.group_offset);
        println!(
            "{mode}: coordinator's (producer id, epoch) per transaction: {:?}",
            r.producers
        );
        assert!(
            r.producers.windows(2).all(|w| w[0] == w[1]),
            "{mode}: one producer id and epoch: {:?}",
            r.producers
        );
    }
}

/// One raw request/response exchange with a broker.
fn exchange<R: Request>(s: &mut TcpStream, v: i16, req: &R) -> R::Response {
    let mut w = Writer::new();
    encode_request(&mut w, 7, Some("raw"), v, req).unwrap();
    s.write_all(w.as_slice()).unwrap();
    let mut size = [0u8; 4];
    s.read_exact(&mut size).unwrap();
    let mut buf = vec![0u8; i32::from_be_bytes(size) as usize];
    s.read_exact(&mut buf).unwrap();
    let (h, resp) = decode_response::<R>(&mut Reader::new(&buf), v).unwrap();
    assert_eq!(h.correlation_id, 7);
    resp
}

/// A transactional Produce of one record at `version`: the partition's error code.
fn produce(s: &mut TcpStream, version: i16, pid: i64, epoch: i16, seq: i32) -> i16 {
    let mut b = RecordBatchBuilder::new()
        .producer(pid, epoch, seq)
        .transactional(true);
    b.append(1, None, Some(b"v"), &[]).unwrap();
    let mut part = PartitionProduceData::default();
    part.index = 0;
    part.records = Some(b.finish(Codec::None, None).unwrap().into());
    let mut topic = TopicProduceData::default();
    topic.name = "raw-txn".into();
    topic.partition_data = vec![part];
    let mut req = ProduceRequest::default();
    req.transactional_id = Some("raw".into());
    req.acks = -1;
    req.timeout_ms = 5000;
    req.topic_data = vec![topic];
    exchange(s, version, &req).responses[0].partition_responses[0].error_code
}

fn end_txn(s: &mut TcpStream, version: i16, pid: i64, epoch: i16, commit: bool) -> EndTxnResponse {
    let mut req = EndTxnRequest::default();
    req.transactional_id = "raw".into();
    req.producer_id = pid;
    req.producer_epoch = epoch;
    req.committed = commit;
    exchange(s, version, &req)
}

fn init_pid(s: &mut TcpStream) -> (i64, i16) {
    let mut req = InitProducerIdRequest::default();
    req.transactional_id = Some("raw".into());
    req.transaction_timeout_ms = 60_000;
    req.producer_id = -1;
    req.producer_epoch = -1;
    let r = exchange(s, 4, &req);
    assert_eq!(r.error_code, 0);
    (r.producer_id, r.producer_epoch)
}

const INVALID_PRODUCER_EPOCH: i16 = 47;
const INVALID_TXN_STATE: i16 = 48;
const PRODUCER_FENCED: i16 = 90;

#[test]
fn the_mock_serves_transactions_v2_on_the_wire() {
    let mc = Cluster::builder()
        .brokers(1)
        .transaction_version(2)
        .build()
        .unwrap();
    mc.create_topic("raw-txn", 1, 1).unwrap();
    let mut s = TcpStream::connect(mc.bootstrap_servers()).unwrap();
    let av = exchange(&mut s, 3, &ApiVersionsRequest::default());
    let tv: Vec<(String, i16)> = av
        .finalized_features
        .iter()
        .map(|f| (f.name.clone(), f.max_version_level))
        .collect();
    assert_eq!(tv, [("transaction.version".to_string(), 2)]);
    assert!(av.finalized_features_epoch >= 0);
    let (pid, epoch) = init_pid(&mut s);
    assert_eq!(epoch, 0);
    // Produce v11 does not add the partition: outside the transaction.
    assert_eq!(produce(&mut s, 11, pid, 0, 0), INVALID_TXN_STATE);
    // Produce v12 adds it (KIP-890 part 2).
    assert_eq!(produce(&mut s, 12, pid, 0, 0), 0);
    let r = end_txn(&mut s, 5, pid, 0, true);
    assert_eq!((r.error_code, r.producer_id, r.producer_epoch), (0, pid, 1));
    // A retry of that EndTxn with the old epoch: the same answer.
    let r = end_txn(&mut s, 5, pid, 0, true);
    assert_eq!((r.error_code, r.producer_id, r.producer_epoch), (0, pid, 1));
    // The old epoch is fenced everywhere.
    assert_eq!(produce(&mut s, 12, pid, 0, 1), INVALID_PRODUCER_EPOCH);
    let mut add = AddOffsetsToTxnRequest::default();
    add.transactional_id = "raw".into();
    add.producer_id = pid;
    add.producer_epoch = 0;
    add.group_id = "g".into();
    assert_eq!(exchange(&mut s, 3, &add).error_code, PRODUCER_FENCED);
    assert_eq!(
        end_txn(&mut s, 5, pid, 0, false).error_code,
        PRODUCER_FENCED
    );
    // The new epoch works, from sequence 0.
    assert_eq!(produce(&mut s, 12, pid, 1, 0), 0);
    // EndTxn v4 ends it without a bump, as transactions v1 clients expect.
    let r = end_txn(&mut s, 4, pid, 1, false);
    assert_eq!(r.error_code, 0);
    assert_eq!(mc.transaction_producer("raw"), Some((pid, 1)));
    // An abort of a transaction the coordinator never saw: allowed in v2, bumped.
    let r = end_txn(&mut s, 5, pid, 1, false);
    assert_eq!((r.error_code, r.producer_epoch), (0, 2));
    assert_eq!(mc.transaction_producer("raw"), Some((pid, 2)));
}

#[test]
fn the_mock_serves_transactions_v1_on_the_wire() {
    let mc = Cluster::builder().brokers(1).build().unwrap();
    mc.create_topic("raw-txn", 1, 1).unwrap();
    let mut s = TcpStream::connect(mc.bootstrap_servers()).unwrap();
    let av = exchange(&mut s, 3, &ApiVersionsRequest::default());
    assert!(av.finalized_features.is_empty());
    let (pid, _) = init_pid(&mut s);
    // Without transactions v2 even Produce v12 must name an added partition.
    assert_eq!(produce(&mut s, 12, pid, 0, 0), INVALID_TXN_STATE);
    let mut add = AddPartitionsToTxnRequest::default();
    add.v3_and_below_transactional_id = "raw".into();
    add.v3_and_below_producer_id = pid;
    add.v3_and_below_producer_epoch = 0;
    let mut t = AddPartitionsToTxnTopic::default();
    t.name = "raw-txn".into();
    t.partitions = vec![0];
    add.v3_and_below_topics = vec![t];
    let r = exchange(&mut s, 3, &add);
    assert_eq!(
        r.results_by_topic_v3_and_below[0].results_by_partition[0].partition_error_code,
        0
    );
    assert_eq!(produce(&mut s, 12, pid, 0, 0), 0);
    // EndTxn v5 answers the producer id and epoch, unbumped.
    let r = end_txn(&mut s, 5, pid, 0, true);
    assert_eq!((r.error_code, r.producer_id, r.producer_epoch), (0, pid, 0));
    assert_eq!(produce(&mut s, 12, pid, 0, 1), INVALID_TXN_STATE);
    // Switched to v2 at run time: the next transaction is v2.
    mc.set_transaction_version(Some(2));
    assert_eq!(produce(&mut s, 12, pid, 0, 1), 0);
    let r = end_txn(&mut s, 5, pid, 0, true);
    assert_eq!((r.error_code, r.producer_epoch), (0, 1));
}

#[test]
fn transactions_v2_with_leaders_without_produce_v12_add_partitions_first() {
    // a leader that cannot add the partition with the Produce: the
    // partitions go through AddPartitionsToTxn, the epoch still moves with
    // every EndTxn v5
    let r = run(Some(2), Some(11));
    let by = versions("transactions v2, Produce capped at v11", &r.requests);
    assert_eq!(r.read, r.committed);
    let add = sent(&by, ADD_PARTITIONS_TO_TXN);
    assert!(
        add.iter().map(|(_, n)| n).sum::<usize>() >= TRANSACTIONS,
        "AddPartitionsToTxn in every transaction: {add:?}"
    );
    assert!(sent(&by, PRODUCE).iter().all(|(v, _)| *v == 11));
    assert!(sent(&by, END_TXN).iter().all(|(v, _)| *v >= 5));
    assert!(
        r.producers.windows(2).all(|w| w[1].1 == w[0].1 + 1),
        "{:?}",
        r.producers
    );
}

/// The same 20 transactions against librdkafka's mock cluster (with
/// tests/mock_cluster/patches/0007, which writes the markers and answers
/// read_committed fetches as Kafka does): the read_committed consumer reads
/// exactly the committed messages. Its TxnOffsetCommit commits at once, not
/// at EndTxn, so the offsets in transactions are checked on gregor's mock
/// only.
#[test]
fn transactions_on_librdkafkas_mock_read_committed_reads_the_commits_only() {
    let mc = mock_cluster::MockCluster::start(3);
    mc.topic(TOPIC, 2, 1);
    let p = Producer::new(&config(
        &mc.bootstrap,
        &[("transactional.id", "txn-rdk-producer"), ("linger.ms", "1")],
    ))
    .unwrap();
    p.init_transactions(Duration::from_secs(10)).unwrap();
    mc.track_start();
    let committed = transactions(&p, false, || {});
    drop(p);
    let mut by: BTreeMap<String, (i16, usize)> = BTreeMap::new();
    for (_, name, v) in mc.versions() {
        let e = by.entry(name).or_insert((v, 0));
        e.0 = e.0.max(v);
        e.1 += 1;
    }
    println!("librdkafka's mock: (highest version, count) by request: {by:?}");
    let read = read_committed(&mc.bootstrap, committed.len());
    assert_eq!(committed.len(), 3 * 14);
    assert_eq!(
        read, committed,
        "read_committed reads the committed messages only"
    );
    assert_eq!(by.get("EndTxn").map(|e| e.1), Some(TRANSACTIONS), "{by:?}");
}
