//! The figures of the statistics' `cgrp` object (librdkafka's
//! STATISTICS.md): the group handler's state and join state with the time
//! of their last change, the rebalances so far and the last one's reason.
//! The member threads keep them under the membership lock (`Group::m`),
//! where the assignment they report the size of lives too; the statistics
//! snapshot reads them every `statistics.interval.ms`, nothing on the poll
//! path does.

use std::time::Instant;

use crate::stats::Cgrp;

/// The group handler's state, named as librdkafka's `cgrp.state`. gregor's
/// member looks the coordinator up when it first needs it (to join or to
/// commit), so it stays in `Init` until then; `QueryCoord` while it has no
/// coordinator connection, `Up` with one, `Term` once the member thread
/// ended.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum CgrpState {
    Init,
    Term,
    QueryCoord,
    Up,
}

impl CgrpState {
    pub(crate) fn name(self) -> &'static str {
        match self {
            CgrpState::Init => "init",
            CgrpState::Term => "term",
            CgrpState::QueryCoord => "query-coord",
            CgrpState::Up => "up",
        }
    }
}

/// The member's join state, named as librdkafka's `cgrp.join_state`.
/// gregor gives partitions up at once (no asynchronous unassign), so
/// librdkafka's `wait-unassign-to-complete` and
/// `wait-incr-unassign-to-complete` have no counterpart.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum JoinState {
    Init,
    WaitJoin,
    WaitMetadata,
    WaitSync,
    WaitAssignCall,
    WaitUnassignCall,
    Steady,
}

impl JoinState {
    pub(crate) fn name(self) -> &'static str {
        match self {
            JoinState::Init => "init",
            JoinState::WaitJoin => "wait-join",
            JoinState::WaitMetadata => "wait-metadata",
            JoinState::WaitSync => "wait-sync",
            JoinState::WaitAssignCall => "wait-assign-call",
            JoinState::WaitUnassignCall => "wait-unassign-call",
            JoinState::Steady => "steady",
        }
    }
}

/// The `cgrp` figures as the member threads move them.
#[derive(Debug)]
pub(crate) struct CgrpTrack {
    state: CgrpState,
    /// `None` until the state first changes: librdkafka reports a
    /// `stateage` of 0 for a group handler still in its first state.
    state_since: Option<Instant>,
    join_state: JoinState,
    /// The last assign or revoke; `None` before the first.
    rebalanced_at: Option<Instant>,
    rebalance_cnt: u64,
    /// Why the member last chose to give its assignment up and rejoin;
    /// empty until it first did.
    rebalance_reason: String,
    /// An eager assignment is held, possibly of no partitions: under the
    /// eager protocol librdkafka revokes (and counts a rebalance) before
    /// every rejoin that follows an assignment, even an empty one.
    eager_assigned: bool,
}

impl Default for CgrpTrack {
    fn default() -> CgrpTrack {
        CgrpTrack {
            state: CgrpState::Init,
            state_since: None,
            join_state: JoinState::Init,
            rebalanced_at: None,
            rebalance_cnt: 0,
            rebalance_reason: String::new(),
            eager_assigned: false,
        }
    }
}

impl CgrpTrack {
    /// Moves to `to`; returns the state left.
    pub(crate) fn set_state(&mut self, to: CgrpState) -> CgrpState {
        let from = self.state;
        if from != to {
            self.state = to;
            self.state_since = Some(Instant::now());
        }
        from
    }

    pub(crate) fn state(&self) -> CgrpState {
        self.state
    }

    /// Moves to join state `to`; returns the join state left.
    pub(crate) fn set_join_state(&mut self, to: JoinState) -> JoinState {
        std::mem::replace(&mut self.join_state, to)
    }

    pub(crate) fn join_state(&self) -> JoinState {
        self.join_state
    }

    /// Counts an assign handed to the application (or applied for it).
    pub(crate) fn assigned(&mut self, eager: bool) {
        self.count();
        self.eager_assigned = eager;
    }

    /// Counts a revoke (or loss) of `parts` partitions, as librdkafka
    /// counts one: of any partitions, and under the eager protocol of a
    /// held assignment even when it is empty. Returns whether it counted.
    pub(crate) fn revoked(&mut self, parts: usize, eager: bool) -> bool {
        let counts = parts > 0 || (eager && self.eager_assigned);
        if eager {
            self.eager_assigned = false;
        }
        if counts {
            self.count();
        }
        counts
    }

    /// Notes why the member gives its assignment up and rejoins (or
    /// leaves): librdkafka sets its `rebalance_reason` at that decision.
    pub(crate) fn reason(&mut self, why: impl Into<String>) {
        self.rebalance_reason = why.into();
    }

    fn count(&mut self) {
        self.rebalance_cnt += 1;
        self.rebalanced_at = Some(Instant::now());
    }

    /// The statistics' `cgrp` object, with `assignment_size` partitions
    /// assigned now.
    pub(crate) fn stats(&self, assignment_size: usize) -> Cgrp {
        let ms = |t: Option<Instant>| t.map_or(0, |t| t.elapsed().as_millis() as u64);
        Cgrp {
            state: self.state.name(),
            stateage: ms(self.state_since),
            join_state: self.join_state.name(),
            rebalance_age: ms(self.rebalanced_at),
            rebalance_cnt: self.rebalance_cnt,
            rebalance_reason: self.rebalance_reason.clone(),
            assignment_size: assignment_size as u64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_are_zero_until_the_first_change() {
        let t = CgrpTrack::default();
        let s = t.stats(0);
        assert_eq!((s.state, s.stateage, s.join_state), ("init", 0, "init"));
        assert_eq!((s.rebalance_age, s.rebalance_cnt), (0, 0));
        assert_eq!(s.rebalance_reason, "");
    }

    #[test]
    fn rebalances_count_as_librdkafka_counts_them() {
        let mut t = CgrpTrack::default();
        // nothing held yet: an eager rejoin revokes nothing
        assert!(!t.revoked(0, true));
        t.assigned(true);
        // an empty eager assignment is still revoked before the rejoin
        assert!(t.revoked(0, true));
        assert!(!t.revoked(0, true));
        // cooperative: only partitions are revoked
        t.assigned(false);
        assert!(!t.revoked(0, false));
        assert!(t.revoked(2, false));
        assert_eq!(t.stats(0).rebalance_cnt, 4);
        t.reason("unsubscribe");
        assert_eq!(t.stats(0).rebalance_reason, "unsubscribe");
    }

    #[test]
    fn state_changes_are_timed() {
        let mut t = CgrpTrack::default();
        assert_eq!(t.set_state(CgrpState::QueryCoord), CgrpState::Init);
        assert_eq!(t.set_state(CgrpState::Up), CgrpState::QueryCoord);
        assert_eq!(t.stats(3).state, "up");
        assert_eq!(t.stats(3).assignment_size, 3);
        assert_eq!(t.set_join_state(JoinState::Steady), JoinState::Init);
        assert_eq!(t.join_state().name(), "steady");
    }
}
