#!/usr/bin/env bash
# MFU against the dense BF16 peak for every precision (the convention of Megatron-Core, torchtitan
# and NeMo): the same job run in BF16 and in FP8 has MFUs in the inverse ratio of its step times,
# since the model FLOPs are the same; `mfu_precision_peak` is MFU against the run's own
# precision's peak: equal to `mfu` in BF16, and mfu x (bf16 peak / fp8 peak) in FP8, the two peaks
# read here from the device file.
#
# Usage: bash mfu_convention.sh TRAINSIM REPO
set -u

trainsim=${1:?usage: mfu_convention.sh TRAINSIM REPO}
repo=${2:?usage: mfu_convention.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"

base="$repo/configs/llama3-70b-512xh100.json"
for p in bf16 fp8; do
  python3 - "$base" "$p" "$work/$p.scenario.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["training"]["precision"] = sys.argv[2]
json.dump(s, open(sys.argv[3], "w"))
PY
  "$trainsim" run "$work/$p.scenario.json" -o "$work/$p.json" >/dev/null 2>"$work/$p.err" ||
    fail "$p run" "$(head -c 400 "$work/$p.err")"
done

python3 - "$work/bf16.json" "$work/fp8.json" "$repo/topologies/devices/h100-sxm.json" <<'PY'
import json, re, sys
b, f, dev = (json.load(open(p)) for p in sys.argv[1:4])
def tflops(s):
    m = re.fullmatch(r"([0-9.]+) TFLOP/s", s["value"])
    return float(m.group(1))
bf16_peak, fp8_peak = tflops(dev["peak"]["bf16"]), tflops(dev["peak"]["fp8"])
ok = True
def check(name, got, want, rel=1e-9):
    global ok
    good = abs(got - want) <= rel * abs(want)
    print(("ok   " if good else "FAIL ") + f"{name}: {got!r} against {want!r}")
    ok = ok and good
assert b["plan"]["precision"] == "bf16" and f["plan"]["precision"] == "fp8"
check("FP8 runs faster than BF16 (the premise)", float(f["step_time_s"] < b["step_time_s"]), 1.0)
check("mfu_fp8 / mfu_bf16 = step_bf16 / step_fp8", f["mfu"] / b["mfu"], b["step_time_s"] / f["step_time_s"])
check("hfu_fp8 / hfu_bf16 = (hw flops ratio) x step_bf16 / step_fp8", f["hfu"] / b["hfu"],
      f["hardware_flops_per_step"] / b["hardware_flops_per_step"] * b["step_time_s"] / f["step_time_s"])
check("bf16: mfu_precision_peak = mfu", b["mfu_precision_peak"], b["mfu"])
check("fp8: mfu_precision_peak = mfu x bf16 peak / fp8 peak", f["mfu_precision_peak"], f["mfu"] * bf16_peak / fp8_peak)
check("mfu = model FLOPs / step / GPUs / BF16 peak (fp8 run)", f["mfu"],
      f["model_flops_per_step"] / f["step_time_s"] / f["cluster"]["gpus"] / (bf16_peak * 1e12))
sys.exit(0 if ok else 1)
PY
if [ $? -eq 0 ]; then pass "mfu convention: BF16 peak for every precision, mfu_precision_peak the run's own"; else fail "mfu convention" "see above"; fi

echo "mfu_convention: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
