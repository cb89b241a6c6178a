#!/usr/bin/env bash
# `trainsim check` runs every check `trainsim run` makes short of simulating (sim/run/run.hpp,
# check_run: both call it): for each scenario below run refuses, and check must refuse it with the
# same line (exit 2), where it used to say "ok". On the quickstart job (16 A100 in 2 nodes, tp 4,
# pp 2, dp 2):
#  - `redundant` recovery needs one stage per node group: tp 4 puts two stages on a node;
#  - `reroute` needs data-parallel peers: dp 1;
#  - the reliability simulation's time budget: 100,000 trials of 10 years at 50 failures per
#    node-day are about 30,000 s of Monte Carlo, over the 120 s default;
#  - stacked slowdowns: two slow events of 1e6 on one GPU are a 1e12 slowdown, beyond the 1e6 a
#    factor may be (run used to simulate a step of 3e12 s and refuse its time to train);
#  - the simulation's memory budget: --max-memory 1 MiB, less than any simulation's base (check
#    takes run's --max-memory, --max-wall and --fidelity).
# The degraded plans a continuing strategy cannot do without pass run's checks too (degraded_plans.hpp,
# check_continuing), where check used to accept and run refused after simulating the healthy step.
# On GPT-3 175B (gpt3-175b-1024xa100.json: 96 layers, tp 8 = one node per stage):
#  - `redundant` with pp 8 and no virtual stages: the merged plan holds 24 layers on one stage,
#    twice the 12 of a healthy stage whose weights, gradients and optimizer state already take most
#    of 80 GB (2 x 175e9 / 8 stages / 8 GPUs x 16 B/param = 88 GB for the pair's states alone);
#  - `reroute` on 64 GPUs (tp 4, pp 8, dp 2, ZeRO 2): the rerouted plan has dp 1, so the fp32
#    gradients and optimizer state (4 + 12 B/param) that ZeRO 2 shards over 2 replicas are whole:
#    175e9 / 32 GPUs x 16 B / 2 = 44 GB more per GPU than the healthy plan's (which fits with less
#    than 44 GB to spare on 80 GB).
# And a scenario check accepts, run runs.
# Usage: bash check_as_run.sh TRAINSIM REPO
set -u
trainsim=${1:?usage: check_as_run.sh TRAINSIM REPO}
repo=${2:?usage: check_as_run.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"
cd "$repo" || exit 1
quick=configs/quickstart.json
poisson='failures={"kind": "poisson", "per_node_day": 0.01, "horizon": "7 d", "trials": 5}'

same_refusal() {  # NAME CONFIG -- ARGS...: run and check both exit 2 with one and the same line
  local name=$1 config=$2
  shift 3
  timeout 120 "$trainsim" run "$config" -q "$@" >/dev/null 2>"$work/run.err"
  local run_rc=$?
  timeout 120 "$trainsim" check "$config" "$@" >"$work/check.out" 2>"$work/check.err"
  local check_rc=$?
  if [ $run_rc -ne 2 ]; then
    fail "$name" "run: exit $run_rc (expected a refusal): $(head -c 200 "$work/run.err")"
  elif [ $check_rc -ne 2 ] || [ -s "$work/check.out" ]; then
    fail "$name" "check: exit $check_rc, '$(head -c 200 "$work/check.out")' where run refuses: $(head -c 300 "$work/run.err")"
  elif ! cmp -s "$work/run.err" "$work/check.err" || [ "$(wc -l <"$work/check.err")" -ne 1 ]; then
    fail "$name" "check and run refuse differently: $(head -c 200 "$work/check.err") / $(head -c 200 "$work/run.err")"
  else
    pass "$name: $(cut -c 1-150 "$work/check.err")"
  fi
}

same_refusal "redundant needing one stage per node group" "$quick" -- --set "$poisson" --set 'recovery={"kind": "redundant"}'
same_refusal "reroute needing data parallelism" "$quick" -- --set "$poisson" --set 'recovery={"kind": "reroute"}' \
  --set parallelism.pp=4 --set parallelism.dp=1
same_refusal "the reliability simulation's time budget" "$quick" -- --set 'training.tokens="1T"' \
  --set 'failures={"kind": "poisson", "per_node_day": 50, "horizon": "3650 d", "trials": 100000}'
same_refusal "stacked slowdowns" "$quick" -- --set "$poisson" --set 'training.tokens="1T"' \
  --set 'step_faults={"events": [{"kind": "slow", "gpu": 0, "factor": 1e6}, {"kind": "slow", "gpu": 0, "factor": 1e6}]}'
same_refusal "the simulation's memory budget" "$quick" -- --max-memory '1 MiB'

gpt3=configs/gpt3-175b-1024xa100.json
same_refusal "redundant's merged plan over the GPU's memory" "$gpt3" -- --set "$poisson" \
  --set 'recovery={"kind": "redundant"}' --set parallelism.virtual_stages=1
same_refusal "reroute's plan on one replica fewer over the GPU's memory" "$gpt3" -- --set "$poisson" \
  --set 'recovery={"kind": "reroute"}' --set cluster.gpus=64 --set parallelism.tp=4 --set parallelism.dp=2 \
  --set parallelism.zero=2 --set parallelism.virtual_stages=1 --set training.global_batch=64

# What check accepts, run runs: every strategy that suits the quickstart's plan.
for kind in checkpoint-restart in-memory-checkpoint just-in-time-checkpoint spares reconfigure swarm; do
  if "$trainsim" check "$quick" --set "$poisson" --set "recovery={\"kind\": \"$kind\"}" >/dev/null &&
     timeout 120 "$trainsim" run "$quick" -q --set "$poisson" --set "recovery={\"kind\": \"$kind\"}"; then
    pass "$kind: check accepts and run runs"
  else
    fail "$kind" "check or run refused"
  fi
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
