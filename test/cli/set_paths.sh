#!/usr/bin/env bash
# Relative paths given with --set are relative to the working directory, as the user typed them on
# the command line; relative paths written in the scenario file stay relative to that file's
# folder. The scenario lies in one folder, the command runs from another, and each folder holds a
# different file of the same relative name (a device, a model, a cluster, a failure trace): the
# run says which one it read (the device's and the model's names, the trace's failure count).
#
# Usage: bash set_paths.sh TRAINSIM REPO
set -u

trainsim=${1:?usage: set_paths.sh TRAINSIM REPO}
repo=${2:?usage: set_paths.sh TRAINSIM REPO}
trainsim=$(cd "$(dirname "$trainsim")" && pwd)/$(basename "$trainsim")
source "$(dirname "$0")/lib/tally.bash"

scen="$work/scenarios"
here="$work/here"
mkdir -p "$scen/dev" "$here/dev"
# The same relative name in both folders, different devices: the working directory's is an H100,
# the scenario folder's an A100.
cp "$repo/topologies/devices/h100-sxm.json" "$here/dev/gpu.json"
cp "$repo/topologies/devices/a100-sxm-80gb.json" "$scen/dev/gpu.json"
# Two models named apart, the same shape.
python3 - "$repo/models/gpt-7.5b.json" "$here/model.json" "$scen/model.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
for path, name in ((sys.argv[2], "model-of-the-working-directory"), (sys.argv[3], "model-of-the-scenario-folder")):
    json.dump(dict(m, name=name), open(path, "w"), indent=1)
PY
python3 - "$repo/configs/quickstart.json" "$scen/s.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["model"] = "model.json"  # written in the file: relative to the file's folder
json.dump(s, open(sys.argv[2], "w"), indent=1)
PY

run() { (cd "$here" && "$trainsim" run ../scenarios/s.json "$@" 2>&1); }

# A path written in the scenario file: the scenario folder's model.
out=$(run)
if grep -q "model-of-the-scenario-folder" <<<"$out"; then
  pass "a path in the scenario file is relative to the file's folder"
else
  fail "a path in the scenario file" "$(head -1 <<<"$out")"
fi

# --set model=model.json: the working directory's.
out=$(run --set model=model.json)
if grep -q "model-of-the-working-directory" <<<"$out"; then
  pass "--set model=model.json is relative to the working directory"
else
  fail "--set model=model.json" "$(head -1 <<<"$out")"
fi

# --set cluster.gpu=dev/gpu.json and ./dev/gpu.json: the working directory's H100.
for path in dev/gpu.json ./dev/gpu.json; do
  out=$(run --set cluster.gpu=$path)
  if grep -q "x h100-sxm" <<<"$out" && ! grep -q "a100" <<<"$out"; then
    pass "--set cluster.gpu=$path is relative to the working directory"
  else
    fail "--set cluster.gpu=$path" "$(head -1 <<<"$out")"
  fi
done
# The same file by its absolute path gives the same report, byte for byte.
a=$(run --set cluster.gpu=dev/gpu.json)
b=$(run --set cluster.gpu="$here/dev/gpu.json")
if [ -n "$a" ] && [ "$a" = "$b" ]; then pass "a relative --set path and its absolute path agree"; else fail "relative and absolute --set paths" "$(head -1 <<<"$a") / $(head -1 <<<"$b")"; fi

# A whole cluster object given with --set: its "from" is relative to the working directory too.
cp "$repo/topologies/dgx-h100-superpod.json" "$here/cluster.json"
out=$(run --set 'cluster={"from": "cluster.json", "gpus": 16}')
if grep -q "x h100-sxm" <<<"$out"; then
  pass "--set cluster={\"from\": \"cluster.json\"} is relative to the working directory"
else
  fail "--set cluster with from" "$(head -1 <<<"$out")"
fi

# A --set path that names nothing in the working directory: one line naming the working directory,
# exit 2 (the scenario folder's dev/gpu.json is not taken instead).
rm "$here/dev/gpu.json"
err=$( (cd "$here" && "$trainsim" run ../scenarios/s.json --set cluster.gpu=dev/gpu.json) 2>&1 >/dev/null)
rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l <<<"$err")" -eq 1 ] && grep -q "working directory" <<<"$err"; then
  pass "a missing --set path: one line naming the working directory, exit 2"
else
  fail "a missing --set path" "rc $rc: $err"
fi

# A failure trace: two traces of the same name, 1 failure in the working directory's, 3 in the
# scenario folder's; the report counts what it read.
printf 'time,component,location\n10 h,faulty-gpu,node-0\n' >"$here/trace.csv"
printf 'time,component,location\n10 h,faulty-gpu,node-0\n20 h,faulty-gpu,node-1\n30 h,faulty-gpu,node-2\n' >"$scen/trace.csv"
trace_run() {
  (cd "$here" && "$trainsim" run ../scenarios/s.json -q -o "$work/r.json" \
    --set 'failures={"kind": "trace", "trace": "trace.csv", "horizon": "2 d"}' "$@" >/dev/null 2>"$work/trace.err")
  python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['reliability']['interruptions'])" "$work/r.json" 2>&1
}
n=$(trace_run)
if [ "$n" = "1" ] || [ "$n" = "1.0" ]; then
  pass "--set failures.trace is relative to the working directory (1 failure read)"
else
  fail "--set failures.trace" "interruptions $n; $(cat "$work/trace.err")"
fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
