//! `gregor legacy07`: the Kafka 0.7 client from the command line.

use std::io::Write;

/// Runs `gregor legacy07 ARGS…` (`args` are those after "legacy07").
pub fn run(_args: &[String], _out: &mut dyn Write, _err: &mut dyn Write) -> i32 {
    0
}
