//! A recording proxy in front of the real broker: it passes every byte
//! through, decodes each request with the `kafka-protocol` crate (so what
//! gregor sends is checked by an independent decoder), and points the
//! brokers of Metadata responses at itself.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;

use bytes::{Bytes, BytesMut};
use kafka_protocol::messages::{
    ApiKey, MetadataResponse, RequestHeader, RequestKind, ResponseHeader,
};
use kafka_protocol::protocol::{Decodable, Encodable, StrBytes};

/// One forwarded request.
#[derive(Debug, Clone)]
pub struct Seen {
    pub version: i16,
    pub body: RequestKind,
}

/// A running proxy.
pub struct Recording {
    /// "127.0.0.1:port" to bootstrap from.
    pub addr: String,
    pub seen: Arc<Mutex<Vec<Seen>>>,
}

impl Recording {
    /// Fetch requests so far, with their versions.
    pub fn fetches(&self) -> Vec<(i16, kafka_protocol::messages::FetchRequest)> {
        self.seen
            .lock()
            .unwrap()
            .iter()
            .filter_map(|s| match &s.body {
                RequestKind::Fetch(f) => Some((s.version, f.clone())),
                _ => None,
            })
            .collect()
    }
}

fn read_frame(s: &mut TcpStream) -> Option<Vec<u8>> {
    let mut size = [0u8; 4];
    s.read_exact(&mut size).ok()?;
    let mut buf = vec![0u8; i32::from_be_bytes(size) as usize];
    s.read_exact(&mut buf).ok()?;
    Some(buf)
}

fn write_frame(s: &mut TcpStream, body: &[u8]) -> bool {
    let mut out = (body.len() as i32).to_be_bytes().to_vec();
    out.extend_from_slice(body);
    s.write_all(&out).is_ok()
}

/// Starts a recording proxy to `broker`.
pub fn start(broker: &str) -> Recording {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap().to_string();
    let port = i32::from(l.local_addr().unwrap().port());
    let broker = broker.to_string();
    let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
    let s2 = seen.clone();
    thread::spawn(move || {
        for client in l.incoming() {
            let Ok(client) = client else { return };
            let Ok(upstream) = TcpStream::connect(&broker) else {
                continue;
            };
            let seen = s2.clone();
            thread::spawn(move || relay(client, upstream, port, seen));
        }
    });
    Recording { addr, seen }
}

fn relay(mut client: TcpStream, mut upstream: TcpStream, port: i32, seen: Arc<Mutex<Vec<Seen>>>) {
    let pending: Arc<Mutex<Vec<(i32, i16, i16)>>> = Arc::default();
    let (mut c2, mut u2) = (client.try_clone().unwrap(), upstream.try_clone().unwrap());
    let p2 = pending.clone();
    thread::spawn(move || {
        while let Some(mut frame) = read_frame(&mut u2) {
            let corr = i32::from_be_bytes([frame[0], frame[1], frame[2], frame[3]]);
            let entry = {
                let mut p = p2.lock().unwrap();
                let i = p.iter().position(|e| e.0 == corr);
                i.map(|i| p.remove(i))
            };
            if let Some((_, 3, version)) = entry {
                frame = rewrite_metadata(frame, version, port);
            }
            if !write_frame(&mut c2, &frame) {
                break;
            }
        }
        let _ = c2.shutdown(Shutdown::Both);
    });
    while let Some(frame) = read_frame(&mut client) {
        let key = i16::from_be_bytes([frame[0], frame[1]]);
        let version = i16::from_be_bytes([frame[2], frame[3]]);
        let corr = i32::from_be_bytes([frame[4], frame[5], frame[6], frame[7]]);
        if let Ok(api) = ApiKey::try_from(key) {
            let mut b = Bytes::from(frame.clone());
            let header = RequestHeader::decode(&mut b, api.request_header_version(version));
            if header.is_ok() && api != ApiKey::ApiVersions {
                let body = RequestKind::decode(api, &mut b, version)
                    .unwrap_or_else(|e| panic!("{api:?} v{version} does not decode: {e}"));
                seen.lock().unwrap().push(Seen { version, body });
            }
        }
        pending.lock().unwrap().push((corr, key, version));
        if !write_frame(&mut upstream, &frame) {
            break;
        }
    }
    let _ = client.shutdown(Shutdown::Both);
    let _ = upstream.shutdown(Shutdown::Both);
}

fn rewrite_metadata(frame: Vec<u8>, version: i16, port: i32) -> Vec<u8> {
    let hv = ApiKey::Metadata.response_header_version(version);
    let mut b = Bytes::from(frame);
    let header = ResponseHeader::decode(&mut b, hv).unwrap();
    let mut resp = MetadataResponse::decode(&mut b, version).unwrap();
    for br in &mut resp.brokers {
        br.host = StrBytes::from_static_str("127.0.0.1");
        br.port = port;
    }
    let mut out = BytesMut::new();
    header.encode(&mut out, hv).unwrap();
    resp.encode(&mut out, version).unwrap();
    out.to_vec()
}
