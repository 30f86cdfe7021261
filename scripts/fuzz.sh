#!/usr/bin/env bash
# Runs every fuzz target (or the ones named) for SECONDS each, one after
# the other, starting from the committed seeds (fuzz/seeds/TARGET, taken
# from the test suites) and the corpus earlier runs grew (fuzz/corpus/TARGET).
# A crash is saved under fuzz/artifacts/TARGET/ and makes the script exit 1
# once every target has run.
#
# Usage: scripts/fuzz.sh SECONDS [TARGET...]
#
# Needs cargo-fuzz (`cargo install cargo-fuzz`). libFuzzer's instrumentation
# needs unstable compiler flags; on a stable toolchain RUSTC_BOOTSTRAP=1
# lets cargo-fuzz pass them.
#
# The targets are built without a sanitizer: the code under test is safe
# Rust, so what the fuzzers look for is panics (indexing, slicing at a
# non-char boundary, overflow: debug assertions are on), unbounded
# recursion and inputs that take too long.
set -euo pipefail

cd "$(dirname "$0")/../fuzz"

if [[ $# -lt 1 || ! $1 =~ ^[0-9]+$ ]]; then
    echo "usage: scripts/fuzz.sh SECONDS [TARGET...]" >&2
    exit 2
fi
seconds=$1
shift
if [[ $# -gt 0 ]]; then
    targets=("$@")
else
    mapfile -t targets < <(cargo fuzz list)
fi

export RUSTC_BOOTSTRAP="${RUSTC_BOOTSTRAP:-1}"
cargo fuzz build --sanitizer none

failed=()
for t in "${targets[@]}"; do
    mkdir -p "corpus/$t" "artifacts/$t"
    echo "== $t: ${seconds}s" >&2
    # -timeout: one input that takes over 10 s is a finding too.
    # -max_len: bigger than any real policy, call or command, smaller than
    # the shell analyser's own 100 KiB cut-off would make it pointless.
    if ! cargo fuzz run --sanitizer none "$t" "corpus/$t" "seeds/$t" -- \
        -max_total_time="$seconds" -timeout=10 -max_len=16384 \
        -rss_limit_mb=2048 -print_final_stats=1; then
        failed+=("$t")
    fi
done

if [[ ${#failed[@]} -gt 0 ]]; then
    echo "crashes in: ${failed[*]} (inputs under fuzz/artifacts/)" >&2
    exit 1
fi
echo "no crash in: ${targets[*]}" >&2
