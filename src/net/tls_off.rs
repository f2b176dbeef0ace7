//! `src/net/tls.rs` for a build without the `tls` feature: the same
//! interface, with types that cannot be made, and `security.protocol`
//! `ssl`/`sasl_ssl` refused with `_NOT_IMPLEMENTED` naming the feature
//! (the configuration refuses it first, when it is set).

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::time::Instant;

use crate::config::{not_built, Config};
use crate::error::Result;

/// TLS settings: none can exist without the `tls` feature.
#[derive(Debug, Clone)]
pub enum TlsSettings {}

impl TlsSettings {
    /// `None` for `plaintext` and `sasl_plaintext`.
    ///
    /// # Errors
    /// `_NOT_IMPLEMENTED` for `ssl` and `sasl_ssl`.
    pub fn from_config(c: &Config) -> Result<Option<TlsSettings>> {
        match c.str("security.protocol") {
            p @ ("ssl" | "sasl_ssl") => Err(not_built("security.protocol", p, "tls")),
            _ => Ok(None),
        }
    }
}

/// Never called: there are no [`TlsSettings`].
///
/// # Errors
/// None.
pub fn handshake(
    _sock: TcpStream,
    tls: &TlsSettings,
    _addr: &str,
    _deadline: Instant,
    _broker: &str,
) -> Result<(TlsReader, TlsWriter)> {
    match *tls {}
}

/// The read half of a TLS connection: none exists.
pub enum TlsReader {}

impl TlsReader {
    /// The socket.
    pub fn socket(&self) -> &TcpStream {
        match *self {}
    }

    /// Bounds every socket read by a deadline.
    pub fn set_deadline(&mut self, _deadline: Option<std::time::Instant>) {
        match *self {}
    }
}

impl Read for TlsReader {
    fn read(&mut self, _buf: &mut [u8]) -> io::Result<usize> {
        match *self {}
    }
}

/// The write half of a TLS connection: none exists.
pub enum TlsWriter {}

impl TlsWriter {
    /// The socket.
    pub fn socket(&self) -> &TcpStream {
        match *self {}
    }
}

impl Write for TlsWriter {
    fn write(&mut self, _data: &[u8]) -> io::Result<usize> {
        match *self {}
    }

    fn flush(&mut self) -> io::Result<()> {
        match *self {}
    }
}
