#include "sim/comm/shared_links.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "sim/core/fnv_hash.hpp"

namespace sim {
namespace {

// Each transfer's links, as f(first, last): the flows' routes' (a pipeline's, each edge's) and the
// foreign ones.
template <class F>
void for_each_route(const RingFlowSet& set, const std::vector<size_t>& flows, F f) {
  std::vector<bool> seen(set.routes.size(), false);
  for (size_t i : flows) {
    const auto r = static_cast<size_t>(set.flows[i].route);
    if (seen[r]) continue;
    seen[r] = true;
    const auto& route = set.routes[r];
    const uint64_t* links = route.links.data();
    if (route.starts.empty()) {
      if (!route.links.empty()) f(links, links + route.links.size());
      continue;
    }
    for (size_t e = 0; e < route.starts.size(); ++e) {
      const size_t end = e + 1 < route.starts.size() ? route.starts[e + 1] : route.links.size();
      if (end > route.starts[e]) f(links + route.starts[e], links + end);
    }
  }
  for (const auto& links : set.foreign_routes)
    if (!links.empty()) f(links.data(), links.data() + links.size());
}

// Drops from a route the links `out` says, its edges' starts moved to match.
template <class Out>
void drop_links(RingFlowSet::Route& r, Out out) {
  size_t kept = 0, e = 0;
  for (size_t i = 0; i < r.links.size(); ++i) {
    while (e < r.starts.size() && r.starts[e] == i) r.starts[e++] = static_cast<uint32_t>(kept);
    if (!out(r.links[i])) r.links[kept++] = r.links[i];
  }
  for (; e < r.starts.size(); ++e) r.starts[e] = static_cast<uint32_t>(kept);
  r.links.resize(kept);
}

}  // namespace

std::unordered_set<uint64_t> never_saturated(const RingFlowSet& set, const std::vector<size_t>& flows,
                                             const std::vector<double>& capacity) {
  // (link, first link of a route crossing it) and (link, last link), every route once.
  std::vector<std::pair<uint64_t, uint64_t>> first, last;
  for_each_route(set, flows, [&](const uint64_t* begin, const uint64_t* end) {
    for (const uint64_t* id = begin; id != end; ++id) {
      first.emplace_back(*id, *begin);
      last.emplace_back(*id, end[-1]);
    }
  });
  // Per link, the capacity of the distinct ends feeding it.
  const auto feed = [&](std::vector<std::pair<uint64_t, uint64_t>>& pairs) {
    std::sort(pairs.begin(), pairs.end());
    pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
    std::unordered_map<uint64_t, double> sum;
    for (const auto& [link, end] : pairs) sum[link] += capacity[end / 2];
    return sum;
  };
  const auto from = feed(first), to = feed(last);
  std::unordered_set<uint64_t> idle;
  for (const auto& [link, in] : from) {
    const double bound = std::min(in, to.at(link));
    const bool end = std::binary_search(first.begin(), first.end(), std::make_pair(link, link)) ||
                     std::binary_search(last.begin(), last.end(), std::make_pair(link, link));
    if (!end && capacity[link / 2] >= bound) idle.insert(link);
  }
  return idle;
}

LinkSplit split_shared_links(RingFlowSet& set, const std::vector<int64_t>& group, const std::vector<int64_t>& variant,
                             const std::vector<double>& capacity) {
  LinkSplit split{capacity, {}};
  std::vector<double>& out = split.capacity;
  std::vector<size_t> all(set.flows.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  // Per directed link id (the network's: 2 x its links), as a bit: left out, a route's end, shared.
  const size_t ids = 2 * capacity.size();
  std::vector<bool> idle(ids, false), ends(ids, false), shared(ids, false);
  for (uint64_t id : never_saturated(set, all, capacity)) idle[id] = true;
  for_each_route(set, all, [&](const uint64_t* begin, const uint64_t* end) {
    ends[*begin] = true;
    ends[end[-1]] = true;
  });
  // The links more than one group crosses: per link, its one group, or -1 for several (-2: none).
  std::vector<int64_t> user(ids, -2);
  for (size_t i = 0; i < set.flows.size(); ++i)
    for (uint64_t id : set.routes[static_cast<size_t>(set.flows[i].route)].links)
      user[id] = user[id] == -2 || user[id] == group[i] ? group[i] : -1;
  bool any = false;
  for (size_t id = 0; id < ids; ++id) {
    shared[id] = user[id] == -1 && !idle[id] && !ends[id];
    any = any || shared[id];
  }
  // Links no allocation saturates constrain nothing: left out, they join no groups.
  for (auto& r : set.routes) drop_links(r, [&](uint64_t id) { return idle[id]; });
  if (!any) return split;
  // Per shared link, group and variant: flows crossing it (the crossings sorted, counted by run).
  std::vector<std::tuple<uint64_t, int64_t, int64_t>> crossings;
  for (size_t i = 0; i < set.flows.size(); ++i)
    for (uint64_t id : set.routes[static_cast<size_t>(set.flows[i].route)].links)
      if (shared[id]) crossings.emplace_back(id, group[i], variant[i]);
  std::sort(crossings.begin(), crossings.end());
  // A group's share of a link: its flows over all groups' (each the most of one variant's).
  std::map<std::pair<uint64_t, int64_t>, int64_t> flows_of;  // (link, group) -> flows
  std::unordered_map<uint64_t, int64_t> total;
  for (size_t j = 0; j < crossings.size();) {
    size_t k = j;
    while (k < crossings.size() && crossings[k] == crossings[j]) ++k;
    const auto n = static_cast<int64_t>(k - j);
    int64_t& m = flows_of[{std::get<0>(crossings[j]), std::get<1>(crossings[j])}];
    total[std::get<0>(crossings[j])] += std::max<int64_t>(0, n - m);
    m = std::max(m, n);
    j = k;
  }
  int64_t groups = 1;
  for (int64_t g : group) groups = std::max(groups, g + 1);
  const auto at = [&](uint64_t id, int64_t g) { return id * static_cast<uint64_t>(groups) + static_cast<uint64_t>(g); };
  std::unordered_map<uint64_t, uint64_t> copy;     // (link, group), in one number -> its representative's id
  std::unordered_map<uint64_t, size_t> shared_at;  // link -> its index in split.shared
  for (const auto& [key, n] : flows_of) {
    const uint64_t id = key.first;
    const uint64_t rep = 2 * out.size() + (id & 1);
    copy[at(id, key.second)] = rep;
    out.push_back(capacity[id / 2] * static_cast<double>(n) / static_cast<double>(total.at(id)));
    auto [it, fresh] = shared_at.try_emplace(id, split.shared.size());
    if (fresh) split.shared.push_back({capacity[id / 2], {}});
    split.shared[it->second].shares.emplace_back(rep, static_cast<double>(n));
  }
  // Rewrite the routes the groups' flows take across shared links: one per (route, group).
  int64_t shapes = 0;
  for (const auto& r : set.routes) shapes = std::max(shapes, r.shape + 1);
  std::unordered_map<std::vector<uint64_t>, int64_t, FnvHash> shape_of;  // old shape, new capacities' words
  // Per route, the new one of each group whose flows take it (a route's groups are few).
  std::vector<std::vector<std::pair<int64_t, int64_t>>> route_of(set.routes.size());
  for (size_t i = 0; i < set.flows.size(); ++i) {
    const int64_t r = set.flows[i].route;
    const auto& links = set.routes[static_cast<size_t>(r)].links;
    if (std::none_of(links.begin(), links.end(), [&](uint64_t id) { return id < ids && shared[id]; })) continue;
    auto& mine = route_of[static_cast<size_t>(r)];
    auto it = std::find_if(mine.begin(), mine.end(), [&](const auto& x) { return x.first == group[i]; });
    if (it == mine.end()) {
      it = mine.insert(mine.end(), {group[i], static_cast<int64_t>(set.routes.size())});
      RingFlowSet::Route nr{links, 0, set.routes[static_cast<size_t>(r)].starts};
      std::vector<uint64_t> shape{static_cast<uint64_t>(set.routes[static_cast<size_t>(r)].shape)};
      for (uint64_t& id : nr.links)
        if (id < ids && shared[id]) {
          id = copy.at(at(id, group[i]));
          shape.push_back(word_of(out[id / 2]));
        }
      nr.shape = shapes + shape_of.try_emplace(shape, static_cast<int64_t>(shape_of.size())).first->second;
      set.routes.push_back(std::move(nr));
    }
    set.flows[i].route = it->second;
  }
  return split;
}

}  // namespace sim
