#!/usr/bin/env bash
# The HTTP floor on this machine: trivial GET requests per second from raw SwiftNIO channel handlers, a bare
# Hummingbird application and `stratus serve`'s /healthz, taking turns (wrk, 16 connections, 8 s each, 3 rounds).
# Usage: bash Benchmarks/http-floor/run.sh [path/to/stratus]   (default: .build/release/stratus)
set -euo pipefail
cd "$(dirname "$0")"
root=$(cd ../.. && pwd)
stratus=${1:-$root/.build/release/stratus}
command -v wrk >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk; }
[ -x "$stratus" ] || (cd "$root" && swift build -c release --product stratus)
swift build -c release --product http-floor 2>&1 | grep -E "error|Build" || true
data=$(mktemp -d)
.build/release/http-floor 18301 nio & nio=$!
.build/release/http-floor 18302 hummingbird >/dev/null 2>&1 & hb=$!
"$stratus" serve --quiet --port 18303 --data "$data" & st=$!
trap 'kill $nio $hb $st 2>/dev/null; rm -rf "$data"' EXIT
sleep 3
echo "| round | NIO channel handlers | bare Hummingbird | stratus /healthz |"
echo "|---:|---:|---:|---:|"
for round in 1 2 3; do
    row="| $round |"
    for port in 18301 18302 18303; do
        rate=$(wrk -t2 -c16 -d8s "http://127.0.0.1:$port/healthz" | awk '/Requests\/sec/ {printf "%.0f", $2}')
        row="$row $rate |"
    done
    echo "$row"
done
