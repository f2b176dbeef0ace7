#!/usr/bin/env bash
# C packaging check: `make install install-dbg` into a temporary PREFIX
# (the debug build: installed stripped, with the debug info split off into
# .debug/ and pointed at by .gnu_debuglink, both checked), then
# examples/c/produce_consume.c built with nothing but pkg-config — once
# against libgregor.so (soname libgregor.so.0 checked), once fully static
# with `pkg-config --static` — and both run against the broker at
# $GREGOR_TEST_BROKER (produce, consume back, compare). Then librdkafka's
# ABI: `make install-rdkafka` into its default place under that PREFIX
# (soname librdkafka.so.1, stripped, only rd_kafka_* exported), and
# examples/c/rdkafka_version.c, a program written for librdkafka, built
# with nothing but `pkg-config rdkafka` — shared (the installed
# librdkafka.so.1 is the one loaded) and static — and run (no broker).
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

# librdkafka's ABI, in the directory of its own make install-rdkafka uses
# by default (Makefile: $(PREFIX)/lib/gregor-rdkafka).
rdk=$prefix/lib/gregor-rdkafka
make -s install-rdkafka PROFILE=debug PREFIX="$prefix" >/dev/null
for f in lib/librdkafka.so.1 lib/librdkafka.so lib/librdkafka.a include/librdkafka/rdkafka.h \
    include/librdkafka/rdkafka_mock.h lib/pkgconfig/rdkafka.pc; do
    [ -e "$rdk/$f" ] || die "make install-rdkafka did not install $f"
done
[ "$(readlink "$rdk/lib/librdkafka.so")" = librdkafka.so.1 ] ||
    die "librdkafka.so is not a symlink to librdkafka.so.1"
soname=$(readelf -d "$rdk/lib/librdkafka.so.1" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
[ "$soname" = librdkafka.so.1 ] || die "librdkafka.so.1 soname is '$soname', want librdkafka.so.1"
! readelf -S "$rdk/lib/librdkafka.so.1" | grep -q '\.debug_info' ||
    die "librdkafka.so.1 is installed with its debug info"
! readelf -S "$rdk/lib/librdkafka.a" | grep -q '\.debug_info' ||
    die "librdkafka.a is installed with its debug info"
others=$(nm -D --defined-only "$rdk/lib/librdkafka.so.1" | awk '$3 !~ /^rd_kafka_/ {print $3}')
[ -z "$others" ] || die "librdkafka.so.1 exports more than rd_kafka_*: $(head -5 <<<"$others" | tr '\n' ' ')"

export PKG_CONFIG_PATH="$rdk/lib/pkgconfig"
want=$(sed -n 's/^pub const VERSION_STR: &CStr = c"\(.*\)";/\1/p' rdkafka/src/version.rs)
[ "$(pkg-config --modversion rdkafka)" = "$want" ] ||
    die "rdkafka.pc's version is '$(pkg-config --modversion rdkafka)', want $want"
# -Wno-ignored-qualifiers: rdkafka.h declares
# rd_kafka_TopicPartitionInfo_partition() returning `const int`, as
# librdkafka 2.12.1's own rdkafka.h does, which -Wextra warns about.
cflags=(-Wall -Wextra -Wno-ignored-qualifiers)
cc "${cflags[@]}" -Werror examples/c/rdkafka_version.c $(pkg-config --cflags --libs rdkafka) \
    -o "$prefix/rdkafka_version"
readelf -d "$prefix/rdkafka_version" | grep -q 'NEEDED.*\[librdkafka.so.1\]' ||
    die "the rdkafka example does not link librdkafka.so.1"
# The installed copy, not another librdkafka.so.1 (scripts/setup.sh builds
# the real one for the comparison tests).
loaded=$(LD_LIBRARY_PATH="$rdk/lib" ldd "$prefix/rdkafka_version" | awk '$1 == "librdkafka.so.1" {print $3}')
[ "$(realpath "$loaded")" = "$(realpath "$rdk/lib/librdkafka.so.1")" ] ||
    die "the rdkafka example loads '$loaded', not $rdk/lib/librdkafka.so.1"
log "pkg-config rdkafka: shared build"
out=$(LD_LIBRARY_PATH="$rdk/lib" "$prefix/rdkafka_version" "$broker") ||
    die "the rdkafka example failed: $out"
printf '%s\n' "$out"
[ "$(head -1 <<<"$out")" = "$want" ] || die "rd_kafka_version_str() is '$(head -1 <<<"$out")', want $want"

cc -static "${cflags[@]}" examples/c/rdkafka_version.c \
    $(pkg-config --static --cflags --libs rdkafka) -o "$prefix/rdkafka_version-static" 2>"$prefix/ld.log" ||
    { cat "$prefix/ld.log"; die "static link against librdkafka.a failed"; }
if readelf -d "$prefix/rdkafka_version-static" 2>/dev/null | grep -q NEEDED; then
    die "the static rdkafka example has dynamic dependencies"
fi
log "pkg-config rdkafka: static build"
out=$("$prefix/rdkafka_version-static" "$broker") || die "the static rdkafka example failed: $out"
printf '%s\n' "$out"
[ "$(head -1 <<<"$out")" = "$want" ] || die "rd_kafka_version_str() is '$(head -1 <<<"$out")', want $want"
