// Closed-form communication costs of a plan on an idle network: the tensor-parallel collectives,
// the pipeline's point-to-point transfers and the data-parallel gradient reduction, from the
// placement (which tier a group spans) and NCCL's alpha-beta model (sim/cost/collective.hpp).
// The engine prices the same transfers with SimGrid's flow model; this is the fast path used by
// the `auto` search and as the engine's cross-check.
#pragma once

#include <cstdint>

#include "sim/core/units.hpp"
#include "sim/cost/collective.hpp"
#include "sim/topology/placement.hpp"

namespace sim {

struct Scenario;

class CommCosts {
 public:
  explicit CommCosts(const Scenario& s);

  // A collective over the TP or CP group of a rank class (all classes' groups have one shape).
  Seconds group_collective(CommGroup group, CollectiveKind kind, Bytes buffer) const;
  // The algorithm an all-reduce over that group, or over dp of pipeline rank `rank`, runs.
  CollectiveAlgo group_all_reduce_algo(CommGroup group) const;
  CollectiveAlgo dp_all_reduce_algo(int64_t rank) const;
  // Pipeline rank `rank` sends `bytes` per GPU to pipeline rank rank+1 (or rank-1).
  Seconds p2p(int64_t from_rank, int64_t to_rank, Bytes bytes) const;
  Seconds dp_all_reduce(int64_t rank, Bytes buffer) const;  // = dp_latency + dp_transfer
  Seconds dp_latency(int64_t rank) const;                   // NCCL's alpha terms
  Seconds dp_transfer(int64_t rank, Bytes buffer) const;    // the bytes on the bottleneck link

  // Does pipeline rank r's dp group span nodes? How many of its members share a node?
  bool dp_crosses_nodes(int64_t rank) const;
  int64_t dp_members_per_node(int64_t rank) const;

 private:
  const Scenario& s_;
  Placement place_;
};

}  // namespace sim
