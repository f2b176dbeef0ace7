"""``elect_leaders``: a preferred or unclean leader election
(``ElectionType``) for some partitions or for every one that needs it."""

from ctypes import POINTER, byref, c_char_p, c_int, c_size_t, c_void_p

from .._lib import EXTRA, errbuf, lib, pystr
from .._model import ElectionType
from ._common import _check_timeouts, _exc, _new_future, _Options, _partition_results, _topic_partitions_tpl

P = c_void_p
E = [c_char_p, c_size_t]
PP = POINTER(c_void_p)

EXTRA.update({
    "gregor_admin_elect_leaders": (c_int, [P, c_int, P, P, PP] + E),
})

_ElectionType = ElectionType  # confluent-kafka's admin module exports it under this name too


class _ElectionCalls:
    """Mixed into AdminClient."""

    def elect_leaders(self, election_type, partitions=None, **kwargs):
        """Future({TopicPartition: KafkaException or None}); ``partitions``
        None: every partition that needs an election."""
        from .. import TopicPartition

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
