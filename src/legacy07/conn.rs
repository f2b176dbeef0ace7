//! One blocking TCP connection to a Kafka 0.7 broker.
//!
//! 0.7 requests carry no correlation id: a broker answers requests in the
//! order they came, and PRODUCE not at all. So a connection carries one
//! request at a time, and any I/O failure in the middle of one poisons it
//! (the next response could belong to the failed request); the caller drops
//! it and connects again.

use std::io::{ErrorKind, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use crate::error::{local, Error};
use crate::wire::Bytes;

/// A connected socket with timeouts.
#[derive(Debug)]
pub(crate) struct Conn {
    stream: TcpStream,
    addr: String,
    max_response: usize,
}

fn io_error(addr: &str, what: &str, e: &std::io::Error) -> Error {
    match e.kind() {
        ErrorKind::TimedOut | ErrorKind::WouldBlock => {
            Error::timed_out(format!("{addr}: {what} timed out"))
        }
        ErrorKind::UnexpectedEof => Error::transport(format!(
            "{addr}: the broker closed the connection during {what} (a Kafka 0.7 broker \
             closes it when a request fails, e.g. a PRODUCE with a corrupt message)"
        )),
        _ => Error::transport(format!("{addr}: {what}: {e}")),
    }
}

impl Conn {
    /// Connects to `addr` ("host:port"), trying each address it resolves to.
    pub(crate) fn connect(
        addr: &str,
        connect_timeout: Duration,
        socket_timeout: Duration,
        max_response: usize,
    ) -> Result<Conn, Error> {
        let addrs: Vec<_> = addr
            .to_socket_addrs()
            .map_err(|e| Error::local(local::RESOLVE, format!("{addr}: {e}")))?
            .collect();
        let mut last = None;
        for a in addrs {
            match TcpStream::connect_timeout(&a, connect_timeout) {
                Ok(stream) => {
                    let set = |r: std::io::Result<()>| r.map_err(|e| io_error(addr, "setup", &e));
                    set(stream.set_read_timeout(Some(socket_timeout)))?;
                    set(stream.set_write_timeout(Some(socket_timeout)))?;
                    set(stream.set_nodelay(true))?;
                    return Ok(Conn {
                        stream,
                        addr: addr.to_string(),
                        max_response,
                    });
                }
                Err(e) => last = Some(io_error(addr, "connect", &e)),
            }
        }
        Err(last.unwrap_or_else(|| {
            Error::local(local::RESOLVE, format!("{addr}: resolves to no address"))
        }))
    }

    /// Writes a whole request.
    pub(crate) fn send(&mut self, frame: &[u8]) -> Result<(), Error> {
        self.stream
            .write_all(frame)
            .and_then(|()| self.stream.flush())
            .map_err(|e| io_error(&self.addr, "send", &e))
    }

    /// Reads one response: RESPONSE_LENGTH, then that many bytes (returned).
    pub(crate) fn receive(&mut self) -> Result<Bytes, Error> {
        let mut len = [0u8; 4];
        self.stream
            .read_exact(&mut len)
            .map_err(|e| io_error(&self.addr, "receive", &e))?;
        let n = i32::from_be_bytes(len);
        if n < 2 {
            return Err(Error::local(
                local::BAD_MSG,
                format!(
                    "{}: RESPONSE_LENGTH {n} (a response holds at least its error code)",
                    self.addr
                ),
            ));
        }
        let n = n as usize;
        if n > self.max_response {
            return Err(Error::local(
                local::BAD_MSG,
                format!(
                    "{}: RESPONSE_LENGTH {n} is over the {}-byte limit (max_response_bytes)",
                    self.addr, self.max_response
                ),
            ));
        }
        let mut body = vec![0u8; n];
        self.stream
            .read_exact(&mut body)
            .map_err(|e| io_error(&self.addr, "receive", &e))?;
        Ok(Bytes::from(body))
    }
}
