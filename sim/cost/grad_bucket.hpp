// A gradient bucket as its reduction carries it: the dense parameters' bytes, all-reduced over the
// data-parallel groups, and, under expert parallelism, the routed experts' bytes, all-reduced over
// the expert-data-parallel groups (sim/comm/ring_channels.hpp, grad_groups) -- Megatron-Core's
// DistributedDataParallel keeps the experts' gradients in buffers of their own, reduced over
// their own group. A bucket of a chunk holds its dense and expert parts in the chunk's proportion.
// `kind`: an all-reduce (the gradients; ZeRO-3's gathers and reductions once per step counted in
// all-reduces, ParallelPlan::reduction_passes), or ZeRO-3's per-microbatch all-gather of the
// weights or reduce-scatter of the gradients (ParallelPlan::shards_each_microbatch), whose bytes
// are then the gathered buffer's or the reduced one's.
#pragma once

#include "sim/core/units.hpp"
#include "sim/scenario/collective_names.hpp"

namespace sim {

struct GradBucket {
  GradBucket() = default;
  GradBucket(Bytes dense_bytes, Bytes expert_bytes = Bytes(0), CollectiveKind k = CollectiveKind::ALL_REDUCE)
      : dense(dense_bytes), expert(expert_bytes), kind(k) {}  // NOLINT: a bucket without experts
  Bytes dense, expert;
  CollectiveKind kind = CollectiveKind::ALL_REDUCE;
  double total() const { return dense.value + expert.value; }
  bool operator==(const GradBucket& o) const {
    return dense.value == o.dense.value && expert.value == o.expert.value && kind == o.kind;
  }
};

}  // namespace sim
