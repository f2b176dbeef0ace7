//! Helpers shared by tests/consumer.rs and tests/consumer_scripted.rs.

use std::time::{Duration, Instant};

use gregor::consumer::Consumer;
use gregor::message::Message;

pub const T: Duration = Duration::from_secs(20);

/// Polls until `n` messages (not events) arrived or `T` passed; events are
/// returned too, in order, in the second list.
pub fn poll_n(c: &Consumer, n: usize) -> (Vec<Message>, Vec<Message>) {
    let mut msgs = Vec::new();
    let mut events = Vec::new();
    let deadline = Instant::now() + T;
    while msgs.len() < n && Instant::now() < deadline {
        if let Some(m) = c.poll(Duration::from_millis(200)).unwrap() {
            if m.error.is_some() {
                events.push(m);
            } else {
                msgs.push(m);
            }
        }
    }
    (msgs, events)
}

/// Polls for `d`, returning everything.
pub fn poll_for(c: &Consumer, d: Duration) -> Vec<Message> {
    let mut out = Vec::new();
    let deadline = Instant::now() + d;
    while Instant::now() < deadline {
        if let Some(m) = c.poll(Duration::from_millis(50)).unwrap() {
            out.push(m);
        }
    }
    out
}

pub fn values(ms: &[Message]) -> Vec<String> {
    ms.iter()
        .map(|m| String::from_utf8(m.value.as_deref().unwrap_or_default().to_vec()).unwrap())
        .collect()
}

/// Runs a Python script (confluent-kafka, librdkafka's binding, is the
/// independent client on the other end) with `args`; panics with its
/// output if it fails.
pub fn python(script: &str, args: &[&str]) -> String {
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(script)
        .args(args)
        .output()
        .expect("python3 runs");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "python failed: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}
