#!/usr/bin/env bash
# kcat on gregor's librdkafka against kcat on the real librdkafka 2.12.1,
# on the same broker (127.0.0.1:$BROKER_PORT):
#
#   -L        the metadata listing of a topic made for the test, and of
#             the whole cluster; what legitimately varies between two
#             runs (the answering broker's name) is masked;
#   -L -J     the same as JSON, when kcat was built with JSON support
#             (scripts/setup.sh builds it without: then skipped, saying so);
#   -P        N lines `key:value` produced with `-K:` by each kcat to a
#             fresh topic of its own, read back with the real kcat
#             (`-C -e -o beginning -f '%k %s %p\n'`, sorted: partitions
#             interleave as they are fetched): the same keys, values and
#             partitions (librdkafka's default partitioner on the keys);
#             and 20 lines over 1 KiB without keys to partition 0 (kcat
#             hands those over with RD_KAFKA_MSG_F_FREE), read back in
#             order;
#   -P -H     20 lines with headers (a name given twice, an empty value,
#             a null one) produced by each kcat to partition 0 of a topic
#             of its own (rd_kafka_producev with RD_KAFKA_V_HEADERS), read
#             back in order by the real kcat (`-f '%k %s %p %o %h\n'`):
#             the same keys, values, partitions, offsets and headers;
#   -Q        offsets for times (rd_kafka_offsets_for_times, through a
#             producer handle) on a topic whose messages' timestamps are
#             read back first: before the first message, at it, between
#             two, after the last (-1), the logical -1 / -2, and several
#             partitions in one query: the same offsets and exit status;
#   -P -X transactional.id   the N lines in one transaction, on gregor's
#             mock (the test broker's memory storage refuses transactional
#             ids), read back read_committed by the real kcat
#   -G        the real kcat's -P topic read by a balanced consumer (`-G
#             group -e`, from the beginning), with the range assignor and
#             with cooperative-sticky: the same messages, partitions and
#             offsets (sorted), exit status, and rebalance / end-of-partition
#             lines (sorted, member ids masked); and messages with
#             headers read the same way: the same timestamps and headers;
#   -C        the legacy consumer on one queue (`-C -e -o beginning`) of
#             -P's real kcat's topic, all partitions (sorted) and `-p 0`
#             (in order): the same lines, end-of-partition lines, exit status.
#
# Prints each difference and exits 1 if any. Skipped (exit 0, with a log
# line) when no broker listens. The kcat built against our header and
# linked with our librdkafka.so.1 is scripts/rdkafka-abi-check.sh's
# (its `programs` step); run that first.
#
# Usage: scripts/rdkafka-abi-tests.sh [N]   (N lines for -P, default 200)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

N=${1:-200}
REAL=$GREGOR_DEPS/librdkafka
TARGET=${CARGO_TARGET_DIR:-$PWD/target}
WORK=$TARGET/rdkafka/kcat-tests
KCAT_REAL=$REAL/bin/kcat
KCAT_OURS=$TARGET/rdkafka/programs/kcat/kcat
BROKER=127.0.0.1:$BROKER_PORT

if ! port_open "$BROKER_PORT"; then
    log "rdkafka ABI tests SKIPPED: no broker on $BROKER (scripts/services.sh start broker)"
    exit 0
fi
[ -x "$KCAT_REAL" ] || die "no $KCAT_REAL: run scripts/setup.sh librdkafka"
[ -x "$KCAT_OURS" ] || die "no kcat on our librdkafka ($KCAT_OURS): run scripts/rdkafka-abi-check.sh first"
mkdir -p "$WORK"

failed=()
# compare NAME: WORK/NAME-real.txt against WORK/NAME-ours.txt
compare() {
    local name=$1
    if diff -u --label "$name (real)" --label "$name (ours)" "$WORK/$name-real.txt" \
        "$WORK/$name-ours.txt" >"$WORK/$name.diff"; then
        log "$name: identical ($(wc -l <"$WORK/$name-ours.txt") lines)"
    else
        cat "$WORK/$name.diff" >&2
        log "FAILED: $name differs (diff: $WORK/$name.diff)"
        failed+=("$name")
    fi
}

# mask: what two runs may answer differently: the name of the broker that
# answered a metadata request (kcat prints it after "from broker")
mask() { sed -E 's/(from broker )[^)]*/\1<masked>/; s/("originating_broker":)\{[^}]*\}/\1<masked>/'; }

run() { # KCAT ARGS...: stdout and stderr, then the exit status
    local kcat=$1 rc=0
    shift
    timeout 60 "$kcat" "$@" 2>&1 || rc=$?
    echo "exit $rc"
}

stamp=$(date +%s)-$$
topic=gregor-abi-kcat-$stamp
# the topic the listings show: made by a first message from the real kcat
echo "seed:seed" | timeout 60 "$KCAT_REAL" -b "$BROKER" -P -t "$topic" -K: ||
    die "the real kcat could not produce to $topic"

for which in real ours; do
    if [ $which = ours ]; then k=$KCAT_OURS; else k=$KCAT_REAL; fi
    run "$k" -b "$BROKER" -L -t "$topic" | mask >"$WORK/L-topic-$which.txt"
    run "$k" -b "$BROKER" -L | mask >"$WORK/L-$which.txt"
done
compare L-topic
compare L

if "$KCAT_REAL" -b "$BROKER" -L -J -t "$topic" >"$WORK/L-J-probe.txt" 2>&1; then
    for which in real ours; do
        if [ $which = ours ]; then k=$KCAT_OURS; else k=$KCAT_REAL; fi
        run "$k" -b "$BROKER" -L -J -t "$topic" | mask >"$WORK/L-J-$which.txt"
    done
    compare L-J
else
    log "L-J: SKIPPED: the real kcat has no JSON support ($(head -1 "$WORK/L-J-probe.txt"))"
fi

for i in $(seq 1 "$N"); do echo "key-$i:value-$i"; done >"$WORK/lines.txt"
for which in real ours; do
    if [ $which = ours ]; then k=$KCAT_OURS; else k=$KCAT_REAL; fi
    run "$k" -b "$BROKER" -P -t "$topic-P-$which" -K: <"$WORK/lines.txt" >"$WORK/P-$which.txt"
    timeout 60 "$KCAT_REAL" -b "$BROKER" -C -t "$topic-P-$which" -e -o beginning -q \
        -f '%k %s %p\n' 2>&1 | sort -V >"$WORK/P-read-$which.txt" || true
done
compare P
if [ "$(wc -l <"$WORK/P-read-real.txt")" -ne "$N" ]; then
    log "FAILED: read back $(wc -l <"$WORK/P-read-real.txt") of $N lines produced by the real kcat"
    failed+=(P-read-count)
fi
compare P-read

# lines over 1 KiB without keys, to one partition: kcat hands them over
# with RD_KAFKA_MSG_F_FREE (the library frees them after their reports)
for i in $(seq 1 20); do printf 'big-%s-%s\n' "$i" "$(head -c 1500 /dev/zero | tr '\0' x)"; done \
    >"$WORK/big.txt"
for which in real ours; do
    if [ $which = ours ]; then k=$KCAT_OURS; else k=$KCAT_REAL; fi
    run "$k" -b "$BROKER" -P -t "$topic-big-$which" -p 0 <"$WORK/big.txt" >"$WORK/P-big-$which.txt"
    timeout 60 "$KCAT_REAL" -b "$BROKER" -C -t "$topic-big-$which" -e -o beginning -q \
        -f '%S %p %s\n' 2>&1 | cut -c1-40 >>"$WORK/P-big-$which.txt" || true
done
compare P-big

# -P -H: every message with kcat's headers (a name twice, an empty value,
# a null one, a value holding '='), which kcat hands over as a copy of its
# list per message (RD_KAFKA_V_HEADERS: the message owns it once queued),
# to partition 0 (offsets in order); read back by the real kcat (its
# stderr dropped: %h makes it set api.version.request, which librdkafka
# warns about with a CONFWARN line holding the time)
for i in $(seq 1 20); do echo "hkey-$i:hvalue-$i"; done >"$WORK/headers.txt"
for which in real ours; do
    if [ $which = ours ]; then k=$KCAT_OURS; else k=$KCAT_REAL; fi
    run "$k" -b "$BROKER" -P -t "$topic-PH-$which" -p 0 -K: -H a=1 -H b=two -H a=again \
        -H empty= -H null -H 'eq=x=y' <"$WORK/headers.txt" >"$WORK/P-headers-$which.txt"
    timeout 60 "$KCAT_REAL" -b "$BROKER" -C -t "$topic-PH-$which" -e -o beginning -q \
        -f '%k %s %p %o %h\n' 2>/dev/null >>"$WORK/P-headers-$which.txt" || true
done
compare P-headers
if [ "$(grep -c '^hkey-.*a=1,b=two,a=again,empty=,null=NULL,eq=x=y$' "$WORK/P-headers-real.txt")" -ne 20 ]; then
    log "FAILED: the real kcat's 20 messages with headers did not read back as written"
    failed+=(P-headers-count)
fi

# -Q: offsets for times. Partition 0 of a topic of its own gets 4
# messages, one kcat run each, 20 ms apart (increasing timestamps),
# partition 1 one; their timestamps read back (%T) give the queries. The
# real kcat's CONFWARN line (kcat sets api.version.request, deprecated in
# librdkafka; ours does not warn of deprecated properties) is dropped.
for i in 1 2 3 4; do
    echo "qkey-$i:qvalue-$i" | timeout 60 "$KCAT_REAL" -b "$BROKER" -P -t "$topic-Q" -p 0 -K: ||
        die "the real kcat could not produce to $topic-Q"
    sleep 0.02
done
echo "qkey-p1:qvalue-p1" | timeout 60 "$KCAT_REAL" -b "$BROKER" -P -t "$topic-Q" -p 1 -K: ||
    die "the real kcat could not produce to $topic-Q"
mapfile -t ts < <(timeout 60 "$KCAT_REAL" -b "$BROKER" -C -t "$topic-Q" -p 0 -e -o beginning -q \
    -f '%T\n' 2>/dev/null)
[ ${#ts[@]} -eq 4 ] || die "read back ${#ts[@]} timestamps of the 4 messages of $topic-Q"
queries=(
    "$topic-Q:0:$((ts[0] - 1000))"                        # before the first: 0
    "$topic-Q:0:${ts[0]}"                                 # at the first: 0
    "$topic-Q:0:$((ts[0] + 1))"                           # between: 1
    "$topic-Q:0:${ts[3]}"                                 # at the last: 3
    "$topic-Q:0:$((ts[3] + 1000))"                        # after the last: -1
    "$topic-Q:0:-1"                                       # the end: 4
    "$topic-Q:0:$((ts[1] + 1)) $topic-Q:1:$((ts[0] - 1000))" # two partitions: 2, 0
    "$topic-Q:1:-2"                                       # the beginning: 0
)
for which in real ours; do
    if [ $which = ours ]; then k=$KCAT_OURS; else k=$KCAT_REAL; fi
    for q in "${queries[@]}"; do
        args=()
        for t in $q; do args+=(-t "$t"); done
        echo "-Q ${q//$topic/T}"
        run "$k" -b "$BROKER" -Q "${args[@]}" | grep -v CONFWARN
    done >"$WORK/Q-$which.txt"
done
compare Q
if [ "$(grep -c ' offset ' "$WORK/Q-real.txt")" -ne 9 ]; then
    log "FAILED: the real kcat answered $(grep -c ' offset ' "$WORK/Q-real.txt") of 9 -Q offsets"
    failed+=(Q-count)
fi

# -P -X transactional.id: kcat wraps its messages in a transaction (init,
# begin, commit); read back read_committed by the real kcat. On gregor's
# mock cluster (`gregor mock`, 3 brokers): the test broker's memory storage
# refuses transactional ids.
cargo build -q --bin gregor
"$TARGET/debug/gregor" mock -n 3 >"$WORK/mock.out" 2>"$WORK/mock.log" &
mock_pid=$!
trap 'kill $mock_pid 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do [ -s "$WORK/mock.out" ] && break; sleep 0.1; done
MOCK=$(head -1 "$WORK/mock.out")
[ -n "$MOCK" ] || die "gregor mock printed no bootstrap list (log: $WORK/mock.log)"
for which in real ours; do
    if [ $which = ours ]; then k=$KCAT_OURS; else k=$KCAT_REAL; fi
    run "$k" -b "$MOCK" -P -t "$topic-txn-$which" -K: -X "transactional.id=gregor-abi-$stamp-$which" \
        <"$WORK/lines.txt" >"$WORK/P-txn-$which.txt"
    timeout 60 "$KCAT_REAL" -b "$MOCK" -C -t "$topic-txn-$which" -e -o beginning -q \
        -X isolation.level=read_committed -f '%k %s\n' 2>&1 | sort -V >>"$WORK/P-txn-$which.txt" || true
done
compare P-txn
if [ "$N" -ne "$(grep -c '^key-' "$WORK/P-txn-real.txt")" ]; then
    log "FAILED: the real kcat's transaction read back $(grep -c '^key-' "$WORK/P-txn-real.txt") lines of $N"
    failed+=(P-txn-count)
fi

# -G: balanced consumers (range, and cooperative-sticky's incremental
# rebalances) each in a group of its own, reading the topic -P's real
# kcat wrote from the beginning to the end of every partition (-e)
for strategy in range cooperative-sticky; do
    for which in real ours; do
        if [ $which = ours ]; then k=$KCAT_OURS; else k=$KCAT_REAL; fi
        rc=0
        timeout 60 "$k" -b "$BROKER" -G "$topic-G-$strategy-$which" -e \
            -X auto.offset.reset=earliest -X partition.assignment.strategy=$strategy \
            -f '%k %s %p %o\n' "$topic-P-real" >"$WORK/G-$strategy-$which.out" \
            2>"$WORK/G-$strategy-$which.err" || rc=$?
        {
            sort -V "$WORK/G-$strategy-$which.out"
            echo "exit $rc"
            # partitions reach their ends in any order; member ids differ
            sed -E "s/-G-$strategy-$which/-G/g; s/memberid [^,)]*/memberid <masked>/; s/: exiting\$//" \
                "$WORK/G-$strategy-$which.err" | sort
        } >"$WORK/G-$strategy-$which.txt"
    done
    compare "G-$strategy"
    if [ "$(grep -c ' ' "$WORK/G-$strategy-ours.out")" -ne "$N" ]; then
        log "FAILED: kcat -G ($strategy) on ours read $(wc -l <"$WORK/G-$strategy-ours.out") of $N lines"
        failed+=("G-$strategy-count")
    fi
done
# -G of messages with headers (one of them null) and timestamps, written by
# the real kcat: the same keys, values, partitions, offsets, timestamps
# and headers (rd_kafka_message_headers, _timestamp)
for i in $(seq 1 20); do echo "hkey-$i:hvalue-$i"; done |
    timeout 60 "$KCAT_REAL" -b "$BROKER" -P -t "$topic-H" -K: -H a=1 -H b=two -H c ||
    die "the real kcat could not produce to $topic-H"
for which in real ours; do
    if [ $which = ours ]; then k=$KCAT_OURS; else k=$KCAT_REAL; fi
    rc=0
    timeout 60 "$k" -b "$BROKER" -G "$topic-GH-$which" -e -q -X auto.offset.reset=earliest \
        -f '%k %s %p %o %T %h\n' "$topic-H" >"$WORK/G-headers-$which.out" 2>/dev/null || rc=$?
    { sort -V "$WORK/G-headers-$which.out"; echo "exit $rc"; } >"$WORK/G-headers-$which.txt"
done
compare G-headers
# -C: the legacy consumer, every partition started on one queue
# (rd_kafka_consume_start_queue, rd_kafka_consume_callback_queue) to the
# end of each (-e): the real kcat's -P topic, all partitions (sorted:
# they interleave as fetched) and partition 0 alone (in order), with the
# end-of-partition lines kcat prints on stderr (sorted) and the exit status
for variant in all p0; do
    if [ $variant = p0 ]; then part=(-p 0); else part=(); fi
    for which in real ours; do
        if [ $which = ours ]; then k=$KCAT_OURS; else k=$KCAT_REAL; fi
        rc=0
        timeout 60 "$k" -b "$BROKER" -C -t "$topic-P-real" "${part[@]}" -e -o beginning \
            -f '%p %o %k %s\n' >"$WORK/C-$variant-$which.out" 2>"$WORK/C-$variant-$which.err" || rc=$?
        {
            if [ $variant = p0 ]; then cat "$WORK/C-$variant-$which.out"; else sort -V "$WORK/C-$variant-$which.out"; fi
            echo "exit $rc"
            # partitions reach their ends in any order: the last says so
            sed -E 's/: exiting$//' "$WORK/C-$variant-$which.err" | sort
        } >"$WORK/C-$variant-$which.txt"
    done
    compare "C-$variant"
done
if [ "$(wc -l <"$WORK/C-all-ours.out")" -ne "$N" ]; then
    log "FAILED: kcat -C on ours read $(wc -l <"$WORK/C-all-ours.out") of $N lines"
    failed+=(C-count)
fi
if [ ${#failed[@]} -gt 0 ]; then
    log "rdkafka ABI tests FAILED: ${failed[*]}"
    exit 1
fi
log "rdkafka ABI tests passed (kcat -L, -P of $N lines, of big lines, with headers and in a transaction, -Q, -G range, cooperative-sticky and with headers, -C of all partitions and of one: the same with ours as with librdkafka)"
