//! The admin client's topics calls and their result objects.

use super::*;

impl_items!(
    gregor_topic_results: TopicItem,
    gregor_topic_descriptions: DescItem,
);
impl_errs!(
    gregor_topic_results: |x| &x.err,
    gregor_topic_descriptions: |x| &x.err,
);

// ----- topics -----

/// A topic to create.
pub struct gregor_new_topic {
    inner: NewTopic,
}

/// A topic to create with `num_partitions` partitions of
/// `replication_factor` replicas (-1 each: the broker's defaults). Copies
/// `name`. NULL if `name` is NULL or not UTF-8. Caller owns it: free with
/// `gregor_new_topic_free`.
#[no_mangle]
pub extern "C" fn gregor_new_topic_new(
    name: *const c_char,
    num_partitions: i32,
    replication_factor: i32,
) -> *mut gregor_new_topic {
    guard(ptr::null_mut(), || {
        let Ok(name) = c_str(name, "name") else {
            return ptr::null_mut();
        };
        let rf = i16::try_from(replication_factor).unwrap_or(i16::MIN);
        Box::into_raw(Box::new(gregor_new_topic {
            inner: NewTopic::new(name, num_partitions, rf),
        }))
    })
}

/// Places partition `partition` on `brokers` (`count` ids, the first the
/// preferred leader). Once any partition is placed, the assignment takes
/// precedence over the partition count and replication factor. Returns 0
/// or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_new_topic_set_replica_assignment(
    topic: *mut gregor_new_topic,
    partition: i32,
    brokers: *const i32,
    count: usize,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let t = handle_mut(topic, "topic")?;
        if partition < 0 || count == 0 {
            return Err(Error::invalid_arg(
                "a partition index >= 0 and at least one broker are needed",
            ));
        }
        let b = slice(brokers, count, "brokers")?.to_vec();
        t.inner.replica_assignment.insert(partition, b);
        Ok(())
    })
}

/// Adds a topic config `name=value` (both copied). Returns 0 or
/// `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_new_topic_set_config(
    topic: *mut gregor_new_topic,
    name: *const c_char,
    value: *const c_char,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let t = handle_mut(topic, "topic")?;
        let n = c_str(name, "name")?;
        let v = c_str(value, "value")?;
        t.inner.configs.push((n.to_string(), v.to_string()));
        Ok(())
    })
}

/// Frees a new topic. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_new_topic_free(topic: *mut gregor_new_topic) {
    guard((), || free(topic))
}

/// Partitions to add to a topic.
pub struct gregor_new_partitions {
    inner: NewPartitions,
}

/// Grows `topic` (copied) to `total_count` partitions. NULL if `topic` is
/// NULL. Caller owns it: free with `gregor_new_partitions_free`.
#[no_mangle]
pub extern "C" fn gregor_new_partitions_new(
    topic: *const c_char,
    total_count: i32,
) -> *mut gregor_new_partitions {
    guard(ptr::null_mut(), || {
        let Ok(topic) = c_str(topic, "topic") else {
            return ptr::null_mut();
        };
        Box::into_raw(Box::new(gregor_new_partitions {
            inner: NewPartitions::increase_to(topic, total_count),
        }))
    })
}

/// Places the `new_index`th new partition (0 for the first one added) on
/// `brokers`; call it for 0, 1, … in order. Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_new_partitions_set_replica_assignment(
    parts: *mut gregor_new_partitions,
    new_index: usize,
    brokers: *const i32,
    count: usize,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let p = handle_mut(parts, "parts")?;
        let b = slice(brokers, count, "brokers")?.to_vec();
        if b.is_empty() {
            return Err(Error::invalid_arg("at least one broker is needed"));
        }
        let a = p.inner.assignments.get_or_insert_with(Vec::new);
        match new_index.cmp(&a.len()) {
            std::cmp::Ordering::Less => a[new_index] = b,
            std::cmp::Ordering::Equal => a.push(b),
            std::cmp::Ordering::Greater => {
                return Err(Error::invalid_arg(format!(
                    "new partition {new_index} placed before partition {}",
                    a.len()
                )))
            }
        }
        Ok(())
    })
}

/// Frees new partitions. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_new_partitions_free(parts: *mut gregor_new_partitions) {
    guard((), || free(parts))
}

pub(crate) struct TopicItem {
    name: Option<CString>,
    topic_id: Option<CString>,
    err: CErr,
    num_partitions: i32,
    replication_factor: i32,
    configs: Vec<(CString, Option<CString>)>,
}

/// Per-topic results of creating, deleting or growing topics. Immutable.
pub struct gregor_topic_results {
    items: Vec<TopicItem>,
}

fn topic_results<T>(
    r: Vec<TopicResult<T>>,
    extra: impl Fn(&T) -> (i32, i32, Vec<(CString, Option<CString>)>),
) -> gregor_topic_results {
    gregor_topic_results {
        items: r
            .iter()
            .map(|t| {
                let (num_partitions, replication_factor, configs) =
                    t.result.as_ref().map_or((-1, -1, Vec::new()), &extra);
                TopicItem {
                    name: cso(t.name.as_deref()),
                    topic_id: (!t.topic_id.is_zero()).then(|| cs(&t.topic_id.to_kafka_string())),
                    err: cerr(&t.result),
                    num_partitions,
                    replication_factor,
                    configs,
                }
            })
            .collect(),
    }
}

/// Creates topics (one CreateTopics request to the controller, following
/// NOT_CONTROLLER). `topics` is an array of `count` handles (borrowed).
/// Honours validate-only and the operation timeout. On success `*out`
/// receives one result per distinct topic, in order (caller owns; free with
/// `gregor_topic_results_free`). Blocks. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_create_topics(
    admin: *const gregor_admin,
    topics: *const *const gregor_new_topic,
    count: usize,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_topic_results,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let ts: Vec<NewTopic> = handles(topics, count, "topics")?
            .into_iter()
            .map(|t| t.inner.clone())
            .collect();
        let r = a.inner.create_topics(&ts, &opts_of(options)?)?;
        store(
            out,
            topic_results(r, |c| {
                (
                    c.num_partitions,
                    i32::from(c.replication_factor),
                    c.configs
                        .iter()
                        .map(|e| (cs(&e.name), cso(e.value.as_deref())))
                        .collect(),
                )
            }),
        );
        Ok(())
    })
}

/// Deletes topics by name (`count` strings, borrowed). As
/// `gregor_admin_create_topics` for the rest.
#[no_mangle]
pub extern "C" fn gregor_admin_delete_topics(
    admin: *const gregor_admin,
    names: *const *const c_char,
    count: usize,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_topic_results,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let ns = c_strs(names, count, "names")?;
        let r = a.inner.delete_topics(&ns, &opts_of(options)?)?;
        store(out, topic_results(r, |()| (-1, -1, Vec::new())));
        Ok(())
    })
}

/// Deletes topics by topic ID (`count` IDs in Kafka's base64 text form or
/// hyphenated hex; DeleteTopics v6+). As `gregor_admin_delete_topics`.
#[no_mangle]
pub extern "C" fn gregor_admin_delete_topics_by_id(
    admin: *const gregor_admin,
    topic_ids: *const *const c_char,
    count: usize,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_topic_results,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let ids: Vec<Uuid> = c_strs(topic_ids, count, "topic_ids")?
            .into_iter()
            .map(|s| {
                Uuid::parse(s)
                    .ok_or_else(|| Error::invalid_arg(format!("\"{s}\" is not a topic ID")))
            })
            .collect::<Result<_>>()?;
        let r = a.inner.delete_topics_by_id(&ids, &opts_of(options)?)?;
        store(out, topic_results(r, |()| (-1, -1, Vec::new())));
        Ok(())
    })
}

/// Adds partitions to topics (CreatePartitions, to the controller).
/// `parts` is an array of `count` handles (borrowed). As
/// `gregor_admin_create_topics` for the rest.
#[no_mangle]
pub extern "C" fn gregor_admin_create_partitions(
    admin: *const gregor_admin,
    parts: *const *const gregor_new_partitions,
    count: usize,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_topic_results,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let ps: Vec<NewPartitions> = handles(parts, count, "parts")?
            .into_iter()
            .map(|p| p.inner.clone())
            .collect();
        let r = a.inner.create_partitions(&ps, &opts_of(options)?)?;
        store(out, topic_results(r, |()| (-1, -1, Vec::new())));
        Ok(())
    })
}

/// Number of results (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_topic_results_count(r: *const gregor_topic_results) -> usize {
    count(r)
}

/// Result `i`'s topic name (NULL when deleting by an ID the broker did not name).
#[no_mangle]
pub extern "C" fn gregor_topic_results_name(
    r: *const gregor_topic_results,
    i: usize,
) -> *const c_char {
    item(r, i, ptr::null(), |x| cptr(&x.name))
}

/// Result `i`'s topic ID in Kafka's text form (NULL if not known).
#[no_mangle]
pub extern "C" fn gregor_topic_results_topic_id(
    r: *const gregor_topic_results,
    i: usize,
) -> *const c_char {
    item(r, i, ptr::null(), |x| cptr(&x.topic_id))
}

/// Result `i`'s error code (0 on success).
#[no_mangle]
pub extern "C" fn gregor_topic_results_err(r: *const gregor_topic_results, i: usize) -> c_int {
    item_err(r, i)
}

/// Result `i`'s error text ("" on success).
#[no_mangle]
pub extern "C" fn gregor_topic_results_errstr(
    r: *const gregor_topic_results,
    i: usize,
) -> *const c_char {
    item_errstr(r, i)
}

/// Created topic `i`'s partition count (-1 if not reported: CreateTopics < v5, or not a create).
#[no_mangle]
pub extern "C" fn gregor_topic_results_num_partitions(
    r: *const gregor_topic_results,
    i: usize,
) -> i32 {
    item(r, i, -1, |x| x.num_partitions)
}

/// Created topic `i`'s replication factor (-1 if not reported).
#[no_mangle]
pub extern "C" fn gregor_topic_results_replication_factor(
    r: *const gregor_topic_results,
    i: usize,
) -> i32 {
    item(r, i, -1, |x| x.replication_factor)
}

/// Number of configs the broker echoed for created topic `i` (CreateTopics v5+).
#[no_mangle]
pub extern "C" fn gregor_topic_results_config_count(
    r: *const gregor_topic_results,
    i: usize,
) -> usize {
    item(r, i, 0, |x| x.configs.len())
}

/// Created topic `i`'s config `j`: its name.
#[no_mangle]
pub extern "C" fn gregor_topic_results_config_name(
    r: *const gregor_topic_results,
    i: usize,
    j: usize,
) -> *const c_char {
    field(r, ptr::null(), |r| {
        r.items.get(i)?.configs.get(j).map(|c| c.0.as_ptr())
    })
}

/// Created topic `i`'s config `j`: its value (NULL for null or sensitive).
#[no_mangle]
pub extern "C" fn gregor_topic_results_config_value(
    r: *const gregor_topic_results,
    i: usize,
    j: usize,
) -> *const c_char {
    field(r, ptr::null(), |r| {
        r.items.get(i)?.configs.get(j).map(|c| cptr(&c.1))
    })
}

/// Frees topic results. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_topic_results_free(r: *mut gregor_topic_results) {
    guard((), || free(r))
}

pub(crate) struct DescItem {
    name: Option<CString>,
    topic_id: Option<CString>,
    err: CErr,
    is_internal: bool,
    partitions: Vec<PartitionDescription>,
    ops: Option<Vec<c_int>>,
}

/// Described topics. Immutable.
pub struct gregor_topic_descriptions {
    items: Vec<DescItem>,
}

fn descriptions(r: Vec<TopicResult<TopicDescription>>) -> gregor_topic_descriptions {
    gregor_topic_descriptions {
        items: r
            .into_iter()
            .map(|t| {
                let err = cerr(&t.result);
                let d = t.result.ok();
                DescItem {
                    name: cso(t.name.as_deref()),
                    topic_id: (!t.topic_id.is_zero()).then(|| cs(&t.topic_id.to_kafka_string())),
                    err,
                    is_internal: d.as_ref().is_some_and(|d| d.is_internal),
                    ops: d.as_ref().and_then(|d| ops_ints(&d.authorized_operations)),
                    partitions: d.map(|d| d.partitions).unwrap_or_default(),
                }
            })
            .collect(),
    }
}

/// Describes topics by name (`count` strings, borrowed; a Metadata request
/// that never auto-creates). Non-zero `include_authorized_operations` asks
/// for the client's operations on each topic (Metadata v8+). On success
/// `*out` receives the descriptions (caller owns; free with
/// `gregor_topic_descriptions_free`). Blocks. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_describe_topics(
    admin: *const gregor_admin,
    names: *const *const c_char,
    count: usize,
    include_authorized_operations: c_int,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_topic_descriptions,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let ns = c_strs(names, count, "names")?;
        let r =
            a.inner
                .describe_topics(&ns, include_authorized_operations != 0, &opts_of(options)?)?;
        store(out, descriptions(r));
        Ok(())
    })
}

/// As `gregor_admin_describe_topics`, by topic ID (text form; Metadata v10+).
#[no_mangle]
pub extern "C" fn gregor_admin_describe_topics_by_id(
    admin: *const gregor_admin,
    topic_ids: *const *const c_char,
    count: usize,
    include_authorized_operations: c_int,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_topic_descriptions,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let ids: Vec<Uuid> = c_strs(topic_ids, count, "topic_ids")?
            .into_iter()
            .map(|s| {
                Uuid::parse(s)
                    .ok_or_else(|| Error::invalid_arg(format!("\"{s}\" is not a topic ID")))
            })
            .collect::<Result<_>>()?;
        let r = a.inner.describe_topics_by_id(
            &ids,
            include_authorized_operations != 0,
            &opts_of(options)?,
        )?;
        store(out, descriptions(r));
        Ok(())
    })
}

/// Number of topics (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_topic_descriptions_count(d: *const gregor_topic_descriptions) -> usize {
    count(d)
}

/// Topic `i`'s name (NULL if not known).
#[no_mangle]
pub extern "C" fn gregor_topic_descriptions_name(
    d: *const gregor_topic_descriptions,
    i: usize,
) -> *const c_char {
    item(d, i, ptr::null(), |x| cptr(&x.name))
}

/// Topic `i`'s ID in Kafka's text form (NULL if not known).
#[no_mangle]
pub extern "C" fn gregor_topic_descriptions_topic_id(
    d: *const gregor_topic_descriptions,
    i: usize,
) -> *const c_char {
    item(d, i, ptr::null(), |x| cptr(&x.topic_id))
}

/// Topic `i`'s error code (e.g. `GREGOR_ERR_UNKNOWN_TOPIC_OR_PARTITION`).
#[no_mangle]
pub extern "C" fn gregor_topic_descriptions_err(
    d: *const gregor_topic_descriptions,
    i: usize,
) -> c_int {
    item_err(d, i)
}

/// Topic `i`'s error text ("" on success).
#[no_mangle]
pub extern "C" fn gregor_topic_descriptions_errstr(
    d: *const gregor_topic_descriptions,
    i: usize,
) -> *const c_char {
    item_errstr(d, i)
}

/// 1 if topic `i` is internal, 0 if not, -1 out of range.
#[no_mangle]
pub extern "C" fn gregor_topic_descriptions_is_internal(
    d: *const gregor_topic_descriptions,
    i: usize,
) -> c_int {
    item(d, i, -1, |x| c_int::from(x.is_internal))
}

/// Copies up to `max` of topic `i`'s authorized operations
/// (`GREGOR_ACL_OPERATION_*`) into `out`; returns how many there are, or
/// -1 if they were not asked for or not known.
#[no_mangle]
pub extern "C" fn gregor_topic_descriptions_authorized_operations(
    d: *const gregor_topic_descriptions,
    i: usize,
    out: *mut c_int,
    max: usize,
) -> c_int {
    item(d, i, -1, |x| copy_ops(&x.ops, out, max))
}

/// Number of partitions of topic `i`.
#[no_mangle]
pub extern "C" fn gregor_topic_descriptions_partition_count(
    d: *const gregor_topic_descriptions,
    i: usize,
) -> usize {
    item(d, i, 0, |x| x.partitions.len())
}

/// Reads `f` of the item at (i, p) (`default` for NULL or out of range).
fn part<T: Copy>(
    d: *const gregor_topic_descriptions,
    i: usize,
    p: usize,
    default: T,
    f: impl FnOnce(&PartitionDescription) -> T,
) -> T {
    field(d, default, |d| d.items.get(i)?.partitions.get(p).map(f))
}

/// Topic `i`, partition `p` (in index order): its index.
#[no_mangle]
pub extern "C" fn gregor_topic_descriptions_partition_id(
    d: *const gregor_topic_descriptions,
    i: usize,
    p: usize,
) -> i32 {
    part(d, i, p, -1, |x| x.partition)
}

/// Topic `i`, partition `p`: its leader's broker id (-1 if none).
#[no_mangle]
pub extern "C" fn gregor_topic_descriptions_partition_leader(
    d: *const gregor_topic_descriptions,
    i: usize,
    p: usize,
) -> i32 {
    part(d, i, p, -1, |x| x.leader)
}

/// Topic `i`, partition `p`: its leader epoch (-1 if not known).
#[no_mangle]
pub extern "C" fn gregor_topic_descriptions_partition_leader_epoch(
    d: *const gregor_topic_descriptions,
    i: usize,
    p: usize,
) -> i32 {
    part(d, i, p, -1, |x| x.leader_epoch)
}

/// Topic `i`, partition `p`: copies up to `max` replica ids into `out`,
/// returns how many replicas there are.
#[no_mangle]
pub extern "C" fn gregor_topic_descriptions_partition_replicas(
    d: *const gregor_topic_descriptions,
    i: usize,
    p: usize,
    out: *mut i32,
    max: usize,
) -> usize {
    part(d, i, p, 0, |x| copy_ids(&x.replicas, out, max))
}

/// As `gregor_topic_descriptions_partition_replicas`, for the in-sync replicas.
#[no_mangle]
pub extern "C" fn gregor_topic_descriptions_partition_isr(
    d: *const gregor_topic_descriptions,
    i: usize,
    p: usize,
    out: *mut i32,
    max: usize,
) -> usize {
    part(d, i, p, 0, |x| copy_ids(&x.isr, out, max))
}

/// As `gregor_topic_descriptions_partition_replicas`, for the offline replicas.
#[no_mangle]
pub extern "C" fn gregor_topic_descriptions_partition_offline(
    d: *const gregor_topic_descriptions,
    i: usize,
    p: usize,
    out: *mut i32,
    max: usize,
) -> usize {
    part(d, i, p, 0, |x| copy_ids(&x.offline_replicas, out, max))
}

/// Frees topic descriptions. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_topic_descriptions_free(d: *mut gregor_topic_descriptions) {
    guard((), || free(d))
}
