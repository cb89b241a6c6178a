#!/usr/bin/env bash
# The device profiles that come from the kernel suite's H200 measurements
# (calibration/measured/nvidia-h200-2026-11-30.json) are exactly what those measurements give:
#  - refitting them with the command the profile records (`trainsim calibrate ... --exclude ...`)
#    reproduces every fitted number of topologies/devices/h200-sxm.json;
#  - the fit describes the data: bf16 GEMMs (212 shapes) within 8 % on average, cuDNN and
#    FlashAttention-2 (SDPA's flash backend) forward+backward within 20 % each, on curves of their
#    own (FlashAttention-2 below 0.7 of cuDNN's rate at 8k), and the suite's norm-backward kernels, left out of the fit, are
#    the classes it misses (they run far below bandwidth; sim/kernels/README.md "Limits");
#  - the premise of the A100 GEMM derivation holds on the H200: GEMMs inside a layer's forward
#    run at the level they sustain alone (median in-layer / isolated time within 5 %;
#    ...-layer-mix.json), and the profile predicts the in-layer GEMMs within 10 % on average;
#  - the numbers carried to other GPUs follow their stated derivations, recomputed here: h100-sxm
#    takes the H200 GEMM and attention curves and the memory ramp time; the A100 GEMM eta_max is
#    the sustained 8192^3 figure (230 TFLOP/s) over the curve, F_half the H200 ramp time; b200's
#    GEMM curves come the same way from published B200 GEMMs, its memory curve from the H200's,
#    and its cuDNN and FlashAttention-2 curves are what `trainsim calibrate` fits to the published
#    B200 attention timings (calibration/published/b200.json), each within 10 % on average there,
#    FlashAttention-2 below half of cuDNN's rate at 8k; those timings are bursts, and b200's
#    sustained_compute is the published B200 back-to-back over burst rate (1237 / 1450).
#
# Usage: bash measured_profiles.sh TRAINSIM REPO
set -u

trainsim=${1:?usage: measured_profiles.sh TRAINSIM REPO}
repo=${2:?usage: measured_profiles.sh TRAINSIM REPO}
source "$(dirname "$0")/lib/tally.bash"
cd "$repo" || exit 1

measured=calibration/measured/nvidia-h200-2026-11-30.json
exclude=$(python3 -c 'import json; print(",".join(json.load(open("topologies/devices/h200-sxm.json"))["calibration"]["excluded_from_fits"]))')
if "$trainsim" calibrate "$measured" --exclude "$exclude" --name h200-sxm -o "$work/h200.json" --csv "$work/fit.csv" \
  >"$work/fit.txt" 2>&1; then
  pass "refit of $measured (--exclude $exclude)"
else
  fail "refit" "$(cat "$work/fit.txt")"
fi

published=calibration/published/b200.json
if "$trainsim" calibrate "$published" -o "$work/b200.json" --csv "$work/b200.csv" >"$work/b200.txt" 2>&1; then
  pass "refit of $published"
else
  fail "refit of $published" "$(cat "$work/b200.txt")"
fi

python3 - "$work/h200.json" "$work/fit.csv" "$trainsim" "$work/mix.csv" "$work/b200.json" "$work/b200.csv" <<'PY' >"$work/checks" 2>&1
import csv, json, sys
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
val = lambda e: e["value"] if isinstance(e, dict) else e
num = lambda e: float(str(val(e)).split()[0])
dev = lambda name: json.load(open(f"topologies/devices/{name}.json"))
refit, h200, h100 = json.load(open(sys.argv[1])), dev("h200-sxm"), dev("h100-sxm")
for section, keys in {"gemm": ("efficiency_max", "half_flops"), "memory_ops": ("efficiency_max", "half_bytes"),
                      "flash_attention": ("efficiency_max", "half_seq_len"),
                      "cudnn_attention": ("efficiency_max", "half_seq_len")}.items():
    for k in keys:
        check(val(refit[section][k]) == val(h200[section][k]),
              f"h200-sxm {section}.{k} = refit ({val(h200[section][k])} vs {val(refit[section][k])})")

rows = list(csv.DictReader(open(sys.argv[2])))
def mean_abs(prefix):
    errs = [abs(float(r["error"])) for r in rows if r["class"].startswith(prefix)]
    return len(errs), sum(errs) / max(1, len(errs))
n, e = mean_abs("gemm bf16")
check(n == 212 and e <= 0.08, f"bf16 GEMMs: {n} shapes, mean |error| {100 * e:.1f} % (at most 8 %)")
n, e = mean_abs("attention torch-sdpa-cudnn fwd_bwd")
check(n == 24 and e <= 0.20, f"cuDNN attention fwd+bwd: {n} runs, mean |error| {100 * e:.1f} % (at most 20 %)")
n, e = mean_abs("attention torch-sdpa-flash fwd_bwd")
check(n == 24 and e <= 0.20, f"FlashAttention-2 (SDPA flash) fwd+bwd: {n} runs, mean |error| {100 * e:.1f} % (at most 20 %)")
# Each kernel has its own curve: at 8k, causal, head dim 128, FlashAttention-2 runs below cuDNN's rate.
at = lambda d, key, s: num(d[key]["efficiency_max"]) * s / (s + num(d[key]["half_seq_len"]))
check(at(refit, "flash_attention", 8192) < 0.7 * at(refit, "cudnn_attention", 8192),
      f"FlashAttention-2 at 8k {at(refit, 'flash_attention', 8192):.3f} of peak, cuDNN {at(refit, 'cudnn_attention', 8192):.3f}")
worst = max(rows, key=lambda r: abs(float(r["error"])) if r["class"].startswith("memory") else 0)
check(worst["class"] in ("memory rmsnorm_bwd", "memory layernorm_bwd"),
      f"worst memory-bound class is a left-out norm backward ({worst['class']})")

mix = "calibration/measured/nvidia-h200-2026-11-30-layer-mix.json"
import subprocess
subprocess.run([sys.argv[3], "calibrate", "--check", mix, "--csv", sys.argv[4]], check=True, stdout=subprocess.DEVNULL)
records = json.load(open(mix))["gemm"]
secs = lambda r: float(r["time"].split()[0]) * {"us": 1e-6, "ms": 1e-3, "s": 1.0}[r["time"].split()[1]]
pairs = {}
for r in records:
    pairs.setdefault((r["m"], r["n"], r["k"]), {})[r["algo"]] = secs(r)
ratios = sorted(p["in_layer"] / p["isolated"] for p in pairs.values())
med = (ratios[len(ratios) // 2 - 1] + ratios[len(ratios) // 2]) / 2 if len(ratios) % 2 == 0 else ratios[len(ratios) // 2]
check(len(ratios) == 12 and abs(med - 1) <= 0.05, f"in-layer / isolated GEMM time: median {med:.3f} over {len(ratios)} GEMMs")
errs = [abs(float(r["error"])) for r, g in zip(csv.DictReader(open(sys.argv[4])), records) if g["algo"] == "in_layer"]
check(len(errs) == 12 and sum(errs) / len(errs) <= 0.10,
      f"h200-sxm predicts the in-layer GEMMs: mean |error| {100 * sum(errs) / len(errs):.1f} % (at most 10 %)")

# h100-sxm: the same GH100 compute, so the same GEMM and attention curves; memory: the same
# efficiency and ramp time t = half / (eta * bandwidth).
for section, k in (("gemm", "efficiency_max"), ("gemm", "half_flops"), ("flash_attention", "efficiency_max"),
                   ("flash_attention", "half_seq_len"), ("cudnn_attention", "efficiency_max"),
                   ("cudnn_attention", "half_seq_len"), ("memory_ops", "efficiency_max")):
    check(val(h100[section][k]) == val(h200[section][k]), f"h100-sxm {section}.{k} = h200-sxm's")
ramp = lambda d: num(d["memory_ops"]["half_bytes"]) * 1e6 / (num(d["memory_ops"]["efficiency_max"]) * num(d["hbm"]["bandwidth"]) * (1e12 if "TB" in val(d["hbm"]["bandwidth"]) else 1e9))
check(abs(ramp(h100) / ramp(h200) - 1) < 0.005, f"h100-sxm memory ramp {ramp(h100) * 1e6:.2f} us = h200-sxm's {ramp(h200) * 1e6:.2f} us")

# A100: eta_max = (230 / 312) / (F / (F + F_half)) at F = 2 * 8192^3; F_half = t_half * eta_max * 312 TFLOP/s
# with the H200's t_half = F_half / (eta_max * 989 TFLOP/s).
t_half = num(h200["gemm"]["half_flops"]) * 1e9 / (num(h200["gemm"]["efficiency_max"]) * num(h200["peak"]["bf16"]) * 1e12)
for name in ("a100-sxm-80gb", "a100-sxm-40gb"):
    a = dev(name)
    peak = num(a["peak"]["bf16"]) * 1e12
    eta, half = num(a["gemm"]["efficiency_max"]), num(a["gemm"]["half_flops"]) * 1e9
    F = 2.0 * 8192**3
    check(abs(eta - 230e12 / peak / (F / (F + half))) < 5e-4, f"{name} GEMM eta_max {eta} = 230/312 over the curve")
    check(abs(half / (t_half * eta * peak) - 1) < 0.01, f"{name} F_half {half / 1e9:.2f} GFLOP = H200 ramp {t_half * 1e6:.2f} us")

# B200, from published B200 GEMMs: bf16 eta_max = (1420 / 2250) / (F / (F + F_half)) at F = 2 * 8192^3
# (pytorch/ao PR #2427: 1.42E+15 at 8192^3), F_half the H200's ramp; fp8 = the bf16 eta_max x the
# FP8 / BF16 efficiency of stas00/ml-engineering's brute-force search on the B200 (3432.5 of 4500
# over 1745.0 of 2250), F_half the H200's fp8 ramp. The premise of taking 8192^3 as the curve's
# level: the two sources' 8192^3 / best-shape ratio is the H200's own, measured here (within 2 %).
# Memory-bound kernels carry the H200's fit. Attention: the refit of the published B200 timings
# (NVIDIA/cudnn-frontend@87a1bcd, cuDNN 9.10.2 and FlashAttention-2) is the profile's, and below it
# the measured forward+backward rate of cuDNN at 8k (1.816 + 5.815 ms for 2.199 TFLOP forward) is
# recomputed from the record and checked against the curve (within 10 %).
b = dev("b200")
F = 2.0 * 8192**3
eta, half = num(b["gemm"]["efficiency_max"]), num(b["gemm"]["half_flops"]) * 1e9
check(abs(eta * F / (F + half) - 1420 / 2250) < 5e-4, f"b200 GEMM eta_max {eta} = 1420/2250 over the curve at 8192^3")
check(abs(half / (t_half * eta * 2250e12) - 1) < 0.01, f"b200 F_half {half / 1e9:.2f} GFLOP = H200 ramp")
t_half8 = num(h200["gemm_fp8"]["half_flops"]) * 1e9 / (num(h200["gemm_fp8"]["efficiency_max"]) * num(h200["peak"]["fp8"]) * 1e12)
eta8, half8 = num(b["gemm_fp8"]["efficiency_max"]), num(b["gemm_fp8"]["half_flops"]) * 1e9
check(abs(eta8 - eta * (3432.5 / 4500) / (1745.0 / 2250)) < 5e-4, f"b200 FP8 GEMM eta_max {eta8} = bf16's x MAMF's fp8/bf16")
check(abs(half8 / (t_half8 * eta8 * 4500e12) - 1) < 0.01, f"b200 FP8 F_half {half8 / 1e9:.2f} GFLOP = H200 fp8 ramp")
rate = lambda r: 2.0 * r["m"] * r["n"] * r["k"] * r.get("batch", 1) / secs(r)
bf16 = [r for r in json.load(open("calibration/measured/nvidia-h200-2026-11-30.json"))["gemm"] if r["dtype"] == "bf16"]
cube = [rate(r) for r in bf16 if r["m"] == r["n"] == r["k"] == 8192]
h200_ratio, b200_ratio = cube[0] / max(rate(r) for r in bf16), 1420 / 1745.0
check(len(cube) == 1 and abs(b200_ratio / h200_ratio - 1) < 0.02,
      f"8192^3 / best shape: B200 {b200_ratio:.3f} (two sources), H200 {h200_ratio:.3f} (measured)")
check(val(b["memory_ops"]["efficiency_max"]) == val(h200["memory_ops"]["efficiency_max"]), "b200 memory_ops.efficiency_max = h200-sxm's")
check(abs(ramp(b) / ramp(h200) - 1) < 0.005, f"b200 memory ramp {ramp(b) * 1e6:.2f} us = h200-sxm's")
b_refit = json.load(open(sys.argv[5]))
for section in ("flash_attention", "cudnn_attention"):
    for k in ("efficiency_max", "half_seq_len"):
        check(val(b[section][k]) == val(b_refit[section][k]), f"b200 {section}.{k} = refit of calibration/published/b200.json")
b_rows = list(csv.DictReader(open(sys.argv[6])))
for impl in ("torch-sdpa-cudnn", "torch-sdpa-flash", "FA2"):
    errs = [abs(float(r["error"])) for r in b_rows if r["class"] == f"attention {impl} fwd_bwd causal"]
    check(len(errs) == 7 and sum(errs) / len(errs) <= 0.10,
          f"b200 {impl} fwd+bwd: {len(errs)} published runs, mean |error| {100 * sum(errs) / max(1, len(errs)):.1f} % (at most 10 %)")
curve = lambda sec, s: num(b[sec]["efficiency_max"]) * s / (s + num(b[sec]["half_seq_len"]))
rec = [r for r in json.load(open("calibration/published/b200.json"))["attention"]
       if r["impl"] == "torch-sdpa-cudnn" and r["seq_len"] == 8192 and r["pass"] == "fwd_bwd"]
fwd = 4 * 8192 * 8192 * 128 * 128 / 2  # FA convention, causal: 4 B S^2 H D / 2
measured8k = 3.5 * fwd / secs(rec[0]) / 2250e12
check(len(rec) == 1 and abs(secs(rec[0]) - (1.816 + 5.815) * 1e-3) < 1e-9 and abs(curve("cudnn_attention", 8192) / measured8k - 1) < 0.10,
      f"b200 cuDNN at 8k: measured {measured8k:.3f} of peak, curve {curve('cudnn_attention', 8192):.3f}")
check(curve("flash_attention", 8192) < 0.5 * curve("cudnn_attention", 8192),
      f"b200 FlashAttention-2 at 8k {curve('flash_attention', 8192):.3f} of peak, cuDNN {curve('cudnn_attention', 8192):.3f}")
# Those curves are burst timings (the file says so, and the refit keeps the allowance); a step runs
# at the fraction of them flashinfer#2899 measured on a B200 run back to back: 1237 of 1450 TFLOP/s.
# Its premise, in the same published timings: cuDNN, near the power limit, loses rate in calls of a
# second or more (2 x 128k against 32k, forward+backward), FlashAttention-2, far below it, does not.
check(json.load(open("calibration/published/b200.json"))["provenance"].get("timing") == "burst"
      and val(b_refit["sustained_compute"]) == val(b["sustained_compute"]), "b200 attention timings are bursts; the refit keeps sustained_compute")
check(abs(val(b["sustained_compute"]) - 1237 / 1450) < 5e-5, f"b200 sustained_compute {val(b['sustained_compute'])} = 1237 / 1450")
fb = lambda impl, s, batch: [secs(r) for r in json.load(open("calibration/published/b200.json"))["attention"]
                            if r["impl"] == impl and r["seq_len"] == s and r["batch"] == batch and r["pass"] == "fwd_bwd"][0]
keep = lambda impl: (2 * 131072**2 / fb(impl, 131072, 2)) / (32768**2 / fb(impl, 32768, 1))
check(keep("torch-sdpa-cudnn") < 0.95 and keep("FA2") > 0.98,
      f"long calls keep {keep('torch-sdpa-cudnn'):.3f} of cuDNN's 32k rate, {keep('FA2'):.3f} of FlashAttention-2's")
PY
while IFS= read -r line; do
  case "$line" in "ok   "*) pass "${line#ok   }" ;; *) fail "${line#FAIL }" "(above)" ;; esac
done <"$work/checks"

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
