//! The admin client's scram calls and their result objects.

use super::*;

impl_items!(
    gregor_scram_users: CUser,
);
impl_errs!(
    gregor_scram_users: |x| &x.err,
);

// ----- SCRAM credentials -----

/// SCRAM credential changes.
pub struct gregor_scram_alterations {
    inner: Vec<UserScramAlteration>,
}

/// A new, empty list. Caller owns it: free with `gregor_scram_alterations_free`.
#[no_mangle]
pub extern "C" fn gregor_scram_alterations_new() -> *mut gregor_scram_alterations {
    guard(ptr::null_mut(), || {
        Box::into_raw(Box::new(gregor_scram_alterations { inner: Vec::new() }))
    })
}

/// Creates or replaces `user`'s credential for `mechanism`
/// (`GREGOR_SCRAM_SHA_256` / `_512`) with `iterations` and `password`; the
/// password is salted here (`salt_len` bytes at `salt`, or 32 random bytes
/// when `salt` is NULL) and only the salted password is sent. Copies
/// everything. Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_scram_alterations_add_upsert(
    a: *mut gregor_scram_alterations,
    user: *const c_char,
    mechanism: c_int,
    iterations: i32,
    password: *const c_char,
    salt: *const u8,
    salt_len: usize,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let a = handle_mut(a, "a")?;
        let salt = if salt.is_null() {
            None
        } else {
            Some(slice(salt, salt_len, "salt")?.to_vec())
        };
        a.inner.push(UserScramAlteration::Upsert {
            user: c_str(user, "user")?.to_string(),
            mechanism: ScramMechanism(i8_of(mechanism, "mechanism")?),
            iterations,
            password: c_str(password, "password")?.to_string(),
            salt,
        });
        Ok(())
    })
}

/// Deletes `user`'s credential for `mechanism`. Returns 0 or `GREGOR_ERR__INVALID_ARG`.
#[no_mangle]
pub extern "C" fn gregor_scram_alterations_add_delete(
    a: *mut gregor_scram_alterations,
    user: *const c_char,
    mechanism: c_int,
) -> c_int {
    guard_code(ptr::null_mut(), 0, || {
        let a = handle_mut(a, "a")?;
        a.inner.push(UserScramAlteration::Delete {
            user: c_str(user, "user")?.to_string(),
            mechanism: ScramMechanism(i8_of(mechanism, "mechanism")?),
        });
        Ok(())
    })
}

/// Frees alterations. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_scram_alterations_free(a: *mut gregor_scram_alterations) {
    guard((), || free(a))
}

pub(crate) struct CUser {
    user: CString,
    err: CErr,
    creds: Vec<(c_int, i32)>,
}

/// Users with their SCRAM credentials (describe) or outcomes (alter). Immutable.
pub struct gregor_scram_users {
    items: Vec<CUser>,
}

/// The SCRAM credentials of `count` users (`users`; 0: every user with
/// credentials). On success `*out` receives one entry per user (caller
/// owns; free with `gregor_scram_users_free`). Blocks. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_describe_user_scram_credentials(
    admin: *const gregor_admin,
    users: *const *const c_char,
    count: usize,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_scram_users,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let us = c_strs(users, count, "users")?;
        let r = a
            .inner
            .describe_user_scram_credentials((count > 0).then_some(&us[..]), &opts_of(options)?)?;
        store(
            out,
            gregor_scram_users {
                items: r
                    .iter()
                    .map(|u| CUser {
                        user: cs(&u.user),
                        err: cerr(&u.result),
                        creds: u.result.as_ref().map_or(Vec::new(), |cs| {
                            cs.iter()
                                .map(|c| (c_int::from(c.mechanism.0), c.iterations))
                                .collect()
                        }),
                    })
                    .collect(),
            },
        );
        Ok(())
    })
}

/// Applies SCRAM changes (borrowed). On success `*out` receives one entry
/// per distinct user with its outcome (no credentials). Blocks. Thread-safe.
#[no_mangle]
pub extern "C" fn gregor_admin_alter_user_scram_credentials(
    admin: *const gregor_admin,
    alterations: *const gregor_scram_alterations,
    options: *const gregor_admin_options,
    out: *mut *mut gregor_scram_users,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let a = enter(admin)?;
        need_out(out)?;
        let alts = handle(alterations, "alterations")?;
        let r = a
            .inner
            .alter_user_scram_credentials(&alts.inner, &opts_of(options)?)?;
        store(
            out,
            gregor_scram_users {
                items: r
                    .iter()
                    .map(|(u, res)| CUser {
                        user: cs(u),
                        err: cerr(res),
                        creds: Vec::new(),
                    })
                    .collect(),
            },
        );
        Ok(())
    })
}

/// Number of users (0 for NULL).
#[no_mangle]
pub extern "C" fn gregor_scram_users_count(u: *const gregor_scram_users) -> usize {
    count(u)
}

/// User `i`'s name.
#[no_mangle]
pub extern "C" fn gregor_scram_users_name(u: *const gregor_scram_users, i: usize) -> *const c_char {
    item(u, i, ptr::null(), |x| x.user.as_ptr())
}

/// User `i`'s error code (e.g. `GREGOR_ERR_RESOURCE_NOT_FOUND`).
#[no_mangle]
pub extern "C" fn gregor_scram_users_err(u: *const gregor_scram_users, i: usize) -> c_int {
    item_err(u, i)
}

/// User `i`'s error text ("" on success).
#[no_mangle]
pub extern "C" fn gregor_scram_users_errstr(
    u: *const gregor_scram_users,
    i: usize,
) -> *const c_char {
    item_errstr(u, i)
}

/// User `i`'s number of credentials.
#[no_mangle]
pub extern "C" fn gregor_scram_users_credential_count(
    u: *const gregor_scram_users,
    i: usize,
) -> usize {
    item(u, i, 0, |x| x.creds.len())
}

/// User `i`, credential `k`: its mechanism (`GREGOR_SCRAM_SHA_*`).
#[no_mangle]
pub extern "C" fn gregor_scram_users_credential_mechanism(
    u: *const gregor_scram_users,
    i: usize,
    k: usize,
) -> c_int {
    field(u, -1, |u| u.items.get(i)?.creds.get(k).map(|c| c.0))
}

/// User `i`, credential `k`: its iteration count.
#[no_mangle]
pub extern "C" fn gregor_scram_users_credential_iterations(
    u: *const gregor_scram_users,
    i: usize,
    k: usize,
) -> i32 {
    field(u, -1, |u| u.items.get(i)?.creds.get(k).map(|c| c.1))
}

/// Frees SCRAM users. NULL is a no-op.
#[no_mangle]
pub extern "C" fn gregor_scram_users_free(u: *mut gregor_scram_users) {
    guard((), || free(u))
}
