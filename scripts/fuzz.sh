#!/usr/bin/env bash
# Runs every fuzz target (fuzz/fuzz_targets/, cargo-fuzz + libFuzzer) for a
# bounded time each, starting from the committed seeds (fuzz/seeds/<target>)
# and the corpus grown by earlier runs (fuzz/corpus/<target>, not committed).
# Prints the executions reached per target; exits non-zero if any target
# finds a crash (a panic, an allocation over 256 MB, an input that takes
# more than 10 s, or memory over 2 GB), leaving the input in
# fuzz/artifacts/<target>/.
#
#   scripts/fuzz.sh [target...]      default: every target
#   FUZZ_SECONDS=600 scripts/fuzz.sh records    a longer run of one target
#
# FUZZ_SECONDS (default 12) is per target. Needs cargo-fuzz
# (scripts/setup.sh fuzz); runs on stable Rust through RUSTC_BOOTSTRAP=1.
# Replay a crash: scripts/fuzz.sh --replay TARGET fuzz/artifacts/TARGET/crash-…
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

export RUSTC_BOOTSTRAP=1 CARGO_INCREMENTAL=0
SECONDS_EACH=${FUZZ_SECONDS:-12}
# Release build (as shipped: no overflow checks) with AddressSanitizer.
# The build lives outside the checkout, so a fresh clone (CI) reuses it:
# the ASan release build of the fuzz targets takes many minutes.
FUZZ_TARGET_DIR=${GREGOR_FUZZ_TARGET:-$GREGOR_DEPS/fuzz-target}
BUILD=(-O --target-dir "$FUZZ_TARGET_DIR")
LIBFUZZER=(-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=256 -max_len=65536 -print_final_stats=1)

command -v cargo-fuzz >/dev/null || die "cargo-fuzz missing: scripts/setup.sh fuzz"

if [ "${1:-}" = --replay ]; then
    [ $# -eq 3 ] || die "usage: scripts/fuzz.sh --replay TARGET FILE"
    cd fuzz && exec cargo fuzz run "${BUILD[@]}" "$2" "../$3" -- -runs=1
fi

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    for f in fuzz/fuzz_targets/*.rs; do targets+=("$(basename "$f" .rs)"); done
fi

log "fuzz: building ${#targets[@]} targets"
(cd fuzz && cargo fuzz build "${BUILD[@]}" 2>&1 | tail -3) || die "fuzz: build failed"

failed=() summary=()
for t in "${targets[@]}"; do
    mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t"
    logf=fuzz/artifacts/$t.log
    log "fuzz: $t for ${SECONDS_EACH} s"
    (cd fuzz && cargo fuzz run "${BUILD[@]}" "$t" "corpus/$t" "seeds/$t" -- \
        -max_total_time="$SECONDS_EACH" "${LIBFUZZER[@]}") >"$logf" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$logf" | tail -1)
    corpus=$(find "fuzz/corpus/$t" -type f | wc -l)
    line="$t: ${execs:-?} execs in ${SECONDS_EACH} s, corpus $corpus"
    if [ $rc -ne 0 ]; then
        failed+=("$t")
        line="$line — FAILED (exit $rc)"
        grep -E "panicked at|ERROR: libFuzzer|ERROR: AddressSanitizer|SUMMARY|Test unit written" "$logf" | head -8 | sed 's/^/    /'
    fi
    summary+=("$line")
done

for l in "${summary[@]}"; do echo "$l"; done
if [ ${#failed[@]} -gt 0 ]; then
    die "fuzz: crashes in ${failed[*]} (inputs in fuzz/artifacts/; logs fuzz/artifacts/<target>.log)"
fi
log "fuzz: ${#targets[@]} targets, no crash"
