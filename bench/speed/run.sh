#!/usr/bin/env bash
# What `perfmodel analyze` and the Clang plugin cost beside the compile they
# stand next to (issue 48), on one core, side by side with hyperfine:
#   1. a generated C file of 2,000+ lines (bench/frontend/gen_kernels.py);
#   2. a public loop suite's main file: TSVC_2's tsvc.c (give the checkout of
#      github.com/UoB-HPC/TSVC_2 as the argument; it is not part of this
#      repository).
# For each file: clang-19 -O3 -march=native -c, then perfmodel analyze with
# the same flags (text and JSON reports), then the plugin's build against the
# plain build (-Rpass-analysis=perfmodel on both); the ratios; and where
# analyze's time goes (--stage-times, one run).
#
#   bench/speed/run.sh [TSVC_2_DIR]      RUNS=5 by default
#
# PAIRED=N adds N interleaved rounds per file (each round runs the five
# commands once, in turn) and prints the median over the rounds of each
# round's ratios: on a VM whose speed moves within minutes, hyperfine's
# medians of consecutive runs of one command can differ by more than the
# ratio being measured; a round's commands see the same moment. With the
# median go its quartiles over the rounds, and the ratio of each command's
# fastest run (noise on a shared VM only adds time, so the fastest runs are
# the least disturbed).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
B="${BUILD_DIR:-$ROOT/build}"
P="$B/bin/perfmodel"
PLUGIN="$B/lib/perfmodel-plugin.so"
RUNS="${RUNS:-5}"
command -v hyperfine >/dev/null || { echo "needs hyperfine (apt-get install hyperfine)"; exit 1; }
[ -x "$P" ] && [ -f "$PLUGIN" ] || { echo "build perfmodel first (scripts/build.sh)"; exit 1; }
export PERFMODEL_MACHINE_PATH="$ROOT/machine-models"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
# One core: the tool is single-threaded, and so is the compile it is set against.
ONE=(taskset -c 0)
command -v taskset >/dev/null || ONE=()

FILES=()
python3 "$ROOT/bench/frontend/gen_kernels.py" 2000 > "$TMP/generated.c"
FILES+=("$TMP/generated.c")
if [ $# -ge 1 ]; then
  T="$(cd "$1" && pwd)/src"
  [ -f "$T/tsvc.c" ] || { echo "no src/tsvc.c under $1"; exit 1; }
  FILES+=("$T/tsvc.c")
fi
echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; runs: $RUNS"

for F in "${FILES[@]}"; do
  D="$(dirname "$F")"
  FLAGS=(-O3 -march=native -I"$D")
  echo
  echo "== $(basename "$F"): $(wc -l < "$F") lines"
  "${ONE[@]}" "$P" analyze "$F" --format json -o "$TMP/a.json" --stage-times -- "${FLAGS[@]}" 2> "$TMP/stages.txt"
  echo "loops: $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(len(d['loops']), 'of which modelled', sum(1 for l in d['loops'] if l['modelled']))" "$TMP/a.json")"
  hyperfine -N --warmup 1 --runs "$RUNS" --export-json "$TMP/h.json" \
    "${ONE[*]} clang-19 ${FLAGS[*]} -c $F -o $TMP/k.o" \
    "${ONE[*]} $P analyze $F -o /dev/null -- ${FLAGS[*]}" \
    "${ONE[*]} $P analyze $F --format json -o /dev/null -- ${FLAGS[*]}" \
    "${ONE[*]} clang-19 -Rpass-analysis=perfmodel ${FLAGS[*]} -c $F -o $TMP/plain.o" \
    "${ONE[*]} clang-19 -fplugin=$PLUGIN -Rpass-analysis=perfmodel ${FLAGS[*]} -c $F -o $TMP/plugin.o" \
    >/dev/null 2>&1
  "${ONE[@]}" clang-19 -fplugin="$PLUGIN" -Rpass-analysis=perfmodel "${FLAGS[@]}" -c "$F" -o "$TMP/plugin.o" 2> "$TMP/remarks.txt"
  cmp -s "$TMP/plain.o" "$TMP/plugin.o" && SAME="identical" || SAME="DIFFERENT"
  python3 - "$TMP/h.json" "$TMP/remarks.txt" "$SAME" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
names = ["clang-19 -O3 -c", "perfmodel analyze (text)", "perfmodel analyze --format json",
         "clang-19 -c, -Rpass-analysis", "clang-19 -c with the plugin"]
print(f"{'command':<34}{'median s':>10}{'stddev':>9}")
for name, x in zip(names, r):
    print(f"{name:<34}{x['median']:>10.3f}{x['stddev']:>9.3f}")
m = [x["median"] for x in r]
remarks = sum(1 for l in open(sys.argv[2]) if "remark: perfmodel:" in l)
print(f"ratio analyze / compile:        {m[1] / m[0]:.2f} (text), {m[2] / m[0]:.2f} (json)")
print(f"ratio plugin build / plain:     {m[4] / m[3]:.3f} ({remarks} remarks; objects {sys.argv[3]})")
PY
  sed 's/^/  /' "$TMP/stages.txt"
  if [ "${PAIRED:-0}" -gt 0 ]; then
    CMDS=("clang-19 ${FLAGS[*]} -c $F -o $TMP/k.o"
          "$P analyze $F -o /dev/null -- ${FLAGS[*]}"
          "$P analyze $F --format json -o /dev/null -- ${FLAGS[*]}"
          "clang-19 -Rpass-analysis=perfmodel ${FLAGS[*]} -c $F -o $TMP/plain.o"
          "clang-19 -fplugin=$PLUGIN -Rpass-analysis=perfmodel ${FLAGS[*]} -c $F -o $TMP/plugin.o")
    : > "$TMP/rounds.txt"
    for _ in $(seq "$PAIRED"); do
      LINE=""
      for C in "${CMDS[@]}"; do
        T0=$(date +%s%N)
        # shellcheck disable=SC2086
        "${ONE[@]}" $C >/dev/null 2>&1
        LINE="$LINE $(( $(date +%s%N) - T0 ))"
      done
      echo "$LINE" >> "$TMP/rounds.txt"
    done
    python3 - "$TMP/rounds.txt" <<'PY'
import statistics as st, sys
rows = [[float(x) / 1e9 for x in l.split()] for l in open(sys.argv[1]) if l.strip()]
def spread(a, b):
    # The median of the rounds' ratios with its interquartile range, and the
    # ratio of the two commands' fastest runs (the least disturbed of each:
    # on a shared VM, noise only ever adds time).
    r = sorted(x[a] / x[b] for x in rows)
    q = st.quantiles(r, n=4) if len(r) >= 2 else [r[0]] * 3
    best = min(x[a] for x in rows) / min(x[b] for x in rows)
    return f"{st.median(r):.3f} [{q[0]:.3f}, {q[2]:.3f}], fastest {best:.3f}"
print(f"  paired, {len(rows)} rounds: compile median {st.median(x[0] for x in rows):.3f} s, "
      f"fastest {min(x[0] for x in rows):.3f} s")
print(f"    analyze (text) / compile:  {spread(1, 0)}")
print(f"    analyze (json) / compile:  {spread(2, 0)}")
print(f"    plugin / plain build:      {spread(4, 3)}")
print("    (median of the rounds' ratios [quartiles], and the ratio of the fastest runs)")
PY
  fi
done
