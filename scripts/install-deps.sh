#!/usr/bin/env bash
# Installs what perfmodel needs on Debian 12. Idempotent: when every package is
# already installed it does nothing (no apt-get update, no network).
set -euo pipefail

PKGS=(
  cmake ninja-build g++
  llvm-19-dev libclang-19-dev libclang-cpp19-dev clang-19 llvm-19-tools libomp-19-dev
  libclang-rt-19-dev
  libyaml-cpp-dev libgtest-dev libcli11-dev libjemalloc-dev
  hyperfine valgrind libbenchmark-dev python3 python3-yaml python3-pygments
  # C and C++ library headers for compiling kernels for the AArch64 models.
  libc6-dev-arm64-cross libstdc++-12-dev-arm64-cross
  # The SARIF test checks the output against the SARIF 2.1.0 schema.
  python3-jsonschema python3-rfc3987
  # rsvg-convert: the chart test rasterises the SVG report.
  librsvg2-bin
)

missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "perfmodel: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
