#!/usr/bin/env python3
"""Capture record batches written by librdkafka, for gregor's codec tests.

How testdata/librdkafka/ was made (run once; the files are committed):

    python3 scripts/capture_librdkafka.py BROKER_HOST:PORT OUT_DIR
    python3 scripts/capture_librdkafka.py BROKER_HOST:PORT OUT_DIR 19093 0.10.0.0
    python3 scripts/capture_librdkafka.py BROKER_HOST:PORT OUT_DIR 19093 0.9.0

The last argument, when given, makes librdkafka skip ApiVersions and speak to
the broker as that old release would be spoken to: for 0.9.0 the proxy closes
the connection on ApiVersions, as a pre-0.10 broker does, so librdkafka uses
`broker.version.fallback`; for 0.10.0 it lowers the broker's Produce and Fetch
versions in the ApiVersions answer to 2 and 3: Produce v2 with
MessageSet v1 (magic 1) for 0.10.0, Produce v1 with magic 0 for 0.9.0.

A recording TCP proxy on 127.0.0.1 sits between confluent-kafka (librdkafka
2.x) and a running Kafka-compatible broker whose advertised listener is the
proxy's port (so every connection goes through it). For each codec it
produces a known set of messages (keys, null keys, null values, headers,
explicit timestamps), then consumes them back. The proxy saves every
Produce request frame (what librdkafka wrote) and every Fetch response frame
(what the broker returned) as-is, size prefix included:

    produce_v<ver>_<codec>_<n>.bin    client -> broker
    fetch_v<ver>_<codec>_<n>.bin      broker -> client

plus expected[_<version>].tsv describing the messages: one line per message,
codec, index, key and value in hex ('-' for null), timestamp, headers.
"""
import os
import socket
import struct
import sys
import threading
import time

from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient, NewTopic


def messages(codec):
    out = []
    for i in range(20):
        key = None if i % 5 == 4 else f"key-{codec}-{i}".encode()
        value = None if i == 7 else (f"value {i} " * (1 + i % 4)).encode() + bytes([i, 0, 255])
        headers = [("h1", f"v{i}".encode()), ("empty", b"")] if i % 3 == 0 else []
        out.append({"key": key, "value": value, "headers": headers, "timestamp": 1700000000000 + i})
    return out


class Recorder:
    def __init__(self, out_dir):
        self.out_dir = out_dir
        self.lock = threading.Lock()
        self.codec = "none"
        self.count = {}
        self.legacy = None

    def save(self, kind, version, frame):
        with self.lock:
            k = (kind, version, self.codec)
            n = self.count.get(k, 0)
            self.count[k] = n + 1
            name = f"{kind}_v{version}_{self.codec}_{n}.bin"
            with open(os.path.join(self.out_dir, name), "wb") as f:
                f.write(frame)


def read_frame(sock):
    head = b""
    while len(head) < 4:
        chunk = sock.recv(4 - len(head))
        if not chunk:
            return None
        head += chunk
    (size,) = struct.unpack(">i", head)
    body = b""
    while len(body) < size:
        chunk = sock.recv(min(65536, size - len(body)))
        if not chunk:
            return None
        body += chunk
    return head + body


def cap_versions(frame, ver, caps):
    """Lower the broker's max versions in an ApiVersions response (header v0)."""
    buf = bytearray(frame)
    pos = 4 + 4 + 2  # size, correlation id, error code
    if ver >= 3:
        n, shift = 0, 0
        while True:
            b = buf[pos]
            pos += 1
            n |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                break
        n -= 1
    else:
        (n,) = struct.unpack(">i", buf[pos:pos + 4])
        pos += 4
    for _ in range(n):
        key, lo, hi = struct.unpack(">hhh", buf[pos:pos + 6])
        if key in caps:
            struct.pack_into(">h", buf, pos + 4, min(hi, caps[key]))
        pos += 6
        if ver >= 3:
            pos += 1  # empty tagged fields
    return bytes(buf)


def pipe(client, broker, rec):
    pending = {}  # correlation id -> (api key, version)

    def up():
        while True:
            frame = read_frame(client)
            if frame is None:
                break
            key, ver, corr = struct.unpack(">hhi", frame[4:12])
            pending[corr] = (key, ver)
            if key == 18 and rec.legacy == "0.9.0":
                client.close()  # look like a pre-0.10 broker: librdkafka then uses its fallback
                break
            if key == 0:
                rec.save("produce", ver, frame)
            broker.sendall(frame)
        broker.close()

    def down():
        while True:
            frame = read_frame(broker)
            if frame is None:
                break
            (corr,) = struct.unpack(">i", frame[4:8])
            key, ver = pending.pop(corr, (None, None))
            if key == 1:
                rec.save("fetch", ver, frame)
            if key == 18 and rec.legacy == "0.10.0":
                frame = cap_versions(frame, ver, {0: 2, 1: 3})
            client.sendall(frame)
        client.close()

    threading.Thread(target=up, daemon=True).start()
    threading.Thread(target=down, daemon=True).start()


def serve(listen_port, broker_addr, rec):
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", listen_port))
    srv.listen(16)

    def loop():
        while True:
            c, _ = srv.accept()
            b = socket.create_connection(broker_addr)
            pipe(c, b, rec)

    threading.Thread(target=loop, daemon=True).start()


def main():
    broker_host, broker_port = sys.argv[1].split(":")
    listen_port = int(sys.argv[3]) if len(sys.argv) > 3 else 19093
    out_dir = sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    rec = Recorder(out_dir)
    serve(listen_port, (broker_host, int(broker_port)), rec)
    bootstrap = f"127.0.0.1:{listen_port}"
    admin = AdminClient({"bootstrap.servers": bootstrap})
    legacy = sys.argv[4] if len(sys.argv) > 4 else None
    # 0.9.0: no ApiVersions at all (the proxy hangs up on it) -> Produce v1, magic 0.
    # 0.10.0: ApiVersions answered with Produce capped at v2 and Fetch at v3 -> magic 1.
    old = {"api.version.request": False, "broker.version.fallback": legacy} if legacy == "0.9.0" else {}
    expected = {}
    codecs = ["none", "gzip", "snappy", "lz4"] if legacy else ["none", "gzip", "snappy", "lz4", "zstd"]
    for codec in codecs:
        topic = f"capture-{codec}-{int(time.time())}"
        fs = admin.create_topics([NewTopic(topic, num_partitions=1, replication_factor=1)])
        for f in fs.values():
            f.result(10)
        rec.codec = codec
        rec.legacy = legacy
        p = Producer({"bootstrap.servers": bootstrap, "compression.type": codec,
                      "linger.ms": 50, "retries": 0, "enable.idempotence": not legacy, **old})
        msgs = messages(codec)
        if legacy:  # magic 0/1 cannot carry headers
            for m in msgs:
                m["headers"] = []
        for m in msgs:
            p.produce(topic, key=m["key"], value=m["value"], headers=m["headers"] or None,
                      timestamp=m["timestamp"], partition=0)
        if legacy:
            # The capture broker may refuse old Produce versions; what matters
            # is the request librdkafka wrote, which the proxy has saved.
            p.flush(3)
            p.purge()
            expected[codec] = [
                {"key": None if m["key"] is None else m["key"].hex(),
                 "value": None if m["value"] is None else m["value"].hex(),
                 "headers": [], "timestamp": m["timestamp"]} for m in msgs]
            continue
        assert p.flush(10) == 0
        c = Consumer({"bootstrap.servers": bootstrap, "group.id": f"g-{topic}",
                      "auto.offset.reset": "earliest", "enable.auto.commit": False, **old})
        c.assign([__import__("confluent_kafka").TopicPartition(topic, 0, 0)])
        got = 0
        deadline = time.time() + 15
        while got < len(msgs) and time.time() < deadline:
            m = c.poll(0.5)
            if m is not None and not m.error():
                got += 1
        c.close()
        assert got == len(msgs), f"{codec}: consumed {got}/{len(msgs)}"
        expected[codec] = [
            {"key": None if m["key"] is None else m["key"].hex(),
             "value": None if m["value"] is None else m["value"].hex(),
             "headers": [[k, v.hex()] for k, v in m["headers"]],
             "timestamp": m["timestamp"]}
            for m in msgs
        ]
    name = f"expected_{legacy}.tsv" if legacy else "expected.tsv"
    with open(os.path.join(out_dir, name), "w") as f:
        f.write("# codec\tindex\tkey_hex\tvalue_hex\ttimestamp\theaders (name=value_hex,...)  ('-' = null / none)\n")
        for codec, msgs in expected.items():
            for i, m in enumerate(msgs):
                h = ",".join(f"{k}={v}" for k, v in m["headers"]) or "-"
                key = m["key"] if m["key"] is not None else "-"
                val = m["value"] if m["value"] is not None else "-"
                f.write(f"{codec}\t{i}\t{key}\t{val}\t{m['timestamp']}\t{h}\n")
    print("captured:", sorted(os.listdir(out_dir)))


if __name__ == "__main__":
    main()
