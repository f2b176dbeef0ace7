"""Event-loop integration in the Python binding, against the broker
($GREGOR_TEST_BROKER, 127.0.0.1:9092):

- the asyncio example (examples/asyncio_consume.py) consumes through an
  eventfd with loop.add_reader: every message, no poll that found nothing;
- yield_() wakes a poll(10) blocked on another thread within milliseconds;
- consumer_group_metadata() carries generation and member id once joined,
  rebalance_protocol(), and close_start() / close_done() with the
  revocation served by poll on the caller's thread.

    PYTHONPATH=bindings/python GREGOR_LIBRARY=target/debug/libgregor.so \\
        python3 bindings/python/tests/test_event_loop.py
"""

import asyncio
import importlib.util
import os
import threading
import time
import unittest
import uuid

from gregor import Consumer, KafkaException, Producer, TopicPartition
from gregor.admin import AdminClient, NewTopic

BROKER = os.environ.get("GREGOR_TEST_BROKER", "127.0.0.1:9092")
HERE = os.path.dirname(os.path.abspath(__file__))


def load_example():
    path = os.path.join(HERE, "..", "examples", "asyncio_consume.py")
    spec = importlib.util.spec_from_file_location("asyncio_consume", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def new_topic(partitions=1):
    name = f"py-events-{uuid.uuid4().hex[:10]}"
    a = AdminClient({"bootstrap.servers": BROKER})
    for f in a.create_topics([NewTopic(name, partitions, 1)]).values():
        f.result(30)
    return name


class EventLoopTest(unittest.TestCase):
    def test_asyncio_example_consumes_through_the_eventfd(self):
        topic = new_topic()
        p = Producer({"bootstrap.servers": BROKER})
        for i in range(200):
            p.produce(topic, f"m-{i}".encode(), partition=0)
        self.assertEqual(p.flush(30), 0)
        c = Consumer({"bootstrap.servers": BROKER, "group.id": "py-events-x"})
        c.assign([TopicPartition(topic, 0, 0)])
        msgs, empty = asyncio.run(load_example().consume(c, 200))
        self.assertEqual([m.value() for m in msgs], [f"m-{i}".encode() for i in range(200)])
        self.assertEqual(empty, 0)
        c.close()

    # The compiled poll waits in slices (Ctrl-C); a yield sets the handle's
    # _yield_pending flag, which ends the whole wait, not only one slice.
    def test_yield_wakes_a_blocked_poll(self):
        c = Consumer({"bootstrap.servers": BROKER, "group.id": "py-events-y"})
        c.assign([TopicPartition(new_topic(), 0, 0)])
        out = {}

        def blocked():
            out["msg"] = c.poll(10)
            out["at"] = time.monotonic()

        t = threading.Thread(target=blocked)
        t.start()
        time.sleep(0.3)
        at = time.monotonic()
        c.yield_()
        t.join()
        took = (out["at"] - at) * 1000
        print(f"\nyield: Consumer.poll(10) returned {took:.1f} ms after yield_()")
        self.assertIsNone(out["msg"])
        self.assertLess(took, 5000)  # well before the 10 s timeout, on a loaded machine too
        c.close()
        p = Producer({"bootstrap.servers": BROKER})
        p.yield_()  # none waits: the next waiting poll returns at once
        at = time.monotonic()
        self.assertEqual(p.poll(10), 0)
        self.assertLess(time.monotonic() - at, 5.0)  # of a 10 s timeout

    def test_group_metadata_protocol_and_close_start(self):
        topic = new_topic(2)
        group = f"py-events-g-{uuid.uuid4().hex[:8]}"
        c = Consumer({"bootstrap.servers": BROKER, "group.id": group})
        md = c.consumer_group_metadata()
        self.assertEqual((md.group_id, md.generation_id, md.member_id, md.group_instance_id), (group, -1, "", None))
        self.assertEqual(c.rebalance_protocol(), "NONE")
        revoked = []
        c.subscribe([topic], on_revoke=lambda cons, parts: revoked.append(threading.get_ident()))
        deadline = time.monotonic() + 30
        while not c.assignment() and time.monotonic() < deadline:
            c.poll(0.1)
        self.assertTrue(c.assignment())
        self.assertEqual(c.rebalance_protocol(), "EAGER")
        self.assertFalse(c.assignment_lost())
        md = c.consumer_group_metadata()
        self.assertGreaterEqual(md.generation_id, 0)
        self.assertEqual(md.member_id, c.memberid())
        c.close_start()
        with self.assertRaises(KafkaException):
            c.close_start()
        deadline = time.monotonic() + 30
        while not c.close_done() and time.monotonic() < deadline:
            try:
                c.poll(0.05)
            except KafkaException:
                pass
        self.assertTrue(c.close_done())
        self.assertEqual(revoked, [threading.get_ident()])
        c.close()


if __name__ == "__main__":
    unittest.main()
