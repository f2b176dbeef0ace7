"""gregor-only tests of the Python bindings: edge cases and misuse.

    PYTHONPATH=bindings/python GREGOR_LIBRARY=target/debug/libgregor.so \
        python3 bindings/python/tests/test_gregor.py

Against the broker at $GREGOR_TEST_BROKER (default 127.0.0.1:9092).
"""

import os
import threading
import time
import unittest
import uuid

import gregor
from gregor import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from gregor._lib import lib
from gregor.admin import (AclBinding, AclBindingFilter, AclOperation, AclPermissionType, AdminClient,
                          ConfigResource, NewPartitions, NewTopic, ResourcePatternType, ResourceType)

BROKER = os.environ.get("GREGOR_TEST_BROKER", "127.0.0.1:9092")
TIMEOUT = 60


def unique(prefix):
    return f"pyunit-{prefix}-{os.getpid()}-{uuid.uuid4().hex[:10]}"


class Errors(unittest.TestCase):
    def test_codes_and_names_come_from_the_library(self):
        for name in ("_PARTITION_EOF", "_TIMED_OUT", "_INVALID_ARG", "UNKNOWN_TOPIC_OR_PARTITION",
                     "TOPIC_ALREADY_EXISTS"):
            code = getattr(KafkaError, name)
            self.assertEqual(lib.gregor_err_name(code).decode(), name)
            self.assertEqual(KafkaError(code).name(), name)
        # librdkafka's spelling is an alias of the same code
        self.assertEqual(KafkaError.UNKNOWN_TOPIC_OR_PART, KafkaError.UNKNOWN_TOPIC_OR_PARTITION)
        self.assertEqual(KafkaError(KafkaError.UNKNOWN_TOPIC_OR_PART).name(), "UNKNOWN_TOPIC_OR_PARTITION")

    def test_error_equality_and_text(self):
        e = KafkaError(KafkaError._TIMED_OUT, "waited")
        self.assertEqual(e, KafkaError._TIMED_OUT)
        self.assertEqual(e, KafkaError(KafkaError._TIMED_OUT))
        self.assertEqual(e.str(), "waited")
        self.assertEqual(KafkaError(KafkaError._TIMED_OUT).str(), lib.gregor_err_str(-185).decode())
        self.assertIn("_TIMED_OUT", repr(e))
        self.assertEqual(KafkaError(12345).name(), "ERR_12345?")


class Descriptors(unittest.TestCase):
    """The error names and admin enums come from the library's descriptor tables."""

    def test_every_error_code_is_an_attribute(self):
        from gregor._descriptors import error_descs
        descs = error_descs()
        self.assertGreater(len(descs), 150)
        for code, name, desc in descs:
            self.assertEqual(getattr(KafkaError, name), code, name)
            self.assertEqual(KafkaError(code).name(), name)
            self.assertEqual(lib.gregor_err_str(code).decode(), desc)
        self.assertEqual(KafkaError.NO_ERROR, 0)
        self.assertEqual(KafkaError.SHARE_SESSION_LIMIT_REACHED, 133)

    def test_enums_match_the_library(self):
        from gregor._descriptors import enum_descs
        from gregor.admin import AlterConfigOpType, ConfigSource
        renamed = {"CLUSTER": "BROKER", "UNKNOWN": None}
        for cls, kind in ((AclOperation, "acl_operation"), (AclPermissionType, "acl_permission_type"),
                          (ResourceType, "resource_type"), (ResourcePatternType, "resource_pattern_type"),
                          (ConfigSource, "config_source"), (AlterConfigOpType, "alter_config_op_type")):
            rows = enum_descs(kind)
            self.assertEqual([m.value for m in cls], [v for v, _n, _c, _d in rows], kind)
            for value, name, constant, _desc in rows:
                self.assertTrue(constant.startswith("GREGOR_"), constant)
                member = cls(value)
                if renamed.get(name, name) is not None and member.name != name:
                    self.assertEqual(member.name, renamed.get(name), name)
        # A hand-copied table had drifted here: ACL operations go to TWO_PHASE_COMMIT (15).
        self.assertEqual(AclOperation.TWO_PHASE_COMMIT.value, 15)
        self.assertEqual(AclOperation.CREATE_TOKENS.value, 13)
        self.assertEqual(ResourceType.BROKER.value, 4)
        self.assertEqual(ConfigSource.UNKNOWN_CONFIG.value, 0)
        self.assertLess(AclOperation.READ, AclOperation.WRITE)


class ConfigErrors(unittest.TestCase):
    def test_unknown_property(self):
        with self.assertRaises(KafkaException) as cm:
            Producer({"bootstrap.servers": BROKER, "no.such.property": "1"})
        err = cm.exception.args[0]
        self.assertEqual(err.code(), KafkaError._INVALID_CONFIG)
        self.assertIn("no.such.property", err.str())

    def test_bad_value(self):
        with self.assertRaises(KafkaException) as cm:
            Consumer({"bootstrap.servers": BROKER, "fetch.wait.max.ms": "soon"})
        self.assertIn("fetch.wait.max.ms", cm.exception.args[0].str())

    def test_none_value_and_callable(self):
        # None leaves a property unset (confluent-kafka passes NULL)
        p = Producer({"bootstrap.servers": BROKER, "client.id": None})
        self.assertEqual(len(p), 0)
        # a callable for a property that takes no callback is refused
        with self.assertRaises(KafkaException) as cm:
            Producer({"bootstrap.servers": BROKER, "client.id": print})
        self.assertEqual(cm.exception.args[0].code(), KafkaError._INVALID_ARG)
        with self.assertRaises(TypeError):
            Producer({"bootstrap.servers": BROKER, "stats_cb": 1})

    def test_non_dict_config(self):
        with self.assertRaises(TypeError):
            Producer("bootstrap.servers=x")

    def test_bool_and_int_values_are_converted(self):
        p = Producer({"bootstrap.servers": BROKER, "linger.ms": 7, "enable.idempotence": False})
        self.assertEqual(len(p), 0)


class ProducerEdges(unittest.TestCase):
    def test_bad_arguments(self):
        p = Producer({"bootstrap.servers": BROKER})
        with self.assertRaises(TypeError):
            p.produce(None, b"x")
        with self.assertRaises(TypeError):
            p.produce("t", value=12)
        with self.assertRaises(TypeError):
            p.produce("t", key=object())
        self.assertEqual(len(p), 0, "nothing was queued by the failed calls")

    def test_null_key_value_and_header(self):
        topic = unique("null")
        p = Producer({"bootstrap.servers": BROKER})
        reports = []
        p.produce(topic, None, None, partition=0, headers=[("n", None), ("e", b"")],
                  on_delivery=lambda err, msg: reports.append((err, msg)))
        self.assertEqual(p.flush(TIMEOUT), 0)
        self.assertIsNone(reports[0][0])
        c = Consumer({"bootstrap.servers": BROKER})
        try:
            c.assign([TopicPartition(topic, 0, reports[0][1].offset())])
            m = None
            deadline = time.time() + TIMEOUT
            while m is None and time.time() < deadline:
                m = c.poll(1)
            self.assertIsNone(m.error())
            self.assertIsNone(m.key())
            self.assertIsNone(m.value())
            self.assertEqual(m.headers(), [("n", None), ("e", b"")])
            self.assertEqual(len(m), 0)
        finally:
            c.close()

    def test_callback_exception_propagates_from_flush(self):
        p = Producer({"bootstrap.servers": BROKER})

        def boom(err, msg):
            raise ValueError("from the callback")

        p.produce(unique("cb"), b"x", on_delivery=boom)
        with self.assertRaises(ValueError):
            p.flush(TIMEOUT)
        self.assertEqual(p.flush(1), 0)

    def test_failed_delivery_is_reported(self):
        p = Producer({"bootstrap.servers": BROKER, "message.timeout.ms": 3000})
        reports = []
        p.produce(unique("nopart"), b"x", partition=77, on_delivery=lambda err, msg: reports.append(err))
        p.flush(TIMEOUT)
        self.assertEqual(len(reports), 1)
        self.assertIsNotNone(reports[0])
        self.assertIsInstance(reports[0], KafkaError)

    def test_closed_producer(self):
        p = Producer({"bootstrap.servers": BROKER})
        p.close(1)
        self.assertEqual(len(p), 0)
        with self.assertRaises(RuntimeError):
            p.produce("t", b"x")
        with self.assertRaises(RuntimeError):
            p.poll(0)
        p.close()  # twice is fine

    def test_poll_releases_the_gil(self):
        p = Producer({"bootstrap.servers": BROKER})
        ticks = []
        stop = threading.Event()

        def spin():
            while not stop.is_set():
                ticks.append(1)
                time.sleep(0.01)

        t = threading.Thread(target=spin)
        t.start()
        p.poll(1.0)  # nothing to serve: blocks in C for the whole second
        stop.set()
        t.join()
        self.assertGreater(len(ticks), 20, "another thread ran while poll blocked")


class ConsumerEdges(unittest.TestCase):
    def test_bad_arguments(self):
        c = Consumer({"bootstrap.servers": BROKER})
        try:
            with self.assertRaises(TypeError):
                c.assign(TopicPartition("t", 0))
            with self.assertRaises(TypeError):
                c.assign(["t"])
            with self.assertRaises(TypeError):
                c.subscribe("t")
            with self.assertRaises(ValueError):
                c.consume(-1)
            with self.assertRaises(ValueError) as cm:
                c.consume(1000001)
            self.assertEqual(str(cm.exception), "num_messages must be between 0 and 1000000 (1M)")
            self.assertEqual(c.consume(0), [], "0 asks for nothing, as in confluent-kafka")
            with self.assertRaises(TypeError):
                c.seek("t")
            with self.assertRaises(ValueError):
                c.commit(message=object(), offsets=[])
            self.assertEqual(c.assignment(), [])
            self.assertIsNone(c.poll(0))
            self.assertEqual(c.consume(5, timeout=0.2), [])
        finally:
            c.close()

    def test_committed_without_group_is_invalid_arg(self):
        c = Consumer({"bootstrap.servers": BROKER})
        try:
            with self.assertRaises(KafkaException) as cm:
                c.committed([TopicPartition("t", 0)], timeout=5)
            self.assertEqual(cm.exception.args[0].code(), KafkaError._INVALID_ARG)
        finally:
            c.close()

    def test_partition_eof_is_an_error_message(self):
        topic = unique("eof")
        p = Producer({"bootstrap.servers": BROKER})
        p.produce(topic, b"only", partition=0)
        p.flush(TIMEOUT)
        c = Consumer({"bootstrap.servers": BROKER, "enable.partition.eof": True})
        try:
            c.assign([TopicPartition(topic, 0, gregor.OFFSET_BEGINNING)])
            msgs = []
            deadline = time.time() + TIMEOUT
            while time.time() < deadline and not any(m.error() for m in msgs):
                m = c.poll(1)
                if m is not None:
                    msgs.append(m)
            self.assertEqual(msgs[0].value(), b"only")
            self.assertEqual(msgs[-1].error().code(), KafkaError._PARTITION_EOF)
            self.assertIsNone(msgs[-1].value())
        finally:
            c.close()

    def test_closed_consumer(self):
        c = Consumer({"bootstrap.servers": BROKER})
        c.close()
        c.close()  # twice is fine
        for call in (lambda: c.poll(0), lambda: c.assign([]), lambda: c.assignment(),
                     lambda: c.position([TopicPartition("t", 0)]), lambda: c.list_topics()):
            with self.assertRaises(RuntimeError):
                call()

    def test_list_topics_and_watermarks(self):
        topic = unique("md")
        a = AdminClient({"bootstrap.servers": BROKER})
        a.create_topics([NewTopic(topic, 3, 1)])[topic].result(TIMEOUT)
        try:
            c = Consumer({"bootstrap.servers": BROKER})
            try:
                md = c.list_topics(topic, timeout=10)
                self.assertEqual(sorted(md.topics[topic].partitions), [0, 1, 2])
                self.assertTrue(md.brokers)
                self.assertEqual(c.get_watermark_offsets(TopicPartition(topic, 2), timeout=10), (0, 0))
            finally:
                c.close()
        finally:
            a.delete_topics([topic])[topic].result(TIMEOUT)


class GroupEdges(unittest.TestCase):
    """Group membership through the bindings (needs the group C API)."""

    def setUp(self):
        self.topic = unique("grp")
        a = AdminClient({"bootstrap.servers": BROKER})
        a.create_topics([NewTopic(self.topic, 1, 1)])[self.topic].result(TIMEOUT)
        p = Producer({"bootstrap.servers": BROKER})
        for i in range(3):
            p.produce(self.topic, f"m{i}".encode(), partition=0)
        p.flush(TIMEOUT)
        self.admin = a

    def tearDown(self):
        self.admin.delete_topics([self.topic])[self.topic].result(TIMEOUT)

    def consumer(self, **extra):
        conf = {"bootstrap.servers": BROKER, "group.id": unique("g"), "auto.offset.reset": "earliest",
                "enable.auto.commit": False}
        conf.update(extra)
        return Consumer(conf)

    def poll_n(self, c, n):
        got = []
        deadline = time.time() + TIMEOUT
        while len(got) < n and time.time() < deadline:
            m = c.poll(0.5)
            if m is not None and m.error() is None:
                got.append(m)
        return got

    def test_async_commit_reports_to_on_commit_with_metadata(self):
        commits = []
        c = self.consumer(on_commit=lambda err, parts: commits.append((err, parts)))
        try:
            c.subscribe([self.topic])
            got = self.poll_n(c, 3)
            self.assertEqual(len(got), 3)
            self.assertTrue(c.memberid())
            tp = TopicPartition(self.topic, 0, 3, metadata="checkpoint-7")
            self.assertIsNone(c.commit(offsets=[tp], asynchronous=True))
            deadline = time.time() + TIMEOUT
            while not commits and time.time() < deadline:
                c.poll(0.2)
            err, parts = commits[0]
            self.assertIsNone(err)
            self.assertEqual([(p.topic, p.partition, p.offset) for p in parts], [(self.topic, 0, 3)])
            # (the test broker does not keep commit metadata, for librdkafka
            # either; the metadata's trip through the C list is tested below)
            self.assertEqual(c.committed([TopicPartition(self.topic, 0)], timeout=TIMEOUT)[0].offset, 3)
        finally:
            c.close()

    def test_on_assign_exception_propagates_from_poll(self):
        c = self.consumer()
        try:
            def bad(consumer, parts):
                raise KeyError("from on_assign")

            c.subscribe([self.topic], on_assign=bad)
            with self.assertRaises(KeyError):
                deadline = time.time() + TIMEOUT
                while time.time() < deadline:
                    c.poll(0.5)
        finally:
            c.close()

    def test_on_assign_may_assign_other_offsets(self):
        c = self.consumer()
        try:
            def start_at_2(consumer, parts):
                for p in parts:
                    p.offset = 2
                consumer.assign(parts)

            c.subscribe([self.topic], on_assign=start_at_2)
            got = self.poll_n(c, 1)
            self.assertEqual([(m.offset(), m.value()) for m in got], [(2, b"m2")])
        finally:
            c.close()

    def test_store_offsets_then_commit(self):
        c = self.consumer(**{"enable.auto.offset.store": False})
        try:
            c.subscribe([self.topic])
            got = self.poll_n(c, 3)
            c.store_offsets(message=got[0])
            c.commit(asynchronous=False)
            self.assertEqual(c.committed([TopicPartition(self.topic, 0)], timeout=TIMEOUT)[0].offset, 1)
        finally:
            c.close()

    def test_partition_list_carries_metadata_and_epoch(self):
        from gregor import _tpl_from, _tpl_to_list

        h = _tpl_from([TopicPartition("a", 1, 5, metadata="m1", leader_epoch=3), TopicPartition("b", 0, 7)])
        try:
            back = _tpl_to_list(h)
        finally:
            lib.gregor_tpl_free(h)
        self.assertEqual([(t.topic, t.partition, t.offset, t.metadata, t.leader_epoch) for t in back],
                         [("a", 1, 5, "m1", 3), ("b", 0, 7, None, None)])

    def test_subscribe_bad_input(self):
        c = self.consumer()
        try:
            with self.assertRaises(TypeError):
                c.subscribe(self.topic)
            with self.assertRaises(TypeError):
                c.subscribe([self.topic], on_assign=42)
            with self.assertRaises(KafkaException):
                c.subscribe([])
        finally:
            c.close()
        with self.assertRaises(RuntimeError):
            c.subscribe([self.topic])
        with self.assertRaises(RuntimeError):
            c.commit()


class AdminEdges(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.a = AdminClient({"bootstrap.servers": BROKER})

    def test_bad_arguments(self):
        with self.assertRaises(ValueError):
            self.a.create_topics([])
        with self.assertRaises(TypeError):
            self.a.create_topics(["name"])
        with self.assertRaises(TypeError):
            self.a.delete_topics(["t"], bogus=1)
        with self.assertRaises(ValueError):
            ConfigResource("no-such-type", "x")
        with self.assertRaises(ValueError):
            AclBinding(ResourceType.ANY, "t", ResourcePatternType.LITERAL, "User:a", "*", AclOperation.READ,
                       AclPermissionType.ALLOW)

    def test_acls_get_the_brokers_typed_error(self):
        # the test broker has no authorizer: every ACL call answers SECURITY_DISABLED
        b = AclBinding(ResourceType.TOPIC, unique("acl"), ResourcePatternType.LITERAL, "User:alice", "*",
                       AclOperation.READ, AclPermissionType.ALLOW)
        with self.assertRaises(KafkaException) as cm:
            self.a.create_acls([b])[b].result(TIMEOUT)
        self.assertEqual(cm.exception.args[0].code(), KafkaError.SECURITY_DISABLED)
        f = AclBindingFilter(ResourceType.ANY, None, ResourcePatternType.ANY, None, None, AclOperation.ANY,
                             AclPermissionType.ANY)
        with self.assertRaises(KafkaException) as cm:
            self.a.describe_acls(f).result(TIMEOUT)
        self.assertEqual(cm.exception.args[0].code(), KafkaError.SECURITY_DISABLED)
        with self.assertRaises(KafkaException) as cm:
            self.a.delete_acls([f])[f].result(TIMEOUT)
        self.assertEqual(cm.exception.args[0].code(), KafkaError.SECURITY_DISABLED)

    def test_create_partitions_gets_the_typed_error(self):
        # the test broker has no CreatePartitions: the version negotiation says so
        topic = unique("np")
        self.a.create_topics([NewTopic(topic, 1, 1)])[topic].result(TIMEOUT)
        try:
            with self.assertRaises(KafkaException) as cm:
                self.a.create_partitions([NewPartitions(topic, 2)])[topic].result(TIMEOUT)
            self.assertEqual(cm.exception.args[0].code(), KafkaError._UNSUPPORTED_FEATURE)
        finally:
            self.a.delete_topics([topic])[topic].result(TIMEOUT)

    def test_validate_only_creates_nothing(self):
        topic = unique("vo")
        self.assertIsNone(self.a.create_topics([NewTopic(topic, 1, 1)], validate_only=True)[topic].result(TIMEOUT))
        self.assertNotIn(topic, self.a.list_topics(timeout=10).topics)

    def test_describe_cluster(self):
        d = self.a.describe_cluster().result(TIMEOUT)
        self.assertTrue(d.nodes)
        host, port = BROKER.rsplit(":", 1)
        self.assertIn(int(port), [n.port for n in d.nodes])


HEADER = os.path.join(os.path.dirname(__file__), "..", "..", "..", "include", "gregor.h")


class Loading(unittest.TestCase):
    @unittest.skipUnless(os.path.exists(HEADER), "needs the source tree's include/gregor.h")
    def test_declared_signatures_match_the_header(self):
        """Every function the bindings declare has the header's arity and kinds
        (pointer vs integer vs struct by value) in every position."""
        import ctypes
        import re

        from gregor._lib import EXTRA, SIGNATURES

        with open(HEADER) as f:
            text = f.read()
        protos = {}
        for m in re.finditer(r"^([A-Za-z_][\w \*]*?\**)\s*\b(gregor_\w+)\((.*?)\);", text, re.M | re.S):
            ret, name, args = m.group(1).strip(), m.group(2), " ".join(m.group(3).split())
            params = [] if args in ("", "void") else [a.strip() for a in args.split(",")]
            protos[name] = (ret, params)

        def kind_c(decl):
            if "*" in decl:
                return "ptr"
            if re.search(r"\b(gregor_slice|gregor_delivery_report)\b", decl):
                return "struct"
            if re.search(r"\bgregor_\w+_cb\b", decl):
                return "ptr"
            return "void" if decl.split()[0] == "void" and len(decl.split()) == 1 else "int"

        def kind_py(t):
            if t is None:
                return "void"
            if isinstance(t, type) and issubclass(t, ctypes.Structure):
                return "struct"
            if t in (ctypes.c_void_p, ctypes.c_char_p) or (isinstance(t, type) and issubclass(
                    t, (ctypes._Pointer, ctypes._CFuncPtr))):
                return "ptr"
            return "int"

        checked = 0
        for name, (ret, args) in {**SIGNATURES, **EXTRA}.items():
            if name not in protos:
                continue  # a function of a later library version (bound lazily)
            cret, cparams = protos[name]
            self.assertEqual(len(args), len(cparams), f"{name}: argument count")
            for i, (a, c) in enumerate(zip(args, cparams)):
                self.assertEqual(kind_py(a), kind_c(c), f"{name}: argument {i} ({c})")
                if kind_c(c) == "int":
                    ctype = c.split()[-2] if len(c.split()) > 1 else c
                    size = {"int": 4, "int32_t": 4, "int64_t": 8, "size_t": 8, "double": 8}.get(ctype)
                    if size:
                        self.assertEqual(ctypes.sizeof(a), size, f"{name}: argument {i} ({c}) width")
            self.assertEqual(kind_py(ret), kind_c(cret), f"{name}: return type {cret}")
            if kind_c(cret) == "int":
                size = {"int": 4, "int32_t": 4, "int64_t": 8, "size_t": 8}.get(cret.split()[-1])
                if size:
                    self.assertEqual(ctypes.sizeof(ret), size, f"{name}: return width")
            checked += 1
        self.assertGreater(checked, 150)

    def test_missing_symbol_fails_only_at_call_time(self):
        from gregor._lib import EXTRA

        EXTRA["gregor_no_such_function"] = (None, [])
        with self.assertRaises(KafkaException) as cm:
            lib.gregor_no_such_function()
        self.assertEqual(cm.exception.args[0].code(), KafkaError._NOT_IMPLEMENTED)
        self.assertIn("gregor_no_such_function", cm.exception.args[0].str())

    def test_version(self):
        self.assertEqual(gregor.libversion()[0], lib.gregor_version().decode())


if __name__ == "__main__":
    unittest.main(verbosity=2)
