#!/usr/bin/env bash
# Configures and builds perfmodel with CMake + Ninja into ${BUILD_DIR:-build}.
# Always uses the LLVM/Clang 19 toolchain, never the distribution default (14).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
BUILD_TYPE="${BUILD_TYPE:-Release}"

bash "$ROOT/scripts/install-deps.sh"

if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja \
    -DCMAKE_BUILD_TYPE="$BUILD_TYPE" \
    -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
    "$@" >/dev/null
fi
cmake --build "$BUILD_DIR"
