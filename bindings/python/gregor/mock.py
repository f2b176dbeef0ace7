"""gregor's in-process mock cluster, for tests that need no broker.

A context manager around ``gregor_mock_cluster_*`` (librdkafka's
rdkafka_mock.h counterparts)::

    from gregor.mock import Cluster

    with Cluster(3) as cluster:
        cluster.create_topic("orders", partitions=1, replication=3)
        producer = Producer({"bootstrap.servers": cluster.bootstrap_servers})
        ...
        cluster.push_request_errors(0, [6, 6])   # Produce: NOT_LEADER_OR_FOLLOWER twice
        cluster.set_partition_leader("orders", 0, 2)

The cluster stops when the ``with`` block ends (or on ``close()``).
"""

from ctypes import POINTER, Structure, c_char_p, c_int, c_int16, c_int32, c_int64, c_size_t, c_void_p

from ._lib import EXTRA, cstr, errbuf, lib, pystr
from .error import KafkaError, KafkaException

__all__ = ["Cluster", "TrackedRequest"]


class _Request(Structure):
    _fields_ = [
        ("broker_id", c_int32),
        ("api_key", c_int16),
        ("api_version", c_int16),
        ("timestamp_us", c_int64),
    ]


P = c_void_p
EXTRA.update(
    {
        "gregor_mock_cluster_new": (P, [c_int, c_char_p, c_size_t]),
        "gregor_mock_cluster_bootstraps": (c_char_p, [P]),
        "gregor_mock_cluster_destroy": (None, [P]),
        "gregor_mock_topic_create": (c_int, [P, c_char_p, c_int, c_int]),
        "gregor_mock_partition_set_leader": (c_int, [P, c_char_p, c_int32, c_int32]),
        "gregor_mock_partition_set_follower": (c_int, [P, c_char_p, c_int32, c_int32]),
        "gregor_mock_broker_set_down": (c_int, [P, c_int32]),
        "gregor_mock_broker_set_up": (c_int, [P, c_int32]),
        "gregor_mock_broker_set_rtt": (c_int, [P, c_int32, c_int]),
        "gregor_mock_broker_set_rack": (c_int, [P, c_int32, c_char_p]),
        "gregor_mock_push_request_errors": (c_int, [P, c_int16, c_size_t, POINTER(c_int16)]),
        "gregor_mock_broker_push_request_error_rtts": (
            c_int,
            [P, c_int32, c_int16, c_size_t, POINTER(c_int16), POINTER(c_int)],
        ),
        "gregor_mock_coordinator_set": (c_int, [P, c_char_p, c_char_p, c_int32]),
        "gregor_mock_set_apiversion": (c_int, [P, c_int16, c_int16, c_int16]),
        "gregor_mock_set_transaction_version": (c_int, [P, c_int16]),
        "gregor_mock_group_initial_rebalance_delay_ms": (c_int, [P, c_int]),
        "gregor_mock_start_request_tracking": (c_int, [P]),
        "gregor_mock_stop_request_tracking": (c_int, [P]),
        "gregor_mock_get_requests": (c_size_t, [P, POINTER(_Request), c_size_t]),
        "gregor_mock_clear_requests": (c_int, [P]),
        "gregor_mock_partition_high_watermark": (c_int64, [P, c_char_p, c_int32]),
    }
)


class TrackedRequest(tuple):
    """One request a mock broker received:
    ``(broker_id, api_key, api_version, timestamp_us)``, the time in
    microseconds since the cluster started (monotonic)."""

    __slots__ = ()

    def __new__(cls, broker_id, api_key, api_version, timestamp_us=0):
        return super().__new__(cls, (broker_id, api_key, api_version, timestamp_us))

    broker_id = property(lambda self: self[0])
    api_key = property(lambda self: self[1])
    api_version = property(lambda self: self[2])
    timestamp_us = property(lambda self: self[3])


def _check(rc, what):
    if rc:
        raise KafkaException(KafkaError(rc, f"{what}: {KafkaError(rc).name()}"))


class Cluster:
    """A mock cluster of ``brokers`` brokers (IDs 1..brokers) on 127.0.0.1."""

    def __init__(self, brokers=3):
        err = errbuf()
        self._h = lib.gregor_mock_cluster_new(int(brokers), err, len(err))
        if not self._h:
            raise KafkaException(KafkaError(KafkaError._INVALID_ARG, pystr(err.value) or "mock cluster"))
        self.bootstrap_servers = pystr(lib.gregor_mock_cluster_bootstraps(self._h))

    def _handle(self):
        if not self._h:
            raise KafkaException(KafkaError(KafkaError._DESTROY, "the mock cluster is closed"))
        return self._h

    def close(self):
        """Stops every broker (idempotent)."""
        h, self._h = self._h, None
        if h:
            lib.gregor_mock_cluster_destroy(h)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 (interpreter shutdown)
            pass

    def bootstraps(self):
        """The ``host:port,...`` list for ``bootstrap.servers``."""
        return self.bootstrap_servers

    def create_topic(self, topic, partitions=1, replication=1):
        _check(lib.gregor_mock_topic_create(self._handle(), cstr(topic), partitions, replication), "create_topic")

    def set_partition_leader(self, topic, partition, broker_id):
        """Moves the leader of ``topic`` [``partition``]; its leader epoch goes up by one."""
        _check(
            lib.gregor_mock_partition_set_leader(self._handle(), cstr(topic), partition, broker_id),
            "set_partition_leader",
        )

    def set_partition_follower(self, topic, partition, broker_id):
        """The follower (-1: none) the leader of ``topic`` [``partition``] names as
        preferred read replica (KIP-392) to a consumer that sends its rack."""
        _check(
            lib.gregor_mock_partition_set_follower(self._handle(), cstr(topic), partition, broker_id),
            "set_partition_follower",
        )

    def broker_down(self, broker_id):
        _check(lib.gregor_mock_broker_set_down(self._handle(), broker_id), "broker_down")

    def broker_up(self, broker_id):
        _check(lib.gregor_mock_broker_set_up(self._handle(), broker_id), "broker_up")

    def set_broker_rtt(self, broker_id, rtt_ms):
        _check(lib.gregor_mock_broker_set_rtt(self._handle(), broker_id, int(rtt_ms)), "set_broker_rtt")

    def set_broker_rack(self, broker_id, rack):
        _check(lib.gregor_mock_broker_set_rack(self._handle(), broker_id, cstr(rack) if rack else None), "set_broker_rack")

    def push_request_errors(self, api_key, errors, broker_id=None, rtts_ms=None):
        """The next ``len(errors)`` requests of ``api_key`` get these error codes
        (on ``broker_id`` only if given, each after ``rtts_ms[i]`` ms)."""
        errors = [int(e) for e in errors]
        arr = (c_int16 * len(errors))(*errors)
        if broker_id is None and rtts_ms is None:
            _check(lib.gregor_mock_push_request_errors(self._handle(), api_key, len(errors), arr), "push_request_errors")
            return
        if broker_id is None:
            raise ValueError("rtts_ms needs broker_id")
        rtts = (c_int * len(errors))(*(rtts_ms or [0] * len(errors)))
        _check(
            lib.gregor_mock_broker_push_request_error_rtts(self._handle(), broker_id, api_key, len(errors), arr, rtts),
            "push_request_errors",
        )

    def set_coordinator(self, key_type, key, broker_id):
        """Pins the coordinator of a group (``"group"``) or transactional ID (``"transaction"``)."""
        _check(lib.gregor_mock_coordinator_set(self._handle(), cstr(key_type), cstr(key), broker_id), "set_coordinator")

    def set_api_version(self, api_key, min_version, max_version):
        _check(lib.gregor_mock_set_apiversion(self._handle(), api_key, min_version, max_version), "set_api_version")

    def set_transaction_version(self, level):
        """Finalizes ``transaction.version`` at ``level`` (None: not finalized); 2+ is transactions v2 (KIP-890)."""
        _check(lib.gregor_mock_set_transaction_version(self._handle(), -1 if level is None else int(level)),
               "set_transaction_version")

    def set_group_initial_rebalance_delay_ms(self, delay_ms):
        _check(lib.gregor_mock_group_initial_rebalance_delay_ms(self._handle(), int(delay_ms)), "rebalance delay")

    def start_request_tracking(self):
        _check(lib.gregor_mock_start_request_tracking(self._handle()), "start_request_tracking")

    def stop_request_tracking(self):
        _check(lib.gregor_mock_stop_request_tracking(self._handle()), "stop_request_tracking")

    def requests(self):
        """The recorded requests, oldest first, as ``TrackedRequest`` tuples."""
        h = self._handle()
        n = lib.gregor_mock_get_requests(h, None, 0)
        arr = (_Request * max(n, 1))()
        n = min(n, lib.gregor_mock_get_requests(h, arr, n))
        return [
            TrackedRequest(r.broker_id, r.api_key, r.api_version, r.timestamp_us)
            for r in arr[:n]
        ]

    def clear_requests(self):
        _check(lib.gregor_mock_clear_requests(self._handle()), "clear_requests")

    def high_watermark(self, topic, partition):
        """The partition's high watermark, or -1 for an unknown partition."""
        return lib.gregor_mock_partition_high_watermark(self._handle(), cstr(topic), partition)
