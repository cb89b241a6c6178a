#!/usr/bin/env bash
# The same config and seed give a byte-identical report (STYLE.md §8).
#
# Usage: bash determinism.sh TRAINSIM REPO
#
# Expectation: configs/quickstart.json run twice, and once more with `--set seed=S` where S is the
# seed the file already holds, writes three reports (and traces) that `cmp` finds identical.
set -u

trainsim=${1:?usage: determinism.sh TRAINSIM REPO}
repo=${2:?usage: determinism.sh TRAINSIM REPO}
cfg="$repo/configs/quickstart.json"
source "$(dirname "$0")/lib/tally.bash"

seed=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get("seed", 0))' "$cfg")

run() {  # tag [extra args...]
  local tag=$1
  shift
  local out
  out=$("$trainsim" run "$cfg" -o "$work/$tag.report.json" --trace "$work/$tag.trace.json" -q "$@" 2>&1)
  local rc=$?
  if [ $rc -ne 0 ]; then
    fail "run $tag" "exit $rc: $out"
    return 1
  fi
  pass "run $tag"
}

run first
run second
run same-seed --set "seed=$seed"

for other in second same-seed; do
  for kind in report trace; do
    a="$work/first.$kind.json"
    b="$work/$other.$kind.json"
    if [ -f "$a" ] && [ -f "$b" ] && cmp -s "$a" "$b"; then
      pass "$kind of '$other' is byte-identical to the first run"
    else
      fail "$kind of '$other'" "differs from the first run (or is missing): $(cmp "$a" "$b" 2>&1)"
    fi
  done
done

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
