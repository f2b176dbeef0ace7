"""Topics: ``NewTopic``, ``NewPartitions``, ``TopicDescription``, and
``create_topics`` / ``delete_topics`` / ``create_partitions`` /
``describe_topics``."""

import ctypes
from ctypes import POINTER, byref, c_char_p, c_int, c_int32, c_size_t, c_void_p

from .._lib import EXTRA, cstr, cstr_array, errbuf, handle_array, lib, pystr
from .._model import TopicCollection, TopicPartitionInfo
from ..error import raise_for
from ._acl import AclOperation
from ._cluster import Node
from ._common import _check_timeouts, _exc, _new_future, _Options

P, S = c_void_p, c_char_p
E = [c_char_p, c_size_t]
PP = POINTER(c_void_p)
CSTRS = POINTER(c_char_p)
I32P = POINTER(c_int32)

EXTRA.update({
    "gregor_admin_describe_topics": (c_int, [P, CSTRS, c_size_t, c_int, P, PP] + E),
    "gregor_topic_descriptions_count": (c_size_t, [P]),
    "gregor_topic_descriptions_name": (S, [P, c_size_t]),
    "gregor_topic_descriptions_topic_id": (S, [P, c_size_t]),
    "gregor_topic_descriptions_err": (c_int, [P, c_size_t]),
    "gregor_topic_descriptions_errstr": (S, [P, c_size_t]),
    "gregor_topic_descriptions_is_internal": (c_int, [P, c_size_t]),
    "gregor_topic_descriptions_authorized_operations": (c_int, [P, c_size_t, POINTER(c_int), c_size_t]),
    "gregor_topic_descriptions_partition_count": (c_size_t, [P, c_size_t]),
    "gregor_topic_descriptions_partition_id": (c_int32, [P, c_size_t, c_size_t]),
    "gregor_topic_descriptions_partition_leader": (c_int32, [P, c_size_t, c_size_t]),
    "gregor_topic_descriptions_partition_replicas": (c_size_t, [P, c_size_t, c_size_t, I32P, c_size_t]),
    "gregor_topic_descriptions_partition_isr": (c_size_t, [P, c_size_t, c_size_t, I32P, c_size_t]),
    "gregor_topic_descriptions_free": (None, [P]),
})


class NewTopic:
    """A topic to create."""

    def __init__(self, topic, num_partitions=-1, replication_factor=-1, replica_assignment=None, config=None):
        if not isinstance(topic, str):
            raise TypeError("topic must be str")
        self.topic = topic
        self.num_partitions = num_partitions
        self.replication_factor = replication_factor
        self.replica_assignment = replica_assignment
        if config is not None and not isinstance(config, dict):
            raise TypeError("config must be a dict of str: str")
        self.config = dict(config or {})

    def __hash__(self):
        return hash(self.topic)

    def __eq__(self, other):
        return isinstance(other, NewTopic) and self.topic == other.topic

    def __repr__(self):
        return f"NewTopic(topic={self.topic},num_partitions={self.num_partitions})"


class NewPartitions:
    """Partitions to add to a topic (``new_total_count`` in all)."""

    def __init__(self, topic, new_total_count, replica_assignment=None):
        if not isinstance(topic, str):
            raise TypeError("topic must be str")
        self.topic = topic
        self.new_total_count = new_total_count
        self.replica_assignment = replica_assignment

    def __hash__(self):
        return hash(self.topic)

    def __eq__(self, other):
        return isinstance(other, NewPartitions) and self.topic == other.topic

    def __repr__(self):
        return f"NewPartitions(topic={self.topic},new_total_count={self.new_total_count})"


class TopicDescription:
    """A topic as ``describe_topics`` describes it."""

    def __init__(self, name, topic_id, is_internal, partitions, authorized_operations=None):
        self.name = name
        self.topic_id = topic_id
        self.is_internal = is_internal
        self.partitions = partitions
        self.authorized_operations = authorized_operations


def _int32s(fn, d, i, p):
    n = fn(d, i, p, None, 0)
    arr = (c_int32 * max(n, 1))()
    n = fn(d, i, p, arr, n)
    return list(arr[:n])


class _TopicCalls:
    """Mixed into AdminClient."""

    def _topic_results_call(self, fn, arr, count, opts):
        out = c_void_p()
        eb = errbuf()
        rc = fn(self._ptr, arr, count, opts.ptr, byref(out), eb, len(eb))
        if rc:
            raise _exc(rc, pystr(eb.value))
        try:
            res = {}
            for i in range(lib.gregor_topic_results_count(out)):
                name = pystr(lib.gregor_topic_results_name(out, i))
                err = lib.gregor_topic_results_err(out, i)
                res[name] = _exc(err, pystr(lib.gregor_topic_results_errstr(out, i))) if err else None
            return res
        finally:
            lib.gregor_topic_results_free(out)

    def create_topics(self, new_topics, **kwargs):
        """{topic: Future(None)}; a failed topic's future raises KafkaException."""
        if not isinstance(new_topics, list) or not new_topics:
            raise ValueError("Expected non-empty list of NewTopic objects")
        opts = _Options(kwargs)
        handles = []
        try:
            for nt in new_topics:
                if not isinstance(nt, NewTopic):
                    raise TypeError("Expected list of NewTopic objects")
                h = lib.gregor_new_topic_new(cstr(nt.topic), int(nt.num_partitions), int(nt.replication_factor))
                if not h:
                    raise ValueError(f"invalid topic name {nt.topic!r}")
                handles.append(h)
                if nt.replica_assignment:
                    for p, brokers in enumerate(nt.replica_assignment):
                        arr = (ctypes.c_int32 * max(len(brokers), 1))(*brokers)
                        eb = errbuf()
                        raise_for(lib.gregor_new_topic_set_replica_assignment(h, p, arr, len(brokers), eb, len(eb)),
                                  eb)
                for k, v in nt.config.items():
                    eb = errbuf()
                    raise_for(lib.gregor_new_topic_set_config(h, cstr(k), cstr(str(v)), eb, len(eb)), eb)
        except BaseException:
            for h in handles:
                lib.gregor_new_topic_free(h)
            opts.free()
            raise
        arr = handle_array(handles)
        futures = {nt.topic: _new_future() for nt in new_topics}

        def cleanup():
            for h in handles:
                lib.gregor_new_topic_free(h)
            opts.free()

        self._run(futures, lambda: self._topic_results_call(lib.gregor_admin_create_topics, arr, len(handles), opts),
                  cleanup)
        return futures

    def delete_topics(self, topics, **kwargs):
        """{topic: Future(None)}."""
        if not isinstance(topics, list) or not topics:
            raise ValueError("Expected non-empty list of topic strings")
        for t in topics:
            if not isinstance(t, str) or not t:
                raise ValueError("Expected list of topic strings")
        opts = _Options(kwargs)
        arr = cstr_array(topics)
        futures = {t: _new_future() for t in topics}
        self._run(futures, lambda: self._topic_results_call(lib.gregor_admin_delete_topics, arr, len(topics), opts),
                  opts.free)
        return futures

    def create_partitions(self, new_partitions, **kwargs):
        """{topic: Future(None)}."""
        if not isinstance(new_partitions, list):
            raise TypeError("Expected list of NewPartitions objects")
        if not new_partitions:
            raise ValueError("Expected non-empty list of NewPartitions objects")
        opts = _Options(kwargs)
        handles = []
        try:
            for np_ in new_partitions:
                if not isinstance(np_, NewPartitions):
                    raise TypeError("Expected list of NewPartitions objects")
                h = lib.gregor_new_partitions_new(cstr(np_.topic), int(np_.new_total_count))
                if not h:
                    raise ValueError(f"invalid topic {np_.topic!r}")
                handles.append(h)
                for i, brokers in enumerate(np_.replica_assignment or []):
                    arr = (ctypes.c_int32 * max(len(brokers), 1))(*brokers)
                    eb = errbuf()
                    raise_for(lib.gregor_new_partitions_set_replica_assignment(h, i, arr, len(brokers), eb, len(eb)),
                              eb)
        except BaseException:
            for h in handles:
                lib.gregor_new_partitions_free(h)
            opts.free()
            raise
        arr = handle_array(handles)
        futures = {np_.topic: _new_future() for np_ in new_partitions}

        def cleanup():
            for h in handles:
                lib.gregor_new_partitions_free(h)
            opts.free()

        self._run(futures,
                  lambda: self._topic_results_call(lib.gregor_admin_create_partitions, arr, len(handles), opts),
                  cleanup)
        return futures

    def describe_topics(self, topics, **kwargs):
        """{topic: Future(TopicDescription)}."""
        self._check_open()
        if not isinstance(topics, TopicCollection):
            raise TypeError("Expected input to be instance of TopicCollection")
        names = topics.topic_names
        if not isinstance(names, list):
            raise TypeError("Expected list of topic names to be described")
        for n in names:
            if not isinstance(n, str):
                raise TypeError("Expected list of topic names to be described to be strings")
            if not n:
                raise ValueError("Topic name to be described cannot be empty")
        include_ops = kwargs.pop("include_authorized_operations", False)
        if not isinstance(include_ops, bool):
            raise TypeError("include_authorized_operations must be a bool")
        _check_timeouts(kwargs)
        if not names:
            return {}
        opts = _Options(kwargs)
        arr = cstr_array(names)
        futures = {n: _new_future() for n in dict.fromkeys(names)}

        def do():
            out = c_void_p()
            eb = errbuf()
            rc = lib.gregor_admin_describe_topics(self._ptr, arr, len(names), 1 if include_ops else 0, opts.ptr,
                                                  byref(out), eb, len(eb))
            if rc:
                raise _exc(rc, pystr(eb.value))
            nodes = self._nodes_by_id(opts)
            node = (lambda i: nodes.get(i) or Node(i, None, -1))
            try:
                res = {}
                for i in range(lib.gregor_topic_descriptions_count(out)):
                    name = pystr(lib.gregor_topic_descriptions_name(out, i))
                    err = lib.gregor_topic_descriptions_err(out, i)
                    if err:
                        res[name] = _exc(err, pystr(lib.gregor_topic_descriptions_errstr(out, i)))
                        continue
                    parts = []
                    for p in range(lib.gregor_topic_descriptions_partition_count(out, i)):
                        leader = lib.gregor_topic_descriptions_partition_leader(out, i, p)
                        parts.append(TopicPartitionInfo(
                            lib.gregor_topic_descriptions_partition_id(out, i, p),
                            node(leader) if leader >= 0 else None,
                            [node(b) for b in _int32s(lib.gregor_topic_descriptions_partition_replicas, out, i, p)],
                            [node(b) for b in _int32s(lib.gregor_topic_descriptions_partition_isr, out, i, p)]))
                    ops = None
                    if include_ops:
                        buf = (c_int * 64)()
                        n = lib.gregor_topic_descriptions_authorized_operations(out, i, buf, 64)
                        if n >= 0:
                            ops = [AclOperation(v) for v in buf[:min(n, 64)]]
                    res[name] = TopicDescription(name, pystr(lib.gregor_topic_descriptions_topic_id(out, i)),
                                                 lib.gregor_topic_descriptions_is_internal(out, i) == 1, parts, ops)
                return res
            finally:
                lib.gregor_topic_descriptions_free(out)

        self._run(futures, do, opts.free)
        return futures
