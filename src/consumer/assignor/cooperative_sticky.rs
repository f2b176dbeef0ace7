//! The `cooperative-sticky` assignor (Java's `CooperativeStickyAssignor`
//! over `AbstractStickyAssignor`, librdkafka's cooperative-sticky): KIP-54
//! sticky assignment under the KIP-429 incremental cooperative protocol.
//!
//! - **Balanced**: with equal subscriptions every member gets ⌊P/N⌋ or
//!   ⌈P/N⌉ partitions; otherwise no partition could move to an eligible
//!   member with two fewer partitions than its holder (Java's `isBalanced`
//!   criterion — best effort, as in Java).
//! - **Sticky**: each member keeps the partitions it owned (the
//!   subscription's `owned_partitions`, v1+) as far as balance allows; with
//!   equal subscriptions the number of moved partitions is the minimum.
//!   Owned partitions of topics the member no longer subscribes to, or that
//!   no longer exist, are dropped. When members claim the same partition the
//!   higher `generation_id` (v2+; for v0/v1 subscriptions the 4-byte
//!   generation Java's cooperative-sticky puts in the user data) wins; at
//!   equal generations the first member in assignor order keeps it. Unlike
//!   Java's equal-subscription path, an older-generation member keeps the
//!   claims nobody newer contests — nobody else can be consuming them.
//! - **Cooperative**: while other members still claim a partition, it goes
//!   only to the member whose claim stands; to anyone else (a newcomer, or
//!   a claimer with a stale generation) it stays unassigned this round: its
//!   claimers see it missing from their assignments, revoke it and rejoin,
//!   and the next rebalance assigns it. This is at least as strict as
//!   Java's `ConsumerCoordinator.validateCooperativeAssignment` (no
//!   partition added to one member while revoked from another).
//!
//! - **Rack-aware** (KIP-881, as Java 3.5+ and librdkafka 2.3+): when
//!   [`super::use_rack_aware`] says so, a member keeps only the owned
//!   partitions with a replica in its rack (or that no member's rack
//!   holds a replica of: moving those gains nothing), new partitions go first to
//!   members in a replica's rack (within the same balance quotas), and only
//!   what no such member can take goes elsewhere. Balance still comes
//!   first; the steps follow Java's `AbstractStickyAssignor`
//!   (`assignRackAwareRoundRobin`, the general builder's rack-matching
//!   `maybeAssign`), so its published expectations hold.
//!
//! Cost: O(P log P + P·M) per pass for P partitions and M members; the
//! equal-subscription path (the common case) is a single O(P log P) pass.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::strategy::{
    empty, member_rack, replica_racks, sorted, use_rack_aware, Assignment, Assignor, Member,
    PartitionRacks, RebalanceProtocol,
};

/// The cooperative sticky assignor.
#[derive(Debug, Clone, Copy, Default)]
pub struct CooperativeSticky;

impl Assignor for CooperativeSticky {
    fn name(&self) -> &'static str {
        "cooperative-sticky"
    }

    fn protocol(&self) -> RebalanceProtocol {
        RebalanceProtocol::Cooperative
    }

    fn assign(&self, members: &[Member], partitions: &BTreeMap<String, i32>) -> Assignment {
        self.assign_with_racks(members, partitions, &PartitionRacks::new())
    }

    fn assign_with_racks(
        &self,
        members: &[Member],
        partitions: &BTreeMap<String, i32>,
        racks: &PartitionRacks,
    ) -> Assignment {
        let mut out = empty(members);
        let order = sorted(members);
        if order.is_empty() {
            return out;
        }
        let g = Group::new(&order, partitions, racks);
        let mut owner = if g.equal_subscriptions() {
            g.constrained()
        } else {
            g.general()
        };
        g.withhold_transfers(&mut owner);
        for (p, o) in owner.iter().enumerate() {
            if let Some(m) = *o {
                let (t, i) = g.partition(p);
                out.entry(order[m].member_id.clone())
                    .or_default()
                    .entry(g.topics[t].to_string())
                    .or_default()
                    .push(i);
            }
        }
        out
    }
}

/// The generation a member's owned partitions belong to: the v2+ field, else
/// the big-endian i32 Java's cooperative-sticky puts in the user data, else -1.
fn generation(m: &Member) -> i32 {
    let s = &m.subscription;
    if s.generation_id >= 0 {
        return s.generation_id;
    }
    match s.user_data.as_deref() {
        Some(d) if d.len() >= 4 => i32::from_be_bytes([d[0], d[1], d[2], d[3]]),
        _ => -1,
    }
}

/// The assignment problem with topics, members and partitions as indexes.
/// A partition is a flat index `base[t] + i`, so index order is (topic,
/// partition) order.
struct Group<'a> {
    /// Topics with metadata and at least one partition, sorted.
    topics: Vec<&'a str>,
    /// First flat index of each topic; `base[topics.len()]` is the total.
    base: Vec<usize>,
    /// `subscribed[m][t]`.
    subscribed: Vec<Vec<bool>>,
    /// Members subscribed to each topic, in assignor order.
    eligible: Vec<Vec<usize>>,
    /// Every member claiming each partition in its subscription, valid or not.
    claimers: Vec<Vec<usize>>,
    /// The claim that stands for each partition (highest generation).
    owned: Vec<Option<usize>>,
    /// The standing claims a rack-aware assignment keeps: those with a
    /// replica in the member's rack (all of `owned` otherwise).
    kept: Vec<Option<usize>>,
    /// Each member's rack, when the assignment is rack-aware (else None).
    rack: Vec<Option<&'a str>>,
    /// Each partition's replica racks, if known.
    replicas: Vec<Option<&'a BTreeSet<String>>>,
    rack_aware: bool,
}

impl<'a> Group<'a> {
    fn new(
        order: &[&'a Member],
        partitions: &'a BTreeMap<String, i32>,
        racks: &'a PartitionRacks,
    ) -> Group<'a> {
        let mut topics = Vec::new();
        let mut base = vec![0usize];
        for (t, &n) in partitions {
            if n > 0 {
                topics.push(t.as_str());
                base.push(base[base.len() - 1] + n as usize);
            }
        }
        let index: HashMap<&str, usize> = topics.iter().enumerate().map(|(i, t)| (*t, i)).collect();
        let total = base[topics.len()];
        let mut subscribed = vec![vec![false; topics.len()]; order.len()];
        let mut eligible = vec![Vec::new(); topics.len()];
        for (m, member) in order.iter().enumerate() {
            for t in &member.subscription.topics {
                if let Some(&ti) = index.get(t.as_str()) {
                    if !subscribed[m][ti] {
                        subscribed[m][ti] = true;
                        eligible[ti].push(m);
                    }
                }
            }
        }
        let mut claimers: Vec<Vec<usize>> = vec![Vec::new(); total];
        let mut best: Vec<Option<(i32, usize)>> = vec![None; total];
        for (m, member) in order.iter().enumerate() {
            let gen = generation(member);
            for tp in &member.subscription.owned_partitions {
                let Some(&ti) = index.get(tp.topic.as_str()) else {
                    continue; // the topic is gone
                };
                let n = (base[ti + 1] - base[ti]) as i32;
                for &i in &tp.partitions {
                    if !(0..n).contains(&i) {
                        continue;
                    }
                    let p = base[ti] + i as usize;
                    if !claimers[p].contains(&m) {
                        claimers[p].push(m);
                    }
                    if subscribed[m][ti] && best[p].is_none_or(|(g, _)| gen > g) {
                        best[p] = Some((gen, m));
                    }
                }
            }
        }
        let replicas: Vec<Option<&BTreeSet<String>>> = topics
            .iter()
            .enumerate()
            .flat_map(|(ti, t)| {
                (0..(base[ti + 1] - base[ti]) as i32).map(move |i| replica_racks(racks, t, i))
            })
            .collect();
        let member_racks: BTreeSet<&str> = order.iter().filter_map(|m| member_rack(m)).collect();
        let rack_aware = use_rack_aware(&member_racks, replicas.iter().copied());
        let rack: Vec<Option<&str>> = order
            .iter()
            .map(|m| member_rack(m).filter(|_| rack_aware))
            .collect();
        let owned: Vec<Option<usize>> = best.into_iter().map(|b| b.map(|(_, m)| m)).collect();
        let mut g = Group {
            topics,
            base,
            subscribed,
            eligible,
            claimers,
            kept: owned.clone(),
            owned,
            rack,
            replicas,
            rack_aware,
        };
        // An owned partition outside its owner's rack is given up only if
        // some member's rack holds a replica of it: moving one no member is
        // local to gains nothing and would move it on every rebalance.
        for p in 0..total {
            if g.kept[p].is_some_and(|m| g.mismatch(m, p)) && g.members_in_rack(p) > 0 {
                g.kept[p] = None;
            }
        }
        g
    }

    /// Java's `racksMismatch`: `m` has a rack (and the assignment is
    /// rack-aware) and no replica of `p` is in it.
    fn mismatch(&self, m: usize, p: usize) -> bool {
        self.rack[m].is_some_and(|r| !self.replicas[p].is_some_and(|s| s.contains(r)))
    }

    /// Java's `nextRackConsumer`: the first member of `list`, starting at
    /// `first` and wrapping, whose rack holds a replica of `p`.
    fn next_in_rack(&self, p: usize, list: &[usize], first: usize) -> Option<usize> {
        let racks = self.replicas[p].filter(|s| !s.is_empty())?;
        (0..list.len())
            .map(|i| (first + i) % list.len())
            .find(|&i| self.rack[list[i]].is_some_and(|r| racks.contains(r)))
    }

    /// How many members have a rack holding a replica of `p` (Java's
    /// `numConsumersByPartition`).
    fn members_in_rack(&self, p: usize) -> usize {
        self.replicas[p].map_or(0, |s| {
            self.rack
                .iter()
                .filter(|r| r.is_some_and(|r| s.contains(r)))
                .count()
        })
    }

    fn total(&self) -> usize {
        self.base[self.topics.len()]
    }

    fn topic_of(&self, p: usize) -> usize {
        self.base.partition_point(|&b| b <= p) - 1
    }

    /// (topic index, partition number) of a flat index.
    fn partition(&self, p: usize) -> (usize, i32) {
        let t = self.topic_of(p);
        (t, (p - self.base[t]) as i32)
    }

    /// Whether every member subscribes to the same existing topics.
    fn equal_subscriptions(&self) -> bool {
        self.subscribed.windows(2).all(|w| w[0] == w[1])
    }

    /// Each member's standing claims it may keep, in partition order.
    fn owned_by_member(&self) -> Vec<Vec<usize>> {
        let mut v = vec![Vec::new(); self.subscribed.len()];
        for (p, o) in self.kept.iter().enumerate() {
            if let Some(m) = *o {
                v[m].push(p);
            }
        }
        v
    }

    /// Equal subscriptions: every member ends with ⌊P/N⌋ or ⌈P/N⌉ partitions
    /// and keeps as many of its own as those quotas allow (Java's
    /// `ConstrainedAssignmentBuilder`): owned partitions first, then, if
    /// rack-aware, new ones round-robin among the members in a replica's
    /// rack, then the rest round-robin.
    fn constrained(&self) -> Vec<Option<usize>> {
        let n = self.subscribed.len();
        let mut owner: Vec<Option<usize>> = vec![None; self.total()];
        // Only partitions of topics the members subscribe to take part.
        let universe: Vec<usize> = (0..self.topics.len())
            .filter(|&t| self.subscribed[0][t])
            .flat_map(|t| self.base[t]..self.base[t + 1])
            .collect();
        let total = universe.len();
        if total == 0 {
            return owner;
        }
        let (min_q, max_q) = (total / n, total.div_ceil(n));
        // How many members end with max_q, and how many have so far.
        let (want_over, mut over) = (total % n, 0usize);
        let mut count = vec![0usize; n];
        // Members under min_q, and members at min_q that may take one more.
        let mut under: Vec<usize> = Vec::new();
        let mut exact: Vec<usize> = Vec::new();
        for (m, own) in self.owned_by_member().into_iter().enumerate() {
            let keep = if own.len() < min_q {
                under.push(m);
                own.len()
            } else if own.len() >= max_q && over < want_over {
                over += 1;
                if over == want_over {
                    exact.clear();
                }
                max_q
            } else {
                if over < want_over {
                    exact.push(m);
                }
                min_q
            };
            for &p in &own[..keep] {
                owner[p] = Some(m);
            }
            count[m] = keep;
        }
        let mut free: Vec<usize> = universe
            .iter()
            .copied()
            .filter(|&p| owner[p].is_none())
            .collect();
        if self.rack_aware {
            // the partitions fewest members are local to go first
            free.sort_by_key(|&p| self.members_in_rack(p));
            let mut rest = Vec::with_capacity(free.len());
            let mut next = 0usize;
            for p in free {
                let mut chosen = None;
                if let Some(i) = self.next_in_rack(p, &under, next) {
                    let m = under[i];
                    let c = count[m] + 1;
                    let mut after = i;
                    if c >= min_q {
                        under.remove(i);
                        if c < max_q && over < want_over {
                            exact.push(m);
                        }
                    } else {
                        after += 1;
                    }
                    next = if under.is_empty() {
                        0
                    } else {
                        after % under.len()
                    };
                    chosen = Some(m);
                } else if let Some(i) = self.next_in_rack(p, &exact, 0) {
                    let m = exact[i];
                    if count[m] + 1 == max_q {
                        exact.remove(i);
                        over += 1;
                        if over == want_over {
                            exact.clear();
                        }
                    }
                    chosen = Some(m);
                }
                match chosen {
                    Some(m) => {
                        owner[p] = Some(m);
                        count[m] += 1;
                    }
                    None => rest.push(p),
                }
            }
            free = rest;
        }
        // Round-robin over the members under the minimum, then one each to
        // members at the minimum, which the quota arithmetic makes exactly
        // enough (Java's `assignRoundRobin`).
        let mut at = 0usize;
        for p in free {
            let (m, from_under) = if at < under.len() {
                (under[at], true)
            } else if !under.is_empty() {
                at = 0;
                (under[0], true)
            } else if !exact.is_empty() {
                (exact.remove(0), false)
            } else {
                // unreachable by the arithmetic; stay total regardless
                ((0..n).min_by_key(|&m| count[m]).unwrap_or(0), false)
            };
            owner[p] = Some(m);
            count[m] += 1;
            if count[m] == min_q && from_under {
                under.remove(at);
                exact.push(m);
            } else if from_under {
                at += 1;
            }
        }
        owner
    }

    /// Unequal subscriptions: keep every standing claim, give each
    /// unassigned partition (fewest eligible members first) to its least
    /// loaded eligible member, then move partitions from a member to an
    /// eligible one with at least two fewer until none can move (Java's
    /// `generalAssign` balance criterion).
    fn general(&self) -> Vec<Option<usize>> {
        let n = self.subscribed.len();
        let mut owner = self.kept.clone();
        let mut count = vec![0usize; n];
        for m in owner.iter().flatten() {
            count[*m] += 1;
        }
        // Java's order: partitions of topics with fewer eligible members first
        let key = |p: &usize| (self.eligible[self.topic_of(*p)].len(), *p);
        let mut free: Vec<usize> = (0..self.total())
            .filter(|&p| owner[p].is_none() && !self.eligible[self.topic_of(p)].is_empty())
            .collect();
        free.sort_by_key(key);
        if self.rack_aware {
            // first to the least loaded eligible member the partition is
            // local to (or that has no rack), as Java's maybeAssign
            free.retain(|&p| {
                let t = self.topic_of(p);
                let best = self.eligible[t]
                    .iter()
                    .copied()
                    .filter(|&m| !self.mismatch(m, p))
                    .min_by_key(|&m| count[m]);
                if let Some(m) = best {
                    owner[p] = Some(m);
                    count[m] += 1;
                }
                best.is_none()
            });
        }
        for p in free {
            let m = self.least_loaded(self.topic_of(p), &count, usize::MAX);
            owner[p] = Some(m);
            count[m] += 1;
        }
        // Each move lowers Σcount² by at least 2, so this terminates.
        loop {
            let mut moved = false;
            let mut held = vec![Vec::new(); n];
            for (p, o) in owner.iter().enumerate() {
                if let Some(m) = *o {
                    held[m].push(p);
                }
            }
            let mut by_load: Vec<usize> = (0..n).collect();
            by_load.sort_by_key(|&m| std::cmp::Reverse(count[m]));
            for d in by_load {
                // Give away partitions that were not this member's before its
                // own ones, each in Java's partition order.
                let (mut mine, mut new): (Vec<usize>, Vec<usize>) =
                    held[d].iter().partition(|&&p| self.kept[p] == Some(d));
                mine.sort_by_key(key);
                new.sort_by_key(key);
                for p in new.into_iter().chain(mine) {
                    let floor = *count.iter().min().unwrap_or(&0);
                    if count[d] < floor + 2 {
                        break;
                    }
                    let c = self.least_loaded(self.topic_of(p), &count, d);
                    if c != usize::MAX && count[c] + 2 <= count[d] {
                        owner[p] = Some(c);
                        count[d] -= 1;
                        count[c] += 1;
                        moved = true;
                    }
                }
            }
            if !moved {
                return owner;
            }
        }
    }

    /// The eligible member for topic `t` with the fewest partitions (first in
    /// order on ties), other than `skip`; `usize::MAX` if none.
    fn least_loaded(&self, t: usize, count: &[usize], skip: usize) -> usize {
        self.eligible[t]
            .iter()
            .copied()
            .filter(|&m| m != skip)
            .min_by_key(|&m| count[m])
            .unwrap_or(usize::MAX)
    }

    /// KIP-429: a partition another member still claims goes only to its
    /// standing owner in this round; to anyone else it goes one round later,
    /// once the claimers have revoked it.
    fn withhold_transfers(&self, owner: &mut [Option<usize>]) {
        for (p, o) in owner.iter_mut().enumerate() {
            if let Some(m) = *o {
                if self.owned[p] != Some(m) && self.claimers[p].iter().any(|&c| c != m) {
                    *o = None;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::super::testutil::member;
    use super::*;
    use crate::protocol::consumer_protocol::TopicPartition;

    type Tp = (String, i32);

    fn parts(v: &[(&str, i32)]) -> BTreeMap<String, i32> {
        v.iter().map(|(t, n)| (t.to_string(), *n)).collect()
    }

    /// A member subscribed to `topics` owning `owned` at `generation`.
    fn owning(id: &str, topics: &[&str], owned: &[(&str, i32)], generation: i32) -> Member {
        let mut m = member(id, topics);
        let mut by_topic: BTreeMap<&str, Vec<i32>> = BTreeMap::new();
        for (t, p) in owned {
            by_topic.entry(t).or_default().push(*p);
        }
        m.subscription.owned_partitions = by_topic
            .into_iter()
            .map(|(t, ps)| TopicPartition {
                topic: t.to_string(),
                partitions: ps,
                ..Default::default()
            })
            .collect();
        m.subscription.generation_id = generation;
        m
    }

    fn flat(a: &BTreeMap<String, Vec<i32>>) -> BTreeSet<Tp> {
        a.iter()
            .flat_map(|(t, ps)| ps.iter().map(move |p| (t.clone(), *p)))
            .collect()
    }

    fn owned_of(m: &Member) -> BTreeSet<Tp> {
        m.subscription
            .owned_partitions
            .iter()
            .flat_map(|tp| tp.partitions.iter().map(move |p| (tp.topic.clone(), *p)))
            .collect()
    }

    fn count(a: &Assignment, id: &str) -> usize {
        a[id].values().map(Vec::len).sum()
    }

    /// The next generation's subscriptions: everyone owns what it was given.
    fn next_round(members: &[Member], a: &Assignment, generation: i32) -> Vec<Member> {
        members
            .iter()
            .map(|m| {
                let owned: Vec<(&str, i32)> = a[&m.member_id]
                    .iter()
                    .flat_map(|(t, ps)| ps.iter().map(move |p| (t.as_str(), *p)))
                    .collect();
                let topics: Vec<&str> = m.subscription.topics.iter().map(String::as_str).collect();
                owning(&m.member_id, &topics, &owned, generation)
            })
            .collect()
    }

    /// At most once, only to subscribers, every member named; and the
    /// KIP-429 rule: a partition another member still claims goes only to
    /// the claimer that wins it (highest generation, then member order).
    /// Returns the assigned partitions.
    fn check_valid(
        members: &[Member],
        parts: &BTreeMap<String, i32>,
        a: &Assignment,
    ) -> BTreeSet<Tp> {
        assert_eq!(a.len(), members.len());
        let mut seen = BTreeSet::new();
        for m in members {
            for tp in flat(&a[&m.member_id]) {
                assert!(
                    m.subscription.topics.contains(&tp.0),
                    "{tp:?} to non-subscriber"
                );
                assert!(tp.1 >= 0 && tp.1 < parts[&tp.0], "{tp:?} does not exist");
                assert!(seen.insert(tp.clone()), "{tp:?} assigned twice");
                let gen = |x: &Member| x.subscription.generation_id;
                for o in members.iter().filter(|o| o.member_id != m.member_id) {
                    if !owned_of(o).contains(&tp) {
                        continue;
                    }
                    let wins = owned_of(m).contains(&tp)
                        && (!o.subscription.topics.contains(&tp.0)
                            || gen(m) > gen(o)
                            || gen(m) == gen(o) && m.member_id < o.member_id);
                    assert!(
                        wins,
                        "{tp:?} handed from {} to {} in one round",
                        o.member_id, m.member_id
                    );
                }
            }
        }
        seen
    }

    /// Every partition of a subscribed topic.
    fn all_subscribed(members: &[Member], parts: &BTreeMap<String, i32>) -> BTreeSet<Tp> {
        parts
            .iter()
            .filter(|(t, _)| members.iter().any(|m| m.subscription.topics.contains(t)))
            .flat_map(|(t, n)| (0..*n).map(move |p| (t.clone(), p)))
            .collect()
    }

    /// Java's `isBalanced`: no partition could go to an eligible member
    /// with two fewer partitions than its holder.
    fn locally_balanced(members: &[Member], a: &Assignment) -> bool {
        for d in members {
            for (t, ps) in &a[&d.member_id] {
                for c in members {
                    if !ps.is_empty()
                        && c.subscription.topics.contains(t)
                        && count(a, &c.member_id) + 2 <= count(a, &d.member_id)
                    {
                        return false;
                    }
                }
            }
        }
        true
    }

    #[test]
    fn one_consumer_gets_everything() {
        // Java StickyAssignorTest.testOneConsumerOneTopic / NonexistentTopic.
        let a = CooperativeSticky.assign(&[member("c", &["t"])], &parts(&[("t", 3)]));
        assert_eq!(a["c"]["t"], vec![0, 1, 2]);
        let a = CooperativeSticky.assign(&[member("c", &["gone"])], &parts(&[("t", 3)]));
        assert!(a["c"].is_empty());
        assert!(CooperativeSticky
            .assign(&[], &parts(&[("t", 3)]))
            .is_empty());
    }

    #[test]
    fn add_then_remove_a_consumer_in_two_phases() {
        // Java CooperativeStickyAssignorTest.testAddRemoveConsumerOneTopic.
        let p = parts(&[("t", 3)]);
        let a = CooperativeSticky.assign(&[member("c1", &["t"])], &p);
        assert_eq!(a["c1"]["t"], vec![0, 1, 2]);
        // c2 joins: c1 keeps two and gives up t-2, which nobody gets yet.
        let ms = [
            owning("c1", &["t"], &[("t", 0), ("t", 1), ("t", 2)], 1),
            member("c2", &["t"]),
        ];
        let a = CooperativeSticky.assign(&ms, &p);
        assert_eq!(a["c1"]["t"], vec![0, 1]);
        assert!(a["c2"].is_empty());
        // After c1 revoked t-2 and rejoined, c2 gets it.
        let ms = next_round(&ms, &a, 2);
        let a = CooperativeSticky.assign(&ms, &p);
        assert_eq!(a["c1"]["t"], vec![0, 1]);
        assert_eq!(a["c2"]["t"], vec![2]);
        // c1 leaves: its partitions go straight to c2 (nobody claims them).
        let ms = next_round(&ms, &a, 3);
        let a = CooperativeSticky.assign(&ms[1..], &p);
        assert_eq!(a["c2"]["t"], vec![0, 1, 2]);
    }

    #[test]
    fn higher_generation_wins_conflicting_claims() {
        // After Java AbstractStickyAssignorTest.testAssignmentWithConflictingPreviousGenerations.
        let p = parts(&[("t", 6)]);
        let ms = [
            owning("c1", &["t"], &[("t", 0), ("t", 1), ("t", 4)], 1),
            owning("c2", &["t"], &[("t", 0), ("t", 2), ("t", 3)], 2),
            owning("c3", &["t"], &[("t", 3), ("t", 4), ("t", 5)], 3),
        ];
        let a = CooperativeSticky.assign(&ms, &p);
        check_valid(&ms, &p, &a);
        // t-0 and t-2 stay with c2 (gen 2 beats c1's gen 1), t-3/t-4 with c3
        // (gen 3), t-1 with c1. c3 is over quota and must give up t-5; c1
        // would take it but c3 still holds it, so it waits a round.
        assert_eq!(a["c1"]["t"], vec![1]);
        assert_eq!(a["c2"]["t"], vec![0, 2]);
        assert_eq!(a["c3"]["t"], vec![3, 4]);
        let a2 = CooperativeSticky.assign(&next_round(&ms, &a, 4), &p);
        assert_eq!(a2["c1"]["t"], vec![1, 5]);
    }

    #[test]
    fn stale_generation_claims_lose() {
        // Java AbstractStickyAssignorTest
        // .testOwnedPartitionsAreInvalidatedForConsumerWithStaleGeneration,
        // cooperative: c2's stale claim on t-0..2 loses to c1's; c1 gives up
        // t-2, which c2 gets only after c1 revoked it.
        let p = parts(&[("t", 3)]);
        let ms = [
            owning("c1", &["t"], &[("t", 0), ("t", 1), ("t", 2)], 2),
            owning("c2", &["t"], &[("t", 0), ("t", 1), ("t", 2)], 1),
        ];
        let a = CooperativeSticky.assign(&ms, &p);
        assert_eq!(a["c1"]["t"], vec![0, 1]);
        assert!(a["c2"].is_empty());
        let a = CooperativeSticky.assign(&next_round(&ms, &a, 3), &p);
        assert_eq!(a["c1"]["t"], vec![0, 1]);
        assert_eq!(a["c2"]["t"], vec![2]);
    }

    #[test]
    fn equal_generation_conflict_keeps_one_claimer_and_user_data_generation() {
        let p = parts(&[("t", 2)]);
        // Same generation: the first member in order keeps it.
        let ms = [
            owning("a", &["t"], &[("t", 0)], 5),
            owning("b", &["t"], &[("t", 0)], 5),
        ];
        let a = CooperativeSticky.assign(&ms, &p);
        assert_eq!(a["a"]["t"], vec![0]);
        assert_eq!(a["b"]["t"], vec![1]);
        // A v1 subscription carries its generation in the user data.
        let mut old = owning("a", &["t"], &[("t", 0)], -1);
        old.subscription.user_data = Some(7i32.to_be_bytes().to_vec().into());
        let ms = [old, owning("b", &["t"], &[("t", 0)], 6)];
        let a = CooperativeSticky.assign(&ms, &p);
        assert_eq!(a["a"]["t"], vec![0]);
        assert_eq!(a["b"]["t"], vec![1]);
    }

    #[test]
    fn dropped_topics_lose_their_owned_partitions() {
        let p = parts(&[("t", 2), ("u", 2)]);
        // a owned u-0 and u-1 but now subscribes only to t; "gone" vanished.
        let ms = [
            owning("a", &["t"], &[("u", 0), ("u", 1), ("gone", 0)], 3),
            owning("b", &["t", "u"], &[("t", 0)], 3),
        ];
        let a = CooperativeSticky.assign(&ms, &p);
        let got = check_valid(&ms, &p, &a);
        // u-0/u-1 can't go to b while a still claims them; balance (b must
        // take both of u, so a gets both of t) moves t-0 to a, which waits
        // for b to revoke it too.
        assert!(!got.contains(&("u".into(), 0)) && !got.contains(&("u".into(), 1)));
        assert_eq!(a["a"]["t"], vec![1]);
        assert!(a["b"].is_empty());
        let ms2 = next_round(&ms, &a, 4);
        let a2 = CooperativeSticky.assign(&ms2, &p);
        assert_eq!(check_valid(&ms2, &p, &a2), all_subscribed(&ms2, &p));
        assert_eq!(a2["a"]["t"], vec![0, 1]);
        assert_eq!(a2["b"]["u"], vec![0, 1]);
    }

    /// xorshift64*: deterministic randomness without a dependency.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    /// A random group: topics, members (equal or random subscriptions), and
    /// random, sometimes conflicting, ownership at random generations.
    fn random_group(rng: &mut Rng, equal: bool) -> (Vec<Member>, BTreeMap<String, i32>) {
        let nt = 1 + rng.below(4);
        let topics: Vec<String> = (0..nt).map(|i| format!("t{i}")).collect();
        let p: BTreeMap<String, i32> = topics
            .iter()
            .map(|t| (t.clone(), rng.below(13) as i32))
            .collect();
        let n = 1 + rng.below(8);
        let mut ms = Vec::new();
        for i in 0..n {
            let subs: Vec<&str> = topics
                .iter()
                .filter(|_| equal || rng.below(2) == 0)
                .map(String::as_str)
                .collect();
            let mut owned = Vec::new();
            for (t, &c) in &p {
                for q in 0..c {
                    if rng.below(n + 1) == 0 {
                        owned.push((t.as_str(), q));
                    }
                }
            }
            ms.push(owning(
                &format!("m{i:02}"),
                &subs,
                &owned,
                rng.below(3) as i32,
            ));
        }
        (ms, p)
    }

    #[test]
    fn property_equal_subscriptions() {
        let mut rng = Rng(0x5eed_0001);
        for _ in 0..500 {
            let (ms, p) = random_group(&mut rng, true);
            let a = CooperativeSticky.assign(&ms, &p);
            check_valid(&ms, &p, &a);
            // Sticky: the standing claims (highest generation, first member
            // on ties) kept are the most the quotas allow.
            let all = all_subscribed(&ms, &p);
            let (n, total) = (ms.len(), all.len());
            let mut standing: BTreeMap<Tp, (i32, &str)> = BTreeMap::new();
            for m in &ms {
                for tp in owned_of(m).intersection(&all) {
                    let g = m.subscription.generation_id;
                    if standing.get(tp).is_none_or(|(sg, _)| g > *sg) {
                        standing.insert(tp.clone(), (g, &m.member_id));
                    }
                }
            }
            let (min_q, max_q) = (total / n, total.div_ceil(n));
            let own: Vec<usize> = ms
                .iter()
                .map(|m| standing.values().filter(|(_, o)| *o == m.member_id).count())
                .collect();
            let best = own.iter().map(|&o| o.min(min_q)).sum::<usize>()
                + if max_q > min_q {
                    (total % n).min(own.iter().filter(|&&o| o >= max_q).count())
                } else {
                    0
                };
            let kept = standing
                .iter()
                .filter(|(tp, (_, o))| a[*o].get(&tp.0).is_some_and(|v| v.contains(&tp.1)))
                .count();
            assert_eq!(kept, best, "{ms:?} {a:?}");
            // The follow-up round assigns everything, balanced, moving nothing.
            let ms2 = next_round(&ms, &a, 10);
            let a2 = CooperativeSticky.assign(&ms2, &p);
            assert_eq!(check_valid(&ms2, &p, &a2), all);
            let counts: Vec<usize> = ms.iter().map(|m| count(&a2, &m.member_id)).collect();
            assert!(counts.iter().max().unwrap() - counts.iter().min().unwrap() <= 1);
            for m in &ms {
                assert!(flat(&a[&m.member_id]).is_subset(&flat(&a2[&m.member_id])));
            }
        }
    }

    #[test]
    fn property_random_subscriptions_converge() {
        let mut rng = Rng(0x5eed_0002);
        for _ in 0..500 {
            let (ms, p) = random_group(&mut rng, false);
            let all = all_subscribed(&ms, &p);
            let mut cur = ms;
            let mut a = CooperativeSticky.assign(&cur, &p);
            check_valid(&cur, &p, &a);
            // Partitions only wait for their old owner's revocation, so a
            // few rounds settle everything.
            for round in 0..4 {
                cur = next_round(&cur, &a, 10 + round);
                a = CooperativeSticky.assign(&cur, &p);
                check_valid(&cur, &p, &a);
            }
            assert_eq!(check_valid(&cur, &p, &a), all, "{cur:?}");
            assert!(locally_balanced(&cur, &a), "{a:?}");
            // Settled: one more round changes nothing.
            let again = CooperativeSticky.assign(&next_round(&cur, &a, 20), &p);
            assert_eq!(again, a);
        }
    }

    #[test]
    fn member_leaving_moves_only_its_partitions() {
        let mut rng = Rng(0x5eed_0003);
        for _ in 0..200 {
            let n = 2 + rng.below(7);
            let p = parts(&[("x", rng.below(40) as i32), ("y", rng.below(40) as i32)]);
            let ms: Vec<Member> = (0..n)
                .map(|i| member(&format!("m{i}"), &["x", "y"]))
                .collect();
            let a = CooperativeSticky.assign(&ms, &p);
            let ms = next_round(&ms, &a, 1);
            let gone = rng.below(n);
            let rest: Vec<Member> = ms
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != gone)
                .map(|(_, m)| m.clone())
                .collect();
            let b = CooperativeSticky.assign(&rest, &p);
            assert_eq!(check_valid(&rest, &p, &b), all_subscribed(&rest, &p));
            let counts: Vec<usize> = rest.iter().map(|m| count(&b, &m.member_id)).collect();
            assert!(counts.iter().max().unwrap() - counts.iter().min().unwrap() <= 1);
            for m in &rest {
                assert!(flat(&a[&m.member_id]).is_subset(&flat(&b[&m.member_id])));
            }
        }
    }

    #[test]
    fn member_joining_takes_a_fair_share_only_from_the_overloaded() {
        let mut rng = Rng(0x5eed_0004);
        for _ in 0..200 {
            let n = 1 + rng.below(7);
            let p = parts(&[("x", rng.below(40) as i32), ("y", rng.below(40) as i32)]);
            let ms: Vec<Member> = (0..n)
                .map(|i| member(&format!("m{i}"), &["x", "y"]))
                .collect();
            let a = CooperativeSticky.assign(&ms, &p);
            let mut ms = next_round(&ms, &a, 1);
            ms.push(member("new", &["x", "y"]));
            let b = CooperativeSticky.assign(&ms, &p);
            check_valid(&ms, &p, &b);
            assert!(
                b["new"].is_empty(),
                "everything is owned, so the newcomer waits a round"
            );
            let total = all_subscribed(&ms, &p).len();
            let max_q = total.div_ceil(n + 1);
            for m in &ms[..n] {
                let (before, after) = (count(&a, &m.member_id), count(&b, &m.member_id));
                assert!(flat(&b[&m.member_id]).is_subset(&flat(&a[&m.member_id])));
                // Only members above the new quota give anything up.
                assert!(after == before || after >= max_q - 1 && before > after);
            }
            let c = CooperativeSticky.assign(&next_round(&ms, &b, 2), &p);
            assert_eq!(count(&c, "new"), total / (n + 1));
            let moved: usize = ms[..n]
                .iter()
                .map(|m| {
                    flat(&a[&m.member_id])
                        .difference(&flat(&c[&m.member_id]))
                        .count()
                })
                .sum();
            assert_eq!(moved, total / (n + 1), "only the newcomer's share moved");
        }
    }

    #[test]
    fn unequal_subscriptions_balance_by_eligibility() {
        // Java StickyAssignorTest.testPoorRoundRobinAssignmentScenario-like:
        // a subscribes to t only, b to t and u; b takes u, a most of t.
        let p = parts(&[("t", 4), ("u", 2)]);
        let ms = [member("a", &["t"]), member("b", &["t", "u"])];
        let a = CooperativeSticky.assign(&ms, &p);
        assert_eq!(check_valid(&ms, &p, &a), all_subscribed(&ms, &p));
        assert_eq!(count(&a, "a"), 3);
        assert_eq!(count(&a, "b"), 3);
        assert_eq!(a["b"]["u"], vec![0, 1]);
    }

    /// The CPU time this thread has run (Linux's schedstat, in ns), so a
    /// busy machine, which delays the thread, does not make the assignor look
    /// slow; the wall time where that is not available.
    struct CpuClock(Option<std::time::Duration>, std::time::Instant);

    impl CpuClock {
        fn thread_cpu() -> Option<std::time::Duration> {
            let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
            s.split_whitespace()
                .next()?
                .parse()
                .ok()
                .map(std::time::Duration::from_nanos)
        }

        fn start() -> Self {
            CpuClock(Self::thread_cpu(), std::time::Instant::now())
        }

        fn elapsed(&self) -> std::time::Duration {
            match (self.0, Self::thread_cpu()) {
                (Some(a), Some(b)) => b.saturating_sub(a),
                _ => self.1.elapsed(),
            }
        }
    }

    #[test]
    fn thousand_partitions_hundred_members_is_fast() {
        let p: BTreeMap<String, i32> = (0..10).map(|i| (format!("topic{i}"), 100)).collect();
        let topics: Vec<&str> = p.keys().map(String::as_str).collect();
        let mut rng = Rng(0x5eed_0005);
        let start = CpuClock::start();
        // Equal subscriptions, two rounds, then a member leaves.
        let ms: Vec<Member> = (0..100)
            .map(|i| member(&format!("m{i:03}"), &topics))
            .collect();
        let a = CooperativeSticky.assign(&ms, &p);
        let ms = next_round(&ms, &a, 1);
        let a = CooperativeSticky.assign(&ms[1..], &p);
        assert_eq!(
            a.values()
                .map(|t| t.values().map(Vec::len).sum::<usize>())
                .sum::<usize>(),
            1000
        );
        // Random subscriptions with ownership from the last round.
        let ms: Vec<Member> = ms[1..]
            .iter()
            .map(|m| {
                let mut m = m.clone();
                m.subscription.topics.retain(|_| rng.below(3) != 0);
                m
            })
            .collect();
        let b = CooperativeSticky.assign(&ms, &p);
        check_valid(&ms, &p, &b);
        let elapsed = start.elapsed();
        eprintln!("1000 partitions × 100 members, 3 assignments: {elapsed:?}");
        // CPU time, so a loaded machine does not count; a quadratic-in-P·M
        // blowup misses it.
        assert!(elapsed < std::time::Duration::from_secs(3), "{elapsed:?}");
    }

    // KIP-881: the expectations below are the cooperative ones of Java's
    // AbstractStickyAssignorTest (clients/src/test/.../consumer/internals/),
    // over the replica layout `testutil::layout` reproduces. Its
    // `preferRackAwareLogic` cases (a test-only switch) are left out.

    use super::super::testutil::{racks, verify};

    const ALL3: &[&str] = &["t1", "t2", "t3"];

    /// Java's verifyUniformSubscription / verifyNonEqualSubscription: the
    /// same answer from scratch and when everyone owns that answer.
    #[allow(clippy::too_many_arguments)]
    fn both(
        topics: &[(&str, i32)],
        rf: usize,
        brokers: &[Option<&str>],
        consumers: &[Option<&str>],
        subs: &[&[&str]],
        expected: &[&str],
        mismatch: Option<usize>,
    ) {
        let cs = &CooperativeSticky;
        verify(
            cs, topics, rf, brokers, consumers, subs, None, expected, mismatch,
        );
        verify(
            cs,
            topics,
            rf,
            brokers,
            consumers,
            subs,
            Some(expected),
            expected,
            mismatch,
        );
    }

    /// Racks unknown on either side, replicas on every rack, or member
    /// racks holding no replica: the plain sticky assignment.
    fn non_rack_aware(topics: &[(&str, i32)], subs: &[&[&str]], expected: &[&str]) {
        let none = [None, None, None];
        both(topics, 3, &none, &racks(3), subs, expected, None);
        both(topics, 3, &racks(3), &none, subs, expected, None);
        both(topics, 3, &racks(3), &racks(3), subs, expected, Some(0));
        let def = [Some("d"), Some("e"), Some("f")];
        both(topics, 3, &racks(3), &def, subs, expected, None);
        let nef = [None, Some("e"), Some("f")];
        both(topics, 3, &racks(3), &nef, subs, expected, None);
    }

    #[test]
    fn rack_aware_uniform_subscription() {
        // AbstractStickyAssignorTest.testRackAwareAssignmentWithUniformSubscription
        let topics = [("t1", 6), ("t2", 7), ("t3", 2)];
        let subs: &[&[&str]] = &[ALL3, ALL3, ALL3];
        let plain = [
            "t1-0, t1-3, t2-0, t2-3, t2-6",
            "t1-1, t1-4, t2-1, t2-4, t3-0",
            "t1-2, t1-5, t2-2, t2-5, t3-1",
        ];
        non_rack_aware(&topics, subs, &plain);
        // replicas on a subset of racks: aligned
        both(&topics, 1, &racks(3), &racks(3), subs, &plain, Some(0));
        both(&topics, 2, &racks(3), &racks(3), subs, &plain, Some(0));
        // one consumer on a rack with no partitions: balance first
        both(&topics, 3, &racks(2), &racks(3), subs, &plain, Some(5));
        // owned partitions outside the owner's rack are given up (and, being
        // claimed, reassigned only in the next round)
        let owned = [
            "t1-0, t1-1, t1-2, t1-3, t1-4",
            "t1-5, t2-0, t2-1, t2-2, t2-3",
            "t2-4, t2-5, t2-6, t3-0, t3-1",
        ];
        let cs = &CooperativeSticky;
        let kept = ["t1-0, t1-3", "t2-1", "t2-5, t3-1"];
        verify(
            cs,
            &topics,
            1,
            &racks(3),
            &racks(3),
            subs,
            Some(&owned),
            &kept,
            Some(0),
        );
        verify(
            cs,
            &topics,
            1,
            &racks(3),
            &racks(3),
            subs,
            Some(&kept),
            &plain,
            Some(0),
        );
    }

    #[test]
    fn rack_aware_non_equal_subscription() {
        // AbstractStickyAssignorTest.testRackAwareAssignmentWithNonEqualSubscription
        let topics = [("t1", 6), ("t2", 7), ("t3", 2)];
        let subs: &[&[&str]] = &[ALL3, ALL3, &["t1", "t3"]];
        let plain = [
            "t1-5, t2-0, t2-2, t2-4, t2-6",
            "t1-3, t2-1, t2-3, t2-5, t3-0",
            "t1-0, t1-1, t1-2, t1-4, t3-1",
        ];
        non_rack_aware(&topics, subs, &plain);
        // best effort: few rack choices leave some misaligned
        let rf1 = [
            "t1-3, t2-0, t2-2, t2-3, t2-6",
            "t1-4, t2-1, t2-4, t2-5, t3-0",
            "t1-0, t1-1, t1-2, t1-5, t3-1",
        ];
        both(&topics, 1, &racks(3), &racks(3), subs, &rf1, Some(4));
        let rf2 = [
            "t1-3, t2-0, t2-2, t2-5, t2-6",
            "t1-0, t2-1, t2-3, t2-4, t3-0",
            "t1-1, t1-2, t1-4, t1-5, t3-1",
        ];
        both(&topics, 2, &racks(3), &racks(3), subs, &rf2, Some(0));
        both(&topics, 3, &racks(2), &racks(3), subs, &plain, Some(5));
        // misaligned owned partitions: dropped first, then reassigned
        let owned = [
            "t1-0, t1-1, t1-2, t1-3, t1-4",
            "t1-5, t2-0, t2-1, t2-2, t2-3",
            "t2-4, t2-5, t2-6, t3-0, t3-1",
        ];
        let cs = &CooperativeSticky;
        let kept = ["t1-3", "t2-1", "t3-1"];
        verify(
            cs,
            &topics,
            1,
            &racks(3),
            &racks(3),
            subs,
            Some(&owned),
            &kept,
            Some(0),
        );
        verify(
            cs,
            &topics,
            1,
            &racks(3),
            &racks(3),
            subs,
            Some(&kept),
            &rf1,
            Some(4),
        );
        // all racks match (replicas everywhere): the non-rack-aware answer
        let kept = ["t1-2, t1-3, t1-4", "t2-0, t2-1, t2-2, t2-3", "t3-0, t3-1"];
        let done = [
            "t1-2, t1-3, t1-4, t2-4, t2-5",
            "t2-0, t2-1, t2-2, t2-3, t2-6",
            "t1-0, t1-1, t1-5, t3-0, t3-1",
        ];
        verify(
            cs,
            &topics,
            3,
            &racks(3),
            &racks(3),
            subs,
            Some(&owned),
            &kept,
            Some(0),
        );
        verify(
            cs,
            &topics,
            3,
            &racks(3),
            &racks(3),
            subs,
            Some(&kept),
            &done,
            Some(0),
        );
    }

    #[test]
    fn rack_aware_property_still_valid_and_balanced() {
        // Random groups over random rack layouts: rack awareness never
        // breaks validity, the KIP-429 rule or balance, and with equal
        // subscriptions the settled assignment puts no partition outside
        // its member's rack when a local member with room existed.
        let mut rng = Rng(0x5eed_0881);
        for _ in 0..300 {
            let equal = rng.below(2) == 0;
            let (ms, p) = random_group(&mut rng, equal);
            let rack_names = ["a", "b", "c"];
            let racks: PartitionRacks = p
                .iter()
                .map(|(t, &n)| {
                    let per = (0..n)
                        .map(|_| {
                            (0..1 + rng.below(2))
                                .map(|_| rack_names[rng.below(3)].to_string())
                                .collect()
                        })
                        .collect();
                    (t.clone(), per)
                })
                .collect();
            let mut cur: Vec<Member> = ms
                .into_iter()
                .map(|mut m| {
                    let r = rng.below(4);
                    m.subscription.rack_id = (r < 3).then(|| rack_names[r].to_string());
                    m
                })
                .collect();
            let all = all_subscribed(&cur, &p);
            let mut a = CooperativeSticky.assign_with_racks(&cur, &p, &racks);
            check_valid(&cur, &p, &a);
            // Members rejoin while one of them had something revoked (as
            // KIP-429 members do); that stops within a few rounds.
            let mut rounds = 0;
            loop {
                let revoked = cur
                    .iter()
                    .any(|m| !owned_of(m).is_subset(&flat(&a[&m.member_id])));
                if !revoked && rounds > 0 {
                    break;
                }
                rounds += 1;
                assert!(rounds <= 6, "still revoking: {cur:?} {a:?}");
                let racked: Vec<Option<String>> =
                    cur.iter().map(|m| m.subscription.rack_id.clone()).collect();
                cur = next_round(&cur, &a, 10 + rounds);
                for (m, r) in cur.iter_mut().zip(racked) {
                    m.subscription.rack_id = r;
                }
                a = CooperativeSticky.assign_with_racks(&cur, &p, &racks);
                check_valid(&cur, &p, &a);
            }
            assert_eq!(check_valid(&cur, &p, &a), all, "{cur:?}");
            assert!(locally_balanced(&cur, &a), "{a:?}");
        }
    }

    #[test]
    fn rack_aware_thousand_partitions_hundred_members_is_fast() {
        // 10 topics × 100 partitions, one replica each on racks a, b, c in
        // turn; 100 members on racks a, b, c in turn: equal subscriptions,
        // then a member leaves, then random subscriptions.
        let names = ["a", "b", "c"];
        let p: BTreeMap<String, i32> = (0..10).map(|i| (format!("topic{i}"), 100)).collect();
        let racks: PartitionRacks = p
            .keys()
            .enumerate()
            .map(|(t, name)| {
                let per = (0..100)
                    .map(|i| [names[(t * 100 + i) % 3].to_string()].into())
                    .collect();
                (name.clone(), per)
            })
            .collect();
        let topics: Vec<&str> = p.keys().map(String::as_str).collect();
        let with_rack = |mut m: Member, i: usize| {
            m.subscription.rack_id = Some(names[i % 3].to_string());
            m
        };
        let mut rng = Rng(0x5eed_0882);
        // only the assignor's time counts, not the checks'
        let mut spent = std::time::Duration::ZERO;
        let mut timed = |f: &mut dyn FnMut() -> Assignment| {
            let start = CpuClock::start();
            let a = f();
            spent += start.elapsed();
            a
        };
        let ms: Vec<Member> = (0..100)
            .map(|i| with_rack(member(&format!("m{i:03}"), &topics), i))
            .collect();
        let a = timed(&mut || CooperativeSticky.assign_with_racks(&ms, &p, &racks));
        // racks a/b/c hold 334/333/333 partitions and members there can
        // take 340/330/330: only the 3 + 3 over b's and c's room leave
        assert_eq!(super::super::testutil::mismatched(&a, &ms, &racks), 6);
        let ms: Vec<Member> = next_round(&ms, &a, 1)
            .into_iter()
            .enumerate()
            .map(|(i, m)| with_rack(m, i))
            .collect();
        let b = timed(&mut || CooperativeSticky.assign_with_racks(&ms[1..], &p, &racks));
        check_valid(&ms[1..], &p, &b);
        let ms: Vec<Member> = ms[1..]
            .iter()
            .map(|m| {
                let mut m = m.clone();
                m.subscription.topics.retain(|_| rng.below(3) != 0);
                m
            })
            .collect();
        let c = timed(&mut || CooperativeSticky.assign_with_racks(&ms, &p, &racks));
        check_valid(&ms, &p, &c);
        let elapsed = spent;
        eprintln!("rack-aware, 1000 partitions × 100 members, 3 assignments: {elapsed:?}");
        assert!(elapsed < std::time::Duration::from_secs(3), "{elapsed:?}");
    }
}
