// Building RingFlowSets by hand for the fold's unit tests (comm_flow_quotient.cpp,
// comm_shared_links.cpp).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "sim/comm/ring_channels.hpp"

namespace ring_flow_set {

// Directed ids are 2 x link + 1 going up (Fabric::up): capacity[id / 2] is the link's.
inline uint64_t up(int64_t link) { return static_cast<uint64_t>(link) * 2 + 1; }

inline sim::RingFlowSet::Route route(std::vector<uint64_t> links) {
  sim::RingFlowSet::Route r;
  r.links = std::move(links);
  return r;
}

}  // namespace ring_flow_set
