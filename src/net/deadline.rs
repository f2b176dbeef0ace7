//! Reads that end by a deadline however slowly a peer sends: a socket's
//! read timeout alone starts again with every byte, so each read is armed
//! with what is left of the whole (used by src/net/conn.rs and
//! src/net/tls.rs).

use std::io::{self, ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::Instant;

/// Sets `sock`'s read timeout to what is left before `deadline`, or fails
/// with `TimedOut` once it has passed. Called before each read of a whole
/// that must arrive by a deadline: a read timeout alone starts again with
/// every byte, so a peer trickling a byte at a time would stretch the whole
/// without bound.
pub fn arm(sock: &TcpStream, deadline: Instant) -> io::Result<()> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(io::Error::new(ErrorKind::TimedOut, "deadline passed"));
    }
    sock.set_read_timeout(Some(left))
}

/// A socket whose reads all end by one deadline (see [`arm`]); writes pass
/// through. For exchanges that read straight from the socket, like the TLS
/// handshake.
pub struct ReadBy<'a> {
    /// The socket.
    pub sock: &'a mut TcpStream,
    /// When every read must be over.
    pub deadline: Instant,
}

impl Read for ReadBy<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        arm(self.sock, self.deadline)?;
        self.sock.read(buf)
    }
}

impl Write for ReadBy<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.sock.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.sock.flush()
    }
}
