#!/usr/bin/env bash
# Installs Debian's chromium for the approval page's browser test
# (crates/serve/tests/browser.rs) and playwright-core, the CDP driver its
# node script uses, into a cache folder outside the repository.
#
#   scripts/install-browser.sh     # installs (or finds) both, prints their paths
#
# TOOLGATE_BROWSER_DIR sets the cache folder (default ~/.cache/toolgate-browser);
# the tests find playwright-core at $TOOLGATE_BROWSER_DIR/playwright-core.
# playwright-core is used only as a driver of the system chromium: it never
# downloads a browser of its own.
set -euo pipefail

PLAYWRIGHT_VERSION=1.65.1

if ! command -v chromium >/dev/null; then
    echo "install-browser: installing chromium" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq chromium >/dev/null
    # The downloaded packages are installed now; their archives only take disk.
    apt-get clean
fi

dir="${TOOLGATE_BROWSER_DIR:-$HOME/.cache/toolgate-browser}"
prefix="$dir/playwright-core-$PLAYWRIGHT_VERSION"
manifest="$prefix/node_modules/playwright-core/package.json"
if [[ ! -f $manifest ]]; then
    command -v npm >/dev/null || { echo "install-browser: npm not found" >&2; exit 1; }
    echo "install-browser: installing playwright-core@$PLAYWRIGHT_VERSION into $prefix" >&2
    rm -rf "$prefix"
    mkdir -p "$prefix"
    printf '{"private":true}\n' >"$prefix/package.json"
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --prefix "$prefix" --cache "$prefix/.npm-cache" \
        --no-audit --no-fund --loglevel=error "playwright-core@$PLAYWRIGHT_VERSION"
    rm -rf "$prefix/.npm-cache"
fi
# A stable path for the tests, whatever the pinned version.
ln -sfn "$prefix/node_modules/playwright-core" "$dir/playwright-core"
echo "chromium: $(command -v chromium)"
echo "playwright-core: $dir/playwright-core"
