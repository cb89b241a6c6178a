#!/usr/bin/env bash
# The report names the algorithm NCCL's tuning model picks for the largest tensor-parallel
# all-reduce and the largest gradient reduction (chosen.all_reduce): NVLS for a tensor-parallel
# group inside an H100 node reducing activations (128 MiB without sequence parallelism; the
# profile has NVLS constants), the ring for the small all-reduces sequence parallelism leaves
# (NVLS's fixed 25 us against the LL ring's 6.6 + 14 x 0.6 = 15 us on 8 GPUs, tuning.cc), the ring
# for a data-parallel group of 16 nodes reducing large buffers, the ring everywhere on A100s (no
# NVLS) and with "nvls": false, which must also not make the step faster.
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
nosp=(--set parallelism.sequence_parallel=false)
if "$trainsim" run configs/llama3-70b-512xh100.json -q -o "$work/h100.json" "${nosp[@]}" &&
   "$trainsim" run configs/llama3-70b-512xh100.json -q -o "$work/h100-off.json" "${nosp[@]}" \
     --set cluster.scale_up.nvls=false &&
   "$trainsim" run configs/llama3-70b-512xh100.json -q -o "$work/h100-sp.json" &&
   "$trainsim" run configs/quickstart.json -q -o "$work/a100.json"; then
  pass "four runs"
else
  fail "runs" "a run failed"
fi
expect "H100, tp 8 in a node" "$work/h100.json" 'r["chosen"]["all_reduce"]["tp"]' nvls
expect "H100, dp across nodes" "$work/h100.json" 'r["chosen"]["all_reduce"]["dp"]' ring
expect "H100, sequence parallel" "$work/h100-sp.json" 'r["chosen"]["all_reduce"]["tp"]' ring
expect "H100 with nvls false" "$work/h100-off.json" 'r["chosen"]["all_reduce"]["tp"]' ring
expect "A100 (no NVLS)" "$work/a100.json" 'r["chosen"]["all_reduce"]["tp"]' ring
on=$(field "$work/h100.json" 'r["step_time_s"]')
off=$(field "$work/h100-off.json" 'r["step_time_s"]')
if python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) <= float(sys.argv[2]) else 1)' "$on" "$off"; then
  pass "NVLS never slows the step ($on s with, $off s without)"
else
  fail "NVLS slowed the step" "$on s with, $off s without"
fi
# parallelism.collective_algorithms forces NCCL_ALGO: forced, the report names it; forcing what
# the tuning model chose anyway (the ring on the A100 quickstart) changes nothing.
if "$trainsim" run configs/llama3-70b-512xh100.json -q -o "$work/h100-tree.json" "${nosp[@]}" \
     --set 'parallelism.collective_algorithms={"all_reduce": "tree"}' &&
   "$trainsim" run configs/quickstart.json -q -o "$work/a100-ring.json" \
     --set 'parallelism.collective_algorithms={"all_reduce": "ring"}'; then
  pass "two forced runs"
else
  fail "forced runs" "a run failed"
fi
expect "H100, tree forced (tp)" "$work/h100-tree.json" 'r["chosen"]["all_reduce"]["tp"]' tree
expect "H100, tree forced (dp)" "$work/h100-tree.json" 'r["chosen"]["all_reduce"]["dp"]' tree
expect "A100, ring forced = NCCL's own choice" "$work/a100-ring.json" 'r["step_time_s"]' \
  "$(field "$work/a100.json" 'r["step_time_s"]')"
# The hierarchical algorithm is not NCCL's: only a scenario forcing it runs it, and the report says so.
if "$trainsim" run configs/quickstart.json -q -o "$work/a100-hier.json" \
     --set 'parallelism.collective_algorithms={"all_reduce": "hierarchical"}'; then
  pass "hierarchical forced"
else
  fail "hierarchical forced" "the run failed"
fi
expect "A100, hierarchical forced (dp)" "$work/a100-hier.json" 'r["chosen"]["all_reduce"]["dp"]' hierarchical
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
