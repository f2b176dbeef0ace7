//! What a failed socket or TLS operation means to a user: the one place
//! both the plain connection ([`super::conn`]) and the TLS handshake
//! ([`super::tls`]) turn an `io::Error` or a rustls error into an [`Error`].

use std::io::ErrorKind;

#[cfg(feature = "tls")]
use rustls::CertificateError;

#[cfg(feature = "tls")]
use crate::error::local;
use crate::error::Error;

/// A transport error naming the broker and what was being done (`_SSL`
/// naming what failed when TLS did).
pub fn io_error(broker: &str, doing: &str, e: &std::io::Error) -> Error {
    #[cfg(feature = "tls")]
    if let Some(tls) = e.get_ref().and_then(|i| i.downcast_ref::<rustls::Error>()) {
        return Error::local(
            local::SSL,
            format!("{broker}: SSL {doing} failed: {}", describe(tls)),
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

/// What a rustls error means to a user, naming what failed.
#[cfg(feature = "tls")]
pub(crate) fn describe(e: &rustls::Error) -> String {
    match e {
        rustls::Error::InvalidCertificate(ce) => {
            let what = match ce {
                CertificateError::Expired | CertificateError::ExpiredContext { .. } => {
                    "broker certificate has expired"
                }
                CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => {
                    "broker certificate is not valid yet"
                }
                CertificateError::UnknownIssuer => {
                    "broker certificate is signed by an unknown CA (not in ssl.ca.location)"
                }
                CertificateError::NotValidForName
                | CertificateError::NotValidForNameContext { .. } => {
                    "broker certificate does not match the host name \
                     (ssl.endpoint.identification.algorithm=https)"
                }
                CertificateError::BadSignature => "broker certificate has a bad signature",
                CertificateError::Revoked => "broker certificate is revoked",
                _ => "broker certificate rejected",
            };
            format!("certificate verify failed: {what}: {ce}")
        }
        rustls::Error::AlertReceived(a) => format!("broker sent TLS alert {a:?}"),
        e => e.to_string(),
    }
}
