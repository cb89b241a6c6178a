#!/usr/bin/env bash
# `trainsim validate` on rows it cannot run: each is reported on its own line by the
# row's name and its place in the table (/runs/N/scenario/...), whatever refused it -- a key the
# scenario does not have, a scenario given as a path instead of an object, a plan the planner
# refuses, a row past a limit of this machine (--max-memory) -- and the next rows still run. The
# exit code is 1 with one line on stderr naming the first failed row.
#
# Usage: bash validate_rows.sh TRAINSIM REPO
set -u
trainsim=${1:?usage: validate_rows.sh TRAINSIM REPO}
repo=${2:?usage: validate_rows.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"

python3 - "$repo/configs/quickstart.json" "$work/table.json" <<'PY'
import copy, json, sys
base = json.load(open(sys.argv[1]))
base.pop("kind", None)
def row(name, scenario):
    return {"name": name, "group": "g", "published": {"step_time_s": 4.0}, "note": "test", "scenario": scenario}
unknown = copy.deepcopy(base)
unknown["training"]["bogus"] = 1
batch = copy.deepcopy(base)
batch["training"]["micro_batch"] = 3  # 64 / (dp 2 x 3) is no whole number of microbatches
huge = copy.deepcopy(base)
huge["cluster"]["gpus"] = 1048576  # several GiB of simulation state, past --max-memory 3 GiB
huge["parallelism"]["dp"] = 131072
huge["training"]["global_batch"] = 131072
runs = [row("unknown-key", unknown), row("as-path", "quickstart.json"), row("batch", batch),
        row("huge", huge), row("fits", base)]
json.dump({"kind": "validation", "runs": runs}, open(sys.argv[2], "w"))
PY
t="$work/table.json"
timeout 300 "$trainsim" validate "$t" --max-memory "3 GiB" >"$work/out" 2>"$work/err"
rc=$?
row() { grep "^$1 " "$work/out"; }
expect_row() {  # name fragment
  if row "$1" | grep -qF -- "failed: $t: $2"; then pass "row $1: failed at $2"; else fail "row $1" "$(row "$1" | head -c 300)"; fi
}
expect_row unknown-key "/runs/0/scenario/training/bogus: unknown key 'bogus'"
expect_row as-path "/runs/1/scenario: "
expect_row batch "/runs/2/scenario/training/micro_batch: "
expect_row huge "/runs/3/scenario/cluster/gpus: simulating this plan would need"
if row fits | grep -qE "^fits +g +4\.000s +[0-9.]+s"; then pass "the row after them still runs"; else fail "fits" "$(row fits)"; fi
if [ $rc -eq 1 ] && [ "$(wc -l <"$work/err")" -eq 1 ] && grep -q "4 of 5 runs could not be simulated, the first 'unknown-key'" "$work/err"; then
  pass "exit 1 and one line naming the first failed row"
else
  fail "exit and stderr" "exit $rc: $(head -c 300 "$work/err")"
fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
