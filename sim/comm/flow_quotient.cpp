#include "sim/comm/flow_quotient.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <tuple>
#include <unordered_set>

#include "sim/comm/shared_links.hpp"
#include "sim/core/error.hpp"
#include "sim/core/fnv_hash.hpp"

namespace sim {
namespace {

// Dense ids for signatures, in the order they are first met.
class Ids {
 public:
  int64_t operator()(const std::vector<int64_t>& signature) {
    return ids_.try_emplace(signature, static_cast<int64_t>(ids_.size())).first->second;
  }
  int64_t size() const { return static_cast<int64_t>(ids_.size()); }
  void clear() { ids_.clear(); }

 private:
  std::unordered_map<std::vector<int64_t>, int64_t, FnvHash> ids_;
};

}  // namespace

FlowQuotient quotient_flows(const RingFlowSet& set, const std::vector<int64_t>& keep,
                            const std::vector<int64_t>& launch, const std::vector<double>& capacity,
                            const std::vector<FoldedSharedLink>& shared) {
  FlowQuotient q;
  q.cell.assign(set.flows.size(), -1);
  // The kept flows (k) with their copies, and the links they cross (dense: l).
  std::vector<size_t> kept;
  for (size_t i = 0; i < set.flows.size(); ++i)
    if (keep[i] > 0) kept.push_back(i);
  std::unordered_set<uint64_t> idle = never_saturated(set, kept, capacity);
  for (const FoldedSharedLink& x : shared)
    for (const FoldedShare& share : x.shares) idle.erase(share.link);
  for (uint64_t id : idle) q.link_cell.emplace(id, -1);
  std::vector<uint64_t> link_id;
  std::unordered_map<uint64_t, int64_t> dense;
  std::vector<std::vector<int64_t>> route(kept.size());  // per k, its links (dense)
  for (size_t k = 0; k < kept.size(); ++k)
    for (uint64_t id : set.routes[static_cast<size_t>(set.flows[kept[k]].route)].links) {
      if (idle.count(id)) continue;
      auto [it, fresh] = dense.try_emplace(id, static_cast<int64_t>(link_id.size()));
      if (fresh) link_id.push_back(id);
      route[k].push_back(it->second);
    }
  const auto links = link_id.size();
  std::vector<std::vector<int64_t>> on(links);  // per link, the kept flows crossing it (once per crossing)
  for (size_t k = 0; k < kept.size(); ++k)
    for (int64_t l : route[k]) on[static_cast<size_t>(l)].push_back(static_cast<int64_t>(k));

  // Starting cells.
  std::vector<int64_t> flow_colour(kept.size()), link_colour(links);
  Ids ids;
  for (size_t k = 0; k < kept.size(); ++k) {
    const auto& f = set.flows[kept[k]];
    flow_colour[k] = ids({launch[kept[k]], f.tier, set.routes[static_cast<size_t>(f.route)].shape});
  }
  int64_t flow_colours = ids.size();
  ids.clear();
  // A link other traffic of the step crosses starts in a cell per capacity and that traffic: how
  // many times each foreign route crosses it, the simulated replica's and its images alike (which
  // run together). A cell's links then carry the same foreign flows, and the simulated replica's
  // flow stands for them all (FlowQuotient::foreign_load).
  std::unordered_map<uint64_t, std::map<int64_t, int32_t>> marks;  // per link, crossings per foreign route
  for (size_t i = 0; i < set.foreign_routes.size(); ++i)
    for (uint64_t l : set.foreign_routes[i]) ++marks[l][static_cast<int64_t>(i)];
  // Images count only on links joined by the kept flows to a link of the simulated replica's
  // foreign traffic: elsewhere no foreign flow is simulated, and they would only split cells.
  std::vector<size_t> parent(links);
  for (size_t l = 0; l < links; ++l) parent[l] = l;
  const auto find = [&](size_t l) {
    while (parent[l] != l) l = parent[l] = parent[parent[l]];
    return l;
  };
  for (const auto& r : route)
    for (size_t j = 1; j < r.size(); ++j) parent[find(static_cast<size_t>(r[j]))] = find(static_cast<size_t>(r[0]));
  std::vector<bool> touched(links, false);  // by root
  for (const auto& [id, m] : marks)
    if (auto it = dense.find(id); it != dense.end()) touched[find(static_cast<size_t>(it->second))] = true;
  for (const auto& [i, r] : set.foreign_images)
    for (uint64_t l : r)
      if (auto it = dense.find(l); it != dense.end() && touched[find(static_cast<size_t>(it->second))]) ++marks[l][i];
  for (size_t l = 0; l < links; ++l) {
    const uint64_t id = link_id[l];
    std::vector<int64_t> c{0, static_cast<int64_t>(word_of(capacity[id / 2]))};
    if (auto it = marks.find(id); it != marks.end())
      for (const auto& [i, n] : it->second) {
        c.push_back(i);
        c.push_back(n);
      }
    link_colour[l] = ids(c);
  }
  int64_t link_colours = ids.size();
  // The shared links, vertices of the graph too: each joined to the representatives standing for
  // its groups' (a term: the representative, the group's weight, whether it is the group's own).
  std::vector<std::vector<std::array<int64_t, 3>>> terms_of(shared.size()), terms_on(links);
  std::vector<int64_t> shared_colour(shared.size());
  ids.clear();
  for (size_t x = 0; x < shared.size(); ++x) {
    shared_colour[x] = ids({static_cast<int64_t>(word_of(shared[x].capacity))});
    for (const FoldedShare& share : shared[x].shares) {
      const int64_t l = dense.at(share.link), w = static_cast<int64_t>(word_of(share.weight)), own = share.own;
      terms_of[x].push_back({l, w, own});
      terms_on[static_cast<size_t>(l)].push_back({static_cast<int64_t>(x), w, own});
    }
  }
  int64_t shared_colours = ids.size();

  // Refinement until nothing splits (a round only splits cells, so equal counts mean stable).
  std::vector<int64_t> signature;
  std::vector<std::pair<int64_t, int64_t>> seen;
  std::vector<std::array<int64_t, 3>> terms;
  // Appends to the signature the terms of a split link or a representative, each as (the other
  // end's colour, weight, own), sorted.
  const auto append_terms = [&](const std::vector<std::array<int64_t, 3>>& of, const std::vector<int64_t>& colour) {
    terms.clear();
    for (const auto& [y, w, own] : of) terms.push_back({colour[static_cast<size_t>(y)], w, own});
    std::sort(terms.begin(), terms.end());
    for (const auto& t : terms) signature.insert(signature.end(), t.begin(), t.end());
  };
  for (;;) {
    ids.clear();
    std::vector<int64_t> next_link(links);
    for (size_t l = 0; l < links; ++l) {
      seen.clear();
      for (int64_t k : on[l])
        seen.emplace_back(flow_colour[static_cast<size_t>(k)], keep[kept[static_cast<size_t>(k)]]);
      std::sort(seen.begin(), seen.end());
      signature.assign(1, link_colour[l]);
      for (size_t j = 0; j < seen.size(); ++j) {
        if (j > 0 && seen[j].first == seen[j - 1].first) {
          signature.back() += seen[j].second;
          continue;
        }
        signature.push_back(seen[j].first);
        signature.push_back(seen[j].second);
      }
      signature.push_back(-1);
      append_terms(terms_on[l], shared_colour);
      next_link[l] = ids(signature);
    }
    const int64_t next_link_colours = ids.size();
    ids.clear();
    std::vector<int64_t> next_shared(shared.size());
    for (size_t x = 0; x < shared.size(); ++x) {
      signature.assign(1, shared_colour[x]);
      append_terms(terms_of[x], link_colour);
      next_shared[x] = ids(signature);
    }
    const int64_t next_shared_colours = ids.size();
    ids.clear();
    std::vector<int64_t> next_flow(kept.size());
    for (size_t k = 0; k < kept.size(); ++k) {
      signature.assign(1, flow_colour[k]);
      for (int64_t l : route[k]) signature.push_back(next_link[static_cast<size_t>(l)]);
      std::sort(signature.begin() + 1, signature.end());
      next_flow[k] = ids(signature);
    }
    const int64_t next_flow_colours = ids.size();
    link_colour = std::move(next_link);
    flow_colour = std::move(next_flow);
    shared_colour = std::move(next_shared);
    const bool stable =
        next_link_colours == link_colours && next_flow_colours == flow_colours && next_shared_colours == shared_colours;
    link_colours = next_link_colours, flow_colours = next_flow_colours, shared_colours = next_shared_colours;
    if (stable) break;
  }

  // The cells, numbered in the order of their first flow, and each one's load per link cell.
  q.link_cell_size.assign(static_cast<size_t>(link_colours), 0);
  q.link_capacity.assign(static_cast<size_t>(link_colours), 0.0);
  for (size_t l = 0; l < links; ++l) {
    const auto c = static_cast<size_t>(link_colour[l]);
    q.link_cell.emplace(link_id[l], static_cast<int32_t>(c));
    ++q.link_cell_size[c];
    q.link_capacity[c] = capacity[link_id[l] / 2];
  }
  for (size_t i = 0; i < set.foreign_routes.size(); ++i)
    for (uint64_t id : set.foreign_routes[i])
      if (auto y = q.link_cell.find(id); y != q.link_cell.end() && y->second >= 0)
        q.foreign_load[{static_cast<int64_t>(i), id}] = marks.at(id).at(static_cast<int64_t>(i));
  std::vector<int32_t> number(static_cast<size_t>(flow_colours), -1);
  std::vector<std::map<int32_t, int64_t>> crossings;  // per cell, per link cell: flows x links crossed
  for (size_t k = 0; k < kept.size(); ++k) {
    int32_t& c = number[static_cast<size_t>(flow_colour[k])];
    if (c < 0) {
      c = static_cast<int32_t>(q.cells.size());
      q.cells.push_back({static_cast<int64_t>(kept[k]), 0, {}});
      crossings.emplace_back();
    }
    const int64_t copies = keep[kept[k]];
    q.cell[kept[k]] = c;
    q.cells[static_cast<size_t>(c)].members += copies;
    for (int64_t l : route[k])
      crossings[static_cast<size_t>(c)][static_cast<int32_t>(link_colour[static_cast<size_t>(l)])] += copies;
  }
  for (size_t c = 0; c < q.cells.size(); ++c)
    for (const auto& [y, n] : crossings[c]) {
      const int64_t size = q.link_cell_size[static_cast<size_t>(y)];
      SIM_ASSERT(n % size == 0, "a cell's flows load the links of a link cell unequally");
      q.cells[c].load.emplace_back(y, static_cast<int32_t>(n / size));
    }
  return q;
}

}  // namespace sim
