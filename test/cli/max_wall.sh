#!/usr/bin/env bash
# `--max-wall SECONDS` stops `trainsim run` and `trainsim validate` cleanly (sim/cli/main.cpp):
# exit code 3, nothing on stdout from `run`, one line on stderr
#   "trainsim: error: FILE: the run was stopped: it exceeded --max-wall N s",
# no report, trace or temporary file written, an existing report left as it was, and no
# simulation process left running.
#
# Usage: bash max_wall.sh TRAINSIM REPO
#
# Expectation: the GPT-3 config takes about a second to plan and simulate, so a 0.01 s bound stops
# it while it plans; the Llama 3 config at full fidelity, interleaved over 20 virtual stages, plans
# in well under a second and then simulates for several, so a 1 s bound stops it in the engine's
# child process, which is killed:
# the command returns within a few seconds. A bound the run stays within changes nothing.
set -u

trainsim=${1:?usage: max_wall.sh TRAINSIM REPO}
repo=${2:?usage: max_wall.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"

stopped() {  # name file-named-in-message bound [trainsim args...]
  local name=$1 names=$2 bound=$3
  shift 3
  mkdir -p "$work/$name"
  local start=$SECONDS
  "$trainsim" "$@" >"$work/$name.out" 2>"$work/$name.err"
  local rc=$? took=$((SECONDS - start))
  local line
  line=$(head -n 1 "$work/$name.err")
  local expect="trainsim: error: $names: the run was stopped: it exceeded --max-wall $bound s"
  if [ $rc -ne 3 ]; then
    fail "$name" "exit code $rc (expected 3); stderr: $(head -c 400 "$work/$name.err")"
  elif [ "$(wc -l <"$work/$name.err")" -ne 1 ] || [ "$line" != "$expect" ]; then
    fail "$name" "stderr is not the one line '$expect': $(head -c 400 "$work/$name.err")"
  elif [ "$took" -gt 10 ]; then
    fail "$name" "took $took s to stop"
  else
    pass "$name: exit 3 and one line"
  fi
}

gpt3="$repo/configs/gpt3-175b-1024xa100.json"
stopped planning "$gpt3" 0.01 run "$gpt3" --max-wall 0.01 -o "$work/planning/r.json" --trace "$work/planning/t.json"
if [ -s "$work/planning.out" ]; then fail "planning: stdout" "not empty: $(head -c 200 "$work/planning.out")"; fi
leftovers=$(ls -A "$work/planning")
if [ -z "$leftovers" ]; then pass "planning: no report, trace or temporary file"; else fail "planning: files" "$leftovers"; fi

# An existing report survives a stopped run unchanged.
mkdir -p "$work/keep"
echo '{"old": true}' >"$work/keep/r.json"
cp "$work/keep/r.json" "$work/keep.before"
stopped keep "$gpt3" 0.01 run "$gpt3" --max-wall 0.01 -o "$work/keep/r.json"
if cmp -s "$work/keep/r.json" "$work/keep.before" && [ "$(ls -A "$work/keep")" = "r.json" ]; then
  pass "keep: the existing report is unchanged, no temporary file"
else
  fail "keep" "the existing report changed or a file was added: $(ls -A "$work/keep")"
fi

# Stopped while the engine simulates: its child process is killed, not left running.
llama="$repo/configs/llama3-70b-512xh100.json"
stopped engine "$llama" 1 run "$llama" --fidelity full --set parallelism.virtual_stages=20 --max-wall 1 -o "$work/engine/r.json"
sleep 0.2
if pgrep -f "$work/engine/r.json" >/dev/null; then
  fail "engine: child" "a trainsim process with this run's arguments is still running"
else
  pass "engine: no simulation process left running"
fi
if [ -z "$(ls -A "$work/engine")" ]; then pass "engine: no report"; else fail "engine: files" "$(ls -A "$work/engine")"; fi

# validate: the bound covers the whole table.
table="$work/table.json"
python3 - "$gpt3" "$table" <<'PY'
import json, sys
scenario = json.load(open(sys.argv[1]))
json.dump({"kind": "validation", "description": "max_wall.sh",
           "runs": [{"name": "gpt3", "group": "g", "published": {"step_time_s": 1.0}, "note": "",
                     "scenario": scenario}]}, open(sys.argv[2], "w"))
PY
stopped validate "$table" 0.01 validate "$table" --max-wall 0.01

# Within the bound: same report as without one.
quick="$repo/configs/quickstart.json"
"$trainsim" run "$quick" -q -o "$work/free.json" && "$trainsim" run "$quick" -q --max-wall 600 -o "$work/bounded.json"
rc=$?
if [ $rc -eq 0 ] && cmp -s "$work/free.json" "$work/bounded.json"; then
  pass "a bound the run stays within changes nothing"
else
  fail "generous bound" "exit $rc, or the reports differ"
fi

# Not a positive number: a usage error (exit 2, one line).
for bad in 0 -1 soon; do
  "$trainsim" run "$quick" -q --max-wall "$bad" >"$work/bad.out" 2>"$work/bad.err"
  rc=$?
  if [ $rc -eq 2 ] && [ "$(wc -l <"$work/bad.err")" -eq 1 ]; then
    pass "--max-wall $bad is rejected"
  else
    fail "--max-wall $bad" "exit $rc: $(head -c 300 "$work/bad.err")"
  fi
done

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
