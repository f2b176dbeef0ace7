//! Finding a group's coordinator, and the retry loop the consumer's
//! coordinator requests share. A leaf of the consumer: the control thread
//! ([`super::control`]) and the group coordinator thread ([`super::group`])
//! both use it and it uses neither.

use std::time::Instant;

use crate::cluster::{Cluster, Purpose};
use crate::error::{local, Error, Result};
use crate::net::BrokerConn;
use crate::protocol::find_coordinator::{FindCoordinatorRequest, FindCoordinatorResponse};
use crate::protocol::KafkaCode;

/// The group coordinator's connection for `group`, retrying while the
/// coordinator is not available, until `deadline`.
///
/// # Errors
/// The coordinator lookup's error at the deadline, or a permanent one.
pub(crate) fn coordinator(cluster: &Cluster, group: &str, deadline: Instant) -> Result<BrokerConn> {
    retrying(cluster, deadline, || {
        let left = deadline.saturating_duration_since(Instant::now());
        let conn = cluster.any_conn(Purpose::Group, left)?;
        let version = conn.version_for::<FindCoordinatorRequest>(deadline)?;
        let req = if version >= 4 {
            FindCoordinatorRequest {
                key_type: 0,
                coordinator_keys: vec![group.to_string()],
                ..Default::default()
            }
        } else {
            FindCoordinatorRequest {
                key: group.to_string(),
                key_type: 0,
                ..Default::default()
            }
        };
        let resp: FindCoordinatorResponse = conn
            .send_at(&req, version, deadline)?
            .wait_until(deadline)?;
        let (code, node, msg) = if version >= 4 {
            let c = resp
                .coordinators
                .first()
                .ok_or_else(|| Error::local(local::BAD_MSG, "FindCoordinator answer is empty"))?;
            (c.error_code, c.node_id, c.error_message.clone())
        } else {
            (resp.error_code, resp.node_id, resp.error_message.clone())
        };
        if code != 0 {
            return Err(Error::kafka(
                KafkaCode(code),
                format!(
                    "find coordinator of group {group:?}{}",
                    msg.filter(|m| !m.is_empty())
                        .map_or(String::new(), |m| format!(": {m}"))
                ),
            ));
        }
        if !cluster.snapshot().brokers.contains_key(&node) {
            cluster.fetch_metadata(Some(&[]), false, left)?;
        }
        cluster.conn(node, Purpose::Group)
    })
}

/// Runs `f` until it succeeds, fails for good, or `deadline` is near;
/// waits [`Cluster::retry_backoff`] (`retry.backoff.ms` doubling up to
/// `retry.backoff.max.ms`) between retriable failures.
pub(super) fn retrying<T>(
    cluster: &Cluster,
    deadline: Instant,
    mut f: impl FnMut() -> Result<T>,
) -> Result<T> {
    let mut attempt = 0;
    loop {
        let backoff = cluster.retry_backoff(attempt);
        match f() {
            Err(e) if e.is_retriable() && Instant::now() + backoff < deadline => {
                // a closing consumer does not wait its backoff out
                cluster.pause(backoff);
                attempt += 1;
            }
            r => return r,
        }
    }
}
