// The kernels and tensor-parallel collectives of one transformer layer, the embedding, the output
// layer + loss and the optimizer step, for one microbatch on one GPU (shapes already divided by
// tp, sequence by cp).
//
// FLOPs count matrix multiplies only (2 per multiply-add), the convention of Narayanan et al.
// 2021 Eq. 3 and Korthikanti et al. 2022 App. A, so summed model FLOPs match those closed forms;
// norms, softmax and elementwise kernels are charged by the bytes they move (bf16 = 2 bytes).
// Attention is either Megatron's unfused path (two batched GEMMs around a fused scale-mask-softmax
// and a dropout, as in the published A100 runs) or one FlashAttention kernel per pass, which
// executes half the score FLOPs of a causal mask and 2.5x the forward's in backward (the
// FlashAttention benchmark convention) and moves only Q, K, V, O and their gradients.
// FP8 (precision "fp8"): the transformer layers' linear layers (QKV, projection, MLP; forward,
// input gradient and weight gradient) run in FP8, everything else in bf16 -- the attention core
// (Transformer Engine's DotProductAttention runs in bf16 unless FP8 attention is asked for, and
// torchtitan's float8 converts nn.Linear modules only) and the output layer (Megatron's output
// layer is a tensor_parallel.ColumnParallelLinear, not a Transformer Engine module; torchtitan's
// float8 recipes set filter_fqns = ["output"]). An FP8 GEMM reads 1-byte operands.
// FP8 casts, as Transformer Engine's LayerNormLinear and Linear run them under Megatron-Core with
// delayed scaling (transformer_engine/pytorch/module/*.py; amax is taken inside each cast kernel):
// the norms before QKV and fc1 write FP8 outputs; the attention output and the MLP activation,
// which Megatron-Core's MLP computes in 16 bits before its fc2 (megatron/core/transformer/mlp.py:
// bias_swiglu_impl, then linear_fc2; llm-foundry's te.Linear and torchao's Float8Linear cast the
// same inputs), are cast with their transposes (fp8_cast_transpose_fused); in backward each
// linear layer's output gradient is cast with its transpose (fp8_cast_transpose_bgrad_fused), and
// the saved FP8 inputs of QKV and fc1 are transposed for the weight gradients (fp8_transpose);
// each weight is cast with its transpose once per step (fp8_weight_cast_ops). Where the FP8 GEMM
// takes any layout (Blackwell) and the library knows it (fp8_transposes), each cast writes the
// FP8 tensor alone and nothing is transposed. Transformer
// Engine's own LayerNormMLP, which fuses the activation with fc2's cast, is not modelled.
// Current scaling (training.fp8_scaling "current"; torchao's dynamic tensorwise Float8Linear, as
// torchtitan runs it, and Transformer Engine's Float8CurrentScaling) reads each tensor it casts
// once more for its amax before the cast (ops.cpp). The FP8 weight copies' memory is memory.cpp's
// (fp8_weight_bytes). Not modelled: the per-step amax-history and scale update (one small fused
// kernel).
// TP communication overlap (parallelism.tp_comm_overlap, sequence parallel only), as Transformer
// Engine's userbuffers run it under Megatron-Core's --tp-comm-overlap: the all-gather before QKV
// and fc1 and the reduce-scatter after the projection and fc2 are split into tp pieces pipelined
// with their GEMM (forward; and in backward the output gradient's all-gather with the projection's
// and fc2's input-gradient GEMMs); the backward's reduce-scatters of the QKV and fc1 input
// gradients run in bulk beside those layers' weight-gradient GEMMs (TE's ub_split_ag/ub_split_rs,
// ub_bulk_wgrad). A split GEMM runs as tp pieces of its rows, each on the GEMM curve (so the
// curve's ramp is paid tp times, gemm_piece); the communication's SM use is not charged.
// On a torus the runtime is XLA's (ScaleUp::overlaps_tp_without_sp): without sequence parallelism
// the all-reduces after the projection and fc2 are pipelined in tp pieces with those GEMMs, and
// the backward's after the QKV and fc1 input gradients run beside their weight gradients -- the
// same pieces as the reduce-scatters above (an all-reduce carries a reduce-scatter's traffic and
// an all-gather's, and the decomposition hides both: Wang et al., ASPLOS 2023).
// Context parallelism: each GPU holds s/cp queries (two chunks of 2cp, the causal load balancing
// Megatron-Core and Llama 3 use) that attend to all s keys. With cp_comm "all_gather" (Llama 3)
// the other ranks' keys and values are gathered over the cp group before attention and their
// gradients reduce-scattered after it, exposed. With "p2p" (Megatron-Core's default, Transformer
// Engine's AttnFuncWithCPAndKVP2P) they travel around the cp ring block by block, each transfer
// beside attention on the block before: the forward passes the key/value blocks (the all-gather's
// traffic), the backward passes them again with their gradients (twice that), each pass hidden by
// the pass's attention kernels where those are longer (pipeline.hpp, exposed()); each step's
// kernel runs on a block of s/cp queries and keys, and its efficiency is read at that length.
#pragma once

#include <string>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/cost/collective.hpp"
#include "sim/cost/compute_model.hpp"

namespace sim {

struct Scenario;

enum class OpClass { GEMM, MEMORY, COLLECTIVE, FLASH_ATTENTION };

struct Op {
  std::string name;
  OpClass cls = OpClass::GEMM;
  Flops flops;  // matmul FLOPs, as the model-FLOPs convention counts them
  // FLASH_ATTENTION: what the kernel executes (causal skips half); GEMM: where it is duplicated on
  // every tensor-parallel rank, what each runs (`flops` its 1/tp share of the model's), else 0.
  Flops executed;
  double seq_len = 0;                   // FLASH_ATTENTION: keys per query
  double head_dim = kReferenceHeadDim;  // FLASH_ATTENTION: the kernel's head dimension (padded)
  Attention kernel = Attention::FLASH;  // FLASH_ATTENTION: which fused kernel (attention_kernels.hpp)
  bool backward = false;                // FLASH_ATTENTION: the backward kernel
  GemmShape shape;                      // GEMM only
  Bytes bytes;                          // HBM traffic (kernels) or the collective's buffer
  CollectiveKind collective = CollectiveKind::ALL_REDUCE;
  CommGroup group = CommGroup::TP;
  bool attention_core = false;            // recomputed under selective recompute
  bool weight_grad = false;               // a weight-gradient GEMM (dW = X^T dY)
  Precision precision = Precision::BF16;  // GEMM, FLASH_ATTENTION: the type the math runs in
  // COLLECTIVE: the kernels that run beside it and hide it, and how (pipeline.hpp,
  // CollectiveUse::chunks): under tp_comm_overlap the GEMM of the same list named `overlaps`;
  // context parallel's ring, every attention-core kernel of the pass.
  enum class HiddenBy { NOTHING, GEMM, ATTENTION_CORE };
  HiddenBy hidden_by = HiddenBy::NOTHING;
  std::string overlaps;  // HiddenBy::GEMM: the GEMM's name
  int64_t chunks = 0;
  bool ring = false;  // context parallel's ring (pipeline.hpp, CollectiveUse::ring)
};

struct PassOps {
  std::vector<Op> forward;
  std::vector<Op> backward;   // without recompute
  std::vector<Op> recompute;  // run before `backward` under the scenario's recompute setting
};

// Vocabulary padded to a multiple of 128 * tp, as Megatron-LM pads it.
int64_t padded_vocab(const Scenario& s);

// One transformer layer; `moe_layer`: its MLP is the model's mixture of experts (ModelSpec::moe_layer;
// ignored for a model without one), else dense; `windowed`: its attention slides over the model's
// sliding_window (ModelSpec::windowed_layer). Multi-head latent attention where the model has it.
PassOps layer_ops(const Scenario& s, int64_t micro_batch, bool moe_layer = false, bool windowed = false);

// Of a layer's attention-score pairs under the convention that counts every query against every key
// (s x s_kv), the share a causal sliding window of w keys computes, twice over (so that half of it,
// the causal convention, is the pairs the window holds): query i sees min(i + 1, w) keys, in all
// w s - w (w - 1) / 2 for s >= w; 1 (a whole causal layer) when the window spans the sequence.
double sliding_window_share(double s, double w);

// Recompute OP, torchtitan's per-op selective activation checkpointing
// (torchtitan/distributed/activation_checkpoint.py, _apply_op_sac; selective_ac_option "op"): in
// each transformer block it saves the outputs of matmuls, SDPA and reduce-scatters, "except every
// second mm" (a counter per block and pass), and recomputes everything else in the backward. A
// block's matmuls in the order its forward runs them (torchtitan's Llama: wq, wk, wv, wo, then w1,
// w3, w2 -- w2(silu(w1(x)) * w3(x)); without a gate: w1, w2), with their output and input widths
// per token on one tensor-parallel rank; `saved` for the 1st, 3rd, 5th ... and recomputed for the
// others. The row-parallel wo and w2 give the whole hidden width (partial sums before their
// reduce-scatter).
struct BlockMatmul {
  std::string name;
  double out = 0, in = 0;
  bool saved = false;
};
std::vector<BlockMatmul> op_checkpoint_matmuls(const Scenario& s);
PassOps embedding_ops(const Scenario& s, int64_t micro_batch);
PassOps output_ops(const Scenario& s, int64_t micro_batch);  // final norm, logits, cross-entropy
// The multi-token prediction modules' ops, one module's (ModelSpec::mtp_layers; none without): on
// the stage that holds the output layer.
PassOps mtp_ops(const Scenario& s, int64_t micro_batch);
// Adam step over `params` parameters held by this GPU, `sharded` of which it updates (ZeRO).
std::vector<Op> optimizer_ops(const Scenario& s, double params, double sharded);
// Under FP8, the once-per-step cast of the `linear_params` FP8 weights this GPU holds; else none.
std::vector<Op> fp8_weight_cast_ops(const Scenario& s, double linear_params);
// Whether an FP8 run makes the transposed FP8 copies its GEMMs read (the device's FP8 GEMM takes
// only "TN" operands, or its library makes them everywhere: fp8_library.hpp), or MXFP8's
// column-wise copies (fp8_scaling.hpp); false without FP8.
bool fp8_transposes(const Scenario& s);

// One of `pieces` pieces of a GEMM split along its rows (the tokens), as tp_comm_overlap runs a
// GEMM beside its collective: each piece reads the whole weight.
Op gemm_piece(const Op& gemm, int64_t pieces);

Flops sum_flops(const std::vector<Op>& ops);

}  // namespace sim
