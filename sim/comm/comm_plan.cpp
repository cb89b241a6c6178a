#include "sim/comm/comm_plan.hpp"

#include <algorithm>
#include <numeric>
#include <set>

#include "sim/comm/ring_channels.hpp"
#include "sim/core/error.hpp"
#include "sim/cost/collective.hpp"
#include "sim/cost/collective_flows.hpp"
#include "sim/cost/expert_routing.hpp"
#include "sim/scenario/dispatcher.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/topology/fabric.hpp"
#include "sim/topology/placement.hpp"

namespace sim {

CommShape comm_shape(uint64_t fabric, const Scenario& s) {
  const auto& p = s.plan;
  const auto& k = s.cluster.device.collectives;
  return {fabric,
          p.tp,
          p.cp,
          p.pp,
          p.dp,
          p.order,
          p.gpu_of_rank,
          p.algorithms,
          s.cluster.device.name,
          {k.base_latency.value, k.scale_up_step_latency.value, k.scale_out_step_latency.value, k.scale_up_efficiency,
           k.scale_out_efficiency, k.nvls_efficiency, k.nvls_latency.value},
          s.cluster.scale_up.nvls,
          {static_cast<int64_t>(p.dispatcher), s.model.moe ? s.model.moe->experts : 0,
           s.model.moe ? s.model.moe->top_k : 0, s.model.moe ? s.model.moe->node_limit : 0}};
}

CommPlan::CommPlan(const Scenario& s, const Placement& place, const Fabric& fabric)
    : s_(s), place_(place), fabric_(fabric) {}

namespace {

// DeepEP's all-to-all over group `g` (collective_flows.hpp, DEEPEP): `buffer` is a member's token
// copies (top_k per token); each token goes to a node with the chance token_spread gives, and from
// there to each GPU. Priced on an idle network like the flows: the busier of the NVLink port (the
// forwarded tokens, at the kernels' rate) and the NIC (a token per other node it goes to); NCCL's
// all-to-all latency (one step).
CollectiveChoice deepep_choice(const GroupShape& g, Bytes buffer, const CollectiveConstants& c, const MoeSpec& moe,
                               const DispatcherEntry& d) {
  const int64_t ppn = g.ranks / g.nodes;
  const TokenSpread spread = token_spread(moe.experts, moe.top_k, moe.node_limit, g.nodes, ppn);
  const auto k = static_cast<double>(moe.top_k);
  CollectiveChoice ch;
  ch.algo = CollectiveAlgo::DEEPEP;
  ch.latency = collective_latency(CollectiveKind::ALL_TO_ALL, g.ranks, g.nodes > 1, c);
  ch.node_share = spread.node / k;
  ch.gpu_share = static_cast<double>(g.nodes) * spread.gpu / k;
  ch.nvlink_factor = c.scale_up_efficiency / d.scale_up_efficiency;
  Seconds t;
  if (ppn > 1) t = buffer * (double(ppn - 1) * ch.gpu_share) / (g.scale_up_bandwidth * d.scale_up_efficiency);
  if (g.nodes > 1)
    t = std::max(t, buffer * (double(g.nodes - 1) * ch.node_share) / (g.scale_out_bandwidth * c.scale_out_efficiency));
  ch.time_idle = ch.latency + t;
  return ch;
}

std::string forced_path(CollectiveKind kind) {
  std::string key = to_string(kind);  // "all-reduce" -> "all_reduce"
  std::replace(key.begin(), key.end(), '-', '_');
  return "/parallelism/collective_algorithms/" + key;
}

}  // namespace

GroupShape CommPlan::shape(const std::vector<int64_t>& members, std::vector<std::vector<int64_t>>* by_node,
                           bool& even) const {
  const auto& c = s_.cluster;
  GroupShape g;
  g.ranks = static_cast<int64_t>(members.size());
  // NCCL's nodes are the NVLink domains (a multi-node NVLink domain is one node to its algorithms).
  const auto nodes = members_by_domain(place_, members);
  std::set<int64_t> distinct;
  for (int64_t m : members) distinct.insert(place_.domain(m));
  even = nodes.size() == distinct.size() &&
         std::all_of(nodes.begin(), nodes.end(), [&](const auto& n) { return n.size() == nodes[0].size(); });
  g.nodes = even ? static_cast<int64_t>(nodes.size()) : g.ranks;
  g.nvls = c.nvls();
  g.scale_up_bandwidth = c.scale_up.bandwidth;
  g.scale_out_bandwidth = c.scale_out.nic_bandwidth * (double(c.scale_out.nics_per_node) / double(c.gpus_per_node));
  g.arch = gpu_arch(c.device.name);
  if (even && std::all_of(members.begin(), members.end(), [&](int64_t m) { return fabric_.torus_of(m) >= 0; })) {
    // Tori: the group's shape in each (a torus algorithm runs it when every slice has the same).
    std::vector<int64_t> dims;
    for (const auto& n : nodes) {
      const TorusLayout& t = fabric_.network().tori[static_cast<size_t>(fabric_.torus_of(n.front()))];
      std::vector<int64_t> chips;
      for (int64_t m : n) chips.push_back(m - t.first_gpu);
      const std::vector<int64_t> here = torus_group_dims(t, chips);
      if (!dims.empty() && here != dims) {
        dims.clear();
        break;
      }
      dims = here;
    }
    g.torus_dims = dims;
  }
  if (even && nodes.size() > 1 && !c.scale_out.ring_strides.empty()) {
    // Direct-connect circuits: the design's strides whose rings over these nodes are all circuits.
    const auto m = static_cast<int64_t>(nodes.size());
    const auto node = [&](int64_t k) { return place_.node(nodes[static_cast<size_t>(k % m)].front()); };
    for (int64_t s : c.scale_out.ring_strides) {
      bool ring = s < m && std::gcd(s, m) == 1;
      for (int64_t k = 0; ring && k < m; ++k) ring = fabric_.joined(node(k), node(k + s));
      if (ring) g.ring_strides.push_back(s);
    }
  }
  if (by_node) {
    // Member indices grouped by node, in ring order.
    by_node->clear();
    int64_t i = 0;
    for (const auto& n : nodes) {
      by_node->emplace_back();
      for (size_t k = 0; k < n.size(); ++k) by_node->back().push_back(i++);
    }
  }
  return g;
}

CollectiveChoice CommPlan::choose(CollectiveKind kind, const std::vector<int64_t>& members, Bytes buffer) const {
  if (last_members_.empty() || members != last_members_) {
    bool even_now = true;
    last_shape_.first = shape(members, nullptr, even_now);
    last_shape_.second = even_now;
    last_members_ = members;
  }
  const GroupShape& g = last_shape_.first;
  const bool even = last_shape_.second;
  const auto key = std::make_tuple(static_cast<int>(kind), g.ranks, g.nodes, even, buffer.value, g.torus_dims,
                                   g.ring_strides.empty());
  auto it = choices_.find(key);
  const DispatcherEntry& d = dispatcher(s_.plan.dispatcher);
  if (it == choices_.end() && kind == CollectiveKind::ALL_TO_ALL && d.own_kernels() && s_.model.moe && g.ranks > 1) {
    if (!even || !g.torus_dims.empty())
      throw InputError(s_.file, s_.json_path("/parallelism/dispatcher"),
                       std::string("'") + d.name +
                           "' needs each expert-parallel group on NVLink nodes, as many of its " +
                           std::to_string(g.ranks) + " GPUs on each (the placement puts them unevenly)",
                       "a placement with ep / gpus_per_node (or all ep) ranks on each node, or dispatcher alltoall");
    it = choices_.emplace(key, deepep_choice(g, buffer, s_.cluster.device.collectives, *s_.model.moe, d)).first;
  }
  if (it == choices_.end()) {  // stored only once chosen: a refusal leaves no entry behind
    const auto forced = s_.plan.algorithms.find(kind);
    std::optional<CollectiveAlgo> algo;
    if (forced != s_.plan.algorithms.end()) algo = forced->second;
    if (!even && algo && *algo != CollectiveAlgo::RING)
      throw InputError(s_.file, s_.json_path(forced_path(kind)),
                       std::string("'") + to_string(*algo) + "' cannot run a group of " + std::to_string(g.ranks) +
                           " GPUs spread unevenly over nodes (the placement)",
                       "ring or \"auto\"");
    if (!even || (!algo && !g.ring_strides.empty())) algo = CollectiveAlgo::RING;
    if (algo)
      if (auto why = cannot_run(*algo, kind, g))
        throw InputError(s_.file, s_.json_path(forced_path(kind)),
                         std::string("'") + to_string(*algo) + "' cannot run the " + to_string(kind) + " over " +
                             std::to_string(g.ranks) + " GPUs on " + std::to_string(g.nodes) + " node(s): " + *why,
                         "an algorithm every group of the plan can run, or \"auto\"");
    it = choices_.emplace(key, choose_collective(kind, g, buffer, s_.cluster.device.collectives, algo)).first;
  }
  return it->second;
}

CommOp CommPlan::collective(CollectiveKind kind, const std::vector<int64_t>& members, Bytes buffer) const {
  CommOp op;
  op.choice = choose(kind, members, buffer);
  if (members.size() < 2) return op;
  std::vector<std::vector<int64_t>> by_node;
  bool even = true;
  const GroupShape g = shape(members, &by_node, even);
  for (const auto& f :
       collective_flows(op.choice, kind, by_node, buffer, s_.cluster.device.collectives, g.torus_dims, g.ring_strides))
    op.flows.push_back({members[static_cast<size_t>(f.from)], members[static_cast<size_t>(f.to)], f.bytes, f.pipe});
  return op;
}

Seconds CommPlan::send_latency(int64_t a, int64_t b) const {
  const auto& k = s_.cluster.device.collectives;
  const bool out = fabric_.ends(a, b).first >= fabric_.gpus();  // leaves the scale-up domain
  return k.base_latency + (out ? k.scale_out_step_latency : k.scale_up_step_latency);
}

Seconds CommPlan::route_latency(const std::vector<GpuFlow>& flows) const {
  Seconds t;
  for (const auto& f : flows) t = std::max(t, fabric_.route_latency(f.from, f.to));
  return t;
}

std::vector<GpuFlow> CommPlan::class_transfers(int64_t from_rank, int64_t to_rank, Bytes bytes) const {
  const auto& pl = s_.plan;
  std::vector<GpuFlow> flows;
  for (int64_t d = 0; d < pl.dp; ++d)
    for (int64_t c = 0; c < pl.cp; ++c)
      for (int64_t t = 0; t < pl.tp; ++t)
        flows.push_back({place_.gpu({t, c, from_rank, d}), place_.gpu({t, c, to_rank, d}), bytes});
  return flows;
}

double CommPlan::class_share(int64_t from_rank, int64_t to_rank) const {
  const std::vector<GpuFlow> all = class_transfers(from_rank, to_rank, Bytes(1 << 20));
  const double alone = transfer_time({all.front()}).value;
  return alone > 0 ? transfer_time(all).value / alone : 1.0;
}

bool CommPlan::leaves_domain(const CommOp& op) const {
  return std::any_of(op.flows.begin(), op.flows.end(),
                     [&](const GpuFlow& f) { return fabric_.ends(f.from, f.to).first >= fabric_.gpus(); });
}

bool CommPlan::pipeline_crosses(int64_t from_rank, int64_t to_rank) const {
  return !place_.same_domain(place_.gpu({0, 0, from_rank, 0}), place_.gpu({0, 0, to_rank, 0}));
}

Seconds CommPlan::reconfiguration() const {
  const auto& p = s_.plan;
  if (s_.cluster.scale_out.kind != "ocs" || p.pp < 2) return Seconds(0);
  // The pipeline's neighbours (the last stage sends to the first with virtual stages).
  bool pipeline = false;
  for (int64_t r = 0; r < p.pp; ++r)
    if (r + 1 < p.pp || p.virtual_stages.value > 1) pipeline = pipeline || pipeline_crosses(r, (r + 1) % p.pp);
  bool reduction = false;
  for (int64_t group = 0; !reduction && group < grad_groups(p); ++group) {
    const std::vector<int64_t> dp = dp_group(p, place_, 0, group);
    reduction = std::any_of(dp.begin(), dp.end(), [&](int64_t g) { return !place_.same_domain(g, dp.front()); });
  }
  return pipeline && reduction ? s_.cluster.scale_out.reconfiguration : Seconds(0);
}

Seconds CommPlan::transfer_time(const std::vector<GpuFlow>& flows) const {
  load_.resize(fabric_.network().links().size() * 2, 0.0);
  std::vector<uint64_t> touched;
  for (const auto& f : flows)
    fabric_.for_each_link(f.from, f.to, [&](uint64_t id, int64_t) {
      if (load_[id] == 0) touched.push_back(id);
      load_[id] += f.bytes.value;
    });
  double t = 0;
  for (uint64_t id : touched) {
    t = std::max(t, load_[id] / fabric_.capacity(static_cast<int64_t>(id / 2)));
    load_[id] = 0;
  }
  return Seconds(t);
}

}  // namespace sim
