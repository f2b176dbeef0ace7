"""``list_offsets``: a partition's earliest, latest or max-timestamp
offset, or the first at a timestamp (``OffsetSpec``), answered as
``ListOffsetsResultInfo``. A consumer group's committed offsets are the
group calls' (``_groups``)."""

from ctypes import POINTER, byref, c_char_p, c_int, c_size_t, c_void_p

from .._lib import EXTRA, errbuf, lib, pystr
from .._model import IsolationLevel
from ._common import _check_timeouts, _exc, _new_future, _Options, _partition_results, _topic_partitions_tpl

P = c_void_p
E = [c_char_p, c_size_t]
PP = POINTER(c_void_p)

EXTRA.update({
    "gregor_admin_list_offsets": (c_int, [P, P, c_int, P, PP] + E),
})

# GREGOR_OFFSET_SPEC_* (include/gregor.h): librdkafka's and Kafka's
# ListOffsets timestamps for latest / earliest / max timestamp.
_SPEC_LATEST, _SPEC_EARLIEST, _SPEC_MAX_TIMESTAMP = -1, -2, -3


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


class _OffsetCalls:
    """Mixed into AdminClient."""

    def list_offsets(self, topic_partition_offsets, **kwargs):
        """{TopicPartition: Future(ListOffsetsResultInfo)} for a dict
        {TopicPartition: OffsetSpec}."""
        from .. import TopicPartition

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
