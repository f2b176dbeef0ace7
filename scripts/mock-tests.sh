#!/usr/bin/env bash
# gregor's own mock cluster (src/mock), no broker needed:
#   - an independent client validates it: kcat and confluent-kafka
#     (librdkafka) create topics, produce (every codec, idempotent), consume,
#     join groups, commit, run transactions and read back exactly what they
#     wrote, against `gregor mock` (scripts/mock-validate.py);
#   - the application-test examples: C (examples/c/mock_app_test.c),
#     Python (bindings/python/examples) and Ruby (bindings/ruby/examples).
# The Rust side is `cargo test --test mock` (in `cargo test`).
#
#   scripts/mock-tests.sh [validate|c|python|ruby]...   (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(validate c python ruby)
KCAT=${KCAT:-$(command -v kcat || echo "$HOME/.local/share/gregor-deps/librdkafka/bin/kcat")}

cargo build --quiet --lib --bin gregor
export GREGOR_LIBRARY="$PWD/target/debug/libgregor.so"

for part in "${parts[@]}"; do
    t0=$(date +%s.%N)
    case "$part" in
    validate)
        log "mock: kcat and confluent-kafka against gregor mock"
        timeout 300 python3 scripts/mock-validate.py target/debug/gregor "$KCAT"
        log "mock: the same with the mock's transactions v2 (gregor mock -T 2, KIP-890)"
        timeout 300 python3 scripts/mock-validate.py target/debug/gregor "$KCAT" -T 2
        ;;
    c)
        log "mock: examples/c/mock_app_test.c"
        mkdir -p c-tests/build
        # Linked against the shared library (seconds faster than the debug
        # .a), found by its soname next to the program.
        ln -sf "$PWD/target/debug/libgregor.so" c-tests/build/libgregor.so.0
        cc -Wall -Wextra -Werror -Iinclude examples/c/mock_app_test.c -Ltarget/debug -lgregor \
            -Wl,-rpath,"$PWD/c-tests/build" -o c-tests/build/mock_app_test
        timeout 120 c-tests/build/mock_app_test
        ;;
    python)
        log "mock: bindings/python/examples/mock_app_test.py"
        # the installed package (it carries the compiled gregor._native), as
        # bindings-test.sh installs it: pip without build isolation, no network
        site=$(mktemp -d)
        python3 -m pip install -q --disable-pip-version-check --no-deps --no-build-isolation \
            --target "$site" bindings/python
        PYTHONPATH="$site" timeout 120 python3 -m unittest bindings/python/examples/mock_app_test.py
        rm -rf "$site"
        ;;
    ruby)
        log "mock: bindings/ruby/examples/mock_app_test.rb"
        timeout 120 ruby -W0 -Ibindings/ruby/lib bindings/ruby/examples/mock_app_test.rb
        ;;
    *) die "unknown part $part (validate, c, python, ruby)" ;;
    esac
    log "mock: $part took $(echo "$(date +%s.%N) - $t0" | bc) s"
done
