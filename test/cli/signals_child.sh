#!/usr/bin/env bash
# Signals: a simulation child killed from outside -- SIGKILL, as the out-of-memory
# killer sends, or a SIGTERM sent to it alone -- ends the run with one line naming the signal and
# exit code 3 (the run was stopped), no report written and no process left; never an "internal
# error". (signals.sh covers signals to the parent, a killed parent and a stopped one.)
#
# Usage: bash signals_child.sh TRAINSIM REPO
set -u
set -m

trainsim=${1:?usage: signals_child.sh TRAINSIM REPO}
repo=${2:?usage: signals_child.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"
source "$(dirname "$0")/lib/processes.bash"
llama="$repo/configs/llama3-70b-512xh100.json"

for sig in KILL TERM; do
  num=$(kill -l "$sig")
  out="$work/$sig"
  mkdir -p "$out"
  timeout -s KILL 60 "$trainsim" run "$llama" --fidelity full -q -o "$out/r.json" 2>"$work/$sig.err" &
  job=$!
  parent=$(child_of "$job")
  child=${parent:+$(child_of "$parent")}
  if [ -z "$child" ]; then
    fail "SIG$sig to the child" "no simulation child appeared"
    kill -KILL "$job" 2>/dev/null
    continue
  fi
  kill -s "$sig" "$child"
  wait "$job"
  rc=$?
  if [ $rc -eq 3 ] && [ "$(wc -l <"$work/$sig.err")" -eq 1 ] &&
     grep -q "the run was stopped: its simulation process was killed by SIG$sig (signal $num)" "$work/$sig.err"; then
    pass "SIG$sig to the child: exit 3, one line naming the signal"
  else
    fail "SIG$sig to the child" "exit $rc: $(head -c 300 "$work/$sig.err")"
  fi
  if [ -z "$(ls -A "$out")" ]; then pass "SIG$sig to the child: nothing written"; else fail "SIG$sig files" "$(ls -A "$out")"; fi
  left=$(pgrep -g "$job" | tr '\n' ' ')
  if [ -z "$left" ]; then pass "SIG$sig to the child: no process left"; else fail "SIG$sig processes" "$left"; kill -KILL $left; fi
done

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
