#!/usr/bin/env bash
# Cost of `perfmodel analyze` on a generated 2,000-line C file, side by side
# with hyperfine: against `clang-19 -fsyntax-only` (the front end and the
# analytic models alone, --no-incore; goal of issue 3: at most about 2x) and
# against `clang-19 -O3 -c` (the full analysis, which compiles the file once
# for the in-core model; goal: about the cost of compiling it).
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
hyperfine -N --warmup 2 --runs "${RUNS:-10}" --export-json "$TMP/h.json" \
  "clang-19 -fsyntax-only -fopenmp $TMP/kernels.c" \
  "$P analyze $TMP/kernels.c -m hsw --no-incore -o /dev/null" \
  "clang-19 -O3 -march=haswell -g -fopenmp -c $TMP/kernels.c -o $TMP/k.o" \
  "$P analyze $TMP/kernels.c -m hsw -o /dev/null" >/dev/null
python3 - "$TMP/h.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
names = ["clang-19 -fsyntax-only", "perfmodel analyze --no-incore",
         "clang-19 -O3 -g -c", "perfmodel analyze"]
print(f"{'command':<32}{'median ms':>10}{'mean ms':>10}{'stddev':>9}")
for name, x in zip(names, r):
    print(f"{name:<32}{x['median']*1e3:>10.1f}{x['mean']*1e3:>10.1f}{x['stddev']*1e3:>9.1f}")
print(f"ratio analyze --no-incore / -fsyntax-only: {r[1]['median']/r[0]['median']:.2f}")
print(f"ratio analyze / -O3 -c:                    {r[3]['median']/r[2]['median']:.2f}")
PY
