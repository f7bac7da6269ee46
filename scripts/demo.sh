#!/usr/bin/env bash
# README demo command: install, build, and analyze the STREAM triad example.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$ROOT/scripts/build.sh"
"${BUILD_DIR:-$ROOT/build}/bin/perfmodel" analyze "$ROOT/examples/triad.c" -D n=10000000 "$@"
