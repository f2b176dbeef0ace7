//! SASL authentication of a new connection, after ApiVersions and before
//! any other request (KIP-43, KIP-152): SaslHandshake names the mechanism;
//! with v1 the mechanism's tokens travel in SaslAuthenticate requests, with
//! v0 as raw size-prefixed frames. A broker without SaslHandshake (0.9)
//! gets raw frames straight away, as librdkafka does.
//!
//! Mechanisms: PLAIN (RFC 4616), SCRAM-SHA-256/512 (RFC 5802, RFC 7677,
//! [`scram`]) and OAUTHBEARER (RFC 7628, [`oauthbearer`]), configured with
//! librdkafka's properties. A failed authentication fails the connection
//! attempt; the connection's reconnect backoff applies before the next.

pub mod b64;
pub mod oauthbearer;
pub mod oidc;
pub mod scram;
mod session;
pub mod token;

pub use session::{auth_error, Session, Step};

use crate::sync::RwLockExt;
use std::borrow::Cow;
use std::fmt;
use std::io::{ErrorKind, Write};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use super::conn::{self, ReadHalf, WriteHalf};
use super::errors::io_error;
use crate::config::Config;
use crate::error::{local, Error, Result};
use crate::protocol::sasl_authenticate::SaslAuthenticateRequest;
use crate::protocol::sasl_handshake::SaslHandshakeRequest;
use crate::protocol::versions::BrokerApis;
use crate::protocol::{decode_response, encode_request, KafkaCode, Request};
use crate::wire::{Bytes, Reader, Writer};

/// The configured mechanism with its credentials.
#[derive(Clone)]
pub enum Mechanism {
    /// PLAIN: user name and password in the clear (use with TLS).
    Plain {
        /// `sasl.username`.
        username: String,
        /// `sasl.password`.
        password: String,
    },
    /// SCRAM-SHA-256 or -512.
    Scram {
        /// Which hash.
        hash: scram::Hash,
        /// `sasl.username`.
        username: String,
        /// `sasl.password`.
        password: String,
    },
    /// OAUTHBEARER with the client's token holder.
    OAuthBearer(token::OAuthBearer),
}

/// SASL credentials set after the client was made (librdkafka's
/// `rd_kafka_sasl_set_credentials`): shared by every connection of one
/// client; PLAIN and SCRAM authentications that start after the change use
/// them, connections already authenticated are left alone.
#[derive(Clone, Default)]
pub struct CredentialsOverride(Arc<RwLock<Option<(String, String)>>>);

impl fmt::Debug for CredentialsOverride {
    // Credentials stay out of logs and error messages.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CredentialsOverride(..)")
    }
}

impl CredentialsOverride {
    /// Replaces the user name and password for authentications from now on.
    pub fn set(&self, username: &str, password: &str) {
        let mut g = self.0.write_locked();
        *g = Some((username.to_string(), password.to_string()));
    }

    /// `m` with the credentials set last, if any (OAUTHBEARER has none).
    pub fn apply<'a>(&self, m: &'a Mechanism) -> Cow<'a, Mechanism> {
        let g = self.0.read_locked();
        match (&*g, m) {
            (Some((u, p)), Mechanism::Plain { .. }) => Cow::Owned(Mechanism::Plain {
                username: u.clone(),
                password: p.clone(),
            }),
            (Some((u, p)), Mechanism::Scram { hash, .. }) => Cow::Owned(Mechanism::Scram {
                hash: *hash,
                username: u.clone(),
                password: p.clone(),
            }),
            _ => Cow::Borrowed(m),
        }
    }
}

impl fmt::Debug for Mechanism {
    // Credentials stay out of logs and error messages.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Mechanism {
    /// The SASL name ("SCRAM-SHA-256").
    pub fn name(&self) -> &'static str {
        match self {
            Mechanism::Plain { .. } => "PLAIN",
            Mechanism::Scram { hash, .. } => hash.name(),
            Mechanism::OAuthBearer(_) => "OAUTHBEARER",
        }
    }

    /// The user name (PLAIN, SCRAM; empty for OAUTHBEARER), for log lines:
    /// never the password.
    pub fn user(&self) -> &str {
        match self {
            Mechanism::Plain { username, .. } | Mechanism::Scram { username, .. } => username,
            Mechanism::OAuthBearer(_) => "",
        }
    }

    /// Reads `sasl.*` when `security.protocol` is `sasl_plaintext` or
    /// `sasl_ssl`; `None` otherwise.
    ///
    /// # Errors
    /// [`Error::Config`] naming the property that is missing or wrong.
    pub fn from_config(c: &Config) -> Result<Option<Mechanism>> {
        if !matches!(c.str("security.protocol"), "sasl_plaintext" | "sasl_ssl") {
            return Ok(None);
        }
        let user = || -> Result<(String, String)> {
            let u = c.str("sasl.username");
            if u.is_empty() {
                return Err(Error::Config {
                    key: "sasl.username".into(),
                    reason: format!(
                        "must be set for sasl.mechanisms={}",
                        c.str("sasl.mechanisms")
                    ),
                });
            }
            Ok((u.to_string(), c.str("sasl.password").to_string()))
        };
        Ok(Some(match c.str("sasl.mechanisms") {
            "PLAIN" => {
                let (username, password) = user()?;
                Mechanism::Plain { username, password }
            }
            "SCRAM-SHA-256" | "SCRAM-SHA-512" => {
                let (username, password) = user()?;
                let hash = if c.str("sasl.mechanisms") == "SCRAM-SHA-256" {
                    scram::Hash::Sha256
                } else {
                    scram::Hash::Sha512
                };
                Mechanism::Scram {
                    hash,
                    username,
                    password,
                }
            }
            "OAUTHBEARER" => Mechanism::OAuthBearer(token::OAuthBearer::from_config(c)?),
            m => {
                return Err(Error::Config {
                    key: "sasl.mechanisms".into(),
                    reason: format!(
                        "{m} (Kerberos) is not available in gregor: \
                         use PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER"
                    ),
                })
            }
        }))
    }

    /// The OAUTHBEARER token holder, when that is the mechanism.
    pub fn oauthbearer(&self) -> Option<&token::OAuthBearer> {
        match self {
            Mechanism::OAuthBearer(ob) => Some(ob),
            _ => None,
        }
    }

    /// Starts what the mechanism needs for a client whose poll serves
    /// `events` (the OAUTHBEARER token refresh).
    pub fn attach(&self, events: &std::sync::Arc<crate::net::client_events::Events>) {
        if let Mechanism::OAuthBearer(ob) = self {
            ob.attach(events);
        }
    }

    /// Waits until the mechanism can authenticate (an OAUTHBEARER token is
    /// there) or `deadline` passes; at once for the others.
    ///
    /// # Errors
    /// `_AUTHENTICATION` when no token came, or its refresh failed.
    pub fn ready(&self, deadline: Instant) -> Result<()> {
        match self {
            Mechanism::OAuthBearer(ob) => ob.wait_ready(deadline),
            _ => Ok(()),
        }
    }

    /// A new exchange for one connection.
    ///
    /// # Errors
    /// `_FAIL` if no random nonce can be had; a token that cannot be built.
    pub fn session(&self) -> Result<Box<dyn Session>> {
        Ok(match self {
            Mechanism::Plain { username, password } => Box::new(Plain {
                token: plain_token(username, password),
                sent: false,
            }),
            Mechanism::Scram {
                hash,
                username,
                password,
            } => Box::new(scram::Client::new(*hash, username, password)?),
            Mechanism::OAuthBearer(ob) => Box::new(oauthbearer::Client::new(ob.current()?)),
        })
    }
}

/// RFC 4616: authzid (empty), NUL, authcid, NUL, password.
fn plain_token(username: &str, password: &str) -> Vec<u8> {
    let mut t = Vec::with_capacity(username.len() + password.len() + 2);
    t.push(0);
    t.extend_from_slice(username.as_bytes());
    t.push(0);
    t.extend_from_slice(password.as_bytes());
    t
}

struct Plain {
    token: Vec<u8>,
    sent: bool,
}

impl Session for Plain {
    fn start(&mut self) -> Result<Vec<u8>> {
        self.sent = true;
        Ok(std::mem::take(&mut self.token))
    }

    fn step(&mut self, _answer: &[u8]) -> Result<Step> {
        // The broker answers an accepted PLAIN token with an empty token;
        // a refusal comes as an error code or a closed connection.
        Ok(Step::Done)
    }
}

/// How the SASL requests of one authentication travel: synchronously on a
/// new connection, or through an established connection's request
/// pipeline when it re-authenticates (KIP-368).
pub trait Transport {
    /// Sends `req` at `version` and returns its response.
    ///
    /// # Errors
    /// Transport errors, timeouts, a malformed response.
    fn call<R: Request>(&mut self, req: &R, version: i16) -> Result<R::Response>;

    /// Sends a raw size-prefixed token (SaslHandshake v0 or no handshake)
    /// and returns the raw answer.
    ///
    /// # Errors
    /// Transport errors, timeouts; a transport without raw frames.
    fn raw(&mut self, token: &[u8]) -> Result<Vec<u8>>;
}

/// Authenticates a freshly set-up connection (ApiVersions done) with
/// `mechanism`, before `deadline`. Returns the session lifetime the broker
/// gave (SaslAuthenticate v1+, KIP-368; 0: none) in milliseconds.
///
/// # Errors
/// `UNSUPPORTED_SASL_MECHANISM` when the broker does not enable the
/// mechanism; `SASL_AUTHENTICATION_FAILED` (58) with the broker's message
/// when it refuses the credentials; `_AUTHENTICATION` when the client
/// refuses the broker's answer or the broker closes the connection
/// mid-exchange (how v0 brokers refuse); transport errors and timeouts.
#[allow(clippy::too_many_arguments)]
pub fn authenticate(
    rd: &mut ReadHalf,
    wr: &mut WriteHalf,
    apis: &BrokerApis,
    mechanism: &Mechanism,
    deadline: Instant,
    broker: &str,
    client_id: &str,
    max_response: usize,
) -> Result<i64> {
    let mut io = Io {
        rd,
        wr,
        deadline,
        broker,
        client_id,
        max_response,
        corr: 1,
        mechanism: mechanism.name(),
    };
    exchange(&mut io, apis, mechanism, broker)
}

/// Whether a connection to a broker with `apis` can re-authenticate
/// (KIP-368: SaslHandshake v1 and SaslAuthenticate v1 or later).
pub fn can_reauthenticate(apis: &BrokerApis) -> bool {
    apis.pick_for::<SaslHandshakeRequest>()
        .is_some_and(|v| v >= 1)
        && apis
            .pick_for::<SaslAuthenticateRequest>()
            .is_some_and(|v| v >= 1)
}

/// The SASL exchange (handshake, then the mechanism's tokens) over `io`;
/// returns the session lifetime in milliseconds (0: none).
///
/// # Errors
/// As [`authenticate`].
pub fn exchange(
    io: &mut impl Transport,
    apis: &BrokerApis,
    mechanism: &Mechanism,
    broker: &str,
) -> Result<i64> {
    let name = mechanism.name();
    // Kafka framing (SaslAuthenticate) after a v1 handshake; raw frames after
    // v0, or with no handshake at all for brokers that lack it.
    let auth_version = match apis.pick_for::<SaslHandshakeRequest>() {
        Some(v) => {
            let req = SaslHandshakeRequest {
                mechanism: name.to_string(),
                ..Default::default()
            };
            let resp = io.call(&req, v)?;
            if resp.error_code != 0 {
                return Err(Error::kafka(
                    KafkaCode(resp.error_code),
                    format!(
                        "{broker}: SASL mechanism {name} refused (the broker enables {})",
                        resp.mechanisms.join(", ")
                    ),
                ));
            }
            if v >= 1 {
                Some(apis.pick_for::<SaslAuthenticateRequest>().unwrap_or(0))
            } else {
                None
            }
        }
        None => None,
    };
    let mut session = mechanism.session()?;
    let mut token = session.start()?;
    let mut lifetime = 0;
    loop {
        let answer = match auth_version {
            Some(v) => {
                let req = SaslAuthenticateRequest {
                    auth_bytes: Bytes::from(token),
                    ..Default::default()
                };
                let resp = io.call(&req, v)?;
                if resp.error_code != 0 {
                    let msg = resp
                        .error_message
                        .filter(|m| !m.is_empty())
                        .map_or_else(String::new, |m| format!(": {m}"));
                    return Err(Error::kafka(
                        KafkaCode(resp.error_code),
                        format!("{broker}: SASL {name} authentication failed{msg}"),
                    ));
                }
                // KIP-368: the last SaslAuthenticate response carries it
                lifetime = resp.session_lifetime_ms.max(0);
                resp.auth_bytes.to_vec()
            }
            None => io.raw(&token)?,
        };
        let step = session.step(&answer).map_err(|e| match e {
            Error::Local { code, message } => Error::local(code, format!("{broker}: {message}")),
            e => e,
        })?;
        match step {
            Step::Send(t) => token = t,
            Step::Done => return Ok(lifetime),
        }
    }
}

/// The synchronous exchanges of authentication on the new connection.
struct Io<'a> {
    rd: &'a mut ReadHalf,
    wr: &'a mut WriteHalf,
    deadline: Instant,
    broker: &'a str,
    client_id: &'a str,
    max_response: usize,
    corr: i32,
    mechanism: &'a str,
}

impl Transport for Io<'_> {
    fn call<R: Request>(&mut self, req: &R, version: i16) -> Result<R::Response> {
        Io::call(self, req, version)
    }

    fn raw(&mut self, token: &[u8]) -> Result<Vec<u8>> {
        Io::raw(self, token)
    }
}

impl Io<'_> {
    fn arm(&mut self) -> Result<()> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(Error::timed_out(format!(
                "{}: SASL {} authentication timed out",
                self.broker, self.mechanism
            )));
        }
        self.rd
            .socket()
            .set_read_timeout(Some(left.max(Duration::from_millis(1))))
            .map_err(|e| io_error(self.broker, "set timeout", &e))
    }

    /// A closed connection mid-exchange is how a broker says no on raw frames.
    fn read(&mut self) -> Result<Vec<u8>> {
        conn::read_frame_by(self.rd, self.max_response, self.broker, self.deadline).map_err(|e| {
            if e.code() == local::TRANSPORT && e.to_string().contains("closed by broker") {
                auth_error(format!(
                    "{}: SASL {} authentication failed: the broker closed the connection \
                     (check sasl.username, sasl.password and the broker's log)",
                    self.broker, self.mechanism
                ))
            } else {
                e
            }
        })
    }

    fn call<R: Request>(&mut self, req: &R, version: i16) -> Result<R::Response> {
        self.arm()?;
        let corr = self.corr;
        self.corr += 1;
        let mut w = Writer::new();
        encode_request(&mut w, corr, Some(self.client_id), version, req)?;
        conn::write_frame(self.wr, w.as_slice(), self.broker)?;
        let frame = self.read()?;
        let mut r = Reader::new(&frame);
        let (h, resp) = decode_response::<R>(&mut r, version).map_err(|error| Error::Decode {
            broker: Some(self.broker.to_string()),
            error,
        })?;
        if h.correlation_id != corr {
            return Err(Error::local(
                local::BAD_MSG,
                format!(
                    "{}: {} correlation id {} does not match {corr}",
                    self.broker,
                    crate::protocol::api_name(R::API_KEY),
                    h.correlation_id
                ),
            ));
        }
        Ok(resp)
    }

    fn raw(&mut self, token: &[u8]) -> Result<Vec<u8>> {
        self.arm()?;
        let len = i32::try_from(token.len())
            .map_err(|_| Error::invalid_arg("SASL token larger than 2 GiB"))?;
        let mut frame = Vec::with_capacity(token.len() + 4);
        frame.extend_from_slice(&len.to_be_bytes());
        frame.extend_from_slice(token);
        self.wr
            .write_all(&frame)
            .map_err(|e| io_error(self.broker, "write", &e))?;
        // A raw answer is a size and bytes, like a frame but possibly empty.
        let mut size = [0u8; 4];
        std::io::Read::read_exact(self.rd, &mut size).map_err(|e| {
            if matches!(
                e.kind(),
                ErrorKind::UnexpectedEof
                    | ErrorKind::ConnectionReset
                    | ErrorKind::ConnectionAborted
            ) {
                auth_error(format!(
                    "{}: SASL {} authentication failed: the broker closed the connection \
                     (check sasl.username, sasl.password and the broker's log)",
                    self.broker, self.mechanism
                ))
            } else {
                io_error(self.broker, "read", &e)
            }
        })?;
        let n = i32::from_be_bytes(size);
        if n < 0 || n as usize > self.max_response {
            return Err(Error::local(
                local::BAD_MSG,
                format!("{}: invalid SASL frame size {n}", self.broker),
            ));
        }
        let mut buf = Vec::with_capacity((n as usize).min(1 << 16));
        let got =
            std::io::Read::read_to_end(&mut std::io::Read::take(&mut *self.rd, n as u64), &mut buf)
                .map_err(|e| io_error(self.broker, "read", &e))?;
        if got < n as usize {
            let eof = std::io::Error::from(ErrorKind::UnexpectedEof);
            return Err(io_error(self.broker, "read", &eof));
        }
        Ok(buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_token_bytes() {
        assert_eq!(plain_token("alice", "s3cr3t"), b"\0alice\0s3cr3t");
    }

    #[test]
    fn config_errors_name_the_property() {
        let c = Config::from_pairs([("security.protocol", "sasl_plaintext")]).unwrap();
        let e = Mechanism::from_config(&c).unwrap_err();
        assert!(e.to_string().contains("sasl.mechanisms"), "{e}");
        let c = Config::from_pairs([
            ("security.protocol", "sasl_plaintext"),
            ("sasl.mechanism", "scram-sha-512"),
        ])
        .unwrap();
        let e = Mechanism::from_config(&c).unwrap_err();
        assert!(e.to_string().contains("sasl.username"), "{e}");
        let c = Config::from_pairs([
            ("security.protocol", "sasl_plaintext"),
            ("sasl.mechanisms", "OAUTHBEARER"),
        ])
        .unwrap();
        // as librdkafka: no token source configured is fine, the
        // application sets tokens (refresh callback or set_token)
        let m = Mechanism::from_config(&c).unwrap().unwrap();
        assert!(matches!(
            m.oauthbearer().unwrap().source(),
            token::Source::App
        ));
        let c = Config::from_pairs([
            ("security.protocol", "SASL_PLAINTEXT"),
            ("sasl.mechanisms", "SCRAM-SHA-256"),
            ("sasl.username", "u"),
            ("sasl.password", "secret"),
        ])
        .unwrap();
        let m = Mechanism::from_config(&c).unwrap().unwrap();
        assert_eq!(m.name(), "SCRAM-SHA-256");
        assert!(!format!("{m:?}").contains("secret"));
        assert!(Mechanism::from_config(&Config::new()).unwrap().is_none());
    }
}
