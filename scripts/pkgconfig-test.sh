#!/usr/bin/env bash
# C packaging check: `make install install-dbg` into a temporary PREFIX
# (the debug build: installed stripped, with the debug info split off into
# .debug/ and pointed at by .gnu_debuglink, both checked), then
# examples/c/produce_consume.c built with nothing but pkg-config — once
# against libgregor.so (soname libgregor.so.0 checked), once fully static
# with `pkg-config --static` — and both run against the broker at
# $GREGOR_TEST_BROKER (produce, consume back, compare).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

broker=${GREGOR_TEST_BROKER:-127.0.0.1:$BROKER_PORT}
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT

make -s install install-dbg PROFILE=debug PREFIX="$prefix" >/dev/null
soname=$(readelf -d "$prefix/lib/libgregor.so" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
[ "$soname" = libgregor.so.0 ] || die "libgregor.so soname is '$soname', want libgregor.so.0"
for f in lib/libgregor.a lib/libgregor.so.0 bin/gregor include/gregor.h lib/pkgconfig/gregor.pc; do
    [ -e "$prefix/$f" ] || die "make install did not install $f"
done
# Installed stripped, each pointing at its split debug info (make install-dbg).
for f in lib/libgregor.so.0 bin/gregor; do
    sections=$(readelf -S "$prefix/$f")
    ! grep -q '\.debug_info' <<<"$sections" || die "$f is installed with its debug info"
    link=$(readelf --string-dump=.gnu_debuglink "$prefix/$f" 2>/dev/null | sed -n 's/.*\]  *//p' | head -1)
    [ -n "$link" ] && [ -s "$(dirname "$prefix/$f")/.debug/$link" ] ||
        die "$f: no .gnu_debuglink, or its debug file '$link' is not in .debug/"
done
! readelf -S "$prefix/lib/libgregor.a" | grep -q '\.debug_info' || die "libgregor.a is installed with its debug info"

export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
cc -Wall -Wextra -Werror examples/c/produce_consume.c $(pkg-config --cflags --libs gregor) \
    -o "$prefix/example"
readelf -d "$prefix/example" | grep -q 'NEEDED.*\[libgregor.so.0\]' ||
    die "the example does not link libgregor.so.0"
log "pkg-config: shared build"
LD_LIBRARY_PATH="$prefix/lib" "$prefix/example" "$broker"

cc -static -Wall -Wextra examples/c/produce_consume.c \
    $(pkg-config --static --cflags --libs gregor) -o "$prefix/example-static" 2>"$prefix/ld.log" ||
    { cat "$prefix/ld.log"; die "static link failed"; }
if readelf -d "$prefix/example-static" 2>/dev/null | grep -q NEEDED; then
    die "the static example has dynamic dependencies"
fi
log "pkg-config: static build"
"$prefix/example-static" "$broker"
