// The co-design of a direct-connect network with the parallelism plan (scale_out.kind "direct"
// without strides; TopoOpt, Wang et al., NSDI 2023): which circuits each node's ports carry, given
// the traffic the plan sends between nodes. The planner designs them for every plan it plans
// (planner.hpp), so `trainsim search` weighs each plan on circuits made for it.
//
// - The gradient reduction's groups take rings over their nodes (the all-reduce traffic is mutable:
//   any order of the nodes is a ring), TopoOpt's TotientPerms: k_dp strides coprime with the
//   group's node count (sim/scenario/circuits.hpp, totient_strides), two ports each, so that its
//   ring collective runs 2 k_dp channels one circuit per hop (collective_flows.hpp).
// - Model-parallel traffic -- neighbouring pipeline stages, and neighbours in a tensor-parallel
//   ring, on different nodes -- takes k_mp circuits per pair of nodes it joins (TopoOpt's "MP"
//   traffic).
// - The ports split between the two: each split gives the reduction 2 k_dp ports and the pairs the
//   rest, k_mp = (ports - 2 k_dp) / P each (P: the most such pairs a node is in), k_dp and k_mp at
//   least 1. The designs list every split, by max(V_dp / 2 k_dp, V_mp / k_mp) -- V_dp a node's
//   gradient-reduction bytes per step, V_mp the most one pair of nodes exchanges each way: the
//   split that balances the bytes first (ties: more to the reduction). The planner keeps the one
//   its estimate of the step finds fastest (planner.hpp), as TopoOpt searches its splits with a
//   simulator: bytes alone do not say which traffic the step waits for (the pipeline's spreads
//   over the step, the reduction's comes at its end). A plan with one of the two classes gives it
//   every port.
// - Other traffic between nodes no circuit joins (context parallelism across nodes, a ring that
//   is not a group's) is forwarded by the nodes between. Should the circuits leave the nodes
//   unconnected, the design falls back to rings over all nodes (what a cluster without a plan gets,
//   cluster.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/scenario/circuits.hpp"

namespace sim {

struct Scenario;

struct CircuitDesign {
  std::vector<Circuit> circuits;
  std::vector<int64_t> ring_strides;  // ScaleOut::ring_strides
  int64_t reduction_strides = 0;      // k_dp (0: rings over all nodes, or no reduction across nodes)
  int64_t pair_circuits = 0;          // k_mp
};

// The designs for s.plan, the one that balances the bytes first; one (no circuits) for a cluster
// of one node.
std::vector<CircuitDesign> circuit_designs(const Scenario& s);

// s.cluster.scale_out's circuits and ring_strides replaced by the design's.
void apply_design(Scenario& s, const CircuitDesign& d);

// Applies the first design.
void design_circuits(Scenario& s);

}  // namespace sim
