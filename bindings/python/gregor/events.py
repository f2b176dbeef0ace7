"""Client events as confluent-kafka delivers them: ``error_cb(KafkaError)``
and ``throttle_cb(ThrottleEvent)`` configuration keys, called from
``poll()`` / ``flush()`` (producer) and ``poll()`` / ``consume()``
(consumer) on the calling thread; and the transactional calls' errors as
``KafkaException(KafkaError)`` with ``.retriable()``, ``.fatal()`` and
``.txn_requires_abort()`` set from libgregor's ``gregor_error_t``.
"""

from ctypes import CFUNCTYPE, c_char_p, c_int, c_int32, c_size_t, c_void_p

from ._lib import EXTRA, lib, pystr
from .error import KafkaError, KafkaException

ERROR_CB = CFUNCTYPE(None, c_void_p, c_int, c_char_p, c_void_p)
THROTTLE_CB = CFUNCTYPE(None, c_void_p, c_char_p, c_int32, c_int, c_void_p)

_P = c_void_p
EXTRA.update({
    "gregor_producer_set_error_cb": (c_int, [_P, ERROR_CB, c_void_p]),
    "gregor_consumer_set_error_cb": (c_int, [_P, ERROR_CB, c_void_p]),
    "gregor_producer_set_throttle_cb": (c_int, [_P, THROTTLE_CB, c_void_p]),
    "gregor_consumer_set_throttle_cb": (c_int, [_P, THROTTLE_CB, c_void_p]),
    "gregor_producer_fatal_error": (c_int, [_P, c_char_p, c_size_t]),
    "gregor_consumer_fatal_error": (c_int, [_P, c_char_p, c_size_t]),
    "gregor_error_code": (c_int, [_P]),
    "gregor_error_string": (c_char_p, [_P]),
    "gregor_error_is_retriable": (c_int, [_P]),
    "gregor_error_is_fatal": (c_int, [_P]),
    "gregor_error_txn_requires_abort": (c_int, [_P]),
    "gregor_error_destroy": (None, [_P]),
    "gregor_producer_txn_init": (_P, [_P, c_int]),
    "gregor_producer_txn_begin": (_P, [_P]),
    "gregor_producer_txn_send_offsets": (_P, [_P, _P, c_char_p, c_int]),
    "gregor_producer_txn_commit": (_P, [_P, c_int]),
    "gregor_producer_txn_abort": (_P, [_P, c_int]),
})


class ThrottleEvent:
    """A broker's throttle report, as confluent-kafka's: ``broker_name``,
    ``broker_id`` and ``throttle_time`` (seconds, a float)."""

    def __init__(self, broker_name, broker_id, throttle_time):
        self.broker_name = broker_name
        self.broker_id = broker_id
        self.throttle_time = throttle_time

    def __str__(self):
        return f"{self.broker_name}/{self.broker_id} throttled for {int(self.throttle_time * 1000)} ms"

    def __repr__(self):
        return (f"ThrottleEvent(broker_name={self.broker_name!r}, broker_id={self.broker_id}, "
                f"throttle_time={self.throttle_time})")


def pop_callbacks(conf):
    """Takes ``error_cb`` and ``throttle_cb`` out of a configuration dict."""
    error_cb = conf.pop("error_cb", None)
    throttle_cb = conf.pop("throttle_cb", None)
    for name, cb in (("error_cb", error_cb), ("throttle_cb", throttle_cb)):
        if cb is not None and not callable(cb):
            raise TypeError(f"{name} must be callable")
    return error_cb, throttle_cb


def install(owner, kind, ptr, error_cb, throttle_cb):
    """Sets the C callbacks of handle ``ptr`` (``kind`` "producer" or
    "consumer"); returns the ctypes callbacks, which must stay alive as long
    as the handle. An exception a callback raises is kept in
    ``owner._cb_error`` and re-raised by the poll that served it, as
    confluent-kafka does."""
    keep = []

    def remember(e):
        if getattr(owner, "_cb_error", None) is None:
            owner._cb_error = e

    if error_cb is not None:
        def on_error(_h, err, reason, _opaque):
            try:
                error_cb(KafkaError(err, pystr(reason) or None, fatal=(err == KafkaError._FATAL)))
            except BaseException as e:  # noqa: BLE001 - re-raised from poll
                remember(e)

        cb = ERROR_CB(on_error)
        keep.append(cb)
        getattr(lib, f"gregor_{kind}_set_error_cb")(ptr, cb, None)
    if throttle_cb is not None:
        def on_throttle(_h, name, broker_id, ms, _opaque):
            try:
                throttle_cb(ThrottleEvent(pystr(name), broker_id, ms / 1000.0))
            except BaseException as e:  # noqa: BLE001 - re-raised from poll
                remember(e)

        cb = THROTTLE_CB(on_throttle)
        keep.append(cb)
        getattr(lib, f"gregor_{kind}_set_throttle_cb")(ptr, cb, None)
    return keep


def raise_for_error_object(err):
    """Raises ``KafkaException(KafkaError)`` for a non-NULL ``gregor_error_t``
    (freeing it), with its retriable / fatal / txn_requires_abort flags."""
    if not err:
        return
    try:
        ke = KafkaError(
            lib.gregor_error_code(err),
            pystr(lib.gregor_error_string(err)) or None,
            fatal=bool(lib.gregor_error_is_fatal(err)),
            retriable=bool(lib.gregor_error_is_retriable(err)),
            txn_requires_abort=bool(lib.gregor_error_txn_requires_abort(err)),
        )
    finally:
        lib.gregor_error_destroy(err)
    raise KafkaException(ke)
