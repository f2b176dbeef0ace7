//! `sasl.oauthbearer.method=oidc` (KIP-768): the OAuth 2.0
//! client-credentials grant (RFC 6749 section 4.4) against
//! `sasl.oauthbearer.token.endpoint.url`, as librdkafka does it:
//!
//! - an HTTP/1.1 POST with `Authorization: Basic base64(client.id ":"
//!   client.secret)`, `Content-Type: application/x-www-form-urlencoded`,
//!   body `grant_type=client_credentials[&scope=…]`;
//! - over TLS (rustls, the `tls` feature) for `https://`, verified against
//!   `https.ca.location` / `https.ca.pem` or the system CA bundle;
//! - the JSON answer's `access_token` must be a JWT whose payload carries
//!   `exp` (the token's lifetime) and the subject claim
//!   (`sasl.oauthbearer.sub.claim.name`, default `sub`: the principal);
//! - `sasl.oauthbearer.extensions` ("k=v,k2=v2") travel as SASL
//!   extensions with the token.
//!
//! The client secret is never in a `Debug` output, a log line or an error.

use std::fmt;
use std::io::{Read, Write};
use std::time::{Duration, Instant};

use super::b64;
use super::oauthbearer::{check_extension_key, OAuthBearerToken};
use crate::config::Config;
use crate::error::{local, Error, Result};
use crate::net::conn::{self, SocketOptions};
use crate::net::tls::{self, TlsSettings};

/// How long one token request may take (librdkafka's OIDC timeout is 20 s).
const TIMEOUT: Duration = Duration::from_secs(20);
/// The largest answer read from the token endpoint.
const MAX_RESPONSE: u64 = 1 << 20;

/// What the client-credentials grant needs.
#[derive(Clone)]
pub struct Settings {
    /// `sasl.oauthbearer.token.endpoint.url`.
    pub url: String,
    /// `sasl.oauthbearer.client.id`.
    pub client_id: String,
    client_secret: String,
    /// `sasl.oauthbearer.scope`.
    pub scope: String,
    /// `sasl.oauthbearer.extensions`, parsed.
    pub extensions: Vec<(String, String)>,
    /// `sasl.oauthbearer.sub.claim.name`.
    pub sub_claim: String,
    /// TLS for an `https://` endpoint.
    tls: Option<TlsSettings>,
}

impl fmt::Debug for Settings {
    // The client secret stays out of logs and error messages.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Settings")
            .field("url", &self.url)
            .field("client_id", &self.client_id)
            .field("client_secret", &"[redacted]")
            .field("scope", &self.scope)
            .finish_non_exhaustive()
    }
}

fn bad(key: &str, reason: impl Into<String>) -> Error {
    Error::Config {
        key: key.into(),
        reason: reason.into(),
    }
}

/// `scheme://host[:port]/path` split up; the port defaults by scheme.
fn split_url(url: &str) -> Result<(bool, String, String)> {
    const KEY: &str = "sasl.oauthbearer.token.endpoint.url";
    let (https, rest) = if let Some(r) = url.strip_prefix("https://") {
        (true, r)
    } else if let Some(r) = url.strip_prefix("http://") {
        (false, r)
    } else {
        return Err(bad(
            KEY,
            format!("must start with https:// or http://: {url}"),
        ));
    };
    let (hostport, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    if hostport.is_empty() || hostport.contains('@') {
        return Err(bad(KEY, format!("no usable host in {url}")));
    }
    let has_port = match hostport.rfind(':') {
        Some(i) => !hostport[i..].contains(']'),
        None => false,
    };
    let addr = if has_port {
        hostport.to_string()
    } else {
        format!("{hostport}:{}", if https { 443 } else { 80 })
    };
    Ok((https, addr, path.to_string()))
}

impl Settings {
    /// Reads the OIDC properties.
    ///
    /// # Errors
    /// [`Error::Config`] naming a missing or unusable property.
    pub fn from_config(c: &Config) -> Result<Settings> {
        let need = |k: &str| -> Result<String> {
            let v = c.str(k);
            if v.is_empty() {
                return Err(bad(k, "must be set for sasl.oauthbearer.method=oidc"));
            }
            Ok(v.to_string())
        };
        if c.str("sasl.oauthbearer.grant.type") != "client_credentials" {
            return Err(bad(
                "sasl.oauthbearer.grant.type",
                "gregor implements the client_credentials grant only \
                 (the jwt-bearer assertion grant is not available)",
            ));
        }
        let url = need("sasl.oauthbearer.token.endpoint.url")?;
        let client_id = need("sasl.oauthbearer.client.id")?;
        let client_secret = need("sasl.oauthbearer.client.secret")?;
        let mut extensions = Vec::new();
        for item in c
            .str("sasl.oauthbearer.extensions")
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
        {
            let (k, v) = item.split_once('=').ok_or_else(|| {
                bad(
                    "sasl.oauthbearer.extensions",
                    format!("expected key=value: {item}"),
                )
            })?;
            check_extension_key(k)
                .map_err(|e| bad("sasl.oauthbearer.extensions", e.to_string()))?;
            extensions.push((k.to_string(), v.to_string()));
        }
        let (https, _, _) = split_url(&url)?;
        let tls = if https {
            let mut tc = Config::new();
            tc.set("security.protocol", "ssl")?;
            for (from, to) in [
                ("https.ca.location", "ssl.ca.location"),
                ("https.ca.pem", "ssl.ca.pem"),
            ] {
                let v = c.str(from);
                if !v.is_empty() {
                    tc.set(to, v).map_err(|e| bad(from, e.to_string()))?;
                }
            }
            TlsSettings::from_config(&tc).map_err(|e| match e {
                Error::Config { key, reason } => bad(&key.replace("ssl.", "https."), reason),
                e => e,
            })?
        } else {
            None
        };
        Ok(Settings {
            url,
            client_id,
            client_secret,
            scope: c.str("sasl.oauthbearer.scope").to_string(),
            extensions,
            sub_claim: c.str("sasl.oauthbearer.sub.claim.name").to_string(),
            tls,
        })
    }

    /// The request body: `grant_type=client_credentials[&scope=…]`.
    pub fn form(&self) -> String {
        let mut f = "grant_type=client_credentials".to_string();
        if !self.scope.is_empty() {
            f.push_str("&scope=");
            f.push_str(&form_encode(&self.scope));
        }
        f
    }
}

/// application/x-www-form-urlencoded (unreserved characters as they are).
fn form_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(b as char)
            }
            b => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

fn oidc_err(msg: impl Into<String>) -> Error {
    Error::local(local::AUTHENTICATION, msg)
}

/// Requests a token from the endpoint.
///
/// # Errors
/// `_AUTHENTICATION` saying what failed (connection, TLS, HTTP status,
/// JSON, JWT claims); never quoting the client secret.
pub fn fetch(s: &Settings) -> Result<OAuthBearerToken> {
    let (_, addr, path) = split_url(&s.url)?;
    let deadline = Instant::now() + TIMEOUT;
    let host = addr.clone();
    let body = s.form();
    let auth = b64::encode(format!("{}:{}", s.client_id, s.client_secret).as_bytes());
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Basic {auth}\r\n\
         Accept: application/json\r\nContent-Type: application/x-www-form-urlencoded\r\n\
         Content-Length: {}\r\nConnection: close\r\nUser-Agent: gregor\r\n\r\n{body}",
        body.len()
    );
    let what = format!("OIDC token endpoint {}", s.url);
    let sock = conn::connect(&addr, TIMEOUT, &SocketOptions::default())
        .map_err(|e| oidc_err(format!("{what}: {e}")))?;
    sock.set_read_timeout(Some(TIMEOUT))
        .map_err(|e| oidc_err(format!("{what}: {e}")))?;
    let raw = match &s.tls {
        Some(t) => {
            let (mut rd, mut wr) = tls::handshake(sock, t, &addr, deadline, &what)
                .map_err(|e| oidc_err(e.to_string()))?;
            // the whole answer by the deadline, however slowly it comes
            rd.set_deadline(Some(deadline));
            exchange(&mut rd, &mut wr, request.as_bytes())
        }
        None => {
            let mut wr = sock
                .try_clone()
                .map_err(|e| oidc_err(format!("{what}: {e}")))?;
            let mut sock = sock;
            let mut rd = conn::ReadBy {
                sock: &mut sock,
                deadline,
            };
            exchange(&mut rd, &mut wr, request.as_bytes())
        }
    }
    .map_err(|e| oidc_err(format!("{what}: {e}")))?;
    let (status, body) = parse_http(&raw).map_err(|e| oidc_err(format!("{what}: {e}")))?;
    if !(200..300).contains(&status) {
        let text: String = String::from_utf8_lossy(&body).chars().take(200).collect();
        return Err(oidc_err(format!("{what}: HTTP status {status}: {text}")));
    }
    token_from_response(&body, &s.sub_claim, &s.extensions)
        .map_err(|e| oidc_err(format!("{what}: {e}")))
}

fn exchange(rd: &mut impl Read, wr: &mut impl Write, request: &[u8]) -> std::io::Result<Vec<u8>> {
    wr.write_all(request)?;
    wr.flush()?;
    let mut raw = Vec::new();
    rd.take(MAX_RESPONSE).read_to_end(&mut raw).or_else(|e| {
        // a TLS peer that closes without close_notify still sent it all
        if e.kind() == std::io::ErrorKind::UnexpectedEof && !raw.is_empty() {
            Ok(0)
        } else {
            Err(e)
        }
    })?;
    Ok(raw)
}

/// Status and body of an HTTP/1.1 answer (Content-Length, chunked, or up
/// to the close).
fn parse_http(raw: &[u8]) -> std::result::Result<(u16, Vec<u8>), String> {
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or("incomplete HTTP answer")?;
    let head = String::from_utf8_lossy(&raw[..end]);
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let status: u16 = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("bad HTTP status line {status_line:?}"))?;
    let mut length = None;
    let mut chunked = false;
    for l in lines {
        if let Some((k, v)) = l.split_once(':') {
            let (k, v) = (k.trim().to_ascii_lowercase(), v.trim());
            if k == "content-length" {
                length = v.parse::<usize>().ok();
            } else if k == "transfer-encoding" && v.eq_ignore_ascii_case("chunked") {
                chunked = true;
            }
        }
    }
    let rest = &raw[end + 4..];
    let body = if chunked {
        let mut out = Vec::new();
        let mut at = 0;
        loop {
            let nl = rest[at..]
                .windows(2)
                .position(|w| w == b"\r\n")
                .ok_or("bad chunked body")?;
            let size_text = String::from_utf8_lossy(&rest[at..at + nl]);
            let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
                .map_err(|_| "bad chunk size")?;
            at += nl + 2;
            if size == 0 {
                break;
            }
            let chunk = rest.get(at..at + size).ok_or("truncated chunk")?;
            out.extend_from_slice(chunk);
            at += size + 2;
        }
        out
    } else if let Some(n) = length {
        rest.get(..n).ok_or("truncated HTTP body")?.to_vec()
    } else {
        rest.to_vec()
    };
    Ok((status, body))
}

/// The token in a token endpoint's JSON answer, checked as librdkafka
/// checks it: `access_token` is a JWT whose payload has a numeric `exp`
/// and a string subject claim.
///
/// # Errors
/// Saying which part is missing or malformed (never the token).
pub fn token_from_response(
    body: &[u8],
    sub_claim: &str,
    extensions: &[(String, String)],
) -> std::result::Result<OAuthBearerToken, String> {
    let v: serde_json::Value =
        serde_json::from_slice(body).map_err(|e| format!("answer is not JSON: {e}"))?;
    let token = v
        .get("access_token")
        .and_then(|t| t.as_str())
        .ok_or("no \"access_token\" in the answer")?;
    let payload = token
        .split('.')
        .nth(1)
        .filter(|_| token.split('.').count() == 3)
        .ok_or("access_token is not a JWT (three dot-separated parts)")?;
    let std_b64 = payload.replace('-', "+").replace('_', "/");
    let padded = format!("{std_b64}{}", "=".repeat((4 - std_b64.len() % 4) % 4));
    let claims = b64::decode(&padded).ok_or("the JWT payload is not base64url")?;
    let claims: serde_json::Value =
        serde_json::from_slice(&claims).map_err(|e| format!("the JWT payload is not JSON: {e}"))?;
    let exp = claims
        .get("exp")
        .and_then(serde_json::Value::as_f64)
        .ok_or("the JWT has no numeric \"exp\" claim")?;
    let principal = claims
        .get(sub_claim)
        .and_then(|s| s.as_str())
        .ok_or_else(|| format!("the JWT has no string \"{sub_claim}\" claim"))?;
    Ok(OAuthBearerToken {
        value: token.to_string(),
        lifetime_ms: (exp * 1000.0) as i64,
        principal: principal.to_string(),
        extensions: extensions.to_vec(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_and_form() {
        assert_eq!(
            split_url("https://idp.example/oauth2/token").unwrap(),
            (true, "idp.example:443".into(), "/oauth2/token".into())
        );
        assert_eq!(
            split_url("http://127.0.0.1:8080").unwrap(),
            (false, "127.0.0.1:8080".into(), "/".into())
        );
        assert!(split_url("ftp://x").is_err());
        assert_eq!(form_encode("read write:x"), "read%20write%3Ax");
    }

    #[test]
    fn response_checks() {
        let jwt = |claims: &str| {
            format!(
                "eyJhbGciOiJub25lIn0.{}.sig",
                b64::encode_url(claims.as_bytes())
            )
        };
        let body = format!(
            r#"{{"access_token":"{}","expires_in":60}}"#,
            jwt(r#"{"sub":"svc","exp":1900000000}"#)
        );
        let t = token_from_response(body.as_bytes(), "sub", &[]).unwrap();
        assert_eq!(t.principal, "svc");
        assert_eq!(t.lifetime_ms, 1_900_000_000_000);
        let body = format!(r#"{{"access_token":"{}"}}"#, jwt(r#"{"sub":"svc"}"#));
        let e = token_from_response(body.as_bytes(), "sub", &[]).unwrap_err();
        assert!(e.contains("exp"), "{e}");
        let body = format!(r#"{{"access_token":"{}"}}"#, jwt(r#"{"exp":1}"#));
        let e = token_from_response(body.as_bytes(), "azp", &[]).unwrap_err();
        assert!(e.contains("azp"), "{e}");
        assert!(token_from_response(b"{}", "sub", &[]).is_err());
        assert!(token_from_response(br#"{"access_token":"opaque"}"#, "sub", &[]).is_err());
        let (st, b) =
            parse_http(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n")
                .unwrap();
        assert_eq!((st, b.as_slice()), (200, &b"abcde"[..]));
    }

    #[test]
    fn secret_never_shown() {
        let c = Config::from_pairs([
            ("sasl.oauthbearer.method", "oidc"),
            (
                "sasl.oauthbearer.token.endpoint.url",
                "http://127.0.0.1:1/t",
            ),
            ("sasl.oauthbearer.client.id", "id"),
            ("sasl.oauthbearer.client.secret", "TOPSECRET"),
            ("sasl.oauthbearer.extensions", "a=1,b=2"),
        ])
        .unwrap();
        let s = Settings::from_config(&c).unwrap();
        assert_eq!(s.extensions.len(), 2);
        assert!(!format!("{s:?}").contains("TOPSECRET"));
        let e = fetch(&s).unwrap_err();
        assert!(!e.to_string().contains("TOPSECRET"), "{e}");
        assert_eq!(e.code(), local::AUTHENTICATION);
    }
}
