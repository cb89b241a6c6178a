#!/usr/bin/env bash
# An interrupted `trainsim run` leaves nothing behind (sim/core/interrupt.hpp,
# sim/engine/fork_call.hpp): SIGINT, SIGTERM or SIGHUP to the parent while its forked simulation
# child runs end both, with exit status 128 + signal (as a shell expects of a process killed by
# it) and no file in the output folder; a SIGKILLed parent (which runs no handler) takes its child
# along; and a child past --max-wall ends on its own even while its parent is stopped.
#
# Usage: bash signals.sh TRAINSIM REPO
#
# Expectation: the Llama 3 config at full fidelity plans in about 0.1 s and then simulates for
# several seconds in a child process, so the signal always arrives while the child runs (the test
# waits for the child to appear first). Each process is checked by pid: gone, or a zombie waiting
# for a reaper (/proc/PID/stat state Z), within 2 s. Background jobs run with job control (set -m)
# so that they do not start with SIGINT ignored and each has its own process group.
set -u
set -m

trainsim=${1:?usage: signals.sh TRAINSIM REPO}
repo=${2:?usage: signals.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"
source "$(dirname "$0")/lib/processes.bash"
llama="$repo/configs/llama3-70b-512xh100.json"

alive() {  # pid: running or stopped, not a zombie
  local state
  state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
  [ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ]
}

gone_within() {  # pid seconds
  local end=$((SECONDS + $2))
  while alive "$1"; do
    [ $SECONDS -ge $end ] && return 1
    sleep 0.1
  done
  return 0
}

for sig in INT TERM HUP; do
  num=$(kill -l "$sig")
  out="$work/$sig"
  mkdir -p "$out"
  timeout -s KILL 60 "$trainsim" run "$llama" --fidelity full -q -o "$out/r.json" 2>"$work/$sig.err" &
  job=$!
  parent=$(child_of "$job")  # timeout's child: trainsim
  child=${parent:+$(child_of "$parent")}
  if [ -z "$parent" ] || [ -z "$child" ]; then
    fail "SIG$sig" "no simulation child appeared"
    kill -KILL "$job" 2>/dev/null
    wait "$job" 2>/dev/null
    continue
  fi
  kill -s "$sig" "$parent"
  wait "$job"
  rc=$?
  if [ $rc -eq $((128 + num)) ]; then pass "SIG$sig: exit status $rc (128 + $num)"; else fail "SIG$sig: exit status" "$rc, expected $((128 + num))"; fi
  if gone_within "$child" 2; then pass "SIG$sig: the simulation child is gone"; else fail "SIG$sig: child" "pid $child still runs"; kill -KILL "$child"; fi
  left=$(pgrep -g "$job" | tr '\n' ' ')
  if [ -z "$left" ]; then pass "SIG$sig: nothing left in the process group"; else fail "SIG$sig: process group" "$left"; fi
  if [ -z "$(ls -A "$out")" ]; then pass "SIG$sig: no report or temporary file"; else fail "SIG$sig: files" "$(ls -A "$out")"; fi
done

# A SIGKILLed parent runs no handler: the child dies with it (PR_SET_PDEATHSIG).
timeout -s KILL 60 "$trainsim" run "$llama" --fidelity full -q 2>/dev/null &
job=$!
parent=$(child_of "$job")
child=${parent:+$(child_of "$parent")}
if [ -n "$child" ]; then
  kill -KILL "$parent"
  wait "$job" 2>/dev/null
  if gone_within "$child" 2; then pass "SIGKILL to the parent: the child dies too"; else fail "SIGKILL" "child $child still runs"; kill -KILL "$child"; fi
else
  fail "SIGKILL" "no simulation child appeared"
  kill -KILL "$job" 2>/dev/null
fi

# A stopped parent cannot stop its child at --max-wall: the child's own timer ends it (0.5 s after
# the deadline). Once the parent continues, it reports the run as stopped by --max-wall (exit 3).
timeout -s KILL 60 "$trainsim" run "$llama" --fidelity full -q --max-wall 1 2>"$work/stop.err" &
job=$!
parent=$(child_of "$job")
child=${parent:+$(child_of "$parent")}
if [ -n "$child" ]; then
  kill -STOP "$parent"
  if gone_within "$child" 4; then pass "stopped parent: the child ends at --max-wall by itself"; else fail "stopped parent" "child $child still runs 4 s after a 1 s --max-wall"; kill -KILL "$child"; fi
  kill -CONT "$parent"
  wait "$job"
  rc=$?
  expect="trainsim: error: $llama: the run was stopped: it exceeded --max-wall 1 s"
  if [ $rc -eq 3 ] && [ "$(cat "$work/stop.err")" = "$expect" ]; then
    pass "stopped parent, continued: exit 3 and the --max-wall line"
  else
    fail "stopped parent, continued" "exit $rc: $(head -c 300 "$work/stop.err")"
  fi
else
  fail "stopped parent" "no simulation child appeared"
  kill -KILL "$job" 2>/dev/null
fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
