// One communication plan: every collective, pipeline send and gradient reduction of a step as
// {algorithm and protocol (NCCL's choice, sim/cost/nccl_tuning.hpp), latency terms, flows between
// GPUs on the fabric (sim/topology/fabric.hpp)}. The closed-form estimate prices the flows on an
// idle network (comm_costs.hpp); the engine hands the same flows to SimGrid (sim/engine). Nothing
// else decides an algorithm, a tier or a latency.
//
// A group's tier follows from where its members sit: `nodes` counts the nodes they occupy, and
// NCCL's model and flows take that shape. Groups with unequal members per node (possible with an
// explicit placement) run the ring, priced as if every member had a node of its own. A group inside
// one torus takes its shape there (torus_group_dims) and runs the torus algorithm. A group whose
// nodes a direct-connect network's circuits join in rings (ScaleOut::ring_strides, each checked
// against the fabric) runs the ring over them.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/cost/collective.hpp"
#include "sim/cost/nccl_tuning.hpp"
#include "sim/scenario/plan.hpp"

namespace sim {

struct Scenario;
class Fabric;
class Placement;

struct GpuFlow {
  int64_t from = 0, to = 0;  // GPUs
  Bytes bytes;               // counted for links at their tier's efficiency (Fabric::capacity)
  int32_t pipe = -1;         // MemberFlow::pipe
};

struct CommOp {
  CollectiveChoice choice;  // algorithm, protocol and the latency terms, added after the flows
  std::vector<GpuFlow> flows;
};

// Everything a CommPlan's choices and flows depend on besides the buffer, and so the key of every
// memo of them: the fabric (its serial, Fabric::of), the plan's degrees and placement, forced
// algorithms, the device (its name, which gives NCCL's GPU generation, and its collective costs:
// profiles that share a name may differ in them), NVLS, and what the expert-parallel all-to-all
// depends on (the dispatcher, the experts, top_k, node_limit).
using CommShape = std::tuple<uint64_t, int64_t, int64_t, int64_t, int64_t, std::array<ParallelDim, 4>,
                             std::vector<int64_t>, std::map<CollectiveKind, CollectiveAlgo>, std::string,
                             std::array<double, 7>, bool, std::array<int64_t, 4>>;
CommShape comm_shape(uint64_t fabric, const Scenario& s);

class CommPlan {
 public:
  CommPlan(const Scenario& s, const Placement& place, const Fabric& fabric);

  // NCCL's choice for `kind` over `members` (GPUs in rank order) and `buffer` bytes; under the
  // deepep dispatcher an all-to-all's is DeepEP's (CollectiveAlgo::DEEPEP).
  CollectiveChoice choose(CollectiveKind kind, const std::vector<int64_t>& members, Bytes buffer) const;
  // The choice with its flows; no flows for fewer than two members.
  CommOp collective(CollectiveKind kind, const std::vector<int64_t>& members, Bytes buffer) const;
  // The latency of a pipeline transfer from GPU a to GPU b (NCCL send/recv: one step); its one
  // flow carries the transfer's bytes.
  Seconds send_latency(int64_t a, int64_t b) const;

  // How long `flows`, started together on an idle network, take to finish: the most loaded
  // directed link's load over its capacity.
  Seconds transfer_time(const std::vector<GpuFlow>& flows) const;

  // The longest route latency of `flows` (Fabric::route_latency): started together, the last of
  // them moves its first byte that long after the start. 0 for no flows.
  Seconds route_latency(const std::vector<GpuFlow>& flows) const;

  // Every rank class member's pipeline transfer from rank `from_rank` to `to_rank` (all tp, cp and
  // dp indices), `bytes` each: what moves at once when the class sends.
  std::vector<GpuFlow> class_transfers(int64_t from_rank, int64_t to_rank, Bytes bytes) const;
  // How many times longer the class's transfers take on an idle network than its representative's
  // ({0, 0, from_rank, 0}) alone: the factor by which a folded engine, which sends the
  // representative's alone, scales its bytes (the members behind one NIC, or on one circuit).
  double class_share(int64_t from_rank, int64_t to_rank) const;

  // Whether any of `op`'s flows leaves the scale-up domain (routes through a NIC): such a tensor-
  // or context-parallel collective shares the network, and the engine runs it live.
  bool leaves_domain(const CommOp& op) const;

  // Whether the representative's pipeline transfer from rank `from_rank` to `to_rank` leaves its
  // scale-up domain (through the NICs).
  bool pipeline_crosses(int64_t from_rank, int64_t to_rank) const;

  // The dark time between the step's two sets of circuits on an optical circuit switch (scale_out
  // "ocs"): one set carries the pipeline's transfers, the other the gradient reduction, so when
  // both cross the switch each step changes circuits twice -- to the pipeline's before its first
  // transfer crosses (dark from the step's start), to the reduction's once the last has arrived
  // (dark from then on) -- and nothing crosses the switch while it is dark. The cluster's
  // scale_out.reconfiguration then, else 0: one set serves the whole step.
  Seconds reconfiguration() const;

  const Fabric& fabric() const { return fabric_; }

 private:
  // The group's shape, its nodes NCCL's: NVLink domains (Placement::domain); `even`: as many
  // members on each node it occupies (else priced as one per node, and only the ring runs it).
  GroupShape shape(const std::vector<int64_t>& members, std::vector<std::vector<int64_t>>* by_node, bool& even) const;

  const Scenario& s_;
  const Placement& place_;
  const Fabric& fabric_;
  mutable std::map<std::tuple<int, int64_t, int64_t, bool, double, std::vector<int64_t>, bool>, CollectiveChoice>
      choices_;
  mutable std::vector<double> load_;  // transfer_time's per directed link, kept zeroed
  // choose's last group and its shape: a group is chosen for at each of its buffers in turn.
  mutable std::vector<int64_t> last_members_;
  mutable std::pair<GroupShape, bool> last_shape_;
};

}  // namespace sim
