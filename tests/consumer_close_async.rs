//! The consumer's rebalance protocol (`rd_kafka_rebalance_protocol`), lost
//! assignment (`rd_kafka_assignment_lost`) and non-blocking close
//! (`rd_kafka_consumer_close_queue` / `rd_kafka_consumer_closed`), against
//! the real broker:
//! - "NONE" before joining and without a group, "EAGER" with the default
//!   assignors, "COOPERATIVE" with cooperative-sticky;
//! - `close_start` returns at once; the revocation runs in the
//!   application's `poll` (on its thread); `closed()` turns true, the
//!   io-event writer is written at the end, polls answer `_STATE`; a second
//!   `close_start` is refused; `close` afterwards returns at once;
//! - a member that stops polling past `max.poll.interval.ms` loses its
//!   assignment: `assignment_lost()` is true from the Lost event until the
//!   group assigns partitions again.

mod common;

use std::io::Read;
use std::os::unix::net::UnixStream;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use gregor::consumer::{Consumer, RebalanceEvent};
use gregor::error::local;

const T: Duration = Duration::from_secs(30);

fn member(group: &str, extra: &[(&str, &str)]) -> Consumer {
    let mut pairs = vec![
        ("group.id", group),
        ("auto.offset.reset", "earliest"),
        ("session.timeout.ms", "6000"),
        ("heartbeat.interval.ms", "500"),
    ];
    pairs.extend_from_slice(extra);
    Consumer::new(&common::config(&pairs)).unwrap()
}

fn poll_until(c: &Consumer, mut done: impl FnMut(&Consumer) -> bool) {
    let until = Instant::now() + T;
    while !done(c) {
        assert!(Instant::now() < until, "timed out");
        let _ = c.poll(Duration::from_millis(100));
    }
}

#[test]
fn rebalance_protocol_names() {
    if !common::broker_up() {
        return;
    }
    let plain = Consumer::new(&common::config(&[])).unwrap();
    assert_eq!(plain.rebalance_protocol(), "NONE");
    assert!(plain.group_metadata().is_none());
    let topic = common::unique_topic("events-proto");
    common::create_topic(&topic, 2);
    for (strategy, want) in [
        ("range,roundrobin", "EAGER"),
        ("cooperative-sticky", "COOPERATIVE"),
    ] {
        let group = common::unique_topic("events-proto-g");
        let c = member(&group, &[("partition.assignment.strategy", strategy)]);
        assert_eq!(c.rebalance_protocol(), "NONE", "not joined yet");
        let meta = c.group_metadata().unwrap();
        assert_eq!((meta.generation_id, meta.member_id.as_str()), (-1, ""));
        c.subscribe(&[&topic]).unwrap();
        poll_until(&c, |c| !c.assignment().is_empty());
        assert_eq!(c.rebalance_protocol(), want, "{strategy}");
        let meta = c.group_metadata().unwrap();
        assert!(
            meta.generation_id >= 0 && !meta.member_id.is_empty(),
            "{meta:?}"
        );
        assert_eq!(meta.member_id, c.member_id());
        c.close();
    }
}

#[test]
fn close_start_serves_the_revocation_in_poll_and_ends() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("events-close");
    common::create_topic(&topic, 2);
    let group = common::unique_topic("events-close-g");
    let c = member(&group, &[]);
    let events: Arc<Mutex<Vec<(i32, std::thread::ThreadId)>>> = Arc::default();
    let e2 = events.clone();
    c.set_rebalance_callback(move |_, ev: RebalanceEvent| {
        e2.lock()
            .unwrap()
            .push((ev.code(), std::thread::current().id()));
    });
    c.subscribe(&[&topic]).unwrap();
    poll_until(&c, |c| !c.assignment().is_empty());
    assert!(!c.closed());
    let (mut rx, tx) = UnixStream::pair().unwrap();
    tx.set_nonblocking(true).unwrap();
    rx.set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    c.set_io_event(tx, b"!".to_vec());
    let drain = |rx: &mut UnixStream| {
        let mut b = [0u8; 64];
        rx.read(&mut b).unwrap_or(0)
    };
    while drain(&mut rx) > 0 {}

    let started = Instant::now();
    c.close_start().unwrap();
    // the close cannot end before the application polls (the revocation is
    // served on the polling thread): still open here means close_start did
    // not wait for it (a condition, not a time a loaded machine can miss)
    assert!(!c.closed(), "close_start blocked until the close ended");
    let e = c.close_start().unwrap_err();
    assert_eq!(e.code(), local::STATE);
    // the application keeps polling, here driven by the io-event socket
    let until = Instant::now() + T;
    let mut state_error = false;
    let mut wakeups = 0;
    while !c.closed() {
        assert!(Instant::now() < until, "close did not end");
        if drain(&mut rx) == 0 {
            continue;
        }
        wakeups += 1;
        if let Err(e) = c.poll(Duration::ZERO) {
            assert_eq!(e.code(), local::STATE);
            state_error = true;
        }
    }
    let took = started.elapsed();
    println!("close_start → closed in {took:?}, {wakeups} io-event wakeups");
    let ev = events.lock().unwrap().clone();
    let me = std::thread::current().id();
    assert_eq!(ev.last().map(|e| e.0), Some(2), "revoked last: {ev:?}");
    assert_eq!(
        ev.last().unwrap().1,
        me,
        "the callback ran on the polling thread"
    );
    // closed: polls answer _STATE, and the end woke the loop
    assert_eq!(c.poll(Duration::ZERO).unwrap_err().code(), local::STATE);
    assert!(state_error || wakeups > 0);
    let t = Instant::now();
    c.close();
    assert!(t.elapsed() < Duration::from_secs(1));
    assert!(c.closed());
}

#[test]
fn close_start_without_polling_is_bounded_and_applies_the_revocation() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("events-close2");
    common::create_topic(&topic, 1);
    let group = common::unique_topic("events-close2-g");
    let c = member(&group, &[("socket.timeout.ms", "2000")]);
    c.subscribe(&[&topic]).unwrap();
    poll_until(&c, |c| !c.assignment().is_empty());
    c.close_start().unwrap();
    // nobody polls: the close gives up waiting after socket.timeout.ms
    let t = Instant::now();
    while !c.closed() {
        assert!(t.elapsed() < Duration::from_secs(10), "unbounded");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(c.assignment().is_empty());
    c.close();
}

#[test]
fn assignment_lost_after_max_poll_interval() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("events-lost");
    common::create_topic(&topic, 1);
    let group = common::unique_topic("events-lost-g");
    let c = member(&group, &[("max.poll.interval.ms", "6000")]);
    let seen: Arc<Mutex<Vec<(i32, bool)>>> = Arc::default();
    let s2 = seen.clone();
    c.set_rebalance_callback(move |c, ev: RebalanceEvent| {
        // inside the Lost callback, assignment_lost() already says so
        s2.lock().unwrap().push((ev.code(), c.assignment_lost()));
    });
    c.subscribe(&[&topic]).unwrap();
    poll_until(&c, |c| !c.assignment().is_empty());
    assert!(!c.assignment_lost());
    std::thread::sleep(Duration::from_millis(7000));
    poll_until(&c, |c| c.assignment_lost());
    assert!(
        seen.lock().unwrap().contains(&(3, true)),
        "{:?}",
        seen.lock().unwrap()
    );
    // the next poll rejoins; the new assignment clears it
    poll_until(&c, |c| !c.assignment_lost() && !c.assignment().is_empty());
    let ev = seen.lock().unwrap().clone();
    assert_eq!(ev.last(), Some(&(1, false)), "{ev:?}");
    c.close();
}

#[test]
fn close_after_close_start_serves_the_revocation_itself() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("events-close3");
    common::create_topic(&topic, 1);
    let group = common::unique_topic("events-close3-g");
    let c = member(&group, &[]);
    let events: Arc<Mutex<Vec<(i32, std::thread::ThreadId)>>> = Arc::default();
    let e2 = events.clone();
    c.set_rebalance_callback(move |_, ev: RebalanceEvent| {
        e2.lock()
            .unwrap()
            .push((ev.code(), std::thread::current().id()));
    });
    c.subscribe(&[&topic]).unwrap();
    poll_until(&c, |c| !c.assignment().is_empty());
    c.close_start().unwrap();
    // no poll: close itself serves the revocation, promptly
    let t = Instant::now();
    c.close();
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    assert!(c.closed());
    let ev = events.lock().unwrap().clone();
    assert_eq!(
        ev.last().copied(),
        Some((2, std::thread::current().id())),
        "{ev:?}"
    );
}
