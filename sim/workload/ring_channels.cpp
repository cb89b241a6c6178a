#include "sim/workload/ring_channels.hpp"

#include "sim/topology/placement.hpp"

namespace sim {

std::vector<std::vector<int64_t>> members_by_node(const Placement& place, const std::vector<int64_t>& members) {
  std::vector<std::vector<int64_t>> nodes;
  for (int64_t g : members) {
    if (nodes.empty() || !place.same_node(nodes.back().front(), g)) nodes.emplace_back();
    nodes.back().push_back(g);
  }
  return nodes;
}

int64_t ring_channels(const Placement& place, const std::vector<int64_t>& members) {
  if (members.size() < 2) return 0;
  int64_t first = 0;  // members on the first node
  bool leaves = false;
  for (int64_t g : members) {
    if (!place.same_node(members.front(), g)) {
      leaves = true;
      break;
    }
    ++first;
  }
  return leaves ? first : 1;
}

}  // namespace sim
