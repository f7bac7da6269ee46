#!/usr/bin/env bash
# Re-runs every `$ perfmodel ...` example in README.md (from the repository
# root, with the built binary) and replaces the output under it, so the
# README shows what today's perfmodel prints. Review the diff before committing.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="${BUILD_DIR:-$ROOT/build}/bin"
cd "$ROOT"
python3 - "$BIN" <<'PY'
import subprocess, sys
bin_dir = sys.argv[1]
lines = open("README.md").read().split("\n")
out, i = [], 0
while i < len(lines):
    line = lines[i]
    out.append(line)
    i += 1
    if not line.startswith("$ perfmodel "):
        continue
    cmd = line[2:]
    while cmd.endswith("\\"):  # continuation lines belong to the command
        out.append(lines[i])
        cmd = cmd[:-1] + " " + lines[i].strip()
        i += 1
    old = []
    while i < len(lines) and lines[i] != "```":  # the old output
        old.append(lines[i])
        i += 1
    r = subprocess.run(cmd.replace("perfmodel ", bin_dir + "/perfmodel ", 1), shell=True,
                       capture_output=True, text=True)
    new = (r.stdout + r.stderr).rstrip("\n").split("\n")
    if old and old[0] == "...":
        # An excerpt: from its first line to the line that starts like its
        # last one (the first three words).
        first, last = old[1], " ".join(old[-1].split()[:3])
        try:
            a = new.index(first)
            b = next(k for k in range(a, len(new)) if " ".join(new[k].split()[:3]) == last)
            new = ["..."] + new[a:b + 1]
        except (ValueError, StopIteration):
            print(f"README: excerpt of `{cmd}` not found; left as it was", file=sys.stderr)
            new = old
    out.extend(new)
open("README.md", "w").write("\n".join(out))
PY
