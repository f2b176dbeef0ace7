//! SCRAM credentials (KIP-554): describe which mechanisms and iteration
//! counts users have, and create, update or delete them. Sent to any broker.
//!
//! The password never crosses the wire: as the Java client does, gregor
//! salts it (32 random bytes unless a salt is given) and sends
//! `SaltedPassword = Hi(password, salt, iterations)` (RFC 5802, PBKDF2 with
//! HMAC-SHA-256 or -512).

use std::collections::BTreeMap;

use super::types::ScramMechanism;
use super::{call, check, entity_error, missing, AdminClient, AdminOptions};
use crate::error::{local, Error, Result};
use crate::protocol::alter_user_scram_credentials as auc;
use crate::protocol::describe_user_scram_credentials as duc;
use crate::wire::Bytes;

/// One credential of a user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScramCredentialInfo {
    /// The mechanism.
    pub mechanism: ScramMechanism,
    /// The iteration count.
    pub iterations: i32,
}

/// One user's credentials.
#[derive(Debug, Clone)]
pub struct UserScramCredentials {
    /// The user name.
    pub user: String,
    /// Their credentials, or the broker's error (`RESOURCE_NOT_FOUND` for a
    /// user without any).
    pub result: Result<Vec<ScramCredentialInfo>>,
}

/// A change to one user's credentials.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UserScramAlteration {
    /// Creates or replaces the credential for a mechanism.
    Upsert {
        /// The user name.
        user: String,
        /// The mechanism.
        mechanism: ScramMechanism,
        /// The iteration count (Kafka accepts 4096..=16384).
        iterations: i32,
        /// The password.
        password: String,
        /// The salt; `None` draws 32 random bytes.
        salt: Option<Vec<u8>>,
    },
    /// Deletes the credential for a mechanism.
    Delete {
        /// The user name.
        user: String,
        /// The mechanism.
        mechanism: ScramMechanism,
    },
}

impl UserScramAlteration {
    /// The user this alteration is for.
    pub fn user(&self) -> &str {
        match self {
            UserScramAlteration::Upsert { user, .. } | UserScramAlteration::Delete { user, .. } => {
                user
            }
        }
    }
}

/// RFC 5802's `Hi(str, salt, i)`: PBKDF2 with HMAC-`mechanism`, one block.
///
/// # Errors
/// `_INVALID_ARG` for an unknown mechanism or fewer than one iteration.
pub fn salted_password(
    mechanism: ScramMechanism,
    password: &[u8],
    salt: &[u8],
    iterations: i32,
) -> Result<Vec<u8>> {
    if iterations < 1 {
        return Err(Error::invalid_arg(format!(
            "SCRAM iterations must be positive, not {iterations}"
        )));
    }
    hi(mechanism, password, salt, iterations as u32)
}

#[cfg(feature = "sasl")]
fn hi(mechanism: ScramMechanism, password: &[u8], salt: &[u8], iterations: u32) -> Result<Vec<u8>> {
    // The same PBKDF2 the SCRAM client authenticates with.
    use crate::net::sasl::scram::Hash;
    match mechanism {
        ScramMechanism::SCRAM_SHA_256 => Ok(Hash::Sha256.hi(password, salt, iterations)),
        ScramMechanism::SCRAM_SHA_512 => Ok(Hash::Sha512.hi(password, salt, iterations)),
        m => Err(Error::invalid_arg(format!("unknown SCRAM mechanism {m}"))),
    }
}

/// Without the `sasl` feature there is no PBKDF2 to salt passwords with.
#[cfg(not(feature = "sasl"))]
fn hi(
    mechanism: ScramMechanism,
    _password: &[u8],
    _salt: &[u8],
    _iterations: u32,
) -> Result<Vec<u8>> {
    Err(Error::local(
        local::NOT_IMPLEMENTED,
        format!(
            "salting a {mechanism} password needs the `sasl` feature, \
             which this gregor was built without"
        ),
    ))
}

fn random_salt() -> Result<Vec<u8>> {
    let mut salt = vec![0u8; 32];
    getrandom::getrandom(&mut salt).map_err(|e| {
        Error::local(
            local::FAIL,
            format!("no random bytes for a SCRAM salt: {e}"),
        )
    })?;
    Ok(salt)
}

impl AdminClient {
    /// The SCRAM credentials of `users` (all users with credentials when
    /// `None`); one result per user.
    ///
    /// # Errors
    /// The broker's top-level error, no broker reachable, `_UNSUPPORTED_FEATURE`.
    pub fn describe_user_scram_credentials(
        &self,
        users: Option<&[&str]>,
        opts: &AdminOptions,
    ) -> Result<Vec<UserScramCredentials>> {
        let c = self.start(opts);
        let (resp, _) = self.on_any(&c, |conn| {
            call(conn, c.deadline, |_| {
                let req = duc::DescribeUserScramCredentialsRequest {
                    users: users.map(|us| {
                        us.iter()
                            .map(|u| duc::UserName {
                                name: (*u).to_string(),
                                ..Default::default()
                            })
                            .collect()
                    }),
                    ..Default::default()
                };
                Ok(req)
            })
        })?;
        check(
            resp.error_code,
            resp.error_message.as_deref(),
            "describe SCRAM credentials",
        )?;
        let mut by: BTreeMap<String, duc::DescribeUserScramCredentialsResult> = resp
            .results
            .into_iter()
            .map(|r| (r.user.clone(), r))
            .collect();
        let order: Vec<String> = match users {
            Some(us) => super::last_wins(us, |u| (*u).to_string())
                .into_iter()
                .map(str::to_string)
                .collect(),
            None => by.keys().cloned().collect(),
        };
        Ok(order
            .into_iter()
            .map(|user| {
                let what = format!("user {user}");
                let result = match by.remove(&user) {
                    // as the Java client: a user the broker left out has none
                    None => Err(Error::kafka(
                        crate::protocol::KafkaCode::RESOURCE_NOT_FOUND,
                        format!("{what}: no SCRAM credentials"),
                    )),
                    Some(r) if r.error_code != 0 => Err(entity_error(
                        r.error_code,
                        r.error_message.as_deref(),
                        &what,
                    )),
                    Some(r) => Ok(r
                        .credential_infos
                        .into_iter()
                        .map(|i| ScramCredentialInfo {
                            mechanism: ScramMechanism(i.mechanism),
                            iterations: i.iterations,
                        })
                        .collect()),
                };
                UserScramCredentials { user, result }
            })
            .collect())
    }

    /// Creates, updates or deletes SCRAM credentials; one result per
    /// distinct user, in order of first appearance (the broker answers per
    /// user).
    ///
    /// # Errors
    /// An unknown mechanism, an empty user or a salt failure
    /// (`_INVALID_ARG`), no broker reachable, `_UNSUPPORTED_FEATURE`.
    pub fn alter_user_scram_credentials(
        &self,
        alterations: &[UserScramAlteration],
        opts: &AdminOptions,
    ) -> Result<Vec<(String, Result<()>)>> {
        let c = self.start(opts);
        let mut req = auc::AlterUserScramCredentialsRequest::default();
        let mut users: Vec<String> = Vec::new();
        for a in alterations {
            if a.user().is_empty() {
                return Err(Error::invalid_arg("SCRAM user name is empty"));
            }
            if !users.iter().any(|u| u == a.user()) {
                users.push(a.user().to_string());
            }
            match a {
                UserScramAlteration::Delete { user, mechanism } => {
                    let d = auc::ScramCredentialDeletion {
                        name: user.clone(),
                        mechanism: mechanism.0,
                        ..Default::default()
                    };
                    req.deletions.push(d);
                }
                UserScramAlteration::Upsert {
                    user,
                    mechanism,
                    iterations,
                    password,
                    salt,
                } => {
                    let salt = match salt {
                        Some(s) => s.clone(),
                        None => random_salt()?,
                    };
                    let salted =
                        salted_password(*mechanism, password.as_bytes(), &salt, *iterations)?;
                    let u = auc::ScramCredentialUpsertion {
                        name: user.clone(),
                        mechanism: mechanism.0,
                        iterations: *iterations,
                        salt: Bytes::from(salt),
                        salted_password: Bytes::from(salted),
                        ..Default::default()
                    };
                    req.upsertions.push(u);
                }
            }
        }
        if users.is_empty() {
            return Ok(Vec::new());
        }
        let (resp, _) = self.on_any(&c, |conn| call(conn, c.deadline, |_| Ok(req.clone())))?;
        let mut by: BTreeMap<String, (i16, Option<String>)> = resp
            .results
            .into_iter()
            .map(|r| (r.user, (r.error_code, r.error_message)))
            .collect();
        Ok(users
            .into_iter()
            .map(|u| {
                let what = format!("user {u}");
                let r = match by.remove(&u) {
                    Some((code, msg)) => check(code, msg.as_deref(), &what),
                    None => Err(missing(&what, "AlterUserScramCredentials")),
                };
                (u, r)
            })
            .collect())
    }
}

// The vectors need the PBKDF2 of the `sasl` feature.
#[cfg(all(test, feature = "sasl"))]
mod tests {
    use super::*;

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    #[test]
    fn pbkdf2_vectors() {
        // RFC 7914 section 11, PBKDF2-HMAC-SHA256 (first 32 bytes of the 64 there)
        let out = salted_password(ScramMechanism::SCRAM_SHA_256, b"passwd", b"salt", 1).unwrap();
        assert_eq!(
            hex(&out),
            "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc"
        );
        // python3 -c 'import hashlib;print(hashlib.pbkdf2_hmac("sha512",b"pencil",b"NaCl",4096).hex())'
        let out = salted_password(ScramMechanism::SCRAM_SHA_512, b"pencil", b"NaCl", 4096).unwrap();
        assert_eq!(hex(&out), SHA512_PENCIL);
        assert!(salted_password(ScramMechanism(9), b"x", b"y", 1).is_err());
        assert!(salted_password(ScramMechanism::SCRAM_SHA_256, b"x", b"y", 0).is_err());
    }

    const SHA512_PENCIL: &str = "3160839726bdf455bf7547ac071dffcb0ca70047613b1650b55e47c263067970393ea81677a2896190024e87531f0b09da994075c8b01cd03509b63c77547a48";
}
