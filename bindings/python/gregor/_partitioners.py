"""The producer's partitioners as functions (confluent-kafka's ``murmur2``,
``consistent``, ``fnv1a``), computed by libgregor's ``gregor_partitioner`` —
the same code the producer uses, so a binding that picks partitions itself
agrees with it (and with librdkafka's / the Java client's murmur2)."""

from ctypes import POINTER, c_char_p, c_int32, c_size_t, c_uint8

from ._lib import EXTRA, buf_arg, lib

EXTRA["gregor_partitioner"] = (c_int32, [c_char_p, POINTER(c_uint8), c_size_t, c_int32])


def _partition(name, key, partition_count):
    if not isinstance(key, (bytes, bytearray, memoryview)):
        raise TypeError(f"key must be bytes, not {type(key).__name__}")
    if isinstance(partition_count, bool) or not isinstance(partition_count, int):
        raise TypeError(f"partition_count must be int, not {type(partition_count).__name__}")
    if partition_count <= 0:
        raise ValueError(f"partition_count must be > 0, got {partition_count}")
    if partition_count > 0x7FFFFFFF:
        raise OverflowError("partition_count does not fit in 32 bits")
    p, n = buf_arg(bytes(key))
    return lib.gregor_partitioner(name, p, n, partition_count)


def murmur2(key, partition_count):
    """The partition of ``key`` (bytes) among ``partition_count`` by murmur2
    (the Java client's default partitioner's hash)."""
    return _partition(b"murmur2", key, partition_count)


def consistent(key, partition_count):
    """The partition of ``key`` among ``partition_count`` by CRC32
    (librdkafka's "consistent" partitioner)."""
    return _partition(b"consistent", key, partition_count)


def fnv1a(key, partition_count):
    """The partition of ``key`` among ``partition_count`` by FNV-1a."""
    return _partition(b"fnv1a", key, partition_count)
