#!/usr/bin/env bash
# Builds the libFuzzer targets (clang-19, ASan + UBSan) into ${FUZZ_DIR:-build-fuzz}
# and runs each for SECONDS (default 60) from its seed corpus in
# tests/fuzz/corpus/. New inputs go to a scratch copy of the corpus; crashes
# are written to tests/fuzz/crashes/ and make the script fail.
#   scripts/fuzz.sh [SECONDS] [TARGET...]   (targets: machine block matrix source)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
D="${FUZZ_DIR:-$ROOT/build-fuzz}"
SECS="${1:-60}"
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(machine block matrix source)
bash "$ROOT/scripts/install-deps.sh"
if [ ! -f "$D/build.ninja" ]; then
  cmake -S "$ROOT" -B "$D" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
    -DPERFMODEL_FUZZ=ON -DBUILD_TESTING=OFF >/dev/null
fi
cmake --build "$D" --target $(printf 'fuzz_%s ' "${TARGETS[@]}")
mkdir -p "$ROOT/tests/fuzz/crashes"
FAIL=0
for T in "${TARGETS[@]}"; do
  WORK="$(mktemp -d)"
  [ -d "$ROOT/tests/fuzz/corpus/$T" ] && cp -r "$ROOT/tests/fuzz/corpus/$T/." "$WORK/"
  # The C-source fuzzer starts from the examples and the hostile sources.
  [ "$T" = source ] && cp "$ROOT"/examples/*.c "$ROOT"/tests/bad-inputs/*.c "$WORK/"
  echo "== fuzz_$T for ${SECS}s"
  if ! "$D/bin/fuzz_$T" "$WORK" -max_total_time="$SECS" -timeout=20 -rss_limit_mb=4096 \
      -artifact_prefix="$ROOT/tests/fuzz/crashes/$T-" -print_final_stats=1 \
      > "$WORK.log" 2>&1; then
    FAIL=1
    echo "fuzz_$T found a problem:"; grep -E "ERROR|SUMMARY|Test unit written" "$WORK.log" | head -5
  fi
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb|cov: " "$WORK.log" | tail -3
  echo "corpus: $(ls "$WORK" | wc -l) inputs"
  rm -rf "$WORK" "$WORK.log"
done
exit $FAIL
