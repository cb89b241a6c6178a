#!/usr/bin/env bash
# Malformed scenarios must be rejected the way DESIGN.md "Command line" promises:
#   trainsim check FILE  ->  exit code 2, nothing on stdout, and exactly one line on stderr,
#   "trainsim: error: FILE: /json/path: what is wrong (expected ...)".
# Each case below names the JSON path and a fragment the message must contain.
#
# Usage (ctest runs it): bash bad_inputs.sh /path/to/trainsim /path/to/repo
# Inputs: test/data/bad/base.json (validation/published-a100.json row k22-22B-full with the
# model and cluster inline, a valid scenario) with one thing broken per case, written by python3
# (standard library only) into a temporary folder; plus the raw files in test/data/bad/.
set -u

if [[ $# -ne 2 ]]; then
  echo "usage: bash $0 /path/to/trainsim /path/to/repo" >&2
  exit 2
fi
TRAINSIM=$1
REPO=$2
BAD="$REPO/test/data/bad"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/trainsim-bad-inputs.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT

# Writes the inputs into $WORK/cases/ and prints one line per case:
#   name <TAB> input file <TAB> file the message names <TAB> JSON path <TAB> fragment
# The message names the scenario, or the file it refers to where the error is.
python3 - "$BAD" "$WORK/cases" >"$WORK/manifest.tsv" <<'PY' || { echo "could not write the cases" >&2; exit 1; }
import copy, json, os, sys

bad, out = sys.argv[1], sys.argv[2]
os.makedirs(out)
with open(os.path.join(bad, "base.json")) as f:
    BASE = json.load(f)

rows = []

def emit(name, path, fragment, file=None, names=None):
    assert "\t" not in fragment and "\n" not in fragment
    file = file or os.path.join(out, name + ".json")
    rows.append((name, file, names or file, path, fragment))

def case(name, path, fragment, change, names=None):
    """A copy of base.json with `change(s)` applied."""
    s = copy.deepcopy(BASE)
    change(s)
    with open(os.path.join(out, name + ".json"), "w") as f:
        json.dump(s, f, indent=2)
    emit(name, path, fragment, names=names)

def raw(name, path, fragment, data):
    """A file with exactly these bytes."""
    with open(os.path.join(out, name + ".json"), "wb") as f:
        f.write(data)
    emit(name, path, fragment)

def shipped(name, path, fragment):
    """A file from test/data/bad/ as it is."""
    emit(name, path, fragment, os.path.join(bad, name + ".json"))

def put(dotted, value):
    def change(s):
        *parents, last = dotted.split(".")
        for p in parents:
            s = s[p]
        s[last] = value
    return change

def drop(dotted):
    def change(s):
        *parents, last = dotted.split(".")
        for p in parents:
            s = s[p]
        del s[last]
    return change

def all_of(*changes):
    def change(s):
        for c in changes:
            c(s)
    return change

# Two pipeline stages on two nodes: the base (tp 8, pp 1, 8 GPUs) with pp 2 and 16 GPUs.
pp2 = all_of(put("parallelism.pp", 2), put("cluster.gpus", 16))

# --- files that are not a scenario -------------------------------------------------------------
emit("missing-file", "/", "no such file")
shipped("not-json", "/", "invalid JSON")
shipped("empty", "/", "invalid JSON")
shipped("top-array", "/", "is array (expected an object)")
raw("top-null", "/", "is null (expected an object)", b"null\n")
raw("bad-utf8", "/", "invalid JSON", b'{"name": "\xff\xfe"}\n')
raw("number-overflow", "/", "invalid JSON",
    json.dumps(BASE, indent=2).replace('"tp": 8', '"tp": 1e400').encode())
raw("deep-nesting", "/", "nested more than 64 deep", b"[" * 100000 + b"]" * 100000)
os.makedirs(os.path.join(out, "a-folder.json"))
emit("a-folder", "/", "is a directory")

# --- types, keys and ranges --------------------------------------------------------------------
case("tp-string", "/parallelism/tp", "is string", put("parallelism.tp", "8"))
case("unknown-top-key", "/trainig", "unknown key 'trainig' (did you mean 'training'?)",
     all_of(put("trainig", BASE["training"]), drop("training")))
case("unknown-nested-key", "/parallelism/tpp", "unknown key 'tpp' (did you mean 'tp'?)",
     put("parallelism.tpp", 8))
case("missing-key", "/training/seq_len", "missing required key", drop("training.seq_len"))
case("grad-reduce-not-bool", "/training/grad_reduce_in_fp32", "is string", put("training.grad_reduce_in_fp32", "no"))
case("negative-count", "/parallelism/dp", "-1 is out of range", put("parallelism.dp", -1))
case("zero-gpus", "/cluster/gpus", "0 is out of range", put("cluster.gpus", 0))
case("huge-count", "/parallelism/tp", "1e+30 is out of range", put("parallelism.tp", 1e30))
case("non-integer-count", "/parallelism/pp", "is not a whole number", put("parallelism.pp", 2.5))
case("zero-micro-batch", "/training/micro_batch", "0 is out of range", put("training.micro_batch", 0))
case("seed-string", "/seed", "is string", put("seed", "one"))
case("bool-as-string", "/parallelism/sequence_parallel", "is string (expected true or false)",
     put("parallelism.sequence_parallel", "yes"))
case("wrong-kind", "/kind", "'model' is not known", put("kind", "model"))
case("model-number", "/model", "is neither a name nor an object (expected a name in the data folder's models/",
     put("model", 3))
case("cluster-array", "/cluster", "is neither a name nor an object (expected a name in the data folder's topologies/",
     put("cluster", [1]))
case("scale-up-string", "/cluster/scale_up", "is string (expected an object)",
     put("cluster.scale_up", "nvlink-gen9"))
case("zero-top-k", "/model/moe/top_k", "0 is out of range",
     put("model.moe", {"experts": 8, "top_k": 0}))
case("oversubscription-below-1", "/cluster/scale_out/oversubscription", "is out of range",
     put("cluster.scale_out.oversubscription", 0.5))
case("layers-per-stage-object", "/parallelism/layers_per_stage", "is object (expected an array)",
     all_of(pp2, put("parallelism.layers_per_stage", {"0": 24})))

# --- step_faults (base: 8 GPUs on one node with 8 NICs) --------------------------------------------
def faults(*events, **extra):
    return put("step_faults", dict(extra, events=list(events)))
case("fault-gpu-out-of-range", "/step_faults/events/0/gpu", "8 is out of range",
     faults({"kind": "slow", "gpu": 8, "factor": 2}))
case("fault-nic-out-of-range", "/step_faults/events/0/nic", "8 is out of range",
     faults({"kind": "fail", "nic": 8, "at": "1 s"}))
case("fault-factor-below-1", "/step_faults/events/0/factor", "0.5 is out of range",
     faults({"kind": "slow", "gpu": 1, "factor": 0.5}))
case("fault-factor-string", "/step_faults/events/0/factor", "is string",
     faults({"kind": "slow", "gpu": 1, "factor": "2x"}))
case("fault-negative-at", "/step_faults/events/0/at", "'-1 s' is out of range",
     faults({"kind": "fail", "gpu": 1, "at": "-1 s"}))
case("fault-two-failures", "/step_faults/events/1", 'at most one "fail" event',
     faults({"kind": "fail", "gpu": 1, "at": "1 s"}, {"kind": "fail", "nic": 2, "at": "2 s"}))
case("fault-zero-timeout", "/step_faults/nccl_timeout", "'0 s' is not positive",
     faults({"kind": "slow", "gpu": 1, "factor": 2}, nccl_timeout="0 s"))
case("fault-no-component", "/step_faults/events/0", "names no component",
     faults({"kind": "slow", "factor": 2}))
case("fault-gpu-and-nic", "/step_faults/events/0", "names both a gpu and a nic",
     faults({"kind": "fail", "gpu": 1, "nic": 1, "at": "1 s"}))
case("fault-factor-on-fail", "/step_faults/events/0/factor", "unknown key 'factor'",
     faults({"kind": "fail", "gpu": 1, "at": "1 s", "factor": 2}))
case("fault-unknown-kind", "/step_faults/events/0/kind", "'crash' is not known",
     faults({"kind": "crash", "gpu": 1}))
case("fault-events-object", "/step_faults/events", "is object (expected an array)",
     put("step_faults", {"events": {"kind": "slow", "gpu": 1, "factor": 2}}))
case("fault-unknown-key", "/step_faults/timeout", "unknown key 'timeout'",
     put("step_faults", {"timeout": "60 s", "events": []}))
case("stragglers-too-many", "/step_faults/stragglers/count", "9 is out of range",
     put("step_faults", {"stragglers": {"count": 9, "factor": 2}}))
case("stragglers-count-and-fraction", "/step_faults/stragglers", "gives both count and fraction",
     put("step_faults", {"stragglers": {"count": 1, "fraction": 0.5, "factor": 2}}))
case("stragglers-factor-range", "/step_faults/stragglers/factor/max", "1.1 is below min 1.5",
     put("step_faults", {"stragglers": {"count": 1, "factor": {"min": 1.5, "max": 1.1}}}))

# --- quantities --------------------------------------------------------------------------------
case("unit-does-not-parse", "/cluster/scale_up/bandwidth", "'300 GB/parsec' does not parse",
     put("cluster.scale_up.bandwidth", "300 GB/parsec"))
case("unknown-scale-out-kind", "/cluster/scale_out/kind", "'fat-tre' is not known (did you mean 'fat-tree'?)",
     put("cluster.scale_out.kind", "fat-tre"))
case("unknown-scale-up-kind", "/cluster/scale_up/kind", "'dragonfly' is not known",
     put("cluster.scale_up.kind", "dragonfly"))
torus = lambda dims: all_of(put("cluster.scale_up.kind", "torus"), put("cluster.scale_up.dims", dims),
                            put("cluster.gpus_per_node", 4), put("cluster.scale_out.nics_per_node", 4))
case("torus-without-dims", "/cluster/scale_up/dims", "missing required key",
     all_of(torus([2, 2, 2]), drop("cluster.scale_up.dims")))
case("torus-dims-not-chips", "/cluster/scale_up/dims",
     "2x2x3 = 12 chips does not divide the cluster's 8 (the cluster is whole tori)", torus([2, 2, 3]))
case("torus-dims-not-a-list", "/cluster/scale_up/dims", "is not a list of 1 to 3 dimensions", torus(8))
case("torus-four-dims", "/cluster/scale_up/dims", "is not a list of 1 to 3 dimensions", torus([2, 2, 2, 1]))
case("torus-dim-zero", "/cluster/scale_up/dims/1", "is out of range", torus([8, 0]))
case("torus-not-whole-nodes", "/cluster/scale_up/dims", "2 chips is not whole nodes of 4", torus([2]))
case("torus-twist-shape", "/cluster/scale_up/twisted", "a 2x2x2 torus cannot be twisted",
     all_of(torus([2, 2, 2]), put("cluster.scale_up.twisted", True)))
case("torus-twist-dimension-of-one", "/cluster/scale_up/twisted", "a 1x2x2 torus cannot be twisted",
     all_of(torus([1, 2, 2]), put("cluster.scale_up.twisted", True)))
case("dims-on-nvswitch", "/cluster/scale_up/dims", "applies to a torus only",
     put("cluster.scale_up.dims", [2, 2, 2]))
case("torus-domain-gpus", "/cluster/scale_up/domain_gpus", "a torus's domain is its dims' product",
     all_of(torus([2, 2, 2]), put("cluster.scale_up.domain_gpus", 8)))
case("torus-cube-not-dividing", "/cluster/scale_up/cube/2", "4 does not divide the dimension's 2 chips",
     all_of(torus([2, 2, 2]), put("cluster.scale_up.cube", [2, 2, 4])))
case("torus-cube-wrong-length", "/cluster/scale_up/cube", "is not one extent per dimension of dims 2x2x2",
     all_of(torus([2, 2, 2]), put("cluster.scale_up.cube", [2, 2])))
case("torus-ocs-without-cube", "/cluster/scale_up/ocs", "needs the cubes whose faces the switches join",
     all_of(torus([2, 2, 2]), put("cluster.scale_up.ocs", True)))
case("mesh-twisted", "/cluster/scale_up/twisted", "applies to a torus only, not to scale_up.kind 'mesh'",
     all_of(torus([2, 2, 2]), put("cluster.scale_up.kind", "mesh"), put("cluster.scale_up.twisted", False)))
case("torus-forced-ring", "/parallelism/collective_algorithms/all_reduce",
     "'ring' cannot run the all-reduce over 8 GPUs on 1 node(s): inside a torus only torus runs the all-reduce",
     all_of(torus([2, 2, 2]), put("parallelism.collective_algorithms", {"all_reduce": "ring"})))
ocs = lambda **extra: put("cluster.scale_out", dict({"kind": "ocs", "nics_per_node": 8, "nic_bandwidth": "200 Gb/s",
                                                      "reconfiguration": "10 ms"}, **extra))
case("ocs-too-few-ports", "/cluster/scale_out/ports", "8 NICs need a port each; the switch has 4", ocs(ports=4))
case("ocs-reconfiguration-no-unit", "/cluster/scale_out/reconfiguration",
     "'10' does not parse (expected a positive quantity with a unit", ocs(reconfiguration="10"))
case("ocs-reconfiguration-number", "/cluster/scale_out/reconfiguration", "is number", ocs(reconfiguration=0.01))
# The window's bounds (cluster.cpp): Sirius's 3.84 ns switch, a patch panel's minutes.
case("ocs-reconfiguration-a-day", "/cluster/scale_out/reconfiguration", "from 100 ps to 1 h", ocs(reconfiguration="1 d"))
case("ocs-reconfiguration-1e24", "/cluster/scale_out/reconfiguration", "from 100 ps to 1 h", ocs(reconfiguration="1e24 s"))
case("ocs-reconfiguration-10ps", "/cluster/scale_out/reconfiguration", "from 100 ps to 1 h", ocs(reconfiguration="0.01 ns"))
case("ocs-without-reconfiguration", "/cluster/scale_out/reconfiguration", "missing required key",
     all_of(ocs(), drop("cluster.scale_out.reconfiguration")))
case("ocs-oversubscription", "/cluster/scale_out/oversubscription", "applies to scale_out.kind 'fat-tree', not to 'ocs'",
     ocs(oversubscription=2))
case("fat-tree-ports", "/cluster/scale_out/ports", "applies to scale_out.kind 'ocs', not to 'fat-tree'",
     put("cluster.scale_out.ports", 64))
direct = lambda **extra: all_of(put("cluster.gpus", 32), put("cluster.scale_out", dict(
    {"kind": "direct", "nics_per_node": 4, "nic_bandwidth": "200 Gb/s"}, **extra)))
case("direct-strides-over-ports", "/cluster/scale_out/strides",
     "3 strides take 6 ports of each node (two per stride); a node has 4 (nics_per_node)", direct(strides=[1, 1, 1]))
case("direct-stride-out-of-range", "/cluster/scale_out/strides/0", "is out of range", direct(strides=[0]))
case("direct-strides-disconnected", "/cluster/scale_out/strides", "leave the 4 nodes in 2 groups no circuit joins",
     direct(strides=[2]))
case("direct-one-port", "/cluster/scale_out/nics_per_node", "its circuits need at least 2", direct(nics_per_node=1))
case("direct-strides-on-fat-tree", "/cluster/scale_out/strides", "applies to scale_out.kind 'direct', not to 'fat-tree'",
     put("cluster.scale_out.strides", [1]))
case("direct-on-torus", "/cluster/scale_out/kind", "joins nodes that are each one NVLink domain; scale_up is torus",
     all_of(direct(), torus([2, 2, 2])))
case("nvls-not-bool", "/cluster/scale_up/nvls", "is string (expected true or false)",
     put("cluster.scale_up.nvls", "yes"))
case("zero-bandwidth", "/cluster/scale_up/bandwidth", "'0 GB/s' is not positive",
     put("cluster.scale_up.bandwidth", "0 GB/s"))
case("negative-bandwidth", "/cluster/scale_out/nic_bandwidth", "'-200 Gb/s' is not positive",
     put("cluster.scale_out.nic_bandwidth", "-200 Gb/s"))
case("quantity-as-number", "/cluster/scale_up/bandwidth", "is number",
     put("cluster.scale_up.bandwidth", 300))
case("bytes-for-bandwidth", "/cluster/scale_out/nic_bandwidth", "'200 GB' does not parse",
     put("cluster.scale_out.nic_bandwidth", "200 GB"))

# --- names -------------------------------------------------------------------------------------
case("unknown-device", "/cluster/gpu", "unknown device 'a100-sxm-80g' (did you mean 'a100-sxm-80gb'?)",
     put("cluster.gpu", "a100-sxm-80g"))
case("unknown-model", "/model", "unknown model 'gpt-nonexistent'", put("model", "gpt-nonexistent"))
case("unknown-cluster", "/cluster", "unknown cluster 'no-such-cluster'", put("cluster", "no-such-cluster"))
case("unknown-activation", "/model/activation", "'relu' is not known", put("model.activation", "relu"))
case("dropout-not-bool", "/model/dropout", "expected", put("model.dropout", 0.1))
case("recompute-op-unfused", "/training/recompute", "saves the fused attention kernel's output",
     all_of(put("training.recompute", "op"), put("training.attention", "unfused")))
case("recompute-op-tp-without-sp", "/training/recompute", "which is sequence parallel",
     all_of(put("training.recompute", "op"), put("training.attention", "flash"),
            put("parallelism.sequence_parallel", False)))
# Attention kernels (sim/scenario/attention_kernels.hpp): a name outside the registry, and a kernel
# the device profile has no curve for (the A100 profiles publish FlashAttention-2's only).
case("unknown-attention", "/training/attention", "'flash3' is not known", put("training.attention", "flash3"))
case("attention-without-curve", "/training/attention", "has no cudnn_attention efficiency",
     put("training.attention", "cudnn"))
# A kernel derived from FlashAttention-2's curve needs that curve (the TPU v4 profile has none).
case("derived-attention-without-base", "/training/attention", "has no flash_attention efficiency",
     all_of(put("training.attention", "triton"), put("cluster.gpu", "tpu-v4")))
case("unknown-elementwise", "/training/elementwise", "'compiled' is not known",
     put("training.elementwise", "compiled"))
case("reshard-without-zero3", "/parallelism/reshard_after_forward", "zero is 0",
     put("parallelism.reshard_after_forward", False))
case("dp-shard-without-zero3", "/parallelism/dp_shard", "zero is 0", put("parallelism.dp_shard", 2))
case("dp-shard-not-dividing", "/parallelism/dp_shard", "2 does not divide dp=1",
     all_of(put("parallelism.zero", 3), put("parallelism.dp_shard", 2)))
case("dp-shard-not-a-count", "/parallelism/dp_shard", "", put("parallelism.dp_shard", "8"))
case("cuda-graphs-not-a-boolean", "/training/cuda_graphs", "", put("training.cuda_graphs", "yes"))
case("unknown-loss", "/training/loss", "'chunked' is not known", put("training.loss", "chunked"))
case("unknown-fp8-scaling", "/training/fp8_scaling", "'tilewise' is not known",
     all_of(put("training.precision", "fp8"), put("training.fp8_scaling", "tilewise")))
case("fp8-scaling-without-fp8", "/training/fp8_scaling", "precision is bf16", put("training.fp8_scaling", "current"))
case("unknown-fp8-library", "/training/fp8_library", "'transformer-engine' is not known",
     all_of(put("training.precision", "fp8"), put("training.fp8_library", "transformer-engine")))
case("fp8-library-without-fp8", "/training/fp8_library", "precision is bf16", put("training.fp8_library", "torchao"))
case("fp8-params-without-fp8", "/training/fp8_params", "precision is bf16", put("training.fp8_params", True))
case("fp8-params-with-torchao", "/training/fp8_params", "which torchao does not",
     all_of(put("cluster.gpu", "h100-sxm"), put("training.precision", "fp8"), put("training.fp8_library", "torchao"),
            put("training.fp8_params", True)))
case("loss-not-a-name", "/training/loss", "expected", put("training.loss", True))
case("unknown-position", "/model/position", "'alibi' is not known", put("model.position", "alibi"))
# overlap_param_gather is the distributed optimizer's (zero 1 or 2) and needs overlap_grad_reduce.
case("param-gather-zero0", "/parallelism/overlap_param_gather", "and zero is 0",
     all_of(put("parallelism.zero", 0), put("parallelism.overlap_grad_reduce", True),
            put("parallelism.overlap_param_gather", True)))
case("param-gather-zero3", "/parallelism/overlap_param_gather", "prefetches its own gathers",
     all_of(put("parallelism.zero", 3), put("parallelism.overlap_grad_reduce", True),
            put("parallelism.overlap_param_gather", True)))
case("param-gather-no-overlap", "/parallelism/overlap_param_gather", "needs overlap_grad_reduce",
     all_of(put("parallelism.zero", 1), put("parallelism.overlap_grad_reduce", False),
            put("parallelism.overlap_param_gather", True)))
case("unknown-recompute", "/training/recompute", "'partial' is not known", put("training.recompute", "partial"))
case("unknown-schedule", "/parallelism/schedule", "'1f1bb' is not known (did you mean '1f1b'?)",
     put("parallelism.schedule", "1f1bb"))
# An error inside a model file the scenario names is reported against that file.
with open(os.path.join(out, "typo-model.json"), "w") as f:
    json.dump(dict(BASE["model"], layer=48), f)
case("error-in-named-model", "/layer", "unknown key 'layer' (did you mean 'layers'?)",
     put("model", "typo-model.json"), names=os.path.join(out, "typo-model.json"))
# {"from": name, ...}: the overriding value is the user's, so the scenario file is named.
case("bad-override-of-named-model", "/model/heads", "hidden=12288 is not divisible by heads=100",
     put("model", {"from": "gpt3-175b", "heads": 100}))

# --- the model ---------------------------------------------------------------------------------
case("heads-not-dividing-hidden", "/model/heads", "hidden=6144 is not divisible by heads=100",
     all_of(put("model.heads", 100), drop("model.kv_heads")))
case("top-k-above-experts", "/model/moe/top_k", "9 is out of range",
     put("model.moe", {"experts": 8, "top_k": 9}))
# A plan over memory is not bad input: it is simulated and reported as not fitting, refused only
# with --strict-memory (memory_verdict.sh).
# MLA and multi-token prediction layers run in 16 bits, MoE, MLA and MTP without per-op checkpointing, and
# expert parallelism without hybrid sharding beside it, and beside tensor parallelism only sequence-parallel
# (ops.cpp, scenario.cpp): the rest is refused in one line.
MOE = {"experts": 8, "top_k": 2}
MLA = {"kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128}
ep_on_16 = lambda ep, experts=8, **extra: all_of(
    put("model.moe", {"experts": experts, "top_k": 2}), put("parallelism.tp", 1), put("parallelism.dp", 16),
    put("cluster.gpus", 16), put("training.global_batch", 16), put("training.micro_batch", 1),
    put("parallelism.ep", ep), *[put("parallelism." + k, v) for k, v in extra.items()])
case("moe-expert-parallel-beside-tp-without-sp", "/parallelism/ep",
     "expert parallelism beside tensor parallelism (tp 8) needs sequence parallelism",
     all_of(put("model.moe", MOE), put("parallelism.ep", 2), put("parallelism.dp", 2), put("cluster.gpus", 16),
            put("training.global_batch", 8)))
case("moe-expert-parallel-hybrid-sharding", "/parallelism/ep",
     "expert parallelism under hybrid sharding (dp_shard 4 of dp 16) is not modelled", ep_on_16(8, zero=3, dp_shard=4))
case("moe-experts-not-dividing-ep", "/parallelism/ep", "8 does not divide experts=6", ep_on_16(8, experts=6))
case("moe-ep-not-dividing-dp", "/parallelism/ep", "32 does not divide dp*cp=16", ep_on_16(32, experts=64))
# The experts' tensor parallelism (scenario.cpp): 1 or tp, of an MoE model, tp with ep 1, and
# beside ep > 1 only under the alltoall dispatcher.
case("etp-of-dense-model", "/parallelism/etp", "splits experts, and model gpt-22B has none (moe)",
     put("parallelism.etp", 8))
case("etp-part-of-tp", "/parallelism/etp", "4 is neither 1 nor tp=8", all_of(put("model.moe", MOE), put("parallelism.etp", 4)))
case("etp-whole-experts-without-ep", "/parallelism/etp",
     "with ep 1 every rank holds its tp share of every expert", all_of(put("model.moe", MOE), put("parallelism.etp", 1)))
case("etp-under-deepep", "/parallelism/etp",
     "experts split over tp 2 under the 'deepep' dispatcher are not modelled",
     ep_on_16(8, tp=2, sequence_parallel=True, dp=8, etp=2, dispatcher="deepep"))
case("tp-not-dividing-expert-ffn", "/parallelism/tp", "8 does not divide moe.expert_ffn_hidden=1004",
     put("model.moe", dict(MOE, expert_ffn_hidden=1004)))
# Activation offloading (plan.cpp, scenario.cpp): over a host link the cluster states, of parts the
# model has and keeps, under recompute none or selective; each module once, by its name.
off = lambda modules, *more: all_of(put("cluster.host_link", "55 GB/s"), put("training.recompute", "none"),
                                   put("training.offload_modules", modules), *more)
case("offload-without-host-link", "/training/offload_modules",
     "go to host memory over the host link, and the cluster states none", put("training.offload_modules", ["attn_norm"]))
case("offload-under-full-recompute", "/training/offload_modules",
     "copy saved inputs that recompute \"full\" does not keep", off(["attn_norm"], put("training.recompute", "full")))
case("offload-experts-of-dense-model", "/training/offload_modules/0",
     "'expert_fc1' copies a part model gpt-22B has not: it has no experts (moe)", off(["expert_fc1"]))
case("offload-recomputed-input", "/training/offload_modules/0",
     "'qkv_linear' copies an input that recompute_modules reruns instead of keeping",
     off(["qkv_linear"], put("training.recompute", "selective"), put("training.recompute_modules", ["layernorm"])))
case("offload-module-twice", "/training/offload_modules/1", "is listed twice", off(["attn_norm", "attn_norm"]))
case("offload-module-unknown", "/training/offload_modules/0", "'attn_nrom' is not known (did you mean 'attn_norm'?)",
     off(["attn_nrom"]))
case("offload-modules-empty", "/training/offload_modules", "is an empty array, which would change nothing", off([]))
# Saved inputs cached in fewer bits (plan.cpp, scenario.cpp): of parts the model has and keeps;
# each input once, by its name.
low = lambda inputs, *more: all_of(put("training.recompute", "none"), put("training.low_precision_inputs", inputs), *more)
case("low-precision-under-full-recompute", "/training/low_precision_inputs",
     "caches saved inputs that recompute \"full\" does not keep", low(["attn_proj"], put("training.recompute", "full")))
case("low-precision-experts-of-dense-model", "/training/low_precision_inputs/0",
     "'moe_act' is an input of a part model gpt-22B has not: it has no experts (moe)", low(["moe_act"]))
case("low-precision-input-twice", "/training/low_precision_inputs/1", "is listed twice", low(["attn_proj", "attn_proj"]))
case("low-precision-input-unknown", "/training/low_precision_inputs/0",
     "'moe_ac' is not known (did you mean 'moe_act'?)", low(["moe_ac"]))
case("low-precision-inputs-empty", "/training/low_precision_inputs", "is an empty array, which would change nothing",
     low([]))
# Sliding-window attention (model.cpp, scenario.cpp): a full-attention interval needs a window;
# a ring of context-parallel blocks under a window is not modelled.
case("full-attention-interval-without-window", "/model/full_attention_interval",
     "says which layers attend over the whole sequence, but no layer has a sliding window",
     put("model.full_attention_interval", 2))
case("sliding-window-under-cp", "/parallelism/cp",
     "2 splits the sequence of a model with a sliding window (sliding_window=128), which trainsim does not model",
     all_of(put("model.sliding_window", 128), put("parallelism.cp", 2), put("cluster.gpus", 16)))
case("mla-op-recompute-not-simulated", "/training/recompute", "per-op checkpointing of a dense block) is not simulated",
     all_of(put("model.mla", MLA), put("training.recompute", "op"), put("training.attention", "flash"),
            put("parallelism.sequence_parallel", True)))
# training.routing (sim/scenario/routing.hpp): a histogram of an MoE model's experts, one share
# each, or a Zipf draw with its exponent, and each key only with its routing.
hist = lambda load, **extra: all_of(put("model.moe", MOE), put("training.routing", "histogram"),
                                    put("training.expert_load", load),
                                    *[put("training." + k, v) for k, v in extra.items()])
case("routing-unknown", "/training/routing", "'powerlaw' is not known", put("training.routing", "powerlaw"))
case("routing-zipf-dense-model", "/training/routing", "'zipf' spreads an MoE layer's tokens",
     all_of(put("training.routing", "zipf"), put("training.routing_skew", 1.0)))
case("routing-zipf-without-skew", "/training/routing", "'zipf' needs training.routing_skew",
     all_of(put("model.moe", MOE), put("training.routing", "zipf")))
case("routing-skew-out-of-range", "/training/routing_skew", "out of range",
     all_of(put("model.moe", MOE), put("training.routing", "zipf"), put("training.routing_skew", 0)))
case("routing-skew-without-zipf", "/training/routing_skew", "applies to routing \"zipf\" only",
     all_of(put("model.moe", MOE), put("training.routing_skew", 1.0)))
case("capacity-factor-when-balanced", "/training/capacity_factor", "applies to routing \"histogram\" or \"zipf\" only",
     all_of(put("model.moe", MOE), put("training.capacity_factor", 1.25)))
case("routing-histogram-dense-model", "/training/routing", "'histogram' spreads an MoE layer's tokens",
     put("training.routing", "histogram"))
case("routing-histogram-without-load", "/training/routing", "'histogram' needs training.expert_load",
     all_of(put("model.moe", MOE), put("training.routing", "histogram")))
case("expert-load-wrong-length", "/training/expert_load", "3 shares for the model's 8 experts", hist([1, 2, 3]))
case("expert-load-negative", "/training/expert_load/0", "out of range", hist([-1, 1, 1, 1, 1, 1, 1, 1]))
case("expert-load-all-zero", "/training/expert_load", "gives no expert any tokens", hist([0] * 8))
case("expert-load-not-a-list", "/training/expert_load", "is not a list of shares", hist(5))
case("capacity-factor-below-one", "/training/capacity_factor", "out of range", hist([1] * 8, capacity_factor=0.5))
case("expert-load-without-histogram", "/training/expert_load", "applies to routing \"histogram\" only",
     all_of(put("model.moe", MOE), put("training.expert_load", [1] * 8)))
case("moe-dense-layers-all", "/model/moe/dense_layers", "leave no MoE layer",
     put("model.moe", {"experts": 8, "top_k": 2, "dense_layers": 1000}))

# --- the cluster -------------------------------------------------------------------------------
case("partial-node", "/cluster/gpus", "12 GPUs do not fill whole nodes of 8", put("cluster.gpus", 12))
case("nics-do-not-pair", "/cluster/scale_out/nics_per_node", "does not pair evenly",
     put("cluster.scale_out.nics_per_node", 3))
case("nics-more-than-gpus", "/cluster/scale_out/nics_per_node",
     "16 NICs for 8 GPUs per node: each GPU sends through one NIC here", put("cluster.scale_out.nics_per_node", 16))
case("pod-not-whole-nodes", "/cluster/scale_out/pod_gpus", "12 GPUs do not fill whole nodes of 8",
     put("cluster.scale_out.pod_gpus", 12))
case("domain-not-whole-nodes", "/cluster/scale_up/domain_gpus",
     "12 is not a multiple of gpus_per_node=8 (an NVLink domain is whole nodes)", put("cluster.scale_up.domain_gpus", 12))
case("domain-does-not-divide", "/cluster/scale_up/domain_gpus",
     "16 does not divide the cluster's 24 GPUs (an NVLink domain is whole)",
     all_of(put("cluster.gpus", 24), put("cluster.scale_up.domain_gpus", 16)))
case("domain-zero", "/cluster/scale_up/domain_gpus", "0 is out of range", put("cluster.scale_up.domain_gpus", 0))
case("domain-string", "/cluster/scale_up/domain_gpus", "is string", put("cluster.scale_up.domain_gpus", "72"))

# --- cross-checks of the plan (DESIGN.md "Scenario file") --------------------------------------
case("product-not-gpus", "/parallelism", "tp*pp*dp*cp = 8*1*2*1 = 16 but the cluster has 8 GPUs",
     put("parallelism.dp", 2))
# dp "auto" takes the GPUs tp*pp*cp leave: 3*1*1 does not divide 8 (tp 3 is checked after dp).
case("dp-auto-not-dividing", "/parallelism/dp", "\"auto\" needs tp*pp*cp = 3 to divide the cluster's 8 GPUs",
     all_of(put("parallelism.dp", "auto"), put("parallelism.tp", 3)))
case("dp-unknown-word", "/parallelism/dp", "'all' is not known (expected one of auto)", put("parallelism.dp", "all"))
case("product-overflow", "/parallelism", "but the cluster has 8 GPUs",
     all_of(*(put("parallelism." + k, 65536) for k in ("tp", "pp", "dp", "cp"))))
# parallelism.placement: an order of tp, cp, pp, dp, or a permutation of the 8 GPUs, one per rank.
case("placement-unknown-dim", "/parallelism/placement", "'tp-cp-pp-ep': 'ep' is not a dimension",
     put("parallelism.placement", "tp-cp-pp-ep"))
case("placement-repeated-dim", "/parallelism/placement", "'tp-dp-pp-dp' names dp twice",
     put("parallelism.placement", "tp-dp-pp-dp"))
case("placement-missing-dim", "/parallelism/placement", "'tp-pp-dp' does not name cp",
     put("parallelism.placement", "tp-pp-dp"))
case("placement-object", "/parallelism/placement", "is object (expected a dimension order",
     put("parallelism.placement", {"tp": 0}))
case("placement-negative", "/parallelism/placement/2", "-1 is out of range", put("parallelism.placement", [0, 1, -1]))
# parallelism.collective_algorithms: NCCL_ALGO per collective, checked against the registry, the
# collective, the device and, once placed, each group.
case("algorithm-unknown", "/parallelism/collective_algorithms/all_reduce", "'trea' is not known (did you mean 'tree'?)",
     put("parallelism.collective_algorithms", {"all_reduce": "trea"}))
case("algorithm-unknown-collective", "/parallelism/collective_algorithms/allreduce", "unknown key 'allreduce'",
     put("parallelism.collective_algorithms", {"allreduce": "ring"}))
case("algorithm-wrong-collective", "/parallelism/collective_algorithms/all_gather",
     "'tree': tree runs all-reduce only, not all-gather", put("parallelism.collective_algorithms", {"all_gather": "tree"}))
case("algorithm-hierarchical-all-to-all", "/parallelism/collective_algorithms/all_to_all",
     "'hierarchical': hierarchical runs all-reduce, all-gather and reduce-scatter, not all-to-all",
     put("parallelism.collective_algorithms", {"all_to_all": "hierarchical"}))
case("algorithm-needs-nvls", "/parallelism/collective_algorithms/all_reduce",
     "'nvls' needs NVLink SHARP, which device a100-sxm-80gb has not",
     put("parallelism.collective_algorithms", {"all_reduce": "nvls"}))
case("algorithm-group-cannot-run", "/parallelism/collective_algorithms/all_reduce",
     "'nvls_tree' cannot run the all-reduce over 8 GPUs on 1 node(s): nvls_tree needs two or more nodes",
     all_of(put("cluster.gpu", "h100-sxm"), put("parallelism.collective_algorithms", {"all_reduce": "nvls_tree"})))
# parallelism.tp_comm_overlap: sequence parallel, tp > 1, and every TP group inside an NVLink domain.
case("tp-overlap-without-sp", "/parallelism/tp_comm_overlap", "needs sequence_parallel",
     put("parallelism.tp_comm_overlap", True))
case("tp-overlap-tp1", "/parallelism/tp_comm_overlap", "needs tensor parallelism (tp=1)",
     all_of(put("parallelism.tp", 1), put("parallelism.dp", 8), put("parallelism.tp_comm_overlap", True)))
case("tp-overlap-across-nodes", "/parallelism/tp_comm_overlap",
     "needs every tensor-parallel group inside one NVLink domain",
     all_of(put("cluster.gpus_per_node", 4), put("cluster.scale_out.nics_per_node", 4),
            put("parallelism.sequence_parallel", True), put("parallelism.tp_comm_overlap", True)))
case("tp-overlap-not-bool", "/parallelism/tp_comm_overlap", "expected", put("parallelism.tp_comm_overlap", "yes"))
# parallelism.tp_library (sim/scenario/tp_library.hpp): a name outside the registry; PyTorch's
# DTensor with Transformer Engine's userbuffers overlap, or on an XLA torus.
case("unknown-tp-library", "/parallelism/tp_library", "'deepspeed' is not known",
     put("parallelism.tp_library", "deepspeed"))
case("tp-library-with-userbuffers", "/parallelism/tp_library", "PyTorch's async tensor parallelism is not modelled",
     all_of(put("parallelism.sequence_parallel", True), put("parallelism.tp_comm_overlap", True),
            put("parallelism.tp_library", "dtensor")))
case("tp-library-on-xla", "/parallelism/tp_library", "this cluster's runtime is XLA",
     all_of(torus([2, 2, 2]), put("parallelism.tp_library", "dtensor")))
# parallelism.dispatcher (sim/scenario/dispatcher.hpp): a name outside the registry; DeepEP's
# kernels, which forward tokens over NVLink, on a torus; and beside an all-to-all algorithm forced
# for NCCL.
case("dispatcher-unknown", "/parallelism/dispatcher",
     "'deep_ep' is not known (did you mean 'deepep'?)", put("parallelism.dispatcher", "deep_ep"))
case("deepep-on-a-torus", "/parallelism/dispatcher", "'deepep' forwards tokens over NVSwitch nodes' NVLink",
     all_of(torus([2, 2, 2]), put("parallelism.dispatcher", "deepep")))
case("deepep-with-forced-all-to-all", "/parallelism/collective_algorithms/all_to_all",
     "the 'deepep' dispatcher runs the all-to-alls with its own kernels",
     all_of(put("parallelism.dispatcher", "deepep"), put("parallelism.collective_algorithms", {"all_to_all": "ring"})))
case("cp-comm-unknown", "/parallelism/cp_comm", "'ring' is not known (expected one of p2p, all_gather)",
     put("parallelism.cp_comm", "ring"))
case("placement-too-long", "/parallelism/placement", "9 GPUs listed for the plan's 8 global ranks",
     put("parallelism.placement", list(range(9))))
case("placement-out-of-range", "/parallelism/placement/3", "GPU 8 is out of range (expected a GPU in [0, 8))",
     put("parallelism.placement", [0, 1, 2, 8, 4, 5, 6, 7]))
case("placement-repeated-gpu", "/parallelism/placement/5", "ranks 1 and 5 both run on GPU 3 (expected each GPU once)",
     put("parallelism.placement", [0, 3, 2, 1, 4, 3, 6, 7]))
case("placement-missing-gpu", "/parallelism/placement", "7 GPUs listed for the plan's 8 global ranks (GPU 5 runs none)",
     put("parallelism.placement", [0, 1, 2, 3, 4, 6, 7]))
# 12 heads divide hidden 6144 but not tp 8.
case("tp-not-dividing-heads", "/parallelism/tp", "8 does not divide heads=12",
     all_of(put("model.heads", 12), put("model.kv_heads", 12)))
# 12 KV heads (GQA) divide the 48 heads, but tp 8 neither divides 12 (each rank its share) nor is
# a multiple of it (each rank one whole head, replicated: 4 KV heads at tp 8 run).
case("tp-not-dividing-kv-heads", "/parallelism/tp", "8 neither divides nor is a multiple of kv_heads=12",
     all_of(put("model.heads", 48), put("model.kv_heads", 12)))
case("ep-on-dense-model", "/parallelism/ep", "expert parallelism needs an MoE model", put("parallelism.ep", 2))
case("moe-ep-not-dividing-folded-ranks", "/parallelism/ep", "32 does not divide tp*dp*cp=16",
     all_of(put("model.moe", {"experts": 64, "top_k": 2}), put("parallelism.ep", 32), put("parallelism.dp", 2),
            put("parallelism.sequence_parallel", True), put("cluster.gpus", 16), put("training.global_batch", 8)))
case("batch-not-divisible", "/training/micro_batch", "global_batch=6 is not divisible by dp*micro_batch=4",
     put("training.global_batch", 6))
case("virtual-stages-without-pp", "/parallelism/virtual_stages", "need pipeline parallelism",
     put("parallelism.virtual_stages", 2))
case("1f1b-with-virtual-stages", "/parallelism/schedule", "'1f1b' cannot run virtual stages",
     all_of(pp2, put("parallelism.virtual_stages", 3), put("parallelism.schedule", "1f1b")))
case("zero-bubble-with-virtual-stages", "/parallelism/schedule", "'zb_h1' cannot run virtual stages",
     all_of(pp2, put("parallelism.virtual_stages", 3), put("parallelism.schedule", "zb_h1")))
case("zb-v-without-pipeline", "/parallelism/schedule", "'zb_v' runs a V of two stages on each rank of a pipeline",
     put("parallelism.schedule", "zb_v"))
case("zb-v-three-chunks", "/parallelism/virtual_stages", "'zb_v' runs two chunks per rank, in a V",
     all_of(pp2, put("parallelism.virtual_stages", 3), put("parallelism.schedule", "zb_v")))
# DualPipe (deepseek-ai/DualPipe: an even pp, an even number of microbatches, at least 2 pp).
pp4 = all_of(put("parallelism.pp", 4), put("cluster.gpus", 32), put("training.micro_batch", 1),
             put("parallelism.virtual_stages", 2))
case("dualpipe-odd-pp", "/parallelism/pp", "'dualpipe' pairs rank r with rank pp-1-r; pp is 3, odd",
     all_of(put("parallelism.pp", 3), put("cluster.gpus", 24), put("training.micro_batch", 1),
            put("training.global_batch", 12), put("parallelism.schedule", "dualpipe")))
case("dualpipe-too-few-microbatches", "/training/global_batch",
     "'dualpipe' runs at least 8, and an even number of, microbatches per step on pp=4",
     all_of(pp4, put("training.global_batch", 6), put("parallelism.schedule", "dualpipe")))
case("dualpipe-odd-microbatches", "/training/global_batch", "global_batch/(dp*micro_batch) is 9",
     all_of(pp4, put("training.global_batch", 9), put("parallelism.schedule", "dualpipe")))
case("dualpipe-v-without-pipeline", "/parallelism/schedule", "'dualpipe_v' runs a V of two stages on each rank",
     put("parallelism.schedule", "dualpipe_v"))
# parallelism.ep_comm_overlap: Megatron-Core's --overlap-moe-expert-parallel-comm asks for expert
# parallelism, an all-to-all dispatcher, no full recomputation and, on a pipeline, virtual stages
# (on pp 1, 1F1B's order).
moe8 = all_of(put("model.moe", {"experts": 8, "top_k": 2}), put("parallelism.ep", 8),
              put("parallelism.sequence_parallel", True), put("training.recompute", "selective"),
              put("parallelism.ep_comm_overlap", True))
case("ep-overlap-without-ep", "/parallelism/ep_comm_overlap", "this plan has none (ep = 1)",
     put("parallelism.ep_comm_overlap", True))
case("ep-overlap-allgather", "/parallelism/ep_comm_overlap", "the allgather dispatcher has none",
     all_of(moe8, put("parallelism.dispatcher", "allgather")))
case("ep-overlap-full-recompute", "/parallelism/ep_comm_overlap", "without full recomputation",
     all_of(moe8, put("training.recompute", "full")))
case("ep-overlap-pp1-gpipe", "/parallelism/ep_comm_overlap", "'gpipe' runs every forward first",
     all_of(moe8, put("parallelism.schedule", "gpipe")))
case("ep-overlap-1f1b", "/parallelism/ep_comm_overlap", "'1f1b' is not it",
     all_of(moe8, pp2, put("parallelism.schedule", "1f1b")))
case("ep-overlap-not-bool", "/parallelism/ep_comm_overlap", "expected", put("parallelism.ep_comm_overlap", 1))
case("interleaved-without-virtual-stages", "/parallelism/schedule", "'interleaved' needs virtual_stages > 1",
     all_of(pp2, put("parallelism.schedule", "interleaved")))
case("fp8-on-a100", "/training/precision", "device a100-sxm-80gb has no fp8 peak",
     put("training.precision", "fp8"))
# training.recompute_modules: selective recomputation's, known, each once, of parts the model has.
sel = put("training.recompute", "selective")
case("recompute-modules-without-selective", "/training/recompute_modules",
     "are what recompute \"selective\" reruns; this run's recompute is \"full\"",
     put("training.recompute_modules", ["core_attn"]))
case("recompute-module-unknown", "/training/recompute_modules/0", "'mla_upproj' is not known (did you mean 'mla_up_proj'?)",
     all_of(sel, put("training.recompute_modules", ["mla_upproj"])))
case("recompute-module-twice", "/training/recompute_modules/1", "is listed twice",
     all_of(sel, put("training.recompute_modules", ["layernorm", "layernorm"])))
case("recompute-module-not-in-model", "/training/recompute_modules/1",
     "'mla_up_proj' reruns a part model gpt-22B has not: it has no latent attention (mla)",
     all_of(sel, put("training.recompute_modules", ["layernorm", "mla_up_proj"])))
case("recompute-modules-empty", "/training/recompute_modules", "is an empty array",
     all_of(sel, put("training.recompute_modules", [])))
case("adam-moments-fp16", "/training/adam_moments", "'fp16' is not known", put("training.adam_moments", "fp16"))
case("mxfp8-on-hopper", "/training/fp8_scaling", "'mxfp8' needs block-scaled tensor cores (compute capability "
     "10.0, Blackwell); device h100-sxm is 9.0",
     all_of(put("cluster.gpu", "h100-sxm"), put("training.precision", "fp8"), put("training.fp8_scaling", "mxfp8")))
case("seq-len-not-divisible-by-tp", "/parallelism/sequence_parallel", "seq_len=2050 is not divisible by tp=8",
     all_of(put("training.seq_len", 2050), put("parallelism.sequence_parallel", True)))
case("layers-per-stage-sum", "/parallelism/layers_per_stage", "sums to 40",
     all_of(pp2, put("parallelism.layers_per_stage", [20, 20])))
case("layers-per-stage-length", "/parallelism/layers_per_stage", "has 1 entries",
     all_of(pp2, put("parallelism.layers_per_stage", [48])))
# 4 layers on 8 pipeline stages (tp 1 keeps 8 GPUs).
case("more-stages-than-layers", "/parallelism/pp", "4 layers cannot fill 8 pipeline stages",
     all_of(put("model.layers", 4), put("parallelism.tp", 1), put("parallelism.pp", 8)))

# --- sizes that would exhaust memory or time: rejected up front, the limit named ----------------
case("gpus-1e9", "/cluster/gpus", "1000000000 is out of range (expected a whole number in [1, 1048576])",
     put("cluster.gpus", 10**9))
case("layers-1e6", "/model/layers", "1000000 is out of range (expected a whole number in [1, 100000])",
     put("model.layers", 10**6))
case("hidden-1e9", "/model/hidden", "1000000000 is out of range (expected a whole number in [1, 4194304])",
     put("model.hidden", 10**9))
case("vocab-1e12", "/model/vocab", "1000000000000 is out of range (expected a whole number in [1, 16777216])",
     put("model.vocab", 10**12))
case("seq-len-1e9", "/training/seq_len", "1000000000 is out of range (expected a whole number in [1, 16777216])",
     put("training.seq_len", 10**9))
case("global-batch-1e9", "/training/global_batch",
     "1000000000 is out of range (expected a whole number in [1, 16777216])", put("training.global_batch", 10**9))
case("dp-1e9", "/parallelism/dp", "1000000000 is out of range (expected a whole number in [1, 1048576])",
     put("parallelism.dp", 10**9))
# 2^21 microbatches of one sequence on one pipeline rank: 2^22 forward and backward tasks.
case("too-many-tasks", "/training/global_batch",
     "a step of 4194304 tasks (2 * 2097152 microbatches * pp=1 * virtual_stages=1) is more than the limit of 1048576",
     all_of(put("training.global_batch", 2**21), put("training.micro_batch", 1)))
raw("file-over-64-mib", "/", "file is larger than 64 MiB", b" " * (64 << 20) + b"{}")
# A device never ends: reading it used to fill the memory (kernel OOM kill) instead of failing.
emit("device-file", "/", "is a character device, not a regular file (expected a JSON file)", file="/dev/zero")
case("model-is-a-device", "/", "is a character device, not a regular file", put("model", "/dev/zero"), names="/dev/zero")
# A device profile's sustained_compute is a fraction of its curves' tensor-core rate.
with open(os.path.join(bad, "..", "..", "..", "topologies", "devices", "b200.json")) as f:
    b200 = json.load(f)
b200["sustained_compute"]["value"] = 1.2
with open(os.path.join(out, "b200-over-burst.json"), "w") as f:
    json.dump(b200, f)
case("sustained-above-burst", "/sustained_compute", "1.2 is out of range (expected a fraction of the rated speed from 0.01 to 1)",
     put("cluster.gpu", os.path.join(out, "b200-over-burst.json")), names=os.path.join(out, "b200-over-burst.json"))
# A device profile's compute_capability is CUDA's MAJOR.MINOR (device.cpp, parse_compute_capability)
# and its GEMM tiles are ROWSxCOLS, each side at most MAX_GEMM_TILE (device.hpp).
def broken_b200(name, path, value, where=None):
    profile = copy.deepcopy(b200)
    profile["sustained_compute"]["value"] = 0.85
    *parents, last = path.split("/")[1:]
    node = profile
    for key in parents:
        node = node[key]
    node[last] = {"value": value, "source": "a test's broken value"}
    file = os.path.join(out, name + "-device.json")
    with open(file, "w") as f:
        json.dump(profile, f)
    case(name, where or path, FRAGMENTS[name], put("cluster.gpu", file), names=file)
FRAGMENTS = {
    "cc-not-a-string": "is not a string (expected a compute capability as CUDA writes it, MAJOR.MINOR",
    "cc-no-dot": "'10' is not a compute capability",
    "cc-two-minor-digits": "'9.10' is not a compute capability",
    "cc-leading-zero": "'09.0' is not a compute capability",
    "tile-too-wide": "'256x8192' is not a tile (expected ROWSxCOLS",
}
broken_b200("cc-not-a-string", "/compute_capability", 9.0)
broken_b200("cc-no-dot", "/compute_capability", "10")
broken_b200("cc-two-minor-digits", "/compute_capability", "9.10")
broken_b200("cc-leading-zero", "/compute_capability", "09.0")
broken_b200("tile-too-wide", "/gemm/tiles", ["256x8192"], where="/gemm/tiles/0")
# A newline in a key used to split the message over two lines.
case("newline-in-key", "/na\\nme", "unknown key 'na\\nme' (did you mean 'name'?)", put("na\nme", 1))

# --- failures and recovery (DESIGN.md "Failures and recovery") ---------------------------------
POISSON = {"kind": "poisson"}
def failures(**fields):
    return put("failures", dict(POISSON, **fields))
case("negative-rate", "/failures/per_node_day", "-0.0065 is not positive", failures(per_node_day=-0.0065))
case("zero-rate", "/failures/per_node_day", "0 is not positive", failures(per_node_day=0))
case("zero-component-rate", "/failures/components/faulty-gpu", "0 is not positive",
     failures(components={"faulty-gpu": 0}))
case("zero-horizon", "/failures/horizon", "'0 d' is not positive", failures(horizon="0 d"))
# "takes" (a switch or pod failing together) and "silent" (corruption detected late) on a component;
# base.json's cluster is one node of 8 GPUs.
def switch(**fields):
    return failures(components={"sw": dict({"per_node_day": 0.001}, **fields)})
case("takes-zero", "/failures/components/sw/takes", "0 is out of range", switch(takes=0))
case("takes-negative", "/failures/components/sw/takes", "-1 is out of range", switch(takes=-1))
case("takes-unknown-word", "/failures/components/sw/takes", "unknown group 'rack'", switch(takes="rack"))
case("takes-beyond-cluster", "/failures/components/sw/takes", "2 nodes but the cluster has 1", switch(takes=2))
case("silent-zero", "/failures/components/sw/silent", "'0s' is not positive", switch(silent="0s"))
case("silent-negative", "/failures/components/sw/silent", "'-6 h' is not positive", switch(silent="-6 h"))
case("silent-not-a-duration", "/failures/components/sw/silent", "'soon' does not parse", switch(silent="soon"))
case("unknown-failure-kind", "/failures/kind", "unknown failure model 'poison' (did you mean 'poisson'?)",
     put("failures", {"kind": "poison"}))
case("key-of-another-kind", "/failures/shape", "'shape' does not apply to kind 'poisson'", failures(shape=0.8))
case("unknown-component", "/failures/components/faulty-gpus",
     "unknown component 'faulty-gpus' (did you mean 'faulty-gpu'?)", failures(components={"faulty-gpus": 0.001}))
case("unknown-component-mix", "/failures/components", "unknown component mix 'llama' (did you mean 'llama3'?)",
     failures(components="llama"))
case("trials-beyond-limit", "/failures/trials", "1000000 trials is above the limit of 100000",
     failures(trials=10**6))
# base.json is one node of 8 GPUs: a pool or a replica group larger than the cluster.
case("spares-beyond-cluster", "/recovery/spares", "2 spares for a cluster of 1 nodes",
     all_of(failures(), put("recovery", {"kind": "spares", "spares": 2})))
case("replicas-beyond-cluster", "/recovery/replicas", "2 replicas but the cluster has 1 nodes",
     all_of(failures(), put("recovery", {"kind": "in-memory-checkpoint"})))
case("unknown-strategy", "/recovery/kind",
     "unknown recovery strategy 'checkpoint-restat' (did you mean 'checkpoint-restart'?)",
     all_of(failures(), put("recovery", {"kind": "checkpoint-restat"})))
case("async-key-when-blocking", "/recovery/snapshot", "'snapshot' applies to asynchronous checkpoints only",
     all_of(failures(), put("recovery", {"kind": "checkpoint-restart", "snapshot": "2 s"})))
case("slowdown-out-of-range", "/recovery/background_slowdown", "1.5 is out of range",
     all_of(failures(), put("recovery", {"kind": "checkpoint-restart", "blocking": False, "background_slowdown": 1.5})))
case("warning-of-another-strategy", "/recovery/warning", "'warning' does not apply to strategy 'reroute'",
     all_of(failures(), put("recovery", {"kind": "reroute", "warning": "2 min"})))
case("unknown-strategy-parameter", "/recovery/replica", "unknown key 'replica' (did you mean 'replicas'?)",
     all_of(failures(), put("recovery", {"kind": "in-memory-checkpoint", "replica": 2})))
case("parameter-of-another-strategy", "/recovery/spares", "'spares' does not apply to strategy 'checkpoint-restart'",
     all_of(failures(), put("recovery", {"kind": "checkpoint-restart", "spares": 4})))
case("replicas-below-one", "/recovery/replicas", "0 is out of range",
     all_of(failures(), put("recovery", {"kind": "in-memory-checkpoint", "replicas": 0})))
case("negative-spares", "/recovery/spares", "-1 is out of range",
     all_of(failures(), put("recovery", {"kind": "spares", "spares": -1})))
case("recovery-without-failures", "/recovery", "a recovery strategy needs a failures section",
     put("recovery", {"kind": "checkpoint-restart"}))
case("bad-tokens", "/training/tokens", "'15.6X' is not a token count", put("training.tokens", "15.6X"))
case("bad-storage-bandwidth", "/cluster/storage_bandwidth", "'2 TB' does not parse",
     put("cluster.storage_bandwidth", "2 TB"))

def trace(name, line, fragment, text):
    """A trace file next to the scenario, which names it; the message names the trace and its line."""
    with open(os.path.join(out, name + ".csv"), "w") as f:
        f.write(text)
    case(name, line, fragment, put("failures", {"kind": "trace", "trace": name + ".csv"}),
         names=os.path.join(out, name + ".csv"))
trace("trace-unsorted", "line 3", "comes before the previous row's",
      "time,component,location\n2 h,faulty-gpu,node-1\n1 h,nic,node-2\n")
trace("trace-malformed-row", "line 2", "2 fields (expected rows of time,component,location)",
      "time,component,location\n1 h,nic\n")
trace("trace-bad-time", "line 2", "the first field is not a time", "time,component,location\nsoon,nic,node-1\n")
trace("trace-no-header", "line 1", "the header is not time,component,location (14 bytes; a trace's content is not quoted)", "1 h,nic,node-1\n")

for r in rows:
    print("\t".join(r))
PY

passed=0
failed=0
report() {  # name, problem...
  local name=$1
  shift
  failed=$((failed + 1))
  echo "FAIL $name"
  for p in "$@"; do echo "     $p"; done
}

# The unbroken base must pass, or every rejection below proves nothing.
if timeout 60 "$TRAINSIM" check "$BAD/base.json" >"$WORK/out" 2>"$WORK/err"; then
  passed=$((passed + 1))
  echo "ok   base.json is accepted"
else
  report "base.json" "the valid base is rejected: $(head -c 400 "$WORK/err")"
fi

count=0
while IFS=$'\t' read -r name file names jpath fragment; do
  count=$((count + 1))
  timeout 60 "$TRAINSIM" check "$file" >"$WORK/out" 2>"$WORK/err"
  rc=$?
  problems=()
  [[ $rc -eq 2 ]] || problems+=("exit code $rc (expected 2)")
  [[ -s $WORK/out ]] && problems+=("stdout is not empty: $(head -c 200 "$WORK/out")")
  # Exactly one line: one newline, and it is the last byte.
  lines=$(wc -l <"$WORK/err")
  if [[ $lines -ne 1 || $(tail -c 1 "$WORK/err" | od -An -c | tr -d ' ') != '\n' ]]; then
    problems+=("stderr has $lines newline(s) (expected exactly one line): $(head -c 400 "$WORK/err")")
  fi
  line=$(head -n 1 "$WORK/err")
  prefix="trainsim: error: $names: $jpath: "
  [[ $line == "$prefix"* ]] || problems+=("stderr does not start with '$prefix'")
  [[ $line == *"$fragment"* ]] || problems+=("stderr does not contain '$fragment'")
  if [[ ${#problems[@]} -eq 0 ]]; then
    passed=$((passed + 1))
    echo "ok   $name"
  else
    report "$name" "${problems[@]}" "stderr: $(head -c 400 "$WORK/err")"
  fi
done <"$WORK/manifest.tsv"

if [[ $count -lt 30 ]]; then
  report "case count" "only $count malformed inputs (expected at least 30)"
fi

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
