//! A fault-injecting TCP proxy in front of the real broker, for faults the
//! broker cannot be made to show on demand. It rewrites Metadata responses
//! so that every broker is reached through the proxy, and lets a test decide,
//! per request, to forward it or to cut the connection at that point.
//!
//! [`Faults`] fires faults at the live connections on demand or on a seeded
//! schedule ([`Faults::chaos`]): drop a connection wherever its bytes are,
//! stall it (forward nothing for a while), truncate (forward a prefix of the
//! next response or request, then close), refuse new connections (a broker
//! that went away) or blackhole everything (a broker that hangs).

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

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
    /// Faults to fire at its connections.
    pub faults: Faults,
}

type Rule = dyn Fn(usize, i16) -> Verdict + Send + Sync;

const TRUNCATE_RESPONSE: u8 = 1;
const TRUNCATE_REQUEST: u8 = 2;

/// One proxied connection.
struct Link {
    client: TcpStream,
    upstream: TcpStream,
    /// Forward nothing before this instant.
    stall_until: Mutex<Option<Instant>>,
    /// TRUNCATE_* for the next frame in that direction.
    truncate: AtomicU8,
    dead: AtomicBool,
    /// (correlation id, api key, version) of the requests the broker got
    /// and has not answered yet, and whether the upstream side is closed.
    state: Mutex<LinkState>,
    /// The proxy's count of killed links whose broker side is still open.
    draining: Arc<AtomicUsize>,
}

#[derive(Default)]
struct LinkState {
    pending: Vec<(i32, i16, i16)>,
    upstream_closed: bool,
    /// Counted in `draining`: killed with a Produce request unanswered.
    draining: bool,
}

/// How long a killed link waits for the broker to answer what it was sent:
/// a client's `request.timeout.ms` (30 s). Only an answer proves the broker
/// is done with a request (closing the socket does not stop it), so a
/// shorter bound let a retry through while a slow broker, on a loaded
/// machine, was still writing the first attempt: 215 duplicates in 1 of 20
/// runs of tests/faults.rs with 5 s.
const DRAIN: Duration = Duration::from_secs(30);

impl Link {
    /// The connection dies for the client at once. With a Produce request
    /// unanswered, the broker side stays open until the broker has answered
    /// every request it had been sent (the answers are dropped), at most
    /// `DRAIN`: the broker processes what it received and the
    /// acknowledgements are lost, as when a real broker's connection
    /// breaks. New connections wait for that, so a producer's retry never
    /// reaches the broker while the broker is still writing the first
    /// attempt — a race a real broker serializes per partition, and one the
    /// test broker does not. Other requests cannot be written twice, so a
    /// link without a Produce in flight closes at once and holds up no one
    /// (consumers under constant faults would otherwise wait at every
    /// reconnect).
    fn kill(&self) {
        if self.dead.swap(true, Ordering::SeqCst) {
            return;
        }
        let _ = self.client.shutdown(Shutdown::Both);
        let mut st = self.state.lock().unwrap();
        if st.upstream_closed {
            return;
        }
        if !st.pending.iter().any(|&(_, key, _)| key == 0) {
            self.close_upstream(&mut st);
            return;
        }
        st.draining = true;
        self.draining.fetch_add(1, Ordering::SeqCst);
        let _ = self.upstream.set_read_timeout(Some(DRAIN));
    }

    fn close_upstream(&self, st: &mut LinkState) {
        if !st.upstream_closed {
            st.upstream_closed = true;
            let _ = self.upstream.shutdown(Shutdown::Both);
            if std::mem::take(&mut st.draining) {
                self.draining.fetch_sub(1, Ordering::SeqCst);
            }
        }
    }
}

#[derive(Default)]
struct FaultState {
    links: Mutex<Vec<Arc<Link>>>,
    refuse: AtomicBool,
    blackhole: AtomicBool,
    drops: AtomicU64,
    stalls: AtomicU64,
    truncations: AtomicU64,
    refused: AtomicU64,
}

/// Handle on a proxy's faults; cheap to clone.
#[derive(Clone, Default)]
pub struct Faults {
    s: Arc<FaultState>,
}

/// How many faults fired.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FaultCounts {
    /// Connections dropped.
    pub drops: u64,
    /// Stalls started.
    pub stalls: u64,
    /// Frames truncated (and their connection closed).
    pub truncations: u64,
    /// Connections refused while the broker was "away".
    pub refused: u64,
}

/// xorshift64*: a small seeded generator, so a failing schedule can be replayed.
pub struct Rng(u64);

impl Rng {
    /// Seeded (0 is mapped to a fixed non-zero seed).
    pub fn new(seed: u64) -> Self {
        Rng(seed.max(1).wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }
    /// The next value.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// A value in `lo..hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo).max(1)
    }
}

impl Faults {
    fn live(&self) -> Vec<Arc<Link>> {
        let mut l = self.s.links.lock().unwrap();
        l.retain(|k| !k.dead.load(Ordering::SeqCst));
        l.clone()
    }

    /// Live connections.
    pub fn live_connections(&self) -> usize {
        self.live().len()
    }

    /// Drops every live connection now, wherever its bytes are.
    pub fn drop_all(&self) {
        for l in self.live() {
            l.kill();
            self.s.drops.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// The broker goes away (`true`: live connections dropped, new ones
    /// closed at once) or comes back (`false`).
    pub fn set_refuse(&self, on: bool) {
        self.s.refuse.store(on, Ordering::SeqCst);
        if on {
            self.drop_all();
        }
    }

    /// The broker hangs (`true`): connections are accepted and requests read,
    /// but nothing is forwarded either way.
    pub fn set_blackhole(&self, on: bool) {
        self.s.blackhole.store(on, Ordering::SeqCst);
    }

    /// The faults fired so far.
    pub fn counts(&self) -> FaultCounts {
        FaultCounts {
            drops: self.s.drops.load(Ordering::SeqCst),
            stalls: self.s.stalls.load(Ordering::SeqCst),
            truncations: self.s.truncations.load(Ordering::SeqCst),
            refused: self.s.refused.load(Ordering::SeqCst),
        }
    }

    /// Fires one random fault at one random live connection: drop it (40%),
    /// stall it for `stall` (30%, a random part of it), or truncate its next
    /// response (20%) or request (10%).
    pub fn fire(&self, rng: &mut Rng, stall: Duration) {
        let live = self.live();
        if live.is_empty() {
            return;
        }
        let link = &live[rng.range(0, live.len() as u64) as usize];
        match rng.range(0, 10) {
            0..=3 => {
                link.kill();
                self.s.drops.fetch_add(1, Ordering::SeqCst);
            }
            4..=6 => {
                let ms = rng.range(stall.as_millis() as u64 / 4, stall.as_millis() as u64 + 1);
                *link.stall_until.lock().unwrap() =
                    Some(Instant::now() + Duration::from_millis(ms));
                self.s.stalls.fetch_add(1, Ordering::SeqCst);
            }
            7..=8 => link.truncate.store(TRUNCATE_RESPONSE, Ordering::SeqCst),
            _ => link.truncate.store(TRUNCATE_REQUEST, Ordering::SeqCst),
        }
    }

    /// Fires faults on a seeded schedule, one every `every` (a random part
    /// of it, at least a quarter), until the returned handle is stopped.
    pub fn chaos(&self, seed: u64, every: Duration, stall: Duration) -> Chaos {
        let stop = Arc::new(AtomicBool::new(false));
        let (f, s) = (self.clone(), stop.clone());
        let thread = thread::spawn(move || {
            let mut rng = Rng::new(seed);
            let ms = every.as_millis() as u64;
            while !s.load(Ordering::SeqCst) {
                let wait = Duration::from_millis(rng.range(ms / 4, ms + 1));
                let until = Instant::now() + wait;
                while Instant::now() < until && !s.load(Ordering::SeqCst) {
                    thread::sleep(Duration::from_millis(10));
                }
                if !s.load(Ordering::SeqCst) {
                    f.fire(&mut rng, stall);
                }
            }
        });
        Chaos {
            stop,
            thread: Some(thread),
            faults: self.clone(),
        }
    }
}

/// A running fault schedule; stops when dropped.
pub struct Chaos {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    faults: Faults,
}

impl Chaos {
    /// Stops the schedule and returns what fired (stalls in progress run out).
    pub fn stop(mut self) -> FaultCounts {
        self.halt();
        self.faults.counts()
    }

    fn halt(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Chaos {
    fn drop(&mut self) {
        self.halt();
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

/// Waits out a stall or a blackhole; false if the link died meanwhile.
fn hold(link: &Link, faults: &FaultState) -> bool {
    loop {
        if link.dead.load(Ordering::SeqCst) {
            return false;
        }
        let stalled = link
            .stall_until
            .lock()
            .unwrap()
            .is_some_and(|t| Instant::now() < t);
        if !stalled && !faults.blackhole.load(Ordering::SeqCst) {
            return true;
        }
        thread::sleep(Duration::from_millis(10));
    }
}

/// Forwards a frame, or — when a truncation is due in this direction — a
/// prefix of it, and then kills the link. False when the link is done.
fn forward(link: &Link, faults: &FaultState, to: &mut TcpStream, frame: &[u8], dir: u8) -> bool {
    if !hold(link, faults) {
        return false;
    }
    if link
        .truncate
        .compare_exchange(dir, 0, Ordering::SeqCst, Ordering::SeqCst)
        .is_ok()
    {
        let mut out = (frame.len() as i32).to_be_bytes().to_vec();
        out.extend_from_slice(&frame[..frame.len() / 2]);
        let _ = to.write_all(&out);
        faults.truncations.fetch_add(1, Ordering::SeqCst);
        link.kill();
        return false;
    }
    write_frame(to, frame)
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
    let faults = Faults::default();
    let f2 = faults.clone();
    let draining = Arc::new(AtomicUsize::new(0));
    thread::spawn(move || {
        for client in l.incoming() {
            let Ok(client) = client else { return };
            conns.fetch_add(1, Ordering::SeqCst);
            if f2.s.refuse.load(Ordering::SeqCst) {
                f2.s.refused.fetch_add(1, Ordering::SeqCst);
                let _ = client.shutdown(Shutdown::Both);
                continue;
            }
            // the broker first answers what killed links had sent it
            let until = Instant::now() + DRAIN;
            while draining.load(Ordering::SeqCst) > 0 && Instant::now() < until {
                thread::sleep(Duration::from_millis(5));
            }
            let Ok(upstream) = TcpStream::connect(&broker) else {
                continue;
            };
            let link = Arc::new(Link {
                client: client.try_clone().unwrap(),
                upstream: upstream.try_clone().unwrap(),
                stall_until: Mutex::new(None),
                truncate: AtomicU8::new(0),
                dead: AtomicBool::new(false),
                state: Mutex::default(),
                draining: draining.clone(),
            });
            f2.s.links.lock().unwrap().push(link.clone());
            let (rule, seen, f) = (rule.clone(), seen.clone(), f2.s.clone());
            thread::spawn(move || relay(client, upstream, port, rule, seen, link, f));
        }
    });
    Proxy {
        addr,
        connections,
        faults,
    }
}

/// A proxy with no per-request rule: every request is forwarded unless a
/// fault says otherwise.
pub fn start_faulty(broker: &str) -> Proxy {
    start(broker, |_, _| Verdict::Forward)
}

fn relay(
    mut client: TcpStream,
    mut upstream: TcpStream,
    port: i32,
    rule: Arc<Rule>,
    seen: Arc<AtomicUsize>,
    link: Arc<Link>,
    faults: Arc<FaultState>,
) {
    let (mut c2, mut u2) = (client.try_clone().unwrap(), upstream.try_clone().unwrap());
    let (l2, f2) = (link.clone(), faults.clone());
    thread::spawn(move || {
        while let Some(mut frame) = read_frame(&mut u2) {
            let corr = i32::from_be_bytes([frame[0], frame[1], frame[2], frame[3]]);
            let entry = {
                let mut st = l2.state.lock().unwrap();
                let i = st.pending.iter().position(|e| e.0 == corr);
                let e = i.map(|i| st.pending.remove(i));
                if l2.dead.load(Ordering::SeqCst) {
                    // draining: the answer goes nowhere
                    if st.pending.is_empty() {
                        l2.close_upstream(&mut st);
                        return;
                    }
                    continue;
                }
                e
            };
            if let Some((_, 3, version)) = entry {
                frame = rewrite_metadata(&frame, version, port);
            }
            if !forward(&l2, &f2, &mut c2, &frame, TRUNCATE_RESPONSE) {
                l2.kill();
            }
        }
        // the broker closed, or a drain ran out of time
        l2.kill();
        l2.close_upstream(&mut l2.state.lock().unwrap());
    });
    while let Some(frame) = read_frame(&mut client) {
        let key = i16::from_be_bytes([frame[0], frame[1]]);
        let version = i16::from_be_bytes([frame[2], frame[3]]);
        let corr = i32::from_be_bytes([frame[4], frame[5], frame[6], frame[7]]);
        let n = seen.fetch_add(1, Ordering::SeqCst);
        if rule(n, key) == Verdict::Cut {
            break;
        }
        link.state
            .lock()
            .unwrap()
            .pending
            .push((corr, key, version));
        if !forward(&link, &faults, &mut upstream, &frame, TRUNCATE_REQUEST) {
            // a request cut short (or never sent) gets no answer to wait for
            let mut st = link.state.lock().unwrap();
            st.pending.retain(|e| e.0 != corr);
            if link.dead.load(Ordering::SeqCst) && st.pending.is_empty() {
                link.close_upstream(&mut st);
            }
            break;
        }
    }
    link.kill();
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
