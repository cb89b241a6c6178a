#!/usr/bin/env bash
# The allocator tuning (sim/core/allocator_tuning.hpp): trainsim re-executes itself once with
# glibc.malloc.tcache_count added to GLIBC_TUNABLES, and nothing a user can see changes.
#
# Usage: bash allocator_tuning.sh TRAINSIM REPO
#
# Expectation:
# - the process runs with the tunable, and with a user's own tunables kept: the environment block
#   of a running trainsim (/proc/PID/environ; the PID stays the same across the exec) holds
#   GLIBC_TUNABLES=<the user's>:<ours>, and /proc/PID/cmdline the arguments as given. glibc ends
#   the string in place after each tunable it reads (NUL for ':'), so the block is searched with
#   that ':' as either byte. Under a sanitizer (CI's build-asan) nothing is re-executed and
#   GLIBC_TUNABLES stays as the user set it;
# - a report is byte-identical whether trainsim tunes the allocator itself or the user has already
#   set tcache_count (to glibc's default, 7: no re-execution) -- the tuning changes where memory
#   comes from, never a result -- and a --set value with spaces and non-ASCII text comes back in
#   the report's name;
# - a bad argument still gives one line and exit code 2 (not a line from each process).
set -u

trainsim=${1:?usage: allocator_tuning.sh TRAINSIM REPO}
repo=${2:?usage: allocator_tuning.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"
cfg="$repo/configs/quickstart.json"

report() {  # TAG [env assignments...]: runs quickstart with `--set name=...` under that environment
  local tag=$1
  shift
  if env "$@" "$trainsim" run "$cfg" --set "name=ü 名 $tag" -q -o "$work/$tag.json" 2>"$work/$tag.err"; then
    pass "run $tag"
  else
    fail "run $tag" "exit $?: $(cat "$work/$tag.err")"
  fi
}

sanitized=false
if grep -q -a __asan_init "$trainsim"; then sanitized=true; fi

# A run long enough to read its /proc entries (GPT-3 175B on 1,024 GPUs at full fidelity: seconds).
GLIBC_TUNABLES=glibc.malloc.check=0 "$trainsim" run "$repo/configs/gpt3-175b-1024xa100.json" --fidelity full \
  --set "name=a b" -q -o "$work/long.json" &
pid=$!
sleep 1
environ=$(tr '\0' '|' <"/proc/$pid/environ" 2>/dev/null | grep -o 'GLIBC_TUNABLES=[^|]*[|:]\?[^|=]*=\?[^|]*')
cmdline=$(tr '\0' '|' <"/proc/$pid/cmdline" 2>/dev/null)
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
expected="GLIBC_TUNABLES=glibc.malloc.check=0[|:]glibc.malloc.tcache_count=2000"
if $sanitized; then
  expected="GLIBC_TUNABLES=glibc.malloc.check=0 (and no tcache_count)"
  [[ "$environ" == GLIBC_TUNABLES=glibc.malloc.check=0* && "$environ" != *tcache_count* ]] && environ=$expected
fi
if [[ "$environ" =~ ^${expected}$ || "$environ" == "$expected" ]]; then
  pass "the running process's tunables: $environ"
else
  fail "the running process's tunables" "'$environ', expected '$expected'"
fi
if [ "$cmdline" = "$trainsim|run|$repo/configs/gpt3-175b-1024xa100.json|--fidelity|full|--set|name=a b|-q|-o|$work/long.json|" ]; then
  pass "the running process's arguments are the ones given"
else
  fail "the running process's arguments are the ones given" "'$cmdline'"
fi

report tuned
report preset GLIBC_TUNABLES=glibc.malloc.tcache_count=7

# The name differs by tag; everything else must be identical.
for tag in preset; do
  if python3 - "$work/tuned.json" "$work/$tag.json" "$tag" <<'PY'; then
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
tag = sys.argv[3]
assert a.pop("name") == "ü 名 tuned", "the tuned run's name came back changed"
assert b.pop("name") == f"ü 名 {tag}", f"the {tag} run's name came back changed"
assert a == b, "reports differ"
PY
    pass "$tag report identical to the tuned one"
  else
    fail "$tag report identical to the tuned one" "see above"
  fi
done

out=$("$trainsim" run "$cfg" --set parallelism.tpp=2 -q 2>&1)
rc=$?
lines=$(printf '%s\n' "$out" | wc -l)
if [ $rc -eq 2 ] && [ "$lines" -eq 1 ]; then
  pass "a bad --set after the re-execution: one line, exit 2"
else
  fail "a bad --set after the re-execution: one line, exit 2" "exit $rc, $lines lines: $out"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
