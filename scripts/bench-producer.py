#!/usr/bin/env python3
"""Producer benchmark: gregor next to librdkafka on the same broker, same run.

    scripts/bench-producer.py [--count N] [--size B] [--brokers host:port]

For each case (acks=1 / acks=all, uncompressed / lz4) it creates a fresh
6-partition topic per client, runs librdkafka (scripts/bench/
rdkafka_produce_perf.c: the same produce-then-flush loop, built here against
the librdkafka that scripts/setup.sh installs — rdkafka_performance itself
idles up to a second at its end, which would flatter gregor) and gregor's
examples/produce_perf (release build) one after the other, and
prints a table: msgs/s, MB/s, client CPU seconds (user+sys, from wait4),
peak RSS and gregor/librdkafka ratios. Both clients use their defaults
(linger.ms=5, batch.num.messages=10000, queue.buffering.max.messages=100000).
"""
import argparse
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEPS = os.environ.get("GREGOR_DEPS", os.path.expanduser("~/.local/share/gregor-deps"))
RDLIB = os.path.join(DEPS, "librdkafka")
RDPERF = os.path.join(ROOT, "target", "bench", "rdkafka_produce_perf")
GREGOR = os.path.join(ROOT, "target", "release", "examples", "produce_perf")


def create_topic(brokers, name, partitions):
    from confluent_kafka.admin import AdminClient, NewTopic
    a = AdminClient({"bootstrap.servers": brokers})
    for f in a.create_topics([NewTopic(name, num_partitions=partitions, replication_factor=1)]).values():
        f.result(30)
    time.sleep(0.5)


def run(cmd):
    """Runs cmd; returns (stdout, wall seconds, cpu seconds, peak RSS MB)."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{cmd[0]} failed:\n{out}")
    return out, wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0


def rate_from(out, pattern):
    m = re.search(pattern, out)
    return float(m.group(1)) if m else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=1_000_000)
    ap.add_argument("--size", type=int, default=100)
    ap.add_argument("--brokers", default="127.0.0.1:9092")
    args = ap.parse_args()
    if not os.path.exists(os.path.join(RDLIB, "include", "librdkafka", "rdkafka.h")):
        sys.exit("librdkafka missing: run scripts/setup.sh librdkafka")
    os.makedirs(os.path.dirname(RDPERF), exist_ok=True)
    subprocess.run(["gcc", "-O2", "-I" + os.path.join(RDLIB, "include"), "-o", RDPERF,
                    os.path.join(ROOT, "scripts", "bench", "rdkafka_produce_perf.c"),
                    "-L" + os.path.join(RDLIB, "lib"), "-Wl,-rpath," + os.path.join(RDLIB, "lib"), "-lrdkafka"],
                   check=True)
    subprocess.run(["cargo", "build", "--release", "--quiet", "--example", "produce_perf"], cwd=ROOT, check=True)
    rows = []
    stamp = int(time.time())
    for acks in ["1", "all"]:
        for codec in ["none", "lz4"]:
            res = {}
            for client in ["librdkafka", "gregor"]:
                topic = f"bench-p-{client}-{acks}-{codec}-{stamp}"
                create_topic(args.brokers, topic, 6)
                if client == "librdkafka":
                    cmd = [RDPERF, args.brokers, topic, str(args.count), str(args.size), acks, codec]
                else:
                    cmd = [GREGOR, args.brokers, topic, str(args.count), str(args.size), acks, codec]
                out, wall, cpu, rss = run(cmd)
                # messages per second over the client's whole run (start to all acks)
                res[client] = (args.count / wall, args.count * args.size / wall / 1e6, cpu, rss)
            rows.append((acks, codec, res))
    print()
    print(f"producer: {args.count:,} x {args.size}-byte messages, 6 partitions, broker {args.brokers}")
    print(f"{'acks':<5}{'codec':<6}{'client':<12}{'msgs/s':>12}{'MB/s':>9}{'CPU s':>8}{'RSS MB':>8}")
    for acks, codec, res in rows:
        for client in ["librdkafka", "gregor"]:
            m, mb, cpu, rss = res[client]
            print(f"{acks:<5}{codec:<6}{client:<12}{m:>12,.0f}{mb:>9.1f}{cpu:>8.2f}{rss:>8.1f}")
        g, l = res["gregor"], res["librdkafka"]
        print(f"{'':<11}{'ratio':<12}{g[0] / l[0]:>12.2f}x{'':>8}{g[2] / l[2]:>8.2f}x{g[3] / l[3]:>7.2f}x")
    print("(ratio = gregor / librdkafka; msgs/s over the whole run, CPU = user+sys of the client process)")


if __name__ == "__main__":
    main()
