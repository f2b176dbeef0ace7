//! The admin client against the real broker (nisshi, see docs/TEST-SERVICES.md):
//! every operation the broker implements, asserting on what the broker
//! reports afterwards; for what it lacks, the typed error a user gets. The
//! success paths of what it lacks are in tests/admin_bytes.rs.

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use common::{config, unique_topic};
use gregor::admin::*;
use gregor::error::local;
use gregor::message::ProducerRecord;
use gregor::producer::Producer;
use gregor::protocol::KafkaCode;
use gregor::wire::Uuid;

/// The broker's node id (nisshi is single-node, id 111; read from the cluster).
fn admin() -> AdminClient {
    AdminClient::new(&config(&[])).unwrap()
}

fn opts() -> AdminOptions {
    AdminOptions::with_timeout(Duration::from_secs(20))
}

fn code(e: &gregor::error::Error) -> &'static str {
    match e.kafka_code() {
        Some(c) => c.name(),
        None => "LOCAL",
    }
}

fn node_id(a: &AdminClient) -> i32 {
    a.describe_cluster(false, &opts()).unwrap().controller_id
}

fn describe_one(a: &AdminClient, t: &str) -> gregor::error::Result<TopicDescription> {
    a.describe_topics(&[t], false, &opts())
        .unwrap()
        .remove(0)
        .result
}

fn topic_configs(a: &AdminClient, t: &str) -> BTreeMap<String, (Option<String>, ConfigSource)> {
    a.describe_configs(&[ConfigResource::topic(t)], None, false, false, &opts())
        .unwrap()
        .remove(0)
        .result
        .unwrap()
        .into_iter()
        .map(|e| (e.name, (e.value, e.source)))
        .collect()
}

#[test]
fn create_many_topics_in_one_request_with_a_result_per_topic() {
    if !common::broker_up() {
        return;
    }
    let a = admin();
    let node = node_id(&a);
    let (t1, t2, t3) = (
        unique_topic("adm-c1"),
        unique_topic("adm-c2"),
        unique_topic("adm-c3"),
    );
    let topics = [
        NewTopic::new(&t1, 3, 1)
            .config("retention.ms", "123456")
            .config("cleanup.policy", "compact"),
        NewTopic::with_assignment(&t2, [(0, vec![node]), (1, vec![node])]),
        // KIP-4: the same topic twice, only the last instruction counts
        NewTopic::new(&t3, 1, 1),
        NewTopic::new(&t3, 4, 1),
    ];
    let res = a.create_topics(&topics, &opts()).unwrap();
    assert_eq!(res.len(), 3, "{res:?}");
    assert_eq!(
        res.iter()
            .map(|r| r.name.clone().unwrap())
            .collect::<Vec<_>>(),
        vec![t1.clone(), t2.clone(), t3.clone()]
    );
    for r in &res {
        let created = r.result.as_ref().unwrap();
        assert!(!created.topic_id.is_zero(), "{r:?}");
    }
    assert_eq!(res[0].result.as_ref().unwrap().num_partitions, 3);
    assert_eq!(res[2].result.as_ref().unwrap().num_partitions, 4);

    // what the broker reports afterwards
    let d = a.describe_topics(&[&t1, &t2, &t3], false, &opts()).unwrap();
    let counts: Vec<usize> = d
        .iter()
        .map(|r| r.result.as_ref().unwrap().partitions.len())
        .collect();
    assert_eq!(counts, vec![3, 2, 4]);
    for (r, c) in d.iter().zip(&res) {
        assert_eq!(
            r.topic_id, c.topic_id,
            "metadata's topic ID is the created one"
        );
    }
    for p in &d[1].result.as_ref().unwrap().partitions {
        assert_eq!(p.replicas, vec![node]);
        assert_eq!(p.leader, node);
    }
    let cfg = topic_configs(&a, &t1);
    assert_eq!(cfg["retention.ms"].0.as_deref(), Some("123456"));
    assert_eq!(cfg["retention.ms"].1, ConfigSource::DYNAMIC_TOPIC_CONFIG);
    assert_eq!(cfg["cleanup.policy"].0.as_deref(), Some("compact"));

    a.delete_topics(&[&t1, &t2, &t3], &opts()).unwrap();
}

#[test]
fn per_topic_errors_are_named_as_the_protocol_names_them() {
    if !common::broker_up() {
        return;
    }
    let a = admin();
    let t = unique_topic("adm-dup");
    a.create_topics(&[NewTopic::new(&t, 1, 1)], &opts())
        .unwrap()
        .remove(0)
        .result
        .unwrap();
    let ok = unique_topic("adm-ok");
    let res = a
        .create_topics(
            &[
                NewTopic::new(&t, 1, 1),
                NewTopic::new("bad name!", 1, 1),
                NewTopic::new(&ok, 1, 1),
            ],
            &opts(),
        )
        .unwrap();
    let e = res[0].result.as_ref().unwrap_err();
    assert_eq!(code(e), "TOPIC_ALREADY_EXISTS");
    assert_eq!(e.code(), 36);
    assert!(e.to_string().contains(&t), "{e}");
    assert_eq!(
        code(res[1].result.as_ref().unwrap_err()),
        "INVALID_TOPIC_EXCEPTION"
    );
    assert!(
        res[2].result.is_ok(),
        "one topic's failure spares the others"
    );
    assert!(describe_one(&a, &ok).is_ok());

    // client-side checks lose nothing: nothing is sent
    let e = a
        .create_topics(&[NewTopic::new(unique_topic("adm-zero"), 0, 1)], &opts())
        .unwrap_err();
    assert_eq!(e.code(), local::INVALID_ARG);
    a.delete_topics(&[&t, &ok], &opts()).unwrap();
}

#[test]
fn validate_only_creates_nothing() {
    if !common::broker_up() {
        return;
    }
    let a = admin();
    let t = unique_topic("adm-vo");
    let o = AdminOptions {
        validate_only: true,
        ..opts()
    };
    let r = a.create_topics(&[NewTopic::new(&t, 2, 1)], &o).unwrap();
    assert!(r[0].result.is_ok(), "{r:?}");
    let e = describe_one(&a, &t).unwrap_err();
    assert_eq!(e.kafka_code(), Some(KafkaCode::UNKNOWN_TOPIC_OR_PARTITION));
}

#[test]
fn broker_defaults_for_partitions_and_replication() {
    if !common::broker_up() {
        return;
    }
    let a = admin();
    let t = unique_topic("adm-def");
    let r = a
        .create_topics(&[NewTopic::new(&t, -1, -1)], &opts())
        .unwrap();
    let created = r[0].result.as_ref().unwrap();
    let d = describe_one(&a, &t).unwrap();
    assert!(!d.partitions.is_empty());
    assert_eq!(d.partitions.len() as i32, created.num_partitions);
    a.delete_topics(&[&t], &opts()).unwrap();
}

#[test]
fn delete_by_name_and_by_topic_id() {
    if !common::broker_up() {
        return;
    }
    let a = admin();
    let (t1, t2) = (unique_topic("adm-del1"), unique_topic("adm-del2"));
    let created = a
        .create_topics(
            &[NewTopic::new(&t1, 1, 1), NewTopic::new(&t2, 2, 1)],
            &opts(),
        )
        .unwrap();
    let id2 = created[1].topic_id;
    assert!(describe_one(&a, &t1).is_ok());

    let r = a
        .delete_topics(&[&t1, "adm-no-such-topic"], &opts())
        .unwrap();
    assert!(r[0].result.is_ok(), "{r:?}");
    assert_eq!(
        code(r[1].result.as_ref().unwrap_err()),
        "UNKNOWN_TOPIC_OR_PARTITION"
    );
    assert_eq!(
        describe_one(&a, &t1).unwrap_err().kafka_code(),
        Some(KafkaCode::UNKNOWN_TOPIC_OR_PARTITION)
    );

    let unknown = Uuid::from_u64_pair(7, 7);
    let r = a.delete_topics_by_id(&[id2, unknown], &opts()).unwrap();
    assert_eq!(r[0].topic_id, id2);
    assert!(r[0].result.is_ok(), "{r:?}");
    assert!(r[1].result.is_err());
    assert_eq!(
        describe_one(&a, &t2).unwrap_err().kafka_code(),
        Some(KafkaCode::UNKNOWN_TOPIC_OR_PARTITION)
    );
}

#[test]
fn describe_topics_by_name_and_id() {
    if !common::broker_up() {
        return;
    }
    let a = admin();
    let node = node_id(&a);
    let t = unique_topic("adm-desc");
    let id = a
        .create_topics(&[NewTopic::new(&t, 3, 1)], &opts())
        .unwrap()[0]
        .topic_id;
    let d = a
        .describe_topics(&[&t, "adm-desc-missing"], false, &opts())
        .unwrap();
    let desc = d[0].result.as_ref().unwrap();
    assert_eq!(desc.topic_id, id);
    assert!(!desc.is_internal);
    assert_eq!(
        desc.partitions
            .iter()
            .map(|p| p.partition)
            .collect::<Vec<_>>(),
        vec![0, 1, 2]
    );
    assert!(desc
        .partitions
        .iter()
        .all(|p| p.leader == node && p.isr == vec![node]));
    assert_eq!(desc.authorized_operations, None, "not asked");
    assert_eq!(
        code(d[1].result.as_ref().unwrap_err()),
        "UNKNOWN_TOPIC_OR_PARTITION"
    );

    let by_id = a
        .describe_topics_by_id(&[id, Uuid::from_u64_pair(3, 4)], false, &opts())
        .unwrap();
    assert_eq!(by_id[0].name.as_deref(), Some(t.as_str()));
    assert_eq!(by_id[0].result.as_ref().unwrap().partitions.len(), 3);
    assert!(by_id[1].result.is_err());

    // authorized operations are asked (Metadata v8+); this broker has no
    // authorizer and reports none, which reads as "not known"
    let d = a.describe_topics(&[&t], true, &opts()).unwrap();
    assert!(d[0].result.is_ok());
    a.delete_topics(&[&t], &opts()).unwrap();
}

#[test]
fn describe_and_incrementally_alter_topic_configs() {
    if !common::broker_up() {
        return;
    }
    let a = admin();
    let t = unique_topic("adm-cfg");
    a.create_topics(
        &[NewTopic::new(&t, 1, 1).config("cleanup.policy", "delete")],
        &opts(),
    )
    .unwrap();
    let res = ConfigResource::topic(&t);
    let r = a
        .incremental_alter_configs(
            &[(
                res.clone(),
                vec![
                    AlterConfigOp::set("retention.ms", "3600000"),
                    AlterConfigOp::new(
                        "cleanup.policy",
                        AlterConfigOpType::APPEND,
                        Some("compact".into()),
                    ),
                    AlterConfigOp::set("max.message.bytes", "2000000"),
                ],
            )],
            &opts(),
        )
        .unwrap();
    assert!(r[0].result.is_ok(), "{r:?}");
    let cfg = topic_configs(&a, &t);
    assert_eq!(cfg["retention.ms"].0.as_deref(), Some("3600000"));
    assert_eq!(cfg["cleanup.policy"].0.as_deref(), Some("delete,compact"));

    let r = a
        .incremental_alter_configs(
            &[(
                res.clone(),
                vec![
                    AlterConfigOp::new(
                        "cleanup.policy",
                        AlterConfigOpType::SUBTRACT,
                        Some("delete".into()),
                    ),
                    AlterConfigOp::delete("max.message.bytes"),
                ],
            )],
            &opts(),
        )
        .unwrap();
    assert!(r[0].result.is_ok(), "{r:?}");
    let cfg = topic_configs(&a, &t);
    assert_eq!(cfg["cleanup.policy"].0.as_deref(), Some("compact"));
    assert!(
        cfg.get("max.message.bytes")
            .is_none_or(|(_, s)| *s != ConfigSource::DYNAMIC_TOPIC_CONFIG),
        "DELETE reverted it: {cfg:?}"
    );

    // validate-only changes nothing
    let vo = AdminOptions {
        validate_only: true,
        ..opts()
    };
    a.incremental_alter_configs(
        &[(res.clone(), vec![AlterConfigOp::set("retention.ms", "1")])],
        &vo,
    )
    .unwrap();
    assert_eq!(
        topic_configs(&a, &t)["retention.ms"].0.as_deref(),
        Some("3600000")
    );

    // only the keys asked for, with synonyms and documentation asked
    let only = a
        .describe_configs(
            std::slice::from_ref(&res),
            Some(&["retention.ms"]),
            true,
            true,
            &opts(),
        )
        .unwrap();
    let entries = only[0].result.as_ref().unwrap();
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(entries[0].name, "retention.ms");
    assert!(!entries[0].is_default && !entries[0].is_sensitive);

    // an unknown topic is a per-resource error
    let r = a
        .incremental_alter_configs(
            &[
                (
                    ConfigResource::topic("adm-cfg-missing"),
                    vec![AlterConfigOp::set("retention.ms", "1")],
                ),
                (res, vec![AlterConfigOp::set("retention.ms", "7200000")]),
            ],
            &opts(),
        )
        .unwrap();
    assert_eq!(
        code(r[0].result.as_ref().unwrap_err()),
        "UNKNOWN_TOPIC_OR_PARTITION"
    );
    assert!(r[1].result.is_ok());
    assert_eq!(
        topic_configs(&a, &t)["retention.ms"].0.as_deref(),
        Some("7200000")
    );
    a.delete_topics(&[&t], &opts()).unwrap();
}

#[test]
fn broker_broker_logger_and_group_configs() {
    if !common::broker_up() {
        return;
    }
    let a = admin();
    let node = node_id(&a);
    let resources = [
        ConfigResource::broker(node),
        ConfigResource::new(ConfigResourceType::BROKER_LOGGER, node.to_string()),
        ConfigResource::new(ConfigResourceType::GROUP, "adm-group"),
        ConfigResource::new(ConfigResourceType::BROKER, ""),
    ];
    let r = a
        .describe_configs(&resources, None, true, false, &opts())
        .unwrap();
    assert_eq!(r.len(), 4);
    for x in &r {
        // the broker answers each (with what it has: nisshi keeps no broker configs)
        assert!(x.result.is_ok(), "{x:?}");
    }
    // a broker that is not in the cluster
    let r = a
        .describe_configs(
            &[ConfigResource::broker(node + 1000)],
            None,
            false,
            false,
            &opts(),
        )
        .unwrap();
    assert_eq!(
        code(r[0].result.as_ref().unwrap_err()),
        "BROKER_NOT_AVAILABLE"
    );
    // incremental alter of a broker resource goes to that broker, which accepts it
    let r = a
        .incremental_alter_configs(
            &[(
                ConfigResource::broker(node),
                vec![AlterConfigOp::set("log.retention.ms", "604800000")],
            )],
            &opts(),
        )
        .unwrap();
    assert!(r[0].result.is_ok(), "{r:?}");
}

#[test]
fn describe_cluster_reports_id_controller_and_brokers() {
    if !common::broker_up() {
        return;
    }
    let a = admin();
    let d = a.describe_cluster(false, &opts()).unwrap();
    assert!(d.cluster_id.as_deref().is_some_and(|c| !c.is_empty()));
    assert_eq!(d.brokers.len(), 1);
    let b = &d.brokers[0];
    assert_eq!(format!("{}:{}", b.host, b.port), common::broker());
    assert_eq!(d.controller().map(|c| c.id), Some(b.id));
    // the metadata path agrees
    let md = a
        .cluster()
        .fetch_metadata(Some(&[]), false, Duration::from_secs(10))
        .unwrap();
    assert_eq!(md.controller_id, d.controller_id);
    assert_eq!(md.cluster_id, d.cluster_id);
    assert!(a.describe_cluster(true, &opts()).is_ok());
}

#[test]
fn delete_records_then_list_offsets() {
    if !common::broker_up() {
        return;
    }
    let a = admin();
    let t = unique_topic("adm-rec");
    a.create_topics(&[NewTopic::new(&t, 2, 1)], &opts())
        .unwrap();
    let p = Producer::new(&config(&[])).unwrap();
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    for i in 0..10 {
        let v = format!("m{i}");
        let mut rec = ProducerRecord::new(&t, v.as_bytes());
        rec.partition = Some(0);
        rec.timestamp = Some(before + i * 1000);
        p.send_sync(&rec, Some(Duration::from_secs(10))).unwrap();
    }
    let tp0 = TopicPartition::new(&t, 0);
    let tp1 = TopicPartition::new(&t, 1);
    let offs = a
        .list_offsets(
            &[
                (tp0.clone(), OffsetSpec::Earliest),
                (tp1.clone(), OffsetSpec::Latest),
            ],
            false,
            &opts(),
        )
        .unwrap();
    assert_eq!(offs[0].result.as_ref().unwrap().offset, 0);
    assert_eq!(offs[1].result.as_ref().unwrap().offset, 0);
    let latest = a
        .list_offsets(&[(tp0.clone(), OffsetSpec::Latest)], false, &opts())
        .unwrap();
    assert_eq!(latest[0].result.as_ref().unwrap().offset, 10);
    let by_time = a
        .list_offsets(
            &[(tp0.clone(), OffsetSpec::Timestamp(before + 4500))],
            false,
            &opts(),
        )
        .unwrap();
    let info = by_time[0].result.as_ref().unwrap();
    assert_eq!(info.offset, 5, "{info:?}");
    assert_eq!(info.timestamp, before + 5000);

    let r = a
        .delete_records(
            &[(tp0.clone(), 4), (TopicPartition::new(&t, 7), 1)],
            &opts(),
        )
        .unwrap();
    assert_eq!(*r[0].result.as_ref().unwrap(), 4);
    assert_eq!(
        r[1].result.as_ref().unwrap_err().code(),
        local::UNKNOWN_PARTITION
    );
    let offs = a
        .list_offsets(&[(tp0.clone(), OffsetSpec::Earliest)], false, &opts())
        .unwrap();
    assert_eq!(
        offs[0].result.as_ref().unwrap().offset,
        4,
        "log start moved"
    );

    // MAX_TIMESTAMP needs ListOffsets v7, which this broker (v0-6) lacks:
    // a typed per-partition error, the other partitions answered
    let r = a
        .list_offsets(
            &[
                (tp0.clone(), OffsetSpec::MaxTimestamp),
                (tp1, OffsetSpec::Earliest),
            ],
            false,
            &opts(),
        )
        .unwrap();
    assert_eq!(
        r[0].result.as_ref().unwrap_err().code(),
        local::UNSUPPORTED_FEATURE
    );
    assert!(r[1].result.is_ok());
    // read_committed is carried (v2+)
    assert!(a
        .list_offsets(&[(tp0, OffsetSpec::Latest)], true, &opts())
        .unwrap()[0]
        .result
        .is_ok());
    a.delete_topics(&[&t], &opts()).unwrap();
}

#[test]
fn acls_describe_and_the_broker_refusal_of_create_and_delete() {
    if !common::broker_up() {
        return;
    }
    let a = admin();
    // no authorizer: DescribeAcls answers SECURITY_DISABLED for the request
    let e = a
        .describe_acls(&AclBindingFilter::any(), &opts())
        .unwrap_err();
    assert_eq!(code(&e), "SECURITY_DISABLED");
    let b = AclBinding {
        resource_type: ResourceType::TOPIC,
        resource_name: "adm-acl".into(),
        pattern_type: PatternType::PREFIXED,
        principal: "User:alice".into(),
        host: "*".into(),
        operation: AclOperation::READ,
        permission_type: AclPermissionType::ALLOW,
    };
    let r = a.create_acls(&[b.clone(), b], &opts()).unwrap();
    assert_eq!(r.len(), 2);
    for x in &r {
        assert_eq!(code(x.as_ref().unwrap_err()), "SECURITY_DISABLED");
    }
    let r = a.delete_acls(&[AclBindingFilter::any()], &opts()).unwrap();
    assert_eq!(code(r[0].result.as_ref().unwrap_err()), "SECURITY_DISABLED");
}

#[test]
fn list_partition_reassignments_has_none_in_progress() {
    if !common::broker_up() {
        return;
    }
    let a = admin();
    let t = unique_topic("adm-lpr");
    a.create_topics(&[NewTopic::new(&t, 2, 1)], &opts())
        .unwrap();
    assert!(a
        .list_partition_reassignments(None, &opts())
        .unwrap()
        .is_empty());
    let only = [TopicPartition::new(&t, 0)];
    assert!(a
        .list_partition_reassignments(Some(&only), &opts())
        .unwrap()
        .is_empty());
    a.delete_topics(&[&t], &opts()).unwrap();
}

#[test]
fn scram_credentials_on_a_broker_without_a_user_store() {
    if !common::broker_up() {
        return;
    }
    let a = admin();
    // the memory storage engine has no users: describing lists none, and a
    // named user gets RESOURCE_NOT_FOUND (as the Java client reports it)
    assert!(a
        .describe_user_scram_credentials(None, &opts())
        .unwrap()
        .is_empty());
    let r = a
        .describe_user_scram_credentials(Some(&["adm-alice"]), &opts())
        .unwrap();
    assert_eq!(
        code(r[0].result.as_ref().unwrap_err()),
        "RESOURCE_NOT_FOUND"
    );
    // upserting is refused per user, with the broker's reason
    let r = a
        .alter_user_scram_credentials(
            &[UserScramAlteration::Upsert {
                user: "adm-alice".into(),
                mechanism: ScramMechanism::SCRAM_SHA_256,
                iterations: 8192,
                password: "secret".into(),
                salt: None,
            }],
            &opts(),
        )
        .unwrap();
    assert_eq!(r[0].0, "adm-alice");
    let e = r[0].1.as_ref().unwrap_err();
    assert_eq!(code(e), "UNSUPPORTED_VERSION");
    assert!(e.to_string().contains("SCRAM"), "{e}");
}

/// What a user gets for an operation the broker does not implement: the
/// typed `_UNSUPPORTED_FEATURE` naming the API, before anything is sent.
#[test]
fn operations_the_broker_lacks_are_typed_unsupported_errors() {
    if !common::broker_up() {
        return;
    }
    let a = admin();
    let node = node_id(&a);
    let t = unique_topic("adm-uns");
    a.create_topics(&[NewTopic::new(&t, 1, 1)], &opts())
        .unwrap();
    let tp = TopicPartition::new(&t, 0);
    let unsupported = |what: &str, e: gregor::error::Error, api: &str| {
        assert_eq!(e.code(), local::UNSUPPORTED_FEATURE, "{what}: {e}");
        assert!(e.to_string().contains(api), "{what}: {e}");
    };
    unsupported(
        "create partitions",
        a.create_partitions(&[NewPartitions::increase_to(&t, 3)], &opts())
            .unwrap_err(),
        "CreatePartitions",
    );
    unsupported(
        "legacy alter configs",
        a.alter_configs(
            &[(
                ConfigResource::topic(&t),
                vec![("retention.ms".into(), Some("1".into()))],
            )],
            &opts(),
        )
        .unwrap_err(),
        "AlterConfigs",
    );
    unsupported(
        "elect leaders",
        a.elect_leaders(
            ElectionType::PREFERRED,
            Some(std::slice::from_ref(&tp)),
            &opts(),
        )
        .unwrap_err(),
        "ElectLeaders",
    );
    unsupported(
        "alter reassignments",
        a.alter_partition_reassignments(&[(tp.clone(), Some(vec![node]))], &opts())
            .unwrap_err(),
        "AlterPartitionReassignments",
    );
    unsupported(
        "describe quotas",
        a.describe_client_quotas(&[], false, &opts()).unwrap_err(),
        "DescribeClientQuotas",
    );
    unsupported(
        "alter quotas",
        a.alter_client_quotas(
            &[QuotaAlteration {
                entity: QuotaEntity::new([("user".to_string(), Some("u".to_string()))]),
                ops: vec![("producer_byte_rate".into(), Some(1024.0))],
            }],
            &opts(),
        )
        .unwrap_err(),
        "AlterClientQuotas",
    );
    unsupported(
        "log dirs",
        a.describe_log_dirs(None, &opts()).unwrap_err(),
        "DescribeLogDirs",
    );
    unsupported(
        "producers",
        a.describe_producers(&[tp], None, &opts()).unwrap_err(),
        "DescribeProducers",
    );
    unsupported(
        "list transactions",
        a.list_transactions(&[], &[], None, &opts()).unwrap_err(),
        "ListTransactions",
    );
    // the broker has FindCoordinator but no DescribeTransactions
    unsupported(
        "describe transactions",
        a.describe_transactions(&["adm-txn"], &opts()).unwrap_err(),
        "DescribeTransactions",
    );
    a.delete_topics(&[&t], &opts()).unwrap();
}
