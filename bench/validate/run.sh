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
#        bench/validate/run.sh zen4 --also-machine host.yml   (a probed model
#        beside the library's, predicted against the same timings)
#        bench/validate/run.sh zen4 --host-l3 6MiB   (the L3 rows sized from,
#        and the predictions made with, a given share of the L3 instead of
#        this run's pointer chases: two binaries side by side see one L3)
#        bench/validate/run.sh zen4 --model-l3   (predict with the model's L3)
#        bench/validate/run.sh zen4 --processes 1   (one harness process per
#        size; three by default)
# VALIDATE_RAW=FILE keeps validate's own output (per kernel and size) there.
# RECORD=FILE keeps every timed row for `perfmodel validate --replay`
# (bench/validate/recorded/: one file per host kind and day).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
P="${BUILD_DIR:-$ROOT/build}/bin/perfmodel"
M=()
if [ $# -ge 1 ] && [ "${1#-}" = "$1" ]; then M=(-m "$1"); shift; fi
M+=("$@")
# Each size in three harness processes (the median of their medians): a
# process's physical pages move memory-bound timings on a VM by 15-25 %.
case " $* " in *" --processes"*) ;; *) M+=(--processes 3) ;; esac
if [ -n "${RECORD:-}" ]; then M+=(--record "$RECORD"); fi
OUT="$(mktemp)" OUT2="$(mktemp)"
trap 'rm -f "$OUT" "$OUT2"' EXIT
cd "$ROOT"
# The index arrays of gather (n random positions in x), spmv_ell and
# spmv_csr (8 random columns per row, CSR rows of 8): the same values in the
# simulator and the timed harness.
"$P" validate examples/validate/kernels.c --size n --index idx=uniform:0:n:n \
  --index col=uniform:0:n:8*n --index rowptr=rows:8:n "${M[@]}" > "$OUT"
# The OpenMP kernels on all the host's cores, where the cores share the data
# (L3, memory): ECM's saturation with cores (PARALLEL=0 leaves them out).
CORES="$(nproc)"
if [ "$CORES" -gt 1 ] && [ "${PARALLEL:-1}" != 0 ]; then
  "$P" validate examples/validate/omp.c --size n --cores "$CORES" --levels L3,MEM "${M[@]}" \
    -- -fopenmp > "$OUT2"
fi
if [ -n "${VALIDATE_RAW:-}" ]; then cat "$OUT" "$OUT2" > "$VALIDATE_RAW"; fi
for F in "$OUT" "$OUT2"; do
[ -s "$F" ] || continue
[ "$F" = "$OUT2" ] && echo && echo "On $CORES cores (examples/validate/omp.c, --cores $CORES):"
python3 - "$F" <<'PY'
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
        # n, working, set, data, in, measured, cy/it, GFLOP/s, spread, [GHz,
        # [quiet,]] then pairs
        first = 9
        while first < len(cells) and cells[first] in ("GHz", "quiet"):
            first += 1
        head = [c for c in cells[first:] if c != "cy/it"]
        head = ["headline" if c == "headline" else c for c in head]
        continue
    if head and len(cells) >= 7 and cells[0].isdigit() and cells[3] in ("L1", "L2", "L3", "MEM"):
        level, measured = cells[3], float(cells[4])
        if measured <= 0:
            continue
        preds = cells[7 + (first - 9):]
        for k, model in enumerate([h for h in head if h != "error"]):
            if 2 * k < len(preds) and preds[2 * k] != "-":
                rows.append((kernel, level, model, measured, float(preds[2 * k])))
# Columns of further machines (--also-machine) are "B:ECM" etc.; their
# predicted cycles are at their own clock: the error compares times.
order = ["Roofline", "ECM", "PPR", "headline"]
clocks = dict(re.findall(r"^machine(?: ([B-Z]))?: .*, ([0-9.]+) GHz", text, re.M))
def key(m):
    lab, _, name = m.rpartition(":")
    return (lab, order.index(name))
models = sorted({r[2] for r in rows}, key=key)
levels = ["L1", "L2", "L3", "MEM"]
def err(m, meas, p):
    lab = m.rpartition(":")[0]
    scale = float(clocks[""]) / float(clocks[lab]) if lab else 1.0
    return abs(p * scale - meas) / meas
for lab in sorted({key(m)[0] for m in models}):
    name = re.search(r"^machine" + (" " + lab if lab else "") + r": (.*), [0-9.]+ GHz", text, re.M)
    if len({key(m)[0] for m in models}) > 1:
        print(f"\n{lab or 'A'}: {name.group(1) if name else '?'}")
    print("| model | " + " | ".join(levels) + " | all |")
    print("|---|" + "---:|" * (len(levels) + 1))
    for m in [m for m in models if key(m)[0] == lab]:
        cells = []
        for lv in levels + [None]:
            e = [err(m, meas, p) for (k, l, mm, meas, p) in rows if mm == m and (lv is None or l == lv)]
            cells.append(f"{100 * sum(e) / len(e):.0f} % (n={len(e)})" if e else "-")
        print(f"| {m.rpartition(':')[2]} | " + " | ".join(cells) + " |")
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
done
