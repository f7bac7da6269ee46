#!/usr/bin/env bash
# perfmodel's cache simulator vs valgrind's cachegrind on the same kernels,
# same geometry (L1 32 KiB 8-way, LL 2 MiB 16-way, 64 B lines, LRU, no
# prefetch). Prints demand misses of each level side by side.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/bench/cache"
P="${BUILD_DIR:-$ROOT/build}/bin/perfmodel"
command -v valgrind >/dev/null || { echo "needs valgrind"; exit 1; }
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
clang-19 -O1 -fno-unroll-loops -fno-vectorize -fno-slp-vectorize -g \
  "$HERE/kernels.c" -o "$TMP/kernels"
python3 - "$TMP/idx.txt" <<'PY'
import random, sys
random.seed(7)
with open(sys.argv[1], "w") as f:
    f.write("\n".join(str(random.randrange(4_000_000)) for _ in range(1_000_000)))
PY

# kernel  function  size-args-for-the-binary  perfmodel -D flags  extra
CASES=(
  "triad|triad|4000000|-D n=4000000|"
  "stencil|stencil|1500|-D n=1500|"
  "matmul-ijk|matmul|200|-D n=200|"
  "gather|gather|1000000 $TMP/idx.txt|-D n=1000000|--index idx=$TMP/idx.txt"
)
"$P" analyze "$HERE/kernels.c" -m "$HERE/geometry.yml" --cache sim \
  --sim-accesses 1000000000 --format json -D n=1 >/dev/null # fail early

printf "%-12s %14s %14s %8s %14s %14s %8s\n" kernel "L1 cachegrind" "L1 perfmodel" "diff" \
  "LL cachegrind" "LL perfmodel" "diff"
for c in "${CASES[@]}"; do
  IFS='|' read -r name fn args defs extra <<< "$c"
  # shellcheck disable=SC2086
  valgrind --tool=cachegrind --cache-sim=yes --I1=32768,8,64 --D1=32768,8,64 \
    --LL=2097152,16,64 --cachegrind-out-file="$TMP/cg.$name" \
    "$TMP/kernels" "$fn" $args >/dev/null 2>&1
  # shellcheck disable=SC2086
  "$P" analyze "$HERE/kernels.c" -m "$HERE/geometry.yml" --cache sim \
    --sim-accesses 1000000000 --format json $defs $extra > "$TMP/pm.$name.json"
  python3 - "$TMP/cg.$name" "$TMP/pm.$name.json" "$fn" "$name" <<'PY'
import json, re, subprocess, sys
cg_file, pm_file, fn, name = sys.argv[1:]
out = subprocess.run(["cg_annotate", cg_file], capture_output=True, text=True).stdout
cols = None
for line in out.splitlines():
    if line.startswith("Ir ") and "file:function" in line:
        cols = line.split()[:-1]
    if cols and line.rstrip().endswith(":" + fn):
        vals = [int(v.replace(",", "")) for v in re.sub(r"\([^)]*\)", "", line).split()[:-1]]
        row = dict(zip(cols, vals))
        break
else:
    sys.exit(f"{name}: no cachegrind line for {fn}")
cg_l1 = row["D1mr"] + row["D1mw"]
cg_ll = row["DLmr"] + row["DLmw"]
pm = json.load(open(pm_file))
loop = next(l for l in pm["loops"] if l["function"] == fn)
sim = loop["traffic"]["simulator"]
if not sim["ok"]:
    sys.exit(f"{name}: perfmodel simulator: {sim['reason']}")
its = sim["simulated_iterations"]
pm_l1 = round(sim["links"][0]["misses_per_it"] * its)
pm_ll = round(sim["links"][1]["misses_per_it"] * its)
d = lambda a, b: f"{100.0 * (b - a) / a:+.2f}%" if a else "n/a"
print(f"{name:<12} {cg_l1:>14,} {pm_l1:>14,} {d(cg_l1, pm_l1):>8} {cg_ll:>14,} {pm_ll:>14,} {d(cg_ll, pm_ll):>8}")
PY
done
