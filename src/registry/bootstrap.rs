//! Bootstrap from ZooKeeper: the broker list is read from `/brokers/ids`,
//! and a watch on it keeps the cluster view current. A background thread
//! re-reads the registrations whenever a watch fires (and re-opens the
//! session if ZooKeeper expired it), handing the new list to a callback.

use crate::sync::MutexExt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use zookeeper::{ZkState, ZooKeeper};

use super::brokers::{read_brokers, ZkBroker, BROKER_IDS_PATH};
use super::session;
use crate::error::{local, Error};

/// A live watch on `/brokers/ids`; dropping it stops the thread and closes
/// the session.
pub struct BrokerWatch {
    stop: Arc<AtomicBool>,
    wake: Sender<()>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for BrokerWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BrokerWatch").finish_non_exhaustive()
    }
}

fn open_watched(
    zk_connect: &str,
    timeout: Duration,
    wake: &Sender<()>,
) -> Result<ZooKeeper, Error> {
    let tx = Mutex::new(wake.clone());
    let zk = session::open(zk_connect, timeout, move |_| {
        let _ = tx.locked().send(());
    })?;
    let tx = Mutex::new(wake.clone());
    zk.add_listener(move |s| {
        if matches!(s, ZkState::Closed) {
            let _ = tx.locked().send(());
        }
    });
    Ok(zk)
}

fn no_brokers(zk_connect: &str) -> Error {
    Error::local(
        local::ALL_BROKERS_DOWN,
        format!("no broker is registered under {BROKER_IDS_PATH} in ZooKeeper {zk_connect}"),
    )
}

/// Reads the brokers registered in ZooKeeper `zk_connect` and watches them.
/// `on_change` runs on the watch thread with each new list; it returns
/// false to stop watching (its cluster is gone).
///
/// # Errors
/// A bad connect string, ZooKeeper unreachable within `timeout`,
/// malformed registrations, or no broker registered.
pub fn watch_brokers(
    zk_connect: &str,
    timeout: Duration,
    on_change: impl Fn(Vec<ZkBroker>) -> bool + Send + 'static,
) -> Result<(BrokerWatch, Vec<ZkBroker>), Error> {
    let (tx, rx) = channel();
    let mut zk = open_watched(zk_connect, timeout, &tx)?;
    let first = read_brokers(&zk, timeout, true)?;
    if first.is_empty() {
        let _ = zk.close();
        return Err(no_brokers(zk_connect));
    }
    let stop = Arc::new(AtomicBool::new(false));
    let stop2 = stop.clone();
    let connect = zk_connect.to_string();
    let tx2 = tx.clone();
    let thread = std::thread::Builder::new()
        .name("gregor-zk-brokers".into())
        .spawn(move || {
            let mut last = None;
            loop {
                match rx.recv_timeout(Duration::from_secs(1)) {
                    Ok(()) => {}
                    Err(RecvTimeoutError::Timeout) => {
                        if last.is_none() {
                            continue;
                        }
                    }
                    Err(RecvTimeoutError::Disconnected) => break,
                }
                if stop2.load(Ordering::SeqCst) {
                    break;
                }
                while rx.try_recv().is_ok() {}
                match read_brokers(&zk, timeout, true) {
                    Ok(list) => {
                        last = None;
                        if !on_change(list) {
                            break;
                        }
                    }
                    Err(e) => {
                        // An expired or lost session: start a new one, whose
                        // first read sets the watches again (retried each second).
                        if e.code() == local::TRANSPORT {
                            if let Ok(z) = open_watched(&connect, timeout, &tx2) {
                                let _ = zk.close();
                                zk = z;
                            }
                        }
                        last = Some(e);
                    }
                }
            }
            let _ = zk.close();
        })
        .map_err(|e| Error::local(local::FAIL, format!("cannot start a thread: {e}")))?;
    Ok((
        BrokerWatch {
            stop,
            wake: tx,
            thread: Some(thread),
        },
        first,
    ))
}

impl Drop for BrokerWatch {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = self.wake.send(());
        if let Some(t) = self.thread.take() {
            // Never join from the watch thread itself (a callback dropping the cluster).
            if t.thread().id() != std::thread::current().id() {
                let _ = t.join();
            }
        }
    }
}
