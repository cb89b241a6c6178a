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
// - The ports split between the two so that neither class's traffic takes longer than it must:
//   of the splits with 2 k_dp + P k_mp <= ports (P: the most such pairs a node is in), the one
//   with the least max(V_dp / 2 k_dp, V_mp / k_mp), V_dp a node's gradient-reduction bytes per
//   step, V_mp the most one pair of nodes exchanges each way (ties: more to the reduction). A plan
//   with one of the two classes gives it every port.
// - Other traffic between nodes no circuit joins (context parallelism across nodes, a ring that
//   is not a group's) is forwarded by the nodes between. Should the circuits leave the nodes
//   unconnected, the design falls back to rings over all nodes (what a cluster without a plan gets,
//   cluster.hpp).
#pragma once

namespace sim {

struct Scenario;

// Replaces s.cluster.scale_out's circuits and ring_strides by those designed for s.plan (a cluster
// of one node gets none).
void design_circuits(Scenario& s);

}  // namespace sim
