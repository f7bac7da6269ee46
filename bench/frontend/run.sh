#!/usr/bin/env bash
# Front-end cost: `perfmodel analyze` vs `clang-19 -fsyntax-only` on the same
# generated 2,000-line C file, timed side by side with hyperfine.
# Prints the ratio; the goal (issue 3) is at most about 2x.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
P="${BUILD_DIR:-$ROOT/build}/bin/perfmodel"
LINES="${LINES:-2000}"
command -v hyperfine >/dev/null || { echo "needs hyperfine (apt-get install hyperfine)"; exit 1; }
[ -x "$P" ] || { echo "build perfmodel first (scripts/build.sh)"; exit 1; }
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
python3 "$ROOT/bench/frontend/gen_kernels.py" "$LINES" > "$TMP/kernels.c"
echo "file: $(wc -l < "$TMP/kernels.c") lines, $(grep -c 'for (' "$TMP/kernels.c") loops"
# The same flags for both: perfmodel parses with -fopenmp.
hyperfine -N --warmup 3 --runs "${RUNS:-20}" --export-json "$TMP/h.json" \
  "clang-19 -fsyntax-only -fopenmp $TMP/kernels.c" \
  "$P analyze $TMP/kernels.c -m hsw -o /dev/null" >/dev/null
python3 - "$TMP/h.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
clang, pm = r[0], r[1]
print(f"{'command':<28}{'median ms':>10}{'mean ms':>10}{'stddev':>9}")
for name, x in (("clang-19 -fsyntax-only", clang), ("perfmodel analyze", pm)):
    print(f"{name:<28}{x['median']*1e3:>10.1f}{x['mean']*1e3:>10.1f}{x['stddev']*1e3:>9.1f}")
print(f"ratio perfmodel / clang (medians): {pm['median']/clang['median']:.2f}")
PY
