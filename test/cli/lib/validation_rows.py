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


def check_groups(out, runs, rows, row_limit, group_limit):
    """Each printed row within `row_limit` (a fraction) of its published step time, and each group's
    mean absolute percentage error, recomputed here, at most `group_limit` (per cent) and as the
    summary prints it. Returns the groups' names."""
    groups = {}
    for name, (group, predicted) in rows.items():
        err = predicted / runs[name]["published"]["step_time_s"] - 1
        groups.setdefault(group, []).append(abs(err))
        check(abs(err) <= row_limit, f"{name}: {100 * err:+.1f} % (within {100 * row_limit:.0f} %)")
    for group, errs in sorted(groups.items()):
        mape = 100 * sum(errs) / len(errs)
        printed = next((float(m.group(1)) for l in out if (m := re.match(rf"^{group}\s+MAPE\s+([\d.]+)%", l))), None)
        check(printed is not None and abs(printed - mape) < 0.15, f"{group}: printed MAPE {printed} % = {mape:.2f} % recomputed")
        check(mape <= group_limit, f"{group}: MAPE {mape:.1f} % (at most {group_limit:g} %)")
    return sorted(groups)
