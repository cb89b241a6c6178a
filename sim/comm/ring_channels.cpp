#include "sim/comm/ring_channels.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "sim/comm/comm_plan.hpp"
#include "sim/core/error.hpp"
#include "sim/core/fnv_hash.hpp"
#include "sim/cost/collective_flows.hpp"
#include "sim/scenario/plan.hpp"
#include "sim/topology/fabric.hpp"
#include "sim/topology/placement.hpp"

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

std::vector<int64_t> fold_ring_flows(const RingFlowSet& set, std::vector<int64_t>* component,
                                     std::vector<int64_t>* simulated_by) {
  // A class: a rank's flows of one tier on one route, started together at every launch (copies).
  struct Class {
    int64_t rank = 0, route = 0, tier = 0, copies = 0;
  };
  std::vector<Class> classes;
  int64_t ranks = 1, tiers = 1;
  for (const auto& f : set.flows) ranks = std::max(ranks, f.rank + 1), tiers = std::max(tiers, f.tier + 1);
  std::unordered_map<uint64_t, size_t> class_of;  // by (route, tier, rank) in one number
  std::vector<size_t> flow_class;
  flow_class.reserve(set.flows.size());
  for (const auto& f : set.flows) {
    const auto key = (static_cast<uint64_t>(f.route) * static_cast<uint64_t>(tiers) + static_cast<uint64_t>(f.tier)) *
                         static_cast<uint64_t>(ranks) +
                     static_cast<uint64_t>(f.rank);
    auto [it, fresh] = class_of.try_emplace(key, classes.size());
    if (fresh) classes.push_back({f.rank, f.route, f.tier});
    ++classes[it->second].copies;
    flow_class.push_back(it->second);
  }
  // Components: classes joined by the links they share (union-find by link).
  std::vector<size_t> parent(classes.size());
  for (size_t c = 0; c < classes.size(); ++c) parent[c] = c;
  auto find = [&](size_t c) {
    while (parent[c] != c) c = parent[c] = parent[parent[c]];
    return c;
  };
  // Per directed link id (dense: the network's, then the split's representatives), a class
  // crossing it.
  uint64_t ids = 0;
  for (const auto& r : set.routes)
    for (uint64_t l : r.links) ids = std::max(ids, l + 1);
  constexpr size_t kNone = ~size_t(0);
  std::vector<size_t> user(ids, kNone);
  for (size_t c = 0; c < classes.size(); ++c)
    for (uint64_t l : set.routes[static_cast<size_t>(classes[c].route)].links) {
      if (user[l] == kNone)
        user[l] = c;
      else
        parent[find(c)] = find(user[l]);
    }
  std::vector<bool> dirty(classes.size(), false);  // by root: crosses a link of other traffic
  for (const auto& foreign : set.foreign_routes)
    for (uint64_t l : foreign)
      if (l < ids && user[l] != kNone) dirty[find(user[l])] = true;
  user = {};
  // A clean component's signature: its flows in launch order, each as (rank, tier, route shape,
  // mergeable, its links numbered in the order the component first crosses them). Equal
  // signatures give the bijection of links and flows that makes two components the same system.
  std::vector<std::vector<int32_t>> signature(classes.size());  // by root
  // A link belongs to one component: its number there, and each component's next number.
  std::vector<int32_t> local(ids, -1);
  std::vector<int32_t> numbered(classes.size(), 0);
  std::vector<size_t> roots;  // clean components, by their first flow
  for (size_t i = 0; i < set.flows.size(); ++i) {
    const Class& c = classes[flow_class[i]];
    const size_t root = find(flow_class[i]);
    if (dirty[root]) continue;
    if (signature[root].empty()) roots.push_back(root);
    const auto& route = set.routes[static_cast<size_t>(c.route)];
    auto& sig = signature[root];
    int32_t& next = numbered[root];
    for (int64_t x : {c.rank, c.tier, route.shape, int64_t(route.links.size())}) sig.push_back(static_cast<int32_t>(x));
    for (uint64_t l : route.links) {
      if (local[l] < 0) local[l] = next++;
      sig.push_back(local[l]);
    }
  }
  local = {};
  numbered = {};
  // One component per signature is simulated. In it, when every class has a multiple of m copies,
  // m copies travel as one flow of m times the bytes.
  // Most components are twins, so a lookup by the signature's hash compares once.
  std::unordered_map<std::vector<int32_t>, size_t, FnvHash> representative;
  std::unordered_map<size_t, int64_t> merge;   // by root of a representative: m
  std::unordered_map<size_t, size_t> twin_of;  // by root of a twin: its representative's
  for (size_t root : roots) {
    const size_t rep = representative.try_emplace(std::move(signature[root]), root).first->second;
    if (rep == root)
      merge[root] = 0;
    else
      twin_of[root] = rep;
  }
  for (size_t c = 0; c < classes.size(); ++c)
    if (auto it = merge.find(find(c)); it != merge.end()) it->second = std::gcd(it->second, classes[c].copies);
  std::vector<int64_t> out;
  out.reserve(set.flows.size());
  std::vector<int64_t> seen(classes.size(), 0);  // copies of the class met so far
  for (size_t i = 0; i < set.flows.size(); ++i) {
    const size_t root = find(flow_class[i]);
    if (dirty[root]) {
      out.push_back(1);
      continue;
    }
    const auto it = merge.find(root);
    if (it == merge.end()) {
      out.push_back(0);  // another component with this signature is simulated
      continue;
    }
    const int64_t m = std::max<int64_t>(it->second, 1);
    out.push_back(seen[flow_class[i]]++ % m == 0 ? m : 0);
  }
  if (simulated_by) {
    // A kept flow simulates itself and the copies of its class merged into it; the k-th flow of a
    // twin (in launch order) is the k-th of its representative's (the signatures' bijection).
    simulated_by->assign(set.flows.size(), -1);
    std::unordered_map<size_t, std::vector<size_t>> flows_of;  // by clean root, in launch order
    std::vector<int64_t> last(classes.size(), -1);             // per class, its last kept flow
    for (size_t i = 0; i < set.flows.size(); ++i) {
      const size_t root = find(flow_class[i]);
      if (dirty[root]) {
        (*simulated_by)[i] = static_cast<int64_t>(i);
        continue;
      }
      flows_of[root].push_back(i);
      if (out[i] > 0) last[flow_class[i]] = static_cast<int64_t>(i);
      if (!twin_of.count(root)) (*simulated_by)[i] = last[flow_class[i]];
    }
    for (const auto& [root, rep] : twin_of) {
      const auto &mine = flows_of.at(root), &theirs = flows_of.at(rep);
      for (size_t k = 0; k < mine.size(); ++k) (*simulated_by)[mine[k]] = (*simulated_by)[theirs[k]];
    }
  }
  if (component) {
    component->clear();
    for (size_t i = 0; i < set.flows.size(); ++i) component->push_back(static_cast<int64_t>(find(flow_class[i])));
  }
  return out;
}

}  // namespace sim

namespace sim {

namespace {

// The groups of grad_groups in order: per replica and tp index a shard group; with hybrid
// sharding, per tp index and position in a shard group its replicas; with expert parallelism, per
// expert-tp index and position in an expert-parallel group its expert-data-parallel ranks.
int64_t replica_groups(const ParallelPlan& pl) { return pl.replicas() > 1 ? pl.tp * pl.shard_group_size() : 0; }
int64_t first_expert_group(const ParallelPlan& pl) { return pl.tp * pl.replicas() + replica_groups(pl); }

// A rank's index among the ranks the expert-parallel groups partition (ParallelPlan::expert_ranks):
// the cp x dp ranks of its tp and pp coordinates, cp fastest, or, folded (expert_tp 1 beside tp >
// 1), the tp x cp x dp ranks of its pp coordinate, tp fastest; and the rank at index i there.
int64_t expert_index(const ParallelPlan& pl, const RankCoord& c) {
  const int64_t cp_dp = c.cp + pl.cp * c.dp;
  return pl.expert_tp() < pl.tp ? c.tp + pl.tp * cp_dp : cp_dp;
}
RankCoord at_expert_index(const ParallelPlan& pl, RankCoord c, int64_t i) {
  if (pl.expert_tp() < pl.tp) c.tp = i % pl.tp, i /= pl.tp;
  c.cp = i % pl.cp, c.dp = i / pl.cp;
  return c;
}

}  // namespace

int64_t grad_groups(const ParallelPlan& pl) {
  return first_expert_group(pl) + (pl.ep > 1 ? pl.expert_tp() * pl.ep : 0);
}

bool reduces_experts(const ParallelPlan& pl, int64_t group) { return pl.ep > 1 && group >= first_expert_group(pl); }

Bytes group_buffer(const ParallelPlan& pl, int64_t group, const GradBucket& bucket) {
  return (reduces_experts(pl, group) ? bucket.expert : bucket.dense) * grad_group_share(pl, group);
}

std::vector<int64_t> dp_group(const ParallelPlan& pl, const Placement& place, int64_t r, int64_t group) {
  const int64_t shard = pl.shard_group_size() / pl.cp, replicas = pl.replicas();
  std::vector<int64_t> members;
  if (reduces_experts(pl, group)) {  // an expert-data-parallel group: every ep-th rank of expert_index
    const int64_t k = group - first_expert_group(pl), t = k % pl.expert_tp(), position = k / pl.expert_tp();
    for (int64_t i = position; i < pl.expert_ranks(); i += pl.ep)
      members.push_back(place.gpu(at_expert_index(pl, {t, 0, r, 0}, i)));
    return members;
  }
  if (!replicates(pl, group)) {  // a shard group: dp_shard consecutive data-parallel ranks x cp, one tp index
    const int64_t t = group % pl.tp, first = group / pl.tp * shard;
    for (int64_t d = first; d < first + shard; ++d)
      for (int64_t c = 0; c < pl.cp; ++c) members.push_back(place.gpu({t, c, r, d}));
    return members;
  }
  const int64_t k = group - pl.tp * replicas, t = k % pl.tp, position = k / pl.tp;  // a shard's replicas
  for (int64_t i = 0; i < replicas; ++i)
    members.push_back(place.gpu({t, position % pl.cp, r, i * shard + position / pl.cp}));
  return members;
}

bool replicates(const ParallelPlan& pl, int64_t group) {
  return group >= pl.tp * pl.replicas() && group < first_expert_group(pl);
}

double grad_group_share(const ParallelPlan& pl, int64_t group) {
  if (!replicates(pl, group)) return 1.0;
  return 1.0 / (pl.reduction_passes() * static_cast<double>(pl.shard_group_size()));
}

std::vector<int64_t> model_group(const ParallelPlan& pl, const Placement& place, CommGroup group, const RankCoord& at) {
  if (group == CommGroup::EP) {  // ep consecutive ranks of expert_index
    const int64_t first = expert_index(pl, at) / pl.ep * pl.ep;
    std::vector<int64_t> members;
    for (int64_t i = first; i < first + pl.ep; ++i) members.push_back(place.gpu(at_expert_index(pl, at, i)));
    return members;
  }
  const bool tp = group == CommGroup::TP;
  std::vector<int64_t> members;
  for (int64_t i = 0; i < (tp ? pl.tp : pl.cp); ++i)
    members.push_back(place.gpu(tp ? RankCoord{i, at.cp, at.pp, at.dp} : RankCoord{at.tp, i, at.pp, at.dp}));
  return members;
}

RingFlowSet dp_flow_set(const CommPlan& comm, const ParallelPlan& pl, const Placement& place,
                        const std::vector<std::vector<GradBucket>>& buffers, const std::vector<double>& capacity,
                        std::vector<DpFlow>& flows, std::vector<DpVariant>& variants) {
  const Fabric& fabric = comm.fabric();
  RingFlowSet set;
  flows.clear();
  variants.clear();
  std::unordered_map<uint64_t, int64_t> route_of;                        // by its ends, in one number
  std::unordered_map<std::vector<uint64_t>, int64_t, FnvHash> shape_of;  // capacities and latencies' words
  // (variant, the bucket's part the group reduces (GradBucket: dense 0, expert 1), bytes per byte of it)
  std::map<std::tuple<size_t, int, double>, int64_t> tier_of;
  std::map<std::pair<int64_t, DpVariant>, Bytes> group_variants;           // (group, variant) -> a part it runs at
  std::map<std::pair<int64_t, std::vector<DpVariant>>, int64_t> launches;  // DpFlow::launch
  const auto& links = fabric.network().links();
  std::vector<double> route_latency;  // per route
  const auto route = [&](int64_t a, int64_t b) {
    const auto [ea, eb] = fabric.ends(a, b);
    const auto key = static_cast<uint64_t>(ea) * static_cast<uint64_t>(fabric.ends()) + static_cast<uint64_t>(eb);
    auto [it, fresh] = route_of.try_emplace(key, static_cast<int64_t>(set.routes.size()));
    if (!fresh) return it->second;
    RingFlowSet::Route r;
    std::vector<uint64_t> shape;
    double latency = 0;
    fabric.for_each_link(a, b, [&](uint64_t id, int64_t l) {
      const double c = capacity[static_cast<size_t>(l)], lat = links[static_cast<size_t>(l)].latency.value;
      r.links.push_back(id);
      shape.push_back(word_of(c));
      shape.push_back(word_of(lat));
      latency += lat;
    });
    shape.push_back(word_of(latency));
    r.shape = shape_of.try_emplace(shape, static_cast<int64_t>(shape_of.size())).first->second;
    set.routes.push_back(std::move(r));
    route_latency.push_back(latency);
    return it->second;
  };
  // A pipeline's route: its edges' links one after the other, shaped by its edges' shapes in order
  // (a key no transfer's shape has: those hold an odd number of words).
  const auto pipe_route = [&](const std::vector<GpuFlow>& edges, const std::vector<size_t>& pipe) {
    RingFlowSet::Route r;
    std::vector<uint64_t> shape;
    double latency = 0;
    for (size_t k : pipe) {
      SIM_ASSERT(edges[k].bytes.value == edges[pipe.front()].bytes.value, "a pipeline's edges carry unequal bytes");
      const auto e = static_cast<size_t>(route(edges[k].from, edges[k].to));
      r.starts.push_back(static_cast<uint32_t>(r.links.size()));
      r.links.insert(r.links.end(), set.routes[e].links.begin(), set.routes[e].links.end());
      shape.push_back(static_cast<uint64_t>(set.routes[e].shape));
      latency = std::max(latency, route_latency[e]);
    }
    shape.push_back(word_of(latency));
    if (shape.size() % 2 == 1) shape.push_back(0);
    r.shape = shape_of.try_emplace(shape, static_cast<int64_t>(shape_of.size())).first->second;
    set.routes.push_back(std::move(r));
    route_latency.push_back(latency);
    return static_cast<int64_t>(set.routes.size() - 1);
  };
  for (int64_t r = 0; r < pl.pp; ++r)
    for (int64_t g = 0; g < grad_groups(pl); ++g) {
      const auto members = dp_group(pl, place, r, g);
      group_variants.clear();
      const double share = grad_group_share(pl, g);
      const bool experts = reduces_experts(pl, g);
      std::vector<DpVariant> picks;  // the variant at each buffer (SEND_RECV: the group has none of it)
      for (const GradBucket& b : buffers[static_cast<size_t>(r)]) {
        const Bytes part = experts ? b.expert : b.dense;
        if (part.value <= 0) {
          picks.emplace_back(CollectiveKind::SEND_RECV, CollectiveAlgo{}, Protocol{});
          continue;
        }
        const CollectiveChoice ch = comm.choose(b.kind, members, part * share);
        group_variants.try_emplace({g, DpVariant{b.kind, ch.algo, ch.protocol}}, part);
        picks.emplace_back(b.kind, ch.algo, ch.protocol);
      }
      const int64_t launch = launches.try_emplace({r, picks}, static_cast<int64_t>(launches.size())).first->second;
      for (const auto& [key, buffer] : group_variants) {  // a tier's bytes are per byte of the bucket
        const auto v = static_cast<size_t>(std::find(variants.begin(), variants.end(), key.second) - variants.begin());
        if (v == variants.size()) variants.push_back(key.second);
        const CommOp op = comm.collective(std::get<0>(key.second), members, buffer * share);
        std::tuple<size_t, int, double> last{v, experts, -1.0};
        int64_t tier = -1;
        std::map<int32_t, std::vector<size_t>> pipes;  // a pipeline's edges, by its number
        for (size_t k = 0; k < op.flows.size(); ++k)
          if (op.flows[k].pipe >= 0) pipes[op.flows[k].pipe].push_back(k);
        for (size_t k = 0; k < op.flows.size(); ++k) {
          const auto& f = op.flows[k];
          if (f.pipe >= 0 && pipes.at(f.pipe).front() != k) continue;  // its pipeline's first edge stands for it
          if (const std::tuple<size_t, int, double> t{v, experts, f.bytes.value / buffer.value};
              t != last || tier < 0) {
            last = t;
            tier = tier_of.try_emplace(t, static_cast<int64_t>(tier_of.size())).first->second;
          }
          const int64_t on = f.pipe >= 0 ? pipe_route(op.flows, pipes.at(f.pipe)) : route(f.from, f.to);
          set.flows.push_back({r, on, tier});
          flows.push_back({f.from, f.to, g, static_cast<int64_t>(v), static_cast<int64_t>(k), launch,
                           route_latency[static_cast<size_t>(on)]});
        }
      }
    }
  // The traffic between GPUs a and b of data-parallel replica 0, and its images in the others: the
  // same GPUs of each replica, or for an expert-parallel group's (whose members are ranks of
  // expert_index), the same members of each expert-parallel group.
  const auto foreign = [&](int64_t a, int64_t b, bool expert) {
    if (a == b) return;
    const auto i = static_cast<int64_t>(set.foreign_routes.size());
    set.foreign_ends.emplace_back(a, b);
    const RankCoord ca = place.coord(a), cb = place.coord(b);
    const int64_t images = expert ? pl.expert_dp() : pl.dp;
    for (int64_t d = 0; d < images; ++d) {
      RankCoord x = ca, y = cb;
      if (expert) {  // shifted by d groups of ep in expert_index
        x = at_expert_index(pl, ca, expert_index(pl, ca) + d * pl.ep);
        y = at_expert_index(pl, cb, expert_index(pl, cb) + d * pl.ep);
      } else {
        x.dp = y.dp = d;
      }
      auto& links = d == 0 ? set.foreign_routes.emplace_back()
                           : set.foreign_images.emplace_back(i, std::vector<uint64_t>{}).second;
      fabric.for_each_link(place.gpu(x), place.gpu(y), [&](uint64_t id, int64_t) { links.push_back(id); });
    }
  };
  for (int64_t r1 = 0; r1 < pl.pp; ++r1) {
    for (int64_t r2 = 0; r2 < pl.pp; ++r2) foreign(place.gpu({0, 0, r1, 0}), place.gpu({0, 0, r2, 0}), false);
    for (CommGroup g : {CommGroup::TP, CommGroup::CP, CommGroup::EP}) {  // one that leaves its domain may run live
      const auto members = model_group(pl, place, g, {0, 0, r1, 0});
      if (members_by_domain(place, members).size() < 2) continue;
      for (int64_t a : members)
        for (int64_t b : members) foreign(a, b, g == CommGroup::EP);
    }
  }
  return set;
}

}  // namespace sim
