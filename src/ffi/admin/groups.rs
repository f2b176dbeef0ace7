//! The admin client's groups calls and their result objects.

use super::*;

impl_items!(
    gregor_group_descriptions: CGroup,
    gregor_group_results: (CString, CErr),
);
impl_errs!(
    gregor_group_descriptions: |x| &x.err,
    gregor_group_results: |x| &x.1,
);

// ----- consumer groups -----

struct CListing {
    group_id: CString,
    protocol_type: CString,
    state: Option<CString>,
    group_type: Option<CString>,
    coordinator_id: i32,
    simple: bool,
}

/// The groups every broker lists, and the brokers that failed. Immutable.
pub struct gregor_group_listings {
    groups: Vec<CListing>,
    errors: Vec<(i32, CErr)>,
}

/// Lists the groups every broker coordinates (ListGroups to each broker),
/// keeping those in one of `state_count` states (ListGroups v4+; e.g.
/// "Stable", "Empty") and of one of `type_count` types (v5+; "classic",
/// "consumer"); no filter: all. A broker that cannot be asked, answers an
/// error, or is too old for a filter given is listed among the errors
/// (`gregor_group_listings_error_*`), not a failure of the call. On success
/// `*out` receives the listings (caller owns; free with
/// `gregor_group_listings_free`). Blocks. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_list_groups(
    admin: *const gregor_admin,
    states: *const *const c_char,
    state_count: usize,
    types: *const *const c_char,
    type_count: usize,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_group_listings,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let ss = c_strs(states, state_count, "states")?;
        let ts = c_strs(types, type_count, "types")?;
        let l = a.inner.list_groups(&ss, &ts, &opts_of(options)?)?;
        store(
            out,
            gregor_group_listings {
                groups: l
                    .groups
                    .iter()
                    .map(|g| CListing {
                        group_id: cs(&g.group_id),
                        protocol_type: cs(&g.protocol_type),
                        state: cso(g.state.as_deref()),
                        group_type: cso(g.group_type.as_deref()),
                        coordinator_id: g.coordinator_id,
                        simple: g.is_simple_consumer_group(),
                    })
                    .collect(),
                errors: l
                    .errors
                    .iter()
                    .map(|(b, e)| (*b, cerr_of(Some(e))))
                    .collect(),
            },
        );
        Ok(())
    })
}

/// Number of groups listed (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_group_listings_count(l: *const gregor_group_listings) -> usize {
    field(l, 0, |l| Some(l.groups.len()))
}

/// Group `i`'s ID.
#[no_mangle]
pub extern "C" fn gregor_group_listings_group_id(
    l: *const gregor_group_listings,
    i: usize,
) -> *const c_char {
    field(l, ptr::null(), |l| {
        l.groups.get(i).map(|g| g.group_id.as_ptr())
    })
}

/// Group `i`'s protocol type ("consumer", …; "" for a simple group).
#[no_mangle]
pub extern "C" fn gregor_group_listings_protocol_type(
    l: *const gregor_group_listings,
    i: usize,
) -> *const c_char {
    field(l, ptr::null(), |l| {
        l.groups.get(i).map(|g| g.protocol_type.as_ptr())
    })
}

/// Group `i`'s state ("Stable", …; NULL from brokers before ListGroups v4).
#[no_mangle]
pub extern "C" fn gregor_group_listings_state(
    l: *const gregor_group_listings,
    i: usize,
) -> *const c_char {
    field(l, ptr::null(), |l| l.groups.get(i).map(|g| cptr(&g.state)))
}

/// Group `i`'s type ("classic", "consumer"; NULL before ListGroups v5).
#[no_mangle]
pub extern "C" fn gregor_group_listings_type(
    l: *const gregor_group_listings,
    i: usize,
) -> *const c_char {
    field(l, ptr::null(), |l| {
        l.groups.get(i).map(|g| cptr(&g.group_type))
    })
}

/// Group `i`'s coordinator (the broker that listed it).
#[no_mangle]
pub extern "C" fn gregor_group_listings_coordinator_id(
    l: *const gregor_group_listings,
    i: usize,
) -> i32 {
    field(l, -1, |l| l.groups.get(i).map(|g| g.coordinator_id))
}

/// 1 if group `i` only stores offsets (no protocol type), 0 if not, -1 out of range.
#[no_mangle]
pub extern "C" fn gregor_group_listings_is_simple(
    l: *const gregor_group_listings,
    i: usize,
) -> c_int {
    field(l, -1, |l| l.groups.get(i).map(|g| c_int::from(g.simple)))
}

/// Number of brokers that failed (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_group_listings_error_count(l: *const gregor_group_listings) -> usize {
    field(l, 0, |l| Some(l.errors.len()))
}

/// Failed broker `j`'s id.
#[no_mangle]
pub extern "C" fn gregor_group_listings_error_broker(
    l: *const gregor_group_listings,
    j: usize,
) -> i32 {
    field(l, -1, |l| l.errors.get(j).map(|e| e.0))
}

/// Failed broker `j`'s error code.
#[no_mangle]
pub extern "C" fn gregor_group_listings_error_err(
    l: *const gregor_group_listings,
    j: usize,
) -> c_int {
    field(l, local::INVALID_ARG, |l| l.errors.get(j).map(|e| e.1.code))
}

/// Failed broker `j`'s error text.
#[no_mangle]
pub extern "C" fn gregor_group_listings_error_errstr(
    l: *const gregor_group_listings,
    j: usize,
) -> *const c_char {
    field(l, ptr::null(), |l| {
        l.errors.get(j).map(|e| e.1.text.as_ptr())
    })
}

/// Frees group listings. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_group_listings_free(l: *mut gregor_group_listings) {
    guard((), || free(l))
}

struct CSub {
    version: i32,
    topics: Vec<CString>,
    user_data: Option<Vec<u8>>,
    owned: Vec<(CString, i32)>,
    generation_id: i32,
    rack_id: Option<CString>,
}

struct CAsg {
    version: i32,
    partitions: Vec<(CString, i32)>,
    user_data: Option<Vec<u8>>,
}

struct CMember {
    member_id: CString,
    group_instance_id: Option<CString>,
    client_id: CString,
    client_host: CString,
    metadata: Vec<u8>,
    assignment_bytes: Vec<u8>,
    sub: Option<CSub>,
    sub_err: CErr,
    asg: Option<CAsg>,
    asg_err: CErr,
    /// KIP-848: member epoch, regex, target assignment.
    consumer: Option<CConsumerMember>,
}

/// A KIP-848 member's epoch, regex and target assignment.
type CConsumerMember = (i32, Option<CString>, Vec<(CString, i32)>);

pub(crate) struct CGroup {
    group_id: CString,
    err: CErr,
    state: CString,
    protocol_type: CString,
    protocol: CString,
    coordinator_id: i32,
    coordinator_host: CString,
    coordinator_port: i32,
    ops: Option<Vec<c_int>>,
    members: Vec<CMember>,
    group_type: CString,
    group_epoch: i32,
    assignment_epoch: i32,
}

/// Described groups. Immutable.
pub struct gregor_group_descriptions {
    items: Vec<CGroup>,
}

fn ctps(ps: &[TopicPartition]) -> Vec<(CString, i32)> {
    ps.iter().map(|p| (cs(&p.topic), p.partition)).collect()
}

fn cmember(m: &MemberDescription) -> CMember {
    let (sub, sub_err) = match &m.subscription {
        Some(Ok(s)) => (
            Some(CSub {
                version: i32::from(s.version),
                topics: s.topics.iter().map(|t| cs(t)).collect(),
                user_data: s.user_data.clone(),
                owned: ctps(&s.owned_partitions),
                generation_id: s.generation_id.unwrap_or(-1),
                rack_id: cso(s.rack_id.as_deref()),
            }),
            cerr_of(None),
        ),
        Some(Err(e)) => (None, cerr_of(Some(e))),
        None => (None, cerr_of(None)),
    };
    let (asg, asg_err) = match &m.assignment {
        Some(Ok(a)) => (
            Some(CAsg {
                version: i32::from(a.version),
                partitions: ctps(&a.partitions),
                user_data: a.user_data.clone(),
            }),
            cerr_of(None),
        ),
        Some(Err(e)) => (None, cerr_of(Some(e))),
        None => (None, cerr_of(None)),
    };
    CMember {
        member_id: cs(&m.member_id),
        group_instance_id: cso(m.group_instance_id.as_deref()),
        client_id: cs(&m.client_id),
        client_host: cs(&m.client_host),
        metadata: m.metadata.clone(),
        assignment_bytes: m.assignment_bytes.clone(),
        sub,
        sub_err,
        asg,
        asg_err,
        consumer: m.consumer.as_ref().map(|c| {
            (
                c.member_epoch,
                cso(c.subscribed_topic_regex.as_deref()),
                ctps(&c.target_assignment),
            )
        }),
    }
}

/// Describes `count` groups at their coordinators, as librdkafka's
/// `rd_kafka_DescribeConsumerGroups`: with ConsumerGroupDescribe (KIP-848)
/// first, then with DescribeGroups for the groups it does not know as
/// "consumer" type groups (classic or unknown groups; every group of a
/// coordinator without ConsumerGroupDescribe); `gregor_group_descriptions_type`
/// tells which ("consumer" or "classic"). A "consumer" type group's members
/// have their epochs and target assignments (`_member_epoch`,
/// `_member_target_assignment_*`); their current assignment and subscribed
/// topics are read with the `_member_assignment_*` and
/// `_member_subscription_*` accessors (version -1). For classic groups of
/// protocol type "consumer" each
/// member's metadata and assignment are decoded (read them with the
/// `_member_subscription_*` and `_member_assignment_*` accessors; a member
/// whose bytes do not decode has its own `_err`, the rest of the group is
/// still described). Non-zero `include_authorized_operations` asks for the
/// client's operations on each group (v3+). On success `*out` receives one
/// description per distinct group, in order (caller owns; free with
/// `gregor_group_descriptions_free`). Blocks. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_describe_groups(
    admin: *const gregor_admin,
    groups: *const *const c_char,
    count: usize,
    include_authorized_operations: c_int,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_group_descriptions,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let gs = c_strs(groups, count, "groups")?;
        let r =
            a.inner
                .describe_groups(&gs, include_authorized_operations != 0, &opts_of(options)?)?;
        let items = r
            .iter()
            .map(|(id, res)| match res {
                Ok(g) => CGroup {
                    group_id: cs(id),
                    err: cerr_of(None),
                    state: cs(&g.state),
                    protocol_type: cs(&g.protocol_type),
                    protocol: cs(&g.protocol),
                    coordinator_id: g.coordinator.id,
                    coordinator_host: cs(&g.coordinator.host),
                    coordinator_port: g.coordinator.port,
                    ops: ops_ints(&g.authorized_operations),
                    members: g.members.iter().map(cmember).collect(),
                    group_type: cs(&g.group_type),
                    group_epoch: g.group_epoch.unwrap_or(-1),
                    assignment_epoch: g.assignment_epoch.unwrap_or(-1),
                },
                Err(e) => CGroup {
                    group_id: cs(id),
                    err: cerr_of(Some(e)),
                    state: CString::default(),
                    protocol_type: CString::default(),
                    protocol: CString::default(),
                    coordinator_id: -1,
                    coordinator_host: CString::default(),
                    coordinator_port: -1,
                    ops: None,
                    members: Vec::new(),
                    group_type: CString::default(),
                    group_epoch: -1,
                    assignment_epoch: -1,
                },
            })
            .collect();
        store(out, gregor_group_descriptions { items });
        Ok(())
    })
}

fn group_at<'a>(d: *const gregor_group_descriptions, i: usize) -> Option<&'a CGroup> {
    handle(d, "descriptions").ok()?.items.get(i)
}

fn member_at<'a>(d: *const gregor_group_descriptions, i: usize, m: usize) -> Option<&'a CMember> {
    group_at(d, i)?.members.get(m)
}

fn slice_of(b: Option<&[u8]>) -> gregor_slice {
    match b {
        Some(b) => gregor_slice {
            ptr: b.as_ptr(),
            len: b.len(),
        },
        None => gregor_slice {
            ptr: ptr::null(),
            len: 0,
        },
    }
}

/// Number of groups (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_count(d: *const gregor_group_descriptions) -> usize {
    count(d)
}

/// Group `i`'s ID.
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_group_id(
    d: *const gregor_group_descriptions,
    i: usize,
) -> *const c_char {
    guard(ptr::null(), || {
        group_at(d, i).map_or(ptr::null(), |g| g.group_id.as_ptr())
    })
}

/// Group `i`'s error code (e.g. `GREGOR_ERR_GROUP_AUTHORIZATION_FAILED`).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_err(
    d: *const gregor_group_descriptions,
    i: usize,
) -> c_int {
    guard(local::INVALID_ARG, || {
        group_at(d, i).map_or(local::INVALID_ARG, |g| g.err.code)
    })
}

/// Group `i`'s error text ("" on success).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_errstr(
    d: *const gregor_group_descriptions,
    i: usize,
) -> *const c_char {
    guard(ptr::null(), || {
        group_at(d, i).map_or(ptr::null(), |g| g.err.text.as_ptr())
    })
}

/// Group `i`'s state ("Stable", "Empty", "Dead", …).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_state(
    d: *const gregor_group_descriptions,
    i: usize,
) -> *const c_char {
    guard(ptr::null(), || {
        group_at(d, i).map_or(ptr::null(), |g| g.state.as_ptr())
    })
}

/// Group `i`'s protocol type ("consumer", …).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_protocol_type(
    d: *const gregor_group_descriptions,
    i: usize,
) -> *const c_char {
    guard(ptr::null(), || {
        group_at(d, i).map_or(ptr::null(), |g| g.protocol_type.as_ptr())
    })
}

/// Group `i`'s chosen protocol (for consumers the assignor; "" unless Stable).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_protocol(
    d: *const gregor_group_descriptions,
    i: usize,
) -> *const c_char {
    guard(ptr::null(), || {
        group_at(d, i).map_or(ptr::null(), |g| g.protocol.as_ptr())
    })
}

/// Group `i`'s coordinator: writes its broker id, host (borrowed) and port
/// to the non-NULL out-parameters. Returns 0, or `GREGOR_ERR__INVALID_ARG`
/// out of range.
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_coordinator(
    d: *const gregor_group_descriptions,
    i: usize,
    id: *mut i32,
    host: *mut *const c_char,
    port: *mut i32,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let g = group_at(d, i).ok_or_else(|| Error::invalid_arg("index out of range"))?;
        put(id, g.coordinator_id);
        put(host, g.coordinator_host.as_ptr());
        put(port, g.coordinator_port);
        Ok(())
    })
}

/// Copies up to `max` of group `i`'s authorized operations
/// (`GREGOR_ACL_OPERATION_*`) into `out`; returns how many there are, or
/// -1 if they were not asked for or not known.
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_authorized_operations(
    d: *const gregor_group_descriptions,
    i: usize,
    out: *mut c_int,
    max: usize,
) -> c_int {
    guard(-1, || {
        group_at(d, i).map_or(-1, |g| copy_ops(&g.ops, out, max))
    })
}

/// Number of members of group `i`.
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_count(
    d: *const gregor_group_descriptions,
    i: usize,
) -> usize {
    guard(0, || group_at(d, i).map_or(0, |g| g.members.len()))
}

/// Group `i`, member `m`: its member ID.
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_id(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
) -> *const c_char {
    guard(ptr::null(), || {
        member_at(d, i, m).map_or(ptr::null(), |x| x.member_id.as_ptr())
    })
}

/// Group `i`, member `m`: its static group instance ID (NULL if none).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_group_instance_id(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
) -> *const c_char {
    guard(ptr::null(), || {
        member_at(d, i, m).map_or(ptr::null(), |x| cptr(&x.group_instance_id))
    })
}

/// Group `i`, member `m`: its client ID.
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_client_id(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
) -> *const c_char {
    guard(ptr::null(), || {
        member_at(d, i, m).map_or(ptr::null(), |x| x.client_id.as_ptr())
    })
}

/// Group `i`, member `m`: its host.
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_client_host(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
) -> *const c_char {
    guard(ptr::null(), || {
        member_at(d, i, m).map_or(ptr::null(), |x| x.client_host.as_ptr())
    })
}

/// Group `i`, member `m`: its metadata bytes as sent (borrowed; `len` 0 if none).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_metadata(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
) -> gregor_slice {
    guard(slice_of(None), || {
        slice_of(member_at(d, i, m).map(|x| &x.metadata[..]))
    })
}

/// Group `i`, member `m`: its assignment bytes as sent (borrowed).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_assignment_bytes(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
) -> gregor_slice {
    guard(slice_of(None), || {
        slice_of(member_at(d, i, m).map(|x| &x.assignment_bytes[..]))
    })
}

/// Group `i`, member `m`: 0 unless its metadata failed to decode as a
/// consumer protocol subscription (then `GREGOR_ERR__BAD_MSG`, with the
/// reason in `_member_subscription_errstr`).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_subscription_err(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
) -> c_int {
    guard(local::INVALID_ARG, || {
        member_at(d, i, m).map_or(local::INVALID_ARG, |x| x.sub_err.code)
    })
}

/// Group `i`, member `m`: why its subscription did not decode ("" if it did).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_subscription_errstr(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
) -> *const c_char {
    guard(ptr::null(), || {
        member_at(d, i, m).map_or(ptr::null(), |x| x.sub_err.text.as_ptr())
    })
}

fn sub_at<'a>(d: *const gregor_group_descriptions, i: usize, m: usize) -> Option<&'a CSub> {
    member_at(d, i, m)?.sub.as_ref()
}

fn asg_at<'a>(d: *const gregor_group_descriptions, i: usize, m: usize) -> Option<&'a CAsg> {
    member_at(d, i, m)?.asg.as_ref()
}

/// Group `i`, member `m`: the consumer protocol version of its decoded
/// subscription, or -1 if there is none (not the "consumer" protocol
/// type, no metadata sent, or it failed to decode).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_subscription_version(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
) -> c_int {
    guard(-1, || sub_at(d, i, m).map_or(-1, |s| s.version))
}

/// Number of topics member `m` of group `i` subscribes to (0 if no subscription).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_subscription_topic_count(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
) -> usize {
    guard(0, || sub_at(d, i, m).map_or(0, |s| s.topics.len()))
}

/// Subscribed topic `k` of member `m` of group `i`.
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_subscription_topic(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
    k: usize,
) -> *const c_char {
    guard(ptr::null(), || {
        sub_at(d, i, m)
            .and_then(|s| s.topics.get(k))
            .map_or(ptr::null(), |t| t.as_ptr())
    })
}

/// Number of partitions member `m` of group `i` owned when it joined
/// (subscription v1+).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_owned_count(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
) -> usize {
    guard(0, || sub_at(d, i, m).map_or(0, |s| s.owned.len()))
}

/// Owned partition `k` of member `m` of group `i`: writes its topic
/// (borrowed) and partition. Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_owned(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
    k: usize,
    topic: *mut *const c_char,
    partition: *mut i32,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let (t, p) = sub_at(d, i, m)
            .and_then(|s| s.owned.get(k))
            .ok_or_else(|| Error::invalid_arg("index out of range"))?;
        put(topic, t.as_ptr());
        put(partition, *p);
        Ok(())
    })
}

/// Member `m` of group `i`: the generation of its owned partitions
/// (subscription v2+; -1 if none).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_generation_id(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
) -> i32 {
    guard(-1, || sub_at(d, i, m).map_or(-1, |s| s.generation_id))
}

/// Member `m` of group `i`: its rack (subscription v3+; NULL if none).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_rack_id(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
) -> *const c_char {
    guard(ptr::null(), || {
        sub_at(d, i, m).map_or(ptr::null(), |s| cptr(&s.rack_id))
    })
}

/// Member `m` of group `i`: its subscription's user data (borrowed; `ptr`
/// NULL if none).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_subscription_user_data(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
) -> gregor_slice {
    guard(slice_of(None), || {
        slice_of(sub_at(d, i, m).and_then(|s| s.user_data.as_deref()))
    })
}

/// Group `i`, member `m`: 0 unless its assignment failed to decode (then
/// `GREGOR_ERR__BAD_MSG`, reason in `_member_assignment_errstr`).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_assignment_err(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
) -> c_int {
    guard(local::INVALID_ARG, || {
        member_at(d, i, m).map_or(local::INVALID_ARG, |x| x.asg_err.code)
    })
}

/// Group `i`, member `m`: why its assignment did not decode ("" if it did).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_assignment_errstr(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
) -> *const c_char {
    guard(ptr::null(), || {
        member_at(d, i, m).map_or(ptr::null(), |x| x.asg_err.text.as_ptr())
    })
}

/// Group `i`, member `m`: the consumer protocol version of its decoded
/// assignment, or -1 if there is none.
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_assignment_version(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
) -> c_int {
    guard(-1, || asg_at(d, i, m).map_or(-1, |a| a.version))
}

/// Number of partitions assigned to member `m` of group `i` (0 if no assignment).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_assignment_count(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
) -> usize {
    guard(0, || asg_at(d, i, m).map_or(0, |a| a.partitions.len()))
}

/// Assigned partition `k` of member `m` of group `i`: writes its topic
/// (borrowed) and partition. Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_assignment_partition(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
    k: usize,
    topic: *mut *const c_char,
    partition: *mut i32,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let (t, p) = asg_at(d, i, m)
            .and_then(|a| a.partitions.get(k))
            .ok_or_else(|| Error::invalid_arg("index out of range"))?;
        put(topic, t.as_ptr());
        put(partition, *p);
        Ok(())
    })
}

/// Member `m` of group `i`: its assignment's user data (borrowed; `ptr`
/// NULL if none).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_assignment_user_data(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
) -> gregor_slice {
    guard(slice_of(None), || {
        slice_of(asg_at(d, i, m).and_then(|a| a.user_data.as_deref()))
    })
}

/// Group `i`'s type: "consumer" for a KIP-848 group (described by
/// ConsumerGroupDescribe), "classic" for one described by DescribeGroups
/// ("" for a group that failed).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_type(
    d: *const gregor_group_descriptions,
    i: usize,
) -> *const c_char {
    guard(ptr::null(), || {
        group_at(d, i).map_or(ptr::null(), |g| g.group_type.as_ptr())
    })
}

/// Group `i`'s group epoch (KIP-848; -1 for a classic group).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_group_epoch(
    d: *const gregor_group_descriptions,
    i: usize,
) -> i32 {
    guard(-1, || group_at(d, i).map_or(-1, |g| g.group_epoch))
}

/// Group `i`'s target assignment epoch (KIP-848; -1 for a classic group).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_assignment_epoch(
    d: *const gregor_group_descriptions,
    i: usize,
) -> i32 {
    guard(-1, || group_at(d, i).map_or(-1, |g| g.assignment_epoch))
}

/// Member `m` of group `i`: its member epoch (KIP-848; -1 for a classic
/// group's member).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_epoch(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
) -> i32 {
    guard(-1, || {
        member_at(d, i, m)
            .and_then(|x| x.consumer.as_ref())
            .map_or(-1, |c| c.0)
    })
}

/// Member `m` of group `i`: the regex it subscribed with (KIP-848; NULL if
/// none).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_subscribed_topic_regex(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
) -> *const c_char {
    guard(ptr::null(), || {
        member_at(d, i, m)
            .and_then(|x| x.consumer.as_ref())
            .map_or(ptr::null(), |c| cptr(&c.1))
    })
}

/// Number of partitions in the target assignment of member `m` of group
/// `i` (KIP-848; 0 for a classic group's member).
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_target_assignment_count(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
) -> usize {
    guard(0, || {
        member_at(d, i, m)
            .and_then(|x| x.consumer.as_ref())
            .map_or(0, |c| c.2.len())
    })
}

/// Target-assignment partition `k` of member `m` of group `i`: writes its
/// topic (borrowed) and partition. Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_member_target_assignment_partition(
    d: *const gregor_group_descriptions,
    i: usize,
    m: usize,
    k: usize,
    topic: *mut *const c_char,
    partition: *mut i32,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let (t, p) = member_at(d, i, m)
            .and_then(|x| x.consumer.as_ref())
            .and_then(|c| c.2.get(k))
            .ok_or_else(|| Error::invalid_arg("index out of range"))?;
        put(topic, t.as_ptr());
        put(partition, *p);
        Ok(())
    })
}

/// Frees group descriptions. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_group_descriptions_free(d: *mut gregor_group_descriptions) {
    guard((), || free(d))
}

/// Per-group results of deleting groups. Immutable.
pub struct gregor_group_results {
    items: Vec<(CString, CErr)>,
}

/// Deletes `count` groups at their coordinators (DeleteGroups; a group
/// with members answers `GREGOR_ERR_NON_EMPTY_GROUP`). On success `*out`
/// receives one result per distinct group, in order (caller owns; free with
/// `gregor_group_results_free`). Blocks. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_delete_groups(
    admin: *const gregor_admin,
    groups: *const *const c_char,
    count: usize,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_group_results,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let gs = c_strs(groups, count, "groups")?;
        let r = a.inner.delete_groups(&gs, &opts_of(options)?)?;
        store(
            out,
            gregor_group_results {
                items: r.iter().map(|(g, res)| (cs(g), cerr(res))).collect(),
            },
        );
        Ok(())
    })
}

/// Number of results (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_group_results_count(r: *const gregor_group_results) -> usize {
    count(r)
}

/// Result `i`'s group ID.
#[no_mangle]
pub extern "C" fn gregor_group_results_group_id(
    r: *const gregor_group_results,
    i: usize,
) -> *const c_char {
    item(r, i, ptr::null(), |x| x.0.as_ptr())
}

/// Result `i`'s error code (0 on success).
#[no_mangle]
pub extern "C" fn gregor_group_results_err(r: *const gregor_group_results, i: usize) -> c_int {
    item(r, i, local::INVALID_ARG, |x| x.1.code)
}

/// Result `i`'s error text ("" on success).
#[no_mangle]
pub extern "C" fn gregor_group_results_errstr(
    r: *const gregor_group_results,
    i: usize,
) -> *const c_char {
    item(r, i, ptr::null(), |x| x.1.text.as_ptr())
}

/// Frees group results. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_group_results_free(r: *mut gregor_group_results) {
    guard((), || free(r))
}

/// Reads `group`'s committed offsets (OffsetFetch at its coordinator): of
/// the partitions of `partitions` (offsets ignored; one result each, in
/// order, offset -1 where none is committed), or of every partition the
/// group has offsets for when `partitions` is NULL. Non-zero
/// `require_stable` waits out pending transactional offsets (v7+). Each
/// result has offset, leader epoch and metadata
/// (`gregor_partition_results_metadata`). A group-level error (e.g.
/// `GREGOR_ERR_GROUP_AUTHORIZATION_FAILED`) is the return code. On success
/// `*out` receives the results (caller owns; free with
/// `gregor_partition_results_free`). Blocks. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_list_group_offsets(
    admin: *const gregor_admin,
    group: *const c_char,
    partitions: *const gregor_tpl,
    require_stable: c_int,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_partition_results,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let g = c_str(group, "group")?;
        let ps = if partitions.is_null() {
            None
        } else {
            Some(tps(handle(partitions, "partitions")?))
        };
        let r = a.inner.list_group_offsets(
            g,
            ps.as_deref(),
            require_stable != 0,
            &opts_of(options)?,
        )?;
        store(
            out,
            part_results(&r, |o, it| {
                it.offset = o.offset;
                it.leader_epoch = o.leader_epoch.unwrap_or(-1);
                it.metadata = cso(o.metadata.as_deref());
            }),
        );
        Ok(())
    })
}

/// Sets `group`'s committed offsets (an admin OffsetCommit: generation -1,
/// no member, so the group must have no active members): each entry of
/// `offsets` is committed with its offset and leader epoch (if set), and
/// `metadata[i]` for entry `i` when `metadata` is not NULL (NULL entries:
/// none). On success `*out` receives one result per distinct partition, in
/// order (caller owns; free with `gregor_partition_results_free`). Blocks.
/// Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_alter_group_offsets(
    admin: *const gregor_admin,
    group: *const c_char,
    offsets: *const gregor_tpl,
    metadata: *const *const c_char,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_partition_results,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let g = c_str(group, "group")?;
        let l = handle(offsets, "offsets")?;
        let mds: Vec<Option<String>> = if metadata.is_null() {
            vec![None; l.inner.len()]
        } else {
            slice(metadata, l.inner.len(), "metadata")?
                .iter()
                .map(|p| opt_str(*p, "metadata"))
                .collect::<Result<_>>()?
        };
        let items: Vec<(TopicPartition, OffsetAndMetadata)> = l
            .inner
            .iter()
            .zip(mds)
            .map(|(t, md)| {
                (
                    TopicPartition::new(t.topic.clone(), t.partition),
                    OffsetAndMetadata {
                        offset: t.offset,
                        leader_epoch: t.leader_epoch,
                        metadata: md,
                    },
                )
            })
            .collect();
        let r = a.inner.alter_group_offsets(g, &items, &opts_of(options)?)?;
        store(out, part_results(&r, |(), _| {}));
        Ok(())
    })
}

/// Deletes `group`'s committed offsets of the partitions of `partitions`
/// (offsets ignored; OffsetDelete, KIP-496). A group-level error (e.g.
/// `GREGOR_ERR_GROUP_ID_NOT_FOUND`, or `GREGOR_ERR__UNSUPPORTED_FEATURE`
/// from a broker without OffsetDelete) is the return code; per partition
/// e.g. `GREGOR_ERR_GROUP_SUBSCRIBED_TO_TOPIC`. On success `*out` receives
/// one result per distinct partition (caller owns; free with
/// `gregor_partition_results_free`). Blocks. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_delete_group_offsets(
    admin: *const gregor_admin,
    group: *const c_char,
    partitions: *const gregor_tpl,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_partition_results,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let g = c_str(group, "group")?;
        let ps = tps(handle(partitions, "partitions")?);
        let r = a.inner.delete_group_offsets(g, &ps, &opts_of(options)?)?;
        store(out, part_results(&r, |(), _| {}));
        Ok(())
    })
}
