#!/usr/bin/env bash
# perfmodel choose bcsr against timed BCSR SpMV on this host: for each matrix
# of gen_matrices.py, every block size up to 8x8 is timed (spmv_bcsr.c, the
# kernels choose models, clang-19 -O3 -march=native), and the predicted best
# block is compared with the measured best. Prints a Markdown table.
#   bench/choose/run.sh [MACHINE]   (default: the host's model)
# MATRICES=DIR reuses generated matrices; MODELS="ecm ppr roofline" adds a
# column per model (the headline rule is always reported); CHOOSE_ARGS="..."
# passes options to every choose; SCALE=mem generates the memory-sized
# matrices (gen_matrices.py --scale mem; about 1.5 GB of .mtx); KEEP=DIR
# keeps the timings and predictions in DIR. L3=stream first measures the L3 one core's
# read streams find on this host (l3stream.c: on a VM far less than CPUID
# says, and it moves with the neighbours) and predicts with that L3 size:
# the machine as it is while the kernels are timed.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
P="${BUILD_DIR:-$ROOT/build}/bin/perfmodel"
MACHINE="${1:-}"
if [ -n "${KEEP:-}" ]; then  # KEEP=DIR keeps the timings and predictions there
  TMP="$KEEP"; mkdir -p "$TMP"
else
  TMP="$(mktemp -d)"; trap 'rm -rf "$TMP"' EXIT
fi
MTX="${MATRICES:-$TMP/mtx}"
[ -d "$MTX" ] || python3 "$ROOT/bench/choose/gen_matrices.py" "$MTX" --scale "${SCALE:-l3}"
MFLAG=()
read -r -a EXTRA <<< "${CHOOSE_ARGS:-}"
if [ "${L3:-}" = stream ]; then
  clang-19 -O3 -march=native "$ROOT/bench/choose/l3stream.c" -o "$TMP/l3stream"
  kept="$("$TMP/l3stream" 2> "$TMP/l3stream.log")"
  EXTRA+=(--set "caches.L3.size=${kept}KiB")
  echo "L3 one core's read streams find on this host: ${kept} KiB (bench/choose/l3stream.c)"
fi
[ -n "$MACHINE" ] && MFLAG=(-m "$MACHINE")

# The kernels exactly as modelled, and a table of them.
"$P" choose bcsr --emit-kernels "$TMP/kernels.c"
{
  echo "typedef void (*Kernel)(int, const int *, const int *, const double *,"
  echo "                       const double *, double *);"
  echo "#define MAXR 8"
  echo "#define MAXC 8"
  for r in 1 2 3 4 5 6 7 8; do for c in 1 2 3 4 5 6 7 8; do
    echo "void bcsr_${r}x${c}(int, const int *, const int *, const double *, const double *, double *);"
  done; done
  echo "static const Kernel KERNELS[8][8] = {"
  for r in 1 2 3 4 5 6 7 8; do
    printf "  {"
    for c in 1 2 3 4 5 6 7 8; do printf "bcsr_%dx%d, " "$r" "$c"; done
    echo "},"
  done
  echo "};"
} > "$TMP/kernels_table.h"
clang-19 -O3 -march=native -c "$TMP/kernels.c" -o "$TMP/kernels.o"
clang-19 -O2 -I"$TMP" "$ROOT/bench/choose/spmv_bcsr.c" "$TMP/kernels.o" -o "$TMP/spmv_bcsr"

echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) CPUs"
for f in "$MTX"/*.mtx; do
  name="$(basename "$f" .mtx)"
  "$TMP/spmv_bcsr" "$f" > "$TMP/$name.measured"
  "$P" choose bcsr "$f" "${MFLAG[@]}" "${EXTRA[@]}" --format json > "$TMP/$name.json"
  for m in ${MODELS:-}; do
    "$P" choose bcsr "$f" "${MFLAG[@]}" "${EXTRA[@]}" --model "$m" --format json > "$TMP/$name.$m.json"
  done
done
python3 - "$TMP" ${MODELS:-} <<'PY'
import glob, json, os, sys
tmp, models = sys.argv[1], sys.argv[2:]
print("| matrix | nonzeros | machine | predicted best | measured best | speed of predicted vs measured best | measured CSR / best | predicted speed-up over CSR | measured speed-up of predicted over CSR | choose time (s) | = SpMVs | timing 64 candidates (SpMVs) |"
      + "".join(f" {m} pick (speed vs best) |" for m in models))
print("|---|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|" + "---|" * len(models))
ratios, mratio = [], {m: [] for m in models}
for path in sorted(glob.glob(os.path.join(tmp, "*.measured"))):
    name = os.path.basename(path)[:-len(".measured")]
    meas = {}
    for line in open(path):
        r, c, nb, fill, s = line.split()
        meas[(int(r), int(c))] = float(s)
    best = min(meas, key=meas.get)
    d = json.load(open(os.path.join(tmp, name + ".json")))
    pick = (d["chosen"]["r"], d["chosen"]["c"])
    ratio = meas[best] / meas[pick]
    ratios.append(ratio)
    row = (f"| {name} | {d['nonzeros']} | {d['machine']} | {pick[0]}x{pick[1]} | {best[0]}x{best[1]} "
           f"| {100 * ratio:.0f} % | {meas[(1, 1)] / meas[best]:.2f} | {d['speedup_over_csr']:.2f} "
           f"| {meas[(1, 1)] / meas[pick]:.2f} | {d['analysis_seconds']:.2f} "
           f"| {d['analysis_seconds'] / meas[best]:.0f} | {sum(meas.values()) / meas[best]:.0f} |")
    for m in models:
        dm = json.load(open(os.path.join(tmp, f"{name}.{m}.json")))
        pm = (dm["chosen"]["r"], dm["chosen"]["c"])
        mratio[m].append(meas[best] / meas[pm])
        row += f" {pm[0]}x{pm[1]} ({100 * meas[best] / meas[pm]:.0f} %) |"
    print(row)
print()
print(f"mean speed of the predicted block relative to the measured best: {100 * sum(ratios) / len(ratios):.1f} % "
      f"over {len(ratios)} matrices; predicted = measured best for {sum(r >= 0.9999 for r in ratios)}")
for m in models:
    print(f"  ranking by {m} alone: {100 * sum(mratio[m]) / len(mratio[m]):.1f} %")
PY
