"""Validates SARIF logs against tests/sarif/sarif-2.1.0-subset.schema.json.

Usage: validate.py SCHEMA LOG...  Exit 0 when every log is valid, 1 with the
first error of each invalid log on standard output. Uses Debian's
python3-jsonschema (Draft 7, with its format checker).
"""
import json
import sys

import jsonschema

schema = json.load(open(sys.argv[1]))
validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())
bad = 0
for path in sys.argv[2:]:
    errors = sorted(validator.iter_errors(json.load(open(path))), key=lambda e: list(e.path))
    if errors:
        bad += 1
        e = errors[0]
        print(f"{path}: {'/'.join(map(str, e.path))}: {e.message}")
    else:
        print(f"{path}: valid")
sys.exit(1 if bad else 0)
