//! ZooKeeper-era clusters, against the real ZooKeeper (`scripts/services.sh
//! start zookeeper`, 127.0.0.1:2181 or `$GREGOR_TEST_ZOOKEEPER`) and the real
//! broker. The broker does not register itself in ZooKeeper, so each test
//! writes what a ZooKeeper-mode Kafka writes — in the exact formats of seed
//! 003's examples and seed 000's 0.7 forms — under its own chroot, pointing
//! at the broker (node id 111).

mod common;

use std::time::{Duration, Instant};

use gregor::cluster::Cluster;
use gregor::config::Config;
use gregor::consumer::{Consumer, TopicPartitionOffset};
use gregor::message::ProducerRecord;
use gregor::producer::Producer;
use zookeeper::{Acl, CreateMode, ZooKeeper};

const T: Duration = Duration::from_secs(10);

fn zk_addr() -> String {
    std::env::var("GREGOR_TEST_ZOOKEEPER").unwrap_or_else(|_| "127.0.0.1:2181".to_string())
}

/// A fresh chroot in the test ZooKeeper, with a session on it for writing
/// fixtures; removed when dropped.
struct Chroot {
    root: String,
    zk: ZooKeeper,
}

impl Chroot {
    fn new(name: &str) -> Chroot {
        let root = format!("/{}", common::unique_topic(&format!("gregor-{name}")));
        let top = ZooKeeper::connect(&zk_addr(), T, |_| {}).expect("ZooKeeper is not running");
        top.create(
            &root,
            vec![],
            Acl::open_unsafe().clone(),
            CreateMode::Persistent,
        )
        .unwrap();
        top.close().unwrap();
        let zk = ZooKeeper::connect(&format!("{}{root}", zk_addr()), T, |_| {}).unwrap();
        Chroot { root, zk }
    }

    /// `zookeeper.connect` for this chroot.
    fn connect(&self) -> String {
        format!("{}{}", zk_addr(), self.root)
    }

    /// Writes `path` (creating parents), persistent.
    fn put(&self, path: &str, data: &str) {
        gregor::zk::session::upsert(&self.zk, T, path, data.as_bytes()).unwrap();
    }

    fn delete(&self, path: &str) {
        self.zk.delete(path, None).unwrap();
    }

    fn config(&self, extra: &[(&str, &str)]) -> Config {
        let mut c = Config::from_pairs([("zookeeper.connect", self.connect().as_str())]).unwrap();
        for (k, v) in extra {
            c.set(k, v).unwrap();
        }
        c
    }
}

impl Drop for Chroot {
    fn drop(&mut self) {
        use zookeeper::ZooKeeperExt;
        let _ = self.zk.close();
        if let Ok(top) = ZooKeeper::connect(&zk_addr(), T, |_| {}) {
            let _ = top.delete_recursive(&self.root);
            let _ = top.close();
        }
    }
}

fn broker_host_port() -> (String, u16) {
    let b = common::broker();
    let (h, p) = b.rsplit_once(':').unwrap();
    (h.to_string(), p.parse().unwrap())
}

/// Broker 111's registration in each format Kafka wrote, pointing at the
/// test broker (the other listeners point nowhere useful).
fn registrations() -> Vec<(&'static str, String)> {
    let (h, p) = broker_host_port();
    vec![
        // seed 000: Kafka 0.7, "creator:host:port"
        ("0.7", format!("{h}-1330000000000:{h}:{p}")),
        (
            "v1",
            format!(r#"{{"jmx_port":-1,"timestamp":"1400000000000","host":"{h}","version":1,"port":{p}}}"#),
        ),
        (
            "v2",
            format!(
                r#"{{"jmx_port":-1,"timestamp":"1450000000000","endpoints":["SSL://{h}:1","PLAINTEXT://{h}:{p}"],"host":"{h}","version":2,"port":{p}}}"#
            ),
        ),
        (
            "v3",
            format!(
                r#"{{"jmx_port":9999,"timestamp":"1480000000000","endpoints":["PLAINTEXT://{h}:{p}"],"rack":"rack-a","host":"{h}","version":3,"port":{p}}}"#
            ),
        ),
        (
            // listener names: only EXTERNAL is PLAINTEXT; host/port null/-1
            "v4",
            format!(
                r#"{{"listener_security_protocol_map":{{"INTERNAL":"SSL","EXTERNAL":"PLAINTEXT"}},"endpoints":["INTERNAL://{h}:1","EXTERNAL://{h}:{p}"],"rack":null,"jmx_port":-1,"host":null,"timestamp":"1500000000000","port":-1,"version":4}}"#
            ),
        ),
        (
            // seed 003's example, as printed there, with the test broker's address
            "v5",
            format!(
                "{{\n\t\"listener_security_protocol_map\": {{\n\t\t\"PLAINTEXT\": \"PLAINTEXT\"\n\t}},\n\t\"endpoints\": [\"PLAINTEXT://{h}:{p}\"],\n\t\"jmx_port\": -1,\n\t\"features\": {{}},\n\t\"host\": \"{h}\",\n\t\"timestamp\": \"1649662012051\",\n\t\"port\": {p},\n\t\"version\": 5\n}}"
            ),
        ),
    ]
}

fn produce_consume(cfg: &Config, topic: &str, payload: &str) {
    let producer = Producer::new(cfg).unwrap();
    let d = producer
        .send_sync(&ProducerRecord::new(topic, payload.as_bytes()), Some(T))
        .unwrap();
    let consumer = Consumer::new(cfg).unwrap();
    consumer
        .assign(&[TopicPartitionOffset::new(topic, d.partition, d.offset)])
        .unwrap();
    let deadline = Instant::now() + T;
    loop {
        assert!(Instant::now() < deadline, "{payload}: nothing consumed");
        if let Some(m) = consumer.poll(Duration::from_millis(500)).unwrap() {
            assert!(m.error.is_none(), "{:?}", m.error);
            assert_eq!(m.offset, d.offset);
            assert_eq!(m.value.as_deref(), Some(payload.as_bytes()));
            break;
        }
    }
}

#[test]
fn bootstrap_from_every_registration_format() {
    let topic = common::unique_topic("zk-boot");
    common::create_topic(&topic, 1);
    for (name, reg) in registrations() {
        let root = Chroot::new(&format!("boot-{name}"));
        root.put("/brokers/ids/111", &reg);
        let cfg = root.config(&[]);
        let cluster = Cluster::new(&cfg).unwrap();
        assert_eq!(cluster.bootstrap(), vec![common::broker()], "{name}");
        produce_consume(&cfg, &topic, &format!("through ZooKeeper, {name}"));
    }
}

#[test]
fn no_endpoint_for_the_protocol_names_the_znode() {
    let root = Chroot::new("noplain");
    let (h, _) = broker_host_port();
    root.put(
        "/brokers/ids/111",
        &format!(
            r#"{{"listener_security_protocol_map":{{"INTERNAL":"SSL"}},"endpoints":["INTERNAL://{h}:9093"],"host":null,"port":-1,"version":4,"jmx_port":-1,"timestamp":"1"}}"#
        ),
    );
    let e = Cluster::new(&root.config(&[])).err().unwrap().to_string();
    assert!(
        e.contains("/brokers/ids/111") && e.contains("endpoints") && e.contains("PLAINTEXT"),
        "{e}"
    );
    root.put(
        "/brokers/ids/111",
        r#"{"version":1,"host":"h","port":"nine"}"#,
    );
    let e = Cluster::new(&root.config(&[])).err().unwrap().to_string();
    assert!(
        e.contains("/brokers/ids/111") && e.contains("\"port\""),
        "{e}"
    );
    root.delete("/brokers/ids/111");
    let e = Cluster::new(&root.config(&[])).err().unwrap();
    assert_eq!(e.code(), gregor::error::local::ALL_BROKERS_DOWN, "{e}");
}

fn wait_for(what: &str, mut ok: impl FnMut() -> bool) {
    let deadline = Instant::now() + T;
    while !ok() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn broker_changes_reach_the_cluster_view() {
    let root = Chroot::new("watch");
    let (h, p) = broker_host_port();
    // Registered first at a port nothing listens on: produce cannot work...
    root.put(
        "/brokers/ids/111",
        &format!(r#"{{"version":1,"host":"{h}","port":1,"jmx_port":-1}}"#),
    );
    let cfg = root.config(&[("socket.connection.setup.timeout.ms", "1000")]);
    let cluster = Cluster::new(&cfg).unwrap();
    assert_eq!(cluster.bootstrap(), vec![format!("{h}:1")]);
    // ...a second broker registers, the first moves to the real port.
    root.put(
        "/brokers/ids/112",
        &format!(r#"{{"version":1,"host":"{h}","port":2,"jmx_port":-1}}"#),
    );
    wait_for("broker 112", || cluster.bootstrap().len() == 2);
    root.put("/brokers/ids/111", &registrations()[5].1);
    wait_for("broker 111 moved", || {
        cluster.bootstrap().contains(&format!("{h}:{p}"))
    });
    assert_eq!(cluster.snapshot().brokers[&111].port, i32::from(p));
    root.delete("/brokers/ids/112");
    wait_for("broker 112 gone", || {
        cluster.bootstrap() == vec![format!("{h}:{p}")]
    });
    let topic = common::unique_topic("zk-watch");
    common::create_topic(&topic, 1);
    let md = cluster
        .fetch_metadata(Some(&[topic.as_str()]), false, T)
        .unwrap();
    assert_eq!(md.topics[&topic].partitions.len(), 1);
}
