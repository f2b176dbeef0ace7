#!/usr/bin/env bash
# The whole test suite, as README.md and .ci/run call it. Installs what it
# needs first (scripts/setup.sh, idempotent), starts the test services on
# 127.0.0.1, runs every check, and stops the services it started.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

# Phase timings: `phase NAME` ends the running phase and starts NAME; the
# table of every phase and the total is printed when the run ends, passed
# or failed (a failed run names the phase it failed in).
PHASES=()
PHASE_SECS=()
PHASE_NAME=""
PHASE_START=$SECONDS
phase() {
    if [ -n "$PHASE_NAME" ]; then
        PHASES+=("$PHASE_NAME")
        PHASE_SECS+=($((SECONDS - PHASE_START)))
    fi
    PHASE_NAME=$1
    PHASE_START=$SECONDS
    [ -z "$1" ] || log "== $1"
}
phase_table() {
    local rc=$1 failed=${2:-$PHASE_NAME} i
    phase ""
    printf '\n%-38s %9s\n' "phase" "time"
    for i in "${!PHASES[@]}"; do
        printf '%-38s %6dm%02ds\n' "${PHASES[$i]}" $((PHASE_SECS[i] / 60)) $((PHASE_SECS[i] % 60))
    done
    printf '%-38s %6dm%02ds\n' "total" $((SECONDS / 60)) $((SECONDS % 60))
    if [ "$rc" -ne 0 ]; then
        printf 'FAILED (exit %d) in phase: %s\n' "$rc" "$failed"
    fi
}

cleanup() {
    local rc=$? failed_in=$PHASE_NAME
    phase "stop services"
    stop_test_services
    phase_table "$rc" "$failed_in" >&2
    exit "$rc"
}
trap cleanup EXIT

phase "setup (scripts/setup.sh)"
scripts/setup.sh apt python cbindgen broker librdkafka confluent_kafka zookeeper fuzz

phase "start services"
start_test_services
# Every service was started above: a test that finds one missing fails here
# instead of skipping (tests/common/mod.rs, service_up).
export CI=true

phase "static checks"
log "static checks: fmt, clippy, docs"
cargo fmt --check
cargo clippy --all-targets -- -D warnings
# a program's build (no `internals`): the API hands out no type it cannot name
cargo clippy --lib --bins -- -D warnings
# librdkafka's ABI on gregor (rdkafka/, the workspace's second library)
cargo clippy -p gregor-rdkafka --all-targets -- -D warnings
RUSTDOCFLAGS=-Dwarnings cargo doc --no-deps --quiet

log "layers: every module path in src/ follows the layer table of docs/ARCHITECTURE.md"
python3 scripts/layers.py

log "python imports: the modules of bindings/python/gregor import each other without a cycle"
python3 scripts/py_imports.py

log "C header is what cbindgen generates from src/ffi"
tmp=$(mktemp)
cbindgen --quiet --config cbindgen.toml --output "$tmp" src/ffi/mod.rs
if ! cmp -s "$tmp" include/gregor.h; then
    diff -u include/gregor.h "$tmp" | head -40
    die "include/gregor.h is stale: regenerate it with: cbindgen --config cbindgen.toml --output include/gregor.h src/ffi/mod.rs"
fi
# Generated from the whole crate it must be the same header: a public constant
# outside src/ffi carries `/// cbindgen:ignore` so it stays out of the C API.
cbindgen --quiet --config cbindgen.toml --crate gregor --output "$tmp"
if ! cmp -s "$tmp" include/gregor.h; then
    diff -u include/gregor.h "$tmp" | head -40
    die "cbindgen --crate gregor exports more than src/ffi: mark the new public items outside src/ffi with /// cbindgen:ignore"
fi
rm -f "$tmp"

phase "Rust build (tests)"
cargo test --no-run --quiet
phase "Rust tests"
log "Rust tests: codecs, record formats, network faults, broker, interop"
# Every test target but the two failover suites, which run next with their
# output shown (a plain `cargo test` would run them a second time).
targets=()
for f in tests/*.rs; do
    t=$(basename "$f" .rs)
    case "$t" in failover | failover_matrix) ;; *) targets+=(--test "$t") ;; esac
done
cargo test --lib --bins "${targets[@]}"
cargo test --doc

phase "failover suite (mock cluster, figures)"
# Its figures (messages, lost, duplicated, requests per broker) go to CI's output.
cargo test --quiet --test failover --test failover_matrix -- --nocapture --test-threads=1

# Each optional Cargo feature left out (README "Cargo features"): clippy of
# every variant, the unit tests of two (scripts/features-test.sh).
phase "Cargo feature variants"
timeout 2400 scripts/features-test.sh || die "a Cargo feature variant failed (or took over 40 minutes)"

if [ -x scripts/c-tests.sh ]; then
    phase "C tests (ASan, UBSan)"
    scripts/c-tests.sh
    # test_admin and test_metadata (the slowest under valgrind, ~100 s of
    # the ~5 min all seven take on a loaded 2-core machine) run under ASan only.
    phase "C tests (valgrind)"
    scripts/c-tests.sh --valgrind test_config test_misuse test_roundtrip test_threads test_unreachable
fi

phase "librdkafka ABI (rdkafka/: librdkafka.so.1 on gregor)"
cargo test --quiet -p gregor-rdkafka
scripts/rdkafka-abi-check.sh
scripts/rdkafka-abi-tests.sh
# librdkafka's own tests on ours: the floor list (the whole suite, by hand:
# scripts/rdkafka-tests.sh)
scripts/rdkafka-tests.sh --floor
# confluent-kafka-python's C extension from its sdist, unchanged, on ours and
# on librdkafka: its unit tests (no broker), at least this many passing on ours
# (163 of 165 pass; test_threads fails about one run in two: one run of margin)
scripts/confluent-kafka-c-tests.sh --floor 161

phase "bindings (Python, Ruby, pkg-config)"
scripts/bindings-test.sh

phase "gregor mock (kcat, confluent-kafka, C/Python/Ruby examples)"
scripts/mock-tests.sh

phase "fuzz (${FUZZ_SECONDS:-12} s a target)"
scripts/fuzz.sh
log "all tests passed"
