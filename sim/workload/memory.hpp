// Per-GPU memory of a plan, per pipeline rank: weights, gradients, optimizer states and
// activations, against the device memory left to the allocator (memory_budget.hpp).
//
// Weights and gradients: the parameters held by one GPU (its layers sharded by tp, plus the
// embedding on the first rank and the output layer on the last when untied or when pp > 1), in
// the training precision (2 bytes) with fp32 gradient accumulation buffers (4 bytes, Megatron's
// main_grad) and fp32 master weights + Adam moments (4 + 4 + 4 bytes) -- 18 bytes per parameter
// in total before sharding (Rajbhandari et al. 2020 "ZeRO" §3.1: 2 + 2 + 12 with fp16 grads; the
// fp32 grad buffer of Megatron makes it 2 + 4 + 12). ZeRO stage 1 shards the optimizer states over
// dp, stage 2 also the gradients, stage 3 also the weights.
//
// Activations: Korthikanti et al. 2022 Table 2, per layer per microbatch, bytes:
//   no recompute, TP only:        s*b*h*(10 + 24/t + 5*a*s/(h*t))
//   no recompute, TP + SP:        s*b*h*(34/t + 5*a*s/(h*t))
//   selective recompute, TP:      s*b*h*(10 + 24/t)
//   selective recompute, TP + SP: s*b*h*34/t
//   full recompute:               2*s*b*h (with SP: 2*s*b*h/t)
// (s sequence length / cp, b micro batch, h hidden, a heads, t tp). A 1F1B pipeline rank r keeps
// min(pp - r, m) microbatches in flight; the interleaved schedule multiplies the first rank's by
// (1 + (pp-1)/(pp*v)) (Korthikanti §4.2.3); GPipe keeps all m.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/units.hpp"

namespace sim {

struct Scenario;
struct StageLayout;

// Parameters held by one GPU of chunk `chunk` of pipeline rank `rank`: its layers' (over tp), the
// vocabulary-padded word embedding (and GPT's learned positions) with the first chunk, the final
// norm and the output layer (the tied embedding's copy when pp > 1) with the last. The one count
// of them: memory, the gradient reduction and the optimizer step use it.
double chunk_params(const Scenario& s, const StageLayout& layout, int64_t rank, int64_t chunk);
double rank_params(const Scenario& s, const StageLayout& layout, int64_t rank);
// Of those, the linear layers' (over tp): the parameters an FP8 run casts, keeps and gathers in FP8.
double rank_linear_params(const Scenario& s, const StageLayout& layout, int64_t rank);
// Of those, the routed experts' (over tp and ep): under expert parallelism they are sharded and
// reduced over the expert-data-parallel ranks, dp x cp / ep, the rest over dp x cp.
double chunk_routed_expert_params(const Scenario& s, const StageLayout& layout, int64_t rank, int64_t chunk);
double rank_routed_expert_params(const Scenario& s, const StageLayout& layout, int64_t rank);
// What ZeRO shards of a rank's parameters (its optimizer states from stage 1, its gradients from
// 2): the dense ones over ParallelPlan::shard_group_size() ranks, the routed experts' over 1 / ep of
// them (Megatron-Core's distributed optimizer over the expert-data-parallel group). Each rank's
// share is then the same at any ep: the stage's experts, all of them, over dp x cp.
double rank_sharded_params(const Scenario& s, const StageLayout& layout, int64_t rank);

struct StageMemory {
  int64_t rank = 0;
  Bytes weights, grads, optimizer, activations;
  // What the stage's peak needs beyond what it keeps: an eager loss's backward, FSDP's gathered
  // units (memory.cpp).
  Bytes workspace;
  // Of the weights and gradients, what is allocated and freed within each step: ZeRO-3's weights
  // gathered from forward to backward, gradients accumulated unsharded until one reduce-scatter.
  Bytes transient_states;
  Bytes total() const { return weights + grads + optimizer + activations + workspace; }
  // What is allocated and freed within the step, where the caching allocator fragments (memory.cpp).
  Bytes transient() const { return activations + workspace + transient_states; }
};

struct MemoryEstimate {
  std::vector<StageMemory> stages;  // one per pipeline rank
  Bytes peak;                       // max over stages of total(): what is allocated at the peak
  // The peak as the runtime's allocator reserves it from the device, the most of any stage
  // (memory.cpp): PyTorch's caching allocator holds freed blocks of the step's transient tensors it
  // cannot reuse beside the allocated ones, which is what
  // torch.cuda.max_memory_reserved() and torchtitan's logged "memory" report. XLA assigns its
  // buffers before the step runs: there it is the peak.
  Bytes reserved;
  Bytes capacity;  // device HBM
  // What the device leaves the allocator, and the verdict (memory_budget.hpp, one rule for every
  // command): the reserved peak within `usable`, else `over` by reserved - usable (0 when it fits).
  Bytes cuda_context, nccl_buffers, usable, over;
  bool fits = false;
};

// Bytes of activations one transformer layer keeps for one microbatch (Table 2 above): a dense
// layer, or an MoE one (`moe_layer`, where the model has them).
Bytes layer_activation_bytes(const Scenario& s, int64_t micro_batch, bool moe_layer = false);
// Of one layer's activations per micro-batch, the bytes its offload_modules copy to host memory in
// the forward and back in the backward (none without them); layer_activation_bytes keeps the rest.
Bytes layer_offloaded_bytes(const Scenario& s, int64_t micro_batch, bool moe_layer = false);

MemoryEstimate estimate_memory(const Scenario& s, const StageLayout& layout, int64_t micro_batch);

// The model state a checkpoint for a full restart saves: the weights in the training precision
// and the fp32 master weights and Adam moments, 2 + 12 = 14 bytes per parameter (the gradients are
// not saved). BLOOM-176B's 2.3 TB checkpoints are 13 bytes per parameter (decimal; 14 B/param is
// 2.24 TiB): BigScience's tr11-176B-ml README, "each checkpoint with fp32 optim states and
// bf16+fp32 weights is 2.3TB".
Bytes checkpoint_bytes(const Scenario& s);

}  // namespace sim
