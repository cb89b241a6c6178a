#!/usr/bin/env bash
# `trainsim calibrate` keeps the promises of the other commands: a measurement file with
# a record no measurement could give (negative or zero repetitions, a memory-bound kernel the
# suite does not have) is one line and exit 2; options that the mode would ignore (--check with
# -o, --name or --exclude; --device without --check) are refused; a profile name that `run` would
# refuse (a control character) is refused before the fit; and the profile written from the
# kernel suite's own H200 measurements carries no null provenance field and runs.
#
# Usage: bash calibrate_promises.sh TRAINSIM REPO
set -u
trainsim=${1:?usage: calibrate_promises.sh TRAINSIM REPO}
repo=${2:?usage: calibrate_promises.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"
T=120

refused() {  # NAME FRAGMENT CMD...: exit 2, one line containing FRAGMENT, nothing written to $work/out.json
  local name=$1 fragment=$2
  shift 2
  rm -f "$work/out.json"
  timeout $T "$@" >/dev/null 2>"$work/err" </dev/null
  local rc=$?
  if [ $rc -eq 2 ] && [ "$(wc -l <"$work/err")" -eq 1 ] && grep -qF -- "$fragment" "$work/err" && [ ! -e "$work/out.json" ]; then
    pass "$name"
  else
    fail "$name" "exit $rc: $(head -c 300 "$work/err")"
  fi
}

meas="$repo/calibration/measured/nvidia-h200-2026-11-30.json"
python3 - "$meas" "$work" <<'PY'
import json, sys
src, work = sys.argv[1:]
m = json.load(open(src))
rec = next(r for r in m["memory"] if "reps" in r)
for name, edit in [("neg-reps", {"reps": -5}), ("zero-reps", {"reps": 0}), ("typo-kernel", {"kernel": "rmsnrom_fwd"})]:
    d = json.loads(json.dumps(m))
    r = next(x for x in d["memory"] if x == rec)
    r.update(edit)
    json.dump(d, open(f"{work}/{name}.json", "w"))
PY
refused "negative repetitions" "/reps: " "$trainsim" calibrate "$work/neg-reps.json" -o "$work/out.json"
refused "zero repetitions" "/reps: " "$trainsim" calibrate "$work/zero-reps.json" -o "$work/out.json"
refused "an unknown memory-bound kernel" "did you mean 'rmsnorm_fwd'" "$trainsim" calibrate "$work/typo-kernel.json" -o "$work/out.json"
refused "--check with -o" "excludes --check" "$trainsim" calibrate "$meas" --check -o "$work/out.json"
refused "--check with --name" "--name excludes --check" "$trainsim" calibrate "$meas" --check --name x
refused "--device without --check" "--device requires --check" "$trainsim" calibrate "$meas" --device h200-sxm -o "$work/out.json"
refused "a --name holding a newline" "contains a control character" "$trainsim" calibrate "$meas" --name "$(printf 'a\nb')" -o "$work/out.json"
nl_out="$work/$(printf 'a\nb').json"
refused "an output name holding a newline" "contains a control character" "$trainsim" calibrate "$meas" -o "$nl_out"
[ -e "$nl_out" ] && fail "the newline output" "was written" || pass "the newline output was not written"

if timeout $T "$trainsim" calibrate "$meas" -o "$work/fitted.json" >/dev/null 2>"$work/err"; then
  nulls=$(python3 -c "import json,sys; p=json.load(open(sys.argv[1]))['calibration']['provenance']; print(','.join(k for k,v in p.items() if v is None))" "$work/fitted.json")
  if [ -z "$nulls" ]; then pass "the written profile has no null provenance field"; else fail "null provenance" "$nulls"; fi
  python3 - "$repo/configs/quickstart.json" "$work/fitted.json" "$work/s.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["cluster"] = {"from": "dgx-h100-superpod", "gpus": 16, "gpu": sys.argv[2]}
json.dump(s, open(sys.argv[3], "w"))
PY
  if timeout $T "$trainsim" run "$work/s.json" -q 2>"$work/err"; then pass "run takes the written profile"; else fail "run on the profile" "$(head -c 300 "$work/err")"; fi
else
  fail "calibrate the H200 measurements" "$(head -c 300 "$work/err")"
fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
