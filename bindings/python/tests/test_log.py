"""The ``logger`` configuration key, as confluent-kafka's: a
``logging.Logger`` gets the client's log lines (``debug`` contexts,
``log_level``) as ``logger.log(level, "%s [%s] %s", fac, name, message)``
with syslog levels mapped as confluent-kafka maps them, served from
poll/flush/consumer poll on the calling thread (``log.queue``).

    PYTHONPATH=bindings/python GREGOR_LIBRARY=target/debug/libgregor.so \\
        python3 bindings/python/tests/test_log.py

Against the broker at $GREGOR_TEST_BROKER (default 127.0.0.1:9092).
"""

import logging
import os
import threading
import time
import unittest
import uuid

from gregor import Consumer, KafkaException, Producer

BROKER = os.environ.get("GREGOR_TEST_BROKER", "127.0.0.1:9092")


def unique(prefix):
    return f"pylog-{prefix}-{os.getpid()}-{uuid.uuid4().hex[:10]}"


class Capture(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.records = []

    def emit(self, record):
        self.records.append(record)

    def messages(self, fac=None):
        out = [r.getMessage() for r in self.records]
        return [m for m in out if fac is None or m.startswith(fac + " [")]


def logger(name):
    lg = logging.getLogger(name)
    lg.setLevel(logging.DEBUG)
    lg.propagate = False
    h = Capture()
    lg.addHandler(h)
    return lg, h


def produce_and_consume(topic, extra, n=5):
    p = Producer({"bootstrap.servers": BROKER, "linger.ms": 0, **extra})
    for i in range(n):
        p.produce(topic, value=f"m{i}".encode(), partition=0)
    left = p.flush(30)
    assert left == 0, left
    c = Consumer({"bootstrap.servers": BROKER, "group.id": topic + "-g", "auto.offset.reset": "earliest", **extra})
    c.subscribe([topic])
    got = 0
    until = time.time() + 30
    while got < n and time.time() < until:
        m = c.poll(0.2)
        if m is not None and m.error() is None:
            got += 1
    c.close()
    assert got == n, got


class Logger(unittest.TestCase):
    def test_debug_lines_reach_the_logger_on_the_polling_thread(self):
        lg, h = logger(unique("all"))
        topic = unique("t")
        produce_and_consume(topic, {"debug": "all", "logger": lg})
        msgs = h.messages()
        self.assertTrue(msgs, "no log lines")
        for r in h.records:
            self.assertEqual(r.levelno, logging.DEBUG, r.getMessage())
            self.assertEqual(r.thread, threading.get_ident(), r.getMessage())
        # "FAC [name] [thrd:...]: message", as confluent-kafka formats it
        first = msgs[0]
        self.assertRegex(first, r"^[A-Z]+ \[gregor#(producer|consumer)-\d+\] \[thrd:[^\]]*\]: ")
        self.assertTrue(any("Connected to" in m for m in h.messages("CONNECTED")), msgs)
        self.assertTrue(h.messages("APIVERSION"), msgs)
        self.assertTrue(any(f"{topic} [0]: leader" in m for m in h.messages("BROKER")), msgs)
        steady = [m for m in h.messages("CGRPJOINSTATE") if "-> steady" in m]
        self.assertTrue(steady and "[gregor#consumer-" in steady[0], msgs)

    def test_debug_unset_logs_nothing(self):
        lg, h = logger(unique("quiet"))
        produce_and_consume(unique("t"), {"logger": lg})
        self.assertEqual(h.messages(), [])

    def test_lines_wait_for_poll(self):
        lg, h = logger(unique("queue"))
        p = Producer({"bootstrap.servers": BROKER, "debug": "broker", "logger": lg})
        p.produce(unique("t"), value=b"v")
        time.sleep(0.3)
        self.assertEqual(h.messages(), [], "served before poll/flush")
        p.flush(30)
        self.assertTrue(h.messages("CONNECTED"), h.messages())

    def test_a_logger_without_log_is_refused(self):
        with self.assertRaises(KafkaException):
            Producer({"bootstrap.servers": BROKER, "logger": object()})


if __name__ == "__main__":
    unittest.main()
