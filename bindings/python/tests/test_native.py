"""The compiled hot paths (gregor._native): Ctrl-C interrupts blocking
calls, delivery reports and consumed messages carry what was produced, the
handle is released when a client is collected.

    PYTHONPATH=<site with gregor installed> GREGOR_LIBRARY=target/debug/libgregor.so \\
        python3 bindings/python/tests/test_native.py

Against the broker at $GREGOR_TEST_BROKER (default 127.0.0.1:9092).
"""

import gc
import os
import signal
import sys
import threading
import time
import unittest
import uuid

import gregor
from gregor import Consumer, KafkaError, Producer, TopicPartition

BROKER = os.environ.get("GREGOR_TEST_BROKER", "127.0.0.1:9092")
UNREACHABLE = "127.0.0.1:1"
# Seconds from SIGINT to KeyboardInterrupt that fail the test: far below the
# 30 s calls, so a call that ignores Ctrl-C until its own timeout fails, and
# far above the 0.1 s wait slice, so a loaded machine cannot fail it. The
# delay measured is printed.
LIMIT = 5.0


def unique(prefix):
    return f"pynative-{prefix}-{os.getpid()}-{uuid.uuid4().hex[:10]}"


class Interrupt(unittest.TestCase):
    """SIGINT during a long blocking call raises KeyboardInterrupt long before
    the call's own timeout (the call waits in slices of 0.1 s and checks for
    signals between them)."""

    def setUp(self):
        # Python installs its KeyboardInterrupt handler only when SIGINT is
        # not ignored at startup; a process started in the background by a
        # shell without job control (as CI may start the suite) inherits it
        # ignored. Ctrl-C at a terminal reaches this handler: install it.
        self.previous = signal.signal(signal.SIGINT, signal.default_int_handler)

    def tearDown(self):
        signal.signal(signal.SIGINT, self.previous)

    def interrupted(self, call):
        sent = []

        def fire():
            sent.append(time.monotonic())
            os.kill(os.getpid(), signal.SIGINT)

        t = threading.Timer(0.5, fire)
        t.start()
        try:
            with self.assertRaises(KeyboardInterrupt):
                call()
            took = time.monotonic() - sent[0]
        finally:
            t.cancel()
        print(f"KeyboardInterrupt {took * 1000:.0f} ms after SIGINT", file=sys.stderr)
        self.assertLess(took, LIMIT, f"KeyboardInterrupt {took:.3f} s after SIGINT")

    def test_consumer_poll(self):
        c = Consumer({"bootstrap.servers": BROKER, "group.id": unique("g")})
        c.subscribe([unique("t")])

        def poll_on(*timeout):
            # the subscribed topic does not exist: poll returns its error
            # (as librdkafka's "Subscribed topic not available") and waits
            # again, until the interrupt
            while True:
                c.poll(*timeout)

        self.interrupted(lambda: poll_on(30))
        self.interrupted(lambda: poll_on())
        c.close()

    def test_consumer_consume(self):
        c = Consumer({"bootstrap.servers": BROKER, "group.id": unique("g")})
        c.subscribe([unique("t")])
        self.interrupted(lambda: c.consume(10, 30))
        c.close()

    def test_producer_poll_and_flush(self):
        p = Producer({"bootstrap.servers": UNREACHABLE, "message.timeout.ms": 60000})
        self.interrupted(lambda: p.poll(30))
        p.produce(unique("t"), b"v")
        self.interrupted(lambda: p.flush(30))
        self.interrupted(lambda: p.flush())
        self.assertEqual(len(p), 1)
        p.purge()
        p.flush(5)


class Reports(unittest.TestCase):
    def test_round_trip(self):
        topic = unique("rt")
        p = Producer({"bootstrap.servers": BROKER})
        got = []
        k = bytearray(b"k1")
        p.produce(topic, "vé", key=k, partition=0, headers=[("a", b"1"), ("b", None), ("c", "x")],
                  on_delivery=lambda e, m: got.append((e, m)))
        p.produce(topic, b"v2", callback=lambda e, m: got.append((e, m)), partition=0, timestamp=1234567)
        p.produce(topic, None, partition=0)  # no callback: nothing kept
        self.assertEqual(p.flush(30), 0)
        self.assertEqual(len(got), 2)
        got.sort(key=lambda r: r[1].value() != "vé".encode())
        e, m = got[0]
        self.assertIsNone(e)
        self.assertEqual((m.topic(), m.key(), m.value()), (topic, b"k1", "vé".encode()))
        self.assertEqual(m.headers(), [("a", b"1"), ("b", None), ("c", b"x")])
        self.assertGreaterEqual(m.offset(), 0)
        self.assertIsInstance(m.latency(), float)
        e, m = got[1]
        self.assertEqual((m.partition(), m.timestamp()), (0, (gregor.TIMESTAMP_CREATE_TIME, 1234567)))

        c = Consumer({"bootstrap.servers": BROKER, "group.id": unique("g")})
        c.assign([TopicPartition(topic, 0, gregor.OFFSET_BEGINNING)])
        seen = []
        deadline = time.monotonic() + 30
        while len(seen) < 3 and time.monotonic() < deadline:
            seen += [m for m in c.consume(10, 1.0) if m.error() is None]
        c.close()
        values = sorted((m.value() or b"") for m in seen)
        self.assertEqual(values, sorted([b"", b"v2", "vé".encode()]))
        hm = [m for m in seen if m.value() == "vé".encode()][0]
        self.assertEqual(hm.headers(), [("a", b"1"), ("b", None), ("c", b"x")])
        self.assertEqual(hm.key(), b"k1")
        self.assertIsNone(hm.latency())

    def test_callback_exception_raised_from_poll(self):
        p = Producer({"bootstrap.servers": BROKER})

        def boom(err, msg):
            raise ValueError("from the callback")

        p.produce(unique("t"), b"v", on_delivery=boom)
        with self.assertRaisesRegex(ValueError, "from the callback"):
            p.flush(30)

    def test_only_error_reports(self):
        p = Producer({"bootstrap.servers": UNREACHABLE, "message.timeout.ms": 300,
                      "delivery.report.only.error": True})
        got = []
        p.produce(unique("t"), b"v", on_delivery=lambda e, m: got.append(e))
        p.flush(10)
        self.assertEqual([e.code() for e in got], [KafkaError._MSG_TIMED_OUT])

    def test_bad_arguments(self):
        p = Producer({"bootstrap.servers": UNREACHABLE})
        with self.assertRaises(TypeError):
            p.produce(None)
        with self.assertRaises(TypeError):
            p.produce("t", 12)
        with self.assertRaises(TypeError):
            p.produce("t", b"v", bogus=1)
        with self.assertRaises(TypeError):
            p.produce("t", b"v", headers=[("a", 1)])
        with self.assertRaises(TypeError):
            p.produce("t", b"v", headers=[("a", b"1", b"2")])
        with self.assertRaises(TypeError):
            p.produce("t", b"v", headers=("a", "b"))
        c = Consumer({"bootstrap.servers": UNREACHABLE, "group.id": unique("g")})
        with self.assertRaises(TypeError):
            c.consume(num_messages="1")
        with self.assertRaises(ValueError):
            c.consume(num_messages=-1)
        c.close()
        with self.assertRaisesRegex(RuntimeError, "Consumer closed"):
            c.poll(0)
        p.close()
        with self.assertRaisesRegex(RuntimeError, "Producer has been closed"):
            p.produce("t", b"v")


class Lifetime(unittest.TestCase):
    def test_collected_clients_release_their_threads(self):
        before = threading.active_count()
        for _ in range(20):
            p = Producer({"bootstrap.servers": BROKER})
            p.produce(unique("t"), b"v", on_delivery=lambda e, m: None)
            c = Consumer({"bootstrap.servers": BROKER, "group.id": unique("g")})
            c.poll(0)
            del p, c
        gc.collect()
        self.assertLessEqual(threading.active_count(), before)


if __name__ == "__main__":
    unittest.main()
