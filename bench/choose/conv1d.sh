#!/usr/bin/env bash
# perfmodel choose on the PPR paper's 1D convolution variants
# (examples/ppr-conv1d/conv1d_variants.c: scalar, SSE, AVX unaligned, AVX
# aligned), length 2^10 .. 2^24: the predicted fastest variant per length
# and the crossover lengths against timed runs on this host (choose
# --measure: validate's harness, medians), as a Markdown table; then the
# predicted crossovers on the paper's Haswell-EP model (no timing there).
#   bench/choose/conv1d.sh [MACHINE]   (default: the host's model)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
P="${BUILD_DIR:-$ROOT/build}/bin/perfmodel"
cd "$ROOT"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
MFLAG=()
[ -n "${1:-}" ] && MFLAG=(-m "$1")
V=(--variant conv1d_scalar --variant conv1d_sse --variant conv1d_avx_unaligned
   --variant conv1d_avx_aligned)
F=examples/ppr-conv1d/conv1d_variants.c
"$P" choose "$F" "${V[@]}" "${MFLAG[@]}" -D length=1024:16777216:x2 --measure --reps 7 \
  --format json -o "$TMP/host.json" -- -O3 -march=native
for basis in compiled source; do
  "$P" choose "$F" "${V[@]}" -m hsw --incore $basis -D length=256:16777216:x2 \
    --format json -o "$TMP/hsw-$basis.json" -- -O3 -mavx2 -mfma
done
python3 - "$TMP" <<'PY'
import json, os, sys
tmp = sys.argv[1]
d = json.load(open(os.path.join(tmp, "host.json")))
names = d["variants"]
short = {n: n.replace("conv1d_", "") for n in names}
def us(s):
    return f"{s*1e6:.3g}" if s < 1e-3 else f"{s*1e6:.0f}"
print(f"Machine model: {d['machine']} ({os.path.basename(d['machine_file'])}), {d['clock_ghz']} GHz; ranked by {d['model']}.\n")
print("| length | " + " | ".join(f"{short[n]} pred / meas (us)" for n in names) +
      " | predicted fastest | measured fastest | speed of predicted vs measured best |")
print("|---:|" + "---:|" * len(names) + "---|---|---:|")
speeds, errs = [], {n: [] for n in names}
for p in d["points"]:
    cells = []
    for v in p["variants"]:
        pr, me = v.get("seconds"), v.get("measured_seconds")
        cells.append(f"{us(pr)} / {us(me)}" if pr and me else "-")
        if pr and me:
            errs[v["variant"]].append(abs(pr - me) / me)
    pf, mf = p.get("fastest"), p.get("measured_fastest")
    meas = {v["variant"]: v.get("measured_seconds") for v in p["variants"]}
    sp = meas[mf] / meas[pf] if pf and mf and meas.get(pf) else None
    if sp is not None:
        speeds.append(sp)
    print(f"| {p['value']} | " + " | ".join(cells) +
          f" | {short.get(pf, '-')} | {short.get(mf, '-')} | " +
          (f"{100*sp:.1f} %" if sp is not None else "-") + " |")
def cross(xs):
    return "; ".join(f"{short[x['from']]} -> {short[x['to']]} between {x['last']} and {x['first']}"
                     for x in xs) or "none"
print(f"\nMean speed of the predicted variant vs the measured fastest: {100*sum(speeds)/len(speeds):.1f} % "
      f"over {len(speeds)} lengths; predicted = measured fastest at "
      f"{sum(1 for s in speeds if s >= 0.9999)} of {len(speeds)}.")
print("Predicted crossovers: " + cross(d["crossovers"]))
print("Measured crossovers (between lengths timed): " + cross(d.get("measured_crossovers", [])))
print("MAPE of the predicted time per call, per variant: " +
      ", ".join(f"{short[n]} {100*sum(e)/len(e):.0f} %" for n, e in errs.items() if e))
for basis in ("compiled", "source"):
    h = json.load(open(os.path.join(tmp, f"hsw-{basis}.json")))
    print(f"Haswell-EP model, --incore {basis}: predicted crossovers: " + cross(h["crossovers"]))
PY
