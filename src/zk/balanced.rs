//! The ZooKeeper-balanced consumer: Kafka 0.8's high-level consumer
//! (`ZookeeperConsumerConnector`; the "Consumer rebalancing algorithm" of
//! Kafka's 0.7/0.8 design document) on
//! top of gregor's fetcher ([`Consumer`]).
//!
//! ```text
//! /consumers/<g>/ids/<consumer_id>     {"version":1,"subscription":{"t":1},"pattern":"static","timestamp":"…"}  ephemeral
//! /consumers/<g>/owners/<t>/<p>        "<consumer_id>-0"  (the consumer thread id)                               ephemeral
//! /consumers/<g>/offsets/<t>/<p>       "<next offset to read>"                                                    persistent
//! ```
//!
//! A member registers itself, watches the group's members, `/brokers/ids`
//! and its topics' partition lists, and on every change rebalances:
//! partitions are range-assigned exactly as Kafka 0.8 did (per topic, the
//! sorted consumer thread ids of every member subscribed to it against the
//! sorted partitions: `n / threads` each, the first `n % threads` threads
//! one more). Partitions it no longer gets are taken from the fetcher, their
//! offsets committed (with auto-commit, as Kafka) and their owner nodes
//! deleted; new ones are claimed by creating their owner node, retried
//! while the previous owner still holds it (up to `rebalance.backoff.ms`;
//! a failed attempt is retried as a whole up to `rebalance.max.retries`
//! times, and then reported through [`BalancedConsumer::poll`] and retried
//! on the next change or after the backoff), and fetched from their offset
//! in ZooKeeper (else `auto.offset.reset`).
//!
//! A member that loses its ZooKeeper session (the ZooKeeper server expired
//! it, or the client gave up reconnecting) stops fetching (its owner nodes
//! are gone; Kafka 0.8 kept fetching until the next rebalance, reading
//! what the next owner reads too), opens a new session, registers again
//! under the same id and rebalances, claiming its partitions anew. While
//! ZooKeeper is only unreachable (the session may still live), it keeps
//! fetching but hands nothing out until the session is confirmed.
//!
//! Decisions where Kafka is silent or gregor differs:
//! - one consumer thread (stream) per topic: `poll` is the only stream;
//! - partitions this member keeps across a rebalance keep fetching (Kafka
//!   0.8 stopped and restarted every fetcher); an owner node is only
//!   trusted when ZooKeeper says it belongs to the current session;
//! - `poll` never hands out an offset below one already handed out for the
//!   same ownership of a partition, and drops a message of a partition just
//!   taken away (its next owner reads it), so a rebalance under
//!   auto-commit neither loses nor repeats messages;
//! - members registered with `white_list`/`black_list` patterns are
//!   understood when the pattern is a plain list of topic names (`a,b` or
//!   `a|b`); gregor itself registers `static` subscriptions;
//! - with `enable.auto.commit=false`, nothing is committed except by
//!   [`BalancedConsumer::commit`] (Kafka: neither on rebalance nor close);
//! - a partition nothing was read from yet commits where fetching started
//!   (its committed offset, or where `auto.offset.reset` put it), as Kafka.

use crate::sync::MutexExt;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use zookeeper::{Acl, CreateMode, ZkError, ZkState, ZooKeeper};

use super::groups::{member_json, parse_member, GroupMember};
use crate::config::{ClientKind, Config};
use crate::consumer::{Consumer, TopicPartitionOffset};
use crate::error::{local, Error, Result};
use crate::message::{offset, Message};
use crate::registry::inspect::parse_topic;
use crate::registry::session;

/// Properties the balanced consumer reads itself and keeps from its fetcher.
const OWN_PROPS: &[&str] = &[
    "group.id",
    "consumer.id",
    "enable.auto.commit",
    "auto.commit.interval.ms",
    "rebalance.max.retries",
    "rebalance.backoff.ms",
];

/// Rebalance failures kept for `poll` (older ones are dropped).
const MAX_ERRORS: usize = 16;

type Tp = (String, i32);

/// What a rebalance reads: whether any broker is registered, consumer
/// thread ids by topic, partitions by topic.
type View = (
    bool,
    BTreeMap<String, Vec<String>>,
    BTreeMap<String, Vec<i32>>,
);

/// Kafka 0.8's range assignment of one topic: the partitions (sorted)
/// `thread` gets among `threads` (sorted consumer thread ids of every
/// member subscribed to the topic). Empty if `thread` is not among them.
pub fn range_assign(threads: &[String], partitions: &[i32], thread: &str) -> Vec<i32> {
    let mut threads: Vec<&String> = threads.iter().collect();
    threads.sort();
    threads.dedup();
    let mut parts = partitions.to_vec();
    parts.sort_unstable();
    parts.dedup();
    let Some(pos) = threads.iter().position(|t| *t == thread) else {
        return Vec::new();
    };
    let per = parts.len() / threads.len();
    let extra = parts.len() % threads.len();
    let start = per * pos + pos.min(extra);
    let n = per + usize::from(pos < extra);
    parts[start..start + n].to_vec()
}

/// Whether `member`'s subscription covers `topic`, and with how many
/// threads; `Err` for a pattern gregor cannot evaluate.
fn streams_for(member: &GroupMember, topic: &str) -> Result<i32> {
    match member.pattern.as_str() {
        "static" => Ok(member.subscription.get(topic).copied().unwrap_or(0)),
        p @ ("white_list" | "black_list") => {
            let mut n = 0;
            for (pattern, count) in &member.subscription {
                // Kafka's TopicFilter: commas are alternation, quotes and spaces dropped.
                let cleaned: String = pattern
                    .chars()
                    .filter(|c| !c.is_whitespace() && *c != '"' && *c != '\'')
                    .collect();
                let names: Vec<&str> = cleaned.split([',', '|']).collect();
                if names.iter().any(|s| {
                    s.is_empty()
                        || !s
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
                }) {
                    return Err(Error::local(
                        local::UNSUPPORTED_FEATURE,
                        format!(
                            "member {} subscribes with the {p} pattern {pattern:?}; \
                             only plain topic lists are understood",
                            member.id
                        ),
                    ));
                }
                // A '.' in a name is a regex wildcard in Kafka; as a list of names it is literal.
                let listed = names.contains(&topic);
                if listed == (p == "white_list") {
                    n = n.max(*count);
                }
            }
            Ok(n)
        }
        other => Err(Error::local(
            local::BAD_MSG,
            format!("member {} has an unknown pattern {other:?}", member.id),
        )),
    }
}

/// A partition this member owns.
#[derive(Debug, Clone, Copy)]
struct Owned {
    /// The offset it was assigned at (absolute, or `offset::INVALID`).
    start: i64,
    /// The next offset to read, once a message was handed out.
    consumed: Option<i64>,
    /// The last offset written to ZooKeeper.
    committed: Option<i64>,
}

impl Owned {
    fn next(&self) -> Option<i64> {
        self.consumed.or((self.start >= 0).then_some(self.start))
    }
}

/// The current ZooKeeper session.
struct Session {
    zk: Arc<ZooKeeper>,
    /// The session id (the ephemeral owner of our registration).
    id: i64,
    /// Set by the client when it gives the session up.
    closed: Arc<AtomicBool>,
    /// Connected to ZooKeeper now.
    up: Arc<AtomicBool>,
}

enum Event {
    /// A watch fired.
    Changed,
    /// The connection (re)connected: check the registration.
    Connected,
    /// The client gave the session up.
    Closed,
    /// Shut down.
    Stop,
}

struct Inner {
    consumer: Consumer,
    group: String,
    id: String,
    thread_id: String,
    topics: Vec<String>,
    connect: String,
    timeout: Duration,
    auto_commit: Option<Duration>,
    max_retries: u32,
    backoff: Duration,
    /// Held while a message is handed out and while partitions are taken
    /// away or added, so the two never interleave.
    owned: Mutex<BTreeMap<Tp, Owned>>,
    /// Serializes commits, so an older offset never overwrites a newer one.
    commit_lock: Mutex<()>,
    session: Mutex<Option<Session>>,
    events: Mutex<Sender<Event>>,
    errors: Mutex<VecDeque<Error>>,
    stopping: AtomicBool,
}

/// A consumer in a ZooKeeper-coordinated (Kafka 0.8) consumer group. Thread-safe.
pub struct BalancedConsumer {
    inner: Arc<Inner>,
    thread: Mutex<Option<JoinHandle<()>>>,
    closed: AtomicBool,
}

impl std::fmt::Debug for BalancedConsumer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BalancedConsumer")
            .field("group", &self.inner.group)
            .field("id", &self.inner.id)
            .finish_non_exhaustive()
    }
}

fn now_ms() -> i64 {
    crate::message::now_ms()
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty() && !h.contains('/'))
        .unwrap_or_else(|| "localhost".into())
}

/// Kafka's consumer id: `<group>_<consumer.id>`, or `<group>_<host>-<ms>-<8 hex>`.
fn consumer_id(group: &str, configured: &str) -> Result<String> {
    if !configured.is_empty() {
        return Ok(format!("{group}_{configured}"));
    }
    let mut r = [0u8; 4];
    getrandom::getrandom(&mut r)
        .map_err(|e| Error::local(local::FAIL, format!("no random bytes: {e}")))?;
    let hex: String = r.iter().map(|b| format!("{b:02x}")).collect();
    Ok(format!("{group}_{}-{}-{hex}", hostname(), now_ms()))
}

fn check_name(what: &str, s: &str) -> Result<()> {
    if s.is_empty() || s.contains('/') || s == "." || s == ".." {
        return Err(Error::invalid_arg(format!("bad {what} {s:?}")));
    }
    Ok(())
}

impl BalancedConsumer {
    /// Joins `group.id`'s ZooKeeper-coordinated group at `zookeeper.connect`
    /// (which also finds the brokers) consuming `topics`, and starts
    /// rebalancing in the background; messages come from
    /// [`BalancedConsumer::poll`]. Blocks while registering (up to
    /// `zookeeper.session.timeout.ms`).
    ///
    /// # Errors
    /// A bad configuration (no `zookeeper.connect` or `group.id`, a
    /// producer property), no topics or a bad name, ZooKeeper or the
    /// brokers unreachable.
    pub fn new(cfg: &Config, topics: &[&str]) -> Result<BalancedConsumer> {
        crate::config::log_warnings(cfg, ClientKind::Consumer, &cfg.logger("consumer"));
        let group = cfg.str("group.id").to_string();
        if group.is_empty() {
            return Err(Error::Config {
                key: "group.id".into(),
                reason: "a ZooKeeper-balanced consumer needs a group".into(),
            });
        }
        check_name("group.id", &group)?;
        let connect = cfg.str("zookeeper.connect").to_string();
        if connect.is_empty() {
            return Err(Error::Config {
                key: "zookeeper.connect".into(),
                reason: "a ZooKeeper-balanced consumer needs ZooKeeper".into(),
            });
        }
        if topics.is_empty() {
            return Err(Error::invalid_arg("no topics to consume"));
        }
        let mut names: Vec<String> = Vec::new();
        for t in topics {
            check_name("topic", t)?;
            if !names.iter().any(|n| n == t) {
                names.push((*t).to_string());
            }
        }
        let id = consumer_id(&group, cfg.str("consumer.id"))?;
        check_name("consumer.id", &id)?;
        let mut fetch_cfg = Config::new();
        for (k, v) in cfg.iter() {
            if !OWN_PROPS.contains(&k) {
                fetch_cfg.set(k, v)?;
            }
        }
        let consumer = Consumer::new(&fetch_cfg)?;
        let (tx, rx) = channel();
        let interval = cfg.ms("auto.commit.interval.ms");
        let inner = Arc::new(Inner {
            consumer,
            thread_id: format!("{id}-0"),
            group,
            id,
            topics: names,
            connect,
            timeout: cfg.ms("zookeeper.session.timeout.ms"),
            auto_commit: cfg.bool("enable.auto.commit").then_some(interval),
            max_retries: cfg.int("rebalance.max.retries") as u32,
            backoff: cfg.ms("rebalance.backoff.ms"),
            owned: Mutex::new(BTreeMap::new()),
            commit_lock: Mutex::new(()),
            session: Mutex::new(None),
            events: Mutex::new(tx),
            errors: Mutex::new(VecDeque::new()),
            stopping: AtomicBool::new(false),
        });
        if let Err(e) = inner.new_session() {
            inner.consumer.close();
            return Err(e);
        }
        let worker = inner.clone();
        let thread = std::thread::Builder::new()
            .name("gregor-zk-balance".into())
            .spawn(move || worker.run(rx))
            .map_err(|e| Error::local(local::FAIL, format!("cannot start a thread: {e}")))?;
        Ok(BalancedConsumer {
            inner,
            thread: Mutex::new(Some(thread)),
            closed: AtomicBool::new(false),
        })
    }

    /// This member's consumer id (its node under `/consumers/<g>/ids`).
    pub fn id(&self) -> &str {
        &self.inner.id
    }

    /// The consumer thread id written into the owner nodes (`<id>-0`).
    pub fn thread_id(&self) -> &str {
        &self.inner.thread_id
    }

    /// The fetcher underneath (its cluster, watermarks, positions).
    pub fn consumer(&self) -> &Consumer {
        &self.inner.consumer
    }

    /// The partitions this member owns now, in order.
    pub fn owned(&self) -> Vec<(String, i32)> {
        self.inner.owned.locked().keys().cloned().collect()
    }

    /// The next message of an owned partition, or an error/event as a
    /// message with `error` set (a failed rebalance has no topic and
    /// partition -1); `Ok(None)` if nothing came within `timeout`. The
    /// message's offset + 1 is what the next commit writes.
    ///
    /// # Errors
    /// `_STATE` once closed.
    pub fn poll(&self, timeout: Duration) -> Result<Option<Message>> {
        if self.closed.load(Ordering::SeqCst) {
            return Err(Error::local(local::STATE, "the consumer is closed"));
        }
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(e) = self.inner.errors.locked().pop_front() {
                return Ok(Some(Message::event("".into(), -1, -1, e)));
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if !self.inner.linked() {
                // Cut off from ZooKeeper, this member cannot know that it
                // still owns its partitions: hand nothing out until the
                // session is confirmed or renewed.
                if left.is_zero() {
                    return Ok(None);
                }
                std::thread::sleep(left.min(Duration::from_millis(50)));
                continue;
            }
            // Short slices, so a rebalance failure is reported promptly.
            let Some(m) = self
                .inner
                .consumer
                .poll(left.min(Duration::from_millis(200)))?
            else {
                if left.is_zero() {
                    return Ok(None);
                }
                continue;
            };
            if m.error.is_some() {
                return Ok(Some(m));
            }
            let mut owned = self.inner.owned.locked();
            let Some(o) = owned.get_mut(&(m.topic.to_string(), m.partition)) else {
                continue; // taken away meanwhile: its next owner reads it
            };
            if o.next().is_some_and(|n| m.offset < n) {
                continue; // fetched before a re-assignment: handed out already
            }
            o.consumed = Some(m.offset + 1);
            return Ok(Some(m));
        }
    }

    /// Writes the offsets of the owned partitions (the offset after the
    /// last message handed out) to `/consumers/<g>/offsets/<t>/<p>`.
    /// Blocks up to the session timeout.
    ///
    /// # Errors
    /// ZooKeeper failures (the offsets stay pending for the next commit).
    pub fn commit(&self) -> Result<()> {
        self.inner.commit(None)
    }

    /// Commits (with `enable.auto.commit`, as Kafka's shutdown), gives up
    /// the owned partitions and the registration (closing the ZooKeeper
    /// session), and closes the fetcher. Later polls fail with `_STATE`.
    /// Called on drop too.
    pub fn close(&self) {
        if self.closed.swap(true, Ordering::SeqCst) {
            return;
        }
        let inner = &self.inner;
        inner.stopping.store(true, Ordering::SeqCst);
        let _ = inner.events.locked().send(Event::Stop);
        if let Some(t) = self.thread.locked().take() {
            let _ = t.join();
        }
        // Taken from the fetcher first, so a poll racing with close hands
        // out nothing that is not committed.
        let _c = inner.commit_lock.locked();
        let parts: BTreeMap<Tp, Option<i64>> = {
            let mut owned = inner.owned.locked();
            let tps: Vec<TopicPartitionOffset> = owned
                .keys()
                .map(|(t, p)| TopicPartitionOffset::new(t, *p, 0))
                .collect();
            let values: BTreeMap<Tp, Option<i64>> = owned
                .iter()
                .map(|(tp, o)| (tp.clone(), inner.to_commit(tp, o)))
                .collect();
            let _ = inner.consumer.incremental_unassign(&tps);
            owned.clear();
            values
        };
        if let Some(s) = inner.session.locked().take() {
            for ((t, p), c) in &parts {
                if let (Some(c), Some(_)) = (c, inner.auto_commit) {
                    let _ = inner.write_offset(&s.zk, t, *p, *c);
                }
            }
            for (t, p) in parts.keys() {
                inner.release(&s.zk, s.id, t, *p);
            }
            let _ = s.zk.delete(&inner.ids_path(), None);
            let _ = s.zk.close();
        }
        inner.consumer.close();
    }
}

impl Drop for BalancedConsumer {
    fn drop(&mut self) {
        self.close();
    }
}

fn zerr(what: &str, e: ZkError) -> Error {
    session::error(what, e)
}

impl Inner {
    fn ids_path(&self) -> String {
        format!("/consumers/{}/ids/{}", self.group, self.id)
    }

    fn owner_path(&self, t: &str, p: i32) -> String {
        format!("/consumers/{}/owners/{t}/{p}", self.group)
    }

    fn offset_path(&self, t: &str, p: i32) -> String {
        format!("/consumers/{}/offsets/{t}/{p}", self.group)
    }

    /// Whether the current session is connected.
    fn linked(&self) -> bool {
        self.session
            .locked()
            .as_ref()
            .is_some_and(|s| s.up.load(Ordering::SeqCst) && !s.closed.load(Ordering::SeqCst))
    }

    fn report(&self, e: Error) {
        let mut q = self.errors.locked();
        if q.len() >= MAX_ERRORS {
            q.pop_front();
        }
        q.push_back(e);
    }

    fn zk(&self) -> Result<(Arc<ZooKeeper>, i64)> {
        self.session
            .locked()
            .as_ref()
            .map(|s| (s.zk.clone(), s.id))
            .ok_or_else(|| Error::transport("no ZooKeeper session"))
    }

    /// Creates the missing nodes of `path`, each with this member's id as
    /// its data (intermediate nodes name their creator).
    fn ensure_path(&self, zk: &ZooKeeper, path: &str) -> Result<()> {
        let ends = path
            .match_indices('/')
            .map(|(i, _)| i)
            .filter(|&i| i > 0)
            .chain(std::iter::once(path.len()));
        for i in ends {
            let prefix = &path[..i];
            match session::retry(zk, self.timeout, |zk| {
                zk.create(
                    prefix,
                    self.id.as_bytes().to_vec(),
                    Acl::open_unsafe().clone(),
                    CreateMode::Persistent,
                )
            }) {
                Ok(_) | Err(ZkError::NodeExists) => {}
                Err(e) => return Err(zerr(&format!("create {prefix}"), e)),
            }
        }
        Ok(())
    }

    /// Opens a new session (closing the old one) and registers in it.
    fn new_session(&self) -> Result<()> {
        if let Some(old) = self.session.locked().take() {
            let _ = old.zk.close();
        }
        let tx = Mutex::new(self.events.locked().clone());
        let zk = session::open(&self.connect, self.timeout, move |_| {
            let _ = tx.locked().send(Event::Changed);
        })?;
        let closed = Arc::new(AtomicBool::new(false));
        let up = Arc::new(AtomicBool::new(true));
        let (flag, link, tx) = (
            closed.clone(),
            up.clone(),
            Mutex::new(self.events.locked().clone()),
        );
        zk.add_listener(move |s| {
            let connected = matches!(s, ZkState::Connected | ZkState::ConnectedReadOnly);
            link.store(connected, Ordering::SeqCst);
            let ev = match s {
                ZkState::Closed => {
                    flag.store(true, Ordering::SeqCst);
                    Event::Closed
                }
                _ if connected => Event::Connected,
                _ => return,
            };
            let _ = tx.locked().send(ev);
        });
        let zk = Arc::new(zk);
        let id = match self.register(&zk) {
            Ok(id) => id,
            Err(e) => {
                let _ = zk.close();
                return Err(e);
            }
        };
        *self.session.locked() = Some(Session { zk, id, closed, up });
        Ok(())
    }

    /// Writes the ephemeral registration (replacing one left by an earlier
    /// session of this member) and returns the session id.
    fn register(&self, zk: &ZooKeeper) -> Result<i64> {
        let dir = format!("/consumers/{}/ids", self.group);
        self.ensure_path(zk, &dir)?;
        for t in &self.topics {
            self.ensure_path(zk, &format!("/consumers/{}/owners/{t}", self.group))?;
        }
        let sub: BTreeMap<String, i32> = self.topics.iter().map(|t| (t.clone(), 1)).collect();
        let data = member_json(&sub, "static", now_ms()).into_bytes();
        let path = self.ids_path();
        let deadline = Instant::now() + self.timeout;
        loop {
            let created = session::retry(zk, self.timeout, |zk| {
                zk.create(
                    &path,
                    data.clone(),
                    Acl::open_unsafe().clone(),
                    CreateMode::Ephemeral,
                )
            });
            match created {
                Ok(_) => break,
                // Ours from an earlier session (or a create retried across a
                // reconnect): the id is unique to this member, so replace it.
                Err(ZkError::NodeExists) if Instant::now() < deadline => {
                    match session::retry(zk, self.timeout, |zk| zk.delete(&path, None)) {
                        Ok(()) | Err(ZkError::NoNode) => {}
                        Err(e) => return Err(zerr(&format!("delete {path}"), e)),
                    }
                }
                Err(e) => return Err(zerr(&format!("register {path}"), e)),
            }
        }
        match session::retry(zk, self.timeout, |zk| zk.exists(&path, false)) {
            Ok(Some(stat)) => Ok(stat.ephemeral_owner),
            Ok(None) => Err(Error::transport(format!("{path} vanished after creation"))),
            Err(e) => Err(zerr(&format!("read {path}"), e)),
        }
    }

    /// Whether our registration still stands in the current session.
    fn registered(&self) -> Result<bool> {
        let (zk, id) = self.zk()?;
        match session::retry(&zk, self.timeout, |zk| zk.exists(&self.ids_path(), false)) {
            Ok(Some(stat)) => Ok(stat.ephemeral_owner == id),
            Ok(None) => Ok(false),
            Err(e) => Err(zerr("read registration", e)),
        }
    }

    /// The coordinator thread: rebalances on changes, renews the session,
    /// commits periodically.
    fn run(self: Arc<Self>, rx: Receiver<Event>) {
        let mut need_session = false;
        let mut need_rebalance = true;
        let mut check_registration = false;
        let mut retry_at: Option<Instant> = None;
        let mut next_commit = self.auto_commit.map(|i| Instant::now() + i);
        loop {
            if self.stopping.load(Ordering::SeqCst) {
                return;
            }
            if check_registration && !need_session {
                check_registration = false;
                match self.registered() {
                    Ok(true) => {}
                    // The client made a new session under us: register in it.
                    Ok(false) => {
                        need_session = true;
                        self.suspend();
                    }
                    Err(_) => retry_at = Some(Instant::now() + Duration::from_secs(1)),
                }
            }
            if need_session && retry_at.is_none_or(|t| Instant::now() >= t) {
                match self.new_session() {
                    Ok(()) => {
                        need_session = false;
                        need_rebalance = true;
                        retry_at = None;
                    }
                    Err(e) => {
                        self.report(e);
                        retry_at = Some(Instant::now() + Duration::from_secs(1));
                    }
                }
            }
            if need_rebalance && !need_session && retry_at.is_none_or(|t| Instant::now() >= t) {
                need_rebalance = false;
                retry_at = None;
                if let Err(e) = self.rebalance(&rx) {
                    let lost = self
                        .session
                        .locked()
                        .as_ref()
                        .is_none_or(|s| s.closed.load(Ordering::SeqCst));
                    // Our registration gone while the session lives (deleted by
                    // hand, or a session the client renewed silently): register again.
                    let unregistered = !lost && matches!(self.registered(), Ok(false));
                    if lost || unregistered {
                        need_session = true;
                        self.suspend();
                    } else {
                        self.report(e);
                        need_rebalance = true;
                        retry_at =
                            Some(Instant::now() + self.backoff.max(Duration::from_millis(100)));
                    }
                }
            }
            if let (Some(at), Some(every)) = (next_commit, self.auto_commit) {
                if Instant::now() >= at {
                    // A failure leaves the offsets pending for the next round.
                    let _ = self.commit(None);
                    next_commit = Some(Instant::now() + every);
                }
            }
            let mut wait = Duration::from_secs(1);
            if let Some(t) = retry_at {
                wait = wait.min(t.saturating_duration_since(Instant::now()));
            }
            if let Some(t) = next_commit {
                wait = wait.min(t.saturating_duration_since(Instant::now()));
            }
            let first = match rx.recv_timeout(wait) {
                Ok(ev) => Some(ev),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => return,
            };
            for ev in first
                .into_iter()
                .chain(std::iter::from_fn(|| rx.try_recv().ok()))
            {
                match ev {
                    Event::Changed => need_rebalance = true,
                    Event::Connected => check_registration = true,
                    Event::Closed => {
                        if self
                            .session
                            .locked()
                            .as_ref()
                            .is_none_or(|s| s.closed.load(Ordering::SeqCst))
                        {
                            need_session = true;
                            self.suspend();
                        }
                    }
                    Event::Stop => return,
                }
            }
        }
    }

    /// Stops fetching everything: the session is gone, and with it the
    /// owner nodes, so another member may be reading these partitions
    /// already. What was consumed since the last commit is read again by
    /// the next owner.
    fn suspend(&self) {
        let _c = self.commit_lock.locked();
        let mut owned = self.owned.locked();
        let tps: Vec<TopicPartitionOffset> = owned
            .keys()
            .map(|(t, p)| TopicPartitionOffset::new(t, *p, 0))
            .collect();
        let _ = self.consumer.incremental_unassign(&tps);
        owned.clear();
    }

    /// Up to `rebalance.max.retries` + 1 attempts.
    fn rebalance(&self, rx: &Receiver<Event>) -> Result<()> {
        let mut last = None;
        for attempt in 0..=self.max_retries {
            if self.stopping.load(Ordering::SeqCst) {
                return Ok(());
            }
            if attempt > 0 {
                std::thread::sleep(Duration::from_millis(100));
            }
            match self.rebalance_once(rx)? {
                None => return Ok(()),
                Some(why) => last = Some(why),
            }
        }
        Err(Error::local(
            local::FAIL,
            format!(
                "{} cannot rebalance group {} after {} attempts: {}",
                self.id,
                self.group,
                self.max_retries + 1,
                last.unwrap_or_default()
            ),
        ))
    }

    /// Reads the group and the topics, and watches them.
    fn view(&self, zk: &ZooKeeper) -> Result<View> {
        let t = self.timeout;
        let brokers = session::children(zk, t, crate::registry::brokers::BROKER_IDS_PATH, true)?;
        let dir = format!("/consumers/{}/ids", self.group);
        let mut members = Vec::new();
        for id in session::children(zk, t, &dir, true)? {
            let path = format!("{dir}/{id}");
            if let Some(d) = session::get(zk, t, &path, false)? {
                members.push(parse_member(&path, &id, &d)?);
            }
        }
        let mut threads = BTreeMap::new();
        let mut partitions = BTreeMap::new();
        for topic in &self.topics {
            let mut ids = Vec::new();
            for m in &members {
                for i in 0..streams_for(m, topic)? {
                    ids.push(format!("{}-{i}", m.id));
                }
            }
            threads.insert(topic.clone(), ids);
            let path = format!("/brokers/topics/{topic}");
            let parts = match session::retry(zk, t, |zk| zk.get_data(&path, true)) {
                Ok((d, _)) => parse_topic(&path, &d)?.partitions.into_keys().collect(),
                Err(ZkError::NoNode) => {
                    // Watch for the topic to appear.
                    let _ = session::retry(zk, t, |zk| zk.exists(&path, true));
                    Vec::new()
                }
                Err(e) => return Err(zerr(&format!("read {path}"), e)),
            };
            partitions.insert(topic.clone(), parts);
        }
        Ok((!brokers.is_empty(), threads, partitions))
    }

    /// One attempt: `None` when done, else why it must be retried.
    fn rebalance_once(&self, rx: &Receiver<Event>) -> Result<Option<String>> {
        let (zk, session_id) = self.zk()?;
        // Changes seen so far are covered by the reads below.
        while let Ok(ev) = rx.try_recv() {
            if matches!(ev, Event::Stop) {
                self.stopping.store(true, Ordering::SeqCst);
                return Ok(None);
            }
            if matches!(ev, Event::Closed) {
                return Err(Error::transport("ZooKeeper session closed"));
            }
        }
        let (brokers, threads, partitions) = self.view(&zk)?;
        if !threads.values().any(|ids| ids.contains(&self.thread_id)) {
            if !self.registered()? {
                return Err(Error::transport("registration lost"));
            }
            return Ok(Some("own registration not listed yet".into()));
        }
        if !brokers {
            // As Kafka: nothing to fetch from; wait for brokers to come.
            return Ok(None);
        }
        let mut desired = BTreeSet::new();
        for (topic, ids) in &threads {
            for p in range_assign(ids, &partitions[topic], &self.thread_id) {
                desired.insert((topic.clone(), p));
            }
        }
        // Partitions still held: is the owner node ours in this session?
        let held: Vec<Tp> = self.owned.locked().keys().cloned().collect();
        let mut lost = BTreeSet::new(); // another member owns it now
        let mut orphaned = BTreeSet::new(); // nobody owns it (our session ended)
        for (t, p) in &held {
            match self.owner_of(&zk, t, *p)? {
                Some((_, owner)) if owner == session_id => {}
                Some(_) => {
                    lost.insert((t.clone(), *p));
                }
                None => {
                    orphaned.insert((t.clone(), *p));
                }
            }
        }
        let release: Vec<Tp> = held
            .iter()
            .filter(|tp| !desired.contains(*tp) || lost.contains(*tp) || orphaned.contains(*tp))
            .cloned()
            .collect();
        if !release.is_empty() {
            let _c = self.commit_lock.locked();
            let taken = {
                let mut owned = self.owned.locked();
                let tps: Vec<TopicPartitionOffset> = release
                    .iter()
                    .map(|(t, p)| TopicPartitionOffset::new(t, *p, 0))
                    .collect();
                let values: Vec<(Tp, Option<i64>)> = release
                    .iter()
                    .map(|tp| {
                        (
                            tp.clone(),
                            owned.get(tp).and_then(|o| self.to_commit(tp, o)),
                        )
                    })
                    .collect();
                self.consumer.incremental_unassign(&tps)?;
                for tp in &release {
                    owned.remove(tp);
                }
                values
            };
            for ((t, p), c) in &taken {
                let tp = (t.clone(), *p);
                if self.auto_commit.is_some() && !lost.contains(&tp) {
                    if let Some(c) = c {
                        self.write_offset(&zk, t, *p, *c)?;
                    }
                }
                if !lost.contains(&tp) && !orphaned.contains(&tp) {
                    self.release(&zk, session_id, t, *p);
                }
            }
        }
        // Claim what is new, waiting for previous owners to let go.
        let mut claim: Vec<Tp> = {
            let owned = self.owned.locked();
            desired
                .iter()
                .filter(|tp| !owned.contains_key(*tp))
                .cloned()
                .collect()
        };
        let deadline = Instant::now() + self.backoff;
        let mut pause = Duration::from_millis(20);
        let mut got: Vec<TopicPartitionOffset> = Vec::new();
        let mut why = None;
        while !claim.is_empty() {
            let mut waiting = Vec::new();
            for (t, p) in claim {
                match self.claim(&zk, session_id, &t, p)? {
                    None => {
                        let start = self.read_offset(&zk, &t, p)?;
                        got.push(TopicPartitionOffset::new(t, p, start));
                    }
                    Some(holder) => waiting.push(((t, p), holder)),
                }
            }
            if waiting.is_empty() {
                break;
            }
            let changed = rx.try_recv().ok();
            if let Some(ev) = changed {
                // Stop and anything else: re-read the view (the loop sees Stop first).
                if matches!(ev, Event::Stop) {
                    self.stopping.store(true, Ordering::SeqCst);
                }
                why = Some("the group changed while claiming".to_string());
                break;
            }
            if Instant::now() >= deadline {
                let ((t, p), holder) = &waiting[0];
                why = Some(format!(
                    "{t} [{p}] is still owned by {holder} after {} ms",
                    self.backoff.as_millis()
                ));
                break;
            }
            std::thread::sleep(pause.min(deadline.saturating_duration_since(Instant::now())));
            pause = (pause * 2).min(Duration::from_millis(500));
            claim = waiting.into_iter().map(|(tp, _)| tp).collect();
        }
        if !got.is_empty() {
            let mut owned = self.owned.locked();
            self.consumer.incremental_assign(&got)?;
            for tp in got {
                owned.insert(
                    (tp.topic, tp.partition),
                    Owned {
                        start: tp.offset,
                        consumed: None,
                        committed: (tp.offset >= 0).then_some(tp.offset),
                    },
                );
            }
        }
        Ok(why)
    }

    /// The owner node's data and ephemeral owner, if there is one.
    fn owner_of(&self, zk: &ZooKeeper, t: &str, p: i32) -> Result<Option<(String, i64)>> {
        let path = self.owner_path(t, p);
        match session::retry(zk, self.timeout, |zk| zk.get_data(&path, false)) {
            Ok((d, stat)) => Ok(Some((
                String::from_utf8_lossy(&d).trim().to_string(),
                stat.ephemeral_owner,
            ))),
            Err(ZkError::NoNode) => Ok(None),
            Err(e) => Err(zerr(&format!("read {path}"), e)),
        }
    }

    /// Creates the owner node: `None` if it is ours now, else its holder.
    fn claim(&self, zk: &ZooKeeper, session_id: i64, t: &str, p: i32) -> Result<Option<String>> {
        let path = self.owner_path(t, p);
        for _ in 0..3 {
            let created = session::retry(zk, self.timeout, |zk| {
                zk.create(
                    &path,
                    self.thread_id.as_bytes().to_vec(),
                    Acl::open_unsafe().clone(),
                    CreateMode::Ephemeral,
                )
            });
            match created {
                Ok(_) => return Ok(None),
                Err(ZkError::NoNode) => {
                    self.ensure_path(zk, &format!("/consumers/{}/owners/{t}", self.group))?;
                }
                Err(ZkError::NodeExists) => match self.owner_of(zk, t, p)? {
                    None => {} // let go just now: try again
                    Some((_, owner)) if owner == session_id => return Ok(None),
                    Some((holder, _)) if holder == self.thread_id => {
                        // Ours from an expired session: ZooKeeper removes it soon; do it now.
                        match session::retry(zk, self.timeout, |zk| zk.delete(&path, None)) {
                            Ok(()) | Err(ZkError::NoNode) => {}
                            Err(e) => return Err(zerr(&format!("delete {path}"), e)),
                        }
                    }
                    Some((holder, _)) => return Ok(Some(holder)),
                },
                Err(e) => return Err(zerr(&format!("claim {path}"), e)),
            }
        }
        Ok(Some("a node that keeps coming back".into()))
    }

    /// Deletes our owner node (best effort: it is ephemeral anyway).
    fn release(&self, zk: &ZooKeeper, session_id: i64, t: &str, p: i32) {
        let path = self.owner_path(t, p);
        if let Ok((d, stat)) = session::retry(zk, self.timeout, |zk| zk.get_data(&path, false)) {
            if stat.ephemeral_owner == session_id || d == self.thread_id.as_bytes() {
                let _ = session::retry(zk, self.timeout, |zk| zk.delete(&path, Some(stat.version)));
            }
        }
    }

    /// The committed offset in ZooKeeper, else `offset::INVALID` (the
    /// fetcher then applies `auto.offset.reset`).
    fn read_offset(&self, zk: &ZooKeeper, t: &str, p: i32) -> Result<i64> {
        let path = self.offset_path(t, p);
        match session::get(zk, self.timeout, &path, false)? {
            None => Ok(offset::INVALID),
            Some(d) => {
                let s = String::from_utf8_lossy(&d);
                match s.trim().parse::<i64>() {
                    Ok(o) if o >= 0 => Ok(o),
                    // Kafka writes only offsets; anything else starts from the reset policy.
                    _ => {
                        self.report(crate::registry::json::bad_node(
                            &path,
                            format!("{s:?} is not an offset; using auto.offset.reset"),
                        ));
                        Ok(offset::INVALID)
                    }
                }
            }
        }
    }

    /// The offset a commit writes for an owned partition, if it changed:
    /// after the last message handed out, else (as Kafka) where fetching
    /// started once the fetcher resolved it. Call before taking the
    /// partition from the fetcher.
    fn to_commit(&self, (t, p): &Tp, o: &Owned) -> Option<i64> {
        o.consumed
            .or_else(|| {
                let pos = self
                    .consumer
                    .position(&[TopicPartitionOffset::new(t, *p, 0)]);
                pos.first().map(|x| x.offset).filter(|x| *x >= 0)
            })
            .filter(|c| Some(*c) != o.committed)
    }

    fn write_offset(&self, zk: &ZooKeeper, t: &str, p: i32, o: i64) -> Result<()> {
        session::upsert(
            zk,
            self.timeout,
            &self.offset_path(t, p),
            o.to_string().as_bytes(),
        )
    }

    /// Commits the owned partitions' new offsets (all, or `only`).
    fn commit(&self, only: Option<&[Tp]>) -> Result<()> {
        let _c = self.commit_lock.locked();
        let pending: Vec<(Tp, i64)> = self
            .owned
            .locked()
            .iter()
            .filter(|(tp, _)| only.is_none_or(|o| o.contains(tp)))
            .filter_map(|(tp, o)| self.to_commit(tp, o).map(|c| (tp.clone(), c)))
            .collect();
        if pending.is_empty() {
            return Ok(());
        }
        let (zk, _) = self.zk()?;
        let mut first = None;
        for ((t, p), o) in pending {
            match self.write_offset(&zk, &t, p, o) {
                Ok(()) => {
                    if let Some(x) = self.owned.locked().get_mut(&(t, p)) {
                        x.committed = Some(o);
                    }
                }
                Err(e) => {
                    first.get_or_insert(e);
                }
            }
        }
        first.map_or(Ok(()), Err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn range_as_kafka_08() {
        let threads = ids(&["c-0", "a-0", "b-0"]);
        let parts = [5, 4, 3, 2, 1, 0];
        assert_eq!(range_assign(&threads, &parts, "a-0"), vec![0, 1]);
        assert_eq!(range_assign(&threads, &parts, "b-0"), vec![2, 3]);
        assert_eq!(range_assign(&threads, &parts, "c-0"), vec![4, 5]);
        // 7 partitions, 3 threads: the first gets the extra one.
        let parts: Vec<i32> = (0..7).collect();
        assert_eq!(range_assign(&threads, &parts, "a-0"), vec![0, 1, 2]);
        assert_eq!(range_assign(&threads, &parts, "b-0"), vec![3, 4]);
        assert_eq!(range_assign(&threads, &parts, "c-0"), vec![5, 6]);
        // More threads than partitions: the last ones get nothing.
        assert_eq!(range_assign(&threads, &[0, 1], "c-0"), Vec::<i32>::new());
        assert_eq!(range_assign(&threads, &[0, 1], "b-0"), vec![1]);
        assert_eq!(range_assign(&threads, &[], "a-0"), Vec::<i32>::new());
        assert_eq!(range_assign(&threads, &parts, "z-0"), Vec::<i32>::new());
        // Every partition exactly once.
        for n in 0..20 {
            let parts: Vec<i32> = (0..n).collect();
            let mut all: Vec<i32> = threads
                .iter()
                .flat_map(|t| range_assign(&threads, &parts, t))
                .collect();
            all.sort_unstable();
            assert_eq!(all, parts);
        }
    }

    fn member(pattern: &str, sub: &[(&str, i32)]) -> GroupMember {
        GroupMember {
            id: "m".into(),
            version: 1,
            subscription: sub.iter().map(|(t, n)| (t.to_string(), *n)).collect(),
            pattern: pattern.into(),
            timestamp: None,
        }
    }

    #[test]
    fn subscriptions_static_and_topic_lists() {
        let m = member("static", &[("a", 2)]);
        assert_eq!(
            (streams_for(&m, "a").unwrap(), streams_for(&m, "b").unwrap()),
            (2, 0)
        );
        let m = member("white_list", &[("a, 'b'|c", 1)]);
        assert_eq!(streams_for(&m, "b").unwrap(), 1);
        assert_eq!(streams_for(&m, "d").unwrap(), 0);
        let m = member("black_list", &[("a,b", 1)]);
        assert_eq!(
            (streams_for(&m, "a").unwrap(), streams_for(&m, "z").unwrap()),
            (0, 1)
        );
        let e = streams_for(&member("white_list", &[("a.*", 1)]), "ab").unwrap_err();
        assert_eq!(e.code(), local::UNSUPPORTED_FEATURE);
        assert!(streams_for(&member("other", &[]), "a").is_err());
    }

    #[test]
    fn consumer_ids_as_kafka() {
        let id = consumer_id("g", "").unwrap();
        let rest = id.strip_prefix("g_").unwrap();
        let mut parts = rest.rsplitn(3, '-');
        let (rand, ms) = (parts.next().unwrap(), parts.next().unwrap());
        assert_eq!(rand.len(), 8);
        assert!(rand.chars().all(|c| c.is_ascii_hexdigit()));
        assert!(ms.parse::<i64>().unwrap() > 1_600_000_000_000);
        assert_eq!(consumer_id("g", "me").unwrap(), "g_me");
    }
}
