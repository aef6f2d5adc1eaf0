#!/usr/bin/env bash
# Stratus on PostgreSQL, Stratus on SQLite, and pgbench inserting one row per transaction at 16 clients, in one run on
# this machine. Starts a throwaway PostgreSQL cluster (durable commits, as installed), builds Stratus in release mode,
# and prints both benchmark tables, pgbench's rate, and the figures the PostgreSQL backend is held to.
#
#   bash Benchmarks/postgres/run.sh [--seconds 5] [--records 100000]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=5
records=100000
source Benchmarks/options.sh
work=$(mktemp -d /tmp/stratus-pgbench-XXXXXX)
trap 'kill $sqlite_pid 2>/dev/null || true; rm -rf "$work"' EXIT
sqlite_pid=""

swift build --package-path Server -c release --product stratus >&2
stratus=Server/.build/release/stratus
server=$(bash .ci/postgres-cluster --until-pid $$)
database() { echo "${server%/postgres}/$1"; }

echo "pgbench: one-row INSERT, 16 clients, ${seconds}s..." >&2
psql -q "$server" -c "CREATE DATABASE pgbench_rows" >/dev/null
psql -q "$(database pgbench_rows)" -c "CREATE TABLE rows (id bigserial PRIMARY KEY, body text NOT NULL, created_at bigint NOT NULL)" >/dev/null
echo "INSERT INTO rows (body, created_at) VALUES ('one row, one commit', 1);" > "$work/insert.sql"
pgbench -n -c 16 -j 2 -T "$seconds" -f "$work/insert.sql" "$(database pgbench_rows)" > "$work/pgbench.txt" 2>&1
pgbench_tps=$(grep -oP 'tps = \K[0-9.]+(?= \(without initial connection time\))' "$work/pgbench.txt")

echo "Stratus on PostgreSQL..." >&2
psql -q "$server" -c "CREATE DATABASE stratus_bench" >/dev/null
"$stratus" bench --database "$(database stratus_bench)" --seconds "$seconds" --records "$records" > "$work/postgres.md"

echo "Stratus on SQLite..." >&2
"$stratus" serve --port 0 --data "$work/sqlite" --admin-key bench --quiet > "$work/sqlite.log" 2>&1 &
sqlite_pid=$!
for _ in $(seq 1 100); do grep -q "listening on" "$work/sqlite.log" 2>/dev/null && break; sleep 0.1; done
url=$(grep -oP 'listening on \Khttp://[^ ]+' "$work/sqlite.log" | head -1)
"$stratus" bench --url "$url" --admin-key bench --server-pid "$sqlite_pid" --seconds "$seconds" --records "$records" > "$work/sqlite.md"

python3 Benchmarks/postgres/summary.py "$work/postgres.md" "$work/sqlite.md" "$pgbench_tps"
