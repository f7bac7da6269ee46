#!/usr/bin/env bash
# Regenerates tests/golden/ from the current build. Review `git diff` after.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
P="${BUILD_DIR:-$ROOT/build}/bin/perfmodel"
G="$ROOT/tests/golden"
cd "$ROOT"
export PERFMODEL_MACHINE_PATH="$ROOT/machine-models"
norm() { sed "s|$ROOT|\$SRC|g"; }
"$P" analyze examples/triad.c -m hsw -D n=10000000 | norm > "$G/triad.txt"
"$P" analyze examples/triad.c -m hsw -D n=10000000 --format json | norm > "$G/triad.json"
"$P" analyze examples/williams-fig9.2.c -m hsw -D n=1000000 | norm > "$G/williams-fig9.2.txt"
"$P" analyze examples/unsupported.c -m hsw -D n=100 | norm > "$G/unsupported.txt"
"$P" machine show hsw | norm > "$G/machine-show-hsw.txt"
"$P" analyze examples/williams-fig9.2.c -m hsw -D n=1000000 -D N=2048 --cache both \
  --sim-accesses 4000000 | norm > "$G/williams-fig9.2-cache.txt"
"$P" analyze examples/spmv-csr.c -m hsw --index rowptr=examples/matrices/laplace2d-30.mtx \
  --index col=examples/matrices/laplace2d-30.mtx --format json | norm > "$G/spmv-mtx.json"
"$P" incore tests/incore/fma-4acc.s -m hsw | norm > "$G/incore-fma-4acc-hsw.txt"

# The README's chart (reviewed like a golden file).
"$P" analyze examples/williams-fig9.2.c -m hsw -D n=1000000 -D N=2048 --format svg \
  | norm > "$ROOT/docs/images/roofline-williams-hsw.svg"
# The figures the goldens' tests derive by hand must still hold: a change to
# one of them is a model change to explain, not a golden to refresh.
if ! "${BUILD_DIR:-$ROOT/build}/bin/golden_figures_test" --gtest_brief=1; then
  echo "update-golden: a hand-derived figure changed (tests/cli/GoldenFiguresTest.cpp);" \
       "explain it there or fix the model" >&2
  exit 1
fi
echo "golden files updated in $G"
