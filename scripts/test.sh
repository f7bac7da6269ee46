#!/usr/bin/env bash
# README test command: install, build, run the whole test suite via ctest,
# then build again with AddressSanitizer + UndefinedBehaviorSanitizer and run
# the suite once more under them (the Clang plugin's tests run only in the
# first pass: a sanitized plugin cannot load into clang-19).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
bash "$ROOT/scripts/build.sh"
(cd "$BUILD_DIR" && ctest --output-on-failure -j "$(nproc)")

if [ "${PERFMODEL_SKIP_SANITIZE:-0}" != 1 ]; then
  SAN_DIR="${SANITIZE_BUILD_DIR:-$ROOT/build-sanitize}"
  BUILD_DIR="$SAN_DIR" BUILD_TYPE=RelWithDebInfo bash "$ROOT/scripts/build.sh" \
    -DPERFMODEL_SANITIZE=ON
  export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:suppressions=$ROOT/tests/asan.supp"
  export LSAN_OPTIONS="suppressions=$ROOT/tests/lsan.supp"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
  # The recorded replays run one code path on each recording's figures, all
  # of them in the first pass; under the sanitizers one per host kind does
  # (they were half of this pass's time).
  Replay='RecordedReplay\.NoWorseThanItsBaseline/'
  Pick=""
  for F in "$ROOT"/bench/validate/recorded/*.json; do
    Name="$(basename "$F" .json)"
    case "|$Pick|" in *"|${Name%%-*}_"*) continue ;; esac
    Pick="$Pick${Pick:+|}${Name//-/_}"
  done
  (cd "$SAN_DIR" && ctest --output-on-failure -j "$(nproc)" -E "$Replay")
  (cd "$SAN_DIR" && ctest --output-on-failure -j "$(nproc)" -R "$Replay($Pick) ")
fi
