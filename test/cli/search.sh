#!/usr/bin/env bash
# `trainsim search`: on the quickstart scenario (GPT 7.5B, 16 A100s, global batch 64, seq_len 2048)
# it tries the 342 plans of workload/plan_space.hpp as 117 rows (plans differing only in the ZeRO
# stage are one row), simulates the 5 fastest estimates and ranks them by their simulated step
# time; the rows it bounds out change nothing (a search simulating 100 bounds out almost nothing and
# has the same 5 fastest estimates); -o writes the winner as a scenario whose `trainsim run` step
# time is the one the search printed for rank 1, and that uses all 16 GPUs; --objective memory
# ranks by memory. Bad input is one line, exit 2.
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
# cp 1 or 2 (2048 / 2 = 1,024 tokens per rank); tp 1, 2, 4, 8 (SP off/on for tp > 1); pp dividing
# 16/(tp cp), each pp > 1 with four schedules (the scenario's, zb_h1, zb_h2, zb_v); three
# recomputes; ZeRO 0-3 where dp > 1, the scenario's 0 where dp = 1. Rows (tp, cp, pp, schedule) x sp
# x 3: cp 1: tp 1 has pp 1 and 4 pp > 1 (1 + 4 x 4 = 17), tp 2 13, tp 4 9, tp 8 5 -> 3 (17 + 2 (13 + 9
# + 5)) = 213; cp 2: tp 1 13, tp 2 9, tp 4 5, tp 8 1 -> 3 (13 + 2 (9 + 5 + 1)) = 129; 342 rows. Each
# row is 4 plans but those with dp = 1 (pp = 16/(tp cp)): cp 1 3 x 4 (1 + 2 x 3) = 84, cp 2 3 x (4 (1
# + 2 x 2) + 2) = 66: 4 x 342 - 3 x 150 = 918.
if grep -q "^search: gpt-7.5b on 16 x a100-sxm-80gb, global batch 64: 342 plans (918 with their ZeRO stages)" \
  "$work/out"; then
  pass "342 rows of 918 plans tried (plan_space.hpp, counted above)"
else
  fail "plan count" "$(head -n 1 "$work/out")"
fi

"$trainsim" run "$work/best.json" -q -o "$work/report.json" 2>"$work/run.err"
"$trainsim" search "$config" --top 100 >"$work/wide" 2>"$work/wide.err"
"$trainsim" search "$config" --objective memory >"$work/memory" 2>"$work/memory.err"
python3 - "$work" <<'PY' >"$work/checks" 2>&1
import json, re, sys
work = sys.argv[1]
lines = open(f"{work}/out").read().splitlines()
# rank tp cp pp dp sp recompute zero prec mb v memory GiB estimated simulated MFU schedule
def table(name):
    return [l.split() for l in open(f"{work}/{name}").read().splitlines() if re.match(r"^\s+\d+\s", l)]
rows = table("out")
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
simulated = [float(r[14].rstrip("s")) for r in rows if r[14] != "-"]
estimated = [float(r[13].rstrip("s")) for r in rows]
check(len(simulated) == 5 and all(r[14] != "-" for r in rows[:5]), "the first 5 rows are simulated")
check(simulated == sorted(simulated), "the simulated rows are ranked by simulated step time")
check(max(estimated[:5]) <= min(estimated[5:]), "the simulated ones are the 5 fastest estimates")
best = json.load(open(f"{work}/best.json"))
report = json.load(open(f"{work}/report.json"))
p = best["parallelism"]
check(p["tp"] * p.get("cp", 1) * p["pp"] * p["dp"] == 16, "the written plan uses tp*cp*pp*dp = 16 GPUs")
check(f"{report['step_time_s']:.3f}" == f"{simulated[0]:.3f}",
      f"trainsim run on the written plan: {report['step_time_s']:.3f} s, the step time printed for rank 1")
check(rows[0][1:5] + [rows[0][7]] == [str(p["tp"]), str(p["cp"]), str(p["pp"]), str(p["dp"]), str(p["zero"])],
      "the written plan is rank 1's (tp, cp, pp, dp, ZeRO)")
check(p.get("schedule") == rows[0][16], f"the written plan runs rank 1's schedule ({rows[0][16]})")
wide = table("wide")
key = lambda r: (float(r[13].rstrip("s")), r[1:11] + r[16:])
check(sorted(map(key, wide))[:5] == sorted(map(key, rows[:5])),
      "bounding changes nothing: simulating 100, the 5 fastest estimates are the same plans")
mem = table("memory")
gib = [float(r[11]) for r in mem]
check(gib == sorted(gib) and len(mem) > 5, "--objective memory: rows ranked by memory per GPU")
check(gib[0] < float(rows[0][11]), f"--objective memory: rank 1 needs {gib[0]} GiB, less than the fastest plan's")
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
# A --max-sim-wall that a few of the best plans' simulations pass: they are skipped, and a line
# names how many and the best of them, whose estimate is among those the simulated rows beat
# (the rows are taken in estimate order) and whose simulation estimate is over the limit.
"$trainsim" search "$config" --max-sim-wall 0.001 >"$work/slow" 2>"$work/slow.err"
python3 - "$work/slow" <<'PY' >"$work/slow.checks" 2>&1
import re, sys
text = open(sys.argv[1]).read()
head = re.search(r"(\d+) can run, (\d+) bounded out .*?, (\d+) cannot", text)
line = re.search(r"search: (\d+) plans among the best estimates were not simulated, each over --max-sim-wall "
                 r"0.001 s; the best of them \(.*, estimated ([0-9.]+) s\): .*would take (?:at least )?about "
                 r"([0-9.e+-]+) s", text)
rows = [l.split() for l in text.splitlines() if re.match(r"^ +\d+ +\d+ +\d+", l)]
simulated = [float(r[13].rstrip("s")) for r in rows if r[14] != "-"]
ok = head and line and simulated
print("ok" if ok else "FAIL", "the skipped plans are named in one line:", line.group(0)[:80] if line else text[-300:])
if ok:
    n, est, took = int(line.group(1)), float(line.group(2)), float(line.group(3))
    print("ok" if 0 < n <= int(head.group(3)) else "FAIL", f"{n} skipped, among the {head.group(3)} that cannot run")
    print("ok" if est <= max(simulated) else "FAIL", f"the best skipped estimate {est} s is below a simulated row's")
    print("ok" if took > 0.001 else "FAIL", f"its simulation estimate {took} s is over the 0.001 s limit")
PY
while read -r status rest; do
  if [ "$status" = ok ]; then pass "--max-sim-wall 0.001: $rest"; else fail "--max-sim-wall 0.001" "$rest"; fi
done <"$work/slow.checks"

# An MoE model (Mixtral 8x7B on 32 H100): the plans try expert parallelism, the experts' tensor
# parallelism and dispatchers; the table shows each plan's ep, etp and dispatcher after the
# precision, and the written plan is rank 1's and runs to the step time printed for it.
cat >"$work/moe.json" <<'JSON'
{"kind": "scenario", "name": "moe-search", "model": "mixtral-8x7b",
 "cluster": {"from": "dgx-h100-superpod", "gpus": 32},
 "parallelism": {"tp": 1, "pp": 1, "dp": "auto"},
 "training": {"seq_len": 4096, "global_batch": 64, "micro_batch": "auto", "precision": "bf16"}}
JSON
"$trainsim" search "$work/moe.json" -o "$work/moe-best.json" >"$work/moe.out" 2>"$work/moe.err"
"$trainsim" run "$work/moe-best.json" -q -o "$work/moe-report.json" 2>>"$work/moe.err"
python3 - "$work" <<'PY' >"$work/moe.checks" 2>&1
import json, re, sys
work = sys.argv[1]
text = open(f"{work}/moe.out").read()
# rank tp cp pp dp sp recompute zero prec ep etp dispatcher mb v memory GiB estimated simulated MFU
rows = [l.split() for l in text.splitlines() if re.match(r"^\s+\d+\s", l)]
header = [l for l in text.splitlines() if l.lstrip().startswith("rank")]
print("ok" if header and header[0].split()[9:12] == ["ep", "etp", "dispatcher"] else "FAIL", "the table has ep, etp and dispatcher")
eps = {int(r[9]) for r in rows}
etps = {int(r[10]) for r in rows}
disp = {r[11] for r in rows}
print("ok" if any(e > 1 for e in eps) else "FAIL", f"plans with expert parallelism are shown: ep {sorted(eps)}")
print("ok" if disp <= {"alltoall", "allgather", "deepep"} and disp else "FAIL", f"dispatchers {sorted(disp)}")
print("ok" if etps and all(e == 1 or e == int(r[1]) for r in rows for e in [int(r[10])]) else "FAIL", f"etp 1 or tp: {sorted(etps)}")
best = json.load(open(f"{work}/moe-best.json"))["parallelism"]
print("ok" if [str(best["ep"]), str(best.get("etp", 1)), best["dispatcher"]] == rows[0][9:12] else "FAIL", "the written plan has rank 1's ep, etp and dispatcher")
step = json.load(open(f"{work}/moe-report.json"))["step_time_s"]
print("ok" if f"{step:.3f}s" == rows[0][17] else "FAIL", f"trainsim run on it: {step:.3f} s, rank 1's simulated step")
PY
while read -r status rest; do
  if [ "$status" = ok ]; then pass "MoE search: $rest"; else fail "MoE search" "$rest $(head -c 300 "$work/moe.err")"; fi
done <"$work/moe.checks"

bad "missing config" "no such file" "$work/missing.json"
bad "--top 0" "--top" "$config" --top 0
bad "--objective fast" "--objective" "$config" --objective fast
bad "--max-sim-wall 0" "--max-sim-wall" "$config" --max-sim-wall 0
# The platform alone (32 route ends at 2.5 us each when the step folds, the cheaper engine:
# resource_estimate.cpp, 0.08 ms) over the limit: refused before any plan is planned; between that
# and the cheapest plan's estimate (0.11 ms), by the most split plan.
bad "the platform over --max-sim-wall" "no plan can run on 16 GPUs, whatever the plan: simulating any plan would take at least about 8e-05 s (hosts 32, actors 1: the platform alone" \
  "$config" --max-sim-wall 0.000001
bad "every plan over --max-sim-wall" "no plan can run; the most split one .*more than the limit of 9e-05 s" \
  "$config" --max-sim-wall 0.00009
# 131,072 GPUs (262,144 route ends: 0.66 s) under a 0.5 s limit: refused before planning a plan of its
# space (planning them all, each with its O(GPUs) fold, took 28 s); --max-wall is a guard, not a timing.
bad "131,072 GPUs over --max-sim-wall" "no plan can run on 131072 GPUs, whatever the plan: .*hosts 262144, actors 1: the platform alone" \
  "$config" --set model=gpt-1008b --set cluster.gpus=131072 --set training.global_batch=8192 --max-sim-wall 0.5 --max-wall 60
# A limit just above the platform (0.66 s) and below every plan: each plan is refused by lower
# bounds of its estimate (its ring flows counted, none kept by the fold) before the O(GPUs) fold,
# which planning each plan with took 26 s. Under the sanitizers it is left out (minutes of
# instrumented planning; what it checks is the message, which the normal build checks).
if ! grep -q -a __asan_init "$trainsim"; then
  bad "131,072 GPUs, every plan over --max-sim-wall" \
    "no plan can run; the most split one (tp 8, cp 2, pp 128, dp 64, full recompute, ZeRO [0-3]): simulating this plan would take at least about 0.82 s .*more than the limit of 0.67 s" \
    "$config" --set model=gpt-1008b --set cluster.gpus=131072 --set training.global_batch=8192 --max-sim-wall 0.67 --max-wall 120
fi
bad "a model that fits no plan" "no plan can run; the most split one (tp 8, cp 2, pp 1, dp 1, full recompute, ZeRO 0): the plan needs" "$config" --set model=gpt3-175b

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
