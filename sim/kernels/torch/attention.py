#!/usr/bin/env python3
"""FlashAttention as frameworks run it: PyTorch's scaled_dot_product_attention, timed per backend.

The CUDA suite's own attention kernels (impl "trainsim-tiled") check correctness but are not
FlashAttention; `trainsim calibrate` leaves them out of the flash_attention fit. This script
measures what Megatron-LM and PyTorch actually run, on GPU machines that have PyTorch (it is not
a trainsim dependency and never runs in CI), and writes a measurements file (schema 1,
sim/calibrate/measurements.hpp) that scripts/merge-measurements can join to the suite's.

Usage: python3 sim/kernels/torch/attention.py -o OUT.json [--profile h200-sxm] [--git-commit SHA]

Setup: FlashAttention's benchmark (hidden 2048, batch = 16384 / seq, seq 512..16384, head_dim 64
and 128, causal and not), bf16, layout (batch, heads, seq, head_dim). Backends: "flash"
(FlashAttention-2 inside PyTorch) and "cudnn" (cuDNN fused attention, what Transformer Engine
uses on Hopper) where PyTorch offers them. Each result is checked against the math backend on a
small problem first. Timing: 3 warm-ups, then CUDA event pairs around groups of 8 calls, median
over the groups (p10/p90 by nearest rank); fwd_bwd is forward + backward, bwd = fwd_bwd - fwd.
FLOPs follow the FA convention (fwd 4*B*S^2*H*D, halved when causal; bwd 2.5x; fwd_bwd 3.5x).
Exit status: 0 written; 1 no CUDA or every backend failed; 3 a check failed.
"""
import argparse
import datetime
import json
import os
import socket
import sys
import time

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.nn.functional import scaled_dot_product_attention as sdpa

BACKENDS = {"flash": "torch-sdpa-flash", "cudnn": "torch-sdpa-cudnn"}
GROUP = 8


def backend_enum(name):
    return {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}[name]


def check(backend, causal, head_dim):
    torch.manual_seed(1)
    q, k, v = (torch.randn(1, 2, 197, head_dim, device="cuda", dtype=torch.bfloat16, requires_grad=True)
               for _ in range(3))
    with sdpa_kernel(backend_enum(backend)):
        out = sdpa(q, k, v, is_causal=causal)
    ref = sdpa(q.float(), k.float(), v.float(), is_causal=causal)
    err = (out.float() - ref).abs().max().item()
    return err <= 2e-2, err


def timed(fn, reps):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(GROUP):
            fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) / 1e3 / GROUP)
    times.sort()
    pick = lambda p: times[min(len(times) - 1, max(0, int(round(p * len(times) + 0.5)) - 1))]
    return times[len(times) // 2], pick(0.1), pick(0.9)


def us(t):
    return "%.3f us" % (t * 1e6)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--profile", default="")
    ap.add_argument("--git-commit", default=os.environ.get("TRAINSIM_GIT_COMMIT", "unknown"))
    ap.add_argument("--reps", type=int, default=10)
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("attention.py: error: no CUDA device", file=sys.stderr)
        return 1
    start = time.time()
    records, backends = [], []
    for backend in BACKENDS:
        try:
            for causal in (False, True):
                for hd in (64, 128):
                    ok, err = check(backend, causal, hd)
                    if not ok:
                        print(f"attention.py: {backend} causal={causal} head_dim={hd}: max error {err:.3g} "
                              "against the math backend (expected <= 2e-2)", file=sys.stderr)
                        return 3
            backends.append(backend)
        except RuntimeError as e:
            print(f"attention.py: backend {backend} unavailable here: {str(e).splitlines()[0]}", file=sys.stderr)
    if not backends:
        print("attention.py: error: no SDPA backend ran", file=sys.stderr)
        return 1
    for backend in backends:
        for causal in (False, True):
            for hd in (64, 128):
                for seq in (512, 1024, 2048, 4096, 8192, 16384):
                    batch, heads = 16384 // seq, 2048 // hd
                    torch.manual_seed(0)
                    q, k, v = (torch.randn(batch, heads, seq, hd, device="cuda", dtype=torch.bfloat16,
                                           requires_grad=True) for _ in range(3))
                    grad = torch.randn(batch, heads, seq, hd, device="cuda", dtype=torch.bfloat16)
                    with sdpa_kernel(backend_enum(backend)):
                        fwd = timed(lambda: sdpa(q, k, v, is_causal=causal), args.reps)
                        both = timed(lambda: sdpa(q, k, v, is_causal=causal).backward(grad), args.reps)
                    flops = 4 * batch * seq * seq * heads * hd / (2 if causal else 1)
                    base = {"batch": batch, "heads": heads, "seq_len": seq, "head_dim": hd, "causal": causal,
                            "dtype": "bf16", "impl": BACKENDS[backend]}
                    records.append(dict(base, **{"pass": "fwd", "time": us(fwd[0]), "p10": us(fwd[1]),
                                                 "p90": us(fwd[2]), "reps": args.reps * GROUP}))
                    records.append(dict(base, **{"pass": "bwd", "time": us(both[0] - fwd[0]),
                                                 "reps": args.reps * GROUP}))
                    records.append(dict(base, **{"pass": "fwd_bwd", "time": us(both[0]), "p10": us(both[1]),
                                                 "p90": us(both[2]), "reps": args.reps * GROUP}))
                    print(f"attention.py: {backend} b{batch} h{heads} s{seq} d{hd} causal={causal}: "
                          f"fwd {flops / fwd[0] / 1e12:.1f} TFLOP/s, fwd_bwd {3.5 * flops / both[0] / 1e12:.1f} "
                          "TFLOP/s", file=sys.stderr)
                    del q, k, v, grad
    p = torch.cuda.get_device_properties(0)
    prov = {"gpu": torch.cuda.get_device_name(0), "source": "sim/kernels/torch/attention.py (PyTorch SDPA)",
            "profile": args.profile, "compute_capability": f"{p.major}.{p.minor}", "sms": p.multi_processor_count,
            "torch": torch.__version__, "cuda": torch.version.cuda, "cudnn": str(torch.backends.cudnn.version()),
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "git_commit": args.git_commit, "host": socket.gethostname(), "groups": "attention",
            "wall_time": "%.1f s" % (time.time() - start),
            "method": f"3 warm-ups; CUDA event pairs around groups of {GROUP} calls, median of {args.reps} groups; "
                      "bwd = fwd_bwd - fwd; checked against the math backend (B=1, H=2, S=197)"}
    if not args.profile:
        del prov["profile"]
    with open(args.output + ".tmp", "w") as f:
        json.dump({"kind": "measurements", "schema": 1, "provenance": prov, "attention": records}, f, indent=1)
        f.write("\n")
    os.replace(args.output + ".tmp", args.output)
    print(f"attention.py: wrote {len(records)} measurements to {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
