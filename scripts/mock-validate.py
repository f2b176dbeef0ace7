#!/usr/bin/env python3
"""An independent client validates gregor's mock cluster: kcat and
confluent-kafka (both librdkafka) create topics, produce (every codec,
idempotent), consume, join a group, commit, run transactions (commit and
abort, with offsets sent to the transaction) and read back exactly what they
wrote, against `gregor mock`; librdkafka's client metrics (KIP-714) get the
mock's subscription and their pushes are accepted.

Usage: scripts/mock-validate.py path/to/gregor path/to/kcat
Exit status 0 when every check passes; each failed check is printed."""

import logging
import os
import subprocess
import sys
import time
import uuid

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewPartitions, NewTopic

GREGOR, KCAT = sys.argv[1], sys.argv[2]
# more `gregor mock` options, e.g. "-T 2": the mock's transactions v2 (KIP-890),
# which librdkafka, without Produce v12 and EndTxn v5, must see as v1
MOCK_ARGS = sys.argv[3:]
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def start_mock(extra=()):
    p = subprocess.Popen([GREGOR, "mock", "-n", "3", "-d", "100", *MOCK_ARGS, *extra],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = p.stdout.readline().strip()
    if not line:
        sys.exit("gregor mock printed no bootstrap list")
    return p, line


def consume_all(bs, topic, n, extra=None, group=None, timeout=20):
    conf = {"bootstrap.servers": bs, "group.id": group or "mock-v-" + uuid.uuid4().hex[:8],
            "auto.offset.reset": "earliest", "enable.auto.commit": False}
    conf.update(extra or {})
    c = Consumer(conf)
    c.subscribe([topic])
    got = []
    deadline = time.time() + timeout
    while len(got) < n and time.time() < deadline:
        m = c.poll(0.2)
        if m is None or m.error():
            continue
        got.append(m)
    # Nothing more may arrive (no duplicates, nothing uncommitted).
    end = time.time() + 1.0
    while time.time() < end:
        m = c.poll(0.2)
        if m is not None and not m.error():
            got.append(m)
    return c, got


def main():
    mock, bs = start_mock()
    try:
        run(bs)
    finally:
        mock.terminate()
        mock.wait()
    # A subscription to every metric, pushed every 500 ms.
    mock, bs = start_mock(["-M", "", "-I", "500"])
    try:
        telemetry(bs)
    finally:
        mock.terminate()
        mock.wait()
    if failures:
        print(f"{len(failures)} check(s) failed", file=sys.stderr)
        sys.exit(1)
    print("all checks passed")


def run(bs):
    t0 = time.time()
    admin = AdminClient({"bootstrap.servers": bs})
    topic = "mock-v-" + uuid.uuid4().hex[:6]
    fs = admin.create_topics([NewTopic(topic, num_partitions=3, replication_factor=2)])
    fs[topic].result(10)
    md = admin.list_topics(timeout=10)
    check(topic in md.topics and len(md.topics[topic].partitions) == 3,
          "confluent-kafka: CreateTopics made a 3-partition topic")
    again = admin.create_topics([NewTopic(topic, num_partitions=3, replication_factor=1)])
    try:
        again[topic].result(10)
        check(False, "confluent-kafka: creating it again fails")
    except KafkaException as e:
        check(e.args[0].name() == "TOPIC_ALREADY_EXISTS", "confluent-kafka: creating it again fails with TOPIC_ALREADY_EXISTS")
    admin.create_partitions([NewPartitions(topic, 4)])[topic].result(10)
    check(len(admin.list_topics(timeout=10).topics[topic].partitions) == 4,
          "confluent-kafka: CreatePartitions grew it to 4")

    # Produce with every codec librdkafka was built with, idempotently.
    sent = {}
    for codec in ["none", "gzip", "snappy", "lz4", "zstd"]:
        try:
            p = Producer({"bootstrap.servers": bs, "enable.idempotence": True,
                          "compression.codec": codec, "linger.ms": 5})
        except KafkaException:
            continue  # a codec this librdkafka lacks
        errs = []
        for i in range(50):
            k, v = f"{codec}-{i % 7}", f"{codec}-value-{i}"
            p.produce(topic, key=k, value=v, headers=[("h", codec.encode())],
                      on_delivery=lambda e, m: errs.append(e) if e else None)
            sent[v] = k
        p.flush(10)
        check(not errs, f"confluent-kafka: 50 idempotent {codec} messages delivered")
    c, got = consume_all(bs, topic, len(sent))
    values = {m.value().decode(): m.key().decode() for m in got}
    check(len(got) == len(sent) and values == sent,
          f"confluent-kafka: group consumer read back exactly the {len(sent)} messages")
    check(all(m.headers() and m.headers()[0][0] == "h" for m in got), "confluent-kafka: headers came back")
    # Per-partition order: offsets strictly increasing.
    by_p = {}
    for m in got:
        by_p.setdefault(m.partition(), []).append(m.offset())
    check(all(o == sorted(o) and len(set(o)) == len(o) for o in by_p.values()), "offsets increase within each partition")
    c.commit(asynchronous=False)
    committed = c.committed([TopicPartition(topic, p) for p in range(4)], timeout=10)
    check(sum(tp.offset for tp in committed if tp.offset > 0) == len(sent),
          "confluent-kafka: committed offsets add up to what was read")
    c.close()

    # Transactions: one committed, one aborted, offsets sent to the transaction.
    ttopic = "mock-v-txn-" + uuid.uuid4().hex[:6]
    admin.create_topics([NewTopic(ttopic, num_partitions=2, replication_factor=1)])[ttopic].result(10)
    tp = Producer({"bootstrap.servers": bs, "transactional.id": "mock-v-" + uuid.uuid4().hex[:6]})
    tp.init_transactions(10)
    tp.begin_transaction()
    for i in range(5):
        tp.produce(ttopic, key=str(i), value=f"committed-{i}")
    tp.commit_transaction(10)
    tp.begin_transaction()
    for i in range(3):
        tp.produce(ttopic, key=str(i), value=f"aborted-{i}")
    tp.flush(10)
    tp.abort_transaction(10)
    # consume-transform-produce: the input offsets go into the transaction.
    group = "mock-v-ctp-" + uuid.uuid4().hex[:6]
    cin, _ = consume_all(bs, topic, len(sent), group=group, timeout=15)
    tp.begin_transaction()
    tp.produce(ttopic, key="x", value="committed-with-offsets")
    positions = cin.position(cin.assignment())
    tp.send_offsets_to_transaction(positions, cin.consumer_group_metadata(), 10)
    tp.commit_transaction(10)
    cin.close()
    rc, got = consume_all(bs, ttopic, 6, extra={"isolation.level": "read_committed"})
    vals = sorted(m.value().decode() for m in got)
    check(vals == sorted([f"committed-{i}" for i in range(5)] + ["committed-with-offsets"]),
          f"confluent-kafka: read_committed sees the 6 committed messages only (got {len(vals)})")
    rc.close()
    ru, got = consume_all(bs, ttopic, 9, extra={"isolation.level": "read_uncommitted"})
    check(len(got) == 9, f"confluent-kafka: read_uncommitted sees all 9 (got {len(got)})")
    ru.close()
    cc = Consumer({"bootstrap.servers": bs, "group.id": group})
    committed = cc.committed([TopicPartition(topic, p) for p in range(4)], timeout=10)
    check(sum(t.offset for t in committed if t.offset > 0) == len(sent),
          "confluent-kafka: offsets sent to the transaction were committed with it")
    cc.close()
    print(f"confluent-kafka part: {time.time() - t0:.1f}s", flush=True)

    # kcat: produce with codecs, consume, consume in a group.
    t1 = time.time()
    ktopic = "mock-v-kcat-" + uuid.uuid4().hex[:6]
    lines = [f"k{i}:kcat-{i}" for i in range(20)]
    for z in ["none", "gzip", "snappy", "lz4"]:
        r = subprocess.run([KCAT, "-b", bs, "-P", "-t", ktopic, "-K:", "-z", z],
                           input="\n".join(lines[:5]) + "\n", text=True, capture_output=True, timeout=20)
        check(r.returncode == 0, f"kcat: produced 5 {z} messages")
        lines = lines[5:] + lines[:5]
    r = subprocess.run([KCAT, "-b", bs, "-C", "-t", ktopic, "-e", "-q", "-f", "%k:%s\\n"],
                       text=True, capture_output=True, timeout=20)
    out = sorted(r.stdout.split())
    check(out == sorted(f"k{i}:kcat-{i}" for i in range(20)), f"kcat: -C read back exactly the 20 messages (got {len(out)})")
    r = subprocess.run([KCAT, "-b", bs, "-G", "mock-v-kg-" + uuid.uuid4().hex[:6], ktopic, "-e", "-q",
                        "-X", "auto.offset.reset=earliest", "-f", "%k:%s\\n"],
                       text=True, capture_output=True, timeout=30)
    out = sorted(r.stdout.split())
    check(r.returncode == 0 and out == sorted(f"k{i}:kcat-{i}" for i in range(20)),
          f"kcat: -G group consumer read back the 20 messages (got {len(out)})")
    r = subprocess.run([KCAT, "-b", bs, "-L", "-t", ktopic], text=True, capture_output=True, timeout=20)
    check(r.returncode == 0 and "3 brokers" in r.stdout and ktopic in r.stdout, "kcat: -L lists 3 brokers and the topic")
    print(f"kcat part: {time.time() - t1:.1f}s", flush=True)
    # Close the clients before the cluster goes away.
    del tp, p, admin


def telemetry(bs):
    """KIP-714 as librdkafka speaks it (its `telemetry` debug lines):
    GetTelemetrySubscriptions assigns a client instance id and hands out
    the subscription, and the pushes that follow are accepted."""
    t0 = time.time()
    lines = []

    class Lines(logging.Handler):
        def emit(self, record):
            lines.append(record.getMessage())

    log = logging.getLogger("mock-validate-telemetry")
    log.addHandler(Lines())
    log.setLevel(logging.DEBUG)
    log.propagate = False
    p = Producer({"bootstrap.servers": bs, "debug": "telemetry", "logger": log})
    p.produce("mock-v-telemetry", value=b"v")
    p.flush(10)
    deadline = time.time() + 20
    pushed = lambda: sum("PushTelemetryRequest succeeded" in l for l in lines)
    while pushed() < 2 and time.time() < deadline:
        p.poll(0.2)
    check(any("client instance id changed from AAAAAAAAAAAAAAAAAAAAAA" in l for l in lines),
          "confluent-kafka: GetTelemetrySubscriptions assigned a client instance id")
    check(any("requested metrics count 1" in l for l in lines) and any("push interval 500" in l for l in lines),
          "confluent-kafka: the subscription asks for every metric every 500 ms")
    failed = [l for l in lines if "failed" in l.lower()]
    check(pushed() >= 2 and not failed,
          f"confluent-kafka: its metrics pushes were accepted ({pushed()} pushes; failures: {failed[:2]})")
    del p
    print(f"telemetry part: {time.time() - t0:.1f}s", flush=True)


if __name__ == "__main__":
    main()
