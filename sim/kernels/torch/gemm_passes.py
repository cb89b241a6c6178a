#!/usr/bin/env python3
"""The three GEMMs of a linear layer as PyTorch's autograd runs them, each timed alone.

For y = x @ W^T (x: tokens x in, W: out x in) training runs fprop y = x @ W^T, dgrad dx = dy @ W and
wgrad dW = dy^T @ x. The kernel suite times one layout (cuBLASLt "TN"); this times all three in
PyTorch's layouts for the linear layers of a GPT layer (QKV, projection, FC1, FC2) after 0.5 s of
each, median of 30 CUDA event pairs, and writes a measurements file (schema 1) whose GEMM records
carry "algo": "fprop" | "dgrad" | "wgrad" (m x n output, k the reduced dimension), for
`trainsim calibrate --check`. Needs PyTorch (a GPU-machine tool, not a trainsim dependency).

Usage: python3 sim/kernels/torch/gemm_passes.py -o OUT.json --layer HIDDEN:TOKENS [--layer ...]
"""
import argparse
import datetime
import json
import os
import sys

import torch
from timing import median_time, warm_up

REPS = 30


def timed(fn):
    warm_up(fn, 500, 5)
    return median_time(fn, REPS)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--layer", action="append", required=True, help="HIDDEN:TOKENS")
    ap.add_argument("--profile", default="")
    ap.add_argument("--git-commit", default=os.environ.get("TRAINSIM_GIT_COMMIT", "unknown"))
    a = ap.parse_args()
    dt, dev = torch.bfloat16, "cuda"
    records = []
    seen = set()
    for spec in a.layer:
        h, t = (int(v) for v in spec.split(":"))
        for name, (n_out, n_in) in {"qkv": (3 * h, h), "proj": (h, h), "fc1": (4 * h, h), "fc2": (h, 4 * h)}.items():
            x = torch.randn(t, n_in, device=dev, dtype=dt)
            w = torch.randn(n_out, n_in, device=dev, dtype=dt) * 0.02
            dy = torch.randn(t, n_out, device=dev, dtype=dt)
            passes = {"fprop": ((t, n_out, n_in), lambda: x @ w.t()),
                      "dgrad": ((t, n_in, n_out), lambda: dy @ w),
                      "wgrad": ((n_out, n_in, t), lambda: dy.t() @ x)}
            for algo, ((m, n, k), fn) in passes.items():
                if (m, n, k, algo) in seen:
                    continue
                seen.add((m, n, k, algo))
                sec = timed(fn)
                records.append({"m": m, "n": n, "k": k, "batch": 1, "dtype": "bf16", "algo": algo,
                                "note": f"{name} of hidden {h}, {t} tokens", "time": "%.3f us" % (sec * 1e6),
                                "reps": REPS})
                print(f"gemm_passes: h{h} t{t} {name} {algo} {m}x{n}x{k}: {2 * m * n * k / sec / 1e12:.1f} TFLOP/s",
                      file=sys.stderr)
            del x, w, dy
    prov = {"gpu": torch.cuda.get_device_name(0), "source": "sim/kernels/torch/gemm_passes.py (PyTorch)",
            "sms": torch.cuda.get_device_properties(0).multi_processor_count, "torch": torch.__version__,
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "git_commit": a.git_commit, "groups": "gemm", "wall_time": "0 s",
            "method": f">= 0.5 s of each GEMM, then {REPS} CUDA event pairs, median; uniform normal inputs"}
    if a.profile:
        prov["profile"] = a.profile
    with open(a.output + ".tmp", "w") as f:
        json.dump({"kind": "measurements", "schema": 1, "provenance": prov, "gemm": records}, f, indent=1)
        f.write("\n")
    os.replace(a.output + ".tmp", a.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
