//! What every broker thread, handler and control call of the mock
//! cluster shares: the cluster's state under one lock, the condition
//! variable waiting requests wait on, and each broker's listener.

use crate::sync::MutexExt;
use std::collections::HashMap;
use std::net::TcpStream;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use super::state::State;

/// The state and the condition variable every waiting request (a long-poll
/// Fetch, a JoinGroup waiting for the others, a follower's SyncGroup) waits on.
pub(crate) struct Shared {
    pub state: Mutex<State>,
    pub changed: Condvar,
    /// Per broker: its listener's accept thread state and open connections.
    pub net: Mutex<HashMap<i32, BrokerNet>>,
}

impl Shared {
    /// Locks the state; a panicked connection thread does not poison the cluster.
    pub fn lock(&self) -> MutexGuard<'_, State> {
        self.state.locked()
    }
}

/// One broker's listener and open connections.
pub(crate) struct BrokerNet {
    pub(super) stop: Arc<AtomicBool>,
    pub(super) port: u16,
    pub(super) accept: Option<JoinHandle<()>>,
    pub(super) conns: Vec<TcpStream>,
}
