#!/usr/bin/env bash
# confluent-kafka-python's C extension (confluent_kafka.cimpl), built from
# its source distribution, unchanged, on gregor's librdkafka.so.1, next to
# the same source built on the real librdkafka 2.12.1; then its unit tests
# (the top-level tests/test_*.py, which need no broker) run on each, and
# rdkafka/tests/python/test_ck_broker.py (the extension as an application
# uses it, against the test broker), and a table of passed / failed /
# errors / skipped per file, for both.
#
# The sdist carries no tests: the unit tests come from the project's
# repository (see below), which only `scripts/setup.sh confluent_kafka`
# with CONFLUENT_KAFKA_PYTHON_GIT set can fetch. Without them the extension
# is still built on both libraries and the broker tests run (a line says
# the unit tests were not run); --floor applies to the unit tests.
#
# Sources, cached under $GREGOR_DEPS/build (scripts/setup.sh confluent_kafka):
#   confluent_kafka-$CK_VERSION.tar.gz                  the sdist, from pip
#   confluent-kafka-python-$CK_VERSION-tests.tar.gz     its tests/ (the sdist
#       leaves them out), from the project's repository at tag v$CK_VERSION
# $CK_VERSION is the release whose C extension asks for librdkafka 2.12.1
# (MIN_RD_KAFKA_VERSION in confluent_kafka.h), the version ours reports.
#
# The extension is built twice under $CARGO_TARGET_DIR/ck-c/ by its own
# setup.py, with C_INCLUDE_PATH and LIBRARY_PATH at a prefix laid out as
# librdkafka's `make install` (include/librdkafka/rdkafka.h, lib/librdkafka.so):
#   ck-c/gregor      ours: rdkafka/include and target/release/librdkafka.so
#   ck-c/librdkafka  the real one, from $GREGOR_DEPS/build/librdkafka/src
# Tests run one file at a time (a crash costs one file, not the run) with
# LD_LIBRARY_PATH selecting the library. A pytest plugin written here checks,
# in the test process itself, that confluent_kafka and its cimpl are the ones
# built here (not an installed wheel, which bundles its own librdkafka) and
# that the librdkafka.so.1 mapped into the process is the library meant.
#
# Usage: scripts/confluent-kafka-c-tests.sh [--floor N] [PATTERN]
#   PATTERN     an extended regex of test file names (default: all)
#   --floor N   fail if fewer than N tests pass on ours (scripts/test.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

CK_VERSION=2.12.2
FLOOR=""
PATTERN=.
while [ $# -gt 0 ]; do
    case $1 in
    --floor) FLOOR=$2; shift ;;
    -*) die "unknown option $1" ;;
    *) PATTERN=$1 ;;
    esac
    shift
done

SDIST=$GREGOR_DEPS/build/confluent_kafka-$CK_VERSION.tar.gz
TESTS=$GREGOR_DEPS/build/confluent-kafka-python-$CK_VERSION-tests.tar.gz
REAL=$GREGOR_DEPS/build/librdkafka/src
TARGET=${CARGO_TARGET_DIR:-$PWD/target}
WORK=$TARGET/ck-c
[ -f "$SDIST" ] ||
    die "no confluent-kafka-python $CK_VERSION sdist in $GREGOR_DEPS/build: run scripts/setup.sh confluent_kafka"
UNIT=1
if [ ! -f "$TESTS" ]; then
    UNIT=0
    log "confluent-kafka C tests: no $TESTS (the sdist has no tests): its unit tests are not run, the broker tests are; to run them, set CONFLUENT_KAFKA_PYTHON_GIT to a clone of the project's repository and run scripts/setup.sh confluent_kafka"
fi
port_open "$BROKER_PORT" || die "no broker on 127.0.0.1:$BROKER_PORT: run scripts/services.sh start broker"
[ -f "$REAL/librdkafka.so.1" ] && [ -f "$REAL/rdkafka.h" ] ||
    die "no built librdkafka in $REAL: run scripts/setup.sh librdkafka"
# avro: tests/test_Producer.py, test_log.py and test_serializer_error.py
# import confluent_kafka.avro, which needs it.
python3 -c 'import pytest, pytest_timeout, pytest_asyncio, avro' 2>/dev/null ||
    die "pytest, pytest-timeout, pytest-asyncio and avro are needed: run scripts/setup.sh python"

start=$SECONDS
log "confluent-kafka C tests: building gregor-rdkafka (release)"
cargo build -q --release -p gregor-rdkafka

rm -rf "$WORK"
mkdir -p "$WORK/src"
tar -xzf "$SDIST" -C "$WORK/src" --strip-components=1
if [ "$UNIT" = 1 ]; then
    tar -xzf "$TESTS" -C "$WORK/src" --strip-components=1
    [ -d "$WORK/src/tests" ] || die "$TESTS holds no tests/"
fi
mkdir -p "$WORK/src/tests"
cp rdkafka/tests/python/test_ck_broker.py "$WORK/src/tests/"

# prefix WHO INCLUDE_DIR LIBRARY: a prefix as librdkafka's make install lays it out.
prefix() {
    mkdir -p "$WORK/$1/prefix/include/librdkafka" "$WORK/$1/prefix/lib"
    ln -sf "$2/rdkafka.h" "$WORK/$1/prefix/include/librdkafka/rdkafka.h"
    ln -sf "$3" "$WORK/$1/prefix/lib/librdkafka.so"
    ln -sf "$3" "$WORK/$1/prefix/lib/librdkafka.so.1"
}
prefix gregor "$PWD/rdkafka/include/librdkafka" "$TARGET/release/librdkafka.so"
prefix librdkafka "$REAL" "$REAL/librdkafka.so.1"

# build WHO: the extension by its own setup.py, next to a copy of the package.
build() {
    local w=$WORK/$1 blog=$WORK/$1/build.log
    cp -r "$WORK/src/src/confluent_kafka" "$w/"
    (cd "$WORK/src" && C_INCLUDE_PATH=$w/prefix/include LIBRARY_PATH=$w/prefix/lib \
        python3 setup.py -q build_ext --build-temp "$w/build" --build-lib "$w/ext" >"$blog" 2>&1) ||
        { tail -20 "$blog"; die "confluent-kafka C tests: building the extension on $1 failed (log: $blog)"; }
    cp "$w"/ext/confluent_kafka/cimpl*.so "$w/confluent_kafka/" ||
        die "confluent-kafka C tests: the build on $1 left no cimpl module (log: $blog)"
}
log "confluent-kafka C tests: building confluent-kafka-python $CK_VERSION's extension on both libraries"
build gregor
build librdkafka

# The check, as a pytest plugin loaded into every test process: it ends
# the run unless the package, its extension and the only librdkafka mapped
# are the ones meant, and else leaves a mark the script requires.
cat >"$WORK/ckcheck.py" <<'EOF'
import os

import pytest


def pytest_sessionstart(session):
    import confluent_kafka
    import confluent_kafka.cimpl as cimpl
    want_pkg, want_lib = os.environ["CK_WANT_PKG"], os.environ["CK_WANT_LIB"]
    for mod in (confluent_kafka, cimpl):
        if not os.path.realpath(mod.__file__).startswith(want_pkg + os.sep):
            pytest.exit("ckcheck: %s loaded from %s, not from %s"
                        % (mod.__name__, mod.__file__, want_pkg), returncode=4)
    libs = set()
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            if "librdkafka" in os.path.basename(path):
                libs.add(path)
    if len(libs) != 1 or not os.path.samefile(next(iter(libs)), want_lib):
        pytest.exit("ckcheck: librdkafka mapped: %s; want only %s"
                    % (sorted(libs), want_lib), returncode=4)
    with open(os.environ["CK_OK"], "w") as ok:
        ok.write("%s %s\n" % (cimpl.__file__, next(iter(libs))))
EOF

# test_unasync checks the repository's code generator (tools/, not in the
# tests), not the extension.
mapfile -t FILES < <(cd "$WORK/src" && ls tests/test_*.py | grep -v '/test_unasync\.py$' |
    grep -E -- "$PATTERN" || true)
# test_ck_broker is ours: every one of its tests must pass on both
BROKER_FILE=test_ck_broker
[ ${#FILES[@]} -gt 0 ] || die "no test file matches '$PATTERN'"

# run WHO LIBRARY: every file; WORK/WHO/results.tsv has file, pass, fail, error, skip, note.
run() {
    local who=$1 lib=$2 f name out xml rc
    local res=$WORK/$who/results.tsv
    : >"$res"
    for f in "${FILES[@]}"; do
        name=$(basename "$f" .py)
        out=$WORK/$who/$name.log
        xml=$WORK/$who/$name.xml
        rc=0
        rm -f "$WORK/$who/$name.ok"
        (cd "$WORK/src" && LD_LIBRARY_PATH=$(dirname "$lib") PYTHONPATH=$WORK/$who:$WORK \
            CK_WANT_PKG=$WORK/$who/confluent_kafka CK_WANT_LIB=$lib CK_OK=$WORK/$who/$name.ok \
            PYTHONDONTWRITEBYTECODE=1 \
            timeout -k 5 300 python3 -m pytest -q -p ckcheck -p no:cacheprovider --timeout 60 \
            --junitxml "$xml" "$f" </dev/null >"$out" 2>&1) || rc=$?
        if [ ! -s "$WORK/$who/$name.ok" ]; then
            grep -m1 'ckcheck:' "$out" >&2 || true
            die "confluent-kafka C tests: $name on $who: not checked to run on the library meant (log: $out)"
        fi
        python3 - "$xml" "$name" "$rc" >>"$res" <<'EOF'
import sys, xml.etree.ElementTree as ET
xml, name, rc = sys.argv[1], sys.argv[2], int(sys.argv[3])
p = f = e = s = 0
note = ""
try:
    for tc in ET.parse(xml).getroot().iter("testcase"):
        kinds = {c.tag for c in tc}
        if "error" in kinds: e += 1
        elif "failure" in kinds: f += 1
        elif "skipped" in kinds: s += 1
        else: p += 1
except (OSError, ET.ParseError):
    note = "no report (crashed?)"
if rc not in (0, 1, 5) and not note:
    note = "exit %d" % rc
if rc < 0 or rc >= 128 or rc == 124:
    note = "killed (exit %d)" % rc
print("%s\t%d\t%d\t%d\t%d\t%s" % (name, p, f, e, s, note))
EOF
    done
}
log "confluent-kafka C tests: ${#FILES[@]} test files on each library (each process checked: ck-c/<library>'s cimpl, that librdkafka.so.1 alone mapped)"
run gregor "$WORK/gregor/prefix/lib/librdkafka.so.1"
run librdkafka "$WORK/librdkafka/prefix/lib/librdkafka.so.1"

table=$WORK/table.txt
awk -F'\t' '
    FNR == 1 { which++ }
    which == 1 { g[$1] = $2 " " $3 " " $4 " " $5; gn[$1] = $6; order[++n] = $1;
                 for (i = 2; i <= 5; i++) gt[i] += $i }
    which == 2 { r[$1] = $2 " " $3 " " $4 " " $5; rn[$1] = $6; for (i = 2; i <= 5; i++) rt[i] += $i }
    END {
        printf "%-34s %-21s %-21s %s\n", "file", "gregor p/f/e/s", "librdkafka p/f/e/s", "note"
        for (k = 1; k <= n; k++) {
            t = order[k]; split(g[t], a, " "); split(r[t], b, " ")
            note = gn[t] (gn[t] != "" && rn[t] != "" ? "; " : "") (rn[t] != "" ? "librdkafka: " rn[t] : "")
            printf "%-34s %4d %4d %4d %4d    %4d %4d %4d %4d    %s\n", t, a[1], a[2], a[3], a[4], b[1], b[2], b[3], b[4], note
        }
        printf "%-34s %4d %4d %4d %4d    %4d %4d %4d %4d\n", "total", gt[2], gt[3], gt[4], gt[5], rt[2], rt[3], rt[4], rt[5]
    }' "$WORK/gregor/results.tsv" "$WORK/librdkafka/results.tsv" >"$table"
cat "$table"
for who in gregor librdkafka; do
    awk -F'\t' -v f="$BROKER_FILE" '$1 == f && ($3 + $4 > 0 || $2 == 0) {bad = 1} END {exit bad}' \
        "$WORK/$who/results.tsv" ||
        die "confluent-kafka C tests: $BROKER_FILE failed on $who (log: $WORK/$who/$BROKER_FILE.log)"
done
passed=$(awk -F'\t' -v f="$BROKER_FILE" '$1 != f {p += $2} END {print p + 0}' "$WORK/gregor/results.tsv")
if [ "$UNIT" = 1 ]; then
    log "confluent-kafka C tests: $passed of its unit tests passed on gregor, $BROKER_FILE passed on both, in $((SECONDS - start))s (logs: $WORK/<library>/<file>.log)"
else
    log "confluent-kafka C tests: $BROKER_FILE passed on both; its unit tests were not run (no $TESTS), in $((SECONDS - start))s"
fi
if [ -n "$FLOOR" ] && [ "$UNIT" = 1 ] && [ "$passed" -lt "$FLOOR" ]; then
    die "confluent-kafka C tests: $passed passed on gregor, below the floor of $FLOOR"
fi
