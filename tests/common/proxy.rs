//! A fault-injecting TCP proxy in front of the real broker, for faults the
//! broker cannot be made to show on demand. It rewrites Metadata responses
//! so that every broker is reached through the proxy, and lets a test decide,
//! per request, to forward it or to cut the connection at that point.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;

use gregor::protocol::metadata::MetadataResponse;
use gregor::protocol::{Message, ResponseHeader};
use gregor::wire::{Reader, Writer};

/// What to do with a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Pass it on.
    Forward,
    /// Close both sides without forwarding it (a broker dying mid-request).
    Cut,
}

/// A running proxy.
pub struct Proxy {
    /// "127.0.0.1:port" to bootstrap from.
    pub addr: String,
    /// Connections accepted so far.
    pub connections: Arc<AtomicUsize>,
}

type Rule = dyn Fn(usize, i16) -> Verdict + Send + Sync;

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

/// Starts a proxy to `broker`; `rule(request number, api key)` decides each request's fate
/// (requests are numbered across all connections, from 0).
pub fn start(broker: &str, rule: impl Fn(usize, i16) -> Verdict + Send + Sync + 'static) -> Proxy {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap().to_string();
    let port: i32 = l.local_addr().unwrap().port().into();
    let broker = broker.to_string();
    let rule: Arc<Rule> = Arc::new(rule);
    let connections = Arc::new(AtomicUsize::new(0));
    let seen = Arc::new(AtomicUsize::new(0));
    let conns = connections.clone();
    thread::spawn(move || {
        for client in l.incoming() {
            let Ok(client) = client else { return };
            conns.fetch_add(1, Ordering::SeqCst);
            let Ok(upstream) = TcpStream::connect(&broker) else {
                continue;
            };
            let (rule, seen) = (rule.clone(), seen.clone());
            thread::spawn(move || relay(client, upstream, port, rule, seen));
        }
    });
    Proxy { addr, connections }
}

fn relay(
    mut client: TcpStream,
    mut upstream: TcpStream,
    port: i32,
    rule: Arc<Rule>,
    seen: Arc<AtomicUsize>,
) {
    // correlation id -> (api key, version) of requests in flight
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
                frame = rewrite_metadata(&frame, version, port);
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
        let n = seen.fetch_add(1, Ordering::SeqCst);
        if rule(n, key) == Verdict::Cut {
            break;
        }
        pending.lock().unwrap().push((corr, key, version));
        if !write_frame(&mut upstream, &frame) {
            break;
        }
    }
    let _ = client.shutdown(Shutdown::Both);
    let _ = upstream.shutdown(Shutdown::Both);
}

/// Points every broker of a Metadata response at the proxy's port.
fn rewrite_metadata(frame: &[u8], version: i16, port: i32) -> Vec<u8> {
    let header_version = if version >= 9 { 1 } else { 0 };
    let mut r = Reader::new(frame);
    let header = ResponseHeader::decode(&mut r, header_version).unwrap();
    let mut resp = MetadataResponse::decode(&mut r, version).unwrap();
    for b in &mut resp.brokers {
        b.host = "127.0.0.1".into();
        b.port = port;
    }
    let mut w = Writer::new();
    header.encode(&mut w, header_version).unwrap();
    resp.encode(&mut w, version).unwrap();
    w.into_vec()
}
