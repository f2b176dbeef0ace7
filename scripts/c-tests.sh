#!/usr/bin/env bash
# The C test suite: builds the static library, compiles each c-tests/*.c
# against include/gregor.h and target/debug/libgregor.a, runs it against the
# broker at $GREGOR_TEST_BROKER (default 127.0.0.1:9092), one line per test,
# then "N passed, N failed". Exits non-zero if any test fails. test_zk_consumer
# also needs ZooKeeper at $GREGOR_TEST_ZOOKEEPER (default 127.0.0.1:2181).
#
#   scripts/c-tests.sh [--valgrind] [test_name...]
#
# Default: AddressSanitizer + UndefinedBehaviorSanitizer, LeakSanitizer on
# (a leak fails the test). --valgrind: the same tests built without
# sanitizers, run under valgrind --leak-check=full: any memory error or
# definite (or indirect) leak fails; "possibly lost" blocks are shown but do
# not fail (see below).
# Binaries and logs go to c-tests/build/ (gitignored); a failing test's log
# is printed. Start a broker first: scripts/services.sh start broker.
set -uo pipefail
cd "$(dirname "$0")/.."

mode=asan
tests=()
for a in "$@"; do
    case "$a" in
    --valgrind) mode=valgrind ;;
    -h | --help)
        sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    -*) echo "unknown option $a" >&2; exit 2 ;;
    *) tests+=("${a%.c}") ;;
    esac
done

export GREGOR_TEST_BROKER=${GREGOR_TEST_BROKER:-127.0.0.1:9092}
CC=${CC:-cc}
TIMEOUT=${C_TEST_TIMEOUT:-300}   # seconds per test: a hang is a failure, not a stuck run
BUILD=c-tests/build
LIB=target/debug/libgregor.a
WARN=(-Wall -Wextra -Werror -g -fno-omit-frame-pointer)
LIBS=(-lpthread -ldl -lm)
mkdir -p "$BUILD"

echo "building $LIB (cargo build)"
cargo build --quiet --lib || { echo "cargo build failed"; echo "0 passed, 1 failed"; exit 1; }

# Every integer constant of gregor.h as a { "NAME", NAME } row, for
# test_descriptors.c (which compiles the macros and checks each against the
# library's descriptor tables at run time).
sed -n 's/^#define \(GREGOR_[A-Z0-9_]*\) -\{0,1\}[0-9][0-9]*$/{ "\1", (long long)(\1) },/p' \
    include/gregor.h >"$BUILD/header_constants.inc"

if [ ${#tests[@]} -eq 0 ]; then
    for f in c-tests/*.c; do tests+=("$(basename "$f" .c)"); done
fi

if [ "$mode" = valgrind ]; then
    command -v valgrind >/dev/null || { echo "valgrind not installed"; exit 2; }
    CFLAGS=("${WARN[@]}" -O0)
    suffix=.vg
    # Definite and indirect leaks are errors. "Possibly lost" blocks are
    # shown, not counted: at exit Rust's std keeps the main thread's handle
    # behind an interior pointer, and a producer thread left to finish a
    # connect to a silent broker (test_unreachable) still holds its
    # hashbrown tables by interior pointers — memcheck cannot tell either
    # from a leak. LeakSanitizer, in the default pass, judges those exactly.
    prefix=(valgrind --error-exitcode=1 --leak-check=full
        --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect,possible
        --track-origins=yes --quiet --suppressions=c-tests/valgrind.supp)
else
    CFLAGS=("${WARN[@]}" -fsanitize=address,undefined)
    suffix=
    export ASAN_OPTIONS="detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
    export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
    prefix=()
fi

host=${GREGOR_TEST_BROKER%:*} port=${GREGOR_TEST_BROKER##*:}
if ! (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; then
    echo "warning: no broker at $GREGOR_TEST_BROKER (scripts/services.sh start broker); tests that need one will fail"
fi
# test_zk_consumer also needs ZooKeeper.
export GREGOR_TEST_ZOOKEEPER=${GREGOR_TEST_ZOOKEEPER:-127.0.0.1:2181}
host=${GREGOR_TEST_ZOOKEEPER%:*} port=${GREGOR_TEST_ZOOKEEPER##*:}
if ! (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; then
    echo "warning: no ZooKeeper at $GREGOR_TEST_ZOOKEEPER (scripts/services.sh start zookeeper); test_zk_consumer will fail"
fi

passed=0 failed=0
for t in "${tests[@]}"; do
    src=c-tests/$t.c bin=$BUILD/$t$suffix log=$BUILD/$t$suffix.log
    if [ ! -f "$src" ]; then
        echo "FAIL $t: no $src"
        failed=$((failed + 1))
        continue
    fi
    if ! $CC "${CFLAGS[@]}" -Iinclude -Ic-tests -I"$BUILD" "$src" "$LIB" "${LIBS[@]}" -o "$bin" >"$log" 2>&1; then
        echo "FAIL $t: does not compile"
        sed 's/^/    /' "$log"
        failed=$((failed + 1))
        continue
    fi
    start=$(date +%s%N)
    timeout --kill-after=10 "$TIMEOUT" "${prefix[@]}" "./$bin" >"$log" 2>&1
    rc=$?
    ms=$((($(date +%s%N) - start) / 1000000))
    secs=$((ms / 1000)).$((ms % 1000 / 100))
    if [ $rc -eq 0 ]; then
        echo "PASS $t (${secs} s)"
        grep -h "KNOWN ISSUE" "$log" | sed 's/^ */    /'
        passed=$((passed + 1))
    else
        why="exit $rc"
        [ $rc -eq 124 ] && why="timed out after ${TIMEOUT} s"
        grep -q "LeakSanitizer" "$log" && why="$why, leaks"
        grep -q "ERROR: AddressSanitizer" "$log" && why="$why, AddressSanitizer"
        grep -q "runtime error:" "$log" && why="$why, UndefinedBehaviorSanitizer"
        echo "FAIL $t (${secs} s, $why)"
        sed 's/^/    /' "$log" | tail -n 80
        failed=$((failed + 1))
    fi
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
