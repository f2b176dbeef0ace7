"""gregor for Python: confluent-kafka's API over libgregor (ctypes).

Changing ``import confluent_kafka`` to ``import gregor`` (and
``confluent_kafka.admin`` to ``gregor.admin``) is enough for the core:
``Producer``, ``Consumer``, ``Message``, ``TopicPartition``, ``KafkaError``,
``KafkaException`` and ``admin.AdminClient``. Callbacks (delivery reports,
rebalances, commits) run on the thread that calls ``poll``/``flush``/
``consume``/``close``, as in confluent-kafka.
"""

import ctypes
import threading
import time
from ctypes import byref, c_int, c_int64, c_void_p

from ._lib import (
    COMMIT_CB,
    DR_CB,
    REBALANCE_CB,
    Slice,
    buf_arg,
    cstr,
    cstr_array,
    errbuf,
    lib,
    ms,
    pystr,
    to_bytes,
)
from .error import KafkaError, KafkaException, raise_for

__all__ = [
    "Producer",
    "Consumer",
    "Message",
    "TopicPartition",
    "KafkaError",
    "KafkaException",
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

_POLL_SLICE_MS = 200  # an "infinite" wait is a loop of these, so Ctrl-C works


def version():
    """(version string, int) of these bindings (the library's version)."""
    v = pystr(lib.gregor_version())
    return v, _vint(v)


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


def _conf_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _make_config(conf, role):
    """A gregor_config handle from a dict (caller frees)."""
    h = lib.gregor_config_new()
    try:
        for k, v in conf.items():
            if not isinstance(k, str):
                raise TypeError(f"config keys must be str, not {type(k).__name__}")
            if callable(v):
                # on_delivery (producer) and on_commit (consumer) are taken out
                # before this; gregor reports errors as messages or exceptions,
                # not through error_cb/stats_cb/logger callbacks.
                raise KafkaException(
                    KafkaError(KafkaError._INVALID_ARG, f"{role}: callback property {k!r} is not supported")
                )
            if v is None:
                raise KafkaException(KafkaError(KafkaError._INVALID_ARG, f"config property {k!r} is None"))
            eb = errbuf()
            rc = lib.gregor_config_set(h, cstr(k), cstr(_conf_value(v)), eb, len(eb))
            raise_for(rc, eb)
    except BaseException:
        lib.gregor_config_free(h)
        raise
    return h


def config_dump(conf=None, **kwargs):
    """The effective configuration a client made from ``conf`` would have:
    every property (canonical names) with its value or default, as a dict
    of strings, checked as a client checks it (librdkafka's
    ``rd_kafka_conf_dump``). Secrets (``sasl.password``,
    ``ssl.key.password``, ``ssl.key.pem``, ``sasl.oauthbearer.*`` secrets
    and tokens, ...) read ``"[redacted]"``, set or not. Callback entries
    (``on_delivery``, ``error_cb``, ...) are left out."""
    conf = {k: v for k, v in _merge_conf(conf, kwargs).items() if not callable(v)}
    for k in ("on_delivery", "on_commit", "delivery.report.callback"):
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


def _merge_conf(conf, kwargs):
    if conf is None:
        conf = {}
    if not isinstance(conf, dict):
        raise TypeError("expected configuration dict")
    out = dict(conf)
    out.update(kwargs)
    return out


class TopicPartition:
    """A topic, partition and offset (plus metadata, leader epoch and error)."""

    __slots__ = ("topic", "partition", "offset", "metadata", "leader_epoch", "error")

    def __init__(self, topic, partition=-1, offset=OFFSET_INVALID, metadata=None, leader_epoch=None):
        if not isinstance(topic, str):
            raise TypeError("topic must be str")
        self.topic = topic
        self.partition = int(partition)
        self.offset = int(offset)
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
        return self._key() < other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return (
            f"TopicPartition{{topic={self.topic},partition={self.partition},offset={self.offset},"
            f"leader_epoch={self.leader_epoch},error={self.error!r}}}"
        )

    __str__ = __repr__


def _tpl_from(partitions, with_offsets=True):
    """A gregor_tpl from a list of TopicPartition (caller frees)."""
    if partitions is None:
        raise TypeError("expected list of TopicPartition")
    if isinstance(partitions, TopicPartition):
        raise TypeError("expected list of TopicPartition")
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


class Message:
    """A consumed message, a delivery report's message, or an error event."""

    __slots__ = ("_topic", "_partition", "_offset", "_key", "_value", "_headers", "_timestamp",
                 "_error", "_leader_epoch", "_latency")

    def __init__(self, topic=None, partition=-1, offset=OFFSET_INVALID, key=None, value=None, headers=None,
                 error=None, timestamp=(TIMESTAMP_NOT_AVAILABLE, 0), leader_epoch=None, latency=None):
        self._topic = topic
        self._partition = partition
        self._offset = offset
        self._key = key
        self._value = value
        self._headers = headers
        self._error = error
        self._timestamp = timestamp
        self._leader_epoch = leader_epoch
        self._latency = latency

    @classmethod
    def _from_c(cls, h):
        """Copies a gregor_message (borrowed) into Python objects."""
        err = lib.gregor_message_err(h)
        error = KafkaError(err, pystr(lib.gregor_message_errstr(h)) or None) if err else None
        tstype = c_int(0)
        ts = lib.gregor_message_timestamp(h, byref(tstype))
        headers = None
        n = lib.gregor_message_header_count(h)
        if n:
            headers = []
            for i in range(n):
                name, value = Slice(), Slice()
                if lib.gregor_message_header(h, i, byref(name), byref(value)) == 0:
                    headers.append(((name.bytes() or b"").decode("utf-8", "replace"), value.bytes()))
        topic = pystr(lib.gregor_message_topic(h)) or None
        ep = lib.gregor_message_leader_epoch(h)
        return cls(
            topic=topic,
            partition=lib.gregor_message_partition(h),
            offset=lib.gregor_message_offset(h),
            key=lib.gregor_message_key(h).bytes(),
            value=lib.gregor_message_value(h).bytes(),
            headers=headers,
            error=error,
            timestamp=(tstype.value, ts if tstype.value else 0),
            leader_epoch=ep if ep >= 0 else None,
        )

    def topic(self):
        return self._topic

    def partition(self):
        return self._partition if self._partition is not None and self._partition >= 0 else None

    def offset(self):
        return self._offset if self._offset is not None and self._offset >= 0 else None

    def key(self):
        return self._key

    def value(self):
        return self._value

    def headers(self):
        return self._headers

    def timestamp(self):
        return self._timestamp

    def error(self):
        return self._error

    def leader_epoch(self):
        return self._leader_epoch

    def latency(self):
        return self._latency

    def set_headers(self, headers):
        self._headers = headers

    def set_key(self, key):
        self._key = key

    def set_value(self, value):
        self._value = value

    def __len__(self):
        return len(self._value) if self._value is not None else 0

    def __repr__(self):
        return (f"Message(topic={self._topic!r}, partition={self._partition}, offset={self._offset}, "
                f"error={self._error!r})")


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
    rc = fn(handle, cstr(topic), ms(timeout, 60000 if timeout is None or timeout < 0 else 0), byref(out), eb,
            len(eb))
    raise_for(rc, eb)
    try:
        return _metadata(out)
    finally:
        lib.gregor_metadata_free(out)


class _Handle:
    """Owns a C handle; frees it once (explicitly or when collected)."""

    def __init__(self, ptr, free, keep=()):
        self.ptr = ptr
        self._free = free
        self._keep = keep  # callbacks the C side holds: alive until freed
        self._lock = threading.Lock()

    def free(self):
        with self._lock:
            ptr, self.ptr = self.ptr, None
        if ptr:
            self._free(ptr)

    def __del__(self):
        try:
            self.free()
        except Exception:
            pass


# -- producer ---------------------------------------------------------------


class Producer:
    """confluent-kafka's Producer over gregor_producer."""

    def __init__(self, conf=None, **kwargs):
        conf = _merge_conf(conf, kwargs)
        self._default_cb = conf.pop("on_delivery", None) or conf.pop("delivery.report.callback", None)
        self._only_error = str(conf.pop("delivery.report.only.error", False)).lower() in ("true", "1")
        ch = _make_config(conf, "producer")
        try:
            eb = errbuf()
            ptr = lib.gregor_producer_new(ch, eb, len(eb))
            if not ptr:
                raise_for(KafkaError._INVALID_CONFIG, eb)
        finally:
            lib.gregor_config_free(ch)
        self._pending = {}
        self._next_id = 1
        self._id_lock = threading.Lock()
        self._cb_error = None
        self._dr_cb = DR_CB(self._on_dr)
        self._h = _Handle(ptr, lib.gregor_producer_free, (self._dr_cb,))
        lib.gregor_producer_set_dr_cb(ptr, self._dr_cb, None)

    def _ptr(self):
        p = self._h.ptr
        if not p:
            raise RuntimeError("Producer has been closed")
        return p

    def _on_dr(self, dr_p, _opaque):
        try:
            dr = dr_p.contents
            ident = dr.msg_opaque or 0
            with self._id_lock:
                entry = self._pending.pop(ident, None)
            if entry is None:
                return
            cb, key, value, headers = entry
            if cb is None:
                return
            err = KafkaError(dr.err, pystr(dr.errstr) or None) if dr.err else None
            if err is None and self._only_error:
                return
            msg = Message(
                topic=pystr(dr.topic),
                partition=dr.partition,
                offset=dr.offset,
                key=key,
                value=value,
                headers=headers,
                error=err,
                timestamp=(TIMESTAMP_CREATE_TIME, dr.timestamp) if dr.timestamp > 0 else (0, 0),
            )
            cb(err, msg)
        except BaseException as e:  # re-raised from poll/flush, as confluent-kafka does
            if self._cb_error is None:
                self._cb_error = e

    def _raise_cb_error(self):
        e, self._cb_error = self._cb_error, None
        if e is not None:
            raise e

    def produce(self, topic, value=None, key=None, partition=-1, on_delivery=None, timestamp=0, headers=None,
                callback=None):
        """Queues a message; its delivery report comes to ``on_delivery(err, msg)`` in poll/flush.

        Raises ``BufferError`` when the queue is full (as confluent-kafka
        does) and ``KafkaException`` for other errors.
        """
        if not isinstance(topic, str):
            raise TypeError("topic must be str")
        cb = on_delivery or callback or self._default_cb
        kb, vb = to_bytes(key), to_bytes(value)
        hdrs = None
        hlist = None
        if headers:
            items = headers.items() if isinstance(headers, dict) else headers
            hlist = []
            hdrs = lib.gregor_headers_new()
        try:
            if hdrs is not None:
                for name, hv in items:
                    hb = to_bytes(hv)
                    hlist.append((name, hb))
                    p, n = buf_arg(hb)
                    rc = lib.gregor_headers_add(hdrs, cstr(name), p, n)
                    raise_for(rc, reason=f"invalid header {name!r}")
            with self._id_lock:
                ident = self._next_id
                self._next_id += 1
                self._pending[ident] = (cb, kb, vb, hlist)
            kp, kn = buf_arg(kb)
            vp, vn = buf_arg(vb)
            eb = errbuf()
            rc = lib.gregor_producer_send(self._ptr(), cstr(topic), int(partition), kp, kn, vp, vn, hdrs,
                                          int(timestamp or 0), ident, 0, eb, len(eb))
            if rc:
                with self._id_lock:
                    self._pending.pop(ident, None)
                if rc == KafkaError._QUEUE_FULL:
                    raise BufferError(pystr(eb.value) or "Local: Queue full")
                raise_for(rc, eb)
        finally:
            if hdrs is not None:
                lib.gregor_headers_free(hdrs)

    def poll(self, timeout=None):
        """Serves delivery reports, waiting up to ``timeout`` s (None: until one). Returns how many."""
        p = self._ptr()
        if timeout is None or timeout < 0:
            while True:
                n = lib.gregor_producer_poll(p, _POLL_SLICE_MS)
                self._raise_cb_error()
                if n:
                    return n
        n = lib.gregor_producer_poll(p, ms(timeout))
        self._raise_cb_error()
        return n

    def flush(self, timeout=None):
        """Waits until every message has its report (served meanwhile). Returns how many are left."""
        p = self._ptr()
        if timeout is None or timeout < 0:
            while lib.gregor_producer_flush(p, 1000) != 0:
                self._raise_cb_error()
        else:
            lib.gregor_producer_flush(p, ms(timeout))
        self._raise_cb_error()
        return len(self)

    def __len__(self):
        p = self._h.ptr
        return lib.gregor_producer_len(p) if p else 0

    def __bool__(self):
        return True

    def list_topics(self, topic=None, timeout=-1):
        """ClusterMetadata for all topics or one."""
        return _list_topics(lib.gregor_producer_metadata, self._ptr(), topic, timeout)

    def init_transactions(self, timeout=None):
        eb = errbuf()
        raise_for(lib.gregor_producer_init_transactions(self._ptr(), ms(timeout, 60000), eb, len(eb)), eb)

    def begin_transaction(self):
        eb = errbuf()
        raise_for(lib.gregor_producer_begin_transaction(self._ptr(), eb, len(eb)), eb)

    def send_offsets_to_transaction(self, positions, group_metadata, timeout=None):
        gid = getattr(group_metadata, "group_id", group_metadata)
        tpl = _tpl_from(positions)
        try:
            eb = errbuf()
            rc = lib.gregor_producer_send_offsets_to_transaction(self._ptr(), tpl, cstr(gid), ms(timeout, 60000),
                                                                 eb, len(eb))
            raise_for(rc, eb)
        finally:
            lib.gregor_tpl_free(tpl)

    def commit_transaction(self, timeout=None):
        eb = errbuf()
        raise_for(lib.gregor_producer_commit_transaction(self._ptr(), ms(timeout, 60000), eb, len(eb)), eb)

    def abort_transaction(self, timeout=None):
        eb = errbuf()
        raise_for(lib.gregor_producer_abort_transaction(self._ptr(), ms(timeout, 60000), eb, len(eb)), eb)

    def close(self, timeout=None):
        """gregor extra: flush up to ``timeout`` s, then free the producer."""
        p = self._h.ptr
        if p:
            lib.gregor_producer_close(p, ms(timeout, 30000))
            self._raise_cb_error()
            self._h.free()


# -- consumer ---------------------------------------------------------------

_REBALANCE_ASSIGNED = 1
_REBALANCE_REVOKED = 2
_REBALANCE_LOST = 3


class ConsumerGroupMetadata:
    """What ``send_offsets_to_transaction`` needs of a consumer's group."""

    def __init__(self, group_id):
        self.group_id = group_id


class Consumer:
    """confluent-kafka's Consumer over gregor_consumer."""

    def __init__(self, conf=None, **kwargs):
        conf = _merge_conf(conf, kwargs)
        self._on_commit = conf.pop("on_commit", None)
        self._group_id = conf.get("group.id")
        ch = _make_config(conf, "consumer")
        try:
            eb = errbuf()
            ptr = lib.gregor_consumer_new(ch, eb, len(eb))
            if not ptr:
                raise_for(KafkaError._INVALID_CONFIG, eb)
        finally:
            lib.gregor_config_free(ch)
        self._closed = False
        self._cb_error = None
        self._on_assign = self._on_revoke = self._on_lost = None
        self._rebalance_cb = REBALANCE_CB(self._on_rebalance)
        self._commit_cb = COMMIT_CB(self._on_commit_c)
        self._h = _Handle(ptr, lib.gregor_consumer_free, (self._rebalance_cb, self._commit_cb))
        if self._on_commit is not None:
            raise_for(lib.gregor_consumer_set_commit_cb(ptr, self._commit_cb, None))

    def _ptr(self):
        p = self._h.ptr
        if not p or self._closed:
            raise RuntimeError("Consumer closed")
        return p

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

    # consuming

    def poll(self, timeout=None):
        """The next message or error event, or None after ``timeout`` s (None: wait)."""
        p = self._ptr()
        if timeout is None or timeout < 0:
            while True:
                m = self._poll_once(p, _POLL_SLICE_MS)
                if m is not None:
                    return m
                p = self._ptr()
        return self._poll_once(p, ms(timeout))

    def _poll_once(self, p, timeout_ms):
        h = lib.gregor_consumer_poll(p, timeout_ms)
        try:
            self._raise_cb_error()
        except BaseException:
            lib.gregor_message_free(h)
            raise
        if not h:
            return None
        try:
            return Message._from_c(h)
        finally:
            lib.gregor_message_free(h)

    def consume(self, num_messages=1, timeout=-1):
        """Up to ``num_messages`` messages, waiting up to ``timeout`` s (-1: until there are that many)."""
        if not isinstance(num_messages, int) or num_messages < 1 or num_messages > 1000000:
            raise ValueError("num_messages must be between 1 and 1000000 (1M)")
        p = self._ptr()
        deadline = None if timeout is None or timeout < 0 else time.monotonic() + timeout
        out = []
        while len(out) < num_messages:
            if deadline is None:
                wait_ms = _POLL_SLICE_MS
            else:
                left = deadline - time.monotonic()
                if left <= 0 and out:
                    break
                wait_ms = max(0, int(left * 1000))
            m = self._poll_once(p, wait_ms)
            if m is not None:
                out.append(m)
            elif deadline is not None and time.monotonic() >= deadline:
                break
        return out

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
            parts = [TopicPartition(message.topic(), message.partition(), message.offset() + 1,
                                    leader_epoch=message.leader_epoch())]
        elif offsets is not None:
            parts = list(offsets)
        else:
            parts = None
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
        if message is not None and offsets is not None:
            raise ValueError("message and offsets are mutually exclusive")
        if message is not None:
            parts = [TopicPartition(message.topic(), message.partition(), message.offset() + 1)]
        elif offsets is not None:
            parts = list(offsets)
        else:
            raise ValueError("expected message or offsets")
        tpl = _tpl_from(parts)
        try:
            raise_for(lib.gregor_consumer_store_offsets(self._ptr(), tpl))
        finally:
            lib.gregor_tpl_free(tpl)

    def committed(self, partitions, timeout=None):
        """The group's committed offsets for ``partitions`` (OFFSET_INVALID where none)."""
        tpl = _tpl_from(partitions, with_offsets=False)
        try:
            eb = errbuf()
            rc = lib.gregor_consumer_committed(self._ptr(), tpl, ms(timeout, 60000), eb, len(eb))
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
                                                byref(low), byref(high), ms(timeout, 60000), eb, len(eb))
        raise_for(rc, eb)
        return low.value, high.value

    def offsets_for_times(self, partitions, timeout=None):
        tpl = _tpl_from(partitions)
        try:
            eb = errbuf()
            rc = lib.gregor_consumer_offsets_for_times(self._ptr(), tpl, ms(timeout, 60000), eb, len(eb))
            raise_for(rc, eb)
            return _tpl_to_list(tpl)
        finally:
            lib.gregor_tpl_free(tpl)

    def list_topics(self, topic=None, timeout=-1):
        return _list_topics(lib.gregor_consumer_metadata, self._ptr(), topic, timeout)

    def memberid(self):
        buf = ctypes.create_string_buffer(512)
        rc = lib.gregor_consumer_member_id(self._ptr(), buf, len(buf))
        raise_for(rc)
        return pystr(buf.value) or None

    def consumer_group_metadata(self):
        return ConsumerGroupMetadata(self._group_id)

    def close(self):
        """Leaves the group (revoke callbacks run here), stops fetching and frees the consumer."""
        if self._closed:
            return
        p = self._h.ptr
        self._closed = True
        if p:
            lib.gregor_consumer_close(p)
            self._h.free()
        self._raise_cb_error()


# confluent-kafka exports these model classes at the top level too.
from .admin import ConsumerGroupState, ConsumerGroupTopicPartitions, ConsumerGroupType, Node  # noqa: E402

__all__ += ["ConsumerGroupState", "ConsumerGroupTopicPartitions", "ConsumerGroupType", "Node"]
