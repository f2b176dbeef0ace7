//! The README's main job: produce a few messages to a local broker through
//! gregor and read them back, printing what happened.
//!
//!     cargo run --example quickstart -- [bootstrap.servers] [topic]

use std::time::Duration;

use gregor::config::Config;
use gregor::consumer::{Consumer, TopicPartitionOffset};
use gregor::message::{offset, ProducerRecord};
use gregor::producer::Producer;

fn main() -> Result<(), gregor::error::Error> {
    let mut args = std::env::args().skip(1);
    let brokers = args.next().unwrap_or_else(|| "127.0.0.1:9092".into());
    let topic = args
        .next()
        .unwrap_or_else(|| format!("gregor-quickstart-{}", std::process::id()));

    let mut cfg = Config::new();
    cfg.set("bootstrap.servers", &brokers)?;
    let producer = Producer::new(&cfg)?;
    let md = producer
        .cluster()
        .fetch_metadata(None, false, Duration::from_secs(10))?;
    println!(
        "cluster {:?}: {} broker(s)",
        md.cluster_id.as_deref().unwrap_or("?"),
        md.brokers.len()
    );
    for b in md.brokers.values() {
        println!("  broker {} at {}", b.id, b.addr());
    }

    let headers: [(&str, Option<&[u8]>); 1] = [("source", Some(b"quickstart"))];
    let mut first = None;
    for i in 0..5 {
        let key = format!("key-{i}");
        let value = format!("hello from gregor #{i}");
        let rec = ProducerRecord {
            topic: &topic,
            partition: Some(0),
            key: Some(key.as_bytes()),
            value: Some(value.as_bytes()),
            headers: &headers,
            timestamp: None,
        };
        let d = producer.send_sync(&rec, Some(Duration::from_secs(30)))?;
        println!(
            "produced {key:>6} -> {} [{}] at offset {}",
            d.topic, d.partition, d.offset
        );
        first.get_or_insert(d.offset);
    }

    let consumer = Consumer::new(&Config::from_pairs([(
        "bootstrap.servers",
        brokers.as_str(),
    )])?)?;
    let start = first.unwrap_or(offset::BEGINNING);
    consumer.assign(&[TopicPartitionOffset::new(&topic, 0, start)])?;
    let mut got = 0;
    while got < 5 {
        let Some(m) = consumer.poll(Duration::from_secs(10))? else {
            return Err(gregor::error::Error::timed_out("no message within 10 s"));
        };
        if let Some(e) = m.error {
            return Err(*e);
        }
        let s = |b: &Option<gregor::message::Bytes>| {
            String::from_utf8_lossy(b.as_deref().unwrap_or(b"")).into_owned()
        };
        println!(
            "consumed offset {} key {:?} value {:?} headers {}",
            m.offset,
            s(&m.key),
            s(&m.value),
            m.headers.len()
        );
        got += 1;
    }
    let (lo, hi) = consumer.watermarks(&topic, 0, Duration::from_secs(10))?;
    println!("{topic} [0] now holds offsets {lo}..{hi}");
    Ok(())
}
