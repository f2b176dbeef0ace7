//! One ZooKeeper session and the few helpers every ZooKeeper reader shares
//! (the 0.7 registry in `legacy07` and everything in `zk`): connecting with a
//! watcher that just raises a flag or wakes a thread, retrying reads across a
//! reconnect, and turning ZooKeeper's errors into gregor's.

use std::time::{Duration, Instant};

use zookeeper::{Acl, CreateMode, WatchedEvent, WatchedEventType, ZkError, ZooKeeper};

use crate::error::{local, Error};

/// Opens a session. `zk_connect` is `host:port[,host:port…][/chroot]`;
/// `on_event` runs (on the client's event thread) for every node event, never
/// for connection-state changes.
///
/// # Errors
/// `_INVALID_ARG` for a connect string that does not resolve.
pub fn open(
    zk_connect: &str,
    timeout: Duration,
    on_event: impl Fn(&WatchedEvent) + Send + 'static,
) -> Result<ZooKeeper, Error> {
    if zk_connect.trim().is_empty() {
        return Err(Error::Config {
            key: "zookeeper.connect".into(),
            reason: "empty".into(),
        });
    }
    let watcher = move |e: WatchedEvent| {
        if e.event_type != WatchedEventType::None {
            on_event(&e);
        }
    };
    ZooKeeper::connect(zk_connect, timeout, watcher).map_err(|e| Error::Config {
        key: "zookeeper.connect".into(),
        reason: format!("{zk_connect:?}: {e:?}"),
    })
}

/// A ZooKeeper error as gregor's: `_TRANSPORT` (retriable) for connection
/// and session trouble, `_FAIL` for the rest, with what was being done.
pub fn error(what: &str, e: ZkError) -> Error {
    match e {
        ZkError::ConnectionLoss | ZkError::SessionExpired | ZkError::OperationTimeout => {
            Error::transport(format!("ZooKeeper {what}: {e:?} (is ZooKeeper reachable?)"))
        }
        _ => Error::local(local::FAIL, format!("ZooKeeper {what}: {e:?}")),
    }
}

/// Runs a ZooKeeper call, retrying while the session is being (re)made: the
/// client answers ConnectionLoss for requests queued across a reconnect.
/// Gives up after `timeout`.
pub fn retry<T>(
    zk: &ZooKeeper,
    timeout: Duration,
    mut op: impl FnMut(&ZooKeeper) -> Result<T, ZkError>,
) -> Result<T, ZkError> {
    let deadline = Instant::now() + timeout;
    loop {
        match op(zk) {
            Err(ZkError::ConnectionLoss) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(50));
            }
            other => return other,
        }
    }
}

/// Creates `path` and its missing parents as persistent, open-ACL nodes
/// (what Kafka's `ZkUtils.makeSurePersistentPathExists` does).
///
/// # Errors
/// ZooKeeper failures other than "already there".
pub fn ensure_path(zk: &ZooKeeper, timeout: Duration, path: &str) -> Result<(), Error> {
    let ends = path
        .match_indices('/')
        .map(|(i, _)| i)
        .filter(|&i| i > 0)
        .chain(std::iter::once(path.len()));
    for i in ends {
        let prefix = &path[..i];
        match retry(zk, timeout, |zk| {
            zk.create(
                prefix,
                Vec::new(),
                Acl::open_unsafe().clone(),
                CreateMode::Persistent,
            )
        }) {
            Ok(_) | Err(ZkError::NodeExists) => {}
            Err(e) => return Err(error(&format!("create {prefix}"), e)),
        }
    }
    Ok(())
}

/// Writes `data` at `path`, creating it (and its parents) if missing.
///
/// # Errors
/// ZooKeeper failures.
pub fn upsert(zk: &ZooKeeper, timeout: Duration, path: &str, data: &[u8]) -> Result<(), Error> {
    match retry(zk, timeout, |zk| zk.set_data(path, data.to_vec(), None)) {
        Ok(_) => Ok(()),
        Err(ZkError::NoNode) => {
            if let Some((parent, _)) = path.rsplit_once('/') {
                if !parent.is_empty() {
                    ensure_path(zk, timeout, parent)?;
                }
            }
            match retry(zk, timeout, |zk| {
                zk.create(
                    path,
                    data.to_vec(),
                    Acl::open_unsafe().clone(),
                    CreateMode::Persistent,
                )
            }) {
                Ok(_) => Ok(()),
                Err(ZkError::NodeExists) => {
                    retry(zk, timeout, |zk| zk.set_data(path, data.to_vec(), None))
                        .map(|_| ())
                        .map_err(|e| error(&format!("write {path}"), e))
                }
                Err(e) => Err(error(&format!("create {path}"), e)),
            }
        }
        Err(e) => Err(error(&format!("write {path}"), e)),
    }
}

/// The data of `path`, `None` if there is no such node.
///
/// # Errors
/// ZooKeeper failures.
pub fn get(
    zk: &ZooKeeper,
    timeout: Duration,
    path: &str,
    watch: bool,
) -> Result<Option<Vec<u8>>, Error> {
    match retry(zk, timeout, |zk| zk.get_data(path, watch)) {
        Ok((d, _)) => Ok(Some(d)),
        Err(ZkError::NoNode) => Ok(None),
        Err(e) => Err(error(&format!("read {path}"), e)),
    }
}

/// The children of `path`, sorted; empty if there is no such node.
///
/// # Errors
/// ZooKeeper failures.
pub fn children(
    zk: &ZooKeeper,
    timeout: Duration,
    path: &str,
    watch: bool,
) -> Result<Vec<String>, Error> {
    match retry(zk, timeout, |zk| zk.get_children(path, watch)) {
        Ok(mut v) => {
            v.sort();
            Ok(v)
        }
        Err(ZkError::NoNode) => {
            if watch {
                // Watch for it to appear.
                let _ = retry(zk, timeout, |zk| zk.exists(path, true));
            }
            Ok(Vec::new())
        }
        Err(e) => Err(error(&format!("list {path}"), e)),
    }
}
