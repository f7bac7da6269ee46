#!/usr/bin/env bash
# Line splits on this host: one compiled scale loop timed with its arrays at
# 0, 16, 32 and 48 bytes past a 64-byte boundary, beside perfmodel's
# predictions at --assume-align 64 (no splits) and 16 (the average over the
# four offsets). Needs the host's model (CPUID) for the clock and split costs.
#
#   bench/align/run.sh [N]     (default 1000: 16 KB, in L1)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
P="${BUILD_DIR:-$ROOT/build}/bin/perfmodel"
N="${1:-1000}"
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT
cd "$ROOT/bench/align"
clang-19 -O3 -march=native -c scale.c -o "$T/scale.o"
clang-19 -O2 scale_offsets.c "$T/scale.o" -o "$T/offsets"
GHZ="$("$P" analyze scale.c -D n="$N" --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(d["machine"].get("clock_ghz", 0))')"
echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), clock $GHZ GHz"
echo "| offset (B) | measured cy/it |"
echo "|---:|---:|"
"$T/offsets" "$N" "$GHZ"
for A in 64 16; do
  printf 'predicted, --assume-align %s: ' "$A"
  "$P" analyze scale.c -D n="$N" --assume-align "$A" --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(d["loops"][0]["incore"]["cy_per_it"], "cy/it")'
done
