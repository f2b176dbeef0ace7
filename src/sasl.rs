//! SASL at run time, for any client: the user name and password of the
//! authentications still to come, and the SASL/OAUTHBEARER token (KIP-255)
//! an application supplies itself. As librdkafka's
//! `rd_kafka_sasl_set_credentials`, `rd_kafka_oauthbearer_set_token`,
//! `rd_kafka_oauthbearer_set_token_failure`,
//! `rd_kafka_conf_set_oauthbearer_token_refresh_cb` and
//! `rd_kafka_sasl_background_callbacks_enable`.
//!
//! [`Producer::sasl`](crate::producer::Producer::sasl),
//! [`Consumer::sasl`](crate::consumer::Consumer::sasl) and
//! [`AdminClient::sasl`](crate::admin::AdminClient::sasl) give a client's.

use crate::cluster::Cluster;
use crate::error::Result;
#[cfg(not(feature = "sasl"))]
use crate::error::{local, Error};

/// The application's OAUTHBEARER token refresh callback: it gets
/// `sasl.oauthbearer.config` and answers with [`Sasl::set_token`] or
/// [`Sasl::set_token_failure`] on the same client.
pub type RefreshCallback = Box<dyn FnMut(&str) + Send>;

/// One client's SASL controls (borrowed from the client).
pub struct Sasl<'a> {
    cluster: &'a Cluster,
}

impl<'a> Sasl<'a> {
    pub(crate) fn new(cluster: &'a Cluster) -> Self {
        Sasl { cluster }
    }

    /// Sets the SASL user name and password of the authentications that
    /// start from now on (new connections and reconnections); connections
    /// already authenticated stay as they are. Kept even when SASL is not
    /// configured, as librdkafka keeps them.
    pub fn set_credentials(&self, username: &str, password: &str) {
        self.cluster.set_sasl_credentials(username, password);
    }

    /// Sets the OAUTHBEARER token every authentication from now on uses:
    /// `lifetime_ms` is when it expires (ms since the epoch; the next
    /// refresh is due 80 % of the way there), `principal` its principal
    /// name, `extensions` the SASL extensions (RFC 7628) as key, value.
    ///
    /// # Errors
    /// `_STATE` when OAUTHBEARER is not the configured mechanism;
    /// `_INVALID_ARG` for an expired token, a value or extension outside
    /// RFC 7628's grammar, or the reserved extension key `auth`;
    /// `_NOT_IMPLEMENTED` without the `sasl` feature.
    pub fn set_token(
        &self,
        value: &str,
        lifetime_ms: i64,
        principal: &str,
        extensions: &[(String, String)],
    ) -> Result<()> {
        #[cfg(feature = "sasl")]
        return self
            .cluster
            .oauthbearer()?
            .set_token(value, lifetime_ms, principal, extensions);
        #[cfg(not(feature = "sasl"))]
        {
            let _ = (value, lifetime_ms, principal, extensions);
            Err(not_built())
        }
    }

    /// Reports that no token could be had (`reason` is logged and passed to
    /// the error callback); the refresh is tried again 10 s later.
    ///
    /// # Errors
    /// `_STATE` when OAUTHBEARER is not the configured mechanism;
    /// `_INVALID_ARG` for an empty reason; `_NOT_IMPLEMENTED` without the
    /// `sasl` feature.
    pub fn set_token_failure(&self, reason: &str) -> Result<()> {
        #[cfg(feature = "sasl")]
        return self.cluster.oauthbearer()?.set_token_failure(reason);
        #[cfg(not(feature = "sasl"))]
        {
            let _ = reason;
            Err(not_built())
        }
    }

    /// Sets (or with `None` clears) the token refresh callback. It runs
    /// when a token is needed (at first, then 80 % through each token's
    /// lifetime, 10 s after a failure) inside the client's `poll`, or on
    /// gregor's own thread after [`Sasl::enable_background_callbacks`] and
    /// for an admin client. It replaces the built-in unsecured-JWT and
    /// OIDC refreshers.
    ///
    /// # Errors
    /// As [`Sasl::set_token_failure`].
    pub fn set_refresh_callback(&self, cb: Option<RefreshCallback>) -> Result<()> {
        #[cfg(feature = "sasl")]
        {
            let ob = self.cluster.oauthbearer()?;
            ob.set_refresh_callback(cb.map(
                |mut cb| -> crate::net::sasl::token::TokenRefreshCallback {
                    Box::new(move |_, config: &str| cb(config))
                },
            ));
            Ok(())
        }
        #[cfg(not(feature = "sasl"))]
        {
            let _ = cb;
            Err(not_built())
        }
    }

    /// Runs the refresh callback on gregor's own thread from now on, so an
    /// application that polls rarely (or not yet) still gets its token.
    ///
    /// # Errors
    /// As [`Sasl::set_token_failure`].
    pub fn enable_background_callbacks(&self) -> Result<()> {
        #[cfg(feature = "sasl")]
        {
            self.cluster.oauthbearer()?.enable_background_callbacks();
            Ok(())
        }
        #[cfg(not(feature = "sasl"))]
        Err(not_built())
    }

    /// Whether OAUTHBEARER is the configured mechanism.
    pub fn is_oauthbearer(&self) -> bool {
        #[cfg(feature = "sasl")]
        return self.cluster.oauthbearer().is_ok();
        #[cfg(not(feature = "sasl"))]
        false
    }
}

#[cfg(not(feature = "sasl"))]
fn not_built() -> Error {
    Error::local(
        local::NOT_IMPLEMENTED,
        "SASL/OAUTHBEARER: built without the sasl feature",
    )
}
