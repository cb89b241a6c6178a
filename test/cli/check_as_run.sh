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
#    factor may be (run used to simulate a step of 3e12 s and refuse its time to train).
# And a scenario check accepts, run runs.
# Usage: bash check_as_run.sh TRAINSIM REPO
set -u
trainsim=${1:?usage: check_as_run.sh TRAINSIM REPO}
repo=${2:?usage: check_as_run.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"
cd "$repo" || exit 1
quick=configs/quickstart.json
poisson='failures={"kind": "poisson", "per_node_day": 0.01, "horizon": "7 d", "trials": 5}'

same_refusal() {  # NAME -- ARGS...: run and check both exit 2 with one and the same line
  local name=$1
  shift 2
  timeout 120 "$trainsim" run "$quick" -q "$@" >/dev/null 2>"$work/run.err"
  local run_rc=$?
  timeout 120 "$trainsim" check "$quick" "$@" >"$work/check.out" 2>"$work/check.err"
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

same_refusal "redundant needing one stage per node group" -- --set "$poisson" --set 'recovery={"kind": "redundant"}'
same_refusal "reroute needing data parallelism" -- --set "$poisson" --set 'recovery={"kind": "reroute"}' \
  --set parallelism.pp=4 --set parallelism.dp=1
same_refusal "the reliability simulation's time budget" -- --set 'training.tokens="1T"' \
  --set 'failures={"kind": "poisson", "per_node_day": 50, "horizon": "3650 d", "trials": 100000}'
same_refusal "stacked slowdowns" -- --set "$poisson" --set 'training.tokens="1T"' \
  --set 'step_faults={"events": [{"kind": "slow", "gpu": 0, "factor": 1e6}, {"kind": "slow", "gpu": 0, "factor": 1e6}]}'

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
