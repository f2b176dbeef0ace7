"""AdminClient calls and types confluent-kafka has beyond topics, configs,
ACLs and groups: describe_topics, list_offsets (OffsetSpec), delete_records,
elect_leaders, SCRAM credentials (describe / alter), poll, context manager,
and the argument checks confluent-kafka makes (TypeError for a wrong type,
ValueError for a wrong value).

Bound to libgregor's admin functions (gregor_admin_describe_topics, …)
lazily, like every other function.
"""

import ctypes
import time
from ctypes import POINTER, byref, c_char_p, c_int, c_int32, c_int64, c_size_t, c_uint8, c_void_p
from enum import Enum

from .._lib import EXTRA, buf_arg, cstr, cstr_array, errbuf, lib, pystr
from .._model import ElectionType, IsolationLevel, TopicCollection, TopicPartitionInfo
from ..error import KafkaError, KafkaException

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
    "gregor_admin_list_offsets": (c_int, [P, P, c_int, P, PP] + E),
    "gregor_admin_delete_records": (c_int, [P, P, P, PP] + E),
    "gregor_admin_elect_leaders": (c_int, [P, c_int, P, P, PP] + E),
    "gregor_partition_results_timestamp": (c_int64, [P, c_size_t]),
    "gregor_admin_describe_user_scram_credentials": (c_int, [P, CSTRS, c_size_t, P, PP] + E),
    "gregor_admin_alter_user_scram_credentials": (c_int, [P, P, P, PP] + E),
    "gregor_scram_alterations_new": (P, []),
    "gregor_scram_alterations_add_upsert": (c_int, [P, S, c_int, c_int32, S, POINTER(c_uint8), c_size_t]),
    "gregor_scram_alterations_add_delete": (c_int, [P, S, c_int]),
    "gregor_scram_alterations_free": (None, [P]),
    "gregor_scram_users_count": (c_size_t, [P]),
    "gregor_scram_users_name": (S, [P, c_size_t]),
    "gregor_scram_users_err": (c_int, [P, c_size_t]),
    "gregor_scram_users_errstr": (S, [P, c_size_t]),
    "gregor_scram_users_credential_count": (c_size_t, [P, c_size_t]),
    "gregor_scram_users_credential_mechanism": (c_int, [P, c_size_t, c_size_t]),
    "gregor_scram_users_credential_iterations": (c_int32, [P, c_size_t, c_size_t]),
    "gregor_scram_users_free": (None, [P]),
})

# GREGOR_OFFSET_SPEC_* (include/gregor.h): librdkafka's and Kafka's
# ListOffsets timestamps for latest / earliest / max timestamp.
_SPEC_LATEST, _SPEC_EARLIEST, _SPEC_MAX_TIMESTAMP = -1, -2, -3

_ElectionType = ElectionType  # confluent-kafka's admin module exports it under this name too


def _exc(code, text):
    return KafkaException(KafkaError(code, text or None))


# -- types --------------------------------------------------------------------


class ScramMechanism(Enum):
    """SASL/SCRAM mechanisms (Kafka's ScramMechanism ids)."""

    UNKNOWN = 0
    SCRAM_SHA_256 = 1
    SCRAM_SHA_512 = 2

    def __lt__(self, other):
        if not isinstance(other, ScramMechanism):
            return NotImplemented
        return self.value < other.value


class ScramCredentialInfo:
    """A SCRAM credential's mechanism and iteration count."""

    def __init__(self, mechanism, iterations):
        self.mechanism = mechanism
        self.iterations = iterations


class UserScramCredentialsDescription:
    """A user's SCRAM credentials (``scram_credential_infos``)."""

    def __init__(self, user, scram_credential_infos):
        self.user = user
        self.scram_credential_infos = scram_credential_infos


class UserScramCredentialAlteration:
    """Base of the SCRAM credential changes."""

    def __init__(self, user):
        self.user = user


class UserScramCredentialUpsertion(UserScramCredentialAlteration):
    """Sets a user's credential for a mechanism (password bytes, optional salt bytes)."""

    def __init__(self, user, scram_credential_info, password, salt=None):
        super().__init__(user)
        self.scram_credential_info = scram_credential_info
        self.password = password
        self.salt = salt


class UserScramCredentialDeletion(UserScramCredentialAlteration):
    """Deletes a user's credential for a mechanism."""

    def __init__(self, user, mechanism):
        super().__init__(user)
        self.mechanism = mechanism


class OffsetSpec:
    """What ``list_offsets`` looks up for a partition: ``earliest()``,
    ``latest()``, ``max_timestamp()`` or ``for_timestamp(ms)``."""

    _values = {}

    def __new__(cls, index):
        if index < 0:
            return cls._values[index]
        return cls.for_timestamp(index)

    @classmethod
    def earliest(cls):
        return cls._values[_SPEC_EARLIEST]

    @classmethod
    def latest(cls):
        return cls._values[_SPEC_LATEST]

    @classmethod
    def max_timestamp(cls):
        return cls._values[_SPEC_MAX_TIMESTAMP]

    @classmethod
    def for_timestamp(cls, timestamp):
        return TimestampSpec(timestamp)

    def __lt__(self, other):
        if not isinstance(other, OffsetSpec):
            return NotImplemented
        return self._value < other._value


class TimestampSpec(OffsetSpec):
    """The earliest offset whose timestamp is >= ``timestamp`` (ms)."""

    def __new__(cls, _timestamp):
        return object.__new__(cls)

    def __init__(self, timestamp):
        self.timestamp = timestamp

    @property
    def _value(self):
        return self.timestamp


class MaxTimestampSpec(OffsetSpec):
    """The offset with the largest timestamp."""

    _value = _SPEC_MAX_TIMESTAMP

    def __new__(cls):
        return object.__new__(cls)


class LatestSpec(OffsetSpec):
    """The partition's end offset."""

    _value = _SPEC_LATEST

    def __new__(cls):
        return object.__new__(cls)


class EarliestSpec(OffsetSpec):
    """The partition's start offset."""

    _value = _SPEC_EARLIEST

    def __new__(cls):
        return object.__new__(cls)


OffsetSpec._values.update({_SPEC_MAX_TIMESTAMP: MaxTimestampSpec(), _SPEC_EARLIEST: EarliestSpec(),
                           _SPEC_LATEST: LatestSpec()})


class ListOffsetsResultInfo:
    """A partition's ``list_offsets`` answer: offset, timestamp (-1 for
    earliest / latest) and leader epoch (None if not known)."""

    def __init__(self, offset, timestamp, leader_epoch):
        self.offset = offset
        self.timestamp = timestamp
        self.leader_epoch = leader_epoch if leader_epoch is not None and leader_epoch >= 0 else None


class DeletedRecords:
    """A partition's ``delete_records`` answer: its new low watermark."""

    def __init__(self, low_watermark):
        self.low_watermark = low_watermark


class TopicDescription:
    """A topic as ``describe_topics`` describes it."""

    def __init__(self, name, topic_id, is_internal, partitions, authorized_operations=None):
        self.name = name
        self.topic_id = topic_id
        self.is_internal = is_internal
        self.partitions = partitions
        self.authorized_operations = authorized_operations


# -- argument checks (confluent-kafka's: TypeError for types, ValueError for values)


def _check_group_offsets_request(request, altering):
    from .. import OFFSET_INVALID, TopicPartition
    from . import ConsumerGroupTopicPartitions

    if request is None:
        raise TypeError("request cannot be None")
    if not isinstance(request, list):
        raise TypeError("request must be a list")
    if len(request) != 1:
        raise ValueError("Currently we support {} offsets for a single consumer group only".format(
            "altering" if altering else "listing"))
    req = request[0]
    if not isinstance(req, ConsumerGroupTopicPartitions):
        raise TypeError("Expected list of 'ConsumerGroupTopicPartitions'")
    if req.group_id is None:
        raise TypeError("'group_id' cannot be None")
    if not isinstance(req.group_id, str):
        raise TypeError("'group_id' must be a string")
    if not req.group_id:
        raise ValueError("'group_id' cannot be empty")
    parts = req.topic_partitions
    if parts is None:
        if altering:
            raise ValueError("'topic_partitions' cannot be null")
        return req
    if not isinstance(parts, list):
        raise TypeError("'topic_partitions' must be a list")
    if not parts:
        raise ValueError("'topic_partitions' cannot be empty")
    for tp in parts:
        if tp is None:
            raise ValueError("Element of 'topic_partitions' cannot be None")
        if not isinstance(tp, TopicPartition):
            raise TypeError("Element of 'topic_partitions' must be of type TopicPartition")
        if not tp.topic:
            raise ValueError("Element of 'topic_partitions' must not have 'topic' attribute as Empty")
        if tp.partition < 0:
            raise ValueError("Element of 'topic_partitions' must not have negative 'partition' value")
        if altering and tp.offset < 0:
            raise ValueError("Element of 'topic_partitions' must not have negative value for 'offset' field")
        if not altering and tp.offset != OFFSET_INVALID:
            raise ValueError("Element of 'topic_partitions' must not have 'offset' value")
    return req


def _check_timeouts(kwargs):
    """request_timeout / operation_timeout: numbers (TypeError), >= 0 (ValueError)."""
    for k in ("request_timeout", "operation_timeout"):
        v = kwargs.get(k)
        if v is None:
            continue
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise TypeError(f"{k} must be a number of seconds, not {type(v).__name__}")
        if v < 0:
            raise ValueError(f"{k} must be >= 0")
    v = kwargs.get("validate_only")
    if v is not None and not isinstance(v, bool):
        raise TypeError("validate_only must be a bool")


def _topic_partitions_tpl(parts, with_offsets=True):
    from .. import _tpl_from

    return _tpl_from(parts, with_offsets=with_offsets)


def _partition_results(out):
    """[(topic, partition, err, errstr, offset, timestamp, leader_epoch)]."""
    res = []
    for i in range(lib.gregor_partition_results_count(out)):
        res.append((pystr(lib.gregor_partition_results_topic(out, i)), lib.gregor_partition_results_partition(out, i),
                    lib.gregor_partition_results_err(out, i), pystr(lib.gregor_partition_results_errstr(out, i)),
                    lib.gregor_partition_results_offset(out, i), lib.gregor_partition_results_timestamp(out, i),
                    lib.gregor_partition_results_leader_epoch(out, i)))
    return res


def _int32s(fn, d, i, p):
    n = fn(d, i, p, None, 0)
    arr = (c_int32 * max(n, 1))()
    n = fn(d, i, p, arr, n)
    return list(arr[:n])


# -- the calls ------------------------------------------------------------------


class _MoreCalls:
    """Mixed into AdminClient."""

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        """Closes the client; exceptions propagate."""
        self.close()
        return None

    def __len__(self):
        return 0  # requests are answered on worker threads, nothing waits in a queue for poll()

    def poll(self, timeout=-1):
        """Serves the client's callbacks for up to ``timeout`` s (None /
        negative: until one is served). The admin client has no callbacks
        to serve (its results complete futures from worker threads), so this
        waits out the timeout, as librdkafka's rd_kafka_poll does when
        nothing happens. Returns the number of events served (0)."""
        self._check_open()
        if timeout is None or timeout < 0:
            while True:
                time.sleep(0.2)
                self._check_open()
        if timeout > 0:
            time.sleep(timeout)
        return 0

    def set_sasl_credentials(self, username, password):
        """Sets the SASL user name and password new connections authenticate
        with (also those of list_topics)."""
        from .. import _set_sasl_credentials

        _set_sasl_credentials(lib.gregor_admin_set_sasl_credentials, self._ptr, username, password)
        self._sasl_credentials = (username, password)

    def describe_topics(self, topics, **kwargs):
        """{topic: Future(TopicDescription)}."""
        from . import Node, _Options, _new_future

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
                            from . import AclOperation

                            ops = [AclOperation(v) for v in buf[:min(n, 64)]]
                    res[name] = TopicDescription(name, pystr(lib.gregor_topic_descriptions_topic_id(out, i)),
                                                 lib.gregor_topic_descriptions_is_internal(out, i) == 1, parts, ops)
                return res
            finally:
                lib.gregor_topic_descriptions_free(out)

        self._run(futures, do, opts.free)
        return futures

    def _nodes_by_id(self, opts):
        """{broker id: Node} from describe_cluster, or {} if it fails (the
        Nodes then carry only their id)."""
        from . import Node

        out = c_void_p()
        eb = errbuf()
        if lib.gregor_admin_describe_cluster(self._ptr, 0, opts.ptr, byref(out), eb, len(eb)):
            return {}
        try:
            nodes = {}
            for i in range(lib.gregor_cluster_description_broker_count(out)):
                b = lib.gregor_cluster_description_broker_id(out, i)
                nodes[b] = Node(b, pystr(lib.gregor_cluster_description_broker_host(out, i)),
                                lib.gregor_cluster_description_broker_port(out, i),
                                pystr(lib.gregor_cluster_description_broker_rack(out, i)))
            return nodes
        finally:
            lib.gregor_cluster_description_free(out)

    def list_offsets(self, topic_partition_offsets, **kwargs):
        """{TopicPartition: Future(ListOffsetsResultInfo)} for a dict
        {TopicPartition: OffsetSpec}."""
        from .. import TopicPartition
        from . import _Options, _new_future

        self._check_open()
        if not isinstance(topic_partition_offsets, dict):
            raise TypeError("Expected topic_partition_offsets to be dict of [TopicPartitions,OffsetSpec] "
                            "for list offsets request")
        for tp, spec in topic_partition_offsets.items():
            if tp is None:
                raise TypeError("partition cannot be None")
            if not isinstance(tp, TopicPartition):
                raise TypeError("partition must be a TopicPartition")
            if not tp.topic:
                raise ValueError("partition topic name cannot be empty")
            if tp.partition < 0:
                raise ValueError("partition index must be non-negative")
            if spec is None:
                raise TypeError("OffsetSpec cannot be None")
            if not isinstance(spec, OffsetSpec):
                raise TypeError("Value must be a OffsetSpec")
        level = kwargs.pop("isolation_level", IsolationLevel.READ_UNCOMMITTED)
        if not isinstance(level, IsolationLevel):
            raise TypeError("isolation_level argument should be an IsolationLevel")
        _check_timeouts(kwargs)
        # one request per partition: a partition asked twice keeps its last spec
        specs = {TopicPartition(tp.topic, tp.partition): spec._value for tp, spec in topic_partition_offsets.items()}
        if not specs:
            return {}
        opts = _Options(kwargs)
        tpl = _topic_partitions_tpl([TopicPartition(tp.topic, tp.partition, v) for tp, v in specs.items()])
        futures = {tp: _new_future() for tp in specs}

        def do():
            out = c_void_p()
            eb = errbuf()
            rc = lib.gregor_admin_list_offsets(self._ptr, tpl, 1 if level == IsolationLevel.READ_COMMITTED else 0,
                                               opts.ptr, byref(out), eb, len(eb))
            if rc:
                raise _exc(rc, pystr(eb.value))
            try:
                res = {}
                for topic, part, err, errstr, off, ts, ep in _partition_results(out):
                    key = TopicPartition(topic, part)
                    res[key] = _exc(err, errstr) if err else ListOffsetsResultInfo(off, ts, ep)
                return res
            finally:
                lib.gregor_partition_results_free(out)

        def cleanup():
            lib.gregor_tpl_free(tpl)
            opts.free()

        self._run(futures, do, cleanup)
        return futures

    def delete_records(self, topic_partition_offsets, **kwargs):
        """{TopicPartition: Future(DeletedRecords)}: deletes the records before
        each partition's offset (OFFSET_END: all)."""
        from .. import TopicPartition
        from . import _Options, _new_future

        self._check_open()
        if not isinstance(topic_partition_offsets, list):
            raise TypeError(f"Expected Request to be a list, got '{type(topic_partition_offsets).__name__}' ")
        for tp in topic_partition_offsets:
            if not isinstance(tp, TopicPartition):
                raise TypeError("Element of the request list must be of type 'TopicPartition'"
                                f" got '{type(tp).__name__}' ")
            if not tp.topic:
                raise ValueError("'topic' cannot be empty")
            if tp.partition < 0:
                raise ValueError("'partition' cannot be negative")
        if len(set(topic_partition_offsets)) != len(topic_partition_offsets):
            raise ValueError("Duplicate partitions in the request")
        _check_timeouts(kwargs)
        if not topic_partition_offsets:
            return {}
        opts = _Options(kwargs)
        tpl = _topic_partitions_tpl(topic_partition_offsets)
        futures = {TopicPartition(tp.topic, tp.partition): _new_future() for tp in topic_partition_offsets}

        def do():
            out = c_void_p()
            eb = errbuf()
            rc = lib.gregor_admin_delete_records(self._ptr, tpl, opts.ptr, byref(out), eb, len(eb))
            if rc:
                raise _exc(rc, pystr(eb.value))
            try:
                return {TopicPartition(t, p): (_exc(err, errstr) if err else DeletedRecords(off))
                        for t, p, err, errstr, off, _ts, _ep in _partition_results(out)}
            finally:
                lib.gregor_partition_results_free(out)

        def cleanup():
            lib.gregor_tpl_free(tpl)
            opts.free()

        self._run(futures, do, cleanup)
        return futures

    def elect_leaders(self, election_type, partitions=None, **kwargs):
        """Future({TopicPartition: KafkaException or None}); ``partitions``
        None: every partition that needs an election."""
        from .. import TopicPartition
        from . import _Options, _new_future

        self._check_open()
        if not isinstance(election_type, ElectionType):
            raise TypeError("Expected 'election_type' to be of type 'ElectionType'")
        if partitions is not None:
            if not isinstance(partitions, list):
                raise TypeError(f"Expected 'partitions' to be a list, got '{type(partitions).__name__}'")
            for tp in partitions:
                if not isinstance(tp, TopicPartition):
                    raise TypeError("Element of the 'partitions' list must be of type 'TopicPartition'"
                                    f" got '{type(tp).__name__}' ")
                if not tp.topic:
                    raise ValueError("Elements of the 'partitions' list must not have an empty 'topic'")
                if tp.partition < 0:
                    raise ValueError("Elements of the 'partitions' list must not have negative value for "
                                     "'partition' field")
        _check_timeouts(kwargs)
        opts = _Options(kwargs)
        tpl = _topic_partitions_tpl(partitions, with_offsets=False) if partitions is not None else None
        f = _new_future()

        def do():
            out = c_void_p()
            eb = errbuf()
            rc = lib.gregor_admin_elect_leaders(self._ptr, election_type.value, tpl, opts.ptr, byref(out), eb,
                                                len(eb))
            if rc:
                raise _exc(rc, pystr(eb.value))
            try:
                return {0: {TopicPartition(t, p): (_exc(err, errstr) if err else None)
                            for t, p, err, errstr, _o, _ts, _ep in _partition_results(out)}}
            finally:
                lib.gregor_partition_results_free(out)

        def cleanup():
            if tpl is not None:
                lib.gregor_tpl_free(tpl)
            opts.free()

        self._run({0: f}, do, cleanup)
        return f

    def describe_user_scram_credentials(self, users=None, **kwargs):
        """users None: Future({user: UserScramCredentialsDescription}) for
        every user; else {user: Future(UserScramCredentialsDescription)}."""
        from . import _Options, _new_future

        self._check_open()
        if users is not None:
            if not isinstance(users, list):
                raise TypeError("Expected input to be list of String")
            for u in users:
                if u is None:
                    raise TypeError("'user' cannot be None")
                if not isinstance(u, str):
                    raise TypeError("Each value should be a string")
                if not u:
                    raise ValueError("'user' cannot be empty")
        _check_timeouts(kwargs)
        opts = _Options(kwargs)
        names = list(users or [])
        arr = cstr_array(names)
        dup = len(set(names)) != len(names)

        def do():
            if dup:
                raise _exc(KafkaError._INVALID_ARG, "Duplicate users not allowed")
            out = c_void_p()
            eb = errbuf()
            rc = lib.gregor_admin_describe_user_scram_credentials(self._ptr, arr, len(names), opts.ptr, byref(out),
                                                                  eb, len(eb))
            if rc:
                raise _exc(rc, pystr(eb.value))
            try:
                res = {}
                for i in range(lib.gregor_scram_users_count(out)):
                    name = pystr(lib.gregor_scram_users_name(out, i))
                    err = lib.gregor_scram_users_err(out, i)
                    if err:
                        res[name] = _exc(err, pystr(lib.gregor_scram_users_errstr(out, i)))
                        continue
                    infos = []
                    for k in range(lib.gregor_scram_users_credential_count(out, i)):
                        m = lib.gregor_scram_users_credential_mechanism(out, i, k)
                        infos.append(ScramCredentialInfo(
                            ScramMechanism(m) if m in (1, 2) else ScramMechanism.UNKNOWN,
                            lib.gregor_scram_users_credential_iterations(out, i, k)))
                    res[name] = UserScramCredentialsDescription(name, infos)
                return res
            finally:
                lib.gregor_scram_users_free(out)

        if users is None:
            f = _new_future()

            def do_all():
                res = do()
                for v in res.values():
                    if isinstance(v, BaseException):
                        raise v
                return {0: res}

            self._run({0: f}, do_all, opts.free)
            return f
        futures = {u: _new_future() for u in names}
        self._run(futures, do, opts.free)
        return futures

    def alter_user_scram_credentials(self, alterations, **kwargs):
        """{user: Future(None)} for a list of UserScramCredentialUpsertion /
        UserScramCredentialDeletion."""
        from . import _Options, _new_future

        self._check_open()
        if not isinstance(alterations, list):
            raise TypeError("Expected input to be list")
        if not alterations:
            raise ValueError("Expected at least one alteration")
        for a in alterations:
            if not isinstance(a, UserScramCredentialAlteration):
                raise TypeError("Expected each element of list to be subclass of UserScramCredentialAlteration")
            if a.user is None:
                raise TypeError("'user' cannot be None")
            if not isinstance(a.user, str):
                raise TypeError("'user' must be a string")
            if not a.user:
                raise ValueError("'user' cannot be empty")
            if isinstance(a, UserScramCredentialUpsertion):
                if a.password is None:
                    raise TypeError("'password' cannot be None")
                if not isinstance(a.password, bytes):
                    raise TypeError("'password' must be bytes")
                if not a.password:
                    raise ValueError("'password' cannot be empty")
                if a.salt is not None and not isinstance(a.salt, bytes):
                    raise TypeError("'salt' must be bytes")
                if a.salt is not None and not a.salt:
                    raise ValueError("'salt' can be None but cannot be empty")
                info = a.scram_credential_info
                if not isinstance(info, ScramCredentialInfo):
                    raise TypeError("Expected credential_info to be ScramCredentialInfo Type")
                if isinstance(info.iterations, bool) or not isinstance(info.iterations, int):
                    raise TypeError("Expected iterations to be an int")
                if info.iterations < 1:
                    raise ValueError("Iterations should be positive")
                if not isinstance(info.mechanism, ScramMechanism):
                    raise TypeError("Expected the mechanism to be ScramMechanism Type")
            elif isinstance(a, UserScramCredentialDeletion):
                if not isinstance(a.mechanism, ScramMechanism):
                    raise TypeError("Expected the mechanism to be ScramMechanism Type")
            else:
                raise TypeError("Expected each element of list 'alterations' to be either a "
                                "UserScramCredentialUpsertion or a UserScramCredentialDeletion")
        _check_timeouts(kwargs)
        opts = _Options(kwargs)
        h = lib.gregor_scram_alterations_new()
        try:
            for a in alterations:
                if isinstance(a, UserScramCredentialUpsertion):
                    sp, sn = buf_arg(a.salt)
                    rc = lib.gregor_scram_alterations_add_upsert(h, cstr(a.user), a.scram_credential_info.mechanism.value,
                                                                 a.scram_credential_info.iterations, a.password, sp,
                                                                 sn)
                else:
                    rc = lib.gregor_scram_alterations_add_delete(h, cstr(a.user), a.mechanism.value)
                if rc:
                    raise _exc(rc, f"invalid SCRAM alteration for user {a.user!r}")
        except BaseException:
            lib.gregor_scram_alterations_free(h)
            opts.free()
            raise
        users = list(dict.fromkeys(a.user for a in alterations))
        futures = {u: _new_future() for u in users}

        def do():
            out = c_void_p()
            eb = errbuf()
            rc = lib.gregor_admin_alter_user_scram_credentials(self._ptr, h, opts.ptr, byref(out), eb, len(eb))
            if rc:
                raise _exc(rc, pystr(eb.value))
            try:
                res = {}
                for i in range(lib.gregor_scram_users_count(out)):
                    err = lib.gregor_scram_users_err(out, i)
                    res[pystr(lib.gregor_scram_users_name(out, i))] = (
                        _exc(err, pystr(lib.gregor_scram_users_errstr(out, i))) if err else None)
                return res
            finally:
                lib.gregor_scram_users_free(out)

        def cleanup():
            lib.gregor_scram_alterations_free(h)
            opts.free()

        self._run(futures, do, cleanup)
        return futures


del ctypes


class GroupMember:
    """A member of a group, as ``list_groups`` reports it."""

    def __init__(self, id, client_id, client_host):
        self.id = id
        self.client_id = client_id
        self.client_host = client_host
        self.metadata = None
        self.assignment = None


class GroupMetadata:
    """A group, as the legacy ``list_groups`` reports it."""

    def __init__(self, id, broker, state, protocol_type, protocol, members, error=None):
        self.id = id
        self.broker = broker
        self.state = state
        self.protocol_type = protocol_type
        self.protocol = protocol
        self.members = members
        self.error = error

    def __repr__(self):
        return f"GroupMetadata({self.id})"

    def __str__(self):
        return str(self.id)


def _list_groups(self, group=None, timeout=-1):
    """The legacy group listing (confluent-kafka's list_groups): a list of
    GroupMetadata, synchronous; raises KafkaException when it fails."""
    _KAFKA_TIMEOUT_WAIT = 60.0  # seconds, when no timeout is given
    if not self._handle:
        raise RuntimeError("Handle has been closed")
    t = None if timeout is None or timeout < 0 else timeout
    kw = {} if t is None else {"request_timeout": t}
    if group is not None:
        ids = [group]
    else:
        res = self.list_consumer_groups(**kw).result(_KAFKA_TIMEOUT_WAIT if t is None else t + 5)
        ids = [g.group_id for g in res.valid]
    out = []
    if not ids:
        return out
    for gid, f in self.describe_consumer_groups(ids, **kw).items():
        try:
            d = f.result(_KAFKA_TIMEOUT_WAIT if t is None else t + 5)
        except KafkaException as e:
            out.append(GroupMetadata(gid, None, None, None, None, [], e.args[0]))
            continue
        members = [GroupMember(m.member_id, m.client_id, m.host) for m in d.members]
        out.append(GroupMetadata(gid, d.coordinator, d.state.name if d.state is not None else None,
                                 "consumer" if d.is_simple_consumer_group is False else "",
                                 d.partition_assignor, members))
    return out


_MoreCalls.list_groups = _list_groups
