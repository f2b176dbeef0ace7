"""Consume with asyncio, no polling thread: gregor writes to an eventfd when
the consumer has something for poll (``Consumer.io_event_enable``), the
event loop watches the fd (``loop.add_reader``), and each wakeup polls
once with a zero timeout — a poll never waits and never comes back empty.

    PYTHONPATH=bindings/python GREGOR_LIBRARY=target/debug/libgregor.so \\
        python3 bindings/python/examples/asyncio_consume.py TOPIC [COUNT]

Reads COUNT messages (default 10) of TOPIC from the beginning of every
partition and prints them; ``consume(...)`` returns them and how many
polls found nothing (0).
"""

import asyncio
import os
import sys

from gregor import Consumer, TopicPartition


async def consume(consumer, count, timeout=30.0):
    """Reads ``count`` messages through the consumer's eventfd; returns
    (messages, empty_polls)."""
    loop = asyncio.get_running_loop()
    fd = os.eventfd(0, os.EFD_NONBLOCK | os.EFD_CLOEXEC)
    ready = asyncio.Event()
    loop.add_reader(fd, ready.set)
    consumer.io_event_enable(fd)  # 8-byte eventfd increments
    got, empty = [], 0
    try:
        async with asyncio.timeout(timeout):
            while len(got) < count:
                await ready.wait()
                ready.clear()
                try:
                    os.eventfd_read(fd)
                except BlockingIOError:
                    continue
                msg = consumer.poll(0)  # once per wakeup
                if msg is None:
                    empty += 1
                elif msg.error():
                    print("error:", msg.error(), file=sys.stderr)
                else:
                    got.append(msg)
    finally:
        consumer.io_event_enable(-1)
        loop.remove_reader(fd)
        os.close(fd)
    return got, empty


def main():
    topic = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    c = Consumer({"bootstrap.servers": os.environ.get("GREGOR_TEST_BROKER", "127.0.0.1:9092"),
                  "group.id": "asyncio-example", "enable.auto.commit": False})
    parts = c.list_topics(topic, timeout=10).topics[topic].partitions
    c.assign([TopicPartition(topic, p, 0) for p in parts])
    msgs, empty = asyncio.run(consume(c, count))
    for m in msgs:
        print(f"{m.topic()} [{m.partition()}] @{m.offset()}: {m.value()!r}")
    print(f"{len(msgs)} messages, {empty} empty polls")
    c.close()


if __name__ == "__main__":
    main()
