#!/usr/bin/env bash
# Regenerates the model table of docs/machine-models.md from machine-models/
# (`perfmodel machine list --format markdown`); the machine tests fail when
# the table and the files disagree.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
P="${BUILD_DIR:-$ROOT/build}/bin/perfmodel"
DOC="$ROOT/docs/machine-models.md"
TABLE="$(PERFMODEL_MACHINE_PATH="$ROOT/machine-models" "$P" machine list --format markdown)"
python3 - "$DOC" "$TABLE" <<'PY'
import sys
doc, table = sys.argv[1], sys.argv[2]
text = open(doc).read()
b, e = "<!-- machine-list:begin -->\n", "<!-- machine-list:end -->"
i, j = text.index(b) + len(b), text.index(e)
open(doc, "w").write(text[:i] + table + "\n" + text[j:])
PY
echo "updated $DOC"
