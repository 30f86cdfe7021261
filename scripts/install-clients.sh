#!/usr/bin/env bash
# Installs the pinned Claude Code, Gemini CLI, Codex CLI, Qwen Code, Copilot CLI, Pi and
# OpenCode releases that the hook tests run against, into a cache folder outside the
# repository.
#
#   scripts/install-clients.sh            # installs (or finds) them, prints their paths
#
# TOOLGATE_CLIENTS_DIR sets the cache folder (default ~/.cache/toolgate-clients).
# Each release gets its own npm prefix, so a bump never mixes two versions, and
# `bin/claude` / `bin/gemini` point at the pinned ones. A second run with the
# same pins does nothing but print the paths. Needs only node and npm.
set -euo pipefail

CLAUDE_VERSION=2.1.332
GEMINI_VERSION=0.61.0
CODEX_VERSION=0.169.0
QWEN_VERSION=0.24.4
COPILOT_VERSION=1.0.102
PI_VERSION=0.73.1
OPENCODE_VERSION=1.18.33

dir="${TOOLGATE_CLIENTS_DIR:-$HOME/.cache/toolgate-clients}"

command -v npm >/dev/null || { echo "install-clients: npm not found" >&2; exit 1; }
mkdir -p "$dir/bin"
dir="$(cd "$dir" && pwd)"

# install NAME PACKAGE VERSION BIN: installs PACKAGE@VERSION under
# $dir/NAME-VERSION unless that exact version is already there, then links
# $dir/bin/BIN to its executable.
install() {
    local name=$1 package=$2 version=$3 bin=$4
    local prefix="$dir/$name-$version"
    local manifest="$prefix/node_modules/$package/package.json"
    local exe="$prefix/node_modules/.bin/$bin"
    local have=""
    if [[ -f $manifest && -x $exe ]]; then
        have=$(node -p 'require(process.argv[1]).version' "$manifest" 2>/dev/null || true)
    fi
    if [[ $have != "$version" ]]; then
        echo "install-clients: installing $package@$version into $prefix" >&2
        rm -rf "$prefix"
        mkdir -p "$prefix"
        # A package.json of its own keeps npm from walking up to a parent project.
        printf '{"private":true}\n' >"$prefix/package.json"
        # npm's download cache goes with the install: the packages are kept
        # unpacked here, and a second copy of their tarballs would only take disk.
        npm install --prefix "$prefix" --cache "$prefix/.npm-cache" --no-audit --no-fund \
            --loglevel=error "$package@$version" >&2
        rm -rf "$prefix/.npm-cache"
        # The version check must pass now, or the install is broken.
        have=$(node -p 'require(process.argv[1]).version' "$manifest")
        [[ $have == "$version" && -x $exe ]] || {
            echo "install-clients: $package@$version did not install an executable $exe" >&2
            exit 1
        }
    fi
    ln -sfn "$exe" "$dir/bin/$bin"
    # Fails loudly when the package's native part is missing or cannot run here.
    # XDG_CACHE_HOME inside the install: Copilot CLI unpacks itself (235 MB) there
    # on its first run, and the tests point it at the same folder, so the unpack
    # happens once here instead of once per test run.
    XDG_CACHE_HOME="$prefix/xdg-cache" "$dir/bin/$bin" --version >/dev/null </dev/null
    echo "$dir/bin/$bin"
}

install claude-code @anthropic-ai/claude-code "$CLAUDE_VERSION" claude
install gemini-cli @google/gemini-cli "$GEMINI_VERSION" gemini
install codex-cli @openai/codex "$CODEX_VERSION" codex
install qwen-code @qwen-code/qwen-code "$QWEN_VERSION" qwen
install copilot-cli @github/copilot "$COPILOT_VERSION" copilot
install pi @mariozechner/pi-coding-agent "$PI_VERSION" pi
install opencode opencode-ai "$OPENCODE_VERSION" opencode
