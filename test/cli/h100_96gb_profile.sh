#!/usr/bin/env bash
# topologies/devices/h100-96gb-hbm2e-500w.json, the H100 of torchtitan's benchmarks (Meta Grand
# Teton hosts), is h100-sxm with what torchtitan's 'Hardware' section states changed and nothing else:
#  - capacity: the total memory torchtitan logs on those GPUs ("CUDA capacity: NVIDIA H100 with
#    95.00GiB memory"), which a step log's reserved memory over its percentage confirms;
#    bandwidth: "2.4 TB/sec" = 2400 GB/s (the quotes are re-read here from the profile's own
#    source strings);
#  - the memory ramp keeps the H200's measured ramp time: half_bytes = t_half x eta x 2400 GB/s with
#    t_half = half / (eta x bandwidth) of h200-sxm, within 0.5 %;
#  - the 500 W limit: the tensor-core curves (GEMM, FP8 GEMM, both attention kernels) are h100-sxm's
#    times the rate at 500 W interpolated between the H100 NVL (400 W) and SXM (700 W) datasheet
#    peaks, where torchtitan's footnote 2 places this GPU (recomputed here);
#  - every other number equals h100-sxm's (same GH100 die, NVLink4 node, 400 Gb/s per GPU);
#  - every value carries a source, and the device loads and runs: quickstart on it takes longer than
#    on h100-sxm, by less than the bandwidth and power ratios together.
#
# Usage: bash h100_96gb_profile.sh TRAINSIM REPO
set -u

trainsim=${1:?usage: h100_96gb_profile.sh TRAINSIM REPO}
repo=${2:?usage: h100_96gb_profile.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"
cd "$repo" || exit 1

for gpu in h100-sxm h100-96gb-hbm2e-500w; do
  python3 - "$gpu" "$work/$gpu-scenario.json" <<'PY'
import json, sys
s = json.load(open("configs/quickstart.json"))
s["cluster"] = {"from": "dgx-h100-superpod", "gpus": 16, "gpu": sys.argv[1]}
json.dump(s, open(sys.argv[2], "w"))
PY
  if "$trainsim" run "$work/$gpu-scenario.json" -q -o "$work/$gpu.json" >"$work/$gpu.log" 2>&1; then
    pass "quickstart runs on $gpu"
  else
    fail "quickstart runs on $gpu" "$(cat "$work/$gpu.log")"
  fi
done

python3 - "$work/h100-sxm.json" "$work/h100-96gb-hbm2e-500w.json" <<'PY' >"$work/checks" 2>&1
import json, re, sys
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
dev = lambda name: json.load(open(f"topologies/devices/{name}.json"))
val = lambda e: e["value"] if isinstance(e, dict) else e
num = lambda e: float(str(val(e)).split()[0])
d, base, h200 = dev("h100-96gb-hbm2e-500w"), dev("h100-sxm"), dev("h200-sxm")
check(d["name"] == "h100-96gb-hbm2e-500w", "name matches the file")

def leaves(node, path=""):
    for k, v in node.items():
        if isinstance(v, dict) and "value" in v:
            yield path + k, v
        elif isinstance(v, dict):
            yield from leaves(v, path + k + ".")
all_leaves = dict(leaves(d))
check(all(v.get("source", "").strip() for v in all_leaves.values()), f"all {len(all_leaves)} values carry a source")
check(set(all_leaves) == set(dict(leaves(base))), "the same entries as h100-sxm")

# Capacity and bandwidth from the quoted torchtitan text.
cap = d["hbm"]["capacity"]
m = re.search(r"'Each H100 GPU is equipped with (\d+)GB HBM2e'", cap["source"])
check(m is not None and "torchtitan" in cap["source"], "capacity quotes torchtitan's Hardware section")
logged = re.search(r"'CUDA capacity: NVIDIA H100 with ([\d.]+)GiB memory'", cap["source"])
check(logged is not None and val(cap) == logged.group(1) + " GiB", f"capacity {val(cap)} = the total memory torchtitan logs")
step = re.search(r"'memory: ([\d.]+)GiB\(([\d.]+)%\)' = ([\d.]+) GiB", cap["source"])
check(step is not None and abs(float(step.group(1)) / (float(step.group(2)) / 100) - num(cap)) < 0.01,
      f"a step log's reserved GiB over its percentage gives the capacity ({step and step.group(3)} GiB)")
# A run that ran fits: the table's largest published peak (82.4 GiB, 8B FSDP on 8 GPUs, the
# allocator's reserved peak) is under it, which 96 GB read as decimal (89.41 GiB) also holds but
# which the capacity must; and no more than the 96 GB read as binary is usable.
check(m is not None and 82.4 <= num(cap) <= int(m.group(1)),
      f"published 82.4 GiB peak fits in {val(cap)}, at most {m and m.group(1)} GiB")
bw = d["hbm"]["bandwidth"]
m = re.search(r"with ([\d.]+) TB/sec peak memory bandwidth", bw["source"])
check(m is not None and abs(float(m.group(1)) * 1000 - num(bw)) < 1e-9 and val(bw).endswith("GB/s"),
      f"bandwidth {val(bw)} = {m and m.group(1)} TB/s")

# Memory ramp: the H200's measured ramp time at this bandwidth.
def ramp(x):
    bw = num(x["hbm"]["bandwidth"]) * (1e12 if "TB" in val(x["hbm"]["bandwidth"]) else 1e9)
    return num(x["memory_ops"]["half_bytes"]) * 1e6 / (num(x["memory_ops"]["efficiency_max"]) * bw)
check(abs(ramp(d) / ramp(h200) - 1) < 0.005, f"memory ramp {ramp(d) * 1e6:.3f} us = h200-sxm's {ramp(h200) * 1e6:.3f} us")

# Carried over, and said so.
# The 500 W limit: the tensor-core curves scaled by the rate interpolated linearly in the power limit
# between the H100 NVL (400 W) and SXM (700 W) datasheet peaks (dense = half the sparse figures):
# bf16 1,671 and 1,979 TFLOPS, fp8 3,341 and 3,958; the ramp time kept, so F_half scales alike.
def at500(nvl, sxm):
    nvl, sxm = nvl / 2, sxm / 2
    return (nvl + (sxm - nvl) * (500 - 400) / (700 - 400)) / sxm
r16, r8 = at500(1671, 1979), at500(3341, 3958)
powered = {"gemm.efficiency_max": r16, "gemm.half_flops": r16, "gemm_fp8.efficiency_max": r8,
           "gemm_fp8.half_flops": r8, "flash_attention.efficiency_max": r16, "cudnn_attention.efficiency_max": r16}
for k, r in powered.items():
    got, want = num(all_leaves[k]), num(dict(leaves(base))[k]) * r
    check(abs(got / want - 1) < 1e-4 and "derived for the 500 W power limit" in all_leaves[k]["source"],
          f"{k} {val(all_leaves[k])} = h100-sxm's x {r:.5f} (500 W between NVL and SXM)")
check(0.85 < r16 < 0.95, f"500 W rate {r16:.4f} of the 700 W one")
changed = {"hbm.capacity", "hbm.bandwidth", "memory_ops.half_bytes"} | set(powered)
base_leaves = dict(leaves(base))
for k, v in all_leaves.items():
    if k in changed:
        continue
    check(val(v) == val(base_leaves[k]) and "carried over from h100-sxm" in v["source"],
          f"{k} = h100-sxm's ({val(v)}) and says it carries over")

# Less bandwidth, less compute: slower than h100-sxm, by less than both ratios together.
t_base, t_d = (json.load(open(p))["step_time_s"] for p in sys.argv[1:3])
check(t_base < t_d < t_base * 3350 / 2400 / r16, f"quickstart step {t_d:.4f} s, h100-sxm {t_base:.4f} s: between 1x and 3350/2400/{r16:.3f}x")
PY
while IFS= read -r line; do
  case "$line" in "ok   "*) pass "${line#ok   }" ;; *) fail "${line#FAIL }" "(above)" ;; esac
done <"$work/checks"

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
