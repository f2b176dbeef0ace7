//! The `range` assignor (Java's `RangeAssignor`, librdkafka's range):
//! per topic, the subscribed members in order each get a contiguous run of
//! partitions; the first `count % members` get one extra.
//!
//! Rack-aware (KIP-881, as Java 3.5+ and librdkafka 2.3+): when a topic
//! needs it ([`super::use_rack_aware`]), each member first takes, up to
//! its share, the partitions with a replica in its rack; what is left is
//! handed out as above. Balance per topic is never traded for locality.
//! Topics with the same members and partition count stay co-partitioned
//! (partition i of each goes to one member): they are matched together,
//! partition by partition, to the first member whose rack holds a replica
//! of partition i of all of them.

use std::collections::{BTreeMap, BTreeSet};

use super::strategy::{
    empty, member_rack, replica_racks, sorted, use_rack_aware, Assignment, Assignor, Member,
    PartitionRacks, RebalanceProtocol,
};

/// The range assignor.
#[derive(Debug, Clone, Copy, Default)]
pub struct Range;

impl Assignor for Range {
    fn name(&self) -> &'static str {
        "range"
    }

    fn protocol(&self) -> RebalanceProtocol {
        RebalanceProtocol::Eager
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
        let order = sorted(members);
        let mut states: Vec<TopicState> = partitions
            .iter()
            .filter(|(_, &n)| n > 0)
            .map(|(t, &n)| TopicState::new(t, n, &order, racks))
            .filter(|s| !s.members.is_empty())
            .collect();
        if states.iter().any(|s| s.rack_aware) {
            // Java's assignWithRackMatching: topics with the same members
            // (and so the same member racks) and partition count together.
            let mut groups: BTreeMap<(Vec<usize>, i32), Vec<usize>> = BTreeMap::new();
            for (i, s) in states.iter().enumerate() {
                if s.members.iter().any(|&m| s.rack[m].is_some()) {
                    groups
                        .entry((s.members.clone(), s.count))
                        .or_default()
                        .push(i);
                }
            }
            for ((ms, count), group) in groups {
                if group.len() > 1 {
                    co_partitioned(&mut states, &group, &ms, count);
                } else if states[group[0]].rack_aware {
                    states[group[0]].assign_ranges(true);
                }
            }
        }
        let mut out = empty(members);
        for mut s in states {
            s.assign_ranges(false);
            for (m, mut ps) in s.assigned.into_iter().enumerate() {
                if !ps.is_empty() {
                    ps.sort_unstable();
                    out.entry(order[m].member_id.clone())
                        .or_default()
                        .insert(s.topic.to_string(), ps);
                }
            }
        }
        out
    }
}

/// One topic's assignment in progress (Java's `TopicAssignmentState`).
/// Members are indexes into the assignor order.
struct TopicState<'a> {
    topic: &'a str,
    count: i32,
    /// Subscribed members, in order.
    members: Vec<usize>,
    /// Every member's rack (indexed by member).
    rack: Vec<Option<&'a str>>,
    /// Replica racks by partition; empty sets when unknown.
    replicas: Vec<Option<&'a BTreeSet<String>>>,
    rack_aware: bool,
    unassigned: BTreeSet<i32>,
    /// Partitions given to each member (indexed by member).
    assigned: Vec<Vec<i32>>,
    per_member: i32,
    /// Members that may still get one partition over `per_member`.
    extra_left: i32,
}

impl<'a> TopicState<'a> {
    fn new(
        topic: &'a str,
        count: i32,
        order: &[&'a Member],
        racks: &'a PartitionRacks,
    ) -> TopicState<'a> {
        let members: Vec<usize> = (0..order.len())
            .filter(|&m| order[m].subscription.topics.iter().any(|t| t == topic))
            .collect();
        let rack: Vec<Option<&str>> = order.iter().map(|m| member_rack(m)).collect();
        let member_racks: BTreeSet<&str> = members.iter().filter_map(|&m| rack[m]).collect();
        let replicas: Vec<Option<&BTreeSet<String>>> =
            (0..count).map(|p| replica_racks(racks, topic, p)).collect();
        let rack_aware = use_rack_aware(&member_racks, replicas.iter().copied());
        let n = members.len() as i32;
        TopicState {
            topic,
            count,
            rack,
            replicas,
            rack_aware,
            unassigned: (0..count).collect(),
            assigned: vec![Vec::new(); order.len()],
            per_member: if n > 0 { count / n } else { 0 },
            extra_left: if n > 0 { count % n } else { 0 },
            members,
        }
    }

    /// A member without a rack matches anything (as in Java).
    fn racks_match(&self, m: usize, p: i32) -> bool {
        match self.rack[m] {
            None => true,
            Some(r) => self.replicas[p as usize].is_some_and(|s| s.contains(r)),
        }
    }

    fn max_assignable(&self, m: usize) -> i32 {
        (self.per_member + i32::from(self.extra_left > 0) - self.assigned[m].len() as i32).max(0)
    }

    fn give(&mut self, m: usize, ps: &[i32]) {
        self.assigned[m].extend_from_slice(ps);
        if self.assigned[m].len() as i32 > self.per_member {
            self.extra_left -= 1;
        }
        for p in ps {
            self.unassigned.remove(p);
        }
    }

    /// Each member in order takes the lowest unassigned partitions it may
    /// (with `rack_match`, only those with a replica in its rack), up to
    /// its share (Java's `assignRanges`).
    fn assign_ranges(&mut self, rack_match: bool) {
        for i in 0..self.members.len() {
            if self.unassigned.is_empty() {
                break;
            }
            let m = self.members[i];
            let take: Vec<i32> = self
                .unassigned
                .iter()
                .copied()
                .filter(|&p| !rack_match || self.racks_match(m, p))
                .take(self.max_assignable(m) as usize)
                .collect();
            if !take.is_empty() {
                self.give(m, &take);
            }
        }
    }
}

/// Co-partitioned topics (same members, same count): partition i of all of
/// them goes to the first member whose rack matches partition i of every
/// one and that has room in every one (Java's
/// `assignCoPartitionedWithRackMatching`); unmatched partitions are left
/// for the plain range pass.
fn co_partitioned(states: &mut [TopicState], group: &[usize], members: &[usize], count: i32) {
    let mut remaining: Vec<usize> = members.to_vec();
    for p in 0..count {
        let found = remaining.iter().copied().find(|&m| {
            group
                .iter()
                .all(|&t| states[t].racks_match(m, p) && states[t].max_assignable(m) > 0)
        });
        let Some(m) = found else { continue };
        for &t in group {
            states[t].give(m, &[p]);
        }
        if group.iter().all(|&t| states[t].max_assignable(m) == 0) {
            remaining.retain(|&x| x != m);
            if remaining.is_empty() {
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::member;
    use super::*;

    #[test]
    fn splits_like_the_java_client() {
        // Java's RangeAssignorTest.testTwoConsumersTwoTopicsSixPartitions:
        // 3 partitions each over 2 consumers → 0,1 and 2.
        let ms = [member("c1", &["t1", "t2"]), member("c2", &["t1", "t2"])];
        let parts = BTreeMap::from([("t1".to_string(), 3), ("t2".to_string(), 3)]);
        let a = Range.assign(&ms, &parts);
        assert_eq!(a["c1"]["t1"], vec![0, 1]);
        assert_eq!(a["c1"]["t2"], vec![0, 1]);
        assert_eq!(a["c2"]["t1"], vec![2]);
        assert_eq!(a["c2"]["t2"], vec![2]);
    }

    #[test]
    fn only_subscribers_get_a_topic_and_everyone_is_named() {
        let ms = [
            member("b", &["t"]),
            member("a", &["u"]),
            member("c", &["t"]),
        ];
        let parts = BTreeMap::from([("t".to_string(), 1), ("u".to_string(), 2)]);
        let a = Range.assign(&ms, &parts);
        assert_eq!(a["b"]["t"], vec![0]);
        assert!(a["c"].is_empty());
        assert_eq!(a["a"]["u"], vec![0, 1]);
        assert_eq!(a.len(), 3);
    }

    // KIP-881: the expectations below are those of Java's RangeAssignorTest
    // (clients/src/test/.../consumer/RangeAssignorTest.java), whose replica
    // layout `testutil::layout` reproduces. Its `preferRackAwareLogic`
    // cases (a test-only switch) are left out.

    use super::super::testutil::{racks, verify, ALL_RACKS};

    const ALL3: &[&str] = &["t1", "t2", "t3"];

    fn none(n: usize) -> Vec<Option<&'static str>> {
        vec![None; n]
    }

    /// Java's verifyNonRackAwareAssignment: racks unknown on either side,
    /// replicas on every rack, or member racks holding no replica all give
    /// the plain range assignment.
    fn non_rack_aware(topics: &[(&str, i32)], subs: &[&[&str]], expected: &[&str]) {
        let r = Range;
        verify(
            &r,
            topics,
            3,
            &none(3),
            &racks(3),
            subs,
            None,
            expected,
            None,
        );
        verify(
            &r,
            topics,
            3,
            &racks(3),
            &none(3),
            subs,
            None,
            expected,
            None,
        );
        verify(
            &r,
            topics,
            3,
            &racks(3),
            &racks(3),
            subs,
            None,
            expected,
            Some(0),
        );
        verify(
            &r,
            topics,
            4,
            &racks(4),
            &racks(3),
            subs,
            None,
            expected,
            Some(0),
        );
        let def = [Some("d"), Some("e"), Some("f")];
        verify(&r, topics, 3, &racks(3), &def, subs, None, expected, None);
        let nef = [None, Some("e"), Some("f")];
        verify(&r, topics, 3, &racks(3), &nef, subs, None, expected, None);
    }

    #[test]
    fn rack_aware_uniform_subscription() {
        // RangeAssignorTest.testRackAwareAssignmentWithUniformSubscription
        let topics = [("t1", 6), ("t2", 7), ("t3", 2)];
        let subs: &[&[&str]] = &[ALL3, ALL3, ALL3];
        let plain = [
            "t1-0, t1-1, t2-0, t2-1, t2-2, t3-0",
            "t1-2, t1-3, t2-3, t2-4, t3-1",
            "t1-4, t1-5, t2-5, t2-6",
        ];
        non_rack_aware(&topics, subs, &plain);
        let r = &Range;
        // replicas on a subset of racks: best-effort alignment
        let rf1 = [
            "t1-0, t1-3, t2-0, t2-3, t2-6",
            "t1-1, t1-4, t2-1, t2-4, t3-0",
            "t1-2, t1-5, t2-2, t2-5, t3-1",
        ];
        verify(
            r,
            &topics,
            1,
            &racks(3),
            &racks(3),
            subs,
            None,
            &rf1,
            Some(0),
        );
        let rf2 = [
            "t1-0, t1-2, t2-0, t2-2, t2-3, t3-1",
            "t1-1, t1-3, t2-1, t2-4, t3-0",
            "t1-4, t1-5, t2-5, t2-6",
        ];
        verify(
            r,
            &topics,
            2,
            &racks(3),
            &racks(3),
            subs,
            None,
            &rf2,
            Some(1),
        );
        // one consumer on a rack with no partitions
        verify(
            r,
            &topics,
            3,
            &racks(2),
            &racks(3),
            subs,
            None,
            &plain,
            Some(4),
        );
    }

    #[test]
    fn rack_aware_non_equal_subscription() {
        // RangeAssignorTest.testRackAwareAssignmentWithNonEqualSubscription
        let topics = [("t1", 6), ("t2", 7), ("t3", 2)];
        let subs: &[&[&str]] = &[ALL3, ALL3, &["t1", "t3"]];
        let plain = [
            "t1-0, t1-1, t2-0, t2-1, t2-2, t2-3, t3-0",
            "t1-2, t1-3, t2-4, t2-5, t2-6, t3-1",
            "t1-4, t1-5",
        ];
        non_rack_aware(&topics, subs, &plain);
        let r = &Range;
        let rf1 = [
            "t1-0, t1-3, t2-0, t2-2, t2-3, t2-6",
            "t1-1, t1-4, t2-1, t2-4, t2-5, t3-0",
            "t1-2, t1-5, t3-1",
        ];
        verify(
            r,
            &topics,
            1,
            &racks(3),
            &racks(3),
            subs,
            None,
            &rf1,
            Some(2),
        );
        let rf2 = [
            "t1-0, t1-2, t2-0, t2-2, t2-3, t2-5, t3-1",
            "t1-1, t1-3, t2-1, t2-4, t2-6, t3-0",
            "t1-4, t1-5",
        ];
        verify(
            r,
            &topics,
            2,
            &racks(3),
            &racks(3),
            subs,
            None,
            &rf2,
            Some(0),
        );
        verify(
            r,
            &topics,
            3,
            &racks(2),
            &racks(3),
            subs,
            None,
            &plain,
            Some(2),
        );
    }

    #[test]
    fn co_partitioning_beats_rack_alignment() {
        // RangeAssignorTest.testRackAwareAssignmentWithUniformPartitions
        let topics = [("t1", 5), ("t2", 5), ("t3", 5)];
        let subs: &[&[&str]] = &[ALL3, ALL3, ALL3];
        let plain = [
            "t1-0, t1-1, t2-0, t2-1, t3-0, t3-1",
            "t1-2, t1-3, t2-2, t2-3, t3-2, t3-3",
            "t1-4, t2-4, t3-4",
        ];
        non_rack_aware(&topics, subs, &plain);
        let r = &Range;
        verify(
            r,
            &topics,
            1,
            &racks(3),
            &racks(3),
            subs,
            None,
            &plain,
            Some(10),
        );
        verify(
            r,
            &topics,
            2,
            &racks(3),
            &racks(3),
            subs,
            None,
            &plain,
            Some(5),
        );
        verify(
            r,
            &topics,
            3,
            &racks(2),
            &racks(3),
            subs,
            None,
            &plain,
            Some(3),
        );
    }

    #[test]
    fn co_partitioning_only_among_equal_subscriptions() {
        // RangeAssignorTest
        // .testRackAwareAssignmentWithUniformPartitionsNonEqualSubscription
        let topics = [("t1", 5), ("t2", 5), ("t3", 5)];
        let subs: &[&[&str]] = &[ALL3, ALL3, &["t1", "t3"]];
        let plain = [
            "t1-0, t1-1, t2-0, t2-1, t2-2, t3-0, t3-1",
            "t1-2, t1-3, t2-3, t2-4, t3-2, t3-3",
            "t1-4, t3-4",
        ];
        non_rack_aware(&topics, subs, &plain);
        let r = &Range;
        let rf1 = [
            "t1-0, t1-1, t2-0, t2-1, t2-4, t3-0, t3-1",
            "t1-2, t1-3, t2-2, t2-3, t3-2, t3-3",
            "t1-4, t3-4",
        ];
        verify(
            r,
            &topics,
            1,
            &racks(3),
            &racks(3),
            subs,
            None,
            &rf1,
            Some(9),
        );
        let rf2 = [
            "t1-2, t2-0, t2-1, t2-3, t3-2",
            "t1-0, t1-3, t2-2, t2-4, t3-0, t3-3",
            "t1-1, t1-4, t3-1, t3-4",
        ];
        verify(
            r,
            &topics,
            2,
            &racks(3),
            &racks(3),
            subs,
            None,
            &rf2,
            Some(0),
        );
        verify(
            r,
            &topics,
            3,
            &racks(2),
            &racks(3),
            subs,
            None,
            &plain,
            Some(2),
        );
    }

    #[test]
    fn co_partitioned_topics_aligned_on_racks() {
        // RangeAssignorTest.testRackAwareAssignmentWithCoPartitioning
        let topics = [("t1", 6), ("t2", 6), ("t3", 2), ("t4", 2)];
        let crack = [
            Some(ALL_RACKS[0]),
            Some(ALL_RACKS[1]),
            Some(ALL_RACKS[1]),
            Some(ALL_RACKS[0]),
        ];
        let r = &Range;
        let subs: &[&[&str]] = &[&["t1", "t2"], &["t1", "t2"], &["t3", "t4"], &["t3", "t4"]];
        let plain = [
            "t1-0, t1-1, t1-2, t2-0, t2-1, t2-2",
            "t1-3, t1-4, t1-5, t2-3, t2-4, t2-5",
            "t3-0, t4-0",
            "t3-1, t4-1",
        ];
        verify(r, &topics, 3, &racks(2), &crack, subs, None, &plain, None);
        verify(
            r,
            &topics,
            2,
            &racks(2),
            &crack,
            subs,
            None,
            &plain,
            Some(0),
        );
        let rf1 = [
            "t1-0, t1-2, t1-4, t2-0, t2-2, t2-4",
            "t1-1, t1-3, t1-5, t2-1, t2-3, t2-5",
            "t3-1, t4-1",
            "t3-0, t4-0",
        ];
        verify(r, &topics, 1, &racks(2), &crack, subs, None, &rf1, Some(0));

        let all: &[&str] = &["t1", "t2", "t3", "t4"];
        let subs: &[&[&str]] = &[all, all, all, all];
        let plain = [
            "t1-0, t1-1, t2-0, t2-1, t3-0, t4-0",
            "t1-2, t1-3, t2-2, t2-3, t3-1, t4-1",
            "t1-4, t2-4",
            "t1-5, t2-5",
        ];
        verify(r, &topics, 3, &racks(2), &crack, subs, None, &plain, None);
        verify(
            r,
            &topics,
            2,
            &racks(2),
            &crack,
            subs,
            None,
            &plain,
            Some(0),
        );
        let rf1 = [
            "t1-0, t1-2, t2-0, t2-2, t3-0, t4-0",
            "t1-1, t1-3, t2-1, t2-3, t3-1, t4-1",
            "t1-5, t2-5",
            "t1-4, t2-4",
        ];
        verify(r, &topics, 1, &racks(2), &crack, subs, None, &rf1, Some(0));
        let rf1_3 = [
            "t1-0, t1-3, t2-0, t2-3, t3-0, t4-0",
            "t1-1, t1-4, t2-1, t2-4, t3-1, t4-1",
            "t1-2, t2-2",
            "t1-5, t2-5",
        ];
        verify(
            r,
            &topics,
            1,
            &racks(3),
            &crack,
            subs,
            None,
            &rf1_3,
            Some(6),
        );
    }

    #[test]
    fn co_partitioned_groups_of_several_sizes() {
        // RangeAssignorTest.testCoPartitionedAssignmentWithSameSubscription
        // (t7..t9 are subscribed but have no metadata)
        let topics = [
            ("t1", 6),
            ("t2", 6),
            ("t3", 2),
            ("t4", 2),
            ("t5", 4),
            ("t6", 4),
        ];
        let list: &[&str] = &["t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9"];
        let subs: &[&[&str]] = &[list, list, list];
        let r = &Range;
        let plain = [
            "t1-0, t1-1, t2-0, t2-1, t3-0, t4-0, t5-0, t5-1, t6-0, t6-1",
            "t1-2, t1-3, t2-2, t2-3, t3-1, t4-1, t5-2, t6-2",
            "t1-4, t1-5, t2-4, t2-5, t5-3, t6-3",
        ];
        verify(r, &topics, 3, &none(3), &racks(3), subs, None, &plain, None);
        let rf2 = [
            "t1-0, t1-2, t2-0, t2-2, t3-0, t4-0, t5-1, t6-1",
            "t1-1, t1-3, t2-1, t2-3, t3-1, t4-1, t5-2, t6-2",
            "t1-4, t1-5, t2-4, t2-5, t5-0, t5-3, t6-0, t6-3",
        ];
        verify(
            r,
            &topics,
            2,
            &racks(3),
            &racks(3),
            subs,
            None,
            &rf2,
            Some(0),
        );
    }

    #[test]
    fn rack_aware_static_members_keep_their_ranges() {
        // RangeAssignorTest
        // .testRackAwareStaticMemberRangeAssignmentPersistentAfterMemberIdChanges:
        // two 5-partition topics, replication 2 over six brokers on racks
        // a, b, c, a, b, c, both laid out from broker 0.
        let six: Vec<&str> = (0..6).map(|i| ALL_RACKS[i % 3]).collect();
        let per: Vec<BTreeSet<String>> = (0..5)
            .map(|i| (0..2).map(|j| six[(i + j) % 6].to_string()).collect())
            .collect();
        let racks: PartitionRacks =
            [("t1".to_string(), per.clone()), ("t2".to_string(), per)].into();
        let counts = BTreeMap::from([("t1".to_string(), 5), ("t2".to_string(), 5)]);
        let staticm = |id: &str, inst: &str, rack: &str| {
            let mut m = member(id, &["t1", "t2"]);
            m.group_instance_id = Some(inst.to_string());
            m.subscription.rack_id = Some(rack.to_string());
            m
        };
        let by_instance = |ms: &[Member]| -> BTreeMap<String, BTreeMap<String, Vec<i32>>> {
            let a = Range.assign_with_racks(ms, &counts, &racks);
            ms.iter()
                .map(|m| {
                    (
                        m.group_instance_id.clone().unwrap(),
                        a[&m.member_id].clone(),
                    )
                })
                .collect()
        };
        let ms = [
            staticm("consumer1", "instance1", "a"),
            staticm("consumer2", "instance2", "b"),
            staticm("consumer3", "instance3", "c"),
        ];
        let a = by_instance(&ms);
        assert_eq!(a["instance1"]["t1"], vec![0, 2]);
        assert_eq!(a["instance1"]["t2"], vec![0, 2]);
        assert_eq!(a["instance2"]["t1"], vec![1, 3]);
        assert_eq!(a["instance2"]["t2"], vec![1, 3]);
        assert_eq!(a["instance3"]["t1"], vec![4]);
        assert_eq!(a["instance3"]["t2"], vec![4]);
        // new member ids, same instances: the same assignment
        let ms2 = [
            staticm("consumer1", "instance1", "a"),
            staticm("consumer5", "instance2", "b"),
            staticm("consumer4", "instance3", "c"),
        ];
        assert_eq!(by_instance(&ms2), a);
    }

    #[test]
    fn use_rack_aware_follows_java() {
        // AbstractPartitionAssignorTest.testUseRackAwareAssignment
        let set = |v: &[&str]| -> BTreeSet<String> { v.iter().map(|s| s.to_string()).collect() };
        let abc = set(&["a", "b", "c"]);
        let on_all: Vec<BTreeSet<String>> = (0..10).map(|_| abc.clone()).collect();
        let subset: Vec<BTreeSet<String>> =
            (0..10).map(|i| set(&[["a", "b", "c"][i % 3]])).collect();
        let m = |v: &[&'static str]| -> BTreeSet<&'static str> { v.iter().copied().collect() };
        let u =
            |mr: &BTreeSet<&str>, ps: &[BTreeSet<String>]| use_rack_aware(mr, ps.iter().map(Some));
        assert!(!u(&m(&[]), &on_all));
        assert!(!u(&m(&["a", "b", "c"]), &[]));
        assert!(!u(&m(&["d"]), &on_all));
        assert!(!u(&m(&["a", "b", "c"]), &on_all));
        assert!(!u(&m(&["a", "b"]), &on_all));
        assert!(!u(&m(&["a", "d"]), &on_all));
        assert!(u(&m(&["a", "b", "c"]), &subset));
        assert!(u(&m(&["a", "b"]), &subset));
        assert!(u(&m(&["a", "d"]), &subset));
    }
}
