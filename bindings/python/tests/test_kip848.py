"""group.protocol=consumer (KIP-848) through the Python binding, for
confluent-kafka and gregor alike: only the import differs.

    KAFKA_IMPL=gregor          python3 tests/test_kip848.py
    KAFKA_IMPL=confluent_kafka python3 tests/test_kip848.py

Against librdkafka's mock cluster (scripts/mock-cluster.sh run 1), which
implements the broker side of ConsumerGroupHeartbeat: two members of one
group share a 4-partition topic, the rebalance callbacks see incremental
assignments (a member never gets a partition it holds), every message is read once,
and closing the first member hands its partitions to the second.
"""

import importlib
import os
import subprocess
import time
import unittest

IMPL = os.environ.get("KAFKA_IMPL", "gregor")
kafka = importlib.import_module(IMPL)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


class Kip848Test(unittest.TestCase):
    def setUp(self):
        self.mock = subprocess.Popen(["bash", os.path.join(ROOT, "scripts", "mock-cluster.sh"), "run", "1"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT)
        self.bootstrap = self.mock.stdout.readline().strip()
        self.assertTrue(self.bootstrap, "the mock cluster did not start")

    def tearDown(self):
        try:
            self.mock.stdin.write("quit\n")
            self.mock.stdin.close()
        except OSError:
            pass
        self.mock.wait(30)
        self.mock.stdout.close()

    def cmd(self, c):
        self.mock.stdin.write(c + "\n")
        self.mock.stdin.flush()
        self.assertTrue(self.mock.stdout.readline().startswith("ok"), c)

    def member(self, name, events):
        c = kafka.Consumer({"bootstrap.servers": self.bootstrap, "group.id": "kip848-py",
                            "group.protocol": "consumer", "auto.offset.reset": "earliest"})

        def record(kind):
            def cb(consumer, parts):
                events.append((name, kind, sorted(p.partition for p in parts), None))
            return cb
        c.subscribe(["kip848-py"], on_assign=record("assign"), on_revoke=record("revoke"))
        return c

    def test_two_members_share_and_hand_over(self):
        self.cmd("consumer_group 200 5000")
        self.cmd("topic kip848-py 4 1")
        p = kafka.Producer({"bootstrap.servers": self.bootstrap})
        for i in range(40):
            p.produce("kip848-py", value=f"m{i}".encode(), partition=i % 4)
        self.assertEqual(p.flush(30), 0)
        events = []
        a = self.member("a", events)
        b = self.member("b", events)
        seen = []
        deadline = time.time() + 30
        while len(seen) < 40 and time.time() < deadline:
            for c in (a, b):
                m = c.poll(0.05)
                if m is not None and not m.error():
                    seen.append(m.value())
        self.assertEqual(sorted(seen), sorted(f"m{i}".encode() for i in range(40)))
        # both members got partitions, incrementally
        owned = {"a": set(), "b": set()}
        for name, kind, parts, _ in events:
            if kind == "assign":
                self.assertFalse(owned[name] & set(parts), events)
                owned[name] |= set(parts)
            else:
                owned[name] -= set(parts)
        deadline = time.time() + 20
        while not (owned["a"] and owned["b"]) and time.time() < deadline:
            for c in (a, b):
                c.poll(0.05)
            owned = {"a": set(), "b": set()}
            for name, kind, parts, _ in events:
                owned[name] = owned[name] | set(parts) if kind == "assign" else owned[name] - set(parts)
        self.assertTrue(owned["a"] and owned["b"], events)
        self.assertEqual(owned["a"] | owned["b"], {0, 1, 2, 3})
        self.assertFalse(owned["a"] & owned["b"])
        # a leaves: b takes everything
        a.close()
        deadline = time.time() + 20
        while owned["b"] != {0, 1, 2, 3} and time.time() < deadline:
            b.poll(0.05)
            owned["b"] = set()
            for name, kind, parts, _ in events:
                if name == "b":
                    owned["b"] = owned["b"] | set(parts) if kind == "assign" else owned["b"] - set(parts)
        self.assertEqual(owned["b"], {0, 1, 2, 3}, events)
        b.close()

    def test_describe_a_consumer_protocol_group(self):
        """AdminClient.describe_consumer_groups of a KIP-848 group: the mock
        serves ConsumerGroupDescribe (tests/mock_cluster/patches/0004), so
        the group is of type CONSUMER and each member has its current and
        target assignment, as confluent-kafka reports them."""
        from importlib import import_module
        admin_mod = import_module(IMPL + ".admin")
        self.cmd("consumer_group 200 5000")
        self.cmd("topic kip848-py 4 1")
        events = []
        a = self.member("a", events)
        b = self.member("b", events)
        admin = admin_mod.AdminClient({"bootstrap.servers": self.bootstrap})
        deadline = time.time() + 30
        desc = None
        while time.time() < deadline:
            for c in (a, b):
                c.poll(0.05)
            desc = admin.describe_consumer_groups(["kip848-py"], request_timeout=10)["kip848-py"].result()
            parts = [sorted(p.partition for p in m.assignment.topic_partitions) for m in desc.members]
            if len(desc.members) == 2 and all(parts) and all(
                    sorted(p.partition for p in m.target_assignment.topic_partitions) == ps
                    for m, ps in zip(desc.members, parts)):
                break
        self.assertEqual(desc.type, kafka.ConsumerGroupType.CONSUMER)
        self.assertEqual(desc.state, kafka.ConsumerGroupState.STABLE)
        self.assertEqual(desc.partition_assignor, "range")
        self.assertFalse(desc.is_simple_consumer_group)
        self.assertEqual(len(desc.members), 2)
        owned = []
        for m in desc.members:
            self.assertEqual(m.assignment.topic_partitions[0].topic, "kip848-py")
            self.assertEqual(sorted(p.partition for p in m.target_assignment.topic_partitions),
                             sorted(p.partition for p in m.assignment.topic_partitions))
            owned += [p.partition for p in m.assignment.topic_partitions]
        self.assertEqual(sorted(owned), [0, 1, 2, 3])
        a.close()
        b.close()


if __name__ == "__main__":
    unittest.main()
