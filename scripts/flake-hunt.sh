#!/usr/bin/env bash
# Runs the suites N times in a row on this machine, optionally under load,
# and prints one table: test, runs, failures, first failure message. A test
# that fails once in N is a flaky test to fix at its cause.
#
#   scripts/flake-hunt.sh [--load] [--only SUITE[,SUITE...]] [--minutes M] N
#
#   --load    keep every core busy (one busy loop per core, at normal
#             priority) for the whole hunt, as on a CI machine that builds
#             while it tests
#   --only    run only these suites: rust:TARGET (a tests/*.rs target, or
#             rust:lib), rust (all of them), c:NAME or c, valgrind:NAME
#             or valgrind (the C tests test.sh runs under valgrind), python:FILE or
#             python, ruby:FILE or ruby, mock (scripts/mock-tests.sh)
#   --minutes start no new run after M minutes (the table counts the runs
#             done); the table is also rewritten after every run
#
# Starts the test services that are not running (as scripts/test.sh does)
# and stops them at the end; installs nothing (run scripts/setup.sh first).
# The table goes to stdout and to target/flake-hunt/table.txt; each failed
# run's output is kept in target/flake-hunt/.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

load=0
only=""
minutes=0
while [ $# -gt 1 ]; do
    case "$1" in
    --load) load=1 ;;
    --only) only=$2; shift ;;
    --minutes) minutes=$2; shift ;;
    *) die "unknown option $1 (scripts/flake-hunt.sh [--load] [--only SUITES] [--minutes M] N)" ;;
    esac
    shift
done
[ $# -eq 1 ] && [ "$1" -gt 0 ] 2>/dev/null || die "usage: scripts/flake-hunt.sh [--load] [--only SUITES] N"
runs=$1

loaders=()
cleanup() {
    local rc=$?
    for p in "${loaders[@]}"; do kill "$p" 2>/dev/null || true; done
    stop_test_services
    exit "$rc"
}
trap cleanup EXIT

start_test_services
export CI=true
if [ "$load" = 1 ]; then
    for ((i = 0; i < $(nproc); i++)); do
        bash -c 'while :; do :; done' &
        loaders+=($!)
    done
    log "flake hunt: $(nproc) busy loops keep the cores loaded"
fi

log "flake hunt: building the test binaries, the library and the Python package"
cargo build --quiet --lib --bin gregor
python3 scripts/flake_hunt.py --runs "$runs" --minutes "$minutes" ${only:+--only "$only"}
