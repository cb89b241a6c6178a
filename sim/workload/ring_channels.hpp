// How many NCCL ring channels a ring collective over `members` (GPU ids in rank order) runs: one
// per member on a node when the ring leaves its node (each channel leaves the node through a
// different member's NIC), one when it stays inside. Members on one node are taken to be
// consecutive (Megatron's placement, topology/placement.hpp); the first node's count decides.
// The engine launches ring_channels * members flows per ring collective; the resource estimate
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

}  // namespace sim
