#!/usr/bin/env bash
# Issue 45's shapes of real code on this host: each priced and timed
# (perfmodel validate on repros.c; the early exit with its own harness, as
# validate does not time loops whose trip depends on data).
#   bench/realcode/run.sh    (after scripts/build.sh)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
P="${BUILD_DIR:-$ROOT/build}/bin/perfmodel"
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT
cd "$ROOT/bench/realcode"
echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
"$P" validate repros.c --levels L1,L2 -D k=4 -- -O3 -march=native
clang-19 -O3 -march=native search.c search_main.c -o "$T/search"
echo "## search (early exit), timed to its bound"
"$T/search" 3000 100000
"$P" analyze search.c -D n=3000 -- -O3 -march=native | grep -E "headline|exit early"
"$P" analyze search.c -D n=100000 -- -O3 -march=native | grep -E "headline"
