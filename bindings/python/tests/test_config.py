"""Configuration dicts of typical confluent-kafka programs, on confluent-kafka
and on gregor alike (only the import differs), plus gregor's config dump.

    KAFKA_IMPL=confluent_kafka python3 bindings/python/tests/test_config.py
    KAFKA_IMPL=gregor          python3 bindings/python/tests/test_config.py

The clients are made and used against the broker at $GREGOR_TEST_BROKER
(default 127.0.0.1:9092); the dicts without bootstrap.servers need none.
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
kadmin = importlib.import_module(IMPL + ".admin")
BROKER = os.environ.get("GREGOR_TEST_BROKER", "127.0.0.1:9092")


def unique(prefix):
    return f"config-py-{prefix}-{os.getpid()}-{uuid.uuid4().hex[:8]}"


# One dict for a producer and a consumer, as programs share them: producer
# properties, consumer properties, socket and debug settings, and properties
# gregor accepts without acting on them (a warning each, on stderr).
SHARED = {
    "bootstrap.servers": BROKER,
    "client.id": "config-py",
    "linger.ms": 0.5,  # a float, as librdkafka allows
    "acks": "all",
    "compression.type": "lz4",
    "enable.idempotence": True,
    "group.id": "config-py-group",
    "auto.offset.reset": "earliest",
    "enable.auto.commit": False,
    "socket.keepalive.enable": True,
    "socket.send.buffer.bytes": 262144,
    "socket.receive.buffer.bytes": 262144,
    "connections.max.idle.ms": 540000,
    "client.dns.lookup": "use_all_dns_ips",
    "broker.address.family": "v4",
    "debug": "security",  # librdkafka: quiet over plaintext
    "log_level": 6,
    "log.connection.close": False,
    "retry.backoff.ms": 200,
    "retry.backoff.max.ms": 2000,
    "topic.metadata.refresh.interval.ms": 60000,
    "socket.max.fails": 3,
    "api.version.fallback.ms": 0,
    "enable.metrics.push": False,
    "metadata.recovery.strategy": "rebootstrap",
    "session.timeout.ms": 45000,
    "sticky.partitioning.linger.ms": 10,
    "queued.min.messages": 1000,
    "allow.auto.create.topics": True,
}


class TypicalDicts(unittest.TestCase):
    def test_one_dict_for_producer_consumer_and_admin(self):
        topic = unique("shared")
        p = kafka.Producer(dict(SHARED))
        delivered = []
        p.produce(topic, b"v1", key=b"k", on_delivery=lambda err, msg: delivered.append(err))
        self.assertEqual(p.flush(30), 0)
        self.assertEqual(delivered, [None])
        conf = dict(SHARED, **{"group.id": unique("group")})
        c = kafka.Consumer(conf)
        c.subscribe([topic])
        got = None
        deadline = time.time() + 30
        while got is None and time.time() < deadline:
            m = c.poll(0.5)
            if m is not None and m.error() is None:
                got = m
        c.close()
        self.assertIsNotNone(got, "nothing consumed")
        self.assertEqual(got.value(), b"v1")
        a = kadmin.AdminClient(dict(SHARED))
        md = a.list_topics(timeout=10)
        self.assertIn(topic, md.topics)

    def test_dicts_without_bootstrap_servers_make_clients(self):
        # as confluent-kafka's own unit tests do: no broker at all
        p = kafka.Producer({"socket.timeout.ms": 10, "message.timeout.ms": 10})
        p.produce("config-py-nowhere", b"x")
        self.assertEqual(p.flush(5), 0, "the message times out")
        c = kafka.Consumer({"group.id": "config-py-none", "socket.timeout.ms": 10})
        c.close()
        kadmin.AdminClient({})

    def test_unknown_property_is_an_error_naming_it(self):
        with self.assertRaises(kafka.KafkaException) as cm:
            kafka.Producer({"bootstrap.servers": BROKER, "socket.keepalive.enabled": True})
        self.assertIn("socket.keepalive.enabled", str(cm.exception))
        with self.assertRaises(kafka.KafkaException):
            kafka.Consumer({"group.id": "g", "debug": "broker,verbose"})


@unittest.skipUnless(IMPL == "gregor", "gregor's own")
class GregorDumpAndWarnings(unittest.TestCase):
    def test_dump_lists_values_and_defaults_and_redacts_secrets(self):
        d = kafka.config_dump({
            "bootstrap.servers": BROKER,
            "linger.ms": 7,
            "sasl.password": "s3cret-pw",
            "ssl.key.password": "s3cret-kp",
            "ssl.key.pem": "s3cret-pem",
            "sasl.oauthbearer.client.secret": "s3cret-oidc",
            "sasl.oauthbearer.token": "s3cret-tok",
            "error_cb": print,
        })
        self.assertEqual(d["bootstrap.servers"], BROKER)
        self.assertEqual(d["linger.ms"], "7")
        self.assertEqual(d["client.id"], "gregor")  # a default
        self.assertEqual(d["socket.keepalive.enable"], "false")
        for k in ("sasl.password", "ssl.key.password", "ssl.key.pem",
                  "sasl.oauthbearer.client.secret", "sasl.oauthbearer.token"):
            self.assertEqual(d[k], "[redacted]", k)
        self.assertNotIn("s3cret", repr(d))
        self.assertNotIn("metadata.broker.list", d)  # an alias
        self.assertGreater(len(d), 150)

    def test_dump_checks_like_a_client(self):
        with self.assertRaises(kafka.KafkaException):
            kafka.config_dump({"no.such.thing": 1})

    def test_warnings_name_the_property_once_at_creation(self):
        code = (
            "import gregor\n"
            "gregor.Consumer({'group.id': 'g', 'linger.ms': 5, 'socket.max.fails': 3,"
            " 'socket.keepalive.enable': True})\n"
        )
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           timeout=60, env=dict(os.environ))
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = [l for l in r.stderr.splitlines() if "|CONFWARN|" in l]
        self.assertEqual(len(lines), 2, r.stderr)
        self.assertTrue(any("linger.ms is a producer property and will be ignored by this "
                            "consumer instance" in l for l in lines), lines)
        self.assertTrue(any("socket.max.fails" in l and "no effect" in l for l in lines), lines)
        for l in lines:
            self.assertRegex(l, r"^%4\|\d+\.\d{3}\|CONFWARN\|gregor#consumer-\d+\| \[thrd:app\]: ")


if __name__ == "__main__":
    unittest.main(verbosity=2)
