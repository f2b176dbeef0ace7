#!/usr/bin/env bash
# librdkafka's own test suite (its tests/, from the librdkafka 2.12.1 source
# that scripts/setup.sh unpacks) run unchanged on gregor's librdkafka.so.1.
#
# The suite's test-runner is built once, as librdkafka builds it, against the
# real librdkafka (a program linked to librdkafka.so.1 and librdkafka++.so.1);
# it then runs on ours by the library path alone, librdkafka's C++ wrapper
# included (it calls only the C API, so it runs on ours too). Each test runs
# by itself (TESTS=<name>, quick mode -Q) against the test broker on
# 127.0.0.1:$BROKER_PORT, with a time limit, and the script prints a table:
# test, result on ours (PASSED / FAILED / SKIPPED / TIMEOUT), result on
# librdkafka when known, first failure line.
#
# What librdkafka itself does on this broker is in
# rdkafka/tests/librdkafka-tests.real.tsv (`--real` writes it: the same runs
# on the real library); a test that fails there too is "n/a" on ours.
# rdkafka/tests/librdkafka-tests.pass lists the tests that pass on ours: the
# script fails if one of them does not (the floor only rises: add a test
# there once it passes), and says which tests pass that the list lacks.
#
# Usage: scripts/rdkafka-tests.sh [--real] [--floor] [--timeout S] [PATTERN]
#   PATTERN   an extended regex of test names to run (default: every test)
#   --floor   only the tests of the floor list (what scripts/test.sh runs:
#             the whole suite on ours takes about half an hour while many
#             tests wait out their time limit on calls not built yet)
#   --real    run on the real librdkafka and rewrite the .real.tsv reference
#   --timeout seconds per test (default 60)
# Environment: TEST_KAFKA_VERSION (default 3.7.0), the broker version the
# suite assumes when it decides what applies.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

REAL_RUN=0
FLOOR_ONLY=0
LIMIT=60
PATTERN=.
while [ $# -gt 0 ]; do
    case $1 in
    --real) REAL_RUN=1 ;;
    --floor) FLOOR_ONLY=1 ;;
    --timeout) LIMIT=$2; shift ;;
    -*) die "unknown option $1" ;;
    *) PATTERN=$1 ;;
    esac
    shift
done

SRC=$GREGOR_DEPS/build/librdkafka
TARGET=${CARGO_TARGET_DIR:-$PWD/target}
WORK=$TARGET/rdkafka/tests
REF=rdkafka/tests/librdkafka-tests.real.tsv
FLOOR=rdkafka/tests/librdkafka-tests.pass
[ -f "$SRC/tests/test.c" ] && [ -f "$SRC/src/librdkafka.so.1" ] ||
    die "no built librdkafka source in $SRC: run scripts/setup.sh librdkafka"
port_open "$BROKER_PORT" || die "no broker on 127.0.0.1:$BROKER_PORT: run scripts/services.sh start broker"

mkdir -p "$WORK"
if [ ! -x "$SRC/tests/test-runner" ]; then
    log "librdkafka tests: building the test-runner (about a minute)"
    make -C "$SRC/tests" -j2 test-runner >"$WORK.build.log" 2>&1 ||
        { tail -20 "$WORK.build.log"; die "librdkafka tests: build failed (log: $WORK.build.log)"; }
fi

if [ "$REAL_RUN" = 1 ]; then
    LIBDIR=$SRC/src:$SRC/src-cpp
    WHO=librdkafka
else
    log "librdkafka tests: building gregor-rdkafka"
    cargo build -q -p gregor-rdkafka
    mkdir -p "$TARGET/rdkafka/lib"
    ln -sf "$TARGET/debug/librdkafka.so" "$TARGET/rdkafka/lib/librdkafka.so.1"
    LIBDIR=$TARGET/rdkafka/lib:$SRC/src-cpp
    WHO=gregor
fi

# Every test the suite declares, in its order.
mapfile -t ALL < <(tr '\n' ' ' <"$SRC/tests/test.c" | grep -o '_TEST( *[0-9][0-9][0-9][0-9]_[A-Za-z0-9_]*' |
    sed 's/_TEST( *//')
if [ "$FLOOR_ONLY" = 1 ]; then
    mapfile -t RUN < <(printf '%s\n' "${ALL[@]}" | grep -xF -f <(grep -v '^#' "$FLOOR") || true)
else
    mapfile -t RUN < <(printf '%s\n' "${ALL[@]}" | grep -E -- "$PATTERN" || true)
fi
[ ${#RUN[@]} -gt 0 ] || die "no test matches '$PATTERN'"

printf 'bootstrap.servers=127.0.0.1:%s\n' "$BROKER_PORT" >"$WORK/test.conf"
results=$WORK/results.$WHO.tsv
: >"$results"
log "librdkafka tests: ${#RUN[@]} tests on $WHO's library, up to ${LIMIT}s each"
start=$SECONDS
for t in "${RUN[@]}"; do
    out=$WORK/$t.$WHO.log
    # The subshell's own stderr is closed so that a test-runner that aborts
    # (how a failed test ends) is not reported on ours; its status is kept.
    # A log keeps its last 4 MB: a test that loops on a call failing at once
    # (one not built yet) prints a line per call.
    (cd "$WORK" && LD_LIBRARY_PATH=$LIBDIR RDKAFKA_TEST_CONF=$WORK/test.conf TESTS=$t \
        TEST_KAFKA_VERSION=${TEST_KAFKA_VERSION:-3.7.0} \
        timeout -k 5 "$LIMIT" "$SRC/tests/test-runner" -Q </dev/null 2>&1 | tail -c 4000000 >"$out"
    echo "${PIPESTATUS[0]}" >"$WORK/rc") 2>/dev/null || true
    rc=$(cat "$WORK/rc")
    clean=$(sed 's/\x1b\[[0-9;]*m//g' "$out")
    # The summary table's row for the test: "| <name> | PASSED | 0.2s |".
    state=$(grep -E "^\| *$t +\|" <<<"$clean" | awk -F'|' '{gsub(/ /,"",$3); print $3}' | tail -1 || true)
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
        state=TIMEOUT
    elif [ -z "$state" ]; then
        state=FAILED
    elif [ "$state" = PASSED ] && [ "$rc" != 0 ]; then
        # Passed, but the run failed afterwards (a leak check, a crash in destroy).
        state=FAILED
    fi
    why=""
    if [ "$state" != PASSED ]; then
        why=$(grep -m1 -E 'Test assertion failed|TEST FAILURE|failed at|Assertion|Segmentation|SKIP' <<<"$clean" |
            cut -c1-150 || true)
        [ -n "$why" ] || why=$(grep -v '^\s*$' <<<"$clean" | tail -1 | cut -c1-150)
        [ "$state" != TIMEOUT ] || why="no result in ${LIMIT}s; last: $(grep -v '^\s*$' <<<"$clean" | tail -1 | cut -c1-120)"
    fi
    printf '%s\t%s\t%s\n' "$t" "$state" "$why" >>"$results"
    # A broker gone makes every later result meaningless: stop, naming the
    # test it went away in.
    port_open "$BROKER_PORT" || die "the broker on 127.0.0.1:$BROKER_PORT went away during $t (log: $out)"
done
log "librdkafka tests: ran ${#RUN[@]} in $((SECONDS - start))s"

if [ "$REAL_RUN" = 1 ]; then
    if [ "$PATTERN" = . ] && [ "$FLOOR_ONLY" = 0 ]; then
        cp "$results" "$REF"
        log "wrote $REF"
    fi
    awk -F'\t' '{n[$2]++} END {for (s in n) printf "librdkafka: %s %d\n", s, n[s]}' "$results"
    exit 0
fi

# The table: ours next to the real library's recorded result.
table=$WORK/table.txt
awk -F'\t' -v ref="$REF" '
    BEGIN { while ((getline line < ref) > 0) { split(line, f, "\t"); real[f[1]] = f[2] } }
    {
        r = ($1 in real) ? real[$1] : "?"
        verdict = $2
        if ($2 != "PASSED" && r != "PASSED" && r != "?") verdict = "n/a"
        printf "%-44s %-8s %-8s %-8s %s\n", $1, $2, r, verdict, $3
        count[verdict]++
    }
    END {
        printf "\n"
        for (v in count) printf "%s: %d\n", v, count[v]
    }' "$results" >"$table"
{ printf '%-44s %-8s %-8s %-8s %s\n' test gregor rdkafka verdict "first failure"; cat "$table"; } >"$table.tmp"
mv "$table.tmp" "$table"
cat "$table"

# The floor: every listed test that ran must have passed.
missing=()
while read -r t; do
    [ -n "$t" ] || continue
    case $t in '#'*) continue ;; esac
    st=$(awk -F'\t' -v t="$t" '$1 == t {print $2}' "$results")
    [ -z "$st" ] || [ "$st" = PASSED ] || missing+=("$t:$st")
done <"$FLOOR"
extra=$(awk -F'\t' '$2 == "PASSED" {print $1}' "$results" | grep -vxF -f <(grep -v '^#' "$FLOOR") || true)
passed=$(awk -F'\t' '$2 == "PASSED"' "$results" | wc -l)
log "librdkafka tests on gregor: $passed passed of ${#RUN[@]} run; floor $(grep -vc '^#' "$FLOOR") (table: $table)"
[ -z "$extra" ] || log "passing but not in $FLOOR yet: $(tr '\n' ' ' <<<"$extra")"
if [ ${#missing[@]} -gt 0 ]; then
    die "below the floor: ${missing[*]} (logs: $WORK/<test>.gregor.log)"
fi
