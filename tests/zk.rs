//! ZooKeeper-era clusters, against the real ZooKeeper (`scripts/services.sh
//! start zookeeper`, 127.0.0.1:2181 or `$GREGOR_TEST_ZOOKEEPER`) and the real
//! broker. The broker does not register itself in ZooKeeper, so each test
//! writes what a ZooKeeper-mode Kafka writes — in the exact formats Kafka
//! writes (`kafka.zk.ZkData`) and the 0.7 forms — under its own chroot, pointing
//! at the broker (node id 111).

mod common;

use std::time::{Duration, Instant};

use common::zk::{Chroot, T};
use gregor::cluster::Cluster;
use gregor::config::Config;
use gregor::consumer::{Consumer, TopicPartitionOffset};
use gregor::message::ProducerRecord;
use gregor::producer::Producer;

/// A configuration bootstrapping from `root`, plus `extra`.
fn config(root: &Chroot, extra: &[(&str, &str)]) -> Config {
    let mut c = Config::from_pairs([("zookeeper.connect", root.connect().as_str())]).unwrap();
    for (k, v) in extra {
        c.set(k, v).unwrap();
    }
    c
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
        // Kafka 0.7, "creator:host:port"
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
            // a version 5 registration as Kafka writes it, with the test broker's address
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
    if !common::broker_up() {
        return;
    }
    if !common::zookeeper_up() {
        return;
    }
    let topic = common::unique_topic("zk-boot");
    common::create_topic(&topic, 1);
    for (name, reg) in registrations() {
        let root = Chroot::new(&format!("boot-{name}"));
        root.put("/brokers/ids/111", &reg);
        let cfg = config(&root, &[]);
        let cluster = Cluster::new(&cfg).unwrap();
        assert_eq!(cluster.bootstrap(), vec![common::broker()], "{name}");
        produce_consume(&cfg, &topic, &format!("through ZooKeeper, {name}"));
    }
}

#[test]
fn no_endpoint_for_the_protocol_names_the_znode() {
    if !common::broker_up() {
        return;
    }
    if !common::zookeeper_up() {
        return;
    }
    let root = Chroot::new("noplain");
    let (h, _) = broker_host_port();
    root.put(
        "/brokers/ids/111",
        &format!(
            r#"{{"listener_security_protocol_map":{{"INTERNAL":"SSL"}},"endpoints":["INTERNAL://{h}:9093"],"host":null,"port":-1,"version":4,"jmx_port":-1,"timestamp":"1"}}"#
        ),
    );
    let e = Cluster::new(&config(&root, &[])).err().unwrap().to_string();
    assert!(
        e.contains("/brokers/ids/111") && e.contains("endpoints") && e.contains("PLAINTEXT"),
        "{e}"
    );
    root.put(
        "/brokers/ids/111",
        r#"{"version":1,"host":"h","port":"nine"}"#,
    );
    let e = Cluster::new(&config(&root, &[])).err().unwrap().to_string();
    assert!(
        e.contains("/brokers/ids/111") && e.contains("\"port\""),
        "{e}"
    );
    root.delete("/brokers/ids/111");
    let e = Cluster::new(&config(&root, &[])).err().unwrap();
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
    if !common::broker_up() {
        return;
    }
    if !common::zookeeper_up() {
        return;
    }
    let root = Chroot::new("watch");
    let (h, p) = broker_host_port();
    // Registered first at a port nothing listens on: produce cannot work...
    root.put(
        "/brokers/ids/111",
        &format!(r#"{{"version":1,"host":"{h}","port":1,"jmx_port":-1}}"#),
    );
    let cfg = config(&root, &[("socket.connection.setup.timeout.ms", "1000")]);
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

fn zk_cli(args: &[&str]) -> (i32, String, String) {
    let args: Vec<&str> = ["zk"].iter().chain(args).copied().collect();
    let (rc, out, err) = common::run_gregor(&args);
    (
        rc,
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    )
}

/// A ZooKeeper-mode cluster's znodes, byte for byte as Kafka writes them.
fn write_zk_mode_cluster(root: &Chroot) {
    root.put("/brokers/ids/111", &registrations()[5].1);
    root.put(
        "/brokers/topics/saint-test-topic",
        r#"{"version":2,"partitions":{"0":[111],"1":[111,2]},"adding_replicas":{"1":[2]},"removing_replicas":{},"topic_id":"q6S1qXK3TkeTEdGa1b_nTw"}"#,
    );
    root.put(
        "/brokers/topics/saint-test-topic/partitions/0/state",
        "{\n\t\"controller_epoch\": 2,\n\t\"leader\": 0,\n\t\"version\": 1,\n\t\"leader_epoch\": 0,\n\t\"isr\": [0]\n}",
    );
    root.put(
        "/controller",
        "{\n\t\"version\": 1,\n\t\"brokerid\": 0,\n\t\"timestamp\": \"1649662012132\"\n}",
    );
    root.put("/controller_epoch", "2");
    root.put(
        "/cluster/id",
        r#"{"version":"1","id":"wEkwPEpFSxaQSTN6TRwMkg"}"#,
    );
    root.put("/admin/delete_topics/old-topic", "");
    root.put(
        "/admin/reassign_partitions",
        r#"{"version":1,"partitions":[{"topic":"bl_mall_wish","partition":1,"replicas":[0,1,3]}]}"#,
    );
    root.put(
        "/admin/preferred_replica_election",
        r#"{"version":1,"partitions":[{"topic":"bl_mall_orders","partition":1},{"topic":"bl_mall_products","partition":0}]}"#,
    );
    root.put(
        "/isr_change_notification/isr_change_0000000000",
        r#"{"version":1,"partitions":[{"topic":"saint-test-topic","partition":0}]}"#,
    );
    root.put(
        "/config/topics/saint-test-topic",
        r#"{"version":1,"config":{"retention.ms":"86400000"}}"#,
    );
    root.put(
        "/config/changes/config_change_0000000000",
        r#"{"version":2,"entity_path":"topics/saint-test-topic"}"#,
    );
    root.put(
        "/consumers/consumer-group-01/ids/1-d110015a-0317-466c-a510-c5d245d05209",
        "{\n  \"version\": 1,\n  \"subscription\": {\n    \"saint-test-topic\": 1\n  },\n  \"pattern\": \"white_list\",\n  \"timestamp\": \"1558617131642\"\n}",
    );
    root.put(
        "/consumers/consumer-group-01/owners/saint-test-topic/0",
        "1-d110015a-0317-466c-a510-c5d245d05209-0",
    );
    root.put(
        "/consumers/consumer-group-01/offsets/saint-test-topic/0",
        "42",
    );
}

#[test]
fn inspection_of_a_zk_mode_clusters_znodes() {
    if !common::broker_up() {
        return;
    }
    if !common::zookeeper_up() {
        return;
    }
    let root = Chroot::new("inspect");
    write_zk_mode_cluster(&root);
    let zk = gregor::registry::ZkClient::connect(&root.connect(), T).unwrap();
    let a = zk.topic("saint-test-topic").unwrap().unwrap();
    assert_eq!(a.partitions[&1], vec![111, 2]);
    assert_eq!(a.adding_replicas[&1], vec![2]);
    assert_eq!(a.topic_id.as_deref(), Some("q6S1qXK3TkeTEdGa1b_nTw"));
    let s = zk.partition_state("saint-test-topic", 0).unwrap().unwrap();
    assert_eq!(
        (s.leader, s.leader_epoch, s.controller_epoch, s.isr),
        (0, 0, 2, vec![0])
    );
    let c = zk.controller().unwrap().unwrap();
    assert_eq!((c.broker_id, c.timestamp), (0, Some(1_649_662_012_132)));
    assert_eq!(zk.controller_epoch().unwrap(), Some(2));
    assert_eq!(
        zk.cluster_id().unwrap().as_deref(),
        Some("wEkwPEpFSxaQSTN6TRwMkg")
    );
    assert_eq!(zk.reassign_partitions().unwrap()[0].replicas, vec![0, 1, 3]);
    assert_eq!(zk.preferred_replica_election().unwrap().len(), 2);
    let m = &zk.members("consumer-group-01").unwrap()[0];
    assert_eq!(
        (m.subscription["saint-test-topic"], m.pattern.as_str()),
        (1, "white_list")
    );
    assert_eq!(m.timestamp, Some(1_558_617_131_642));

    let (rc, out, err) = zk_cli(&["-z", &root.connect(), "topic", "saint-test-topic"]);
    assert_eq!(rc, 0, "{err}");
    assert!(
        out.contains("partition 0 replicas 111 leader 0 leader_epoch 0 controller_epoch 2 isr 0"),
        "{out}"
    );
    assert!(
        out.contains("partition 1 replicas 111,2 no state adding 2"),
        "{out}"
    );
    assert!(out.contains("config retention.ms=86400000"), "{out}");
    let (rc, out, _) = zk_cli(&["-z", &root.connect(), "admin"]);
    assert_eq!(rc, 0);
    for line in [
        "delete_topic old-topic",
        "reassign bl_mall_wish [1] to 0,1,3",
        "preferred_replica_election bl_mall_products [0]",
        "isr_change isr_change_0000000000 saint-test-topic [0]",
        "config_change config_change_0000000000 topics/saint-test-topic",
    ] {
        assert!(out.contains(line), "{line} missing from {out}");
    }
    let (rc, out, _) = zk_cli(&["-z", &root.connect(), "controller"]);
    assert_eq!(rc, 0);
    assert!(
        out.contains("controller 0 version 1 timestamp 1649662012132")
            && out.contains("controller_epoch 2")
            && out.contains("cluster_id wEkwPEpFSxaQSTN6TRwMkg"),
        "{out}"
    );
    let (rc, out, _) = zk_cli(&["-z", &root.connect(), "group", "consumer-group-01"]);
    assert_eq!(rc, 0);
    assert!(
        out.contains("owner saint-test-topic [0] 1-d110015a-0317-466c-a510-c5d245d05209-0"),
        "{out}"
    );
    assert!(out.contains("offset saint-test-topic [0] 42"), "{out}");
    let (rc, out, _) = zk_cli(&["-z", &root.connect(), "brokers"]);
    assert_eq!(rc, 0);
    assert!(
        out.contains("broker 111 version 5 endpoints PLAINTEXT(PLAINTEXT)://"),
        "{out}"
    );
    assert_eq!(zk_cli(&["-z", &root.connect(), "nonsense"]).0, 2);
}

#[test]
fn malformed_znodes_name_path_and_field() {
    if !common::zookeeper_up() {
        return;
    }
    let root = Chroot::new("malformed");
    let zk = gregor::registry::ZkClient::connect(&root.connect(), T).unwrap();
    root.put(
        "/brokers/topics/t",
        r#"{"version":1,"partitions":{"0":[1,"x"]}}"#,
    );
    root.put(
        "/brokers/topics/t/partitions/0/state",
        r#"{"version":1,"leader":"one","leader_epoch":0,"controller_epoch":1,"isr":[1]}"#,
    );
    root.put("/controller", r#"{"version":1,"timestamp":"1"}"#);
    root.put(
        "/admin/reassign_partitions",
        r#"{"version":1,"partitions":[{"topic":"t","partition":0}]}"#,
    );
    root.put(
        "/consumers/g/ids/c1",
        r#"{"version":1,"subscription":{"t":"many"},"pattern":"static"}"#,
    );
    root.put("/consumers/g/offsets/t/0", "forty");
    let cases: Vec<(String, &str, &str)> = vec![
        (
            zk.topic("t").unwrap_err().to_string(),
            "/brokers/topics/t",
            "partitions.0",
        ),
        (
            zk.partition_state("t", 0).unwrap_err().to_string(),
            "/brokers/topics/t/partitions/0/state",
            "\"leader\"",
        ),
        (
            zk.controller().unwrap_err().to_string(),
            "/controller",
            "brokerid",
        ),
        (
            zk.reassign_partitions().unwrap_err().to_string(),
            "/admin/reassign_partitions",
            "partitions[0].replicas",
        ),
        (
            zk.members("g").unwrap_err().to_string(),
            "/consumers/g/ids/c1",
            "subscription.t",
        ),
        (
            zk.offsets("g", None).unwrap_err().to_string(),
            "/consumers/g/offsets/t/0",
            "forty",
        ),
    ];
    for (e, path, field) in cases {
        assert!(
            e.contains(path) && e.contains(field),
            "{e} should name {path} and {field}"
        );
    }
    let (rc, _, err) = zk_cli(&["-z", &root.connect(), "controller"]);
    assert_eq!(rc, 1);
    assert!(
        err.contains("/controller") && err.contains("brokerid"),
        "{err}"
    );
}

#[test]
fn offsets_migrate_zookeeper_to_kafka_and_back() {
    if !common::broker_up() {
        return;
    }
    if !common::zookeeper_up() {
        return;
    }
    let root = Chroot::new("migrate");
    root.put("/brokers/ids/111", &registrations()[1].1);
    let topic = common::unique_topic("zk-migrate");
    common::create_topic(&topic, 3);
    let group = common::unique_topic("zk-migrate-group");
    let zk = gregor::registry::ZkClient::connect(&root.connect(), T).unwrap();
    for (p, o) in [(0, 5), (1, 17), (2, 0)] {
        zk.set_offset(&group, &topic, p, o).unwrap();
    }
    let before = zk.offsets(&group, None).unwrap();
    assert_eq!(before.len(), 3);
    let c = root.connect();
    // dry run: says what it would do, Kafka stays empty
    let (rc, out, err) = zk_cli(&["-z", &c, "migrate", &group, "--to-kafka", "--dry-run"]);
    assert_eq!(rc, 0, "{err}");
    assert!(
        out.contains(&format!(
            "would copy {group} {topic} [1] offset 17 from ZooKeeper to Kafka"
        )),
        "{out}"
    );
    // what Kafka holds: a dry run from Kafka to ZooKeeper writes nothing
    let zkc = gregor::registry::ZkClient::connect(&root.connect(), T).unwrap();
    let in_kafka = || {
        gregor::zk::groups::migrate(
            &zkc,
            &config(&root, &[]),
            &group,
            None,
            gregor::zk::groups::Direction::KafkaToZk,
            true,
            T,
        )
        .unwrap()
    };
    assert!(in_kafka().is_empty());
    let (rc, out, err) = zk_cli(&["-z", &c, "migrate", &group, "--to-kafka"]);
    assert_eq!(rc, 0, "{err}");
    assert_eq!(out.lines().count(), 3, "{out}");
    assert_eq!(in_kafka(), before);
    // wipe ZooKeeper's copy, then bring the offsets back from Kafka
    {
        use zookeeper::ZooKeeperExt;
        root.zk
            .delete_recursive(&format!("/consumers/{group}"))
            .unwrap();
    }
    assert!(zk.offsets(&group, None).unwrap().is_empty());
    let (rc, _, _) = zk_cli(&["-z", &c, "migrate", &group, "--to-zk", "--dry-run"]);
    assert_eq!(rc, 0);
    assert!(zk.offsets(&group, None).unwrap().is_empty());
    let (rc, out, err) = zk_cli(&["-z", &c, "migrate", &group, "--to-zk"]);
    assert_eq!(rc, 0, "{err}");
    assert!(out.contains("from Kafka to ZooKeeper"), "{out}");
    assert_eq!(zk.offsets(&group, None).unwrap(), before);
    let (rc, out, _) = zk_cli(&["-z", &c, "offset-get", &group, &topic]);
    assert_eq!(rc, 0);
    assert!(out.contains(&format!("{topic} [1] 17")), "{out}");
}

#[test]
fn c_api_reads_and_writes_znodes() {
    if !common::broker_up() {
        return;
    }
    if !common::zookeeper_up() {
        return;
    }
    use gregor::ffi::*;
    use std::ffi::CString;
    let root = Chroot::new("ffi");
    write_zk_mode_cluster(&root);
    let c = CString::new(root.connect()).unwrap();
    let mut err = [0 as std::ffi::c_char; 256];
    let zk = gregor_zk_new(c.as_ptr(), 6000, err.as_mut_ptr(), err.len());
    assert!(!zk.is_null());
    let (g, t) = (
        CString::new("consumer-group-01").unwrap(),
        CString::new("saint-test-topic").unwrap(),
    );
    let mut off = -1i64;
    assert_eq!(
        gregor_zk_offset_get(
            zk,
            g.as_ptr(),
            t.as_ptr(),
            0,
            &mut off,
            err.as_mut_ptr(),
            err.len()
        ),
        0
    );
    assert_eq!(off, 42);
    assert_eq!(
        gregor_zk_offset_set(
            zk,
            g.as_ptr(),
            t.as_ptr(),
            0,
            43,
            err.as_mut_ptr(),
            err.len()
        ),
        0
    );
    assert_eq!(
        gregor_zk_offset_get(
            zk,
            g.as_ptr(),
            t.as_ptr(),
            0,
            &mut off,
            err.as_mut_ptr(),
            err.len()
        ),
        0
    );
    assert_eq!(off, 43);
    assert_eq!(
        gregor_zk_offset_get(
            zk,
            g.as_ptr(),
            t.as_ptr(),
            9,
            &mut off,
            err.as_mut_ptr(),
            err.len()
        ),
        gregor::error::local::NO_OFFSET
    );
    let (mut l, mut le, mut ce) = (-9, -9, -9);
    assert_eq!(
        gregor_zk_partition_state(
            zk,
            t.as_ptr(),
            0,
            &mut l,
            &mut le,
            &mut ce,
            err.as_mut_ptr(),
            err.len()
        ),
        0
    );
    assert_eq!((l, le, ce), (0, 0, 2));
    // The typed reads (c-tests/test_zk_inspect.c covers the rest): the
    // reassignment in progress and the missing state of partition 1.
    let mut d = std::ptr::null_mut();
    assert_eq!(
        gregor_zk_describe_topic(zk, t.as_ptr(), &mut d, err.as_mut_ptr(), err.len()),
        0
    );
    assert_eq!(gregor_zk_topic_partition_count(d), 2);
    let mut ids = [0i32; 4];
    assert_eq!(
        gregor_zk_topic_partition_adding(d, 1, ids.as_mut_ptr(), 4),
        1
    );
    assert_eq!(ids[0], 2);
    assert_eq!(gregor_zk_topic_partition_has_state(d, 1), 0);
    assert_eq!(gregor_zk_topic_partition_leader(d, 1), -1);
    gregor_zk_topic_free(d);
    gregor_zk_free(zk);
    gregor_zk_free(std::ptr::null_mut());
}
