//! The Kafka wire protocol: one file per API (request and response together),
//! the request/response headers, version negotiation and the error-code table.
//!
//! Everything here is plain data in, plain data out: no sockets. Message
//! layouts follow Kafka's message schemas (KIP-482 for flexible versions and
//! tagged fields); see [`codec`] for how one declaration yields both codecs.

pub mod codec;
pub mod enums;
pub mod error_code;
pub mod header;
#[cfg(any(test, feature = "samples"))]
#[doc(hidden)]
pub mod sample;
#[cfg(test)]
mod schemas;
#[cfg(test)]
pub(crate) mod tests;
pub mod versions;

pub mod add_offsets_to_txn;
pub mod add_partitions_to_txn;
pub mod alter_client_quotas;
pub mod alter_configs;
pub mod alter_partition_reassignments;
pub mod alter_user_scram_credentials;
pub mod api_versions;
pub mod consumer_group_describe;
pub mod consumer_group_heartbeat;
pub mod consumer_protocol;
pub mod create_acls;
pub mod create_partitions;
pub mod create_topics;
pub mod delete_acls;
pub mod delete_groups;
pub mod delete_records;
pub mod delete_topics;
pub mod describe_acls;
pub mod describe_client_quotas;
pub mod describe_cluster;
pub mod describe_configs;
pub mod describe_groups;
pub mod describe_log_dirs;
pub mod describe_producers;
pub mod describe_topic_partitions;
pub mod describe_transactions;
pub mod describe_user_scram_credentials;
pub mod elect_leaders;
pub mod end_txn;
pub mod fetch;
pub mod find_coordinator;
pub mod get_telemetry_subscriptions;
pub mod heartbeat;
pub mod incremental_alter_configs;
pub mod init_producer_id;
pub mod join_group;
pub mod leader_and_isr;
pub mod leave_group;
pub mod list_groups;
pub mod list_offsets;
pub mod list_partition_reassignments;
pub mod list_transactions;
pub mod metadata;
pub mod offset_commit;
pub mod offset_delete;
pub mod offset_fetch;
pub mod offset_for_leader_epoch;
pub mod produce;
pub mod push_telemetry;
pub mod sasl_authenticate;
pub mod sasl_handshake;
pub mod sync_group;
pub mod txn_offset_commit;
pub mod update_metadata;

pub use crate::api_keys::{api_name, API_NAMES};
pub use error_code::{ErrorAction, KafkaCode};
pub use header::{RequestHeader, ResponseHeader};

use crate::wire::{DecodeError, EncodeError, Reader, Writer};
use codec::{Ctx, Field};

/// A top-level protocol message (a request or response body, or a versioned
/// data structure such as the consumer protocol's subscription).
pub trait Message: Field + Default {
    /// The API key (`-1` for versioned data that is not an API message).
    const API_KEY: i16;
    /// The lowest version gregor can encode and decode.
    const MIN_VERSION: i16;
    /// The highest version gregor can encode and decode.
    const MAX_VERSION: i16;
    /// The first flexible version (`i16::MAX` if none).
    const FIRST_FLEXIBLE: i16;

    /// The `throttle_time_ms` a response carries (KIP-219; 0 if it has
    /// no such field or the broker did not throttle).
    fn throttle_time_ms(&self) -> i32 {
        0
    }

    /// True if `version` uses the flexible encoding.
    fn is_flexible(version: i16) -> bool {
        version >= Self::FIRST_FLEXIBLE
    }

    /// Appends this message's body at `version`.
    ///
    /// # Errors
    /// If the version is out of range or a set field cannot be carried by it.
    fn encode(&self, w: &mut Writer, version: i16) -> Result<(), EncodeError> {
        if !(Self::MIN_VERSION..=Self::MAX_VERSION).contains(&version) {
            return Err(EncodeError::UnsupportedVersion {
                api_key: Self::API_KEY,
                version,
            });
        }
        self.write(w, Ctx::new(version, Self::is_flexible(version)))
    }

    /// Decodes a body at `version`; trailing bytes are left in the reader.
    ///
    /// # Errors
    /// On truncated or malformed input; the error names the API, version and offset.
    fn decode(r: &mut Reader<'_>, version: i16) -> Result<Self, DecodeError> {
        if !(Self::MIN_VERSION..=Self::MAX_VERSION).contains(&version) {
            return Err(r
                .error(format!("unsupported version {version}"))
                .in_api(Self::API_KEY, version));
        }
        Self::read(r, Ctx::new(version, Self::is_flexible(version)))
            .map_err(|e| e.in_api(Self::API_KEY, version))
    }

    /// Encodes the body into a new buffer.
    ///
    /// # Errors
    /// As [`Message::encode`].
    fn to_bytes(&self, version: i16) -> Result<Vec<u8>, EncodeError> {
        let mut w = Writer::new();
        self.encode(&mut w, version)?;
        Ok(w.into_vec())
    }

    /// Decodes a body that fills `buf` exactly.
    ///
    /// # Errors
    /// As [`Message::decode`], and if bytes are left over.
    fn from_bytes(buf: &[u8], version: i16) -> Result<Self, DecodeError> {
        let mut r = Reader::new(buf);
        let m = Self::decode(&mut r, version)?;
        if !r.is_empty() {
            return Err(r
                .error(format!("{} bytes left over", r.remaining()))
                .in_api(Self::API_KEY, version));
        }
        Ok(m)
    }
}

/// A request, tied to its response type.
pub trait Request: Message {
    /// The response to this request.
    type Response: Message;

    /// Request header version for `version` (2 when flexible, else 1).
    fn request_header_version(version: i16) -> i16 {
        if Self::is_flexible(version) {
            2
        } else {
            1
        }
    }

    /// About how many bytes the body encodes to, where that is far more
    /// than a small request's: a Produce request's record batches. The
    /// frame's buffer is then sized once, instead of growing by doubling
    /// and copying what it holds at each step.
    fn encoded_size_hint(&self) -> usize {
        0
    }

    /// Response header version for `version` (1 when flexible, else 0).
    fn response_header_version(version: i16) -> i16 {
        if Self::is_flexible(version) {
            1
        } else {
            0
        }
    }
}

/// Writes a whole request frame: size, header, body.
///
/// # Errors
/// As [`Message::encode`].
pub fn encode_request<R: Request>(
    w: &mut Writer,
    correlation_id: i32,
    client_id: Option<&str>,
    version: i16,
    body: &R,
) -> Result<(), EncodeError> {
    let start = w.len();
    let size_at = w.reserve_i32();
    let header = RequestHeader {
        api_key: R::API_KEY,
        api_version: version,
        correlation_id,
        client_id: client_id.map(str::to_owned),
    };
    header.encode(w, R::request_header_version(version))?;
    if let Err(e) = body.encode(w, version) {
        w.truncate(start);
        return Err(e);
    }
    let size = w.len() - size_at - 4;
    let size = i32::try_from(size).map_err(|_| EncodeError::TooLong {
        what: "request",
        len: size,
    })?;
    w.patch_i32(size_at, size);
    Ok(())
}

/// Decodes a response frame's content (after the size prefix): header and body.
///
/// # Errors
/// On malformed input.
pub fn decode_response<R: Request>(
    r: &mut Reader<'_>,
    version: i16,
) -> Result<(ResponseHeader, R::Response), DecodeError> {
    let header = ResponseHeader::decode(r, R::response_header_version(version))
        .map_err(|e| e.in_api(R::API_KEY, version))?;
    let body = R::Response::decode(r, version)?;
    Ok((header, body))
}
