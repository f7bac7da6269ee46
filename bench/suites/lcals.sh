#!/usr/bin/env bash
# perfmodel on LCALS, a public loop suite nobody here wrote (issue 45): the
# Raw loops of subsets A, B and C as llvm-test-suite carries them
# (MicroBenchmarks/LCALS; its checkout is not in the repository: fetch
# llvm/llvm-test-suite), built with clang-19 -O3 -march=native against
# Debian's libbenchmark-dev, timed by Google Benchmark (median of RUNS
# processes, seconds per pass of the benchmark's loops, the data warm
# from the passes before), and predicted by `perfmodel analyze` with the
# length bound as a user would: -D 'state.range(0)=N' for each N the suite
# runs. A benchmark's seconds are the sum of its nests' headline seconds.
# A benchmark whose bounds need other sizes (ADomain's fields, set at run
# time from the length's index) counts as declined, named.
#
#   bench/suites/lcals.sh LLVM_TEST_SUITE_DIR/MicroBenchmarks/LCALS [RUNS]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
P="${BUILD_DIR:-$ROOT/build}/bin/perfmodel"
L="${1:?usage: bench/suites/lcals.sh LCALS_DIR [RUNS]}"
RUNS="${2:-3}"
echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-); $RUNS runs"
python3 "$ROOT/bench/suites/suite_stats.py" lcals "$P" "$L" - "$RUNS"
