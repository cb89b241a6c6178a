#!/usr/bin/env bash
# `trainsim search`: on the quickstart scenario (GPT 7.5B, 16 A100s, global batch 64) it tries the
# 69 plans of workload/plan_space.hpp, simulates the 5 fastest estimates and ranks them by their
# simulated step time; -o writes the winner as a scenario whose `trainsim run` step time is the
# one the search printed for rank 1, and that uses all 16 GPUs. Bad input is one line, exit 2.
#
# Usage: bash search.sh TRAINSIM REPO
set -u

trainsim=${1:?usage: search.sh TRAINSIM REPO}
repo=${2:?usage: search.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"
config="$repo/configs/quickstart.json"

"$trainsim" search "$config" -o "$work/best.json" >"$work/out" 2>"$work/err"
rc=$?
if [ $rc -eq 0 ]; then pass "search exits 0"; else fail "search" "exit $rc: $(cat "$work/err")"; fi
if grep -q "^search: gpt-7.5b on 16 x a100-sxm-80gb, global batch 64: 69 plans" "$work/out"; then
  pass "69 plans tried (3 x (5 + 4*2 + 3*2 + 2*2), plan_space.hpp)"
else
  fail "plan count" "$(head -n 1 "$work/out")"
fi

"$trainsim" run "$work/best.json" -q -o "$work/report.json" 2>"$work/run.err"
python3 - "$work" <<'PY' >"$work/checks" 2>&1
import json, re, sys
work = sys.argv[1]
lines = open(f"{work}/out").read().splitlines()
# rank tp pp dp sp recompute mb v memory GiB estimated simulated MFU
rows = [l.split() for l in lines if re.match(r"^\s+\d+\s", l)]
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
simulated = [float(r[11].rstrip("s")) for r in rows if r[11] != "-"]
estimated = [float(r[10].rstrip("s")) for r in rows]
check(len(simulated) == 5 and all(r[11] != "-" for r in rows[:5]), "the first 5 rows are simulated")
check(simulated == sorted(simulated), "the simulated rows are ranked by simulated step time")
check(max(estimated[:5]) <= min(estimated[5:]), "the simulated ones are the 5 fastest estimates")
best = json.load(open(f"{work}/best.json"))
report = json.load(open(f"{work}/report.json"))
p = best["parallelism"]
check(p["tp"] * p["pp"] * p["dp"] == 16, "the written plan uses tp*pp*dp = 16 GPUs")
check(f"{report['step_time_s']:.3f}" == f"{simulated[0]:.3f}",
      f"trainsim run on the written plan: {report['step_time_s']:.3f} s, the step time printed for rank 1")
check(rows[0][1:4] == [str(p["tp"]), str(p["pp"]), str(p["dp"])], "the written plan is rank 1's")
PY
while IFS= read -r line; do
  case "$line" in "ok   "*) pass "${line#ok   }" ;; *) fail "${line#FAIL }" "(above)" ;; esac
done <"$work/checks"

bad() {  # name expected-fragment args...
  local name=$1 fragment=$2
  shift 2
  "$trainsim" search "$@" >"$work/b.out" 2>"$work/b.err"
  local rc=$?
  if [ $rc -eq 2 ] && [ ! -s "$work/b.out" ] && [ "$(wc -l <"$work/b.err")" -eq 1 ] && grep -q -- "$fragment" "$work/b.err"; then
    pass "$name: exit 2, one line"
  else
    fail "$name" "exit $rc: $(head -c 300 "$work/b.err")"
  fi
}
bad "missing config" "no such file" "$work/missing.json"
bad "--top 0" "--top" "$config" --top 0
bad "a model that fits no plan" "no plan can run; the most split one (tp 8, pp 2, dp 1, full recompute): the plan needs" "$config" --set model=gpt3-175b

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
