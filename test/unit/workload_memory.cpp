// Per-GPU memory estimate: every expectation below is derived here from the published formula it
// cites, not from the implementation.
#include <algorithm>
#include <catch2/catch.hpp>

#include "sim/scenario/scenario.hpp"
#include "sim/workload/memory.hpp"
#include "sim/workload/ops.hpp"
#include "sim/workload/stage_layout.hpp"

using namespace sim;

namespace {

// GPT-3 175B (Brown et al. 2020 Table 2.1; Korthikanti et al. 2022 Table 3): 96 layers,
// h = 12288, 96 heads, s = 2048, vocab 51200 (Megatron's padded GPT-2 vocabulary).
Scenario gpt3_175b(int64_t tp, int64_t pp, int64_t dp, int64_t global_batch) {
  Scenario s;
  s.name = "gpt3-175b";
  s.model.name = "gpt3-175b";
  s.model.layers = 96;
  s.model.hidden = 12288;
  s.model.heads = 96;
  s.model.kv_heads = 96;
  s.model.ffn_hidden = 4 * 12288;
  s.model.vocab = 51200;
  s.cluster.device.hbm_capacity = Bytes(80.0 * 1024 * 1024 * 1024);
  s.plan.tp = tp;
  s.plan.pp = pp;
  s.plan.dp = dp;
  s.training.seq_len = 2048;
  s.training.global_batch = global_batch;
  s.training.micro_batch.value = 1;
  s.training.attention = Attention::UNFUSED;  // Korthikanti et al.'s runs
  return s;
}

MemoryEstimate estimate(const Scenario& s) {
  StageLayout layout = make_stage_layout(s.model, s.plan, s.plan.virtual_stages.value, "test");
  return estimate_memory(s, layout, s.training.micro_batch.value);
}

Bytes weights_grads_optimizer(const StageMemory& st) { return st.weights + st.grads + st.optimizer; }

}  // namespace

TEST_CASE("layer activations equal Korthikanti et al. 2022 Table 2 for GPT-3 175B at t=8", "[workload]") {
  Scenario sc = gpt3_175b(8, 8, 1, 64);
  const double s = 2048, b = 1, h = 12288, a = 96, t = 8;

  SECTION("no recompute, TP only: sbh(10 + 24/t + 5as/(ht))") {
    sc.training.recompute = Recompute::NONE;
    sc.plan.sequence_parallel = false;
    CHECK(layer_activation_bytes(sc, 1).value == Approx(s * b * h * (10 + 24 / t + 5 * a * s / (h * t))));
  }
  SECTION("no recompute, TP + SP: sbh(34/t + 5as/(ht))") {
    sc.training.recompute = Recompute::NONE;
    sc.plan.sequence_parallel = true;
    CHECK(layer_activation_bytes(sc, 1).value == Approx(s * b * h * (34 / t + 5 * a * s / (h * t))));
  }
  SECTION("selective recompute, TP: sbh(10 + 24/t)") {
    sc.training.recompute = Recompute::SELECTIVE;
    sc.plan.sequence_parallel = false;
    CHECK(layer_activation_bytes(sc, 1).value == Approx(s * b * h * (10 + 24 / t)));
  }
  SECTION("selective recompute, TP + SP: sbh(34/t)") {
    sc.training.recompute = Recompute::SELECTIVE;
    sc.plan.sequence_parallel = true;
    CHECK(layer_activation_bytes(sc, 1).value == Approx(s * b * h * 34 / t));
  }
  SECTION("full recompute: 2sbh") {
    sc.training.recompute = Recompute::FULL;
    sc.plan.sequence_parallel = false;
    CHECK(layer_activation_bytes(sc, 1).value == Approx(2 * s * b * h));
  }
}

TEST_CASE("layer activations of grouped-query attention, a gated MLP and no dropout, tensor by tensor", "[workload]") {
  // Llama 3 70B's layer (h 8192, 64 heads, 8 key/value heads of 128, SwiGLU ffn 28672, no
  // dropout) at t = 8 with sequence parallelism, each tensor kept for the backward listed with its
  // elements per token (2 bytes each, all split over t): the input norm's input h, the QKV GEMM's
  // input h, Q h, K and V 8 x 128 each, the projection's input h, the second norm's input h, the
  // MLP GEMM's input h, both halves of the gated unit 2 x 28672 and their product 28672.
  Scenario sc = gpt3_175b(8, 8, 1, 64);
  sc.model.hidden = 8192, sc.model.heads = 64, sc.model.kv_heads = 8, sc.model.ffn_hidden = 28672;
  sc.model.activation = Activation::SWIGLU;
  sc.model.dropout = false;
  sc.plan.sequence_parallel = true;
  sc.training.recompute = Recompute::SELECTIVE;
  const double s = 2048, t = 8;
  const double per_token = 8192 + 8192 + 8192 + 2 * 8 * 128 + 8192 + 8192 + 8192 + 3 * 28672.0;
  CHECK(layer_activation_bytes(sc, 1).value == Approx(2 * s * per_token / t));
  SECTION("dropout adds its two masks, a byte per element each") {
    sc.model.dropout = true;
    CHECK(layer_activation_bytes(sc, 1).value == Approx(2 * s * per_token / t + 2 * s * 8192 / t));
  }
  SECTION("FP8 (Transformer Engine) keeps the linear layers' inputs as their FP8 copies") {
    // Bytes per token: the norms' inputs 2 x 8192 x 2, the QKV and MLP GEMMs' inputs 8192 x 1
    // each, Q 8192 x 2, K and V 2 x 1024 x 2, the attention output 8192 x 2 and its FP8 copy
    // 8192 x 1, the gated unit's halves 2 x 28672 x 2 and the second GEMM's input 28672 x 1.
    sc.training.precision = Precision::FP8;
    const double bytes = 2 * 8192 * 2 + 2 * 8192 + 8192 * 2 + 2 * 1024 * 2 + 8192 * 3 + 2 * 28672 * 2 + 28672.0;
    CHECK(layer_activation_bytes(sc, 1).value == Approx(s * bytes / t));
  }
  SECTION("unfused attention without dropout keeps only the softmax output, 2 a s^2 b / t bytes") {
    sc.training.recompute = Recompute::NONE;
    sc.training.attention = Attention::UNFUSED;
    CHECK(layer_activation_bytes(sc, 1).value == Approx(2 * s * per_token / t + 2 * 64 * s * s / t));
  }
}

TEST_CASE("torchtitan's per-op checkpointing keeps every other matmul's output and reruns the rest", "[workload]") {
  // Llama 3 8B's block (h 4096, 8 key/value heads of 128, SwiGLU ffn 14336), FlashAttention. Its
  // matmuls run wq, wk, wv, wo, w1, w3, w2; torchtitan's policy saves the 1st, 3rd, 5th and 7th
  // (wq, wv, w1, w2) and SDPA's output, and the checkpoint keeps the block's input: per token
  // 4096 + 4096 + 1024 + 14336 + 4096 + 4096 elements of 2 bytes. The backward reruns wk, wo and w3:
  // 2 x tokens x 4096 x (1024 + 4096 + 14336) FLOPs.
  Scenario sc = gpt3_175b(1, 8, 1, 64);
  sc.model.hidden = 4096, sc.model.heads = 32, sc.model.kv_heads = 8, sc.model.ffn_hidden = 14336;
  sc.model.activation = Activation::SWIGLU;
  sc.model.dropout = false;
  sc.training.attention = Attention::FLASH;
  sc.training.recompute = Recompute::OP;
  const double s = 2048;
  CHECK(layer_activation_bytes(sc, 1).value == Approx(2 * s * (4096 + 4096 + 1024 + 14336 + 4096 + 4096.0)));
  const PassOps ops = layer_ops(sc, 1);
  double gemm = 0;
  for (const Op& op : ops.recompute)
    if (op.cls == OpClass::GEMM) gemm += op.flops.value;
  CHECK(gemm == Approx(2 * s * 4096 * (1024 + 4096 + 14336.0)));
  SECTION("with tp 8 (sequence parallel) the column-parallel outputs split, wo and w2 give partial sums") {
    // Kept: input, SDPA output and two reduce-scatter outputs (4096 / 8 each), wq 4096 / 8,
    // wv 1024 / 8, w1 14336 / 8, and w2's whole 4096 before its reduce-scatter.
    sc.plan.tp = 8, sc.plan.sequence_parallel = true;
    CHECK(layer_activation_bytes(sc, 1).value ==
          Approx(2 * s * (4 * 4096 / 8.0 + 4096 / 8.0 + 1024 / 8.0 + 14336 / 8.0 + 4096)));
  }
}

TEST_CASE("layer activations scale linearly with the micro batch and shrink with cp", "[workload]") {
  // Table 2 is linear in b; context parallelism splits s, so s -> s/cp (quadratic term included).
  Scenario sc = gpt3_175b(8, 8, 1, 64);
  const double s = 2048, h = 12288, a = 96, t = 8;
  CHECK(layer_activation_bytes(sc, 4).value == Approx(4 * layer_activation_bytes(sc, 1).value));
  sc.plan.cp = 2;
  const double sc2 = s / 2;
  CHECK(layer_activation_bytes(sc, 1).value == Approx(sc2 * h * (10 + 24 / t + 5 * a * sc2 / (h * t))));
}

TEST_CASE("sequence parallelism changes nothing at tp=1", "[workload]") {
  // Table 2 at t=1: 10 + 24/1 = 34/1, so the TP and TP+SP rows coincide.
  Scenario sc = gpt3_175b(1, 8, 1, 64);
  const Bytes without = layer_activation_bytes(sc, 1);
  sc.plan.sequence_parallel = true;
  CHECK(layer_activation_bytes(sc, 1).value == Approx(without.value));
}

TEST_CASE("GPT-3 175B states at tp 8, pp 8 are 18 bytes per parameter of Narayanan's count", "[workload]") {
  // Narayanan et al. 2021 eq. for P: 12*l*h^2*(1 + 13/(12h) + (V+s)/(12*l*h)); one GPU holds
  // P/(t*p) on average; 18 = 2 (bf16 weights) + 4 (fp32 grads) + 12 (fp32 master + Adam m, v).
  const Scenario sc = gpt3_175b(8, 8, 1, 64);
  const double l = 96, h = 12288, V = 51200, s = 2048, t = 8, p = 8;
  const double P = 12 * l * h * h * (1 + 13 / (12 * h) + (V + s) / (12 * l * h));
  const double per_gpu = P / (t * p);
  const MemoryEstimate est = estimate(sc);
  REQUIRE(est.stages.size() == 8);

  double mean = 0;
  for (const StageMemory& st : est.stages) mean += weights_grads_optimizer(st).value / p;
  // 2%: the last stage keeps its own copy of the tied embedding (Megatron, pp > 1) and the final
  // norm, which P counts once (V*h/P = 0.36%); the vocabulary needs no padding here (51200 = 50*1024).
  CHECK(mean == Approx(18 * per_gpu).epsilon(0.02));

  // A middle stage holds only its l/p layers, whose weights are P's 12*l*h^2*(1 + 13/(12h)) part.
  const double layers_only = 12 * (l / p) * h * h * (1 + 13 / (12 * h)) / t;
  CHECK(weights_grads_optimizer(est.stages[3]).value == Approx(18 * layers_only));
  // The first stage adds the vocab-sharded word embedding and the unsharded position embedding.
  CHECK(weights_grads_optimizer(est.stages[0]).value == Approx(18 * (layers_only + V * h / t + s * h)));
  // The last stage adds the output layer (a copy of the word embedding) and the final LayerNorm.
  CHECK(weights_grads_optimizer(est.stages[7]).value == Approx(18 * (layers_only + V * h / t + 2 * h)));
  // Split 2 : 4 : 12.
  CHECK(est.stages[3].weights.value == Approx(2 * layers_only));
  CHECK(est.stages[3].grads.value == Approx(4 * layers_only));
  CHECK(est.stages[3].optimizer.value == Approx(12 * layers_only));
}

TEST_CASE("ZeRO stages shard optimizer, then gradients, then weights over dp", "[workload]") {
  // Rajbhandari et al. 2020 §5: P_os divides optimizer states by Nd, P_os+g also gradients,
  // P_os+g+p also parameters. (Without a pipeline: under one, ZeRO-3's weights stay gathered, below.)
  Scenario sc = gpt3_175b(8, 1, 4, 64);
  const StageMemory base = estimate(sc).stages[0];
  sc.plan.zero = 1;
  const StageMemory z1 = estimate(sc).stages[0];
  sc.plan.zero = 2;
  const StageMemory z2 = estimate(sc).stages[0];
  sc.plan.zero = 3;
  const StageMemory z3 = estimate(sc).stages[0];

  CHECK(z1.optimizer.value == Approx(base.optimizer.value / 4));
  CHECK(z1.grads.value == Approx(base.grads.value));
  CHECK(z1.weights.value == Approx(base.weights.value));
  CHECK(z2.optimizer.value == Approx(base.optimizer.value / 4));
  CHECK(z2.grads.value == Approx(base.grads.value / 4));
  CHECK(z2.weights.value == Approx(base.weights.value));
  CHECK(z3.optimizer.value == Approx(base.optimizer.value / 4));
  CHECK(z3.grads.value == Approx(base.grads.value / 4));
  CHECK(z3.weights.value == Approx(base.weights.value / 4));
  CHECK(z3.activations.value == Approx(base.activations.value));  // ZeRO does not touch activations
}

TEST_CASE("bf16 Adam moments: 8 bytes of optimizer state per parameter instead of 12", "[workload]") {
  // fp32 master weight (4) and two moments of 4 bytes (Rajbhandari et al. 2020 §3.1), or of 2 in
  // bf16 (DeepSeek-V3 §3.3.3); the checkpoint shrinks by the same 4 bytes per parameter, and the
  // fused Adam step moves 2 x 2 x 2 = 8 bytes fewer per updated parameter (read and write m, v).
  Scenario sc = gpt3_175b(8, 1, 4, 64);
  const StageMemory fp32 = estimate(sc).stages[0];
  const double checkpoint = checkpoint_bytes(sc).value;
  const auto adam = [](const Scenario& s) {
    for (const Op& op : optimizer_ops(s, 1e9, 1e9))
      if (op.name == "adam") return op.bytes.value;
    return 0.0;
  };
  const double adam_fp32 = adam(sc);
  sc.training.bf16_moments = true;
  CHECK(estimate(sc).stages[0].optimizer.value == Approx(fp32.optimizer.value * 8 / 12));
  CHECK(checkpoint - checkpoint_bytes(sc).value == Approx(4 * sc.model.total_params()));
  CHECK(adam_fp32 - adam(sc) == Approx(8e9));
}

TEST_CASE("1F1B rank r keeps min(pp - r, m) microbatches of activations", "[workload]") {
  // Narayanan et al. 2021 §2.2.1 / Korthikanti §4.2.3: the first stage of 1F1B holds pp
  // microbatches when m >= pp. Per microbatch: layers * Table 2 row, plus on rank 0 the
  // embedding output 2sbh (Korthikanti §4.3) and on the last rank one microbatch's fp32 logits
  // 4*s*b*V/t.
  const double s = 2048, h = 12288, V = 51200, t = 8;
  Scenario sc = gpt3_175b(8, 8, 1, 16);  // m = 16 >= pp = 8
  const double act = layer_activation_bytes(sc, 1).value;
  const double L = 96.0 / 8;
  MemoryEstimate est = estimate(sc);
  CHECK(est.stages[0].activations.value == Approx(8 * L * act + 8 * 2 * s * h));
  CHECK(est.stages[3].activations.value == Approx(5 * L * act));
  CHECK(est.stages[6].activations.value == Approx(2 * L * act));
  CHECK(est.stages[7].activations.value == Approx(1 * L * act + 4 * s * V / t));

  SECTION("with m < pp every rank holds at most m") {
    sc.training.global_batch = 4;  // m = 4
    est = estimate(sc);
    CHECK(est.stages[0].activations.value == Approx(4 * L * act + 4 * 2 * s * h));
    CHECK(est.stages[3].activations.value == Approx(4 * L * act));
    CHECK(est.stages[6].activations.value == Approx(2 * L * act));
  }
  SECTION("GPipe keeps all m microbatches on every rank") {
    sc.plan.schedule = Schedule::GPIPE;
    est = estimate(sc);
    CHECK(est.stages[3].activations.value == Approx(16 * L * act));
    CHECK(est.stages[7].activations.value == Approx(16 * L * act + 16 * 4 * s * V / t));
  }
}

TEST_CASE("interleaved first rank keeps pp*(1 + (pp-1)/(pp*v)) microbatches", "[workload]") {
  // Korthikanti et al. 2022 §4.2.3: the interleaved schedule multiplies the first stage's
  // activation memory by (1 + (p-1)/(p*m)), m the number of model chunks per rank.
  const double s = 2048, h = 12288, pp = 8, v = 2;
  Scenario sc = gpt3_175b(8, 8, 1, 16);
  sc.plan.virtual_stages.value = 2;
  sc.plan.schedule = Schedule::INTERLEAVED;
  const double act = layer_activation_bytes(sc, 1).value;
  const double L = 96.0 / 8;
  const double in_flight = pp * (1 + (pp - 1) / (pp * v));
  const MemoryEstimate est = estimate(sc);
  CHECK(est.stages[0].activations.value == Approx(in_flight * (L * act + 2 * s * h)));
}

TEST_CASE("untied embeddings give a single-stage model its own output layer", "[workload]") {
  // With pp = 1 a tied output layer reuses the input embedding; untied it is a second V x h
  // matrix, vocab-sharded over tp. Megatron pads V to a multiple of 128*t: 50257 -> 51200 at t=8.
  Scenario sc = gpt3_175b(8, 1, 1, 16);
  sc.model.layers = 4;
  sc.model.vocab = 50257;
  const double padded = 51200, h = 12288, t = 8;
  const double tied = estimate(sc).stages[0].weights.value;
  sc.model.tied_embeddings = false;
  const double untied = estimate(sc).stages[0].weights.value;
  CHECK(untied - tied == Approx(2 * padded * h / t));
}

TEST_CASE("peak is the largest stage and fits flips when capacity shrinks below it", "[workload]") {
  // The verdict's own rule (reserved peak against the HBM less the CUDA context and NCCL's
  // buffers) is tested in plan_memory_budget.cpp.
  Scenario sc = gpt3_175b(8, 8, 1, 16);
  sc.plan.sequence_parallel = true;
  sc.training.recompute = Recompute::SELECTIVE;
  MemoryEstimate est = estimate(sc);
  double largest = 0;
  for (const StageMemory& st : est.stages) largest = std::max(largest, st.total().value);
  CHECK(est.peak.value == Approx(largest));
  CHECK(est.capacity.value == Approx(80.0 * 1024 * 1024 * 1024));
  // rank 0: ~2.8e9 params * 18 B ~ 51 GB plus ~10 GB of activations, those reserved over 0.85: ~63
  // GB, under 80 GiB less a GiB
  CHECK(est.fits);

  sc.cluster.device.hbm_capacity = Bytes(largest * 0.99);
  est = estimate(sc);
  CHECK_FALSE(est.fits);
}

TEST_CASE("ZeRO shards over dp x cp: context-parallel ranks hold the same parameters", "[workload]") {
  // Megatron-Core shards the distributed optimizer over the data-parallel group with context
  // parallelism (get_data_parallel_group(with_context_parallel=True)): dp 2 x cp 2 shards like dp 4.
  Scenario dp4 = gpt3_175b(8, 8, 4, 64);
  dp4.plan.zero = 3;
  Scenario cp2 = gpt3_175b(8, 8, 2, 64);
  cp2.plan.cp = 2;
  cp2.plan.zero = 3;
  CHECK(cp2.plan.grad_group_size() == 4);
  const StageMemory a = estimate(dp4).stages[3], b = estimate(cp2).stages[3];
  CHECK(b.optimizer.value == Approx(a.optimizer.value));
  CHECK(b.grads.value == Approx(a.grads.value));
  CHECK(b.weights.value == Approx(a.weights.value));
}

TEST_CASE("the gradient buffer holds 4 bytes per parameter in fp32, 2 in 16 bits", "[workload]") {
  // Megatron-Core's grad_reduce_in_fp32: the main_grad buffer in fp32 or in the parameters' type.
  Scenario sc = gpt3_175b(8, 8, 1, 64);
  sc.training.grad_reduce_in_fp32 = true;
  const StageMemory fp32 = estimate(sc).stages[3];
  sc.training.grad_reduce_in_fp32 = false;
  const StageMemory bf16 = estimate(sc).stages[3];
  CHECK(bf16.grads.value == Approx(fp32.grads.value / 2));
  CHECK(bf16.weights.value == Approx(fp32.weights.value));
  CHECK(bf16.optimizer.value == Approx(fp32.optimizer.value));
  CHECK(fp32.grads.value == Approx(2 * fp32.weights.value));  // 4 B against 2 B of bf16 weights
}

TEST_CASE("FSDP holds two gathered layers and its root unit whole at once", "[workload]") {
  // ZeRO-3 without a pipeline: the layer being computed and the one prefetched, in 16-bit, and the
  // root unit (the embeddings and the final norm, outside the layers) gathered from forward to
  // backward, less the shard the GPU keeps anyway. Counts as in the Narayanan test above.
  const double l = 96, h = 12288, V = 51200, s = 2048, t = 8, dp = 4;
  Scenario sc = gpt3_175b(8, 1, 4, 64);
  sc.plan.zero = 3;
  const double layer = 12 * h * h * (1 + 13 / (12 * h)) / t;
  const double outside = V * h / t + s * h + 2 * h;  // tied output layer: no copy without a pipeline
  const StageMemory st = estimate(sc).stages[0];
  CHECK(st.weights.value == Approx(2 * (l * layer + outside) / dp));
  CHECK(st.workspace.value == Approx(2 * 2 * layer + 2 * outside * (1 - 1 / dp)));
  sc.plan.zero = 2;
  CHECK(estimate(sc).stages[0].workspace.value == 0);  // nothing to gather below ZeRO-3
  // Kept gathered from forward to backward: every weight whole, nothing more to gather.
  sc.plan.zero = 3;
  sc.plan.reshard_after_forward = false;
  const StageMemory kept = estimate(sc).stages[0];
  CHECK(kept.weights.value == Approx(2 * (l * layer + outside)));
  CHECK(kept.workspace.value == 0);
}

TEST_CASE("under a pipeline, ZeRO-3 keeps the stage gathered and accumulates unsharded gradients", "[workload]") {
  // torch.distributed.pipelining reduces FSDP's gradients on the last microbatch only: a stage
  // holds its 16-bit weights whole and an unsharded fp32 gradient besides the sharded one.
  const double l = 96, h = 12288, t = 8, p = 8, dp = 4;
  Scenario sc = gpt3_175b(8, 8, 4, 64);  // m = 64 / 4 = 16 microbatches
  sc.plan.zero = 3;                      // reshard_after_forward absent: false under a pipeline
  const double layers_only = 12 * (l / p) * h * h * (1 + 13 / (12 * h)) / t;
  const StageMemory st = estimate(sc).stages[3];
  CHECK(st.weights.value == Approx(2 * layers_only));
  CHECK(st.grads.value == Approx(4 * layers_only * (1 + 1 / dp)));
  CHECK(st.optimizer.value == Approx(12 * layers_only / dp));
  CHECK(st.workspace.value == 0);
  // Resharded after forward (stated): the weights sharded again, two layers gathered at a time.
  sc.plan.reshard_after_forward = true;
  const StageMemory resharded = estimate(sc).stages[3];
  CHECK(resharded.weights.value == Approx(2 * layers_only / dp));
  CHECK(resharded.workspace.value == Approx(2 * 2 * layers_only / (l / p)));
  CHECK(resharded.grads.value == Approx(st.grads.value));  // still accumulated unsharded
}

TEST_CASE("an eager loss peaks at 12 bytes per logit in its backward, a fused one at 4", "[workload]") {
  // F.cross_entropy(logits.float()): log_softmax's fp32 output, nll_loss's fp32 gradient and
  // log_softmax's fp32 gradient live at once; the 4 bytes a fused loss keeps are activations.
  const double s = 2048, V = 51200;
  Scenario sc = gpt3_175b(1, 8, 1, 16);
  const MemoryEstimate fused = estimate(sc);
  sc.training.loss = Elementwise::EAGER;
  const MemoryEstimate eager = estimate(sc);
  CHECK(fused.stages[7].workspace.value == 0);
  CHECK(eager.stages[7].workspace.value == Approx((12 - 4) * s * V));
  CHECK(eager.stages[7].activations.value == Approx(fused.stages[7].activations.value));
  CHECK(eager.stages[3].workspace.value == 0);  // only the last stage runs the loss

  SECTION("vocab-parallel over tp, PyTorch's loss_parallel peaks at 16") {
    // (zeros_like(x) + exp(x)) * grad: the kept output x, the zeros, exp(x) and their sum, 4 bytes
    // per logit each, on the rank's V / t logits.
    const double t = 8;
    Scenario tp = gpt3_175b(8, 8, 1, 16);
    tp.training.loss = Elementwise::EAGER;
    CHECK(estimate(tp).stages[7].workspace.value == Approx((16 - 4) * s * V / t));
    tp.training.loss = Elementwise::FUSED;
    CHECK(estimate(tp).stages[7].workspace.value == 0);
  }
}

TEST_CASE("a fully recomputed layer's backward reruns its forward: one layer's activations on top", "[workload]") {
  // PyTorch's checkpoint (and Megatron's CheckpointFunction) rerun a whole layer in its backward,
  // which then holds what the layer keeps without recompute for one microbatch: Korthikanti et
  // al. 2022 Table 2, TP + SP, sbh(34/t + 5as/(ht)) with unfused attention.
  const double s = 2048, b = 1, h = 12288, a = 96, t = 8, V = 51200;
  const double rerun = s * b * h * (34 / t + 5 * a * s / (h * t));
  Scenario sc = gpt3_175b(8, 8, 1, 16);
  sc.plan.sequence_parallel = true;
  sc.training.recompute = Recompute::FULL;
  CHECK(estimate(sc).stages[3].workspace.value == Approx(rerun));

  SECTION("after the loss's backward, not beside it: the larger of the two") {
    sc.training.loss = Elementwise::EAGER;
    const double loss = (16 - 4) * s * V / t;  // loss_parallel under tp (below)
    CHECK(estimate(sc).stages[7].workspace.value == Approx(std::max(loss, rerun)));
    sc.training.micro_batch.value = 4;  // the layer's rerun grows with b, as the logits do
    CHECK(estimate(sc).stages[7].workspace.value == Approx(4 * std::max(loss, rerun)));
  }
  SECTION("XLA rematerialises inside the compiled step: nothing on a torus") {
    sc.cluster.scale_up.kind = "torus";
    CHECK(estimate(sc).stages[3].workspace.value == 0);
  }
  SECTION("selective recompute reruns no layer whole") {
    sc.training.recompute = Recompute::SELECTIVE;
    CHECK(estimate(sc).stages[3].workspace.value == 0);
  }
}

TEST_CASE("PyTorch's caching allocator reserves a stage's transient tensors over 1 - 15 %, XLA the peak itself",
          "[workload]") {
  // GMLake (Guo et al., ASPLOS 2024, arXiv 2401.08156): 15 % less fragmentation on average than
  // PyTorch's caching allocator over eight LLMs; fragmentation = 1 - allocated / reserved, of the
  // tensors allocated and freed within the step (activations, workspaces); the model states are
  // allocated once (Rajbhandari et al. 2020 §6.3: fragmentation from tensors of different lifetimes).
  Scenario sc = gpt3_175b(8, 8, 1, 16);
  const MemoryEstimate gpu = estimate(sc);
  double reserved = 0;
  for (const StageMemory& st : gpu.stages) {
    const double states = st.weights.value + st.grads.value + st.optimizer.value;
    CHECK(st.transient().value == Approx(st.activations.value + st.workspace.value));  // no ZeRO-3
    reserved = std::max(reserved, states + (st.activations.value + st.workspace.value) / (1 - 0.15));
  }
  CHECK(gpu.reserved.value == Approx(reserved));
  CHECK(gpu.reserved.value > gpu.peak.value);
  CHECK(gpu.reserved.value < gpu.peak.value / (1 - 0.15));
  sc.cluster.scale_up.kind = "mesh";
  const MemoryEstimate tpu = estimate(sc);
  CHECK(tpu.reserved.value == Approx(tpu.peak.value));
  CHECK(tpu.peak.value == Approx(gpu.peak.value));
  SECTION("fits is decided by the reserved peak: an HBM 1 % above the allocated peak is over") {
    sc.cluster.scale_up.kind = "nvswitch";
    sc.cluster.device.hbm_capacity = Bytes(gpu.peak.value * 1.01);
    const MemoryEstimate tight = estimate(sc);
    CHECK_FALSE(tight.fits);
    CHECK(tight.over.value == Approx(tight.reserved.value - tight.usable.value));
  }
  SECTION("ZeRO-3's weights gathered from forward to backward are transient, the shard is not") {
    Scenario z = gpt3_175b(1, 1, 64, 64);
    z.plan.zero = 3;
    z.plan.reshard_after_forward = false;
    const MemoryEstimate m = estimate(z);
    const StageMemory& st = m.stages[0];
    const double shard = rank_params(z, make_stage_layout(z.model, z.plan, 1, "test"), 0) * 2.0 / 64;
    CHECK(st.transient_states.value == Approx(st.weights.value - shard));
    const double states = shard + st.grads.value + st.optimizer.value;
    CHECK(m.reserved.value == Approx(states + st.transient().value / (1 - 0.15)));
  }
}

TEST_CASE("DualPipe holds two model copies' stages: rank r those 1F1B puts on ranks r and pp-1-r", "[workload]") {
  // deepseek-ai/DualPipe README: parameters 2x per device; rank r holds stage r of the copy that
  // runs from rank 0 and stage pp-1-r of the one from rank pp-1 (examples/example_dualpipe.py:
  // full_modules[rank], full_modules[pp_size - 1 - rank]).
  Scenario plain = gpt3_175b(8, 8, 1, 32);
  Scenario dual = plain;
  dual.plan.schedule = Schedule::DUALPIPE;
  dual.plan.virtual_stages.value = 2;
  const StageLayout one = make_stage_layout(plain.model, plain.plan, 1, "test");
  const StageLayout two = make_stage_layout(dual.model, dual.plan, 2, "test");
  CHECK(two.copies == 2);
  double total = 0, total_plain = 0;
  for (int64_t r = 0; r < 8; ++r) {
    INFO("rank " << r);
    CHECK(rank_params(dual, two, r) == Approx(rank_params(plain, one, r) + rank_params(plain, one, 7 - r)));
    CHECK(two.layers_on_rank(r) == one.layers_on_rank(r) + one.layers_on_rank(7 - r));
    total += rank_params(dual, two, r);
    total_plain += rank_params(plain, one, r);
  }
  CHECK(total == Approx(2 * total_plain));
  // Each copy has its embedding and its output layer: rank 0 the first copy's embedding and the
  // second's output, rank pp-1 the reverse.
  CHECK(two.has_embedding(0, 0));
  CHECK(two.has_output(0, 1));
  CHECK(two.has_output(7, 0));
  CHECK(two.has_embedding(7, 1));
  CHECK_FALSE(two.has_embedding(3, 0));
  CHECK_FALSE(two.has_output(3, 1));
}
