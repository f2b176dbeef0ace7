use std::time::{Duration, Instant};
use gregor::config::Config;
use gregor::consumer::{Consumer, TopicPartitionOffset};
use gregor::message::offset;
fn main() {
    let mut a = std::env::args().skip(1);
    let topic = a.next().unwrap();
    let n: usize = a.next().unwrap().parse().unwrap();
    let mut cfg = Config::new();
    cfg.set("bootstrap.servers", "127.0.0.1:9092").unwrap();
    let c = Consumer::new(&cfg).unwrap();
    let tps: Vec<_> = (0..6).map(|p| TopicPartitionOffset::new(&topic, p, offset::BEGINNING)).collect();
    c.assign(&tps).unwrap();
    let mut got = 0; let mut bytes = 0; let mut t0 = None;
    while got < n {
        if let Some(m) = c.poll(Duration::from_secs(5)).unwrap() {
            if m.error.is_some() { eprintln!("{:?}", m.error); continue; }
            if t0.is_none() { t0 = Some(Instant::now()); }
            got += 1; bytes += m.value.as_ref().map_or(0, |v| v.len());
        } else { break; }
    }
    let el = t0.unwrap().elapsed();
    println!("{got} msgs {bytes} bytes in {:?}: {:.0} msgs/s", el, got as f64 / el.as_secs_f64());
}
