#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests: Debian's `postgresql`
# package (installed when missing), a cluster initialised in a temporary
# directory owned by the `postgres` user, listening on 127.0.0.1 on a free
# port. Source it (`. scripts/pg.sh`): it exports TOOLGATE_TEST_DATABASE_URL
# and defines `pg_stop`, which stops the server and removes the directory.
#
# Run on its own (`scripts/pg.sh`), it starts a server, prints the export
# line and the stop command, and leaves the server running.

pg_start() {
    local bin
    bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
    if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
        echo "pg.sh: installing PostgreSQL (Debian's postgresql package)" >&2
        DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
        apt-get clean
        bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
    fi
    # initdb refuses to run as root: the cluster belongs to `postgres`.
    local as=()
    if [ "$(id -u)" = 0 ]; then
        id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
        as=(runuser -u postgres --)
    fi
    PG_DIR=$(mktemp -d /tmp/toolgate-pg.XXXXXX)
    [ "$(id -u)" = 0 ] && chown postgres "$PG_DIR"
    local port
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    "${as[@]}" "$bin/initdb" -D "$PG_DIR/data" -U postgres --auth=trust -E UTF8 \
        --no-instructions >"$PG_DIR/initdb.log" 2>&1 ||
        { cat "$PG_DIR/initdb.log" >&2; return 1; }
    # Enough connections for the multi-process tests. The tests need no
    # durability (the server is thrown away), so commits are not synced,
    # unless PG_DURABLE=1 (benchmarks: a commit waits for its WAL fsync, as
    # on a real server).
    local opts="-c listen_addresses=127.0.0.1 -p $port -k $PG_DIR -c max_connections=200"
    if [ "${PG_DURABLE:-0}" != 1 ]; then
        opts="$opts -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    fi
    "${as[@]}" "$bin/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 \
        -o "$opts" \
        start >/dev/null ||
        { cat "$PG_DIR/server.log" >&2; return 1; }
    "${as[@]}" "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres toolgate_test
    PG_BIN=$bin
    PG_AS=("${as[@]}")
    export TOOLGATE_TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$port/toolgate_test"
}

pg_stop() {
    if [ -n "${PG_DIR:-}" ] && [ -d "$PG_DIR/data" ]; then
        "${PG_AS[@]}" "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
        rm -rf "$PG_DIR"
    fi
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -euo pipefail
    pg_start
    echo "export TOOLGATE_TEST_DATABASE_URL=$TOOLGATE_TEST_DATABASE_URL"
    echo "# stop with: runuser -u postgres -- $PG_BIN/pg_ctl -D $PG_DIR/data stop && rm -rf $PG_DIR"
fi
