//! What a producer or consumer reports besides messages: the types of the
//! error callback (librdkafka's `error_cb`: connection failures,
//! `_ALL_BROKERS_DOWN`, `_FATAL`) and of the throttle callback
//! (`throttle_cb`, KIP-219), served inside the client's `poll`.

pub use crate::net::{ErrorCallback, ThrottleCallback, ThrottleEvent};
