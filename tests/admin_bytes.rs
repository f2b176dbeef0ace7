//! The admin operations the test broker lacks or answers only in part
//! (docs/TEST-SERVICES.md), through the whole client path — version negotiation,
//! routing to the controller / a named broker / the leaders / the
//! coordinator, NOT_CONTROLLER and leader-moved retries, per-entity typed
//! errors — against scripted in-test brokers (tests/admin_mock) that answer
//! with response bodies kafka-python generated (tests/admin_fixtures, made by
//! scripts/admin_fixtures.py). Where a request's exact bytes matter (the
//! retried CreatePartitions, the SCRAM salted passwords) they are compared
//! with kafka-python's encoding too.

mod admin_fixtures;
mod admin_mock;

use std::time::Duration;

use admin_fixtures::*;
use admin_mock::{any, on, unhex, with, Mock};
use gregor::admin::*;
use gregor::error::{local, Error};
use gregor::protocol::alter_configs::AlterConfigsRequest;
use gregor::protocol::alter_partition_reassignments::AlterPartitionReassignmentsRequest;
use gregor::protocol::create_topics::CreateTopicsRequest;
use gregor::protocol::describe_configs::DescribeConfigsRequest;
use gregor::protocol::elect_leaders::ElectLeadersRequest;
use gregor::protocol::incremental_alter_configs::IncrementalAlterConfigsRequest;
use gregor::protocol::list_offsets::ListOffsetsRequest;
use gregor::protocol::list_transactions::ListTransactionsRequest;
use gregor::protocol::{KafkaCode, Message};
use gregor::wire::Uuid;

fn opts() -> AdminOptions {
    AdminOptions {
        request_timeout: Some(Duration::from_secs(5)),
        operation_timeout: Some(Duration::from_millis(5000)),
        validate_only: false,
    }
}

fn name(e: &Error) -> &'static str {
    e.kafka_code().map_or("LOCAL", |c| c.name())
}

fn err<T: std::fmt::Debug>(r: &gregor::error::Result<T>) -> &Error {
    r.as_ref().expect_err("expected an error")
}

fn done(m: &Mock) {
    let (left, unexpected) = m.leftovers();
    assert_eq!(left, 0, "scripted steps not used");
    assert!(unexpected.is_empty(), "unexpected requests: {unexpected:?}");
}

#[test]
fn create_partitions_follows_not_controller_and_names_each_error() {
    let m = Mock::new(2, &[(37, 0, 3)]);
    m.step_then(CREATE_PARTITIONS_V3_FIRST, on(1), |st| st.controller = 2);
    m.step(CREATE_PARTITIONS_V3_RETRY, on(2));
    let a = m.admin();
    let mut grow_a = NewPartitions::increase_to("a", 6);
    grow_a.assignments = Some(vec![vec![1, 2], vec![2, 1]]);
    let asked = [
        grow_a,
        NewPartitions::increase_to("b", 4),
        NewPartitions::increase_to("c", 2),
        NewPartitions::increase_to("d", 5),
        NewPartitions::increase_to("e", 5),
        NewPartitions::increase_to("f", 5),
    ];
    let r = a.create_partitions(&asked, &opts()).unwrap();
    let names: Vec<_> = r.iter().map(|x| x.name.clone().unwrap()).collect();
    assert_eq!(names, ["a", "b", "c", "d", "e", "f"]);
    assert!(
        r[0].result.is_ok(),
        "retried at the new controller: {:?}",
        r[0]
    );
    assert!(r[1].result.is_ok());
    let c = err(&r[2].result);
    assert_eq!(name(c), "INVALID_PARTITIONS");
    assert!(c.to_string().contains("higher than the requested 2"), "{c}");
    assert_eq!(name(err(&r[3].result)), "INVALID_REPLICA_ASSIGNMENT");
    assert_eq!(name(err(&r[4].result)), "REASSIGNMENT_IN_PROGRESS");
    assert_eq!(name(err(&r[5].result)), "POLICY_VIOLATION");

    let seen = m.seen(37);
    assert_eq!(seen.iter().map(|s| s.broker).collect::<Vec<_>>(), [1, 2]);
    // only the NOT_CONTROLLER topic went again, byte for byte as kafka-python encodes it
    assert_eq!(seen[1].body, unhex(CREATE_PARTITIONS_V3_RETRY_REQUEST.2));
    assert!(
        m.seen(3).len() >= 2,
        "metadata was refreshed to find the new controller"
    );
    done(&m);
}

#[test]
fn create_partitions_unsupported_two_ways() {
    // a broker that speaks CreatePartitions but refuses it
    let m = Mock::new(1, &[(37, 0, 1)]);
    m.step(CREATE_PARTITIONS_V1_UNSUPPORTED_VERSION, any);
    let r = m
        .admin()
        .create_partitions(&[NewPartitions::increase_to("a", 3)], &opts())
        .unwrap();
    let e = err(&r[0].result);
    assert_eq!(e.kafka_code(), Some(KafkaCode::UNSUPPORTED_VERSION));
    assert!(e.to_string().contains("disabled"), "{e}");
    done(&m);

    // a broker that does not list it: a local typed error, nothing sent
    let m = Mock::new(1, &[]);
    let e = m
        .admin()
        .create_partitions(&[NewPartitions::increase_to("a", 3)], &opts())
        .unwrap_err();
    assert_eq!(e.code(), local::UNSUPPORTED_FEATURE);
    assert!(e.to_string().contains("CreatePartitions"), "{e}");
    assert!(m.seen(37).is_empty());
}

#[test]
fn create_topics_every_per_topic_error_and_echoed_configs() {
    let m = Mock::new(1, &[(19, 0, 7)]);
    m.step(CREATE_TOPICS_V7_ERRORS, any);
    let topics: Vec<NewTopic> = (1..=8)
        .map(|i| NewTopic::new(format!("x{i}"), 3, 2))
        .collect();
    let r = m.admin().create_topics(&topics, &opts()).unwrap();
    let x1 = r[0].result.as_ref().unwrap();
    assert_eq!(
        x1.topic_id,
        Uuid::parse("01234567-89ab-cdef-0123-456789abcdef").unwrap()
    );
    assert_eq!(r[0].topic_id, x1.topic_id);
    assert_eq!((x1.num_partitions, x1.replication_factor), (3, 2));
    let cfg: Vec<_> = x1
        .configs
        .iter()
        .map(|c| {
            (
                c.name.as_str(),
                c.value.as_deref(),
                c.source,
                c.is_default,
                c.is_sensitive,
            )
        })
        .collect();
    assert_eq!(
        cfg,
        [
            (
                "retention.ms",
                Some("1000"),
                ConfigSource::DYNAMIC_TOPIC_CONFIG,
                false,
                false
            ),
            (
                "cleanup.policy",
                Some("delete"),
                ConfigSource::DEFAULT_CONFIG,
                true,
                false
            ),
            (
                "sasl.password",
                None,
                ConfigSource::STATIC_BROKER_CONFIG,
                false,
                true
            ),
        ]
    );
    assert!(x1.configs_error.is_none());
    let names: Vec<_> = r[1..7].iter().map(|x| name(err(&x.result))).collect();
    assert_eq!(
        names,
        [
            "INVALID_PARTITIONS",
            "INVALID_REPLICATION_FACTOR",
            "INVALID_REPLICA_ASSIGNMENT",
            "INVALID_CONFIG",
            "POLICY_VIOLATION",
            "TOPIC_ALREADY_EXISTS",
        ]
    );
    assert!(err(&r[2].result)
        .to_string()
        .contains("larger than available brokers"));
    // created, but the broker could not return its configs (tagged field)
    let x8 = r[7].result.as_ref().unwrap();
    assert_eq!(
        x8.configs_error.as_ref().and_then(Error::kafka_code),
        Some(KafkaCode::TOPIC_AUTHORIZATION_FAILED)
    );
    let sent = CreateTopicsRequest::from_bytes(&m.seen(19)[0].body, 7).unwrap();
    assert_eq!(sent.timeout_ms, 5000);
    assert_eq!(sent.topics.len(), 8);
    done(&m);
}

#[test]
fn create_topics_v0_broker_retries_at_the_new_controller() {
    let m = Mock::new(2, &[(19, 0, 0)]);
    let a = m.admin();
    // what v0 cannot carry is refused before sending
    let vo = AdminOptions {
        validate_only: true,
        ..opts()
    };
    let e = a
        .create_topics(&[NewTopic::new("old1", 1, 1)], &vo)
        .unwrap_err();
    assert_eq!(e.code(), local::UNSUPPORTED_FEATURE, "{e}");
    let e = a
        .create_topics(&[NewTopic::new("old1", -1, -1)], &opts())
        .unwrap_err();
    assert_eq!(e.code(), local::UNSUPPORTED_FEATURE, "{e}");
    assert!(m.seen(19).is_empty());

    m.step_then(CREATE_TOPICS_V0_NOT_CONTROLLER, on(1), |st| {
        st.controller = 2
    });
    m.step(CREATE_TOPICS_V0_OK, on(2));
    let r = a
        .create_topics(
            &[
                NewTopic::new("old1", 2, 1),
                NewTopic::with_assignment("old2", [(0, vec![1, 2])]),
            ],
            &opts(),
        )
        .unwrap();
    assert!(r[0].result.is_ok());
    assert_eq!(
        r[0].result.as_ref().unwrap().num_partitions,
        -1,
        "v0 does not say"
    );
    assert_eq!(name(err(&r[1].result)), "INVALID_REPLICATION_FACTOR");
    let seen = m.seen(19);
    assert_eq!(seen.iter().map(|s| s.broker).collect::<Vec<_>>(), [1, 2]);
    let retried = CreateTopicsRequest::from_bytes(&seen[1].body, 0).unwrap();
    let t2 = &retried.topics[1];
    assert_eq!((t2.num_partitions, t2.replication_factor), (-1, -1));
    assert_eq!(t2.assignments[0].broker_ids, [1, 2]);
    done(&m);
}

#[test]
fn legacy_alter_configs_goes_to_the_named_broker() {
    let m = Mock::new(2, &[(33, 0, 2)]);
    let has = |body: &[u8], s: &str| body.windows(s.len()).any(|w| w == s.as_bytes());
    m.step(ALTER_CONFIGS_V2_TOPIC, with("topic-a"));
    m.step(ALTER_CONFIGS_V2_BROKER2, move |b, body| {
        b == 2 && !has(body, "topic-a")
    });
    m.step(ALTER_CONFIGS_V2_LOGGER1, move |b, body| {
        b == 1 && !has(body, "topic-a")
    });
    let set = |k: &str, v: &str| vec![(k.to_string(), Some(v.to_string()))];
    let r = m
        .admin()
        .alter_configs(
            &[
                (
                    ConfigResource::topic("topic-a"),
                    set("retention.ms", "1000"),
                ),
                (
                    ConfigResource::topic("topic-b"),
                    set("retention.bogus", "1"),
                ),
                (ConfigResource::broker(2), set("log.cleaner.threads", "2")),
                (
                    ConfigResource::new(ConfigResourceType::BROKER_LOGGER, "1"),
                    set("kafka.server", "DEBUG"),
                ),
            ],
            &opts(),
        )
        .unwrap();
    assert!(r[0].result.is_ok());
    let e = err(&r[1].result);
    assert_eq!(name(e), "INVALID_CONFIG");
    assert!(e.to_string().contains("retention.bogus"), "{e}");
    assert_eq!(name(err(&r[2].result)), "POLICY_VIOLATION");
    assert!(r[3].result.is_ok());
    for s in m.seen(33) {
        let req = AlterConfigsRequest::from_bytes(&s.body, 2).unwrap();
        for res in &req.resources {
            match res.resource_type {
                4 => assert_eq!((s.broker, res.resource_name.as_str()), (2, "2")),
                8 => assert_eq!((s.broker, res.resource_name.as_str()), (1, "1")),
                _ => assert_eq!(req.resources.len(), 2, "both topics in one request"),
            }
        }
    }
    assert_eq!(m.seen(33).len(), 3);
    done(&m);
}

#[test]
fn incremental_alter_configs_ops_and_routing() {
    let m = Mock::new(2, &[(44, 0, 1)]);
    let has = |body: &[u8], s: &str| body.windows(s.len()).any(|w| w == s.as_bytes());
    m.step(INCREMENTAL_ALTER_CONFIGS_V1_ANY, with("topic-a"));
    m.step(INCREMENTAL_ALTER_CONFIGS_V1_BROKER2, move |b, body| {
        b == 2 && !has(body, "topic-a")
    });
    let r = m
        .admin()
        .incremental_alter_configs(
            &[
                (
                    ConfigResource::topic("topic-a"),
                    vec![
                        AlterConfigOp::set("retention.ms", "1000"),
                        AlterConfigOp::delete("segment.ms"),
                        AlterConfigOp::new(
                            "cleanup.policy",
                            AlterConfigOpType::APPEND,
                            Some("compact".into()),
                        ),
                        AlterConfigOp::new(
                            "leader.replication.throttled.replicas",
                            AlterConfigOpType::SUBTRACT,
                            Some("0:1".into()),
                        ),
                    ],
                ),
                (
                    ConfigResource::new(ConfigResourceType::GROUP, "group-a"),
                    vec![AlterConfigOp::set("consumer.session.timeout.ms", "1")],
                ),
                (
                    ConfigResource::broker(2),
                    vec![AlterConfigOp::set("log.cleaner.threads", "2")],
                ),
            ],
            &opts(),
        )
        .unwrap();
    assert!(r[0].result.is_ok());
    assert_eq!(name(err(&r[1].result)), "INVALID_CONFIG");
    assert!(r[2].result.is_ok());
    let seen = m.seen(44);
    let any_req = seen.iter().find(|s| has(&s.body, "topic-a")).unwrap();
    let req = IncrementalAlterConfigsRequest::from_bytes(&any_req.body, 1).unwrap();
    let ops: Vec<(i8, Option<&str>)> = req.resources[0]
        .configs
        .iter()
        .map(|c| (c.config_operation, c.value.as_deref()))
        .collect();
    assert_eq!(
        ops,
        [
            (0, Some("1000")),
            (1, None),
            (2, Some("compact")),
            (3, Some("0:1"))
        ]
    );
    assert_eq!(req.resources[1].resource_type, 32);
    assert!(seen
        .iter()
        .any(|s| s.broker == 2 && !has(&s.body, "topic-a")));
    done(&m);
}

#[test]
fn describe_configs_with_synonyms_documentation_and_v0_defaults() {
    let m = Mock::new(2, &[(32, 0, 4)]);
    m.step(DESCRIBE_CONFIGS_V4_BROKER2, on(2));
    m.step(DESCRIBE_CONFIGS_V4_TOPIC, with("topic-secret"));
    let r = m
        .admin()
        .describe_configs(
            &[
                ConfigResource::broker(2),
                ConfigResource::topic("topic-secret"),
            ],
            None,
            true,
            true,
            &opts(),
        )
        .unwrap();
    let es = r[0].result.as_ref().unwrap();
    let ret = &es[0];
    assert_eq!(ret.name, "log.retention.ms");
    assert_eq!(ret.source, ConfigSource::DYNAMIC_BROKER_CONFIG);
    assert_eq!(ret.config_type, ConfigType::LONG);
    assert!(ret
        .documentation
        .as_deref()
        .unwrap()
        .starts_with("The number of milliseconds"));
    let syn: Vec<_> = ret
        .synonyms
        .iter()
        .map(|s| (s.name.as_str(), s.value.as_deref(), s.source))
        .collect();
    assert_eq!(
        syn,
        [
            (
                "log.retention.ms",
                Some("604800000"),
                ConfigSource::DYNAMIC_BROKER_CONFIG
            ),
            (
                "log.retention.hours",
                Some("168"),
                ConfigSource::STATIC_BROKER_CONFIG
            ),
        ]
    );
    let pw = &es[1];
    assert!(pw.is_sensitive && pw.is_read_only && pw.value.is_none());
    assert_eq!(pw.config_type, ConfigType::PASSWORD);
    assert_eq!(name(err(&r[1].result)), "TOPIC_AUTHORIZATION_FAILED");
    for s in m.seen(32) {
        let req = DescribeConfigsRequest::from_bytes(&s.body, 4).unwrap();
        assert!(req.include_synonyms && req.include_documentation);
    }
    done(&m);

    let m = Mock::new(1, &[(32, 0, 0)]);
    m.step(DESCRIBE_CONFIGS_V0, any);
    let r = m
        .admin()
        .describe_configs(
            &[ConfigResource::topic("old-topic")],
            None,
            true,
            true,
            &opts(),
        )
        .unwrap();
    let es = r[0].result.as_ref().unwrap();
    assert_eq!(
        es.iter()
            .map(|e| (e.name.as_str(), e.is_default, e.source))
            .collect::<Vec<_>>(),
        [
            ("retention.ms", false, ConfigSource::UNKNOWN),
            ("segment.bytes", true, ConfigSource::DEFAULT_CONFIG),
        ]
    );
    done(&m);
}

#[test]
fn elect_leaders_per_partition_all_partitions_and_refusal() {
    let m = Mock::new(2, &[(43, 0, 2)]);
    m.state.lock().unwrap().controller = 2;
    m.step(ELECT_LEADERS_V2, on(2));
    m.step(ELECT_LEADERS_V2_ALL, on(2));
    m.step(ELECT_LEADERS_V2_DENIED, on(2));
    let a = m.admin();
    let parts = [
        TopicPartition::new("t", 0),
        TopicPartition::new("t", 1),
        TopicPartition::new("t", 2),
        TopicPartition::new("gone", 0),
    ];
    let r = a
        .elect_leaders(ElectionType::PREFERRED, Some(&parts), &opts())
        .unwrap();
    assert!(r[0].result.is_ok());
    let got: Vec<_> = r[1..].iter().map(|x| name(err(&x.result))).collect();
    assert_eq!(
        got,
        [
            "ELECTION_NOT_NEEDED",
            "PREFERRED_LEADER_NOT_AVAILABLE",
            "UNKNOWN_TOPIC_OR_PARTITION"
        ]
    );
    let all = a
        .elect_leaders(ElectionType::UNCLEAN, None, &opts())
        .unwrap();
    assert_eq!(
        all.iter().map(|x| x.partition.clone()).collect::<Vec<_>>(),
        [TopicPartition::new("u", 1), TopicPartition::new("u", 3)]
    );
    let e = a
        .elect_leaders(ElectionType::PREFERRED, None, &opts())
        .unwrap_err();
    assert_eq!(name(&e), "CLUSTER_AUTHORIZATION_FAILED");
    let seen = m.seen(43);
    let first = ElectLeadersRequest::from_bytes(&seen[0].body, 2).unwrap();
    assert_eq!(first.election_type, 0);
    assert_eq!(first.timeout_ms, 5000);
    assert_eq!(
        first.topic_partitions.as_ref().unwrap()[0].partitions,
        [0, 1, 2]
    );
    let second = ElectLeadersRequest::from_bytes(&seen[1].body, 2).unwrap();
    assert_eq!((second.election_type, second.topic_partitions), (1, None));
    assert!(seen.iter().all(|s| s.broker == 2), "to the controller");
    done(&m);

    // ElectLeaders v0 has no election type
    let m = Mock::new(1, &[(43, 0, 0)]);
    let e = m
        .admin()
        .elect_leaders(ElectionType::UNCLEAN, None, &opts())
        .unwrap_err();
    assert_eq!(e.code(), local::UNSUPPORTED_FEATURE, "{e}");
}

#[test]
fn partition_reassignments_alter_after_not_controller_and_list() {
    let m = Mock::new(2, &[(45, 0, 0), (46, 0, 0)]);
    m.step_then(ALTER_REASSIGNMENTS_V0_NOT_CONTROLLER, on(1), |st| {
        st.controller = 2
    });
    m.step(ALTER_REASSIGNMENTS_V0, on(2));
    m.step(LIST_REASSIGNMENTS_V0, on(2));
    let a = m.admin();
    let r = a
        .alter_partition_reassignments(
            &[
                (TopicPartition::new("t", 0), Some(vec![2, 1])),
                (TopicPartition::new("t", 1), None),
                (TopicPartition::new("t", 2), Some(vec![9])),
            ],
            &opts(),
        )
        .unwrap();
    assert!(r[0].result.is_ok());
    assert_eq!(name(err(&r[1].result)), "NO_REASSIGNMENT_IN_PROGRESS");
    assert_eq!(name(err(&r[2].result)), "INVALID_REPLICA_ASSIGNMENT");
    let seen = m.seen(45);
    assert_eq!(seen.iter().map(|s| s.broker).collect::<Vec<_>>(), [1, 2]);
    let req = AlterPartitionReassignmentsRequest::from_bytes(&seen[1].body, 0).unwrap();
    let ps: Vec<_> = req.topics[0]
        .partitions
        .iter()
        .map(|p| p.replicas.clone())
        .collect();
    assert_eq!(ps, [Some(vec![2, 1]), None, Some(vec![9])], "None cancels");

    let l = a.list_partition_reassignments(None, &opts()).unwrap();
    assert_eq!(
        l,
        [
            PartitionReassignment {
                partition: TopicPartition::new("t", 0),
                replicas: vec![2, 1],
                adding_replicas: vec![1],
                removing_replicas: vec![],
            },
            PartitionReassignment {
                partition: TopicPartition::new("t", 2),
                replicas: vec![1, 2, 3],
                adding_replicas: vec![3],
                removing_replicas: vec![1],
            },
        ]
    );
    done(&m);
}

#[test]
fn describe_log_dirs_asks_every_broker() {
    let m = Mock::new(2, &[(35, 0, 4)]);
    m.step(DESCRIBE_LOG_DIRS_V4_BROKER1, on(1));
    m.step(DESCRIBE_LOG_DIRS_V4_BROKER2, on(2));
    let r = m.admin().describe_log_dirs(None, &opts()).unwrap();
    assert_eq!(r.iter().map(|b| b.broker_id).collect::<Vec<_>>(), [1, 2]);
    let dirs = r[0].result.as_ref().unwrap();
    assert_eq!(dirs[0].path, "/var/kafka/a");
    assert!(dirs[0].error.is_none());
    assert_eq!(
        (dirs[0].total_bytes, dirs[0].usable_bytes),
        (Some(1_000_000), Some(250_000))
    );
    assert_eq!(
        dirs[0].replicas,
        [
            ReplicaInfo {
                partition: TopicPartition::new("t", 0),
                size: 4096,
                offset_lag: 0,
                is_future: false
            },
            ReplicaInfo {
                partition: TopicPartition::new("t", 1),
                size: 8192,
                offset_lag: 3,
                is_future: true
            },
        ]
    );
    assert_eq!(
        dirs[1].error.as_ref().and_then(Error::kafka_code),
        Some(KafkaCode::KAFKA_STORAGE_ERROR)
    );
    assert_eq!((dirs[1].total_bytes, dirs[1].usable_bytes), (None, None));
    assert_eq!(name(err(&r[1].result)), "CLUSTER_AUTHORIZATION_FAILED");
    done(&m);
}

#[test]
fn client_quotas_describe_and_alter() {
    let m = Mock::new(1, &[(48, 0, 1), (49, 0, 1)]);
    m.step(DESCRIBE_CLIENT_QUOTAS_V1, any);
    m.step(DESCRIBE_CLIENT_QUOTAS_V1_ERROR, any);
    m.step(ALTER_CLIENT_QUOTAS_V1, any);
    let a = m.admin();
    let filter = [QuotaFilterComponent {
        entity_type: "user".into(),
        matching: QuotaMatch::Any,
    }];
    let q = a.describe_client_quotas(&filter, false, &opts()).unwrap();
    assert_eq!(q.len(), 2);
    assert_eq!(q[0].entity.to_string(), "client-id=<default>,user=alice");
    assert_eq!(q[0].values["producer_byte_rate"], 1_048_576.0);
    assert_eq!(q[0].values["request_percentage"], 12.5);
    assert_eq!(q[1].entity.parts(), [("user".to_string(), None)]);
    let e = a
        .describe_client_quotas(&filter, true, &opts())
        .unwrap_err();
    assert_eq!(name(&e), "INVALID_REQUEST");

    let alice = QuotaEntity::new([
        ("user".to_string(), Some("alice".to_string())),
        ("client-id".to_string(), None),
    ]);
    let app = QuotaEntity::new([("client-id".to_string(), Some("app".to_string()))]);
    let r = a
        .alter_client_quotas(
            &[
                QuotaAlteration {
                    entity: alice.clone(),
                    ops: vec![
                        ("producer_byte_rate".into(), Some(1024.0)),
                        ("consumer_byte_rate".into(), None),
                    ],
                },
                QuotaAlteration {
                    entity: app.clone(),
                    ops: vec![("bogus_rate".into(), Some(1.0))],
                },
            ],
            &opts(),
        )
        .unwrap();
    assert_eq!(r[0].0, alice);
    assert!(
        r[0].1.is_ok(),
        "matched although the broker ordered the parts differently"
    );
    assert_eq!(r[1].0, app);
    assert_eq!(name(err(&r[1].1)), "INVALID_REQUEST");
    done(&m);
}

#[test]
fn scram_credentials_describe_and_alter_with_salted_passwords() {
    let m = Mock::new(1, &[(50, 0, 0), (51, 0, 0)]);
    m.step(DESCRIBE_SCRAM_V0, any);
    m.step(ALTER_SCRAM_V0, any);
    let a = m.admin();
    let d = a
        .describe_user_scram_credentials(Some(&["alice", "bob"]), &opts())
        .unwrap();
    assert_eq!(
        d[0].result.as_ref().unwrap(),
        &[
            ScramCredentialInfo {
                mechanism: ScramMechanism::SCRAM_SHA_256,
                iterations: 4096
            },
            ScramCredentialInfo {
                mechanism: ScramMechanism::SCRAM_SHA_512,
                iterations: 8192
            },
        ]
    );
    assert_eq!(name(err(&d[1].result)), "RESOURCE_NOT_FOUND");
    let r = a
        .alter_user_scram_credentials(
            &[
                UserScramAlteration::Delete {
                    user: "alice".into(),
                    mechanism: ScramMechanism::SCRAM_SHA_512,
                },
                UserScramAlteration::Upsert {
                    user: "alice".into(),
                    mechanism: ScramMechanism::SCRAM_SHA_256,
                    iterations: 4096,
                    password: "alice-secret".into(),
                    salt: Some((0..32).collect()),
                },
                UserScramAlteration::Upsert {
                    user: "bob".into(),
                    mechanism: ScramMechanism::SCRAM_SHA_512,
                    iterations: 1024,
                    password: "pencil".into(),
                    salt: Some(b"NaCl".to_vec()),
                },
            ],
            &opts(),
        )
        .unwrap();
    assert_eq!(
        r.iter().map(|x| x.0.as_str()).collect::<Vec<_>>(),
        ["alice", "bob"]
    );
    assert!(r[0].1.is_ok());
    assert_eq!(name(err(&r[1].1)), "UNACCEPTABLE_CREDENTIAL");
    // PBKDF2 salted passwords, byte for byte as Python's hashlib makes them
    assert_eq!(m.seen(51)[0].body, unhex(ALTER_SCRAM_V0_REQUEST.2));
    done(&m);
}

#[test]
fn describe_producers_goes_to_each_leader_and_follows_a_moved_leader() {
    let m = Mock::new(2, &[(61, 0, 0)]);
    m.topic("t", &[2, 1]);
    m.step(DESCRIBE_PRODUCERS_V0_BROKER1, on(1));
    m.step_then(DESCRIBE_PRODUCERS_V0_BROKER2, on(2), |st| {
        st.topics[0].1[0] = 1; // partition 0's leader moved to broker 1
    });
    m.step(DESCRIBE_PRODUCERS_V0_RETRY, on(1));
    let r = m
        .admin()
        .describe_producers(
            &[TopicPartition::new("t", 0), TopicPartition::new("t", 1)],
            None,
            &opts(),
        )
        .unwrap();
    assert_eq!(
        r[0].result.as_ref().unwrap().len(),
        0,
        "answered by the new leader"
    );
    let ps = r[1].result.as_ref().unwrap();
    assert_eq!(
        ps[0],
        ProducerState {
            producer_id: 1000,
            producer_epoch: 3,
            last_sequence: 41,
            last_timestamp: 1_700_000_000_000,
            coordinator_epoch: Some(7),
            current_transaction_start_offset: Some(120),
        }
    );
    assert_eq!(
        (
            ps[1].coordinator_epoch,
            ps[1].current_transaction_start_offset
        ),
        (None, None)
    );
    let brokers: Vec<i32> = m.seen(61).iter().map(|s| s.broker).collect();
    assert_eq!(brokers.len(), 3);
    assert_eq!(brokers.iter().filter(|b| **b == 1).count(), 2);
    done(&m);
}

#[test]
fn transactions_listed_on_every_broker_and_described_at_the_coordinator() {
    let m = Mock::new(2, &[(66, 0, 1), (65, 0, 0)]);
    m.step(LIST_TRANSACTIONS_V1_BROKER1, on(1));
    m.step(LIST_TRANSACTIONS_V1_BROKER2, on(2));
    let a = m.admin();
    let l = a
        .list_transactions(&["Ongoing", "Bogus"], &[1000, 1002], Some(60_000), &opts())
        .unwrap();
    assert_eq!(l.iter().map(|b| b.broker_id).collect::<Vec<_>>(), [1, 2]);
    let txns = l[0].result.as_ref().unwrap();
    assert_eq!(
        txns.iter()
            .map(|t| (t.transactional_id.as_str(), t.producer_id, t.state.as_str()))
            .collect::<Vec<_>>(),
        [("txn-a", 1000, "Ongoing"), ("txn-b", 1002, "PrepareCommit")]
    );
    assert_eq!(l[0].unknown_state_filters, ["Bogus"]);
    assert_eq!(name(err(&l[1].result)), "COORDINATOR_NOT_AVAILABLE");
    let req = ListTransactionsRequest::from_bytes(&m.seen(66)[0].body, 1).unwrap();
    assert_eq!(req.state_filters, ["Ongoing", "Bogus"]);
    assert_eq!(req.producer_id_filters, [1000, 1002]);
    assert_eq!(req.duration_filter, 60_000);

    m.state.lock().unwrap().coordinator = 2;
    m.step_then(DESCRIBE_TRANSACTIONS_V0_NOT_COORDINATOR, on(2), |st| {
        st.coordinator = 1
    });
    m.step(DESCRIBE_TRANSACTIONS_V0, on(1));
    m.step(DESCRIBE_TRANSACTIONS_V0_UNKNOWN, with("txn-z"));
    let d = a
        .describe_transactions(&["txn-a", "txn-z"], &opts())
        .unwrap();
    let t = d[0].1.as_ref().unwrap();
    assert_eq!(t.coordinator_id, 1);
    assert_eq!(t.state, "Ongoing");
    assert_eq!(
        (t.producer_id, t.producer_epoch, t.transaction_timeout_ms),
        (1000, 3, 60_000)
    );
    assert_eq!(t.transaction_start_time_ms, 1_700_000_000_000);
    assert_eq!(
        t.partitions,
        [
            TopicPartition::new("t", 0),
            TopicPartition::new("t", 2),
            TopicPartition::new("u", 1)
        ]
    );
    assert_eq!(name(err(&d[1].1)), "TRANSACTIONAL_ID_NOT_FOUND");
    assert!(
        m.seen(10).len() >= 3,
        "coordinator looked up, and again after NOT_COORDINATOR"
    );
    done(&m);
}

#[test]
fn acls_describe_create_delete_with_pattern_types() {
    let m = Mock::new(1, &[(29, 0, 3), (30, 0, 3), (31, 0, 3)]);
    m.step(DESCRIBE_ACLS_V3, any);
    m.step(CREATE_ACLS_V3, any);
    m.step(DELETE_ACLS_V3, any);
    let a = m.admin();
    let acls = a.describe_acls(&AclBindingFilter::any(), &opts()).unwrap();
    assert_eq!(acls.len(), 3);
    assert_eq!(
        acls[1],
        AclBinding {
            resource_type: ResourceType::TOPIC,
            resource_name: "orders".into(),
            pattern_type: PatternType::LITERAL,
            principal: "User:bob".into(),
            host: "10.0.0.1".into(),
            operation: AclOperation::WRITE,
            permission_type: AclPermissionType::DENY,
        }
    );
    assert_eq!(
        (acls[2].resource_type, acls[2].pattern_type),
        (ResourceType::GROUP, PatternType::PREFIXED)
    );
    let b = acls[0].clone();
    let r = a
        .create_acls(&[b.clone(), acls[2].clone()], &opts())
        .unwrap();
    assert!(r[0].is_ok());
    assert_eq!(name(err(&r[1])), "INVALID_REQUEST");
    let mut f = AclBindingFilter::any();
    f.resource_name = Some("orders".into());
    let d = a
        .delete_acls(&[f, AclBindingFilter::any()], &opts())
        .unwrap();
    let matched = d[0].result.as_ref().unwrap();
    assert_eq!(matched[0].0, b);
    assert!(matched[0].1.is_ok());
    assert_eq!(name(err(&matched[1].1)), "UNKNOWN_SERVER_ERROR");
    assert_eq!(name(err(&d[1].result)), "CLUSTER_AUTHORIZATION_FAILED");
    done(&m);

    // v0 brokers know only literal names
    let m = Mock::new(1, &[(29, 0, 0), (30, 0, 0)]);
    let a = m.admin();
    let mut prefixed = b;
    prefixed.pattern_type = PatternType::PREFIXED;
    assert_eq!(
        a.create_acls(&[prefixed], &opts()).unwrap_err().code(),
        local::UNSUPPORTED_FEATURE
    );
    let mut f = AclBindingFilter::any();
    f.pattern_type = PatternType::MATCH;
    assert_eq!(
        a.describe_acls(&f, &opts()).unwrap_err().code(),
        local::UNSUPPORTED_FEATURE
    );
}

#[test]
fn list_offsets_max_timestamp_and_v0() {
    let m = Mock::new(1, &[(2, 0, 8)]);
    m.topic("t", &[1, 1]);
    m.step(LIST_OFFSETS_V8, any);
    let r = m
        .admin()
        .list_offsets(
            &[
                (TopicPartition::new("t", 0), OffsetSpec::MaxTimestamp),
                (TopicPartition::new("t", 1), OffsetSpec::Latest),
            ],
            true,
            &opts(),
        )
        .unwrap();
    assert_eq!(
        *r[0].result.as_ref().unwrap(),
        ListOffsetsInfo {
            offset: 42,
            timestamp: 1_700_000_005_000,
            leader_epoch: Some(5)
        }
    );
    assert_eq!(r[1].result.as_ref().unwrap().offset, 7);
    let req = ListOffsetsRequest::from_bytes(&m.seen(2)[0].body, 8).unwrap();
    assert_eq!(req.isolation_level, 1);
    let ts: Vec<i64> = req.topics[0]
        .partitions
        .iter()
        .map(|p| p.timestamp)
        .collect();
    assert_eq!(ts, [-3, -1]);
    done(&m);

    let m = Mock::new(1, &[(2, 0, 0)]);
    m.topic("t", &[1, 1]);
    m.step(LIST_OFFSETS_V0, any);
    let r = m
        .admin()
        .list_offsets(
            &[
                (TopicPartition::new("t", 0), OffsetSpec::Earliest),
                (TopicPartition::new("t", 1), OffsetSpec::MaxTimestamp),
            ],
            false,
            &opts(),
        )
        .unwrap();
    assert_eq!(r[0].result.as_ref().unwrap().offset, 17);
    assert_eq!(err(&r[1].result).code(), local::UNSUPPORTED_FEATURE);
    done(&m);
}

#[test]
fn describe_cluster_with_racks_and_operations_or_from_metadata() {
    let m = Mock::new(2, &[(60, 0, 1)]);
    m.step(DESCRIBE_CLUSTER_V1, any);
    let d = m.admin().describe_cluster(true, &opts()).unwrap();
    assert_eq!(d.cluster_id.as_deref(), Some("bytes-cluster"));
    assert_eq!(d.controller_id, 2);
    let racks: Vec<_> = d
        .brokers
        .iter()
        .map(|b| (b.id, b.host.as_str(), b.port, b.rack.as_deref()))
        .collect();
    assert_eq!(
        racks,
        [
            (1, "h1", 9092, Some("rack-a")),
            (2, "h2", 9093, Some("rack-b"))
        ]
    );
    assert_eq!(d.controller().unwrap().host, "h2");
    assert_eq!(
        d.authorized_operations,
        Some(vec![
            AclOperation::ALTER,
            AclOperation::DESCRIBE,
            AclOperation::DESCRIBE_CONFIGS
        ])
    );
    done(&m);

    // without DescribeCluster: from Metadata
    let m = Mock::new(2, &[]);
    let d = m.admin().describe_cluster(false, &opts()).unwrap();
    assert_eq!(d.cluster_id.as_deref(), Some("mock-cluster"));
    assert_eq!(d.controller_id, 1);
    assert_eq!(d.brokers.iter().map(|b| b.id).collect::<Vec<_>>(), [1, 2]);
}

#[test]
fn describe_topics_with_authorized_operations() {
    let m = Mock::new(1, &[]);
    m.step(METADATA_V12_TOPIC_OPS, with("secured"));
    let r = m
        .admin()
        .describe_topics(&["secured"], true, &opts())
        .unwrap();
    let d = r[0].result.as_ref().unwrap();
    assert_eq!(
        d.topic_id,
        Uuid::parse("00112233-4455-6677-8899-aabbccddeeff").unwrap()
    );
    assert_eq!(
        d.authorized_operations,
        Some(vec![
            AclOperation::READ,
            AclOperation::WRITE,
            AclOperation::DESCRIBE
        ])
    );
    let p = &d.partitions[0];
    assert_eq!(
        (p.leader, p.leader_epoch, p.offline_replicas.clone()),
        (1, 4, vec![2])
    );
    done(&m);
}

#[test]
fn a_malformed_response_is_a_typed_error_not_a_panic() {
    let m = Mock::new(1, &[(37, 0, 3), (35, 0, 4)]);
    let (k, v, hex) = CREATE_PARTITIONS_V3_FIRST;
    let cut: &'static str = Box::leak(hex[..hex.len() - 6].to_string().into_boxed_str());
    m.step((k, v, cut), any);
    let e = m
        .admin()
        .create_partitions(&[NewPartitions::increase_to("a", 3)], &opts())
        .unwrap_err();
    assert_eq!(e.code(), local::BAD_MSG, "{e}");
    assert!(
        e.to_string().contains("CreatePartitions"),
        "names the API: {e}"
    );

    // per broker: one broker's garbage does not lose the others' answers
    let m = Mock::new(2, &[(35, 0, 4)]);
    m.step(DESCRIBE_LOG_DIRS_V4_BROKER1, on(1));
    m.step((35, 4, "00"), on(2));
    let r = m.admin().describe_log_dirs(None, &opts()).unwrap();
    assert!(r[0].result.is_ok());
    assert_eq!(err(&r[1].result).code(), local::BAD_MSG);
}
