#!/usr/bin/env python3
"""Do GEMMs inside a transformer layer run at the speed they sustain alone?

A power-limited GPU lowers its clocks under a long run of GEMMs; inside a layer the GEMMs alternate
with memory-bound kernels and attention, and the clocks may recover. This times the four GEMMs of
a GPT layer (hidden H, FFN 4H, T tokens) two ways on the same GPU:
  isolated: each GEMM 40 times back to back (after a 1 s warm-up of that GEMM), median;
  in_layer: the layer's forward (LayerNorm, QKV, attention, projection, residual, LayerNorm, FC1,
            GeLU, FC2, residual) 40 times, a CUDA event pair around every op, median per op.
It also times the whole layer forward + backward (autograd) 40 times ("forward_backward_time").
It writes a measurements file (schema 1, sim/calibrate/measurements.hpp) whose GEMM records carry
"algo": "isolated" or "in_layer", so `trainsim calibrate --check` predicts both, and prints the
ratio. Needs PyTorch (a GPU-machine tool, not a trainsim dependency).

Usage: python3 sim/kernels/torch/layer_mix.py -o OUT.json [--hidden 8192] [--tokens 8192]
"""
import argparse
import datetime
import json
import os
import sys

import torch
import torch.nn.functional as F
from timing import event as ev, mean_time, median_time, warm_up

REPS = 40


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--hidden", type=int, default=8192)
    ap.add_argument("--tokens", type=int, default=8192)
    ap.add_argument("--profile", default="")
    ap.add_argument("--git-commit", default=os.environ.get("TRAINSIM_GIT_COMMIT", "unknown"))
    a = ap.parse_args()
    h, t, heads = a.hidden, a.tokens, a.hidden // 128
    seq = 2048
    dev, dt = "cuda", torch.bfloat16
    torch.manual_seed(0)
    w = {"qkv": torch.randn(3 * h, h, device=dev, dtype=dt) * 0.02, "proj": torch.randn(h, h, device=dev, dtype=dt) * 0.02,
         "fc1": torch.randn(4 * h, h, device=dev, dtype=dt) * 0.02, "fc2": torch.randn(h, 4 * h, device=dev, dtype=dt) * 0.02}
    ln1 = torch.ones(h, device=dev, dtype=dt), torch.zeros(h, device=dev, dtype=dt)
    ln2 = torch.ones(h, device=dev, dtype=dt), torch.zeros(h, device=dev, dtype=dt)
    x = torch.randn(t, h, device=dev, dtype=dt)
    inputs = {"qkv": x, "proj": x, "fc1": x, "fc2": torch.randn(t, 4 * h, device=dev, dtype=dt)}
    shape = {"qkv": (t, 3 * h, h), "proj": (t, h, h), "fc1": (t, 4 * h, h), "fc2": (t, h, 4 * h)}

    isolated = {}
    for name in w:
        f = lambda: F.linear(inputs[name], w[name])
        warm_up(f, 1000, 10)  # ~1 s of this GEMM first: the clocks settle at their sustained level
        isolated[name] = median_time(f, REPS)

    def layer(events):
        def op(name, fn):
            s, e = ev(), ev()
            s.record()
            out = fn()
            e.record()
            events.setdefault(name, []).append((s, e))
            return out
        y = op("ln1", lambda: F.layer_norm(x, (h,), *ln1))
        qkv = op("qkv", lambda: F.linear(y, w["qkv"]))
        q, k, v = (z.view(t // seq, seq, heads, 128).transpose(1, 2) for z in qkv.split(h, dim=1))
        att = op("attention", lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True))
        att = att.transpose(1, 2).reshape(t, h)
        o = op("proj", lambda: F.linear(att, w["proj"]))
        r = op("add1", lambda: x + o)
        y2 = op("ln2", lambda: F.layer_norm(r, (h,), *ln2))
        f1 = op("fc1", lambda: F.linear(y2, w["fc1"]))
        g = op("gelu", lambda: F.gelu(f1, approximate="tanh"))
        f2 = op("fc2", lambda: F.linear(g, w["fc2"]))
        return op("add2", lambda: r + f2)

    warm_up(lambda: layer({}), 1000, 5)
    events = {}
    layer_s = mean_time(lambda: layer(events), REPS)
    in_layer = {n: median([a.elapsed_time(b) / 1e3 for a, b in v]) for n, v in events.items()}

    # The same layer forward and backward (autograd; weight gradients accumulate as in training).
    for p in list(w.values()) + [*ln1, *ln2, x]:
        p.requires_grad_(True)
    grad = torch.randn(t, h, device=dev, dtype=dt)
    step = lambda: layer({}).backward(grad)
    warm_up(step, 1000, 3)
    fwd_bwd_s = mean_time(step, REPS)

    records = []
    for name, (m, n, k) in shape.items():
        flops = 2 * m * n * k
        for algo, tm in (("isolated", isolated[name]), ("in_layer", in_layer[name])):
            records.append({"m": m, "n": n, "k": k, "batch": 1, "dtype": "bf16", "layout": "NT", "algo": algo,
                            "note": name, "time": "%.3f us" % (tm * 1e6), "reps": REPS})
        print(f"layer_mix: {name} {m}x{n}x{k}: isolated {flops / isolated[name] / 1e12:.1f} TFLOP/s, in layer "
              f"{flops / in_layer[name] / 1e12:.1f} TFLOP/s (in/iso time {in_layer[name] / isolated[name]:.3f})",
              file=sys.stderr)
    ops = ", ".join(f"{n} {v * 1e6:.1f} us" for n, v in in_layer.items())
    print(f"layer_mix: layer forward+backward {fwd_bwd_s * 1e3:.3f} ms", file=sys.stderr)
    print(f"layer_mix: layer forward {layer_s * 1e3:.3f} ms (sum of ops {sum(in_layer.values()) * 1e3:.3f} ms): {ops}",
          file=sys.stderr)
    prov = {"gpu": torch.cuda.get_device_name(0), "source": "sim/kernels/torch/layer_mix.py (PyTorch)",
            "sms": torch.cuda.get_device_properties(0).multi_processor_count, "torch": torch.__version__,
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "git_commit": a.git_commit, "groups": "gemm",
            "layer": {"hidden": h, "tokens": t, "seq_len": seq, "heads": heads, "forward_time": "%.3f us" % (layer_s * 1e6),
                      "forward_backward_time": "%.3f us" % (fwd_bwd_s * 1e6),
                      "op_times": {n: "%.3f us" % (v * 1e6) for n, v in in_layer.items()}},
            "method": f"isolated: >= 1 s warm-up per GEMM, then {REPS} event pairs, median; in_layer: >= 1 s of layers, "
                      f"then {REPS} layer forwards with an event pair per op, median per op"}
    if a.profile:
        prov["profile"] = a.profile
    with open(a.output + ".tmp", "w") as f:
        json.dump({"kind": "measurements", "schema": 1, "provenance": prov, "gemm": records}, f, indent=1)
        f.write("\n")
    os.replace(a.output + ".tmp", a.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
