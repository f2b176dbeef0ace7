#!/usr/bin/env bash
# librdkafka's own benchmark program, rdkafka_performance (from the examples
# of the librdkafka source that scripts/setup.sh unpacks), built once against
# librdkafka.so.1 and run unchanged on the real library and on gregor's by
# the library path alone: same binary, same broker, same run, alternating.
#
# Each round produces COUNT messages of SIZE bytes to a new one-partition
# topic (`-P -p 0`, delivery reports on) and consumes them back with the
# legacy consumer (`-C -p 0 -o beginning`). The table shows the medians of
# ROUNDS rounds: the rate rdkafka_performance prints (first to last
# message), the process's user + system CPU and its peak RSS, and ours over
# librdkafka's.
#
# Usage: scripts/bench/rdkafka-performance.sh [ROUNDS] [COUNT] [SIZE]
#        (defaults 3, 1000000, 100; release build of gregor-rdkafka)
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/lib.sh

ROUNDS=${1:-3}
COUNT=${2:-1000000}
SIZE=${3:-100}
SRC=$GREGOR_DEPS/build/librdkafka
TARGET=${CARGO_TARGET_DIR:-$PWD/target}
WORK=$TARGET/rdkafka/perf
[ -f "$SRC/examples/rdkafka_performance.c" ] && [ -f "$SRC/src/librdkafka.so.1" ] ||
    die "no built librdkafka source in $SRC: run scripts/setup.sh librdkafka"
port_open "$BROKER_PORT" || die "no broker on 127.0.0.1:$BROKER_PORT: run scripts/services.sh start broker"

mkdir -p "$WORK/lib"
log "rdkafka_performance: building it against librdkafka.so.1, and gregor-rdkafka (release)"
# the example's own build links the static library; this one loads the
# shared one, so the library path picks whose it is
cc -O2 -I"$SRC/src" -o "$WORK/rdkafka_performance" "$SRC/examples/rdkafka_performance.c" \
    -L"$SRC/src" -l:librdkafka.so.1 -lpthread -lm
cargo build -q --release -p gregor-rdkafka
ln -sf "$TARGET/release/librdkafka.so" "$WORK/lib/librdkafka.so.1"

# run WHO MODE ARGS...: one run; appends "WHO MODE rate cpu rss" to $WORK/runs
run() {
    local who=$1 mode=$2; shift 2
    local lib=$SRC/src
    [ "$who" = gregor ] && lib=$WORK/lib
    local out
    out=$(LD_LIBRARY_PATH=$lib /usr/bin/time -f 'TIME %U %S %M' \
        timeout 300 "$WORK/rdkafka_performance" "$@" 2>&1) || { echo "$out" | tail -5; die "$who $mode failed"; }
    local rate cpu rss
    rate=$(echo "$out" | grep -o '[0-9]* msgs/s' | tail -1 | cut -d' ' -f1)
    cpu=$(echo "$out" | awk '/^TIME/ {print $2 + $3}')
    rss=$(echo "$out" | awk '/^TIME/ {print $4}')
    [ -n "$rate" ] || { echo "$out" | tail -5; die "$who $mode printed no rate"; }
    echo "$who $mode $rate $cpu $rss" >>"$WORK/runs"
    printf '  %-10s %-8s %10s msgs/s %6s CPU-s %8s kB\n' "$who" "$mode" "$rate" "$cpu" "$rss"
}

: >"$WORK/runs"
for i in $(seq "$ROUNDS"); do
    for who in librdkafka gregor; do
        topic=rdperf-$who-$i-$$
        python3 - "127.0.0.1:$BROKER_PORT" "$topic" <<'EOF'
import importlib.util, sys
s = importlib.util.spec_from_file_location('bp', 'scripts/bench-producer.py')
m = importlib.util.module_from_spec(s); s.loader.exec_module(m)
m.create_topic(sys.argv[1], sys.argv[2], 1)
EOF
        run "$who" produce -P -t "$topic" -p 0 -b "127.0.0.1:$BROKER_PORT" -s "$SIZE" -c "$COUNT" -q
        run "$who" consume -C -t "$topic" -p 0 -o beginning -b "127.0.0.1:$BROKER_PORT" -c "$COUNT" -q
    done
done

python3 - "$WORK/runs" "$COUNT" "$SIZE" <<'EOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
med = lambda who, mode, i: statistics.median(float(r[i]) for r in rows if r[0] == who and r[1] == mode)
print(f"\nrdkafka_performance, {sys.argv[2]} x {sys.argv[3]} B, 1 partition, medians of {len(rows)//4} rounds")
print(f"{'':24} {'librdkafka':>14} {'gregor':>14} {'gregor/librdkafka':>18}")
for mode in ("produce", "consume"):
    for name, i, fmt in (("msgs/s", 2, "{:,.0f}"), ("CPU-s", 3, "{:.2f}"), ("peak RSS kB", 4, "{:,.0f}")):
        a, b = med("librdkafka", mode, i), med("gregor", mode, i)
        print(f"{mode + ' ' + name:24} {fmt.format(a):>14} {fmt.format(b):>14} {b / a:>12.2f}x")
EOF
