//! A scripted broker for what the test broker cannot do (fetch sessions,
//! OffsetForLeaderEpoch, diverging epochs, topic ID changes on demand):
//! requests are decoded and responses encoded by the `kafka-protocol`
//! crate, an implementation independent of gregor's, so every byte gregor
//! reads here was written by someone else, and every request it sends is
//! checked by someone else's decoder.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;

use bytes::{Bytes, BytesMut};
use kafka_protocol::messages::api_versions_response::ApiVersion;
use kafka_protocol::messages::metadata_response::{
    MetadataResponseBroker, MetadataResponsePartition, MetadataResponseTopic,
};
use kafka_protocol::messages::offset_commit_response::{
    OffsetCommitResponsePartition, OffsetCommitResponseTopic,
};
use kafka_protocol::messages::{
    ApiKey, ApiVersionsResponse, BrokerId, MetadataResponse, OffsetCommitRequest,
    OffsetCommitResponse, RequestHeader, RequestKind, ResponseHeader, ResponseKind, TopicName,
};
use kafka_protocol::protocol::{Decodable, Encodable, StrBytes};
use kafka_protocol::records::{
    Compression, Record, RecordBatchEncoder, RecordEncodeOptions, TimestampType,
};

/// The broker's node id.
pub const NODE: i32 = 1;

/// One request as the scripted broker decoded it.
#[derive(Debug, Clone)]
pub struct Seen {
    /// API version.
    pub version: i16,
    /// The decoded request.
    pub body: RequestKind,
}

/// A running scripted broker.
pub struct Scripted {
    /// "127.0.0.1:port".
    pub addr: String,
    /// Every request except ApiVersions, in arrival order.
    pub seen: Arc<Mutex<Vec<Seen>>>,
}

impl Scripted {
    /// Requests of one API seen so far.
    pub fn requests(&self, key: ApiKey) -> Vec<Seen> {
        self.seen
            .lock()
            .unwrap()
            .iter()
            .filter(|s| api_key(&s.body) == key)
            .cloned()
            .collect()
    }
}

fn api_key(r: &RequestKind) -> ApiKey {
    match r {
        RequestKind::Fetch(_) => ApiKey::Fetch,
        RequestKind::ListOffsets(_) => ApiKey::ListOffsets,
        RequestKind::Metadata(_) => ApiKey::Metadata,
        RequestKind::OffsetForLeaderEpoch(_) => ApiKey::OffsetForLeaderEpoch,
        RequestKind::ApiVersions(_) => ApiKey::ApiVersions,
        RequestKind::FindCoordinator(_) => ApiKey::FindCoordinator,
        RequestKind::OffsetFetch(_) => ApiKey::OffsetFetch,
        _ => ApiKey::Produce,
    }
}

type Handler = dyn Fn(&str, i16, &RequestKind) -> Option<ResponseKind> + Send + Sync;

/// Starts a broker that advertises `apis` (key, min, max) and answers each
/// request with `handler(its own address, version, request)`; `None`
/// closes the connection.
pub fn start(
    apis: &[(ApiKey, i16, i16)],
    handler: impl Fn(&str, i16, &RequestKind) -> Option<ResponseKind> + Send + Sync + 'static,
) -> Scripted {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap().to_string();
    let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
    let handler: Arc<Handler> = Arc::new(handler);
    let apis: Vec<(ApiKey, i16, i16)> = apis.to_vec();
    let s2 = seen.clone();
    let a2 = addr.clone();
    thread::spawn(move || {
        for c in l.incoming() {
            let Ok(c) = c else { return };
            let (h, seen, apis, a) = (handler.clone(), s2.clone(), apis.clone(), a2.clone());
            thread::spawn(move || serve(c, &a, &*h, &seen, &apis));
        }
    });
    Scripted { addr, seen }
}

fn serve(
    mut s: TcpStream,
    addr: &str,
    h: &Handler,
    seen: &Mutex<Vec<Seen>>,
    apis: &[(ApiKey, i16, i16)],
) {
    loop {
        let mut size = [0u8; 4];
        if s.read_exact(&mut size).is_err() {
            return;
        }
        let mut buf = vec![0u8; i32::from_be_bytes(size) as usize];
        if s.read_exact(&mut buf).is_err() {
            return;
        }
        let key = i16::from_be_bytes([buf[0], buf[1]]);
        let version = i16::from_be_bytes([buf[2], buf[3]]);
        let api = ApiKey::try_from(key).unwrap();
        let mut b = Bytes::from(buf);
        let header = RequestHeader::decode(&mut b, api.request_header_version(version)).unwrap();
        let body = RequestKind::decode(api, &mut b, version).unwrap();
        let resp = if api == ApiKey::ApiVersions {
            let mut r = ApiVersionsResponse::default();
            r.api_keys = apis
                .iter()
                .map(|(k, min, max)| {
                    let mut v = ApiVersion::default();
                    v.api_key = *k as i16;
                    v.min_version = *min;
                    v.max_version = *max;
                    v
                })
                .collect();
            Some(ResponseKind::ApiVersions(r))
        } else {
            seen.lock().unwrap().push(Seen {
                version,
                body: body.clone(),
            });
            h(addr, version, &body)
        };
        let Some(resp) = resp else { return };
        let mut out = BytesMut::new();
        let mut rh = ResponseHeader::default();
        rh.correlation_id = header.correlation_id;
        rh.encode(&mut out, api.response_header_version(version))
            .unwrap();
        resp.encode(&mut out, version).unwrap();
        let mut frame = (out.len() as i32).to_be_bytes().to_vec();
        frame.extend_from_slice(&out);
        if s.write_all(&frame).is_err() {
            return;
        }
    }
}

/// A kafka-protocol topic ID from 16 bytes.
pub fn uuid(b: [u8; 16]) -> uuid::Uuid {
    uuid::Uuid::from_bytes(b)
}

/// `StrBytes` of a `&str`.
pub fn sb(s: &str) -> StrBytes {
    StrBytes::from_string(s.to_string())
}

/// An OffsetCommit answer accepting every partition of `req`.
pub fn commit_accepted(req: &OffsetCommitRequest) -> ResponseKind {
    let mut r = OffsetCommitResponse::default();
    r.topics = req
        .topics
        .iter()
        .map(|t| {
            let mut rt = OffsetCommitResponseTopic::default();
            rt.name = t.name.clone();
            rt.partitions = t
                .partitions
                .iter()
                .map(|p| {
                    let mut rp = OffsetCommitResponsePartition::default();
                    rp.partition_index = p.partition_index;
                    rp
                })
                .collect();
            rt
        })
        .collect();
    ResponseKind::OffsetCommit(r)
}

/// A Metadata response naming this broker (at `addr`) as the leader of
/// every partition of the topics given: (name, topic ID, partitions, leader epoch).
pub fn metadata(addr: &str, topics: &[(&str, [u8; 16], i32, i32)]) -> ResponseKind {
    let port: i32 = addr.rsplit(':').next().unwrap().parse().unwrap();
    let mut r = MetadataResponse::default();
    let mut b = MetadataResponseBroker::default();
    b.node_id = BrokerId(NODE);
    b.host = sb("127.0.0.1");
    b.port = port;
    r.brokers = vec![b];
    r.controller_id = BrokerId(NODE);
    r.cluster_id = Some(sb("scripted"));
    r.topics = topics
        .iter()
        .map(|(name, id, n, epoch)| {
            let mut t = MetadataResponseTopic::default();
            t.name = Some(TopicName(sb(name)));
            t.topic_id = uuid(*id);
            t.partitions = (0..*n)
                .map(|p| {
                    let mut mp = MetadataResponsePartition::default();
                    mp.partition_index = p;
                    mp.leader_id = BrokerId(NODE);
                    mp.leader_epoch = *epoch;
                    mp.replica_nodes = vec![BrokerId(NODE)];
                    mp.isr_nodes = vec![BrokerId(NODE)];
                    mp
                })
                .collect();
            t
        })
        .collect();
    ResponseKind::Metadata(r)
}

/// One record to encode.
#[derive(Debug, Clone)]
pub struct Rec {
    pub offset: i64,
    pub value: &'static str,
    pub epoch: i32,
    pub producer_id: i64,
    pub transactional: bool,
    pub control: bool,
}

impl Rec {
    /// A plain record.
    pub fn plain(offset: i64, value: &'static str, epoch: i32) -> Self {
        Rec {
            offset,
            value,
            epoch,
            producer_id: -1,
            transactional: false,
            control: false,
        }
    }
}

/// Record batches (magic 2) for `recs`, by kafka-protocol's encoder, one
/// batch per run of records that share their batch fields and follow on.
pub fn batches(recs: &[Rec], compression: Compression) -> Vec<u8> {
    let mut out = BytesMut::new();
    let mut runs: Vec<Vec<&Rec>> = Vec::new();
    for r in recs {
        match runs.last_mut() {
            Some(run)
                if run.last().is_some_and(|l| {
                    l.offset + 1 == r.offset
                        && l.epoch == r.epoch
                        && l.producer_id == r.producer_id
                        && l.transactional == r.transactional
                        && l.control == r.control
                }) =>
            {
                run.push(r)
            }
            _ => runs.push(vec![r]),
        }
    }
    for run in runs {
        let first = run[0].offset;
        let records: Vec<Record> = run
            .iter()
            .map(|r| Record {
                transactional: r.transactional,
                control: r.control,
                partition_leader_epoch: r.epoch,
                producer_id: r.producer_id,
                producer_epoch: if r.producer_id >= 0 { 0 } else { -1 },
                timestamp_type: TimestampType::Creation,
                offset: r.offset,
                sequence: if r.producer_id >= 0 {
                    (r.offset - first) as i32
                } else {
                    -1
                },
                timestamp: 1_700_000_000_000 + r.offset,
                key: if r.control {
                    // control record key: version 0, type (0 abort, 1 commit)
                    let kind: i16 = if r.value == "abort" { 0 } else { 1 };
                    let mut k = vec![0u8, 0];
                    k.extend_from_slice(&kind.to_be_bytes());
                    Some(Bytes::from(k))
                } else {
                    None
                },
                value: if r.control {
                    Some(Bytes::from(vec![0u8, 0, 0, 0, 0, 0]))
                } else {
                    Some(Bytes::from(r.value.as_bytes().to_vec()))
                },
                headers: Default::default(),
            })
            .collect();
        RecordBatchEncoder::encode(
            &mut out,
            records.iter(),
            &RecordEncodeOptions {
                version: 2,
                compression,
            },
        )
        .unwrap();
    }
    out.to_vec()
}

/// A partition's log in the scripted broker: records and a high watermark.
#[derive(Debug, Clone, Default)]
pub struct Log {
    pub records: Vec<Rec>,
}

impl Log {
    /// The high watermark.
    pub fn end(&self) -> i64 {
        self.records.last().map_or(0, |r| r.offset + 1)
    }

    /// Record batches from `offset` on.
    pub fn from(&self, offset: i64) -> Vec<u8> {
        let recs: Vec<Rec> = self
            .records
            .iter()
            .filter(|r| r.offset >= offset)
            .cloned()
            .collect();
        batches(&recs, Compression::None)
    }
}

/// Logs by partition.
pub type Logs = Arc<Mutex<BTreeMap<i32, Log>>>;
