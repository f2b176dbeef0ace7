#!/usr/bin/env python3
"""Python binding benchmark: confluent-kafka and gregor through the same
Python loop, same run, same broker.

    scripts/bench-python.py [--count N] [--size B] [--partitions P] [--rounds R]
                            [--brokers host:port] [--impl confluent_kafka,gregor]

For each round and each client (in alternating order, one fresh process
each) it creates a topic, then

  produce: ``p.produce(topic, payload, on_delivery=dr)`` + ``p.poll(0)`` for
           every message (``poll(0.1)`` and retry on BufferError), then
           ``flush()``; dr counts the reports (all must succeed);
  produce(no cb): ``p.produce(topic, payload)`` alone (``poll(0.1)`` and
           retry on BufferError), then ``flush()``;
  consume: assign() of every partition from OFFSET_BEGINNING (no group
           join in the measurement), then ``c.poll(1.0)`` until all N
           messages are read, checking ``error()`` and ``len(value())``;
  consume(batch): the same with ``c.consume(1000, 1.0)``.

Both clients use their defaults (confluent-kafka's are librdkafka's:
linger.ms=5, queue.buffering.max.messages=100000). Reported: msgs/s
over the phase's wall time and CPU seconds (user+sys of the whole process,
every thread, from getrusage) for the phase. gregor runs the release build
of libgregor (cargo build --release --lib) with the compiled extension built
from bindings/python into target/bench-python; confluent-kafka is the
installed package. With --rounds > 1 the median round is printed.

The same loop measures confluent-kafka-python's own C extension on gregor's
librdkafka.so.1 against the same source on librdkafka:

    scripts/bench-python.py --impl ck-c:librdkafka,ck-c:gregor

uses the two builds scripts/confluent-kafka-c-tests.sh leaves in
target/ck-c/<library> (run it first), each with its library on
LD_LIBRARY_PATH; each child checks that its confluent_kafka is that build
and that the one librdkafka mapped into it is the library meant.
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SITE = os.path.join(ROOT, "target", "bench-python")


def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


CK_C = os.path.join(ROOT, "target", "ck-c")


def ck_c_env(who):
    """confluent-kafka's C extension as scripts/confluent-kafka-c-tests.sh
    built it on WHO's library (gregor or librdkafka)."""
    pkg = os.path.join(CK_C, who)
    lib = os.path.join(pkg, "prefix", "lib", "librdkafka.so.1")
    if not os.path.exists(os.path.join(pkg, "confluent_kafka")) or not os.path.exists(lib):
        sys.exit(f"no confluent-kafka C extension built on {who} in {pkg}: run scripts/confluent-kafka-c-tests.sh")
    return dict(os.environ, PYTHONPATH=pkg, LD_LIBRARY_PATH=os.path.dirname(lib), CK_WANT_PKG=pkg,
                CK_WANT_LIB=lib)


def check_ck_c():
    """In a ck-c child: the package is the build meant, and the one
    librdkafka mapped is the library meant."""
    import confluent_kafka.cimpl as cimpl
    pkg, want = os.environ["CK_WANT_PKG"], os.environ["CK_WANT_LIB"]
    if not os.path.realpath(cimpl.__file__).startswith(os.path.realpath(pkg) + os.sep):
        sys.exit(f"cimpl loaded from {cimpl.__file__}, not from {pkg}")
    with open("/proc/self/maps") as maps:
        libs = {line.split()[-1] for line in maps if "librdkafka" in os.path.basename(line.split()[-1])}
    if len(libs) != 1 or not os.path.samefile(next(iter(libs)), want):
        sys.exit(f"librdkafka mapped: {sorted(libs)}; want only {want}")


def child(impl, brokers, topic, count, size, partitions):
    if impl.startswith("ck-c:"):
        mod = __import__("confluent_kafka")
        check_ck_c()
    else:
        mod = __import__(impl)
    payload = b"x" * size
    out = {}

    # produce
    p = mod.Producer({"bootstrap.servers": brokers})
    p.list_topics(topic, 10)  # connected and topic known before the clock starts
    done = [0, 0]

    def dr(err, msg):
        if err is None:
            done[0] += 1
        else:
            done[1] += 1

    produce, poll = p.produce, p.poll
    c0, t0 = cpu(), time.perf_counter()
    for _ in range(count):
        while True:
            try:
                produce(topic, payload, on_delivery=dr)
                break
            except BufferError:
                poll(0.1)
        poll(0)
    left = p.flush(60)
    t1, c1 = time.perf_counter(), cpu()
    if left or done[0] != count:
        sys.exit(f"{impl}: produce: {done[0]} delivered, {done[1]} failed, {left} left of {count}")
    out["produce"] = (count / (t1 - t0), c1 - c0)

    # produce without a callback: produce() alone, poll only when the queue is full
    c0, t0 = cpu(), time.perf_counter()
    for _ in range(count):
        while True:
            try:
                produce(topic, payload)
                break
            except BufferError:
                poll(0.1)
    left = p.flush(60)
    t1, c1 = time.perf_counter(), cpu()
    if left:
        sys.exit(f"{impl}: produce (no callback): {left} left of {count}")
    out["produce(no cb)"] = (count / (t1 - t0), c1 - c0)
    del p

    # consume with poll(), then with consume(1000)
    for mode in ("poll", "batch"):
        c = mod.Consumer({"bootstrap.servers": brokers, "group.id": f"{topic}-{mode}",
                          "enable.auto.commit": False, "auto.offset.reset": "earliest"})
        # the first `count` messages of each partition's log are the callback phase's and
        # the no-callback phase's: read `count` of them from the beginning
        c.assign([mod.TopicPartition(topic, i, mod.OFFSET_BEGINNING) for i in range(partitions)])
        got = nbytes = 0
        c0, t0 = cpu(), time.perf_counter()
        if mode == "poll":
            cpoll = c.poll
            while got < count:
                m = cpoll(1.0)
                if m is None:
                    if time.perf_counter() - t0 > 120:
                        break
                    continue
                if m.error():
                    continue
                got += 1
                nbytes += len(m.value())
        else:
            consume = c.consume
            while got < count:
                ms = consume(1000, 1.0)
                if not ms and time.perf_counter() - t0 > 120:
                    break
                for m in ms:
                    if m.error():
                        continue
                    got += 1
                    nbytes += len(m.value())
        t1, c1 = time.perf_counter(), cpu()
        c.close()
        if got != count or nbytes != count * size:
            sys.exit(f"{impl}: consume ({mode}): {got} messages, {nbytes} bytes of {count}")
        out["consume" if mode == "poll" else "consume(batch)"] = (count / (t1 - t0), c1 - c0)
    print(json.dumps(out))


def create_topic(brokers, name, partitions):
    from confluent_kafka.admin import AdminClient, NewTopic
    a = AdminClient({"bootstrap.servers": brokers})
    for f in a.create_topics([NewTopic(name, num_partitions=partitions, replication_factor=1)]).values():
        f.result(30)
    time.sleep(0.5)


def prepare_gregor():
    """The release libgregor and the extension built from this checkout."""
    subprocess.run(["cargo", "build", "--release", "--quiet", "--lib"], cwd=ROOT, check=True)
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-deps",
                    "--no-build-isolation", "--upgrade", "--target", SITE, os.path.join(ROOT, "bindings", "python")],
                   check=True)
    subprocess.run(["rm", "-rf", os.path.join(ROOT, "bindings", "python", "build")], check=False)
    lib = os.path.join(ROOT, "target", "release", "libgregor.so")
    env = dict(os.environ, GREGOR_LIBRARY=lib, PYTHONPATH=SITE)
    return env


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=300_000)
    ap.add_argument("--size", type=int, default=100)
    ap.add_argument("--partitions", type=int, default=6)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--brokers", default=os.environ.get("GREGOR_TEST_BROKER", "127.0.0.1:9092"))
    ap.add_argument("--impl", default="confluent_kafka,gregor")
    ap.add_argument("--child", nargs=2, metavar=("IMPL", "TOPIC"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child[0], args.brokers, args.child[1], args.count, args.size, args.partitions)
        return
    impls = args.impl.split(",")
    env = {"confluent_kafka": dict(os.environ)}
    if "gregor" in impls:
        env["gregor"] = prepare_gregor()
    for impl in impls:
        if impl.startswith("ck-c:"):
            env[impl] = ck_c_env(impl.split(":", 1)[1])
    results = {i: [] for i in impls}
    stamp = int(time.time())
    for r in range(args.rounds):
        order = impls if r % 2 == 0 else impls[::-1]
        for impl in order:
            topic = f"bench-python-{impl.replace(':', '-')}-{stamp}-{r}"
            create_topic(args.brokers, topic, args.partitions)
            cmd = [sys.executable, os.path.abspath(__file__), "--count", str(args.count), "--size", str(args.size),
                   "--partitions", str(args.partitions), "--brokers", args.brokers, "--child", impl, topic]
            res = subprocess.run(cmd, env=env[impl], capture_output=True, text=True)
            if res.returncode != 0:
                sys.exit(f"{impl} failed:\n{res.stdout}{res.stderr}")
            results[impl].append(json.loads(res.stdout.strip().splitlines()[-1]))
    print()
    print(f"Python clients: {args.count:,} x {args.size}-byte messages, {args.partitions} partitions, "
          f"broker {args.brokers}, {args.rounds} round(s) (median)")
    print(f"{'phase':<16}{'client':<17}{'msgs/s':>12}{'CPU s':>8}")
    phases = ["produce", "produce(no cb)", "consume", "consume(batch)"]
    for ph in phases:
        med = {}
        for impl in impls:
            rates = [x[ph][0] for x in results[impl]]
            cpus = [x[ph][1] for x in results[impl]]
            med[impl] = (statistics.median(rates), statistics.median(cpus))
            print(f"{ph:<16}{impl:<17}{med[impl][0]:>12,.0f}{med[impl][1]:>8.2f}")
        if "gregor" in med and "confluent_kafka" in med:
            g, c = med["gregor"], med["confluent_kafka"]
            print(f"{'':<16}{'gregor/confluent':<17}{g[0] / c[0]:>11.2f}x{g[1] / c[1]:>7.2f}x")
        if "ck-c:gregor" in med and "ck-c:librdkafka" in med:
            g, c = med["ck-c:gregor"], med["ck-c:librdkafka"]
            print(f"{'':<16}{'gregor/librdkafka':<17}{g[0] / c[0]:>11.2f}x{g[1] / c[1]:>7.2f}x")
    print("(msgs/s over each phase's wall time; CPU = user+sys of the client process, all threads)")


if __name__ == "__main__":
    main()
