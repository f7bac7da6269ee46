#!/usr/bin/env bash
# Simulator throughput in accesses per second (Google Benchmark, medians of 5).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
B="${BUILD_DIR:-$ROOT/build}"
cmake --build "$B" --target cachesim_bench >/dev/null
"$B/bin/cachesim_bench" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
  --benchmark_min_time=0.5 2>/dev/null | grep -E "median|Benchmark"
