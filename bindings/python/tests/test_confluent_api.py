"""Tests of the confluent-kafka API surface gregor's Python binding offers
as a drop-in: Message, Messages, serialization, the serializing
clients, the client errors, cimpl, partitioner functions, context managers,
produce_batch, stats_cb, admin calls and argument checks, offsets_for_times
and close() behaviour.

    PYTHONPATH=bindings/python GREGOR_LIBRARY=target/debug/libgregor.so \
        python3 bindings/python/tests/test_confluent_api.py

The classes named ...Broker need the broker at $GREGOR_TEST_BROKER
(default 127.0.0.1:9092); the others need none.
"""

import concurrent.futures
import json
import os
import pickle
import time
import unittest
import uuid

import gregor
from gregor import (Consumer, DeserializingConsumer, KafkaError, KafkaException, Message, Messages, Producer,
                    SerializingProducer, TopicCollection, TopicPartition)
from gregor.admin import (AdminClient, ConfigEntry, ConfigResource, ElectionType, NewTopic, OffsetSpec,
                          ResourceType, ScramCredentialInfo, ScramMechanism, UserScramCredentialDeletion,
                          UserScramCredentialUpsertion)
from gregor.error import (ConsumeError, KeySerializationError, ProduceError, ValueDeserializationError,
                          ValueSerializationError)
from gregor.serialization import (DoubleDeserializer, DoubleSerializer, IntegerDeserializer, IntegerSerializer,
                                  MessageField, SerializationContext, StringDeserializer, StringSerializer)

BROKER = os.environ.get("GREGOR_TEST_BROKER", "127.0.0.1:9092")
TIMEOUT = 60
# a port nothing listens on: connections are refused at once
NOWHERE = "127.0.0.1:1"


def unique(prefix):
    return f"pyconf-{prefix}-{os.getpid()}-{uuid.uuid4().hex[:10]}"


class MessageApi(unittest.TestCase):
    def test_constructor_normalises_as_confluent_kafka(self):
        m = Message("t", -5, -7, b"k", b"v", [("h", b"1")], None, (1, 42), 0.25, -3, 4)
        self.assertEqual((m.topic(), m.key(), m.value(), m.headers()), ("t", b"k", b"v", [("h", b"1")]))
        self.assertIsNone(m.partition())
        self.assertIsNone(m.offset())
        self.assertIsNone(m.leader_epoch())
        self.assertEqual(m.timestamp(), (1, 42))
        self.assertEqual(m.latency(), 0.25)
        self.assertEqual(m.delivery_count(), 4)
        self.assertEqual(len(m), 1)
        e = Message()
        self.assertEqual(e.__reduce__(), (Message, (None, -1, -1001, None, None, None, None, (0, 0), -1.0, -1, -1)))
        self.assertIsNone(e.latency())

    def test_argument_types(self):
        with self.assertRaises(TypeError):
            Message(timestamp=5)
        with self.assertRaises(TypeError):
            Message(partition="1")
        with self.assertRaises(OverflowError):
            Message(delivery_count=1 << 15)
        for fn in (Message.topic, Message.value, Message.offset, Message.latency):
            with self.assertRaises(TypeError):
                fn(object())
        with self.assertRaises(TypeError):
            Message.set_key(None, b"k")

    def test_setters_pickle_equality(self):
        m = Message("t", 1, 2, b"k", b"v", None, None, (1, 5), 0.5, 3)
        m.set_topic("u")
        m.set_error(KafkaError(KafkaError._PARTITION_EOF))
        r = pickle.loads(pickle.dumps(m))
        self.assertIsNot(r, m)
        self.assertEqual(r, m)
        self.assertEqual(r.error(), KafkaError._PARTITION_EOF)
        self.assertEqual((r.topic(), r.partition(), r.offset(), r.latency()), ("u", 1, 2, 0.5))
        r.set_value(b"other")
        self.assertNotEqual(r, m)
        self.assertNotEqual(m, 1)
        with self.assertRaises(TypeError):
            m < r  # noqa: B015
        with self.assertRaises(TypeError):
            hash(m)

    def test_messages_is_a_read_only_sequence(self):
        ms = [Message("t", 0, i) for i in range(3)]
        b = Messages(ms)
        self.assertEqual((len(b), b.count(), b.is_empty()), (3, 3, False))
        self.assertIsInstance(b[1:], Messages)
        self.assertEqual(list(b[1:]), ms[1:])
        self.assertFalse(hasattr(b, "append"))
        out = b.records()
        out.append(Message())
        self.assertEqual(b.count(), 3)
        self.assertEqual(repr(Messages()), "Messages([])")


class NamesAndErrors(unittest.TestCase):
    def test_cimpl_and_top_level_names_are_the_same_objects(self):
        from gregor import cimpl

        for name in ("Message", "Producer", "Consumer", "KafkaError", "KafkaException", "TopicPartition",
                     "murmur2", "OFFSET_END"):
            self.assertIs(getattr(cimpl, name), getattr(gregor, name), name)
        self.assertIsInstance(gregor.version(), str)
        self.assertIn("Messages", gregor.__all__)

    def test_client_errors(self):
        ce = ConsumeError(KafkaError(KafkaError._PARTITION_EOF), exception=ValueError("x"))
        self.assertEqual((ce.code, ce.name), (KafkaError._PARTITION_EOF, "_PARTITION_EOF"))
        self.assertIsInstance(ce.exception, ValueError)
        ke = KeySerializationError(ValueError("bad key"))
        self.assertIsInstance(ke, ProduceError)
        self.assertEqual(ke.code, KafkaError._KEY_SERIALIZATION)
        self.assertEqual(ke.args[0].str(), "bad key")
        self.assertEqual(KafkaError(KafkaError._VALUE_DESERIALIZATION).str(), "Local: Value deserialization error")
        self.assertEqual(KafkaError(12345).str(), "Err-12345?")

    def test_share_consumers_refuse_naming_kip_932(self):
        for cls in (gregor.ShareConsumer, gregor.DeserializingShareConsumer):
            with self.assertRaises(KafkaException) as cm:
                cls({"group.id": "g", "bootstrap.servers": BROKER})
            self.assertEqual(cm.exception.args[0].code(), KafkaError._NOT_IMPLEMENTED)
            self.assertIn("KIP-932", str(cm.exception))

    def test_avro_names_import_but_refuse(self):
        from gregor.avro import AvroConsumer, AvroProducer

        for cls in (AvroProducer, AvroConsumer):
            with self.assertRaises(ImportError):
                cls({"bootstrap.servers": BROKER})


class Serialization(unittest.TestCase):
    def test_round_trips(self):
        ctx = SerializationContext("t", MessageField.VALUE)
        for ser, de, v in ((StringSerializer(), StringDeserializer(), "Småland"),
                           (IntegerSerializer(), IntegerDeserializer(), -123456),
                           (DoubleSerializer(), DoubleDeserializer(), 2.5)):
            self.assertEqual(de(ser(v, ctx), ctx), v)
            self.assertIsNone(ser(None, ctx))
        self.assertEqual(IntegerSerializer()(1), b"\x00\x00\x00\x01")  # Kafka's big-endian int32
        self.assertEqual(str(MessageField.KEY), "key")

    def test_serializing_producer_wraps_serializer_errors(self):
        p = SerializingProducer({"bootstrap.servers": BROKER, "key.serializer": IntegerSerializer(),
                                 "value.serializer": StringSerializer()})
        with self.assertRaises(KeySerializationError):
            p.produce("t", key="not an int", value="v")
        with self.assertRaises(ValueSerializationError):
            p.produce("t", key=1, value=5)
        self.assertEqual(len(p), 0)


class Partitioners(unittest.TestCase):
    def test_same_partitions_as_librdkafka(self):
        # librdkafka 2.16's partitions (through confluent-kafka's functions)
        # for these keys among 7 and 1000 partitions
        expect = {
            b"": ((2, 0, 2), (681, 0, 35)),
            b"a": ((5, 4, 6), (524, 907, 76)),
            b"kafka": ((3, 6, 4), (580, 399, 545)),
            b"gregor-key-1": ((1, 3, 4), (568, 257, 215)),
        }
        fns = (gregor.murmur2, gregor.consistent, gregor.fnv1a)
        for key, (p7, p1000) in expect.items():
            self.assertEqual(tuple(f(key, 7) for f in fns), p7, key)
            self.assertEqual(tuple(f(key, 1000) for f in fns), p1000, key)

    def test_argument_checks(self):
        with self.assertRaises(ValueError):
            gregor.murmur2(b"k", 0)
        with self.assertRaises(TypeError):
            gregor.murmur2("k", 3)
        with self.assertRaises(TypeError):
            gregor.fnv1a(b"k", "3")


class ClientLifecycle(unittest.TestCase):
    def test_producer_context_manager_and_closed_errors(self):
        with Producer({"bootstrap.servers": NOWHERE, "message.timeout.ms": 10}) as p:
            p.produce("t", b"v")
        with self.assertRaisesRegex(RuntimeError, "Producer has been closed"):
            p.produce("t", b"v")
        self.assertEqual(len(p), 0)
        self.assertTrue(p.close())

    def test_uninitialised_subclasses(self):
        class P(Producer):
            def __init__(self, conf):
                pass

        class C(Consumer):
            def __init__(self, conf):
                pass

        class A(AdminClient):
            def __init__(self, conf):
                pass

        with self.assertRaisesRegex(RuntimeError, "Producer has been closed"):
            P({}).flush()
        with self.assertRaisesRegex(RuntimeError, "Consumer closed"):
            C({}).poll(0)
        with self.assertRaisesRegex(RuntimeError, "AdminClient has been closed"):
            A({}).create_topics([NewTopic("t", 1, 1)])
        self.assertEqual(len(P({})), 0)

    def test_config_dict_required_and_none_unset(self):
        with self.assertRaisesRegex(TypeError, "expected configuration dict"):
            Producer()
        p = Producer({"bootstrap.servers": NOWHERE, "client.id": None,
                      "default.topic.config": {"message.timeout.ms": 1000}})
        p.close(0)

    def test_produce_batch_checks_and_queue_full(self):
        p = Producer({"bootstrap.servers": NOWHERE, "queue.buffering.max.messages": 2, "message.timeout.ms": 100})
        with self.assertRaisesRegex(TypeError, "messages must be a list"):
            p.produce_batch("t", "nope")
        with self.assertRaisesRegex(TypeError, "Message value at index 0 must be bytes or str"):
            p.produce_batch("t", [{"value": 1}])
        with self.assertRaises(NotImplementedError):
            p.produce_batch("t", [{"value": b"x", "timestamp": 5}])
        self.assertEqual(len(p), 0, "a rejected batch queues nothing")
        msgs = [{"value": b"x%d" % i} for i in range(4)]
        self.assertEqual(p.produce_batch("t", msgs), 2)
        self.assertEqual([("_error" in m) for m in msgs], [False, False, True, True])
        self.assertEqual(msgs[2]["_error"].code(), KafkaError._QUEUE_FULL)
        p.close(1)


class AdminChecks(unittest.TestCase):
    def setUp(self):
        self.a = AdminClient({"bootstrap.servers": NOWHERE, "socket.timeout.ms": 10})

    def tearDown(self):
        self.a.close()

    def test_type_and_value_errors_as_confluent_kafka(self):
        a = self.a
        with self.assertRaises(TypeError):
            a.create_topics([NewTopic("t", 1, 1)], validate_only="maybe")
        with self.assertRaises(ValueError):
            a.create_topics([NewTopic("t", 1, 1)], request_timeout=-5)
        with self.assertRaises(TypeError):
            a.create_partitions(None)
        with self.assertRaises(ValueError):
            a.delete_topics([None, "t"])
        with self.assertRaises(ValueError):
            a.describe_configs([None, ConfigResource(ResourceType.TOPIC, "t")])
        with self.assertRaises(TypeError):
            a.incremental_alter_configs([ConfigResource(ResourceType.BROKER, "1", incremental_configs=[
                ConfigEntry("x", "y", incremental_operation="NOPE")])])
        with self.assertRaises(TypeError):
            a.describe_topics(["t"])
        with self.assertRaises(ValueError):
            a.describe_topics(TopicCollection([""]))
        self.assertEqual(a.describe_topics(TopicCollection([])), {})
        with self.assertRaisesRegex(TypeError, "Expected Request to be a list, got 'int'"):
            a.delete_records(1)
        with self.assertRaises(ValueError):
            a.delete_records([TopicPartition("t")])
        with self.assertRaises(TypeError):
            a.elect_leaders("PREFERRED", [TopicPartition("t", 0)])
        with self.assertRaises(TypeError):
            a.list_offsets({TopicPartition("t", 0): "latest"})
        with self.assertRaises(ValueError):
            a.alter_user_scram_credentials([UserScramCredentialUpsertion(
                "u", ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 0), b"pw")])
        with self.assertRaises(TypeError):
            a.alter_user_scram_credentials([UserScramCredentialDeletion("u", "SCRAM-SHA-256")])
        with self.assertRaises(TypeError):
            a.list_consumer_groups(states=["EMPTY"])

    def test_unreachable_broker_fails_at_the_request_timeout(self):
        # librdkafka's admin requests wait for a broker until their request
        # timeout, then fail with _TIMED_OUT; an operation timeout does not
        # extend that wait
        t0 = time.monotonic()
        fs = self.a.create_topics([NewTopic("t", 1, 1)], request_timeout=0.5, operation_timeout=300)
        e = fs["t"].exception(timeout=5)
        self.assertIsInstance(e, KafkaException)
        self.assertEqual(e.args[0].code(), KafkaError._TIMED_OUT)
        self.assertLess(time.monotonic() - t0, 3)
        for f in self.a.describe_topics(TopicCollection(["t"]), request_timeout=0.2).values():
            self.assertEqual(f.exception(timeout=5).args[0].code(), KafkaError._TIMED_OUT)

    def test_context_manager_closes(self):
        with AdminClient({"bootstrap.servers": NOWHERE}) as a:
            self.assertEqual(a.poll(0), 0)
        with self.assertRaisesRegex(RuntimeError, "AdminClient has been closed"):
            a.poll(0)
        with self.assertRaisesRegex(RuntimeError, "Handle has been closed"):
            a.list_topics()

    def test_offset_specs(self):
        self.assertIs(OffsetSpec.earliest(), OffsetSpec(-2))
        self.assertIs(OffsetSpec.latest(), OffsetSpec(-1))
        self.assertEqual(OffsetSpec.for_timestamp(17)._value, 17)
        self.assertLess(OffsetSpec.max_timestamp(), OffsetSpec.earliest())


class WithBroker(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.a = AdminClient({"bootstrap.servers": BROKER})

    @classmethod
    def tearDownClass(cls):
        cls.a.close()

    def topic(self, partitions=2):
        t = unique("t")
        self.a.create_topics([NewTopic(t, partitions, 1)])[t].result(TIMEOUT)
        return t

    def test_produce_batch_delivers_with_headers(self):
        t = self.topic(1)
        reports = []
        p = Producer({"bootstrap.servers": BROKER})
        n = p.produce_batch(t, [{"value": b"a", "key": "k"}, {"value": "b", "headers": [("h", b"1")]}],
                            partition=0, on_delivery=lambda err, msg: reports.append((err, msg.value())))
        self.assertEqual(n, 2)
        self.assertEqual(p.flush(TIMEOUT), 0)
        self.assertEqual(sorted(reports), [(None, b"a"), (None, b"b")])
        c = DeserializingConsumer({"bootstrap.servers": BROKER, "group.id": unique("g"),
                                   "value.deserializer": StringDeserializer(), "auto.offset.reset": "earliest"})
        try:
            c.assign([TopicPartition(t, 0, 0)])
            got = []
            deadline = time.time() + TIMEOUT
            while len(got) < 2 and time.time() < deadline:
                m = c.poll(0.5)
                if m is not None:
                    got.append((m.value(), m.headers()))
            self.assertEqual(got, [("a", None), ("b", [("h", b"1")])])
        finally:
            c.close()

    def test_admin_topics_offsets_records_leaders(self):
        t = self.topic(2)
        p = Producer({"bootstrap.servers": BROKER})
        for i in range(5):
            p.produce(t, b"v%d" % i, partition=0)
        p.flush(TIMEOUT)
        d = self.a.describe_topics(TopicCollection([t]))[t].result(TIMEOUT)
        self.assertEqual((d.name, len(d.partitions)), (t, 2))
        self.assertIsNotNone(d.partitions[0].leader.host)
        tp0 = TopicPartition(t, 0)
        res = self.a.list_offsets({tp0: OffsetSpec.latest(), TopicPartition(t, 1): OffsetSpec.earliest()})
        self.assertEqual(res[tp0].result(TIMEOUT).offset, 5)
        self.assertEqual(res[TopicPartition(t, 1)].result(TIMEOUT).offset, 0)
        dr = self.a.delete_records([TopicPartition(t, 0, 3)])[tp0].result(TIMEOUT)
        self.assertEqual(dr.low_watermark, 3)
        self.assertEqual(self.a.list_offsets({tp0: OffsetSpec.earliest()})[tp0].result(TIMEOUT).offset, 3)
        # the single replica is the preferred leader already: per partition,
        # an ELECTION_NOT_NEEDED error (or None); a broker without
        # ElectLeaders (the test broker) fails the call as unsupported
        try:
            el = self.a.elect_leaders(ElectionType.PREFERRED, [tp0]).result(TIMEOUT)
        except KafkaException as e:
            self.assertEqual(e.args[0].code(), KafkaError._UNSUPPORTED_FEATURE)
            return
        self.assertIn(tp0, el)
        if el[tp0] is not None:
            self.assertEqual(el[tp0].args[0].code(), KafkaError.ELECTION_NOT_NEEDED)

    def test_offsets_for_times_reports_unknown_partitions_per_partition(self):
        t = self.topic(1)
        p = Producer({"bootstrap.servers": BROKER})
        p.produce(t, b"x", partition=0)
        p.flush(TIMEOUT)
        c = Consumer({"bootstrap.servers": BROKER, "group.id": unique("g")})
        try:
            out = c.offsets_for_times([TopicPartition(t, 0, 0), TopicPartition(t, 7, 0)], timeout=TIMEOUT)
            self.assertEqual(out[0].offset, 0)
            self.assertIsNone(out[0].error)
            self.assertIsNotNone(out[1].error)
        finally:
            c.close()

    def test_close_runs_on_revoke_which_may_unassign(self):
        t = self.topic(1)
        c = Consumer({"bootstrap.servers": BROKER, "group.id": unique("g"), "session.timeout.ms": 6000})
        assigned, revoked = [], []

        def on_revoke(consumer, parts):
            revoked.append(parts)
            consumer.unassign()  # confluent-kafka allows it here, during close()

        c.subscribe([t], on_assign=lambda cons, parts: assigned.append(parts), on_revoke=on_revoke)
        deadline = time.time() + TIMEOUT
        while not assigned and time.time() < deadline:
            c.poll(0.2)
        self.assertTrue(assigned)
        c.close()
        self.assertTrue(revoked)
        with self.assertRaisesRegex(RuntimeError, "Consumer closed"):
            c.poll(0)

    def test_lost_partitions_go_to_on_revoke_without_on_lost(self):
        # exceeding max.poll.interval.ms leaves the group: the partitions are
        # lost; confluent-kafka hands them to on_revoke when there is no on_lost
        for with_lost in (False, True):
            t = self.topic(1)
            ev = []
            c = Consumer({"bootstrap.servers": BROKER, "group.id": unique("g"), "session.timeout.ms": 6000,
                          "max.poll.interval.ms": 1500})
            cbs = {"on_assign": lambda cons, p: ev.append("assign"),
                   "on_revoke": lambda cons, p: ev.append(("revoke", [tp.partition for tp in p]))}
            if with_lost:
                cbs["on_lost"] = lambda cons, p: ev.append(("lost", [tp.partition for tp in p]))
            c.subscribe([t], **cbs)
            try:
                deadline = time.time() + TIMEOUT
                while not ev and time.time() < deadline:
                    c.poll(0.2)
                self.assertEqual(ev, ["assign"])
                time.sleep(3)
                deadline = time.time() + TIMEOUT
                while len(ev) < 2 and time.time() < deadline:
                    c.poll(0.2)
                self.assertEqual(ev[1], ("lost" if with_lost else "revoke", [0]))
            finally:
                c.close()

    def test_stats_cb_gets_json(self):
        seen = []
        p = Producer({"bootstrap.servers": BROKER, "statistics.interval.ms": 100,
                      "stats_cb": lambda s: seen.append(json.loads(s))})
        deadline = time.time() + TIMEOUT
        while not seen and time.time() < deadline:
            p.poll(0.2)
        self.assertTrue(seen)
        self.assertIn("name", seen[0])

        def boom(_):
            raise RuntimeError("from stats_cb")

        p2 = Producer({"bootstrap.servers": BROKER, "statistics.interval.ms": 100, "stats_cb": boom})
        with self.assertRaisesRegex(RuntimeError, "from stats_cb"):
            deadline = time.time() + TIMEOUT
            while time.time() < deadline:
                p2.poll(0.2)

    def test_scram_credentials(self):
        user = unique("u")
        info = ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 4096)
        f = self.a.alter_user_scram_credentials([UserScramCredentialUpsertion(user, info, b"secret")])[user]
        try:
            f.result(TIMEOUT)
        except KafkaException as e:
            # a broker without SCRAM admin answers with its typed error, per user
            self.assertNotEqual(e.args[0].code(), KafkaError._TIMED_OUT)
            return
        d = self.a.describe_user_scram_credentials([user])[user].result(TIMEOUT)
        self.assertEqual([(i.mechanism, i.iterations) for i in d.scram_credential_infos],
                         [(ScramMechanism.SCRAM_SHA_256, 4096)])
        self.a.alter_user_scram_credentials([UserScramCredentialDeletion(
            user, ScramMechanism.SCRAM_SHA_256)])[user].result(TIMEOUT)


class SaslCredentials(unittest.TestCase):
    """Against the SCRAM listener ($GREGOR_TEST_BROKER_SASL, default
    127.0.0.1:9094; users made by scripts/services.sh)."""

    SASL = os.environ.get("GREGOR_TEST_BROKER_SASL", "127.0.0.1:9094")

    def conf(self, password):
        return {"bootstrap.servers": self.SASL, "security.protocol": "sasl_plaintext",
                "sasl.mechanisms": "SCRAM-SHA-256", "sasl.username": "gregor256", "sasl.password": password}

    def test_set_sasl_credentials_serves_the_next_authentication(self):
        p = Producer(self.conf("not-the-password"))
        with self.assertRaises(KafkaException):
            p.list_topics(timeout=5)
        p.set_sasl_credentials("gregor256", "gregor-pw-256")
        reports = []
        p.produce(unique("sasl"), b"v", on_delivery=lambda err, msg: reports.append(err))
        self.assertEqual(p.flush(TIMEOUT), 0)
        self.assertEqual(reports, [None])
        a = AdminClient(self.conf("not-the-password"))
        a.set_sasl_credentials("gregor256", "gregor-pw-256")
        self.assertGreater(len(a.list_topics(timeout=TIMEOUT).brokers), 0)
        a.close()

    def test_argument_types(self):
        for client in (Producer({"bootstrap.servers": NOWHERE}),
                       Consumer({"bootstrap.servers": NOWHERE, "group.id": "g"}),
                       AdminClient({"bootstrap.servers": NOWHERE})):
            client.set_sasl_credentials("u", "p")  # kept even without SASL configured, as librdkafka
            with self.assertRaises(TypeError):
                client.set_sasl_credentials(None, "p")
            with self.assertRaises(TypeError):
                client.set_sasl_credentials("u", None)
            client.close()


if __name__ == "__main__":
    unittest.main(verbosity=2)
