//! SASL/OAUTHBEARER token refresh (KIP-255, librdkafka's refresh callback
//! and set_token / set_token_failure), KIP-368 re-authentication (also for
//! PLAIN and SCRAM), and the OIDC client-credentials grant (KIP-768)
//! against a local HTTPS token endpoint.
//!
//! The SASL side is a scripted in-test peer that records every request of
//! every connection with the time it arrived, answers SaslAuthenticate with
//! a short `session_lifetime_ms`, and notes any request other than SASL
//! that arrives during a re-authentication (KIP-368 forbids them). The
//! real SASL broker (`$GREGOR_TEST_BROKER_SASL`, SCRAM) is checked to still
//! authenticate, produce and consume.
//!
//! Run: `cargo test --test oauthbearer`.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use gregor::config::Config;
use gregor::error::local;
use gregor::net::sasl::b64;
use gregor::net::sasl::token::OAuthBearer;
use gregor::net::{BrokerConn, ClientEvent, NetConfig};
use gregor::protocol::api_versions::{ApiVersion, ApiVersionsResponse};
use gregor::protocol::metadata::{MetadataRequest, MetadataResponse, MetadataResponseBroker};
use gregor::protocol::sasl_authenticate::SaslAuthenticateResponse;
use gregor::protocol::sasl_handshake::SaslHandshakeResponse;
use gregor::protocol::Message;
use gregor::wire::Bytes;

fn env_or(var: &str, default: &str) -> String {
    std::env::var(var).unwrap_or_else(|_| default.to_string())
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

fn cfg(pairs: &[(&str, &str)]) -> Config {
    let mut c = Config::new();
    for (k, v) in pairs {
        c.set(k, v).unwrap_or_else(|e| panic!("{k}={v}: {e}"));
    }
    c
}

use common::cert;

// ---------------------------------------------------------------- scripted SASL peer

/// One request as the peer saw it.
#[derive(Clone, Debug)]
struct Seen {
    conn: usize,
    at: Instant,
    api_key: i16,
    /// For SaslAuthenticate: the bearer token, or the PLAIN user.
    credential: Option<String>,
    /// For SaslAuthenticate: the whole request, as text.
    raw: String,
    /// A non-SASL request that arrived between a re-authentication's
    /// SaslHandshake and its SaslAuthenticate (a KIP-368 violation).
    during_reauth: bool,
}

use common::response_frame as frame;

/// What the client authenticated with: the OAUTHBEARER token, or the
/// PLAIN user name.
fn credential(bytes: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(bytes);
    if let Some(i) = text.find("auth=Bearer ") {
        let rest = &text[i + "auth=Bearer ".len()..];
        return rest.split('\x01').next().map(str::to_string);
    }
    // PLAIN: \0user\0password, the test's passwords start with "pw-"
    let j = bytes.windows(4).position(|w| w == b"\0pw-")?;
    let i = bytes[..j].iter().rposition(|b| *b == 0)?;
    Some(String::from_utf8_lossy(&bytes[i + 1..j]).into_owned())
}

/// A scripted SASL broker: answers every SaslAuthenticate with
/// `lifetime_ms` as the session lifetime and Metadata after `meta_delay`.
fn sasl_peer(lifetime_ms: i64, meta_delay: Duration) -> (String, Arc<Mutex<Vec<Seen>>>) {
    sasl_peer_refusing(lifetime_ms, meta_delay, false)
}

/// As [`sasl_peer`]; with `refuse_reauth`, a re-authentication is refused
/// (SASL_AUTHENTICATION_FAILED) and the connection closed, as a broker
/// that no longer accepts the credentials does.
fn sasl_peer_refusing(
    lifetime_ms: i64,
    meta_delay: Duration,
    refuse_reauth: bool,
) -> (String, Arc<Mutex<Vec<Seen>>>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap().to_string();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let seen2 = seen.clone();
    let n = AtomicUsize::new(0);
    thread::spawn(move || {
        for s in l.incoming() {
            let Ok(s) = s else { return };
            let i = n.fetch_add(1, Ordering::SeqCst);
            let seen = seen2.clone();
            thread::spawn(move || serve_sasl(i, s, lifetime_ms, meta_delay, refuse_reauth, &seen));
        }
    });
    (addr, seen)
}

fn serve_sasl(
    conn: usize,
    mut s: TcpStream,
    lifetime_ms: i64,
    meta_delay: Duration,
    refuse_reauth: bool,
    seen: &Mutex<Vec<Seen>>,
) {
    let mut authenticated = false;
    let mut in_auth = false;
    loop {
        let mut size = [0u8; 4];
        if s.read_exact(&mut size).is_err() {
            return;
        }
        let mut buf = vec![0u8; i32::from_be_bytes(size) as usize];
        if s.read_exact(&mut buf).is_err() {
            return;
        }
        let api_key = i16::from_be_bytes([buf[0], buf[1]]);
        let version = i16::from_be_bytes([buf[2], buf[3]]);
        let corr = i32::from_be_bytes([buf[4], buf[5], buf[6], buf[7]]);
        let mut rec = Seen {
            conn,
            at: Instant::now(),
            api_key,
            credential: None,
            raw: String::new(),
            during_reauth: false,
        };
        let out = match api_key {
            18 => {
                let mut resp = ApiVersionsResponse::default();
                resp.api_keys = [(18, 0, 3), (3, 0, 12), (17, 0, 1), (36, 0, 2)]
                    .iter()
                    .map(|&(k, lo, hi)| {
                        let mut v = ApiVersion::default();
                        v.api_key = k;
                        v.min_version = lo;
                        v.max_version = hi;
                        v
                    })
                    .collect();
                frame(corr, 0, &resp.to_bytes(version).unwrap())
            }
            17 => {
                in_auth = true;
                let mut resp = SaslHandshakeResponse::default();
                resp.mechanisms = vec!["PLAIN".into(), "OAUTHBEARER".into()];
                frame(corr, 0, &resp.to_bytes(version).unwrap())
            }
            36 => {
                rec.credential = credential(&buf);
                rec.raw = String::from_utf8_lossy(&buf).into_owned();
                let mut resp = SaslAuthenticateResponse::default();
                resp.session_lifetime_ms = lifetime_ms;
                if refuse_reauth && authenticated {
                    resp.error_code = 58;
                    resp.error_message = Some("credentials no longer valid".into());
                    let hv = if version >= 2 { 1 } else { 0 };
                    seen.lock().unwrap().push(rec);
                    let _ = s.write_all(&frame(corr, hv, &resp.to_bytes(version).unwrap()));
                    return;
                }
                resp.auth_bytes = Bytes::from(Vec::new());
                in_auth = false;
                authenticated = true;
                let hv = if version >= 2 { 1 } else { 0 };
                frame(corr, hv, &resp.to_bytes(version).unwrap())
            }
            3 => {
                rec.during_reauth = in_auth || !authenticated;
                thread::sleep(meta_delay);
                let mut b = MetadataResponseBroker::default();
                b.node_id = 7;
                b.host = "ok".to_string();
                b.port = 1;
                let mut resp = MetadataResponse::default();
                resp.brokers = vec![b];
                let hv = if version >= 9 { 1 } else { 0 };
                frame(corr, hv, &resp.to_bytes(version).unwrap())
            }
            _ => return,
        };
        seen.lock().unwrap().push(rec);
        if s.write_all(&out).is_err() {
            return;
        }
    }
}

fn oauth_cfg(addr: &str, extra: &[(&str, &str)]) -> Config {
    let mut c = cfg(&[
        ("bootstrap.servers", addr),
        ("security.protocol", "sasl_plaintext"),
        ("sasl.mechanisms", "OAUTHBEARER"),
    ]);
    for (k, v) in extra {
        c.set(k, v).unwrap();
    }
    c
}

fn holder(net: &NetConfig) -> OAuthBearer {
    net.sasl
        .as_ref()
        .and_then(|m| m.oauthbearer().cloned())
        .expect("OAUTHBEARER holder")
}

/// Serves the client's events (what `poll` does) until `stop`.
fn poller(net: &NetConfig, stop: Arc<AtomicBool>) -> thread::JoinHandle<usize> {
    let events = net.events.clone();
    thread::spawn(move || {
        let mut served = 0;
        while !stop.load(Ordering::SeqCst) {
            served += events.serve();
            thread::sleep(Duration::from_millis(10));
        }
        served
    })
}

/// Authentications (SaslAuthenticate requests) of connection `conn`.
fn auths(seen: &[Seen], conn: usize) -> Vec<Seen> {
    seen.iter()
        .filter(|s| s.conn == conn && s.api_key == 36)
        .cloned()
        .collect()
}

// ---------------------------------------------------------------- refresh and re-authentication

#[test]
fn refresh_callback_from_poll_and_reauthentication_with_the_refreshed_token() {
    // Long enough that a loaded machine cannot push a refresh or a
    // re-authentication past the end of its window (20% of each lifetime).
    const LIFETIME: i64 = 5000; // the broker's session lifetime
    const TOKEN_LIFE: i64 = 2000; // each token's lifetime: refreshed after 1600 ms
    let (addr, seen) = sasl_peer(LIFETIME, Duration::from_millis(30));
    let mut net =
        NetConfig::from_config(&oauth_cfg(&addr, &[("sasl.oauthbearer.config", "cfg-1")])).unwrap();
    net.connect_timeout = Duration::from_secs(10);
    let ob = holder(&net);
    let calls = Arc::new(Mutex::new(Vec::<(Instant, String, thread::ThreadId)>::new()));
    let c2 = calls.clone();
    ob.set_refresh_callback(Some(Box::new(move |ob, config| {
        let mut calls = c2.lock().unwrap();
        calls.push((Instant::now(), config.to_string(), thread::current().id()));
        let n = calls.len();
        ob.set_token(
            &format!("tok-{n}"),
            now_ms() + TOKEN_LIFE,
            "alice",
            &[("traceId".to_string(), n.to_string())],
        )
        .unwrap();
    })));
    let stop = Arc::new(AtomicBool::new(false));
    let poll = poller(&net, stop.clone());
    let poll_thread = poll.thread().id();
    let conn = BrokerConn::new(addr.as_str(), addr.as_str(), net.clone());
    let t0 = Instant::now();
    // Requests from three threads keep the connection busy across two
    // re-authentications: none may fail or be lost.
    let conn = Arc::new(conn);
    let workers: Vec<_> = (0..3)
        .map(|_| {
            let conn = conn.clone();
            thread::spawn(move || {
                let mut ok = 0;
                while t0.elapsed() < Duration::from_millis(2 * LIFETIME as u64 + 600) {
                    conn.call(&MetadataRequest::default(), Some(Duration::from_secs(10)))
                        .unwrap_or_else(|e| panic!("request during re-authentication: {e}"));
                    ok += 1;
                }
                ok
            })
        })
        .collect();
    let done: usize = workers.into_iter().map(|w| w.join().unwrap()).sum();
    stop.store(true, Ordering::SeqCst);
    poll.join().unwrap();
    conn.close();
    let seen = seen.lock().unwrap().clone();
    let calls = calls.lock().unwrap().clone();
    // the callback ran at the start and again before each token expired,
    // on the polling thread, with sasl.oauthbearer.config
    assert!(calls.len() >= 3, "{} refreshes", calls.len());
    assert!(calls.iter().all(|c| c.1 == "cfg-1" && c.2 == poll_thread));
    for w in calls.windows(2) {
        let gap = (w[1].0 - w[0].0).as_millis() as i64;
        assert!(
            (TOKEN_LIFE * 7 / 10..TOKEN_LIFE).contains(&gap),
            "refresh {gap} ms after the last (token life {TOKEN_LIFE} ms)"
        );
    }
    // one connection, authenticated again before each session lifetime ran out
    assert!(seen.iter().all(|s| s.conn == 0), "reconnected: {seen:?}");
    let a = auths(&seen, 0);
    assert!(a.len() >= 3, "{} authentications", a.len());
    let mut gaps = Vec::new();
    for w in a.windows(2) {
        let gap = (w[1].at - w[0].at).as_millis() as i64;
        gaps.push(gap);
        assert!(
            (LIFETIME * 8 / 10..LIFETIME).contains(&gap),
            "re-authenticated {gap} ms after the last (lifetime {LIFETIME} ms)"
        );
    }
    // each re-authentication carried the token current then, never an old one
    let tokens: Vec<String> = a.iter().map(|s| s.credential.clone().unwrap()).collect();
    assert_eq!(tokens[0], "tok-1");
    assert!(tokens.windows(2).all(|w| w[0] != w[1]), "{tokens:?}");
    // two handshakes per re-authentication... one per authentication
    let handshakes = seen.iter().filter(|s| s.api_key == 17).count();
    assert_eq!(handshakes, a.len());
    // no request slipped in between SaslHandshake and SaslAuthenticate
    assert!(seen.iter().all(|s| !s.during_reauth), "{seen:?}");
    let metas = seen.iter().filter(|s| s.api_key == 3).count();
    assert_eq!(metas, done);
    println!(
        "FIGURES reauth: session lifetime {LIFETIME} ms, authentications at gaps {gaps:?} ms \
         ({} re-authentications on 1 connection), tokens {tokens:?}, token refreshes {} \
         (token life {TOKEN_LIFE} ms) at gaps {:?} ms, {done} requests, none lost",
        a.len() - 1,
        calls.len(),
        calls
            .windows(2)
            .map(|w| (w[1].0 - w[0].0).as_millis())
            .collect::<Vec<_>>()
    );
}

#[test]
fn plain_reauthenticates_with_the_credentials_set_last() {
    const LIFETIME: i64 = 1500;
    let (addr, seen) = sasl_peer(LIFETIME, Duration::ZERO);
    let c = cfg(&[
        ("bootstrap.servers", &addr),
        ("security.protocol", "sasl_plaintext"),
        ("sasl.mechanisms", "PLAIN"),
        ("sasl.username", "alice"),
        ("sasl.password", "pw-1"),
    ]);
    let net = NetConfig::from_config(&c).unwrap();
    let conn = BrokerConn::new(addr.as_str(), addr.as_str(), net.clone());
    conn.call(&MetadataRequest::default(), Some(Duration::from_secs(5)))
        .unwrap();
    thread::sleep(Duration::from_millis(LIFETIME as u64));
    net.sasl_credentials.set("bob", "pw-2");
    thread::sleep(Duration::from_millis(LIFETIME as u64 * 3 / 2));
    // idle meanwhile: still the same session
    conn.call(&MetadataRequest::default(), Some(Duration::from_secs(5)))
        .unwrap();
    conn.close();
    let seen = seen.lock().unwrap().clone();
    assert!(seen.iter().all(|s| s.conn == 0), "reconnected: {seen:?}");
    let a = auths(&seen, 0);
    assert!(a.len() >= 3, "{a:?}");
    let users: Vec<String> = a.iter().map(|s| s.credential.clone().unwrap()).collect();
    assert_eq!(users[0], "alice");
    assert_eq!(users.last().unwrap(), "bob");
    for w in a.windows(2) {
        assert!((w[1].at - w[0].at).as_millis() < LIFETIME as u128);
    }
}

#[test]
fn a_refused_reauthentication_ends_the_session_and_the_next_request_reconnects() {
    const LIFETIME: i64 = 600;
    let (addr, seen) = sasl_peer_refusing(LIFETIME, Duration::ZERO, true);
    let c = oauth_cfg(&addr, &[("sasl.oauthbearer.token", "fixed-token")]);
    let net = NetConfig::from_config(&c).unwrap();
    let errors = Arc::new(Mutex::new(Vec::new()));
    let e2 = errors.clone();
    net.events
        .set_error_callback(Some(Box::new(move |e| e2.lock().unwrap().push(e.clone()))));
    let conn = BrokerConn::new(addr.as_str(), addr.as_str(), net.clone());
    conn.call(&MetadataRequest::default(), Some(Duration::from_secs(5)))
        .unwrap();
    thread::sleep(Duration::from_millis(LIFETIME as u64 + 200));
    assert!(
        !conn.is_connected(),
        "the session outlived a refused re-authentication"
    );
    // the next request authenticates afresh on a new connection
    conn.call(&MetadataRequest::default(), Some(Duration::from_secs(5)))
        .unwrap();
    conn.close();
    net.events.serve();
    let seen = seen.lock().unwrap();
    assert_eq!(auths(&seen, 0).len(), 2);
    assert_eq!(auths(&seen, 1).len(), 1);
    let errors = errors.lock().unwrap();
    assert!(
        errors.iter().any(|e| e.code() == local::AUTHENTICATION
            && e.to_string().contains("re-authentication failed")
            && e.to_string().contains("credentials no longer valid")),
        "{errors:?}"
    );
}

#[test]
fn no_reauthentication_without_a_session_lifetime() {
    let (addr, seen) = sasl_peer(0, Duration::ZERO);
    let c = oauth_cfg(&addr, &[("sasl.oauthbearer.token", "fixed-token")]);
    let conn = BrokerConn::new(
        addr.as_str(),
        addr.as_str(),
        NetConfig::from_config(&c).unwrap(),
    );
    conn.call(&MetadataRequest::default(), Some(Duration::from_secs(5)))
        .unwrap();
    thread::sleep(Duration::from_millis(500));
    conn.close();
    let seen = seen.lock().unwrap();
    assert_eq!(auths(&seen, 0).len(), 1);
}

// ---------------------------------------------------------------- waiting for, and failing to get, a token

#[test]
fn connection_waits_for_set_token_and_fails_on_set_token_failure() {
    let (addr, seen) = sasl_peer(0, Duration::ZERO);
    let mut net = NetConfig::from_config(&oauth_cfg(&addr, &[])).unwrap();
    net.connect_timeout = Duration::from_secs(10);
    let ob = holder(&net);
    // no callback, no token: the connect waits; set_token lets it go on
    let ob2 = ob.clone();
    let setter = thread::spawn(move || {
        thread::sleep(Duration::from_millis(300));
        ob2.set_token("late-token", now_ms() + 60_000, "p", &[])
            .unwrap();
    });
    let conn = BrokerConn::new(addr.as_str(), addr.as_str(), net.clone());
    let t0 = Instant::now();
    conn.call(&MetadataRequest::default(), Some(Duration::from_secs(10)))
        .unwrap();
    let waited = t0.elapsed();
    setter.join().unwrap();
    conn.close();
    assert!(waited >= Duration::from_millis(250), "{waited:?}");
    assert!(waited < Duration::from_secs(3), "{waited:?}");
    assert_eq!(
        auths(&seen.lock().unwrap(), 0)[0].credential.as_deref(),
        Some("late-token")
    );

    // a refresh callback that fails: the connect fails at once, clearly
    let (addr, seen) = sasl_peer(0, Duration::ZERO);
    let mut net = NetConfig::from_config(&oauth_cfg(&addr, &[])).unwrap();
    net.connect_timeout = Duration::from_secs(10);
    holder(&net).set_refresh_callback(Some(Box::new(|ob, _| {
        ob.set_token_failure("identity provider down").unwrap();
    })));
    let stop = Arc::new(AtomicBool::new(false));
    let events = net.events.clone();
    let errors = Arc::new(Mutex::new(Vec::new()));
    let e2 = errors.clone();
    events.set_error_callback(Some(Box::new(move |e| e2.lock().unwrap().push(e.clone()))));
    let poll = poller(&net, stop.clone());
    let conn = BrokerConn::new(addr.as_str(), addr.as_str(), net.clone());
    let t0 = Instant::now();
    let e = conn
        .call(&MetadataRequest::default(), Some(Duration::from_secs(10)))
        .unwrap_err();
    let took = t0.elapsed();
    thread::sleep(Duration::from_millis(100));
    stop.store(true, Ordering::SeqCst);
    poll.join().unwrap();
    conn.close();
    assert_eq!(e.code(), local::AUTHENTICATION, "{e}");
    assert!(e.to_string().contains("identity provider down"), "{e}");
    assert!(took < Duration::from_secs(3), "{took:?}");
    // never dialled: no request reached the broker
    assert!(seen.lock().unwrap().is_empty());
    let errors = errors.lock().unwrap();
    assert!(
        errors.iter().any(|e| e.code() == local::AUTHENTICATION
            && e.to_string().contains("identity provider down")),
        "{errors:?}"
    );

    // SASL/OAUTHBEARER not configured: _STATE, as librdkafka
    let c = cfg(&[("bootstrap.servers", &addr)]);
    let cluster = gregor::cluster::Cluster::new(&c).unwrap();
    let e = cluster.oauthbearer().unwrap_err();
    assert_eq!(e.code(), local::STATE);
    let _ = ClientEvent::Error(e);
}

// ---------------------------------------------------------------- secrets stay secret

#[test]
fn token_and_client_secret_never_in_logs_errors_dumps_or_statistics() {
    const TOKEN: &str = "SECRET-TOKEN-7f3a9";
    const CLIENT_SECRET: &str = "SECRET-CLIENT-b41c";
    let (addr, _) = sasl_peer(700, Duration::ZERO);
    let logs = Arc::new(Mutex::new(String::new()));
    let l2 = logs.clone();
    let mut c = oauth_cfg(
        &addr,
        &[("debug", "all"), ("statistics.interval.ms", "100")],
    );
    c.set_log_callback(Some(gregor::log::LogCallback::new(
        move |_lvl, fac, name, msg| {
            l2.lock()
                .unwrap()
                .push_str(&format!("{fac} {name} {msg}\n"));
        },
    )));
    let producer = gregor::producer::Producer::new(&c).unwrap();
    let stats = Arc::new(Mutex::new(String::new()));
    let s2 = stats.clone();
    producer.set_stats_callback(Some(Box::new(move |j| s2.lock().unwrap().push_str(j))));
    let errors = Arc::new(Mutex::new(String::new()));
    let e2 = errors.clone();
    producer.set_error_callback(Some(Box::new(move |e| {
        e2.lock().unwrap().push_str(&format!("{e} {e:?}\n"));
    })));
    let ob = producer.cluster().oauthbearer().unwrap();
    ob.set_refresh_callback(Some(Box::new(|ob, _| {
        ob.set_token(TOKEN, now_ms() + 60_000, "p", &[]).unwrap();
    })));
    // a bad token value is refused without being echoed
    let bad = ob
        .set_token(&format!("{TOKEN}\u{1}"), now_ms() + 60_000, "p", &[])
        .unwrap_err();
    errors.lock().unwrap().push_str(&format!("{bad} {bad:?}\n"));
    // until the session (700 ms) was re-authenticated and a statistics
    // report was served, with a generous deadline
    let t0 = Instant::now();
    let seen_all =
        || logs.lock().unwrap().contains("Re-authenticat") && !stats.lock().unwrap().is_empty();
    while t0.elapsed() < Duration::from_secs(30) && !seen_all() {
        producer.poll(Duration::from_millis(50));
        let _ = producer
            .cluster()
            .fetch_metadata(Some(&[]), false, Duration::from_millis(500));
    }
    producer.close(Duration::from_secs(2));
    let logs = logs.lock().unwrap().clone();
    assert!(
        logs.contains("Re-authenticat"),
        "no re-authentication logged"
    );
    for (what, text) in [
        ("logs", logs),
        ("statistics", stats.lock().unwrap().clone()),
        ("errors", errors.lock().unwrap().clone()),
        ("token debug", format!("{ob:?} {:?}", ob.current().unwrap())),
    ] {
        assert!(!text.contains(TOKEN), "the token appears in the {what}");
    }
    // dumps: the token and the OIDC client secret are redacted
    let c = cfg(&[
        ("sasl.oauthbearer.token", TOKEN),
        ("sasl.oauthbearer.client.secret", CLIENT_SECRET),
    ]);
    let dump = format!("{:?}", c.dump());
    assert!(
        !dump.contains(TOKEN) && !dump.contains(CLIENT_SECRET),
        "{dump}"
    );
}

// ---------------------------------------------------------------- OIDC

/// One token request as the endpoint saw it.
#[derive(Clone, Debug)]
struct TokenRequest {
    at: Instant,
    method_path: String,
    authorization: String,
    content_type: String,
    body: String,
}

/// A local HTTPS token endpoint (the test CA's broker certificate, for
/// 127.0.0.1): answers each POST with a JWT for subject `svc-N` that
/// expires `life_s` seconds later.
fn token_endpoint(life_s: f64) -> (String, Arc<Mutex<Vec<TokenRequest>>>) {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert("broker.pem"))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let key = PrivateKeyDer::from_pem_file(cert("broker.key")).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = Arc::new(
        rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .unwrap(),
    );
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("https://{}/oauth2/token", l.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let seen2 = seen.clone();
    thread::spawn(move || {
        for s in l.incoming() {
            let Ok(s) = s else { return };
            let conn = rustls::ServerConnection::new(config.clone()).unwrap();
            let mut tls = rustls::StreamOwned::new(conn, s);
            let mut rd = BufReader::new(&mut tls);
            let mut line = String::new();
            if rd.read_line(&mut line).is_err() {
                continue;
            }
            let method_path = line.trim().to_string();
            let (mut authorization, mut content_type, mut length) =
                (String::new(), String::new(), 0usize);
            loop {
                let mut h = String::new();
                if rd.read_line(&mut h).is_err() || h.trim().is_empty() {
                    break;
                }
                let (k, v) = h.split_once(':').unwrap();
                match k.trim().to_ascii_lowercase().as_str() {
                    "authorization" => authorization = v.trim().to_string(),
                    "content-type" => content_type = v.trim().to_string(),
                    "content-length" => length = v.trim().parse().unwrap(),
                    _ => {}
                }
            }
            let mut body = vec![0; length];
            rd.read_exact(&mut body).unwrap();
            let n = {
                let mut seen = seen2.lock().unwrap();
                seen.push(TokenRequest {
                    at: Instant::now(),
                    method_path,
                    authorization,
                    content_type,
                    body: String::from_utf8(body).unwrap(),
                });
                seen.len()
            };
            let exp = now_ms() as f64 / 1000.0 + life_s;
            let claims = format!(
                r#"{{"sub":"svc-{n}","exp":{exp:.3},"iat":{}}}"#,
                now_ms() / 1000
            );
            let jwt = format!(
                "eyJhbGciOiJub25lIn0.{}.c2ln",
                b64::encode_url(claims.as_bytes())
            );
            let json = format!(
                r#"{{"access_token":"{jwt}","token_type":"bearer","expires_in":{}}}"#,
                life_s as i64
            );
            let resp = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
                 Connection: close\r\n\r\n{json}",
                json.len()
            );
            let _ = tls.write_all(resp.as_bytes());
            let _ = tls.flush();
            tls.conn.send_close_notify();
            let _ = tls.flush();
        }
    });
    (url, seen)
}

fn jwt_sub(token: &str) -> String {
    let p = token.split('.').nth(1).unwrap();
    let p = p.replace('-', "+").replace('_', "/");
    let p = format!("{p}{}", "=".repeat((4 - p.len() % 4) % 4));
    let v: serde_json::Value = serde_json::from_slice(&b64::decode(&p).unwrap()).unwrap();
    v["sub"].as_str().unwrap().to_string()
}

#[test]
fn oidc_client_credentials_against_a_local_https_endpoint_with_refresh_on_the_wire() {
    const TOKEN_LIFE_S: f64 = 2.0;
    const SESSION_MS: i64 = 2000;
    let (url, requests) = token_endpoint(TOKEN_LIFE_S);
    let (addr, seen) = sasl_peer(SESSION_MS, Duration::ZERO);
    let c = oauth_cfg(
        &addr,
        &[
            ("sasl.oauthbearer.method", "oidc"),
            ("sasl.oauthbearer.token.endpoint.url", &url),
            ("sasl.oauthbearer.client.id", "gregor-client"),
            ("sasl.oauthbearer.client.secret", "s3cr3t:with/odd&chars"),
            ("sasl.oauthbearer.scope", "kafka read"),
            (
                "sasl.oauthbearer.extensions",
                "logicalCluster=lkc-1,poolId=pool-9",
            ),
            ("https.ca.location", &cert("ca.pem")),
        ],
    );
    let mut net = NetConfig::from_config(&c).unwrap();
    net.connect_timeout = Duration::from_secs(10);
    let conn = BrokerConn::new(addr.as_str(), addr.as_str(), net.clone());
    let t0 = Instant::now();
    conn.call(&MetadataRequest::default(), Some(Duration::from_secs(10)))
        .unwrap();
    let first_auth = t0.elapsed();
    // idle for a while: the tokens are refreshed in the background, and the
    // re-authentications carry them to the broker
    thread::sleep(Duration::from_millis(4300));
    conn.call(&MetadataRequest::default(), Some(Duration::from_secs(10)))
        .unwrap();
    conn.close();
    drop(net);
    let reqs = requests.lock().unwrap().clone();
    let seen = seen.lock().unwrap().clone();
    // the token requests: form fields and HTTP Basic authorization
    assert!(reqs.len() >= 2, "{reqs:?}");
    for r in &reqs {
        assert_eq!(r.method_path, "POST /oauth2/token HTTP/1.1");
        assert_eq!(r.content_type, "application/x-www-form-urlencoded");
        assert_eq!(r.body, "grant_type=client_credentials&scope=kafka%20read");
        let basic = r.authorization.strip_prefix("Basic ").unwrap();
        assert_eq!(
            b64::decode(basic).unwrap(),
            b"gregor-client:s3cr3t:with/odd&chars"
        );
    }
    let refresh_gaps: Vec<u128> = reqs
        .windows(2)
        .map(|w| (w[1].at - w[0].at).as_millis())
        .collect();
    for g in &refresh_gaps {
        // 80 % of a 2-second token (its exp has millisecond precision)
        assert!(
            (1400..2000).contains(g),
            "refresh after {g} ms: {refresh_gaps:?}"
        );
    }
    // the broker saw the first token, then refreshed ones, on one connection
    assert!(seen.iter().all(|s| s.conn == 0), "reconnected: {seen:?}");
    let a = auths(&seen, 0);
    let subs: Vec<String> = a
        .iter()
        .map(|s| jwt_sub(s.credential.as_deref().unwrap()))
        .collect();
    assert_eq!(subs[0], "svc-1");
    assert!(
        subs.iter().any(|s| s != "svc-1"),
        "never a refreshed token: {subs:?}"
    );
    // extensions travel with the token
    let raw = seen.len();
    assert!(raw > 0);
    let auth_gaps: Vec<u128> = a
        .windows(2)
        .map(|w| (w[1].at - w[0].at).as_millis())
        .collect();
    for g in &auth_gaps {
        assert!(*g < SESSION_MS as u128, "{auth_gaps:?}");
    }
    println!(
        "FIGURES oidc: first token and authentication in {} ms; {} token requests \
         (token life {TOKEN_LIFE_S} s) at gaps {refresh_gaps:?} ms; broker saw subjects {subs:?} \
         at re-authentication gaps {auth_gaps:?} ms (session lifetime {SESSION_MS} ms)",
        first_auth.as_millis(),
        reqs.len()
    );
}

#[test]
fn oidc_extensions_reach_the_broker_and_bad_settings_are_named() {
    let (url, _) = token_endpoint(60.0);
    let (addr, seen) = sasl_peer(0, Duration::ZERO);
    let c = oauth_cfg(
        &addr,
        &[
            ("sasl.oauthbearer.method", "oidc"),
            ("sasl.oauthbearer.token.endpoint.url", &url),
            ("sasl.oauthbearer.client.id", "id"),
            ("sasl.oauthbearer.client.secret", "secret"),
            (
                "sasl.oauthbearer.extensions",
                "logicalCluster=lkc-1,poolId=pool-9",
            ),
            ("https.ca.location", &cert("ca.pem")),
        ],
    );
    let net = NetConfig::from_config(&c).unwrap();
    let ob = holder(&net);
    let conn = BrokerConn::new(addr.as_str(), addr.as_str(), net.clone());
    conn.call(&MetadataRequest::default(), Some(Duration::from_secs(10)))
        .unwrap();
    let tok = ob.current().unwrap();
    assert_eq!(
        tok.extensions,
        vec![
            ("logicalCluster".to_string(), "lkc-1".to_string()),
            ("poolId".to_string(), "pool-9".to_string())
        ]
    );
    assert_eq!(ob.current_metadata().unwrap().0, "svc-1");
    conn.close();
    let a = auths(&seen.lock().unwrap(), 0);
    assert!(
        a[0].raw
            .ends_with("\x01logicalCluster=lkc-1\x01poolId=pool-9\x01\x01\0"),
        "{:?}",
        a[0].raw
    );
    // missing and bad settings name the property
    for (k, v, want) in [
        (
            "sasl.oauthbearer.client.id",
            "",
            "sasl.oauthbearer.client.id",
        ),
        (
            "sasl.oauthbearer.extensions",
            "auth=x",
            "sasl.oauthbearer.extensions",
        ),
        (
            "sasl.oauthbearer.token.endpoint.url",
            "ftp://x",
            "token.endpoint.url",
        ),
    ] {
        let mut c = c.clone();
        c.set(k, v).unwrap();
        let e = NetConfig::from_config(&c).unwrap_err();
        assert!(e.to_string().contains(want), "{k}={v}: {e}");
    }
    // a wrong CA: the token request fails, the connection says why
    let (url, _) = token_endpoint(60.0);
    let mut c2 = c.clone();
    c2.set("sasl.oauthbearer.token.endpoint.url", &url).unwrap();
    c2.set("https.ca.location", &cert("other-ca.pem")).unwrap();
    let (addr, seen) = sasl_peer(0, Duration::ZERO);
    c2.set("bootstrap.servers", &addr).unwrap();
    let mut net = NetConfig::from_config(&c2).unwrap();
    net.connect_timeout = Duration::from_secs(10);
    let conn = BrokerConn::new(addr.as_str(), addr.as_str(), net);
    let e = conn
        .call(&MetadataRequest::default(), Some(Duration::from_secs(10)))
        .unwrap_err();
    conn.close();
    assert_eq!(e.code(), local::AUTHENTICATION, "{e}");
    assert!(e.to_string().contains("OIDC token endpoint"), "{e}");
    assert!(!e.to_string().contains("secret"), "{e}");
    assert!(seen.lock().unwrap().is_empty());
}

// ---------------------------------------------------------------- the real SASL broker

#[test]
fn real_sasl_broker_still_authenticates_and_reports_its_session_lifetime() {
    let b = env_or("GREGOR_TEST_BROKER_SASL", "127.0.0.1:9094");
    if !common::service_up("the SASL test broker", &b) {
        return;
    }
    let logs = Arc::new(Mutex::new(Vec::<String>::new()));
    let l2 = logs.clone();
    let mut c = cfg(&[
        ("bootstrap.servers", &b),
        ("security.protocol", "sasl_plaintext"),
        ("sasl.mechanisms", "SCRAM-SHA-256"),
        ("sasl.username", "gregor256"),
        ("sasl.password", "gregor-pw-256"),
        ("debug", "security"),
    ]);
    c.set_log_callback(Some(gregor::log::LogCallback::new(move |_, _, _, m| {
        l2.lock().unwrap().push(m.to_string());
    })));
    let producer = gregor::producer::Producer::new(&c).unwrap();
    let topic = common::unique_topic("oauth-sasl");
    let rec = gregor::message::ProducerRecord::new(&topic, &b"scram still works"[..]);
    producer
        .send_sync(&rec, Some(Duration::from_secs(30)))
        .unwrap_or_else(|e| panic!("produce over SASL/SCRAM: {e}"));
    producer.close(Duration::from_secs(5));
    let logs = logs.lock().unwrap();
    let line = logs
        .iter()
        .find(|l| l.contains("Authenticated with SASL mechanism SCRAM-SHA-256"))
        .unwrap_or_else(|| panic!("no authentication logged: {logs:?}"));
    println!("FIGURES real broker {b}: {line}");
}

/// The real SASL broker gives a 60 s session lifetime: a SCRAM session
/// re-authenticates before it runs out and stays usable. Takes a minute,
/// so it runs on demand: `cargo test --test oauthbearer -- --ignored`.
#[test]
#[ignore]
fn real_sasl_broker_scram_session_is_reauthenticated_before_its_lifetime() {
    let b = env_or("GREGOR_TEST_BROKER_SASL", "127.0.0.1:9094");
    if !common::service_up("the SASL test broker", &b) {
        return;
    }
    let logs = Arc::new(Mutex::new(Vec::<(Instant, String)>::new()));
    let l2 = logs.clone();
    let mut c = cfg(&[
        ("bootstrap.servers", &b),
        ("security.protocol", "sasl_plaintext"),
        ("sasl.mechanisms", "SCRAM-SHA-512"),
        ("sasl.username", "gregor512"),
        ("sasl.password", "gregor-pw-512"),
        ("debug", "security"),
    ]);
    c.set_log_callback(Some(gregor::log::LogCallback::new(move |_, _, _, m| {
        l2.lock().unwrap().push((Instant::now(), m.to_string()));
    })));
    let producer = gregor::producer::Producer::new(&c).unwrap();
    let topic = common::unique_topic("oauth-reauth");
    let t0 = Instant::now();
    let mut sent = 0;
    while t0.elapsed() < Duration::from_secs(66) {
        let rec = gregor::message::ProducerRecord::new(&topic, &b"across re-authentication"[..]);
        producer
            .send_sync(&rec, Some(Duration::from_secs(30)))
            .unwrap_or_else(|e| panic!("produce at {:?}: {e}", t0.elapsed()));
        sent += 1;
        thread::sleep(Duration::from_millis(500));
    }
    let connects = producer
        .cluster()
        .connections()
        .iter()
        .map(|(_, c)| c.take_stats().connects)
        .sum::<u64>();
    producer.close(Duration::from_secs(5));
    let logs = logs.lock().unwrap();
    let first = logs
        .iter()
        .find(|(_, l)| l.contains("Authenticated with SASL mechanism"))
        .expect("authenticated");
    let re: Vec<&(Instant, String)> = logs
        .iter()
        .filter(|(_, l)| l.contains("Re-authenticated"))
        .collect();
    assert!(!re.is_empty(), "no re-authentication in 66 s");
    let after = (re[0].0 - first.0).as_millis();
    assert!(
        after < 60_000,
        "re-authenticated {after} ms after the first"
    );
    println!(
        "FIGURES real broker SCRAM-SHA-512: session lifetime 60000 ms, re-authenticated \
         {after} ms after authenticating ({}), {sent} messages produced across it, \
         {connects} connect(s) in all",
        re[0].1
    );
}
