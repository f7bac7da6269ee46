#!/usr/bin/env bash
# The PPR paper's three 1D convolutions (examples/ppr-conv1d) on the Haswell
# E5-2680 v3 model: Roofline, ECM and PPR GFLOP/s with the data in L1, L2,
# L3 and memory, beside the paper's predictions and measurements (Xie, Tan,
# Sun, Tables 4-6), with the error of each against the measurement.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
P="${BUILD_DIR:-$ROOT/build}/bin/perfmodel"
cd "$ROOT"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
# Sizes whose working set lies in each level (4 B floats; input + output,
# and for the aligned variant eight shifted copies of the input).
# Each case twice: counted from the source as the paper counts
# (--incore source) and from the compiled machine loop.
run() { # variant level length flags...
  local v=$1 lv=$2 len=$3; shift 3
  for basis in source compiled; do
    "$P" analyze "examples/ppr-conv1d/conv1d_$v.c" -m hsw -D length="$len" \
      -D stride=$((len + 64)) --incore $basis --format json -- "$@" \
      > "$TMP/$v-$lv-$basis.json" 2>/dev/null
  done
}
for lv in L1:2048 L2:16384 L3:1048576 MEM:16777216; do
  run naive "${lv%%:*}" "${lv##*:}" -O3 -fno-vectorize -fno-slp-vectorize
  run avx_unaligned "${lv%%:*}" "${lv##*:}" -O3 -mavx2 -mfma
done
for lv in L1:512 L2:4096 L3:131072 MEM:4194304; do
  run avx_aligned "${lv%%:*}" "${lv##*:}" -O3 -mavx2 -mfma
done
python3 - "$TMP" <<'PY'
import json, os, sys
tmp = sys.argv[1]
paper = {  # Tables 4-6: predicted, measured GFLOP/s for L1, L2, L3, memory
    "naive": ([10.80, 10.63, 10.47, 10.02], [10.52, 10.38, 10.17, 9.81]),
    "avx_unaligned": ([43.20, 40.66, 38.40, 32.91], [42.63, 40.27, 38.18, 30.53]),
    "avx_aligned": ([86.40, 57.60, 43.20, 24.69], [83.56, 55.27, 43.15, 20.86]),
}
levels = ["L1", "L2", "L3", "MEM"]
cols = ["PPR paper", "PPR", "ECM", "Roofline", "PPR compiled"]
print("| variant | data in | measured (paper) | PPR paper | PPR | ECM | Roofline | PPR, compiled code |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
err = {m: [] for m in cols}
within = 0
def models(path, lv):
    d = json.load(open(path))
    row = {}
    for p in d["loops"][0].get("predictions", []):
        if not p.get("ok"):
            continue
        assert p.get("data_level") == lv, (path, p.get("data_level"))
        for l in p["levels"]:
            if l["level"] == lv:
                row[p["model"]] = l["gflops"]
    return row
for v, (pred, meas) in paper.items():
    for i, lv in enumerate(levels):
        src = models(os.path.join(tmp, f"{v}-{lv}-source.json"), lv)
        cmp = models(os.path.join(tmp, f"{v}-{lv}-compiled.json"), lv)
        vals = {"PPR paper": pred[i], "PPR": src.get("PPR"), "ECM": src.get("ECM"),
                "Roofline": src.get("Roofline"), "PPR compiled": cmp.get("PPR")}
        within += abs(vals["PPR"] - pred[i]) <= 0.02 * pred[i]
        cells = []
        for name in cols:
            x = vals[name]
            e = (x - meas[i]) / meas[i]
            err[name].append(abs(e))
            cells.append(f"{x:.2f} ({100 * e:+.1f} %)")
        print(f"| {v} | {lv} | {meas[i]:.2f} | " + " | ".join(cells) + " |")
print()
print("Mean absolute error against the measurements: " + ", ".join(
    f"{k} {100 * sum(v) / len(v):.1f} %" for k, v in err.items()))
print(f"PPR within 2 % of the paper's prediction: {within} of 12")
PY
