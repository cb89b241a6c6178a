#!/usr/bin/env bash
# The same config and seed give a byte-identical report (STYLE.md §8).
#
# Usage: bash determinism.sh TRAINSIM REPO
#
# Expectation: every scenario under configs/, run twice, and once more with `--set seed=S` where S is
# the seed the file already holds, writes three reports (and traces) that `cmp` finds identical.
# Nothing in a run is parallel (one process plans, one forked child simulates on one thread), so
# there is no thread count to vary.
set -u

trainsim=${1:?usage: determinism.sh TRAINSIM REPO}
repo=${2:?usage: determinism.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"

run() {  # config tag [extra args...]
  local cfg=$1 tag=$2
  shift 2
  local out
  out=$("$trainsim" run "$cfg" -o "$work/$tag.report.json" --trace "$work/$tag.trace.json" -q "$@" 2>&1)
  local rc=$?
  if [ $rc -ne 0 ]; then
    fail "run $tag" "exit $rc: $out"
    return 1
  fi
  pass "run $tag"
}

# Every scenario under configs/ (not the studies' descriptions, "kind": "study", nor the clusters a study names).
mapfile -t configs < <(find "$repo/configs" -name '*.json' | sort | xargs grep -L -e '"kind": "study"' -e '"kind": "cluster"')
[ -e "${configs[0]}" ] || fail "configs" "no scenario in $repo/configs"
for cfg in "${configs[@]}"; do
  name=$(basename "$cfg" .json)
  # Few trials: the failure draws and the Monte Carlo are deterministic per trial.
  fewer=()
  grep -q '"failures"' "$cfg" && fewer=(--set failures.trials=5)
  seed=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get("seed", 0))' "$cfg")
  run "$cfg" "$name.first" "${fewer[@]}"
  run "$cfg" "$name.second" "${fewer[@]}"
  run "$cfg" "$name.same-seed" --set "seed=$seed" "${fewer[@]}"
  for other in second same-seed; do
    for kind in report trace; do
      a="$work/$name.first.$kind.json"
      b="$work/$name.$other.$kind.json"
      if [ -f "$a" ] && [ -f "$b" ] && cmp -s "$a" "$b"; then
        pass "$name: $kind of '$other' is byte-identical to the first run"
      else
        fail "$name: $kind of '$other'" "differs from the first run (or is missing): $(cmp "$a" "$b" 2>&1)"
      fi
    done
  done
done

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
