#!/usr/bin/env bash
# `parallelism.placement` (README "Scenario keys", sim/topology/placement.hpp) from the command line.
#
# Usage: bash placement.sh TRAINSIM REPO
#
# Expectation, on configs/quickstart.json (GPT 7.5B, 16 A100 in 2 nodes of 8, tp 4, pp 2, dp 2),
# copied into a scratch folder:
#   - "tp-cp-dp-pp" (a stage's two data-parallel replicas on one node, the pipeline across nodes)
#     runs to the end and writes a report whose step time differs from the default's (the gradient
#     all-reduce moves onto NVLink and the pipeline transfers onto the NICs);
#   - the default order written out, "tp-cp-pp-dp", and the identity list [0, 1, …, 15] give a
#     report byte-identical to the default's: the default placement is both of them;
#   - an explicit list that swaps the two nodes' GPUs, [8 … 15, 0 … 7], is the default layout
#     mirrored, so the step time is the default's too;
#   - the continuing recovery strategies (configs/recovery/gpt3-175b-1024xa100-*.json, 5 trials)
#     with the identity list of 1024 GPUs take the per-node (replica, unit) table that any
#     placement other than the default builds from the Placement (sim/run/degraded_plans.cpp): it
#     must give the default layout's report byte for byte.
set -u

trainsim=${1:?usage: placement.sh TRAINSIM REPO}
repo=${2:?usage: placement.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"

cp "$repo/configs/quickstart.json" "$work/quickstart.json"

run() {  # tag [extra args...]
  local tag=$1
  shift
  local out
  out=$("$trainsim" run "$work/quickstart.json" -o "$work/$tag.json" -q "$@" 2>&1)
  local rc=$?
  if [ $rc -ne 0 ] || [ ! -s "$work/$tag.json" ]; then
    fail "run $tag" "exit $rc: $out"
    return 1
  fi
  pass "run $tag"
}

step() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["step_time_s"])' "$1"; }

identity=$(python3 -c 'print(list(range(16)))')
swapped=$(python3 -c 'print(list(range(8, 16)) + list(range(8)))')
run default
run dp-inside-stage --set 'parallelism.placement="tp-cp-dp-pp"'
run default-order --set 'parallelism.placement="tp-cp-pp-dp"'
run identity --set "parallelism.placement=$identity"
run swapped --set "parallelism.placement=$swapped"

for tag in default-order identity; do
  if cmp -s "$work/default.json" "$work/$tag.json"; then
    pass "$tag: byte-identical to the default"
  else
    fail "$tag" "differs from the default: $(cmp "$work/default.json" "$work/$tag.json" 2>&1)"
  fi
done
if [ -s "$work/dp-inside-stage.json" ] && [ "$(step "$work/default.json")" != "$(step "$work/dp-inside-stage.json")" ]; then
  pass "tp-cp-dp-pp: another step time ($(step "$work/dp-inside-stage.json") s, default $(step "$work/default.json") s)"
else
  fail "tp-cp-dp-pp" "the same step time as the default"
fi
if [ -s "$work/swapped.json" ] && [ "$(step "$work/default.json")" = "$(step "$work/swapped.json")" ]; then
  pass "swapped nodes: the default's step time"
else
  fail "swapped nodes" "step time $(step "$work/swapped.json") s against the default's $(step "$work/default.json") s"
fi

all=$(python3 -c 'print(list(range(1024)))')
for kind in reconfigure redundant reroute swarm; do
  cfg="$repo/configs/recovery/gpt3-175b-1024xa100-$kind.json"
  a="$work/$kind.default.json"
  b="$work/$kind.identity.json"
  if "$trainsim" run "$cfg" -q -o "$a" --set failures.trials=5 >/dev/null 2>&1 &&
    "$trainsim" run "$cfg" -q -o "$b" --set failures.trials=5 --set "parallelism.placement=$all" >/dev/null 2>&1 &&
    cmp -s "$a" "$b"; then
    pass "$kind: the identity list's report is byte-identical to the default's"
  else
    fail "$kind" "the identity list's report differs (or a run failed): $(cmp "$a" "$b" 2>&1)"
  fi
done

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
