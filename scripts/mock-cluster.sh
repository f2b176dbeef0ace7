#!/usr/bin/env bash
# The multi-broker test cluster: librdkafka's mock cluster behind a small
# driver (tests/mock_cluster/gregor-mock-cluster.c) that prints its bootstrap
# list and takes control commands on stdin (see the comment at its top).
#   scripts/mock-cluster.sh build        builds it if missing or older than its source
#   scripts/mock-cluster.sh path         prints the binary's path (after building)
#   scripts/mock-cluster.sh run [N]      builds it, then runs an N-broker cluster here
# Built against the librdkafka scripts/setup.sh installs in
# $GREGOR_DEPS/librdkafka (its include/librdkafka/rdkafka_mock.h and lib/), with
# an rpath, into target/mock-cluster/. The Rust tests (tests/mock_cluster/)
# run `scripts/mock-cluster.sh path` themselves, so building ahead is optional.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

SRC=tests/mock_cluster/gregor-mock-cluster.c
OUT_DIR=${CARGO_TARGET_DIR:-$PWD/target}/mock-cluster
OUT=$OUT_DIR/gregor-mock-cluster
RDK=${GREGOR_LIBRDKAFKA:-$GREGOR_DEPS/librdkafka}

build() {
    if [[ -x $OUT && $OUT -nt $SRC ]]; then
        return
    fi
    [[ -f $RDK/include/librdkafka/rdkafka_mock.h ]] ||
        die "no $RDK/include/librdkafka/rdkafka_mock.h: run scripts/setup.sh (it builds librdkafka)"
    mkdir -p "$OUT_DIR"
    log "mock cluster: building $OUT against $RDK"
    cc -O2 -Wall -o "$OUT.tmp.$$" "$SRC" \
        -I"$RDK/include" -L"$RDK/lib" -lrdkafka -Wl,-rpath,"$RDK/lib"
    mv "$OUT.tmp.$$" "$OUT"
}

case ${1:-build} in
build) build ;;
path)
    build
    echo "$OUT"
    ;;
run)
    build
    exec "$OUT" "${2:-3}"
    ;;
*) die "usage: scripts/mock-cluster.sh build|path|run [BROKERS]" ;;
esac
