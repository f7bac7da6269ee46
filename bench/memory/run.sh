#!/usr/bin/env bash
# The memory measurements behind the dev VM's latency, misses-in-flight,
# stride-prefetch and write-back keys (machine-models/dev-vm-zen5.yml):
# pointer chases, strided sums and write-back loops, timed on this host.
#
#   bench/memory/run.sh [CLOCK_GHZ]   (default: the clock analyze measures)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
P="${BUILD_DIR:-$ROOT/build}/bin/perfmodel"
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT
cd "$ROOT/bench/memory"
GHZ="${1:-$("$P" analyze "$ROOT/examples/triad.c" -D n=1000 --no-incore --format json |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["machine"]["clock_ghz"])')}"
echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), clock $GHZ GHz"
for F in chase stride; do clang-19 -O2 -march=native "$F.c" -o "$T/$F"; done
clang-19 -O3 -march=native writeback.c -o "$T/writeback"
echo "## pointer chases"; "$T/chase"
echo "## strided sums"; "$T/stride"
# Sets of a quarter and half of a 512 KiB L2 (pass more sizes in KiB by hand,
# e.g. half of the L3 a VM keeps: perfmodel validate prints it).
echo "## fills and write-backs"; "$T/writeback" 128 256
