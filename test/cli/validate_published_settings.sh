#!/usr/bin/env bash
# `trainsim validate` simulates a row as it ran: the boolean settings a row states in `extra` that
# the scenario schema has a key for (torch_compile -> training.elementwise, overlap_grad_reduce,
# grad_reduce_in_fp32, tp_comm_overlap) are applied to its scenario, unless the scenario sets the
# key itself; anything else in `extra` (a string, an unknown key) changes nothing -- except a
# framework's own spelling of a variant of what the scenario says (torchtitan's
# selective_ac_option='op' refines recompute "selective" to "op"; llm-foundry's attn_impl 'triton'
# (and its 2024 sweep's "triton for 13b/30b", for those models) and a pinned flash-attn==1.x
# refine attention "flash" to "triton" and "flash1", the sweep's FlashAttention-2 for the other
# models to "flash_varlen"; Transformer Engine's fused attention, stated
# or run by NeMo's v2.2.0 performance scripts, refines it to "cudnn"; torchao's
# "dynamic tensorwise scaling" sets an fp8 run's fp8_scaling to "current", and its "torchao
# Float8Linear" the fp8_library, NeMo's fp8_params=True fp8_params; a compiled torchtitan
# 9dec370 ran its loss eager; torchtitan's tensor parallelism is DTensor's). Each row's prediction must
# equal `trainsim run` on the scenario with the setting written in by hand.
#
# Usage: bash validate_published_settings.sh TRAINSIM REPO
set -u

trainsim=${1:?usage: validate_published_settings.sh TRAINSIM REPO}
repo=${2:?usage: validate_published_settings.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"

# Llama 3 8B (RMSNorm, RoPE, SwiGLU, grouped keys: every eager kernel of ops.cpp) on 8 H100s with
# ZeRO-3, one layer pair to keep it quick.
python3 - "$work" <<'PY'
import copy, json, sys
work = sys.argv[1]
base = {"name": "s", "seed": 1,
        "model": {"name": "llama3-8b-4l", "layers": 4, "hidden": 4096, "heads": 32, "kv_heads": 8,
                  "ffn_hidden": 14336, "vocab": 128256, "activation": "swiglu"},
        "cluster": {"from": "dgx-h100-superpod", "gpus": 8},
        "parallelism": {"tp": 1, "pp": 1, "dp": 8, "zero": 3},
        "training": {"seq_len": 8192, "global_batch": 16, "micro_batch": 2, "recompute": "op"}}
def row(name, scenario, extra):
    return {"name": name, "group": "g", "published": {"step_time_s": 1.0}, "note": "test", "scenario": scenario,
            "extra": extra}
stated = copy.deepcopy(base)
stated["training"]["elementwise"] = "fused"
runs = [row("eager", base, {"torch_compile": False}),
        row("compiled", base, {"torch_compile": True}),
        row("stated-wins", stated, {"torch_compile": False}),
        row("not-a-bool", base, {"torch_compile": "no", "framework": "torchtitan"}),
        row("overlap", base, {"overlap_grad_reduce": True, "grad_reduce_in_fp32": False})]
selective = copy.deepcopy(base)
selective["training"]["recompute"] = "selective"
full = copy.deepcopy(base)
full["training"]["recompute"] = "full"
sac = "torchtitan 'selective' AC, selective_ac_option='op': per-op SAC"
runs += [row("sac-op", selective, {"activation_checkpointing": sac}),
         row("sac-layer", selective, {"activation_checkpointing": "selective layer"}),
         row("sac-full", full, {"activation_checkpointing": sac})]
flash = copy.deepcopy(base)
flash["training"]["attention"] = "flash"
cudnn = copy.deepcopy(base)
cudnn["training"]["attention"] = "cudnn"
runs += [row("attn-triton", flash, {"settings": "image x, attn_impl default 'triton' (Triton FlashAttention kernel)"}),
         row("attn-fa1", flash, {"settings": "installs flash-attn==1.0.7 for these runs"}),
         row("attn-cudnn-stays", cudnn, {"settings": "attn_impl default 'triton'"}),
         row("attn-triton-a100", flash, {"settings": "A100 80GB, 1600 Gbps node-node RoCE; attn_impl triton (Triton FlashAttention)"})]
# A setting stated per model: "triton for 13b/30b" refines an MPT-13B's flash, not another model's.
sweep = "attn_impl flash (FlashAttention-2) for 1b/3b/7b/70b and triton for 13b/30b"
mpt13 = copy.deepcopy(flash)
mpt13["model"]["name"] = "mpt-13b"
runs += [row("attn-13b", mpt13, {"settings": sweep}), row("attn-other-model", flash, {"settings": sweep})]
# Transformer Engine's attention is cuDNN's: a row that says so, and NeMo's v2.2.0 performance scripts.
nemo = "NeMo 2.0 (Megatron-Core); settings below are those of the NeMo v2.2.0 scripts/llm/performance recipes"
runs += [row("te-fused", flash, {"attention": "TransformerEngine fused attention (cuDNN flash)"}),
         row("nemo-perf", flash, {"framework": nemo}),
         row("nemo-other", flash, {"framework": "NeMo 2.0 (Megatron-Core), dgxc recipes"})]
fp8 = copy.deepcopy(base)
fp8["training"]["precision"] = "fp8"
torchao = "torchao Float8Linear on nn.Linear, dynamic tensorwise scaling (defaults)"
runs += [row("fp8-current", fp8, {"fp8_recipe": "dynamic tensorwise scaling (defaults)"}),
         row("fp8-torchao", fp8, {"fp8_recipe": torchao}),
         row("fp8-params", fp8, {"fp8_recipe": "TransformerEngine FP8 'hybrid', delayed scaling, fp8_params=True"}),
         row("bf16-no-scaling", base, {"fp8_recipe": torchao})]
titan = "torchtitan 9dec370 (2024-12-26), torch 1963fc8"
runs += [row("titan-compiled", base, {"framework": titan, "torch_compile": True}),
         row("titan-eager", base, {"framework": titan, "torch_compile": False}),
         row("titan-later", base, {"framework": "torchtitan e7c0cae (2025-06-11)", "torch_compile": True})]
tp8 = copy.deepcopy(base)
tp8["parallelism"] = {"tp": 8, "pp": 1, "dp": 1, "sequence_parallel": True}
tp8["training"]["global_batch"] = 2
tp8_stated = copy.deepcopy(tp8)
tp8_stated["parallelism"]["tp_library"] = "megatron"
runs += [row("titan-tp", tp8, {"framework": "torchtitan 820504e (2025-06)", "torch_compile": True}),
         row("titan-tp-stated", tp8_stated, {"framework": "torchtitan 820504e (2025-06)", "torch_compile": True})]
json.dump({"kind": "validation", "runs": runs}, open(f"{work}/table.json", "w"))
def scenario(name, **training_or_plan):
    s = copy.deepcopy(base)
    s["kind"] = "scenario"
    for k, v in training_or_plan.items():
        (s["parallelism"] if k == "overlap_grad_reduce" else s["training"])[k] = v
    json.dump(s, open(f"{work}/{name}.json", "w"))
scenario("eager", elementwise="eager")
scenario("fused", elementwise="fused")
scenario("overlap", overlap_grad_reduce=True, grad_reduce_in_fp32=False)
scenario("selective", recompute="selective")
scenario("full", recompute="full")
scenario("triton", attention="triton")
scenario("flash1", attention="flash1")
scenario("flash_varlen", attention="flash_varlen")
scenario("cudnn", attention="cudnn")
scenario("fp8", precision="fp8")
scenario("fp8-current", precision="fp8", fp8_scaling="current")
scenario("fp8-torchao", precision="fp8", fp8_scaling="current", fp8_library="torchao")
scenario("fp8-params", precision="fp8", fp8_params=True)
scenario("eager-loss", elementwise="fused", loss="eager")
for name, library in (("tp8", "megatron"), ("dtensor", "dtensor")):
    s = copy.deepcopy(tp8)
    s["kind"] = "scenario"
    s["training"]["elementwise"] = "fused"
    s["parallelism"]["tp_library"] = library
    json.dump(s, open(f"{work}/{name}.json", "w"))
PY

"$trainsim" validate "$work/table.json" >"$work/out" 2>"$work/err"
code=$?
if [ $code -eq 0 ]; then pass "validate runs every row"; else fail "validate runs every row" "exit $code: $(cat "$work/err")"; fi
for s in eager fused overlap selective full triton flash1 flash_varlen cudnn fp8 fp8-current fp8-torchao fp8-params eager-loss tp8 dtensor; do
  "$trainsim" run "$work/$s.json" -q -o "$work/$s-report.json" >"$work/$s.log" 2>&1 ||
    fail "run $s" "$(cat "$work/$s.log")"
done

python3 - "$work" <<'PY' >"$work/checks" 2>&1
import json, sys
work = sys.argv[1]
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
predicted, lines = {}, {}
for line in open(f"{work}/out"):
    parts = line.split()
    if len(parts) > 3 and parts[1] == "g":
        predicted[parts[0]] = float(parts[3].rstrip("s"))
        lines[parts[0]] = line.rstrip("\n")
run = {s: round(json.load(open(f"{work}/{s}-report.json"))["step_time_s"], 3) for s in ("eager", "fused", "overlap", "selective", "full", "triton", "flash1", "flash_varlen", "cudnn", "fp8", "fp8-current", "fp8-torchao", "fp8-params", "eager-loss", "tp8", "dtensor")}
check(predicted.get("eager") == run["eager"], f"torch_compile false = elementwise eager ({predicted.get('eager')} vs {run['eager']} s)")
check(predicted.get("compiled") == run["fused"], f"torch_compile true = elementwise fused ({predicted.get('compiled')} vs {run['fused']} s)")
check(run["eager"] > run["fused"], f"eager kernels cost time ({run['eager']} > {run['fused']} s)")
check(predicted.get("stated-wins") == run["fused"], "a key the scenario states is not overridden")
check(predicted.get("not-a-bool") == run["fused"], "a non-boolean setting is documentation only")
check(predicted.get("overlap") == run["overlap"], f"overlap_grad_reduce and grad_reduce_in_fp32 applied ({predicted.get('overlap')} vs {run['overlap']} s)")
# The base scenario (recompute "op", elementwise fused by default) is "fused".
check(run["fused"] != run["selective"], f"per-op and attention-core recompute differ ({run['fused']} vs {run['selective']} s)")
check(predicted.get("sac-op") == run["fused"], f"selective_ac_option='op' refines selective to op ({predicted.get('sac-op')} vs {run['fused']} s)")
check(predicted.get("sac-layer") == run["selective"], "other words leave selective as it is")
check(predicted.get("sac-full") == run["full"], "the spelling refines selective only, not full")
check(run["triton"] > run["fused"] and run["flash1"] > run["fused"], "the older kernels are slower than FlashAttention-2")
check(predicted.get("attn-triton") == run["triton"], f"attn_impl 'triton' refines flash to triton ({predicted.get('attn-triton')} vs {run['triton']} s)")
check(predicted.get("attn-fa1") == run["flash1"], f"flash-attn==1.x refines flash to flash1 ({predicted.get('attn-fa1')} vs {run['flash1']} s)")
check(predicted.get("attn-cudnn-stays") == run["cudnn"], "a kernel other than flash is not refined")
check(predicted.get("attn-triton-a100") == run["triton"], "attn_impl triton refines flash to triton")
check(predicted.get("attn-13b") == run["triton"], f"triton for 13b/30b refines an MPT-13B's flash ({predicted.get('attn-13b')} s)")
check(predicted.get("te-fused") == run["cudnn"] and lines.get("te-fused", "").endswith('training.attention="cudnn"'),
      f"'TransformerEngine fused attention' refines flash to cudnn ({predicted.get('te-fused')} vs {run['cudnn']} s)")
check(predicted.get("nemo-perf") == run["cudnn"], f"NeMo v2.2.0's performance scripts run cuDNN ({predicted.get('nemo-perf')} s)")
check(predicted.get("nemo-other") == run["fused"], "other NeMo wording leaves flash as it is")
check(run["cudnn"] != run["fused"], f"cuDNN and FlashAttention-2 differ on an H100 ({run['cudnn']} vs {run['fused']} s)")
check(predicted.get("attn-other-model") == run["flash_varlen"] and lines.get("attn-other-model", "").endswith(
    'from extra: training.attention="flash_varlen"'),
      f"and gives another model's FlashAttention-2 on unpadded tokens ({predicted.get('attn-other-model')} s)")
check(run["flash_varlen"] > run["fused"], f"unpadding costs time ({run['flash_varlen']} > {run['fused']} s)")
check(run["fp8-current"] > run["fp8"], f"current scaling's amax passes cost time ({run['fp8-current']} > {run['fp8']} s)")
check(predicted.get("fp8-current") == run["fp8-current"], f"dynamic tensorwise scaling is current scaling ({predicted.get('fp8-current')} vs {run['fp8-current']} s)")
check(predicted.get("fp8-torchao") == run["fp8-torchao"], f"torchao's Float8Linear is the torchao library ({predicted.get('fp8-torchao')} vs {run['fp8-torchao']} s)")
check(lines.get("fp8-torchao", "").endswith('training.fp8_scaling="current", training.fp8_library="torchao"'), "both named on its line")
raw = {s: json.load(open(f"{work}/{s}-report.json"))["step_time_s"] for s in ("fp8", "fp8-params")}
check(raw["fp8-params"] < raw["fp8"], f"FP8 primary weights skip the weight cast ({raw['fp8-params']} < {raw['fp8']} s)")
check(predicted.get("fp8-params") == run["fp8-params"] and lines.get("fp8-params", "").endswith("training.fp8_params=true"),
      f"NeMo's fp8_params=True is fp8_params ({predicted.get('fp8-params')} vs {run['fp8-params']} s)")
check(predicted.get("bf16-no-scaling") == run["fused"], "a bf16 run takes no fp8_scaling nor fp8_library")
check(run["eager"] > run["eager-loss"] > run["fused"], f"an eager loss alone costs less than every kernel eager ({run['eager-loss']} s)")
check(predicted.get("titan-compiled") == run["eager-loss"], f"torchtitan 9dec370 compiled its blocks, not its loss ({predicted.get('titan-compiled')} vs {run['eager-loss']} s)")
check(predicted.get("titan-eager") == run["eager"], "uncompiled, everything is eager")
check(predicted.get("titan-later") == run["fused"], "a later torchtitan compiles the loss too")
check(lines.get("titan-compiled", "").endswith(
    'from extra: training.elementwise="fused", training.loss="eager", parallelism.tp_library="dtensor"'),
      "the loss's setting is named on the line, and torchtitan's tensor parallelism")
check(predicted.get("titan-tp") == run["dtensor"] and run["dtensor"] > run["tp8"],
      f"torchtitan's tensor parallelism is DTensor's, which copies around its collectives ({predicted.get('titan-tp')} vs {run['dtensor']} > {run['tp8']} s)")
check(predicted.get("titan-tp-stated") == run["tp8"], "a tp_library the scenario states is kept")
# Each row's line says what it took from `extra`, and only that.
check(lines.get("sac-op", "").endswith('from extra: training.recompute="op"'), "a row's line names the setting applied")
check(lines.get("overlap", "").endswith(
    "from extra: parallelism.overlap_grad_reduce=true, training.grad_reduce_in_fp32=false"), "every setting, in order")
check("from extra" not in lines.get("stated-wins", "x from extra"), "a row that took nothing says nothing")
PY
while IFS= read -r line; do
  case "$line" in "ok   "*) pass "${line#ok   }" ;; *) fail "${line#FAIL }" "(above)" ;; esac
done <"$work/checks"

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
