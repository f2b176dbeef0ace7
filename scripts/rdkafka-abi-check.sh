#!/usr/bin/env bash
# Checks gregor's librdkafka (rdkafka/, package gregor-rdkafka) against the
# real librdkafka 2.12.1 that scripts/setup.sh builds into $GREGOR_DEPS:
#
#   table    rdkafka/abi/functions.tsv is what scripts/rdkafka-abi-table.py
#            makes of the real headers and library;
#   exports  `nm -D --defined-only` of our librdkafka.so.1 is exactly the
#            real one's names (no gregor_ or other symbol), and its soname
#            is librdkafka.so.1;
#   probe    rdkafka/tests/probe.c, compiled against the real rdkafka.h,
#            answers the same linked against ours as against the real one
#            (version, debug contexts, every error descriptor, err2str and
#            err2name of every code; `probe conf`: a fixed list of
#            configuration calls, set / get / dup / dump / topic confs),
#            and against ours the functions not implemented yet fail
#            cleanly;
#   producer rdkafka/tests/producer.c, compiled against the real rdkafka.h,
#            prints the same linked against ours as against the real one,
#            each run producing to a fresh topic of the broker on
#            127.0.0.1:$BROKER_PORT (handle, topic handles, metadata,
#            produce / producev / produceva, delivery reports, flush);
#            skipped, saying so, when no broker listens there;
#   consumer rdkafka/tests/consumer.c, the same way: produces to a fresh
#            topic, then a group consumer with a rebalance_cb reads it all
#            (consumer_poll, partition EOF), commits, reads committed
#            offsets, positions and watermarks, closes; a second group
#            with cooperative-sticky (incremental assign / unassign in
#            its rebalance_cb, unsubscribe); then the legacy
#            consumer (consume_start, consume, consume_batch,
#            consume_callback, consume_stop) on it, and its queue variants
#            (consume_start_queue, consume_queue, _batch_queue,
#            _callback_queue); skipped likewise;
#            and ours again under valgrind: no definite leak;
#   mock     rdkafka/tests/mock.c, compiled against the real headers, run
#            on a mock cluster of each library (no broker): the same output.
#   admin    rdkafka/tests/admin.c, compiled against the real rdkafka.h,
#            prints the same linked against ours as against the real one,
#            each run with topics of its own on that broker (queues, admin
#            result events, AdminOptions, CreateTopics, DeleteTopics,
#            CreatePartitions, rd_kafka_thread_cnt back to 0 after
#            destroy); skipped likewise without a broker;
#   stats    rdkafka/tests/stats.c, linked against each library, one
#            workload each (an idempotent producer, a grouped consumer):
#            the key paths of their statistics JSON compared by
#            scripts/stats-keys.py; librdkafka's keys that ours lacks must
#            be listed in docs/statistics-absent.tsv with the reason;
#   sasl     rdkafka/tests/sasl.c, the same way, no broker: OAUTHBEARER
#            set_token / set_token_failure and their checks from inside
#            the refresh callback rd_kafka_poll serves, background
#            callbacks with and without the SASL queue, set_credentials;
#   lists    rdkafka/tests/lists.c (the plain-data families: topic
#            partition lists, headers, rd_kafka_mem_*, UUIDs), compiled
#            against the real rdkafka.h, prints the same linked against ours
#            as against the real one, and runs clean under valgrind
#            (--leak-check=full) against ours (skipped without valgrind);
#   dlopen   ours loads with RTLD_NOW and every table name resolves;
#   header   gregor's rdkafka/include/librdkafka/{rdkafka.h,rdkafka_mock.h}
#            are what scripts/rdkafka-header.py makes of rdkafka/abi/
#            (declarations.tsv up to date with the real headers too); a
#            probe generated from the tables (scripts/rdkafka-header-probe.py:
#            every constant's value and size, every struct's size, alignment
#            and field offsets and sizes, every RD_KAFKA_V_* expansion)
#            prints the same compiled against ours as against the real
#            header; and every prototype and one-line typedef of ours,
#            redeclared after the real headers, compiles (a mismatch is a
#            conflicting declaration); both compile as C++ too;
#   programs rdkafka/tests/{probe,lists,sasl,producer,consumer,admin,mock,stats}.c and kcat's sources (from scripts/setup.sh's
#            build; skipped when absent) compile to the same object files
#            against our header as against librdkafka's, and kcat built with
#            ours links with our librdkafka.so.1 and runs, and its `-X`
#            properties and `-X dump` give the same lines for the keys set
#            with ours as with librdkafka.
#
# Every check runs; the exit status is 1 if any failed. Builds the crate
# (debug; PROFILE=release for a release build) and writes only under
# $CARGO_TARGET_DIR/rdkafka (default target/rdkafka), so it can run again.
#
# Usage: scripts/rdkafka-abi-check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

PROFILE=${PROFILE:-debug}
REAL=$GREGOR_DEPS/librdkafka
TARGET=${CARGO_TARGET_DIR:-$PWD/target}
WORK=$TARGET/rdkafka
OURS=$WORK/lib
[ -f "$REAL/lib/librdkafka.so.1" ] && [ -f "$REAL/include/librdkafka/rdkafka.h" ] ||
    die "no librdkafka in $REAL: run scripts/setup.sh librdkafka"

failed=()
fail() { log "FAILED: $*"; failed+=("$1"); }

# same_on_both NAME SECONDS ARGS...: rdkafka/tests/NAME.c, compiled against
# the real rdkafka.h and linked once with each library, run with ARGS (in
# which @which@ becomes "real" or "ours": a topic of each run's own); true
# if both ran and printed the same ($WORK/NAME-{real,ours}.txt), else the
# check NAME failed, with the diff.
same_on_both() {
    local name=$1 secs=$2 which dir
    shift 2
    for which in real ours; do
        if [ $which = ours ]; then dir=$OURS; else dir=$REAL/lib; fi
        cc -std=c99 -Wall -Werror -I"$REAL/include" "rdkafka/tests/$name.c" \
            -L"$dir" -Wl,-rpath,"$dir" -lrdkafka -o "$WORK/$name-$which"
        timeout "$secs" "$WORK/$name-$which" "${@//@which@/$which}" \
            >"$WORK/$name-$which.txt" 2>"$WORK/$name-$which.log" || {
            fail "$name" "$name.c failed on the $which librdkafka (output: $WORK/$name-$which.txt)"
            return 1
        }
    done
    diff -u --label real --label ours "$WORK/$name-real.txt" "$WORK/$name-ours.txt" \
        >"$WORK/$name.diff" && return 0
    head -40 "$WORK/$name.diff" >&2
    fail "$name" "$name.c's output differs (whole diff: $WORK/$name.diff)"
    return 1
}

log "building gregor-rdkafka ($PROFILE)"
if [ "$PROFILE" = release ]; then
    cargo build -q -p gregor-rdkafka --release
else
    cargo build -q -p gregor-rdkafka
fi
mkdir -p "$OURS"
ln -sf "$TARGET/$PROFILE/librdkafka.so" "$OURS/librdkafka.so.1"
ln -sf librdkafka.so.1 "$OURS/librdkafka.so"

# table: the committed table is the headers' and the library's.
python3 scripts/rdkafka-abi-table.py --check || fail table "rdkafka/abi/functions.tsv is stale"

# exports
nm -D --defined-only "$REAL/lib/librdkafka.so.1" | awk '{print $NF}' | sort >"$WORK/real.syms"
nm -D --defined-only "$OURS/librdkafka.so.1" | awk '{print $NF}' | sort >"$WORK/ours.syms"
log "exports: real librdkafka $(wc -l <"$WORK/real.syms"), ours $(wc -l <"$WORK/ours.syms")," \
    "of which gregor_*: $(grep -c '^gregor_' "$WORK/ours.syms" || true)"
if ! diff -u --label real --label ours "$WORK/real.syms" "$WORK/ours.syms" >"$WORK/syms.diff"; then
    sed -n '3,$p' "$WORK/syms.diff" | grep '^[-+]' | head -20 >&2
    fail exports "our export list differs from librdkafka's (- only in librdkafka, + only in ours)"
fi
soname=$(readelf -d "$OURS/librdkafka.so.1" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = librdkafka.so.1 ] || fail soname "our soname is '$soname', want librdkafka.so.1"

# probe: the same program against both libraries.
for which in ours real; do
    if [ $which = ours ]; then dir=$OURS; else dir=$REAL/lib; fi
    cc -std=c99 -Wall -Werror -I"$REAL/include" rdkafka/tests/probe.c \
        -L"$dir" -Wl,-rpath,"$dir" -lrdkafka -o "$WORK/probe-$which"
done
loaded=$(ldd "$WORK/probe-ours" | awk '$1 == "librdkafka.so.1" {print $3}')
[ "$loaded" = "$OURS/librdkafka.so.1" ] || fail probe "probe-ours loads '$loaded', not ours"
"$WORK/probe-real" facts >"$WORK/facts-real.txt" || fail probe "probe facts failed on the real librdkafka"
"$WORK/probe-ours" facts >"$WORK/facts-ours.txt" || fail probe "probe facts failed on ours"
if diff -u --label real --label ours "$WORK/facts-real.txt" "$WORK/facts-ours.txt" >"$WORK/facts.diff"; then
    log "probe facts: identical ($(grep -c '^desc\[' "$WORK/facts-ours.txt") descriptors," \
        "$(grep -c '^err2str ' "$WORK/facts-ours.txt") codes through err2str and err2name)"
else
    head -30 "$WORK/facts.diff" >&2
    fail probe "probe facts differ (whole diff: $WORK/facts.diff)"
fi
"$WORK/probe-real" conf >"$WORK/conf-real.txt" || fail conf "probe conf failed on the real librdkafka"
"$WORK/probe-ours" conf >"$WORK/conf-ours.txt" || fail conf "probe conf failed on ours"
if diff -u --label real --label ours "$WORK/conf-real.txt" "$WORK/conf-ours.txt" >"$WORK/conf.diff"; then
    log "probe conf: identical ($(grep -c '^set \|^topic_set ' "$WORK/conf-ours.txt") sets," \
        "$(grep -c 'get[^:]*: ' "$WORK/conf-ours.txt") gets," \
        "$(grep -c 'dump [^:]*=' "$WORK/conf-ours.txt") dumped keys; $(wc -l <"$WORK/conf-ours.txt") lines)"
else
    head -40 "$WORK/conf.diff" >&2
    fail conf "probe conf differs (whole diff: $WORK/conf.diff)"
fi
if "$WORK/probe-ours" stubs >"$WORK/stubs.txt"; then
    log "probe stubs: $(tail -1 "$WORK/stubs.txt")"
else
    grep -v '^ok ' "$WORK/stubs.txt" >&2 || true
    fail stubs "functions not implemented yet do not fail cleanly"
fi

# producer: a producing program against the broker, the same output with both.
if port_open "$BROKER_PORT"; then
    ptopic=gregor-abi-producer-$(date +%s)-$$
    # a topic of its own for each run: both see the broker create it
    if same_on_both producer 120 "127.0.0.1:$BROKER_PORT" "$ptopic-@which@" 40; then
        log "producer: identical ($(grep -c '^dr ' "$WORK/producer-ours.txt") delivery reports," \
            "$(wc -l <"$WORK/producer-ours.txt") lines)"
    fi
else
    log "producer: SKIPPED: no broker on 127.0.0.1:$BROKER_PORT (scripts/services.sh start broker)"
fi

# consumer: a group consumer against the broker, the same output with both.
if port_open "$BROKER_PORT"; then
    ctopic=gregor-abi-consumer-$(date +%s)-$$
    if same_on_both consumer 180 "127.0.0.1:$BROKER_PORT" "$ctopic-@which@" 40; then
        log "consumer: identical ($(grep -c '^msg ' "$WORK/consumer-ours.txt") messages," \
            "$(grep -c '^rebalance ' "$WORK/consumer-ours.txt") rebalances," \
            "$(wc -l <"$WORK/consumer-ours.txt") lines)"
    fi
    # consumed messages, their headers and lists freed: no leak of ours
    # (the Rust runtime's per-thread handles only "possibly" leak)
    if ! command -v valgrind >/dev/null; then
        log "consumer under valgrind: skipped (no valgrind)"
    elif timeout 300 valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite -q \
        "$WORK/consumer-ours" "127.0.0.1:$BROKER_PORT" "$ctopic-valgrind" 20 \
        >"$WORK/consumer-valgrind.out" 2>"$WORK/consumer-valgrind.txt"; then
        log "consumer under valgrind (ours): no definite leak, no invalid access"
    else
        grep -A20 -m1 -E 'definitely lost|Invalid|uninitialised' "$WORK/consumer-valgrind.txt" >&2 || true
        fail valgrind "consumer under valgrind found errors in ours (log: $WORK/consumer-valgrind.txt)"
    fi
else
    log "consumer: SKIPPED: no broker on 127.0.0.1:$BROKER_PORT (scripts/services.sh start broker)"
fi

# admin: the asynchronous admin calls against the broker, the same output
# with both (topic names print as their prefix "$P").
if port_open "$BROKER_PORT"; then
    atopic=gregor-abi-admin-$(date +%s)-$$
    if same_on_both admin 300 "127.0.0.1:$BROKER_PORT" "$atopic-@which@"; then
        log "admin: identical ($(grep -c '^event ' "$WORK/admin-ours.txt") result events," \
            "$(wc -l <"$WORK/admin-ours.txt") lines)"
    fi
else
    log "admin: SKIPPED: no broker on 127.0.0.1:$BROKER_PORT (scripts/services.sh start broker)"
fi

# stats: one workload (an idempotent producer, a grouped consumer) on each
# library, each client's last statistics JSON; their key paths compared by
# scripts/stats-keys.py: a key librdkafka has and ours neither has nor
# lists in docs/statistics-absent.tsv (with the reason) fails, as does a
# listed key ours has; the comparison and a dashboard scrape of both go to
# the log.
if port_open "$BROKER_PORT"; then
    stopic=gregor-abi-stats-$(date +%s)-$$
    ok=1
    for which in real ours; do
        if [ $which = ours ]; then dir=$OURS; else dir=$REAL/lib; fi
        cc -std=c99 -Wall -Werror -I"$REAL/include" rdkafka/tests/stats.c \
            -L"$dir" -Wl,-rpath,"$dir" -lrdkafka -o "$WORK/stats-$which"
        timeout 180 "$WORK/stats-$which" "127.0.0.1:$BROKER_PORT" "$stopic-$which" 2000 \
            >"$WORK/stats-$which.txt" 2>"$WORK/stats-$which.log" || {
            tail -5 "$WORK/stats-$which.log" >&2
            fail stats "stats.c failed on the $which librdkafka (log: $WORK/stats-$which.log)"
            ok=0
        }
    done
    if [ $ok = 1 ]; then
        if python3 scripts/stats-keys.py "$WORK/stats-real.txt" "$WORK/stats-ours.txt" >"$WORK/stats-keys.txt"; then
            log "stats: $(grep '^key paths' "$WORK/stats-keys.txt"); every other key listed with its reason"
        else
            grep -E 'NOT LISTED|listed as absent' "$WORK/stats-keys.txt" | head -20 >&2
            fail stats "statistics keys: librdkafka's not all in ours or listed (whole: $WORK/stats-keys.txt)"
        fi
        sed -n '/^scrape/,$p' "$WORK/stats-keys.txt" >&2
    fi
else
    log "stats: SKIPPED: no broker on 127.0.0.1:$BROKER_PORT (scripts/services.sh start broker)"
fi

# mock: librdkafka's mock cluster API (rdkafka_mock.h) on both libraries,
# the same output; needs no broker.
if same_on_both mock 300; then
    log "mock: identical ($(wc -l <"$WORK/mock-ours.txt") lines)"
fi

# sasl: SASL at run time (OAUTHBEARER tokens and their refresh callback,
# background callbacks, credentials) on both libraries, the same output;
# needs no broker.
if same_on_both sasl 120; then
    log "sasl: identical ($(wc -l <"$WORK/sasl-ours.txt") lines)"
fi

# lists: the plain-data families alike on both libraries, and no leak or
# invalid access in ours.
for which in ours real; do
    if [ $which = ours ]; then dir=$OURS; else dir=$REAL/lib; fi
    cc -std=c99 -Wall -Werror -I"$REAL/include" rdkafka/tests/lists.c \
        -L"$dir" -Wl,-rpath,"$dir" -lrdkafka -o "$WORK/lists-$which"
done
"$WORK/lists-real" >"$WORK/lists-real.txt" || fail lists "lists failed on the real librdkafka"
"$WORK/lists-ours" >"$WORK/lists-ours.txt" || fail lists "lists failed on ours"
if diff -u --label real --label ours "$WORK/lists-real.txt" "$WORK/lists-ours.txt" >"$WORK/lists.diff"; then
    log "lists: identical ($(wc -l <"$WORK/lists-ours.txt") lines: partition lists, headers, memory, UUIDs)"
else
    head -40 "$WORK/lists.diff" >&2
    fail lists "lists differs (whole diff: $WORK/lists.diff)"
fi
if command -v valgrind >/dev/null; then
    if valgrind --error-exitcode=1 --leak-check=full -q "$WORK/lists-ours" >/dev/null 2>"$WORK/lists-valgrind.txt"; then
        log "lists under valgrind (ours): no leak, no invalid access"
    else
        head -40 "$WORK/lists-valgrind.txt" >&2
        fail valgrind "lists under valgrind found errors in ours (log: $WORK/lists-valgrind.txt)"
    fi
else
    log "lists under valgrind: skipped (no valgrind)"
fi

# dlopen: every reference binds now, every name resolves.
python3 - "$OURS/librdkafka.so.1" rdkafka/abi/functions.tsv <<'EOF' || fail dlopen "dlopen/dlsym"
import ctypes, os, sys
lib = ctypes.CDLL(sys.argv[1], mode=os.RTLD_NOW | os.RTLD_LOCAL)
names = [l.split("\t")[0] for l in open(sys.argv[2]) if l.strip() and not l.startswith("#")]
missing = [n for n in names if not hasattr(lib, n)]
if missing:
    sys.exit(f"dlsym failed for {len(missing)}: {' '.join(missing[:10])}")
print(f"[dlopen] RTLD_NOW: loaded; {len(names)} names resolve", file=sys.stderr)
EOF

# header: gregor's own rdkafka.h and rdkafka_mock.h against librdkafka's.
HDR=$WORK/header
python3 scripts/rdkafka-abi-decls.py --check || fail decls "rdkafka/abi/declarations.tsv is stale"
python3 scripts/rdkafka-header.py --check || fail header "rdkafka/include/librdkafka is not what the tables give"
if python3 scripts/rdkafka-header-probe.py "$HDR"; then
    for which in real ours; do
        if [ $which = ours ]; then inc=rdkafka/include; else inc=$REAL/include; fi
        cc -std=gnu11 -Wall -Werror -Wno-deprecated-declarations -I"$inc" "$HDR/layout.c" \
            -o "$HDR/layout-$which" 2>"$HDR/layout-$which.log" && "$HDR/layout-$which" >"$HDR/layout-$which.txt" ||
            { head -20 "$HDR/layout-$which.log" >&2; fail layout "the layout probe does not build or run against the $which header"; }
    done
    if diff -u --label real --label ours "$HDR/layout-real.txt" "$HDR/layout-ours.txt" >"$HDR/layout.diff"; then
        log "header layout: identical ($(wc -l <"$HDR/layout-ours.txt") constants, sizes and offsets)"
    else
        head -30 "$HDR/layout.diff" >&2
        fail layout "our header's constants or layouts differ (whole diff: $HDR/layout.diff)"
    fi
    if cc -std=gnu11 -Wall -Werror -I"$REAL/include" -c "$HDR/redeclare.c" -o "$HDR/redeclare.o" 2>"$HDR/redeclare.log"; then
        log "header prototypes: all of ours redeclare librdkafka's without conflict"
    else
        grep -E 'error|note: previous' "$HDR/redeclare.log" | head -20 >&2
        fail prototypes "a prototype or typedef of ours conflicts with librdkafka's (log: $HDR/redeclare.log)"
    fi
    printf '#include <librdkafka/rdkafka.h>\n#include <librdkafka/rdkafka_mock.h>\n' >"$HDR/cxx.cc"
    c++ -Wall -Werror -fsyntax-only -Irdkafka/include "$HDR/cxx.cc" 2>"$HDR/cxx.log" ||
        { head -20 "$HDR/cxx.log" >&2; fail header "our headers do not compile as C++"; }
else
    fail header "scripts/rdkafka-header-probe.py failed"
fi

# programs: real programs compile the same against our header.
PROG=$WORK/programs
KCAT_SRC=$GREGOR_DEPS/build/kcat
mkdir -p "$PROG"
srcs=(rdkafka/tests/probe.c rdkafka/tests/lists.c rdkafka/tests/sasl.c rdkafka/tests/producer.c rdkafka/tests/consumer.c rdkafka/tests/admin.c
    rdkafka/tests/mock.c rdkafka/tests/stats.c)
kcat=0
if [ -f "$KCAT_SRC/kcat.c" ] && [ -f "$KCAT_SRC/config.h" ]; then
    rm -rf "$PROG/kcat" && mkdir -p "$PROG/kcat" && cp "$KCAT_SRC"/*.c "$KCAT_SRC"/*.h "$PROG/kcat/"
    srcs+=("$PROG/kcat/kcat.c" "$PROG/kcat/format.c" "$PROG/kcat/tools.c" "$PROG/kcat/input.c")
    # JSON output (-J) when setup's kcat was configured with yajl
    kcat_json=()
    if grep -q '^#define ENABLE_JSON 1' "$KCAT_SRC/config.h"; then
        srcs+=("$PROG/kcat/json.c")
        kcat_json=("$PROG/json-ours.o" -lyajl)
    fi
    kcat=1
else
    log "programs: no kcat source in $KCAT_SRC (scripts/setup.sh librdkafka): kcat skipped"
fi
same=0
for src in "${srcs[@]}"; do
    obj=$(basename "$src" .c)
    for which in real ours; do
        if [ $which = ours ]; then inc=rdkafka/include; else inc=$REAL/include; fi
        cc -O2 -w -I"$inc" -c "$src" -o "$PROG/$obj-$which.o" 2>"$PROG/$obj-$which.log" ||
            { head -20 "$PROG/$obj-$which.log" >&2; fail programs "$src does not compile against the $which header"; continue 2; }
    done
    if cmp -s "$PROG/$obj-real.o" "$PROG/$obj-ours.o"; then
        same=$((same + 1))
    else
        fail programs "$src compiles to a different object against our header"
    fi
done
log "programs: $same of ${#srcs[@]} sources compile to identical objects against either header"
if [ $kcat = 1 ]; then
    if cc -o "$PROG/kcat/kcat" "$PROG"/{kcat,format,tools,input}-ours.o "${kcat_json[@]}" -L"$OURS" -Wl,-rpath,"$OURS" \
        -lrdkafka -lpthread -lz -lssl -lcrypto -lm 2>"$PROG/kcat-link.log" &&
        kv=$("$PROG/kcat/kcat" -V 2>&1) && [[ $kv == *"librdkafka 2.12.1"* ]]; then
        log "programs: kcat built with our header links with our librdkafka.so.1 and runs (-V)"
    else
        head -20 "$PROG/kcat-link.log" >&2
        fail programs "kcat built with our header does not link with ours or run"
    fi
    # kcat's -X options through the configuration family: `-X dump`
    # against ours and (LD_LIBRARY_PATH before the RUNPATH) the real one,
    # the keys set compared, and an unknown property refused alike.
    kcat_conf() {
        "$PROG/kcat/kcat" -b localhost:9092 -L -X client.id=probe -X linger.ms=3 \
            -X acks=all -X topic.message.timeout.ms=4567 -X batch.num.messages=777 -X dump 2>&1 |
            grep -E '^(#|client\.id|queue\.buffering\.max\.ms|request\.required\.acks|message\.timeout\.ms|batch\.num\.messages) '
        "$PROG/kcat/kcat" -b localhost:9092 -L -X no.such.property=1 2>&1 | head -1
    }
    kcat_conf >"$PROG/kcat-conf-ours.txt" || true
    LD_LIBRARY_PATH=$REAL/lib kcat_conf >"$PROG/kcat-conf-real.txt" || true
    if diff -u --label real --label ours "$PROG/kcat-conf-real.txt" "$PROG/kcat-conf-ours.txt" \
        >"$PROG/kcat-conf.diff" && [ -s "$PROG/kcat-conf-ours.txt" ]; then
        log "programs: kcat -X ... -X dump: the same $(grep -vc '^#' "$PROG/kcat-conf-ours.txt") lines with ours as with librdkafka"
    else
        head -20 "$PROG/kcat-conf.diff" >&2
        fail programs "kcat's -X configuration differs with ours (whole diff: $PROG/kcat-conf.diff)"
    fi
fi

if [ ${#failed[@]} -gt 0 ]; then
    log "rdkafka ABI check FAILED: ${failed[*]}"
    exit 1
fi
log "rdkafka ABI check passed"
