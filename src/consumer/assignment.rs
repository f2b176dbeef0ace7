//! Changing the partitions the consumer fetches: adding one at its start
//! offset, removing one with its queued data, replacing or extending the
//! assignment.

use super::session::Tp;
use super::state::{Part, Shared, State};
use super::topic_partition::TopicPartitionOffset;
use crate::error::Result;

/// Adds a partition to the consumer's state.
pub(super) fn add_part(shared: &Shared, st: &mut State, tp: &TopicPartitionOffset) {
    let version = st.version();
    let key = tp.key();
    let mut p = Part::new(
        key.0.clone(),
        key.1,
        version,
        shared.settings.partition_max_bytes,
    );
    p.start_at(tp.offset, tp.leader_epoch);
    st.parts.insert(key, p);
}

/// Removes a partition with its queued data; true if the buffer got room.
pub(super) fn remove_part(shared: &Shared, st: &mut State, key: &Tp) -> bool {
    let freed = st.purge(key, shared.settings.max_buffered);
    st.parts.remove(key);
    st.ready.retain(|k| k != key);
    freed
}

/// Replaces the assignment (`incremental` false) or adds the partitions
/// not assigned yet.
pub(super) fn assign_parts(
    shared: &Shared,
    tps: &[TopicPartitionOffset],
    incremental: bool,
) -> Result<()> {
    let mut st = shared.lock();
    if !incremental {
        let keys: Vec<Tp> = st.parts.keys().cloned().collect();
        for k in &keys {
            remove_part(shared, &mut st, k);
        }
        st.current = None;
        st.buffered = 0;
    }
    for tp in tps {
        if !st.parts.contains_key(&tp.key()) {
            add_part(shared, &mut st, tp);
        }
    }
    drop(st);
    shared.work.notify_all();
    Ok(())
}
