#include "sim/workload/ring_channels.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>
#include <utility>

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

std::vector<int64_t> fold_ring_flows(const RingFlowSet& set) {
  // A group: a rank's flows on one route (same endpoints, so same links, same start, same size
  // when `uniform`).
  struct Group {
    int64_t rank = 0, route = 0, tier = 0, copies = 0;
    bool uniform = true, clean = false, representative = false, emitted = false;
  };
  std::vector<Group> groups;
  std::map<std::pair<int64_t, int64_t>, size_t> group_of;
  std::vector<size_t> flow_group;
  flow_group.reserve(set.flows.size());
  for (const auto& f : set.flows) {
    auto [it, fresh] = group_of.try_emplace({f.rank, f.route}, groups.size());
    if (fresh) groups.push_back({f.rank, f.route, f.tier});
    Group& g = groups[it->second];
    ++g.copies;
    g.uniform = g.uniform && g.tier == f.tier;
    flow_group.push_back(it->second);
  }
  // Who crosses each link: one group, or several (kShared, as is any link of other traffic).
  constexpr size_t kShared = ~size_t(0);
  std::unordered_map<uint64_t, size_t> owner;
  for (uint64_t l : set.foreign_links) owner[l] = kShared;
  for (size_t gi = 0; gi < groups.size(); ++gi)
    for (uint64_t l : set.routes[static_cast<size_t>(groups[gi].route)].links) {
      auto [it, fresh] = owner.try_emplace(l, gi);
      if (!fresh && it->second != gi) it->second = kShared;
    }
  // A clean group is alone on its links; one clean group per (rank, tier, copies, route shape)
  // represents the others.
  std::map<std::tuple<int64_t, int64_t, int64_t, int64_t>, size_t> representative;
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    Group& g = groups[gi];
    const auto& route = set.routes[static_cast<size_t>(g.route)];
    g.clean =
        g.uniform && std::all_of(route.links.begin(), route.links.end(), [&](uint64_t l) { return owner.at(l) == gi; });
    if (g.clean)
      g.representative = representative.try_emplace({g.rank, g.tier, g.copies, route.shape}, gi).first->second == gi;
  }
  std::vector<int64_t> out;
  out.reserve(set.flows.size());
  for (size_t i = 0; i < set.flows.size(); ++i) {
    Group& g = groups[flow_group[i]];
    if (!g.clean) {
      out.push_back(1);
    } else if (!g.representative) {
      out.push_back(0);
    } else if (!set.routes[static_cast<size_t>(g.route)].mergeable) {
      out.push_back(1);
    } else {
      out.push_back(g.emitted ? 0 : g.copies);
      g.emitted = true;
    }
  }
  return out;
}

}  // namespace sim
