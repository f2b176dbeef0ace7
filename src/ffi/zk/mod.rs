//! ZooKeeper-era clusters for C: `gregor_zk_*` (src/zk). Bootstrapping a
//! producer or consumer from ZooKeeper needs nothing here: set
//! `zookeeper.connect` instead of `bootstrap.servers` on the config.
//!
//! Same conventions as the rest of the C API: opaque handles, `_free(NULL)`
//! is a no-op, 0 or an error code, detail in a caller-owned `errstr`,
//! out-parameters written only on success, no panic crosses into C.

use std::ffi::{c_char, c_int, CString};
use std::ptr;
use std::time::Duration;

use super::config::gregor_config;
use super::guard::{guard, guard_code};
use super::lifetime::{destroy, destroyed_error, enter, handle_registry, register, Handle, Life};
use super::message::{gregor_message, into_handle};
use super::raw::*;
use crate::error::{local, Error};
use crate::message::Message;
use crate::registry::ZkClient;
use crate::zk::BalancedConsumer;

mod admin;
mod inspect;
mod migrate;

pub use admin::*;
pub use inspect::*;
pub use migrate::*;

/// A ZooKeeper session on a Kafka cluster's znodes. Thread-safe.
pub struct gregor_zk {
    inner: ZkClient,
    life: Life,
}

impl Handle for gregor_zk {
    const NAME: &'static str = "zk";
    handle_registry!();
    fn life(&self) -> &Life {
        &self.life
    }
    /// Nothing to wake: each call is bounded by the session timeout.
    fn shutdown(&self) {}
}

/// Opens a ZooKeeper session. `zk_connect` is `host:port[,host:port…][/chroot]`;
/// `session_timeout_ms` (> 0) is the session timeout and bounds each call.
/// Does not block on the network (the session is made in the background).
///
/// Returns a handle the caller owns (free with `gregor_zk_free`), or NULL
/// with the reason in `errstr`.
#[no_mangle]
pub extern "C" fn gregor_zk_new(
    zk_connect: *const c_char,
    session_timeout_ms: i32,
    errstr: *mut c_char,
    errstr_size: usize,
) -> *mut gregor_zk {
    let mut out = std::ptr::null_mut();
    let rc = guard_code(errstr, errstr_size, || {
        let c = c_str(zk_connect, "zk_connect")?;
        if session_timeout_ms <= 0 {
            return Err(Error::invalid_arg("session_timeout_ms must be > 0"));
        }
        let inner = ZkClient::connect(c, Duration::from_millis(session_timeout_ms as u64))?;
        out = register(Box::new(gregor_zk {
            inner,
            life: Life::new(),
        }));
        Ok(())
    });
    if rc == 0 {
        out
    } else {
        std::ptr::null_mut()
    }
}

/// Closes the session and frees the handle. NULL is a no-op.
///
/// Lifetime: safe while other threads are inside calls on the handle (see
/// the header's preamble): new calls fail with `GREGOR_ERR__DESTROY`; calls
/// in flight are not interrupted (each is bounded by its timeout) and this
/// waits for them to leave before releasing anything, then they return
/// `GREGOR_ERR__DESTROY`. A second free of the same pointer is a no-op.
#[no_mangle]
pub extern "C" fn gregor_zk_free(zk: *mut gregor_zk) {
    guard((), || destroy(zk));
}

/// Reads a legacy consumer group's offset `/consumers/<group>/offsets/<topic>/<partition>`
/// into `*offset`. Blocks up to the session timeout.
///
/// Returns 0, `GREGOR_ERR__NO_OFFSET` if none is stored, or an error
/// (`GREGOR_ERR__BAD_MSG` for a malformed znode, naming it in `errstr`).
#[no_mangle]
pub extern "C" fn gregor_zk_offset_get(
    zk: *const gregor_zk,
    group: *const c_char,
    topic: *const c_char,
    partition: i32,
    offset: *mut i64,
    errstr: *mut c_char,
    errstr_size: usize,
) -> i32 {
    guard_code(errstr, errstr_size, || {
        let zk = enter(zk)?;
        let (g, t) = (c_str(group, "group")?, c_str(topic, "topic")?);
        let offs = zk.inner.offsets(g, Some(t))?;
        let o = offs.get(&(t.to_string(), partition)).ok_or_else(|| {
            Error::local(
                local::NO_OFFSET,
                format!("no offset for {g} {t} [{partition}] in ZooKeeper"),
            )
        })?;
        put(offset, *o);
        Ok(())
    })
}

/// Writes a legacy consumer group's offset (creating the nodes on the
/// way). Blocks up to the session timeout.
#[no_mangle]
pub extern "C" fn gregor_zk_offset_set(
    zk: *const gregor_zk,
    group: *const c_char,
    topic: *const c_char,
    partition: i32,
    offset: i64,
    errstr: *mut c_char,
    errstr_size: usize,
) -> i32 {
    guard_code(errstr, errstr_size, || {
        let zk = enter(zk)?;
        zk.inner.set_offset(
            c_str(group, "group")?,
            c_str(topic, "topic")?,
            partition,
            offset,
        )
    })
}

/// A partition's state from `/brokers/topics/<topic>/partitions/<partition>/state`.
/// Any out-pointer may be NULL. Returns `GREGOR_ERR__UNKNOWN_PARTITION` if
/// no state is written. Blocks up to the session timeout.
#[no_mangle]
pub extern "C" fn gregor_zk_partition_state(
    zk: *const gregor_zk,
    topic: *const c_char,
    partition: i32,
    leader: *mut i32,
    leader_epoch: *mut i32,
    controller_epoch: *mut i32,
    errstr: *mut c_char,
    errstr_size: usize,
) -> i32 {
    guard_code(errstr, errstr_size, || {
        let zk = enter(zk)?;
        let t = c_str(topic, "topic")?;
        let s = zk.inner.partition_state(t, partition)?.ok_or_else(|| {
            Error::local(
                local::UNKNOWN_PARTITION,
                format!("no state for {t} [{partition}] in ZooKeeper"),
            )
        })?;
        put(leader, s.leader);
        put(leader_epoch, s.leader_epoch);
        put(controller_epoch, s.controller_epoch);
        Ok(())
    })
}

// ----- the ZooKeeper-balanced consumer -----

/// A member of a ZooKeeper-coordinated (Kafka 0.8 high-level consumer)
/// group. Thread-safe.
pub struct gregor_zk_consumer {
    inner: BalancedConsumer,
    id: CString,
    life: Life,
}

impl Handle for gregor_zk_consumer {
    const NAME: &'static str = "zk consumer";
    handle_registry!();
    fn life(&self) -> &Life {
        &self.life
    }
    /// Leaves the group: polls blocked elsewhere return.
    fn shutdown(&self) {
        self.inner.close();
    }
}

/// Joins the group `group.id` of `conf` (copied; `zookeeper.connect` is
/// required and also finds the brokers) as a ZooKeeper-balanced consumer of
/// the `topic_count` topics in `topics` (borrowed for the call). Blocks
/// while registering (up to `zookeeper.session.timeout.ms`); partitions are
/// then assigned in the background.
///
/// Returns a handle the caller owns (free with `gregor_zk_consumer_free`),
/// or NULL with the reason in `errstr`.
#[no_mangle]
pub extern "C" fn gregor_zk_consumer_new(
    conf: *const gregor_config,
    topics: *const *const c_char,
    topic_count: usize,
    errstr: *mut c_char,
    errstr_size: usize,
) -> *mut gregor_zk_consumer {
    let mut out = ptr::null_mut();
    guard_code(errstr, errstr_size, || {
        let conf = handle(conf, "conf")?;
        if topics.is_null() || topic_count == 0 {
            return Err(Error::invalid_arg("topics: at least one topic is needed"));
        }
        let names = c_strs(topics, topic_count, "topics")?;
        let inner = BalancedConsumer::new(&conf.inner, &names)?;
        let id = CString::new(inner.id()).unwrap_or_default();
        out = register(Box::new(gregor_zk_consumer {
            inner,
            id,
            life: Life::new(),
        }));
        Ok(())
    });
    out
}

/// Waits up to `timeout_ms` for the next message of an owned partition.
/// Returns a message the caller owns (free with `gregor_message_free`), or
/// NULL on timeout (or a NULL consumer). Errors come as messages whose
/// `gregor_message_err` is non-zero (a failed rebalance: no topic,
/// partition -1; after close: `GREGOR_ERR__STATE`). The message's offset + 1
/// is what the next commit writes to ZooKeeper. Thread-safe; blocks.
#[no_mangle]
pub extern "C" fn gregor_zk_consumer_poll(
    consumer: *const gregor_zk_consumer,
    timeout_ms: c_int,
) -> *mut gregor_message {
    guard(ptr::null_mut(), || {
        let c = match enter(consumer) {
            Ok(c) => c,
            Err(e) if e.code() == local::DESTROY => {
                return into_handle(Message::event("".into(), -1, -1, e))
            }
            Err(_) => return ptr::null_mut(),
        };
        let timeout = timeout(timeout_ms);
        let r = c.inner.poll(timeout);
        if c.life().is_destroyed() {
            let e = destroyed_error(gregor_zk_consumer::NAME);
            return into_handle(Message::event("".into(), -1, -1, e));
        }
        let msg = match r {
            Ok(Some(m)) => m,
            Ok(None) => return ptr::null_mut(),
            Err(e) => Message::event("".into(), -1, -1, e),
        };
        into_handle(msg)
    })
}

/// Writes the offsets of the owned partitions (after the last message
/// handed out) to `/consumers/<group>/offsets/<topic>/<partition>`.
/// Blocks up to the session timeout. Thread-safe.
///
/// Returns 0 or the ZooKeeper failure's code (`GREGOR_ERR__TRANSPORT`),
/// with the reason in `errstr`.
#[no_mangle]
pub extern "C" fn gregor_zk_consumer_commit(
    consumer: *const gregor_zk_consumer,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || enter(consumer)?.inner.commit())
}

/// This member's consumer id (`<group>_<host>-<ms>-<random>`), borrowed,
/// valid until the consumer is freed; "" for NULL.
#[no_mangle]
pub extern "C" fn gregor_zk_consumer_id(consumer: *const gregor_zk_consumer) -> *const c_char {
    guard(c"".as_ptr(), || match enter(consumer) {
        Ok(c) => c.id.as_ptr(),
        Err(_) => c"".as_ptr(),
    })
}

/// Leaves the group: commits (with `enable.auto.commit`), releases the
/// owned partitions and the registration, closes the fetcher. Later polls
/// return `GREGOR_ERR__STATE` messages. Idempotent; blocks up to the session
/// timeout. The handle stays valid until `gregor_zk_consumer_free`.
#[no_mangle]
pub extern "C" fn gregor_zk_consumer_close(consumer: *const gregor_zk_consumer) {
    guard((), || {
        if let Ok(c) = enter(consumer) {
            c.inner.close();
        }
    })
}

/// Closes (as `gregor_zk_consumer_close`) and frees the consumer. NULL is a no-op.
///
/// Lifetime: safe while other threads are inside calls on the handle (see
/// the header's preamble): new calls fail with `GREGOR_ERR__DESTROY`, calls
/// in flight are woken and return `GREGOR_ERR__DESTROY`, and this waits for
/// them to leave before releasing anything. A second free of the same
/// pointer is a no-op.
#[no_mangle]
pub extern "C" fn gregor_zk_consumer_free(consumer: *mut gregor_zk_consumer) {
    guard((), || destroy(consumer));
}
