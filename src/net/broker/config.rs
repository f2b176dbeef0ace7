//! The network settings every connection of a client shares.

use std::sync::Arc;
use std::time::Duration;

use crate::config::Config;
use crate::error::Result;
use crate::log::Logger;
use crate::net::client_events::Events;
use crate::net::conn::{AddressFamily, SocketOptions};
use crate::net::sasl::{CredentialsOverride, Mechanism};
use crate::net::tls::TlsSettings;

/// Network settings shared by all connections of a client.
#[derive(Debug, Clone)]
pub struct NetConfig {
    /// `client.id`.
    pub client_id: String,
    /// `socket.connection.setup.timeout.ms`.
    pub connect_timeout: Duration,
    /// `socket.timeout.ms`: default time a request may take.
    pub request_timeout: Duration,
    /// `receive.message.max.bytes`.
    pub max_response: usize,
    /// `max.in.flight.requests.per.connection`.
    pub max_in_flight: usize,
    /// `reconnect.backoff.ms`.
    pub backoff: Duration,
    /// `reconnect.backoff.max.ms`.
    pub backoff_max: Duration,
    /// `api.version.request`.
    pub api_version_request: bool,
    /// `api.version.request.timeout.ms`.
    pub api_version_timeout: Duration,
    /// `broker.version.fallback`.
    pub version_fallback: String,
    /// `socket.nagle.disable`, `socket.keepalive.enable`,
    /// `socket.send.buffer.bytes`, `socket.receive.buffer.bytes`,
    /// `broker.address.family`.
    pub socket: SocketOptions,
    /// `connections.max.idle.ms`: a connection with no request in flight
    /// and no traffic for this long is closed (the next request reconnects).
    /// Zero: never.
    pub max_idle: Duration,
    /// TLS settings when `security.protocol` is `ssl` or `sasl_ssl`.
    pub tls: Option<TlsSettings>,
    /// The SASL mechanism when `security.protocol` is `sasl_*`.
    pub sasl: Option<Mechanism>,
    /// The client's event queue (errors, throttling), shared by all its
    /// connections: each `from_config` makes a new one.
    pub events: Arc<Events>,
    /// `security.protocol`, for log lines.
    pub protocol: String,
    /// The client's logger (src/log.rs); [`Logger::off`] from
    /// [`NetConfig::from_config`], the client's own once a cluster has it.
    pub log: Logger,
    /// User name and password set at run time, over `sasl`'s (shared by
    /// every clone: one per client).
    pub sasl_credentials: CredentialsOverride,
}

impl NetConfig {
    /// Reads the network properties of a configuration, loading TLS
    /// certificates and keys.
    ///
    /// # Errors
    /// [`Error::Config`] naming a security property whose value or file
    /// is unusable.
    pub fn from_config(c: &Config) -> Result<Self> {
        let events = Events::new();
        let sasl = Mechanism::from_config(c)?;
        if let Some(m) = &sasl {
            // the OAUTHBEARER token refresh starts with the client
            m.attach(&events);
        }
        Ok(NetConfig {
            client_id: c.str("client.id").to_string(),
            connect_timeout: c.ms("socket.connection.setup.timeout.ms"),
            request_timeout: c.ms("socket.timeout.ms"),
            max_response: c.int("receive.message.max.bytes") as usize,
            max_in_flight: c.int("max.in.flight.requests.per.connection") as usize,
            backoff: c.ms("reconnect.backoff.ms"),
            backoff_max: c.ms("reconnect.backoff.max.ms"),
            api_version_request: c.bool("api.version.request"),
            api_version_timeout: c.ms("api.version.request.timeout.ms"),
            version_fallback: c.str("broker.version.fallback").to_string(),
            socket: SocketOptions {
                nodelay: c.bool("socket.nagle.disable"),
                keepalive: c.bool("socket.keepalive.enable"),
                send_buffer: c.int("socket.send.buffer.bytes") as usize,
                recv_buffer: c.int("socket.receive.buffer.bytes") as usize,
                family: AddressFamily::from_name(c.str("broker.address.family")),
            },
            max_idle: c.ms("connections.max.idle.ms"),
            tls: TlsSettings::from_config(c)?,
            sasl,
            events,
            protocol: c.str("security.protocol").to_string(),
            log: Logger::off(),
            // a unit struct without the sasl feature
            #[allow(clippy::default_constructed_unit_structs)]
            sasl_credentials: CredentialsOverride::default(),
        })
    }
}

impl Default for NetConfig {
    fn default() -> Self {
        // The defaults are plaintext: nothing to load, nothing can fail.
        NetConfig::from_config(&Config::new()).unwrap_or_else(|e| panic!("default config: {e}"))
    }
}
