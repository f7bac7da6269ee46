#!/usr/bin/env bash
# FP load and store throughput on this host (bench/incore/fp_memory.c) at the
# clock perfmodel measures for the host's model.
#
#   bench/incore/fp_memory.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
P="${BUILD_DIR:-$ROOT/build}/bin/perfmodel"
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT
clang-19 -O2 "$ROOT/bench/incore/fp_memory.c" -o "$T/fp_memory"
GHZ="$("$P" analyze "$ROOT/examples/triad.c" --format json | python3 -c '
import json, sys
print(json.load(sys.stdin)["machine"]["clock_ghz"])')"
echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), clock $GHZ GHz"
"$T/fp_memory" "$GHZ"
