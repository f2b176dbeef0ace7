//! Setting up one broker session, synchronously on the new socket.
//!
//! On connect, after the TLS handshake when `security.protocol` says so
//! (src/net/tls.rs, which also says how a TLS session is shared between the
//! I/O thread and writers), the API versions are negotiated (ApiVersions,
//! retried at the broker's own version on UNSUPPORTED_VERSION, or at v0 when
//! that answer does not parse, KIP-511) or
//! taken from `broker.version.fallback` when `api.version.request` is false;
//! then SASL authenticates the connection when configured (src/net/sasl/),
//! which gives the session lifetime KIP-368 re-authentication works from
//! (src/net/broker/reauth.rs). An OAUTHBEARER connection first waits for
//! its token (src/net/sasl/token.rs).

use std::time::{Duration, Instant};

use std::net::TcpStream;

use super::config::NetConfig;
use crate::error::{local, Error, Result};
use crate::log::{self, ctx, level};
use crate::net::conn::{self, ReadHalf, WriteHalf};
use crate::net::errors::io_error;
use crate::protocol::api_versions::{ApiVersionsRequest, ApiVersionsResponse};
use crate::protocol::versions::{ApiRange, BrokerApis};
use crate::protocol::{decode_response, encode_request, KafkaCode, Message};
use crate::wire::{Reader, Writer};

/// Connects to `addr` (TLS handshake included), negotiates versions and
/// authenticates, synchronously on the new socket; `dialled` sees the TCP
/// socket as soon as it is connected, and may refuse it. Returns the
/// socket's halves, the broker's API versions and the session lifetime
/// (KIP-368; 0 for none).
pub(super) fn connect(
    cfg: &NetConfig,
    name: &str,
    addr: &str,
    deadline: Instant,
    dialled: impl FnOnce(&TcpStream) -> Result<()>,
) -> Result<(ReadHalf, WriteHalf, BrokerApis, i64)> {
    if let Some(mech) = &cfg.sasl {
        // an OAUTHBEARER connection waits for its token before dialling
        let until = Instant::now()
            + deadline
                .saturating_duration_since(Instant::now())
                .min(cfg.connect_timeout);
        mech.ready(until).map_err(|e| match e {
            Error::Local { code, message } => Error::local(code, format!("{}: {message}", name)),
            e => e,
        })?;
    }
    let (mut rd, mut wr, apis) = negotiate(cfg, name, addr, deadline, dialled)?;
    // the broker's session lifetime (KIP-368), 0 for none
    let mut lifetime = 0;
    if let Some(mech) = &cfg.sasl {
        log::debug!(
            cfg.log,
            ctx::SECURITY | ctx::BROKER,
            "SASLMECHS",
            "{}: Authenticating with SASL mechanism {} (user \"{}\")",
            name,
            mech.name(),
            mech.user()
        );
        let setup_deadline = Instant::now()
            + deadline
                .saturating_duration_since(Instant::now())
                .min(cfg.connect_timeout);
        lifetime = crate::net::sasl::authenticate(
            &mut rd,
            &mut wr,
            &apis,
            // the credentials set at run time, if any, over the configured ones
            &cfg.sasl_credentials.apply(mech),
            setup_deadline,
            name,
            &cfg.client_id,
            cfg.max_response,
        )
        .inspect_err(|e| {
            log::debug!(
                cfg.log,
                ctx::SECURITY | ctx::BROKER,
                "SASLAUTH",
                "{}: SASL {} authentication failed: {e}",
                name,
                mech.name()
            )
        })?;
        log::debug!(
            cfg.log,
            ctx::SECURITY | ctx::BROKER,
            "SASLAUTH",
            "{}: Authenticated with SASL mechanism {} (session lifetime {lifetime} ms)",
            name,
            mech.name()
        );
    }
    Ok((rd, wr, apis, lifetime))
}

/// Connects (TLS handshake included) and negotiates versions.
fn negotiate(
    cfg: &NetConfig,
    name: &str,
    addr: &str,
    deadline: Instant,
    dialled: impl FnOnce(&TcpStream) -> Result<()>,
) -> Result<(ReadHalf, WriteHalf, BrokerApis)> {
    let budget = deadline
        .saturating_duration_since(Instant::now())
        .min(cfg.connect_timeout);
    let setup_deadline = Instant::now() + budget.min(cfg.api_version_timeout + cfg.connect_timeout);
    let stream = conn::connect(addr, budget, &cfg.socket).map_err(|e| retag(e, name, addr))?;
    dialled(&stream)?;
    let io_timeout = Some(cfg.request_timeout.max(Duration::from_millis(1)));
    stream
        .set_write_timeout(io_timeout)
        .map_err(|e| io_error(name, "set timeout", &e))?;
    let (mut rd, mut wr) = match &cfg.tls {
        None => ReadHalf::plain(stream, name)?,
        Some(tls) => {
            log::debug!(
                cfg.log,
                ctx::SECURITY | ctx::BROKER,
                "SSL",
                "{name}: Starting SSL handshake with {}",
                addr
            );
            let t0 = Instant::now();
            let (r, w) = crate::net::tls::handshake(stream, tls, addr, setup_deadline, name)
                .inspect_err(|e| {
                    log::debug!(
                        cfg.log,
                        ctx::SECURITY | ctx::BROKER,
                        "SSL",
                        "{name}: SSL handshake failed: {e}"
                    )
                })?;
            log::debug!(
                cfg.log,
                ctx::SECURITY | ctx::BROKER,
                "SSL",
                "{name}: SSL handshake done in {} ms",
                t0.elapsed().as_millis()
            );
            (ReadHalf::Tls(Box::new(r)), WriteHalf::Tls(Box::new(w)))
        }
    };
    if !cfg.api_version_request {
        let apis = BrokerApis::fallback(&cfg.version_fallback).map_err(|e| Error::Config {
            key: "broker.version.fallback".into(),
            reason: e,
        })?;
        log::debug!(
            cfg.log,
            ctx::FEATURE | ctx::BROKER,
            "APIVERSION",
            "{name}: api.version.request=false: using broker.version.fallback {}",
            cfg.version_fallback
        );
        return Ok((rd, wr, apis));
    }
    let mut version = ApiVersionsRequest::MAX_VERSION;
    for _ in 0..3 {
        // read_frame_by arms every read with what is left of the setup
        let req = ApiVersionsRequest {
            client_software_name: "gregor".into(),
            client_software_version: env!("CARGO_PKG_VERSION").into(),
            ..Default::default()
        };
        let corr = 0;
        let mut w = Writer::new();
        encode_request(&mut w, corr, Some(&cfg.client_id), version, &req)?;
        conn::write_frame(&mut wr, w.as_slice(), name)?;
        let frame = conn::read_frame_by(&mut rd, cfg.max_response, name, setup_deadline)?;
        let mut r = Reader::new(&frame);
        // An UNSUPPORTED_VERSION answer comes as a v0 body (KIP-511).
        let peek = {
            let mut p = Reader::new(&frame);
            p.skip(4).and_then(|_| p.i16()).unwrap_or(0)
        };
        let body_version = if peek == KafkaCode::UNSUPPORTED_VERSION.0 {
            0
        } else {
            version
        };
        let (header, resp): (_, ApiVersionsResponse) =
            match decode_response::<ApiVersionsRequest>(&mut r, body_version) {
                Ok(decoded) => decoded,
                // KIP-511: a client that cannot parse the UNSUPPORTED_VERSION
                // answer retries at v0, which every broker understands (some
                // brokers answer a flexible request with a body that is neither
                // a v0 body nor the requested version's).
                Err(_) if peek == KafkaCode::UNSUPPORTED_VERSION.0 && version > 0 => {
                    log::debug!(
                        cfg.log,
                        ctx::FEATURE | ctx::PROTOCOL | ctx::BROKER,
                        "APIVERSION",
                        "{name}: ApiVersionRequest v{version} not supported by broker \
                             (unparsable answer), retrying with v0"
                    );
                    version = 0;
                    continue;
                }
                Err(error) => {
                    return Err(Error::Decode {
                        broker: Some(name.to_string()),
                        error,
                    })
                }
            };
        if header.correlation_id != corr {
            return Err(Error::local(
                local::BAD_MSG,
                format!(
                    "{name}: correlation id {} does not match {corr}",
                    header.correlation_id
                ),
            ));
        }
        if resp.error_code == KafkaCode::UNSUPPORTED_VERSION.0 {
            let broker_max = resp
                .api_keys
                .iter()
                .find(|k| k.api_key == 18)
                .map(|k| k.max_version);
            match crate::protocol::versions::api_versions_retry(resp.error_code, broker_max) {
                Some(v) if v < version => {
                    log::debug!(
                        cfg.log,
                        ctx::FEATURE | ctx::PROTOCOL | ctx::BROKER,
                        "APIVERSION",
                        "{name}: ApiVersionRequest v{version} not supported by broker, \
                             retrying with v{v}"
                    );
                    version = v;
                    continue;
                }
                _ => {}
            }
        }
        if resp.error_code != 0 {
            log::at!(
                cfg.log,
                level::ERR,
                "APIVERSION",
                "{name}: ApiVersionRequest v{version} failed: {}",
                KafkaCode(resp.error_code)
            );
            return Err(Error::kafka(
                KafkaCode(resp.error_code),
                format!("{name}: ApiVersions"),
            ));
        }
        log::debug!(
            cfg.log,
            ctx::FEATURE | ctx::PROTOCOL | ctx::BROKER,
            "APIVERSION",
            "{name}: ApiVersionRequest v{version}: broker supports {} API(s)",
            resp.api_keys.len()
        );
        let apis = BrokerApis::from_ranges(
            resp.api_keys
                .iter()
                .map(|k| ApiRange::new(k.api_key, k.min_version, k.max_version)),
        )
        .with_finalized_features(
            resp.finalized_features_epoch,
            resp.finalized_features
                .iter()
                .map(|f| (f.name.as_str(), f.max_version_level)),
        );
        return Ok((rd, wr, apis));
    }
    Err(Error::local(
        local::BAD_MSG,
        format!("{name}: ApiVersions negotiation did not converge"),
    ))
}

/// Puts the broker's name on a connect error that only names the address.
fn retag(e: Error, name: &str, addr: &str) -> Error {
    match e {
        Error::Local { code, message } if name != addr => Error::Local {
            code,
            message: format!(
                "{name}: {}",
                message.trim_start_matches(&format!("{addr}: "))
            ),
        },
        e => e,
    }
}
