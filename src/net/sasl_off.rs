//! `src/net/sasl/` for a build without the `sasl` feature: the same
//! interface, with a mechanism that cannot be made, and `security.protocol`
//! `sasl_plaintext`/`sasl_ssl` refused with `_NOT_IMPLEMENTED` naming the
//! feature (the configuration refuses it first, when it is set).

use std::fmt;
use std::time::Instant;

use super::conn::{ReadHalf, WriteHalf};
use crate::config::{not_built, Config};
use crate::error::Result;
use crate::protocol::versions::BrokerApis;

/// A SASL mechanism: none can exist without the `sasl` feature.
#[derive(Clone)]
pub enum Mechanism {}

impl fmt::Debug for Mechanism {
    fn fmt(&self, _f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {}
    }
}

impl Mechanism {
    /// The SASL name (none exists in this build).
    pub fn name(&self) -> &'static str {
        match *self {}
    }

    /// The user name (none exists in this build).
    pub fn user(&self) -> &str {
        match *self {}
    }

    /// Nothing to start (none exists in this build).
    pub fn attach(&self, _events: &std::sync::Arc<crate::net::client_events::Events>) {
        match *self {}
    }

    /// Never waits (none exists in this build).
    ///
    /// # Errors
    /// None.
    pub fn ready(&self, _deadline: Instant) -> Result<()> {
        match *self {}
    }

    /// `None` for `plaintext` and `ssl`.
    ///
    /// # Errors
    /// `_NOT_IMPLEMENTED` for `sasl_plaintext` and `sasl_ssl`.
    pub fn from_config(c: &Config) -> Result<Option<Mechanism>> {
        match c.str("security.protocol") {
            p @ ("sasl_plaintext" | "sasl_ssl") => Err(not_built("security.protocol", p, "sasl")),
            _ => Ok(None),
        }
    }
}

/// Never called: there is no [`Mechanism`].
///
/// # Errors
/// None.
#[allow(clippy::too_many_arguments)]
pub fn authenticate(
    _rd: &mut ReadHalf,
    _wr: &mut WriteHalf,
    _apis: &BrokerApis,
    mechanism: &Mechanism,
    _deadline: Instant,
    _broker: &str,
    _client_id: &str,
    _max_response: usize,
) -> Result<i64> {
    match *mechanism {}
}

/// How SASL requests travel (see src/net/sasl/mod.rs).
pub trait Transport {
    /// Sends `req` at `version` and returns its response.
    ///
    /// # Errors
    /// Transport errors.
    fn call<R: crate::protocol::Request>(&mut self, req: &R, version: i16) -> Result<R::Response>;

    /// Sends a raw token.
    ///
    /// # Errors
    /// Transport errors.
    fn raw(&mut self, token: &[u8]) -> Result<Vec<u8>>;
}

/// Never called: there is no [`Mechanism`].
///
/// # Errors
/// None.
pub fn exchange(
    _io: &mut impl Transport,
    _apis: &BrokerApis,
    mechanism: &Mechanism,
    _broker: &str,
) -> Result<i64> {
    match *mechanism {}
}

/// No session re-authenticates without SASL.
pub fn can_reauthenticate(_apis: &BrokerApis) -> bool {
    false
}

/// Credentials set at run time: accepted, as librdkafka accepts them
/// without SASL configured; without the `sasl` feature nothing uses them.
#[derive(Clone, Default)]
pub struct CredentialsOverride;

impl fmt::Debug for CredentialsOverride {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CredentialsOverride(..)")
    }
}

impl CredentialsOverride {
    /// Nothing to replace without SASL.
    pub fn set(&self, _username: &str, _password: &str) {}

    /// There is no mechanism to apply them to.
    pub fn apply<'a>(&self, m: &'a Mechanism) -> std::borrow::Cow<'a, Mechanism> {
        std::borrow::Cow::Borrowed(m)
    }
}
