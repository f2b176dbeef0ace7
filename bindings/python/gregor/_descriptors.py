"""The library's descriptor tables, read once when the package loads.

libgregor keeps one table per enumeration (error codes, ACL operations,
resource types, config sources, …) and hands each out through a descriptor
function, as librdkafka does with ``rd_kafka_get_err_descs``. The error
names of ``KafkaError`` and the admin enums are built from these, never
copied by hand, so they cannot drift from the library.
"""

import ctypes
from ctypes import POINTER, Structure, c_char_p, c_int, c_size_t

from ._lib import lib


class ErrDesc(Structure):
    """``gregor_err_desc``."""

    _fields_ = [("code", c_int), ("name", c_char_p), ("desc", c_char_p)]


class EnumDesc(Structure):
    """``gregor_enum_desc``."""

    _fields_ = [("value", c_int), ("name", c_char_p), ("constant", c_char_p), ("desc", c_char_p)]


def _read(fn_name, struct):
    try:
        fn = getattr(lib.cdll, fn_name)
    except AttributeError:
        raise ImportError(
            f"gregor: the loaded libgregor ({lib.path}) has no {fn_name}: "
            "it is older than these bindings; rebuild or reinstall it"
        ) from None
    fn.restype = None
    fn.argtypes = [POINTER(POINTER(struct)), POINTER(c_size_t)]
    ptr = POINTER(struct)()
    n = c_size_t(0)
    fn(ctypes.byref(ptr), ctypes.byref(n))
    return [ptr[i] for i in range(n.value)]


def _s(b):
    return b.decode("utf-8", "replace") if b is not None else None


def error_descs():
    """[(code, name, description)] of every error code, as the library has them."""
    return [(d.code, _s(d.name), _s(d.desc)) for d in _read("gregor_get_err_descs", ErrDesc)]


def enum_descs(kind):
    """[(value, name, C constant, description)] of one enumeration:
    ``kind`` is the descriptor function's middle part ("acl_operation",
    "resource_type", "config_source", …)."""
    rows = _read(f"gregor_get_{kind}_descs", EnumDesc)
    return [(d.value, _s(d.name), _s(d.constant), _s(d.desc)) for d in rows]
