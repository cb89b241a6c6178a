#!/usr/bin/env bash
# scripts/merge-measurements joins kernel-suite files of one GPU: every record of every input, in
# order; groups listed; wall times summed; each input's provenance kept; the result is a
# measurements file trainsim calibrate reads. Files of different GPUs and bad usage: one line,
# exit 2.
#
# Usage: bash merge_measurements.sh TRAINSIM REPO
set -u

trainsim=${1:?usage: merge_measurements.sh TRAINSIM REPO}
repo=${2:?usage: merge_measurements.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"
merge="$repo/scripts/merge-measurements"

prov() {  # gpu groups wall
  printf '{"gpu": "%s", "source": "suite", "profile": "h200-sxm", "sms": 132, "compute_capability": "9.0", "groups": "%s", "wall_time": "%s"}' "$1" "$2" "$3"
}
cat >"$work/a.json" <<EOF
{"kind": "measurements", "schema": 1, "provenance": $(prov "NVIDIA H200" gemm "2.5 s"),
 "gemm": [{"m": 8192, "n": 8192, "k": 8192, "batch": 1, "dtype": "bf16", "time": "1.5 ms"},
          {"m": 4096, "n": 4096, "k": 4096, "batch": 1, "dtype": "bf16", "time": "0.2 ms"}]}
EOF
cat >"$work/b.json" <<EOF
{"kind": "measurements", "schema": 1, "provenance": $(prov "NVIDIA H200" memory "1500 ms"),
 "memory": [{"kernel": "copy", "bytes": 1073741824, "time": "0.25 ms"},
            {"kernel": "copy", "bytes": 2147483648, "time": "0.5 ms"},
            {"kernel": "copy", "bytes": 4294967296, "time": "1.0 ms"}]}
EOF
sed 's/NVIDIA H200/NVIDIA H100 80GB HBM3/' "$work/b.json" >"$work/other-gpu.json"

if "$merge" "$work/m.json" "$work/a.json" "$work/b.json" >"$work/out" 2>&1; then
  pass "merges two files: $(cat "$work/out")"
else
  fail "merge" "$(cat "$work/out")"
fi
python3 - "$work/m.json" <<'PY' >"$work/checks" 2>&1
import json, sys
m = json.load(open(sys.argv[1]))
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
p = m["provenance"]
check(len(m["gemm"]) == 2 and len(m["memory"]) == 3, "all 5 records kept (2 gemm + 3 memory)")
check(m["gemm"][0]["m"] == 8192 and m["memory"][2]["bytes"] == 4294967296, "records in input order")
check(p["groups"] == "gemm,memory", f"groups '{p['groups']}'")
check(p["wall_time"] == "4.0 s", f"wall time summed: {p['wall_time']} (2.5 s + 1500 ms)")
check([x["groups"] for x in p["parts"]] == ["gemm", "memory"], "each input's provenance kept under parts")
PY
while IFS= read -r line; do
  case "$line" in "ok   "*) pass "${line#ok   }" ;; *) fail "${line#FAIL }" "(above)" ;; esac
done <"$work/checks"
if "$trainsim" calibrate "$work/m.json" --check >"$work/out" 2>&1 && grep -q "^gemm bf16 *2 " "$work/out" &&
   grep -q "^memory copy *3 " "$work/out"; then
  pass "trainsim calibrate --check reads the merged file"
else
  fail "calibrate reads the merge" "$(cat "$work/out")"
fi

bad() {  # name fragment args...
  local name=$1 fragment=$2
  shift 2
  "$merge" "$@" >"$work/out" 2>"$work/err"
  local rc=$?
  if [ $rc -eq 2 ] && [ "$(wc -l <"$work/err")" -eq 1 ] && grep -qF -- "$fragment" "$work/err" && [ ! -e "$work/bad.json" ]; then
    pass "$name"
  else
    fail "$name" "exit $rc, stderr '$(cat "$work/err")' (wanted '$fragment'), output written: $([ -e "$work/bad.json" ] && echo yes || echo no)"
  fi
}
printf '{"kind": "device"}' >"$work/not-measurements.json"
printf '{"kind": "measurements", "schema": 1, "provenance": {"gpu": "x", "wall_time": "soon"}}' >"$work/bad-wall.json"
bad "different GPUs" "other-gpu.json: /provenance/gpu: 'NVIDIA H100 80GB HBM3' differs" "$work/bad.json" "$work/a.json" "$work/other-gpu.json"
bad "not a measurements file" "not-measurements.json: not a measurements file" "$work/bad.json" "$work/not-measurements.json"
bad "missing input" "missing.json" "$work/bad.json" "$work/missing.json"
bad "wall time that is no time" "bad-wall.json: /provenance/wall_time: 'soon' is not a time" "$work/bad.json" "$work/bad-wall.json"
bad "unwritable output" "$work/no/such/dir/out.json: cannot write" "$work/no/such/dir/out.json" "$work/a.json"
bad "no inputs" "usage: scripts/merge-measurements OUT.json IN.json" "$work/bad.json"

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
