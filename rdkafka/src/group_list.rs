//! The group list of `rd_kafka_list_groups`: `struct rd_kafka_group_list`
//! of rdkafka.h with its `rd_kafka_group_info` and
//! `rd_kafka_group_member_info` entries, public structs of rdkafka.h's
//! exact layout that the application only reads and gives back to
//! `rd_kafka_group_list_destroy`.
//!
//! A list is one Rust allocation (`Owner`) that starts with the C struct
//! and keeps every array and string the structs point into, so destroying
//! it is dropping that allocation. `new_group_list` builds one from
//! gregor's group descriptions (`GroupInfo::from_description`) for
//! `rd_kafka_list_groups`.

#![allow(unsafe_code)] // `#[no_mangle]`, and taking back the caller's list

use std::ffi::{c_char, c_int, c_void, CString};
use std::ptr;

use std::time::{Duration, Instant};

use gregor::admin::groups::GroupDescription;
use gregor::admin::{AdminClient, AdminOptions};
use gregor::error::{local, Error};

use crate::guard::guard;
use crate::handle::Handle;
use crate::raw;

/// `struct rd_kafka_metadata_broker`, as a group's coordinator.
#[repr(C)]
#[derive(Debug)]
pub struct MetadataBroker {
    /// The broker's id.
    pub id: i32,
    /// Its host name.
    pub host: *mut c_char,
    /// Its port.
    pub port: c_int,
}

/// `struct rd_kafka_group_member_info`.
#[repr(C)]
#[derive(Debug)]
pub struct GroupMemberInfo {
    /// The member id.
    pub member_id: *mut c_char,
    /// The member's client id.
    pub client_id: *mut c_char,
    /// The member's host.
    pub client_host: *mut c_char,
    /// The member's metadata (the group protocol's bytes).
    pub member_metadata: *mut c_void,
    /// Its size.
    pub member_metadata_size: c_int,
    /// The member's assignment (the group protocol's bytes).
    pub member_assignment: *mut c_void,
    /// Its size.
    pub member_assignment_size: c_int,
}

/// `struct rd_kafka_group_info`.
#[repr(C)]
#[derive(Debug)]
pub struct GroupInfoC {
    /// The group's coordinator.
    pub broker: MetadataBroker,
    /// The group id.
    pub group: *mut c_char,
    /// The group's error (`rd_kafka_resp_err_t`).
    pub err: c_int,
    /// The group's state.
    pub state: *mut c_char,
    /// The protocol type.
    pub protocol_type: *mut c_char,
    /// The protocol.
    pub protocol: *mut c_char,
    /// The members.
    pub members: *mut GroupMemberInfo,
    /// How many.
    pub member_cnt: c_int,
}

/// `struct rd_kafka_group_list`.
#[repr(C)]
#[derive(Debug)]
pub struct GroupList {
    /// The groups.
    pub groups: *mut GroupInfoC,
    /// How many.
    pub group_cnt: c_int,
}

/// One member, in Rust terms.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct GroupMember {
    pub(crate) member_id: String,
    pub(crate) client_id: String,
    pub(crate) client_host: String,
    pub(crate) metadata: Vec<u8>,
    pub(crate) assignment: Vec<u8>,
}

/// One group, in Rust terms.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct GroupInfo {
    pub(crate) broker_id: i32,
    pub(crate) broker_host: String,
    pub(crate) broker_port: i32,
    pub(crate) group: String,
    pub(crate) err: c_int,
    pub(crate) state: String,
    pub(crate) protocol_type: String,
    pub(crate) protocol: String,
    pub(crate) members: Vec<GroupMember>,
}

impl GroupInfo {
    /// A group as its coordinator described it.
    pub(crate) fn from_description(d: &GroupDescription) -> Self {
        GroupInfo {
            broker_id: d.coordinator.id,
            broker_host: d.coordinator.host.clone(),
            broker_port: d.coordinator.port,
            group: d.group_id.clone(),
            err: 0,
            state: d.state.clone(),
            protocol_type: d.protocol_type.clone(),
            protocol: d.protocol.clone(),
            members: d
                .members
                .iter()
                .map(|m| GroupMember {
                    member_id: m.member_id.clone(),
                    client_id: m.client_id.clone(),
                    client_host: m.client_host.clone(),
                    metadata: m.metadata.clone(),
                    assignment: m.assignment_bytes.clone(),
                })
                .collect(),
        }
    }

    /// A group that could not be described: its id and error, the
    /// coordinator unknown (-1).
    pub(crate) fn failed(group: &str, error: &Error) -> Self {
        GroupInfo {
            broker_id: -1,
            group: group.to_string(),
            err: error.code(),
            ..GroupInfo::default()
        }
    }
}

/// The allocation behind a `struct rd_kafka_group_list *`: the C struct
/// first (so the pointer is the owner's), then what it points into.
#[repr(C)]
#[derive(Debug)]
struct Owner {
    list: GroupList,
    groups: Vec<GroupInfoC>,
    members: Vec<Vec<GroupMemberInfo>>,
    strings: Vec<CString>,
    blobs: Vec<Vec<u8>>,
}

impl Owner {
    /// A string's copy, kept here (up to an interior NUL).
    fn string(&mut self, s: &str) -> *mut c_char {
        let bytes = s.as_bytes();
        let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
        let c = CString::new(&bytes[..end]).expect("no NUL before the end");
        let p = c.as_ptr().cast_mut();
        self.strings.push(c);
        p
    }

    /// A byte string's copy, kept here; NULL and 0 for none.
    fn blob(&mut self, b: &[u8]) -> (*mut c_void, c_int) {
        if b.is_empty() {
            return (ptr::null_mut(), 0);
        }
        let mut v = b.to_vec();
        let p = v.as_mut_ptr().cast();
        self.blobs.push(v);
        (p, c_int::try_from(b.len()).unwrap_or(c_int::MAX))
    }
}

/// A new group list of `groups`, for the application to give to
/// `rd_kafka_group_list_destroy`.
pub(crate) fn new_group_list(groups: &[GroupInfo]) -> *const GroupList {
    let mut o = Owner {
        list: GroupList {
            groups: ptr::null_mut(),
            group_cnt: 0,
        },
        groups: Vec::with_capacity(groups.len()),
        members: Vec::with_capacity(groups.len()),
        strings: Vec::new(),
        blobs: Vec::new(),
    };
    for g in groups {
        let mut members = Vec::with_capacity(g.members.len());
        for m in &g.members {
            let (member_metadata, member_metadata_size) = o.blob(&m.metadata);
            let (member_assignment, member_assignment_size) = o.blob(&m.assignment);
            members.push(GroupMemberInfo {
                member_id: o.string(&m.member_id),
                client_id: o.string(&m.client_id),
                client_host: o.string(&m.client_host),
                member_metadata,
                member_metadata_size,
                member_assignment,
                member_assignment_size,
            });
        }
        let info = GroupInfoC {
            broker: MetadataBroker {
                id: g.broker_id,
                host: o.string(&g.broker_host),
                port: g.broker_port,
            },
            group: o.string(&g.group),
            err: g.err,
            state: o.string(&g.state),
            protocol_type: o.string(&g.protocol_type),
            protocol: o.string(&g.protocol),
            // NULL for no members, as librdkafka's
            members: match members.is_empty() {
                true => ptr::null_mut(),
                false => members.as_mut_ptr(),
            },
            member_cnt: c_int::try_from(members.len()).unwrap_or(c_int::MAX),
        };
        // the members' array moves into `o.members` without reallocating,
        // so `info.members` stays valid
        o.members.push(members);
        o.groups.push(info);
    }
    o.list.groups = o.groups.as_mut_ptr();
    o.list.group_cnt = c_int::try_from(o.groups.len()).unwrap_or(c_int::MAX);
    Box::into_raw(Box::new(o)).cast_const().cast()
}

/// `RD_KAFKA_RESP_ERR__TIMED_OUT`.
const RESP_ERR__TIMED_OUT: c_int = -185;
/// `RD_KAFKA_RESP_ERR__PARTIAL`.
const RESP_ERR__PARTIAL: c_int = -158;
/// `RD_KAFKA_RESP_ERR__INVALID_ARG`.
const RESP_ERR__INVALID_ARG: c_int = -186;

/// The groups of the cluster, or only `group` when not NULL, described
/// by their coordinators (`rd_kafka_list_groups`), within `timeout_ms`.
/// On success `*grplistp` is a list the caller owns, freed with
/// `rd_kafka_group_list_destroy`. As librdkafka's: `_TIMED_OUT` when no
/// broker answered in time, `_PARTIAL` (with the list) when some brokers
/// could not be asked or answered with an error but groups were listed,
/// the broker's error when none was listed.
#[no_mangle]
pub extern "C" fn rd_kafka_list_groups(
    rk: *mut Handle,
    group: *const c_char,
    grplistp: *mut *const GroupList,
    timeout_ms: c_int,
) -> c_int {
    guard(RESP_ERR__INVALID_ARG, || {
        let Some(h) = raw::object(rk) else {
            return RESP_ERR__INVALID_ARG;
        };
        if grplistp.is_null() {
            return RESP_ERR__INVALID_ARG;
        }
        let client = match h.admin().client(h) {
            Ok(c) => c,
            Err(e) => return e.code(),
        };
        // a negative timeout waits as long as librdkafka's "infinite"
        let wait = u64::try_from(timeout_ms).unwrap_or(u64::from(u32::MAX));
        let deadline = Instant::now() + Duration::from_millis(wait);
        let group = raw::read_cstr(group).map(|g| g.into_owned());
        // librdkafka waits for the cluster's broker list until the
        // timeout: no broker reachable yet is tried again until then
        let (groups, errors) = loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match describe_all(&client, group.as_deref(), left) {
                Err(e) if unreachable(&e) && !left.is_zero() => {
                    std::thread::sleep(left.min(RETRY_WAIT));
                }
                Err(e) => return unreachable_is_timeout(&e),
                Ok(r) => break r,
            }
        };
        let err = match errors.first() {
            Some(_) if !groups.is_empty() => RESP_ERR__PARTIAL,
            Some((_, e)) => return unreachable_is_timeout(e),
            None => 0,
        };
        raw::write_out(grplistp, new_group_list(&groups));
        err
    })
}

/// How long `rd_kafka_list_groups` waits before asking again when no
/// broker could be reached.
const RETRY_WAIT: Duration = Duration::from_millis(100);

/// The brokers that could not list their groups, with why.
type BrokerErrors = Vec<(i32, Error)>;

/// The groups of the cluster (or `group` alone) described within `left`,
/// and the brokers that could not list theirs.
fn describe_all(
    client: &AdminClient,
    group: Option<&str>,
    left: Duration,
) -> Result<(Vec<GroupInfo>, BrokerErrors), Error> {
    let opts = AdminOptions::with_timeout(left);
    let (ids, errors) = match group {
        Some(g) => (vec![g.to_string()], Vec::new()),
        None => {
            let l = client.list_groups(&[], &[], &opts)?;
            (l.groups.into_iter().map(|g| g.group_id).collect(), l.errors)
        }
    };
    if ids.is_empty() {
        return Ok((Vec::new(), errors));
    }
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let groups = client
        .describe_groups(&refs, false, &opts)?
        .iter()
        .map(|(id, d)| match d {
            Ok(d) => GroupInfo::from_description(d),
            Err(e) => GroupInfo::failed(id, e),
        })
        .collect();
    Ok((groups, errors))
}

/// Whether an error means no broker could be reached (yet), or none
/// answered in the time given.
fn unreachable(e: &Error) -> bool {
    matches!(
        e,
        Error::Local { code, .. }
            if [local::ALL_BROKERS_DOWN, local::TRANSPORT, local::TIMED_OUT].contains(code)
    )
}

/// A listing's error as librdkafka's code: no broker reachable within the
/// timeout is `_TIMED_OUT` (librdkafka waits for a broker list that long).
fn unreachable_is_timeout(e: &Error) -> c_int {
    if unreachable(e) {
        RESP_ERR__TIMED_OUT
    } else {
        e.code()
    }
}

/// `rd_kafka_group_list_destroy`; NULL is nothing.
#[no_mangle]
pub extern "C" fn rd_kafka_group_list_destroy(grplist: *const GroupList) {
    guard((), || take_back(grplist))
}

fn take_back(grplist: *const GroupList) {
    if grplist.is_null() {
        return;
    }
    // SAFETY: rdkafka.h: the list given back is one `rd_kafka_list_groups`
    // answered (made by `new_group_list`: the `Owner` it starts), given back
    // once.
    drop(unsafe { Box::from_raw(grplist.cast_mut().cast::<Owner>()) });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    fn s(p: *const c_char) -> String {
        // SAFETY: a string of the list, alive until the list is destroyed.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layouts_are_rdkafka_h_s() {
        use std::mem::{offset_of, size_of};
        assert_eq!(size_of::<MetadataBroker>(), 24);
        assert_eq!(size_of::<GroupMemberInfo>(), 56);
        assert_eq!(offset_of!(GroupMemberInfo, member_assignment), 40);
        assert_eq!(size_of::<GroupInfoC>(), 80);
        assert_eq!(offset_of!(GroupInfoC, err), 32);
        assert_eq!(offset_of!(GroupInfoC, member_cnt), 72);
        assert_eq!(size_of::<GroupList>(), 16);
    }

    #[test]
    fn builds_and_destroys() {
        let groups = vec![
            GroupInfo {
                broker_id: 1,
                broker_host: "h".into(),
                broker_port: 9092,
                group: "g".into(),
                state: "Stable".into(),
                protocol_type: "consumer".into(),
                protocol: "range".into(),
                members: vec![
                    GroupMember {
                        member_id: "m1".into(),
                        metadata: vec![1, 2, 3],
                        ..GroupMember::default()
                    },
                    GroupMember::default(),
                ],
                ..GroupInfo::default()
            },
            GroupInfo::failed("bad", &Error::local(-185, "timed out")),
        ];
        let p = new_group_list(&groups);
        // SAFETY: just made; destroyed below.
        let list = unsafe { &*p };
        assert_eq!(list.group_cnt, 2);
        // SAFETY: `group_cnt` entries.
        let gs = unsafe { std::slice::from_raw_parts(list.groups, 2) };
        assert_eq!(
            (gs[0].broker.id, s(gs[0].broker.host), gs[0].broker.port),
            (1, "h".into(), 9092)
        );
        assert_eq!(
            (s(gs[0].group), s(gs[0].state), s(gs[0].protocol)),
            ("g".into(), "Stable".into(), "range".into())
        );
        assert_eq!(gs[0].member_cnt, 2);
        // SAFETY: `member_cnt` entries.
        let ms = unsafe { std::slice::from_raw_parts(gs[0].members, 2) };
        assert_eq!(s(ms[0].member_id), "m1");
        assert_eq!(ms[0].member_metadata_size, 3);
        assert!(ms[1].member_metadata.is_null());
        assert_eq!(
            (s(gs[1].group), gs[1].err, gs[1].broker.id),
            ("bad".into(), -185, -1)
        );
        rd_kafka_group_list_destroy(p);
        rd_kafka_group_list_destroy(ptr::null());
        rd_kafka_group_list_destroy(new_group_list(&[]));
    }
}
