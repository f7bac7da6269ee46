#!/usr/bin/env bash
# perfmodel on a public loop suite nobody here wrote (issue 45): every kernel
# of PolyBench/C 4.2.1 (its checkout is not in the repository: fetch
# MatthiasJReisinger/PolyBenchC-4.2.1 or the release tarball) compiled with
# clang-19 -O3 -march=native at one dataset, timed with PolyBench's own
# timer (-DPOLYBENCH_TIME, the kernel call alone, median of RUNS runs; the
# caches not flushed before it unless FLUSH=1: the data warm from the
# initialisation, as the headline's "data in" level assumes), and
# predicted by `perfmodel analyze` on this host: the kernel function's
# seconds are the sum of its nests' headline seconds per call. Prints per
# kernel the two and the error, then the suite's figures: kernels, share
# declined (by reason), median and mean error, share within 10 % and 25 %,
# Kendall's tau between predicted and measured time, and the ten worst.
#
#   bench/suites/polybench.sh POLYBENCH_DIR [DATASET] [RUNS]
#     DATASET: MINI SMALL MEDIUM (default) LARGE EXTRALARGE; RUNS default 3
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
P="${BUILD_DIR:-$ROOT/build}/bin/perfmodel"
PB="${1:?usage: bench/suites/polybench.sh POLYBENCH_DIR [DATASET] [RUNS]}"
DS="${2:-MEDIUM}"
RUNS="${3:-3}"
echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-); dataset $DS; $RUNS runs"
python3 "$ROOT/bench/suites/suite_stats.py" polybench "$P" "$PB" "$DS" "$RUNS"
