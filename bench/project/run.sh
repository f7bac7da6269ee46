#!/usr/bin/env bash
# `perfmodel analyze -p` on a real project nobody here wrote: PolyBench/C
# 4.2.1 (a public repository; give its checkout as the argument, it is not
# part of this repository).
#
#   bench/project/run.sh POLYBENCH_DIR
#
# Writes a compilation database for PolyBench's 30 kernels and its timing
# utility (clang-19 -O2 -DPOLYBENCH_TIME, as its own build), then times side
# by side with hyperfine: analysing the project at -j 1 and -j 2, and
# compiling the same files with clang-19 at one and two at once. Also checks
# that -j 1 and -j 2 print the same report and counts loops and failures.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
B="${BUILD_DIR:-$ROOT/build}"
PB="$(cd "${1:?usage: run.sh POLYBENCH_DIR}" && pwd)"
P="$B/bin/perfmodel"
M="${MACHINE:-hsw}"
export PERFMODEL_MACHINE_PATH="$ROOT/machine-models"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
mapfile -t FILES < <(grep -v '^\s*$' "$PB/utilities/benchmark_list"; echo ./utilities/polybench.c)
python3 - "$PB" "$TMP" "${FILES[@]}" <<'PY'
import json, os, sys
pb, tmp, files = sys.argv[1], sys.argv[2], sys.argv[3:]
db = []
for f in files:
    d = os.path.dirname(os.path.normpath(f))
    args = ["clang-19", "-O2", f"-I{pb}/utilities", f"-I{pb}/{d}", "-DPOLYBENCH_TIME",
            "-c", os.path.normpath(f), "-o", f"{tmp}/{os.path.basename(f)}.o"]
    db.append({"directory": pb, "file": os.path.join(pb, os.path.normpath(f)), "arguments": args})
json.dump(db, open(f"{tmp}/compile_commands.json", "w"), indent=1)
with open(f"{tmp}/build.txt", "w") as out:
    for e in db:
        out.write("cd " + e["directory"] + " && " + " ".join(e["arguments"]) + "\n")
PY
echo "project: PolyBench/C at $PB, ${#FILES[@]} files; machine $M; host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) CPUs"

set +e
"$P" analyze -p "$TMP" -m "$M" -j 1 > "$TMP/j1.txt" 2>/dev/null; RC1=$?
"$P" analyze -p "$TMP" -m "$M" -j 2 > "$TMP/j2.txt" 2>/dev/null; RC2=$?
"$P" analyze -p "$TMP" -m "$M" -j 2 --format json > "$TMP/p.json" 2>/dev/null
set -e
if cmp -s "$TMP/j1.txt" "$TMP/j2.txt"; then echo "-j 1 and -j 2: identical reports (exit $RC1, $RC2)"; else echo "-j 1 and -j 2 DIFFER"; fi
python3 - "$TMP/p.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["summary"]
loops = sum(len(f.get("report", {}).get("loops", [])) for f in d["files"])
print(f"files: {s['files']}, failed: {s['failed']}; loops found: {loops}, with a headline: {s['loops']}")
for f in d["files"]:
    if f["status"] != "ok":
        print(f"  {f['status']}: {f['file']}: {f['error'][:120]}")
for l in s["by_time"][:5]:
    print(f"  {l['share']*100:5.1f} %  {l['location']}  {l['function']}  {l['model']} {l['data_level']}: {l['bottleneck']}")
PY

hyperfine --warmup 1 --runs "${RUNS:-3}" --export-json "$TMP/h.json" \
  "$P analyze -p $TMP -m $M -j 1 > /dev/null 2>&1 || true" \
  "$P analyze -p $TMP -m $M -j 2 > /dev/null 2>&1 || true" \
  "bash $TMP/build.txt" \
  "xargs -P 2 -I{} sh -c '{}' < $TMP/build.txt" >/dev/null
python3 - "$TMP/h.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
names = ["analyze -p, -j 1", "analyze -p, -j 2", "clang-19 -O2 -c, one at a time", "clang-19 -O2 -c, two at once"]
print(f"{'command':<32}{'median s':>10}{'stddev':>9}")
for n, x in zip(names, r):
    print(f"{n:<32}{x['median']:>10.2f}{x['stddev']:>9.2f}")
m = [x["median"] for x in r]
print(f"-j 1 / -j 2: {m[0]/m[1]:.2f}x; analyze -j 1 / build: {m[0]/m[2]:.1f}x; analyze -j 2 / build two at once: {m[1]/m[3]:.1f}x")
PY
