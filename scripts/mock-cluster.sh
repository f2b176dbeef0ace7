#!/usr/bin/env bash
# The multi-broker test cluster: librdkafka's mock cluster behind a small
# driver (tests/mock_cluster/gregor-mock-cluster.c) that prints its bootstrap
# list and takes control commands on stdin (see the comment at its top).
#   scripts/mock-cluster.sh build        builds it if missing or older than its source
#   scripts/mock-cluster.sh path         prints the binary's path (after building)
#   scripts/mock-cluster.sh run [N]      builds it, then runs an N-broker cluster here
# Built against the librdkafka scripts/setup.sh installs in
# $GREGOR_DEPS/librdkafka (its include/librdkafka/rdkafka_mock.h), into
# target/mock-cluster/, running with a copy of that librdkafka patched by
# tests/mock_cluster/patches/ (see patched_lib below). The Rust tests
# (tests/mock_cluster/) run `scripts/mock-cluster.sh path` themselves, so
# building ahead is optional.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

SRC=tests/mock_cluster/gregor-mock-cluster.c
PATCHES=(tests/mock_cluster/patches/*.patch)
OUT_DIR=${CARGO_TARGET_DIR:-$PWD/target}/mock-cluster
OUT=$OUT_DIR/gregor-mock-cluster
RDK=${GREGOR_LIBRDKAFKA:-$GREGOR_DEPS/librdkafka}
# librdkafka's configured and built source tree, which scripts/setup.sh leaves
RDK_SRC=${GREGOR_LIBRDKAFKA_SRC:-$GREGOR_DEPS/build/librdkafka}
# the patched library the driver runs with
PATCHED_LIB=$OUT_DIR/lib

# patched_lib: a copy of librdkafka with tests/mock_cluster/patches/ applied
# (fixes of the mock's own bugs, each explained at the top of its patch),
# rebuilt incrementally from setup.sh's objects: only the patched files
# compile. The driver runs with it; gregor's clients, kcat and the
# benchmarks keep the unpatched library. Without the build tree, the
# driver links the installed library and the mock keeps those bugs.
patched_lib() {
    local tree=$OUT_DIR/librdkafka p newest=$SRC
    for p in "${PATCHES[@]}" "$0"; do [[ $p -nt $newest ]] && newest=$p; done
    if [[ -f $PATCHED_LIB/librdkafka.so.1 && $PATCHED_LIB/librdkafka.so.1 -nt $newest ]]; then
        return 0
    fi
    [[ -f $RDK_SRC/src/librdkafka.so.1 && -f $RDK_SRC/Makefile.config ]] || return 1
    log "mock cluster: patching a copy of $RDK_SRC (${#PATCHES[@]} patches)"
    rm -rf "$tree" "$PATCHED_LIB"
    mkdir -p "$tree" "$PATCHED_LIB"
    # the library's sources, objects and build configuration (cp -a keeps
    # their times, so make rebuilds only what a patch touches)
    find "$RDK_SRC" -maxdepth 1 -type f -exec cp -a {} "$tree/" \;
    cp -a "$RDK_SRC/src" "$RDK_SRC/mklove" "$tree/"
    for p in "${PATCHES[@]}"; do
        patch -d "$tree" -p1 --quiet --forward <"$p" || die "mock cluster: $p does not apply"
    done
    make -C "$tree/src" librdkafka.so.1 >"$OUT_DIR/librdkafka-build.log" 2>&1 ||
        { tail -20 "$OUT_DIR/librdkafka-build.log"; die "mock cluster: patched librdkafka build failed"; }
    cp -a "$tree/src/librdkafka.so.1" "$PATCHED_LIB/"
    ln -sf librdkafka.so.1 "$PATCHED_LIB/librdkafka.so"
    rm -rf "$tree"
}

build() {
    [[ -f $RDK/include/librdkafka/rdkafka_mock.h ]] ||
        die "no $RDK/include/librdkafka/rdkafka_mock.h: run scripts/setup.sh (it builds librdkafka)"
    mkdir -p "$OUT_DIR"
    # one build at a time (test binaries start it concurrently)
    exec 9>"$OUT_DIR/.lock"
    flock 9
    local lib=$RDK/lib
    if patched_lib; then
        lib=$PATCHED_LIB
    else
        log "mock cluster: no librdkafka build tree in $RDK_SRC: the mock runs unpatched"
    fi
    if [[ -x $OUT && $OUT -nt $SRC && -f $OUT_DIR/linked-with && $(<"$OUT_DIR/linked-with") == "$lib" ]]; then
        return
    fi
    log "mock cluster: building $OUT against $lib"
    cc -O2 -Wall -o "$OUT.tmp.$$" "$SRC" \
        -I"$RDK/include" -L"$lib" -lrdkafka -Wl,-rpath,"$lib"
    mv "$OUT.tmp.$$" "$OUT"
    echo "$lib" >"$OUT_DIR/linked-with"
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
