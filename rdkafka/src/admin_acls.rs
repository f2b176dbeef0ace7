//! ACLs through rdkafka.h's Admin API (KIP-140, with KIP-290's pattern
//! types): `rd_kafka_AclBinding_t` (also `rd_kafka_AclBindingFilter_t`),
//! `rd_kafka_CreateAcls`, `rd_kafka_DescribeAcls`, `rd_kafka_DeleteAcls`
//! and their results, on gregor's admin client; and the names of the
//! enumerations they use (`rd_kafka_ResourceType_name`, …).
//!
//! librdkafka's resource types, pattern types, operations and permission
//! types have the protocol's values, so they pass through unchanged. As
//! librdkafka's, a binding must name its resource, principal and host and
//! use no ANY or MATCH value (those are for filters), and a filter may
//! leave its strings NULL (any) but no value may be UNKNOWN or beyond
//! librdkafka's last.

#![allow(unsafe_code)] // `#[no_mangle]`

use std::ffi::{c_char, c_int, CStr, CString};
use std::ptr;

use gregor::admin::acls::{AclBinding as GregorBinding, AclBindingFilter, DeleteAclsResult};
use gregor::admin::{AclOperation, AclPermissionType, PatternType, ResourceType};
use gregor::error::Error;

use crate::admin::{submit_event, AdminOptions};
use crate::admin_configs::entity_text;
use crate::error_object::ErrorObject;
use crate::event::{as_result, Event, Listed};
use crate::guard::guard;
use crate::handle::Handle;
use crate::queue::Queue;
use crate::raw;

/// `RD_KAFKA_EVENT_CREATEACLS_RESULT`.
const EVENT_CREATEACLS_RESULT: c_int = 0x400;
/// `RD_KAFKA_EVENT_DESCRIBEACLS_RESULT`.
const EVENT_DESCRIBEACLS_RESULT: c_int = 0x800;
/// `RD_KAFKA_EVENT_DELETEACLS_RESULT`.
const EVENT_DELETEACLS_RESULT: c_int = 0x1000;

/// librdkafka's names of `rd_kafka_ResourceType_t`, by value.
const RESOURCE_TYPES: &[&CStr] = &[
    c"UNKNOWN",
    c"ANY",
    c"TOPIC",
    c"GROUP",
    c"BROKER",
    c"TRANSACTIONAL_ID",
];
/// librdkafka's names of `rd_kafka_ResourcePatternType_t`.
const PATTERN_TYPES: &[&CStr] = &[c"UNKNOWN", c"ANY", c"MATCH", c"LITERAL", c"PREFIXED"];
/// librdkafka's names of `rd_kafka_AclOperation_t`.
const OPERATIONS: &[&CStr] = &[
    c"UNKNOWN",
    c"ANY",
    c"ALL",
    c"READ",
    c"WRITE",
    c"CREATE",
    c"DELETE",
    c"ALTER",
    c"DESCRIBE",
    c"CLUSTER_ACTION",
    c"DESCRIBE_CONFIGS",
    c"ALTER_CONFIGS",
    c"IDEMPOTENT_WRITE",
];
/// librdkafka's names of `rd_kafka_AclPermissionType_t`.
const PERMISSION_TYPES: &[&CStr] = &[c"UNKNOWN", c"ANY", c"DENY", c"ALLOW"];

/// A value's name in `names`, "UNSUPPORTED" beyond them (librdkafka's).
fn name_of(names: &[&'static CStr], v: c_int) -> *const c_char {
    usize::try_from(v)
        .ok()
        .and_then(|i| names.get(i))
        .map_or(c"UNSUPPORTED".as_ptr(), |n| n.as_ptr())
}

/// `rd_kafka_ResourceType_name`; static.
#[no_mangle]
pub extern "C" fn rd_kafka_ResourceType_name(restype: c_int) -> *const c_char {
    guard(ptr::null(), || name_of(RESOURCE_TYPES, restype))
}

/// `rd_kafka_ResourcePatternType_name`; static.
#[no_mangle]
pub extern "C" fn rd_kafka_ResourcePatternType_name(resource_pattern_type: c_int) -> *const c_char {
    guard(ptr::null(), || {
        name_of(PATTERN_TYPES, resource_pattern_type)
    })
}

/// `rd_kafka_AclOperation_name`; static.
#[no_mangle]
pub extern "C" fn rd_kafka_AclOperation_name(operation: c_int) -> *const c_char {
    guard(ptr::null(), || name_of(OPERATIONS, operation))
}

/// `rd_kafka_AclPermissionType_name`; static.
#[no_mangle]
pub extern "C" fn rd_kafka_AclPermissionType_name(permission_type: c_int) -> *const c_char {
    guard(ptr::null(), || name_of(PERMISSION_TYPES, permission_type))
}

/// `rd_kafka_AclBinding_t` and `rd_kafka_AclBindingFilter_t`: a binding
/// the application made, or one of a result (with its error, for
/// DeleteAcls' matches).
#[derive(Debug)]
pub struct AclBinding {
    restype: c_int,
    name: Option<CString>,
    pattern: c_int,
    principal: Option<CString>,
    host: Option<CString>,
    operation: c_int,
    permission: c_int,
    error: Option<ErrorObject>,
}

fn text(s: &Option<CString>) -> Option<String> {
    s.as_ref().map(|c| c.to_string_lossy().into_owned())
}

/// The protocol's 8-bit value of a checked enumeration value.
fn wire(v: c_int) -> i8 {
    i8::try_from(v).unwrap_or(0)
}

impl AclBinding {
    /// A result's binding from gregor's, with its error if any.
    fn of(b: &GregorBinding, error: Option<&Error>) -> Self {
        AclBinding {
            restype: c_int::from(b.resource_type.0),
            name: Some(raw::c_string(&b.resource_name)),
            pattern: c_int::from(b.pattern_type.0),
            principal: Some(raw::c_string(&b.principal)),
            host: Some(raw::c_string(&b.host)),
            operation: c_int::from(b.operation.0),
            permission: c_int::from(b.permission_type.0),
            error: error.map(|e| ErrorObject::held(e.code(), &entity_text(e, &format!("ACL {b}")))),
        }
    }

    fn to_binding(&self) -> GregorBinding {
        GregorBinding {
            resource_type: ResourceType(wire(self.restype)),
            resource_name: text(&self.name).unwrap_or_default(),
            pattern_type: PatternType(wire(self.pattern)),
            principal: text(&self.principal).unwrap_or_default(),
            host: text(&self.host).unwrap_or_default(),
            operation: AclOperation(wire(self.operation)),
            permission_type: AclPermissionType(wire(self.permission)),
        }
    }

    fn to_filter(&self) -> AclBindingFilter {
        AclBindingFilter {
            resource_type: ResourceType(wire(self.restype)),
            resource_name: text(&self.name),
            pattern_type: PatternType(wire(self.pattern)),
            principal: text(&self.principal),
            host: text(&self.host),
            operation: AclOperation(wire(self.operation)),
            permission_type: AclPermissionType(wire(self.permission)),
        }
    }
}

/// The arguments of `_new`, checked by librdkafka's rules for a binding
/// (`filter` false) or a filter; the reason for a refusal.
#[allow(clippy::too_many_arguments)]
fn checked(
    filter: bool,
    restype: c_int,
    name: *const c_char,
    pattern: c_int,
    principal: *const c_char,
    host: *const c_char,
    operation: c_int,
    permission: c_int,
) -> Result<AclBinding, &'static str> {
    let s = |p| raw::read_cstr(p).map(|t| raw::c_string(&t));
    let (name, principal, host) = (s(name), s(principal), s(host));
    if !filter {
        if name.is_none() {
            return Err("Invalid resource name");
        }
        if principal.is_none() {
            return Err("Invalid principal");
        }
        if host.is_none() {
            return Err("Invalid host");
        }
    }
    // a value must be known (not UNKNOWN, 0, nor beyond the last); a
    // binding may not use the filters' ANY (1) or pattern MATCH (2)
    let valid = |v: c_int, names: &[&CStr], wildcards: c_int| {
        v > 0 && usize::try_from(v).is_ok_and(|i| i < names.len()) && (filter || v > wildcards)
    };
    if !valid(restype, RESOURCE_TYPES, 1) {
        return Err("Invalid resource type");
    }
    if !valid(pattern, PATTERN_TYPES, 2) {
        return Err("Invalid resource pattern type");
    }
    if !valid(operation, OPERATIONS, 1) {
        return Err("Invalid operation");
    }
    if !valid(permission, PERMISSION_TYPES, 1) {
        return Err("Invalid permission type");
    }
    Ok(AclBinding {
        restype,
        name,
        pattern,
        principal,
        host,
        operation,
        permission,
        error: None,
    })
}

/// A new binding for CreateAcls (`rd_kafka_AclBinding_new`); NULL with the
/// reason in `errstr` for arguments librdkafka refuses. Caller owns, free
/// with `rd_kafka_AclBinding_destroy`.
#[no_mangle]
pub extern "C" fn rd_kafka_AclBinding_new(
    restype: c_int,
    name: *const c_char,
    resource_pattern_type: c_int,
    principal: *const c_char,
    host: *const c_char,
    operation: c_int,
    permission_type: c_int,
    errstr: *mut c_char,
    errstr_size: usize,
) -> *mut AclBinding {
    guard(ptr::null_mut(), || {
        boxed(
            checked(
                false,
                restype,
                name,
                resource_pattern_type,
                principal,
                host,
                operation,
                permission_type,
            ),
            errstr,
            errstr_size,
        )
    })
}

/// A new filter for DescribeAcls and DeleteAcls
/// (`rd_kafka_AclBindingFilter_new`): NULL strings match any, as do the
/// ANY values and pattern MATCH. NULL with the reason in `errstr` for
/// values librdkafka refuses. Caller owns, free with
/// `rd_kafka_AclBinding_destroy`.
#[no_mangle]
pub extern "C" fn rd_kafka_AclBindingFilter_new(
    restype: c_int,
    name: *const c_char,
    resource_pattern_type: c_int,
    principal: *const c_char,
    host: *const c_char,
    operation: c_int,
    permission_type: c_int,
    errstr: *mut c_char,
    errstr_size: usize,
) -> *mut AclBinding {
    guard(ptr::null_mut(), || {
        boxed(
            checked(
                true,
                restype,
                name,
                resource_pattern_type,
                principal,
                host,
                operation,
                permission_type,
            ),
            errstr,
            errstr_size,
        )
    })
}

/// A binding or filter for C, or NULL with the reason in `errstr`.
fn boxed(b: Result<AclBinding, &str>, errstr: *mut c_char, errstr_size: usize) -> *mut AclBinding {
    match b {
        Ok(b) => Box::into_raw(Box::new(b)),
        Err(why) => {
            raw::write_errstr(errstr, errstr_size, why);
            ptr::null_mut()
        }
    }
}

/// `rd_kafka_AclBinding_destroy` (bindings and filters).
#[no_mangle]
pub extern "C" fn rd_kafka_AclBinding_destroy(acl_binding: *mut AclBinding) {
    guard((), || drop(raw::take_box(acl_binding)));
}

/// `rd_kafka_AclBinding_destroy_array`: destroys each of the `cnt`.
#[no_mangle]
pub extern "C" fn rd_kafka_AclBinding_destroy_array(
    acl_bindings: *mut *mut AclBinding,
    acl_bindings_cnt: usize,
) {
    guard((), || {
        for &b in raw::read_array(acl_bindings, acl_bindings_cnt) {
            drop(raw::take_box(b));
        }
    });
}

fn read_int(acl: *const AclBinding, f: impl Fn(&AclBinding) -> c_int) -> c_int {
    guard(0, || raw::object(acl).map_or(0, f))
}

fn read_str(acl: *const AclBinding, f: impl Fn(&AclBinding) -> &Option<CString>) -> *const c_char {
    guard(ptr::null(), || {
        raw::object(acl)
            .and_then(|a| f(a).as_ref())
            .map_or(ptr::null(), |s| s.as_ptr())
    })
}

/// `rd_kafka_AclBinding_restype`.
#[no_mangle]
pub extern "C" fn rd_kafka_AclBinding_restype(acl: *const AclBinding) -> c_int {
    read_int(acl, |a| a.restype)
}

/// `rd_kafka_AclBinding_name`: borrowed; NULL for a filter's "any".
#[no_mangle]
pub extern "C" fn rd_kafka_AclBinding_name(acl: *const AclBinding) -> *const c_char {
    read_str(acl, |a| &a.name)
}

/// `rd_kafka_AclBinding_principal`: borrowed; NULL for a filter's "any".
#[no_mangle]
pub extern "C" fn rd_kafka_AclBinding_principal(acl: *const AclBinding) -> *const c_char {
    read_str(acl, |a| &a.principal)
}

/// `rd_kafka_AclBinding_host`: borrowed; NULL for a filter's "any".
#[no_mangle]
pub extern "C" fn rd_kafka_AclBinding_host(acl: *const AclBinding) -> *const c_char {
    read_str(acl, |a| &a.host)
}

/// `rd_kafka_AclBinding_operation`.
#[no_mangle]
pub extern "C" fn rd_kafka_AclBinding_operation(acl: *const AclBinding) -> c_int {
    read_int(acl, |a| a.operation)
}

/// `rd_kafka_AclBinding_permission_type`.
#[no_mangle]
pub extern "C" fn rd_kafka_AclBinding_permission_type(acl: *const AclBinding) -> c_int {
    read_int(acl, |a| a.permission)
}

/// `rd_kafka_AclBinding_resource_pattern_type`.
#[no_mangle]
pub extern "C" fn rd_kafka_AclBinding_resource_pattern_type(acl: *const AclBinding) -> c_int {
    read_int(acl, |a| a.pattern)
}

/// `rd_kafka_AclBinding_error`: a DeleteAcls match's error, borrowed;
/// NULL for none.
#[no_mangle]
pub extern "C" fn rd_kafka_AclBinding_error(acl: *const AclBinding) -> *const ErrorObject {
    guard(ptr::null(), || {
        raw::object(acl)
            .and_then(|a| a.error.as_ref())
            .map_or(ptr::null(), |e| e as *const ErrorObject)
    })
}

/// `rd_kafka_acl_result_t`: one created binding's outcome.
#[derive(Debug)]
pub struct AclResult {
    error: Option<ErrorObject>,
}

/// `rd_kafka_acl_result_error`: NULL on success, else the error, borrowed.
#[no_mangle]
pub extern "C" fn rd_kafka_acl_result_error(aclres: *const AclResult) -> *const ErrorObject {
    guard(ptr::null(), || {
        raw::object(aclres)
            .and_then(|r| r.error.as_ref())
            .map_or(ptr::null(), |e| e as *const ErrorObject)
    })
}

/// `rd_kafka_DeleteAcls_result_response_t`: one filter's outcome.
#[derive(Debug)]
pub struct DeleteAclsResponse {
    error: Option<ErrorObject>,
    matching: Listed<AclBinding>,
}

/// The bindings at `arr`, copied (NULL entries skipped).
fn bindings<T>(arr: *mut *mut AclBinding, cnt: usize, f: impl Fn(&AclBinding) -> T) -> Vec<T> {
    raw::read_array(arr, cnt)
        .iter()
        .filter_map(|&b| raw::object(b))
        .map(f)
        .collect()
}

/// Creates ACLs (`rd_kafka_CreateAcls`); the result, a
/// `RD_KAFKA_EVENT_CREATEACLS_RESULT` event on `rkqu`, has one
/// `rd_kafka_acl_result_t` per binding, in order.
#[no_mangle]
pub extern "C" fn rd_kafka_CreateAcls(
    rk: *mut Handle,
    new_acls: *mut *mut AclBinding,
    new_acls_cnt: usize,
    options: *const AdminOptions,
    rkqu: *mut Queue,
) {
    guard((), || {
        let acls = bindings(new_acls, new_acls_cnt, AclBinding::to_binding);
        submit_event(
            rk,
            options,
            rkqu,
            EVENT_CREATEACLS_RESULT,
            move |c, o, ev| {
                let rs = c.create_acls(&acls, o)?;
                let results = acls
                    .iter()
                    .zip(&rs)
                    .map(|(b, r)| AclResult {
                        error: r.as_ref().err().map(|e| {
                            ErrorObject::held(e.code(), &entity_text(e, &format!("ACL {b}")))
                        }),
                    })
                    .collect();
                Ok(ev.with_payload(Listed::new(results)))
            },
        );
    })
}

/// Lists the ACLs a filter matches (`rd_kafka_DescribeAcls`); the result
/// is a `RD_KAFKA_EVENT_DESCRIBEACLS_RESULT` event on `rkqu`, whose error
/// is the broker's for the request.
#[no_mangle]
pub extern "C" fn rd_kafka_DescribeAcls(
    rk: *mut Handle,
    acl_filter: *mut AclBinding,
    options: *const AdminOptions,
    rkqu: *mut Queue,
) {
    guard((), || {
        let filter =
            raw::object(acl_filter).map_or_else(AclBindingFilter::any, AclBinding::to_filter);
        submit_event(
            rk,
            options,
            rkqu,
            EVENT_DESCRIBEACLS_RESULT,
            move |c, o, ev| {
                let acls = c.describe_acls(&filter, o)?;
                let acls = acls.iter().map(|b| AclBinding::of(b, None)).collect();
                Ok(ev.with_payload(Listed::new(acls)))
            },
        );
    })
}

/// Deletes the ACLs filters match (`rd_kafka_DeleteAcls`); the result, a
/// `RD_KAFKA_EVENT_DELETEACLS_RESULT` event on `rkqu`, has one response
/// per filter, in order: its error, or the bindings it matched, each with
/// its own.
#[no_mangle]
pub extern "C" fn rd_kafka_DeleteAcls(
    rk: *mut Handle,
    del_acls: *mut *mut AclBinding,
    del_acls_cnt: usize,
    options: *const AdminOptions,
    rkqu: *mut Queue,
) {
    guard((), || {
        let filters = bindings(del_acls, del_acls_cnt, AclBinding::to_filter);
        submit_event(
            rk,
            options,
            rkqu,
            EVENT_DELETEACLS_RESULT,
            move |c, o, ev| {
                let rs = c.delete_acls(&filters, o)?;
                let responses = rs.iter().enumerate().map(delete_response).collect();
                Ok(ev.with_payload(Listed::new(responses)))
            },
        );
    })
}

fn delete_response((i, r): (usize, &DeleteAclsResult)) -> DeleteAclsResponse {
    // gregor's context of a filter's error is "ACL filter <its index>"
    let what = format!("ACL filter {i}");
    match &r.result {
        Ok(matched) => DeleteAclsResponse {
            error: None,
            matching: Listed::new(
                matched
                    .iter()
                    .map(|(b, res)| AclBinding::of(b, res.as_ref().err()))
                    .collect(),
            ),
        },
        Err(e) => DeleteAclsResponse {
            error: Some(ErrorObject::held(e.code(), &entity_text(e, &what))),
            matching: Listed::new(Vec::new()),
        },
    }
}

/// The event as a CreateAcls result, or NULL.
#[no_mangle]
pub extern "C" fn rd_kafka_event_CreateAcls_result(rkev: *mut Event) -> *const Event {
    as_result(rkev, EVENT_CREATEACLS_RESULT)
}

/// The event as a DescribeAcls result, or NULL.
#[no_mangle]
pub extern "C" fn rd_kafka_event_DescribeAcls_result(rkev: *mut Event) -> *const Event {
    as_result(rkev, EVENT_DESCRIBEACLS_RESULT)
}

/// The event as a DeleteAcls result, or NULL.
#[no_mangle]
pub extern "C" fn rd_kafka_event_DeleteAcls_result(rkev: *mut Event) -> *const Event {
    as_result(rkev, EVENT_DELETEACLS_RESULT)
}

/// `rd_kafka_CreateAcls_result_acls`: each binding's outcome, their count
/// in `*cntp`. Borrowed, valid while the event is.
#[no_mangle]
pub extern "C" fn rd_kafka_CreateAcls_result_acls(
    result: *const Event,
    cntp: *mut usize,
) -> *const *const AclResult {
    guard(ptr::null(), || {
        Event::listed::<AclResult>(result, EVENT_CREATEACLS_RESULT, cntp)
    })
}

/// `rd_kafka_DescribeAcls_result_acls`: the bindings found, their count in
/// `*cntp`. Borrowed.
#[no_mangle]
pub extern "C" fn rd_kafka_DescribeAcls_result_acls(
    result: *const Event,
    cntp: *mut usize,
) -> *const *const AclBinding {
    guard(ptr::null(), || {
        Event::listed::<AclBinding>(result, EVENT_DESCRIBEACLS_RESULT, cntp)
    })
}

/// `rd_kafka_DeleteAcls_result_responses`: one per filter, their count in
/// `*cntp`. Borrowed.
#[no_mangle]
pub extern "C" fn rd_kafka_DeleteAcls_result_responses(
    result: *const Event,
    cntp: *mut usize,
) -> *const *const DeleteAclsResponse {
    guard(ptr::null(), || {
        Event::listed::<DeleteAclsResponse>(result, EVENT_DELETEACLS_RESULT, cntp)
    })
}

/// `rd_kafka_DeleteAcls_result_response_error`: NULL, or the filter's
/// error, borrowed.
#[no_mangle]
pub extern "C" fn rd_kafka_DeleteAcls_result_response_error(
    result_response: *const DeleteAclsResponse,
) -> *const ErrorObject {
    guard(ptr::null(), || {
        raw::object(result_response)
            .and_then(|r| r.error.as_ref())
            .map_or(ptr::null(), |e| e as *const ErrorObject)
    })
}

/// `rd_kafka_DeleteAcls_result_response_matching_acls`: the bindings the
/// filter matched, their count in `*matching_acls_cntp`. Borrowed.
#[no_mangle]
pub extern "C" fn rd_kafka_DeleteAcls_result_response_matching_acls(
    result_response: *const DeleteAclsResponse,
    matching_acls_cntp: *mut usize,
) -> *const *const AclBinding {
    guard(ptr::null(), || match raw::object(result_response) {
        Some(r) => r.matching.array(matching_acls_cntp),
        None => {
            raw::write_out(matching_acls_cntp, 0);
            ptr::null()
        }
    })
}
