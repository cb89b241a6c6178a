// A gradient bucket as its reduction carries it: the dense parameters' bytes, all-reduced over the
// data-parallel groups, and, under expert parallelism, the routed experts' bytes, all-reduced over
// the expert-data-parallel groups (sim/comm/ring_channels.hpp, grad_groups) -- Megatron-Core's
// DistributedDataParallel keeps the experts' gradients in buffers of their own, reduced over
// their own group. A bucket of a chunk holds its dense and expert parts in the chunk's proportion.
#pragma once

#include "sim/core/units.hpp"

namespace sim {

struct GradBucket {
  GradBucket() = default;
  GradBucket(Bytes dense_bytes, Bytes expert_bytes = Bytes(0))
      : dense(dense_bytes), expert(expert_bytes) {}  // NOLINT: a bucket without experts
  Bytes dense, expert;
  double total() const { return dense.value + expert.value; }
  bool operator==(const GradBucket& o) const { return dense.value == o.dense.value && expert.value == o.expert.value; }
};

}  // namespace sim
