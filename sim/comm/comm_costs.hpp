// Closed-form communication costs of a plan on an idle network: the tensor- and context-parallel
// collectives, the pipeline's point-to-point transfers and the data-parallel gradient reduction,
// each the communication plan's flows (comm_plan.hpp) priced on the fabric with nothing else
// running, plus the plan's latency terms. The engine runs the same flows under SimGrid's sharing;
// this is the fast path used by the `auto` search and as the engine's cross-check.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <tuple>

#include "sim/comm/comm_plan.hpp"
#include "sim/core/units.hpp"
#include "sim/cost/collective.hpp"
#include "sim/cost/grad_bucket.hpp"
#include "sim/topology/fabric.hpp"
#include "sim/topology/placement.hpp"

namespace sim {

struct Scenario;

class CommCosts {
 public:
  explicit CommCosts(const Scenario& s);

  // A collective over the TP or CP group of a rank class (all classes' groups have one shape): NCCL's
  // latency terms, the longest route latency of its flows (CommPlan::route_latency) and the flows
  // on an idle network.
  Seconds group_collective(CommGroup group, CollectiveKind kind, Bytes buffer) const;
  // The algorithm an all-reduce of `buffer` over that group, or over dp of pipeline rank `rank`, runs.
  CollectiveAlgo group_all_reduce_algo(CommGroup group, Bytes buffer) const;
  CollectiveAlgo dp_all_reduce_algo(int64_t rank, Bytes buffer) const;
  // Pipeline rank `from_rank` sends `bytes` per GPU to pipeline rank `to_rank`: every member of
  // the class at once, so GPUs that share a NIC share it. NCCL's latency term and the route's
  // links' latency (Fabric::route_latency) included.
  Seconds p2p(int64_t from_rank, int64_t to_rank, Bytes bytes) const;
  // = dp_latency + dp_route_latency + dp_transfer
  Seconds dp_all_reduce(int64_t rank, const GradBucket& buffer) const;
  Seconds dp_latency(int64_t rank, const GradBucket& buffer) const;  // NCCL's alpha terms
  // Every data-parallel group of the rank reducing `buffer` at once: the flows on the fabric, and
  // the longest of their routes' link latencies, which each flow pays once before it moves bytes
  // (the engine launches each collective's steps as one flow per sender, receiver and channel:
  // collective_flows.hpp).
  Seconds dp_transfer(int64_t rank, const GradBucket& buffer) const;
  Seconds dp_route_latency(int64_t rank, const GradBucket& buffer) const;
  // An optical circuit switch's dark time at each change of circuits (CommPlan::reconfiguration),
  // and whether a pipeline transfer from rank `from_rank` to `to_rank` crosses it (leaves its
  // scale-up domain).
  Seconds reconfiguration() const { return plan_.reconfiguration(); }
  bool p2p_crosses(int64_t from_rank, int64_t to_rank) const { return plan_.pipeline_crosses(from_rank, to_rank); }

 private:
  const Scenario& s_;
  Placement place_;
  std::shared_ptr<const Fabric> fabric_;
  CommPlan plan_;
  CollectiveChoice dp_choice(int64_t rank, Bytes buffer, CollectiveKind kind = CollectiveKind::ALL_REDUCE) const;
  // Under hybrid sharding, the all-reduce a shard's replicas run after the shard groups'; else none.
  std::optional<CollectiveChoice> replica_choice(int64_t rank, Bytes buffer) const;
  // Under expert parallelism, the all-reduce of a bucket's experts' part over the expert-data-
  // parallel group, beside the dense part's; else none.
  std::optional<CollectiveChoice> expert_choice(int64_t rank, Bytes experts, CollectiveKind kind) const;
  // What flows between a pair of ends, or of a gradient reduction, cost: per byte, and their route
  // latency.
  struct FlowCost {
    double per_byte = 0;
    Seconds route_latency;
  };
  const FlowCost& dp_cost(int64_t rank, const GradBucket& buffer) const;

  // What the flows cost per byte, which depends on the plan's shape and placement and the fabric
  // only: shared by every CommCosts of one plan shape (the `auto` search prices many candidates
  // that differ in micro-batch and virtual stages only).
  struct Memo {
    std::map<std::tuple<int, int, double>, Seconds> group_cost;  // (group, kind, buffer)
    std::map<std::pair<int64_t, int64_t>, FlowCost> p2p_cost;    // (from rank, to rank)
    // (rank, kind, algo, protocol; of a shard's replicas too under hybrid sharding, else -1, -1)
    std::map<std::tuple<int64_t, int, int, int, int, int, int, int, double>, FlowCost> dp_cost;
    std::map<std::tuple<int64_t, int, double>, CollectiveChoice> dp_choice;                // (rank, kind, buffer)
    std::map<std::pair<int64_t, double>, std::optional<CollectiveChoice>> replica_choice;  // (rank, buffer)
  };
  std::shared_ptr<Memo> memo_;
};

}  // namespace sim
