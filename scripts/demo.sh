#!/usr/bin/env bash
# The main job, from nothing: install what is missing, start a local broker
# on 127.0.0.1:9092, then produce and consume through gregor and show it.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

scripts/setup.sh apt broker
scripts/services.sh start broker
log "building gregor"
cargo build --release --quiet --example quickstart
log "producing and consuming through the library"
target/release/examples/quickstart "127.0.0.1:$BROKER_PORT" "demo-$(date +%s)"
if [ -x target/release/gregor ] || cargo build --release --quiet --bin gregor 2>/dev/null; then
    log "the same broker through the gregor command line (kcat-compatible):"
    t="demo-cli-$(date +%s)"
    printf 'alpha:one\nbeta:two\n' | target/release/gregor -b "127.0.0.1:$BROKER_PORT" -t "$t" -P -K:
    target/release/gregor -b "127.0.0.1:$BROKER_PORT" -t "$t" -C -o beginning -e -f 'offset %o key %k value %s\n'
fi
log "done; the broker keeps running (scripts/services.sh stop broker)"
