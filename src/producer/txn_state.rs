//! Where a transactional producer is (KIP-98): the phase, librdkafka's
//! names for it, and the open transaction's partitions and offsets, as
//! the shared state holds them.

use std::collections::HashSet;
use std::time::Instant;

use super::accumulator::Tp;
use super::settings::Settings;
use crate::error::{local, Error, Result};
use crate::log::{self, ctx, Logger};

/// Where a transactional producer is.
#[derive(Debug, Clone, Default)]
pub(crate) enum Phase {
    /// `init_transactions` not called yet.
    #[default]
    Uninit,
    /// No transaction open.
    Ready,
    /// Inside `begin_transaction` … commit/abort.
    InTxn,
    /// A send failed inside the transaction: only abort is possible.
    Abortable(Error),
}

/// Transaction bookkeeping.
#[derive(Debug)]
pub(crate) struct TxnState {
    pub phase: Phase,
    /// When `phase` last changed (statistics' `txn_stateage`).
    pub phase_since: Instant,
    /// Partitions added to the open transaction.
    pub partitions: HashSet<Tp>,
    /// Offsets were added to the open transaction.
    pub offsets_added: bool,
    /// `init_transactions` was called: until the producer id arrives, the
    /// sender goes on asking for it after the call timed out.
    pub init_started: bool,
    /// The coordinator's finalized `transaction.version` was 2 or more when
    /// last heard (KIP-890 part 2).
    pub cluster_v2: bool,
    /// The open transaction runs transactions v2: fixed at
    /// `begin_transaction` from `cluster_v2`, as the Java client does.
    pub v2: bool,
}

impl Default for TxnState {
    fn default() -> Self {
        TxnState {
            phase: Phase::default(),
            phase_since: Instant::now(),
            partitions: HashSet::new(),
            offsets_added: false,
            init_started: false,
            cluster_v2: false,
            v2: false,
        }
    }
}

impl Phase {
    /// librdkafka's name of the state (`rd_kafka_txn_state2str`).
    pub(super) fn name(&self) -> &'static str {
        match self {
            Phase::Uninit => "INIT",
            Phase::Ready => "READY",
            Phase::InTxn => "IN_TRANSACTION",
            Phase::Abortable(_) => "ABORTABLE_ERROR",
        }
    }
}

impl TxnState {
    /// The error of a transactional call made in the wrong phase:
    /// `_CONFLICT` (retriable) while an `init_transactions` that timed out is
    /// still getting the producer id, as librdkafka's "in progress" answer
    /// (calling `init_transactions` again resumes it); `_STATE` otherwise.
    pub fn wrong_phase(&self, what: &str) -> Error {
        if matches!(self.phase, Phase::Uninit) && self.init_started {
            Error::local(
                local::CONFLICT,
                format!(
                    "{what}: init_transactions is still in progress (call it again to resume it)"
                ),
            )
        } else {
            Error::local(local::STATE, format!("{what} ({:?})", self.phase))
        }
    }

    /// Moves to `phase`, logging the change as librdkafka's "TXNSTATE"
    /// line (`eos` context).
    pub fn set_phase(&mut self, phase: Phase, log: &Logger) {
        if log.debug_on(ctx::EOS) {
            match &phase {
                Phase::Abortable(e) => log::debug!(
                    log,
                    ctx::EOS,
                    "TXNSTATE",
                    "Transaction state change {} -> {}: {e}",
                    self.phase.name(),
                    phase.name()
                ),
                _ => log::debug!(
                    log,
                    ctx::EOS,
                    "TXNSTATE",
                    "Transaction state change {} -> {}",
                    self.phase.name(),
                    phase.name()
                ),
            }
        }
        self.phase = phase;
        self.phase_since = Instant::now();
    }

    /// Whether a message may be queued now.
    pub fn check_can_send(&self, s: &Settings) -> Result<()> {
        if s.transactional_id.is_none() {
            return Ok(());
        }
        match &self.phase {
            Phase::InTxn => Ok(()),
            Phase::Abortable(e) => Err(Error::local(
                local::STATE,
                format!("the transaction must be aborted: {e}"),
            )),
            _ => Err(Error::local(
                local::STATE,
                "a transactional producer sends only inside a transaction",
            )),
        }
    }
}
