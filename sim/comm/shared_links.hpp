// Which links of a step's data-parallel flows constrain them, and the one approximation the fold
// makes (sim/engine/replay.cpp, "Folding"): at a link that several gradient-reduction groups
// share and that their flows can saturate -- an oversubscribed pod uplink -- each group gets a
// representative link, whose capacity is the link's times the group's weight over the weights of
// the groups using the link at that moment (FluidNetwork::add_shared_link).
//
// Why: such a link joins every group that crosses it into one system, which the fold cannot divide
// (ring_channels.hpp: components) and whose max-min allocation changes everywhere at each flow's
// end: on 16,384 GPUs behind 1:7 pod uplinks, every group's trees in one component.
//
// What it keeps exact: groups that are the same system under a renaming of links (the rails of a
// rank's groups, launched together with the same bytes: DpFlow::launch) have equal rates at every
// instant, by symmetry, so each carries 1/k of what the shared link carries; a representative link
// of 1/k of the capacity gives each the same allocation; groups that use the link at different
// times (ranks launching at other times) each take the whole link while alone. Approximated:
// groups that differ and overlap on the link (a shard group and its replicas under hybrid
// sharding; ranks whose launches overlap) share it by weight, as their flows' rates need not, and
// other traffic of the step (pipeline transfers) crossing the link sees its whole capacity.
// docs/speed.md gives the measured error against the unsplit fold.
#pragma once

#include <cstdint>
#include <unordered_set>
#include <vector>

#include "sim/comm/ring_channels.hpp"

namespace sim {

// The links of the routes of `flows` (indices into set.flows) and of the set's foreign routes that
// no allocation can saturate: a link whose capacity is at least the sum of the capacities of the
// distinct first links of the routes that cross it, or of their distinct last links, and is not
// itself one of them. The rates through it are bounded by those links' capacities, so its
// constraint is implied by theirs and the max-min allocation is the same without it -- a leaf's
// uplink in a full-bisection fat tree, which carries the sum of its NICs, is one. `capacity` per
// network link (a directed id's link is id / 2, Fabric::up and down).
std::unordered_set<uint64_t> never_saturated(const RingFlowSet& set, const std::vector<size_t>& flows,
                                             const std::vector<double>& capacity);

// A link split among the groups that cross it: its capacity, and per group its representative
// link (a directed id past the network's links) and weight (the group's flows crossing it, the
// most of any one variant's: a launch runs one).
struct SharedLink {
  double capacity = 0;
  std::vector<std::pair<uint64_t, double>> shares;
};
struct LinkSplit {
  std::vector<double> capacity;  // per network link, then per representative link: its share when all are in use
  std::vector<SharedLink> shared;
};
// A link split among the groups that cross it (above), as the fold simulates it (dp_fold.hpp): per
// group, the kept representative link that stands for the group's (`own`: its own; else its
// twin's, which is in use whenever the group's is) and the group's weight. A representative's
// capacity is the link's times its weight over the weights of the groups whose links are in use.
struct FoldedShare {
  uint64_t link = 0;
  double weight = 0;
  bool own = false;
};
struct FoldedSharedLink {
  double capacity = 0;
  std::vector<FoldedShare> shares;
};
// Splits the shared links of `set`'s flows: a link that flows of more than one group cross
// (`group`, per flow: an id of its group), that an allocation can saturate (never_saturated) and
// that is no route's first or last link (a NIC, whose sharing between a rank's groups is the
// sharing being simulated). Each group crossing it gets a representative link; the groups'
// routes are rewritten (new routes, with new shapes where the capacities differ); foreign routes
// keep the link. Links no allocation saturates are left out of the flows' routes (they constrain
// nothing).
LinkSplit split_shared_links(RingFlowSet& set, const std::vector<int64_t>& group, const std::vector<int64_t>& variant,
                             const std::vector<double>& capacity);

}  // namespace sim
