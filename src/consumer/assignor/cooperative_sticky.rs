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
//! Cost: O(P log P + P·M) per pass for P partitions and M members; the
//! equal-subscription path (the common case) is a single O(P log P) pass.

use std::collections::{BTreeMap, HashMap};

use super::{empty, sorted, Assignment, Assignor, Member, RebalanceProtocol};

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
        let mut out = empty(members);
        let order = sorted(members);
        if order.is_empty() {
            return out;
        }
        let g = Group::new(&order, partitions);
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
}

impl<'a> Group<'a> {
    fn new(order: &[&'a Member], partitions: &'a BTreeMap<String, i32>) -> Group<'a> {
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
        Group {
            topics,
            base,
            subscribed,
            eligible,
            claimers,
            owned: best.into_iter().map(|b| b.map(|(_, m)| m)).collect(),
        }
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

    /// Each member's standing claims, in partition order.
    fn owned_by_member(&self) -> Vec<Vec<usize>> {
        let mut v = vec![Vec::new(); self.subscribed.len()];
        for (p, o) in self.owned.iter().enumerate() {
            if let Some(m) = *o {
                v[m].push(p);
            }
        }
        v
    }

    /// Equal subscriptions: every member ends with ⌊P/N⌋ or ⌈P/N⌉ partitions
    /// and keeps as many of its own as those quotas allow (Java's
    /// `constrainedAssign`).
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
        let mut max_slots = if max_q > min_q { total % n } else { 0 };
        let mut count = vec![0usize; n];
        for (m, own) in self.owned_by_member().into_iter().enumerate() {
            let keep = if own.len() <= min_q {
                own.len()
            } else if max_slots > 0 {
                max_slots -= 1;
                max_q
            } else {
                min_q
            };
            for &p in &own[..keep] {
                owner[p] = Some(m);
            }
            count[m] = keep;
        }
        let free: Vec<usize> = universe
            .iter()
            .copied()
            .filter(|&p| owner[p].is_none())
            .collect();
        let mut free = free.into_iter();
        // Fill the members under the minimum, round-robin in member order.
        let mut unfilled: Vec<usize> = (0..n).filter(|&m| count[m] < min_q).collect();
        'fill: while !unfilled.is_empty() {
            let mut still = Vec::with_capacity(unfilled.len());
            for &m in &unfilled {
                let Some(p) = free.next() else {
                    break 'fill;
                };
                owner[p] = Some(m);
                count[m] += 1;
                if count[m] < min_q {
                    still.push(m);
                }
            }
            unfilled = still;
        }
        // What is left goes one each to members at the minimum, which by the
        // quota arithmetic are exactly enough.
        let at_min: Vec<usize> = (0..n).filter(|&m| count[m] == min_q).collect();
        let mut at_min = at_min.into_iter();
        for p in free {
            let m = match at_min.next() {
                Some(m) => m,
                None => (0..n).min_by_key(|&m| count[m]).unwrap_or(0),
            };
            owner[p] = Some(m);
            count[m] += 1;
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
        let mut owner = self.owned.clone();
        let mut count = vec![0usize; n];
        for m in owner.iter().flatten() {
            count[*m] += 1;
        }
        let mut free: Vec<usize> = (0..self.total())
            .filter(|&p| owner[p].is_none() && !self.eligible[self.topic_of(p)].is_empty())
            .collect();
        free.sort_by_key(|&p| (self.eligible[self.topic_of(p)].len(), p));
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
                // own ones, and its own ones from the end of its list.
                let (mine, new): (Vec<usize>, Vec<usize>) =
                    held[d].iter().partition(|&&p| self.owned[p] == Some(d));
                for p in new.into_iter().chain(mine.into_iter().rev()) {
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

    #[test]
    fn thousand_partitions_hundred_members_is_fast() {
        let p: BTreeMap<String, i32> = (0..10).map(|i| (format!("topic{i}"), 100)).collect();
        let topics: Vec<&str> = p.keys().map(String::as_str).collect();
        let mut rng = Rng(0x5eed_0005);
        let start = std::time::Instant::now();
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
        // Generous for a loaded machine; a quadratic-in-P·M blowup misses it.
        assert!(elapsed < std::time::Duration::from_secs(3), "{elapsed:?}");
    }
}
