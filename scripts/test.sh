#!/usr/bin/env bash
# The test command: installs the pinned Claude Code and Gemini CLI (into a
# cache outside the repository; skipped when already there) for the hook
# tests that run the real clients, chromium for the approval page's browser
# test, and the MCP servers and Python SDK the gateway tests run against
# (scripts/install-mcp.sh), strace and the programs the option tables are
# checked against (crates/policy/tests/differential.rs), starts a throwaway
# PostgreSQL server for the shared-store tests (scripts/pg.sh, stopped on
# exit), then runs every test of the workspace.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/install-clients.sh
./scripts/install-mcp.sh >/dev/null
# The approval page's browser test: Debian's chromium and playwright-core
# (installed only when missing).
browser_dir="${TOOLGATE_BROWSER_DIR:-$HOME/.cache/toolgate-browser}"
if ! command -v chromium >/dev/null || [[ ! -e $browser_dir/playwright-core/package.json ]]; then
    ./scripts/install-browser.sh
fi
# The differential test of the option tables: strace and the readers it runs
# (installed only when one is missing).
differential=(strace tree ripgrep xxd jq file bc parallel sqlite3 pigz lzip lzop brotli unzip zip rsync wget curl)
for tool in "${differential[@]}"; do
    if ! command -v "${tool/ripgrep/rg}" >/dev/null; then
        echo "test.sh: installing ${differential[*]}" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq "${differential[@]}" >/dev/null
        apt-get clean
        break
    fi
done
. ./scripts/pg.sh
trap pg_stop EXIT
pg_start
cargo test "$@"
