// How many NCCL ring channels a ring collective over `members` (GPU ids in rank order) runs: one
// per member on a node when the ring leaves its node (each channel leaves the node through a
// different member's NIC), one when it stays inside. Members on one node are taken to be
// consecutive (Megatron's placement, topology/placement.hpp); the first node's count decides.
// The engine launches ring_channels * members flows per ring collective (at class fidelity, the
// gradient reduction's after folding copies by symmetry: fold_ring_flows); the resource estimate
// counts them.
#pragma once

#include <cstdint>
#include <vector>

namespace sim {

class Placement;

// The members grouped by node, in ring order.
std::vector<std::vector<int64_t>> members_by_node(const Placement& place, const std::vector<int64_t>& members);
// 0 for fewer than two members.
int64_t ring_channels(const Placement& place, const std::vector<int64_t>& members);

// The data-parallel ring flows of a step, described for folding by symmetry: the engine launches
// only what fold_ring_flows keeps (sim/engine/replay.cpp, "Folding", gives the conditions and why
// the step time is unchanged), and the resource estimate counts the same. Links are opaque ids.
struct RingFlowSet {
  struct Flow {
    int64_t rank = 0;   // pipeline rank launching it (with all of its rank's ring flows at once)
    int64_t route = 0;  // index into routes: one per (source, destination) endpoint pair
    int64_t tier = 0;   // flows of one tier carry the same bytes per launch
  };
  struct Route {
    std::vector<uint64_t> links;  // the directed links it crosses
    int64_t shape = 0;            // equal when the links' capacities and latencies are, in order
    bool mergeable = true;        // copies on it may travel as one flow (no per-flow rate bound binds)
  };
  std::vector<Flow> flows;  // in launch order
  std::vector<Route> routes;
  std::vector<uint64_t> foreign_links;  // links any other traffic of the step crosses
};

// Per flow: 0 when it is not launched, else the number of flows' bytes it carries (1: itself).
std::vector<int64_t> fold_ring_flows(const RingFlowSet& set);

}  // namespace sim
