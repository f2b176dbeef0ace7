//! Topic handles, `rd_kafka_topic_t` of rdkafka.h: a name bound to a client
//! handle, with the topic conf's opaque.
//!
//! As librdkafka's (rdkafka.h, `rd_kafka_topic_new`): a client has one
//! topic handle per name. Asking for a name again returns the same handle
//! (the conf given then is destroyed, the first one's opaque stays), and
//! `rd_kafka_topic_destroy` only drops the application's reference. A
//! handle lives as long as its client, so that delivery reports can carry
//! it after the application let go of it, and a report for a topic the
//! application never asked a handle for (a message of `rd_kafka_producev`
//! by topic name) gets one made on demand, as librdkafka makes it.
//!
//! Where gregor differs: a topic conf's properties (`acks`,
//! `message.timeout.ms`, …) and its partitioner callback are not applied
//! per topic; the client's configuration (with the conf's default topic
//! conf merged in at `rd_kafka_new`) applies to every topic.

#![allow(unsafe_code)] // `#[no_mangle]`

use std::collections::HashMap;
use std::ffi::{c_char, c_void, CString};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use crate::conf::TopicConf;
use crate::errors::set_last_error;
use crate::guard::guard;
use crate::handle::Handle;
use crate::raw;

/// `RD_KAFKA_RESP_ERR__INVALID_ARG`.
const RESP_ERR__INVALID_ARG: i32 = -186;
/// `EINVAL`.
const EINVAL: i32 = 22;

/// `rd_kafka_topic_t`: owned by its client's [`Topics`].
#[derive(Debug)]
pub struct Topic {
    /// The name as C reads it (`rd_kafka_topic_name`).
    name: CString,
    /// The same name as text, for every message produced to the topic
    /// (not checked as UTF-8 again each time).
    text: Box<str>,
    /// The client handle's address (`rd_kafka_t *`).
    rk: usize,
    /// The topic conf's opaque (`rd_kafka_topic_opaque`).
    opaque: usize,
    /// The application's references (`rd_kafka_topic_new` minus
    /// `rd_kafka_topic_destroy`); informational, the handle stays.
    app_refs: AtomicUsize,
}

impl Topic {
    /// The topic's name.
    pub(crate) fn name(&self) -> &str {
        &self.text
    }

    /// The client handle the topic belongs to.
    pub(crate) fn handle(&self) -> Option<&Handle> {
        raw::object(self.rk as *const Handle)
    }
}

/// A client's topic handles by name; each boxed, so its address (the
/// `rd_kafka_topic_t *` C holds) is stable until the client is destroyed.
#[derive(Debug, Default)]
pub struct Topics {
    by_name: Mutex<HashMap<String, Box<Topic>>>,
    /// The client handle's address, set once it is boxed.
    rk: AtomicUsize,
    /// The default topic conf's opaque, for handles made without a conf.
    default_opaque: AtomicUsize,
    /// The topic [`Topics::of_message`] answered last, and its handle.
    last: Mutex<Option<(Arc<str>, usize)>>,
}

impl Topics {
    /// A registry for the handle at `rk` whose default topic conf has
    /// `default_opaque`.
    pub(crate) fn bind(&self, rk: usize, default_opaque: usize) {
        self.rk.store(rk, Ordering::Relaxed);
        self.default_opaque.store(default_opaque, Ordering::Relaxed);
    }

    /// The handle of `name`, made (with `opaque`, or the default topic
    /// conf's) if there is none; `app` counts an application reference.
    /// `None` for a name with a NUL byte.
    pub(crate) fn get(&self, name: &str, opaque: Option<usize>, app: bool) -> Option<*mut Topic> {
        let mut map = self.by_name.lock().unwrap_or_else(PoisonError::into_inner);
        if !map.contains_key(name) {
            let topic = Topic {
                name: CString::new(name).ok()?,
                text: name.into(),
                rk: self.rk.load(Ordering::Relaxed),
                opaque: opaque.unwrap_or_else(|| self.default_opaque.load(Ordering::Relaxed)),
                app_refs: AtomicUsize::new(0),
            };
            map.insert(name.to_string(), Box::new(topic));
        }
        let topic = map.get(name)?;
        if app {
            topic.app_refs.fetch_add(1, Ordering::Relaxed);
        }
        // C only reads through the pointer (every topic call takes it as
        // const in effect); the box stays in the map until the client goes.
        Some((&**topic as *const Topic).cast_mut())
    }

    /// The handle of a delivered or consumed message's topic, made if
    /// needed (NULL for a name with a NUL byte). The last one is
    /// remembered: a run of messages of one topic costs no map lookup.
    pub(crate) fn of_message(&self, topic: &Arc<str>) -> *mut Topic {
        let mut last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((name, rkt)) = &*last {
            if Arc::ptr_eq(name, topic) || name == topic {
                return *rkt as *mut Topic;
            }
        }
        let Some(rkt) = self.get(topic, None, false) else {
            return std::ptr::null_mut();
        };
        *last = Some((Arc::clone(topic), rkt as usize));
        rkt
    }

    /// The names of the topics that have handles (librdkafka's "locally
    /// known topics" of `rd_kafka_metadata` with `all_topics` 0).
    pub(crate) fn names(&self) -> Vec<String> {
        let map = self.by_name.lock().unwrap_or_else(PoisonError::into_inner);
        map.keys().cloned().collect()
    }
}

/// A new topic handle of `topic` for the client `rk`, or the one it has
/// for that name (`rd_kafka_topic_new`). Takes ownership of `conf`
/// (NULL: the client's default topic conf). NULL for a NULL client or
/// name, with `rd_kafka_last_error` `_INVALID_ARG` and errno `EINVAL`.
#[no_mangle]
pub extern "C" fn rd_kafka_topic_new(
    rk: *mut Handle,
    topic: *const c_char,
    conf: *mut TopicConf,
) -> *mut Topic {
    guard(std::ptr::null_mut(), || {
        let conf = raw::take_box(conf);
        let made = raw::object(rk)
            .zip(raw::read_cstr(topic))
            .and_then(|(h, name)| {
                let opaque = conf.as_ref().map(|c| c.opaque as usize);
                let made = h.topics().get(&name, opaque, true)?;
                // as librdkafka's, a new topic handle asks for the topic's
                // metadata at once (a producer's request may create it)
                if let Some(p) = h.producer() {
                    p.add_topic(&name);
                }
                Some(made)
            });
        if made.is_none() {
            set_last_error(RESP_ERR__INVALID_ARG);
            raw::set_errno(EINVAL);
        }
        made.unwrap_or(std::ptr::null_mut())
    })
}

/// Drops the application's reference to a topic handle
/// (`rd_kafka_topic_destroy`); the handle itself lives until its client is
/// destroyed, for the delivery reports that still carry it.
#[no_mangle]
pub extern "C" fn rd_kafka_topic_destroy(rkt: *mut Topic) {
    guard((), || {
        if let Some(t) = raw::object(rkt) {
            let _ = t
                .app_refs
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1));
        }
    })
}

/// The topic's name (`rd_kafka_topic_name`), valid as long as the handle.
#[no_mangle]
pub extern "C" fn rd_kafka_topic_name(rkt: *const Topic) -> *const c_char {
    guard(std::ptr::null(), || {
        raw::object(rkt).map_or(std::ptr::null(), |t| t.name.as_ptr())
    })
}

/// The topic conf's opaque (`rd_kafka_topic_opaque`).
#[no_mangle]
pub extern "C" fn rd_kafka_topic_opaque(rkt: *const Topic) -> *mut c_void {
    guard(std::ptr::null_mut(), || {
        raw::object(rkt).map_or(std::ptr::null_mut(), |t| t.opaque as *mut c_void)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_handle_per_name() {
        let topics = Topics::default();
        topics.bind(0, 7);
        let a = topics.get("t", None, true).unwrap();
        let b = topics.get("t", Some(9), true).unwrap();
        assert_eq!(a, b);
        assert_eq!(rd_kafka_topic_opaque(a) as usize, 7);
        assert!(topics.get("bad\0name", None, true).is_none());
        assert_eq!(topics.names(), vec!["t".to_string()]);
        rd_kafka_topic_destroy(a);
        rd_kafka_topic_destroy(b);
        rd_kafka_topic_destroy(b);
    }
}
