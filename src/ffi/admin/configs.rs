//! The admin client's configs calls and their result objects.

use super::*;

impl_items!(
    gregor_config_results: ResItem,
);
impl_errs!(
    gregor_config_results: |x| &x.err,
);

// ----- configs -----

/// A config resource, with the changes to make to it (for the alter calls).
pub struct gregor_config_resource {
    resource: ConfigResource,
    legacy: ConfigSet,
    ops: Vec<AlterConfigOp>,
}

/// A resource of `resource_type` (`GREGOR_CONFIG_RESOURCE_*`) named `name`
/// (copied; a broker's id for BROKER and BROKER_LOGGER). NULL if `name` is
/// NULL or the type out of range. Caller owns it: free with
/// `gregor_config_resource_free`.
#[no_mangle]
pub extern "C" fn gregor_config_resource_new(
    resource_type: c_int,
    name: *const c_char,
) -> *mut gregor_config_resource {
    guard(ptr::null_mut(), || {
        let (Ok(name), Ok(t)) = (c_str(name, "name"), i8_of(resource_type, "resource_type")) else {
            return ptr::null_mut();
        };
        Box::into_raw(Box::new(gregor_config_resource {
            resource: ConfigResource::new(ConfigResourceType(t), name),
            legacy: Vec::new(),
            ops: Vec::new(),
        }))
    })
}

/// For `gregor_admin_alter_configs` (legacy, whole set): sets `name` to
/// `value` (NULL: null). Copies both. Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_config_resource_set_config(
    res: *mut gregor_config_resource,
    name: *const c_char,
    value: *const c_char,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let r = handle_mut(res, "res")?;
        let n = c_str(name, "name")?.to_string();
        let v = if value.is_null() {
            None
        } else {
            Some(c_str(value, "value")?.to_string())
        };
        r.legacy.push((n, v));
        Ok(())
    })
}

/// For `gregor_admin_incremental_alter_configs`: adds the change `op`
/// (`GREGOR_ALTER_CONFIG_*`) of `name` with `value` (NULL for DELETE).
/// Copies both. Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_config_resource_add_incremental_config(
    res: *mut gregor_config_resource,
    name: *const c_char,
    op: c_int,
    value: *const c_char,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let r = handle_mut(res, "res")?;
        let n = c_str(name, "name")?;
        let op = AlterConfigOpType(i8_of(op, "op")?);
        if !op.is_known() {
            return Err(Error::invalid_arg(format!(
                "unknown config operation {}",
                op.0
            )));
        }
        let v = if value.is_null() {
            None
        } else {
            Some(c_str(value, "value")?.to_string())
        };
        if v.is_none() && op != AlterConfigOpType::DELETE {
            return Err(Error::invalid_arg(format!("{op} of {n} needs a value")));
        }
        r.ops.push(AlterConfigOp::new(n, op, v));
        Ok(())
    })
}

/// Frees a config resource. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_config_resource_free(res: *mut gregor_config_resource) {
    guard((), || free(res))
}

struct CSynonym {
    name: CString,
    value: Option<CString>,
    source: c_int,
}

struct CEntry {
    name: CString,
    value: Option<CString>,
    source: c_int,
    is_default: bool,
    is_read_only: bool,
    is_sensitive: bool,
    config_type: c_int,
    documentation: Option<CString>,
    synonyms: Vec<CSynonym>,
}

pub(crate) struct ResItem {
    resource_type: c_int,
    name: CString,
    err: CErr,
    entries: Vec<CEntry>,
}

/// Per-resource config results (entries only from describe). Immutable.
pub struct gregor_config_results {
    items: Vec<ResItem>,
}

fn config_results<T>(
    r: Vec<ConfigResourceResult<T>>,
    entries: impl Fn(&T) -> Vec<CEntry>,
) -> gregor_config_results {
    gregor_config_results {
        items: r
            .iter()
            .map(|x| ResItem {
                resource_type: c_int::from(x.resource.resource_type.0),
                name: cs(&x.resource.name),
                err: cerr(&x.result),
                entries: x.result.as_ref().map_or(Vec::new(), &entries),
            })
            .collect(),
    }
}

fn centry(e: &ConfigEntry) -> CEntry {
    CEntry {
        name: cs(&e.name),
        value: cso(e.value.as_deref()),
        source: c_int::from(e.source.0),
        is_default: e.is_default,
        is_read_only: e.is_read_only,
        is_sensitive: e.is_sensitive,
        config_type: c_int::from(e.config_type.0),
        documentation: cso(e.documentation.as_deref()),
        synonyms: e
            .synonyms
            .iter()
            .map(|s| CSynonym {
                name: cs(&s.name),
                value: cso(s.value.as_deref()),
                source: c_int::from(s.source.0),
            })
            .collect(),
    }
}

/// Describes the configs of `count` resources (borrowed handles): all, or
/// only the `key_count` names in `keys`. Non-zero `include_synonyms` /
/// `include_documentation` ask for those (DescribeConfigs v1+ / v3+).
/// BROKER and BROKER_LOGGER resources go to that broker. On success `*out`
/// receives one result per resource (caller owns; free with
/// `gregor_config_results_free`). Blocks. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_describe_configs(
    admin: *const gregor_admin,
    resources: *const *const gregor_config_resource,
    count: usize,
    keys: *const *const c_char,
    key_count: usize,
    include_synonyms: c_int,
    include_documentation: c_int,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_config_results,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let res: Vec<ConfigResource> = handles(resources, count, "resources")?
            .into_iter()
            .map(|r| r.resource.clone())
            .collect();
        let ks = c_strs(keys, key_count, "keys")?;
        let r = a.inner.describe_configs(
            &res,
            (!ks.is_empty()).then_some(&ks[..]),
            include_synonyms != 0,
            include_documentation != 0,
            &opts_of(options)?,
        )?;
        store(out, config_results(r, |es| es.iter().map(centry).collect()));
        Ok(())
    })
}

/// The legacy AlterConfigs: replaces each resource's dynamic configs by
/// those set with `gregor_config_resource_set_config`. Honours
/// validate-only. As `gregor_admin_describe_configs` for the rest (results
/// without entries).
#[no_mangle]
pub extern "C" fn gregor_admin_alter_configs(
    admin: *const gregor_admin,
    resources: *const *const gregor_config_resource,
    count: usize,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_config_results,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let alts: Vec<_> = handles(resources, count, "resources")?
            .into_iter()
            .map(|r| (r.resource.clone(), r.legacy.clone()))
            .collect();
        let r = a.inner.alter_configs(&alts, &opts_of(options)?)?;
        store(out, config_results(r, |()| Vec::new()));
        Ok(())
    })
}

/// IncrementalAlterConfigs: applies the changes added with
/// `gregor_config_resource_add_incremental_config`. As
/// `gregor_admin_alter_configs`.
#[no_mangle]
pub extern "C" fn gregor_admin_incremental_alter_configs(
    admin: *const gregor_admin,
    resources: *const *const gregor_config_resource,
    count: usize,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_config_results,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let alts: Vec<_> = handles(resources, count, "resources")?
            .into_iter()
            .map(|r| (r.resource.clone(), r.ops.clone()))
            .collect();
        let r = a
            .inner
            .incremental_alter_configs(&alts, &opts_of(options)?)?;
        store(out, config_results(r, |()| Vec::new()));
        Ok(())
    })
}

/// Number of resources (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_config_results_count(r: *const gregor_config_results) -> usize {
    count(r)
}

/// Resource `i`'s type (`GREGOR_CONFIG_RESOURCE_*`).
#[no_mangle]
pub extern "C" fn gregor_config_results_type(r: *const gregor_config_results, i: usize) -> c_int {
    item(r, i, -1, |x| x.resource_type)
}

/// Resource `i`'s name.
#[no_mangle]
pub extern "C" fn gregor_config_results_name(
    r: *const gregor_config_results,
    i: usize,
) -> *const c_char {
    item(r, i, ptr::null(), |x| x.name.as_ptr())
}

/// Resource `i`'s error code.
#[no_mangle]
pub extern "C" fn gregor_config_results_err(r: *const gregor_config_results, i: usize) -> c_int {
    item_err(r, i)
}

/// Resource `i`'s error text ("" on success).
#[no_mangle]
pub extern "C" fn gregor_config_results_errstr(
    r: *const gregor_config_results,
    i: usize,
) -> *const c_char {
    item_errstr(r, i)
}

/// Number of configs of resource `i`.
#[no_mangle]
pub extern "C" fn gregor_config_results_entry_count(
    r: *const gregor_config_results,
    i: usize,
) -> usize {
    item(r, i, 0, |x| x.entries.len())
}

/// Reads `f` of the item at (i, j) (`default` for NULL or out of range).
fn entry<T: Copy>(
    r: *const gregor_config_results,
    i: usize,
    j: usize,
    default: T,
    f: impl FnOnce(&CEntry) -> T,
) -> T {
    field(r, default, |r| r.items.get(i)?.entries.get(j).map(f))
}

fn entry_at(r: &gregor_config_results, i: usize, j: usize) -> Option<&CEntry> {
    r.items.get(i)?.entries.get(j)
}

/// Resource `i`, config `j`: its name.
#[no_mangle]
pub extern "C" fn gregor_config_results_entry_name(
    r: *const gregor_config_results,
    i: usize,
    j: usize,
) -> *const c_char {
    entry(r, i, j, ptr::null(), |e| e.name.as_ptr())
}

/// Resource `i`, config `j`: its value (NULL for null or sensitive).
#[no_mangle]
pub extern "C" fn gregor_config_results_entry_value(
    r: *const gregor_config_results,
    i: usize,
    j: usize,
) -> *const c_char {
    entry(r, i, j, ptr::null(), |e| cptr(&e.value))
}

/// Resource `i`, config `j`: where the value comes from (`GREGOR_CONFIG_SOURCE_*`).
#[no_mangle]
pub extern "C" fn gregor_config_results_entry_source(
    r: *const gregor_config_results,
    i: usize,
    j: usize,
) -> c_int {
    entry(r, i, j, -1, |e| e.source)
}

/// Resource `i`, config `j`: 1 if the value is the default, 0 if not.
#[no_mangle]
pub extern "C" fn gregor_config_results_entry_is_default(
    r: *const gregor_config_results,
    i: usize,
    j: usize,
) -> c_int {
    entry(r, i, j, -1, |e| c_int::from(e.is_default))
}

/// Resource `i`, config `j`: 1 if read-only.
#[no_mangle]
pub extern "C" fn gregor_config_results_entry_is_read_only(
    r: *const gregor_config_results,
    i: usize,
    j: usize,
) -> c_int {
    entry(r, i, j, -1, |e| c_int::from(e.is_read_only))
}

/// Resource `i`, config `j`: 1 if sensitive.
#[no_mangle]
pub extern "C" fn gregor_config_results_entry_is_sensitive(
    r: *const gregor_config_results,
    i: usize,
    j: usize,
) -> c_int {
    entry(r, i, j, -1, |e| c_int::from(e.is_sensitive))
}

/// Resource `i`, config `j`: its data type (Kafka's `ConfigType`: 1
/// boolean, 2 string, 3 int, 4 short, 5 long, 6 double, 7 list, 8 class,
/// 9 password; 0 unknown).
#[no_mangle]
pub extern "C" fn gregor_config_results_entry_type(
    r: *const gregor_config_results,
    i: usize,
    j: usize,
) -> c_int {
    entry(r, i, j, -1, |e| e.config_type)
}

/// Resource `i`, config `j`: its documentation (NULL if not asked or none).
#[no_mangle]
pub extern "C" fn gregor_config_results_entry_documentation(
    r: *const gregor_config_results,
    i: usize,
    j: usize,
) -> *const c_char {
    entry(r, i, j, ptr::null(), |e| cptr(&e.documentation))
}

/// Resource `i`, config `j`: number of synonyms (when asked for).
#[no_mangle]
pub extern "C" fn gregor_config_results_synonym_count(
    r: *const gregor_config_results,
    i: usize,
    j: usize,
) -> usize {
    entry(r, i, j, 0, |e| e.synonyms.len())
}

/// Resource `i`, config `j`, synonym `k`: its name.
#[no_mangle]
pub extern "C" fn gregor_config_results_synonym_name(
    r: *const gregor_config_results,
    i: usize,
    j: usize,
    k: usize,
) -> *const c_char {
    field(r, ptr::null(), |r| {
        entry_at(r, i, j)?.synonyms.get(k).map(|s| s.name.as_ptr())
    })
}

/// Resource `i`, config `j`, synonym `k`: its value (NULL for null).
#[no_mangle]
pub extern "C" fn gregor_config_results_synonym_value(
    r: *const gregor_config_results,
    i: usize,
    j: usize,
    k: usize,
) -> *const c_char {
    field(r, ptr::null(), |r| {
        entry_at(r, i, j)?.synonyms.get(k).map(|s| cptr(&s.value))
    })
}

/// Resource `i`, config `j`, synonym `k`: its source (`GREGOR_CONFIG_SOURCE_*`).
#[no_mangle]
pub extern "C" fn gregor_config_results_synonym_source(
    r: *const gregor_config_results,
    i: usize,
    j: usize,
    k: usize,
) -> c_int {
    field(r, -1, |r| {
        entry_at(r, i, j)?.synonyms.get(k).map(|s| s.source)
    })
}

/// Frees config results. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_config_results_free(r: *mut gregor_config_results) {
    guard((), || free(r))
}
