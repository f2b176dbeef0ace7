#!/usr/bin/env bash
# The main job, from nothing: produce and consume through gregor and show it.
#
# The peer: a broker already listening on 127.0.0.1:$BROKER_PORT; else the
# test broker (nisshi) if it is installed; else gregor's own in-process mock
# cluster (`gregor mock`, src/mock), so a fresh machine needs nothing but the
# build of gregor. GREGOR_DEMO_PEER=broker installs and starts the test
# broker instead (its first compile takes 13-50 minutes); =mock always uses
# the mock.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

t_start=$(date +%s)
peer=${GREGOR_DEMO_PEER:-auto}
listening() { (exec 3<>"/dev/tcp/127.0.0.1/$BROKER_PORT") 2>/dev/null; }
if [ "$peer" = auto ]; then
    if listening; then
        peer=running
    elif command -v nisshi >/dev/null; then
        peer=broker
    else
        peer=mock
    fi
fi

rel="${CARGO_TARGET_DIR:-target}/release"
log "building gregor"
cargo build --release --quiet --example quickstart --bin gregor

mock_pid=
cleanup() { [ -z "$mock_pid" ] || kill "$mock_pid" 2>/dev/null || true; }
trap cleanup EXIT
case "$peer" in
running)
    bootstrap="127.0.0.1:$BROKER_PORT"
    log "using the broker already on $bootstrap"
    ;;
broker)
    scripts/setup.sh apt broker
    scripts/services.sh start broker
    bootstrap="127.0.0.1:$BROKER_PORT"
    ;;
mock)
    out=$(mktemp)
    "$rel"/gregor mock -n 3 -d 0 >"$out" 2>/dev/null &
    mock_pid=$!
    for _ in $(seq 100); do [ -s "$out" ] && break; sleep 0.05; done
    bootstrap=$(head -1 "$out")
    rm -f "$out"
    [ -n "$bootstrap" ] || die "gregor mock did not start"
    log "no broker at hand: using gregor's own mock cluster (gregor mock) at $bootstrap"
    ;;
*) die "GREGOR_DEMO_PEER=$peer: auto, broker or mock" ;;
esac

log "producing and consuming through the library"
"$rel"/examples/quickstart "$bootstrap" "demo-$(date +%s)"
log "the same cluster through the gregor command line (kcat-compatible):"
t="demo-cli-$(date +%s)"
printf 'alpha:one\nbeta:two\n' | "$rel"/gregor -b "$bootstrap" -t "$t" -P -K:
"$rel"/gregor -b "$bootstrap" -t "$t" -C -o beginning -e -f 'offset %o key %k value %s\n'
case "$peer" in
mock) log "done in $(($(date +%s) - t_start)) s; the mock cluster stops with this script" ;;
*) log "done in $(($(date +%s) - t_start)) s; the broker keeps running (scripts/services.sh stop broker)" ;;
esac
