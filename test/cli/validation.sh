#!/usr/bin/env bash
# The published A100 table (../shared/validation/published-a100.json: Narayanan et al. 2021
# Table 1, Korthikanti et al. 2022 Table 5) through `trainsim validate`, checked against the
# issue's criteria, so that they stay met: every one of the 18 rows within 20 % of its published
# step time, and each group's mean absolute percentage error at most 10 %. The errors are
# recomputed here from the printed rows (not taken from trainsim's own summary), and the summary
# must agree with them.
#
# Usage: bash validation.sh TRAINSIM REPO
set -u

trainsim=${1:?usage: validation.sh TRAINSIM REPO}
repo=${2:?usage: validation.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"
table="$repo/../shared/validation/published-a100.json"

source "$(dirname "$0")/lib/validation.bash"
validate_and_check "$table" <<'PY'
import re, sys
from validation_rows import check, read
out, runs, rows = read(sys.argv[1], sys.argv[2])
published = {name: r["published"]["step_time_s"] for name, r in runs.items()}
check(len(rows) == len(published) == 18, f"all 18 rows printed ({len(rows)})")
groups = {}
for name, (group, predicted) in rows.items():
    err = predicted / published[name] - 1
    groups.setdefault(group, []).append(abs(err))
    check(abs(err) <= 0.20, f"{name}: {100 * err:+.1f} % (within 20 %)")
for group, errs in sorted(groups.items()):
    mape = 100 * sum(errs) / len(errs)
    printed = next((float(m.group(1)) for l in out if (m := re.match(rf"^{group}\s+MAPE\s+([\d.]+)%", l))), None)
    check(printed is not None and abs(printed - mape) < 0.15, f"{group}: printed MAPE {printed} % = {mape:.2f} % recomputed")
    check(mape <= 10.0, f"{group}: MAPE {mape:.1f} % (at most 10 %)")
check(sorted(groups) == ["korthikanti-2022-table5", "narayanan-2021-table1"], f"both groups present ({sorted(groups)})")
PY

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
