//! OAUTHBEARER client (RFC 7628, KIP-255): the client's first message
//! with the token current when the authentication starts (src/net/sasl/
//! token.rs keeps and refreshes it; where it comes from):
//!
//! - `sasl.oauthbearer.token`: a token obtained elsewhere, sent as is
//!   (gregor's own property; librdkafka sets one from a refresh callback);
//! - `enable.sasl.oauthbearer.unsecure.jwt=true` with
//!   `sasl.oauthbearer.config`: librdkafka's unsecured JWT (RFC 7515
//!   appendix A.5, `{"alg":"none"}`), built for each connection from
//!   "principal=… [principalClaimName=…] [scope=a,b] [scopeClaimName=…]
//!   [lifeSeconds=…] [extension_NAME=value]…", byte for byte as librdkafka
//!   builds it. Extensions go into the client's first message.

use std::fmt;

use super::b64;
use super::session::{auth_error, Session, Step};
use crate::error::{Error, Result};

/// librdkafka's unsecured-JWT settings (`sasl.oauthbearer.config`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsecured {
    /// `principal`.
    pub principal: String,
    /// `principalClaimName` (default "sub").
    pub principal_claim: String,
    /// `scope`, split at commas, duplicates and empties dropped.
    pub scope: Vec<String>,
    /// `scopeClaimName` (default "scope").
    pub scope_claim: String,
    /// `lifeSeconds` (default 3600).
    pub life_seconds: i64,
    /// `extension_NAME=value` pairs, in order.
    pub extensions: Vec<(String, String)>,
}

fn bad(key: &str, reason: impl Into<String>) -> Error {
    Error::Config {
        key: key.into(),
        reason: reason.into(),
    }
}

impl Unsecured {
    /// Parses `sasl.oauthbearer.config` as librdkafka does.
    ///
    /// # Errors
    /// [`Error::Config`] on `sasl.oauthbearer.config` saying what is wrong.
    pub fn parse(cfg: &str) -> Result<Unsecured> {
        const KEY: &str = "sasl.oauthbearer.config";
        let mut u = Unsecured {
            principal: String::new(),
            principal_claim: "sub".into(),
            scope: Vec::new(),
            scope_claim: "scope".into(),
            life_seconds: 3600,
            extensions: Vec::new(),
        };
        if cfg.trim().is_empty() {
            return Err(bad(KEY, "must not be empty (principal=NAME is required)"));
        }
        for item in cfg.split(' ').filter(|s| !s.is_empty()) {
            let (k, v) = item
                .split_once('=')
                .ok_or_else(|| bad(KEY, format!("unrecognized item {item:?}")))?;
            if v.is_empty() {
                return Err(bad(KEY, format!("empty '{k}='")));
            }
            if v.contains('"') {
                return Err(bad(KEY, format!("'\"' cannot appear in {k}: {v}")));
            }
            match k {
                "principal" => u.principal = v.into(),
                "principalClaimName" => u.principal_claim = v.into(),
                "scopeClaimName" => u.scope_claim = v.into(),
                "scope" => {
                    for s in v.split(',').filter(|s| !s.is_empty()) {
                        if !u.scope.iter().any(|x| x == s) {
                            u.scope.push(s.into());
                        }
                    }
                }
                "lifeSeconds" => {
                    u.life_seconds = v
                        .parse::<i64>()
                        .ok()
                        .filter(|n| *n > 0 && *n <= i64::from(i32::MAX))
                        .ok_or_else(|| {
                            bad(KEY, format!("lifeSeconds must be a positive int: {v}"))
                        })?
                }
                k if k.starts_with("extension_") && k.len() > "extension_".len() => {
                    let name = &k["extension_".len()..];
                    // RFC 7628: key = 1*ALPHA; "auth" is reserved
                    if !name.bytes().all(|b| b.is_ascii_alphabetic()) || name == "auth" {
                        return Err(bad(KEY, format!("invalid extension name {name:?}")));
                    }
                    u.extensions.push((name.into(), v.into()));
                }
                _ => return Err(bad(KEY, format!("unrecognized item beginning at: {item}"))),
            }
        }
        if u.principal.is_empty() {
            return Err(bad(KEY, "no principal=<value>"));
        }
        Ok(u)
    }

    /// The JWS compact serialization at `now_ms` (ms since the epoch):
    /// `{"alg":"none"}` header, claims, empty signature.
    pub fn jwt(&self, now_ms: i64) -> String {
        let now = now_ms as f64 / 1000.0;
        let scope = if self.scope.is_empty() {
            String::new()
        } else {
            format!(
                ",\"{}\":[\"{}\"]",
                self.scope_claim,
                self.scope.join("\",\"")
            )
        };
        let claims = format!(
            "{{\"{}\":\"{}\",\"iat\":{now:.3},\"exp\":{:.3}{scope}}}",
            self.principal_claim,
            self.principal,
            now + self.life_seconds as f64
        );
        format!(
            "eyJhbGciOiJub25lIn0.{}.",
            b64::encode_url(claims.as_bytes())
        )
    }
}

/// A token with its SASL extensions.
#[derive(Clone)]
pub struct Token {
    /// The bearer token.
    pub value: String,
    /// `key=value` extensions.
    pub extensions: Vec<(String, String)>,
}

impl std::fmt::Debug for Token {
    // The token value stays out of logs and error messages.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Token")
            .field("value", &"[redacted]")
            .field("extensions", &self.extensions)
            .finish()
    }
}

/// A token as the application hands it over.
#[derive(Clone, PartialEq, Eq)]
pub struct OAuthBearerToken {
    /// The token (often a JWS compact serialization).
    pub value: String,
    /// When it expires, in milliseconds since the epoch.
    pub lifetime_ms: i64,
    /// The Kafka principal it stands for.
    pub principal: String,
    /// SASL extensions (RFC 7628 section 3.1) sent with it.
    pub extensions: Vec<(String, String)>,
}

impl fmt::Debug for OAuthBearerToken {
    // The token value stays out of logs and error messages.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuthBearerToken")
            .field("value", &"[redacted]")
            .field("lifetime_ms", &self.lifetime_ms)
            .field("principal", &self.principal)
            .field("extensions", &self.extensions.len())
            .finish()
    }
}

/// RFC 7628 section 3.1: key = 1*(ALPHA), and not the reserved "auth".
///
/// # Errors
/// `_INVALID_ARG` saying what is wrong, as librdkafka's messages.
pub fn check_extension_key(key: &str) -> Result<()> {
    if key == "auth" {
        return Err(Error::local(
            crate::error::local::INVALID_ARG,
            "Cannot explicitly set the reserved `auth` SASL/OAUTHBEARER extension key",
        ));
    }
    if key.is_empty() {
        return Err(Error::local(
            crate::error::local::INVALID_ARG,
            "SASL/OAUTHBEARER extension keys must not be empty",
        ));
    }
    if !key.bytes().all(|b| b.is_ascii_alphabetic()) {
        return Err(Error::local(
            crate::error::local::INVALID_ARG,
            format!(
                "SASL/OAUTHBEARER extension keys must only consist of A-Z or a-z characters: {key}"
            ),
        ));
    }
    Ok(())
}

/// RFC 7628 client-first: gs2 header, kvsep, auth, extensions, kvsep.
pub fn client_first(token: &Token) -> Vec<u8> {
    let mut m = format!("n,,\x01auth=Bearer {}\x01", token.value);
    for (k, v) in &token.extensions {
        m.push_str(&format!("{k}={v}\x01"));
    }
    m.push('\x01');
    m.into_bytes()
}

/// One OAUTHBEARER exchange.
pub struct Client {
    token: Token,
    /// The broker's error challenge, once it sent one.
    failed: Option<String>,
}

impl Client {
    /// An exchange sending `token`.
    pub fn new(token: Token) -> Client {
        Client {
            token,
            failed: None,
        }
    }
}

impl Session for Client {
    fn start(&mut self) -> Result<Vec<u8>> {
        Ok(client_first(&self.token))
    }

    fn step(&mut self, answer: &[u8]) -> Result<Step> {
        if let Some(err) = self.failed.take() {
            return Err(auth_error(format!(
                "SASL OAUTHBEARER authentication failed: {err}"
            )));
        }
        if answer.is_empty() {
            return Ok(Step::Done);
        }
        // An error challenge (JSON): RFC 7628 has the client answer with a
        // lone kvsep, then the broker fails the exchange.
        self.failed = Some(String::from_utf8_lossy(answer).into_owned());
        Ok(Step::Send(vec![0x01]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsecured_jwt_as_librdkafka_builds_it() {
        let u = Unsecured::parse(
            "principalClaimName=azp principal=admin scopeClaimName=roles \
             scope=role1,role2,,role1 lifeSeconds=600 extension_traceId=123",
        )
        .unwrap();
        assert_eq!(u.scope, ["role1", "role2"]);
        assert_eq!(u.extensions, [("traceId".to_string(), "123".to_string())]);
        let jwt = u.jwt(1_549_251_467_546);
        let parts: Vec<&str> = jwt.split('.').collect();
        assert_eq!(parts.len(), 3);
        assert_eq!(parts[0], "eyJhbGciOiJub25lIn0");
        assert_eq!(parts[2], "");
        let claims = b64::decode(parts[1]).unwrap_or_else(|| {
            // URL alphabet: map back for the standard decoder
            b64::decode(&parts[1].replace('-', "+").replace('_', "/")).unwrap()
        });
        assert_eq!(
            String::from_utf8(claims).unwrap(),
            r#"{"azp":"admin","iat":1549251467.546,"exp":1549252067.546,"roles":["role1","role2"]}"#
        );
    }

    #[test]
    fn config_errors() {
        for bad in [
            "",
            "scope=a",
            "principal=",
            "principal=a lifeSeconds=x",
            "principal=a lifeSeconds=0",
            "principal=a\"b",
            "principal=a what=b",
            "principal=a extension_auth=x",
        ] {
            let e = Unsecured::parse(bad).unwrap_err();
            assert!(
                e.to_string().contains("sasl.oauthbearer.config"),
                "{bad}: {e}"
            );
        }
    }

    #[test]
    fn client_first_and_error_challenge() {
        let t = Token {
            value: "tok".into(),
            extensions: vec![("a".into(), "1".into())],
        };
        assert_eq!(client_first(&t), b"n,,\x01auth=Bearer tok\x01a=1\x01\x01");
        let mut c = Client::new(t);
        c.start().unwrap();
        assert_eq!(
            c.step(br#"{"status":"invalid_token"}"#).unwrap(),
            Step::Send(vec![1])
        );
        let e = c.step(b"").unwrap_err();
        assert!(e.to_string().contains("invalid_token"), "{e}");
    }
}
