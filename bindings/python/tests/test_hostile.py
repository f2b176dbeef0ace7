"""Hostile arguments to the Python binding: integers C cannot hold, strings
with an embedded NUL, NaN timeouts. Each must raise as confluent-kafka (or
CPython for a C string) does, never be truncated or block. Needs no broker:
the clients point at a closed port and nothing is sent.
"""

import math
import unittest

from gregor import Consumer, Producer, TopicPartition

CONF = {"bootstrap.servers": "127.0.0.1:1", "message.timeout.ms": 1000}


class IntegerRanges(unittest.TestCase):
    def setUp(self):
        self.p = Producer(CONF)

    def tearDown(self):
        self.p.purge()
        self.p.flush(0)

    def test_partition_out_of_int32(self):
        for part in (2**32, 2**32 - 1, 2**31, -(2**31) - 1, 2**64):
            with self.assertRaises(OverflowError, msg=part):
                self.p.produce("t", b"v", partition=part)
        self.assertEqual(len(self.p), 0)

    def test_topic_partition_ranges(self):
        for part in (2**32, 2**31, -(2**31) - 1):
            with self.assertRaises(OverflowError, msg=part):
                TopicPartition("t", part)
        for off in (2**64, 2**63, -(2**63) - 1):
            with self.assertRaises(OverflowError, msg=off):
                TopicPartition("t", 0, off)
        tp = TopicPartition("t", 2**31 - 1, 2**63 - 1)
        self.assertEqual((tp.partition, tp.offset), (2**31 - 1, 2**63 - 1))

    def test_nan_timeout_is_refused(self):
        # NaN is neither negative (infinite) nor a bounded wait: ValueError
        for call in (self.p.poll, self.p.flush):
            with self.assertRaises(ValueError):
                call(math.nan)


class Callbacks(unittest.TestCase):
    def test_non_callable_on_delivery_is_refused_at_produce(self):
        p = Producer(CONF)
        for kw in ("on_delivery", "callback"):
            with self.assertRaises(TypeError, msg=kw):
                p.produce("t", b"v", **{kw: 42})
        self.assertEqual(len(p), 0)
        p.flush(0)


class EmbeddedNul(unittest.TestCase):
    def test_producer_names(self):
        p = Producer(CONF)
        with self.assertRaises(ValueError):
            p.produce("t\0suffix", b"v")
        with self.assertRaises(ValueError):
            p.produce("t", b"v", headers=[("h\0x", b"v")])
        with self.assertRaises(ValueError):
            p.produce("t", b"v", headers={"h\0x": b"v"})
        self.assertEqual(len(p), 0)
        p.flush(0)

    def test_consumer_and_config(self):
        c = Consumer(dict(CONF, **{"group.id": "g"}))
        try:
            with self.assertRaises(ValueError):
                c.subscribe(["rt\0evil"])
        finally:
            c.close()
        with self.assertRaises(ValueError):
            Consumer(dict(CONF, **{"group.id": "g\0evil"}))
        with self.assertRaises(ValueError):
            Producer(dict(CONF, **{"client.id": "a\0b"}))


if __name__ == "__main__":
    unittest.main()
