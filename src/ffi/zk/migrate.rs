//! Moving a legacy consumer group's offsets between ZooKeeper and Kafka,
//! for C (`gregor zk migrate`, as a typed call): ZooKeeper → Kafka commits
//! the offsets stored under `/consumers/<group>/offsets` with OffsetCommit
//! (v1+, generation -1, to the group's coordinator); Kafka → ZooKeeper
//! fetches the group's committed offsets with OffsetFetch and writes them
//! to those znodes (the two halves of Kafka's own migration of old consumer
//! groups, `dual.commit.enabled` / `offsets.storage`, in the 0.8.2 docs).

use super::super::tpl::gregor_tpl;
use super::*;
use crate::config::Config;
use crate::consumer::TopicPartitionOffset;
use crate::zk::groups::{migrate, Direction};

/// `gregor_zk_migrate_offsets` direction: ZooKeeper → Kafka.
pub const GREGOR_ZK_MIGRATE_TO_KAFKA: c_int = 0;
/// `gregor_zk_migrate_offsets` direction: Kafka → ZooKeeper.
pub const GREGOR_ZK_MIGRATE_TO_ZK: c_int = 1;

/// Copies `group`'s offsets one way: `direction` is
/// `GREGOR_ZK_MIGRATE_TO_KAFKA` or `GREGOR_ZK_MIGRATE_TO_ZK`. Every topic's,
/// or `topic`'s only (NULL: all). With `dry_run` non-zero nothing is
/// written, and `*out` holds what would be.
///
/// The brokers are reached through `conf` (borrowed for the call; its
/// `bootstrap.servers` or `zookeeper.connect` and security settings), or,
/// with `conf` NULL, through the brokers registered in the session's
/// ZooKeeper (`zookeeper.connect` = the session's connect string, plaintext).
/// Blocks up to `timeout_ms` for the Kafka side (the header's timeout rule:
/// negative waits forever) and up to the session timeout for each
/// ZooKeeper call.
///
/// On success `*out` receives the offsets copied (topic, partition, offset,
/// in topic and partition order; caller owns, free with `gregor_tpl_free`).
/// Errors: `GREGOR_ERR__INVALID_ARG` for a bad direction or NULL argument;
/// the broker's error for a refused commit or fetch (e.g.
/// `GREGOR_ERR_GROUP_AUTHORIZATION_FAILED`); `GREGOR_ERR__UNSUPPORTED_FEATURE`
/// for a broker with only OffsetCommit v0; `GREGOR_ERR__BAD_MSG` for a
/// malformed offset znode.
#[no_mangle]
pub extern "C" fn gregor_zk_migrate_offsets(
    zk: *const gregor_zk,
    conf: *const gregor_config,
    group: *const c_char,
    topic: *const c_char,
    direction: c_int,
    dry_run: c_int,
    timeout_ms: c_int,
    out: *mut *mut gregor_tpl,
    errstr: *mut c_char,
    errstr_size: usize,
) -> c_int {
    guard_code(errstr, errstr_size, || {
        let zk = enter(zk)?;
        need_out(out)?;
        let g = c_str(group, "group")?;
        let t = opt_c_str(topic, "topic")?;
        let direction = match direction {
            GREGOR_ZK_MIGRATE_TO_KAFKA => Direction::ZkToKafka,
            GREGOR_ZK_MIGRATE_TO_ZK => Direction::KafkaToZk,
            d => {
                return Err(Error::invalid_arg(format!(
                    "direction {d}: expected GREGOR_ZK_MIGRATE_TO_KAFKA (0) or \
                     GREGOR_ZK_MIGRATE_TO_ZK (1)"
                )))
            }
        };
        let cfg = if conf.is_null() {
            Config::from_pairs([("zookeeper.connect", zk.inner.zk_connect())])?
        } else {
            handle(conf, "conf")?.inner.clone()
        };
        let offsets = migrate(
            &zk.inner,
            &cfg,
            g,
            t,
            direction,
            dry_run != 0,
            timeout(timeout_ms),
        );
        let entries = offsets?
            .into_iter()
            .map(|((t, p), o)| TopicPartitionOffset::new(t, p, o))
            .collect();
        store(out, gregor_tpl::from_entries(entries));
        Ok(())
    })
}
