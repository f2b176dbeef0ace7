//! Broker registrations under `/brokers/ids/<id>`, in every format Kafka
//! wrote:
//!
//! - Kafka 0.7 (its design document's "Zookeeper Directories"): `creator:host:port`;
//! - JSON version 1 (0.8.0–0.8.2): `host`, `port`, `jmx_port`, `timestamp`;
//! - version 2 (0.9): adds `endpoints` (`"PLAINTEXT://host:port"`);
//! - version 3 (0.10): adds `rack`;
//! - version 4 (0.10.2): `endpoints` carry listener names, mapped to security
//!   protocols by `listener_security_protocol_map`; `host`/`port` are the
//!   PLAINTEXT endpoint or null/-1 when there is none;
//! - version 5 (2.7): adds `features` (`{"name": {"min_version", "max_version"}}`).
//!
//! The endpoint a client uses is the first whose security protocol matches
//! `security.protocol` (Kafka's `Broker.endPoint` by protocol).

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::Value;
use zookeeper::ZooKeeper;

use super::json::{self, bad};
use super::session;
use crate::error::{local, Error};

/// Where brokers register.
///
/// cbindgen:ignore
pub const BROKER_IDS_PATH: &str = "/brokers/ids";

/// One listener of a broker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// The listener name (`PLAINTEXT`, `INTERNAL`, …).
    pub listener: String,
    /// Its security protocol (`PLAINTEXT`, `SSL`, `SASL_PLAINTEXT`, `SASL_SSL`).
    pub security_protocol: String,
    /// Host (may be empty: all interfaces).
    pub host: String,
    /// Port.
    pub port: u16,
}

/// A broker's registration, as read from ZooKeeper.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZkBroker {
    /// Broker id (the znode's name).
    pub id: i32,
    /// Registration format: 0 for Kafka 0.7's `creator:host:port`, else the JSON `version`.
    pub version: i32,
    /// Its listeners (for version 1 and 0.7, the one PLAINTEXT endpoint).
    pub endpoints: Vec<Endpoint>,
    /// Rack (version 3+).
    pub rack: Option<String>,
    /// JMX port, -1 if none.
    pub jmx_port: i32,
    /// Registration time in ms since the epoch, if written.
    pub timestamp: Option<i64>,
    /// Supported features (version 5): name → (min_version, max_version).
    pub features: BTreeMap<String, (i16, i16)>,
    /// The 0.7 creator field (empty for JSON registrations).
    pub creator: String,
}

impl ZkBroker {
    /// The endpoint for `security_protocol` (case-insensitive).
    ///
    /// # Errors
    /// `_BAD_MSG` naming the znode and the protocols it does offer.
    pub fn endpoint(&self, security_protocol: &str) -> Result<&Endpoint, Error> {
        self.endpoints
            .iter()
            .find(|e| e.security_protocol.eq_ignore_ascii_case(security_protocol))
            .ok_or_else(|| {
                let offered: Vec<String> = self
                    .endpoints
                    .iter()
                    .map(|e| format!("{}({})", e.listener, e.security_protocol))
                    .collect();
                Error::local(
                    local::BAD_MSG,
                    format!(
                        "{BROKER_IDS_PATH}/{}: field \"endpoints\": no {} endpoint (offers {})",
                        self.id,
                        security_protocol.to_ascii_uppercase(),
                        if offered.is_empty() {
                            "none".to_string()
                        } else {
                            offered.join(", ")
                        }
                    ),
                )
            })
    }

    /// "host:port" of the endpoint for `security_protocol` (IPv6 in brackets).
    ///
    /// # Errors
    /// As [`ZkBroker::endpoint`].
    pub fn addr(&self, security_protocol: &str) -> Result<String, Error> {
        let e = self.endpoint(security_protocol)?;
        Ok(host_port(&e.host, e.port))
    }
}

fn host_port(host: &str, port: u16) -> String {
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// A Kafka 0.7 registration, `creator:host:port`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Broker07 {
    /// Its `brokerid`.
    pub id: i32,
    /// The registration's creator field (the broker's host and start time).
    pub creator: String,
    /// The host to connect to.
    pub host: String,
    /// The port to connect to.
    pub port: u16,
}

impl Broker07 {
    /// "host:port" (an IPv6 host in brackets).
    pub fn addr(&self) -> String {
        host_port(&self.host, self.port)
    }
}

/// Parses a Kafka 0.7 `/brokers/ids/<id>` value, "creator:host:port". As
/// the Kafka wiki's "Writing a Driver for Kafka" says, split on ':' and take
/// the host from the second element;
/// an IPv6 host (more colons) is everything between the first and the last.
///
/// # Errors
/// Fewer than three fields, an empty host, or a port that is not 1–65535.
pub fn parse_registration_07(id: i32, value: &str) -> Result<Broker07, Error> {
    let bad = |why: &str| {
        Error::local(
            local::BAD_MSG,
            format!("{BROKER_IDS_PATH}/{id} = {value:?}: {why} (expected \"creator:host:port\")"),
        )
    };
    let value = value.trim();
    let (creator, rest) = value.split_once(':').ok_or_else(|| bad("no ':'"))?;
    let (host, port) = rest
        .rsplit_once(':')
        .ok_or_else(|| bad("only two fields"))?;
    if host.is_empty() {
        return Err(bad("empty host"));
    }
    let port: u16 = port
        .parse()
        .ok()
        .filter(|p| *p > 0)
        .ok_or_else(|| bad("bad port"))?;
    Ok(Broker07 {
        id,
        creator: creator.to_string(),
        host: host.to_string(),
        port,
    })
}

/// Parses `LISTENER://host:port` (host may be `[v6]` or empty).
fn parse_endpoint(path: &str, s: &str) -> Result<(String, String, u16), Error> {
    let bad_ep = |why: &str| bad(path, "endpoints", format!("{s:?}: {why}"));
    let (listener, rest) = s
        .split_once("://")
        .ok_or_else(|| bad_ep("expected LISTENER://host:port"))?;
    let (host, port) = rest.rsplit_once(':').ok_or_else(|| bad_ep("no port"))?;
    let port: u16 = port
        .parse()
        .ok()
        .filter(|p| *p > 0)
        .ok_or_else(|| bad_ep("bad port"))?;
    if listener.is_empty() {
        return Err(bad_ep("empty listener name"));
    }
    let host = host.trim_start_matches('[').trim_end_matches(']');
    Ok((listener.to_string(), host.to_string(), port))
}

/// Parses one `/brokers/ids/<id>` value in any format (JSON v1–5 or 0.7).
///
/// # Errors
/// `_BAD_MSG` naming the znode and the field at fault.
pub fn parse_registration(id: i32, data: &[u8]) -> Result<ZkBroker, Error> {
    let path = format!("{BROKER_IDS_PATH}/{id}");
    let trimmed = String::from_utf8_lossy(data);
    if !trimmed.trim_start().starts_with('{') {
        let b = parse_registration_07(id, &trimmed)?;
        return Ok(ZkBroker {
            id,
            version: 0,
            endpoints: vec![Endpoint {
                listener: "PLAINTEXT".into(),
                security_protocol: "PLAINTEXT".into(),
                host: b.host,
                port: b.port,
            }],
            rack: None,
            jmx_port: -1,
            timestamp: None,
            features: BTreeMap::new(),
            creator: b.creator,
        });
    }
    let node = json::parse(&path, data)?;
    let version = node.int("version", 1, 5)? as i32;
    let jmx_port = node.opt_int("jmx_port", -1, 65535)?.unwrap_or(-1) as i32;
    let timestamp = node.opt_int("timestamp", i64::MIN, i64::MAX)?;
    let rack = node.opt_str("rack")?;
    let mut protocol_map = BTreeMap::new();
    for (listener, v) in node.object("listener_security_protocol_map")? {
        let p = v.as_str().ok_or_else(|| {
            bad(
                &path,
                "listener_security_protocol_map",
                format!("{listener}: expected a protocol name, got {v}"),
            )
        })?;
        protocol_map.insert(listener, p.to_ascii_uppercase());
    }
    let mut endpoints = Vec::new();
    for v in node.array("endpoints")? {
        let s = v
            .as_str()
            .ok_or_else(|| bad(&path, "endpoints", format!("expected a string, got {v}")))?;
        let (listener, host, port) = parse_endpoint(&path, s)?;
        let security_protocol = match protocol_map.get(&listener) {
            Some(p) => p.clone(),
            None if version >= 4 && !protocol_map.is_empty() => {
                return Err(bad(
                    &path,
                    "listener_security_protocol_map",
                    format!("no entry for listener {listener}"),
                ))
            }
            // Before version 4 the listener name is the protocol.
            None => listener.to_ascii_uppercase(),
        };
        endpoints.push(Endpoint {
            listener,
            security_protocol,
            host,
            port,
        });
    }
    // host/port: the PLAINTEXT endpoint (null / -1 in v4+ when there is none).
    let host = node.opt_str("host")?;
    let port = node.opt_int("port", -1, 65535)?;
    if endpoints.is_empty() {
        match (host, port) {
            (Some(h), Some(p)) if p > 0 => endpoints.push(Endpoint {
                listener: "PLAINTEXT".into(),
                security_protocol: "PLAINTEXT".into(),
                host: h,
                port: p as u16,
            }),
            (None, _) => return Err(bad(&path, "host", "missing (and no endpoints)")),
            _ => return Err(bad(&path, "port", "missing (and no endpoints)")),
        }
    }
    let mut features = BTreeMap::new();
    for (name, v) in node.object("features")? {
        let range = |k: &str| -> Result<i16, Error> {
            v.get(k)
                .and_then(Value::as_i64)
                .and_then(|n| i16::try_from(n).ok())
                .ok_or_else(|| bad(&path, "features", format!("{name}: bad or missing {k}")))
        };
        features.insert(name.clone(), (range("min_version")?, range("max_version")?));
    }
    Ok(ZkBroker {
        id,
        version,
        endpoints,
        rack,
        jmx_port,
        timestamp,
        features,
        creator: String::new(),
    })
}

/// Reads every registered broker (setting watches on the list and on each
/// registration when `watch`). Ids that are not numbers are skipped, as
/// Kafka does; a registration that vanished between listing and reading is
/// a broker that left.
///
/// # Errors
/// ZooKeeper failures and malformed registrations.
pub fn read_brokers(
    zk: &ZooKeeper,
    timeout: Duration,
    watch: bool,
) -> Result<Vec<ZkBroker>, Error> {
    let mut out = Vec::new();
    for id in session::children(zk, timeout, BROKER_IDS_PATH, watch)? {
        let Ok(n) = id.parse::<i32>() else {
            continue;
        };
        let path = format!("{BROKER_IDS_PATH}/{id}");
        if let Some(data) = session::get(zk, timeout, &path, watch)? {
            out.push(parse_registration(n, &data)?);
        }
    }
    out.sort_by_key(|b| b.id);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_5_as_kafka_writes_it() {
        let b = parse_registration(
            0,
            br#"{"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},
               "endpoints":["PLAINTEXT://192.168.1.76:9092"],"jmx_port":-1,"features":{},
               "host":"192.168.1.76","timestamp":"1649662012051","port":9092,"version":5}"#,
        )
        .unwrap();
        assert_eq!(b.version, 5);
        assert_eq!(b.timestamp, Some(1_649_662_012_051));
        assert_eq!(b.addr("plaintext").unwrap(), "192.168.1.76:9092");
    }

    #[test]
    fn listener_names_map_to_protocols() {
        let b = parse_registration(
            3,
            br#"{"listener_security_protocol_map":{"INTERNAL":"SSL","EXTERNAL":"PLAINTEXT"},
               "endpoints":["INTERNAL://10.0.0.1:9093","EXTERNAL://[::1]:9092"],
               "rack":"r1","jmx_port":9999,"host":null,"port":-1,"version":4,
               "features":{"metadata.version":{"min_version":1,"max_version":7}}}"#,
        )
        .unwrap();
        assert_eq!(b.addr("PLAINTEXT").unwrap(), "[::1]:9092");
        assert_eq!(b.addr("ssl").unwrap(), "10.0.0.1:9093");
        assert_eq!(b.rack.as_deref(), Some("r1"));
        assert_eq!(b.features["metadata.version"], (1, 7));
        let e = b.addr("sasl_ssl").unwrap_err().to_string();
        assert!(
            e.contains("/brokers/ids/3") && e.contains("endpoints"),
            "{e}"
        );
    }

    #[test]
    fn version_1_and_07() {
        let b = parse_registration(
            1,
            br#"{"jmx_port":-1,"timestamp":"1","host":"h","version":1,"port":9092}"#,
        )
        .unwrap();
        assert_eq!(b.addr("PLAINTEXT").unwrap(), "h:9092");
        let b = parse_registration(2, b"10.0.0.1-1330:127.0.0.1:9092").unwrap();
        assert_eq!((b.version, b.creator.as_str()), (0, "10.0.0.1-1330"));
        assert_eq!(b.addr("PLAINTEXT").unwrap(), "127.0.0.1:9092");
    }

    #[test]
    fn malformed_names_path_and_field() {
        for (data, field) in [
            (&br#"{"version":1,"host":"h","port":"x"}"#[..], "port"),
            (br#"{"version":9,"host":"h","port":1}"#, "version"),
            (br#"{"version":2,"endpoints":["nohost"]}"#, "endpoints"),
            (br#"{"version":4,"endpoints":["A://h:1"],"listener_security_protocol_map":{"B":"SSL"}}"#,
                "listener_security_protocol_map"),
            (br#"{"version":5,"host":"h","port":1,"features":{"f":{"min_version":1}}}"#, "features"),
            (br#"{"version":1,"port":1}"#, "host"),
        ] {
            let e = parse_registration(7, data).unwrap_err().to_string();
            assert!(e.contains("/brokers/ids/7") && e.contains(&format!("\"{field}\"")), "{e}");
        }
        assert!(parse_registration(7, b"{not json").is_err());
        assert!(parse_registration(7, b"creator:host").is_err());
    }
}
