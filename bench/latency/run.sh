#!/usr/bin/env bash
# Latency-bound loads on this host (issue 18): the kernels of
# tests/nest/latency.c (a pointer chase, a gather through random indices, a
# sum at a 72-byte stride) timed with their data in L2, L3 and memory,
# beside perfmodel's predictions for the same sizes (the gather with the
# same index distribution, uniform random, in the simulator). Needs the
# host's model (CPUID) for the clock, latencies and misses in flight.
#
#   bench/latency/run.sh [VALIDATE-LIKE OPTIONS passed to analyze]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
P="${BUILD_DIR:-$ROOT/build}/bin/perfmodel"
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT
SRC="$ROOT/tests/nest/latency.c"
clang-19 -O3 -march=native -c "$SRC" -o "$T/latency.o"
clang-19 -O2 "$ROOT/bench/latency/time_latency.c" "$T/latency.o" -o "$T/time"
echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-) (family $(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' '), model $(grep -m1 '^model\s' /proc/cpuinfo | cut -d: -f2 | tr -d ' '))"
python3 - "$P" "$SRC" "$T/time" "$@" <<'PY'
import json, subprocess, sys
P, SRC, TIME, extra = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
# (kernel, level, N, M): chases and gathers of 512 KiB, 4 MiB and 512 MiB of
# data; the stride's 9 N doubles likewise.
cases = []
for level, bytes_ in (("L2", 512 << 10), ("L3", 4 << 20), ("MEM", 512 << 20)):
    m = bytes_ // 8
    cases.append(("chase", level, 4_000_000 if level != "MEM" else 2_000_000, m))
    cases.append(("gather", level, 4_000_000, m))
    cases.append(("stride72", level, bytes_ // 72, 0))
fn = {"chase": "chase", "gather": "gather_sum", "stride72": "stride72"}
rows, errs = [], {}
for kernel, level, n, m in cases:
    meas = [float(x) for x in subprocess.run([TIME, kernel, str(n), str(m)], check=True,
                                             capture_output=True, text=True).stdout.split()]
    args = [P, "analyze", SRC, "-D", f"n={n}", "--format", "json"] + extra
    if kernel == "gather":
        args += ["--cache", "sim", "--index", f"idx=uniform:0:{m}:{n}:1"]
    d = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    ghz = d["machine"]["clock_ghz"]
    loop = next(l for l in d["loops"] if l["function"] == fn[kernel])
    head = loop["prediction"]["model"]
    pred = {}
    for p in loop["predictions"]:
        for lv in p.get("levels", []):
            if lv["level"] == level:
                pred[p["model"]] = lv["cy_per_it"]
    cy = meas[0] * ghz
    row = [kernel, level, f"{cy:.1f}", f"{100 * (meas[2] - meas[1]) / meas[0]:.0f} %"]
    for model in ("Roofline", "ECM", "PPR"):
        v = pred.get(model)
        row += [f"{v:.1f}" if v is not None else "-",
                f"{100 * (v - cy) / cy:+.0f} %" if v is not None else "-"]
        if v is not None:
            errs.setdefault((model, level), []).append(abs(v - cy) / cy)
        if model == head and v is not None:
            errs.setdefault(("headline", level), []).append(abs(v - cy) / cy)
    rows.append(row)
print(f"clock {ghz} GHz (the host's, measured by analyze)")
print("| kernel | data in | measured cy/it | spread | Roofline | err | ECM | err | PPR | err |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for r in rows:
    print("| " + " | ".join(r) + " |")
print("\n| model | L2 | L3 | MEM |\n|---|---:|---:|---:|")
for model in ("Roofline", "ECM", "PPR", "headline"):
    cells = []
    for level in ("L2", "L3", "MEM"):
        e = errs.get((model, level), [])
        cells.append(f"{100 * sum(e) / len(e):.0f} %" if e else "-")
    print(f"| {model} | " + " | ".join(cells) + " |")
PY
