#!/usr/bin/env bash
# perfmodel's in-core model and llvm-mca-19 on the same basic blocks.
#
#   bench/incore/run.sh BLOCKS.csv [CPU] [N|all]
#
# BLOCKS.csv: one block per line, `hex[,measured]`, e.g. BHive's
# benchmark/throughput/hsw.csv (measured = cycles per 100 iterations) from
# the public repository ithemal/bhive, or ../shared/bhive/*-dev500.csv. With
# measurements it prints MAPE, median error, the share within 10 % and
# Kendall's tau of both tools; without, their agreement. The blocks are split
# by a hash of their bytes into a development half and a report half; the
# table is computed on up to N (default 1000) blocks of the report half, or
# on every block of the file with `all` (the shared dev500 files are already
# a development sample). KEEP=FILE writes one row per block (hex, measured,
# perfmodel, llvm-mca, perfmodel's bottleneck, assembly) for error analysis.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
P="${BUILD_DIR:-$ROOT/build}/bin/perfmodel"
CSV="${1:?usage: run.sh BLOCKS.csv [CPU] [N]}"
CPU="${2:-haswell}"
N="${3:-1000}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
python3 - "$CSV" "$N" "$TMP/sample.csv" <<'PY'
import hashlib, sys
src, out = sys.argv[1], sys.argv[3]
n = -1 if sys.argv[2] == "all" else int(sys.argv[2])
rows = []
for line in open(src):
    line = line.strip()
    if not line or line.startswith("#"):
        continue
    hexs = line.split(",")[0].strip()
    if hexs == "hex":  # header row
        continue
    # Report half: the first bit of the block's hash is 1 (fixed, tool-independent).
    if n < 0 or hashlib.sha1(hexs.encode()).digest()[0] & 0x80:
        rows.append(line)
rows.sort(key=lambda l: hashlib.sha1(l.split(",")[0].encode()).hexdigest())
open(out, "w").write("\n".join(rows if n < 0 else rows[:n]) + "\n")
PY
START=$(date +%s.%N)
# BHive's blocks ran unrolled under its harness (PM_FLAGS= to cost them as loops).
"$P" incore --batch "$TMP/sample.csv" --mcpu "$CPU" ${PM_FLAGS---bhive} > "$TMP/pm.tsv"
PMTIME=$(python3 -c "import time; print(f'{time.time() - $START:.2f}')")
python3 - "$TMP" "$CPU" "$PMTIME" "${KEEP:-}" <<'PY'
import os, re, statistics, subprocess, sys, time
tmp, cpu, pmtime, keep = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
meas = {}
for line in open(os.path.join(tmp, "sample.csv")):
    parts = line.strip().split(",")
    if len(parts) > 1 and parts[1]:
        meas[parts[0]] = float(parts[1]) / 100.0  # BHive: cycles per 100 iterations
pm, asm, neck = {}, {}, {}
for line in open(os.path.join(tmp, "pm.tsv")):
    f = line.rstrip("\n").split("\t")
    if len(f) >= 5 and f[1] != "error":
        pm[f[0]] = float(f[1])
        asm[f[0]] = f[4]
        neck[f[0]] = f[3]
mca = {}
t0 = time.time()
for i, (h, text) in enumerate(asm.items()):
    s = os.path.join(tmp, f"b{i}.s")
    with open(s, "w") as fh:
        fh.write(".intel_syntax noprefix\n" + text.replace("; ", "\n") + "\n")
    r = subprocess.run(["llvm-mca-19", "-mcpu=" + cpu, "-iterations=100", s],
                       capture_output=True, text=True)
    m = re.search(r"Total Cycles:\s+(\d+)", r.stdout)
    if r.returncode == 0 and m:
        mca[h] = int(m.group(1)) / 100.0
mcatime = time.time() - t0
both = [h for h in pm if h in mca]

def tau(a, b):
    n, s = len(a), 0
    for i in range(n):
        for j in range(i + 1, n):
            d = (a[i] - a[j]) * (b[i] - b[j])
            s += (d > 0) - (d < 0)
    return 2 * s / (n * (n - 1)) if n > 1 else float("nan")

print(f"blocks: {len(both)} costed by both tools ({len(pm)} by perfmodel, {len(mca)} by llvm-mca-19), cpu {cpu}")
print(f"time: perfmodel {pmtime:.2f} s (one process), llvm-mca-19 {mcatime:.2f} s (one process per block)")
if meas:
    hs = [h for h in both if h in meas and meas[h] > 0]
    y = [meas[h] for h in hs]
    for name, src in (("perfmodel", pm), ("llvm-mca-19", mca)):
        p = [src[h] for h in hs]
        err = [abs(a - b) / b for a, b in zip(p, y)]
        mape = 100 * sum(err) / len(hs)
        within = 100 * sum(e <= 0.10 for e in err) / len(hs)
        print(f"{name:<12} MAPE {mape:6.2f} %  median {100 * statistics.median(err):5.2f} %  "
              f"within 10 % {within:5.1f} %  Kendall tau {tau(p, y):.3f}  (n = {len(hs)})")
    if keep:
        with open(keep, "w") as fh:
            for h in hs:
                fh.write(f"{h}\t{meas[h]:.4f}\t{pm[h]:.4f}\t{mca[h]:.4f}\t{neck[h]}\t{asm[h]}\n")
else:
    a = [pm[h] for h in both]
    b = [mca[h] for h in both]
    diff = 100 * sum(abs(x - y) / y for x, y in zip(a, b) if y > 0) / len(both)
    same = sum(abs(x - y) <= 0.05 * y for x, y in zip(a, b))
    print(f"no measurements in the file: agreement only")
    print(f"mean |perfmodel - llvm-mca| / llvm-mca: {diff:.1f} %; within 5 %: {same} of {len(both)}; Kendall tau between them {tau(a, b):.3f}")
PY
