"""Loads libgregor and declares the C functions the bindings call.

The library is looked for, in order: the path in ``GREGOR_LIBRARY``; a
``libgregor.so`` next to this package; the system loader (``libgregor.so.0``,
then ``libgregor.so``, then ``ctypes.util.find_library``).

Functions are resolved lazily, on first use: a library that lacks one (an
older build, or one without a later feature) still loads, and only the call
that needs the missing function fails, with a ``KafkaException`` naming it.

``CDLL`` (not ``PyDLL``) on purpose: ctypes releases the GIL around every
call, so blocking calls (poll, flush, admin requests) let other Python
threads run; callbacks re-acquire it.
"""

import ctypes
import ctypes.util
import os
from ctypes import (
    CFUNCTYPE,
    POINTER,
    Structure,
    c_char_p,
    c_double,
    c_int,
    c_int32,
    c_int64,
    c_size_t,
    c_uint8,
    c_void_p,
)

ERRSTR_SIZE = 512


class Slice(Structure):
    """``gregor_slice``: a borrowed (ptr, len) view."""

    _fields_ = [("ptr", POINTER(c_uint8)), ("len", c_size_t)]

    def bytes(self):
        if not self.ptr:
            return None
        return ctypes.string_at(self.ptr, self.len)


class DeliveryReport(Structure):
    """``gregor_delivery_report``."""

    _fields_ = [
        ("topic", c_char_p),
        ("partition", c_int32),
        ("offset", c_int64),
        ("timestamp", c_int64),
        ("err", c_int),
        ("errstr", c_char_p),
        ("msg_opaque", c_void_p),
        ("message", c_void_p),  # the report as a gregor_message (status, latency, key/value/headers)
    ]


DR_CB = CFUNCTYPE(None, POINTER(DeliveryReport), c_void_p)
REBALANCE_CB = CFUNCTYPE(None, c_void_p, c_int32, c_void_p, c_void_p)
COMMIT_CB = CFUNCTYPE(None, c_void_p, c_int32, c_void_p, c_void_p)
# gregor_log_cb(opaque, level, fac, name, buf)
LOG_CB = CFUNCTYPE(None, c_void_p, c_int, c_char_p, c_char_p, c_char_p)

P = c_void_p  # every opaque handle
S = c_char_p
E = [c_char_p, c_size_t]  # errstr, errstr_size
PP = POINTER(c_void_p)  # out-parameter for a handle
CSTRS = POINTER(c_char_p)  # const char *const *
I32P = POINTER(c_int32)
I64P = POINTER(c_int64)

# name: (restype, argtypes)
SIGNATURES = {
    "gregor_version": (S, []),
    "gregor_err_name": (S, [c_int]),
    "gregor_err_str": (S, [c_int]),
    "gregor_err_rdkafka_name": (S, [c_int]),
    # config
    "gregor_config_new": (P, []),
    "gregor_config_set": (c_int, [P, S, S] + E),
    "gregor_config_free": (None, [P]),
    "gregor_config_set_log_cb": (c_int, [P, LOG_CB, c_void_p]),
    "gregor_config_dump": (PP, [P, POINTER(c_size_t)]),
    "gregor_config_dump_free": (None, [PP, c_size_t]),
    # headers
    "gregor_headers_new": (P, []),
    "gregor_headers_add": (c_int, [P, S, POINTER(c_uint8), c_size_t]),
    "gregor_headers_free": (None, [P]),
    # producer
    "gregor_producer_new": (P, [P] + E),
    "gregor_producer_free": (None, [P]),
    "gregor_producer_set_dr_cb": (c_int, [P, DR_CB, c_void_p]),
    "gregor_producer_send": (
        c_int,
        [P, S, c_int32, POINTER(c_uint8), c_size_t, POINTER(c_uint8), c_size_t, P, c_int64, c_void_p, c_int]
        + E,
    ),
    "gregor_producer_poll": (c_int, [P, c_int]),
    "gregor_producer_flush": (c_int, [P, c_int]),
    "gregor_producer_len": (c_size_t, [P]),
    "gregor_producer_close": (None, [P, c_int]),
    "gregor_producer_metadata": (c_int, [P, S, c_int, PP] + E),
    "gregor_producer_init_transactions": (c_int, [P, c_int] + E),
    "gregor_producer_begin_transaction": (c_int, [P] + E),
    "gregor_producer_send_offsets_to_transaction": (c_int, [P, P, S, c_int] + E),
    "gregor_producer_commit_transaction": (c_int, [P, c_int] + E),
    "gregor_producer_abort_transaction": (c_int, [P, c_int] + E),
    "gregor_producer_purge": (c_int, [P, c_int]),
    # topic/partition lists
    "gregor_tpl_new": (P, []),
    "gregor_tpl_add": (c_int, [P, S, c_int32, c_int64]),
    "gregor_tpl_count": (c_size_t, [P]),
    "gregor_tpl_free": (None, [P]),
    "gregor_tpl_topic": (S, [P, c_size_t]),
    "gregor_tpl_partition": (c_int32, [P, c_size_t]),
    "gregor_tpl_offset": (c_int64, [P, c_size_t]),
    "gregor_tpl_leader_epoch": (c_int32, [P, c_size_t]),
    "gregor_tpl_err": (c_int, [P, c_size_t]),
    "gregor_tpl_errstr": (c_int, [P, c_size_t, c_char_p, c_size_t]),
    "gregor_tpl_set_offset": (c_int, [P, c_size_t, c_int64]),
    "gregor_tpl_set_leader_epoch": (c_int, [P, c_size_t, c_int32]),
    "gregor_tpl_set_metadata": (c_int32, [P, c_size_t, S]),
    "gregor_tpl_metadata": (S, [P, c_size_t]),
    # consumer
    "gregor_consumer_new": (P, [P] + E),
    "gregor_consumer_free": (None, [P]),
    "gregor_consumer_close": (c_int, [P]),
    "gregor_consumer_assign": (c_int, [P, P] + E),
    "gregor_consumer_unassign": (c_int, [P] + E),
    "gregor_consumer_incremental_assign": (c_int, [P, P] + E),
    "gregor_consumer_incremental_unassign": (c_int, [P, P] + E),
    "gregor_consumer_assignment": (c_int, [P, PP]),
    "gregor_consumer_poll": (P, [P, c_int]),
    "gregor_consumer_seek": (c_int, [P, S, c_int32, c_int64] + E),
    "gregor_consumer_seek_partitions": (c_int, [P, P] + E),
    "gregor_consumer_pause": (c_int, [P, P] + E),
    "gregor_consumer_resume": (c_int, [P, P] + E),
    "gregor_consumer_position": (c_int, [P, P] + E),
    "gregor_consumer_committed": (c_int, [P, P, c_int] + E),
    "gregor_consumer_offsets_for_times": (c_int, [P, P, c_int] + E),
    "gregor_consumer_get_watermark_offsets": (c_int, [P, S, c_int32, I64P, I64P] + E),
    "gregor_consumer_watermarks": (c_int, [P, S, c_int32, I64P, I64P, c_int] + E),
    "gregor_consumer_metadata": (c_int, [P, S, c_int, PP] + E),
    # consumer groups
    "gregor_consumer_set_rebalance_cb": (c_int32, [P, REBALANCE_CB, c_void_p]),
    "gregor_consumer_set_commit_cb": (c_int32, [P, COMMIT_CB, c_void_p]),
    "gregor_consumer_subscribe": (c_int32, [P, CSTRS, c_size_t] + E),
    "gregor_consumer_unsubscribe": (c_int32, [P]),
    "gregor_consumer_subscription": (c_int32, [P, PP]),
    "gregor_consumer_commit": (c_int32, [P, P, c_int32] + E),
    "gregor_consumer_store_offsets": (c_int32, [P, P]),
    "gregor_consumer_member_id": (c_int32, [P, c_char_p, c_size_t]),
    # messages
    "gregor_message_topic": (S, [P]),
    "gregor_message_partition": (c_int32, [P]),
    "gregor_message_offset": (c_int64, [P]),
    "gregor_message_key": (Slice, [P]),
    "gregor_message_value": (Slice, [P]),
    "gregor_message_timestamp": (c_int64, [P, POINTER(c_int)]),
    "gregor_message_leader_epoch": (c_int32, [P]),
    "gregor_message_header_count": (c_size_t, [P]),
    "gregor_message_header": (c_int, [P, c_size_t, POINTER(Slice), POINTER(Slice)]),
    "gregor_message_err": (c_int, [P]),
    "gregor_message_errstr": (S, [P]),
    "gregor_message_free": (None, [P]),
    "gregor_message_status": (c_int, [P]),
    "gregor_message_latency": (c_int64, [P]),
    # metadata
    "gregor_metadata_broker_count": (c_size_t, [P]),
    "gregor_metadata_broker_id": (c_int32, [P, c_size_t]),
    "gregor_metadata_broker_host": (S, [P, c_size_t]),
    "gregor_metadata_broker_port": (c_int32, [P, c_size_t]),
    "gregor_metadata_controller_id": (c_int32, [P]),
    "gregor_metadata_cluster_id": (S, [P]),
    "gregor_metadata_topic_count": (c_size_t, [P]),
    "gregor_metadata_topic_name": (S, [P, c_size_t]),
    "gregor_metadata_topic_err": (c_int, [P, c_size_t]),
    "gregor_metadata_partition_count": (c_size_t, [P, c_size_t]),
    "gregor_metadata_partition_id": (c_int32, [P, c_size_t, c_size_t]),
    "gregor_metadata_partition_leader": (c_int32, [P, c_size_t, c_size_t]),
    "gregor_metadata_partition_err": (c_int, [P, c_size_t, c_size_t]),
    "gregor_metadata_partition_replicas": (c_size_t, [P, c_size_t, c_size_t, I32P, c_size_t]),
    "gregor_metadata_partition_isrs": (c_size_t, [P, c_size_t, c_size_t, I32P, c_size_t]),
    "gregor_metadata_free": (None, [P]),
    # admin
    "gregor_admin_new": (P, [P] + E),
    "gregor_admin_free": (None, [P]),
    "gregor_admin_options_new": (P, []),
    "gregor_admin_options_set_request_timeout": (c_int, [P, c_int64]),
    "gregor_admin_options_set_operation_timeout": (c_int, [P, c_int64]),
    "gregor_admin_options_set_validate_only": (c_int, [P, c_int]),
    "gregor_admin_options_free": (None, [P]),
    "gregor_new_topic_new": (P, [S, c_int32, c_int32]),
    "gregor_new_topic_set_replica_assignment": (c_int, [P, c_int32, I32P, c_size_t] + E),
    "gregor_new_topic_set_config": (c_int, [P, S, S] + E),
    "gregor_new_topic_free": (None, [P]),
    "gregor_new_partitions_new": (P, [S, c_int32]),
    "gregor_new_partitions_set_replica_assignment": (c_int, [P, c_size_t, I32P, c_size_t] + E),
    "gregor_new_partitions_free": (None, [P]),
    "gregor_admin_create_topics": (c_int, [P, PP, c_size_t, P, PP] + E),
    "gregor_admin_delete_topics": (c_int, [P, CSTRS, c_size_t, P, PP] + E),
    "gregor_admin_create_partitions": (c_int, [P, PP, c_size_t, P, PP] + E),
    "gregor_topic_results_count": (c_size_t, [P]),
    "gregor_topic_results_name": (S, [P, c_size_t]),
    "gregor_topic_results_err": (c_int, [P, c_size_t]),
    "gregor_topic_results_errstr": (S, [P, c_size_t]),
    "gregor_topic_results_free": (None, [P]),
    "gregor_config_resource_new": (P, [c_int, S]),
    "gregor_config_resource_set_config": (c_int, [P, S, S]),
    "gregor_config_resource_add_incremental_config": (c_int, [P, S, c_int, S] + E),
    "gregor_config_resource_free": (None, [P]),
    "gregor_admin_describe_configs": (c_int, [P, PP, c_size_t, CSTRS, c_size_t, c_int, c_int, P, PP] + E),
    "gregor_admin_alter_configs": (c_int, [P, PP, c_size_t, P, PP] + E),
    "gregor_admin_incremental_alter_configs": (c_int, [P, PP, c_size_t, P, PP] + E),
    "gregor_config_results_count": (c_size_t, [P]),
    "gregor_config_results_type": (c_int, [P, c_size_t]),
    "gregor_config_results_name": (S, [P, c_size_t]),
    "gregor_config_results_err": (c_int, [P, c_size_t]),
    "gregor_config_results_errstr": (S, [P, c_size_t]),
    "gregor_config_results_entry_count": (c_size_t, [P, c_size_t]),
    "gregor_config_results_entry_name": (S, [P, c_size_t, c_size_t]),
    "gregor_config_results_entry_value": (S, [P, c_size_t, c_size_t]),
    "gregor_config_results_entry_source": (c_int, [P, c_size_t, c_size_t]),
    "gregor_config_results_entry_is_default": (c_int, [P, c_size_t, c_size_t]),
    "gregor_config_results_entry_is_read_only": (c_int, [P, c_size_t, c_size_t]),
    "gregor_config_results_entry_is_sensitive": (c_int, [P, c_size_t, c_size_t]),
    "gregor_config_results_synonym_count": (c_size_t, [P, c_size_t, c_size_t]),
    "gregor_config_results_synonym_name": (S, [P, c_size_t, c_size_t, c_size_t]),
    "gregor_config_results_synonym_value": (S, [P, c_size_t, c_size_t, c_size_t]),
    "gregor_config_results_synonym_source": (c_int, [P, c_size_t, c_size_t, c_size_t]),
    "gregor_config_results_free": (None, [P]),
    "gregor_acl_binding_new": (P, [c_int, S, c_int, S, S, c_int, c_int] + E),
    "gregor_acl_binding_free": (None, [P]),
    "gregor_acl_filter_new": (P, [c_int, S, c_int, S, S, c_int, c_int] + E),
    "gregor_acl_filter_free": (None, [P]),
    "gregor_admin_describe_acls": (c_int, [P, P, P, PP] + E),
    "gregor_admin_create_acls": (c_int, [P, PP, c_size_t, P, PP] + E),
    "gregor_admin_delete_acls": (c_int, [P, PP, c_size_t, P, PP] + E),
    "gregor_acl_bindings_count": (c_size_t, [P]),
    "gregor_acl_bindings_resource_type": (c_int, [P, c_size_t]),
    "gregor_acl_bindings_resource_name": (S, [P, c_size_t]),
    "gregor_acl_bindings_pattern_type": (c_int, [P, c_size_t]),
    "gregor_acl_bindings_principal": (S, [P, c_size_t]),
    "gregor_acl_bindings_host": (S, [P, c_size_t]),
    "gregor_acl_bindings_operation": (c_int, [P, c_size_t]),
    "gregor_acl_bindings_permission_type": (c_int, [P, c_size_t]),
    "gregor_acl_bindings_err": (c_int, [P, c_size_t]),
    "gregor_acl_bindings_errstr": (S, [P, c_size_t]),
    "gregor_acl_bindings_free": (None, [P]),
    "gregor_delete_acls_results_count": (c_size_t, [P]),
    "gregor_delete_acls_results_err": (c_int, [P, c_size_t]),
    "gregor_delete_acls_results_errstr": (S, [P, c_size_t]),
    "gregor_delete_acls_results_matches": (P, [P, c_size_t]),
    "gregor_delete_acls_results_free": (None, [P]),
    "gregor_admin_describe_cluster": (c_int, [P, c_int, P, PP] + E),
    "gregor_cluster_description_cluster_id": (S, [P]),
    "gregor_cluster_description_controller_id": (c_int32, [P]),
    "gregor_cluster_description_broker_count": (c_size_t, [P]),
    "gregor_cluster_description_broker_id": (c_int32, [P, c_size_t]),
    "gregor_cluster_description_broker_host": (S, [P, c_size_t]),
    "gregor_cluster_description_broker_port": (c_int32, [P, c_size_t]),
    "gregor_cluster_description_broker_rack": (S, [P, c_size_t]),
    "gregor_cluster_description_free": (None, [P]),
}

# Extra signatures other modules register (e.g. the group admin calls).
EXTRA = {}


def _candidates():
    env = os.environ.get("GREGOR_LIBRARY")
    if env:
        return [env]
    here = os.path.dirname(os.path.abspath(__file__))
    out = [os.path.join(here, "libgregor.so")]
    out += ["libgregor.so.0", "libgregor.so"]
    found = ctypes.util.find_library("gregor")
    if found:
        out.append(found)
    return out


class Lib:
    """libgregor with its functions bound on first use."""

    def __init__(self):
        errors = []
        self.cdll = None
        for cand in _candidates():
            if os.path.sep in cand and not os.path.exists(cand):
                errors.append(f"{cand}: no such file")
                continue
            try:
                self.cdll = ctypes.CDLL(cand)
                self.path = cand
                break
            except OSError as e:
                errors.append(str(e))
        if self.cdll is None:
            raise ImportError(
                "gregor: cannot load libgregor (set GREGOR_LIBRARY to its path, put it next to "
                "the package, or install it with `make install`): " + "; ".join(errors)
            )

    def has(self, name):
        """True if the loaded library exports ``name``."""
        try:
            getattr(self.cdll, name)
            return True
        except AttributeError:
            return False

    def __getattr__(self, name):
        if not name.startswith("gregor_"):
            raise AttributeError(name)
        sig = SIGNATURES.get(name) or EXTRA.get(name)
        if sig is None:
            raise AttributeError(f"gregor: no signature declared for {name}")
        try:
            fn = getattr(self.cdll, name)
        except AttributeError:
            from ._kafka_error import KafkaError, KafkaException

            raise KafkaException(
                KafkaError(
                    KafkaError._NOT_IMPLEMENTED,
                    f"{name} is not in the loaded libgregor ({self.path}); "
                    "this call needs a newer build of the library",
                )
            ) from None
        fn.restype, fn.argtypes = sig
        setattr(self, name, fn)
        return fn


lib = Lib()


def errbuf():
    """A fresh errstr buffer."""
    return ctypes.create_string_buffer(ERRSTR_SIZE)


def cstr(s):
    """str/bytes/None to bytes for a `const char *` argument."""
    if s is None:
        return None
    b = s if isinstance(s, bytes) else str(s).encode("utf-8")
    # C reads up to the first NUL: "rt\0evil" would silently become "rt"
    # (CPython refuses such strings for C the same way)
    if b"\0" in b:
        raise ValueError(f"embedded null character in {s!r}")
    return b


def pystr(b):
    """A `const char *` result to str."""
    if b is None:
        return None
    return b.decode("utf-8", "replace")


def to_bytes(v):
    """A key/value/header value: None, bytes-like, or str (UTF-8)."""
    if v is None:
        return None
    if isinstance(v, str):
        return v.encode("utf-8")
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v)
    raise TypeError(f"expected str, bytes or None, not {type(v).__name__}")


def buf_arg(b):
    """(pointer, length) for bytes or None."""
    if b is None:
        return None, 0
    return ctypes.cast(ctypes.c_char_p(b), POINTER(c_uint8)), len(b)


def cstr_array(items):
    """A `const char *const *` array (keep the result alive during the call)."""
    arr = (c_char_p * max(len(items), 1))()
    for i, s in enumerate(items):
        arr[i] = cstr(s)
    return arr


def handle_array(handles):
    arr = (c_void_p * max(len(handles), 1))()
    for i, h in enumerate(handles):
        arr[i] = h
    return arr


def ms(timeout, infinite=-1):
    """Seconds (float; None or negative: infinite) to the C API's int ms
    (whose -1 waits forever, as librdkafka's)."""
    if timeout is None or timeout < 0:
        return infinite
    return min(int(timeout * 1000), 0x7FFFFFFF)


__all__ = [
    "lib",
    "errbuf",
    "cstr",
    "pystr",
    "to_bytes",
    "buf_arg",
    "cstr_array",
    "handle_array",
    "ms",
    "DR_CB",
    "REBALANCE_CB",
    "COMMIT_CB",
    "Slice",
    "c_double",
    "c_int64",
    "c_int32",
]
