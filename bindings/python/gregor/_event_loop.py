"""Event-loop integration, KIP-447 group metadata and the consumer's
non-blocking close, over ctypes (kept apart from the poll internals).

- ``Producer.io_event_enable(fd, payload)`` / ``Consumer.io_event_enable``:
  gregor writes ``payload`` to ``fd`` when the client's queue (delivery
  reports and events; messages, rebalances and events) goes from empty to
  non-empty, and again after a poll that left something queued: poll once
  per wakeup (librdkafka's ``rd_kafka_queue_io_event_enable``). ``fd=-1``
  disables. Use a non-blocking ``os.eventfd`` (8-byte payload) or pipe.
- ``yield_()`` (librdkafka's ``rd_kafka_queue_yield``): a poll/flush blocked
  on another thread returns now as if its timeout ran out.
- ``Consumer.consumer_group_metadata()``: group id, generation id, member
  id, group instance id, for ``Producer.send_offsets_to_transaction``.
- ``Consumer.rebalance_protocol()``, ``assignment_lost()``,
  ``close_start()`` / ``close_done()``.
"""

from ctypes import c_char_p, c_int, c_int32, c_size_t, c_void_p, create_string_buffer

from ._lib import SIGNATURES, cstr, lib, pystr
from .error import raise_for

P = c_void_p
SIGNATURES.update(
    {
        "gregor_producer_io_event_enable": (c_int, [P, c_int, c_void_p, c_size_t]),
        "gregor_consumer_io_event_enable": (c_int, [P, c_int, c_void_p, c_size_t]),
        "gregor_producer_yield": (None, [P]),
        "gregor_consumer_yield": (None, [P]),
        "gregor_consumer_rebalance_protocol": (c_char_p, [P]),
        "gregor_consumer_assignment_lost": (c_int, [P]),
        "gregor_consumer_close_start": (c_int, [P]),
        "gregor_consumer_closed": (c_int, [P]),
        "gregor_consumer_group_metadata": (P, [P]),
        "gregor_group_metadata_new_with_genid": (P, [c_char_p, c_int32, c_char_p, c_char_p]),
        "gregor_group_metadata_group_id": (c_char_p, [P]),
        "gregor_group_metadata_generation_id": (c_int32, [P]),
        "gregor_group_metadata_member_id": (c_char_p, [P]),
        "gregor_group_metadata_group_instance_id": (c_char_p, [P]),
        "gregor_group_metadata_free": (None, [P]),
        "gregor_producer_txn_send_offsets_with_metadata": (P, [P, P, P, c_int]),
    }
)


class ConsumerGroupMetadata:
    """A consumer's group membership (KIP-447): ``send_offsets_to_transaction``
    sends its generation, member id and instance id, so the group coordinator
    fences a zombie member. Built from a group id alone (generation -1, no
    member), it is the form for brokers before KIP-447."""

    def __init__(self, group_id, generation_id=-1, member_id="", group_instance_id=None):
        self.group_id = group_id
        self.generation_id = generation_id
        self.member_id = member_id
        self.group_instance_id = group_instance_id

    def __repr__(self):
        return (
            f"ConsumerGroupMetadata(group_id={self.group_id!r}, generation_id={self.generation_id}, "
            f"member_id={self.member_id!r}, group_instance_id={self.group_instance_id!r})"
        )


def group_metadata(consumer_ptr, group_id):
    """``Consumer.consumer_group_metadata()``: the consumer's metadata now; the
    group-id form for a consumer without a group."""
    p = lib.gregor_consumer_group_metadata(consumer_ptr)
    if not p:
        return ConsumerGroupMetadata(group_id)
    try:
        return ConsumerGroupMetadata(
            pystr(lib.gregor_group_metadata_group_id(p)),
            lib.gregor_group_metadata_generation_id(p),
            pystr(lib.gregor_group_metadata_member_id(p)) or "",
            pystr(lib.gregor_group_metadata_group_instance_id(p)),
        )
    finally:
        lib.gregor_group_metadata_free(p)


def send_offsets(producer_ptr, tpl, group_metadata, timeout_ms):
    """The gregor_error_t of send_offsets_to_transaction for ``group_metadata``:
    a ConsumerGroupMetadata, or (the old form) any object with a
    ``group_id``, or a group id string."""
    if isinstance(group_metadata, ConsumerGroupMetadata):
        md = group_metadata
    else:
        md = ConsumerGroupMetadata(getattr(group_metadata, "group_id", group_metadata))
    if not isinstance(md.group_id, str) or not md.group_id:
        raise TypeError("group_metadata: a ConsumerGroupMetadata or a non-empty group id")
    native = lib.gregor_group_metadata_new_with_genid(
        cstr(md.group_id),
        int(md.generation_id),
        cstr(md.member_id or ""),
        cstr(md.group_instance_id) if md.group_instance_id else None,
    )
    if not native:
        raise TypeError("group_metadata: bad group id")
    try:
        return lib.gregor_producer_txn_send_offsets_with_metadata(producer_ptr, tpl, native, timeout_ms)
    finally:
        lib.gregor_group_metadata_free(native)


def io_event_enable(fn, ptr, fd, payload):
    """``fn``: gregor_producer_io_event_enable or the consumer's."""
    if fd == -1:
        raise_for(fn(ptr, -1, None, 0))
        return
    data = bytes(payload)
    buf = create_string_buffer(data, len(data))
    raise_for(fn(ptr, int(fd), buf, len(data)))


def _install(Producer, Consumer):
    """Adds the methods to the binding's classes."""

    def producer_io_event_enable(self, fd, payload=b"\x01\0\0\0\0\0\0\0"):
        """Writes ``payload`` to ``fd`` when delivery reports or events wait for
        poll (default: an eventfd increment of 1); ``fd=-1`` disables."""
        io_event_enable(lib.gregor_producer_io_event_enable, self._ptr(), fd, payload)

    def producer_yield(self):
        """Makes a poll()/flush() blocked on another thread return now."""
        ptr = self._ptr()
        self._yield_pending = True  # the compiled poll/flush loop stops waiting (gregor._native)
        lib.gregor_producer_yield(ptr)

    def consumer_io_event_enable(self, fd, payload=b"\x01\0\0\0\0\0\0\0"):
        """Writes ``payload`` to ``fd`` when messages or events wait for poll
        (default: an eventfd increment of 1); ``fd=-1`` disables."""
        io_event_enable(lib.gregor_consumer_io_event_enable, self._ptr(), fd, payload)

    def consumer_yield(self):
        """Makes a poll() blocked on another thread return None now."""
        ptr = self._ptr()
        self._yield_pending = True  # the compiled poll/consume loop stops waiting (gregor._native)
        lib.gregor_consumer_yield(ptr)

    def rebalance_protocol(self):
        """"EAGER" or "COOPERATIVE" once in a group, else "NONE"."""
        return pystr(lib.gregor_consumer_rebalance_protocol(self._ptr()))

    def assignment_lost(self):
        """True if the group took the partitions away without a rebalance and
        none were assigned since (librdkafka's rd_kafka_assignment_lost)."""
        return bool(lib.gregor_consumer_assignment_lost(self._ptr()))

    def close_start(self):
        """Starts closing without blocking (librdkafka's
        rd_kafka_consumer_close_queue): keep calling poll() (the revocation is
        served there) until close_done(); then close() frees the consumer."""
        raise_for(lib.gregor_consumer_close_start(self._ptr()))

    def close_done(self):
        """True once the close begun by close_start() ended."""
        h = self._h
        if h is None or not h.ptr:
            return True
        return lib.gregor_consumer_closed(h.ptr) == 1

    Producer.io_event_enable = producer_io_event_enable
    Producer.yield_ = producer_yield
    Consumer.io_event_enable = consumer_io_event_enable
    Consumer.yield_ = consumer_yield
    Consumer.rebalance_protocol = rebalance_protocol
    Consumer.assignment_lost = assignment_lost
    Consumer.close_start = close_start
    Consumer.close_done = close_done
