#!/usr/bin/env bash
# The HTTP floor on this machine: trivial GET requests per second from raw SwiftNIO channel handlers (answering
# at once, from a task per request, from a task asking a Hummingbird router), a bare Hummingbird application and
# `stratus serve`'s /healthz, taking turns (wrk, 16 connections, 8 s each, 3 rounds).
# Usage: bash Benchmarks/http-floor/run.sh [path/to/stratus]   (default: Server/.build/release/stratus)
set -euo pipefail
cd "$(dirname "$0")"
root=$(cd ../.. && pwd)
stratus=${1:-$root/Server/.build/release/stratus}
command -v wrk >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk; }
[ -x "$stratus" ] || (cd "$root" && swift build --package-path Server -c release --product stratus)
swift build -c release --product http-floor 2>&1 | grep -E "error|Build" || true
data=$(mktemp -d)
pids=()
port=18301
for mode in nio task router hummingbird; do
    .build/release/http-floor $port $mode >/dev/null 2>&1 & pids+=($!)
    port=$((port + 1))
done
"$stratus" serve --quiet --port $port --data "$data" & pids+=($!)
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$data"' EXIT
sleep 3
echo "| round | channel handlers | + a task per request | + Hummingbird's router | Hummingbird application | stratus /healthz |"
echo "|---:|---:|---:|---:|---:|---:|"
for round in 1 2 3; do
    row="| $round |"
    for port in 18301 18302 18303 18304 18305; do
        rate=$(wrk -t2 -c16 -d8s "http://127.0.0.1:$port/healthz" | awk '/Requests\/sec/ {printf "%.0f", $2}')
        row="$row $rate |"
    done
    echo "$row"
done
