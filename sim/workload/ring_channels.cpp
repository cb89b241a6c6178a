#include "sim/workload/ring_channels.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "sim/cost/collective_flows.hpp"
#include "sim/scenario/plan.hpp"
#include "sim/topology/fabric.hpp"
#include "sim/topology/placement.hpp"
#include "sim/workload/comm_plan.hpp"

namespace sim {

std::vector<std::vector<int64_t>> members_by_domain(const Placement& place, const std::vector<int64_t>& members) {
  std::vector<std::vector<int64_t>> domains;
  for (int64_t g : members) {
    if (domains.empty() || !place.same_domain(domains.back().front(), g)) domains.emplace_back();
    domains.back().push_back(g);
  }
  return domains;
}

int64_t ring_channels(const Placement& place, const std::vector<int64_t>& members) {
  if (members.size() < 2) return 0;
  int64_t first = 0;  // members in the first domain
  bool leaves = false;
  for (int64_t g : members) {
    if (!place.same_domain(members.front(), g)) {
      leaves = true;
      break;
    }
    ++first;
  }
  return leaves ? nccl_channels(first) : 1;
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

namespace sim {

int64_t grad_groups(const ParallelPlan& pl) { return pl.tp; }

std::vector<int64_t> dp_group(const ParallelPlan& pl, const Placement& place, int64_t r, int64_t group) {
  std::vector<int64_t> members;
  for (int64_t d = 0; d < pl.dp; ++d)
    for (int64_t c = 0; c < pl.cp; ++c) members.push_back(place.gpu({group, c, r, d}));
  return members;
}

std::vector<int64_t> model_group(const ParallelPlan& pl, const Placement& place, CommGroup group, const RankCoord& at) {
  const bool tp = group == CommGroup::TP;
  std::vector<int64_t> members;
  for (int64_t i = 0; i < (tp ? pl.tp : pl.cp); ++i)
    members.push_back(place.gpu(tp ? RankCoord{i, at.cp, at.pp, at.dp} : RankCoord{at.tp, i, at.pp, at.dp}));
  return members;
}

RingFlowSet dp_flow_set(const CommPlan& comm, const ParallelPlan& pl, const Placement& place,
                        const std::vector<std::vector<Bytes>>& buffers, const std::vector<double>& capacity,
                        double tcp_gamma, std::vector<DpFlow>& flows, std::vector<DpVariant>& variants) {
  const Fabric& fabric = comm.fabric();
  RingFlowSet set;
  flows.clear();
  variants.clear();
  std::map<std::pair<int64_t, int64_t>, int64_t> route_of;  // by its ends
  std::map<std::vector<std::pair<double, double>>, int64_t> shape_of;
  std::map<std::pair<size_t, double>, int64_t> tier_of;           // (variant, bytes per buffer byte)
  std::map<std::pair<int64_t, DpVariant>, Bytes> group_variants;  // (group, variant) -> a buffer it runs at
  const auto& links = fabric.network().links();
  const auto route = [&](int64_t a, int64_t b) {
    auto [it, fresh] = route_of.try_emplace(fabric.ends(a, b), static_cast<int64_t>(set.routes.size()));
    if (!fresh) return it->second;
    RingFlowSet::Route r;
    std::vector<std::pair<double, double>> shape;
    double latency = 0, slowest = -1;
    fabric.for_each_link(a, b, [&](uint64_t id, int64_t l) {
      const double c = capacity[static_cast<size_t>(l)], lat = links[static_cast<size_t>(l)].latency.value;
      r.links.push_back(id);
      shape.emplace_back(c, lat);
      latency += lat;
      slowest = slowest < 0 ? c : std::min(slowest, c);
    });
    shape.emplace_back(latency, 0);
    r.shape = shape_of.try_emplace(shape, static_cast<int64_t>(shape_of.size())).first->second;
    r.mergeable = !(tcp_gamma > 0 && latency > 0) || tcp_gamma / (2 * latency) >= slowest;
    set.routes.push_back(std::move(r));
    return it->second;
  };
  for (int64_t r = 0; r < pl.pp; ++r)
    for (int64_t g = 0; g < grad_groups(pl); ++g) {
      const auto members = dp_group(pl, place, r, g);
      group_variants.clear();
      for (const Bytes& b : buffers[static_cast<size_t>(r)]) {
        const CollectiveChoice ch = comm.choose(CollectiveKind::ALL_REDUCE, members, b);
        group_variants.try_emplace({g, DpVariant{ch.algo, ch.protocol}}, b);
      }
      for (const auto& [key, buffer] : group_variants) {
        const auto v = static_cast<size_t>(std::find(variants.begin(), variants.end(), key.second) - variants.begin());
        if (v == variants.size()) variants.push_back(key.second);
        const CommOp op = comm.collective(CollectiveKind::ALL_REDUCE, members, buffer);
        for (size_t k = 0; k < op.flows.size(); ++k) {
          const auto& f = op.flows[k];
          const int64_t tier =
              tier_of.try_emplace({v, f.bytes.value / buffer.value}, static_cast<int64_t>(tier_of.size()))
                  .first->second;
          set.flows.push_back({r, route(f.from, f.to), tier});
          flows.push_back({f.from, f.to, g, static_cast<int64_t>(v), static_cast<int64_t>(k)});
        }
      }
    }
  for (int64_t r1 = 0; r1 < pl.pp; ++r1)
    for (int64_t r2 = 0; r2 < pl.pp; ++r2)
      if (r1 != r2)
        fabric.for_each_link(place.gpu({0, 0, r1, 0}), place.gpu({0, 0, r2, 0}),
                             [&](uint64_t id, int64_t) { set.foreign_links.push_back(id); });
  return set;
}

}  // namespace sim
