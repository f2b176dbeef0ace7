//! The gregor side of the producer benchmark (scripts/bench-producer.py runs
//! it next to librdkafka's rdkafka_performance): sends COUNT messages of
//! SIZE bytes to TOPIC as fast as the queue allows, waits for every
//! delivery report, and prints what it measured.
//!
//!     produce_perf BROKERS TOPIC COUNT SIZE ACKS CODEC [prop=value ...]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use gregor::config::Config;
use gregor::message::ProducerRecord;
use gregor::producer::Producer;

fn main() -> Result<(), gregor::error::Error> {
    let a: Vec<String> = std::env::args().collect();
    if a.len() < 7 {
        eprintln!("usage: produce_perf BROKERS TOPIC COUNT SIZE ACKS CODEC [prop=value ...]");
        std::process::exit(2);
    }
    let (brokers, topic) = (&a[1], &a[2]);
    let count: usize = a[3].parse().expect("COUNT");
    let size: usize = a[4].parse().expect("SIZE");
    let mut cfg = Config::new();
    cfg.set("bootstrap.servers", brokers)?;
    cfg.set("acks", &a[5])?;
    cfg.set("compression.type", &a[6])?;
    for kv in &a[7..] {
        let (k, v) = kv.split_once('=').expect("prop=value");
        cfg.set(k, v)?;
    }
    // GREGOR_BENCH_LOGGER=1: a log callback configured (it counts lines),
    // to show that logging with `debug` off costs nothing measurable
    let logged = Arc::new(AtomicUsize::new(0));
    if std::env::var_os("GREGOR_BENCH_LOGGER").is_some() {
        let l = logged.clone();
        cfg.set_log_callback(Some(gregor::log::LogCallback::new(move |_, _, _, _| {
            l.fetch_add(1, Ordering::Relaxed);
        })));
    }
    let p = Producer::new(&cfg)?;
    let failed = Arc::new(AtomicUsize::new(0));
    let f2 = failed.clone();
    p.set_delivery_callback(Some(Box::new(move |dr| {
        if dr.error.is_some() {
            f2.fetch_add(1, Ordering::Relaxed);
        }
    })));
    // a payload like rdkafka_performance's default: printable, mildly compressible
    let payload: Vec<u8> = (0..size)
        .map(|i| b"0123456789abcdefghijklmnopqrstuvwxyz"[i % 36])
        .collect();
    let start = Instant::now();
    for i in 0..count {
        let rec = ProducerRecord {
            topic,
            value: Some(&payload),
            ..Default::default()
        };
        if p.send(&rec, i).is_err() {
            // queue full: serve reports, then wait for room
            p.poll(Duration::ZERO);
            p.send_blocking(&rec, i, Duration::from_secs(60))?;
        }
    }
    p.flush(Duration::from_secs(300))?;
    let secs = start.elapsed().as_secs_f64();
    println!(
        "gregor: {count} msgs in {secs:.3} s: {:.0} msgs/s, {:.1} MB/s, {} failed, {} log lines",
        count as f64 / secs,
        (count * size) as f64 / secs / 1e6,
        failed.load(Ordering::Relaxed),
        logged.load(Ordering::Relaxed)
    );
    Ok(())
}
