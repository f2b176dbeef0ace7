#!/usr/bin/env bash
# Runs rdkafka-ruby's own spec/lib against gregor's Ruby binding through a
# one-line adapter (`Rdkafka = Gregor`), one spec file at a time, and prints
# examples / failures / pending per file.
#
#   scripts/rdkafka-ruby-specs.sh RDKAFKA_RUBY_DIR [spec file...]
#
# RDKAFKA_RUBY_DIR is a checkout of karafka/rdkafka-ruby (nothing of it is
# copied here; it is run in place through a symlink). Needs rspec (Debian ruby-rspec), the warning gem (Debian
# ruby-warning) and a broker at 127.0.0.1:9092 (the specs' address). pry is
# stubbed (the specs only load it). Logs go to target/rdkafka-ruby-specs/.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
src=${1:?usage: $0 RDKAFKA_RUBY_DIR [spec file...]}
shift
out=$root/target/rdkafka-ruby-specs
adapter=$out/adapter
mkdir -p "$adapter"
printf 'require "gregor"\nRdkafka = Gregor\n' >"$adapter/rdkafka.rb"
: >"$adapter/pry.rb"
# run from a directory holding only its spec/ (rspec puts ./lib on the
# load path first, which would load rdkafka-ruby itself)
run=$out/run
rm -rf "$run" && mkdir -p "$run" && ln -s "$(cd "$src" && pwd)/spec" "$run/spec"
# not its .rspec: its --pattern would load every spec file each run
cargo build --quiet --lib
export GREGOR_LIBRARY=$root/target/debug/libgregor.so
export CI=true # the specs skip simplecov then
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
    mapfile -t files < <(cd "$src" && find spec/lib -name '*_spec.rb' | sort)
fi
total_e=0 total_f=0
printf '%-58s %8s %8s %8s\n' file examples failures pending
for f in "${files[@]}"; do
    log=$out/$(echo "$f" | tr / _).log
    (cd "$run" && timeout ${SPEC_TIMEOUT:-300} rspec --require spec_helper -I "$adapter" -I "$root/bindings/ruby/lib" --no-color "$f") >"$log" 2>&1
    line=$(grep -E '^[0-9]+ examples?, ' "$log" | tail -1)
    e=$(echo "$line" | sed -nE 's/^([0-9]+) example.*/\1/p')
    fl=$(echo "$line" | sed -nE 's/.* ([0-9]+) failures?.*/\1/p')
    p=$(echo "$line" | sed -nE 's/.* ([0-9]+) pending.*/\1/p')
    if [ -z "$line" ]; then
        e=0 fl=load-error p=0
    fi
    printf '%-58s %8s %8s %8s\n' "$f" "$e" "${fl:-0}" "${p:-0}"
    total_e=$((total_e + ${e:-0}))
    [[ ${fl:-0} =~ ^[0-9]+$ ]] && total_f=$((total_f + fl))
done
echo "total: $total_e examples, $total_f failures (logs: $out)"
