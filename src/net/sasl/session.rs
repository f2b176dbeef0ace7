//! What every SASL mechanism implements: one client-side exchange of
//! tokens ([`Session`], [`Step`]), and the error a failed one is.

use crate::error::{local, Error, Result};

/// What a mechanism does next.
#[derive(Debug, PartialEq, Eq)]
pub enum Step {
    /// Send this token and pass the broker's answer to [`Session::step`].
    Send(Vec<u8>),
    /// Authenticated.
    Done,
}

/// One client-side SASL exchange.
pub trait Session: Send {
    /// The first token.
    ///
    /// # Errors
    /// If the token cannot be built.
    fn start(&mut self) -> Result<Vec<u8>>;

    /// Takes the broker's answer to the last token sent.
    ///
    /// # Errors
    /// `_AUTHENTICATION` when the broker's answer is malformed or shows the
    /// broker is not who it claims (SCRAM server signature), or when the
    /// broker refused the credentials.
    fn step(&mut self, answer: &[u8]) -> Result<Step>;
}

/// An authentication failure seen by the client (`_AUTHENTICATION`).
pub fn auth_error(message: impl Into<String>) -> Error {
    Error::local(local::AUTHENTICATION, message)
}
