#!/usr/bin/env bash
# Gate::submit with the ledger on SQLite and on PostgreSQL: starts a
# throwaway PostgreSQL server on 127.0.0.1 whose commits wait for their WAL
# fsync (as a real server's do; PG_DURABLE=1 of scripts/pg.sh), runs the
# criterion bench `submit` of toolgate-benches (benches/), prints each
# bench's median and stops the server. Extra arguments go to criterion (e.g.
# a filter).
set -euo pipefail
cd "$(dirname "$0")/.."

. ./scripts/pg.sh
trap pg_stop EXIT
PG_DURABLE=1 pg_start
TOOLGATE_BENCH_DATABASE_URL=$TOOLGATE_TEST_DATABASE_URL \
    cargo bench -p toolgate-benches --bench submit -- "$@" >&2
target=${CARGO_TARGET_DIR:-target}
for name in with_ledger with_postgres_ledger without_ledger; do
    f="$target/criterion/gate_submit_allowed_noop_$name/new/estimates.json"
    [ -f "$f" ] || continue
    python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))["median"]["point_estimate"] / 1000
print("%-22s median %8.1f us" % (sys.argv[2], d))' "$f" "$name"
done
