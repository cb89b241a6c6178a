#!/usr/bin/env bash
# The published GPU tables through `trainsim validate`, checked against their issues' criteria so
# that they stay met. The A100 table (validation/published-a100.json: Narayanan et al.
# 2021 Table 1, Korthikanti et al. 2022 Table 5): every one of the 18 rows within 20 % of its
# published step time, and each group's mean absolute percentage error at most 10 %. The H100 /
# H200 / B200 table (validation/published-h100.json: llm-foundry, NVIDIA's DGX Cloud
# NeMo 25.02 recipes, torchtitan, NeMo 25.02 on B200): every one of the 40 rows
# simulates, every row within 25 %, each group at most 10 %, and the peak memory per GPU within
# 15 % of each of the nine published figures (extra.published_peak_memory_gib). The errors are
# recomputed here from the printed rows and the tables (not taken from trainsim's own summary),
# and the summary must agree with them. Every row's scenario, given to `trainsim run`, prints the
# step time `validate` printed for it (run_matches_validate.bash).
#
# Usage: bash validation.sh TRAINSIM REPO
set -u

trainsim=${1:?usage: validation.sh TRAINSIM REPO}
repo=${2:?usage: validation.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"
table="$repo/validation/published-a100.json"

source "$(dirname "$0")/lib/validation.bash"
source "$(dirname "$0")/lib/run_matches_validate.bash"
validate_and_check "$table" <<'PY'
import sys
from validation_rows import check, check_groups, read
out, runs, rows = read(sys.argv[1], sys.argv[2])
check(len(rows) == len(runs) == 18, f"all 18 rows printed ({len(rows)})")
groups = check_groups(out, runs, rows, row_limit=0.20, group_limit=10.0)
check(groups == ["korthikanti-2022-table5", "narayanan-2021-table1"], f"both groups present ({groups})")
PY
run_matches_validate "$table" "$work/out"
validate_and_check "$repo/validation/published-h100.json" <<'PY'
import re, sys
from validation_rows import check, check_groups, read
out, runs, rows = read(sys.argv[1], sys.argv[2])
check(len(rows) == len(runs) == 40, f"all 40 rows simulated ({len(rows)})")
check(not any(" failed:" in l or l.startswith("failed") for l in out), "no row failed")
check_groups(out, runs, rows, row_limit=0.25, group_limit=10.0)
# Peak memory: the reserved figure each row prints against the source's, for the rows that publish one.
memory = {r["name"]: r["extra"]["published_peak_memory_gib"] for r in runs.values()
          if "published_peak_memory_gib" in r.get("extra", {})}
check(len(memory) == 9, f"nine rows publish their peak memory ({len(memory)})")
for name, gib in sorted(memory.items()):
    line = next((l for l in out if l.startswith(name + " ")), "")
    m = re.search(r"peak memory ([\d.]+) GiB reserved", line)
    err = float(m.group(1)) / gib - 1 if m else float("inf")
    check(abs(err) <= 0.15, f"{name}: peak memory {m.group(1) if m else '?'} GiB against {gib} ({100 * err:+.1f} %, within 15 %)")
PY
run_matches_validate "$repo/validation/published-h100.json" "$work/out"

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
