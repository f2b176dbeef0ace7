//! TLS to brokers with rustls (ring provider; no OpenSSL), configured with
//! librdkafka's `ssl.*` properties.
//!
//! A TLS connection is one state machine, so it cannot be split into two
//! independent halves the way a `TcpStream` is. The I/O thread reads
//! ciphertext from its own handle on the socket *without* holding any lock
//! and only takes the connection's lock to decrypt what arrived; writers
//! take a write lock (socket order), encrypt under the connection's lock,
//! release it, and then write the ciphertext. Neither side ever holds the
//! connection's lock while blocked on the socket, so a writer stuck on a
//! full send buffer never stops responses from being read (which is what
//! would otherwise deadlock against a broker that stops reading until its
//! responses are consumed). Plain TCP does not go through any of this.

use crate::sync::MutexExt;
use std::io::{self, ErrorKind, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::{self, PemObject};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{
    CertificateError, ClientConfig, ClientConnection, DigitallySignedStruct, RootCertStore,
};

use super::deadline;
use super::errors::{describe, io_error};
use crate::config::Config;
use crate::error::{local, Error, Result};

/// Where CA bundles are looked for when `ssl.ca.location` is unset or
/// "probe" (librdkafka's probe list, Debian's first).
const CA_PROBE: &[&str] = &[
    "/etc/ssl/certs/ca-certificates.crt",
    "/etc/pki/tls/certs/ca-bundle.crt",
    "/usr/share/ssl/certs/ca-bundle.crt",
    "/etc/pki/tls/certs/ca-bundle.trust.crt",
    "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
    "/etc/ssl/ca-bundle.pem",
    "/etc/pki/tls/cacert.pem",
    "/etc/ssl/cert.pem",
    "/etc/ssl/cacert.pem",
    "/usr/local/etc/openssl/cert.pem",
];

/// The TLS settings of a client, built once from its configuration.
#[derive(Debug, Clone)]
pub struct TlsSettings {
    config: Arc<ClientConfig>,
}

fn cfg_err(key: &str, reason: impl Into<String>) -> Error {
    Error::Config {
        key: key.to_string(),
        reason: reason.into(),
    }
}

fn pem_err(key: &str, what: &str, e: &pem::Error) -> Error {
    match e {
        pem::Error::Io(e) => cfg_err(key, format!("cannot read {what}: {e}")),
        e => cfg_err(key, format!("{what} is not valid PEM: {e:?}")),
    }
}

/// Reads every certificate of a PEM file (or string, when `text`).
fn certs(key: &str, source: &str, text: bool) -> Result<Vec<CertificateDer<'static>>> {
    let iter: Vec<_> = if text {
        CertificateDer::pem_slice_iter(source.as_bytes()).collect()
    } else {
        CertificateDer::pem_file_iter(source)
            .map_err(|e| pem_err(key, source, &e))?
            .collect()
    };
    iter.into_iter()
        .map(|c| c.map_err(|e| pem_err(key, if text { "the PEM string" } else { source }, &e)))
        .collect()
}

fn load_roots(c: &Config) -> Result<RootCertStore> {
    let mut roots = RootCertStore::empty();
    let location = c.str("ssl.ca.location").trim();
    let mut add = |list: Vec<CertificateDer<'static>>, key: &str, from: &str| -> Result<()> {
        for cert in list {
            roots
                .add(cert)
                .map_err(|e| cfg_err(key, format!("bad CA certificate in {from}: {e}")))?;
        }
        Ok(())
    };
    let mut sources = Vec::new();
    if location.is_empty() || location == "probe" {
        let found = CA_PROBE.iter().find(|p| Path::new(p).is_file());
        match found {
            Some(p) => sources.push((*p).to_string()),
            None if c.str("ssl.ca.pem").is_empty() => {
                return Err(cfg_err(
                    "ssl.ca.location",
                    format!(
                        "no system CA bundle found (looked in {}): set ssl.ca.location",
                        CA_PROBE.join(", ")
                    ),
                ))
            }
            None => {}
        }
    } else if Path::new(location).is_dir() {
        let dir = std::fs::read_dir(location)
            .map_err(|e| cfg_err("ssl.ca.location", format!("cannot read {location}: {e}")))?;
        let mut files: Vec<_> = dir
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        for f in files {
            // A CA directory may hold other files (hash links are files too):
            // take what parses as PEM certificates.
            if let Ok(list) = certs("ssl.ca.location", &f.to_string_lossy(), false) {
                add(list, "ssl.ca.location", &f.to_string_lossy())?;
            }
        }
    } else {
        sources.push(location.to_string());
    }
    for s in sources {
        add(certs("ssl.ca.location", &s, false)?, "ssl.ca.location", &s)?;
    }
    let pem_text = c.str("ssl.ca.pem");
    if !pem_text.is_empty() {
        add(
            certs("ssl.ca.pem", pem_text, true)?,
            "ssl.ca.pem",
            "ssl.ca.pem",
        )?;
    }
    if roots.is_empty() {
        return Err(cfg_err(
            "ssl.ca.location",
            format!("no CA certificate found in \"{location}\""),
        ));
    }
    Ok(roots)
}

fn load_key(c: &Config) -> Result<Option<PrivateKeyDer<'static>>> {
    let (key, text) = match (c.str("ssl.key.location"), c.str("ssl.key.pem")) {
        ("", "") => return Ok(None),
        (f, "") => (
            "ssl.key.location",
            std::fs::read(f)
                .map_err(|e| cfg_err("ssl.key.location", format!("cannot read {f}: {e}")))?,
        ),
        (_, p) => ("ssl.key.pem", p.as_bytes().to_vec()),
    };
    let s = String::from_utf8_lossy(&text);
    if s.contains("ENCRYPTED PRIVATE KEY") || s.contains("Proc-Type: 4,ENCRYPTED") {
        let why = if c.str("ssl.key.password").is_empty() {
            "is not set"
        } else {
            "is set, but gregor cannot decrypt keys"
        };
        return Err(cfg_err(
            "ssl.key.password",
            format!(
                "the key in {key} is encrypted and ssl.key.password {why}: \
                 give an unencrypted key (openssl pkcs8 -topk8 -nocrypt -in KEY -out PLAIN)"
            ),
        ));
    }
    PrivateKeyDer::from_pem_slice(&text)
        .map(Some)
        .map_err(|e| pem_err(key, "the private key", &e))
}

impl TlsSettings {
    /// Builds the TLS settings of `c` when `security.protocol` is `ssl` or
    /// `sasl_ssl`; `None` otherwise.
    ///
    /// # Errors
    /// [`Error::Config`] naming the property whose file or value is unusable.
    pub fn from_config(c: &Config) -> Result<Option<TlsSettings>> {
        if !matches!(c.str("security.protocol"), "ssl" | "sasl_ssl") {
            return Ok(None);
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let verifier: Arc<dyn ServerCertVerifier> = if !c
            .bool("enable.ssl.certificate.verification")
        {
            Arc::new(AcceptAny(provider.clone()))
        } else {
            let roots = load_roots(c)?;
            let v = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider.clone())
                .build()
                .map_err(|e| cfg_err("ssl.ca.location", e.to_string()))?;
            if c.str("ssl.endpoint.identification.algorithm") == "none" {
                Arc::new(AnyName(v))
            } else {
                v
            }
        };
        let builder = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| cfg_err("security.protocol", e.to_string()))?
            .dangerous()
            .with_custom_certificate_verifier(verifier);
        let chain = match (
            c.str("ssl.certificate.location"),
            c.str("ssl.certificate.pem"),
        ) {
            ("", "") => None,
            (f, "") => Some(certs("ssl.certificate.location", f, false)?),
            (_, p) => Some(certs("ssl.certificate.pem", p, true)?),
        };
        let key = load_key(c)?;
        let config = match (chain, key) {
            (None, None) => builder.with_no_client_auth(),
            (Some(chain), Some(key)) => {
                if chain.is_empty() {
                    return Err(cfg_err(
                        "ssl.certificate.location",
                        "no certificate in the client certificate file",
                    ));
                }
                builder
                    .with_client_auth_cert(chain, key)
                    .map_err(|e| cfg_err("ssl.key.location", e.to_string()))?
            }
            (Some(_), None) => {
                return Err(cfg_err(
                    "ssl.key.location",
                    "a client certificate needs its private key",
                ))
            }
            (None, Some(_)) => {
                return Err(cfg_err(
                    "ssl.certificate.location",
                    "a client key needs its certificate",
                ))
            }
        };
        Ok(Some(TlsSettings {
            config: Arc::new(config),
        }))
    }
}

/// `ssl.endpoint.identification.algorithm=none`: the chain is verified in
/// full, the name is not. webpki checks the name last, so every other
/// check has passed when it reports a name mismatch.
#[derive(Debug)]
struct AnyName(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for AnyName {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> std::result::Result<ServerCertVerified, rustls::Error> {
        match self
            .0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp, now)
        {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            r => r,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

/// `enable.ssl.certificate.verification=false`: any certificate is taken
/// (the handshake signatures are still checked, so the peer holds the key).
#[derive(Debug)]
struct AcceptAny(Arc<CryptoProvider>);

impl ServerCertVerifier for AcceptAny {
    fn verify_server_cert(
        &self,
        _: &CertificateDer<'_>,
        _: &[CertificateDer<'_>],
        _: &ServerName<'_>,
        _: &[u8],
        _: UnixTime,
    ) -> std::result::Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

fn tls_io(e: rustls::Error) -> io::Error {
    io::Error::new(ErrorKind::InvalidData, e)
}

/// The host part of "host:port" ("[::1]:9092" → "::1").
fn host_of(addr: &str) -> &str {
    let host = addr.rsplit_once(':').map_or(addr, |(h, _)| h);
    host.trim_start_matches('[').trim_end_matches(']')
}

/// Runs the TLS handshake on a connected socket, within `deadline`, and
/// returns the two halves of the connection.
///
/// # Errors
/// `_SSL` naming what failed (certificate expired, unknown CA, wrong host,
/// alert), `_TIMED_OUT`, `_TRANSPORT`.
pub fn handshake(
    mut sock: TcpStream,
    tls: &TlsSettings,
    addr: &str,
    deadline: Instant,
    broker: &str,
) -> Result<(TlsReader, TlsWriter)> {
    let host = host_of(addr);
    let name = ServerName::try_from(host.to_string()).map_err(|e| {
        Error::local(
            local::SSL,
            format!("{broker}: \"{host}\" is not a valid TLS server name: {e}"),
        )
    })?;
    let mut conn = ClientConnection::new(tls.config.clone(), name)
        .map_err(|e| Error::local(local::SSL, format!("{broker}: {}", describe(&e))))?;
    while conn.is_handshaking() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(Error::timed_out(format!(
                "{broker}: SSL handshake timed out"
            )));
        }
        // each read of the handshake by the deadline, not each for `left`
        let mut by = deadline::ReadBy {
            sock: &mut sock,
            deadline,
        };
        match conn.complete_io(&mut by) {
            Ok((0, 0)) if conn.is_handshaking() => {
                let eof = io::Error::from(ErrorKind::UnexpectedEof);
                return Err(io_error(broker, "handshake", &eof));
            }
            Ok(_) => {}
            Err(e) => return Err(io_error(broker, "handshake", &e)),
        }
    }
    let clone = |s: &TcpStream| {
        s.try_clone()
            .map_err(|e| io_error(broker, "clone socket", &e))
    };
    let shared = Arc::new(Shared {
        conn: Mutex::new(conn),
        out: Mutex::new(Out {
            sock: clone(&sock)?,
            buf: Vec::new(),
        }),
    });
    let writer = TlsWriter {
        shared: shared.clone(),
        sock: clone(&sock)?,
    };
    let reader = TlsReader {
        shared,
        sock,
        buf: vec![0; 32 * 1024].into_boxed_slice(),
        start: 0,
        end: 0,
        deadline: None,
    };
    Ok((reader, writer))
}

/// What both halves share.
struct Shared {
    /// The TLS state machine; never held across a blocking socket call.
    conn: Mutex<ClientConnection>,
    /// The socket's write side: held while ciphertext is taken out of
    /// `conn` and written, so records reach the socket in order.
    out: Mutex<Out>,
}

struct Out {
    sock: TcpStream,
    buf: Vec<u8>,
}

impl Shared {
    /// Encrypts `data` (may be empty: then only what TLS itself queued,
    /// e.g. a KeyUpdate answer) and writes it. Called with `out` held.
    fn send(&self, out: &mut Out, mut data: &[u8]) -> io::Result<()> {
        loop {
            out.buf.clear();
            {
                let mut c = self.conn.locked();
                if !data.is_empty() {
                    // rustls takes up to its buffer limit (64 KiB) at a time
                    let n = c.writer().write(data)?;
                    if n == 0 && !c.wants_write() {
                        return Err(io::Error::new(ErrorKind::WriteZero, "TLS buffer full"));
                    }
                    data = &data[n..];
                }
                while c.wants_write() {
                    c.write_tls(&mut out.buf)?;
                }
            }
            out.sock.write_all(&out.buf)?;
            if data.is_empty() {
                return Ok(());
            }
        }
    }
}

/// The read side of a TLS connection (owned by the I/O thread).
pub struct TlsReader {
    shared: Arc<Shared>,
    sock: TcpStream,
    /// Ciphertext read from the socket and not yet given to rustls.
    buf: Box<[u8]>,
    start: usize,
    end: usize,
    /// When set, every socket read ends by then (see `deadline::arm`).
    deadline: Option<Instant>,
}

impl TlsReader {
    /// Bounds every socket read by `deadline` (`None`: the socket's own
    /// timeout), however many reads one record takes.
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
    }

    /// The socket, for timeouts.
    pub fn socket(&self) -> &TcpStream {
        &self.sock
    }

    /// Sends what TLS queued by itself, unless a writer is busy (it sends
    /// it along with its own data then).
    fn flush_queued(&self) -> io::Result<()> {
        if let Ok(mut out) = self.shared.out.try_lock() {
            self.shared.send(&mut out, &[])?;
        }
        Ok(())
    }
}

impl Read for TlsReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let queued = {
                let mut c = self.shared.conn.locked();
                match c.reader().read(buf) {
                    Ok(n) => return Ok(n),
                    Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                    Err(e) => return Err(e),
                }
                if self.start < self.end {
                    let mut pending = &self.buf[self.start..self.end];
                    let n = c.read_tls(&mut pending)?;
                    self.start += n;
                    c.process_new_packets().map_err(tls_io)?;
                    Some(c.wants_write())
                } else {
                    None
                }
            };
            // What was fed may have made plaintext: look again before blocking.
            if let Some(queued) = queued {
                if queued {
                    self.flush_queued()?;
                }
                continue;
            }
            // Blocks without any lock: writers go on meanwhile.
            if let Some(d) = self.deadline {
                deadline::arm(&self.sock, d)?;
            }
            let n = loop {
                match self.sock.read(&mut self.buf) {
                    Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                    r => break r?,
                }
            };
            if n == 0 {
                let mut c = self.shared.conn.locked();
                c.read_tls(&mut &[][..])?;
                c.process_new_packets().map_err(tls_io)?;
                return match c.reader().read(buf) {
                    Err(e) if e.kind() == ErrorKind::WouldBlock => Ok(0),
                    r => r,
                };
            }
            self.start = 0;
            self.end = n;
        }
    }
}

/// The write side of a TLS connection (shared by request senders under a lock).
pub struct TlsWriter {
    shared: Arc<Shared>,
    /// For shutdown without waiting for a writer.
    sock: TcpStream,
}

impl TlsWriter {
    /// The socket, for timeouts and shutdown.
    pub fn socket(&self) -> &TcpStream {
        &self.sock
    }
}

impl Write for TlsWriter {
    /// Encrypts and writes all of `data` (a whole frame), or fails.
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        let mut out = self.shared.out.locked();
        self.shared.send(&mut out, data)?;
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Drop for TlsWriter {
    fn drop(&mut self) {
        let _ = self.sock.shutdown(Shutdown::Both);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts() {
        assert_eq!(host_of("broker.example:9093"), "broker.example");
        assert_eq!(host_of("127.0.0.1:9093"), "127.0.0.1");
        assert_eq!(host_of("[::1]:9093"), "::1");
    }

    #[test]
    fn plaintext_builds_nothing_and_bad_files_name_the_property() {
        let c = Config::new();
        assert!(TlsSettings::from_config(&c).unwrap().is_none());
        let mut c = Config::new();
        c.set("security.protocol", "SSL").unwrap();
        c.set("ssl.ca.location", "/nonexistent/ca.pem").unwrap();
        let e = TlsSettings::from_config(&c).unwrap_err();
        assert!(e.to_string().contains("ssl.ca.location"), "{e}");
        assert_eq!(e.code(), local::INVALID_CONFIG);
        let mut c = Config::new();
        c.set("security.protocol", "ssl").unwrap();
        c.set("ssl.ca.location", "probe").unwrap();
        c.set(
            "ssl.key.pem",
            "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n",
        )
        .unwrap();
        c.set("ssl.certificate.pem", "").unwrap();
        if Path::new(CA_PROBE[0]).is_file() {
            let e = TlsSettings::from_config(&c).unwrap_err();
            assert!(e.to_string().contains("ssl.key.password"), "{e}");
        }
    }
}
