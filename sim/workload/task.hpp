// A task of a training step: a chunk's forward or backward for one microbatch (or, where the
// schedule splits the backward, its input gradients and, as a task of its own, its weight
// gradients), the exchange of the
// tied word-embedding gradients between the first and last pipeline ranks, the exchange of the two
// model copies' gradients (DualPipe: rank r's with rank pp-1-r's), the data-parallel
// gradient reduction, or the optimizer step, with what it costs (its kernels' times, FLOPs, the
// collectives between its kernels and the gradient buckets it starts reducing).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/cost/collective.hpp"
#include "sim/cost/grad_bucket.hpp"

namespace sim {

enum class TaskKind { FORWARD, BACKWARD, WEIGHT_GRAD, EMBEDDING_SYNC, COPY_SYNC, DP_REDUCE, OPTIMIZER };
const char* to_string(TaskKind k);

// A tensor- or context-parallel collective a task performs `count` times, between its kernels
// or, under tp_comm_overlap, overlapped with the GEMM beside it (`hidden`, that GEMM's time):
// pipelined in `chunks` pieces (userbuffers' split all-gather / reduce-scatter: chunks = tp), or
// in bulk (chunks = 1: the backward's reduce-scatter beside the weight-gradient GEMM).
struct CollectiveUse {
  CommGroup group = CommGroup::TP;
  CollectiveKind kind = CollectiveKind::ALL_REDUCE;
  Bytes bytes;
  int64_t count = 0;
  Seconds hidden;      // the GEMM it overlaps; zero when not overlapped
  int64_t chunks = 0;  // 0: not overlapped; 1: bulk; n >= 2: pipelined in n pieces
  bool ring = false;   // context parallel's ring (cp_comm p2p): n = cp steps, the first one local
  // In bulk beside a computation whose kernels lose this fraction of the SMs to its kernels while
  // it runs (DispatcherEntry::sms, a DualPipe pair): the computation is slowed by as much.
  double sm_share = 0;
};

// What one run of `use` adds to its task when the collective alone takes `cost`: all of it when
// not overlapped; in bulk, what the GEMM does not cover, max(0, C - G), or, where the collective
// holds a share f of the SMs (sm_share), max(f C, C - G): the GEMM runs at 1 - f of its rate while
// the collective runs, and when C > G / (1 - f) the collective is the longer; pipelined in n pieces, the
// first piece and what the GEMM's pieces do not cover, C/n + (n-1)/n max(0, C - G); around a ring
// of n = cp ranks, where each rank starts on its own block and each of the n - 1 transfers runs
// beside attention on one block, (n-1) max(0, C/(n-1) - G/n).
Seconds exposed(const CollectiveUse& use, Seconds cost);

struct Task {
  TaskKind kind = TaskKind::FORWARD;
  int64_t rank = 0, chunk = 0, microbatch = 0;
  Seconds compute;      // GEMMs and memory-bound kernels: the sum of the four below
  Seconds gemm;         // linear layers (QKV, projection, MLP, logits)
  Seconds attention;    // the attention core (score matmuls, softmax, dropout; or FlashAttention)
  Seconds elementwise;  // norms, activations, residuals, embedding, loss, optimizer
  Seconds host_wait;    // the GPU waiting for the host: to launch the task's kernels (cost/host_launch.hpp), or
                        // for its offloaded activations over the host link (offload_modules.hpp)
  Flops model_flops, hardware_flops;
  // The model FLOPs as DeepSeek and Megatron-Bridge count them: the attention core's over the causal
  // half of the square, the main model's alone (multi-token prediction modules not counted).
  Flops causal_flops;
  std::vector<CollectiveUse> collectives;  // TP and CP collectives, run between the task's kernels
  GradBucket dp_bytes;                     // DP_REDUCE: the gradient buffer all-reduced over dp (0 when overlapped)
  // overlap_grad_reduce: gradient buckets (grad_sync.hpp, grad_buckets) whose all-reduce over dp
  // starts as this task's compute passes each of them (bucket_ready); the rank's DP_REDUCE task
  // then waits for them.
  std::vector<GradBucket> dp_buckets;
  // Weight all-gathers over dp launched as the task starts, in order on the rank's data-parallel
  // channel: ZeRO-3 each microbatch (ParallelPlan::shards_each_microbatch) the task's units' (its
  // dp_buckets then their gradients' reduce-scatters); ZeRO-1/2 overlapped
  // (ParallelPlan::gathers_params_in_forward) the next chunk's parameters, prefetched by the first
  // forward of this one. `dp_awaited`: the kernels start once the rank's data-parallel traffic
  // launched before the task and the first *dp_awaited of these gathers have arrived (FSDP's first
  // unit of a pass waits for its own gather; Megatron-Core's forward pre-hook for its bucket's);
  // nullopt: they do not wait. `dp_sync`: the task ends no earlier than its gathers and buckets.
  std::vector<GradBucket> dp_gathers;
  std::optional<size_t> dp_awaited;
  bool dp_sync = false;
};

// Per gradient bucket k of task t, the fraction of its compute after which the bucket is ready:
// the backward fills the buckets in order, in proportion to the parameters (hence bytes) behind
// each. All at once: a task of ZeRO-3 has a bucket per layer, and there may be 10^5 of them.
std::vector<double> bucket_ready(const Task& t);

}  // namespace sim
