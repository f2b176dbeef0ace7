//! Metadata recovery (KIP-899 `metadata.recovery.strategy`, KIP-1102
//! `metadata.recovery.rebootstrap.trigger.ms`), as librdkafka 2.10+ and the
//! Java client do it.
//!
//! `bootstrap.servers` is used until the first metadata answer; from then on
//! metadata comes from the brokers that answer named. With the strategy
//! `rebootstrap` (the default), the client goes back to `bootstrap.servers`,
//! forgetting the brokers it learned, when every known broker fails a
//! metadata request, or when no metadata has arrived for
//! `metadata.recovery.rebootstrap.trigger.ms` since the first request after
//! the last answer (KIP-1102), or when a broker answers Metadata (v13+)
//! with REBOOTSTRAP_REQUIRED (KIP-1102). With `none` it keeps asking the brokers of
//! the last answer, whatever happens to them.

use crate::sync::MutexExt;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::config::Config;

/// `metadata.recovery.strategy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Strategy {
    /// Never go back to `bootstrap.servers` once a broker answered.
    None,
    /// Go back to `bootstrap.servers` when the known brokers fail.
    Rebootstrap,
}

#[derive(Debug, Default)]
struct State {
    /// A metadata answer arrived since the last (re-)bootstrap.
    bootstrapped: bool,
    /// The first metadata request since the last answer.
    failing_since: Option<Instant>,
}

/// The recovery state of one cluster handle.
#[derive(Debug)]
pub(super) struct Recovery {
    pub(super) strategy: Strategy,
    trigger: Duration,
    state: Mutex<State>,
}

impl Recovery {
    pub(super) fn from_config(cfg: &Config) -> Recovery {
        Recovery::new(
            if cfg.str("metadata.recovery.strategy") == "none" {
                Strategy::None
            } else {
                Strategy::Rebootstrap
            },
            cfg.ms("metadata.recovery.rebootstrap.trigger.ms"),
        )
    }

    pub(super) fn new(strategy: Strategy, trigger: Duration) -> Recovery {
        Recovery {
            strategy,
            trigger,
            state: Mutex::new(State::default()),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.locked()
    }

    /// Whether metadata requests go to `bootstrap.servers` (nothing
    /// answered since the last (re-)bootstrap).
    pub(super) fn bootstrapping(&self) -> bool {
        !self.state().bootstrapped
    }

    /// A metadata request starts.
    pub(super) fn started(&self, now: Instant) {
        self.state().failing_since.get_or_insert(now);
    }

    /// A metadata answer arrived.
    pub(super) fn answered(&self) {
        let mut s = self.state();
        s.bootstrapped = true;
        s.failing_since = None;
    }

    /// A broker answered REBOOTSTRAP_REQUIRED (KIP-1102): whether to
    /// re-bootstrap (not with the strategy `none`). If so, the state is
    /// back to bootstrapping.
    pub(super) fn required(&self) -> bool {
        if self.strategy == Strategy::None {
            return false;
        }
        let mut s = self.state();
        s.bootstrapped = false;
        s.failing_since = None;
        true
    }

    /// After a failed metadata request to the known brokers (`all_failed`:
    /// every one of them was asked and failed): whether to re-bootstrap
    /// now. If so, the state is back to bootstrapping.
    pub(super) fn rebootstrap_after_failure(&self, all_failed: bool, now: Instant) -> bool {
        if self.strategy == Strategy::None {
            return false;
        }
        let mut s = self.state();
        if !s.bootstrapped {
            return false;
        }
        let overdue = s
            .failing_since
            .is_some_and(|t| now.saturating_duration_since(t) >= self.trigger);
        if all_failed || overdue {
            s.bootstrapped = false;
            s.failing_since = None;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rebootstrap_rules() {
        let t0 = Instant::now();
        let r = Recovery::new(Strategy::Rebootstrap, Duration::from_secs(300));
        assert!(r.bootstrapping());
        r.started(t0);
        // nothing learned yet: the bootstrap list is already in use
        assert!(!r.rebootstrap_after_failure(true, t0));
        r.answered();
        assert!(!r.bootstrapping());
        // some brokers failed, before the trigger time: keep them
        r.started(t0);
        assert!(!r.rebootstrap_after_failure(false, t0 + Duration::from_secs(299)));
        // the trigger time passed since the first request without an answer
        r.started(t0 + Duration::from_secs(100));
        assert!(r.rebootstrap_after_failure(false, t0 + Duration::from_secs(300)));
        assert!(r.bootstrapping());
        r.answered();
        // every known broker failed: at once
        r.started(t0);
        assert!(r.rebootstrap_after_failure(true, t0));

        let none = Recovery::new(Strategy::None, Duration::ZERO);
        none.answered();
        none.started(t0);
        assert!(!none.rebootstrap_after_failure(true, t0 + Duration::from_secs(1000)));
        assert!(!none.bootstrapping());
        assert!(!none.required());
        assert!(!none.bootstrapping());
        // REBOOTSTRAP_REQUIRED: back to bootstrap.servers at once
        let r = Recovery::new(Strategy::Rebootstrap, Duration::from_secs(300));
        r.answered();
        assert!(r.required());
        assert!(r.bootstrapping());
    }
}
