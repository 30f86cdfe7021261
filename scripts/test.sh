#!/usr/bin/env bash
# The test command: installs the pinned Claude Code and Gemini CLI (into a
# cache outside the repository; skipped when already there) for the hook
# tests that run the real clients, chromium for the approval page's browser
# test, and the MCP servers and Python SDK the gateway tests run against
# (scripts/install-mcp.sh), starts a throwaway PostgreSQL server for the
# shared-store tests (scripts/pg.sh, stopped on exit), then runs every test
# of the workspace.
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
. ./scripts/pg.sh
trap pg_stop EXIT
pg_start
cargo test "$@"
