#!/usr/bin/env bash
# Every shipped scenario (configs/**/*.json) runs end to end.
#
# Usage: bash configs_run.sh TRAINSIM REPO
#
# Expectation, per file: `trainsim run FILE -o REPORT --trace TRACE -q` exits 0 and prints nothing;
# the report is JSON with the keys of DESIGN.md "Report" (step_time_s, tokens_per_s,
# model_flops_per_step, hardware_flops_per_step, model_tflops_per_gpu, mfu, hfu,
# breakdown{compute_s, exposed_comm_s, bubble_s}, memory{peak_bytes_per_gpu, capacity_bytes, fits,
# stages}, chosen); step_time_s > 0, 0 < mfu < 1 and 0 < hfu < 1 (no GPU beats its peak), and
# mfu <= hfu unless the config names a fused attention kernel, FlashAttention's or cuDNN's (hardware
# FLOPs add recompute; a causal fused kernel executes half of the score matmuls that the model-FLOPs
# convention counts); the trace is
# JSON with a traceEvents list.
set -u

trainsim=${1:?usage: configs_run.sh TRAINSIM REPO}
repo=${2:?usage: configs_run.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"

check_report() {  # report trace config -> prints nothing when every expectation holds, else what failed
  python3 - "$1" "$2" "$3" <<'EOF'
import json, sys

problems = []
try:
    r = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"report is not JSON: {e}")
    sys.exit(0)
for key in ["step_time_s", "tokens_per_s", "model_flops_per_step", "hardware_flops_per_step",
            "model_tflops_per_gpu", "mfu", "hfu", "breakdown", "memory", "chosen"]:
    if key not in r:
        problems.append(f"missing key {key}")
for section, keys in [("breakdown", ["compute_s", "exposed_comm_s", "bubble_s"]),
                      ("memory", ["peak_bytes_per_gpu", "capacity_bytes", "fits", "stages"])]:
    for key in keys:
        if key not in r.get(section, {}):
            problems.append(f"missing key {section}.{key}")
if not problems:
    if not r["step_time_s"] > 0:
        problems.append(f"step_time_s = {r['step_time_s']}, expected > 0")
    flash = json.load(open(sys.argv[3])).get("training", {}).get("attention", "unfused") != "unfused"
    if not (0 < r["mfu"] < 1 and 0 < r["hfu"] < 1 and (flash or r["mfu"] <= r["hfu"])):
        problems.append(f"mfu = {r['mfu']}, hfu = {r['hfu']}: expected 0 < mfu, hfu < 1 and mfu <= hfu")
try:
    t = json.load(open(sys.argv[2]))
    if not isinstance(t.get("traceEvents"), list):
        problems.append("trace has no traceEvents list")
except Exception as e:
    problems.append(f"trace is not JSON: {e}")
print("; ".join(problems))
EOF
}

shopt -s nullglob
# Every scenario under configs/ (not the studies' descriptions, "kind": "study", nor the clusters a study names).
mapfile -t configs < <(find "$repo/configs" -name '*.json' | sort | xargs grep -L -e '"kind": "study"' -e '"kind": "cluster"')
if [ ${#configs[@]} -eq 0 ]; then
  fail "configs" "no files in $repo/configs"
fi
for cfg in "${configs[@]}"; do
  name=$(basename "$cfg")
  report="$work/${name%.json}.report.json"
  trace="$work/${name%.json}.trace.json"
  out=$("$trainsim" run "$cfg" -o "$report" --trace "$trace" -q 2>&1)
  rc=$?
  if [ $rc -ne 0 ]; then
    fail "$name" "exit $rc: $out"
    continue
  fi
  if [ -n "$out" ]; then
    fail "$name" "-q printed: $out"
    continue
  fi
  problems=$(check_report "$report" "$trace" "$cfg")
  if [ -n "$problems" ]; then
    fail "$name" "$problems"
  else
    pass "$name"
  fi
done

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
