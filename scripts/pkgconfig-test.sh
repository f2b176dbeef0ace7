#!/usr/bin/env bash
# C packaging check: `make install` into a temporary PREFIX (the debug
# build), then examples/c/produce_consume.c built with nothing but
# pkg-config — once against libgregor.so (soname libgregor.so.0 checked),
# once fully static with `pkg-config --static` — and both run against the
# broker at $GREGOR_TEST_BROKER (produce, consume back, compare).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

broker=${GREGOR_TEST_BROKER:-127.0.0.1:$BROKER_PORT}
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT

make -s install PROFILE=debug PREFIX="$prefix" >/dev/null
soname=$(readelf -d "$prefix/lib/libgregor.so" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
[ "$soname" = libgregor.so.0 ] || die "libgregor.so soname is '$soname', want libgregor.so.0"
for f in lib/libgregor.a lib/libgregor.so.0 include/gregor.h lib/pkgconfig/gregor.pc; do
    [ -e "$prefix/$f" ] || die "make install did not install $f"
done

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
