#!/usr/bin/env bash
# The mixture-of-experts table (validation/published-moe.json: DeepSeek-V3's own run, Megatron-Bridge's
# performance summaries on H100 and GB200, the Megatron-Core MoE report, NeMo AutoModel's table)
# through `trainsim validate`: every row simulates and prints its step time, each published step
# time agrees with the figure its note derives it from, and the summary's group MAPEs and worst row
# are those of the printed rows. The target bar (each group within 15 %, no row beyond 25 %) is not
# asserted: the table is there to show where the model stands (validation/README.md).
#
# Usage: bash validation_moe.sh TRAINSIM REPO
set -u

trainsim=${1:?usage: validation_moe.sh TRAINSIM REPO}
repo=${2:?usage: validation_moe.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"
table="$repo/validation/published-moe.json"

source "$(dirname "$0")/lib/validation.bash"
validate_and_check "$table" <<'PY'
import sys
from validation_rows import check, check_groups, read
out, runs, rows = read(sys.argv[1], sys.argv[2])
check(len(rows) == len(runs) >= 10, f"every row printed ({len(rows)} of {len(runs)})")
check(not any(" failed:" in l or l.startswith("failed") for l in out), "no row failed")
# Each published step time from the figure its note names: tokens/s/GPU (or DeepSeek's table's step).
derived = {
    "bridge-dsv3-1024xh100-fp8": 8192 * 4096 / (1297 * 1024),
    "mcore-dsv3-1024xh100-fp8": 8192 * 4096 / (1412 * 1024),
    "bridge-qwen3-235b-256xh100-fp8": 8192 * 4096 / (1712 * 256),
    "bridge-qwen3-30b-16xh100-fp8": 1024 * 4096 / (8826 * 16),
    "automodel-dsv3-1024xh100": 8192 * 4096 / (865.3 * 1024),
    "automodel-dsv3-256xh100": 512 * 4096 / (1001.5 * 256),
    "bridge-dsv3-nomtp-256xgb200-bf16": 4096 * 4096 / (3139 * 256),
}
for name, step in derived.items():
    pub = runs[name]["published"]["step_time_s"]
    check(abs(pub / step - 1) < 0.002, f"{name}: published {pub} s = {step:.3f} s from its note's figure")
groups = {r["group"] for r in runs.values()}
check(len(groups) >= 4, f"at least four sources ({sorted(groups)})")
check_groups(out, runs, rows, row_limit=10.0, group_limit=1000.0)
PY

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
