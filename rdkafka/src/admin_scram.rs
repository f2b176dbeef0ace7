//! SCRAM credentials through rdkafka.h's Admin API (KIP-554):
//! `rd_kafka_UserScramCredentialAlteration_t` (an upsertion or a
//! deletion), `rd_kafka_DescribeUserScramCredentials`,
//! `rd_kafka_AlterUserScramCredentials` and their results, on gregor's
//! admin client.
//!
//! As librdkafka's, the calls refuse before sending: an empty or repeated
//! user for Describe; no alteration, an UNKNOWN mechanism, an empty user,
//! and for an upsertion an empty password or salt or a non-positive
//! iteration count for Alter (`_INVALID_ARG`, index given). An upsertion
//! without a salt gets a random one. gregor takes the password as text:
//! one that is not UTF-8 is refused the same way.

#![allow(unsafe_code)] // `#[no_mangle]`

use std::collections::HashSet;
use std::ffi::{c_char, c_int, c_uchar, CString};
use std::ptr;

use gregor::admin::scram::{ScramCredentialInfo, UserScramAlteration};
use gregor::admin::ScramMechanism;

use crate::admin::{fail_request, submit_event, AdminOptions};
use crate::admin_configs::entity_text;
use crate::error_object::ErrorObject;
use crate::event::{as_result, Event, Listed};
use crate::guard::guard;
use crate::handle::Handle;
use crate::queue::Queue;
use crate::raw;

/// `RD_KAFKA_RESP_ERR__INVALID_ARG`.
const RESP_ERR__INVALID_ARG: c_int = -186;
/// `RD_KAFKA_EVENT_DESCRIBEUSERSCRAMCREDENTIALS_RESULT`.
const EVENT_DESCRIBE_RESULT: c_int = 0x40000;
/// `RD_KAFKA_EVENT_ALTERUSERSCRAMCREDENTIALS_RESULT`.
const EVENT_ALTER_RESULT: c_int = 0x80000;

/// `rd_kafka_UserScramCredentialAlteration_t`, as the application made it.
#[derive(Debug, Clone)]
pub struct Alteration {
    user: String,
    mechanism: c_int,
    /// `None` for a deletion.
    upsert: Option<Upsert>,
}

#[derive(Debug, Clone)]
struct Upsert {
    iterations: i32,
    password: Vec<u8>,
    salt: Vec<u8>,
}

/// An upsertion of `username`'s credential for `mechanism`
/// (`rd_kafka_UserScramCredentialUpsertion_new`); an empty salt is drawn
/// at random when sent. Caller owns, free with
/// `rd_kafka_UserScramCredentialAlteration_destroy`.
#[no_mangle]
pub extern "C" fn rd_kafka_UserScramCredentialUpsertion_new(
    username: *const c_char,
    mechanism: c_int,
    iterations: i32,
    password: *const c_uchar,
    password_size: usize,
    salt: *const c_uchar,
    salt_size: usize,
) -> *mut Alteration {
    guard(ptr::null_mut(), || {
        let bytes =
            |p: *const c_uchar, n| raw::read_bytes(p.cast(), n).unwrap_or_default().to_vec();
        Box::into_raw(Box::new(Alteration {
            user: raw::read_cstr(username).unwrap_or_default().into_owned(),
            mechanism,
            upsert: Some(Upsert {
                iterations,
                password: bytes(password, password_size),
                salt: bytes(salt, salt_size),
            }),
        }))
    })
}

/// A deletion of `username`'s credential for `mechanism`
/// (`rd_kafka_UserScramCredentialDeletion_new`). Caller owns.
#[no_mangle]
pub extern "C" fn rd_kafka_UserScramCredentialDeletion_new(
    username: *const c_char,
    mechanism: c_int,
) -> *mut Alteration {
    guard(ptr::null_mut(), || {
        Box::into_raw(Box::new(Alteration {
            user: raw::read_cstr(username).unwrap_or_default().into_owned(),
            mechanism,
            upsert: None,
        }))
    })
}

/// `rd_kafka_UserScramCredentialAlteration_destroy`; NULL is nothing.
#[no_mangle]
pub extern "C" fn rd_kafka_UserScramCredentialAlteration_destroy(alteration: *mut Alteration) {
    guard((), || drop(raw::take_box(alteration)));
}

/// `rd_kafka_UserScramCredentialAlteration_destroy_array`.
#[no_mangle]
pub extern "C" fn rd_kafka_UserScramCredentialAlteration_destroy_array(
    alterations: *mut *mut Alteration,
    alteration_cnt: usize,
) {
    guard((), || {
        for &a in raw::read_array(alterations, alteration_cnt) {
            drop(raw::take_box(a));
        }
    });
}

/// gregor's alteration, or librdkafka's reason to refuse it (at `i`).
fn checked(i: usize, a: &Alteration) -> Result<UserScramAlteration, String> {
    let mechanism = ScramMechanism(i8::try_from(a.mechanism).unwrap_or(0));
    if mechanism == ScramMechanism::UNKNOWN {
        return Err(format!("SCRAM mechanism must be specified at index {i}"));
    }
    if a.user.is_empty() {
        return Err(format!("Empty user at index {i}"));
    }
    let Some(u) = &a.upsert else {
        return Ok(UserScramAlteration::Delete {
            user: a.user.clone(),
            mechanism,
        });
    };
    if u.password.is_empty() {
        return Err(format!("Empty password at index {i}"));
    }
    if u.iterations <= 0 {
        return Err(format!("Non-positive iterations at index {i}"));
    }
    let password = String::from_utf8(u.password.clone())
        .map_err(|_| format!("Password at index {i} is not UTF-8, which gregor requires"))?;
    Ok(UserScramAlteration::Upsert {
        user: a.user.clone(),
        mechanism,
        iterations: u.iterations,
        password,
        salt: (!u.salt.is_empty()).then(|| u.salt.clone()),
    })
}

/// `rd_kafka_ScramCredentialInfo_t`: a mechanism and its iterations.
#[derive(Debug)]
pub struct CredentialInfo {
    mechanism: c_int,
    iterations: i32,
}

/// `rd_kafka_UserScramCredentialsDescription_t`: a user's credentials or
/// error.
#[derive(Debug)]
pub struct Description {
    user: CString,
    error: Option<ErrorObject>,
    infos: Vec<CredentialInfo>,
}

/// `rd_kafka_AlterUserScramCredentials_result_response_t`: a user's
/// outcome.
#[derive(Debug)]
pub struct AlterResponse {
    user: CString,
    error: Option<ErrorObject>,
}

/// Describes users' SCRAM credentials, all users' for none
/// (`rd_kafka_DescribeUserScramCredentials`); the result is a
/// `RD_KAFKA_EVENT_DESCRIBEUSERSCRAMCREDENTIALS_RESULT` event on `rkqu`.
#[no_mangle]
pub extern "C" fn rd_kafka_DescribeUserScramCredentials(
    rk: *mut Handle,
    users: *const *const c_char,
    user_cnt: usize,
    options: *const AdminOptions,
    rkqu: *mut Queue,
) {
    guard((), || {
        let kind = EVENT_DESCRIBE_RESULT;
        let names: Vec<String> = raw::read_array(users, user_cnt)
            .iter()
            .map(|&u| raw::read_cstr(u).unwrap_or_default().into_owned())
            .collect();
        if let Some(i) = names.iter().position(String::is_empty) {
            let why = format!("Empty users aren't allowed, index {i}");
            return fail_request(rk, options, rkqu, kind, (RESP_ERR__INVALID_ARG, why));
        }
        let mut seen = HashSet::new();
        if !names.iter().all(|n| seen.insert(n)) {
            let why = "Duplicate users aren't allowed in the same request".to_string();
            return fail_request(rk, options, rkqu, kind, (RESP_ERR__INVALID_ARG, why));
        }
        submit_event(rk, options, rkqu, kind, move |c, o, ev| {
            let refs: Vec<&str> = names.iter().map(String::as_str).collect();
            let users = (!refs.is_empty()).then_some(&refs[..]);
            let rs = c.describe_user_scram_credentials(users, o)?;
            let ds = rs
                .iter()
                .map(|u| {
                    let (error, infos) = match &u.result {
                        Ok(is) => (None, is.iter().map(info).collect()),
                        Err(e) => {
                            let text = entity_text(e, &format!("user {}", u.user));
                            (Some(ErrorObject::held(e.code(), &text)), Vec::new())
                        }
                    };
                    Description {
                        user: raw::c_string(&u.user),
                        error,
                        infos,
                    }
                })
                .collect();
            Ok(ev.with_payload(Listed::new(ds)))
        });
    })
}

fn info(i: &ScramCredentialInfo) -> CredentialInfo {
    CredentialInfo {
        mechanism: c_int::from(i.mechanism.0),
        iterations: i.iterations,
    }
}

/// Upserts and deletes SCRAM credentials
/// (`rd_kafka_AlterUserScramCredentials`); the result, a
/// `RD_KAFKA_EVENT_ALTERUSERSCRAMCREDENTIALS_RESULT` event on `rkqu`, has
/// one response per user.
#[no_mangle]
pub extern "C" fn rd_kafka_AlterUserScramCredentials(
    rk: *mut Handle,
    alterations: *mut *mut Alteration,
    alteration_cnt: usize,
    options: *const AdminOptions,
    rkqu: *mut Queue,
) {
    guard((), || {
        let kind = EVENT_ALTER_RESULT;
        let given = raw::read_array(alterations, alteration_cnt);
        if given.is_empty() {
            let why = "At least one alteration is required".to_string();
            return fail_request(rk, options, rkqu, kind, (RESP_ERR__INVALID_ARG, why));
        }
        let mut alts = Vec::with_capacity(given.len());
        for (i, &a) in given.iter().enumerate() {
            let r = raw::object(a)
                .ok_or_else(|| format!("NULL alteration at index {i}"))
                .and_then(|a| checked(i, a));
            match r {
                Ok(a) => alts.push(a),
                Err(why) => {
                    return fail_request(rk, options, rkqu, kind, (RESP_ERR__INVALID_ARG, why))
                }
            }
        }
        submit_event(rk, options, rkqu, kind, move |c, o, ev| {
            let rs = c.alter_user_scram_credentials(&alts, o)?;
            let responses = rs
                .iter()
                .map(|(user, r)| AlterResponse {
                    user: raw::c_string(user),
                    error: r.as_ref().err().map(|e| {
                        ErrorObject::held(e.code(), &entity_text(e, &format!("user {user}")))
                    }),
                })
                .collect();
            Ok(ev.with_payload(Listed::new(responses)))
        });
    })
}

/// The event as a DescribeUserScramCredentials result, or NULL.
#[no_mangle]
pub extern "C" fn rd_kafka_event_DescribeUserScramCredentials_result(
    rkev: *mut Event,
) -> *const Event {
    as_result(rkev, EVENT_DESCRIBE_RESULT)
}

/// The event as an AlterUserScramCredentials result, or NULL.
#[no_mangle]
pub extern "C" fn rd_kafka_event_AlterUserScramCredentials_result(
    rkev: *mut Event,
) -> *const Event {
    as_result(rkev, EVENT_ALTER_RESULT)
}

/// `rd_kafka_DescribeUserScramCredentials_result_descriptions`: one per
/// user, their count in `*cntp`. Borrowed, valid while the event is.
#[no_mangle]
pub extern "C" fn rd_kafka_DescribeUserScramCredentials_result_descriptions(
    result: *const Event,
    cntp: *mut usize,
) -> *const *const Description {
    guard(ptr::null(), || {
        Event::listed::<Description>(result, EVENT_DESCRIBE_RESULT, cntp)
    })
}

/// `rd_kafka_UserScramCredentialsDescription_user`; borrowed.
#[no_mangle]
pub extern "C" fn rd_kafka_UserScramCredentialsDescription_user(
    description: *const Description,
) -> *const c_char {
    guard(ptr::null(), || {
        raw::object(description).map_or(ptr::null(), |d| d.user.as_ptr())
    })
}

/// `rd_kafka_UserScramCredentialsDescription_error`: NULL, or the user's
/// error, borrowed.
#[no_mangle]
pub extern "C" fn rd_kafka_UserScramCredentialsDescription_error(
    description: *const Description,
) -> *const ErrorObject {
    guard(ptr::null(), || {
        raw::object(description)
            .and_then(|d| d.error.as_ref())
            .map_or(ptr::null(), |e| e as *const ErrorObject)
    })
}

/// `rd_kafka_UserScramCredentialsDescription_scramcredentialinfo_count`.
#[no_mangle]
pub extern "C" fn rd_kafka_UserScramCredentialsDescription_scramcredentialinfo_count(
    description: *const Description,
) -> usize {
    guard(0, || raw::object(description).map_or(0, |d| d.infos.len()))
}

/// `rd_kafka_UserScramCredentialsDescription_scramcredentialinfo`: the
/// `idx`th credential, borrowed; NULL out of range.
#[no_mangle]
pub extern "C" fn rd_kafka_UserScramCredentialsDescription_scramcredentialinfo(
    description: *const Description,
    idx: usize,
) -> *const CredentialInfo {
    guard(ptr::null(), || {
        raw::object(description)
            .and_then(|d| d.infos.get(idx))
            .map_or(ptr::null(), |i| i as *const CredentialInfo)
    })
}

/// `rd_kafka_ScramCredentialInfo_mechanism`.
#[no_mangle]
pub extern "C" fn rd_kafka_ScramCredentialInfo_mechanism(
    scram_credential_info: *const CredentialInfo,
) -> c_int {
    guard(0, || {
        raw::object(scram_credential_info).map_or(0, |i| i.mechanism)
    })
}

/// `rd_kafka_ScramCredentialInfo_iterations`.
#[no_mangle]
pub extern "C" fn rd_kafka_ScramCredentialInfo_iterations(
    scram_credential_info: *const CredentialInfo,
) -> i32 {
    guard(0, || {
        raw::object(scram_credential_info).map_or(0, |i| i.iterations)
    })
}

/// `rd_kafka_AlterUserScramCredentials_result_responses`: one per user,
/// their count in `*cntp`. Borrowed.
#[no_mangle]
pub extern "C" fn rd_kafka_AlterUserScramCredentials_result_responses(
    result: *const Event,
    cntp: *mut usize,
) -> *const *const AlterResponse {
    guard(ptr::null(), || {
        Event::listed::<AlterResponse>(result, EVENT_ALTER_RESULT, cntp)
    })
}

/// `rd_kafka_AlterUserScramCredentials_result_response_user`; borrowed.
#[no_mangle]
pub extern "C" fn rd_kafka_AlterUserScramCredentials_result_response_user(
    response: *const AlterResponse,
) -> *const c_char {
    guard(ptr::null(), || {
        raw::object(response).map_or(ptr::null(), |r| r.user.as_ptr())
    })
}

/// `rd_kafka_AlterUserScramCredentials_result_response_error`: NULL, or
/// the user's error, borrowed.
#[no_mangle]
pub extern "C" fn rd_kafka_AlterUserScramCredentials_result_response_error(
    response: *const AlterResponse,
) -> *const ErrorObject {
    guard(ptr::null(), || {
        raw::object(response)
            .and_then(|r| r.error.as_ref())
            .map_or(ptr::null(), |e| e as *const ErrorObject)
    })
}
