"""The optional compatibility package (bindings/python/compat): with it
installed, an unchanged confluent-kafka program's ``import confluent_kafka``
gets gregor.

    pip install --target DIR bindings/python bindings/python/compat
    PYTHONPATH=DIR GREGOR_LIBRARY=target/debug/libgregor.so \\
        python3 bindings/python/tests/test_compat_package.py

(scripts/bindings-test.sh also runs test_compat.py, written for
confluent-kafka, with KAFKA_IMPL=confluent_kafka through this package.)
Against the broker at $GREGOR_TEST_BROKER (default 127.0.0.1:9092).
"""

import importlib
import os
import unittest
import uuid

import confluent_kafka
from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from confluent_kafka.serialization import StringSerializer

import gregor
import gregor.admin

BROKER = os.environ.get("GREGOR_TEST_BROKER", "127.0.0.1:9092")


class CompatPackage(unittest.TestCase):
    def test_the_modules_are_gregors(self):
        self.assertIs(confluent_kafka, gregor)
        self.assertIs(Producer, gregor.Producer)
        self.assertIs(AdminClient, gregor.admin.AdminClient)
        self.assertIs(StringSerializer, gregor.serialization.StringSerializer)
        self.assertIs(importlib.import_module("confluent_kafka.cimpl"), importlib.import_module("gregor.cimpl"))
        with self.assertRaises(ModuleNotFoundError):
            __import__("confluent_kafka.no_such_module")

    def test_a_confluent_kafka_program_runs(self):
        topic = f"pycompatpkg-{uuid.uuid4().hex[:10]}"
        a = AdminClient({"bootstrap.servers": BROKER})
        for f in a.create_topics([NewTopic(topic, num_partitions=1, replication_factor=1)]).values():
            f.result(30)
        p = Producer({"bootstrap.servers": BROKER})
        reports = []
        for i in range(10):
            p.produce(topic, f"v{i}".encode(), on_delivery=lambda e, m: reports.append(e))
        self.assertEqual(p.flush(30), 0)
        self.assertEqual(reports, [None] * 10)
        c = Consumer({"bootstrap.servers": BROKER, "group.id": topic, "auto.offset.reset": "earliest"})
        c.assign([TopicPartition(topic, 0, confluent_kafka.OFFSET_BEGINNING)])
        got = []
        for _ in range(30):
            got += [m.value() for m in c.consume(10, 1.0) if m.error() is None]
            if len(got) >= 10:
                break
        c.close()
        self.assertEqual(got, [f"v{i}".encode() for i in range(10)])
        self.assertEqual(KafkaError._PARTITION_EOF, -191)


if __name__ == "__main__":
    unittest.main()
