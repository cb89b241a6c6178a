#!/usr/bin/env bash
# Faults inside one step (configs/faults/*.json; README "Faults inside a step").
#
# Usage: bash step_faults.sh TRAINSIM REPO
#
# Expectations:
# - every file in configs/faults/ runs with -q silently, twice, to byte-identical reports and traces;
# - straggler.json: healthy_step_time_s is exactly the step_time_s of the same scenario without its
#   step_faults section, the slowed step is no faster (slowdown = step / healthy >= 1);
# - gpu-failure.json: step_time_s is exactly that of the scenario without the failure (the step
#   the job runs at after recovery); failed_at_s = 0.8 (the file's "at"), stalled_at_s >=
#   failed_at_s, detected_at_s = stalled_at_s + nccl_timeout_s (600: the file's "10 min") exactly,
#   lost_s = detected_at_s (the step is redone from its start); 16 GPUs fit any budget, so the
#   failure is simulated for every GPU (failure_fidelity "full"); the summary has a failure line;
# - the same failure at 100 s, long after the ~4 s step: failure_effect "none", stalled_at_s and
#   detected_at_s null, lost_s 0.
set -u

trainsim=${1:?usage: step_faults.sh TRAINSIM REPO}
repo=${2:?usage: step_faults.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"

run() {  # config report [args...] -> 0 when it ran silently
  local cfg=$1 report=$2
  shift 2
  local out
  out=$("$trainsim" run "$cfg" -o "$report" -q "$@" 2>&1)
  local rc=$?
  if [ $rc -ne 0 ] || [ -n "$out" ]; then
    fail "run $(basename "$cfg") $*" "exit $rc: $out"
    return 1
  fi
}

shopt -s nullglob
configs=("$repo"/configs/faults/*.json)
[ ${#configs[@]} -ge 2 ] || fail "configs" "expected at least two files in $repo/configs/faults"
for cfg in "${configs[@]}"; do
  name=$(basename "$cfg" .json)
  run "$cfg" "$work/$name.1.json" --trace "$work/$name.1.trace.json" &&
    run "$cfg" "$work/$name.2.json" --trace "$work/$name.2.trace.json" || continue
  if cmp -s "$work/$name.1.json" "$work/$name.2.json" && cmp -s "$work/$name.1.trace.json" "$work/$name.2.trace.json"; then
    pass "$name: byte-identical report and trace"
  else
    fail "$name" "two runs differ"
  fi
done

# The same scenarios without step_faults, and the failure moved past the end of the step.
python3 - "$repo/configs/faults" "$work" <<'EOF'
import json, os, sys
src, work = sys.argv[1], sys.argv[2]
for name in ["straggler", "gpu-failure"]:
    s = json.load(open(os.path.join(src, name + ".json")))
    del s["step_faults"]
    json.dump(s, open(os.path.join(work, name + "-healthy.json"), "w"))
s = json.load(open(os.path.join(src, "gpu-failure.json")))
s["step_faults"]["events"][0]["at"] = "100 s"
json.dump(s, open(os.path.join(work, "late-failure.json"), "w"))
EOF
for c in straggler-healthy gpu-failure-healthy late-failure; do
  run "$work/$c.json" "$work/$c.report.json"
done

check() {  # label python-statements (append to `problems`)
  local problems
  problems=$(python3 -c "
import json, os, sys
w = sys.argv[1]
def load(n): return json.load(open(os.path.join(w, n)))
problems = []
$2
print('; '.join(problems))
" "$work" 2>&1)
  if [ -n "$problems" ]; then fail "$1" "$problems"; else pass "$1"; fi
}

check "straggler: healthy step and slowdown" '
r, h = load("straggler.1.json"), load("straggler-healthy.report.json")
f = r["step_faults"]
if f["healthy_step_time_s"] != h["step_time_s"]:
    problems.append("healthy_step_time_s %r != %r without faults" % (f["healthy_step_time_s"], h["step_time_s"]))
if not r["step_time_s"] >= h["step_time_s"]:
    problems.append("slowed step %r is faster than healthy %r" % (r["step_time_s"], h["step_time_s"]))
if abs(f["slowdown"] - r["step_time_s"] / f["healthy_step_time_s"]) > 1e-12:
    problems.append("slowdown %r is not step / healthy" % f["slowdown"])'

check "gpu-failure: failed, stalled, detected and lost times" '
r, h = load("gpu-failure.1.json"), load("gpu-failure-healthy.report.json")
f = r["step_faults"]
if r["step_time_s"] != h["step_time_s"]:
    problems.append("step_time_s %r != %r without the failure" % (r["step_time_s"], h["step_time_s"]))
if f["failed_component"] != "gpu 12" or f["failed_at_s"] != 0.8 or f["failure_effect"] != "stall" \
        or f["failure_fidelity"] != "full":
    problems.append("failure %r" % f)
elif not f["stalled_at_s"] >= f["failed_at_s"]:
    problems.append("stalled_at_s %r < failed_at_s" % f["stalled_at_s"])
elif f["nccl_timeout_s"] != 600 or f["detected_at_s"] != f["stalled_at_s"] + f["nccl_timeout_s"]:
    problems.append("detected_at_s %r != stalled_at_s + nccl_timeout_s" % f["detected_at_s"])
elif f["lost_s"] != f["detected_at_s"] or not f["lost_s"] >= f["failed_at_s"]:
    problems.append("lost_s %r" % f["lost_s"])'

check "a failure after the step: no effect" '
f = load("late-failure.report.json")["step_faults"]
if (f["failure_effect"], f["stalled_at_s"], f["detected_at_s"], f["lost_s"], f["failed_at_s"]) != ("none", None, None, 0, 100):
    problems.append("%r" % f)'

if out=$("$trainsim" run "$repo/configs/faults/gpu-failure.json" 2>&1) &&
  grep -q "failure     gpu 12 fails at 0.800 s: the step stalls at" <<<"$out"; then
  pass "gpu-failure: summary line"
else
  fail "gpu-failure: summary line" "$out"
fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
