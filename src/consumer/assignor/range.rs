//! The `range` assignor (Java's `RangeAssignor`, librdkafka's range):
//! per topic, the subscribed members in order each get a contiguous run of
//! partitions; the first `count % members` get one extra.

use std::collections::BTreeMap;

use super::{empty, sorted, Assignment, Assignor, Member, RebalanceProtocol};

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
        let mut out = empty(members);
        let order = sorted(members);
        for (topic, &count) in partitions {
            let subs: Vec<&&Member> = order
                .iter()
                .filter(|m| m.subscription.topics.iter().any(|t| t == topic))
                .collect();
            if subs.is_empty() || count <= 0 {
                continue;
            }
            let n = subs.len() as i32;
            let (per, extra) = (count / n, count % n);
            for (i, m) in subs.iter().enumerate() {
                let i = i as i32;
                let start = per * i + i.min(extra);
                let len = per + i32::from(i < extra);
                if len > 0 {
                    out.entry(m.member_id.clone())
                        .or_default()
                        .insert(topic.clone(), (start..start + len).collect());
                }
            }
        }
        out
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
}
