"""One test script for confluent-kafka and gregor: only the import differs.

    KAFKA_IMPL=confluent_kafka python3 tests/test_compat.py
    KAFKA_IMPL=gregor          python3 tests/test_compat.py

Runs against the broker at $GREGOR_TEST_BROKER (default 127.0.0.1:9092),
with unique topic and group names; deletes only what it created.
"""

import importlib
import os
import sys
import time
import unittest
import uuid

IMPL = os.environ.get("KAFKA_IMPL", "gregor")
kafka = importlib.import_module(IMPL)
kadmin = importlib.import_module(IMPL + ".admin")

Producer = kafka.Producer
Consumer = kafka.Consumer
KafkaError = kafka.KafkaError
KafkaException = kafka.KafkaException
TopicPartition = kafka.TopicPartition
OFFSET_BEGINNING = kafka.OFFSET_BEGINNING
OFFSET_INVALID = kafka.OFFSET_INVALID
AdminClient = kadmin.AdminClient
NewTopic = kadmin.NewTopic

BROKER = os.environ.get("GREGOR_TEST_BROKER", "127.0.0.1:9092")
TIMEOUT = 60  # seconds: generous, the test machine is shared


def unique(prefix):
    return f"compat-{IMPL}-{prefix}-{os.getpid()}-{uuid.uuid4().hex[:10]}"


def wait_for(pred, timeout=TIMEOUT, step=0.2):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if pred():
            return True
        time.sleep(step)
    return False


class Compat(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.admin = AdminClient({"bootstrap.servers": BROKER})
        cls.created = []

    @classmethod
    def tearDownClass(cls):
        if cls.created:
            for f in cls.admin.delete_topics(cls.created, operation_timeout=30).values():
                try:
                    f.result(TIMEOUT)
                except KafkaException:
                    pass

    def create_topic(self, partitions, config=None):
        topic = unique("t")
        futures = self.admin.create_topics([NewTopic(topic, num_partitions=partitions, replication_factor=1,
                                                     config=config or {})])
        self.assertEqual(list(futures), [topic])
        self.assertIsNone(futures[topic].result(TIMEOUT))
        self.created.append(topic)
        md = None

        def visible():
            nonlocal md
            md = self.admin.list_topics(topic, timeout=10)
            t = md.topics.get(topic)
            return t is not None and t.error is None and len(t.partitions) == partitions

        self.assertTrue(wait_for(visible), f"{topic} not in metadata")
        return topic

    def produce(self, topic, values, partitions):
        """Produces values[i] to partition i % partitions; returns the delivery reports."""
        p = Producer({"bootstrap.servers": BROKER, "linger.ms": 5})
        reports = []

        def on_delivery(err, msg):
            reports.append((err, msg.topic(), msg.partition(), msg.offset(), msg.key(), msg.value()))

        for i, v in enumerate(values):
            p.produce(topic, value=v, key=f"k{i}".encode(), partition=i % partitions, on_delivery=on_delivery,
                      headers=[("idx", str(i).encode())])
        self.assertEqual(p.flush(TIMEOUT), 0)
        self.assertEqual(len(p), 0)
        return reports

    # -- producer ----------------------------------------------------------

    def test_produce_with_delivery_callbacks(self):
        topic = self.create_topic(3)
        values = [f"value-{i}".encode() for i in range(12)]
        reports = self.produce(topic, values, 3)
        self.assertEqual(len(reports), 12)
        by_partition = {}
        for err, t, part, off, key, value in reports:
            self.assertIsNone(err)
            self.assertEqual(t, topic)
            i = values.index(value)
            self.assertEqual(part, i % 3, "delivered to the partition asked for")
            self.assertEqual(key, f"k{i}".encode())
            by_partition.setdefault(part, []).append(off)
        for part, offs in by_partition.items():
            self.assertEqual(sorted(offs), list(range(4)), f"partition {part}: offsets 0..3")

    def test_produce_callback_kwarg_and_poll(self):
        topic = self.create_topic(1)
        p = Producer({"bootstrap.servers": BROKER})
        seen = []
        p.produce(topic, b"one", callback=lambda err, msg: seen.append((err, msg.offset())))
        p.produce(topic, "two", on_delivery=lambda err, msg: seen.append((err, msg.offset())))
        self.assertTrue(wait_for(lambda: p.poll(0.5) >= 0 and len(seen) == 2))
        self.assertEqual(seen, [(None, 0), (None, 1)])
        self.assertEqual(p.flush(TIMEOUT), 0)

    # -- consumer: assign --------------------------------------------------

    def test_assign_seek_position_watermarks(self):
        topic = self.create_topic(1)
        self.produce(topic, [b"a", b"b", b"c", b"d"], 1)
        c = Consumer({"bootstrap.servers": BROKER, "group.id": unique("g")})
        try:
            tp = TopicPartition(topic, 0, 1)
            c.assign([tp])
            self.assertEqual([(x.topic, x.partition) for x in c.assignment()], [(topic, 0)])
            got = []
            self.assertTrue(wait_for(lambda: self._collect(c, got, 3), step=0))
            self.assertEqual([m.value() for m in got[:3]], [b"b", b"c", b"d"])
            self.assertEqual([m.offset() for m in got[:3]], [1, 2, 3])
            self.assertEqual(got[0].headers(), [("idx", b"1")])
            self.assertEqual(got[0].key(), b"k1")
            self.assertEqual(c.position([TopicPartition(topic, 0)])[0].offset, 4)
            self.assertEqual(c.get_watermark_offsets(TopicPartition(topic, 0), timeout=10), (0, 4))
            c.seek(TopicPartition(topic, 0, 0))
            first = []
            self.assertTrue(wait_for(lambda: self._collect(c, first, 1), step=0))
            self.assertEqual(first[0].value(), b"a")
            c.pause([TopicPartition(topic, 0)])
            c.resume([TopicPartition(topic, 0)])
        finally:
            c.close()

    @staticmethod
    def _collect(c, out, n):
        m = c.poll(1.0)
        if m is not None and m.error() is None:
            out.append(m)
        return len(out) >= n

    # -- consumer: group ---------------------------------------------------

    def test_group_consume_commit_committed(self):
        topic = self.create_topic(2)
        values = [f"g-{i}".encode() for i in range(6)]
        self.produce(topic, values, 2)
        group = unique("g")
        conf = {"bootstrap.servers": BROKER, "group.id": group, "auto.offset.reset": "earliest",
                "enable.auto.commit": False}
        c = Consumer(conf)
        assigned, revoked = [], []
        try:
            c.subscribe([topic], on_assign=lambda cons, parts: assigned.extend(parts),
                        on_revoke=lambda cons, parts: revoked.extend(parts))
            got = []
            self.assertTrue(wait_for(lambda: self._collect(c, got, 6), step=0), f"got {len(got)} of 6")
            self.assertEqual(sorted((tp.topic, tp.partition) for tp in assigned), [(topic, 0), (topic, 1)])
            self.assertEqual(sorted(m.value() for m in got), sorted(values))

            # commit one message explicitly, synchronously
            last_p0 = max((m for m in got if m.partition() == 0), key=lambda m: m.offset())
            res = c.commit(message=last_p0, asynchronous=False)
            self.assertIn((topic, 0, last_p0.offset() + 1), [(r.topic, r.partition, r.offset) for r in res])
            # then everything consumed
            c.commit(asynchronous=False)
            committed = c.committed([TopicPartition(topic, 0), TopicPartition(topic, 1)], timeout=TIMEOUT)
            positions = c.position([TopicPartition(topic, 0), TopicPartition(topic, 1)])
            self.assertEqual([tp.offset for tp in committed], [tp.offset for tp in positions])
            self.assertEqual([tp.offset for tp in committed], [3, 3])
        finally:
            c.close()
        self.assertEqual(sorted((tp.topic, tp.partition) for tp in revoked), [(topic, 0), (topic, 1)])

        # a new member of the group resumes from the committed offsets
        self.produce(topic, [b"after"], 1)
        c2 = Consumer(conf)
        try:
            c2.subscribe([topic])
            got = []
            self.assertTrue(wait_for(lambda: self._collect(c2, got, 1), step=0))
            self.assertEqual([m.value() for m in got], [b"after"])
            self.assertEqual(got[0].offset(), 3)
        finally:
            c2.close()

    # -- admin -------------------------------------------------------------

    def test_admin_create_delete_topic(self):
        topic = unique("adm")
        fs = self.admin.create_topics([NewTopic(topic, num_partitions=2, replication_factor=1)],
                                      operation_timeout=30)
        self.assertIsNone(fs[topic].result(TIMEOUT))
        self.assertTrue(wait_for(lambda: topic in self.admin.list_topics(timeout=10).topics))
        again = self.admin.create_topics([NewTopic(topic, num_partitions=2, replication_factor=1)])
        with self.assertRaises(KafkaException) as cm:
            again[topic].result(TIMEOUT)
        self.assertEqual(cm.exception.args[0].code(), KafkaError.TOPIC_ALREADY_EXISTS)
        self.assertEqual(cm.exception.args[0].name(), "TOPIC_ALREADY_EXISTS")

        fs = self.admin.delete_topics([topic], operation_timeout=30)
        self.assertIsNone(fs[topic].result(TIMEOUT))
        self.assertTrue(wait_for(lambda: topic not in self.admin.list_topics(timeout=10).topics))
        fs = self.admin.delete_topics([topic])
        with self.assertRaises(KafkaException) as cm:
            fs[topic].result(TIMEOUT)
        self.assertEqual(cm.exception.args[0].code(), KafkaError.UNKNOWN_TOPIC_OR_PART)

    def test_admin_describe_and_alter_topic_config(self):
        topic = self.create_topic(1, config={"retention.ms": "5000"})
        res = kadmin.ConfigResource(kadmin.ResourceType.TOPIC, topic)
        entries = self.admin.describe_configs([res])[res].result(TIMEOUT)
        self.assertEqual(entries["retention.ms"].value, "5000")
        change = kadmin.ConfigResource(kadmin.ResourceType.TOPIC, topic, incremental_configs=[
            kadmin.ConfigEntry("retention.ms", "4242", incremental_operation=kadmin.AlterConfigOpType.SET)])
        self.assertIsNone(self.admin.incremental_alter_configs([change])[change].result(TIMEOUT))
        entries = self.admin.describe_configs([res])[res].result(TIMEOUT)
        self.assertEqual(entries["retention.ms"].value, "4242")

    def test_admin_consumer_groups(self):
        topic = self.create_topic(2)
        self.produce(topic, [b"x", b"y", b"z", b"w"], 2)
        group = unique("ag")
        CGTP = kafka.ConsumerGroupTopicPartitions
        # offsets set through the admin API, for a group with no members
        fs = self.admin.alter_consumer_group_offsets(
            [CGTP(group, [TopicPartition(topic, 0, 1), TopicPartition(topic, 1, 2)])])
        altered = fs[group].result(TIMEOUT)
        self.assertEqual(sorted((tp.partition, tp.offset) for tp in altered.topic_partitions), [(0, 1), (1, 2)])
        fs = self.admin.list_consumer_group_offsets([CGTP(group, [TopicPartition(topic, 0),
                                                                  TopicPartition(topic, 1)])])
        listed = fs[group].result(TIMEOUT)
        self.assertEqual(listed.group_id, group)
        self.assertEqual(sorted((tp.topic, tp.partition, tp.offset) for tp in listed.topic_partitions),
                         [(topic, 0, 1), (topic, 1, 2)])

        # a member joins: the group is listed and described with it
        c = Consumer({"bootstrap.servers": BROKER, "group.id": group, "enable.auto.commit": False})
        try:
            c.subscribe([topic])
            got = []
            self.assertTrue(wait_for(lambda: self._collect(c, got, 1), step=0))
            self.assertIn(got[0].offset(), (1, 2), "resumed at the offsets set by the admin API")

            def listed_stable():
                res = self.admin.list_consumer_groups(request_timeout=10).result(TIMEOUT)
                return any(g.group_id == group for g in res.valid)

            self.assertTrue(wait_for(listed_stable))
            desc = self.admin.describe_consumer_groups([group])[group].result(TIMEOUT)
            self.assertEqual(desc.group_id, group)
            # (members are not asserted: the test broker's DescribeGroups answer
            # is incomplete there, docs/TEST-SERVICES.md)
            self.assertEqual(desc.state, kafka.ConsumerGroupState.STABLE)
            self.assertGreaterEqual(desc.coordinator.id, 0)
            with self.assertRaises(KafkaException) as cm:
                self.admin.delete_consumer_groups([group])[group].result(TIMEOUT)
            self.assertEqual(cm.exception.args[0].code(), KafkaError.NON_EMPTY_GROUP)
        finally:
            c.close()

        def deleted():
            try:
                return self.admin.delete_consumer_groups([group])[group].result(TIMEOUT) is None
            except KafkaException as e:
                if e.args[0].code() == KafkaError.NON_EMPTY_GROUP:
                    return False  # the member's leave is still being processed
                raise

        self.assertTrue(wait_for(deleted))

    def test_kafka_error_codes(self):
        self.assertEqual(KafkaError._PARTITION_EOF, -191)
        self.assertEqual(KafkaError.UNKNOWN_TOPIC_OR_PART, 3)
        e = KafkaError(KafkaError._TIMED_OUT)
        self.assertEqual(e.code(), -185)
        self.assertEqual(e.name(), "_TIMED_OUT")
        self.assertTrue(e.str())
        self.assertEqual(KafkaException(e).args[0], e)


if __name__ == "__main__":
    print(f"KAFKA_IMPL={IMPL}", file=sys.stderr)
    unittest.main(verbosity=2)
