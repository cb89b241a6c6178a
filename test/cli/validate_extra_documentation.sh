#!/usr/bin/env bash
# `trainsim validate` runs exactly each row's scenario: the text of a row's `extra` changes
# nothing. A row whose `extra` states settings in the spellings validate once read from it (a
# boolean torch_compile / overlap_grad_reduce / grad_reduce_in_fp32 / tp_comm_overlap; llm-foundry's
# "attn_impl default 'triton'", torchtitan's "selective_ac_option='op'" and "torchtitan 9dec370",
# Transformer Engine's "fused attention", torchao's "dynamic tensorwise scaling" ...) while its
# scenario states none of those keys is predicted as `trainsim run` predicts that scenario, i.e.
# with every default. The same scenario with one of those settings written in as a key is slower
# (so the comparison can fail), and validate honours the key. A key the table's format does not
# have is refused: one line, exit 2.
#
# Usage: bash validate_extra_documentation.sh TRAINSIM REPO
set -u

trainsim=${1:?usage: validate_extra_documentation.sh TRAINSIM REPO}
repo=${2:?usage: validate_extra_documentation.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"

# Llama 3 8B, four layers, on 8 H100s with ZeRO-3, in FP8.
python3 - "$work" <<'PY'
import copy, json, sys
work = sys.argv[1]
base = {"name": "s", "seed": 1,
        "model": {"name": "llama3-8b-4l", "layers": 4, "hidden": 4096, "heads": 32, "kv_heads": 8,
                  "ffn_hidden": 14336, "vocab": 128256, "activation": "swiglu"},
        "cluster": {"from": "dgx-h100-superpod", "gpus": 8},
        "parallelism": {"tp": 1, "pp": 1, "dp": 8, "zero": 3},
        "training": {"seq_len": 8192, "global_batch": 16, "micro_batch": 2, "recompute": "selective",
                     "attention": "flash", "precision": "fp8"}}
extra = {"torch_compile": False, "overlap_grad_reduce": True, "grad_reduce_in_fp32": False, "tp_comm_overlap": True,
         "settings": "attn_impl default 'triton' (Triton FlashAttention kernel); flash-attn==1.0.7",
         "activation_checkpointing": "torchtitan 'selective' AC, selective_ac_option='op': per-op SAC",
         "framework": "torchtitan 9dec370 (2024-12-26); NeMo v2.2.0 scripts/llm/performance",
         "attention": "TransformerEngine fused attention (cuDNN flash)",
         "fp8_recipe": "torchao Float8Linear, dynamic tensorwise scaling, fp8_params=True"}
triton = copy.deepcopy(base)
triton["training"]["attention"] = "triton"
def row(name, scenario):
    return {"name": name, "group": "g", "published": {"step_time_s": 1.0}, "note": "test", "scenario": scenario,
            "extra": extra}
json.dump({"kind": "validation", "runs": [row("documented", base), row("stated", triton)]},
          open(f"{work}/table.json", "w"))
for name, s in (("default", base), ("triton", triton)):
    json.dump(dict(s, kind="scenario"), open(f"{work}/{name}.json", "w"))
bad = {"kind": "validation", "runs": [dict(row("bogus", base), settings={"attention": "cudnn"})]}
json.dump(bad, open(f"{work}/bad.json", "w"))
PY

"$trainsim" validate "$work/table.json" >"$work/out" 2>"$work/err"
code=$?
if [ $code -eq 0 ]; then pass "validate runs both rows"; else fail "validate runs both rows" "exit $code: $(cat "$work/err")"; fi
for s in default triton; do
  "$trainsim" run "$work/$s.json" -q -o "$work/$s-report.json" >"$work/$s.log" 2>&1 || fail "run $s" "$(cat "$work/$s.log")"
done
step() { python3 -c 'import json, sys; print("%.3f" % json.load(open(sys.argv[1]))["step_time_s"])' "$1" 2>/dev/null; }
printed() { awk -v n="$1" '$1 == n { sub(/s$/, "", $4); print $4 }' "$work/out"; }
default=$(step "$work/default-report.json")
triton=$(step "$work/triton-report.json")
if [ -n "$default" ] && [ "$(printed documented)" = "$default" ]; then
  pass "extra's text changes nothing: the row gets every default ($default s, as run prints)"
else
  fail "extra's text changes nothing" "validate $(printed documented) s, run on the scenario ${default:-?} s"
fi
if python3 -c 'import sys; sys.exit(not float(sys.argv[1]) > float(sys.argv[2]))' "${triton:-0}" "${default:-0}"; then
  pass "Triton's attention kernel is slower than FlashAttention-2 ($triton > $default s): the comparison can fail"
else
  fail "Triton's attention is slower" "${triton:-?} vs ${default:-?} s"
fi
if [ -n "$triton" ] && [ "$(printed stated)" = "$triton" ]; then
  pass "a setting the scenario states is honoured ($triton s)"
else
  fail "a setting the scenario states is honoured" "validate $(printed stated) s, run ${triton:-?} s"
fi
if grep -q "from extra" "$work/out"; then fail "no row says it took anything from extra" "$(grep 'from extra' "$work/out")"; else pass "no row says it took anything from extra"; fi

# A run-level key the table format does not have: refused, one line naming it, exit 2.
"$trainsim" validate "$work/bad.json" >"$work/out" 2>"$work/err"
code=$?
lines=$(wc -l <"$work/err")
if [ $code -eq 2 ] && [ "$lines" -eq 1 ] && grep -q "/runs/0" "$work/err" && grep -q "settings" "$work/err" && [ ! -s "$work/out" ]; then
  pass "an unknown key in a row: one line naming /runs/0 and the key, exit 2"
else
  fail "an unknown key in a row" "exit $code, $lines lines: $(cat "$work/err")"
fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
