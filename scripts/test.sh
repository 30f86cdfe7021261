#!/usr/bin/env bash
# The test command: installs the pinned Claude Code and Gemini CLI (into a
# cache outside the repository; skipped when already there) for the hook
# tests that run the real clients, then runs every test of the workspace.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/install-clients.sh
cargo test "$@"
