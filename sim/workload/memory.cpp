#include "sim/workload/memory.hpp"

#include <algorithm>

#include "sim/core/error.hpp"
#include "sim/scenario/fp8_library.hpp"
#include "sim/scenario/routing.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/workload/memory_budget.hpp"
#include "sim/workload/ops.hpp"
#include "sim/workload/schedule.hpp"
#include "sim/workload/stage_layout.hpp"

namespace sim {

namespace {

// Rajbhandari et al. 2020 §3.1: 2 bytes of 16-bit weights, the gradient buffer (TrainingSpec::
// grad_bytes: Megatron's main_grad, fp32 or 16-bit) and 12 bytes of fp32 master weights and Adam
// moments per parameter (4 + 2 + 2 with bf16 moments: TrainingSpec::moment_bytes). FP8 runs keep
// their 16-bit weights too (fp8_weight_bytes for what the library adds to the linear layers').
constexpr double WEIGHT_BYTES = 2.0;
constexpr double MASTER_WEIGHT_BYTES = 4.0;
double optimizer_bytes(const Scenario& s) { return MASTER_WEIGHT_BYTES + 2.0 * s.training.moment_bytes(); }

// The share of what PyTorch's caching allocator reserves for the tensors allocated and freed within
// a step that is not allocated at the peak: freed blocks cached in sizes the next requests do not
// fit (fragmentation, 1 - allocated / reserved). GMLake (Guo et al., ASPLOS 2024, arXiv
// 2401.08156, abstract) lowers it "by 15% (up to 33%)" on average over eight LLMs trained on
// A100-80GB with recomputation, ZeRO and FSDP, against PyTorch's caching allocator; taken as that
// allocator's share (a lower bound: GMLake's own is not zero). Fragmentation comes from "variations
// in the lifetime of different tensors" interleaved during the step -- activations, their
// gradients, gathered and temporary buffers (Rajbhandari et al. 2020, "ZeRO", §6.3) -- so it
// applies to those (StageMemory::transient). The model states (weights, gradients, optimizer
// states) are allocated once, in buffers that live the whole run (Megatron-Core's contiguous
// parameter and gradient buffers, the optimizer's fp32 shards), and stay in their own blocks.
constexpr double CACHING_ALLOCATOR_FRAGMENTATION = 0.15;

// Bytes per linear-layer parameter an FP8 run keeps beyond WEIGHT_BYTES, unsharded (ZeRO-3
// gathers a unit's weights and casts them there; not counted): Transformer Engine's FP8 weight and
// transpose beside the 16-bit weight, 1 + 1 (1 where no transpose is made, ops.hpp fp8_transposes);
// with the primary weights in FP8 the 16-bit weight is gone and the FP8 weight and its transpose
// take its 2 bytes (the FP8 weight alone, 1 of them: -1) (fp8_library.cpp).
double fp8_weight_bytes(const Scenario& s) {
  if (s.training.precision != Precision::FP8 || s.plan.zero >= 3) return 0.0;
  if (!fp8_library(s.training.fp8_library).caches_fp8_weights) return 0.0;
  const double fp8_copies = fp8_transposes(s) ? 2.0 : 1.0;
  return fp8_copies - (s.training.fp8_params ? WEIGHT_BYTES : 0.0);
}

}  // namespace

double chunk_params(const Scenario& s, const StageLayout& layout, int64_t rank, int64_t chunk) {
  const ModelSpec& m = s.model;
  const double tp = static_cast<double>(s.plan.tp);
  const double h = static_cast<double>(m.hidden);
  const double vocab_shard = static_cast<double>(padded_vocab(s)) * h / tp;
  double params = m.layers_params_per_rank(s.plan.tp, layout.dense_layers_of(rank, chunk),
                                           layout.moe_layers_of(rank, chunk), s.plan.ep, s.plan.expert_tp());
  if (layout.has_embedding(rank, chunk)) {
    params += vocab_shard;
    // GPT's learned position embedding; Llama-style (RMSNorm) models use RoPE, which has no weights.
    if (!m.rope) params += static_cast<double>(s.training.seq_len) * h;
  }
  if (layout.has_output(rank, chunk)) {
    params += m.rmsnorm ? h : 2.0 * h;  // final norm, replicated over tp
    // With pp > 1 Megatron keeps a copy of the tied embedding on the last stage for the output layer.
    if (layout.pp > 1 || !m.tied_embeddings) params += vocab_shard;
    // Multi-token prediction modules (their head is the model's), their routed experts over ep x etp.
    const double mtp = m.mtp_params();
    const double mtp_routed = m.mtp_routed_expert_params(), ep = static_cast<double>(s.plan.ep);
    params += (mtp - mtp_routed) / tp + mtp_routed / (ep * static_cast<double>(s.plan.expert_tp()));
  }
  return params;
}

double rank_params(const Scenario& s, const StageLayout& layout, int64_t rank) {
  double params = 0;
  for (int64_t c = 0; c < layout.virtual_stages; ++c) params += chunk_params(s, layout, rank, c);
  return params;
}

double chunk_routed_expert_params(const Scenario& s, const StageLayout& layout, int64_t rank, int64_t chunk) {
  double routed = static_cast<double>(layout.moe_layers_of(rank, chunk)) * s.model.routed_expert_params();
  if (layout.has_output(rank, chunk)) routed += s.model.mtp_routed_expert_params();
  return routed / static_cast<double>(s.plan.expert_tp() * s.plan.ep);
}

double rank_routed_expert_params(const Scenario& s, const StageLayout& layout, int64_t rank) {
  double routed = 0;
  for (int64_t c = 0; c < layout.virtual_stages; ++c) routed += chunk_routed_expert_params(s, layout, rank, c);
  return routed;
}

double rank_sharded_params(const Scenario& s, const StageLayout& layout, int64_t rank) {
  const double params = rank_params(s, layout, rank), shards = static_cast<double>(s.plan.shard_group_size());
  if (s.plan.ep == 1) return params / shards;
  // The routed experts over the expert-data-parallel ranks (ParallelPlan::expert_dp).
  const double experts = rank_routed_expert_params(s, layout, rank);
  const double expert_shards = shards * static_cast<double>(s.plan.tp / s.plan.expert_tp()) / double(s.plan.ep);
  return (params - experts) / shards + experts / expert_shards;
}

double rank_linear_params(const Scenario& s, const StageLayout& layout, int64_t rank) {
  double moe = static_cast<double>(layout.moe_layers_on_rank(rank));
  double dense = static_cast<double>(layout.layers_on_rank(rank)) - moe;
  // The multi-token prediction modules' layers (each of the last layer's kind) and projections
  // (2h -> h), beside the output layer.
  double mtp_proj = 0;
  for (int64_t c = 0; c < layout.virtual_stages; ++c)
    if (layout.has_output(rank, c) && s.model.mtp_layers > 0) {
      const auto n = static_cast<double>(s.model.mtp_layers), h = static_cast<double>(s.model.hidden);
      (s.model.moe_layer(s.model.layers - 1) ? moe : dense) += n;
      mtp_proj += n * 2.0 * h * h / double(s.plan.tp);
    }
  const double all =
      (dense * s.model.linear_params() + moe * s.model.linear_params(true)) / double(s.plan.tp) + mtp_proj;
  if (s.plan.ep == 1) return all;
  // Of the routed experts' matrices the rank holds its 1/ep (split over expert_tp, not tp).
  const double routed = moe * s.model.routed_expert_linear_params();
  return all - routed / double(s.plan.tp) + routed / double(s.plan.expert_tp() * s.plan.ep);
}

namespace {

// `offloaded`, where given: of what the layer keeps, the bytes its offload_modules copy to host
// memory (under recompute none or selective, which parse_scenario requires of them).
Bytes activation_bytes(const Scenario& s, int64_t micro_batch, Recompute recompute, bool moe_layer,
                       double* offloaded = nullptr) {
  const ModelSpec& m = s.model;
  const double seq = static_cast<double>(s.training.seq_len) / static_cast<double>(s.plan.cp);
  const double b = static_cast<double>(micro_batch);
  const double h = static_cast<double>(m.hidden);
  const double a = static_cast<double>(m.heads);
  const double t = static_cast<double>(s.plan.tp);
  const bool sp = s.plan.sequence_parallel;
  const double sbh = seq * b * h;
  // Bytes kept per token and layer, in units of h (Korthikanti et al. 2022 Table 2 by tensor, for
  // a 16-bit layer): tensors every tensor-parallel rank holds whole without sequence parallelism
  // -- the two norms' inputs (4), the QKV and MLP GEMMs' inputs (2 + 2), the two dropout masks
  // (1 + 1) -- and tensors split over tp: Q (2), K and V (2 + 2 scaled by kv_heads / heads), the
  // projection's input (2), the MLP's inner activations (GELU: its input and output, 2 + 2 per ffn
  // element; a gated unit: both halves and their product, 2 + 2 + 2; the last is the second MLP
  // GEMM's input). For GPT-3 (heads = kv_heads, ffn = 4h, dropout) that is Table 2's 10 + 24/t,
  // 34/t with sequence parallelism.
  //
  // In FP8, Transformer Engine's linear layers keep their input for the weight gradient as the
  // FP8 copy they multiplied (transformer_engine/pytorch/module/linear.py and
  // layernorm_linear.py: saved_inputmat(_t) is the FP8 tensor when fp8): the QKV and MLP GEMMs'
  // inputs and the second MLP GEMM's (the activation's output) take 1 byte instead of 2, and the
  // projection keeps an FP8 copy (1) beside the bf16 attention output the attention kernel keeps.
  // torchao's tensorwise Float8Linear (torchtitan's) keeps the same FP8 copies (fp8_library.cpp).
  // K and V per query width, as every rank holds them (replicated heads counted on each rank).
  const double kv = m.rank_kv_heads(s.plan.tp) * t / static_cast<double>(m.heads);
  // An MoE layer (ops.cpp, moe_mlp_ops): the inner activations of its top_k routed experts and
  // its shared ones, split over tp as a dense MLP's; and, whole on every rank (the tokens gathered
  // before the router, sequence parallel or not), each token's top_k permuted copies of the
  // experts' input and the router's fp32 scores (4 bytes per expert). Folded (expert_tp 1 beside
  // tp > 1, sequence parallel), each rank routes and keeps the experts' work of its own s/tp tokens:
  // the same bytes as the split, and the copies and scores split too.
  const bool moe = moe_layer && m.moe;
  // The routed experts' inner activations on the busiest rank (routing.hpp).
  const double routed_load = moe ? busiest_rank_load(s) : 1.0;
  const double ffn = moe ? (double(m.moe->top_k) * routed_load + double(m.moe->shared_experts)) *
                               static_cast<double>(m.moe->expert_ffn_hidden)
                         : double(m.ffn_hidden);
  const bool fp8 = s.training.precision == Precision::FP8;
  const double input = fp8 ? 1.0 : 2.0;  // a linear layer's saved input, per element
  // The activation's inputs kept: a gated unit's two halves, GELU's one, 16-bit; an MoE layer's
  // in FP8 where low_precision_inputs caches them so (low_precision_inputs.hpp: moe_act).
  const TrainingSpec& tr = s.training;
  const double act_inputs = m.activation == Activation::SWIGLU ? 2.0 : 1.0;
  const double act =
      act_inputs *
      (moe && tr.caches_low(LowPrecisionInput::MOE_ACT) ? low_precision_input_bytes(LowPrecisionInput::MOE_ACT) : 2.0);
  const double inner = (act + input) * ffn / h;
  const double whole = 4.0 + input + input + (m.dropout ? 2.0 : 0.0);
  // Under MoE parallel folding (ParallelPlan::routes_own_tokens) a rank routes its own 1/tp of the
  // tokens; its experts keep the copies of its tp group's ranks where they split over tp (etp tp:
  // gathered after the dispatch, ops.cpp).
  const bool own = s.plan.routes_own_tokens();
  const double routes = own ? 1.0 / t : 1.0, gathered_copies = own ? static_cast<double>(s.plan.expert_tp()) : 1.0;
  // Each token's top_k copies of the experts' input, at the precision their GEMM saves it in or in
  // FP8 where low_precision_inputs caches it so (expert_fc1).
  const double copy = tr.caches_low(LowPrecisionInput::EXPERT_FC1)
                          ? std::min(input, low_precision_input_bytes(LowPrecisionInput::EXPERT_FC1))
                          : input;
  double unsplit =
      moe ? (static_cast<double>(m.moe->top_k) * copy * gathered_copies + 4.0 * double(m.moe->experts) / h) * routes
          : 0.0;
  // Q and the projection's input span the queries' width (hidden unless head_dim says otherwise).
  // Latent attention (MlaSpec): Q and K d_qk wide per head, V and the projection's input d_v; and,
  // whole on every rank (its down-projections duplicated), each latent's norm input and the
  // up-projection's input (2 + 2 bytes per latent element). The projection's input is the
  // attention core's 16-bit output with, in FP8, the projection's FP8 copy beside it; or one copy
  // that both read, where low_precision_inputs caches it (attn_proj: DeepSeek-V3's E5M6).
  const double proj_bytes = tr.caches_low(LowPrecisionInput::ATTN_PROJ)
                                ? low_precision_input_bytes(LowPrecisionInput::ATTN_PROJ)
                                : 2.0 + (fp8 ? 1.0 : 0.0);
  const double q = static_cast<double>(m.query_width()) / h;
  double proj_in = proj_bytes * q;
  double attention = 2.0 * q + 4.0 * kv * q + proj_in;
  if (m.mla) {
    const MlaSpec& l = *m.mla;
    const double heads = static_cast<double>(m.heads), d_qk = static_cast<double>(l.qk_head_dim());
    const double d_v = static_cast<double>(l.v_head_dim);
    proj_in = heads * proj_bytes * d_v / h;
    attention = heads * (2.0 * d_qk + 2.0 * d_qk + 2.0 * d_v) / h + proj_in;
    unsplit += 4.0 * static_cast<double>(l.q_lora_rank + l.kv_lora_rank) / h;
  }
  const double split = attention + inner;
  const double kept = (sp ? (whole + split) / t : whole + split / t) + unsplit;
  // Unfused attention keeps its s x s tensors: the softmax output (2), and with dropout its mask
  // (1) and output (2): Table 2's 5as/h, split over tp. FlashAttention keeps none.
  const double scores = fused(s.training.attention) ? 0.0 : (m.dropout ? 5.0 : 2.0) * a * seq / (h * t);
  // Under full or per-op recompute nothing of these is kept to offload (parse_scenario refuses the
  // pair; a search's candidates may still meet it).
  if (offloaded && (recompute == Recompute::NONE || recompute == Recompute::SELECTIVE)) {
    // Each offloaded module's saved input (offload_modules.hpp), whole (`w`), split over tp (`x`)
    // or on every rank (`u`) as the recomputed parts below: the norms' inputs (2 each), the QKV
    // GEMM's input; the attention core's Q, K and V, the projection's input; each token's top_k
    // copies of the experts' input, the experts' activation input (fc1's output).
    double w = 0.0, x = 0.0, u = 0.0;
    if (tr.offloads(OffloadModule::ATTN_NORM)) w += 2.0;
    if (tr.offloads(OffloadModule::MLP_NORM)) w += 2.0;
    // What recompute_modules already drops is not copied (TrainingSpec::recompute_drops).
    const auto copies = [&](OffloadModule o) { return tr.offloads(o) && !tr.recompute_drops(o, m.mla.has_value()); };
    if (copies(OffloadModule::QKV_LINEAR)) w += input;
    if (copies(OffloadModule::CORE_ATTN)) x += attention - proj_in;
    if (tr.offloads(OffloadModule::ATTN_PROJ)) x += proj_in;
    if (moe && tr.offloads(OffloadModule::EXPERT_FC1)) u += double(m.moe->top_k) * copy * gathered_copies * routes;
    if (moe && tr.offloads(OffloadModule::MOE_ACT))
      x += act * double(m.moe->top_k) * routed_load * static_cast<double>(m.moe->expert_ffn_hidden) / h;
    *offloaded = sbh * ((sp ? (w + x) / t : w + x / t) + u);
  }
  switch (recompute) {
    case Recompute::NONE: return Bytes(sbh * (kept + scores));
    case Recompute::SELECTIVE: {
      // What each module rerun (recompute_modules.hpp; ops.cpp, recomputed) stops keeping, whole
      // (`w`), split over tp (`x`) or on every rank (`u`): the norms' outputs, the QKV and MLP
      // GEMMs' inputs; MLA's queries, keys and values and the up-projections' inputs (the latents
      // kept); a dense MLP's input and inner activations; the experts' activation output (fc2's
      // input); the shared experts' inner activations. The attention core's scores otherwise.
      const bool dense_mlp = tr.recomputes(RecomputeModule::MLP) && !moe;
      double w = (tr.recomputes(RecomputeModule::LAYERNORM) ? input : 0.0) +
                 (tr.recomputes(RecomputeModule::LAYERNORM) || dense_mlp ? input : 0.0);
      double x = dense_mlp ? inner : 0.0, u = 0.0;
      if (tr.recomputes(RecomputeModule::MLA_UP_PROJ) && m.mla) {
        const MlaSpec& l = *m.mla;
        const double d_qk = static_cast<double>(l.qk_head_dim()), d_v = static_cast<double>(l.v_head_dim);
        x += static_cast<double>(m.heads) * (2.0 * d_qk + 2.0 * d_qk + 2.0 * d_v) / h;
        u += 2.0 * static_cast<double>(l.q_lora_rank + l.kv_lora_rank) / h;
      }
      if (moe && tr.recomputes(RecomputeModule::MOE_ACT))
        x += input * double(m.moe->top_k) * routed_load * static_cast<double>(m.moe->expert_ffn_hidden) / h;
      if (moe && tr.recomputes(RecomputeModule::SHARED_EXPERTS))
        x += (act + input) * double(m.moe->shared_experts) * static_cast<double>(m.moe->expert_ffn_hidden) / h;
      const double dropped = (sp ? (w + x) / t : w + x / t) + u;
      return Bytes(sbh * (kept - dropped + (tr.recomputes(RecomputeModule::CORE_ATTN) ? 0.0 : scores)));
    }
    case Recompute::OP: {
      // The block's input, SDPA's output and, with tensor parallelism (sequence parallel), the two
      // reduce-scatters' outputs, a hidden width over t each; the saved matmuls' outputs
      // (ops.hpp, "Recompute OP"); 2 bytes per element (torchao's float8 keeps bf16 outputs too).
      double elements = (2.0 + (t > 1 ? 2.0 : 0.0)) * h / t;
      for (const auto& mm : op_checkpoint_matmuls(s))
        if (mm.saved) elements += mm.out;
      return Bytes(2.0 * seq * b * elements);
    }
    case Recompute::FULL: return Bytes(2.0 * sbh / (sp ? t : 1.0));
  }
  return Bytes(0.0);
}

}  // namespace

Bytes layer_activation_bytes(const Scenario& s, int64_t micro_batch, bool moe_layer) {
  double offloaded = 0.0;
  const Bytes kept = activation_bytes(s, micro_batch, s.training.recompute, moe_layer, &offloaded);
  return kept - Bytes(offloaded);
}

Bytes layer_offloaded_bytes(const Scenario& s, int64_t micro_batch, bool moe_layer) {
  double offloaded = 0.0;
  activation_bytes(s, micro_batch, s.training.recompute, moe_layer, &offloaded);
  return Bytes(offloaded);
}

namespace {

// Bytes per logit live at the loss's peak, its backward. Fused (Megatron-Core's vocab-parallel
// cross entropy, Transformer Engine, a compiled loss): the fp32 softmax it keeps, which the
// backward overwrites with the gradient. Eager PyTorch (torchtitan's cross_entropy_loss:
// F.cross_entropy(pred.float(), labels)): log_softmax keeps its fp32 output (4), nll_loss's
// backward writes a zero-filled fp32 gradient (4) and log_softmax's backward a third fp32 tensor
// (4) while both are live -- the kernels ops.cpp prices as eager::kLossBwd. Eager under tensor
// parallelism, PyTorch's loss_parallel (torch/distributed/tensor/parallel/loss.py, torchtitan's
// vocab-parallel loss) computes both backwards at once as (zeros_like(x) + exp(x)) * grad_output:
// beside the kept output, the zeros, exp(x) and their sum (4 each), then the zeros, the sum and
// the product -- 16 bytes per logit at its peak.
constexpr double KEPT_LOGIT_BYTES = 4.0;  // the fp32 softmax (log-softmax) every loss keeps
double loss_peak_bytes_per_logit(const Scenario& s) {
  if (s.training.loss != Elementwise::EAGER) return KEPT_LOGIT_BYTES;
  return s.plan.tp > 1 ? 16.0 : 12.0;
}

}  // namespace

MemoryEstimate estimate_memory(const Scenario& s, const StageLayout& layout, int64_t micro_batch) {
  SIM_ASSERT(micro_batch >= 1, "estimate_memory needs a resolved micro batch");
  SIM_ASSERT(layout.pp == s.plan.pp, "stage layout built for another pipeline depth");
  const double shards = static_cast<double>(s.plan.shard_group_size());  // ZeRO: dp x cp (ZeRO-3: dp_shard x cp)
  const double t = static_cast<double>(s.plan.tp);
  const int64_t m = std::max<int64_t>(1, s.training.global_batch / (s.plan.dp * micro_batch));
  const double grad_bytes = s.training.grad_bytes();
  const Bytes per_layer = layer_activation_bytes(s, micro_batch),
              per_moe_layer = layer_activation_bytes(s, micro_batch, true);
  const double sbh = static_cast<double>(s.training.seq_len) / static_cast<double>(s.plan.cp) *
                     static_cast<double>(micro_batch) * static_cast<double>(s.model.hidden);
  // One microbatch's logits on one GPU: its tokens times the vocabulary, vocab-parallel over tp.
  const double logits = sbh / static_cast<double>(s.model.hidden) * static_cast<double>(padded_vocab(s)) / t;

  MemoryEstimate out;
  out.capacity = s.cluster.device.hbm_capacity;
  for (int64_t r = 0; r < layout.pp; ++r) {
    const double params = rank_params(s, layout, r);
    double in_flight = pipeline_schedule(s.plan.schedule).in_flight(layout.pp, layout.virtual_stages, m, r);
    // Megatron-Core's expert-parallel overlap warms up one chunk forward more (step_program.cpp,
    // pair_steady_state), up to the whole step's.
    if (s.plan.ep_comm_overlap)
      in_flight = std::min(in_flight + 1.0 / static_cast<double>(layout.virtual_stages), static_cast<double>(m));
    StageMemory st;
    st.rank = r;
    // The ranks with the model's ends: the first and the last, or, in a V, the first both (ZB-V,
    // DualPipeV), and under DualPipe the first and the last both, one copy's end each (StageLayout).
    bool holds_embedding = false, holds_output = false;
    for (int64_t c = 0; c < layout.virtual_stages; ++c) {
      holds_embedding = holds_embedding || layout.has_embedding(r, c);
      holds_output = holds_output || layout.has_output(r, c);
    }
    // ZeRO's share of `per_param` bytes a parameter, from `stage` on (rank_sharded_params).
    const auto zero = [&, sharded = rank_sharded_params(s, layout, r)](double per_param, int stage) {
      if (s.plan.zero < stage) return params * per_param;
      return s.plan.ep == 1 ? params * per_param / shards : sharded * per_param;
    };
    st.weights = Bytes(zero(WEIGHT_BYTES, 3) + rank_linear_params(s, layout, r) * fp8_weight_bytes(s));
    st.grads = Bytes(zero(grad_bytes, 2));
    st.optimizer = Bytes(zero(optimizer_bytes(s), 1));
    // Working set at the stage's peak, beyond what it keeps, of whichever step needs more, one
    // after the other in the backward: the last stage's loss backward where the loss runs eager
    // (loss_peak_bytes_per_logit; the KEPT_LOGIT_BYTES are counted among the activations below),
    // and a fully recomputed layer's backward, which first reruns its forward and holds all of
    // that layer's activations for one microbatch (PyTorch's checkpoint and Megatron's
    // CheckpointFunction rerun a whole layer: Chen et al. 2016 §3). XLA rematerialises at a finer
    // grain, inside the compiled step: not counted there (the TPU v4 rows, validation/, ran in
    // 32 GiB).
    double work = 0.0;
    if (holds_output) work = (loss_peak_bytes_per_logit(s) - KEPT_LOGIT_BYTES) * logits;
    // The rank's largest layer: an MoE one where it holds any.
    const bool has_moe = layout.moe_layers_on_rank(r) > 0;
    if (s.training.recompute == Recompute::FULL && !s.cluster.scale_up.xla_runtime())
      work = std::max(work, activation_bytes(s, micro_batch, Recompute::NONE, has_moe).value);
    if (s.plan.zero >= 3) {
      // A gathered unit holds the rank's experts alone (1/ep of them) with expert parallelism.
      const int64_t ep = s.plan.ep, etp = s.plan.expert_tp();
      const double layer = s.model.layer_params_per_rank(s.plan.tp, has_moe, ep, etp);
      const int64_t moe_layers = layout.moe_layers_on_rank(r);
      const double outside = params - s.model.layers_params_per_rank(s.plan.tp, layout.layers_on_rank(r) - moe_layers,
                                                                     moe_layers, ep, etp);
      if (!s.plan.reshards_after_forward()) {
        // Gathered from forward to backward (ParallelPlan::reshard_after_forward): at the peak,
        // every microbatch's forward done, the stage's weights are whole.
        st.transient_states += Bytes(params * WEIGHT_BYTES) - st.weights;
        st.weights = Bytes(params * WEIGHT_BYTES);
      } else {
        // FSDP gathers one unit (a transformer layer) at a time and prefetches the next, so two
        // layers' 16-bit weights are whole at once. (A layer's backward also holds its whole
        // gradient for the reduce-scatter, not counted: XLA's, on the TPU rows, fits without.)
        // The root unit (embedding, final norm, output layer) is not resharded after forward
        // (FSDP2 _fsdp_state.py, _lazy_init: the root's post_forward_mesh_info is None), so it
        // stays gathered from forward to backward.
        work += layer * 2.0 * WEIGHT_BYTES + outside * WEIGHT_BYTES * (1.0 - 1.0 / shards);
      }
      // torch.distributed.pipelining (stage.py, backward_maybe_with_nosync) turns FSDP's gradient
      // reduction off for all but the last microbatch (set_requires_gradient_sync(last_backward)):
      // a stage's gradients accumulate unsharded (FSDP2 keeps them in the reduce dtype) until one
      // reduce-scatter.
      if (layout.pp > 1 && m > 1) {
        st.grads += Bytes(params * grad_bytes);
        st.transient_states += Bytes(params * grad_bytes);
      }
    }
    st.workspace = Bytes(work);
    const auto moe_layers = static_cast<double>(layout.moe_layers_on_rank(r));
    st.activations = per_layer * ((static_cast<double>(layout.layers_on_rank(r)) - moe_layers) * in_flight) +
                     per_moe_layer * (moe_layers * in_flight);
    if (holds_embedding) {
      // Embedding output kept for backward (Korthikanti §4.3), one per in-flight microbatch.
      st.activations += Bytes(2.0 * sbh / (s.plan.sequence_parallel ? t : 1.0) * in_flight);
    }
    if (holds_output) {
      // fp32 logits of the cross-entropy, vocab-parallel over tp; 1F1B-style schedules run the
      // loss and its backward back to back, GPipe keeps every microbatch's.
      st.activations +=
          Bytes(KEPT_LOGIT_BYTES * logits * (s.plan.schedule == Schedule::GPIPE ? static_cast<double>(m) : 1.0));
      // Multi-token prediction (ops.hpp, mtp_ops): each module's layer (the last layer's kind) per
      // microbatch in flight, and its head's logits beside the model's.
      if (const auto mtp = static_cast<double>(s.model.mtp_layers); mtp > 0) {
        const bool moe = s.model.moe_layer(s.model.layers - 1);
        st.activations +=
            (moe ? per_moe_layer : per_layer) * (mtp * in_flight) + Bytes(KEPT_LOGIT_BYTES * logits * mtp);
      }
    }
    out.peak = std::max(out.peak, st.total());
    // XLA assigns its buffers before the step runs: nothing is cached beside them.
    const double fragmentation = s.cluster.scale_up.xla_runtime() ? 0.0 : CACHING_ALLOCATOR_FRAGMENTATION;
    out.reserved = std::max(out.reserved, st.total() - st.transient() + st.transient() / (1.0 - fragmentation));
    out.stages.push_back(st);
  }
  const MemoryBudget budget = memory_budget(s);
  out.cuda_context = budget.cuda_context;
  out.nccl_buffers = budget.nccl_buffers;
  out.usable = budget.usable;
  out.fits = out.reserved <= out.usable;
  out.over = out.fits ? Bytes(0.0) : out.reserved - out.usable;
  return out;
}

Bytes checkpoint_bytes(const Scenario& s) {
  return Bytes(s.model.total_params() * (WEIGHT_BYTES + optimizer_bytes(s)));
}

}  // namespace sim
