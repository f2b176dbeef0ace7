//! Plain blocking socket work: connect with a timeout, and length-framed
//! reads and writes with a bound on what the broker may send. A session's
//! two halves are plain TCP (`TcpStream::try_clone`) or TLS (src/net/tls.rs).

use std::io::{self, ErrorKind, Read, Write};
use std::net::{Shutdown, TcpStream, ToSocketAddrs};
use std::time::Duration;

use super::tls::{TlsReader, TlsWriter};
use crate::error::{local, Error, Result};

/// The read side of a session, owned by its I/O thread.
pub enum ReadHalf {
    /// Plain TCP.
    Plain(TcpStream),
    /// TLS.
    Tls(Box<TlsReader>),
}

/// The write side of a session; whole frames are written under a lock.
pub enum WriteHalf {
    /// Plain TCP.
    Plain(TcpStream),
    /// TLS: each `write` encrypts and writes all it is given.
    Tls(Box<TlsWriter>),
}

impl ReadHalf {
    /// The two halves of a plain TCP connection.
    ///
    /// # Errors
    /// If the socket cannot be cloned.
    pub fn plain(s: TcpStream, broker: &str) -> Result<(ReadHalf, WriteHalf)> {
        let r = s
            .try_clone()
            .map_err(|e| io_error(broker, "clone socket", &e))?;
        Ok((ReadHalf::Plain(r), WriteHalf::Plain(s)))
    }

    /// The socket underneath.
    pub fn socket(&self) -> &TcpStream {
        match self {
            ReadHalf::Plain(s) => s,
            ReadHalf::Tls(t) => t.socket(),
        }
    }
}

impl Read for ReadHalf {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            ReadHalf::Plain(s) => s.read(buf),
            ReadHalf::Tls(t) => t.read(buf),
        }
    }
}

impl WriteHalf {
    /// The socket underneath.
    pub fn socket(&self) -> &TcpStream {
        match self {
            WriteHalf::Plain(s) => s,
            WriteHalf::Tls(t) => t.socket(),
        }
    }

    /// Shuts the connection down both ways (the reader sees EOF).
    pub fn shutdown(&self) {
        let _ = self.socket().shutdown(Shutdown::Both);
    }
}

impl Write for WriteHalf {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            WriteHalf::Plain(s) => s.write(buf),
            WriteHalf::Tls(t) => t.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            WriteHalf::Plain(s) => s.flush(),
            WriteHalf::Tls(t) => t.flush(),
        }
    }
}

/// Opens a TCP connection to `addr` ("host:port"), trying each address the
/// name resolves to within `timeout` overall.
///
/// # Errors
/// `_RESOLVE` if the name does not resolve, `_TRANSPORT` if no address accepts.
pub fn connect(addr: &str, timeout: Duration, nodelay: bool) -> Result<TcpStream> {
    let addrs: Vec<_> = addr
        .to_socket_addrs()
        .map_err(|e| Error::local(local::RESOLVE, format!("{addr}: cannot resolve: {e}")))?
        .collect();
    if addrs.is_empty() {
        return Err(Error::local(
            local::RESOLVE,
            format!("{addr}: resolves to no address"),
        ));
    }
    let per = timeout / addrs.len() as u32;
    let mut last = None;
    for a in &addrs {
        match TcpStream::connect_timeout(a, per.max(Duration::from_millis(10))) {
            Ok(s) => {
                s.set_nodelay(nodelay)
                    .map_err(|e| io_error(addr, "set TCP_NODELAY", &e))?;
                return Ok(s);
            }
            Err(e) => last = Some(e),
        }
    }
    let e = last.map_or_else(|| "no address".to_string(), |e| e.to_string());
    Err(Error::transport(format!("{addr}: connect failed: {e}")))
}

/// A transport error naming the broker and what was being done (`_SSL`
/// naming what failed when TLS did).
pub fn io_error(broker: &str, doing: &str, e: &std::io::Error) -> Error {
    #[cfg(feature = "tls")]
    if let Some(tls) = e.get_ref().and_then(|i| i.downcast_ref::<rustls::Error>()) {
        return Error::local(
            local::SSL,
            format!(
                "{broker}: SSL {doing} failed: {}",
                super::tls::describe(tls)
            ),
        );
    }
    let what = match e.kind() {
        ErrorKind::UnexpectedEof => "connection closed by broker".to_string(),
        ErrorKind::WouldBlock | ErrorKind::TimedOut => {
            return Error::timed_out(format!("{broker}: {doing}: timed out"));
        }
        _ => e.to_string(),
    };
    Error::transport(format!("{broker}: {doing}: {what}"))
}

/// Reads one size-prefixed frame and returns its content (without the size).
///
/// # Errors
/// `_TRANSPORT` on I/O failure or EOF; `_BAD_MSG` when the size is negative
/// or above `max` (nothing is allocated for it — the caller must close the
/// connection, whose framing is now lost).
pub fn read_frame(r: &mut impl Read, max: usize, broker: &str) -> Result<Vec<u8>> {
    let mut size = [0u8; 4];
    r.read_exact(&mut size)
        .map_err(|e| io_error(broker, "read", &e))?;
    let n = i32::from_be_bytes(size);
    if n < 4 {
        return Err(Error::local(
            local::BAD_MSG,
            format!("{broker}: invalid response size {n}"),
        ));
    }
    let n = n as usize;
    if n > max {
        return Err(Error::local(
            local::BAD_MSG,
            format!("{broker}: response of {n} bytes exceeds receive.message.max.bytes ({max})"),
        ));
    }
    // Memory follows the bytes that actually arrive, not the size claimed:
    // a garbage size below the limit costs at most 16 MiB up front
    // (and a real response is read without zeroing it first).
    let mut buf = Vec::with_capacity(n.min(16 << 20));
    let got = r
        .take(n as u64)
        .read_to_end(&mut buf)
        .map_err(|e| io_error(broker, "read", &e))?;
    if got < n {
        let eof = std::io::Error::from(ErrorKind::UnexpectedEof);
        return Err(io_error(broker, "read", &eof));
    }
    Ok(buf)
}

/// Writes a whole frame (size prefix included).
///
/// # Errors
/// `_TRANSPORT` on I/O failure, `_TIMED_OUT` if the write timeout passes.
pub fn write_frame(w: &mut impl Write, frame: &[u8], broker: &str) -> Result<()> {
    w.write_all(frame)
        .map_err(|e| io_error(broker, "write", &e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_bounded_and_checked() {
        let mut ok: &[u8] = &[0, 0, 0, 5, 1, 2, 3, 4, 5];
        assert_eq!(read_frame(&mut ok, 100, "b").unwrap(), vec![1, 2, 3, 4, 5]);
        let mut huge: &[u8] = &[0x7f, 0xff, 0xff, 0xff, 1];
        let e = read_frame(&mut huge, 100, "b:1/1").unwrap_err();
        assert!(
            e.to_string().contains("b:1/1") && e.to_string().contains("receive.message.max.bytes")
        );
        let mut neg: &[u8] = &[0xff, 0xff, 0xff, 0xff];
        assert_eq!(
            read_frame(&mut neg, 100, "b").unwrap_err().code(),
            local::BAD_MSG
        );
        let mut short: &[u8] = &[0, 0, 0, 9, 1];
        assert_eq!(
            read_frame(&mut short, 100, "b").unwrap_err().code(),
            local::TRANSPORT
        );
    }

    #[test]
    fn unresolvable_and_refused() {
        let e = connect("no-such-host.invalid:9092", Duration::from_secs(2), true).unwrap_err();
        assert_eq!(e.code(), local::RESOLVE);
        // a port nothing listens on
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        drop(l);
        let e = connect(&format!("127.0.0.1:{port}"), Duration::from_secs(2), true).unwrap_err();
        assert_eq!(e.code(), local::TRANSPORT);
    }
}
