//! The state a producer's application threads, its sender thread and the
//! response callbacks on the connections' I/O threads share.

use crate::sync::MutexExt;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use super::accumulator::Acc;
use super::report::DeliveryCallback;
use super::settings::Settings;
use super::txn_state::TxnState;
use crate::cluster::Cluster;
use crate::error::Error;

/// State shared by the application's threads, the sender thread and the
/// response callbacks on the connections' I/O threads.
pub(crate) struct Shared {
    pub cluster: Cluster,
    pub settings: Settings,
    pub acc: Mutex<Acc>,
    /// Wakes the sender thread.
    pub wake: Condvar,
    /// Wakes threads waiting for queue space, flushes and reports.
    pub changed: Condvar,
    pub dr_cb: Mutex<Option<DeliveryCallback>>,
    pub txn: Mutex<TxnState>,
    /// The event-loop trigger (the same as `Acc::wakeup`, reachable
    /// without the accumulator's lock).
    pub wakeup: Arc<crate::net::wakeup::Wakeup>,
    /// `Acc::in_service`, reachable without the accumulator's lock.
    pub in_service: Arc<AtomicUsize>,
}

impl Shared {
    /// A producer's shared state: nothing queued, no callback set.
    pub fn new(cluster: Cluster, settings: Settings) -> Shared {
        let acc = Acc::new(&settings);
        Shared {
            cluster,
            wakeup: acc.wakeup.clone(),
            in_service: acc.in_service.clone(),
            acc: Mutex::new(acc),
            settings,
            wake: Condvar::new(),
            changed: Condvar::new(),
            dr_cb: Mutex::new(None),
            txn: Mutex::new(TxnState::default()),
        }
    }

    pub fn acc(&self) -> MutexGuard<'_, Acc> {
        self.acc.locked()
    }

    pub fn txn(&self) -> MutexGuard<'_, TxnState> {
        self.txn.locked()
    }

    /// Records the producer's fatal error (the first one stays) and queues
    /// the `_FATAL` event for the error callback. The caller holds `acc`
    /// and notifies `changed` after releasing it, which wakes the pollers.
    pub fn set_fatal(&self, acc: &mut Acc, e: Error) {
        if acc.fatal.is_none() {
            self.cluster.events().raise_fatal(&e);
            acc.fatal = Some(e);
        }
    }
}
