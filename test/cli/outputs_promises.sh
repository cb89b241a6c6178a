#!/usr/bin/env bash
# Outputs never alias inputs and every write is checked: what trainsim writes never
# replaces a file it reads, never leaves a temporary file, and never claims success when a write
# failed.
#   1 an output (-o, --trace, --trials-csv, calibrate -o/--csv, search -o) naming any file the run
#     reads -- the scenario, a file in its `from` chain, the model, cluster or device file it
#     names, its failure trace, calibrate's base profile -- directly or through a link: one line,
#     exit 2, and the input byte for byte as it was
#   2 an append-only folder (chattr +a, where the file system keeps the flag): refused before the
#     run, and no temporary file left there
#   3 standard output on a full disk (/dev/full): one line, non-zero exit, for every subcommand
#     that prints; -q with --format (which would print nothing) is refused
#
# Usage: bash outputs_promises.sh TRAINSIM REPO
set -u
trainsim=${1:?usage: outputs_promises.sh TRAINSIM REPO}
repo=${2:?usage: outputs_promises.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"
T=60

# refused NAME FRAGMENT INPUT CMD...: exit 2, one stderr line containing FRAGMENT, INPUT unchanged.
refused() {
  local name=$1 fragment=$2 input=$3
  shift 3
  cp "$input" "$work/before"
  timeout $T "$@" >"$work/out" 2>"$work/err" </dev/null
  local rc=$? lines
  lines=$(wc -l <"$work/err")
  if [ $rc -ne 2 ] || [ "$lines" -ne 1 ]; then
    fail "$name" "exit $rc, $lines stderr lines: $(head -c 400 "$work/err")"
  elif ! grep -qF -- "$fragment" "$work/err"; then
    fail "$name" "stderr lacks '$fragment': $(head -c 400 "$work/err")"
  elif ! cmp -s "$work/before" "$input"; then
    fail "$name" "the input $input was changed"
  else
    pass "$name"
  fi
}

# A scenario whose every input is a file in the scratch folder, named by path.
d="$work/in"
mkdir -p "$d/traces"
cp "$repo/models/gpt-7.5b.json" "$d/model.json"
cp "$repo/topologies/dgx-a100-superpod.json" "$d/base-cluster.json"
cp "$repo/topologies/devices/a100-sxm-80gb.json" "$d/device.json"
cp "$repo/configs/traces/example-failures.csv" "$d/traces/failures.csv"
python3 - "$repo" "$d" <<'PY'
import json, sys
repo, d = sys.argv[1:]
s = json.load(open(f"{repo}/configs/quickstart.json"))
s["model"] = "model.json"
s["cluster"] = {"from": "base-cluster.json", "gpus": 16, "gpu": "device.json"}
s["failures"] = {"kind": "trace", "trace": "traces/failures.csv", "horizon": "7 d", "trials": 2}
s["recovery"] = {"kind": "checkpoint-restart"}
json.dump(s, open(f"{d}/scenario.json", "w"), indent=1)
PY
sc="$d/scenario.json"
if timeout $T "$trainsim" run "$sc" -q -o "$work/ok.json" 2>"$work/err"; then
  pass "the scratch scenario runs"
else
  fail "the scratch scenario runs" "$(head -c 400 "$work/err")"
fi

msg="writing it would overwrite it"
refused "run -o onto the scenario" "$msg" "$sc" "$trainsim" run "$sc" -q -o "$sc"
refused "run -o onto the model file" "$msg" "$d/model.json" "$trainsim" run "$sc" -q -o "$d/model.json"
refused "run -o onto the cluster's from file" "$msg" "$d/base-cluster.json" "$trainsim" run "$sc" -q -o "$d/base-cluster.json"
refused "run -o onto the device profile" "$msg" "$d/device.json" "$trainsim" run "$sc" -q -o "$d/device.json"
refused "run --trace onto the failure trace" "$msg" "$d/traces/failures.csv" \
  "$trainsim" run "$sc" -q --trace "$d/traces/failures.csv"
refused "run --trials-csv onto the failure trace" "$msg" "$d/traces/failures.csv" \
  "$trainsim" run "$sc" -q --trials-csv "$d/traces/failures.csv"
ln -s "$d/model.json" "$work/link.json"
refused "run -o through a link to the model file" "$msg" "$d/model.json" "$trainsim" run "$sc" -q -o "$work/link.json"
ln "$d/device.json" "$work/hardlink.json"
refused "run -o onto a hard link of the device profile" "$msg" "$d/device.json" \
  "$trainsim" run "$sc" -q -o "$work/hardlink.json"
refused "run --set naming a model file, -o onto it" "$msg" "$d/model.json" \
  "$trainsim" run "$repo/configs/quickstart.json" -q --set "model=\"$d/model.json\"" -o "$d/model.json"
refused "search -o onto the model file" "$msg" "$d/model.json" \
  "$trainsim" search "$sc" --top 1 -o "$d/model.json"
# calibrate: the base profile it fits from, and the profile it checks.
cp "$repo/topologies/devices/h200-sxm.json" "$d/h200.json"
meas="$repo/calibration/published/h200-sxm.json"
refused "calibrate --base p.json -o p.json" "$msg" "$d/h200.json" \
  "$trainsim" calibrate "$meas" --base "$d/h200.json" -o "$d/h200.json"
refused "calibrate --check --device p.json --csv p.json" "$msg" "$d/h200.json" \
  "$trainsim" calibrate "$meas" --check --device "$d/h200.json" --csv "$d/h200.json"

# 2: an append-only folder takes the temporary file but lets it be neither renamed nor removed.
mkdir "$work/append"
if chattr +a "$work/append" 2>/dev/null; then
  timeout $T "$trainsim" run "$repo/configs/quickstart.json" -q -o "$work/append/r.json" >/dev/null 2>"$work/err"
  rc=$?
  left=$(ls -A "$work/append")
  if [ $rc -eq 2 ] && [ "$(wc -l <"$work/err")" -eq 1 ] && grep -q "append-only" "$work/err" && [ -z "$left" ]; then
    pass "an append-only folder: refused, nothing left there"
  else
    fail "append-only folder" "exit $rc, left '$left': $(head -c 300 "$work/err")"
  fi
  chattr -a "$work/append"
else
  echo "skip an append-only folder: this file system keeps no attributes"
fi

# 3: a full disk behind standard output, for every subcommand that prints.
full() {
  local name=$1
  shift
  timeout $T "$@" >/dev/full 2>"$work/err" </dev/null
  local rc=$?
  if [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ "$(wc -l <"$work/err")" -eq 1 ] && grep -q "standard output" "$work/err"; then
    pass "$name > /dev/full: exit $rc and one line"
  else
    fail "$name > /dev/full" "exit $rc: $(head -c 300 "$work/err")"
  fi
}
quick="$repo/configs/quickstart.json"
timeout $T "$trainsim" run "$quick" -q -o "$work/r.json" 2>/dev/null
full "run" "$trainsim" run "$quick"
full "run --format json" "$trainsim" run "$quick" --format json
full "run -o -" "$trainsim" run "$quick" -o -
full "check" "$trainsim" check "$quick"
full "report" "$trainsim" report "$work/r.json"
full "report --format csv" "$trainsim" report "$work/r.json" --format csv
full "list" "$trainsim" list
full "shapes" "$trainsim" shapes "$quick"
full "--help" "$trainsim" --help
full "run --help" "$trainsim" run --help
full "calibrate --check" "$trainsim" calibrate "$meas" --check
full "search" "$trainsim" search "$quick" --top 1
python3 - "$quick" "$work/table.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s.pop("kind", None)
row = {"name": "quick", "group": "g", "published": {"step_time_s": 4.0}, "note": "test", "scenario": s}
json.dump({"kind": "validation", "runs": [row]}, open(sys.argv[2], "w"))
PY
full "validate" "$trainsim" validate "$work/table.json"

timeout $T "$trainsim" run "$quick" -q --format json >"$work/out" 2>"$work/err"
rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l <"$work/err")" -eq 1 ] && [ ! -s "$work/out" ]; then
  pass "-q with --format json: refused in one line"
else
  fail "-q --format json" "exit $rc, stdout $(wc -c <"$work/out") bytes: $(head -c 300 "$work/err")"
fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
