//! The brokers' network side: one listener thread per broker, two threads
//! per connection (one handles requests as they arrive, one sends their
//! answers when the broker's round-trip time has passed), size-prefixed
//! frames, and the dispatch from an API key to its handler. Requests on one
//! connection are answered in order, as Kafka does.

use crate::sync::MutexExt;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use super::ctx::Ctx;
use super::shared::{BrokerNet, Shared};
use super::state::TrackedRequest;
use super::{groups, handlers, telemetry, txn};
use crate::protocol::api_versions::{
    ApiVersion, ApiVersionsRequest, ApiVersionsResponse, FinalizedFeatureKey, SupportedFeatureKey,
};
use crate::protocol::header::{RequestHeader, ResponseHeader};
use crate::protocol::versions::TRANSACTION_VERSION_FEATURE;
use crate::protocol::KafkaCode;
use crate::protocol::{self as p, Message, Request};
use crate::wire::{Reader, Writer};

/// Kafka's `socket.request.max.bytes` default: larger frames close the connection.
const MAX_REQUEST: usize = 104_857_600;

/// Starts accepting connections for `broker` on `l`.
pub(crate) fn start_listener(shared: &Arc<Shared>, broker: i32, l: TcpListener) {
    let stop = Arc::new(AtomicBool::new(false));
    let port = l.local_addr().map(|a| a.port()).unwrap_or(0);
    let weak = Arc::downgrade(shared);
    let stop2 = stop.clone();
    let accept = std::thread::Builder::new()
        .name(format!("gregor mock broker {broker}"))
        .spawn(move || accept_loop(weak, broker, l, stop2))
        .ok();
    let mut net = shared.net.locked();
    net.insert(
        broker,
        BrokerNet {
            stop,
            port,
            accept,
            conns: Vec::new(),
        },
    );
}

/// Closes `broker`'s listener and every connection it accepted.
pub(crate) fn stop_listener(shared: &Arc<Shared>, broker: i32) {
    let entry = {
        let mut net = shared.net.locked();
        net.remove(&broker)
    };
    let Some(mut b) = entry else { return };
    b.stop.store(true, Ordering::SeqCst);
    // Wake the blocking accept so the thread sees the flag and drops the listener.
    let _ =
        TcpStream::connect_timeout(&([127, 0, 0, 1], b.port).into(), Duration::from_millis(500));
    if let Some(h) = b.accept.take() {
        let _ = h.join();
    }
    for c in b.conns.drain(..) {
        let _ = c.shutdown(Shutdown::Both);
    }
    shared.changed.notify_all();
}

fn accept_loop(shared: Weak<Shared>, broker: i32, l: TcpListener, stop: Arc<AtomicBool>) {
    for conn in l.incoming() {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let Ok(conn) = conn else {
            // EMFILE and the like: back off rather than spin.
            std::thread::sleep(Duration::from_millis(10));
            continue;
        };
        let Some(sh) = shared.upgrade() else { break };
        let _ = conn.set_nodelay(true);
        if let Ok(c) = conn.try_clone() {
            let mut net = sh.net.locked();
            match net.get_mut(&broker) {
                Some(b) => {
                    b.conns.retain(|s| s.peer_addr().is_ok());
                    b.conns.push(c);
                }
                None => break,
            }
        }
        let weak = shared.clone();
        let _ = std::thread::Builder::new()
            .name(format!("gregor mock conn {broker}"))
            .spawn(move || serve_connection(weak, broker, conn));
    }
}

fn read_frame(conn: &mut TcpStream) -> Option<Vec<u8>> {
    let mut size = [0u8; 4];
    conn.read_exact(&mut size).ok()?;
    let size = i32::from_be_bytes(size);
    let size = usize::try_from(size)
        .ok()
        .filter(|s| (8..=MAX_REQUEST).contains(s))?;
    let mut buf = vec![0u8; size];
    conn.read_exact(&mut buf).ok()?;
    Some(buf)
}

/// Why a connection was closed, on stderr when `GREGOR_MOCK_DEBUG` is set
/// (a request the mock cannot serve closes the connection, as on Kafka).
fn debug(m: std::fmt::Arguments<'_>) {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if *ON.get_or_init(|| std::env::var_os("GREGOR_MOCK_DEBUG").is_some()) {
        eprintln!("gregor mock: {m}");
    }
}

/// What to do with one request.
pub(crate) enum Outcome {
    /// Send this response (body after the size prefix) after the delay.
    Respond(Vec<u8>, Duration),
    /// Send nothing (a Produce with acks=0).
    Silent,
    /// Close the connection, as Kafka does with a request it cannot serve.
    Close,
}

/// What the connection's writer does next.
enum Out {
    /// Write this frame (size prefix included) at this time.
    Frame(Instant, Vec<u8>),
    /// Close the connection, after the frames before it.
    Close,
}

/// Reads and handles a connection's requests as they arrive; a writer thread
/// sends each answer when its delay (the broker's round-trip time and any
/// injected one) has passed, in order. So a broker with a round-trip time
/// has appended every request its client pipelined while their answers are
/// still on the way, as over a slow network, and a broker that goes down
/// then loses answers to requests it did serve.
fn serve_connection(shared: Weak<Shared>, broker: i32, mut conn: TcpStream) {
    let (tx, rx) = std::sync::mpsc::channel::<Out>();
    let writer = match conn.try_clone() {
        Ok(w) => w,
        Err(_) => return,
    };
    let Ok(writer) = std::thread::Builder::new()
        .name(format!("gregor mock conn {broker} out"))
        .spawn(move || write_answers(writer, rx))
    else {
        return;
    };
    while let Some(frame) = read_frame(&mut conn) {
        let Some(sh) = shared.upgrade() else { break };
        let outcome = handle(&sh, broker, &frame);
        drop(sh);
        match outcome {
            Outcome::Respond(body, delay) => {
                let mut out = Vec::with_capacity(body.len() + 4);
                out.extend_from_slice(&(body.len() as i32).to_be_bytes());
                out.extend_from_slice(&body);
                if tx.send(Out::Frame(Instant::now() + delay, out)).is_err() {
                    break;
                }
            }
            // Nothing is sent for it (a Produce with acks=0).
            Outcome::Silent => {}
            Outcome::Close => break,
        }
    }
    // The answers already due go out first, as before a close on Kafka.
    let _ = tx.send(Out::Close);
    let _ = writer.join();
}

/// Sends the answers of one connection in order, each at its time, then
/// closes the connection.
fn write_answers(mut conn: TcpStream, rx: std::sync::mpsc::Receiver<Out>) {
    while let Ok(Out::Frame(at, out)) = rx.recv() {
        let wait = at.saturating_duration_since(Instant::now());
        if !wait.is_zero() {
            std::thread::sleep(wait);
        }
        if conn.write_all(&out).is_err() {
            break;
        }
    }
    let _ = conn.shutdown(Shutdown::Both);
}

macro_rules! served {
    ($m:ident) => {
        $m! {
            0 produce::ProduceRequest => handlers::produce,
            1 fetch::FetchRequest => handlers::fetch,
            2 list_offsets::ListOffsetsRequest => handlers::list_offsets,
            3 metadata::MetadataRequest => handlers::metadata,
            8 offset_commit::OffsetCommitRequest => groups::offset_commit,
            9 offset_fetch::OffsetFetchRequest => groups::offset_fetch,
            10 find_coordinator::FindCoordinatorRequest => handlers::find_coordinator,
            11 join_group::JoinGroupRequest => groups::join_group,
            12 heartbeat::HeartbeatRequest => groups::heartbeat,
            13 leave_group::LeaveGroupRequest => groups::leave_group,
            14 sync_group::SyncGroupRequest => groups::sync_group,
            15 describe_groups::DescribeGroupsRequest => groups::describe_groups,
            16 list_groups::ListGroupsRequest => groups::list_groups,
            19 create_topics::CreateTopicsRequest => handlers::create_topics,
            20 delete_topics::DeleteTopicsRequest => handlers::delete_topics,
            21 delete_records::DeleteRecordsRequest => handlers::delete_records,
            22 init_producer_id::InitProducerIdRequest => txn::init_producer_id,
            23 offset_for_leader_epoch::OffsetForLeaderEpochRequest => handlers::offset_for_leader_epoch,
            24 add_partitions_to_txn::AddPartitionsToTxnRequest => txn::add_partitions_to_txn,
            25 add_offsets_to_txn::AddOffsetsToTxnRequest => txn::add_offsets_to_txn,
            26 end_txn::EndTxnRequest => txn::end_txn,
            28 txn_offset_commit::TxnOffsetCommitRequest => groups::txn_offset_commit,
            32 describe_configs::DescribeConfigsRequest => handlers::describe_configs,
            37 create_partitions::CreatePartitionsRequest => handlers::create_partitions,
            42 delete_groups::DeleteGroupsRequest => groups::delete_groups,
            44 incremental_alter_configs::IncrementalAlterConfigsRequest => handlers::incremental_alter_configs,
            47 offset_delete::OffsetDeleteRequest => groups::offset_delete,
            60 describe_cluster::DescribeClusterRequest => handlers::describe_cluster,
            71 get_telemetry_subscriptions::GetTelemetrySubscriptionsRequest => telemetry::get_telemetry_subscriptions,
            72 push_telemetry::PushTelemetryRequest => telemetry::push_telemetry,
        }
    };
}

/// The versions the mock serves of `api_key` (its own narrowing of the
/// codec's range where older versions need a format it does not convert to).
pub(crate) fn served_range(api_key: i16) -> Option<(i16, i16)> {
    macro_rules! range {
        ($($key:literal $module:ident :: $req:ident => $h:path,)*) => {{
            let (min, max) = match api_key {
                18 => (ApiVersionsRequest::MIN_VERSION, ApiVersionsRequest::MAX_VERSION),
                $($key => (p::$module::$req::MIN_VERSION, p::$module::$req::MAX_VERSION),)*
                _ => return None,
            };
            Some(match api_key {
                // Produce v3+: record batches (magic 2) only, as Fetch v4+ serves them.
                0 => (3, max),
                // Fetch v4+: the batches are served as stored, never converted down.
                1 => (4, max),
                _ => (min, max),
            })
        }};
    }
    served!(range)
}

/// The advertised range of `api_key`, with the control API's cap.
fn advertised(st: &super::state::State, api_key: i16) -> Option<(i16, i16)> {
    let r = served_range(api_key)?;
    Some(st.version_caps.get(&api_key).copied().unwrap_or(r))
}

fn api_versions(ctx: &Ctx<'_>, _req: ApiVersionsRequest) -> ApiVersionsResponse {
    let st = ctx.shared.lock();
    // KIP-714's APIs only once the mock has a subscription to offer
    let telemetry = |k: i16| matches!(k, 71 | 72);
    let mut keys: Vec<i16> = (0..=i16::from(u8::MAX))
        .filter(|k| served_range(*k).is_some())
        .filter(|k| st.telemetry.enabled || !telemetry(*k))
        .collect();
    keys.sort_unstable();
    ApiVersionsResponse {
        error_code: ctx.inject.unwrap_or(KafkaCode::NONE.0),
        api_keys: keys
            .into_iter()
            .filter_map(|k| {
                advertised(&st, k).map(|(min, max)| ApiVersion {
                    api_key: k,
                    min_version: min,
                    max_version: max,
                    ..Default::default()
                })
            })
            .collect(),
        supported_features: vec![SupportedFeatureKey {
            name: TRANSACTION_VERSION_FEATURE.to_owned(),
            min_version: 0,
            max_version: 2,
            ..Default::default()
        }],
        finalized_features_epoch: if st.transaction_version.is_some() {
            st.features_epoch
        } else {
            -1
        },
        finalized_features: st
            .transaction_version
            .map(|level| FinalizedFeatureKey {
                name: TRANSACTION_VERSION_FEATURE.to_owned(),
                max_version_level: level,
                min_version_level: level,
                ..Default::default()
            })
            .into_iter()
            .collect(),
        ..Default::default()
    }
}

fn encode<R: Request>(correlation_id: i32, version: i16, resp: &R::Response) -> Option<Vec<u8>> {
    let mut w = Writer::new();
    let hv = if R::API_KEY == 18 {
        0 // KIP-511: ApiVersions responses always carry header v0.
    } else {
        R::response_header_version(version)
    };
    ResponseHeader {
        correlation_id,
        ..Default::default()
    }
    .encode(&mut w, hv)
    .ok()?;
    resp.encode(&mut w, version).ok()?;
    Some(w.into_vec())
}

/// librdkafka's `RD_KAFKA_RESP_ERR__TRANSPORT`, a code no broker sends:
/// pushed as a request error, the broker closes the connection on that
/// request instead of answering it, as librdkafka's mock cluster does
/// (rdkafka_mock.c: "If the error is ERR__TRANSPORT ... we close the
/// connection").
const INJECT_TRANSPORT: i16 = -195;

fn handle(shared: &Shared, broker: i32, frame: &[u8]) -> Outcome {
    if frame.len() < 8 {
        return Outcome::Close;
    }
    let api_key = i16::from_be_bytes([frame[0], frame[1]]);
    let version = i16::from_be_bytes([frame[2], frame[3]]);
    let correlation_id = i32::from_be_bytes([frame[4], frame[5], frame[6], frame[7]]);
    let (range, rtt, inject) = {
        let mut st = shared.lock();
        if st.broker(broker).is_none_or(|b| !b.up) {
            return Outcome::Close;
        }
        if let Some(t) = st.tracking.as_mut() {
            t.push(TrackedRequest {
                broker,
                api_key,
                api_version: version,
                at: std::time::Instant::now(),
            });
        }
        let range = advertised(&st, api_key);
        let rtt = st.broker(broker).map(|b| b.rtt).unwrap_or_default();
        let inject = if range.is_some() {
            st.take_error(broker, api_key)
        } else {
            None
        };
        (range, rtt, inject)
    };
    let Some((min, max)) = range else {
        debug(format_args!(
            "broker {broker}: closing: API {api_key} ({}) is not served",
            crate::api_keys::api_name(api_key)
        ));
        // Kafka cannot parse a request for an API it does not know: it closes
        // the connection.
        return Outcome::Close;
    };
    if inject.is_some_and(|(c, _)| c == INJECT_TRANSPORT) {
        debug(format_args!(
            "broker {broker}: closing: {} request with injected _TRANSPORT",
            crate::api_keys::api_name(api_key)
        ));
        return Outcome::Close;
    }
    let delay = rtt + inject.map(|(_, d)| d).unwrap_or_default();
    if api_key == 18 && !(min..=max).contains(&version) {
        // KIP-511: an ApiVersions request at a version the broker does not
        // know is answered at v0 with UNSUPPORTED_VERSION and the full list.
        let ctx = Ctx {
            shared,
            broker,
            version: 0,
            client_id: String::new(),
            inject: Some(KafkaCode::UNSUPPORTED_VERSION.0),
        };
        let resp = api_versions(&ctx, ApiVersionsRequest::default());
        return match encode::<ApiVersionsRequest>(correlation_id, 0, &resp) {
            Some(b) => Outcome::Respond(b, delay),
            None => Outcome::Close,
        };
    }
    if !(min..=max).contains(&version) {
        debug(format_args!(
            "broker {broker}: closing: {} v{version} outside {min}..={max}",
            crate::api_keys::api_name(api_key)
        ));
        return Outcome::Close;
    }
    let mut r = Reader::new(frame);

    macro_rules! dispatch {
        ($($key:literal $module:ident :: $req:ident => $h:path,)*) => {
            match api_key {
                18 => run::<ApiVersionsRequest>(&mut r, shared, broker, version, correlation_id, inject, delay, |c, q| Some(api_versions(c, q))),
                $($key => run::<p::$module::$req>(&mut r, shared, broker, version, correlation_id, inject, delay, $h),)*
                _ => Outcome::Close,
            }
        };
    }
    served!(dispatch)
}

#[allow(clippy::too_many_arguments)]
fn run<R: Request>(
    r: &mut Reader<'_>,
    shared: &Shared,
    broker: i32,
    version: i16,
    correlation_id: i32,
    inject: Option<(i16, Duration)>,
    delay: Duration,
    h: impl FnOnce(&Ctx<'_>, R) -> Option<R::Response>,
) -> Outcome {
    let Ok(header) = RequestHeader::decode(r, R::request_header_version(version)) else {
        return Outcome::Close;
    };
    let req = match R::decode(r, version) {
        Ok(req) => req,
        Err(e) => {
            debug(format_args!("broker {broker}: closing: {e}"));
            return Outcome::Close;
        }
    };
    debug(format_args!(
        "broker {broker}: {} v{version} #{correlation_id}",
        crate::api_keys::api_name(R::API_KEY)
    ));
    let ctx = Ctx {
        shared,
        broker,
        version,
        client_id: header.client_id.unwrap_or_default(),
        inject: inject.map(|(c, _)| c).filter(|&c| c != KafkaCode::NONE.0),
    };
    match h(&ctx, req) {
        Some(resp) => match encode::<R>(correlation_id, version, &resp) {
            Some(b) => Outcome::Respond(b, delay),
            None => {
                debug(format_args!(
                    "broker {broker}: closing: cannot encode {} v{version} response {resp:?}",
                    crate::api_keys::api_name(R::API_KEY)
                ));
                Outcome::Close
            }
        },
        None => Outcome::Silent,
    }
}
