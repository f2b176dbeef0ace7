//! Typed reads and writes of a ZooKeeper-era cluster's znodes for C: the
//! registered brokers, topics with their replica assignments, partition
//! states and config overrides, the controller, the legacy consumer groups
//! with their members and offsets, and raw znodes (`gregor zk`'s commands,
//! as result objects with accessors rather than text). Each call takes a
//! `gregor_zk` session and blocks up to its session timeout.
//!
//! Accessors take indexes; out of range (or on a NULL result) they return
//! NULL (strings), -1 (numbers) or 0 (counts). Strings are borrowed: valid
//! until the result is freed. Results are immutable and may be read from
//! several threads.

use super::super::tpl::gregor_tpl;
use super::*;
use crate::consumer::TopicPartitionOffset;
use crate::ffi::guard::{count, field, impl_items, item};
use crate::registry::{TopicAssignment, ZkBroker};

impl_items!(gregor_zk_names: CString, gregor_zk_brokers: CBroker);

/// Runs `f` on the session and stores its result in `*out`.
pub(super) fn read_into<T>(
    zk: *const gregor_zk,
    out: *mut *mut T,
    errstr: *mut c_char,
    errstr_size: usize,
    f: impl FnOnce(&ZkClient) -> Result<T, Error>,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let zk = enter(zk)?;
        need_out(out)?;
        let v = f(&zk.inner)?;
        store(out, v);
        Ok(())
    })
}

// ----- names: topics, groups, group members -----

/// A list of names (topics, groups, members). Immutable.
pub struct gregor_zk_names {
    items: Vec<CString>,
}

pub(super) fn names(v: Vec<String>) -> gregor_zk_names {
    gregor_zk_names {
        items: v.iter().map(|s| cs(s)).collect(),
    }
}

/// The topics under `/brokers/topics`, in name order. On success `*out`
/// receives them (caller owns; free with `gregor_zk_names_free`).
#[no_mangle]
pub extern "C" fn gregor_zk_list_topics(
    zk: *const gregor_zk,
    out: *mut *mut gregor_zk_names,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    read_into(zk, out, errstr, errstr_size, |z| {
        let mut t = z.topics()?;
        t.sort();
        Ok(names(t))
    })
}

/// The legacy consumer groups under `/consumers`, in name order. As
/// `gregor_zk_list_topics` for the rest.
#[no_mangle]
pub extern "C" fn gregor_zk_list_groups(
    zk: *const gregor_zk,
    out: *mut *mut gregor_zk_names,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    read_into(zk, out, errstr, errstr_size, |z| {
        let mut g = z.groups()?;
        g.sort();
        Ok(names(g))
    })
}

/// The consumer ids registered under `/consumers/<group>/ids`, in order.
/// As `gregor_zk_list_topics` for the rest.
#[no_mangle]
pub extern "C" fn gregor_zk_list_group_members(
    zk: *const gregor_zk,
    group: *const c_char,
    out: *mut *mut gregor_zk_names,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    read_into(zk, out, errstr, errstr_size, |z| {
        let g = c_str(group, "group")?;
        let mut ids: Vec<String> = z.members(g)?.into_iter().map(|m| m.id).collect();
        ids.sort();
        Ok(names(ids))
    })
}

/// Number of names (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_zk_names_count(n: *const gregor_zk_names) -> usize {
    count(n)
}

/// Name `i` (NULL out of range).
#[no_mangle]
pub extern "C" fn gregor_zk_names_get(n: *const gregor_zk_names, i: usize) -> *const c_char {
    item(n, i, ptr::null(), |s| s.as_ptr())
}

/// Frees a list of names. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_zk_names_free(n: *mut gregor_zk_names) {
    guard((), || free(n))
}

// ----- brokers -----

struct CEndpoint {
    listener: CString,
    security_protocol: CString,
    host: CString,
    port: i32,
}

pub(crate) struct CBroker {
    id: i32,
    version: i32,
    rack: Option<CString>,
    endpoints: Vec<CEndpoint>,
}

/// The brokers registered under `/brokers/ids`. Immutable.
pub struct gregor_zk_brokers {
    items: Vec<CBroker>,
}

fn cbroker(b: &ZkBroker) -> CBroker {
    CBroker {
        id: b.id,
        version: b.version,
        rack: cso(b.rack.as_deref()),
        endpoints: b
            .endpoints
            .iter()
            .map(|e| CEndpoint {
                listener: cs(&e.listener),
                security_protocol: cs(&e.security_protocol),
                host: cs(&e.host),
                port: i32::from(e.port),
            })
            .collect(),
    }
}

/// The registered brokers, by id. On success `*out` receives them (caller
/// owns; free with `gregor_zk_brokers_free`). A malformed registration is
/// an error (`GREGOR_ERR__BAD_MSG`) naming its znode.
#[no_mangle]
pub extern "C" fn gregor_zk_list_brokers(
    zk: *const gregor_zk,
    out: *mut *mut gregor_zk_brokers,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    read_into(zk, out, errstr, errstr_size, |z| {
        let mut b = z.brokers()?;
        b.sort_by_key(|b| b.id);
        Ok(gregor_zk_brokers {
            items: b.iter().map(cbroker).collect(),
        })
    })
}

fn endpoint_at(b: &gregor_zk_brokers, i: usize, j: usize) -> Option<&CEndpoint> {
    b.items.get(i)?.endpoints.get(j)
}

/// Number of brokers (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_zk_brokers_count(b: *const gregor_zk_brokers) -> usize {
    count(b)
}

/// Broker `i`'s id.
#[no_mangle]
pub extern "C" fn gregor_zk_brokers_id(b: *const gregor_zk_brokers, i: usize) -> i32 {
    item(b, i, -1, |x| x.id)
}

/// Broker `i`'s registration format version.
#[no_mangle]
pub extern "C" fn gregor_zk_brokers_version(b: *const gregor_zk_brokers, i: usize) -> i32 {
    item(b, i, -1, |x| x.version)
}

/// Broker `i`'s rack (NULL if none).
#[no_mangle]
pub extern "C" fn gregor_zk_brokers_rack(b: *const gregor_zk_brokers, i: usize) -> *const c_char {
    item(b, i, ptr::null(), |x| cptr(&x.rack))
}

/// Number of endpoints of broker `i`.
#[no_mangle]
pub extern "C" fn gregor_zk_brokers_endpoint_count(b: *const gregor_zk_brokers, i: usize) -> usize {
    item(b, i, 0, |x| x.endpoints.len())
}

/// Broker `i`, endpoint `j`: its listener name (e.g. "PLAINTEXT").
#[no_mangle]
pub extern "C" fn gregor_zk_brokers_endpoint_listener(
    b: *const gregor_zk_brokers,
    i: usize,
    j: usize,
) -> *const c_char {
    field(b, ptr::null(), |b| {
        endpoint_at(b, i, j).map(|e| e.listener.as_ptr())
    })
}

/// Broker `i`, endpoint `j`: its security protocol (e.g. "SASL_SSL").
#[no_mangle]
pub extern "C" fn gregor_zk_brokers_endpoint_security_protocol(
    b: *const gregor_zk_brokers,
    i: usize,
    j: usize,
) -> *const c_char {
    field(b, ptr::null(), |b| {
        endpoint_at(b, i, j).map(|e| e.security_protocol.as_ptr())
    })
}

/// Broker `i`, endpoint `j`: its host.
#[no_mangle]
pub extern "C" fn gregor_zk_brokers_endpoint_host(
    b: *const gregor_zk_brokers,
    i: usize,
    j: usize,
) -> *const c_char {
    field(b, ptr::null(), |b| {
        endpoint_at(b, i, j).map(|e| e.host.as_ptr())
    })
}

/// Broker `i`, endpoint `j`: its port.
#[no_mangle]
pub extern "C" fn gregor_zk_brokers_endpoint_port(
    b: *const gregor_zk_brokers,
    i: usize,
    j: usize,
) -> i32 {
    field(b, -1, |b| endpoint_at(b, i, j).map(|e| e.port))
}

/// Frees a broker list. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_zk_brokers_free(b: *mut gregor_zk_brokers) {
    guard((), || free(b))
}

// ----- one topic: assignment, partition states, configs -----

struct CPartition {
    id: i32,
    replicas: Vec<i32>,
    adding: Vec<i32>,
    removing: Vec<i32>,
    /// (leader, leader epoch, controller epoch, ISR); None: no state znode.
    state: Option<(i32, i32, i32, Vec<i32>)>,
}

/// A topic as ZooKeeper holds it. Immutable.
pub struct gregor_zk_topic {
    topic_id: Option<CString>,
    version: i32,
    partitions: Vec<CPartition>,
    configs: Vec<(CString, CString)>,
}

fn ctopic(z: &ZkClient, t: &str, a: TopicAssignment) -> Result<gregor_zk_topic, Error> {
    let mut partitions = Vec::with_capacity(a.partitions.len());
    for (p, replicas) in &a.partitions {
        let state = z
            .partition_state(t, *p)?
            .map(|s| (s.leader, s.leader_epoch, s.controller_epoch, s.isr));
        partitions.push(CPartition {
            id: *p,
            replicas: replicas.clone(),
            adding: a.adding_replicas.get(p).cloned().unwrap_or_default(),
            removing: a.removing_replicas.get(p).cloned().unwrap_or_default(),
            state,
        });
    }
    Ok(gregor_zk_topic {
        topic_id: cso(a.topic_id.as_deref()),
        version: a.version,
        partitions,
        configs: z
            .topic_config(t)?
            .iter()
            .map(|(k, v)| (cs(k), cs(v)))
            .collect(),
    })
}

/// Describes `topic` from `/brokers/topics/<topic>` (replicas, reassignment
/// in progress), each partition's `…/partitions/<p>/state` and the config
/// overrides in `/config/topics/<topic>`. Returns
/// `GREGOR_ERR__UNKNOWN_TOPIC` if the topic is not registered. On success
/// `*out` receives it (caller owns; free with `gregor_zk_topic_free`).
#[no_mangle]
pub extern "C" fn gregor_zk_describe_topic(
    zk: *const gregor_zk,
    topic: *const c_char,
    out: *mut *mut gregor_zk_topic,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    read_into(zk, out, errstr, errstr_size, |z| {
        let t = c_str(topic, "topic")?;
        let a = z.topic(t)?.ok_or_else(|| {
            Error::local(
                local::UNKNOWN_TOPIC,
                format!("no topic {t} under /brokers/topics"),
            )
        })?;
        ctopic(z, t, a)
    })
}

fn zpart(t: &gregor_zk_topic, p: usize) -> Option<&CPartition> {
    t.partitions.get(p)
}

/// The topic's ID in Kafka's text form (NULL if ZooKeeper holds none).
#[no_mangle]
pub extern "C" fn gregor_zk_topic_id(t: *const gregor_zk_topic) -> *const c_char {
    field(t, ptr::null(), |t| Some(cptr(&t.topic_id)))
}

/// The assignment znode's format version.
#[no_mangle]
pub extern "C" fn gregor_zk_topic_version(t: *const gregor_zk_topic) -> i32 {
    field(t, -1, |t| Some(t.version))
}

/// Number of partitions (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_zk_topic_partition_count(t: *const gregor_zk_topic) -> usize {
    field(t, 0, |t| Some(t.partitions.len()))
}

/// Partition `p` (in index order): its index.
#[no_mangle]
pub extern "C" fn gregor_zk_topic_partition_id(t: *const gregor_zk_topic, p: usize) -> i32 {
    field(t, -1, |t| zpart(t, p).map(|x| x.id))
}

/// Partition `p`: copies up to `max` replica ids into `out`, returns how
/// many replicas there are.
#[no_mangle]
pub extern "C" fn gregor_zk_topic_partition_replicas(
    t: *const gregor_zk_topic,
    p: usize,
    out: *mut i32,
    max: usize,
) -> usize {
    field(t, 0, |t| {
        zpart(t, p).map(|x| copy_ids(&x.replicas, out, max))
    })
}

/// As `gregor_zk_topic_partition_replicas`, for the replicas a
/// reassignment in progress adds (KIP-455).
#[no_mangle]
pub extern "C" fn gregor_zk_topic_partition_adding(
    t: *const gregor_zk_topic,
    p: usize,
    out: *mut i32,
    max: usize,
) -> usize {
    field(t, 0, |t| zpart(t, p).map(|x| copy_ids(&x.adding, out, max)))
}

/// As `gregor_zk_topic_partition_replicas`, for the replicas a
/// reassignment in progress removes (KIP-455).
#[no_mangle]
pub extern "C" fn gregor_zk_topic_partition_removing(
    t: *const gregor_zk_topic,
    p: usize,
    out: *mut i32,
    max: usize,
) -> usize {
    field(t, 0, |t| {
        zpart(t, p).map(|x| copy_ids(&x.removing, out, max))
    })
}

/// Partition `p`: 1 if its state znode exists, 0 if not (a partition the
/// controller has not started), -1 out of range.
#[no_mangle]
pub extern "C" fn gregor_zk_topic_partition_has_state(
    t: *const gregor_zk_topic,
    p: usize,
) -> c_int {
    field(t, -1, |t| {
        zpart(t, p).map(|x| c_int::from(x.state.is_some()))
    })
}

/// Partition `p`: its leader's broker id (-1 if none, or no state).
#[no_mangle]
pub extern "C" fn gregor_zk_topic_partition_leader(t: *const gregor_zk_topic, p: usize) -> i32 {
    field(t, -1, |t| zpart(t, p)?.state.as_ref().map(|s| s.0))
}

/// Partition `p`: its leader epoch (-1 without state).
#[no_mangle]
pub extern "C" fn gregor_zk_topic_partition_leader_epoch(
    t: *const gregor_zk_topic,
    p: usize,
) -> i32 {
    field(t, -1, |t| zpart(t, p)?.state.as_ref().map(|s| s.1))
}

/// Partition `p`: the controller epoch that wrote its state (-1 without state).
#[no_mangle]
pub extern "C" fn gregor_zk_topic_partition_controller_epoch(
    t: *const gregor_zk_topic,
    p: usize,
) -> i32 {
    field(t, -1, |t| zpart(t, p)?.state.as_ref().map(|s| s.2))
}

/// As `gregor_zk_topic_partition_replicas`, for the in-sync replicas (0
/// without state).
#[no_mangle]
pub extern "C" fn gregor_zk_topic_partition_isr(
    t: *const gregor_zk_topic,
    p: usize,
    out: *mut i32,
    max: usize,
) -> usize {
    field(t, 0, |t| {
        zpart(t, p)?
            .state
            .as_ref()
            .map(|s| copy_ids(&s.3, out, max))
    })
}

/// Number of config overrides.
#[no_mangle]
pub extern "C" fn gregor_zk_topic_config_count(t: *const gregor_zk_topic) -> usize {
    field(t, 0, |t| Some(t.configs.len()))
}

/// Config override `j`'s name (in name order).
#[no_mangle]
pub extern "C" fn gregor_zk_topic_config_name(
    t: *const gregor_zk_topic,
    j: usize,
) -> *const c_char {
    field(t, ptr::null(), |t| t.configs.get(j).map(|c| c.0.as_ptr()))
}

/// Config override `j`'s value.
#[no_mangle]
pub extern "C" fn gregor_zk_topic_config_value(
    t: *const gregor_zk_topic,
    j: usize,
) -> *const c_char {
    field(t, ptr::null(), |t| t.configs.get(j).map(|c| c.1.as_ptr()))
}

/// Frees a topic description. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_zk_topic_free(t: *mut gregor_zk_topic) {
    guard((), || free(t))
}

// ----- controller, group offsets, znodes -----

/// The controller's broker id from `/controller` and the controller epoch
/// from `/controller_epoch` (each -1 if ZooKeeper holds none), written to
/// the non-NULL out-parameters.
#[no_mangle]
pub extern "C" fn gregor_zk_controller(
    zk: *const gregor_zk,
    broker_id: *mut i32,
    controller_epoch: *mut i32,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let zk = enter(zk)?;
        let id = zk.inner.controller()?.map_or(-1, |c| c.broker_id);
        let epoch = zk.inner.controller_epoch()?.unwrap_or(-1);
        put(broker_id, id);
        put(controller_epoch, epoch);
        Ok(())
    })
}

/// A legacy consumer group's offsets under
/// `/consumers/<group>/offsets/<topic>/<partition>`: of every topic, or of
/// `topic` only (NULL: all). On success `*out` receives a new
/// `gregor_tpl` (topic, partition, offset; in topic and partition order;
/// caller owns, free with `gregor_tpl_free`). A group with none stored gives
/// an empty list.
#[no_mangle]
pub extern "C" fn gregor_zk_list_group_offsets(
    zk: *const gregor_zk,
    group: *const c_char,
    topic: *const c_char,
    out: *mut *mut gregor_tpl,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    read_into(zk, out, errstr, errstr_size, |z| {
        let g = c_str(group, "group")?;
        let t = opt_c_str(topic, "topic")?;
        let entries = z
            .offsets(g, t)?
            .into_iter()
            .map(|((t, p), o)| TopicPartitionOffset::new(t, p, o))
            .collect();
        Ok(gregor_tpl::from_entries(entries))
    })
}

/// Copies znode `path`'s data into the caller-owned `buf` (up to `size`
/// bytes; NULL with `size` 0 to ask the length) and writes its full length
/// to `*len` (may be NULL). Returns 0, or `GREGOR_ERR__NOENT` (librdkafka's
/// `RD_KAFKA_RESP_ERR__NOENT`, "No such entry") with "`no node <path>`" in
/// `errstr` if there is no such znode.
#[no_mangle]
pub extern "C" fn gregor_zk_get(
    zk: *const gregor_zk,
    path: *const c_char,
    buf: *mut u8,
    size: usize,
    len: *mut usize,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let zk = enter(zk)?;
        let path = c_str(path, "path")?;
        let data = zk
            .inner
            .get(path)?
            .ok_or_else(|| Error::local(local::NOENT, format!("no node {path}")))?;
        copy_out(&data[..data.len().min(size)], buf);
        put(len, data.len());
        Ok(())
    })
}

/// Writes `len` bytes at `data` (NULL with `len` 0: empty) to the
/// persistent znode `path` (an absolute path), creating it and its parents
/// as needed.
#[no_mangle]
pub extern "C" fn gregor_zk_put(
    zk: *const gregor_zk,
    path: *const c_char,
    data: *const u8,
    len: usize,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let zk = enter(zk)?;
        let path = abs_path(path)?;
        zk.inner.put(path, slice(data, len, "data")?)
    })
}

/// Deletes the znode `path` and everything under it (not "/"). Deleting a
/// znode that does not exist succeeds.
#[no_mangle]
pub extern "C" fn gregor_zk_delete(
    zk: *const gregor_zk,
    path: *const c_char,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let zk = enter(zk)?;
        let path = abs_path(path)?;
        if path == "/" {
            return Err(Error::invalid_arg("path: refusing to delete /"));
        }
        zk.inner.delete_recursive(path)
    })
}

fn abs_path<'a>(path: *const c_char) -> Result<&'a str, Error> {
    let p = c_str(path, "path")?;
    if p.starts_with('/') {
        Ok(p)
    } else {
        Err(Error::invalid_arg(format!(
            "path \"{p}\" is not absolute (starts with /)"
        )))
    }
}
