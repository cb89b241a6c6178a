#include "sim/workload/grad_sync.hpp"

#include <algorithm>

#include "sim/cost/compute_model.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/workload/memory.hpp"
#include "sim/workload/ops.hpp"
#include "sim/workload/pipeline.hpp"
#include "sim/workload/stage_layout.hpp"
#include "sim/workload/step_program.hpp"

namespace sim {
namespace {

// The data-parallel traffic per parameter in all-reduce bytes (ParallelPlan::reduction_passes).
double dp_bytes_per_param(const Scenario& s) { return s.training.grad_bytes() * s.plan.reduction_passes(); }

// What the overlapped buckets carry, per parameter: everything, in all-reduce bytes; or under ZeRO-1
// and 2, whose parameter all-gather is exposed (ParallelPlan::param_gather_exposed) or runs in the
// next forward (ParallelPlan::gathers_params_in_forward), the gradient's reduce-scatter alone, g
// bytes of it.
bool buckets_reduce_scatter(const Scenario& s) {
  return s.plan.param_gather_exposed() || s.plan.gathers_params_in_forward();
}
double bucket_bytes_per_param(const Scenario& s) {
  return buckets_reduce_scatter(s) ? s.training.grad_bytes() : dp_bytes_per_param(s);
}
CollectiveKind bucket_kind(const Scenario& s) {
  return buckets_reduce_scatter(s) ? CollectiveKind::REDUCE_SCATTER : CollectiveKind::ALL_REDUCE;
}

// The all-gather of the updated parameters, in their 16-bit type: 2 bytes per parameter
// (Megatron-Core's DistributedOptimizer gathers the bf16 parameters; FSDP its units in their
// param_dtype); with the primary weights in FP8 (TrainingSpec::fp8_params) the linear layers' in 1.
constexpr double PARAM_GATHER_BYTES = 2.0;
constexpr double FP8_PARAM_GATHER_BYTES = 1.0;

// Megatron-Core's default bucket: DistributedDataParallel, bucket_size = max(40000000, 1000000 *
// dp_size) parameters, dp_size the data-parallel group with context parallelism.
double megatron_bucket_params(const ParallelPlan& plan) {
  return std::max(40e6, 1e6 * static_cast<double>(plan.grad_group_size()));
}

// `bytes` of parameters of which `expert` of `params` are routed experts' (GradBucket): all dense
// without expert parallelism.
GradBucket split(const Scenario& s, double bytes, double expert, double params,
                 CollectiveKind kind = CollectiveKind::ALL_REDUCE) {
  if (s.plan.ep == 1 || expert <= 0 || params <= 0) return {Bytes(bytes), Bytes(0), kind};
  const double f = expert / params;
  return {Bytes(bytes * (1.0 - f)), Bytes(bytes * f), kind};
}

// Chunk `chunk` of rank `rank` as FSDP units, one per layer in model order, each `per_param` bytes
// per parameter of its GPU's share: the embedding, final norm and output layer's parameters (and
// the multi-token prediction modules') join the last layer's unit. With expert parallelism an MoE
// layer's unit is its dense part and the rank's experts, which FSDP shards over the
// expert-data-parallel ranks (ring_channels.hpp, grad_groups).
std::vector<GradBucket> layer_units(const Scenario& s, const StageLayout& layout, int64_t rank, int64_t chunk,
                                    double per_param, CollectiveKind kind = CollectiveKind::ALL_REDUCE) {
  const int64_t layers = layout.layers_of(rank, chunk);
  const double params = chunk_params(s, layout, rank, chunk);
  const double expert = chunk_routed_expert_params(s, layout, rank, chunk);
  const int64_t first = layout.first_layer(rank, chunk), ep = s.plan.ep, etp = s.plan.expert_tp();
  const double routed = ep > 1 ? s.model.routed_expert_params() / static_cast<double>(ep * etp) : 0.0;
  std::vector<GradBucket> out;
  double in_experts = 0;
  for (int64_t i = first; i < first + layers; ++i) {
    const bool moe = s.model.moe_layer(i);
    const double all = s.model.layer_params_per_rank(s.plan.tp, moe, ep, etp), experts = moe ? routed : 0.0;
    in_experts += experts;
    out.push_back({Bytes((all - experts) * per_param), Bytes(experts * per_param), kind});
  }
  const double in_layers = s.model.layers_params_per_rank(s.plan.tp, layout.dense_layers_of(rank, chunk),
                                                          layout.moe_layers_of(rank, chunk), ep, etp);
  const double rest_experts = ep > 1 ? expert - in_experts : 0.0;
  if (!out.empty()) {
    out.back().dense += Bytes((params - in_layers - rest_experts) * per_param);
    out.back().expert += Bytes(rest_experts * per_param);
  }
  return out;
}

// Each microbatch's sharded traffic (ParallelPlan::shards_each_microbatch): every forward gathers
// its units' weights, every backward gathers them again where they were resharded after the
// forward and reduce-scatters their gradients; each task then waits for its own traffic (the next
// one needs the weights, and the optimizer the reduced shards).
void add_microbatch_sharding(StepProgram& p, const Scenario& s, const StageLayout& layout) {
  const double gather = s.training.fp8_params ? FP8_PARAM_GATHER_BYTES : PARAM_GATHER_BYTES;
  const TaskKind reduces = p.splits_backward ? TaskKind::WEIGHT_GRAD : TaskKind::BACKWARD;
  for (Task& t : p.tasks) {
    const bool fwd = t.kind == TaskKind::FORWARD, bwd = t.kind == TaskKind::BACKWARD;
    if (!fwd && !bwd && t.kind != reduces) continue;
    if (fwd || (bwd && s.plan.reshards_after_forward())) {
      t.dp_gathers = layer_units(s, layout, t.rank, t.chunk, gather, CollectiveKind::ALL_GATHER);
      if (bwd) std::reverse(t.dp_gathers.begin(), t.dp_gathers.end());  // the backward's order
    }
    if (t.kind == reduces) {
      t.dp_buckets = layer_units(s, layout, t.rank, t.chunk, s.training.grad_bytes(), CollectiveKind::REDUCE_SCATTER);
      std::reverse(t.dp_buckets.begin(), t.dp_buckets.end());
    }
    if (!t.dp_gathers.empty()) t.dp_awaited = 1;
    t.dp_sync = true;
  }
}

// Chunk `chunk` of rank `rank` in Megatron-Core's buckets, `per_param` bytes a parameter, run as
// `kind`: the first chunk of the first rank in buckets of megatron_bucket_params, every other chunk
// as one.
std::vector<GradBucket> megatron_buckets(const Scenario& s, const StageLayout& layout, int64_t rank, int64_t chunk,
                                         double per_param, CollectiveKind kind) {
  const double params = chunk_params(s, layout, rank, chunk);
  const double expert = chunk_routed_expert_params(s, layout, rank, chunk);
  std::vector<GradBucket> out;
  if (params <= 0) return out;
  const double bucket = rank == 0 && chunk == 0 ? megatron_bucket_params(s.plan) : params;
  for (double left = params; left > 0; left -= bucket)
    out.push_back(split(s, std::min(bucket, left) * per_param, expert, params, kind));
  return out;
}

// The bytes a parameter of rank `rank` gathers: PARAM_GATHER_BYTES, its linear layers'
// FP8_PARAM_GATHER_BYTES with the primary weights in FP8.
double gathered_bytes(const Scenario& s, const StageLayout& layout, int64_t rank) {
  const double params = rank_params(s, layout, rank);
  if (!s.training.fp8_params) return params * PARAM_GATHER_BYTES;
  const double linear = rank_linear_params(s, layout, rank);
  return (params - linear) * PARAM_GATHER_BYTES + linear * FP8_PARAM_GATHER_BYTES;
}

// ZeRO-1/2 with the parameter all-gather overlapped (ParallelPlan::gathers_params_in_forward), a
// layer at a time (layer_units; Megatron-Core's buckets of max(40e6, 1e6 x dp) parameters are a
// layer's or less for the models that need sharding): the step's first forward waits for its
// chunk's first layer, launched as the step starts (the optimizer dispatches the first chunk's
// gathers), and prefetches the chunk's others and the next chunk's; the first forward of each
// later chunk waits for what is in flight (its own chunk's, prefetched) and launches the next
// chunk's (Megatron-LM's interleaved schedule dispatches a chunk's param_sync_func as the one
// before it starts, schedules.py forward_step_helper; Megatron-Core's forward pre-hook waits for a
// bucket's gather as the forward reaches it). With one chunk the forward ends no earlier than its
// gathers.
void add_forward_param_gathers(StepProgram& p, const Scenario& s, const StageLayout& layout) {
  for (int64_t r = 0; r < s.plan.pp; ++r) {
    const double params = rank_params(s, layout, r);
    if (params <= 0) continue;
    const double per_param = gathered_bytes(s, layout, r) / params;
    const auto gathers = [&](int64_t c) {
      return c < layout.virtual_stages ? layer_units(s, layout, r, c, per_param, CollectiveKind::ALL_GATHER)
                                       : std::vector<GradBucket>{};
    };
    for (int64_t c = 0; c < layout.virtual_stages; ++c)
      for (auto& slot : p.ranks[static_cast<size_t>(r)]) {
        const Task& t = p.tasks[static_cast<size_t>(slot.task)];
        if (t.kind != TaskKind::FORWARD || t.chunk != c) continue;
        Task first = t;  // this microbatch alone waits and gathers: a task of its own
        first.dp_gathers = c == 0 ? gathers(0) : std::vector<GradBucket>{};
        first.dp_awaited = std::min<size_t>(first.dp_gathers.size(), 1);
        first.dp_sync = layout.virtual_stages == 1;
        for (GradBucket& b : gathers(c + 1)) first.dp_gathers.push_back(b);
        p.tasks.push_back(std::move(first));
        slot.task = static_cast<int64_t>(p.tasks.size()) - 1;
        break;
      }
  }
}

}  // namespace

std::vector<GradBucket> grad_buckets(const Scenario& s, const StageLayout& layout, int64_t rank, int64_t chunk) {
  if (!s.plan.overlap_grad_reduce || s.plan.grad_group_size() < 2) return {};
  const double per_param = bucket_bytes_per_param(s);
  if (s.plan.zero == 3) return layer_units(s, layout, rank, chunk, per_param);
  return megatron_buckets(s, layout, rank, chunk, per_param, bucket_kind(s));
}

void add_gradient_sync(StepProgram& p, const Scenario& s, const StageLayout& layout, const ComputeModel& cm) {
  const int64_t pp = s.plan.pp;
  const double tp = static_cast<double>(s.plan.tp);
  const double grad_bytes = s.training.grad_bytes();

  // Tied embeddings over a pipeline: the first and last ranks each hold the word embedding and
  // all-reduce its gradient between them once backward is done (Megatron-LM
  // _allreduce_word_embedding_grads). Two ranks: each sends its whole buffer to the other.
  if (pp > 1 && s.model.tied_embeddings) {
    const Bytes buffer(static_cast<double>(padded_vocab(s)) * double(s.model.hidden) / tp * grad_bytes);
    const auto last_first = static_cast<int64_t>(p.ranks.front().size()) - 1;
    const auto last_last = static_cast<int64_t>(p.ranks.back().size()) - 1;
    for (int64_t r : {int64_t{0}, pp - 1}) {
      Task t;
      t.kind = TaskKind::EMBEDDING_SYNC;
      t.rank = r;
      append_task(p, r, t, r == 0 ? pp - 1 : 0, r == 0 ? last_last : last_first, buffer);
    }
  }

  // Two model copies (DualPipe): rank r holds the stages rank pp-1-r holds, of the other copy; once
  // backward is done each sends the other its gradients, which each adds to its own
  // (deepseek-ai/DualPipe examples/example_dualpipe.py: the copies' gradients summed across the
  // pair before the optimizer).
  if (layout.copies == 2) {
    const int64_t units = p.units_per_rank();
    for (int64_t r = 0; r < pp; ++r) {
      Task t;
      t.kind = TaskKind::COPY_SYNC;
      t.rank = r;
      append_task(p, r, t, pp - 1 - r, units - 1, Bytes(rank_params(s, layout, r) * grad_bytes));
    }
  }

  const bool overlap = s.plan.overlap_grad_reduce && s.plan.grad_group_size() > 1;
  const bool microbatches = overlap && s.plan.shards_each_microbatch();
  if (microbatches) {
    add_microbatch_sharding(p, s, layout);
  } else if (overlap) {
    // The last backward of each chunk in program order (its last weight-gradient unit, where the
    // schedule splits the backward) carries that chunk's buckets: one per layer, the embedding or
    // output layer joining the chunk that holds it.
    const TaskKind fills = p.splits_backward ? TaskKind::WEIGHT_GRAD : TaskKind::BACKWARD;
    for (int64_t r = 0; r < pp; ++r)
      for (int64_t c = 0; c < layout.virtual_stages; ++c) {
        auto& program = p.ranks[static_cast<size_t>(r)];
        for (auto it = program.rbegin(); it != program.rend(); ++it) {
          const Task& t = p.tasks[static_cast<size_t>(it->task)];
          if (t.kind != fills || t.chunk != c) continue;
          Task last = t;  // this unit alone carries the buckets: a task of its own
          last.dp_buckets = grad_buckets(s, layout, r, c);
          p.tasks.push_back(std::move(last));
          it->task = static_cast<int64_t>(p.tasks.size()) - 1;
          break;
        }
      }
    if (s.plan.gathers_params_in_forward()) add_forward_param_gathers(p, s, layout);
  }

  for (int64_t r = 0; r < pp; ++r) {
    const double params = rank_params(s, layout, r);
    const double sharded = s.plan.zero >= 1 ? rank_sharded_params(s, layout, r) : params;
    const double linear = rank_linear_params(s, layout, r);
    if (s.plan.grad_group_size() > 1) {
      Task t;
      t.kind = TaskKind::DP_REDUCE;
      t.rank = r;
      const double gathered = gathered_bytes(s, layout, r);
      const double expert = rank_routed_expert_params(s, layout, r);
      t.dp_bytes = microbatches                    ? GradBucket{}
                   : !overlap                      ? split(s, params * dp_bytes_per_param(s), expert, params)
                   : s.plan.param_gather_exposed() ? split(s, gathered, expert, params, CollectiveKind::ALL_GATHER)
                                                   : GradBucket{};
      append_task(p, r, t);
    }
    Task opt;
    opt.kind = TaskKind::OPTIMIZER;
    opt.rank = r;
    for (const auto& op : optimizer_ops(s, params, sharded)) opt.compute += cm.memory_op(op.bytes);
    // Transformer Engine casts the FP8 weights at the step's first microbatch; priced here, once.
    for (const auto& op : fp8_weight_cast_ops(s, linear)) opt.compute += cm.memory_op(op.bytes);
    opt.elementwise = opt.compute;
    append_task(p, r, opt);
  }
}

}  // namespace sim
