#!/usr/bin/env bash
# perfmodel on TSVC_2 (github.com/UoB-HPC/TSVC_2, its src/ outside the
# repository): a copy of its sources with `iterations` set (upstream 100000
# takes minutes a run; the default here 10000), built with clang-19 -O3
# -march=native as its Makefile does (dummy.c and common.c separate), timed
# by its own timer per function (median of RUNS runs; 3 decimals of a
# second, so keep functions above ~30 ms), and predicted by `perfmodel
# analyze` on the copy: a function's seconds are the sum of its nests'
# headline seconds, the outer nl loop and its dummy() call included.
# Prints per function the two and the error, then the suite's figures (as
# bench/suites/polybench.sh does).
#
#   bench/suites/tsvc.sh TSVC_SRC_DIR [ITERATIONS] [RUNS]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
P="${BUILD_DIR:-$ROOT/build}/bin/perfmodel"
SRC="${1:?usage: bench/suites/tsvc.sh TSVC_SRC_DIR [ITERATIONS] [RUNS]}"
echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-); iterations ${2:-10000}; ${3:-3} runs"
python3 "$ROOT/bench/suites/suite_stats.py" tsvc "$P" "$SRC" "${2:-10000}" "${3:-3}"
