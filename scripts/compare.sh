#!/usr/bin/env bash
# Measures toolgate's decision speed against cedar-policy, regorus and a
# linear scan on the same rules (10, 1,000 and 10,000 of them), and writes
# the table into docs/performance.md between <!-- compare:begin --> and
# <!-- compare:end --> (appending a "## Performance" section holding the
# markers when they are missing). Nothing else in the file is touched.
#
# Usage: scripts/compare.sh [CRITERION_FILTER]
#
# With a filter (e.g. `no-resolution`), only the matching benchmarks run and
# docs/performance.md is left alone: the table needs every figure from one run.
#
# The benchmark first checks that all four engines decide every call alike
# and stops with the differences if they do not. It takes a few minutes;
# the figures are only as steady as the machine is idle: the load average
# before and after the run is written beside them.
set -euo pipefail

cd "$(dirname "$0")/.."

target_dir=$(cargo metadata --format-version 1 --no-deps |
    sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')

cargo build --release -p toolgate-compare --bin compare-report
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
cargo bench -p toolgate-compare --bench compare -- "$@"
if [[ $# -gt 0 ]]; then
    exit 0
fi
"$target_dir/release/compare-report" "$target_dir/criterion" \
    --readme docs/performance.md --load-before "$load_before"
