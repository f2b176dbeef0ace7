#!/usr/bin/env bash
# The bindings and C packaging checks, against the broker at
# $GREGOR_TEST_BROKER (start it first: scripts/services.sh start broker):
#
#   - bindings/python/tests/test_compat.py with confluent-kafka, then with
#     gregor installed by pip (into a temporary directory) over
#     target/debug/libgregor.so — the same script, only KAFKA_IMPL differs;
#   - bindings/python/tests/test_gregor.py (gregor-only edge cases);
#   - bindings/python/tests/test_config.py (configuration dicts) with both;
#   - bindings/python/tests/test_confluent_api.py (the rest of confluent-kafka's API);
#   - bindings/python/tests/test_native.py (the compiled extension gregor._native,
#     which pip builds with the system compiler: Ctrl-C, reports, lifetime);
#   - the `confluent_kafka` compatibility package (bindings/python/compat):
#     test_compat_package.py, and test_compat.py as confluent_kafka through it;
#   - the Ruby minitest suite (bindings/ruby/test);
#   - scripts/pkgconfig-test.sh (make install + the C example via pkg-config;
#     make install-rdkafka + a librdkafka program via pkg-config rdkafka).
#
#   scripts/bindings-test.sh [python|ruby|c]...   (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

export GREGOR_TEST_BROKER=${GREGOR_TEST_BROKER:-127.0.0.1:$BROKER_PORT}
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(python ruby c)

cargo build --quiet --lib
export GREGOR_LIBRARY="$PWD/target/debug/libgregor.so"

run_python() {
    log "python: test_compat.py with confluent-kafka"
    KAFKA_IMPL=confluent_kafka python3 bindings/python/tests/test_compat.py
    local site
    site=$(mktemp -d)
    # pip-installable: install the package as a user would, then test that copy
    python3 -m pip install -q --disable-pip-version-check --no-deps --no-build-isolation --target "$site" bindings/python
    # the optional `confluent_kafka` compatibility package, in a directory of its own
    local compat
    compat=$(mktemp -d)
    python3 -m pip install -q --disable-pip-version-check --no-deps --no-build-isolation --target "$compat" \
        bindings/python/compat
    rm -rf bindings/python/compat/build bindings/python/compat/*.egg-info
    rm -rf bindings/python/build bindings/python/*.egg-info
    log "python: test_compat.py with gregor"
    KAFKA_IMPL=gregor PYTHONPATH="$site" python3 bindings/python/tests/test_compat.py
    log "python: gregor-only tests"
    PYTHONPATH="$site" python3 bindings/python/tests/test_gregor.py
    log "python: typical configuration dicts, confluent-kafka then gregor"
    KAFKA_IMPL=confluent_kafka python3 bindings/python/tests/test_config.py
    KAFKA_IMPL=gregor PYTHONPATH="$site" python3 bindings/python/tests/test_config.py
    log "python: client events, fatal errors, transactional error flags"
    PYTHONPATH="$site" python3 bindings/python/tests/test_events.py
    log "python: purge and delivery reports (test_purge.py)"
    KAFKA_IMPL=gregor PYTHONPATH="$site" python3 bindings/python/tests/test_purge.py
    log "python: logger"
    PYTHONPATH="$site" python3 bindings/python/tests/test_log.py
    log "python: the rest of confluent-kafka's API"
    PYTHONPATH="$site" python3 bindings/python/tests/test_confluent_api.py
    log "python: hostile arguments (out-of-range integers, embedded NUL, NaN timeouts)"
    PYTHONPATH="$site" python3 bindings/python/tests/test_hostile.py
    log "python: the compiled extension (Ctrl-C in poll/consume/flush, reports, lifetime)"
    PYTHONPATH="$site" python3 bindings/python/tests/test_native.py
    log "python: the confluent_kafka compatibility package (test_compat.py unchanged, as confluent_kafka)"
    PYTHONPATH="$compat:$site" python3 bindings/python/tests/test_compat_package.py
    KAFKA_IMPL=confluent_kafka PYTHONPATH="$compat:$site" python3 bindings/python/tests/test_compat.py
    log "python: oauth_cb (SASL/OAUTHBEARER token refresh)"
    PYTHONPATH="$site" python3 bindings/python/tests/test_oauth.py
    log "python: io events, yield, asyncio example, group metadata, close_start"
    PYTHONPATH="$site" python3 bindings/python/tests/test_event_loop.py
    log "python: group.protocol=consumer (KIP-848) on the mock cluster, confluent-kafka then gregor"
    KAFKA_IMPL=confluent_kafka python3 bindings/python/tests/test_kip848.py
    KAFKA_IMPL=gregor PYTHONPATH="$site" python3 bindings/python/tests/test_kip848.py
    rm -rf "$site" "$compat"
}

run_ruby() {
    log "ruby: error and enum tables from the library's descriptors"
    ruby -Ibindings/ruby/lib bindings/ruby/test/test_descriptors.rb
    log "ruby: attached functions against include/gregor.h"
    ruby -Ibindings/ruby/lib bindings/ruby/test/test_signatures.rb
    log "ruby: minitest suite"
    ruby -Ibindings/ruby/lib bindings/ruby/test/test_gregor.rb
    log "ruby: admin/consumer calls in rdkafka-ruby's shapes"
    ruby -Ibindings/ruby/lib bindings/ruby/test/test_more_api.rb
    log "ruby: error texts, ACLs, names and callbacks in rdkafka-ruby's shapes"
    ruby -Ibindings/ruby/lib bindings/ruby/test/test_rdkafka_shape.rb
    log "ruby: configuration (dump, tolerant roles)"
    ruby -Ibindings/ruby/lib bindings/ruby/test/test_config.rb
    log "ruby: Config.error_callback"
    ruby -Ibindings/ruby/lib bindings/ruby/test/test_events.rb
    log "ruby: strings with an embedded NUL"
    ruby -Ibindings/ruby/lib bindings/ruby/test/test_hostile.rb
    log "ruby: Producer#purge"
    ruby -Ibindings/ruby/lib bindings/ruby/test/test_purge.rb
    log "ruby: Config.logger"
    ruby -Ibindings/ruby/lib bindings/ruby/test/test_log.rb
    log "ruby: OAUTHBEARER refresh callback and set_token"
    ruby -Ibindings/ruby/lib bindings/ruby/test/test_oauthbearer.rb
    log "ruby: event_io / yield_now / close_start / group metadata"
    ruby -Ibindings/ruby/lib bindings/ruby/test/test_event_loop.rb
    # close under calls in flight: 1000 rounds each for admin,
    # producer and consumer, 15-30 s; GREGOR_LIFETIME_ROUNDS to change
    log "ruby: close while calls are in flight (${GREGOR_LIFETIME_ROUNDS:-1000} rounds each)"
    ruby -Ibindings/ruby/lib bindings/ruby/test/test_lifetime.rb
}

run_c() {
    log "C: make install + pkg-config example"
    scripts/pkgconfig-test.sh
}

for p in "${parts[@]}"; do
    "run_$p"
done
