//! The admin client's quotas calls and their result objects.

use super::*;

impl_items!(
    gregor_quota_entries: CQuota,
);
impl_errs!(
    gregor_quota_entries: |x| &x.err,
);

// ----- client quotas -----

/// A client-quota filter.
pub struct gregor_quota_filter {
    components: Vec<QuotaFilterComponent>,
    strict: bool,
}

/// A new filter; non-zero `strict` excludes entities with entity types the
/// filter does not name. Caller owns it: free with `gregor_quota_filter_free`.
#[no_mangle]
pub extern "C" fn gregor_quota_filter_new(strict: c_int) -> *mut gregor_quota_filter {
    guard(ptr::null_mut(), || {
        Box::into_raw(Box::new(gregor_quota_filter {
            components: Vec::new(),
            strict: strict != 0,
        }))
    })
}

/// Adds a component for `entity_type` ("user", "client-id", "ip"):
/// `match_type` `GREGOR_QUOTA_MATCH_EXACT` (with `name`), `_DEFAULT` or
/// `_ANY` (`name` ignored). Copies strings. Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_quota_filter_add_component(
    f: *mut gregor_quota_filter,
    entity_type: *const c_char,
    match_type: c_int,
    name: *const c_char,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let f = handle_mut(f, "f")?;
        let t = c_str(entity_type, "entity_type")?.to_string();
        let matching = match match_type {
            GREGOR_QUOTA_MATCH_EXACT => QuotaMatch::Exact(c_str(name, "name")?.to_string()),
            GREGOR_QUOTA_MATCH_DEFAULT => QuotaMatch::Default,
            GREGOR_QUOTA_MATCH_ANY => QuotaMatch::Any,
            m => return Err(Error::invalid_arg(format!("unknown match type {m}"))),
        };
        f.components.push(QuotaFilterComponent {
            entity_type: t,
            matching,
        });
        Ok(())
    })
}

/// Frees a filter. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_quota_filter_free(f: *mut gregor_quota_filter) {
    guard((), || free(f))
}

/// Changes to one entity's quotas.
pub struct gregor_quota_alteration {
    parts: Vec<(String, Option<String>)>,
    ops: Vec<(String, Option<f64>)>,
}

/// A new, empty alteration. Caller owns it: free with `gregor_quota_alteration_free`.
#[no_mangle]
pub extern "C" fn gregor_quota_alteration_new() -> *mut gregor_quota_alteration {
    guard(ptr::null_mut(), || {
        Box::into_raw(Box::new(gregor_quota_alteration {
            parts: Vec::new(),
            ops: Vec::new(),
        }))
    })
}

/// Adds an entity part: `entity_type` and `name` (NULL: the type's default
/// entity). Copies both. Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_quota_alteration_add_entity(
    a: *mut gregor_quota_alteration,
    entity_type: *const c_char,
    name: *const c_char,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let a = handle_mut(a, "a")?;
        let t = c_str(entity_type, "entity_type")?.to_string();
        a.parts.push((t, opt_str(name, "name")?));
        Ok(())
    })
}

/// Sets quota `key` to `value`. Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_quota_alteration_set(
    a: *mut gregor_quota_alteration,
    key: *const c_char,
    value: f64,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let a = handle_mut(a, "a")?;
        a.ops.push((c_str(key, "key")?.to_string(), Some(value)));
        Ok(())
    })
}

/// Removes quota `key`. Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_quota_alteration_remove(
    a: *mut gregor_quota_alteration,
    key: *const c_char,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let a = handle_mut(a, "a")?;
        a.ops.push((c_str(key, "key")?.to_string(), None));
        Ok(())
    })
}

/// Frees an alteration. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_quota_alteration_free(a: *mut gregor_quota_alteration) {
    guard((), || free(a))
}

pub(crate) struct CQuota {
    parts: Vec<(CString, Option<CString>)>,
    values: Vec<(CString, f64)>,
    err: CErr,
}

/// Quota entities with their values (describe) or outcomes (alter). Immutable.
pub struct gregor_quota_entries {
    items: Vec<CQuota>,
}

fn cparts(e: &QuotaEntity) -> Vec<(CString, Option<CString>)> {
    e.parts()
        .iter()
        .map(|(t, n)| (cs(t), cso(n.as_deref())))
        .collect()
}

/// The quotas of the entities matching `filter` (borrowed). On success
/// `*out` receives them (caller owns; free with
/// `gregor_quota_entries_free`). Blocks. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_describe_client_quotas(
    admin: *const gregor_admin,
    filter: *const gregor_quota_filter,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_quota_entries,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let f = handle(filter, "filter")?;
        let r = a
            .inner
            .describe_client_quotas(&f.components, f.strict, &opts_of(options)?)?;
        store(
            out,
            gregor_quota_entries {
                items: r
                    .iter()
                    .map(|e| CQuota {
                        parts: cparts(&e.entity),
                        values: e.values.iter().map(|(k, v)| (cs(k), *v)).collect(),
                        err: cerr_of(None),
                    })
                    .collect(),
            },
        );
        Ok(())
    })
}

/// Applies `count` alterations (borrowed handles). Honours validate-only.
/// On success `*out` receives one entry per entity with its outcome (no
/// values). Blocks. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_alter_client_quotas(
    admin: *const gregor_admin,
    alterations: *const *const gregor_quota_alteration,
    count: usize,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_quota_entries,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let alts: Vec<QuotaAlteration> = handles(alterations, count, "alterations")?
            .into_iter()
            .map(|x| QuotaAlteration {
                entity: QuotaEntity::new(x.parts.clone()),
                ops: x.ops.clone(),
            })
            .collect();
        let r = a.inner.alter_client_quotas(&alts, &opts_of(options)?)?;
        store(
            out,
            gregor_quota_entries {
                items: r
                    .iter()
                    .map(|(e, res)| CQuota {
                        parts: cparts(e),
                        values: Vec::new(),
                        err: cerr(res),
                    })
                    .collect(),
            },
        );
        Ok(())
    })
}

/// Number of entities (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_quota_entries_count(q: *const gregor_quota_entries) -> usize {
    count(q)
}

/// Entity `i`'s number of parts (sorted by entity type).
#[no_mangle]
pub extern "C" fn gregor_quota_entries_entity_part_count(
    q: *const gregor_quota_entries,
    i: usize,
) -> usize {
    item(q, i, 0, |x| x.parts.len())
}

/// Entity `i`, part `k`: its entity type.
#[no_mangle]
pub extern "C" fn gregor_quota_entries_entity_part_type(
    q: *const gregor_quota_entries,
    i: usize,
    k: usize,
) -> *const c_char {
    field(q, ptr::null(), |q| {
        q.items.get(i)?.parts.get(k).map(|p| p.0.as_ptr())
    })
}

/// Entity `i`, part `k`: its name (NULL for the default entity).
#[no_mangle]
pub extern "C" fn gregor_quota_entries_entity_part_name(
    q: *const gregor_quota_entries,
    i: usize,
    k: usize,
) -> *const c_char {
    field(q, ptr::null(), |q| {
        q.items.get(i)?.parts.get(k).map(|p| cptr(&p.1))
    })
}

/// Entity `i`'s number of quota values.
#[no_mangle]
pub extern "C" fn gregor_quota_entries_value_count(
    q: *const gregor_quota_entries,
    i: usize,
) -> usize {
    item(q, i, 0, |x| x.values.len())
}

/// Entity `i`, value `k`: its key (values are in key order).
#[no_mangle]
pub extern "C" fn gregor_quota_entries_value_key(
    q: *const gregor_quota_entries,
    i: usize,
    k: usize,
) -> *const c_char {
    field(q, ptr::null(), |q| {
        q.items.get(i)?.values.get(k).map(|v| v.0.as_ptr())
    })
}

/// Entity `i`, value `k`: the value (NaN out of range).
#[no_mangle]
pub extern "C" fn gregor_quota_entries_value(
    q: *const gregor_quota_entries,
    i: usize,
    k: usize,
) -> f64 {
    field(q, f64::NAN, |q| q.items.get(i)?.values.get(k).map(|v| v.1))
}

/// Entity `i`'s error code (alter).
#[no_mangle]
pub extern "C" fn gregor_quota_entries_err(q: *const gregor_quota_entries, i: usize) -> c_int {
    item_err(q, i)
}

/// Entity `i`'s error text ("" on success).
#[no_mangle]
pub extern "C" fn gregor_quota_entries_errstr(
    q: *const gregor_quota_entries,
    i: usize,
) -> *const c_char {
    item_errstr(q, i)
}

/// Frees quota entries. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_quota_entries_free(q: *mut gregor_quota_entries) {
    guard((), || free(q))
}
