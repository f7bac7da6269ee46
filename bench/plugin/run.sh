#!/usr/bin/env bash
# The Clang plugin on a real multi-file C project nobody here wrote:
# PolyBench/C 4.2.1 (a public repository; give its checkout as the argument,
# it is not part of this repository).
#
#   bench/plugin/run.sh POLYBENCH_DIR
#
# Builds every kernel and utilities/polybench.c with clang-19 -O2 -c, without
# and with the plugin (same flags otherwise), checks the objects are
# identical, times both builds side by side with hyperfine, and counts the
# loops modelled and not modelled with the most common reasons.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
B="${BUILD_DIR:-$ROOT/build}"
PB="$(cd "${1:?usage: run.sh POLYBENCH_DIR}" && pwd)"
PLUGIN="$B/lib/perfmodel-plugin.so"
export PERFMODEL_MACHINE_PATH="$ROOT/machine-models"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
# The kernels PolyBench's own build compiles, and its timing utility.
mapfile -t FILES < <(grep -v '^\s*$' "$PB/utilities/benchmark_list"; echo ./utilities/polybench.c)
echo "project: PolyBench/C at $PB, ${#FILES[@]} files"

# One build script per mode, so hyperfine times whole builds.
for MODE in plain plugin; do
  {
    echo "set -e"
    for F in "${FILES[@]}"; do
      D="$(dirname "$F")"
      FLAGS="-O2 -I$PB/utilities -I$PB/$D -DPOLYBENCH_TIME"
      OUT="$TMP/$MODE/$(echo "$F" | tr '/.' '__').o"
      if [ "$MODE" = plugin ]; then
        echo "clang-19 -fplugin=$PLUGIN -fplugin-arg-perfmodel-machine=hsw -Rpass-analysis=perfmodel $FLAGS -c $PB/$F -o $OUT 2>>$TMP/remarks.txt"
      else
        echo "clang-19 -Rpass-analysis=perfmodel $FLAGS -c $PB/$F -o $OUT 2>/dev/null"
      fi
    done
  } > "$TMP/build-$MODE.sh"
  mkdir -p "$TMP/$MODE"
done

bash "$TMP/build-plain.sh"
bash "$TMP/build-plugin.sh"
SAME=0; DIFF=0
for O in "$TMP"/plain/*.o; do
  if cmp -s "$O" "$TMP/plugin/$(basename "$O")"; then SAME=$((SAME+1)); else DIFF=$((DIFF+1)); echo "differs: $(basename "$O")"; fi
done
echo "objects: $SAME identical, $DIFF different"

python3 - "$TMP/remarks.txt" <<'PY'
import collections, re, sys
modelled, reasons = 0, collections.Counter()
for line in open(sys.argv[1]):
    if "remark: perfmodel:" not in line:
        continue
    m = re.search(r"not modelled: (.*?) \[-Rpass", line)
    if m:
        r = re.sub(r"line \d+", "line N", m.group(1))
        reasons[r] += 1
    elif "flop/it" in line:
        modelled += 1
total = modelled + sum(reasons.values())
print(f"loops: {total} innermost, {modelled} modelled, {total - modelled} not modelled")
for r, n in reasons.most_common(6):
    print(f"  {n:4d}  {r}")
PY

rm -rf "$TMP"/plain/*.o "$TMP"/plugin/*.o "$TMP/remarks.txt"
hyperfine --warmup 1 --runs "${RUNS:-5}" --export-json "$TMP/h.json" \
  "bash $TMP/build-plain.sh" "bash $TMP/build-plugin.sh" >/dev/null
python3 - "$TMP/h.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
print(f"{'build':<16}{'median s':>10}{'stddev':>9}")
for name, x in zip(("without plugin", "with plugin"), r):
    print(f"{name:<16}{x['median']:>10.2f}{x['stddev']:>9.2f}")
print(f"overhead: {100 * (r[1]['median'] / r[0]['median'] - 1):+.1f} %")
PY
