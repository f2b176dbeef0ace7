//! Group inspection and group offsets from the admin side (KAFKA-2687):
//! `AdminClient::{list_groups, describe_groups, delete_groups,
//! list_group_offsets, alter_group_offsets, delete_group_offsets}`.
//!
//! - Against scripted brokers (tests/admin_mock) answering with bodies
//!   kafka-python generated (tests/group_fixtures, scripts/group_fixtures.py),
//!   whose member metadata and assignments are kafka-python's consumer
//!   protocol classes: what the test broker cannot show (it returns members
//!   with empty client id, host, metadata and assignment, and has no
//!   OffsetDelete).
//! - The C API's accessors for decoded members, on the same bytes.
//! - Against the real broker: a mixed group of a confluent-kafka
//!   (librdkafka) consumer and a kafka-python consumer, kept alive by a
//!   Python script while it is listed and described; offsets set here and
//!   read back by confluent-kafka; groups deleted; OffsetDelete's typed error.

mod admin_fixtures;
mod admin_mock;
mod common;
mod group_fixtures;

use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

use admin_mock::{any, on, unhex, Mock};
use gregor::admin::*;
use gregor::error::{local, Error};
use gregor::protocol::describe_groups::DescribeGroupsRequest;
use gregor::protocol::list_groups::ListGroupsRequest;
use gregor::protocol::offset_delete::OffsetDeleteRequest;
use gregor::protocol::offset_fetch::OffsetFetchRequest;
use gregor::protocol::{KafkaCode, Message};
use group_fixtures::*;

fn opts() -> AdminOptions {
    AdminOptions::with_timeout(Duration::from_secs(10))
}

fn name(e: &Error) -> &'static str {
    e.kafka_code().map_or("LOCAL", |c| c.name())
}

fn done(m: &Mock) {
    let (left, unexpected) = m.leftovers();
    assert_eq!(left, 0, "scripted steps not used");
    assert!(unexpected.is_empty(), "unexpected requests: {unexpected:?}");
}

fn tp(t: &str, p: i32) -> TopicPartition {
    TopicPartition::new(t, p)
}

// ----- scripted brokers: kafka-python's bytes -----

#[test]
fn describe_groups_decodes_what_java_and_librdkafka_members_write() {
    let m = Mock::new(1, &[(15, 0, 5)]);
    m.step(DESCRIBE_GROUPS_V5, any);
    let r = m
        .admin()
        .describe_groups(&["mixed", "connectors", "secret"], true, &opts())
        .unwrap();
    assert_eq!(
        r.iter().map(|x| x.0.as_str()).collect::<Vec<_>>(),
        ["mixed", "connectors", "secret"]
    );

    let g = r[0].1.as_ref().unwrap();
    assert_eq!(
        (
            g.state.as_str(),
            g.protocol_type.as_str(),
            g.protocol.as_str()
        ),
        ("Stable", "consumer", "range")
    );
    assert_eq!(
        g.authorized_operations.as_deref(),
        Some(&[AclOperation::READ, AclOperation::DESCRIBE][..])
    );
    assert_eq!(g.coordinator.id, 1);
    assert_eq!(
        format!("127.0.0.1:{}", g.coordinator.port),
        m.brokers[0].1,
        "the coordinator's address"
    );
    assert_eq!(g.members.len(), 3);

    // a Java 3.x member: subscription v3 with owned partitions, generation, rack
    let java = &g.members[0];
    assert_eq!(java.member_id, "java-1");
    assert_eq!(java.group_instance_id.as_deref(), Some("static-a"));
    assert_eq!(
        (java.client_id.as_str(), java.client_host.as_str()),
        ("java-client", "/10.0.0.1")
    );
    assert_eq!(java.metadata, unhex(JAVA_SUB));
    assert_eq!(java.assignment_bytes, unhex(JAVA_ASG));
    let s = java.subscription.as_ref().unwrap().as_ref().unwrap();
    assert_eq!(
        *s,
        MemberSubscription {
            version: 3,
            topics: vec!["orders".into(), "payments".into()],
            user_data: None,
            owned_partitions: vec![tp("orders", 0)],
            generation_id: Some(5),
            rack_id: Some("rack-a".into()),
        }
    );
    let a = java.assignment.as_ref().unwrap().as_ref().unwrap();
    assert_eq!(a.version, 3);
    assert_eq!(
        a.partitions,
        [tp("orders", 0), tp("orders", 1), tp("payments", 2)]
    );
    assert_eq!(a.user_data, None);

    // a librdkafka-style member: subscription v1 with user data, assignment v0
    let rdk = &g.members[1];
    assert_eq!(rdk.group_instance_id, None);
    let s = rdk.subscription.as_ref().unwrap().as_ref().unwrap();
    assert_eq!(
        (s.version, &s.topics[..], s.user_data.as_deref()),
        (1, &["orders".to_string()][..], Some(&[0u8, 1][..]))
    );
    assert!(s.owned_partitions.is_empty());
    assert_eq!((s.generation_id, s.rack_id.as_deref()), (None, None));
    let a = rdk.assignment.as_ref().unwrap().as_ref().unwrap();
    assert_eq!(
        (a.version, &a.partitions[..], a.user_data.as_deref()),
        (0, &[tp("orders", 2)][..], Some(&b"ud"[..]))
    );

    // garbage metadata: an error for that member, naming it; its assignment
    // and the other members still decode
    let broken = &g.members[2];
    let e = broken.subscription.as_ref().unwrap().as_ref().unwrap_err();
    assert_eq!(e.code(), local::BAD_MSG);
    let t = e.to_string();
    assert!(
        t.contains("member broken-1") && t.contains("subscription") && t.contains("mixed"),
        "{t}"
    );
    assert_eq!(
        broken
            .assignment
            .as_ref()
            .unwrap()
            .as_ref()
            .unwrap()
            .partitions
            .len(),
        3
    );

    // not the consumer protocol: bytes left raw
    let c = r[1].1.as_ref().unwrap();
    assert_eq!(c.protocol_type, "connect");
    assert_eq!(c.members[0].metadata, b"\x00\x01url");
    assert_eq!(c.members[0].assignment_bytes, b"\x00\x01x");
    assert!(c.members[0].subscription.is_none() && c.members[0].assignment.is_none());
    assert_eq!(
        c.authorized_operations.as_deref(),
        Some(&[AclOperation::DESCRIBE][..])
    );

    let e = r[2].1.as_ref().unwrap_err();
    assert_eq!(name(e), "GROUP_AUTHORIZATION_FAILED");
    assert!(e.to_string().contains("secret"), "{e}");

    // one request for the coordinator's three groups
    let seen = m.seen(15);
    assert_eq!(seen.len(), 1);
    let req = DescribeGroupsRequest::from_bytes(&seen[0].body, 5).unwrap();
    assert_eq!(req.groups, ["mixed", "connectors", "secret"]);
    assert!(req.include_authorized_operations);
    done(&m);
}

#[test]
fn describe_groups_v0_and_a_group_between_generations() {
    let m = Mock::new(1, &[(15, 0, 0)]);
    m.step(DESCRIBE_GROUPS_V0, any);
    // authorized operations cannot be asked of v0: not asked, not refused
    let r = m
        .admin()
        .describe_groups(&["old", "rebalancing"], true, &opts())
        .unwrap();
    let old = r[0].1.as_ref().unwrap();
    assert_eq!(old.authorized_operations, None);
    let s = old.members[0]
        .subscription
        .as_ref()
        .unwrap()
        .as_ref()
        .unwrap();
    assert_eq!((s.version, &s.topics[..]), (0, &["legacy".to_string()][..]));
    let a = old.members[0]
        .assignment
        .as_ref()
        .unwrap()
        .as_ref()
        .unwrap();
    assert_eq!(a.partitions.len(), 3);
    // while rebalancing the coordinator sends no member bytes: nothing to decode
    let reb = r[1].1.as_ref().unwrap();
    assert_eq!(reb.state, "PreparingRebalance");
    assert!(reb.members[0].subscription.is_none() && reb.members[0].assignment.is_none());
    done(&m);
}

#[test]
fn describe_groups_follows_a_moved_coordinator() {
    let m = Mock::new(2, &[(15, 0, 3)]);
    m.step_then(DESCRIBE_GROUPS_V3_NOT_COORDINATOR, on(1), |st| {
        st.coordinator = 2
    });
    m.step(DESCRIBE_GROUPS_V3_MOVED, on(2));
    let r = m
        .admin()
        .describe_groups(&["moving"], true, &opts())
        .unwrap();
    let g = r[0].1.as_ref().unwrap();
    assert_eq!((g.state.as_str(), g.coordinator.id), ("Empty", 2));
    assert_eq!(
        g.authorized_operations.as_deref(),
        Some(
            &[
                AclOperation::READ,
                AclOperation::DELETE,
                AclOperation::DESCRIBE
            ][..]
        )
    );
    let seen = m.seen(15);
    assert_eq!(seen.iter().map(|s| s.broker).collect::<Vec<_>>(), [1, 2]);
    assert!(m.seen(10).len() >= 2, "the coordinator was looked up again");
    done(&m);
}

#[test]
fn coordinators_are_found_one_group_at_a_time_before_find_coordinator_v4() {
    let m = Mock::new(1, &[(10, 0, 3), (15, 0, 5)]);
    m.step(DESCRIBE_GROUPS_V5, any);
    let r = m
        .admin()
        .describe_groups(&["mixed", "connectors"], false, &opts())
        .unwrap();
    assert!(r.iter().all(|x| x.1.is_ok()), "{r:?}");
    // no authorized operations asked: none reported, though the broker sent some
    assert_eq!(r[0].1.as_ref().unwrap().authorized_operations, None);
    let finds = m.seen(10);
    assert_eq!(finds.len(), 2, "one FindCoordinator v3 per group");
    assert!(finds.iter().all(|f| f.version == 3));
    assert_eq!(
        m.seen(15).len(),
        1,
        "one DescribeGroups for the coordinator"
    );
    done(&m);
}

#[test]
fn list_groups_asks_every_broker_and_keeps_errors_per_broker() {
    let m = Mock::new(2, &[(16, 0, 4)]);
    m.step(LIST_GROUPS_V4_BROKER1, on(1));
    m.step(LIST_GROUPS_V4_BROKER2_ERROR, on(2));
    let a = m.admin();
    let l = a.list_groups(&["Stable", "Empty"], &[], &opts()).unwrap();
    let got: Vec<_> = l
        .groups
        .iter()
        .map(|g| {
            (
                g.group_id.as_str(),
                g.state.as_deref(),
                g.is_simple_consumer_group(),
                g.coordinator_id,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("mixed", Some("Stable"), false, 1),
            ("offsets-only", Some("Empty"), true, 1)
        ]
    );
    assert_eq!(l.errors.len(), 1);
    assert_eq!(l.errors[0].0, 2);
    assert_eq!(name(&l.errors[0].1), "COORDINATOR_NOT_AVAILABLE");
    for s in m.seen(16) {
        let req = ListGroupsRequest::from_bytes(&s.body, 4).unwrap();
        assert_eq!(req.states_filter, ["Stable", "Empty"]);
    }

    // a type filter needs v5: each broker's error, nothing sent, the call still answers
    let l = a.list_groups(&[], &["classic"], &opts()).unwrap();
    assert!(l.groups.is_empty());
    assert_eq!(l.errors.len(), 2);
    assert!(l
        .errors
        .iter()
        .all(|(_, e)| e.code() == local::UNSUPPORTED_FEATURE));
    assert_eq!(m.seen(16).len(), 2);

    m.step(LIST_GROUPS_V4_BROKER1, on(1));
    m.step(LIST_GROUPS_V4_BROKER2, on(2));
    let l = a.list_groups(&[], &[], &opts()).unwrap();
    assert!(l.errors.is_empty());
    let ids: Vec<_> = l.groups.iter().map(|g| g.group_id.as_str()).collect();
    assert_eq!(ids, ["mixed", "offsets-only", "connectors"]);
    assert_eq!(l.groups[2].coordinator_id, 2);
    done(&m);
}

#[test]
fn delete_groups_errors_per_group() {
    let m = Mock::new(1, &[(42, 0, 2)]);
    m.step(DELETE_GROUPS_V2, any);
    let r = m
        .admin()
        .delete_groups(&["gone", "busy", "nobody"], &opts())
        .unwrap();
    assert!(r[0].1.is_ok());
    assert_eq!(name(r[1].1.as_ref().unwrap_err()), "NON_EMPTY_GROUP");
    assert_eq!(name(r[2].1.as_ref().unwrap_err()), "GROUP_ID_NOT_FOUND");
    done(&m);
}

#[test]
fn delete_group_offsets_on_kafka_python_bytes() {
    let m = Mock::new(1, &[(47, 0, 0)]);
    m.step(OFFSET_DELETE_V0, any);
    let a = m.admin();
    let r = a
        .delete_group_offsets("g", &[tp("orders", 0), tp("orders", 1)], &opts())
        .unwrap();
    assert!(r[0].result.is_ok());
    assert_eq!(
        name(r[1].result.as_ref().unwrap_err()),
        "GROUP_SUBSCRIBED_TO_TOPIC"
    );
    let req = OffsetDeleteRequest::from_bytes(&m.seen(47)[0].body, 0).unwrap();
    assert_eq!(req.group_id, "g");
    assert_eq!(req.topics[0].name, "orders");
    assert_eq!(req.topics[0].partitions.len(), 2);

    m.step(OFFSET_DELETE_V0_GROUP_NOT_FOUND, any);
    let e = a
        .delete_group_offsets("g", &[tp("orders", 0)], &opts())
        .unwrap_err();
    assert_eq!(name(&e), "GROUP_ID_NOT_FOUND");
    done(&m);
}

#[test]
fn list_group_offsets_single_group_form_with_leader_epochs() {
    let m = Mock::new(1, &[(9, 0, 5)]);
    // pending transactional offsets: asked again, as the Java client does
    m.step(OFFSET_FETCH_V5_UNSTABLE, any);
    m.step(OFFSET_FETCH_V5, any);
    let r = m
        .admin()
        .list_group_offsets(
            "g",
            Some(&[tp("orders", 0), tp("orders", 1)]),
            true,
            &opts(),
        )
        .unwrap();
    assert_eq!(r[0].partition, tp("orders", 0));
    assert_eq!(r[0].result.as_ref().unwrap().offset, -1);
    assert_eq!(
        *r[1].result.as_ref().unwrap(),
        OffsetAndMetadata {
            offset: 42,
            leader_epoch: Some(3),
            metadata: Some("m1".into())
        }
    );
    // v5 has no require_stable: not sent (as the Java client), not refused
    assert_eq!(m.seen(9).len(), 2);
    let req = OffsetFetchRequest::from_bytes(&m.seen(9)[1].body, 5).unwrap();
    assert_eq!(req.group_id, "g");
    assert_eq!(req.topics.unwrap()[0].partition_indexes, [0, 1]);
    done(&m);
}

#[test]
fn alter_group_offsets_is_an_admin_commit_and_follows_a_moved_coordinator() {
    let m = Mock::new(2, &[(8, 0, 8)]);
    m.step_then(OFFSET_COMMIT_V8_NOT_COORDINATOR, on(1), |st| {
        st.coordinator = 2
    });
    m.step(OFFSET_COMMIT_V8, on(2));
    let r = m
        .admin()
        .alter_group_offsets(
            "g",
            &[
                (
                    tp("orders", 0),
                    OffsetAndMetadata {
                        offset: 5,
                        leader_epoch: Some(3),
                        metadata: Some("note".into()),
                    },
                ),
                (tp("orders", 1), OffsetAndMetadata::new(9)),
            ],
            &opts(),
        )
        .unwrap();
    assert!(r[0].result.is_ok(), "{:?}", r[0]);
    assert_eq!(
        name(r[1].result.as_ref().unwrap_err()),
        "OFFSET_METADATA_TOO_LARGE"
    );
    let seen = m.seen(8);
    assert_eq!(seen.iter().map(|s| s.broker).collect::<Vec<_>>(), [1, 2]);
    // generation -1, no member, byte for byte as kafka-python encodes it
    for s in &seen {
        assert_eq!(s.body, unhex(OFFSET_COMMIT_V8_REQUEST.2));
    }
    done(&m);
}

// ----- the real broker -----

/// A mixed group: one confluent-kafka (librdkafka) consumer and one
/// kafka-python consumer, polled alternately; prints "ready <n>" once they
/// own every partition between them, then polls until stdin closes.
const MIXED_PY: &str = r#"
import sys, time, logging
from confluent_kafka import Consumer
from kafka import KafkaConsumer
b, g, t, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
rk = Consumer({'bootstrap.servers': b, 'group.id': g, 'client.id': 'rdkafka-member',
               'partition.assignment.strategy': 'range', 'session.timeout.ms': 30000})
rk.subscribe([t])
kp = KafkaConsumer(t, bootstrap_servers=b, group_id=g, client_id='kafka-python-member',
                   session_timeout_ms=30000)
import select, os
os.set_blocking(sys.stdin.fileno(), False)
ready = False
deadline = time.time() + 120
while True:
    rk.poll(0.1)
    kp.poll(timeout_ms=100)
    owned = len(rk.assignment()) + len(kp.assignment())
    if not ready and owned == n and rk.assignment() and kp.assignment():
        print('ready', owned, flush=True)
        ready = True
    r, _, _ = select.select([sys.stdin], [], [], 0)
    if r and sys.stdin.read() == '':
        break
    if time.time() > deadline:
        break
rk.close()
kp.close()
"#;

struct Members {
    child: Child,
    stdin: Option<ChildStdin>,
}

impl Drop for Members {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let until = Instant::now() + Duration::from_secs(20);
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_mixed_group(group: &str, topic: &str, partitions: i32) -> Members {
    let mut child = Command::new("python3")
        .arg("-c")
        .arg(MIXED_PY)
        .args([&common::broker(), group, topic, &partitions.to_string()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("python3 runs");
    let stdin = child.stdin.take();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let m = Members { child, stdin };
    assert!(
        line.starts_with("ready"),
        "the mixed group did not form: {line:?}"
    );
    m
}

fn live() -> AdminClient {
    AdminClient::new(&common::config(&[])).unwrap()
}

#[test]
fn a_live_mixed_group_of_librdkafka_and_kafka_python_is_listed_and_described() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("grp-mixed");
    common::create_topic(&topic, 2);
    let group = common::unique_topic("grp-mixed-g");
    let members = start_mixed_group(&group, &topic, 2);
    let a = live();

    let l = a.list_groups(&[], &[], &opts()).unwrap();
    assert!(l.errors.is_empty(), "{:?}", l.errors);
    let g = l
        .groups
        .iter()
        .find(|g| g.group_id == group)
        .unwrap_or_else(|| panic!("{group} not listed"));
    assert_eq!(g.protocol_type, "consumer");
    assert_eq!(g.state.as_deref(), Some("Stable"));
    assert!(!g.is_simple_consumer_group());
    // the state filter is applied by the broker (ListGroups v4+)
    let empty_only = a.list_groups(&["Empty"], &[], &opts()).unwrap();
    assert!(!empty_only.groups.iter().any(|x| x.group_id == group));

    let r = a.describe_groups(&[&group], true, &opts()).unwrap();
    let d = r[0].1.as_ref().unwrap();
    assert_eq!(d.group_id, group);
    assert_eq!(d.state, "Stable");
    assert_eq!(d.protocol_type, "consumer");
    // nisshi has ConsumerGroupDescribe v0 and answers a classic group with
    // group epoch -1 and no members (Kafka: GROUP_ID_NOT_FOUND); either
    // way describe_groups falls back to DescribeGroups, which has them
    assert_eq!(d.group_type, "classic");
    assert_eq!((d.group_epoch, d.assignment_epoch), (None, None));
    assert_eq!(d.members.len(), 2, "{:?}", d.members);
    assert!(d.members.iter().all(|m| m.consumer.is_none()));
    assert!(d.coordinator.id >= 0);
    assert_eq!(
        format!("{}:{}", d.coordinator.host, d.coordinator.port),
        common::broker()
    );
    // nisshi fills the member ID and nothing else of a member (client ID,
    // host, metadata and assignment come back empty; docs/TEST-SERVICES.md), so
    // there is nothing to decode: the scripted tests above decode them
    for m in &d.members {
        assert!(!m.member_id.is_empty());
        assert!(m.metadata.is_empty() && m.assignment_bytes.is_empty());
        assert!(m.subscription.is_none() && m.assignment.is_none());
    }
    // nisshi leaves the chosen protocol empty even when Stable (Kafka says
    // "range" here, the one both clients offer)
    assert!(
        d.protocol.is_empty() || d.protocol == "range",
        "{}",
        d.protocol
    );
    // it does answer authorized operations (DescribeGroups v3+)
    let ops = d.authorized_operations.as_ref().expect("asked for");
    assert!(ops.contains(&AclOperation::DESCRIBE), "{ops:?}");
    // the member IDs are the clients' own: librdkafka's start with its client.id
    assert!(
        d.members
            .iter()
            .any(|m| m.member_id.starts_with("rdkafka-member")),
        "{:?}",
        d.members
    );
    drop(members);
}

/// Reads a group's committed offsets with confluent-kafka (librdkafka's
/// OffsetFetch): prints "p:offset:metadata" per partition.
const COMMITTED_PY: &str = r#"
import sys
from confluent_kafka import Consumer, TopicPartition
b, g, t, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
c = Consumer({'bootstrap.servers': b, 'group.id': g, 'enable.auto.commit': False})
for tp in c.committed([TopicPartition(t, p) for p in range(n)], timeout=15):
    print('%d:%d:%s' % (tp.partition, tp.offset, tp.metadata or ''))
c.close()
"#;

fn python(script: &str, args: &[&str]) -> String {
    let out = Command::new("python3")
        .arg("-c")
        .arg(script)
        .args(args)
        .output()
        .expect("python3 runs");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "python failed: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

#[test]
fn live_group_offsets_round_trip_and_groups_are_deleted() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("grp-offsets");
    common::create_topic(&topic, 3);
    let group = common::unique_topic("grp-offsets-g");
    let a = live();

    let set = [
        (
            tp(&topic, 0),
            OffsetAndMetadata {
                offset: 5,
                leader_epoch: None,
                metadata: Some("from-gregor".into()),
            },
        ),
        (tp(&topic, 2), OffsetAndMetadata::new(11)),
    ];
    let r = a.alter_group_offsets(&group, &set, &opts()).unwrap();
    assert_eq!(r.len(), 2);
    for x in &r {
        assert!(x.result.is_ok(), "{x:?}");
    }

    // all of the group's offsets
    let all = a.list_group_offsets(&group, None, true, &opts()).unwrap();
    let got: Vec<_> = all
        .iter()
        .map(|x| {
            let o = x.result.as_ref().unwrap();
            (
                x.partition.partition,
                o.offset,
                o.leader_epoch,
                o.metadata.clone(),
            )
        })
        .collect();
    // nisshi keeps the offsets but drops the metadata and leader epoch
    // (librdkafka reads them back as None too); the scripted tests show both
    // carried each way
    assert_eq!(got, [(0, 5, None, None), (2, 11, None, None)]);
    // named partitions, in the order asked; none committed is -1
    let some = a
        .list_group_offsets(
            &group,
            Some(&[tp(&topic, 2), tp(&topic, 1)]),
            false,
            &opts(),
        )
        .unwrap();
    assert_eq!(some[0].partition, tp(&topic, 2));
    assert_eq!(some[0].result.as_ref().unwrap().offset, 11);
    assert_eq!(some[1].result.as_ref().unwrap().offset, -1);

    // librdkafka reads the same
    let seen = python(COMMITTED_PY, &[&common::broker(), &group, &topic, "3"]);
    assert_eq!(
        seen.lines().collect::<Vec<_>>(),
        ["0:5:", "1:-1001:", "2:11:"]
    );

    // bad input is refused before anything is sent
    let e = a
        .alter_group_offsets(
            &group,
            &[(tp(&topic, 0), OffsetAndMetadata::new(-3))],
            &opts(),
        )
        .unwrap_err();
    assert_eq!(e.code(), local::INVALID_ARG);

    // OffsetDelete: the broker does not speak it, a typed local error
    let e = a
        .delete_group_offsets(&group, &[tp(&topic, 0)], &opts())
        .unwrap_err();
    assert_eq!(e.code(), local::UNSUPPORTED_FEATURE, "{e}");
    assert!(e.to_string().contains("OffsetDelete"), "{e}");

    // the group has no members: it can be deleted, then it is not listed
    let listed = |a: &AdminClient| {
        a.list_groups(&[], &[], &opts())
            .unwrap()
            .groups
            .iter()
            .any(|g| g.group_id == group)
    };
    let before = listed(&a);
    let r = a.delete_groups(&[&group], &opts()).unwrap();
    assert!(r[0].1.is_ok(), "{:?}", r[0]);
    assert!(
        !listed(&a),
        "{group} still listed (listed before: {before})"
    );
    let after = a.list_group_offsets(&group, None, false, &opts()).unwrap();
    assert!(after.is_empty(), "{after:?}");
}

#[test]
fn live_errors_for_unknown_and_busy_groups() {
    if !common::broker_up() {
        return;
    }
    let a = live();
    let unknown = common::unique_topic("grp-nobody");
    // Kafka answers GROUP_ID_NOT_FOUND; nisshi deletes nothing and says so
    // with success
    let r = a.delete_groups(&[&unknown], &opts()).unwrap();
    match &r[0].1 {
        Ok(()) => {}
        Err(e) => assert_eq!(name(e), "GROUP_ID_NOT_FOUND"),
    }

    let d = a.describe_groups(&[&unknown], false, &opts()).unwrap();
    match &d[0].1 {
        // Kafka answers an unknown group as Dead with no members; nisshi
        // with GROUP_ID_NOT_FOUND
        Ok(g) => assert_eq!((g.state.as_str(), g.members.len()), ("Dead", 0)),
        Err(e) => assert_eq!(name(e), "GROUP_ID_NOT_FOUND"),
    }
    assert_eq!(
        a.describe_groups(&[""], false, &opts()).unwrap_err().code(),
        local::INVALID_ARG
    );

    // a group with live members cannot be deleted, nor its offsets set by an admin
    let topic = common::unique_topic("grp-busy");
    common::create_topic(&topic, 2);
    let group = common::unique_topic("grp-busy-g");
    let members = start_mixed_group(&group, &topic, 2);
    let r = a.delete_groups(&[&group], &opts()).unwrap();
    assert_eq!(name(r[0].1.as_ref().unwrap_err()), "NON_EMPTY_GROUP");
    let r = a
        .alter_group_offsets(
            &group,
            &[(tp(&topic, 0), OffsetAndMetadata::new(1))],
            &opts(),
        )
        .unwrap();
    let e = r[0].result.as_ref().unwrap_err();
    assert!(
        matches!(
            e.kafka_code(),
            Some(KafkaCode::UNKNOWN_MEMBER_ID)
                | Some(KafkaCode::ILLEGAL_GENERATION)
                | Some(KafkaCode::REBALANCE_IN_PROGRESS)
        ),
        "{e}"
    );
    drop(members);
}

// ----- the CLI: `gregor admin groups …` -----

/// Runs `gregor admin args…`: (exit code, stdout, stderr).
fn cli(args: &[&str]) -> (i32, String, String) {
    let args: Vec<&str> = ["admin"].iter().chain(args).copied().collect();
    let (rc, out, err) = common::run_gregor(&args);
    (
        rc,
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    )
}

fn cli_json(args: &[&str]) -> (i32, serde_json::Value) {
    let mut a = args.to_vec();
    a.push("-J");
    let (rc, out, err) = cli(&a);
    let v = serde_json::from_str(out.trim())
        .unwrap_or_else(|e| panic!("not JSON ({e}): {out:?} / stderr {err:?}"));
    (rc, v)
}

#[test]
fn cli_groups_describe_shows_decoded_members() {
    let m = Mock::new(1, &[(15, 0, 5)]);
    m.step(DESCRIBE_GROUPS_V5, any);
    m.step(DESCRIBE_GROUPS_V5, any);
    let b = m.brokers[0].1.clone();
    let (rc, out, _) = cli(&["groups", "describe", "mixed", "connectors", "-b", &b]);
    // the broken member's metadata is a failure: exit 1
    assert_eq!(rc, 1, "{out}");
    assert!(
        out.contains("group mixed: state Stable, protocol type consumer, protocol range"),
        "{out}"
    );
    assert!(
        out.contains(
            "subscription v3: topics orders,payments; owned [orders:0]; generation 5; rack rack-a"
        ),
        "{out}"
    );
    assert!(
        out.contains("assignment v3: [orders:0,orders:1,payments:2]"),
        "{out}"
    );
    assert!(out.contains("subscription: error _BAD_MSG"), "{out}");

    let (rc, v) = cli_json(&[
        "groups",
        "describe",
        "mixed",
        "connectors",
        "-b",
        &b,
        "--include-authorized-operations",
    ]);
    assert_eq!(rc, 1);
    let g = &v["groups"][0];
    assert_eq!(
        g["authorized_operations"],
        serde_json::json!(["READ", "DESCRIBE"])
    );
    let java = &g["members"][0];
    assert_eq!(java["group_instance_id"], "static-a");
    assert_eq!(java["subscription"]["rack_id"], "rack-a");
    assert_eq!(
        java["subscription"]["owned_partitions"][0]["topic"],
        "orders"
    );
    assert_eq!(java["assignment"]["partitions"][2]["partition"], 2);
    assert_eq!(java["metadata_hex"], JAVA_SUB);
    assert_eq!(g["members"][1]["assignment"]["user_data_hex"], "7564");
    let broken = &g["members"][2];
    assert!(broken["subscription"].is_null());
    assert_eq!(broken["subscription_error"]["name"], "_BAD_MSG");
    let c = &v["groups"][1];
    assert_eq!(c["members"][0]["metadata_hex"], "000175726c");
    assert!(c["members"][0]["subscription"].is_null());
    assert!(c["members"][0]["subscription_error"].is_null());
    done(&m);
}

#[test]
fn cli_groups_list_reports_a_failing_broker() {
    let m = Mock::new(2, &[(16, 0, 4)]);
    m.step(LIST_GROUPS_V4_BROKER1, on(1));
    m.step(LIST_GROUPS_V4_BROKER2_ERROR, on(2));
    let b = m.brokers[0].1.clone();
    let (rc, v) = cli_json(&["groups", "list", "-b", &b, "--state", "Stable"]);
    assert_eq!(rc, 1);
    assert_eq!(v["groups"][0]["group_id"], "mixed");
    assert_eq!(v["groups"][1]["is_simple_consumer_group"], true);
    assert_eq!(v["errors"][0]["broker"], 2);
    assert_eq!(v["errors"][0]["error"]["name"], "COORDINATOR_NOT_AVAILABLE");
    done(&m);
}

#[test]
fn cli_groups_usage_errors_exit_2() {
    for args in [
        &["groups", "-b", "x:1"][..],
        &["groups", "frob", "-b", "x:1"],
        &["groups", "offsets", "-b", "x:1"],
        &["groups", "describe", "-b", "x:1"],
        &["groups", "offsets", "alter", "g", "t:0", "-b", "x:1"],
        &["groups", "offsets", "delete", "g", "-b", "x:1"],
        &["groups", "delete", "g", "--bogus", "-b", "x:1"],
    ] {
        let (rc, _, err) = cli(args);
        assert_eq!(rc, 2, "{args:?}: {err}");
        assert!(!err.is_empty());
    }
    let (rc, out, _) = cli(&["--help"]);
    assert_eq!(rc, 0);
    assert!(out.contains("groups offsets alter"));
}

#[test]
fn cli_groups_against_the_broker() {
    if !common::broker_up() {
        return;
    }
    let topic = common::unique_topic("grp-cli");
    common::create_topic(&topic, 2);
    let group = common::unique_topic("grp-cli-g");
    let b = common::broker();
    let t0 = format!("{topic}:0=4");
    let t1 = format!("{topic}:1=9");
    let (rc, out, err) = cli(&["groups", "offsets", "alter", &group, &t0, &t1, "-b", &b]);
    assert_eq!(rc, 0, "{out}{err}");
    assert!(out.contains("committed"), "{out}");

    // a bare topic: every partition of it
    let (rc, v) = cli_json(&["groups", "offsets", "list", &group, &topic, "-b", &b]);
    assert_eq!(rc, 0, "{v}");
    assert_eq!(v["group_id"], group.as_str());
    let offs: Vec<_> = v["partitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["partition"].as_i64().unwrap(),
                p["offset"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(offs, [(0, 4), (1, 9)]);
    let one = format!("{topic}:1");
    let (rc, out, _) = cli(&["groups", "offsets", "list", &group, &one, "-b", &b]);
    assert_eq!(rc, 0);
    assert_eq!(out.trim(), format!("{topic} [1]: offset 9"));

    let (rc, v) = cli_json(&["groups", "list", "-b", &b]);
    assert_eq!(rc, 0, "{v}");
    assert!(v["groups"]
        .as_array()
        .unwrap()
        .iter()
        .any(|g| g["group_id"] == group.as_str()));

    let (rc, out, err) = cli(&["groups", "offsets", "delete", &group, &one, "-b", &b]);
    assert_eq!(rc, 1);
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("_UNSUPPORTED_FEATURE") && err.contains("OffsetDelete"),
        "{err}"
    );

    let (rc, out, _) = cli(&["groups", "delete", &group, "-b", &b]);
    assert_eq!(rc, 0, "{out}");
    assert_eq!(out.trim(), format!("group {group}: deleted"));
    let (_, v) = cli_json(&["groups", "list", "-b", &b]);
    assert!(!v["groups"]
        .as_array()
        .unwrap()
        .iter()
        .any(|g| g["group_id"] == group.as_str()));
}

// ----- the C API on the scripted bytes: decoded members through the accessors -----

#[allow(unsafe_code)]
fn cstr(p: *const std::ffi::c_char) -> Option<String> {
    if p.is_null() {
        None
    } else {
        // SAFETY: gregor returns NUL-terminated strings valid until the result is freed
        Some(
            unsafe { std::ffi::CStr::from_ptr(p) }
                .to_str()
                .unwrap()
                .to_string(),
        )
    }
}

#[allow(unsafe_code)]
fn bytes(sl: gregor::ffi::gregor_slice) -> Option<Vec<u8>> {
    if sl.ptr.is_null() {
        None
    } else {
        // SAFETY: a borrowed view valid until the result is freed
        Some(unsafe { std::slice::from_raw_parts(sl.ptr, sl.len) }.to_vec())
    }
}

#[test]
fn c_api_reads_decoded_members() {
    use gregor::ffi::*;
    use std::ffi::CString;
    let m = Mock::new(1, &[(15, 0, 5)]);
    m.step(DESCRIBE_GROUPS_V5, any);
    let conf = gregor_config_new();
    let mut err = [0 as std::ffi::c_char; 512];
    let (k, v) = (
        CString::new("bootstrap.servers").unwrap(),
        CString::new(m.brokers[0].1.as_str()).unwrap(),
    );
    assert_eq!(
        gregor_config_set(conf, k.as_ptr(), v.as_ptr(), err.as_mut_ptr(), 512),
        0
    );
    let admin = gregor_admin_new(conf, err.as_mut_ptr(), 512);
    assert!(!admin.is_null());
    gregor_config_free(conf);

    let names: Vec<CString> = ["mixed", "connectors", "secret"]
        .iter()
        .map(|n| CString::new(*n).unwrap())
        .collect();
    let ptrs: Vec<*const std::ffi::c_char> = names.iter().map(|n| n.as_ptr()).collect();
    let mut d = std::ptr::null_mut();
    let rc = gregor_admin_describe_groups(
        admin,
        ptrs.as_ptr(),
        3,
        1,
        std::ptr::null(),
        &mut d,
        err.as_mut_ptr(),
        512,
    );
    assert_eq!(rc, 0, "{:?}", cstr(err.as_ptr()));
    assert_eq!(gregor_group_descriptions_count(d), 3);
    assert_eq!(
        cstr(gregor_group_descriptions_protocol(d, 0)).unwrap(),
        "range"
    );
    let mut ops = [0i32; 8];
    assert_eq!(
        gregor_group_descriptions_authorized_operations(d, 0, ops.as_mut_ptr(), 8),
        2
    );
    assert_eq!(&ops[..2], [3, 8]);
    assert_eq!(gregor_group_descriptions_member_count(d, 0), 3);

    // the Java member
    assert_eq!(
        cstr(gregor_group_descriptions_member_group_instance_id(d, 0, 0)).unwrap(),
        "static-a"
    );
    assert_eq!(
        cstr(gregor_group_descriptions_member_client_host(d, 0, 0)).unwrap(),
        "/10.0.0.1"
    );
    assert_eq!(
        bytes(gregor_group_descriptions_member_metadata(d, 0, 0)).unwrap(),
        unhex(JAVA_SUB)
    );
    assert_eq!(
        gregor_group_descriptions_member_subscription_version(d, 0, 0),
        3
    );
    assert_eq!(
        gregor_group_descriptions_member_subscription_topic_count(d, 0, 0),
        2
    );
    assert_eq!(
        cstr(gregor_group_descriptions_member_subscription_topic(
            d, 0, 0, 1
        ))
        .unwrap(),
        "payments"
    );
    assert_eq!(gregor_group_descriptions_member_owned_count(d, 0, 0), 1);
    let (mut t, mut p) = (std::ptr::null(), -1);
    assert_eq!(
        gregor_group_descriptions_member_owned(d, 0, 0, 0, &mut t, &mut p),
        0
    );
    assert_eq!((cstr(t).unwrap().as_str(), p), ("orders", 0));
    assert_eq!(gregor_group_descriptions_member_generation_id(d, 0, 0), 5);
    assert_eq!(
        cstr(gregor_group_descriptions_member_rack_id(d, 0, 0)).unwrap(),
        "rack-a"
    );
    assert_eq!(
        bytes(gregor_group_descriptions_member_subscription_user_data(
            d, 0, 0
        )),
        None
    );
    assert_eq!(
        gregor_group_descriptions_member_assignment_version(d, 0, 0),
        3
    );
    assert_eq!(
        gregor_group_descriptions_member_assignment_count(d, 0, 0),
        3
    );
    assert_eq!(
        gregor_group_descriptions_member_assignment_partition(d, 0, 0, 2, &mut t, &mut p),
        0
    );
    assert_eq!((cstr(t).unwrap().as_str(), p), ("payments", 2));

    // the librdkafka-style member's user data
    assert_eq!(
        bytes(gregor_group_descriptions_member_subscription_user_data(
            d, 0, 1
        ))
        .unwrap(),
        [0, 1]
    );
    assert_eq!(
        bytes(gregor_group_descriptions_member_assignment_user_data(
            d, 0, 1
        ))
        .unwrap(),
        b"ud"
    );
    assert_eq!(
        gregor_group_descriptions_member_group_instance_id(d, 0, 1),
        std::ptr::null()
    );

    // the broken member: its own error, the assignment still there
    assert_eq!(
        gregor_group_descriptions_member_subscription_err(d, 0, 2),
        gregor::error::local::BAD_MSG
    );
    assert!(cstr(gregor_group_descriptions_member_subscription_errstr(
        d, 0, 2
    ))
    .unwrap()
    .contains("broken-1"));
    assert_eq!(
        gregor_group_descriptions_member_subscription_version(d, 0, 2),
        -1
    );
    assert_eq!(gregor_group_descriptions_member_assignment_err(d, 0, 2), 0);
    assert_eq!(
        gregor_group_descriptions_member_assignment_count(d, 0, 2),
        3
    );

    // the connect group: raw bytes, nothing decoded
    assert_eq!(
        bytes(gregor_group_descriptions_member_metadata(d, 1, 0)).unwrap(),
        b"\x00\x01url"
    );
    assert_eq!(
        gregor_group_descriptions_member_subscription_version(d, 1, 0),
        -1
    );
    assert_eq!(
        gregor_group_descriptions_member_subscription_err(d, 1, 0),
        0
    );

    assert_eq!(
        gregor_group_descriptions_err(d, 2),
        KafkaCode::GROUP_AUTHORIZATION_FAILED.0 as i32
    );
    gregor_group_descriptions_free(d);
    gregor_admin_free(admin);
    done(&m);
}
