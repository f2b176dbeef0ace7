//! The ZooKeeper znode parsers: broker registrations (JSON v1–5 and the 0.7
//! "creator:host:port" form), topic assignments, partition state, controller,
//! controller epoch, cluster id, admin requests and notifications, topic
//! configs, config changes, legacy group members and offsets.
//!
//! Byte 0 picks the parser; the rest is the znode's data.
#![no_main]

use gregor::registry::{brokers, inspect};
use gregor::zk::groups;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [sel, d @ ..] = data else {
        return;
    };
    match sel % 13 {
        0 => {
            if let Ok(b) = brokers::parse_registration(1, d) {
                for p in ["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"] {
                    let _ = b.addr(p);
                }
            }
        }
        1 => {
            if let Ok(b) = brokers::parse_registration_07(1, &String::from_utf8_lossy(d)) {
                let _ = b.addr();
            }
        }
        2 => drop(inspect::parse_topic("/brokers/topics/t", d)),
        3 => drop(inspect::parse_partition_state(
            "/brokers/topics/t/partitions/0/state",
            d,
        )),
        4 => drop(inspect::parse_controller("/controller", d)),
        5 => drop(inspect::parse_controller_epoch("/controller_epoch", d)),
        6 => drop(inspect::parse_cluster_id("/cluster/id", d)),
        7 => drop(inspect::parse_admin_partitions(
            "/admin/reassign_partitions",
            d,
            true,
        )),
        8 => drop(inspect::parse_admin_partitions(
            "/isr_change_notification/x",
            d,
            false,
        )),
        9 => drop(inspect::parse_topic_config("/config/topics/t", d)),
        10 => drop(inspect::parse_config_change("/config/changes/c", d)),
        11 => drop(groups::parse_member("/consumers/g/ids/m", "m", d)),
        _ => drop(groups::parse_offset("/consumers/g/offsets/t/0", d)),
    }
});
