#!/usr/bin/env bash
# Integer and vector loads together on this host (core.vector_load_slots):
# independent loads in L1 of zmm, ymm, scalar FP and integer registers, alone
# and mixed (bench/incore/load_mix.py writes the loops), best of 9, cycles at
# the clock perfmodel measures for the host's model. Beside each, what
# `perfmodel incore` predicts for the same loop on MACHINE (default zen4).
#
#   bench/incore/load_mix.sh [MACHINE]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
P="${BUILD_DIR:-$ROOT/build}/bin/perfmodel"
M="${1:-zen4}"
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT
ZMM=()
grep -qw avx512f /proc/cpuinfo || ZMM=(--no-zmm)
python3 "$ROOT/bench/incore/load_mix.py" "${ZMM[@]}" "$T"
clang-19 -O2 -Wa,--noexecstack "$T/mix.c" "$T/mix.s" -o "$T/mix"
GHZ="$("$P" analyze "$ROOT/examples/triad.c" --format json | python3 -c '
import json, sys
print(json.load(sys.stdin)["machine"]["clock_ghz"])')"
echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), clock $GHZ GHz; model: $M"
"$T/mix" "$GHZ" > "$T/measured"
K=0
while IFS= read -r Line; do
  # The loop of case K, alone, for perfmodel incore.
  awk -v f="mix$K:" '$0 == f {on = 1; next} on && /^  dec/ {exit} on && !/^1:|%rdi, %rcx/' \
    "$T/mix.s" | sed '1i .Lx:' > "$T/case.s"
  printf '  dec %%rcx\n  jnz .Lx\n' >> "$T/case.s"
  Pred="$("$P" incore "$T/case.s" -m "$M" | sed -n 's/^in-core.*: \([0-9.]*\) cy per machine iteration.*/\1/p')"
  printf '%s   predicted %s\n' "$Line" "$Pred"
  K=$((K + 1))
done < "$T/measured"
