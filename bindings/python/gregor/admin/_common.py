"""What the AdminClient's call families share: a request's options
(``_Options``, from confluent-kafka's keyword arguments) and futures, the
exception of a failed result, confluent-kafka's timeout argument checks,
the enums read from the library's descriptor tables, and the partition
results of the list_offsets, delete_records and elect_leaders calls.
"""

import concurrent.futures
from ctypes import c_int64, c_size_t, c_void_p
from enum import Enum

from .._descriptors import enum_descs
from .._lib import EXTRA, lib, ms, pystr
from ..error import KafkaError, KafkaException

EXTRA["gregor_partition_results_timestamp"] = (c_int64, [c_void_p, c_size_t])


class _Ordered(Enum):
    """An enum whose members sort by value (as confluent-kafka's)."""

    def __lt__(self, other):
        return self.value < other.value


def _from_library(module, cls_name, kind, base=Enum, rename=None):
    """An Enum built from the library's descriptor table ``kind``; ``rename``
    maps the library's (the Java client's) names to confluent-kafka's where
    they differ; ``module`` is the defining module's ``__name__``."""
    rename = rename or {}
    members = [(rename.get(name, name), value) for value, name, _c, _d in enum_descs(kind)]
    return base(cls_name, members, module=module)


def _enum(value, cls, what):
    if isinstance(value, cls):
        return value
    if isinstance(value, str):
        try:
            return cls[value.upper()]
        except KeyError:
            raise ValueError(f"Unknown {what} name {value!r}") from None
    if isinstance(value, int):
        return cls(value)
    raise TypeError(f"{what} must be a {cls.__name__}, not {type(value).__name__}")


def _exc(code, text):
    return KafkaException(KafkaError(code, text or None))


class _Options:
    """A gregor_admin_options from confluent-kafka's keyword arguments."""

    ALLOWED = {"request_timeout", "operation_timeout", "validate_only"}

    def __init__(self, kwargs, allowed=()):
        unknown = set(kwargs) - self.ALLOWED - set(allowed)
        if unknown:
            raise TypeError(f"unexpected keyword argument(s): {', '.join(sorted(unknown))}")
        _check_timeouts(kwargs)
        self.ptr = lib.gregor_admin_options_new()
        if "request_timeout" in kwargs and kwargs["request_timeout"] is not None:
            lib.gregor_admin_options_set_request_timeout(self.ptr, ms(kwargs["request_timeout"], -1))
        if "operation_timeout" in kwargs and kwargs["operation_timeout"] is not None:
            lib.gregor_admin_options_set_operation_timeout(self.ptr, ms(kwargs["operation_timeout"], -1))
        if kwargs.get("validate_only"):
            lib.gregor_admin_options_set_validate_only(self.ptr, 1)

    def free(self):
        lib.gregor_admin_options_free(self.ptr)
        self.ptr = None


def _new_future():
    f = concurrent.futures.Future()
    f.set_running_or_notify_cancel()
    return f


# -- argument checks (confluent-kafka's: TypeError for types, ValueError for values)


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
