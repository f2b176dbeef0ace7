//! `gregor admin …` (the `gregor` binary, run as a child process): usage
//! errors, text and `-J` output, exit codes — against the real broker for
//! what it implements, against the scripted cluster (kafka-python bodies)
//! for the rest.

mod admin_fixtures;
mod admin_mock;
mod common;

use admin_fixtures::*;
use admin_mock::{any, on, Mock};
use common::unique_topic;
use gregor::protocol::Message;
use serde_json::Value;

/// Runs `gregor admin args…`: (exit code, stdout, stderr).
fn admin(args: &[&str]) -> (i32, String, String) {
    let args: Vec<&str> = ["admin"].iter().chain(args).copied().collect();
    let (rc, out, err) = common::run_gregor(&args);
    (
        rc,
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    )
}

/// Runs with `-J` and parses stdout.
fn admin_json(args: &[&str]) -> (i32, Value) {
    let mut a = args.to_vec();
    a.push("-J");
    let (rc, out, err) = admin(&a);
    let v: Value = serde_json::from_str(out.trim())
        .unwrap_or_else(|e| panic!("not JSON ({e}): {out:?} / stderr {err:?}"));
    (rc, v)
}

fn b() -> String {
    common::broker()
}

#[test]
fn usage_errors_exit_2_and_help_exits_0() {
    let (rc, out, _) = admin(&["--help"]);
    assert_eq!(rc, 0);
    assert!(out.contains("create-topics") && out.contains("describe-transactions"));
    assert_eq!(admin(&[]).0, 2);
    let (rc, _, err) = admin(&["frobnicate", "-b", "x:1"]);
    assert_eq!(rc, 2);
    assert!(err.contains("unknown command"), "{err}");
    let (rc, _, err) = admin(&["create-topics", "-b", "x:1", "--bogus"]);
    assert_eq!(rc, 2);
    assert!(err.contains("--bogus"), "{err}");
    let (rc, _, err) = admin(&["create-topics", "-t", "x"]);
    assert_eq!(rc, 2);
    assert!(err.contains("-b"), "{err}");
    let (rc, _, err) = admin(&["create-topics", "-b", "x:1", "-X", "no.such=1", "-t", "x"]);
    assert_eq!(rc, 2);
    assert!(err.contains("no.such"), "{err}");
    let (rc, _, err) = admin(&["create-topics", "-b", "x:1", "-p", "3"]);
    assert_eq!(rc, 2);
    assert!(err.contains("before any -t"), "{err}");
    let (rc, _, err) = admin(&["create-topics", "-b", "x:1", "-t", "x", "-p", "many"]);
    assert_eq!(rc, 2);
    assert!(err.contains("many"), "{err}");
    assert_eq!(
        admin(&["describe-configs", "-b", "x:1", "--entity", "planet:earth"]).0,
        2
    );
    assert_eq!(
        admin(&["list-offsets", "-b", "x:1", "-t", "t:0", "--spec", "soon"]).0,
        2
    );
    assert_eq!(admin(&["delete-records", "-b", "x:1", "-t", "t:0"]).0, 2);
}

#[test]
fn topic_lifecycle_on_the_broker() {
    if !common::broker_up() {
        return;
    }
    let (t1, t2) = (unique_topic("cli-a"), unique_topic("cli-b"));
    let (rc, cluster) = admin_json(&["describe-cluster", "-b", &b()]);
    assert_eq!(rc, 0);
    let node = cluster["controller_id"].as_i64().unwrap().to_string();
    assert_eq!(
        cluster["brokers"][0]["id"].as_i64().unwrap().to_string(),
        node
    );

    let assign = format!("{node},{node}");
    let (rc, v) = admin_json(&[
        "create-topics",
        "-b",
        &b(),
        "-t",
        &t1,
        "-p",
        "3",
        "-r",
        "1",
        "-c",
        "retention.ms=100000",
        "-t",
        &t2,
        "-a",
        &assign,
    ]);
    assert_eq!(rc, 0, "{v}");
    assert_eq!(v["topics"][0]["name"], t1.as_str());
    assert_eq!(v["topics"][0]["num_partitions"], 3);
    assert!(v["topics"][0]["error"].is_null());
    assert_eq!(v["topics"][1]["num_partitions"], 2);
    let id1 = v["topics"][0]["topic_id"].as_str().unwrap().to_string();

    let (rc, v) = admin_json(&["describe-topics", "-b", &b(), "-t", &t1, "--topic-id", &id1]);
    assert_eq!(rc, 0, "{v}");
    assert_eq!(v["topics"][0]["partitions"].as_array().unwrap().len(), 3);
    assert_eq!(v["topics"][0]["topic_id"], id1.as_str());
    assert_eq!(v["topics"][1]["name"], t1.as_str(), "by ID: the same topic");

    let (rc, out, _) = admin(&["describe-topics", "-b", &b(), "-t", &t2]);
    assert_eq!(rc, 0);
    assert!(out.contains(&format!("replicas [{node}]")), "{out}");

    // a second create: exit 1, the error named per topic
    let (rc, v) = admin_json(&["create-topics", "-b", &b(), "-t", &t1, "-p", "1"]);
    assert_eq!(rc, 1);
    assert_eq!(v["topics"][0]["error"]["name"], "TOPIC_ALREADY_EXISTS");
    assert_eq!(v["topics"][0]["error"]["code"], 36);

    let (rc, v) = admin_json(&[
        "describe-configs",
        "-b",
        &b(),
        "--entity",
        &format!("topic:{t1}"),
        "-k",
        "retention.ms",
    ]);
    assert_eq!(rc, 0);
    let cfg = &v["resources"][0]["configs"][0];
    assert_eq!(
        (cfg["name"].as_str(), cfg["value"].as_str()),
        (Some("retention.ms"), Some("100000"))
    );
    assert_eq!(cfg["source"], "DYNAMIC_TOPIC_CONFIG");

    let (rc, out, _) = admin(&[
        "incremental-alter-configs",
        "-b",
        &b(),
        "-t",
        &t1,
        "--set",
        "retention.ms=200000",
        "--append",
        "cleanup.policy=compact",
    ]);
    assert_eq!(rc, 0, "{out}");
    let (_, out, _) = admin(&["describe-configs", "-b", &b(), "-t", &t1]);
    assert!(out.contains("retention.ms=200000"), "{out}");
    assert!(
        out.contains("cleanup.policy=delete,compact") || out.contains("cleanup.policy=compact"),
        "{out}"
    );

    // records and offsets
    let p = gregor::producer::Producer::new(&common::config(&[])).unwrap();
    for i in 0..5 {
        let mut r = gregor::message::ProducerRecord::new(&t1, b"x");
        r.partition = Some(1);
        r.timestamp = Some(1_000_000 + i);
        p.send_sync(&r, None).unwrap();
    }
    let (rc, v) = admin_json(&["delete-records", "-b", &b(), "-t", &format!("{t1}:1=2")]);
    assert_eq!(rc, 0, "{v}");
    assert_eq!(v["partitions"][0]["low_watermark"], 2);
    let (rc, v) = admin_json(&[
        "list-offsets",
        "-b",
        &b(),
        "-t",
        &format!("{t1}:1=earliest"),
        "-t",
        &format!("{t1}:1"),
    ]);
    assert_eq!(rc, 0);
    // the same partition twice: the last spec wins (latest)
    assert_eq!(v["partitions"].as_array().unwrap().len(), 1);
    assert_eq!(v["partitions"][0]["offset"], 5);
    let (rc, v) = admin_json(&[
        "list-offsets",
        "-b",
        &b(),
        "-t",
        &format!("{t1}:1"),
        "--spec",
        "earliest",
    ]);
    assert_eq!(rc, 0);
    assert_eq!(v["partitions"][0]["offset"], 2);
    let (rc, v) = admin_json(&["list-offsets", "-b", &b(), "-t", &format!("{t1}:1=1000003")]);
    assert_eq!(rc, 0);
    assert_eq!(v["partitions"][0]["offset"], 3);

    let (rc, v) = admin_json(&["delete-topics", "-b", &b(), "-t", &t1, "-t", &t2]);
    assert_eq!(rc, 0, "{v}");
    let (rc, v) = admin_json(&["describe-topics", "-b", &b(), "-t", &t1]);
    assert_eq!(rc, 1);
    assert_eq!(
        v["topics"][0]["error"]["name"],
        "UNKNOWN_TOPIC_OR_PARTITION"
    );
}

#[test]
fn call_level_errors_from_the_broker() {
    if !common::broker_up() {
        return;
    }
    // no authorizer: the request as a whole fails, exit 1, JSON error object
    let (rc, v) = admin_json(&["describe-acls", "-b", &b()]);
    assert_eq!(rc, 1);
    assert_eq!(v["error"]["name"], "SECURITY_DISABLED");
    // not implemented by the broker: the typed local error
    let (rc, out, err) = admin(&["create-partitions", "-b", &b(), "-t", "x", "-p", "3"]);
    assert_eq!(rc, 1, "{out}");
    assert!(
        err.contains("_UNSUPPORTED_FEATURE") && err.contains("CreatePartitions"),
        "{err}"
    );
    let (rc, v) = admin_json(&["describe-log-dirs", "-b", &b()]);
    assert_eq!(rc, 1);
    assert_eq!(v["error"]["name"], "_UNSUPPORTED_FEATURE");
    // nobody listening
    let (rc, _, err) = admin(&["describe-cluster", "-b", "127.0.0.1:1", "--timeout", "500"]);
    assert_eq!(rc, 1);
    assert!(err.contains("_"), "{err}");
}

#[test]
fn operations_the_broker_lacks_on_the_scripted_cluster() {
    let m = Mock::new(
        2,
        &[
            (37, 0, 3),
            (43, 0, 2),
            (35, 0, 4),
            (61, 0, 0),
            (66, 0, 1),
            (65, 0, 0),
        ],
    );
    let boot = m.brokers[0].1.clone();

    m.step_then(CREATE_PARTITIONS_V3_FIRST, on(1), |st| st.controller = 2);
    m.step(CREATE_PARTITIONS_V3_RETRY, on(2));
    let mut args = vec![
        "create-partitions",
        "-b",
        &boot,
        "--operation-timeout",
        "5000",
    ];
    args.extend(["-t", "a", "-p", "6", "-a", "1:2,2:1"]);
    for t in ["b", "c", "d", "e", "f"] {
        args.extend(["-t", t, "-p", "4"]);
    }
    let (rc, v) = admin_json(&args);
    assert_eq!(rc, 1, "some topics failed");
    let errs: Vec<Value> = v["topics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["error"]["name"].clone())
        .collect();
    assert_eq!(
        errs,
        [
            Value::Null,
            Value::Null,
            "INVALID_PARTITIONS".into(),
            "INVALID_REPLICA_ASSIGNMENT".into(),
            "REASSIGNMENT_IN_PROGRESS".into(),
            "POLICY_VIOLATION".into()
        ]
    );
    assert_eq!(
        m.seen(37)[1].body,
        admin_mock::unhex(CREATE_PARTITIONS_V3_RETRY_REQUEST.2)
    );

    m.step(ELECT_LEADERS_V2, on(2));
    let (rc, out, _) = admin(&[
        "elect-leaders",
        "-b",
        &boot,
        "--operation-timeout",
        "5000",
        "-t",
        "t:0",
        "-t",
        "t:1",
        "-t",
        "t:2",
        "-t",
        "gone:0",
    ]);
    assert_eq!(rc, 1);
    assert!(out.contains("t [0]: elected"), "{out}");
    assert!(out.contains("t [1]: error ELECTION_NOT_NEEDED"), "{out}");

    m.step(DESCRIBE_LOG_DIRS_V4_BROKER1, on(1));
    m.step(DESCRIBE_LOG_DIRS_V4_BROKER2, on(2));
    let (rc, v) = admin_json(&["describe-log-dirs", "-b", &boot]);
    assert_eq!(rc, 1, "broker 2 refused");
    assert_eq!(
        v["brokers"][0]["log_dirs"][0]["replicas"][1]["is_future"],
        true
    );
    assert_eq!(
        v["brokers"][0]["log_dirs"][1]["error"]["name"],
        "KAFKA_STORAGE_ERROR"
    );
    assert_eq!(
        v["brokers"][1]["error"]["name"],
        "CLUSTER_AUTHORIZATION_FAILED"
    );

    m.topic("t", &[2, 1]);
    m.step(DESCRIBE_PRODUCERS_V0_BROKER1, on(1));
    m.step_then(DESCRIBE_PRODUCERS_V0_BROKER2, on(2), |st| {
        st.topics[0].1[0] = 1
    });
    m.step(DESCRIBE_PRODUCERS_V0_RETRY, on(1));
    let (rc, v) = admin_json(&["describe-producers", "-b", &boot, "-t", "t:0", "-t", "t:1"]);
    assert_eq!(rc, 0, "{v}");
    assert_eq!(v["partitions"][1]["producers"][0]["producer_id"], 1000);
    assert_eq!(
        v["partitions"][1]["producers"][1]["coordinator_epoch"],
        Value::Null
    );

    m.step(LIST_TRANSACTIONS_V1_BROKER1, on(1));
    m.step(LIST_TRANSACTIONS_V1_BROKER2, on(2));
    let (rc, v) = admin_json(&[
        "list-transactions",
        "-b",
        &boot,
        "--state",
        "Ongoing",
        "--duration",
        "60000",
    ]);
    assert_eq!(rc, 1);
    assert_eq!(v["brokers"][0]["transactions"][1]["state"], "PrepareCommit");
    assert_eq!(
        v["brokers"][1]["error"]["name"],
        "COORDINATOR_NOT_AVAILABLE"
    );

    m.state.lock().unwrap().coordinator = 2;
    m.step(DESCRIBE_TRANSACTIONS_V0, on(2));
    let (rc, v) = admin_json(&["describe-transactions", "-b", &boot, "-i", "txn-a"]);
    assert_eq!(rc, 0, "{v}");
    assert_eq!(v["transactions"][0]["coordinator_id"], 2);
    assert_eq!(v["transactions"][0]["partitions"][2]["topic"], "u");
    let (left, unexpected) = m.leftovers();
    assert_eq!((left, unexpected.len()), (0, 0), "{unexpected:?}");
}

#[test]
fn configs_acls_quotas_scram_reassignments_on_the_scripted_cluster() {
    let m = Mock::new(
        2,
        &[
            (33, 0, 2),
            (30, 0, 3),
            (31, 0, 3),
            (48, 0, 1),
            (49, 0, 1),
            (50, 0, 0),
            (51, 0, 0),
            (45, 0, 0),
            (46, 0, 0),
            (2, 0, 8),
        ],
    );
    let boot = m.brokers[0].1.clone();

    m.step(ALTER_CONFIGS_V2_BROKER2, on(2));
    let (rc, v) = admin_json(&[
        "alter-configs",
        "-b",
        &boot,
        "--entity",
        "broker:2",
        "-c",
        "log.cleaner.threads=2",
    ]);
    assert_eq!(rc, 1);
    assert_eq!(v["resources"][0]["type"], "BROKER");
    assert_eq!(v["resources"][0]["error"]["name"], "POLICY_VIOLATION");

    m.step(CREATE_ACLS_V3, any);
    // one binding per call: the fixture's first result (success) answers it
    let (rc, out, err) = admin(&[
        "create-acls",
        "-b",
        &boot,
        "--resource-type",
        "topic",
        "--resource-name",
        "orders",
        "--principal",
        "User:alice",
        "--operation",
        "read",
    ]);
    assert_eq!(rc, 0, "{out}{err}");
    assert!(
        out.contains("ALLOW READ on TOPIC \"orders\" (LITERAL) for User:alice from *: created"),
        "{out}"
    );

    m.step(DELETE_ACLS_V3, any);
    let (rc, v) = admin_json(&["delete-acls", "-b", &boot, "--resource-name", "orders"]);
    assert_eq!(rc, 1, "one matched ACL was not deleted");
    assert_eq!(
        v["filters"][0]["matching_acls"][0]["acl"]["principal"],
        "User:alice"
    );
    assert_eq!(
        v["filters"][0]["matching_acls"][1]["error"]["name"],
        "UNKNOWN_SERVER_ERROR"
    );

    m.step(DESCRIBE_CLIENT_QUOTAS_V1, any);
    let (rc, v) = admin_json(&["describe-client-quotas", "-b", &boot, "--match-any", "user"]);
    assert_eq!(rc, 0);
    assert_eq!(v["entries"][0]["values"]["request_percentage"], 12.5);
    assert_eq!(v["entries"][1]["entity"][0]["name"], Value::Null);

    m.step(ALTER_CLIENT_QUOTAS_V1, any);
    let (rc, v) = admin_json(&[
        "alter-client-quotas",
        "-b",
        &boot,
        "--entity",
        "user=alice,client-id=",
        "--set",
        "producer_byte_rate=1024",
        "--remove",
        "consumer_byte_rate",
        "--entity",
        "client-id=app",
        "--set",
        "bogus_rate=1",
    ]);
    assert_eq!(rc, 1);
    assert!(v["entries"][0]["error"].is_null());
    assert_eq!(v["entries"][1]["error"]["name"], "INVALID_REQUEST");

    m.step(DESCRIBE_SCRAM_V0, any);
    let (rc, out, _) = admin(&[
        "describe-user-scram-credentials",
        "-b",
        &boot,
        "-u",
        "alice",
        "-u",
        "bob",
    ]);
    assert_eq!(rc, 1);
    assert!(
        out.contains(
            "user alice: SCRAM-SHA-256 (4096 iterations), SCRAM-SHA-512 (8192 iterations)"
        ),
        "{out}"
    );
    assert!(out.contains("user bob: error RESOURCE_NOT_FOUND"), "{out}");

    m.step(ALTER_SCRAM_V0, any);
    let (rc, v) = admin_json(&[
        "alter-user-scram-credentials",
        "-b",
        &boot,
        "--upsert",
        "alice:SCRAM-SHA-256:4096:pass:with:colons",
        "--delete",
        "bob:scram-sha-512",
    ]);
    assert_eq!(rc, 1);
    assert_eq!(v["users"][1]["error"]["name"], "UNACCEPTABLE_CREDENTIAL");
    let req = gregor::protocol::alter_user_scram_credentials::AlterUserScramCredentialsRequest::from_bytes(
        &m.seen(51)[0].body,
        0,
    );
    let req = req.unwrap();
    assert_eq!(req.upsertions[0].salt.len(), 32, "a random 32-byte salt");
    let expect = gregor::admin::scram::salted_password(
        gregor::admin::ScramMechanism::SCRAM_SHA_256,
        b"pass:with:colons",
        &req.upsertions[0].salt,
        4096,
    )
    .unwrap();
    assert_eq!(&req.upsertions[0].salted_password[..], &expect[..]);
    assert_eq!(req.deletions[0].mechanism, 2);

    m.state.lock().unwrap().controller = 2;
    m.step(ALTER_REASSIGNMENTS_V0, on(2));
    let (rc, out, _) = admin(&[
        "alter-partition-reassignments",
        "-b",
        &boot,
        "-t",
        "t:0=2,1",
        "--cancel",
        "t:1",
        "-t",
        "t:2=9",
    ]);
    assert_eq!(rc, 1);
    assert!(out.contains("t [0]: accepted"), "{out}");
    assert!(
        out.contains("t [1]: error NO_REASSIGNMENT_IN_PROGRESS"),
        "{out}"
    );
    m.step(LIST_REASSIGNMENTS_V0, on(2));
    let (rc, v) = admin_json(&["list-partition-reassignments", "-b", &boot]);
    assert_eq!(rc, 0);
    assert_eq!(
        v["reassignments"][1]["adding_replicas"],
        serde_json::json!([3])
    );

    m.topic("t", &[1, 1]);
    m.step(LIST_OFFSETS_V8, any);
    let (rc, v) = admin_json(&[
        "list-offsets",
        "-b",
        &boot,
        "-t",
        "t:0=max-timestamp",
        "-t",
        "t:1",
        "--read-committed",
    ]);
    assert_eq!(rc, 0, "{v}");
    assert_eq!(v["partitions"][0]["offset"], 42);
    assert_eq!(v["partitions"][0]["leader_epoch"], 5);
    let (left, unexpected) = m.leftovers();
    assert_eq!((left, unexpected.len()), (0, 0), "{unexpected:?}");
}

#[test]
fn the_gregor_binary_dispatches_admin() {
    if !common::broker_up() {
        return;
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gregor"))
        .args(["admin", "describe-cluster", "-b", &b(), "-J"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["controller_id"].as_i64().unwrap() >= 0);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gregor"))
        .args(["admin", "no-such-command"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
