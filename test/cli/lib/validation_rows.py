"""The rows `trainsim validate` prints, for the validation tests (validation.sh,
validation_tpu_v4.sh): each checked against the table's own published step time."""
import json
import re


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)


def read(out_path, table_path):
    """(printed lines, {name: run} of the table, {name: (group, predicted step s)} as printed)."""
    out = open(out_path).read().splitlines()
    runs = {r["name"]: r for r in json.load(open(table_path))["runs"]}
    rows = {}
    for line in out:
        m = re.match(r"^(\S+)\s+(\S+)\s+([\d.]+)s\s+([\d.]+)s\s", line)
        if m and m.group(1) in runs:
            rows[m.group(1)] = (m.group(2), float(m.group(4)))
    return out, runs, rows
