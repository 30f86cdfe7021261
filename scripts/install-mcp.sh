#!/usr/bin/env bash
# Installs the real MCP parts the gateway tests run against, into a cache
# folder outside the repository:
#   - the npm servers @modelcontextprotocol/server-filesystem and
#     @modelcontextprotocol/server-everything (pinned);
#   - a Python venv with the `mcp` SDK 2.x (pinned), used both as the client
#     (with and without an elicitation callback) and for the repo's own small
#     server (crates/mcp/tests/servers/).
#
#   scripts/install-mcp.sh     # installs (or finds) them, prints the cache folder
#
# TOOLGATE_MCP_DIR sets the cache folder (default ~/.cache/toolgate-mcp). A
# second run with the same pins does nothing but print the folder.
set -euo pipefail

FILESYSTEM_VERSION=2026.8.31
EVERYTHING_VERSION=2026.8.31
PY_MCP_VERSION=2.3.0

dir="${TOOLGATE_MCP_DIR:-$HOME/.cache/toolgate-mcp}"
command -v npm >/dev/null || { echo "install-mcp: npm not found" >&2; exit 1; }
command -v python3 >/dev/null || { echo "install-mcp: python3 not found" >&2; exit 1; }
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"

npm_pkg() {
    local package=$1 version=$2
    local manifest="$dir/npm/node_modules/$package/package.json"
    local have=""
    [[ -f $manifest ]] && have=$(node -p 'require(process.argv[1]).version' "$manifest" 2>/dev/null || true)
    if [[ $have != "$version" ]]; then
        echo "install-mcp: installing $package@$version" >&2
        mkdir -p "$dir/npm"
        [[ -f $dir/npm/package.json ]] || printf '{"private":true}\n' >"$dir/npm/package.json"
        # No download cache left behind: the packages stay unpacked here.
        npm install --prefix "$dir/npm" --cache "$dir/npm/.npm-cache" --no-audit --no-fund \
            --loglevel=error "$package@$version" >&2
        rm -rf "$dir/npm/.npm-cache"
        have=$(node -p 'require(process.argv[1]).version' "$manifest")
        [[ $have == "$version" ]] || { echo "install-mcp: $package@$version did not install" >&2; exit 1; }
    fi
}

npm_pkg @modelcontextprotocol/server-filesystem "$FILESYSTEM_VERSION"
npm_pkg @modelcontextprotocol/server-everything "$EVERYTHING_VERSION"

py="$dir/venv/bin/python"
have=""
[[ -x $py ]] && have=$("$py" -c 'import importlib.metadata as m; print(m.version("mcp"))' 2>/dev/null || true)
if [[ $have != "$PY_MCP_VERSION" ]]; then
    echo "install-mcp: installing the Python mcp SDK $PY_MCP_VERSION" >&2
    rm -rf "$dir/venv"
    python3 -m venv "$dir/venv"
    "$dir/venv/bin/pip" install --quiet --disable-pip-version-check --no-cache-dir "mcp==$PY_MCP_VERSION" >&2
    "$py" -c 'import mcp' || { echo "install-mcp: the mcp SDK does not import" >&2; exit 1; }
fi
echo "$dir"
