#!/usr/bin/env bash
# Two builds of Stratus measured in one run, interleaved (before, after, before, after, ...), so that both see the
# same machine: each run starts a fresh server of that build on SQLite (and, with --postgres URL, one on a fresh
# PostgreSQL database) and measures it with the after build's `stratus bench`. Prints every table, then the median
# ratio to /healthz per scenario for each build and after ÷ before.
#
#   bash Benchmarks/before-after/run.sh --before OLD/stratus --after NEW/stratus [--rounds 3] [--seconds 5]
#       [--records 100000] [--postgres postgres://user:password@host:port/postgres]
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=3
seconds=5
records=100000
before=""
after=""
postgres=""
while [ $# -gt 0 ]; do
    case "$1" in
        --before) before=$2; shift 2 ;;
        --after) after=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --seconds) seconds=$2; shift 2 ;;
        --records) records=$2; shift 2 ;;
        --postgres) postgres=$2; shift 2 ;;
        *) echo "unknown option $1" >&2; exit 64 ;;
    esac
done
if [ ! -x "$before" ] || [ ! -x "$after" ]; then
    echo "--before and --after name two stratus executables (release builds)" >&2
    exit 64
fi
work=$(mktemp -d /tmp/stratus-before-after-XXXXXX)
server_pid=""
trap 'if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi; rm -rf "$work"' EXIT

# Runs one benchmark of build $2 on SQLite, writing its table to $1.
sqlite_run() {
    local out=$1 build=$2 data="$work/data-$RANDOM$RANDOM"
    "$build" serve --port 0 --data "$data" --admin-key bench --quiet > "$work/serve.log" 2>&1 &
    server_pid=$!
    local url=""
    for _ in $(seq 1 600); do
        url=$(grep -oP 'listening on \Khttp://[^ ]+' "$work/serve.log" 2>/dev/null | head -1 || true)
        [ -n "$url" ] && break
        kill -0 "$server_pid" 2>/dev/null || { cat "$work/serve.log" >&2; exit 1; }
        sleep 0.1
    done
    [ -n "$url" ] || { echo "the server did not start; its log:" >&2; cat "$work/serve.log" >&2; exit 1; }
    "$after" bench --url "$url" --admin-key bench --server-pid "$server_pid" --seconds "$seconds" --records "$records" > "$out"
    kill "$server_pid"
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
    rm -rf "$data"
}

# Runs one benchmark of build $2 on a fresh PostgreSQL database, writing its table to $1.
postgres_run() {
    local out=$1 build=$2 name="stratus_before_after_$RANDOM$RANDOM"
    psql -q "$postgres" -c "CREATE DATABASE $name" >/dev/null
    local url="${postgres%/*}/$name"
    # `bench --database` starts a server of the build it belongs to: run the build under test's own bench.
    "$build" bench --database "$url" --seconds "$seconds" --records "$records" > "$out"
    psql -q "$postgres" -c "DROP DATABASE $name" >/dev/null
}

for round in $(seq 1 "$rounds"); do
    for side in before after; do
        build=$before
        [ "$side" = after ] && build=$after
        echo "round $round: $side on SQLite..." >&2
        sqlite_run "$work/sqlite-$side-$round.md" "$build"
        if [ -n "$postgres" ]; then
            echo "round $round: $side on PostgreSQL..." >&2
            postgres_run "$work/postgres-$side-$round.md" "$build"
        fi
    done
done

for file in "$work"/*.md; do
    echo "### $(basename "$file" .md)"
    cat "$file"
    echo
done
python3 Benchmarks/before-after/summary.py "$work"
