#!/usr/bin/env bash
# Measured vs predicted on this host: `perfmodel validate` over the kernel
# suite examples/validate/kernels.c (one size per memory level), then per
# model and level the mean absolute percentage error (MAPE), the same for the
# headline prediction (one model per loop by the fixed rule of
# docs/models.md, never the best one picked after measuring) and the
# kernels where the headline is off by more than 30 %.
#
#   bench/validate/run.sh [MACHINE] [VALIDATE OPTIONS]   (default: this host's model)
#   e.g. bench/validate/run.sh devvm --set core.line_split_store_cost=1
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
P="${BUILD_DIR:-$ROOT/build}/bin/perfmodel"
M=()
if [ $# -ge 1 ] && [ "${1#-}" = "$1" ]; then M=(-m "$1"); shift; fi
M+=("$@")
OUT="$(mktemp)"
trap 'rm -f "$OUT"' EXIT
cd "$ROOT"
"$P" validate examples/validate/kernels.c --size n "${M[@]}" > "$OUT"
python3 - "$OUT" <<'PY'
import re, sys, collections
text = open(sys.argv[1]).read()
rows, kernel, head, skipped = [], None, None, []
for line in text.splitlines():
    m = re.match(r"\[\d+\] \S+\s+in (\S+)", line)
    if m:
        kernel, head = m.group(1), None
        continue
    if "not validated" in line or "skipped" in line:
        skipped.append(f"{kernel}: {line.strip()}")
        continue
    cells = line.split()
    if cells and cells[0] == "n":
        # n, working, set, data, in, measured, cy/it, GFLOP/s, spread, then pairs
        head = [c for c in cells[9:] if c != "cy/it"]
        head = ["headline" if c == "headline" else c for c in head]
        continue
    if head and len(cells) >= 7 and cells[0].isdigit() and cells[3] in ("L1", "L2", "L3", "MEM"):
        level, measured = cells[3], float(cells[4])
        if measured <= 0:
            continue
        preds = cells[7:]
        for k, model in enumerate([h for h in head if h != "error"]):
            if 2 * k < len(preds) and preds[2 * k] != "-":
                rows.append((kernel, level, model, measured, float(preds[2 * k])))
models = sorted({r[2] for r in rows}, key=["Roofline", "ECM", "PPR", "headline"].index)
levels = ["L1", "L2", "L3", "MEM"]
print("| model | " + " | ".join(levels) + " | all |")
print("|---|" + "---:|" * (len(levels) + 1))
for m in models:
    cells = []
    for lv in levels + [None]:
        e = [abs(p - meas) / meas for (k, l, mm, meas, p) in rows if mm == m and (lv is None or l == lv)]
        cells.append(f"{100 * sum(e) / len(e):.0f} % (n={len(e)})" if e else "-")
    print(f"| {m} | " + " | ".join(cells) + " |")
head_err = {(k, l): abs(p - meas) / meas for (k, l, m, meas, p) in rows if m == "headline"}
off = sorted((k, l, round(100 * v)) for (k, l), v in head_err.items() if v > 0.30)
print(f"\nKernel/level pairs where the headline is off by more than 30 % ({len(off)}):")
for k, l, v in off:
    print(f"  {k} {l}: {v} %")
if skipped:
    print("\nNot validated or skipped:")
    for s in skipped:
        print("  " + s)
PY
