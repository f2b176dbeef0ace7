"""``delete_records``: deletes a partition's records before an offset,
answered as ``DeletedRecords`` (the new low watermark)."""

from ctypes import POINTER, byref, c_char_p, c_int, c_size_t, c_void_p

from .._lib import EXTRA, errbuf, lib, pystr
from ._common import _check_timeouts, _exc, _new_future, _Options, _partition_results, _topic_partitions_tpl

P = c_void_p
E = [c_char_p, c_size_t]
PP = POINTER(c_void_p)

EXTRA.update({
    "gregor_admin_delete_records": (c_int, [P, P, P, PP] + E),
})


class DeletedRecords:
    """A partition's ``delete_records`` answer: its new low watermark."""

    def __init__(self, low_watermark):
        self.low_watermark = low_watermark


class _RecordsCalls:
    """Mixed into AdminClient."""

    def delete_records(self, topic_partition_offsets, **kwargs):
        """{TopicPartition: Future(DeletedRecords)}: deletes the records before
        each partition's offset (OFFSET_END: all)."""
        from .. import TopicPartition

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
