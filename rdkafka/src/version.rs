//! What this library says it is: librdkafka 2.12.1, the version whose ABI
//! it provides (`abi/functions.tsv`), so programs that check
//! `rd_kafka_version()` against the `RD_KAFKA_VERSION` they were built with
//! (as rdkafka.h suggests) accept it.

#![allow(unsafe_code)] // `#[no_mangle]`

use std::ffi::{c_char, c_int, CStr};

use crate::guard::guard;

/// librdkafka's version as rdkafka.h encodes it, `0xMMmmrrxx`: major 2,
/// minor 12, revision 1, and 0xff for a final release.
pub const VERSION: c_int = 0x020c_01ff;

/// The same as text.
pub const VERSION_STR: &CStr = c"2.12.1";

/// librdkafka 2.12.1's answer to `rd_kafka_get_debug_contexts()`: the
/// `debug` contexts, comma-separated. It leaves out `telemetry`, which the
/// `debug` property nevertheless accepts, as librdkafka's does.
pub const DEBUG_CONTEXTS: &CStr = c"all,generic,broker,topic,metadata,feature,queue,msg,protocol,cgrp,security,fetch,interceptor,plugin,consumer,admin,eos,mock,assignor,conf";

/// librdkafka's version, [`VERSION`] (`rd_kafka_version`).
#[no_mangle]
pub extern "C" fn rd_kafka_version() -> c_int {
    guard(VERSION, || VERSION)
}

/// librdkafka's version as a static string, [`VERSION_STR`]
/// (`rd_kafka_version_str`).
#[no_mangle]
pub extern "C" fn rd_kafka_version_str() -> *const c_char {
    guard(VERSION_STR.as_ptr(), || VERSION_STR.as_ptr())
}

/// The `debug` contexts as a static string, [`DEBUG_CONTEXTS`]
/// (`rd_kafka_get_debug_contexts`).
#[no_mangle]
pub extern "C" fn rd_kafka_get_debug_contexts() -> *const c_char {
    guard(DEBUG_CONTEXTS.as_ptr(), || DEBUG_CONTEXTS.as_ptr())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_and_text_agree() {
        let v = rd_kafka_version();
        let text = format!("{}.{}.{}", v >> 24, (v >> 16) & 0xff, (v >> 8) & 0xff);
        assert_eq!(VERSION_STR.to_str().unwrap(), text);
        assert_eq!(v & 0xff, 0xff);
    }

    /// Every context listed is one gregor's `debug` property takes.
    #[test]
    fn debug_contexts_are_gregors() {
        for name in DEBUG_CONTEXTS.to_str().unwrap().split(',') {
            assert!(
                gregor::log::CONTEXTS.iter().any(|(n, _)| *n == name),
                "{name}"
            );
        }
    }
}
