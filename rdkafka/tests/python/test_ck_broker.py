"""confluent-kafka-python's C extension (confluent_kafka.cimpl, built from
its sdist by scripts/confluent-kafka-c-tests.sh) against the test broker,
on whichever librdkafka.so.1 the script put on the library path: the
producer with delivery callbacks and headers, the consumer in a group, the
admin client, as an application uses them. The same file runs on
librdkafka itself, side by side.
"""
import os
import uuid

import pytest
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

BROKER = os.environ.get("GREGOR_TEST_BROKER", "127.0.0.1:9092")


@pytest.fixture
def topic():
    name = "ck-c-%s" % uuid.uuid4().hex[:12]
    admin = AdminClient({"bootstrap.servers": BROKER})
    for f in admin.create_topics([NewTopic(name, num_partitions=3, replication_factor=1)]).values():
        f.result(timeout=30)
    yield name
    for f in admin.delete_topics([name]).values():
        try:
            f.result(timeout=30)
        except KafkaException:
            pass


def produce(topic, n):
    reports = []
    p = Producer({"bootstrap.servers": BROKER, "linger.ms": 5})
    for i in range(n):
        p.produce(topic, value=b"v%d" % i, key=b"k%d" % (i % 7),
                  headers=[("n", str(i).encode())],
                  on_delivery=lambda err, msg: reports.append((err, msg)))
        p.poll(0)
    assert p.flush(30) == 0
    return reports


def test_delivery_reports_name_where_each_message_went(topic):
    reports = produce(topic, 300)
    assert len(reports) == 300
    assert all(err is None for err, _ in reports), [e for e, _ in reports if e][:3]
    by_part = {}
    for _, m in reports:
        assert m.topic() == topic and 0 <= m.partition() < 3
        by_part.setdefault(m.partition(), []).append(m.offset())
    # per partition, offsets 0.. in the order produced
    for offsets in by_part.values():
        assert offsets == list(range(len(offsets)))
    # the same key always lands on the same partition
    part_of = {}
    for _, m in reports:
        assert part_of.setdefault(m.key(), m.partition()) == m.partition()


def test_a_group_consumer_reads_back_everything_with_headers(topic):
    produce(topic, 200)
    c = Consumer({"bootstrap.servers": BROKER, "group.id": topic,
                  "auto.offset.reset": "earliest", "enable.auto.commit": False})
    c.subscribe([topic])
    seen = {}
    try:
        for _ in range(300):
            m = c.poll(1.0)
            if m is None:
                if len(seen) == 200:
                    break
                continue
            assert m.error() is None, m.error()
            seen[m.value()] = dict(m.headers())["n"]
        assert sorted(seen) == sorted(b"v%d" % i for i in range(200))
        assert all(v == b"v" + n for v, n in seen.items())
        c.commit(asynchronous=False)
        committed = c.committed([TopicPartition(topic, p) for p in range(3)], timeout=30)
        assert sum(tp.offset for tp in committed) == 200
    finally:
        c.close()


def test_the_admin_client_lists_what_it_created(topic):
    admin = AdminClient({"bootstrap.servers": BROKER})
    md = admin.list_topics(timeout=30)
    assert topic in md.topics
    assert len(md.topics[topic].partitions) == 3
    assert md.brokers


def test_a_message_over_message_max_bytes_is_refused_at_produce(topic):
    p = Producer({"bootstrap.servers": BROKER, "message.max.bytes": 1000})
    with pytest.raises(KafkaException) as e:
        p.produce(topic, b"x" * 5000)
    assert e.value.args[0].code() == KafkaError.MSG_SIZE_TOO_LARGE
    assert p.flush(10) == 0
