// The task graph of one training step for the rank classes of a plan: one class per pipeline
// rank (all tp x dp x cp ranks of a pipeline rank do identical work at equivalent positions).
//
// Vertices are tasks (a chunk's forward or backward for one microbatch, the exchange of the tied
// word-embedding gradients between the first and last pipeline ranks, the data-parallel gradient
// reduction, the optimizer step); edges are PROGRAM order on one rank and DATA
// dependencies between ranks (activations forward, gradients backward), which carry the bytes a
// GPU sends. `program[r]` lists rank r's tasks in execution order, as the schedule (GPipe, 1F1B,
// interleaved 1F1B of Narayanan et al. 2021 §2.2) issues them.
#pragma once

#include <boost/graph/adjacency_list.hpp>
#include <cstdint>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/cost/collective.hpp"

namespace sim {

struct Scenario;
struct StageLayout;
class ComputeModel;
class CommCosts;

enum class TaskKind { FORWARD, BACKWARD, EMBEDDING_SYNC, DP_REDUCE, OPTIMIZER };
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
};

// What one run of `use` adds to its task when the collective alone takes `cost`: all of it when
// not overlapped; in bulk, what the GEMM does not cover, max(0, C - G); pipelined in n pieces, the
// first piece and what the GEMM's pieces do not cover, C/n + (n-1)/n max(0, C - G); around a ring
// of n = cp ranks, where each rank starts on its own block and each of the n - 1 transfers runs
// beside attention on one block, (n-1) max(0, C/(n-1) - G/n).
Seconds exposed(const CollectiveUse& use, Seconds cost);

struct Task {
  TaskKind kind = TaskKind::FORWARD;
  int64_t rank = 0, chunk = 0, microbatch = 0;
  Seconds compute;      // GEMMs and memory-bound kernels: the sum of the three below
  Seconds gemm;         // linear layers (QKV, projection, MLP, logits)
  Seconds attention;    // the attention core (score matmuls, softmax, dropout; or FlashAttention)
  Seconds elementwise;  // norms, activations, residuals, embedding, loss, optimizer
  Flops model_flops, hardware_flops;
  std::vector<CollectiveUse> collectives;  // TP and CP collectives, run between the task's kernels
  Bytes dp_bytes;                          // DP_REDUCE: the gradient buffer all-reduced over dp (0 when overlapped)
  // overlap_grad_reduce: gradient buckets (grad_sync.hpp, grad_buckets) whose all-reduce over dp
  // starts as this task's compute passes each of them (bucket_ready); the rank's DP_REDUCE task
  // then waits for them.
  std::vector<Bytes> dp_buckets;
};

// Per gradient bucket k of task t, the fraction of its compute after which the bucket is ready:
// the backward fills the buckets in order, in proportion to the parameters (hence bytes) behind
// each. All at once: a task of ZeRO-3 has a bucket per layer, and there may be 10^5 of them.
std::vector<double> bucket_ready(const Task& t);

enum class EdgeKind { PROGRAM, DATA };
struct Dependency {
  EdgeKind kind = EdgeKind::PROGRAM;
  Bytes bytes;  // DATA: what each GPU of the sending rank sends to its peer
};

using TaskGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, Task, Dependency>;
using TaskId = TaskGraph::vertex_descriptor;

struct Pipeline {
  TaskGraph graph;
  std::vector<std::vector<TaskId>> program;  // per pipeline rank, in issue order
  int64_t microbatches = 0;
  int64_t micro_batch = 0;
  int64_t virtual_stages = 1;
};

// Builds the step's task graph; `micro_batch` and the layout's virtual stages are resolved values.
Pipeline build_pipeline(const Scenario& s, const StageLayout& layout, int64_t micro_batch, const ComputeModel& cm);

// A lower bound on the step time the closed-form estimate (estimate.hpp) gives the graph that
// build_pipeline would build, from the tasks' prices alone (no graph). With T(r,c) a task's time
// as the estimate counts it (compute plus exposed TP/CP collectives): every pipeline rank r runs
// its 2 x m x v tasks one after another; its first task (chunk 0's forward of microbatch 0) waits
// for that forward on every earlier rank and each transfer between them; and after its last task
// (chunk 0's backward of the last microbatch, in every schedule here) that backward still runs on
// every earlier rank, transfers included: step >= max_r [sum_{j<r} (F(j,0) + p2p) + m sum_c
// (F(r,c) + B(r,c)) + sum_{j<r} (B(j,0) + p2p)]; bucket waits, the gradient reduction and the
// optimizer left out. For 1F1B on equal stages and free transfers it is (m + pp - 1)(F + B), the
// classic bubble (Narayanan et al. 2021 §2.2). The planner and search skip building the graphs of
// candidates whose bound cannot beat what they have.
Seconds step_lower_bound(const Scenario& s, const StageLayout& layout, int64_t micro_batch, const ComputeModel& cm,
                         const CommCosts& comm);

// Bytes of the activation (or its gradient) one GPU sends between adjacent stages per microbatch:
// b*s*h*2, divided by tp (Megatron's scatter/gather optimisation, or sequence parallelism).
Bytes p2p_bytes(const Scenario& s, int64_t micro_batch);

// The buffers each of the `pp` pipeline ranks reduces over data parallel: its gradient buckets and
// its reduction buffers, zeros left out.
std::vector<std::vector<Bytes>> dp_buffers(const Pipeline& p, int64_t pp);

}  // namespace sim
