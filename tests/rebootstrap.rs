//! KIP-1102's REBOOTSTRAP_REQUIRED: a broker that answers Metadata (v13+)
//! with that top-level error sends the client back to `bootstrap.servers`
//! at once, as librdkafka 2.15 and the Java client do; with
//! `metadata.recovery.strategy=none` it is an error of that one broker and
//! the next known broker is asked. A broker that keeps answering it gets
//! one re-bootstrap a request, not a loop. On gregor's own mock cluster
//! (librdkafka's serves Metadata up to v12 only).
//!
//!     cargo test --test rebootstrap

use std::sync::{Arc, Mutex};
use std::time::Duration;

use gregor::cluster::Cluster;
use gregor::config::Config;
use gregor::log::LogCallback;
use gregor::mock::Cluster as MockCluster;

const METADATA: i16 = 3;
const REBOOTSTRAP_REQUIRED: i16 = 129;

type Lines = Arc<Mutex<Vec<(String, String)>>>;

/// A client of `mock` bootstrapped from its first broker only, with its
/// log lines (facility, message) and metadata already fetched once.
fn client(mock: &MockCluster, strategy: &str) -> (Cluster, Lines) {
    let first = mock
        .bootstrap_servers()
        .split(',')
        .next()
        .unwrap()
        .to_string();
    let mut cfg = Config::from_pairs([
        ("bootstrap.servers", first.as_str()),
        ("metadata.recovery.strategy", strategy),
        ("debug", "metadata"),
    ])
    .unwrap();
    let lines: Lines = Arc::default();
    let l2 = lines.clone();
    cfg.set_log_callback(Some(LogCallback::new(move |_, fac, _, msg| {
        l2.lock().unwrap().push((fac.to_string(), msg.to_string()));
    })));
    let c = Cluster::new(&cfg).unwrap();
    let meta = c
        .fetch_metadata(None, false, Duration::from_secs(10))
        .unwrap();
    assert_eq!(meta.brokers.len(), 3, "{meta:?}");
    (c, lines)
}

fn metadata_requests(mock: &MockCluster) -> Vec<(i32, i16)> {
    mock.requests()
        .iter()
        .filter(|r| r.api_key == METADATA)
        .map(|r| (r.broker, r.api_version))
        .collect()
}

fn rebootstraps(lines: &Lines) -> Vec<String> {
    lines
        .lock()
        .unwrap()
        .iter()
        .filter(|l| l.0 == "REBOOTSTRAP")
        .map(|l| l.1.clone())
        .collect()
}

#[test]
fn rebootstrap_required_sends_the_client_back_to_bootstrap_servers() {
    let mock = MockCluster::new(3).unwrap();
    mock.create_topic("rb-t", 3, 3).unwrap();
    let (c, lines) = client(&mock, "rebootstrap");
    mock.start_request_tracking();
    mock.push_request_errors(METADATA, &[REBOOTSTRAP_REQUIRED]);
    let meta = c
        .fetch_metadata(Some(&["rb-t"]), false, Duration::from_secs(10))
        .unwrap();
    assert_eq!(meta.topics.len(), 1);
    let reqs = metadata_requests(&mock);
    let rb = rebootstraps(&lines);
    println!("FIGURES rebootstrap: Metadata requests (broker, version) {reqs:?}; {rb:?}");
    // the first answer was the error, the second came from the bootstrap
    // broker (broker 1), both at v13
    assert_eq!(reqs.len(), 2, "{reqs:?}");
    assert!(reqs.iter().all(|r| r.1 == 13), "{reqs:?}");
    assert_eq!(reqs[1].0, 1, "not asked of bootstrap.servers: {reqs:?}");
    assert_eq!(rb.len(), 1, "{rb:?}");
    assert!(rb[0].contains("REBOOTSTRAP_REQUIRED"), "{rb:?}");
    // the request after the re-bootstrap went out on a bootstrap connection
    let l = lines.lock().unwrap().clone();
    let at = l.iter().position(|x| x.0 == "REBOOTSTRAP").unwrap();
    let next = l[at..]
        .iter()
        .find(|x| x.0 == "METADATA" && x.1.contains("Request metadata"))
        .unwrap_or_else(|| panic!("no metadata request after the re-bootstrap: {l:?}"));
    assert!(next.1.contains("/bootstrap:"), "{next:?}");
    // and the client works on
    assert_eq!(
        c.fetch_metadata(None, false, Duration::from_secs(10))
            .unwrap()
            .brokers
            .len(),
        3
    );
}

#[test]
fn with_strategy_none_it_is_one_brokers_error() {
    let mock = MockCluster::new(3).unwrap();
    mock.create_topic("rb-n", 1, 3).unwrap();
    let (c, lines) = client(&mock, "none");
    mock.start_request_tracking();
    mock.push_request_errors(METADATA, &[REBOOTSTRAP_REQUIRED]);
    let meta = c
        .fetch_metadata(Some(&["rb-n"]), false, Duration::from_secs(10))
        .unwrap();
    assert_eq!(meta.topics.len(), 1);
    let reqs = metadata_requests(&mock);
    assert_eq!(reqs.len(), 2, "{reqs:?}");
    // the second request went to another learned broker, not back to bootstrap
    assert_ne!(reqs[0].0, reqs[1].0, "{reqs:?}");
    assert!(rebootstraps(&lines).is_empty());
}

#[test]
fn a_broker_that_keeps_answering_it_gets_one_rebootstrap_a_request() {
    let mock = MockCluster::new(3).unwrap();
    let (c, lines) = client(&mock, "rebootstrap");
    mock.start_request_tracking();
    mock.push_request_errors(METADATA, &[REBOOTSTRAP_REQUIRED; 50]);
    let err = c
        .fetch_metadata(None, false, Duration::from_secs(5))
        .unwrap_err();
    let reqs = metadata_requests(&mock);
    println!(
        "FIGURES persistent REBOOTSTRAP_REQUIRED: {err}; {} requests",
        reqs.len()
    );
    assert!(err.to_string().contains("REBOOTSTRAP_REQUIRED"), "{err}");
    // one to a learned broker, one to the bootstrap broker after re-bootstrapping
    assert_eq!(reqs.len(), 2, "{reqs:?}");
    assert_eq!(rebootstraps(&lines).len(), 1);
}

/// The admin client's Metadata-based calls report the top-level error
/// instead of an empty answer.
#[test]
fn admin_describe_topics_reports_the_top_level_error() {
    use gregor::admin::{AdminClient, AdminOptions};
    let mock = MockCluster::new(1).unwrap();
    mock.create_topic("rb-a", 1, 1).unwrap();
    let cfg =
        Config::from_pairs([("bootstrap.servers", mock.bootstrap_servers().as_str())]).unwrap();
    let admin = AdminClient::new(&cfg).unwrap();
    let opts = AdminOptions::default();
    assert_eq!(
        admin
            .describe_topics(&["rb-a"], false, &opts)
            .unwrap()
            .len(),
        1
    );
    mock.push_request_errors(METADATA, &[REBOOTSTRAP_REQUIRED]);
    let err = admin.describe_topics(&["rb-a"], false, &opts).unwrap_err();
    assert_eq!(err.code(), i32::from(REBOOTSTRAP_REQUIRED), "{err}");
    assert_eq!(
        admin
            .describe_topics(&["rb-a"], false, &opts)
            .unwrap()
            .len(),
        1
    );
}
