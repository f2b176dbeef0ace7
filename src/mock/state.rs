//! The cluster's state, shared by every broker's connection threads under one
//! mutex: topics and their logs, consumer groups, transactions and producer
//! IDs, plus what the control API set (broker health, delays, injected
//! errors, pinned coordinators, version caps, tracked requests).

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::hash::{BuildHasher, Hasher};
use std::time::{Duration, Instant};

use crate::wire::{Bytes, Uuid};

/// A random 64-bit value from std's per-process hash keys (no RNG dependency).
pub(crate) fn random_u64() -> u64 {
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    h.finish()
}

/// A fresh topic ID (never the zero or the sentinel "1" UUID Kafka reserves).
pub(crate) fn new_topic_id() -> Uuid {
    loop {
        let id = Uuid::from_u64_pair(random_u64(), random_u64());
        if id != Uuid::ZERO && id != Uuid::from_u64_pair(0, 1) {
            return id;
        }
    }
}

/// One broker as the control API sees it.
#[derive(Debug)]
pub(crate) struct BrokerState {
    pub id: i32,
    pub port: u16,
    pub up: bool,
    pub rtt: Duration,
    pub rack: Option<String>,
    /// Errors to answer the next requests of an API with, and a delay for each.
    pub errors: HashMap<i16, VecDeque<(i16, Duration)>>,
}

/// One stored batch of a partition's log, as the producer sent it (offsets and
/// leader epoch patched in).
#[derive(Debug, Clone)]
pub(crate) struct StoredBatch {
    pub base: i64,
    pub last: i64,
    pub max_timestamp: i64,
    pub bytes: Vec<u8>,
}

/// What a producer last appended to one partition (KIP-98 sequence checks).
#[derive(Debug, Clone, Default)]
pub(crate) struct ProducerSeq {
    pub epoch: i16,
    /// The last five batches: (first sequence, last sequence, base offset).
    pub recent: VecDeque<(i32, i32, i64)>,
}

/// One partition: its leader, replicas and log.
#[derive(Debug)]
pub(crate) struct Partition {
    pub leader: i32,
    pub leader_epoch: i32,
    pub replicas: Vec<i32>,
    pub log: Vec<StoredBatch>,
    pub log_start: i64,
    /// The high watermark, which is also the log end (every replica is in sync).
    pub end: i64,
    pub producers: HashMap<i64, ProducerSeq>,
    /// First offset of each producer's ongoing transaction.
    pub ongoing: BTreeMap<i64, i64>,
    /// Aborted transactions: (producer id, first offset, marker offset).
    pub aborted: Vec<(i64, i64, i64)>,
    /// Where each leader epoch started: (epoch, start offset).
    pub epochs: Vec<(i32, i64)>,
    /// The follower the leader names as preferred read replica to a consumer
    /// that sends its rack (KIP-392), and which serves that consumer's
    /// fetches; -1: none, the leader serves every fetch.
    pub follower: i32,
}

impl Partition {
    pub fn new(leader: i32, replicas: Vec<i32>) -> Self {
        Partition {
            leader,
            leader_epoch: 0,
            replicas,
            log: Vec::new(),
            log_start: 0,
            end: 0,
            producers: HashMap::new(),
            ongoing: BTreeMap::new(),
            aborted: Vec::new(),
            epochs: vec![(0, 0)],
            follower: -1,
        }
    }

    /// The last stable offset: the first offset of the oldest ongoing
    /// transaction, else the high watermark.
    pub fn last_stable(&self) -> i64 {
        self.ongoing.values().copied().min().unwrap_or(self.end)
    }

    /// Appends a batch whose offsets are already patched in.
    pub fn push(&mut self, b: StoredBatch) {
        self.end = b.last + 1;
        self.log.push(b);
    }
}

/// One topic.
#[derive(Debug)]
pub(crate) struct Topic {
    pub id: Uuid,
    pub partitions: Vec<Partition>,
    pub configs: BTreeMap<String, String>,
}

/// A classic group's state (Kafka's GroupState names, as DescribeGroups shows them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GroupState {
    Empty,
    PreparingRebalance,
    CompletingRebalance,
    Stable,
}

impl GroupState {
    pub fn name(self) -> &'static str {
        match self {
            GroupState::Empty => "Empty",
            GroupState::PreparingRebalance => "PreparingRebalance",
            GroupState::CompletingRebalance => "CompletingRebalance",
            GroupState::Stable => "Stable",
        }
    }
}

/// A member of a classic group.
#[derive(Debug, Clone)]
pub(crate) struct Member {
    pub instance_id: Option<String>,
    pub client_id: String,
    pub client_host: String,
    pub session_timeout: Duration,
    pub rebalance_timeout: Duration,
    pub protocols: Vec<(String, Bytes)>,
    pub assignment: Bytes,
    pub last_seen: Instant,
    /// Joined in the current rebalance round.
    pub joined: bool,
}

/// A committed offset.
#[derive(Debug, Clone)]
pub(crate) struct Committed {
    pub offset: i64,
    pub leader_epoch: i32,
    pub metadata: Option<String>,
}

/// A classic consumer group (the group coordinator's state).
#[derive(Debug)]
pub(crate) struct Group {
    pub state: GroupState,
    pub protocol_type: String,
    pub protocol: Option<String>,
    pub generation: i32,
    pub leader: Option<String>,
    pub members: BTreeMap<String, Member>,
    /// Member IDs handed out with MEMBER_ID_REQUIRED, not yet joined (KIP-394).
    pub pending: BTreeSet<String>,
    /// Bumped each time a rebalance round completes.
    pub round: u64,
    /// When the current rebalance round gives up on members that have not rejoined.
    pub deadline: Option<Instant>,
    /// Not before then does a round that started from an empty group complete
    /// (`group.initial.rebalance.delay.ms`).
    pub not_before: Option<Instant>,
    pub offsets: BTreeMap<(String, i32), Committed>,
    /// Offsets committed in a transaction, per producer ID, until EndTxn.
    pub txn_offsets: HashMap<i64, BTreeMap<(String, i32), Committed>>,
}

impl Group {
    pub fn new(protocol_type: &str) -> Self {
        Group {
            state: GroupState::Empty,
            protocol_type: protocol_type.to_owned(),
            protocol: None,
            generation: 0,
            leader: None,
            members: BTreeMap::new(),
            pending: BTreeSet::new(),
            round: 0,
            deadline: None,
            not_before: None,
            offsets: BTreeMap::new(),
            txn_offsets: HashMap::new(),
        }
    }
}

/// A transactional producer (the transaction coordinator's state).
#[derive(Debug)]
pub(crate) struct Txn {
    pub producer_id: i64,
    pub epoch: i16,
    pub ongoing: bool,
    pub partitions: BTreeSet<(String, i32)>,
    pub groups: BTreeSet<String>,
    /// How the last transaction ended (an EndTxn retried after success succeeds again).
    pub last_result: Option<bool>,
    /// The producer id and epoch before the last EndTxn bumped them
    /// (transactions v2, KIP-890 part 2), so a retry of that EndTxn with
    /// them succeeds again.
    pub before_bump: Option<(i64, i16)>,
}

/// One request a broker received while tracking was on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrackedRequest {
    /// The broker that received it.
    pub broker: i32,
    /// Its API key.
    pub api_key: i16,
    /// Its version.
    pub api_version: i16,
    /// When the broker read it (librdkafka's `rd_kafka_mock_request_timestamp`,
    /// on the monotonic clock).
    pub at: Instant,
}

/// The cluster's client metrics subscription (KIP-714), the same for every
/// client, and what clients pushed.
#[derive(Debug)]
pub(crate) struct Telemetry {
    /// Whether the brokers offer KIP-714 at all: a Kafka broker advertises
    /// GetTelemetrySubscriptions and PushTelemetry only with a client
    /// metrics plugin configured. Off until a subscription is set (any
    /// `set_telemetry_*`), so clients that would push (librdkafka, by
    /// default) see a cluster without it, as most are.
    pub enabled: bool,
    /// Changes with every change of the subscription, so a push made under
    /// an older one gets UNKNOWN_SUBSCRIPTION_ID.
    pub subscription_id: i32,
    pub push_interval_ms: i32,
    pub max_bytes: i32,
    pub delta_temporality: bool,
    /// Metric name prefixes; empty: no metrics wanted (Kafka's answer to a
    /// client no subscription matches).
    pub requested_metrics: Vec<String>,
    /// The compression types accepted, in order of preference.
    pub compression_types: Vec<i8>,
    pub pushes: Vec<TelemetryPush>,
    /// Client instances that made their terminating push.
    pub terminated: BTreeSet<Uuid>,
}

impl Default for Telemetry {
    fn default() -> Self {
        Telemetry {
            enabled: false,
            subscription_id: 1,
            push_interval_ms: 5000,
            // Kafka's `telemetry.max.bytes` default.
            max_bytes: 1024 * 1024,
            delta_temporality: true,
            requested_metrics: Vec::new(),
            // Kafka's broker: zstd, lz4, gzip, snappy (ClientMetricsManager).
            compression_types: vec![4, 3, 1, 2],
            pushes: Vec::new(),
            terminated: BTreeSet::new(),
        }
    }
}

/// One PushTelemetry request a broker received (KIP-714), and its answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TelemetryPush {
    /// The broker that received it.
    pub broker: i32,
    /// The client instance id it carried.
    pub client_instance_id: Uuid,
    /// The subscription id it carried.
    pub subscription_id: i32,
    /// Whether it was the client's terminating push.
    pub terminating: bool,
    /// Its compression type (a record batch attribute id: 0 none, 1 gzip,
    /// 2 snappy, 3 lz4, 4 zstd).
    pub compression_type: i8,
    /// The metrics as sent (compressed).
    pub metrics: Bytes,
    /// The metrics decompressed (an OpenTelemetry `MetricsData` protobuf),
    /// `None` when they did not decompress with `compression_type`.
    pub uncompressed: Option<Bytes>,
    /// The error code the broker answered with (0: accepted).
    pub error_code: i16,
    /// When the broker read it (on the monotonic clock).
    pub at: Instant,
}

impl State {
    /// Whether the cluster serves transactions v2: its finalized
    /// `transaction.version` is 2 or more (KIP-890 part 2).
    pub fn transactions_v2(&self) -> bool {
        self.transaction_version.is_some_and(|v| v >= 2)
    }
}

/// Everything the brokers share.
#[derive(Debug)]
pub(crate) struct State {
    pub cluster_id: String,
    pub brokers: Vec<BrokerState>,
    pub topics: BTreeMap<String, Topic>,
    pub groups: BTreeMap<String, Group>,
    pub txns: HashMap<String, Txn>,
    pub next_producer_id: i64,
    pub auto_create: bool,
    pub default_partitions: i32,
    pub default_replication: i16,
    pub initial_rebalance_delay: Duration,
    /// Cluster-wide injected errors per API: (code, delay).
    pub errors: HashMap<i16, VecDeque<(i16, Duration)>>,
    /// Coordinators pinned with the control API: (key type, key) → broker.
    pub coordinators: HashMap<(i8, String), i32>,
    /// Version ranges narrowed with the control API.
    pub version_caps: HashMap<i16, (i16, i16)>,
    pub tracking: Option<Vec<TrackedRequest>>,
    /// Incremental fetch sessions (KIP-227) by session ID.
    pub fetch_sessions: HashMap<i32, FetchSession>,
    /// The finalized `transaction.version` feature level, `None` when not
    /// finalized (KIP-584, KIP-890 part 2).
    pub transaction_version: Option<i16>,
    /// The finalized features' epoch (ApiVersions' FinalizedFeaturesEpoch).
    pub features_epoch: i64,
    /// The client metrics subscription and the pushes received (KIP-714).
    pub telemetry: Telemetry,
    pub shutdown: bool,
}

/// One incremental fetch session (KIP-227): its partitions with what the
/// client last asked (offset, limits) and what it was last sent (high
/// watermark, last stable offset, log start).
#[derive(Debug)]
pub(crate) struct FetchSession {
    pub broker: i32,
    pub next_epoch: i32,
    #[allow(clippy::type_complexity)]
    pub parts: BTreeMap<
        (String, i32),
        (
            Uuid,
            crate::protocol::fetch::FetchPartition,
            (i64, i64, i64),
        ),
    >,
}

impl State {
    pub fn broker(&self, id: i32) -> Option<&BrokerState> {
        self.brokers.iter().find(|b| b.id == id)
    }

    pub fn broker_mut(&mut self, id: i32) -> Option<&mut BrokerState> {
        self.brokers.iter_mut().find(|b| b.id == id)
    }

    /// The coordinator of a group (key type 0) or transactional ID (1): a
    /// pinned one, else a hash of the key over the brokers, as Kafka places
    /// `__consumer_offsets` / `__transaction_state` partitions.
    pub fn coordinator(&self, key_type: i8, key: &str) -> i32 {
        if let Some(b) = self.coordinators.get(&(key_type, key.to_owned())) {
            return *b;
        }
        // Java's String.hashCode, as Kafka's partitionFor uses.
        let mut h: i32 = 0;
        for c in key.encode_utf16() {
            h = h.wrapping_mul(31).wrapping_add(i32::from(c));
        }
        let n = self.brokers.len().max(1) as i32;
        self.brokers[((h & 0x7fff_ffff) % n) as usize].id
    }

    /// The replicas of a new partition `p` when there are `replication` of them.
    pub fn place(&self, p: i32, replication: i16) -> Vec<i32> {
        let n = self.brokers.len();
        let r = (replication.max(1) as usize).min(n);
        (0..r)
            .map(|i| self.brokers[(p as usize + i) % n].id)
            .collect()
    }

    /// Creates a topic; `replicas` lists each partition's replicas (leader first).
    pub fn add_topic(
        &mut self,
        name: &str,
        replicas: Vec<Vec<i32>>,
        configs: BTreeMap<String, String>,
    ) -> Uuid {
        let id = new_topic_id();
        let partitions = replicas
            .into_iter()
            .map(|r| Partition::new(r[0], r))
            .collect();
        self.topics.insert(
            name.to_owned(),
            Topic {
                id,
                partitions,
                configs,
            },
        );
        id
    }

    pub fn topic_by_id(&self, id: &Uuid) -> Option<(&String, &Topic)> {
        self.topics.iter().find(|(_, t)| t.id == *id)
    }

    /// A topic's partition, if both exist.
    pub fn partition_mut(&mut self, topic: &str, partition: i32) -> Option<&mut Partition> {
        self.topics.get_mut(topic).and_then(|t| {
            usize::try_from(partition)
                .ok()
                .and_then(|i| t.partitions.get_mut(i))
        })
    }

    /// Takes the next injected error for `api_key` on `broker`: the broker's
    /// own stack first, then the cluster-wide one.
    pub fn take_error(&mut self, broker: i32, api_key: i16) -> Option<(i16, Duration)> {
        if let Some(b) = self.broker_mut(broker) {
            if let Some(q) = b.errors.get_mut(&api_key) {
                if let Some(e) = q.pop_front() {
                    return Some(e);
                }
            }
        }
        self.errors.get_mut(&api_key).and_then(VecDeque::pop_front)
    }
}

/// Kafka's rule for topic names: 1–249 characters of `[a-zA-Z0-9._-]`, not "." or "..".
pub(crate) fn valid_topic_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 249
        && name != "."
        && name != ".."
        && name
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'.' || c == b'_' || c == b'-')
}
