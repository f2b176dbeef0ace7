//! Plain blocking socket work: connect with a timeout, and length-framed
//! reads and writes with a bound on what the broker may send. A session's
//! two halves are plain TCP (`TcpStream::try_clone`) or TLS (src/net/tls.rs).

use std::io::{self, ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream, ToSocketAddrs};

use socket2::{Domain, Protocol, SockRef, Socket, Type};
use std::time::{Duration, Instant};

use super::deadline::arm;
pub use super::deadline::ReadBy;
use super::errors::io_error;
use super::tls::{TlsReader, TlsWriter};
use crate::error::{local, Error, Result};

/// The read side of a session, owned by its I/O thread.
pub enum ReadHalf {
    /// Plain TCP, and the deadline of the read under way (see
    /// [`ReadHalf::set_deadline`]).
    Plain(TcpStream, Option<Instant>),
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
        Ok((ReadHalf::Plain(r, None), WriteHalf::Plain(s)))
    }

    /// The socket underneath.
    pub fn socket(&self) -> &TcpStream {
        match self {
            ReadHalf::Plain(s, _) => s,
            ReadHalf::Tls(t) => t.socket(),
        }
    }

    /// With `Some(deadline)`, every read from the socket (TLS's included)
    /// waits at most until `deadline` and fails with `TimedOut` after it;
    /// with `None`, reads keep whatever timeout the socket has.
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        match self {
            ReadHalf::Plain(_, d) => *d = deadline,
            ReadHalf::Tls(t) => t.set_deadline(deadline),
        }
    }
}

impl Read for ReadHalf {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            ReadHalf::Plain(s, d) => {
                if let Some(d) = d {
                    arm(s, *d)?;
                }
                s.read(buf)
            }
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

/// `broker.address.family`: which addresses a broker name may resolve to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AddressFamily {
    /// IPv4 and IPv6.
    #[default]
    Any,
    /// IPv4 only.
    V4,
    /// IPv6 only.
    V6,
}

impl AddressFamily {
    /// From the property's value (`any`, `v4`, `v6`).
    pub fn from_name(s: &str) -> AddressFamily {
        match s {
            "v4" => AddressFamily::V4,
            "v6" => AddressFamily::V6,
            _ => AddressFamily::Any,
        }
    }

    fn admits(self, a: &SocketAddr) -> bool {
        match self {
            AddressFamily::Any => true,
            AddressFamily::V4 => a.is_ipv4(),
            AddressFamily::V6 => a.is_ipv6(),
        }
    }
}

/// Options of every broker socket (librdkafka's `socket.*` properties).
#[derive(Debug, Clone, Default)]
pub struct SocketOptions {
    /// `socket.nagle.disable`: TCP_NODELAY.
    pub nodelay: bool,
    /// `socket.keepalive.enable`: SO_KEEPALIVE.
    pub keepalive: bool,
    /// `socket.send.buffer.bytes`: SO_SNDBUF (0: the system default).
    pub send_buffer: usize,
    /// `socket.receive.buffer.bytes`: SO_RCVBUF (0: the system default).
    pub recv_buffer: usize,
    /// `broker.address.family`.
    pub family: AddressFamily,
}

/// The addresses `addr` ("host:port") resolves to, of `family`.
///
/// # Errors
/// `_RESOLVE` if the name does not resolve, or to no address of `family`.
pub fn resolve(addr: &str, family: AddressFamily) -> Result<Vec<SocketAddr>> {
    let addrs: Vec<SocketAddr> = addr
        .to_socket_addrs()
        .map_err(|e| Error::local(local::RESOLVE, format!("{addr}: cannot resolve: {e}")))?
        .filter(|a| family.admits(a))
        .collect();
    if addrs.is_empty() {
        let which = match family {
            AddressFamily::Any => "",
            AddressFamily::V4 => " IPv4 (broker.address.family=v4)",
            AddressFamily::V6 => " IPv6 (broker.address.family=v6)",
        };
        return Err(Error::local(
            local::RESOLVE,
            format!("{addr}: resolves to no{which} address"),
        ));
    }
    Ok(addrs)
}

/// `client.dns.lookup=resolve_canonical_bootstrap_servers_only`: the
/// names `addr` ("host:port") stands for — each address it resolves to (of
/// `family`), named by a reverse lookup (the address itself if it has no
/// name), with the port — as librdkafka expands a bootstrap server.
///
/// # Errors
/// `_RESOLVE` if the name does not resolve.
pub fn canonical_names(addr: &str, family: AddressFamily) -> Result<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    for a in resolve(addr, family)? {
        let host = reverse_lookup(&a).unwrap_or_else(|| a.ip().to_string());
        let name = if host.contains(':') {
            format!("[{host}]:{}", a.port())
        } else {
            format!("{host}:{}", a.port())
        };
        if !out.contains(&name) {
            out.push(name);
        }
    }
    Ok(out)
}

/// The host name of `a` by getnameinfo(3) (NI_NAMEREQD: `None` if the
/// address has no name). std has no reverse lookup.
#[allow(unsafe_code)]
fn reverse_lookup(a: &SocketAddr) -> Option<String> {
    let sa = socket2::SockAddr::from(*a);
    let mut host = [0 as libc::c_char; 1025]; // NI_MAXHOST
                                              // SAFETY: `sa` is a valid socket address of `sa.len()` bytes; `host` is
                                              // a writable buffer of the length passed; no service buffer is asked
                                              // for (NULL, 0). getnameinfo is thread-safe and writes a NUL-terminated
                                              // name into `host` when it returns 0.
    let rc = unsafe {
        libc::getnameinfo(
            sa.as_ptr().cast(),
            sa.len(),
            host.as_mut_ptr(),
            host.len() as libc::socklen_t,
            std::ptr::null_mut(),
            0,
            libc::NI_NAMEREQD,
        )
    };
    if rc != 0 {
        return None;
    }
    // SAFETY: getnameinfo succeeded, so `host` holds a NUL-terminated string.
    let name = unsafe { std::ffi::CStr::from_ptr(host.as_ptr()) };
    name.to_str().ok().map(str::to_string)
}

/// Opens a TCP connection to `addr` ("host:port"), trying each address the
/// name resolves to (of `opts.family`) within `timeout` overall; the socket
/// options are set before connecting (so a receive buffer size also
/// shapes the TCP window, as librdkafka sets them).
///
/// # Errors
/// `_RESOLVE` if the name does not resolve, `_TRANSPORT` if no address accepts.
pub fn connect(addr: &str, timeout: Duration, opts: &SocketOptions) -> Result<TcpStream> {
    let addrs = resolve(addr, opts.family)?;
    let per = timeout / addrs.len() as u32;
    let mut last = None;
    for a in &addrs {
        match connect_one(a, per.max(Duration::from_millis(10)), opts) {
            Ok(s) => {
                s.set_nodelay(opts.nodelay)
                    .map_err(|e| io_error(addr, "set TCP_NODELAY", &e))?;
                return Ok(s);
            }
            Err(e) => last = Some(e),
        }
    }
    let e = last.map_or_else(|| "no address".to_string(), |e| e.to_string());
    Err(Error::transport(format!("{addr}: connect failed: {e}")))
}

fn connect_one(a: &SocketAddr, timeout: Duration, opts: &SocketOptions) -> io::Result<TcpStream> {
    let s = Socket::new(Domain::for_address(*a), Type::STREAM, Some(Protocol::TCP))?;
    if opts.keepalive {
        s.set_keepalive(true)?;
    }
    if opts.send_buffer > 0 {
        s.set_send_buffer_size(opts.send_buffer)?;
    }
    if opts.recv_buffer > 0 {
        s.set_recv_buffer_size(opts.recv_buffer)?;
    }
    s.connect_timeout(&(*a).into(), timeout)?;
    Ok(s.into())
}

/// The options a connected socket has, as the system reports them
/// (getsockopt): (SO_KEEPALIVE, SO_SNDBUF, SO_RCVBUF).
///
/// # Errors
/// If the system cannot tell.
pub fn socket_options(s: &TcpStream) -> io::Result<(bool, usize, usize)> {
    let r = SockRef::from(s);
    Ok((r.keepalive()?, r.send_buffer_size()?, r.recv_buffer_size()?))
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

/// [`read_frame`], with the whole frame read by `deadline` however slowly
/// its bytes come.
///
/// # Errors
/// As `read_frame`; `_TIMED_OUT` when the deadline passes first.
pub fn read_frame_by(
    r: &mut ReadHalf,
    max: usize,
    broker: &str,
    deadline: Instant,
) -> Result<Vec<u8>> {
    r.set_deadline(Some(deadline));
    let got = read_frame(r, max, broker);
    r.set_deadline(None);
    got
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
        let o = SocketOptions::default();
        let e = connect("no-such-host.invalid:9092", Duration::from_secs(2), &o).unwrap_err();
        assert_eq!(e.code(), local::RESOLVE);
        // a port nothing listens on
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        drop(l);
        let e = connect(&format!("127.0.0.1:{port}"), Duration::from_secs(2), &o).unwrap_err();
        assert_eq!(e.code(), local::TRANSPORT);
    }
}
