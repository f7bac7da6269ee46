#!/usr/bin/env bash
# perfmodel on llvm-test-suite's MicroBenchmarks/ImageProcessing, a public
# suite nobody here wrote and none of the project's tuning saw (issue 45:
# "checked on a public suite that is not in the repository"): box and
# Gaussian blur, dilation, ordered and Floyd-Steinberg dithering, bilinear
# and bicubic interpolation, anisotropic diffusion, a bilateral filter, over
# int images (file-scope arrays of #define'd extents, VLA parameters). Each
# program is built with clang-19 -O3 -march=native and the suite's
# -ffp-contract=off against Debian's libbenchmark-dev and timed by Google
# Benchmark (median of RUNS processes, seconds per kernel call, the data
# warm from the call before); each kernel file is analysed with its size
# parameters bound to what the benchmark passes (-D height=N -D width=N).
#
#   bench/suites/images.sh LLVM_TEST_SUITE_DIR/MicroBenchmarks/ImageProcessing [RUNS]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
P="${BUILD_DIR:-$ROOT/build}/bin/perfmodel"
L="${1:?usage: bench/suites/images.sh IMAGEPROCESSING_DIR [RUNS]}"
RUNS="${2:-3}"
echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-); $RUNS runs"
python3 "$ROOT/bench/suites/suite_stats.py" images "$P" "$L" - "$RUNS"
