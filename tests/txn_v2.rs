//! Transactions v1 (KIP-98) and v2 (KIP-890 part 2) against gregor's mock
//! cluster, whose finalized `transaction.version` feature picks the
//! protocol: 20 transactions in a row, commits and aborts mixed, a
//! read_committed consumer reading exactly the committed messages, and the
//! requests of each protocol taken from the mock's request log: in v2 no
//! AddPartitionsToTxn, Produce v12, EndTxn v5+ and the epoch bumped by
//! every transaction; in v1 AddPartitionsToTxn, Produce v11 or below,
//! EndTxn v4 or below and one epoch throughout.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use gregor::config::Config;
use gregor::consumer::{Consumer, TopicPartitionOffset as Tpo};
use gregor::message::{offset, ProducerRecord};
use gregor::mock::{Cluster, TrackedRequest};
use gregor::producer::Producer;

const PRODUCE: i16 = 0;
const ADD_PARTITIONS_TO_TXN: i16 = 24;
const ADD_OFFSETS_TO_TXN: i16 = 25;
const END_TXN: i16 = 26;
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
    let mut out = Vec::new();
    let until = Instant::now() + Duration::from_secs(20);
    let mut extra_until = None;
    loop {
        let now = Instant::now();
        if out.len() >= n && extra_until.is_none() {
            extra_until = Some(now + Duration::from_millis(500));
        }
        if now > until || extra_until.is_some_and(|t| now > t) {
            break;
        }
        if let Some(m) = c.poll(Duration::from_millis(50)).unwrap() {
            if m.error.is_none() {
                out.push(
                    String::from_utf8_lossy(m.value.as_deref().unwrap_or_default()).into_owned(),
                );
            }
        }
    }
    c.close();
    out.sort();
    out
}

fn run(transaction_version: Option<i16>) -> Run {
    let mut b = Cluster::builder()
        .brokers(3)
        .group_initial_rebalance_delay(Duration::from_millis(50));
    if let Some(level) = transaction_version {
        b = b.transaction_version(level);
    }
    let mc = b.build().unwrap();
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
        if commit {
            p.commit_transaction(Duration::from_secs(10)).unwrap();
            committed.extend(values);
        } else {
            // the aborted messages reach the log, so read_committed has something to skip
            p.flush(Duration::from_secs(10)).unwrap();
            p.abort_transaction(Duration::from_secs(10)).unwrap();
        }
        producers.push(mc.transaction_producer(tid).unwrap());
    }
    let requests = mc.requests();
    drop(p);
    committed.sort();
    let read = read_committed(&bs, committed.len());
    Run {
        requests,
        producers,
        committed,
        read,
    }
}

/// Request counts by API name and version, printed and returned.
fn versions(mode: &str, requests: &[TrackedRequest]) -> BTreeMap<(i16, i16), usize> {
    let mut by = BTreeMap::new();
    for r in requests {
        if matches!(
            r.api_key,
            PRODUCE | ADD_PARTITIONS_TO_TXN | ADD_OFFSETS_TO_TXN | END_TXN
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

#[test]
fn transactions_v2_bump_the_epoch_and_add_partitions_with_produce() {
    let r = run(Some(2));
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
        let r = run(level);
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
