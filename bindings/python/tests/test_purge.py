"""Producer.purge and what on_delivery's message carries (key, value,
headers, latency), for confluent-kafka and gregor alike: only the import
differs.

    KAFKA_IMPL=confluent_kafka python3 tests/test_purge.py
    KAFKA_IMPL=gregor          python3 tests/test_purge.py

Queued messages: against the broker at $GREGOR_TEST_BROKER (default
127.0.0.1:9092), a long linger.ms keeps them queued. In-flight messages:
against librdkafka's mock cluster (scripts/mock-cluster.sh run 1), whose
`rtt` command holds every answer for seconds.

scripts/bindings-test.sh runs it with gregor. Run with confluent-kafka
2.16 it shows where librdkafka differs: its delivery reports carry no
headers (accepted below), a message produced right after a purge's reports
were served can still get _PURGE_QUEUE, and under the mock's rtt its first
batch was not yet in flight 0.6 s after produce (all 130 came back
_PURGE_QUEUE), so those two steps are gregor's only.
"""

import importlib
import os
import subprocess
import sys
import time
import unittest
import uuid

IMPL = os.environ.get("KAFKA_IMPL", "gregor")
kafka = importlib.import_module(IMPL)
Producer = kafka.Producer
KafkaError = kafka.KafkaError

BROKER = os.environ.get("GREGOR_TEST_BROKER", "127.0.0.1:9092")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def unique(prefix):
    return f"purge-{IMPL}-{prefix}-{os.getpid()}-{uuid.uuid4().hex[:10]}"


class Recorder:
    """on_delivery: one entry per report, by the message's number (its key)."""

    def __init__(self):
        self.seen = {}
        self.extra = []

    def __call__(self, err, msg):
        n = int(msg.key().decode()[1:])
        entry = (err.code() if err else 0, msg.key(), msg.value(), msg.headers(), msg.latency())
        if n in self.seen:
            self.extra.append((n, entry))
        self.seen[n] = entry


def produce_range(p, topic, rec, numbers):
    for i in numbers:
        p.produce(topic, key=f"k{i}", value=f"value {i}", partition=0,
                  headers=[("n", str(i).encode()), ("empty", None)], on_delivery=rec)


def poll_until(p, rec, n, timeout):
    deadline = time.time() + timeout
    while len(rec.seen) < n and time.time() < deadline:
        p.poll(0.05)


class Purge(unittest.TestCase):
    def check(self, rec, numbers, code):
        self.assertEqual(rec.extra, [], "a message got a second report")
        for i in numbers:
            err, key, value, headers, latency = rec.seen[i]
            self.assertEqual(err, code, f"message {i}")
            self.assertEqual(key, f"k{i}".encode())
            self.assertEqual(value, f"value {i}".encode())
            if IMPL == "confluent_kafka":
                # confluent-kafka's delivery reports carry no headers
                self.assertIsNone(headers)
            else:
                self.assertEqual(headers, [("n", str(i).encode()), ("empty", None)])
            self.assertIsInstance(latency, float)
            self.assertGreaterEqual(latency, 0.0)

    def test_purge_of_queued_messages(self):
        topic = unique("q")
        p = Producer({"bootstrap.servers": BROKER, "linger.ms": 60000})
        rec = Recorder()
        produce_range(p, topic, rec, [1000])
        self.assertEqual(p.flush(60), 0)  # creates the topic
        self.check(rec, [1000], 0)
        rec = Recorder()
        produce_range(p, topic, rec, range(200))
        self.assertEqual(len(p), 200)
        p.purge(in_queue=True, in_flight=False)
        poll_until(p, rec, 200, 10)
        self.assertEqual(len(rec.seen), 200)
        self.check(rec, range(200), KafkaError._PURGE_QUEUE)
        self.assertEqual(len(p), 0)
        if IMPL == "confluent_kafka":
            return  # see the module's docstring
        # the producer goes on
        produce_range(p, topic, rec, range(300, 310))
        self.assertEqual(p.flush(30), 0)
        self.check(rec, range(300, 310), 0)
        p.purge()  # nothing left: a no-op
        self.assertEqual(p.poll(0.05), 0)

    @unittest.skipIf(IMPL == "confluent_kafka", "see the module's docstring")
    def test_purge_in_flight(self):
        mock = subprocess.Popen(["bash", os.path.join(ROOT, "scripts", "mock-cluster.sh"), "run", "1"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT)
        try:
            bootstrap = mock.stdout.readline().strip()
            self.assertTrue(bootstrap, "the mock cluster did not start")

            def cmd(c):
                mock.stdin.write(c + "\n")
                mock.stdin.flush()
                self.assertTrue(mock.stdout.readline().startswith("ok"), c)

            cmd("topic purge-py 1 1")
            p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 50,
                          "max.in.flight.requests.per.connection": 1})
            rec = Recorder()
            produce_range(p, "purge-py", rec, [900])
            self.assertEqual(p.flush(30), 0)
            rec = Recorder()
            cmd("rtt 1 4000")  # answers held 4 s: the first batch stays in flight
            produce_range(p, "purge-py", rec, range(100))
            time.sleep(0.6)
            produce_range(p, "purge-py", rec, range(100, 130))  # queued behind it
            time.sleep(0.3)
            self.assertEqual(len(p), 130)
            t0 = time.time()
            p.purge(in_queue=True, in_flight=True, blocking=True)
            poll_until(p, rec, 130, 3)
            self.assertLess(time.time() - t0, 3, "the purge waited for the held answer")
            self.assertEqual(len(rec.seen), 130)
            self.check(rec, range(100), KafkaError._PURGE_INFLIGHT)
            self.check(rec, range(100, 130), KafkaError._PURGE_QUEUE)
            self.assertEqual(len(p), 0)
            # the late answer is ignored; new messages are delivered
            cmd("rtt 1 0")
            produce_range(p, "purge-py", rec, range(200, 210))
            self.assertEqual(p.flush(30), 0)
            p.poll(0.2)
            self.check(rec, range(200, 210), 0)
            self.assertEqual(len(rec.seen), 140)
        finally:
            try:
                mock.stdin.write("quit\n")
                mock.stdin.close()
            except OSError:
                pass
            mock.wait(30)
            mock.stdout.close()

    def test_purge_flags_without_blocking(self):
        p = Producer({"bootstrap.servers": BROKER, "linger.ms": 60000})
        rec = Recorder()
        produce_range(p, unique("nb"), rec, range(5))
        p.purge(blocking=False)
        poll_until(p, rec, 5, 10)
        self.check(rec, range(5), KafkaError._PURGE_QUEUE)
        self.assertEqual(len(p), 0)


if __name__ == "__main__":
    sys.argv[1:1] = ["-v"] if "-v" not in sys.argv else []
    unittest.main()
