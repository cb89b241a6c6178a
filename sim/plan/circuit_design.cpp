#include "sim/plan/circuit_design.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <utility>
#include <vector>

#include "sim/comm/ring_channels.hpp"
#include "sim/scenario/circuits.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/topology/placement.hpp"

namespace sim {
namespace {

// The nodes `gpus` sit on, in order of first appearance.
std::vector<int64_t> nodes_of(const Placement& place, const std::vector<int64_t>& gpus) {
  std::vector<int64_t> seq;
  for (int64_t gpu : gpus)
    if (std::find(seq.begin(), seq.end(), place.node(gpu)) == seq.end()) seq.push_back(place.node(gpu));
  return seq;
}

// The distinct node sequences (rank order, first appearance) of the gradient-reduction groups that
// span nodes; empty when two of them share a node in different orders (then no rings of theirs fit).
std::vector<std::vector<int64_t>> reduction_rings(const Scenario& s, const Placement& place, int64_t& groups_per_node,
                                                  bool& fits) {
  std::vector<std::vector<int64_t>> rings;
  std::vector<int64_t> ring_of(static_cast<size_t>(s.cluster.nodes()), -1);
  std::map<int64_t, int64_t> groups_on;  // node -> spanning groups with members there
  fits = true;
  for (int64_t r = 0; r < s.plan.pp; ++r)
    for (int64_t g = 0; g < grad_groups(s.plan); ++g) {
      const std::vector<int64_t> seq = nodes_of(place, dp_group(s.plan, place, r, g));
      if (seq.size() < 2) continue;
      for (int64_t v : seq) ++groups_on[v];
      const int64_t at = ring_of[static_cast<size_t>(seq.front())];
      if (at >= 0) {
        fits = fits && rings[static_cast<size_t>(at)] == seq;
        continue;
      }
      for (int64_t v : seq) {
        fits = fits && ring_of[static_cast<size_t>(v)] < 0;
        ring_of[static_cast<size_t>(v)] = static_cast<int64_t>(rings.size());
      }
      rings.push_back(seq);
    }
  groups_per_node = 0;
  for (const auto& [v, count] : groups_on) groups_per_node = std::max(groups_per_node, count);
  return rings;
}

// Bytes one replica's step moves across a tensor- or pipeline-parallel boundary per sample of the
// sequence and hidden width (only ratios between classes matter): the activations, in bf16.
double activation_bytes(const Scenario& s) {
  const ParallelPlan& p = s.plan;
  return double(s.training.global_batch / p.dp) * double(s.training.seq_len) * double(s.model.hidden) * 2.0 /
         double(p.cp);
}

// Pairs of nodes (lower first) that model-parallel traffic joins, with the bytes it sends each way
// per step: neighbouring pipeline stages (the last to the first with virtual stages), each rank
// its boundary's activations and their gradients back; and the neighbours of a tensor-parallel
// ring that spans nodes, each group its ring's all-reduces -- two forward and two backward per
// layer (Megatron's), 2 (t - 1) / t of the activations each.
std::map<std::pair<int64_t, int64_t>, double> model_pairs(const Scenario& s, const Placement& place) {
  const ParallelPlan& p = s.plan;
  std::map<std::pair<int64_t, int64_t>, double> pairs;
  const double act = activation_bytes(s);
  const double boundary =
      act / (p.sequence_parallel ? double(p.tp) : 1.0) * double(std::max<int64_t>(1, p.virtual_stages.value));
  const double tp_ring = 4.0 * double(s.model.layers) / double(p.pp) * 2.0 * double(p.tp - 1) / double(p.tp) * act;
  for (int64_t d = 0; d < p.dp; ++d)
    for (int64_t c = 0; c < p.cp; ++c)
      for (int64_t r = 0; r < p.pp; ++r) {
        for (int64_t t = 0; t < p.tp; ++t) {
          if (r + 1 == p.pp && p.virtual_stages.value <= 1) continue;
          const int64_t a = place.node(place.gpu({t, c, r, d})), b = place.node(place.gpu({t, c, (r + 1) % p.pp, d}));
          if (a != b) pairs[std::minmax(a, b)] += boundary;
        }
        // The tensor-parallel group's nodes, in rank order.
        const std::vector<int64_t> seq = nodes_of(place, model_group(p, place, CommGroup::TP, {0, c, r, d}));
        for (size_t i = 0; seq.size() > 1 && i < (seq.size() == 2 ? 1 : seq.size()); ++i)
          pairs[std::minmax(seq[i], seq[(i + 1) % seq.size()])] += tp_ring;
      }
  return pairs;
}

bool connected(int64_t n, const std::vector<Circuit>& circuits) {
  std::vector<std::vector<int64_t>> adj(static_cast<size_t>(n));
  for (const Circuit& c : circuits) {
    adj[static_cast<size_t>(c[0])].push_back(c[1]);
    adj[static_cast<size_t>(c[1])].push_back(c[0]);
  }
  std::vector<char> seen(static_cast<size_t>(n), 0);
  std::deque<int64_t> queue{0};
  seen[0] = 1;
  int64_t reached = 1;
  while (!queue.empty()) {
    const int64_t u = queue.front();
    queue.pop_front();
    for (int64_t w : adj[static_cast<size_t>(u)])
      if (!seen[static_cast<size_t>(w)]) seen[static_cast<size_t>(w)] = 1, ++reached, queue.push_back(w);
  }
  return reached == n;
}

}  // namespace

std::vector<CircuitDesign> circuit_designs(const Scenario& s) {
  const int64_t n = s.cluster.nodes(), ports = s.cluster.scale_out.nics_per_node;
  if (n < 2) return {CircuitDesign{}};
  const Placement place(s.cluster, s.plan);
  int64_t groups_per_node = 0;
  bool fits = true;
  const auto rings = reduction_rings(s, place, groups_per_node, fits);
  const auto pairs = model_pairs(s, place);

  // Bytes per step out of a node for the reduction (only its ratio to the pairs' matters): each
  // spanning group's ring sends about its rank's parameters in bf16 once per pass (all-gathers
  // before the forward and the backward and a reduce-scatter under ZeRO-3, else a reduce-scatter
  // and an all-gather).
  const ParallelPlan& p = s.plan;
  const auto moe = static_cast<double>(s.model.moe_layers()), dense = static_cast<double>(s.model.layers) - moe;
  const double rank_params = dense / double(p.pp) * s.model.layer_params_per_rank(p.tp) +
                             moe / double(p.pp) * s.model.layer_params_per_rank(p.tp, true);
  const double v_dp = double(groups_per_node) * rank_params * 2.0 * (p.zero == 3 ? 3.0 : 2.0);
  double v_mp = 0;         // the busiest pair's
  int64_t neighbours = 0;  // the most pairs a node is in
  std::map<int64_t, int64_t> partners;
  for (const auto& [pair, bytes] : pairs) {
    v_mp = std::max(v_mp, bytes);
    neighbours = std::max({neighbours, ++partners[pair.first], ++partners[pair.second]});
  }

  // The splits (k_dp, k_mp), the balanced one first.
  const bool dp = !rings.empty() && fits, model = !pairs.empty();
  std::vector<std::pair<int64_t, int64_t>> splits;
  if (dp && !model) splits.emplace_back(ports / 2, 0);
  if (model && !dp && ports >= neighbours) splits.emplace_back(0, ports / neighbours);
  if (dp && model) {
    std::vector<std::pair<double, std::pair<int64_t, int64_t>>> ranked;
    for (int64_t a = ports / 2; a >= 1; --a) {
      const int64_t b = (ports - 2 * a) / neighbours;  // the rest of the ports to the pairs
      if (b >= 1) ranked.push_back({std::max(v_dp / (2.0 * double(a)), v_mp / double(b)), {a, b}});
    }
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    for (const auto& r : ranked) splits.push_back(r.second);
  }
  std::vector<CircuitDesign> out;
  for (const auto& [k_dp, k_mp] : splits) {
    CircuitDesign d{{}, {}, k_dp, k_mp};
    if (k_dp > 0)
      for (const auto& ring : rings) {
        const std::vector<int64_t> strides = totient_strides(static_cast<int64_t>(ring.size()), k_dp);
        if (d.ring_strides.empty()) d.ring_strides = strides;
        for (const Circuit& c : ring_circuits(ring, strides)) d.circuits.push_back(c);
      }
    for (const auto& [pair, bytes] : pairs)
      for (int64_t j = 0; j < k_mp; ++j) d.circuits.push_back({pair.first, pair.second});
    if (!d.circuits.empty() && connected(n, d.circuits)) out.push_back(std::move(d));
  }
  if (out.empty()) {  // rings over all nodes, what a cluster gets without a plan
    ClusterSpec all = s.cluster;
    all.reset_circuits();
    out.push_back({all.scale_out.circuits, all.scale_out.ring_strides, 0, 0});
  }
  return out;
}

void apply_design(Scenario& s, const CircuitDesign& d) {
  s.cluster.scale_out.circuits = d.circuits;
  s.cluster.scale_out.ring_strides = d.ring_strides;
}

void design_circuits(Scenario& s) { apply_design(s, circuit_designs(s).front()); }

}  // namespace sim
