//! TLS and SASL.
//!
//! Against the real broker (nisshi, started by `scripts/services.sh`):
//! - `$GREGOR_TEST_BROKER_TLS` (127.0.0.1:9093): TLS-only listener with a
//!   certificate for IP 127.0.0.1 signed by the test CA;
//! - `$GREGOR_TEST_BROKER_SASL` (127.0.0.1:9094): SASL/SCRAM, sqlite storage;
//! - `$GREGOR_TEST_BROKER_SASL_SSL` (127.0.0.1:9095): both;
//! - `$GREGOR_TEST_CERTS`: the certificates (scripts/gen-certs.sh).
//!
//! The SCRAM users are made by services.sh: `gregor256`/`gregor-pw-256`
//! (SCRAM-SHA-256) and `gregor512`/`gregor-pw-512` (SCRAM-SHA-512).
//! These tests fail, not skip, when those listeners are down.
//!
//! What the broker cannot show — PLAIN, OAUTHBEARER, the v0 (raw frame)
//! handshake, an expired certificate, client certificates — is checked on
//! a scripted in-test peer, on the exact bytes the client sends.

mod common;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use gregor::config::Config;
use gregor::consumer::{Consumer, TopicPartitionOffset};
use gregor::error::local;
use gregor::message::ProducerRecord;
use gregor::net::{BrokerConn, NetConfig};
use gregor::producer::Producer;
use gregor::protocol::api_versions::{ApiVersion, ApiVersionsResponse};
use gregor::protocol::metadata::{MetadataRequest, MetadataResponse, MetadataResponseBroker};
use gregor::protocol::sasl_authenticate::SaslAuthenticateResponse;
use gregor::protocol::sasl_handshake::SaslHandshakeResponse;
use gregor::protocol::Message;
use gregor::wire::Bytes;

fn env_or(var: &str, default: &str) -> String {
    std::env::var(var).unwrap_or_else(|_| default.to_string())
}

fn tls_broker() -> String {
    env_or("GREGOR_TEST_BROKER_TLS", "127.0.0.1:9093")
}

fn sasl_broker() -> String {
    env_or("GREGOR_TEST_BROKER_SASL", "127.0.0.1:9094")
}

fn sasl_ssl_broker() -> String {
    env_or("GREGOR_TEST_BROKER_SASL_SSL", "127.0.0.1:9095")
}

/// Whether the TLS and SASL test brokers answer (see `common::service_up`).
fn security_up() -> bool {
    [tls_broker(), sasl_broker(), sasl_ssl_broker()]
        .iter()
        .all(|a| common::service_up("the TLS and SASL test brokers", a))
}

use common::cert;

fn cfg(pairs: &[(&str, &str)]) -> Config {
    let mut c = Config::new();
    for (k, v) in pairs {
        c.set(k, v).unwrap();
    }
    c
}

fn ssl_cfg(bootstrap: &str, extra: &[(&str, &str)]) -> Config {
    let ca = cert("ca.pem");
    let mut c = cfg(&[
        ("bootstrap.servers", bootstrap),
        ("security.protocol", "ssl"),
        ("ssl.ca.location", &ca),
    ]);
    for (k, v) in extra {
        c.set(k, v).unwrap();
    }
    c
}

/// One metadata call on a fresh connection to `addr` with `c`'s settings.
fn meta(addr: &str, c: &Config) -> gregor::error::Result<MetadataResponse> {
    let mut net = NetConfig::from_config(c)?;
    net.connect_timeout = Duration::from_secs(10);
    let conn = BrokerConn::new(addr, addr, net);
    let r = conn.call(&MetadataRequest::default(), Some(Duration::from_secs(10)));
    conn.close();
    r
}

/// Produces three messages and reads them back through `c`.
fn produce_consume(c: &Config, label: &str) {
    let topic = common::unique_topic(label);
    let producer = Producer::new(c).unwrap();
    let mut first = None;
    for i in 0..3 {
        let value = format!("{label} #{i}");
        let mut rec = ProducerRecord::new(&topic, value.as_bytes());
        rec.partition = Some(0);
        let d = producer
            .send_sync(&rec, Some(Duration::from_secs(30)))
            .unwrap_or_else(|e| panic!("{label}: produce: {e}"));
        first.get_or_insert(d.offset);
    }
    producer.close(Duration::from_secs(5));
    let consumer = Consumer::new(c).unwrap();
    consumer
        .assign(&[TopicPartitionOffset::new(&topic, 0, first.unwrap())])
        .unwrap();
    let mut got = Vec::new();
    let until = Instant::now() + Duration::from_secs(30);
    while got.len() < 3 && Instant::now() < until {
        if let Some(m) = consumer.poll(Duration::from_secs(1)).unwrap() {
            assert!(m.error.is_none(), "{label}: {:?}", m.error);
            got.push(String::from_utf8(m.value.as_deref().unwrap().to_vec()).unwrap());
        }
    }
    consumer.close();
    assert_eq!(
        got,
        (0..3).map(|i| format!("{label} #{i}")).collect::<Vec<_>>()
    );
}

// ---------------------------------------------------------------- TLS, real broker

#[test]
fn tls_produce_and_consume_verifying_the_ca() {
    if !security_up() {
        return;
    }
    produce_consume(&ssl_cfg(&tls_broker(), &[]), "tls");
}

#[test]
fn tls_wrong_host_is_named() {
    if !security_up() {
        return;
    }
    // The certificate names IP 127.0.0.1 only; "localhost" is not in it.
    let port = tls_broker().rsplit_once(':').unwrap().1.to_string();
    let addr = format!("localhost:{port}");
    let e = meta(&addr, &ssl_cfg(&addr, &[])).unwrap_err();
    assert_eq!(e.code(), local::SSL, "{e}");
    let text = e.to_string();
    assert!(text.contains("does not match the host name"), "{text}");
    assert!(text.contains("localhost"), "{text}");
    // ... and with the check off, the same connection works.
    let c = ssl_cfg(&addr, &[("ssl.endpoint.identification.algorithm", "none")]);
    assert!(!meta(&addr, &c).unwrap().brokers.is_empty());
}

#[test]
fn tls_unknown_ca_is_named() {
    if !security_up() {
        return;
    }
    let addr = tls_broker();
    let other = cert("other-ca.pem");
    let e = meta(&addr, &ssl_cfg(&addr, &[("ssl.ca.location", &other)])).unwrap_err();
    assert_eq!(e.code(), local::SSL, "{e}");
    assert!(e.to_string().contains("unknown CA"), "{e}");
    // The cluster-level call reports the same cause, with its code.
    let c = ssl_cfg(&addr, &[("ssl.ca.location", &other)]);
    let cluster = gregor::cluster::Cluster::new(&c).unwrap();
    let e = cluster
        .fetch_metadata(None, false, Duration::from_secs(5))
        .unwrap_err();
    assert_eq!(e.code(), local::SSL, "{e}");
    cluster.close();
}

#[test]
fn tls_config_through_pem_strings_and_unverified() {
    if !security_up() {
        return;
    }
    let addr = tls_broker();
    let pem = std::fs::read_to_string(cert("ca.pem")).unwrap();
    let c = cfg(&[
        ("bootstrap.servers", &addr),
        ("security.protocol", "SSL"),
        ("ssl.ca.location", &cert("other-ca.pem")),
        ("ssl.ca.pem", &pem),
    ]);
    assert!(!meta(&addr, &c).unwrap().brokers.is_empty());
    let c = cfg(&[
        ("bootstrap.servers", &addr),
        ("security.protocol", "ssl"),
        ("enable.ssl.certificate.verification", "false"),
    ]);
    assert!(!meta(&addr, &c).unwrap().brokers.is_empty());
}

#[test]
fn plaintext_client_on_a_tls_listener_fails_cleanly() {
    if !security_up() {
        return;
    }
    let addr = tls_broker();
    let c = cfg(&[("bootstrap.servers", &addr), ("socket.timeout.ms", "3000")]);
    let mut net = NetConfig::from_config(&c).unwrap();
    net.connect_timeout = Duration::from_secs(3);
    net.api_version_timeout = Duration::from_secs(3);
    let conn = BrokerConn::new(&addr, &addr, net);
    let t = Instant::now();
    assert!(conn
        .call(&MetadataRequest::default(), Some(Duration::from_secs(5)))
        .is_err());
    assert!(t.elapsed() < Duration::from_secs(8));
    conn.close();
}

// ---------------------------------------------------------------- SCRAM, real broker

fn scram_cfg(bootstrap: &str, protocol: &str, mech: &str, user: &str, pw: &str) -> Config {
    let mut c = cfg(&[
        ("bootstrap.servers", bootstrap),
        ("security.protocol", protocol),
        ("sasl.mechanisms", mech),
        ("sasl.username", user),
        ("sasl.password", pw),
    ]);
    if protocol == "sasl_ssl" {
        c.set("ssl.ca.location", &cert("ca.pem")).unwrap();
    }
    c
}

#[test]
fn scram_sha256_and_sha512_produce_and_consume() {
    if !security_up() {
        return;
    }
    let b = sasl_broker();
    produce_consume(
        &scram_cfg(
            &b,
            "sasl_plaintext",
            "SCRAM-SHA-256",
            "gregor256",
            "gregor-pw-256",
        ),
        "scram256",
    );
    produce_consume(
        &scram_cfg(
            &b,
            "sasl_plaintext",
            "SCRAM-SHA-512",
            "gregor512",
            "gregor-pw-512",
        ),
        "scram512",
    );
}

#[test]
fn scram_wrong_password_is_refused_with_the_kafka_code() {
    if !security_up() {
        return;
    }
    let b = sasl_broker();
    for (mech, user) in [
        ("SCRAM-SHA-256", "gregor256"),
        ("SCRAM-SHA-512", "gregor512"),
    ] {
        let c = scram_cfg(&b, "sasl_plaintext", mech, user, "not-the-password");
        let e = meta(&b, &c).unwrap_err();
        assert!(
            e.code() == 58 || e.code() == local::AUTHENTICATION,
            "{mech}: {e} ({})",
            e.code()
        );
        assert!(e.to_string().contains(mech), "{e}");
    }
    // an unknown user too
    let c = scram_cfg(&b, "sasl_plaintext", "SCRAM-SHA-256", "nobody-here", "x");
    let e = meta(&b, &c).unwrap_err();
    assert!(e.code() == 58 || e.code() == local::AUTHENTICATION, "{e}");
}

#[test]
fn sasl_credentials_set_at_run_time_serve_the_next_authentication() {
    // librdkafka's rd_kafka_sasl_set_credentials: a client made with a
    // wrong password authenticates once the right one is set; every clone
    // of the network settings (every connection of one client) sees it
    if !security_up() {
        return;
    }
    let b = sasl_broker();
    let c = scram_cfg(
        &b,
        "sasl_plaintext",
        "SCRAM-SHA-256",
        "gregor256",
        "not-the-password",
    );
    let mut net = NetConfig::from_config(&c).unwrap();
    net.connect_timeout = Duration::from_secs(10);
    let first = BrokerConn::new(b.as_str(), b.as_str(), net.clone());
    let e = first
        .call(&MetadataRequest::default(), Some(Duration::from_secs(10)))
        .unwrap_err();
    assert!(e.code() == 58 || e.code() == local::AUTHENTICATION, "{e}");
    first.close();
    net.sasl_credentials.set("gregor256", "gregor-pw-256");
    let again = BrokerConn::new(b.as_str(), b.as_str(), net.clone());
    let r = again.call(&MetadataRequest::default(), Some(Duration::from_secs(10)));
    again.close();
    assert!(r.is_ok(), "{:?}", r.err());
    // a client's cluster passes them to its connections
    let producer = Producer::new(&c).unwrap();
    producer
        .cluster()
        .set_sasl_credentials("gregor256", "gregor-pw-256");
    let topic = common::unique_topic("sasl-set");
    let rec = ProducerRecord::new(&topic, &b"after set_sasl_credentials"[..]);
    producer
        .send_sync(&rec, Some(Duration::from_secs(30)))
        .unwrap_or_else(|e| panic!("produce with the credentials set: {e}"));
    producer.close(Duration::from_secs(5));
}

#[test]
fn scram_over_tls() {
    if !security_up() {
        return;
    }
    let b = sasl_ssl_broker();
    produce_consume(
        &scram_cfg(
            &b,
            "sasl_ssl",
            "SCRAM-SHA-512",
            "gregor512",
            "gregor-pw-512",
        ),
        "sasl-ssl",
    );
    let e = meta(
        &b,
        &scram_cfg(&b, "sasl_ssl", "SCRAM-SHA-256", "gregor256", "wrong"),
    )
    .unwrap_err();
    assert!(e.code() == 58 || e.code() == local::AUTHENTICATION, "{e}");
}

#[test]
fn plain_is_refused_by_a_broker_without_it() {
    if !security_up() {
        return;
    }
    // nisshi enables SCRAM only: the handshake says so, with the code.
    let b = sasl_broker();
    let c = scram_cfg(&b, "sasl_plaintext", "PLAIN", "gregor256", "gregor-pw-256");
    let e = meta(&b, &c).unwrap_err();
    assert_eq!(e.code(), 33, "{e}"); // UNSUPPORTED_SASL_MECHANISM
    assert!(e.to_string().contains("SCRAM-SHA-256"), "{e}");
}

// ---------------------------------------------------------------- scripted SASL peer

/// A request as sent: its api key, version, correlation id and whole frame.
struct Req {
    api_key: i16,
    version: i16,
    corr: i32,
    bytes: Vec<u8>,
}

fn read_req(s: &mut impl Read) -> Option<Req> {
    let mut size = [0u8; 4];
    s.read_exact(&mut size).ok()?;
    let mut buf = vec![0u8; i32::from_be_bytes(size) as usize];
    s.read_exact(&mut buf).ok()?;
    Some(Req {
        api_key: i16::from_be_bytes([buf[0], buf[1]]),
        version: i16::from_be_bytes([buf[2], buf[3]]),
        corr: i32::from_be_bytes([buf[4], buf[5], buf[6], buf[7]]),
        bytes: buf,
    })
}

use common::response_frame as frame;

fn api_versions(s: &mut impl Write, r: &Req, handshake_max: i16) {
    let mut resp = ApiVersionsResponse::default();
    resp.api_keys = [(18, 0, 4), (3, 0, 12), (17, 0, handshake_max), (36, 0, 2)]
        .iter()
        .map(|&(k, lo, hi)| {
            let mut v = ApiVersion::default();
            v.api_key = k;
            v.min_version = lo;
            v.max_version = hi;
            v
        })
        .collect();
    s.write_all(&frame(r.corr, 0, &resp.to_bytes(r.version).unwrap()))
        .unwrap();
}

fn metadata(s: &mut impl Write, r: &Req) {
    let mut b = MetadataResponseBroker::default();
    b.node_id = 7;
    b.host = "ok".to_string();
    b.port = 1;
    let mut resp = MetadataResponse::default();
    resp.brokers = vec![b];
    let hv = if r.version >= 9 { 1 } else { 0 };
    s.write_all(&frame(r.corr, hv, &resp.to_bytes(r.version).unwrap()))
        .unwrap();
}

fn handshake_resp(s: &mut impl Write, r: &Req, error: i16) {
    let mut resp = SaslHandshakeResponse::default();
    resp.error_code = error;
    resp.mechanisms = vec!["PLAIN".into(), "OAUTHBEARER".into()];
    s.write_all(&frame(r.corr, 0, &resp.to_bytes(r.version).unwrap()))
        .unwrap();
}

fn authenticate_resp(s: &mut impl Write, r: &Req, error: i16, message: Option<&str>, token: &[u8]) {
    let mut resp = SaslAuthenticateResponse::default();
    resp.error_code = error;
    resp.error_message = message.map(str::to_string);
    resp.auth_bytes = Bytes::from(token.to_vec());
    let hv = if r.version >= 2 { 1 } else { 0 };
    s.write_all(&frame(r.corr, hv, &resp.to_bytes(r.version).unwrap()))
        .unwrap();
}

/// A scripted broker; returns its address and the number of connections.
fn mock(script: impl Fn(usize, TcpStream) + Send + Sync + 'static) -> (String, Arc<AtomicUsize>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap().to_string();
    let script = Arc::new(script);
    let n = Arc::new(AtomicUsize::new(0));
    let count = n.clone();
    thread::spawn(move || {
        for s in l.incoming() {
            let Ok(s) = s else { return };
            let i = n.fetch_add(1, Ordering::SeqCst);
            let script = script.clone();
            thread::spawn(move || script(i, s));
        }
    });
    (addr, count)
}

/// The request header as gregor writes it with client.id "gregor":
/// api key, version, correlation id, client id; a tag byte when flexible.
fn header(api_key: i16, version: i16, corr: i32, flexible: bool) -> Vec<u8> {
    let mut h = Vec::new();
    h.extend_from_slice(&api_key.to_be_bytes());
    h.extend_from_slice(&version.to_be_bytes());
    h.extend_from_slice(&corr.to_be_bytes());
    h.extend_from_slice(&[0, 6]);
    h.extend_from_slice(b"gregor");
    if flexible {
        h.push(0);
    }
    h
}

/// Serves one SASL v1 connection: records the handshake and authenticate
/// frames, answers authenticate with `answer`, then serves metadata.
#[allow(clippy::type_complexity)]
fn sasl_v1_peer(
    answers: Vec<(i16, Option<&'static str>, &'static [u8])>,
) -> (String, Arc<AtomicUsize>, Arc<Mutex<Vec<Vec<u8>>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let seen2 = seen.clone();
    let (addr, n) = mock(move |_, mut s| {
        let mut answers = answers.clone().into_iter();
        while let Some(r) = read_req(&mut s) {
            match r.api_key {
                18 => api_versions(&mut s, &r, 1),
                17 => {
                    seen2.lock().unwrap().push(r.bytes.clone());
                    handshake_resp(&mut s, &r, 0);
                }
                36 => {
                    seen2.lock().unwrap().push(r.bytes.clone());
                    let (code, msg, token) = answers.next().unwrap();
                    authenticate_resp(&mut s, &r, code, msg, token);
                }
                3 => metadata(&mut s, &r),
                _ => return,
            }
        }
    });
    (addr, n, seen)
}

fn plain_cfg(addr: &str) -> Config {
    cfg(&[
        ("bootstrap.servers", addr),
        ("security.protocol", "sasl_plaintext"),
        ("sasl.mechanism", "PLAIN"),
        ("sasl.username", "alice"),
        ("sasl.password", "s3cr3t"),
    ])
}

#[test]
fn plain_v1_sends_exactly_these_bytes() {
    let (addr, _, seen) = sasl_v1_peer(vec![(0, None, b"")]);
    let md = meta(&addr, &plain_cfg(&addr)).unwrap();
    assert_eq!(md.brokers[0].node_id, 7);
    let seen = seen.lock().unwrap();
    // SaslHandshake v1: mechanism "PLAIN"
    let mut want = header(17, 1, 1, false);
    want.extend_from_slice(&[0, 5]);
    want.extend_from_slice(b"PLAIN");
    assert_eq!(seen[0], want);
    // SaslAuthenticate v2 (flexible): compact bytes (length + 1), no tags
    let mut want = header(36, 2, 2, true);
    let token = b"\0alice\0s3cr3t";
    want.push(token.len() as u8 + 1);
    want.extend_from_slice(token);
    want.push(0);
    assert_eq!(seen[1], want);
}

#[test]
fn plain_refused_gives_58_with_the_brokers_message_and_no_retry_storm() {
    let (addr, conns, _) = sasl_v1_peer(vec![(
        58,
        Some("Authentication failed: Invalid username or password"),
        b"",
    )]);
    let mut net = NetConfig::from_config(&plain_cfg(&addr)).unwrap();
    net.backoff = Duration::from_millis(500);
    net.backoff_max = Duration::from_secs(5);
    let conn = BrokerConn::new(&addr, &addr, net);
    let e = conn
        .call(&MetadataRequest::default(), Some(Duration::from_secs(5)))
        .unwrap_err();
    assert_eq!(e.code(), 58, "{e}");
    assert!(
        e.to_string().contains("Invalid username or password"),
        "{e}"
    );
    assert!(
        e.to_string().contains("SASL PLAIN authentication failed"),
        "{e}"
    );
    // Calls during the backoff fail at once with the same code, without
    // connecting again.
    for _ in 0..20 {
        let e = conn
            .call(&MetadataRequest::default(), Some(Duration::from_millis(50)))
            .unwrap_err();
        assert!(e.code() == 58 || e.code() == local::TIMED_OUT, "{e}");
    }
    assert_eq!(conns.load(Ordering::SeqCst), 1);
    conn.close();
}

#[test]
fn oauthbearer_token_bytes_and_unsecured_jwt() {
    let (addr, _, seen) = sasl_v1_peer(vec![(0, None, b"")]);
    let c = cfg(&[
        ("bootstrap.servers", &addr),
        ("security.protocol", "sasl_plaintext"),
        ("sasl.mechanisms", "OAUTHBEARER"),
        ("sasl.oauthbearer.token", "eyJraWQiOiJ0ZXN0In0.e30.c2ln"),
    ]);
    meta(&addr, &c).unwrap();
    {
        let seen = seen.lock().unwrap();
        let mut want = header(17, 1, 1, false);
        want.extend_from_slice(&[0, 11]);
        want.extend_from_slice(b"OAUTHBEARER");
        assert_eq!(seen[0], want);
        let token = b"n,,\x01auth=Bearer eyJraWQiOiJ0ZXN0In0.e30.c2ln\x01\x01";
        let mut want = header(36, 2, 2, true);
        want.push(token.len() as u8 + 1);
        want.extend_from_slice(token);
        want.push(0);
        assert_eq!(seen[1], want);
    }
    // librdkafka's unsecured JWT, with an extension
    let (addr, _, seen) = sasl_v1_peer(vec![(0, None, b"")]);
    let c = cfg(&[
        ("bootstrap.servers", &addr),
        ("security.protocol", "sasl_plaintext"),
        ("sasl.mechanisms", "OAUTHBEARER"),
        ("enable.sasl.oauthbearer.unsecure.jwt", "true"),
        (
            "sasl.oauthbearer.config",
            "principal=alice scope=read,write lifeSeconds=60 extension_traceId=42",
        ),
    ]);
    meta(&addr, &c).unwrap();
    let seen = seen.lock().unwrap();
    let sent = String::from_utf8_lossy(&seen[1]).into_owned();
    let start = sent.find("n,,\x01auth=Bearer ").unwrap();
    let msg = &sent[start..sent.len() - 1];
    let jwt = msg
        .trim_start_matches("n,,\x01auth=Bearer ")
        .split('\x01')
        .next()
        .unwrap();
    assert!(msg.ends_with("\x01traceId=42\x01\x01"), "{msg:?}");
    let parts: Vec<&str> = jwt.split('.').collect();
    assert_eq!(parts[0], "eyJhbGciOiJub25lIn0"); // {"alg":"none"}
    assert_eq!(parts[2], "");
    let claims = String::from_utf8(
        gregor::net::sasl::b64::decode(&parts[1].replace('-', "+").replace('_', "/")).unwrap(),
    )
    .unwrap();
    let v: serde_json::Value = serde_json::from_str(&claims).unwrap();
    assert_eq!(v["sub"], "alice");
    assert_eq!(v["scope"], serde_json::json!(["read", "write"]));
    let life = v["exp"].as_f64().unwrap() - v["iat"].as_f64().unwrap();
    assert!((life - 60.0).abs() < 0.01, "{claims}");
}

#[test]
fn oauthbearer_error_challenge_is_answered_then_reported() {
    let (addr, _, seen) = sasl_v1_peer(vec![
        (0, None, br#"{"status":"invalid_token"}"#),
        (58, Some("invalid token"), b""),
    ]);
    let c = cfg(&[
        ("bootstrap.servers", &addr),
        ("security.protocol", "sasl_plaintext"),
        ("sasl.mechanisms", "OAUTHBEARER"),
        ("sasl.oauthbearer.token", "bad"),
    ]);
    let e = meta(&addr, &c).unwrap_err();
    assert_eq!(e.code(), 58, "{e}");
    // the client's answer to the challenge is a lone kvsep (RFC 7628)
    let seen = seen.lock().unwrap();
    let mut want = header(36, 2, 3, true);
    want.extend_from_slice(&[2, 1, 0]);
    assert_eq!(seen[2], want);
}

#[test]
fn v0_handshake_uses_raw_frames() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let seen2 = seen.clone();
    let (addr, _) = mock(move |_, mut s| {
        let r = read_req(&mut s).unwrap();
        api_versions(&mut s, &r, 0);
        let r = read_req(&mut s).unwrap();
        assert_eq!((r.api_key, r.version), (17, 0));
        handshake_resp(&mut s, &r, 0);
        // the raw token: size, bytes
        let mut size = [0u8; 4];
        s.read_exact(&mut size).unwrap();
        let mut token = vec![0; i32::from_be_bytes(size) as usize];
        s.read_exact(&mut token).unwrap();
        seen2.lock().unwrap().push(token);
        s.write_all(&[0, 0, 0, 0]).unwrap(); // empty answer: accepted
        while let Some(r) = read_req(&mut s) {
            metadata(&mut s, &r);
        }
    });
    meta(&addr, &plain_cfg(&addr)).unwrap();
    assert_eq!(seen.lock().unwrap()[0], b"\0alice\0s3cr3t");
}

#[test]
fn v0_broker_closing_the_connection_is_an_authentication_error() {
    let (addr, _) = mock(move |_, mut s| {
        let r = read_req(&mut s).unwrap();
        api_versions(&mut s, &r, 0);
        let r = read_req(&mut s).unwrap();
        handshake_resp(&mut s, &r, 0);
        let mut size = [0u8; 4];
        let _ = s.read_exact(&mut size);
        // refused: the broker just closes
    });
    let e = meta(&addr, &plain_cfg(&addr)).unwrap_err();
    assert_eq!(e.code(), local::AUTHENTICATION, "{e}");
    assert!(e.to_string().contains("sasl.password"), "{e}");
}

#[test]
fn mechanism_not_enabled_names_what_the_broker_offers() {
    if !security_up() {
        return;
    }
    let (addr, _) = mock(move |_, mut s| {
        while let Some(r) = read_req(&mut s) {
            match r.api_key {
                18 => api_versions(&mut s, &r, 1),
                17 => handshake_resp(&mut s, &r, 33),
                _ => return,
            }
        }
    });
    let c = scram_cfg(&addr, "sasl_plaintext", "SCRAM-SHA-512", "u", "p");
    let e = meta(&addr, &c).unwrap_err();
    assert_eq!(e.code(), 33, "{e}");
    assert!(e.to_string().contains("PLAIN, OAUTHBEARER"), "{e}");
}

// ---------------------------------------------------------------- scripted TLS peer

fn server_config(
    cert_file: &str,
    key_file: &str,
    client_ca: Option<&str>,
) -> Arc<rustls::ServerConfig> {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert_file)
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let key = PrivateKeyDer::from_pem_file(key_file).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let b = rustls::ServerConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .unwrap();
    let b = match client_ca {
        None => b.with_no_client_auth(),
        Some(ca) => {
            let mut roots = rustls::RootCertStore::empty();
            for c in CertificateDer::pem_file_iter(ca).unwrap() {
                roots.add(c.unwrap()).unwrap();
            }
            let v = rustls::server::WebPkiClientVerifier::builder_with_provider(
                Arc::new(roots),
                provider,
            )
            .build()
            .unwrap();
            b.with_client_cert_verifier(v)
        }
    };
    Arc::new(b.with_single_cert(chain, key).unwrap())
}

/// A TLS peer that serves ApiVersions and Metadata; counts handshakes done.
fn tls_mock(config: Arc<rustls::ServerConfig>) -> (String, Arc<AtomicUsize>) {
    let done = Arc::new(AtomicUsize::new(0));
    let done2 = done.clone();
    let (addr, _) = mock(move |_, s| {
        let conn = rustls::ServerConnection::new(config.clone()).unwrap();
        let mut tls = rustls::StreamOwned::new(conn, s);
        while let Some(r) = read_req(&mut tls) {
            done2.fetch_add(1, Ordering::SeqCst);
            match r.api_key {
                18 => api_versions(&mut tls, &r, 1),
                3 => metadata(&mut tls, &r),
                _ => return,
            }
            let _ = tls.flush();
        }
    });
    (addr, done)
}

#[test]
fn expired_certificate_is_named() {
    if !security_up() {
        return;
    }
    let (addr, served) = tls_mock(server_config(
        &cert("expired.pem"),
        &cert("expired.key"),
        None,
    ));
    let e = meta(&addr, &ssl_cfg(&addr, &[])).unwrap_err();
    assert_eq!(e.code(), local::SSL, "{e}");
    assert!(e.to_string().contains("expired"), "{e}");
    assert_eq!(served.load(Ordering::SeqCst), 0);
}

#[test]
fn client_certificate_is_presented() {
    if !security_up() {
        return;
    }
    let config = server_config(
        &cert("broker.pem"),
        &cert("broker.key"),
        Some(&cert("ca.pem")),
    );
    let (addr, _) = tls_mock(config.clone());
    let with_cert = ssl_cfg(
        &addr,
        &[
            ("ssl.certificate.location", &cert("client.pem")),
            ("ssl.key.location", &cert("client.key")),
        ],
    );
    assert_eq!(meta(&addr, &with_cert).unwrap().brokers[0].node_id, 7);
    // without one, the server refuses the handshake (TLS 1.3 reports it
    // when the client first reads)
    let (addr, _) = tls_mock(config);
    let e = meta(&addr, &ssl_cfg(&addr, &[])).unwrap_err();
    assert!(
        e.code() == local::SSL || e.code() == local::TRANSPORT,
        "{e}"
    );
}

#[test]
fn large_requests_and_responses_cross_tls_while_pipelined() {
    if !security_up() {
        return;
    }
    // Many pipelined requests whose frames span several TLS records, from
    // several threads at once, over one connection.
    let addr = tls_broker();
    let c = ssl_cfg(&addr, &[]);
    let net = NetConfig::from_config(&c).unwrap();
    let conn = BrokerConn::new(&addr, &addr, net);
    let topics: Vec<String> = (0..2000)
        .map(|i| format!("no-such-topic-{i:05}-{}", "x".repeat(40)))
        .collect();
    let mut req = MetadataRequest::default();
    req.topics = Some(
        topics
            .iter()
            .map(|t| {
                let mut m = gregor::protocol::metadata::MetadataRequestTopic::default();
                m.name = Some(t.clone());
                m
            })
            .collect(),
    );
    req.allow_auto_topic_creation = false;
    thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                let pending: Vec<_> = (0..5)
                    .map(|_| {
                        let v = conn
                            .version_for::<MetadataRequest>(
                                Instant::now() + Duration::from_secs(10),
                            )
                            .unwrap();
                        conn.send_at(&req, v, Instant::now() + Duration::from_secs(30))
                            .unwrap()
                    })
                    .collect();
                for p in pending {
                    let resp = p
                        .wait_until(Instant::now() + Duration::from_secs(30))
                        .unwrap();
                    assert_eq!(resp.topics.len(), 2000);
                }
            });
        }
    });
    conn.close();
}
