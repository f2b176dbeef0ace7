//! The admin client: KIP-4's admin protocol and the APIs that
//! followed it — topics, configs, ACLs, partitions, quotas, SCRAM
//! credentials, producers and transactions — over the wire, with no
//! ZooKeeper access and no Java tools.
//!
//! Every operation is batched as the protocol is: one call takes many
//! entities and returns one typed result per entity, each either the value
//! or an [`Error`] carrying the broker's code as the protocol names it
//! (`TOPIC_ALREADY_EXISTS`, `INVALID_PARTITIONS`, …) and its message. An
//! error for the whole call (no broker reachable, an API the broker does not
//! speak) is the outer `Err`.
//!
//! Routing, as the Java client does it:
//! - to the controller (Metadata's `controller_id`): CreateTopics,
//!   DeleteTopics, CreatePartitions, ElectLeaders, Alter- and
//!   ListPartitionReassignments. Entities answered `NOT_CONTROLLER` are sent
//!   again after a metadata refresh, until the deadline;
//! - to a partition's leader: ListOffsets, DeleteRecords, DescribeProducers
//!   (leader errors refresh metadata and retry those partitions);
//! - to the transaction coordinator (FindCoordinator): DescribeTransactions;
//! - to each group's coordinator, the groups of one coordinator together:
//!   DescribeGroups, DeleteGroups, OffsetFetch, OffsetCommit, OffsetDelete
//!   (coordinator errors look the coordinator up again and retry);
//! - to a named broker: DescribeConfigs / (Incremental)AlterConfigs of a
//!   BROKER or BROKER_LOGGER resource, DescribeLogDirs;
//! - to every broker: ListTransactions, ListGroups;
//! - to any broker: everything else.
//!
//! Timeouts follow librdkafka's AdminOptions: the request timeout (the
//! whole call, retries included) and the operation timeout (what the broker
//! is told to wait, for the APIs that carry one) both default to
//! `socket.timeout.ms`.
//!
//! Where KIP-4 as first written and later Kafka differ, KIP-4 wins for duplicates: if a
//! batch names the same topic twice, only the last instruction is sent and
//! there is one result for the topic.

pub mod acls;
pub mod cluster;
pub mod configs;
pub mod groups;
pub mod quotas;
pub mod records;
pub mod scram;
pub mod topics;
pub mod transactions;
/// The admin protocol's enumerations, which live in [`crate::protocol::enums`]
/// (one table for Rust, the C constants and the bindings).
pub use crate::protocol::enums as types;

pub use acls::{AclBinding, AclBindingFilter, DeleteAclsResult};
pub use cluster::{
    BrokerLogDirs, ClusterDescription, LogDirDescription, PartitionReassignment, ReplicaInfo,
};
pub use configs::{
    AlterConfigOp, ConfigEntry, ConfigResource, ConfigResourceResult, ConfigSet, ConfigSynonym,
};
pub use groups::{
    GroupDescription, GroupListing, GroupListings, MemberAssignment, MemberDescription,
    MemberSubscription, OffsetAndMetadata,
};
pub use quotas::{QuotaAlteration, QuotaEntity, QuotaEntry, QuotaFilterComponent, QuotaMatch};
pub use records::{ListOffsetsInfo, OffsetSpec};
pub use scram::{ScramCredentialInfo, UserScramAlteration, UserScramCredentials};
pub use topics::{
    CreatedTopic, NewPartitions, NewTopic, PartitionDescription, TopicDescription, TopicResult,
};
pub use transactions::{
    BrokerTransactions, ProducerState, TransactionDescription, TransactionListing,
};
pub use types::*;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::cluster::{Cluster, Purpose};
use crate::config::{ClientKind, Config};
use crate::error::{local, Error, Result};
use crate::net::{BrokerConn, PendingResponse};
use crate::protocol::find_coordinator::FindCoordinatorRequest;
use crate::protocol::{api_name, ErrorAction, KafkaCode, Request};
use crate::wire::EncodeError;

/// Options of one admin call (librdkafka's `rd_kafka_AdminOptions_t`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AdminOptions {
    /// How long the whole call may take, retries included; `None`:
    /// `socket.timeout.ms`. An explicit operation timeout longer than this
    /// extends it (to the operation timeout plus a second).
    pub request_timeout: Option<Duration>,
    /// How long the broker waits for the operation to complete (CreateTopics,
    /// DeleteTopics, CreatePartitions, ElectLeaders, DeleteRecords,
    /// partition reassignments); `None`: `socket.timeout.ms`. Zero asks the
    /// broker to start the operation and answer at once.
    pub operation_timeout: Option<Duration>,
    /// Only validate the request; the broker changes nothing (CreateTopics,
    /// CreatePartitions, AlterConfigs, IncrementalAlterConfigs,
    /// AlterClientQuotas).
    pub validate_only: bool,
}

impl AdminOptions {
    /// Options with a request timeout.
    pub fn with_timeout(timeout: Duration) -> Self {
        AdminOptions {
            request_timeout: Some(timeout),
            ..Default::default()
        }
    }
}

/// A topic and a partition index.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TopicPartition {
    /// The topic.
    pub topic: String,
    /// The partition index.
    pub partition: i32,
}

impl TopicPartition {
    /// A topic partition.
    pub fn new(topic: impl Into<String>, partition: i32) -> Self {
        TopicPartition {
            topic: topic.into(),
            partition,
        }
    }
}

impl std::fmt::Display for TopicPartition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} [{}]", self.topic, self.partition)
    }
}

/// The result for one partition.
#[derive(Debug, Clone)]
pub struct PartitionResult<T> {
    /// The partition.
    pub partition: TopicPartition,
    /// Its value, or the error the broker (or the client) gave for it.
    pub result: Result<T>,
}

/// One call's timing, from its options.
#[derive(Debug, Clone)]
pub(crate) struct Call {
    /// When the client gives up.
    pub deadline: Instant,
    /// When the client gives up finding a broker to send to: the request
    /// timeout, which an operation timeout does not extend (as in
    /// librdkafka, where only a request already sent waits for the
    /// operation).
    pub route_deadline: Instant,
    /// The operation timeout to send, in ms.
    pub op_timeout_ms: i32,
    /// The validate-only flag.
    pub validate_only: bool,
    /// `retry.backoff.ms` and `retry.backoff.max.ms`.
    backoff: (Duration, Duration),
    /// Retries so far (the backoff doubles with each).
    attempts: std::cell::Cell<u32>,
}

impl Call {
    fn left(&self) -> Duration {
        self.deadline.saturating_duration_since(Instant::now())
    }

    /// Time left to find a broker.
    fn route_left(&self) -> Duration {
        self.route_deadline
            .min(self.deadline)
            .saturating_duration_since(Instant::now())
    }

    /// A failure to reach any broker, as the call's error: retriable while
    /// there is time to find one, else `_TIMED_OUT` (librdkafka's admin
    /// requests wait for a broker until their request timeout and then fail
    /// with `_TIMED_OUT`, never with `_ALL_BROKERS_DOWN`).
    fn routed<T>(&self, r: Result<T>) -> Result<T> {
        match r {
            Err(e) if unreachable(&e) && self.route_left() <= self.next_backoff(0) => Err(
                Error::timed_out(format!("timed out waiting for a broker: {e}")),
            ),
            other => other,
        }
    }

    /// `f(time left)` again, after a backoff, while no broker can be
    /// reached and there is time to find one; then as `routed`.
    fn route<T>(&self, mut f: impl FnMut(Duration) -> Result<T>) -> Result<T> {
        let mut n = 0;
        loop {
            match f(self.route_left()) {
                Err(e) if unreachable(&e) && self.route_left() > self.next_backoff(n) => {
                    std::thread::sleep(self.next_backoff(n));
                    n += 1;
                }
                other => return self.routed(other),
            }
        }
    }

    /// True if there is time to retry after a backoff.
    fn can_retry(&self) -> bool {
        self.left() > self.next_backoff(self.attempts.get())
    }

    fn next_backoff(&self, n: u32) -> Duration {
        let (first, max) = self.backoff;
        first.saturating_mul(1 << n.min(20)).min(max)
    }

    /// Waits before a retry: `retry.backoff.ms`, doubling per retry up to
    /// `retry.backoff.max.ms` (as librdkafka's admin requests).
    fn backoff(&self) {
        let n = self.attempts.get();
        self.attempts.set(n + 1);
        std::thread::sleep(self.next_backoff(n).min(self.left()));
    }
}

/// A Kafka error for an entity: the code, and the broker's message (if any)
/// after what the entity is.
pub(crate) fn entity_error(
    code: i16,
    message: Option<&str>,
    what: impl std::fmt::Display,
) -> Error {
    match message.filter(|m| !m.is_empty()) {
        Some(m) => Error::kafka(KafkaCode(code), format!("{what}: {m}")),
        None => Error::kafka(KafkaCode(code), what.to_string()),
    }
}

/// `Ok(())` for code 0, else the entity's error.
pub(crate) fn check(code: i16, message: Option<&str>, what: impl std::fmt::Display) -> Result<()> {
    if code == 0 {
        Ok(())
    } else {
        Err(entity_error(code, message, what))
    }
}

/// The error for an entity a response left out.
pub(crate) fn missing(what: impl std::fmt::Display, api: &str) -> Error {
    Error::local(
        local::BAD_MSG,
        format!("the {api} response has no result for {what}"),
    )
}

/// The error for something a broker's version of an API cannot carry.
pub(crate) fn unsupported(what: impl std::fmt::Display) -> Error {
    Error::local(local::UNSUPPORTED_FEATURE, what.to_string())
}

fn is_code(e: &Error, code: KafkaCode) -> bool {
    e.kafka_code() == Some(code)
}

/// A request already sent, with the version it went out at.
pub(crate) struct Sent<R: Request> {
    pending: PendingResponse<R>,
    version: i16,
}

impl<R: Request> Sent<R> {
    /// Waits for the response.
    pub(crate) fn wait(self, deadline: Instant) -> Result<(R::Response, i16)> {
        let v = self.version;
        self.pending.wait_until(deadline).map(|r| (r, v))
    }
}

/// Sends a request built for the version the broker speaks. A set field the
/// version cannot carry becomes `_UNSUPPORTED_FEATURE`, as the Java client's
/// `UnsupportedVersionException`.
pub(crate) fn send<R: Request>(
    conn: &BrokerConn,
    deadline: Instant,
    build: impl FnOnce(i16) -> Result<R>,
) -> Result<Sent<R>> {
    let version = conn.version_for::<R>(deadline)?;
    let req = build(version)?;
    match conn.send_at(&req, version, deadline) {
        Ok(pending) => Ok(Sent { pending, version }),
        Err(Error::Encode(e @ EncodeError::FieldNotAvailable { .. })) => Err(unsupported(format!(
            "{}: the broker speaks {} v{version}, which cannot carry this request ({e})",
            conn.name(),
            api_name(R::API_KEY)
        ))),
        Err(e) => Err(e),
    }
}

/// Sends and waits.
pub(crate) fn call<R: Request>(
    conn: &BrokerConn,
    deadline: Instant,
    build: impl FnOnce(i16) -> Result<R>,
) -> Result<(R::Response, i16)> {
    send(conn, deadline, build)?.wait(deadline)
}

/// Whether an error means no broker could be reached.
fn unreachable(e: &Error) -> bool {
    matches!(e, Error::Local { code, .. } if matches!(*code, local::TRANSPORT | local::ALL_BROKERS_DOWN))
}

/// Whether an error for a whole request means "try again" (after a refresh).
fn retriable(e: &Error) -> bool {
    match e {
        Error::Kafka { code, .. } => code.action() != ErrorAction::Fail,
        Error::Local { code, .. } => matches!(*code, local::TRANSPORT | local::ALL_BROKERS_DOWN),
        _ => false,
    }
}

/// A client for administering a cluster. Thread-safe; cheap to share by reference.
pub struct AdminClient {
    cluster: Cluster,
    default_timeout: Duration,
}

impl AdminClient {
    /// An admin client for `cfg`'s cluster. Nothing is connected yet.
    ///
    /// # Errors
    /// A bad configuration (producer and consumer properties are warnings).
    pub fn new(cfg: &Config) -> Result<AdminClient> {
        let cluster = Cluster::new(cfg)?;
        crate::config::log_warnings(cfg, ClientKind::Admin, cluster.log());
        // no poll: an OAUTHBEARER refresh callback runs on gregor's thread
        #[cfg(feature = "sasl")]
        if let Ok(ob) = cluster.oauthbearer() {
            ob.enable_background_callbacks();
        }
        Ok(AdminClient {
            cluster,
            default_timeout: cfg.ms("socket.timeout.ms"),
        })
    }

    /// The client's SASL controls: credentials and OAUTHBEARER tokens at
    /// run time ([`crate::sasl`]).
    pub fn sasl(&self) -> crate::sasl::Sasl<'_> {
        crate::sasl::Sasl::new(&self.cluster)
    }

    /// The cluster handle (metadata cache and connections).
    #[cfg(feature = "internals")]
    #[doc(hidden)]
    pub fn cluster(&self) -> &Cluster {
        &self.cluster
    }

    /// The cluster handle (metadata cache and connections).
    #[cfg(not(feature = "internals"))]
    pub(crate) fn cluster(&self) -> &Cluster {
        &self.cluster
    }

    /// The cluster's metadata, as librdkafka's `rd_kafka_metadata`: every
    /// topic with `None`, else the topics named (never created by asking).
    /// The answer also refreshes the admin client's metadata cache.
    ///
    /// # Errors
    /// `_ALL_BROKERS_DOWN` (with each broker's error) if no broker answered
    /// within `timeout`; `_SSL` / `_AUTHENTICATION` when all refused the
    /// connection the same way.
    pub fn metadata(
        &self,
        topics: Option<&[&str]>,
        timeout: Duration,
    ) -> Result<crate::cluster::Metadata> {
        self.cluster().fetch_metadata(topics, false, timeout)
    }

    /// Closes every connection.
    pub fn close(&self) {
        self.cluster.close();
    }

    /// A call's timing for an API without an operation timeout.
    pub(crate) fn start(&self, opts: &AdminOptions) -> Call {
        let request = opts.request_timeout.unwrap_or(self.default_timeout);
        let now = Instant::now();
        Call {
            deadline: now + request,
            route_deadline: now + request,
            op_timeout_ms: 0,
            validate_only: opts.validate_only,
            backoff: (
                self.cluster.retry_backoff(0),
                self.cluster.retry_backoff(u32::MAX),
            ),
            attempts: std::cell::Cell::new(0),
        }
    }

    /// A call's timing for an API that tells the broker how long to wait:
    /// an operation timeout set longer than the request timeout extends the
    /// client's wait to cover it.
    pub(crate) fn start_op(&self, opts: &AdminOptions) -> Call {
        let request = opts.request_timeout.unwrap_or(self.default_timeout);
        let op = opts.operation_timeout.unwrap_or(self.default_timeout);
        let wait = match opts.operation_timeout {
            Some(op) => request.max(op + Duration::from_secs(1)),
            None => request,
        };
        let now = Instant::now();
        Call {
            deadline: now + wait,
            route_deadline: now + request,
            op_timeout_ms: i32::try_from(op.as_millis()).unwrap_or(i32::MAX),
            validate_only: opts.validate_only,
            backoff: (
                self.cluster.retry_backoff(0),
                self.cluster.retry_backoff(u32::MAX),
            ),
            attempts: std::cell::Cell::new(0),
        }
    }

    /// The controller's connection; refreshes metadata first when asked or
    /// when the controller is not known. Brokers that do not report a
    /// controller (Metadata v0) get any broker, as the Java client does.
    pub(crate) fn controller(&self, c: &Call, refresh: bool) -> Result<BrokerConn> {
        let mut md = self.cluster.snapshot();
        if refresh || !md.brokers.contains_key(&md.controller_id) {
            md = c.route(|t| self.cluster.fetch_metadata(Some(&[]), false, t))?;
        }
        if md.controller_id >= 0 && md.brokers.contains_key(&md.controller_id) {
            c.routed(self.cluster.conn(md.controller_id, Purpose::Metadata))
        } else {
            c.route(|t| self.cluster.any_conn(Purpose::Metadata, t))
        }
    }

    /// Some broker's connection.
    pub(crate) fn any(&self, c: &Call) -> Result<BrokerConn> {
        c.route(|t| self.cluster.any_conn(Purpose::Metadata, t))
    }

    /// Broker `id`'s connection, refreshing metadata if it is not known.
    pub(crate) fn broker(&self, c: &Call, id: i32) -> Result<BrokerConn> {
        if let Ok(conn) = self.cluster.conn(id, Purpose::Metadata) {
            return Ok(conn);
        }
        c.route(|t| self.cluster.fetch_metadata(Some(&[]), false, t))?;
        self.cluster.conn(id, Purpose::Metadata).map_err(|_| {
            Error::kafka(
                KafkaCode::BROKER_NOT_AVAILABLE,
                format!("broker {id} is not in the cluster"),
            )
        })
    }

    /// Runs `f` on some broker, again on another try while the error is
    /// retriable and time is left.
    pub(crate) fn on_any<T>(
        &self,
        c: &Call,
        mut f: impl FnMut(&BrokerConn) -> Result<T>,
    ) -> Result<T> {
        loop {
            match self.any(c).and_then(|conn| f(&conn)) {
                Err(e) if retriable(&e) && c.can_retry() => {
                    c.backoff();
                    let _ = self.cluster.fetch_metadata(Some(&[]), false, c.left());
                }
                other => return other,
            }
        }
    }

    /// Every broker's id, from fresh metadata.
    pub(crate) fn broker_ids(&self, c: &Call) -> Result<Vec<i32>> {
        Ok(
            c.route(|t| self.cluster.fetch_metadata(Some(&[]), false, t))?
                .brokers
                .keys()
                .copied()
                .collect(),
        )
    }

    /// Sends `keys` to the controller in one request (`once` builds, sends
    /// and splits the answer into one result per key, in order), then sends
    /// again the keys answered `NOT_CONTROLLER` after refreshing metadata,
    /// until none is left or the deadline passes.
    pub(crate) fn to_controller<K: Clone, O>(
        &self,
        c: &Call,
        keys: &[K],
        mut once: impl FnMut(&BrokerConn, &[K]) -> Result<Vec<Result<O>>>,
    ) -> Result<Vec<Result<O>>> {
        let mut out: Vec<Option<Result<O>>> = keys.iter().map(|_| None).collect();
        let mut pending: Vec<usize> = (0..keys.len()).collect();
        let mut refresh = false;
        while !pending.is_empty() {
            let attempt = self.controller(c, refresh).and_then(|conn| {
                let ks: Vec<K> = pending.iter().map(|&i| keys[i].clone()).collect();
                once(&conn, &ks)
            });
            match attempt {
                Ok(results) => {
                    let mut again = Vec::new();
                    for (j, r) in results.into_iter().enumerate() {
                        let Some(&i) = pending.get(j) else { break };
                        if matches!(&r, Err(e) if is_code(e, KafkaCode::NOT_CONTROLLER)) {
                            again.push(i);
                        }
                        out[i] = Some(r);
                    }
                    pending = again;
                }
                Err(e) if retriable(&e) && c.can_retry() => {}
                // nothing done yet: the call as a whole failed
                Err(e) if out.iter().all(Option::is_none) => return Err(e),
                Err(e) => {
                    for &i in &pending {
                        out[i] = Some(Err(e.clone()));
                    }
                    break;
                }
            }
            if pending.is_empty() || !c.can_retry() {
                break;
            }
            refresh = true;
            c.backoff();
        }
        Ok(out
            .into_iter()
            .map(|r| r.unwrap_or_else(|| Err(Error::timed_out("no answer from the controller"))))
            .collect())
    }

    /// Sends each partition to its leader (one request per leader, all in
    /// flight at once: `build` makes a leader's request, `split` its answer
    /// into one result per partition, in order). Partitions answered with an
    /// error that means the leader moved are looked up again and re-sent
    /// until the deadline.
    pub(crate) fn to_leaders<R: Request, O>(
        &self,
        c: &Call,
        parts: &[TopicPartition],
        fixed_broker: Option<i32>,
        build: impl Fn(&[TopicPartition], i16) -> Result<R>,
        split: impl Fn(R::Response, &[TopicPartition], i16) -> Vec<Result<O>>,
    ) -> Vec<Result<O>> {
        let mut out: Vec<Option<Result<O>>> = parts.iter().map(|_| None).collect();
        let mut pending: Vec<usize> = (0..parts.len()).collect();
        while !pending.is_empty() {
            let mut groups: BTreeMap<i32, Vec<usize>> = BTreeMap::new();
            let mut again = Vec::new();
            for &i in &pending {
                let tp = &parts[i];
                let leader = match fixed_broker {
                    Some(b) => Ok(b),
                    None => c
                        .route(|t| self.cluster.leader(&tp.topic, tp.partition, t))
                        .map(|(l, _)| l),
                };
                match leader {
                    Ok(l) => groups.entry(l).or_default().push(i),
                    Err(e) => {
                        if is_code(&e, KafkaCode::LEADER_NOT_AVAILABLE) || unreachable(&e) {
                            again.push(i);
                        }
                        out[i] = Some(Err(e));
                    }
                }
            }
            let mut sent = Vec::new();
            for (leader, idx) in groups {
                let tps: Vec<TopicPartition> = idx.iter().map(|&i| parts[i].clone()).collect();
                let s = self
                    .broker(c, leader)
                    .and_then(|conn| send(&conn, c.deadline, |v| build(&tps, v)));
                sent.push((idx, tps, s));
            }
            for (idx, tps, s) in sent {
                match s.and_then(|s| s.wait(c.deadline)) {
                    Ok((resp, v)) => {
                        let results = split(resp, &tps, v);
                        for (&i, r) in idx.iter().zip(results) {
                            let stale = matches!(&r, Err(e) if e.kafka_code().is_some_and(|k|
                                k.action() == ErrorAction::RefreshMetadataAndRetry
                                    && k != KafkaCode::UNKNOWN_TOPIC_OR_PARTITION));
                            if stale && fixed_broker.is_none() {
                                self.cluster.invalidate(&parts[i].topic);
                                again.push(i);
                            }
                            out[i] = Some(r);
                        }
                    }
                    Err(e) => {
                        let retry = retriable(&e);
                        for &i in &idx {
                            if retry && fixed_broker.is_none() {
                                self.cluster.invalidate(&parts[i].topic);
                                again.push(i);
                            }
                            out[i] = Some(Err(e.clone()));
                        }
                    }
                }
            }
            if again.is_empty() || !c.can_retry() {
                break;
            }
            pending = again;
            c.backoff();
        }
        out.into_iter()
            .map(|r| r.unwrap_or_else(|| Err(Error::timed_out("no answer from the leader"))))
            .collect()
    }

    /// The coordinator (id and connection) of a transactional ID
    /// (`key_type` 1) or group (0).
    pub(crate) fn coordinator(
        &self,
        c: &Call,
        key_type: i8,
        key: &str,
    ) -> Result<(i32, BrokerConn)> {
        loop {
            let conn = self.any(c)?;
            let attempt = call(&conn, c.deadline, |v| {
                let mut req = FindCoordinatorRequest::default();
                if v >= 4 {
                    req.coordinator_keys = vec![key.to_string()];
                } else {
                    req.key = key.to_string();
                }
                if v >= 1 {
                    req.key_type = key_type;
                } else if key_type != 0 {
                    return Err(unsupported(
                        "FindCoordinator v0 cannot look up transaction coordinators",
                    ));
                }
                Ok(req)
            })
            .and_then(|(resp, v)| {
                let (code, msg, node) = if v >= 4 {
                    let co = resp
                        .coordinators
                        .into_iter()
                        .find(|co| co.key == key)
                        .ok_or_else(|| missing(key, "FindCoordinator"))?;
                    (co.error_code, co.error_message, co.node_id)
                } else {
                    (resp.error_code, resp.error_message, resp.node_id)
                };
                check(code, msg.as_deref(), format!("coordinator of {key}"))?;
                self.broker(c, node).map(|conn| (node, conn))
            });
            match attempt {
                Err(e) if retriable(&e) && c.can_retry() => c.backoff(),
                other => return other,
            }
        }
    }
}

/// Per-entity results of a call whose entities went to several brokers: if
/// every one failed for a reason that is the call's, not the entity's
/// (nothing reachable, an API or version no broker speaks), the call as a
/// whole failed with the first such error; broker errors and entity errors
/// (an unknown partition) stay per entity.
pub(crate) fn collapse<T>(results: Vec<Result<T>>) -> Result<Vec<Result<T>>> {
    let call_level = |e: &Error| {
        matches!(
            e,
            Error::Local { code, .. } if matches!(
                *code,
                local::TRANSPORT
                    | local::ALL_BROKERS_DOWN
                    | local::TIMED_OUT
                    | local::RESOLVE
                    | local::UNSUPPORTED_FEATURE
            )
        )
    };
    let all_local =
        !results.is_empty() && results.iter().all(|r| matches!(r, Err(e) if call_level(e)));
    if !all_local {
        return Ok(results);
    }
    match results.into_iter().next() {
        Some(Err(e)) => Err(e),
        _ => Ok(Vec::new()),
    }
}

/// Keeps the last occurrence of each key, in the order of first occurrence
/// (KIP-4's CreateTopics request semantics as first written: "only the last
/// from the list will be executed").
pub(crate) fn last_wins<T: Clone, K: Ord + Clone>(items: &[T], key: impl Fn(&T) -> K) -> Vec<T> {
    let mut order: Vec<K> = Vec::new();
    let mut by: BTreeMap<K, T> = BTreeMap::new();
    for it in items {
        let k = key(it);
        if by.insert(k.clone(), it.clone()).is_none() {
            order.push(k);
        }
    }
    order.into_iter().filter_map(|k| by.remove(&k)).collect()
}

/// Parses "topic:partition" (the partition after the last colon).
///
/// # Errors
/// `_INVALID_ARG` if there is no colon or the partition is not a number.
pub fn parse_topic_partition(s: &str) -> Result<TopicPartition> {
    let (t, p) = s
        .rsplit_once(':')
        .ok_or_else(|| Error::invalid_arg(format!("\"{s}\": expected topic:partition")))?;
    let p: i32 = p
        .parse()
        .map_err(|_| Error::invalid_arg(format!("\"{s}\": bad partition \"{p}\"")))?;
    if t.is_empty() || p < 0 {
        return Err(Error::invalid_arg(format!(
            "\"{s}\": expected topic:partition"
        )));
    }
    Ok(TopicPartition::new(t, p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_instruction_wins_in_first_order() {
        let v = [("a", 1), ("b", 2), ("a", 3)];
        assert_eq!(last_wins(&v, |x| x.0), vec![("a", 3), ("b", 2)]);
    }

    #[test]
    fn only_call_level_failures_collapse() {
        let call: Vec<Result<()>> = vec![Err(unsupported("x")), Err(Error::transport("y"))];
        assert_eq!(
            collapse(call).unwrap_err().code(),
            local::UNSUPPORTED_FEATURE
        );
        let entity: Vec<Result<()>> = vec![Err(Error::local(local::UNKNOWN_PARTITION, "p"))];
        assert_eq!(collapse(entity).unwrap().len(), 1);
        let broker: Vec<Result<()>> =
            vec![Err(Error::kafka(KafkaCode::NOT_LEADER_OR_FOLLOWER, ""))];
        assert_eq!(collapse(broker).unwrap().len(), 1);
        let mixed: Vec<Result<()>> = vec![Ok(()), Err(Error::transport("y"))];
        assert_eq!(collapse(mixed).unwrap().len(), 2);
        assert!(collapse(Vec::<Result<()>>::new()).unwrap().is_empty());
    }

    #[test]
    fn topic_partitions_parse() {
        assert_eq!(
            parse_topic_partition("a:b:3").unwrap(),
            TopicPartition::new("a:b", 3)
        );
        assert!(parse_topic_partition("a").is_err());
        assert!(parse_topic_partition("a:-1").is_err());
        assert!(parse_topic_partition(":1").is_err());
    }
}
