//! The consumer's statistics (see [`crate::stats`]): messages handed out,
//! fetch queues, positions, watermarks and lag per assigned partition, and
//! the group member's state.

use super::state::{Item, Phase, Shared};
use crate::stats::{Cgrp, PartStats, TopicStats, Totals, OFFSET_INVALID};

/// `consumer_lag` is the partition's end (high watermark, or the last
/// stable offset under read_committed) minus the application's position
/// — what is left to consume — and -1 while either is unknown. `cgrp` is
/// the group member's state (`Group::cgrp_stats`), `None` without a
/// `group.id`.
pub(super) fn snapshot(shared: &Shared, cgrp: Option<Cgrp>) -> (Totals, TopicStats) {
    let read_committed = shared.settings.read_committed;
    let st = shared.lock();
    let mut totals = Totals {
        replyq: st.events.len() as u64,
        rxmsgs: st.rxmsgs,
        rxmsg_bytes: st.rxmsg_bytes,
        cgrp,
        ..Totals::default()
    };
    let mut topics = TopicStats::new();
    for (key, p) in &st.parts {
        let mut ps = PartStats::new(p.partition, p.leader);
        ps.fetchq_cnt = p.queue.len() as u64;
        ps.fetchq_size = p
            .queue
            .iter()
            .map(|i| match i {
                Item::Records(c) => c.bytes as u64,
                Item::Event(_) => 0,
            })
            .sum();
        totals.replyq += ps.fetchq_cnt;
        let known = |o: i64| if o >= 0 { o } else { OFFSET_INVALID };
        ps.next_offset = known(p.fetch_pos);
        ps.app_offset = known(st.app_pos(key).unwrap_or(OFFSET_INVALID));
        ps.lo_offset = known(p.lo);
        ps.hi_offset = known(p.hi);
        ps.ls_offset = known(p.lso);
        let end = if read_committed { p.lso } else { p.hi };
        if end >= 0 && ps.app_offset >= 0 {
            ps.consumer_lag = (end - ps.app_offset).max(0);
        }
        ps.committed_offset = known(p.committed);
        ps.stored_offset = known(p.stored);
        ps.stored_leader_epoch = if p.stored >= 0 { p.stored_epoch } else { -1 };
        if end >= 0 && ps.stored_offset >= 0 {
            ps.consumer_lag_stored = (end - ps.stored_offset).max(0);
        }
        ps.desired = true;
        (ps.fetch_state, ps.query_offset) = match p.phase {
            Phase::Resolve(o) => ("offset-query", o),
            Phase::Validate => ("validate-epoch-wait", OFFSET_INVALID),
            Phase::Active => ("active", OFFSET_INVALID),
            Phase::Stopped => ("stopped", OFFSET_INVALID),
        };
        if p.eof_sent {
            ps.eof_offset = known(p.hi);
        }
        ps.leader_epoch = p.leader_epoch;
        ps.committed_leader_epoch = if p.committed >= 0 {
            p.committed_epoch
        } else {
            -1
        };
        let age = p.created.elapsed().as_millis() as u64;
        let t = totals.topic_age_ms.entry(p.topic.to_string()).or_default();
        *t = (*t).max(age);
        ps.rxmsgs = p.rxmsgs;
        ps.rxbytes = p.rxmsg_bytes;
        if let Some((k, c)) = &st.current {
            if k == key {
                ps.rxmsgs += c.msgs;
                ps.rxbytes += c.msg_bytes;
            }
        }
        ps.msgs = ps.rxmsgs;
        topics.entry(p.topic.to_string()).or_default().push(ps);
    }
    drop(st);
    for parts in topics.values_mut() {
        parts.sort_by_key(|p| p.partition);
    }
    (totals, topics)
}
