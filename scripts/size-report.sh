#!/usr/bin/env bash
# Footprint of gregor next to librdkafka, built here:
#   - what `make install` ships: libgregor.so, libgregor.a, the gregor CLI
#     (stripped, PROFILE=dist) vs librdkafka's install from scripts/setup.sh
#     librdkafka ($GREGOR_DEPS/librdkafka) and kcat, and the shared
#     libraries each needs at run time;
#   - a minimal C producer (examples/c/footprint/) statically linked against
#     each, plain and with -Wl,--gc-sections, stripped;
#   - the resident memory (VmRSS) of those static programs, an idle producer
#     (one message sent, then 2 s idle) and an idle consumer (one partition
#     assigned at its end, polled for 2 s), against the broker at
#     $GREGOR_TEST_BROKER (default 127.0.0.1:9092); skipped without a broker.
#
#   scripts/size-report.sh [FEATURES...]
#
# Each FEATURES argument adds a column for libgregor built with only those
# Cargo features (comma-separated; "" for none); the default is one column
# with every feature and one with "tls,sasl" (a client for current brokers
# without ZooKeeper, Kafka 0.7 and the admin client). Each column is a
# `make install` of its own (a release build with LTO: several minutes
# each on 2 cores). Prints a Markdown table (also in README "Footprint").
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

rdk=$GREGOR_DEPS/librdkafka
[ -f "$rdk/lib/librdkafka.a" ] || die "no librdkafka in $rdk: run scripts/setup.sh librdkafka"
broker=${GREGOR_TEST_BROKER:-127.0.0.1:$BROKER_PORT}
topic=footprint
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
src=examples/c/footprint

if [ $# -gt 0 ]; then variants=("$@"); else variants=(all "tls,sasl"); fi

# size FILE: its size in bytes
size() { stat -L -c %s "$1"; }
# human BYTES: "9.1 MB", "640 KB" (decimal units, as ls -l --si)
human() {
    awk -v b="$1" 'BEGIN { if (b >= 1e6) printf "%.1f MB", b / 1e6; else printf "%.0f KB", b / 1e3 }'
}
# needed FILE: its DT_NEEDED libraries, comma-separated, without .so versions
needed() {
    readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(lib[^.]*\)\..*\]/\1/p' | paste -sd, | sed 's/,/, /g'
}
# stripped FILE: size of a --strip-unneeded copy
stripped() { strip --strip-unneeded -o "$work/stripped" "$1" && size "$work/stripped"; }
# rss PROGRAM: its VmRSS in kB after idling, or n/a
rss() {
    if port_open "${broker##*:}"; then
        local out
        out=$(timeout 60 "$1" "$broker" "$topic" 2 2>"$work/rss.err") || {
            log "$(basename "$1"): $(cat "$work/rss.err")"
            echo "failed"
            return
        }
        echo "$(awk -v k="$out" 'BEGIN { printf "%.1f MB", k * 1024 / 1e6 }')"
    else
        echo "n/a"
    fi
}
# link NAME OUT CFLAGS...: builds $src/NAME.c statically into OUT (and OUT-gc)
link() {
    local name=$1 out=$2
    shift 2
    cc -O2 -static "$src/$name.c" "$@" -o "$out" 2>"$work/ld.log" ||
        { cat "$work/ld.log"; die "static link of $name failed"; }
    cc -O2 -static -Wl,--gc-sections "$src/$name.c" "$@" -o "$out-gc" 2>"$work/ld.log" ||
        { cat "$work/ld.log"; die "static link of $name with --gc-sections failed"; }
    strip "$out" "$out-gc"
}

cols=()

# gregor, one `make install` per variant
for v in "${variants[@]}"; do
    prefix=$work/gregor-$(echo "${v:-none}" | tr ',' '-')
    if [ "$v" = all ]; then
        feat=() label="gregor"
    else
        feat=(CARGO_FEATURES="--no-default-features${v:+ --features $v}") label="gregor ($v)"
        [ -n "$v" ] || label="gregor (no feature)"
    fi
    log "size report: make install ${feat[*]:-} into a temporary prefix"
    make -s install install-dbg PREFIX="$prefix" "${feat[@]}" >/dev/null
    export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
    cflags=$(pkg-config --static --cflags --libs gregor)
    # shellcheck disable=SC2086
    link gregor_producer "$prefix/producer" $cflags
    # shellcheck disable=SC2086
    link gregor_consumer "$prefix/consumer" $cflags
    cols+=("$label|$prefix")
done

# librdkafka as scripts/setup.sh installed it, linked as rdkafka-static.pc says
export PKG_CONFIG_PATH=$rdk/lib/pkgconfig
rcflags=$(pkg-config --static --cflags --libs rdkafka-static)
# shellcheck disable=SC2086
link rdkafka_producer "$work/rdkafka-producer" $rcflags
# shellcheck disable=SC2086
link rdkafka_consumer "$work/rdkafka-consumer" $rcflags

line="| |"
sep="|---|"
for c in "${cols[@]}"; do line+=" ${c%%|*} |"; sep+="---:|"; done
line+=" librdkafka $(pkg-config --modversion rdkafka-static) |"
sep+="---:|"
echo "$line"
echo "$sep"

r="| shared library, installed |"
for c in "${cols[@]}"; do r+=" $(human "$(size "${c#*|}/lib/libgregor.so")") |"; done
echo "$r $(human "$(size "$rdk/lib/librdkafka.so")") |"

r="| shared library, stripped |"
for c in "${cols[@]}"; do r+=" $(human "$(stripped "${c#*|}/lib/libgregor.so")") |"; done
echo "$r $(human "$(stripped "$rdk/lib/librdkafka.so")") |"

r="| its split debug info (make install-dbg) |"
for c in "${cols[@]}"; do
    r+=" $(human "$(size "${c#*|}"/lib/.debug/libgregor.so.*.debug)") |"
done
echo "$r – |"

r="| shared libraries it needs |"
for c in "${cols[@]}"; do r+=" $(needed "${c#*|}/lib/libgregor.so") |"; done
echo "$r $(needed "$rdk/lib/librdkafka.so") |"

ssl=0
for l in libssl.so.3 libcrypto.so.3 libz.so.1; do
    f=$( (ldconfig -p 2>/dev/null || /sbin/ldconfig -p) | awk -v l="$l" '$1 == l && /x86-64|64bit/ { print $NF; exit }') || f=""
    [ -n "$f" ] && ssl=$((ssl + $(size "$f")))
done
r="| + libssl, libcrypto, libz (system) |"
for _ in "${cols[@]}"; do r+=" – |"; done
echo "$r $(human "$ssl") |"

r="| static library, installed |"
for c in "${cols[@]}"; do r+=" $(human "$(size "${c#*|}/lib/libgregor.a")") |"; done
echo "$r $(human "$(size "$rdk/lib/librdkafka.a")") |"

r="| command-line tool (gregor / kcat) |"
for c in "${cols[@]}"; do r+=" $(human "$(size "${c#*|}/bin/gregor")") |"; done
echo "$r $(human "$(size "$rdk/bin/kcat")") + the shared library |"

r="| minimal static C producer, stripped |"
for c in "${cols[@]}"; do r+=" $(human "$(size "${c#*|}/producer")") |"; done
echo "$r $(human "$(size "$work/rdkafka-producer")") |"

r="| the same linked with -Wl,--gc-sections |"
for c in "${cols[@]}"; do r+=" $(human "$(size "${c#*|}/producer-gc")") |"; done
echo "$r $(human "$(size "$work/rdkafka-producer-gc")") |"

r="| idle producer, VmRSS |"
for c in "${cols[@]}"; do r+=" $(rss "${c#*|}/producer-gc") |"; done
echo "$r $(rss "$work/rdkafka-producer-gc") |"

r="| idle consumer, VmRSS |"
for c in "${cols[@]}"; do r+=" $(rss "${c#*|}/consumer-gc") |"; done
echo "$r $(rss "$work/rdkafka-consumer-gc") |"
