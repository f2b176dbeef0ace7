//! A scripted Kafka 0.7 broker on 127.0.0.1, written from the Kafka wiki's
//! "Writing a Driver for Kafka" and
//! Kafka 0.7's `KafkaRequestHandlers`, `Log`, `LogManager`,
//! `MultiMessageSetSend` and `OffsetArraySend`, with its own byte handling
//! (it does not use gregor's 0.7 codec).
//!
//! What it does, as 0.7 does:
//! - one in-memory log per topic-partition, made of segments; offsets are
//!   byte positions; a segment rolls once it grows past `segment_bytes`;
//! - PRODUCE/MULTIPRODUCE append the whole messages of each set after
//!   checking every message's CRC (inside compressed wrappers too); a bad
//!   CRC or a partition outside 0..n closes the connection, with no answer;
//!   partition −1 means "any partition";
//! - FETCH returns the segment bytes from the offset, at most MAX_SIZE (so
//!   possibly ending inside a message); OffsetOutOfRange below the first
//!   segment or past the end; empty at the end; WrongPartition for a
//!   partition outside 0..n; Unknown for a negative MAX_SIZE;
//! - MULTIFETCH answers each fetch in order inside a 6-byte header;
//! - OFFSETS answers from the segment list (`Log.getOffsetsBefore`), [0]
//!   for latest/earliest of a partition that has no log yet; a bad
//!   partition closes the connection;
//! - optionally registers itself in ZooKeeper like a 0.7 broker:
//!   `/brokers/ids/<id>` = "creator:host:port" and, once a topic's log
//!   exists here, `/brokers/topics/<topic>/<id>` = its partition count.
#![allow(dead_code)]

use std::collections::{HashMap, HashSet};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use zookeeper::{Acl, CreateMode, ZkError, ZooKeeper};

/// A CRC-32 (IEEE, reflected 0xEDB88320), bit by bit: independent of the library's.
pub fn crc32(data: &[u8]) -> u32 {
    let mut c = 0xffff_ffffu32;
    for &b in data {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = if c & 1 != 0 {
                (c >> 1) ^ 0xedb8_8320
            } else {
                c >> 1
            };
        }
    }
    !c
}

pub struct Segment {
    pub start: i64,
    pub data: Vec<u8>,
    pub modified_ms: i64,
}

pub struct Log {
    pub segments: Vec<Segment>,
}

impl Log {
    fn new(now: i64) -> Log {
        Log {
            segments: vec![Segment {
                start: 0,
                data: Vec::new(),
                modified_ms: now,
            }],
        }
    }

    pub fn end(&self) -> i64 {
        let last = self.segments.last().unwrap();
        last.start + last.data.len() as i64
    }

    fn append(&mut self, bytes: &[u8], now: i64, segment_bytes: usize) {
        let last = self.segments.last_mut().unwrap();
        last.data.extend_from_slice(bytes);
        last.modified_ms = now;
        if last.data.len() > segment_bytes {
            let start = self.end();
            self.segments.push(Segment {
                start,
                data: Vec::new(),
                modified_ms: now,
            });
        }
    }

    /// `Log.read`: Err(error code) or the bytes.
    fn read(&self, offset: i64, max: i32) -> Result<&[u8], i16> {
        if max < 0 {
            return Err(-1);
        }
        if offset < self.segments[0].start || offset > self.end() {
            return Err(1);
        }
        if offset == self.end() {
            return Ok(&[]);
        }
        let seg = self
            .segments
            .iter()
            .find(|s| s.start <= offset && offset < s.start + s.data.len() as i64)
            .unwrap();
        let from = (offset - seg.start) as usize;
        let to = (from + max as usize).min(seg.data.len());
        Ok(&seg.data[from..to])
    }

    /// `Log.getOffsetsBefore`, line for line.
    fn offsets_before(&self, time: i64, max_number: i32, now: i64) -> Vec<i64> {
        let mut arr: Vec<(i64, i64)> = self
            .segments
            .iter()
            .map(|s| (s.start, s.modified_ms))
            .collect();
        let last = self.segments.last().unwrap();
        if !last.data.is_empty() {
            arr.push((last.start + last.data.len() as i64, now));
        }
        let mut start: i64 = match time {
            -1 => arr.len() as i64 - 1,
            -2 => 0,
            _ => {
                let mut i = arr.len() as i64 - 1;
                while i >= 0 && arr[i as usize].1 > time {
                    i -= 1;
                }
                i
            }
        };
        let n = (i64::from(max_number)).min(start + 1).max(0);
        let mut out = Vec::new();
        for _ in 0..n {
            out.push(arr[start as usize].0);
            start -= 1;
        }
        out
    }
}

pub struct State {
    pub logs: HashMap<(String, i32), Log>,
    pub num_partitions: i32,
    pub topic_partitions: HashMap<String, i32>,
    pub segment_bytes: usize,
    /// Milliseconds since the epoch as the broker sees them; tests move it.
    pub clock_ms: i64,
    zk: Option<ZooKeeper>,
    broker_id: i32,
    registered: HashSet<String>,
}

impl State {
    /// Ends the broker's ZooKeeper session: its ephemeral nodes go, as when
    /// a 0.7 broker stops.
    pub fn unregister(&mut self) {
        self.zk = None;
    }

    fn partitions_of(&self, topic: &str) -> i32 {
        *self
            .topic_partitions
            .get(topic)
            .unwrap_or(&self.num_partitions)
    }

    fn check_partition(&self, topic: &str, partition: i32) -> bool {
        !topic.is_empty() && partition >= 0 && partition < self.partitions_of(topic)
    }
}

pub struct Broker07 {
    pub addr: String,
    pub port: u16,
    pub state: Arc<Mutex<State>>,
    /// Raw request frames received (after REQUEST_LENGTH), in order.
    pub received: Arc<Mutex<Vec<Vec<u8>>>>,
    /// Connections accepted so far.
    pub connections: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
}

/// Creates `path` and its parents as persistent nodes holding "gregor-test".
pub fn ensure_path(zk: &ZooKeeper, path: &str) {
    let mut p = String::new();
    for part in path.split('/').filter(|s| !s.is_empty()) {
        p.push('/');
        p.push_str(part);
        match zk.create(
            &p,
            b"gregor-test".to_vec(),
            Acl::open_unsafe().clone(),
            CreateMode::Persistent,
        ) {
            Ok(_) | Err(ZkError::NodeExists) => {}
            Err(e) => panic!("create {p}: {e:?}"),
        }
    }
}

pub fn zk_session(connect: &str) -> ZooKeeper {
    ZooKeeper::connect(connect, Duration::from_secs(10), |_| {}).unwrap()
}

impl Broker07 {
    pub fn start(num_partitions: i32) -> Broker07 {
        Self::start_inner(num_partitions, None, 0)
    }

    /// Starts and registers as broker `id` in ZooKeeper at `zk_connect`
    /// (which may end in a chroot), as a 0.7 broker does at start-up.
    pub fn start_registered(num_partitions: i32, zk_connect: &str, id: i32) -> Broker07 {
        Self::start_inner(num_partitions, Some(zk_connect), id)
    }

    fn start_inner(num_partitions: i32, zk_connect: Option<&str>, id: i32) -> Broker07 {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let zk = zk_connect.map(|c| {
            let zk = zk_session(c);
            ensure_path(&zk, "/brokers/ids");
            ensure_path(&zk, "/brokers/topics");
            let value = format!("127.0.0.1-1324306324402:127.0.0.1:{port}");
            zk.create(
                &format!("/brokers/ids/{id}"),
                value.into_bytes(),
                Acl::open_unsafe().clone(),
                CreateMode::Ephemeral,
            )
            .unwrap();
            zk
        });
        let state = Arc::new(Mutex::new(State {
            logs: HashMap::new(),
            num_partitions,
            topic_partitions: HashMap::new(),
            segment_bytes: 512 << 20,
            clock_ms: 1_000_000,
            zk,
            broker_id: id,
            registered: HashSet::new(),
        }));
        let b = Broker07 {
            addr: format!("127.0.0.1:{port}"),
            port,
            state,
            received: Arc::new(Mutex::new(Vec::new())),
            connections: Arc::new(AtomicUsize::new(0)),
            stop: Arc::new(AtomicBool::new(false)),
        };
        let (state, received, conns, stop) = (
            b.state.clone(),
            b.received.clone(),
            b.connections.clone(),
            b.stop.clone(),
        );
        std::thread::spawn(move || {
            for s in listener.incoming() {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(s) = s else { continue };
                conns.fetch_add(1, Ordering::SeqCst);
                let (state, received) = (state.clone(), received.clone());
                std::thread::spawn(move || serve(s, &state, &received));
            }
        });
        b
    }

    pub fn set_clock(&self, ms: i64) {
        self.state.lock().unwrap().clock_ms = ms;
    }

    pub fn set_segment_bytes(&self, n: usize) {
        self.state.lock().unwrap().segment_bytes = n;
    }

    pub fn log_bytes(&self, topic: &str, partition: i32) -> Vec<u8> {
        let st = self.state.lock().unwrap();
        st.logs
            .get(&(topic.to_string(), partition))
            .map(|l| l.segments.iter().flat_map(|s| s.data.clone()).collect())
            .unwrap_or_default()
    }

    pub fn segment_starts(&self, topic: &str, partition: i32) -> Vec<i64> {
        let st = self.state.lock().unwrap();
        st.logs[&(topic.to_string(), partition)]
            .segments
            .iter()
            .map(|s| s.start)
            .collect()
    }
}

impl Drop for Broker07 {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(&self.addr);
    }
}

/// A cursor over a request, with its own big-endian reads.
struct Cur<'a>(&'a [u8], usize);

impl<'a> Cur<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.0.get(self.1..self.1 + n)?;
        self.1 += n;
        Some(s)
    }
    fn i16(&mut self) -> Option<i16> {
        Some(i16::from_be_bytes(self.take(2)?.try_into().ok()?))
    }
    fn i32(&mut self) -> Option<i32> {
        Some(i32::from_be_bytes(self.take(4)?.try_into().ok()?))
    }
    fn i64(&mut self) -> Option<i64> {
        Some(i64::from_be_bytes(self.take(8)?.try_into().ok()?))
    }
    fn topic(&mut self) -> Option<String> {
        let n = self.i16()?;
        String::from_utf8(self.take(usize::try_from(n).ok()?)?.to_vec()).ok()
    }
}

/// `ByteBufferMessageSet` validation as `Log.append` does it: every message,
/// compressed ones opened, must pass its CRC. Returns the valid bytes (whole
/// messages only) or None for an invalid message.
fn valid_bytes(set: &[u8]) -> Option<usize> {
    let mut pos = 0;
    while set.len() - pos >= 4 {
        let n = i32::from_be_bytes(set[pos..pos + 4].try_into().unwrap());
        if n < 0 {
            return None;
        }
        let n = n as usize;
        if set.len() - pos - 4 < n {
            break;
        }
        check_message(&set[pos + 4..pos + 4 + n])?;
        pos += 4 + n;
    }
    Some(pos)
}

fn check_message(m: &[u8]) -> Option<()> {
    let (attr, crc_at) = match *m.first()? {
        0 => (0, 1),
        1 => (*m.get(1)?, 2),
        _ => return None,
    };
    let crc = u32::from_be_bytes(m.get(crc_at..crc_at + 4)?.try_into().ok()?);
    let payload = &m[crc_at + 4..];
    if crc32(payload) != crc {
        return None;
    }
    let codec = match attr & 3 {
        0 => return Some(()),
        1 => gregor::compression::Codec::Gzip,
        2 => gregor::compression::Codec::Snappy,
        _ => return None,
    };
    let inner = gregor::compression::decompress(codec, payload, 64 << 20).ok()?;
    (valid_bytes(&inner)? == inner.len()).then_some(())
}

fn produce(st: &mut State, c: &mut Cur<'_>) -> Option<()> {
    let topic = c.topic()?;
    let mut partition = c.i32()?;
    let n = usize::try_from(c.i32()?).ok()?;
    let set = c.take(n)?;
    if partition == -1 {
        partition = (crc32(set) % st.partitions_of(&topic) as u32) as i32;
    }
    if !st.check_partition(&topic, partition) {
        return None;
    }
    let valid = valid_bytes(set)?;
    let now = st.clock_ms;
    let seg = st.segment_bytes;
    st.logs
        .entry((topic.clone(), partition))
        .or_insert_with(|| Log::new(now))
        .append(&set[..valid], now, seg);
    if !st.registered.contains(&topic) {
        if let Some(zk) = &st.zk {
            ensure_path(zk, &format!("/brokers/topics/{topic}"));
            zk.create(
                &format!("/brokers/topics/{topic}/{}", st.broker_id),
                st.partitions_of(&topic).to_string().into_bytes(),
                Acl::open_unsafe().clone(),
                CreateMode::Ephemeral,
            )
            .unwrap();
        }
        st.registered.insert(topic);
    }
    Some(())
}

/// One MessageSetSend: length (error code included), error code, bytes.
fn fetch_part(st: &State, c: &mut Cur<'_>, out: &mut Vec<u8>) -> Option<()> {
    let topic = c.topic()?;
    let partition = c.i32()?;
    let offset = c.i64()?;
    let max = c.i32()?;
    let (code, bytes): (i16, &[u8]) = if !st.check_partition(&topic, partition) {
        (3, &[])
    } else {
        match st.logs.get(&(topic, partition)) {
            None if max < 0 => (-1, &[]),
            None => (0, &[]),
            Some(log) => match log.read(offset, max) {
                Ok(b) => (0, b),
                Err(code) => (code, &[]),
            },
        }
    };
    out.extend_from_slice(&(2 + bytes.len() as i32).to_be_bytes());
    out.extend_from_slice(&code.to_be_bytes());
    out.extend_from_slice(bytes);
    Some(())
}

/// Handles one request; None closes the connection (as 0.7 does when a
/// handler throws), Some(None) means no response.
fn handle(st: &mut State, body: &[u8]) -> Option<Option<Vec<u8>>> {
    let mut c = Cur(body, 0);
    let kind = c.i16()?;
    let resp = match kind {
        0 => {
            produce(st, &mut c)?;
            None
        }
        3 => {
            let n = c.i16()?;
            for _ in 0..n {
                produce(st, &mut c)?;
            }
            None
        }
        1 => {
            let mut out = Vec::new();
            fetch_part(st, &mut c, &mut out)?;
            Some(out)
        }
        2 => {
            let n = c.i16()?;
            let mut parts = Vec::new();
            for _ in 0..n {
                fetch_part(st, &mut c, &mut parts)?;
            }
            let mut out = (2 + parts.len() as i32).to_be_bytes().to_vec();
            out.extend_from_slice(&0i16.to_be_bytes());
            out.extend_from_slice(&parts);
            Some(out)
        }
        4 => {
            let topic = c.topic()?;
            let partition = c.i32()?;
            let time = c.i64()?;
            let max = c.i32()?;
            if !st.check_partition(&topic, partition) {
                return None;
            }
            let offsets = match st.logs.get(&(topic, partition)) {
                Some(log) => log.offsets_before(time, max, st.clock_ms),
                None if time == -1 || time == -2 => vec![0],
                None => vec![],
            };
            let mut out = (2 + 4 + 8 * offsets.len() as i32).to_be_bytes().to_vec();
            out.extend_from_slice(&0i16.to_be_bytes());
            out.extend_from_slice(&(offsets.len() as i32).to_be_bytes());
            for o in offsets {
                out.extend_from_slice(&o.to_be_bytes());
            }
            Some(out)
        }
        _ => return None,
    };
    if c.1 != body.len() {
        return None;
    }
    Some(resp)
}

fn serve(mut s: TcpStream, state: &Mutex<State>, received: &Mutex<Vec<Vec<u8>>>) {
    loop {
        let mut len = [0u8; 4];
        if s.read_exact(&mut len).is_err() {
            return;
        }
        let n = i32::from_be_bytes(len);
        if !(2..=(64 << 20)).contains(&n) {
            return;
        }
        let mut body = vec![0u8; n as usize];
        if s.read_exact(&mut body).is_err() {
            return;
        }
        received.lock().unwrap().push(body.clone());
        let resp = handle(&mut state.lock().unwrap(), &body);
        match resp {
            None => return, // drops the socket: the client sees the connection close
            Some(None) => {}
            Some(Some(out)) => {
                if s.write_all(&out).is_err() {
                    return;
                }
            }
        }
    }
}
