"""SASL/OAUTHBEARER ``oauth_cb`` in the Python binding, with confluent-kafka's
signature: ``oauth_cb(oauthbearer_config) -> (token, expiry_seconds[,
principal[, extensions]])``, run by poll; an exception in it (or a token
gregor refuses, e.g. the reserved extension key ``auth``) is raised by the
poll call and reported to ``error_cb`` as ``_AUTHENTICATION``. (The token's
way to a broker, its refresh and re-authentication are tested on the wire in
tests/oauthbearer.rs.) No broker is needed.

    PYTHONPATH=bindings/python GREGOR_LIBRARY=target/debug/libgregor.so \\
        python3 bindings/python/tests/test_oauth.py
"""

import socket
import time
import unittest

from gregor import Consumer, KafkaError, KafkaException, Producer


def closed_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    addr = "127.0.0.1:%d" % s.getsockname()[1]
    s.close()
    return addr


def conf(**extra):
    c = {
        "bootstrap.servers": closed_port(),
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanisms": "OAUTHBEARER",
        "sasl.oauthbearer.config": "principal=py scope=a",
    }
    c.update(extra)
    return c


class OAuthCb(unittest.TestCase):
    def test_called_by_poll_with_the_config_string(self):
        calls = []

        def oauth_cb(config):
            calls.append(config)
            return "py-token", time.time() + 60, "py", {"traceId": "42"}

        errors = []
        p = Producer(conf(oauth_cb=oauth_cb, error_cb=errors.append))
        self.assertEqual(calls, [])  # not before poll
        deadline = time.time() + 5
        while not calls and time.time() < deadline:
            p.poll(0.05)
        self.assertEqual(calls, ["principal=py scope=a"])
        p.poll(0.2)
        self.assertFalse([e for e in errors if e.code() == KafkaError._AUTHENTICATION], errors)
        p.flush(1)

    def test_an_exception_is_raised_by_poll_and_reported(self):
        def oauth_cb(config):
            raise ValueError("identity provider down")

        errors = []
        c = Consumer(conf(**{"group.id": "oauth-py", "oauth_cb": oauth_cb, "error_cb": errors.append}))
        raised = None
        deadline = time.time() + 5
        while raised is None and time.time() < deadline:
            try:
                c.poll(0.05)
            except ValueError as e:
                raised = e
        self.assertIsNotNone(raised)
        self.assertIn("identity provider down", str(raised))
        deadline = time.time() + 5
        while not errors and time.time() < deadline:
            c.poll(0.05)
        auth = [e for e in errors if e.code() == KafkaError._AUTHENTICATION]
        self.assertTrue(auth, errors)
        self.assertIn("identity provider down", auth[0].str())
        c.close()

    def test_a_refused_token_is_raised(self):
        def oauth_cb(config):
            return "tok", time.time() + 60, "py", {"auth": "reserved"}

        p = Producer(conf(oauth_cb=oauth_cb))
        with self.assertRaises(KafkaException) as cm:
            deadline = time.time() + 5
            while time.time() < deadline:
                p.poll(0.05)
        self.assertEqual(cm.exception.args[0].code(), KafkaError._INVALID_ARG)
        self.assertIn("auth", cm.exception.args[0].str())
        # and an expired one
        p2 = Producer(conf(oauth_cb=lambda cfg: ("tok", time.time() - 1)))
        with self.assertRaises(KafkaException) as cm:
            deadline = time.time() + 5
            while time.time() < deadline:
                p2.poll(0.05)
        self.assertIn("unexpired", cm.exception.args[0].str())

    def test_admin_client_gets_its_oauth_cb_without_poll(self):
        from gregor.admin import AdminClient

        calls = []
        a = AdminClient(conf(oauth_cb=lambda cfg: calls.append(cfg) or ("admin-token", time.time() + 60)))
        deadline = time.time() + 5
        while not calls and time.time() < deadline:
            time.sleep(0.02)
        self.assertEqual(calls, ["principal=py scope=a"])
        self.assertIsNone(a._cb_error)

    def test_not_callable_is_a_type_error(self):
        with self.assertRaises(TypeError):
            Producer(conf(oauth_cb="nope"))


if __name__ == "__main__":
    unittest.main()
