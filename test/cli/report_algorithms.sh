#!/usr/bin/env bash
# The report names the algorithm NCCL runs for the group all-reduces (chosen.all_reduce): NVLS for
# a tensor-parallel group inside an H100 node (the profile has NVLS constants), the ring for a
# data-parallel group that leaves the node, the ring everywhere on A100s (no NVLS) and with
# "nvls": false, which must also not make the step faster.
#
# Usage: bash report_algorithms.sh TRAINSIM REPO
set -u

trainsim=${1:?usage: report_algorithms.sh TRAINSIM REPO}
repo=${2:?usage: report_algorithms.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"
cd "$repo" || exit 1

field() { python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2], {"r": r}))' "$@"; }
expect() {  # name report expression wanted
  local got
  got=$(field "$2" "$3" 2>&1)
  if [ "$got" = "$4" ]; then pass "$1: $3 = $got"; else fail "$1" "$3 = '$got', wanted '$4'"; fi
}
if "$trainsim" run configs/llama3-70b-512xh100.json -q -o "$work/h100.json" &&
   "$trainsim" run configs/llama3-70b-512xh100.json -q -o "$work/h100-off.json" --set cluster.scale_up.nvls=false &&
   "$trainsim" run configs/quickstart.json -q -o "$work/a100.json"; then
  pass "three runs"
else
  fail "runs" "a run failed"
fi
expect "H100, tp 8 in a node" "$work/h100.json" 'r["chosen"]["all_reduce"]["tp"]' nvls
expect "H100, dp across nodes" "$work/h100.json" 'r["chosen"]["all_reduce"]["dp"]' ring
expect "H100 with nvls false" "$work/h100-off.json" 'r["chosen"]["all_reduce"]["tp"]' ring
expect "A100 (no NVLS)" "$work/a100.json" 'r["chosen"]["all_reduce"]["tp"]' ring
on=$(field "$work/h100.json" 'r["step_time_s"]')
off=$(field "$work/h100-off.json" 'r["step_time_s"]')
if python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) <= float(sys.argv[2]) else 1)' "$on" "$off"; then
  pass "NVLS never slows the step ($on s with, $off s without)"
else
  fail "NVLS slowed the step" "$on s with, $off s without"
fi
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
