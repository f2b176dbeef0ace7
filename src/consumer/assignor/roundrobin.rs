//! The `roundrobin` assignor (Java's `RoundRobinAssignor`, librdkafka's
//! roundrobin): every subscribed topic-partition in (topic, partition)
//! order is dealt to the members in order, round-robin, skipping members
//! not subscribed to the partition's topic.

use std::collections::{BTreeMap, BTreeSet};

use super::strategy::{empty, sorted, Assignment, Assignor, Member, RebalanceProtocol};

/// The round-robin assignor.
#[derive(Debug, Clone, Copy, Default)]
pub struct RoundRobin;

impl Assignor for RoundRobin {
    fn name(&self) -> &'static str {
        "roundrobin"
    }

    fn protocol(&self) -> RebalanceProtocol {
        RebalanceProtocol::Eager
    }

    fn assign(&self, members: &[Member], partitions: &BTreeMap<String, i32>) -> Assignment {
        let mut out = empty(members);
        let order = sorted(members);
        if order.is_empty() {
            return out;
        }
        let subs: Vec<BTreeSet<&str>> = order
            .iter()
            .map(|m| m.subscription.topics.iter().map(String::as_str).collect())
            .collect();
        let mut next = 0usize;
        for (topic, &count) in partitions {
            // Topics nobody subscribes to are skipped, so the search below
            // always ends within one lap.
            if !subs.iter().any(|s| s.contains(topic.as_str())) {
                continue;
            }
            for p in 0..count.max(0) {
                while !subs[next].contains(topic.as_str()) {
                    next = (next + 1) % order.len();
                }
                out.entry(order[next].member_id.clone())
                    .or_default()
                    .entry(topic.clone())
                    .or_default()
                    .push(p);
                next = (next + 1) % order.len();
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::member;
    use super::*;

    fn parts(v: &[(&str, i32)]) -> BTreeMap<String, i32> {
        v.iter().map(|(t, n)| (t.to_string(), *n)).collect()
    }

    #[test]
    fn two_consumers_two_topics_six_partitions() {
        // Java RoundRobinAssignorTest.testTwoConsumersTwoTopicsSixPartitions.
        let ms = [member("c1", &["t1", "t2"]), member("c2", &["t1", "t2"])];
        let a = RoundRobin.assign(&ms, &parts(&[("t1", 3), ("t2", 3)]));
        assert_eq!(a["c1"]["t1"], vec![0, 2]);
        assert_eq!(a["c1"]["t2"], vec![1]);
        assert_eq!(a["c2"]["t1"], vec![1]);
        assert_eq!(a["c2"]["t2"], vec![0, 2]);
    }

    #[test]
    fn mixed_topics_skip_members_not_subscribed() {
        // Java RoundRobinAssignorTest.testMultipleConsumersMixedTopics.
        let ms = [
            member("consumer1", &["topic1"]),
            member("consumer2", &["topic1", "topic2"]),
            member("consumer3", &["topic1"]),
        ];
        let a = RoundRobin.assign(&ms, &parts(&[("topic1", 3), ("topic2", 2)]));
        assert_eq!(a["consumer1"], BTreeMap::from([("topic1".into(), vec![0])]));
        assert_eq!(
            a["consumer2"],
            BTreeMap::from([("topic1".into(), vec![1]), ("topic2".into(), vec![0, 1])])
        );
        assert_eq!(a["consumer3"], BTreeMap::from([("topic1".into(), vec![2])]));
    }

    #[test]
    fn unknown_and_unsubscribed_topics_and_no_members() {
        // A topic without metadata gets nothing; one nobody subscribes to
        // is not assigned; an empty group gets an empty answer.
        let ms = [member("a", &["t", "gone"]), member("b", &["t"])];
        let a = RoundRobin.assign(&ms, &parts(&[("t", 1), ("other", 4)]));
        assert_eq!(a["a"], BTreeMap::from([("t".into(), vec![0])]));
        assert!(a["b"].is_empty());
        assert!(RoundRobin.assign(&[], &parts(&[("t", 3)])).is_empty());
    }

    #[test]
    fn balanced_for_equal_subscriptions() {
        let ms: Vec<Member> = (0..7)
            .map(|i| member(&format!("m{i}"), &["x", "y"]))
            .collect();
        let a = RoundRobin.assign(&ms, &parts(&[("x", 10), ("y", 13)]));
        let counts: Vec<usize> = a.values().map(|t| t.values().map(Vec::len).sum()).collect();
        assert_eq!(counts.iter().sum::<usize>(), 23);
        assert!(counts.iter().max().unwrap() - counts.iter().min().unwrap() <= 1);
    }
}
