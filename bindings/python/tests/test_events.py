"""Client events in the Python binding, as confluent-kafka delivers them:
``error_cb(KafkaError)`` from poll/flush, ``KafkaException(KafkaError)`` with
``.fatal()`` / ``.retriable()`` / ``.txn_requires_abort()`` from the
transactional calls, and the producer's fatal error afterwards.

    PYTHONPATH=bindings/python GREGOR_LIBRARY=target/debug/libgregor.so \\
        python3 bindings/python/tests/test_events.py

Needs the broker ($GREGOR_TEST_BROKER, 127.0.0.1:9092), the TLS and SASL
brokers ($GREGOR_TEST_BROKER_TLS / _SASL, 127.0.0.1:9093 / 9094) and
librdkafka's mock cluster driver (scripts/mock-cluster.sh, built on demand).
"""

import os
import socket
import struct
import subprocess
import threading
import time
import unittest

from gregor import Consumer, KafkaError, KafkaException, Producer, ThrottleEvent, TopicPartition

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
BROKER = os.environ.get("GREGOR_TEST_BROKER", "127.0.0.1:9092")
TLS = os.environ.get("GREGOR_TEST_BROKER_TLS", "127.0.0.1:9093")
SASL = os.environ.get("GREGOR_TEST_BROKER_SASL", "127.0.0.1:9094")


def closed_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    addr = "127.0.0.1:%d" % s.getsockname()[1]
    s.close()
    return addr


class Recorder:
    def __init__(self):
        self.errors = []

    def __call__(self, err):
        assert isinstance(err, KafkaError), err
        self.errors.append((err, time.monotonic()))

    def codes(self):
        return [e.code() for e, _ in self.errors]

    def find(self, code):
        for e, t in self.errors:
            if e.code() == code:
                return e, t
        return None


def poll_for(p, rec, code, limit):
    until = time.monotonic() + limit
    while time.monotonic() < until:
        p.poll(0.1)
        if rec.find(code):
            return rec.find(code)
    return None


class ErrorEvents(unittest.TestCase):
    def test_all_brokers_down_within_two_backoffs(self):
        rec = Recorder()
        p = Producer({"bootstrap.servers": closed_port(), "reconnect.backoff.ms": 100,
                      "reconnect.backoff.max.ms": 1000, "error_cb": rec})
        t0 = time.monotonic()
        p.produce("events-py-down", b"v")
        # about two backoffs (1.1 s); 5 s leaves room for a loaded machine
        # and still fails a report that waits for anything longer
        got = poll_for(p, rec, KafkaError._ALL_BROKERS_DOWN, 5.0)
        self.assertIsNotNone(got, rec.codes())
        err, at = got
        print(f"  _ALL_BROKERS_DOWN after {(at - t0) * 1000:.0f} ms")
        self.assertLess(at - t0, 5.0)
        self.assertEqual(rec.codes()[0], KafkaError._TRANSPORT)
        self.assertFalse(err.fatal())
        n = len(rec.errors)
        for _ in range(10):
            p.poll(0.1)
        self.assertEqual(len(rec.errors), n, "raised once while all stay down")
        self.assertEqual(len(p), 1)

    def test_consumer_hears_all_brokers_down_in_poll(self):
        rec = Recorder()
        c = Consumer({"bootstrap.servers": closed_port(), "group.id": "events-py-group",
                      "reconnect.backoff.max.ms": 500, "error_cb": rec})
        try:
            c.assign([TopicPartition("events-py-down", 0, 0)])
            until = time.monotonic() + 2
            while time.monotonic() < until and not rec.find(KafkaError._ALL_BROKERS_DOWN):
                c.poll(0.1)
            self.assertIsNotNone(rec.find(KafkaError._ALL_BROKERS_DOWN), rec.codes())
        finally:
            c.close()

    def test_callback_exception_is_raised_from_poll(self):
        def boom(err):
            raise ValueError("from error_cb")
        p = Producer({"bootstrap.servers": closed_port(), "error_cb": boom})
        p.produce("events-py-boom", b"v")
        with self.assertRaises(ValueError):
            for _ in range(30):
                p.poll(0.1)

    def test_wrong_scram_password_is_authentication(self):
        rec = Recorder()
        p = Producer({"bootstrap.servers": SASL, "security.protocol": "sasl_plaintext",
                      "sasl.mechanisms": "SCRAM-SHA-256", "sasl.username": "gregor256",
                      "sasl.password": "events-py-wrong", "error_cb": rec})
        p.produce("events-py-auth", b"v")
        got = poll_for(p, rec, KafkaError._AUTHENTICATION, 5.0)
        self.assertIsNotNone(got, rec.codes())
        self.assertNotIn("events-py-wrong", got[0].str())

    def test_untrusted_certificate_is_ssl(self):
        rec = Recorder()
        p = Producer({"bootstrap.servers": TLS, "security.protocol": "ssl", "error_cb": rec})
        p.produce("events-py-tls", b"v")
        got = poll_for(p, rec, KafkaError._SSL, 5.0)
        self.assertIsNotNone(got, rec.codes())
        self.assertIn("certificate", got[0].str())

    def test_error_cb_must_be_callable(self):
        with self.assertRaises(TypeError):
            Producer({"bootstrap.servers": BROKER, "error_cb": 5})


def throttling_peer(throttle_ms):
    """A scripted broker on 127.0.0.1: ApiVersions (v0, after answering a
    newer request with UNSUPPORTED_VERSION as KIP-511 says) advertising
    ApiVersions 0 and Metadata 0-4; every Metadata answered at v4 with
    broker 7, no topics and ``throttle_ms``. Bytes written by hand from
    Kafka's message schemas."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)

    def read_exact(c, n):
        b = b""
        while len(b) < n:
            chunk = c.recv(n - len(b))
            if not chunk:
                raise EOFError
            b += chunk
        return b

    def serve(c):
        try:
            while True:
                (size,) = struct.unpack(">i", read_exact(c, 4))
                req = read_exact(c, size)
                api, ver, corr = struct.unpack(">hhi", req[:8])
                if api == 18:
                    err = 35 if ver > 0 else 0
                    keys = [(18, 0, 0), (3, 0, 4)]
                    body = struct.pack(">hi", err, len(keys)) + b"".join(struct.pack(">hhh", *k) for k in keys)
                elif api == 3:
                    host = b"127.0.0.1"
                    body = (struct.pack(">i", throttle_ms)
                            + struct.pack(">ii", 1, 7) + struct.pack(">h", len(host)) + host
                            + struct.pack(">ih", 1, -1)      # port, rack null
                            + struct.pack(">h", -1)          # cluster id null
                            + struct.pack(">ii", 7, 0))      # controller, no topics
                else:
                    return
                resp = struct.pack(">i", corr) + body
                c.sendall(struct.pack(">i", len(resp)) + resp)
        except (EOFError, OSError):
            pass
        finally:
            c.close()

    def accept():
        while True:
            try:
                c, _ = srv.accept()
            except OSError:
                return
            threading.Thread(target=serve, args=(c,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    return srv, "127.0.0.1:%d" % srv.getsockname()[1]


class Throttle(unittest.TestCase):
    def test_throttle_cb_gets_a_throttle_event_in_poll(self):
        srv, addr = throttling_peer(250)
        seen = []
        try:
            p = Producer({"bootstrap.servers": addr, "throttle_cb": seen.append})
            md = p.list_topics(timeout=5)
            self.assertIn(7, md.brokers)
            self.assertEqual(seen, [], "served only inside poll")
            p.poll(0.1)
            self.assertEqual(len(seen), 1, seen)
            t = seen[0]
            self.assertIsInstance(t, ThrottleEvent)
            self.assertEqual(t.broker_name, addr + "/bootstrap")
            self.assertEqual(t.broker_id, -1)
            self.assertAlmostEqual(t.throttle_time, 0.25)
        finally:
            srv.close()


class MockCluster:
    """librdkafka's mock cluster behind tests/mock_cluster/gregor-mock-cluster.c."""

    def __init__(self, brokers=1):
        path = subprocess.run([os.path.join(ROOT, "scripts", "mock-cluster.sh"), "path"], check=True,
                              capture_output=True, text=True).stdout.strip()
        self.proc = subprocess.Popen([path, str(brokers)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, bufsize=1)
        self.bootstrap = self.proc.stdout.readline().strip()

    def ok(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline().strip()
        assert answer.startswith("ok"), f"{line}: {answer}"

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(10)
        self.proc.stdout.close()


class FatalErrors(unittest.TestCase):
    def test_fatal_idempotence_error_is_an_event_and_queryable(self):
        mc = MockCluster(1)
        try:
            mc.ok("topic events-py-fatal 1 1")
            rec = Recorder()
            reports = []
            p = Producer({"bootstrap.servers": mc.bootstrap, "enable.idempotence": True, "linger.ms": 0,
                          "error_cb": rec})
            p.produce("events-py-fatal", b"ok", on_delivery=lambda e, m: reports.append(e))
            self.assertEqual(p.flush(10), 0)
            self.assertEqual(reports, [None])
            self.assertIsNone(p.fatal_error())
            mc.ok("err 0 47 1")  # Produce answered with INVALID_PRODUCER_EPOCH
            p.produce("events-py-fatal", b"fenced", on_delivery=lambda e, m: reports.append(e))
            p.flush(10)
            self.assertEqual(reports[1].code(), 47, reports)
            got = poll_for(p, rec, KafkaError._FATAL, 5.0)
            self.assertIsNotNone(got, rec.codes())
            self.assertTrue(got[0].fatal())
            fatal = p.fatal_error()
            self.assertEqual(fatal.code(), KafkaError.INVALID_PRODUCER_EPOCH)
            self.assertTrue(fatal.fatal())
            with self.assertRaises(KafkaException) as cm:
                p.produce("events-py-fatal", b"x")
            self.assertEqual(cm.exception.args[0].code(), 47)
        finally:
            mc.close()

    def test_transactional_calls_carry_the_flags(self):
        # the test broker refuses transactional ids: fatal
        p = Producer({"bootstrap.servers": BROKER, "transactional.id": "events-py-txn"})
        with self.assertRaises(KafkaException) as cm:
            p.init_transactions(10)
        e = cm.exception.args[0]
        self.assertEqual(e.code(), KafkaError.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
        self.assertTrue(e.fatal())
        self.assertFalse(e.retriable())
        self.assertFalse(e.txn_requires_abort())
        self.assertEqual(p.fatal_error().code(), e.code())
        # a call out of order on a healthy transactional producer: no flag
        q = Producer({"bootstrap.servers": closed_port(), "transactional.id": "events-py-txn2"})
        with self.assertRaises(KafkaException) as cm:
            q.commit_transaction(1)
        e = cm.exception.args[0]
        self.assertEqual(e.code(), KafkaError._STATE)
        self.assertFalse(e.fatal() or e.retriable() or e.txn_requires_abort())


if __name__ == "__main__":
    unittest.main(verbosity=2)
