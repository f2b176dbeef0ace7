//! The admin client's acls calls and their result objects.

use super::*;

impl_items!(
    gregor_acl_bindings: CAcl,
    gregor_delete_acls_results: DelItem,
);
impl_errs!(
    gregor_acl_bindings: |x| &x.err,
    gregor_delete_acls_results: |x| &x.err,
);

// ----- ACLs -----

/// One ACL binding (to create).
pub struct gregor_acl_binding {
    inner: AclBinding,
}

/// A filter over ACLs (to describe or delete).
pub struct gregor_acl_filter {
    inner: AclBindingFilter,
}

/// A binding: `resource_type` (`GREGOR_RESOURCE_*`), `resource_name`,
/// `pattern_type` (`GREGOR_PATTERN_LITERAL` or `_PREFIXED`), `principal`
/// ("User:alice"), `host` ("*" for any), `operation`
/// (`GREGOR_ACL_OPERATION_*`), `permission_type` (`GREGOR_ACL_PERMISSION_*`).
/// Strings are copied. NULL on a NULL string or an out-of-range number,
/// with the reason in `errstr`. Caller owns it: free with `gregor_acl_binding_free`.
#[no_mangle]
pub extern "C" fn gregor_acl_binding_new(
    resource_type: c_int,
    resource_name: *const c_char,
    pattern_type: c_int,
    principal: *const c_char,
    host: *const c_char,
    operation: c_int,
    permission_type: c_int,
    errstr: *mut c_char,
    errstr_size: usize,
) -> *mut gregor_acl_binding {
    let mut out = ptr::null_mut();
    guard_code(errstr, errstr_size, || {
        let b = AclBinding {
            resource_type: ResourceType(i8_of(resource_type, "resource_type")?),
            resource_name: c_str(resource_name, "resource_name")?.to_string(),
            pattern_type: PatternType(i8_of(pattern_type, "pattern_type")?),
            principal: c_str(principal, "principal")?.to_string(),
            host: c_str(host, "host")?.to_string(),
            operation: AclOperation(i8_of(operation, "operation")?),
            permission_type: AclPermissionType(i8_of(permission_type, "permission_type")?),
        };
        out = Box::into_raw(Box::new(gregor_acl_binding { inner: b }));
        Ok(())
    });
    out
}

/// Frees a binding. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_acl_binding_free(b: *mut gregor_acl_binding) {
    guard((), || free(b))
}

/// A filter; the ANY values (`GREGOR_RESOURCE_ANY`, `GREGOR_PATTERN_ANY`
/// or `_MATCH`, `GREGOR_ACL_OPERATION_ANY`, `GREGOR_ACL_PERMISSION_ANY`)
/// and NULL strings match everything. As `gregor_acl_binding_new`
/// otherwise; free with `gregor_acl_filter_free`.
#[no_mangle]
pub extern "C" fn gregor_acl_filter_new(
    resource_type: c_int,
    resource_name: *const c_char,
    pattern_type: c_int,
    principal: *const c_char,
    host: *const c_char,
    operation: c_int,
    permission_type: c_int,
    errstr: *mut c_char,
    errstr_size: usize,
) -> *mut gregor_acl_filter {
    let mut out = ptr::null_mut();
    guard_code(errstr, errstr_size, || {
        let f = AclBindingFilter {
            resource_type: ResourceType(i8_of(resource_type, "resource_type")?),
            resource_name: opt_str(resource_name, "resource_name")?,
            pattern_type: PatternType(i8_of(pattern_type, "pattern_type")?),
            principal: opt_str(principal, "principal")?,
            host: opt_str(host, "host")?,
            operation: AclOperation(i8_of(operation, "operation")?),
            permission_type: AclPermissionType(i8_of(permission_type, "permission_type")?),
        };
        out = Box::into_raw(Box::new(gregor_acl_filter { inner: f }));
        Ok(())
    });
    out
}

/// Frees a filter. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_acl_filter_free(f: *mut gregor_acl_filter) {
    guard((), || free(f))
}

pub(crate) struct CAcl {
    resource_type: c_int,
    resource_name: CString,
    pattern_type: c_int,
    principal: CString,
    host: CString,
    operation: c_int,
    permission_type: c_int,
    err: CErr,
}

/// A list of ACL bindings, each with an error code (0 for described ACLs;
/// the outcome for created or deleted ones). Immutable.
pub struct gregor_acl_bindings {
    items: Vec<CAcl>,
}

fn cacl(b: &AclBinding, err: CErr) -> CAcl {
    CAcl {
        resource_type: c_int::from(b.resource_type.0),
        resource_name: cs(&b.resource_name),
        pattern_type: c_int::from(b.pattern_type.0),
        principal: cs(&b.principal),
        host: cs(&b.host),
        operation: c_int::from(b.operation.0),
        permission_type: c_int::from(b.permission_type.0),
        err,
    }
}

/// The ACLs matching `filter` (borrowed). On success `*out` receives them
/// (caller owns; free with `gregor_acl_bindings_free`). The broker's error
/// for the request (e.g. `GREGOR_ERR_SECURITY_DISABLED`) is the return
/// code. Blocks. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_describe_acls(
    admin: *const gregor_admin,
    filter: *const gregor_acl_filter,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_acl_bindings,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let f = handle(filter, "filter")?;
        let r = a.inner.describe_acls(&f.inner, &opts_of(options)?)?;
        store(
            out,
            gregor_acl_bindings {
                items: r.iter().map(|b| cacl(b, cerr_of(None))).collect(),
            },
        );
        Ok(())
    })
}

/// Creates `count` ACLs (borrowed handles). On success `*out` receives the
/// bindings in order, each with its outcome (caller owns; free with
/// `gregor_acl_bindings_free`). Blocks. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_create_acls(
    admin: *const gregor_admin,
    bindings: *const *const gregor_acl_binding,
    count: usize,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_acl_bindings,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let bs: Vec<AclBinding> = handles(bindings, count, "bindings")?
            .into_iter()
            .map(|b| b.inner.clone())
            .collect();
        let r = a.inner.create_acls(&bs, &opts_of(options)?)?;
        store(
            out,
            gregor_acl_bindings {
                items: bs.iter().zip(&r).map(|(b, x)| cacl(b, cerr(x))).collect(),
            },
        );
        Ok(())
    })
}

/// Number of bindings (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_acl_bindings_count(b: *const gregor_acl_bindings) -> usize {
    count(b)
}

/// Binding `i`'s resource type (`GREGOR_RESOURCE_*`).
#[no_mangle]
pub extern "C" fn gregor_acl_bindings_resource_type(
    b: *const gregor_acl_bindings,
    i: usize,
) -> c_int {
    item(b, i, -1, |x| x.resource_type)
}

/// Binding `i`'s resource name.
#[no_mangle]
pub extern "C" fn gregor_acl_bindings_resource_name(
    b: *const gregor_acl_bindings,
    i: usize,
) -> *const c_char {
    item(b, i, ptr::null(), |x| x.resource_name.as_ptr())
}

/// Binding `i`'s pattern type (`GREGOR_PATTERN_*`).
#[no_mangle]
pub extern "C" fn gregor_acl_bindings_pattern_type(
    b: *const gregor_acl_bindings,
    i: usize,
) -> c_int {
    item(b, i, -1, |x| x.pattern_type)
}

/// Binding `i`'s principal.
#[no_mangle]
pub extern "C" fn gregor_acl_bindings_principal(
    b: *const gregor_acl_bindings,
    i: usize,
) -> *const c_char {
    item(b, i, ptr::null(), |x| x.principal.as_ptr())
}

/// Binding `i`'s host.
#[no_mangle]
pub extern "C" fn gregor_acl_bindings_host(
    b: *const gregor_acl_bindings,
    i: usize,
) -> *const c_char {
    item(b, i, ptr::null(), |x| x.host.as_ptr())
}

/// Binding `i`'s operation (`GREGOR_ACL_OPERATION_*`).
#[no_mangle]
pub extern "C" fn gregor_acl_bindings_operation(b: *const gregor_acl_bindings, i: usize) -> c_int {
    item(b, i, -1, |x| x.operation)
}

/// Binding `i`'s permission (`GREGOR_ACL_PERMISSION_*`).
#[no_mangle]
pub extern "C" fn gregor_acl_bindings_permission_type(
    b: *const gregor_acl_bindings,
    i: usize,
) -> c_int {
    item(b, i, -1, |x| x.permission_type)
}

/// Binding `i`'s error code (0: described, created or deleted).
#[no_mangle]
pub extern "C" fn gregor_acl_bindings_err(b: *const gregor_acl_bindings, i: usize) -> c_int {
    item_err(b, i)
}

/// Binding `i`'s error text ("" on success).
#[no_mangle]
pub extern "C" fn gregor_acl_bindings_errstr(
    b: *const gregor_acl_bindings,
    i: usize,
) -> *const c_char {
    item_errstr(b, i)
}

/// Frees bindings. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_acl_bindings_free(b: *mut gregor_acl_bindings) {
    guard((), || free(b))
}

pub(crate) struct DelItem {
    err: CErr,
    matches: gregor_acl_bindings,
}

/// Per-filter results of deleting ACLs. Immutable.
pub struct gregor_delete_acls_results {
    items: Vec<DelItem>,
}

/// Deletes the ACLs matching each of `count` filters (borrowed handles). On
/// success `*out` receives one result per filter (caller owns; free with
/// `gregor_delete_acls_results_free`). Blocks. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_delete_acls(
    admin: *const gregor_admin,
    filters: *const *const gregor_acl_filter,
    count: usize,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_delete_acls_results,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let fs: Vec<AclBindingFilter> = handles(filters, count, "filters")?
            .into_iter()
            .map(|f| f.inner.clone())
            .collect();
        let r = a.inner.delete_acls(&fs, &opts_of(options)?)?;
        store(
            out,
            gregor_delete_acls_results {
                items: r
                    .iter()
                    .map(|x| DelItem {
                        err: cerr(&x.result),
                        matches: gregor_acl_bindings {
                            items: x.result.as_ref().map_or(Vec::new(), |m| {
                                m.iter().map(|(b, r)| cacl(b, cerr(r))).collect()
                            }),
                        },
                    })
                    .collect(),
            },
        );
        Ok(())
    })
}

/// Number of filters (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_delete_acls_results_count(r: *const gregor_delete_acls_results) -> usize {
    count(r)
}

/// Filter `i`'s error code.
#[no_mangle]
pub extern "C" fn gregor_delete_acls_results_err(
    r: *const gregor_delete_acls_results,
    i: usize,
) -> c_int {
    item_err(r, i)
}

/// Filter `i`'s error text ("" on success).
#[no_mangle]
pub extern "C" fn gregor_delete_acls_results_errstr(
    r: *const gregor_delete_acls_results,
    i: usize,
) -> *const c_char {
    item_errstr(r, i)
}

/// The ACLs filter `i` matched, each with the outcome of its deletion.
/// Borrowed: valid until `r` is freed; never free it. NULL if out of range.
#[no_mangle]
pub extern "C" fn gregor_delete_acls_results_matches(
    r: *const gregor_delete_acls_results,
    i: usize,
) -> *const gregor_acl_bindings {
    item(r, i, ptr::null(), |x| ptr::from_ref(&x.matches))
}

/// Frees delete results (and the bindings they lend). NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_delete_acls_results_free(r: *mut gregor_delete_acls_results) {
    guard((), || free(r))
}
