#!/usr/bin/env bash
# `trainsim shapes`: the kernel suite's shapes file (sim/kernels/shapes.txt) is what the shipped
# configs run (regenerated here and compared), and the shapes follow from the scenario: GPT-3 175B
# at TP 8 runs the QKV projection as tokens x 3h/t x h, i.e. micro_batch*seq_len x 4608 x 12288
# (Narayanan et al. 2021), computed here from the config and model files.
#
# Usage: bash shapes.sh TRAINSIM REPO
set -u

trainsim=${1:?usage: shapes.sh TRAINSIM REPO}
repo=${2:?usage: shapes.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"
cd "$repo" || exit 1

if "$trainsim" shapes configs/*.json >"$work/shapes.txt" 2>"$work/err" && cmp -s "$work/shapes.txt" sim/kernels/shapes.txt; then
  pass "sim/kernels/shapes.txt is up to date"
else
  fail "sim/kernels/shapes.txt" "differs from 'trainsim shapes configs/*.json' (regenerate it): $(cat "$work/err")"
fi

qkv=$(python3 - <<'PY'
import json
c = json.load(open("configs/gpt3-175b-1024xa100.json"))
m = json.load(open("models/" + c["model"] + ".json"))
val = lambda e: e["value"] if isinstance(e, dict) else e
h, tp, seq = val(m["hidden"]), c["parallelism"]["tp"], c["training"]["seq_len"]
mb = c["training"].get("micro_batch", 1)
mb = 1 if mb == "auto" else mb
print(f"gemm {mb * seq} {3 * h // tp} {h} 1")
PY
)
"$trainsim" shapes configs/gpt3-175b-1024xa100.json >"$work/gpt3.txt" 2>&1
if grep -qx "$qkv" "$work/gpt3.txt"; then pass "GPT-3 175B QKV projection: $qkv"; else fail "GPT-3 QKV" "no '$qkv' in $(cat "$work/gpt3.txt")"; fi

"$trainsim" shapes "$work/missing.json" >"$work/out" 2>"$work/err"
rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l <"$work/err")" -eq 1 ]; then pass "a missing config: exit 2, one line"; else fail "missing config" "exit $rc: $(cat "$work/err")"; fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
