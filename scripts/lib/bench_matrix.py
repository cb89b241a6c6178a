"""scripts/bench's scale matrix, one place for every script and test that runs it.

Each cell is GPT-3 175B (models/gpt3-175b.json) with TP 8, PP 8, one stage per rank, sequence
parallelism and selective recompute, micro-batch 1 and 32 micro-batches per pipeline replica, on
one cluster of topologies/ scaled to about a size, under one data-parallel sharding:

  clusters  dgx-a100-superpod, dgx-h100-superpod, dgx-b200-superpod, gb200-nvl72 (72-GPU NVLink
            racks), llama3-24k (3,072-GPU pods at 1:7 above them), tpu-v4-pod (4,096-chip tori)
  sizes     1k, 8k, 16k, 65k, 131k: 1,024 * 2^k GPUs, or the nearest multiple of 64 GPUs (a pipeline
            replica) and of the cluster's NVLink domain below it; on TPU v4 the 1k cell is one
            8x8x16 torus (a slice of a pod), the others whole 16x16x16 pods
  sharding  zero-1 (the optimizer state; the reduction after the backward), zero-2 (and the
            gradients; overlapped reduction), zero-3 (and the weights: FSDP), hsdp (zero-3 in shard
            groups of 8 data-parallel ranks, or fewer where 8 does not divide them, and their
            replicas' all-reduce)
"""
import json
import math
import os
import subprocess
import sys
import tempfile

CLUSTERS = ["dgx-a100-superpod", "dgx-h100-superpod", "dgx-b200-superpod", "gb200-nvl72", "llama3-24k", "tpu-v4-pod"]
DOMAIN = {"gb200-nvl72": 72}  # NVLink domain GPUs where it is not a node of 8
SIZES = {"1k": 1024, "8k": 8192, "16k": 16384, "65k": 65536, "131k": 131072}
SHARDING = ["zero-1", "zero-2", "zero-3", "hsdp"]
MICROBATCHES = 32
MODEL = "configs/gpt3-175b-1024xa100.json"  # the scenario the cells change


def gpus(cluster, size):
    unit = 64 * DOMAIN.get(cluster, 8) // math.gcd(64, DOMAIN.get(cluster, 8))
    return max(unit, SIZES[size] // unit * unit)


def args(cluster, size, sharding):
    """trainsim run's arguments for one cell."""
    g = gpus(cluster, size)
    dp = g // 64
    sets = {"cluster.from": cluster, "cluster.gpus": g, "parallelism.dp": dp,
            "training.global_batch": dp * MICROBATCHES, "parallelism.virtual_stages": 1}
    if cluster == "tpu-v4-pod" and g < 4096:
        sets["cluster.scale_up.dims"] = "[8,8,16]"
    if sharding == "zero-1":
        sets.update({"parallelism.zero": 1, "parallelism.overlap_grad_reduce": "false"})
    elif sharding == "zero-2":
        sets.update({"parallelism.zero": 2, "parallelism.overlap_grad_reduce": "true"})
    elif sharding == "zero-3":
        sets.update({"parallelism.zero": 3})
    else:
        sets.update({"parallelism.zero": 3, "parallelism.dp_shard": math.gcd(dp, 8)})
    out = [MODEL]
    for k, v in sets.items():
        out += ["--set", f"{k}={v}"]
    return out


def cells(sizes=tuple(SIZES)):
    """(name, arguments) of every cell, cluster by cluster."""
    for c in CLUSTERS:
        for size in sizes:
            for sh in SHARDING:
                yield f"{c} {size} {sh}", args(c, size, sh)


def moe_cases():
    """(name, arguments) of the expert-parallel cases (sim/workload/ops.cpp, expert parallelism):
    BF16, 1F1B, full recompute, forced balance, the alltoall dispatcher, on DGX H100 nodes placed
    tp-cp-dp-pp (a stage's data-parallel ranks on consecutive GPUs): Mixtral 8x7B on 32 GPUs with
    ep 8 inside a node; DeepSeek-V3 on 2,048 GPUs as its report's plan without DualPipe, FP8 or
    DeepEP (pp 16, ep 64 over 8 nodes, 15,360 sequences of 4,096), its all-to-alls live; then the
    shipped DeepSeek-V3 run itself on 2,048 and on 16,384 GPUs."""
    base = {"cluster.from": "dgx-h100-superpod", "parallelism.tp": 1, "parallelism.sequence_parallel": "false",
            "parallelism.virtual_stages": 1, "parallelism.zero": 1, "parallelism.overlap_grad_reduce": "true",
            "parallelism.placement": '"tp-cp-dp-pp"', "training.seq_len": 4096, "training.micro_batch": 1,
            "training.recompute": '"full"', "training.attention": '"flash"'}
    for name, sets in (("MoE mixtral-8x7b 32 H100 ep 8", {"model": '"mixtral-8x7b"', "cluster.gpus": 32,
                                                          "parallelism.pp": 4, "parallelism.dp": 8,
                                                          "parallelism.ep": 8, "training.global_batch": 64}),
                       ("MoE deepseek-v3 2048 H100 ep 64", {"model": '"deepseek-v3"', "cluster.gpus": 2048,
                                                            "parallelism.pp": 16, "parallelism.dp": 128,
                                                            "parallelism.ep": 64, "training.global_batch": 15360})):
        out = [MODEL]
        for k, v in dict(base, **sets).items():
            out += ["--set", f"{k}={v}"]
        yield name, out
    # DeepSeek-V3 as its report ran it (configs/deepseek-v3-2048xh800.json: DualPipe, DeepEP, FP8),
    # and the same plan on 16,384 GPUs (dp 1,024, the global batch grown with it).
    headline = "configs/deepseek-v3-2048xh800.json"
    yield "MoE deepseek-v3 2048 H800 dualpipe", [headline]
    yield "MoE deepseek-v3 16384 H800 dualpipe", [headline, "--set", 'cluster={"from": "deepseek-v3-h800", "gpus": 16384}',
                                                  "--set", "parallelism.dp=1024", "--set", "training.global_batch=122880"]


def main(argv):
    """--list SIZES: one line per cell of those sizes (comma-separated), its name and its trainsim
    run arguments, tab-separated (scripts/bench reads it). --ceilings TRAINSIM: prints
    test/data/bench-matrix-transfers.json for the binary's counts (the cells test/cli/flow_counts.sh
    runs: 1k and 16k)."""
    if argv == ["--moe"]:  # the expert-parallel cases, as --list prints cells
        for name, args in moe_cases():
            print("\t".join([name, *args]))
        return
    if len(argv) == 2 and argv[0] == "--list":
        sizes = [] if argv[1] == "none" else argv[1].split(",")
        unknown = [x for x in sizes if x not in SIZES]
        if unknown:
            print(f"scripts/bench: error: --matrix: unknown size {unknown[0]!r} (expected some of {', '.join(SIZES)},"
                  " comma-separated, or none)", file=sys.stderr)
            sys.exit(2)
        for name, args in cells(sizes):
            print("\t".join([name, *args]))
        return
    if len(argv) != 2 or argv[0] != "--ceilings":
        sys.exit("usage: python3 scripts/lib/bench_matrix.py --list SIZES | --moe | --ceilings TRAINSIM")
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
    out = {}
    with tempfile.TemporaryDirectory() as folder:
        report = os.path.join(folder, "report.json")
        for name, args in cells(("1k", "16k")):
            subprocess.run([os.path.abspath(argv[1]), "run", *args, "-q", "-o", report], cwd=repo, check=True)
            out[name] = json.load(open(report))["simulation"]["transfers"]
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main(sys.argv[1:])
