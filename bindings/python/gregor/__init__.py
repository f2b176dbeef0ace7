"""gregor for Python: confluent-kafka's API over libgregor.

Changing ``import confluent_kafka`` to ``import gregor`` (and
``confluent_kafka.admin`` to ``gregor.admin``) is enough for the core:
``Producer``, ``Consumer``, ``Message``, ``TopicPartition``, ``KafkaError``,
``KafkaException`` and ``admin.AdminClient``. Callbacks (delivery reports,
rebalances, commits) run on the thread that calls ``poll``/``flush``/
``consume``/``close``, as in confluent-kafka.

The per-message paths (``Producer.produce`` / ``poll`` / ``flush`` and
``Consumer.poll`` / ``consume``, with delivery-report dispatch and Message
construction) are the compiled extension ``gregor._native`` (src/*.c,
built by pip with the system compiler); the rest goes through ctypes.
"""

import ctypes
from ctypes import byref, c_int, c_int64, c_void_p

# OAUTH_CB and LOG_CB are not used here any more, but stay names of gregor
from ._conf import OAUTH_CB, _make_config, _merge_conf, _pop_logger, _pop_oauth_cb, _set_oauth_cb  # noqa: F401
from ._lib import (  # noqa: F401
    COMMIT_CB,
    LOG_CB,
    REBALANCE_CB,
    cstr,
    cstr_array,
    errbuf,
    lib,
    ms,
    pystr,
    to_bytes,
)
from .error import KafkaError, KafkaException, raise_for
from .events import ThrottleEvent, install as _install_events, pop_callbacks as _pop_event_cbs
from .events import raise_for_error_object as _raise_txn

try:
    from . import _native
except ImportError as _e:  # pragma: no cover - a source checkout without `pip install`
    raise ImportError(
        "gregor: the compiled module gregor._native is missing; install the package with "
        "`pip install bindings/python` (needs a C compiler and Python's headers), or build it in place with "
        "`python3 setup.py build_ext --inplace` in bindings/python: " + str(_e)
    ) from None

__all__ = [
    "Producer",
    "Consumer",
    "Message",
    "TopicPartition",
    "KafkaError",
    "KafkaException",
    "ThrottleEvent",
    "ClusterMetadata",
    "TopicMetadata",
    "PartitionMetadata",
    "BrokerMetadata",
    "version",
    "libversion",
    "OFFSET_BEGINNING",
    "OFFSET_END",
    "OFFSET_STORED",
    "OFFSET_INVALID",
    "TIMESTAMP_NOT_AVAILABLE",
    "TIMESTAMP_CREATE_TIME",
    "TIMESTAMP_LOG_APPEND_TIME",
]

OFFSET_BEGINNING = -2
OFFSET_END = -1
OFFSET_STORED = -1000
OFFSET_INVALID = -1001
TIMESTAMP_NOT_AVAILABLE = 0
TIMESTAMP_CREATE_TIME = 1
TIMESTAMP_LOG_APPEND_TIME = 2



def version():
    """The version string of these bindings (the library's), as
    confluent-kafka's version() returns its own version string."""
    return pystr(lib.gregor_version())


def libversion():
    """(version string, int) of the loaded libgregor."""
    v = pystr(lib.gregor_version())
    return v, _vint(v)


def _vint(v):
    parts = (v.split("-")[0].split(".") + ["0", "0", "0"])[:3]
    try:
        a, b, c = (int(x) for x in parts)
    except ValueError:
        return 0
    return (a << 24) | (b << 16) | (c << 8)


def config_dump(conf=None, **kwargs):
    """The effective configuration a client made from ``conf`` would have:
    every property (canonical names) with its value or default, as a dict
    of strings, checked as a client checks it (librdkafka's
    ``rd_kafka_conf_dump``). Secrets (``sasl.password``,
    ``ssl.key.password``, ``ssl.key.pem``, ``sasl.oauthbearer.*`` secrets
    and tokens, ...) read ``"[redacted]"``, set or not. Callback entries
    (``on_delivery``, ``error_cb``, ...) are left out."""
    conf = {k: v for k, v in _merge_conf(conf, kwargs).items() if not callable(v)}
    for k in ("on_delivery", "on_commit", "delivery.report.callback", "logger"):
        conf.pop(k, None)
    h = _make_config(conf, "config")
    try:
        n = ctypes.c_size_t(0)
        arr = lib.gregor_config_dump(h, ctypes.byref(n))
        if not arr:
            raise KafkaException(KafkaError(KafkaError._FAIL, "gregor_config_dump failed"))
        try:
            strs = ctypes.cast(arr, ctypes.POINTER(ctypes.c_char_p))
            return {strs[i].decode(): strs[i + 1].decode() for i in range(0, n.value, 2)}
        finally:
            lib.gregor_config_dump_free(arr, n)
    finally:
        lib.gregor_config_free(h)


__all__.append("config_dump")


def _ranged(v, bits, what):
    """int(v), or OverflowError when a signed C integer of `bits` bits cannot hold it."""
    v = int(v)
    if not -(1 << (bits - 1)) <= v < (1 << (bits - 1)):
        raise OverflowError(f"{what} {v} is out of range of int{bits}_t")
    return v


class TopicPartition:
    """A topic, partition and offset (plus metadata, leader epoch and error)."""

    __slots__ = ("topic", "partition", "offset", "metadata", "leader_epoch", "error")

    def __init__(self, topic, partition=-1, offset=OFFSET_INVALID, metadata=None, leader_epoch=None):
        if not isinstance(topic, str):
            raise TypeError("topic must be str")
        self.topic = topic
        # as confluent-kafka (int32_t partition, int64_t offset in C): a
        # value C cannot hold is an OverflowError, never a truncated one
        self.partition = _ranged(partition, 32, "partition")
        self.offset = _ranged(offset, 64, "offset")
        self.metadata = metadata
        self.leader_epoch = leader_epoch
        self.error = None

    def _key(self):
        return (self.topic, self.partition)

    def __eq__(self, other):
        if not isinstance(other, TopicPartition):
            return NotImplemented
        return self._key() == other._key()

    def __lt__(self, other):
        if not isinstance(other, TopicPartition):
            return NotImplemented
        return self._key() < other._key()

    def __le__(self, other):
        if not isinstance(other, TopicPartition):
            return NotImplemented
        return self._key() <= other._key()

    def __gt__(self, other):
        if not isinstance(other, TopicPartition):
            return NotImplemented
        return self._key() > other._key()

    def __ge__(self, other):
        if not isinstance(other, TopicPartition):
            return NotImplemented
        return self._key() >= other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return (
            f"TopicPartition{{topic={self.topic},partition={self.partition},offset={self.offset},"
            f"leader_epoch={self.leader_epoch},error={self.error!r}}}"
        )

    __str__ = __repr__


def _tpl_from(partitions, with_offsets=True, check_only=False):
    """A gregor_tpl from a list of TopicPartition (caller frees); with
    ``check_only`` only the TypeError checks."""
    if partitions is None:
        raise TypeError("expected list of TopicPartition")
    if isinstance(partitions, TopicPartition):
        raise TypeError("expected list of TopicPartition")
    if check_only:
        for tp in partitions:
            if not isinstance(tp, TopicPartition):
                raise TypeError("expected list of TopicPartition")
        return None
    h = lib.gregor_tpl_new()
    try:
        for i, tp in enumerate(partitions):
            if not isinstance(tp, TopicPartition):
                raise TypeError("expected list of TopicPartition")
            off = tp.offset if with_offsets else OFFSET_INVALID
            rc = lib.gregor_tpl_add(h, cstr(tp.topic), tp.partition, off)
            raise_for(rc, reason=f"invalid partition {tp.topic} [{tp.partition}]")
            if tp.leader_epoch is not None and tp.leader_epoch >= 0:
                lib.gregor_tpl_set_leader_epoch(h, i, tp.leader_epoch)
            if tp.metadata is not None:
                lib.gregor_tpl_set_metadata(h, i, cstr(tp.metadata))
    except BaseException:
        lib.gregor_tpl_free(h)
        raise
    return h


def _tpl_to_list(h):
    """A list of TopicPartition from a gregor_tpl (borrowed)."""
    out = []
    has_md = lib.has("gregor_tpl_metadata")
    for i in range(lib.gregor_tpl_count(h)):
        tp = TopicPartition(
            pystr(lib.gregor_tpl_topic(h, i)), lib.gregor_tpl_partition(h, i), lib.gregor_tpl_offset(h, i)
        )
        ep = lib.gregor_tpl_leader_epoch(h, i)
        tp.leader_epoch = ep if ep >= 0 else None
        err = lib.gregor_tpl_err(h, i)
        if err:
            eb = errbuf()
            lib.gregor_tpl_errstr(h, i, eb, len(eb))
            tp.error = KafkaError(err, pystr(eb.value) or None)
        if has_md:
            md = lib.gregor_tpl_metadata(h, i)
            tp.metadata = pystr(md) if md else None
        out.append(tp)
    return out


_SLOTS = ("_topic", "_partition", "_offset", "_key", "_value", "_headers", "_timestamp", "_error",
          "_leader_epoch", "_latency", "_delivery_count")


def _not_message(self):
    return TypeError(f"descriptor requires a 'Message' object but received {type(self).__name__!r}")


class Message:
    """A consumed message, a delivery report's message, or an error event.

    ``Message(topic, partition, offset, key, value, headers, error, timestamp,
    latency, leader_epoch, delivery_count)``, every argument optional, builds
    one for tests, normalised as confluent-kafka does: a negative partition
    is -1 (``partition()`` None), a negative offset OFFSET_INVALID
    (``offset()`` None), a negative leader epoch or latency "none".
    Messages compare equal by topic, value, key, headers, error, partition,
    offset, leader epoch and timestamp (not latency), are not ordered, and
    pickle.
    """

    __slots__ = _SLOTS

    def __new__(cls, *args, **kwargs):
        # Every field set, so a Message made by __new__ alone (as pickle
        # may) reads back as zeros, as confluent-kafka's does.
        self = object.__new__(cls)
        self._topic = self._key = self._value = self._headers = self._error = None
        self._partition = self._offset = self._leader_epoch = self._delivery_count = 0
        self._timestamp = (TIMESTAMP_NOT_AVAILABLE, 0)
        self._latency = 0.0
        return self

    def __init__(self, topic=None, partition=-1, offset=OFFSET_INVALID, key=None, value=None, headers=None,
                 error=None, timestamp=None, latency=-1.0, leader_epoch=-1, delivery_count=-1):
        if not isinstance(self, Message):
            raise _not_message(self)
        partition = _c_int(partition, 32, "partition")
        offset = _c_int(offset, 64, "offset")
        leader_epoch = _c_int(leader_epoch, 32, "leader_epoch")
        delivery_count = _c_int(delivery_count, 16, "delivery_count")
        if latency is None or isinstance(latency, (str, bytes)):
            raise TypeError("latency must be a float")
        latency = float(latency)
        if timestamp is None:
            timestamp = (TIMESTAMP_NOT_AVAILABLE, 0)
        elif not isinstance(timestamp, tuple) or len(timestamp) != 2:
            raise TypeError("timestamp must be a tuple of (int, int)")
        else:
            timestamp = (int(timestamp[0]), int(timestamp[1]))
        self._topic = topic
        self._key = key
        self._value = value
        self._headers = headers
        self._error = error
        self._timestamp = timestamp
        self._partition = -1 if partition < 0 else partition
        self._offset = OFFSET_INVALID if offset < 0 else offset
        self._leader_epoch = -1 if leader_epoch < 0 else leader_epoch
        self._latency = -1.0 if latency < 0 else latency
        self._delivery_count = -1 if delivery_count <= 0 else delivery_count

    # topic(), partition(), offset(), key(), value(), headers(), timestamp(),
    # error(), leader_epoch() and latency() are installed by gregor._native
    # (C method descriptors reading the slots; see setup() at the end).

    def delivery_count(self):
        """How often a share group delivered this record (KIP-932), or None."""
        try:
            n = self._delivery_count
        except AttributeError:
            raise _not_message(self) from None
        return n if n > 0 else None

    def _set(self, name, v):
        if not isinstance(self, Message):
            raise _not_message(self)
        setattr(self, name, v)

    def set_headers(self, headers):
        Message._set(self, "_headers", headers)

    def set_key(self, key):
        Message._set(self, "_key", key)

    def set_value(self, value):
        Message._set(self, "_value", value)

    def set_topic(self, topic):
        Message._set(self, "_topic", topic)

    def set_error(self, error):
        Message._set(self, "_error", error)

    def __len__(self):
        return len(self._value) if self._value is not None else 0

    def __eq__(self, other):
        if self is other:
            return True
        if not isinstance(other, Message):
            return False
        return (self._topic == other._topic and self._value == other._value and self._key == other._key
                and self._headers == other._headers and self._error == other._error
                and self._partition == other._partition and self._offset == other._offset
                and self._leader_epoch == other._leader_epoch and self._timestamp[1] == other._timestamp[1])

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = None

    def __reduce__(self):
        lat = self._latency
        return (Message, (self._topic, self._partition, self._offset, self._key, self._value, self._headers,
                          self._error, self._timestamp, lat if lat is not None and lat >= 0 else -1.0,
                          self._leader_epoch, self._delivery_count))

    def __repr__(self):
        return (f"<gregor.Message topic={self._topic!r} partition={self._partition} offset={self._offset} "
                f"error={self._error!r}>")


def _c_int(v, bits, name):
    """``v`` as a C integer of ``bits`` bits: TypeError for a non-integer,
    OverflowError out of range (as confluent-kafka's argument parsing)."""
    if isinstance(v, bool) or not isinstance(v, int):
        try:
            v = v.__index__()
        except AttributeError:
            raise TypeError(f"{name} must be an integer, not {type(v).__name__}") from None
    lim = 1 << (bits - 1)
    if not -lim <= v < lim:
        raise OverflowError(f"{name} {v} does not fit in {bits} bits")
    return v


class Messages:
    """A read-only batch of Messages (what a share consumer's poll returns):
    a sequence, not a list; slices stay Messages."""

    __slots__ = ("_records",)

    def __init__(self, records=None):
        self._records = list(records) if records is not None else []

    @classmethod
    def _from_list(cls, records):
        m = cls.__new__(cls)
        m._records = records
        return m

    def is_empty(self):
        return not self._records

    def count(self):
        return len(self._records)

    def records(self):
        """The messages as a new list."""
        return list(self._records)

    def __len__(self):
        return len(self._records)

    def __iter__(self):
        return iter(self._records)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return Messages._from_list(self._records[index])
        return self._records[index]

    def __repr__(self):
        return f"Messages({self._records!r})"


# -- metadata ---------------------------------------------------------------


class BrokerMetadata:
    def __init__(self):
        self.id = -1
        self.host = None
        self.port = -1

    def __repr__(self):
        return f"BrokerMetadata({self.id}, {self.host}:{self.port})"

    def __str__(self):
        return f"{self.host}:{self.port}/{self.id}"


class PartitionMetadata:
    def __init__(self):
        self.id = -1
        self.leader = -1
        self.replicas = []
        self.isrs = []
        self.error = None

    def __repr__(self):
        return f"PartitionMetadata({self.id})"


class TopicMetadata:
    def __init__(self):
        self.topic = None
        self.partitions = {}
        self.error = None

    def __repr__(self):
        return f"TopicMetadata({self.topic}, {len(self.partitions)} partitions)"

    def __str__(self):
        return str(self.topic)


class ClusterMetadata:
    def __init__(self):
        self.cluster_id = None
        self.controller_id = -1
        self.brokers = {}
        self.topics = {}
        self.orig_broker_id = -1
        self.orig_broker_name = None

    def __repr__(self):
        return f"ClusterMetadata({self.cluster_id})"


def _int32s(fn, md, t, p):
    n = fn(md, t, p, None, 0)
    arr = (ctypes.c_int32 * max(n, 1))()
    n = fn(md, t, p, arr, n)
    return list(arr[:n])


def _metadata(md):
    cm = ClusterMetadata()
    cm.cluster_id = pystr(lib.gregor_metadata_cluster_id(md))
    cm.controller_id = lib.gregor_metadata_controller_id(md)
    for i in range(lib.gregor_metadata_broker_count(md)):
        b = BrokerMetadata()
        b.id = lib.gregor_metadata_broker_id(md, i)
        b.host = pystr(lib.gregor_metadata_broker_host(md, i))
        b.port = lib.gregor_metadata_broker_port(md, i)
        cm.brokers[b.id] = b
    for t in range(lib.gregor_metadata_topic_count(md)):
        tm = TopicMetadata()
        tm.topic = pystr(lib.gregor_metadata_topic_name(md, t))
        err = lib.gregor_metadata_topic_err(md, t)
        tm.error = KafkaError(err) if err else None
        for p in range(lib.gregor_metadata_partition_count(md, t)):
            pm = PartitionMetadata()
            pm.id = lib.gregor_metadata_partition_id(md, t, p)
            pm.leader = lib.gregor_metadata_partition_leader(md, t, p)
            perr = lib.gregor_metadata_partition_err(md, t, p)
            pm.error = KafkaError(perr) if perr else None
            pm.replicas = _int32s(lib.gregor_metadata_partition_replicas, md, t, p)
            pm.isrs = _int32s(lib.gregor_metadata_partition_isrs, md, t, p)
            tm.partitions[pm.id] = pm
        cm.topics[tm.topic] = tm
    return cm


def _list_topics(fn, handle, topic, timeout):
    out = c_void_p()
    eb = errbuf()
    rc = fn(handle, cstr(topic), ms(timeout), byref(out), eb,
            len(eb))
    if rc == KafkaError._ALL_BROKERS_DOWN:
        # librdkafka's rd_kafka_metadata() answers _TRANSPORT when no broker
        # became usable within the timeout; code written for it checks that
        rc = KafkaError._TRANSPORT
    raise_for(rc, eb)
    try:
        return _metadata(out)
    finally:
        lib.gregor_metadata_free(out)


# -- producer ---------------------------------------------------------------

STATS_CB = ctypes.CFUNCTYPE(None, c_void_p, ctypes.c_char_p, ctypes.c_size_t, c_void_p)
from ._lib import EXTRA as _lib_extra  # noqa: E402
_lib_extra["gregor_producer_set_stats_cb"] = (c_int, [c_void_p, STATS_CB, c_void_p])
_lib_extra["gregor_consumer_set_stats_cb"] = (c_int, [c_void_p, STATS_CB, c_void_p])
for _role in ("producer", "consumer", "admin"):
    _lib_extra[f"gregor_{_role}_set_sasl_credentials"] = (c_int, [c_void_p, ctypes.c_char_p, ctypes.c_char_p])
del _role


def _set_sasl_credentials(fn, ptr, username, password):
    """The SASL user name and password for authentications from now on
    (librdkafka's rd_kafka_sasl_set_credentials); connections already
    authenticated are left alone."""
    if not isinstance(username, str):
        raise TypeError(f"username must be str, not {type(username).__name__}")
    if not isinstance(password, str):
        raise TypeError(f"password must be str, not {type(password).__name__}")
    raise_for(fn(ptr, cstr(username), cstr(password)))


def _pop_stats_cb(conf):
    """Takes ``stats_cb`` out of ``conf``: None or a callable (TypeError otherwise)."""
    cb = conf.pop("stats_cb", None)
    if cb is not None and not callable(cb):
        raise TypeError("expected stats_cb property as a callable function")
    return cb


def _stats_trampoline(client, cb):
    """A C stats callback calling ``cb(json_str)``; an exception is kept for
    the poll call to raise, as confluent-kafka does."""

    def on_stats(_h, json, _n, _opaque):
        try:
            cb(pystr(json))
        except BaseException as e:
            client._keep_error(e)

    return STATS_CB(on_stats)


# gregor_producer_purge's flags (librdkafka's RD_KAFKA_PURGE_F_*)
_PURGE_F_QUEUE = 0x1
_PURGE_F_INFLIGHT = 0x2
_PURGE_F_NON_BLOCKING = 0x4


class _NativeHandle:
    """What the ctypes-side code sees of a client's handle (``.ptr``,
    ``.free()``); the compiled base class owns it and frees it when the
    client is closed or collected."""

    __slots__ = ("_o",)

    def __init__(self, owner):
        self._o = owner

    @property
    def ptr(self):
        return self._o._hptr

    def free(self):
        self._o._hfree()


class Producer(_native.ProducerBase):
    """confluent-kafka's Producer over gregor_producer.

    ``produce``, ``poll``, ``flush`` and ``len()`` are compiled
    (gregor._native.ProducerBase); poll and flush wait in slices of at most
    100 ms, so Ctrl-C interrupts them."""

    _h = property(_NativeHandle)

    def __init__(self, conf=None, **kwargs):
        conf = _merge_conf(conf, kwargs)
        self._default_cb = conf.pop("on_delivery", None) or conf.pop("delivery.report.callback", None)
        self._only_error = str(conf.pop("delivery.report.only.error", False)).lower() in ("true", "1")
        error_cb, throttle_cb = _pop_event_cbs(conf)
        self._log_cb = _pop_logger(conf)
        stats_cb = _pop_stats_cb(conf)
        oauth_cb = _pop_oauth_cb(conf)
        self._cb_error = None
        ch = _make_config(conf, "producer", self._log_cb)
        try:
            self._oauth_cb = _set_oauth_cb(ch, self, oauth_cb, "producer")
            eb = errbuf()
            ptr = lib.gregor_producer_new(ch, eb, len(eb))
            if not ptr:
                raise_for(KafkaError._INVALID_CONFIG, eb)
        finally:
            lib.gregor_config_free(ch)
        self._cb_error = None
        try:
            self._native_attach(ptr)  # owns it from here on; installs the delivery-report callback
        except BaseException:
            lib.gregor_producer_free(ptr)
            raise
        events = _install_events(self, "producer", ptr, error_cb, throttle_cb)
        self._stats_cb = _stats_trampoline(self, stats_cb) if stats_cb is not None else None
        # ctypes callbacks the library holds: released only after the handle is freed
        self._keep = (self._log_cb, self._stats_cb, self._oauth_cb, *events)
        if self._stats_cb is not None:
            raise_for(lib.gregor_producer_set_stats_cb(ptr, self._stats_cb, None))

    def _ptr(self):
        p = self._hptr
        if not p:
            raise RuntimeError("Producer has been closed")
        return p

    def _keep_error(self, e):
        if self._cb_error is None:
            self._cb_error = e

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        """Flushes and closes the producer; exceptions propagate."""
        if self._hptr:
            self.close()
        return None

    def _raise_cb_error(self):
        e, self._cb_error = self._cb_error, None
        if e is not None:
            raise e

    def purge(self, in_queue=True, in_flight=True, blocking=True):
        """Purges messages (confluent-kafka's ``purge``, librdkafka's
        ``rd_kafka_purge``): ``in_queue`` those not sent yet (their reports:
        ``_PURGE_QUEUE``), ``in_flight`` those whose requests are in flight
        (``_PURGE_INFLIGHT``; the broker's answer is then ignored);
        ``blocking=False`` does not wait for the sender thread. The reports
        are served by the next ``poll()`` or ``flush()``."""
        flags = (_PURGE_F_QUEUE if in_queue else 0) | (_PURGE_F_INFLIGHT if in_flight else 0)
        if not blocking:
            flags |= _PURGE_F_NON_BLOCKING
        raise_for(lib.gregor_producer_purge(self._ptr(), flags))

    def set_sasl_credentials(self, username, password):
        """Sets the SASL user name and password new connections authenticate with."""
        _set_sasl_credentials(lib.gregor_producer_set_sasl_credentials, self._ptr(), username, password)

    def __bool__(self):
        return True

    def list_topics(self, topic=None, timeout=-1):
        """ClusterMetadata for all topics or one."""
        return _list_topics(lib.gregor_producer_metadata, self._ptr(), topic, timeout)

    # The transactional calls raise KafkaException(KafkaError) with
    # .retriable(), .fatal() and .txn_requires_abort() set, as confluent-kafka.

    def init_transactions(self, timeout=None):
        _raise_txn(lib.gregor_producer_txn_init(self._ptr(), ms(timeout)))

    def begin_transaction(self):
        _raise_txn(lib.gregor_producer_txn_begin(self._ptr()))

    def send_offsets_to_transaction(self, positions, group_metadata, timeout=None):
        # KIP-447: generation, member id and instance id go along (_event_loop)
        tpl = _tpl_from(positions)
        try:
            _raise_txn(_event_loop.send_offsets(self._ptr(), tpl, group_metadata, ms(timeout)))
        finally:
            lib.gregor_tpl_free(tpl)

    def commit_transaction(self, timeout=None):
        _raise_txn(lib.gregor_producer_txn_commit(self._ptr(), ms(timeout)))

    def abort_transaction(self, timeout=None):
        _raise_txn(lib.gregor_producer_txn_abort(self._ptr(), ms(timeout)))

    def fatal_error(self):
        """gregor extra (librdkafka's rd_kafka_fatal_error): the KafkaError that
        stopped the idempotent/transactional producer for good, or None."""
        eb = errbuf()
        code = lib.gregor_producer_fatal_error(self._ptr(), eb, len(eb))
        return KafkaError(code, pystr(eb.value) or None, fatal=True) if code else None

    def close(self, timeout=None):
        """Flushes up to ``timeout`` s (None: 30 s), then frees the producer.
        Returns True (as confluent-kafka's close does); later calls raise
        RuntimeError("Producer has been closed")."""
        p = self._hptr
        if p:
            lib.gregor_producer_close(p, ms(timeout, 30000))
            self._hfree()  # serves the reports the close collected
            self._raise_cb_error()
        return True

    def produce_batch(self, topic, messages, partition=-1, callback=None, on_delivery=None):
        """Produces a list of message dicts (``value``, ``key``, ``partition``,
        ``callback``, ``headers``; other keys are ignored) to ``topic``.
        Returns how many were queued; each message that was not gets an
        ``_error`` (KafkaError) in its dict. The whole list is checked first
        (TypeError / ValueError / NotImplementedError for a timestamp, as
        confluent-kafka), so a bad entry produces nothing. Unlike
        confluent-kafka, headers are sent, not ignored."""
        if not isinstance(topic, str):
            raise TypeError(f"topic must be str, not {type(topic).__name__}")
        if not isinstance(messages, list):
            raise TypeError("messages must be a list")
        partition = _c_int(partition, 32, "partition")
        default_cb = callback if callback is not None else on_delivery
        if not messages:
            return 0
        self._ptr()
        plan = []
        for i, m in enumerate(messages):
            if not isinstance(m, dict):
                raise TypeError(f"Message at index {i} must be a dict")
            value, key = m.get("value"), m.get("key")
            if value is not None and not isinstance(value, (bytes, str)):
                raise TypeError(f"Message value at index {i} must be bytes or str")
            if key is not None and not isinstance(key, (bytes, str)):
                raise TypeError(f"Message key at index {i} must be bytes or str")
            part = m.get("partition")
            if part is not None and (isinstance(part, bool) or not isinstance(part, int)):
                raise TypeError(f"Message partition at index {i} must be int")
            if m.get("timestamp") is not None:
                raise NotImplementedError("Message timestamps are not currently supported in batch mode")
            headers = m.get("headers")
            if headers is not None and not isinstance(headers, (dict, list)):
                raise ValueError(f"Invalid headers at index {i}")
            cb = m.get("callback") or default_cb
            plan.append((m, value, key, partition if part is None else part, cb, headers))
        good = 0
        for m, value, key, part, cb, headers in plan:
            try:
                Producer.produce(self, topic, value, key, part, on_delivery=cb, headers=headers)
                good += 1
            except BufferError as e:
                m["_error"] = KafkaError(KafkaError._QUEUE_FULL, f"Message failed: {e}")
            except KafkaException as e:
                err = e.args[0]
                m["_error"] = KafkaError(err.code(), f"Message failed: {err.str()}")
        return good


# -- consumer ---------------------------------------------------------------

_REBALANCE_ASSIGNED = 1
_REBALANCE_REVOKED = 2
_REBALANCE_LOST = 3


from ._event_loop import ConsumerGroupMetadata  # noqa: E402  (KIP-447: group id, generation, member, instance)


class Consumer(_native.ConsumerBase):
    """confluent-kafka's Consumer over gregor_consumer.

    ``poll`` and ``consume`` are compiled (gregor._native.ConsumerBase) and
    wait in slices of at most 100 ms, so Ctrl-C interrupts them."""

    _h = property(_NativeHandle)

    def __init__(self, conf=None, **kwargs):
        conf = _merge_conf(conf, kwargs)
        self._on_commit = conf.pop("on_commit", None)
        self._group_id = conf.get("group.id")
        error_cb, throttle_cb = _pop_event_cbs(conf)
        self._log_cb = _pop_logger(conf)
        stats_cb = _pop_stats_cb(conf)
        oauth_cb = _pop_oauth_cb(conf)
        self._cb_error = None
        ch = _make_config(conf, "consumer", self._log_cb)
        try:
            self._oauth_cb = _set_oauth_cb(ch, self, oauth_cb, "consumer")
            eb = errbuf()
            ptr = lib.gregor_consumer_new(ch, eb, len(eb))
            if not ptr:
                raise_for(KafkaError._INVALID_CONFIG, eb)
        finally:
            lib.gregor_config_free(ch)
        self._closed = False
        self._cb_error = None
        try:
            self._native_attach(ptr)  # owns it from here on
        except BaseException:
            lib.gregor_consumer_free(ptr)
            raise
        self._on_assign = self._on_revoke = self._on_lost = None
        self._rebalance_cb = REBALANCE_CB(self._on_rebalance)
        self._commit_cb = COMMIT_CB(self._on_commit_c)
        events = _install_events(self, "consumer", ptr, error_cb, throttle_cb)
        self._stats_cb = _stats_trampoline(self, stats_cb) if stats_cb is not None else None
        # ctypes callbacks the library holds: released only after the handle is freed
        self._keep = (self._rebalance_cb, self._commit_cb, self._log_cb, self._stats_cb, self._oauth_cb,
                      *events)
        if self._on_commit is not None:
            raise_for(lib.gregor_consumer_set_commit_cb(ptr, self._commit_cb, None))
        if self._stats_cb is not None:
            raise_for(lib.gregor_consumer_set_stats_cb(ptr, self._stats_cb, None))

    def _ptr(self):
        p = self._hptr
        if not p or self._closed:
            raise RuntimeError("Consumer closed")
        return p

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        """Closes the consumer (leaving its group); exceptions propagate."""
        self.close()
        return None

    def _keep_error(self, e):
        if self._cb_error is None:
            self._cb_error = e

    def _raise_cb_error(self):
        e, self._cb_error = self._cb_error, None
        if e is not None:
            raise e

    def _on_rebalance(self, _c, event, tpl, _opaque):
        try:
            parts = _tpl_to_list(tpl) if tpl else []
            if event == _REBALANCE_ASSIGNED:
                cb = self._on_assign
            elif event == _REBALANCE_LOST:
                cb = self._on_lost or self._on_revoke
            else:
                cb = self._on_revoke
            if cb is not None:
                cb(self, parts)
        except BaseException as e:
            self._keep_error(e)

    def _on_commit_c(self, _c, err, tpl, _opaque):
        try:
            parts = _tpl_to_list(tpl) if tpl else []
            error = KafkaError(err) if err else None
            if self._on_commit is not None:
                self._on_commit(error, parts)
        except BaseException as e:
            self._keep_error(e)

    # subscription

    def subscribe(self, topics, on_assign=None, on_revoke=None, on_lost=None):
        """Joins the group for ``topics``; the callbacks get ``(consumer, [TopicPartition])`` inside poll."""
        if isinstance(topics, str) or not isinstance(topics, (list, tuple)):
            raise TypeError("expected list of topic unicode strings")
        for cb in (on_assign, on_revoke, on_lost):
            if cb is not None and not callable(cb):
                raise TypeError("expected callable")
        p = self._ptr()
        self._on_assign, self._on_revoke, self._on_lost = on_assign, on_revoke, on_lost
        raise_for(lib.gregor_consumer_set_rebalance_cb(p, self._rebalance_cb, None))
        arr = cstr_array(topics)
        eb = errbuf()
        raise_for(lib.gregor_consumer_subscribe(p, arr, len(topics), eb, len(eb)), eb)

    def unsubscribe(self):
        raise_for(lib.gregor_consumer_unsubscribe(self._ptr()))

    # assignment

    def _tpl_call(self, fn, partitions):
        tpl = _tpl_from(partitions)
        try:
            eb = errbuf()
            raise_for(fn(self._ptr(), tpl, eb, len(eb)), eb)
        finally:
            lib.gregor_tpl_free(tpl)

    def assign(self, partitions):
        self._tpl_call(lib.gregor_consumer_assign, partitions)

    def unassign(self):
        eb = errbuf()
        raise_for(lib.gregor_consumer_unassign(self._ptr(), eb, len(eb)), eb)

    def incremental_assign(self, partitions):
        self._tpl_call(lib.gregor_consumer_incremental_assign, partitions)

    def incremental_unassign(self, partitions):
        self._tpl_call(lib.gregor_consumer_incremental_unassign, partitions)

    def assignment(self):
        out = c_void_p()
        raise_for(lib.gregor_consumer_assignment(self._ptr(), byref(out)))
        try:
            return _tpl_to_list(out)
        finally:
            lib.gregor_tpl_free(out)

    # offsets

    def commit(self, message=None, offsets=None, asynchronous=True):
        """Commits ``message``'s offset + 1, ``offsets``, or the consumed positions.

        Synchronous commits return the committed offsets (raising
        KafkaException on failure); asynchronous ones return None and report
        to ``on_commit`` inside poll.
        """
        if message is not None and offsets is not None:
            raise ValueError("Commit: message and offsets are mutually exclusive")
        p = self._ptr()
        if message is not None:
            if message.error() is not None:
                raise KafkaException(KafkaError(KafkaError._INVALID_ARG, "Cannot commit an error message"))
            parts = [TopicPartition(message.topic(), message.partition(), message._offset + 1,
                                    leader_epoch=message.leader_epoch())]
        elif offsets is not None:
            parts = list(offsets)
        else:
            parts = None
        if parts is not None:
            # librdkafka leaves logical (negative) offsets out of a commit and
            # fails with _NO_OFFSET when nothing is left; so does this
            _tpl_from(parts, check_only=True)
            parts = [tp for tp in parts if tp.offset >= 0]
            if not parts:
                if asynchronous:
                    return None
                raise KafkaException(KafkaError(KafkaError._NO_OFFSET, "Local: No offset stored"))
        tpl = _tpl_from(parts) if parts is not None else None
        try:
            eb = errbuf()
            rc = lib.gregor_consumer_commit(p, tpl, 1 if asynchronous else 0, eb, len(eb))
            self._raise_cb_error()
            raise_for(rc, eb)
            if asynchronous:
                return None
            if tpl is not None:
                return _tpl_to_list(tpl)
            return [tp for tp in self.position(self.assignment()) if tp.offset >= 0]
        finally:
            if tpl is not None:
                lib.gregor_tpl_free(tpl)

    def store_offsets(self, message=None, offsets=None):
        p = self._ptr()
        if message is not None and offsets is not None:
            raise ValueError("message and offsets are mutually exclusive")
        if message is not None:
            parts = [TopicPartition(message.topic(), message.partition(), message._offset + 1)]
        elif offsets is not None:
            parts = list(offsets)
        else:
            raise ValueError("expected either message or offsets")
        # a logical (negative) offset is stored by librdkafka but never
        # committed: nothing to store here
        _tpl_from(parts, check_only=True)
        parts = [tp for tp in parts if tp.offset >= 0]
        if not parts:
            return
        tpl = _tpl_from(parts)
        try:
            raise_for(lib.gregor_consumer_store_offsets(p, tpl))
        finally:
            lib.gregor_tpl_free(tpl)

    def committed(self, partitions, timeout=None):
        """The group's committed offsets for ``partitions`` (OFFSET_INVALID where none)."""
        tpl = _tpl_from(partitions, with_offsets=False)
        try:
            eb = errbuf()
            rc = lib.gregor_consumer_committed(self._ptr(), tpl, ms(timeout), eb, len(eb))
            raise_for(rc, eb)
            return _tpl_to_list(tpl)
        finally:
            lib.gregor_tpl_free(tpl)

    def position(self, partitions):
        """The next offset to be consumed for each partition (OFFSET_INVALID if none yet)."""
        tpl = _tpl_from(partitions, with_offsets=False)
        try:
            eb = errbuf()
            rc = lib.gregor_consumer_position(self._ptr(), tpl, eb, len(eb))
            if rc and rc != KafkaError._UNKNOWN_PARTITION:
                raise_for(rc, eb)
            return _tpl_to_list(tpl)
        finally:
            lib.gregor_tpl_free(tpl)

    def seek(self, partition):
        if not isinstance(partition, TopicPartition):
            raise TypeError("expected TopicPartition")
        eb = errbuf()
        rc = lib.gregor_consumer_seek(self._ptr(), cstr(partition.topic), partition.partition, partition.offset,
                                      eb, len(eb))
        raise_for(rc, eb)

    def pause(self, partitions):
        self._tpl_call(lib.gregor_consumer_pause, partitions)

    def resume(self, partitions):
        self._tpl_call(lib.gregor_consumer_resume, partitions)

    def get_watermark_offsets(self, partition, timeout=None, cached=False):
        """(low, high) of a partition: asked of its leader, or the last fetch's with ``cached=True``."""
        if not isinstance(partition, TopicPartition):
            raise TypeError("expected TopicPartition")
        low, high = c_int64(OFFSET_INVALID), c_int64(OFFSET_INVALID)
        eb = errbuf()
        if cached:
            rc = lib.gregor_consumer_get_watermark_offsets(self._ptr(), cstr(partition.topic), partition.partition,
                                                           byref(low), byref(high), eb, len(eb))
        else:
            rc = lib.gregor_consumer_watermarks(self._ptr(), cstr(partition.topic), partition.partition,
                                                byref(low), byref(high), ms(timeout), eb, len(eb))
        raise_for(rc, eb)
        return low.value, high.value

    def offsets_for_times(self, partitions, timeout=None):
        tpl = _tpl_from(partitions)
        try:
            eb = errbuf()
            rc = lib.gregor_consumer_offsets_for_times(self._ptr(), tpl, ms(timeout), eb, len(eb))
            out = _tpl_to_list(tpl)
            # As librdkafka: a partition's own error (an unknown partition)
            # is that partition's .error; the call fails only when it timed
            # out before every offset was found, or as a whole.
            if rc and (len(out) != len(partitions) or all(tp.error is None for tp in out)
                       or any(tp.error is not None and tp.error.code() == KafkaError._TIMED_OUT for tp in out)):
                raise_for(rc, eb)
            return out
        finally:
            lib.gregor_tpl_free(tpl)

    def list_topics(self, topic=None, timeout=-1):
        p = self._hptr
        if not p or self._closed:
            raise RuntimeError("Handle has been closed")
        return _list_topics(lib.gregor_consumer_metadata, p, topic, timeout)

    def memberid(self):
        buf = ctypes.create_string_buffer(512)
        rc = lib.gregor_consumer_member_id(self._ptr(), buf, len(buf))
        raise_for(rc)
        return pystr(buf.value) or None

    def set_sasl_credentials(self, username, password):
        """Sets the SASL user name and password new connections authenticate with."""
        _set_sasl_credentials(lib.gregor_consumer_set_sasl_credentials, self._ptr(), username, password)

    def consumer_group_metadata(self):
        return _event_loop.group_metadata(self._ptr(), self._group_id)

    def close(self):
        """Leaves the group (revoke callbacks run here), stops fetching and frees the consumer."""
        if self._closed:
            return
        p = self._hptr
        if p:
            # still open while it runs: on_revoke may call unassign() and
            # commit(), as confluent-kafka allows
            lib.gregor_consumer_close(p)
            self._closed = True
            self._hfree()
        self._closed = True
        self._raise_cb_error()


# confluent-kafka exports these model classes at the top level too.
from .admin import ConsumerGroupState, ConsumerGroupTopicPartitions, ConsumerGroupType, Node  # noqa: E402

__all__ += ["ConsumerGroupState", "ConsumerGroupTopicPartitions", "ConsumerGroupType", "Node"]

# confluent-kafka's other top-level names.
from ._model import AcknowledgeType, ElectionType, IsolationLevel, TopicCollection, TopicPartitionInfo  # noqa: E402
from ._partitioners import consistent, fnv1a, murmur2  # noqa: E402
from ._serializing import _make_classes  # noqa: E402
from ._share import DeserializingShareConsumer, ShareConsumer  # noqa: E402
from . import serialization  # noqa: E402,F401
from . import _event_loop  # noqa: E402

_event_loop._install(Producer, Consumer)  # io_event_enable, yield_, close_start, ...

SerializingProducer, DeserializingConsumer = _make_classes()
del _make_classes


__all__ += ["Messages", "AcknowledgeType", "ElectionType", "IsolationLevel", "TopicCollection",
            "TopicPartitionInfo", "murmur2", "consistent", "fnv1a", "SerializingProducer", "DeserializingConsumer",
            "ShareConsumer", "DeserializingShareConsumer"]


def _dr_error(code, detail):
    """A delivery report's KafkaError: the code's description, as
    confluent-kafka's (which is librdkafka's rd_kafka_err2str, "Local: Message
    timed out"), then gregor's detail (topic, partition, cause) in
    parentheses."""
    desc = KafkaError(code).str()
    if detail:
        name = KafkaError(code).name()
        if name and detail.startswith(name + ": "):
            detail = detail[len(name) + 2:]
        if detail and detail != desc:
            return KafkaError(code, f"{desc} ({detail})")
    return KafkaError(code, desc)


_native.setup(lib.cdll._handle, Message, KafkaError, raise_for, to_bytes, _dr_error)
from . import mock  # noqa: E402,F401
