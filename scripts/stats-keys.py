#!/usr/bin/env python3
"""Compares the statistics JSON of gregor and librdkafka for one workload.

    scripts/stats-keys.py REAL.txt OURS.txt [--absent docs/statistics-absent.tsv]

REAL.txt and OURS.txt are what rdkafka/tests/stats.c prints on each library
(lines `producer<TAB>{json}` and `consumer<TAB>{json}`, the last emission of
each client). Each JSON is flattened into key paths, with the names of
brokers, topics, partitions, per-broker topic-partitions and request kinds
replaced by `*` (`brokers.*.rtt.p99`, `topics.*.partitions.*.consumer_lag`),
so the two libraries' clusters and request mixes compare as shapes.

Prints, per client, the keys in both, only in librdkafka (with the reason
from the absent list when it has one) and only in gregor; then a
Prometheus-style scrape of both: the numbers a dashboard built on
librdkafka's statistics shows, read the same way from each.

Exits 1 when librdkafka has a key that gregor neither has nor lists in the
absent list (docs/statistics-absent.tsv: `key<TAB>reason`), and when the
list names a key gregor now has (the list only shrinks).
"""
import json
import sys

# maps whose keys are names, not fields (STATISTICS.md)
NAMED = {"brokers", "topics", "partitions", "toppars", "req"}


def flatten(v, prefix, out):
    if isinstance(v, dict):
        named = prefix.rsplit(".", 1)[-1] in NAMED
        for k, x in v.items():
            flatten(x, f"{prefix}.{'*' if named else k}" if prefix else k, out)
    else:
        out.add(prefix)
    return out


def load(path):
    clients = {}
    for line in open(path):
        who, _, js = line.rstrip("\n").partition("\t")
        clients[who] = json.loads(js)
    return clients


def absent_list(path):
    rows = {}
    for line in open(path):
        if line.strip() and not line.startswith("#"):
            key, _, reason = line.rstrip("\n").partition("\t")
            rows[key] = reason.strip()
    return rows


def scrape(s):
    """What a Prometheus exporter of librdkafka's statistics reports."""
    brokers = [b for b in s.get("brokers", {}).values() if b.get("nodeid", -1) >= 0]
    parts = [
        p
        for t in s.get("topics", {}).values()
        for p in t.get("partitions", {}).values()
        if p.get("partition", -1) >= 0
    ]
    lag = [p["consumer_lag"] for p in parts if p.get("consumer_lag", -1) >= 0]
    rtt = [b["rtt"]["avg"] for b in brokers if b.get("rtt", {}).get("cnt")]
    return [
        ("kafka_client_txmsgs_total", s.get("txmsgs")),
        ("kafka_client_txmsg_bytes_total", s.get("txmsg_bytes")),
        ("kafka_client_rxmsgs_total", s.get("rxmsgs")),
        ("kafka_client_rxmsg_bytes_total", s.get("rxmsg_bytes")),
        ("kafka_client_msg_cnt", s.get("msg_cnt")),
        ("kafka_client_brokers_up", sum(b.get("state") == "UP" for b in brokers)),
        ("kafka_client_broker_requests_total", sum(b.get("tx", 0) for b in brokers)),
        ("kafka_client_partitions", len(parts)),
        ("kafka_client_partition_txmsgs_total", sum(p.get("txmsgs", 0) for p in parts)),
        ("kafka_client_consumer_lag_sum", sum(lag) if lag else None),
        ("kafka_client_broker_rtt_avg_seen", bool(rtt)),
        ("kafka_client_cgrp_state", s.get("cgrp", {}).get("state")),
        ("kafka_client_cgrp_assignment_size", s.get("cgrp", {}).get("assignment_size")),
    ]


def main():
    args = sys.argv[1:]
    absent_path = "docs/statistics-absent.tsv"
    if "--absent" in args:
        i = args.index("--absent")
        absent_path = args[i + 1]
        del args[i : i + 2]
    real, ours = load(args[0]), load(args[1])
    absent = absent_list(absent_path)
    failed = False
    listed_seen = set()
    totals = [0, 0, 0]
    for who in ("producer", "consumer"):
        r, o = flatten(real[who], "", set()), flatten(ours[who], "", set())
        both, only_r, only_o = r & o, sorted(r - o), sorted(o - r)
        totals[0] += len(both)
        totals[1] += len(only_r)
        totals[2] += len(only_o)
        print(f"{who}: {len(both)} keys in both, {len(only_r)} only in librdkafka, "
              f"{len(only_o)} only in gregor")
        for k in only_r:
            reason = absent.get(k)
            if reason is None:
                failed = True
                print(f"  only librdkafka, NOT LISTED: {k}")
            else:
                listed_seen.add(k)
                print(f"  only librdkafka: {k}  ({reason})")
        for k in only_o:
            print(f"  only gregor: {k}")
        stale = sorted(k for k in absent if k in o)
        for k in stale:
            failed = True
            print(f"  listed as absent but gregor has it: {k}")
    print(f"\nkey paths: {totals[0]} in both, {totals[1]} only in librdkafka, "
          f"{totals[2]} only in gregor")
    print("\nscrape (same workload)            librdkafka        gregor")
    for who in ("producer", "consumer"):
        for (name, a), (_, b) in zip(scrape(real[who]), scrape(ours[who])):
            print(f"  {who[:4]} {name:36} {str(a):>12} {str(b):>12}")
    if failed:
        print(f"\nFAILED: keys librdkafka has that gregor neither has nor lists in {absent_path}, "
              "or listed keys gregor now has", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
