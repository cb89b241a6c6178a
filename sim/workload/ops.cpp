#include "sim/workload/ops.hpp"

#include <algorithm>
#include <initializer_list>
#include <string>

#include "sim/scenario/dispatcher.hpp"
#include "sim/scenario/fp8_library.hpp"
#include "sim/scenario/fp8_scaling.hpp"
#include "sim/scenario/routing.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/scenario/tp_library.hpp"

namespace sim {
namespace {

constexpr double E = 2.0;  // bytes per bf16/fp16 activation element

struct Dims {
  // s: local queries; s_kv: keys seen; q: queries' width; kv: K/V heads per tensor-parallel rank
  double b, s, s_kv, h, q, a, kv, d, f, t, tokens, tokens_sp;
  bool sp;
  bool sp_copies;  // the TP library copies the whole tensor around each sequence-parallel collective
};

Dims dims(const Scenario& sc, int64_t micro_batch) {
  Dims x{};
  x.b = static_cast<double>(micro_batch);
  x.s = static_cast<double>(sc.training.seq_len / sc.plan.cp);
  x.s_kv = static_cast<double>(sc.training.seq_len);  // context parallel: local queries meet every key
  x.h = static_cast<double>(sc.model.hidden);
  x.q = static_cast<double>(sc.model.query_width());
  x.a = static_cast<double>(sc.model.heads);
  x.kv = sc.model.rank_kv_heads(sc.plan.tp);
  x.d = static_cast<double>(sc.model.head_dim());
  x.f = static_cast<double>(sc.model.ffn_hidden);
  x.t = static_cast<double>(sc.plan.tp);
  x.tokens = x.b * x.s;
  x.sp = sc.plan.sequence_parallel && sc.plan.tp > 1;
  x.tokens_sp = x.sp ? x.tokens / x.t : x.tokens;
  x.sp_copies = x.sp && tp_library(sc.plan.tp_library).copies_around_sequence_parallel_collectives;
  return x;
}

// Eager kernels (training.elementwise "eager", the loss's training.loss; scenario/elementwise.hpp): HBM bytes per
// element of the kernels PyTorch eager launches for the reference Llama code -- torchtitan@9dec370's RMSNorm
// (torchtitan/models/norms.py), apply_rotary_emb, repeat_kv and FeedForward
// (models/llama/model.py) and loss_fn (train.py) -- each ATen kernel reading its inputs and writing
// its output once (bf16 2 bytes, fp32 4); per-row scalars (1/h of a pass) are left out. Fused, the
// same work is one kernel each: the norm reads and writes once (2 + 2), RoPE too.
namespace eager {
// RMSNorm forward, x bf16: x.float() (2 + 4), pow(2) (4 + 4), mean (4), x * rsqrt(...) (4 + 4),
// .type_as(x) (4 + 2), * weight (2 + 2).
constexpr double kRmsNormFwd = 6 + 8 + 4 + 8 + 6 + 4;
// Its autograd backward: * weight: dX (2 + 2), dW's product (2 + 2 + 2) and row sum (2); .type_as:
// (2 + 4); x * rsqrt: dX (4 + 4), d rsqrt's product (4 + 4 + 4) and sum (4); mean: the expanded
// gradient (4); pow: 2x (4 + 4) and the product (4 + 4 + 4); the two gradients of x.float() summed
// (4 + 4 + 4); .float(): (4 + 2).
constexpr double kRmsNormBwd = 4 + 8 + 6 + 8 + 16 + 4 + 20 + 12 + 6;
// RoPE, per element of the queries and keys: .float() (2 + 4), the complex product (4 + 4),
// .type_as (4 + 2); backward the same three in reverse.
constexpr double kRopeFwd = 6 + 8 + 6, kRopeBwd = 6 + 8 + 6;
constexpr double kRopeFused = 2.0 * E;  // read and write once, forward and backward alike
// SwiGLU, per element of the FFN width: silu(a) (2 + 2), * b (2 + 2 + 2); backward: g * b and
// g * silu(a) (2 + 2 + 2 each), silu's backward (2 + 2 + 2).
constexpr double kSwigluFwd = 4 + 6, kSwigluBwd = 6 + 6 + 6;
// The loss, per logit: pred.float() (2 + 4), log_softmax (4 + 4); backward: nll_loss's gradient
// (a zeroed fp32 tensor, 4), log_softmax's (4 + 4 + 4), .float()'s (4 + 2).
constexpr double kLossFwd = 6 + 8, kLossBwd = 4 + 12 + 6;
}  // namespace eager

// Bytes per element of a 16-bit tensor cast to FP8: read 2, write 1, and 1 more for the transposed
// (or column-wise) copy where one is made (fp8_transposes); each copy with its scales where the
// recipe keeps them per tile or block (fp8_scale_bytes_per_element).
double fp8_cast_bytes(bool transposes, double scale_bytes = 0.0) {
  return 2.0 + (transposes ? 2.0 : 1.0) * (1.0 + scale_bytes);
}

// Bytes per element of a norm's forward or backward: eager RMSNorm's ATen kernels, else one kernel
// (eager LayerNorm is one ATen kernel too) reading and writing bf16 once, its backward also reading
// the output gradient.
double norm_bytes_per_element(const Scenario& sc, bool backward) {
  if (sc.training.elementwise == Elementwise::EAGER && sc.model.rmsnorm)
    return backward ? eager::kRmsNormBwd : eager::kRmsNormFwd;
  return (backward ? 3.0 : 2.0) * E;
}

// The type a kernel's math runs in (ops.hpp, "FP8"): a transformer layer's linear layers run in
// the training precision; under FP8 everything else runs in bf16.
Precision math_precision(const Scenario& sc, bool linear) {
  const Precision p = sc.training.precision;
  return p == Precision::FP8 && !linear ? Precision::BF16 : p;
}

Op gemm(std::string name, double m, double n, double k, double batch, bool core, Precision precision) {
  Op op;
  op.name = std::move(name);
  op.cls = OpClass::GEMM;
  op.shape = GemmShape{m, n, k, batch};
  op.flops = op.shape.flops();
  const double operand = precision == Precision::FP8 ? 1.0 : E;  // the output stays 16-bit
  op.bytes = Bytes(batch * (operand * (m * k + k * n) + E * m * n));
  op.attention_core = core;
  op.precision = precision;
  return op;
}

Op mem(std::string name, double bytes, bool core = false) {
  Op op;
  op.name = std::move(name);
  op.cls = OpClass::MEMORY;
  op.bytes = Bytes(bytes);
  op.attention_core = core;
  return op;
}

Op coll(std::string name, CollectiveKind kind, double bytes, CommGroup group = CommGroup::TP) {
  Op op;
  op.group = group;
  op.name = std::move(name);
  op.cls = OpClass::COLLECTIVE;
  op.collective = kind;
  op.bytes = Bytes(bytes);
  return op;
}

// A sequence-parallel all-gather or reduce-scatter of `bytes` (the whole tensor), with the copy a
// TP library makes around it (tp_library.hpp): after an all-gather, of its output; before a
// reduce-scatter, of its input -- read and written once, at the collective's bytes per element.
void sp_collective(std::vector<Op>& ops, const Dims& x, const char* name, CollectiveKind kind, double bytes) {
  const bool gather = kind == CollectiveKind::ALL_GATHER;
  if (x.sp_copies && !gather) ops.push_back(mem(std::string(name) + "_layout", 2.0 * bytes));
  ops.push_back(coll(name, kind, bytes));
  if (x.sp_copies && gather) ops.push_back(mem(std::string(name) + "_layout", 2.0 * bytes));
}

// The conjugate TP communication of Megatron's f/g operators: without SP an all-reduce after the
// row-parallel GEMM (forward) and after the column-parallel input gradient (backward); with SP an
// all-gather before the column-parallel GEMM and a reduce-scatter after the row-parallel one, and
// the reverse in backward (Korthikanti et al. 2022 §4.2.2): around a column-parallel (tp_in) and
// a row-parallel (tp_out) linear layer. `gathered`: bytes per element of the sequence-parallel
// all-gathers, which gather a linear layer's GEMM operand -- its input in forward, its output
// gradient in backward. In FP8, Transformer Engine casts before it gathers (layernorm_linear.py
// and layernorm_mlp.py gather the FP8 norm output; base.py grad_output_preprocess: "FP8 case with
// gather: unfused bgrad, cast, transpose for efficient gather"), as torchao's Float8ColwiseParallel
// does its input: 1 byte (per library: fp8_library.hpp). The reduce-scatters and all-reduces carry
// 16-bit outputs.
void tp_in(std::vector<Op>& ops, const Dims& x, const char* name, bool backward, double gathered) {
  if (x.t <= 1) return;
  const double elements = x.tokens * x.h;
  if (x.sp && backward)
    sp_collective(ops, x, name, CollectiveKind::REDUCE_SCATTER, E * elements);
  else if (x.sp)
    sp_collective(ops, x, name, CollectiveKind::ALL_GATHER, gathered * elements);
  else if (backward)
    ops.push_back(coll(name, CollectiveKind::ALL_REDUCE, E * elements));
}

void tp_out(std::vector<Op>& ops, const Dims& x, const char* name, bool backward, double gathered) {
  if (x.t <= 1) return;
  const double elements = x.tokens * x.h;
  if (x.sp && backward)
    sp_collective(ops, x, name, CollectiveKind::ALL_GATHER, gathered * elements);
  else if (x.sp)
    sp_collective(ops, x, name, CollectiveKind::REDUCE_SCATTER, E * elements);
  else if (!backward)
    ops.push_back(coll(name, CollectiveKind::ALL_REDUCE, E * elements));
}

// A GEMM's backward: the input gradient dX[m x k] = dY[m x n] W^T and the weight gradient
// dW[k x n] = X^T dY, each as many FLOPs as the forward. The attention core's batched GEMMs multiply
// two activations: both of their gradients are input gradients.
void gemm_backward(std::vector<Op>& ops, const Op& fwd) {
  const GemmShape& g = fwd.shape;
  Op dgrad = gemm(fwd.name + "_dgrad", g.m, g.k, g.n, g.batch, fwd.attention_core, fwd.precision);
  Op wgrad = gemm(fwd.name + "_wgrad", g.k, g.n, g.m, g.batch, fwd.attention_core, fwd.precision);
  wgrad.weight_grad = !fwd.attention_core;
  if (fwd.executed.value > 0) {  // duplicated on every tensor-parallel rank: the same share
    const double share = fwd.flops.value / fwd.executed.value;
    for (Op* op : {&dgrad, &wgrad}) op->executed = op->flops, op->flops = op->flops * share;
  }
  ops.push_back(dgrad);
  ops.push_back(wgrad);
}

// A linear layer every tensor-parallel rank runs whole on the gathered tokens (Megatron-Core's
// "duplicated" TELinear: MLA's down-projections, the MoE router): each rank executes all of it,
// its model FLOPs are a 1/tp share, so that the ranks' shares sum to the layer's once.
Op duplicated(Op op, double tp) {
  op.executed = op.flops;
  op.flops = op.flops / tp;
  return op;
}

// An MoE layer's MLP (model.hpp, MoeSpec) between the sequence-parallel all-gather and
// reduce-scatter of a dense MLP, as Megatron-Core's MoELayer runs it with expert tensor
// parallelism tp and expert parallelism 1 (every rank holds its tp shard of every expert), every
// expert receiving the same share of the routed tokens, tokens x top_k / experts (forced balance,
// as NVIDIA's published MoE benchmarks force it): the router (duplicated on every rank: the
// TopKRouter's weight is not split), its scores and top-k in fp32 (read the 16-bit logits, write
// fp32 scores, read them for the top-k); the routed tokens permuted into expert order (each of a
// token's top_k copies read and written); the experts' two GEMMs grouped, one batch entry per
// expert, around the activation; the unpermutation (the copies read, weighted and summed, the sum
// written); the shared experts (DeepSeekMoE) as one dense MLP as wide as all of them, its output
// added to the routed one. Backward in reverse, each memory-bound kernel reading what it wrote and
// writing what it read.
// A 16-bit tensor of `elements` cast to FP8 (Transformer Engine's cast, ops.hpp "FP8 casts"): read
// 2, write 1, and 1 more for its transpose where the GEMMs read one (fp8_transposes).
Op fp8_cast_op(const Scenario& sc, const std::string& tensor, double elements) {
  const bool transposes = fp8_transposes(sc);
  return mem((transposes ? "fp8_cast_transpose_" : "fp8_cast_") + tensor,
             fp8_cast_bytes(transposes, fp8_scale_bytes_per_element(sc.training.fp8_scaling)) * elements);
}

PassOps moe_mlp_ops(const Scenario& sc, const Dims& x, Precision linear, double act_fwd, double act_bwd,
                    const std::string& act, double gathered, double gathered_grad) {
  const MoeSpec& m = *sc.model.moe;
  const bool swiglu = sc.model.activation == Activation::SWIGLU;
  const auto experts = static_cast<double>(m.experts), k = static_cast<double>(m.top_k);
  const auto ep = static_cast<double>(sc.plan.ep);
  // MoE parallel folding (ParallelPlan::expert_tp, routes_own_tokens): with ep > 1 beside tp > 1
  // (sequence parallel), a rank routes its own s/tp tokens, and only the shared experts, split over
  // tp as a dense MLP, gather the tokens around them; else the tokens are gathered before the MoE
  // layer (ops around it in layer_ops) and every expert splits over tp. Experts split over tp
  // beside ep > 1 (etp tp) take what the dispatch brings to the tp ranks of their group, gathered
  // over tp after it and reduce-scattered back before the combine (Megatron-Core's alltoall
  // dispatcher: gather_from_sequence_parallel_region over the expert tensor-parallel group).
  const bool folded = sc.plan.routes_own_tokens();
  const double etp = static_cast<double>(sc.plan.expert_tp());
  const double etp_gather = folded ? etp : 1.0;           // ranks whose dispatched copies a rank's experts take
  const double tokens = folded ? x.tokens_sp : x.tokens;  // the rank routes
  const double fe = static_cast<double>(m.expert_ffn_hidden) / etp;
  const double routed = tokens * k;  // token copies the rank routes
  const double shared = static_cast<double>(m.shared_experts) * static_cast<double>(m.expert_ffn_hidden) / x.t;
  const double gate = swiglu ? 2.0 : 1.0;
  const Precision core = math_precision(sc, false);
  // Expert parallelism: a rank holds experts / ep of the experts, and each of them takes the token
  // copies the ep ranks of its group route to it (forced balance: routed x ep / experts). Routed
  // otherwise (routing.hpp), the busiest rank sets the time: its experts take `load` times that,
  // and its exchanges carry `load` times the mean rank's rows.
  const double load = busiest_rank_load(sc);
  const double local = experts / ep, per_expert = routed * etp_gather * ep / experts * load;
  const double taken = routed * etp_gather * load;  // the token copies the rank's experts take
  const Op router_gemm = gemm("router", tokens, experts, x.h, 1.0, false, core);
  const Op router = folded ? router_gemm : duplicated(router_gemm, x.t);
  Op fc1 = gemm("expert_fc1", per_expert, gate * fe, x.h, local, false, linear);
  Op fc2 = gemm("expert_fc2", per_expert, x.h, fe, local, false, linear);
  if (load != 1.0)  // the busiest rank executes `load` times the mean's work; the model's FLOPs are the mean's
    for (Op* op : {&fc1, &fc2}) op->executed = op->flops, op->flops = op->flops / load;
  // Dispatch and combine over the expert-parallel group (dispatcher.hpp), the backward running each
  // one's reverse: an all-to-all's is an all-to-all, an all-gather's a reduce-scatter.
  const DispatcherEntry& d = dispatcher(sc.plan.dispatcher);
  // In FP8 (ops.hpp, "FP8 casts", as Transformer Engine's GroupedLinear runs the experts under
  // Megatron-Core): the norm before the layer writes 16 bits, which the router reads; the
  // experts' input is cast after the dispatch, each token copy (with its transpose for the weight
  // gradient), their activation before fc2, and backward each one's output gradient, fc1's saved
  // input transposed. DeepEP's kernels dispatch FP8 instead (DeepSeek-V3 §3.3: FP8 dispatch, BF16
  // combine): the rank's tokens cast before, 1 byte and a 4-byte scale per 128 elements
  // (DeepEP's tests' fp8_factor), their copies transposed after. The shared experts cast as a dense
  // MLP, their input from the 16-bit norm. Current scaling reads each cast tensor once more.
  const bool fp8 = linear == Precision::FP8, deepep_fp8 = fp8 && d.own_kernels();
  const bool transposes = fp8_transposes(sc), current = fp8 && sc.training.fp8_scaling == Fp8Scaling::CURRENT;
  const double rows = d.rows(tokens, k, ep) * x.h * E * load;
  const double dispatched = deepep_fp8 ? rows / E * (1.0 + 4.0 / 128.0) : rows;
  const auto reverse = [](CollectiveKind c) {
    return c == CollectiveKind::ALL_GATHER       ? CollectiveKind::REDUCE_SCATTER
           : c == CollectiveKind::REDUCE_SCATTER ? CollectiveKind::ALL_GATHER
                                                 : c;
  };
  const bool exchanges = sc.plan.ep > 1;
  Op shared_fc1 = gemm("shared_fc1", x.tokens, gate * shared, x.h, 1.0, false, linear);
  Op shared_fc2 = gemm("shared_fc2", x.tokens, x.h, shared, 1.0, false, linear);
  const double scores = tokens * experts * (E + 4.0 + 4.0);
  const double permute = 2.0 * E * routed * x.h, unpermute = 2.0 * E * routed * x.h + E * tokens * x.h;
  PassOps p;
  auto& f = p.forward;
  f.push_back(router);
  f.push_back(mem("router_topk", scores));
  f.push_back(mem("permute", permute));
  if (deepep_fp8) f.push_back(mem("fp8_cast_dispatch", fp8_cast_bytes(false) * tokens * x.h));
  if (exchanges) f.push_back(coll("ep_dispatch", d.dispatch, dispatched, CommGroup::EP));
  // Of a tp group's dispatched copies, the whole (each rank's `taken`), 16-bit.
  const bool etp_exchanges = exchanges && etp_gather > 1;
  if (etp_exchanges) f.push_back(coll("etp_gather", CollectiveKind::ALL_GATHER, E * taken * x.h));
  if (fp8 && !deepep_fp8) f.push_back(fp8_cast_op(sc, "expert_in", taken * x.h));
  if (deepep_fp8 && transposes) f.push_back(mem("fp8_transpose_expert_in", 2.0 * taken * x.h));
  f.push_back(fc1);
  f.push_back(mem("expert_" + act, act_fwd * taken * fe));
  if (fp8) f.push_back(fp8_cast_op(sc, "expert_fc2_in", taken * fe));
  if (current) f.push_back(mem("fp8_amax_experts", E * taken * (x.h + fe)));
  f.push_back(fc2);
  if (etp_exchanges) f.push_back(coll("etp_scatter", CollectiveKind::REDUCE_SCATTER, E * taken * x.h));
  if (exchanges) f.push_back(coll("ep_combine", d.combine, rows, CommGroup::EP));
  f.push_back(mem("unpermute", unpermute));
  if (shared > 0) {
    if (folded) tp_in(f, x, "tp_shared_in", false, gathered);
    if (fp8) f.push_back(fp8_cast_op(sc, "shared_in", x.tokens * x.h));
    f.push_back(shared_fc1);
    f.push_back(mem("shared_" + act, act_fwd * x.tokens * shared));
    if (fp8) f.push_back(fp8_cast_op(sc, "shared_fc2_in", x.tokens * shared));
    if (current) f.push_back(mem("fp8_amax_shared", E * x.tokens * (x.h + shared)));
    f.push_back(shared_fc2);
    if (folded) tp_out(f, x, "tp_shared_out", false, gathered);
    f.push_back(mem("shared_add", 3.0 * E * tokens * x.h));
  }
  auto& b = p.backward;
  if (shared > 0) {
    if (folded) tp_out(b, x, "tp_shared_out_bwd", true, gathered_grad);
    if (fp8) b.push_back(fp8_cast_op(sc, "shared_fc2_dgrad", x.tokens * x.h));
    gemm_backward(b, shared_fc2);
    b.push_back(mem("shared_" + act + "_bwd", act_bwd * x.tokens * shared));
    if (fp8) b.push_back(fp8_cast_op(sc, "shared_fc1_dgrad", x.tokens * gate * shared));
    if (current) b.push_back(mem("fp8_amax_shared_bwd", E * x.tokens * (x.h + gate * shared)));
    gemm_backward(b, shared_fc1);
    if (folded) tp_in(b, x, "tp_shared_in_bwd", true, gathered_grad);
  }
  b.push_back(mem("unpermute_bwd", unpermute));
  if (exchanges) b.push_back(coll("ep_combine_bwd", reverse(d.combine), rows, CommGroup::EP));
  if (etp_exchanges) b.push_back(coll("etp_scatter_bwd", CollectiveKind::ALL_GATHER, E * taken * x.h));
  if (fp8) b.push_back(fp8_cast_op(sc, "expert_fc2_dgrad", taken * x.h));
  gemm_backward(b, fc2);
  b.push_back(mem("expert_" + act + "_bwd", act_bwd * taken * fe));
  if (fp8) b.push_back(fp8_cast_op(sc, "expert_fc1_dgrad", taken * gate * fe));
  if (fp8 && transposes && !deepep_fp8) b.push_back(mem("fp8_transpose_expert_fc1_in", 2.0 * taken * x.h));
  if (current) b.push_back(mem("fp8_amax_experts_bwd", E * taken * (x.h + gate * fe)));
  gemm_backward(b, fc1);
  if (etp_exchanges) b.push_back(coll("etp_gather_bwd", CollectiveKind::REDUCE_SCATTER, E * taken * x.h));
  if (exchanges) b.push_back(coll("ep_dispatch_bwd", reverse(d.dispatch), rows, CommGroup::EP));
  b.push_back(mem("permute_bwd", permute));
  b.push_back(mem("router_topk_bwd", scores));
  gemm_backward(b, router);
  return p;
}

}  // namespace

int64_t padded_vocab(const Scenario& s) {
  int64_t m = 128 * s.plan.tp;
  return (s.model.vocab + m - 1) / m * m;
}

std::vector<BlockMatmul> op_checkpoint_matmuls(const Scenario& sc) {
  const double h = double(sc.model.hidden), t = double(sc.plan.tp), f = double(sc.model.ffn_hidden);
  const double q = double(sc.model.query_width());
  const double kv = sc.model.rank_kv_heads(sc.plan.tp) * double(sc.model.head_dim());  // per rank
  std::vector<BlockMatmul> mms{{"wq", q / t, h}, {"wk", kv, h}, {"wv", kv, h}, {"wo", h, q / t}, {"w1", f / t, h}};
  if (sc.model.activation == Activation::SWIGLU) mms.push_back({"w3", f / t, h});
  mms.push_back({"w2", h, f / t});
  for (size_t i = 0; i < mms.size(); ++i) mms[i].saved = i % 2 == 0;
  return mms;
}

namespace {

// Whether selective recomputation (training.recompute_modules) reruns forward op `op` of a layer
// whose MLP activation is `act`: the module's ops by name, an FP8 cast with the GEMM whose input it
// casts. Megatron-Core's checkpointed regions (transformer_layer.py, multi_latent_attention.py,
// moe/experts.py): core_attn the attention core; layernorm the two norms before attention and the
// MLP; mla_up_proj the latents' norms, the up-projections and RoPE; mlp a dense layer's MLP;
// moe_act the experts' activation; shared_experts the shared experts.
bool recomputed(const Scenario& sc, const Op& op, const std::string& act) {
  std::string name = op.name;
  for (const char* cast : {"fp8_cast_transpose_", "fp8_cast_"})
    if (name.rfind(cast, 0) == 0) name = name.substr(std::char_traits<char>::length(cast));
  const auto any = [&](std::initializer_list<std::string> names) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  const TrainingSpec& t = sc.training;
  return (t.recomputes(RecomputeModule::CORE_ATTN) && op.attention_core) ||
         (t.recomputes(RecomputeModule::LAYERNORM) && any({"norm1", "norm2"})) ||
         (t.recomputes(RecomputeModule::MLA_UP_PROJ) &&
          any({"q_norm", "q_up_in", "q_up", "kv_norm", "kv_up_in", "kv_up", "rope"})) ||
         (t.recomputes(RecomputeModule::MLP) && any({"mlp_fc1", act, "fc2_in", "mlp_fc2"})) ||
         (t.recomputes(RecomputeModule::MOE_ACT) && name == "expert_" + act) ||
         (t.recomputes(RecomputeModule::SHARED_EXPERTS) &&
          any({"shared_in", "shared_fc1", "shared_" + act, "shared_fc2_in", "shared_fc2"}));
}

}  // namespace

double sliding_window_share(double s, double w) {
  if (w <= 0 || w >= s) return 1.0;
  return 2.0 * (w * s - w * (w - 1.0) / 2.0) / (s * s);
}

PassOps layer_ops(const Scenario& sc, int64_t micro_batch, bool moe_layer, bool windowed) {
  const Dims x = dims(sc, micro_batch);
  const bool swiglu = sc.model.activation == Activation::SWIGLU;
  const double heads = x.a / x.t;
  // Multi-head latent attention (model.hpp, MlaSpec): each head's query and key d_qk wide (its
  // no-RoPE and RoPE parts), its value d_v; the rank's queries, keys and values come out of the
  // up-projections (Megatron-Core's MLASelfAttention: the down-projections duplicated on every
  // tensor-parallel rank, the up-projections column-parallel by heads).
  const MlaSpec* mla = sc.model.mla ? &*sc.model.mla : nullptr;
  const double d_qk = static_cast<double>(sc.model.score_head_dim());
  const double d_v = mla ? double(mla->v_head_dim) : x.d;
  const double qkv_out = mla ? heads * (2.0 * d_qk + d_v) : x.q / x.t + 2.0 * x.kv * x.d;
  const double attn_out = mla ? heads * d_v : x.q / x.t;  // the projection's input width
  const double ffn = x.f / x.t;
  const bool eager = sc.training.elementwise == Elementwise::EAGER;
  const double norm_bytes = norm_bytes_per_element(sc, false) * x.tokens_sp * x.h;
  const double norm_bwd_bytes = norm_bytes_per_element(sc, true) * x.tokens_sp * x.h;
  // Rotary embeddings on the rank's queries and keys; eager, grouped keys and values are copied to
  // every query head (repeat_kv) before attention, and their gradients summed back.
  const double qk_width = x.q / x.t + x.kv * x.d;
  // MLA's RoPE: the queries' rotary part and the one rotary key the heads share.
  const double rope_elements = mla             ? x.tokens * double(mla->qk_rope_head_dim) * (heads + 1.0)
                               : sc.model.rope ? x.tokens * qk_width
                                               : 0.0;
  const double kv_copied = eager && x.kv * x.d < x.q / x.t ? 2.0 * E * x.tokens * qk_width : 0.0;
  const double mask = sc.model.dropout ? 1.0 : 0.0;               // a dropout mask's byte per element
  const double bda_bytes = x.tokens_sp * x.h * (3.0 * E + mask);  // bias-dropout-add: x, residual, out, mask
  const double probs = x.b * heads * x.s * x.s_kv;                // attention probability elements

  const Precision linear = math_precision(sc, true), core = math_precision(sc, false);
  // The Q, K, V projection: one GEMM, or MLA's latent ones in the order they run, the latents'
  // RMSNorms between (q_down, q_norm, q_up or one q_proj; kv_down, kv_norm, kv_up).
  std::vector<Op> qkv_ops;
  if (mla) {
    const auto q_rank = double(mla->q_lora_rank), kv_rank = double(mla->kv_lora_rank);
    const auto rope = double(mla->qk_rope_head_dim), nope = double(mla->qk_nope_head_dim);
    // In FP8 the up-projections cast the latents their norms wrote in 16 bits, with the transposes
    // their weight gradients read, as fc2 casts its input (below).
    const bool fp8_latents = linear == Precision::FP8;
    if (mla->q_lora_rank > 0) {
      qkv_ops.push_back(duplicated(gemm("q_down", x.tokens, q_rank, x.h, 1.0, false, linear), x.t));
      qkv_ops.push_back(mem("q_norm", norm_bytes_per_element(sc, false) * x.tokens * q_rank));
      if (fp8_latents) qkv_ops.push_back(fp8_cast_op(sc, "q_up_in", x.tokens * q_rank));
      qkv_ops.push_back(gemm("q_up", x.tokens, heads * d_qk, q_rank, 1.0, false, linear));
    } else {
      qkv_ops.push_back(gemm("q_proj", x.tokens, heads * d_qk, x.h, 1.0, false, linear));
    }
    qkv_ops.push_back(duplicated(gemm("kv_down", x.tokens, kv_rank + rope, x.h, 1.0, false, linear), x.t));
    qkv_ops.push_back(mem("kv_norm", norm_bytes_per_element(sc, false) * x.tokens * kv_rank));
    if (fp8_latents) qkv_ops.push_back(fp8_cast_op(sc, "kv_up_in", x.tokens * kv_rank));
    qkv_ops.push_back(gemm("kv_up", x.tokens, heads * (nope + d_v), kv_rank, 1.0, false, linear));
  } else {
    qkv_ops.push_back(gemm("qkv", x.tokens, qkv_out, x.h, 1.0, false, linear));
  }
  Op scores = gemm("attn_scores", x.s, x.s_kv, d_qk, x.b * heads, true, core);
  Op context = gemm("attn_context", x.s, d_v, x.s_kv, x.b * heads, true, core);
  Op proj = gemm("attn_proj", x.tokens, x.h, attn_out, 1.0, false, linear);
  Op fc1 = gemm("mlp_fc1", x.tokens, (swiglu ? 2.0 : 1.0) * ffn, x.h, 1.0, false, linear);
  Op fc2 = gemm("mlp_fc2", x.tokens, x.h, ffn, 1.0, false, linear);

  const bool flash = fused(sc.training.attention);
  // FlashAttention: the two score matmuls counted as the model convention counts them, executed
  // at half (causal), reading Q, K, V and writing O (backward: also dO, writing dQ, dK, dV).
  const double qkvo_bytes =
      mla ? E * x.tokens * heads * (2.0 * d_qk + 2.0 * d_v) : E * x.tokens * (2.0 * x.q / x.t + 2.0 * x.kv * x.d);
  Op flash_fwd;
  flash_fwd.name = "flash_attention";
  flash_fwd.cls = OpClass::FLASH_ATTENTION;
  // A sliding-window layer's kernel visits only the key blocks inside the window (FlashAttention's
  // local attention, window_size; cuDNN's sliding window): its share of the pairs, its loop over the
  // window's keys rather than the sequence's.
  const double window = windowed ? static_cast<double>(sc.model.sliding_window) : 0.0;
  flash_fwd.flops = (scores.flops + context.flops) * sliding_window_share(x.s_kv, window);
  // The kernel computes its compiled head dimension's columns (attention_kernels.hpp, head_dims).
  flash_fwd.head_dim = kernel_head_dim(sc.training.attention, d_qk);
  flash_fwd.executed = flash_fwd.flops * 0.5 * (flash_fwd.head_dim / d_qk);
  flash_fwd.bytes = Bytes(qkvo_bytes);
  // The kernel's length, which sets its efficiency (compute_model.hpp): the sequence, or, around a
  // context-parallel ring, the block of s/cp queries and keys each step's kernel runs on
  // (Transformer Engine's AttnFuncWithCPAndKVP2P calls it once per step: the local causal block,
  // then the blocks of keys that arrive).
  const bool cp = sc.plan.cp > 1;
  const bool ring = cp && sc.plan.cp_comm == ParallelPlan::CpComm::P2P;
  flash_fwd.seq_len = ring ? x.s : window > 0 ? std::min(window, x.s_kv) : x.s_kv;
  flash_fwd.kernel = sc.training.attention;
  flash_fwd.attention_core = true;
  flash_fwd.precision = core;
  Op flash_bwd = flash_fwd;
  flash_bwd.name = "flash_attention_bwd";
  flash_bwd.backward = true;
  flash_bwd.flops = flash_fwd.flops * 2.0;
  flash_bwd.executed = flash_fwd.executed * 2.5;
  flash_bwd.bytes = Bytes(2.0 * qkvo_bytes);

  // Transformer Engine FP8 (ops.hpp, "FP8 casts"): the norms write their output in FP8, one byte
  // per element instead of two; the MLP activation writes 16 bits, which fc2 casts.
  const bool fp8 = linear == Precision::FP8;
  // A 16-bit tensor cast to FP8: read 2, write 1, and 1 more for its transpose where the GEMMs
  // read one (fp8_transposes); an FP8 tensor transposed: read 1, write 1, or nothing.
  const bool transposes = fp8_transposes(sc);
  auto fp8_cast = [&](const std::string& tensor, double elements) { return fp8_cast_op(sc, tensor, elements); };
  // Bytes per element of the sequence-parallel all-gathers (tp_in): inputs forward, output
  // gradients backward, in FP8 as the library gathers them.
  const double gathered = fp8 ? 1.0 : E;
  const double gathered_grad = fp8 && fp8_library(sc.training.fp8_library).gathers_output_grad_in_fp8 ? 1.0 : E;
  const double fp8_norm_saving = fp8 ? x.tokens_sp * x.h : 0.0;
  // Current scaling (training.fp8_scaling "current"): an amax pass reads each tensor the layer
  // casts to FP8 once more, in bf16, before its cast -- forward the two norms' outputs, the
  // attention output and the MLP activation; backward each linear layer's output gradient (fc1's,
  // twice the FFN width when gated). Counted as that one read, 2 bytes per element, where the
  // delayed recipe fuses the cast into the norm or the activation too.
  const bool current = fp8 && sc.training.fp8_scaling == Fp8Scaling::CURRENT;
  const double fc1_out = (swiglu ? 2.0 : 1.0) * ffn;
  // The output gradients of the QKV projection, cast to FP8 backward: its output, or MLA's four
  // projections' (the up-projections' outputs, then the latents the down-projections wrote).
  const double qkv_width = mla ? heads * double(mla->qk_nope_head_dim + mla->qk_rope_head_dim) +
                                     heads * double(mla->qk_nope_head_dim + mla->v_head_dim) +
                                     double(mla->q_lora_rank + mla->kv_lora_rank + mla->qk_rope_head_dim)
                               : qkv_out;

  const bool moe = moe_layer && sc.model.moe;
  const double swiglu_fwd = eager ? eager::kSwigluFwd : 3.0 * E, swiglu_bwd = eager ? eager::kSwigluBwd : 5.0 * E;
  const double act_fwd = swiglu ? swiglu_fwd : 2.0 * E, act_bwd = swiglu ? swiglu_bwd : 3.0 * E;
  const char* act = swiglu ? "swiglu" : "gelu";
  const std::string act_bwd_name = std::string(act) + "_bwd";
  const PassOps moe_ops = moe ? moe_mlp_ops(sc, x, linear, act_fwd, act_bwd, act, gathered, gathered_grad) : PassOps{};
  // Folded (ParallelPlan::expert_tp), an MoE layer's tokens stay sequence-parallel: no gather
  // around it, its shared experts' inside it.
  const bool around_mlp = !moe || !sc.plan.routes_own_tokens();

  PassOps p;
  auto& f = p.forward;
  f.push_back(mem("norm1", norm_bytes - fp8_norm_saving));
  tp_in(f, x, "tp_attn_in", false, gathered);
  f.insert(f.end(), qkv_ops.begin(), qkv_ops.end());
  if (rope_elements > 0) f.push_back(mem("rope", (eager ? eager::kRopeFwd : eager::kRopeFused) * rope_elements));
  if (kv_copied > 0) f.push_back(mem("repeat_kv", kv_copied));
  // Context parallel: gather every rank's keys and values (the whole sequence's) over cp.
  const double kv_bytes = mla ? E * x.b * x.s_kv * heads * (d_qk + d_v) : E * x.b * x.s_kv * 2.0 * x.kv * x.d;
  auto around_the_ring = [&](Op op) {
    op.hidden_by = Op::HiddenBy::ATTENTION_CORE, op.chunks = sc.plan.cp, op.ring = true;
    return op;
  };
  if (cp) {
    Op gather = coll("cp_kv_gather", CollectiveKind::ALL_GATHER, kv_bytes, CommGroup::CP);
    f.push_back(ring ? around_the_ring(gather) : gather);
    f.back().attention_core = true;
  }
  // Unpadded (attention_kernels.hpp): each of Q, K, V gathered (read and write); the output
  // scattered into a zeroed tensor (write, then read and write). Backward: the output gradient
  // gathered, the Q, K, V gradients scattered into zeroed tensors.
  const bool unpads = flash && attention_kernel(sc.training.attention).unpads;
  const double qkv_elements = x.tokens * qkv_out, o_elements = x.tokens * attn_out;
  if (unpads) f.push_back(mem("attention_unpad", 2.0 * E * qkv_elements, true));
  if (flash) {
    f.push_back(flash_fwd);
    if (unpads) f.push_back(mem("attention_pad", 3.0 * E * o_elements, true));
  } else {
    f.push_back(scores);
    f.push_back(mem("softmax", 2.0 * E * probs, true));
    if (sc.model.dropout) f.push_back(mem("attn_dropout", probs * (2.0 * E + 1.0), true));
    f.push_back(context);
  }
  // The attention output (bf16) cast to FP8, with its transpose for the weight gradient.
  if (fp8) f.push_back(fp8_cast("proj_in", x.tokens * attn_out));
  f.push_back(proj);
  tp_out(f, x, "tp_attn_out", false, gathered);
  f.push_back(mem("bias_dropout_add1", bda_bytes));
  f.push_back(mem("norm2", norm_bytes - (moe ? 0.0 : fp8_norm_saving)));
  if (around_mlp) tp_in(f, x, "tp_mlp_in", false, moe ? E : gathered);  // an MoE layer's norm writes 16 bits
  if (moe) {
    f.insert(f.end(), moe_ops.forward.begin(), moe_ops.forward.end());
  } else {
    f.push_back(fc1);
    f.push_back(mem(act, act_fwd * x.tokens * ffn));
    if (current) f.push_back(mem("fp8_amax", E * (2.0 * x.tokens_sp * x.h + x.tokens * (attn_out + ffn))));
    // fc2 casts its 16-bit input, with the transpose its weight gradient reads.
    if (fp8) f.push_back(fp8_cast("fc2_in", x.tokens * ffn));
    f.push_back(fc2);
  }
  if (around_mlp) tp_out(f, x, "tp_mlp_out", false, gathered);
  f.push_back(mem("bias_dropout_add2", bda_bytes));

  auto& b = p.backward;
  b.push_back(mem("bias_dropout_add2_bwd", x.tokens_sp * x.h * (2.0 * E + mask)));
  if (around_mlp) tp_out(b, x, "tp_mlp_out_bwd", true, gathered_grad);
  if (moe) {
    b.insert(b.end(), moe_ops.backward.begin(), moe_ops.backward.end());
  } else {
    // FP8 backward: each linear layer's output gradient cast to FP8 with its transpose (fc1's, twice
    // the FFN width when gated, after the activation's 16-bit backward), and the FP8 inputs the
    // norms saved transposed for the weight gradient.
    if (fp8) b.push_back(fp8_cast("fc2_dgrad", x.tokens * x.h));
    gemm_backward(b, fc2);
    b.push_back(mem(act_bwd_name, act_bwd * x.tokens * ffn));
    if (fp8) {
      b.push_back(fp8_cast("fc1_dgrad", x.tokens * fc1_out));
      if (transposes) b.push_back(mem("fp8_transpose_fc1_in", 2.0 * x.tokens * x.h));
    }
    gemm_backward(b, fc1);
  }
  if (around_mlp) tp_in(b, x, "tp_mlp_in_bwd", true, gathered_grad);
  b.push_back(mem("norm2_bwd", norm_bwd_bytes));
  b.push_back(mem("bias_dropout_add1_bwd", x.tokens_sp * x.h * (2.0 * E + mask)));
  tp_out(b, x, "tp_attn_out_bwd", true, gathered_grad);
  if (fp8) b.push_back(fp8_cast("proj_dgrad", x.tokens * x.h));
  gemm_backward(b, proj);
  if (flash) {
    if (unpads) b.push_back(mem("attention_pad_bwd", 2.0 * E * o_elements, true));
    b.push_back(flash_bwd);
    if (unpads) b.push_back(mem("attention_unpad_bwd", 3.0 * E * qkv_elements, true));
  } else {
    gemm_backward(b, context);
    if (sc.model.dropout) b.push_back(mem("attn_dropout_bwd", probs * (2.0 * E + 1.0), true));
    b.push_back(mem("softmax_bwd", 3.0 * E * probs, true));
    gemm_backward(b, scores);
  }
  if (ring)  // the key/value blocks again and their gradients: twice the forward's traffic
    b.push_back(around_the_ring(coll("cp_kv_dkv_ring", CollectiveKind::ALL_GATHER, 2.0 * kv_bytes, CommGroup::CP)));
  else if (cp)
    b.push_back(coll("cp_dkv_reduce_scatter", CollectiveKind::REDUCE_SCATTER, kv_bytes, CommGroup::CP));
  if (kv_copied > 0) b.push_back(mem("repeat_kv_bwd", kv_copied));
  if (rope_elements > 0) b.push_back(mem("rope_bwd", (eager ? eager::kRopeBwd : eager::kRopeFused) * rope_elements));
  if (fp8) {
    b.push_back(fp8_cast("qkv_dgrad", x.tokens * qkv_width));
    if (transposes) b.push_back(mem("fp8_transpose_qkv_in", 2.0 * x.tokens * x.h));
  }
  if (current) b.push_back(mem("fp8_amax_bwd", E * x.tokens * (x.h + fc1_out + x.h + qkv_width)));
  for (auto op = qkv_ops.rbegin(); op != qkv_ops.rend(); ++op)
    if (op->cls == OpClass::GEMM)
      gemm_backward(b, *op);
    else if (op->name.rfind("fp8_", 0) != 0)  // a latent's RMSNorm (a latent's FP8 cast has no backward)
      b.push_back(mem(op->name + "_bwd",
                      op->bytes.value * norm_bytes_per_element(sc, true) / norm_bytes_per_element(sc, false)));
  tp_in(b, x, "tp_attn_in_bwd", true, gathered_grad);
  b.push_back(mem("norm1_bwd", norm_bwd_bytes));

  // Without sequence parallelism (XLA's collective matmul on a torus, ops.hpp) the all-reduces
  // after the row-parallel GEMMs are pipelined with them, and the backward's beside the weight
  // gradients; the names of the other collectives match no op.
  if (sc.plan.tp_comm_overlap && x.t > 1) {
    const int64_t tp = sc.plan.tp;
    // (Where the pass has no such GEMM -- MLA's projections, an MoE layer's experts -- the
    // collective stays exposed.)
    auto overlap = [](std::vector<Op>& ops, const char* coll, const char* gemm, int64_t chunks) {
      if (std::none_of(ops.begin(), ops.end(), [&](const Op& o) { return o.name == gemm; })) return;
      for (Op& op : ops)
        if (op.name == coll) op.hidden_by = Op::HiddenBy::GEMM, op.overlaps = gemm, op.chunks = chunks;
    };
    overlap(f, "tp_attn_in", "qkv", tp);
    overlap(f, "tp_attn_out", "attn_proj", tp);
    overlap(f, "tp_mlp_in", "mlp_fc1", tp);
    overlap(f, "tp_mlp_out", "mlp_fc2", tp);
    overlap(b, "tp_mlp_out_bwd", "mlp_fc2_dgrad", tp);
    overlap(b, "tp_mlp_in_bwd", "mlp_fc1_wgrad", 1);
    overlap(b, "tp_attn_out_bwd", "attn_proj_dgrad", tp);
    overlap(b, "tp_attn_in_bwd", "qkv_wgrad", 1);
  }

  switch (sc.training.recompute) {
    case Recompute::NONE: break;
    case Recompute::FULL: p.recompute = p.forward; break;
    case Recompute::SELECTIVE:
      for (const auto& op : p.forward)
        if (recomputed(sc, op, act)) p.recompute.push_back(op);
      break;
    case Recompute::OP:
      // Every op but the matmuls, SDPA and reduce-scatters runs again: the memory-bound kernels and
      // the sequence-parallel all-gathers, then the recomputed matmuls (ops.hpp, "Recompute OP").
      // An all-gather run again has no GEMM of its own beside it in the recompute: it is exposed.
      for (const auto& op : p.forward)
        if (op.cls == OpClass::MEMORY && !op.attention_core) {
          p.recompute.push_back(op);
        } else if (op.cls == OpClass::COLLECTIVE && op.collective == CollectiveKind::ALL_GATHER &&
                   op.group == CommGroup::TP) {
          Op again = op;
          again.hidden_by = Op::HiddenBy::NOTHING, again.overlaps.clear(), again.chunks = 0;
          p.recompute.push_back(again);
        }
      for (const auto& mm : op_checkpoint_matmuls(sc))
        if (!mm.saved) p.recompute.push_back(gemm("recompute_" + mm.name, x.tokens, mm.out, mm.in, 1.0, false, linear));
      break;
  }
  return p;
}

PassOps embedding_ops(const Scenario& sc, int64_t micro_batch) {
  const Dims x = dims(sc, micro_batch);
  PassOps p;
  // Vocab-parallel lookup (+ learned positions for GPT), then the TP reduction and dropout.
  p.forward.push_back(mem("embedding", 3.0 * E * x.tokens * x.h));
  if (x.sp)
    sp_collective(p.forward, x, "tp_embedding", CollectiveKind::REDUCE_SCATTER, E * x.tokens * x.h);
  else if (x.t > 1)
    p.forward.push_back(coll("tp_embedding", CollectiveKind::ALL_REDUCE, E * x.tokens * x.h));
  // Dropout with p = 0 returns its input (ATen's dropout), so a model without dropout runs none.
  if (sc.model.dropout) p.forward.push_back(mem("embedding_dropout", x.tokens_sp * x.h * (2.0 * E + 1.0)));
  p.backward.push_back(mem("embedding_bwd", 3.0 * E * x.tokens * x.h));
  if (x.sp) sp_collective(p.backward, x, "tp_embedding_bwd", CollectiveKind::ALL_GATHER, E * x.tokens * x.h);
  return p;
}

PassOps output_ops(const Scenario& sc, int64_t micro_batch) {
  const Dims x = dims(sc, micro_batch);
  const double v = static_cast<double>(padded_vocab(sc)) / x.t;
  PassOps p;
  const bool eager = sc.training.loss == Elementwise::EAGER;
  p.forward.push_back(mem("final_norm", norm_bytes_per_element(sc, false) * x.tokens_sp * x.h));
  if (x.sp) sp_collective(p.forward, x, "tp_logits_in", CollectiveKind::ALL_GATHER, E * x.tokens * x.h);
  Op logits = gemm("logits", x.tokens, v, x.h, 1.0, false, math_precision(sc, false));
  p.forward.push_back(logits);
  // Vocab-parallel cross-entropy in fp32: read bf16 logits, write fp32, max/exp-sum passes over
  // fp32 and the loss; small TP all-reduces of per-token max, sum and target logit.
  // Eager (torchtitan's loss_fn): cross_entropy on the logits upcast to fp32.
  p.forward.push_back(mem("cross_entropy", x.tokens * v * (eager ? eager::kLossFwd : E + 4.0 + 8.0 + 4.0)));
  if (x.t > 1) p.forward.push_back(coll("tp_cross_entropy", CollectiveKind::ALL_REDUCE, 3.0 * 4.0 * x.tokens));
  p.backward.push_back(mem("cross_entropy_bwd", x.tokens * v * (eager ? eager::kLossBwd : 4.0 + E)));
  gemm_backward(p.backward, logits);
  if (x.t > 1 && !x.sp) p.backward.push_back(coll("tp_logits_bwd", CollectiveKind::ALL_REDUCE, E * x.tokens * x.h));
  if (x.sp) sp_collective(p.backward, x, "tp_logits_bwd", CollectiveKind::REDUCE_SCATTER, E * x.tokens * x.h);
  p.backward.push_back(mem("final_norm_bwd", norm_bytes_per_element(sc, true) * x.tokens_sp * x.h));
  return p;
}

PassOps mtp_ops(const Scenario& sc, int64_t micro_batch) {
  const Dims x = dims(sc, micro_batch);
  PassOps p;
  if (sc.model.mtp_layers == 0) return p;
  // DeepSeek-V3 §2.2: the previous depth's hidden state and the next token's embedding, each
  // RMSNorm'd (the lookup: read the rows, write them), concatenated and projected 2h -> h (a
  // column of Megatron's tensor-parallel linear: out h / tp), then one transformer layer of the
  // model's last layer's kind and the shared output head and loss.
  const double norm = norm_bytes_per_element(sc, false) * x.tokens_sp * x.h;
  const double norm_bwd = norm_bytes_per_element(sc, true) * x.tokens_sp * x.h;
  const bool fp8 = math_precision(sc, true) == Precision::FP8;
  Op proj = gemm("mtp_proj", x.tokens, x.h / x.t, 2.0 * x.h, 1.0, false, math_precision(sc, true));
  const int64_t last = sc.model.layers - 1;
  const PassOps layer = layer_ops(sc, micro_batch, sc.model.moe_layer(last), sc.model.windowed_layer(last));
  const PassOps head = output_ops(sc, micro_batch);
  p.forward = {mem("mtp_embedding", 2.0 * E * x.tokens * x.h), mem("mtp_norms", 2.0 * norm)};
  // In FP8 the projection casts its 16-bit input (the two norms' outputs, concatenated) and,
  // backward, its output gradient, as the layers' linear layers do.
  if (fp8) p.forward.push_back(fp8_cast_op(sc, "mtp_proj_in", x.tokens * 2.0 * x.h));
  p.forward.push_back(proj);
  p.forward.insert(p.forward.end(), layer.forward.begin(), layer.forward.end());
  p.forward.insert(p.forward.end(), head.forward.begin(), head.forward.end());
  p.backward = head.backward;
  p.backward.insert(p.backward.end(), layer.backward.begin(), layer.backward.end());
  if (fp8) p.backward.push_back(fp8_cast_op(sc, "mtp_proj_dgrad", x.tokens * x.h / x.t));
  gemm_backward(p.backward, proj);
  p.backward.push_back(mem("mtp_norms_bwd", 2.0 * norm_bwd));
  p.recompute = layer.recompute;
  return p;
}

std::vector<Op> optimizer_ops(const Scenario& s, double params, double sharded) {
  // Fused Adam reads the fp32 master weight, m and v and the gradient (4 + 2 M + g) and writes
  // weight, m, v and the bf16 copy (4 + 2 M + 2) per updated parameter, M = moment_bytes (4, or 2
  // with bf16 moments): 26 + g bytes in fp32; the gradient-norm pass reads every gradient and
  // zeroing the buffer writes it (2 g per held parameter), g = grad_bytes (4 with fp32 gradient
  // buffers, 2 with 16-bit ones).
  const double g = s.training.grad_bytes(), m = s.training.moment_bytes();
  return {mem("grad_norm_and_zero", 2.0 * g * params),
          mem("adam", (4.0 + 2.0 * m + g + 4.0 + 2.0 * m + 2.0) * sharded)};
}

std::vector<Op> fp8_weight_cast_ops(const Scenario& s, double linear_params) {
  if (s.training.precision != Precision::FP8) return {};
  // Transformer Engine casts each FP8 weight with its transpose once per step, at the first
  // microbatch (is_first_microbatch): read the bf16 weight, write 1 + 1 bytes (1 without the
  // transpose, fp8_transposes); current scaling reads it once more for its amax. With the primary
  // weights in FP8 (fp8_params) the optimizer writes them in FP8 and only the transpose is made:
  // read 1, write 1, or nothing.
  const bool transposes = fp8_transposes(s);
  if (s.training.fp8_params) {
    if (!transposes) return {};
    return {mem("fp8_weight_transpose", 2.0 * linear_params)};
  }
  // Blockwise weights take a scale per 128 x 128 block (not counted); MXFP8's per 32 elements.
  const double scales =
      s.training.fp8_scaling == Fp8Scaling::MXFP8 ? fp8_scale_bytes_per_element(Fp8Scaling::MXFP8) : 0;
  std::vector<Op> ops{mem(transposes ? "fp8_weight_cast_transpose" : "fp8_weight_cast",
                          fp8_cast_bytes(transposes, scales) * linear_params)};
  if (s.training.fp8_scaling == Fp8Scaling::CURRENT) ops.push_back(mem("fp8_weight_amax", E * linear_params));
  return ops;
}

bool fp8_transposes(const Scenario& s) {
  if (s.training.precision != Precision::FP8) return false;
  if (s.training.fp8_scaling == Fp8Scaling::MXFP8) return true;  // its column-wise copy
  return !(s.cluster.device.fp8_gemm_any_layout && fp8_library(s.training.fp8_library).transposes_only_for_tn_gemms);
}

Op gemm_piece(const Op& g, int64_t pieces) {
  const GemmShape& s = g.shape;
  return gemm(g.name, s.m / static_cast<double>(pieces), s.n, s.k, s.batch, g.attention_core, g.precision);
}

Flops sum_flops(const std::vector<Op>& ops) {
  Flops total;
  for (const auto& op : ops) total += op.flops;
  return total;
}

}  // namespace sim
