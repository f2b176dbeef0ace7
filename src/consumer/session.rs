//! The client side of incremental fetch sessions (KIP-227, Fetch v7+).
//!
//! A session lets the broker remember the partitions a fetcher asks for, so
//! that after the first ("full") request each further ("incremental") one
//! lists only the partitions whose fetch state changed since the broker last
//! heard of it, plus the partitions to drop. The broker answers an
//! incremental request with only the partitions that have something new.
//!
//! [`FetchSession`] is plain state with no I/O: [`FetchSession::plan`] says
//! what the next request carries; [`FetchSession::complete`] (or
//! [`FetchSession::fail`]) moves the session on once the answer is in, as
//! Java's `FetchSessionHandler` does. A broker that does not keep sessions
//! answers with session id 0, and every request stays a full one.

use std::collections::HashMap;
use std::sync::Arc;

use crate::protocol::KafkaCode;
use crate::wire::Uuid;

/// A topic-partition, by name.
pub(crate) type Tp = (Arc<str>, i32);

/// Epoch 0 with session id 0: "create a session"; with an id: "close that
/// one and create another". Both make the request a full one.
pub(crate) const INITIAL_EPOCH: i32 = 0;
/// Epoch -1: no session wanted (or closing one).
pub(crate) const FINAL_EPOCH: i32 = -1;

/// What a fetch request says about one partition: if any of it changes, an
/// incremental request must carry the partition again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartitionRequest {
    /// The topic's ID (zero when fetching by name).
    pub topic_id: Uuid,
    /// Where to fetch from.
    pub fetch_offset: i64,
    /// The leader epoch the client knows (Fetch v9+), or -1.
    pub current_leader_epoch: i32,
    /// The epoch of the last fetched batch (Fetch v12+), or -1.
    pub last_fetched_epoch: i32,
    /// `max.partition.fetch.bytes` for the partition.
    pub max_bytes: i32,
}

/// The contents of one request, as the session wants it.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The session id to send.
    pub session_id: i32,
    /// The session epoch to send.
    pub epoch: i32,
    /// Partitions listed in the request.
    pub send: Vec<(Tp, PartitionRequest)>,
    /// Partitions to drop from the session (incremental requests only),
    /// with their topic IDs.
    pub forget: Vec<(Tp, Uuid)>,
    /// What the broker's session holds once this request succeeds.
    next: HashMap<Tp, PartitionRequest>,
}

impl Plan {
    /// True for a full request (every wanted partition listed).
    pub fn is_full(&self) -> bool {
        self.epoch == INITIAL_EPOCH || self.epoch == FINAL_EPOCH
    }
}

/// One fetcher's session with one broker.
#[derive(Debug, Clone)]
pub struct FetchSession {
    id: i32,
    epoch: i32,
    /// The partitions the broker's session holds, as it last heard of them.
    parts: HashMap<Tp, PartitionRequest>,
}

impl Default for FetchSession {
    fn default() -> Self {
        FetchSession::new()
    }
}

impl FetchSession {
    /// No session yet: the next request is full and asks for one.
    pub fn new() -> Self {
        FetchSession {
            id: 0,
            epoch: INITIAL_EPOCH,
            parts: HashMap::new(),
        }
    }

    /// The broker's session id (0: none).
    #[cfg(test)]
    pub fn id(&self) -> i32 {
        self.id
    }

    /// The epoch the next request carries.
    #[cfg(test)]
    pub fn epoch(&self) -> i32 {
        self.epoch
    }

    /// Partitions the broker's session holds.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.parts.len()
    }

    /// The request that fetches `wanted`. `sessions` is false for brokers
    /// below Fetch v7: the request is then always full and sessionless.
    pub fn plan(&self, wanted: Vec<(Tp, PartitionRequest)>, sessions: bool) -> Plan {
        let next: HashMap<Tp, PartitionRequest> = wanted.iter().cloned().collect();
        if !sessions {
            return Plan {
                session_id: 0,
                epoch: FINAL_EPOCH,
                send: wanted,
                forget: Vec::new(),
                next,
            };
        }
        if self.epoch == INITIAL_EPOCH || self.id == 0 {
            return Plan {
                session_id: self.id,
                epoch: INITIAL_EPOCH,
                send: wanted,
                forget: Vec::new(),
                next,
            };
        }
        let send = wanted
            .into_iter()
            .filter(|(tp, req)| self.parts.get(tp) != Some(req))
            .collect();
        let mut forget: Vec<(Tp, Uuid)> = self
            .parts
            .iter()
            .filter(|(tp, _)| !next.contains_key(*tp))
            .map(|(tp, req)| (tp.clone(), req.topic_id))
            .collect();
        forget.sort_by(|a, b| a.0.cmp(&b.0));
        Plan {
            session_id: self.id,
            epoch: self.epoch,
            send,
            forget,
            next,
        }
    }

    /// The broker answered `plan` without a top-level error, with
    /// `session_id`.
    pub fn complete(&mut self, plan: Plan, session_id: i32) {
        if plan.epoch == FINAL_EPOCH {
            return;
        }
        if session_id == 0 {
            // No session (the broker keeps none, or closed ours): full again.
            *self = FetchSession::new();
            return;
        }
        if plan.is_full() {
            self.id = session_id;
            self.epoch = next_epoch(INITIAL_EPOCH);
        } else {
            self.epoch = next_epoch(self.epoch);
        }
        self.parts = plan.next;
    }

    /// The request failed: with a top-level error code, or (`None`) on the
    /// way (connection lost, timeout). The next request is full: it closes
    /// the old session and opens a new one, unless the broker says it no
    /// longer knows the session, when it just opens a new one.
    pub fn fail(&mut self, code: Option<KafkaCode>) {
        let keep_id = match code {
            Some(KafkaCode::FETCH_SESSION_ID_NOT_FOUND) | None => 0,
            Some(_) => self.id,
        };
        *self = FetchSession::new();
        self.id = keep_id;
    }

    /// True if `code` is a session error, after which the request is simply
    /// sent again as a full one.
    pub fn is_session_error(code: KafkaCode) -> bool {
        matches!(
            code,
            KafkaCode::FETCH_SESSION_ID_NOT_FOUND
                | KafkaCode::INVALID_FETCH_SESSION_EPOCH
                | KafkaCode::FETCH_SESSION_TOPIC_ID_ERROR
        )
    }
}

/// The epoch after `e`: 1 follows `i32::MAX`.
pub fn next_epoch(e: i32) -> i32 {
    if e < 0 {
        FINAL_EPOCH
    } else if e == i32::MAX {
        1
    } else {
        e + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tp(t: &str, p: i32) -> Tp {
        (Arc::from(t), p)
    }

    fn req(offset: i64) -> PartitionRequest {
        PartitionRequest {
            topic_id: Uuid::ZERO,
            fetch_offset: offset,
            current_leader_epoch: -1,
            last_fetched_epoch: -1,
            max_bytes: 1 << 20,
        }
    }

    #[test]
    fn full_then_incremental_then_forget() {
        let mut s = FetchSession::new();
        let p = s.plan(vec![(tp("a", 0), req(0)), (tp("a", 1), req(5))], true);
        assert_eq!((p.session_id, p.epoch, p.send.len()), (0, 0, 2));
        assert!(p.is_full());
        s.complete(p, 77);
        assert_eq!((s.id(), s.epoch(), s.len()), (77, 1, 2));

        // a 0 moved on, a 1 did not: only a 0 is listed
        let p = s.plan(vec![(tp("a", 0), req(10)), (tp("a", 1), req(5))], true);
        assert_eq!((p.session_id, p.epoch), (77, 1));
        assert_eq!(p.send, vec![(tp("a", 0), req(10))]);
        assert!(p.forget.is_empty());
        s.complete(p, 77);
        assert_eq!(s.epoch(), 2);

        // nothing changed: an empty incremental request
        let p = s.plan(vec![(tp("a", 0), req(10)), (tp("a", 1), req(5))], true);
        assert!(p.send.is_empty() && p.forget.is_empty());
        s.complete(p, 77);

        // a 1 paused: forgotten; b 0 added
        let p = s.plan(vec![(tp("a", 0), req(10)), (tp("b", 0), req(0))], true);
        assert_eq!(p.send, vec![(tp("b", 0), req(0))]);
        assert_eq!(p.forget, vec![(tp("a", 1), Uuid::ZERO)]);
        s.complete(p, 77);
        assert_eq!((s.epoch(), s.len()), (4, 2));
    }

    #[test]
    fn errors_and_sessionless_brokers() {
        let mut s = FetchSession::new();
        let p = s.plan(vec![(tp("a", 0), req(0))], true);
        s.complete(p, 0); // the broker keeps no session
        assert_eq!((s.id(), s.epoch()), (0, 0));
        let p = s.plan(vec![(tp("a", 0), req(3))], true);
        assert!(p.is_full());

        s.complete(p, 9);
        s.fail(Some(KafkaCode::INVALID_FETCH_SESSION_EPOCH));
        // close session 9 and open a new one
        let p = s.plan(vec![(tp("a", 0), req(3))], true);
        assert_eq!((p.session_id, p.epoch, p.send.len()), (9, 0, 1));
        s.fail(Some(KafkaCode::FETCH_SESSION_ID_NOT_FOUND));
        let p = s.plan(vec![(tp("a", 0), req(3))], true);
        assert_eq!((p.session_id, p.epoch), (0, 0));

        let p = s.plan(vec![(tp("a", 0), req(3))], false);
        assert_eq!((p.session_id, p.epoch), (0, FINAL_EPOCH));
        s.complete(p, 0);
        assert_eq!(next_epoch(i32::MAX), 1);
        assert!(FetchSession::is_session_error(KafkaCode(106)));
    }
}
