#!/usr/bin/env bash
# Builds gregor with each Cargo feature left out (README "Cargo features")
# and checks every variant with clippy, warnings as errors (library, unit
# tests, CLI). The library's unit tests run in two variants: `minimal`,
# where every feature's stand-in (src/ffi/off) is built, and `no-mock`,
# where the stand-ins sit beside every other real feature. The default
# build (every feature) is scripts/test.sh's own run.
#
#   scripts/features-test.sh              every variant
#   scripts/features-test.sh no-tls ...   the named ones
#   GREGOR_FEATURE_TESTS=all scripts/features-test.sh
#                                         unit tests in every variant too
#
# Each variant rebuilds only gregor itself (dependencies are shared), in
# target/, next to the default build; the first run of all of them takes
# about 15 minutes of CPU, later runs only recompile what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

# name: the features it keeps (legacy07 needs zookeeper: no-zookeeper drops both)
variants=(
    "no-zookeeper:admin,tls,sasl,mock"
    "no-legacy07:zookeeper,admin,tls,sasl,mock"
    "no-admin:zookeeper,legacy07,tls,sasl,mock"
    "no-tls:zookeeper,legacy07,admin,sasl,mock"
    "no-sasl:zookeeper,legacy07,admin,tls,mock"
    "no-mock:zookeeper,legacy07,admin,tls,sasl"
    "minimal:"
)
want=("$@")
for v in "${variants[@]}"; do
    name=${v%%:*} features=${v#*:}
    if [ ${#want[@]} -gt 0 ] && [[ " ${want[*]} " != *" $name "* ]]; then
        continue
    fi
    flags=(--no-default-features)
    [ -n "$features" ] && flags+=(--features "$features")
    start=$SECONDS
    log "features: $name (${features:-no optional feature}): clippy"
    cargo clippy --quiet "${flags[@]}" --lib --bins -- -D warnings
    cargo clippy --quiet "${flags[@]}" --lib --bins --profile test -- -D warnings
    if [ "${GREGOR_FEATURE_TESTS:-}" != all ] && [ "$name" != minimal ] && [ "$name" != no-mock ]; then
        log "features: $name: ok in $((SECONDS - start)) s (clippy)"
        continue
    fi
    log "features: $name: unit tests"
    if ! out=$(cargo test --quiet "${flags[@]}" --lib 2>&1); then
        printf '%s\n' "$out" | tail -40
        die "features $name: cargo test ${flags[*]} --lib failed"
    fi
    printf '%s\n' "$out" | grep '^test result' >&2
    log "features: $name: ok in $((SECONDS - start)) s"
done
