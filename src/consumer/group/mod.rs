//! Consumer group membership (Kafka's classic group protocol): the
//! coordinator thread that joins, syncs, heartbeats and leaves, the
//! leader's assignment, offset commits, and the rebalance events `poll`
//! serves.
//!
//! One coordinator thread per consumer with a `group.id` (docs/ARCHITECTURE.md),
//! on the coordinator's group-purpose connection: it finds the coordinator
//! (FindCoordinator), joins (JoinGroup, rejoining with the member id a
//! MEMBER_ID_REQUIRED answer gives, KIP-394), runs the assignor as leader
//! with ConsumerProtocol subscription/assignment bytes as the Java client
//! and librdkafka write them, syncs (SyncGroup), heartbeats every
//! `heartbeat.interval.ms`, commits stored offsets every
//! `auto.commit.interval.ms`, and re-checks regex subscriptions and
//! partition counts every `topic.metadata.refresh.interval.ms`.
//!
//! Decisions (librdkafka's where it and Java differ, unless said):
//! - The rebalance timeout is `max.poll.interval.ms`, as both clients do.
//! - Eager assignors revoke everything before JoinGroup; when every
//!   assignor offered is cooperative (KIP-429) only the partitions that
//!   move are revoked, and the member rejoins at once after giving them up.
//! - Auto commit commits offsets stored for messages `poll` returned
//!   (at-least-once), before partitions are revoked, and on close.
//! - ILLEGAL_GENERATION / UNKNOWN_MEMBER_ID / FENCED_INSTANCE_ID lose the
//!   partitions (no commit); UNKNOWN_MEMBER_ID also forgets the member id,
//!   FENCED_INSTANCE_ID stops the member for good (a fatal error event).
//! - No heartbeat answered within `session.timeout.ms`: partitions lost,
//!   rejoin. Coordinator errors (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE,
//!   a lost connection) find the coordinator again without rejoining.
//! - `max.poll.interval.ms` without a poll: the member leaves the group
//!   (not a static one: LeaveGroup would end its static membership),
//!   its partitions are lost, and poll returns `_MAX_POLL_EXCEEDED`; the
//!   next poll rejoins.
//! - Static members (`group.instance.id`, KIP-345) send no LeaveGroup on
//!   close, as the Java client, so a restart keeps the assignment.
//! - `client.rack` goes into the subscription (v3 `rack_id`, KIP-881); the
//!   leader hands the assignor every partition's replica racks from the
//!   Metadata it fetched (brokers' racks), for rack-aware assignment.
//!
//! The rooms: membership.rs (the settings, the subscription and the
//! member's state poll and the group thread share), commit.rs (stored
//! offsets and OffsetCommit), classic.rs (the classic protocol's
//! subscription bytes, the leader's assignment, LeaveGroup), thread.rs
//! (the classic member's thread), kip848.rs (the KIP-848 member) and
//! cgrp_stats.rs (the statistics' `cgrp` figures both members keep); this
//! file picks the protocol's way of leaving.

use std::time::Instant;

use crate::cluster::Cluster;
use crate::error::Result;

mod cgrp_stats;
mod classic;
mod commit;
pub(crate) mod kip848;
mod membership;
mod thread;

pub use super::group_events::RebalanceEvent;
pub(crate) use commit::{commit, commit_stored, first_error, take_parts};
pub(crate) use membership::{Group, GroupSettings};
pub(crate) use thread::Coordinator;

/// Leaves the group: LeaveGroup in the classic protocol, the leave
/// heartbeat in the consumer protocol (KIP-848).
///
/// # Errors
/// The request's or the coordinator's error.
pub(crate) fn leave(
    group: &Group,
    cluster: &Cluster,
    member_id: &str,
    deadline: Instant,
) -> Result<()> {
    if group.settings.consumer_protocol {
        kip848::leave(group, cluster, member_id, deadline)
    } else {
        classic::leave(group, cluster, member_id, deadline)
    }
}
